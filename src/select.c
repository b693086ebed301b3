/*
 * select.c: select over several send / receive operations, as one poll-style future.
 *
 * Readiness-based (crossbeam-channel's Select): a poll attempts the cases one at a time
 * (zc__chan_recv_attempt / zc__chan_send_attempt, as a single future does). The first
 * attempt that completes is the outcome; then every case's node is taken off its list,
 * and a wake-up held by a case other than the chosen one is passed on if its channel can
 * still serve a waiter of its kind (waker rule 4). If nothing completes, every case
 * registers its node with the poll's waker and the cases are attempted once more; still
 * nothing: ZC_PENDING.
 *
 * Several cases may wait on one channel, and an inline executor polls from inside the
 * wake, so a wake the select made to itself would nest a poll inside its own. So every
 * node is taken off its list before any wake-up is passed on (select_finish) or any wake
 * an attempt owes is made (zc__wait_pay).
 *
 * Fairness. Until a select has completed once, each walk attempts the cases in a
 * uniformly random order (Go's select), so the case chosen is uniform among the cases
 * ready during the walk: a Fisher-Yates shuffle drawn one step at a time (walk_next),
 * kept in the cases (zc__order). A select polled again after a completion walks
 * round-robin from the case after the one chosen (zc__start): a case ready at every poll
 * waits at most n - 1 selections. ZC_SELECT_ORDERED: array order.
 *
 * No lost wake-up: per channel, the node's registration ([F2]) comes before the
 * re-check's look at the queue, and a peer's claim before its look at the waiter count
 * ([F1]), exactly as for one future. A wake-up delivered to a case not chosen is passed
 * on by select_finish. Exactly one operation completes: the poll stops at the first
 * attempt that completes, and only the poll attempts (the lists only signal readiness).
 *
 * ZC_SELECT_SKIP_CLOSED: a case whose attempt reports ZC_CLOSED counts as not ready and
 * is not registered; a walk that finds every enabled case closed ends the selection with
 * ZC_CLOSED and index n.
 *
 * ZC_SELECT_READY: the walk looks instead of attempting (case_look), and the case found
 * ready ends the selection with nothing performed; every wake-up the nodes held is
 * passed on, none having been used. Timer cases (zc_select_after_case) are looked at in
 * the walk like the others and never registered: the blocking forms wait until the
 * earliest deadline, and the future leaves that to its executor (zc_select_deadline).
 *
 * Waker rule 3: a final status, a cancel and a disable unregister the nodes they drop.
 *
 * Cost. A poll attempts cases from its starting one until one completes, so a loop over
 * busy channels pays for the cases it tries, not for n: a case's buffer is checked when
 * it is tried (walk_case), a select learns that it has a rendezvous case when a walk
 * first meets one (SEL_RV), and a completion takes nodes off only after a poll
 * registered them (SEL_LINKED). Only a poll that waits, and the completion after it,
 * walk every case.
 *
 * No atomics of its own: the orderings are those of chan.h and waitlist.c ([F1]/[F2]).
 */
#include <zchan/select.h>

#include "block_on.h"
#include "backoff.h"
#include "rendezvous.h"
#include "wait.h"

/* A case's kind, the mark of a node that select_finish found holding a wake-up, and
 * (ZC_SELECT_SKIP_CLOSED) the mark of a case whose channel the last walk found closed.
 * A timer case (CASE_AFTER) has no channel: its handle is the case itself (only to say
 * it is enabled), its deadline is kept in its out and msg words, and its node is never
 * registered (it stays IDLE, so select_finish and zc_select_disable pass it by). */
enum { CASE_RECV = 1, CASE_SEND = 2, CASE_ABSORBED = 4, CASE_CLOSED = 8, CASE_AFTER = 16,
       CASE_OFFERED = 32 };

/* The two top bits of zc__start are the select's own state, beside the index of the
 * case its next walk tries first (zc_select_poll refuses an n that reaches them):
 * SEL_RV: a walk met an enabled case on a rendezvous channel, so the polls hold the
 * claim word (select_walks_rv) until the next zc_select_init; SEL_LINKED: a poll
 * registered the nodes, and no select_finish has taken them off since (without it, a
 * completion has no node to take off and skips the O(n) pass). Only the owner reads or
 * writes the word. */
#define SEL_RV ((SIZE_MAX >> 1) + 1)
#define SEL_LINKED (SEL_RV >> 1)
#define SEL_STATE (SEL_RV | SEL_LINKED)

static size_t sel_start(const zc_select *s) { return s->zc__start & ~SEL_STATE; }

static void sel_set_start(zc_select *s, size_t start) {
    s->zc__start = (s->zc__start & SEL_STATE) | start;
}

/* This thread's xorshift64 generator (Marsaglia, "Xorshift RNGs", 2003), for the order of
 * the shuffled walks. Reached through a pointer (select_rng), so that a select run from
 * inside a wake this poll makes draws on from the same state. */
static ZC__TLS_FAST uint64_t tl_seed;

static uint64_t *select_rng(void) {
    if (tl_seed == 0) /* first use on this thread: seeded from the variable's own address */
        tl_seed = ((uint64_t)(uintptr_t)&tl_seed * UINT64_C(0x9E3779B97F4A7C15)) | 1u;
    return &tl_seed;
}

/* The high 32 bits of the next number (xorshift64's low bits are its weakest). */
static uint32_t rng_next32(uint64_t *rng) {
    uint64_t x = *rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *rng = x;
    return (uint32_t)(x >> 32);
}

/* A uniform draw from [0, bound), bound >= 1: multiply-shift, with the rejection of the
 * 2^32 mod bound low products that would make it uneven (a division only when the low
 * half is below bound). Source: D. Lemire, "Fast Random Integer Generation in an
 * Interval", ACM TOMACS 29(1), 2019. */
static uint32_t rng_below(uint64_t *rng, uint32_t bound) {
    uint64_t m = (uint64_t)rng_next32(rng) * bound;
    if ((uint32_t)m < bound) {
        uint32_t uneven = (0u - bound) % bound; /* 2^32 mod bound */
        while ((uint32_t)m < uneven) m = (uint64_t)rng_next32(rng) * bound;
    }
    return (uint32_t)(m >> 32);
}

/* The case a walk attempts k-th: step k of a Fisher-Yates shuffle of the cases' zc__order
 * fields (a permutation of 0..n-1 when step 0 runs): a walk that completes at its first
 * attempt costs one draw. Source: R. Durstenfeld, Algorithm 235, CACM 7(7), 1964. */
static size_t walk_next(zc_select_case *cases, size_t k, size_t n, uint64_t *rng) {
    size_t j = k + rng_below(rng, (uint32_t)(n - k)); /* n <= UINT32_MAX (zc_select_poll) */
    uint32_t pick = cases[j].zc__order;
    cases[j].zc__order = cases[k].zc__order;
    cases[k].zc__order = pick;
    return pick;
}

static bool case_is_timer(const zc_select_case *c) { return c->zc__kind & CASE_AFTER; }

/* call: the public call, for the checked build's reports. */
static void case_init(zc_select_case *c, unsigned kind, void *handle, void *out,
                      const void *msg, const char *call) {
    zc__waiter_init_at(&c->zc__node, call);
    c->zc__kind = kind;
    c->zc__handle = handle;
    c->zc__out = out;
    c->zc__msg = msg;
}

void zc_select_recv_case(zc_select_case *c, zc_receiver *rx, void *out) {
    ZC__CHECK_HANDLE(rx);
    if (c) case_init(c, CASE_RECV, rx, out, NULL, __func__);
}

void zc_select_send_case(zc_select_case *c, zc_sender *tx, const void *msg) {
    ZC__CHECK_HANDLE(tx);
    if (c) case_init(c, CASE_SEND, tx, NULL, msg, __func__);
}

/* The checked build's look at every case of a select at the start of call (waitlist.h's
 * ZC__CHECK_FUTURE for each): its node where its setup left it, its handle live (only
 * for a case that is pending, when pending_only: the handles of a select that completed
 * may be gone). */
static void check_cases(const zc_select_case *cases, size_t n, bool pending_only,
                        const char *call) {
#if ZCHAN_CHECKED
    for (size_t i = 0; cases && i < n; i++) {
        zc_select_case *c = (zc_select_case *)&cases[i];
        zc__waiter_check(&c->zc__node, call);
        if (c->zc__handle && !case_is_timer(c) &&
            !(pending_only && zc__waitlist_is_idle(&c->zc__node)))
            zc__check_handle(&((zc_sender *)c->zc__handle)->stamp, c->zc__handle, call);
    }
#else
    (void)cases, (void)n, (void)pending_only, (void)call;
#endif
}

/* A timer case's deadline: its low 32 bits in out, the high 32 in msg (32-bit words, so
 * that this holds where a pointer has 32 bits). */
static uint64_t case_deadline(const zc_select_case *c) {
    return (uint64_t)(uint32_t)(uintptr_t)c->zc__out |
           (uint64_t)(uint32_t)(uintptr_t)c->zc__msg << 32;
}

void zc_select_after_case(zc_select_case *c, uint64_t deadline_ns) {
    if (!c) return;
    case_init(c, CASE_AFTER, c, (void *)(uintptr_t)(uint32_t)deadline_ns,
              (const void *)(uintptr_t)(uint32_t)(deadline_ns >> 32), __func__);
}

uint64_t zc_select_deadline(const zc_select *s) {
    uint64_t earliest = UINT64_MAX;
    for (size_t i = 0; s && s->zc__cases && i < s->zc__n; i++) {
        const zc_select_case *c = &s->zc__cases[i];
        if (c->zc__handle && case_is_timer(c) && case_deadline(c) < earliest)
            earliest = case_deadline(c);
    }
    return earliest;
}

void zc_select_init(zc_select *s, zc_select_case *cases, size_t n, unsigned flags) {
    if (!s) return;
    s->zc__cases = cases;
    s->zc__n = n;
    s->zc__flags = zc__rv_select_init_flags(flags);
    s->zc__start = n; /* none chosen yet: the walks are shuffled (file comment); no
                       * state bit: no rendezvous case met, nothing linked */
}

static bool case_is_recv(const zc_select_case *c) {
    return (c->zc__kind & (CASE_RECV | CASE_SEND)) == CASE_RECV;
}

static zc__chan *case_chan(const zc_select_case *c) {
    return case_is_recv(c) ? ((zc_receiver *)c->zc__handle)->ch
                           : ((zc_sender *)c->zc__handle)->ch;
}

static zc__side case_side(const zc_select_case *c) {
    return case_is_recv(c) ? ZC__SIDE_RECV : ZC__SIDE_SEND;
}

/* The list the case's node waits on: its channel's list of its side, or a rendezvous
 * channel's list of select cases of its kind (rendezvous.h). */
static zc__waitlist *case_list(const zc_select_case *c) {
    zc__chan *ch = case_chan(c);
    return ch->rv ? zc__rv_case_list(ch->rv, case_is_recv(c)) : zc__wait_list(ch, case_side(c));
}

/* The rendezvous hand-off of the case's channel; NULL for a timer or a buffered channel. */
static zc__rv *case_rv(const zc_select_case *c) {
    return case_is_timer(c) ? NULL : case_chan(c)->rv;
}

/* One attempt at the case's operation, its wakes owed (chan.h): ZC_OK, ZC_CLOSED,
 * ZC_ENOMEM (complete), ZC_EMPTY / ZC_FULL (not ready), ZC_PENDING (a peer is
 * mid-operation on the slot it needs). A timer case: ZC_OK once its deadline has passed,
 * else ZC_EMPTY. */
static zc_status timer_due(const zc_select_case *c) {
    return zc__clock_ns() >= case_deadline(c) ? ZC_OK : ZC_EMPTY;
}

static zc_status case_try(const zc_select_case *c, unsigned *owed) {
    if (case_is_timer(c)) return timer_due(c);
    return case_is_recv(c) ? zc__chan_recv_attempt(case_chan(c), c->zc__out, owed)
                           : zc__chan_send_attempt(case_chan(c), (void *)c->zc__msg, owed);
}

/* ZC_SELECT_READY: whether the case's operation could go ahead now, doing nothing: a
 * receive if a message is held (a place taken: a reservation or a sender mid-write
 * counts), a send if a place is free, a timer once due; ZC_CLOSED if it would report the
 * close; else ZC_EMPTY / ZC_FULL. The queue's length is a snapshot of seq_cst loads of
 * both indices ([S2]), so the look pairs with a peer's claim as a re-check must ([F1] /
 * [F2]). */
static zc_status case_look(const zc_select_case *c) {
    if (case_is_timer(c)) return timer_due(c);
    zc__chan *ch = case_chan(c);
    size_t len = zc__queue_len(&ch->q);
    if (case_is_recv(c)) return len > 0 ? ZC_OK : zc__chan_is_closed(ch) ? ZC_CLOSED : ZC_EMPTY;
    if (zc__chan_is_closed(ch)) return ZC_CLOSED;
    return zc__queue_bounded(&ch->q) && len >= zc__queue_capacity(&ch->q) ? ZC_FULL : ZC_OK;
}

/* Take every enabled case's node off its list, then pass on the wake-ups they held
 * except the one of case `used` (n: none used): only then, so that none goes to another
 * node of this select. A case's wake-up is used when its operation completes, or when
 * every case is attempted again (pass_on false: the holes path, which registers again). */
static void select_finish(zc_select *s, size_t used, bool pass_on) {
    if (!(s->zc__start & SEL_LINKED)) return; /* none registered since the last pass */
    s->zc__start &= ~SEL_LINKED;
    for (size_t i = 0; i < s->zc__n; i++) {
        zc_select_case *c = &s->zc__cases[i];
        c->zc__kind &= ~(unsigned)CASE_OFFERED;
        /* An idle node holds nothing: its handle is not looked at (it may be gone). A
         * rendezvous case is woken only when a peer completes it or at close: it has
         * nothing to pass on. */
        if (c->zc__handle && !zc__waitlist_is_idle(&c->zc__node) &&
            zc__waitlist_unregister(case_list(c), &c->zc__node) &&
            pass_on && i != used && !case_rv(c))
            c->zc__kind |= CASE_ABSORBED;
    }
    for (size_t i = 0; pass_on && i < s->zc__n; i++) {
        zc_select_case *c = &s->zc__cases[i];
        if (!(c->zc__kind & CASE_ABSORBED)) continue;
        c->zc__kind &= ~(unsigned)CASE_ABSORBED;
        zc__wait_pass_on(case_chan(c), case_side(c));
    }
}

/* A select whose case `claimed` a rendezvous peer completed: its nodes off their lists,
 * then the outcome, as the select's own completion would report it. */
static zc_status select_claimed(zc_select *s, size_t claimed, size_t *index) {
    select_finish(s, claimed, true);
    zc__rv_select_leave(s);
    sel_set_start(s, claimed + 1 < s->zc__n ? claimed + 1 : 0);
    *index = claimed;
    return ZC_OK;
}

/* The claim word keeps rendezvous peers off the select while the nodes go (a select
 * with no rendezvous case finds it FREE). One a peer completed stays so, for its next
 * poll to report. */
void zc_select_cancel(zc_select *s) {
    if (s) check_cases(s->zc__cases, s->zc__n, true, __func__);
    if (!s || !s->zc__cases) return;
    size_t claimed;
    bool mine = zc__rv_select_enter(s, false, &claimed);
    select_finish(s, mine ? s->zc__n : claimed, true);
    if (mine) zc__rv_select_leave(s);
}

bool zc_select_abort(zc_select *s, size_t *index) {
    zc_select_cancel(s);
    size_t claimed;
    if (!s || !zc__rv_select_claimed(s, &claimed)) return true;
    size_t ignored;
    (void)select_claimed(s, claimed, index ? index : &ignored);
    return false;
}

void zc_select_disable(zc_select *s, size_t index) {
    if (!s || !s->zc__cases || index >= s->zc__n) return;
    check_cases(s->zc__cases, s->zc__n, true, __func__);
    zc_select_case *c = &s->zc__cases[index];
    if (!c->zc__handle) return;
    if (zc__waitlist_is_idle(&c->zc__node)) { /* holds nothing; its handle may be gone */
        c->zc__handle = NULL;
        return;
    }
    zc__chan *ch = case_chan(c);
    zc__side side = case_side(c);
    size_t claimed;
    bool mine = zc__rv_select_enter(s, false, &claimed); /* as zc_select_cancel */
    bool absorbed = zc__waitlist_unregister(case_list(c), &c->zc__node) && !ch->rv;
    if (mine) zc__rv_select_leave(s);
    c->zc__handle = NULL; /* disabled before any wake it passes on can reach this select */
    if (absorbed) zc__wait_pass_on(ch, side);
}

/* Whether case c has the buffer its operation needs (a timer case needs none). */
static bool case_valid(const zc_select_case *c) {
    return case_is_timer(c) || (case_is_recv(c) ? c->zc__out != NULL : c->zc__msg != NULL);
}

/* Whether a select may have rendezvous cases: one that performs what it chooses (not
 * ZC_SELECT_READY: a peer completes a waiting rendezvous case) and can name each case
 * in its claim. */
static bool rv_allowed(const zc_select *s) {
    return !(zc__rv_select_flags(s) & ZC_SELECT_READY) && s->zc__n <= zc__rv_select_max_cases();
}

/* Check what a poll can check in O(1): ZC_OK, else ZC_EINVAL with *index n. A case's
 * own buffer is checked when a walk tries it (walk_case). */
static zc_status select_args(zc_select *s, const zc_waker *w, size_t *index) {
    size_t n = s->zc__n;
    if (!s->zc__cases || n == 0 || n >= SEL_LINKED) return ZC_EINVAL;
#if SIZE_MAX > UINT32_MAX
    if (n > UINT32_MAX) return ZC_EINVAL; /* beyond zc__order; never registered, so no cancel */
#endif
    if (!w || !w->wake || !index || zc__rv_select_bad(s)) {
        zc_select_cancel(s); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    return ZC_OK;
}

/* What one walk over the cases found when none completed. */
typedef struct walk_result {
    bool busy;     /* a case met a peer mid-operation */
    bool to_rv;    /* a select not yet SEL_RV met a rendezvous case, and is now */
    size_t live;   /* the enabled cases */
    size_t closed; /* ZC_SELECT_SKIP_CLOSED: the cases found closed */
} walk_result;

/* Attempt case i in a walk: true if the selection is over (its status in *st: the
 * case's outcome, or ZC_EINVAL for a case without its buffer). A case skipped for being
 * closed, or not ready, is noted in *wr; so is a rendezvous case met by a select whose
 * polls do not hold the claim word yet (not attempted: the poll walks again, holding
 * it). */
static bool walk_case(zc_select *s, size_t i, bool *registered, walk_result *wr,
                      zc_status *st) {
    zc_select_case *c = &s->zc__cases[i];
    unsigned owed = 0;
    bool look = zc__rv_select_flags(s) & ZC_SELECT_READY;
    zc__rv *rv = case_rv(c);
    zc__taken partner = {0};
    if (!case_valid(c)) {
        zc__rv_select_finishing(s);
        select_finish(s, s->zc__n, true); /* as a cancel: rule 3, nothing left registered */
        *st = ZC_EINVAL;
        return true;
    }
    if (rv && !(s->zc__start & SEL_RV)) {
        s->zc__start |= SEL_RV;
        wr->to_rv = true;
        return false;
    }
    *st = look ? case_look(c)
          : rv ? zc__rv_case_try(rv, c, s, case_is_recv(c), &partner)
               : case_try(c, &owed);
    /* A closed case is skipped: never ready, not registered (the mark, set or cleared at
     * each attempt), its node off the list; a wake-up it held is owed to nobody (the
     * close woke every waiter). */
    bool skip = (zc__rv_select_flags(s) & ZC_SELECT_SKIP_CLOSED) && *st == ZC_CLOSED;
    c->zc__kind &= ~(unsigned)CASE_CLOSED;
    if (skip) {
        c->zc__kind |= CASE_CLOSED;
        (void)zc__waitlist_unregister(case_list(c), &c->zc__node);
    }
    wr->closed += skip;
    if (*st == ZC_EMPTY || *st == ZC_FULL || *st == ZC_PENDING || skip) {
        if (owed > 0) {
            /* Holes skipped: slots freed, perhaps for a send case of ours. Off the lists,
             * wake whom the slots are for, and register again later. */
            select_finish(s, s->zc__n, false);
            *registered = false;
            zc__wait_pay(case_chan(c), case_side(c), owed);
        }
        wr->busy |= *st == ZC_PENDING;
        return false;
    }
    /* Every node; the chosen one used a wake-up it held from an earlier poll, while one
     * that came for this poll's registration may be unused: passed on (wait.h). A look
     * used none. A timer case owes nothing. */
    zc__rv_select_finishing(s); /* rendezvous peers pass the select over from here */
    select_finish(s, *registered || look ? s->zc__n : i, true);
    zc__rv_wake_partner(&partner); /* the partner's operation completed */
    if (owed > 0) zc__wait_pay(case_chan(c), case_side(c), owed);
    return true;
}

/* Register every enabled case that may wait (not closed, not a timer) with w ([F2]). */
static void select_register(zc_select *s, const zc_waker *w) {
    s->zc__start |= SEL_LINKED;
    for (size_t i = 0; i < s->zc__n; i++) {
        zc_select_case *c = &s->zc__cases[i];
        if (!c->zc__handle || (c->zc__kind & (CASE_CLOSED | CASE_AFTER))) continue;
        zc__rv *rv = case_chan(c)->rv;
        if (!rv)
            zc__waitlist_register(case_list(c), &c->zc__node, w); /* [F2] */
        else if (zc__rv_case_register(rv, c, s, case_is_recv(c), w) && !case_is_recv(c))
            c->zc__kind |= CASE_OFFERED; /* a new offer: announced once it may be taken */
    }
}

/* The walks of one poll: attempt every case, register them all, attempt again. A poll
 * that must be polled again soon wakes itself, or with wake_later sets it for its
 * caller to do once the select is no longer BUSY (an executor may poll from inside).
 * A walk that meets the select's first rendezvous case ends the poll at once (*index
 * n, SEL_RV set, *drawn the steps of its shuffled order drawn so far), for its caller
 * to walk again holding the claim word, replaying those steps (*drawn on entry) so that
 * the choice stays uniform. */
static zc_status select_walks(zc_select *s, const zc_waker *w, size_t *index,
                              bool *wake_later, size_t *drawn) {
    size_t n = s->zc__n, replay = *drawn;
    zc_status st;
    /* start < n: round-robin from there (0 for ZC_SELECT_ORDERED); n: shuffled walks. */
    size_t start = (zc__rv_select_flags(s) & ZC_SELECT_ORDERED) ? 0 : sel_start(s);
    uint64_t *rng = NULL; /* not NULL: the walks are shuffled */
    if (start >= n) {
        rng = select_rng();
        for (size_t i = 0; i < n && replay == 0; i++) /* from the identity (walk_next) */
            s->zc__cases[i].zc__order = (uint32_t)i;
    }
    bool registered = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;; replay = 0) {
        walk_result wr = {0};
        for (size_t k = 0; k < n; k++) { /* one walk: every case once */
            size_t i = !rng ? (start + k < n ? start + k : start + k - n)
                       : k < replay ? s->zc__cases[k].zc__order
                                    : walk_next(s->zc__cases, k, n, rng);
            if (!s->zc__cases[i].zc__handle) continue;
            wr.live++;
            if (!walk_case(s, i, &registered, &wr, &st)) {
                if (!wr.to_rv) continue;
                *drawn = k + 1;
                return ZC_PENDING; /* nothing of this poll registered */
            }
            if (st != ZC_EINVAL) /* polled again: round-robin from here */
                sel_set_start(s, i + 1 < n ? i + 1 : 0);
            *index = i;
            return st; /* ZC_OK, ZC_CLOSED, ZC_ENOMEM, ZC_EINVAL */
        }
        if (wr.closed == wr.live) { /* none enabled, or skip_closed and all are closed */
            select_finish(s, n, true);
            return ZC_CLOSED; /* *index == n */
        }
        if (registered && wr.busy && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake (wait.h) */
            continue;
        }
        if (registered) {
            /* A peer is between claiming and publishing a slot a case needs: it cannot
             * be relied on to wake us, so ask to be polled again soon (as wait.c). */
            if (wr.busy && wake_later)
                *wake_later = true;
            else if (wr.busy)
                zc__wake_self(w);
            return ZC_PENDING;
        }
        select_register(s, w);
        registered = true; /* and re-check every case */
    }
}

/* The rendezvous send cases' offers, made or made again by this poll, announced to one
 * receive future asking on each channel (rendezvous.h): the select may be claimed now. */
static void select_announce(zc_select *s) {
    for (size_t i = 0; i < s->zc__n; i++) {
        zc_select_case *c = &s->zc__cases[i];
        if (!(c->zc__kind & CASE_OFFERED)) continue;
        c->zc__kind &= ~(unsigned)CASE_OFFERED;
        zc__rv_wake_asking(case_chan(c)->rv);
    }
}

/* A walk over a select with rendezvous cases: its claim word BUSY while it attempts and
 * registers; walked again if a peer passed it over meanwhile (its offer or place is
 * registered by then: the walk finds it), with every offer announced again. */
static zc_status select_walks_rv(zc_select *s, const zc_waker *w, size_t *index,
                                 size_t drawn) {
    size_t claimed;
    if (!zc__rv_select_enter(s, true, &claimed)) return select_claimed(s, claimed, index);
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status st;
    bool wake_later = false;
    while ((st = select_walks(s, w, index, &wake_later, &drawn)) == ZC_PENDING &&
           !zc__rv_select_wait(s)) {
        drawn = 0;
        for (size_t i = 0; i < s->zc__n; i++) {
            zc_select_case *c = &s->zc__cases[i];
            if (c->zc__handle && case_rv(c) && !case_is_recv(c) &&
                zc__waitlist_is_linked(&c->zc__node))
                c->zc__kind |= CASE_OFFERED;
        }
        zc__backoff_snooze(&backoff);
    }
    if (st != ZC_PENDING) {
        zc__rv_select_leave(s);
        return st;
    }
    select_announce(s);
    if (wake_later) zc__wake_self(w);
    return ZC_PENDING;
}

/* The first enabled rendezvous case of s, or n if none is left. */
static size_t first_rv_case(const zc_select *s) {
    for (size_t i = 0; i < s->zc__n; i++)
        if (s->zc__cases[i].zc__handle && case_rv(&s->zc__cases[i])) return i;
    return s->zc__n;
}

/* A select with no rendezvous case met yet walks without the claim word; the walk that
 * meets one sets SEL_RV, and from then on the polls hold the claim (select_walks_rv). */
zc_status zc_select_poll(zc_select *s, const zc_waker *w, size_t *index) {
    if (!s) return ZC_EINVAL;
    if (index) *index = s->zc__n;
    zc_status st = select_args(s, w, index);
    if (st != ZC_OK) return st;
    check_cases(s->zc__cases, s->zc__n, false, __func__);
    size_t drawn = 0; /* a walk's steps to replay (select_walks) */
    if (!(s->zc__start & SEL_RV)) {
        st = select_walks(s, w, index, NULL, &drawn);
        if (!(s->zc__start & SEL_RV)) return st;
    }
    if (!rv_allowed(s)) {
        size_t bad = first_rv_case(s);
        if (bad == s->zc__n) { /* disabled since: no rendezvous case left */
            s->zc__start &= ~SEL_RV; /* set by an earlier poll: this one drew nothing */
            return select_walks(s, w, index, NULL, &drawn);
        }
        zc_select_cancel(s);
        *index = bad;
        return ZC_EINVAL;
    }
    return select_walks_rv(s, w, index, drawn);
}

/* zc_select_timeout's future: the select and where its index goes. */
typedef struct select_op {
    zc_select sel;
    size_t *index;
} select_op;

static zc_status select_op_poll(void *op, const zc_waker *w) {
    select_op *o = op;
    return zc_select_poll(&o->sel, w, o->index);
}

static void select_op_cancel(void *op) { zc_select_cancel(&((select_op *)op)->sel); }

/* After a blocking select timed out: a rendezvous peer may have completed a case before
 * the cancel (the select stayed claimed); that case is the outcome. */
static zc_status select_op_outcome(select_op *o, zc_status s) {
    size_t claimed;
    if (s != ZC_TIMEDOUT || !zc__rv_select_claimed(&o->sel, &claimed)) return s;
    size_t ignored;
    return select_claimed(&o->sel, claimed, o->index ? o->index : &ignored);
}

/* A new select run to a final status or to limit. A timer case that comes first ends the
 * wait at its deadline; the poll after it finds that case ready. */
static zc_status select_for(zc_select_case *cases, size_t n, unsigned flags,
                            zc__limit limit, size_t *index, const char *call) {
    select_op o = {.index = index};
    zc_select_init(&o.sel, cases, n, flags);
    uint64_t timer_ns = zc_select_deadline(&o.sel);
    zc_status s;
    if (timer_ns == UINT64_MAX) {
        s = zc__block_on(&o, select_op_poll, select_op_cancel, limit, ZC__PARK_YIELD, call);
    } else {
        uint64_t limit_ns = zc__limit_deadline(limit);
        if (timer_ns <= limit_ns) { /* a timer due with the limit is chosen over it */
            s = zc__block_on(&o, select_op_poll, select_op_cancel, zc__limit_until(timer_ns),
                             ZC__PARK_YIELD, call);
            if (s != ZC_TIMEDOUT) return s;
        }
        s = zc__block_on(&o, select_op_poll, select_op_cancel, zc__limit_until(limit_ns),
                         ZC__PARK_YIELD, call);
    }
    s = select_op_outcome(&o, s);
    if (s == ZC_TIMEDOUT && index) *index = n;
    return s;
}

zc_status zc_select_timeout(zc_select_case *cases, size_t n, unsigned flags,
                            uint64_t timeout_ns, size_t *index) {
    return select_for(cases, n, flags, zc__limit_after(timeout_ns), index, __func__);
}

zc_status zc_select_blocking(zc_select_case *cases, size_t n, unsigned flags,
                             size_t *index) {
    return select_for(cases, n, flags, zc__limit_after(UINT64_MAX), index, __func__);
}

zc_status zc_select_until(zc_select_case *cases, size_t n, unsigned flags,
                          uint64_t deadline_ns, size_t *index) {
    return select_for(cases, n, flags, zc__limit_until(deadline_ns), index, __func__);
}

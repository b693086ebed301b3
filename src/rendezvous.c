/*
 * rendezvous.c: the hand-off of a rendezvous channel (rendezvous.h).
 *
 * Ordering map:
 *   [V1] lock acquire (exchange, acquire) <-> [V2] unlock (store, release): the looks for
 *        a partner, the copies, the completion marks (zc_send's zc__done, a taker's
 *        done) and the registrations on every list of the hand-off are made under it.
 *   A taken waiter is WAKING when the lock is let go; its owner reads the completion
 *   under the lock, or after [W2] (waitlist.c) once its node is WOKEN.
 *   Close: the close mark's seq_cst set, then each list's notify_all  <->  a
 *   registration's seq_cst count ([F2]), then its look at the mark under the list's lock
 *   (zc__waitlist_register_unless with closed_now): either the sweep wakes the waiter or
 *   the waiter sees the mark.
 */
#include "rendezvous.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"

void zc__rv_init(zc__rv *rv, const zc__queue *q, zc__waitlist *offers, zc__waitlist *asking,
                 size_t elem_size) {
    atomic_init(&rv->locked, false);
    rv->elem_size = elem_size;
    rv->q = q;
    rv->offers = offers;
    rv->asking = asking;
    zc__waitlist_init(&rv->takers);
    zc__waitlist_init(&rv->sel_send);
    zc__waitlist_init(&rv->sel_recv);
    rv->held_head = rv->held_tail = NULL;
}

void zc__rv_close(zc__rv *rv) {
    zc__waitlist_notify_all(&rv->takers);
    zc__waitlist_notify_all(&rv->sel_send);
    zc__waitlist_notify_all(&rv->sel_recv);
}

void zc__rv_lists(zc__rv *rv, zc__waitlist *lists[3]) {
    lists[0] = &rv->takers;
    lists[1] = &rv->sel_send;
    lists[2] = &rv->sel_recv;
}

/* [V1] acquire / [V2] release (lock.h): the hand-off's looks, copies, marks and lists. */
static void rv_lock(zc__rv *rv) { zc__lock(&rv->locked); }
static void rv_unlock(zc__rv *rv) { zc__unlock(&rv->locked); }

/* A registration's re-check (zc__ready_fn): the close mark, seq_cst ([F2]). */
static bool closed_now(void *rv) { return zc__queue_is_closed(((zc__rv *)rv)->q); }

/* A poll waits out a peer's wake call on its node (WAKING) only without the lock, so
 * that the lock is never held for as long as somebody else's wake function runs:
 *   settle, before the lock: a node a peer took or woke becomes WOKEN, its wake-up kept
 *   (zc__waitlist_step_off), and true; a node still linked keeps its place. A taken
 *   node's completion mark is then the owner's to read without the lock: the peer wrote
 *   it before the node left WAITING, and the acquire that saw WOKEN ([W2]) orders it;
 *   off_list, under the lock, for a poll that completes: a linked node is unlinked (no
 *   peer can take or wake it afterwards); true for one a peer took or woke meanwhile,
 *   which the poll unregisters once the lock is let go. */
static bool settle(zc__waitlist *wl, zc__waiter *node) {
    return zc__waitlist_holds_wake(node) && zc__waitlist_step_off(wl, node);
}

static bool off_list(zc__waitlist *wl, zc__waiter *node) {
    if (zc__waitlist_is_idle(node)) return false;
    if (!zc__waitlist_is_linked(node)) return true;
    (void)zc__waitlist_unregister(wl, node);
    return false;
}

/* ---- Taking a partner (zc__take_fn, under the hand-off's lock and the list's) ------- */

typedef struct handoff {
    zc__rv *rv;
    void *buf;             /* a receive's place, or a send's message */
    const zc_select *self; /* the select taking, whose own cases it passes over; or NULL */
    bool waits;            /* the taker registers if it finds nobody (not a try) */
} handoff;

/* A send future's offer: its message copied out, its send complete. */
static bool take_offer(zc__node *n, void *arg) {
    handoff *h = arg;
    zc_send *f = (zc_send *)(void *)n;
    memcpy(h->buf, f->zc__msg, h->rv->elem_size);
    zc__send_set_done(f, (int)ZC_OK + 1);
    return true;
}

/* A blocking receive's place: the message copied in, its receive complete. */
static bool take_taker(zc__node *n, void *arg) {
    handoff *h = arg;
    zc__rv_taker *k = (zc__rv_taker *)(void *)n;
    memcpy(k->out, h->buf, h->rv->elem_size);
    k->done = true;
    return true;
}

/* ---- A select's claim word ----------------------------------------------------------
 * A select with a rendezvous case keeps a claim in the bits of its zc__flags above the
 * flags (atomically: peers change it while it waits): FREE; BUSY while its owner polls
 * (the select attempts and registers; a peer may not complete a case of it meanwhile);
 * POKED: BUSY, and a peer passed it over, so the owner walks its cases again before it
 * waits (the peer's offer or place is registered by then, or it was a try and is gone);
 * SELF while the owner completes or cancels it (passed over, not poked: it will not
 * wait); PEER + i once a peer completed case i (the owner's next poll reports it). */
enum { CLAIM_SHIFT = 3, CLAIM_FREE = 0, CLAIM_BUSY, CLAIM_POKED, CLAIM_SELF, CLAIM_PEER };
#define FLAG_BITS ((1u << CLAIM_SHIFT) - 1u)
_Static_assert((ZC_SELECT_ORDERED | ZC_SELECT_SKIP_CLOSED | ZC_SELECT_READY) == FLAG_BITS,
               "the flags of zchan/select.h fill the bits below the claim");
/* The claim of a select initialised with flags it does not know: never FREE, so never
 * entered; its polls say ZC_EINVAL. */
#define CLAIM_BAD (UINT_MAX >> CLAIM_SHIFT)

static _Atomic unsigned *claim_word(const zc_select *s) {
    return ZC__ATOMIC_UINT(((zc_select *)s)->zc__flags);
}

size_t zc__rv_select_max_cases(void) { return CLAIM_BAD - CLAIM_PEER; }

unsigned zc__rv_select_init_flags(unsigned flags) {
    return flags & ~FLAG_BITS ? CLAIM_BAD << CLAIM_SHIFT : flags;
}

bool zc__rv_select_bad(const zc_select *s) {
    /* Relaxed: as zc__rv_select_flags (BAD is written by init only). */
    return atomic_load_explicit(claim_word(s), memory_order_relaxed) >> CLAIM_SHIFT == CLAIM_BAD;
}

unsigned zc__rv_select_flags(const zc_select *s) {
    /* Relaxed: the flag bits never change while the select is in use; only the claim
     * bits beside them do. */
    return atomic_load_explicit(claim_word(s), memory_order_relaxed) & FLAG_BITS;
}

/* Move the claim from `from` to `to`: true if it was `from`, else *now holds the claim.
 * acq_rel: a peer's PEER or POKED is seen by the owner with what the peer did under the
 * channel's lock before it (its registration; [V2] orders the rest), and the owner's
 * FREE with the registrations it made before it. */
static bool claim_move(const zc_select *s, unsigned from, unsigned to, unsigned *now) {
    _Atomic unsigned *w = claim_word(s);
    unsigned f = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        *now = f >> CLAIM_SHIFT;
        if (*now != from) return false;
        unsigned want = (f & FLAG_BITS) | to << CLAIM_SHIFT;
        if (atomic_compare_exchange_weak_explicit(w, &f, want, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return true;
    }
}

/* A peer's claim of case c of s, under c's channel's lock: true if the hand-off is the
 * peer's to make. A select mid-poll is passed over, and poked if the peer waits (it
 * registers before it lets the lock go, so the select's walk again finds it); a try,
 * which does not wait, leaves it alone: a poke would only make it walk for nothing. */
static bool claim_case(const zc_select *s, const zc_select_case *c, bool waits) {
    unsigned now;
    unsigned mine = (unsigned)(c - s->zc__cases) + CLAIM_PEER;
    if (claim_move(s, CLAIM_FREE, mine, &now)) return true;
    if (now == CLAIM_BUSY && waits) (void)claim_move(s, CLAIM_BUSY, CLAIM_POKED, &now);
    return false;
}

bool zc__rv_select_enter(zc_select *s, bool busy, size_t *claimed) {
    unsigned now;
    if (claim_move(s, CLAIM_FREE, busy ? CLAIM_BUSY : CLAIM_SELF, &now)) return true;
    *claimed = now - CLAIM_PEER; /* BUSY, POKED and SELF are the owner's, who is here */
    return false;
}

bool zc__rv_select_wait(zc_select *s) {
    unsigned now;
    if (claim_move(s, CLAIM_BUSY, CLAIM_FREE, &now)) return true;
    (void)claim_move(s, CLAIM_POKED, CLAIM_BUSY, &now); /* poked: walk again, still BUSY */
    return false;
}

void zc__rv_select_finishing(zc_select *s) {
    /* Relaxed: BUSY and POKED are the owner's states (only a poke moves BUSY to POKED,
     * and claim_move's CAS settles that race); the CAS orders what follows. */
    unsigned now = atomic_load_explicit(claim_word(s), memory_order_relaxed) >> CLAIM_SHIFT;
    if (now == CLAIM_BUSY || now == CLAIM_POKED) (void)claim_move(s, now, CLAIM_SELF, &now);
}

void zc__rv_select_leave(zc_select *s) {
    _Atomic unsigned *w = claim_word(s);
    /* Release: the owner's unregistrations come before a peer may claim again. The load
     * is relaxed: it only keeps the flag bits, which never change; no peer moves the
     * claim now (the owner holds it, or it is a peer's PEER, which this ends). */
    atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) & FLAG_BITS,
                          memory_order_release);
}

bool zc__rv_select_claimed(const zc_select *s, size_t *index) {
    /* Acquire: pairs with the peer's acq_rel claim (claim_move); the copy it made is
     * ordered by the node's [W1]/[W2], which the select's unregister waits on. */
    unsigned now = atomic_load_explicit(claim_word(s), memory_order_acquire) >> CLAIM_SHIFT;
    if (now < CLAIM_PEER) return false;
    *index = now - CLAIM_PEER;
    return true;
}

/* A select case's select, kept while it waits in the word its kind leaves unused: a
 * receive case's msg, a send case's out (zc__rv_case_register). */
static const zc_select *case_select(const zc_select_case *c, bool recv) {
    return recv ? (const zc_select *)c->zc__msg : (const zc_select *)c->zc__out;
}

/* A select case (recv: a receive case) taken: its select claimed, then the message
 * copied, out of a send case's offer or into a receive case's place. */
static bool take_case(zc__node *n, handoff *h, bool recv) {
    zc_select_case *c = (zc_select_case *)(void *)n;
    const zc_select *s = case_select(c, recv);
    if (s == h->self || !claim_case(s, c, h->waits)) return false;
    if (recv)
        memcpy(c->zc__out, h->buf, h->rv->elem_size);
    else
        memcpy(h->buf, c->zc__msg, h->rv->elem_size);
    return true;
}

static bool take_offer_case(zc__node *n, void *arg) { return take_case(n, arg, false); }
static bool take_place_case(zc__node *n, void *arg) { return take_case(n, arg, true); }

/* Under the lock: take the oldest offer into out (true, *t to wake); self: the select
 * taking, or NULL. Send futures first, then select send cases. */
static bool find_offer_for(zc__rv *rv, void *out, const zc_select *self, bool waits,
                           zc__taken *t) {
    handoff h = {rv, out, self, waits};
    return zc__waitlist_take(rv->offers, take_offer, &h, t) ||
           zc__waitlist_take(&rv->sel_send, take_offer_case, &h, t);
}

/* Under the lock: put msg in the oldest waiting place (true, *t to wake). Blocking
 * receives first, then select receive cases. */
static bool find_place_for(zc__rv *rv, const void *msg, const zc_select *self, bool waits,
                           zc__taken *t) {
    handoff h = {rv, (void *)msg, self, waits};
    return zc__waitlist_take(&rv->takers, take_taker, &h, t) ||
           zc__waitlist_take(&rv->sel_recv, take_place_case, &h, t);
}

/* ---- Looks, under the lock ----------------------------------------------------------
 * A receive takes, in this order: a message held for receivers (a try_send's for a
 * receive future asking: held_take); else ZC_CLOSED once closed; else an offer. A send:
 * ZC_CLOSED once closed; else a place. Each says through *t which partner to wake once
 * the lock is let go (zc__rv_wake_partner; none for a held message). */

/* The oldest message held for receivers into out: true if there was one. */
static bool held_take(zc__rv *rv, void *out) {
    zc__rv_held *h = rv->held_head;
    if (!h) return false;
    rv->held_head = h->next;
    if (!rv->held_head) rv->held_tail = NULL;
    memcpy(out, h->msg, rv->elem_size);
    free(h);
    return true;
}

static zc_status recv_look(zc__rv *rv, void *out, const zc_select *self, bool waits,
                           zc__taken *t) {
    t->node = NULL;
    if (held_take(rv, out)) return ZC_OK;
    if (zc__queue_is_closed(rv->q)) return ZC_CLOSED;
    return find_offer_for(rv, out, self, waits, t) ? ZC_OK : ZC_EMPTY;
}

static zc_status send_look(zc__rv *rv, const void *msg, const zc_select *self, bool waits,
                           zc__taken *t) {
    t->node = NULL;
    if (zc__queue_is_closed(rv->q)) return ZC_CLOSED;
    return find_place_for(rv, msg, self, waits, t) ? ZC_OK : ZC_FULL;
}

void zc__rv_wake_partner(const zc__taken *t) {
    if (t->node) zc__waitlist_wake_taken(t);
}

/* The end of a poll on wl that looked under the lock and got s: a node that completes
 * goes off the list (off_list), the lock goes, then what must wait for the lock to go:
 * a node a peer took or woke meanwhile is waited out, and the partner the look took is
 * woken. */
static void poll_end(zc__rv *rv, zc__waitlist *wl, zc__waiter *node, zc_status s,
                     const zc__taken *t) {
    bool later = s != ZC_PENDING && off_list(wl, node);
    rv_unlock(rv);
    if (later) (void)zc__waitlist_unregister(wl, node);
    zc__rv_wake_partner(t);
}

/* Under the lock: h, holding a message, last on the held list. */
static void held_append(zc__rv *rv, zc__rv_held *h) {
    h->next = NULL;
    if (rv->held_tail) rv->held_tail->next = h; else rv->held_head = h;
    rv->held_tail = h;
}

void zc__rv_discard(zc__rv *rv, void (*drop)(void *msg, void *ctx), void *ctx) {
    /* Under the lock: a try_send that saw the channel open appends under it, so it is
     * done before this takes the list; any later one sees the close mark (set before
     * this call) and sends nothing. drop runs after the lock. */
    rv_lock(rv);
    zc__rv_held *h = rv->held_head;
    rv->held_head = rv->held_tail = NULL;
    rv_unlock(rv);
    for (zc__rv_held *next; h; h = next) {
        next = h->next;
        if (drop) drop(h->msg, ctx);
        free(h);
    }
}

/* ---- Try operations --------------------------------------------------------------- */

/* A try_send: a waiting place is filled at once; with none, a receive future asking
 * (which has no place until its next poll) gets the message on the held list, which
 * receivers take from before anything else, and the oldest such future is woken for it
 * (rendezvous.h). The block for that is allocated before the lock, where a future looks
 * to be asking ([F1]: a registration's count comes before its look, made under this
 * lock; one counted only after the load is one that was not waiting then). */
zc_status zc__rv_try_send(zc__rv *rv, const void *msg) {
    bool asking = zc__waitlist_has_waiters(rv->asking);
    zc__rv_held *h = asking ? malloc(sizeof *h + rv->elem_size) : NULL;
    zc__taken t;
    rv_lock(rv);
    zc_status s = send_look(rv, msg, NULL, false, &t);
    /* Registrations on asking are made under this lock: the count is exact here. A
     * future that registered after the first load was not waiting then: ZC_FULL. */
    bool held = asking && s == ZC_FULL && zc__waitlist_has_waiters(rv->asking);
    if (held && h) {
        memcpy(h->msg, msg, rv->elem_size);
        held_append(rv, h);
        h = NULL;
        s = ZC_OK;
    } else if (held) {
        s = ZC_ENOMEM; /* a receiver waits, but the block could not be had */
    }
    rv_unlock(rv);
    free(h);
    zc__rv_wake_partner(&t);
    if (held && s == ZC_OK) (void)zc__waitlist_notify_one(rv->asking); /* held for it */
    return s;
}

zc_status zc__rv_try_recv(zc__rv *rv, void *out) {
    zc__taken t;
    rv_lock(rv);
    zc_status s = recv_look(rv, out, NULL, false, &t);
    rv_unlock(rv);
    zc__rv_wake_partner(&t);
    return s;
}

/* ---- Futures ---------------------------------------------------------------------- */

zc_status zc__rv_send_poll(zc__rv *rv, zc_send *f, const zc_waker *w) {
    zc__taken t = {0};
    bool offered = false;
    zc_status s;
    if (settle(rv->offers, &f->zc__node) && zc__send_done(f)) { /* taken: a receiver has it */
        (void)zc__waitlist_unregister(rv->offers, &f->zc__node);
        return ZC_OK;
    }
    rv_lock(rv);
    if (zc__send_done(f)) {
        s = ZC_OK; /* a receiver took the offer */
    } else if ((s = send_look(rv, f->zc__msg, NULL, true, &t)) == ZC_FULL) {
        /* An offer now: a receive future asking is woken to take it (one per offer). */
        offered = !zc__waitlist_is_linked(&f->zc__node);
        s = zc__waitlist_register_unless(rv->offers, &f->zc__node, w, closed_now, rv)
                ? ZC_PENDING : ZC_CLOSED;
    }
    poll_end(rv, rv->offers, &f->zc__node, s, &t);
    if (s != ZC_PENDING) zc__send_set_done(f, (int)s + 1);
    else if (offered) (void)zc__waitlist_notify_one(rv->asking);
    return s;
}

/* The cancels need only the list's lock: a take is made under it (the completion
 * written before the node leaves WAITING), and unregister waits a take's wake out. */
void zc__rv_send_cancel(zc__rv *rv, zc_send *f) {
    /* An offer is woken only when taken (complete) or at close: nothing to pass on. A
     * taken one stays complete (zc__done set), as a cancel leaves a completed future. */
    (void)zc__waitlist_unregister(rv->offers, &f->zc__node);
}

/* Whether a receiver could take something now: an offer waits (seq_cst loads of the
 * counts, [F1]) or a message is held (under the lock). */
static bool has_offer(zc__rv *rv) {
    if (zc__waitlist_has_waiters(rv->offers) || zc__waitlist_has_waiters(&rv->sel_send))
        return true;
    rv_lock(rv);
    bool held = rv->held_head != NULL;
    rv_unlock(rv);
    return held;
}

zc_status zc__rv_recv_poll(zc__rv *rv, zc_recv *f, const zc_waker *w, void *out) {
    zc__taken t = {0};
    zc_status s;
    (void)settle(rv->asking, &f->zc__node);
    rv_lock(rv);
    if ((s = recv_look(rv, out, NULL, true, &t)) == ZC_EMPTY)
        s = zc__waitlist_register_unless(rv->asking, &f->zc__node, w, closed_now, rv)
                ? ZC_PENDING : ZC_CLOSED;
    poll_end(rv, rv->asking, &f->zc__node, s, &t); /* a wake-up held was used by the look */
    return s;
}

/* Pass a wake-up a receive future asking held and did not use on to the next one, while
 * an offer or a held message is there (waker rule 4); through zc__waitlist_pass_on, so
 * that cancels made inside the wakes of such pass-ons run two wakes deep, not one per
 * waiter. */
static void pass_on_asking(void *arg) {
    zc__rv *rv = arg;
    if (zc__waitlist_has_waiters(rv->asking) && has_offer(rv))
        zc__waitlist_pass_on(rv->asking, pass_on_asking, rv);
}

void zc__rv_recv_cancel(zc__rv *rv, zc_recv *f) {
    if (zc__waitlist_unregister(rv->asking, &f->zc__node)) pass_on_asking(rv);
}

/* ---- Blocking receives ------------------------------------------------------------ */

void zc__rv_taker_init(zc__rv_taker *k, zc__rv *rv, void *out) {
    zc__waiter_init(&k->node);
    k->rv = rv;
    k->out = out;
    k->done = false;
}

zc_status zc__rv_taker_poll(zc__rv_taker *k, const zc_waker *w) {
    zc__rv *rv = k->rv;
    zc__taken t = {0};
    zc_status s;
    if (settle(&rv->takers, &k->node) && k->done) { /* filled: the message is in out */
        (void)zc__waitlist_unregister(&rv->takers, &k->node);
        return ZC_OK;
    }
    rv_lock(rv);
    if (k->done)
        s = ZC_OK; /* a sender filled the place */
    else if ((s = recv_look(rv, k->out, NULL, true, &t)) == ZC_EMPTY)
        s = zc__waitlist_register_unless(&rv->takers, &k->node, w, closed_now, rv)
                ? ZC_PENDING : ZC_CLOSED;
    poll_end(rv, &rv->takers, &k->node, s, &t);
    return s;
}

zc_status zc__rv_taker_cancel(zc__rv_taker *k) {
    (void)zc__waitlist_unregister(&k->rv->takers, &k->node);
    return k->done ? ZC_OK : ZC_TIMEDOUT;
}

/* ---- Select cases ----------------------------------------------------------------- */

zc_status zc__rv_case_try(zc__rv *rv, zc_select_case *c, const zc_select *s, bool recv,
                          zc__taken *t) {
    rv_lock(rv);
    zc_status st = recv ? recv_look(rv, c->zc__out, s, true, t)
                        : send_look(rv, c->zc__msg, s, true, t);
    rv_unlock(rv);
    return st;
}

bool zc__rv_case_register(zc__rv *rv, zc_select_case *c, const zc_select *s, bool recv,
                          const zc_waker *w) {
    rv_lock(rv);
    bool fresh = !zc__waitlist_is_linked(&c->zc__node);
    if (recv)
        c->zc__msg = s;
    else
        c->zc__out = (void *)s;
    zc__waitlist_register(recv ? &rv->sel_recv : &rv->sel_send, &c->zc__node, w);
    rv_unlock(rv);
    return fresh;
}

zc__waitlist *zc__rv_case_list(zc__rv *rv, bool recv) {
    return recv ? &rv->sel_recv : &rv->sel_send;
}

void zc__rv_wake_asking(zc__rv *rv) { (void)zc__waitlist_notify_one(rv->asking); }

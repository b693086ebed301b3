/*
 * select.c: select over several send / receive operations, as one poll-style future.
 *
 * Readiness-based (../shared/design.md section 5): a poll attempts the cases in turn
 * (zc__chan_recv / zc__chan_send, exactly what a single future attempts), starting at a
 * rotating case. The first attempt that completes is the outcome; then every case's node
 * is finished the way future.c finishes its one node: taken off its waiter list, and if
 * it had absorbed a wake-up while its channel can still serve a waiter of its kind, the
 * wake-up is passed on (waker rule 4). If nothing completes, every case registers its
 * node with the poll's waker, and the cases are attempted once more; still nothing:
 * ZC_PENDING.
 *
 * Why no wake-up is lost: per channel, the node's registration ([F2] in waitlist.c, a
 * seq_cst RMW) comes before the re-check's seq_cst look at the queue, and a peer's
 * operation does its seq_cst claim before its seq_cst look at the waiter count ([F1] in
 * chan.h): one of the two sees the other, exactly as for one future. A wake-up delivered
 * to a case that is then not chosen (another case completed first, or the select is
 * cancelled) is passed on by the finish step, so no waiter of that channel is stranded.
 *
 * Why exactly one operation completes: the poll stops at the first attempt that
 * completes, and attempts are made only by the poll itself (the waiter lists only
 * signal readiness), so no other case took or sent anything.
 *
 * Waker rule 3 for the select as a whole: a final status, a cancel and a disable finish
 * the nodes they drop, and unregistering waits out a wake in flight on that node
 * (waitlist.c), so when they return no node of this select is linked anywhere and none
 * of its wakes is running.
 *
 * No atomics of its own: the orderings are those of chan.h and waitlist.c ([F1]/[F2]).
 */
#include <zchan/select.h>

#include "block_on.h"
#include "chan.h"

enum { CASE_RECV = 1, CASE_SEND = 2 };

/* The starting case of the next select this thread initialises, so that a loop of
 * zc_select_blocking calls (a fresh select each) rotates too. Per thread: no sharing. */
static _Thread_local size_t tl_rotation;

static void case_init(zc_select_case *c, unsigned kind, void *handle, void *out,
                      const void *msg) {
    zc__waiter_init(&c->zc__node);
    c->zc__kind = kind;
    c->zc__handle = handle;
    c->zc__out = out;
    c->zc__msg = msg;
}

void zc_select_recv_case(zc_select_case *c, zc_receiver *rx, void *out) {
    if (c) case_init(c, CASE_RECV, rx, out, NULL);
}

void zc_select_send_case(zc_select_case *c, zc_sender *tx, const void *msg) {
    if (c) case_init(c, CASE_SEND, tx, NULL, msg);
}

void zc_select_init(zc_select *s, zc_select_case *cases, size_t n, unsigned flags) {
    if (!s) return;
    s->zc__cases = cases;
    s->zc__n = n;
    s->zc__flags = flags;
    s->zc__start = n ? tl_rotation++ % n : 0;
}

static zc__chan *case_chan(const zc_select_case *c) {
    return c->zc__kind == CASE_RECV ? ((zc_receiver *)c->zc__handle)->ch
                                    : ((zc_sender *)c->zc__handle)->ch;
}

static zc__waitlist *case_list(const zc_select_case *c) {
    zc__chan *ch = case_chan(c);
    return c->zc__kind == CASE_RECV ? &ch->recv_waiters : &ch->send_waiters;
}

/* One attempt at the case's operation: ZC_OK, ZC_CLOSED, ZC_ENOMEM (complete), ZC_EMPTY /
 * ZC_FULL (not ready), ZC_PENDING (a peer is mid-operation on the slot it needs). */
static zc_status case_try(const zc_select_case *c) {
    return c->zc__kind == CASE_RECV ? zc__chan_recv(case_chan(c), c->zc__out)
                                    : zc__chan_send(case_chan(c), c->zc__msg);
}

/* Take the case's node off its list; pass on a wake-up it absorbed. */
static void case_finish(zc_select_case *c) {
    if (c->zc__kind == CASE_RECV)
        zc__chan_finish_recv(case_chan(c), &c->zc__node);
    else
        zc__chan_finish_send(case_chan(c), &c->zc__node);
}

void zc_select_cancel(zc_select *s) {
    if (!s || !s->zc__cases) return;
    for (size_t i = 0; i < s->zc__n; i++) {
        zc_select_case *c = &s->zc__cases[i];
        if (c->zc__handle) case_finish(c);
    }
}

void zc_select_disable(zc_select *s, size_t index) {
    if (!s || !s->zc__cases || index >= s->zc__n) return;
    zc_select_case *c = &s->zc__cases[index];
    if (!c->zc__handle) return;
    case_finish(c);
    c->zc__handle = NULL;
}

/* Whether every enabled case has its buffer; *bad is the first that has not. Counts the
 * enabled cases into *live. */
static bool cases_valid(const zc_select *s, size_t *bad, size_t *live) {
    *live = 0;
    for (size_t i = 0; i < s->zc__n; i++) {
        const zc_select_case *c = &s->zc__cases[i];
        if (!c->zc__handle) continue;
        if (c->zc__kind == CASE_RECV ? !c->zc__out : !c->zc__msg) {
            *bad = i;
            return false;
        }
        ++*live;
    }
    return true;
}

zc_status zc_select_poll(zc_select *s, const zc_waker *w, size_t *index) {
    if (!s) return ZC_EINVAL;
    size_t n = s->zc__n;
    if (index) *index = n;
    if (!s->zc__cases || n == 0) return ZC_EINVAL;
    size_t bad = n, live;
    if (!w || !w->wake || !index || !cases_valid(s, &bad, &live)) {
        zc_select_cancel(s); /* rule 3: not ZC_PENDING, so no wake may follow */
        if (index) *index = bad;
        return ZC_EINVAL;
    }
    if (live == 0) return ZC_CLOSED; /* every case disabled: nothing left to select */

    size_t start = (s->zc__flags & ZC_SELECT_ORDERED) ? 0 : s->zc__start;
    bool registered = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        bool busy = false;
        for (size_t k = 0; k < n; k++) {
            size_t i = start + k < n ? start + k : start + k - n;
            zc_select_case *c = &s->zc__cases[i];
            if (!c->zc__handle) continue;
            zc_status st = case_try(c);
            if (st == ZC_EMPTY || st == ZC_FULL) continue;
            if (st == ZC_PENDING) {
                busy = true;
                continue;
            }
            zc_select_cancel(s); /* finish every node, the chosen one's too */
            s->zc__start = i + 1 < n ? i + 1 : 0;
            *index = i;
            return st; /* ZC_OK, ZC_CLOSED, ZC_ENOMEM */
        }
        if (registered && busy && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake (chan.h) */
            continue;
        }
        if (registered) {
            /* A peer is between claiming and publishing a slot a case needs: it cannot
             * be relied on to wake us, so ask to be polled again soon (as future.c). */
            if (busy) zc__wake_self(w);
            return ZC_PENDING;
        }
        for (size_t i = 0; i < n; i++) {
            zc_select_case *c = &s->zc__cases[i];
            if (c->zc__handle) zc__waitlist_register(case_list(c), &c->zc__node, w); /* [F2] */
        }
        registered = true; /* and re-check every case */
    }
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

static void select_op_cancel(void *op) {
    zc_select_cancel(&((select_op *)op)->sel);
}

zc_status zc_select_timeout(zc_select_case *cases, size_t n, unsigned flags,
                            uint64_t timeout_ns, size_t *index) {
    select_op o = {.index = index};
    zc_select_init(&o.sel, cases, n, flags);
    zc_status s = zc__block_on(&o, select_op_poll, select_op_cancel, timeout_ns, true);
    if (s == ZC_TIMEDOUT && index) *index = n;
    return s;
}

zc_status zc_select_blocking(zc_select_case *cases, size_t n, unsigned flags,
                             size_t *index) {
    return zc_select_timeout(cases, n, flags, UINT64_MAX, index);
}

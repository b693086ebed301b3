/*
 * batch.c: batch send and receive on the MPMC channel (try, futures, blocking).
 *
 * A batch attempt is one queue operation (zc__queue_push_many / pop_many: one claim of
 * k slots on a ring), then up to k wakes of the other side: what k single operations
 * would do. The batch receive future is an attempt under the wait primitive (wait.h).
 * The batch send future keeps a loop of its own, in wait.h's order (register unless the
 * re-check finds room, attempt only off the list): a send that has sent part of its
 * batch goes on at once, its re-check asks for all the room an all-or-nothing send
 * needs, and an all-or-nothing send may pass its wake-up on (below).
 *
 * All-or-nothing waiters (bounded). A send that needs n slots at once cannot use a
 * wake-up that came with fewer; waiting again at the front, it could strand a smaller
 * sender behind it (waker rule 4). So a woken all-or-nothing send that finds room, but
 * too little, passes the wake-up on to the next waiting sender and registers again at
 * the back. It passes on at most once per value of the ring's head: room appears only
 * when head moves, so room it sees with head unmoved was already offered down the list
 * by its last pass. Each freed slot thus costs at most one wake per such sender.
 *
 * No atomics of its own besides the read of the node's state (zc__waitlist_holds_wake).
 * The orderings are those of the queues, chan.h and waitlist.c.
 */
#include <zchan/batch.h>

#include "block_on.h"
#include "wait.h"

/* The wakes a batch attempt owes, to be made with batch_pay (by a future only with its
 * own node off the list, as wait.h's): receivers for messages sent, senders for slots
 * freed and left unused. */
typedef struct batch_owed {
    size_t receivers, senders;
} batch_owed;

static bool batch_owes(const batch_owed *o) { return o->receivers > 0 || o->senders > 0; }

/* [F1]: after the claims (seq_cst) that made them owed. */
static void batch_pay(zc__chan *ch, batch_owed *o) {
    zc__chan_wake_receivers(ch, o->receivers);
    zc__chan_wake_senders(ch, o->senders);
    o->receivers = o->senders = 0;
}

/* One batch send attempt of n messages: zc__queue_push_many's statuses. begun: earlier
 * attempts of the same batch sent some of it. Adds to *owed a receiver per message sent,
 * and a sender per slot it freed and left unused. */
static zc_status chan_send_many(zc__chan *ch, const unsigned char *msgs, size_t n, bool all,
                                bool begun, size_t *count, batch_owed *owed) {
    zc_status s = zc__queue_push_many(&ch->q, msgs, n, all, begun, count, &owed->senders);
    if (s == ZC_OK) owed->receivers += *count;
    return s;
}

/* One batch receive attempt: ZC_OK with *count >= 1, ZC_EMPTY, ZC_CLOSED, or ZC_PENDING.
 * Adds to *owed a sender per slot freed (the messages', and the holes' it skipped). */
static zc_status chan_recv_many(zc__chan *ch, unsigned char *out, size_t max, size_t *count,
                                batch_owed *owed) {
    return zc__queue_pop_many(&ch->q, out, max, count, &owed->senders);
}

/* The arguments shared by every send_many form are valid (msgs may be NULL for a batch
 * of 0, which sends nothing and reads nothing). */
static bool send_many_args_ok(zc__chan *ch, const void *msgs, size_t n, unsigned flags) {
    if ((!msgs && n > 0) || (flags & ~ZC_ALL_OR_NOTHING) || ch->rv) return false;
    return !((flags & ZC_ALL_OR_NOTHING) && n > zc__queue_capacity(&ch->q));
}

zc_status zc_try_send_many(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                           unsigned flags) {
    ZC__CHECK_HANDLE(tx);
    if (sent) *sent = 0;
    if (!tx || !send_many_args_ok(tx->ch, msgs, n, flags)) return ZC_EINVAL;
    if (n == 0) return ZC_OK; /* a batch of 0: nothing to send */
    zc__chan *ch = tx->ch;
    const unsigned char *bytes = msgs;
    bool all = flags & ZC_ALL_OR_NOTHING;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    size_t done = 0, k = 0;
    zc_status s;
    do {
        batch_owed owed = {0, 0};
        s = chan_send_many(ch, bytes + done * ch->q.elem_size, n - done, all, done > 0, &k,
                           &owed);
        batch_pay(ch, &owed); /* no node of ours on a list */
        if (s == ZC_OK) {
            done += k;
        } else if (s == ZC_PENDING) {
            /* ZC_FULL would be false: wait for the peer, as zc_try_send does. */
            zc__backoff_snooze(&backoff);
        } else {
            break;
        }
    } while (done < n);
    if (sent) *sent = done;
    return done == n ? ZC_OK : s;
}

zc_status zc_try_recv_many(zc_receiver *rx, void *out, size_t max, size_t *got) {
    ZC__CHECK_HANDLE(rx);
    if (got) *got = 0;
    if (!rx || (!out && max > 0) || !got || rx->ch->rv) return ZC_EINVAL;
    if (max == 0) return ZC_OK; /* a batch of 0: nothing to take */
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        batch_owed owed = {0, 0};
        zc_status s = chan_recv_many(rx->ch, out, max, got, &owed);
        batch_pay(rx->ch, &owed); /* no node of ours on a list */
        /* ZC_PENDING: ZC_EMPTY would be false; wait for it, as zc_try_recv does. */
        if (s != ZC_PENDING) return s;
        zc__backoff_snooze(&backoff);
    }
}

/* ---- Futures ------------------------------------------------------------------------ */

void zc_send_many_init(zc_send_many *f, zc_sender *tx, const void *msgs, size_t n,
                       unsigned flags) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__msgs = msgs;
    f->zc__n = n;
    f->zc__sent = 0;
    f->zc__passed_head = 0;
    f->zc__flags = flags;
    f->zc__passed = false;
    f->zc__held = false;
    f->zc__done = 0;
}

/* An all-or-nothing send found room, but too little: if it holds a wake-up, pass it on
 * (at most once per value of the ring's head, file comment); it is then off the list,
 * and registers again at the back. */
static void pass_on_too_little_room(zc_send_many *f, zc__chan *ch) {
    /* Acquire: WOKEN / WAKING is examined again by unregister (waitlist.h). */
    if (!zc__waitlist_holds_wake(&f->zc__node)) return;
    size_t head = zc__queue_freed_mark(&ch->q);
    if ((f->zc__passed && f->zc__passed_head == head) || zc__queue_room(&ch->q) == 0)
        return; /* offered down the list already, or no room at all */
    f->zc__passed = true;
    f->zc__passed_head = head;
    zc__wait_cancel(ch, ZC__SIDE_SEND, &f->zc__node); /* passes it on; now IDLE: to the back */
}

/* One attempt of f's batch for the rest of it: zc__queue_push_many's statuses. f's node
 * is off the list (the attempts of a poll are made so); its wakes are made once a
 * wake-up it holds is acted on: having sent part of its batch, f used it; having only
 * skipped holes, it keeps it. */
static zc_status send_many_attempt(zc_send_many *f, zc__chan *ch) {
    size_t k = 0;
    batch_owed owed = {0, 0};
    zc_status s = chan_send_many(ch, (const unsigned char *)f->zc__msgs +
                                         f->zc__sent * ch->q.elem_size,
                                 f->zc__n - f->zc__sent, f->zc__flags & ZC_ALL_OR_NOTHING,
                                 f->zc__sent > 0, &k, &owed);
    if (s == ZC_OK) f->zc__sent += k;
    if (batch_owes(&owed)) {
        if (s == ZC_OK)
            zc__waitlist_unregister(&ch->send_waiters, &f->zc__node);
        else
            zc__waitlist_step_off(&ch->send_waiters, &f->zc__node);
        batch_pay(ch, &owed);
    }
    return s;
}

zc_status zc_send_many_poll(zc_send_many *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__done ? NULL : f->zc__tx); /* done: tx may be gone */
    if (!f || !f->zc__tx) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_send_many_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    if (!f->zc__done && !send_many_args_ok(f->zc__tx->ch, f->zc__msgs, f->zc__n, f->zc__flags))
        return ZC_EINVAL;
    if (f->zc__n == 0) f->zc__done = (int)ZC_OK + 1; /* a batch of 0: done, never registered */
    if (f->zc__done) return (zc_status)(f->zc__done - 1);
    zc__chan *ch = f->zc__tx->ch;
    bool all = f->zc__flags & ZC_ALL_OR_NOTHING;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    /* A node still linked by an earlier poll: the re-check decides (wait.h). */
    zc_status s = zc__waitlist_is_linked(&f->zc__node) ? ZC_FULL : send_many_attempt(f, ch);
    for (;;) {
        if (s == ZC_OK && f->zc__sent < f->zc__n) {
            s = send_many_attempt(f, ch); /* the rest may fit too */
        } else if (s == ZC_FULL) {
            if (all) pass_on_too_little_room(f, ch);
            /* Wait unless the re-check, under the list's lock, finds room: then attempt
             * again off the list (wait.h's zc__wait_slow). */
            zc__wait_look look = {ch, ZC__SIDE_SEND, all ? f->zc__n - f->zc__sent : 1};
            if (zc__waitlist_register_unless(&ch->send_waiters, &f->zc__node, w,
                                             zc__wait_ready, &look)) {
                ZC__HOOK(ZC__HOOK_QUEUE_RECHECKED);
                return ZC_PENDING;
            }
            s = send_many_attempt(f, ch);
        } else if (s == ZC_PENDING && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake (wait.h) */
            s = send_many_attempt(f, ch);
        } else if (s == ZC_PENDING) {
            /* A peer mid-operation: poll again soon, keeping a wake-up held (as wait.h). */
            ZC__HOOK(ZC__HOOK_WAIT_STALLED);
            zc__waitlist_step_off(&ch->send_waiters, &f->zc__node);
            zc__wake_self(w);
            return ZC_PENDING;
        } else {
            zc__waitlist_unregister(&ch->send_waiters, &f->zc__node); /* used by the attempt */
            if (s == ZC_OK || s == ZC_CLOSED) f->zc__done = (int)s + 1;
            return s; /* ZC_OK, ZC_CLOSED, ZC_ENOMEM */
        }
    }
}

size_t zc_send_many_sent(const zc_send_many *f) { return f ? f->zc__sent : 0; }

/* A cancel of a future that never waited, or completed, touches only the future. */
void zc_send_many_cancel(zc_send_many *f) {
    if (!f || !f->zc__tx || f->zc__done || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    zc__wait_cancel(f->zc__tx->ch, ZC__SIDE_SEND, &f->zc__node);
}

void zc_recv_many_init(zc_recv_many *f, zc_receiver *rx) {
    if (!f) return;
    ZC__CHECK_HANDLE(rx);
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

/* A batch receive's arguments, for its attempt under zc__wait. */
typedef struct recv_many_arg {
    unsigned char *out;
    size_t max;
    size_t *got;
} recv_many_arg;

static zc_status recv_many_attempt(zc__chan *ch, void *arg, unsigned *owed) {
    recv_many_arg *a = arg;
    batch_owed o = {0, 0};
    zc_status s = chan_recv_many(ch, a->out, a->max, a->got, &o);
    *owed += (unsigned)o.senders; /* a receive owes senders only */
    return s;
}

zc_status zc_recv_many_poll(zc_recv_many *f, const zc_waker *w, void *out, size_t max,
                            size_t *got) {
    ZC__CHECK_FUTURE(f, f->zc__rx);
    if (got) *got = 0;
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake || (!out && max > 0) || !got || f->zc__rx->ch->rv) {
        zc_recv_many_cancel(f); /* rule 3 */
        return ZC_EINVAL;
    }
    if (max == 0) { /* a batch of 0: nothing to take; rule 3, as above */
        zc_recv_many_cancel(f);
        return ZC_OK;
    }
    zc__chan *ch = f->zc__rx->ch;
    recv_many_arg a = {out, max, got};
    return zc__wait_poll(ch, ZC__SIDE_RECV, &f->zc__node, w, recv_many_attempt, &a);
}

void zc_recv_many_cancel(zc_recv_many *f) {
    if (!f || !f->zc__rx || zc__waitlist_is_idle(&f->zc__node)) return; /* as send's */
    ZC__CHECK_FUTURE(f, f->zc__rx);
    zc__wait_cancel(f->zc__rx->ch, ZC__SIDE_RECV, &f->zc__node);
}

/* ---- Blocking forms: block_on over the futures ---------------------------------------- */

typedef struct recv_many_op {
    zc_recv_many f;
    void *out;
    size_t max;
    size_t *got;
} recv_many_op;

static zc_status send_many_poll(void *op, const zc_waker *w) { return zc_send_many_poll(op, w); }

static void send_many_cancel(void *op) { zc_send_many_cancel(op); }

static zc_status recv_many_poll(void *op, const zc_waker *w) {
    recv_many_op *o = op;
    return zc_recv_many_poll(&o->f, w, o->out, o->max, o->got);
}

static void recv_many_cancel(void *op) { zc_recv_many_cancel(&((recv_many_op *)op)->f); }

static zc_status send_many_for(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                               unsigned flags, zc__limit limit, const char *call) {
    zc_send_many f;
    zc_send_many_init(&f, tx, msgs, n, flags); /* bad arguments: the poll says ZC_EINVAL */
    zc_status s = zc__block_on(&f, send_many_poll, send_many_cancel, limit, ZC__PARK_YIELD, call);
    if (sent) *sent = zc_send_many_sent(&f);
    return s;
}

zc_status zc_send_many_timeout(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                               unsigned flags, uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_many_for(tx, msgs, n, sent, flags, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_send_many_blocking(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                                unsigned flags) {
    ZC__CHECK_HANDLE(tx);
    return send_many_for(tx, msgs, n, sent, flags, zc__limit_after(UINT64_MAX), __func__);
}

static zc_status recv_many_for(zc_receiver *rx, void *out, size_t max, size_t *got,
                               zc__limit limit, const char *call) {
    recv_many_op o = {.out = out, .max = max, .got = got};
    zc_recv_many_init(&o.f, rx); /* bad arguments: the poll says ZC_EINVAL */
    return zc__block_on(&o, recv_many_poll, recv_many_cancel, limit, ZC__PARK_YIELD, call);
}

zc_status zc_recv_many_timeout(zc_receiver *rx, void *out, size_t max, size_t *got,
                               uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_many_for(rx, out, max, got, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_recv_many_blocking(zc_receiver *rx, void *out, size_t max, size_t *got) {
    ZC__CHECK_HANDLE(rx);
    return recv_many_for(rx, out, max, got, zc__limit_after(UINT64_MAX), __func__);
}

zc_status zc_send_many_until(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                             unsigned flags, uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_many_for(tx, msgs, n, sent, flags, zc__limit_until(deadline_ns), __func__);
}

zc_status zc_recv_many_until(zc_receiver *rx, void *out, size_t max, size_t *got,
                             uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_many_for(rx, out, max, got, zc__limit_until(deadline_ns), __func__);
}

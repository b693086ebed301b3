/*
 * future.c: send and receive futures: one queue attempt, and if it must wait,
 * register-then-recheck on the waiter list (waitlist.c), all in caller memory.
 *
 * Poll, for a receive (a send mirrors it with ZC_FULL for ZC_EMPTY):
 *   1. try the queue (zc__chan_recv); on success or close, take the node off the list;
 *      if it held a wake-up and more is available, pass the wake-up on; return. A
 *      bounded channel's ring that looks empty (a relaxed look at head and its slot)
 *      goes straight to 2.
 *   2. empty: register the node ([F2] in waitlist.c), then try the queue once more
 *      (the re-check that pairs with the notifier's [F1]); still empty -> ZC_PENDING.
 *   3. ZC_PENDING from the queue (a peer is between claiming and publishing the very
 *      slot we need): take the node off (passing on a wake-up it held, as in 1), call
 *      our own waker and return ZC_PENDING,
 *      so the executor re-polls soon instead of sleeping on a wake-up that the stalled
 *      peer cannot be relied on to send.
 * Source: register-then-recheck (Dekker) as in tokio's Notify and crossbeam's
 * SyncWaker, with tachyonix/async-event's rule that a waiter which succeeds after being
 * notified passes the notification on; one waiter woken for each message or slot made
 * available, as async-channel's notify_additional(1) (zc__waitlist_notify_owed).
 */
#include "chan.h"
#include "hooks.h"

void zc_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__msg = msg;
    f->zc__done = 0;
}

void zc_recv_init(zc_recv *f, zc_receiver *rx) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

zc_status zc__send_wait(zc__chan *ch, zc__waiter *node, const zc_waker *w,
                        zc__send_attempt attempt, void *arg, zc_status s, bool publishes) {
    bool registered = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        if (s == ZC_FULL) {
            if (registered) {
                ZC__HOOK(ZC__HOOK_QUEUE_RECHECKED);
                return ZC_PENDING;
            }
            zc__waitlist_register(&ch->send_waiters, node, w);
            registered = true;
            s = attempt(ch, arg); /* the re-check */
            continue;
        }
        if (s == ZC_PENDING && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake (chan.h) */
            s = attempt(ch, arg);
            continue;
        }
        if (s == ZC_PENDING) {
            ZC__HOOK(ZC__HOOK_WAIT_STALLED);
            /* Step off, passing on a wake-up we held (a cancel after our self-wake would
             * otherwise lose it: found by the spin model, tests/model). A receiver is
             * mid-release: poll again soon. If this poll registered and was woken since,
             * that wake asks for the next poll already: a self-wake on top would call w
             * twice for one registration (rule 1; found by a break test). */
            if (!zc__chan_finish_send(ch, node) || !registered) zc__wake_self(w);
            return ZC_PENDING;
        }
        zc__chan_finish_send(ch, node);
        if (publishes && s == ZC_OK) zc__chan_wake_receiver(ch); /* [F1], our node off */
        return s; /* ZC_OK, ZC_CLOSED, ZC_ENOMEM */
    }
}

static zc_status send_attempt(zc__chan *ch, void *msg) {
    unsigned owed = 0; /* one on ZC_OK: zc__send_wait makes it */
    return zc__chan_send_quiet(ch, msg, &owed);
}

/* Everything but the fast path of zc_send_poll: bad arguments, a completed future, a
 * future that waits or has waited (its node not idle), and every first attempt that
 * did not go through at once. */
static ZC__NOINLINE zc_status send_poll_slow(zc_send *f, const zc_waker *w) {
    if (!f || !f->zc__tx || !f->zc__msg) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_send_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    if (f->zc__done) return (zc_status)(f->zc__done - 1);
    zc__chan *ch = f->zc__tx->ch;
    /* A ring that looks full is not tried before registering: the attempt after the
     * registration decides, as it has to anyway. A first poll lands here when its fast
     * attempt failed, a woken one when another sender has taken the slot freed for it
     * (one full attempt, with its read of the receivers' index, cheaper). */
    bool looks_full = ch->bounded && zc__ring_looks_full(&ch->q.ring);
    zc_status s = zc__send_wait(ch, &f->zc__node, w, send_attempt, (void *)f->zc__msg,
                                looks_full ? ZC_FULL : send_attempt(ch, (void *)f->zc__msg),
                                true);
    if (s == ZC_OK || s == ZC_CLOSED) f->zc__done = (int)s + 1;
    return s;
}

/* zc_send_poll's first attempt on a channel other than a ring8 or seg8 one (chan.h); ch and
 * msg are f's, passed on in registers. */
static ZC__NOINLINE zc_status send_poll_first(zc_send *f, const zc_waker *w, zc__chan *ch,
                                              const void *msg) {
    if (zc__chan_send_fast(ch, msg)) {
        f->zc__done = ZC_OK + 1;
        return ZC_OK;
    }
    return send_poll_slow(f, w);
}

zc_status zc_send_poll(zc_send *f, const zc_waker *w) {
    /* The fast path: a fresh future (never registered) whose first attempt sends. The
     * node is checked before the attempt: one that is registered or holds a wake-up must
     * be taken off its list after a send (zc__send_wait does it). The node's state is
     * read first (acquire), the future's other fields after it: read before it, they
     * would be loaded again after it. The ring8 and seg8 paths are chan.h's. */
    if (ZC__LIKELY(f && w && w->wake && zc__waitlist_is_idle(&f->zc__node))) {
        zc_sender *tx = f->zc__tx;
        const void *msg = f->zc__msg;
        if (ZC__LIKELY(tx && msg && !f->zc__done)) {
            zc__chan *ch = tx->ch;
            if (ZC__LIKELY(ch->ring8)) {
                if (zc__ring_push_first(&ch->q.ring, msg, 8)) {
                    f->zc__done = ZC_OK + 1;
                    return zc__chan_sent(ch);
                }
            } else if (ch->seg8) {
                if (zc__segq_push_first(&ch->q.segq, msg, 8)) {
                    f->zc__done = ZC_OK + 1;
                    return zc__chan_sent(ch);
                }
            } else {
                return send_poll_first(f, w, ch, msg);
            }
        }
    }
    return send_poll_slow(f, w);
}

void zc_send_cancel(zc_send *f) {
    if (!f || !f->zc__tx || f->zc__done) return;
    zc__chan *ch = f->zc__tx->ch;
    zc__chan_finish_send(ch, &f->zc__node);
}

/* Everything but the fast path of zc_recv_poll (as send_poll_slow). */
static ZC__NOINLINE zc_status recv_poll_slow(zc_recv *f, const zc_waker *w, void *out) {
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake || !out) {
        zc_recv_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    zc__chan *ch = f->zc__rx->ch;
    /* As for a send: a ring that looks empty is tried only after registering. The
     * attempts count the wakes they owe waiting senders (a slot freed: the message's, a
     * skipped hole's), made only once our node is off the list (as zc__send_wait). */
    bool looks_empty = ch->bounded && zc__ring_looks_empty(&ch->q.ring);
    unsigned owed = 0;
    zc_status s = looks_empty ? ZC_EMPTY : zc__chan_recv_quiet(ch, out, &owed);
    bool registered = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        if (owed > 0 && (s == ZC_EMPTY || s == ZC_PENDING)) {
            /* Holes skipped (released permits), nothing received: off the list, wake the
             * senders the slots are for, and wait over again. */
            zc__chan_finish_recv(ch, &f->zc__node);
            zc__chan_wake_senders(ch, owed);
            owed = 0;
            registered = false;
        }
        if (s == ZC_EMPTY) {
            if (registered) {
                ZC__HOOK(ZC__HOOK_QUEUE_RECHECKED);
                return ZC_PENDING;
            }
            zc__waitlist_register(&ch->recv_waiters, &f->zc__node, w);
            registered = true;
            s = zc__chan_recv_quiet(ch, out, &owed); /* the re-check */
            continue;
        }
        if (s == ZC_PENDING && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake (chan.h) */
            s = zc__chan_recv_quiet(ch, out, &owed);
            continue;
        }
        if (s == ZC_PENDING) {
            ZC__HOOK(ZC__HOOK_WAIT_STALLED);
            /* Step off, passing on a wake-up we held, and wake ourselves unless this
             * poll's registration was woken (see the send side): a sender is mid-write,
             * poll again soon. */
            if (!zc__chan_finish_recv(ch, &f->zc__node) || !registered) zc__wake_self(w);
            return ZC_PENDING;
        }
        zc__chan_finish_recv(ch, &f->zc__node);
        zc__chan_wake_senders(ch, owed); /* [F1], our node off */
        return s; /* ZC_OK, ZC_CLOSED */
    }
}

/* zc_recv_poll's first attempt on a channel other than a ring8 or seg8 one (chan.h); f's
 * arguments. */
static ZC__NOINLINE zc_status recv_poll_first(zc_recv *f, const zc_waker *w, void *out,
                                              zc__chan *ch) {
    if (zc__chan_recv_fast(ch, out)) return ZC_OK;
    return recv_poll_slow(f, w, out);
}

zc_status zc_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    /* The fast path, as zc_send_poll's: a future never registered whose first attempt
     * receives. */
    if (ZC__LIKELY(f && w && w->wake && out && zc__waitlist_is_idle(&f->zc__node))) {
        zc_receiver *rx = f->zc__rx;
        if (ZC__LIKELY(rx != NULL)) {
            zc__chan *ch = rx->ch;
            if (ZC__LIKELY(ch->ring8)) {
                if (zc__ring_pop_first(&ch->q.ring, out, 8)) return zc__chan_received(ch);
            } else if (ch->seg8) {
                if (zc__segq_pop_first(&ch->q.segq, out, 8)) return ZC_OK;
            } else {
                return recv_poll_first(f, w, out, ch);
            }
        }
    }
    return recv_poll_slow(f, w, out);
}

void zc_recv_cancel(zc_recv *f) {
    if (!f || !f->zc__rx) return;
    zc__chan *ch = f->zc__rx->ch;
    zc__chan_finish_recv(ch, &f->zc__node);
}

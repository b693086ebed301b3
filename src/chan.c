/*
 * chan.c: channel handles, counts, close, drop_msg, try operations and queries. Glues
 * a queue (ring.c or segq.c) to two waiter lists (waitlist.c).
 *
 * Ordering map:
 *   [F1] zc__chan_send/recv: the queue's seq_cst claim, then zc__waitlist_has_waiters
 *        (seq_cst load) of the other side  <->  [F2] in waitlist.c, followed by the
 *        waiter's re-check in future.c. No lost wake-up (waitlist.c explains).
 *   [H1] handle-count decrements are acq_rel: the thread that drops the last receiver
 *        (or the last handle) sees everything the other holders did before their drops,
 *        so discarding (or freeing) after it is safe.
 */
#include "chan.h"
#include "hooks.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static zc_status chan_new(size_t cap, bool bounded, const zc_config *cfg, zc_sender **tx,
                          zc_receiver **rx) {
    if (tx) *tx = NULL;
    if (rx) *rx = NULL;
    if (!cfg || !tx || !rx || cfg->elem_size == 0 || (bounded && cap == 0)) return ZC_EINVAL;

    size_t size = (sizeof(zc__chan) + ZC_CACHE_LINE - 1) & ~(size_t)(ZC_CACHE_LINE - 1);
    zc__chan *ch = aligned_alloc(ZC_CACHE_LINE, size);
    if (!ch) return ZC_ENOMEM;
    memset(ch, 0, sizeof *ch);
    zc_status s = bounded ? zc__ring_init(&ch->q.ring, cap, cfg->elem_size)
                          : zc__segq_init(&ch->q.segq, cfg->elem_size);
    if (s != ZC_OK) {
        free(ch);
        return s;
    }
    zc__waitlist_init(&ch->recv_waiters);
    zc__waitlist_init(&ch->send_waiters);
    zc__waitlist_init(&ch->close_waiters);
    atomic_init(&ch->senders, 1);
    atomic_init(&ch->receivers, 1);
    atomic_init(&ch->handles, 2);
    ch->bounded = bounded;
    ch->ring8 = bounded && cfg->elem_size == 8;
    ch->seg8 = !bounded && cfg->elem_size == 8;
    ch->elem_size = cfg->elem_size;
    ch->drop_msg = cfg->drop_msg;
    ch->drop_ctx = cfg->drop_ctx;
    ch->tx.ch = ch;
    ch->rx.ch = ch;
    *tx = &ch->tx;
    *rx = &ch->rx;
    return ZC_OK;
}

zc_status zc_bounded(size_t cap, const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    return chan_new(cap, true, cfg, tx, rx);
}

zc_status zc_unbounded(const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    return chan_new(0, false, cfg, tx, rx);
}

bool zc__chan_is_closed(zc__chan *ch) {
    return ch->bounded ? zc__ring_is_closed(&ch->q.ring) : zc__segq_is_closed(&ch->q.segq);
}

static size_t chan_len(zc__chan *ch) {
    return ch->bounded ? zc__ring_len(&ch->q.ring) : zc__segq_len(&ch->q.segq);
}

static bool chan_close(zc__chan *ch) {
    bool closed = ch->bounded ? zc__ring_close(&ch->q.ring) : zc__segq_close(&ch->q.segq);
    if (closed) {
        ZC__HOOK(ZC__HOOK_CLOSE_MARKED);
        /* Close wakes everyone: waiters re-check and see the mark (the seq_cst fetch_or
         * in *_close happens before our lock of each list, so any waiter linked after
         * the sweep sees the mark on its re-check). */
        zc__waitlist_notify_all(&ch->recv_waiters);
        zc__waitlist_notify_all(&ch->send_waiters);
        zc__waitlist_notify_all(&ch->close_waiters);
    }
    return closed;
}

static void chan_release_handle(zc__chan *ch) {
    /* [H1] acq_rel: the last handle's owner frees after everyone else is done. */
    if (atomic_fetch_sub_explicit(&ch->handles, 1, memory_order_acq_rel) != 1) return;
    if (ch->bounded)
        zc__ring_destroy(&ch->q.ring);
    else
        zc__segq_destroy(&ch->q.segq);
    free(ch);
}

zc_sender *zc_sender_clone(zc_sender *tx) {
    if (!zc__is_sender(tx)) return NULL;
    /* Relaxed: the caller holds a live handle, so the counts cannot reach zero now
     * (as for a reference count increment); the drop's acq_rel orders the rest. */
    size_t prev = atomic_fetch_add_explicit(&tx->ch->senders, 1, memory_order_relaxed);
    assert(prev > 0 && "zc_sender_clone on a dropped sender");
    (void)prev;
    atomic_fetch_add_explicit(&tx->ch->handles, 1, memory_order_relaxed); /* as above */
    return tx;
}

zc_receiver *zc_receiver_clone(zc_receiver *rx) {
    if (!zc__is_receiver(rx)) return NULL;
    /* Relaxed: as in zc_sender_clone. */
    size_t prev = atomic_fetch_add_explicit(&rx->ch->receivers, 1, memory_order_relaxed);
    assert(prev > 0 && "zc_receiver_clone on a dropped receiver");
    (void)prev;
    atomic_fetch_add_explicit(&rx->ch->handles, 1, memory_order_relaxed); /* as above */
    return rx;
}

void zc_sender_drop(zc_sender *tx) {
    if (!zc__is_sender(tx)) return;
    zc__chan *ch = tx->ch;
    /* [H1] acq_rel. */
    size_t prev = atomic_fetch_sub_explicit(&ch->senders, 1, memory_order_acq_rel);
    assert(prev > 0 && "zc_sender_drop: handle dropped twice");
    if (prev == 1) chan_close(ch);
    chan_release_handle(ch);
}

void zc_receiver_drop(zc_receiver *rx) {
    if (!zc__is_receiver(rx)) return;
    zc__chan *ch = rx->ch;
    /* [H1] acq_rel: every other receiver's last receive happens before the discard. */
    size_t prev = atomic_fetch_sub_explicit(&ch->receivers, 1, memory_order_acq_rel);
    assert(prev > 0 && "zc_receiver_drop: handle dropped twice");
    if (prev == 1) {
        chan_close(ch);
        /* No receiver left: what is held will never be received. Dispose of it now. */
        if (ch->bounded)
            zc__ring_discard(&ch->q.ring, ch->drop_msg, ch->drop_ctx);
        else
            zc__segq_discard(&ch->q.segq, ch->drop_msg, ch->drop_ctx);
    } else if (!ch->bounded) {
        /* A receiver that copied a message out late and leaves may have been the last
         * reader of a retired segment (segq.c): free what is read out now. */
        zc__segq_reclaim(&ch->q.segq, NULL);
    }
    chan_release_handle(ch);
}

bool zc_sender_close(zc_sender *tx) { return tx ? chan_close(tx->ch) : false; }

bool zc_receiver_close(zc_receiver *rx) { return rx ? chan_close(rx->ch) : false; }

/* Self-wakes this thread is inside (chan.h). Only this thread reads or writes it. */
static _Thread_local unsigned self_wakes;

void zc__wake_self(const zc_waker *w) {
    self_wakes++;
    w->wake(w->ctx);
    self_wakes--;
}

bool zc__in_self_wake(void) { return self_wakes > 0; }

/* Slots a sender could take now: none on a closed channel, nor on an unbounded one
 * (whose senders never wait). */
static size_t chan_room(zc__chan *ch) {
    if (!ch->bounded || zc__chan_is_closed(ch)) return 0;
    size_t len = chan_len(ch);
    return len < ch->q.ring.cap ? ch->q.ring.cap - len : 0;
}

bool zc__chan_send_room(zc__chan *ch) { return chan_room(ch) > 0; }

/* What a woken receiver / sender could take (zc__avail_fn). Nothing once closed: the
 * close wakes every waiter (chan_close), and one that links after its mark re-checks and
 * sees it. */
static size_t recv_avail(void *ch) {
    return zc__chan_is_closed(ch) ? 0 : chan_len(ch);
}

static size_t send_avail(void *ch) { return chan_room(ch); }

/* With senders waiting (and a wake to make), the holes that the call left at head are
 * skipped first, and owe a wake each: a receive that reaches a released place frees its
 * slot too (rule 4). Senders that come later need no wake for them: their attempt skips
 * such a hole, and so does a pass-on. */
static size_t skip_holes_at_head(zc__chan *ch) {
    /* seq_cst: a guess (each skip's CAS validates it), after the caller's claims ([F1])
     * or its [N2]. */
    return zc__ring_skip_holes(&ch->q.ring,
                               atomic_load_explicit(&ch->q.ring.head, memory_order_seq_cst));
}

void zc__chan_wake_senders(zc__chan *ch, size_t n) {
    if (n == 0 || !zc__waitlist_has_waiters(&ch->send_waiters)) return;
    n += skip_holes_at_head(ch);
    zc__waitlist_notify_n(&ch->send_waiters, n);
}

void zc__chan_wake_receivers(zc__chan *ch, size_t n) {
    zc__waitlist_notify_n(&ch->recv_waiters, n);
}

static void pass_on_recv_again(void *ch) { zc__chan_pass_on_recv(ch); }
static void pass_on_send_again(void *ch) { zc__chan_pass_on_send(ch); }

/* The waiter count is looked at before the queue: with no waiter linked there is no one
 * to pass a wake-up to, and one that links after that load re-checks the queue itself
 * ([F2]). Nothing is passed on once the channel is closed (avail is 0): the close woke
 * every waiter, and passing on there would only nest the wakes of an inline executor
 * one level per waiter. A pass-on from inside the wake of another pass-on of the same
 * list is left to that one (zc__waitlist_pass_on), so that a chain of them does not nest
 * either. And a wake-up is passed on only for what there is beyond what the waiters
 * already woken (and not yet polled) will take (rule 5). tests/model checks these. */
void zc__chan_pass_on_recv(zc__chan *ch) {
    if (zc__waitlist_has_waiters(&ch->recv_waiters) &&
        zc__waitlist_wake_has_work(&ch->recv_waiters, recv_avail, ch))
        zc__waitlist_pass_on(&ch->recv_waiters, pass_on_recv_again, ch);
}

/* With senders waiting, the holes left at head are skipped first, as in
 * zc__chan_wake_senders: each holds a free slot that the room does not count until head
 * has moved past it. */
void zc__chan_pass_on_send(zc__chan *ch) {
    if (!zc__waitlist_has_waiters(&ch->send_waiters)) return;
    skip_holes_at_head(ch);
    if (zc__waitlist_wake_has_work(&ch->send_waiters, send_avail, ch))
        zc__waitlist_pass_on(&ch->send_waiters, pass_on_send_again, ch);
}

void zc__chan_cancel_recv(zc__chan *ch, zc__waiter *node) {
    if (zc__waitlist_unregister(&ch->recv_waiters, node)) zc__chan_pass_on_recv(ch);
}

void zc__chan_cancel_send(zc__chan *ch, zc__waiter *node) {
    if (zc__waitlist_unregister(&ch->send_waiters, node)) zc__chan_pass_on_send(ch);
}

/* zc_try_send after its first attempt did not go through at once. */
static ZC__NOINLINE zc_status try_send_slow(zc_sender *tx, const void *msg) {
    if (!tx || !msg) return ZC_EINVAL;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        zc_status s = zc__chan_send(tx->ch, msg);
        /* ZC_PENDING: a receiver is mid-release on our slot; the answer is not known
         * yet (reporting ZC_FULL would be false), so wait for it to finish. */
        if (s != ZC_PENDING) return s;
        zc__backoff_snooze(&backoff);
    }
}

/* zc_try_recv after its first attempt did not go through at once. */
static ZC__NOINLINE zc_status try_recv_slow(zc_receiver *rx, void *out) {
    if (!rx || !out) return ZC_EINVAL;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        zc_status s = zc__chan_recv(rx->ch, out);
        /* ZC_PENDING: a sender is mid-write on the next slot; a later slot may hold a
         * completed send, so ZC_EMPTY would be false. Wait for it. */
        if (s != ZC_PENDING) return s;
        zc__backoff_snooze(&backoff);
    }
}

zc_status zc__chan_sent_wake(zc__chan *ch) {
    zc__chan_wake_receivers(ch, 1);
    return ZC_OK;
}

zc_status zc__chan_received_wake(zc__chan *ch) {
    zc__chan_wake_senders(ch, 1);
    return ZC_OK;
}

/* zc_try_send's first attempt on a channel other than a ring8 or seg8 one (chan.h); ch is
 * tx's. */
static ZC__NOINLINE zc_status try_send_first(zc_sender *tx, const void *msg, zc__chan *ch) {
    return zc__chan_send_fast(ch, msg) ? ZC_OK : try_send_slow(tx, msg);
}

static ZC__NOINLINE zc_status try_recv_first(zc_receiver *rx, void *out, zc__chan *ch) {
    return zc__chan_recv_fast(ch, out) ? ZC_OK : try_recv_slow(rx, out);
}

zc_status zc_try_send(zc_sender *tx, const void *msg) {
    if (ZC__LIKELY(tx && msg)) {
        zc__chan *ch = tx->ch;
        if (ZC__LIKELY(ch->ring8)) {
            if (zc__ring_push_first(&ch->q.ring, msg, 8)) return zc__chan_sent(ch);
        } else if (ch->seg8) {
            if (zc__segq_push_first(&ch->q.segq, msg, 8)) return zc__chan_sent(ch);
        } else {
            return try_send_first(tx, msg, ch);
        }
    }
    return try_send_slow(tx, msg);
}

zc_status zc_try_recv(zc_receiver *rx, void *out) {
    if (ZC__LIKELY(rx && out)) {
        zc__chan *ch = rx->ch;
        if (ZC__LIKELY(ch->ring8)) {
            if (zc__ring_pop_first(&ch->q.ring, out, 8)) return zc__chan_received(ch);
        } else if (ch->seg8) {
            if (zc__segq_pop_first(&ch->q.segq, out, 8)) return ZC_OK;
        } else {
            return try_recv_first(rx, out, ch);
        }
    }
    return try_recv_slow(rx, out);
}

static void chan_info(zc__chan *ch, zc_info *out) {
    out->len = chan_len(ch);
    out->capacity = ch->bounded ? ch->q.ring.cap : SIZE_MAX;
    /* Relaxed: a snapshot; each count is read atomically. */
    out->senders = atomic_load_explicit(&ch->senders, memory_order_relaxed);
    out->receivers = atomic_load_explicit(&ch->receivers, memory_order_relaxed);
    out->closed = zc__chan_is_closed(ch);
}

zc_status zc_sender_info(const zc_sender *tx, zc_info *out) {
    if (!tx || !out) return ZC_EINVAL;
    chan_info(tx->ch, out);
    return ZC_OK;
}

zc_status zc_receiver_info(const zc_receiver *rx, zc_info *out) {
    if (!rx || !out) return ZC_EINVAL;
    chan_info(rx->ch, out);
    return ZC_OK;
}

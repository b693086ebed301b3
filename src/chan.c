/*
 * chan.c: the MPMC channel: creation, handles and their counts, close, drop_msg, the try
 * operations, queries, and the wakes and pass-ons that join the queue (queue/) to the
 * waiter lists (waitlist.c). Ordering map: chan.h; [H1] here:
 *   [H1] handle-count decrements are acq_rel: the thread that drops the last receiver
 *        (or the last handle) sees everything the other holders did before their drops,
 *        so discarding (or freeing) after it is safe.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L /* posix_memalign under -std=c11 */
#endif
#include "chan.h"

#include "backoff.h"
#include "hooks.h"
#include "rendezvous.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The handle objects: the channel's own four (every clone is one of them, counted), or
 * in the checked build one allocation each (check.h). NULL: out of memory.
 * handle_free undoes a new one never handed out. */
#if ZCHAN_CHECKED
#define HANDLE_NEW(name, type, stamp_)                                                     \
    static type *name(zc__chan *ch) {                                                      \
        type *h = malloc(sizeof *h);                                                       \
        if (h) *h = (type){ch, stamp_};                                                    \
        return h;                                                                          \
    }
HANDLE_NEW(sender_new, zc_sender, ZC__STAMP_SENDER)
HANDLE_NEW(receiver_new, zc_receiver, ZC__STAMP_RECEIVER)
HANDLE_NEW(weak_sender_new, zc_weak_sender, ZC__STAMP_WEAK_SENDER)
HANDLE_NEW(weak_receiver_new, zc_weak_receiver, ZC__STAMP_WEAK_RECEIVER)
#define handle_free(h) free(h)
/* A dropped handle: stamped dead, and kept a while so that a later use reads that. */
#define HANDLE_RETIRE(h) ((h)->stamp = ZC__STAMP_DEAD, zc__quarantine(h))
#else
static zc_sender *sender_new(zc__chan *ch) { return &ch->tx; }
static zc_receiver *receiver_new(zc__chan *ch) { return &ch->rx; }
static zc_weak_sender *weak_sender_new(zc__chan *ch) { return &ch->weak_tx; }
static zc_weak_receiver *weak_receiver_new(zc__chan *ch) { return &ch->weak_rx; }
#define handle_free(h) ((void)(h))
#define HANDLE_RETIRE(h) ((void)0)
#endif

/* The kinds chan_new makes: a rendezvous channel is a ring of one slot that never holds
 * a message (its close mark is the channel's) and a hand-off after it. */
typedef enum chan_kind { KIND_BOUNDED, KIND_UNBOUNDED, KIND_RENDEZVOUS } chan_kind;

static zc_status chan_new(size_t cap, chan_kind kind, const zc_config *cfg, zc_sender **tx,
                          zc_receiver **rx) {
    if (tx) *tx = NULL;
    if (rx) *rx = NULL;
    if (!cfg || !tx || !rx || cfg->elem_size == 0 || (kind == KIND_BOUNDED && cap == 0))
        return ZC_EINVAL;
    /* A rendezvous channel's ring never holds a message: one slot of one byte, so no
     * inline first attempt applies (ring8), and every operation takes the out-of-line
     * path, which sends it to the hand-off. Its messages are copied between the parties,
     * and held ones (rendezvous.c) are allocated with a header, which the size must leave
     * room for. */
    bool rendezvous = kind == KIND_RENDEZVOUS;
    if (rendezvous && cfg->elem_size > SIZE_MAX / 2) return ZC_EINVAL;
    size_t qcap = rendezvous ? 1 : kind == KIND_UNBOUNDED ? 0 : cap;
    size_t qelem = rendezvous ? 1 : cfg->elem_size;

    size_t slots;
    zc_status s = zc__queue_storage_size(qcap, qelem, &slots);
    if (s != ZC_OK) return s;
    size_t rv_at = (slots + ZC_CACHE_LINE - 1) / ZC_CACHE_LINE * ZC_CACHE_LINE;
    if (rendezvous) slots = rv_at + sizeof(zc__rv);
    if (slots > SIZE_MAX - sizeof(zc__chan)) return ZC_EINVAL;
    /* One block, line-aligned (chan.h's layout); the slots after the struct. */
    void *mem;
    if (posix_memalign(&mem, ZC_CACHE_LINE, sizeof(zc__chan) + slots) != 0) return ZC_ENOMEM;
    zc__chan *ch = mem;
    memset(ch, 0, sizeof *ch);
    s = zc__queue_init(&ch->q, qcap, qelem, ch + 1);
    if (s != ZC_OK) {
        free(ch);
        return s;
    }
    if (rendezvous) {
        ch->rv = (zc__rv *)(void *)((unsigned char *)(ch + 1) + rv_at);
        zc__rv_init(ch->rv, &ch->q, &ch->send_waiters, &ch->recv_waiters, cfg->elem_size);
    }
    zc__waitlist_init(&ch->recv_waiters);
    zc__waitlist_init(&ch->send_waiters);
    zc__waitlist_init(&ch->close_waiters);
    atomic_init(&ch->senders, 1);
    atomic_init(&ch->receivers, 1);
    atomic_init(&ch->handles, 2);
    ch->drop_msg = cfg->drop_msg;
    ch->drop_ctx = cfg->drop_ctx;
#if !ZCHAN_CHECKED
    ch->tx.ch = ch;
    ch->rx.ch = ch;
    ch->weak_tx.ch = ch;
    ch->weak_rx.ch = ch;
#endif
    *tx = sender_new(ch);
    *rx = receiver_new(ch);
#if ZCHAN_CHECKED
    if (!*tx || !*rx) { /* the checked build allocates each handle apart */
        free(*tx);
        free(*rx);
        *tx = NULL;
        *rx = NULL;
        zc__queue_destroy(&ch->q);
        free(ch);
        return ZC_ENOMEM;
    }
#endif
    return ZC_OK;
}

zc_status zc_bounded(size_t cap, const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    return chan_new(cap, KIND_BOUNDED, cfg, tx, rx);
}

zc_status zc_unbounded(const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    return chan_new(0, KIND_UNBOUNDED, cfg, tx, rx);
}

zc_status zc_rendezvous(const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    return chan_new(0, KIND_RENDEZVOUS, cfg, tx, rx);
}

static bool chan_close(zc__chan *ch) {
    bool closed = zc__queue_close(&ch->q);
    if (closed) {
        ZC__HOOK(ZC__HOOK_CLOSE_MARKED);
        /* Close wakes everyone. The seq_cst fetch_or in zc__queue_close comes before our
         * lock of each list, so a waiter linked after the sweep sees the mark. */
        zc__waitlist_notify_all(&ch->recv_waiters);
        zc__waitlist_notify_all(&ch->send_waiters);
        zc__waitlist_notify_all(&ch->close_waiters);
        if (ch->rv) zc__rv_close(ch->rv);
    }
    return closed;
}

/* No future may still be pending on the channel's lists when its memory goes (checked
 * build; after the last handle's acq_rel drop, [H1]). */
static void check_no_futures(zc__chan *ch, const char *call) {
#if ZCHAN_CHECKED
    zc__waitlist *lists[6] = {&ch->recv_waiters, &ch->send_waiters, &ch->close_waiters};
    if (ch->rv) zc__rv_lists(ch->rv, &lists[3]);
    zc__waitlist_check_none_pending(lists, ch->rv ? 6 : 3, call, ch);
#else
    (void)ch;
    (void)call;
#endif
}

static void chan_release_handle(zc__chan *ch, const char *call) {
    /* [H1] acq_rel: the last handle's owner frees after everyone else is done. */
    if (atomic_fetch_sub_explicit(&ch->handles, 1, memory_order_acq_rel) != 1) return;
    check_no_futures(ch, call);
    zc__queue_destroy(&ch->q);
    free(ch);
}

/* One more handle of a kind whose live count is *count. Relaxed: the caller holds a live
 * handle, so the counts cannot reach zero now (as for a reference count increment); the
 * drop's acq_rel orders the rest. */
static void count_clone(zc__chan *ch, _Atomic size_t *count) {
    size_t prev = atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
    assert(prev > 0 && "zchan: clone of a dropped handle");
    (void)prev;
    atomic_fetch_add_explicit(&ch->handles, 1, memory_order_relaxed); /* as above */
}

zc_sender *zc_sender_clone(zc_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    if (!zc__is_sender(tx)) return NULL;
    zc_sender *clone = sender_new(tx->ch);
    if (clone) count_clone(tx->ch, &tx->ch->senders);
    return clone;
}

zc_receiver *zc_receiver_clone(zc_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    if (!zc__is_receiver(rx)) return NULL;
    zc_receiver *clone = receiver_new(rx->ch);
    if (clone) count_clone(rx->ch, &rx->ch->receivers);
    return clone;
}

void zc_sender_drop(zc_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    if (!zc__is_sender(tx)) return;
    zc__chan *ch = tx->ch;
    HANDLE_RETIRE(tx);
    /* [H1] acq_rel. */
    size_t prev = atomic_fetch_sub_explicit(&ch->senders, 1, memory_order_acq_rel);
    assert(prev > 0 && "zc_sender_drop: handle dropped twice");
    if (prev == 1) chan_close(ch);
    chan_release_handle(ch, __func__);
}

void zc_receiver_drop(zc_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    if (!zc__is_receiver(rx)) return;
    zc__chan *ch = rx->ch;
    HANDLE_RETIRE(rx);
    /* [H1] acq_rel: every other receiver's last receive happens before the discard. */
    size_t prev = atomic_fetch_sub_explicit(&ch->receivers, 1, memory_order_acq_rel);
    assert(prev > 0 && "zc_receiver_drop: handle dropped twice");
    if (prev == 1) {
        chan_close(ch);
        /* No receiver left: what is held will never be received. Dispose of it now. */
        zc__queue_discard(&ch->q, ch->drop_msg, ch->drop_ctx);
        if (ch->rv) zc__rv_discard(ch->rv, ch->drop_msg, ch->drop_ctx);
    } else {
        /* A receiver that copied a message out late and leaves may have been the last
         * reader of what the queue retired: free what is read out now. */
        zc__queue_receiver_left(&ch->q);
    }
    chan_release_handle(ch, __func__);
}

/* ---- Weak handles: each holds one count of `handles` (the memory), none of `senders`
 * or `receivers` (the channel stays open only for its strong handles). */

/* One more weak handle: relaxed, as count_clone's (the caller holds a handle). */
static void count_weak(zc__chan *ch) {
    atomic_fetch_add_explicit(&ch->handles, 1, memory_order_relaxed);
}

/* A strong handle of a kind whose live count is *count, from a weak one: one more of
 * that kind unless none is left (then none can come back: it is not resurrected from
 * 0) or, for senders (closed_ends), the channel is closed. Relaxed CAS: a count, as
 * count_clone's; the weak handle keeps the memory, and a drop's acq_rel decrement ([H1])
 * orders the rest. */
static bool count_upgrade(zc__chan *ch, _Atomic size_t *count, bool closed_ends) {
    size_t n = atomic_load_explicit(count, memory_order_relaxed);
    do {
        if (n == 0 || (closed_ends && zc__chan_is_closed(ch))) return false;
    } while (!atomic_compare_exchange_weak_explicit(count, &n, n + 1, memory_order_relaxed,
                                                    memory_order_relaxed));
    atomic_fetch_add_explicit(&ch->handles, 1, memory_order_relaxed); /* as count_clone */
    return true;
}

zc_weak_sender *zc_sender_downgrade(zc_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    if (!zc__is_sender(tx)) return NULL;
    zc_weak_sender *w = weak_sender_new(tx->ch);
    if (w) count_weak(tx->ch);
    return w;
}

zc_weak_receiver *zc_receiver_downgrade(zc_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    if (!zc__is_receiver(rx)) return NULL;
    zc_weak_receiver *w = weak_receiver_new(rx->ch);
    if (w) count_weak(rx->ch);
    return w;
}

zc_sender *zc_weak_sender_upgrade(zc_weak_sender *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_sender(w)) return NULL;
    zc_sender *tx = sender_new(w->ch);
    if (tx && !count_upgrade(w->ch, &w->ch->senders, true)) {
        handle_free(tx);
        tx = NULL;
    }
    return tx;
}

zc_receiver *zc_weak_receiver_upgrade(zc_weak_receiver *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_receiver(w)) return NULL;
    zc_receiver *rx = receiver_new(w->ch);
    if (rx && !count_upgrade(w->ch, &w->ch->receivers, false)) {
        handle_free(rx);
        rx = NULL;
    }
    return rx;
}

zc_weak_sender *zc_weak_sender_clone(zc_weak_sender *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_sender(w)) return NULL;
    zc_weak_sender *clone = weak_sender_new(w->ch);
    if (clone) count_weak(w->ch);
    return clone;
}

zc_weak_receiver *zc_weak_receiver_clone(zc_weak_receiver *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_receiver(w)) return NULL;
    zc_weak_receiver *clone = weak_receiver_new(w->ch);
    if (clone) count_weak(w->ch);
    return clone;
}

void zc_weak_sender_drop(zc_weak_sender *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_sender(w)) return;
    zc__chan *ch = w->ch;
    HANDLE_RETIRE(w);
    chan_release_handle(ch, __func__);
}

void zc_weak_receiver_drop(zc_weak_receiver *w) {
    ZC__CHECK_HANDLE(w);
    if (!zc__is_weak_receiver(w)) return;
    zc__chan *ch = w->ch;
    HANDLE_RETIRE(w);
    chan_release_handle(ch, __func__);
}

bool zc_sender_close(zc_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    return tx ? chan_close(tx->ch) : false;
}

bool zc_receiver_close(zc_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    return rx ? chan_close(rx->ch) : false;
}

/* What a woken receiver / sender could take (zc__avail_fn). Nothing once closed: the
 * close woke every waiter (chan_close). */
static size_t recv_avail(void *ch) {
    zc__queue *q = &((zc__chan *)ch)->q;
    return zc__queue_is_closed(q) ? 0 : zc__queue_len(q);
}

static size_t send_avail(void *ch) { return zc__queue_room(&((zc__chan *)ch)->q); }

void zc__chan_wake_senders(zc__chan *ch, size_t n) {
    if (n == 0 || !zc__waitlist_has_waiters(&ch->send_waiters)) return;
    /* The holes a call left at the oldest place are skipped first and owe a wake each
     * (rule 4); a later sender's attempt skips such a hole itself. */
    n += zc__queue_skip_holes(&ch->q);
    zc__waitlist_notify_n(&ch->send_waiters, n);
}

void zc__chan_wake_receivers(zc__chan *ch, size_t n) {
    zc__waitlist_notify_n(&ch->recv_waiters, n);
}

/* Never inlined: a fast path that called it inline would set up a frame on every call
 * for the rare one that wakes. */
ZC__NOINLINE zc_status zc__chan_wake_receiver_ok(zc__chan *ch) {
    zc__chan_wake_receivers(ch, 1);
    return ZC_OK;
}

ZC__NOINLINE zc_status zc__chan_wake_sender_ok(zc__chan *ch) {
    zc__chan_wake_senders(ch, 1);
    return ZC_OK;
}

zc_status zc__chan_send(zc__chan *ch, const void *msg) {
    zc_status s = zc__queue_push(&ch->q, msg);
    return s == ZC_OK ? zc__chan_sent(ch) : s; /* [F1] */
}

zc_status zc__chan_recv(zc__chan *ch, void *out) {
    size_t freed = 0;
    zc_status s = zc__queue_pop(&ch->q, out, &freed);
    zc__chan_wake_senders(ch, freed); /* [F1]; a call only when a slot was freed */
    return s;
}

static void pass_on_recv_again(void *ch) { zc__chan_pass_on_recv(ch); }
static void pass_on_send_again(void *ch) { zc__chan_pass_on_send(ch); }

/* The waiter count is looked at before the queue: a waiter that links after that load
 * re-checks the queue itself ([F2]). Nothing is passed on once closed (avail is 0: the
 * close woke every waiter), nor beyond what the waiters woken and not yet polled will
 * take (rule 5). tests/model checks these. */
void zc__chan_pass_on_recv(zc__chan *ch) {
    if (zc__waitlist_has_waiters(&ch->recv_waiters) &&
        zc__waitlist_wake_has_work(&ch->recv_waiters, recv_avail, ch))
        zc__waitlist_pass_on(&ch->recv_waiters, pass_on_recv_again, ch);
}

/* Holes left at head are skipped first, as in zc__chan_wake_senders: the room does not
 * count their slots until head has moved past them. */
void zc__chan_pass_on_send(zc__chan *ch) {
    if (!zc__waitlist_has_waiters(&ch->send_waiters)) return;
    zc__queue_skip_holes(&ch->q);
    if (zc__waitlist_wake_has_work(&ch->send_waiters, send_avail, ch))
        zc__waitlist_pass_on(&ch->send_waiters, pass_on_send_again, ch);
}

/* zc_try_send after its first attempt did not go through at once. A full attempt's
 * ZC_PENDING is waited out: ZC_FULL would be false. */
static ZC__NOINLINE zc_status try_send_slow(zc_sender *tx, const void *msg) {
    if (!tx || !msg) return ZC_EINVAL;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status s;
    while ((s = zc__chan_send(tx->ch, msg)) == ZC_PENDING) zc__backoff_snooze(&backoff);
    return s;
}

/* zc_try_recv likewise: ZC_EMPTY would be false (a later slot may hold a message). */
static ZC__NOINLINE zc_status try_recv_slow(zc_receiver *rx, void *out) {
    if (!rx || !out) return ZC_EINVAL;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status s;
    while ((s = zc__chan_recv(rx->ch, out)) == ZC_PENDING) zc__backoff_snooze(&backoff);
    return s;
}

/* The first attempts of a channel whose messages are not 8 bytes, out of line. */
static ZC__NOINLINE zc_status try_send_first(zc_sender *tx, const void *msg, zc__chan *ch) {
    if (ch->rv) return zc__rv_try_send(ch->rv, msg);
    if (zc__queue_push_first(&ch->q, msg)) return zc__chan_sent(ch);
    return try_send_slow(tx, msg);
}

static ZC__NOINLINE zc_status try_recv_first(zc_receiver *rx, void *out, zc__chan *ch) {
    if (ch->rv) return zc__rv_try_recv(ch->rv, out);
    unsigned got = zc__queue_pop_first(&ch->q, out);
    if (got > 1) return zc__chan_received(ch); /* a slot freed */
    return got ? ZC_OK : try_recv_slow(rx, out);
}

/* A channel that is no ring of 8-byte messages: an unbounded one of 8-byte messages
 * takes its first attempt inline too; any other, out of line. */
static inline zc_status try_send_other(zc_sender *tx, const void *msg) {
    zc__chan *ch = tx->ch;
    if (!ch->q.segq8) return try_send_first(tx, msg, ch);
    return zc__segq_push_first(&ch->q.u.segq, msg, 8) ? zc__chan_sent(ch) : try_send_slow(tx, msg);
}

static inline zc_status try_recv_other(zc_receiver *rx, void *out) {
    zc__chan *ch = rx->ch;
    if (!ch->q.segq8) return try_recv_first(rx, out, ch);
    /* An unbounded queue's senders never wait: its receives owe no wake. */
    return zc__segq_pop_first(&ch->q.u.segq, out, 8) ? ZC_OK : try_recv_slow(rx, out);
}

/* The fast paths (zchan/bits/fast.h, which zchan/inline.h compiles too), then the wake
 * of a waiting peer as a tail call. */
zc_status zc_try_send(zc_sender *tx, const void *msg) {
    ZC__CHECK_HANDLE(tx);
    switch (zc__fast_try_send(tx, msg)) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_receiver_ok(tx->ch);
    case ZC__FAST_OTHER: return try_send_other(tx, msg);
    default: return try_send_slow(tx, msg);
    }
}

zc_status zc_try_recv(zc_receiver *rx, void *out) {
    ZC__CHECK_HANDLE(rx);
    switch (zc__fast_try_recv(rx, out)) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_sender_ok(rx->ch);
    case ZC__FAST_OTHER: return try_recv_other(rx, out);
    default: return try_recv_slow(rx, out);
    }
}

#if !ZCHAN_CHECKED
/* The entries of zchan/inline.h (zchan/bits/fast.h says why they exist only here): the
 * wake a fast path owes, and the switch's last two cases of zc_try_send (zc_try_recv). */
zc_status zc__v1_wake_receiver(zc__chan *ch) { return zc__chan_wake_receiver_ok(ch); }

zc_status zc__v1_wake_sender(zc__chan *ch) { return zc__chan_wake_sender_ok(ch); }

zc_status zc__v1_try_send_rest(zc_sender *tx, const void *msg, zc__fast did) {
    return did == ZC__FAST_OTHER ? try_send_other(tx, msg) : try_send_slow(tx, msg);
}

zc_status zc__v1_try_recv_rest(zc_receiver *rx, void *out, zc__fast did) {
    return did == ZC__FAST_OTHER ? try_recv_other(rx, out) : try_recv_slow(rx, out);
}
#endif

/* Where zc_force_send's evicted message goes: the caller's evicted_out, else drop_msg. */
typedef struct evict_to {
    zc__chan *ch;
    void *out;
} evict_to;

static void evict_msg(void *msg, void *arg) {
    evict_to *e = arg;
    if (e->out)
        memcpy(e->out, msg, e->ch->q.elem_size);
    else if (e->ch->drop_msg)
        e->ch->drop_msg(msg, e->ch->drop_ctx);
}

zc_status zc_force_send(zc_sender *tx, const void *msg, void *evicted_out, bool *evicted) {
    ZC__CHECK_HANDLE(tx);
    if (evicted) *evicted = false;
    if (!tx || !msg) return ZC_EINVAL;
    zc__chan *ch = tx->ch;
    if (ch->rv) return zc__rv_try_send(ch->rv, msg); /* nothing held: nothing to evict */
    evict_to e = {ch, evicted_out};
    bool ev = false;
    zc_status s = zc__queue_force_push(&ch->q, msg, evict_msg, &e, &ev);
    if (evicted) *evicted = ev;
    /* A message made available, as a send's ([F1]: after the claims); one taken out in
     * its place frees no slot. */
    return s == ZC_OK ? zc__chan_sent(ch) : s;
}

static void chan_info(zc__chan *ch, zc_info *out) {
    out->len = ch->rv ? 0 : zc__queue_len(&ch->q);
    out->capacity = ch->rv ? 0 : zc__queue_capacity(&ch->q);
    /* Relaxed: a snapshot; each count is read atomically. */
    out->senders = atomic_load_explicit(&ch->senders, memory_order_relaxed);
    out->receivers = atomic_load_explicit(&ch->receivers, memory_order_relaxed);
    out->closed = zc__chan_is_closed(ch);
}

zc_status zc_sender_info(const zc_sender *tx, zc_info *out) {
    ZC__CHECK_HANDLE(tx);
    if (!tx || !out) return ZC_EINVAL;
    chan_info(tx->ch, out);
    return ZC_OK;
}

zc_status zc_receiver_info(const zc_receiver *rx, zc_info *out) {
    ZC__CHECK_HANDLE(rx);
    if (!rx || !out) return ZC_EINVAL;
    chan_info(rx->ch, out);
    return ZC_OK;
}

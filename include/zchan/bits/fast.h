/*
 * zchan/bits/fast.h: the channel's fast paths (the try operations and the first attempt
 * of a fresh send or receive future on a bounded channel of 8-byte messages), the one
 * copy that the library (src/chan.c, src/future.c) and zchan/inline.h both compile.
 *
 * Each fast path answers what it did (zc__fast), and its caller goes on: on
 * ZC__FAST_WAKE it wakes a waiting peer (out of line), on ZC__FAST_MISS or
 * ZC__FAST_OTHER it calls the rest of the operation, which may make the attempt again
 * (a first attempt that fails changes nothing, so a second one is safe).
 *
 * The channel's words these paths read are named by their offsets in the channel's block
 * (src/chan.h and src/waitlist.h assert each against the library's structs): a channel
 * starts with its ring (zchan/bits/ring.h), whose receivers' and senders' lines carry the
 * counts of waiting senders and receivers, and whose constants are followed by the flag
 * that says the ring holds 8-byte messages. A handle's first word is its channel.
 *
 * Private: nothing here is part of the API, and it changes with the library's layout
 * (zchan/inline.h says how a mismatch is caught). Compiles as C11 and C++17 with GCC or
 * Clang (the __atomic builtins on plain fields; src/atomic.h says why the library's
 * _Atomic views of the same words agree with them).
 */
#ifndef ZCHAN_BITS_FAST_H
#define ZCHAN_BITS_FAST_H

/* Pulled in by zchan/inline.h: the library's code, exempt from the including file's
 * warnings. The library's own sources keep them. */
#if defined(ZCHAN_INLINE_H) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC system_header
#endif

#include <stdbool.h>
#include <stddef.h>

#include <zchan/bits/node.h>
#include <zchan/bits/ring.h>
#include <zchan/mpmc.h>

#ifdef __cplusplus
extern "C" {
#endif

struct zc__chan; /* the library's (src/chan.h) */

/* Offsets in the channel's block: the waiter counts (size_t) of its two waiter lists,
 * after the queue's words on the receivers' and the senders' lines, and the bool that
 * says its queue is a ring of 8-byte messages, after the ring. */
#define ZC__FAST_SEND_WAITERS 32
#define ZC__FAST_RECV_WAITERS (ZC_CACHE_LINE + 32)
#define ZC__FAST_RING8 sizeof(zc__ring)

/* What a fast path did. */
typedef enum zc__fast {
    ZC__FAST_DONE,  /* the message went in (came out); nobody waits on the other side */
    ZC__FAST_WAKE,  /* the same, and a peer waits: wake one, out of line */
    ZC__FAST_MISS,  /* nothing done (bad arguments, full, empty, contention, a waiter) */
    ZC__FAST_OTHER, /* nothing done: not a ring of 8-byte messages */
} zc__fast;

/* The library's entries for zchan/inline.h: the wake a fast path owes (one waiting
 * receiver, or sender, after a message was sent or a slot freed; ZC_OK), and the rest of
 * zc_try_send, zc_try_recv, zc_send_poll and zc_recv_poll after their fast path did
 * nothing (did: ZC__FAST_MISS or ZC__FAST_OTHER), with the same statuses, so that an
 * inline caller does not make the fast path's checks twice. Their names carry the
 * layout's number (zc__layout_v1, zchan/inline.h), and only an unchecked library of this
 * layout defines them (src/chan.c, src/future.c): every call path of an inline caller
 * names one, so no linker option can leave a program built against one layout linked
 * to another. */
ZC_EXPORT zc_status zc__v1_wake_receiver(struct zc__chan *ch);
ZC_EXPORT zc_status zc__v1_wake_sender(struct zc__chan *ch);
ZC_EXPORT zc_status zc__v1_try_send_rest(zc_sender *tx, const void *msg, zc__fast did);
ZC_EXPORT zc_status zc__v1_try_recv_rest(zc_receiver *rx, void *out, zc__fast did);
ZC_EXPORT zc_status zc__v1_send_poll_rest(zc_send *f, const zc_waker *w, zc__fast did);
ZC_EXPORT zc_status zc__v1_recv_poll_rest(zc_recv *f, const zc_waker *w, void *out,
                                          zc__fast did);

/* The channel a handle (zc_sender *, zc_receiver *) belongs to: the handle's first word. */
static inline struct zc__chan *zc__fast_chan(const void *handle) {
    return *(struct zc__chan *const *)handle;
}

static inline zc__ring *zc__fast_ring(struct zc__chan *ch) { return (zc__ring *)(void *)ch; }

static inline bool zc__fast_ring8(struct zc__chan *ch) {
    return *((const bool *)(const void *)((const unsigned char *)(void *)ch + ZC__FAST_RING8));
}

/* [F1] after the seq_cst claim of a first attempt: whether the other side has waiters
 * linked (src/waitlist.h, zc__waitlist_has_waiters, whose [F2] it pairs with). */
static inline zc__fast zc__fast_done(struct zc__chan *ch, size_t waiters_offset) {
    size_t *waiters = (size_t *)(void *)((unsigned char *)(void *)ch + waiters_offset);
    return ZC__UNLIKELY(__atomic_load_n(waiters, __ATOMIC_SEQ_CST)) ? ZC__FAST_WAKE
                                                                   : ZC__FAST_DONE;
}

/* A send future's completion, as zc_send keeps it in zc__done (0, or a zc_status + 1).
 * A rendezvous receiver that takes an offer writes it under the channel's lock
 * (src/rendezvous.c), so it is read and written atomically wherever a peer could write
 * it. Relaxed: the owner reads it under that lock, or once its node is IDLE, after the
 * acquire ([W2]) that saw the node WOKEN, which orders the peer's write; a fresh future
 * is the caller's alone until its first poll. */
static inline int zc__send_done(const zc_send *f) {
    return __atomic_load_n(&f->zc__done, __ATOMIC_RELAXED);
}

static inline void zc__send_set_done(zc_send *f, int done) {
    __atomic_store_n(&f->zc__done, done, __ATOMIC_RELAXED);
}

/* zc_send_init of an unchecked build (the checked build stamps the node first). */
static inline void zc__fast_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    zc__fast_node_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__msg = msg;
    zc__send_set_done(f, 0);
}

static inline zc__fast zc__fast_try_send(zc_sender *tx, const void *msg) {
    if (!ZC__LIKELY(tx && msg)) return ZC__FAST_MISS;
    struct zc__chan *ch = zc__fast_chan(tx);
    if (!ZC__LIKELY(zc__fast_ring8(ch))) return ZC__FAST_OTHER;
    if (!zc__ring_push_first(zc__fast_ring(ch), msg, 8)) return ZC__FAST_MISS;
    return zc__fast_done(ch, ZC__FAST_RECV_WAITERS);
}

static inline zc__fast zc__fast_try_recv(zc_receiver *rx, void *out) {
    if (!ZC__LIKELY(rx && out)) return ZC__FAST_MISS;
    struct zc__chan *ch = zc__fast_chan(rx);
    if (!ZC__LIKELY(zc__fast_ring8(ch))) return ZC__FAST_OTHER;
    if (!zc__ring_pop_first(zc__fast_ring(ch), out, 8)) return ZC__FAST_MISS;
    return zc__fast_done(ch, ZC__FAST_SEND_WAITERS); /* a slot freed */
}

/* A send future that never registered, not complete, whose first attempt sends: it
 * completes (ZC_OK). One registered or holding a wake-up must leave its list after a
 * send, which the full poll does. */
static inline zc__fast zc__fast_send_poll(zc_send *f, const zc_waker *w) {
    if (!ZC__LIKELY(f && w && w->wake && zc__fast_node_idle(&f->zc__node)))
        return ZC__FAST_MISS;
    zc_sender *tx = f->zc__tx;
    const void *msg = f->zc__msg;
    /* A rendezvous receiver may complete f meanwhile; such a channel is no ring, and the
     * full poll reads the mark again. */
    if (!ZC__LIKELY(tx && msg && !zc__send_done(f))) return ZC__FAST_MISS;
    struct zc__chan *ch = zc__fast_chan(tx);
    if (!ZC__LIKELY(zc__fast_ring8(ch))) return ZC__FAST_OTHER;
    if (!zc__ring_push_first(zc__fast_ring(ch), msg, 8)) return ZC__FAST_MISS;
    zc__send_set_done(f, ZC_OK + 1);
    return zc__fast_done(ch, ZC__FAST_RECV_WAITERS);
}

/* A receive future that never registered, whose first attempt receives. */
static inline zc__fast zc__fast_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    if (!ZC__LIKELY(f && w && w->wake && out && zc__fast_node_idle(&f->zc__node)))
        return ZC__FAST_MISS;
    zc_receiver *rx = f->zc__rx;
    if (!ZC__LIKELY(rx != NULL)) return ZC__FAST_MISS;
    struct zc__chan *ch = zc__fast_chan(rx);
    if (!ZC__LIKELY(zc__fast_ring8(ch))) return ZC__FAST_OTHER;
    if (!zc__ring_pop_first(zc__fast_ring(ch), out, 8)) return ZC__FAST_MISS;
    return zc__fast_done(ch, ZC__FAST_SEND_WAITERS); /* a slot freed */
}

#ifdef __cplusplus
}
#endif

#endif /* ZCHAN_BITS_FAST_H */

/**
 * @file zchan/inline.h
 * Opt-in inline fast paths: zc_try_send, zc_try_recv, zc_send_init and the first
 * attempt of zc_send_poll / zc_recv_poll compiled into the caller.
 *
 * Define ZCHAN_INLINE before including any zchan header (or include this one):
 *
 *     #define ZCHAN_INLINE
 *     #include <zchan/zchan.h>
 *
 * The calls above then become macros for static inline functions that make the fast
 * path (a bounded channel of 8-byte messages: the ring's first attempt, and the wake of
 * a waiting peer when one waits) in the caller, from the same source the library
 * compiles (zchan/bits/fast.h). Everything else (another channel kind or message size,
 * full, empty, closed, contention, a future that waits) calls the rest of the
 * operation in the library. Results, statuses, waker rules and thread safety are the same as
 * without the macro; taking a function's address (`&zc_try_send`) still names the
 * library's.
 *
 * The price is the tie: a program built this way reads the library's private layout
 * (channel block, ring, waiter node), which may change in any release, minor and patch
 * included. The tie is checked: every file that includes this header references
 * zc__layout_v1, which only a library of this layout defines (its release build; the
 * checked build, whose handles carry stamps the inline paths do not check, defines none).
 * A program built against one layout and linked or loaded with a library of another
 * fails to link or to start ("undefined symbol: zc__layout_v1"), never at run time.
 * Rebuild such a program with each zchan release it runs with, as liburcu's _LGPL_SOURCE
 * asks.
 *
 * Without the macro nothing changes: a program uses only the public ABI.
 *
 * Needs GCC or Clang (the __atomic builtins); compiles as C11 and C++17.
 */
#ifndef ZCHAN_INLINE_H
#define ZCHAN_INLINE_H

#include <zchan/mpmc.h>
#include <zchan/status.h>

#if defined(__GNUC__) || defined(__clang__)

#include <zchan/bits/fast.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond ZCHAN_PRIVATE */

/* Defined only by a library of the layout zchan/bits/ describes (src/version.c). */
ZC_EXPORT extern const char zc__layout_v1;
/* The reference that ties this file's object to that layout, kept even when unused. */
__attribute__((used)) static const char *const zc__layout_ref = &zc__layout_v1;

static inline zc_status zc__inline_try_send(zc_sender *tx, const void *msg) {
    zc__fast did = zc__fast_try_send(tx, msg);
    switch (did) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_receiver_ok(zc__fast_chan(tx));
    default: return zc__try_send_rest(tx, msg, did);
    }
}

static inline zc_status zc__inline_try_recv(zc_receiver *rx, void *out) {
    zc__fast did = zc__fast_try_recv(rx, out);
    switch (did) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_sender_ok(zc__fast_chan(rx));
    default: return zc__try_recv_rest(rx, out, did);
    }
}

static inline void zc__inline_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    if (f) zc__fast_send_init(f, tx, msg);
}

static inline zc_status zc__inline_send_poll(zc_send *f, const zc_waker *w) {
    zc__fast did = zc__fast_send_poll(f, w);
    switch (did) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_receiver_ok(zc__fast_chan(f->zc__tx));
    default: return zc__send_poll_rest(f, w, did);
    }
}

static inline zc_status zc__inline_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    zc__fast did = zc__fast_recv_poll(f, w, out);
    switch (did) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_sender_ok(zc__fast_chan(f->zc__rx));
    default: return zc__recv_poll_rest(f, w, out, did);
    }
}

/** @endcond */

#define zc_try_send(tx, msg) zc__inline_try_send((tx), (msg))
#define zc_try_recv(rx, out) zc__inline_try_recv((rx), (out))
#define zc_send_init(f, tx, msg) zc__inline_send_init((f), (tx), (msg))
#define zc_send_poll(f, w) zc__inline_send_poll((f), (w))
#define zc_recv_poll(f, w, out) zc__inline_recv_poll((f), (w), (out))

#ifdef __cplusplus
}
#endif

#endif /* __GNUC__ || __clang__ */

#endif /* ZCHAN_INLINE_H */

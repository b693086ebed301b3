/**
 * @file zchan/inline.h
 * Opt-in inline fast paths: zc_try_send, zc_try_recv, zc_send_init and the first
 * attempt of zc_send_poll / zc_recv_poll compiled into the caller.
 *
 * Define ZCHAN_INLINE before the first zchan include of a file (or include this header):
 *
 *     #define ZCHAN_INLINE
 *     #include <zchan/zchan.h>
 *
 * The calls above then become function-like macros for static inline functions that
 * make the fast path (a bounded channel of 8-byte messages: the ring's first attempt,
 * and the wake of a waiting peer when one waits) in the caller, from the same source the
 * library compiles (zchan/bits/fast.h). Everything else (another channel kind or message
 * size, full, empty, closed, contention, a future that waits) calls the rest of the
 * operation in the library. Results, statuses, waker rules and thread safety are the
 * same as without the macro. Each argument is evaluated once; `&zc_try_send` and
 * `(zc_try_send)(tx, msg)` still name the library's function, and so must a struct
 * member or local of one of these five names. ZCHAN_INLINE_ACTIVE is defined where the
 * macros are in effect (GCC or Clang: the code uses their __atomic builtins); defined
 * after a first zchan include, ZCHAN_INLINE does nothing, which
 * `#if !defined(ZCHAN_INLINE_ACTIVE)` can catch.
 *
 * The price is the tie: a program built this way reads the library's private layout
 * (channel block, ring, waiter node), which may change in any release, minor and patch
 * included. The tie is checked: the inline code calls the library only through entries
 * whose names carry the layout's number (zc__v1_...), and every file that includes this
 * header references zc__layout_v1; only an unchecked library of this layout defines them
 * (ZCHAN_CHECKED=OFF: Release and RelWithDebInfo builds by default; the checked build's
 * handles carry stamps that the inline paths do not check). A program built against one
 * layout and linked or loaded with a library of another fails to link ("undefined
 * reference to zc__layout_v1" or to a zc__v1_ entry) or to start ("undefined symbol"),
 * never at run time. Rebuild such a program with each zchan release it runs with, as
 * liburcu's _LGPL_SOURCE asks. To run one under a sanitizer, build zchan with
 * -DZCHAN_CHECKED=OFF and the same sanitizer (-DZCHAN_SANITIZER=thread or address).
 *
 * Without the macro nothing changes: a program uses only the public ABI.
 *
 * Compiles as C99 and later and as C++11 and later; the inline code is exempt from the
 * including file's warnings (a system header), since it is the library's.
 */
#ifndef ZCHAN_INLINE_H
#define ZCHAN_INLINE_H

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC system_header
#endif

#include <zchan/mpmc.h>
#include <zchan/status.h>

#if defined(__GNUC__) || defined(__clang__)

#include <zchan/bits/fast.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond ZCHAN_PRIVATE */

/* Defined only by an unchecked library of the layout zchan/bits/ describes
 * (src/version.c). */
ZC_EXPORT extern const char zc__layout_v1;
/* The reference that ties this file's object to that layout, kept even when unused and,
 * where the toolchain can say so, through the linker's garbage collection too (the calls
 * below tie every call path anyway). */
#if defined(__has_attribute)
#if __has_attribute(retain)
#define ZC__LAYOUT_KEEP __attribute__((used, retain))
#endif
#endif
#ifndef ZC__LAYOUT_KEEP
#define ZC__LAYOUT_KEEP __attribute__((used))
#endif
ZC__LAYOUT_KEEP static const char *const zc__layout_ref = &zc__layout_v1;

static inline zc_status zc__inline_try_send(zc_sender *tx, const void *msg) {
    zc__fast did = zc__fast_try_send(tx, msg);
    if (ZC__LIKELY(did == ZC__FAST_DONE)) return ZC_OK;
    if (did == ZC__FAST_WAKE) return zc__v1_wake_receiver(zc__fast_chan(tx));
    return zc__v1_try_send_rest(tx, msg, did);
}

static inline zc_status zc__inline_try_recv(zc_receiver *rx, void *out) {
    zc__fast did = zc__fast_try_recv(rx, out);
    if (ZC__LIKELY(did == ZC__FAST_DONE)) return ZC_OK;
    if (did == ZC__FAST_WAKE) return zc__v1_wake_sender(zc__fast_chan(rx));
    return zc__v1_try_recv_rest(rx, out, did);
}

static inline void zc__inline_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    if (f) zc__fast_send_init(f, tx, msg);
}

static inline zc_status zc__inline_send_poll(zc_send *f, const zc_waker *w) {
    zc__fast did = zc__fast_send_poll(f, w);
    if (ZC__LIKELY(did == ZC__FAST_DONE)) return ZC_OK;
    if (did == ZC__FAST_WAKE) return zc__v1_wake_receiver(zc__fast_chan(f->zc__tx));
    return zc__v1_send_poll_rest(f, w, did);
}

static inline zc_status zc__inline_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    zc__fast did = zc__fast_recv_poll(f, w, out);
    if (ZC__LIKELY(did == ZC__FAST_DONE)) return ZC_OK;
    if (did == ZC__FAST_WAKE) return zc__v1_wake_sender(zc__fast_chan(f->zc__rx));
    return zc__v1_recv_poll_rest(f, w, out, did);
}

/** @endcond */

/** Defined where the inline fast paths are in effect. */
#define ZCHAN_INLINE_ACTIVE 1
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

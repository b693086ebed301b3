/*
 * zchan/bits/base.h: the small pieces the library's fast paths and zchan/inline.h share:
 * branch hints, the cache-line size, and the message copies.
 *
 * Private: included by the library's sources and by zchan/inline.h, never by a program
 * directly; nothing here is part of the API, and it changes with the library's layout
 * (zchan/inline.h says how a mismatch is caught). Compiles as C11 and C++17.
 */
#ifndef ZCHAN_BITS_BASE_H
#define ZCHAN_BITS_BASE_H

/* Pulled in by zchan/inline.h: the library's code, exempt from the including file's
 * warnings. The library's own sources keep them. */
#if defined(ZCHAN_INLINE_H) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC system_header
#endif

#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ZC__LIKELY(x) __builtin_expect(!!(x), 1)
#define ZC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define ZC__LIKELY(x) (x)
#define ZC__UNLIKELY(x) (x)
#endif

/* Two 64-byte lines: x86 prefetches lines in adjacent pairs, so 128 bytes keeps the
 * producer-side and consumer-side hot words from sharing a prefetch pair (crossbeam's
 * CachePadded makes the same choice on x86-64 and aarch64). */
#define ZC_CACHE_LINE 128

/* Hide from the compiler which object p points into (an empty asm that may change it,
 * and emits nothing). The message copies below do this to the caller's pointer: inlined
 * into a caller whose message object is smaller (a 4-byte message; with -flto, the
 * user's own variable), a branch that cannot run for that channel's size would otherwise
 * be reported as an overflow of it (gcc 12 -Wstringop-overflow, -Warray-bounds). The
 * slot's side needs nothing: heap memory of unknown size to the compiler. */
#if defined(__GNUC__) || defined(__clang__)
#define ZC__HIDE_OBJECT(p) __asm__("" : "+r"(p))
#else
#define ZC__HIDE_OBJECT(p) ((void)0)
#endif

/* Copy one message. Sizes known to be common get a constant-size memcpy, which the
 * compiler turns into a move or two instead of a call into libc. */
static inline void zc__copy_sized(void *dst, const void *src, size_t n) {
    switch (n) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, n); break;
    }
}

/* Copy the caller's message msg into a queue slot. */
static inline void zc__copy_in(void *slot, const void *msg, size_t n) {
    ZC__HIDE_OBJECT(msg);
    zc__copy_sized(slot, msg, n);
}

/* Copy a queue slot's message out to the caller's out. */
static inline void zc__copy_out(void *out, const void *slot, size_t n) {
    ZC__HIDE_OBJECT(out);
    zc__copy_sized(out, slot, n);
}

#endif /* ZCHAN_BITS_BASE_H */

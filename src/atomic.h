/*
 * atomic.h: the small pieces every lock-free file here shares: cache-line padding,
 * cpu_relax, message copies, and atomic access to the plain `unsigned int` fields that
 * public structs carry (public headers hold no _Atomic so that they also compile as
 * C++).
 */
#ifndef ZCHAN_SRC_ATOMIC_H
#define ZCHAN_SRC_ATOMIC_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ZC__LIKELY(x) __builtin_expect(!!(x), 1)
#define ZC__NOINLINE __attribute__((noinline))
#else
#define ZC__LIKELY(x) (x)
#define ZC__NOINLINE
#endif

/* Thread-local state read on a fast path (segq.h, wake.h): initial-exec, so that an
 * access is a load at a fixed offset from the thread pointer, not a call, in the shared
 * library too (which then takes its TLS from glibc's static surplus when dlopen'ed). */
#if defined(__GNUC__) || defined(__clang__)
#define ZC__TLS_FAST _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define ZC__TLS_FAST _Thread_local
#endif

/* Two 64-byte lines: x86 prefetches lines in adjacent pairs, so 128 bytes keeps the
 * producer-side and consumer-side hot words from sharing a prefetch pair (crossbeam's
 * CachePadded makes the same choice on x86-64 and aarch64). */
#define ZC_CACHE_LINE 128
#define ZC_CACHE_ALIGNED alignas(ZC_CACHE_LINE)

static inline void zc__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst); /* a compiler barrier at least */
#endif
}

/* Atomic view of an `unsigned int` field in a public struct. C11 gives _Atomic unsigned
 * int the size and alignment of unsigned int on every platform zchan supports (checked
 * here); the field is only ever accessed through this view inside the library. */
_Static_assert(sizeof(_Atomic unsigned int) == sizeof(unsigned int), "atomic uint size");
_Static_assert(alignof(_Atomic unsigned int) == alignof(unsigned int), "atomic uint align");
#define ZC__ATOMIC_UINT(field) ((_Atomic unsigned int *)&(field))

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

#endif /* ZCHAN_SRC_ATOMIC_H */

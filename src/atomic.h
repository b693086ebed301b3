/*
 * atomic.h: the small pieces every lock-free file here shares: cache-line alignment,
 * cpu_relax, and atomic access to the plain fields that installed structs carry
 * (installed headers hold no _Atomic so that they also compile as C++); the message
 * copies and the line size are zchan/bits/base.h's, shared with zchan/inline.h.
 */
#ifndef ZCHAN_SRC_ATOMIC_H
#define ZCHAN_SRC_ATOMIC_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include <zchan/bits/base.h> /* ZC__LIKELY, ZC_CACHE_LINE, the message copies */

#if defined(__GNUC__) || defined(__clang__)
#define ZC__NOINLINE __attribute__((noinline))
#else
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

/* The same view of a plain `size_t` field of an installed struct (zchan/bits/ring.h: the
 * ring's index words), which zchan/inline.h reaches with the __atomic builtins. */
_Static_assert(sizeof(_Atomic size_t) == sizeof(size_t), "atomic size_t size");
_Static_assert(alignof(_Atomic size_t) == alignof(size_t), "atomic size_t align");
#define ZC__ATOMIC_SIZE(field) ((_Atomic size_t *)&(field))

#endif /* ZCHAN_SRC_ATOMIC_H */

/*
 * zchan/bits/node.h: the state word of a future's waiter node, as the fast paths see it:
 * where it is and what idle reads as. The node itself is src/waitlist.h's (zc__node, in
 * the storage zc__waiter reserves), which asserts both.
 *
 * Private: nothing here is part of the API (zchan/inline.h says how a layout mismatch
 * is caught). Compiles as C11 and C++17 with GCC or Clang.
 */
#ifndef ZCHAN_BITS_NODE_H
#define ZCHAN_BITS_NODE_H

/* Pulled in by zchan/inline.h: the library's code, exempt from the including file's
 * warnings. The library's own sources keep them. */
#if defined(ZCHAN_INLINE_H) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC system_header
#endif

#include <stdbool.h>
#include <stddef.h>

#include <zchan/mpmc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Offset of the state word (unsigned int; 0: idle, neither linked nor notified) in a
 * waiter node, after its two links and its waker. */
#define ZC__FAST_NODE_STATE (4 * sizeof(void *))

/* Whether a future's node is idle. Acquire: as src/waitlist.h's zc__waitlist_state, a
 * node's other fields are read after its state. */
static inline bool zc__fast_node_idle(const zc__waiter *node) {
    const unsigned *state =
        (const unsigned *)(const void *)((const unsigned char *)node + ZC__FAST_NODE_STATE);
    return __atomic_load_n(state, __ATOMIC_ACQUIRE) == 0;
}

/* A fresh node: idle, not linked. Relaxed: a future is not shared with anyone until it
 * registers. */
static inline void zc__fast_node_init(zc__waiter *node) {
    void **links = (void **)(void *)node;
    unsigned *state = (unsigned *)(void *)((unsigned char *)node + ZC__FAST_NODE_STATE);
    __atomic_store_n(state, 0u, __ATOMIC_RELAXED);
    links[0] = links[1] = NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* ZCHAN_BITS_NODE_H */

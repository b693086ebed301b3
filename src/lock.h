/*
 * lock.h: the library's small spinlock (test-and-test-and-set over an atomic_bool), for
 * the short sections of a waiter list (waitlist.c) and of a rendezvous hand-off
 * (rendezvous.c). A holder never sleeps, wakes anyone or calls out while it holds one;
 * a thread that finds it taken waits with the backoff (backoff.h).
 *
 * Ordering: zc__lock's exchange is acquire, zc__unlock's store release, so everything a
 * holder wrote is visible to the next holder. The callers' maps name the pair: [L1]/[L2]
 * (waitlist.c), [V1]/[V2] (rendezvous.c).
 */
#ifndef ZCHAN_SRC_LOCK_H
#define ZCHAN_SRC_LOCK_H

#include <stdbool.h>

#include "atomic.h"
#include "backoff.h"

static inline void zc__lock(atomic_bool *locked) {
    zc__backoff b = ZC__BACKOFF_INIT;
    for (;;) {
        /* Acquire: the previous holder's writes are visible. */
        if (!atomic_exchange_explicit(locked, true, memory_order_acquire)) return;
        /* Relaxed: only waits for the lock to look free. */
        while (atomic_load_explicit(locked, memory_order_relaxed)) zc__backoff_snooze(&b);
    }
}

static inline void zc__unlock(atomic_bool *locked) {
    /* Release: this holder's writes are visible to the next. */
    atomic_store_explicit(locked, false, memory_order_release);
}

#endif /* ZCHAN_SRC_LOCK_H */

/**
 * @file counting_waker.h
 * Test support (header only): a zc_waker that counts its wakes, and a drop_msg that
 * counts the messages it disposes of. Both are safe to call from any thread, so the
 * stress programs may use them as well as the single-thread unit tests.
 *
 * counting_waker: wake() adds one to `wakes`; if several wakers share a `clock`, each
 * wake also records in `order` when it happened relative to the others (1, 2, ...), so a
 * test can check that waiters were woken in the order they registered. An optional
 * on_wake hook runs inside wake, after the count, to test re-entrant executors.
 *
 * drop_counter: a zc_config.drop_msg for channels of uint64_t messages; it counts calls
 * and, when given a `seen` array, how often each value below seen_len was disposed of.
 */
#ifndef ZCHAN_TEST_COUNTING_WAKER_H
#define ZCHAN_TEST_COUNTING_WAKER_H

#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zchan/waker.h>

/** A waker context that counts wakes. Zero-initialise it (or counting_waker_init). */
typedef struct counting_waker {
    atomic_uint wakes;          /* calls of wake so far */
    atomic_uint order;          /* *clock after this waker's last wake; 0 before any */
    atomic_uint *clock;         /* optional: shared by the wakers whose order is checked */
    void (*on_wake)(void *arg); /* optional: runs inside wake, after the count */
    void *arg;                  /* passed to on_wake */
} counting_waker;

/** The wake function: count, stamp the order, run the hook. */
static inline void counting_waker_wake(void *ctx) {
    counting_waker *cw = (counting_waker *)ctx;
    if (cw->clock != NULL) {
        /* Relaxed: the clock only needs to be a total order of these RMWs (every RMW on
         * one atomic is); readers look at `order` after the `wakes` acquire below. */
        unsigned now = atomic_fetch_add_explicit(cw->clock, 1, memory_order_relaxed) + 1;
        atomic_store_explicit(&cw->order, now, memory_order_relaxed);
    }
    /* Release: pairs with the acquire in counting_waker_count(), so a thread that sees
     * the count also sees what the waking thread did before calling wake. */
    atomic_fetch_add_explicit(&cw->wakes, 1, memory_order_release);
    if (cw->on_wake != NULL)
        cw->on_wake(cw->arg);
}

/** Reset cw to no wakes, no clock, no hook. */
static inline void counting_waker_init(counting_waker *cw) {
    atomic_init(&cw->wakes, 0);
    atomic_init(&cw->order, 0);
    cw->clock = NULL;
    cw->on_wake = NULL;
    cw->arg = NULL;
}

/** The zc_waker that counts into cw. */
static inline zc_waker counting_waker_of(counting_waker *cw) {
    zc_waker w = {counting_waker_wake, cw};
    return w;
}

/** Wakes so far (acquire: pairs with the release in counting_waker_wake()). */
static inline unsigned counting_waker_count(counting_waker *cw) {
    return atomic_load_explicit(&cw->wakes, memory_order_acquire);
}

/** The clock value of cw's last wake; 0 if it has none. Read after counting_waker_count. */
static inline unsigned counting_waker_order(counting_waker *cw) {
    return atomic_load_explicit(&cw->order, memory_order_relaxed);
}

/** Wait (yielding, never sleeping) until cw has been woken at least n times. */
static inline void counting_waker_wait(counting_waker *cw, unsigned n) {
    while (counting_waker_count(cw) < n)
        sched_yield();
}

/** Counts for drop_counter_fn; set it up with drop_counter_init. */
typedef struct drop_counter {
    atomic_size_t calls;  /* messages disposed of */
    _Atomic uint64_t sum; /* sum of their values */
    atomic_uchar *seen;   /* optional: seen[v] counts disposals of value v < seen_len */
    size_t seen_len;
} drop_counter;

/** zc_config.drop_msg for uint64_t messages; ctx is a drop_counter. */
static inline void drop_counter_fn(void *msg, void *ctx) {
    drop_counter *dc = (drop_counter *)ctx;
    uint64_t v;
    memcpy(&v, msg, sizeof v);
    /* Relaxed: plain counters, read after the drop call (or thread join) that made them. */
    atomic_fetch_add_explicit(&dc->sum, v, memory_order_relaxed);
    if (dc->seen != NULL && v < dc->seen_len)
        atomic_fetch_add_explicit(&dc->seen[v], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&dc->calls, 1, memory_order_relaxed);
}

/** Reset dc to no disposals; seen (NULL for none) has seen_len counters, zeroed here. */
static inline void drop_counter_init(drop_counter *dc, atomic_uchar *seen,
                                     size_t seen_len) {
    atomic_init(&dc->calls, 0);
    atomic_init(&dc->sum, 0);
    dc->seen = seen;
    dc->seen_len = seen != NULL ? seen_len : 0;
    for (size_t v = 0; v < dc->seen_len; v++)
        atomic_init(&seen[v], 0);
}

/** True if exactly the values first..last-1 were disposed of, each once (and nothing
 *  else below seen_len). Read after the disposals, as drop_counter_calls. */
static inline bool drop_counter_saw_once(drop_counter *dc, uint64_t first, uint64_t last) {
    if (atomic_load_explicit(&dc->calls, memory_order_relaxed) != last - first)
        return false;
    for (uint64_t v = 0; v < dc->seen_len; v++) {
        unsigned want = v >= first && v < last ? 1 : 0;
        if (atomic_load_explicit(&dc->seen[v], memory_order_relaxed) != want)
            return false;
    }
    return true;
}

/** Messages disposed of so far. */
static inline size_t drop_counter_calls(drop_counter *dc) {
    return atomic_load_explicit(&dc->calls, memory_order_relaxed);
}

#endif /* ZCHAN_TEST_COUNTING_WAKER_H */

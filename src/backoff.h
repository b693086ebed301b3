/*
 * backoff.h: how the library waits a moment for another thread: spin, then yield, then
 * nap. The one place that yields or sleeps on a short wait (backoff.c); the parker
 * (park.c) is the one place that sleeps until woken.
 *
 * zc__backoff: exponential backoff while waiting for a peer, as crossbeam's Backoff:
 * spin 1, 2, 4, 8 pauses (inline), then yield the CPU ZC__BACKOFF_YIELDS times, then nap
 * (zc__backoff_wait). The naps are for real-time threads: a SCHED_FIFO thread that
 * preempted a lower-priority peer mid-operation would otherwise yield to no one. Callers
 * that must not yield (the queues) stop at the end of the spin stage
 * (zc__backoff_spun_out).
 */
#ifndef ZCHAN_SRC_BACKOFF_H
#define ZCHAN_SRC_BACKOFF_H

#include <stdbool.h>

#include "atomic.h"

typedef struct zc__backoff {
    unsigned step;
} zc__backoff;

#define ZC__BACKOFF_SPIN_LIMIT 3u /* 2^3 = 8 pauses at most per round */
#define ZC__BACKOFF_YIELDS 16u    /* then 16 yields before the first nap */
#define ZC__BACKOFF_INIT {0}

/* The yield and nap stages, out of line; the step by value, so that a caller's
 * zc__backoff can stay in a register. */
unsigned zc__backoff_wait(unsigned step);

/* A CAS lost to another thread: pause 1, 2, 4, ... up to 2^ZC__BACKOFF_SPIN_LIMIT times
 * before the next try, so that threads contending for one word take turns instead of
 * pulling its line back and forth (crossbeam's Backoff::spin). Never yields. */
static inline void zc__backoff_spin(zc__backoff *b) {
    unsigned step = b->step < ZC__BACKOFF_SPIN_LIMIT ? b->step : ZC__BACKOFF_SPIN_LIMIT;
    for (unsigned i = 0; i < (1u << step); i++) zc__cpu_relax();
    if (b->step <= ZC__BACKOFF_SPIN_LIMIT) b->step++;
}

/* Wait out a peer a little longer at each call: zc__backoff_spin's pauses, then the
 * yields and naps of zc__backoff_wait. */
static inline void zc__backoff_snooze(zc__backoff *b) {
    if (b->step <= ZC__BACKOFF_SPIN_LIMIT)
        zc__backoff_spin(b);
    else
        b->step = zc__backoff_wait(b->step);
}

/* True once snoozing has reached the yield stage: a bounded spin is over. */
static inline bool zc__backoff_spun_out(const zc__backoff *b) {
    return b->step > ZC__BACKOFF_SPIN_LIMIT;
}

/* A peer mid-operation holds what an attempt needs: spin a little more (true), or, once
 * the bounded spin is over, false (the attempt reports ZC_PENDING). */
static inline bool zc__backoff_wait_peer(zc__backoff *b) {
    if (zc__backoff_spun_out(b)) return false;
    zc__backoff_snooze(b);
    return true;
}

/* Where the kernel does not count a thread's involuntary switches (Linux does), a
 * sched_yield that takes at least this long ran another thread on this CPU. */
#define ZC__YIELD_RAN_ANOTHER_NS 1000u

/* At most one check, and so one nap, per thread in this interval. */
#define ZC__NAP_INTERVAL_NS 10000000u

/* A thread's first check comes this long after its first yield. */
#define ZC__NAP_FIRST_CHECK_NS 200000u

/* A nap asks for this much sleep: long enough that a real-time thread (whose timer
 * slack the kernel ignores) is switched out. Other threads sleep this plus their slack. */
#define ZC__NAP_NS 20000

/* No nap for a thread whose timer slack (prctl PR_SET_TIMERSLACK) is above this (the
 * default is 50 µs): a nap lasts about the slack. */
#define ZC__NAP_MAX_SLACK_NS 200000u

/* Give the CPU away for a moment: a sched_yield, checked now and then (first
 * ZC__NAP_FIRST_CHECK_NS after the thread's first yield, then at most once every
 * ZC__NAP_INTERVAL_NS): a checked yield that ran another thread on this CPU is followed
 * by one nap, whose wake-up lets the kernel move the thread to an idle CPU (two threads
 * yielding to each other on one CPU never block, so are never placed again otherwise).
 * Thread-safe: the next check's time is thread-local. */
void zc__yield(void);

/* sched_yield, and whether it ran another thread on this CPU: on Linux, whether the
 * kernel counted an involuntary switch of this thread across it (getrusage
 * RUSAGE_THREAD); elsewhere, whether it took ZC__YIELD_RAN_ANOTHER_NS or more.
 * Thread-safe. */
bool zc__yield_ran_another(void);

/* Whether this thread is scheduled by the kernel's fair share (SCHED_OTHER or
 * SCHED_BATCH; false for a real-time policy and for SCHED_IDLE, whose yields do not give
 * the CPU to threads of other priorities). One system call. Thread-safe. */
bool zc__thread_shares_fairly(void);

#endif /* ZCHAN_SRC_BACKOFF_H */

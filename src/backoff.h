/*
 * backoff.h: how the library waits a moment for another thread: spin, then yield, then
 * nap. The one place that yields or sleeps on a short wait (backoff.c); the parker
 * (park.c) is the one place that sleeps until woken.
 *
 * zc__backoff: exponential backoff while waiting for a peer, as crossbeam's Backoff:
 * spin 1, 2, 4, 8 pauses (inline), then yield the CPU ZC__BACKOFF_YIELDS times, then nap
 * (zc__backoff_wait). A peer waited for may have been preempted: on few cores spinning
 * longer only delays it, and a vCPU that loops on pause gets descheduled by the
 * hypervisor. The naps are for real-time threads: a SCHED_FIFO thread that preempted a
 * lower-priority peer in the middle of an operation (or holding a waiter-list lock)
 * would otherwise yield to no one and spin for ever. Callers that must not yield (the
 * queues) stop at the end of the spin stage (zc__backoff_spun_out).
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

/* The yield and nap stages, out of line (they make system calls anyway; the spin stage
 * is inlined into hot paths). Takes and returns the step by value, so that a caller's
 * zc__backoff can stay in a register. */
unsigned zc__backoff_wait(unsigned step);

static inline void zc__backoff_snooze(zc__backoff *b) {
    if (b->step <= ZC__BACKOFF_SPIN_LIMIT) {
        for (unsigned i = 0; i < (1u << b->step); i++) zc__cpu_relax();
        b->step++;
    } else {
        b->step = zc__backoff_wait(b->step);
    }
}

/* True once snoozing has reached the yield stage: a bounded spin is over. */
static inline bool zc__backoff_spun_out(const zc__backoff *b) {
    return b->step > ZC__BACKOFF_SPIN_LIMIT;
}

/* Where the kernel does not count a thread's involuntary switches (Linux does), a
 * sched_yield that takes at least this long (1 µs) ran another thread on this CPU. */
#define ZC__YIELD_RAN_ANOTHER_NS 1000u

/* At most one check, and so one nap, per thread in this interval (10 ms). */
#define ZC__NAP_INTERVAL_NS 10000000u

/* A thread's first check comes this long (200 µs) after its first yield. */
#define ZC__NAP_FIRST_CHECK_NS 200000u

/* A nap asks for this much sleep (20 µs). Not 1 ns: for a real-time thread (whose timer
 * slack the kernel ignores) a sleep that short has expired before the thread is switched
 * out, so it would never give the CPU away. Other threads sleep this plus their slack. */
#define ZC__NAP_NS 20000

/* No nap for a thread whose timer slack (prctl PR_SET_TIMERSLACK) is above this (200
 * µs; the default is 50 µs): a nap lasts about the slack, and naps of 50 ms every 10 ms
 * would slow two threads pinned to one CPU a thousandfold. */
#define ZC__NAP_MAX_SLACK_NS 200000u

/* Give the CPU away for a moment: a sched_yield, checked now and then (first
 * ZC__NAP_FIRST_CHECK_NS after the thread's first yield, then at most once every
 * ZC__NAP_INTERVAL_NS): a checked yield that ran another thread on this CPU is followed
 * by one nap. Two threads that wait for each other by yielding can share one CPU while
 * another idles, and stay there: a thread that yields never blocks, so no wake-up ever
 * places it again, and the kernel's periodic balancer leaves threads that ran a moment
 * ago where they are. The wake-up after a nap puts the thread on an idle CPU if the
 * kernel finds one. A CPU oversubscribed for real loses at most one nap per thread per
 * interval. Thread-safe: the next check's time is thread-local. */
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

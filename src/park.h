/*
 * park.h: the thread parker's internals, shared by park.c, block.c and tests/unit.
 *
 * The public parker (include/zchan/block.h) takes relative timeouts; the blocking layer
 * keeps one deadline across several parks, so it parks until an absolute
 * CLOCK_MONOTONIC time instead, through the functions below.
 */
#ifndef ZCHAN_SRC_PARK_H
#define ZCHAN_SRC_PARK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <zchan/block.h>

#include "atomic.h"

/* zc_parker.zc__state. PARKED is EMPTY - 1, so that one fetch_sub(1) in park takes
 * NOTIFIED to EMPTY (permit consumed) or EMPTY to PARKED (about to sleep). */
#define ZC__PARKER_EMPTY 0u
#define ZC__PARKER_NOTIFIED 1u
#define ZC__PARKER_PARKED UINT_MAX

/* A deadline that never comes: park until woken. */
#define ZC__NO_DEADLINE UINT64_MAX

/* Now on CLOCK_MONOTONIC, in nanoseconds. */
uint64_t zc__clock_ns(void);

/* Whether p holds the permit (a wake came since the last park): a hint, read relaxed. */
static inline bool zc__parker_has_permit(zc_parker *p) {
    /* Relaxed: the park that follows takes the permit with acquire ([K2], park.c). */
    return atomic_load_explicit(ZC__ATOMIC_UINT(p->zc__state), memory_order_relaxed) ==
           ZC__PARKER_NOTIFIED;
}

/* The deadline timeout_ns from now: UINT64_MAX, and any sum past UINT64_MAX (over 500
 * years of uptime), give ZC__NO_DEADLINE. */
uint64_t zc__deadline_ns(uint64_t timeout_ns);

/* Whether deadline_ns (ZC__NO_DEADLINE: none) has passed. */
static inline bool zc__deadline_passed(uint64_t deadline_ns) {
    return deadline_ns != ZC__NO_DEADLINE && zc__clock_ns() >= deadline_ns;
}

/* As zc_parker_park_timeout, until deadline_ns on zc__clock_ns's clock. A deadline
 * already past only checks for the permit; ZC__NO_DEADLINE waits until woken. spin:
 * look for the permit a few times, yielding, before sleeping (park.c, PARK_SPIN; no
 * more yields once deadline_ns has passed); false sleeps at once, for a caller that has
 * just spun on its own attempts (the channel's blocking and timed calls). Returns ZC_OK,
 * ZC_TIMEDOUT or ZC_EINVAL (p NULL). */
zc_status zc__parker_park_until(zc_parker *p, uint64_t deadline_ns, bool spin);

/* Where the kernel does not count a thread's involuntary switches (Linux does:
 * getrusage RUSAGE_THREAD), a sched_yield that takes at least this long ran another
 * thread on this CPU. Measured on the 2-vCPU Intel Xeon VM: 380 ns on average alone
 * (20,000 calls), 1.5 µs at the least when another thread yields on the same CPU. Not
 * a rule everywhere: on the 2-vCPU AMD EPYC Firecracker guest every system call takes
 * about 1 µs (getppid 1.0 µs, sched_yield alone 1.2-1.3 µs, 1.6-3.5 µs as the first
 * after a sleep; 3.6 µs at the least when another thread yields on the same CPU). */
#define ZC__YIELD_RAN_ANOTHER_NS 1000u

/* At most one check, and so one nap, per thread in this interval (10 ms). */
#define ZC__NAP_INTERVAL_NS 10000000u

/* A thread's first check comes this long (200 µs) after its first yield: see zc__yield. */
#define ZC__NAP_FIRST_CHECK_NS 200000u

/* A nap asks for this much sleep (20 µs). Not 1 ns: for a real-time thread (whose
 * timer slack the kernel ignores) a sleep that short has expired before the thread is
 * switched out, so it would never give the CPU away. Other threads sleep this plus
 * their timer slack. */
#define ZC__NAP_NS 20000

/* No nap for a thread whose timer slack (Linux: prctl PR_SET_TIMERSLACK, systemd's
 * TimerSlackNSec=) is above this (200 µs; the default is 50 µs): a nap lasts about the
 * slack, and one of 50 ms every 10 ms made 20,000 round trips between two threads pinned
 * to one CPU take 109 s instead of 0.1 s. */
#define ZC__NAP_MAX_SLACK_NS 200000u

/* Give the CPU away for a moment: the yield stage of a blocking call's spin before it
 * parks (zc__chan_snooze in chan.h, for block.c). The first yield once
 * ZC__NAP_FIRST_CHECK_NS has passed since the thread's first yield, and then once
 * ZC__NAP_INTERVAL_NS has passed since the last check, is checked: if it ran another
 * thread on this CPU (an involuntary switch of this thread; elsewhere than Linux, a yield
 * of ZC__YIELD_RAN_ANOTHER_NS or more), nap once (a nanosleep of ZC__NAP_NS, which lasts
 * that plus the thread's timer slack: 70 µs with the default slack, 20 µs for a real-time
 * thread, whose slack the kernel ignores; no nap where the slack is above
 * ZC__NAP_MAX_SLACK_NS). Other yields are a bare sched_yield. (Timing every yield against
 * ZC__YIELD_RAN_ANOTHER_NS napped at every check on a machine whose system calls take 1
 * µs; test_yield.) When the first check comes, measured on the EPYC guest: at a thread's
 * first yield, one sender and one receiver thread (bench row 10, 0.2-0.8 ms a run) that
 * began on one CPU napped there 70 µs though the kernel would have spread them soon
 * anyway (median 0.53 ms, 200 interleaved runs); 10 ms after it, 30% of quick two-thread
 * ping-pongs (row 15-threads --quick, 2000 round trips) and 25% of row 10 runs stayed on
 * one CPU all along (5 µs a round trip; 3.5 ms); 1 ms after it, row 10's stuck runs took
 * 1.5 ms; 50 µs and 200 µs after it: none of 80 ping-pongs stuck, row 10 medians
 * 0.32-0.33 ms, the two alike in 300 interleaved runs of rows 5 and 10-12.
 *
 * Why: two threads that wait for each other by yielding can share one CPU while another
 * CPU idles, and stay there. A thread that yields never blocks, so no wake-up ever places
 * it again, and the kernel's periodic balancer leaves threads that ran a moment ago where
 * they are ("cache hot"). The wake-up after a nap puts the thread on an idle CPU if the
 * kernel's search at the wake-up finds one, which it often does not on a busy 2-vCPU
 * guest (bench/README.md, row 12: naps every millisecond left a receiver and a sender
 * on one vCPU in 32 of 40 runs). Measured on the 2-vCPU Xeon VM, two threads bouncing a
 * message over two bounded(1) channels, 2000 round trips (bench row 15-threads,
 * --quick): without the nap 7 of 12 runs had both threads on one CPU all along, at
 * 2.4-4.0 µs a round trip, against 0.4-0.7 µs on two CPUs; with it, 23 of 24 runs at
 * 0.4-0.5 µs. One sender and one receiver thread (row 10): median 1.84 -> 0.61 ms. On the
 * EPYC guest, of 100 such pairs (a test program, 10,000 messages), 41 began apart and 59
 * on one vCPU, where each was parted within 0.7 ms (the first nap comes 200 µs in); in
 * two other sets, 1 of 20 and 1 of 40 stayed together to the end (3.7-3.8 ms). A CPU that
 * is oversubscribed for real loses at most one nap per thread per 10 ms. The parker's
 * own spin (park.c) keeps plain yields: by then the thread has either napped or found
 * its CPU to itself, and napping there too measured slower for 4 senders and 4 receivers
 * on 2 CPUs (row 5: 4.5 against 6.0 ms, medians of 15 interleaved runs, on a noisy host).
 * Thread-safe: the next check's time is thread-local. */
void zc__yield(void);

/* sched_yield, and whether it ran another thread on this CPU: on Linux, whether the kernel
 * counted an involuntary switch of this thread across it (getrusage RUSAGE_THREAD, two
 * system calls more than the yield); elsewhere, whether it took ZC__YIELD_RAN_ANOTHER_NS
 * or more. zc__yield's checked yield, and every yield of a blocking call's lone stage
 * (zc__chan_snooze in chan.h), which ends at the first that ran another thread.
 * Thread-safe. */
bool zc__yield_ran_another(void);

/* Whether this thread is scheduled by the kernel's fair share (SCHED_OTHER or
 * SCHED_BATCH; false for a real-time policy and for SCHED_IDLE, whose yields do not
 * give the CPU to threads of other priorities). One system call. Thread-safe. */
bool zc__thread_shares_fairly(void);

#endif /* ZCHAN_SRC_PARK_H */

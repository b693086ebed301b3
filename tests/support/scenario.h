/**
 * @file scenario.h
 * Test support for the reliability scenarios (tests/reliability/test_scenarios_*.c):
 * the waker and capacities every scenario uses, futures driven by a parker with a hang
 * limit, and the tools of the threaded races (how many rounds, a round handshake, a
 * pause, two threads spread over two CPUs). Define _GNU_SOURCE before the first include
 * (clock_gettime, pthread_setaffinity_np); this header includes cmocka.
 */
#ifndef ZCHAN_TEST_SCENARIO_H
#define ZCHAN_TEST_SCENARIO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

#include "backoff.h" /* zc__backoff, zc__cpu_relax (src/) */
#include "mono_clock.h"
#include "u64_fixture.h"

enum { WAITERS = FIXTURE_WAITERS };

/* A future that pends longer than this in a threaded scenario counts as a hang. */
#define HANG_NS (10ull * 1000 * 1000 * 1000)

static inline void noop_wake(void *ctx) { (void)ctx; }
static const zc_waker noop_waker = {noop_wake, NULL};

/* The capacities each flavour-independent scenario runs with (0: unbounded). */
static const size_t both_flavours[] = {4, 0};

/* Drive a receive future with a parker until it is not pending; ZC_TIMEDOUT if no wake
 * came within HANG_NS (a lost wake-up). */
static inline zc_status recv_parked(zc_recv *r, zc_parker *p, uint64_t *out) {
    zc_waker w = zc_parker_waker(p);
    for (;;) {
        zc_status s = zc_recv_poll(r, &w, out);
        if (s != ZC_PENDING) return s;
        if (zc_parker_park_timeout(p, HANG_NS) == ZC_TIMEDOUT) {
            zc_recv_cancel(r);
            return ZC_TIMEDOUT;
        }
    }
}

static inline zc_status send_parked(zc_sender *tx, const uint64_t *msg, zc_parker *p) {
    zc_waker w = zc_parker_waker(p);
    zc_send f;
    zc_send_init(&f, tx, msg);
    for (;;) {
        zc_status s = zc_send_poll(&f, &w);
        if (s != ZC_PENDING) return s;
        if (zc_parker_park_timeout(p, HANG_NS) == ZC_TIMEDOUT) {
            zc_send_cancel(&f);
            return ZC_TIMEDOUT;
        }
    }
}

/* How many times a threaded scenario repeats its race: `full`, scaled by
 * ZCHAN_SCENARIO_SCALE=<percent> (for example 1 under valgrind, 1000 for a long run). */
static inline unsigned scenario_rounds(unsigned full) {
    unsigned long long n = full;
    const char *env = getenv("ZCHAN_SCENARIO_SCALE");
    if (env != NULL && atoi(env) > 0) n = n * (unsigned)atoi(env) / 100;
    return n < 2 ? 2 : n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/* Whether a race test whose two threads meet once a round goes on to round `round` of
 * `rounds`, having started at t0 (now_ns): every round up to RACE_MIN_ROUNDS, then until
 * all are run or RACE_BUDGET_NS have gone. Each meeting needs both threads on a CPU; with
 * another process busy on one of two CPUs each meeting waits for a time slice, and the
 * full count of rounds would take many times the test's TIMEOUT. */
enum { RACE_MIN_ROUNDS = 1000 };
static const uint64_t RACE_BUDGET_NS = 10 * 1000000000ull;
static inline bool race_goes_on(unsigned round, unsigned rounds, uint64_t t0) {
    return round <= rounds && (round <= RACE_MIN_ROUNDS || now_ns() - t0 < RACE_BUDGET_NS);
}

/* A round number that tells a race test's peer thread to stop (after its last round). */
#define RACE_END UINT_MAX

/* Wait until *a == want (acquire: what its writer did before is visible). False if *a is
 * RACE_END instead: no more rounds. */
static inline bool await_uint(atomic_uint *a, unsigned want) {
    zc__backoff b = ZC__BACKOFF_INIT;
    unsigned v;
    while ((v = atomic_load_explicit(a, memory_order_acquire)) != want && v != RACE_END)
        zc__backoff_snooze(&b);
    return v == want;
}

/* Spend about n pauses, to shift one thread against another. */
static inline void spin(unsigned n) {
    while (n-- > 0)
        zc__cpu_relax();
}

/* Two racing threads steered against each other must run at the same time, so on a
 * Linux machine with two CPUs or more, put the main thread on one CPU and the peer on
 * another (a busy machine may otherwise keep both on one core, where one of them always
 * wins). spread_threads returns the main thread's old mask for unspread_threads. */
#ifdef __linux__
static inline cpu_set_t spread_threads(pthread_t peer) {
    cpu_set_t old, one;
    CPU_ZERO(&old);
    pthread_getaffinity_np(pthread_self(), sizeof old, &old);
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE && second < 0; c++) {
        if (!CPU_ISSET(c, &old)) continue;
        if (first < 0)
            first = c;
        else
            second = c;
    }
    if (second >= 0) {
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        CPU_ZERO(&one);
        CPU_SET(second, &one);
        pthread_setaffinity_np(peer, sizeof one, &one);
    }
    return old;
}

static inline void unspread_threads(cpu_set_t old) {
    pthread_setaffinity_np(pthread_self(), sizeof old, &old);
}
#else
typedef int cpu_set_t;
static inline cpu_set_t spread_threads(pthread_t peer) {
    (void)peer;
    return 0;
}
static inline void unspread_threads(cpu_set_t old) { (void)old; }
#endif

static inline void start_thread(pthread_t *t, void *(*fn)(void *), void *arg) {
    assert_int_equal(pthread_create(t, NULL, fn, arg), 0);
}

#endif /* ZCHAN_TEST_SCENARIO_H */

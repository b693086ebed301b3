/*
 * Unit tests of zc__yield (src/park.h): the yield of a waiting thread, which naps once
 * when the yield ran another thread on its CPU, at most once per ZC__NAP_INTERVAL_NS.
 *
 * A nap is a real block, which the kernel counts as a voluntary context switch of the
 * thread (getrusage RUSAGE_THREAD, ru_nvcsw); sched_yield is not one. Linux only (CPU
 * affinity and RUSAGE_THREAD); elsewhere the tests are skipped. Not run under valgrind
 * (scripts/valgrind.sh): valgrind's own thread lock blocks threads, which ru_nvcsw counts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np, sched_getcpu, RUSAGE_THREAD */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "park.h"

#if defined(__linux__) && defined(RUSAGE_THREAD)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long voluntary_switches(void) {
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_nvcsw;
}

/* Another runnable thread: works 5 µs (so that a yield that runs it is unmistakably
 * long), yields, and again, until told to stop. */
static atomic_bool stop_working;

static void *worker_main(void *arg) {
    (void)arg;
    /* Relaxed: a stop flag; nothing is read through it. */
    while (!atomic_load_explicit(&stop_working, memory_order_relaxed)) {
        uint64_t until = now_ns() + 5000;
        while (now_ns() < until) {
        }
        sched_yield();
    }
    return NULL;
}

/* This thread and a worker on this thread's CPU; the old affinity in *saved. */
static void share_a_cpu_with_a_worker(pthread_t *worker, cpu_set_t *saved) {
    int cpu = sched_getcpu();
    if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof *saved, saved) != 0) skip();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) skip();
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof one, &one), 0);
    atomic_store_explicit(&stop_working, false, memory_order_relaxed);
    assert_int_equal(pthread_create(worker, &attr, worker_main, NULL), 0);
    pthread_attr_destroy(&attr);
}

static void stop_the_worker(pthread_t worker, const cpu_set_t *saved) {
    atomic_store_explicit(&stop_working, true, memory_order_relaxed);
    assert_int_equal(pthread_join(worker, NULL), 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof *saved, saved), 0);
}

static void test_a_yield_that_runs_another_thread_naps_once_per_interval(void **unused) {
    (void)unused;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with_a_worker(&worker, &saved);
    /* No nap for a while before: the worker has had time to start. */
    struct timespec interval = {0, (long)ZC__NAP_INTERVAL_NS + 1000000};
    nanosleep(&interval, NULL);

    uint64_t t0 = now_ns();
    long v0 = voluntary_switches();
    for (int i = 0; i < 20; i++) zc__yield(); /* each one runs the worker for 5 µs */
    long naps = voluntary_switches() - v0;
    uint64_t span = now_ns() - t0;
    assert_true(naps >= 1); /* the first one napped */
    /* ... and then no more until the interval had passed. */
    assert_true(naps <= 1 + (long)(span / ZC__NAP_INTERVAL_NS));

    /* Once the interval has passed, such a yield naps again: the first yield that runs
     * the worker (on a loaded machine one may find nothing else to run, and not nap;
     * found 1 run in 40 with two busy loops beside the test), and only that one. */
    nanosleep(&interval, NULL);
    v0 = voluntary_switches();
    for (int i = 0; i < 20 && voluntary_switches() == v0; i++) zc__yield();
    assert_int_equal(voluntary_switches() - v0, 1);
    stop_the_worker(worker, &saved);
}

/* A nap lasts about the thread's timer slack; with a large one (prctl, systemd's
 * TimerSlackNSec=) a nap of 1 ns became one of 50 ms, at every interval. */
static void test_no_nap_when_the_timer_slack_is_large(void **unused) {
    (void)unused;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with_a_worker(&worker, &saved);
    long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    assert_int_equal(prctl(PR_SET_TIMERSLACK, 50 * 1000000UL, 0, 0, 0), 0);

    struct timespec interval = {0, (long)ZC__NAP_INTERVAL_NS + 1000000};
    long naps = 0;
    uint64_t longest = 0;
    for (int i = 0; i < 3; i++) {
        nanosleep(&interval, NULL); /* a nap would be due each time */
        long v0 = voluntary_switches();
        uint64_t t0 = now_ns();
        zc__yield();
        uint64_t took = now_ns() - t0;
        naps += voluntary_switches() - v0;
        if (took > longest) longest = took;
    }
    assert_int_equal(prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0), 0);
    stop_the_worker(worker, &saved);
    assert_int_equal(naps, 0);
    assert_true(longest < 20 * 1000000u); /* a 50 ms nap would show here too */
}

#else

static void test_a_yield_that_runs_another_thread_naps_once_per_interval(void **unused) {
    (void)unused;
    skip(); /* needs Linux's CPU affinity and RUSAGE_THREAD */
}

static void test_no_nap_when_the_timer_slack_is_large(void **unused) {
    (void)unused;
    skip();
}

#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_yield_that_runs_another_thread_naps_once_per_interval),
        cmocka_unit_test(test_no_nap_when_the_timer_slack_is_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

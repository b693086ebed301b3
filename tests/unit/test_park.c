/*
 * Unit tests of the thread parker (zc_parker in zchan/block.h, src/park.c).
 *
 * Uses only park.c, so tests/unit/CMakeLists.txt also builds it as test_park_condvar
 * with the pthread condvar fallback forced. A helper thread that must wake a parked
 * thread first waits until the parker's state says PARKED (the sleeper has announced
 * itself), so the sleeping path is what gets tested, with no sleep in the test.
 * cmocka asserts run on the main thread only; helper threads report through fields.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* clock_gettime under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include <zchan/block.h>

#include "atomic.h"
#include "mono_clock.h"
#include "park.h"

#define MS 1000000u /* nanoseconds */

static void wake(zc_parker *p) {
    zc_waker w = zc_parker_waker(p);
    w.wake(w.ctx);
}

static unsigned state(zc_parker *p) {
    /* Relaxed: the tests only look at the value; the parker orders its own data. */
    return atomic_load_explicit(ZC__ATOMIC_UINT(p->zc__state), memory_order_relaxed);
}

/* A thread that waits until `parker` is PARKED, writes `payload`, then wakes it. */
typedef struct waker_thread {
    pthread_t thread;
    zc_parker *parker;
    int payload; /* plain: the wake must publish it to the parked thread */
} waker_thread;

static void *waker_main(void *arg) {
    waker_thread *t = arg;
    while (state(t->parker) != ZC__PARKER_PARKED) sched_yield();
    t->payload = 42;
    wake(t->parker);
    return NULL;
}

static void start_waker(waker_thread *t, zc_parker *p) {
    t->parker = p;
    t->payload = 0;
    assert_int_equal(pthread_create(&t->thread, NULL, waker_main, t), 0);
}

static void test_wake_before_park_is_kept(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    wake(&p);
    zc_parker_park(&p); /* returns at once: the permit is there */
    wake(&p);
    assert_int_equal(zc_parker_park_timeout(&p, 0), ZC_OK);
    assert_int_equal(state(&p), ZC__PARKER_EMPTY);
    zc_parker_destroy(&p);
}

static void test_several_wakes_before_a_park_count_as_one(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    wake(&p);
    wake(&p);
    wake(&p);
    assert_int_equal(zc_parker_park_timeout(&p, 0), ZC_OK);
    assert_int_equal(zc_parker_park_timeout(&p, 0), ZC_TIMEDOUT);
    zc_parker_destroy(&p);
}

static void test_park_timeout_zero_only_checks_for_the_permit(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    assert_int_equal(zc_parker_park_timeout(&p, 0), ZC_TIMEDOUT);
    assert_int_equal(state(&p), ZC__PARKER_EMPTY);
    zc_parker_destroy(&p);
}

static void test_park_timeout_without_a_wake_times_out_after_at_least_the_timeout(
    void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    uint64_t start = now_ns();
    assert_int_equal(zc_parker_park_timeout(&p, 20 * MS), ZC_TIMEDOUT);
    assert_true(now_ns() - start >= 20 * MS);
    zc_parker_destroy(&p);
}

static void test_a_wake_after_a_timeout_is_kept_for_the_next_park(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    assert_int_equal(zc_parker_park_timeout(&p, 1 * MS), ZC_TIMEDOUT);
    assert_int_equal(state(&p), ZC__PARKER_EMPTY); /* the timeout withdrew PARKED */
    wake(&p);
    assert_int_equal(zc_parker_park_timeout(&p, 0), ZC_OK);
    zc_parker_destroy(&p);
}

static void test_wake_from_another_thread_releases_a_parked_thread(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    waker_thread t;
    start_waker(&t, &p);
    zc_parker_park(&p);
    assert_int_equal(t.payload, 42); /* the wake published the write before it */
    assert_int_equal(state(&p), ZC__PARKER_EMPTY);
    pthread_join(t.thread, NULL);
    zc_parker_destroy(&p);
}

static void test_wake_from_another_thread_ends_a_timed_park_before_its_timeout(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    waker_thread t;
    start_waker(&t, &p);
    uint64_t start = now_ns();
    assert_int_equal(zc_parker_park_timeout(&p, 60000 * MS), ZC_OK);
    assert_true(now_ns() - start < 60000 * MS);
    assert_int_equal(t.payload, 42);
    pthread_join(t.thread, NULL);
    zc_parker_destroy(&p);
}

static void test_park_timeout_of_uint64_max_waits_for_a_wake(void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    waker_thread t;
    start_waker(&t, &p);
    assert_int_equal(zc_parker_park_timeout(&p, UINT64_MAX), ZC_OK);
    assert_int_equal(t.payload, 42);
    pthread_join(t.thread, NULL);
    zc_parker_destroy(&p);
}

/* A waker that lets the parker sleep for a while first. */
static void *late_waker_main(void *arg) {
    waker_thread *t = arg;
    while (state(t->parker) != ZC__PARKER_PARKED) sched_yield();
    struct timespec pause = {0, 300 * (long)MS};
    nanosleep(&pause, NULL);
    t->payload = 42;
    wake(t->parker);
    return NULL;
}

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Park with timeout_ns for a waker that lets the parker sleep 0.3 s first: the park must
 * wait for it, asleep, and return ZC_OK. */
static void park_waits_out_a_late_wake(uint64_t timeout_ns) {
    zc_parker p;
    zc_parker_init(&p);
    waker_thread t = {.parker = &p};
    assert_int_equal(pthread_create(&t.thread, NULL, late_waker_main, &t), 0);
    uint64_t start = now_ns(), cpu = thread_cpu_ns();
    assert_int_equal(zc_parker_park_timeout(&p, timeout_ns), ZC_OK);
    assert_true(now_ns() - start >= 300 * MS);
    assert_true(thread_cpu_ns() - cpu < 100 * MS); /* asleep, not spinning */
    assert_int_equal(t.payload, 42);
    pthread_join(t.thread, NULL);
    zc_parker_destroy(&p);
}

/* Timeouts of more than 2^31 - 1 seconds (68 years), which a 32-bit time_t cannot hold: each
 * must be waited out like any other, asleep. On i686, seconds cut to 32 bits would make
 * the first come back ZC_TIMEDOUT at once (its seconds cut to 0) and the second spin at
 * full CPU (negative seconds: FUTEX_WAIT fails with EINVAL at once, over and over). */
static void test_park_timeouts_too_long_for_a_32_bit_time_t_are_waited_out_asleep(
    void **unused) {
    (void)unused;
    park_waits_out_a_late_wake(((uint64_t)1 << 32) * 1000000000u + 100 * MS); /* 2^32 s + 0.1 s */
    park_waits_out_a_late_wake((((uint64_t)1 << 31) + 1) * 1000000000u);      /* 2^31 s + 1 s */
}

/* Timeouts just short of UINT64_MAX (which means no limit): the clock's reading plus the
 * timeout passes 2^64, and a deadline computed without a check wraps into the past, so
 * the park timed out at once (seen when park.c's check was taken out). Waited out asleep,
 * as any other timeout. */
static void test_park_timeouts_whose_deadline_passes_2_to_the_64_are_waited_out(
    void **unused) {
    (void)unused;
    park_waits_out_a_late_wake(UINT64_MAX - 1);
    park_waits_out_a_late_wake(UINT64_MAX - now_ns() / 2);
}

/* Two threads hand a turn back and forth, each waking the other and parking: a lost
 * wake-up hangs the test (ctest TIMEOUT), a missing happens-before shows in `turns`
 * (and under ThreadSanitizer as a race on it). */
#define ROUNDS 20000

typedef struct ping_pong {
    zc_parker parker[2];
    unsigned turns; /* plain: each thread writes it only on its turn */
    unsigned bad;   /* turns a thread found out of step, written by thread 1 only */
} ping_pong;

static void *pong_main(void *arg) {
    ping_pong *pp = arg;
    for (unsigned i = 0; i < ROUNDS; i++) {
        zc_parker_park(&pp->parker[1]);
        if (pp->turns != 2 * i + 1) pp->bad++;
        pp->turns++;
        wake(&pp->parker[0]);
    }
    return NULL;
}

static void test_ping_pong_between_two_threads_loses_no_wake(void **unused) {
    (void)unused;
    ping_pong pp = {.turns = 0, .bad = 0};
    zc_parker_init(&pp.parker[0]);
    zc_parker_init(&pp.parker[1]);
    pthread_t pong;
    assert_int_equal(pthread_create(&pong, NULL, pong_main, &pp), 0);
    for (unsigned i = 0; i < ROUNDS; i++) {
        assert_int_equal(pp.turns, 2 * i);
        pp.turns++;
        wake(&pp.parker[1]);
        zc_parker_park(&pp.parker[0]);
    }
    pthread_join(pong, NULL);
    assert_int_equal(pp.turns, 2 * ROUNDS);
    assert_int_equal(pp.bad, 0);
    zc_parker_destroy(&pp.parker[0]);
    zc_parker_destroy(&pp.parker[1]);
}

static void test_null_parker_is_rejected_or_ignored(void **unused) {
    (void)unused;
    zc_parker_init(NULL);
    zc_parker_park(NULL);
    zc_parker_destroy(NULL);
    assert_int_equal(zc_parker_park_timeout(NULL, 0), ZC_EINVAL);
    assert_int_equal(zc_parker_park_timeout(NULL, UINT64_MAX), ZC_EINVAL);
    zc_waker w = zc_parker_waker(NULL);
    assert_null(w.wake); /* a poll given this waker says ZC_EINVAL */
    assert_null(w.ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wake_before_park_is_kept),
        cmocka_unit_test(test_several_wakes_before_a_park_count_as_one),
        cmocka_unit_test(test_park_timeout_zero_only_checks_for_the_permit),
        cmocka_unit_test(test_park_timeout_without_a_wake_times_out_after_at_least_the_timeout),
        cmocka_unit_test(test_a_wake_after_a_timeout_is_kept_for_the_next_park),
        cmocka_unit_test(test_wake_from_another_thread_releases_a_parked_thread),
        cmocka_unit_test(test_wake_from_another_thread_ends_a_timed_park_before_its_timeout),
        cmocka_unit_test(test_park_timeout_of_uint64_max_waits_for_a_wake),
        cmocka_unit_test(test_park_timeouts_too_long_for_a_32_bit_time_t_are_waited_out_asleep),
        cmocka_unit_test(test_park_timeouts_whose_deadline_passes_2_to_the_64_are_waited_out),
        cmocka_unit_test(test_ping_pong_between_two_threads_loses_no_wake),
        cmocka_unit_test(test_null_parker_is_rejected_or_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the sender-closed and receiver-closed futures (zchan/closed.h): they
 * pend while the other side lives, complete (one wake each) when it is gone or the
 * channel is closed, stay complete, never wake after cancel, and return from a completing
 * poll only once a wake still running has returned. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* nanosleep under -std=c11 */
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
#include <time.h>

#include <zchan/block.h>
#include <zchan/closed.h>
#include <zchan/mpmc.h>

#include "counting_waker.h"
#include "u64_channel.h"

typedef struct fixture {
    zc_sender *tx;
    zc_receiver *rx;
    counting_waker cw[2];
    zc_waker w[2];
} fixture;

/* cap 0: unbounded. */
static void fixture_init(fixture *f, size_t cap) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_status s = cap == 0 ? zc_unbounded(&cfg, &f->tx, &f->rx)
                           : zc_bounded(cap, &cfg, &f->tx, &f->rx);
    assert_int_equal(s, ZC_OK);
    for (int i = 0; i < 2; i++) {
        counting_waker_init(&f->cw[i]);
        f->w[i] = counting_waker_of(&f->cw[i]);
    }
}

static unsigned wakes(fixture *f, int i) { return counting_waker_count(&f->cw[i]); }

static void sender_closed_completes_when_the_last_receiver_is_dropped(size_t cap) {
    fixture f;
    fixture_init(&f, cap);
    zc_receiver *rx2 = zc_receiver_clone(f.rx);
    zc_sender_closed c;
    zc_sender_closed_init(&c, f.tx);
    assert_int_equal(zc_sender_closed_poll(&c, &f.w[0]), ZC_PENDING);
    send_u64(f.tx, 1); /* traffic wakes nothing here */
    expect_u64(rx2, 1);
    zc_receiver_drop(f.rx);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(zc_sender_closed_poll(&c, &f.w[0]), ZC_PENDING);
    zc_receiver_drop(rx2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_sender_closed_poll(&c, &f.w[0]), ZC_OK);
    assert_int_equal(zc_sender_closed_poll(&c, &f.w[0]), ZC_OK); /* stays complete */
    assert_int_equal(wakes(&f, 0), 1);
    zc_sender_drop(f.tx);
}

static void test_sender_closed_completes_when_the_last_receiver_is_dropped(void **state) {
    (void)state;
    sender_closed_completes_when_the_last_receiver_is_dropped(4);
}

static void test_sender_closed_on_unbounded_channel_completes_likewise(void **state) {
    (void)state;
    sender_closed_completes_when_the_last_receiver_is_dropped(0);
}

static void test_receiver_closed_completes_when_the_last_sender_is_dropped(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_sender *tx2 = zc_sender_clone(f.tx);
    zc_receiver_closed c;
    zc_receiver_closed_init(&c, f.rx);
    assert_int_equal(zc_receiver_closed_poll(&c, &f.w[0]), ZC_PENDING);
    send_u64(f.tx, 7);
    zc_sender_drop(f.tx);
    assert_int_equal(wakes(&f, 0), 0);
    zc_sender_drop(tx2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_receiver_closed_poll(&c, &f.w[0]), ZC_OK);
    expect_u64(f.rx, 7); /* what was sent is still there */
    expect_recv_status(f.rx, ZC_CLOSED);
    zc_receiver_drop(f.rx);
}

static void test_close_by_any_handle_completes_every_waiting_future_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    zc_sender_closed sc;
    zc_receiver_closed rc;
    zc_sender_closed_init(&sc, f.tx);
    zc_receiver_closed_init(&rc, f.rx);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_receiver_closed_poll(&rc, &f.w[1]), ZC_PENDING);
    assert_true(zc_receiver_close(f.rx));
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_OK);
    assert_int_equal(zc_receiver_closed_poll(&rc, &f.w[1]), ZC_OK);
    assert_false(zc_sender_close(f.tx));
    assert_int_equal(wakes(&f, 0), 1);
    zc_sender_drop(f.tx);
    zc_receiver_drop(f.rx);
}

static void test_future_on_a_closed_channel_completes_at_once_without_waking(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    zc_sender_close(f.tx);
    zc_sender_closed sc;
    zc_receiver_closed rc;
    zc_sender_closed_init(&sc, f.tx);
    zc_receiver_closed_init(&rc, f.rx);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_OK);
    assert_int_equal(zc_receiver_closed_poll(&rc, &f.w[1]), ZC_OK);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 0);
    zc_sender_drop(f.tx);
    zc_receiver_drop(f.rx);
}

static void test_cancelled_future_is_not_woken_by_the_close(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    zc_sender_closed sc;
    zc_receiver_closed rc;
    zc_sender_closed_init(&sc, f.tx);
    zc_receiver_closed_init(&rc, f.rx);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_receiver_closed_poll(&rc, &f.w[1]), ZC_PENDING);
    zc_sender_closed_cancel(&sc);
    zc_receiver_closed_cancel(&rc);
    zc_sender_close(f.tx);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 0);
    /* Polled again after the cancel, it starts over and sees the close. */
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_OK);
    zc_sender_drop(f.tx);
    zc_receiver_drop(f.rx);
}

static void test_bad_arguments_are_einval_and_register_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    zc_sender_closed sc;
    zc_receiver_closed rc;
    zc_waker no_wake = {NULL, NULL};
    zc_sender_closed_init(&sc, NULL);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_EINVAL);
    zc_receiver_closed_init(&rc, NULL);
    assert_int_equal(zc_receiver_closed_poll(&rc, &f.w[0]), ZC_EINVAL);
    zc_sender_closed_init(&sc, f.tx);
    assert_int_equal(zc_sender_closed_poll(&sc, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_sender_closed_poll(&sc, &no_wake), ZC_EINVAL); /* deregisters */
    zc_receiver_closed_init(&rc, f.rx);
    assert_int_equal(zc_receiver_closed_poll(&rc, NULL), ZC_EINVAL);
    assert_int_equal(zc_sender_closed_poll(NULL, &f.w[0]), ZC_EINVAL);
    assert_int_equal(zc_receiver_closed_poll(NULL, &f.w[0]), ZC_EINVAL);
    zc_sender_closed_init(NULL, f.tx);
    zc_sender_closed_cancel(NULL);
    zc_receiver_closed_init(NULL, f.rx);
    zc_receiver_closed_cancel(NULL);
    zc_sender_close(f.tx);
    assert_int_equal(wakes(&f, 0), 0);
    zc_sender_drop(f.tx);
    zc_receiver_drop(f.rx);
}

/* A thread parks on a sender-closed future while the main thread drops the receiver. */
static void *wait_for_no_receiver(void *arg) {
    zc_sender *tx = arg;
    zc_parker p;
    zc_parker_init(&p);
    zc_waker w = zc_parker_waker(&p);
    zc_sender_closed c;
    zc_sender_closed_init(&c, tx);
    while (zc_sender_closed_poll(&c, &w) == ZC_PENDING) zc_parker_park(&p);
    zc_parker_destroy(&p);
    /* Sends fail from now on. */
    uint64_t v = 1;
    assert_int_equal(zc_try_send(tx, &v), ZC_CLOSED);
    zc_sender_drop(tx);
    return NULL;
}

static void test_parked_thread_learns_that_no_receiver_is_left(void **state) {
    (void)state;
    for (int round = 0; round < 200; round++) {
        fixture f;
        fixture_init(&f, 1);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, wait_for_no_receiver, f.tx), 0);
        zc_receiver_drop(f.rx);
        assert_int_equal(pthread_join(t, NULL), 0);
    }
}

/* Waker rule 3 for these futures: once a poll returns ZC_OK, no call of the waker is
 * still running. A thread drops the last receiver; the close calls the waiting future's
 * wake, which takes 50 ms; the main thread polls the future meanwhile: the poll must not
 * return before that wake has (it waits for it while taking its node off the list).
 * Without that step, the poll returned at once with the wake still running on its
 * context, which the task could have freed (a mutation of closed.c no test caught). */
/* 0: not called, 1: running, 2: returned. seq_cst (the plain atomic_load/store): the
 * store of 2 in the waking thread and the main thread's load after its poll are the
 * pair the test checks; the library's [W1]/[W2] make the poll wait for that store. */
static atomic_int slow_wake_stage;

static void slow_wake(void *ctx) {
    (void)ctx;
    atomic_store(&slow_wake_stage, 1);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    atomic_store(&slow_wake_stage, 2);
}

static void *drop_receiver(void *rx) {
    zc_receiver_drop(rx);
    return NULL;
}

static void test_poll_that_completes_waits_for_a_wake_still_running(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    atomic_store(&slow_wake_stage, 0);
    zc_sender_closed c;
    zc_sender_closed_init(&c, f.tx);
    zc_waker slow = {slow_wake, NULL};
    assert_int_equal(zc_sender_closed_poll(&c, &slow), ZC_PENDING);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, drop_receiver, f.rx), 0);
    while (atomic_load(&slow_wake_stage) == 0) sched_yield();
    assert_int_equal(zc_sender_closed_poll(&c, &f.w[0]), ZC_OK);
    assert_int_equal(atomic_load(&slow_wake_stage), 2);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    zc_sender_drop(f.tx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sender_closed_completes_when_the_last_receiver_is_dropped),
        cmocka_unit_test(test_sender_closed_on_unbounded_channel_completes_likewise),
        cmocka_unit_test(test_receiver_closed_completes_when_the_last_sender_is_dropped),
        cmocka_unit_test(test_close_by_any_handle_completes_every_waiting_future_once),
        cmocka_unit_test(test_future_on_a_closed_channel_completes_at_once_without_waking),
        cmocka_unit_test(test_cancelled_future_is_not_woken_by_the_close),
        cmocka_unit_test(test_bad_arguments_are_einval_and_register_nothing),
        cmocka_unit_test(test_parked_thread_learns_that_no_receiver_is_left),
        cmocka_unit_test(test_poll_that_completes_waits_for_a_wake_still_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

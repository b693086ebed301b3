/* Unit tests of the batch operations (zchan/batch.h): exact counts, FIFO order, the ring
 * index wrapping inside a batch, ZC_ALL_OR_NOTHING, who is woken and how often (counting
 * wakers, manual polling on one thread), batches of 0, and the blocking, timed and
 * deadline forms. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* clock_gettime (mono_clock.h) under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/permit.h>
#include <zchan/mpmc.h>

#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */

#include "inline_sender.h"
#include "mono_clock.h"
#include "queue/ring_batch.h" /* the ring itself, for the counter wrap-around test */
#include "u64_fixture.h"

enum { WAITERS = FIXTURE_WAITERS, MAXB = 256 };

static void fill(uint64_t *v, size_t n, uint64_t first) {
    for (size_t i = 0; i < n; i++) v[i] = first + i;
}

/* try_recv_many(max) must take exactly want messages, first .. first + want - 1. */
static void expect_many(zc_receiver *rx, size_t max, size_t want, uint64_t first) {
    uint64_t out[MAXB];
    size_t got = 12345;
    assert_true(max <= MAXB);
    assert_int_equal(zc_try_recv_many(rx, out, max, &got), ZC_OK);
    assert_int_equal(got, want);
    for (size_t i = 0; i < want; i++) assert_int_equal(out[i], first + i);
}

/* try_send_many of first .. first + n - 1 must return want_status with want_sent sent. */
static void send_many(zc_sender *tx, size_t n, uint64_t first, unsigned flags,
                      zc_status want_status, size_t want_sent) {
    uint64_t v[MAXB];
    size_t sent = 12345;
    assert_true(n <= MAXB);
    fill(v, n, first);
    assert_int_equal(zc_try_send_many(tx, v, n, &sent, flags), want_status);
    assert_int_equal(sent, want_sent);
}

/* ---- try forms ---------------------------------------------------------------------- */

static void test_send_many_that_fits_sends_all_and_recv_many_takes_them_in_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 16);
    send_many(f.tx, 10, 100, 0, ZC_OK, 10);
    assert_int_equal(channel_len(&f), 10);
    expect_many(f.rx, 16, 10, 100);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_send_many_past_capacity_sends_what_fits_and_returns_full(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_u64(f.tx, 1);
    send_many(f.tx, 6, 2, 0, ZC_FULL, 3);
    send_many(f.tx, 2, 9, 0, ZC_FULL, 0);
    for (uint64_t v = 1; v <= 4; v++) expect_u64(f.rx, v);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* A full channel of capacity 1 (message 1) with batch b of two (waker 0) and single send
 * s (waker 1) waiting behind it, in that order; then message 1 received, which wakes b. */
static void pend_batch_then_send(fixture *f, zc_send_many *b, const uint64_t *two, zc_send *s,
                                 const uint64_t *m) {
    send_u64(f->tx, 1);
    zc_send_many_init(b, f->tx, two, 2, 0);
    zc_send_init(s, f->tx, m);
    assert_int_equal(zc_send_many_poll(b, &f->w[0]), ZC_PENDING);
    assert_int_equal(zc_send_poll(s, &f->w[1]), ZC_PENDING);
    expect_u64(f->rx, 1);
    assert_int_equal(wakes(f, 0), 1);
}

/* batch.h: a batch future that sent part of its messages waits for the rest behind the
 * senders already waiting, as a new send would. */
static void test_send_many_future_that_sent_part_waits_behind_earlier_senders(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    uint64_t two[2] = {10, 11}, m = 20;
    zc_send_many b;
    zc_send s;
    pend_batch_then_send(&f, &b, two, &s, &m); /* one slot: the batch, registered first */
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(zc_send_many_poll(&b, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_sent(&b), 1);
    expect_u64(f.rx, 10); /* the next slot: the single send, now first in line */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_OK);
    expect_u64(f.rx, 20);
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_many_poll(&b, &f.w[0]), ZC_OK);
    expect_u64(f.rx, 11);
    fixture_done(&f);
}

static void test_recv_many_takes_at_most_max_then_the_rest(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 8);
    send_many(f.tx, 5, 1, 0, ZC_OK, 5);
    expect_many(f.rx, 3, 3, 1);
    expect_many(f.rx, 3, 2, 4);
    fixture_done(&f);
}

static void test_recv_many_on_empty_channel_returns_empty_and_writes_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t out[2] = {7, 7};
    size_t got = 99;
    assert_int_equal(zc_try_recv_many(f.rx, out, 2, &got), ZC_EMPTY);
    assert_int_equal(got, 0);
    assert_int_equal(out[0], 7);
    fixture_done(&f);
}

static void test_all_or_nothing_that_does_not_fit_sends_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_many(f.tx, 2, 1, 0, ZC_OK, 2);
    send_many(f.tx, 3, 3, ZC_ALL_OR_NOTHING, ZC_FULL, 0);
    assert_int_equal(channel_len(&f), 2);
    send_many(f.tx, 2, 3, ZC_ALL_OR_NOTHING, ZC_OK, 2);
    expect_many(f.rx, 8, 4, 1);
    fixture_done(&f);
}

static void test_all_or_nothing_larger_than_capacity_is_einval(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_many(f.tx, 5, 1, ZC_ALL_OR_NOTHING, ZC_EINVAL, 0);
    send_many(f.tx, 4, 1, ZC_ALL_OR_NOTHING, ZC_OK, 4);
    fixture_done(&f);
}

static void test_bad_arguments_are_einval(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t v[2] = {1, 2};
    size_t n = 9;
    assert_int_equal(zc_try_send_many(NULL, v, 2, &n, 0), ZC_EINVAL);
    assert_int_equal(n, 0);
    assert_int_equal(zc_try_send_many(f.tx, NULL, 2, &n, 0), ZC_EINVAL);
    assert_int_equal(zc_try_send_many(f.tx, v, 2, &n, 2u), ZC_EINVAL);
    assert_int_equal(zc_try_recv_many(NULL, v, 2, &n), ZC_EINVAL);
    assert_int_equal(zc_try_recv_many(f.rx, NULL, 2, &n), ZC_EINVAL);
    assert_int_equal(zc_try_recv_many(f.rx, NULL, 0, NULL), ZC_EINVAL); /* got NULL */
    assert_int_equal(zc_try_recv_many(f.rx, v, 2, NULL), ZC_EINVAL);
    assert_int_equal(channel_len(&f), 0);
    /* sent may be NULL. */
    assert_int_equal(zc_try_send_many(f.tx, v, 2, NULL, 0), ZC_OK);
    assert_int_equal(channel_len(&f), 2);
    fixture_done(&f);
}

static void test_closed_channel_sends_nothing_and_drains_then_closed(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_many(f.tx, 3, 1, 0, ZC_OK, 3);
    zc_sender_close(f.tx);
    send_many(f.tx, 2, 10, 0, ZC_CLOSED, 0);
    send_many(f.tx, 1, 10, ZC_ALL_OR_NOTHING, ZC_CLOSED, 0);
    expect_many(f.rx, 2, 2, 1);
    expect_many(f.rx, 2, 1, 3);
    uint64_t out[2];
    size_t got = 5;
    assert_int_equal(zc_try_recv_many(f.rx, out, 2, &got), ZC_CLOSED);
    assert_int_equal(got, 0);
    fixture_done(&f);
}

/* Capacity 3, batches of 2: the index runs 0,1 | 2,0 | 1,2 | ..., so every third batch
 * wraps from the last slot to the first inside one claim, and the laps advance. */
static void test_batches_of_two_wrap_around_a_ring_of_three(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 3);
    uint64_t next_sent = 1, next_recv = 1;
    for (int round = 0; round < 60; round++) {
        send_many(f.tx, 2, next_sent, ZC_ALL_OR_NOTHING, ZC_OK, 2);
        next_sent += 2;
        expect_many(f.rx, 2, 2, next_recv);
        next_recv += 2;
    }
    /* Staggered by one message held: batches start at every index. */
    send_u64(f.tx, next_sent++);
    for (int round = 0; round < 60; round++) {
        send_many(f.tx, 2, next_sent, ZC_ALL_OR_NOTHING, ZC_OK, 2);
        next_sent += 2;
        send_many(f.tx, 1, next_sent, ZC_ALL_OR_NOTHING, ZC_FULL, 0);
        expect_many(f.rx, 2, 2, next_recv);
        next_recv += 2;
    }
    expect_many(f.rx, 3, 1, next_recv);
    assert_int_equal(next_recv + 1, next_sent);
    fixture_done(&f);
}

static void test_single_and_batch_operations_keep_one_fifo_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 5);
    uint64_t next_sent = 1, next_recv = 1;
    for (int round = 0; round < 40; round++) {
        send_u64(f.tx, next_sent++);
        send_many(f.tx, 3, next_sent, 0, ZC_OK, 3);
        next_sent += 3;
        expect_u64(f.rx, next_recv++);
        expect_many(f.rx, 2, 2, next_recv);
        next_recv += 2;
        expect_u64(f.rx, next_recv++);
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_unbounded_batches_cross_segments_in_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    send_many(f.tx, 200, 1, ZC_ALL_OR_NOTHING, ZC_OK, 200);
    assert_int_equal(channel_len(&f), 200);
    expect_many(f.rx, 64, 64, 1);
    expect_many(f.rx, 200, 136, 65);
    expect_recv_status(f.rx, ZC_EMPTY);
    zc_receiver_close(f.rx);
    send_many(f.tx, 3, 1, 0, ZC_CLOSED, 0);
    fixture_done(&f);
}

/* The ring started two laps before its position counters overflow (set by hand, as
 * ZCHAN_TEST_HOOKS builds do for whole channels): batch claims must cross the wrap of
 * size_t, inside a batch too. */
static void test_ring_batches_cross_the_wrap_of_the_position_counters(void **state) {
    (void)state;
    zc__ring r;
    size_t bytes = 0;
    assert_int_equal(zc__ring_slots_size(3, sizeof(uint64_t), &bytes), ZC_OK);
    void *slots = malloc(bytes);
    assert_non_null(slots);
    zc__ring_init(&r, 3, sizeof(uint64_t), slots);
    size_t start = (SIZE_MAX / r.one_lap - 1) * r.one_lap;
    for (size_t i = 0; i < r.cap; i++) atomic_store(zc__ring_stamp(&r, i), start + i);
    atomic_store(ZC__RING_HEAD(&r), start);
    atomic_store(ZC__RING_TAIL(&r), start);
    uint64_t v[3], out[3], next_sent = 1, next_recv = 1;
    size_t k, freed;
    for (int round = 0; round < 10; round++) {
        fill(v, 3, next_sent);
        assert_int_equal(zc__ring_push_many(&r, v, 3, true, &k, &freed), ZC_OK);
        assert_int_equal(k, 3);
        next_sent += 3;
        assert_int_equal(zc__ring_pop_many(&r, out, 2, &k, &freed), ZC_OK);
        assert_int_equal(k, 2);
        for (size_t i = 0; i < k; i++) assert_int_equal(out[i], next_recv++);
        fill(v, 2, next_sent);
        assert_int_equal(zc__ring_push_many(&r, v, 2, false, &k, &freed), ZC_OK);
        assert_int_equal(k, 2);
        next_sent += 2;
        assert_int_equal(zc__ring_push_many(&r, v, 1, true, &k, &freed), ZC_FULL);
        assert_int_equal(freed, 0); /* no reservation, no hole */
        assert_int_equal(zc__ring_pop_many(&r, out, 3, &k, &freed), ZC_OK);
        assert_int_equal(k, 3);
        for (size_t i = 0; i < k; i++) assert_int_equal(out[i], next_recv++);
    }
    assert_int_equal(zc__ring_pop_many(&r, out, 3, &k, &freed), ZC_EMPTY);
    assert_true(atomic_load(ZC__RING_HEAD(&r)) < start); /* it wrapped */
    free(slots);
}

/* ---- waking ------------------------------------------------------------------------- */

static void test_send_many_of_two_wakes_exactly_the_two_oldest_receivers(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 8);
    zc_recv r[WAITERS];
    uint64_t out;
    for (int i = 0; i < WAITERS; i++) {
        zc_recv_init(&r[i], f.rx);
        assert_int_equal(zc_recv_poll(&r[i], &f.w[i], &out), ZC_PENDING);
    }
    send_many(f.tx, 2, 1, 0, ZC_OK, 2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(wakes(&f, 2), 0);
    assert_int_equal(zc_recv_poll(&r[0], &f.w[0], &out), ZC_OK);
    assert_int_equal(out, 1);
    assert_int_equal(zc_recv_poll(&r[1], &f.w[1], &out), ZC_OK);
    assert_int_equal(out, 2);
    zc_recv_cancel(&r[2]);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_recv_many_wakes_one_pending_sender_per_message_taken(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 3);
    send_many(f.tx, 3, 1, 0, ZC_OK, 3);
    zc_send s[WAITERS];
    uint64_t v[WAITERS] = {4, 5, 6};
    for (int i = 0; i < WAITERS; i++) {
        zc_send_init(&s[i], f.tx, &v[i]);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_PENDING);
    }
    expect_many(f.rx, 2, 2, 1);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1) + wakes(&f, 2), 2);
    assert_int_equal(wakes(&f, 2), 0);
    for (int i = 0; i < 2; i++) assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_OK);
    expect_many(f.rx, 3, 3, 3);
    assert_int_equal(wakes(&f, 2), 1);
    assert_int_equal(zc_send_poll(&s[2], &f.w[2]), ZC_OK);
    expect_u64(f.rx, 6);
    fixture_done(&f);
}

static void test_recv_many_future_waits_for_one_then_takes_up_to_max(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 8);
    zc_recv_many r;
    uint64_t out[4];
    size_t got = 7;
    zc_recv_many_init(&r, f.rx);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 4, &got), ZC_PENDING);
    assert_int_equal(got, 0);
    send_many(f.tx, 6, 1, 0, ZC_OK, 6);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 4, &got), ZC_OK);
    assert_int_equal(got, 4);
    for (size_t i = 0; i < 4; i++) assert_int_equal(out[i], 1 + i);
    /* A stream: polled again, it takes the rest; then it pends again. */
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 4, &got), ZC_OK);
    assert_int_equal(got, 2);
    assert_int_equal(out[1], 6);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 4, &got), ZC_PENDING);
    zc_sender_close(f.tx);
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 4, &got), ZC_CLOSED);
    assert_int_equal(got, 0);
    fixture_done(&f);
}

static void test_send_many_future_sends_what_fits_on_each_wake(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t v[10];
    fill(v, 10, 1);
    zc_send_many s;
    zc_send_many_init(&s, f.tx, v, 10, 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_sent(&s), 4);
    expect_many(f.rx, 3, 3, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_sent(&s), 7);
    expect_many(f.rx, 4, 4, 4);
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_many_sent(&s), 10);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_OK); /* completed stays completed */
    expect_many(f.rx, 4, 3, 8);
    assert_int_equal(wakes(&f, 0), 2);
    fixture_done(&f);
}

static void test_all_or_nothing_future_waits_until_n_slots_are_free_at_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_many(f.tx, 3, 1, 0, ZC_OK, 3);
    uint64_t v[3] = {4, 5, 6};
    zc_send_many s;
    zc_send_many_init(&s, f.tx, v, 3, ZC_ALL_OR_NOTHING);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_sent(&s), 0);
    expect_u64(f.rx, 1); /* room 2 */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_sent(&s), 0);
    assert_int_equal(channel_len(&f), 2);
    expect_u64(f.rx, 2); /* room 3 */
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_OK);
    expect_many(f.rx, 8, 4, 3);
    fixture_done(&f);
}

static void test_all_or_nothing_future_with_too_little_room_passes_the_wake_on(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    send_many(f.tx, 2, 1, 0, ZC_OK, 2);
    uint64_t v[2] = {10, 11}, one = 12;
    zc_send_many big;
    zc_send small;
    zc_send_many_init(&big, f.tx, v, 2, ZC_ALL_OR_NOTHING);
    zc_send_init(&small, f.tx, &one);
    assert_int_equal(zc_send_many_poll(&big, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_poll(&small, &f.w[1]), ZC_PENDING);
    expect_u64(f.rx, 1); /* one slot: wakes the big send, which cannot use it */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(zc_send_many_poll(&big, &f.w[0]), ZC_PENDING);
    assert_int_equal(wakes(&f, 1), 1); /* passed on to the small send behind it */
    assert_int_equal(zc_send_poll(&small, &f.w[1]), ZC_OK);
    expect_u64(f.rx, 2);
    expect_u64(f.rx, 12); /* two slots free: the big send (now at the back) is woken */
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_many_poll(&big, &f.w[0]), ZC_OK);
    expect_many(f.rx, 2, 2, 10);
    fixture_done(&f);
}

static void test_two_all_or_nothing_futures_do_not_wake_each_other_forever(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    send_many(f.tx, 2, 1, 0, ZC_OK, 2);
    uint64_t va[2] = {10, 11}, vb[2] = {20, 21};
    zc_send_many a, b;
    zc_send_many_init(&a, f.tx, va, 2, ZC_ALL_OR_NOTHING);
    zc_send_many_init(&b, f.tx, vb, 2, ZC_ALL_OR_NOTHING);
    assert_int_equal(zc_send_many_poll(&a, &f.w[0]), ZC_PENDING);
    assert_int_equal(zc_send_many_poll(&b, &f.w[1]), ZC_PENDING);
    expect_u64(f.rx, 1); /* one slot: a is woken */
    assert_int_equal(zc_send_many_poll(&a, &f.w[0]), ZC_PENDING); /* passes to b */
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_many_poll(&b, &f.w[1]), ZC_PENDING); /* passes to a */
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_many_poll(&a, &f.w[0]), ZC_PENDING); /* passed already: stops */
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(wakes(&f, 1), 1);
    expect_u64(f.rx, 2); /* two slots: a, which kept its turn, is woken and fits */
    assert_int_equal(wakes(&f, 0), 3);
    assert_int_equal(zc_send_many_poll(&a, &f.w[0]), ZC_OK);
    expect_many(f.rx, 2, 2, 10);
    assert_int_equal(wakes(&f, 1), 2);
    assert_int_equal(zc_send_many_poll(&b, &f.w[1]), ZC_OK);
    expect_many(f.rx, 2, 2, 20);
    fixture_done(&f);
}

static void test_woken_send_many_cancelled_passes_the_wake_on(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    uint64_t v[2] = {2, 3}, one = 4;
    zc_send_many s;
    zc_send single;
    pend_batch_then_send(&f, &s, v, &single, &one);
    zc_send_many_cancel(&s);
    assert_int_equal(zc_send_many_sent(&s), 0);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&single, &f.w[1]), ZC_OK);
    expect_u64(f.rx, 4);
    fixture_done(&f);
}

static void test_send_many_future_on_close_returns_closed_with_the_count_sent(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    uint64_t v[5];
    fill(v, 5, 1);
    zc_send_many s;
    zc_send_many_init(&s, f.tx, v, 5, 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_PENDING);
    zc_receiver_close(f.rx);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_CLOSED);
    assert_int_equal(zc_send_many_sent(&s), 2);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_CLOSED);
    expect_many(f.rx, 5, 2, 1);
    fixture_done(&f);
}

static void test_future_polls_with_bad_arguments_are_einval(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    uint64_t v[3] = {1, 2, 3}, out[2];
    size_t got;
    zc_send_many s;
    zc_recv_many r;
    zc_send_many_init(&s, f.tx, v, 3, ZC_ALL_OR_NOTHING); /* 3 > cap */
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_EINVAL);
    zc_send_many_init(&s, f.tx, NULL, 1, 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_EINVAL);
    zc_send_many_init(&s, f.tx, NULL, 0, 2u); /* an unknown flag, even for a batch of 0 */
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_EINVAL);
    zc_send_many_init(&s, NULL, v, 1, 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_EINVAL);
    zc_send_many_init(&s, f.tx, v, 1, 0);
    assert_int_equal(zc_send_many_poll(&s, NULL), ZC_EINVAL);
    zc_recv_many_init(&r, f.rx);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 0, NULL), ZC_EINVAL);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], out, 2, NULL), ZC_EINVAL);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[0], NULL, 2, &got), ZC_EINVAL);
    assert_int_equal(channel_len(&f), 0);
    assert_int_equal(wakes(&f, 0), 0);
    zc_send_many_init(NULL, f.tx, v, 1, 0);
    zc_send_many_cancel(NULL);
    zc_recv_many_init(NULL, f.rx);
    zc_recv_many_cancel(NULL);
    assert_int_equal(zc_send_many_sent(NULL), 0);
    fixture_done(&f);
}

/* ---- blocking forms ----------------------------------------------------------------- */

enum { FLOW = 5000 };

typedef struct flow {
    zc_sender *tx;
    unsigned flags;
} flow;

/* Sends 1..FLOW in batches of 7 (the last one shorter), then drops its sender. */
static void *batch_sender(void *arg) {
    flow *fl = arg;
    uint64_t v[7];
    for (uint64_t first = 1; first <= FLOW; first += 7) {
        size_t n = FLOW - first + 1 < 7 ? FLOW - first + 1 : 7, sent = 0;
        fill(v, n, first);
        assert_int_equal(zc_send_many_blocking(fl->tx, v, n, &sent, fl->flags), ZC_OK);
        assert_int_equal(sent, n);
    }
    zc_sender_drop(fl->tx);
    return NULL;
}

static void blocking_flow(unsigned flags) {
    fixture f;
    fixture_init(&f, 8);
    flow fl = {f.tx, flags};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, batch_sender, &fl), 0);
    uint64_t out[5], next = 1;
    size_t got;
    zc_status s;
    while ((s = zc_recv_many_blocking(f.rx, out, 5, &got)) == ZC_OK) {
        assert_true(got >= 1 && got <= 5);
        for (size_t i = 0; i < got; i++) assert_int_equal(out[i], next++);
    }
    assert_int_equal(s, ZC_CLOSED);
    assert_int_equal(next, FLOW + 1);
    assert_int_equal(pthread_join(t, NULL), 0);
    zc_receiver_drop(f.rx);
}

static void test_blocking_batches_deliver_everything_in_order(void **state) {
    (void)state;
    blocking_flow(0);
}

static void test_blocking_all_or_nothing_batches_deliver_everything_in_order(void **state) {
    (void)state;
    blocking_flow(ZC_ALL_OR_NOTHING);
}

static void test_timeouts_report_timedout_with_what_was_done(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 3);
    uint64_t v[5], out[2];
    size_t n = 9;
    fill(v, 5, 1);
    assert_int_equal(zc_recv_many_timeout(f.rx, out, 2, &n, 0), ZC_TIMEDOUT);
    assert_int_equal(n, 0);
    assert_int_equal(zc_recv_many_timeout(f.rx, out, 2, &n, 1000000), ZC_TIMEDOUT);
    assert_int_equal(zc_send_many_timeout(f.tx, v, 5, &n, 0, 1000000), ZC_TIMEDOUT);
    assert_int_equal(n, 3);
    assert_int_equal(zc_send_many_timeout(f.tx, v + 3, 2, &n, ZC_ALL_OR_NOTHING, 0),
                     ZC_TIMEDOUT);
    assert_int_equal(n, 0);
    assert_int_equal(zc_recv_many_timeout(f.rx, out, 2, &n, 0), ZC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(zc_send_many_timeout(f.tx, v + 3, 2, &n, ZC_ALL_OR_NOTHING, 0), ZC_OK);
    assert_int_equal(n, 2);
    expect_many(f.rx, 3, 3, 3);
    fixture_done(&f);
}

/* ---- a batch of 0 ------------------------------------------------------------------ */

static void test_batches_of_zero_return_ok_having_moved_nothing_in_every_form(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    uint64_t v[2] = {1, 2}, out[2] = {7, 7};
    size_t n = 9;
    /* try */
    assert_int_equal(zc_try_send_many(f.tx, v, 0, &n, 0), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_try_send_many(f.tx, NULL, 0, &n, ZC_ALL_OR_NOTHING), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_try_recv_many(f.rx, out, 0, &n), ZC_OK); /* empty channel */
    assert_int_equal(n, 0);
    /* blocking and timed: no wait, even on an empty channel */
    n = 9;
    assert_int_equal(zc_send_many_blocking(f.tx, v, 0, &n, 0), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_recv_many_blocking(f.rx, NULL, 0, &n), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_send_many_timeout(f.tx, v, 0, &n, 0, 0), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_recv_many_timeout(f.rx, out, 0, &n, UINT64_MAX), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_send_many_until(f.tx, v, 0, &n, 0, 0), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_recv_many_until(f.rx, out, 0, &n, 0), ZC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(channel_len(&f), 0);
    /* with the channel full, and with messages to take */
    send_many(f.tx, 2, 1, 0, ZC_OK, 2);
    n = 9;
    assert_int_equal(zc_send_many_timeout(f.tx, v, 0, &n, ZC_ALL_OR_NOTHING, 0), ZC_OK);
    assert_int_equal(n, 0);
    n = 9;
    assert_int_equal(zc_try_recv_many(f.rx, out, 0, &n), ZC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(out[0], 7); /* nothing written */
    assert_int_equal(channel_len(&f), 2);
    /* on a closed channel too */
    zc_sender_close(f.tx);
    n = 9;
    assert_int_equal(zc_try_send_many(f.tx, v, 0, &n, 0), ZC_OK);
    assert_int_equal(n, 0);
    expect_many(f.rx, 2, 2, 1);
    n = 9;
    assert_int_equal(zc_try_recv_many(f.rx, out, 0, &n), ZC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(wakes(&f, 0), 0);
    fixture_done(&f);
}

static void test_batch_futures_of_zero_complete_at_their_first_poll(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    uint64_t v = 1, out[2];
    send_many(f.tx, 1, 5, 0, ZC_OK, 1); /* full */
    zc_send_many s;
    zc_send_many_init(&s, f.tx, NULL, 0, 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_many_sent(&s), 0);
    assert_int_equal(zc_send_many_poll(&s, &f.w[0]), ZC_OK); /* completed stays completed */
    /* A pending receive polled with max 0 completes, and is off the list: the message
     * sent next wakes nobody and stays for the next receive. */
    expect_many(f.rx, 1, 1, 5);
    zc_recv_many r;
    zc_recv_many_init(&r, f.rx);
    size_t got = 9;
    assert_int_equal(zc_recv_many_poll(&r, &f.w[1], out, 2, &got), ZC_PENDING);
    assert_int_equal(zc_recv_many_poll(&r, &f.w[1], out, 0, &got), ZC_OK);
    assert_int_equal(got, 0);
    assert_int_equal(zc_try_send(f.tx, &v), ZC_OK);
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(wakes(&f, 0), 0);
    expect_many(f.rx, 2, 1, 1);
    fixture_done(&f);
}

/* ---- absolute deadlines ------------------------------------------------------------ */

static void test_until_forms_make_one_attempt_at_a_past_deadline(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 3);
    uint64_t v[5], out[2];
    size_t n = 9;
    fill(v, 5, 1);
    assert_int_equal(zc_recv_many_until(f.rx, out, 2, &n, 0), ZC_TIMEDOUT);
    assert_int_equal(n, 0);
    assert_int_equal(zc_send_many_until(f.tx, v, 5, &n, 0, 1), ZC_TIMEDOUT);
    assert_int_equal(n, 3); /* what fitted at the one attempt */
    assert_int_equal(zc_send_many_until(f.tx, v + 3, 2, &n, ZC_ALL_OR_NOTHING, 1),
                     ZC_TIMEDOUT);
    assert_int_equal(n, 0);
    assert_int_equal(zc_recv_many_until(f.rx, out, 2, &n, 1), ZC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 2);
    assert_int_equal(zc_send_many_until(f.tx, v + 3, 2, &n, ZC_ALL_OR_NOTHING, 1), ZC_OK);
    assert_int_equal(n, 2);
    expect_many(f.rx, 3, 3, 3);
    fixture_done(&f);
}

static void test_until_forms_time_out_at_a_near_deadline_and_wait_without_one(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    uint64_t v[2] = {1, 2}, out[2];
    size_t n = 9;
    uint64_t deadline = now_ns() + 20 * 1000000u;
    assert_int_equal(zc_recv_many_until(f.rx, out, 2, &n, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    deadline = now_ns() + 20 * 1000000u;
    assert_int_equal(zc_send_many_until(f.tx, v, 2, &n, 0, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    assert_int_equal(n, 1);
    /* No deadline: with a message there, at once. */
    assert_int_equal(zc_recv_many_until(f.rx, out, 2, &n, UINT64_MAX), ZC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(out[0], 1);
    assert_int_equal(zc_send_many_until(f.tx, v + 1, 1, &n, 0, UINT64_MAX), ZC_OK);
    expect_many(f.rx, 2, 1, 2);
    fixture_done(&f);
}

/* An all-or-nothing batch finds a released reservation (a hole) at the oldest place and
 * skips it, which frees its slot, then says ZC_FULL for want of more slots. It must wake
 * a sender for the slot it freed (waker rule 4). */
static void test_all_or_nothing_batch_that_skips_a_hole_wakes_a_sender_for_its_slot(
    void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(3, &cfg, &tx, &rx), ZC_OK);
    zc_permit p;
    send_u64(tx, 1);
    assert_int_equal(zc_try_reserve(tx, &p), ZC_OK);
    send_u64(tx, 2); /* full: [1, reserved, 2] */
    counting_waker c1, c2;
    counting_waker_init(&c1);
    counting_waker_init(&c2);
    zc_waker w1 = counting_waker_of(&c1), w2 = counting_waker_of(&c2);
    uint64_t m3 = 3, m4 = 4;
    zc_send s1, s2;
    zc_send_init(&s1, tx, &m3);
    zc_send_init(&s2, tx, &m4);
    assert_int_equal(zc_send_poll(&s1, &w1), ZC_PENDING);
    assert_int_equal(zc_send_poll(&s2, &w2), ZC_PENDING);
    assert_int_equal(zc_permit_release(&p), ZC_OK); /* a hole behind 1: keeps its slot */
    expect_u64(rx, 1);                              /* frees a slot: wakes s1 */
    assert_int_equal(counting_waker_count(&c1), 1);
    assert_int_equal(zc_send_poll(&s1, &w1), ZC_OK); /* full again: [hole, 2, 3] */
    uint64_t two[2] = {5, 6};
    size_t sent = 9;
    assert_int_equal(zc_try_send_many(tx, two, 2, &sent, ZC_ALL_OR_NOTHING), ZC_FULL);
    assert_int_equal(sent, 0);
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 2);                   /* the hole's slot is free now */
    assert_int_equal(counting_waker_count(&c2), 1); /* and s2 was woken for it */
    assert_int_equal(zc_send_poll(&s2, &w2), ZC_OK);
    expect_u64(rx, 2);
    expect_u64(rx, 3);
    expect_u64(rx, 4);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Under an inline executor (as test_future.c's twins): a batch receive polled again while
 * still registered takes a message, and the wake it owes a sender runs an inline sender
 * whose send wakes this very future inside its poll. */

typedef struct inline_batch_recv {
    zc_recv_many f;
    zc_waker w;
    uint64_t out; /* the task's one buffer */
    uint64_t got[4];
    int n, depth, max_depth;
} inline_batch_recv;

static void inline_batch_drain(inline_batch_recv *a) {
    if (++a->depth > a->max_depth) a->max_depth = a->depth;
    size_t got;
    while (zc_recv_many_poll(&a->f, &a->w, &a->out, 1, &got) == ZC_OK && a->n < 4)
        a->got[a->n++] = a->out;
    a->depth--;
}

static void inline_batch_wake(void *ctx) { inline_batch_drain(ctx); }

static void test_batch_receive_polled_again_while_registered_is_not_woken_inside_its_poll(
    void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    counting_waker lazy;
    counting_waker_init(&lazy);
    zc_waker lw = counting_waker_of(&lazy);
    uint64_t v;
    zc_recv r0;
    zc_recv_init(&r0, rx);
    assert_int_equal(zc_recv_poll(&r0, &lw, &v), ZC_PENDING);
    inline_batch_recv a = {.n = 0};
    zc_recv_many_init(&a.f, rx);
    a.w = (zc_waker){inline_batch_wake, &a};
    size_t got;
    assert_int_equal(zc_recv_many_poll(&a.f, &a.w, &a.out, 1, &got), ZC_PENDING);
    send_u64(tx, 0x11); /* wakes r0 (lazy); full */
    inline_sender sender;
    inline_sender_wait(&sender, tx, 0x22);

    inline_batch_drain(&a); /* the owner polls again, before any wake of a */
    assert_int_equal(a.max_depth, 1);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.got[0], 0x11);
    assert_int_equal(a.got[1], 0x22);
    zc_recv_cancel(&r0);
    zc_recv_many_cancel(&a.f);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* k sender tasks whose executor polls inside the wake, waiting on a full channel; one
 * receive of k messages frees k slots and wakes the k senders one after another from its
 * own frame: each woken sender completes inside its wake and wakes no one, so the wakes
 * are one deep, not one level per sender (a stack overflow for large k). */
enum { NEST = 200 };
static void test_recv_many_waking_many_inline_senders_does_not_nest_their_wakes(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(NEST, &cfg, &tx, &rx), ZC_OK);
    send_many(tx, NEST, 0, 0, ZC_OK, NEST);
    static inline_sender ts[NEST];
    for (int i = 0; i < NEST; i++) inline_sender_wait(&ts[i], tx, NEST + (uint64_t)i);
    inline_depth = inline_max_depth = 0;
    expect_many(rx, NEST, NEST, 0); /* frees every slot: every sender goes in */
    for (int i = 0; i < NEST; i++) assert_true(ts[i].done);
    assert_int_equal(inline_max_depth, 1);
    expect_many(rx, NEST, NEST, NEST); /* in the order they registered */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Rule 5 under an executor that polls inside the wake: 2k sender tasks wait on a full
 * bounded(k); one receive of k frees k slots and must wake the k oldest, once each, and
 * no one else: its first owed wake runs the first sender, whose pass-on chain may fill all
 * k slots before the receive makes its k - 1 other owed wakes, which must then not go to
 * senders that would find the channel full (2k - 1 wakes). */
enum { HERD_K = 10 };
static void test_recv_many_wakes_inline_senders_once_per_freed_slot(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(HERD_K, &cfg, &tx, &rx), ZC_OK);
    send_many(tx, HERD_K, 0, 0, ZC_OK, HERD_K);
    static inline_sender ts[2 * HERD_K];
    for (int i = 0; i < 2 * HERD_K; i++) inline_sender_wait(&ts[i], tx, HERD_K + (uint64_t)i);
    expect_many(rx, HERD_K, HERD_K, 0);
    for (int i = 0; i < HERD_K; i++) {
        assert_int_equal(ts[i].wakes, 1);
        assert_true(ts[i].done);
    }
    for (int i = HERD_K; i < 2 * HERD_K; i++) assert_int_equal(ts[i].wakes, 0);
    expect_many(rx, HERD_K, HERD_K, HERD_K); /* in the order they registered */
    for (int i = HERD_K; i < 2 * HERD_K; i++) {
        assert_int_equal(ts[i].wakes, 1);
        assert_true(ts[i].done);
    }
    expect_many(rx, HERD_K, HERD_K, 2 * HERD_K);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* The receivers' twin: 2k receive tasks polled inside their wakes wait on an empty
 * channel; one send of k makes k messages and must wake the k oldest, once each. */
typedef struct herd_receiver {
    zc_recv f;
    zc_waker w;
    uint64_t got;
    bool done;
    int wakes;
} herd_receiver;

static void herd_receiver_wake(void *ctx) {
    herd_receiver *t = ctx;
    t->wakes++;
    if (!t->done && zc_recv_poll(&t->f, &t->w, &t->got) != ZC_PENDING) t->done = true;
}

static void test_send_many_wakes_inline_receivers_once_per_message(void **state) {
    (void)state;
    for (int bounded = 0; bounded < 2; bounded++) {
        zc_config cfg = {sizeof(uint64_t), NULL, NULL};
        zc_sender *tx;
        zc_receiver *rx;
        assert_int_equal(bounded ? zc_bounded(HERD_K, &cfg, &tx, &rx) : zc_unbounded(&cfg, &tx, &rx),
                         ZC_OK);
        static herd_receiver ts[2 * HERD_K];
        for (int i = 0; i < 2 * HERD_K; i++) {
            ts[i] = (herd_receiver){.done = false};
            ts[i].w = (zc_waker){herd_receiver_wake, &ts[i]};
            zc_recv_init(&ts[i].f, rx);
            assert_int_equal(zc_recv_poll(&ts[i].f, &ts[i].w, &ts[i].got), ZC_PENDING);
        }
        send_many(tx, HERD_K, 0, 0, ZC_OK, HERD_K);
        for (int i = 0; i < HERD_K; i++) {
            assert_int_equal(ts[i].wakes, 1);
            assert_true(ts[i].done);
            assert_int_equal(ts[i].got, (uint64_t)i);
        }
        for (int i = HERD_K; i < 2 * HERD_K; i++) assert_int_equal(ts[i].wakes, 0);
        for (int i = HERD_K; i < 2 * HERD_K; i++) zc_recv_cancel(&ts[i].f);
        zc_sender_drop(tx);
        zc_receiver_drop(rx);
    }
}

/* A batch wakes what its single sends would, one waiter a message (waker rule 4),
 * whatever the waiters woken before and not polled yet: here two were woken for two
 * messages that a try_recv then took, so their polls will find nothing (or never come:
 * their executor may be stalled). A send of three wakes the next three. */
enum { STALE = 2, FRESH = 3 };
static void batch_wakes_past_stale_holders(size_t cap) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(cap ? zc_bounded(cap, &cfg, &tx, &rx) : zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    zc_recv r[STALE + FRESH];
    counting_waker cw[STALE + FRESH];
    zc_waker w[STALE + FRESH];
    for (int i = 0; i < STALE + FRESH; i++) {
        counting_waker_init(&cw[i]);
        w[i] = counting_waker_of(&cw[i]);
        zc_recv_init(&r[i], rx);
        expect_poll_pending(&r[i], &w[i]);
    }
    for (uint64_t v = 0; v < STALE; v++) send_u64(tx, v);
    for (uint64_t v = 0; v < STALE; v++) expect_u64(rx, v); /* taken from the woken */
    send_many(tx, FRESH, 10, 0, ZC_OK, FRESH);
    for (int i = 0; i < STALE + FRESH; i++) assert_int_equal(counting_waker_count(&cw[i]), 1);
    for (int i = STALE; i < STALE + FRESH; i++)
        expect_poll_u64(&r[i], &w[i], 10 + (uint64_t)(i - STALE));
    for (int i = 0; i < STALE; i++) expect_poll_pending(&r[i], &w[i]); /* found nothing */
    for (int i = 0; i < STALE; i++) zc_recv_cancel(&r[i]);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_send_many_wakes_past_stale_holders_bounded(void **state) {
    (void)state;
    batch_wakes_past_stale_holders(8);
}

static void test_send_many_wakes_past_stale_holders_unbounded(void **state) {
    (void)state;
    batch_wakes_past_stale_holders(0);
}

/* k all-or-nothing futures of 2 wait on a full channel under an executor that polls
 * inside the wake; a receive frees one slot, too little for any: each woken future
 * passes the wake-up on and registers at the back, until it comes round to one that has
 * passed at this head already. Those pass-ons go one after another, not one wake deeper
 * per future (k deep). */
typedef struct nest_aon {
    zc_send_many f;
    zc_waker w;
    uint64_t msgs[2];
    bool done;
} nest_aon;

static void nest_aon_wake(void *ctx) {
    nest_aon *t = ctx;
    if (++inline_depth > inline_max_depth) inline_max_depth = inline_depth;
    if (!t->done && zc_send_many_poll(&t->f, &t->w) != ZC_PENDING) t->done = true;
    inline_depth--;
}

static void test_all_or_nothing_futures_passing_on_inside_their_wakes_do_not_nest(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(4, &cfg, &tx, &rx), ZC_OK);
    send_many(tx, 4, 0, 0, ZC_OK, 4);
    static nest_aon ts[NEST];
    for (int i = 0; i < NEST; i++) {
        ts[i] = (nest_aon){.msgs = {100, 101}};
        ts[i].w = (zc_waker){nest_aon_wake, &ts[i]};
        zc_send_many_init(&ts[i].f, tx, ts[i].msgs, 2, ZC_ALL_OR_NOTHING);
        assert_int_equal(zc_send_many_poll(&ts[i].f, &ts[i].w), ZC_PENDING);
    }
    inline_depth = inline_max_depth = 0;
    expect_many(rx, 1, 1, 0); /* one slot: too little for every future */
    for (int i = 0; i < NEST; i++) assert_false(ts[i].done);
    assert_true(inline_max_depth <= 2);
    expect_many(rx, 1, 1, 1); /* two free now: the oldest still waiting goes in */
    int done = 0;
    for (int i = 0; i < NEST; i++) done += ts[i].done;
    assert_int_equal(done, 1);
    for (int i = 0; i < NEST; i++) zc_send_many_cancel(&ts[i].f);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_many_that_fits_sends_all_and_recv_many_takes_them_in_order),
        cmocka_unit_test(test_send_many_past_capacity_sends_what_fits_and_returns_full),
        cmocka_unit_test(test_send_many_future_that_sent_part_waits_behind_earlier_senders),
        cmocka_unit_test(test_recv_many_takes_at_most_max_then_the_rest),
        cmocka_unit_test(test_recv_many_on_empty_channel_returns_empty_and_writes_nothing),
        cmocka_unit_test(test_all_or_nothing_that_does_not_fit_sends_nothing),
        cmocka_unit_test(test_all_or_nothing_larger_than_capacity_is_einval),
        cmocka_unit_test(test_bad_arguments_are_einval),
        cmocka_unit_test(test_closed_channel_sends_nothing_and_drains_then_closed),
        cmocka_unit_test(test_batches_of_two_wrap_around_a_ring_of_three),
        cmocka_unit_test(test_single_and_batch_operations_keep_one_fifo_order),
        cmocka_unit_test(test_unbounded_batches_cross_segments_in_order),
        cmocka_unit_test(test_ring_batches_cross_the_wrap_of_the_position_counters),
        cmocka_unit_test(test_send_many_of_two_wakes_exactly_the_two_oldest_receivers),
        cmocka_unit_test(test_recv_many_wakes_one_pending_sender_per_message_taken),
        cmocka_unit_test(test_recv_many_future_waits_for_one_then_takes_up_to_max),
        cmocka_unit_test(test_send_many_future_sends_what_fits_on_each_wake),
        cmocka_unit_test(test_all_or_nothing_future_waits_until_n_slots_are_free_at_once),
        cmocka_unit_test(test_all_or_nothing_future_with_too_little_room_passes_the_wake_on),
        cmocka_unit_test(test_two_all_or_nothing_futures_do_not_wake_each_other_forever),
        cmocka_unit_test(test_woken_send_many_cancelled_passes_the_wake_on),
        cmocka_unit_test(test_send_many_future_on_close_returns_closed_with_the_count_sent),
        cmocka_unit_test(test_future_polls_with_bad_arguments_are_einval),
        cmocka_unit_test(test_blocking_batches_deliver_everything_in_order),
        cmocka_unit_test(test_blocking_all_or_nothing_batches_deliver_everything_in_order),
        cmocka_unit_test(test_timeouts_report_timedout_with_what_was_done),
        cmocka_unit_test(test_batches_of_zero_return_ok_having_moved_nothing_in_every_form),
        cmocka_unit_test(test_batch_futures_of_zero_complete_at_their_first_poll),
        cmocka_unit_test(test_until_forms_make_one_attempt_at_a_past_deadline),
        cmocka_unit_test(
            test_until_forms_time_out_at_a_near_deadline_and_wait_without_one),
        cmocka_unit_test(
            test_all_or_nothing_batch_that_skips_a_hole_wakes_a_sender_for_its_slot),
        cmocka_unit_test(
            test_batch_receive_polled_again_while_registered_is_not_woken_inside_its_poll),
        cmocka_unit_test(test_recv_many_waking_many_inline_senders_does_not_nest_their_wakes),
        cmocka_unit_test(test_recv_many_wakes_inline_senders_once_per_freed_slot),
        cmocka_unit_test(test_send_many_wakes_inline_receivers_once_per_message),
        cmocka_unit_test(test_send_many_wakes_past_stale_holders_bounded),
        cmocka_unit_test(test_send_many_wakes_past_stale_holders_unbounded),
        cmocka_unit_test(test_all_or_nothing_futures_passing_on_inside_their_wakes_do_not_nest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

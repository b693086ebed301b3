/* Position counters that wrap around (ZCHAN_TEST_HOOKS builds only): with
 * zc__test_set_start_lap(3) every channel starts three laps before its head and tail
 * counters overflow, so a few messages carry them across the wrap. Exact capacity,
 * FIFO order, len, close and drop_msg must not notice. One thread, deterministic. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>

#include <zchan/mpmc.h>

#include "chan.h" /* to look at the position counters themselves */
#include "counting_waker.h"
#include "hooks.h"
#include "u64_channel.h"

enum { LAPS = 3 };

static int start_near_the_wrap(void **state) {
    (void)state;
    zc__test_set_start_lap(LAPS);
    return 0;
}

static int start_at_zero(void **state) {
    (void)state;
    zc__test_set_start_lap(0);
    return 0;
}

/* The receivers' position counter: near SIZE_MAX before the wrap, small after it. */
static size_t head_of(zc_receiver *rx) {
    zc__chan *ch = rx->ch;
    /* Relaxed: one thread; only the value is of interest. */
    return zc__queue_bounded(&ch->q)
               ? atomic_load_explicit(ZC__RING_HEAD(&ch->q.u.ring), memory_order_relaxed)
               : atomic_load_explicit(&ch->q.u.segq.head_index, memory_order_relaxed);
}

static bool before_the_wrap(zc_receiver *rx) { return head_of(rx) > SIZE_MAX / 2; }

static size_t len_of(zc_receiver *rx) {
    zc_info info;
    assert_int_equal(zc_receiver_info(rx, &info), ZC_OK);
    return info.len;
}

static void test_bounded_2_ends_empty_after_65539_rounds_across_the_wrap(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    assert_true(before_the_wrap(rx));
    for (uint64_t i = 0; i < (1u << 16) + 3; i++) {
        send_u64(tx, i);
        assert_int_equal(len_of(rx), 1);
        expect_u64(rx, i);
    }
    assert_false(before_the_wrap(rx));
    assert_int_equal(len_of(rx), 0);
    expect_recv_status(rx, ZC_EMPTY);
    send_u64(tx, 1);
    send_u64(tx, 2);
    uint64_t v = 3;
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL);
    expect_u64(rx, 1);
    expect_u64(rx, 2);
    expect_recv_status(rx, ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Move a channel of capacity cap to half a capacity before the wrap, then fill it to
 * exactly cap (straddling the wrap), drain it in order, and fill it again past it. */
static void fill_to_exactly_cap_across_the_wrap(size_t cap) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(cap, &cfg, &tx, &rx), ZC_OK);
    for (uint64_t i = 0; i < LAPS * cap - cap / 2; i++) {
        send_u64(tx, i);
        expect_u64(rx, i);
    }
    assert_true(before_the_wrap(rx));
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < cap; i++)
            send_u64(tx, i);
        uint64_t v = cap;
        assert_int_equal(zc_try_send(tx, &v), ZC_FULL);
        assert_int_equal(len_of(rx), cap);
        for (uint64_t i = 0; i < cap; i++)
            expect_u64(rx, i);
        assert_int_equal(len_of(rx), 0);
        expect_recv_status(rx, ZC_EMPTY);
    }
    assert_false(before_the_wrap(rx));
    assert_true(zc_sender_close(tx));
    expect_recv_status(rx, ZC_CLOSED);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_capacities_2_128_256_65536_fill_to_exactly_cap_across_the_wrap(void **state) {
    (void)state;
    static const size_t caps[] = {2, 128, 256, 65536};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        fill_to_exactly_cap_across_the_wrap(caps[i]);
}

/* A pending send future and a pending receive future across the wrap. */
static void test_futures_wait_and_wake_across_the_wrap(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    counting_waker cw[2];
    counting_waker_init(&cw[0]);
    counting_waker_init(&cw[1]);
    zc_waker ws = counting_waker_of(&cw[0]), wr = counting_waker_of(&cw[1]);
    zc_recv r;
    zc_recv_init(&r, rx);
    for (uint64_t i = 0; i < 2 * LAPS; i++) { /* two laps per round at capacity 1 */
        uint64_t out = ~i;
        assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_PENDING);
        send_u64(tx, i);
        assert_int_equal(counting_waker_count(&cw[1]), i + 1);
        uint64_t m = 1000 + i;
        zc_send s;
        zc_send_init(&s, tx, &m);
        assert_int_equal(zc_send_poll(&s, &ws), ZC_PENDING); /* full */
        assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_OK);
        assert_int_equal(out, i);
        assert_int_equal(counting_waker_count(&cw[0]), i + 1);
        assert_int_equal(zc_send_poll(&s, &ws), ZC_OK);
        assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_OK);
        assert_int_equal(out, 1000 + i);
    }
    assert_false(before_the_wrap(rx));
    assert_int_equal(counting_waker_count(&cw[1]), 2 * LAPS);
    assert_int_equal(counting_waker_count(&cw[0]), 2 * LAPS);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* The unbounded queue starts three segments before the wrap: 200 messages cross it. */
static void test_unbounded_keeps_order_len_and_drop_msg_across_the_wrap(void **state) {
    (void)state;
    enum { N = 200 };
    drop_counter dc;
    atomic_uchar seen[N];
    drop_counter_init(&dc, seen, N);
    zc_config cfg = {sizeof(uint64_t), drop_counter_fn, &dc};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    assert_true(before_the_wrap(rx));
    for (uint64_t i = 0; i < N; i++) {
        send_u64(tx, i);
        assert_int_equal(len_of(rx), i + 1);
    }
    for (uint64_t i = 0; i < N / 2; i++) {
        expect_u64(rx, i);
        assert_int_equal(len_of(rx), N - i - 1);
    }
    for (uint64_t i = 0; i < N / 2; i++) { /* interleaved, through the wrap once more */
        send_u64(tx, N + i);
        expect_u64(rx, N / 2 + i);
    }
    assert_false(before_the_wrap(rx));
    assert_int_equal(len_of(rx), N / 2);
    zc_receiver_drop(rx); /* disposes of N..N+N/2-1, each once (their sum says so) */
    assert_int_equal(drop_counter_calls(&dc), N / 2);
    assert_int_equal(atomic_load_explicit(&dc.sum, memory_order_relaxed), /* one thread */
                     (N + N + N / 2 - 1) * (N / 2) / 2);
    zc_sender_drop(tx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_bounded_2_ends_empty_after_65539_rounds_across_the_wrap,
            start_near_the_wrap, start_at_zero),
        cmocka_unit_test_setup_teardown(
            test_capacities_2_128_256_65536_fill_to_exactly_cap_across_the_wrap,
            start_near_the_wrap, start_at_zero),
        cmocka_unit_test_setup_teardown(test_futures_wait_and_wake_across_the_wrap,
                                        start_near_the_wrap, start_at_zero),
        cmocka_unit_test_setup_teardown(
            test_unbounded_keeps_order_len_and_drop_msg_across_the_wrap,
            start_near_the_wrap, start_at_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

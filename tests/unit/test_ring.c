/* Unit tests of the bounded ring (src/ring.h), one thread: exact capacity for any cap,
 * FIFO across laps, empty/full/closed statuses, len, and discard. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "queue/ring.h"

#include "counting_waker.h"

/* A ring of cap slots of elem_size bytes in memory of its own (ring_free frees it). */
static void ring_open(zc__ring *r, size_t cap, size_t elem_size) {
    size_t bytes = 0;
    assert_int_equal(zc__ring_slots_size(cap, elem_size, &bytes), ZC_OK);
    void *slots = malloc(bytes);
    assert_non_null(slots);
    zc__ring_init(r, cap, elem_size, slots);
}

static void ring_free(zc__ring *r) { free(r->slots); }

static void push_u64(zc__ring *r, uint64_t v) {
    assert_int_equal(zc__ring_push(r, &v), ZC_OK);
}

static void expect_pop_u64(zc__ring *r, uint64_t want) {
    uint64_t got = ~want;
    size_t skipped = 0;
    assert_int_equal(zc__ring_pop(r, &got, &skipped), ZC_OK);
    assert_int_equal(skipped, 0); /* no reservation, no hole */
    assert_int_equal(got, want);
}

static void expect_pop_status(zc__ring *r, zc_status want) {
    uint64_t got = 0xdeadbeef;
    size_t skipped = 0;
    assert_int_equal(zc__ring_pop(r, &got, &skipped), want);
    assert_int_equal(got, 0xdeadbeef);
}

static void test_ring_slots_size_rejects_zero_capacity_and_zero_elem_size(void **state) {
    (void)state;
    size_t bytes = 0;
    assert_int_equal(zc__ring_slots_size(0, 8, &bytes), ZC_EINVAL);
    assert_int_equal(zc__ring_slots_size(4, 0, &bytes), ZC_EINVAL);
    assert_int_equal(zc__ring_slots_size(4, 8, &bytes), ZC_OK);
    assert_int_equal(bytes, 4 * 16); /* a stamp and the message a slot */
}

static void test_ring_slots_size_rejects_sizes_that_overflow(void **state) {
    (void)state;
    size_t bytes = 0;
    assert_int_equal(zc__ring_slots_size(SIZE_MAX / 2 + 1, 2, &bytes), ZC_EINVAL);
    assert_int_equal(zc__ring_slots_size(2, SIZE_MAX / 2 + 1, &bytes), ZC_EINVAL);
    assert_int_equal(zc__ring_slots_size(1, SIZE_MAX, &bytes), ZC_EINVAL);
    assert_int_equal(zc__ring_slots_size(SIZE_MAX, 1, &bytes), ZC_EINVAL);
}

static void test_ring_holds_exactly_its_capacity_for_any_capacity(void **state) {
    (void)state;
    static const size_t caps[] = {1, 2, 3, 5, 7, 8, 9, 31, 100};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        size_t cap = caps[c];
        zc__ring r;
        ring_open(&r, cap, sizeof(uint64_t));
        for (uint64_t i = 0; i < cap; i++) {
            assert_int_equal(zc__ring_len(&r), i);
            push_u64(&r, i);
        }
        assert_int_equal(zc__ring_len(&r), cap);
        uint64_t extra = cap;
        assert_int_equal(zc__ring_push(&r, &extra), ZC_FULL);
        assert_int_equal(zc__ring_len(&r), cap);
        for (uint64_t i = 0; i < cap; i++)
            expect_pop_u64(&r, i);
        expect_pop_status(&r, ZC_EMPTY);
        assert_int_equal(zc__ring_len(&r), 0);
        ring_free(&r);
    }
}

static void test_ring_pops_in_push_order_across_many_laps(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 5, sizeof(uint64_t));
    uint64_t in = 0, out = 0;
    for (int round = 0; round < 500; round++) { /* bursts of 1..5, partial drains */
        size_t burst = (size_t)round % 5 + 1;
        while (in - out + burst > 5)
            expect_pop_u64(&r, out++);
        for (size_t i = 0; i < burst; i++)
            push_u64(&r, in++);
        assert_int_equal(zc__ring_len(&r), in - out);
        for (size_t i = 0; i < (burst + 1) / 2; i++)
            expect_pop_u64(&r, out++);
        assert_int_equal(zc__ring_len(&r), in - out);
    }
    while (out < in)
        expect_pop_u64(&r, out++);
    expect_pop_status(&r, ZC_EMPTY);
    ring_free(&r);
}

static void test_ring_len_counts_wrapped_contents(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 5, sizeof(uint64_t));
    for (uint64_t i = 0; i < 5; i++)
        push_u64(&r, i);
    for (uint64_t i = 0; i < 3; i++)
        expect_pop_u64(&r, i);
    push_u64(&r, 5);
    push_u64(&r, 6); /* tail index wrapped below head index */
    assert_int_equal(zc__ring_len(&r), 4);
    push_u64(&r, 7);
    assert_int_equal(zc__ring_len(&r), 5);
    for (uint64_t i = 3; i < 8; i++)
        expect_pop_u64(&r, i);
    assert_int_equal(zc__ring_len(&r), 0);
    ring_free(&r);
}

static void test_ring_copies_exactly_elem_size_bytes(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 3, 3);
    unsigned char out[8];
    for (int lap = 0; lap < 4; lap++) {
        for (unsigned char i = 0; i < 3; i++) {
            unsigned char msg[3] = {i, (unsigned char)(i + 10), (unsigned char)(lap + 20)};
            assert_int_equal(zc__ring_push(&r, msg), ZC_OK);
        }
        for (unsigned char i = 0; i < 3; i++) {
            memset(out, 0xcc, sizeof out);
            size_t skipped = 0;
            assert_int_equal(zc__ring_pop(&r, out, &skipped), ZC_OK);
            assert_int_equal(out[0], i);
            assert_int_equal(out[1], i + 10);
            assert_int_equal(out[2], lap + 20);
            for (size_t j = 3; j < sizeof out; j++)
                assert_int_equal(out[j], 0xcc);
        }
    }
    ring_free(&r);
}

static void test_ring_close_returns_true_once_and_is_seen(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 2, sizeof(uint64_t));
    assert_false(zc__ring_is_closed(&r));
    assert_true(zc__ring_close(&r));
    assert_true(zc__ring_is_closed(&r));
    assert_false(zc__ring_close(&r));
    assert_true(zc__ring_is_closed(&r));
    ring_free(&r);
}

static void test_ring_push_after_close_returns_closed_and_pop_drains_first(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 3, sizeof(uint64_t));
    push_u64(&r, 1);
    push_u64(&r, 2);
    assert_true(zc__ring_close(&r));
    uint64_t v = 3;
    assert_int_equal(zc__ring_push(&r, &v), ZC_CLOSED);
    assert_int_equal(zc__ring_len(&r), 2);
    expect_pop_u64(&r, 1);
    expect_pop_u64(&r, 2);
    expect_pop_status(&r, ZC_CLOSED);
    expect_pop_status(&r, ZC_CLOSED);
    assert_int_equal(zc__ring_len(&r), 0);
    ring_free(&r);
}

static void test_ring_full_and_closed_push_returns_closed(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 1, sizeof(uint64_t));
    push_u64(&r, 1);
    assert_true(zc__ring_close(&r));
    uint64_t v = 2;
    assert_int_equal(zc__ring_push(&r, &v), ZC_CLOSED);
    assert_int_equal(zc__ring_len(&r), 1);
    ring_free(&r);
}

static void test_ring_discard_hands_each_held_message_to_drop_once(void **state) {
    (void)state;
    enum { SEEN = 16 };
    atomic_uchar seen[SEEN];
    drop_counter dc;
    drop_counter_init(&dc, seen, SEEN);
    zc__ring r;
    ring_open(&r, 4, sizeof(uint64_t));
    for (uint64_t i = 0; i < 4; i++)
        push_u64(&r, i);
    expect_pop_u64(&r, 0);
    expect_pop_u64(&r, 1);
    push_u64(&r, 4);
    push_u64(&r, 5); /* held: 2, 3, 4, 5 across the wrap */
    assert_true(zc__ring_close(&r));
    zc__ring_discard(&r, drop_counter_fn, &dc);
    assert_int_equal(drop_counter_calls(&dc), 4);
    assert_true(drop_counter_saw_once(&dc, 2, 6));
    assert_int_equal(zc__ring_len(&r), 0);
    ring_free(&r);
}

static void test_ring_discard_without_drop_empties_the_ring(void **state) {
    (void)state;
    zc__ring r;
    ring_open(&r, 3, sizeof(uint64_t));
    push_u64(&r, 1);
    push_u64(&r, 2);
    assert_true(zc__ring_close(&r));
    zc__ring_discard(&r, NULL, NULL);
    assert_int_equal(zc__ring_len(&r), 0);
    ring_free(&r);
}

static void test_ring_discard_of_an_empty_ring_drops_nothing(void **state) {
    (void)state;
    drop_counter dc;
    drop_counter_init(&dc, NULL, 0);
    zc__ring r;
    ring_open(&r, 3, sizeof(uint64_t));
    push_u64(&r, 1);
    expect_pop_u64(&r, 1);
    assert_true(zc__ring_close(&r));
    zc__ring_discard(&r, drop_counter_fn, &dc);
    assert_int_equal(drop_counter_calls(&dc), 0);
    ring_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_slots_size_rejects_zero_capacity_and_zero_elem_size),
        cmocka_unit_test(test_ring_slots_size_rejects_sizes_that_overflow),
        cmocka_unit_test(test_ring_holds_exactly_its_capacity_for_any_capacity),
        cmocka_unit_test(test_ring_pops_in_push_order_across_many_laps),
        cmocka_unit_test(test_ring_len_counts_wrapped_contents),
        cmocka_unit_test(test_ring_copies_exactly_elem_size_bytes),
        cmocka_unit_test(test_ring_close_returns_true_once_and_is_seen),
        cmocka_unit_test(test_ring_push_after_close_returns_closed_and_pop_drains_first),
        cmocka_unit_test(test_ring_full_and_closed_push_returns_closed),
        cmocka_unit_test(test_ring_discard_hands_each_held_message_to_drop_once),
        cmocka_unit_test(test_ring_discard_without_drop_empties_the_ring),
        cmocka_unit_test(test_ring_discard_of_an_empty_ring_drops_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the segmented unbounded queue (src/segq.h), one thread: FIFO and len
 * across segment boundaries, close, discard, and segment reuse (ASan checks the memory);
 * the receive fast path's seen tail against other threads and a freed queue. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "queue/segq.h"

#include "counting_waker.h"

static void push_u64(zc__segq *q, uint64_t v) {
    assert_int_equal(zc__segq_push(q, &v), ZC_OK);
}

static void expect_pop_u64(zc__segq *q, uint64_t want) {
    uint64_t got = ~want;
    assert_int_equal(zc__segq_pop(q, &got), ZC_OK);
    assert_int_equal(got, want);
}

static void expect_pop_status(zc__segq *q, zc_status want) {
    uint64_t got = 0xdeadbeef;
    assert_int_equal(zc__segq_pop(q, &got), want);
    assert_int_equal(got, 0xdeadbeef);
}

static void test_segq_init_rejects_zero_and_huge_elem_size(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, 0), ZC_EINVAL);
    assert_int_equal(zc__segq_init(&q, SIZE_MAX), ZC_EINVAL);
    assert_int_equal(zc__segq_init(&q, SIZE_MAX / ZC__SEG_CAP), ZC_EINVAL);
}

static void test_segq_new_queue_is_empty_and_open(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    assert_int_equal(zc__segq_len(&q), 0);
    assert_false(zc__segq_is_closed(&q));
    expect_pop_status(&q, ZC_EMPTY);
    zc__segq_destroy(&q);
}

static void test_segq_keeps_order_and_len_across_five_segments(void **state) {
    (void)state;
    enum { N = 5 * ZC__SEG_CAP + 7 };
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    for (uint64_t i = 0; i < N; i++) {
        assert_int_equal(zc__segq_len(&q), i);
        push_u64(&q, i);
    }
    assert_int_equal(zc__segq_len(&q), N);
    for (uint64_t i = 0; i < N; i++) {
        expect_pop_u64(&q, i);
        assert_int_equal(zc__segq_len(&q), N - 1 - i);
    }
    expect_pop_status(&q, ZC_EMPTY);
    zc__segq_destroy(&q);
}

static void test_segq_hovering_at_boundaries_keeps_order_and_len(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    uint64_t in = 0, out = 0;
    for (int i = 0; i < 40 * ZC__SEG_CAP; i++) { /* one in, one out: many boundaries */
        push_u64(&q, in++);
        assert_int_equal(zc__segq_len(&q), 1);
        expect_pop_u64(&q, out++);
        assert_int_equal(zc__segq_len(&q), 0);
    }
    for (int i = 0; i < 20 * ZC__SEG_CAP; i++) { /* two in, one out: len grows by one */
        push_u64(&q, in++);
        push_u64(&q, in++);
        expect_pop_u64(&q, out++);
        assert_int_equal(zc__segq_len(&q), in - out);
    }
    while (out < in)
        expect_pop_u64(&q, out++);
    assert_int_equal(zc__segq_len(&q), 0);
    zc__segq_destroy(&q);
}

static void test_segq_copies_exactly_elem_size_bytes(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, 5), ZC_OK);
    unsigned char out[12];
    for (unsigned i = 0; i < 2 * ZC__SEG_CAP + 3; i++) {
        unsigned char msg[5] = {(unsigned char)i, 1, 2, 3, (unsigned char)(i ^ 0x5a)};
        assert_int_equal(zc__segq_push(&q, msg), ZC_OK);
    }
    for (unsigned i = 0; i < 2 * ZC__SEG_CAP + 3; i++) {
        memset(out, 0xcc, sizeof out);
        assert_int_equal(zc__segq_pop(&q, out), ZC_OK);
        assert_int_equal(out[0], (unsigned char)i);
        assert_int_equal(out[3], 3);
        assert_int_equal(out[4], (unsigned char)(i ^ 0x5a));
        for (size_t j = 5; j < sizeof out; j++)
            assert_int_equal(out[j], 0xcc);
    }
    zc__segq_destroy(&q);
}

static void test_segq_close_returns_true_once_and_push_then_fails(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    push_u64(&q, 1);
    assert_true(zc__segq_close(&q));
    assert_false(zc__segq_close(&q));
    assert_true(zc__segq_is_closed(&q));
    uint64_t v = 2;
    assert_int_equal(zc__segq_push(&q, &v), ZC_CLOSED);
    assert_int_equal(zc__segq_len(&q), 1);
    expect_pop_u64(&q, 1);
    expect_pop_status(&q, ZC_CLOSED);
    expect_pop_status(&q, ZC_CLOSED);
    zc__segq_destroy(&q);
}

static void test_segq_closed_before_any_push_pops_closed(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    assert_true(zc__segq_close(&q));
    expect_pop_status(&q, ZC_CLOSED);
    uint64_t v = 1;
    assert_int_equal(zc__segq_push(&q, &v), ZC_CLOSED);
    zc__segq_destroy(&q);
}

/* Push n, pop `popped`, close, discard: exactly popped..n-1 go to drop, once each. */
static void check_discard(uint64_t n, uint64_t popped) {
    enum { SEEN = 8 * ZC__SEG_CAP };
    atomic_uchar seen[SEEN];
    drop_counter dc;
    drop_counter_init(&dc, seen, SEEN);
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    for (uint64_t i = 0; i < n; i++)
        push_u64(&q, i);
    for (uint64_t i = 0; i < popped; i++)
        expect_pop_u64(&q, i);
    assert_true(zc__segq_close(&q));
    zc__segq_discard(&q, drop_counter_fn, &dc);
    assert_int_equal(drop_counter_calls(&dc), n - popped);
    assert_true(drop_counter_saw_once(&dc, popped, n));
    assert_int_equal(zc__segq_len(&q), 0);
    zc__segq_destroy(&q);
}

static void test_segq_discard_drops_each_held_message_once(void **state) {
    (void)state;
    check_discard(3 * ZC__SEG_CAP + 4, 40);      /* head inside the second segment */
    check_discard(ZC__SEG_CAP, 0);               /* exactly one full segment */
    check_discard(ZC__SEG_CAP + 1, ZC__SEG_CAP); /* head just past a boundary */
    check_discard(2 * ZC__SEG_CAP, ZC__SEG_CAP - 1);
    check_discard(5, 5); /* drained: nothing to drop */
    check_discard(0, 0); /* never used */
}

static void test_segq_discard_without_drop_frees_every_segment(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    for (uint64_t i = 0; i < 4 * ZC__SEG_CAP; i++)
        push_u64(&q, i);
    assert_true(zc__segq_close(&q));
    zc__segq_discard(&q, NULL, NULL);
    assert_int_equal(zc__segq_len(&q), 0);
    zc__segq_destroy(&q); /* ASan reports any segment left behind */
}

struct mover {
    zc__segq *q;
    uint64_t first, n; /* push first..first+n-1, or pop n expecting them */
    bool pop;
    uint64_t done; /* how many went as expected (cmocka asserts only on its own thread) */
};

static void *move_on_another_thread(void *arg) {
    struct mover *m = arg;
    for (; m->done < m->n; m->done++) {
        uint64_t v = m->first + m->done, got = ~v;
        zc_status s = m->pop ? zc__segq_pop(m->q, &got) : zc__segq_push(m->q, &v);
        if (s != ZC_OK || (m->pop && got != v)) break;
    }
    return NULL;
}

/* Push (or pop) first..first+n-1 on another thread, whose seen tail is its own. */
static void move_elsewhere(zc__segq *q, uint64_t first, uint64_t n, bool pop) {
    struct mover m = {q, first, n, pop, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, move_on_another_thread, &m), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(m.done, n);
}

/* This thread's seen tail (the position after its last send) is reached by another
 * thread's receives: head is at it, not behind it, so nothing is there. A receive that
 * took it for a message would claim a position no sender has (and wait forever). */
static void test_segq_seen_tail_reached_by_another_receiver_means_nothing(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    for (uint64_t round = 0; round < 2 * ZC__SEG_CAP; round++) { /* across boundaries */
        push_u64(&q, 2 * round);
        push_u64(&q, 2 * round + 1);
        move_elsewhere(&q, 2 * round, 2, true);
        expect_pop_status(&q, ZC_EMPTY);
    }
    assert_int_equal(zc__segq_len(&q), 0);
    zc__segq_destroy(&q);
}

/* A queue freed and another set up in the same memory: this thread's seen tail of the
 * old one (40 messages on) must not count for the new one, whose first segment another
 * thread made (one message through). Keyed by address, it would claim position 1. */
static void test_segq_seen_tail_of_a_freed_queue_is_not_the_new_ones(void **state) {
    (void)state;
    zc__segq q;
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    for (uint64_t i = 0; i < 40; i++)
        push_u64(&q, i);
    for (uint64_t i = 0; i < 40; i++)
        expect_pop_u64(&q, i);
    zc__segq_destroy(&q);
    assert_int_equal(zc__segq_init(&q, sizeof(uint64_t)), ZC_OK);
    move_elsewhere(&q, 7, 1, false);
    move_elsewhere(&q, 7, 1, true);
    expect_pop_status(&q, ZC_EMPTY);
    push_u64(&q, 8);
    expect_pop_u64(&q, 8);
    expect_pop_status(&q, ZC_EMPTY);
    zc__segq_destroy(&q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segq_init_rejects_zero_and_huge_elem_size),
        cmocka_unit_test(test_segq_new_queue_is_empty_and_open),
        cmocka_unit_test(test_segq_keeps_order_and_len_across_five_segments),
        cmocka_unit_test(test_segq_hovering_at_boundaries_keeps_order_and_len),
        cmocka_unit_test(test_segq_copies_exactly_elem_size_bytes),
        cmocka_unit_test(test_segq_close_returns_true_once_and_push_then_fails),
        cmocka_unit_test(test_segq_closed_before_any_push_pops_closed),
        cmocka_unit_test(test_segq_discard_drops_each_held_message_once),
        cmocka_unit_test(test_segq_discard_without_drop_frees_every_segment),
        cmocka_unit_test(test_segq_seen_tail_reached_by_another_receiver_means_nothing),
        cmocka_unit_test(test_segq_seen_tail_of_a_freed_queue_is_not_the_new_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

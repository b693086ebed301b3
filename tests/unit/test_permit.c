/* Unit tests of the two-phase send (zchan/permit.h): reserve a place, then commit a
 * message into it or release it, on bounded and unbounded channels, through the try
 * call, the future, and the blocking calls. One thread, manual polls, counting wakers. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* clock_gettime (mono_clock.h) under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <zchan/batch.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "inline_sender.h"
#include "mono_clock.h"
#include "u64_fixture.h"

static void reserve_ok(zc_sender *tx, zc_permit *p) {
    assert_int_equal(zc_try_reserve(tx, p), ZC_OK);
}

static void commit_u64(zc_permit *p, uint64_t v) {
    assert_int_equal(zc_permit_commit(p, &v), ZC_OK);
}

/* A bounded(2) channel holding message 1 and, behind it, a released place: a hole that
 * keeps its slot until the receive position reaches it. */
static void open_message_then_hole(fixture *fx) {
    fixture_init(fx, 2);
    zc_permit p;
    send_u64(fx->tx, 1);
    reserve_ok(fx->tx, &p);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
}

static void test_committed_message_takes_its_place_at_reserve_time(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 4);
    zc_permit p;
    send_u64(fx.tx, 1);
    reserve_ok(fx.tx, &p);
    send_u64(fx.tx, 3);
    expect_u64(fx.rx, 1);
    /* The reservation is the next place: what was sent after it waits behind it. */
    expect_recv_status(fx.rx, ZC_EMPTY);
    commit_u64(&p, 2);
    expect_u64(fx.rx, 2);
    expect_u64(fx.rx, 3);
    expect_recv_status(fx.rx, ZC_EMPTY);
    fixture_done(&fx);
}

static void test_reservations_take_capacity_until_released(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 2);
    zc_permit a, b, c;
    reserve_ok(fx.tx, &a);
    reserve_ok(fx.tx, &b);
    uint64_t v = 9;
    assert_int_equal(zc_try_reserve(fx.tx, &c), ZC_FULL);
    assert_int_equal(zc_permit_commit(&c, &v), ZC_EINVAL); /* a failed reservation is empty */
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    size_t sent = 7;
    assert_int_equal(zc_try_send_many(fx.tx, &v, 1, &sent, 0), ZC_FULL);
    assert_int_equal(sent, 0);
    zc_info info;
    assert_int_equal(zc_sender_info(fx.tx, &info), ZC_OK);
    assert_int_equal(info.len, 2);
    /* Released at the head of the order: the slot is free at once. */
    assert_int_equal(zc_permit_release(&a), ZC_OK);
    send_u64(fx.tx, 5);
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    commit_u64(&b, 4);
    expect_u64(fx.rx, 4);
    expect_u64(fx.rx, 5);
    expect_recv_status(fx.rx, ZC_EMPTY);
    fixture_done(&fx);
}

static void test_a_released_place_in_the_middle_is_skipped_by_receivers(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 3);
    zc_permit p;
    send_u64(fx.tx, 1);
    reserve_ok(fx.tx, &p);
    send_u64(fx.tx, 2);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    expect_u64(fx.rx, 1);
    expect_u64(fx.rx, 2); /* the hole was skipped */
    expect_recv_status(fx.rx, ZC_EMPTY);
    /* All three slots are free again. */
    send_u64(fx.tx, 3);
    send_u64(fx.tx, 4);
    send_u64(fx.tx, 5);
    uint64_t v = 6;
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    fixture_done(&fx);
}

static void test_places_released_newest_first_are_all_free_again(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 3);
    zc_permit a, b, c;
    reserve_ok(fx.tx, &a);
    reserve_ok(fx.tx, &b);
    reserve_ok(fx.tx, &c);
    uint64_t v = 1;
    zc_send s;
    zc_send_init(&s, fx.tx, &v);
    assert_int_equal(zc_send_poll(&s, &fx.w[0]), ZC_PENDING);
    assert_int_equal(zc_permit_release(&c), ZC_OK); /* holes behind a held place */
    assert_int_equal(zc_permit_release(&b), ZC_OK);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 0);
    /* The oldest goes: its slot and those of the two holes after it are free at once,
     * with no receiver calling in; the waiting sender is woken. */
    assert_int_equal(zc_permit_release(&a), ZC_OK);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    zc_info info;
    assert_int_equal(zc_sender_info(fx.tx, &info), ZC_OK);
    assert_int_equal(info.len, 0);
    assert_int_equal(zc_send_poll(&s, &fx.w[0]), ZC_OK);
    send_u64(fx.tx, 2);
    send_u64(fx.tx, 3);
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    expect_u64(fx.rx, 1);
    expect_u64(fx.rx, 2);
    expect_u64(fx.rx, 3);
    fixture_done(&fx);
}

static void test_a_sender_skips_a_released_place_that_became_the_oldest(void **state) {
    (void)state;
    fixture fx;
    open_message_then_hole(&fx);
    expect_u64(fx.rx, 1);                            /* now the hole is the oldest */
    send_u64(fx.tx, 2);
    send_u64(fx.tx, 3); /* needs the hole's slot: skips it, no false ZC_FULL */
    uint64_t v = 4;
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    expect_u64(fx.rx, 2);
    expect_u64(fx.rx, 3);
    expect_recv_status(fx.rx, ZC_EMPTY);
    fixture_done(&fx);
}

static void test_a_stale_copy_of_a_permit_is_einval_and_changes_nothing(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    zc_permit p, copy;
    reserve_ok(fx.tx, &p);
    copy = p;
    commit_u64(&p, 1);
    uint64_t v = 2;
    assert_int_equal(zc_permit_commit(&copy, &v), ZC_EINVAL); /* the place is used */
    expect_u64(fx.rx, 1); /* not overwritten */
    reserve_ok(fx.tx, &p);
    copy = p;
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    assert_int_equal(zc_permit_release(&copy), ZC_EINVAL);
    send_u64(fx.tx, 3);
    expect_u64(fx.rx, 3);
    fixture_done(&fx);
}

static void test_recv_many_stops_at_a_reservation_or_a_hole_behind_a_message(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 4);
    zc_permit p;
    send_u64(fx.tx, 1);
    reserve_ok(fx.tx, &p);
    send_u64(fx.tx, 2);
    uint64_t out[4] = {0};
    size_t got = 0;
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_OK);
    assert_int_equal(got, 1);
    assert_int_equal(out[0], 1);
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_EMPTY);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_OK);
    assert_int_equal(got, 1);
    assert_int_equal(out[0], 2);
    /* A hole behind a message ends the batch there too (batch.h); the next call passes
     * over it. */
    send_u64(fx.tx, 3);
    reserve_ok(fx.tx, &p);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    send_u64(fx.tx, 4);
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_OK);
    assert_int_equal(got, 1);
    assert_int_equal(out[0], 3);
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_OK);
    assert_int_equal(got, 1);
    assert_int_equal(out[0], 4);
    assert_int_equal(zc_try_recv_many(fx.rx, out, 4, &got), ZC_EMPTY);
    fixture_done(&fx);
}

static void test_commit_wakes_a_receiver_waiting_behind_the_reservation(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 2);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    zc_recv r;
    zc_recv_init(&r, fx.rx);
    expect_poll_pending(&r, &fx.w[0]);
    commit_u64(&p, 8);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    expect_poll_u64(&r, &fx.w[0], 8);
    fixture_done(&fx);
}

static void test_release_wakes_a_receiver_waiting_behind_the_reservation(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 3);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    send_u64(fx.tx, 9);
    zc_recv r;
    zc_recv_init(&r, fx.rx);
    expect_poll_pending(&r, &fx.w[0]);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    expect_poll_u64(&r, &fx.w[0], 9);
    fixture_done(&fx);
}

static void test_release_at_head_wakes_a_waiting_sender(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    uint64_t v = 3;
    zc_send s;
    zc_send_init(&s, fx.tx, &v);
    assert_int_equal(zc_send_poll(&s, &fx.w[0]), ZC_PENDING);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    assert_int_equal(zc_send_poll(&s, &fx.w[0]), ZC_OK);
    expect_u64(fx.rx, 3);
    fixture_done(&fx);
}

/* A receive that moves head onto a released place (a hole behind the message it took)
 * frees two slots: its message's and the hole's, which any sender may now take (it
 * skips the hole). Both waiting senders must be woken: with only the first woken, the
 * second would stay pending with a slot free. */
static void test_a_receive_reaching_a_hole_wakes_a_sender_for_its_slot_too(void **state) {
    (void)state;
    for (int how = 0; how < 3; how++) { /* try_recv, a receive future, try_recv_many */
        fixture fx;
        open_message_then_hole(&fx);
        counting_waker cw2;
        counting_waker_init(&cw2);
        zc_waker w2 = counting_waker_of(&cw2);
        uint64_t va = 2, vb = 3;
        zc_send sa, sb;
        zc_send_init(&sa, fx.tx, &va);
        zc_send_init(&sb, fx.tx, &vb);
        assert_int_equal(zc_send_poll(&sa, &fx.w[0]), ZC_PENDING);
        assert_int_equal(zc_send_poll(&sb, &w2), ZC_PENDING);
        uint64_t v = 0;
        size_t got = 0;
        zc_recv r;
        zc_recv_init(&r, fx.rx);
        if (how == 0) assert_int_equal(zc_try_recv(fx.rx, &v), ZC_OK);
        if (how == 1) assert_int_equal(zc_recv_poll(&r, &fx.w[0], &v), ZC_OK);
        if (how == 2) assert_int_equal(zc_try_recv_many(fx.rx, &v, 1, &got), ZC_OK);
        assert_int_equal(v, 1); /* frees 1's slot, and head reaches the hole */
        assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
        assert_int_equal(counting_waker_count(&cw2), 1);
        assert_int_equal(zc_send_poll(&sa, &fx.w[0]), ZC_OK);
        assert_int_equal(zc_send_poll(&sb, &w2), ZC_OK);
        v = 4;
        assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
        expect_u64(fx.rx, 2);
        expect_u64(fx.rx, 3);
        fixture_done(&fx);
    }
}

static void test_reserve_future_waits_for_room_and_keeps_its_result(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    send_u64(fx.tx, 1);
    zc_permit p;
    zc_reserve f;
    zc_reserve_init(&f, fx.tx, &p);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_PENDING);
    expect_u64(fx.rx, 1);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_OK);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_OK); /* reserves nothing more */
    uint64_t v = 2;
    assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
    commit_u64(&p, 7);
    expect_u64(fx.rx, 7);
    fixture_done(&fx);
}

static void test_cancelled_reserve_future_passes_its_wake_up_on(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    send_u64(fx.tx, 1);
    counting_waker cw2;
    counting_waker_init(&cw2);
    zc_waker w2 = counting_waker_of(&cw2);
    zc_permit p1, p2;
    zc_reserve f1, f2;
    zc_reserve_init(&f1, fx.tx, &p1);
    zc_reserve_init(&f2, fx.tx, &p2);
    assert_int_equal(zc_reserve_poll(&f1, &fx.w[0]), ZC_PENDING);
    assert_int_equal(zc_reserve_poll(&f2, &w2), ZC_PENDING);
    expect_u64(fx.rx, 1);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    assert_int_equal(counting_waker_count(&cw2), 0);
    zc_reserve_cancel(&f1);
    assert_int_equal(counting_waker_count(&cw2), 1);
    assert_int_equal(zc_reserve_poll(&f2, &w2), ZC_OK);
    assert_int_equal(zc_permit_release(&p2), ZC_OK);
    send_u64(fx.tx, 2); /* capacity is back */
    fixture_done(&fx);
}

static void test_reserve_future_on_close_is_closed_and_permit_empty(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    send_u64(fx.tx, 1);
    zc_permit p;
    zc_reserve f;
    zc_reserve_init(&f, fx.tx, &p);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_PENDING);
    assert_true(zc_receiver_close(fx.rx));
    assert_int_equal(counting_waker_count(&fx.cw[0]), 1);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_CLOSED);
    assert_int_equal(zc_permit_release(&p), ZC_EINVAL);
    assert_int_equal(zc_try_reserve(fx.tx, &p), ZC_CLOSED);
    fixture_done(&fx);
}

static void test_commit_after_close_is_still_received_then_closed(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 2);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    zc_recv r;
    zc_recv_init(&r, fx.rx);
    expect_poll_pending(&r, &fx.w[0]);
    assert_true(zc_sender_close(fx.tx));
    /* Woken by the close, but not drained: the reserved place is still ahead. */
    expect_poll_pending(&r, &fx.w[0]);
    commit_u64(&p, 6);
    expect_poll_u64(&r, &fx.w[0], 6);
    expect_recv_status(fx.rx, ZC_CLOSED);
    fixture_done(&fx);
}

static void test_commit_after_the_last_receiver_dropped_keeps_the_message(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 4);
    zc_permit p;
    send_u64(fx.tx, 1);
    reserve_ok(fx.tx, &p);
    send_u64(fx.tx, 3);
    zc_receiver_drop(fx.rx); /* must not wait for the permit */
    assert_int_equal(drop_counter_calls(&fx.dc), 2);
    uint64_t v = 2;
    assert_int_equal(zc_permit_commit(&p, &v), ZC_CLOSED);
    assert_int_equal(drop_counter_calls(&fx.dc), 2); /* the caller kept it */
    assert_int_equal(zc_permit_commit(&p, &v), ZC_EINVAL);
    zc_sender_drop(fx.tx);
}

static void test_release_after_the_last_receiver_dropped_is_ok(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 2);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    zc_receiver_drop(fx.rx);
    assert_int_equal(zc_permit_release(&p), ZC_OK);
    assert_int_equal(drop_counter_calls(&fx.dc), 0);
    zc_sender_drop(fx.tx);
}

static void test_places_wrap_around_the_ring_many_times(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 3);
    /* Each round: a reservation released, one committed, one plain send; capacity 3 is
     * exactly used, so every lap crosses holes, reservations and messages. */
    for (uint64_t i = 0; i < 1000; i++) {
        zc_permit a, b;
        reserve_ok(fx.tx, &a);
        reserve_ok(fx.tx, &b);
        send_u64(fx.tx, 3 * i + 2);
        uint64_t v = 0;
        assert_int_equal(zc_try_send(fx.tx, &v), ZC_FULL);
        if (i % 2) {
            commit_u64(&a, 3 * i);
            assert_int_equal(zc_permit_release(&b), ZC_OK);
            expect_u64(fx.rx, 3 * i);
        } else {
            assert_int_equal(zc_permit_release(&a), ZC_OK);
            commit_u64(&b, 3 * i + 1);
            expect_u64(fx.rx, 3 * i + 1);
        }
        expect_u64(fx.rx, 3 * i + 2);
        expect_recv_status(fx.rx, ZC_EMPTY);
    }
    fixture_done(&fx);
}

static void test_unbounded_places_are_taken_at_commit(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 0);
    zc_permit p, q;
    reserve_ok(fx.tx, &p);
    reserve_ok(fx.tx, &q);
    send_u64(fx.tx, 1);
    expect_u64(fx.rx, 1); /* nothing waits behind an unbounded reservation */
    commit_u64(&p, 2);
    assert_int_equal(zc_permit_release(&q), ZC_OK);
    expect_u64(fx.rx, 2);
    expect_recv_status(fx.rx, ZC_EMPTY);
    reserve_ok(fx.tx, &p);
    assert_true(zc_sender_close(fx.tx));
    uint64_t v = 3;
    assert_int_equal(zc_permit_commit(&p, &v), ZC_CLOSED);
    assert_int_equal(zc_try_reserve(fx.tx, &p), ZC_CLOSED);
    assert_int_equal(zc_reserve_blocking(fx.tx, &p), ZC_CLOSED);
    expect_recv_status(fx.rx, ZC_CLOSED);
    fixture_done(&fx);
}

static void test_blocking_reserve_and_timeout(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    zc_permit p, q;
    assert_int_equal(zc_reserve_blocking(fx.tx, &p), ZC_OK);
    assert_int_equal(zc_reserve_timeout(fx.tx, &q, 0), ZC_TIMEDOUT);
    assert_int_equal(zc_reserve_timeout(fx.tx, &q, 1000000), ZC_TIMEDOUT); /* 1 ms */
    assert_int_equal(zc_permit_release(&q), ZC_EINVAL);
    commit_u64(&p, 4);
    expect_u64(fx.rx, 4);
    assert_int_equal(zc_reserve_timeout(fx.tx, &q, 0), ZC_OK);
    assert_int_equal(zc_permit_release(&q), ZC_OK);
    fixture_done(&fx);
}

static void test_reserve_until_at_a_past_near_and_no_deadline(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    zc_permit p, q;
    assert_int_equal(zc_reserve_until(fx.tx, &p, 0), ZC_OK); /* past: one attempt, room */
    assert_int_equal(zc_reserve_until(fx.tx, &q, 0), ZC_TIMEDOUT); /* past: full */
    assert_int_equal(zc_permit_release(&q), ZC_EINVAL); /* emptied */
    uint64_t deadline = now_ns() + 2000000; /* 2 ms */
    assert_int_equal(zc_reserve_until(fx.tx, &q, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    assert_int_equal(zc_permit_release(&q), ZC_EINVAL);
    commit_u64(&p, 4);
    expect_u64(fx.rx, 4);
    assert_int_equal(zc_reserve_until(fx.tx, &q, UINT64_MAX), ZC_OK);
    commit_u64(&q, 5);
    expect_u64(fx.rx, 5);
    assert_int_equal(zc_reserve_until(NULL, &q, UINT64_MAX), ZC_EINVAL);
    assert_int_equal(zc_reserve_until(fx.tx, NULL, 0), ZC_EINVAL);
    fixture_done(&fx);
}

static void test_bad_arguments_are_einval(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 1);
    zc_permit p;
    uint64_t v = 1;
    assert_int_equal(zc_try_reserve(NULL, &p), ZC_EINVAL);
    assert_int_equal(zc_permit_commit(&p, &v), ZC_EINVAL); /* emptied by the failure */
    assert_int_equal(zc_try_reserve(fx.tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_reserve_blocking(NULL, &p), ZC_EINVAL);
    assert_int_equal(zc_reserve_timeout(fx.tx, NULL, 0), ZC_EINVAL);
    assert_int_equal(zc_permit_commit(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_permit_release(NULL), ZC_EINVAL);
    reserve_ok(fx.tx, &p);
    assert_int_equal(zc_permit_commit(&p, NULL), ZC_EINVAL); /* still held */
    commit_u64(&p, 1);
    assert_int_equal(zc_permit_commit(&p, &v), ZC_EINVAL); /* used */
    assert_int_equal(zc_permit_release(&p), ZC_EINVAL);
    expect_u64(fx.rx, 1);
    zc_reserve f;
    zc_reserve_init(&f, fx.tx, &p);
    assert_int_equal(zc_reserve_poll(&f, NULL), ZC_EINVAL);
    zc_reserve_init(&f, fx.tx, NULL);
    assert_int_equal(zc_reserve_poll(&f, &fx.w[0]), ZC_EINVAL);
    assert_int_equal(zc_reserve_poll(NULL, &fx.w[0]), ZC_EINVAL);
    zc_reserve_init(NULL, fx.tx, &p);
    zc_reserve_cancel(NULL);
    assert_int_equal(counting_waker_count(&fx.cw[0]), 0);
    send_u64(fx.tx, 2); /* nothing was reserved by the failures */
    fixture_done(&fx);
}

/* k receiver tasks whose executor polls inside the wake wait behind a reservation with
 * k - 1 messages queued after it; the commit lets all k through and wakes the k
 * receivers one after another from its own frame, one for each message (rules 4 and 5):
 * one wake deep, not one level per receiver. */
enum { NEST = 200 };
typedef struct nest_receiver {
    zc_recv f;
    zc_waker w;
    uint64_t got;
    bool done;
} nest_receiver;
static int receiver_depth, receiver_max;

static void nest_receiver_wake(void *ctx) {
    nest_receiver *t = ctx;
    if (++receiver_depth > receiver_max) receiver_max = receiver_depth;
    if (!t->done && zc_recv_poll(&t->f, &t->w, &t->got) != ZC_PENDING) t->done = true;
    receiver_depth--;
}

static void test_commit_letting_many_through_to_inline_receivers_does_not_nest_their_wakes(
    void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, NEST);
    static nest_receiver ts[NEST];
    for (int i = 0; i < NEST; i++) {
        ts[i] = (nest_receiver){.done = false};
        ts[i].w = (zc_waker){nest_receiver_wake, &ts[i]};
        zc_recv_init(&ts[i].f, fx.rx);
        expect_poll_pending(&ts[i].f, &ts[i].w);
    }
    zc_permit p;
    reserve_ok(fx.tx, &p);
    for (uint64_t v = 1; v < NEST; v++) send_u64(fx.tx, v); /* all behind the permit */
    receiver_depth = receiver_max = 0;
    commit_u64(&p, 0);
    for (int i = 0; i < NEST; i++) {
        assert_true(ts[i].done);
        assert_int_equal(ts[i].got, (uint64_t)i); /* woken in the order they registered */
    }
    assert_int_equal(receiver_max, 1);
    fixture_done(&fx);
}

/* Rule 5 under an executor that polls inside the wake: 2k sender tasks wait on a
 * bounded(k) whose k places are all reserved; releasing the newest k - 1 leaves holes
 * behind the oldest, and releasing the oldest frees all k slots at once. That must wake
 * the k oldest senders once each and no one else (the first woken sender's pass-ons
 * filled the slots, and the release's k - 1 other wakes found the channel full). */
enum { HERD_K = 10 };
static void test_release_freeing_many_slots_wakes_inline_senders_once_each(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, HERD_K);
    zc_permit p[HERD_K];
    for (int i = 0; i < HERD_K; i++) reserve_ok(fx.tx, &p[i]);
    static inline_sender ts[2 * HERD_K];
    for (int i = 0; i < 2 * HERD_K; i++) inline_sender_wait(&ts[i], fx.tx, (uint64_t)i);
    for (int i = HERD_K - 1; i > 0; i--) assert_int_equal(zc_permit_release(&p[i]), ZC_OK);
    for (int i = 0; i < 2 * HERD_K; i++) assert_int_equal(ts[i].wakes, 0);
    assert_int_equal(zc_permit_release(&p[0]), ZC_OK);
    for (int i = 0; i < HERD_K; i++) {
        assert_int_equal(ts[i].wakes, 1);
        assert_true(ts[i].done);
    }
    for (int i = HERD_K; i < 2 * HERD_K; i++) assert_int_equal(ts[i].wakes, 0);
    for (uint64_t v = 0; v < HERD_K; v++) expect_u64(fx.rx, v); /* in order; frees k */
    for (int i = HERD_K; i < 2 * HERD_K; i++) assert_true(ts[i].done);
    fixture_done(&fx);
}

/* Two receive futures wait behind a held permit under an executor that polls inside the
 * wake, and the channel is closed. Behind the permit a receive is still ZC_PENDING (the
 * commit is to come), so each woken future registers again from inside its wake; the
 * close must not pop it again and again (for ever), and must wake the other one too
 * (only close wakes all, rule 5): a future registering again during the close goes to
 * the back, not to the front, where a woken waiter that registers again keeps its turn
 * (at the front, the close would wake the first receiver twice and never the second).
 * The commit on the
 * closed channel then wakes both: the first takes the message, the second is told
 * ZC_CLOSED. */
typedef struct behind_permit {
    zc_recv f;
    uint64_t got;
    unsigned wakes;
    zc_status status;
} behind_permit;

static void behind_permit_wake(void *ctx) {
    behind_permit *b = ctx;
    b->wakes++;
    zc_waker w = {behind_permit_wake, b};
    b->status = zc_recv_poll(&b->f, &w, &b->got);
}

static void test_close_wakes_each_inline_receiver_behind_a_permit_once(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 2);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    behind_permit rs[2];
    for (int i = 0; i < 2; i++) {
        rs[i] = (behind_permit){.wakes = 0};
        zc_recv_init(&rs[i].f, fx.rx);
        zc_waker w = {behind_permit_wake, &rs[i]};
        expect_poll_pending(&rs[i].f, &w);
    }
    assert_true(zc_sender_close(fx.tx));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rs[i].wakes, 1);
        assert_int_equal(rs[i].status, ZC_PENDING);
    }
    commit_u64(&p, 77);
    assert_int_equal(rs[0].wakes, 2);
    assert_int_equal(rs[0].status, ZC_OK);
    assert_int_equal(rs[0].got, 77);
    assert_int_equal(rs[1].wakes, 2);
    assert_int_equal(rs[1].status, ZC_CLOSED);
    fixture_done(&fx);
}

/* A commit at the oldest place wakes one receiver for each message it lets through
 * (waker rule 4), holes included in the way: reservation P0, reservation P1 released (a
 * hole behind P0, kept until head reaches it), message 2; two receive futures wait.
 * Committing P0 makes two messages receivable past the hole: both receivers are woken
 * (the run from head does not stop at the hole). */
static void test_a_commit_wakes_a_receiver_for_each_message_past_a_hole(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 4);
    zc_permit p0, p1;
    reserve_ok(fx.tx, &p0);
    reserve_ok(fx.tx, &p1);
    send_u64(fx.tx, 2);
    assert_int_equal(zc_permit_release(&p1), ZC_OK);
    zc_recv r[2];
    pend_receivers(&fx, r, 2);
    commit_u64(&p0, 0);
    assert_int_equal(wakes(&fx, 0), 1);
    assert_int_equal(wakes(&fx, 1), 1);
    expect_poll_u64(&r[0], &fx.w[0], 0);
    expect_poll_u64(&r[1], &fx.w[1], 2);
    fixture_done(&fx);
}

/* And no more (rule 5): the messages before the committed place were receivable before,
 * and their receivers were woken then. Three receive futures wait; message 0 wakes the
 * first; a commit behind it wakes the second only (counting the run from head would wake
 * the third too). */
static void test_a_commit_wakes_no_receiver_for_the_messages_before_it(void **state) {
    (void)state;
    fixture fx;
    fixture_init(&fx, 4);
    zc_recv r[3];
    pend_receivers(&fx, r, 3);
    send_u64(fx.tx, 0);
    zc_permit p;
    reserve_ok(fx.tx, &p);
    commit_u64(&p, 1);
    assert_int_equal(wakes(&fx, 0), 1);
    assert_int_equal(wakes(&fx, 1), 1);
    assert_int_equal(wakes(&fx, 2), 0);
    expect_poll_u64(&r[0], &fx.w[0], 0);
    expect_poll_u64(&r[1], &fx.w[1], 1);
    zc_recv_cancel(&r[2]);
    fixture_done(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_message_takes_its_place_at_reserve_time),
        cmocka_unit_test(test_a_commit_wakes_a_receiver_for_each_message_past_a_hole),
        cmocka_unit_test(test_a_commit_wakes_no_receiver_for_the_messages_before_it),
        cmocka_unit_test(test_reservations_take_capacity_until_released),
        cmocka_unit_test(test_a_released_place_in_the_middle_is_skipped_by_receivers),
        cmocka_unit_test(test_places_released_newest_first_are_all_free_again),
        cmocka_unit_test(test_a_sender_skips_a_released_place_that_became_the_oldest),
        cmocka_unit_test(test_a_stale_copy_of_a_permit_is_einval_and_changes_nothing),
        cmocka_unit_test(test_recv_many_stops_at_a_reservation_or_a_hole_behind_a_message),
        cmocka_unit_test(test_commit_wakes_a_receiver_waiting_behind_the_reservation),
        cmocka_unit_test(test_release_wakes_a_receiver_waiting_behind_the_reservation),
        cmocka_unit_test(test_release_at_head_wakes_a_waiting_sender),
        cmocka_unit_test(test_a_receive_reaching_a_hole_wakes_a_sender_for_its_slot_too),
        cmocka_unit_test(test_reserve_future_waits_for_room_and_keeps_its_result),
        cmocka_unit_test(test_cancelled_reserve_future_passes_its_wake_up_on),
        cmocka_unit_test(test_reserve_future_on_close_is_closed_and_permit_empty),
        cmocka_unit_test(test_commit_after_close_is_still_received_then_closed),
        cmocka_unit_test(test_commit_after_the_last_receiver_dropped_keeps_the_message),
        cmocka_unit_test(test_release_after_the_last_receiver_dropped_is_ok),
        cmocka_unit_test(test_places_wrap_around_the_ring_many_times),
        cmocka_unit_test(test_unbounded_places_are_taken_at_commit),
        cmocka_unit_test(test_blocking_reserve_and_timeout),
        cmocka_unit_test(test_reserve_until_at_a_past_near_and_no_deadline),
        cmocka_unit_test(test_bad_arguments_are_einval),
        cmocka_unit_test(
            test_commit_letting_many_through_to_inline_receivers_does_not_nest_their_wakes),
        cmocka_unit_test(test_close_wakes_each_inline_receiver_behind_a_permit_once),
        cmocka_unit_test(test_release_freeing_many_slots_wakes_inline_senders_once_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

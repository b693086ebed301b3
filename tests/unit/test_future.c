/* Unit tests of the send/recv futures and the waker contract (zchan/mpmc.h,
 * zchan/waker.h, spec/api.md), on one thread with counting wakers and manual polling:
 * who is woken, how often, in which order, and what cancel passes on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include <zchan/mpmc.h>

#include "u64_fixture.h"

enum { WAITERS = FIXTURE_WAITERS };

/* ---- receive futures ------------------------------------------------------------------
 */

static void
test_recv_poll_on_empty_channel_returns_pending_and_a_send_wakes_it_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    assert_int_equal(wakes(&f, 0), 0);
    send_u64(f.tx, 7);
    assert_int_equal(wakes(&f, 0), 1);
    send_u64(f.tx, 8); /* at most once per registration */
    assert_int_equal(wakes(&f, 0), 1);
    expect_poll_u64(&r, &f.w[0], 7);
    send_u64(f.tx, 9); /* completed: never woken again */
    assert_int_equal(wakes(&f, 0), 1);
    expect_poll_u64(&r, &f.w[0], 8);
    expect_poll_u64(&r, &f.w[0], 9);
    fixture_done(&f);
}

static void test_recv_poll_with_a_message_waiting_completes_at_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_u64(f.tx, 5);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_u64(&r, &f.w[0], 5);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(channel_len(&f), 0);
    fixture_done(&f);
}

static void
test_two_pending_receivers_are_woken_one_per_send_in_registration_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r[2];
    for (int i = 0; i < 2; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    send_u64(f.tx, 2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(counting_waker_order(&f.cw[0]), 1);
    assert_int_equal(counting_waker_order(&f.cw[1]), 2);
    expect_poll_u64(&r[0], &f.w[0], 1);
    expect_poll_u64(&r[1], &f.w[1], 2);
    fixture_done(&f);
}

static void
test_three_pending_receivers_and_one_message_make_exactly_one_wake(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 1); /* the first to register */
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(wakes(&f, 2), 0);
    expect_poll_u64(&r[0], &f.w[0], 1);
    zc_recv_cancel(&r[1]);
    zc_recv_cancel(&r[2]);
    assert_int_equal(wakes(&f, 1), 0); /* cancelling un-woken waiters passes nothing on */
    assert_int_equal(wakes(&f, 2), 0);
    fixture_done(&f);
}

/* Waker rule 4 (spec/api.md): each message wakes a waiter that can use it, within the
 * send, however many were woken before and are not polled yet (their executor may be
 * busy, or stalled waiting on the others). Rule 5: one each, in registration order. */
static void pending_receivers_are_woken_one_a_message(size_t cap) {
    fixture f;
    fixture_init(&f, cap);
    zc_recv r[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    for (int m = 0; m < WAITERS; m++) {
        send_u64(f.tx, 10 + (uint64_t)m); /* none of the woken is polled meanwhile */
        for (int i = 0; i < WAITERS; i++)
            assert_int_equal(wakes(&f, i), i <= m ? 1 : 0);
    }
    for (int i = WAITERS - 1; i >= 0; i--) /* polled last-woken first: FIFO by message */
        expect_poll_u64(&r[i], &f.w[i], 10 + (uint64_t)(WAITERS - 1 - i));
    for (int i = 0; i < WAITERS; i++) assert_int_equal(wakes(&f, i), 1);
    fixture_done(&f);
}

static void test_pending_receivers_are_woken_one_a_message_bounded(void **state) {
    (void)state;
    pending_receivers_are_woken_one_a_message(4);
}

static void test_pending_receivers_are_woken_one_a_message_unbounded(void **state) {
    (void)state;
    pending_receivers_are_woken_one_a_message(0);
}

/* The same for senders: each slot freed wakes one more pending sender. */
static void test_pending_senders_are_woken_one_a_freed_slot(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, WAITERS);
    for (int m = 0; m < WAITERS; m++) send_u64(f.tx, (uint64_t)m); /* full */
    zc_send s[WAITERS];
    uint64_t msg[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        msg[i] = 100 + (uint64_t)i;
        zc_send_init(&s[i], f.tx, &msg[i]);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_PENDING);
    }
    for (int m = 0; m < WAITERS; m++) {
        expect_u64(f.rx, (uint64_t)m);
        for (int i = 0; i < WAITERS; i++)
            assert_int_equal(wakes(&f, i), i <= m ? 1 : 0);
    }
    for (int i = 0; i < WAITERS; i++) assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_OK);
    for (int i = 0; i < WAITERS; i++) expect_u64(f.rx, 100 + (uint64_t)i);
    for (int i = 0; i < WAITERS; i++) assert_int_equal(wakes(&f, i), 1);
    fixture_done(&f);
}

static void test_woken_receiver_cancelled_before_its_poll_passes_the_wake_on(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r[2];
    for (int i = 0; i < 2; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    zc_recv_cancel(&r[0]); /* took no message; the wake goes to r[1] */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(channel_len(&f), 1);
    expect_poll_u64(&r[1], &f.w[1], 1);
    fixture_done(&f);
}

static void test_cancelled_recv_starts_over_when_polled_again(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    zc_recv_cancel(&r);
    send_u64(f.tx, 1); /* deregistered: not woken */
    assert_int_equal(wakes(&f, 0), 0);
    expect_poll_u64(&r, &f.w[0], 1);
    expect_poll_pending(&r, &f.w[1]);
    send_u64(f.tx, 2);
    assert_int_equal(wakes(&f, 1), 1);
    expect_poll_u64(&r, &f.w[1], 2);
    fixture_done(&f);
}

static void test_later_poll_replaces_the_waker(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    expect_poll_pending(&r, &f.w[1]);
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(wakes(&f, 1), 1);
    expect_poll_u64(&r, &f.w[1], 1);
    fixture_done(&f);
}

static void test_repolling_with_the_same_waker_keeps_one_registration(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r, other;
    zc_recv_init(&r, f.rx);
    zc_recv_init(&other, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    expect_poll_pending(&other, &f.w[1]);
    expect_poll_pending(&r, &f.w[0]); /* still first in line, registered once */
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    send_u64(f.tx, 2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    expect_poll_u64(&r, &f.w[0], 1);
    expect_poll_u64(&other, &f.w[1], 2);
    fixture_done(&f);
}

static void test_recv_future_is_a_stream_that_ends_with_closed(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    for (uint64_t i = 0; i < 3; i++)
        send_u64(f.tx, i);
    for (uint64_t i = 0; i < 3; i++)
        expect_poll_u64(&r, &f.w[0], i);
    expect_poll_pending(&r, &f.w[0]);
    send_u64(f.tx, 3);
    assert_int_equal(wakes(&f, 0), 1);
    expect_poll_u64(&r, &f.w[0], 3);
    expect_poll_pending(&r, &f.w[0]);
    send_u64(f.tx, 4);
    assert_true(zc_sender_close(f.tx)); /* close with a message left */
    assert_int_equal(wakes(&f, 0), 2);
    expect_poll_u64(&r, &f.w[0], 4);
    uint64_t out = 0;
    assert_int_equal(zc_recv_poll(&r, &f.w[0], &out), ZC_CLOSED);
    assert_int_equal(zc_recv_poll(&r, &f.w[0], &out), ZC_CLOSED);
    assert_int_equal(out, 0);
    assert_int_equal(wakes(&f, 0), 2);
    fixture_done(&f);
}

static void test_unbounded_send_wakes_a_pending_receiver(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    uint64_t msg = 42;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_OK); /* unbounded: never pends */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    expect_poll_u64(&r, &f.w[0], 42);
    fixture_done(&f);
}

/* ---- send futures -----------------------------------------------------------------------
 */

static void test_send_future_on_full_channel_pends_until_a_recv_frees_a_slot(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    pend_senders(&f, s, msg, 1);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(channel_len(&f), 1);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    assert_int_equal(channel_len(&f), 1);
    expect_u64(f.rx, 100);
    assert_int_equal(wakes(&f, 0), 1);
    fixture_done(&f);
}

static void
test_completed_send_polled_again_returns_ok_and_sends_nothing_more(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t msg = 3;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_OK);
    assert_int_equal(channel_len(&f), 1);
    zc_send_cancel(&s); /* completed: cancel is a no-op, it stays completed */
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(channel_len(&f), 1);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 0);
    fixture_done(&f);
}

static void test_send_that_saw_closed_polled_again_returns_closed(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    assert_true(zc_receiver_close(f.rx));
    uint64_t msg = 3;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_CLOSED);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_CLOSED);
    zc_send_cancel(&s);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_CLOSED);
    assert_int_equal(msg, 3);
    assert_int_equal(channel_len(&f), 0);
    fixture_done(&f);
}

static void test_send_completed_ok_stays_ok_after_the_channel_closes(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t msg = 3;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    assert_true(zc_sender_close(f.tx));
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    expect_u64(f.rx, 3);
    fixture_done(&f);
}

static void test_cancel_of_never_polled_futures_is_a_no_op(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    uint64_t msg = 8;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    zc_send_cancel(&s);
    assert_int_equal(channel_len(&f), 0);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_OK);
    assert_int_equal(channel_len(&f), 1);

    zc_recv r;
    zc_recv_init(&r, f.rx);
    zc_recv_cancel(&r);
    assert_int_equal(channel_len(&f), 1);
    expect_poll_u64(&r, &f.w[1], 8);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 0);
    fixture_done(&f);
}

static void test_cancel_of_completed_recv_takes_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    send_u64(f.tx, 1);
    send_u64(f.tx, 2);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_u64(&r, &f.w[0], 1);
    zc_recv_cancel(&r);
    assert_int_equal(channel_len(&f), 1);
    expect_u64(f.rx, 2);
    fixture_done(&f);
}

static void test_cancelled_send_sent_nothing_and_can_start_over(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    pend_senders(&f, s, msg, 1);
    zc_send_cancel(&s[0]);
    assert_int_equal(msg[0], 100);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 0), 0); /* deregistered before the slot was freed */
    assert_int_equal(channel_len(&f), 0);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK); /* starts over */
    expect_u64(f.rx, 100);
    fixture_done(&f);
}

static void test_pending_senders_are_woken_one_per_freed_slot_in_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[2];
    uint64_t msg[2];
    pend_senders(&f, s, msg, 2);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    expect_u64(f.rx, 100);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    expect_u64(f.rx, 101);
    assert_int_equal(counting_waker_order(&f.cw[0]), 1);
    assert_int_equal(counting_waker_order(&f.cw[1]), 2);
    fixture_done(&f);
}

static void
test_woken_sender_cancelled_passes_the_wake_on_and_capacity_is_intact(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[2];
    uint64_t msg[2];
    pend_senders(&f, s, msg, 2);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    zc_send_cancel(&s[0]); /* sent nothing; the wake goes to s[1] */
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(channel_len(&f), 0);
    zc_send_cancel(&s[1]); /* and nobody is left to pass it to */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(channel_len(&f), 0);
    uint64_t v = 55; /* the freed slot is still there for anyone */
    assert_int_equal(zc_try_send(f.tx, &v), ZC_OK);
    assert_int_equal(zc_try_send(f.tx, &v), ZC_FULL);
    expect_u64(f.rx, 55);
    fixture_done(&f);
}

static void test_woken_sender_cancelled_lets_the_next_sender_complete(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[2];
    uint64_t msg[2];
    pend_senders(&f, s, msg, 2);
    expect_u64(f.rx, 1);
    zc_send_cancel(&s[0]);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    expect_u64(f.rx, 101);
    uint64_t out;
    assert_int_equal(zc_try_recv(f.rx, &out), ZC_EMPTY);
    fixture_done(&f);
}

/* ---- who wakes whom
 * ---------------------------------------------------------------------- */

static void test_send_future_completion_wakes_a_pending_receiver(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    uint64_t msg = 6;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_OK);
    assert_int_equal(wakes(&f, 0), 1);
    expect_poll_u64(&r, &f.w[0], 6);
    fixture_done(&f);
}

static void test_recv_future_completion_wakes_a_pending_sender(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    pend_senders(&f, s, msg, 1);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_u64(&r, &f.w[1], 1);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    expect_poll_u64(&r, &f.w[1], 100);
    fixture_done(&f);
}

static void test_try_send_and_try_recv_wake_the_waiters_the_futures_would(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    send_u64(f.tx, 1); /* try_send wakes the pending receiver */
    assert_int_equal(wakes(&f, 0), 1);
    uint64_t msg = 2;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_PENDING);
    expect_u64(f.rx, 1); /* try_recv wakes the pending sender */
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_OK);
    expect_poll_u64(&r, &f.w[0], 2);
    fixture_done(&f);
}

/* ---- close ------------------------------------------------------------------------------
 */

static void test_close_wakes_every_pending_sender_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[WAITERS];
    uint64_t msg[WAITERS];
    pend_senders(&f, s, msg, WAITERS);
    assert_true(zc_receiver_close(f.rx));
    for (int i = 0; i < WAITERS; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_CLOSED);
        assert_int_equal(msg[i], 100 + (uint64_t)i);
    }
    expect_u64(f.rx, 1); /* what was sent before the close is still received */
    for (int i = 0; i < WAITERS; i++)
        assert_int_equal(wakes(&f, i), 1);
    fixture_done(&f);
}

static void test_close_wakes_every_pending_receiver_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    assert_true(zc_sender_close(f.tx));
    uint64_t out = 0;
    for (int i = 0; i < WAITERS; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(zc_recv_poll(&r[i], &f.w[i], &out), ZC_CLOSED);
    }
    assert_int_equal(out, 0);
    fixture_done(&f);
}

static void test_dropping_the_last_sender_wakes_every_pending_receiver(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    zc_recv r[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        zc_recv_init(&r[i], f.rx);
        expect_poll_pending(&r[i], &f.w[i]);
    }
    zc_sender_drop(f.tx);
    uint64_t out = 0;
    for (int i = 0; i < WAITERS; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(zc_recv_poll(&r[i], &f.w[i], &out), ZC_CLOSED);
    }
    zc_receiver_drop(f.rx);
}

static void test_dropping_the_last_receiver_wakes_every_pending_sender(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[WAITERS];
    uint64_t msg[WAITERS];
    pend_senders(&f, s, msg, WAITERS);
    zc_receiver_drop(f.rx);
    for (int i = 0; i < WAITERS; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_CLOSED);
    }
    zc_sender_drop(f.tx);
}

static void test_poll_after_close_wakes_nothing_and_pends_never(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    assert_true(zc_sender_close(f.tx));
    zc_recv r;
    zc_recv_init(&r, f.rx);
    uint64_t out = 0, msg = 1;
    assert_int_equal(zc_recv_poll(&r, &f.w[0], &out), ZC_CLOSED);
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_CLOSED);
    assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 0);
    fixture_done(&f);
}

/* ---- bad arguments
 * ------------------------------------------------------------------------ */

static void noop_wake(void *ctx) { (void)ctx; }

static void
test_poll_with_null_arguments_returns_einval_and_registers_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_waker null_wake = {NULL, &f.cw[0]};
    uint64_t msg = 1, out = 0;

    zc_send s;
    assert_int_equal(zc_send_poll(NULL, &f.w[0]), ZC_EINVAL);
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, NULL), ZC_EINVAL);
    assert_int_equal(zc_send_poll(&s, &null_wake), ZC_EINVAL);
    zc_send_init(&s, NULL, &msg);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_EINVAL);
    zc_send_init(&s, f.tx, NULL);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_EINVAL);
    assert_int_equal(channel_len(&f), 0);

    zc_recv r;
    assert_int_equal(zc_recv_poll(NULL, &f.w[0], &out), ZC_EINVAL);
    zc_recv_init(&r, f.rx);
    assert_int_equal(zc_recv_poll(&r, NULL, &out), ZC_EINVAL);
    assert_int_equal(zc_recv_poll(&r, &null_wake, &out), ZC_EINVAL);
    assert_int_equal(zc_recv_poll(&r, &f.w[0], NULL), ZC_EINVAL);
    zc_recv_init(&r, NULL);
    assert_int_equal(zc_recv_poll(&r, &f.w[0], &out), ZC_EINVAL);

    /* None of those registered a waiter: a send and a receive wake nobody. */
    send_u64(f.tx, 2);
    expect_u64(f.rx, 2);
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(out, 0);
    fixture_done(&f);
}

static void test_einval_poll_of_a_full_channel_registers_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    send_u64(f.tx, 1);
    zc_waker null_wake = {NULL, NULL};
    uint64_t msg = 2;
    zc_send s;
    zc_send_init(&s, f.tx, &msg);
    assert_int_equal(zc_send_poll(&s, &null_wake), ZC_EINVAL);
    zc_waker noop = {noop_wake, NULL};
    zc_send other;
    zc_send_init(&other, f.tx, &msg);
    assert_int_equal(zc_send_poll(&other, &f.w[1]), ZC_PENDING);
    expect_u64(f.rx, 1); /* the only registered sender is the one woken */
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&other, &noop), ZC_OK);
    expect_u64(f.rx, 2);
    fixture_done(&f);
}

/* Waker rule 3: after a poll returns anything but ZC_PENDING, the waker is never called
 * again, so an executor may free the task. That holds for ZC_EINVAL too: a pending
 * future polled with a bad argument must not stay registered with its old waker. */
static void test_einval_poll_of_a_pending_future_leaves_no_waker_registered(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_recv r;
    zc_recv_init(&r, f.rx);
    expect_poll_pending(&r, &f.w[0]);
    assert_int_equal(zc_recv_poll(&r, &f.w[0], NULL), ZC_EINVAL);
    send_u64(f.tx, 1);
    assert_int_equal(wakes(&f, 0), 0);

    uint64_t msg = 2;
    zc_send s;
    zc_send_init(&s, f.tx, &msg); /* the channel is full */
    assert_int_equal(zc_send_poll(&s, &f.w[1]), ZC_PENDING);
    assert_int_equal(zc_send_poll(&s, NULL), ZC_EINVAL);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 1), 0);
    zc_recv_cancel(&r);
    zc_send_cancel(&s);
    fixture_done(&f);
}

static void test_init_and_cancel_of_null_futures_do_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    uint64_t msg = 1;
    zc_send_init(NULL, f.tx, &msg);
    zc_send_cancel(NULL);
    zc_recv_init(NULL, f.rx);
    zc_recv_cancel(NULL);
    assert_int_equal(channel_len(&f), 0);
    fixture_done(&f);
}

/* ---- re-entrant wakers
 * ---------------------------------------------------------------------- */

/* What a re-entrant wake does, and what it saw. */
typedef struct reentry {
    fixture *f;
    zc_recv *r;
    zc_send *s;
    zc_status status; /* of the call made inside wake */
    uint64_t out;
    int calls;
} reentry;

static void poll_recv_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_recv_poll(re->r, &re->f->w[0], &re->out);
}

static void cancel_recv_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    zc_recv_cancel(re->r);
}

static void try_recv_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_try_recv(re->f->rx, &re->out);
}

static void poll_send_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_send_poll(re->s, &re->f->w[0]);
}

static void try_send_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    uint64_t v = 900;
    re->status = zc_try_send(re->f->tx, &v);
}

static void cancel_send_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    zc_send_cancel(re->s);
}

/* A pending receive future whose waker runs hook(re) inside wake. */
static void pend_reentrant_recv(fixture *f, zc_recv *r, reentry *re,
                                void (*hook)(void *arg)) {
    memset(re, 0, sizeof *re);
    re->f = f;
    re->r = r;
    re->status = ZC_EINVAL;
    f->cw[0].on_wake = hook;
    f->cw[0].arg = re;
    zc_recv_init(r, f->rx);
    expect_poll_pending(r, &f->w[0]);
}

static void test_wake_that_polls_its_own_recv_future_completes_it(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    reentry re;
    pend_reentrant_recv(&f, &r, &re, poll_recv_inside_wake);
    send_u64(f.tx, 31);
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.status, ZC_OK);
    assert_int_equal(re.out, 31);
    assert_int_equal(channel_len(&f), 0);
    send_u64(f.tx, 32); /* completed inside wake: not registered any more */
    assert_int_equal(re.calls, 1);
    fixture_done(&f);
}

static void test_wake_that_cancels_its_own_recv_future_leaves_the_message(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    reentry re;
    pend_reentrant_recv(&f, &r, &re, cancel_recv_inside_wake);
    send_u64(f.tx, 31);
    assert_int_equal(re.calls, 1);
    assert_int_equal(channel_len(&f), 1);
    send_u64(f.tx, 32);
    assert_int_equal(re.calls, 1);
    expect_u64(f.rx, 31);
    expect_u64(f.rx, 32);
    fixture_done(&f);
}

static void
test_wake_that_cancels_its_recv_passes_the_wake_to_the_next_receiver(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r, next;
    reentry re;
    pend_reentrant_recv(&f, &r, &re, cancel_recv_inside_wake);
    zc_recv_init(&next, f.rx);
    expect_poll_pending(&next, &f.w[1]);
    send_u64(f.tx, 31);
    assert_int_equal(re.calls, 1);
    assert_int_equal(wakes(&f, 1), 1);
    expect_poll_u64(&next, &f.w[1], 31);
    fixture_done(&f);
}

static void test_wake_that_calls_try_recv_takes_the_message(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    reentry re;
    pend_reentrant_recv(&f, &r, &re, try_recv_inside_wake);
    send_u64(f.tx, 31);
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.status, ZC_OK);
    assert_int_equal(re.out, 31);
    f.cw[0].on_wake = NULL;
    expect_poll_pending(&r, &f.w[0]); /* the message is gone: pending again */
    send_u64(f.tx, 32);
    assert_int_equal(wakes(&f, 0), 2);
    expect_poll_u64(&r, &f.w[0], 32);
    fixture_done(&f);
}

/* A pending send future on a full channel of capacity 1 whose waker runs hook(re). */
static void pend_reentrant_send(fixture *f, zc_send *s, uint64_t *msg, reentry *re,
                                void (*hook)(void *arg)) {
    memset(re, 0, sizeof *re);
    re->f = f;
    re->s = s;
    re->status = ZC_EINVAL;
    f->cw[0].on_wake = hook;
    f->cw[0].arg = re;
    pend_senders(f, s, msg, 1);
}

static void test_wake_that_polls_its_own_send_future_completes_it(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    reentry re;
    pend_reentrant_send(&f, s, msg, &re, poll_send_inside_wake);
    expect_u64(f.rx, 1);
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.status, ZC_OK);
    assert_int_equal(channel_len(&f), 1);
    expect_u64(f.rx, 100);
    assert_int_equal(re.calls, 1);
    fixture_done(&f);
}

static void test_wake_that_calls_try_send_fills_the_freed_slot(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    reentry re;
    pend_reentrant_send(&f, s, msg, &re, try_send_inside_wake);
    expect_u64(f.rx, 1);
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.status, ZC_OK);
    f.cw[0].on_wake = NULL;
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_PENDING); /* full again */
    expect_u64(f.rx, 900);
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    expect_u64(f.rx, 100);
    fixture_done(&f);
}

static void test_wake_that_cancels_its_own_send_future_sends_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    reentry re;
    pend_reentrant_send(&f, s, msg, &re, cancel_send_inside_wake);
    expect_u64(f.rx, 1);
    assert_int_equal(re.calls, 1);
    assert_int_equal(channel_len(&f), 0);
    uint64_t out;
    assert_int_equal(zc_try_recv(f.rx, &out), ZC_EMPTY);
    assert_int_equal(re.calls, 1);
    fixture_done(&f);
}

static void test_close_runs_reentrant_wakes_without_deadlock(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r;
    reentry re;
    pend_reentrant_recv(&f, &r, &re, poll_recv_inside_wake);
    assert_true(zc_sender_close(f.tx));
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.status, ZC_CLOSED);
    fixture_done(&f);
}

/* ---- inline executors: a future polled again while still registered ------------------ */

/* A future registered by an earlier poll and polled again before any wake (a task that
 * also waits on something else) completes; the wake its operation owes the other side
 * runs an inline peer, whose operation wakes the head of this side's list: the very
 * future whose poll is still running. Were it still linked, its inline executor would
 * poll it again inside the first poll: a send would go in twice, a receive take the next
 * message into the same buffer. A poll takes its node off before it makes the wakes it
 * owes. */
static void make_u64_bounded(size_t cap, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    assert_int_equal(zc_bounded(cap, &cfg, tx, rx), ZC_OK);
}

static zc_waker lazy_waker(counting_waker *cw) { /* a queueing executor: counts only */
    counting_waker_init(cw);
    return counting_waker_of(cw);
}

typedef struct inline_send {
    zc_send f;
    zc_waker w;
    int depth, max_depth, wakes;
    zc_status inner;
} inline_send;

static void inline_send_wake(void *ctx) {
    inline_send *a = ctx;
    a->wakes++;
    if (++a->depth > a->max_depth) a->max_depth = a->depth;
    a->inner = zc_send_poll(&a->f, &a->w);
    a->depth--;
}

typedef struct inline_stream {
    zc_recv f;
    zc_waker w;
    uint64_t *out; /* the task's one buffer */
    uint64_t got[8];
    int n, depth, max_depth;
} inline_stream;

static void inline_stream_drain(inline_stream *r) {
    if (++r->depth > r->max_depth) r->max_depth = r->depth;
    while (zc_recv_poll(&r->f, &r->w, r->out) == ZC_OK && r->n < 8) r->got[r->n++] = *r->out;
    r->depth--;
}

static void inline_stream_wake(void *ctx) { inline_stream_drain(ctx); }

/* r0 (polled with the lazy waker lw), then the inline stream r, wait on rx, in order. */
static void wait_lazy_then_inline(zc_receiver *rx, zc_recv *r0, const zc_waker *lw,
                                  inline_stream *r) {
    uint64_t v;
    zc_recv_init(r0, rx);
    assert_int_equal(zc_recv_poll(r0, lw, &v), ZC_PENDING);
    zc_recv_init(&r->f, rx);
    r->w = (zc_waker){inline_stream_wake, r};
    assert_int_equal(zc_recv_poll(&r->f, &r->w, r->out), ZC_PENDING);
}

static void test_send_polled_again_while_registered_is_not_woken_inside_its_poll(
    void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_bounded(1, &tx, &rx);
    counting_waker lazy;
    zc_waker lw = lazy_waker(&lazy);
    uint64_t v, buf = 0;
    zc_recv r0;
    inline_stream r = {.out = &buf};
    wait_lazy_then_inline(rx, &r0, &lw, &r);
    send_u64(tx, 0x10); /* wakes r0 (lazy): it holds the wake-up; the channel is full */
    uint64_t m2 = 0xa2;
    zc_send s2; /* a lazy sender, then an inline one */
    zc_send_init(&s2, tx, &m2);
    assert_int_equal(zc_send_poll(&s2, &lw), ZC_PENDING);
    uint64_t ma = 0xa;
    inline_send a = {.inner = ZC_EINVAL};
    zc_send_init(&a.f, tx, &ma);
    a.w = (zc_waker){inline_send_wake, &a};
    assert_int_equal(zc_send_poll(&a.f, &a.w), ZC_PENDING);
    expect_u64(rx, 0x10); /* frees the slot: wakes s2 (lazy) */

    a.depth = 1; /* the owner polls a again, before any wake of it */
    assert_int_equal(zc_send_poll(&a.f, &a.w), ZC_OK);
    a.depth = 0;
    assert_int_equal(a.wakes, 0); /* not woken while its poll ran */
    zc_send_cancel(&s2);
    zc_recv_cancel(&r0);
    int delivered = 0;
    for (int i = 0; i < r.n; i++) delivered += r.got[i] == 0xa;
    while (zc_try_recv(rx, &v) == ZC_OK) delivered += v == 0xa;
    assert_int_equal(delivered, 1);
    zc_recv_cancel(&r.f);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static inline_send *stream_sender; /* the inline sender a receive test's stream wakes */
static void inline_send_poll_wake(void *ctx) {
    (void)ctx;
    zc_send_poll(&stream_sender->f, &stream_sender->w);
}

static void test_receive_polled_again_while_registered_is_not_woken_inside_its_poll(
    void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_bounded(1, &tx, &rx);
    counting_waker lazy;
    zc_waker lw = lazy_waker(&lazy);
    uint64_t buf = 0;
    zc_recv r0;
    inline_stream a = {.out = &buf};
    wait_lazy_then_inline(rx, &r0, &lw, &a);
    send_u64(tx, 0x11); /* wakes r0 (lazy); the channel is full */
    uint64_t m = 0x22;
    inline_send s = {.inner = ZC_EINVAL};
    zc_send_init(&s.f, tx, &m);
    s.w = (zc_waker){inline_send_poll_wake, NULL};
    stream_sender = &s;
    assert_int_equal(zc_send_poll(&s.f, &s.w), ZC_PENDING);

    a.depth = 0; /* the owner polls a again, before any wake of it */
    inline_stream_drain(&a);
    assert_int_equal(a.max_depth, 1); /* never polled inside its own poll */
    assert_int_equal(a.n, 2);
    assert_int_equal(a.got[0], 0x11);
    assert_int_equal(a.got[1], 0x22);
    zc_recv_cancel(&r0);
    zc_recv_cancel(&a.f);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Receivers woken by a close and polled inline: were each to pass its wake-up on to the
 * next waiter from inside its wake, the wakes would nest as deep as there are waiters
 * (a stack overflow at tens of thousands). A close wakes every waiter anyway: nothing is
 * passed on once closed. */
enum { MANY = 200 };
typedef struct nest_task {
    zc_recv f;
    zc_waker w;
    uint64_t got;
    bool done;
} nest_task;
static int nest_depth, nest_max;

static void nest_wake(void *ctx) {
    nest_task *t = ctx;
    if (++nest_depth > nest_max) nest_max = nest_depth;
    uint64_t v;
    zc_status s;
    while ((s = zc_recv_poll(&t->f, &t->w, &v)) == ZC_OK) t->got++;
    if (s != ZC_PENDING) t->done = true;
    nest_depth--;
}

static void test_close_with_inline_receivers_does_not_nest_their_wakes(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    static nest_task ts[MANY];
    for (int i = 0; i < MANY; i++) {
        memset(&ts[i], 0, sizeof ts[i]);
        zc_recv_init(&ts[i].f, rx);
        ts[i].w = (zc_waker){nest_wake, &ts[i]};
        uint64_t v;
        assert_int_equal(zc_recv_poll(&ts[i].f, &ts[i].w, &v), ZC_PENDING);
    }
    nest_depth = nest_max = 0;
    assert_true(zc_sender_close(tx));
    uint64_t got = 0;
    for (int i = 0; i < MANY; i++) {
        assert_true(ts[i].done);
        got += ts[i].got;
    }
    assert_int_equal(got, 0);
    assert_int_equal(nest_max, 1);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}



/* Rules 4 and 5, one wake per freed slot: 20 senders wait on a full bounded(10) channel,
 * ten receives free ten slots and wake the ten oldest, one each; when those are polled
 * and send, their wake-ups were used, and the ten behind them must not be woken (a woken
 * sender that sent must not pass its wake-up on for room that is held for the woken
 * senders not polled yet). Then each receive wakes the next one. */
enum { HERD_CAP = 10, HERD_SENDERS = 20 };
static void test_senders_woken_for_freed_slots_wake_no_one_else_when_they_send(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(HERD_CAP, &cfg, &tx, &rx), ZC_OK);
    for (uint64_t v = 0; v < HERD_CAP; v++) send_u64(tx, v);
    zc_send s[HERD_SENDERS];
    counting_waker cw[HERD_SENDERS];
    zc_waker w[HERD_SENDERS];
    uint64_t msgs[HERD_SENDERS];
    for (int i = 0; i < HERD_SENDERS; i++) {
        counting_waker_init(&cw[i]);
        w[i] = counting_waker_of(&cw[i]);
        msgs[i] = 100 + (uint64_t)i;
        zc_send_init(&s[i], tx, &msgs[i]);
        assert_int_equal(zc_send_poll(&s[i], &w[i]), ZC_PENDING);
    }
    uint64_t v;
    for (int i = 0; i < HERD_CAP; i++) {
        assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
        for (int j = 0; j < HERD_SENDERS; j++)
            assert_int_equal(counting_waker_count(&cw[j]), j <= i);
    }
    for (int i = 0; i < HERD_CAP; i++) {
        assert_int_equal(zc_send_poll(&s[i], &w[i]), ZC_OK); /* passes nothing on */
        assert_int_equal(counting_waker_count(&cw[HERD_CAP]), 0);
    }
    for (int i = HERD_CAP; i < HERD_SENDERS; i++) assert_int_equal(counting_waker_count(&cw[i]), 0);
    for (int i = 0; i < HERD_CAP; i++) {
        assert_int_equal(zc_try_recv(rx, &v), ZC_OK); /* frees a slot: wakes sender 10 + i */
        assert_int_equal(v, 100 + (uint64_t)i);
        assert_int_equal(counting_waker_count(&cw[HERD_CAP + i]), 1);
        assert_int_equal(zc_send_poll(&s[HERD_CAP + i], &w[HERD_CAP + i]), ZC_OK);
        if (HERD_CAP + i + 1 < HERD_SENDERS)
            assert_int_equal(counting_waker_count(&cw[HERD_CAP + i + 1]), 0);
    }
    for (int i = HERD_CAP; i < HERD_SENDERS; i++) zc_send_cancel(&s[i]);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}


/* k sender tasks on a full channel; their executor cancels each inside its wake. One
 * receive frees the slot: each cancelled sender passes the wake-up on, and the pass-ons
 * made inside a pass-on's wake are made by it one after another: two wakes deep, not k
 * (as the broadcast's test_senders_cancelled_inside_their_wakes_... checks there). */
typedef struct cancelling_sender {
    zc_send f;
    zc_waker w;
    bool cancelled;
} cancelling_sender;

static void cancelling_sender_wake(void *ctx) {
    cancelling_sender *t = ctx;
    if (++nest_depth > nest_max) nest_max = nest_depth;
    zc_send_cancel(&t->f);
    t->cancelled = true;
    nest_depth--;
}

static void test_senders_cancelled_inside_their_wakes_do_not_nest_their_pass_ons(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    send_u64(tx, 1);
    static cancelling_sender ts[MANY];
    uint64_t v = 2;
    for (int i = 0; i < MANY; i++) {
        ts[i] = (cancelling_sender){.cancelled = false};
        ts[i].w = (zc_waker){cancelling_sender_wake, &ts[i]};
        zc_send_init(&ts[i].f, tx, &v);
        assert_int_equal(zc_send_poll(&ts[i].f, &ts[i].w), ZC_PENDING);
    }
    nest_depth = nest_max = 0;
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
    for (int i = 0; i < MANY; i++) assert_true(ts[i].cancelled); /* each passed it on */
    assert_int_equal(nest_max, 2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* The futures take an inline path on channels of 8-byte messages, bounded or unbounded,
 * and the general one on every other channel (chan.h's ring8 and seg8): on each, through
 * laps of a small ring and past a segment boundary (31 slots) of the unbounded queue,
 * messages of every size come out byte-exact (the receive writes exactly elem_size
 * bytes: the canary after them stays), a send wakes a pending receiver once, and a
 * receive wakes a pending sender once. */
static void futures_carry_messages_of_size(size_t cap, size_t elem_size) {
    enum { CANARY = 16, ROUNDS = 40 };
    zc_config cfg = {elem_size, NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(cap == 0 ? zc_unbounded(&cfg, &tx, &rx) : zc_bounded(cap, &cfg, &tx, &rx),
                     ZC_OK);
    unsigned char msg[64], out[64 + CANARY];
    assert_true(elem_size <= 64);
    counting_waker rw, sw;
    counting_waker_init(&rw);
    counting_waker_init(&sw);
    zc_waker rwk = counting_waker_of(&rw), swk = counting_waker_of(&sw);
    zc_recv r;
    zc_send s;
    zc_recv_init(&r, rx);
    for (unsigned round = 0; round < ROUNDS; round++) {
        memset(out, 0xcc, sizeof out);
        assert_int_equal(zc_recv_poll(&r, &rwk, out), ZC_PENDING);
        for (size_t j = 0; j < elem_size; j++) msg[j] = (unsigned char)(round * 31 + j * 7 + 1);
        zc_send_init(&s, tx, msg);
        assert_int_equal(zc_send_poll(&s, &swk), ZC_OK);
        assert_int_equal(counting_waker_count(&rw), round + 1); /* the send woke it */
        assert_int_equal(zc_recv_poll(&r, &rwk, out), ZC_OK);
        assert_memory_equal(out, msg, elem_size);
        for (size_t j = elem_size; j < sizeof out; j++) assert_int_equal(out[j], 0xcc);
    }
    if (cap == 1) {
        /* Full: a pending send, woken once by the receive that frees the slot. */
        uint64_t first[8] = {0}, second[8] = {0};
        memset(first, 0x5a, sizeof first);
        memset(second, 0xa5, sizeof second);
        zc_send_init(&s, tx, first);
        assert_int_equal(zc_send_poll(&s, &swk), ZC_OK);
        zc_send s2;
        zc_send_init(&s2, tx, second);
        assert_int_equal(zc_send_poll(&s2, &swk), ZC_PENDING);
        assert_int_equal(zc_recv_poll(&r, &rwk, out), ZC_OK);
        assert_memory_equal(out, first, elem_size);
        assert_int_equal(counting_waker_count(&sw), 1);
        assert_int_equal(zc_send_poll(&s2, &swk), ZC_OK);
        assert_int_equal(zc_recv_poll(&r, &rwk, out), ZC_OK);
        assert_memory_equal(out, second, elem_size);
    }
    zc_recv_cancel(&r);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_futures_carry_messages_of_every_size_on_every_path(void **state) {
    (void)state;
    static const size_t sizes[] = {1, 3, 4, 7, 8, 9, 16, 24, 64};
    static const size_t caps[] = {1, 4, 0};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            futures_carry_messages_of_size(caps[c], sizes[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_futures_carry_messages_of_every_size_on_every_path),
        cmocka_unit_test(
            test_recv_poll_on_empty_channel_returns_pending_and_a_send_wakes_it_once),
        cmocka_unit_test(test_recv_poll_with_a_message_waiting_completes_at_once),
        cmocka_unit_test(
            test_two_pending_receivers_are_woken_one_per_send_in_registration_order),
        cmocka_unit_test(
            test_three_pending_receivers_and_one_message_make_exactly_one_wake),
        cmocka_unit_test(test_pending_receivers_are_woken_one_a_message_bounded),
        cmocka_unit_test(test_pending_receivers_are_woken_one_a_message_unbounded),
        cmocka_unit_test(test_pending_senders_are_woken_one_a_freed_slot),
        cmocka_unit_test(test_senders_woken_for_freed_slots_wake_no_one_else_when_they_send),
        cmocka_unit_test(test_senders_cancelled_inside_their_wakes_do_not_nest_their_pass_ons),
        cmocka_unit_test(test_woken_receiver_cancelled_before_its_poll_passes_the_wake_on),
        cmocka_unit_test(test_cancelled_recv_starts_over_when_polled_again),
        cmocka_unit_test(test_later_poll_replaces_the_waker),
        cmocka_unit_test(test_repolling_with_the_same_waker_keeps_one_registration),
        cmocka_unit_test(test_recv_future_is_a_stream_that_ends_with_closed),
        cmocka_unit_test(test_unbounded_send_wakes_a_pending_receiver),
        cmocka_unit_test(test_send_future_on_full_channel_pends_until_a_recv_frees_a_slot),
        cmocka_unit_test(
            test_completed_send_polled_again_returns_ok_and_sends_nothing_more),
        cmocka_unit_test(test_send_that_saw_closed_polled_again_returns_closed),
        cmocka_unit_test(test_send_completed_ok_stays_ok_after_the_channel_closes),
        cmocka_unit_test(test_cancel_of_never_polled_futures_is_a_no_op),
        cmocka_unit_test(test_cancel_of_completed_recv_takes_nothing),
        cmocka_unit_test(test_cancelled_send_sent_nothing_and_can_start_over),
        cmocka_unit_test(test_pending_senders_are_woken_one_per_freed_slot_in_order),
        cmocka_unit_test(
            test_woken_sender_cancelled_passes_the_wake_on_and_capacity_is_intact),
        cmocka_unit_test(test_woken_sender_cancelled_lets_the_next_sender_complete),
        cmocka_unit_test(test_send_future_completion_wakes_a_pending_receiver),
        cmocka_unit_test(test_recv_future_completion_wakes_a_pending_sender),
        cmocka_unit_test(test_try_send_and_try_recv_wake_the_waiters_the_futures_would),
        cmocka_unit_test(test_close_wakes_every_pending_sender_once),
        cmocka_unit_test(test_close_wakes_every_pending_receiver_once),
        cmocka_unit_test(test_dropping_the_last_sender_wakes_every_pending_receiver),
        cmocka_unit_test(test_dropping_the_last_receiver_wakes_every_pending_sender),
        cmocka_unit_test(test_poll_after_close_wakes_nothing_and_pends_never),
        cmocka_unit_test(
            test_poll_with_null_arguments_returns_einval_and_registers_nothing),
        cmocka_unit_test(test_einval_poll_of_a_full_channel_registers_nothing),
        cmocka_unit_test(test_einval_poll_of_a_pending_future_leaves_no_waker_registered),
        cmocka_unit_test(test_init_and_cancel_of_null_futures_do_nothing),
        cmocka_unit_test(test_wake_that_polls_its_own_recv_future_completes_it),
        cmocka_unit_test(test_wake_that_cancels_its_own_recv_future_leaves_the_message),
        cmocka_unit_test(
            test_wake_that_cancels_its_recv_passes_the_wake_to_the_next_receiver),
        cmocka_unit_test(test_wake_that_calls_try_recv_takes_the_message),
        cmocka_unit_test(test_wake_that_polls_its_own_send_future_completes_it),
        cmocka_unit_test(test_wake_that_calls_try_send_fills_the_freed_slot),
        cmocka_unit_test(test_wake_that_cancels_its_own_send_future_sends_nothing),
        cmocka_unit_test(test_close_runs_reentrant_wakes_without_deadlock),
        cmocka_unit_test(test_send_polled_again_while_registered_is_not_woken_inside_its_poll),
        cmocka_unit_test(
            test_receive_polled_again_while_registered_is_not_woken_inside_its_poll),
        cmocka_unit_test(test_close_with_inline_receivers_does_not_nest_their_wakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

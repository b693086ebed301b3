/* Reliability scenarios (issue 4, list items 1-17): the interleavings that lose wake-ups,
 * strand messages or dispose of them twice in channels of this kind. Each scenario is
 * either here or already in tests/unit (then this file names the test that covers it).
 * The single-thread ones are deterministic: counting wakers and manual polling. The
 * threaded ones (8, 9, 11, 12, 14) repeat a race many times and are meant to run under
 * ThreadSanitizer and AddressSanitizer/LeakSanitizer too; scenario 15 needs the hook
 * points of a ZCHAN_TEST_HOOKS build and is compiled only there.
 *
 * Covered elsewhere:
 *  (1) two pending receivers, two sends before the first woken one runs:
 *      test_future.c test_two_pending_receivers_are_woken_one_per_send_in_registration_order
 *  (5) the timer wins after the wake (a woken receiver cancelled unpolled):
 *      test_future.c test_woken_receiver_cancelled_before_its_poll_passes_the_wake_on
 *  (6) a pending send cancelled before its slot frees:
 *      test_future.c test_cancelled_send_sent_nothing_and_can_start_over,
 *      test_mpmc.c test_drop_msg_is_not_called_for_a_cancelled_send
 *  (7) test_future.c test_woken_sender_cancelled_lets_the_next_sender_complete and
 *      test_woken_sender_cancelled_passes_the_wake_on_and_capacity_is_intact
 *  (8) single-thread form: test_mpmc.c dropping_the_last_sender_closes
 *  (10) unbounded, across segments, sender alive:
 *      test_mpmc.c test_drop_msg_runs_once_per_message_across_unbounded_segments
 *  (16) a wake that polls / cancels its own future, try_recv / try_send inside a wake,
 *      close with re-entrant wakes: test_future.c test_wake_that_* and
 *      test_close_runs_reentrant_wakes_without_deadlock
 *  (17) exactly one wake: test_future.c
 *      test_three_pending_receivers_and_one_message_make_exactly_one_wake
 */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/config.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "backoff.h" /* zc__backoff, zc__cpu_relax (src/) */
#include "mono_clock.h"
#include "u64_fixture.h"

#if ZCHAN_TEST_HOOKS
#include "hooks.h"
#endif

enum { WAITERS = FIXTURE_WAITERS };

/* A future that pends longer than this in a threaded scenario counts as a hang. */
#define HANG_NS (10ull * 1000 * 1000 * 1000)

static void noop_wake(void *ctx) { (void)ctx; }
static const zc_waker noop_waker = {noop_wake, NULL};

/* The capacities each flavour-independent scenario runs with (0: unbounded). */
static const size_t both_flavours[] = {4, 0};

/* ---- (2) a woken receiver cancelled unpolled, then a new receiver -------------------- */

static void test_new_receiver_after_a_woken_one_was_cancelled_gets_the_message(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[2];
        pend_receivers(&f, r, 1);
        send_u64(f.tx, 7);
        assert_int_equal(wakes(&f, 0), 1);
        zc_recv_cancel(&r[0]); /* nobody else waits: nothing to pass on */
        zc_recv_init(&r[1], f.rx);
        expect_poll_u64(&r[1], &f.w[1], 7);
        assert_int_equal(wakes(&f, 1), 0);
        send_u64(f.tx, 8); /* r[0] was deregistered, r[1] completed: nobody is woken */
        assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 1);
        expect_poll_u64(&r[0], &f.w[0], 8); /* the cancelled future starts over */
        fixture_done(&f);
    }
}

static void
test_new_receiver_between_the_wake_and_the_cancel_takes_the_message(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[WAITERS];
        pend_receivers(&f, r, 1);
        send_u64(f.tx, 7);
        zc_recv_init(&r[1], f.rx);
        expect_poll_u64(&r[1], &f.w[1], 7); /* barges in before the woken one runs */
        zc_recv_init(&r[2], f.rx);
        expect_poll_pending(&r[2], &f.w[2]);
        zc_recv_cancel(&r[0]); /* its wake-up has nothing left to pass on */
        assert_int_equal(wakes(&f, 2), 0);
        send_u64(f.tx, 9); /* r[2] is still registered, and first in line */
        assert_int_equal(wakes(&f, 2), 1);
        expect_poll_u64(&r[2], &f.w[2], 9);
        assert_int_equal(wakes(&f, 0), 1);
        fixture_done(&f);
    }
}

/* ---- (3) every sending / receiving path wakes the waiter the futures would ----------- */

typedef enum path { PATH_TRY, PATH_FUTURE, PATH_BLOCKING, PATH_TIMEOUT_0, PATHS } path;

static zc_status send_by(path p, zc_sender *tx, uint64_t v) {
    zc_send s;
    switch (p) {
    case PATH_TRY: return zc_try_send(tx, &v);
    case PATH_FUTURE:
        zc_send_init(&s, tx, &v);
        return zc_send_poll(&s, &noop_waker);
    case PATH_BLOCKING: return zc_send_blocking(tx, &v);
    default: return zc_send_timeout(tx, &v, 0);
    }
}

static zc_status recv_by(path p, zc_receiver *rx, uint64_t *out) {
    zc_recv r;
    switch (p) {
    case PATH_TRY: return zc_try_recv(rx, out);
    case PATH_FUTURE:
        zc_recv_init(&r, rx);
        return zc_recv_poll(&r, &noop_waker, out);
    case PATH_BLOCKING: return zc_recv_blocking(rx, out);
    default: return zc_recv_timeout(rx, out, 0);
    }
}

/* Covered for try ops and the unbounded send future in test_future.c
 * (test_try_send_and_try_recv_wake_the_waiters_the_futures_would,
 * test_unbounded_send_wakes_a_pending_receiver); here every path, both flavours, and
 * with two waiters, so that "the right one" means the first registered. */
static void test_every_send_path_wakes_the_first_pending_receiver_only(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        for (path p = 0; p < PATHS; p++) {
            fixture f;
            fixture_init(&f, both_flavours[k]);
            zc_recv r[2];
            pend_receivers(&f, r, 2);
            assert_int_equal(send_by(p, f.tx, 10), ZC_OK);
            assert_int_equal(wakes(&f, 0), 1);
            assert_int_equal(wakes(&f, 1), 0);
            assert_int_equal(send_by(p, f.tx, 11), ZC_OK);
            assert_int_equal(wakes(&f, 1), 1);
            expect_poll_u64(&r[0], &f.w[0], 10);
            expect_poll_u64(&r[1], &f.w[1], 11);
            fixture_done(&f);
        }
    }
}

static void test_every_recv_path_wakes_the_first_pending_sender_only(void **state) {
    (void)state;
    for (path p = 0; p < PATHS; p++) {
        fixture f;
        fixture_init(&f, 1);
        zc_send s[2];
        uint64_t msg[2], out = 0;
        pend_senders(&f, s, msg, 2);
        assert_int_equal(recv_by(p, f.rx, &out), ZC_OK);
        assert_int_equal(out, 1);
        assert_int_equal(wakes(&f, 0), 1);
        assert_int_equal(wakes(&f, 1), 0);
        assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
        assert_int_equal(recv_by(p, f.rx, &out), ZC_OK);
        assert_int_equal(out, 100);
        assert_int_equal(wakes(&f, 1), 1);
        assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
        expect_u64(f.rx, 101);
        fixture_done(&f);
    }
}

/* ---- (4) close from either side wakes every pending send and recv -------------------- */

/* Receiver-side close waking senders and sender-side close waking receivers, and the
 * last handles' drops, are in test_future.c (test_close_wakes_every_pending_sender_once,
 * test_close_wakes_every_pending_receiver_once, test_dropping_the_last_*). */
static void test_sender_close_wakes_every_pending_sender(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[WAITERS];
    uint64_t msg[WAITERS];
    pend_senders(&f, s, msg, WAITERS);
    assert_true(zc_sender_close(f.tx));
    for (int i = 0; i < WAITERS; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_CLOSED);
        assert_int_equal(msg[i], 100 + (uint64_t)i);
    }
    expect_u64(f.rx, 1);
    expect_recv_status(f.rx, ZC_CLOSED);
    fixture_done(&f);
    assert_int_equal(drop_counter_calls(&f.dc), 0);
}

static void test_receiver_close_through_a_clone_wakes_every_pending_receiver(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_receiver *rx2 = zc_receiver_clone(f.rx);
        zc_recv r[WAITERS];
        pend_receivers(&f, r, WAITERS);
        assert_true(zc_receiver_close(rx2));
        uint64_t out = 0;
        for (int i = 0; i < WAITERS; i++) {
            assert_int_equal(wakes(&f, i), 1);
            assert_int_equal(zc_recv_poll(&r[i], &f.w[i], &out), ZC_CLOSED);
        }
        assert_int_equal(out, 0);
        zc_receiver_drop(rx2);
        fixture_done(&f);
    }
}

static void test_every_send_path_fails_at_once_when_the_receivers_are_gone(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_receiver *rx2 = zc_receiver_clone(f.rx);
        zc_receiver_drop(f.rx);
        zc_receiver_drop(rx2); /* the last one */
        uint64_t v = 5;
        zc_send s;
        zc_send_init(&s, f.tx, &v);
        assert_int_equal(zc_try_send(f.tx, &v), ZC_CLOSED);
        assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_CLOSED);
        assert_int_equal(zc_send_blocking(f.tx, &v), ZC_CLOSED); /* must not wait */
        assert_int_equal(zc_send_timeout(f.tx, &v, UINT64_MAX), ZC_CLOSED);
        assert_int_equal(v, 5);
        assert_int_equal(wakes(&f, 0), 0);
        assert_int_equal(drop_counter_calls(&f.dc), 0); /* the message stayed ours */
        zc_sender_drop(f.tx);
    }
}

/* ---- (5) a receiver whose timer won keeps no registration ----------------------------- */

static void test_recv_cancelled_by_its_timer_leaves_the_wake_to_the_next(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[2];
        pend_receivers(&f, r, 2);
        zc_recv_cancel(&r[0]); /* the timer fired first */
        send_u64(f.tx, 3);
        assert_int_equal(wakes(&f, 0), 0);
        assert_int_equal(wakes(&f, 1), 1);
        expect_poll_u64(&r[1], &f.w[1], 3);
        send_u64(f.tx, 4); /* nobody is registered now */
        assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 1);
        expect_u64(f.rx, 4);
        fixture_done(&f);
    }
}

static void test_timed_out_blocking_recv_leaves_the_wake_to_the_next(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        uint64_t out = 0;
        assert_int_equal(zc_recv_timeout(f.rx, &out, 0), ZC_TIMEDOUT);
        assert_int_equal(zc_recv_timeout(f.rx, &out, 1000 * 1000), ZC_TIMEDOUT);
        zc_recv r;
        zc_recv_init(&r, f.rx);
        expect_poll_pending(&r, &f.w[0]);
        send_u64(f.tx, 3); /* a registration left by a timed-out call would be first */
        assert_int_equal(wakes(&f, 0), 1);
        expect_poll_u64(&r, &f.w[0], 3);
        fixture_done(&f);
    }
}

/* ---- (6) a send cancelled after its slot freed: the message exactly once ------------- */

static void test_send_cancelled_after_its_slot_freed_keeps_its_message_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[1];
    uint64_t msg[1];
    pend_senders(&f, s, msg, 1);
    expect_u64(f.rx, 1);
    assert_int_equal(wakes(&f, 0), 1);
    zc_send_cancel(&s[0]); /* woken, not polled again */
    assert_int_equal(msg[0], 100);
    assert_int_equal(channel_len(&f), 0);
    expect_recv_status(f.rx, ZC_EMPTY);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK); /* the caller sends it again */
    expect_u64(f.rx, 100);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
    assert_int_equal(drop_counter_calls(&f.dc), 0);
}

static void
test_send_cancelled_after_another_sender_took_its_slot_keeps_its_message(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    zc_send s[2];
    uint64_t msg[2];
    pend_senders(&f, s, msg, 2);
    expect_u64(f.rx, 1);
    send_u64(f.tx, 50); /* barges into the freed slot */
    zc_send_cancel(&s[0]); /* full again: the wake-up is not passed on */
    assert_int_equal(wakes(&f, 1), 0);
    expect_u64(f.rx, 50); /* this frees the slot again and wakes s[1] */
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_PENDING);
    zc_receiver_drop(f.rx); /* 101 is disposed of; 100 is still the caller's */
    assert_true(drop_counter_saw_once(&f.dc, 101, 102));
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_CLOSED);
    assert_int_equal(msg[0], 100);
    zc_sender_drop(f.tx);
    assert_int_equal(drop_counter_calls(&f.dc), 1);
}

/* ---- (10) the last receiver's drop disposes at once while senders live ---------------- */

static void test_last_receiver_drop_disposes_of_a_wrapped_ring_at_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 5);
    for (uint64_t i = 0; i < 5; i++)
        send_u64(f.tx, i);
    for (uint64_t i = 0; i < 3; i++)
        expect_u64(f.rx, i);
    for (uint64_t i = 5; i < 8; i++) /* these wrap around the end of the ring */
        send_u64(f.tx, i);
    zc_send s;
    uint64_t pending = 200;
    zc_send_init(&s, f.tx, &pending);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_PENDING);
    zc_sender *tx2 = zc_sender_clone(f.tx);
    zc_receiver_drop(f.rx);
    assert_true(drop_counter_saw_once(&f.dc, 3, 8)); /* before the drop returned */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(zc_send_poll(&s, &f.w[0]), ZC_CLOSED);
    assert_int_equal(pending, 200);
    uint64_t v = 9;
    assert_int_equal(zc_try_send(tx2, &v), ZC_CLOSED);
    zc_sender_drop(tx2);
    zc_sender_drop(f.tx);
    assert_true(drop_counter_saw_once(&f.dc, 3, 8)); /* nothing more */
}

/* ---- (16) more re-entrant wakes ------------------------------------------------------- */

typedef struct reentry {
    fixture *f;
    zc_recv *other; /* another future of the same list */
    zc_status status;
    uint64_t out;
    int calls;
} reentry;

static reentry *reentry_on(fixture *f, int i, reentry *re, void (*hook)(void *)) {
    memset(re, 0, sizeof *re);
    re->f = f;
    re->status = ZC_EINVAL;
    f->cw[i].on_wake = hook;
    f->cw[i].arg = re;
    return re;
}

static void close_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_sender_close(re->f->tx) ? ZC_OK : ZC_CLOSED;
}

static void poll_other_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_recv_poll(re->other, &re->f->w[1], &re->out);
}

static void cancel_other_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    zc_recv_cancel(re->other);
}

static void try_send_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    uint64_t v = 2;
    re->status = zc_try_send(re->f->tx, &v);
}

static void try_recv_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->status = zc_try_recv(re->f->rx, &re->out);
}

static void test_wake_that_closes_the_channel_wakes_every_other_waiter(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        reentry re;
        reentry_on(&f, 0, &re, close_inside_wake);
        zc_recv r[WAITERS];
        pend_receivers(&f, r, WAITERS);
        send_u64(f.tx, 1);
        assert_int_equal(re.calls, 1);
        assert_int_equal(re.status, ZC_OK); /* the close inside the wake closed it */
        for (int i = 0; i < WAITERS; i++)
            assert_int_equal(wakes(&f, i), 1);
        uint64_t out = 0;
        expect_poll_u64(&r[0], &f.w[0], 1);
        assert_int_equal(zc_recv_poll(&r[0], &f.w[0], &out), ZC_CLOSED);
        for (int i = 1; i < WAITERS; i++)
            assert_int_equal(zc_recv_poll(&r[i], &f.w[i], &out), ZC_CLOSED);
        fixture_done(&f);
    }
}

static void test_wake_that_polls_another_waiter_hands_it_the_message(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[2];
        reentry re;
        reentry_on(&f, 0, &re, poll_other_inside_wake)->other = &r[1];
        pend_receivers(&f, r, 2);
        send_u64(f.tx, 1); /* wakes r[0], whose wake polls r[1] (still linked) */
        assert_int_equal(re.calls, 1);
        assert_int_equal(re.status, ZC_OK);
        assert_int_equal(re.out, 1);
        assert_int_equal(wakes(&f, 1), 0);
        f.cw[0].on_wake = NULL;
        expect_poll_pending(&r[0], &f.w[0]); /* the message is gone: waits again */
        send_u64(f.tx, 2); /* r[0] kept its turn and r[1] is no longer linked */
        assert_int_equal(wakes(&f, 0), 2);
        assert_int_equal(wakes(&f, 1), 0);
        expect_poll_u64(&r[0], &f.w[0], 2);
        send_u64(f.tx, 3);
        assert_int_equal(wakes(&f, 0) + wakes(&f, 1), 2);
        expect_u64(f.rx, 3);
        fixture_done(&f);
    }
}

static void test_wake_that_cancels_another_waiter_leaves_it_unwoken(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 4);
    zc_recv r[3];
    reentry re;
    reentry_on(&f, 0, &re, cancel_other_inside_wake)->other = &r[1];
    pend_receivers(&f, r, 3);
    send_u64(f.tx, 1);
    send_u64(f.tx, 2); /* r[1] was cancelled inside r[0]'s wake: r[2] is next */
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(wakes(&f, 2), 1);
    expect_poll_u64(&r[0], &f.w[0], 1);
    expect_poll_u64(&r[2], &f.w[2], 2);
    fixture_done(&f);
}

static void test_wake_that_sends_wakes_the_next_receiver_from_inside(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[2];
        reentry re;
        reentry_on(&f, 0, &re, try_send_inside_wake);
        pend_receivers(&f, r, 2);
        send_u64(f.tx, 1); /* r[0]'s wake sends 2, which wakes r[1] (a nested notify) */
        assert_int_equal(re.status, ZC_OK);
        assert_int_equal(wakes(&f, 0), 1);
        assert_int_equal(wakes(&f, 1), 1);
        expect_poll_u64(&r[0], &f.w[0], 1);
        expect_poll_u64(&r[1], &f.w[1], 2);
        fixture_done(&f);
    }
}

static void test_sender_wake_that_receives_wakes_the_next_sender_from_inside(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 2);
    send_u64(f.tx, 1);
    send_u64(f.tx, 2);
    zc_send s[2];
    uint64_t msg[2] = {100, 101};
    reentry re;
    reentry_on(&f, 0, &re, try_recv_inside_wake);
    for (int i = 0; i < 2; i++) {
        zc_send_init(&s[i], f.tx, &msg[i]);
        assert_int_equal(zc_send_poll(&s[i], &f.w[i]), ZC_PENDING);
    }
    expect_u64(f.rx, 1); /* wakes s[0], whose wake takes 2, which wakes s[1] */
    assert_int_equal(re.status, ZC_OK);
    assert_int_equal(re.out, 2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(channel_len(&f), 0);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    expect_u64(f.rx, 100);
    expect_u64(f.rx, 101);
    assert_int_equal(re.calls, 1);
    fixture_done(&f);
}

/* ---- (17) a round-robin poll loop goes quiet ----------------------------------------- */

static void test_round_robin_poll_loop_goes_quiet_after_one_message(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        zc_recv r[WAITERS];
        bool done[WAITERS] = {false};
        pend_receivers(&f, r, WAITERS);
        send_u64(f.tx, 1);
        /* The executor: each round polls every unfinished future (woken or not),
         * until a round adds no wake. */
        unsigned before = 0, total = 0, rounds = 0, completed = 0;
        do {
            before = total;
            for (int i = 0; i < WAITERS; i++) {
                if (done[i]) continue;
                uint64_t out = 0;
                zc_status s = zc_recv_poll(&r[i], &f.w[i], &out);
                if (s == ZC_OK) {
                    assert_int_equal(out, 1);
                    done[i] = true;
                    completed++;
                } else {
                    assert_int_equal(s, ZC_PENDING);
                }
            }
            total = 0;
            for (int i = 0; i < WAITERS; i++)
                total += wakes(&f, i);
            rounds++;
        } while (total != before && rounds < 10);
        assert_int_equal(total, 1);
        assert_int_equal(completed, 1);
        assert_true(done[0]);
        assert_true(rounds <= 2);
        for (int i = 1; i < WAITERS; i++)
            zc_recv_cancel(&r[i]);
        assert_int_equal(wakes(&f, 0) + wakes(&f, 1) + wakes(&f, 2), 1);
        fixture_done(&f);
    }
}

/* ---- threaded scenarios: shared pieces ----------------------------------------------- */

/* Drive a receive future with a parker until it is not pending; ZC_TIMEDOUT if no wake
 * came within HANG_NS (a lost wake-up). */
static zc_status recv_parked(zc_recv *r, zc_parker *p, uint64_t *out) {
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

static zc_status send_parked(zc_sender *tx, const uint64_t *msg, zc_parker *p) {
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
static unsigned scenario_rounds(unsigned full) {
    unsigned long long n = full;
    const char *env = getenv("ZCHAN_SCENARIO_SCALE");
    if (env != NULL && atoi(env) > 0) n = n * (unsigned)atoi(env) / 100;
    return n < 2 ? 2 : n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/* Whether a race test whose two threads meet once a round goes on to round `round` of
 * `rounds`, having started at t0 (now_ns): every round up to 1000, then until all are
 * run or 10 s have gone. Each meeting needs both threads on a CPU; with another process
 * busy on one of the two CPUs, each waits for a time slice, and 100,000 rounds that take
 * 3 s under ThreadSanitizer had not ended after 300 s (a CI run, with a model check on
 * the other core). */
enum { RACE_MIN_ROUNDS = 1000 };
static const uint64_t RACE_BUDGET_NS = 10 * 1000000000ull;
static bool race_goes_on(unsigned round, unsigned rounds, uint64_t t0) {
    return round <= rounds && (round <= RACE_MIN_ROUNDS || now_ns() - t0 < RACE_BUDGET_NS);
}

/* A round number that tells a race test's peer thread to stop (after its last round). */
#define RACE_END UINT_MAX

/* Wait until *a == want (acquire: what its writer did before is visible). False if *a is
 * RACE_END instead: no more rounds. */
static bool await_uint(atomic_uint *a, unsigned want) {
    zc__backoff b = ZC__BACKOFF_INIT;
    unsigned v;
    while ((v = atomic_load_explicit(a, memory_order_acquire)) != want && v != RACE_END)
        zc__backoff_snooze(&b);
    return v == want;
}

/* Spend about n pauses, to shift one thread against another. */
static void spin(unsigned n) {
    while (n-- > 0)
        zc__cpu_relax();
}

/* Two racing threads steered against each other must run at the same time, so on a
 * Linux machine with two CPUs or more, put the main thread on one CPU and the peer on
 * another (a busy machine may otherwise keep both on one core, where one of them always
 * wins). spread_threads returns the main thread's old mask for unspread_threads. */
#ifdef __linux__
static cpu_set_t spread_threads(pthread_t peer) {
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

static void unspread_threads(cpu_set_t old) {
    pthread_setaffinity_np(pthread_self(), sizeof old, &old);
}
#else
typedef int cpu_set_t;
static cpu_set_t spread_threads(pthread_t peer) {
    (void)peer;
    return 0;
}
static void unspread_threads(cpu_set_t old) { (void)old; }
#endif

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg) {
    assert_int_equal(pthread_create(t, NULL, fn, arg), 0);
}

/* ---- (8) a message sent just before the last sender's drop is received first ---------- */

typedef struct last_send {
    zc_sender *tx;
    uint64_t v;
    int how; /* 0 try_send, 1 blocking send, 2 send future */
} last_send;

static void *send_then_drop(void *arg) {
    last_send *ls = arg;
    zc_parker p;
    zc_parker_init(&p);
    if (ls->how == 0)
        (void)zc_try_send(ls->tx, &ls->v);
    else if (ls->how == 1)
        (void)zc_send_blocking(ls->tx, &ls->v);
    else
        (void)send_parked(ls->tx, &ls->v, &p);
    zc_sender_drop(ls->tx);
    zc_parker_destroy(&p);
    return NULL;
}

/* Two receive futures on one thread race a sender thread that sends one value and drops
 * the last sender: one future must get the value, the other ZC_CLOSED, and neither may
 * hang (the value's wake and the close's wakes cross each other). */
static void test_value_sent_before_the_last_sender_drops_is_received_before_closed(void **state) {
    (void)state;
    const int ROUNDS = (int)scenario_rounds(1500);
    for (int k = 0; k < 2; k++) {
        for (int round = 0; round < ROUNDS; round++) {
            zc_config cfg = {sizeof(uint64_t), NULL, NULL};
            last_send ls = {NULL, 1000 + (uint64_t)round, round % 3};
            zc_receiver *rx;
            assert_int_equal(k == 0 ? zc_bounded(1, &cfg, &ls.tx, &rx)
                                    : zc_unbounded(&cfg, &ls.tx, &rx),
                             ZC_OK);
            zc_parker p;
            zc_parker_init(&p);
            zc_waker w = zc_parker_waker(&p);
            zc_recv r[2];
            zc_status st[2] = {ZC_PENDING, ZC_PENDING};
            uint64_t out[2] = {0, 0};
            zc_recv_init(&r[0], rx);
            zc_recv_init(&r[1], rx);
            pthread_t t;
            start_thread(&t, send_then_drop, &ls);
            while (st[0] == ZC_PENDING || st[1] == ZC_PENDING) {
                for (int i = 0; i < 2; i++)
                    if (st[i] == ZC_PENDING) st[i] = zc_recv_poll(&r[i], &w, &out[i]);
                if ((st[0] == ZC_PENDING || st[1] == ZC_PENDING) &&
                    zc_parker_park_timeout(&p, HANG_NS) == ZC_TIMEDOUT)
                    fail_msg("round %d: a receive future was never woken", round);
            }
            pthread_join(t, NULL);
            int got = st[0] == ZC_OK ? 0 : 1;
            assert_int_equal(st[got], ZC_OK);
            assert_int_equal(out[got], ls.v);
            assert_int_equal(st[1 - got], ZC_CLOSED);
            expect_recv_status(rx, ZC_CLOSED);
            zc_receiver_drop(rx);
            zc_parker_destroy(&p);
        }
    }
}

/* ---- (10b) the last receiver's drop races the release of a reserved place -------------
 * Found by a new user's tests: zc__ring_discard read head once; a release that skipped
 * its own hole at head meanwhile freed the slot (stamp head + one_lap), which discard did
 * not expect, so the drop spun for ever. Each round: bounded(1) with the only place
 * reserved; one thread releases it while the other drops the last receiver. */

typedef struct release_race {
    atomic_uint round;   /* the round the releaser may run */
    atomic_uint done;    /* the last round it finished */
    zc_permit permit;
} release_race;

static void *releaser_main(void *arg) {
    release_race *rr = arg;
    for (unsigned r = 1; await_uint(&rr->round, r); r++) { /* the permit is filled in */
        assert_int_equal(zc_permit_release(&rr->permit), ZC_OK);
        /* Release: the main thread's await sees the release done. */
        atomic_store_explicit(&rr->done, r, memory_order_release);
    }
    return NULL;
}

static void test_last_receiver_drop_racing_a_release_returns(void **state) {
    (void)state;
    release_race rr;
    atomic_init(&rr.round, 0);
    atomic_init(&rr.done, 0);
    pthread_t t;
    start_thread(&t, releaser_main, &rr);
    alarm(120); /* a hang in the drop fails the test instead of stalling it */
    unsigned rounds = scenario_rounds(20000);
    uint64_t t0 = now_ns();
    for (unsigned r = 1; race_goes_on(r, rounds, t0); r++) {
        zc_sender *tx;
        zc_receiver *rx;
        zc_config cfg = {sizeof(uint64_t), NULL, NULL};
        assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
        assert_int_equal(zc_try_reserve(tx, &rr.permit), ZC_OK);
        /* Release: the releaser sees the permit filled in. */
        atomic_store_explicit(&rr.round, r, memory_order_release);
        zc_receiver_drop(rx); /* while the place is being released */
        await_uint(&rr.done, r);
        uint64_t v = 1;
        assert_int_equal(zc_try_send(tx, &v), ZC_CLOSED);
        zc_sender_drop(tx);
    }
    atomic_store_explicit(&rr.round, RACE_END, memory_order_release);
    pthread_join(t, NULL);
    alarm(0);
}

/* ---- (9) the last receiver's drop races the install of the first segment -------------- */

typedef struct first_send {
    atomic_uint go;    /* round the sender may start (main: release) */
    atomic_uint done;  /* round the sender has finished (sender: release) */
    zc_sender *tx;     /* written before go, read after it */
    int skew;          /* > 0: the main thread waits that long; < 0: the sender does */
    zc_status status;  /* written before done, read after it */
    uint64_t v;
} first_send;

static void *first_segment_sender(void *arg) {
    first_send *fs = arg;
    for (unsigned round = 1; await_uint(&fs->go, round); round++) { /* tx, skew written */
        spin(fs->skew < 0 ? (unsigned)-fs->skew : 0);
        fs->v = round;
        fs->status = zc_try_send(fs->tx, &fs->v);
        /* Release: status and v are visible to the main thread's acquire. */
        atomic_store_explicit(&fs->done, round, memory_order_release);
    }
    return NULL;
}

/* The sender's first send on a fresh unbounded channel installs the first segment while
 * the main thread drops the only receiver. The send either succeeds (and the drop, which
 * waits for it, disposes of it exactly once) or fails with ZC_CLOSED (the message is the
 * caller's, nothing is disposed of). Leaks show under LeakSanitizer. Who starts first is
 * steered so that each wins about half of the rounds: the skew moves towards the sender
 * after a round it won and away from it after a round it lost. */
static void test_last_receiver_drop_racing_the_first_segment_disposes_once(void **state) {
    (void)state;
    const unsigned ROUNDS = scenario_rounds(100000);
    /* A descheduled thread loses every round whatever the skew: bound the walk. */
    enum { SKEW_MAX = 4000 };
    static first_send fs;
    atomic_init(&fs.go, 0);
    atomic_init(&fs.done, 0);
    fs.skew = 0;
    pthread_t t;
    start_thread(&t, first_segment_sender, &fs);
    cpu_set_t cpus = spread_threads(t);
    unsigned ok = 0, round;
    uint64_t t0 = now_ns();
    for (round = 1; race_goes_on(round, ROUNDS, t0); round++) {
        drop_counter dc;
        drop_counter_init(&dc, NULL, 0);
        zc_config cfg = {sizeof(uint64_t), drop_counter_fn, &dc};
        zc_receiver *rx;
        assert_int_equal(zc_unbounded(&cfg, &fs.tx, &rx), ZC_OK);
        /* Release: the sender's acquire in await_uint sees tx and skew. */
        atomic_store_explicit(&fs.go, round, memory_order_release);
        spin(fs.skew > 0 ? (unsigned)fs.skew : 0);
        zc_receiver_drop(rx);
        await_uint(&fs.done, round);
        if (fs.status == ZC_OK) {
            ok++;
            fs.skew = fs.skew > -SKEW_MAX ? fs.skew - 3 - (int)(round % 5) : -SKEW_MAX;
            /* Relaxed: the drop ran on this thread, inside zc_receiver_drop. */
            if (drop_counter_calls(&dc) != 1 ||
                atomic_load_explicit(&dc.sum, memory_order_relaxed) != round)
                fail_msg("round %u: a sent message was disposed of %zu times", round,
                         drop_counter_calls(&dc));
        } else {
            fs.skew = fs.skew < SKEW_MAX ? fs.skew + 3 + (int)(round % 5) : SKEW_MAX;
            if (fs.status != ZC_CLOSED || drop_counter_calls(&dc) != 0 || fs.v != round)
                fail_msg("round %u: send gave %s, %zu disposals", round,
                         zc_status_str(fs.status), drop_counter_calls(&dc));
        }
        zc_sender_drop(fs.tx);
    }
    unsigned run = round - 1;
    atomic_store_explicit(&fs.go, RACE_END, memory_order_release);
    pthread_join(t, NULL);
    unspread_threads(cpus);
    print_message("first-segment race: the send won %u of %u rounds\n", ok, run);
    /* Both outcomes must have happened, or the race was never run (see above). */
    if (ok == 0 || ok == run) skip();
}

/* ---- (11) close races a blocked send -------------------------------------------------- */

typedef struct blocked_send {
    zc_sender *tx;
    uint64_t v;
    int how; /* 0 blocking, 1 long timeout, 2 future */
    zc_status status;
    atomic_uint started; /* 1 once the thread is about to send */
} blocked_send;

static void *send_into_full(void *arg) {
    blocked_send *bs = arg;
    zc_parker p;
    zc_parker_init(&p);
    atomic_store_explicit(&bs->started, 1, memory_order_release); /* pairs: await_uint */
    if (bs->how == 0)
        bs->status = zc_send_blocking(bs->tx, &bs->v);
    else if (bs->how == 1)
        bs->status = zc_send_timeout(bs->tx, &bs->v, HANG_NS);
    else
        bs->status = send_parked(bs->tx, &bs->v, &p);
    zc_parker_destroy(&p);
    return NULL;
}

static void test_close_racing_a_blocked_send_returns_closed_and_its_message(void **state) {
    (void)state;
    const int ROUNDS = (int)scenario_rounds(900);
    for (int round = 0; round < ROUNDS; round++) {
        fixture f;
        fixture_init(&f, 1);
        send_u64(f.tx, 1);
        blocked_send bs = {f.tx, 100 + (uint64_t)round, round % 3, ZC_EINVAL, 0};
        pthread_t t;
        start_thread(&t, send_into_full, &bs);
        /* Close before, during or after the send's registration. */
        await_uint(&bs.started, 1);
        spin((unsigned)(round % 16) * 200);
        int closer = (round / 3) % 3;
        if (closer == 0)
            assert_true(zc_sender_close(f.tx));
        else if (closer == 1)
            assert_true(zc_receiver_close(f.rx));
        else
            zc_receiver_drop(f.rx); /* the last receiver: closes and disposes of 1 */
        pthread_join(t, NULL);
        assert_int_equal(bs.status, ZC_CLOSED);
        assert_int_equal(bs.v, 100 + (uint64_t)round);
        if (closer == 2) {
            assert_true(drop_counter_saw_once(&f.dc, 1, 2));
            zc_sender_drop(f.tx);
        } else {
            expect_u64(f.rx, 1);
            expect_recv_status(f.rx, ZC_CLOSED);
            fixture_done(&f);
            assert_int_equal(drop_counter_calls(&f.dc), 0);
        }
    }
}

/* ---- (12) a hundred senders race for one slot ----------------------------------------- */

enum { RACERS = 100 };

typedef struct racer {
    zc_sender *tx;
    atomic_uint *gate;
    uint64_t id;
    zc_status status;
} racer;

static void *try_send_once(void *arg) {
    racer *r = arg;
    /* Acquire: pairs with the opening release; all start together. */
    while (atomic_load_explicit(r->gate, memory_order_acquire) == 0)
        sched_yield();
    r->status = zc_try_send(r->tx, &r->id);
    zc_sender_drop(r->tx);
    return NULL;
}

static void test_one_of_a_hundred_racing_try_sends_fills_a_bounded_1_slot(void **state) {
    (void)state;
    for (int round = 0; round < 5; round++) {
        fixture f;
        fixture_init(&f, 1);
        static racer racers[RACERS];
        pthread_t t[RACERS];
        atomic_uint gate;
        atomic_init(&gate, 0);
        for (int i = 0; i < RACERS; i++) {
            racers[i] = (racer){zc_sender_clone(f.tx), &gate, (uint64_t)i, ZC_EINVAL};
            start_thread(&t[i], try_send_once, &racers[i]);
        }
        atomic_store_explicit(&gate, 1, memory_order_release); /* pairs: try_send_once */
        int winners = 0, winner = -1;
        for (int i = 0; i < RACERS; i++) {
            pthread_join(t[i], NULL);
            if (racers[i].status == ZC_OK) {
                winners++;
                winner = i;
            } else {
                assert_int_equal(racers[i].status, ZC_FULL);
            }
        }
        assert_int_equal(winners, 1);
        expect_u64(f.rx, (uint64_t)winner);
        expect_recv_status(f.rx, ZC_EMPTY);
        uint64_t v = 7;
        assert_int_equal(zc_try_send(f.tx, &v), ZC_OK);
        assert_int_equal(zc_try_send(f.tx, &v), ZC_FULL);
        fixture_done(&f);
    }
}

/* ---- (14) four messages circulate through a bounded(4) channel ------------------------- */

/* Four messages in a channel of capacity 4 and four threads, each of which takes one and
 * puts it back. Whoever sends holds one of the four, so the channel holds at most three
 * during the whole send: ZC_FULL is never a linearizable answer, and a send future never
 * has a reason to wait for longer than a receiver's copy-out. */
enum { CIRCULATORS = 4, CIRCULATIONS = 20000 };

typedef struct circulator {
    zc_sender *tx;
    zc_receiver *rx;
    uint64_t rng;
    unsigned fulls;  /* ZC_FULL from try_send: must stay 0 */
    unsigned hangs;  /* a future pending HANG_NS without a wake: must stay 0 */
    unsigned errors; /* any other unexpected status */
} circulator;

static void *circulate(void *arg) {
    circulator *c = arg;
    zc_parker p;
    zc_parker_init(&p);
    zc_recv r;
    zc_recv_init(&r, c->rx);
    for (unsigned i = 0; i < CIRCULATIONS; i++) {
        c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned how = (unsigned)(c->rng >> 60); /* 0..15 */
        uint64_t m = 0;
        zc_status s;
        if (how & 1) {
            s = recv_parked(&r, &p, &m);
        } else {
            while ((s = zc_try_recv(c->rx, &m)) == ZC_EMPTY)
                sched_yield(); /* the others may hold all four for a moment */
        }
        if (s == ZC_TIMEDOUT) c->hangs++;
        if (s != ZC_OK) {
            c->errors++;
            break;
        }
        if (how & 2) {
            s = send_parked(c->tx, &m, &p);
            if (s == ZC_TIMEDOUT) c->hangs++;
        } else {
            s = zc_try_send(c->tx, &m);
            if (s == ZC_FULL) {
                c->fulls++;
                s = zc_send_blocking(c->tx, &m); /* keep the message in circulation */
            }
        }
        if (s != ZC_OK) {
            c->errors++;
            break;
        }
    }
    zc_parker_destroy(&p);
    return NULL;
}

static void test_circulating_messages_never_meet_a_false_full(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, CIRCULATORS);
    for (uint64_t i = 0; i < CIRCULATORS; i++)
        send_u64(f.tx, i);
    circulator c[CIRCULATORS];
    pthread_t t[CIRCULATORS];
    for (int i = 0; i < CIRCULATORS; i++) {
        c[i] = (circulator){f.tx, f.rx, (uint64_t)i * 7919 + 1, 0, 0, 0};
        start_thread(&t[i], circulate, &c[i]);
    }
    unsigned fulls = 0, hangs = 0, errors = 0;
    for (int i = 0; i < CIRCULATORS; i++) {
        pthread_join(t[i], NULL);
        fulls += c[i].fulls;
        hangs += c[i].hangs;
        errors += c[i].errors;
    }
    assert_int_equal(fulls, 0);
    assert_int_equal(hangs, 0);
    assert_int_equal(errors, 0);
    uint64_t sum = 0, out;
    for (int i = 0; i < CIRCULATORS; i++) {
        assert_int_equal(zc_try_recv(f.rx, &out), ZC_OK);
        sum += out;
    }
    assert_int_equal(sum, 0 + 1 + 2 + 3);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* ---- (15) a completed send is never reported ZC_EMPTY (hook points) ------------------- */

#if ZCHAN_TEST_HOOKS

/* Holds the thread marked `stall_me` at its SLOT_CLAIMED hook point (after it claimed
 * its slot, before it wrote the message) until the main thread has begun the operation
 * under test, plus a few milliseconds more so that the operation runs inside the window.
 * What the test asserts does not depend on that time, only how often the window is hit. */
typedef struct stall {
    atomic_bool stalled;      /* the marked sender sits in its window */
    atomic_bool main_entered; /* the main thread is about to look at the channel */
} stall;

static _Thread_local bool stall_me;
static stall the_stall;

static void stall_hook(zc__hook_point point, void *ctx) {
    stall *st = ctx;
    if (point != ZC__HOOK_SLOT_CLAIMED || !stall_me) return;
    stall_me = false;
    /* Release/acquire: plain flags between the two threads of the test. */
    atomic_store_explicit(&st->stalled, true, memory_order_release);
    while (!atomic_load_explicit(&st->main_entered, memory_order_acquire))
        sched_yield();
    uint64_t until = now_ns() + 5 * 1000 * 1000;
    while (now_ns() < until)
        sched_yield();
}

static void *stalled_send(void *arg) {
    zc_sender *tx = arg;
    stall_me = true;
    uint64_t v = 1;
    (void)zc_try_send(tx, &v);
    return NULL;
}

static void *quick_send(void *arg) {
    uint64_t v = 2;
    (void)zc_try_send((zc_sender *)arg, &v);
    return NULL;
}

/* Sender A claims the next slot and stalls; sender B completes the slot after it and
 * is joined. A try_recv (or, with use_future, a receive future's poll) that starts after
 * B's completion must not answer ZC_EMPTY: it returns A's message once A is done, or
 * the future pends and is woken. */
static void run_completed_send_is_never_empty(size_t cap, bool use_future) {
    fixture f;
    fixture_init(&f, cap);
    atomic_init(&the_stall.stalled, false);
    atomic_init(&the_stall.main_entered, false);
    zc__test_set_hook(stall_hook, &the_stall);
    pthread_t a, b;
    start_thread(&a, stalled_send, f.tx);
    while (!atomic_load_explicit(&the_stall.stalled, memory_order_acquire))
        sched_yield();
    start_thread(&b, quick_send, f.tx);
    pthread_join(b, NULL); /* B's send happened-before everything below */
    atomic_store_explicit(&the_stall.main_entered, true, memory_order_release);
    uint64_t out = 0;
    if (!use_future) {
        assert_int_equal(zc_try_recv(f.rx, &out), ZC_OK);
        assert_int_equal(out, 1);
    } else {
        zc_recv r;
        zc_recv_init(&r, f.rx);
        zc_status s = zc_recv_poll(&r, &f.w[0], &out);
        if (s == ZC_PENDING) {
            pthread_join(a, NULL);
            assert_true(wakes(&f, 0) >= 1); /* a self-wake or A's publish woke it */
            s = zc_recv_poll(&r, &f.w[0], &out);
        }
        assert_int_equal(s, ZC_OK);
        assert_int_equal(out, 1);
    }
    pthread_join(a, NULL);
    zc__test_set_hook(NULL, NULL);
    expect_u64(f.rx, 2);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_completed_send_is_never_reported_empty_behind_a_stalled_one(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        run_completed_send_is_never_empty(both_flavours[k], false);
        run_completed_send_is_never_empty(both_flavours[k], true);
    }
}

/* ---- (4) a close that lands while a sender moves tail past a segment boundary -------
 * Found by the soak (tests/soak): the sender that takes a segment's last slot moves
 * tail_index past the boundary; a plain store there erased a close mark set in between,
 * so the channel reopened and later sends succeeded (and, after the last receiver's
 * drop, were never received nor disposed of). */

/* An unbounded channel holding 100..129 (offsets 0..29) and a thread (thread_main,
 * which sends 1 through f->tx as stall_me) held at its SLOT_CLAIMED point on offset 30,
 * the segment's last slot, before it installs the next segment; main_entered set. */
static void hold_a_sender_at_a_segment_boundary(fixture *f, pthread_t *a,
                                                void *(*thread_main)(void *)) {
    fixture_init(f, 0);
    for (uint64_t v = 100; v < 130; v++) send_u64(f->tx, v);
    atomic_init(&the_stall.stalled, false);
    atomic_init(&the_stall.main_entered, false);
    zc__test_set_hook(stall_hook, &the_stall);
    start_thread(a, thread_main, f->tx);
    while (!atomic_load_explicit(&the_stall.stalled, memory_order_acquire))
        sched_yield();
    atomic_store_explicit(&the_stall.main_entered, true, memory_order_release);
}

static void test_close_while_a_sender_crosses_a_segment_boundary_stays_closed(void **state) {
    (void)state;
    for (int by_receiver = 0; by_receiver < 2; by_receiver++) {
        fixture f;
        pthread_t a;
        hold_a_sender_at_a_segment_boundary(&f, &a, stalled_send);
        assert_true(by_receiver ? zc_receiver_close(f.rx) : zc_sender_close(f.tx));
        pthread_join(a, NULL);
        zc__test_set_hook(NULL, NULL);
        uint64_t v = 3;
        assert_int_equal(zc_try_send(f.tx, &v), ZC_CLOSED);
        zc_info info;
        assert_int_equal(zc_sender_info(f.tx, &info), ZC_OK);
        assert_true(info.closed);
        for (uint64_t want = 100; want < 130; want++) expect_u64(f.rx, want);
        expect_u64(f.rx, 1); /* the stalled send claimed before the close: it lands */
        expect_recv_status(f.rx, ZC_CLOSED);
        fixture_done(&f);
    }
}

/* A timed send behind a sender that holds a segment's last slot, the next segment not yet
 * installed, cannot go through: zc_try_send would wait that sender out, a timed send
 * times out (block.h, found by a break trial in session 22, where 1 ns timeouts ended in
 * ZC_TIMEDOUT for up to 3% of 1.6 million sends by 16 threads to an unbounded channel)
 * and sends nothing. */
static atomic_bool stalled_send_done;

static void *stalled_send_then_mark(void *arg) {
    stalled_send(arg);
    atomic_store_explicit(&stalled_send_done, true, memory_order_release); /* a flag */
    return NULL;
}

static void test_timed_send_behind_a_segment_install_times_out_and_sends_nothing(void **state) {
    (void)state;
    fixture f;
    pthread_t a;
    atomic_init(&stalled_send_done, false);
    hold_a_sender_at_a_segment_boundary(&f, &a, stalled_send_then_mark);
    uint64_t v = 7;
    zc_status at_once = zc_send_timeout(f.tx, &v, 0);
    zc_status within_1ms = zc_send_timeout(f.tx, &v, 1000 * 1000);
    /* The stall lasts 5 ms from main_entered: only a main thread descheduled that long
     * finds the install done (then a send may go through). */
    bool held = !atomic_load_explicit(&stalled_send_done, memory_order_acquire);
    pthread_join(a, NULL);
    zc__test_set_hook(NULL, NULL);
    if (held) {
        assert_int_equal(at_once, ZC_TIMEDOUT);
        assert_int_equal(within_1ms, ZC_TIMEDOUT);
    }
    for (uint64_t want = 100; want < 130; want++) expect_u64(f.rx, want);
    expect_u64(f.rx, 1); /* the stalled send */
    if (at_once == ZC_OK) expect_u64(f.rx, 7);
    if (within_1ms == ZC_OK) expect_u64(f.rx, 7);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* ---- (rule 4) a wake-up absorbed by a poll that returns PENDING through a self-wake
 * must not be lost when the future is then cancelled ---------------------------------- */

/* A peer thread that holds its slot claimed (a sender before publishing it, or a
 * receiver before releasing it) for `delay` pauses at its SLOT_CLAIMED hook point, then
 * finishes, and its [F1] check wakes the first waiter of the other side. */
typedef struct slow_peer {
    atomic_uint go, claimed, acked, done; /* round numbers (release / acquire) */
    zc_sender *tx;                 /* the peer sends through tx, or receives through rx */
    zc_receiver *rx;               /* (both written before go) */
    unsigned delay;                /* written before go */
} slow_peer;

static _Thread_local slow_peer *slow_me;

static void slow_peer_hook(zc__hook_point point, void *ctx) {
    (void)ctx;
    slow_peer *sp = slow_me;
    if (point != ZC__HOOK_SLOT_CLAIMED || sp == NULL) return;
    /* Relaxed: this thread read go with acquire before it began the operation. */
    unsigned round = atomic_load_explicit(&sp->go, memory_order_relaxed);
    atomic_store_explicit(&sp->claimed, round, memory_order_release); /* pairs: await_uint */
    /* Hold from the moment the main thread is known to be running (its ack), so that a
     * main thread descheduled while it waited does not skew the steering. */
    await_uint(&sp->acked, round);
    spin(sp->delay);
}

static void *slow_peer_main(void *arg) {
    slow_peer *sp = arg;
    for (unsigned round = 1; await_uint(&sp->go, round); round++) {
        slow_me = sp;
        uint64_t v = round;
        if (sp->tx != NULL)
            (void)zc_try_send(sp->tx, &v);
        else
            (void)zc_try_recv(sp->rx, &v);
        slow_me = NULL;
        atomic_store_explicit(&sp->done, round, memory_order_release); /* pairs: await_uint */
    }
    return NULL;
}

/* Futures A and B wait on one side of a bounded(1) channel (A first): receivers on an
 * empty one, or senders on a full one. A peer of the other side claims the slot and
 * holds it; A is polled again meanwhile: the ring says PENDING (the peer is mid-copy),
 * so A's poll steps off the list, wakes itself and returns PENDING, and A's executor
 * cancels it (a timeout). If the peer's [F1] wake reached A in the moment between A's
 * look at the slot and A's stepping off, A held that wake-up: it must reach B (waker
 * rule 4), or B waits while what it waits for is there. The peer holds the slot from the
 * main thread's ack for a time steered (as in scenario 9) so that it ends about when A
 * looks, round after round. */
typedef enum waiting_kind { RECEIVERS, SENDERS, BATCH_RECEIVER, BATCH_SENDER } waiting_kind;

static void run_cancel_after_a_self_woken_pending_poll(waiting_kind kind) {
    bool receivers = kind == RECEIVERS || kind == BATCH_RECEIVER;
    const unsigned ROUNDS = scenario_rounds(20000);
    static slow_peer sp;
    atomic_init(&sp.go, 0);
    atomic_init(&sp.claimed, 0);
    atomic_init(&sp.acked, 0);
    atomic_init(&sp.done, 0);
    sp.delay = 200;
    zc__test_set_hook(slow_peer_hook, NULL);
    pthread_t t;
    start_thread(&t, slow_peer_main, &sp);
    cpu_set_t cpus = spread_threads(t);
    unsigned early = 0, late = 0, stranded = 0, first_stranded = 0, round;
    uint64_t t0 = now_ns();
    for (round = 1; race_goes_on(round, ROUNDS, t0); round++) {
        fixture f;
        fixture_init(&f, 1);
        zc_recv r[2];
        zc_send s[2];
        zc_recv_many batch;
        zc_send_many batch_send;
        uint64_t msg[2], out = 0;
        size_t got = 0;
        zc_status sa;
        if (kind == BATCH_SENDER) { /* A sends a batch of one; B is a plain send future */
            send_u64(f.tx, 1);
            msg[0] = 100;
            msg[1] = 101;
            zc_send_many_init(&batch_send, f.tx, &msg[0], 1, 0);
            assert_int_equal(zc_send_many_poll(&batch_send, &f.w[0]), ZC_PENDING);
            zc_send_init(&s[1], f.tx, &msg[1]);
            assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_PENDING);
            sp.tx = NULL;
            sp.rx = f.rx;
        } else if (kind == BATCH_RECEIVER) { /* A takes batches; B is a plain receive future */
            zc_recv_many_init(&batch, f.rx);
            assert_int_equal(zc_recv_many_poll(&batch, &f.w[0], &out, 1, &got), ZC_PENDING);
            zc_recv_init(&r[1], f.rx);
            expect_poll_pending(&r[1], &f.w[1]);
            sp.tx = f.tx;
            sp.rx = NULL;
        } else if (receivers) {
            pend_receivers(&f, r, 2);
            sp.tx = f.tx;
            sp.rx = NULL;
        } else {
            pend_senders(&f, s, msg, 2);
            sp.tx = NULL;
            sp.rx = f.rx;
        }
        atomic_store_explicit(&sp.go, round, memory_order_release); /* tx/rx/delay set */
        await_uint(&sp.claimed, round);
        atomic_store_explicit(&sp.acked, round, memory_order_release); /* pairs: the hook */
        if (kind == BATCH_SENDER) {
            sa = zc_send_many_poll(&batch_send, &f.w[0]);
            if (sa == ZC_PENDING) zc_send_many_cancel(&batch_send);
        } else if (kind == BATCH_RECEIVER) {
            sa = zc_recv_many_poll(&batch, &f.w[0], &out, 1, &got);
            if (sa == ZC_PENDING) zc_recv_many_cancel(&batch);
        } else if (receivers) {
            sa = zc_recv_poll(&r[0], &f.w[0], &out);
            if (sa == ZC_PENDING) zc_recv_cancel(&r[0]);
        } else {
            sa = zc_send_poll(&s[0], &f.w[0]);
            if (sa == ZC_PENDING) zc_send_cancel(&s[0]);
        }
        await_uint(&sp.done, round);
        unsigned step = 1 + round % 7;
        bool b_can_go = channel_len(&f) == (receivers ? 1u : 0u);
        if (sa == ZC_OK) { /* the peer finished while A looked: hold longer */
            early++;
            /* Bounded: when the main thread is descheduled, the peer finishes first
             * whatever its hold. */
            sp.delay = sp.delay < 4000 ? sp.delay + step : 4000;
        } else if (wakes(&f, 1) == 1) { /* it finished after A stepped off: B woken */
            late++;
            sp.delay = sp.delay > step ? sp.delay - step : 0;
        } else if (b_can_go) {
            if (stranded++ == 0) first_stranded = round;
            sp.delay = sp.delay > step ? sp.delay - step : 0;
        }
        if (receivers) {
            zc_recv_cancel(&r[1]);
        } else {
            if (kind == BATCH_SENDER)
                zc_send_many_cancel(&batch_send);
            else
                zc_send_cancel(&s[0]);
            zc_send_cancel(&s[1]);
        }
        fixture_done(&f);
    }
    atomic_store_explicit(&sp.go, RACE_END, memory_order_release);
    pthread_join(t, NULL);
    unspread_threads(cpus);
    zc__test_set_hook(NULL, NULL);
    print_message("self-woken %s cancelled: %u rounds, %u early, %u late, %u with B "
                  "stranded (first in round %u)\n",
                  kind == RECEIVERS   ? "receiver"
                  : kind == SENDERS   ? "sender"
                  : kind == BATCH_RECEIVER ? "batch receiver"
                                      : "batch sender",
                  round - 1, early, late, stranded,
                  first_stranded);
    assert_int_equal(stranded, 0);
    /* The peer must have finished on both sides of A's look, or the window was never
     * reached: then the test says so instead of passing (two threads on one busy core
     * cannot be steered). */
    if (early == 0 || late == 0) skip();
}

static void test_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(RECEIVERS);
}

static void test_sender_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(SENDERS);
}

/* The same with a batch future (zc_recv_many, zc_send_many) as A. */
static void
test_batch_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(BATCH_RECEIVER);
}

static void
test_batch_sender_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(BATCH_SENDER);
}

/* ---- a peer held between its claim and its copy: the others still time out --------- */

/* Holds the thread marked hold_me at its SLOT_CLAIMED point until release is set: a
 * receiver that claimed the only message and was preempted before copying it out, or a
 * sender that claimed the only slot before writing. The operation under test must finish
 * while the peer is held; a watchdog releases the peer after HOLD_NS and says so, so a
 * regression fails the test instead of hanging it. */
#define HOLD_NS (5ull * 1000 * 1000 * 1000)

typedef struct hold {
    atomic_bool held;    /* the marked thread sits at its SLOT_CLAIMED point */
    atomic_bool release; /* let it go on */
    atomic_bool forced;  /* the watchdog released it: the call under test had not returned */
    atomic_uint freed;   /* segments freed (or kept as spare) so far, any thread */
} hold;

static _Thread_local bool hold_me;

static void hold_hook(zc__hook_point point, void *ctx) {
    hold *h = ctx;
    if (point == ZC__HOOK_SEGMENT_FREED)
        /* Relaxed: a count, read after the threads are joined. */
        atomic_fetch_add_explicit(&h->freed, 1, memory_order_relaxed);
    if (point != ZC__HOOK_SLOT_CLAIMED || !hold_me) return;
    hold_me = false;
    /* Release/acquire: plain flags between the threads of the test. */
    atomic_store_explicit(&h->held, true, memory_order_release);
    while (!atomic_load_explicit(&h->release, memory_order_acquire))
        sched_yield();
}

static void *hold_watchdog(void *arg) {
    hold *h = arg;
    uint64_t until = now_ns() + HOLD_NS;
    while (!atomic_load_explicit(&h->release, memory_order_acquire)) {
        if (now_ns() >= until) {
            atomic_store_explicit(&h->forced, true, memory_order_release);
            atomic_store_explicit(&h->release, true, memory_order_release);
            break;
        }
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    return NULL;
}

typedef struct held_op {
    fixture *f;
    uint64_t v;  /* the held sender's message; the held receiver's catch */
    zc_status s; /* what the held operation returned (checked on the main thread) */
} held_op;

static void *held_try_recv(void *arg) {
    held_op *op = arg;
    hold_me = true;
    op->s = zc_try_recv(op->f->rx, &op->v);
    return NULL;
}

static void *held_try_send(void *arg) {
    held_op *op = arg;
    hold_me = true;
    op->s = zc_try_send(op->f->tx, &op->v);
    return NULL;
}

/* Start the peer (a zc_try_recv, or a zc_try_send of op->v) on op's channel and wait
 * until it is held at its SLOT_CLAIMED point; then start the watchdog. */
static void hold_init(hold *h) {
    atomic_init(&h->held, false);
    atomic_init(&h->release, false);
    atomic_init(&h->forced, false);
    atomic_init(&h->freed, 0);
}

static void hold_start(hold *h, held_op *op, bool receive, pthread_t *peer, pthread_t *dog) {
    hold_init(h);
    zc__test_set_hook(hold_hook, h);
    start_thread(peer, receive ? held_try_recv : held_try_send, op);
    while (!atomic_load_explicit(&h->held, memory_order_acquire))
        sched_yield();
    start_thread(dog, hold_watchdog, h);
}

/* Release the peer and join it and the watchdog. True if the watchdog had released it
 * already: the calls made meanwhile had waited for the peer. */
static bool hold_end(hold *h, pthread_t peer, pthread_t dog) {
    bool forced = atomic_load_explicit(&h->forced, memory_order_acquire);
    atomic_store_explicit(&h->release, true, memory_order_release);
    pthread_join(dog, NULL);
    pthread_join(peer, NULL);
    return forced;
}

/* ---- (rule 1) a poll woken during its re-check, which then meets a peer mid-operation,
 * wakes its waker once, not a second time through a self-wake -------------------------
 * Found by session 17's break test. A future registers (its WAITER_REGISTERED point);
 * in the window before its re-check its waker is called, and a receiver begins a
 * receive on what the re-check needs and is held there (hold_hook). The re-check meets
 * that peer mid-operation (the queue says PENDING): the poll steps off and used to wake
 * itself too, two calls for one registration. Receive: an empty unbounded channel whose
 * next slot is a segment's last; a send wakes the future, and the held receiver takes
 * that message before it moves head to the next segment. Send: a full bounded(2)
 * channel; a receive frees a slot and wakes the future, another sender fills it, and the
 * held receiver takes the next message before it releases the slot the future needs. */
typedef struct woken_in_recheck {
    bool send_side;    /* which window the hook opens */
    atomic_bool armed; /* the main thread's next registration opens the window */
    hold h;            /* the held receiver's */
    held_op op;        /* the held receiver */
    pthread_t peer;
} woken_in_recheck;

static void *quick_recv(void *arg) {
    uint64_t v;
    (void)zc_try_recv((zc_receiver *)arg, &v);
    return NULL;
}

static void run_in_a_thread(void *(*fn)(void *), void *arg) {
    pthread_t t;
    start_thread(&t, fn, arg);
    pthread_join(t, NULL);
}

static void woken_in_recheck_hook(zc__hook_point point, void *ctx) {
    woken_in_recheck *wr = ctx;
    hold_hook(point, &wr->h);
    /* Acq_rel: a plain flag between the test's threads. */
    if (point != ZC__HOOK_WAITER_REGISTERED ||
        !atomic_exchange_explicit(&wr->armed, false, memory_order_acq_rel))
        return;
    fixture *f = wr->op.f;
    if (wr->send_side) {
        run_in_a_thread(quick_recv, f->rx); /* frees a slot: wakes the future */
        run_in_a_thread(quick_send, f->tx); /* takes it (2) */
    } else {
        run_in_a_thread(quick_send, f->tx); /* wakes the future (2) */
    }
    start_thread(&wr->peer, held_try_recv, &wr->op);
    while (!atomic_load_explicit(&wr->h.held, memory_order_acquire)) sched_yield();
}

typedef enum recheck_future { RECV_FUTURE, RECV_MANY, SEND_FUTURE, SEND_MANY } recheck_future;

static zc_status poll_recheck_future(fixture *f, recheck_future kind, zc_recv *r,
                                     zc_recv_many *rm, zc_send *s, zc_send_many *sm,
                                     uint64_t *out) {
    size_t got = 0;
    switch (kind) {
    case RECV_FUTURE: return zc_recv_poll(r, &f->w[0], out);
    case RECV_MANY: return zc_recv_many_poll(rm, &f->w[0], out, 1, &got);
    case SEND_FUTURE: return zc_send_poll(s, &f->w[0]);
    default: return zc_send_many_poll(sm, &f->w[0]);
    }
}

static void run_woken_in_recheck(recheck_future kind) {
    bool send_side = kind == SEND_FUTURE || kind == SEND_MANY;
    fixture f;
    fixture_init(&f, send_side ? 2 : 0);
    if (send_side) {
        send_u64(f.tx, 1); /* full */
        send_u64(f.tx, 3);
    } else {
        for (uint64_t i = 0; i < 30; i++) send_u64(f.tx, i); /* head to offset 30, */
        for (uint64_t i = 0; i < 30; i++) expect_u64(f.rx, i); /* a segment's last */
    }
    static woken_in_recheck wr;
    wr.send_side = send_side;
    wr.op = (held_op){.f = &f};
    hold_init(&wr.h);
    atomic_init(&wr.armed, true);
    zc__test_set_hook(woken_in_recheck_hook, &wr);
    uint64_t msg = 99, out = 0;
    zc_recv r;
    zc_recv_many rm;
    zc_send s;
    zc_send_many sm;
    zc_recv_init(&r, f.rx);
    zc_recv_many_init(&rm, f.rx);
    zc_send_init(&s, f.tx, &msg);
    zc_send_many_init(&sm, f.tx, &msg, 1, 0);
    zc_status st = poll_recheck_future(&f, kind, &r, &rm, &s, &sm, &out);
    assert_false(atomic_load_explicit(&wr.armed, memory_order_acquire)); /* window run */
    assert_int_equal(st, ZC_PENDING);
    assert_int_equal(wakes(&f, 0), 1); /* the peer's wake; no self-wake on top */
    atomic_store_explicit(&wr.h.release, true, memory_order_release);
    pthread_join(wr.peer, NULL);
    zc__test_set_hook(NULL, NULL);
    assert_int_equal(wr.op.s, ZC_OK);
    if (send_side) {
        /* Woken, the send polls again: the held receive freed a slot. */
        assert_int_equal(wr.op.v, 3);
        assert_int_equal(poll_recheck_future(&f, kind, &r, &rm, &s, &sm, &out), ZC_OK);
        expect_u64(f.rx, 2);
        expect_u64(f.rx, 99);
    } else {
        /* Woken, the receive polls again: the message went to the held receiver. */
        assert_int_equal(wr.op.v, 2);
        assert_int_equal(poll_recheck_future(&f, kind, &r, &rm, &s, &sm, &out), ZC_PENDING);
        send_u64(f.tx, 31);
        assert_int_equal(wakes(&f, 0), 2);
        assert_int_equal(poll_recheck_future(&f, kind, &r, &rm, &s, &sm, &out), ZC_OK);
        assert_int_equal(out, 31);
    }
    assert_int_equal(wakes(&f, 0), send_side ? 1 : 2);
    fixture_done(&f);
}

static void test_a_poll_woken_during_its_recheck_is_not_woken_again_by_itself(void **state) {
    (void)state;
    run_woken_in_recheck(RECV_FUTURE);
    run_woken_in_recheck(RECV_MANY);
    run_woken_in_recheck(SEND_FUTURE);
    run_woken_in_recheck(SEND_MANY);
}

/* The timeout scenarios' check: while op's peer (a receiver, or a sender of op->v) is
 * held, a receive or a send of 3 with a 20 ms timeout returns ZC_TIMEDOUT, before the
 * watchdog had to release the peer; then the peer's own operation completes. */
static void expect_timeout_while_held(fixture *f, held_op *op, bool receive) {
    hold h;
    pthread_t peer, dog;
    hold_start(&h, op, receive, &peer, &dog);
    uint64_t v = 3;
    zc_status s = receive ? zc_recv_timeout(f->rx, &v, 20 * 1000 * 1000)
                          : zc_send_timeout(f->tx, &v, 20 * 1000 * 1000);
    bool forced = hold_end(&h, peer, dog);
    zc__test_set_hook(NULL, NULL);
    assert_false(forced); /* returned while the peer was held */
    assert_int_equal(s, ZC_TIMEDOUT);
    assert_int_equal(op->s, ZC_OK);
}

/* On a bounded(1) channel, a peer on the same end as the call under test is held in
 * the middle of its operation; the call (a receive or a send with a 20 ms timeout) finds
 * nothing it could take and must return ZC_TIMEDOUT while the peer is still held. */
static void run_timeout_while_a_peer_is_held(bool receive) {
    fixture f;
    fixture_init(&f, 1);
    if (receive) send_u64(f.tx, 1);
    held_op op = {.f = &f, .v = 2};
    expect_timeout_while_held(&f, &op, receive);
    if (receive) {
        assert_int_equal(op.v, 1); /* the held receiver got the message */
    } else {
        expect_u64(f.rx, 2); /* the held sender's message, and not ours */
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_recv_timeout_expires_while_another_receiver_is_held_mid_copy(void **state) {
    (void)state;
    run_timeout_while_a_peer_is_held(true);
}

static void test_send_timeout_expires_while_another_sender_is_held_mid_write(void **state) {
    (void)state;
    run_timeout_while_a_peer_is_held(false);
}

/* ---- an unbounded channel's segment outlives a receiver held mid-copy ------------- */

/* Slots per segment of an unbounded channel (src/segq.h ZC__SEG_CAP). */
#define SEG_SLOTS 31

/* A receiver claims the first message of a segment and is held before copying it out.
 * The main thread receives the rest of that segment, past its end (where the segment is
 * reclaimed once its readers are done), then sends and receives two segments' worth, so
 * that the first segment, had it been freed or reused while the held receiver still
 * needed it, would hold other bytes by then (the freed segment is the spare that the
 * next segment is made from). The held receiver must still copy out its own message,
 * and once it is done, a receive that finds the channel empty frees that segment: the
 * three segments read out are freed while the channel lives (a drained channel holds at
 * most the current segment and the spare). */
static void test_unbounded_segment_outlives_a_receiver_held_mid_copy(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    for (uint64_t v = 1; v <= SEG_SLOTS; v++) send_u64(f.tx, v);
    hold h;
    held_op op = {.f = &f, .v = 0};
    pthread_t peer, dog;
    hold_start(&h, &op, true, &peer, &dog); /* the peer claims message 1, then is held */
    for (uint64_t v = 2; v <= SEG_SLOTS; v++) expect_u64(f.rx, v);
    for (uint64_t v = SEG_SLOTS + 1; v <= 3 * SEG_SLOTS; v++) send_u64(f.tx, v);
    for (uint64_t v = SEG_SLOTS + 1; v <= 3 * SEG_SLOTS; v++) expect_u64(f.rx, v);
    bool forced = hold_end(&h, peer, dog);
    assert_false(forced); /* the main thread never waited for the held receiver */
    assert_int_equal(op.s, ZC_OK);
    assert_int_equal(op.v, 1);
    expect_recv_status(f.rx, ZC_EMPTY);
    zc__test_set_hook(NULL, NULL);
    assert_int_equal(atomic_load_explicit(&h.freed, memory_order_relaxed), 3);
    fixture_done(&f);
}

/* On an unbounded channel, a peer holds a segment's end: it took the segment's last slot
 * and is held before moving its end of the queue on to the next segment, so every other
 * call on that end waits for it. The call under test (a receive or a send with a 20 ms
 * timeout) must return ZC_TIMEDOUT while the peer is still held; afterwards everything
 * arrives in order. */
static void run_timeout_while_a_peer_holds_a_segment_end(bool receive) {
    fixture f;
    fixture_init(&f, 0);
    /* Receive: the first segment full and 3 messages in the next one; the main thread
     * takes all but the last of the first, the peer claims that one. Send: the first
     * segment full but one slot, which the peer claims. */
    uint64_t sent = receive ? SEG_SLOTS + 3 : SEG_SLOTS - 1;
    for (uint64_t v = 1; v <= sent; v++) send_u64(f.tx, v);
    if (receive)
        for (uint64_t v = 1; v < SEG_SLOTS; v++) expect_u64(f.rx, v);
    held_op op = {.f = &f, .v = SEG_SLOTS};
    expect_timeout_while_held(&f, &op, receive);
    assert_int_equal(op.v, SEG_SLOTS); /* the held receiver's catch / sender's message */
    if (receive) {
        for (uint64_t w = SEG_SLOTS + 1; w <= sent; w++) expect_u64(f.rx, w);
    } else {
        for (uint64_t w = 1; w <= SEG_SLOTS; w++) expect_u64(f.rx, w);
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_recv_timeout_expires_while_another_receiver_holds_a_segment_end(void **state) {
    (void)state;
    run_timeout_while_a_peer_holds_a_segment_end(true);
}

static void test_send_timeout_expires_while_another_sender_holds_a_segment_end(void **state) {
    (void)state;
    run_timeout_while_a_peer_holds_a_segment_end(false);
}

/* ---- an all-or-nothing batch on an unbounded channel is not cut by its timeout ------ */

/* The batch's first message goes into a segment's second-to-last slot. At that claim
 * (the main thread's SLOT_CLAIMED point) a peer sender claims the segment's last slot
 * and is held there, before it installs the next segment; a releaser lets it go after
 * SPLIT_HOLD_NS, well past the batch's 20 ms timeout. The rest of the batch waits behind
 * the peer, as zc_try_send would: with ZC_ALL_OR_NOTHING a timeout must not leave part
 * of the batch sent (batch.h: ZC_TIMEDOUT with *sent 0), so the call has to send it all
 * (found by a fresh-user break test: ZC_TIMEDOUT with *sent 1-8 of 16). */
#define SPLIT_HOLD_NS (100ull * 1000 * 1000)

typedef struct split {
    hold h;
    held_op op;
    pthread_t peer, releaser;
} split;

static _Thread_local bool split_me;

static void *release_later(void *arg) {
    hold *h = arg;
    nanosleep(&(struct timespec){0, (long)SPLIT_HOLD_NS}, NULL);
    atomic_store_explicit(&h->release, true, memory_order_release);
    return NULL;
}

static void split_hook(zc__hook_point point, void *ctx) {
    split *sp = ctx;
    hold_hook(point, &sp->h); /* the peer, at its claim of the last slot */
    if (point != ZC__HOOK_SLOT_CLAIMED || !split_me) return;
    split_me = false;
    start_thread(&sp->peer, held_try_send, &sp->op);
    while (!atomic_load_explicit(&sp->h.held, memory_order_acquire))
        sched_yield();
    start_thread(&sp->releaser, release_later, &sp->h);
}

/* After the batch returned: let the peer go (at once if the batch did not wait for it),
 * join it and the releaser, and take the hook off. */
static void split_end(split *sp) {
    atomic_store_explicit(&sp->h.release, true, memory_order_release);
    pthread_join(sp->peer, NULL);
    pthread_join(sp->releaser, NULL);
    zc__test_set_hook(NULL, NULL);
}

static void test_unbounded_all_or_nothing_batch_is_not_cut_by_its_timeout(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    for (uint64_t v = 1; v <= SEG_SLOTS - 2; v++) send_u64(f.tx, v);
    split sp = {.op = {.f = &f, .v = 100}};
    hold_init(&sp.h);
    zc__test_set_hook(split_hook, &sp);
    uint64_t batch[4] = {201, 202, 203, 204};
    size_t sent = 99;
    split_me = true;
    zc_status s = zc_send_many_timeout(f.tx, batch, 4, &sent, ZC_ALL_OR_NOTHING,
                                       20 * 1000 * 1000);
    split_me = false;
    split_end(&sp);
    assert_int_equal(sp.op.s, ZC_OK);
    assert_int_equal(s, ZC_OK);
    assert_int_equal(sent, 4);
    for (uint64_t v = 1; v <= SEG_SLOTS - 2; v++) expect_u64(f.rx, v);
    expect_u64(f.rx, 201); /* the batch's first, then the peer's, then the batch's rest */
    expect_u64(f.rx, 100);
    for (uint64_t v = 202; v <= 204; v++) expect_u64(f.rx, v);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* The same batch, cut first by a failed allocation: the batch's push into the segment's
 * last slot needs the next segment, and its allocation fails (the calloc wrapper below,
 * linked in hooks builds); meanwhile a peer sender claims that last slot and is held
 * before it installs the next segment. The batch has begun (the messages before went
 * in), so it must now wait for the peer, not give up at its deadline with part of it
 * sent and ZC_TIMEDOUT (found by the second break test: ZC_TIMEDOUT with 30 of 40). */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static _Thread_local bool fail_alloc_me; /* the next calloc on this thread fails */
static split *fail_alloc_split;           /* ...after starting its held peer */

void *__wrap_calloc(size_t n, size_t size) {
    if (!fail_alloc_me) return __real_calloc(n, size);
    fail_alloc_me = false; /* pthread_create below may allocate too */
    split *sp = fail_alloc_split;
    start_thread(&sp->peer, held_try_send, &sp->op);
    while (!atomic_load_explicit(&sp->h.held, memory_order_acquire))
        sched_yield();
    start_thread(&sp->releaser, release_later, &sp->h);
    return NULL;
}

static void test_unbounded_all_or_nothing_batch_cut_by_enomem_is_not_cut_by_its_timeout(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    send_u64(f.tx, 1); /* the first segment, then its first slot taken out again */
    expect_u64(f.rx, 1);
    split sp = {.op = {.f = &f, .v = 100}};
    hold_init(&sp.h);
    zc__test_set_hook(hold_hook, &sp.h);
    enum { N = 40, BEFORE = SEG_SLOTS - 2 }; /* slots 1 .. 29 before the last one */
    uint64_t batch[N];
    for (int i = 0; i < N; i++) batch[i] = 200 + (uint64_t)i;
    size_t sent = 99;
    fail_alloc_split = &sp;
    fail_alloc_me = true;
    zc_status s = zc_send_many_timeout(f.tx, batch, N, &sent, ZC_ALL_OR_NOTHING,
                                       20 * 1000 * 1000);
    fail_alloc_me = false;
    split_end(&sp);
    assert_int_equal(sp.op.s, ZC_OK);
    assert_int_equal(s, ZC_OK);
    assert_int_equal(sent, N);
    for (int i = 0; i < BEFORE; i++) expect_u64(f.rx, 200 + (uint64_t)i);
    expect_u64(f.rx, 100); /* the peer's, in the last slot */
    for (int i = BEFORE; i < N; i++) expect_u64(f.rx, 200 + (uint64_t)i);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* ---- an executor that polls from inside the wake: no recursion while a peer stalls --- */

/* A poll that meets a peer mid-operation wakes itself (future.c). The waker contract lets
 * an executor poll the future again from inside that wake; while the peer stalls, each
 * such poll met the stall again and woke itself again, one level deeper (found by the
 * second break test of session 9: a stack overflow after a 200 ms stall with zc_send).
 * Here the waker polls inline, as such an executor does, with a peer held mid-operation
 * for SPLIT_HOLD_NS: the nesting must stay at one level, and that inline poll must
 * complete once the peer goes on. The waker stops nesting at DEPTH_CAP levels, so that
 * a regression fails the test instead of overflowing the stack. */
enum { DEPTH_CAP = 64 };

typedef struct inline_poller {
    zc_send *send;      /* the future polled from inside the wake: send, */
    zc_recv *recv;      /* or receive into *out */
    uint64_t *out;
    zc_waker self;      /* {inline_repoll, this} */
    pthread_t owner;    /* the thread that polls; a wake from another is only counted */
    atomic_uint elsewhere;
    int depth, max_depth;
    zc_status last;     /* what the outermost inline poll returned */
} inline_poller;

static void inline_repoll(void *ctx) {
    inline_poller *ip = ctx;
    if (!pthread_equal(pthread_self(), ip->owner)) {
        /* An executor would queue the task; polling here too would make two polls of
         * one future at once. Relaxed: a count. */
        atomic_fetch_add_explicit(&ip->elsewhere, 1, memory_order_relaxed);
        return;
    }
    if (ip->depth >= DEPTH_CAP) return;
    ip->depth++;
    if (ip->depth > ip->max_depth) ip->max_depth = ip->depth;
    zc_status s = ip->send ? zc_send_poll(ip->send, &ip->self)
                           : zc_recv_poll(ip->recv, &ip->self, ip->out);
    if (ip->depth == 1) ip->last = s;
    ip->depth--;
}

/* receive: the main thread receives while a sender is held mid-write on an empty
 * bounded(1) channel; else it sends while a receiver is held mid-copy on a full one. */
static void run_inline_poll_while_a_peer_is_held(bool receive) {
    fixture f;
    fixture_init(&f, 1);
    if (!receive) send_u64(f.tx, 1);
    held_op op = {.f = &f, .v = 2};
    hold h;
    pthread_t peer, dog, releaser;
    hold_start(&h, &op, !receive, &peer, &dog); /* the peer on the other end */
    start_thread(&releaser, release_later, &h);
    uint64_t v = 3, got = 0;
    zc_send sf;
    zc_recv rf;
    inline_poller ip = {.out = &got, .owner = pthread_self(), .last = ZC_EINVAL};
    ip.self = (zc_waker){inline_repoll, &ip};
    zc_status s;
    if (receive) {
        ip.recv = &rf;
        zc_recv_init(&rf, f.rx);
        s = zc_recv_poll(&rf, &ip.self, &got);
    } else {
        ip.send = &sf;
        zc_send_init(&sf, f.tx, &v);
        s = zc_send_poll(&sf, &ip.self);
    }
    pthread_join(releaser, NULL);
    bool forced = hold_end(&h, peer, dog);
    zc__test_set_hook(NULL, NULL);
    assert_false(forced);
    assert_int_equal(op.s, ZC_OK);
    assert_int_equal(s, ZC_PENDING); /* the outer poll woke itself */
    assert_int_equal(ip.max_depth, 1);
    assert_int_equal(ip.last, ZC_OK); /* the poll inside the wake waited for the peer */
    if (receive) {
        assert_int_equal(got, 2); /* the held sender's message */
    } else {
        assert_int_equal(op.v, 1); /* the held receiver's catch */
        expect_u64(f.rx, 3);
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_send_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls(
    void **state) {
    (void)state;
    run_inline_poll_while_a_peer_is_held(false);
}

static void test_recv_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls(
    void **state) {
    (void)state;
    run_inline_poll_while_a_peer_is_held(true);
}

/* ---- a blocking call gives its CPU to a lower-priority peer held mid-operation ------- */

/* Real-time threads on one CPU: a receiver (SCHED_FIFO 10) claims the only message of a
 * full bounded(1) channel and, at that point (its SLOT_CLAIMED hook), wakes a sender of
 * higher priority (SCHED_FIFO 20), which preempts it at once: the receiver is runnable
 * but holds the slot mid-copy. The sender's zc_send_blocking finds the ring saying
 * PENDING (a peer is mid-operation) for as long as the receiver cannot run, and
 * sched_yield gives the CPU to no lower priority: unless the blocking call really sleeps
 * now and then, it spins on the CPU for ever (found by a fresh-user break test: 4 of 6
 * such senders spinning, a priority-10 receiver stuck in zc__ring_pop_slow). A watchdog
 * on the main thread demotes the sender after WATCHDOG_NS, so a regression fails the test
 * instead of hanging it. Skipped where real-time priorities are not permitted. */
#ifdef __linux__ /* CPU affinity, sched_getcpu */

#define WATCHDOG_NS (3ull * 1000 * 1000 * 1000)

typedef struct rt_pair {
    fixture *f;
    zc_parker go;           /* the sender waits here for the receiver's claim */
    atomic_bool sent;       /* the sender's call returned */
    zc_status send_s, recv_s;
    uint64_t got;
} rt_pair;

static _Thread_local bool preempt_me;

static void wake_sender_hook(zc__hook_point point, void *ctx) {
    rt_pair *p = ctx;
    if (point != ZC__HOOK_SLOT_CLAIMED || !preempt_me) return;
    preempt_me = false;
    zc_waker w = zc_parker_waker(&p->go);
    w.wake(w.ctx); /* the sender, of higher priority on this CPU, runs now */
}

static void *rt_receiver(void *arg) {
    rt_pair *p = arg;
    preempt_me = true;
    p->recv_s = zc_try_recv(p->f->rx, &p->got);
    return NULL;
}

static void *rt_sender(void *arg) {
    rt_pair *p = arg;
    zc_parker_park(&p->go);
    uint64_t v = 2;
    p->send_s = zc_send_blocking(p->f->tx, &v);
    /* Release: the main thread reads send_s after it sees this. */
    atomic_store_explicit(&p->sent, true, memory_order_release);
    return NULL;
}

/* Start fn at SCHED_FIFO priority prio on CPU cpu; false if that is not permitted. */
static bool start_rt_thread(pthread_t *t, void *(*fn)(void *), void *arg, int prio, int cpu) {
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    struct sched_param sp = {.sched_priority = prio};
    bool ok = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0 &&
              pthread_attr_setschedpolicy(&attr, SCHED_FIFO) == 0 &&
              pthread_attr_setschedparam(&attr, &sp) == 0 &&
              pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0 &&
              pthread_create(t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    send_u64(f.tx, 1); /* full */
    rt_pair p = {.f = &f};
    zc_parker_init(&p.go);
    atomic_init(&p.sent, false);
    int cpu = sched_getcpu();
    if (cpu < 0) cpu = 0;
    pthread_t sender, receiver;
    if (!start_rt_thread(&sender, rt_sender, &p, 20, cpu)) {
        zc_parker_destroy(&p.go);
        fixture_done(&f);
        skip(); /* no real-time priorities here (not root, or a container's limit) */
    }
    zc__test_set_hook(wake_sender_hook, &p);
    if (!start_rt_thread(&receiver, rt_receiver, &p, 10, cpu)) {
        /* The sender is parked: wake it; it sends once the slot is free. */
        zc_waker w = zc_parker_waker(&p.go);
        w.wake(w.ctx);
        uint64_t v;
        assert_int_equal(zc_try_recv(f.rx, &v), ZC_OK);
        pthread_join(sender, NULL);
        zc__test_set_hook(NULL, NULL);
        zc_parker_destroy(&p.go);
        fixture_done(&f);
        skip();
    }
    /* The main thread runs at normal priority, not pinned: on another CPU. */
    uint64_t until = now_ns() + WATCHDOG_NS;
    bool forced = false;
    while (!atomic_load_explicit(&p.sent, memory_order_acquire)) {
        if (now_ns() >= until) { /* demote the sender: the receiver runs, and then it */
            forced = true;
            struct sched_param normal = {.sched_priority = 0};
            assert_int_equal(pthread_setschedparam(sender, SCHED_OTHER, &normal), 0);
            break;
        }
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    pthread_join(sender, NULL);
    pthread_join(receiver, NULL);
    zc__test_set_hook(NULL, NULL);
    zc_parker_destroy(&p.go);
    assert_false(forced); /* the send finished with the sender at its priority */
    assert_int_equal(p.send_s, ZC_OK);
    assert_int_equal(p.recv_s, ZC_OK);
    assert_int_equal(p.got, 1);
    expect_u64(f.rx, 2);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

#else

static void test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run(
    void **state) {
    (void)state;
    skip(); /* needs Linux's CPU affinity */
}

#endif /* __linux__ */

#endif /* ZCHAN_TEST_HOOKS */

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_receiver_after_a_woken_one_was_cancelled_gets_the_message),
        cmocka_unit_test(test_new_receiver_between_the_wake_and_the_cancel_takes_the_message),
        cmocka_unit_test(test_every_send_path_wakes_the_first_pending_receiver_only),
        cmocka_unit_test(test_every_recv_path_wakes_the_first_pending_sender_only),
        cmocka_unit_test(test_sender_close_wakes_every_pending_sender),
        cmocka_unit_test(test_receiver_close_through_a_clone_wakes_every_pending_receiver),
        cmocka_unit_test(test_every_send_path_fails_at_once_when_the_receivers_are_gone),
        cmocka_unit_test(test_recv_cancelled_by_its_timer_leaves_the_wake_to_the_next),
        cmocka_unit_test(test_timed_out_blocking_recv_leaves_the_wake_to_the_next),
        cmocka_unit_test(test_send_cancelled_after_its_slot_freed_keeps_its_message_once),
        cmocka_unit_test(
            test_send_cancelled_after_another_sender_took_its_slot_keeps_its_message),
        cmocka_unit_test(test_last_receiver_drop_disposes_of_a_wrapped_ring_at_once),
        cmocka_unit_test(test_wake_that_closes_the_channel_wakes_every_other_waiter),
        cmocka_unit_test(test_wake_that_polls_another_waiter_hands_it_the_message),
        cmocka_unit_test(test_wake_that_cancels_another_waiter_leaves_it_unwoken),
        cmocka_unit_test(test_wake_that_sends_wakes_the_next_receiver_from_inside),
        cmocka_unit_test(test_sender_wake_that_receives_wakes_the_next_sender_from_inside),
        cmocka_unit_test(test_round_robin_poll_loop_goes_quiet_after_one_message),
        cmocka_unit_test(
            test_value_sent_before_the_last_sender_drops_is_received_before_closed),
        cmocka_unit_test(test_last_receiver_drop_racing_the_first_segment_disposes_once),
        cmocka_unit_test(test_last_receiver_drop_racing_a_release_returns),
        cmocka_unit_test(test_close_racing_a_blocked_send_returns_closed_and_its_message),
        cmocka_unit_test(test_one_of_a_hundred_racing_try_sends_fills_a_bounded_1_slot),
        cmocka_unit_test(test_circulating_messages_never_meet_a_false_full),
#if ZCHAN_TEST_HOOKS
        cmocka_unit_test(test_completed_send_is_never_reported_empty_behind_a_stalled_one),
        cmocka_unit_test(test_close_while_a_sender_crosses_a_segment_boundary_stays_closed),
        cmocka_unit_test(test_timed_send_behind_a_segment_install_times_out_and_sends_nothing),
        cmocka_unit_test(test_a_poll_woken_during_its_recheck_is_not_woken_again_by_itself),
        cmocka_unit_test(test_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_sender_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(
            test_batch_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(
            test_batch_sender_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_recv_timeout_expires_while_another_receiver_is_held_mid_copy),
        cmocka_unit_test(test_send_timeout_expires_while_another_sender_is_held_mid_write),
        cmocka_unit_test(test_unbounded_segment_outlives_a_receiver_held_mid_copy),
        cmocka_unit_test(test_recv_timeout_expires_while_another_receiver_holds_a_segment_end),
        cmocka_unit_test(test_send_timeout_expires_while_another_sender_holds_a_segment_end),
        cmocka_unit_test(test_unbounded_all_or_nothing_batch_is_not_cut_by_its_timeout),
        cmocka_unit_test(
            test_unbounded_all_or_nothing_batch_cut_by_enomem_is_not_cut_by_its_timeout),
        cmocka_unit_test(test_send_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls),
        cmocka_unit_test(test_recv_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls),
        cmocka_unit_test(test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

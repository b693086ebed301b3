/* Reliability scenarios of the send and receive futures (src/future.c over the waiter
 * list): which waiter a send or a receive wakes, what a cancel after a wake passes on,
 * wakes that re-enter the channel, an executor that polls every future each round, and,
 * with the hook points, a poll woken during its re-check, a cancel after a self-woken
 * poll, and a future polled inline from its own wake while a peer stalls. Single-thread
 * tests use counting wakers and manual polls; the hooks tests hold a peer thread inside
 * its operation. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <string.h>

#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "scenario.h"
#if ZCHAN_TEST_HOOKS
#include "scenario_hooks.h"
#endif

/* A send wakes the only pending receiver, which is cancelled before its next poll; a new
 * receiver then takes the message. Guards: the cancel has nobody to pass the wake-up to,
 * the next send wakes nobody (the cancelled future is off the list), and the cancelled
 * future can start over. */
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

/* A send wakes receiver A; before A runs, a new receiver barges in and takes the message,
 * a third one registers, then A is cancelled. Guards: A's wake-up, already spent on a
 * message another took, is not passed on; the third receiver stays registered and first
 * in line for the next send. */
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

/* The ways to send or receive one message: try, a future polled once, blocking, and a
 * timed call with a zero timeout. */
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

/* Two receivers pend; each send path sends twice. Guards: whatever the path and the
 * flavour, a send wakes exactly the first registered receiver and leaves the second for
 * the next send (test_future.c checks the try ops and the unbounded send future alone). */
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

/* Two senders pend on a full bounded(1) channel; each receive path receives twice.
 * Guards: a receive wakes exactly the first registered sender, whose message then goes
 * in, and the second waits for the next receive. */
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

/* Two receivers pend and the first is cancelled, as a timer that fires first cancels it.
 * Guards: the next send wakes the second, not the cancelled one, and once the second
 * completed no registration is left to wake. */
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

/* A sender pends on a full bounded(1) channel; a receive frees the slot and wakes it, and
 * it is cancelled before its next poll. Guards: the cancelled send sent nothing (the
 * message is still the caller's, the channel empty, nothing disposed of) and a new poll
 * sends it once. */
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

/* Two senders pend on a full bounded(1) channel; a receive wakes the first, a third
 * sender barges into the freed slot, then the first is cancelled. Guards: with the
 * channel full again the cancel passes no wake-up on; the next receive wakes the second
 * sender; the cancelled send's message stays the caller's (not disposed of by the last
 * receiver's drop, which disposes of the queued one exactly once). */
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

/* A counting waker whose on_wake hook re-enters the channel from inside the wake. */
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

/* The first receiver's wake closes the channel. Guards: the nested close wakes every
 * other pending receiver once, the woken one still gets the message sent, and all then
 * see ZC_CLOSED. */
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

/* The first receiver's wake polls the second, still-linked receiver. Guards: that poll
 * takes the message; the first, polled again, pends with its turn kept, and the second
 * is off the list (later sends do not wake it). */
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

/* The first receiver's wake cancels the second. Guards: the next send skips the
 * cancelled one and wakes the third. */
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

/* The first receiver's wake sends a second message. Guards: that nested notify wakes
 * the second receiver at once, and each gets one message in order. */
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

/* Two senders pend on a full bounded(2) channel; a receive wakes the first, whose wake
 * receives again. Guards: that nested receive wakes the second sender, both then send,
 * and the wake hook runs once. */
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

/* Three receivers pend and one message is sent; an executor polls every unfinished
 * future each round, woken or not. Guards: one message makes exactly one wake and one
 * completion (the first receiver), the loop goes quiet within two rounds, and cancelling
 * the others wakes nobody. */
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

#if ZCHAN_TEST_HOOKS

/* A future registers (its WAITER_REGISTERED point); in the window before its re-check
 * its waker is called, and a receiver begins a receive on what the re-check needs and is
 * held there (hold_hook). The re-check meets that peer mid-operation (the queue says
 * PENDING) and the poll steps off. Guards waker rule 1: one wake for one registration,
 * the peer's, and no self-wake on top of it. Receive: an empty unbounded channel whose
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

/* A receive or send future pends while a peer of the other side holds the slot claimed
 * (the queue says PENDING), then is cancelled, as a timeout cancels it; the peer's wake
 * may reach it between its look at the slot and its stepping off the list (see
 * run_cancel_after_a_self_woken_pending_poll). Guards: a wake-up the cancelled future
 * held reaches the next waiter (waker rule 4); no waiter is stranded. */
static void test_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(RECEIVERS);
}

static void test_sender_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(SENDERS);
}

/* A poll that meets a peer mid-operation wakes itself (future.c). The waker contract lets
 * an executor poll the future again from inside that wake; were each such poll to meet
 * the stall and wake itself again, the nesting would grow one level per poll for as long
 * as the peer stalls, until the stack overflows. Here the waker polls inline, as such an
 * executor does, with a peer held mid-operation for RELEASE_LATER_NS. Guards: the
 * nesting stays at one level, and that inline poll completes once the peer goes on. The waker stops nesting at DEPTH_CAP levels, so that
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

#endif /* ZCHAN_TEST_HOOKS */

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_receiver_after_a_woken_one_was_cancelled_gets_the_message),
        cmocka_unit_test(test_new_receiver_between_the_wake_and_the_cancel_takes_the_message),
        cmocka_unit_test(test_every_send_path_wakes_the_first_pending_receiver_only),
        cmocka_unit_test(test_every_recv_path_wakes_the_first_pending_sender_only),
        cmocka_unit_test(test_recv_cancelled_by_its_timer_leaves_the_wake_to_the_next),
        cmocka_unit_test(test_send_cancelled_after_its_slot_freed_keeps_its_message_once),
        cmocka_unit_test(test_send_cancelled_after_another_sender_took_its_slot_keeps_its_message),
        cmocka_unit_test(test_wake_that_closes_the_channel_wakes_every_other_waiter),
        cmocka_unit_test(test_wake_that_polls_another_waiter_hands_it_the_message),
        cmocka_unit_test(test_wake_that_cancels_another_waiter_leaves_it_unwoken),
        cmocka_unit_test(test_wake_that_sends_wakes_the_next_receiver_from_inside),
        cmocka_unit_test(test_sender_wake_that_receives_wakes_the_next_sender_from_inside),
        cmocka_unit_test(test_round_robin_poll_loop_goes_quiet_after_one_message),
#if ZCHAN_TEST_HOOKS
        cmocka_unit_test(test_a_poll_woken_during_its_recheck_is_not_woken_again_by_itself),
        cmocka_unit_test(test_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_sender_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_send_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls),
        cmocka_unit_test(test_recv_polled_inside_its_own_wake_does_not_nest_while_a_peer_stalls),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

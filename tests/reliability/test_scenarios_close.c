/* Reliability scenarios of close and of the last handles' drops (src/chan.c): who a
 * close wakes and what it leaves to whom, the last receiver's drop disposing of what is
 * queued, and the races of a close or a drop with a send in progress (a value sent just
 * before the last sender's drop, the install of the first segment, a blocked send, and,
 * with the hook points, a sender crossing a segment boundary). The races repeat many
 * times and are meant to run under ThreadSanitizer and AddressSanitizer/LeakSanitizer
 * too. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "scenario.h"
#if ZCHAN_TEST_HOOKS
#include "scenario_hooks.h"
#endif

/* Three senders pend on a full bounded(1) channel and a sender closes it. Guards: every
 * pending sender is woken once and gets ZC_CLOSED with its message still its own; what
 * was queued is still received, then ZC_CLOSED; nothing is disposed of. (test_future.c
 * has the receiver-side close waking senders, the sender-side close waking receivers,
 * and the last handles' drops.) */
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

/* Three receivers pend on one receiver handle and a clone of it closes the channel.
 * Guards: every pending receiver is woken once and gets ZC_CLOSED, with nothing written
 * to its output. */
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

/* Both receivers (a clone and the original) are dropped. Guards: try, future, blocking
 * and timed sends return ZC_CLOSED at once (the blocking one does not wait), wake
 * nobody, and leave the message the caller's. */
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

/* A bounded(5) ring wrapped around its end holds 3..7 and a send pends; a sender clone
 * lives on while the last receiver is dropped. Guards: the drop disposes of every queued
 * message exactly once before it returns, wakes the pending send (ZC_CLOSED, message
 * kept), and later sends fail with ZC_CLOSED; the senders' drops dispose of nothing
 * more. */
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

/* The peer of the last-sender race: one send (try, blocking or a future), then the drop
 * of the last sender. */
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
 * the last sender, on bounded(1) and unbounded channels. Guards: one future gets the
 * value, the other ZC_CLOSED, and neither hangs (the value's wake and the close's wakes
 * cross each other). */
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

/* The peer of the first-segment race: one try_send a round, after a steered skew. */
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
 * caller's, nothing is disposed of); the test guards both outcomes and that no message
 * leaks (LeakSanitizer). Who starts first is
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

/* The peer of the blocked-send race: a send (blocking, long timeout or a future) into a
 * full channel. */
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

/* A thread sends into a full bounded(1) channel (blocking, with a long timeout, or a
 * future) while the main thread closes it from the sender side, the receiver side, or by
 * dropping the last receiver, before, during or after the send's registration. Guards:
 * the send returns ZC_CLOSED with its message the caller's, and the queued message is
 * either still received or (drop) disposed of exactly once. */
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

#if ZCHAN_TEST_HOOKS

/* A sender takes a segment's last slot and is stalled there, before it moves tail_index
 * past the boundary and installs the next segment; meanwhile the channel is closed from
 * either side. Guards: the close mark survives that move, so the channel stays closed
 * (later sends fail, info says closed) and the stalled send, which claimed before the
 * close, is received after what came before it. A close mark erased by the move would
 * reopen the channel, and sends after the last receiver's drop would be neither received
 * nor disposed of. */
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

/* A force send on a full bounded(1) channel has claimed its send position and is
 * stalled before it takes the oldest message; meanwhile the last receiver's drop
 * disposes of what is held. Guards: the oldest message is taken by exactly one of them
 * (disposed of once, or handed to the force send once, never both), and the new
 * message, which claimed before the close, is disposed of once. */
typedef struct force_arg {
    zc_sender *tx;
    uint64_t evicted_out;
    bool evicted;
    zc_status status;
} force_arg;

static void *stalled_force_send(void *arg) {
    force_arg *a = arg;
    stall_me = true;
    uint64_t v = 1;
    a->status = zc_force_send(a->tx, &v, &a->evicted_out, &a->evicted);
    return NULL;
}

static void test_last_receiver_drop_racing_a_force_send_takes_the_oldest_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    send_u64(f.tx, 0); /* full */
    atomic_init(&the_stall.stalled, false);
    atomic_init(&the_stall.main_entered, false);
    zc__test_set_hook(stall_hook, &the_stall);
    force_arg a = {f.tx, 99, false, ZC_EINVAL};
    pthread_t t;
    start_thread(&t, stalled_force_send, &a); /* held after its claim of tail */
    while (!atomic_load_explicit(&the_stall.stalled, memory_order_acquire)) sched_yield();
    atomic_store_explicit(&the_stall.main_entered, true, memory_order_release);
    zc_receiver_drop(f.rx); /* the last receiver: disposes of what is held */
    pthread_join(t, NULL);
    zc__test_set_hook(NULL, NULL);
    assert_int_equal(a.status, ZC_OK);
    unsigned oldest = atomic_load(&f.seen[0]) + (a.evicted && a.evicted_out == 0);
    assert_int_equal(oldest, 1);
    assert_int_equal(atomic_load(&f.seen[1]), 1); /* the force send's own message */
    zc_sender_drop(f.tx);
}

#endif /* ZCHAN_TEST_HOOKS */

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sender_close_wakes_every_pending_sender),
        cmocka_unit_test(test_receiver_close_through_a_clone_wakes_every_pending_receiver),
        cmocka_unit_test(test_every_send_path_fails_at_once_when_the_receivers_are_gone),
        cmocka_unit_test(test_last_receiver_drop_disposes_of_a_wrapped_ring_at_once),
        cmocka_unit_test(test_value_sent_before_the_last_sender_drops_is_received_before_closed),
        cmocka_unit_test(test_last_receiver_drop_racing_the_first_segment_disposes_once),
        cmocka_unit_test(test_close_racing_a_blocked_send_returns_closed_and_its_message),
#if ZCHAN_TEST_HOOKS
        cmocka_unit_test(test_close_while_a_sender_crosses_a_segment_boundary_stays_closed),
        cmocka_unit_test(test_last_receiver_drop_racing_a_force_send_takes_the_oldest_once),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

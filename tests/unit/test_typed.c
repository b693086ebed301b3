/* Unit tests of zchan/typed.h: a channel of a struct type through every generated
 * function: futures, the blocking layer, batches, permits, select cases and close
 * futures included; and a broadcast channel of it through every function of
 * ZC_DEFINE_BROADCAST. (typed_wrong_type.c, compiled by ctest, checks that the wrong
 * type does not compile.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <zchan/typed.h>

#include "counting_waker.h"

typedef struct reading {
    int sensor;
    double value;
    char unit[6];
} reading;

ZC_DEFINE_CHANNEL(readings, reading)

static reading make_reading(int sensor) {
    reading r;
    memset(&r, 0, sizeof r); /* padding too, so memcmp compares what was sent */
    r.sensor = sensor;
    r.value = sensor * 0.5;
    memcpy(r.unit, "degC", 5);
    return r;
}

static void expect_reading(const reading *got, int sensor) {
    reading want = make_reading(sensor);
    assert_int_equal(got->sensor, want.sensor);
    assert_true(got->value == want.value);
    assert_string_equal(got->unit, want.unit);
}

static void test_typed_bounded_round_trip_keeps_every_field(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(2, &tx, &rx), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(1)), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(2)), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(3)), ZC_FULL);
    reading got;
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 1);
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 2);
    assert_int_equal(readings_try_recv(rx, &got), ZC_EMPTY);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

/* The typed force send and weak handles pass T and the handle types through. */
static void test_typed_force_send_and_weak_handles(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(1, &tx, &rx), ZC_OK);
    reading evicted;
    bool was = true;
    assert_int_equal(readings_force_send(tx, make_reading(1), &evicted, &was), ZC_OK);
    assert_false(was);
    assert_int_equal(readings_force_send(tx, make_reading(2), &evicted, &was), ZC_OK);
    assert_true(was);
    expect_reading(&evicted, 1);
    readings_weak_sender *wtx = readings_sender_downgrade(tx);
    readings_weak_receiver *wrx = readings_receiver_downgrade(rx);
    readings_weak_sender *wtx2 = readings_weak_sender_clone(wtx);
    readings_weak_receiver *wrx2 = readings_weak_receiver_clone(wrx);
    readings_sender *tx2 = readings_weak_sender_upgrade(wtx2);
    readings_receiver *rx2 = readings_weak_receiver_upgrade(wrx2);
    assert_non_null(tx2);
    assert_non_null(rx2);
    readings_sender_drop(tx);
    readings_sender_drop(tx2); /* the last sender: closed */
    assert_null(readings_weak_sender_upgrade(wtx));
    reading got;
    assert_int_equal(readings_try_recv(rx2, &got), ZC_OK);
    expect_reading(&got, 2);
    readings_receiver_drop(rx2);
    readings_receiver_drop(rx);
    assert_null(readings_weak_receiver_upgrade(wrx));
    readings_weak_sender_drop(wtx);
    readings_weak_sender_drop(wtx2);
    readings_weak_receiver_drop(wrx);
    readings_weak_receiver_drop(wrx2);
}

/* A typed rendezvous channel: its send future is an offer a typed try_recv completes. */
static void test_typed_rendezvous_hands_off(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_rendezvous(&tx, &rx), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(6)), ZC_FULL);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    readings_send f;
    readings_send_init(&f, tx, make_reading(7));
    assert_int_equal(readings_send_poll(&f, &w), ZC_PENDING);
    reading got;
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 7);
    assert_int_equal(readings_send_poll(&f, &w), ZC_OK);
    zc_info info;
    assert_int_equal(readings_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.capacity, 0);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

static void test_typed_channel_info_clone_close_and_drop(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_unbounded(&tx, &rx), ZC_OK);
    readings_sender *tx2 = readings_sender_clone(tx);
    readings_receiver *rx2 = readings_receiver_clone(rx);
    assert_non_null(tx2);
    assert_non_null(rx2);
    assert_int_equal(readings_try_send(tx2, make_reading(4)), ZC_OK);
    zc_info info;
    assert_int_equal(readings_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 1);
    assert_int_equal(info.capacity, SIZE_MAX);
    assert_int_equal(info.senders, 2);
    assert_int_equal(info.receivers, 2);
    assert_false(info.closed);
    assert_true(readings_receiver_close(rx2));
    assert_false(readings_sender_close(tx));
    assert_int_equal(readings_receiver_info(rx, &info), ZC_OK);
    assert_true(info.closed);
    assert_int_equal(readings_try_send(tx, make_reading(5)), ZC_CLOSED);
    reading got;
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 4);
    assert_int_equal(readings_try_recv(rx, &got), ZC_CLOSED);
    readings_sender_drop(tx2);
    readings_sender_drop(tx);
    readings_receiver_drop(rx2);
    readings_receiver_drop(rx);
}

static void count_reading_drop(void *msg, void *ctx) {
    reading r;
    memcpy(&r, msg, sizeof r); /* msg need not be aligned for reading */
    int *sum = ctx;
    *sum += r.sensor;
}

static void test_typed_with_constructors_pass_drop_msg_through(void **state) {
    (void)state;
    int sum = 0;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded_with(4, count_reading_drop, &sum, &tx, &rx), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(10)), ZC_OK);
    assert_int_equal(readings_try_send(tx, make_reading(20)), ZC_OK);
    reading got;
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    readings_receiver_drop(rx);
    assert_int_equal(sum, 20);
    readings_sender_drop(tx);

    sum = 0;
    assert_int_equal(readings_unbounded_with(count_reading_drop, &sum, &tx, &rx), ZC_OK);
    for (int i = 1; i <= 40; i++) /* more than one segment */
        assert_int_equal(readings_try_send(tx, make_reading(i)), ZC_OK);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
    assert_int_equal(sum, 40 * 41 / 2);
}

static void test_typed_constructors_reject_bad_arguments(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(0, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
    assert_int_equal(readings_unbounded(NULL, &rx), ZC_EINVAL);
    assert_null(rx);
}

static void test_typed_futures_pend_wake_and_complete(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(1, &tx, &rx), ZC_OK);
    counting_waker rcw, scw;
    counting_waker_init(&rcw);
    counting_waker_init(&scw);
    zc_waker rw = counting_waker_of(&rcw), sw = counting_waker_of(&scw);

    readings_recv r;
    readings_recv_init(&r, rx);
    reading got;
    assert_int_equal(readings_recv_poll(&r, &rw, &got), ZC_PENDING);

    readings_send s1, s2;
    readings_send_init(&s1, tx, make_reading(7));
    readings_send_init(&s2, tx, make_reading(8));
    assert_int_equal(readings_send_poll(&s1, &sw), ZC_OK);
    assert_int_equal(counting_waker_count(&rcw), 1);
    assert_int_equal(readings_send_poll(&s2, &sw), ZC_PENDING); /* capacity 1 */

    assert_int_equal(readings_recv_poll(&r, &rw, &got), ZC_OK);
    expect_reading(&got, 7);
    assert_int_equal(counting_waker_count(&scw), 1);
    assert_int_equal(readings_send_poll(&s2, &sw), ZC_OK);
    assert_int_equal(readings_recv_poll(&r, &rw, &got), ZC_OK); /* a stream */
    expect_reading(&got, 8);

    assert_int_equal(readings_recv_poll(&r, &rw, &got), ZC_PENDING);
    readings_recv_cancel(&r);
    assert_true(readings_sender_close(tx));
    assert_int_equal(counting_waker_count(&rcw), 1); /* cancelled: not woken by close */
    assert_int_equal(readings_recv_poll(&r, &rw, &got), ZC_CLOSED);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

static void test_typed_send_future_keeps_its_message_after_closed_or_cancel(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(1, &tx, &rx), ZC_OK);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    assert_int_equal(readings_try_send(tx, make_reading(1)), ZC_OK);

    readings_send s;
    readings_send_init(&s, tx, make_reading(2));
    assert_int_equal(readings_send_poll(&s, &w), ZC_PENDING);
    readings_send_cancel(&s);
    expect_reading(readings_send_msg(&s), 2);

    assert_true(readings_receiver_close(rx));
    assert_int_equal(readings_send_poll(&s, &w), ZC_CLOSED);
    expect_reading(readings_send_msg(&s), 2);
    assert_int_equal(counting_waker_count(&cw), 0);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

static void test_typed_null_futures_are_einval_or_ignored(void **state) {
    (void)state;
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    reading got;
    readings_send_init(NULL, NULL, make_reading(1));
    readings_send_cancel(NULL);
    readings_recv_init(NULL, NULL);
    readings_recv_cancel(NULL);
    assert_null(readings_send_msg(NULL));
    assert_int_equal(readings_send_poll(NULL, &w), ZC_EINVAL);
    assert_int_equal(readings_recv_poll(NULL, &w, &got), ZC_EINVAL);
    readings_send s;
    readings_send_init(&s, NULL, make_reading(1));
    assert_int_equal(readings_send_poll(&s, &w), ZC_EINVAL);
    readings_recv r;
    readings_recv_init(&r, NULL);
    assert_int_equal(readings_recv_poll(&r, &w, &got), ZC_EINVAL);
}

static void test_typed_blocking_and_timeout_forms(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(1, &tx, &rx), ZC_OK);
    reading got;
    assert_int_equal(readings_recv_timeout(rx, &got, 0), ZC_TIMEDOUT);
    assert_int_equal(readings_send_blocking(tx, make_reading(1)), ZC_OK);
    assert_int_equal(readings_send_timeout(tx, make_reading(2), 0), ZC_TIMEDOUT);
    assert_int_equal(readings_send_timeout(tx, make_reading(2), 1000000), ZC_TIMEDOUT);
    assert_int_equal(readings_recv_blocking(rx, &got), ZC_OK);
    expect_reading(&got, 1);
    assert_int_equal(readings_send_timeout(tx, make_reading(3), UINT64_MAX), ZC_OK);
    assert_int_equal(readings_recv_timeout(rx, &got, UINT64_MAX), ZC_OK);
    expect_reading(&got, 3);
    readings_sender_drop(tx);
    assert_int_equal(readings_recv_blocking(rx, &got), ZC_CLOSED);
    readings_receiver_drop(rx);
}

static void test_typed_batches_move_arrays_of_t(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(4, &tx, &rx), ZC_OK);
    reading in[6], out[6];
    for (int i = 0; i < 6; i++) in[i] = make_reading(i + 1);
    size_t sent = 99, got = 99;
    /* Capacity 4: the first four go, the rest are the caller's. */
    assert_int_equal(readings_try_send_many(tx, in, 6, &sent, 0), ZC_FULL);
    assert_int_equal(sent, 4);
    assert_int_equal(readings_try_send_many(tx, in + 4, 2, &sent, ZC_ALL_OR_NOTHING), ZC_FULL);
    assert_int_equal(sent, 0);
    assert_int_equal(readings_try_recv_many(rx, out, 3, &got), ZC_OK);
    assert_int_equal(got, 3);
    for (int i = 0; i < 3; i++) expect_reading(&out[i], i + 1);
    assert_int_equal(readings_send_many_blocking(tx, in + 4, 2, &sent, 0), ZC_OK);
    assert_int_equal(sent, 2);
    /* Three held, one place free: all or nothing of two times out. */
    assert_int_equal(readings_send_many_timeout(tx, in, 2, &sent, ZC_ALL_OR_NOTHING, 0),
                     ZC_TIMEDOUT);
    assert_int_equal(sent, 0);
    assert_int_equal(readings_recv_many_blocking(rx, out, 6, &got), ZC_OK);
    assert_int_equal(got, 3);
    for (int i = 0; i < 3; i++) expect_reading(&out[i], i + 4);
    assert_int_equal(readings_recv_many_timeout(rx, out, 6, &got, 0), ZC_TIMEDOUT);
    assert_int_equal(got, 0);
    readings_sender_drop(tx);
    assert_int_equal(readings_recv_many_timeout(rx, out, 6, &got, UINT64_MAX), ZC_CLOSED);
    readings_receiver_drop(rx);
}

static void test_typed_batch_futures_pend_wake_and_complete(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(2, &tx, &rx), ZC_OK);
    counting_waker rcw, scw;
    counting_waker_init(&rcw);
    counting_waker_init(&scw);
    zc_waker rw = counting_waker_of(&rcw), sw = counting_waker_of(&scw);
    reading in[3] = {make_reading(1), make_reading(2), make_reading(3)}, out[3];
    size_t got = 99;

    readings_recv_many r;
    readings_recv_many_init(&r, rx);
    assert_int_equal(readings_recv_many_poll(&r, &rw, out, 3, &got), ZC_PENDING);
    readings_send_many s;
    readings_send_many_init(&s, tx, in, 3, 0);
    assert_int_equal(readings_send_many_poll(&s, &sw), ZC_PENDING); /* 2 of 3 fit */
    assert_int_equal(readings_send_many_sent(&s), 2);
    assert_int_equal(counting_waker_count(&rcw), 1);
    assert_int_equal(readings_recv_many_poll(&r, &rw, out, 3, &got), ZC_OK);
    assert_int_equal(got, 2);
    expect_reading(&out[0], 1);
    expect_reading(&out[1], 2);
    assert_int_equal(counting_waker_count(&scw), 1);
    assert_int_equal(readings_send_many_poll(&s, &sw), ZC_OK);
    assert_int_equal(readings_send_many_sent(&s), 3);
    assert_int_equal(readings_recv_many_poll(&r, &rw, out, 3, &got), ZC_OK);
    assert_int_equal(got, 1);
    expect_reading(&out[0], 3);

    /* Cancelled pending futures are not woken by the close. */
    assert_int_equal(readings_recv_many_poll(&r, &rw, out, 3, &got), ZC_PENDING);
    readings_recv_many_cancel(&r);
    readings_send_many_cancel(&s); /* completed: nothing to do */
    assert_true(readings_sender_close(tx));
    assert_int_equal(counting_waker_count(&rcw), 1); /* only the send's wake, before */
    assert_int_equal(readings_recv_many_poll(&r, &rw, out, 3, &got), ZC_CLOSED);

    readings_send_many_init(NULL, tx, in, 1, 0);
    readings_send_many_cancel(NULL);
    readings_recv_many_init(NULL, rx);
    readings_recv_many_cancel(NULL);
    assert_int_equal(readings_send_many_poll(NULL, &sw), ZC_EINVAL);
    assert_int_equal(readings_send_many_sent(NULL), 0);
    got = 77;
    assert_int_equal(readings_recv_many_poll(NULL, &rw, out, 3, &got), ZC_EINVAL);
    assert_int_equal(got, 0); /* as the byte future's poll: 0 unless ZC_OK */
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

static void test_typed_permits_reserve_commit_and_release(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(2, &tx, &rx), ZC_OK);
    readings_permit p1, p2, p3;
    assert_int_equal(readings_try_reserve(tx, &p1), ZC_OK);
    assert_int_equal(readings_reserve_blocking(tx, &p2), ZC_OK);
    assert_int_equal(readings_try_reserve(tx, &p3), ZC_FULL);
    assert_int_equal(readings_reserve_timeout(tx, &p3, 0), ZC_TIMEDOUT);

    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    readings_reserve f;
    readings_reserve_init(&f, tx, &p3);
    assert_int_equal(readings_reserve_poll(&f, &w), ZC_PENDING);
    assert_int_equal(readings_permit_release(&p1), ZC_OK); /* frees the oldest place */
    assert_int_equal(counting_waker_count(&cw), 1);
    assert_int_equal(readings_reserve_poll(&f, &w), ZC_OK);
    readings_reserve_cancel(&f); /* completed: keeps its permit */

    reading got;
    assert_int_equal(readings_permit_commit(&p3, make_reading(3)), ZC_OK);
    assert_int_equal(readings_try_recv(rx, &got), ZC_EMPTY); /* p2's place is next */
    assert_int_equal(readings_permit_commit(&p2, make_reading(2)), ZC_OK);
    assert_int_equal(readings_permit_commit(&p2, make_reading(2)), ZC_EINVAL); /* empty */
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 2);
    assert_int_equal(readings_try_recv(rx, &got), ZC_OK);
    expect_reading(&got, 3);

    assert_int_equal(readings_try_reserve(tx, NULL), ZC_EINVAL);
    assert_int_equal(readings_reserve_blocking(tx, NULL), ZC_EINVAL);
    assert_int_equal(readings_reserve_timeout(tx, NULL, 0), ZC_EINVAL);
    assert_int_equal(readings_permit_commit(NULL, make_reading(1)), ZC_EINVAL);
    assert_int_equal(readings_permit_release(NULL), ZC_EINVAL);
    readings_reserve_init(NULL, tx, &p1);
    readings_reserve_cancel(NULL);
    assert_int_equal(readings_reserve_poll(NULL, &w), ZC_EINVAL);
    readings_reserve_init(&f, tx, NULL);
    assert_int_equal(readings_reserve_poll(&f, &w), ZC_EINVAL);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
}

static void test_typed_select_cases_and_close_futures(void **state) {
    (void)state;
    readings_sender *tx_a, *tx_b;
    readings_receiver *rx_a, *rx_b;
    assert_int_equal(readings_bounded(1, &tx_a, &rx_a), ZC_OK);
    assert_int_equal(readings_unbounded(&tx_b, &rx_b), ZC_OK);
    reading got, msg = make_reading(5);
    zc_select_case cases[2];
    readings_select_recv_case(&cases[0], rx_b, &got);
    readings_select_send_case(&cases[1], tx_a, &msg);
    size_t index = 99;
    assert_int_equal(zc_select_blocking(cases, 2, 0, &index), ZC_OK); /* the send: a is free */
    assert_int_equal(index, 1);
    assert_int_equal(readings_try_send(tx_b, make_reading(6)), ZC_OK);
    assert_int_equal(zc_select_blocking(cases, 2, 0, &index), ZC_OK); /* a is full now */
    assert_int_equal(index, 0);
    expect_reading(&got, 6);
    assert_int_equal(readings_try_recv(rx_a, &got), ZC_OK);
    expect_reading(&got, 5);

    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    zc_sender_closed sc;
    zc_receiver_closed rc;
    readings_sender_closed_init(&sc, tx_a);
    readings_receiver_closed_init(&rc, rx_b);
    assert_int_equal(zc_sender_closed_poll(&sc, &w), ZC_PENDING);
    assert_int_equal(zc_receiver_closed_poll(&rc, &w), ZC_PENDING);
    readings_receiver_drop(rx_a);
    readings_sender_drop(tx_b);
    assert_int_equal(counting_waker_count(&cw), 2);
    assert_int_equal(zc_sender_closed_poll(&sc, &w), ZC_OK);
    assert_int_equal(zc_receiver_closed_poll(&rc, &w), ZC_OK);
    readings_sender_drop(tx_a);
    readings_receiver_drop(rx_b);
}

#if defined(ZCHAN_HAS_BROADCAST) /* zchan/config.h: the broadcast channel was built */
ZC_DEFINE_BROADCAST(feeds, reading)

static void test_typed_broadcast_gives_every_receiver_every_field(void **state) {
    (void)state;
    feeds_sender *tx;
    feeds_receiver *rx;
    assert_int_equal(feeds_new(2, ZC_BCAST_BACKPRESSURE, &tx, &rx), ZC_OK);
    feeds_receiver *late = feeds_subscribe(tx);
    assert_non_null(late);
    assert_int_equal(feeds_try_send(tx, make_reading(1)), ZC_OK);
    feeds_receiver *copy = feeds_receiver_clone(rx); /* at rx's position: sees 1 too */
    assert_non_null(copy);
    assert_int_equal(feeds_try_send(tx, make_reading(2)), ZC_OK);
    assert_int_equal(feeds_try_send(tx, make_reading(3)), ZC_FULL);

    zc_info info;
    assert_int_equal(feeds_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 2);
    assert_int_equal(info.capacity, 2);
    assert_int_equal(info.receivers, 3);
    feeds_receiver *each[] = {rx, late, copy};
    for (int i = 0; i < 3; i++) {
        reading got;
        uint64_t missed = 99;
        assert_int_equal(feeds_try_recv(each[i], &got, &missed), ZC_OK);
        expect_reading(&got, 1);
        assert_int_equal(feeds_receiver_info(each[i], &info), ZC_OK);
        assert_int_equal(info.len, 1);
        assert_int_equal(feeds_try_recv(each[i], &got, &missed), ZC_OK);
        expect_reading(&got, 2);
        assert_int_equal(feeds_try_recv(each[i], &got, &missed), ZC_EMPTY);
        assert_int_equal(missed, 99); /* written only on ZC_LAGGED */
    }

    feeds_sender *tx2 = feeds_sender_clone(tx);
    assert_non_null(tx2);
    feeds_sender_drop(tx); /* tx2 still open */
    assert_int_equal(feeds_try_send(tx2, make_reading(4)), ZC_OK);
    assert_true(feeds_receiver_close(late));
    assert_false(feeds_sender_close(tx2));
    assert_int_equal(feeds_try_send(tx2, make_reading(5)), ZC_CLOSED);
    reading got;
    assert_int_equal(feeds_try_recv(copy, &got, NULL), ZC_OK); /* sent before the close */
    expect_reading(&got, 4);
    assert_int_equal(feeds_try_recv(copy, &got, NULL), ZC_CLOSED);
    feeds_sender_drop(tx2);
    feeds_receiver_drop(rx);
    feeds_receiver_drop(late);
    feeds_receiver_drop(copy);
}

/* clone_msg and drop_msg for the broadcast of readings: count the calls; the clone is
 * the original with its value negated, so a test can tell which one it got. */
typedef struct feed_calls {
    int clones, drops, last_dropped;
} feed_calls;

static void clone_feed(void *dst, const void *src, void *ctx) {
    reading r;
    memcpy(&r, src, sizeof r); /* the slot need not be aligned for reading */
    r.value = -r.value;
    memcpy(dst, &r, sizeof r);
    ((feed_calls *)ctx)->clones++;
}

static void drop_feed(void *msg, void *ctx) {
    reading r;
    memcpy(&r, msg, sizeof r);
    feed_calls *calls = ctx;
    calls->drops++;
    calls->last_dropped = r.sensor;
}

static void test_typed_broadcast_resubscribe_and_counted_send(void **state) {
    (void)state;
    feeds_sender *tx;
    feeds_receiver *rx;
    assert_int_equal(feeds_new(2, ZC_BCAST_BACKPRESSURE, &tx, &rx), ZC_OK);
    feeds_receiver *rx2 = feeds_resubscribe(rx);
    assert_non_null(rx2);
    size_t reached = 0;
    assert_int_equal(feeds_try_send_counted(tx, make_reading(4), &reached), ZC_OK);
    assert_int_equal(reached, 2);
    reading got;
    assert_int_equal(feeds_try_recv(rx2, &got, NULL), ZC_OK);
    expect_reading(&got, 4);
    assert_int_equal(feeds_try_recv(rx, &got, NULL), ZC_OK);
    expect_reading(&got, 4);
    feeds_receiver_drop(rx2);
    feeds_receiver_drop(rx);
    feeds_sender_drop(tx);
}

static void test_typed_broadcast_overflow_lags_and_calls_back(void **state) {
    (void)state;
    feed_calls calls = {0, 0, 0};
    feeds_sender *tx;
    feeds_receiver *rx;
    assert_int_equal(
        feeds_new_with(2, ZC_BCAST_OVERFLOW, clone_feed, drop_feed, &calls, &tx, &rx),
        ZC_OK);
    feeds_receiver *other = feeds_subscribe(tx);
    assert_non_null(other);
    for (int i = 1; i <= 5; i++)
        assert_int_equal(feeds_try_send(tx, make_reading(i)), ZC_OK); /* never FULL */
    assert_int_equal(calls.drops, 3); /* 1, 2 and 3 overwritten */
    assert_int_equal(calls.last_dropped, 3);

    reading got;
    uint64_t missed = 0;
    assert_int_equal(feeds_try_recv(rx, &got, &missed), ZC_LAGGED);
    assert_int_equal(missed, 3);
    assert_int_equal(feeds_try_recv(rx, &got, &missed), ZC_OK); /* a copy: negated */
    assert_int_equal(got.sensor, 4);
    assert_true(got.value == -2.0);
    assert_int_equal(calls.clones, 1);
    missed = 0;
    assert_int_equal(feeds_try_recv(other, &got, &missed), ZC_LAGGED);
    assert_int_equal(missed, 3);
    assert_int_equal(feeds_try_recv(other, &got, &missed), ZC_OK); /* the last reader */
    expect_reading(&got, 4);                                       /* the original */
    assert_int_equal(calls.clones, 1);

    feeds_receiver_drop(other); /* 5 is left for rx alone */
    assert_int_equal(calls.drops, 3);
    assert_int_equal(feeds_try_recv(rx, &got, NULL), ZC_OK);
    expect_reading(&got, 5);
    assert_int_equal(calls.clones, 1);
    feeds_sender_drop(tx);
    feeds_receiver_drop(rx);
    assert_int_equal(feeds_new(2, (zc_bcast_mode)7, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
    assert_int_equal(feeds_new(0, ZC_BCAST_OVERFLOW, &tx, &rx), ZC_EINVAL);
}

static void test_typed_broadcast_futures_pend_wake_and_complete(void **state) {
    (void)state;
    feeds_sender *tx;
    feeds_receiver *rx;
    assert_int_equal(feeds_new(1, ZC_BCAST_BACKPRESSURE, &tx, &rx), ZC_OK);
    counting_waker rcw, scw;
    counting_waker_init(&rcw);
    counting_waker_init(&scw);
    zc_waker rw = counting_waker_of(&rcw), sw = counting_waker_of(&scw);

    feeds_recv r;
    feeds_recv_init(&r, rx);
    reading got;
    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_PENDING);
    feeds_send s1, s2;
    feeds_send_init(&s1, tx, make_reading(7));
    feeds_send_init(&s2, tx, make_reading(8));
    assert_int_equal(feeds_send_poll(&s1, &sw), ZC_OK);
    assert_int_equal(counting_waker_count(&rcw), 1);
    assert_int_equal(feeds_send_poll(&s2, &sw), ZC_PENDING); /* capacity 1 */
    expect_reading(feeds_send_msg(&s2), 8);

    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_OK);
    expect_reading(&got, 7);
    assert_int_equal(counting_waker_count(&scw), 1);
    assert_int_equal(feeds_send_poll(&s2, &sw), ZC_OK);
    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_OK); /* a stream */
    expect_reading(&got, 8);
    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_PENDING);
    feeds_recv_cancel(&r);

    feeds_send s3;
    assert_int_equal(feeds_try_send(tx, make_reading(9)), ZC_OK);
    feeds_send_init(&s3, tx, make_reading(10));
    assert_int_equal(feeds_send_poll(&s3, &sw), ZC_PENDING);
    feeds_send_cancel(&s3);
    assert_true(feeds_sender_close(tx));
    assert_int_equal(feeds_send_poll(&s3, &sw), ZC_CLOSED);
    expect_reading(feeds_send_msg(&s3), 10); /* still the caller's */
    assert_int_equal(counting_waker_count(&scw), 1); /* cancelled: not woken by close */
    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_OK);
    expect_reading(&got, 9);
    assert_int_equal(feeds_recv_poll(&r, &rw, &got, NULL), ZC_CLOSED);

    feeds_send_init(NULL, NULL, make_reading(1));
    feeds_send_cancel(NULL);
    feeds_recv_init(NULL, NULL);
    feeds_recv_cancel(NULL);
    assert_null(feeds_send_msg(NULL));
    assert_int_equal(feeds_send_poll(NULL, &sw), ZC_EINVAL);
    assert_int_equal(feeds_recv_poll(NULL, &rw, &got, NULL), ZC_EINVAL);
    feeds_sender_drop(tx);
    feeds_receiver_drop(rx);
}

static void test_typed_broadcast_blocking_and_timeout_forms(void **state) {
    (void)state;
    feeds_sender *tx;
    feeds_receiver *rx;
    assert_int_equal(feeds_new(1, ZC_BCAST_BACKPRESSURE, &tx, &rx), ZC_OK);
    reading got;
    assert_int_equal(feeds_recv_timeout(rx, &got, NULL, 0), ZC_TIMEDOUT);
    assert_int_equal(feeds_recv_timeout(rx, &got, NULL, 1000000), ZC_TIMEDOUT); /* 1 ms */
    assert_int_equal(feeds_send_blocking(tx, make_reading(1)), ZC_OK);
    assert_int_equal(feeds_send_timeout(tx, make_reading(2), 1000000), ZC_TIMEDOUT);
    assert_int_equal(feeds_recv_blocking(rx, &got, NULL), ZC_OK);
    expect_reading(&got, 1);
    assert_int_equal(feeds_send_timeout(tx, make_reading(3), 0), ZC_OK);
    assert_int_equal(feeds_recv_timeout(rx, &got, NULL, UINT64_MAX), ZC_OK);
    expect_reading(&got, 3);
    feeds_sender_drop(tx); /* the last sender: closed */
    assert_int_equal(feeds_recv_blocking(rx, &got, NULL), ZC_CLOSED);
    feeds_receiver_drop(rx);
}

#endif /* ZCHAN_HAS_BROADCAST */

/* Each typed *_until passes its deadline through: a past one (1 ns) makes one attempt. */
static void test_typed_until_forms_pass_the_deadline_through(void **state) {
    (void)state;
    readings_sender *tx;
    readings_receiver *rx;
    assert_int_equal(readings_bounded(2, &tx, &rx), ZC_OK);
    reading got, in[2] = {make_reading(1), make_reading(2)}, out[2];
    size_t n = 99;
    assert_int_equal(readings_recv_until(rx, &got, 1), ZC_TIMEDOUT);
    assert_int_equal(readings_recv_many_until(rx, out, 2, &n, 1), ZC_TIMEDOUT);
    assert_int_equal(readings_send_until(tx, make_reading(7), UINT64_MAX), ZC_OK);
    assert_int_equal(readings_send_many_until(tx, in, 2, &n, ZC_ALL_OR_NOTHING, 1),
                     ZC_TIMEDOUT);
    assert_int_equal(n, 0);
    readings_permit p;
    assert_int_equal(readings_reserve_until(tx, &p, 1), ZC_OK);
    assert_int_equal(readings_send_until(tx, make_reading(8), 1), ZC_TIMEDOUT); /* full */
    assert_int_equal(readings_permit_commit(&p, make_reading(8)), ZC_OK);
    assert_int_equal(readings_recv_until(rx, &got, 1), ZC_OK);
    expect_reading(&got, 7);
    assert_int_equal(readings_recv_many_until(rx, out, 2, &n, UINT64_MAX), ZC_OK);
    assert_int_equal(n, 1);
    expect_reading(&out[0], 8);
    assert_int_equal(readings_send_many_until(tx, in, 2, &n, 0, UINT64_MAX), ZC_OK);
    assert_int_equal(n, 2);
    readings_sender_drop(tx);
    readings_receiver_drop(rx);
#if defined(ZCHAN_HAS_BROADCAST)
    feeds_sender *btx;
    feeds_receiver *brx;
    assert_int_equal(feeds_new(1, ZC_BCAST_BACKPRESSURE, &btx, &brx), ZC_OK);
    assert_int_equal(feeds_recv_until(brx, &got, NULL, 1), ZC_TIMEDOUT);
    assert_int_equal(feeds_send_until(btx, make_reading(3), 1), ZC_OK);
    assert_int_equal(feeds_send_until(btx, make_reading(4), 1), ZC_TIMEDOUT); /* full */
    assert_int_equal(feeds_recv_until(brx, &got, NULL, UINT64_MAX), ZC_OK);
    expect_reading(&got, 3);
    feeds_receiver_drop(brx);
    feeds_sender_drop(btx);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_bounded_round_trip_keeps_every_field),
        cmocka_unit_test(test_typed_channel_info_clone_close_and_drop),
        cmocka_unit_test(test_typed_rendezvous_hands_off),
        cmocka_unit_test(test_typed_force_send_and_weak_handles),
        cmocka_unit_test(test_typed_with_constructors_pass_drop_msg_through),
        cmocka_unit_test(test_typed_constructors_reject_bad_arguments),
        cmocka_unit_test(test_typed_futures_pend_wake_and_complete),
        cmocka_unit_test(test_typed_send_future_keeps_its_message_after_closed_or_cancel),
        cmocka_unit_test(test_typed_null_futures_are_einval_or_ignored),
        cmocka_unit_test(test_typed_blocking_and_timeout_forms),
        cmocka_unit_test(test_typed_batches_move_arrays_of_t),
        cmocka_unit_test(test_typed_batch_futures_pend_wake_and_complete),
        cmocka_unit_test(test_typed_permits_reserve_commit_and_release),
        cmocka_unit_test(test_typed_select_cases_and_close_futures),
        cmocka_unit_test(test_typed_until_forms_pass_the_deadline_through),
#if defined(ZCHAN_HAS_BROADCAST)
        cmocka_unit_test(test_typed_broadcast_gives_every_receiver_every_field),
        cmocka_unit_test(test_typed_broadcast_overflow_lags_and_calls_back),
        cmocka_unit_test(test_typed_broadcast_resubscribe_and_counted_send),
        cmocka_unit_test(test_typed_broadcast_futures_pend_wake_and_complete),
        cmocka_unit_test(test_typed_broadcast_blocking_and_timeout_forms),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the broadcast channel (zchan/broadcast.h): delivery to every receiver,
 * back-pressure and overflow (exact lag counts), subscribe and clone positions, clone_msg
 * and drop_msg accounting, close and drop, futures and their wakes, blocking forms. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* clock_gettime (mono_clock.h) under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>

#include <zchan/broadcast.h>

#include "counting_waker.h"
#include "mono_clock.h"

/* clone_msg and drop_msg for uint64_t messages, counting calls; a clone is the value
 * with bit 63 set, so a test can tell a copy from an original. */
typedef struct accounts {
    atomic_size_t clones;
    drop_counter drops;
} accounts;

#define CLONED (UINT64_C(1) << 63)

static void count_clone(void *dst, const void *src, void *ctx) {
    accounts *a = ctx;
    uint64_t v;
    memcpy(&v, src, sizeof v);
    v |= CLONED;
    memcpy(dst, &v, sizeof v);
    atomic_fetch_add_explicit(&a->clones, 1, memory_order_relaxed);
}

static void count_drop(void *msg, void *ctx) { drop_counter_fn(msg, &((accounts *)ctx)->drops); }

static void accounts_init(accounts *a) {
    atomic_init(&a->clones, 0);
    drop_counter_init(&a->drops, NULL, 0);
}

static size_t clones(accounts *a) {
    return atomic_load_explicit(&a->clones, memory_order_relaxed);
}

static size_t drops(accounts *a) { return drop_counter_calls(&a->drops); }

/* A channel of uint64_t; a is NULL for plain copies and no drop_msg. */
static void make(size_t cap, zc_bcast_mode mode, accounts *a, zc_bcast_sender **tx,
                 zc_bcast_receiver **rx) {
    zc_bcast_config cfg = {sizeof(uint64_t), mode, a ? count_clone : NULL,
                           a ? count_drop : NULL, a};
    assert_int_equal(zc_bcast_new(cap, &cfg, tx, rx), ZC_OK);
}

static void bsend(zc_bcast_sender *tx, uint64_t v) {
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_OK);
}

static void bexpect(zc_bcast_receiver *rx, uint64_t want) {
    uint64_t got = ~want;
    assert_int_equal(zc_bcast_try_recv(rx, &got, NULL), ZC_OK);
    assert_int_equal(got, want);
}

static void bexpect_status(zc_bcast_receiver *rx, zc_status want) {
    uint64_t got = 0xdeadbeef;
    assert_int_equal(zc_bcast_try_recv(rx, &got, NULL), want);
    assert_int_equal(got, 0xdeadbeef);
}

static void bexpect_lagged(zc_bcast_receiver *rx, uint64_t want_missed) {
    uint64_t got = 0xdeadbeef, missed = 0;
    assert_int_equal(zc_bcast_try_recv(rx, &got, &missed), ZC_LAGGED);
    assert_int_equal(missed, want_missed);
    assert_int_equal(got, 0xdeadbeef);
}

static size_t rx_len(zc_bcast_receiver *rx) {
    zc_info info;
    assert_int_equal(zc_bcast_receiver_info(rx, &info), ZC_OK);
    return info.len;
}

/* ---- delivery ----------------------------------------------------------------------- */

static void test_every_receiver_gets_every_message_in_order(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx[3];
    make(8, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx[0]);
    rx[1] = zc_bcast_receiver_clone(rx[0]);
    rx[2] = zc_bcast_subscribe(tx);
    assert_non_null(rx[1]);
    assert_non_null(rx[2]);
    for (uint64_t v = 0; v < 5; v++) bsend(tx, 100 + v);
    for (int r = 0; r < 3; r++) {
        for (uint64_t v = 0; v < 5; v++) bexpect(rx[r], 100 + v);
        bexpect_status(rx[r], ZC_EMPTY);
    }
    zc_bcast_sender_drop(tx);
    for (int r = 0; r < 3; r++) zc_bcast_receiver_drop(rx[r]);
}

static void test_subscriber_sees_only_messages_sent_after_it(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(8, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    bsend(tx, 1);
    bsend(tx, 2);
    zc_bcast_receiver *late = zc_bcast_subscribe(tx);
    assert_int_equal(rx_len(late), 0);
    bexpect_status(late, ZC_EMPTY);
    bsend(tx, 3);
    bexpect(late, 3);
    bexpect_status(late, ZC_EMPTY);
    bexpect(rx, 1);
    bexpect(rx, 2);
    bexpect(rx, 3);
    zc_bcast_receiver_drop(late);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_cloned_receiver_starts_where_its_original_is(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(8, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    for (uint64_t v = 1; v <= 4; v++) bsend(tx, v);
    bexpect(rx, 1);
    zc_bcast_receiver *twin = zc_bcast_receiver_clone(rx);
    assert_int_equal(rx_len(twin), 3);
    for (uint64_t v = 2; v <= 4; v++) {
        bexpect(twin, v);
        bexpect(rx, v);
    }
    bexpect_status(twin, ZC_EMPTY);
    zc_info info;
    assert_int_equal(zc_bcast_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 0); /* every message read by everyone: all slots free */
    assert_int_equal(info.receivers, 2);
    zc_bcast_receiver_drop(twin);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

/* ---- back-pressure -------------------------------------------------------------------- */

static void test_backpressure_send_is_full_until_the_slowest_receiver_reads(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *fast, *slow;
    make(2, ZC_BCAST_BACKPRESSURE, NULL, &tx, &fast);
    slow = zc_bcast_receiver_clone(fast);
    bsend(tx, 1);
    bsend(tx, 2);
    uint64_t v = 3;
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_FULL);
    bexpect(fast, 1);
    bexpect(fast, 2);
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_FULL); /* slow is still 2 behind */
    bexpect(slow, 1);
    bsend(tx, 3);
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_FULL);
    bexpect(slow, 2);
    bexpect(slow, 3);
    bexpect(fast, 3);
    zc_bcast_receiver_drop(fast);
    zc_bcast_receiver_drop(slow);
    zc_bcast_sender_drop(tx);
}

static void test_pending_send_resumes_once_the_slowest_receiver_reads(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *fast, *slow;
    make(1, ZC_BCAST_BACKPRESSURE, NULL, &tx, &fast);
    slow = zc_bcast_receiver_clone(fast);
    bsend(tx, 1);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t msg = 2;
    zc_bcast_send f;
    zc_bcast_send_init(&f, tx, &msg);
    assert_int_equal(zc_bcast_send_poll(&f, &w), ZC_PENDING);
    bexpect(fast, 1);
    assert_int_equal(counting_waker_count(&cw), 0); /* slow still holds the slot */
    bexpect(slow, 1);
    assert_int_equal(counting_waker_count(&cw), 1);
    assert_int_equal(zc_bcast_send_poll(&f, &w), ZC_OK);
    assert_int_equal(zc_bcast_send_poll(&f, &w), ZC_OK); /* done: sends nothing more */
    bexpect(fast, 2);
    bexpect(slow, 2);
    bexpect_status(slow, ZC_EMPTY);
    assert_int_equal(counting_waker_count(&cw), 1);
    zc_bcast_receiver_drop(fast);
    zc_bcast_receiver_drop(slow);
    zc_bcast_sender_drop(tx);
}

static void test_dropping_the_slowest_receiver_lets_a_waiting_sender_on(void **state) {
    (void)state;
    accounts a;
    accounts_init(&a);
    zc_bcast_sender *tx;
    zc_bcast_receiver *fast, *slow;
    make(2, ZC_BCAST_BACKPRESSURE, &a, &tx, &fast);
    slow = zc_bcast_receiver_clone(fast);
    bsend(tx, 1);
    bsend(tx, 2);
    bexpect(fast, 1 | CLONED);
    bexpect(fast, 2 | CLONED);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t msg = 3;
    zc_bcast_send f;
    zc_bcast_send_init(&f, tx, &msg);
    assert_int_equal(zc_bcast_send_poll(&f, &w), ZC_PENDING);
    zc_bcast_receiver_drop(slow);
    assert_int_equal(drops(&a), 2); /* the originals slow never read */
    assert_int_equal(counting_waker_count(&cw), 1);
    assert_int_equal(zc_bcast_send_poll(&f, &w), ZC_OK);
    bexpect(fast, 3); /* the only reader: the original, not a clone */
    assert_int_equal(clones(&a), 2);
    zc_bcast_receiver_drop(fast);
    zc_bcast_sender_drop(tx);
}

/* ---- overflow and lag ----------------------------------------------------------------- */

static void test_overflow_send_never_waits_and_a_lagger_gets_the_exact_count(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(3, ZC_BCAST_OVERFLOW, NULL, &tx, &rx);
    for (uint64_t v = 0; v < 10; v++) bsend(tx, v);
    assert_int_equal(rx_len(rx), 3);
    bexpect_lagged(rx, 7);
    for (uint64_t v = 7; v < 10; v++) bexpect(rx, v); /* from the oldest still held */
    bexpect_status(rx, ZC_EMPTY);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_lag_counts_are_exact_for_receivers_at_different_positions(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *a, *b, *c;
    make(4, ZC_BCAST_OVERFLOW, NULL, &tx, &a);
    b = zc_bcast_receiver_clone(a);
    for (uint64_t v = 0; v < 4; v++) bsend(tx, v);
    bexpect(a, 0);
    bexpect(a, 1);
    bexpect(a, 2); /* a at 3, b at 0 */
    for (uint64_t v = 4; v < 9; v++) bsend(tx, v); /* held: 5..8 */
    c = zc_bcast_receiver_clone(b); /* at b's position, lagging as b does */
    bexpect_lagged(a, 2);            /* missed 3 and 4 */
    bexpect(a, 5);
    bexpect_lagged(b, 5); /* missed 0..4 */
    bexpect(b, 5);
    bexpect_lagged(c, 5);
    for (uint64_t v = 5; v < 9; v++) bexpect(c, v);
    bexpect_status(c, ZC_EMPTY);
    bsend(tx, 9);
    bexpect(a, 6);
    bexpect(b, 6); /* no new lag: a, b hold 7..9 still */
    zc_bcast_receiver_drop(a);
    zc_bcast_receiver_drop(b);
    zc_bcast_receiver_drop(c);
    zc_bcast_sender_drop(tx);
}

static void test_overwritten_messages_go_to_drop_msg_once(void **state) {
    (void)state;
    accounts a;
    accounts_init(&a);
    zc_bcast_sender *tx;
    zc_bcast_receiver *r1, *r2;
    make(2, ZC_BCAST_OVERFLOW, &a, &tx, &r1);
    r2 = zc_bcast_receiver_clone(r1);
    bsend(tx, 0);
    bsend(tx, 1);
    bexpect(r1, 0 | CLONED); /* r2 has still to read 0: a copy */
    bsend(tx, 2);            /* overwrites 0: r1 has its copy, r2 lost it */
    assert_int_equal(drops(&a), 1);
    bsend(tx, 3); /* overwrites 1: nobody read it */
    assert_int_equal(drops(&a), 2);
    bexpect_lagged(r2, 2);
    bexpect(r2, 2 | CLONED);
    bexpect(r2, 3 | CLONED);
    bexpect_lagged(r1, 1);
    bexpect(r1, 2); /* last reader: the original */
    bexpect(r1, 3);
    assert_int_equal(clones(&a), 3);
    /* Every copy that existed (4 sent + 3 clones) was received (5) or dropped (2). */
    assert_int_equal(4 + clones(&a), 5 + drops(&a));
    zc_bcast_receiver_drop(r1);
    zc_bcast_receiver_drop(r2);
    zc_bcast_sender_drop(tx);
    assert_int_equal(drops(&a), 2);
}

static void test_dropping_a_lagging_receiver_while_sends_continue(void **state) {
    (void)state;
    accounts a;
    accounts_init(&a);
    zc_bcast_sender *tx;
    zc_bcast_receiver *fast, *slow;
    make(4, ZC_BCAST_OVERFLOW, &a, &tx, &fast);
    slow = zc_bcast_receiver_clone(fast);
    uint64_t received = 0;
    for (uint64_t v = 0; v < 40; v++) {
        bsend(tx, v);
        uint64_t got;
        assert_int_equal(zc_bcast_try_recv(fast, &got, NULL), ZC_OK);
        assert_int_equal(got & ~CLONED, v);
        received++;
        if (v == 20) zc_bcast_receiver_drop(slow); /* 4 behind, lagging since 4 */
    }
    /* slow lost 0..16 to overwrites (17 drops), and gave up 17..20 when dropped. */
    assert_int_equal(drops(&a), 21);
    assert_int_equal(40 + clones(&a), received + drops(&a));
    zc_bcast_receiver_drop(fast);
    zc_bcast_sender_drop(tx);
}

/* ---- close and drop --------------------------------------------------------------------- */

static void test_closed_only_after_the_last_sender_and_after_draining(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *r1, *r2;
    make(4, ZC_BCAST_BACKPRESSURE, NULL, &tx, &r1);
    r2 = zc_bcast_receiver_clone(r1);
    zc_bcast_sender *tx2 = zc_bcast_sender_clone(tx);
    bsend(tx, 1);
    zc_bcast_sender_drop(tx);
    bsend(tx2, 2); /* one sender left: still open */
    bexpect(r1, 1);
    zc_bcast_sender_drop(tx2); /* closes */
    bexpect(r1, 2);
    bexpect_status(r1, ZC_CLOSED);
    bexpect_status(r1, ZC_CLOSED);
    bexpect(r2, 1); /* r2 drains its own share */
    bexpect(r2, 2);
    bexpect_status(r2, ZC_CLOSED);
    zc_bcast_receiver *late = zc_bcast_subscribe(NULL);
    assert_null(late);
    zc_bcast_receiver_drop(r1);
    zc_bcast_receiver_drop(r2);
}

static void test_explicit_close_stops_sends_and_keeps_what_was_sent(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(4, ZC_BCAST_OVERFLOW, NULL, &tx, &rx);
    bsend(tx, 7);
    assert_true(zc_bcast_receiver_close(rx));
    assert_false(zc_bcast_sender_close(tx));
    uint64_t v = 8;
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_CLOSED);
    zc_bcast_receiver *late = zc_bcast_subscribe(tx);
    bexpect_status(late, ZC_CLOSED); /* nothing after it, and closed */
    bexpect(rx, 7);
    bexpect_status(rx, ZC_CLOSED);
    zc_info info;
    assert_int_equal(zc_bcast_sender_info(tx, &info), ZC_OK);
    assert_true(info.closed);
    assert_int_equal(info.capacity, 4);
    assert_int_equal(info.senders, 1);
    assert_int_equal(info.receivers, 2);
    zc_bcast_receiver_drop(late);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_last_receiver_drop_closes_and_drops_what_is_left(void **state) {
    (void)state;
    accounts a;
    accounts_init(&a);
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(4, ZC_BCAST_BACKPRESSURE, &a, &tx, &rx);
    for (uint64_t v = 1; v <= 3; v++) bsend(tx, v);
    bexpect(rx, 1);
    zc_bcast_receiver_drop(rx);
    assert_int_equal(drops(&a), 2);
    assert_int_equal(clones(&a), 0); /* the only reader gets originals */
    uint64_t v = 4;
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_CLOSED);
    zc_bcast_sender_drop(tx);
    assert_int_equal(drops(&a), 2);
}

/* ---- the last two handles dropped on two threads at once --------------------------- */

/* A drop that wakes waiters must do so while its own handle still counts: once it no
 * longer does, the other thread may drop the last handle and free the channel under the
 * wakes. Freed memory is still mapped, so this shows only under AddressSanitizer (the
 * asan preset). DROP_ROUNDS rounds of each race. */
enum { DROP_ROUNDS = 1000 };

static zc_bcast_receiver *drop_rx;
static atomic_bool drop_started;

/* Receives ZC_CLOSED (the sender's drop closes), then drops the last handle. */
static void *recv_closed_then_drop(void *unused) {
    (void)unused;
    uint64_t v;
    /* Release/acquire: only a start signal for the main thread. */
    atomic_store_explicit(&drop_started, true, memory_order_release);
    zc_status s = zc_bcast_recv_blocking(drop_rx, &v, NULL);
    zc_bcast_receiver_drop(drop_rx);
    return (void *)(uintptr_t)s;
}

static zc_bcast_sender *drop_tx;
static zc_bcast_receiver *drop_other;

/* Fills the ring (capacity 2), lets drop_other read both, then blocks on a third send
 * that the main thread's drop of the slowest receiver lets on; then drops the last two
 * handles. */
static void *send_past_a_dropped_receiver(void *unused) {
    (void)unused;
    uint64_t v = 7, out;
    zc_status s = ZC_OK;
    for (int i = 0; i < 2 && s == ZC_OK; i++) s = zc_bcast_try_send(drop_tx, &v);
    for (int i = 0; i < 2 && s == ZC_OK; i++) s = zc_bcast_try_recv(drop_other, &out, NULL);
    if (s == ZC_OK) s = zc_bcast_send_blocking(drop_tx, &v);
    zc_bcast_receiver_drop(drop_other);
    zc_bcast_sender_drop(drop_tx);
    return (void *)(uintptr_t)s;
}

static void test_last_handles_dropped_on_two_threads_free_the_channel_after_the_wakes(
    void **state) {
    (void)state;
    for (int i = 0; i < DROP_ROUNDS; i++) {
        /* The sender's drop closes and wakes the receiver, which drops the last handle. */
        zc_bcast_sender *tx;
        make(4, i & 1 ? ZC_BCAST_OVERFLOW : ZC_BCAST_BACKPRESSURE, NULL, &tx, &drop_rx);
        pthread_t t;
        atomic_store_explicit(&drop_started, false, memory_order_relaxed);
        assert_int_equal(pthread_create(&t, NULL, recv_closed_then_drop, NULL), 0);
        while (!atomic_load_explicit(&drop_started, memory_order_acquire))
            sched_yield();
        for (int k = 0; k < 20 + i % 40; k++) sched_yield(); /* mostly parked by now */
        zc_bcast_sender_drop(tx);
        void *s;
        pthread_join(t, &s);
        assert_int_equal((zc_status)(uintptr_t)s, ZC_CLOSED);
    }
    for (int i = 0; i < DROP_ROUNDS; i++) {
        /* A receiver's drop frees two slots and wakes the blocked sender, which then
         * drops the last handles. */
        zc_bcast_receiver *slow;
        make(2, ZC_BCAST_BACKPRESSURE, NULL, &drop_tx, &slow);
        drop_other = zc_bcast_receiver_clone(slow);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, send_past_a_dropped_receiver, NULL), 0);
        for (int k = 0; k < 20 + i % 40; k++) sched_yield(); /* mostly blocked by now */
        zc_bcast_receiver_drop(slow);
        void *s;
        pthread_join(t, &s);
        assert_int_equal((zc_status)(uintptr_t)s, ZC_OK);
    }
}

/* ---- futures ------------------------------------------------------------------------- */

static void test_a_send_wakes_every_waiting_receiver_once(void **state) {
    (void)state;
    enum { R = 3 };
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx[R];
    make(4, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx[0]);
    for (int i = 1; i < R; i++) rx[i] = zc_bcast_receiver_clone(rx[0]);
    counting_waker cw[R];
    zc_waker w[R];
    zc_bcast_recv f[R];
    uint64_t out[R];
    for (int i = 0; i < R; i++) {
        counting_waker_init(&cw[i]);
        w[i] = counting_waker_of(&cw[i]);
        zc_bcast_recv_init(&f[i], rx[i]);
        assert_int_equal(zc_bcast_recv_poll(&f[i], &w[i], &out[i], NULL), ZC_PENDING);
        assert_int_equal(zc_bcast_recv_poll(&f[i], &w[i], &out[i], NULL), ZC_PENDING);
    }
    bsend(tx, 5);
    for (int i = 0; i < R; i++) {
        assert_int_equal(counting_waker_count(&cw[i]), 1);
        assert_int_equal(zc_bcast_recv_poll(&f[i], &w[i], &out[i], NULL), ZC_OK);
        assert_int_equal(out[i], 5);
    }
    assert_int_equal(zc_bcast_recv_poll(&f[0], &w[0], &out[0], NULL), ZC_PENDING);
    zc_bcast_recv_cancel(&f[0]);
    bsend(tx, 6); /* nobody waits now: no wake */
    for (int i = 0; i < R; i++) assert_int_equal(counting_waker_count(&cw[i]), 1);
    zc_bcast_sender_close(tx);
    for (int i = 0; i < R; i++) {
        assert_int_equal(zc_bcast_recv_poll(&f[i], &w[i], &out[i], NULL), ZC_OK);
        assert_int_equal(out[i], 6);
        assert_int_equal(zc_bcast_recv_poll(&f[i], &w[i], &out[i], NULL), ZC_CLOSED);
        zc_bcast_receiver_drop(rx[i]);
    }
    zc_bcast_sender_drop(tx);
}

static void test_recv_future_reports_lag_then_continues(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(2, ZC_BCAST_OVERFLOW, NULL, &tx, &rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    zc_bcast_recv f;
    zc_bcast_recv_init(&f, rx);
    uint64_t out = 0, missed = 0;
    assert_int_equal(zc_bcast_recv_poll(&f, &w, &out, &missed), ZC_PENDING);
    for (uint64_t v = 0; v < 5; v++) bsend(tx, v);
    assert_int_equal(counting_waker_count(&cw), 1); /* woken once: no longer linked */
    assert_int_equal(zc_bcast_recv_poll(&f, &w, &out, &missed), ZC_LAGGED);
    assert_int_equal(missed, 3);
    assert_int_equal(zc_bcast_recv_poll(&f, &w, &out, &missed), ZC_OK);
    assert_int_equal(out, 3);
    assert_int_equal(zc_bcast_recv_poll(&f, &w, &out, &missed), ZC_OK);
    assert_int_equal(out, 4);
    zc_bcast_sender_drop(tx); /* closes */
    assert_int_equal(zc_bcast_recv_poll(&f, &w, &out, &missed), ZC_CLOSED);
    zc_bcast_receiver_drop(rx);
}

static void test_close_wakes_waiting_senders_and_receivers(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx, *idle;
    make(1, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    idle = zc_bcast_subscribe(tx);
    counting_waker cs, cr;
    counting_waker_init(&cs);
    counting_waker_init(&cr);
    zc_waker ws = counting_waker_of(&cs), wr = counting_waker_of(&cr);
    zc_bcast_recv r;
    zc_bcast_recv_init(&r, idle);
    uint64_t out;
    assert_int_equal(zc_bcast_recv_poll(&r, &wr, &out, NULL), ZC_PENDING);
    bsend(tx, 1);
    assert_int_equal(counting_waker_count(&cr), 1);
    bexpect(idle, 1);
    assert_int_equal(zc_bcast_recv_poll(&r, &wr, &out, NULL), ZC_PENDING);
    uint64_t msg = 2; /* rx has not read 1: full */
    zc_bcast_send s;
    zc_bcast_send_init(&s, tx, &msg);
    assert_int_equal(zc_bcast_send_poll(&s, &ws), ZC_PENDING);
    assert_true(zc_bcast_sender_close(tx));
    assert_int_equal(counting_waker_count(&cs), 1);
    assert_int_equal(counting_waker_count(&cr), 2);
    assert_int_equal(zc_bcast_send_poll(&s, &ws), ZC_CLOSED);
    assert_int_equal(zc_bcast_recv_poll(&r, &wr, &out, NULL), ZC_CLOSED);
    bexpect(rx, 1);
    bexpect_status(rx, ZC_CLOSED); /* the closed send sent nothing */
    zc_bcast_receiver_drop(idle);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_woken_sender_cancelled_passes_the_wake_to_the_next_sender(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(1, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    bsend(tx, 1);
    counting_waker c1, c2;
    counting_waker_init(&c1);
    counting_waker_init(&c2);
    zc_waker w1 = counting_waker_of(&c1), w2 = counting_waker_of(&c2);
    uint64_t m1 = 11, m2 = 12;
    zc_bcast_send s1, s2;
    zc_bcast_send_init(&s1, tx, &m1);
    zc_bcast_send_init(&s2, tx, &m2);
    assert_int_equal(zc_bcast_send_poll(&s1, &w1), ZC_PENDING);
    assert_int_equal(zc_bcast_send_poll(&s2, &w2), ZC_PENDING);
    bexpect(rx, 1); /* one slot freed: wakes s1 only */
    assert_int_equal(counting_waker_count(&c1), 1);
    assert_int_equal(counting_waker_count(&c2), 0);
    zc_bcast_send_cancel(&s1);
    assert_int_equal(counting_waker_count(&c2), 1);
    assert_int_equal(zc_bcast_send_poll(&s2, &w2), ZC_OK);
    bexpect(rx, 12);
    bexpect_status(rx, ZC_EMPTY); /* the cancelled send sent nothing */
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

/* ---- no receiver yet, resubscribe, counted sends, the senders' closed event ---------- */

/* A channel made without a receiver is open: a send reaches nobody (its message goes to
 * drop_msg at once), a subscriber gets what is sent after it, and the channel closes,
 * for good, when its last receiver goes. */
static void test_channel_made_without_a_receiver_stays_open_until_one_comes_and_goes(
    void **state) {
    (void)state;
    accounts a;
    accounts_init(&a);
    zc_bcast_config cfg = {sizeof(uint64_t), ZC_BCAST_BACKPRESSURE, count_clone, count_drop,
                           &a};
    zc_bcast_sender *tx = NULL;
    assert_int_equal(zc_bcast_new(2, &cfg, &tx, NULL), ZC_OK);
    zc_info info;
    assert_int_equal(zc_bcast_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.receivers, 0);
    assert_false(info.closed);
    size_t reached = 99;
    for (uint64_t v = 1; v <= 3; v++) { /* more than cap: nothing is held */
        assert_int_equal(zc_bcast_try_send_counted(tx, &v, &reached), ZC_OK);
        assert_int_equal(reached, 0);
    }
    assert_int_equal(drops(&a), 3);
    zc_bcast_receiver *rx = zc_bcast_subscribe(tx);
    assert_non_null(rx);
    bsend(tx, 4);
    bexpect(rx, 4);
    bexpect_status(rx, ZC_EMPTY);
    zc_bcast_receiver_drop(rx); /* the last receiver: closed for good */
    uint64_t v = 5;
    assert_int_equal(zc_bcast_try_send_counted(tx, &v, &reached), ZC_CLOSED);
    assert_int_equal(reached, 0);
    rx = zc_bcast_subscribe(tx);
    bexpect_status(rx, ZC_CLOSED);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
    assert_int_equal(clones(&a), 0);
}

static void test_counted_send_says_how_many_receivers_it_reached(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(2, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    zc_bcast_receiver *rx2 = zc_bcast_subscribe(tx);
    size_t reached = 0;
    uint64_t v = 1;
    assert_int_equal(zc_bcast_try_send_counted(tx, &v, &reached), ZC_OK);
    assert_int_equal(reached, 2);
    assert_int_equal(zc_bcast_try_send_counted(tx, &v, NULL), ZC_OK); /* optional */
    assert_int_equal(zc_bcast_try_send_counted(tx, &v, &reached), ZC_FULL);
    assert_int_equal(reached, 0);
    assert_int_equal(zc_bcast_try_send_counted(NULL, &v, &reached), ZC_EINVAL);
    zc_bcast_receiver_drop(rx2);
    bexpect(rx, 1);
    bexpect(rx, 1);
    assert_int_equal(zc_bcast_try_send_counted(tx, &v, &reached), ZC_OK);
    assert_int_equal(reached, 1);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

/* A resubscribed receiver starts at the newest end, whatever rx had still to read, and
 * works once every sender is gone. */
static void test_resubscribe_starts_at_the_tail_and_outlives_the_senders(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(4, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    bsend(tx, 1);
    zc_bcast_receiver *rx2 = zc_bcast_resubscribe(rx);
    assert_non_null(rx2);
    bsend(tx, 2);
    bexpect(rx2, 2); /* not 1: that was before it */
    bexpect(rx, 1);
    bexpect(rx, 2);
    bsend(tx, 3);
    zc_bcast_sender_drop(tx); /* closed: what is held stays readable */
    zc_bcast_receiver *rx3 = zc_bcast_resubscribe(rx);
    assert_non_null(rx3);
    bexpect_status(rx3, ZC_CLOSED);
    bexpect(rx, 3);
    bexpect(rx2, 3);
    bexpect_status(rx, ZC_CLOSED);
    assert_null(zc_bcast_resubscribe(NULL));
    zc_bcast_receiver_drop(rx3);
    zc_bcast_receiver_drop(rx2);
    zc_bcast_receiver_drop(rx);
}

static void test_senders_closed_event_completes_when_no_receiver_is_left(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(2, ZC_BCAST_OVERFLOW, NULL, &tx, &rx);
    zc_bcast_receiver *rx2 = zc_bcast_receiver_clone(rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    zc_bcast_closed f;
    zc_bcast_closed_init(&f, tx);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_PENDING);
    bsend(tx, 1); /* traffic wakes nothing here */
    zc_bcast_receiver_drop(rx);
    assert_int_equal(counting_waker_count(&cw), 0);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_PENDING);
    zc_bcast_receiver_drop(rx2); /* the last receiver */
    assert_int_equal(counting_waker_count(&cw), 1);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_OK);
    assert_int_equal(counting_waker_count(&cw), 1);
    zc_bcast_sender_drop(tx);

    /* Made without a receiver: complete at once, until one subscribes. A cancel of a
     * pending one leaves nothing registered; bad arguments. */
    zc_bcast_config cfg = {sizeof(uint64_t), ZC_BCAST_BACKPRESSURE, NULL, NULL, NULL};
    assert_int_equal(zc_bcast_new(2, &cfg, &tx, NULL), ZC_OK);
    zc_bcast_closed_init(&f, tx);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_OK);
    rx = zc_bcast_subscribe(tx);
    zc_bcast_closed_init(&f, tx);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_PENDING);
    zc_bcast_closed_cancel(&f);
    zc_bcast_receiver_drop(rx);
    assert_int_equal(counting_waker_count(&cw), 1); /* cancelled: not woken */
    zc_waker none = {NULL, NULL};
    assert_int_equal(zc_bcast_closed_poll(&f, &none), ZC_EINVAL);
    assert_int_equal(zc_bcast_closed_poll(NULL, &w), ZC_EINVAL);
    zc_bcast_closed_init(&f, NULL);
    assert_int_equal(zc_bcast_closed_poll(&f, &w), ZC_EINVAL);
    zc_bcast_closed_init(NULL, tx);
    zc_bcast_closed_cancel(NULL);
    zc_bcast_sender_drop(tx);
}

/* ---- arguments, blocking, threads ---------------------------------------------------- */

static void test_bad_arguments_return_einval_and_create_nothing(void **state) {
    (void)state;
    zc_bcast_sender *tx = (zc_bcast_sender *)&tx;
    zc_bcast_receiver *rx = (zc_bcast_receiver *)&rx;
    zc_bcast_config cfg = {8, ZC_BCAST_BACKPRESSURE, NULL, NULL, NULL};
    assert_int_equal(zc_bcast_new(0, &cfg, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
    assert_int_equal(zc_bcast_new(4, NULL, &tx, &rx), ZC_EINVAL);
    assert_int_equal(zc_bcast_new(4, &cfg, NULL, &rx), ZC_EINVAL);
    assert_int_equal(zc_bcast_new(4, NULL, &tx, NULL), ZC_EINVAL); /* rx NULL: no receiver */
    assert_int_equal(zc_bcast_new(SIZE_MAX / 4, &cfg, &tx, &rx), ZC_EINVAL);
    /* The whole size, cap * (elem_size + sizeof(size_t)), overflows although each of its
     * two arrays alone fits: ZC_EINVAL, not ZC_ENOMEM. */
    assert_int_equal(zc_bcast_new(SIZE_MAX / (8 + sizeof(size_t)) + 1, &cfg, &tx, &rx),
                     ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
    cfg.elem_size = SIZE_MAX - 2; /* elem_size + sizeof(size_t) overflows */
    assert_int_equal(zc_bcast_new(1, &cfg, &tx, &rx), ZC_EINVAL);
    cfg.elem_size = 0;
    assert_int_equal(zc_bcast_new(4, &cfg, &tx, &rx), ZC_EINVAL);
    cfg.elem_size = 8;
    cfg.mode = (zc_bcast_mode)7;
    assert_int_equal(zc_bcast_new(4, &cfg, &tx, &rx), ZC_EINVAL);
    cfg.mode = ZC_BCAST_OVERFLOW;
    assert_int_equal(zc_bcast_new(4, &cfg, &tx, &rx), ZC_OK);

    uint64_t v = 1;
    zc_info info;
    assert_int_equal(zc_bcast_try_send(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_bcast_try_send(tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_bcast_try_recv(NULL, &v, NULL), ZC_EINVAL);
    assert_int_equal(zc_bcast_try_recv(rx, NULL, NULL), ZC_EINVAL);
    assert_int_equal(zc_bcast_sender_info(NULL, &info), ZC_EINVAL);
    assert_int_equal(zc_bcast_receiver_info(rx, NULL), ZC_EINVAL);
    assert_null(zc_bcast_sender_clone(NULL));
    assert_null(zc_bcast_receiver_clone(NULL));
    assert_false(zc_bcast_sender_close(NULL));
    assert_false(zc_bcast_receiver_close(NULL));
    zc_bcast_sender_drop(NULL);
    zc_bcast_receiver_drop(NULL);

    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw), no_wake = {NULL, NULL};
    zc_bcast_recv r;
    zc_bcast_recv_init(&r, rx);
    assert_int_equal(zc_bcast_recv_poll(&r, &w, &v, NULL), ZC_PENDING);
    assert_int_equal(zc_bcast_recv_poll(&r, &no_wake, &v, NULL), ZC_EINVAL);
    bsend(tx, 1); /* rule 3: the EINVAL poll deregistered it */
    assert_int_equal(counting_waker_count(&cw), 0);
    assert_int_equal(zc_bcast_recv_poll(NULL, &w, &v, NULL), ZC_EINVAL);
    zc_bcast_send s;
    zc_bcast_send_init(&s, tx, NULL);
    assert_int_equal(zc_bcast_send_poll(&s, &w), ZC_EINVAL);
    zc_bcast_send_init(NULL, tx, &v);
    zc_bcast_recv_init(NULL, rx);
    zc_bcast_send_cancel(NULL);
    zc_bcast_recv_cancel(NULL);
    assert_int_equal(zc_bcast_send_blocking(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_bcast_recv_blocking(rx, NULL, NULL), ZC_EINVAL);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_timeouts_give_up_with_nothing_sent_or_taken(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(1, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    uint64_t v = 0;
    assert_int_equal(zc_bcast_recv_timeout(rx, &v, NULL, 0), ZC_TIMEDOUT);
    assert_int_equal(zc_bcast_recv_timeout(rx, &v, NULL, 1000000), ZC_TIMEDOUT);
    bsend(tx, 1);
    uint64_t m = 2;
    assert_int_equal(zc_bcast_send_timeout(tx, &m, 0), ZC_TIMEDOUT);
    assert_int_equal(zc_bcast_send_timeout(tx, &m, 1000000), ZC_TIMEDOUT);
    assert_int_equal(rx_len(rx), 1);
    assert_int_equal(zc_bcast_recv_timeout(rx, &v, NULL, 0), ZC_OK);
    assert_int_equal(v, 1);
    assert_int_equal(zc_bcast_send_timeout(tx, &m, 0), ZC_OK);
    assert_int_equal(zc_bcast_recv_blocking(rx, &v, NULL), ZC_OK);
    assert_int_equal(v, 2);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

static void test_until_forms_at_a_past_near_and_no_deadline(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make(1, ZC_BCAST_BACKPRESSURE, NULL, &tx, &rx);
    uint64_t v = 0, m = 2;
    assert_int_equal(zc_bcast_recv_until(rx, &v, NULL, 0), ZC_TIMEDOUT); /* past, empty */
    uint64_t deadline = now_ns() + 2000000; /* 2 ms */
    assert_int_equal(zc_bcast_recv_until(rx, &v, NULL, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    assert_int_equal(zc_bcast_send_until(tx, &m, 1), ZC_OK); /* past: one attempt, room */
    m = 3;
    assert_int_equal(zc_bcast_send_until(tx, &m, 1), ZC_TIMEDOUT); /* past, full */
    deadline = now_ns() + 2000000;
    assert_int_equal(zc_bcast_send_until(tx, &m, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    assert_int_equal(rx_len(rx), 1);
    assert_int_equal(zc_bcast_recv_until(rx, &v, NULL, deadline), ZC_OK); /* past, ready */
    assert_int_equal(v, 2);
    assert_int_equal(zc_bcast_send_until(tx, &m, UINT64_MAX), ZC_OK);
    assert_int_equal(zc_bcast_recv_until(rx, &v, NULL, UINT64_MAX), ZC_OK);
    assert_int_equal(v, 3);
    assert_int_equal(zc_bcast_send_until(NULL, &m, UINT64_MAX), ZC_EINVAL);
    assert_int_equal(zc_bcast_recv_until(rx, NULL, NULL, 0), ZC_EINVAL);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

enum { THREAD_MESSAGES = 5000, THREAD_RECEIVERS = 3 };

typedef struct reader {
    zc_bcast_receiver *rx;
    uint64_t next; /* the next value expected; THREAD_MESSAGES once all arrived */
    zc_status end;
} reader;

static void *read_all(void *arg) {
    reader *r = arg;
    uint64_t v;
    zc_status s;
    while ((s = zc_bcast_recv_blocking(r->rx, &v, NULL)) == ZC_OK) {
        if (v != r->next) break;
        r->next++;
    }
    r->end = s;
    return NULL;
}

static void test_blocking_backpressure_delivers_everything_to_every_thread(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    reader r[THREAD_RECEIVERS];
    make(2, ZC_BCAST_BACKPRESSURE, NULL, &tx, &r[0].rx);
    for (int i = 1; i < THREAD_RECEIVERS; i++) r[i].rx = zc_bcast_receiver_clone(r[0].rx);
    pthread_t t[THREAD_RECEIVERS];
    for (int i = 0; i < THREAD_RECEIVERS; i++) {
        r[i].next = 0;
        r[i].end = ZC_OK;
        assert_int_equal(pthread_create(&t[i], NULL, read_all, &r[i]), 0);
    }
    for (uint64_t v = 0; v < THREAD_MESSAGES; v++)
        assert_int_equal(zc_bcast_send_blocking(tx, &v), ZC_OK);
    zc_bcast_sender_drop(tx); /* closes: readers drain, then see ZC_CLOSED */
    for (int i = 0; i < THREAD_RECEIVERS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(r[i].end, ZC_CLOSED);
        assert_int_equal(r[i].next, THREAD_MESSAGES);
        zc_bcast_receiver_drop(r[i].rx);
    }
}

/* Under an inline executor (as test_future.c's): a send future polled again while still
 * registered sends, and the wake it owes the receivers runs an inline receiver whose
 * receive frees the slot and would wake this very future, still linked, inside its poll,
 * sending the message twice. A send wakes the receivers only once its node is off the
 * list: the message goes in once. */
typedef struct bc_inline_recv {
    zc_bcast_recv f;
    zc_waker w;
    bool on;
    uint64_t got[8];
    int n;
} bc_inline_recv;

static void bc_inline_recv_wake(void *ctx) {
    bc_inline_recv *r = ctx;
    if (!r->on) return;
    uint64_t v;
    while (zc_bcast_recv_poll(&r->f, &r->w, &v, NULL) == ZC_OK && r->n < 8) r->got[r->n++] = v;
}

typedef struct bc_inline_send {
    zc_bcast_send f;
    zc_waker w;
    int wakes;
} bc_inline_send;

static void bc_inline_send_wake(void *ctx) {
    bc_inline_send *a = ctx;
    a->wakes++;
    zc_bcast_send_poll(&a->f, &a->w);
}

static void test_send_polled_again_while_registered_is_not_woken_inside_its_poll(
    void **state) {
    (void)state;
    zc_bcast_config cfg = {sizeof(uint64_t), ZC_BCAST_BACKPRESSURE, NULL, NULL, NULL};
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    assert_int_equal(zc_bcast_new(1, &cfg, &tx, &rx), ZC_OK);
    bc_inline_recv r = {.on = false};
    zc_bcast_recv_init(&r.f, rx);
    r.w = (zc_waker){bc_inline_recv_wake, &r};
    uint64_t v;
    assert_int_equal(zc_bcast_recv_poll(&r.f, &r.w, &v, NULL), ZC_PENDING);
    uint64_t m0 = 0x10, ml = 0x1a, ma = 0xa;
    assert_int_equal(zc_bcast_try_send(tx, &m0), ZC_OK); /* wakes r, which waits */
    counting_waker lazy;
    counting_waker_init(&lazy);
    zc_waker lw = counting_waker_of(&lazy);
    zc_bcast_send l;
    zc_bcast_send_init(&l, tx, &ml);
    assert_int_equal(zc_bcast_send_poll(&l, &lw), ZC_PENDING);
    bc_inline_send a = {.wakes = 0};
    zc_bcast_send_init(&a.f, tx, &ma);
    a.w = (zc_waker){bc_inline_send_wake, &a};
    assert_int_equal(zc_bcast_send_poll(&a.f, &a.w), ZC_PENDING);
    assert_int_equal(zc_bcast_recv_poll(&r.f, &r.w, &v, NULL), ZC_OK); /* frees: wakes l */
    assert_int_equal(v, 0x10);
    assert_int_equal(zc_bcast_recv_poll(&r.f, &r.w, &v, NULL), ZC_PENDING);
    assert_int_equal(counting_waker_count(&lazy), 1);
    r.on = true;

    assert_int_equal(zc_bcast_send_poll(&a.f, &a.w), ZC_OK); /* polled again, not woken */
    assert_int_equal(a.wakes, 0);
    assert_int_equal(r.n, 1); /* r received a's message, once */
    assert_int_equal(r.got[0], 0xa);
    zc_bcast_send_cancel(&l);
    assert_int_equal(zc_bcast_try_recv(rx, &v, NULL), ZC_EMPTY);
    zc_bcast_recv_cancel(&r.f);
    zc_bcast_sender_drop(tx);
    zc_bcast_receiver_drop(rx);
}

/* k sender tasks wait on a full back-pressure broadcast; their executor cancels each one
 * inside its wake. One receive frees the slot: each cancelled sender passes the wake-up
 * on, and those pass-ons are made one after another by the first pass-on's notify, not
 * one wake deeper per sender (k deep would overflow the stack at tens of thousands). */
enum { NEST = 200 };
typedef struct cancelling_sender {
    zc_bcast_send f;
    zc_waker w;
    bool cancelled;
} cancelling_sender;
static int cancel_depth, cancel_max;

static void cancelling_sender_wake(void *ctx) {
    cancelling_sender *t = ctx;
    if (++cancel_depth > cancel_max) cancel_max = cancel_depth;
    zc_bcast_send_cancel(&t->f);
    t->cancelled = true;
    cancel_depth--;
}

static void test_senders_cancelled_inside_their_wakes_do_not_nest_their_pass_ons(void **state) {
    (void)state;
    zc_bcast_config cfg = {.elem_size = sizeof(uint64_t), .mode = ZC_BCAST_BACKPRESSURE};
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    assert_int_equal(zc_bcast_new(1, &cfg, &tx, &rx), ZC_OK);
    uint64_t v = 1, missed;
    assert_int_equal(zc_bcast_try_send(tx, &v), ZC_OK);
    static cancelling_sender ts[NEST];
    for (int i = 0; i < NEST; i++) {
        ts[i] = (cancelling_sender){.cancelled = false};
        ts[i].w = (zc_waker){cancelling_sender_wake, &ts[i]};
        zc_bcast_send_init(&ts[i].f, tx, &v);
        assert_int_equal(zc_bcast_send_poll(&ts[i].f, &ts[i].w), ZC_PENDING);
    }
    cancel_depth = cancel_max = 0;
    assert_int_equal(zc_bcast_try_recv(rx, &v, &missed), ZC_OK);
    for (int i = 0; i < NEST; i++) assert_true(ts[i].cancelled); /* each passed it on */
    assert_true(cancel_max <= 2);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
}

/* Rule 5 under an executor that polls inside the wake: 2k sender tasks wait on a full
 * back-pressure broadcast of capacity k, held up by a slow receiver; dropping it frees
 * k slots, which must wake the k oldest senders once each and no one else (the first
 * woken sender's pass-ons filled the k slots, and the drop's k - 1 other wakes went to
 * senders that found the channel full: 2k - 1 wakes). */
enum { HERD_K = 10 };
typedef struct inline_sender {
    zc_bcast_send f;
    zc_waker w;
    uint64_t msg;
    bool done;
    int wakes;
} inline_sender;

static void inline_sender_wake(void *ctx) {
    inline_sender *t = ctx;
    t->wakes++;
    if (!t->done && zc_bcast_send_poll(&t->f, &t->w) != ZC_PENDING) t->done = true;
}

static void test_slots_freed_at_once_wake_inline_senders_once_each(void **state) {
    (void)state;
    zc_bcast_sender *tx;
    zc_bcast_receiver *fast, *slow;
    make(HERD_K, ZC_BCAST_BACKPRESSURE, NULL, &tx, &fast);
    slow = zc_bcast_receiver_clone(fast);
    for (uint64_t v = 0; v < HERD_K; v++) bsend(tx, v);
    for (uint64_t v = 0; v < HERD_K; v++) bexpect(fast, v);
    static inline_sender ts[2 * HERD_K];
    for (int i = 0; i < 2 * HERD_K; i++) {
        ts[i] = (inline_sender){.msg = HERD_K + (uint64_t)i};
        ts[i].w = (zc_waker){inline_sender_wake, &ts[i]};
        zc_bcast_send_init(&ts[i].f, tx, &ts[i].msg);
        assert_int_equal(zc_bcast_send_poll(&ts[i].f, &ts[i].w), ZC_PENDING);
    }
    zc_bcast_receiver_drop(slow); /* frees all k slots */
    for (int i = 0; i < HERD_K; i++) {
        assert_int_equal(ts[i].wakes, 1);
        assert_true(ts[i].done);
    }
    for (int i = HERD_K; i < 2 * HERD_K; i++) assert_int_equal(ts[i].wakes, 0);
    for (int i = 0; i < HERD_K; i++) bexpect(fast, HERD_K + (uint64_t)i); /* in order */
    for (int i = HERD_K; i < 2 * HERD_K; i++) {
        assert_true(ts[i].done);
        bexpect(fast, HERD_K + (uint64_t)i);
    }
    zc_bcast_receiver_drop(fast);
    zc_bcast_sender_drop(tx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_receiver_gets_every_message_in_order),
        cmocka_unit_test(test_subscriber_sees_only_messages_sent_after_it),
        cmocka_unit_test(test_cloned_receiver_starts_where_its_original_is),
        cmocka_unit_test(test_backpressure_send_is_full_until_the_slowest_receiver_reads),
        cmocka_unit_test(test_pending_send_resumes_once_the_slowest_receiver_reads),
        cmocka_unit_test(test_dropping_the_slowest_receiver_lets_a_waiting_sender_on),
        cmocka_unit_test(test_overflow_send_never_waits_and_a_lagger_gets_the_exact_count),
        cmocka_unit_test(test_lag_counts_are_exact_for_receivers_at_different_positions),
        cmocka_unit_test(test_overwritten_messages_go_to_drop_msg_once),
        cmocka_unit_test(test_dropping_a_lagging_receiver_while_sends_continue),
        cmocka_unit_test(test_closed_only_after_the_last_sender_and_after_draining),
        cmocka_unit_test(test_explicit_close_stops_sends_and_keeps_what_was_sent),
        cmocka_unit_test(test_last_receiver_drop_closes_and_drops_what_is_left),
        cmocka_unit_test(
            test_last_handles_dropped_on_two_threads_free_the_channel_after_the_wakes),
        cmocka_unit_test(test_a_send_wakes_every_waiting_receiver_once),
        cmocka_unit_test(test_recv_future_reports_lag_then_continues),
        cmocka_unit_test(test_close_wakes_waiting_senders_and_receivers),
        cmocka_unit_test(test_woken_sender_cancelled_passes_the_wake_to_the_next_sender),
        cmocka_unit_test(test_bad_arguments_return_einval_and_create_nothing),
        cmocka_unit_test(test_timeouts_give_up_with_nothing_sent_or_taken),
        cmocka_unit_test(test_until_forms_at_a_past_near_and_no_deadline),
        cmocka_unit_test(test_blocking_backpressure_delivers_everything_to_every_thread),
        cmocka_unit_test(test_send_polled_again_while_registered_is_not_woken_inside_its_poll),
        cmocka_unit_test(test_senders_cancelled_inside_their_wakes_do_not_nest_their_pass_ons),
        cmocka_unit_test(test_slots_freed_at_once_wake_inline_senders_once_each),
        cmocka_unit_test(test_channel_made_without_a_receiver_stays_open_until_one_comes_and_goes),
        cmocka_unit_test(test_counted_send_says_how_many_receivers_it_reached),
        cmocka_unit_test(test_resubscribe_starts_at_the_tail_and_outlives_the_senders),
        cmocka_unit_test(test_senders_closed_event_completes_when_no_receiver_is_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

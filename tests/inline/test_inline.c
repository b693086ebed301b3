/* Unit tests for zchan/inline.h (ZCHAN_INLINE): the inline fast paths give the statuses,
 * messages and wakes the library's calls give, on the channels they serve (bounded,
 * 8-byte messages) and on those they hand to the library (other sizes, unbounded,
 * rendezvous, bad arguments, waiting futures); and messages are delivered exactly once
 * when inline and out-of-line calls run at once on several threads.
 *
 * Linked with an unchecked build of the library's sources (tests/inline/CMakeLists.txt):
 * inline callers need a library that defines zc__layout_v1. */
#define ZCHAN_INLINE
#include <zchan/zchan.h>

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#if !defined(zc_try_send) || !defined(zc_try_recv) || !defined(zc_send_poll) ||           \
    !defined(zc_recv_poll) || !defined(zc_send_init)
#error "ZCHAN_INLINE did not turn the fast-path calls into inline ones"
#endif

static void count_wake(void *ctx) { ++*(int *)ctx; }

static void bounded8(size_t cap, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    assert_int_equal(zc_bounded(cap, &cfg, tx, rx), ZC_OK);
}

static void drop_both(zc_sender *tx, zc_receiver *rx) {
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Try operations on the ring they inline: order, full, empty, closed. */
static void test_try_bounded(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(2, &tx, &rx);
    uint64_t a = 11, b = 22, c = 33, out = 0;
    assert_int_equal(zc_try_send(tx, &a), ZC_OK);
    assert_int_equal(zc_try_send(tx, &b), ZC_OK);
    assert_int_equal(zc_try_send(tx, &c), ZC_FULL);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 11);
    assert_int_equal(zc_try_send(tx, &c), ZC_OK); /* the next lap's slot */
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 22);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 33);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    zc_sender_close(tx);
    assert_int_equal(zc_try_send(tx, &a), ZC_CLOSED);
    assert_int_equal(zc_try_recv(rx, &out), ZC_CLOSED);
    drop_both(tx, rx);
}

/* Bad arguments reach the library, which answers ZC_EINVAL. */
static void test_bad_arguments(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(1, &tx, &rx);
    uint64_t v = 1;
    assert_int_equal(zc_try_send(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_try_send(tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_try_recv(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_try_recv(rx, NULL), ZC_EINVAL);
    zc_send sf;
    zc_send_init(&sf, tx, NULL);
    const zc_waker noop = {count_wake, &(int){0}};
    assert_int_equal(zc_send_poll(&sf, &noop), ZC_EINVAL);
    assert_int_equal(zc_send_poll(NULL, &noop), ZC_EINVAL);
    zc_recv rf;
    zc_recv_init(&rf, rx);
    assert_int_equal(zc_recv_poll(&rf, &noop, NULL), ZC_EINVAL);
    assert_int_equal(zc_recv_poll(&rf, NULL, &v), ZC_EINVAL);
    drop_both(tx, rx);
}

/* The channels the inline paths hand to the library: 4-byte messages, unbounded,
 * rendezvous. */
static void test_other_channels(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg4 = {.elem_size = 4};
    assert_int_equal(zc_bounded(1, &cfg4, &tx, &rx), ZC_OK);
    uint32_t s4 = 7, r4 = 0;
    assert_int_equal(zc_try_send(tx, &s4), ZC_OK);
    assert_int_equal(zc_try_send(tx, &s4), ZC_FULL);
    assert_int_equal(zc_try_recv(rx, &r4), ZC_OK);
    assert_int_equal(r4, 7);
    drop_both(tx, rx);

    zc_config cfg8 = {.elem_size = 8};
    assert_int_equal(zc_unbounded(&cfg8, &tx, &rx), ZC_OK);
    for (uint64_t i = 0; i < 100; i++) assert_int_equal(zc_try_send(tx, &i), ZC_OK);
    for (uint64_t i = 0, out; i < 100; i++) {
        assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
        assert_int_equal(out, i);
    }
    uint64_t out;
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    drop_both(tx, rx);

    assert_int_equal(zc_rendezvous(&cfg8, &tx, &rx), ZC_OK);
    uint64_t v = 5;
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL); /* nobody receiving */
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    drop_both(tx, rx);
}

/* A send that finds a receive future waiting wakes it once (ZC__FAST_WAKE), and a
 * receive that frees a slot wakes a waiting send future. */
static void test_wakes_waiting_peer(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(1, &tx, &rx);
    int woken = 0;
    const zc_waker w = {count_wake, &woken};
    uint64_t v = 42, out = 0;

    zc_recv rf;
    zc_recv_init(&rf, rx);
    assert_int_equal(zc_recv_poll(&rf, &w, &out), ZC_PENDING);
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    assert_int_equal(woken, 1);
    assert_int_equal(zc_recv_poll(&rf, &w, &out), ZC_OK); /* not idle: the library's */
    assert_int_equal(out, 42);

    woken = 0;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    zc_send sf;
    uint64_t second = 43;
    zc_send_init(&sf, tx, &second);
    assert_int_equal(zc_send_poll(&sf, &w), ZC_PENDING);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 42);
    assert_int_equal(woken, 1);
    assert_int_equal(zc_send_poll(&sf, &w), ZC_OK);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 43);
    assert_int_equal(woken, 1); /* nobody else waited */
    drop_both(tx, rx);
}

/* Futures through the inline first attempt: a pair per loop, a completed send polled
 * again, a cancel after an inline completion. */
static void test_futures(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(4, &tx, &rx);
    int woken = 0;
    const zc_waker w = {count_wake, &woken};
    zc_recv rf;
    zc_recv_init(&rf, rx);
    for (uint64_t i = 1; i <= 10; i++) {
        zc_send sf;
        uint64_t msg = i * 3, out = 0;
        zc_send_init(&sf, tx, &msg);
        assert_int_equal(zc_send_poll(&sf, &w), ZC_OK);
        assert_int_equal(zc_send_poll(&sf, &w), ZC_OK); /* complete: stays ZC_OK */
        zc_send_cancel(&sf);
        assert_int_equal(zc_recv_poll(&rf, &w, &out), ZC_OK);
        assert_int_equal(out, i * 3);
    }
    assert_int_equal(woken, 0);
    zc_recv_cancel(&rf);
    drop_both(tx, rx);
}

/* Taking a call's address names the library's function. */
static void test_address_is_the_librarys(void **state) {
    (void)state;
    zc_status (*send)(zc_sender *, const void *) = &zc_try_send;
    zc_status (*recv)(zc_receiver *, void *) = &zc_try_recv;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(1, &tx, &rx);
    uint64_t v = 9, out = 0;
    assert_int_equal(send(tx, &v), ZC_OK);
    assert_int_equal(recv(rx, &out), ZC_OK);
    assert_int_equal(out, 9);
    drop_both(tx, rx);
}

/* Exactly once: 2 senders (one inline, one through the library's address) and 2
 * receivers (likewise), each message received once, per-sender order kept. */
#define PER_SENDER 100000u
typedef struct mt {
    zc_sender *tx;
    zc_receiver *rx;
    unsigned id;
    uint64_t sum, count;
    int bad_order;
} mt;

static void *mt_send(void *arg) {
    mt *m = arg;
    zc_status (*lib)(zc_sender *, const void *) = &zc_try_send;
    for (uint64_t i = 1; i <= PER_SENDER; i++) {
        uint64_t v = (uint64_t)m->id << 32 | i;
        zc_status s;
        while ((s = m->id ? lib(m->tx, &v) : zc_try_send(m->tx, &v)) == ZC_FULL) sched_yield();
        if (s != ZC_OK) return NULL;
    }
    return NULL;
}

static void *mt_recv(void *arg) {
    mt *m = arg;
    zc_status (*lib)(zc_receiver *, void *) = &zc_try_recv;
    uint64_t last[2] = {0, 0}, v;
    for (;;) {
        zc_status s = m->id ? lib(m->rx, &v) : zc_try_recv(m->rx, &v);
        if (s == ZC_EMPTY) {
            sched_yield();
            continue;
        }
        if (s != ZC_OK) break; /* ZC_CLOSED: drained */
        unsigned from = (unsigned)(v >> 32);
        uint64_t seq = v & 0xffffffffu;
        if (from > 1 || seq <= last[from]) m->bad_order = 1;
        if (from <= 1) last[from] = seq;
        m->sum += seq;
        m->count++;
    }
    return NULL;
}

static void test_exactly_once_threads(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    bounded8(16, &tx, &rx);
    mt s[2] = {{tx, rx, 0, 0, 0, 0}, {tx, rx, 1, 0, 0, 0}};
    mt r[2] = {{tx, rx, 0, 0, 0, 0}, {tx, rx, 1, 0, 0, 0}};
    pthread_t ts[2], tr[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&tr[i], NULL, mt_recv, &r[i]), 0);
        assert_int_equal(pthread_create(&ts[i], NULL, mt_send, &s[i]), 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(ts[i], NULL);
    zc_sender_close(tx);
    for (int i = 0; i < 2; i++) pthread_join(tr[i], NULL);
    uint64_t per = (uint64_t)PER_SENDER * (PER_SENDER + 1) / 2;
    assert_int_equal(r[0].count + r[1].count, 2 * PER_SENDER);
    assert_int_equal(r[0].sum + r[1].sum, 2 * per);
    assert_int_equal(r[0].bad_order + r[1].bad_order, 0);
    drop_both(tx, rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_try_bounded),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_other_channels),
        cmocka_unit_test(test_wakes_waiting_peer),
        cmocka_unit_test(test_futures),
        cmocka_unit_test(test_address_is_the_librarys),
        cmocka_unit_test(test_exactly_once_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of rendezvous channels (zc_rendezvous, zchan/mpmc.h): no buffer, a send
 * completes when a receiver takes its message. Go's unbuffered-channel behaviours: a try
 * meets only a waiting partner; a send future is an offer that a receiver completes; a
 * receive future is woken by an offer and takes it; a cancelled send sent nothing and a
 * cancelled receive took nothing, passing its wake-up on; close wakes everyone; the calls
 * that need slots say ZC_EINVAL. Then threads: a synchronous ping-pong, blocking
 * receivers that a try_send fills, timeouts, and many senders to many receivers with
 * every message received exactly once. Select: a case meets a waiting partner of any
 * form; a waiting case is completed by a peer only as the select's one outcome; two
 * threads each selecting on the other's channels meet; a select never pairs with
 * itself; a cancel or timeout after a peer completed a case reports that case. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>
#include <zchan/select.h>

#include "counting_waker.h"
#include "rendezvous.h" /* the select claim word, for the poke tests */

static atomic_uint dropped;

static void count_drop(void *msg, void *ctx) {
    (void)msg, (void)ctx;
    atomic_fetch_add(&dropped, 1);
}

static void make(zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {sizeof(uint64_t), count_drop, NULL};
    assert_int_equal(zc_rendezvous(&cfg, tx, rx), ZC_OK);
}

static void test_bad_arguments_and_info(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_config zero = {0, NULL, NULL};
    zc_sender *tx = (zc_sender *)&cfg;
    zc_receiver *rx = (zc_receiver *)&cfg;
    assert_int_equal(zc_rendezvous(NULL, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
    assert_int_equal(zc_rendezvous(&zero, &tx, &rx), ZC_EINVAL);
    zc_config huge = {SIZE_MAX / 2 + 1, NULL, NULL};
    assert_int_equal(zc_rendezvous(&huge, &tx, &rx), ZC_EINVAL);
    zc_config big = {1u << 20, NULL, NULL}; /* the block does not grow with it */
    assert_int_equal(zc_rendezvous(&big, &tx, &rx), ZC_OK);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    assert_int_equal(zc_rendezvous(&cfg, NULL, &rx), ZC_EINVAL);
    assert_int_equal(zc_bounded(0, &cfg, &tx, &rx), ZC_EINVAL); /* stays: no cap 0 */
    make(&tx, &rx);
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.capacity, 0);
    assert_int_equal(info.len, 0);
    assert_int_equal(info.senders, 1);
    assert_int_equal(info.receivers, 1);
    assert_false(info.closed);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_try_operations_need_a_waiting_partner(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    uint64_t v = 7, out = 0;
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    bool evicted = true;
    assert_int_equal(zc_force_send(tx, &v, &out, &evicted), ZC_FULL); /* nothing to evict */
    assert_false(evicted);
    zc_info info;
    assert_int_equal(zc_receiver_info(rx, &info), ZC_OK);
    assert_int_equal(info.len, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_send_future_is_an_offer_a_receiver_completes(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t v = 42, out = 0;
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING); /* still waiting: no wake */
    assert_int_equal(counting_waker_count(&cw), 0);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 42);
    assert_int_equal(counting_waker_count(&cw), 1); /* the send was completed */
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY); /* one message, once */
    assert_int_equal(zc_send_poll(&f, &w), ZC_OK);
    assert_int_equal(zc_send_poll(&f, &w), ZC_OK); /* sends nothing more */
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    assert_int_equal(counting_waker_count(&cw), 1);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_receive_future_is_woken_by_an_offer_and_takes_it(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker rw, sw;
    counting_waker_init(&rw);
    counting_waker_init(&sw);
    zc_waker rwk = counting_waker_of(&rw), swk = counting_waker_of(&sw);
    uint64_t v = 5, out = 0;
    zc_recv r;
    zc_recv_init(&r, rx);
    assert_int_equal(zc_recv_poll(&r, &rwk, &out), ZC_PENDING);
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &swk), ZC_PENDING);
    assert_int_equal(counting_waker_count(&rw), 1); /* the offer woke the receiver */
    assert_int_equal(zc_recv_poll(&r, &rwk, &out), ZC_OK);
    assert_int_equal(out, 5);
    assert_int_equal(counting_waker_count(&sw), 1);
    assert_int_equal(zc_send_poll(&f, &swk), ZC_OK);
    /* The stream goes on: the next poll waits again. */
    assert_int_equal(zc_recv_poll(&r, &rwk, &out), ZC_PENDING);
    zc_recv_cancel(&r);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A try_send meets a waiting receive future too: its message is held by the channel
 * and that future woken; every receive takes held messages first, in order, so the
 * first receiver to act gets the oldest; a woken future cancelled instead passes its
 * wake-up on; one held when the last receiver goes is given to drop_msg. */
static void test_a_try_send_leaves_its_message_for_a_receive_future(void **state) {
    (void)state;
    atomic_store(&dropped, 0);
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker c1, c2;
    counting_waker_init(&c1);
    counting_waker_init(&c2);
    zc_waker w1 = counting_waker_of(&c1), w2 = counting_waker_of(&c2);
    uint64_t v = 50, o1 = 0, o2 = 0;
    zc_recv r1, r2;
    zc_recv_init(&r1, rx);
    zc_recv_init(&r2, rx);
    assert_int_equal(zc_recv_poll(&r1, &w1, &o1), ZC_PENDING);
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_PENDING);
    assert_int_equal(zc_try_send(tx, &v), ZC_OK); /* r1, the oldest, is woken for it */
    assert_int_equal(counting_waker_count(&c1), 1);
    assert_int_equal(counting_waker_count(&c2), 0);
    v = 51;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK); /* r2 is woken for this one */
    assert_int_equal(counting_waker_count(&c2), 1);
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL); /* nobody left waiting */
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 0);
    /* The first to act gets the oldest. */
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_OK);
    assert_int_equal(o2, 50);
    zc_recv_cancel(&r1); /* took nothing */
    assert_int_equal(o1, 0);
    assert_int_equal(zc_try_recv(rx, &o2), ZC_OK);
    assert_int_equal(o2, 51);
    assert_int_equal(zc_try_recv(rx, &o2), ZC_EMPTY);
    /* Woken, then cancelled with another future waiting: that one gets the wake-up. */
    assert_int_equal(zc_recv_poll(&r1, &w1, &o1), ZC_PENDING);
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_PENDING);
    v = 52;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    assert_int_equal(counting_waker_count(&c1), 2);
    zc_recv_cancel(&r1);
    assert_int_equal(counting_waker_count(&c2), 2);
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_OK);
    assert_int_equal(o2, 52);
    /* A message held when the last receiver goes is given to drop_msg. */
    assert_int_equal(zc_recv_poll(&r1, &w1, &o1), ZC_PENDING);
    v = 53;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    zc_recv_cancel(&r1);
    zc_sender_drop(tx);
    assert_int_equal(atomic_load(&dropped), 0);
    zc_receiver_drop(rx);
    assert_int_equal(atomic_load(&dropped), 1);
}

/* Receive futures cancelled inside the wakes their pass-ons make run two wakes deep,
 * not one per future (waker.h): an inline executor whose wakes cancel. */
enum { CHAIN = 200 };
typedef struct chain {
    zc_recv f[CHAIN + 1];
    int index[CHAIN + 1];
    int depth, max_depth;
    uint64_t out;
    zc_status last;
} chain;
static chain the_chain;

static void chain_wake(void *ctx) {
    chain *c = &the_chain;
    int i = *(int *)ctx;
    if (++c->depth > c->max_depth) c->max_depth = c->depth;
    if (i < CHAIN) {
        zc_recv_cancel(&c->f[i]); /* the wake-up goes on */
    } else {
        zc_waker w = {chain_wake, ctx};
        c->last = zc_recv_poll(&c->f[i], &w, &c->out);
    }
    c->depth--;
}

static void test_cancels_inside_pass_on_wakes_do_not_nest(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    chain *c = &the_chain;
    memset(c, 0, sizeof *c);
    for (int i = 0; i <= CHAIN; i++) {
        c->index[i] = i;
        zc_waker w = {chain_wake, &c->index[i]};
        zc_recv_init(&c->f[i], rx);
        assert_int_equal(zc_recv_poll(&c->f[i], &w, &c->out), ZC_PENDING);
    }
    uint64_t v = 77;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK); /* held, the first future woken */
    assert_int_equal(c->last, ZC_OK);
    assert_int_equal(c->out, 77);
    assert_true(c->max_depth <= 2);
    zc_recv_cancel(&c->f[CHAIN]);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* The last receiver's drop, racing a try_send that leaves its message for a receive
 * future being cancelled: the message is received by nobody, so drop_msg gets it, once
 * (a large message widens the window of the try_send's copy). */
enum { RACE_BYTES = 1u << 20 };
typedef struct drop_race {
    zc_sender *tx;
    unsigned char *msg;
    atomic_bool go;
    zc_status sent;
} drop_race;

static void *race_sender(void *arg) {
    drop_race *d = arg;
    while (!atomic_load(&d->go)) {
    }
    d->sent = zc_try_send(d->tx, d->msg);
    return NULL;
}

static void test_a_message_held_during_the_last_drop_goes_to_drop_msg(void **state) {
    (void)state;
    drop_race d = {.msg = calloc(1, RACE_BYTES)};
    unsigned char *out = calloc(1, RACE_BYTES);
    assert_non_null(d.msg);
    assert_non_null(out);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    for (unsigned k = 0; k < 100; k++) {
        zc_config cfg = {RACE_BYTES, count_drop, NULL};
        zc_receiver *rx;
        assert_int_equal(zc_rendezvous(&cfg, &d.tx, &rx), ZC_OK);
        zc_recv r;
        zc_recv_init(&r, rx);
        assert_int_equal(zc_recv_poll(&r, &w, out), ZC_PENDING);
        atomic_store(&dropped, 0);
        atomic_store(&d.go, false);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, race_sender, &d), 0);
        atomic_store(&d.go, true);
        for (volatile unsigned spin = 0; spin < k % 25 * 2000; spin++) {
        }
        zc_recv_cancel(&r);
        zc_receiver_drop(rx);
        pthread_join(t, NULL);
        /* Sent: disposed of once; not sent (ZC_FULL, ZC_CLOSED): nothing to dispose of. */
        assert_int_equal(atomic_load(&dropped), d.sent == ZC_OK ? 1 : 0);
        zc_sender_drop(d.tx);
    }
    free(d.msg);
    free(out);
}

/* Close does not take a message a try_send left for receivers: it is received, then
 * ZC_CLOSED. */
static void test_a_handed_message_is_received_after_close(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t v = 60, out = 0;
    zc_recv r;
    zc_recv_init(&r, rx);
    assert_int_equal(zc_recv_poll(&r, &w, &out), ZC_PENDING);
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    zc_recv_cancel(&r); /* held for the next receiver */
    assert_true(zc_sender_close(tx));
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 60);
    assert_int_equal(zc_try_recv(rx, &out), ZC_CLOSED);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_cancelled_send_sent_nothing(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t v = 9, out = 0;
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    zc_send_cancel(&f);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    /* Polled again it starts over: an offer again. */
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 9);
    assert_int_equal(zc_send_poll(&f, &w), ZC_OK);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_send_taken_before_its_cancel_stays_complete(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    uint64_t v = 11, out = 0;
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    zc_send_cancel(&f); /* too late: the message was received */
    assert_int_equal(zc_send_poll(&f, &w), ZC_OK);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    /* zc_send_abort tells the two apart without a poll. */
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_false(zc_send_abort(&f)); /* sent */
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &w), ZC_PENDING);
    assert_true(zc_send_abort(&f)); /* not sent: still ours */
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    assert_true(zc_send_abort(NULL));
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_cancelled_receiver_passes_its_wake_up_on(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker c1, c2, cs;
    counting_waker_init(&c1);
    counting_waker_init(&c2);
    counting_waker_init(&cs);
    zc_waker w1 = counting_waker_of(&c1), w2 = counting_waker_of(&c2),
             ws = counting_waker_of(&cs);
    uint64_t v = 3, o1 = 0, o2 = 0;
    zc_recv r1, r2;
    zc_recv_init(&r1, rx);
    zc_recv_init(&r2, rx);
    assert_int_equal(zc_recv_poll(&r1, &w1, &o1), ZC_PENDING);
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_PENDING);
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_PENDING);
    assert_int_equal(counting_waker_count(&c1), 1); /* the oldest, alone (no herd) */
    assert_int_equal(counting_waker_count(&c2), 0);
    zc_recv_cancel(&r1); /* took nothing: the wake-up goes to r2 */
    assert_int_equal(counting_waker_count(&c2), 1);
    assert_int_equal(zc_recv_poll(&r2, &w2, &o2), ZC_OK);
    assert_int_equal(o2, 3);
    assert_int_equal(o1, 0);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_OK);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_close_wakes_every_waiting_party(void **state) {
    (void)state;
    atomic_store(&dropped, 0);
    zc_sender *tx, *tx2;
    zc_receiver *rx, *rx2;
    make(&tx, &rx);
    make(&tx2, &rx2);
    counting_waker cs, cr;
    counting_waker_init(&cs);
    counting_waker_init(&cr);
    zc_waker ws = counting_waker_of(&cs), wr = counting_waker_of(&cr);
    uint64_t v = 1, out = 0;
    zc_send f;
    zc_recv r;
    zc_send_init(&f, tx, &v);
    zc_recv_init(&r, rx2);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_PENDING);
    assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_PENDING);
    assert_true(zc_receiver_close(rx));
    assert_true(zc_sender_close(tx2));
    assert_int_equal(counting_waker_count(&cs), 1);
    assert_int_equal(counting_waker_count(&cr), 1);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_CLOSED); /* the message is still ours */
    assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_CLOSED);
    assert_int_equal(zc_try_send(tx, &v), ZC_CLOSED);
    assert_int_equal(zc_try_recv(rx, &out), ZC_CLOSED);
    assert_int_equal(zc_send_timeout(tx2, &v, 0), ZC_CLOSED);
    assert_int_equal(zc_recv_blocking(rx2, &out), ZC_CLOSED);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_sender_drop(tx2);
    zc_receiver_drop(rx2);
    assert_int_equal(atomic_load(&dropped), 0); /* never holds a message */
}

static void test_calls_that_need_slots_say_einval(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    uint64_t msgs[2] = {1, 2}, out[2];
    size_t n = 9;
    assert_int_equal(zc_try_send_many(tx, msgs, 2, &n, 0), ZC_EINVAL);
    assert_int_equal(n, 0);
    assert_int_equal(zc_try_recv_many(rx, out, 2, &n), ZC_EINVAL);
    assert_int_equal(zc_send_many_timeout(tx, msgs, 2, &n, 0, 0), ZC_EINVAL);
    assert_int_equal(zc_recv_many_timeout(rx, out, 2, &n, 0), ZC_EINVAL);
    zc_permit p;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_EINVAL);
    assert_int_equal(zc_reserve_timeout(tx, &p, 0), ZC_EINVAL);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_timeouts_send_and_take_nothing(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    uint64_t v = 4, out = 0;
    assert_int_equal(zc_send_timeout(tx, &v, 0), ZC_TIMEDOUT);
    assert_int_equal(zc_send_timeout(tx, &v, 2000000), ZC_TIMEDOUT);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    assert_int_equal(zc_recv_timeout(rx, &out, 2000000), ZC_TIMEDOUT);
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL); /* the timed-out receiver is gone */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- Threads ---------------------------------------------------------------------- */

typedef struct pair {
    zc_sender *tx;
    zc_receiver *rx;
    uint64_t n;
    uint64_t got;
} pair;

/* Receives n messages, blocking, and returns each one back on the other channel. */
static void *echo(void *arg) {
    pair *p = arg;
    for (uint64_t i = 0; i < p->n; i++) {
        uint64_t v;
        if (zc_recv_blocking(p->rx, &v) != ZC_OK) abort();
        v += 1;
        if (zc_send_blocking(p->tx, &v) != ZC_OK) abort();
    }
    return NULL;
}

static void test_a_synchronous_ping_pong(void **state) {
    (void)state;
    zc_sender *ping_tx, *pong_tx;
    zc_receiver *ping_rx, *pong_rx;
    make(&ping_tx, &ping_rx);
    make(&pong_tx, &pong_rx);
    pair p = {pong_tx, ping_rx, 2000, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, echo, &p), 0);
    uint64_t v = 0;
    for (uint64_t i = 0; i < p.n; i++) {
        assert_int_equal(zc_send_blocking(ping_tx, &v), ZC_OK);
        assert_int_equal(zc_recv_blocking(pong_rx, &v), ZC_OK);
    }
    assert_int_equal(v, p.n); /* every round trip added one */
    pthread_join(t, NULL);
    zc_sender_drop(ping_tx);
    zc_receiver_drop(ping_rx);
    zc_sender_drop(pong_tx);
    zc_receiver_drop(pong_rx);
}

static void *receive_one(void *arg) {
    pair *p = arg;
    uint64_t v = 0;
    if (zc_recv_blocking(p->rx, &v) != ZC_OK) abort();
    p->got = v;
    return NULL;
}

static void test_a_try_send_fills_a_blocked_receiver(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    pair p = {tx, rx, 1, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, receive_one, &p), 0);
    uint64_t v = 77;
    zc_status s;
    while ((s = zc_try_send(tx, &v)) == ZC_FULL) sched_yield(); /* until it blocks */
    assert_int_equal(s, ZC_OK);
    pthread_join(t, NULL);
    assert_int_equal(p.got, 77);
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL); /* it took one */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

enum { SENDERS = 3, RECEIVERS = 3, PER_SENDER = 3000 };

typedef struct mpmc {
    zc_sender *tx;
    zc_receiver *rx;
    atomic_uint seen[SENDERS * PER_SENDER];
    atomic_uint next_sender;
    atomic_uint received;
} mpmc;

static void *mpmc_send(void *arg) {
    mpmc *m = arg;
    uint64_t base = atomic_fetch_add(&m->next_sender, 1) * PER_SENDER;
    for (uint64_t i = 0; i < PER_SENDER; i++) {
        uint64_t v = base + i;
        /* Every other message a try first, then a timed send, then a blocking one. */
        zc_status s = i % 2 ? zc_try_send(m->tx, &v) : ZC_FULL;
        if (s == ZC_FULL) s = zc_send_timeout(m->tx, &v, 50000);
        if (s == ZC_TIMEDOUT) s = zc_send_blocking(m->tx, &v);
        if (s != ZC_OK) abort();
    }
    return NULL;
}

static void *mpmc_recv(void *arg) {
    mpmc *m = arg;
    uint64_t v;
    zc_status s;
    for (unsigned i = 0;; i++) {
        s = i % 3 ? zc_recv_blocking(m->rx, &v) : zc_recv_timeout(m->rx, &v, 50000);
        if (s == ZC_TIMEDOUT) continue;
        if (s != ZC_OK) break;
        atomic_fetch_add(&m->seen[v], 1);
        atomic_fetch_add(&m->received, 1);
    }
    if (s != ZC_CLOSED) abort();
    return NULL;
}

static void test_many_senders_to_many_receivers_exactly_once(void **state) {
    (void)state;
    mpmc *m = calloc(1, sizeof *m);
    assert_non_null(m);
    make(&m->tx, &m->rx);
    pthread_t s[SENDERS], r[RECEIVERS];
    for (int i = 0; i < RECEIVERS; i++) pthread_create(&r[i], NULL, mpmc_recv, m);
    for (int i = 0; i < SENDERS; i++) pthread_create(&s[i], NULL, mpmc_send, m);
    for (int i = 0; i < SENDERS; i++) pthread_join(s[i], NULL);
    zc_sender_drop(m->tx); /* closes: the receivers end with ZC_CLOSED */
    for (int i = 0; i < RECEIVERS; i++) pthread_join(r[i], NULL);
    assert_int_equal(atomic_load(&m->received), SENDERS * PER_SENDER);
    for (unsigned i = 0; i < SENDERS * PER_SENDER; i++)
        assert_int_equal(atomic_load(&m->seen[i]), 1);
    zc_receiver_drop(m->rx);
    free(m);
}


/* ---- Select ----------------------------------------------------------------------- */

static void test_a_select_receive_case_takes_a_waiting_offer(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cs, csel;
    counting_waker_init(&cs);
    counting_waker_init(&csel);
    zc_waker ws = counting_waker_of(&cs), wsel = counting_waker_of(&csel);
    uint64_t v = 21, out = 0;
    zc_send f;
    zc_send_init(&f, tx, &v);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_PENDING);
    zc_select_case c[1];
    zc_select sel;
    zc_select_recv_case(&c[0], rx, &out);
    zc_select_init(&sel, c, 1, 0);
    size_t i = 9;
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_OK);
    assert_int_equal(i, 0);
    assert_int_equal(out, 21);
    assert_int_equal(counting_waker_count(&cs), 1);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_OK);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_waiting_select_is_completed_by_a_peer_once(void **state) {
    (void)state;
    zc_sender *tx1, *tx2;
    zc_receiver *rx1, *rx2;
    make(&tx1, &rx1);
    make(&tx2, &rx2);
    counting_waker csel;
    counting_waker_init(&csel);
    zc_waker wsel = counting_waker_of(&csel);
    uint64_t o1 = 0, o2 = 0, v = 8;
    zc_select_case c[2];
    zc_select sel;
    zc_select_recv_case(&c[0], rx1, &o1);
    zc_select_recv_case(&c[1], rx2, &o2);
    zc_select_init(&sel, c, 2, 0);
    size_t i = 9;
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    assert_int_equal(zc_try_send(tx2, &v), ZC_OK); /* a place waits on each channel */
    assert_int_equal(counting_waker_count(&csel), 1);
    assert_int_equal(zc_try_send(tx1, &v), ZC_FULL); /* the select is taken: one case */
    assert_int_equal(zc_try_send(tx2, &v), ZC_FULL);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(o2, 8);
    assert_int_equal(o1, 0);
    assert_int_equal(zc_try_send(tx1, &v), ZC_FULL); /* no node left behind */
    /* A select's send case and a select's receive case meet. */
    zc_select_case d[1];
    zc_select other;
    zc_select_send_case(&d[0], tx1, &v);
    zc_select_init(&other, d, 1, 0);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    size_t j = 9;
    assert_int_equal(zc_select_poll(&other, &wsel, &j), ZC_OK);
    assert_int_equal(j, 0);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_OK);
    assert_int_equal(i, 0);
    assert_int_equal(o1, 8);
    zc_sender_drop(tx1);
    zc_receiver_drop(rx1);
    zc_sender_drop(tx2);
    zc_receiver_drop(rx2);
}

/* A peer passes over the node of a select another peer completed and takes the next. */
static void test_a_completed_selects_node_is_passed_over(void **state) {
    (void)state;
    zc_sender *txa, *txb;
    zc_receiver *rxa, *rxb;
    make(&txa, &rxa);
    make(&txb, &rxb);
    counting_waker c1, c2;
    counting_waker_init(&c1);
    counting_waker_init(&c2);
    zc_waker w1 = counting_waker_of(&c1), w2 = counting_waker_of(&c2);
    uint64_t a1 = 0, b1 = 0, a2 = 0, v = 40;
    zc_select_case s1c[2], s2c[1];
    zc_select s1, s2;
    zc_select_recv_case(&s1c[0], rxa, &a1);
    zc_select_recv_case(&s1c[1], rxb, &b1);
    zc_select_recv_case(&s2c[0], rxa, &a2);
    zc_select_init(&s1, s1c, 2, ZC_SELECT_ORDERED);
    zc_select_init(&s2, s2c, 1, 0);
    size_t i = 9, j = 9;
    assert_int_equal(zc_select_poll(&s1, &w1, &i), ZC_PENDING);
    assert_int_equal(zc_select_poll(&s2, &w2, &j), ZC_PENDING);
    assert_int_equal(zc_try_send(txb, &v), ZC_OK); /* s1 is taken, its node on a stays */
    v = 41;
    assert_int_equal(zc_try_send(txa, &v), ZC_OK); /* to s2, behind it */
    assert_int_equal(zc_select_poll(&s1, &w1, &i), ZC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(b1, 40);
    assert_int_equal(a1, 0);
    assert_int_equal(zc_select_poll(&s2, &w2, &j), ZC_OK);
    assert_int_equal(j, 0);
    assert_int_equal(a2, 41);
    zc_sender_drop(txa);
    zc_receiver_drop(rxa);
    zc_sender_drop(txb);
    zc_receiver_drop(rxb);
}

static void test_a_select_offer_wakes_a_receive_future(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cr, csel;
    counting_waker_init(&cr);
    counting_waker_init(&csel);
    zc_waker wr = counting_waker_of(&cr), wsel = counting_waker_of(&csel);
    uint64_t v = 13, out = 0;
    zc_recv r;
    zc_recv_init(&r, rx);
    assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_PENDING);
    zc_select_case c[1];
    zc_select sel;
    zc_select_send_case(&c[0], tx, &v);
    zc_select_init(&sel, c, 1, 0);
    size_t i = 9;
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    assert_int_equal(counting_waker_count(&cr), 1);
    assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_OK);
    assert_int_equal(out, 13);
    assert_int_equal(counting_waker_count(&csel), 1);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_OK);
    assert_int_equal(i, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A rendezvous channel and a bounded(1) one, for selects that mix the two flavours. */
static void make_mixed(zc_sender **tx, zc_receiver **rx, zc_sender **btx,
                       zc_receiver **brx) {
    make(tx, rx);
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    assert_int_equal(zc_bounded(1, &cfg, btx, brx), ZC_OK);
}

static void drop_mixed(zc_sender *tx, zc_receiver *rx, zc_sender *btx, zc_receiver *brx) {
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_sender_drop(btx);
    zc_receiver_drop(brx);
}

static void test_a_ready_select_refuses_a_rendezvous_case_until_it_is_disabled(void **state) {
    (void)state;
    zc_sender *tx, *btx;
    zc_receiver *rx, *brx;
    make_mixed(&tx, &rx, &btx, &brx);
    counting_waker csel;
    counting_waker_init(&csel);
    zc_waker wsel = counting_waker_of(&csel);
    uint64_t v = 5, out = 0, bout = 0;
    zc_select_case c[2];
    zc_select_recv_case(&c[0], brx, &bout);
    zc_select_recv_case(&c[1], rx, &out);
    zc_select sel;
    zc_select_init(&sel, c, 2, ZC_SELECT_READY | ZC_SELECT_ORDERED);
    size_t i = 9;
    /* The walk finds the buffered case empty, then meets the rendezvous case. */
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_EINVAL);
    assert_int_equal(i, 1);
    zc_select_disable(&sel, 1);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    assert_int_equal(i, 2);
    assert_int_equal(zc_try_send(btx, &v), ZC_OK);
    assert_int_equal(counting_waker_count(&csel), 1);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_OK);
    assert_int_equal(i, 0);
    assert_int_equal(bout, 0); /* a readiness select takes nothing */
    assert_int_equal(zc_try_recv(brx, &bout), ZC_OK);
    assert_int_equal(bout, 5);
    drop_mixed(tx, rx, btx, brx);
}

/* A new select chooses uniformly among its ready cases, whatever their channels'
 * flavours: here a buffered case holding a message and a rendezvous case with a sender
 * waiting, 4000 blocking selects (each a new select): each is chosen about 2000 times
 * (outside 1700-2300 with probability below 1e-40). */
static void test_a_new_select_chooses_fairly_between_buffered_and_rendezvous_cases(
    void **state) {
    (void)state;
    enum { ROUNDS = 4000 };
    zc_sender *tx, *btx;
    zc_receiver *rx, *brx;
    make_mixed(&tx, &rx, &btx, &brx);
    counting_waker cs;
    counting_waker_init(&cs);
    zc_waker ws = counting_waker_of(&cs);
    uint64_t one = 1, two = 2, bout = 0, out = 0;
    zc_send f;
    zc_send_init(&f, tx, &two);
    assert_int_equal(zc_send_poll(&f, &ws), ZC_PENDING); /* an offer: the case is ready */
    assert_int_equal(zc_try_send(btx, &one), ZC_OK);
    int chosen[2] = {0, 0};
    for (int r = 0; r < ROUNDS; r++) {
        zc_select_case c[2];
        zc_select_recv_case(&c[0], brx, &bout);
        zc_select_recv_case(&c[1], rx, &out);
        size_t i = 9;
        assert_int_equal(zc_select_blocking(c, 2, 0, &i), ZC_OK);
        assert_true(i < 2);
        chosen[i]++;
        if (i == 0) {
            assert_int_equal(zc_try_send(btx, &one), ZC_OK);
        } else {
            assert_int_equal(out, 2);
            assert_int_equal(zc_send_poll(&f, &ws), ZC_OK);
            zc_send_init(&f, tx, &two);
            assert_int_equal(zc_send_poll(&f, &ws), ZC_PENDING);
        }
    }
    assert_in_range(chosen[1], 1700, 2300);
    zc_send_cancel(&f);
    drop_mixed(tx, rx, btx, brx);
}

static void test_a_select_does_not_pair_with_itself(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker csel;
    counting_waker_init(&csel);
    zc_waker wsel = counting_waker_of(&csel);
    uint64_t v = 1, out = 0;
    zc_select_case c[2];
    zc_select sel;
    zc_select_send_case(&c[0], tx, &v);
    zc_select_recv_case(&c[1], rx, &out);
    zc_select_init(&sel, c, 2, 0);
    size_t i = 9;
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_PENDING);
    assert_int_equal(counting_waker_count(&csel), 0);
    zc_select_cancel(&sel);
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY); /* cancelled: no offer left */
    assert_int_equal(zc_try_send(tx, &v), ZC_FULL);
    /* Readiness-only select cannot wait on a rendezvous case (a peer would complete it). */
    zc_select_init(&sel, c, 2, ZC_SELECT_READY);
    assert_int_equal(zc_select_poll(&sel, &wsel, &i), ZC_EINVAL);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A select over one receive case of a new rendezvous channel, polled once: pending, for
 * a peer to complete. */
typedef struct one_select {
    zc_sender *tx;
    zc_receiver *rx;
    counting_waker cw;
    zc_waker w;
    uint64_t out;
    zc_select_case c[1];
    zc_select sel;
} one_select;

static void one_select_pending(one_select *o) {
    make(&o->tx, &o->rx);
    counting_waker_init(&o->cw);
    o->w = counting_waker_of(&o->cw);
    o->out = 0;
    zc_select_recv_case(&o->c[0], o->rx, &o->out);
    zc_select_init(&o->sel, o->c, 1, 0);
    size_t i = 9;
    assert_int_equal(zc_select_poll(&o->sel, &o->w, &i), ZC_PENDING);
}

/* A peer completed the select's one rendezvous case; the owner then disables that case
 * (its input looked done) before polling: the next poll still reports the completion,
 * with the message in out, not ZC_CLOSED for a select with every case disabled. */
static void test_a_completion_by_a_peer_is_reported_after_its_case_is_disabled(
    void **state) {
    (void)state;
    one_select o;
    one_select_pending(&o);
    uint64_t v = 33;
    size_t i = 9;
    assert_int_equal(zc_try_send(o.tx, &v), ZC_OK); /* the peer completes case 0 */
    assert_int_equal(counting_waker_count(&o.cw), 1);
    zc_select_disable(&o.sel, 0);
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_OK);
    assert_int_equal(i, 0);
    assert_int_equal(o.out, 33);
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_CLOSED); /* now: nothing left */
    assert_int_equal(i, 1);
    zc_sender_drop(o.tx);
    zc_receiver_drop(o.rx);
}

static void test_a_cancel_after_a_peer_completed_reports_it(void **state) {
    (void)state;
    one_select o;
    one_select_pending(&o);
    uint64_t v = 31;
    size_t i = 9;
    assert_int_equal(zc_try_send(o.tx, &v), ZC_OK);
    zc_select_cancel(&o.sel); /* too late: the message is in out */
    assert_int_equal(o.out, 31);
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_OK);
    assert_int_equal(i, 0);
    /* Nothing is left registered: the next selection waits again. */
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_PENDING);
    zc_select_cancel(&o.sel);
    /* zc_select_abort tells a too-late cancel from one in time. */
    o.out = 0;
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_PENDING);
    v = 32;
    assert_int_equal(zc_try_send(o.tx, &v), ZC_OK);
    i = 9;
    assert_false(zc_select_abort(&o.sel, &i));
    assert_int_equal(i, 0);
    assert_int_equal(o.out, 32);
    assert_int_equal(zc_select_poll(&o.sel, &o.w, &i), ZC_PENDING); /* over: selects anew */
    assert_true(zc_select_abort(&o.sel, &i));
    assert_int_equal(zc_try_send(o.tx, &v), ZC_FULL);
    assert_true(zc_select_abort(NULL, NULL));
    /* Timed out with nobody there: nothing sent. */
    zc_select_send_case(&o.c[0], o.tx, &v);
    assert_int_equal(zc_select_timeout(o.c, 1, 0, 1000000, &i), ZC_TIMEDOUT);
    assert_int_equal(i, 1);
    assert_int_equal(zc_try_recv(o.rx, &o.out), ZC_EMPTY);
    zc_sender_drop(o.tx);
    zc_receiver_drop(o.rx);
}

/* A select mid-poll (BUSY) is passed over by every peer; one that registers pokes it,
 * so that it walks its cases again and finds the peer; a try, which does not register,
 * leaves it alone (a poke would only send it round again for nothing). */
static void test_only_a_peer_that_waits_pokes_a_busy_select(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    counting_waker cs, cr;
    counting_waker_init(&cs);
    counting_waker_init(&cr);
    zc_waker ws = counting_waker_of(&cs), wr = counting_waker_of(&cr);
    uint64_t v = 70, out = 0;
    zc_select_case c[1];
    zc_select sel;
    zc_select_send_case(&c[0], tx, &v);
    zc_select_init(&sel, c, 1, 0);
    size_t i = 9, claimed = 9;
    assert_int_equal(zc_select_poll(&sel, &ws, &i), ZC_PENDING); /* an offer, FREE */
    assert_true(zc__rv_select_enter(&sel, true, &claimed));       /* as its poll: BUSY */
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);            /* passed over */
    assert_true(zc__rv_select_wait(&sel));                        /* not poked: FREE */
    assert_true(zc__rv_select_enter(&sel, true, &claimed));
    zc_recv r;
    zc_recv_init(&r, rx);
    assert_int_equal(zc_recv_poll(&r, &wr, &out), ZC_PENDING); /* passed over, waits */
    assert_false(zc__rv_select_wait(&sel)); /* poked: walk again (still BUSY) */
    zc__rv_select_leave(&sel);
    zc_select_cancel(&sel);
    zc_recv_cancel(&r);
    assert_int_equal(counting_waker_count(&cs), 0);
    assert_int_equal(out, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A select with a disabled case, walked again after a poke: the disabled case is passed
 * by (a peer that waits keeps poking the sender's select while it polls). */
typedef struct disabled_run {
    zc_receiver *rx;
    atomic_uint got;
    atomic_bool stop;
} disabled_run;

static void *disabled_peer(void *arg) {
    disabled_run *d = arg;
    uint64_t v;
    for (unsigned k = 0; !atomic_load(&d->stop); k++) {
        zc_status s = k % 2 ? zc_recv_timeout(d->rx, &v, 20000) : zc_try_recv(d->rx, &v);
        if (s == ZC_OK) atomic_fetch_add(&d->got, 1);
    }
    return NULL;
}

static void test_a_select_walked_again_passes_its_disabled_cases_by(void **state) {
    (void)state;
    zc_sender *tx;
    disabled_run d = {0};
    make(&tx, &d.rx);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, disabled_peer, &d), 0);
    unsigned sent = 0;
    for (unsigned k = 0; k < 20000; k++) {
        uint64_t v = k;
        zc_select_case c[2];
        zc_select_send_case(&c[0], tx, &v);
        zc_select_recv_case(&c[1], NULL, NULL); /* disabled: a nil channel */
        size_t i = 9;
        zc_status s = zc_select_timeout(c, 2, 0, k % 3 * 20000, &i);
        if (s == ZC_OK) {
            assert_int_equal(i, 0);
            sent++;
        } else {
            assert_int_equal(s, ZC_TIMEDOUT);
        }
    }
    atomic_store(&d.stop, true);
    pthread_join(t, NULL);
    assert_int_equal(atomic_load(&d.got), sent); /* each one sent was received, once */
    zc_sender_drop(tx);
    zc_receiver_drop(d.rx);
}

typedef struct crossing {
    zc_sender *tx[2];
    zc_receiver *rx[2];
    int rounds;
    int met[2]; /* by the second thread: rounds met on channel 0 and on channel 1 */
    uint64_t sum;
} crossing;

/* Selects, each round, on sending through channel `first` and receiving from the other. */
static void cross(crossing *x, int first, int *met, uint64_t *sum) {
    for (int r = 0; r < x->rounds; r++) {
        uint64_t v = (uint64_t)r, out = 0;
        zc_select_case c[2];
        zc_select_send_case(&c[0], x->tx[first], &v);
        zc_select_recv_case(&c[1], x->rx[1 - first], &out);
        size_t i = 9;
        if (zc_select_blocking(c, 2, 0, &i) != ZC_OK || i > 1) abort();
        if (met) met[i == 0 ? first : 1 - first]++;
        if (i == 1) {
            if (out != (uint64_t)r) abort(); /* the partner is in the same round */
            *sum += out;
        }
    }
}

static void *cross_thread(void *arg) {
    crossing *x = arg;
    uint64_t sum = 0;
    cross(x, 1, x->met, &sum);
    return NULL;
}

static void test_two_threads_selecting_on_each_other_meet(void **state) {
    (void)state;
    crossing x = {.rounds = 3000};
    make(&x.tx[0], &x.rx[0]);
    make(&x.tx[1], &x.rx[1]);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, cross_thread, &x), 0);
    int met[2] = {0, 0};
    cross(&x, 0, met, &x.sum);
    pthread_join(t, NULL);
    /* Each round met on one channel, the same one seen from both sides. */
    assert_int_equal(met[0] + met[1], x.rounds);
    assert_int_equal(met[0], x.met[0]);
    assert_int_equal(met[1], x.met[1]);
    for (int k = 0; k < 2; k++) {
        zc_sender_drop(x.tx[k]);
        zc_receiver_drop(x.rx[k]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments_and_info),
        cmocka_unit_test(test_try_operations_need_a_waiting_partner),
        cmocka_unit_test(test_a_send_future_is_an_offer_a_receiver_completes),
        cmocka_unit_test(test_a_receive_future_is_woken_by_an_offer_and_takes_it),
        cmocka_unit_test(test_a_try_send_leaves_its_message_for_a_receive_future),
        cmocka_unit_test(test_a_handed_message_is_received_after_close),
        cmocka_unit_test(test_cancels_inside_pass_on_wakes_do_not_nest),
        cmocka_unit_test(test_a_message_held_during_the_last_drop_goes_to_drop_msg),
        cmocka_unit_test(test_a_cancelled_send_sent_nothing),
        cmocka_unit_test(test_a_send_taken_before_its_cancel_stays_complete),
        cmocka_unit_test(test_a_cancelled_receiver_passes_its_wake_up_on),
        cmocka_unit_test(test_close_wakes_every_waiting_party),
        cmocka_unit_test(test_calls_that_need_slots_say_einval),
        cmocka_unit_test(test_timeouts_send_and_take_nothing),
        cmocka_unit_test(test_a_synchronous_ping_pong),
        cmocka_unit_test(test_a_try_send_fills_a_blocked_receiver),
        cmocka_unit_test(test_many_senders_to_many_receivers_exactly_once),
        cmocka_unit_test(test_a_select_receive_case_takes_a_waiting_offer),
        cmocka_unit_test(test_a_waiting_select_is_completed_by_a_peer_once),
        cmocka_unit_test(test_a_completed_selects_node_is_passed_over),
        cmocka_unit_test(test_a_select_offer_wakes_a_receive_future),
        cmocka_unit_test(test_a_ready_select_refuses_a_rendezvous_case_until_it_is_disabled),
        cmocka_unit_test(test_a_new_select_chooses_fairly_between_buffered_and_rendezvous_cases),
        cmocka_unit_test(test_a_select_does_not_pair_with_itself),
        cmocka_unit_test(test_a_completion_by_a_peer_is_reported_after_its_case_is_disabled),
        cmocka_unit_test(test_a_cancel_after_a_peer_completed_reports_it),
        cmocka_unit_test(test_two_threads_selecting_on_each_other_meet),
        cmocka_unit_test(test_only_a_peer_that_waits_pokes_a_busy_select),
        cmocka_unit_test(test_a_select_walked_again_passes_its_disabled_cases_by),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

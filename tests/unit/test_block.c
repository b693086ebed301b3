/*
 * Unit tests of the blocking layer (zc_*_blocking, zc_*_timeout, zc_*_until in
 * zchan/block.h).
 *
 * When a test needs a thread to be blocked before it acts (close, send), it waits until
 * that thread is asleep in the kernel, read from /proc/self/task/<tid>/stat, instead of
 * sleeping: the blocked thread does nothing that could sleep between publishing its tid
 * and its blocking call. cmocka asserts run on the main thread only; helper threads
 * report through their struct.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* clock_gettime, syscall under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <zchan/block.h>
#include <zchan/permit.h>

#include "mono_clock.h"

#define MS 1000000u /* nanoseconds */

static void make_bounded(size_t cap, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    assert_int_equal(zc_bounded(cap, &cfg, tx, rx), ZC_OK);
}

static void make_unbounded(zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    assert_int_equal(zc_unbounded(&cfg, tx, rx), ZC_OK);
}

/* ---- a thread that makes one blocking call, and a way to know it is blocked -------- */

typedef enum call {
    SEND_BLOCKING,
    RECV_BLOCKING,
    RECV_TIMEOUT_60S,
    SEND_TIMEOUT_1S,
    RECV_TIMEOUT_1S,
    RECV_UNTIL_NEVER
} call;

typedef struct blocked {
    pthread_t thread;
    call what;
    zc_sender *tx;
    zc_receiver *rx;
    uint64_t value; /* sent, or received */
    zc_status status;
    atomic_int tid; /* 0 until the thread is about to make its call */
} blocked;

static void *blocked_main(void *arg) {
    blocked *b = arg;
    /* Relaxed: the main thread uses tid only to read /proc; results are read after join. */
    atomic_store_explicit(&b->tid, (int)syscall(SYS_gettid), memory_order_relaxed);
    switch (b->what) {
    case SEND_BLOCKING: b->status = zc_send_blocking(b->tx, &b->value); break;
    case RECV_BLOCKING: b->status = zc_recv_blocking(b->rx, &b->value); break;
    case RECV_TIMEOUT_60S: b->status = zc_recv_timeout(b->rx, &b->value, 60000 * MS); break;
    case SEND_TIMEOUT_1S: b->status = zc_send_timeout(b->tx, &b->value, 1000 * MS); break;
    case RECV_TIMEOUT_1S: b->status = zc_recv_timeout(b->rx, &b->value, 1000 * MS); break;
    case RECV_UNTIL_NEVER: b->status = zc_recv_until(b->rx, &b->value, UINT64_MAX); break;
    }
    return NULL;
}

/* True when thread tid is asleep (state S). Linux; elsewhere it says yes at once, which
 * keeps the tests correct, only less sharp. */
static bool thread_asleep(int tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return true;
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *end_of_name = strrchr(buf, ')'); /* "pid (name) S ..." */
    return end_of_name != NULL && end_of_name[1] == ' ' && end_of_name[2] == 'S';
}

/* Start b's call on a new thread and return once that thread is blocked in it. */
static void start_blocked(blocked *b) {
    atomic_init(&b->tid, 0);
    b->status = ZC_PENDING;
    assert_int_equal(pthread_create(&b->thread, NULL, blocked_main, b), 0);
    int tid;
    while ((tid = atomic_load_explicit(&b->tid, memory_order_relaxed)) == 0) sched_yield();
    while (!thread_asleep(tid)) sched_yield();
}

/* ---- tests --------------------------------------------------------------------------- */

/* ---- a user's waker whose context begins with a parker ----------------------------- */

/* The waker's context: a parker first (same address as the struct), then what the wake
 * does after it has woken the parker. */
typedef struct parker_first {
    zc_parker parker;
    atomic_bool wake_over; /* the wake's last act */
} parker_first;

static void parker_first_wake(void *ctx) {
    parker_first *u = ctx;
    zc_waker pw = zc_parker_waker(&u->parker);
    pw.wake(pw.ctx);
    struct timespec still_inside = {0, 20 * (long)MS}; /* the wake goes on for 20 ms */
    nanosleep(&still_inside, NULL);
    /* Relaxed: the poll that returns after this wake is ordered after it by the
     * library's own handshake, which is what the test checks. */
    atomic_store_explicit(&u->wake_over, true, memory_order_relaxed);
}

typedef struct first_parker_recv {
    pthread_t thread;
    zc_receiver *rx;
    parker_first u;
    zc_status first, second;
    bool wake_over_at_return; /* wake_over, read as the second poll returned */
    atomic_int tid;
} first_parker_recv;

static void *first_parker_recv_main(void *arg) {
    first_parker_recv *r = arg;
    zc_recv f;
    zc_recv_init(&f, r->rx);
    zc_waker w = {parker_first_wake, &r->u};
    uint64_t out = 0;
    r->first = zc_recv_poll(&f, &w, &out);
    /* Relaxed: the main thread uses tid only to read /proc. */
    atomic_store_explicit(&r->tid, (int)syscall(SYS_gettid), memory_order_relaxed);
    zc_parker_park(&r->u.parker);
    r->second = zc_recv_poll(&f, &w, &out);
    r->wake_over_at_return = atomic_load_explicit(&r->u.wake_over, memory_order_relaxed);
    return NULL;
}

/* Waker rule 3 for a waker whose context starts with a parker and whose wake wakes that
 * parker, then goes on: the parker's early release of a wake belongs to the parker's
 * own wake only, so the poll after it returns only once the user's wake has returned. */
static void test_a_wake_that_wakes_a_parker_first_is_over_before_the_poll_returns(
    void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    first_parker_recv r = {.rx = rx};
    zc_parker_init(&r.u.parker);
    atomic_init(&r.u.wake_over, false);
    atomic_init(&r.tid, 0);
    assert_int_equal(pthread_create(&r.thread, NULL, first_parker_recv_main, &r), 0);
    int tid;
    while ((tid = atomic_load_explicit(&r.tid, memory_order_relaxed)) == 0) sched_yield();
    while (!thread_asleep(tid)) sched_yield(); /* parked: the wake takes the sleeper's path */
    uint64_t v = 5;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK); /* runs parker_first_wake here */
    assert_int_equal(pthread_join(r.thread, NULL), 0);
    assert_int_equal(r.first, ZC_PENDING);
    assert_int_equal(r.second, ZC_OK);
    assert_true(r.wake_over_at_return);
    zc_parker_destroy(&r.u.parker);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

#define N_MESSAGES 20000

typedef struct producer {
    zc_sender *tx;
    uint64_t first, count;
    zc_status bad; /* ZC_OK, or the first status a send returned instead */
} producer;

static void *producer_main(void *arg) {
    producer *p = arg;
    p->bad = ZC_OK;
    for (uint64_t i = p->first; i < p->first + p->count; i++) {
        zc_status s = zc_send_blocking(p->tx, &i);
        if (s != ZC_OK && p->bad == ZC_OK) p->bad = s;
    }
    zc_sender_drop(p->tx);
    return NULL;
}

static void move_messages_in_order(zc_sender *tx, zc_receiver *rx) {
    producer p = {.tx = tx, .first = 0, .count = N_MESSAGES};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, producer_main, &p), 0);
    for (uint64_t i = 0; i < N_MESSAGES; i++) {
        uint64_t v = UINT64_MAX;
        assert_int_equal(zc_recv_blocking(rx, &v), ZC_OK);
        assert_int_equal(v, i);
    }
    uint64_t v = 0;
    assert_int_equal(zc_recv_blocking(rx, &v), ZC_CLOSED); /* the producer's drop closed it */
    pthread_join(thread, NULL);
    assert_int_equal(p.bad, ZC_OK);
    zc_receiver_drop(rx);
}

static void test_blocking_send_and_recv_move_messages_in_order_between_two_threads(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(2, &tx, &rx);
    move_messages_in_order(tx, rx);
}

static void test_blocking_recv_moves_messages_in_order_from_an_unbounded_channel(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_unbounded(&tx, &rx);
    move_messages_in_order(tx, rx);
}

/* Two blocking producers and two blocking consumers on a bounded(1) channel. */
#define MPMC_EACH 5000

typedef struct consumer {
    zc_receiver *rx;
    atomic_uchar *seen; /* seen[v]: times value v was received, over all consumers */
    uint64_t next[2];   /* per producer: the next sequence number expected */
    unsigned out_of_order;
    zc_status end;
} consumer;

static void *consumer_main(void *arg) {
    consumer *c = arg;
    uint64_t v;
    while ((c->end = zc_recv_blocking(c->rx, &v)) == ZC_OK) {
        /* Relaxed: a counter read after the threads are joined. */
        atomic_fetch_add_explicit(&c->seen[v], 1, memory_order_relaxed);
        uint64_t from = v / MPMC_EACH, seq = v % MPMC_EACH;
        if (seq < c->next[from]) c->out_of_order++;
        c->next[from] = seq + 1;
    }
    zc_receiver_drop(c->rx);
    return NULL;
}

static void test_blocking_senders_and_receivers_deliver_each_message_once_in_order(
    void **unused) {
    (void)unused;
    static atomic_uchar seen[2 * MPMC_EACH];
    for (size_t i = 0; i < 2 * MPMC_EACH; i++) atomic_init(&seen[i], 0);
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    producer p[2] = {{.tx = tx, .first = 0, .count = MPMC_EACH},
                     {.tx = zc_sender_clone(tx), .first = MPMC_EACH, .count = MPMC_EACH}};
    consumer c[2] = {{.rx = rx, .seen = seen}, {.rx = zc_receiver_clone(rx), .seen = seen}};
    pthread_t threads[4];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_create(&threads[i], NULL, producer_main, &p[i]), 0);
        assert_int_equal(pthread_create(&threads[2 + i], NULL, consumer_main, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(p[i].bad, ZC_OK);
        assert_int_equal(c[i].end, ZC_CLOSED);
        assert_int_equal(c[i].out_of_order, 0);
    }
    for (size_t i = 0; i < 2 * MPMC_EACH; i++) assert_int_equal(seen[i], 1);
}

static void test_recv_timeout_on_an_empty_channel_times_out_and_takes_nothing(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    uint64_t v = 99;
    uint64_t start = now_ns();
    assert_int_equal(zc_recv_timeout(rx, &v, 20 * MS), ZC_TIMEDOUT);
    assert_true(now_ns() - start >= 20 * MS);
    assert_int_equal(v, 99); /* out untouched */
    /* The cancelled receive is gone: a message sent now stays for the next receive. */
    uint64_t m = 7;
    assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
    assert_int_equal(v, 7);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_send_timeout_on_a_full_channel_times_out_and_sends_nothing(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t first = 1, second = 2, v = 0;
    assert_int_equal(zc_try_send(tx, &first), ZC_OK);
    uint64_t start = now_ns();
    assert_int_equal(zc_send_timeout(tx, &second, 20 * MS), ZC_TIMEDOUT);
    assert_true(now_ns() - start >= 20 * MS);
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
    assert_int_equal(v, 1);
    assert_int_equal(zc_try_recv(rx, &v), ZC_EMPTY); /* the timed-out 2 was not sent */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_close_from_another_thread_releases_a_blocked_recv_with_closed(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    blocked b = {.what = RECV_BLOCKING, .rx = rx, .value = 99};
    start_blocked(&b);
    assert_true(zc_sender_close(tx));
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_CLOSED);
    assert_int_equal(b.value, 99);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_close_from_another_thread_releases_a_blocked_send_with_closed(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t first = 1, v = 0;
    assert_int_equal(zc_try_send(tx, &first), ZC_OK);
    blocked b = {.what = SEND_BLOCKING, .tx = tx, .value = 2};
    start_blocked(&b);
    assert_true(zc_receiver_close(rx));
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_CLOSED);
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK); /* what was queued stays receivable */
    assert_int_equal(v, 1);
    assert_int_equal(zc_try_recv(rx, &v), ZC_CLOSED); /* and 2 was never sent */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_send_from_another_thread_releases_a_recv_timeout_before_its_timeout(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    blocked b = {.what = RECV_TIMEOUT_60S, .rx = rx, .value = 0};
    uint64_t start = now_ns();
    start_blocked(&b);
    uint64_t m = 5;
    assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    pthread_join(b.thread, NULL);
    assert_true(now_ns() - start < 60000 * MS);
    assert_int_equal(b.status, ZC_OK);
    assert_int_equal(b.value, 5);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- a blocked thread is not held up by woken futures left unpolled ---------------- */

/* Two futures of one side are woken and left unpolled (their executor is busy); a thread
 * blocked on the same side must still be woken for the third message or slot, not wait
 * for those futures (a new-user trial: with owed wakes capped at two holders, it sat
 * until its timeout). Its 1 s timeout turns a regression into ZC_TIMEDOUT. */

static void count_wake(void *ctx) {
    /* Relaxed: a count, read after the wakes' thread is joined. */
    atomic_fetch_add_explicit((atomic_int *)ctx, 1, memory_order_relaxed);
}

static void blocked_recv_is_woken_past_two_unpolled_receive_futures(bool bounded) {
    zc_sender *tx;
    zc_receiver *rx;
    if (bounded) make_bounded(4, &tx, &rx); else make_unbounded(&tx, &rx);
    atomic_int woken[2] = {0, 0};
    zc_recv f[2];
    uint64_t got[2];
    for (int i = 0; i < 2; i++) {
        zc_waker w = {count_wake, &woken[i]};
        zc_recv_init(&f[i], rx);
        assert_int_equal(zc_recv_poll(&f[i], &w, &got[i]), ZC_PENDING);
    }
    blocked b = {.what = RECV_TIMEOUT_1S, .rx = rx, .value = 0};
    start_blocked(&b);
    for (uint64_t m = 10; m < 13; m++) assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(atomic_load_explicit(&woken[i], memory_order_relaxed), 1);
        zc_recv_cancel(&f[i]);
    }
    /* Each message once: the thread's and the two left. */
    uint64_t seen = 1u << (b.value - 10), v;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
        seen |= 1u << (v - 10);
    }
    assert_int_equal(seen, 7);
    assert_int_equal(zc_try_recv(rx, &v), ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_blocked_recv_is_woken_past_two_unpolled_receive_futures_bounded(void **unused) {
    (void)unused;
    blocked_recv_is_woken_past_two_unpolled_receive_futures(true);
}

static void test_blocked_recv_is_woken_past_two_unpolled_receive_futures_unbounded(
    void **unused) {
    (void)unused;
    blocked_recv_is_woken_past_two_unpolled_receive_futures(false);
}

static void test_blocked_send_is_woken_past_two_unpolled_send_futures(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(3, &tx, &rx);
    for (uint64_t m = 0; m < 3; m++) assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    atomic_int woken[2] = {0, 0};
    zc_send f[2];
    uint64_t msg[2] = {3, 4};
    for (int i = 0; i < 2; i++) {
        zc_waker w = {count_wake, &woken[i]};
        zc_send_init(&f[i], tx, &msg[i]);
        assert_int_equal(zc_send_poll(&f[i], &w), ZC_PENDING);
    }
    blocked b = {.what = SEND_TIMEOUT_1S, .tx = tx, .value = 5};
    start_blocked(&b);
    uint64_t v;
    for (uint64_t m = 0; m < 3; m++) {
        assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
        assert_int_equal(v, m);
    }
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(atomic_load_explicit(&woken[i], memory_order_relaxed), 1);
        zc_send_cancel(&f[i]); /* its message stays ours */
    }
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
    assert_int_equal(v, 5);
    assert_int_equal(zc_try_recv(rx, &v), ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A permit held at the oldest place keeps two messages behind it from the receivers. A
 * receive future and then a thread wait; the future is woken by the commit (or release)
 * and left unpolled. The commit lets three messages through (the release two), so the
 * thread must be woken too, not left to the future's pass-on (with one wake a commit, the
 * thread would time out with three messages in the channel). */
static void blocked_recv_is_woken_for_what_a_permit_lets_through(bool commit) {
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    zc_permit p;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_OK);
    for (uint64_t m = 11; m < 13; m++) assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    atomic_int woken = 0;
    zc_waker w = {count_wake, &woken};
    zc_recv f;
    uint64_t got;
    zc_recv_init(&f, rx);
    assert_int_equal(zc_recv_poll(&f, &w, &got), ZC_PENDING);
    blocked b = {.what = RECV_TIMEOUT_1S, .rx = rx, .value = 0};
    start_blocked(&b);
    uint64_t first = 10;
    assert_int_equal(commit ? zc_permit_commit(&p, &first) : zc_permit_release(&p), ZC_OK);
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_OK);
    assert_int_equal(atomic_load_explicit(&woken, memory_order_relaxed), 1);
    zc_recv_cancel(&f);
    /* Each message once: the thread's and the rest. */
    uint64_t seen = 1u << (b.value - 10), v;
    while (zc_try_recv(rx, &v) == ZC_OK) seen |= 1u << (v - 10);
    assert_int_equal(seen, commit ? 7 : 6);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_blocked_recv_is_woken_for_what_a_permit_commit_lets_through(void **unused) {
    (void)unused;
    blocked_recv_is_woken_for_what_a_permit_lets_through(true);
}

static void test_blocked_recv_is_woken_for_what_a_permit_release_lets_through(void **unused) {
    (void)unused;
    blocked_recv_is_woken_for_what_a_permit_lets_through(false);
}

static void test_timeout_zero_makes_one_attempt_that_succeeds_when_possible(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t m = 3, v = 0;
    assert_int_equal(zc_send_timeout(tx, &m, 0), ZC_OK);
    m = 4;
    assert_int_equal(zc_send_timeout(tx, &m, 0), ZC_TIMEDOUT); /* full */
    assert_int_equal(zc_recv_timeout(rx, &v, 0), ZC_OK);
    assert_int_equal(v, 3);
    assert_int_equal(zc_recv_timeout(rx, &v, 0), ZC_TIMEDOUT); /* empty: 4 was not sent */
    assert_int_equal(v, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_blocking_recv_drains_a_closed_channel_before_reporting_closed(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    uint64_t m[2] = {1, 2}, v = 0;
    assert_int_equal(zc_send_blocking(tx, &m[0]), ZC_OK);
    assert_int_equal(zc_send_blocking(tx, &m[1]), ZC_OK);
    assert_true(zc_sender_close(tx));
    assert_int_equal(zc_send_blocking(tx, &m[0]), ZC_CLOSED);
    assert_int_equal(zc_send_timeout(tx, &m[0], 0), ZC_CLOSED);
    assert_int_equal(zc_recv_blocking(rx, &v), ZC_OK);
    assert_int_equal(v, 1);
    assert_int_equal(zc_recv_timeout(rx, &v, UINT64_MAX), ZC_OK);
    assert_int_equal(v, 2);
    assert_int_equal(zc_recv_blocking(rx, &v), ZC_CLOSED);
    assert_int_equal(zc_recv_timeout(rx, &v, 0), ZC_CLOSED);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_null_arguments_give_einval(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t v = 0;
    const uint64_t timeouts[] = {0, 1 * MS, UINT64_MAX};
    assert_int_equal(zc_send_blocking(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_send_blocking(tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_recv_blocking(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_recv_blocking(rx, NULL), ZC_EINVAL);
    for (size_t i = 0; i < sizeof timeouts / sizeof timeouts[0]; i++) {
        assert_int_equal(zc_send_timeout(NULL, &v, timeouts[i]), ZC_EINVAL);
        assert_int_equal(zc_send_timeout(tx, NULL, timeouts[i]), ZC_EINVAL);
        assert_int_equal(zc_recv_timeout(NULL, &v, timeouts[i]), ZC_EINVAL);
        assert_int_equal(zc_recv_timeout(rx, NULL, timeouts[i]), ZC_EINVAL);
    }
    assert_int_equal(zc_try_recv(rx, &v), ZC_EMPTY); /* nothing was sent */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- absolute deadlines (the *_until forms) ------------------------------------------ */

static void test_a_past_deadline_makes_one_attempt_that_succeeds_when_possible(
    void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t past[] = {0, 1, now_ns() - 1};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        uint64_t m = 10 + i, v = 0;
        assert_int_equal(zc_send_until(tx, &m, past[i]), ZC_OK);
        uint64_t other = 99;
        assert_int_equal(zc_send_until(tx, &other, past[i]), ZC_TIMEDOUT); /* full */
        assert_int_equal(zc_recv_until(rx, &v, past[i]), ZC_OK);
        assert_int_equal(v, 10 + i);
        v = 0;
        assert_int_equal(zc_recv_until(rx, &v, past[i]), ZC_TIMEDOUT); /* 99 was not sent */
        assert_int_equal(v, 0);
    }
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_near_deadline_times_out_once_it_has_passed(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t m = 1, v = 0;
    assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    uint64_t deadline = now_ns() + 20 * MS;
    m = 2;
    assert_int_equal(zc_send_until(tx, &m, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    assert_int_equal(zc_try_recv(rx, &v), ZC_OK);
    assert_int_equal(v, 1);
    deadline = now_ns() + 20 * MS;
    assert_int_equal(zc_recv_until(rx, &v, deadline), ZC_TIMEDOUT); /* 2 was not sent */
    assert_true(now_ns() >= deadline);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_recv_until_no_deadline_waits_until_a_message_comes(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(4, &tx, &rx);
    blocked b = {.what = RECV_UNTIL_NEVER, .rx = rx, .value = 0};
    start_blocked(&b); /* asleep in zc_recv_until */
    uint64_t m = 8;
    assert_int_equal(zc_try_send(tx, &m), ZC_OK);
    pthread_join(b.thread, NULL);
    assert_int_equal(b.status, ZC_OK);
    assert_int_equal(b.value, 8);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_loop_of_calls_sharing_one_deadline_ends_at_that_deadline(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_unbounded(&tx, &rx);
    for (uint64_t i = 0; i < 3; i++) assert_int_equal(zc_send_until(tx, &i, UINT64_MAX), ZC_OK);
    uint64_t deadline = now_ns() + 30 * MS;
    uint64_t v = 0, got = 0;
    zc_status s;
    while ((s = zc_recv_until(rx, &v, deadline)) == ZC_OK) {
        assert_int_equal(v, got);
        got++;
    }
    assert_int_equal(s, ZC_TIMEDOUT);
    assert_int_equal(got, 3);
    assert_true(now_ns() >= deadline);
    /* The same deadline, now past, still lets a call take what is there at once. */
    uint64_t m = 3;
    assert_int_equal(zc_send_until(tx, &m, deadline), ZC_OK);
    assert_int_equal(zc_recv_until(rx, &v, deadline), ZC_OK);
    assert_int_equal(v, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_parker_park_until_takes_a_permit_or_times_out_at_the_deadline(
    void **unused) {
    (void)unused;
    zc_parker p;
    zc_parker_init(&p);
    zc_waker w = zc_parker_waker(&p);
    assert_int_equal(zc_parker_park_until(&p, 0), ZC_TIMEDOUT); /* no permit, past */
    w.wake(w.ctx);
    assert_int_equal(zc_parker_park_until(&p, 0), ZC_OK); /* past: still takes the permit */
    uint64_t deadline = now_ns() + 20 * MS;
    assert_int_equal(zc_parker_park_until(&p, deadline), ZC_TIMEDOUT);
    assert_true(now_ns() >= deadline);
    w.wake(w.ctx);
    assert_int_equal(zc_parker_park_until(&p, UINT64_MAX), ZC_OK);
    assert_int_equal(zc_parker_park_until(NULL, UINT64_MAX), ZC_EINVAL);
    zc_parker_destroy(&p);
}

static void test_until_forms_give_einval_for_null_arguments(void **unused) {
    (void)unused;
    zc_sender *tx;
    zc_receiver *rx;
    make_bounded(1, &tx, &rx);
    uint64_t v = 0;
    const uint64_t deadlines[] = {0, now_ns() + 1 * MS, UINT64_MAX};
    for (size_t i = 0; i < sizeof deadlines / sizeof deadlines[0]; i++) {
        assert_int_equal(zc_send_until(NULL, &v, deadlines[i]), ZC_EINVAL);
        assert_int_equal(zc_send_until(tx, NULL, deadlines[i]), ZC_EINVAL);
        assert_int_equal(zc_recv_until(NULL, &v, deadlines[i]), ZC_EINVAL);
        assert_int_equal(zc_recv_until(rx, NULL, deadlines[i]), ZC_EINVAL);
    }
    assert_int_equal(zc_try_recv(rx, &v), ZC_EMPTY); /* nothing was sent */
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocking_send_and_recv_move_messages_in_order_between_two_threads),
        cmocka_unit_test(test_blocking_recv_moves_messages_in_order_from_an_unbounded_channel),
        cmocka_unit_test(test_blocking_senders_and_receivers_deliver_each_message_once_in_order),
        cmocka_unit_test(test_recv_timeout_on_an_empty_channel_times_out_and_takes_nothing),
        cmocka_unit_test(test_send_timeout_on_a_full_channel_times_out_and_sends_nothing),
        cmocka_unit_test(test_close_from_another_thread_releases_a_blocked_recv_with_closed),
        cmocka_unit_test(test_close_from_another_thread_releases_a_blocked_send_with_closed),
        cmocka_unit_test(test_send_from_another_thread_releases_a_recv_timeout_before_its_timeout),
        cmocka_unit_test(test_timeout_zero_makes_one_attempt_that_succeeds_when_possible),
        cmocka_unit_test(test_blocking_recv_drains_a_closed_channel_before_reporting_closed),
        cmocka_unit_test(test_null_arguments_give_einval),
        cmocka_unit_test(test_blocked_recv_is_woken_past_two_unpolled_receive_futures_bounded),
        cmocka_unit_test(test_blocked_recv_is_woken_past_two_unpolled_receive_futures_unbounded),
        cmocka_unit_test(test_blocked_send_is_woken_past_two_unpolled_send_futures),
        cmocka_unit_test(test_blocked_recv_is_woken_for_what_a_permit_commit_lets_through),
        cmocka_unit_test(test_blocked_recv_is_woken_for_what_a_permit_release_lets_through),
        cmocka_unit_test(test_a_past_deadline_makes_one_attempt_that_succeeds_when_possible),
        cmocka_unit_test(test_a_near_deadline_times_out_once_it_has_passed),
        cmocka_unit_test(test_recv_until_no_deadline_waits_until_a_message_comes),
        cmocka_unit_test(test_a_loop_of_calls_sharing_one_deadline_ends_at_that_deadline),
        cmocka_unit_test(test_parker_park_until_takes_a_permit_or_times_out_at_the_deadline),
        cmocka_unit_test(test_until_forms_give_einval_for_null_arguments),
        cmocka_unit_test(test_a_wake_that_wakes_a_parker_first_is_over_before_the_poll_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Rows of zchan's batch, select and broadcast operations (zchan only; no peer has all
 * three): b1-batch32, s1-select2, bc1-4rx. See bench/README.md for what each measures;
 * main.c times and prints them like the other rows. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/config.h>
#include <zchan/mpmc.h>
#include <zchan/select.h>
#if defined(ZCHAN_HAS_BROADCAST)
#include <zchan/broadcast.h>
#endif

uint64_t bench_zchan_many(long n, int total, int batch)
{
    enum { MAX_BATCH = 256 };
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    uint64_t v[MAX_BATCH], sum = 0;
    size_t k;
    if (batch > MAX_BATCH || total % batch || zc_bounded((size_t)total, &cfg, &tx, &rx) != ZC_OK)
        bench_fail("zchan", "batch row set-up");
    for (long b = 0; b < n; b++) {
        for (int first = 1; first <= total; first += batch) {
            for (int i = 0; i < batch; i++)
                v[i] = (uint64_t)(first + i);
            if (zc_try_send_many(tx, v, (size_t)batch, &k, 0) != ZC_OK)
                bench_fail("zchan", "zc_try_send_many");
        }
        for (int got = 0; got < total; got += batch) {
            if (zc_try_recv_many(rx, v, (size_t)batch, &k) != ZC_OK || k != (size_t)batch)
                bench_fail("zchan", "zc_try_recv_many");
            for (int i = 0; i < batch; i++)
                sum += v[i];
        }
    }
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return sum;
}

/* The threads of a row start together at a barrier with the main thread, so that their
 * creation stays out of the measured time; each reads the clock as it leaves the barrier
 * and as it finishes, and a run takes from the first start to the last finish (as in
 * threads.c: the main thread may run again only after the others are done). */
enum { FLOW_THREADS = 5 }; /* bc1: 4 receivers and a sender; s1: 2 senders and main */
typedef struct flow {
    pthread_barrier_t start;
    zc_sender *tx[2];
#if defined(ZCHAN_HAS_BROADCAST)
    zc_bcast_sender *btx;
    zc_bcast_receiver *brx[4];
#endif
    long per_sender;
    uint64_t sums[4];
    uint64_t start_ns[FLOW_THREADS], end_ns[FLOW_THREADS]; /* 0: not a timed thread */
} flow;

/* Wait at the barrier; returns the time the caller left it. */
static uint64_t flow_start(flow *fl)
{
    pthread_barrier_wait(&fl->start);
    return bench_now_ns();
}

/* From the first start to the last finish (read after the joins). */
static uint64_t flow_span(const flow *fl)
{
    bench_span s = BENCH_SPAN_INIT;
    for (int i = 0; i < FLOW_THREADS; i++)
        if (fl->end_ns[i])
            bench_span_add(&s, fl->start_ns[i], fl->end_ns[i]);
    return bench_span_ns(&s);
}

typedef struct arg {
    flow *fl;
    int i;
} arg;

static void create(pthread_t *t, void *(*fn)(void *), arg *a)
{
    if (pthread_create(t, NULL, fn, a) != 0)
        bench_fail("zchan", "pthread_create");
}

/* s1: sender i sends i*per+1 .. (i+1)*per to its own channel, then drops its sender. */
static void *select_sender(void *p)
{
    arg *a = p;
    uint64_t t0 = flow_start(a->fl);
    for (long j = 1; j <= a->fl->per_sender; j++) {
        uint64_t v = (uint64_t)(a->i * a->fl->per_sender + j);
        if (zc_send_blocking(a->fl->tx[a->i], &v) != ZC_OK)
            bench_fail("zchan", "select row send");
    }
    zc_sender_drop(a->fl->tx[a->i]);
    a->fl->end_ns[a->i] = bench_now_ns();
    a->fl->start_ns[a->i] = t0;
    return NULL;
}

uint64_t bench_zchan_select2(size_t cap, long per_sender)
{
    flow fl = {.per_sender = per_sender};
    zc_receiver *rx[2];
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    pthread_t t[2];
    arg a[2];
    pthread_barrier_init(&fl.start, NULL, 3);
    for (int i = 0; i < 2; i++) {
        if (zc_bounded(cap, &cfg, &fl.tx[i], &rx[i]) != ZC_OK)
            bench_fail("zchan", "select row set-up");
        a[i] = (arg){&fl, i};
        create(&t[i], select_sender, &a[i]);
    }
    uint64_t v[2], sum = 0;
    zc_select_case cases[2];
    zc_select s;
    for (int i = 0; i < 2; i++)
        zc_select_recv_case(&cases[i], rx[i], &v[i]);
    zc_select_init(&s, cases, 2, 0);
    zc_parker parker;
    zc_parker_init(&parker);
    zc_waker w = zc_parker_waker(&parker);
    fl.start_ns[2] = flow_start(&fl);
    for (;;) { /* one select future, polled in a loop (as a task would) */
        size_t index;
        zc_status st = zc_select_poll(&s, &w, &index);
        if (st == ZC_PENDING)
            zc_parker_park(&parker);
        else if (st == ZC_OK)
            sum += v[index];
        else if (st == ZC_CLOSED && index < 2)
            zc_select_disable(&s, index);
        else if (st == ZC_CLOSED)
            break; /* every case disabled */
        else
            bench_fail("zchan", "zc_select_poll");
    }
    fl.end_ns[2] = bench_now_ns();
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    uint64_t ns = flow_span(&fl);
    zc_parker_destroy(&parker);
    for (int i = 0; i < 2; i++)
        zc_receiver_drop(rx[i]);
    pthread_barrier_destroy(&fl.start);
    if (sum != bench_sum_to((uint64_t)(2 * per_sender)))
        bench_fail("zchan", "select row checksum");
    return ns;
}

#if defined(ZCHAN_HAS_BROADCAST)
static void *bcast_sender(void *p)
{
    arg *a = p; /* a->i: its clock slot, after the receivers' */
    uint64_t t0 = flow_start(a->fl);
    for (long j = 1; j <= a->fl->per_sender; j++) {
        uint64_t v = (uint64_t)j;
        if (zc_bcast_send_blocking(a->fl->btx, &v) != ZC_OK)
            bench_fail("zchan", "broadcast row send");
    }
    zc_bcast_sender_drop(a->fl->btx);
    a->fl->end_ns[a->i] = bench_now_ns();
    a->fl->start_ns[a->i] = t0;
    return NULL;
}

static void *bcast_receiver(void *p)
{
    arg *a = p;
    uint64_t v, sum = 0;
    zc_status st;
    uint64_t t0 = flow_start(a->fl);
    while ((st = zc_bcast_recv_blocking(a->fl->brx[a->i], &v, NULL)) == ZC_OK)
        sum += v;
    a->fl->end_ns[a->i] = bench_now_ns();
    a->fl->start_ns[a->i] = t0;
    if (st != ZC_CLOSED)
        bench_fail("zchan", "broadcast row receive");
    a->fl->sums[a->i] = sum;
    return NULL;
}
#endif

uint64_t bench_zchan_bcast(size_t cap, int receivers, long per_sender)
{
#if defined(ZCHAN_HAS_BROADCAST)
    flow fl = {.per_sender = per_sender};
    zc_bcast_config cfg = {.elem_size = sizeof(uint64_t), .mode = ZC_BCAST_BACKPRESSURE};
    pthread_t t[5];
    arg a[5];
    if (receivers < 1 || receivers > 4 || zc_bcast_new(cap, &cfg, &fl.btx, &fl.brx[0]) != ZC_OK)
        bench_fail("zchan", "broadcast row set-up");
    for (int i = 1; i < receivers; i++)
        fl.brx[i] = zc_bcast_subscribe(fl.btx); /* all there before the first send */
    pthread_barrier_init(&fl.start, NULL, (unsigned)receivers + 2);
    for (int i = 0; i < receivers; i++) {
        a[i] = (arg){&fl, i};
        create(&t[i], bcast_receiver, &a[i]);
    }
    a[receivers] = (arg){&fl, receivers};
    create(&t[receivers], bcast_sender, &a[receivers]);
    pthread_barrier_wait(&fl.start); /* release them */
    for (int i = 0; i <= receivers; i++)
        pthread_join(t[i], NULL);
    uint64_t ns = flow_span(&fl);
    pthread_barrier_destroy(&fl.start);
    for (int i = 0; i < receivers; i++) {
        if (fl.sums[i] != bench_sum_to((uint64_t)per_sender))
            bench_fail("zchan", "broadcast row checksum");
        zc_bcast_receiver_drop(fl.brx[i]);
    }
    return ns;
#else
    (void)cap, (void)receivers, (void)per_sender;
    bench_fail("zchan", "broadcast row (built with ZCHAN_BROADCAST=OFF)");
#endif
}

/* zchan task rows (7-9, 13, 15, 17) on the example executor (examples/executor.h). Each
 * task drives its futures in a loop until one returns ZC_PENDING, as an async fn would. */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <zchan/mpmc.h>
#include <zchan/select.h>

#include "executor.h"

/* A measurement's span, as the thread rows and the Rust and Go peers time theirs: from
 * the first poll of any of its tasks to the end of the last one (not from the spawns,
 * which would add the pool's wake-up of its idle workers to this side only).
 * Every poll looks at first (a relaxed load of a line written once, shared by all the
 * workers' caches); the clock is read at a task's first poll and at each end. */
static struct {
    _Atomic uint64_t first, last;
} span;

static void span_reset(void)
{
    /* Relaxed: set before ex_spawn, whose run-queue lock publishes it to the workers. */
    atomic_store_explicit(&span.first, 0, memory_order_relaxed);
    atomic_store_explicit(&span.last, 0, memory_order_relaxed);
}

static inline void span_poll(void)
{
    /* Relaxed: only the first value matters; ex_run's return orders it before the read
     * in span_ns. */
    if (atomic_load_explicit(&span.first, memory_order_relaxed) == 0) {
        uint64_t none = 0;
        atomic_compare_exchange_strong_explicit(&span.first, &none, bench_now_ns(),
                                                memory_order_relaxed, memory_order_relaxed);
    }
}

/* ex_spawn_then's on_done for every task: the latest end wins (relaxed, as span_poll). */
static void span_done(ex_task *t)
{
    (void)t;
    uint64_t now = bench_now_ns();
    uint64_t last = atomic_load_explicit(&span.last, memory_order_relaxed);
    while (last < now && !atomic_compare_exchange_weak_explicit(
                             &span.last, &last, now, memory_order_relaxed, memory_order_relaxed))
        ;
}

/* The span after ex_run has returned (every task done). */
static uint64_t span_ns(void)
{
    return atomic_load_explicit(&span.last, memory_order_relaxed) -
           atomic_load_explicit(&span.first, memory_order_relaxed);
}

static void spawn(ex_executor *ex, ex_task *t, ex_poll_fn poll)
{
    ex_spawn_then(ex, t, poll, span_done);
}

/* Sends first .. last, then drops its sender handle (the last drop closes the channel). */
typedef struct send_task {
    ex_task base;
    zc_sender *tx;
    zc_send fut;
    bool in_flight; /* fut holds msg and is not complete */
    uint64_t msg, next, last;
} send_task;

static ex_result send_poll(ex_task *t, const zc_waker *w)
{
    span_poll();
    send_task *s = (send_task *)t;
    for (;;) {
        if (!s->in_flight) {
            if (s->next > s->last) {
                zc_sender_drop(s->tx);
                return EX_DONE;
            }
            s->msg = s->next++;
            zc_send_init(&s->fut, s->tx, &s->msg);
            s->in_flight = true;
        }
        zc_status st = zc_send_poll(&s->fut, w);
        if (st == ZC_PENDING)
            return EX_PENDING;
        if (st != ZC_OK)
            bench_fail("zchan", "task send");
        s->in_flight = false;
    }
}

/* Receives until the channel is closed and drained, then drops its receiver handle. */
typedef struct recv_task {
    ex_task base;
    zc_receiver *rx;
    zc_recv fut;
    uint64_t sum;
} recv_task;

static ex_result recv_poll(ex_task *t, const zc_waker *w)
{
    span_poll();
    recv_task *r = (recv_task *)t;
    uint64_t v;
    for (;;) {
        zc_status st = zc_recv_poll(&r->fut, w, &v);
        if (st == ZC_OK) {
            r->sum += v;
        } else if (st == ZC_PENDING) {
            return EX_PENDING;
        } else if (st == ZC_CLOSED) {
            zc_receiver_drop(r->rx);
            return EX_DONE;
        } else {
            bench_fail("zchan", "task recv");
        }
    }
}

static ex_executor *executor(unsigned workers)
{
    ex_executor *ex = ex_new(workers);
    if (!ex)
        bench_fail("zchan", "ex_new");
    return ex;
}

static void spawn_senders(ex_executor *ex, send_task *ts, int n, zc_sender *tx, long per)
{
    for (int i = 0; i < n; i++) {
        ts[i] = (send_task){.tx = zc_sender_clone(tx)};
        ts[i].next = (uint64_t)(i * per) + 1;
        ts[i].last = (uint64_t)((i + 1) * per);
        spawn(ex, &ts[i].base, send_poll);
    }
}

uint64_t bench_task_flow(unsigned workers, size_t cap, int senders, int receivers,
                         long per_sender)
{
    ex_executor *ex = executor(workers);
    send_task *ss = calloc((size_t)senders, sizeof *ss);
    recv_task *rs = calloc((size_t)receivers, sizeof *rs);
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    if (!ss || !rs || zc_bounded(cap, &cfg, &tx, &rx) != ZC_OK)
        bench_fail("zchan", "task flow setup");

    span_reset();
    for (int i = 0; i < receivers; i++) {
        rs[i] = (recv_task){.rx = zc_receiver_clone(rx)};
        zc_recv_init(&rs[i].fut, rs[i].rx);
        spawn(ex, &rs[i].base, recv_poll);
    }
    zc_receiver_drop(rx);
    spawn_senders(ex, ss, senders, tx, per_sender);
    zc_sender_drop(tx); /* now the last sender task's drop closes the channel */
    ex_run(ex);
    uint64_t ns = span_ns();

    uint64_t sum = 0;
    for (int i = 0; i < receivers; i++)
        sum += rs[i].sum;
    if (sum != bench_sum_to((uint64_t)(per_sender * senders)))
        bench_fail("zchan", "task flow checksum");
    ex_free(ex);
    free(rs);
    free(ss);
    return ns;
}

/* tasks_inline.c builds the task flow alone, with ZCHAN_INLINE. */
#ifndef BENCH_TASK_FLOW_ONLY

/* Row 13b's receiver: one receive future per channel, each with its own waker, and one
 * task that polls only the futures woken since its last turn (all of them at first),
 * draining each until it is pending, as Rust's select_all / FuturesUnordered do (and
 * as bench/rust's merge does): that merge by hand, against which row 13c measures
 * zc_select. */
typedef struct merge_task merge_task;

/* The waker context of future i: queued is true while i is on the woken list (or being
 * drained), so a burst of wakes lists it once. */
typedef struct merge_slot {
    merge_task *m;
    int index;
    atomic_bool queued;
} merge_slot;

struct merge_task {
    ex_task base;
    int n, open;
    zc_receiver **rx; /* NULL once that channel is closed and drained */
    zc_recv *futs; /* one receive future per channel */
    merge_slot *slots;
    pthread_mutex_t mu; /* guards woken and nwoken */
    int *woken, nwoken;
    int *turn; /* the indexes taken from woken for this turn */
    zc_waker task_waker; /* {ex_wake, &base}, the task's own waker */
    uint64_t sum;
};

static void merge_wake(void *ctx)
{
    merge_slot *s = ctx;
    /* acq_rel pairs with the clearing exchange in merge_poll: whichever runs second sees
     * what the other side did before it (the message published / the future drained). */
    if (atomic_exchange_explicit(&s->queued, true, memory_order_acq_rel))
        return;
    merge_task *m = s->m;
    pthread_mutex_lock(&m->mu);
    m->woken[m->nwoken++] = s->index;
    pthread_mutex_unlock(&m->mu);
    m->task_waker.wake(m->task_waker.ctx);
}

static ex_result merge_poll(ex_task *t, const zc_waker *w)
{
    span_poll();
    merge_task *m = (merge_task *)t;
    (void)w; /* the same as m->task_waker, set before the spawn */
    pthread_mutex_lock(&m->mu);
    int nturn = m->nwoken;
    int *turn = m->woken;
    m->woken = m->turn;
    m->turn = turn;
    m->nwoken = 0;
    pthread_mutex_unlock(&m->mu);

    for (int k = 0; k < nturn; k++) {
        int i = m->turn[k];
        merge_slot *s = &m->slots[i];
        atomic_exchange_explicit(&s->queued, false, memory_order_acq_rel);
        if (!m->rx[i])
            continue;
        const zc_waker own = {merge_wake, s};
        uint64_t v;
        zc_status st;
        while ((st = zc_recv_poll(&m->futs[i], &own, &v)) == ZC_OK)
            m->sum += v;
        if (st == ZC_CLOSED) {
            zc_receiver_drop(m->rx[i]);
            m->rx[i] = NULL;
            m->open--;
        } else if (st != ZC_PENDING) {
            bench_fail("zchan", "merged recv");
        }
    }
    /* A future woken during this turn is on the woken list and has woken this task. */
    return m->open == 0 ? EX_DONE : EX_PENDING;
}

/* Row 13c's receiver: one zc_select over the n receive cases (all writing to v), polled
 * in a loop; a case whose channel is closed and drained is disabled. */
typedef struct select_task {
    ex_task base;
    size_t n;
    zc_receiver **rx;
    zc_select sel;
    uint64_t v, sum;
} select_task;

static ex_result select_poll(ex_task *t, const zc_waker *w)
{
    span_poll();
    select_task *s = (select_task *)t;
    size_t i;
    for (;;) {
        zc_status st = zc_select_poll(&s->sel, w, &i);
        if (st == ZC_OK) {
            s->sum += s->v;
        } else if (st == ZC_PENDING) {
            return EX_PENDING;
        } else if (st == ZC_CLOSED && i == s->n) {
            return EX_DONE; /* every case disabled */
        } else if (st == ZC_CLOSED) {
            zc_select_disable(&s->sel, i);
            zc_receiver_drop(s->rx[i]);
        } else {
            bench_fail("zchan", "select");
        }
    }
}

/* The receiving side of row 13, one of three kinds, with what it needs. */
typedef struct many_rx {
    recv_task one;     /* MANY_CLONED */
    merge_task merge;  /* MANY_MERGED */
    select_task sel;   /* MANY_SELECT */
    zc_recv *futs;     /* merge: one receive future per channel */
    zc_select_case *cases;
} many_rx;

/* Set up and spawn the receiver task of kind over rxs[0..n-1] (rxs[0] only for
 * MANY_CLONED); returns where its checksum will be. */
static uint64_t *spawn_many_rx(ex_executor *ex, many_rx *r, many_kind kind, int n,
                               zc_receiver **rxs)
{
    switch (kind) {
    case MANY_CLONED:
        r->one = (recv_task){.rx = rxs[0]};
        zc_recv_init(&r->one.fut, rxs[0]);
        spawn(ex, &r->one.base, recv_poll);
        return &r->one.sum;
    case MANY_MERGED: {
        merge_task *m = &r->merge;
        *m = (merge_task){.n = n, .open = n, .rx = rxs, .nwoken = n};
        m->futs = r->futs = calloc((size_t)n, sizeof *r->futs);
        m->slots = calloc((size_t)n, sizeof *m->slots);
        m->woken = calloc((size_t)n, sizeof *m->woken);
        m->turn = calloc((size_t)n, sizeof *m->turn);
        if (!m->futs || !m->slots || !m->woken || !m->turn)
            bench_fail("zchan", "merge setup");
        pthread_mutex_init(&m->mu, NULL);
        m->task_waker = (zc_waker){ex_wake, &m->base};
        for (int i = 0; i < n; i++) {
            m->slots[i] = (merge_slot){.m = m, .index = i, .queued = true};
            m->woken[i] = i;
            zc_recv_init(&m->futs[i], rxs[i]);
        }
        spawn(ex, &m->base, merge_poll);
        return &m->sum;
    }
    case MANY_SELECT:
        r->sel = (select_task){.n = (size_t)n, .rx = rxs};
        r->cases = calloc((size_t)n, sizeof *r->cases);
        if (!r->cases)
            bench_fail("zchan", "select setup");
        for (int i = 0; i < n; i++)
            zc_select_recv_case(&r->cases[i], rxs[i], &r->sel.v);
        zc_select_init(&r->sel.sel, r->cases, (size_t)n, 0);
        spawn(ex, &r->sel.base, select_poll);
        return &r->sel.sum;
    }
    return NULL;
}

static void free_many_rx(many_rx *r, many_kind kind)
{
    if (kind == MANY_MERGED) {
        pthread_mutex_destroy(&r->merge.mu);
        free(r->merge.turn);
        free(r->merge.woken);
        free(r->merge.slots);
    }
    free(r->futs);
    free(r->cases);
}

uint64_t bench_task_many(unsigned workers, int n, many_kind kind, long per_task)
{
    ex_executor *ex = executor(workers);
    send_task *ss = calloc((size_t)n, sizeof *ss);
    zc_sender **txs = calloc((size_t)n, sizeof *txs);
    zc_receiver **rxs = calloc((size_t)n, sizeof *rxs);
    int chans = kind == MANY_CLONED ? 1 : n;
    size_t cap = 1024 / (size_t)chans;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    if (!ss || !txs || !rxs)
        bench_fail("zchan", "many setup");
    for (int i = 0; i < chans; i++)
        if (zc_bounded(cap, &cfg, &txs[i], &rxs[i]) != ZC_OK)
            bench_fail("zchan", "many zc_bounded");

    many_rx r = {0};
    span_reset();
    uint64_t *sum = spawn_many_rx(ex, &r, kind, n, rxs);
    for (int i = 0; i < n; i++)
        spawn_senders(ex, &ss[i], 1, txs[kind == MANY_CLONED ? 0 : i], per_task);
    for (int i = 0; i < chans; i++)
        zc_sender_drop(txs[i]);
    ex_run(ex);
    uint64_t ns = span_ns();

    /* spawn_senders numbered each task's messages from 1: n copies of 1..per_task. */
    if (*sum != (uint64_t)n * bench_sum_to((uint64_t)per_task))
        bench_fail("zchan", "many checksum");
    ex_free(ex);
    free_many_rx(&r, kind);
    free(rxs);
    free(txs);
    free(ss);
    return ns;
}

/* One side of a ping-pong: the pinger sends 1..rounds and checks each echo, the ponger
 * receives and echoes; each alternates a send future and a receive future. */
typedef struct pp_task {
    ex_task base;
    zc_sender *tx;
    zc_receiver *rx;
    zc_send sf;
    zc_recv rf;
    bool sending, pinger;
    uint64_t msg;
    long rounds, done;
} pp_task;

static ex_result pp_poll(ex_task *t, const zc_waker *w)
{
    span_poll();
    pp_task *p = (pp_task *)t;
    for (;;) {
        if (p->sending) {
            zc_status st = zc_send_poll(&p->sf, w);
            if (st == ZC_PENDING)
                return EX_PENDING;
            if (st != ZC_OK)
                bench_fail("zchan", "ping-pong send");
            p->sending = false;
            if (!p->pinger && ++p->done == p->rounds)
                return EX_DONE;
        } else {
            uint64_t v;
            zc_status st = zc_recv_poll(&p->rf, w, &v);
            if (st == ZC_PENDING)
                return EX_PENDING;
            if (st != ZC_OK || (p->pinger && v != p->msg))
                bench_fail("zchan", "ping-pong recv");
            if (p->pinger && ++p->done == p->rounds)
                return EX_DONE;
            p->msg = p->pinger ? v + 1 : v;
            zc_send_init(&p->sf, p->tx, &p->msg);
            p->sending = true;
        }
    }
}

/* One channel of a ping-pong: bounded(1) (row 15) or rendezvous (row 17). */
static zc_status pp_channel(bool rendezvous, zc_sender **tx, zc_receiver **rx)
{
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    return rendezvous ? zc_rendezvous(&cfg, tx, rx) : zc_bounded(1, &cfg, tx, rx);
}

uint64_t bench_task_pingpong(bool rendezvous, long n)
{
    ex_executor *ex = executor(2);
    zc_sender *ping_tx, *pong_tx;
    zc_receiver *ping_rx, *pong_rx;
    if (pp_channel(rendezvous, &ping_tx, &ping_rx) != ZC_OK ||
        pp_channel(rendezvous, &pong_tx, &pong_rx) != ZC_OK)
        bench_fail("zchan", "ping-pong setup");
    pp_task a = {.tx = ping_tx, .rx = pong_rx, .pinger = true, .sending = true, .msg = 1,
                 .rounds = n};
    pp_task b = {.tx = pong_tx, .rx = ping_rx, .rounds = n};
    zc_send_init(&a.sf, a.tx, &a.msg);
    zc_recv_init(&a.rf, a.rx);
    zc_recv_init(&b.rf, b.rx);

    span_reset();
    spawn(ex, &b.base, pp_poll);
    spawn(ex, &a.base, pp_poll);
    ex_run(ex);
    uint64_t ns = span_ns();

    ex_free(ex);
    zc_sender_drop(ping_tx);
    zc_sender_drop(pong_tx);
    zc_receiver_drop(ping_rx);
    zc_receiver_drop(pong_rx);
    return ns;
}

#endif /* BENCH_TASK_FLOW_ONLY */

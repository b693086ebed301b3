/* Thread rows over any implementation of the table: flows (rows 5-6, 10-12) and
 * ping-pong (rows 15 and 17). */
#define _GNU_SOURCE /* sched_getcpu, RUSAGE_THREAD */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

/* A start gate, as the Rust and Go peers' harnesses have (std::sync::Barrier; a closed
 * channel): the threads and the main thread meet at a barrier (a futex wait, not a spin:
 * there may be more threads than cores), so that thread creation stays out of the
 * measured time. Each thread reads the clock as it leaves the gate and as it finishes;
 * a run's time is from the first start to the last finish (flow_span). The main thread's
 * clock is not used: on 2 cores it may run again only after the workers are done, so a
 * clock read by it after the barrier could measure next to nothing. */
typedef struct gate {
    pthread_barrier_t barrier;
} gate;

static void gate_init(gate *g, int threads)
{
    if (pthread_barrier_init(&g->barrier, NULL, (unsigned)threads + 1) != 0)
        bench_fail("bench", "pthread_barrier_init");
}

/* Wait at the gate; returns the time the caller left it. */
static uint64_t gate_wait(gate *g)
{
    /* The barrier synchronises memory: the channel made before it is seen. */
    pthread_barrier_wait(&g->barrier);
    return bench_now_ns();
}

static void gate_destroy(gate *g) { pthread_barrier_destroy(&g->barrier); }

/* What the last sender sends to each receiver of a flow to stop it: not a message
 * (those are 1 .. total), and not 0, which GAsyncQueue cannot carry (NULL). */
#define END_MARK ((uint64_t)UINTPTR_MAX)

typedef struct worker {
    const bench_impl *impl;
    void *ch, *back; /* back: the second channel of a ping-pong */
    gate *g;
    atomic_int *senders_left; /* flows: senders still sending */
    int receivers;            /* flows: how many end marks the last sender sends */
    uint64_t first; /* a sender sends first .. first + count - 1 */
    long count;
    uint64_t sum; /* a receiver's checksum */
    uint64_t start_ns, end_ns; /* when it left the gate, when it finished */
    /* --placement only: CPU at the start and at the end, context switches (-1: not read) */
    int cpu_start, cpu_end;
    long switches_vol, switches_invol;
} worker;

static bool placement;

void bench_thread_placement(bool on) { placement = on; }

static int current_cpu(void)
{
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

/* After the gate: the CPU the worker starts on. */
static void placement_start(worker *w)
{
    if (placement)
        w->cpu_start = current_cpu();
}

/* After the worker's end_ns: its CPU and its context switches since it was created. */
static void placement_end(worker *w)
{
    if (!placement)
        return;
    w->cpu_end = current_cpu();
    w->switches_vol = w->switches_invol = -1;
#ifdef RUSAGE_THREAD
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        w->switches_vol = ru.ru_nvcsw;
        w->switches_invol = ru.ru_nivcsw;
    }
#endif
}

/* One line for a run: "placement: IMPL TOTAL ms | ROLE END_ms cpu A>B v N iv M | ...". */
static void placement_print(const bench_impl *impl, const worker *ws, int n, int senders,
                            uint64_t span_ns)
{
    if (!placement)
        return;
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < n; i++)
        if (ws[i].start_ns < first)
            first = ws[i].start_ns;
    fprintf(stderr, "placement: %s %.3f ms", impl->name, (double)span_ns / 1e6);
    for (int i = 0; i < n; i++)
        fprintf(stderr, " | %s %.3f cpu %d>%d v %ld iv %ld", i < senders ? "tx" : "rx",
                (double)(ws[i].end_ns - first) / 1e6, ws[i].cpu_start, ws[i].cpu_end,
                ws[i].switches_vol, ws[i].switches_invol);
    fputc('\n', stderr);
}

/* From the first worker's start to the last one's finish (read after the joins). */
static uint64_t flow_span(const worker *ws, int n)
{
    bench_span s = BENCH_SPAN_INIT;
    for (int i = 0; i < n; i++)
        bench_span_add(&s, ws[i].start_ns, ws[i].end_ns);
    return bench_span_ns(&s);
}

static void *sender_main(void *arg)
{
    worker *w = arg;
    w->start_ns = gate_wait(w->g);
    placement_start(w);
    for (long i = 0; i < w->count; i++)
        w->impl->send(w->ch, w->first + (uint64_t)i);
    /* The last sender to finish tells every receiver to stop, as closing the channel
     * does for the Rust and Go peers (the C rings have no close). Acq_rel: the last
     * decrement follows every sender's sends. */
    if (atomic_fetch_sub_explicit(w->senders_left, 1, memory_order_acq_rel) == 1)
        for (int i = 0; i < w->receivers; i++)
            w->impl->send(w->ch, END_MARK);
    w->end_ns = bench_now_ns();
    placement_end(w);
    return NULL;
}

static void *receiver_main(void *arg)
{
    worker *w = arg;
    w->start_ns = gate_wait(w->g);
    placement_start(w);
    uint64_t sum = 0;
    for (uint64_t v; (v = w->impl->recv(w->ch)) != END_MARK;)
        sum += v;
    w->end_ns = bench_now_ns();
    placement_end(w);
    w->sum = sum;
    return NULL;
}

uint64_t bench_thread_flow(const bench_impl *impl, size_t cap, int senders, int receivers,
                           long per_sender)
{
    int n = senders + receivers;
    long total = per_sender * senders;
    worker *ws = calloc((size_t)n, sizeof *ws);
    pthread_t *ts = calloc((size_t)n, sizeof *ts);
    void *ch = impl->make(cap);
    gate g;
    gate_init(&g, n);
    atomic_int senders_left = senders;
    if (!ws || !ts || !ch)
        bench_fail(impl->name, "setup");
    for (int i = 0; i < n; i++) {
        bool sends = i < senders;
        ws[i] = (worker){.impl = impl, .ch = ch, .g = &g, .senders_left = &senders_left,
                         .receivers = receivers};
        if (sends) { /* together 1 .. total; receivers take what comes */
            ws[i].first = (uint64_t)(i * per_sender) + 1;
            ws[i].count = per_sender;
        }
        if (pthread_create(&ts[i], NULL, sends ? sender_main : receiver_main, &ws[i]) != 0)
            bench_fail(impl->name, "pthread_create");
    }
    gate_wait(&g); /* release the workers */
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(ts[i], NULL);
        sum += ws[i].sum;
    }
    uint64_t ns = flow_span(ws, n);
    placement_print(impl, ws, n, senders, ns);
    gate_destroy(&g);
    if (sum != bench_sum_to((uint64_t)total))
        bench_fail(impl->name, "thread flow checksum");
    impl->destroy(ch);
    free(ts);
    free(ws);
    return ns;
}

/* The echoing side of a ping-pong: receive on ch, send the same value back on back. */
static void *pong_main(void *arg)
{
    worker *w = arg;
    w->start_ns = gate_wait(w->g);
    placement_start(w);
    for (long i = 0; i < w->count; i++)
        w->impl->send(w->back, w->impl->recv(w->ch));
    w->end_ns = bench_now_ns();
    placement_end(w);
    return NULL;
}

static void *ping_main(void *arg)
{
    worker *w = arg;
    w->start_ns = gate_wait(w->g);
    placement_start(w);
    /* A local sum: a store to w at every round trip would put a write to the line that
     * the other side's worker struct shares into the measurement. */
    uint64_t sum = 0;
    for (long i = 1; i <= w->count; i++) {
        w->impl->send(w->ch, (uint64_t)i);
        sum += w->impl->recv(w->back);
    }
    w->end_ns = bench_now_ns();
    placement_end(w);
    w->sum = sum;
    return NULL;
}

uint64_t bench_thread_pingpong(const bench_impl *impl, size_t cap, bool rendezvous, long n)
{
    void *ping = rendezvous ? impl->make_rendezvous() : impl->make(cap);
    void *pong = rendezvous ? impl->make_rendezvous() : impl->make(cap);
    gate g;
    gate_init(&g, 2);
    worker ws[2] = {{.impl = impl, .ch = ping, .back = pong, .g = &g, .count = n},
                    {.impl = impl, .ch = ping, .back = pong, .g = &g, .count = n}};
    pthread_t ts[2];
    if (!ping || !pong || pthread_create(&ts[0], NULL, ping_main, &ws[0]) != 0 ||
        pthread_create(&ts[1], NULL, pong_main, &ws[1]) != 0)
        bench_fail(impl->name, "ping-pong setup");
    gate_wait(&g); /* release the workers */
    pthread_join(ts[0], NULL);
    pthread_join(ts[1], NULL);
    uint64_t ns = flow_span(ws, 2);
    placement_print(impl, ws, 2, 1, ns);
    gate_destroy(&g);
    if (ws[0].sum != bench_sum_to((uint64_t)n))
        bench_fail(impl->name, "ping-pong checksum");
    impl->destroy(ping);
    impl->destroy(pong);
    return ns;
}

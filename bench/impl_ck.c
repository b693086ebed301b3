/* Concurrency Kit's ck_ring in MPMC mode: lock-free, cannot wait. A ring of 2^k slots
 * holds 2^k - 1 messages, so capacity cap runs on the smallest 2^k > cap. Full or empty,
 * the thread rows retry with bench_backoff (pause, then sched_yield). */
#include "bench.h"

#include <ck_ring.h>
#include <stdlib.h>

typedef struct ck_chan {
    ck_ring_t ring;
    ck_ring_buffer_t *buf;
} ck_chan;

static void *ckc_make(size_t cap)
{
    unsigned size = 2;
    while (size <= cap)
        size *= 2;
    ck_chan *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    c->buf = malloc(size * sizeof *c->buf);
    if (!c->buf) {
        free(c);
        return NULL;
    }
    ck_ring_init(&c->ring, size);
    return c;
}

static void ckc_destroy(void *ch)
{
    ck_chan *c = ch;
    free(c->buf);
    free(c);
}

static inline bool ckc_try_send(void *ch, uint64_t v)
{
    ck_chan *c = ch;
    return ck_ring_enqueue_mpmc(&c->ring, c->buf, (void *)(uintptr_t)v);
}

static inline bool ckc_try_recv(void *ch, uint64_t *v)
{
    ck_chan *c = ch;
    void *p;
    if (!ck_ring_dequeue_mpmc(&c->ring, c->buf, &p))
        return false;
    *v = (uintptr_t)p;
    return true;
}
BENCH_ST_LOOPS(ckc)

static void ckc_send(void *ch, uint64_t v)
{
    for (unsigned tries = 0; !ckc_try_send(ch, v);)
        bench_backoff(&tries);
}

static uint64_t ckc_recv(void *ch)
{
    uint64_t v;
    for (unsigned tries = 0; !ckc_try_recv(ch, &v);)
        bench_backoff(&tries);
    return v;
}

static const bench_impl impl = {
    .name = "ck_ring",
    .flags = IMPL_BOUNDED,
    .make = ckc_make,
    .destroy = ckc_destroy,
    .send = ckc_send,
    .recv = ckc_recv,
    .pairs = ckc_pairs,
    .batches = ckc_batches,
    .note = "ck_ring: MPMC, 2^k slots hold 2^k-1 (cap 16 runs with 31); cannot wait: spins "
            "then sched_yield",
};
const bench_impl *const bench_ck = &impl;

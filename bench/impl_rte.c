/* DPDK's rte_ring, multi-producer / multi-consumer (the default mode), built with
 * RING_F_EXACT_SZ so it holds exactly cap messages. No EAL initialisation: the ring
 * lives in malloc'd memory. Lock-free and cannot wait: the thread rows retry with
 * bench_backoff (pause, then sched_yield). */
#define _GNU_SOURCE /* DPDK's headers use ssize_t and other POSIX names */
#include "bench.h"

#include <rte_common.h>
#include <rte_ring.h>
#include <stdlib.h>

static void *rt_make(size_t cap)
{
    ssize_t size = rte_ring_get_memsize(rte_align32pow2((uint32_t)cap + 1));
    if (size < 0)
        return NULL;
    struct rte_ring *r = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)size);
    if (!r)
        return NULL;
    if (rte_ring_init(r, "bench", (unsigned)cap, RING_F_EXACT_SZ) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static void rt_destroy(void *ch) { free(ch); }

static inline bool rt_try_send(void *ch, uint64_t v)
{
    return rte_ring_mp_enqueue(ch, (void *)(uintptr_t)v) == 0;
}

static inline bool rt_try_recv(void *ch, uint64_t *v)
{
    void *p;
    if (rte_ring_mc_dequeue(ch, &p) != 0)
        return false;
    *v = (uintptr_t)p;
    return true;
}
BENCH_ST_LOOPS(rt)

static void rt_send(void *ch, uint64_t v)
{
    for (unsigned tries = 0; !rt_try_send(ch, v);)
        bench_backoff(&tries);
}

static uint64_t rt_recv(void *ch)
{
    uint64_t v;
    for (unsigned tries = 0; !rt_try_recv(ch, &v);)
        bench_backoff(&tries);
    return v;
}

static const bench_impl impl = {
    .name = "rte_ring",
    .flags = IMPL_BOUNDED,
    .make = rt_make,
    .destroy = rt_destroy,
    .send = rt_send,
    .recv = rt_recv,
    .pairs = rt_pairs,
    .batches = rt_batches,
    .note = "rte_ring: DPDK MP/MC, RING_F_EXACT_SZ (exact capacity); cannot wait: spins then "
            "sched_yield",
};
const bench_impl *const bench_rte = &impl;

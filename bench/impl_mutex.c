/* The hand-written mutex + condition variable channel in the implementation table. */
#include "bench.h"
#include "mutex_chan.h"

static void *mc_make(size_t cap) { return mutex_chan_new(cap); }
static void mc_destroy(void *ch) { mutex_chan_free(ch); }

static void mc_send(void *ch, uint64_t v)
{
    if (!mutex_chan_send(ch, v))
        bench_fail("mutex-condvar", "send");
}

static uint64_t mc_recv(void *ch) { return mutex_chan_recv(ch); }

static inline bool mc_try_send(void *ch, uint64_t v) { return mutex_chan_try_send(ch, v); }
static inline bool mc_try_recv(void *ch, uint64_t *v) { return mutex_chan_try_recv(ch, v); }
BENCH_ST_LOOPS(mc)

const bench_impl bench_mutex = {
    .name = "mutex-condvar",
    .flags = IMPL_BOUNDED | IMPL_UNBOUNDED,
    .make = mc_make,
    .destroy = mc_destroy,
    .send = mc_send,
    .recv = mc_recv,
    .pairs = mc_pairs,
    .batches = mc_batches,
    .note = "mutex-condvar: bench/mutex_chan.c, one mutex, two condvars; unbounded doubles its buffer",
};

/* GLib's GAsyncQueue (a mutex, a condvar and a GQueue list): unbounded only. */
#include "bench.h"

#include <glib.h>

static void *ga_make(size_t cap)
{
    (void)cap; /* only registered as unbounded */
    return g_async_queue_new();
}

static void ga_destroy(void *ch) { g_async_queue_unref(ch); }

/* Messages are never 0, so they travel as non-NULL pointers. */
static void ga_send(void *ch, uint64_t v) { g_async_queue_push(ch, (gpointer)(uintptr_t)v); }
static uint64_t ga_recv(void *ch) { return (uintptr_t)g_async_queue_pop(ch); }

static inline bool ga_try_send(void *ch, uint64_t v)
{
    g_async_queue_push(ch, (gpointer)(uintptr_t)v);
    return true;
}

static inline bool ga_try_recv(void *ch, uint64_t *v)
{
    gpointer p = g_async_queue_try_pop(ch);
    *v = (uintptr_t)p;
    return p != NULL;
}
BENCH_ST_LOOPS(ga)

static const bench_impl impl = {
    .name = "gasyncqueue",
    .flags = IMPL_UNBOUNDED,
    .make = ga_make,
    .destroy = ga_destroy,
    .send = ga_send,
    .recv = ga_recv,
    .pairs = ga_pairs,
    .batches = ga_batches,
    .note = "gasyncqueue: GLib " G_STRINGIFY(GLIB_MAJOR_VERSION) "." G_STRINGIFY(
        GLIB_MINOR_VERSION) " GAsyncQueue, unbounded only (mutex + condvar + list)",
};
const bench_impl *const bench_gasync = &impl;

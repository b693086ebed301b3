/* zchan in the implementation table: the thread rows use zc_send_blocking and
 * zc_recv_blocking (row 17 on zc_rendezvous channels), rows 1-2 drive the futures with a
 * no-op waker, rows 3-4 use the try operations, row 9 the task flow (tasks.c). Every
 * thread shares the one sender and receiver handle.
 * impl_zchan_inline.c compiles this file again with ZCHAN_INLINE, as "zchan-inline":
 * ZCC_IMPL names the table entry, ZCC_NAME its column. */
#include "bench.h"

#ifndef ZCC_IMPL
#define ZCC_IMPL bench_zchan
#define ZCC_NAME "zchan"
#define ZCC_TASK_FLOW bench_task_flow
#define ZCC_FLAGS 0
#define ZCC_NOTE ""
#endif

#include <stdlib.h>
#include <zchan/block.h>
#include <zchan/mpmc.h>

typedef struct zc_chan {
    zc_sender *tx;
    zc_receiver *rx;
} zc_chan;

static void *zcc_make(size_t cap)
{
    zc_chan *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_status st = cap ? zc_bounded(cap, &cfg, &c->tx, &c->rx) : zc_unbounded(&cfg, &c->tx, &c->rx);
    if (st != ZC_OK) {
        free(c);
        return NULL;
    }
    return c;
}

/* Row 17: a rendezvous channel (zc_rendezvous), in the same wrapper as zcc_make's. */
static void *zcc_make_rendezvous(void)
{
    zc_chan *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    if (zc_rendezvous(&cfg, &c->tx, &c->rx) != ZC_OK) {
        free(c);
        return NULL;
    }
    return c;
}

static void zcc_destroy(void *ch)
{
    zc_chan *c = ch;
    zc_sender_drop(c->tx);
    zc_receiver_drop(c->rx);
    free(c);
}

static void zcc_send(void *ch, uint64_t v)
{
    if (zc_send_blocking(((zc_chan *)ch)->tx, &v) != ZC_OK)
        bench_fail(ZCC_NAME, "zc_send_blocking");
}

static uint64_t zcc_recv(void *ch)
{
    uint64_t v;
    if (zc_recv_blocking(((zc_chan *)ch)->rx, &v) != ZC_OK)
        bench_fail(ZCC_NAME, "zc_recv_blocking");
    return v;
}

static inline bool zcc_try_send(void *ch, uint64_t v)
{
    return zc_try_send(((zc_chan *)ch)->tx, &v) == ZC_OK;
}

static inline bool zcc_try_recv(void *ch, uint64_t *v)
{
    return zc_try_recv(((zc_chan *)ch)->rx, v) == ZC_OK;
}
BENCH_BATCH_LOOP(zcc)

static void noop_wake(void *ctx) { (void)ctx; }

/* Rows 1-2 through the futures: each pair inits a send future and polls it, then polls
 * one receive future (a stream) for the message. Neither ever returns ZC_PENDING here. */
static uint64_t zcc_future_pairs(void *ch, long n)
{
    zc_chan *c = ch;
    const zc_waker noop = {noop_wake, NULL};
    zc_send sf;
    zc_recv rf;
    uint64_t msg, out, sum = 0;
    zc_recv_init(&rf, c->rx);
    for (long i = 1; i <= n; i++) {
        msg = (uint64_t)i;
        zc_send_init(&sf, c->tx, &msg);
        if (zc_send_poll(&sf, &noop) != ZC_OK || zc_recv_poll(&rf, &noop, &out) != ZC_OK)
            bench_fail(ZCC_NAME, "future pair");
        sum += out;
    }
    return sum;
}

const bench_impl ZCC_IMPL = {
    .name = ZCC_NAME,
    .flags = IMPL_BOUNDED | IMPL_UNBOUNDED | ZCC_FLAGS,
    .make = zcc_make,
    .make_rendezvous = zcc_make_rendezvous,
    .destroy = zcc_destroy,
    .send = zcc_send,
    .recv = zcc_recv,
    .pairs = zcc_future_pairs,
    .batches = zcc_batches,
    .task_flow = ZCC_TASK_FLOW,
    .note = ZCC_NAME ": rows 1-2 via zc_send_poll/zc_recv_poll (no-op waker), 3-4 via try "
            "ops, task rows via the futures, thread rows via zc_*_blocking (row 17 over "
            "zc_rendezvous channels)" ZCC_NOTE,
};

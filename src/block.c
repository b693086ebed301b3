/*
 * block.c: blocking send and receive, a block_on over the public futures.
 *
 * Each call runs one future with a waker that unparks the calling thread: poll; on
 * ZC_PENDING park until the waker fires (or the deadline passes: then cancel, which
 * deregisters the future and passes on any wake-up it absorbed); poll again. A poll
 * that calls the waker itself before returning ZC_PENDING simply leaves the permit
 * there, and the next park returns at once.
 *
 * The parker lives on this call's stack. That is safe because of rule 3 of the waker
 * contract (zchan/waker.h): once a poll has returned a final status, or the cancel has
 * returned, no call of the parker's wake is running or will come.
 *
 * No atomics here: all synchronisation is in the futures and the parker (park.c).
 */
#include <zchan/block.h>

#include "atomic.h"
#include "block_on.h"

/* One future of either kind, with what its poll needs. */
typedef struct op {
    union {
        zc_send send;
        zc_recv recv;
    } f;
    void *out; /* recv only */
} op;

static zc_status send_poll(void *o, const zc_waker *w) {
    return zc_send_poll(&((op *)o)->f.send, w);
}

static void send_cancel(void *o) {
    zc_send_cancel(&((op *)o)->f.send);
}

static zc_status recv_poll(void *o, const zc_waker *w) {
    return zc_recv_poll(&((op *)o)->f.recv, w, ((op *)o)->out);
}

static void recv_cancel(void *o) {
    zc_recv_cancel(&((op *)o)->f.recv);
}

zc_status zc_send_timeout(zc_sender *tx, const void *msg, uint64_t timeout_ns) {
    op o;
    zc_send_init(&o.f.send, tx, msg); /* NULL tx or msg: the poll says ZC_EINVAL */
    return zc__block_on(&o, send_poll, send_cancel, timeout_ns);
}

zc_status zc_recv_timeout(zc_receiver *rx, void *out, uint64_t timeout_ns) {
    op o = {.out = out};
    zc_recv_init(&o.f.recv, rx); /* NULL rx or out: the poll says ZC_EINVAL */
    return zc__block_on(&o, recv_poll, recv_cancel, timeout_ns);
}

/* Attempts a blocking call makes with the try operation, backing off between them (a few
 * pause rounds, then sched_yield), before it registers a waiter and parks: crossbeam's
 * Backoff before its parking. A partner thread that answers within a few microseconds is
 * met with no waiter on the list, so neither side pays for the list or the wake-up. */
#define PRESPIN 10

zc_status zc_send_blocking(zc_sender *tx, const void *msg) {
    zc__backoff b = ZC__BACKOFF_INIT;
    for (int i = 0; i < PRESPIN; i++) {
        zc_status s = zc_try_send(tx, msg);
        if (s != ZC_FULL) return s;
        zc__backoff_snooze(&b);
    }
    return zc_send_timeout(tx, msg, UINT64_MAX);
}

zc_status zc_recv_blocking(zc_receiver *rx, void *out) {
    zc__backoff b = ZC__BACKOFF_INIT;
    for (int i = 0; i < PRESPIN; i++) {
        zc_status s = zc_try_recv(rx, out);
        if (s != ZC_EMPTY) return s;
        zc__backoff_snooze(&b);
    }
    return zc_recv_timeout(rx, out, UINT64_MAX);
}

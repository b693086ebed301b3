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

#include "park.h"

/* One future of either kind, behind the two calls block_on needs. */
typedef struct op {
    zc_status (*poll)(struct op *op, const zc_waker *w);
    void (*cancel)(struct op *op);
    union {
        zc_send send;
        zc_recv recv;
    } f;
    void *out; /* recv only */
} op;

static zc_status send_poll(op *o, const zc_waker *w) {
    return zc_send_poll(&o->f.send, w);
}

static void send_cancel(op *o) {
    zc_send_cancel(&o->f.send);
}

static zc_status recv_poll(op *o, const zc_waker *w) {
    return zc_recv_poll(&o->f.recv, w, o->out);
}

static void recv_cancel(op *o) {
    zc_recv_cancel(&o->f.recv);
}

/* Drive o to a final status, or for at most timeout_ns once it has to wait. */
static zc_status block_on(op *o, uint64_t timeout_ns) {
    zc_parker parker;
    zc_parker_init(&parker);
    zc_waker waker = zc_parker_waker(&parker);
    zc_status s = o->poll(o, &waker);
    if (s == ZC_PENDING) {
        /* The clock is read only by a call that has to wait. */
        uint64_t deadline_ns = zc__deadline_ns(timeout_ns);
        do {
            /* A deadline already past (timeout 0) still takes a permit that is there, so
             * a future that asked to be polled again soon gets its next attempt. */
            if (zc__parker_park_until(&parker, deadline_ns) == ZC_TIMEDOUT) {
                o->cancel(o);
                s = ZC_TIMEDOUT;
                break;
            }
        } while ((s = o->poll(o, &waker)) == ZC_PENDING);
    }
    zc_parker_destroy(&parker);
    return s;
}

zc_status zc_send_timeout(zc_sender *tx, const void *msg, uint64_t timeout_ns) {
    op o = {.poll = send_poll, .cancel = send_cancel};
    zc_send_init(&o.f.send, tx, msg); /* NULL tx or msg: the poll says ZC_EINVAL */
    return block_on(&o, timeout_ns);
}

zc_status zc_recv_timeout(zc_receiver *rx, void *out, uint64_t timeout_ns) {
    op o = {.poll = recv_poll, .cancel = recv_cancel, .out = out};
    zc_recv_init(&o.f.recv, rx); /* NULL rx or out: the poll says ZC_EINVAL */
    return block_on(&o, timeout_ns);
}

zc_status zc_send_blocking(zc_sender *tx, const void *msg) {
    return zc_send_timeout(tx, msg, UINT64_MAX);
}

zc_status zc_recv_blocking(zc_receiver *rx, void *out) {
    return zc_recv_timeout(rx, out, UINT64_MAX);
}

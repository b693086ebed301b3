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
 * The blocking and timed calls first spin with the channel's own attempts (chan.h
 * zc__chan_send_spin / recv_spin, zc__chan_snooze: see below), then run the future,
 * whose park then sleeps at once.
 *
 * No atomics here: all synchronisation is in chan.h, the futures and the parker (park.c).
 */
#include <zchan/block.h>

#include "atomic.h"
#include "block_on.h"
#include "chan.h"

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

/* The future run to a final status, its park sleeping at once (the caller has spun). */
static zc_status send_wait(zc_sender *tx, const void *msg, zc__limit limit) {
    op o;
    zc_send_init(&o.f.send, tx, msg); /* NULL tx or msg: the poll says ZC_EINVAL */
    return zc__block_on(&o, send_poll, send_cancel, limit, false);
}

static zc_status recv_wait(zc_receiver *rx, void *out, zc__limit limit) {
    op o = {.out = out};
    zc_recv_init(&o.f.recv, rx); /* NULL rx or out: the poll says ZC_EINVAL */
    return zc__block_on(&o, recv_poll, recv_cancel, limit, false);
}

/* Before a blocking call registers a waiter and parks, it spins (zc__chan_snooze in
 * chan.h: watching the slot it needs, then yielding, then yielding on while no other
 * thread wants its CPU, attempting after each round):
 * crossbeam's Backoff before its parking. A partner thread that answers within a few
 * microseconds is met with no waiter on the list, so neither side pays for the list or
 * the wake-up. On a bounded channel these attempts never read the peer's index
 * (zc__chan_send_spin): a waiting receiver that read tail at every attempt would pull the
 * senders' line into its cache, and the sender's claim would have to fetch it back. So a
 * receive looks for the close (on tail) only once, before its first yield: a channel
 * closed and drained before the call is told ZC_CLOSED by the poll after the watch (0.5
 * µs late; before, after the ten yields too: 12-16 ms with a busy thread on its CPU,
 * each yield giving that thread a time slice; test_yield). Measured on the 2-vCPU Xeon
 * VM, two threads bouncing a message over two bounded(1) channels, 200,000 round trips:
 * 690-870 ns a round trip with zc_try_send / zc_try_recv as the attempts, 370-490 ns
 * with these (bench row 15-threads).
 * No spin in the park after them: waiting threads then sleep as soon as they have
 * registered, and on an oversubscribed machine the CPU they leave runs a thread that can
 * move (a yield only offers it to threads queued on the same CPU; sleeping lets the
 * kernel's idle balancing bring one over). Against the park's 10 yields after 10
 * attempts, medians of 20 interleaved runs on the Xeon VM (bench/run.sh rows; threads
 * started together at a barrier): 4 sender and 4 receiver threads at capacity 16 (row 5)
 * x0.55 (x0.31-0.79 in three other sets), 4 senders and 1 receiver (row 12) x0.86
 * (x0.71-0.82), 1 and 1 (rows 10, 11) x1.00 and x1.03, two threads bouncing a message
 * (row 15-threads) x0.99. With no spin in the park but only 10 attempts, the bouncing
 * pair was x1.12-1.73.
 * A timed call spins the same way while its limit has not passed (a timeout of 0 or a
 * deadline already past: no spin, one attempt), then waits until the same deadline. */
static zc_status send_for(zc_sender *tx, const void *msg, zc__limit limit) {
    if (tx && msg && !zc__limit_spent(limit)) {
        zc_status s = zc__chan_send_spin(tx->ch, msg);
        if (s != ZC_FULL && s != ZC_PENDING) return s;
        uint64_t deadline_ns = zc__limit_deadline(limit); /* the clock only to wait */
        zc__spin sp = ZC__SPIN_INIT;
        while (!zc__deadline_passed(deadline_ns) && zc__chan_snooze(tx->ch, &sp, false)) {
            s = zc__chan_send_spin(tx->ch, msg);
            if (s != ZC_FULL && s != ZC_PENDING) return s;
        }
        limit = zc__limit_until(deadline_ns);
    }
    return send_wait(tx, msg, limit); /* NULL tx or msg: ZC_EINVAL */
}

static zc_status recv_for(zc_receiver *rx, void *out, zc__limit limit) {
    if (rx && out && !zc__limit_spent(limit)) {
        zc_status s = zc__chan_recv_spin(rx->ch, out);
        if (s != ZC_EMPTY && s != ZC_PENDING) return s;
        uint64_t deadline_ns = zc__limit_deadline(limit); /* the clock only to wait */
        zc__spin sp = ZC__SPIN_INIT;
        while (!zc__deadline_passed(deadline_ns) && zc__chan_snooze(rx->ch, &sp, true)) {
            s = zc__chan_recv_spin(rx->ch, out);
            if (s != ZC_EMPTY && s != ZC_PENDING) return s;
        }
        limit = zc__limit_until(deadline_ns);
    }
    return recv_wait(rx, out, limit); /* NULL rx or out: ZC_EINVAL */
}

zc_status zc_send_blocking(zc_sender *tx, const void *msg) {
    return send_for(tx, msg, zc__limit_after(UINT64_MAX));
}

zc_status zc_recv_blocking(zc_receiver *rx, void *out) {
    return recv_for(rx, out, zc__limit_after(UINT64_MAX));
}

zc_status zc_send_timeout(zc_sender *tx, const void *msg, uint64_t timeout_ns) {
    return send_for(tx, msg, zc__limit_after(timeout_ns));
}

zc_status zc_recv_timeout(zc_receiver *rx, void *out, uint64_t timeout_ns) {
    return recv_for(rx, out, zc__limit_after(timeout_ns));
}

zc_status zc_send_until(zc_sender *tx, const void *msg, uint64_t deadline_ns) {
    return send_for(tx, msg, zc__limit_until(deadline_ns));
}

zc_status zc_recv_until(zc_receiver *rx, void *out, uint64_t deadline_ns) {
    return recv_for(rx, out, zc__limit_until(deadline_ns));
}

zc_status zc_parker_park_until(zc_parker *p, uint64_t deadline_ns) {
    return zc__parker_park_until(p, deadline_ns, true);
}

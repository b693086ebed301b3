/*
 * block.c: blocking send and receive: a spin (spin.c), then a block_on over the public
 * futures (block_on.h, whose parker lives on this call's stack), parking the calling
 * thread while the future is pending.
 *
 * No atomics here: all synchronisation is in the channel, the futures and the parker.
 */
#include <zchan/block.h>

#include "block_on.h"
#include "rendezvous.h"
#include "spin.h"

/* One future of either kind, with what its poll needs; or a rendezvous channel's
 * blocking receive, which waits with its place (rendezvous.h). */
typedef struct op {
    union {
        zc_send send;
        zc_recv recv;
        zc__rv_taker taker;
    } f;
    void *out; /* recv only */
} op;

static zc_status send_poll(void *o, const zc_waker *w) {
    return zc_send_poll(&((op *)o)->f.send, w);
}

static void send_cancel(void *o) { zc_send_cancel(&((op *)o)->f.send); }

static zc_status recv_poll(void *o, const zc_waker *w) {
    return zc_recv_poll(&((op *)o)->f.recv, w, ((op *)o)->out);
}

static void recv_cancel(void *o) { zc_recv_cancel(&((op *)o)->f.recv); }

static zc_status taker_poll(void *o, const zc_waker *w) {
    return zc__rv_taker_poll(&((op *)o)->f.taker, w);
}

static void taker_cancel(void *o) { (void)zc__rv_taker_cancel(&((op *)o)->f.taker); }

/* The future run to a final status; its park spins first (spin) or, when the caller has
 * spun, sleeps at once. A rendezvous send that timed out may have been taken before its
 * cancel: then it was received, and says so. */
static zc_status send_wait(zc_sender *tx, const void *msg, zc__limit limit,
                           zc__park_spin spin, const char *call) {
    op o;
    zc_send_init(&o.f.send, tx, msg); /* NULL tx or msg: the poll says ZC_EINVAL */
    zc_status s = zc__block_on(&o, send_poll, send_cancel, limit, spin, call);
    return s == ZC_TIMEDOUT && zc__send_done(&o.f.send) ? ZC_OK : s;
}

/* A rendezvous channel's blocking receive, its park spinning first, as such a send's:
 * filled before its cancel, it received. */
static zc_status taker_wait(zc__rv *rv, void *out, zc__limit limit, const char *call) {
    op o;
    zc__rv_taker_init(&o.f.taker, rv, out);
    zc_status s = zc__block_on(&o, taker_poll, taker_cancel, limit, ZC__PARK_WATCH, call);
    return s == ZC_TIMEDOUT && o.f.taker.done ? ZC_OK : s;
}

static zc_status recv_wait(zc_receiver *rx, void *out, zc__limit limit, const char *call) {
    op o = {.out = out};
    zc_recv_init(&o.f.recv, rx); /* NULL rx or out: the poll says ZC_EINVAL */
    return zc__block_on(&o, recv_poll, recv_cancel, limit, ZC__PARK_SLEEP, call);
}

/* The spin's attempts (spin.h): on a bounded channel the queue's first attempt alone,
 * which reads only the caller's own end of the ring and the slot and never waits for a
 * peer (a timed call must not wait past its deadline for one held mid-operation), with
 * the wake it owes; on an unbounded one a full attempt (zc__chan_send / recv), which
 * reports such a peer as ZC_PENDING. Inline, with the constant size 8 where it applies:
 * most blocking calls complete at this first attempt. */
typedef struct spin_arg {
    zc__chan *ch;
    void *buf;
} spin_arg;

static inline zc_status send_attempt(void *arg) {
    spin_arg *a = arg;
    zc__queue *q = &a->ch->q;
    if (!zc__queue_bounded(q)) return zc__chan_send(a->ch, a->buf);
    unsigned sent = zc__queue_push_first8(q, a->buf);
    if (sent == ZC__QUEUE_FIRST_GENERIC) sent = zc__queue_push_first(q, a->buf);
    return sent ? zc__chan_sent(a->ch) : ZC_FULL;
}

static inline zc_status recv_attempt(void *arg) {
    spin_arg *a = arg;
    zc__queue *q = &a->ch->q;
    if (!zc__queue_bounded(q)) return zc__chan_recv(a->ch, a->buf);
    unsigned got = zc__queue_pop_first8(q, a->buf);
    if (got == ZC__QUEUE_FIRST_GENERIC) got = zc__queue_pop_first(q, a->buf);
    return got ? zc__chan_received(a->ch) : ZC_EMPTY;
}

/* After a blocking or timed call's first attempt did not go through: the spin (spin.h)
 * if time is left, ZC_PENDING if it ran out or none was (a timeout of 0, a deadline
 * already past: the clock is read only now). The future then decides, as for a closed
 * channel, which the inline first attempt does not tell from a full (empty) one. */
static zc_status after_first(zc__chan *ch, bool recv, spin_arg *a, zc__limit *limit) {
    if (zc__limit_spent(*limit)) return ZC_PENDING;
    return zc__spin(ch, recv, recv ? recv_attempt : send_attempt, a, limit);
}

/* A blocking or timed call: its first attempt, then (time left) a spin, then the future
 * until the same deadline, its park sleeping at once: on an oversubscribed machine the
 * CPU a sleeper leaves can run a thread that can move. On a rendezvous channel the wait
 * comes first: a hand-off needs the party registered, so it spins in its park instead,
 * where the partner can complete it. */
static zc_status send_for(zc_sender *tx, const void *msg, zc__limit limit,
                          const char *call) {
    if (tx && msg && tx->ch->rv) return send_wait(tx, msg, limit, ZC__PARK_WATCH, call);
    if (tx && msg) {
        spin_arg a = {tx->ch, (void *)msg};
        zc_status s = send_attempt(&a);
        if (s == ZC_FULL || s == ZC_PENDING) s = after_first(tx->ch, false, &a, &limit);
        if (s != ZC_PENDING) return s;
    }
    return send_wait(tx, msg, limit, ZC__PARK_SLEEP, call); /* NULL tx or msg: ZC_EINVAL */
}

static zc_status recv_for(zc_receiver *rx, void *out, zc__limit limit, const char *call) {
    if (rx && out && rx->ch->rv) return taker_wait(rx->ch->rv, out, limit, call);
    if (rx && out) {
        spin_arg a = {rx->ch, out};
        zc_status s = recv_attempt(&a);
        if (s == ZC_EMPTY || s == ZC_PENDING) s = after_first(rx->ch, true, &a, &limit);
        if (s != ZC_PENDING) return s;
    }
    return recv_wait(rx, out, limit, call); /* NULL rx or out: ZC_EINVAL */
}

zc_status zc_send_blocking(zc_sender *tx, const void *msg) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_after(UINT64_MAX), __func__);
}

zc_status zc_recv_blocking(zc_receiver *rx, void *out) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, zc__limit_after(UINT64_MAX), __func__);
}

zc_status zc_send_timeout(zc_sender *tx, const void *msg, uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_recv_timeout(zc_receiver *rx, void *out, uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_send_until(zc_sender *tx, const void *msg, uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_until(deadline_ns), __func__);
}

zc_status zc_recv_until(zc_receiver *rx, void *out, uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, zc__limit_until(deadline_ns), __func__);
}


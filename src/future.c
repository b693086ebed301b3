/*
 * future.c: the send and receive futures, in caller memory.
 *
 * A poll makes one queue attempt; if it did not complete, the wait primitive (wait.c)
 * registers, re-checks, steps off for a peer mid-operation, or finishes. The first
 * attempt of a fresh future is inline here (the fast path); a bounded ring that looks
 * full (empty) is not attempted before registering, since the attempt after the
 * registration decides anyway. Source: as wait.h.
 */
#include "wait.h"

void zc_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__msg = msg;
    f->zc__done = 0;
}

void zc_recv_init(zc_recv *f, zc_receiver *rx) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

static zc_status send_attempt(zc__chan *ch, void *msg, unsigned *owed) {
    return zc__chan_send_quiet(ch, msg, owed); /* owes a receiver on ZC_OK */
}

static zc_status recv_attempt(zc__chan *ch, void *out, unsigned *owed) {
    return zc__chan_recv_quiet(ch, out, owed); /* owes a sender per slot freed */
}

/* Everything but the fast path of zc_send_poll: bad arguments, a completed future, a
 * future that waits or has waited (its node not idle), and every first attempt that
 * did not go through at once. */
static ZC__NOINLINE zc_status send_poll_slow(zc_send *f, const zc_waker *w) {
    if (!f || !f->zc__tx || !f->zc__msg) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_send_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    if (f->zc__done) return (zc_status)(f->zc__done - 1);
    zc__chan *ch = f->zc__tx->ch;
    /* A ring that looks full is not tried before registering (the file comment). */
    bool looks_full = ch->bounded && zc__ring_looks_full(&ch->q.ring);
    void *msg = (void *)f->zc__msg;
    unsigned owed = 0;
    zc_status s = looks_full ? ZC_FULL : send_attempt(ch, msg, &owed);
    s = zc__wait(ch, ZC__SIDE_SEND, &f->zc__node, w, send_attempt, msg, s, owed);
    if (s == ZC_OK || s == ZC_CLOSED) f->zc__done = (int)s + 1;
    return s;
}

/* zc_send_poll's first attempt on a channel other than a ring8 or seg8 one (chan.h); ch and
 * msg are f's, passed on in registers. */
static ZC__NOINLINE zc_status send_poll_first(zc_send *f, const zc_waker *w, zc__chan *ch,
                                              const void *msg) {
    if (zc__chan_send_fast(ch, msg)) {
        f->zc__done = ZC_OK + 1;
        return ZC_OK;
    }
    return send_poll_slow(f, w);
}

zc_status zc_send_poll(zc_send *f, const zc_waker *w) {
    /* The fast path: a fresh future (never registered) whose first attempt sends. The
     * node is checked before the attempt: one that is registered or holds a wake-up must
     * be taken off its list after a send (zc__wait does it). The node's state is
     * read first (acquire), the future's other fields after it: read before it, they
     * would be loaded again after it. The ring8 and seg8 paths are chan.h's. */
    if (ZC__LIKELY(f && w && w->wake && zc__waitlist_is_idle(&f->zc__node))) {
        zc_sender *tx = f->zc__tx;
        const void *msg = f->zc__msg;
        if (ZC__LIKELY(tx && msg && !f->zc__done)) {
            zc__chan *ch = tx->ch;
            if (ZC__LIKELY(ch->ring8)) {
                if (zc__ring_push_first(&ch->q.ring, msg, 8)) {
                    f->zc__done = ZC_OK + 1;
                    return zc__chan_sent(ch);
                }
            } else if (ch->seg8) {
                if (zc__segq_push_first(&ch->q.segq, msg, 8)) {
                    f->zc__done = ZC_OK + 1;
                    return zc__chan_sent(ch);
                }
            } else {
                return send_poll_first(f, w, ch, msg);
            }
        }
    }
    return send_poll_slow(f, w);
}

void zc_send_cancel(zc_send *f) {
    if (!f || !f->zc__tx || f->zc__done) return;
    zc__wait_cancel(f->zc__tx->ch, ZC__SIDE_SEND, &f->zc__node);
}

/* Everything but the fast path of zc_recv_poll (as send_poll_slow). */
static ZC__NOINLINE zc_status recv_poll_slow(zc_recv *f, const zc_waker *w, void *out) {
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake || !out) {
        zc_recv_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    zc__chan *ch = f->zc__rx->ch;
    /* As for a send: a ring that looks empty is tried only after registering. */
    bool looks_empty = ch->bounded && zc__ring_looks_empty(&ch->q.ring);
    unsigned owed = 0;
    zc_status s = looks_empty ? ZC_EMPTY : recv_attempt(ch, out, &owed);
    return zc__wait(ch, ZC__SIDE_RECV, &f->zc__node, w, recv_attempt, out, s, owed);
}

/* zc_recv_poll's first attempt on a channel other than a ring8 or seg8 one (chan.h); f's
 * arguments. */
static ZC__NOINLINE zc_status recv_poll_first(zc_recv *f, const zc_waker *w, void *out,
                                              zc__chan *ch) {
    if (zc__chan_recv_fast(ch, out)) return ZC_OK;
    return recv_poll_slow(f, w, out);
}

zc_status zc_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    /* The fast path, as zc_send_poll's: a future never registered whose first attempt
     * receives. */
    if (ZC__LIKELY(f && w && w->wake && out && zc__waitlist_is_idle(&f->zc__node))) {
        zc_receiver *rx = f->zc__rx;
        if (ZC__LIKELY(rx != NULL)) {
            zc__chan *ch = rx->ch;
            if (ZC__LIKELY(ch->ring8)) {
                if (zc__ring_pop_first(&ch->q.ring, out, 8)) return zc__chan_received(ch);
            } else if (ch->seg8) {
                if (zc__segq_pop_first(&ch->q.segq, out, 8)) return ZC_OK;
            } else {
                return recv_poll_first(f, w, out, ch);
            }
        }
    }
    return recv_poll_slow(f, w, out);
}

void zc_recv_cancel(zc_recv *f) {
    if (!f || !f->zc__rx) return;
    zc__wait_cancel(f->zc__rx->ch, ZC__SIDE_RECV, &f->zc__node);
}

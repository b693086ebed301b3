/*
 * future.c: the send and receive futures, in caller memory.
 *
 * A poll makes one queue attempt; if it did not complete, the wait primitive (wait.h)
 * takes over. The first attempt of a fresh future is inline here (the fast path, as
 * zc_try_send's in chan.c). A bounded queue that looks full (empty) is not attempted
 * before registering: the attempt after the registration decides anyway.
 */
#include "rendezvous.h"
#include "wait.h"

void zc_send_init(zc_send *f, zc_sender *tx, const void *msg) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
#if ZCHAN_CHECKED
    zc__waiter_check_init(&f->zc__node, __func__);
#endif
    zc__fast_send_init(f, tx, msg);
}

void zc_recv_init(zc_recv *f, zc_receiver *rx) {
    if (!f) return;
    ZC__CHECK_HANDLE(rx);
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

/* Everything but the fast path of zc_send_poll: bad arguments, a completed future, a
 * node not idle, and every first attempt that did not go through at once. */
static ZC__NOINLINE zc_status send_poll_slow(zc_send *f, const zc_waker *w) {
    if (!f || !f->zc__tx || !f->zc__msg) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_send_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    /* Done and idle: complete (a rendezvous send a receiver completed is not idle until
     * this poll has taken its node off). */
    int done = zc__send_done(f);
    if (done && zc__waitlist_is_idle(&f->zc__node)) return (zc_status)(done - 1);
    zc__chan *ch = f->zc__tx->ch;
    if (ch->rv) return zc__rv_send_poll(ch->rv, f, w);
    void *msg = (void *)f->zc__msg;
    unsigned owed = 0;
    /* A linked node (zc__wait_slow) or a queue that looks full: the re-check decides. */
    zc_status s = zc__waitlist_is_linked(&f->zc__node) || zc__queue_looks_full(&ch->q)
                      ? ZC_FULL : zc__chan_send_attempt(ch, msg, &owed);
    s = zc__wait(ch, ZC__SIDE_SEND, &f->zc__node, w, zc__chan_send_attempt, msg, s, owed);
    if (s == ZC_OK || s == ZC_CLOSED) zc__send_set_done(f, (int)s + 1);
    return s;
}

/* The first attempt of a channel whose messages are not 8 bytes, out of line; ch and msg
 * are f's, passed on in registers. */
static ZC__NOINLINE zc_status send_poll_first(zc_send *f, const zc_waker *w, zc__chan *ch,
                                              const void *msg) {
    if (ch->rv || !zc__queue_push_first(&ch->q, msg)) return send_poll_slow(f, w);
    zc__send_set_done(f, ZC_OK + 1);
    return zc__chan_sent(ch);
}

/* A channel that is no ring of 8-byte messages (f's arguments checked): an unbounded
 * one of 8-byte messages takes its first attempt inline too; any other, out of line. */
static inline zc_status send_poll_other(zc_send *f, const zc_waker *w) {
    zc__chan *ch = f->zc__tx->ch;
    const void *msg = f->zc__msg;
    if (!ch->q.segq8) return send_poll_first(f, w, ch, msg);
    if (!zc__segq_push_first(&ch->q.u.segq, msg, 8)) return send_poll_slow(f, w);
    zc__send_set_done(f, ZC_OK + 1);
    return zc__chan_sent(ch);
}

zc_status zc_send_poll(zc_send *f, const zc_waker *w) {
#if ZCHAN_CHECKED
    /* Done: tx may be gone. Read once: a rendezvous receiver may complete f meanwhile. */
    zc_sender *live = f && !zc__send_done(f) ? f->zc__tx : NULL;
    ZC__CHECK_FUTURE(f, live);
#endif
    /* The fast path (zchan/bits/fast.h, which zchan/inline.h compiles too): a fresh
     * future (never registered) whose first attempt sends. */
    switch (zc__fast_send_poll(f, w)) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_receiver_ok(f->zc__tx->ch);
    case ZC__FAST_OTHER: return send_poll_other(f, w);
    default: return send_poll_slow(f, w);
    }
}

/* A cancel of a future that never waited, or completed, touches nothing but the future:
 * its handle need not be live then (a completed future's node is idle, but for a
 * rendezvous send a receiver completed, which the hand-off takes off). */
void zc_send_cancel(zc_send *f) {
    if (!f || !f->zc__tx || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    zc__chan *ch = f->zc__tx->ch;
    if (ch->rv)
        zc__rv_send_cancel(ch->rv, f);
    else
        zc__wait_cancel(ch, ZC__SIDE_SEND, &f->zc__node);
}

bool zc_send_abort(zc_send *f) {
    zc_send_cancel(f);
    return !f || zc__send_done(f) != (int)ZC_OK + 1;
}

/* Everything but the fast path of zc_recv_poll (as send_poll_slow). */
static ZC__NOINLINE zc_status recv_poll_slow(zc_recv *f, const zc_waker *w, void *out) {
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake || !out) {
        zc_recv_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    zc__chan *ch = f->zc__rx->ch;
    if (ch->rv) return zc__rv_recv_poll(ch->rv, f, w, out);
    unsigned owed = 0;
    zc_status s = zc__waitlist_is_linked(&f->zc__node) || zc__queue_looks_empty(&ch->q)
                      ? ZC_EMPTY : zc__chan_recv_attempt(ch, out, &owed);
    return zc__wait(ch, ZC__SIDE_RECV, &f->zc__node, w, zc__chan_recv_attempt, out, s, owed);
}

/* The first attempt of a channel whose messages are not 8 bytes, out of line. */
static ZC__NOINLINE zc_status recv_poll_first(zc_recv *f, const zc_waker *w, void *out,
                                              zc__chan *ch) {
    if (ch->rv) return recv_poll_slow(f, w, out);
    unsigned got = zc__queue_pop_first(&ch->q, out);
    if (got > 1) return zc__chan_received(ch); /* a slot freed */
    return got ? ZC_OK : recv_poll_slow(f, w, out);
}

static inline zc_status recv_poll_other(zc_recv *f, const zc_waker *w, void *out) {
    zc__chan *ch = f->zc__rx->ch;
    if (!ch->q.segq8) return recv_poll_first(f, w, out, ch);
    /* An unbounded queue's senders never wait: its receives owe no wake. */
    return zc__segq_pop_first(&ch->q.u.segq, out, 8) ? ZC_OK : recv_poll_slow(f, w, out);
}

zc_status zc_recv_poll(zc_recv *f, const zc_waker *w, void *out) {
    ZC__CHECK_FUTURE(f, f->zc__rx);
    /* The fast path, as zc_send_poll's: a future never registered whose first attempt
     * receives. */
    switch (zc__fast_recv_poll(f, w, out)) {
    case ZC__FAST_DONE: return ZC_OK;
    case ZC__FAST_WAKE: return zc__chan_wake_sender_ok(f->zc__rx->ch);
    case ZC__FAST_OTHER: return recv_poll_other(f, w, out);
    default: return recv_poll_slow(f, w, out);
    }
}

#if !ZCHAN_CHECKED
/* The entries of zchan/inline.h (zchan/bits/fast.h says why they exist only here): the
 * switch's last two cases of zc_send_poll (zc_recv_poll), for an inline caller. */
zc_status zc__v1_send_poll_rest(zc_send *f, const zc_waker *w, zc__fast did) {
    return did == ZC__FAST_OTHER ? send_poll_other(f, w) : send_poll_slow(f, w);
}

zc_status zc__v1_recv_poll_rest(zc_recv *f, const zc_waker *w, void *out, zc__fast did) {
    return did == ZC__FAST_OTHER ? recv_poll_other(f, w, out) : recv_poll_slow(f, w, out);
}
#endif

void zc_recv_cancel(zc_recv *f) {
    if (!f || !f->zc__rx || zc__waitlist_is_idle(&f->zc__node)) return; /* as send's */
    ZC__CHECK_FUTURE(f, f->zc__rx);
    zc__chan *ch = f->zc__rx->ch;
    if (ch->rv)
        zc__rv_recv_cancel(ch->rv, f);
    else
        zc__wait_cancel(ch, ZC__SIDE_RECV, &f->zc__node);
}

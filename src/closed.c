/*
 * closed.c: the sender-closed and receiver-closed futures (zchan/closed.h).
 *
 * Poll: the attempt looks at the close mark; the wait primitive (wait.c, side
 * ZC__SIDE_CLOSE) registers on zc__chan.close_waiters and looks again. chan_close sets
 * the mark (seq_cst) before it wakes the whole list under its lock, so a node linked
 * after that sweep sees the mark in its re-check. Nothing is passed on: close wakes all.
 *
 * No atomics of its own: the mark is read by zc__queue_is_closed (seq_cst), the rest is
 * waitlist.c's.
 */
#include <zchan/closed.h>

#include "wait.h"

static zc_status closed_attempt(zc__chan *ch, void *arg, unsigned *owed) {
    (void)arg, (void)owed;
    return zc__chan_is_closed(ch) ? ZC_OK : ZC_EMPTY;
}

static zc_status closed_poll(zc__chan *ch, zc__waiter *node, const zc_waker *w) {
    if (!w || !w->wake) {
        zc__wait_cancel(ch, ZC__SIDE_CLOSE, node); /* rule 3: not ZC_PENDING, no wake */
        return ZC_EINVAL;
    }
    return zc__wait_poll(ch, ZC__SIDE_CLOSE, node, w, closed_attempt, NULL);
}

void zc_sender_closed_init(zc_sender_closed *f, zc_sender *tx) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
}

zc_status zc_sender_closed_poll(zc_sender_closed *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__tx);
    return f && f->zc__tx ? closed_poll(f->zc__tx->ch, &f->zc__node, w) : ZC_EINVAL;
}

/* A cancel of a future that never waited, or completed, touches only the future. */
void zc_sender_closed_cancel(zc_sender_closed *f) {
    if (!f || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    if (f->zc__tx) zc__wait_cancel(f->zc__tx->ch, ZC__SIDE_CLOSE, &f->zc__node);
}

void zc_receiver_closed_init(zc_receiver_closed *f, zc_receiver *rx) {
    if (!f) return;
    ZC__CHECK_HANDLE(rx);
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

zc_status zc_receiver_closed_poll(zc_receiver_closed *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__rx);
    return f && f->zc__rx ? closed_poll(f->zc__rx->ch, &f->zc__node, w) : ZC_EINVAL;
}

void zc_receiver_closed_cancel(zc_receiver_closed *f) {
    if (!f || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__rx);
    if (f->zc__rx) zc__wait_cancel(f->zc__rx->ch, ZC__SIDE_CLOSE, &f->zc__node);
}

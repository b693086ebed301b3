/*
 * closed.c: the sender-closed and receiver-closed futures (zchan/closed.h).
 *
 * Needs the channel's third waiter list, zc__chan.close_waiters, initialised by
 * chan_new and notified (all of it) by chan_close after the close mark, like the other
 * two lists.
 *
 * Poll: the attempt looks at the close mark; the wait primitive (wait.c, side
 * ZC__SIDE_CLOSE) registers the node ([F2] in waitlist.c) and looks again. Why no wake-up is
 * lost: chan_close sets the mark with a seq_cst RMW before it takes the list's lock to
 * wake everyone; a node linked after that sweep was linked under the same lock, so the
 * register that linked it happens after the sweep's unlock and its re-check sees the
 * mark; a node linked before the sweep is woken by it. No wake-up is ever passed on:
 * close wakes every node of the list, so none can be owed to another.
 *
 * No atomics of its own: the mark is read by zc__ring_is_closed / zc__segq_is_closed
 * (seq_cst), the rest is waitlist.c's.
 */
#include <zchan/closed.h>

#include "wait.h"

static zc_status closed_attempt(zc__chan *ch, void *arg, unsigned *owed) {
    (void)arg, (void)owed;
    return zc__chan_is_closed(ch) ? ZC_OK : ZC_EMPTY;
}

static zc_status closed_poll(zc__chan *ch, zc__waiter *node, const zc_waker *w) {
    zc_status s = closed_attempt(ch, NULL, NULL);
    return zc__wait(ch, ZC__SIDE_CLOSE, node, w, closed_attempt, NULL, s, 0);
}

void zc_sender_closed_init(zc_sender_closed *f, zc_sender *tx) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
}

zc_status zc_sender_closed_poll(zc_sender_closed *f, const zc_waker *w) {
    if (!f || !f->zc__tx) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_sender_closed_cancel(f); /* rule 3 */
        return ZC_EINVAL;
    }
    return closed_poll(f->zc__tx->ch, &f->zc__node, w);
}

void zc_sender_closed_cancel(zc_sender_closed *f) {
    if (f && f->zc__tx) zc__wait_cancel(f->zc__tx->ch, ZC__SIDE_CLOSE, &f->zc__node);
}

void zc_receiver_closed_init(zc_receiver_closed *f, zc_receiver *rx) {
    if (!f) return;
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

zc_status zc_receiver_closed_poll(zc_receiver_closed *f, const zc_waker *w) {
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_receiver_closed_cancel(f); /* rule 3 */
        return ZC_EINVAL;
    }
    return closed_poll(f->zc__rx->ch, &f->zc__node, w);
}

void zc_receiver_closed_cancel(zc_receiver_closed *f) {
    if (f && f->zc__rx) zc__wait_cancel(f->zc__rx->ch, ZC__SIDE_CLOSE, &f->zc__node);
}

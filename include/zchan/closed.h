/**
 * @file zchan/closed.h
 * Futures that complete when the other side of an MPMC channel has gone: a sender
 * learns that no receiver is left (or that the channel was closed), a receiver that no
 * sender is left (or that it was closed), without sending or receiving anything. A
 * producer can stop computing messages nobody will take; a consumer can wait for the
 * end of a stream alongside other work (in a select loop of its executor).
 *
 * Both wait for the same event: the channel's close. Dropping the last receiver closes
 * the channel (zc_receiver_drop), and so does dropping the last sender, so "no receiver
 * left" and "no sender left" are each a close; the two futures differ only in the
 * handle they are made from.
 *
 * Algorithm: the future's waiter node sits in the channel's third waiter list, which
 * only close notifies (all of it, as it does the senders' and receivers' lists);
 * register-then-recheck against the close mark, as every zchan future. Sources: tokio's
 * mpsc Sender::closed(); the waiter list of src/waitlist.c.
 *
 * | call                              | concurrent with                              |
 * |-----------------------------------|----------------------------------------------|
 * | poll, cancel of one future        | not with each other (one owner per future)   |
 * | futures on one channel            | everything, any number of them               |
 */
#ifndef ZCHAN_CLOSED_H
#define ZCHAN_CLOSED_H

#include <zchan/mpmc.h>
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_closed Closed futures (zchan/closed.h)
 * @copydoc zchan/closed.h
 * @{
 */

/** Completes when no receiver is left or the channel is closed. Caller-allocated;
 *  fields private. It must not move while it is pending. */
typedef struct zc_sender_closed {
    zc__waiter zc__node;
    zc_sender *zc__tx;
} zc_sender_closed;

/** Completes when no sender is left or the channel is closed. Caller-allocated;
 *  fields private. It must not move while it is pending. */
typedef struct zc_receiver_closed {
    zc__waiter zc__node;
    zc_receiver *zc__rx;
} zc_receiver_closed;

/**
 * Prepare a future that completes once the channel of tx is closed (no receiver left,
 * or closed by any handle).
 *
 * @param f   The future; NULL does nothing.
 * @param tx  Sender handle; must stay alive while the future is pending. NULL makes
 *            every poll return ZC_EINVAL.
 */
ZC_EXPORT void zc_sender_closed_init(zc_sender_closed *f, zc_sender *tx);

/**
 * Drive the future: ZC_OK once the channel is closed, else register w.
 *
 * @param f  An initialised future.
 * @param w  Waker to call once the channel is closed; copied.
 * @return ZC_OK (closed; polled again it stays ZC_OK); ZC_PENDING (registered with w);
 *         ZC_EINVAL (f, w, w->wake or the handle NULL).
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Wakes: nothing (it sends and receives nothing).
 */
ZC_EXPORT zc_status zc_sender_closed_poll(zc_sender_closed *f, const zc_waker *w);

/**
 * Cancel the future: deregister it. When cancel returns, its waker is not running and
 * will not be called (unless cancel is called from inside that wake).
 *
 * @param f  The future; NULL, never polled or completed: nothing happens.
 */
ZC_EXPORT void zc_sender_closed_cancel(zc_sender_closed *f);

/**
 * Prepare a future that completes once the channel of rx is closed (no sender left, or
 * closed by any handle). Messages may still be waiting to be received then.
 *
 * @param f   The future; NULL does nothing.
 * @param rx  Receiver handle; must stay alive while the future is pending. NULL makes
 *            every poll return ZC_EINVAL.
 */
ZC_EXPORT void zc_receiver_closed_init(zc_receiver_closed *f, zc_receiver *rx);

/**
 * Drive the future: ZC_OK once the channel is closed, else register w.
 *
 * @param f  An initialised future.
 * @param w  Waker to call once the channel is closed; copied.
 * @return ZC_OK (closed; polled again it stays ZC_OK); ZC_PENDING (registered with w);
 *         ZC_EINVAL (f, w, w->wake or the handle NULL).
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Wakes: nothing.
 */
ZC_EXPORT zc_status zc_receiver_closed_poll(zc_receiver_closed *f, const zc_waker *w);

/**
 * Cancel the future: deregister it (see zc_sender_closed_cancel).
 *
 * @param f  The future; NULL, never polled or completed: nothing happens.
 */
ZC_EXPORT void zc_receiver_closed_cancel(zc_receiver_closed *f);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_CLOSED_H */

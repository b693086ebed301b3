/**
 * @file zchan/batch.h
 * Batches on the MPMC channel: send or receive many messages in one call, as try
 * operations, poll-style futures and blocking calls. (The two-phase send is in
 * zchan/permit.h.)
 *
 * Messages of a batch are elem_size bytes each, laid out one after the other (an array).
 *
 * A batch of 0 (n or max 0), the natural last turn of a loop that sends or takes what is
 * left, returns ZC_OK having moved nothing (*sent or *got 0), in every form (try,
 * futures, blocking, timed), without looking at the channel (so also once it is
 * closed); its msgs or out may then be NULL, since nothing is read or written.
 *
 * Algorithm. On a bounded channel a batch claims k consecutive slots of the ring with
 * one CAS on its tail (a receive: on its head), after checking that all k slots are
 * free (published); then it copies and publishes each slot, as k single operations
 * would, so single and batch operations mix freely on one channel. A batch never claims
 * a slot it has not seen ready, so one that finds too little room has committed nothing.
 * Source: D. Vyukov's bounded MPMC queue with crossbeam-channel's {lap | index} stamps;
 * the multi-slot claim is that of DPDK's rte_ring bulk/burst operations, here over
 * per-slot stamps (src/queue/ring_batch.c). On an unbounded channel a batch is a loop of
 * single operations (its segmented queue has no multi-slot claim); the differences are
 * noted at each call.
 *
 * Waking: a batch that sent k messages wakes up to k waiting receivers; a batch that
 * received k messages from a bounded channel wakes up to k waiting senders (one per
 * message or slot, as k single operations would: zchan/waker.h).
 *
 * | call                                       | concurrent with                         |
 * |--------------------------------------------|-----------------------------------------|
 * | try_send_many, send_many futures, blocking | everything, from any number of threads  |
 * | try_recv_many, recv_many futures, blocking | everything, from any number of threads  |
 * | poll/cancel of one future                  | not with each other (one owner)         |
 */
#ifndef ZCHAN_BATCH_H
#define ZCHAN_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/mpmc.h>
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_batch Batches (zchan/batch.h)
 * @copydoc zchan/batch.h
 * @{
 */

/** Flag for the send_many calls: send all n messages as one claim, or none of them.
 *  On a bounded channel n must not exceed the capacity (ZC_EINVAL otherwise: it could
 *  never fit). Without it a batch sends as many as fit. */
#define ZC_ALL_OR_NOTHING 1u

/**
 * Try to send n messages without waiting or registering a waker.
 *
 * Without ZC_ALL_OR_NOTHING: sends as many as fit, in order, from the first on. They are
 * usually one consecutive run of the channel's order; when a receiver is still releasing
 * a slot (or on an unbounded channel) the batch is split into several claims, and sends
 * of other threads may land between them. With ZC_ALL_OR_NOTHING on a bounded channel:
 * all n in one claim (consecutive in the channel's order), or none and ZC_FULL. On an
 * unbounded channel nothing is ever full, but the messages go in one by one: sends of
 * other threads may land between them, and a close or an allocation failure in the
 * middle leaves the first *sent sent even with the flag.
 * Nothing else cuts such a batch once its first message is in: a sender installing the
 * next segment is waited out (as zc_try_send does), also by the futures and the timed
 * calls, so a deadline or a cancel never leaves part of it sent.
 *
 * @param tx     Sender handle.
 * @param msgs   n * elem_size bytes; read during the call only.
 * @param n      Messages to send; 0: ZC_OK at once, nothing sent.
 * @param sent   Where the count of messages sent goes (the first *sent of msgs), written
 *               on every status (0 on ZC_EINVAL); may be NULL.
 * @param flags  0 or ZC_ALL_OR_NOTHING.
 * @return ZC_OK (all n sent); ZC_FULL (bounded: the channel filled up, at some moment of
 *         the call, before all were sent: *sent were sent, the rest are the caller's);
 *         ZC_CLOSED (closed; the *sent sent before it stay in the channel); ZC_ENOMEM
 *         (unbounded, could not grow; *sent were sent); ZC_EINVAL (tx NULL, msgs NULL with n > 0,
 *         an unknown flag, or ZC_ALL_OR_NOTHING with n above a bounded capacity).
 *
 * Thread safety: any number of concurrent senders and receivers.
 * Progress: as zc_try_send: waits out a receiver stalled mid-release on a slot it needs.
 * Ordering: each send happens-before the receive that returns its message.
 * Wakes: up to *sent waiting receivers.
 */
ZC_EXPORT zc_status zc_try_send_many(zc_sender *tx, const void *msgs, size_t n, size_t *sent,
                                     unsigned flags);

/**
 * Try to receive up to max messages without waiting or registering a waker.
 *
 * Takes the oldest messages, in order, into out[0 .. *got). On a bounded channel this is
 * one claim of the messages published from the oldest on (it stops early at a message
 * whose sender is still writing it, rather than wait, and at a place released unused by
 * a permit, zchan/permit.h: the next call passes over that hole).
 *
 * @param rx   Receiver handle.
 * @param out  max * elem_size writable bytes; only the first *got messages are written.
 * @param max  Most messages to take; 0: ZC_OK at once, *got 0.
 * @param got  Where the count of messages taken goes (0 unless ZC_OK); not NULL.
 * @return ZC_OK (*got >= 1, or 0 for max 0); ZC_EMPTY (as zc_try_recv: open and nothing waiting, or a
 *         reserved place next); ZC_CLOSED (closed and drained);
 *         ZC_EINVAL (rx or got NULL, or out NULL with max > 0).
 *
 * Thread safety: any number of concurrent senders and receivers.
 * Progress: as zc_try_recv when nothing is ready yet.
 * Wakes: up to *got waiting senders (bounded channels).
 */
ZC_EXPORT zc_status zc_try_recv_many(zc_receiver *rx, void *out, size_t max, size_t *got);

/** A batch send as a poll-style future. Caller-allocated; fields are private. It must
 *  not move while it is pending. */
typedef struct zc_send_many {
    zc__waiter zc__node;
    zc_sender *zc__tx;
    const void *zc__msgs;
    size_t zc__n;
    size_t zc__sent;        /* messages sent so far */
    size_t zc__passed_head; /* all-or-nothing: the ring's head when it last passed a wake-up on */
    unsigned zc__flags;     /* as given to init */
    bool zc__passed;        /* zc__passed_head holds a value */
    bool zc__held;          /* reserved; always false */
    int zc__done;           /* 0 while not complete, else the final zc_status + 1 */
} zc_send_many;

/**
 * Prepare a batch send future. Does nothing else: the first poll starts sending.
 *
 * @param f      The future; NULL does nothing.
 * @param tx     Sender handle; must stay alive until the future completes or is
 *               cancelled. NULL makes every poll return ZC_EINVAL.
 * @param msgs   n * elem_size bytes, borrowed until the future completes or is
 *               cancelled. NULL (n > 0) makes every poll return ZC_EINVAL.
 * @param n      Messages to send; 0: the first poll returns ZC_OK, nothing sent.
 * @param flags  0 or ZC_ALL_OR_NOTHING (anything else: every poll returns ZC_EINVAL).
 */
ZC_EXPORT void zc_send_many_init(zc_send_many *f, zc_sender *tx, const void *msgs, size_t n,
                                 unsigned flags);

/**
 * Drive a batch send: send what fits, and wait for room for the rest.
 *
 * Without ZC_ALL_OR_NOTHING each poll sends as many of the remaining messages as fit,
 * in order, and the future completes once all n are sent. A poll that sent part of them
 * waits for the rest behind the senders already waiting, as a new send would (it steps
 * off the list to wake receivers for what it sent). With ZC_ALL_OR_NOTHING
 * (bounded channel) a poll sends all n at once or nothing, and the future waits until n
 * slots are free at once (unbounded: a poll that sent the first message sends the rest
 * before it returns; see zc_try_send_many). Such a waiter never holds back the senders
 * behind it: woken while fewer than n slots are free, it passes the wake-up on to the
 * next waiting sender and waits again at the back (at most once per slot freed, so two
 * such waiters cannot wake each other forever). The price is that smaller sends may
 * overtake it; under a steady stream of them it can wait long.
 *
 * @param f  An initialised future.
 * @param w  Waker to call once the send may progress; copied.
 * @return ZC_OK (all n sent); ZC_CLOSED (closed: zc_send_many_sent tells how many were
 *         sent before it, the rest are the caller's); ZC_PENDING (registered with w);
 *         ZC_ENOMEM (unbounded, could not grow; may be polled again); ZC_EINVAL (f, w,
 *         w->wake or the handle NULL, msgs NULL with n > 0, an unknown flag, or ZC_ALL_OR_NOTHING
 *         with n above the capacity). A future that returned ZC_OK or ZC_CLOSED returns
 *         the same again and sends nothing more.
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Wakes: up to as many waiting receivers as it sent messages; an unused wake-up is
 *        passed on to the next waiting sender.
 */
ZC_EXPORT zc_status zc_send_many_poll(zc_send_many *f, const zc_waker *w);

/**
 * How many of the future's messages have been sent (the first that many of msgs).
 *
 * @param f  An initialised future; NULL gives 0.
 * @return 0 .. n; n once it completed with ZC_OK.
 *
 * Thread safety: the future's owner, between polls.
 */
ZC_EXPORT size_t zc_send_many_sent(const zc_send_many *f);

/**
 * Cancel a batch send: deregister it, passing on any wake-up it absorbed. Messages
 * already sent stay sent (zc_send_many_sent counts them); the others are the caller's.
 * A later poll continues with the messages not yet sent. When cancel returns the waker
 * is not running and will not be called (unless cancel is called from inside it).
 *
 * @param f  The future; NULL, never polled or completed: nothing happens.
 *
 * Thread safety: the future's owner; may be called from inside the future's own wake.
 */
ZC_EXPORT void zc_send_many_cancel(zc_send_many *f);

/** A batch receive (and a stream of them) as a poll-style future. Caller-allocated. */
typedef struct zc_recv_many {
    zc__waiter zc__node;
    zc_receiver *zc__rx;
} zc_recv_many;

/**
 * Prepare a batch receive future (also a stream: after ZC_OK it may be polled again).
 *
 * @param f   The future; NULL does nothing.
 * @param rx  Receiver handle; must stay alive while the future is pending. NULL makes
 *            every poll return ZC_EINVAL.
 */
ZC_EXPORT void zc_recv_many_init(zc_recv_many *f, zc_receiver *rx);

/**
 * Drive a batch receive: wait for at least one message, then take up to max.
 *
 * @param f    An initialised future.
 * @param w    Waker to call once a message (or close) may be available.
 * @param out  max * elem_size writable bytes; the first *got messages are written on ZC_OK.
 * @param max  Most messages to take; 0: ZC_OK at once, *got 0 (a pending future is
 *             cancelled first).
 * @param got  Where the count taken goes (0 unless ZC_OK); not NULL.
 * @return ZC_OK (*got >= 1, the oldest messages in order; 0 for max 0); ZC_CLOSED (closed
 *         and drained); ZC_PENDING; ZC_EINVAL (f, w, w->wake, the handle or got NULL, or
 *         out NULL with max > 0).
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Wakes: up to *got waiting senders (bounded); a cancel passes an unused wake-up on.
 */
ZC_EXPORT zc_status zc_recv_many_poll(zc_recv_many *f, const zc_waker *w, void *out,
                                      size_t max, size_t *got);

/**
 * Cancel a batch receive: deregister it, passing on any wake-up it absorbed. A cancelled
 * receive took nothing.
 *
 * @param f  The future; NULL does nothing.
 */
ZC_EXPORT void zc_recv_many_cancel(zc_recv_many *f);

/**
 * Send n messages, parking the calling thread while there is no room (a zc_send_many
 * future driven by a parker).
 *
 * @param tx     Sender handle.
 * @param msgs   n * elem_size bytes, read until the call returns.
 * @param n      Messages to send; 0: ZC_OK at once, nothing sent.
 * @param sent   Where the count sent goes (n on ZC_OK); may be NULL.
 * @param flags  0 or ZC_ALL_OR_NOTHING (waits until n slots are free at once).
 * @return ZC_OK; ZC_CLOSED (the first *sent were sent); ZC_ENOMEM; ZC_EINVAL (as
 *         zc_try_send_many).
 *
 * Thread safety: any number of threads at once.
 */
ZC_EXPORT zc_status zc_send_many_blocking(zc_sender *tx, const void *msgs, size_t n,
                                          size_t *sent, unsigned flags);

/**
 * As zc_send_many_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param tx          Sender handle.
 * @param msgs        n * elem_size bytes, read until the call returns.
 * @param n           Messages to send; 0: ZC_OK at once, nothing sent.
 * @param sent        Where the count sent goes; may be NULL.
 * @param flags       0 or ZC_ALL_OR_NOTHING.
 * @param timeout_ns  Nanoseconds on CLOCK_MONOTONIC; 0 makes one attempt; UINT64_MAX
 *                    waits forever.
 * @return as zc_send_many_blocking, plus ZC_TIMEDOUT (the first *sent were sent, the
 *         rest are the caller's; 0 with ZC_ALL_OR_NOTHING). With ZC_ALL_OR_NOTHING on an
 *         unbounded channel, a batch that has begun is finished (see zc_try_send_many):
 *         a sender stalled while it installs the next segment can make the call return
 *         after the deadline, with ZC_OK.
 */
ZC_EXPORT zc_status zc_send_many_timeout(zc_sender *tx, const void *msgs, size_t n,
                                         size_t *sent, unsigned flags, uint64_t timeout_ns);

/**
 * Receive up to max messages, parking the calling thread until there is at least one.
 *
 * @param rx   Receiver handle.
 * @param out  max * elem_size writable bytes.
 * @param max  Most messages to take; 0: ZC_OK at once, *got 0.
 * @param got  Where the count taken goes; not NULL.
 * @return ZC_OK (*got >= 1, or 0 for max 0); ZC_CLOSED (closed and drained); ZC_EINVAL.
 */
ZC_EXPORT zc_status zc_recv_many_blocking(zc_receiver *rx, void *out, size_t max, size_t *got);

/**
 * As zc_recv_many_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param rx          Receiver handle.
 * @param out         max * elem_size writable bytes.
 * @param max         Most messages to take; 0: ZC_OK at once, *got 0.
 * @param got         Where the count taken goes; not NULL.
 * @param timeout_ns  Nanoseconds on CLOCK_MONOTONIC; 0 makes one attempt; UINT64_MAX
 *                    waits forever.
 * @return as zc_recv_many_blocking, plus ZC_TIMEDOUT (nothing was taken).
 */
ZC_EXPORT zc_status zc_recv_many_timeout(zc_receiver *rx, void *out, size_t max, size_t *got,
                                         uint64_t timeout_ns);

/**
 * As zc_send_many_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * (clock_gettime(CLOCK_MONOTONIC), in nanoseconds), for loops that share one deadline
 * across several calls.
 *
 * @param tx           Sender handle.
 * @param msgs         n * elem_size bytes, read until the call returns.
 * @param n            Messages to send, as for zc_send_many_blocking.
 * @param sent         Where the count sent goes; may be NULL.
 * @param flags        0 or ZC_ALL_OR_NOTHING.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return as zc_send_many_timeout, ZC_TIMEDOUT once the deadline has passed (the first
 *         *sent were sent, the rest are the caller's).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_send_many future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_send_many_until(zc_sender *tx, const void *msgs, size_t n,
                                       size_t *sent, unsigned flags, uint64_t deadline_ns);

/**
 * As zc_recv_many_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time in
 * nanoseconds (see zc_send_many_until).
 *
 * @param rx           Receiver handle.
 * @param out          max * elem_size writable bytes.
 * @param max          Most messages to take, as for zc_recv_many_blocking.
 * @param got          Where the count taken goes; not NULL.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return as zc_recv_many_blocking, plus ZC_TIMEDOUT (the deadline passed: nothing was
 *         taken).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_recv_many future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_recv_many_until(zc_receiver *rx, void *out, size_t max, size_t *got,
                                       uint64_t deadline_ns);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_BATCH_H */

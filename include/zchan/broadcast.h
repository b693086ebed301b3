/**
 * @file zchan/broadcast.h
 * The broadcast channel: every message goes to every receiver that existed when it was
 * sent. Built with the CMake option ZCHAN_BROADCAST (ON by default; then zchan/config.h
 * defines ZCHAN_HAS_BROADCAST).
 *
 * A bounded ring of cap messages shared by all receivers; each receiver has its own
 * position in it, and each slot counts the receivers that still have to read it. A
 * receiver gets a copy of the message (memcpy, or the config's clone_msg); the last
 * receiver to read a slot gets the original instead of a copy. A message (original or
 * copy) that no receiver will get is passed to drop_msg, once: so every copy that
 * exists is received exactly once or dropped exactly once.
 *
 * Two modes, chosen at creation:
 * - ZC_BCAST_BACKPRESSURE: a send waits while the slowest receiver is cap messages
 *   behind (the ring is full); nothing is ever lost.
 * - ZC_BCAST_OVERFLOW: sends never wait; a send into a full ring overwrites the oldest
 *   message (dropping it). A receiver that fell behind gets ZC_LAGGED with the exact
 *   number of messages it missed, then continues from the oldest message still held.
 *
 * Receivers: zc_bcast_new returns the first (or none, if asked; zc_bcast_resubscribe
 * also makes one from a receiver); zc_bcast_subscribe (from a sender) makes a
 * receiver that sees only messages sent after it; zc_bcast_receiver_clone makes one at
 * the same position as the original (it will see what the original has still to see).
 * Unlike MPMC receivers, each broadcast receiver handle is a separate allocation.
 * The last sender's drop closes the channel (receivers drain what is left for them,
 * then get ZC_CLOSED); so does the last receiver's drop (sends then fail with
 * ZC_CLOSED: keep a receiver, or subscribe, before dropping the last one).
 *
 * Locking (v1): one mutex per channel guards the ring, the positions and the counts, in
 * the manner of tokio's broadcast (a tail mutex plus a lock per slot); the waiter lists
 * are zchan's own (src/waitlist.h), and no wake is called with the mutex held. clone_msg
 * and drop_msg run with the mutex held: they must not call into the same channel. A
 * send costs O(1) plus one wake per waiting receiver; a receive O(1); cloning or
 * dropping a receiver O(cap).
 *
 * | call                                  | concurrent with                             |
 * |---------------------------------------|---------------------------------------------|
 * | send, recv (try, futures, blocking)   | everything, from any number of threads      |
 * | clone, subscribe, close, info         | everything                                  |
 * | drop(h)                               | everything except other uses of the same h  |
 * | poll/cancel of one future             | not with each other (one owner per future)  |
 */
#ifndef ZCHAN_BROADCAST_H
#define ZCHAN_BROADCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/mpmc.h> /* zc_info, and the waiter node futures embed */
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_broadcast Broadcast channel (zchan/broadcast.h)
 * @copydoc zchan/broadcast.h
 * @{
 */

/** A sending handle. Counted: each one a constructor or clone returns is dropped once. */
typedef struct zc_bcast_sender zc_bcast_sender;
/** A receiving handle with its own position. Each one zc_bcast_new, zc_bcast_subscribe
 *  or zc_bcast_receiver_clone returns is dropped once. */
typedef struct zc_bcast_receiver zc_bcast_receiver;

/** What a send does when the ring is full. */
typedef enum zc_bcast_mode {
    ZC_BCAST_BACKPRESSURE = 0, /**< the send waits (ZC_FULL from try_send); nothing lost */
    ZC_BCAST_OVERFLOW = 1      /**< the oldest message is overwritten; laggers get ZC_LAGGED */
} zc_bcast_mode;

/** How to make a broadcast channel. */
typedef struct zc_bcast_config {
    size_t elem_size;   /**< bytes per message, >= 1 */
    zc_bcast_mode mode; /**< ZC_BCAST_BACKPRESSURE or ZC_BCAST_OVERFLOW */
    /** Optional: makes the copy a receiver gets (elem_size bytes from src into dst), for
     *  messages that own resources. NULL: a byte copy. Runs with the channel's mutex
     *  held; must not fail and must not call into this channel. */
    void (*clone_msg)(void *dst, const void *src, void *ctx);
    /** Optional: disposes of a message (the original or a copy) that no receiver will
     *  get: overwritten in overflow mode, or left for a receiver that was dropped. Runs
     *  with the mutex held; must not call into this channel. NULL: forgotten. */
    void (*drop_msg)(void *msg, void *ctx);
    void *ctx; /**< passed to clone_msg and drop_msg, never dereferenced by zchan */
    /* The channel's messages lie elem_size bytes apart in one malloc'd array: the src of
     * clone_msg and the msg of drop_msg are aligned for a type of size elem_size whose
     * alignment is at most alignof(max_align_t). dst is the receiver's out buffer. */
} zc_bcast_config;

/**
 * Create a broadcast channel holding at most cap messages of cfg->elem_size bytes.
 *
 * All memory is allocated here (cap * (elem_size + sizeof(size_t)) bytes plus the
 * channel); sends and receives never allocate.
 *
 * @param cap  Capacity in messages, >= 1.
 * @param cfg  Element size, mode, optional clone_msg / drop_msg; read during the call.
 * @param tx   Receives the first sender handle; the caller owns it and drops it once.
 * @param rx   Receives the first receiver handle; the caller owns it and drops it once.
 *             NULL: no receiver wanted; the channel starts open with none (receivers
 *             come with zc_bcast_subscribe), and a send meanwhile reaches nobody (its
 *             message goes to drop_msg at once; zc_bcast_try_send_counted says 0).
 * @return ZC_OK; ZC_EINVAL (cap 0, cfg NULL, elem_size 0, unknown mode, tx NULL, size
 *         overflow); ZC_ENOMEM. On failure *tx and *rx (where not NULL) are NULL.
 *
 * Thread safety: any thread.
 * Source: tokio::sync::broadcast (ring with per-slot remaining-reader counts, lagged
 *         receivers skip to the oldest message held).
 */
ZC_EXPORT zc_status zc_bcast_new(size_t cap, const zc_bcast_config *cfg, zc_bcast_sender **tx,
                                 zc_bcast_receiver **rx);

/**
 * Make another sender handle for the same channel (counted: allocates nothing; the
 * checked build allocates a handle object, as zc_sender_clone does).
 *
 * @param tx  A live sender handle, or NULL.
 * @return A handle the caller drops once (it may compare equal to tx); NULL if tx is NULL
 *         (or, in the checked build only, out of memory).
 */
ZC_EXPORT zc_bcast_sender *zc_bcast_sender_clone(zc_bcast_sender *tx);

/**
 * Give up a sender handle. The last sender's drop closes the channel; the channel's
 * memory goes with the last handle of either kind.
 *
 * @param tx  A live sender handle, or NULL (nothing happens).
 */
ZC_EXPORT void zc_bcast_sender_drop(zc_bcast_sender *tx);

/**
 * Close the channel: no send can succeed any more; every receiver can still receive
 * what was sent before, then gets ZC_CLOSED. Wakes every waiting sender and receiver.
 *
 * @param tx  A live sender handle, or NULL.
 * @return true if this call closed the channel; false if it was closed already or tx is
 *         NULL.
 */
ZC_EXPORT bool zc_bcast_sender_close(zc_bcast_sender *tx);

/**
 * Make a new receiver that will see every message sent from now on (none before).
 *
 * @param tx  A live sender handle, or NULL.
 * @return The receiver, which the caller drops once; NULL if tx is NULL or memory ran
 *         out. On a closed channel the receiver sees ZC_CLOSED at once.
 */
ZC_EXPORT zc_bcast_receiver *zc_bcast_subscribe(zc_bcast_sender *tx);

/**
 * Make a new receiver from a receiver, as zc_bcast_subscribe does from a sender: it will
 * see every message sent from now on, none of those rx has still to read. Works once
 * every sender is gone too (the new receiver then sees ZC_CLOSED at once). Anchor:
 * tokio's Receiver::resubscribe.
 *
 * @param rx  A live receiver handle, or NULL.
 * @return The receiver, which the caller drops once; NULL if rx is NULL or memory ran
 *         out.
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_bcast_receiver *zc_bcast_resubscribe(zc_bcast_receiver *rx);

/**
 * Make a new receiver at rx's position: it will see every message rx has still to see
 * (and, in overflow mode, the same ZC_LAGGED if rx has fallen behind).
 *
 * @param rx  A live receiver handle, or NULL.
 * @return The receiver, which the caller drops once; NULL if rx is NULL or memory ran
 *         out.
 *
 * Cost: O(cap) under the mutex (each held message it will see counts one more reader).
 */
ZC_EXPORT zc_bcast_receiver *zc_bcast_receiver_clone(zc_bcast_receiver *rx);

/**
 * Give up a receiver handle and free it. The messages it had still to read are given up
 * (each one no other receiver will read goes to drop_msg), which may let waiting
 * senders on. The last receiver's drop closes the channel, for good: a receiver made
 * afterwards (zc_bcast_subscribe, zc_bcast_resubscribe) sees ZC_CLOSED, and sends fail
 * with ZC_CLOSED. (A channel made without a receiver is open until its first receiver
 * has come and gone.)
 *
 * @param rx  A live receiver handle, or NULL (nothing happens).
 *
 * Cost: O(cap) under the mutex.
 */
ZC_EXPORT void zc_bcast_receiver_drop(zc_bcast_receiver *rx);

/**
 * As zc_bcast_sender_close, through a receiver (what is held stays receivable).
 *
 * @param rx  A live receiver handle, or NULL.
 * @return true if this call closed the channel; false if it was closed already or rx is
 *         NULL.
 */
ZC_EXPORT bool zc_bcast_receiver_close(zc_bcast_receiver *rx);

/**
 * Try to send one message to every current receiver, without waiting.
 *
 * @param tx   Sender handle.
 * @param msg  elem_size bytes; read during the call only. On ZC_OK the message has
 *             moved into the channel (what it owns now belongs to the channel, which
 *             hands it to receivers or to drop_msg); on any other status it is still
 *             the caller's.
 * @return ZC_OK; ZC_FULL (back-pressure mode, the slowest receiver is cap behind);
 *         ZC_CLOSED; ZC_EINVAL (tx or msg NULL). Overflow mode never returns ZC_FULL:
 *         the oldest message is overwritten (and passed to drop_msg).
 *
 * Wakes: every waiting receiver (each has a new message).
 */
ZC_EXPORT zc_status zc_bcast_try_send(zc_bcast_sender *tx, const void *msg);

/**
 * zc_bcast_try_send, saying how many receivers the message reached (tokio's send
 * returns the same count).
 *
 * @param tx       Sender handle.
 * @param msg      elem_size bytes, as for zc_bcast_try_send.
 * @param reached  Optional (NULL: not reported): on ZC_OK, the receivers the message was
 *                 sent to, those there at the send (fewer may read it: one dropped
 *                 meanwhile, or one that lags past it in overflow mode, does not); 0 on
 *                 a channel made without a receiver that has none yet (the message
 *                 went to drop_msg); 0 on any other status.
 * @return As zc_bcast_try_send.
 */
ZC_EXPORT zc_status zc_bcast_try_send_counted(zc_bcast_sender *tx, const void *msg,
                                              size_t *reached);

/**
 * Try to receive this receiver's next message, without waiting.
 *
 * @param rx      Receiver handle.
 * @param out     elem_size writable bytes; written only on ZC_OK.
 * @param missed  Optional (NULL: not reported): on ZC_LAGGED, the number of messages
 *                this receiver missed; written only on ZC_LAGGED.
 * @return ZC_OK; ZC_EMPTY (nothing new, open); ZC_LAGGED (overflow mode: messages this
 *         receiver had not read were overwritten; it now stands at the oldest message
 *         held, which the next receive returns); ZC_CLOSED (closed, and this receiver
 *         has read everything); ZC_EINVAL (rx or out NULL).
 *
 * Wakes: in back-pressure mode, a waiting sender when this was the last receiver to
 *        read the oldest message (a slot was freed).
 */
ZC_EXPORT zc_status zc_bcast_try_recv(zc_bcast_receiver *rx, void *out, uint64_t *missed);

/**
 * A snapshot of the channel. Through a sender, len is the number of messages held (not
 * yet read by every receiver that will read them); through a receiver, the number of
 * messages held that this receiver has still to read.
 *
 * @param tx   Sender handle.
 * @param out  Filled on ZC_OK (len, capacity, senders, receivers, closed).
 * @return ZC_OK; ZC_EINVAL (a NULL argument).
 *
 * Thread safety: any thread; the snapshot is taken under the channel's mutex.
 */
ZC_EXPORT zc_status zc_bcast_sender_info(const zc_bcast_sender *tx, zc_info *out);

/**
 * As zc_bcast_sender_info, through a receiver: len is what this receiver has still to
 * read.
 *
 * @param rx   Receiver handle.
 * @param out  Filled on ZC_OK.
 * @return ZC_OK; ZC_EINVAL (a NULL argument).
 */
ZC_EXPORT zc_status zc_bcast_receiver_info(const zc_bcast_receiver *rx, zc_info *out);

/* ---- Futures (caller-allocated; fields private; must not move while pending) ------- */

/** A broadcast send as a poll-style future. */
typedef struct zc_bcast_send {
    zc__waiter zc__node;
    zc_bcast_sender *zc__tx;
    const void *zc__msg;
    int zc__done; /* 0 while not complete, else the final zc_status + 1 */
} zc_bcast_send;

/** A broadcast receive (and a stream of them) as a poll-style future. */
typedef struct zc_bcast_recv {
    zc__waiter zc__node;
    zc_bcast_receiver *zc__rx;
} zc_bcast_recv;

/** The senders' closed event as a poll-style future: complete once no receiver can take
 *  a message any more (the channel is closed, or has no receiver). */
typedef struct zc_bcast_closed {
    zc__waiter zc__node;
    zc_bcast_sender *zc__tx;
} zc_bcast_closed;

/**
 * Prepare a closed-event future for tx's channel (tokio's Sender::closed). Not on a
 * pending future (cancel it first).
 *
 * @param f   The future; NULL does nothing.
 * @param tx  Sender handle, alive until the future completes or is cancelled; NULL makes
 *            polls return ZC_EINVAL.
 */
ZC_EXPORT void zc_bcast_closed_init(zc_bcast_closed *f, zc_bcast_sender *tx);

/**
 * Poll the closed event.
 *
 * @param f  The future.
 * @param w  Waker to register if the event has not come.
 * @return ZC_OK once the channel is closed or has no receiver (a channel made without a
 *         receiver: at once, until one subscribes); ZC_PENDING (registered, rule 1);
 *         ZC_EINVAL (f NULL, its handle NULL, or w NULL or without a wake function).
 *
 * Thread safety: one poller at a time per future. Wakes: the close (or the last
 * receiver's drop) wakes every pending closed-event future.
 */
ZC_EXPORT zc_status zc_bcast_closed_poll(zc_bcast_closed *f, const zc_waker *w);

/**
 * Cancel a pending closed-event future: its waker is not called afterwards (rule 3).
 * Never polled, or complete: nothing happens.
 *
 * @param f  The future, or NULL.
 */
ZC_EXPORT void zc_bcast_closed_cancel(zc_bcast_closed *f);

/**
 * Prepare a send future. The first poll starts the send.
 *
 * @param f    The future; NULL does nothing.
 * @param tx   Sender handle, alive until the future completes or is cancelled; NULL
 *             makes polls return ZC_EINVAL.
 * @param msg  elem_size bytes, borrowed until the send completes or is cancelled; NULL
 *             makes polls return ZC_EINVAL.
 */
ZC_EXPORT void zc_bcast_send_init(zc_bcast_send *f, zc_bcast_sender *tx, const void *msg);

/**
 * Drive a send: complete it if the ring has room (always, in overflow mode), else
 * register w and return ZC_PENDING.
 *
 * @param f  An initialised send future.
 * @param w  Waker; copied.
 * @return ZC_OK (sent to every current receiver); ZC_CLOSED (nothing sent);
 *         ZC_PENDING; ZC_EINVAL (f, w, w->wake, the handle or msg NULL). A future that
 *         returned ZC_OK or ZC_CLOSED returns the same again and sends nothing more.
 *
 * Wakes: every waiting receiver; an absorbed, unused wake-up goes to the next sender.
 */
ZC_EXPORT zc_status zc_bcast_send_poll(zc_bcast_send *f, const zc_waker *w);

/**
 * Cancel a send: deregister it (passing on any wake-up it absorbed) and return it to its
 * just-initialised state. Nothing was sent. No-op on a never-polled or completed future.
 *
 * @param f  The future; NULL does nothing.
 */
ZC_EXPORT void zc_bcast_send_cancel(zc_bcast_send *f);

/**
 * Prepare a receive future (also a stream: after ZC_OK or ZC_LAGGED it may be polled
 * for the next message).
 *
 * @param f   The future; NULL does nothing.
 * @param rx  Receiver handle, alive while the future is pending; NULL makes polls
 *            return ZC_EINVAL.
 */
ZC_EXPORT void zc_bcast_recv_init(zc_bcast_recv *f, zc_bcast_receiver *rx);

/**
 * Drive a receive: take this receiver's next message if there is one, else register w.
 *
 * @param f       An initialised receive future.
 * @param w       Waker; copied.
 * @param out     elem_size writable bytes; written only on ZC_OK.
 * @param missed  Optional: on ZC_LAGGED, the number of messages missed.
 * @return As zc_bcast_try_recv, with ZC_PENDING for ZC_EMPTY; ZC_EINVAL also for w or
 *         w->wake NULL.
 *
 * Wakes: as zc_bcast_try_recv; an absorbed, unused wake-up is passed on.
 */
ZC_EXPORT zc_status zc_bcast_recv_poll(zc_bcast_recv *f, const zc_waker *w, void *out,
                                       uint64_t *missed);

/**
 * Cancel a receive: deregister it, passing on any wake-up it absorbed. It took nothing.
 *
 * @param f  The future; NULL does nothing.
 */
ZC_EXPORT void zc_bcast_recv_cancel(zc_bcast_recv *f);

/* ---- Blocking (the calling thread parks; zchan/block.h's parker) ------------------- */

/**
 * Send, parking the calling thread while the ring is full (back-pressure mode).
 *
 * @param tx   Sender handle.
 * @param msg  elem_size bytes, read until the call returns.
 * @return ZC_OK; ZC_CLOSED (nothing sent); ZC_EINVAL (tx or msg NULL).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_bcast_send future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_bcast_send_blocking(zc_bcast_sender *tx, const void *msg);

/**
 * Receive, parking the calling thread while this receiver has nothing new.
 *
 * @param rx      Receiver handle.
 * @param out     elem_size writable bytes; written only on ZC_OK.
 * @param missed  Optional: on ZC_LAGGED, the number of messages missed.
 * @return ZC_OK; ZC_LAGGED; ZC_CLOSED (closed, and everything read); ZC_EINVAL (rx or
 *         out NULL).
 */
ZC_EXPORT zc_status zc_bcast_recv_blocking(zc_bcast_receiver *rx, void *out,
                                           uint64_t *missed);

/**
 * As zc_bcast_send_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param tx          Sender handle.
 * @param msg         elem_size bytes, read until the call returns.
 * @param timeout_ns  0 makes one attempt; UINT64_MAX waits forever.
 * @return As zc_bcast_send_blocking, plus ZC_TIMEDOUT (nothing was sent).
 */
ZC_EXPORT zc_status zc_bcast_send_timeout(zc_bcast_sender *tx, const void *msg,
                                          uint64_t timeout_ns);

/**
 * As zc_bcast_recv_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param rx          Receiver handle.
 * @param out         elem_size writable bytes; written only on ZC_OK.
 * @param missed      Optional: on ZC_LAGGED, the number of messages missed.
 * @param timeout_ns  0 makes one attempt; UINT64_MAX waits forever.
 * @return As zc_bcast_recv_blocking, plus ZC_TIMEDOUT (nothing was taken).
 */
ZC_EXPORT zc_status zc_bcast_recv_timeout(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                                          uint64_t timeout_ns);

/**
 * As zc_bcast_send_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * (clock_gettime(CLOCK_MONOTONIC), in nanoseconds), for loops that share one deadline
 * across several calls.
 *
 * @param tx           Sender handle.
 * @param msg          elem_size bytes, read until the call returns.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return As zc_bcast_send_blocking, plus ZC_TIMEDOUT (the deadline passed: nothing was
 *         sent).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_bcast_send future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_bcast_send_until(zc_bcast_sender *tx, const void *msg,
                                        uint64_t deadline_ns);

/**
 * As zc_bcast_recv_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * in nanoseconds (see zc_bcast_send_until).
 *
 * @param rx           Receiver handle.
 * @param out          elem_size writable bytes; written only on ZC_OK.
 * @param missed       Optional: on ZC_LAGGED, the number of messages missed.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return As zc_bcast_recv_blocking, plus ZC_TIMEDOUT (the deadline passed: nothing was
 *         taken).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_bcast_recv future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_bcast_recv_until(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                                        uint64_t deadline_ns);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_BROADCAST_H */

/**
 * @file zchan/mpmc.h
 * The MPMC channel: any number of senders and receivers, each message received by
 * exactly one receiver, in the order the messages were sent.
 *
 * Three flavours behind one handle type:
 * - bounded (zc_bounded): a lock-free ring of exactly cap slots, any cap >= 1, with
 *   per-slot {lap, index} stamps. Source: D. Vyukov, "Bounded MPMC queue" (1024cores.net),
 *   as generalised by crossbeam-channel's array flavour (mark bit for close, no
 *   power-of-two rounding).
 * - unbounded (zc_unbounded): a list of 31-slot segments that grows as messages arrive
 *   and frees each segment once its messages have been received (see zc_unbounded).
 *   Source: crossbeam-channel's list flavour, with a retire list in place of its
 *   per-receive READ bit.
 * - rendezvous (zc_rendezvous): no buffer; a send completes when a receiver takes its
 *   message (a hand-off). Source: Go's unbuffered channels, crossbeam-channel's zero
 *   flavour.
 *
 * Waiting futures sit in intrusive FIFO waiter lists, one per side; with no waiter the
 * only extra cost of an operation is one atomic load (see src/waitlist.c).
 *
 * Which calls may run at the same time on one channel:
 *
 * | call                               | concurrent with                               |
 * |------------------------------------|-----------------------------------------------|
 * | try_send, send futures             | everything, from any number of threads        |
 * | try_recv, recv futures             | everything, from any number of threads        |
 * | clone, close, info                 | everything                                    |
 * | drop(h)                            | everything except other uses of the same h    |
 * | poll/cancel of one future          | not with each other (one owner per future)    |
 */
#ifndef ZCHAN_MPMC_H
#define ZCHAN_MPMC_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_mpmc MPMC channel (zchan/mpmc.h)
 * @copydoc zchan/mpmc.h
 * @{
 */

/** A sending handle. Counted: each one a constructor or clone returns is dropped once.
 *  The two handle types are distinct, so the compiler rejects a receiver where a sender
 *  is wanted; one cast to the other type anyway is caught by the clones (NULL) and the
 *  drops (nothing happens), where it would change the handle counts; any other call
 *  given one is undefined.
 *
 *  Misuse the contract leaves undefined (a handle used after its drop or dropped twice;
 *  a pending future moved, freed or initialised again; a channel's last handle dropped
 *  while a future is pending on it; a blocking call that would wait inside a wake
 *  callback) aborts at the misusing call, with a message on stderr naming the call and
 *  the object, in the checked build (CMake option ZCHAN_CHECKED: on in Debug builds by
 *  default, off in Release, where it costs nothing). The checked build keeps the public
 *  structs' layout: a program needs no rebuild to link either. It keeps the memory of
 *  the last 4,096 handles dropped, marked dead, so a use after drop is caught until
 *  that many more have been dropped; a later one may go unseen. */
typedef struct zc_sender zc_sender;
/** A receiving handle. Counted: each one a constructor or clone returns is dropped once.
 *  A sender cast to this type: as for zc_sender. */
typedef struct zc_receiver zc_receiver;
/** A weak sending handle (zc_sender_downgrade): it keeps the channel's memory but not the
 *  channel open, and gives a sender back while one is left (zc_weak_sender_upgrade). */
typedef struct zc_weak_sender zc_weak_sender;
/** A weak receiving handle (zc_receiver_downgrade), as zc_weak_sender. */
typedef struct zc_weak_receiver zc_weak_receiver;

/** How to make a channel. */
typedef struct zc_config {
    size_t elem_size; /**< bytes per message, >= 1 */
    /** Optional: disposes of a message no receiver will take, called once per such
     *  message when the last receiver is dropped (and for a message zc_force_send takes
     *  out with no evicted_out, during that call); msg points at elem_size bytes that are
     *  valid only during the call, aligned to 8 bytes (4 where size_t has 32 bits) and
     *  no more: a type that needs more (long double, __int128, an over-aligned struct)
     *  must be copied out with memcpy before use. NULL: such messages are simply
     *  forgotten. (Receives copy into the caller's buffer, aligned as the caller made it.) */
    void (*drop_msg)(void *msg, void *ctx);
    void *drop_ctx; /**< passed to drop_msg, never dereferenced by zchan */
} zc_config;

/** A snapshot of a channel's state (see zc_sender_info). */
typedef struct zc_info {
    size_t len;       /**< messages held now; bounded: places taken, which also counts
                           reserved places (zchan/permit.h) and released ones that no
                           receive has passed yet */
    size_t capacity;  /**< cap in messages; SIZE_MAX for unbounded */
    size_t senders;   /**< live sender handles */
    size_t receivers; /**< live receiver handles */
    bool closed;      /**< no send can succeed any more */
} zc_info;

/**
 * Create a bounded channel holding at most cap messages of cfg->elem_size bytes.
 *
 * All cap slots are allocated here, in one block with the channel: three 128-byte lines
 * of indices, waiter lists and counts, then cap * round_up(8 + elem_size, 8) bytes of
 * slots. Sending and receiving never allocate.
 *
 * @param cap  Capacity in messages, >= 1; any value, not rounded.
 * @param cfg  Element size and optional drop_msg; read during the call only.
 * @param tx   Receives the first sender handle; the caller owns it and drops it once.
 * @param rx   Receives the first receiver handle; the caller owns it and drops it once.
 * @return ZC_OK; ZC_EINVAL (cap 0, cfg NULL, elem_size 0, tx or rx NULL, size overflow);
 *         ZC_ENOMEM (allocation failed). On failure *tx and *rx (where not NULL) are NULL
 *         and nothing was created.
 *
 * Thread safety: any thread.
 * Source: D. Vyukov's bounded MPMC queue; crossbeam-channel array flavour (stamps
 *         {lap | mark | index}, close = one fetch_or on tail).
 */
ZC_EXPORT zc_status zc_bounded(size_t cap, const zc_config *cfg, zc_sender **tx,
                               zc_receiver **rx);

/**
 * Create an unbounded channel of cfg->elem_size-byte messages.
 *
 * Memory grows by segments of 31 messages as they are sent and shrinks as they are
 * received: a segment is freed by the receive that takes its last message or, if a
 * receive of an earlier message of it is still copying that out then (preempted, say),
 * by the first receive after that one finishes that finds the channel empty or takes
 * the last message of a segment, or by a receiver's drop. A drained channel holds at
 * most two segments (the current one and one kept spare) once a receive has found it
 * empty after the last receive returned.
 *
 * @param cfg  Element size and optional drop_msg; read during the call only.
 * @param tx   Receives the first sender handle; owned by the caller.
 * @param rx   Receives the first receiver handle; owned by the caller.
 * @return ZC_OK; ZC_EINVAL (cfg, tx or rx NULL, elem_size 0 or too large);
 *         ZC_ENOMEM. On failure *tx and *rx (where not NULL) are NULL.
 *
 * Thread safety: any thread.
 * Source: crossbeam-channel list flavour (segments freed by their last reader).
 */
ZC_EXPORT zc_status zc_unbounded(const zc_config *cfg, zc_sender **tx, zc_receiver **rx);

/**
 * Create a rendezvous channel of cfg->elem_size-byte messages: no buffer, so a send
 * completes only when a receiver takes its message, at that moment (a hand-off, as Go's
 * `make(chan T)` and crossbeam's `bounded(0)`). Same handles, futures, blocking calls,
 * select cases and close as the other flavours; what differs:
 *
 * - A send future or blocking send that returned ZC_OK was received: its message is in
 *   a receiver's hands. A send future waits as an offer (its message stays in the
 *   caller's memory, as for every send future); a receiver that comes takes the message
 *   from there, which completes the send: its next poll returns ZC_OK. A send
 *   cancelled, timed out or closed before a receiver took it sent nothing. A send future
 *   a receiver completed between its ZC_PENDING poll and a zc_send_cancel stays
 *   completed (as a cancel leaves every completed future): its next poll returns ZC_OK
 *   and sends nothing more; the blocking and timed sends report it as ZC_OK.
 * - zc_try_send succeeds only if a receiver is waiting; else ZC_FULL (ZC_CLOSED once
 *   closed). A blocked receiver (zc_recv_blocking and its timed forms) or a pending
 *   select receive case gets the message in its place at once. A pending receive
 *   future has no place until its next poll (its out comes with that poll): the
 *   channel holds the message for it, in a block it allocates (ZC_ENOMEM if it cannot:
 *   nothing sent), and wakes it. Every receive takes such held messages first, oldest
 *   first, so the first receiver to act gets it and the channel's one order holds; a
 *   woken receive future cancelled instead took nothing and passes its wake-up on to
 *   the next one waiting. So a try_send's ZC_OK means a receiver was waiting and its
 *   message is the next one the receivers take. A send future allocates nothing: its
 *   offer wakes one waiting receive future, which takes the message when polled.
 * - zc_try_recv succeeds only if a sender is waiting (a send future, a blocked sender, a
 *   pending select send case) or a try_send's message is held; else ZC_EMPTY
 *   (ZC_CLOSED once closed). A receive that was cancelled or timed out took nothing; a
 *   blocking receive a sender filled before its deadline passed returns ZC_OK.
 * - After close, sends return ZC_CLOSED (waiting senders too, their messages still
 *   theirs); receives return the messages held for them, then ZC_CLOSED. Those held
 *   when the last receiver is dropped go to drop_msg, which sees no other message.
 * - zc_info: capacity 0, len 0 (held messages are not counted). zc_force_send is
 *   zc_try_send (nothing is buffered to evict). The batch calls (zchan/batch.h) and
 *   reservations (zchan/permit.h) return ZC_EINVAL: there is no slot to fill or
 *   reserve.
 * - Cost: every operation takes the channel's lock (a spinlock) for its look for a
 *   partner and the copy, as Go's channel does; the fast lock-free paths of the
 *   buffered flavours do not apply.
 *
 * @param cfg  Element size and optional drop_msg; read during the call.
 * @param tx   Receives the first sender handle; owned by the caller.
 * @param rx   Receives the first receiver handle; owned by the caller.
 * @return ZC_OK; ZC_EINVAL (cfg, tx or rx NULL, elem_size 0 or over SIZE_MAX / 2);
 *         ZC_ENOMEM. On failure *tx and *rx (where not NULL) are NULL. (zc_bounded(0,
 *         ...) stays ZC_EINVAL.) The channel's block does not grow with elem_size: it
 *         holds no message.
 *
 * Thread safety: any thread.
 * Source: Go's runtime/chan.go (waiting senders and receivers queued, the copy made by
 *         the party that finds its partner); crossbeam-channel's zero flavour.
 */
ZC_EXPORT zc_status zc_rendezvous(const zc_config *cfg, zc_sender **tx, zc_receiver **rx);

/**
 * Make another sender handle for the same channel.
 *
 * Allocates nothing: a handle is counted, so cloning cannot run out of memory. (The
 * checked build makes each clone a small handle object of its own, so that it can tell
 * one handle dropped twice from two handles dropped once; it returns NULL if that
 * allocation fails.)
 *
 * @param tx  A live sender handle, or NULL.
 * @return A handle the caller owns and drops once (it may compare equal to tx);
 *         NULL if tx is NULL or a receiver cast to zc_sender * (or, in the checked
 *         build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_sender *zc_sender_clone(zc_sender *tx);

/**
 * Give up a sender handle. The last sender's drop closes the channel (waking every
 * waiting receiver: they drain what is left, then see ZC_CLOSED). When the last handle
 * of either kind goes, the channel's memory is freed.
 *
 * @param tx  A live sender handle, or NULL, or a receiver cast to zc_sender * (then
 *            nothing happens). Using it afterwards, or dropping it twice, is undefined:
 *            a channel's senders are one counted handle (a clone may compare equal), so
 *            a second drop of tx while a clone lives takes the clone's count, and the
 *            channel closes under the clone if that was the last. The checked build
 *            aborts at such a use or second drop (see zc_sender). The last handle's
 *            drop must come after every future on the channel has completed or been
 *            cancelled (the checked build aborts otherwise).
 *
 * Thread safety: any thread, concurrently with every call except other uses of tx.
 */
ZC_EXPORT void zc_sender_drop(zc_sender *tx);

/**
 * Close the channel from the sending side: no send can succeed any more; messages
 * already in the channel can still be received. Wakes every waiting sender and receiver.
 *
 * @param tx  A live sender handle, or NULL.
 * @return true if this call closed the channel; false if it was already closed or tx
 *         is NULL.
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT bool zc_sender_close(zc_sender *tx);

/**
 * Make another receiver handle for the same channel. Allocates nothing (the checked
 * build: as zc_sender_clone).
 *
 * @param rx  A live receiver handle, or NULL.
 * @return A handle the caller owns and drops once (it may compare equal to rx);
 *         NULL if rx is NULL or a sender cast to zc_receiver * (or, in the checked
 *         build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_receiver *zc_receiver_clone(zc_receiver *rx);

/**
 * Give up a receiver handle. The last receiver's drop closes the channel and, before it
 * returns, passes every message left in it to drop_msg (once each). Senders still alive
 * then fail with ZC_CLOSED at once.
 *
 * @param rx  A live receiver handle, or NULL, or a sender cast to zc_receiver * (then
 *            nothing happens). Using it afterwards, or dropping it twice, is undefined,
 *            as for zc_sender_drop (a second drop takes a clone's count; the checked
 *            build aborts at it).
 *
 * Thread safety: any thread, concurrently with every call except other uses of rx.
 */
ZC_EXPORT void zc_receiver_drop(zc_receiver *rx);

/**
 * Close the channel from the receiving side: no send can succeed any more; the messages
 * held stay receivable, through this and every other receiver. Wakes every waiting
 * sender and receiver.
 *
 * @param rx  A live receiver handle, or NULL.
 * @return true if this call closed the channel; false if it was already closed or rx
 *         is NULL.
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT bool zc_receiver_close(zc_receiver *rx);

/**
 * Try to send one message without waiting or registering a waker.
 *
 * Copies elem_size bytes from msg into the channel. On ZC_OK the bytes belong to the
 * channel; on any other status they are still the caller's.
 *
 * @param tx   Sender handle; not dropped.
 * @param msg  elem_size bytes; read during the call only.
 * @return ZC_OK; ZC_FULL (bounded, and cap messages were held at some moment during the
 *         call, counting as held each place a permit holds or a released permit left
 *         that receivers have not reached yet: zchan/permit.h); ZC_CLOSED; ZC_EINVAL (tx
 *         or msg NULL); ZC_ENOMEM (unbounded, a new segment was needed and could not be
 *         allocated; the channel is unchanged).
 *
 * Thread safety: any number of concurrent senders and receivers.
 * Progress: if a receiver is stalled between claiming and releasing the very slot this
 *           send needs (or, unbounded, a sender between taking a segment's last slot
 *           and installing the next segment), it waits until that is done: it spins,
 *           then yields, and after some 16 yields sleeps 20 µs at a time (a stalled
 *           peer of lower real-time priority gets the CPU only from a sleep). Otherwise
 *           it never sleeps. The futures and the timed calls do not wait there: they
 *           poll again soon, and a timeout expires on time. Two exceptions wait as this
 *           call does: a poll made from inside its own wake (see zc_send_poll), and an
 *           all-or-nothing batch on an unbounded channel once it has begun
 *           (zchan/batch.h), whose timed call can then return after its deadline.
 * Ordering: a send happens-before the receive that returns its message.
 * Wakes: at most one waiting receiver.
 * Source: D. Vyukov, bounded MPMC queue; crossbeam-channel array and list flavours.
 */
ZC_EXPORT zc_status zc_try_send(zc_sender *tx, const void *msg);

/**
 * Try to receive one message without waiting or registering a waker.
 *
 * @param rx   Receiver handle; not dropped.
 * @param out  elem_size writable bytes; written only on ZC_OK.
 * @return ZC_OK; ZC_EMPTY (open, and no message from a completed send was waiting at
 *         some moment during the call; or, bounded, the next place is held by a
 *         two-phase send not yet committed, closed or not: see zchan/permit.h);
 *         ZC_CLOSED (closed and drained); ZC_EINVAL (rx or out NULL).
 *
 * Thread safety: any number of concurrent senders and receivers.
 * Progress: as zc_try_send; waits out a sender stalled on an earlier slot rather than
 *           report ZC_EMPTY past a completed send, and (unbounded) a receiver stalled
 *           between taking a segment's last message and moving on to the next segment.
 * Wakes: at most one waiting sender (bounded channels).
 */
ZC_EXPORT zc_status zc_try_recv(zc_receiver *rx, void *out);

/**
 * Send msg without ever waiting for room: on a full bounded channel the oldest message is
 * taken out and msg goes in, in one step of the channel's order; with room (or on an
 * unbounded channel) it is a plain send. For the newest-wins queues of telemetry, UI
 * state or sensor readings. Anchor: async-channel's force_send.
 *
 * Linearizable: the message taken out is the oldest at that moment, and one that no
 * receiver got (a receiver that takes it first makes room instead, and nothing is taken
 * out). Like a send, it wakes a waiting receiver; it frees no slot, so it wakes no
 * waiting sender. It waits only for a peer in the middle of an operation on the slot it
 * needs, as zc_try_send does.
 *
 * @param tx           Sender handle.
 * @param msg          elem_size bytes, copied in.
 * @param evicted_out  elem_size writable bytes for the message taken out, or NULL: the
 *                     message then goes to the channel's drop_msg (if any), during the
 *                     call.
 * @param evicted      Optional (NULL: not reported): set to whether a message was taken
 *                     out (and so written to evicted_out or given to drop_msg).
 * @return ZC_OK (msg sent); ZC_CLOSED (the channel is closed: nothing sent, nothing taken
 *         out); ZC_FULL (bounded, full, and its oldest place is a reservation not yet
 *         committed (zchan/permit.h), which is no message: nothing sent, nothing taken
 *         out); ZC_ENOMEM (unbounded: no memory for a new segment; nothing sent);
 *         ZC_EINVAL (tx or msg NULL).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_status zc_force_send(zc_sender *tx, const void *msg, void *evicted_out,
                                  bool *evicted);

/**
 * A snapshot of the channel's length, capacity, handle counts and closed flag.
 *
 * @param tx   Sender handle.
 * @param out  Filled on ZC_OK.
 * @return ZC_OK; ZC_EINVAL (tx or out NULL).
 *
 * Thread safety: any thread; each field is read atomically, the whole is not.
 */
ZC_EXPORT zc_status zc_sender_info(const zc_sender *tx, zc_info *out);

/**
 * A snapshot of the channel's length, capacity, handle counts and closed flag.
 *
 * @param rx   Receiver handle.
 * @param out  Filled on ZC_OK.
 * @return ZC_OK; ZC_EINVAL (rx or out NULL).
 *
 * Thread safety: any thread; each field is read atomically, the whole is not.
 */
ZC_EXPORT zc_status zc_receiver_info(const zc_receiver *rx, zc_info *out);

/* ---- Weak handles --------------------------------------------------------------------- */

/**
 * Make a weak sender for tx's channel: a handle that does not keep the channel open (the
 * last sender's drop closes it even while weak senders live) but keeps its memory, so
 * that zc_weak_sender_upgrade can be asked at any time. For a sender kept by someone
 * who must not hold the channel open, such as a registry or a timer (tokio's and
 * async-channel's WeakSender).
 *
 * Allocates nothing (counted, as the clones; the checked build: one handle object).
 *
 * @param tx  A live sender handle, or NULL.
 * @return A weak handle the caller owns and drops once with zc_weak_sender_drop; NULL if
 *         tx is NULL or a receiver cast to zc_sender * (or, in the checked build only,
 *         out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_weak_sender *zc_sender_downgrade(zc_sender *tx);

/**
 * A sender from a weak one, while the channel is open and a sender is left.
 *
 * @param w  A live weak sender, or NULL.
 * @return A new sender handle the caller owns and drops once; NULL if w is NULL (or a
 *         handle of another kind cast to it), if
 *         every sender has been dropped (the count never comes back from zero), or if
 *         the channel was closed (or, in the checked build only, out of memory). A
 *         close that comes during the call may follow the upgrade: the new sender's
 *         sends then return ZC_CLOSED.
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_sender *zc_weak_sender_upgrade(zc_weak_sender *w);

/**
 * Another weak sender for the same channel (counted: allocates nothing, as the clones).
 *
 * @param w  A live weak sender, or NULL.
 * @return A weak handle the caller drops once (it may compare equal to w); NULL if w is
 *         NULL or a handle of another kind cast to zc_weak_sender * (or, in the checked
 *         build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_weak_sender *zc_weak_sender_clone(zc_weak_sender *w);

/**
 * Give up a weak sender. It closes nothing; if it was the channel's last handle of any
 * kind, the channel's memory is freed.
 *
 * @param w  A live weak sender, or NULL, or a handle of another kind cast to it (then
 *           nothing happens). Using it afterwards, or dropping it twice, is undefined
 *           (the checked build aborts).
 *
 * Thread safety: any thread, concurrently with every call except other uses of w.
 */
ZC_EXPORT void zc_weak_sender_drop(zc_weak_sender *w);

/**
 * Make a weak receiver for rx's channel, as zc_sender_downgrade: it keeps the memory,
 * not a receiver's place (the last receiver's drop still closes the channel and passes
 * what is left to drop_msg).
 *
 * @param rx  A live receiver handle, or NULL.
 * @return A weak handle the caller drops once; NULL if rx is NULL or a sender cast to
 *         zc_receiver * (or, in the checked build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_weak_receiver *zc_receiver_downgrade(zc_receiver *rx);

/**
 * A receiver from a weak one, while a receiver is left. Unlike a sender's upgrade, a
 * close does not end it: a receiver of a closed channel can still take what is left.
 *
 * @param w  A live weak receiver, or NULL.
 * @return A new receiver handle the caller owns and drops once; NULL if w is NULL or
 *         every receiver has been dropped (or, in the checked build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_receiver *zc_weak_receiver_upgrade(zc_weak_receiver *w);

/**
 * Another weak receiver for the same channel, as zc_weak_sender_clone.
 *
 * @param w  A live weak receiver, or NULL.
 * @return A weak handle the caller drops once; NULL if w is NULL or a handle of another
 *         kind cast to it (or, in the checked build only, out of memory).
 *
 * Thread safety: any thread, concurrently with every other call.
 */
ZC_EXPORT zc_weak_receiver *zc_weak_receiver_clone(zc_weak_receiver *w);

/**
 * Give up a weak receiver, as zc_weak_sender_drop.
 *
 * @param w  A live weak receiver, or NULL, or a handle of another kind cast to it (then
 *           nothing happens).
 *
 * Thread safety: any thread, concurrently with every call except other uses of w.
 */
ZC_EXPORT void zc_weak_receiver_drop(zc_weak_receiver *w);

/* ---- Futures ------------------------------------------------------------------------ */

/** Private: storage for the waiter node embedded in every future. Its layout is the
 *  library's (it checks that its node fits, in size and alignment); never touched by
 *  callers. The same size in every build: the checked build (ZCHAN_CHECKED) keeps its
 *  stamp in the last word, which other builds leave unused. */
typedef struct zc__waiter {
    void *zc__private[6];
} zc__waiter;

/** A send operation as a poll-style future. Caller-allocated; fields are private. A
 *  future must not move in memory while it is pending (between a ZC_PENDING poll and
 *  the poll that completes it, or its cancel). */
typedef struct zc_send {
    zc__waiter zc__node;
    zc_sender *zc__tx;
    const void *zc__msg;
    int zc__done; /* 0 while not complete, else the final zc_status + 1 */
} zc_send;

/** A receive operation (and a stream of them) as a poll-style future. Caller-allocated. */
typedef struct zc_recv {
    zc__waiter zc__node;
    zc_receiver *zc__rx;
} zc_recv;

/**
 * Prepare a send future. Does nothing else: the first poll starts the send.
 *
 * @param f    The future; NULL does nothing.
 * @param tx   Sender handle; must stay alive until the future completes or is cancelled.
 *             NULL makes every poll return ZC_EINVAL.
 * @param msg  elem_size bytes, borrowed: they must stay valid and unchanged until the
 *             send completes or is cancelled. NULL makes every poll return ZC_EINVAL.
 *
 * Thread safety: the future is the caller's; init it only when it is not pending.
 */
ZC_EXPORT void zc_send_init(zc_send *f, zc_sender *tx, const void *msg);

/**
 * Drive a send: complete it if there is room, else register w and return ZC_PENDING.
 *
 * @param f  An initialised send future.
 * @param w  Waker to call once the send may progress; copied, not kept by pointer.
 * @return ZC_OK (the message moved into the channel); ZC_CLOSED (nothing sent, the
 *         message is still the caller's); ZC_PENDING (registered with w, see waker.h);
 *         ZC_ENOMEM (unbounded channel could not grow; nothing sent; the future may be
 *         polled again); ZC_EINVAL (f, w, w->wake, the handle or msg NULL). A future that
 *         returned ZC_OK or ZC_CLOSED returns the same again and sends nothing more.
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Progress: a receiver stalled mid-release on the slot this send needs (or, unbounded, a
 *           sender installing the next segment) cannot be relied on to wake it: the poll
 *           calls w's wake itself and returns ZC_PENDING, to be polled again soon. A poll
 *           made from inside that wake (an executor that polls inline) waits the peer
 *           out instead, as zc_try_send does, so that such polls do not nest one inside
 *           the other for as long as the peer stalls.
 * Wakes: at most one waiting receiver (zchan/waker.h); if it held a wake-up, one is
 *        passed on to the next waiting sender when room is left.
 * Source: register-then-recheck (Dekker) against the ring's claiming CAS; wake handshake
 *         after the Linux futex_q lock_ptr protocol (see src/waitlist.c).
 */
ZC_EXPORT zc_status zc_send_poll(zc_send *f, const zc_waker *w);

/**
 * Cancel a send: deregister it (passing on any wake-up it absorbed) and return it to its
 * just-initialised state. The message was not sent and is still the caller's. A
 * never-polled or completed future is left as it is; so is a send on a rendezvous
 * channel that a receiver completed after its last ZC_PENDING poll (its next poll
 * returns ZC_OK: zc_send_abort says which it was). When cancel returns, the waker is not
 * running and will not be called (unless cancel is called from inside that wake).
 *
 * @param f  The future; NULL does nothing.
 *
 * Thread safety: the future's owner; may be called from inside the future's own wake.
 */
ZC_EXPORT void zc_send_cancel(zc_send *f);

/**
 * Cancel a send as zc_send_cancel does, and say whether its message is still the
 * caller's. Only on a rendezvous channel can a pending send complete without a poll (a
 * receiver takes the message from the future): a cancel that comes too late then finds
 * it sent, and this is how its owner learns so without polling again.
 *
 * @param f  The future; NULL returns true.
 * @return true if nothing was sent (cancelled, never polled, or completed with
 *         ZC_CLOSED); false if the send completed with ZC_OK (the message moved).
 *
 * Thread safety: as zc_send_cancel.
 */
ZC_EXPORT bool zc_send_abort(zc_send *f);

/**
 * Prepare a receive future (also a stream: after ZC_OK it may be polled for the next
 * message).
 *
 * @param f   The future; NULL does nothing.
 * @param rx  Receiver handle; must stay alive while the future is pending. NULL makes
 *            every poll return ZC_EINVAL.
 */
ZC_EXPORT void zc_recv_init(zc_recv *f, zc_receiver *rx);

/**
 * Drive a receive: take the next message if there is one, else register w.
 *
 * @param f    An initialised receive future.
 * @param w    Waker to call once a message (or close) may be available.
 * @param out  elem_size writable bytes; written only on ZC_OK.
 * @return ZC_OK (a message was written to out; the future is ready for the next one);
 *         ZC_CLOSED (closed and drained: end of stream); ZC_PENDING; ZC_EINVAL (f, w,
 *         w->wake, the handle or out NULL).
 *
 * Thread safety: one poll or cancel of f at a time; any number of futures per channel.
 * Progress: as zc_send_poll's, for a sender stalled mid-write on the next message (or,
 *           unbounded, a receiver moving to the next segment).
 * Wakes: at most one waiting sender (bounded; zchan/waker.h); if it held a wake-up,
 *        one is passed on while messages are left.
 */
ZC_EXPORT zc_status zc_recv_poll(zc_recv *f, const zc_waker *w, void *out);

/**
 * Cancel a receive: deregister it, passing on any wake-up it absorbed. A cancelled
 * receive took no message. Returns the future to its just-initialised state.
 *
 * @param f  The future; NULL does nothing.
 */
ZC_EXPORT void zc_recv_cancel(zc_recv *f);

#ifdef __cplusplus
}
#endif

/** @} */

/* Opt-in inline fast paths (zchan/inline.h says what they cost). */
#ifdef ZCHAN_INLINE
#include <zchan/inline.h>
#endif

#endif /* ZCHAN_MPMC_H */

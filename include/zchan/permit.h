/**
 * @file zchan/permit.h
 * The two-phase send: reserve a place in the channel first, build the message once the
 * place is certain, then commit the message into it, or release the place unused.
 *
 * Lets a producer that must not lose work (a message read from a socket, a buffer
 * taken from a pool) learn that there is room before it commits to producing the
 * message: no "send failed, now what do I do with it".
 *
 * Bounded channels: a reservation claims the next place in the channel's order, as a
 * send would, and holds one of the cap slots until commit or release. The message takes
 * its place in the order at reserve time, so what is sent after a reservation is
 * received after the reserved message: while a permit is held, receivers wait behind it
 * (zc_try_recv reports ZC_EMPTY, receive futures stay pending, however many messages
 * were sent after it). A permit is a send in progress, and the contract counts an
 * operation in progress as not yet done; hold permits briefly, never across a wait for
 * a receiver of the same channel (that waits forever). A released place becomes a hole
 * in the order. When the released place is the oldest one, its slot and those of the
 * holes right after it are free at once; a hole behind a message or a held place keeps
 * its slot until the receive position reaches it (the receiver, or a sender that needs
 * that slot, skips it then; a receive that reaches it while senders wait skips it at
 * once and wakes one for its slot). Source: the claim-then-publish of the LMAX Disruptor's
 * sequences and of DPDK's rte_ring zero-copy enqueue (enqueue_zc_start / finish), over
 * the per-slot stamps of the ring (src/queue/ring.c): a reserved slot carries its position
 * with the ring's mark bit, a hole the next position with the mark bit.
 *
 * Unbounded channels always have room: a reservation only checks that the channel is
 * open, and the message takes its place in the order at commit, as a plain send.
 *
 * The sender handle a permit was reserved through must stay live until the permit is
 * committed or released. An uncommitted permit still held when the last receiver is
 * dropped is abandoned: its commit then says ZC_CLOSED and the message stays the
 * caller's.
 *
 * A permit is one object, filled by a reservation: a struct that holds a place must be
 * committed or released before it is reserved into again (reserving into it forgets the
 * place, and receivers then wait behind it for ever). Copies of a permit are not permits:
 * on a bounded channel a commit or release through a copy whose place was already used
 * says ZC_EINVAL (nothing written); on an unbounded one it would send again. A permit
 * that was never filled must not be passed to commit or release (zc_permit p = {0} is an
 * empty one, on which they say ZC_EINVAL).
 *
 * | call                                     | concurrent with                           |
 * |------------------------------------------|-------------------------------------------|
 * | try_reserve, reserve futures, blocking   | everything, from any number of threads    |
 * | commit, release of one permit            | everything except each other (one owner)  |
 * | poll/cancel of one future                | not with each other (one owner)           |
 */
#ifndef ZCHAN_PERMIT_H
#define ZCHAN_PERMIT_H

#include <stddef.h>
#include <stdint.h>

#include <zchan/mpmc.h>
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_permit Two-phase send (permits) (zchan/permit.h)
 * @copydoc zchan/permit.h
 * @{
 */

/** A place reserved in a channel (caller-allocated; fields private). Empty after a
 *  failed reservation, a commit that returned ZC_OK or ZC_CLOSED, and a release. */
typedef struct zc_permit {
    zc_sender *zc__tx; /* NULL: empty */
    size_t zc__pos;    /* bounded: the reserved position */
} zc_permit;

/**
 * Reserve a place if there is room now, without waiting.
 *
 * @param tx  Sender handle; must stay live until the permit is committed or released.
 * @param p   Caller's permit, filled on ZC_OK and emptied otherwise; not NULL.
 * @return ZC_OK (p holds a place); ZC_FULL (bounded: cap places were taken, by messages,
 *         other reservations or released places that receivers have not reached yet,
 *         at some moment of the call); ZC_CLOSED (the channel is closed); ZC_EINVAL (tx
 *         or p NULL).
 *
 * Thread safety: any thread. Lock-free: one CAS on the ring's tail, as zc_try_send.
 */
ZC_EXPORT zc_status zc_try_reserve(zc_sender *tx, zc_permit *p);

/** A reservation as a poll-style future. Caller-allocated; see zc_reserve_init. */
typedef struct zc_reserve {
    zc__waiter zc__node;
    zc_sender *zc__tx;
    zc_permit *zc__permit;
    int zc__done; /* 0 while not complete, else the final zc_status + 1 */
} zc_reserve;

/**
 * Prepare a reservation future. Nothing happens until the first poll. Not on a pending
 * future (cancel it first), as zc_send_init.
 *
 * @param f   The future (caller memory, not moved while pending); NULL does nothing.
 * @param tx  Sender handle; must outlive the future and the permit.
 * @param p   The permit the reservation fills; must outlive the future.
 */
ZC_EXPORT void zc_reserve_init(zc_reserve *f, zc_sender *tx, zc_permit *p);

/**
 * Drive a reservation: reserve a place if there is room, else register w to be woken
 * when a place frees up or the channel closes. Follows the waker rules of zchan/waker.h
 * (the latest waker is the one woken; senders are woken in the order they registered).
 *
 * @param f  An initialised future.
 * @param w  Waker; copied, not kept by pointer. Not NULL, wake not NULL.
 * @return ZC_OK (the permit holds a place; later polls return ZC_OK again and reserve
 *         nothing more, also after the permit was committed or released: that ZC_OK says
 *         the reservation happened, not that the permit still holds it); ZC_PENDING;
 *         ZC_CLOSED; ZC_EINVAL (NULL f, handle, permit or waker: the future is
 *         cancelled, no wake follows).
 */
ZC_EXPORT zc_status zc_reserve_poll(zc_reserve *f, const zc_waker *w);

/**
 * Cancel a reservation future: deregister it, passing on a wake-up it absorbed to the
 * next waiting sender. A pending reservation holds nothing, so nothing is given back;
 * a completed one keeps its permit (release the permit to give the place back). After
 * the call returns the waker is not called again.
 *
 * @param f  The future; NULL does nothing.
 */
ZC_EXPORT void zc_reserve_cancel(zc_reserve *f);

/**
 * Reserve a place, parking the calling thread while the channel is full.
 *
 * @param tx  Sender handle.
 * @param p   Caller's permit, filled on ZC_OK and emptied otherwise.
 * @return ZC_OK; ZC_CLOSED; ZC_EINVAL (tx or p NULL).
 */
ZC_EXPORT zc_status zc_reserve_blocking(zc_sender *tx, zc_permit *p);

/**
 * As zc_reserve_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param tx          Sender handle.
 * @param p           Caller's permit, filled on ZC_OK and emptied otherwise.
 * @param timeout_ns  Nanoseconds on CLOCK_MONOTONIC; 0 makes one attempt; UINT64_MAX
 *                    waits forever.
 * @return as zc_reserve_blocking, plus ZC_TIMEDOUT (nothing reserved).
 */
ZC_EXPORT zc_status zc_reserve_timeout(zc_sender *tx, zc_permit *p, uint64_t timeout_ns);

/**
 * As zc_reserve_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * (clock_gettime(CLOCK_MONOTONIC), in nanoseconds), for loops that share one deadline
 * across several calls.
 *
 * @param tx           Sender handle.
 * @param p            Caller's permit, filled on ZC_OK and emptied otherwise.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return ZC_OK; ZC_CLOSED; ZC_TIMEDOUT (the deadline passed: nothing reserved);
 *         ZC_EINVAL (tx or p NULL).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_reserve future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_reserve_until(zc_sender *tx, zc_permit *p, uint64_t deadline_ns);

/**
 * Copy msg into the permit's place and make it receivable; wake one waiting receiver.
 * Bounded: never waits, the place is already held. Unbounded: the commit is the send
 * itself, so, like zc_try_send, it waits out a sender stalled while it installs the
 * next segment.
 *
 * @param p    A permit holding a place.
 * @param msg  elem_size bytes, copied in (the caller keeps ownership of its buffer).
 * @return ZC_OK (sent; p is empty); ZC_CLOSED (no receiver will take it: bounded, every
 *         receiver was dropped; unbounded, the channel was closed since the reservation;
 *         the message stays the caller's and p is empty); ZC_ENOMEM (unbounded only: a
 *         new segment could not be allocated; nothing changed, p still holds its place:
 *         commit again or release); ZC_EINVAL (p NULL or empty, msg NULL, or a stale
 *         copy of a bounded permit whose place was already committed or released).
 *
 * Bounded: a place reserved before a close is still committed after it, as a send
 * that claimed its slot before the close completes; receivers drain it.
 */
ZC_EXPORT zc_status zc_permit_commit(zc_permit *p, const void *msg);

/**
 * Give the permit's place back unused: wake a receiver waiting behind it and, for each
 * slot this frees at once (see the file comment), one waiting sender.
 *
 * @param p  A permit holding a place.
 * @return ZC_OK (p is empty; also when the last receiver's drop had abandoned the place);
 *         ZC_EINVAL (p NULL or empty, or a stale copy of a bounded permit whose place
 *         was already committed or released).
 */
ZC_EXPORT zc_status zc_permit_release(zc_permit *p);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_PERMIT_H */

/**
 * @file zchan/block.h
 * Blocking layer: lets a thread with no executor wait on zchan futures.
 *
 * It is a client of the public futures API only: each blocking call runs the matching
 * future with a waker that unparks the calling thread, the way a block_on would. The
 * thread parker behind it is public too, so a user can block on futures of their own.
 *
 * The parker is a binary permit: wake stores the permit (and wakes a parked thread),
 * park consumes it, sleeping until it is there. Park first spins briefly (a futex sleep
 * and wake costs tens of microseconds; a hand-off between two running threads usually
 * lands within a few hundred nanoseconds), then sleeps on a futex (Linux) or, built
 * with ZCHAN_PARKER=condvar or on other systems, a pthread mutex and condition variable.
 *
 * | call                          | concurrent with                                   |
 * |-------------------------------|---------------------------------------------------|
 * | zc_parker_waker's wake        | everything, from any thread                       |
 * | park, park_timeout            | wake; only one thread parks on one parker         |
 * | park_until                    | as park                                           |
 * | init, destroy                 | nothing                                           |
 * | zc_*_blocking, zc_*_timeout   | everything (each call uses its own parker)        |
 * | zc_send_until, zc_recv_until  | everything (each call uses its own parker)        |
 */
#ifndef ZCHAN_BLOCK_H
#define ZCHAN_BLOCK_H

#include <pthread.h>
#include <stdint.h>

#include <zchan/mpmc.h>
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_block Blocking calls (zchan/block.h)
 * @copydoc zchan/block.h
 * @{
 */

/** A thread parker. Complete so it can live on the stack or in a task; fields private. */
typedef struct zc_parker {
    unsigned int zc__state; /* EMPTY / PARKED / NOTIFIED, accessed atomically */
    pthread_mutex_t zc__mu; /* used only by the condvar fallback */
    pthread_cond_t zc__cv;  /* used only by the condvar fallback */
} zc_parker;

/**
 * Initialise a parker with no permit.
 *
 * @param p  Caller-allocated parker; NULL does nothing.
 * Thread safety: p must not be in use.
 */
ZC_EXPORT void zc_parker_init(zc_parker *p);

/**
 * A waker whose wake stores the permit and unparks the thread parked on p. A wake
 * before park is kept; several wakes before one park count as one.
 *
 * @param p  An initialised parker; must outlive every wake of the returned waker.
 * @return {wake, p}; wake is safe from any thread and never waits (the condvar
 *         fallback holds the parker's mutex for a moment). For p NULL, {NULL, NULL}: a
 *         waker every poll rejects with ZC_EINVAL.
 */
ZC_EXPORT zc_waker zc_parker_waker(zc_parker *p);

/**
 * Wait until the permit is there, then consume it. Never returns spuriously.
 *
 * @param p  An initialised parker; only one thread parks on it at a time. NULL returns
 *           at once.
 * Progress: spins briefly (10 yields, a few µs), then sleeps (futex, or condvar
 * fallback). With a busy thread on the same CPU each yield can give it a time slice
 * (milliseconds): then the wait is that much later to start sleeping.
 */
ZC_EXPORT void zc_parker_park(zc_parker *p);

/**
 * As zc_parker_park, waiting at most timeout_ns nanoseconds (CLOCK_MONOTONIC).
 *
 * @param p           An initialised parker.
 * @param timeout_ns  Nanoseconds; 0 only checks; UINT64_MAX waits forever. The spin
 *                    stops once the timeout has passed, so a busy thread on the same
 *                    CPU makes the return at most about one time slice late.
 * @return ZC_OK (the permit was consumed); ZC_TIMEDOUT (no permit in time);
 *         ZC_EINVAL (p NULL).
 */
ZC_EXPORT zc_status zc_parker_park_timeout(zc_parker *p, uint64_t timeout_ns);

/**
 * As zc_parker_park, waiting at most until deadline_ns, an absolute CLOCK_MONOTONIC
 * time (clock_gettime(CLOCK_MONOTONIC), in nanoseconds): the form for a loop that
 * shares one deadline across several waits.
 *
 * @param p            An initialised parker.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past only checks
 *                     for the permit; UINT64_MAX waits forever. The spin stops once the
 *                     deadline has passed, as for zc_parker_park_timeout.
 * @return ZC_OK (the permit was consumed); ZC_TIMEDOUT (no permit by the deadline);
 *         ZC_EINVAL (p NULL).
 *
 * Thread safety: as zc_parker_park: wake from any thread, one thread parks on p.
 */
ZC_EXPORT zc_status zc_parker_park_until(zc_parker *p, uint64_t deadline_ns);

/**
 * Release what zc_parker_init set up. No wake of its waker may be running or to come.
 *
 * @param p  The parker; NULL does nothing.
 */
ZC_EXPORT void zc_parker_destroy(zc_parker *p);

/**
 * Send one message, parking the calling thread while the channel is full. Before it
 * registers as a waiter it makes a few send attempts, backing off between them
 * (watching the slot it needs for 0.5 µs, then ten sched_yields: a few microseconds in
 * all on an idle CPU; beside a busy thread on its CPU each yield can give that thread a
 * time slice, and the spin can last milliseconds), as crossbeam's blocking calls do, so that a partner thread that frees a slot at
 * once costs no wake-up; then, while no other thread wants its CPU, it goes on yielding
 * and attempting for up to 50 µs more (Linux: each such yield checked with getrusage;
 * the first that ran another thread ends it), since a sleeping partner can take longer
 * than that to wake (24-62 µs on a small VM). So a call that waits long on an idle
 * machine spends some 50-100 µs of CPU before it sleeps. A thread under a real-time
 * policy or SCHED_IDLE skips the 50 µs (its yields would not let a partner of another
 * priority on its CPU run); a partner under SCHED_IDLE on the same CPU as a normal
 * thread still waits out that thread's 50 µs (its yields do not run such a thread). On a bounded channel those
 * attempts read only the senders' side of the ring, never the receivers' index, so a
 * waiting sender does not slow the receiver it waits for. At most once per 10 ms per thread one of those sched_yields is checked
 * (Linux: getrusage): if it ran another thread on this CPU, the call sleeps once for a
 * moment (nanosleep: 20 µs plus the thread's timer slack, 70 µs by default; never where
 * the slack is above 200 µs): two threads waiting on each other by yielding can
 * otherwise share one CPU while another idles, and the kernel leaves them there; the
 * wake-up moves the thread. Once registered it sleeps at once (a futex, or the condvar
 * fallback), without the brief spin of zc_parker_park: on a machine with more runnable
 * threads than CPUs a sleeping thread lets the kernel give its CPU to one that can run,
 * where a yielding one keeps it. A registered call is a waiter like a future, woken in
 * its turn: each slot freed wakes a waiting sender, however many woken before have not
 * been polled yet (zchan/waker.h).
 *
 * @param tx   Sender handle.
 * @param msg  elem_size bytes, read until the call returns.
 * @return ZC_OK; ZC_CLOSED (nothing sent); ZC_ENOMEM (unbounded, could not grow);
 *         ZC_EINVAL (tx or msg NULL).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_send future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_send_blocking(zc_sender *tx, const void *msg);

/**
 * Receive one message, parking the calling thread while the channel is empty. Tries
 * first as zc_send_blocking does (on a bounded channel its attempts read only the
 * receivers' side of the ring, and it looks for the close once, before its first
 * yield, and again after a yield that gave a busy thread on its CPU a time slice: on a
 * channel closed and drained before the call ZC_CLOSED comes after the 0.5 µs watch,
 * with no yield; a close during the spin is seen up to about 60 µs later, or about one
 * time slice beside a busy thread), and waits as
 * it does: while it waits, each message sent wakes a waiting receiver (of several made
 * available at once, as for zc_send_blocking).
 *
 * @param rx   Receiver handle.
 * @param out  elem_size writable bytes; written only on ZC_OK.
 * @return ZC_OK; ZC_CLOSED (closed and drained); ZC_EINVAL (rx or out NULL).
 */
ZC_EXPORT zc_status zc_recv_blocking(zc_receiver *rx, void *out);

/**
 * As zc_send_blocking, giving up after timeout_ns nanoseconds. It spins before it
 * registers as zc_send_blocking does, while the timeout has not passed (so beside a
 * busy thread on the same CPU it returns about one time slice late at most, rarely
 * two).
 *
 * @param tx          Sender handle.
 * @param msg         elem_size bytes, read until the call returns.
 * @param timeout_ns  Nanoseconds on CLOCK_MONOTONIC; 0 makes one attempt; UINT64_MAX
 *                    waits forever.
 * @return as zc_send_blocking, plus ZC_TIMEDOUT (the send was cancelled: nothing was
 *         sent, the message is still the caller's). A timeout can pass while a peer is
 *         stalled mid-operation on the place this send needs (unbounded: a sender
 *         between taking a segment's last slot and installing the next; bounded: a
 *         receiver between claiming and releasing the slot), which zc_try_send would
 *         wait out (zchan/mpmc.h): so even on an unbounded channel a short timeout, 0
 *         included, can end in ZC_TIMEDOUT.
 */
ZC_EXPORT zc_status zc_send_timeout(zc_sender *tx, const void *msg, uint64_t timeout_ns);

/**
 * As zc_recv_blocking, giving up after timeout_ns nanoseconds; it spins first as
 * zc_send_timeout does.
 *
 * @param rx          Receiver handle.
 * @param out         elem_size writable bytes; written only on ZC_OK.
 * @param timeout_ns  Nanoseconds on CLOCK_MONOTONIC; 0 makes one attempt; UINT64_MAX
 *                    waits forever.
 * @return as zc_recv_blocking, plus ZC_TIMEDOUT (cancelled: nothing was taken). As for
 *         zc_send_timeout, a timeout can pass while a sender is stalled between claiming
 *         and publishing the message this receive would take, which zc_try_recv would
 *         wait out.
 */
ZC_EXPORT zc_status zc_recv_timeout(zc_receiver *rx, void *out, uint64_t timeout_ns);

/**
 * As zc_send_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * (clock_gettime(CLOCK_MONOTONIC), in nanoseconds), for loops that share one deadline
 * across several calls. The call reads the clock once to see whether the deadline has
 * passed, and again only while it waits.
 *
 * @param tx           Sender handle.
 * @param msg          elem_size bytes, read until the call returns.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return ZC_OK; ZC_CLOSED (nothing sent); ZC_ENOMEM (unbounded, could not grow);
 *         ZC_TIMEDOUT (the deadline passed: the send was cancelled, nothing was sent,
 *         the message is still the caller's; as for zc_send_timeout, also possible while
 *         a peer is stalled mid-operation); ZC_EINVAL (tx or msg NULL).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_send future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_send_until(zc_sender *tx, const void *msg, uint64_t deadline_ns);

/**
 * As zc_recv_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time in
 * nanoseconds (see zc_send_until).
 *
 * @param rx           Receiver handle.
 * @param out          elem_size writable bytes; written only on ZC_OK.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt (as a timeout of 0); UINT64_MAX waits forever.
 * @return ZC_OK; ZC_CLOSED (closed and drained); ZC_TIMEDOUT (the deadline passed:
 *         cancelled, nothing was taken); ZC_EINVAL (rx or out NULL).
 *
 * Thread safety: any number of threads at once.
 * Source: a zc_recv future driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_recv_until(zc_receiver *rx, void *out, uint64_t deadline_ns);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_BLOCK_H */

/*
 * block_on.h: drive one poll-style future to a final status on the calling thread,
 * parking it (zc_parker) while the future is pending. Shared by every blocking form:
 * the channel's (block.c), select's (select.c) and broadcast's (broadcast.c).
 *
 * The loop: poll; on ZC_PENDING park until the waker fires, or the deadline passes (then
 * cancel and report ZC_TIMEDOUT); poll again. The parker lives on this call's stack,
 * safe by waker rule 3: once a poll has returned a final status or the cancel has
 * returned, no call of the parker's wake is running or will come.
 */
#ifndef ZCHAN_SRC_BLOCK_ON_H
#define ZCHAN_SRC_BLOCK_ON_H

#include <stdbool.h>
#include <stdint.h>

#include <zchan/block.h>

#include "backoff.h"
#include "check.h"
#include "park.h"
#include "spin.h"

/* Poll the future behind op with w; cancel it (op is the caller's, e.g. a struct that
 * holds the future and its arguments). */
typedef zc_status (*zc__block_poll_fn)(void *op, const zc_waker *w);
typedef void (*zc__block_cancel_fn)(void *op);

/* How a park waits before it sleeps: at once (a caller that spun before its first
 * poll), after the parker's own few yields, or after the blocking layer's whole spin
 * watching for the wake (spin.h: for a future registered already, which its partner
 * completes while it spins, as a rendezvous hand-off). */
typedef enum zc__park_spin { ZC__PARK_SLEEP, ZC__PARK_YIELD, ZC__PARK_WATCH } zc__park_spin;

/* Drive op to a final status, or until limit once it has to wait (no limit: UINT64_MAX;
 * a timeout of 0 or a deadline already past: one attempt, plus one more if the future
 * woke itself). spin: how each park waits first. call: the public blocking call, named
 * by the checked build's report of a wait inside a wake callback (check.h). */
static inline zc_status zc__block_on(void *op, zc__block_poll_fn poll,
                                     zc__block_cancel_fn cancel, zc__limit limit,
                                     zc__park_spin spin, const char *call) {
    zc_parker parker;
    zc_parker_init(&parker);
    zc_waker waker = zc_parker_waker(&parker);
    zc_status s = poll(op, &waker);
    if (s == ZC_PENDING) {
        uint64_t deadline_ns = zc__limit_deadline(limit); /* the clock only when waiting */
        /* A limit already spent makes one attempt more at most: no wait to check. */
        if (ZCHAN_CHECKED && !zc__deadline_passed(deadline_ns)) ZC__CHECK_NOT_IN_WAKE(call);
        /* A future whose poll wakes it itself (a peer mid-operation on its slot) is
         * polled again after a backoff that grows over the polls in a row that left the
         * permit there: a preempted peer at a lower real-time priority gets the CPU only
         * from the backoff's naps (test_blocking_send_lets_a_lower_priority_receiver_
         * held_mid_copy_run). */
        zc__backoff again = ZC__BACKOFF_INIT;
        while (s == ZC_PENDING) {
            if (zc__parker_has_permit(&parker))
                zc__backoff_snooze(&again);
            else
                again = (zc__backoff)ZC__BACKOFF_INIT;
            /* A deadline already past (timeout 0) still takes a permit that is there, so
             * a self-woken future gets its next attempt; one that keeps waking itself
             * always leaves one, so after a ZC_PENDING poll the clock is read too. */
            if (spin == ZC__PARK_WATCH) zc__spin_for_wake(&parker, deadline_ns);
            bool expired = zc__parker_park_until(&parker, deadline_ns,
                                                 spin != ZC__PARK_SLEEP) == ZC_TIMEDOUT ||
                           ((s = poll(op, &waker)) == ZC_PENDING &&
                            zc__deadline_passed(deadline_ns));
            if (expired) {
                cancel(op);
                s = ZC_TIMEDOUT;
            }
        }
    }
    zc_parker_destroy(&parker);
    return s;
}

#endif /* ZCHAN_SRC_BLOCK_ON_H */

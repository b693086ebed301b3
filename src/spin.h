/*
 * spin.h: the blocking layer's spin before it parks (spin.c).
 *
 * A thread that must wait for a channel first spins: it watches the slot it needs,
 * attempting each time the slot changes or a round of pauses ends, then yields the CPU
 * a few times, then (while its CPU has no other thread to run) goes on yielding for a
 * while, attempting after each: crossbeam's Backoff before its parking. A partner that
 * answers meanwhile is met with no waiter on the list. The attempts are the caller's
 * (block.c).
 */
#ifndef ZCHAN_SRC_SPIN_H
#define ZCHAN_SRC_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include <zchan/status.h>

#include "chan.h"
#include "clock.h"
#include "park.h"

/* The watch: this long, attempting each time the slot changes or a round of 1, 2, 4,
 * then 8 pauses ends. Timed, not counted: a pause's length differs between processors.
 * Longer watches keep the CPU from the peer when oversubscribed (bench/README.md). */
#define ZC__SPIN_WATCH_NS 500u

/* Then this many yields (zc__yield, which may nap: backoff.h), attempting after each. */
#define ZC__SPIN_YIELDS 10u

/* The lone stage: after those yields, a blocking call goes on yielding and attempting
 * for up to this long, each yield checked (zc__yield_ran_another); the first yield that
 * ran another thread on its CPU ends the stage, and the call parks after the attempt
 * that follows it. So it spins on only where it takes a CPU from nobody, and two threads
 * that fill and drain the channel do not park and wake each other per capacity's worth
 * of messages (bench/README.md, row 10). A thread under a real-time or SCHED_IDLE policy
 * (zc__thread_shares_fairly) skips the stage: its yields never run a partner of lower
 * priority, so the stage would starve that partner. */
#define ZC__SPIN_ALONE_NS 50000u

/* A bounded receive looks for the close (on the senders' line) only before its first
 * yield and after a yield that took this long (it gave a busy thread a time slice): a
 * close made during the spin is told within a slice. */
#define ZC__SPIN_SLICE_NS 200000u

/* One attempt of the operation the spin is for, with its argument: a final status, or
 * ZC_FULL / ZC_EMPTY / ZC_PENDING (not now). */
typedef zc_status zc__spin_attempt_fn(void *arg);

/* Spin for an operation on ch (a receive when recv, else a send) until an attempt
 * returns a final status (returned), the spin is over, or *limit passes (then
 * ZC_PENDING, and *limit is the deadline to park until). A send looks for the close at
 * every look (ZC_CLOSED: nothing was sent). The clock is read only once the call has to
 * wait. *limit must not be spent yet (zc__limit_spent). */
zc_status zc__spin(zc__chan *ch, bool recv, zc__spin_attempt_fn *attempt, void *arg,
                   zc__limit *limit);

/* The spin's stages, one step at a time (zc__spin's loop; test_yield drives it). */
typedef struct zc__spin_state {
    unsigned rounds;       /* watch rounds made */
    unsigned yields;       /* yields made, of both stages */
    bool over;             /* the attempt after the last yield is the last one */
    uint64_t watch_end_ns; /* zc__clock_ns() when the watch ends, set at the first round */
    uint64_t alone_end_ns; /* when the lone stage ends, set at its first yield */
} zc__spin_state;

#define ZC__SPIN_INIT {0, 0, false, 0, 0}

/* The same stages for a future registered already, whose partner completes it while it
 * spins (a rendezvous hand-off): until p holds a wake-up, the spin is over, or
 * deadline_ns passes. The caller then parks on p. */
void zc__spin_for_wake(zc_parker *p, uint64_t deadline_ns);

/* Back off between two attempts; false once the spin is over. ch NULL: a spin that
 * watches no queue (its watch is pauses alone, and it looks for no close). */
bool zc__spin_snooze(zc__chan *ch, zc__spin_state *sp, bool recv);

#endif /* ZCHAN_SRC_SPIN_H */

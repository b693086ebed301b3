/*
 * park.h: the thread parker's internals, shared by park.c, the blocking layer and
 * tests/unit: parking until an absolute CLOCK_MONOTONIC deadline kept across parks.
 */
#ifndef ZCHAN_SRC_PARK_H
#define ZCHAN_SRC_PARK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <zchan/block.h>

#include "atomic.h"
#include "check.h"
#include "clock.h"

/* zc_parker.zc__state. PARKED is EMPTY - 1, so that one fetch_sub(1) in park takes
 * NOTIFIED to EMPTY (permit consumed) or EMPTY to PARKED (about to sleep). */
#define ZC__PARKER_EMPTY 0u
#define ZC__PARKER_NOTIFIED 1u
#define ZC__PARKER_PARKED UINT_MAX

/* Whether p holds the permit (a wake came since the last park): a hint, read relaxed. */
static inline bool zc__parker_has_permit(zc_parker *p) {
    /* Relaxed: the park that follows takes the permit with acquire ([K2], park.c). */
    return atomic_load_explicit(ZC__ATOMIC_UINT(p->zc__state), memory_order_relaxed) ==
           ZC__PARKER_NOTIFIED;
}

/* As zc_parker_park_timeout, until deadline_ns on zc__clock_ns's clock. A deadline
 * already past only checks for the permit; ZC__NO_DEADLINE waits until woken. spin:
 * look for the permit a few times, yielding, before sleeping (park.c, PARK_SPIN); false
 * sleeps at once. Returns ZC_OK, ZC_TIMEDOUT or ZC_EINVAL (p NULL). */
zc_status zc__parker_park_until(zc_parker *p, uint64_t deadline_ns, bool spin);

/* The checked build's look at a public park of p until deadline_ns: one that would wait
 * (no permit there, the deadline not passed), made inside a wake the library is making,
 * aborts (check.h). Nothing in other builds. */
#define ZC__CHECK_PARK(p, deadline_ns)                                                     \
    ((ZCHAN_CHECKED && (p) && !zc__parker_has_permit(p) && !zc__deadline_passed(deadline_ns)) \
         ? ZC__CHECK_NOT_IN_WAKE(__func__)                                                 \
         : (void)0)

#endif /* ZCHAN_SRC_PARK_H */

/*
 * park.h: the thread parker's internals, shared by park.c, block.c and tests/unit.
 *
 * The public parker (include/zchan/block.h) takes relative timeouts; the blocking layer
 * keeps one deadline across several parks, so it parks until an absolute
 * CLOCK_MONOTONIC time instead, through the functions below.
 */
#ifndef ZCHAN_SRC_PARK_H
#define ZCHAN_SRC_PARK_H

#include <limits.h>
#include <stdint.h>

#include <zchan/block.h>

/* zc_parker.zc__state. PARKED is EMPTY - 1, so that one fetch_sub(1) in park takes
 * NOTIFIED to EMPTY (permit consumed) or EMPTY to PARKED (about to sleep). */
#define ZC__PARKER_EMPTY 0u
#define ZC__PARKER_NOTIFIED 1u
#define ZC__PARKER_PARKED UINT_MAX

/* A deadline that never comes: park until woken. */
#define ZC__NO_DEADLINE UINT64_MAX

/* Now on CLOCK_MONOTONIC, in nanoseconds. */
uint64_t zc__clock_ns(void);

/* The deadline timeout_ns from now: UINT64_MAX, and any sum past UINT64_MAX (over 500
 * years of uptime), give ZC__NO_DEADLINE. */
uint64_t zc__deadline_ns(uint64_t timeout_ns);

/* As zc_parker_park_timeout, until deadline_ns on zc__clock_ns's clock. A deadline
 * already past only checks for the permit; ZC__NO_DEADLINE waits until woken.
 * Returns ZC_OK, ZC_TIMEDOUT or ZC_EINVAL (p NULL). */
zc_status zc__parker_park_until(zc_parker *p, uint64_t deadline_ns);

#endif /* ZCHAN_SRC_PARK_H */

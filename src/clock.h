/*
 * clock.h: time for waits with a deadline: CLOCK_MONOTONIC in nanoseconds.
 */
#ifndef ZCHAN_SRC_CLOCK_H
#define ZCHAN_SRC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* A deadline that never comes: wait until woken. */
#define ZC__NO_DEADLINE UINT64_MAX

/* Now on CLOCK_MONOTONIC, in nanoseconds. */
uint64_t zc__clock_ns(void);

/* The deadline timeout_ns from now: UINT64_MAX, and any sum past UINT64_MAX (over 500
 * years of uptime), give ZC__NO_DEADLINE. */
uint64_t zc__deadline_ns(uint64_t timeout_ns);

/* Whether deadline_ns (ZC__NO_DEADLINE: none) has passed. */
static inline bool zc__deadline_passed(uint64_t deadline_ns) {
    return deadline_ns != ZC__NO_DEADLINE && zc__clock_ns() >= deadline_ns;
}

#endif /* ZCHAN_SRC_CLOCK_H */

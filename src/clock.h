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

/* When a blocking call gives up: a CLOCK_MONOTONIC deadline (the *_until forms), or a
 * timeout that becomes one only once the call has to wait (the *_timeout forms): a call
 * that completes at once never reads the clock. ns is UINT64_MAX for no limit. */
typedef struct zc__limit {
    uint64_t ns;       /* the deadline, or the timeout */
    bool is_deadline;
} zc__limit;

/* The limit timeout_ns from the first wait on. */
static inline zc__limit zc__limit_after(uint64_t timeout_ns) {
    return (zc__limit){timeout_ns, false};
}

/* The limit deadline_ns (ZC__NO_DEADLINE, UINT64_MAX: none). */
static inline zc__limit zc__limit_until(uint64_t deadline_ns) {
    return (zc__limit){deadline_ns, true};
}

/* The deadline of l: a timeout is turned into one here, reading the clock. */
static inline uint64_t zc__limit_deadline(zc__limit l) {
    return l.is_deadline ? l.ns : zc__deadline_ns(l.ns);
}

/* Whether l leaves no time to wait: a timeout of 0, or a deadline already past (reads
 * the clock for a finite deadline). */
static inline bool zc__limit_spent(zc__limit l) {
    return l.is_deadline ? zc__deadline_passed(l.ns) : l.ns == 0;
}

#endif /* ZCHAN_SRC_CLOCK_H */

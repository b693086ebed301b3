/**
 * @file mono_clock.h
 * Test support: CLOCK_MONOTONIC in nanoseconds, read here rather than through zchan's
 * own clock (park.c), so that the timeouts and intervals under test are measured
 * independently of the code that implements them. Define _DEFAULT_SOURCE (or
 * _GNU_SOURCE) before the first include, for clock_gettime under -std=c11.
 */
#ifndef ZCHAN_TEST_MONO_CLOCK_H
#define ZCHAN_TEST_MONO_CLOCK_H

#include <stdint.h>
#include <time.h>

/** CLOCK_MONOTONIC now, in nanoseconds. */
static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* ZCHAN_TEST_MONO_CLOCK_H */

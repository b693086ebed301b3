/* clock.c: CLOCK_MONOTONIC in nanoseconds (clock.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime under -std=c11 */
#endif

#include "clock.h"

#include <time.h>

uint64_t zc__clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zc__deadline_ns(uint64_t timeout_ns) {
    if (timeout_ns == UINT64_MAX) return ZC__NO_DEADLINE;
    uint64_t now = zc__clock_ns();
    return timeout_ns >= ZC__NO_DEADLINE - now ? ZC__NO_DEADLINE : now + timeout_ns;
}

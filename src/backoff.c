/*
 * backoff.c: the yield and nap stages of a short wait (backoff.h).
 *
 * No atomics: the only state is a thread-local time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RUSAGE_THREAD under -std=c11 */
#endif

#include "backoff.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h> /* getrusage */
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h> /* PR_GET_TIMERSLACK */
#endif

#include "clock.h"

/* Block for a moment (ZC__NAP_NS). Returns false, having done nothing, where the
 * thread's timer slack would make the sleep too long. */
static bool nap(void) {
#ifdef PR_GET_TIMERSLACK
    int slack_ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack_ns < 0 || (unsigned)slack_ns > ZC__NAP_MAX_SLACK_NS) return false;
#endif
    struct timespec ts = {0, ZC__NAP_NS};
    nanosleep(&ts, NULL); /* EINTR: the nap is over all the same */
    return true;
}

unsigned zc__backoff_wait(unsigned step) {
    if (step <= ZC__BACKOFF_SPIN_LIMIT + ZC__BACKOFF_YIELDS) {
        sched_yield();
        return step + 1;
    }
    if (!nap()) sched_yield();
    return step;
}

bool zc__yield_ran_another(void) {
#ifdef RUSAGE_THREAD
    struct rusage before, after;
    if (getrusage(RUSAGE_THREAD, &before) == 0) {
        sched_yield();
        return getrusage(RUSAGE_THREAD, &after) == 0 && after.ru_nivcsw != before.ru_nivcsw;
    }
#endif
    uint64_t start = zc__clock_ns();
    sched_yield();
    return zc__clock_ns() - start >= ZC__YIELD_RAN_ANOTHER_NS;
}

bool zc__thread_shares_fairly(void) {
    int policy;
#ifdef __linux__
    policy = sched_getscheduler(0); /* 0: the calling thread, on Linux */
#ifdef SCHED_RESET_ON_FORK
    if (policy >= 0) policy &= ~SCHED_RESET_ON_FORK;
#endif
#else
    struct sched_param param;
    if (pthread_getschedparam(pthread_self(), &policy, &param) != 0) policy = -1;
#endif
#ifdef SCHED_BATCH
    if (policy == SCHED_BATCH) return true;
#endif
    return policy == SCHED_OTHER;
}

void zc__yield(void) {
    static _Thread_local uint64_t next_check_ns; /* 0: no yield yet */
    uint64_t now = zc__clock_ns();
    if (next_check_ns == 0) next_check_ns = now + ZC__NAP_FIRST_CHECK_NS;
    if (now < next_check_ns) {
        sched_yield();
        return;
    }
    /* Also when no nap follows: a check (and nap's prctl) at most once an interval. */
    next_check_ns = now + ZC__NAP_INTERVAL_NS;
    if (zc__yield_ran_another() && nap()) next_check_ns = zc__clock_ns() + ZC__NAP_INTERVAL_NS;
}

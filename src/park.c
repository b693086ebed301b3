/*
 * park.c: the thread parker, a binary permit in one 32-bit word.
 *
 * Source: Rust std's futex thread parker (library/std/src/sys/sync/thread_parking/
 * futex.rs) and, for the fallback, its pthread parker (pthread.rs), with a short spin.
 *
 * States (park.h): EMPTY 0, NOTIFIED 1, PARKED UINT_MAX (= EMPTY - 1).
 *   wake:    exchange(NOTIFIED); if the old state was PARKED, wake the sleeper.
 *   park:    spin a little, taking the permit with CAS NOTIFIED -> EMPTY; then one
 *            fetch_sub(1): NOTIFIED -> EMPTY (the permit came meanwhile: taken) or
 *            EMPTY -> PARKED, then sleep while the state is PARKED. A sleeper leaves only
 *            through CAS NOTIFIED -> EMPTY (woken) or, once its deadline has passed,
 *            through exchange(EMPTY), which takes a permit that raced with the timeout.
 *            So park never returns spuriously and always leaves the state EMPTY.
 * Only the owner thread parks, so the state is never PARKED when park starts.
 *
 * Sleeping: futex_wait(&state, PARKED) re-reads the word in the kernel, atomically with
 * queueing the sleeper, so no wake falls in between. The condvar fallback gets the same
 * from zc__mu: the sleeper turns EMPTY into PARKED under it, and a waker that saw PARKED
 * takes it before it signals (wake_sleeper).
 *
 * Ordering map:
 *   [K1] wake: exchange(NOTIFIED), release   -> [K2] every acquire RMW in park that reads
 *        NOTIFIED: what the waker wrote before wake happens-before park's return. Every
 *        write of the state is an RMW, so each wake's release sequence reaches the RMW
 *        that consumes the permit, even when several wakes came before one park.
 *   The EMPTY -> PARKED step needs no release: the waker takes nothing from the sleeper
 *   but the instruction to wake it, and the futex (or zc__mu) orders the sleep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall(), clock_gettime() under -std=c11 */
#endif

#include "park.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sched.h>
#include <time.h>
#include <unistd.h> /* _POSIX_CLOCK_SELECTION */

#include "zchan_build.h"

#include "atomic.h"
#include "wake.h"

/* ZCHAN_PARKER_FORCE_CONDVAR lets a test build this file with the fallback in a futex
 * build (tests/unit/CMakeLists.txt, test_park_condvar). */
#if ZCHAN_PARKER_FUTEX && !defined(ZCHAN_PARKER_FORCE_CONDVAR)
#define USE_FUTEX 1
#include <linux/futex.h>
#include <sys/syscall.h>
_Static_assert(sizeof(unsigned int) == 4, "a futex word is 32 bits");
#else
#define USE_FUTEX 0
#endif

/* How long park looks for the permit before it sleeps: PARK_SPIN rounds, each giving the
 * CPU away with sched_yield, which lets the thread it waits for run at once (pause loops
 * stall it under a hypervisor; bench/README.md, rows 10 and 15). The channel's blocking
 * calls skip it: they spin before they register. */
#define PARK_SPIN 10
#define PARK_RELAX() sched_yield()

static inline _Atomic unsigned int *state_of(zc_parker *p) { return ZC__ATOMIC_UINT(p->zc__state); }

/* The largest tv_sec: time_t is a signed integer of 64 bits, or of 32 on 32-bit
 * targets built without _TIME_BITS=64 (i686), where 2^31 s is 68 years. */
#define TIME_T_MAX ((time_t)(sizeof(time_t) == 8 ? INT64_MAX : INT32_MAX))

/* ns as a timespec, cut to the largest one time_t can hold (unclamped, a long timeout
 * would wrap or turn negative): a timed wait then ends early, and sleep_until, which
 * decides by the clock, sleeps again. */
static struct timespec timespec_of(uint64_t ns) {
    struct timespec ts;
    uint64_t sec = ns / 1000000000u;
    if (sec > (uint64_t)TIME_T_MAX) {
        ts.tv_sec = TIME_T_MAX;
        ts.tv_nsec = 999999999;
        return ts;
    }
    ts.tv_sec = (time_t)sec;
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

/* Take the permit if it is there. */
static bool take_permit(_Atomic unsigned int *state) {
    unsigned int expected = ZC__PARKER_NOTIFIED;
    /* [K2] Acquire on success pairs with [K1]. A failure takes nothing: relaxed. */
    return atomic_compare_exchange_strong_explicit(state, &expected, ZC__PARKER_EMPTY,
                                                   memory_order_acquire, memory_order_relaxed);
}

/* Look for the permit PARK_SPIN times, yielding between; stop early once deadline_ns has
 * passed (a yield that gives a busy thread on this CPU its time slice takes
 * milliseconds). */
static bool spin_for_permit(_Atomic unsigned int *state, uint64_t deadline_ns) {
    for (int i = 0; i < PARK_SPIN; i++) {
        /* A hint, so relaxed: take_permit re-reads with acquire. Reading (not CASing) at
         * every pause leaves the line shared until the waker writes it. */
        if (atomic_load_explicit(state, memory_order_relaxed) == ZC__PARKER_NOTIFIED &&
            take_permit(state))
            return true;
        PARK_RELAX();
        if (zc__deadline_passed(deadline_ns)) break;
    }
    return false;
}

#if USE_FUTEX

/* Sleep while *word == expected, at most until deadline_ns. Returns false once the
 * deadline has passed, true after any other return (woken, signal, *word changed, or a
 * spurious return): the caller re-reads the word either way. */
static bool sleep_until(_Atomic unsigned int *word, unsigned int expected, uint64_t deadline_ns) {
    struct timespec rel;
    struct timespec *timeout = NULL;
    if (deadline_ns != ZC__NO_DEADLINE) {
        uint64_t now = zc__clock_ns();
        if (now >= deadline_ns) return false;
        rel = timespec_of(deadline_ns - now); /* FUTEX_WAIT takes a relative timeout */
        timeout = &rel;
    }
    if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, timeout, NULL, 0) == -1 &&
        errno == ETIMEDOUT)
        return zc__clock_ns() < deadline_ns; /* a timeout cut by timespec_of: again */
    return true;
}

static void parker_wake(void *ctx);

static void wake_sleeper(zc_parker *p) {
    /* A private FUTEX_WAKE uses the address only, so p may be gone by the time it runs:
     * release the wake now, if it is the parker's own (wake.h). */
    zc__wake_release(parker_wake, p);
    syscall(SYS_futex, state_of(p), FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Park past the spin: announce PARKED and sleep until the permit or the deadline. */
static bool park_slow(zc_parker *p, uint64_t deadline_ns) {
    _Atomic unsigned int *state = state_of(p);
    /* [K2] Acquire pairs with [K1] if this finds NOTIFIED (the permit came after the
     * spin); else EMPTY -> PARKED, which needs no release (see the file comment). */
    bool woken = atomic_fetch_sub_explicit(state, 1, memory_order_acquire) ==
                 ZC__PARKER_NOTIFIED;
    while (!woken && sleep_until(state, ZC__PARKER_PARKED, deadline_ns)) woken = take_permit(state);
    /* [K2] Timed out: withdraw PARKED. Acquire pairs with [K1] of a wake that got in
     * after the last look: its permit is taken and park reports ZC_OK. */
    if (!woken)
        woken = atomic_exchange_explicit(state, ZC__PARKER_EMPTY, memory_order_acquire) ==
                ZC__PARKER_NOTIFIED;
    return woken;
}

#else /* condvar fallback */

/* pthread_condattr_setclock is POSIX's clock-selection option; systems without it
 * (macOS) time condvars on CLOCK_REALTIME, so the monotonic deadline is converted. */
#if defined(_POSIX_CLOCK_SELECTION) && _POSIX_CLOCK_SELECTION >= 0
#define COND_CLOCK_MONOTONIC 1
#else
#define COND_CLOCK_MONOTONIC 0
#endif

/* Wait on zc__cv (zc__mu held) at most until deadline_ns. Returns false once the
 * deadline has passed, true after any other return; the caller re-reads the state. */
static bool sleep_until(zc_parker *p, uint64_t deadline_ns) {
    if (deadline_ns == ZC__NO_DEADLINE) {
        pthread_cond_wait(&p->zc__cv, &p->zc__mu);
        return true;
    }
#if COND_CLOCK_MONOTONIC
    struct timespec abs = timespec_of(deadline_ns);
    return pthread_cond_timedwait(&p->zc__cv, &p->zc__mu, &abs) != ETIMEDOUT ||
           zc__clock_ns() < deadline_ns; /* a deadline cut by timespec_of: again */
#else
    uint64_t now = zc__clock_ns();
    if (now >= deadline_ns) return false;
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    struct timespec abs = timespec_of((uint64_t)real.tv_sec * 1000000000u +
                                      (uint64_t)real.tv_nsec + (deadline_ns - now));
    /* CLOCK_REALTIME may jump: ETIMEDOUT proves nothing, the check above decides. */
    pthread_cond_timedwait(&p->zc__cv, &p->zc__mu, &abs);
    return true;
#endif
}

static void wake_sleeper(zc_parker *p) {
    /* The sleeper turned EMPTY into PARKED under zc__mu: once we hold it, the sleeper is
     * inside pthread_cond_wait (or gone). Signalled after the unlock, as Rust std does. */
    pthread_mutex_lock(&p->zc__mu);
    pthread_mutex_unlock(&p->zc__mu);
    pthread_cond_signal(&p->zc__cv);
}

static bool park_slow(zc_parker *p, uint64_t deadline_ns) {
    _Atomic unsigned int *state = state_of(p);
    pthread_mutex_lock(&p->zc__mu);
    /* [K2] As in the futex version; done under zc__mu (see wake_sleeper). */
    bool woken = atomic_fetch_sub_explicit(state, 1, memory_order_acquire) ==
                 ZC__PARKER_NOTIFIED;
    while (!woken && sleep_until(p, deadline_ns)) woken = take_permit(state);
    /* [K2] Timed out: withdraw PARKED, taking a permit that raced with the timeout. */
    if (!woken)
        woken = atomic_exchange_explicit(state, ZC__PARKER_EMPTY, memory_order_acquire) ==
                ZC__PARKER_NOTIFIED;
    pthread_mutex_unlock(&p->zc__mu);
    return woken;
}

#endif /* USE_FUTEX */

void zc_parker_init(zc_parker *p) {
    if (p == NULL) return;
    /* Not shared yet: whatever hands p (or its waker) to another thread publishes it. */
    atomic_init(state_of(p), ZC__PARKER_EMPTY);
#if !USE_FUTEX
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
#if COND_CLOCK_MONOTONIC
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
#endif
    pthread_cond_init(&p->zc__cv, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&p->zc__mu, NULL);
#endif
}

void zc_parker_destroy(zc_parker *p) {
    if (p == NULL) return;
#if !USE_FUTEX
    pthread_cond_destroy(&p->zc__cv);
    pthread_mutex_destroy(&p->zc__mu);
#endif
}

static void parker_wake(void *ctx) {
    zc_parker *p = ctx;
    /* [K1] Release pairs with [K2]: the caller's writes before this wake are visible to
     * the parked thread once it has the permit. Even NOTIFIED -> NOTIFIED writes, so that
     * every wake is a release the next park synchronises with. */
    if (atomic_exchange_explicit(state_of(p), ZC__PARKER_NOTIFIED, memory_order_release) !=
        ZC__PARKER_PARKED)
        return;
    /* From the exchange on, the parked thread may take the permit and return before
     * wake_sleeper runs; p itself outlives every wake (zc_parker_destroy's contract, and
     * waker rule 3 for the blocking layer's futures). */
    wake_sleeper(p);
}

zc_waker zc_parker_waker(zc_parker *p) {
    /* A NULL wake makes any poll given this waker return ZC_EINVAL. */
    zc_waker w = {p != NULL ? parker_wake : NULL, p};
    return w;
}

zc_status zc__parker_park_until(zc_parker *p, uint64_t deadline_ns, bool spin) {
    if (p == NULL) return ZC_EINVAL;
    _Atomic unsigned int *state = state_of(p);
    if (take_permit(state)) return ZC_OK;
    if (zc__deadline_passed(deadline_ns)) return ZC_TIMEDOUT;
    if ((spin && spin_for_permit(state, deadline_ns)) || park_slow(p, deadline_ns)) return ZC_OK;
    return ZC_TIMEDOUT;
}

void zc_parker_park(zc_parker *p) {
    ZC__CHECK_PARK(p, ZC__NO_DEADLINE);
    (void)zc__parker_park_until(p, ZC__NO_DEADLINE, true);
}

zc_status zc_parker_park_until(zc_parker *p, uint64_t deadline_ns) {
    ZC__CHECK_PARK(p, deadline_ns);
    return zc__parker_park_until(p, deadline_ns, true);
}

zc_status zc_parker_park_timeout(zc_parker *p, uint64_t timeout_ns) {
    if (p == NULL) return ZC_EINVAL;
    uint64_t deadline_ns = zc__deadline_ns(timeout_ns);
    ZC__CHECK_PARK(p, deadline_ns);
    return zc__parker_park_until(p, deadline_ns, true);
}

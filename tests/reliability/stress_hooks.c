/*
 * stress_hooks: the stress_mpmc runs (tests/stress/stress_mpmc.c: P producer and C
 * consumer threads, blocking sends and receives, futures with random cancels, try ops;
 * exactly-once delivery and per-producer order checked by the ledger) with a jitter
 * hook at every race window of a ZCHAN_TEST_HOOKS build: whenever a thread reaches a
 * hook point (slot claimed / published, waiter registered / notified, re-check done,
 * segment installed / freed, close marked) it may spin, yield or sleep a few
 * microseconds, so that the interleavings those windows allow happen often instead of
 * rarely. Optionally every channel starts a few laps before its position counters wrap
 * around, so that the run also crosses the wrap.
 *
 * usage: stress_hooks [--jitter=P] [--laps=N] [--jitter-seed=S] [stress_mpmc options]
 *   --jitter=P       probability that a hook point jitters (default 0.05)
 *   --laps=N         zc__test_set_start_lap(N): counters wrap after N laps (default 0)
 *   --jitter-seed=S  seed of the jitter choices (default 1)
 * The remaining options go to stress_mpmc (`stress_hooks --help` lists them). This file
 * is linked with stress_mpmc.c, whose main is compiled as stress_mpmc_main.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sched.h>

#include "atomic.h" /* zc__cpu_relax */
#include "hooks.h"
#include "stress_util.h"

int stress_mpmc_main(int argc, char **argv);

typedef struct jitter {
    double p;          /* probability that a hook point jitters */
    uint64_t seed;
    atomic_uint threads; /* threads seen so far: each gets its own random stream */
    atomic_ullong jitters;
} jitter;

static jitter the_jitter = {.p = 0.05, .seed = 1};

static _Thread_local uint64_t rng;    /* this thread's stream; 0 until first use */

static void jitter_hook(zc__hook_point point, void *ctx) {
    jitter *j = ctx;
    (void)point;
    if (rng == 0) {
        /* Relaxed: only a distinct number per thread is needed. */
        unsigned id = atomic_fetch_add_explicit(&j->threads, 1, memory_order_relaxed);
        rng = stress_rng_seed(j->seed, id);
    }
    if (!stress_rng_chance(&rng, j->p)) return;
    atomic_fetch_add_explicit(&j->jitters, 1, memory_order_relaxed); /* a statistic */
    uint64_t r = stress_rng_next(&rng);
    unsigned kind = (unsigned)(r % 10), amount = (unsigned)(r >> 8);
    if (kind < 7) { /* mostly a spin of 1-256 pauses: cheap, shifts threads a little */
        for (unsigned i = amount % 256 + 1; i > 0; i--)
            zc__cpu_relax();
    } else if (kind < 9) { /* give the CPU away: a peer may run in the window */
        sched_yield();
    } else { /* sleep 1-20 µs (the timer makes it longer): the window stays open */
        struct timespec ts = {0, (long)(amount % 20 + 1) * 1000};
        nanosleep(&ts, NULL);
    }
}

/* If arg is --name=value, return value; else NULL. */
static const char *option(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

int main(int argc, char **argv) {
    size_t laps = 0;
    int first = 1; /* first argument that belongs to stress_mpmc */
    for (; first < argc; first++) {
        const char *v;
        if ((v = option(argv[first], "--jitter")))
            the_jitter.p = stress_arg_prob("--jitter", v);
        else if ((v = option(argv[first], "--laps")))
            laps = (size_t)stress_arg_num("--laps", v, 0, 1u << 20);
        else if ((v = option(argv[first], "--jitter-seed")))
            the_jitter.seed = stress_arg_num("--jitter-seed", v, 0, UINT64_MAX);
        else
            break;
    }
    printf("stress_hooks: jitter=%g laps=%zu jitter-seed=%llu\n", the_jitter.p, laps,
           (unsigned long long)the_jitter.seed);
    zc__test_set_start_lap(laps);
    zc__test_set_hook(jitter_hook, &the_jitter);
    argv[first - 1] = argv[0];
    int status = stress_mpmc_main(argc - first + 1, argv + first - 1);
    zc__test_set_hook(NULL, NULL);
    printf("stress_hooks: %llu jitters\n",
           (unsigned long long)atomic_load_explicit(&the_jitter.jitters,
                                                    memory_order_relaxed));
    return status;
}

/*
 * Unit tests of zc__yield (src/park.h): the yield of a waiting thread, which naps once
 * when the yield ran another thread on its CPU, at most once per ZC__NAP_INTERVAL_NS; the
 * lone stage of a blocking call's spin (zc__spin_snooze, src/spin.c), which yields on
 * while no other thread wants the CPU; and the parker's spin of yields beside a busy
 * thread.
 *
 * A nap is a real block, which the kernel counts as a voluntary context switch of the
 * thread (getrusage RUSAGE_THREAD, ru_nvcsw); sched_yield is not one. Linux only (CPU
 * affinity and RUSAGE_THREAD); elsewhere the tests are skipped. Not run under valgrind
 * (scripts/valgrind.sh): valgrind's own thread lock blocks threads, which ru_nvcsw counts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np, sched_getcpu, RUSAGE_THREAD */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <zchan/zchan.h>

#include "backoff.h"
#include "spin.h"
#include "mono_clock.h"
#include "park.h"

#if defined(__linux__) && defined(RUSAGE_THREAD)

static long voluntary_switches(void) {
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_nvcsw;
}

/* Another runnable thread: works 5 µs (so that a yield that runs it is unmistakably
 * long), yields, and again, until told to stop. */
static atomic_bool stop_working;

static void *worker_main(void *arg) {
    (void)arg;
    /* Relaxed: a stop flag; nothing is read through it. */
    while (!atomic_load_explicit(&stop_working, memory_order_relaxed)) {
        uint64_t until = now_ns() + 5000;
        while (now_ns() < until) {
        }
        sched_yield();
    }
    return NULL;
}

/* A thread busy with work of its own: it never yields, and gives the CPU up only when
 * the kernel's time slice ends. */
static atomic_bool hog_running;

static void *hog_main(void *arg) {
    (void)arg;
    /* Relaxed: flags; nothing is read through them. */
    atomic_store_explicit(&hog_running, true, memory_order_relaxed);
    while (!atomic_load_explicit(&stop_working, memory_order_relaxed)) {
    }
    return NULL;
}

/* Pin this thread to the CPU it is on (skip if it cannot); returns that CPU, the old
 * affinity in *saved. */
static int pin_to_this_cpu(cpu_set_t *saved) {
    int cpu = sched_getcpu();
    if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof *saved, saved) != 0) skip();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) skip();
    return cpu;
}

/* Start thread_main(arg) in a thread allowed only the CPUs in *cpus. */
static void start_pinned(pthread_t *t, void *(*thread_main)(void *), void *arg,
                         const cpu_set_t *cpus) {
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof *cpus, cpus), 0);
    assert_int_equal(pthread_create(t, &attr, thread_main, arg), 0);
    pthread_attr_destroy(&attr);
}

/* The CPUs of *allowed other than cpu, in *other; false if there are none. */
static bool other_cpus(const cpu_set_t *allowed, int cpu, cpu_set_t *other) {
    CPU_AND(other, allowed, allowed);
    CPU_CLR(cpu, other);
    return CPU_COUNT(other) > 0;
}

/* This thread and a thread running thread_main (worker_main or hog_main) on this thread's
 * CPU; the old affinity in *saved. */
static void share_a_cpu_with(void *(*thread_main)(void *), pthread_t *worker,
                             cpu_set_t *saved) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(pin_to_this_cpu(saved), &one);
    atomic_store_explicit(&stop_working, false, memory_order_relaxed);
    start_pinned(worker, thread_main, NULL, &one);
}

static void stop_the_worker(pthread_t worker, const cpu_set_t *saved) {
    atomic_store_explicit(&stop_working, true, memory_order_relaxed);
    assert_int_equal(pthread_join(worker, NULL), 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof *saved, saved), 0);
}

/* Run thread_main(arg) in a new thread, whose thread-locals (the yield check's time) are
 * fresh, and wait for it. */
static void run_in_a_new_thread(void *(*thread_main)(void *), void *arg) {
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, thread_main, arg), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_a_yield_that_runs_another_thread_naps_once_per_interval(void **unused) {
    (void)unused;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with(worker_main, &worker, &saved);
    /* Rounds an interval apart, so that a nap is due at the first yield of each, the one
     * checked: it runs the worker and naps, and no other yield of the round naps. A
     * round may nap not at all: its checked yield can find nothing else to run (the
     * worker between two of its own yields; found 1 round in 40 with two busy loops
     * beside the test). */
    struct timespec interval = {0, (long)ZC__NAP_INTERVAL_NS + 1000000};
    long napped = 0;
    for (int round = 0; round < 8 && napped < 3; round++) {
        nanosleep(&interval, NULL);
        uint64_t t0 = now_ns();
        long v0 = voluntary_switches();
        for (int i = 0; i < 20; i++) zc__yield(); /* each one runs the worker for 5 µs */
        long naps = voluntary_switches() - v0;
        uint64_t span = now_ns() - t0;
        assert_true(naps <= 1 + (long)(span / ZC__NAP_INTERVAL_NS));
        napped += naps;
    }
    assert_true(napped >= 3);
    stop_the_worker(worker, &saved);
}

/* A new thread (no yield before) that shares its CPU with a worker yields until it
 * naps, for at most 30 ms (three checks); returns when it napped after its first yield,
 * in ns, or UINT64_MAX. */
static void *first_nap_main(void *arg) {
    uint64_t *first_nap_after = arg;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with(worker_main, &worker, &saved);
    *first_nap_after = UINT64_MAX;
    long v0 = voluntary_switches();
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < 30000000u) {
        zc__yield(); /* each one runs the worker for 5 µs */
        if (voluntary_switches() != v0) {
            *first_nap_after = now_ns() - t0;
            break;
        }
    }
    stop_the_worker(worker, &saved);
    return NULL;
}

/* A thread's first yields are not checked: threads that begin on one CPU are spread by
 * the kernel soon enough, and a nap at once would cost a pair of threads on one CPU a
 * large part of a short exchange (bench row 10). The first check, ZC__NAP_FIRST_CHECK_NS after the
 * first yield, naps. */
static void test_a_thread_is_first_checked_a_while_after_its_first_yield(void **unused) {
    (void)unused;
    uint64_t first_nap_after = 0;
    run_in_a_new_thread(first_nap_main, &first_nap_after);
    assert_true(first_nap_after != UINT64_MAX);
    assert_true(first_nap_after >= ZC__NAP_FIRST_CHECK_NS);
}

static void involuntary_and_voluntary(long *iv, long *v) {
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
    *iv = ru.ru_nivcsw;
    *v = ru.ru_nvcsw;
}

/* Yields with nothing else to run, one an interval, in a new thread (no yield before);
 * returns how many of those that switched to no other thread napped. A yield
 * that runs another thread is an involuntary switch of this one (ru_nivcsw), a nap a
 * voluntary one. */
static void *yield_alone_main(void *arg) {
    long *naps_alone = arg, alone = 0;
    struct timespec interval = {0, (long)ZC__NAP_INTERVAL_NS + 1000000};
    for (int i = 0; i < 5; i++) {
        nanosleep(&interval, NULL); /* a nap would be due */
        long iv0, v0, iv1, v1;
        involuntary_and_voluntary(&iv0, &v0);
        zc__yield();
        involuntary_and_voluntary(&iv1, &v1);
        if (iv1 != iv0) continue; /* it ran another thread: a nap is right */
        alone++;
        *naps_alone += v1 - v0;
    }
    if (alone < 3) *naps_alone = -1; /* the machine was too busy to tell */
    return NULL;
}

/* On a machine where every system call takes a microsecond or more (seen: a Firecracker
 * guest with page-table isolation, where sched_yield alone took 1.0-1.3 µs), a yield that
 * ran nothing else looked as long as one that ran another thread (ZC__YIELD_RAN_ANOTHER_NS
 * was the test then), and every blocking call's yield stage napped 70 µs once an
 * interval. */
static void test_a_yield_that_runs_nothing_else_does_not_nap(void **unused) {
    (void)unused;
    long naps_alone = 0;
    run_in_a_new_thread(yield_alone_main, &naps_alone);
    if (naps_alone < 0) skip();
    assert_int_equal(naps_alone, 0);
}

/* A nap lasts about the thread's timer slack; with a large one (prctl, systemd's
 * TimerSlackNSec=) a nap of 1 ns became one of 50 ms, at every interval. */
static void test_no_nap_when_the_timer_slack_is_large(void **unused) {
    (void)unused;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with(worker_main, &worker, &saved);
    long slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    assert_int_equal(prctl(PR_SET_TIMERSLACK, 50 * 1000000UL, 0, 0, 0), 0);

    struct timespec interval = {0, (long)ZC__NAP_INTERVAL_NS + 1000000};
    long naps = 0;
    uint64_t longest = 0;
    for (int i = 0; i < 3; i++) {
        nanosleep(&interval, NULL); /* a nap would be due each time */
        long v0 = voluntary_switches();
        uint64_t t0 = now_ns();
        zc__yield();
        uint64_t took = now_ns() - t0;
        naps += voluntary_switches() - v0;
        if (took > longest) longest = took;
    }
    assert_int_equal(prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0), 0);
    stop_the_worker(worker, &saved);
    assert_int_equal(naps, 0);
    assert_true(longest < 20 * 1000000u); /* a 50 ms nap would show here too */
}

/* A blocking receive's whole spin on an empty channel (zc__spin_snooze until it says
 * park), in this thread; its yields and length in ns, and whether the kernel switched
 * this thread out against its will meanwhile (a yield ran another thread, or a
 * preemption). */
typedef struct spin_run {
    unsigned yields;
    uint64_t took;
    bool switched;
} spin_run;

static spin_run spin_until_park(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    long iv0, v0, iv1, v1;
    zc__spin_state sp = ZC__SPIN_INIT;
    involuntary_and_voluntary(&iv0, &v0);
    uint64_t t0 = now_ns();
    while (zc__spin_snooze(rx->ch, &sp, true)) {
    }
    spin_run r = {sp.yields, now_ns() - t0, false};
    involuntary_and_voluntary(&iv1, &v1);
    r.switched = iv1 != iv0;
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return r;
}

/* Up to five spins in a new thread until one that nothing else interrupted. */
static void *lone_spin_main(void *arg) {
    spin_run *r = arg;
    for (int i = 0; i < 5; i++) {
        *r = spin_until_park();
        if (!r->switched) break;
    }
    return NULL;
}

/* A parked thread can take longer to wake than the ten yields last: one sender and one
 * receiver thread would then fall into parking in turn, two wake-ups each 16 messages
 * (bench row 10). So a spin whose CPU has no other thread to run yields on, for ZC__SPIN_ALONE_NS. */
static void test_a_spin_alone_on_its_cpu_goes_on_yielding_before_it_parks(void **unused) {
    (void)unused;
    spin_run r = {0, 0, true};
    run_in_a_new_thread(lone_spin_main, &r);
    print_message("%u yields in %llu us\n", r.yields, (unsigned long long)(r.took / 1000));
    if (r.switched) skip(); /* the machine was too busy to tell */
    assert_true(r.yields > ZC__SPIN_YIELDS);
    assert_true(r.took >= ZC__SPIN_ALONE_NS);
}

/* The lone stage ends at its first yield that runs another thread: a spin beside a
 * thread that works 5 µs between its yields makes one yield more than the ten, not one a
 * yield for the whole lone stage (which would slow many threads on few CPUs, bench row
 * 5). */
static void test_the_lone_stage_ends_at_a_yield_that_runs_another_thread(void **unused) {
    (void)unused;
    pthread_t worker;
    cpu_set_t saved;
    share_a_cpu_with(worker_main, &worker, &saved);
    spin_run r = spin_until_park();
    stop_the_worker(worker, &saved);
    print_message("%u yields in %llu us\n", r.yields, (unsigned long long)(r.took / 1000));
    assert_true(r.switched);
    /* One more if the worker was between its yields at the first (see the first test). */
    assert_true(r.yields <= ZC__SPIN_YIELDS + 2);
}

/* A receive that another thread's send meets after delay_ns ns (about): the receiving
 * thread's switches across its call. */
typedef struct late_send {
    zc_receiver *rx;
    bool timed;                 /* zc_recv_timeout (1 s), else zc_recv_blocking */
    _Atomic uint64_t start_ns;  /* when the receiver began, 0 before */
    long slept, switched;       /* its voluntary and involuntary switches */
} late_send;

static void *late_recv_main(void *arg) {
    late_send *l = arg;
    long iv0, v0, iv1, v1;
    uint64_t out = 0;
    involuntary_and_voluntary(&iv0, &v0);
    /* Release pairs with the sender's acquire load: only a time, nothing read through it. */
    atomic_store_explicit(&l->start_ns, now_ns(), memory_order_release);
    zc_status s = l->timed ? zc_recv_timeout(l->rx, &out, 1000000000u)
                           : zc_recv_blocking(l->rx, &out);
    involuntary_and_voluntary(&iv1, &v1);
    assert_int_equal(s, ZC_OK);
    assert_int_equal(out, 42);
    l->slept = v1 - v0;
    l->switched = iv1 - iv0;
    return NULL;
}

/* One such receive, its message sent delay_ns after it began; false if the run cannot
 * tell (the send came over 1.5 x delay_ns late, or the receiver was switched out against
 * its will: it did not have a CPU to itself). */
static bool receive_late(bool timed, uint64_t delay_ns, long *slept) {
    /* This thread on its CPU, the receiver on another (none: skip). */
    cpu_set_t saved, other;
    if (!other_cpus(&saved, pin_to_this_cpu(&saved), &other)) {
        assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof saved, &saved), 0);
        skip();
    }
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    late_send l = {.rx = rx, .timed = timed};
    atomic_init(&l.start_ns, 0);
    pthread_t t;
    start_pinned(&t, late_recv_main, &l, &other);
    uint64_t start;
    while ((start = atomic_load_explicit(&l.start_ns, memory_order_acquire)) == 0) {
    }
    while (now_ns() - start < delay_ns) {
    }
    uint64_t late = now_ns() - start, msg = 42;
    assert_int_equal(zc_try_send(tx, &msg), ZC_OK);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof saved, &saved), 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    *slept = l.slept;
    return late < delay_ns + delay_ns / 2 && l.switched == 0;
}

/* A partner that answers 30 µs into a wait finds the waiting thread still spinning (the
 * lone stage lasts 50 µs beyond the ten yields), for the timed receive as for the
 * blocking one: neither sleeps, so neither side pays for a wake-up. A timed call that did
 * not spin before registering would end the park's ten yields (a few µs) before such a
 * partner came, and sleep. Up to five tries each for one that can tell. */
static void test_a_wait_met_within_the_lone_stage_never_sleeps(void **unused) {
    (void)unused;
    for (int timed = 0; timed < 2; timed++) {
        long slept = -1;
        bool told = false;
        for (int i = 0; i < 5 && !told; i++) told = receive_late(timed, 30000, &slept);
        print_message("%s receive: %s, %ld sleeps\n", timed ? "timed" : "blocking",
                      told ? "told" : "too busy to tell", slept);
        if (!told) skip();
        assert_int_equal(slept, 0);
    }
}

/* Start a busy thread on this thread's CPU and wait until it runs; return the longest of
 * a few sched_yields beside it, the length of its time slice (0 if none took 1 ms: the
 * busy thread did not get the CPU, and the caller skips). */
static uint64_t start_a_busy_thread(pthread_t *hog, cpu_set_t *saved) {
    atomic_store_explicit(&hog_running, false, memory_order_relaxed);
    share_a_cpu_with(hog_main, hog, saved);
    while (!atomic_load_explicit(&hog_running, memory_order_relaxed)) sched_yield();
    /* A yield can come back at once (the busy thread has just run, and the kernel is not
     * yet due to let it run again): the longest of a few. */
    uint64_t slice = 0;
    for (int i = 0; i < 5 && slice < 1000000u; i++) {
        uint64_t t0 = now_ns();
        sched_yield();
        uint64_t took = now_ns() - t0;
        if (took > slice) slice = took;
    }
    return slice < 1000000u ? 0 : slice;
}

/* What timed_waits_main measured, in ns. */
typedef struct timed_waits {
    uint64_t slice;  /* the busy thread's time slice (start_a_busy_thread) */
    uint64_t parks;  /* five zc_parker_park_timeout of 1 ms, with no wake */
    uint64_t recvs;  /* five zc_recv_timeout of 1 ms on an empty channel */
    uint64_t closed; /* five zc_recv_blocking on a closed, drained channel */
    uint64_t closed_sends; /* five zc_send_blocking on it */
} timed_waits;

/* In a new thread that shares its CPU with a busy thread: timed waits that time out, and
 * blocking receives and sends on a closed channel. */
static void *timed_waits_main(void *arg) {
    timed_waits *t = arg;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    zc_parker p;
    zc_parker_init(&p);
    pthread_t hog;
    cpu_set_t saved;
    t->slice = start_a_busy_thread(&hog, &saved);

    uint64_t t0 = now_ns();
    for (int i = 0; i < 5; i++)
        assert_int_equal(zc_parker_park_timeout(&p, 1000000), ZC_TIMEDOUT);
    t->parks = now_ns() - t0;
    uint64_t out;
    t0 = now_ns();
    for (int i = 0; i < 5; i++)
        assert_int_equal(zc_recv_timeout(rx, &out, 1000000), ZC_TIMEDOUT);
    t->recvs = now_ns() - t0;
    assert_true(zc_sender_close(tx)); /* the channel is empty */
    t0 = now_ns();
    for (int i = 0; i < 5; i++) assert_int_equal(zc_recv_blocking(rx, &out), ZC_CLOSED);
    t->closed = now_ns() - t0;
    t0 = now_ns();
    for (int i = 0; i < 5; i++) assert_int_equal(zc_send_blocking(tx, &out), ZC_CLOSED);
    t->closed_sends = now_ns() - t0;

    stop_the_worker(hog, &saved);
    zc_parker_destroy(&p);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return NULL;
}

/* With a busy thread on the waiting thread's CPU, each of the ten yields of the parker's
 * spin may give it a whole time slice (a few ms). The spin ends once the deadline has
 * passed, so a park or a receive with a timeout of 1 ms returns one slice late at most,
 * not ten. */
static void test_a_timed_wait_beside_a_busy_thread_is_a_slice_late_at_most(void **unused) {
    (void)unused;
    timed_waits t = {0};
    run_in_a_new_thread(timed_waits_main, &t);
    print_message("slice %llu us, five 1 ms parks %llu us, five 1 ms receives %llu us\n",
                  (unsigned long long)(t.slice / 1000),
                  (unsigned long long)(t.parks / 1000),
                  (unsigned long long)(t.recvs / 1000));
    if (t.slice == 0) skip(); /* the busy thread did not run: no slice */
    assert_true(t.parks < 5 * (1000000u + 2 * t.slice));
    assert_true(t.recvs < 5 * (1000000u + 2 * t.slice));
}

/* zc_recv_blocking's spin on a bounded channel does not read the senders' index, where
 * the close mark is; were it to learn of the close only after its ten yields, a receive
 * on a closed, drained channel beside a busy thread would take a time slice a yield. The
 * spin looks for the close before its first yield: five such calls take less than two
 * slices (so that one preemption of this thread does not fail the test). A send's spin
 * tells a close from its first attempt (the mark is on tail, its own line): five sends
 * on a closed channel take no yields either. */
static void test_closed_is_told_without_yielding_beside_a_busy_thread(void **unused) {
    (void)unused;
    timed_waits t = {0};
    run_in_a_new_thread(timed_waits_main, &t);
    print_message("slice %llu us, five receives on a closed channel %llu us, five sends %llu us\n",
                  (unsigned long long)(t.slice / 1000), (unsigned long long)(t.closed / 1000),
                  (unsigned long long)(t.closed_sends / 1000));
    if (t.slice == 0) skip();
    assert_true(t.closed < 2 * t.slice);
    assert_true(t.closed_sends < 2 * t.slice);
}

/* What close_during_spin_main measured. */
typedef struct close_during_spin {
    bool timed;            /* zc_recv_timeout (1 s), else zc_recv_blocking */
    uint64_t slice;        /* the busy thread's time slice (start_a_busy_thread) */
    uint64_t late;         /* from the drop of the last sender to the receive's return */
    zc_sender *tx;
    _Atomic uint64_t start_ns, drop_ns; /* when the receive began, and the drop; 0 before */
} close_during_spin;

/* Drops the last sender 30 µs into the receive. */
static void *dropper_main(void *arg) {
    close_during_spin *c = arg;
    uint64_t start;
    /* Acquire and release: times only, nothing read through them. */
    while ((start = atomic_load_explicit(&c->start_ns, memory_order_acquire)) == 0) {
    }
    while (now_ns() - start < 30000) {
    }
    atomic_store_explicit(&c->drop_ns, now_ns(), memory_order_release);
    zc_sender_drop(c->tx);
    return NULL;
}

/* In a new thread that shares its CPU with a busy thread: a receive on an empty bounded
 * channel whose last sender a thread on another CPU drops during the receive's spin. */
static void *close_during_spin_main(void *arg) {
    close_during_spin *c = arg;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &c->tx, &rx), ZC_OK);
    pthread_t hog, dropper;
    cpu_set_t saved, other;
    c->slice = start_a_busy_thread(&hog, &saved);
    if (c->slice > 0 && other_cpus(&saved, sched_getcpu(), &other)) {
        start_pinned(&dropper, dropper_main, c, &other);
        uint64_t out;
        atomic_store_explicit(&c->start_ns, now_ns(), memory_order_release);
        zc_status s = c->timed ? zc_recv_timeout(rx, &out, 1000000000u)
                               : zc_recv_blocking(rx, &out);
        c->late = now_ns() - atomic_load_explicit(&c->drop_ns, memory_order_acquire);
        assert_int_equal(s, ZC_CLOSED);
        assert_int_equal(pthread_join(dropper, NULL), 0);
    } else {
        c->slice = 0; /* cannot tell */
        zc_sender_drop(c->tx);
    }
    stop_the_worker(hog, &saved);
    zc_receiver_drop(rx);
    return NULL;
}

/* Beside a busy thread each of a bounded receive's ten spin yields can give that thread
 * a time slice, so a close made during the spin must be looked for again after a yield
 * that gave a slice, not only before the first. The timed receive (which spins first)
 * and the blocking one must tell such a close within about one slice. */
static void test_a_close_during_the_spin_is_told_within_slices_beside_a_busy_thread(
    void **unused) {
    (void)unused;
    for (int timed = 0; timed < 2; timed++) {
        close_during_spin c = {.timed = timed};
        atomic_init(&c.start_ns, 0);
        atomic_init(&c.drop_ns, 0);
        run_in_a_new_thread(close_during_spin_main, &c);
        print_message("%s receive: slice %llu us, closed told %llu us after the drop\n",
                      timed ? "timed" : "blocking", (unsigned long long)(c.slice / 1000),
                      (unsigned long long)(c.late / 1000));
        if (c.slice == 0) skip();
        assert_true(c.late < 3 * c.slice);
    }
}

/* A spin in a new thread under a policy (SCHED_IDLE; SCHED_FIFO where allowed). *arg:
 * the policy in; out, the spin's yields, or -1 if the policy could not be set or the
 * thread was switched out against its will (something else ran on its CPU). */
static void *spin_under_policy_main(void *arg) {
    int *io = arg, policy = *io;
    struct sched_param param = {.sched_priority = policy == SCHED_FIFO ? 1 : 0};
    *io = -1;
    if (pthread_setschedparam(pthread_self(), policy, &param) != 0) return NULL;
    spin_run r = spin_until_park();
    if (!r.switched) *io = (int)r.yields;
    return NULL;
}

/* The yields of a thread under a real-time policy or SCHED_IDLE never run a partner of
 * another priority on its CPU, so they never count as running another thread, and the
 * lone stage would starve such a partner for its whole length at every wait (a
 * SCHED_FIFO receiver and a normal sender pinned to one CPU). Such threads skip it: ten
 * yields. */
static void test_a_thread_under_a_real_time_or_idle_policy_skips_the_lone_stage(
    void **unused) {
    (void)unused;
    int policies[2] = {SCHED_IDLE, SCHED_FIFO}, told = 0;
    for (int i = 0; i < 2; i++) {
        int result = policies[i];
        run_in_a_new_thread(spin_under_policy_main, &result);
        print_message("%s: %d yields\n", i == 0 ? "SCHED_IDLE" : "SCHED_FIFO", result);
        if (result < 0) continue; /* not allowed here (SCHED_FIFO needs CAP_SYS_NICE) */
        told++;
        assert_int_equal(result, ZC__SPIN_YIELDS);
    }
    if (told == 0) skip();
}

#else

/* These tests need Linux's CPU affinity and RUSAGE_THREAD: skipped elsewhere. */
#define SKIPPED_HERE(test)                  \
    static void test(void **unused) {   \
        (void)unused;                   \
        skip();                         \
    }
SKIPPED_HERE(test_a_timed_wait_beside_a_busy_thread_is_a_slice_late_at_most)
SKIPPED_HERE(test_closed_is_told_without_yielding_beside_a_busy_thread)
SKIPPED_HERE(test_a_yield_that_runs_another_thread_naps_once_per_interval)
SKIPPED_HERE(test_no_nap_when_the_timer_slack_is_large)
SKIPPED_HERE(test_a_yield_that_runs_nothing_else_does_not_nap)
SKIPPED_HERE(test_a_thread_is_first_checked_a_while_after_its_first_yield)
SKIPPED_HERE(test_a_spin_alone_on_its_cpu_goes_on_yielding_before_it_parks)
SKIPPED_HERE(test_the_lone_stage_ends_at_a_yield_that_runs_another_thread)
SKIPPED_HERE(test_a_wait_met_within_the_lone_stage_never_sleeps)
SKIPPED_HERE(test_a_close_during_the_spin_is_told_within_slices_beside_a_busy_thread)
SKIPPED_HERE(test_a_thread_under_a_real_time_or_idle_policy_skips_the_lone_stage)

#endif

/* The attempt handed to zc__spin below: counts its calls; never goes through. */
static zc_status counted_send_attempt(void *arg) {
    unsigned *calls = arg;
    (*calls)++;
    return ZC_FULL;
}

/* A send's spin looks for the close at every look (spin.h): on a closed channel that is
 * full it returns ZC_CLOSED at its first look, making no attempt, rather than spinning
 * on the full slot until it would park. */
static void test_a_send_spin_on_a_closed_full_channel_returns_closed_at_once(void **unused) {
    (void)unused;
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    uint64_t msg = 7;
    assert_int_equal(zc_try_send(tx, &msg), ZC_OK);
    assert_true(zc_sender_close(tx));
    unsigned calls = 0;
    zc__limit limit = zc__limit_after(UINT64_MAX);
    assert_int_equal(zc__spin(tx->ch, false, counted_send_attempt, &calls, &limit), ZC_CLOSED);
    assert_int_equal(calls, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_yield_that_runs_another_thread_naps_once_per_interval),
        cmocka_unit_test(test_no_nap_when_the_timer_slack_is_large),
        cmocka_unit_test(test_a_yield_that_runs_nothing_else_does_not_nap),
        cmocka_unit_test(test_a_thread_is_first_checked_a_while_after_its_first_yield),
        cmocka_unit_test(test_a_spin_alone_on_its_cpu_goes_on_yielding_before_it_parks),
        cmocka_unit_test(test_the_lone_stage_ends_at_a_yield_that_runs_another_thread),
        cmocka_unit_test(test_a_wait_met_within_the_lone_stage_never_sleeps),
        cmocka_unit_test(test_a_thread_under_a_real_time_or_idle_policy_skips_the_lone_stage),
        cmocka_unit_test(test_a_timed_wait_beside_a_busy_thread_is_a_slice_late_at_most),
        cmocka_unit_test(test_closed_is_told_without_yielding_beside_a_busy_thread),
        cmocka_unit_test(test_a_close_during_the_spin_is_told_within_slices_beside_a_busy_thread),
        cmocka_unit_test(test_a_send_spin_on_a_closed_full_channel_returns_closed_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * stress_herd.c: waker rule 5 (no herd) under many threads, futures only, no cancels.
 *
 * P sender threads and C receiver threads each drive one future at a time on a bounded
 * channel, parking on their own waker while it is pending. Every call of a future's
 * waker made from a thread other than the future's own (a notify or a pass-on; a poll's
 * self-wake runs on its own thread and is not counted) is counted per side. Rule 5 bounds
 * them: the receive futures' count never exceeds the messages sent plus the receivers
 * woken by close, and the send futures' count never exceeds the slots freed (one per
 * message received) plus the senders woken by close (with no cancels, nothing passes a
 * wake-up on). Every message must also arrive exactly once.
 *
 * Each sender waits, before each send, until every receiver is pending or a short time
 * has passed, so that most messages are sent with receivers waiting and a surplus wake
 * is not hidden by messages that woke nobody. In a ZCHAN_TEST_HOOKS build, --jitter=F
 * makes a fraction F of the library's hook points spin, yield or sleep briefly, which
 * widens the windows where a poll meets a peer mid-operation.
 *
 * Usage: stress_herd [-p P] [-c C] [-k CAP] [-n MESSAGES_PER_SENDER] [--jitter=F]
 * Exit status 0 if both bounds hold and every message arrived once; else 1.
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zchan/block.h>
#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#if ZCHAN_TEST_HOOKS
#include "hooks.h"
#endif

typedef struct shared {
    zc_sender *tx;
    zc_receiver *rx;
    unsigned senders, receivers;
    uint64_t per_sender;
    atomic_ulong recv_wakes;     /* other-thread wakes of receive futures */
    atomic_ulong send_wakes;     /* other-thread wakes of send futures */
    atomic_uint pending_recvs;   /* receivers parked on a pending future now */
    atomic_ullong received;
    atomic_uchar *seen;          /* seen[v]: times message v arrived */
} shared;

/* One thread's waker: counts wakes from other threads, then unparks the owner. */
typedef struct task {
    zc_parker parker;
    pthread_t owner;
    atomic_ulong *count;
} task;

static void task_wake(void *ctx) {
    task *t = ctx;
    /* Relaxed: a statistic read after every thread is joined. */
    if (!pthread_equal(pthread_self(), t->owner))
        atomic_fetch_add_explicit(t->count, 1, memory_order_relaxed);
    zc_waker w = zc_parker_waker(&t->parker);
    w.wake(w.ctx);
}

static void task_init(task *t, atomic_ulong *count) {
    zc_parker_init(&t->parker);
    t->owner = pthread_self();
    t->count = count;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct sender_arg {
    shared *sh;
    zc_sender *tx;
    uint64_t first;
} sender_arg;

static void *sender_main(void *arg) {
    sender_arg *a = arg;
    shared *sh = a->sh;
    task t;
    task_init(&t, &sh->send_wakes);
    zc_waker w = {task_wake, &t};
    for (uint64_t i = 0; i < sh->per_sender; i++) {
        uint64_t until = now_ns() + 20000; /* wait up to 20 µs for every receiver */
        /* Relaxed: pacing only. */
        while (atomic_load_explicit(&sh->pending_recvs, memory_order_relaxed) < sh->receivers &&
               now_ns() < until)
            sched_yield();
        uint64_t v = a->first + i;
        zc_send f;
        zc_send_init(&f, a->tx, &v);
        zc_status s;
        while ((s = zc_send_poll(&f, &w)) == ZC_PENDING) zc_parker_park(&t.parker);
        if (s != ZC_OK) {
            fprintf(stderr, "stress_herd: send returned %s\n", zc_status_str(s));
            exit(1);
        }
    }
    zc_sender_drop(a->tx);
    zc_parker_destroy(&t.parker);
    return NULL;
}

static void *receiver_main(void *arg) {
    shared *sh = arg;
    task t;
    task_init(&t, &sh->recv_wakes);
    zc_waker w = {task_wake, &t};
    zc_recv f;
    zc_recv_init(&f, sh->rx);
    for (;;) {
        uint64_t v;
        zc_status s = zc_recv_poll(&f, &w, &v);
        if (s == ZC_PENDING) {
            /* Relaxed: pacing only. */
            atomic_fetch_add_explicit(&sh->pending_recvs, 1, memory_order_relaxed);
            zc_parker_park(&t.parker);
            atomic_fetch_sub_explicit(&sh->pending_recvs, 1, memory_order_relaxed);
            continue;
        }
        if (s == ZC_CLOSED) break;
        if (s != ZC_OK || v >= (uint64_t)sh->senders * sh->per_sender) {
            fprintf(stderr, "stress_herd: receive returned %s, value %llu\n",
                    zc_status_str(s), (unsigned long long)v);
            exit(1);
        }
        /* Relaxed: counts read after the joins. */
        atomic_fetch_add_explicit(&sh->seen[v], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&sh->received, 1, memory_order_relaxed);
    }
    zc_parker_destroy(&t.parker);
    return NULL;
}

#if ZCHAN_TEST_HOOKS
static double jitter_p;
static _Thread_local uint64_t jitter_rng;
static atomic_uint jitter_threads;

static void jitter_hook(zc__hook_point point, void *ctx) {
    (void)point, (void)ctx;
    if (jitter_rng == 0) /* Relaxed: a distinct seed per thread is all that is needed. */
        jitter_rng = 0x9E3779B97F4A7C15u * (1 + atomic_fetch_add_explicit(
                                                    &jitter_threads, 1, memory_order_relaxed));
    jitter_rng ^= jitter_rng << 13, jitter_rng ^= jitter_rng >> 7, jitter_rng ^= jitter_rng << 17;
    if ((double)(jitter_rng >> 11) / 9007199254740992.0 >= jitter_p) return;
    unsigned kind = (unsigned)(jitter_rng >> 3) % 10;
    if (kind < 6) {
        for (volatile unsigned i = (unsigned)(jitter_rng >> 20) % 256; i > 0; i--) {
        }
    } else if (kind < 9) {
        sched_yield();
    } else {
        struct timespec ts = {0, 2000};
        nanosleep(&ts, NULL);
    }
}
#endif

static unsigned long arg_num(const char *name, const char *v) {
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n == 0) {
        fprintf(stderr, "stress_herd: bad %s '%s'\n", name, v);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    unsigned p = 2, c = 3;
    size_t cap = 1;
    uint64_t n = 20000;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--jitter=", 9) == 0) {
#if ZCHAN_TEST_HOOKS
            jitter_p = atof(argv[i] + 9);
#endif
        } else if (i + 1 < argc && strcmp(argv[i], "-p") == 0) {
            p = (unsigned)arg_num("-p", argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "-c") == 0) {
            c = (unsigned)arg_num("-c", argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "-k") == 0) {
            cap = arg_num("-k", argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
            n = arg_num("-n", argv[++i]);
        } else {
            fprintf(stderr, "usage: stress_herd [-p P] [-c C] [-k CAP] [-n N] [--jitter=F]\n");
            return 2;
        }
    }
    shared sh = {.senders = p, .receivers = c, .per_sender = n};
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    if (zc_bounded(cap, &cfg, &sh.tx, &sh.rx) != ZC_OK) return 1;
    uint64_t total = (uint64_t)p * n;
    sh.seen = calloc(total, sizeof *sh.seen);
    if (!sh.seen) return 1;
#if ZCHAN_TEST_HOOKS
    if (jitter_p > 0) zc__test_set_hook(jitter_hook, NULL);
#endif
    pthread_t *threads = calloc(p + c, sizeof *threads);
    sender_arg *args = calloc(p, sizeof *args);
    if (!threads || !args) return 1;
    for (unsigned i = 0; i < c; i++)
        if (pthread_create(&threads[p + i], NULL, receiver_main, &sh) != 0) return 1;
    for (unsigned i = 0; i < p; i++) {
        args[i] = (sender_arg){&sh, zc_sender_clone(sh.tx), (uint64_t)i * n};
        if (pthread_create(&threads[i], NULL, sender_main, &args[i]) != 0) return 1;
    }
    zc_sender_drop(sh.tx); /* the last sender thread's drop closes the channel */
    for (unsigned i = 0; i < p + c; i++) pthread_join(threads[i], NULL);
#if ZCHAN_TEST_HOOKS
    zc__test_set_hook(NULL, NULL);
#endif
    int bad = 0;
    uint64_t received = atomic_load(&sh.received);
    for (uint64_t v = 0; v < total; v++)
        if (atomic_load(&sh.seen[v]) != 1) {
            fprintf(stderr, "stress_herd: message %llu arrived %u times\n",
                    (unsigned long long)v, (unsigned)atomic_load(&sh.seen[v]));
            bad = 1;
            break;
        }
    unsigned long rw = atomic_load(&sh.recv_wakes), sw = atomic_load(&sh.send_wakes);
    unsigned long long rbound = total + c, sbound = received + p;
    printf("stress_herd: p=%u c=%u cap=%zu messages=%llu: receive-future wakes %lu "
           "(bound %llu), send-future wakes %lu (bound %llu)\n",
           p, c, cap, (unsigned long long)total, rw, rbound, sw, sbound);
    if (rw > rbound) {
        fprintf(stderr, "stress_herd: more receive-future wakes than owed\n");
        bad = 1;
    }
    if (sw > sbound) {
        fprintf(stderr, "stress_herd: more send-future wakes than owed\n");
        bad = 1;
    }
    zc_receiver_drop(sh.rx);
    free(sh.seen);
    free(threads);
    free(args);
    return bad;
}

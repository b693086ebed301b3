/*
 * stress_mpmc: P producer threads and C consumer threads on one channel; checks that
 * every message is received exactly once, that each consumer sees each producer's
 * messages in the order they were sent, and that the counts add up.
 *
 * Each operation is one of three kinds, chosen by --mode (mixed: at random for every
 * operation):
 *   blocking  zc_send_blocking / zc_recv_blocking;
 *   futures   zc_send / zc_recv futures driven by a zc_parker; with probability
 *             --cancel a pending future is cancelled, either at once or after its wake
 *             (before it is polled again), and the operation starts over: a cancelled
 *             send still owns its message, a cancelled receive took nothing;
 *   try       zc_try_send / zc_try_recv, yielding the CPU between attempts;
 *   permit    (sends only; receives as mixed) the two-phase send: reserve a place through
 *             a zc_reserve future (random cancels as above) or zc_reserve_blocking, then
 *             with probability --cancel release it and start over, else commit into it.
 * Producers drop their senders when done, so the last one closes the channel; consumers
 * run until ZC_CLOSED, which must come only after every sender is gone and the channel
 * is drained.
 *
 * ZCHAN_STRESS_SCALE multiplies --messages (soak runs). A watchdog turns a hang into a
 * failure: no message sent or received for --stall seconds prints every thread's state
 * and aborts. Exit status: 0 all properties held, 1 one broke (the output says which),
 * 2 bad usage, SIGABRT a hang.
 */
#define _GNU_SOURCE /* getopt_long */

#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "stress_util.h"

typedef enum op_kind { OP_BLOCKING, OP_FUTURES, OP_TRY, OP_PERMIT, OP_MIXED } op_kind;
static const char *const kind_names[] = {"blocking", "futures", "try", "permit", "mixed"};

typedef struct options {
    uint32_t producers, consumers, messages;
    size_t cap; /* 0: unbounded */
    op_kind mode;
    double cancel;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

/* One producer or consumer thread, on cache lines of its own so that the counters the
 * watchdog reads do not make neighbouring threads share a line. */
typedef struct worker {
    _Alignas(64) run *run;
    unsigned id;
    bool producer;
    zc_sender *tx;
    zc_receiver *rx;
    zc_recv recv; /* consumers: the receive stream of the futures kind */
    zc_parker parker;
    uint64_t rng;
    /* relaxed: progress and state for the watchdog, which only prints them */
    _Atomic uint64_t done;       /* messages sent or received */
    _Atomic uint64_t cancels;    /* futures cancelled */
    _Atomic(const char *) doing; /* what the thread is in now */
    pthread_t thread;
} worker;

struct run {
    options opt;
    stress_ledger ledger;
    stress_gate gate;
    worker *workers; /* producers first, then consumers */
    zc_receiver *rx; /* the main thread's own receiver: info and the final drain */
    /* [S1] Each producer adds 1 (release) before it drops its sender; a consumer that
     * sees ZC_CLOSED reads it (acquire): anything below P means the channel reported
     * closed before the last sender was dropped. */
    atomic_uint senders_done;
};

static void set_doing(worker *w, const char *what) {
    atomic_store_explicit(&w->doing, what, memory_order_relaxed);
}

/* The kind of the next operation: a send may be any of the four, a receive any but
 * OP_PERMIT (permit mode receives as mixed). */
static op_kind pick(worker *w, bool send) {
    op_kind mode = w->run->opt.mode;
    if (mode == OP_MIXED || (mode == OP_PERMIT && !send))
        return (op_kind)(stress_rng_next(&w->rng) % (send ? 4 : 3));
    return mode;
}

static bool cancel_now(worker *w) {
    if (!stress_rng_chance(&w->rng, w->run->opt.cancel)) return false;
    atomic_fetch_add_explicit(&w->cancels, 1, memory_order_relaxed);
    return true;
}

/* A send future driven by the worker's parker, with random cancels (the message stays
 * ours: poll again, which starts the send over). */
static zc_status send_future(worker *w, const stress_msg *m) {
    zc_waker wk = zc_parker_waker(&w->parker);
    zc_send f;
    zc_send_init(&f, w->tx, m);
    for (;;) {
        set_doing(w, "zc_send_poll");
        zc_status st = zc_send_poll(&f, &wk);
        if (st != ZC_PENDING) return st;
        if (cancel_now(w)) {
            set_doing(w, "zc_send_cancel while registered");
            zc_send_cancel(&f);
            continue;
        }
        set_doing(w, "parked on a pending send");
        zc_parker_park(&w->parker);
        if (cancel_now(w)) {
            set_doing(w, "zc_send_cancel after its wake");
            zc_send_cancel(&f);
        }
    }
}

/* As send_future, for the consumer's receive stream (a cancelled receive took nothing). */
static zc_status recv_future(worker *w, stress_msg *out) {
    zc_waker wk = zc_parker_waker(&w->parker);
    for (;;) {
        set_doing(w, "zc_recv_poll");
        zc_status st = zc_recv_poll(&w->recv, &wk, out);
        if (st != ZC_PENDING) return st;
        if (cancel_now(w)) {
            set_doing(w, "zc_recv_cancel while registered");
            zc_recv_cancel(&w->recv);
            continue;
        }
        set_doing(w, "parked on a pending receive");
        zc_parker_park(&w->parker);
        if (cancel_now(w)) {
            set_doing(w, "zc_recv_cancel after its wake");
            zc_recv_cancel(&w->recv);
        }
    }
}

/* Reserve a place (a future with random cancels, or blocking), then release it and
 * start over with probability --cancel, else commit m into it. */
static zc_status send_permit(worker *w, const stress_msg *m) {
    zc_waker wk = zc_parker_waker(&w->parker);
    for (;;) {
        zc_permit p;
        zc_status st;
        if (stress_rng_next(&w->rng) % 2) {
            set_doing(w, "zc_reserve_blocking");
            st = zc_reserve_blocking(w->tx, &p);
        } else {
            zc_reserve f;
            zc_reserve_init(&f, w->tx, &p);
            for (;;) {
                set_doing(w, "zc_reserve_poll");
                if ((st = zc_reserve_poll(&f, &wk)) != ZC_PENDING) break;
                if (cancel_now(w)) {
                    set_doing(w, "zc_reserve_cancel while registered");
                    zc_reserve_cancel(&f);
                    continue;
                }
                set_doing(w, "parked on a pending reservation");
                zc_parker_park(&w->parker);
            }
        }
        if (st != ZC_OK) return st;
        if (cancel_now(w)) {
            set_doing(w, "zc_permit_release");
            if ((st = zc_permit_release(&p)) != ZC_OK) return st;
            continue;
        }
        set_doing(w, "zc_permit_commit");
        return zc_permit_commit(&p, m);
    }
}

static zc_status send_one(worker *w, const stress_msg *m) {
    zc_status st;
    switch (pick(w, true)) {
    case OP_PERMIT:
        return send_permit(w, m);
    case OP_BLOCKING:
        set_doing(w, "zc_send_blocking");
        return zc_send_blocking(w->tx, m);
    case OP_FUTURES:
        return send_future(w, m);
    default:
        set_doing(w, "zc_try_send loop");
        while ((st = zc_try_send(w->tx, m)) == ZC_FULL) sched_yield();
        return st;
    }
}

static zc_status recv_one(worker *w, stress_msg *out) {
    zc_status st;
    switch (pick(w, false)) {
    case OP_BLOCKING:
        set_doing(w, "zc_recv_blocking");
        return zc_recv_blocking(w->rx, out);
    case OP_FUTURES:
        return recv_future(w, out);
    default:
        set_doing(w, "zc_try_recv loop");
        while ((st = zc_try_recv(w->rx, out)) == ZC_EMPTY) sched_yield();
        return st;
    }
}

static void *producer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    stress_gate_wait(&r->gate);
    for (uint32_t seq = 0; seq < r->opt.messages; seq++) {
        stress_msg m = stress_msg_make(w->id, seq);
        zc_status st = send_one(w, &m);
        if (st != ZC_OK) {
            stress_ledger_fail(&r->ledger, "send: producer %u got %s for seq %" PRIu32,
                               w->id, zc_status_str(st), seq);
            break;
        }
        atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
    }
    set_doing(w, "zc_sender_drop");
    /* [S1] release: pairs with the acquire in consumer_main */
    atomic_fetch_add_explicit(&r->senders_done, 1, memory_order_release);
    zc_sender_drop(w->tx);
    set_doing(w, "done");
    return NULL;
}

static void *consumer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    uint32_t *next_min = stress_order_new(&r->ledger);
    stress_msg m;
    zc_status st;
    stress_gate_wait(&r->gate);
    while ((st = recv_one(w, &m)) == ZC_OK) {
        stress_ledger_take(&r->ledger, next_min, &m, "consumer", w->id);
        atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
    }
    if (st != ZC_CLOSED) {
        stress_ledger_fail(&r->ledger, "recv: consumer %u got %s", w->id,
                           zc_status_str(st));
    } else {
        /* [S1] acquire: pairs with the release in producer_main */
        unsigned gone = atomic_load_explicit(&r->senders_done, memory_order_acquire);
        if (gone != r->opt.producers)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got ZC_CLOSED with %u of %" PRIu32
                               " senders still alive",
                               w->id, r->opt.producers - gone, r->opt.producers);
        st = zc_try_recv(w->rx, &m);
        if (st != ZC_CLOSED)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got %s from zc_try_recv after ZC_CLOSED",
                               w->id, zc_status_str(st));
    }
    set_doing(w, "done");
    free(next_min);
    return NULL;
}

/* A worker thread: a producer or a consumer, as the worker says. */
static void *worker_main(void *arg) {
    worker *w = arg;
    return w->producer ? producer_main(w) : consumer_main(w);
}

static uint64_t progress(void *ctx) {
    run *r = ctx;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->opt.producers + r->opt.consumers; i++)
        sum += atomic_load_explicit(&r->workers[i].done, memory_order_relaxed);
    return sum;
}

static void dump(void *ctx) {
    run *r = ctx;
    const options *o = &r->opt;
    fprintf(stderr,
            "run: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32
            " cap=%zu mode=%s cancel=%g seed=%" PRIu64 "\n",
            o->producers, o->consumers, o->messages, o->cap, kind_names[o->mode], o->cancel,
            o->seed);
    stress_print_channel(r->rx);
    for (uint32_t i = 0; i < o->producers + o->consumers; i++) {
        worker *w = &r->workers[i];
        fprintf(stderr, "  %s %u: %" PRIu64 " done, %" PRIu64 " cancels, in %s\n",
                w->producer ? "producer" : "consumer", w->id,
                atomic_load_explicit(&w->done, memory_order_relaxed),
                atomic_load_explicit(&w->cancels, memory_order_relaxed),
                atomic_load_explicit(&w->doing, memory_order_relaxed));
    }
}

/* Print the options; exit with status (0 for --help, 2 for a bad command line). */
static void usage(const char *argv0, int status) {
    fprintf(status ? stderr : stdout,
            "usage: %s [options]   (-h, --help: this text)\n"
            "  -p, --producers N   producer threads (default 4)\n"
            "  -c, --consumers N   consumer threads (default 4)\n"
            "  -n, --messages N    messages per producer (default 10000; times\n"
            "                      ZCHAN_STRESS_SCALE)\n"
            "  -k, --cap N         capacity; 0 = unbounded (default 16)\n"
            "  -m, --mode M        blocking | futures | try | permit | mixed (default mixed)\n"
            "  -x, --cancel P      probability in [0, 1) of cancelling a pending future\n"
            "                      (default 0.1)\n"
            "  -s, --seed N        seed of the random choices (default 1)\n"
            "  -w, --stall S       seconds without progress that count as a hang\n"
            "                      (default 20)\n",
            argv0);
    exit(status);
}

static options parse(int argc, char **argv) {
    options o = {.producers = 4,
                 .consumers = 4,
                 .messages = 10000,
                 .cap = 16,
                 .mode = OP_MIXED,
                 .cancel = 0.1,
                 .seed = 1,
                 .stall_s = 20};
    static const struct option longs[] = {{"producers", required_argument, NULL, 'p'},
                                          {"consumers", required_argument, NULL, 'c'},
                                          {"messages", required_argument, NULL, 'n'},
                                          {"cap", required_argument, NULL, 'k'},
                                          {"mode", required_argument, NULL, 'm'},
                                          {"cancel", required_argument, NULL, 'x'},
                                          {"seed", required_argument, NULL, 's'},
                                          {"stall", required_argument, NULL, 'w'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "p:c:n:k:m:x:s:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p':
            o.producers = (uint32_t)stress_arg_num("--producers", optarg, 1, 4096);
            break;
        case 'c':
            o.consumers = (uint32_t)stress_arg_num("--consumers", optarg, 1, 4096);
            break;
        case 'n':
            o.messages = (uint32_t)stress_arg_num("--messages", optarg, 0, UINT32_MAX);
            break;
        case 'k':
            o.cap = (size_t)stress_arg_num("--cap", optarg, 0, SIZE_MAX);
            break;
        case 'w':
            o.stall_s = (unsigned)stress_arg_num("--stall", optarg, 1, 86400);
            break;
        case 's':
            o.seed = stress_arg_num("--seed", optarg, 0, UINT64_MAX);
            break;
        case 'x':
            o.cancel = stress_arg_prob("--cancel", optarg);
            break;
        case 'm': {
            int k = 0;
            while (k <= OP_MIXED && strcmp(optarg, kind_names[k]) != 0) k++;
            if (k > OP_MIXED) usage(argv[0], 2);
            o.mode = (op_kind)k;
            break;
        }
        case 'h':
            usage(argv[0], 0);
            break;
        default:
            usage(argv[0], 2);
        }
    }
    if (optind != argc) usage(argv[0], 2);
    o.messages = stress_scaled(o.messages);
    return o;
}

int main(int argc, char **argv) {
    static run r; /* static: the watchdog may read it until it is stopped */
    r.opt = parse(argc, argv);
    const options *o = &r.opt;
    uint32_t threads = o->producers + o->consumers;
    printf("stress_mpmc: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32
           " cap=%zu mode=%s cancel=%g seed=%" PRIu64 "\n",
           o->producers, o->consumers, o->messages, o->cap, kind_names[o->mode], o->cancel,
           o->seed);
    fflush(stdout);

    zc_config cfg = {.elem_size = sizeof(stress_msg)};
    zc_sender *tx;
    zc_status st =
        o->cap ? zc_bounded(o->cap, &cfg, &tx, &r.rx) : zc_unbounded(&cfg, &tx, &r.rx);
    if (st != ZC_OK) {
        fprintf(stderr, "FAIL: creating the channel gave %s\n", zc_status_str(st));
        return 1;
    }
    stress_ledger_init(&r.ledger, o->producers, o->messages);
    stress_gate_init(&r.gate);
    atomic_init(&r.senders_done, 0);
    /* aligned_alloc: each worker starts a cache line of its own (see worker) */
    r.workers = aligned_alloc(_Alignof(worker), threads * sizeof *r.workers);
    if (r.workers == NULL) return 2;
    memset(r.workers, 0, threads * sizeof *r.workers);
    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        w->run = &r;
        w->producer = i < o->producers;
        w->id = w->producer ? i : i - o->producers;
        w->rng = stress_rng_seed(o->seed, i);
        atomic_init(&w->done, 0);
        atomic_init(&w->cancels, 0);
        atomic_init(&w->doing, "waiting at the start gate");
        zc_parker_init(&w->parker);
        if (w->producer) {
            w->tx = zc_sender_clone(tx);
        } else {
            w->rx = zc_receiver_clone(r.rx);
            zc_recv_init(&w->recv, w->rx);
        }
    }
    zc_sender_drop(tx); /* from here the producers hold the only senders */

    stress_watchdog wd = {
        .progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    stress_crew crew = {r.workers, threads, sizeof *r.workers, offsetof(worker, thread),
                        worker_main, NULL, NULL};
    double elapsed = stress_crew_run(&crew, &r.gate, &wd);
    uint64_t received = 0, cancels = 0;
    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        if (!w->producer) received += atomic_load_explicit(&w->done, memory_order_relaxed);
        cancels += atomic_load_explicit(&w->cancels, memory_order_relaxed);
    }

    stress_check_drained(&r.ledger, r.rx);
    bool ok = stress_ledger_verdict(&r.ledger, received);

    for (uint32_t i = 0; i < threads; i++) {
        zc_receiver_drop(r.workers[i].rx); /* NULL for producers: a no-op */
        zc_parker_destroy(&r.workers[i].parker);
    }
    zc_receiver_drop(r.rx);
    stress_ledger_free(&r.ledger);
    stress_gate_destroy(&r.gate);
    free(r.workers);
    printf("%s: %" PRIu64 " messages in %.3f s, %" PRIu64 " cancels\n",
           ok ? "ok" : "FAILED", received, elapsed, cancels);
    return ok ? 0 : 1;
}

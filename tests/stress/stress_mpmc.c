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
 * With --rendezvous the channel is a rendezvous one (zc_rendezvous; --cap is ignored):
 * every send is a hand-off, permit mode is refused, and a try that finds no partner
 * waits once with zc_send_timeout / zc_recv_timeout before it tries again (two tries
 * never meet each other: a try meets only a waiting partner), so the timed-out and
 * completed-before-cancel outcomes are exercised too.
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
    bool rendezvous;
    op_kind mode;
    double cancel;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

/* One producer or consumer thread, on cache lines of its own so that the counters the
 * watchdog reads do not make neighbouring threads share a line. */
typedef struct worker {
    _Alignas(64) stress_worker base;
    run *run;
    bool producer;
    zc_sender *tx;
    zc_receiver *rx;
    zc_recv recv; /* consumers: the receive stream of the futures kind */
} worker;

struct run {
    options opt;
    stress_ledger ledger;
    stress_gate gate;
    worker *workers; /* producers first, then consumers */
    stress_crew crew; /* the workers, for the run and the watchdog */
    zc_receiver *rx; /* the main thread's own receiver: info and the final drain */
    /* [S1] Each producer adds 1 (release) before it drops its sender; a consumer that
     * sees ZC_CLOSED reads it (acquire): anything below P means the channel reported
     * closed before the last sender was dropped. */
    atomic_uint senders_done;
};

/* The kind of the next operation: a send may be any of the four, a receive any but
 * OP_PERMIT (permit mode receives as mixed). */
static op_kind pick(worker *w, bool send) {
    op_kind mode = w->run->opt.mode;
    if (mode == OP_MIXED || (mode == OP_PERMIT && !send))
        return (op_kind)(stress_rng_next(&w->base.rng) %
                         (send && !w->run->opt.rendezvous ? 4 : 3));
    return mode;
}

static zc_status send_poll(void *f, const zc_waker *wk, void *arg) {
    (void)arg;
    return zc_send_poll(f, wk);
}
static void send_cancel(void *f) { zc_send_cancel(f); }
static const stress_future_kind send_kind = {
    send_poll, send_cancel, "zc_send_poll", "zc_send_cancel while registered",
    "parked on a pending send", "zc_send_cancel after its wake"};

static zc_status recv_poll(void *f, const zc_waker *wk, void *out) {
    return zc_recv_poll(f, wk, out);
}
static void recv_cancel(void *f) { zc_recv_cancel(f); }
static const stress_future_kind recv_kind = {
    recv_poll, recv_cancel, "zc_recv_poll", "zc_recv_cancel while registered",
    "parked on a pending receive", "zc_recv_cancel after its wake"};

/* A send future driven by the worker's parker, with random cancels (the message stays
 * ours: polling again starts the send over). */
static zc_status send_future(worker *w, const stress_msg *m) {
    zc_send f;
    zc_send_init(&f, w->tx, m);
    return stress_drive(&w->base, w->run->opt.cancel, &send_kind, &f, NULL);
}

/* As send_future, for the consumer's receive stream (a cancelled receive took nothing). */
static zc_status recv_future(worker *w, stress_msg *out) {
    return stress_drive(&w->base, w->run->opt.cancel, &recv_kind, &w->recv, out);
}

/* Reserve a place (a future with random cancels, or blocking), then release it and
 * start over with probability --cancel, else commit m into it. */
static zc_status send_permit(worker *w, const stress_msg *m) {
    zc_waker wk = zc_parker_waker(&w->base.parker);
    for (;;) {
        zc_permit p;
        zc_status st;
        if (stress_rng_next(&w->base.rng) % 2) {
            stress_set_doing(&w->base, "zc_reserve_blocking");
            st = zc_reserve_blocking(w->tx, &p);
        } else {
            zc_reserve f;
            zc_reserve_init(&f, w->tx, &p);
            for (;;) {
                stress_set_doing(&w->base, "zc_reserve_poll");
                if ((st = zc_reserve_poll(&f, &wk)) != ZC_PENDING) break;
                if (stress_cancel_now(&w->base, w->run->opt.cancel)) {
                    stress_set_doing(&w->base, "zc_reserve_cancel while registered");
                    zc_reserve_cancel(&f);
                    continue;
                }
                stress_set_doing(&w->base, "parked on a pending reservation");
                zc_parker_park(&w->base.parker);
            }
        }
        if (st != ZC_OK) return st;
        if (stress_cancel_now(&w->base, w->run->opt.cancel)) {
            stress_set_doing(&w->base, "zc_permit_release");
            if ((st = zc_permit_release(&p)) != ZC_OK) return st;
            continue;
        }
        stress_set_doing(&w->base, "zc_permit_commit");
        return zc_permit_commit(&p, m);
    }
}

static zc_status send_one(worker *w, const stress_msg *m) {
    zc_status st;
    switch (pick(w, true)) {
    case OP_PERMIT:
        return send_permit(w, m);
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_send_blocking");
        return zc_send_blocking(w->tx, m);
    case OP_FUTURES:
        return send_future(w, m);
    default:
        stress_set_doing(&w->base, "zc_try_send loop");
        while ((st = zc_try_send(w->tx, m)) == ZC_FULL) {
            if (!w->run->opt.rendezvous) {
                sched_yield();
                continue;
            }
            stress_set_doing(&w->base, "zc_send_timeout after a try");
            if ((st = zc_send_timeout(w->tx, m, 100000)) != ZC_TIMEDOUT) return st;
        }
        return st;
    }
}

static zc_status recv_one(worker *w, stress_msg *out) {
    zc_status st;
    switch (pick(w, false)) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_recv_blocking");
        return zc_recv_blocking(w->rx, out);
    case OP_FUTURES:
        return recv_future(w, out);
    default:
        stress_set_doing(&w->base, "zc_try_recv loop");
        while ((st = zc_try_recv(w->rx, out)) == ZC_EMPTY) {
            if (!w->run->opt.rendezvous) {
                sched_yield();
                continue;
            }
            stress_set_doing(&w->base, "zc_recv_timeout after a try");
            if ((st = zc_recv_timeout(w->rx, out, 100000)) != ZC_TIMEDOUT) return st;
        }
        return st;
    }
}

static void *producer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    stress_gate_wait(&r->gate);
    for (uint32_t seq = 0; seq < r->opt.messages; seq++) {
        stress_msg m = stress_msg_make(w->base.id, seq);
        zc_status st = send_one(w, &m);
        if (st != ZC_OK) {
            stress_ledger_fail(&r->ledger, "send: producer %u got %s for seq %" PRIu32,
                               w->base.id, zc_status_str(st), seq);
            break;
        }
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
    }
    stress_set_doing(&w->base, "zc_sender_drop");
    /* [S1] release: pairs with the acquire in consumer_main */
    atomic_fetch_add_explicit(&r->senders_done, 1, memory_order_release);
    zc_sender_drop(w->tx);
    stress_set_doing(&w->base, "done");
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
        stress_ledger_take(&r->ledger, next_min, &m, "consumer", w->base.id);
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
    }
    if (st != ZC_CLOSED) {
        stress_ledger_fail(&r->ledger, "recv: consumer %u got %s", w->base.id,
                           zc_status_str(st));
    } else {
        /* [S1] acquire: pairs with the release in producer_main */
        unsigned gone = atomic_load_explicit(&r->senders_done, memory_order_acquire);
        if (gone != r->opt.producers)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got ZC_CLOSED with %u of %" PRIu32
                               " senders still alive",
                               w->base.id, r->opt.producers - gone, r->opt.producers);
        st = zc_try_recv(w->rx, &m);
        if (st != ZC_CLOSED)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got %s from zc_try_recv after ZC_CLOSED",
                               w->base.id, zc_status_str(st));
    }
    stress_set_doing(&w->base, "done");
    free(next_min);
    return NULL;
}

/* A worker thread: a producer or a consumer, as the worker says. */
static void *worker_main(void *arg) {
    worker *w = arg;
    return w->producer ? producer_main(w) : consumer_main(w);
}

static uint64_t progress(void *ctx) { return stress_crew_done(&((run *)ctx)->crew, 0); }

static void dump(void *ctx) {
    run *r = ctx;
    const options *o = &r->opt;
    fprintf(stderr,
            "run: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32
            " cap=%zu mode=%s cancel=%g seed=%" PRIu64 "\n",
            o->producers, o->consumers, o->messages, o->cap, kind_names[o->mode], o->cancel,
            o->seed);
    stress_print_channel(r->rx);
    stress_crew_print(&r->crew);
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
            "  -r, --rendezvous    a rendezvous channel (no capacity; not with permit)\n"
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
                                          {"mode", required_argument, NULL, 'm'},
                                          {"rendezvous", no_argument, NULL, 'r'},
                                          STRESS_COMMON_LONGS,
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    stress_common_args common = {&o.messages, &o.cap, 0, SIZE_MAX, &o.cancel, &o.seed,
                                 &o.stall_s};
    int c;
    while ((c = getopt_long(argc, argv, "p:c:n:k:m:x:s:w:rh", longs, NULL)) != -1) {
        switch (c) {
        case 'p':
            o.producers = (uint32_t)stress_arg_num("--producers", optarg, 1, 4096);
            break;
        case 'c':
            o.consumers = (uint32_t)stress_arg_num("--consumers", optarg, 1, 4096);
            break;
        case 'm': {
            int k = 0;
            while (k <= OP_MIXED && strcmp(optarg, kind_names[k]) != 0) k++;
            if (k > OP_MIXED) usage(argv[0], 2);
            o.mode = (op_kind)k;
            break;
        }
        case 'r':
            o.rendezvous = true;
            break;
        case 'h':
            usage(argv[0], 0);
            break;
        default:
            if (!stress_common_arg(&common, c, optarg)) usage(argv[0], 2);
        }
    }
    if (optind != argc || (o.rendezvous && o.mode == OP_PERMIT)) usage(argv[0], 2);
    o.messages = stress_scaled(o.messages);
    return o;
}

int main(int argc, char **argv) {
    static run r; /* static: the watchdog may read it until it is stopped */
    r.opt = parse(argc, argv);
    const options *o = &r.opt;
    uint32_t threads = o->producers + o->consumers;
    printf("stress_mpmc: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32
           " cap=%zu%s mode=%s cancel=%g seed=%" PRIu64 "\n",
           o->producers, o->consumers, o->messages, o->cap,
           o->rendezvous ? " (rendezvous)" : "", kind_names[o->mode], o->cancel, o->seed);
    fflush(stdout);

    zc_sender *tx;
    if (o->rendezvous) {
        zc_config cfg = {.elem_size = sizeof(stress_msg)};
        if (zc_rendezvous(&cfg, &tx, &r.rx) != ZC_OK) {
            fprintf(stderr, "FAIL: creating the rendezvous channel\n");
            return 1;
        }
    } else {
        stress_channel_new(o->cap, &tx, &r.rx);
    }
    stress_ledger_init(&r.ledger, o->producers, o->messages);
    stress_gate_init(&r.gate);
    atomic_init(&r.senders_done, 0);
    /* each worker starts a cache line of its own (see worker) */
    r.workers = stress_workers_new(threads, sizeof *r.workers, _Alignof(worker));
    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        w->run = &r;
        w->producer = i < o->producers;
        stress_worker_init(&w->base, w->producer ? "producer" : "consumer",
                           w->producer ? i : i - o->producers, o->seed, i);
        if (w->producer) {
            w->tx = zc_sender_clone(tx);
        } else {
            w->rx = zc_receiver_clone(r.rx);
            zc_recv_init(&w->recv, w->rx);
        }
    }
    zc_sender_drop(tx); /* from here the producers hold the only senders */
    r.crew = (stress_crew){r.workers, threads, sizeof *r.workers,
                           offsetof(worker, base), worker_main, NULL, NULL};

    stress_watchdog wd = {
        .progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    double elapsed = stress_crew_run(&r.crew, &r.gate, &wd);
    uint64_t received = stress_crew_done(&r.crew, o->producers); /* the consumers' */
    uint64_t cancels = stress_crew_cancels(&r.crew);

    stress_check_drained(&r.ledger, r.rx);
    bool ok = stress_ledger_verdict(&r.ledger, received);

    for (uint32_t i = 0; i < threads; i++) {
        zc_receiver_drop(r.workers[i].rx); /* NULL for producers: a no-op */
        stress_worker_destroy(&r.workers[i].base);
    }
    zc_receiver_drop(r.rx);
    stress_ledger_free(&r.ledger);
    stress_gate_destroy(&r.gate);
    free(r.workers);
    printf("%s: %" PRIu64 " messages in %.3f s, %" PRIu64 " cancels\n",
           ok ? "ok" : "FAILED", received, elapsed, cancels);
    return ok ? 0 : 1;
}

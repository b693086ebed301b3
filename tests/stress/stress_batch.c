/*
 * stress_batch: P producer threads send in batches and C consumer threads receive in
 * batches on one channel (zchan/batch.h); checks that every message is received exactly
 * once, that each consumer sees each producer's messages in order, and that the counts
 * add up.
 *
 * Each producer sends its messages in batches of a random size 1..--batch; a batch is
 * all-or-nothing with probability --all (when it fits the capacity). Each consumer takes
 * batches of a random size 1..--batch. How, chosen by --mode (mixed: at random for
 * every batch):
 *   blocking  zc_send_many_blocking / zc_recv_many_blocking;
 *   futures   zc_send_many / zc_recv_many futures driven by a zc_parker; with
 *             probability --cancel a pending future is cancelled, at once or after its
 *             wake, and polled again (a cancelled batch send keeps what it sent and
 *             continues with the rest; a cancelled receive took nothing);
 *   try       zc_try_send_many / zc_try_recv_many, yielding between attempts;
 *   single    mixed only: one message at a time with zc_send_blocking /
 *             zc_recv_blocking, so single and batch operations interleave.
 * Producers drop their senders when done; consumers run until ZC_CLOSED, which must
 * come only after every sender is gone and the channel is drained.
 *
 * ZCHAN_STRESS_SCALE multiplies --messages. A watchdog turns a hang into a failure (no
 * progress for --stall seconds: it prints every thread's state and aborts). Exit
 * status: 0 all properties held, 1 one broke (the output says which), 2 bad usage.
 */
#define _GNU_SOURCE /* getopt_long */

#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/mpmc.h>

#include "stress_util.h"

typedef enum op_kind { OP_BLOCKING, OP_FUTURES, OP_TRY, OP_SINGLE, OP_MIXED } op_kind;
static const char *const kind_names[] = {"blocking", "futures", "try", "single", "mixed"};

enum { MAX_BATCH = 1024 };

typedef struct options {
    uint32_t producers, consumers, messages, batch;
    size_t cap; /* 0: unbounded */
    op_kind mode;
    double cancel, all;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

/* One thread, on cache lines of its own (the watchdog reads its counters). */
typedef struct worker {
    _Alignas(64) stress_worker base;
    run *run;
    bool producer;
    zc_sender *tx;
    zc_receiver *rx;
    zc_recv_many recv; /* consumers: the batch receive stream of the futures kind */
    stress_msg buf[MAX_BATCH];
} worker;

struct run {
    options opt;
    stress_ledger ledger;
    stress_gate gate;
    worker *workers; /* producers first, then consumers */
    stress_crew crew; /* the workers, for the run and the watchdog */
    zc_receiver *rx; /* the main thread's own receiver: info and the final drain */
    /* [S1] Each producer adds 1 (release) before it drops its sender; a consumer that
     * sees ZC_CLOSED reads it (acquire): below P means closed too early. */
    atomic_uint senders_done;
};

static op_kind pick(worker *w) {
    op_kind mode = w->run->opt.mode;
    return mode == OP_MIXED ? (op_kind)(stress_rng_next(&w->base.rng) % 4) : mode;
}

static zc_status send_many_poll(void *f, const zc_waker *wk, void *arg) {
    (void)arg;
    return zc_send_many_poll(f, wk);
}
static void send_many_cancel(void *f) { zc_send_many_cancel(f); }
static const stress_future_kind send_many_kind = {
    send_many_poll, send_many_cancel, "zc_send_many_poll",
    "zc_send_many_cancel while registered", "parked on a pending send_many",
    "zc_send_many_cancel after its wake"};

/* Where a batch receive future puts what it takes. */
typedef struct recv_into {
    stress_msg *buf;
    size_t max;
    size_t *got;
} recv_into;

static zc_status recv_many_poll(void *f, const zc_waker *wk, void *arg) {
    recv_into *to = arg;
    return zc_recv_many_poll(f, wk, to->buf, to->max, to->got);
}
static void recv_many_cancel(void *f) { zc_recv_many_cancel(f); }
static const stress_future_kind recv_many_kind = {
    recv_many_poll, recv_many_cancel, "zc_recv_many_poll",
    "zc_recv_many_cancel while registered", "parked on a pending recv_many",
    "zc_recv_many_cancel after its wake"};

/* Send buf[0..n) with a send_many future and random cancels; *sent counts what went. */
static zc_status send_future(worker *w, size_t n, unsigned flags, size_t *sent) {
    zc_send_many f;
    zc_send_many_init(&f, w->tx, w->buf, n, flags);
    zc_status st = stress_drive(&w->base, w->run->opt.cancel, &send_many_kind, &f, NULL);
    *sent = zc_send_many_sent(&f);
    return st;
}

/* As send_future, for the consumer's batch receive stream. */
static zc_status recv_future(worker *w, size_t max, size_t *got) {
    recv_into to = {w->buf, max, got};
    return stress_drive(&w->base, w->run->opt.cancel, &recv_many_kind, &w->recv, &to);
}

/* Send buf[0..n) completely (or until the channel fails); *sent counts what went. */
static zc_status send_batch(worker *w, size_t n, unsigned flags, size_t *sent) {
    zc_status st;
    size_t k;
    *sent = 0;
    switch (pick(w)) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_send_many_blocking");
        return zc_send_many_blocking(w->tx, w->buf, n, sent, flags);
    case OP_FUTURES:
        return send_future(w, n, flags, sent);
    case OP_TRY:
        stress_set_doing(&w->base, "zc_try_send_many loop");
        do {
            st = zc_try_send_many(w->tx, w->buf + *sent, n - *sent, &k, flags);
            *sent += k;
            if (st == ZC_FULL) sched_yield();
        } while (st == ZC_FULL);
        return st;
    default:
        stress_set_doing(&w->base, "zc_send_blocking, one by one");
        st = ZC_OK;
        while (*sent < n && (st = zc_send_blocking(w->tx, &w->buf[*sent])) == ZC_OK) (*sent)++;
        return st;
    }
}

/* Receive a batch of 1..max into buf: ZC_OK with *got, or ZC_CLOSED. */
static zc_status recv_batch(worker *w, size_t max, size_t *got) {
    zc_status st;
    switch (pick(w)) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_recv_many_blocking");
        return zc_recv_many_blocking(w->rx, w->buf, max, got);
    case OP_FUTURES:
        return recv_future(w, max, got);
    case OP_TRY:
        stress_set_doing(&w->base, "zc_try_recv_many loop");
        while ((st = zc_try_recv_many(w->rx, w->buf, max, got)) == ZC_EMPTY) sched_yield();
        return st;
    default:
        stress_set_doing(&w->base, "zc_recv_blocking");
        *got = 1;
        return zc_recv_blocking(w->rx, w->buf);
    }
}

static void *producer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    const options *o = &r->opt;
    stress_gate_wait(&r->gate);
    for (uint32_t seq = 0; seq < o->messages;) {
        size_t n = 1 + stress_rng_next(&w->base.rng) % o->batch, sent;
        if (n > o->messages - seq) n = o->messages - seq;
        bool fits = o->cap == 0 || n <= o->cap;
        unsigned flags = fits && stress_rng_chance(&w->base.rng, o->all) ? ZC_ALL_OR_NOTHING : 0;
        for (size_t i = 0; i < n; i++) w->buf[i] = stress_msg_make(w->base.id, seq + (uint32_t)i);
        zc_status st = send_batch(w, n, flags, &sent);
        if (st != ZC_OK || sent != n) {
            stress_ledger_fail(&r->ledger,
                               "send: producer %u got %s with %zu of %zu sent at seq %" PRIu32,
                               w->base.id, zc_status_str(st), sent, n, seq);
            break;
        }
        seq += (uint32_t)n;
        atomic_fetch_add_explicit(&w->base.done, n, memory_order_relaxed);
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
    size_t got = 0;
    zc_status st;
    stress_gate_wait(&r->gate);
    while ((st = recv_batch(w, 1 + stress_rng_next(&w->base.rng) % r->opt.batch, &got)) == ZC_OK) {
        if (got == 0) stress_ledger_fail(&r->ledger, "recv: consumer %u got ZC_OK with 0", w->base.id);
        for (size_t i = 0; i < got; i++)
            stress_ledger_take(&r->ledger, next_min, &w->buf[i], "consumer", w->base.id);
        atomic_fetch_add_explicit(&w->base.done, got, memory_order_relaxed);
    }
    if (st != ZC_CLOSED) {
        stress_ledger_fail(&r->ledger, "recv: consumer %u got %s", w->base.id, zc_status_str(st));
    } else {
        /* [S1] acquire: pairs with the release in producer_main */
        unsigned gone = atomic_load_explicit(&r->senders_done, memory_order_acquire);
        if (gone != r->opt.producers)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got ZC_CLOSED with %u of %" PRIu32
                               " senders still alive",
                               w->base.id, r->opt.producers - gone, r->opt.producers);
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

static void print_options(FILE *to, const options *o) {
    fprintf(to,
            "P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32 " batch=%" PRIu32
            " cap=%zu mode=%s all=%g cancel=%g seed=%" PRIu64 "\n",
            o->producers, o->consumers, o->messages, o->batch, o->cap, kind_names[o->mode],
            o->all, o->cancel, o->seed);
}

static void dump(void *ctx) {
    run *r = ctx;
    fprintf(stderr, "run: ");
    print_options(stderr, &r->opt);
    stress_print_channel(r->rx);
    stress_crew_print(&r->crew);
}

static void usage(const char *argv0, int status) {
    fprintf(status ? stderr : stdout,
            "usage: %s [options]   (-h, --help: this text)\n"
            "  -p, --producers N   producer threads (default 4)\n"
            "  -c, --consumers N   consumer threads (default 4)\n"
            "  -n, --messages N    messages per producer (default 10000; times\n"
            "                      ZCHAN_STRESS_SCALE)\n"
            "  -b, --batch N       largest batch, 1..%d (default 8)\n"
            "  -k, --cap N         capacity; 0 = unbounded (default 16)\n"
            "  -m, --mode M        blocking | futures | try | mixed (default mixed)\n"
            "  -a, --all P         probability of an all-or-nothing send (default 0.5)\n"
            "  -x, --cancel P      probability in [0, 1) of cancelling a pending future\n"
            "                      (default 0.1)\n"
            "  -s, --seed N        seed of the random choices (default 1)\n"
            "  -w, --stall S       seconds without progress that count as a hang\n"
            "                      (default 20)\n",
            argv0, MAX_BATCH);
    exit(status);
}

static options parse(int argc, char **argv) {
    options o = {.producers = 4, .consumers = 4, .messages = 10000, .batch = 8, .cap = 16,
                 .mode = OP_MIXED, .cancel = 0.1, .all = 0.5, .seed = 1, .stall_s = 20};
    static const struct option longs[] = {{"producers", required_argument, NULL, 'p'},
                                          {"consumers", required_argument, NULL, 'c'},
                                          {"batch", required_argument, NULL, 'b'},
                                          {"mode", required_argument, NULL, 'm'},
                                          {"all", required_argument, NULL, 'a'},
                                          STRESS_COMMON_LONGS,
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    stress_common_args common = {&o.messages, &o.cap, 0, SIZE_MAX, &o.cancel, &o.seed,
                                 &o.stall_s};
    int c;
    while ((c = getopt_long(argc, argv, "p:c:n:b:k:m:a:x:s:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p': o.producers = (uint32_t)stress_arg_num("--producers", optarg, 1, 4096); break;
        case 'c': o.consumers = (uint32_t)stress_arg_num("--consumers", optarg, 1, 4096); break;
        case 'b': o.batch = (uint32_t)stress_arg_num("--batch", optarg, 1, MAX_BATCH); break;
        case 'a': o.all = stress_arg_prob("--all", optarg); break;
        case 'm': {
            int k = 0;
            while (k <= OP_MIXED && (k == OP_SINGLE || strcmp(optarg, kind_names[k]) != 0)) k++;
            if (k > OP_MIXED) usage(argv[0], 2);
            o.mode = (op_kind)k;
            break;
        }
        case 'h': usage(argv[0], 0); break;
        default:
            if (!stress_common_arg(&common, c, optarg)) usage(argv[0], 2);
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
    printf("stress_batch: ");
    print_options(stdout, o);
    fflush(stdout);

    zc_sender *tx;
    stress_channel_new(o->cap, &tx, &r.rx);
    stress_ledger_init(&r.ledger, o->producers, o->messages);
    stress_gate_init(&r.gate);
    atomic_init(&r.senders_done, 0);
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
            zc_recv_many_init(&w->recv, w->rx);
        }
    }
    zc_sender_drop(tx); /* from here the producers hold the only senders */

    stress_watchdog wd = {.progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    r.crew = (stress_crew){r.workers, threads, sizeof *r.workers,
                           offsetof(worker, base), worker_main, NULL, NULL};
    double elapsed = stress_crew_run(&r.crew, &r.gate, &wd);
    uint64_t received = stress_crew_done(&r.crew, o->producers); /* the consumers' */
    uint64_t cancels = stress_crew_cancels(&r.crew);
    stress_check_drained(&r.ledger, r.rx);
    bool ok = stress_ledger_verdict(&r.ledger, received);
    printf("stress_batch: %s, %" PRIu64 " messages received, %" PRIu64 " cancels, %.2f s\n",
           ok ? "ok" : "FAILED", received, cancels, elapsed);
    for (uint32_t i = 0; i < threads; i++) {
        stress_worker_destroy(&r.workers[i].base);
        if (!r.workers[i].producer) zc_receiver_drop(r.workers[i].rx);
    }
    zc_receiver_drop(r.rx);
    stress_ledger_free(&r.ledger);
    stress_gate_destroy(&r.gate);
    free(r.workers);
    return ok ? 0 : 1;
}

/*
 * stress_select: P producer threads, each feeding its own bounded channel, and C
 * consumer threads that each select over all P channels; checks that every message is
 * received exactly once (never by two selects, never lost by a select that chose
 * another case or was cancelled), that each consumer sees each producer's messages in
 * order, and that a select reports a channel closed only after its senders are gone and
 * it is drained.
 *
 * Each consumer keeps one array of receive cases (one per channel); a case whose channel
 * reported ZC_CLOSED is disabled, and the consumer stops when the select reports
 * ZC_CLOSED with index P (every case disabled). Each selection is one of, by --mode
 * (mixed: at random each time, also the ZC_SELECT_ORDERED flag):
 *   blocking  zc_select_blocking;
 *   futures   a zc_select polled with a zc_parker waker; with probability --cancel a
 *             pending select is cancelled, at once or after its wake, and polled again;
 *   timeout   zc_select_timeout with a random timeout of 0 to 20 µs, retried when it
 *             times out (timeout 0 is a non-blocking select racing the other consumers).
 * With --send-select each producer instead sends every message through a select over
 * two send cases, its own channel and the next one: then a message may go to either,
 * so the order check is off (a consumer may take a later message from one channel
 * before an earlier one from the other), and exactly-once is checked as before.
 *
 * ZCHAN_STRESS_SCALE multiplies --messages. A watchdog turns a hang (for instance a lost
 * wake-up) into a failure that prints every thread's state. Exit status: 0 all held,
 * 1 a property broke (the output says which), 2 bad usage, SIGABRT a hang.
 */
#define _GNU_SOURCE /* getopt_long */

#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>
#include <zchan/select.h>

#include "stress_util.h"

typedef enum op_kind { OP_BLOCKING, OP_FUTURES, OP_TIMEOUT, OP_MIXED } op_kind;
static const char *const kind_names[] = {"blocking", "futures", "timeout", "mixed"};

typedef struct options {
    uint32_t producers, consumers, messages;
    size_t cap;
    op_kind mode;
    double cancel;
    bool send_select;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

/* One thread, on cache lines of its own (the watchdog reads its counters). */
typedef struct worker {
    _Alignas(64) stress_worker base;
    run *run;
    bool producer;
    zc_sender *tx[2];          /* producers: own channel, and (send-select) the next */
    zc_receiver **rx;          /* consumers: one receiver per channel */
    zc_select_case *cases;     /* consumers: one receive case per channel */
    stress_msg *out;           /* consumers: one out buffer per case */
    zc_select sel;             /* consumers: the futures kind's select */
} worker;

struct run {
    options opt;
    stress_ledger ledger;
    stress_gate gate;
    worker *workers;     /* producers first, then consumers */
    stress_crew crew;    /* the workers, for the run and the watchdog */
    zc_receiver **rx;    /* the main thread's receiver of each channel */
    /* [S1] Producers add 1 (release) per sender of a channel before dropping it; a
     * consumer told that channel i is closed reads senders_done[i] (acquire): fewer than
     * senders_of[i] means the select reported it closed too early. */
    atomic_uint *senders_done;
    unsigned *senders_of;
};

static void count_cancel(worker *w) {
    atomic_fetch_add_explicit(&w->base.cancels, 1, memory_order_relaxed);
}

static bool chance(worker *w, double p) { return stress_rng_chance(&w->base.rng, p); }

/* ---- producers ---------------------------------------------------------------------- */

/* Send m through a select over the producer's one or two send cases. */
static zc_status select_send(worker *w, const stress_msg *m, size_t *index) {
    zc_select_case c[2];
    size_t n = w->tx[1] ? 2 : 1;
    for (size_t i = 0; i < n; i++) zc_select_send_case(&c[i], w->tx[i], m);
    stress_set_doing(&w->base, "zc_select_blocking over send cases");
    return zc_select_blocking(c, n, 0, index);
}

static void *producer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    stress_gate_wait(&r->gate);
    for (uint32_t seq = 0; seq < r->opt.messages; seq++) {
        stress_msg m = stress_msg_make(w->base.id, seq);
        size_t index = 0;
        zc_status st;
        if (r->opt.send_select) {
            st = select_send(w, &m, &index);
        } else {
            stress_set_doing(&w->base, "zc_send_blocking");
            st = zc_send_blocking(w->tx[0], &m);
        }
        if (st != ZC_OK) {
            stress_ledger_fail(&r->ledger, "send: producer %u got %s (case %zu) for seq %" PRIu32,
                               w->base.id, zc_status_str(st), index, seq);
            break;
        }
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
    }
    stress_set_doing(&w->base, "dropping its senders");
    uint32_t P = r->opt.producers;
    for (unsigned i = 0; i < 2 && w->tx[i]; i++) {
        /* [S1] release: pairs with the acquire in consumer_main */
        atomic_fetch_add_explicit(&r->senders_done[(w->base.id + i) % P], 1, memory_order_release);
        zc_sender_drop(w->tx[i]);
    }
    stress_set_doing(&w->base, "done");
    return NULL;
}

/* ---- consumers ---------------------------------------------------------------------- */

static zc_status select_poll(void *f, const zc_waker *wk, void *index) {
    return zc_select_poll(f, wk, index);
}
static void select_cancel(void *f) { zc_select_cancel(f); }
static const stress_future_kind select_kind = {
    select_poll, select_cancel, "zc_select_poll", "zc_select_cancel while registered",
    "parked on a pending select", "zc_select_cancel after its wake"};

/* One selection through a polled zc_select, with random cancels. */
static zc_status select_future(worker *w, size_t *index) {
    return stress_drive(&w->base, w->run->opt.cancel, &select_kind, &w->sel, index);
}

static zc_status select_one(worker *w, size_t *index) {
    uint32_t n = w->run->opt.producers;
    op_kind kind = w->run->opt.mode;
    unsigned flags = 0;
    if (kind == OP_MIXED) {
        kind = (op_kind)(stress_rng_next(&w->base.rng) % 3);
        flags = chance(w, 0.25) ? ZC_SELECT_ORDERED : 0;
    }
    switch (kind) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_select_blocking");
        return zc_select_blocking(w->cases, n, flags, index);
    case OP_FUTURES:
        return select_future(w, index);
    default:
        for (;;) {
            stress_set_doing(&w->base, "zc_select_timeout");
            uint64_t timeout_ns = stress_rng_next(&w->base.rng) % 20001;
            zc_status st = zc_select_timeout(w->cases, n, flags, timeout_ns, index);
            if (st != ZC_TIMEDOUT) return st;
            count_cancel(w);
        }
    }
}

static void *consumer_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    uint32_t P = r->opt.producers;
    uint32_t *next_min = stress_order_new(&r->ledger);
    stress_gate_wait(&r->gate);
    for (;;) {
        size_t index = P + 1;
        zc_status st = select_one(w, &index);
        if (st == ZC_CLOSED && index == P) break; /* every case disabled */
        if (index >= P) {
            stress_ledger_fail(&r->ledger, "select: consumer %u got %s with index %zu",
                               w->base.id, zc_status_str(st), index);
            break;
        }
        if (st == ZC_OK) {
            const stress_msg *m = &w->out[index];
            /* With --send-select a producer's messages are spread over two channels,
             * so no order holds between them: check exactly-once only. */
            if (r->opt.send_select && m->producer < P) next_min[m->producer] = 0;
            stress_ledger_take(&r->ledger, next_min, m, "consumer", w->base.id);
            atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
            continue;
        }
        if (st != ZC_CLOSED) {
            stress_ledger_fail(&r->ledger, "select: consumer %u got %s for channel %zu",
                               w->base.id, zc_status_str(st), index);
            break;
        }
        /* [S1] acquire: pairs with the release in producer_main */
        unsigned gone = atomic_load_explicit(&r->senders_done[index], memory_order_acquire);
        if (gone != r->senders_of[index])
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u saw channel %zu closed with %u of %u "
                               "senders alive",
                               w->base.id, index, r->senders_of[index] - gone,
                               r->senders_of[index]);
        zc_select_disable(&w->sel, index); /* the cases are shared by every kind */
    }
    stress_set_doing(&w->base, "done");
    free(next_min);
    return NULL;
}

/* ---- watchdog, options, main ------------------------------------------------------- */

/* A worker thread: a producer or a consumer, as the worker says. */
static void *worker_main(void *arg) {
    worker *w = arg;
    return w->producer ? producer_main(w) : consumer_main(w);
}

static uint64_t progress(void *ctx) { return stress_crew_done(&((run *)ctx)->crew, 0); }

static void dump(void *ctx) {
    run *r = ctx;
    const options *o = &r->opt;
    fprintf(stderr, "run: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32 " cap=%zu mode=%s%s\n",
            o->producers, o->consumers, o->messages, o->cap, kind_names[o->mode],
            o->send_select ? " send-select" : "");
    for (uint32_t i = 0; i < o->producers; i++) {
        fprintf(stderr, "  channel %" PRIu32 ": ", i);
        stress_print_channel(r->rx[i]);
    }
    stress_crew_print(&r->crew);
}

static void usage(const char *argv0, int status) {
    fprintf(status ? stderr : stdout,
            "usage: %s [options]   (-h, --help: this text)\n"
            "  -p, --producers N   producer threads, one channel each (default 4)\n"
            "  -c, --consumers N   consumer threads, each selecting over every channel\n"
            "                      (default 2)\n"
            "  -n, --messages N    messages per producer (default 10000; times\n"
            "                      ZCHAN_STRESS_SCALE)\n"
            "  -k, --cap N         capacity of each channel, >= 1 (default 1)\n"
            "  -m, --mode M        blocking | futures | timeout | mixed (default mixed)\n"
            "  -x, --cancel P      probability in [0, 1) of cancelling a pending select\n"
            "                      (default 0.1)\n"
            "  -S, --send-select   producers send through a select over two channels\n"
            "  -s, --seed N        seed of the random choices (default 1)\n"
            "  -w, --stall S       seconds without progress that count as a hang\n"
            "                      (default 20)\n",
            argv0);
    exit(status);
}

static options parse(int argc, char **argv) {
    options o = {.producers = 4, .consumers = 2, .messages = 10000, .cap = 1,
                 .mode = OP_MIXED, .cancel = 0.1, .seed = 1, .stall_s = 20};
    static const struct option longs[] = {{"producers", required_argument, NULL, 'p'},
                                          {"consumers", required_argument, NULL, 'c'},
                                          {"mode", required_argument, NULL, 'm'},
                                          {"send-select", no_argument, NULL, 'S'},
                                          STRESS_COMMON_LONGS,
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    stress_common_args common = {&o.messages, &o.cap, 1, SIZE_MAX, &o.cancel, &o.seed,
                                 &o.stall_s};
    int c;
    while ((c = getopt_long(argc, argv, "p:c:n:k:m:x:Ss:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p': o.producers = (uint32_t)stress_arg_num("--producers", optarg, 1, 1024); break;
        case 'c': o.consumers = (uint32_t)stress_arg_num("--consumers", optarg, 1, 1024); break;
        case 'S': o.send_select = true; break;
        case 'm': {
            int k = 0;
            while (k <= OP_MIXED && strcmp(optarg, kind_names[k]) != 0) k++;
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

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "stress_select: out of memory\n");
        exit(2);
    }
    return p;
}

int main(int argc, char **argv) {
    static run r; /* static: the watchdog may read it until it is stopped */
    r.opt = parse(argc, argv);
    const options *o = &r.opt;
    uint32_t P = o->producers, threads = o->producers + o->consumers;
    printf("stress_select: P=%" PRIu32 " C=%" PRIu32 " messages=%" PRIu32
           " cap=%zu mode=%s cancel=%g%s seed=%" PRIu64 "\n",
           P, o->consumers, o->messages, o->cap, kind_names[o->mode], o->cancel,
           o->send_select ? " send-select" : "", o->seed);
    fflush(stdout);

    zc_config cfg = {.elem_size = sizeof(stress_msg)};
    zc_sender **tx = xcalloc(P, sizeof *tx);
    r.rx = xcalloc(P, sizeof *r.rx);
    r.senders_done = xcalloc(P, sizeof *r.senders_done);
    r.senders_of = xcalloc(P, sizeof *r.senders_of);
    for (uint32_t i = 0; i < P; i++) {
        zc_status st = zc_bounded(o->cap, &cfg, &tx[i], &r.rx[i]);
        if (st != ZC_OK) {
            fprintf(stderr, "FAIL: creating channel %" PRIu32 " gave %s\n", i,
                    zc_status_str(st));
            return 1;
        }
        atomic_init(&r.senders_done[i], 0);
    }
    stress_ledger_init(&r.ledger, P, o->messages);
    stress_gate_init(&r.gate);
    r.workers = stress_workers_new(threads, sizeof *r.workers, _Alignof(worker));
    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        w->run = &r;
        w->producer = i < P;
        stress_worker_init(&w->base, w->producer ? "producer" : "consumer",
                           w->producer ? i : i - P, o->seed, i);
        if (w->producer) {
            w->tx[0] = zc_sender_clone(tx[i]);
            r.senders_of[i]++;
            if (o->send_select && P > 1) {
                w->tx[1] = zc_sender_clone(tx[(i + 1) % P]);
                r.senders_of[(i + 1) % P]++;
            }
        } else {
            w->rx = xcalloc(P, sizeof *w->rx);
            w->cases = xcalloc(P, sizeof *w->cases);
            w->out = xcalloc(P, sizeof *w->out);
            for (uint32_t c = 0; c < P; c++) {
                w->rx[c] = zc_receiver_clone(r.rx[c]);
                zc_select_recv_case(&w->cases[c], w->rx[c], &w->out[c]);
            }
            zc_select_init(&w->sel, w->cases, P, 0);
        }
    }
    for (uint32_t i = 0; i < P; i++) zc_sender_drop(tx[i]); /* producers hold the rest */

    stress_watchdog wd = {.progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    r.crew = (stress_crew){r.workers, threads, sizeof *r.workers,
                           offsetof(worker, base), worker_main, NULL, NULL};
    double elapsed = stress_crew_run(&r.crew, &r.gate, &wd);
    uint64_t received = stress_crew_done(&r.crew, o->producers); /* the consumers' */
    uint64_t cancels = stress_crew_cancels(&r.crew);

    for (uint32_t i = 0; i < P; i++) stress_check_drained(&r.ledger, r.rx[i]);
    bool ok = stress_ledger_verdict(&r.ledger, received);

    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        for (uint32_t c = 0; w->rx && c < P; c++) zc_receiver_drop(w->rx[c]);
        free(w->rx);
        free(w->cases);
        free(w->out);
        stress_worker_destroy(&w->base);
    }
    for (uint32_t i = 0; i < P; i++) zc_receiver_drop(r.rx[i]);
    free(tx);
    free(r.rx);
    free(r.senders_done);
    free(r.senders_of);
    stress_ledger_free(&r.ledger);
    stress_gate_destroy(&r.gate);
    free(r.workers);
    printf("%s: %" PRIu64 " messages in %.3f s, %" PRIu64 " cancels or timeouts\n",
           ok ? "ok" : "FAILED", received, elapsed, cancels);
    return ok ? 0 : 1;
}

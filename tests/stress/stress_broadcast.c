/*
 * stress_broadcast: P sender threads and R receiver threads on one broadcast channel,
 * plus D dropper threads that keep subscribing, cloning and dropping short-lived
 * receivers while the sends go on. Checks, for every receiver that existed from the
 * start:
 *   - each message is well formed and each sender's messages arrive in order, each at
 *     most once (seq strictly increasing per sender);
 *   - seen + lagged == sent: every message was either received or reported missed by a
 *     ZC_LAGGED count, exactly; no lag count exceeds what was sent; in back-pressure
 *     mode nothing lags and every message arrives (no gap in any sender's seq);
 *   - ZC_CLOSED comes only after every sender is gone and the receiver has drained;
 * and for the channel as a whole, once every handle is gone: every copy that existed
 * (each message sent, plus each clone_msg call) was received exactly once or passed to
 * drop_msg exactly once (sent + clones == received by anyone + dropped).
 *
 * Operations, by --mode (mixed: at random for each): blocking (zc_bcast_*_blocking),
 * futures (zc_bcast_send / zc_bcast_recv polled with a zc_parker waker, cancelled with
 * probability --cancel at once or after the wake), try (zc_bcast_try_*, yielding).
 *
 * ZCHAN_STRESS_SCALE multiplies --messages. A watchdog turns a hang into a failure that
 * prints every thread's state. Exit status: 0 all held, 1 a property broke (the output
 * says which), 2 bad usage, SIGABRT a hang.
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
#include <zchan/broadcast.h>

#include "stress_util.h"

typedef enum op_kind { OP_BLOCKING, OP_FUTURES, OP_TRY, OP_MIXED } op_kind;
static const char *const kind_names[] = {"blocking", "futures", "try", "mixed"};
static const char *const mode_names[] = {"backpressure", "overflow"};

typedef struct options {
    uint32_t senders, receivers, droppers, messages;
    size_t cap;
    zc_bcast_mode mode;
    op_kind kind;
    double cancel;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

typedef enum role { SENDER, RECEIVER, DROPPER } role;
static const char *const role_names[] = {"sender", "receiver", "dropper"};

/* One thread, on cache lines of its own (the watchdog reads its counters). */
typedef struct worker {
    _Alignas(64) stress_worker base;
    run *run;
    role role;
    zc_bcast_sender *tx;   /* senders and droppers (droppers subscribe through it) */
    zc_bcast_receiver *rx; /* receivers */
    zc_bcast_recv recv;    /* receivers: the futures kind's stream */
    uint64_t seen, lagged; /* receivers: messages received, and missed per ZC_LAGGED */
} worker;

struct run {
    options opt;
    stress_ledger report; /* only for its violation count and messages */
    stress_gate gate;
    worker *workers; /* senders, receivers, droppers */
    stress_crew crew; /* the workers, for the run and the watchdog */
    zc_bcast_sender *tx;
    /* [S1] Senders add 1 (release) before dropping their sender; a receiver that sees
     * ZC_CLOSED reads it (acquire); droppers stop once it reaches P. */
    atomic_uint senders_done;
    atomic_ullong received_all; /* every ZC_OK receive, by any receiver */
    atomic_ullong clones, drops; /* clone_msg and drop_msg calls */
};

static void count_clone(void *dst, const void *src, void *ctx) {
    memcpy(dst, src, sizeof(stress_msg));
    atomic_fetch_add_explicit(&((run *)ctx)->clones, 1, memory_order_relaxed);
}

static void count_drop(void *msg, void *ctx) {
    (void)msg;
    atomic_fetch_add_explicit(&((run *)ctx)->drops, 1, memory_order_relaxed);
}

static op_kind pick(worker *w) {
    op_kind k = w->run->opt.kind;
    return k == OP_MIXED ? (op_kind)(stress_rng_next(&w->base.rng) % 3) : k;
}

/* ---- senders --------------------------------------------------------------------------- */

static zc_status send_poll(void *f, const zc_waker *wk, void *arg) {
    (void)arg;
    return zc_bcast_send_poll(f, wk);
}
static void send_cancel(void *f) { zc_bcast_send_cancel(f); }
static const stress_future_kind send_kind = {
    send_poll, send_cancel, "zc_bcast_send_poll", "zc_bcast_send_cancel while registered",
    "parked on a pending send", "zc_bcast_send_cancel after its wake"};

static zc_status send_future(worker *w, const stress_msg *m) {
    zc_bcast_send f;
    zc_bcast_send_init(&f, w->tx, m);
    return stress_drive(&w->base, w->run->opt.cancel, &send_kind, &f, NULL);
}

static zc_status send_one(worker *w, const stress_msg *m) {
    zc_status st;
    switch (pick(w)) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_bcast_send_blocking");
        return zc_bcast_send_blocking(w->tx, m);
    case OP_FUTURES:
        return send_future(w, m);
    default:
        stress_set_doing(&w->base, "zc_bcast_try_send loop");
        while ((st = zc_bcast_try_send(w->tx, m)) == ZC_FULL) sched_yield();
        return st;
    }
}

static void *sender_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    stress_gate_wait(&r->gate);
    for (uint32_t seq = 0; seq < r->opt.messages; seq++) {
        stress_msg m = stress_msg_make(w->base.id, seq);
        zc_status st = send_one(w, &m);
        if (st != ZC_OK) {
            stress_ledger_fail(&r->report, "send: sender %u got %s for seq %" PRIu32, w->base.id,
                               zc_status_str(st), seq);
            break;
        }
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
        /* Overflow sends never wait: give the receivers a chance now and then, so that
         * runs mix receiving and lagging instead of lagging through everything. */
        if (r->opt.mode == ZC_BCAST_OVERFLOW && stress_rng_chance(&w->base.rng, 0.5)) sched_yield();
    }
    stress_set_doing(&w->base, "zc_bcast_sender_drop");
    /* [S1] release: pairs with the acquires in receiver_main and dropper_main */
    atomic_fetch_add_explicit(&r->senders_done, 1, memory_order_release);
    zc_bcast_sender_drop(w->tx);
    stress_set_doing(&w->base, "done");
    return NULL;
}

/* ---- receivers ------------------------------------------------------------------------ */

/* Where a broadcast receive future puts its message and the count it missed. */
typedef struct recv_into {
    stress_msg *out;
    uint64_t *missed;
} recv_into;

static zc_status recv_poll(void *f, const zc_waker *wk, void *arg) {
    recv_into *to = arg;
    return zc_bcast_recv_poll(f, wk, to->out, to->missed);
}
static void recv_cancel(void *f) { zc_bcast_recv_cancel(f); }
static const stress_future_kind recv_kind = {
    recv_poll, recv_cancel, "zc_bcast_recv_poll", "zc_bcast_recv_cancel while registered",
    "parked on a pending receive", "zc_bcast_recv_cancel after its wake"};

static zc_status recv_future(worker *w, stress_msg *out, uint64_t *missed) {
    recv_into to = {out, missed};
    return stress_drive(&w->base, w->run->opt.cancel, &recv_kind, &w->recv, &to);
}

static zc_status recv_one(worker *w, stress_msg *out, uint64_t *missed) {
    zc_status st;
    switch (pick(w)) {
    case OP_BLOCKING:
        stress_set_doing(&w->base, "zc_bcast_recv_blocking");
        return zc_bcast_recv_blocking(w->rx, out, missed);
    case OP_FUTURES:
        return recv_future(w, out, missed);
    default:
        stress_set_doing(&w->base, "zc_bcast_try_recv loop");
        while ((st = zc_bcast_try_recv(w->rx, out, missed)) == ZC_EMPTY) sched_yield();
        return st;
    }
}

/* Check one received message against this receiver's per-sender view (next[p]: the
 * lowest seq it may see next; back-pressure: exactly the seq it must see next). */
static void check_msg(worker *w, uint32_t *next, const stress_msg *m) {
    run *r = w->run;
    stress_msg want = stress_msg_make(m->producer, m->seq);
    if (m->producer >= r->opt.senders || m->check != want.check) {
        stress_ledger_fail(&r->report, "corrupt message: receiver %u got {%" PRIu32 ", %" PRIu32
                           ", %016" PRIx64 "}", w->base.id, m->producer, m->seq, m->check);
        return;
    }
    bool exact = r->opt.mode == ZC_BCAST_BACKPRESSURE;
    if (exact ? m->seq != next[m->producer] : m->seq < next[m->producer])
        stress_ledger_fail(&r->report,
                           "order: receiver %u got sender %" PRIu32 " seq %" PRIu32
                           " where %s %" PRIu32 " was due",
                           w->base.id, m->producer, m->seq, exact ? "exactly" : "at least",
                           next[m->producer]);
    next[m->producer] = m->seq + 1;
}

static void *receiver_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    uint64_t total = (uint64_t)r->opt.senders * r->opt.messages;
    uint32_t *next = calloc(r->opt.senders, sizeof *next);
    if (!next) exit(2);
    stress_gate_wait(&r->gate);
    stress_msg m;
    uint64_t missed;
    zc_status st;
    while ((st = recv_one(w, &m, &missed)) == ZC_OK || st == ZC_LAGGED) {
        if (st == ZC_LAGGED) {
            if (r->opt.mode == ZC_BCAST_BACKPRESSURE || missed == 0 || missed > total)
                stress_ledger_fail(&r->report, "lag: receiver %u got ZC_LAGGED(%" PRIu64
                                   ") in %s mode, %" PRIu64 " sent in all", w->base.id, missed,
                                   mode_names[r->opt.mode], total);
            w->lagged += missed;
            continue;
        }
        check_msg(w, next, &m);
        w->seen++;
        atomic_fetch_add_explicit(&r->received_all, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
    }
    if (st != ZC_CLOSED) {
        stress_ledger_fail(&r->report, "recv: receiver %u got %s", w->base.id, zc_status_str(st));
    } else {
        /* [S1] acquire: pairs with the release in sender_main */
        unsigned gone = atomic_load_explicit(&r->senders_done, memory_order_acquire);
        if (gone != r->opt.senders)
            stress_ledger_fail(&r->report, "close: receiver %u got ZC_CLOSED with %" PRIu32
                               " senders alive", w->base.id, r->opt.senders - gone);
        if (w->seen + w->lagged != total)
            stress_ledger_fail(&r->report,
                               "count: receiver %u saw %" PRIu64 " and lagged %" PRIu64
                               ", %" PRIu64 " in all, of %" PRIu64 " sent",
                               w->base.id, w->seen, w->lagged, w->seen + w->lagged, total);
    }
    free(next);
    stress_set_doing(&w->base, "done");
    return NULL;
}

/* ---- droppers ---------------------------------------------------------------------------- */

/* Receive up to n messages without waiting; counts them as received. */
static void nibble(worker *w, zc_bcast_receiver *rx, unsigned n) {
    stress_msg m;
    for (unsigned i = 0; i < n; i++) {
        zc_status st = zc_bcast_try_recv(rx, &m, NULL);
        if (st == ZC_OK)
            atomic_fetch_add_explicit(&w->run->received_all, 1, memory_order_relaxed);
        else if (st != ZC_LAGGED)
            break;
    }
}

static void *dropper_main(void *arg) {
    worker *w = arg;
    run *r = w->run;
    stress_gate_wait(&r->gate);
    /* [S1] acquire: pairs with the release in sender_main */
    while (atomic_load_explicit(&r->senders_done, memory_order_acquire) < r->opt.senders) {
        stress_set_doing(&w->base, "subscribing");
        zc_bcast_receiver *a = zc_bcast_subscribe(w->tx);
        if (!a) exit(2);
        nibble(w, a, (unsigned)(stress_rng_next(&w->base.rng) % 8));
        stress_set_doing(&w->base, "cloning");
        zc_bcast_receiver *b = zc_bcast_receiver_clone(a);
        if (!b) exit(2);
        sched_yield(); /* let the senders get ahead: a and b fall behind */
        nibble(w, b, (unsigned)(stress_rng_next(&w->base.rng) % 8));
        stress_set_doing(&w->base, "dropping");
        zc_bcast_receiver_drop(a);
        zc_bcast_receiver_drop(b);
        atomic_fetch_add_explicit(&w->base.done, 1, memory_order_relaxed);
    }
    zc_bcast_sender_drop(w->tx);
    stress_set_doing(&w->base, "done");
    return NULL;
}

/* ---- watchdog, options, main -------------------------------------------------------- */

static uint32_t threads_of(const options *o) { return o->senders + o->receivers + o->droppers; }

/* A worker thread, by its role. */
static void *worker_main(void *arg) {
    static void *(*const mains[])(void *) = {sender_main, receiver_main, dropper_main};
    worker *w = arg;
    return mains[w->role](w);
}

/* Before worker i is joined: the main thread's own sender goes once the senders are
 * done (workers 0 .. senders - 1), so that the channel closes with the last of theirs
 * (droppers hold senders too: they subscribe). */
static void drop_own_sender(void *ctx, uint32_t i) {
    run *r = ctx;
    if (i == r->opt.senders) zc_bcast_sender_drop(r->tx);
}

static uint64_t progress(void *ctx) { return stress_crew_done(&((run *)ctx)->crew, 0); }

static void dump(void *ctx) {
    run *r = ctx;
    const options *o = &r->opt;
    zc_info info;
    zc_bcast_sender_info(r->tx, &info);
    fprintf(stderr, "run: P=%" PRIu32 " R=%" PRIu32 " D=%" PRIu32 " messages=%" PRIu32
            " cap=%zu %s %s; held %zu, senders %zu, receivers %zu, closed %d\n",
            o->senders, o->receivers, o->droppers, o->messages, o->cap, mode_names[o->mode],
            kind_names[o->kind], info.len, info.senders, info.receivers, info.closed);
    stress_crew_print(&r->crew);
}

static void usage(const char *argv0, int status) {
    fprintf(status ? stderr : stdout,
            "usage: %s [options]   (-h, --help: this text)\n"
            "  -p, --senders N     sender threads (default 2)\n"
            "  -r, --receivers N   receiver threads, there from the start (default 3)\n"
            "  -d, --droppers N    threads subscribing, cloning and dropping short-lived\n"
            "                      receivers while the sends go on (default 1)\n"
            "  -n, --messages N    messages per sender (default 10000; times\n"
            "                      ZCHAN_STRESS_SCALE)\n"
            "  -k, --cap N         capacity, >= 1 (default 16)\n"
            "  -o, --overflow      overflow mode (default: back-pressure)\n"
            "  -m, --mode M        blocking | futures | try | mixed (default mixed)\n"
            "  -x, --cancel P      probability in [0, 1) of cancelling a pending future\n"
            "                      (default 0.1)\n"
            "  -s, --seed N        seed of the random choices (default 1)\n"
            "  -w, --stall S       seconds without progress that count as a hang\n"
            "                      (default 20)\n",
            argv0);
    exit(status);
}

static options parse(int argc, char **argv) {
    options o = {.senders = 2, .receivers = 3, .droppers = 1, .messages = 10000, .cap = 16,
                 .mode = ZC_BCAST_BACKPRESSURE, .kind = OP_MIXED, .cancel = 0.1, .seed = 1,
                 .stall_s = 20};
    static const struct option longs[] = {{"senders", required_argument, NULL, 'p'},
                                          {"receivers", required_argument, NULL, 'r'},
                                          {"droppers", required_argument, NULL, 'd'},
                                          {"overflow", no_argument, NULL, 'o'},
                                          {"mode", required_argument, NULL, 'm'},
                                          STRESS_COMMON_LONGS,
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    stress_common_args common = {&o.messages, &o.cap, 1, 1u << 24, &o.cancel, &o.seed,
                                 &o.stall_s};
    int c;
    while ((c = getopt_long(argc, argv, "p:r:d:n:k:om:x:s:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'p': o.senders = (uint32_t)stress_arg_num("--senders", optarg, 1, 1024); break;
        case 'r': o.receivers = (uint32_t)stress_arg_num("--receivers", optarg, 1, 1024); break;
        case 'd': o.droppers = (uint32_t)stress_arg_num("--droppers", optarg, 0, 1024); break;
        case 'o': o.mode = ZC_BCAST_OVERFLOW; break;
        case 'm': {
            int k = 0;
            while (k <= OP_MIXED && strcmp(optarg, kind_names[k]) != 0) k++;
            if (k > OP_MIXED) usage(argv[0], 2);
            o.kind = (op_kind)k;
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
    uint32_t threads = threads_of(o);
    printf("stress_broadcast: P=%" PRIu32 " R=%" PRIu32 " D=%" PRIu32 " messages=%" PRIu32
           " cap=%zu %s mode=%s cancel=%g seed=%" PRIu64 "\n",
           o->senders, o->receivers, o->droppers, o->messages, o->cap, mode_names[o->mode],
           kind_names[o->kind], o->cancel, o->seed);
    fflush(stdout);

    atomic_init(&r.senders_done, 0);
    atomic_init(&r.received_all, 0);
    atomic_init(&r.clones, 0);
    atomic_init(&r.drops, 0);
    zc_bcast_config cfg = {sizeof(stress_msg), o->mode, count_clone, count_drop, &r};
    zc_bcast_receiver *rx0;
    zc_status st = zc_bcast_new(o->cap, &cfg, &r.tx, &rx0);
    if (st != ZC_OK) {
        fprintf(stderr, "FAIL: creating the channel gave %s\n", zc_status_str(st));
        return 1;
    }
    stress_ledger_init(&r.report, 1, 1);
    stress_gate_init(&r.gate);
    r.workers = stress_workers_new(threads, sizeof *r.workers, _Alignof(worker));
    for (uint32_t i = 0; i < threads; i++) {
        worker *w = &r.workers[i];
        w->run = &r;
        w->role = i < o->senders ? SENDER : i < o->senders + o->receivers ? RECEIVER : DROPPER;
        unsigned id = w->role == SENDER     ? i
                      : w->role == RECEIVER ? i - o->senders
                                            : i - o->senders - o->receivers;
        stress_worker_init(&w->base, role_names[w->role], id, o->seed, i);
        if (w->role == RECEIVER) {
            w->rx = zc_bcast_receiver_clone(rx0); /* all at position 0: they see it all */
            if (!w->rx) return 2;
            zc_bcast_recv_init(&w->recv, w->rx);
        } else {
            w->tx = zc_bcast_sender_clone(r.tx);
        }
    }
    zc_bcast_receiver_drop(rx0);

    stress_watchdog wd = {.progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    r.crew = (stress_crew){r.workers, threads, sizeof *r.workers,
                           offsetof(worker, base), worker_main, drop_own_sender, &r};
    double elapsed = stress_crew_run(&r.crew, &r.gate, &wd);
    uint64_t lagged = 0, cancels = stress_crew_cancels(&r.crew);
    for (uint32_t i = 0; i < threads; i++) {
        lagged += r.workers[i].lagged;
        zc_bcast_receiver_drop(r.workers[i].rx); /* NULL for senders and droppers */
        stress_worker_destroy(&r.workers[i].base);
    }

    /* Every handle is gone: each copy was received once or dropped once. */
    unsigned long long sent = (unsigned long long)o->senders * o->messages;
    unsigned long long clones = atomic_load_explicit(&r.clones, memory_order_relaxed);
    unsigned long long drops = atomic_load_explicit(&r.drops, memory_order_relaxed);
    unsigned long long received = atomic_load_explicit(&r.received_all, memory_order_relaxed);
    if (sent + clones != received + drops)
        stress_ledger_fail(&r.report,
                           "copies: %llu sent + %llu clones != %llu received + %llu dropped",
                           sent, clones, received, drops);
    bool ok = atomic_load_explicit(&r.report.reports, memory_order_relaxed) == 0;
    stress_ledger_free(&r.report);
    stress_gate_destroy(&r.gate);
    free(r.workers);
    printf("%s: %llu sent, %llu received, %" PRIu64 " lagged, %llu clones, %llu dropped in "
           "%.3f s, %" PRIu64 " cancels\n",
           ok ? "ok" : "FAILED", sent, received, lagged, clones, drops, elapsed, cancels);
    return ok ? 0 : 1;
}

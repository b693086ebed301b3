/*
 * stress_tasks: many sender tasks, each with its own cloned sender, and a few receiver
 * tasks on one small bounded channel, driven by the examples' executor (single-thread or
 * a worker pool). Checks exactly-once delivery, per-sender order as each receiver sees
 * it, the counts, and that ZC_CLOSED comes only after every sender is gone.
 *
 * With 512 senders and capacity 16, nearly every sender task is pending at any moment,
 * so the senders' waiter list stays long and every freed slot hands a wake-up from task
 * to task. With probability --cancel a task cancels a pending future, either in the poll
 * that got ZC_PENDING or when next polled (after its wake), and polls it again.
 * Receivers yield (wake themselves) after --batch messages in one poll so that they share
 * a single-thread executor fairly.
 *
 * ZCHAN_STRESS_SCALE multiplies --messages. A watchdog aborts after --stall seconds
 * without progress. Exit status as stress_mpmc.
 */
#define _GNU_SOURCE /* getopt_long */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <zchan/mpmc.h>

#include "executor.h"
#include "stress_util.h"

typedef struct options {
    uint32_t senders, receivers, messages;
    size_t cap;
    unsigned workers; /* 0: single-thread executor driven by ex_run */
    uint32_t batch;
    double cancel;
    uint64_t seed;
    unsigned stall_s;
} options;

typedef struct run run;

typedef struct sender_task {
    ex_task task; /* first: the executor hands back this pointer */
    run *run;
    zc_sender *tx;
    uint32_t id, seq;
    bool pending; /* send was initialised for msg and its last poll returned ZC_PENDING */
    stress_msg msg;
    zc_send send;
    uint64_t rng;
    /* relaxed: progress for the watchdog, which only prints it */
    _Atomic uint32_t sent;
} sender_task;

typedef struct receiver_task {
    ex_task task;
    run *run;
    zc_receiver *rx;
    zc_recv recv;
    uint32_t id;
    bool pending;
    uint32_t *next_min;
    uint64_t rng;
    _Atomic uint64_t received; /* relaxed: for the watchdog and the final count */
} receiver_task;

struct run {
    options opt;
    stress_ledger ledger;
    sender_task *senders;
    receiver_task *receivers;
    zc_receiver *rx; /* the main thread's receiver: info and the final drain */
    /* [S1] as in stress_mpmc.c: each sender task adds 1 (release) before it drops its
     * sender; a receiver that sees ZC_CLOSED reads it (acquire). */
    atomic_uint senders_done;
    atomic_ulong cancels; /* relaxed: a count, printed at the end */
};

static bool cancel_now(run *r, uint64_t *rng) {
    if (!stress_rng_chance(rng, r->opt.cancel)) return false;
    atomic_fetch_add_explicit(&r->cancels, 1, memory_order_relaxed);
    return true;
}

static ex_result sender_poll(ex_task *t, const zc_waker *w) {
    sender_task *s = (sender_task *)t;
    run *r = s->run;
    /* Woken (or polled again for another reason): sometimes cancel instead of polling,
     * which passes the wake-up on; the message is still ours and is sent again. */
    if (s->pending && cancel_now(r, &s->rng)) zc_send_cancel(&s->send);
    while (s->seq < r->opt.messages) {
        if (!s->pending) {
            s->msg = stress_msg_make(s->id, s->seq);
            zc_send_init(&s->send, s->tx, &s->msg);
        }
        zc_status st = zc_send_poll(&s->send, w);
        s->pending = st == ZC_PENDING;
        if (s->pending) {
            if (!cancel_now(r, &s->rng)) return EX_PENDING;
            zc_send_cancel(&s->send); /* deregistered: poll again below */
            continue;
        }
        if (st != ZC_OK) {
            stress_ledger_fail(&r->ledger,
                               "send: sender task %" PRIu32 " got %s for seq %" PRIu32,
                               s->id, zc_status_str(st), s->seq);
            break;
        }
        s->seq++;
        atomic_store_explicit(&s->sent, s->seq, memory_order_relaxed);
    }
    /* [S1] release: pairs with the acquire in receiver_poll */
    atomic_fetch_add_explicit(&r->senders_done, 1, memory_order_release);
    zc_sender_drop(s->tx);
    return EX_DONE;
}

static ex_result receiver_poll(ex_task *t, const zc_waker *w) {
    receiver_task *q = (receiver_task *)t;
    run *r = q->run;
    if (q->pending && cancel_now(r, &q->rng)) zc_recv_cancel(&q->recv);
    stress_msg m;
    zc_status st;
    uint32_t batch = 0;
    for (;;) {
        st = zc_recv_poll(&q->recv, w, &m);
        q->pending = st == ZC_PENDING;
        if (q->pending) {
            if (!cancel_now(r, &q->rng)) return EX_PENDING;
            zc_recv_cancel(&q->recv); /* took nothing: poll again */
            continue;
        }
        if (st != ZC_OK) break;
        stress_ledger_take(&r->ledger, q->next_min, &m, "receiver task", q->id);
        atomic_fetch_add_explicit(&q->received, 1, memory_order_relaxed);
        if (++batch == r->opt.batch) {
            w->wake(w->ctx); /* yield: poll me again after the others */
            return EX_PENDING;
        }
    }
    if (st != ZC_CLOSED) {
        stress_ledger_fail(&r->ledger, "recv: receiver task %" PRIu32 " got %s", q->id,
                           zc_status_str(st));
    } else {
        /* [S1] acquire: pairs with the release in sender_poll */
        unsigned gone = atomic_load_explicit(&r->senders_done, memory_order_acquire);
        if (gone != r->opt.senders)
            stress_ledger_fail(&r->ledger,
                               "close: receiver task %" PRIu32
                               " got ZC_CLOSED with %" PRIu32 " of %" PRIu32
                               " senders still alive",
                               q->id, r->opt.senders - gone, r->opt.senders);
    }
    return EX_DONE;
}

static uint64_t progress(void *ctx) {
    run *r = ctx;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < r->opt.senders; i++)
        sum += atomic_load_explicit(&r->senders[i].sent, memory_order_relaxed);
    for (uint32_t i = 0; i < r->opt.receivers; i++)
        sum += atomic_load_explicit(&r->receivers[i].received, memory_order_relaxed);
    return sum;
}

static void dump(void *ctx) {
    run *r = ctx;
    const options *o = &r->opt;
    fprintf(stderr,
            "run: senders=%" PRIu32 " receivers=%" PRIu32 " messages=%" PRIu32
            " cap=%zu workers=%u cancel=%g seed=%" PRIu64 "\n",
            o->senders, o->receivers, o->messages, o->cap, o->workers, o->cancel, o->seed);
    stress_print_channel(r->rx);
    uint32_t finished = 0;
    for (uint32_t i = 0; i < o->senders; i++)
        finished +=
            atomic_load_explicit(&r->senders[i].sent, memory_order_relaxed) == o->messages;
    fprintf(stderr, "  %" PRIu32 " of %" PRIu32 " sender tasks sent everything\n", finished,
            o->senders);
    for (uint32_t i = 0; i < o->receivers; i++)
        fprintf(stderr, "  receiver task %" PRIu32 ": %" PRIu64 " received\n", i,
                atomic_load_explicit(&r->receivers[i].received, memory_order_relaxed));
}

/* Print the options; exit with status (0 for --help, 2 for a bad command line). */
static void usage(const char *argv0, int status) {
    fprintf(status ? stderr : stdout,
            "usage: %s [options]   (-h, --help: this text)\n"
            "  -S, --senders N     sender tasks (default 512)\n"
            "  -R, --receivers N   receiver tasks (default 4)\n"
            "  -n, --messages N    messages per sender task (default 100; times\n"
            "                      ZCHAN_STRESS_SCALE)\n"
            "  -k, --cap N         capacity, >= 1 (default 16)\n"
            "  -t, --workers N     0: single-thread executor; N: a pool of N threads\n"
            "                      (default 0)\n"
            "  -b, --batch N       messages a receiver takes per poll before yielding\n"
            "                      (default 32)\n"
            "  -x, --cancel P      probability in [0, 1) of cancelling a pending future\n"
            "                      (default 0.05)\n"
            "  -s, --seed N        seed of the random choices (default 1)\n"
            "  -w, --stall S       seconds without progress that count as a hang\n"
            "                      (default 20)\n",
            argv0);
    exit(status);
}

static options parse(int argc, char **argv) {
    options o = {.senders = 512,
                 .receivers = 4,
                 .messages = 100,
                 .cap = 16,
                 .workers = 0,
                 .batch = 32,
                 .cancel = 0.05,
                 .seed = 1,
                 .stall_s = 20};
    static const struct option longs[] = {{"senders", required_argument, NULL, 'S'},
                                          {"receivers", required_argument, NULL, 'R'},
                                          {"workers", required_argument, NULL, 't'},
                                          {"batch", required_argument, NULL, 'b'},
                                          STRESS_COMMON_LONGS,
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    stress_common_args common = {&o.messages, &o.cap, 1, SIZE_MAX, &o.cancel, &o.seed,
                                 &o.stall_s};
    int c;
    while ((c = getopt_long(argc, argv, "S:R:n:k:t:b:x:s:w:h", longs, NULL)) != -1) {
        switch (c) {
        case 'S':
            o.senders = (uint32_t)stress_arg_num("--senders", optarg, 1, 1u << 20);
            break;
        case 'R':
            o.receivers = (uint32_t)stress_arg_num("--receivers", optarg, 1, 4096);
            break;
        case 't':
            o.workers = (unsigned)stress_arg_num("--workers", optarg, 0, 256);
            break;
        case 'b':
            o.batch = (uint32_t)stress_arg_num("--batch", optarg, 1, UINT32_MAX);
            break;
        case 'h':
            usage(argv[0], 0);
            break;
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
    printf("stress_tasks: senders=%" PRIu32 " receivers=%" PRIu32 " messages=%" PRIu32
           " cap=%zu workers=%u cancel=%g seed=%" PRIu64 "\n",
           o->senders, o->receivers, o->messages, o->cap, o->workers, o->cancel, o->seed);
    fflush(stdout);

    zc_sender *tx;
    stress_channel_new(o->cap, &tx, &r.rx); /* cap >= 1: --cap's least */
    ex_executor *ex = ex_new(o->workers);
    r.senders = calloc(o->senders, sizeof *r.senders);
    r.receivers = calloc(o->receivers, sizeof *r.receivers);
    if (ex == NULL || r.senders == NULL || r.receivers == NULL) {
        fprintf(stderr, "stress: out of memory or threads\n");
        return 2;
    }
    stress_ledger_init(&r.ledger, o->senders, o->messages);
    atomic_init(&r.senders_done, 0);
    atomic_init(&r.cancels, 0);
    for (uint32_t i = 0; i < o->senders; i++) {
        sender_task *s = &r.senders[i];
        *s = (sender_task){.run = &r,
                           .tx = zc_sender_clone(tx),
                           .id = i,
                           .rng = stress_rng_seed(o->seed, i)};
        atomic_init(&s->sent, 0);
    }
    zc_sender_drop(tx); /* from here the sender tasks hold the only senders */
    for (uint32_t i = 0; i < o->receivers; i++) {
        receiver_task *q = &r.receivers[i];
        *q = (receiver_task){.run = &r,
                             .rx = zc_receiver_clone(r.rx),
                             .id = i,
                             .next_min = stress_order_new(&r.ledger),
                             .rng = stress_rng_seed(o->seed, o->senders + i)};
        zc_recv_init(&q->recv, q->rx);
        atomic_init(&q->received, 0);
    }

    stress_watchdog wd = {
        .progress = progress, .dump = dump, .ctx = &r, .stall_s = o->stall_s};
    stress_watchdog_start(&wd);
    double t0 = stress_now_s();
    /* Senders first: on the single-thread executor they fill the channel and line up
     * as waiters before any receiver runs. */
    for (uint32_t i = 0; i < o->senders; i++) ex_spawn(ex, &r.senders[i].task, sender_poll);
    for (uint32_t i = 0; i < o->receivers; i++)
        ex_spawn(ex, &r.receivers[i].task, receiver_poll);
    ex_run(ex);
    double elapsed = stress_now_s() - t0;
    stress_watchdog_stop(&wd);
    ex_free(ex);

    uint64_t received = 0;
    for (uint32_t i = 0; i < o->receivers; i++)
        received += atomic_load_explicit(&r.receivers[i].received, memory_order_relaxed);
    stress_check_drained(&r.ledger, r.rx);
    bool ok = stress_ledger_verdict(&r.ledger, received);

    for (uint32_t i = 0; i < o->receivers; i++) {
        zc_receiver_drop(r.receivers[i].rx);
        free(r.receivers[i].next_min);
    }
    zc_receiver_drop(r.rx);
    stress_ledger_free(&r.ledger);
    free(r.senders);
    free(r.receivers);
    printf("%s: %" PRIu64 " messages in %.3f s, %lu cancels\n", ok ? "ok" : "FAILED",
           received, elapsed, atomic_load_explicit(&r.cancels, memory_order_relaxed));
    return ok ? 0 : 1;
}

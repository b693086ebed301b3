/*
 * soak: random traffic on fresh channels for as long as asked (label `soak`,
 * scripts/soak.sh), checking exactly-once delivery, per-producer order and the close and
 * drop_msg rules all the while.
 *
 * The run is a sequence of rounds until ZCHAN_SOAK_SECONDS (default 5) have passed. Each
 * round makes two fresh channels, A and B, with the same element size: A's capacity
 * goes round 1, 2, 16, 1024, unbounded; B's is drawn from the same list; the element size
 * alternates between 8 and 21 bytes (a size that is no multiple of 8), both with a
 * drop_msg that records what it disposes of. 1-4 producer and 1-4 consumer threads then
 * run until the producers have used up their budget of sequence numbers or the round's
 * time (0.1-1 s) is up, each operation drawn at random:
 *
 *   producers  zc_send_blocking, zc_send_timeout, zc_try_send, send futures, the four
 *              send_many forms (with and without ZC_ALL_OR_NOTHING), a select that sends
 *              one message into A or B (blocking, with a timeout, or as a future), a
 *              zc_sender_closed probe, zc_sender_info;
 *   consumers  the matching receive forms, a select that receives from A or B, a
 *              zc_receiver_closed probe, zc_receiver_info.
 *
 * Futures run with a counting waker that unparks the worker: a pending future is
 * cancelled at random (at once, after its wake, or after a short timed park), then
 * started over or given up. Handles churn: an operation may go through a fresh clone
 * that is dropped right after, or a worker swaps its handle for a clone and drops the
 * old one. Single operations go through A only; B is reached only through selects
 * (until A is closed and drained, when consumers drain B directly), so that a producer
 * blocked on A (full) and a consumer blocked on A (empty) cannot both happen.
 *
 * Each round ends one of four ways: the producers finish and their last drop closes
 * both channels ("normal"); a consumer closes A or B early ("receiver close"); a
 * producer closes A or B early ("sender close"); every consumer leaves after some number
 * of messages, dropping its receivers, so the last one's drop hands what is left to
 * drop_msg ("abandon"). Consumers otherwise run until both channels report ZC_CLOSED.
 *
 * Checks. A message names its producer and sequence number and carries a check word tied
 * to the round, so a corrupt, invented or stale message is caught. Each producer records
 * which of its sequence numbers a send reported sent; a message whose send failed (full,
 * timed out, cancelled, closed) is given up or offered again later under the same
 * number. At the end of the round every message reported sent must have been received
 * exactly once or disposed of by drop_msg exactly once, never both, and no other message
 * may have been either (stress_ledger does the receive side: duplicates, and order: each
 * consumer sees each producer's messages on one channel in increasing order, whatever
 * the number of consumers). Also: ZC_CLOSED reaches a consumer only once every producer
 * is done or someone closed that channel; a producer sees ZC_CLOSED only where the
 * round's ending allows it; drop_msg runs only inside a zc_receiver_drop, and not at all
 * when every consumer drained both channels to ZC_CLOSED; a future's waker is never
 * called after its poll completed or its cancel returned, and no more often than its
 * polls allow (each links each node once and may wake itself once); zc_*_info agrees
 * with the channel.
 *
 * A watchdog turns a hang into a failure: no operation finished anywhere for 60 s prints
 * every worker's state and aborts. The run stops after the first round with a failure.
 * Prints a line every minute and one summary line at the end:
 *   soak: 1800 s, rounds N, messages M (received R, disposed of D), ops O, cancels C,
 *   timeouts T, closes K, clones H, failures F
 * Exit status: 0 no failure, 1 a failure (the lines above it say which), 2 bad usage,
 * SIGABRT a hang. ZCHAN_SOAK_SEED fixes the seed of the random choices (default: from
 * the clock, printed at the start); thread timing still differs from run to run.
 *
 * In a ZCHAN_TEST_HOOKS build this file's main is stress_hooks.c's (see CMakeLists.txt):
 * a jitter hook then spins, yields or sleeps a few microseconds at random at every race
 * window of the core (`--jitter=P`, `--laps=N` as for stress_hooks).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/closed.h>
#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>
#include <zchan/permit.h>
#include <zchan/select.h>

#include "stress_util.h"

enum {
    MAX_PRODUCERS = 4,
    MAX_CONSUMERS = 4,
    MAX_WORKERS = MAX_PRODUCERS + MAX_CONSUMERS,
    SEQ_SPACE = 1 << 16, /* sequence numbers per producer and round */
    MAX_BATCH = 16,
    SMALL_ELEM = 8,
    ODD_ELEM = 21,
    STALL_S = 60,
};

enum { CH_A, CH_B, CHANNELS };
static const char *const ch_names[] = {"A", "B"};

/* A channel's capacity as drawn: 0 is unbounded. */
static const size_t caps[] = {1, 2, 16, 1024, 0};
#define NCAPS (sizeof caps / sizeof caps[0])

typedef enum ending {
    END_NORMAL,
    END_RECEIVER_CLOSE,
    END_SENDER_CLOSE,
    END_ABANDON
} ending;
static const char *const ending_names[] = {"normal", "receiver close", "sender close",
                                           "abandon"};

/* What one channel's drop_msg is given as its context. */
typedef struct chan_ctx {
    unsigned ch;
    atomic_ullong drops; /* relaxed: a count, read after every handle is gone */
} chan_ctx;

typedef struct soak_round {
    uint64_t number;
    uint32_t tag; /* ties a message to its round */
    size_t elem_size;
    size_t cap[CHANNELS]; /* 0: unbounded */
    uint32_t producers, consumers;
    uint32_t budget; /* sequence numbers each producer may use */
    ending end;
    unsigned close_ch;         /* the channel the receiver / sender close ending closes */
    double deadline;           /* producers stop here (CLOCK_MONOTONIC seconds) */
    stress_ledger ledger;      /* received bits, order, corrupt messages, failure count */
    uint64_t *sent;            /* bit p * SEQ_SPACE + seq: a send reported it sent; each
                                * producer writes only its own words */
    _Atomic uint64_t *dropped; /* same bits: drop_msg disposed of it */
    chan_ctx chan[CHANNELS];
    stress_gate gate;
    /* [S1] Each producer adds 1 (release) before it drops its senders; a consumer that
     * sees ZC_CLOSED on a channel nobody closes by call reads it (acquire): below
     * `producers` means the channel reported closed while senders were alive. */
    atomic_uint producers_done;
} soak_round;

typedef enum fut_kind {
    F_SEND,
    F_RECV,
    F_SEND_MANY,
    F_RECV_MANY,
    F_SELECT,
    F_SENDER_CLOSED,
    F_RECEIVER_CLOSED
} fut_kind;

/* Any future this program drives, with what its poll needs besides the waker. */
typedef struct future {
    fut_kind kind;
    union {
        zc_send send;
        zc_recv recv;
        zc_send_many send_many;
        zc_recv_many recv_many;
        zc_select select;
        zc_sender_closed sender_closed;
        zc_receiver_closed receiver_closed;
    } u;
    void *out;      /* F_RECV, F_RECV_MANY */
    size_t max;     /* F_RECV_MANY */
    size_t got;     /* F_RECV_MANY: messages taken */
    size_t index;   /* F_SELECT: the case the status belongs to */
    unsigned nodes; /* waiter nodes a poll may link (a select: its live cases) */
} future;

/* One producer or consumer. The array is static and reused by every round; each worker
 * starts a cache line of its own so that the counters do not share lines. */
typedef struct worker {
    _Alignas(64) unsigned id; /* producer or consumer number in the round */
    bool producer;
    zc_sender *tx[CHANNELS];
    zc_receiver *rx[CHANNELS];
    zc_parker parker;
    zc_waker unpark; /* the parker's own waker */
    zc_waker waker;  /* {counting_wake, this} */
    uint64_t rng;
    /* This round's state, the worker's own (main reads it after the join). */
    uint32_t next_seq;   /* producer: first sequence number not yet used */
    uint64_t sent;       /* producer: messages reported sent */
    uint64_t received;   /* consumer: messages received */
    uint64_t trigger;    /* message count at which the round's ending acts */
    bool acted;          /* the ending's close was done */
    bool stop;           /* producer: saw ZC_CLOSED */
    bool done[CHANNELS]; /* consumer: saw ZC_CLOSED there */
    bool left;           /* consumer: left before both channels closed */
    unsigned op_ch;      /* the channel the last status belongs to */
    uint64_t wake_bound; /* the most wakes this round's polls allow */
    uint32_t next_min[CHANNELS][MAX_PRODUCERS]; /* consumer: the ledger's order state */
    unsigned char buf[CHANNELS][MAX_BATCH * ODD_ELEM];
    /* Relaxed atomics: read by the watchdog and summed by main after the join. */
    _Atomic uint64_t ops, cancels, timeouts, closes, clones;
    _Atomic uint64_t wakes;      /* this round's calls of waker */
    atomic_bool live;            /* a future polled with waker may be registered */
    _Atomic(const char *) doing; /* what the thread is in now */
    pthread_t thread;
} worker;

static soak_round the_round; /* static: the watchdog may read it until it is stopped */
static worker workers[MAX_WORKERS];
static _Atomic uint64_t rounds_started; /* relaxed: progress for the watchdog */

/* Set around this thread's zc_receiver_drop calls: drop_msg must run inside one. */
static _Thread_local bool in_receiver_drop;

/* ---- small helpers ------------------------------------------------------------------ */

static void set_doing(worker *w, const char *what) {
    atomic_store_explicit(&w->doing, what, memory_order_relaxed);
}

/* Count one call into the channel (relaxed: a statistic and the watchdog's progress). */
static void count_op(worker *w) {
    atomic_fetch_add_explicit(&w->ops, 1, memory_order_relaxed);
}

static void count(_Atomic uint64_t *counter) {
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed); /* a statistic */
}

static uint64_t below(uint64_t *rng, uint64_t n) { return stress_rng_next(rng) % n; }

/* A timeout for the *_timeout calls: 0 (one attempt) now and then, else up to 200 µs. */
static uint64_t draw_timeout_ns(worker *w) {
    return below(&w->rng, 8) == 0 ? 0 : 1000 * (1 + below(&w->rng, 200));
}

static void receiver_drop(zc_receiver *rx) {
    in_receiver_drop = true;
    zc_receiver_drop(rx);
    in_receiver_drop = false;
}

static const char *who(const worker *w) { return w->producer ? "producer" : "consumer"; }

/* ---- messages ----------------------------------------------------------------------- */

static unsigned char parity(const unsigned char *p, size_t n) {
    unsigned char x = 0x5a;
    while (n--) x ^= *p++;
    return x;
}

/* Message seq of producer p in round r: 8 bytes {p:8, seq:24, check:32}, or 21 bytes
 * {stress_msg, round tag, parity byte}. */
static void encode(const soak_round *r, uint32_t p, uint32_t seq, unsigned char *out) {
    stress_msg m = stress_msg_make(p, seq);
    if (r->elem_size == SMALL_ELEM) {
        uint64_t word =
            (uint64_t)p << 56 | (uint64_t)seq << 32 | (uint32_t)(m.check ^ r->tag);
        memcpy(out, &word, sizeof word);
    } else {
        memcpy(out, &m, sizeof m);
        memcpy(out + sizeof m, &r->tag, sizeof r->tag);
        out[ODD_ELEM - 1] = parity(out, ODD_ELEM - 1);
    }
}

/* The message in bytes, for the ledger; false if it is not one of this round's. */
static bool decode(const soak_round *r, const unsigned char *in, stress_msg *m) {
    if (r->elem_size == SMALL_ELEM) {
        uint64_t word;
        memcpy(&word, in, sizeof word);
        *m = stress_msg_make((uint32_t)(word >> 56), (uint32_t)(word >> 32) & 0xffffff);
        return (uint32_t)word == (uint32_t)(m->check ^ r->tag);
    }
    uint32_t tag;
    memcpy(m, in, sizeof *m);
    memcpy(&tag, in + sizeof *m, sizeof tag);
    return tag == r->tag && in[ODD_ELEM - 1] == parity(in, ODD_ELEM - 1);
}

static void report_corrupt(const soak_round *r, const char *where,
                           const unsigned char *in) {
    char hex[2 * ODD_ELEM + 1];
    for (size_t i = 0; i < r->elem_size; i++) snprintf(hex + 2 * i, 3, "%02x", in[i]);
    stress_ledger_fail(&the_round.ledger, "corrupt message: %s got %s (round %" PRIu64 ")",
                       where, hex, r->number);
}

static uint64_t bit_of(uint32_t p, uint32_t seq) { return (uint64_t)p * SEQ_SPACE + seq; }

/* zc_config.drop_msg of both channels. */
static void drop_msg(void *msg, void *ctx) {
    soak_round *r = &the_round;
    chan_ctx *c = ctx;
    if (!in_receiver_drop)
        stress_ledger_fail(&r->ledger,
                           "drop_msg: called on channel %s outside a "
                           "zc_receiver_drop",
                           ch_names[c->ch]);
    stress_msg m;
    if (!decode(r, msg, &m) || m.producer >= r->producers || m.seq >= SEQ_SPACE) {
        report_corrupt(r, "drop_msg", msg);
        return;
    }
    uint64_t bit = bit_of(m.producer, m.seq);
    /* relaxed: each bit is set by one RMW (a second one sees the first); main reads the
     * bits after every handle is gone, past the joins */
    uint64_t old = atomic_fetch_or_explicit(
        &r->dropped[bit / 64], UINT64_C(1) << (bit % 64), memory_order_relaxed);
    if (old & UINT64_C(1) << (bit % 64))
        stress_ledger_fail(
            &r->ledger, "drop_msg: producer %" PRIu32 " seq %" PRIu32 " disposed of twice",
            m.producer, m.seq);
    atomic_fetch_add_explicit(&c->drops, 1, memory_order_relaxed); /* a count */
}

/* ---- futures ------------------------------------------------------------------------ */

/* The worker's waker: counts, checks that a future of this worker may be registered,
 * and unparks the worker. */
static void counting_wake(void *ctx) {
    worker *w = ctx;
    /* relaxed: the owner stored true before the poll that registered this waker, and the
     * library's registration orders that poll before this call (waker.h, rule 1); false
     * here means a wake after the poll completed or the cancel returned (rule 3) */
    if (!atomic_load_explicit(&w->live, memory_order_relaxed))
        stress_ledger_fail(&the_round.ledger,
                           "waker: %s %u woken after its future "
                           "completed or was cancelled",
                           who(w), w->id);
    count(&w->wakes);
    w->unpark.wake(w->unpark.ctx);
}

static zc_status future_poll(worker *w, future *f) {
    switch (f->kind) {
    case F_SEND:
        return zc_send_poll(&f->u.send, &w->waker);
    case F_RECV:
        return zc_recv_poll(&f->u.recv, &w->waker, f->out);
    case F_SEND_MANY:
        return zc_send_many_poll(&f->u.send_many, &w->waker);
    case F_RECV_MANY:
        return zc_recv_many_poll(&f->u.recv_many, &w->waker, f->out, f->max, &f->got);
    case F_SELECT:
        return zc_select_poll(&f->u.select, &w->waker, &f->index);
    case F_SENDER_CLOSED:
        return zc_sender_closed_poll(&f->u.sender_closed, &w->waker);
    case F_RECEIVER_CLOSED:
        return zc_receiver_closed_poll(&f->u.receiver_closed, &w->waker);
    }
    return ZC_EINVAL;
}

static void future_cancel(worker *w, future *f) {
    set_doing(w, "cancelling a future");
    switch (f->kind) {
    case F_SEND:
        zc_send_cancel(&f->u.send);
        break;
    case F_RECV:
        zc_recv_cancel(&f->u.recv);
        break;
    case F_SEND_MANY:
        zc_send_many_cancel(&f->u.send_many);
        break;
    case F_RECV_MANY:
        zc_recv_many_cancel(&f->u.recv_many);
        break;
    case F_SELECT:
        zc_select_cancel(&f->u.select);
        break;
    case F_SENDER_CLOSED:
        zc_sender_closed_cancel(&f->u.sender_closed);
        break;
    case F_RECEIVER_CLOSED:
        zc_receiver_closed_cancel(&f->u.receiver_closed);
        break;
    }
    /* relaxed: only this thread stores live; see counting_wake */
    atomic_store_explicit(&w->live, false, memory_order_relaxed);
    count_op(w);
    count(&w->cancels);
}

/* Drive f with the counting waker until it completes. While it is pending: park, park
 * for up to 100 µs, or cancel it (p 0.2) at once or after the wake; a cancelled future
 * is started over or given up (ZC_PENDING: it did nothing, except the messages a batch
 * send reports sent). A probe polls once and cancels a pending future. */
static zc_status drive(worker *w, future *f, bool probe) {
    for (;;) {
        atomic_store_explicit(&w->live, true, memory_order_relaxed); /* see counting_wake */
        set_doing(w, "polling a future");
        /* A poll links each node at most once (a wake may come before it returns, even
         * if it then completes) and may wake itself once (waker.h). */
        w->wake_bound += f->nodes + 1;
        zc_status st = future_poll(w, f);
        count_op(w);
        if (st != ZC_PENDING) {
            atomic_store_explicit(&w->live, false, memory_order_relaxed);
            return st;
        }
        if (probe || stress_rng_chance(&w->rng, 0.1)) {
            future_cancel(w, f); /* at once, while it is registered */
            if (probe || stress_rng_chance(&w->rng, 0.5)) return ZC_PENDING;
            continue;
        }
        if (stress_rng_chance(&w->rng, 0.25)) {
            set_doing(w, "parked for a while on a pending future");
            if (zc_parker_park_timeout(&w->parker, 1000 * (1 + below(&w->rng, 100))) ==
                ZC_TIMEDOUT) {
                if (stress_rng_chance(&w->rng, 0.5))
                    continue; /* poll it again, registered */
                future_cancel(w, f);
                if (stress_rng_chance(&w->rng, 0.5)) return ZC_PENDING;
                continue;
            }
        } else {
            set_doing(w, "parked on a pending future");
            zc_parker_park(&w->parker);
        }
        if (stress_rng_chance(&w->rng, 0.1)) {
            future_cancel(w, f); /* after its wake, before polling it again */
            if (stress_rng_chance(&w->rng, 0.5)) return ZC_PENDING;
        }
    }
}

/* ---- handles ------------------------------------------------------------------------ */

/* The sender an operation on ch goes through: usually the worker's own; now and then a
 * fresh clone (*temp, dropped after the operation); now and then the worker swaps its
 * own for a clone and drops the old one. */
static zc_sender *sender_for(worker *w, unsigned ch, zc_sender **temp) {
    *temp = NULL;
    uint64_t d = below(&w->rng, 64);
    if (d > 1) return w->tx[ch];
    zc_sender *c = zc_sender_clone(w->tx[ch]);
    count_op(w);
    count(&w->clones);
    if (c == NULL) {
        stress_ledger_fail(&the_round.ledger, "clone: zc_sender_clone gave NULL");
        return w->tx[ch];
    }
    if (d == 0) return *temp = c;
    zc_sender_drop(w->tx[ch]);
    count_op(w);
    return w->tx[ch] = c;
}

static zc_receiver *receiver_for(worker *w, unsigned ch, zc_receiver **temp) {
    *temp = NULL;
    uint64_t d = below(&w->rng, 64);
    if (d > 1) return w->rx[ch];
    zc_receiver *c = zc_receiver_clone(w->rx[ch]);
    count_op(w);
    count(&w->clones);
    if (c == NULL) {
        stress_ledger_fail(&the_round.ledger, "clone: zc_receiver_clone gave NULL");
        return w->rx[ch];
    }
    if (d == 0) return *temp = c;
    receiver_drop(w->rx[ch]);
    count_op(w);
    return w->rx[ch] = c;
}

/* Check zc_info from a handle the caller holds. */
static void check_info(worker *w, unsigned ch, const zc_info *info, zc_status st) {
    const soak_round *r = &the_round;
    size_t cap = r->cap[ch] ? r->cap[ch] : SIZE_MAX;
    bool held = w->producer ? info->senders >= 1 : info->receivers >= 1;
    if (st != ZC_OK || info->capacity != cap || (r->cap[ch] && info->len > cap) || !held)
        stress_ledger_fail(&the_round.ledger,
                           "info: %s %u on %s got %s, len %zu, capacity %zu (cap %zu), "
                           "senders %zu, receivers %zu",
                           who(w), w->id, ch_names[ch], zc_status_str(st), info->len,
                           info->capacity, cap, info->senders, info->receivers);
}

/* ---- producers ---------------------------------------------------------------------- */

/* May a producer see ZC_CLOSED on ch in this round? */
static bool close_expected(const soak_round *r, unsigned ch) {
    return r->end == END_ABANDON ||
           ((r->end == END_RECEIVER_CLOSE || r->end == END_SENDER_CLOSE) &&
            r->close_ch == ch);
}

/* A producer operation: offer the n messages in w->buf[CH_A] (n may be 0: a probe)
 * through tx, a sender of A; store how many were sent (the first *sent) and the channel
 * the status belongs to in w->op_ch (CH_A unless the operation says otherwise).
 * ZC_PENDING: nothing happened (a future given up, a probe). */
typedef zc_status (*send_fn)(worker *w, zc_sender *const *tx, size_t n, size_t *sent);

static zc_status send_blocking(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    set_doing(w, "zc_send_blocking");
    zc_status st = zc_send_blocking(tx[CH_A], w->buf[CH_A]);
    *sent = st == ZC_OK;
    return st;
}

static zc_status send_timeout(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    set_doing(w, "zc_send_timeout");
    zc_status st = zc_send_timeout(tx[CH_A], w->buf[CH_A], draw_timeout_ns(w));
    *sent = st == ZC_OK;
    return st;
}

static zc_status try_send(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    set_doing(w, "zc_try_send");
    zc_status st = zc_try_send(tx[CH_A], w->buf[CH_A]);
    *sent = st == ZC_OK;
    return st;
}

static zc_status send_future(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    future f = {.kind = F_SEND, .nodes = 1};
    zc_send_init(&f.u.send, tx[CH_A], w->buf[CH_A]);
    zc_status st = drive(w, &f, false);
    *sent = st == ZC_OK;
    return st;
}

/* ZC_ALL_OR_NOTHING now and then, where n fits the capacity. */
static unsigned draw_flags(worker *w, size_t n) {
    size_t cap = the_round.cap[CH_A];
    return (cap == 0 || n <= cap) && below(&w->rng, 4) == 0 ? ZC_ALL_OR_NOTHING : 0;
}

static zc_status try_send_many(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    set_doing(w, "zc_try_send_many");
    return zc_try_send_many(tx[CH_A], w->buf[CH_A], n, sent, draw_flags(w, n));
}

static zc_status send_many_blocking(worker *w, zc_sender *const *tx, size_t n,
                                    size_t *sent) {
    set_doing(w, "zc_send_many_blocking");
    return zc_send_many_blocking(tx[CH_A], w->buf[CH_A], n, sent, draw_flags(w, n));
}

static zc_status send_many_timeout(worker *w, zc_sender *const *tx, size_t n,
                                   size_t *sent) {
    set_doing(w, "zc_send_many_timeout");
    return zc_send_many_timeout(tx[CH_A], w->buf[CH_A], n, sent, draw_flags(w, n),
                                draw_timeout_ns(w));
}

static zc_status send_many_future(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    future f = {.kind = F_SEND_MANY, .nodes = 1};
    zc_send_many_init(&f.u.send_many, tx[CH_A], w->buf[CH_A], n, draw_flags(w, n));
    zc_status st = drive(w, &f, false);
    *sent = zc_send_many_sent(&f.u.send_many);
    return st;
}

/* One message into A (through tx) or B, whichever has room: blocking, with a timeout,
 * or as a future. Both cases offer the same bytes: a duplicate would show. */
static zc_status send_select(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    zc_select_case cases[CHANNELS];
    zc_select_send_case(&cases[CH_A], tx[CH_A], w->buf[CH_A]);
    zc_select_send_case(&cases[CH_B], tx[CH_B], w->buf[CH_A]);
    unsigned flags = below(&w->rng, 4) == 0 ? ZC_SELECT_ORDERED : 0;
    size_t index = CHANNELS;
    zc_status st;
    switch (below(&w->rng, 3)) {
    case 0:
        set_doing(w, "zc_select_blocking (send)");
        st = zc_select_blocking(cases, CHANNELS, flags, &index);
        break;
    case 1:
        set_doing(w, "zc_select_timeout (send)");
        st = zc_select_timeout(cases, CHANNELS, flags, draw_timeout_ns(w), &index);
        break;
    default: {
        future f = {.kind = F_SELECT, .nodes = CHANNELS};
        zc_select_init(&f.u.select, cases, CHANNELS, flags);
        st = drive(w, &f, false);
        index = f.index;
    }
    }
    if ((st == ZC_OK || st == ZC_CLOSED) && index >= CHANNELS) {
        stress_ledger_fail(&the_round.ledger, "select: send gave %s with index %zu",
                           zc_status_str(st), index);
        st = ZC_EINVAL;
    }
    w->op_ch = st == ZC_OK || st == ZC_CLOSED ? (unsigned)index : CH_A;
    *sent = st == ZC_OK;
    return st;
}

/* Poll a zc_sender_closed future once; ZC_CLOSED if it completed (the channel is
 * closed), else (cancelled) ZC_PENDING. */
static zc_status sender_closed_probe(worker *w, zc_sender *const *tx, size_t n,
                                     size_t *sent) {
    (void)n;
    *sent = 0;
    future f = {.kind = F_SENDER_CLOSED, .nodes = 1};
    zc_sender_closed_init(&f.u.sender_closed, tx[CH_A]);
    zc_status st = drive(w, &f, true);
    if (st == ZC_OK) {
        zc_info info;
        if (zc_sender_info(tx[CH_A], &info) != ZC_OK || !info.closed)
            stress_ledger_fail(&the_round.ledger,
                               "closed: producer %u's zc_sender_closed "
                               "completed on an open channel",
                               w->id);
        return ZC_CLOSED;
    }
    return st;
}

static zc_status sender_info(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    *sent = 0;
    zc_info info;
    set_doing(w, "zc_sender_info");
    check_info(w, CH_A, &info, zc_sender_info(tx[CH_A], &info));
    return ZC_PENDING;
}

/* The two-phase send: reserve a place (try, with a timeout, or blocking), then release
 * it now and then (nothing sent: ZC_PENDING), else commit the message into it. A commit
 * says ZC_CLOSED only if the last receiver's drop abandoned the place. */
static zc_status send_permit(worker *w, zc_sender *const *tx, size_t n, size_t *sent) {
    (void)n;
    zc_permit p;
    zc_status st;
    *sent = 0;
    switch (below(&w->rng, 3)) {
    case 0:
        set_doing(w, "zc_try_reserve");
        st = zc_try_reserve(tx[CH_A], &p);
        break;
    case 1:
        set_doing(w, "zc_reserve_timeout");
        st = zc_reserve_timeout(tx[CH_A], &p, draw_timeout_ns(w));
        break;
    default:
        set_doing(w, "zc_reserve_blocking");
        st = zc_reserve_blocking(tx[CH_A], &p);
        break;
    }
    if (st != ZC_OK) return st;
    if (below(&w->rng, 4) == 0) {
        set_doing(w, "zc_permit_release");
        st = zc_permit_release(&p);
        return st == ZC_OK ? ZC_PENDING : st;
    }
    set_doing(w, "zc_permit_commit");
    st = zc_permit_commit(&p, w->buf[CH_A]);
    *sent = st == ZC_OK;
    return st;
}

/* The producer operations and how often each is drawn. A new kind of send is one more
 * function of type send_fn and one more line here. */
static const struct {
    send_fn run;
    unsigned weight;
    size_t max_n; /* messages offered: 1, up to MAX_BATCH, or 0 (sends nothing) */
} producer_ops[] = {
    {send_blocking, 4, 1},
    {send_timeout, 3, 1},
    {try_send, 3, 1},
    {send_future, 4, 1},
    {try_send_many, 2, MAX_BATCH},
    {send_many_blocking, 2, MAX_BATCH},
    {send_many_timeout, 2, MAX_BATCH},
    {send_many_future, 2, MAX_BATCH},
    {send_select, 3, 1},
    {send_permit, 3, 1},
    {sender_closed_probe, 1, 0},
    {sender_info, 1, 0},
};
#define NPRODUCER_OPS (sizeof producer_ops / sizeof producer_ops[0])

/* Book one producer operation: mark what was sent, stop at ZC_CLOSED, and either give up
 * the messages that were not sent or offer them again next time. */
static void settle_send(worker *w, size_t n, size_t sent, zc_status st) {
    soak_round *r = &the_round;
    if (sent > n || (st == ZC_OK && sent != n)) {
        stress_ledger_fail(&r->ledger,
                           "send: producer %u offered %zu, got %s with %zu sent", w->id, n,
                           zc_status_str(st), sent);
        sent = sent > n ? n : sent;
    }
    for (size_t i = 0; i < sent; i++) {
        uint64_t bit = bit_of(w->id, w->next_seq + (uint32_t)i);
        r->sent[bit / 64] |= UINT64_C(1) << (bit % 64);
    }
    w->sent += sent;
    w->next_seq += (uint32_t)sent;
    switch (st) {
    case ZC_OK:
        return;
    case ZC_CLOSED:
        if (!close_expected(r, w->op_ch))
            stress_ledger_fail(&r->ledger,
                               "close: producer %u got ZC_CLOSED on %s, which "
                               "nobody closes in a '%s' round",
                               w->id, ch_names[w->op_ch], ending_names[r->end]);
        w->stop = true;
        return;
    case ZC_TIMEDOUT:
        count(&w->timeouts);
        break;
    case ZC_FULL:
        sched_yield();
        break;
    case ZC_PENDING:
        break;
    default:
        stress_ledger_fail(&r->ledger, "send: producer %u got %s", w->id,
                           zc_status_str(st));
        w->stop = true;
        return;
    }
    if (n > sent && stress_rng_chance(&w->rng, 0.5)) w->next_seq += (uint32_t)(n - sent);
}

static void producer_step(worker *w) {
    soak_round *r = &the_round;
    unsigned total = 0;
    for (size_t i = 0; i < NPRODUCER_OPS; i++) total += producer_ops[i].weight;
    uint64_t pick = below(&w->rng, total);
    size_t k = 0;
    while (pick >= producer_ops[k].weight) pick -= producer_ops[k++].weight;
    size_t n = producer_ops[k].max_n;
    if (n > 1) n = 1 + below(&w->rng, n);
    if (n > r->budget - w->next_seq) n = r->budget - w->next_seq;
    for (size_t i = 0; i < n; i++)
        encode(r, w->id, w->next_seq + (uint32_t)i, w->buf[CH_A] + i * r->elem_size);
    zc_sender *tx[CHANNELS], *temp[CHANNELS];
    for (unsigned ch = 0; ch < CHANNELS; ch++) tx[ch] = sender_for(w, ch, &temp[ch]);
    size_t sent = 0;
    w->op_ch = CH_A;
    zc_status st = producer_ops[k].run(w, tx, n, &sent);
    count_op(w);
    for (unsigned ch = 0; ch < CHANNELS; ch++) {
        if (temp[ch] == NULL) continue;
        zc_sender_drop(temp[ch]);
        count_op(w);
    }
    settle_send(w, n, sent, st);
}

static void *producer_main(void *arg) {
    worker *w = arg;
    soak_round *r = &the_round;
    stress_gate_wait(&r->gate);
    for (unsigned step = 0; !w->stop && w->next_seq < r->budget; step++) {
        if (step % 16 == 0 && stress_now_s() > r->deadline) break;
        if (r->end == END_SENDER_CLOSE && w->id == 0 && !w->acted &&
            w->sent >= w->trigger) {
            w->acted = true;
            set_doing(w, "zc_sender_close");
            count_op(w);
            if (zc_sender_close(w->tx[r->close_ch]))
                count(&w->closes);
            else
                stress_ledger_fail(&r->ledger,
                                   "close: zc_sender_close found %s already "
                                   "closed",
                                   ch_names[r->close_ch]);
        }
        producer_step(w);
    }
    set_doing(w, "dropping its senders");
    /* [S1] release: pairs with the acquire in consumer_closed */
    atomic_fetch_add_explicit(&r->producers_done, 1, memory_order_release);
    for (unsigned ch = 0; ch < CHANNELS; ch++) {
        zc_sender_drop(w->tx[ch]);
        count_op(w);
        w->tx[ch] = NULL;
    }
    set_doing(w, "done");
    return NULL;
}

/* ---- consumers ---------------------------------------------------------------------- */

/* A consumer operation: receive up to max messages from channel ch through rx into
 * w->buf[ch]... or, for a select, from either channel into its own buffer; store the
 * count in *got and the channel in w->op_ch. ZC_PENDING: nothing happened. */
typedef zc_status (*recv_fn)(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                             size_t *got);

static zc_status recv_blocking(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                               size_t *got) {
    (void)max;
    set_doing(w, "zc_recv_blocking");
    zc_status st = zc_recv_blocking(rx[ch], w->buf[ch]);
    *got = st == ZC_OK;
    return st;
}

static zc_status recv_timeout(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                              size_t *got) {
    (void)max;
    set_doing(w, "zc_recv_timeout");
    zc_status st = zc_recv_timeout(rx[ch], w->buf[ch], draw_timeout_ns(w));
    *got = st == ZC_OK;
    return st;
}

static zc_status try_recv(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                          size_t *got) {
    (void)max;
    set_doing(w, "zc_try_recv");
    zc_status st = zc_try_recv(rx[ch], w->buf[ch]);
    *got = st == ZC_OK;
    return st;
}

static zc_status recv_future(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                             size_t *got) {
    (void)max;
    future f = {.kind = F_RECV, .out = w->buf[ch], .nodes = 1};
    zc_recv_init(&f.u.recv, rx[ch]);
    zc_status st = drive(w, &f, false);
    *got = st == ZC_OK;
    return st;
}

static zc_status try_recv_many(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                               size_t *got) {
    set_doing(w, "zc_try_recv_many");
    return zc_try_recv_many(rx[ch], w->buf[ch], max, got);
}

static zc_status recv_many_blocking(worker *w, unsigned ch, zc_receiver *const *rx,
                                    size_t max, size_t *got) {
    set_doing(w, "zc_recv_many_blocking");
    return zc_recv_many_blocking(rx[ch], w->buf[ch], max, got);
}

static zc_status recv_many_timeout(worker *w, unsigned ch, zc_receiver *const *rx,
                                   size_t max, size_t *got) {
    set_doing(w, "zc_recv_many_timeout");
    return zc_recv_many_timeout(rx[ch], w->buf[ch], max, got, draw_timeout_ns(w));
}

static zc_status recv_many_future(worker *w, unsigned ch, zc_receiver *const *rx,
                                  size_t max, size_t *got) {
    future f = {.kind = F_RECV_MANY, .out = w->buf[ch], .max = max, .nodes = 1};
    zc_recv_many_init(&f.u.recv_many, rx[ch]);
    zc_status st = drive(w, &f, false);
    *got = st == ZC_OK ? f.got : 0;
    return st;
}

/* One message from A (through rx when ch is A) or B, each into its own buffer; a
 * channel this consumer saw closed is a disabled case. */
static zc_status recv_select(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                             size_t *got) {
    (void)max;
    zc_select_case cases[CHANNELS];
    unsigned live = 0;
    for (unsigned c = 0; c < CHANNELS; c++) {
        zc_receiver *h = w->done[c] ? NULL : rx[c];
        zc_select_recv_case(&cases[c], h, w->buf[c]);
        live += h != NULL;
    }
    unsigned flags = below(&w->rng, 4) == 0 ? ZC_SELECT_ORDERED : 0;
    size_t index = CHANNELS;
    zc_status st;
    switch (below(&w->rng, 3)) {
    case 0:
        set_doing(w, "zc_select_blocking (receive)");
        st = zc_select_blocking(cases, CHANNELS, flags, &index);
        break;
    case 1:
        set_doing(w, "zc_select_timeout (receive)");
        st = zc_select_timeout(cases, CHANNELS, flags, draw_timeout_ns(w), &index);
        break;
    default: {
        future f = {.kind = F_SELECT, .nodes = live};
        zc_select_init(&f.u.select, cases, CHANNELS, flags);
        st = drive(w, &f, false);
        index = f.index;
    }
    }
    if ((st == ZC_OK || st == ZC_CLOSED) && (index >= CHANNELS || w->done[index])) {
        stress_ledger_fail(&the_round.ledger, "select: receive gave %s with index %zu",
                           zc_status_str(st), index);
        st = ZC_EINVAL;
    }
    w->op_ch = st == ZC_OK || st == ZC_CLOSED ? (unsigned)index : ch;
    *got = st == ZC_OK;
    return st;
}

/* Poll a zc_receiver_closed future once (messages may still be held when it completes). */
static zc_status receiver_closed_probe(worker *w, unsigned ch, zc_receiver *const *rx,
                                       size_t max, size_t *got) {
    (void)max;
    *got = 0;
    future f = {.kind = F_RECEIVER_CLOSED, .nodes = 1};
    zc_receiver_closed_init(&f.u.receiver_closed, rx[ch]);
    zc_status st = drive(w, &f, true);
    if (st == ZC_OK) {
        zc_info info;
        if (zc_receiver_info(rx[ch], &info) != ZC_OK || !info.closed)
            stress_ledger_fail(&the_round.ledger,
                               "closed: consumer %u's zc_receiver_closed "
                               "completed on an open channel %s",
                               w->id, ch_names[ch]);
        return ZC_PENDING;
    }
    return st;
}

static zc_status receiver_info(worker *w, unsigned ch, zc_receiver *const *rx, size_t max,
                               size_t *got) {
    (void)max;
    *got = 0;
    zc_info info;
    set_doing(w, "zc_receiver_info");
    check_info(w, ch, &info, zc_receiver_info(rx[ch], &info));
    return ZC_PENDING;
}

static const struct {
    recv_fn run;
    unsigned weight;
    size_t max_n; /* messages asked for: 1, up to MAX_BATCH, or 0 (takes nothing) */
} consumer_ops[] = {
    {recv_blocking, 4, 1},
    {recv_timeout, 3, 1},
    {try_recv, 3, 1},
    {recv_future, 4, 1},
    {try_recv_many, 2, MAX_BATCH},
    {recv_many_blocking, 2, MAX_BATCH},
    {recv_many_timeout, 2, MAX_BATCH},
    {recv_many_future, 2, MAX_BATCH},
    {recv_select, 4, 1},
    {receiver_closed_probe, 1, 0},
    {receiver_info, 1, 0},
};
#define NCONSUMER_OPS (sizeof consumer_ops / sizeof consumer_ops[0])

/* ZC_CLOSED on ch: closed and drained for good. */
static void consumer_closed(worker *w, unsigned ch) {
    soak_round *r = &the_round;
    w->done[ch] = true;
    bool closed_by_call =
        (r->end == END_RECEIVER_CLOSE || r->end == END_SENDER_CLOSE) && r->close_ch == ch;
    if (!closed_by_call) {
        /* [S1] acquire: pairs with the release in producer_main */
        unsigned gone = atomic_load_explicit(&r->producers_done, memory_order_acquire);
        if (gone != r->producers)
            stress_ledger_fail(&r->ledger,
                               "close: consumer %u got ZC_CLOSED on %s with %u "
                               "of %" PRIu32 " producers still sending",
                               w->id, ch_names[ch], r->producers - gone, r->producers);
    }
    zc_status st = zc_try_recv(w->rx[ch], w->buf[ch]);
    count_op(w);
    if (st != ZC_CLOSED)
        stress_ledger_fail(&r->ledger, "close: consumer %u got %s from %s after ZC_CLOSED",
                           w->id, zc_status_str(st), ch_names[ch]);
}

static void settle_recv(worker *w, size_t max, size_t got, zc_status st) {
    soak_round *r = &the_round;
    unsigned ch = w->op_ch;
    if (st == ZC_OK && (got == 0 || got > max)) {
        stress_ledger_fail(&r->ledger, "recv: consumer %u asked %zu, got ZC_OK with %zu",
                           w->id, max, got);
        got = got > max ? max : got;
    }
    switch (st) {
    case ZC_OK:
        for (size_t i = 0; i < got; i++) {
            const unsigned char *in = w->buf[ch] + i * r->elem_size;
            stress_msg m;
            if (decode(r, in, &m))
                stress_ledger_take(&r->ledger, w->next_min[ch], &m, "consumer", w->id);
            else
                report_corrupt(r, "a consumer", in);
        }
        w->received += got;
        return;
    case ZC_CLOSED:
        consumer_closed(w, ch);
        return;
    case ZC_EMPTY:
        sched_yield();
        return;
    case ZC_TIMEDOUT:
        count(&w->timeouts);
        return;
    case ZC_PENDING:
        return;
    default:
        stress_ledger_fail(&r->ledger, "recv: consumer %u got %s on %s", w->id,
                           zc_status_str(st), ch_names[ch]);
        w->done[CH_A] = w->done[CH_B] = true;
    }
}

static void consumer_step(worker *w) {
    unsigned total = 0;
    for (size_t i = 0; i < NCONSUMER_OPS; i++) total += consumer_ops[i].weight;
    uint64_t pick = below(&w->rng, total);
    size_t k = 0;
    while (pick >= consumer_ops[k].weight) pick -= consumer_ops[k++].weight;
    size_t max = consumer_ops[k].max_n;
    if (max > 1) max = 1 + below(&w->rng, max);
    /* B only through selects while A is open (see the opening comment) */
    unsigned ch = w->done[CH_A] ? CH_B : CH_A;
    zc_receiver *rx[CHANNELS], *temp[CHANNELS];
    for (unsigned c = 0; c < CHANNELS; c++) rx[c] = receiver_for(w, c, &temp[c]);
    size_t got = 0;
    w->op_ch = ch;
    zc_status st = consumer_ops[k].run(w, ch, rx, max, &got);
    count_op(w);
    for (unsigned c = 0; c < CHANNELS; c++) {
        if (temp[c] == NULL) continue;
        receiver_drop(temp[c]);
        count_op(w);
    }
    settle_recv(w, max, got, st);
}

static void *consumer_main(void *arg) {
    worker *w = arg;
    soak_round *r = &the_round;
    stress_gate_wait(&r->gate);
    while (!w->done[CH_A] || !w->done[CH_B]) {
        if (r->end == END_ABANDON && w->received >= w->trigger) {
            w->left = true;
            break;
        }
        if (r->end == END_RECEIVER_CLOSE && w->id == 0 && !w->acted &&
            w->received >= w->trigger) {
            w->acted = true;
            set_doing(w, "zc_receiver_close");
            count_op(w);
            if (zc_receiver_close(w->rx[r->close_ch])) count(&w->closes);
        }
        consumer_step(w);
    }
    set_doing(w, "dropping its receivers");
    for (unsigned ch = 0; ch < CHANNELS; ch++) {
        receiver_drop(w->rx[ch]);
        count_op(w);
        w->rx[ch] = NULL;
    }
    set_doing(w, "done");
    return NULL;
}

/* ---- rounds ------------------------------------------------------------------------- */

static uint64_t progress(void *ctx) {
    (void)ctx;
    uint64_t sum = atomic_load_explicit(&rounds_started, memory_order_relaxed);
    for (unsigned i = 0; i < MAX_WORKERS; i++)
        sum += atomic_load_explicit(&workers[i].ops, memory_order_relaxed);
    return sum;
}

static void dump(void *ctx) {
    (void)ctx;
    const soak_round *r = &the_round;
    fprintf(stderr,
            "round %" PRIu64 ": P=%" PRIu32 " C=%" PRIu32 " elem=%zu capA=%zu capB=%zu "
            "(0: unbounded) budget=%" PRIu32 " ending=%s close=%s\n",
            r->number, r->producers, r->consumers, r->elem_size, r->cap[CH_A], r->cap[CH_B],
            r->budget, ending_names[r->end], ch_names[r->close_ch]);
    for (unsigned i = 0; i < r->producers + r->consumers; i++) {
        worker *w = &workers[i];
        fprintf(stderr, "  %s %u: %" PRIu64 " ops, %" PRIu64 " cancels, in %s\n", who(w),
                w->id, atomic_load_explicit(&w->ops, memory_order_relaxed),
                atomic_load_explicit(&w->cancels, memory_order_relaxed),
                atomic_load_explicit(&w->doing, memory_order_relaxed));
    }
}

typedef struct totals {
    uint64_t rounds, sent, received, dropped, failures;
    uint64_t handouts; /* handles main cloned for the workers */
} totals;

/* After the joins: every message reported sent was received or disposed of, once. */
static void verdict(soak_round *r, totals *t) {
    stress_ledger *l = &r->ledger;
    uint64_t sent = 0, received = 0, dropped = 0;
    for (uint32_t p = 0; p < r->producers; p++) {
        for (uint32_t seq = 0; seq < SEQ_SPACE; seq++) {
            uint64_t bit = bit_of(p, seq), mask = UINT64_C(1) << (bit % 64);
            bool s = r->sent[bit / 64] & mask;
            /* relaxed: every writer has been joined (or dropped its last handle) */
            bool rv = atomic_load_explicit(&l->bits[bit / 64], memory_order_relaxed) & mask;
            bool d =
                atomic_load_explicit(&r->dropped[bit / 64], memory_order_relaxed) & mask;
            sent += s;
            received += rv;
            dropped += d;
            if (s && rv && d)
                stress_ledger_fail(l,
                                   "exactly-once: producer %" PRIu32 " seq %" PRIu32
                                   " was received and disposed of",
                                   p, seq);
            else if (s && !rv && !d)
                stress_ledger_fail(l,
                                   "exactly-once: producer %" PRIu32 " seq %" PRIu32
                                   " was sent but neither received nor disposed of",
                                   p, seq);
            else if (!s && (rv || d))
                stress_ledger_fail(l,
                                   "exactly-once: producer %" PRIu32 " seq %" PRIu32
                                   " was %s though no send reported it sent",
                                   p, seq, rv ? "received" : "disposed of");
        }
    }
    bool left = false;
    for (unsigned i = 0; i < r->producers + r->consumers; i++) {
        worker *w = &workers[i];
        left |= w->left;
        uint64_t wakes = atomic_load_explicit(&w->wakes, memory_order_relaxed);
        if (wakes > w->wake_bound)
            stress_ledger_fail(l,
                               "waker: %s %u was woken %" PRIu64 " times; its polls allow "
                               "%" PRIu64,
                               who(w), w->id, wakes, w->wake_bound);
    }
    uint64_t drops = 0;
    for (unsigned ch = 0; ch < CHANNELS; ch++)
        drops += atomic_load_explicit(&r->chan[ch].drops, memory_order_relaxed);
    if (!left && drops)
        stress_ledger_fail(l,
                           "close: drop_msg disposed of %" PRIu64 " messages though every "
                           "consumer drained both channels to ZC_CLOSED",
                           drops);
    t->sent += sent;
    t->received += received;
    t->dropped += dropped;
    t->failures += atomic_load_explicit(&l->reports, memory_order_relaxed);
}

/* Make a channel of round r with the given capacity; exits if that fails. */
static void make_channel(soak_round *r, unsigned ch, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {
        .elem_size = r->elem_size, .drop_msg = drop_msg, .drop_ctx = &r->chan[ch]};
    zc_status st =
        r->cap[ch] ? zc_bounded(r->cap[ch], &cfg, tx, rx) : zc_unbounded(&cfg, tx, rx);
    if (st != ZC_OK) {
        fprintf(stderr, "FAIL: creating channel %s gave %s\n", ch_names[ch],
                zc_status_str(st));
        exit(1);
    }
}

static void run_round(uint64_t number, uint64_t *rng, double end, totals *t) {
    soak_round *r = &the_round;
    r->number = number;
    r->tag = (uint32_t)stress_rng_seed(number, 0x50a4);
    r->cap[CH_A] = caps[number % NCAPS];
    r->cap[CH_B] = caps[below(rng, NCAPS)];
    r->elem_size = number / NCAPS % 2 ? ODD_ELEM : SMALL_ELEM;
    r->producers = 1 + (uint32_t)below(rng, MAX_PRODUCERS);
    r->consumers = 1 + (uint32_t)below(rng, MAX_CONSUMERS);
    r->budget = 64 + (uint32_t)below(rng, SEQ_SPACE - 64);
    uint64_t e = below(rng, 10);
    r->end = e < 4   ? END_NORMAL
             : e < 6 ? END_RECEIVER_CLOSE
             : e < 8 ? END_SENDER_CLOSE
                     : END_ABANDON;
    r->close_ch = below(rng, 4) == 0 ? CH_B : CH_A;
    double now = stress_now_s();
    r->deadline = now + 0.1 + 0.9 * (double)below(rng, 1000) / 1000;
    if (r->deadline > end) r->deadline = end;
    stress_ledger_init(&r->ledger, r->producers, SEQ_SPACE);
    size_t words = (size_t)r->producers * SEQ_SPACE / 64;
    r->sent = calloc(words, sizeof *r->sent);
    r->dropped = calloc(words, sizeof *r->dropped);
    if (r->sent == NULL || r->dropped == NULL) {
        fprintf(stderr, "soak: out of memory\n");
        exit(2);
    }
    for (unsigned ch = 0; ch < CHANNELS; ch++) {
        r->chan[ch].ch = ch;
        atomic_init(&r->chan[ch].drops, 0);
    }
    stress_gate_init(&r->gate);
    atomic_init(&r->producers_done, 0);

    zc_sender *tx[CHANNELS];
    zc_receiver *rx[CHANNELS];
    for (unsigned ch = 0; ch < CHANNELS; ch++) make_channel(r, ch, &tx[ch], &rx[ch]);
    uint64_t main_clones = 0;
    unsigned threads = r->producers + r->consumers;
    for (unsigned i = 0; i < threads; i++) {
        worker *w = &workers[i];
        w->producer = i < r->producers;
        w->id = w->producer ? i : i - r->producers;
        for (unsigned ch = 0; ch < CHANNELS; ch++) {
            w->tx[ch] = w->producer ? zc_sender_clone(tx[ch]) : NULL;
            w->rx[ch] = w->producer ? NULL : zc_receiver_clone(rx[ch]);
            w->done[ch] = false;
            main_clones++;
        }
        w->next_seq = 0;
        w->sent = w->received = w->wake_bound = 0;
        /* producers: messages sent; consumers: received (a share of the messages) */
        w->trigger = below(
            &w->rng, w->producer ? r->budget
                                 : (uint64_t)r->budget * r->producers / r->consumers + 1);
        w->acted = w->stop = w->left = false;
        memset(w->next_min, 0, sizeof w->next_min);
        atomic_store_explicit(&w->wakes, 0, memory_order_relaxed); /* no thread runs */
        set_doing(w, "waiting at the start gate");
    }
    /* From here the workers hold the only handles. */
    for (unsigned ch = 0; ch < CHANNELS; ch++) {
        zc_sender_drop(tx[ch]);
        receiver_drop(rx[ch]);
    }
    t->handouts += main_clones;
    atomic_fetch_add_explicit(&rounds_started, 1, memory_order_relaxed); /* progress */

    for (unsigned i = 0; i < threads; i++) {
        worker *w = &workers[i];
        if (pthread_create(&w->thread, NULL, w->producer ? producer_main : consumer_main,
                           w)) {
            fprintf(stderr, "soak: cannot create thread %u\n", i);
            exit(2);
        }
    }
    stress_gate_open(&r->gate);
    for (unsigned i = 0; i < threads; i++) pthread_join(workers[i].thread, NULL);

    verdict(r, t);
    t->rounds++;
    if (atomic_load_explicit(&r->ledger.reports, memory_order_relaxed)) dump(NULL);
    stress_gate_destroy(&r->gate);
    stress_ledger_free(&r->ledger);
    free(r->sent);
    free((void *)r->dropped);
    r->sent = NULL;
    r->dropped = NULL;
}

static void print_totals(FILE *to, const char *prefix, double elapsed, const totals *t) {
    uint64_t ops = 0, cancels = 0, timeouts = 0, closes = 0, clones = t->handouts;
    for (unsigned i = 0; i < MAX_WORKERS; i++) {
        const worker *w = &workers[i];
        /* relaxed: statistics, read between rounds (after the joins) */
        ops += atomic_load_explicit(&w->ops, memory_order_relaxed);
        cancels += atomic_load_explicit(&w->cancels, memory_order_relaxed);
        timeouts += atomic_load_explicit(&w->timeouts, memory_order_relaxed);
        closes += atomic_load_explicit(&w->closes, memory_order_relaxed);
        clones += atomic_load_explicit(&w->clones, memory_order_relaxed);
    }
    fprintf(to,
            "%s%.0f s, rounds %" PRIu64 ", messages %" PRIu64 " (received %" PRIu64
            ", disposed of %" PRIu64 "), ops %" PRIu64 ", cancels %" PRIu64
            ", timeouts %" PRIu64 ", closes %" PRIu64 ", clones %" PRIu64
            ", failures %" PRIu64 "\n",
            prefix, elapsed, t->rounds, t->sent, t->received, t->dropped, ops, cancels,
            timeouts, closes, clones, t->failures);
    fflush(to);
}

static uint64_t env_num(const char *name, uint64_t fallback, uint64_t min, uint64_t max) {
    const char *s = getenv(name);
    return s && *s ? stress_arg_num(name, s, min, max) : fallback;
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: [ZCHAN_SOAK_SECONDS=S] [ZCHAN_SOAK_SEED=N] soak\n");
        return 2;
    }
    uint64_t seconds = env_num("ZCHAN_SOAK_SECONDS", 5, 1, UINT64_C(1) << 32);
    uint64_t seed = env_num("ZCHAN_SOAK_SEED", (uint64_t)time(NULL), 0, UINT64_MAX);
    printf("soak starting: %" PRIu64 " s, seed %" PRIu64 ", hooks %s\n", seconds, seed,
           ZCHAN_TEST_HOOKS ? "compiled in" : "off");
    fflush(stdout);

    for (unsigned i = 0; i < MAX_WORKERS; i++) {
        worker *w = &workers[i];
        w->rng = stress_rng_seed(seed, i + 1);
        zc_parker_init(&w->parker);
        w->unpark = zc_parker_waker(&w->parker);
        w->waker = (zc_waker){counting_wake, w};
        atomic_init(&w->live, false);
        atomic_init(&w->doing, "not started");
    }
    uint64_t rng = stress_rng_seed(seed, 0);
    stress_watchdog wd = {.progress = progress, .dump = dump, .stall_s = STALL_S};
    stress_watchdog_start(&wd);

    totals t = {0};
    double start = stress_now_s(), end = start + (double)seconds, next_report = start + 60;
    for (uint64_t number = 0; t.failures == 0 && stress_now_s() < end; number++) {
        run_round(number, &rng, end, &t);
        double now = stress_now_s();
        if (now >= next_report && now < end) {
            print_totals(stdout, "soak progress: ", now - start, &t);
            next_report += 60;
        }
    }
    stress_watchdog_stop(&wd);
    for (unsigned i = 0; i < MAX_WORKERS; i++) zc_parker_destroy(&workers[i].parker);
    print_totals(stdout, "soak: ", stress_now_s() - start, &t);
    return t.failures ? 1 : 0;
}

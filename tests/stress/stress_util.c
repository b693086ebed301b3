/*
 * stress_util.c: ledger, watchdog, start gate, generator and scale of the stress
 * programs (see stress_util.h).
 *
 * The ledger's bitmap is updated with relaxed fetch_or: each bit is set by one RMW, so
 * two receptions of one message always see each other (RMWs on one word are totally
 * ordered), and the final reading follows pthread_join, which orders it after every
 * update. Relaxed also adds no happens-before edge between consumers that could hide a
 * missing one in the channel from ThreadSanitizer.
 */
#define _POSIX_C_SOURCE 200809L

#include "stress_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Print at most this many violation lines; the verdict still counts them all. */
#define MAX_REPORTS 20

static uint64_t mix64(uint64_t x) {
    /* splitmix64's finaliser: every input bit changes about half the output bits */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "stress: out of memory (%zu x %zu bytes)\n", n, size);
        exit(2);
    }
    return p;
}

static uint64_t msg_check(uint32_t producer, uint32_t seq) {
    return mix64(((uint64_t)producer << 32 | seq) ^ 0x7a6368616e5f7374u);
}

stress_msg stress_msg_make(uint32_t producer, uint32_t seq) {
    return (stress_msg){
        .producer = producer, .seq = seq, .check = msg_check(producer, seq)};
}

void stress_ledger_init(stress_ledger *l, uint32_t producers, uint32_t per_producer) {
    uint64_t total = (uint64_t)producers * per_producer;
    l->producers = producers;
    l->per_producer = per_producer;
    l->bits = xcalloc((size_t)(total / 64 + 1), sizeof *l->bits);
    atomic_init(&l->reports, 0);
}

void stress_ledger_free(stress_ledger *l) {
    free(l->bits);
    l->bits = NULL;
}

uint32_t *stress_order_new(const stress_ledger *l) {
    return xcalloc(l->producers, sizeof(uint32_t));
}

void stress_ledger_fail(stress_ledger *l, const char *fmt, ...) {
    /* relaxed: a count; the verdict reads it after pthread_join */
    unsigned long n = atomic_fetch_add_explicit(&l->reports, 1, memory_order_relaxed);
    if (n >= MAX_REPORTS) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool stress_ledger_take(stress_ledger *l, uint32_t *next_min, const stress_msg *m,
                        const char *who, unsigned who_id) {
    if (m->producer >= l->producers || m->seq >= l->per_producer ||
        m->check != msg_check(m->producer, m->seq)) {
        stress_ledger_fail(l,
                           "corrupt message: %s %u received {producer %" PRIu32
                           ", seq %" PRIu32 ", check %016" PRIx64 "}",
                           who, who_id, m->producer, m->seq, m->check);
        return false;
    }
    bool ok = true;
    uint64_t bit = (uint64_t)m->producer * l->per_producer + m->seq;
    /* relaxed: see the file comment */
    uint64_t old = atomic_fetch_or_explicit(&l->bits[bit / 64], UINT64_C(1) << (bit % 64),
                                            memory_order_relaxed);
    if (old & UINT64_C(1) << (bit % 64)) {
        stress_ledger_fail(l,
                           "exactly-once: %s %u received producer %" PRIu32 " seq %" PRIu32
                           " a second time",
                           who, who_id, m->producer, m->seq);
        ok = false;
    }
    if (m->seq < next_min[m->producer]) {
        stress_ledger_fail(l,
                           "per-producer order: %s %u received producer %" PRIu32
                           " seq %" PRIu32 " after seq %" PRIu32,
                           who, who_id, m->producer, m->seq, next_min[m->producer] - 1);
        ok = false;
    } else {
        next_min[m->producer] = m->seq + 1;
    }
    return ok;
}

bool stress_ledger_verdict(stress_ledger *l, uint64_t received) {
    bool ok = true;
    uint64_t expected = (uint64_t)l->producers * l->per_producer;
    uint64_t missing = 0;
    for (uint64_t bit = 0; bit < expected; bit++) {
        /* relaxed: every writer has been joined */
        uint64_t word = atomic_load_explicit(&l->bits[bit / 64], memory_order_relaxed);
        if (word & UINT64_C(1) << (bit % 64)) continue;
        if (missing++ < MAX_REPORTS)
            fprintf(stderr,
                    "FAIL: exactly-once: producer %" PRIu64 " seq %" PRIu64
                    " was never received\n",
                    bit / l->per_producer, bit % l->per_producer);
    }
    if (missing) {
        fprintf(stderr, "FAIL: exactly-once: %" PRIu64 " of %" PRIu64 " messages lost\n",
                missing, expected);
        ok = false;
    }
    if (received != expected) {
        fprintf(stderr, "FAIL: count: received %" PRIu64 " messages, sent %" PRIu64 "\n",
                received, expected);
        ok = false;
    }
    unsigned long reports = atomic_load_explicit(&l->reports, memory_order_relaxed);
    if (reports) {
        fprintf(stderr, "FAIL: %lu violations reported while running (first %d above)\n",
                reports, MAX_REPORTS);
        ok = false;
    }
    return ok;
}

void stress_gate_init(stress_gate *g) {
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = false;
}

void stress_gate_wait(stress_gate *g) {
    pthread_mutex_lock(&g->mu);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void stress_gate_open(stress_gate *g) {
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void stress_gate_destroy(stress_gate *g) {
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
}

double stress_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *watchdog_main(void *arg) {
    stress_watchdog *wd = arg;
    uint64_t last = wd->progress(wd->ctx);
    double last_change = stress_now_s();
    pthread_mutex_lock(&wd->mu);
    while (!wd->stop) {
        /* Tick once a second. The condvar's clock is CLOCK_REALTIME (portable); the
         * stall itself is measured on CLOCK_MONOTONIC. */
        struct timespec tick;
        clock_gettime(CLOCK_REALTIME, &tick);
        tick.tv_sec += 1;
        int rc = pthread_cond_timedwait(&wd->cv, &wd->mu, &tick);
        if (wd->stop || rc != ETIMEDOUT) continue;
        uint64_t now_progress = wd->progress(wd->ctx);
        double now = stress_now_s();
        if (now_progress != last) {
            last = now_progress;
            last_change = now;
        } else if (now - last_change >= wd->stall_s) {
            fprintf(stderr, "FAIL: no progress for %u s (a hang): state follows\n",
                    wd->stall_s);
            wd->dump(wd->ctx);
            fflush(stderr);
            abort();
        }
    }
    pthread_mutex_unlock(&wd->mu);
    return NULL;
}

void stress_watchdog_start(stress_watchdog *wd) {
    pthread_mutex_init(&wd->mu, NULL);
    pthread_cond_init(&wd->cv, NULL);
    wd->stop = false;
    if (pthread_create(&wd->thread, NULL, watchdog_main, wd) != 0) {
        fprintf(stderr, "stress: cannot start the watchdog thread\n");
        exit(2);
    }
}

void stress_watchdog_stop(stress_watchdog *wd) {
    pthread_mutex_lock(&wd->mu);
    wd->stop = true;
    pthread_cond_signal(&wd->cv);
    pthread_mutex_unlock(&wd->mu);
    pthread_join(wd->thread, NULL);
    pthread_cond_destroy(&wd->cv);
    pthread_mutex_destroy(&wd->mu);
}

void stress_worker_init(stress_worker *w, const char *role, unsigned id, uint64_t seed,
                        uint64_t stream) {
    w->role = role;
    w->id = id;
    w->rng = stress_rng_seed(seed, stream);
    zc_parker_init(&w->parker);
    atomic_init(&w->done, 0);
    atomic_init(&w->cancels, 0);
    atomic_init(&w->doing, "waiting at the start gate");
}

void stress_worker_destroy(stress_worker *w) { zc_parker_destroy(&w->parker); }

void stress_set_doing(stress_worker *w, const char *what) {
    atomic_store_explicit(&w->doing, what, memory_order_relaxed); /* for the dump only */
}

bool stress_cancel_now(stress_worker *w, double p) {
    if (!stress_rng_chance(&w->rng, p)) return false;
    atomic_fetch_add_explicit(&w->cancels, 1, memory_order_relaxed); /* a count */
    return true;
}

zc_status stress_drive(stress_worker *w, double p, const stress_future_kind *k, void *future,
                       void *arg) {
    zc_waker wk = zc_parker_waker(&w->parker);
    for (;;) {
        stress_set_doing(w, k->polling);
        zc_status st = k->poll(future, &wk, arg);
        if (st != ZC_PENDING) return st;
        if (stress_cancel_now(w, p)) {
            stress_set_doing(w, k->cancel_pending);
            k->cancel(future);
            continue;
        }
        stress_set_doing(w, k->parked);
        zc_parker_park(&w->parker);
        if (stress_cancel_now(w, p)) {
            stress_set_doing(w, k->cancel_woken);
            k->cancel(future);
        }
    }
}

stress_worker *stress_crew_worker(const stress_crew *c, uint32_t i) {
    return (stress_worker *)((char *)c->workers + (size_t)i * c->size + c->base_at);
}

double stress_crew_run(const stress_crew *c, stress_gate *gate, stress_watchdog *wd) {
    stress_watchdog_start(wd);
    double t0 = stress_now_s();
    for (uint32_t i = 0; i < c->n; i++) {
        void *w = (char *)c->workers + (size_t)i * c->size;
        if (pthread_create(&stress_crew_worker(c, i)->thread, NULL, c->start, w) != 0) {
            fprintf(stderr, "stress: cannot create thread %" PRIu32 "\n", i);
            exit(2);
        }
    }
    stress_gate_open(gate);
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->before_join != NULL) c->before_join(c->ctx, i);
        pthread_join(stress_crew_worker(c, i)->thread, NULL);
    }
    double elapsed = stress_now_s() - t0;
    stress_watchdog_stop(wd);
    return elapsed;
}

uint64_t stress_crew_done(const stress_crew *c, uint32_t from) {
    uint64_t sum = 0;
    for (uint32_t i = from; i < c->n; i++) /* relaxed: a progress count */
        sum += atomic_load_explicit(&stress_crew_worker(c, i)->done, memory_order_relaxed);
    return sum;
}

uint64_t stress_crew_cancels(const stress_crew *c) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->n; i++) /* relaxed: read after the joins */
        sum += atomic_load_explicit(&stress_crew_worker(c, i)->cancels, memory_order_relaxed);
    return sum;
}

void stress_crew_print(const stress_crew *c) {
    for (uint32_t i = 0; i < c->n; i++) {
        stress_worker *w = stress_crew_worker(c, i);
        /* relaxed: what the threads report, printed as it is now */
        fprintf(stderr, "  %s %u: %" PRIu64 " done, %" PRIu64 " cancels, in %s\n", w->role,
                w->id, atomic_load_explicit(&w->done, memory_order_relaxed),
                atomic_load_explicit(&w->cancels, memory_order_relaxed),
                atomic_load_explicit(&w->doing, memory_order_relaxed));
    }
}

uint64_t stress_rng_seed(uint64_t seed, uint64_t stream) {
    uint64_t s = mix64(seed + 0x9e3779b97f4a7c15u * (stream + 1));
    return s ? s : 1; /* xorshift must not start at 0 */
}

uint64_t stress_rng_next(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1du;
}

bool stress_rng_chance(uint64_t *state, double p) {
    /* the top 53 bits as a double in [0, 1) */
    return (double)(stress_rng_next(state) >> 11) * 0x1.0p-53 < p;
}

static bool parse_num(const char *s, unsigned long long min, unsigned long long max,
                      unsigned long long *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s == '\0' || *s == '-' || *end != '\0' || errno || v < min || v > max)
        return false;
    *out = v;
    return true;
}

unsigned long long stress_arg_num(const char *option, const char *value,
                                  unsigned long long min, unsigned long long max) {
    unsigned long long v;
    if (!parse_num(value, min, max, &v)) {
        fprintf(stderr, "stress: %s wants a whole number in [%llu, %llu], not '%s'\n",
                option, min, max, value);
        exit(2);
    }
    return v;
}

double stress_arg_prob(const char *option, const char *value) {
    char *end;
    double p = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || !(p >= 0 && p < 1)) {
        fprintf(stderr, "stress: %s wants a probability in [0, 1), not '%s'\n", option,
                value);
        exit(2);
    }
    return p;
}

uint32_t stress_scaled(uint32_t messages) {
    const char *s = getenv("ZCHAN_STRESS_SCALE");
    unsigned long long scale = 1;
    if (s != NULL && *s != '\0' && !parse_num(s, 1, UINT32_MAX, &scale)) {
        fprintf(stderr, "stress: ZCHAN_STRESS_SCALE must be a positive integer, not '%s'\n",
                s);
        exit(2);
    }
    if (messages * scale > UINT32_MAX) {
        fprintf(stderr, "stress: messages x ZCHAN_STRESS_SCALE exceeds 2^32-1\n");
        exit(2);
    }
    return (uint32_t)(messages * scale);
}

bool stress_common_arg(const stress_common_args *a, int c, const char *value) {
    switch (c) {
    case 'n': *a->messages = (uint32_t)stress_arg_num("--messages", value, 0, UINT32_MAX); break;
    case 'k': *a->cap = (size_t)stress_arg_num("--cap", value, a->cap_min, a->cap_max); break;
    case 'x': *a->cancel = stress_arg_prob("--cancel", value); break;
    case 's': *a->seed = stress_arg_num("--seed", value, 0, UINT64_MAX); break;
    case 'w': *a->stall_s = (unsigned)stress_arg_num("--stall", value, 1, 86400); break;
    default: return false;
    }
    return true;
}

void stress_channel_new(size_t cap, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {.elem_size = sizeof(stress_msg)};
    zc_status st = cap ? zc_bounded(cap, &cfg, tx, rx) : zc_unbounded(&cfg, tx, rx);
    if (st != ZC_OK) {
        fprintf(stderr, "FAIL: creating the channel gave %s\n", zc_status_str(st));
        exit(1);
    }
}

void *stress_workers_new(uint32_t n, size_t size, size_t align) {
    size_t bytes = (size_t)n * size; /* size is a multiple of align: a struct's size */
    void *w = aligned_alloc(align, bytes);
    if (w == NULL) {
        fprintf(stderr, "stress: no memory for %" PRIu32 " workers\n", n);
        exit(2);
    }
    return memset(w, 0, bytes);
}

void stress_check_drained(stress_ledger *l, zc_receiver *rx) {
    stress_msg m;
    uint64_t left = 0;
    while (zc_try_recv(rx, &m) == ZC_OK) left++;
    if (left)
        stress_ledger_fail(l,
                           "close: %" PRIu64 " messages left in the channel after every"
                           " consumer got ZC_CLOSED",
                           left);
}

void stress_print_channel(const zc_receiver *rx) {
    zc_info info;
    if (zc_receiver_info(rx, &info) == ZC_OK)
        fprintf(stderr, "channel: len=%zu senders=%zu receivers=%zu closed=%d\n", info.len,
                info.senders, info.receivers, info.closed);
}

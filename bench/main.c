/* zchan_bench: every timed row of the benchmark issue for zchan and the C peers (row 14,
 * memory, is zchan_bench_mem). Runs are interleaved: run 1 of every row and
 * implementation, then run 2, ... Each measurement runs in a child process, after an
 * unreported warm-up at a tenth of the counts, under a time limit: a spinning ring whose
 * producer is preempted mid-operation can stall its row for minutes on an overloaded
 * machine, and a hang must not stop the suite. See bench/README.md for the rows and the
 * output protocol. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <zchan/config.h> /* ZCHAN_HAS_BROADCAST */

#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef enum row_kind {
    ST_PAIRS,          /* rows 1-2 */
    ST_BATCHES,        /* rows 3-4 */
    THREAD_FLOW,       /* rows 5-6, 10-12 */
    THREAD_PINGPONG,   /* row 15 */
    THREAD_RENDEZVOUS, /* row 17 (implementations with make_rendezvous) */
    TASK_FLOW,         /* rows 7-9 (zchan only) */
    TASK_MANY,         /* row 13 (zchan only) */
    TASK_PINGPONG,     /* row 15 (zchan only) */
    TASK_RENDEZVOUS,   /* row 17 (zchan only) */
    ST_MANY,           /* row b1 (zchan only, extra.c) */
    THREAD_SELECT,     /* row s1 (zchan only, extra.c) */
    THREAD_BCAST,      /* row bc1 (zchan only, extra.c) */
} row_kind;

typedef struct row {
    char id[24];
    row_kind kind;
    const char *unit;
    size_t cap; /* 0 = unbounded; not used by row 17 (rendezvous channels) */
    int senders, receivers;
    unsigned workers; /* task rows: 0 = single-thread executor */
    many_kind many;   /* row 13 only: a, b or c */
} row;

/* Counts of a full run; --quick divides them by 10. */
enum {
    PAIRS = 1000000,      /* rows 1-2: send+recv pairs per run */
    BATCHES = 1000,       /* rows 3-4: batches per run */
    BATCH = 1024,         /* rows 3-4: messages per batch */
    PER_SENDER = 10000,   /* thread and task rows: messages per sender */
    MANY_TOTAL = 1 << 20, /* row 13: messages per run, over all tasks */
    SELECT_TOTAL = 1 << 14, /* row 13c: fewer, for its peers (Go's reflect.Select: O(N)) */
    RTTS = 20000,         /* rows 15 and 17: round trips per run */
};

static size_t make_rows(row *rows, unsigned cores)
{
    static const row fixed[] = {
        {"1", ST_PAIRS, "ns_per_pair", 1, 1, 1, 0, MANY_CLONED},
        {"2", ST_PAIRS, "ns_per_pair", 0, 1, 1, 0, MANY_CLONED},
        {"3", ST_BATCHES, "us_per_batch", BATCH, 1, 1, 0, MANY_CLONED},
        {"4", ST_BATCHES, "us_per_batch", 0, 1, 1, 0, MANY_CLONED},
        {"5", THREAD_FLOW, "ms_total", 16, 4, 4, 0, MANY_CLONED},
        {"6", THREAD_FLOW, "ms_total", 0, 4, 4, 0, MANY_CLONED},
        {"7", TASK_FLOW, "ms_total", 16, 4, 1, 4, MANY_CLONED},
        {"8", TASK_FLOW, "ms_total", 16, 4, 4, 4, MANY_CLONED},
        {"9", TASK_FLOW, "ns_per_msg", 16, 1, 1, 4, MANY_CLONED},
        {"10", THREAD_FLOW, "ms_total", 16, 1, 1, 0, MANY_CLONED},
        {"11", THREAD_FLOW, "ms_total", 1024, 1, 1, 0, MANY_CLONED},
        {"12", THREAD_FLOW, "ms_total", 16, 4, 1, 0, MANY_CLONED},
    };
    static const int many_n[] = {2, 16, 64, 256, 512};
    size_t k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        rows[k++] = fixed[i];
    for (int kind = MANY_CLONED; kind <= MANY_SELECT; kind++)
        for (size_t i = 0; i < sizeof many_n / sizeof many_n[0]; i++)
            for (int mt = 1; mt >= 0; mt--) {
                row r = {.kind = TASK_MANY, .unit = "ns_per_msg", .senders = many_n[i],
                         .receivers = 1, .workers = mt ? cores : 0, .many = kind};
                snprintf(r.id, sizeof r.id, "13%c-N%d-%s", "abc"[kind], many_n[i],
                         mt ? "mt" : "st");
                rows[k++] = r;
            }
    rows[k++] = (row){"15-threads", THREAD_PINGPONG, "ns_per_rtt", 1, 1, 1, 0, MANY_CLONED};
    rows[k++] = (row){"15-tasks", TASK_PINGPONG, "ns_per_rtt", 1, 1, 1, 2, MANY_CLONED};
    rows[k++] = (row){"17-threads", THREAD_RENDEZVOUS, "ns_per_rtt", 0, 1, 1, 0, MANY_CLONED};
    rows[k++] = (row){"17-tasks", TASK_RENDEZVOUS, "ns_per_rtt", 0, 1, 1, 2, MANY_CLONED};
    rows[k++] = (row){"b1-batch32", ST_MANY, "us_per_batch", BATCH, 1, 1, 0, MANY_CLONED};
    rows[k++] = (row){"s1-select2", THREAD_SELECT, "ms_total", 16, 2, 1, 0, MANY_CLONED};
#if defined(ZCHAN_HAS_BROADCAST)
    rows[k++] = (row){"bc1-4rx", THREAD_BCAST, "ms_total", 64, 1, 4, 0, MANY_CLONED};
#endif
    return k;
}

/* The floor of a send+recv pair on one thread (../shared/design.md 7.6): the two locked RMWs that
 * claim a position on each side, and nothing else. */
static struct {
    _Alignas(64) atomic_ulong tail;
    _Alignas(64) atomic_ulong head;
} floor_ctr;

static uint64_t floor_pairs(long n)
{
    uint64_t sum = 0;
    for (long i = 1; i <= n; i++) {
        /* seq_cst like a channel's claiming RMW; on x86 every order is the same lock xadd. */
        atomic_fetch_add_explicit(&floor_ctr.tail, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&floor_ctr.head, 1, memory_order_seq_cst);
        sum += (uint64_t)i;
    }
    return sum;
}

static bool impl_fits(const bench_impl *impl, const row *r)
{
    if ((impl->flags & IMPL_FAST_ROWS) && r->kind != ST_PAIRS && r->kind != ST_BATCHES &&
        r->kind != TASK_FLOW)
        return false;
    switch (r->kind) {
    case ST_PAIRS:
    case ST_BATCHES:
    case THREAD_FLOW:
        return impl->flags & (r->cap ? IMPL_BOUNDED : IMPL_UNBOUNDED);
    case THREAD_PINGPONG:
        return true; /* an unbounded-only queue runs it unbounded: one message in flight */
    case THREAD_RENDEZVOUS:
        return impl->make_rendezvous != NULL;
    case TASK_FLOW:
        return impl->task_flow != NULL;
    default:
        return impl == &bench_zchan;
    }
}

/* One measurement of row r with impl (NULL: the floor), counts divided by div. */
static double measure(const row *r, const bench_impl *impl, long div)
{
    long pairs = PAIRS / div, batches = BATCHES / div, per = PER_SENDER / div;
    long rtts = RTTS / div;
    uint64_t ns;
    switch (r->kind) {
    case ST_PAIRS: {
        void *ch = impl ? impl->make(r->cap) : NULL;
        if (impl && !ch)
            bench_fail(impl->name, "make");
        uint64_t t0 = bench_now_ns();
        uint64_t sum = impl ? impl->pairs(ch, pairs) : floor_pairs(pairs);
        ns = bench_now_ns() - t0;
        if (sum != bench_sum_to((uint64_t)pairs))
            bench_fail(impl ? impl->name : "floor", "pairs checksum");
        if (impl)
            impl->destroy(ch);
        return (double)ns / (double)pairs;
    }
    case ST_BATCHES: {
        void *ch = impl->make(r->cap);
        if (!ch)
            bench_fail(impl->name, "make");
        uint64_t t0 = bench_now_ns();
        uint64_t sum = impl->batches(ch, batches, BATCH);
        ns = bench_now_ns() - t0;
        if (sum != (uint64_t)batches * bench_sum_to(BATCH))
            bench_fail(impl->name, "batches checksum");
        impl->destroy(ch);
        return (double)ns / 1e3 / (double)batches;
    }
    case THREAD_FLOW:
        return (double)bench_thread_flow(impl, r->cap, r->senders, r->receivers, per) / 1e6;
    case THREAD_PINGPONG: {
        size_t cap = impl->flags & IMPL_BOUNDED ? r->cap : 0;
        return (double)bench_thread_pingpong(impl, cap, false, rtts) / (double)rtts;
    }
    case THREAD_RENDEZVOUS:
        return (double)bench_thread_pingpong(impl, 0, true, rtts) / (double)rtts;
    case TASK_FLOW:
        ns = impl->task_flow(r->workers, r->cap, r->senders, r->receivers, per);
        if (strcmp(r->unit, "ns_per_msg") == 0)
            return (double)ns / (double)(per * r->senders);
        return (double)ns / 1e6;
    case TASK_MANY: {
        long total = r->many == MANY_SELECT ? SELECT_TOTAL : MANY_TOTAL;
        long per_task = total / r->senders / div;
        ns = bench_task_many(r->workers, r->senders, r->many, per_task);
        return (double)ns / (double)(per_task * r->senders);
    }
    case TASK_PINGPONG:
    case TASK_RENDEZVOUS:
        return (double)bench_task_pingpong(r->kind == TASK_RENDEZVOUS, rtts) / (double)rtts;
    case ST_MANY: {
        uint64_t t0 = bench_now_ns();
        uint64_t sum = bench_zchan_many(batches, BATCH, 32);
        ns = bench_now_ns() - t0;
        if (sum != (uint64_t)batches * bench_sum_to(BATCH))
            bench_fail("zchan", "batch-32 checksum");
        return (double)ns / 1e3 / (double)batches;
    }
    case THREAD_SELECT:
        return (double)bench_zchan_select2(r->cap, per) / 1e6;
    case THREAD_BCAST:
        return (double)bench_zchan_bcast(r->cap, r->receivers, per) / 1e6;
    }
    return 0;
}

/* --count N: run rows 1-4 once with exactly N pairs (or N batches) and print nothing:
 * run.sh runs this under callgrind with N and 2N and divides the difference. */
static void count_mode(const row *rows, size_t nrows, const bench_opts *o)
{
    size_t nimpl;
    const bench_impl *const *impls = bench_impls(&nimpl);
    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if ((r->kind != ST_PAIRS && r->kind != ST_BATCHES) || !bench_selected(o->rows, r->id))
            continue;
        for (size_t j = 0; j < nimpl; j++) {
            const bench_impl *impl = impls[j];
            if (!bench_wanted(o, impl->name) || !impl_fits(impl, r))
                continue;
            void *ch = impl->make(r->cap);
            if (!ch)
                bench_fail(impl->name, "make");
            if (r->kind == ST_PAIRS)
                impl->pairs(ch, o->count);
            else
                impl->batches(ch, o->count, BATCH);
            impl->destroy(ch);
        }
    }
}

typedef enum outcome { MEASURED, TIMED_OUT, FAILED } outcome;

static bool placement; /* --placement: for the measured run, not the warm-up */

/* Fork, warm up and measure row r with impl (NULL: the floor) in the child, and read the
 * value back through a pipe, killing the child after limit_ms. The parent stays
 * single-threaded, so fork is safe. */
static outcome measure_in_child(const row *r, const bench_impl *impl, long div, int limit_ms,
                                double *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        bench_fail("zchan_bench", "pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        bench_fail("zchan_bench", "fork");
    if (pid == 0) {
        close(fds[0]);
        measure(r, impl, div * 10);
        bench_thread_placement(placement);
        double v = measure(r, impl, div);
        _exit(write(fds[1], &v, sizeof v) == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fds[1]);
    struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
    int ready;
    while ((ready = poll(&pfd, 1, limit_ms)) < 0) /* EINTR: retry (the limit restarts) */
        ;
    if (ready == 0)
        kill(pid, SIGKILL);
    ssize_t got = ready > 0 ? read(fds[0], out, sizeof *out) : 0;
    int status = 0;
    waitpid(pid, &status, 0);
    close(fds[0]);
    if (ready == 0)
        return TIMED_OUT;
    bool ok = got == (ssize_t)sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return ok ? MEASURED : FAILED;
}

/* Measure and print one run; an implementation that timed out in a row is skipped for
 * that row's later runs (*given_up). Returns false if the measurement failed. */
static bool run_one(const row *r, const bench_impl *impl, int run, long div, int limit_ms,
                    bool *given_up)
{
    const char *name = impl ? impl->name : "floor";
    if (*given_up)
        return true;
    double v;
    switch (measure_in_child(r, impl, div, limit_ms, &v)) {
    case MEASURED:
        bench_emit(r->id, name, run, v, r->unit);
        return true;
    case TIMED_OUT:
        *given_up = true;
        fprintf(stderr, "bench: row %s, %s, run %d: killed after %d ms; its later runs are "
                        "skipped\n", r->id, name, run, limit_ms);
        bench_emit(r->id, name, run, limit_ms, "timeout_ms");
        return true;
    case FAILED:
        fprintf(stderr, "bench: row %s, %s, run %d failed\n", r->id, name, run);
        return false;
    }
    return false;
}

int main(int argc, char **argv)
{
    bench_opts o = bench_parse_args(argc, argv, " [--count N]");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    row rows[64];
    size_t nrows = make_rows(rows, cores > 0 ? (unsigned)cores : 1);
    if (o.list) { /* run.sh interleaves the programs row by row */
        for (size_t i = 0; i < nrows; i++)
            if (bench_selected(o.rows, rows[i].id))
                puts(rows[i].id);
        return 0;
    }
    if (o.count > 0) {
        count_mode(rows, nrows, &o);
        return 0;
    }

    size_t nimpl;
    const bench_impl *const *impls = bench_impls(&nimpl);
    for (size_t j = 0; j < nimpl; j++)
        if (bench_wanted(&o, impls[j]->name))
            fprintf(stderr, "note: %s\n", impls[j]->note);
    fprintf(stderr, "note: floor: two seq_cst fetch_adds on one thread per pair (rows 1-2)\n"
                    "note: row 13b merges N channels by hand: one waker per receive future, "
                    "the task polls those woken, as select_all does; 13c uses zc_select\n");

    placement = o.placement;
    long div = o.quick ? 10 : 1;
    int limit_ms = o.quick ? 5000 : 15000; /* ~100x a normal measurement */
    /* given_up[i][j]: row i, implementation j (nimpl: the floor) timed out. */
    static bool given_up[64][6];
    bool ok = true;
    for (int run = 1; run <= o.runs; run++) {
        for (size_t i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            if (!bench_selected(o.rows, r->id))
                continue;
            for (size_t k = 0; k < nimpl; k++) {
                size_t j = o.reverse ? nimpl - 1 - k : k; /* zchan not always first */
                if (bench_wanted(&o, impls[j]->name) && impl_fits(impls[j], r))
                    ok &= run_one(r, impls[j], run, div, limit_ms, &given_up[i][j]);
            }
            if (r->kind == ST_PAIRS && bench_wanted(&o, "floor"))
                ok &= run_one(r, NULL, run, div, limit_ms, &given_up[i][nimpl]);
        }
    }
    return ok ? 0 : 1;
}

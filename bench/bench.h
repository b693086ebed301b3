/**
 * @file bench/bench.h
 * The C benchmark harness: the implementation table every channel fills in, the
 * command line, the clock and the CSV output shared by zchan_bench and zchan_bench_mem.
 *
 * Output protocol (shared with bench/rust and bench/go): one CSV line per measurement,
 * `row,impl,run,value,unit`, on stdout; notes go to stderr. See bench/README.md.
 */
#ifndef ZCHAN_BENCH_H
#define ZCHAN_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What an implementation offers. */
enum {
    IMPL_BOUNDED = 1u << 0,   /**< make(cap) with cap >= 1 works */
    IMPL_UNBOUNDED = 1u << 1, /**< make(0) gives an unbounded channel */
    IMPL_FAST_ROWS = 1u << 2, /**< runs only rows 1-4 and the task flows (zchan-inline) */
};

/**
 * One channel implementation, called through this table by the thread rows. Messages are
 * non-zero uint64_t values (GAsyncQueue cannot carry NULL).
 *
 * pairs and batches are the single-thread rows; each implementation generates them with
 * BENCH_ST_LOOPS from its own static inline try operations, so those loops make direct
 * calls, as a program using the channel would.
 */
typedef struct bench_impl {
    const char *name; /**< the impl column of the CSV */
    unsigned flags;   /**< IMPL_BOUNDED | IMPL_UNBOUNDED */
    /** A new channel: cap messages (exactly, or more where the note says), 0 = unbounded. */
    void *(*make)(size_t cap);
    /** Row 17: a new rendezvous channel (no buffer: a send completes when a receiver
     *  takes its message), freed by destroy; NULL where the implementation has none. */
    void *(*make_rendezvous)(void);
    void (*destroy)(void *ch);
    /** Send v, waiting (or spinning and yielding) while the channel is full. */
    void (*send)(void *ch, uint64_t v);
    /** Receive one message, waiting (or spinning and yielding) while it is empty. */
    uint64_t (*recv)(void *ch);
    /** Rows 1-2: n times a send then a receive; returns the sum received. */
    uint64_t (*pairs)(void *ch, long n);
    /** Rows 3-4: n times `batch` sends then `batch` receives; returns the sum received. */
    uint64_t (*batches)(void *ch, long n, int batch);
    /** The task flows (rows 7-9; bench_task_flow's arguments and result); NULL where the
     *  implementation has none (only zchan's run here: the peers' are bench/rust's). */
    uint64_t (*task_flow)(unsigned workers, size_t cap, int senders, int receivers,
                          long per_sender);
    const char *note; /**< one line for stderr: how it waits, what capacity it really has */
} bench_impl;

/** Report a failed operation or a wrong checksum on stderr and exit(1). */
_Noreturn void bench_fail(const char *impl, const char *what);

/**
 * Define NAME_pairs and NAME_batches from static inline bool NAME_try_send(void *,
 * uint64_t) and bool NAME_try_recv(void *, uint64_t *). A failed try is a bug here (the
 * rows never overfill or overdrain), so it ends the program.
 */
#define BENCH_ST_LOOPS(NAME) BENCH_PAIR_LOOP(NAME) BENCH_BATCH_LOOP(NAME)

/** NAME_pairs alone (see BENCH_ST_LOOPS). */
#define BENCH_PAIR_LOOP(NAME)                                                              \
    static uint64_t NAME##_pairs(void *ch, long n)                                         \
    {                                                                                      \
        uint64_t sum = 0, v;                                                               \
        for (long i = 1; i <= n; i++) {                                                    \
            if (!NAME##_try_send(ch, (uint64_t)i) || !NAME##_try_recv(ch, &v))             \
                bench_fail(#NAME, "pair");                                                 \
            sum += v;                                                                      \
        }                                                                                  \
        return sum;                                                                        \
    }

/** NAME_batches alone (see BENCH_ST_LOOPS). */
#define BENCH_BATCH_LOOP(NAME)                                                             \
    static uint64_t NAME##_batches(void *ch, long n, int batch)                            \
    {                                                                                      \
        uint64_t sum = 0, v;                                                               \
        for (long b = 0; b < n; b++) {                                                     \
            for (int i = 1; i <= batch; i++)                                               \
                if (!NAME##_try_send(ch, (uint64_t)i))                                     \
                    bench_fail(#NAME, "batch send");                                       \
            for (int i = 1; i <= batch; i++) {                                             \
                if (!NAME##_try_recv(ch, &v))                                              \
                    bench_fail(#NAME, "batch recv");                                       \
                sum += v;                                                                  \
            }                                                                              \
        }                                                                                  \
        return sum;                                                                        \
    }

/** Retry a non-waiting ring operation: a few pause instructions, then sched_yield. */
void bench_backoff(unsigned *tries);

/* The implementations; a peer whose library was not found is NULL. */
extern const bench_impl bench_zchan;
extern const bench_impl *const bench_zchan_inline; /* NULL with a checked library */
extern const bench_impl bench_mutex;
extern const bench_impl *const bench_gasync; /* NULL without GLib */
extern const bench_impl *const bench_ck;     /* NULL without Concurrency Kit */
extern const bench_impl *const bench_rte;    /* NULL without DPDK */

/** Every implementation that was built, zchan first; count in *n. */
const bench_impl *const *bench_impls(size_t *n);

/** Parsed command line. */
typedef struct bench_opts {
    int runs;          /**< --runs K (default 7; 3 with --quick) */
    bool quick;        /**< --quick: counts / 10 */
    const char *rows;  /**< --rows LIST (NULL = all) */
    const char *impls; /**< --impls LIST (NULL = all) */
    const char *skip;  /**< --skip LIST: implementations left out (NULL = none) */
    long count;        /**< --count N: zchan_bench's instruction-count mode (0 = off) */
    bool list;         /**< --list: print the ids of the rows selected, one a line, and exit */
    bool reverse;      /**< --reverse: the implementations of a row in reverse order */
    bool placement;    /**< --placement: thread rows say where each thread ran (stderr) */
} bench_opts;

/** Whether the command line asks for implementation `name` (--impls, --skip). */
bool bench_wanted(const bench_opts *o, const char *name);

/** Parse argv; prints usage and exits on a bad argument. */
bench_opts bench_parse_args(int argc, char **argv, const char *usage_extra);

/**
 * Whether a comma-separated LIST selects id: an item selects an id equal to it or
 * starting with it and continuing with a non-digit ("13" selects "13a-N2-mt", "1" does
 * not select "12"). NULL selects everything.
 */
bool bench_selected(const char *list, const char *id);

/** Whether a comma-separated LIST names name exactly (--impls, --skip: "zchan" is not
 *  "zchan-inline"). NULL names everything. */
bool bench_named(const char *list, const char *name);

/* ---- Rows (threads.c: any implementation; tasks.c: zchan on the example executor) ---- */

/**
 * Thread rows 5-6, 10-12: `senders` threads each send `per_sender` messages through one
 * channel of capacity cap (0 = unbounded) to `receivers` threads, which take messages
 * until they receive an end mark: the last sender to finish sends one per receiver,
 * as the Rust and Go peers' receivers run until the channel closes. Threads are started first and released together.
 *
 * @return Nanoseconds from the release to the last join; exits if a message was lost.
 */
uint64_t bench_thread_flow(const bench_impl *impl, size_t cap, int senders, int receivers,
                           long per_sender);

/** Rows 15 and 17: two threads bounce one message n times over two channels, of
 *  capacity cap (0 = unbounded), or rendezvous channels (impl->make_rendezvous) if
 *  rendezvous. @return nanoseconds for the n round trips. */
uint64_t bench_thread_pingpong(const bench_impl *impl, size_t cap, bool rendezvous, long n);

/**
 * --placement: after each run of a thread row, one line on stderr with the run's time
 * and, for each thread (tx: a sender, or the pinging side of rows 15 and 17; rx: a
 * receiver), when it finished (ms from the first start), the CPU it was on as it started
 * and as it finished, and its voluntary and involuntary context switches since it was
 * created (getrusage RUSAGE_THREAD; Linux only, -1 elsewhere). Off by default: the CPU
 * read at the start falls inside the measured span.
 */
void bench_thread_placement(bool on);

/**
 * Task rows 7-9: zchan send/recv futures in tasks on an executor with `workers` threads
 * (0: single-thread, run on the caller). Each sender task has a clone of the sender and
 * drops it when done; receivers drain until ZC_CLOSED.
 *
 * @return Nanoseconds from the first spawn until ex_run returns.
 */
uint64_t bench_task_flow(unsigned workers, size_t cap, int senders, int receivers,
                         long per_sender);
/** The same, built with ZCHAN_INLINE (tasks_inline.c). */
uint64_t bench_task_flow_inline(unsigned workers, size_t cap, int senders, int receivers,
                                long per_sender);

/** How row 13's receiver task gets the messages of its n sender tasks. */
typedef enum many_kind {
    MANY_CLONED, /**< 13a: one channel of capacity 1024, its sender cloned into every task */
    MANY_MERGED, /**< 13b: n channels of capacity 1024/n, one waker per receive future,
                      the task polls those woken (as Rust's select_all) */
    MANY_SELECT, /**< 13c: the same n channels through one zc_select over n receive cases */
} many_kind;

/** Row 13: n sender tasks send per_task messages each to one receiver task. */
uint64_t bench_task_many(unsigned workers, int n, many_kind kind, long per_task);

/** Rows 15 and 17 with two tasks on a pool of two workers, over two bounded(1) channels
 *  or two rendezvous channels if rendezvous. @return nanoseconds for n round trips. */
uint64_t bench_task_pingpong(bool rendezvous, long n);

/* ---- zchan's batch, select and broadcast rows (extra.c; zchan only) ---- */

/** Row b1: n times `total` messages through a bounded(total) channel, sent with
 *  zc_try_send_many and received with zc_try_recv_many in batches of `batch` (a divisor
 *  of total, at most 256). @return the sum received. */
uint64_t bench_zchan_many(long n, int total, int batch);

/** Row s1: two sender threads, each with a bounded(cap) channel of its own, send
 *  per_sender messages each (zc_send_blocking); the main thread receives them all
 *  through one zc_select poll future over the two channels, parking while it pends.
 *  @return nanoseconds from the start to the last join. */
uint64_t bench_zchan_select2(size_t cap, long per_sender);

/** Row bc1: one sender thread broadcasts per_sender messages (zc_bcast_send_blocking)
 *  through a back-pressure broadcast channel of capacity cap to `receivers` (1-4)
 *  receiver threads (zc_bcast_recv_blocking). @return nanoseconds from the start to
 *  the last join. */
uint64_t bench_zchan_bcast(size_t cap, int receivers, long per_sender);

/** The sum of 1..n, the checksum of a row that sent n messages numbered from 1. */
static inline uint64_t bench_sum_to(uint64_t n) { return n * (n + 1) / 2; }

/** Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/** The span of a run whose threads each read the clock as they start and as they end:
 *  from the first start to the last end (BENCH_SPAN_INIT, then bench_span_add for each
 *  thread, then bench_span_ns). */
typedef struct bench_span {
    uint64_t first, last;
} bench_span;
#define BENCH_SPAN_INIT {UINT64_MAX, 0}

static inline void bench_span_add(bench_span *s, uint64_t start_ns, uint64_t end_ns)
{
    if (start_ns < s->first)
        s->first = start_ns;
    if (end_ns > s->last)
        s->last = end_ns;
}

static inline uint64_t bench_span_ns(const bench_span *s) { return s->last - s->first; }

/** Print one CSV line `row,impl,run,value,unit` and flush. */
void bench_emit(const char *row, const char *impl, int run, double value, const char *unit);

#endif /* ZCHAN_BENCH_H */

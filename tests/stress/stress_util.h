/*
 * stress_util.h: what the stress programs share.
 *
 * - stress_msg: a message that names its producer and sequence number and carries a
 *   check word, so a torn or invented message is caught, not just a lost one.
 * - stress_ledger: the exactly-once and order checks. Every received message sets its
 *   bit in one bitmap (a bit already set is a duplicate); each consumer keeps, per
 *   producer, the lowest sequence number it may see next (a smaller one breaks order);
 *   at the end every bit must be set and the counts must add up.
 * - stress_watchdog: turns a hang into a failure. It samples a progress count once a
 *   second; when the count has not moved for stall_s seconds it prints the state and
 *   aborts.
 * - stress_gate: holds the worker threads until all are created, so they start together.
 * - stress_worker: what every worker thread has (its random stream, its parker, the
 *   counts and the step the watchdog prints), and stress_drive, which drives a future
 *   on it to completion with random cancels.
 * - stress_crew: starts one thread per worker, opens the gate, joins them, and times
 *   the run, with the watchdog on meanwhile; sums and prints its workers' counts.
 * - a seeded random generator and the ZCHAN_STRESS_SCALE factor.
 * - the options every program takes (-n -k -x -s -w) and their checks.
 */
#ifndef ZCHAN_STRESS_UTIL_H
#define ZCHAN_STRESS_UTIL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

/* One message: 16 bytes. check = stress_msg_check(producer, seq). */
typedef struct stress_msg {
    uint32_t producer;
    uint32_t seq;
    uint64_t check;
} stress_msg;

/* The message that producer sends as number seq. */
stress_msg stress_msg_make(uint32_t producer, uint32_t seq);

typedef struct stress_ledger {
    uint32_t producers;
    uint32_t per_producer;  /* messages each producer sends */
    _Atomic uint64_t *bits; /* bit producer * per_producer + seq: received */
    atomic_ulong reports;   /* violations found while running */
} stress_ledger;

/* Allocate the bitmap for producers * per_producer messages; exits on ENOMEM. */
void stress_ledger_init(stress_ledger *l, uint32_t producers, uint32_t per_producer);
void stress_ledger_free(stress_ledger *l);

/* A consumer's view for the order check: next_min[p] is the lowest seq of producer p it
 * may receive next. calloc'ed with room for l->producers entries; exits on ENOMEM. */
uint32_t *stress_order_new(const stress_ledger *l);

/* Record one received message. who names the consumer in a report ("consumer 3").
 * Checks that the message is well formed, not received before, and after every message
 * of the same producer this consumer saw. Returns false (and prints which property
 * broke) if not. Safe from any number of threads at once. */
bool stress_ledger_take(stress_ledger *l, uint32_t *next_min, const stress_msg *m,
                        const char *who, unsigned who_id);

/* Note a violation found outside the ledger (prints the line: fmt is printf's). */
void stress_ledger_fail(stress_ledger *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* After every consumer has been joined: every message received exactly once, the total
 * as expected, no violation reported while running. Prints each broken property;
 * returns true if none broke. */
bool stress_ledger_verdict(stress_ledger *l, uint64_t received);

/* Start gate: workers call stress_gate_wait, the main thread stress_gate_open once it
 * has created them all. */
typedef struct stress_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
} stress_gate;

void stress_gate_init(stress_gate *g);
void stress_gate_wait(stress_gate *g);
void stress_gate_open(stress_gate *g);
void stress_gate_destroy(stress_gate *g);

typedef struct stress_watchdog stress_watchdog;

/* What every worker thread of a stress program has, first in its own worker struct. */
typedef struct stress_worker {
    const char *role; /* "producer", "consumer", ...: for the watchdog's dump */
    unsigned id;      /* its number among the workers of its role */
    uint64_t rng;     /* its random stream */
    zc_parker parker; /* what its futures' waker wakes */
    /* relaxed: progress and state for the watchdog, which only prints them */
    _Atomic uint64_t done;       /* messages sent or received */
    _Atomic uint64_t cancels;    /* futures cancelled */
    _Atomic(const char *) doing; /* what the thread is in now */
    pthread_t thread;
} stress_worker;

/* Worker id of role, its random stream number stream of seed; its parker initialised. */
void stress_worker_init(stress_worker *w, const char *role, unsigned id, uint64_t seed,
                        uint64_t stream);
/* Destroy the worker's parker (after its thread was joined). */
void stress_worker_destroy(stress_worker *w);
/* Note what the thread does now (what is a string that lives for the whole run). */
void stress_set_doing(stress_worker *w, const char *what);
/* True, and counted in w->cancels, with probability p. */
bool stress_cancel_now(stress_worker *w, double p);

/* How stress_drive polls and cancels one kind of future, and the steps it notes. */
typedef struct stress_future_kind {
    zc_status (*poll)(void *future, const zc_waker *w, void *arg);
    void (*cancel)(void *future);
    const char *polling;          /* "zc_send_poll" */
    const char *cancel_pending;   /* "zc_send_cancel while registered" */
    const char *parked;           /* "parked on a pending send" */
    const char *cancel_woken;     /* "zc_send_cancel after its wake" */
} stress_future_kind;

/* Poll future (k->poll(future, waker, arg), the waker of w's parker) until it is not
 * ZC_PENDING, parked between polls. After a PENDING poll, and again after each wake,
 * cancel it with probability p and poll again: a cancelled future starts over (a send's
 * message is still the caller's, a receive took nothing). Returns the last poll's
 * status. */
zc_status stress_drive(stress_worker *w, double p, const stress_future_kind *k, void *future,
                       void *arg);

/* A stress program's workers: n structs of size bytes from workers, each with its
 * stress_worker base_at bytes in (offsetof). start runs on each, with the worker as
 * its argument. before_join, if not NULL, is called with ctx and i before worker i is
 * joined (the main thread's own part once the workers before i are done). */
typedef struct stress_crew {
    void *workers;
    uint32_t n;
    size_t size;
    size_t base_at;
    void *(*start)(void *worker);
    void (*before_join)(void *ctx, uint32_t i);
    void *ctx;
} stress_crew;

/* Worker i's stress_worker. */
stress_worker *stress_crew_worker(const stress_crew *c, uint32_t i);
/* Start wd, then c's threads (each waits at gate), open gate, join them all in order,
 * stop wd. Returns the seconds from the first start to the last join. Exits with status
 * 2 if a thread cannot be created. */
double stress_crew_run(const stress_crew *c, stress_gate *gate, stress_watchdog *wd);
/* The sum of the done counts of workers from .. n - 1 (from 0: the watchdog's
 * progress), and of all the workers' cancels. */
uint64_t stress_crew_done(const stress_crew *c, uint32_t from);
uint64_t stress_crew_cancels(const stress_crew *c);
/* Print a line per worker to stderr: role, id, counts, and what it is doing. */
void stress_crew_print(const stress_crew *c);

struct stress_watchdog {
    uint64_t (*progress)(void *ctx); /* a count that grows while work gets done */
    void (*dump)(void *ctx);         /* prints the state after a stall */
    void *ctx;
    unsigned stall_s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    pthread_t thread;
};

/* Start watching; the caller fills progress, dump, ctx and stall_s first. */
void stress_watchdog_start(stress_watchdog *wd);
/* Stop watching and join the watchdog thread. */
void stress_watchdog_stop(stress_watchdog *wd);

/* Seeded generator (xorshift64*); seed it with stress_rng_seed(seed, stream). */
uint64_t stress_rng_seed(uint64_t seed, uint64_t stream);
uint64_t stress_rng_next(uint64_t *state);
/* True with probability p (0 never, 1 always). */
bool stress_rng_chance(uint64_t *state, double p);

/* messages times ZCHAN_STRESS_SCALE (a positive integer, default 1); exits if the
 * variable is malformed or the product does not fit 32 bits. */
uint32_t stress_scaled(uint32_t messages);

/* An option's value: a whole number (decimal or 0x) in [min, max]; exits with status 2
 * and a message naming the option if it is not one. */
unsigned long long stress_arg_num(const char *option, const char *value,
                                  unsigned long long min, unsigned long long max);
/* An option's value: a probability in [0, 1) (below 1: an operation that always
 * cancelled would never wait); exits with status 2 if it is not one. */
double stress_arg_prob(const char *option, const char *value);

/* Where stress_common_arg stores the options every stress program takes. */
typedef struct stress_common_args {
    uint32_t *messages;      /* -n, --messages N: messages per producer */
    size_t *cap;             /* -k, --cap N: in [cap_min, cap_max] */
    size_t cap_min, cap_max;
    double *cancel;          /* -x, --cancel P: a probability in [0, 1) */
    uint64_t *seed;          /* -s, --seed N */
    unsigned *stall_s;       /* -w, --stall S: 1 to 86400 */
} stress_common_args;

/* getopt_long's entries for the options of stress_common_args. */
#define STRESS_COMMON_LONGS                                                                  \
    {"messages", required_argument, NULL, 'n'}, {"cap", required_argument, NULL, 'k'},       \
        {"cancel", required_argument, NULL, 'x'}, {"seed", required_argument, NULL, 's'},    \
        {"stall", required_argument, NULL, 'w'}

/* If c is the letter of one of a's options, store value there (exiting with status 2 if
 * it is not a valid one, as stress_arg_num does) and return true; else false. */
bool stress_common_arg(const stress_common_args *a, int c, const char *value);

/* A channel of stress_msg: bounded(cap), or unbounded for cap 0. Exits with status 1
 * (a FAIL line naming the status) if it cannot be made. */
void stress_channel_new(size_t cap, zc_sender **tx, zc_receiver **rx);

/* n zeroed workers of size bytes each, aligned to align (each on cache lines of its
 * own when the worker type is so aligned); exits with status 2 on ENOMEM. */
void *stress_workers_new(uint32_t n, size_t size, size_t align);

/* After every consumer got ZC_CLOSED: receive what is left through rx and report it as
 * a violation (ZC_CLOSED came while messages were still held). */
void stress_check_drained(stress_ledger *l, zc_receiver *rx);

/* Print the channel's len, handle counts and closed flag (for a watchdog dump). */
void stress_print_channel(const zc_receiver *rx);

/* Seconds on CLOCK_MONOTONIC. */
double stress_now_s(void);

#endif /* ZCHAN_STRESS_UTIL_H */

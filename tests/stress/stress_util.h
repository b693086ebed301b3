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
 * - stress_crew: starts one thread per worker, opens the gate, joins them, and times
 *   the run, with the watchdog on meanwhile.
 * - a seeded random generator and the ZCHAN_STRESS_SCALE factor.
 */
#ifndef ZCHAN_STRESS_UTIL_H
#define ZCHAN_STRESS_UTIL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* A stress program's workers: n structs of size bytes from workers, each with its
 * pthread_t thread_at bytes in (offsetof). start runs on each, with the worker as its
 * argument. before_join, if not NULL, is called with ctx and i before worker i is
 * joined (the main thread's own part once the workers before i are done). */
typedef struct stress_crew {
    void *workers;
    uint32_t n;
    size_t size;
    size_t thread_at;
    void *(*start)(void *worker);
    void (*before_join)(void *ctx, uint32_t i);
    void *ctx;
} stress_crew;

/* Start wd, then c's threads (each waits at gate), open gate, join them all in order,
 * stop wd. Returns the seconds from the first start to the last join. Exits with status
 * 2 if a thread cannot be created. */
double stress_crew_run(const stress_crew *c, stress_gate *gate, stress_watchdog *wd);

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

/* After every consumer got ZC_CLOSED: receive what is left through rx and report it as
 * a violation (ZC_CLOSED came while messages were still held). */
void stress_check_drained(stress_ledger *l, zc_receiver *rx);

/* Print the channel's len, handle counts and closed flag (for a watchdog dump). */
void stress_print_channel(const zc_receiver *rx);

/* Seconds on CLOCK_MONOTONIC. */
double stress_now_s(void);

#endif /* ZCHAN_STRESS_UTIL_H */

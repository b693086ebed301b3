/**
 * @file executor.h
 * A small executor for zchan futures, shared by the examples, the stress tests and the
 * benchmarks.
 *
 * A task is user memory that embeds ex_task as its first member and a poll function
 * that drives the task's futures once. The executor polls a task when it is spawned and
 * again each time the task's waker ({ex_wake, task}) is called, from any thread; a wake
 * that arrives while the task is being polled (even from inside that very poll, which
 * zchan does when it asks to be polled again soon) makes the executor poll it once more.
 *
 * Two kinds, one API:
 * - ex_new(0): a single-thread executor. ex_run runs its tasks on the calling thread, in
 *   rounds, and parks that thread (zc_parker) while no task is runnable; other threads
 *   may wake its tasks and spawn new ones. A round polls, in the order they were woken,
 *   the tasks woken on ex_run's own thread in the round before (a local queue, with no
 *   lock: tokio's current-thread scheduler keeps one too), then the tasks spawned or
 *   woken elsewhere (a queue under a mutex).
 * - ex_new(n), n >= 1: a pool of n worker threads sharing one FIFO run queue (a mutex and
 *   a condition variable), and a LIFO slot per worker (tokio's): a task woken from inside
 *   a poll on a worker is polled next on that worker, with no lock and no wake-up, so
 *   that two tasks that wake each other run back to back on one warm thread; the task it
 *   displaces from the slot goes to the queue. At most EX_LIFO_BUDGET polls in a row come
 *   from the slot before the worker takes the queue's oldest task. The slot is the
 *   worker's alone: a poll that runs long holds back the task it woke last until it
 *   returns (as tokio's LIFO slot does), so keep polls short. A push to the queue wakes
 *   at most one idle worker: a spawned task, or one displaced from a LIFO slot, wakes
 *   one; a task a worker requeues itself (one that woke itself, or its LIFO task once
 *   the budget is spent) wakes none if the queue was empty, since that worker takes it
 *   back next. ex_run only waits.
 *
 * Each task moves through these states; every change is one atomic operation on the task:
 *
 *     spawn --> SCHEDULED --popped--> RUNNING --poll PENDING--> IDLE --wake--> SCHEDULED
 *                   ^                  |    |
 *                   |                wake   +--poll DONE--> DONE
 *                   |                  v
 *                   +--poll PENDING-- RUN_AGAIN   (requeued at the tail, behind the
 *                                                  tasks already waiting)
 *
 * A task is on a run queue exactly when it is SCHEDULED, so it is queued at most once and
 * polled by one thread at a time; a wake never allocates.
 *
 * | call                  | concurrent with                                            |
 * |-----------------------|------------------------------------------------------------|
 * | ex_spawn, ex_wake     | everything, from any thread (also from inside a poll)      |
 * | ex_run                | ex_spawn, ex_wake; one ex_run per executor at a time       |
 * | ex_new, ex_free       | nothing on that executor                                   |
 */
#ifndef ZCHAN_EXAMPLES_EXECUTOR_H
#define ZCHAN_EXAMPLES_EXECUTOR_H

#include <stdatomic.h>

#include <zchan/waker.h>

/** Polls in a row that a pool worker takes from its LIFO slot before it turns to the
 *  queue again (tokio's MAX_LIFO_POLLS_PER_TICK), so that two tasks that keep waking
 *  each other cannot hold back the queued ones. */
#define EX_LIFO_BUDGET 3

typedef struct ex_task ex_task;
typedef struct ex_executor ex_executor;

/** What a poll function reports. */
typedef enum ex_result {
    EX_PENDING, /**< not finished: some waker it registered (or its own) will wake it */
    EX_DONE     /**< finished: the executor never polls it again */
} ex_result;

/**
 * Drive a task once.
 *
 * Poll every future the task is waiting on with w (the task's waker); return EX_PENDING
 * only if one of them returned ZC_PENDING (or the task called w->wake itself to be polled
 * again, e.g. to yield). Return EX_DONE only once none of the task's futures is pending
 * any more (each completed or cancelled), so that no wake of this task can still come.
 * A poll must not block (sleep, wait on a lock held across polls, call zc_*_blocking):
 * the tasks it wakes may be waiting for it to return.
 *
 * @param t  The task, as given to ex_spawn; cast it to the user struct that embeds it.
 * @param w  {ex_wake, t}; valid for the task's whole life, so it may be kept.
 */
typedef ex_result (*ex_poll_fn)(ex_task *t, const zc_waker *w);

/** Called once after a task's poll returned EX_DONE; the executor has let go of t and the
 *  callback may free it. */
typedef void (*ex_done_fn)(ex_task *t);

/** Embed as the first member of a task; set by ex_spawn, fields are the executor's. */
struct ex_task {
    ex_poll_fn poll;       /**< set by ex_spawn */
    ex_done_fn on_done;    /**< set by ex_spawn_then; NULL for ex_spawn */
    atomic_uint ex__state; /* IDLE / SCHEDULED / RUNNING / RUN_AGAIN / DONE */
    ex_task *ex__next;     /* run-queue link, owned by whoever holds the queue's lock */
    ex_executor *ex__owner;
};

/**
 * Make an executor.
 *
 * @param workers  0: a single-thread executor that ex_run drives on the calling thread;
 *                 n >= 1: a pool of n threads, started here.
 * @return The executor, or NULL if memory or threads ran out (nothing is left behind).
 */
ex_executor *ex_new(unsigned workers);

/**
 * Start a task: it will be polled soon, then again after each wake until it returns
 * EX_DONE.
 *
 * @param ex    The executor.
 * @param t     The task; it must not be running on any executor, and must stay valid
 *              and in place until it is done (until on_done, or until ex_run returns).
 * @param poll  Its poll function.
 *
 * Thread safety: any thread, also from inside a poll, while ex_run runs or before.
 */
void ex_spawn(ex_executor *ex, ex_task *t, ex_poll_fn poll);

/**
 * As ex_spawn, then call on_done(t) (on the executor's thread) once the task is done,
 * before ex_run can return.
 *
 * @param on_done  Callback; may free t. NULL is the same as ex_spawn.
 */
void ex_spawn_then(ex_executor *ex, ex_task *t, ex_poll_fn poll, ex_done_fn on_done);

/**
 * Run until every task spawned so far is done (and every task they spawn).
 *
 * Single-thread executor: polls the tasks on the calling thread, parking it while none is
 * runnable (never spinning). Pool: the workers poll; this call only waits. Returns at
 * once if no task is live. May be called again after more spawns.
 *
 * @param ex  The executor; one ex_run at a time.
 */
void ex_run(ex_executor *ex);

/**
 * Stop the workers (pool) and free the executor. Every spawned task must be done (call
 * ex_run first); NULL does nothing.
 */
void ex_free(ex_executor *ex);

/**
 * The wake function of every task's waker: ctx is the ex_task. Makes the task runnable,
 * or, if it is being polled, makes the executor poll it once more afterwards.
 *
 * Thread safety: any thread, never blocks for long (at most a short run-queue lock),
 * never allocates.
 */
void ex_wake(void *ctx);

#endif /* ZCHAN_EXAMPLES_EXECUTOR_H */

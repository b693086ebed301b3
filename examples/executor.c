/*
 * A small executor for zchan futures: see executor.h for the model and the task states.
 *
 * Ordering map (every pair on the task's state word):
 *   [W1] ex_wake's release CAS          -> [P1] run_task's acquire exchange, or the
 *                                          acquire failure of [P2]: what a waker did
 *                                          before waking (a send, a close) is visible
 *                                          to the poll it causes. A wake that finds the
 *                                          task already SCHEDULED or RUN_AGAIN still
 *                                          writes (the same value) so that it joins
 *                                          that chain instead of returning unordered.
 *   [P2] run_task's release CAS to IDLE -> [W1]'s acquire, and [P1] of the next poll
 *                                          (through the waker's RMW, which continues
 *                                          its release sequence): one poll's writes to
 *                                          the task, and ex_run's read of its queue
 *                                          link, happen before the next push and poll.
 *   [P3] release store of SCHEDULED     -> [P1]: the same for a task polled again.
 * The run queue, the live count and the sleeping/idle flags are under ex->mu, whose
 * unlock/lock also orders a push before the pop of the same task. A single-thread
 * executor's local queue, like a worker's LIFO slot, is only touched by the thread that
 * runs its tasks, so it needs no order at all.
 */
#include "executor.h"

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include <zchan/block.h>

enum { IDLE, SCHEDULED, RUNNING, RUN_AGAIN, DONE };

struct ex_executor {
    pthread_mutex_t mu;   /* guards the fields from head to stopping */
    ex_task *head, *tail; /* FIFO of SCHEDULED tasks, linked through ex__next */
    size_t live;          /* spawned and not yet done */
    /* single-thread executor (nworkers == 0) */
    bool sleeping;        /* ex_run found nothing to do and parks (or is about to) */
    ex_task *local_head, *local_tail; /* woken on ex_run's thread: that thread's alone */
    zc_parker parker;
    /* pool (nworkers >= 1) */
    unsigned idle;        /* workers waiting on work_cv */
    bool stopping;        /* ex_free: workers exit once the queue is empty */
    pthread_cond_t work_cv; /* a task was queued, or stopping */
    pthread_cond_t done_cv; /* live dropped to 0 */
    unsigned nworkers;      /* set once by ex_new, like workers */
    pthread_t workers[];
};

/* The executor whose tasks the calling thread runs, if any: the pool it is a worker of,
 * or the single-thread executor whose ex_run it is in. For a pool worker, also its LIFO
 * slot: the task woken last from inside a poll on this worker, which runs next, without
 * a lock. */
static _Thread_local struct {
    ex_executor *ex;
    ex_task *lifo; /* SCHEDULED, on no queue; only this thread touches it */
} tl_worker;

/* Append t to the FIFO from head to tail, linked through ex__next. */
static void append(ex_task **head, ex_task **tail, ex_task *t) {
    t->ex__next = NULL;
    if (*tail)
        (*tail)->ex__next = t;
    else
        *head = t;
    *tail = t;
}

/* Append a SCHEDULED task and wake whoever will run it. mine: the caller is the worker
 * that polled the task last and will take it itself as soon as it is free (a requeue).
 * Called with ex->mu held; the wake-up is issued under the lock too, so that once the
 * caller unlocks it never touches ex again (ex_run may return and ex_free run at once). */
static void enqueue_locked(ex_executor *ex, ex_task *t, bool mine) {
    bool was_empty = ex->head == NULL;
    append(&ex->head, &ex->tail, t);
    if (ex->nworkers == 0) {
        if (ex->sleeping) {
            ex->sleeping = false;
            zc_waker w = zc_parker_waker(&ex->parker);
            w.wake(w.ctx);
        }
    } else if (ex->idle > 0 && !(was_empty && mine)) {
        /* One worker for one task: no herd. Skipped when a worker requeues the only
         * task (one that woke itself, or its LIFO task once the budget is spent): it
         * takes the task back as soon as it is free, instead of paying another thread's
         * futex wake-up and context switch for one task. A spawned task or one displaced
         * from a LIFO slot does wake an idle worker: the worker that queued it may be
         * busy for a while. */
        pthread_cond_signal(&ex->work_cv);
    }
}

static void push(ex_executor *ex, ex_task *t, bool mine) {
    pthread_mutex_lock(&ex->mu);
    enqueue_locked(ex, t, mine);
    pthread_mutex_unlock(&ex->mu);
}

/* Called with ex->mu held and the queue not empty. */
static ex_task *pop_locked(ex_executor *ex) {
    ex_task *t = ex->head;
    ex->head = t->ex__next;
    if (ex->head == NULL)
        ex->tail = NULL;
    return t;
}

/* Single-thread executor, on ex_run's thread: queue a task for ex_run's next round
 * without the lock or a wake-up (ex_run is running, not parked), as tokio's current-thread
 * scheduler keeps a local queue beside its shared one. */
static void push_local(ex_executor *ex, ex_task *t) {
    append(&ex->local_head, &ex->local_tail, t);
}

/* Queue a task that a wake has just made SCHEDULED. On a worker of its own pool it goes
 * into that worker's LIFO slot and is polled as soon as the running poll returns, with
 * no lock and no wake-up (tokio's LIFO slot): a task that wakes another hands it the warm
 * thread, and the data it just wrote with it. The task it displaces goes to the shared
 * queue, waking an idle worker. The slot is the worker's alone: a poll that runs long
 * holds back the task it woke last until it returns (as tokio's LIFO slot does). */
static void schedule(ex_executor *ex, ex_task *t) {
    if (tl_worker.ex != ex) {
        push(ex, t, false);
        return;
    }
    if (ex->nworkers == 0) {
        push_local(ex, t);
        return;
    }
    ex_task *old = tl_worker.lifo;
    tl_worker.lifo = t;
    if (old)
        push(ex, old, false);
}

void ex_wake(void *ctx) {
    ex_task *t = ctx;
    /* Relaxed: only a guess for the CAS below, which re-validates it. */
    unsigned s = atomic_load_explicit(&t->ex__state, memory_order_relaxed);
    unsigned next;
    do {
        assert(s != DONE && "wake of a task that is done: a future was left pending");
        /* IDLE: queue it. RUNNING: have it polled once more when this poll ends.
         * SCHEDULED, RUN_AGAIN: a poll is already coming; write the same value. */
        next = s == IDLE ? SCHEDULED : s == RUNNING ? RUN_AGAIN : s;
        /* [W1] release: pairs with [P1] / [P2]'s failure load (see the map above).
         * Acquire: pairs with [P2]'s release, so that the last poll, and ex_run's read
         * of the run-queue link outside the lock, are over before push rewrites it. */
    } while (!atomic_compare_exchange_weak_explicit(&t->ex__state, &s, next,
                                                    memory_order_acq_rel,
                                                    memory_order_relaxed));
    if (s == IDLE)
        schedule(t->ex__owner, t);
}

/* The task is done: let the user have it back, then count it out (in that order, so
 * that ex_run cannot return while on_done is still running). */
static void finish(ex_executor *ex, ex_task *t) {
    if (t->on_done)
        t->on_done(t);
    pthread_mutex_lock(&ex->mu);
    if (--ex->live == 0 && ex->nworkers > 0)
        pthread_cond_broadcast(&ex->done_cv); /* only ex_run waits on it */
    pthread_mutex_unlock(&ex->mu);
}

/* Poll a task that was just popped from the run queue (state SCHEDULED). */
static void run_task(ex_executor *ex, ex_task *t) {
    /* [P1] SCHEDULED -> RUNNING. Acquire pairs with [W1], [P2], [P3]. Only the thread
     * that popped the task changes SCHEDULED (a wake rewrites the same value), so an
     * exchange is enough. */
    unsigned prev = atomic_exchange_explicit(&t->ex__state, RUNNING, memory_order_acquire);
    assert(prev == SCHEDULED);
    (void)prev;
    zc_waker w = {ex_wake, t};
    if (t->poll(t, &w) == EX_DONE) {
        /* No wake can come any more (the poll's contract); relaxed because DONE only
         * feeds the assertion in ex_wake. */
        atomic_store_explicit(&t->ex__state, DONE, memory_order_relaxed);
        finish(ex, t);
        return;
    }
    unsigned s = RUNNING;
    /* [P2] RUNNING -> IDLE: from here a wake queues the task again. Release pairs with
     * the next [P1]; on failure (a wake made it RUN_AGAIN) acquire pairs with [W1]. */
    if (atomic_compare_exchange_strong_explicit(&t->ex__state, &s, IDLE,
                                                memory_order_release, memory_order_acquire))
        return;
    assert(s == RUN_AGAIN);
    /* [P3] RUN_AGAIN -> SCHEDULED, and requeue at the tail (a task that keeps waking
     * itself cannot starve the others). Wakes leave RUN_AGAIN as it is, so a store;
     * release pairs with [P1], carrying the wake acquired at [P2]. */
    atomic_store_explicit(&t->ex__state, SCHEDULED, memory_order_release);
    if (ex->nworkers == 0)
        push_local(ex, t); /* run_task runs on ex_run's thread */
    else
        push(ex, t, true);
}

static void *worker_main(void *arg) {
    ex_executor *ex = arg;
    tl_worker.ex = ex;
    unsigned lifo_runs = 0; /* polls in a row taken from the LIFO slot */
    for (;;) {
        ex_task *t = tl_worker.lifo;
        if (t && lifo_runs < EX_LIFO_BUDGET) {
            tl_worker.lifo = NULL;
            lifo_runs++;
            run_task(ex, t);
            continue;
        }
        lifo_runs = 0;
        pthread_mutex_lock(&ex->mu);
        if (t) { /* budget spent: behind the tasks already queued */
            tl_worker.lifo = NULL;
            enqueue_locked(ex, t, true);
        }
        while (!ex->head && !ex->stopping) {
            ex->idle++;
            pthread_cond_wait(&ex->work_cv, &ex->mu);
            ex->idle--;
        }
        if (!ex->head) { /* stopping, and nothing is left (no task is live) */
            pthread_mutex_unlock(&ex->mu);
            return NULL;
        }
        t = pop_locked(ex);
        pthread_mutex_unlock(&ex->mu);
        run_task(ex, t);
    }
}

/* Pool only: tell the workers to exit, and join the first n of them. */
static void stop_workers(ex_executor *ex, unsigned n) {
    pthread_mutex_lock(&ex->mu);
    ex->stopping = true;
    pthread_cond_broadcast(&ex->work_cv);
    pthread_mutex_unlock(&ex->mu);
    for (unsigned i = 0; i < n; i++)
        pthread_join(ex->workers[i], NULL);
}

static void destroy(ex_executor *ex) {
    if (ex->nworkers == 0) {
        zc_parker_destroy(&ex->parker);
    } else {
        pthread_cond_destroy(&ex->work_cv);
        pthread_cond_destroy(&ex->done_cv);
    }
    pthread_mutex_destroy(&ex->mu);
    free(ex);
}

ex_executor *ex_new(unsigned workers) {
    ex_executor *ex = calloc(1, sizeof *ex + (size_t)workers * sizeof(pthread_t));
    if (ex == NULL)
        return NULL;
    ex->nworkers = workers;
    pthread_mutex_init(&ex->mu, NULL);
    if (workers == 0) {
        zc_parker_init(&ex->parker);
        return ex;
    }
    pthread_cond_init(&ex->work_cv, NULL);
    pthread_cond_init(&ex->done_cv, NULL);
    for (unsigned i = 0; i < workers; i++) {
        if (pthread_create(&ex->workers[i], NULL, worker_main, ex) != 0) {
            stop_workers(ex, i);
            destroy(ex);
            return NULL;
        }
    }
    return ex;
}

void ex_spawn_then(ex_executor *ex, ex_task *t, ex_poll_fn poll, ex_done_fn on_done) {
    t->poll = poll;
    t->on_done = on_done;
    t->ex__owner = ex;
    /* Relaxed: the run queue's mutex publishes the task, with the fields above, to the
     * thread that pops it. */
    atomic_store_explicit(&t->ex__state, SCHEDULED, memory_order_relaxed);
    pthread_mutex_lock(&ex->mu);
    ex->live++;
    enqueue_locked(ex, t, false);
    pthread_mutex_unlock(&ex->mu);
}

void ex_spawn(ex_executor *ex, ex_task *t, ex_poll_fn poll) {
    ex_spawn_then(ex, t, poll, NULL);
}

/* Run a chain of SCHEDULED tasks linked through ex__next. */
static void run_chain(ex_executor *ex, ex_task *t) {
    while (t) {
        ex_task *next = t->ex__next; /* read first: run_task may requeue t */
        run_task(ex, t);
        t = next;
    }
}

void ex_run(ex_executor *ex) {
    pthread_mutex_lock(&ex->mu);
    if (ex->nworkers > 0) {
        while (ex->live > 0)
            pthread_cond_wait(&ex->done_cv, &ex->mu);
        pthread_mutex_unlock(&ex->mu);
        return;
    }
    ex_executor *outer = tl_worker.ex;
    tl_worker.ex = ex;
    while (ex->live > 0) {
        if (ex->head == NULL && ex->local_head == NULL) {
            /* Nothing runnable, yet tasks are live: some other thread will wake one.
             * The pusher sees sleeping under the same lock, so the wake is not lost
             * (and a wake before the park is kept by the parker). */
            ex->sleeping = true;
            pthread_mutex_unlock(&ex->mu);
            zc_parker_park(&ex->parker);
            pthread_mutex_lock(&ex->mu);
            continue;
        }
        /* A round: the tasks woken on this thread in the round before, then the shared
         * queue taken whole (one lock a round, not a task). Tasks woken meanwhile (also
         * the ones a round requeues) wait for the next round. */
        ex_task *mine = ex->local_head, *theirs = ex->head;
        ex->local_head = ex->local_tail = NULL;
        ex->head = ex->tail = NULL;
        pthread_mutex_unlock(&ex->mu);
        run_chain(ex, mine);
        run_chain(ex, theirs);
        pthread_mutex_lock(&ex->mu);
    }
    pthread_mutex_unlock(&ex->mu);
    tl_worker.ex = outer;
}

void ex_free(ex_executor *ex) {
    if (ex == NULL)
        return;
    assert(ex->live == 0 && "ex_free with tasks not done: call ex_run first");
    if (ex->nworkers > 0)
        stop_workers(ex, ex->nworkers);
    destroy(ex);
}

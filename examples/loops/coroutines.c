/*
 * coroutines: stackful coroutines (ucontext) that send and receive with ordinary-looking
 * code, one scheduler per thread, and work spread over the threads by one channel.
 *
 *   producer coroutine --jobs (bounded 8)--> 4 worker coroutines on each of 3 threads
 *                      --results (bounded 8)--> collector coroutine
 *
 * co_send and co_recv look like blocking calls, but they block only the coroutine: each
 * polls a zchan future that lives on the coroutine's own stack, and on ZC_PENDING
 * switches back to its thread's scheduler. The future's waker ({co_wake, coroutine})
 * puts the coroutine back on its scheduler's run queue, from whichever thread sent or
 * received, and unparks that thread if it was idle. A runtime's thread only ever runs
 * its own coroutines; the job channel is what spreads the work over the runtimes.
 *
 * Under AddressSanitizer and ThreadSanitizer every switch is announced to the sanitizer
 * (the fiber APIs), which is what makes ucontext switching visible to them.
 *
 * Exits 0 if every job came back exactly once with the right square, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ucontext under -std=c11 */
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define CO_ASAN 1
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
#define CO_TSAN 1
#include <sanitizer/tsan_interface.h>
#endif

enum { RUNTIMES = 3, WORKERS_PER_RUNTIME = 4, JOBS = 3000, STACK_SIZE = 256 * 1024 };

/* ---- a scheduler for stackful coroutines, one per thread --------------------------- */

typedef struct runtime runtime;

typedef struct coro {
    ucontext_t ctx;
    runtime *rt;
    void (*fn)(void *arg);
    void *arg;
    char *stack;
    struct coro *next; /* run-queue link; under rt->mu */
    bool queued;       /* on the run queue; under rt->mu */
    bool done;         /* set by the coroutine as it ends; read by its scheduler */
#ifdef CO_TSAN
    void *tsan_fiber;
#endif
} coro;

struct runtime {
    pthread_mutex_t mu;   /* guards head, tail, sleeping and every coro's queue fields */
    coro *head, *tail;    /* coroutines to resume, in wake order */
    bool sleeping;        /* the thread parks (or is about to) on parker */
    zc_parker parker;
    ucontext_t sched;     /* where a suspended coroutine returns to */
    coro *current;        /* the coroutine running now; this runtime's thread only */
    unsigned live;        /* coroutines not done; this runtime's thread only */
    unsigned id;
    pthread_t thread;
#ifdef CO_ASAN
    const void *stack_bottom; /* the thread's own stack, for switches back to it */
    size_t stack_size;
#endif
#ifdef CO_TSAN
    void *tsan_fiber;
#endif
};

static _Thread_local runtime *this_rt; /* the runtime whose thread this is */

/* Put c on its runtime's run queue, once, and wake the runtime's thread if it sleeps. */
static void enqueue(coro *c) {
    runtime *rt = c->rt;
    pthread_mutex_lock(&rt->mu);
    if (!c->queued) {
        c->queued = true;
        c->next = NULL;
        if (rt->tail)
            rt->tail->next = c;
        else
            rt->head = c;
        rt->tail = c;
        if (rt->sleeping) {
            rt->sleeping = false;
            zc_waker w = zc_parker_waker(&rt->parker);
            w.wake(w.ctx); /* under the lock, so that rt cannot be gone yet */
        }
    }
    pthread_mutex_unlock(&rt->mu);
}

/* The wake of every coroutine's waker: ctx is the coroutine. Any thread; never blocks
 * for longer than the run queue's lock. A wake may come while the coroutine is still
 * running (before it suspends); it is then resumed right after it suspends. */
static void co_wake(void *ctx) {
    enqueue(ctx);
}

/* Switch from the running context to `to`, telling the sanitizers. to_stack is the
 * stack `to` runs on; leaving_for_good: the current coroutine has ended. */
static void switch_to(ucontext_t *from, ucontext_t *to, const void *to_stack,
                      size_t to_stack_size, void *to_fiber, bool leaving_for_good) {
#ifdef CO_ASAN
    void *fake_stack = NULL;
    __sanitizer_start_switch_fiber(leaving_for_good ? NULL : &fake_stack, to_stack,
                                   to_stack_size);
#else
    (void)to_stack, (void)to_stack_size, (void)leaving_for_good;
#endif
#ifdef CO_TSAN
    __tsan_switch_to_fiber(to_fiber, 0);
#else
    (void)to_fiber;
#endif
    swapcontext(from, to);
#ifdef CO_ASAN
    /* Back here: some context switched to this one. */
    __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
}

/* Suspend the running coroutine until a wake puts it back on the run queue. */
static void co_suspend(void) {
    runtime *rt = this_rt;
    coro *c = rt->current;
    const void *stack = NULL;
    size_t size = 0;
    void *fiber = NULL;
#ifdef CO_ASAN
    stack = rt->stack_bottom, size = rt->stack_size;
#endif
#ifdef CO_TSAN
    fiber = rt->tsan_fiber;
#endif
    switch_to(&c->ctx, &rt->sched, stack, size, fiber, c->done);
}

static void co_entry(void) {
    runtime *rt = this_rt;
    coro *c = rt->current;
#ifdef CO_ASAN
    /* First entry: learn the scheduler's stack, to switch back to it later. */
    __sanitizer_finish_switch_fiber(NULL, &rt->stack_bottom, &rt->stack_size);
#endif
    c->fn(c->arg);
    c->done = true;
    co_suspend(); /* for good: the scheduler frees c */
}

/* Make a coroutine running fn(arg) on rt. Call before rt's thread starts. */
static int co_spawn(runtime *rt, void (*fn)(void *), void *arg) {
    coro *c = calloc(1, sizeof *c);
    char *stack = malloc(STACK_SIZE);
    if (c == NULL || stack == NULL || getcontext(&c->ctx) != 0) {
        free(c);
        free(stack);
        return -1;
    }
    c->rt = rt, c->fn = fn, c->arg = arg, c->stack = stack;
    c->ctx.uc_stack.ss_sp = stack;
    c->ctx.uc_stack.ss_size = STACK_SIZE;
    c->ctx.uc_link = NULL; /* co_entry never returns: it switches back for good */
    makecontext(&c->ctx, co_entry, 0);
#ifdef CO_TSAN
    c->tsan_fiber = __tsan_create_fiber(0);
#endif
    rt->live++;
    enqueue(c);
    return 0;
}

/* Take c off its runtime's run queue if a wake left it there. rt's thread only. */
static void unqueue(runtime *rt, coro *c) {
    pthread_mutex_lock(&rt->mu);
    if (c->queued) {
        coro *prev = NULL, **link = &rt->head;
        while (*link != c) {
            prev = *link;
            link = &prev->next;
        }
        *link = c->next;
        if (rt->tail == c)
            rt->tail = prev;
        c->queued = false;
    }
    pthread_mutex_unlock(&rt->mu);
}

/* A runtime's thread: resume runnable coroutines; park while there is none. */
static void *rt_main(void *arg) {
    runtime *rt = arg;
    this_rt = rt;
#ifdef CO_TSAN
    rt->tsan_fiber = __tsan_get_current_fiber();
#endif
    while (rt->live > 0) {
        pthread_mutex_lock(&rt->mu);
        while (rt->head == NULL) {
            rt->sleeping = true;
            pthread_mutex_unlock(&rt->mu);
            zc_parker_park(&rt->parker); /* a wake before the park is kept */
            pthread_mutex_lock(&rt->mu);
        }
        coro *c = rt->head;
        rt->head = c->next;
        if (rt->head == NULL)
            rt->tail = NULL;
        c->queued = false;
        pthread_mutex_unlock(&rt->mu);

        rt->current = c;
        void *fiber = NULL;
#ifdef CO_TSAN
        fiber = c->tsan_fiber;
#endif
        switch_to(&rt->sched, &c->ctx, c->stack, STACK_SIZE, fiber, false);
        if (c->done) {
            /* Its last future completed before it ended: no wake of it can come now. But
             * a wake that came while it still ran (its future was notified and then
             * completed without suspending) may have left it on the run queue: take it
             * off before freeing it. */
            unqueue(rt, c);
#ifdef CO_TSAN
            __tsan_destroy_fiber(c->tsan_fiber);
#endif
            free(c->stack);
            free(c);
            rt->live--;
        }
    }
    return NULL;
}

/* ---- ordinary-looking channel calls for coroutines -------------------------------- */

/* Send one message; suspends this coroutine (not its thread) while the channel is full. */
static zc_status co_send(zc_sender *tx, const void *msg) {
    zc_waker w = {co_wake, this_rt->current};
    zc_send f; /* on this coroutine's stack, which stays put while it is suspended */
    zc_send_init(&f, tx, msg);
    zc_status s;
    while ((s = zc_send_poll(&f, &w)) == ZC_PENDING)
        co_suspend();
    return s;
}

/* Receive one message; suspends this coroutine while the channel is empty. */
static zc_status co_recv(zc_receiver *rx, void *out) {
    zc_waker w = {co_wake, this_rt->current};
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_status s;
    while ((s = zc_recv_poll(&f, &w, out)) == ZC_PENDING)
        co_suspend();
    return s;
}

/* ---- the program ------------------------------------------------------------------ */

typedef struct result {
    uint64_t job, square;
    unsigned runtime;
} result;

typedef struct producer {
    zc_sender *jobs;
    bool failed;
} producer;

typedef struct worker {
    zc_receiver *jobs;   /* this worker's clone */
    zc_sender *results;  /* this worker's clone */
    bool failed;
} worker;

typedef struct collector {
    zc_receiver *results;
    unsigned char seen[JOBS + 1];
    unsigned per_runtime[RUNTIMES];
    unsigned received;
    bool wrong;
} collector;

static void produce(void *arg) {
    producer *p = arg;
    for (uint64_t job = 1; job <= JOBS; job++)
        if (co_send(p->jobs, &job) != ZC_OK)
            p->failed = true;
    zc_sender_drop(p->jobs); /* the only sender: the workers see ZC_CLOSED once drained */
}

static void work(void *arg) {
    worker *w = arg;
    uint64_t job;
    while (co_recv(w->jobs, &job) == ZC_OK) {
        result r = {.job = job, .square = job * job, .runtime = this_rt->id};
        if (co_send(w->results, &r) != ZC_OK)
            w->failed = true;
    }
    zc_receiver_drop(w->jobs);
    zc_sender_drop(w->results); /* the last worker's drop closes the results */
}

static void collect(void *arg) {
    collector *c = arg;
    result r;
    while (co_recv(c->results, &r) == ZC_OK) {
        if (r.job == 0 || r.job > JOBS || r.square != r.job * r.job || r.runtime >= RUNTIMES ||
            c->seen[r.job]++) {
            c->wrong = true;
            continue;
        }
        c->per_runtime[r.runtime]++;
        c->received++;
    }
    zc_receiver_drop(c->results);
}

int main(void) {
    static runtime rts[RUNTIMES];
    static worker workers[RUNTIMES][WORKERS_PER_RUNTIME];
    static collector col;
    producer prod = {0};
    zc_config jobs_cfg = {.elem_size = sizeof(uint64_t)}, res_cfg = {.elem_size = sizeof(result)};
    zc_receiver *jobs_rx;
    zc_sender *results_tx;
    if (zc_bounded(8, &jobs_cfg, &prod.jobs, &jobs_rx) != ZC_OK ||
        zc_bounded(8, &res_cfg, &results_tx, &col.results) != ZC_OK) {
        fprintf(stderr, "coroutines: cannot make the channels\n");
        return 1;
    }
    int err = 0;
    for (unsigned i = 0; i < RUNTIMES; i++) {
        rts[i].id = i;
        pthread_mutex_init(&rts[i].mu, NULL);
        zc_parker_init(&rts[i].parker);
        for (unsigned k = 0; k < WORKERS_PER_RUNTIME; k++) {
            worker *w = &workers[i][k];
            w->jobs = zc_receiver_clone(jobs_rx);
            w->results = zc_sender_clone(results_tx);
            err |= co_spawn(&rts[i], work, w);
        }
    }
    zc_receiver_drop(jobs_rx);
    zc_sender_drop(results_tx);
    err |= co_spawn(&rts[0], produce, &prod);
    err |= co_spawn(&rts[RUNTIMES - 1], collect, &col);
    if (err) {
        fprintf(stderr, "coroutines: out of memory\n");
        return 1;
    }
    for (unsigned i = 0; i < RUNTIMES; i++)
        if (pthread_create(&rts[i].thread, NULL, rt_main, &rts[i]) != 0) {
            fprintf(stderr, "coroutines: cannot start a thread\n");
            return 1;
        }
    for (unsigned i = 0; i < RUNTIMES; i++) {
        pthread_join(rts[i].thread, NULL);
        zc_parker_destroy(&rts[i].parker);
        pthread_mutex_destroy(&rts[i].mu);
    }

    bool failed = prod.failed || col.wrong || col.received != JOBS;
    for (unsigned i = 0; i < RUNTIMES; i++)
        for (unsigned k = 0; k < WORKERS_PER_RUNTIME; k++)
            failed |= workers[i][k].failed;
    printf("coroutines: %u of %d jobs came back; done per runtime:", col.received, JOBS);
    for (unsigned i = 0; i < RUNTIMES; i++) printf(" %u", col.per_runtime[i]);
    printf("\ncoroutines: %s\n", failed ? "FAILED" : "all as expected");
    return failed ? 1 : 0;
}

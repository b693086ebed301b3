/*
 * work_spreading: spread jobs over several threads, each running its own executor.
 *
 * main --jobs (bounded 16)--> 4 worker threads --results (unbounded)--> main
 *
 * Every worker thread owns a clone of the one job receiver and of the result sender,
 * and runs a single-thread executor (examples/executor.h) with two tasks. A task loops:
 * receive a job (zc_recv_poll), square it, send the result back (zc_send_poll); it is
 * driven only by polls and wakers, never by a call that waits. main sends the jobs
 * 1..100 with blocking sends, drops its sender (which closes the job channel once the
 * workers drained it: their tasks then see ZC_CLOSED and end), and collects results
 * until the result channel closes, which happens when the last worker dropped its
 * result sender.
 *
 * Exits 0 if every job came back exactly once with the right square, 1 otherwise.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

#include "executor.h"

enum { WORKERS = 4, TASKS_PER_WORKER = 2, JOBS = 100 };

typedef struct result {
    uint64_t job, square;
    unsigned worker;
} result;

typedef struct job_task {
    ex_task task;       /* first member: the executor hands &task back to job_poll */
    zc_recv next_job;   /* a stream: polled again for each job */
    zc_send reply;      /* the send of out, while replying */
    bool replying;
    uint64_t job;
    result out;         /* borrowed by reply until that send completes */
    zc_sender *results;
    unsigned worker;
    bool failed;
} job_task;

typedef struct worker {
    pthread_t thread;
    unsigned id;
    zc_receiver *jobs;  /* this worker's clone of the job receiver */
    zc_sender *results; /* this worker's clone of the result sender */
    job_task tasks[TASKS_PER_WORKER];
    bool failed;
} worker;

/* One step of a task: wait for a job, or for room to send its result. */
static ex_result job_poll(ex_task *t, const zc_waker *w) {
    job_task *jt = (job_task *)t;
    zc_status s;
    if (!jt->replying) {
        s = zc_recv_poll(&jt->next_job, w, &jt->job);
        if (s == ZC_PENDING)
            return EX_PENDING; /* w will be called when a job (or the close) comes */
        if (s == ZC_CLOSED)
            return EX_DONE; /* no job left and no sender: this task's work is over */
        if (s != ZC_OK)
            goto fail;
        jt->out = (result){.job = jt->job, .square = jt->job * jt->job, .worker = jt->worker};
        zc_send_init(&jt->reply, jt->results, &jt->out);
        jt->replying = true;
    }
    s = zc_send_poll(&jt->reply, w);
    if (s == ZC_PENDING)
        return EX_PENDING;
    jt->replying = false;
    if (s != ZC_OK)
        goto fail;
    /* One job per poll: ask to be polled again, after the other task on this thread. */
    w->wake(w->ctx);
    return EX_PENDING;
fail:
    fprintf(stderr, "worker %u: unexpected %s\n", jt->worker, zc_status_str(s));
    jt->failed = true;
    return EX_DONE;
}

static void *worker_main(void *arg) {
    worker *wk = arg;
    ex_executor *ex = ex_new(0);
    if (ex == NULL) {
        wk->failed = true;
    } else {
        for (unsigned i = 0; i < TASKS_PER_WORKER; i++) {
            job_task *jt = &wk->tasks[i];
            *jt = (job_task){.results = wk->results, .worker = wk->id};
            zc_recv_init(&jt->next_job, wk->jobs);
            ex_spawn(ex, &jt->task, job_poll);
        }
        ex_run(ex); /* until both tasks saw the job channel closed */
        ex_free(ex);
        for (unsigned i = 0; i < TASKS_PER_WORKER; i++)
            wk->failed |= wk->tasks[i].failed;
    }
    zc_receiver_drop(wk->jobs);
    zc_sender_drop(wk->results); /* the last worker to get here closes the results */
    return NULL;
}

int main(void) {
    zc_sender *job_tx, *result_tx;
    zc_receiver *job_rx, *result_rx;
    if (zc_bounded(16, &(zc_config){.elem_size = sizeof(uint64_t)}, &job_tx, &job_rx) != ZC_OK ||
        zc_unbounded(&(zc_config){.elem_size = sizeof(result)}, &result_tx, &result_rx) != ZC_OK) {
        fprintf(stderr, "work_spreading: could not make the channels\n");
        return 1;
    }

    worker workers[WORKERS];
    bool failed = false;
    for (unsigned i = 0; i < WORKERS; i++) {
        workers[i] = (worker){.id = i,
                              .jobs = zc_receiver_clone(job_rx),
                              .results = zc_sender_clone(result_tx)};
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "work_spreading: could not start worker %u\n", i);
            return 1;
        }
    }
    /* The workers hold their own handles; main keeps only the ends it uses. */
    zc_receiver_drop(job_rx);
    zc_sender_drop(result_tx);

    for (uint64_t n = 1; n <= JOBS; n++) {
        zc_status s = zc_send_blocking(job_tx, &n); /* waits while 16 jobs are queued */
        if (s != ZC_OK) {
            fprintf(stderr, "work_spreading: sending job %llu: %s\n", (unsigned long long)n,
                    zc_status_str(s));
            failed = true;
            break;
        }
    }
    zc_sender_drop(job_tx); /* no more jobs: closes the job channel */

    bool seen[JOBS + 1] = {false};
    unsigned per_worker[WORKERS] = {0};
    uint64_t total = 0, count = 0;
    result r;
    zc_status s;
    while ((s = zc_recv_blocking(result_rx, &r)) == ZC_OK) {
        if (r.job < 1 || r.job > JOBS || seen[r.job] || r.square != r.job * r.job ||
            r.worker >= WORKERS) {
            fprintf(stderr, "work_spreading: bad result: job %llu square %llu worker %u\n",
                    (unsigned long long)r.job, (unsigned long long)r.square, r.worker);
            failed = true;
            continue;
        }
        seen[r.job] = true;
        per_worker[r.worker]++;
        total += r.square;
        count++;
    }
    if (s != ZC_CLOSED) {
        fprintf(stderr, "work_spreading: receiving results: %s\n", zc_status_str(s));
        failed = true;
    }

    for (unsigned i = 0; i < WORKERS; i++) {
        pthread_join(workers[i].thread, NULL);
        failed |= workers[i].failed;
        printf("worker %u handled %u jobs\n", i, per_worker[i]);
    }
    zc_receiver_drop(result_rx);

    const uint64_t want = (uint64_t)JOBS * (JOBS + 1) * (2 * JOBS + 1) / 6;
    printf("%llu results, sum of squares %llu (expected %llu)\n", (unsigned long long)count,
           (unsigned long long)total, (unsigned long long)want);
    if (failed || count != JOBS || total != want) {
        printf("work_spreading: FAILED\n");
        return 1;
    }
    printf("work_spreading: all as expected\n");
    return 0;
}

/*
 * uv_loop: a libuv loop that waits on a zchan channel and on timers at the same time.
 *
 * The waker is a uv_async_t: its wake calls uv_async_send, which libuv allows from any
 * thread, never blocks, and coalesces (many sends before the loop runs the callback
 * make one callback). The async callback polls the receive future until it returns
 * ZC_PENDING (registered again) or ZC_CLOSED (the end). A uv_timer_t flushes batches;
 * a second, one-shot timer is a deadline. The job itself is in feed.h.
 *
 * Exits 0 if every reading arrived once, in order, and was flushed on a timer tick.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* uv.h needs POSIX types (pthread_rwlock_t) under -std=c11 */
#endif

#include <stdbool.h>
#include <stdio.h>

#include <uv.h>
#include <zchan/mpmc.h>

#include "feed.h"

typedef struct app {
    uv_async_t async; /* the waker's target */
    uv_timer_t tick, deadline;
    zc_recv next;     /* the receive future, polled again after each wake */
    zc_waker waker;   /* {wake_async, &async} */
    feed feed;
    bool finished;
} app;

/* The zc_waker's wake: any thread, must not block. */
static void wake_async(void *ctx) {
    uv_async_send(ctx);
}

static void stop(app *a) {
    /* No wake may come once the handles are closed: the future has completed, or is
     * cancelled here (after which zchan never calls the waker). */
    zc_recv_cancel(&a->next);
    uv_close((uv_handle_t *)&a->async, NULL);
    uv_close((uv_handle_t *)&a->tick, NULL);
    uv_close((uv_handle_t *)&a->deadline, NULL);
}

/* Woken: take every reading there is, until the future is pending again or closed. */
static void on_wake(uv_async_t *h) {
    app *a = h->data;
    uint64_t reading;
    zc_status s;
    while ((s = zc_recv_poll(&a->next, &a->waker, &reading)) == ZC_OK)
        feed_take(&a->feed, reading);
    if (s == ZC_CLOSED) {
        a->finished = true;
        stop(a);
    }
}

static void on_tick(uv_timer_t *t) {
    app *a = t->data;
    feed_tick(&a->feed);
}

static void on_deadline(uv_timer_t *t) {
    stop(t->data);
}

int main(void) {
    uv_loop_t loop;
    app a = {.finished = false};
    if (uv_loop_init(&loop) != 0 || uv_async_init(&loop, &a.async, on_wake) != 0) {
        fprintf(stderr, "uv_loop: cannot set up libuv\n");
        return 1;
    }
    uv_timer_init(&loop, &a.tick);
    uv_timer_init(&loop, &a.deadline);
    a.async.data = a.tick.data = a.deadline.data = &a;
    a.waker = (zc_waker){.wake = wake_async, .ctx = &a.async};

    if (feed_start(&a.feed) != 0) {
        fprintf(stderr, "uv_loop: cannot start the producer\n");
        return 1;
    }
    zc_recv_init(&a.next, a.feed.readings);
    uv_timer_start(&a.tick, on_tick, FEED_TICK_MS, FEED_TICK_MS);
    uv_timer_start(&a.deadline, on_deadline, FEED_DEADLINE_MS, 0);
    on_wake(&a.async); /* the first poll registers the waker */

    uv_run(&loop, UV_RUN_DEFAULT); /* returns once stop() has closed every handle */
    uv_loop_close(&loop);
    return feed_finish(&a.feed, "uv_loop", a.finished);
}

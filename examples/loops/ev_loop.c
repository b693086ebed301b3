/*
 * ev_loop: a libev loop that waits on a zchan channel and on timers at the same time.
 *
 * The waker is an ev_async watcher: its wake calls ev_async_send, which libev allows
 * from any thread (and from signal handlers) and which coalesces like uv_async_send.
 * The watcher's callback polls the receive future until it returns ZC_PENDING or
 * ZC_CLOSED. A repeating ev_timer flushes batches; a one-shot one is a deadline. The
 * job itself is in feed.h.
 *
 * Exits 0 if every reading arrived once, in order, and was flushed on a timer tick.
 */
#include <stdbool.h>
#include <stdio.h>

#include <ev.h>
#include <zchan/mpmc.h>

#include "feed.h"

typedef struct app {
    struct ev_loop *loop;
    ev_async async;   /* the waker's target */
    ev_timer tick, deadline;
    zc_recv next;     /* the receive future, polled again after each wake */
    zc_waker waker;   /* {wake_async, &app} */
    feed feed;
    bool finished;
} app;

/* The zc_waker's wake: any thread, must not block. */
static void wake_async(void *ctx) {
    app *a = ctx;
    ev_async_send(a->loop, &a->async);
}

static void stop(app *a) {
    zc_recv_cancel(&a->next); /* no wake after this: the watcher may stop */
    ev_async_stop(a->loop, &a->async);
    ev_timer_stop(a->loop, &a->tick);
    ev_timer_stop(a->loop, &a->deadline);
}

/* Woken: take every reading there is, until the future is pending again or closed. */
static void on_wake(struct ev_loop *loop, ev_async *w, int revents) {
    (void)loop, (void)revents;
    app *a = w->data;
    uint64_t reading;
    zc_status s;
    while ((s = zc_recv_poll(&a->next, &a->waker, &reading)) == ZC_OK)
        feed_take(&a->feed, reading);
    if (s == ZC_CLOSED) {
        a->finished = true;
        stop(a);
    }
}

static void on_tick(struct ev_loop *loop, ev_timer *t, int revents) {
    (void)loop, (void)revents;
    app *a = t->data;
    feed_tick(&a->feed);
}

static void on_deadline(struct ev_loop *loop, ev_timer *t, int revents) {
    (void)loop, (void)revents;
    stop(t->data);
}

int main(void) {
    app a = {.loop = ev_loop_new(EVFLAG_AUTO)};
    if (a.loop == NULL) {
        fprintf(stderr, "ev_loop: cannot make a libev loop\n");
        return 1;
    }
    ev_async_init(&a.async, on_wake);
    ev_timer_init(&a.tick, on_tick, FEED_TICK_MS / 1000.0, FEED_TICK_MS / 1000.0);
    ev_timer_init(&a.deadline, on_deadline, FEED_DEADLINE_MS / 1000.0, 0.0);
    a.async.data = a.tick.data = a.deadline.data = &a;
    a.waker = (zc_waker){.wake = wake_async, .ctx = &a};
    ev_async_start(a.loop, &a.async);
    ev_timer_start(a.loop, &a.tick);
    ev_timer_start(a.loop, &a.deadline);

    if (feed_start(&a.feed) != 0) {
        fprintf(stderr, "ev_loop: cannot start the producer\n");
        return 1;
    }
    zc_recv_init(&a.next, a.feed.readings);
    on_wake(a.loop, &a.async, 0); /* the first poll registers the waker */

    ev_run(a.loop, 0); /* returns once stop() has stopped every watcher */
    ev_loop_destroy(a.loop);
    return feed_finish(&a.feed, "ev_loop", a.finished);
}

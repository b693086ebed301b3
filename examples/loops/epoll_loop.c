/*
 * epoll_loop: a bare epoll loop (Linux) that waits on a zchan channel and on timers at
 * the same time, with no library between them.
 *
 * The waker is a zc_fd_waker (zchan/fd.h): an eventfd that becomes readable when the
 * receive future is woken. It is registered edge-triggered (EPOLLET), so each event
 * means "woken since the last drain": the loop drains it, then polls the future until
 * ZC_PENDING (registered again) or ZC_CLOSED. Level-triggered works the same way (drain,
 * then poll); without the drain it would report the descriptor again at once. Timers
 * are timerfds, level-triggered: a periodic one flushes batches, a one-shot one is a
 * deadline. The job itself is in feed.h.
 *
 * Exits 0 if every reading arrived once, in order, and was flushed on a timer tick.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* epoll, timerfd */
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <zchan/fd.h>
#include <zchan/mpmc.h>

#include "feed.h"

enum { WAKER, TICK, DEADLINE }; /* epoll_event.data.u32 */

/* A timerfd that fires after first_ms, then every period_ms (0: once). */
static int timer_ms(int first_ms, int period_ms) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec its = {
        .it_value = {first_ms / 1000, (long)(first_ms % 1000) * 1000000},
        .it_interval = {period_ms / 1000, (long)(period_ms % 1000) * 1000000},
    };
    if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int watch(int ep, int fd, uint32_t events, uint32_t id) {
    struct epoll_event ev = {.events = events, .data.u32 = id};
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

int main(void) {
    zc_fd_waker fw;
    if (zc_fd_waker_init(&fw) != ZC_OK) {
        perror("epoll_loop: zc_fd_waker_init");
        return 1;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int tick = timer_ms(FEED_TICK_MS, FEED_TICK_MS);
    int deadline = timer_ms(FEED_DEADLINE_MS, 0);
    if (ep < 0 || tick < 0 || deadline < 0 ||
        watch(ep, zc_fd_waker_fd(&fw), EPOLLIN | EPOLLET, WAKER) != 0 ||
        watch(ep, tick, EPOLLIN, TICK) != 0 || watch(ep, deadline, EPOLLIN, DEADLINE) != 0) {
        perror("epoll_loop: cannot set up epoll and its timers");
        return 1;
    }

    feed f;
    if (feed_start(&f) != 0) {
        fprintf(stderr, "epoll_loop: cannot start the producer\n");
        return 1;
    }
    zc_waker waker = zc_fd_waker_waker(&fw);
    zc_recv next;
    zc_recv_init(&next, f.readings);
    bool finished = false, gave_up = false, woken = true; /* poll once before any wait */
    while (!finished && !gave_up) {
        if (woken) {
            uint64_t reading;
            zc_status s;
            while ((s = zc_recv_poll(&next, &waker, &reading)) == ZC_OK)
                feed_take(&f, reading);
            finished = s == ZC_CLOSED;
            woken = false;
            continue;
        }
        struct epoll_event events[3];
        int n = epoll_wait(ep, events, 3, -1);
        if (n < 0 && errno != EINTR) {
            perror("epoll_loop: epoll_wait");
            gave_up = true;
        }
        for (int i = 0; i < n; i++) {
            uint64_t expirations;
            switch (events[i].data.u32) {
            case WAKER:
                zc_fd_waker_drain(&fw); /* first drain, then poll (above) */
                woken = true;
                break;
            case TICK:
                if (read(tick, &expirations, sizeof expirations) > 0)
                    feed_tick(&f);
                break;
            case DEADLINE:
                gave_up = true;
                break;
            }
        }
    }
    zc_recv_cancel(&next); /* when giving up: no wake may come after the destroy below */
    close(tick);
    close(deadline);
    close(ep);
    zc_fd_waker_destroy(&fw);
    return feed_finish(&f, "epoll_loop", finished);
}

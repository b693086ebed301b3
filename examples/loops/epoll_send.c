/*
 * epoll_send: the send side of an event loop, with back-pressure (Linux, bare epoll).
 *
 *   writer thread --pipe--> epoll loop --records (bounded 4)--> slow consumer thread
 *
 * The loop reads 8-byte records from a pipe and sends each into a small bounded channel
 * whose consumer is slower than the writer. It keeps one send future. When a send
 * returns ZC_PENDING (the channel is full) the loop stops watching the pipe, so it reads
 * nothing more while the message waits; the future's waker (a zc_fd_waker, registered
 * edge-triggered beside the pipe) fires once a slot frees, the loop drains it and polls
 * the future again, and once the send completes it watches the pipe again. Meanwhile the
 * pipe fills up and the writer blocks in write(2): the channel's back-pressure reaches
 * the source through the kernel's own flow control, and nothing is buffered in the loop.
 *
 * The pause and resume are the loop's own calls (here epoll_ctl EPOLL_CTL_DEL, then
 * EPOLL_CTL_ADD; libuv: uv_read_stop / uv_read_start; libev: ev_io_stop / ev_io_start);
 * zchan's part is one send future and its waker.
 *
 * Exits 0 if every record arrived once and in order, the loop paused at least once, and
 * it resumed after every pause.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* epoll, timerfd, pipe2 */
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <zchan/block.h>
#include <zchan/fd.h>
#include <zchan/mpmc.h>

enum {
    RECORDS = 2000,
    CAPACITY = 4,
    CONSUMER_PAUSE_US = 20, /* the consumer's work per record: slower than the writer */
    DEADLINE_MS = 10000     /* a loop still running then has lost a wake-up: give up */
};

enum { SOURCE, WAKER, DEADLINE }; /* epoll_event.data.u32 */

/* The loop's sending side: one send future, and whether it is pending. */
typedef struct pump {
    int ep, src;      /* the loop; the source it reads (the pipe's read end) */
    zc_sender *tx;
    zc_waker waker;   /* the zc_fd_waker's */
    zc_send out;      /* the one send future */
    uint64_t msg;     /* what out sends: stays put while it is pending */
    bool sending;     /* out is pending: the source is not watched */
    unsigned pauses, resumes;
} pump;

/* Watch the source for input, or stop watching it. Stopping takes it out of the epoll
 * set: one left in with no events would still report EPOLLHUP once the writer is gone,
 * and the loop would spin while its send waits. */
static int watch_source(pump *p, bool on) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = SOURCE};
    return epoll_ctl(p->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, p->src, &ev);
}

/* Poll the send future; pause the source when it starts waiting, resume it when done. */
static zc_status pump_poll(pump *p) {
    zc_status s = zc_send_poll(&p->out, &p->waker);
    bool was = p->sending;
    p->sending = s == ZC_PENDING;
    if (p->sending && !was) {
        p->pauses++;
        watch_source(p, false);
    } else if (!p->sending && was) {
        p->resumes++;
        watch_source(p, true);
    }
    return s;
}

/* A record came from the source: start sending it. */
static zc_status pump_send(pump *p, uint64_t record) {
    p->msg = record;
    zc_send_init(&p->out, p->tx, &p->msg);
    return pump_poll(p);
}

/* ---- the two threads around the loop ------------------------------------------------ */

typedef struct writer {
    int fd; /* the pipe's write end, blocking */
    bool failed;
} writer;

static void *write_records(void *arg) {
    writer *w = arg;
    for (uint64_t r = 1; r <= RECORDS && !w->failed; r++)
        w->failed = write(w->fd, &r, sizeof r) != (ssize_t)sizeof r; /* atomic: < PIPE_BUF */
    close(w->fd); /* end of input: the loop reads 0 */
    return NULL;
}

typedef struct consumer {
    zc_receiver *rx;
    uint64_t next; /* the record expected next */
    bool out_of_order;
} consumer;

static void *consume(void *arg) {
    consumer *c = arg;
    uint64_t r;
    struct timespec work = {0, CONSUMER_PAUSE_US * 1000L};
    while (zc_recv_blocking(c->rx, &r) == ZC_OK) {
        c->out_of_order |= r != c->next;
        c->next = r + 1;
        nanosleep(&work, NULL);
    }
    return NULL; /* ZC_CLOSED: the loop dropped its sender, and all was received */
}

/* ---- the loop ------------------------------------------------------------------------ */

/* Returns true once the source ended and every record was sent, false if it gave up. */
static bool run(pump *p, zc_fd_waker *fw) {
    for (;;) {
        struct epoll_event events[3];
        int n = epoll_wait(p->ep, events, 3, -1);
        if (n < 0 && errno != EINTR) {
            perror("epoll_send: epoll_wait");
            return false;
        }
        for (int i = 0; i < n; i++) {
            switch (events[i].data.u32) {
            case WAKER:
                zc_fd_waker_drain(fw); /* first drain, then poll */
                if (p->sending && pump_poll(p) == ZC_CLOSED) return false;
                break;
            case SOURCE:
                /* Watched only while no send is pending: read and send until one waits
                 * (then the source is no longer watched) or the pipe is empty. */
                while (!p->sending) {
                    uint64_t record;
                    ssize_t got = read(p->src, &record, sizeof record);
                    if (got == 0) return true; /* the writer is done; nothing pending */
                    if (got != (ssize_t)sizeof record) {
                        if (got < 0 && (errno == EAGAIN || errno == EINTR)) break;
                        perror("epoll_send: read");
                        return false;
                    }
                    if (pump_send(p, record) == ZC_CLOSED) return false;
                }
                break;
            case DEADLINE:
                return false;
            }
        }
    }
}

int main(void) {
    signal(SIGPIPE, SIG_IGN); /* a writer cut off by an early exit gets EPIPE instead */
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    pump p = {.ep = -1};
    zc_receiver *rx;
    zc_fd_waker fw;
    int pipefd[2];
    if (zc_bounded(CAPACITY, &cfg, &p.tx, &rx) != ZC_OK || zc_fd_waker_init(&fw) != ZC_OK ||
        pipe2(pipefd, O_CLOEXEC) != 0 || fcntl(pipefd[0], F_SETFL, O_NONBLOCK) != 0) {
        perror("epoll_send: cannot set up");
        return 1;
    }
    p.src = pipefd[0];
    p.waker = zc_fd_waker_waker(&fw);
    zc_send_init(&p.out, p.tx, &p.msg); /* so that the cancel below is always defined */
    p.ep = epoll_create1(EPOLL_CLOEXEC);
    int deadline = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec its = {.it_value = {DEADLINE_MS / 1000, 0}};
    struct epoll_event src_ev = {.events = EPOLLIN, .data.u32 = SOURCE};
    struct epoll_event fw_ev = {.events = EPOLLIN | EPOLLET, .data.u32 = WAKER};
    struct epoll_event dl_ev = {.events = EPOLLIN, .data.u32 = DEADLINE};
    if (p.ep < 0 || deadline < 0 || timerfd_settime(deadline, 0, &its, NULL) != 0 ||
        epoll_ctl(p.ep, EPOLL_CTL_ADD, p.src, &src_ev) != 0 ||
        epoll_ctl(p.ep, EPOLL_CTL_ADD, zc_fd_waker_fd(&fw), &fw_ev) != 0 ||
        epoll_ctl(p.ep, EPOLL_CTL_ADD, deadline, &dl_ev) != 0) {
        perror("epoll_send: cannot set up epoll");
        return 1;
    }

    writer w = {.fd = pipefd[1]};
    consumer c = {.rx = rx, .next = 1};
    pthread_t wt, ct;
    if (pthread_create(&wt, NULL, write_records, &w) != 0 ||
        pthread_create(&ct, NULL, consume, &c) != 0) {
        fprintf(stderr, "epoll_send: cannot start the threads\n");
        return 1;
    }

    bool finished = run(&p, &fw);
    zc_send_cancel(&p.out); /* when giving up: no wake may come after the destroy below */
    zc_sender_drop(p.tx);   /* closes the channel: the consumer ends after the last record */
    close(p.src);           /* a writer still blocked on a full pipe (gave up) gets EPIPE */
    pthread_join(wt, NULL);
    pthread_join(ct, NULL);
    zc_receiver_drop(rx);
    close(deadline);
    close(p.ep);
    zc_fd_waker_destroy(&fw);

    bool ok = finished && !w.failed && !c.out_of_order && c.next == RECORDS + 1 &&
              p.pauses > 0 && p.resumes == p.pauses;
    printf("epoll_send: %s: %llu of %d records in order; the source paused %u times, "
           "resumed %u\n",
           ok ? "ok" : "FAILED", (unsigned long long)(c.next - 1), RECORDS, p.pauses,
           p.resumes);
    return ok ? 0 : 1;
}

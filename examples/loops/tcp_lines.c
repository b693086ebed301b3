/*
 * tcp_lines: a line-processing TCP server on 127.0.0.1 whose epoll acceptor hands each
 * connection to a pool of worker threads through one channel and gets a summary of each
 * back through another; clients in the same program drive it and check every reply.
 *
 *   clients --TCP--> acceptor (epoll) --conns (bounded 2)--> 3 workers
 *   acceptor <--results (bounded 4)-- workers
 *
 * The acceptor is one thread waiting on the listening socket, a deadline timerfd and
 * one zc_fd_waker (zchan/fd.h) that serves both of its futures: the send of the
 * connection it has just accepted and the receive of the next summary. After each
 * drain it polls both. While the send is pending (every worker busy and the channel
 * full), it stops watching the listening socket: new connections wait in the kernel's
 * backlog, which is the channel's back-pressure reaching the network. Workers are plain
 * threads: they take connections with zc_recv_blocking, answer each line "n" with
 * "n n*n", and report {connection, lines, sum} with zc_send_blocking. Once every
 * connection has been summarised the acceptor closes the connection channel; the
 * workers see ZC_CLOSED and end, their drops close the results channel, and the loop
 * ends. Sockets have receive timeouts and the loop a deadline, so a run is bounded.
 *
 * Exits 0 if every client got every reply right and every connection was summarised
 * exactly once with the right totals, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, epoll, timerfd */
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <zchan/block.h>
#include <zchan/fd.h>
#include <zchan/mpmc.h>

enum {
    WORKERS = 3,
    CLIENTS = 4,          /* client threads, each making CONNS_PER_CLIENT connections */
    CONNS_PER_CLIENT = 4,
    CONNS = CLIENTS * CONNS_PER_CLIENT,
    LINES = 50,           /* lines per connection */
    DEADLINE_S = 10,
    SOCKET_TIMEOUT_S = 5,
};

typedef struct conn {
    int fd;
    unsigned id; /* acceptance order, 0.. */
} conn;

typedef struct summary {
    unsigned id, lines;
    uint64_t sum; /* of the numbers received */
    bool ok;      /* every line parsed and every reply written */
} summary;

/* The connection channel's drop_msg: a connection that no worker will take (only when
 * giving up) is closed, not leaked. */
static void close_conn(void *msg, void *ctx) {
    (void)ctx;
    close(((conn *)msg)->fd);
}

static void set_timeout(int fd) {
    struct timeval tv = {.tv_sec = SOCKET_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static bool write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

/* Read lines from fd until EOF, calling line(text, ctx) for each (without '\n'). */
static bool each_line(int fd, bool (*line)(const char *text, void *ctx), void *ctx) {
    char buf[4096];
    size_t have = 0;
    for (;;) {
        ssize_t k = read(fd, buf + have, sizeof buf - 1 - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return false; /* error or timeout */
        if (k == 0)
            return have == 0; /* EOF; a last line without '\n' is an error */
        have += (size_t)k;
        buf[have] = '\0';
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', have - (size_t)(start - buf))) != NULL) {
            *nl = '\0';
            if (!line(start, ctx))
                return false;
            start = nl + 1;
        }
        have -= (size_t)(start - buf);
        memmove(buf, start, have);
        if (have == sizeof buf - 1)
            return false; /* a line longer than the buffer */
    }
}

/* ---- workers ---------------------------------------------------------------------- */

typedef struct worker {
    pthread_t thread;
    zc_receiver *conns;  /* this worker's clone */
    zc_sender *results;  /* this worker's clone */
} worker;

typedef struct serving {
    int fd;
    summary s;
} serving;

static bool answer(const char *text, void *ctx) {
    serving *sv = ctx;
    char *end;
    unsigned long long n = strtoull(text, &end, 10);
    if (end == text || *end != '\0')
        return false;
    char reply[64];
    int len = snprintf(reply, sizeof reply, "%llu %llu\n", n, n * n);
    sv->s.lines++;
    sv->s.sum += n;
    return write_all(sv->fd, reply, (size_t)len);
}

static void *work(void *arg) {
    worker *w = arg;
    conn c;
    while (zc_recv_blocking(w->conns, &c) == ZC_OK) {
        serving sv = {.fd = c.fd, .s = {.id = c.id}};
        sv.s.ok = each_line(c.fd, answer, &sv);
        close(c.fd);
        if (zc_send_blocking(w->results, &sv.s) != ZC_OK)
            break;
    }
    zc_receiver_drop(w->conns);
    zc_sender_drop(w->results);
    return NULL;
}

/* ---- clients ---------------------------------------------------------------------- */

typedef struct client {
    pthread_t thread;
    unsigned index;
    uint16_t port;
    unsigned failures;
} client;

typedef struct checking {
    unsigned base, next; /* the reply expected next is for base + next */
} checking;

static bool check_reply(const char *text, void *ctx) {
    checking *ck = ctx;
    unsigned long long n = ck->base + ck->next, got_n, got_sq;
    if (sscanf(text, "%llu %llu", &got_n, &got_sq) != 2 || got_n != n || got_sq != n * n)
        return false;
    ck->next++;
    return true;
}

static void *run_client(void *arg) {
    client *cl = arg;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(cl->port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (unsigned k = 0; k < CONNS_PER_CLIENT; k++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        checking ck = {.base = (cl->index * CONNS_PER_CLIENT + k) * 1000u};
        bool ok = fd >= 0;
        if (ok) {
            set_timeout(fd);
            ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
        }
        char text[LINES * 16], *p = text;
        for (unsigned i = 0; i < LINES; i++) p += sprintf(p, "%u\n", ck.base + i);
        ok = ok && write_all(fd, text, (size_t)(p - text));
        ok = ok && shutdown(fd, SHUT_WR) == 0;         /* EOF: the server ends this one */
        ok = ok && each_line(fd, check_reply, &ck) && ck.next == LINES;
        if (fd >= 0)
            close(fd);
        if (!ok)
            cl->failures++;
    }
    return NULL;
}

/* ---- the acceptor ----------------------------------------------------------------- */

enum { LISTENER, WAKER, DEADLINE }; /* epoll_event.data.u32 */

typedef struct acceptor {
    int ep, listener;
    zc_fd_waker fw;
    zc_waker waker;
    zc_sender *conns;
    zc_receiver *results;
    zc_send handing;     /* the send of `accepted`, while pending */
    conn accepted;       /* borrowed by `handing` until the send completes */
    bool send_pending;
    zc_recv next_summary;
    unsigned accepted_count, summarised;
    unsigned char seen[CONNS];
    uint64_t lines, sum;
    bool wrong;
} acceptor;

static void watch_listener(acceptor *a, bool on) {
    struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.u32 = LISTENER};
    epoll_ctl(a->ep, EPOLL_CTL_MOD, a->listener, &ev);
}

/* Drive the pending hand-over. True once it is done (or failed). */
static bool hand_over(acceptor *a) {
    zc_status s = zc_send_poll(&a->handing, &a->waker);
    if (s == ZC_PENDING)
        return false;
    if (s != ZC_OK) {
        close(a->accepted.fd);
        a->wrong = true;
    }
    a->send_pending = false;
    return true;
}

/* Accept while the workers keep up; stop watching the listener while they do not. */
static void accept_some(acceptor *a) {
    while (!a->send_pending) {
        int fd = accept4(a->listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN: nothing more for now */
        set_timeout(fd);
        a->accepted = (conn){.fd = fd, .id = a->accepted_count++};
        zc_send_init(&a->handing, a->conns, &a->accepted);
        a->send_pending = true;
        if (!hand_over(a))
            watch_listener(a, false); /* back-pressure: connections wait in the backlog */
    }
}

/* Take every summary there is. False once the results channel is closed. */
static bool collect(acceptor *a) {
    summary s;
    zc_status st;
    while ((st = zc_recv_poll(&a->next_summary, &a->waker, &s)) == ZC_OK) {
        if (s.id >= CONNS || a->seen[s.id]++ || !s.ok)
            a->wrong = true;
        a->lines += s.lines;
        a->sum += s.sum;
        if (++a->summarised == CONNS)
            zc_sender_close(a->conns); /* every connection done: let the workers go */
    }
    return st == ZC_PENDING;
}

static int setup(acceptor *a, uint16_t *port) {
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    a->listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (a->listener < 0 || bind(a->listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(a->listener, 64) != 0 ||
        getsockname(a->listener, (struct sockaddr *)&addr, &len) != 0)
        return -1;
    *port = ntohs(addr.sin_port);
    int deadline = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec its = {.it_value = {DEADLINE_S, 0}};
    if (deadline < 0 || timerfd_settime(deadline, 0, &its, NULL) != 0 ||
        zc_fd_waker_init(&a->fw) != ZC_OK)
        return -1;
    a->waker = zc_fd_waker_waker(&a->fw);
    a->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event evs[3] = {{.events = EPOLLIN, .data.u32 = LISTENER},
                                 {.events = EPOLLIN, .data.u32 = WAKER},
                                 {.events = EPOLLIN, .data.u32 = DEADLINE}};
    int fds[3] = {a->listener, zc_fd_waker_fd(&a->fw), deadline};
    for (int i = 0; i < 3; i++)
        if (a->ep < 0 || epoll_ctl(a->ep, EPOLL_CTL_ADD, fds[i], &evs[i]) != 0)
            return -1;
    return deadline;
}

int main(void) {
    static acceptor a;
    zc_config conn_cfg = {.elem_size = sizeof(conn), .drop_msg = close_conn}, sum_cfg = {.elem_size = sizeof(summary)};
    zc_receiver *conns_rx;
    zc_sender *results_tx;
    uint16_t port;
    int deadline;
    if (zc_bounded(2, &conn_cfg, &a.conns, &conns_rx) != ZC_OK ||
        zc_bounded(4, &sum_cfg, &results_tx, &a.results) != ZC_OK ||
        (deadline = setup(&a, &port)) < 0) {
        perror("tcp_lines: setup");
        return 1;
    }

    static worker workers[WORKERS];
    static client clients[CLIENTS];
    for (unsigned i = 0; i < WORKERS; i++) {
        workers[i].conns = zc_receiver_clone(conns_rx);
        workers[i].results = zc_sender_clone(results_tx);
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0)
            return 1;
    }
    zc_receiver_drop(conns_rx);
    zc_sender_drop(results_tx); /* the workers' clones are the results' only senders now */
    for (unsigned i = 0; i < CLIENTS; i++) {
        clients[i] = (client){.index = i, .port = port};
        if (pthread_create(&clients[i].thread, NULL, run_client, &clients[i]) != 0)
            return 1;
    }

    zc_recv_init(&a.next_summary, a.results);
    bool running = collect(&a), gave_up = false; /* the first poll registers the waker */
    while (running && !gave_up) {
        struct epoll_event events[3];
        int n = epoll_wait(a.ep, events, 3, -1);
        for (int i = 0; i < n; i++) {
            switch (events[i].data.u32) {
            case LISTENER:
                accept_some(&a);
                break;
            case WAKER:
                zc_fd_waker_drain(&a.fw); /* then poll every future that uses it */
                if (a.send_pending && hand_over(&a)) {
                    watch_listener(&a, true);
                    accept_some(&a);
                }
                running = collect(&a);
                break;
            case DEADLINE:
                gave_up = true;
                break;
            }
        }
    }
    /* No wake may come after the waker is destroyed: cancel what may still be pending. */
    zc_recv_cancel(&a.next_summary);
    if (a.send_pending) {
        zc_send_cancel(&a.handing);
        close(a.accepted.fd); /* not sent: still ours */
    }
    /* Dropping both ends lets the workers go even when giving up: a blocked send of a
     * summary then fails with ZC_CLOSED, and a wait for a connection too. */
    zc_sender_drop(a.conns);
    zc_receiver_drop(a.results);
    for (unsigned i = 0; i < CLIENTS; i++) pthread_join(clients[i].thread, NULL);
    for (unsigned i = 0; i < WORKERS; i++) pthread_join(workers[i].thread, NULL);
    close(a.listener);
    close(deadline);
    close(a.ep);
    zc_fd_waker_destroy(&a.fw);

    unsigned client_failures = 0;
    for (unsigned i = 0; i < CLIENTS; i++) client_failures += clients[i].failures;
    uint64_t want_sum = 0;
    for (unsigned c = 0; c < CONNS; c++) want_sum += (uint64_t)c * 1000 * LINES + LINES * (LINES - 1) / 2;
    bool failed = gave_up || a.wrong || client_failures || a.summarised != CONNS ||
                  a.lines != (uint64_t)CONNS * LINES || a.sum != want_sum;
    printf("tcp_lines: %u connections accepted, %u summarised, %llu lines; %u client "
           "failures%s\n",
           a.accepted_count, a.summarised, (unsigned long long)a.lines, client_failures,
           gave_up ? "; gave up at the deadline" : "");
    printf("tcp_lines: %s\n", failed ? "FAILED" : "all as expected");
    return failed ? 1 : 0;
}

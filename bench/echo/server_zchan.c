/* zchan_echo_server: the zchan echo server of row 16. The main thread accepts
 * connections and sends each one's descriptor through an unbounded zchan channel to W
 * worker threads. Each worker runs one epoll loop over its connections and the
 * descriptor of a zc_fd_waker, with which it polls its receive future: when that
 * descriptor is readable the worker drains it, then polls the future until it pends
 * (zchan/fd.h), and adds each descriptor received to its loop. Sockets are
 * non-blocking; what a write leaves unwritten is kept and finished on EPOLLOUT before
 * the connection is read again.
 *
 *     zchan_echo_server [-w workers] [-p port] [-s seconds]
 *
 * Listens on 127.0.0.1:port (0: any free port) and prints `port N` on stdout once
 * listening. Stops on SIGINT or SIGTERM, or after -s seconds: the main thread closes
 * the channel, each worker's receive returns ZC_CLOSED, and the worker closes its
 * connections and ends. */
#define _GNU_SOURCE
#include <zchan/fd.h>
#include <zchan/mpmc.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/** Bytes a connection reads at once. */
#define CONN_BUF_BYTES 16384

/** One client connection of a worker. */
typedef struct conn {
    int fd;
    size_t pending_off; /* buf[pending_off, pending_len) read but not yet written back */
    size_t pending_len;
    struct conn *prev, *next; /* the worker's list of open connections */
    unsigned char buf[CONN_BUF_BYTES];
} conn;

/** One worker thread: its receiver, its waker and its connections. */
typedef struct worker {
    pthread_t thread;
    zc_receiver *rx;
    int epfd;
    zc_fd_waker fw;
    conn *conns;
    int failed;
} worker;

/** Opens conn for descriptor fd (already non-blocking) in w's loop; closes fd on error. */
static void conn_open(worker *w, int fd)
{
    conn *c = malloc(sizeof *c);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (!c || epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        perror("echo_server: accepting a connection");
        free(c);
        close(fd);
        return;
    }
    c->fd = fd;
    c->pending_off = c->pending_len = 0;
    c->prev = NULL;
    c->next = w->conns;
    if (w->conns)
        w->conns->prev = c;
    w->conns = c;
}

/** Closes c (which leaves the epoll set with its descriptor) and frees it. */
static void conn_close(worker *w, conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        w->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    close(c->fd);
    free(c);
}

/** Sets the events c is watched for: EPOLLOUT while a write is unfinished, else
 *  EPOLLIN. Returns 0 or -1. */
static int conn_watch(worker *w, conn *c, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};
    return epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/** Writes what c holds unwritten. Returns 1 when all of it is written, 0 when the
 *  socket is full, -1 on an error (the connection is to be closed). */
static int conn_flush(conn *c)
{
    while (c->pending_off < c->pending_len) {
        ssize_t n = write(c->fd, c->buf + c->pending_off, c->pending_len - c->pending_off);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            if (errno == EINTR)
                continue;
            return -1;
        }
        c->pending_off += (size_t)n;
    }
    c->pending_off = c->pending_len = 0;
    return 1;
}

/** Handles the readiness events of c: finishes an unfinished write, or reads once and
 *  echoes what came. Closes c at the end of the stream or on an error. */
static void conn_event(worker *w, conn *c, uint32_t events)
{
    if (c->pending_len > 0) { /* watched for EPOLLOUT only */
        int done = conn_flush(c);
        if (done < 0 || (done && conn_watch(w, c, EPOLLIN) != 0))
            conn_close(w, c);
        return;
    }
    if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        return;
    /* One read an event: the loop is level-triggered, so what is left is reported again,
     * and a read that would only return EAGAIN is saved. */
    ssize_t n = read(c->fd, c->buf, sizeof c->buf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        conn_close(w, c);
        return;
    }
    c->pending_len = (size_t)n;
    int done = conn_flush(c);
    if (done < 0 || (!done && conn_watch(w, c, EPOLLOUT) != 0))
        conn_close(w, c);
}

/** Polls w's receive future until it pends, opening each connection received.
 *  Returns 1 once the channel is closed and drained, else 0. */
static int take_connections(worker *w, zc_recv *rf, const zc_waker *waker)
{
    for (;;) {
        int fd;
        zc_status st = zc_recv_poll(rf, waker, &fd);
        if (st == ZC_OK)
            conn_open(w, fd);
        else if (st == ZC_PENDING)
            return 0;
        else if (st == ZC_CLOSED)
            return 1;
        else {
            fprintf(stderr, "echo_server: zc_recv_poll: %s\n", zc_status_str(st));
            w->failed = 1;
            return 1;
        }
    }
}

/** A worker: one epoll loop over its connections and its waker's descriptor, until the
 *  channel closes. The waker's entry has data.ptr NULL. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    zc_waker waker = zc_fd_waker_waker(&w->fw);
    zc_recv rf;
    zc_recv_init(&rf, w->rx);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, zc_fd_waker_fd(&w->fw), &ev) != 0) {
        perror("echo_server: epoll_ctl");
        w->failed = 1;
        return NULL;
    }
    int closed = take_connections(w, &rf, &waker);
    struct epoll_event events[64];
    while (!closed) {
        int n = epoll_wait(w->epfd, events, 64, -1);
        if (n < 0 && errno != EINTR) {
            perror("echo_server: epoll_wait");
            w->failed = 1;
            break;
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.ptr == NULL) { /* the waker: first drain, then poll */
                zc_fd_waker_drain(&w->fw);
                closed = take_connections(w, &rf, &waker);
            } else {
                conn_event(w, events[i].data.ptr, events[i].events);
            }
        }
    }
    zc_recv_cancel(&rf); /* deregisters the waker if the loop ended with it pending */
    while (w->conns)
        conn_close(w, w->conns);
    return NULL;
}

/** Opens the listening socket on 127.0.0.1:port, non-blocking; -1 on error. */
static int listen_on(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, SOMAXCONN) != 0) {
        perror("echo_server: listen");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/** Accepts every pending connection on lfd and sends its descriptor to the workers.
 *  Returns 0, or -1 if the channel refused one. */
static int accept_all(int lfd, zc_sender *tx)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return 0; /* EAGAIN: none left; ECONNABORTED and the like: the client's */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        /* Unbounded: a send is never refused for room, and wakes one waiting worker. */
        zc_status st = zc_try_send(tx, &fd);
        if (st != ZC_OK) {
            fprintf(stderr, "echo_server: zc_try_send: %s\n", zc_status_str(st));
            close(fd);
            return -1;
        }
    }
}

/** Prints the usage on stream f. */
static void usage(FILE *f)
{
    fprintf(f, "usage: zchan_echo_server [-w workers] [-p port] [-s seconds]\n"
               "  defaults: 2 workers, port 7000 (0: any free port), until SIGINT/SIGTERM\n");
}

/** Accepts until a signal or the time limit, then closes the channel and joins. */
int main(int argc, char **argv)
{
    int nworkers = 2, port = 7000, seconds = 0, ch;
    while ((ch = getopt(argc, argv, "w:p:s:h")) != -1) {
        switch (ch) {
        case 'w': nworkers = atoi(optarg); break;
        case 'p': port = atoi(optarg); break;
        case 's': seconds = atoi(optarg); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || nworkers < 1 || port < 0 || port > 65535 || seconds < 0) {
        usage(stderr);
        return 2;
    }
    /* Blocked in every thread (the workers inherit the mask) and read from a signalfd
     * by the main thread alone. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN); /* a write to a connection the client reset fails instead */
    int sfd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
    int lfd = listen_on(port);
    if (sfd < 0 || lfd < 0)
        return 1;

    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {.elem_size = sizeof(int)};
    zc_status st = zc_unbounded(&cfg, &tx, &rx);
    worker *workers = calloc((size_t)nworkers, sizeof *workers);
    if (st != ZC_OK || !workers) {
        fprintf(stderr, "echo_server: no channel: %s\n", zc_status_str(st));
        return 1;
    }
    for (int i = 0; i < nworkers; i++) {
        worker *w = &workers[i];
        w->rx = zc_receiver_clone(rx);
        w->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (!w->rx || w->epfd < 0 || zc_fd_waker_init(&w->fw) != ZC_OK ||
            pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            fprintf(stderr, "echo_server: cannot start worker %d\n", i);
            return 1;
        }
    }
    zc_receiver_drop(rx);

    struct sockaddr_in addr;
    socklen_t addr_len = sizeof addr;
    getsockname(lfd, (struct sockaddr *)&addr, &addr_len);
    printf("port %d\n", ntohs(addr.sin_port));
    fflush(stdout);

    struct pollfd fds[2] = {{.fd = lfd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    int failed = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long deadline_ms = now.tv_sec * 1000LL + now.tv_nsec / 1000000 + seconds * 1000LL;
    for (;;) {
        int timeout_ms = -1;
        if (seconds > 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long left = deadline_ms - (now.tv_sec * 1000LL + now.tv_nsec / 1000000);
            timeout_ms = left > 0 ? (int)left : 0;
        }
        int n = poll(fds, 2, timeout_ms);
        if (n == 0 || (n > 0 && fds[1].revents)) /* time is up, or a stop signal */
            break;
        if (n < 0 && errno != EINTR) {
            perror("echo_server: poll");
            failed = 1;
            break;
        }
        if (n > 0 && accept_all(lfd, tx) != 0) {
            failed = 1;
            break;
        }
    }
    close(lfd);
    zc_sender_drop(tx); /* the last sender: closes the channel and wakes the workers */
    for (int i = 0; i < nworkers; i++) {
        pthread_join(workers[i].thread, NULL);
        failed |= workers[i].failed;
        zc_receiver_drop(workers[i].rx);
        zc_fd_waker_destroy(&workers[i].fw);
        close(workers[i].epfd);
    }
    free(workers);
    close(sfd);
    return failed;
}

/* zchan_echo_client: the load client of row 16. Opens C connections to an echo server,
 * spread over T threads, each thread one epoll loop over its connections. Every
 * connection sends a message of L bytes, waits for the whole echo, checks that it is
 * byte for byte what it sent, and sends the next, for D seconds. Prints one line on
 * stdout:
 *
 *     echo_client req_per_s=R mean_us=M requests=N seconds=S connections=C msg_bytes=L
 *
 * (round trips completed within the D seconds / D, and their mean latency), and exits
 * 0; a wrong echo, a connection the server closed or any socket error exits 1. Each
 * message's bytes depend on the connection and the request number, so an echo of an
 * earlier message, of another connection's or with bytes lost or added is caught. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/** The options, with their defaults in parse_options. */
typedef struct options {
    int threads;
    int connections;
    size_t msg_bytes;
    double seconds;
    const char *host;
    const char *port;
} options;

/** One connection: its socket, the message in flight and how far it has gone. */
typedef struct conn {
    int fd;
    unsigned id;
    uint64_t seq;        /* number of the request in flight */
    size_t sent;         /* bytes of out written */
    size_t received;     /* bytes of the echo read into in */
    uint64_t started_ns; /* when the request's first byte was written */
    unsigned char *out;
    unsigned char *in;
} conn;

/** One client thread: its connections and what it measured. */
typedef struct worker {
    pthread_t thread;
    const options *opt;
    conn *conns;
    int nconns;
    uint64_t deadline_ns;
    uint64_t requests;   /* round trips completed before the deadline */
    uint64_t latency_ns; /* their latencies, summed */
    int failed;
} worker;

/** The barrier that starts the threads' loops together. */
static pthread_barrier_t start_line;

/** CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** Fills buf with the bytes of request seq of connection id (a cheap mix of both). */
static void fill_message(unsigned char *buf, size_t len, unsigned id, uint64_t seq)
{
    uint64_t x = (seq + 1) * 0x9e3779b97f4a7c15u ^ ((uint64_t)id << 32);
    for (size_t i = 0; i < len; i++) {
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9u;
        buf[i] = (unsigned char)(x >> 56);
    }
}

/** Opens one TCP connection to host:port, non-blocking, with TCP_NODELAY; -1 on error. */
static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "echo_client: %s:%s: %s\n", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "echo_client: connect %s:%s: %s\n", host, port, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/** Prints what went wrong on connection c and returns -1. */
static int conn_error(const conn *c, const char *what)
{
    fprintf(stderr, "echo_client: connection %u, request %llu: %s\n", c->id,
            (unsigned long long)c->seq, what);
    return -1;
}

/** Writes what is left of c's message. Returns 1 when all of it is written, 0 when the
 *  socket is full (the rest waits for EPOLLOUT), -1 on an error. */
static int conn_write(conn *c, size_t len)
{
    while (c->sent < len) {
        ssize_t n = write(c->fd, c->out + c->sent, len - c->sent);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            if (errno == EINTR)
                continue;
            return conn_error(c, strerror(errno));
        }
        c->sent += (size_t)n;
    }
    return 1;
}

/** Starts c's next request: a new message, written as far as the socket takes it.
 *  Watches the socket for writing while part of it is left. Returns 0 or -1. */
static int conn_start(conn *c, int epfd, size_t len)
{
    c->seq++;
    c->sent = 0;
    c->received = 0;
    fill_message(c->out, len, c->id, c->seq);
    c->started_ns = now_ns();
    int done = conn_write(c, len);
    if (done < 0)
        return -1;
    if (!done) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
        if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
            return conn_error(c, "epoll_ctl");
    }
    return 0;
}

/** Reads what has come of c's echo, no more than the message's length. Returns 1 when
 *  the whole echo is in and equals the message, 0 when more is to come, -1 on a wrong
 *  echo, a closed connection or an error. */
static int conn_read(conn *c, size_t len)
{
    ssize_t n = read(c->fd, c->in + c->received, len - c->received);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        return conn_error(c, strerror(errno));
    }
    if (n == 0)
        return conn_error(c, "the server closed the connection");
    c->received += (size_t)n;
    if (c->received < len)
        return 0;
    if (memcmp(c->in, c->out, len) != 0)
        return conn_error(c, "the echo differs from the message sent");
    return 1;
}

/** Handles the readiness events of c. Returns 0 or -1. */
static int conn_event(worker *w, int epfd, conn *c, uint32_t events)
{
    size_t len = w->opt->msg_bytes;
    if ((events & EPOLLOUT) && c->sent < len) {
        int done = conn_write(c, len);
        if (done < 0)
            return -1;
        if (done) {
            struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
            if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
                return conn_error(c, "epoll_ctl");
        }
    }
    if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        return 0;
    int done = conn_read(c, len);
    if (done <= 0)
        return done;
    uint64_t t = now_ns();
    if (t > w->deadline_ns)
        return 0; /* finished after the end: not counted, and no next request */
    w->requests++;
    w->latency_ns += t - c->started_ns;
    return conn_start(c, epfd, len);
}

/** A client thread: one epoll loop over its connections until the deadline. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        perror("echo_client: epoll_create1");
        w->failed = 1;
    }
    for (int i = 0; i < w->nconns && !w->failed; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &w->conns[i]};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, w->conns[i].fd, &ev) != 0) {
            perror("echo_client: epoll_ctl");
            w->failed = 1;
        }
    }
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < w->nconns && !w->failed; i++)
        w->failed = conn_start(&w->conns[i], epfd, w->opt->msg_bytes) != 0;
    struct epoll_event events[64];
    while (!w->failed) {
        uint64_t t = now_ns();
        if (t >= w->deadline_ns)
            break;
        int timeout_ms = (int)((w->deadline_ns - t + 999999) / 1000000);
        int n = epoll_wait(epfd, events, 64, timeout_ms);
        if (n < 0 && errno != EINTR) {
            perror("echo_client: epoll_wait");
            w->failed = 1;
        }
        for (int i = 0; i < n && !w->failed; i++)
            w->failed = conn_event(w, epfd, events[i].data.ptr, events[i].events) != 0;
    }
    if (epfd >= 0)
        close(epfd);
    return NULL;
}

/** Prints the usage on stream f. */
static void usage(FILE *f)
{
    fprintf(f, "usage: zchan_echo_client [-t threads] [-c connections] [-l msg_bytes] "
               "[-d seconds] [-H host] [-p port]\n"
               "  defaults: 2 threads, 100 connections, 100 bytes, 10 seconds, "
               "127.0.0.1:7000\n");
}

/** Reads the command line into *opt; exits 2 on a bad option. */
static void parse_options(int argc, char **argv, options *opt)
{
    *opt = (options){.threads = 2, .connections = 100, .msg_bytes = 100, .seconds = 10,
                     .host = "127.0.0.1", .port = "7000"};
    int ch;
    while ((ch = getopt(argc, argv, "t:c:l:d:H:p:h")) != -1) {
        switch (ch) {
        case 't': opt->threads = atoi(optarg); break;
        case 'c': opt->connections = atoi(optarg); break;
        case 'l': opt->msg_bytes = (size_t)strtoul(optarg, NULL, 10); break;
        case 'd': opt->seconds = strtod(optarg, NULL); break;
        case 'H': opt->host = optarg; break;
        case 'p': opt->port = optarg; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind != argc || opt->threads < 1 || opt->connections < 1 || opt->msg_bytes < 1 ||
        opt->msg_bytes > (1u << 24) || !(opt->seconds > 0)) {
        usage(stderr);
        exit(2);
    }
    if (opt->threads > opt->connections)
        opt->threads = opt->connections;
}

/** Connects, runs the threads, checks and prints the result. */
int main(int argc, char **argv)
{
    options opt;
    parse_options(argc, argv, &opt);
    conn *conns = calloc((size_t)opt.connections, sizeof *conns);
    worker *workers = calloc((size_t)opt.threads, sizeof *workers);
    unsigned char *bufs = malloc(2 * opt.msg_bytes * (size_t)opt.connections);
    if (!conns || !workers || !bufs) {
        fprintf(stderr, "echo_client: out of memory\n");
        return 1;
    }
    for (int i = 0; i < opt.connections; i++) {
        conns[i] = (conn){.id = (unsigned)i, .out = bufs + 2 * opt.msg_bytes * (size_t)i};
        conns[i].in = conns[i].out + opt.msg_bytes;
        conns[i].fd = connect_to(opt.host, opt.port);
        if (conns[i].fd < 0)
            return 1;
    }
    pthread_barrier_init(&start_line, NULL, (unsigned)opt.threads + 1);
    for (int t = 0, first = 0; t < opt.threads; t++) {
        /* connections dealt out evenly: thread t gets [first, first + count) */
        int count = opt.connections / opt.threads + (t < opt.connections % opt.threads);
        workers[t] = (worker){.opt = &opt, .conns = conns + first, .nconns = count};
        first += count;
    }
    uint64_t start = now_ns() + 1000000; /* a millisecond for the threads to start */
    uint64_t deadline = start + (uint64_t)(opt.seconds * 1e9);
    for (int t = 0; t < opt.threads; t++) {
        workers[t].deadline_ns = deadline;
        if (pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]) != 0) {
            fprintf(stderr, "echo_client: pthread_create failed\n");
            return 1;
        }
    }
    pthread_barrier_wait(&start_line);
    start = now_ns();
    uint64_t requests = 0, latency_ns = 0;
    int failed = 0;
    for (int t = 0; t < opt.threads; t++) {
        pthread_join(workers[t].thread, NULL);
        requests += workers[t].requests;
        latency_ns += workers[t].latency_ns;
        failed |= workers[t].failed;
    }
    for (int i = 0; i < opt.connections; i++)
        close(conns[i].fd);
    if (failed)
        return 1;
    if (requests == 0) {
        fprintf(stderr, "echo_client: no request completed\n");
        return 1;
    }
    double seconds = (double)(deadline - start) / 1e9;
    printf("echo_client req_per_s=%.1f mean_us=%.2f requests=%llu seconds=%.3f "
           "connections=%d msg_bytes=%zu\n",
           (double)requests / seconds, (double)latency_ns / (double)requests / 1e3,
           (unsigned long long)requests, seconds, opt.connections, opt.msg_bytes);
    free(bufs);
    free(workers);
    free(conns);
    return 0;
}

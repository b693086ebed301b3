/*
 * fd.c: a waker that makes a file descriptor readable (an eventfd on Linux, a pipe
 * elsewhere), for loops built on poll, epoll or kqueue.
 *
 * Source: libuv's uv_async_send (a pending flag in front of the write, so that a burst
 * of wakes costs one system call) and its eventfd/pipe pair (src/unix/async.c).
 *
 * The flag zc__armed is 1 from a wake that found it 0 (and so wrote) until the next
 * drain. Drain reads the descriptor empty first and only then clears the flag (the other
 * order would lose a write made between the two); a wake skips its write only while the
 * flag is 1, which leaves two cases:
 * - its exchange came before the drain's clear: the drain acquires it ([D1]);
 * - it came after: it finds 0 and writes, or finds the 1 of a wake that wrote after the
 *   drain's read, which is not consumed.
 *
 * Ordering map:
 *   [D1] wake: exchange(armed, 1), release -> drain: exchange(armed, 0), acquire. Every
 *        write of the flag is an RMW, so a drain that reads the flag synchronises with
 *        every wake whose exchange came before it (one release sequence).
 * The descriptor itself carries no ordering that this file relies on.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* pipe(), fcntl(), read(), write() under -std=c11 */
#endif

#include <zchan/fd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "atomic.h"

/* ZCHAN_FD_FORCE_PIPE lets a test build this file with the pipe used off Linux
 * (tests/unit/CMakeLists.txt, test_fd_pipe). */
#if defined(__linux__) && !defined(ZCHAN_FD_FORCE_PIPE)
#define USE_EVENTFD 1
#include <sys/eventfd.h>
#else
#define USE_EVENTFD 0
#endif

#if !USE_EVENTFD
/* Make one end of the pipe non-blocking and close-on-exec. */
static int set_flags(int fd) {
    int fl = fcntl(fd, F_GETFL);
    int fdfl = fcntl(fd, F_GETFD);
    if (fl < 0 || fdfl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC) < 0)
        return -1;
    return 0;
}
#endif

zc_status zc_fd_waker_init(zc_fd_waker *w) {
    if (w == NULL) return ZC_EINVAL;
#if USE_EVENTFD
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return ZC_ENOMEM;
    w->zc__rfd = fd;
    w->zc__wfd = fd;
#else
    int fds[2];
    if (pipe(fds) < 0) return ZC_ENOMEM;
    if (set_flags(fds[0]) < 0 || set_flags(fds[1]) < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return ZC_ENOMEM;
    }
    w->zc__rfd = fds[0];
    w->zc__wfd = fds[1];
#endif
    /* Nothing else can see w yet (init runs before any use). */
    atomic_store_explicit(ZC__ATOMIC_UINT(w->zc__armed), 0, memory_order_relaxed);
    return ZC_OK;
}

int zc_fd_waker_fd(const zc_fd_waker *w) { return w ? w->zc__rfd : -1; }

/* The waker's wake: write once per drain. Only an atomic exchange and write(2), both
 * async-signal-safe; errno is restored for a signal handler's sake. */
static void fd_wake(void *ctx) {
    zc_fd_waker *w = ctx;
    /* [D1] Publish what the caller did before waking; pairs with drain's acquire. */
    if (atomic_exchange_explicit(ZC__ATOMIC_UINT(w->zc__armed), 1, memory_order_release))
        return; /* a wake since the last drain has written, or is writing, already */
    int saved = errno;
#if USE_EVENTFD
    uint64_t one = 1;
    const void *buf = &one;
    size_t len = sizeof one;
#else
    const char byte = 0;
    const void *buf = &byte;
    size_t len = 1;
#endif
    /* EAGAIN: the counter or the pipe is full, so the descriptor is readable anyway. */
    while (write(w->zc__wfd, buf, len) < 0 && errno == EINTR) {
    }
    errno = saved;
}

zc_waker zc_fd_waker_waker(zc_fd_waker *w) {
    zc_waker wk = {NULL, NULL};
    if (w) {
        wk.wake = fd_wake;
        wk.ctx = w;
    }
    return wk;
}

void zc_fd_waker_drain(zc_fd_waker *w) {
    if (w == NULL) return;
    /* First empty the descriptor (an eventfd read resets its counter; a pipe is read
     * until EAGAIN), then clear the flag: see the top of this file for why that order. */
#if USE_EVENTFD
    uint64_t count;
    while (read(w->zc__rfd, &count, sizeof count) < 0 && errno == EINTR) {
    }
#else
    char buf[64];
    ssize_t n;
    do {
        n = read(w->zc__rfd, buf, sizeof buf);
    } while (n == (ssize_t)sizeof buf || (n < 0 && errno == EINTR));
#endif
    /* [D1] Pairs with fd_wake's release exchange. */
    atomic_exchange_explicit(ZC__ATOMIC_UINT(w->zc__armed), 0, memory_order_acquire);
}

void zc_fd_waker_destroy(zc_fd_waker *w) {
    if (w == NULL) return;
    close(w->zc__rfd);
    if (w->zc__wfd != w->zc__rfd) close(w->zc__wfd);
    w->zc__rfd = w->zc__wfd = -1;
}

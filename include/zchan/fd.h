/**
 * @file zchan/fd.h
 * A waker backed by a file descriptor, for poll, select, epoll and kqueue loops.
 *
 * The descriptor becomes readable when the waker is woken and stays readable until
 * zc_fd_waker_drain, so a loop that already waits on sockets and timers can wait on
 * zchan futures too, with no thread and no adapter: add zc_fd_waker_fd to the set the
 * loop waits on, poll the futures with zc_fd_waker_waker, and when the descriptor is
 * reported readable, drain it and poll the futures again.
 *
 *     for (;;) {
 *         poll(fds, n, timeout_ms);               // the waker's fd is one of fds
 *         if (fds[0].revents & POLLIN) {
 *             zc_fd_waker_drain(&fw);              // first drain, ...
 *             while (zc_recv_poll(&rf, &w, &msg) == ZC_OK)   // ... then poll
 *                 handle(msg);
 *         }
 *         ...                                      // sockets, timers
 *     }
 *
 * The descriptor is an eventfd on Linux and the read end of a non-blocking pipe
 * elsewhere; both are non-blocking and close-on-exec. Waking sets a flag and writes
 * to the descriptor only if the flag was clear, so any number of wakes between two
 * drains cost one write, and a wake never blocks (the idea of libuv's uv_async_send).
 *
 * Level-triggered use (poll, select, epoll without EPOLLET, kqueue without EV_CLEAR):
 * the descriptor stays readable from the first wake until the drain, so the loop must
 * drain it each time it is reported readable or it will be reported again at once.
 *
 * Edge-triggered use (EPOLLET, EV_CLEAR): after a drain, the next wake writes, which is
 * a new edge; wakes before the drain do not write again. So the rule is the same: on
 * each readiness event, drain, then poll every future that uses this waker. A wake that
 * comes after the drain started is never lost: either the poll that follows the drain
 * sees its effect, or it makes the descriptor readable again.
 *
 * One waker may serve any number of futures (the loop then polls all of them after a
 * drain), or each future may have its own.
 *
 * | call                          | concurrent with                                   |
 * |-------------------------------|---------------------------------------------------|
 * | the waker's wake              | everything, from any thread or a signal handler   |
 * | zc_fd_waker_drain             | wake; one drain at a time (the loop's thread)     |
 * | zc_fd_waker_fd, _waker        | everything                                        |
 * | zc_fd_waker_init, _destroy    | nothing                                           |
 */
#ifndef ZCHAN_FD_H
#define ZCHAN_FD_H

#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_fd Descriptor waker (zchan/fd.h)
 * @copydoc zchan/fd.h
 * @{
 */

/** A waker whose wake makes a descriptor readable. Complete so that it can live in a
 *  loop's own struct or on the stack; its fields are private. */
typedef struct zc_fd_waker {
    int zc__rfd;            /* watched: an eventfd, or a pipe's read end */
    int zc__wfd;            /* written by wake: the same eventfd, or the pipe's write end */
    unsigned int zc__armed; /* 1 from a wake that wrote until the next drain; atomic */
} zc_fd_waker;

/**
 * Open the descriptor(s) of an fd waker: not readable until the first wake.
 *
 * @param w  Caller-allocated waker.
 * @return ZC_OK; ZC_EINVAL (w NULL); ZC_ENOMEM (the system refused a descriptor, e.g.
 *         the process is out of descriptors: errno says why; nothing is left open).
 *
 * Thread safety: w must not be in use.
 */
ZC_EXPORT zc_status zc_fd_waker_init(zc_fd_waker *w);

/**
 * The descriptor to wait on for reading (POLLIN, EPOLLIN, EVFILT_READ).
 *
 * Owned by the waker: do not read it, write it or close it; zc_fd_waker_drain resets
 * it and zc_fd_waker_destroy closes it.
 *
 * @param w  An initialised waker.
 * @return The descriptor; -1 if w is NULL.
 *
 * Thread safety: any thread.
 */
ZC_EXPORT int zc_fd_waker_fd(const zc_fd_waker *w);

/**
 * The zc_waker to poll futures with: its wake makes the descriptor readable.
 *
 * The wake never blocks, never allocates and keeps errno; it uses only an atomic
 * exchange and write(2), so it may also be called from a signal handler. A wake that
 * finds the descriptor already readable (or about to be) does not write again.
 *
 * @param w  An initialised waker; must outlive every wake of the returned zc_waker.
 * @return {wake, w}; for w NULL, {NULL, NULL}: a waker every poll rejects with ZC_EINVAL.
 *
 * Thread safety: any thread; the wake from any thread.
 */
ZC_EXPORT zc_waker zc_fd_waker_waker(zc_fd_waker *w);

/**
 * Make the descriptor not readable again, consuming every wake so far.
 *
 * Call it each time the descriptor is reported readable, then poll the futures that
 * use this waker: a wake that the drain consumed is seen by those polls, and a wake
 * after the drain makes the descriptor readable again. Never blocks.
 *
 * @param w  An initialised waker; NULL does nothing.
 *
 * Thread safety: one drain at a time, concurrently with any number of wakes.
 * Ordering: what a thread did before a wake that this drain consumed happens-before
 *           what the caller does after the drain ([D1] in src/fd.c).
 */
ZC_EXPORT void zc_fd_waker_drain(zc_fd_waker *w);

/**
 * Close the descriptor(s). No wake may be running or still to come: complete or cancel
 * every future polled with this waker first. The loop must stop watching the
 * descriptor before (epoll and kqueue forget a closed descriptor by themselves).
 *
 * @param w  The waker; NULL does nothing. It may be initialised again afterwards.
 *
 * Thread safety: w must not be in use.
 */
ZC_EXPORT void zc_fd_waker_destroy(zc_fd_waker *w);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_FD_H */

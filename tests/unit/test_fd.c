/*
 * Unit tests of the fd waker (zchan/fd.h, src/fd.c).
 *
 * Readability is observed the way a loop would, with poll(2): a timeout of 0 asks "is it
 * readable now", and a test that waits for another thread polls with a long timeout
 * that is only a guard against a hang (reaching it fails the test). tests/unit/
 * CMakeLists.txt also builds this file as test_fd_pipe, with the pipe used off Linux
 * forced on. cmocka asserts run on the main thread only.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* pipe, fcntl, read under -std=c11 */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <zchan/block.h>
#include <zchan/fd.h>
#include <zchan/mpmc.h>

#define GUARD_MS 20000 /* a wait this long means a lost wake-up */

/* Whether fd is readable within timeout_ms (0: right now). */
static int readable(int fd, int timeout_ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR) {
    }
    assert_true(n >= 0);
    return n == 1 && (p.revents & POLLIN);
}

static void wake(zc_fd_waker *fw) {
    zc_waker w = zc_fd_waker_waker(fw);
    w.wake(w.ctx);
}

static void init(zc_fd_waker *fw) {
    assert_int_equal(zc_fd_waker_init(fw), ZC_OK);
    assert_true(zc_fd_waker_fd(fw) >= 0);
}

static void test_a_new_fd_waker_is_not_readable(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    assert_false(readable(zc_fd_waker_fd(&fw), 0));
    zc_fd_waker_destroy(&fw);
}

static void test_wake_makes_the_fd_readable_until_it_is_drained(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    int fd = zc_fd_waker_fd(&fw);
    wake(&fw);
    assert_true(readable(fd, 0));
    assert_true(readable(fd, 0)); /* level: still readable, nothing consumed it */
    zc_fd_waker_drain(&fw);
    assert_false(readable(fd, 0));
    zc_fd_waker_destroy(&fw);
}

static void test_a_wake_after_a_drain_makes_the_fd_readable_again(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    int fd = zc_fd_waker_fd(&fw);
    for (int round = 0; round < 3; round++) {
        wake(&fw);
        assert_true(readable(fd, 0));
        zc_fd_waker_drain(&fw);
        assert_false(readable(fd, 0));
    }
    zc_fd_waker_destroy(&fw);
}

static void test_drain_without_a_wake_returns_at_once_and_leaves_it_unreadable(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    zc_fd_waker_drain(&fw); /* would hang here if the descriptor were blocking */
    assert_false(readable(zc_fd_waker_fd(&fw), 0));
    zc_fd_waker_destroy(&fw);
}

static void test_many_wakes_before_a_drain_write_once_and_one_drain_clears_them(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    int fd = zc_fd_waker_fd(&fw);
    for (int i = 0; i < 1000; i++) wake(&fw);
    /* Look at what was written, as only a test may: one eventfd increment of 1, or one
     * pipe byte. */
    uint64_t got = 0;
    ssize_t n = read(fd, &got, sizeof got);
    if (n == (ssize_t)sizeof got)
        assert_int_equal(got, 1); /* eventfd: the counter */
    else
        assert_int_equal(n, 1);   /* pipe: one byte */
    assert_false(readable(fd, 0));
    /* The flag still says "written": further wakes stay silent until a drain. */
    wake(&fw);
    assert_false(readable(fd, 0));
    zc_fd_waker_drain(&fw);
    wake(&fw);
    assert_true(readable(fd, 0));
    zc_fd_waker_drain(&fw);
    assert_false(readable(fd, 0));
    zc_fd_waker_destroy(&fw);
}

static void test_wake_keeps_errno(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    errno = ERANGE;
    wake(&fw); /* writes */
    assert_int_equal(errno, ERANGE);
    wake(&fw); /* does not write */
    assert_int_equal(errno, ERANGE);
    zc_fd_waker_drain(&fw);
    zc_fd_waker_destroy(&fw);
}

static zc_fd_waker *signal_target;

static void on_signal(int sig) {
    (void)sig;
    wake(signal_target);
}

static void test_a_wake_from_a_signal_handler_makes_the_fd_readable(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    signal_target = &fw;
    struct sigaction sa = {.sa_handler = on_signal}, old;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
    assert_int_equal(raise(SIGUSR1), 0); /* the handler has run when raise returns */
    assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
    assert_true(readable(zc_fd_waker_fd(&fw), 0));
    zc_fd_waker_drain(&fw);
    zc_fd_waker_destroy(&fw);
}

static void test_the_fd_is_non_blocking_and_close_on_exec(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    int fd = zc_fd_waker_fd(&fw);
    int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
    assert_true(fl >= 0 && (fl & O_NONBLOCK));
    assert_true(fdfl >= 0 && (fdfl & FD_CLOEXEC));
    zc_fd_waker_destroy(&fw);
}

static void test_destroy_closes_the_descriptor(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    int fd = zc_fd_waker_fd(&fw);
    zc_fd_waker_destroy(&fw);
    /* Nothing else in this single-thread test opens a descriptor meanwhile. */
    errno = 0;
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    /* And it may be initialised again. */
    init(&fw);
    zc_fd_waker_destroy(&fw);
}

static void test_null_arguments_are_rejected_or_ignored(void **unused) {
    (void)unused;
    assert_int_equal(zc_fd_waker_init(NULL), ZC_EINVAL);
    assert_int_equal(zc_fd_waker_fd(NULL), -1);
    zc_waker w = zc_fd_waker_waker(NULL);
    assert_null(w.wake);
    assert_null(w.ctx);
    zc_fd_waker_drain(NULL);
    zc_fd_waker_destroy(NULL);
}

/* ---- with other threads ---------------------------------------------------------- */

enum { WAKER_THREADS = 4, WAKES_PER_THREAD = 2000 };

static void *wake_many(void *arg) {
    for (int i = 0; i < WAKES_PER_THREAD; i++) wake(arg);
    return NULL;
}

static void test_wakes_from_many_threads_leave_it_readable_and_one_drain_clears_them(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    pthread_t t[WAKER_THREADS];
    for (int i = 0; i < WAKER_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, wake_many, &fw), 0);
    for (int i = 0; i < WAKER_THREADS; i++) pthread_join(t[i], NULL);
    assert_true(readable(zc_fd_waker_fd(&fw), 0));
    zc_fd_waker_drain(&fw);
    assert_false(readable(zc_fd_waker_fd(&fw), 0));
    zc_fd_waker_destroy(&fw);
}

static void u64_channel(size_t cap, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    assert_int_equal(zc_bounded(cap, &cfg, tx, rx), ZC_OK);
}

typedef struct sender_thread {
    pthread_t thread;
    zc_sender *tx;   /* dropped by the thread when it is done */
    uint64_t count;  /* sends 1..count, blocking */
    zc_status status;
} sender_thread;

static void *send_all(void *arg) {
    sender_thread *s = arg;
    s->status = ZC_OK;
    for (uint64_t v = 1; v <= s->count && s->status == ZC_OK; v++)
        s->status = zc_send_blocking(s->tx, &v);
    zc_sender_drop(s->tx);
    return NULL;
}

static void test_a_send_from_another_thread_makes_a_pending_recv_futures_fd_readable(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    zc_waker w = zc_fd_waker_waker(&fw);
    zc_sender *tx;
    zc_receiver *rx;
    u64_channel(4, &tx, &rx);
    zc_recv rf;
    zc_recv_init(&rf, rx);
    uint64_t got = 0;
    assert_int_equal(zc_recv_poll(&rf, &w, &got), ZC_PENDING);
    assert_false(readable(zc_fd_waker_fd(&fw), 0)); /* no peer: the poll did not wake itself */

    sender_thread s = {.tx = tx, .count = 1};
    assert_int_equal(pthread_create(&s.thread, NULL, send_all, &s), 0);
    assert_true(readable(zc_fd_waker_fd(&fw), GUARD_MS));
    zc_fd_waker_drain(&fw);
    assert_int_equal(zc_recv_poll(&rf, &w, &got), ZC_OK);
    assert_int_equal(got, 1);
    pthread_join(s.thread, NULL);
    assert_int_equal(s.status, ZC_OK);
    /* The sender's drop closed the channel: the stream ends. */
    assert_int_equal(zc_recv_poll(&rf, &w, &got), ZC_CLOSED);
    zc_receiver_drop(rx);
    zc_fd_waker_destroy(&fw);
}

static void test_a_recv_makes_a_pending_send_futures_fd_readable_within_the_call(void **unused) {
    (void)unused;
    zc_fd_waker fw;
    init(&fw);
    zc_waker w = zc_fd_waker_waker(&fw);
    zc_sender *tx;
    zc_receiver *rx;
    u64_channel(1, &tx, &rx);
    uint64_t first = 1, second = 2;
    assert_int_equal(zc_try_send(tx, &first), ZC_OK);
    zc_send sf;
    zc_send_init(&sf, tx, &second);
    assert_int_equal(zc_send_poll(&sf, &w), ZC_PENDING);
    assert_false(readable(zc_fd_waker_fd(&fw), 0));

    uint64_t got = 0;
    assert_int_equal(zc_try_recv(rx, &got), ZC_OK); /* frees the slot: wakes sf */
    assert_int_equal(got, 1);
    assert_true(readable(zc_fd_waker_fd(&fw), 0)); /* woken within the recv call */
    zc_fd_waker_drain(&fw);
    assert_int_equal(zc_send_poll(&sf, &w), ZC_OK);
    assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
    assert_int_equal(got, 2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_fd_waker_destroy(&fw);
}

/* A poll loop in miniature: the only wait is poll(2) on the waker's descriptor. */
static void test_a_poll_loop_receives_every_message_a_thread_sends_in_order(void **unused) {
    (void)unused;
    enum { MESSAGES = 20000 };
    zc_fd_waker fw;
    init(&fw);
    zc_waker w = zc_fd_waker_waker(&fw);
    zc_sender *tx;
    zc_receiver *rx;
    u64_channel(8, &tx, &rx);
    sender_thread s = {.tx = tx, .count = MESSAGES};
    assert_int_equal(pthread_create(&s.thread, NULL, send_all, &s), 0);

    zc_recv rf;
    zc_recv_init(&rf, rx);
    uint64_t next = 1, got;
    unsigned waits = 0;
    for (;;) {
        zc_status st;
        while ((st = zc_recv_poll(&rf, &w, &got)) == ZC_OK) {
            assert_int_equal(got, next);
            next++;
        }
        if (st == ZC_CLOSED)
            break;
        assert_int_equal(st, ZC_PENDING);
        assert_true(readable(zc_fd_waker_fd(&fw), GUARD_MS)); /* else a lost wake-up */
        zc_fd_waker_drain(&fw);
        waits++;
    }
    pthread_join(s.thread, NULL);
    assert_int_equal(s.status, ZC_OK);
    assert_int_equal(next, MESSAGES + 1);
    assert_true(waits > 0);
    zc_receiver_drop(rx);
    zc_fd_waker_destroy(&fw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_new_fd_waker_is_not_readable),
        cmocka_unit_test(test_wake_makes_the_fd_readable_until_it_is_drained),
        cmocka_unit_test(test_a_wake_after_a_drain_makes_the_fd_readable_again),
        cmocka_unit_test(test_drain_without_a_wake_returns_at_once_and_leaves_it_unreadable),
        cmocka_unit_test(test_many_wakes_before_a_drain_write_once_and_one_drain_clears_them),
        cmocka_unit_test(test_wake_keeps_errno),
        cmocka_unit_test(test_a_wake_from_a_signal_handler_makes_the_fd_readable),
        cmocka_unit_test(test_the_fd_is_non_blocking_and_close_on_exec),
        cmocka_unit_test(test_destroy_closes_the_descriptor),
        cmocka_unit_test(test_null_arguments_are_rejected_or_ignored),
        cmocka_unit_test(test_wakes_from_many_threads_leave_it_readable_and_one_drain_clears_them),
        cmocka_unit_test(test_a_send_from_another_thread_makes_a_pending_recv_futures_fd_readable),
        cmocka_unit_test(test_a_recv_makes_a_pending_send_futures_fd_readable_within_the_call),
        cmocka_unit_test(test_a_poll_loop_receives_every_message_a_thread_sends_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

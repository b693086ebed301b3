/* Death tests of the checked build (ZCHAN_CHECKED, src/check.h): each misuse that the
 * contract leaves undefined aborts at the call that commits it, with a message naming
 * that call and what was done. Each misuse runs in a forked child whose stderr comes
 * back through a pipe; the child must die of SIGABRT, having printed the expected call
 * and words. Also: the uses that stay allowed (an idle future moved, two handles from
 * one clone, a handle of the other kind) do not abort. In an unchecked build every test
 * here is skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zchan/zchan.h>

#include "zchan_build.h"

#include "counting_waker.h"

enum { CAP = 2 };

static zc_config u64_cfg(void) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    return cfg;
}

static void make(zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = u64_cfg();
    if (zc_bounded(CAP, &cfg, tx, rx) != ZC_OK) _exit(2);
}

/* Run misuse() in a child. It must die of SIGABRT, and its stderr must hold `call` and
 * `what`. */
static void expect_abort(void (*misuse)(void), const char *call, const char *what) {
#if !ZCHAN_CHECKED
    (void)misuse, (void)call, (void)what;
    skip();
#else
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);
        close(fd[0]);
        if (dup2(fd[1], STDERR_FILENO) < 0) _exit(3);
        misuse();
        _exit(0); /* the misuse went through */
    }
    close(fd[1]);
    char msg[1024];
    size_t len = 0;
    ssize_t k;
    while (len < sizeof msg - 1 && (k = read(fd[0], msg + len, sizeof msg - 1 - len)) > 0)
        len += (size_t)k;
    msg[len] = '\0';
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(msg, call) ||
        !strstr(msg, what))
        fail_msg("expected an abort in %s saying \"%s\"; got status %d and \"%s\"", call,
                 what, status, msg);
    assert_non_null(strstr(msg, "zchan: "));
#endif
}

/* ---- handles -------------------------------------------------------------------- */

static void send_through_a_dropped_sender(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx); /* the channel stays open */
    (void)tx2;
    zc_sender_drop(tx);
    uint64_t v = 1;
    zc_try_send(tx, &v);
}

static void recv_after_the_channel_is_freed(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender_drop(tx);
    zc_receiver_drop(rx); /* the last handle: the channel's memory goes */
    uint64_t out;
    zc_recv_blocking(rx, &out);
}

static void drop_a_receiver_twice_while_a_clone_lives(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    (void)rx2;
    zc_receiver_drop(rx);
    zc_receiver_drop(rx); /* unchecked, this would take rx2's count */
}

static void drop_the_last_sender_twice(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_receiver_drop(rx);
    zc_sender_drop(tx); /* the channel is freed */
    zc_sender_drop(tx);
}

static void drop_a_weak_sender_twice(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_weak_sender *w = zc_sender_downgrade(tx);
    zc_weak_sender *w2 = zc_weak_sender_clone(w);
    (void)w2;
    zc_weak_sender_drop(w);
    zc_weak_sender_drop(w);
}

static void clone_a_pointer_that_is_no_handle(void) {
    uint64_t not_a_handle[4] = {0};
    zc_sender_clone((zc_sender *)(void *)not_a_handle);
}

/* ---- futures -------------------------------------------------------------------- */

static counting_waker cw;

static zc_waker waker(void) {
    counting_waker_init(&cw);
    return counting_waker_of(&cw);
}

static void poll_a_future_whose_channel_is_gone(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_waker w = waker();
    uint64_t out;
    zc_recv_poll(&f, &w, &out);
}

static void init_a_pending_future_again(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = waker();
    uint64_t out;
    if (zc_recv_poll(&f, &w, &out) != ZC_PENDING) _exit(2);
    zc_recv_init(&f, rx);
}

static void init_a_woken_future_again(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = waker();
    uint64_t out, v = 1;
    if (zc_recv_poll(&f, &w, &out) != ZC_PENDING) _exit(2);
    if (zc_try_send(tx, &v) != ZC_OK || counting_waker_count(&cw) != 1) _exit(2);
    zc_recv_init(&f, rx); /* it holds a wake-up that a cancel would pass on */
}

static void move_a_pending_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_send f[2];
    uint64_t v = 1;
    for (int i = 0; i < CAP; i++)
        if (zc_try_send(tx, &v) != ZC_OK) _exit(2);
    zc_send_init(&f[0], tx, &v);
    zc_waker w = waker();
    if (zc_send_poll(&f[0], &w) != ZC_PENDING) _exit(2);
    memcpy(&f[1], &f[0], sizeof f[0]);
    zc_send_poll(&f[1], &w);
}

static void cancel_a_moved_pending_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f[2];
    zc_recv_init(&f[0], rx);
    zc_waker w = waker();
    uint64_t out;
    if (zc_recv_poll(&f[0], &w, &out) != ZC_PENDING) _exit(2);
    memcpy(&f[1], &f[0], sizeof f[0]);
    zc_recv_cancel(&f[1]);
}

/* The memory of a registered future reused for something else: what a free followed by
 * a new allocation there does (written over here, so that a sanitizer build reports this
 * check, not its own use-after-free). The next wake finds it. */
static void overwrite_a_registered_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv *f = malloc(sizeof *f);
    if (!f) _exit(2);
    zc_recv_init(f, rx);
    zc_waker w = waker();
    uint64_t out, v = 1;
    if (zc_recv_poll(f, &w, &out) != ZC_PENDING) _exit(2);
    memset(f, 0xa5, sizeof *f);
    zc_try_send(tx, &v);
}

/* As an allocator's free does: the start of the block (the node's links) written over,
 * the rest (its stamp) left as it was. */
static void free_a_registered_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv *f = malloc(sizeof *f);
    if (!f) _exit(2);
    zc_recv_init(f, rx);
    zc_waker w = waker();
    uint64_t out, v = 1;
    if (zc_recv_poll(f, &w, &out) != ZC_PENDING) _exit(2);
    memset(f, 0x5a, 2 * sizeof(void *));
    zc_try_send(tx, &v);
}

static void drop_the_channel_under_a_pending_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = waker();
    uint64_t out;
    if (zc_recv_poll(&f, &w, &out) != ZC_PENDING) _exit(2);
    zc_sender_drop(tx); /* the close wakes it: it holds a wake-up, still pending */
    zc_receiver_drop(rx);
}

static void drop_the_channel_under_a_linked_future(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender_closed f; /* linked until a close, which the last drop below is not yet */
    zc_sender_closed_init(&f, tx);
    zc_waker w = waker();
    if (zc_sender_closed_poll(&f, &w) != ZC_PENDING) _exit(2);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    zc_receiver_drop(rx);
    zc_receiver_drop(rx2); /* closes: f is woken */
    zc_sender_drop(tx);
}

/* ---- waits inside a wake ----------------------------------------------------------- */

static zc_receiver *other_rx;

static void wake_that_blocks(void *ctx) {
    (void)ctx;
    uint64_t out;
    zc_recv_timeout(other_rx, &out, 1000000000u); /* nothing will come: it would wait */
}

static void block_inside_a_wake(void) {
    zc_sender *tx, *tx2;
    zc_receiver *rx;
    make(&tx, &rx);
    make(&tx2, &other_rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = {wake_that_blocks, NULL};
    uint64_t out, v = 1;
    if (zc_recv_poll(&f, &w, &out) != ZC_PENDING) _exit(2);
    zc_try_send(tx, &v); /* its wake is made on this thread */
}

static void park_inside_a_wake(void *ctx) {
    (void)ctx;
    zc_parker p;
    zc_parker_init(&p);
    zc_parker_park_timeout(&p, 1000000000u); /* nobody will unpark it */
}

static void park_a_parker_inside_a_wake(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = {park_inside_a_wake, NULL};
    uint64_t out, v = 1;
    if (zc_recv_poll(&f, &w, &out) != ZC_PENDING) _exit(2);
    zc_try_send(tx, &v);
}

/* ---- select, permits, batches, broadcast -------------------------------------------- */

static void set_up_a_pending_select_case_again(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_select_case c[1];
    uint64_t out;
    zc_select_recv_case(&c[0], rx, &out);
    zc_select s;
    zc_select_init(&s, c, 1, 0);
    zc_waker w = waker();
    size_t index;
    if (zc_select_poll(&s, &w, &index) != ZC_PENDING) _exit(2);
    zc_select_recv_case(&c[0], rx, &out);
}

static void move_the_cases_of_a_pending_select(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_select_case c[2];
    uint64_t out;
    zc_select_recv_case(&c[0], rx, &out);
    zc_select s;
    zc_select_init(&s, c, 1, 0);
    zc_waker w = waker();
    size_t index;
    if (zc_select_poll(&s, &w, &index) != ZC_PENDING) _exit(2);
    memcpy(&c[1], &c[0], sizeof c[0]);
    zc_select_init(&s, &c[1], 1, 0);
    zc_select_cancel(&s);
}

static void commit_a_permit_after_its_sender_is_dropped(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    (void)tx2;
    zc_permit p;
    if (zc_try_reserve(tx, &p) != ZC_OK) _exit(2);
    zc_sender_drop(tx);
    uint64_t v = 1;
    zc_permit_commit(&p, &v);
}

static void batch_through_a_dropped_receiver(void) {
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    (void)rx2;
    zc_receiver_drop(rx);
    uint64_t out[2];
    size_t got;
    zc_try_recv_many(rx, out, 2, &got);
}

#ifdef ZCHAN_HAS_BROADCAST
static void make_bcast(zc_bcast_sender **tx, zc_bcast_receiver **rx) {
    zc_bcast_config cfg = {0};
    cfg.elem_size = sizeof(uint64_t);
    cfg.mode = ZC_BCAST_BACKPRESSURE;
    if (zc_bcast_new(CAP, &cfg, tx, rx) != ZC_OK) _exit(2);
}

static void drop_a_broadcast_receiver_twice(void) {
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make_bcast(&tx, &rx);
    zc_bcast_receiver *rx2 = zc_bcast_subscribe(tx);
    (void)rx2;
    zc_bcast_receiver_drop(rx);
    zc_bcast_receiver_drop(rx);
}

static void move_a_pending_broadcast_receive(void) {
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make_bcast(&tx, &rx);
    zc_bcast_recv f[2];
    zc_bcast_recv_init(&f[0], rx);
    zc_waker w = waker();
    uint64_t out;
    if (zc_bcast_recv_poll(&f[0], &w, &out, NULL) != ZC_PENDING) _exit(2);
    memcpy(&f[1], &f[0], sizeof f[0]);
    zc_bcast_recv_poll(&f[1], &w, &out, NULL);
}

static void drop_a_broadcast_under_a_pending_future(void) {
    zc_bcast_sender *tx;
    zc_bcast_receiver *rx;
    make_bcast(&tx, &rx);
    zc_bcast_recv f;
    zc_bcast_recv_init(&f, rx);
    zc_waker w = waker();
    uint64_t out;
    if (zc_bcast_recv_poll(&f, &w, &out, NULL) != ZC_PENDING) _exit(2);
    zc_bcast_sender_drop(tx);
    zc_bcast_receiver_drop(rx);
}

static void test_a_broadcast_dropped_with_a_future_pending_aborts(void **state) {
    (void)state;
    expect_abort(drop_a_broadcast_under_a_pending_future, "zc_bcast_receiver_drop",
                 "freed with futures still pending");
}
#endif

/* ---- what stays allowed ------------------------------------------------------------ */

static void test_an_idle_future_may_move_and_a_clone_is_its_own_handle(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    assert_non_null(tx2);
#if ZCHAN_CHECKED
    assert_ptr_not_equal(tx2, tx); /* each clone an object of its own */
#endif
    zc_recv f[2];
    zc_recv_init(&f[0], rx);
    memcpy(&f[1], &f[0], sizeof f[0]); /* never polled: free to move */
    zc_waker w = waker();
    uint64_t out, v = 5;
    assert_int_equal(zc_recv_poll(&f[1], &w, &out), ZC_PENDING);
    assert_int_equal(zc_try_send(tx2, &v), ZC_OK);
    assert_int_equal(counting_waker_count(&cw), 1);
    assert_int_equal(zc_recv_poll(&f[1], &w, &out), ZC_OK);
    assert_int_equal(out, 5);
    memcpy(&f[0], &f[1], sizeof f[0]); /* complete: idle again, may move */
    assert_int_equal(zc_recv_poll(&f[0], &w, &out), ZC_PENDING);
    zc_recv_cancel(&f[0]);
    zc_recv_init(&f[0], rx); /* cancelled: may be initialised again */
    zc_sender_drop(tx);
    zc_sender_drop(tx2);
    zc_receiver_drop(rx);
}

/* Timed calls that cannot wait (a timeout of 0, a deadline already past) make their one
 * attempt inside a wake without complaint. */
static zc_receiver *empty_rx;
static zc_status in_wake_status[3];

static void wake_that_tries(void *ctx) {
    (void)ctx;
    uint64_t out;
    size_t got, index;
    in_wake_status[0] = zc_recv_timeout(empty_rx, &out, 0);
    in_wake_status[1] = zc_recv_many_until(empty_rx, &out, 1, &got, 0);
    zc_select_case c[1];
    zc_select_recv_case(&c[0], empty_rx, &out);
    in_wake_status[2] = zc_select_timeout(c, 1, 0, 0, &index);
}

static void test_calls_that_cannot_wait_are_allowed_inside_a_wake(void **state) {
    (void)state;
    zc_sender *tx, *tx2;
    zc_receiver *rx;
    make(&tx, &rx);
    make(&tx2, &empty_rx);
    zc_recv f;
    zc_recv_init(&f, rx);
    zc_waker w = {wake_that_tries, NULL};
    uint64_t out, v = 1;
    assert_int_equal(zc_recv_poll(&f, &w, &out), ZC_PENDING);
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    for (int i = 0; i < 3; i++) assert_int_equal(in_wake_status[i], ZC_TIMEDOUT);
    assert_int_equal(zc_recv_poll(&f, &w, &out), ZC_OK);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_sender_drop(tx2);
    zc_receiver_drop(empty_rx);
}

/* A future that completed, or never waited, needs its handle no longer: polling a
 * completed send again returns its status, and a cancel does nothing, after the handle's
 * drop (the checked build does not abort, and nothing reads the freed channel). */
static void test_a_done_or_idle_future_outlives_its_handle(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make(&tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    uint64_t v = 7, out;
    zc_waker w = waker();
    zc_send s;
    zc_send_init(&s, tx2, &v);
    assert_int_equal(zc_send_poll(&s, &w), ZC_OK);
    zc_send_many sm;
    zc_send_many_init(&sm, tx2, &v, 1, 0);
    assert_int_equal(zc_send_many_poll(&sm, &w), ZC_OK);
    zc_permit p;
    zc_reserve r;
    zc_reserve_init(&r, tx2, &p);
    zc_recv idle;
    zc_recv_init(&idle, rx);
    zc_select_case c[1];
    zc_select_recv_case(&c[0], rx, &out);
    zc_select sel;
    zc_select_init(&sel, c, 1, 0);
    size_t index;
    assert_int_equal(zc_select_poll(&sel, &w, &index), ZC_OK); /* takes v */
    zc_sender_closed sc;
    zc_sender_closed_init(&sc, tx2);
    zc_sender_drop(tx2);
    assert_int_equal(zc_send_poll(&s, &w), ZC_OK);
    assert_int_equal(zc_send_many_poll(&sm, &w), ZC_OK);
    zc_send_cancel(&s);
    zc_send_many_cancel(&sm);
    zc_reserve_cancel(&r);
    zc_sender_closed_cancel(&sc);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    zc_receiver_drop(rx); /* the channel lives on through tx and rx2 */
    zc_recv_cancel(&idle);
    zc_select_cancel(&sel);
    zc_select_disable(&sel, 0);
    assert_int_equal(counting_waker_count(&cw), 0);
    assert_int_equal(zc_try_recv(rx2, &out), ZC_OK); /* the batch's message */
    zc_sender_drop(tx);
    zc_receiver_drop(rx2);
}

/* One death test: the misuse, run in a child, and what its report must say. Each row of
 * main's table is a test of its own, named as it is there. */
typedef struct misuse {
    void (*commit)(void);
    const char *call;
    const char *what;
} misuse;

static void test_misuse_aborts(void **state) {
    const misuse *m = *state;
    expect_abort(m->commit, m->call, m->what);
}

#define MISUSE(name, fn, call, what)                                                       \
    { "test_" #name, test_misuse_aborts, NULL, NULL, &(misuse){fn, call, what} }

int main(void) {
    const struct CMUnitTest tests[] = {
        MISUSE(a_send_through_a_dropped_handle_aborts,
               send_through_a_dropped_sender, "zc_try_send",
               "used after its drop"),
        MISUSE(a_call_through_a_handle_of_a_freed_channel_aborts,
               recv_after_the_channel_is_freed, "zc_recv_blocking",
               "used after its drop"),
        MISUSE(a_second_drop_while_a_clone_lives_aborts,
               drop_a_receiver_twice_while_a_clone_lives, "zc_receiver_drop",
               "used after its drop"),
        MISUSE(a_second_drop_of_the_last_handle_aborts,
               drop_the_last_sender_twice, "zc_sender_drop",
               "used after its drop"),
        MISUSE(a_weak_handle_dropped_twice_aborts,
               drop_a_weak_sender_twice, "zc_weak_sender_drop",
               "used after its drop"),
        MISUSE(a_pointer_that_is_no_handle_aborts,
               clone_a_pointer_that_is_no_handle, "zc_sender_clone",
               "not a live zchan handle"),
        MISUSE(a_future_polled_after_its_channel_is_gone_aborts,
               poll_a_future_whose_channel_is_gone, "zc_recv_poll",
               "used after its drop"),
        MISUSE(a_pending_future_initialised_again_aborts,
               init_a_pending_future_again, "zc_recv_init",
               "initialised again while pending"),
        MISUSE(a_woken_future_initialised_again_aborts,
               init_a_woken_future_again, "zc_recv_init",
               "initialised again while pending"),
        MISUSE(a_pending_future_moved_aborts,
               move_a_pending_future, "zc_send_poll",
               "moved in memory while pending"),
        MISUSE(a_moved_pending_future_cancelled_aborts,
               cancel_a_moved_pending_future, "zc_recv_cancel",
               "moved in memory while pending"),
        MISUSE(a_registered_future_freed_is_found_by_the_next_wake,
               overwrite_a_registered_future, "waking a waiter",
               "freed or overwritten while it was registered"),
        MISUSE(a_registered_future_whose_links_an_allocator_reused_is_found,
               free_a_registered_future, "waking a waiter",
               "freed or overwritten while it was registered"),
        MISUSE(a_channel_dropped_with_a_future_pending_aborts,
               drop_the_channel_under_a_pending_future, "zc_receiver_drop",
               "freed with futures still pending"),
        MISUSE(a_closed_event_future_left_pending_aborts_at_the_last_drop,
               drop_the_channel_under_a_linked_future, "zc_sender_drop",
               "freed with futures still pending"),
        MISUSE(a_wait_inside_a_wake_callback_aborts,
               block_inside_a_wake, "zc_recv_timeout",
               "inside a wake callback"),
        MISUSE(a_park_inside_a_wake_callback_aborts,
               park_a_parker_inside_a_wake, "zc_parker_park_timeout",
               "inside a wake callback"),
        MISUSE(a_pending_select_case_set_up_again_aborts,
               set_up_a_pending_select_case_again, "zc_select_recv_case",
               "initialised again while pending"),
        MISUSE(the_cases_of_a_pending_select_moved_abort,
               move_the_cases_of_a_pending_select, "zc_select_cancel",
               "moved in memory while pending"),
        MISUSE(a_permit_committed_through_a_dropped_sender_aborts,
               commit_a_permit_after_its_sender_is_dropped, "zc_permit_commit",
               "used after its drop"),
        MISUSE(a_batch_through_a_dropped_handle_aborts,
               batch_through_a_dropped_receiver, "zc_try_recv_many",
               "used after its drop"),
#ifdef ZCHAN_HAS_BROADCAST
        MISUSE(a_broadcast_receiver_dropped_twice_aborts,
               drop_a_broadcast_receiver_twice, "zc_bcast_receiver_drop",
               "used after its drop"),
        MISUSE(a_pending_broadcast_future_moved_aborts,
               move_a_pending_broadcast_receive, "zc_bcast_recv_poll",
               "moved in memory while pending"),
        cmocka_unit_test(test_a_broadcast_dropped_with_a_future_pending_aborts),
#endif
        cmocka_unit_test(test_an_idle_future_may_move_and_a_clone_is_its_own_handle),
        cmocka_unit_test(test_calls_that_cannot_wait_are_allowed_inside_a_wake),
        cmocka_unit_test(test_a_done_or_idle_future_outlives_its_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

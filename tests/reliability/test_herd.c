/* Wake-up accounting at the edges of a poll: waker rule 5 (no herd: one message, one
 * freed slot, calls at most one other future's waker) where a poll meets a peer in the
 * middle of an operation or completes right after its re-check, and rule 4 (no lost
 * wake-up) where such a future is cancelled.
 *
 * A poll never attempts with its waiter linked: its re-check is a look at the queue
 * under the list's lock, and a queue that looks ready takes the node off before the
 * attempt (src/wait.h). So a pending future that polls again and finds the slot it
 * needs claimed by a peer and not yet published (or not yet released) is off the list
 * while it backs off and wakes itself: the peer's one wake goes to the next waiter,
 * none to the stalled future, and a cancel of that future has nothing to pass on.
 *
 * Each test forces the interleaving with the hook points of a ZCHAN_TEST_HOOKS build:
 * the peer thread is held at ZC__HOOK_SLOT_CLAIMED (slot claimed, not yet published or
 * released) until the main thread's poll reaches ZC__HOOK_WAIT_STALLED (its attempt
 * found the peer mid-operation), and the main thread is held there until the peer has
 * finished, woken the oldest waiter, and returned.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "hooks.h"
#include "u64_fixture.h"

/* The two windows: the peer's (claimed, not done) and the main thread's (stalled). */
typedef struct window {
    atomic_bool claimed;   /* the peer sits in its window */
    atomic_bool release;   /* the main thread's poll has stalled: let the peer finish */
    atomic_bool peer_done; /* the peer's operation has returned */
} window;

static window the_window;
static _Thread_local bool hold_me;   /* this thread is the peer */
static _Thread_local bool stall_me;  /* this thread's next stalled poll opens the window */

static void window_hook(zc__hook_point point, void *ctx) {
    window *w = ctx;
    /* Release/acquire on each flag: plain hand-offs between the two threads. */
    if (point == ZC__HOOK_SLOT_CLAIMED && hold_me) {
        hold_me = false;
        atomic_store_explicit(&w->claimed, true, memory_order_release);
        while (!atomic_load_explicit(&w->release, memory_order_acquire))
            sched_yield();
    } else if (point == ZC__HOOK_WAIT_STALLED && stall_me) {
        stall_me = false;
        atomic_store_explicit(&w->release, true, memory_order_release);
        while (!atomic_load_explicit(&w->peer_done, memory_order_acquire))
            sched_yield();
    }
}

static void *peer_send(void *arg) {
    fixture *f = arg;
    hold_me = true;
    send_u64(f->tx, 7);
    atomic_store_explicit(&the_window.peer_done, true, memory_order_release);
    return NULL;
}

static void *peer_recv(void *arg) {
    fixture *f = arg;
    hold_me = true;
    expect_u64(f->rx, 1);
    atomic_store_explicit(&the_window.peer_done, true, memory_order_release);
    return NULL;
}

/* Start the peer and wait until it holds its slot claimed. */
static void open_peer(pthread_t *t, void *(*peer)(void *), fixture *f) {
    atomic_init(&the_window.claimed, false);
    atomic_init(&the_window.release, false);
    atomic_init(&the_window.peer_done, false);
    zc__test_set_hook(window_hook, &the_window);
    assert_int_equal(pthread_create(t, NULL, peer, f), 0);
    while (!atomic_load_explicit(&the_window.claimed, memory_order_acquire))
        sched_yield();
    stall_me = true;
}

static void close_peer(pthread_t t) {
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_false(stall_me); /* the poll under test did stall */
    zc__test_set_hook(NULL, NULL);
}

/* Receivers r[0] and r[1] pend on an empty bounded(1) channel; a sender claims the slot;
 * r[0] polls again and stalls on the unpublished slot while the send finishes. */
static void stall_first_receiver(fixture *f, zc_recv *r) {
    fixture_init(f, 1);
    pend_receivers(f, r, 2);
    pthread_t t;
    open_peer(&t, peer_send, f);
    expect_poll_pending(&r[0], &f->w[0]);
    close_peer(t);
}

static void test_receiver_stalled_on_a_claimed_slot_leaves_the_one_wake_to_the_next(void **state) {
    (void)state;
    fixture f;
    zc_recv r[2];
    stall_first_receiver(&f, r);
    assert_int_equal(wakes(&f, 0), 1); /* r[0]'s own wake, to poll again soon */
    assert_int_equal(wakes(&f, 1), 1); /* the send's one wake: r[1], the oldest linked */
    expect_poll_u64(&r[0], &f.w[0], 7);
    expect_poll_pending(&r[1], &f.w[1]);
    assert_int_equal(wakes(&f, 0), 1); /* one message: no other wake */
    assert_int_equal(wakes(&f, 1), 1);
    zc_recv_cancel(&r[1]);
    fixture_done(&f);
}

static void test_receiver_stalled_then_cancelled_leaves_the_message_to_the_next(void **state) {
    (void)state;
    fixture f;
    zc_recv r[2];
    stall_first_receiver(&f, r);
    zc_recv_cancel(&r[0]);
    assert_int_equal(wakes(&f, 1), 1); /* the send's wake, and no second one from the cancel */
    expect_poll_u64(&r[1], &f.w[1], 7);
    assert_int_equal(wakes(&f, 0), 1);
    fixture_done(&f);
}

/* Senders s[0] and s[1] pend on a full bounded(1) channel; a receiver claims the slot;
 * s[0] polls again and stalls on the slot not yet released while the receive finishes. */
static void stall_first_sender(fixture *f, zc_send *s, uint64_t *msgs) {
    fixture_init(f, 1);
    pend_senders(f, s, msgs, 2);
    pthread_t t;
    open_peer(&t, peer_recv, f);
    assert_int_equal(zc_send_poll(&s[0], &f->w[0]), ZC_PENDING);
    close_peer(t);
}

static void test_sender_stalled_on_a_claimed_slot_leaves_the_one_wake_to_the_next(void **state) {
    (void)state;
    fixture f;
    zc_send s[2];
    uint64_t msgs[2];
    stall_first_sender(&f, s, msgs);
    assert_int_equal(wakes(&f, 0), 1); /* s[0]'s own wake, to poll again soon */
    assert_int_equal(wakes(&f, 1), 1); /* the receive's one wake: s[1], the oldest linked */
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_PENDING);
    assert_int_equal(wakes(&f, 0), 1); /* one slot freed: no other wake */
    assert_int_equal(wakes(&f, 1), 1);
    zc_send_cancel(&s[1]);
    expect_u64(f.rx, 100);
    fixture_done(&f);
}

static void test_sender_stalled_then_cancelled_leaves_the_slot_to_the_next(void **state) {
    (void)state;
    fixture f;
    zc_send s[2];
    uint64_t msgs[2];
    stall_first_sender(&f, s, msgs);
    zc_send_cancel(&s[0]);
    assert_int_equal(wakes(&f, 1), 1); /* the receive's wake, and no second one from the cancel */
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    expect_u64(f.rx, 101);
    assert_int_equal(wakes(&f, 0), 1);
    fixture_done(&f);
}

/* Rules 4 and 5 where a poll completes right after its re-check. Sender s[0] finds
 * bounded(1) full and is about to register when a receive frees the slot (no waiter is
 * linked yet, so it wakes no one); s[0]'s re-check sees the slot free, so it leaves the
 * list and sends into it. While its send is publishing, s[1] comes to wait and a second
 * receive frees the slot again: its one wake goes to s[1], the only waiter linked, and
 * s[0], which never held a wake-up, passes nothing on. All on one thread, driven by the
 * hook points. */
typedef struct recheck {
    fixture *f;
    zc_send *s;
    int phase; /* 0: wait for s[0]'s registration; 1: for its re-check's publish; 2: done;
                * -1: inside the test's own receive */
} recheck;

static void recheck_hook(zc__hook_point point, void *ctx) {
    recheck *r = ctx;
    if (r->phase == 0 && point == ZC__HOOK_WAIT_REGISTERING) {
        r->phase = -1; /* the receive's own hook points are not s[0]'s */
        expect_u64(r->f->rx, 1); /* the slot frees; nobody is linked to be woken */
        r->phase = 1;
    } else if (r->phase == 1 && point == ZC__HOOK_SLOT_PUBLISHED) {
        r->phase = 2;
        assert_int_equal(zc_send_poll(&r->s[1], &r->f->w[1]), ZC_PENDING); /* behind s[0] */
        expect_u64(r->f->rx, 100); /* s[0]'s message: the slot frees again */
    }
}

static void test_poll_completing_after_its_recheck_leaves_the_next_wake_to_the_next(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    send_u64(f.tx, 1);
    zc_send s[2];
    uint64_t msgs[2] = {100, 101};
    zc_send_init(&s[0], f.tx, &msgs[0]);
    zc_send_init(&s[1], f.tx, &msgs[1]);
    recheck r = {&f, s, 0};
    zc__test_set_hook(recheck_hook, &r);
    assert_int_equal(zc_send_poll(&s[0], &f.w[0]), ZC_OK);
    zc__test_set_hook(NULL, NULL);
    assert_int_equal(r.phase, 2);
    assert_int_equal(wakes(&f, 0), 0); /* s[0] was off the list while it sent */
    assert_int_equal(wakes(&f, 1), 1); /* the second slot's one wake: s[1] is not left waiting */
    assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_OK);
    expect_u64(f.rx, 101);
    fixture_done(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_receiver_stalled_on_a_claimed_slot_leaves_the_one_wake_to_the_next),
        cmocka_unit_test(test_receiver_stalled_then_cancelled_leaves_the_message_to_the_next),
        cmocka_unit_test(test_sender_stalled_on_a_claimed_slot_leaves_the_one_wake_to_the_next),
        cmocka_unit_test(test_sender_stalled_then_cancelled_leaves_the_slot_to_the_next),
        cmocka_unit_test(test_poll_completing_after_its_recheck_leaves_the_next_wake_to_the_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Reliability scenarios of the blocking layer (src/block.c, the parker): a timed-out call
 * leaves no registration behind, and, with the hook points, timed calls that must time
 * out while a peer is held inside its operation (mid-copy, mid-write, at a segment's end
 * or at a segment install), and a blocking send that must let a lower-priority peer held
 * mid-copy run. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <zchan/block.h>
#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "scenario.h"
#if ZCHAN_TEST_HOOKS
#include "scenario_hooks.h"
#endif

/* Two timed receives time out on an empty channel (one at once, one after 1 ms), then a
 * receive future pends. Guards: the timed-out calls left no registration, so the next
 * send wakes the future. */
static void test_timed_out_blocking_recv_leaves_the_wake_to_the_next(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_init(&f, both_flavours[k]);
        uint64_t out = 0;
        assert_int_equal(zc_recv_timeout(f.rx, &out, 0), ZC_TIMEDOUT);
        assert_int_equal(zc_recv_timeout(f.rx, &out, 1000 * 1000), ZC_TIMEDOUT);
        zc_recv r;
        zc_recv_init(&r, f.rx);
        expect_poll_pending(&r, &f.w[0]);
        send_u64(f.tx, 3); /* a registration left by a timed-out call would be first */
        assert_int_equal(wakes(&f, 0), 1);
        expect_poll_u64(&r, &f.w[0], 3);
        fixture_done(&f);
    }
}

#if ZCHAN_TEST_HOOKS

/* A timed send behind a sender that holds a segment's last slot, the next segment not yet
 * installed, cannot go through: zc_try_send would wait that sender out. Guards
 * (block.h): a timed send, with a zero or a 1 ms timeout, times out and sends nothing
 * while that sender is held, and what was queued arrives in order. */
static atomic_bool stalled_send_done;

static void *stalled_send_then_mark(void *arg) {
    stalled_send(arg);
    atomic_store_explicit(&stalled_send_done, true, memory_order_release); /* a flag */
    return NULL;
}

static void test_timed_send_behind_a_segment_install_times_out_and_sends_nothing(void **state) {
    (void)state;
    fixture f;
    pthread_t a;
    atomic_init(&stalled_send_done, false);
    hold_a_sender_at_a_segment_boundary(&f, &a, stalled_send_then_mark);
    uint64_t v = 7;
    zc_status at_once = zc_send_timeout(f.tx, &v, 0);
    zc_status within_1ms = zc_send_timeout(f.tx, &v, 1000 * 1000);
    /* The stall lasts 5 ms from main_entered: only a main thread descheduled that long
     * finds the install done (then a send may go through). */
    bool held = !atomic_load_explicit(&stalled_send_done, memory_order_acquire);
    pthread_join(a, NULL);
    zc__test_set_hook(NULL, NULL);
    if (held) {
        assert_int_equal(at_once, ZC_TIMEDOUT);
        assert_int_equal(within_1ms, ZC_TIMEDOUT);
    }
    for (uint64_t want = 100; want < 130; want++) expect_u64(f.rx, want);
    expect_u64(f.rx, 1); /* the stalled send */
    if (at_once == ZC_OK) expect_u64(f.rx, 7);
    if (within_1ms == ZC_OK) expect_u64(f.rx, 7);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* The timeout scenarios' check: while op's peer (a receiver, or a sender of op->v) is
 * held, a receive or a send of 3 with a 20 ms timeout returns ZC_TIMEDOUT, before the
 * watchdog had to release the peer; then the peer's own operation completes. */static void expect_timeout_while_held(fixture *f, held_op *op, bool receive) {
    hold h;
    pthread_t peer, dog;
    hold_start(&h, op, receive, &peer, &dog);
    uint64_t v = 3;
    zc_status s = receive ? zc_recv_timeout(f->rx, &v, 20 * 1000 * 1000)
                          : zc_send_timeout(f->tx, &v, 20 * 1000 * 1000);
    bool forced = hold_end(&h, peer, dog);
    zc__test_set_hook(NULL, NULL);
    assert_false(forced); /* returned while the peer was held */
    assert_int_equal(s, ZC_TIMEDOUT);
    assert_int_equal(op->s, ZC_OK);
}

/* On a bounded(1) channel, a peer on the same end as the call under test is held in
 * the middle of its operation; the call (a receive or a send with a 20 ms timeout) finds
 * nothing it could take and must return ZC_TIMEDOUT while the peer is still held. */
static void run_timeout_while_a_peer_is_held(bool receive) {
    fixture f;
    fixture_init(&f, 1);
    if (receive) send_u64(f.tx, 1);
    held_op op = {.f = &f, .v = 2};
    expect_timeout_while_held(&f, &op, receive);
    if (receive) {
        assert_int_equal(op.v, 1); /* the held receiver got the message */
    } else {
        expect_u64(f.rx, 2); /* the held sender's message, and not ours */
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_recv_timeout_expires_while_another_receiver_is_held_mid_copy(void **state) {
    (void)state;
    run_timeout_while_a_peer_is_held(true);
}

static void test_send_timeout_expires_while_another_sender_is_held_mid_write(void **state) {
    (void)state;
    run_timeout_while_a_peer_is_held(false);
}

/* On an unbounded channel, a peer holds a segment's end: it took the segment's last slot
 * and is held before moving its end of the queue on to the next segment, so every other
 * call on that end waits for it. The call under test (a receive or a send with a 20 ms
 * timeout) must return ZC_TIMEDOUT while the peer is still held; afterwards everything
 * arrives in order. */
static void run_timeout_while_a_peer_holds_a_segment_end(bool receive) {
    fixture f;
    fixture_init(&f, 0);
    /* Receive: the first segment full and 3 messages in the next one; the main thread
     * takes all but the last of the first, the peer claims that one. Send: the first
     * segment full but one slot, which the peer claims. */
    uint64_t sent = receive ? SEG_SLOTS + 3 : SEG_SLOTS - 1;
    for (uint64_t v = 1; v <= sent; v++) send_u64(f.tx, v);
    if (receive)
        for (uint64_t v = 1; v < SEG_SLOTS; v++) expect_u64(f.rx, v);
    held_op op = {.f = &f, .v = SEG_SLOTS};
    expect_timeout_while_held(&f, &op, receive);
    assert_int_equal(op.v, SEG_SLOTS); /* the held receiver's catch / sender's message */
    if (receive) {
        for (uint64_t w = SEG_SLOTS + 1; w <= sent; w++) expect_u64(f.rx, w);
    } else {
        for (uint64_t w = 1; w <= SEG_SLOTS; w++) expect_u64(f.rx, w);
    }
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_recv_timeout_expires_while_another_receiver_holds_a_segment_end(void **state) {
    (void)state;
    run_timeout_while_a_peer_holds_a_segment_end(true);
}

static void test_send_timeout_expires_while_another_sender_holds_a_segment_end(void **state) {
    (void)state;
    run_timeout_while_a_peer_holds_a_segment_end(false);
}

/* Real-time threads on one CPU: a receiver (SCHED_FIFO 10) claims the only message of a
 * full bounded(1) channel and, at that point (its SLOT_CLAIMED hook), wakes a sender of
 * higher priority (SCHED_FIFO 20), which preempts it at once: the receiver is runnable
 * but holds the slot mid-copy. The sender's zc_send_blocking finds the ring saying
 * PENDING (a peer is mid-operation) for as long as the receiver cannot run, and
 * sched_yield gives the CPU to no lower priority. Guards: the blocking call sleeps now and
 * then, so the receiver finishes and the send completes with the sender at its
 * priority, instead of the sender spinning on the CPU for ever. A watchdog
 * on the main thread demotes the sender after WATCHDOG_NS, so a regression fails the test
 * instead of hanging it. Skipped where real-time priorities are not permitted. */
#ifdef __linux__ /* CPU affinity, sched_getcpu */

#define WATCHDOG_NS (3ull * 1000 * 1000 * 1000)

typedef struct rt_pair {
    fixture *f;
    zc_parker go;           /* the sender waits here for the receiver's claim */
    atomic_bool sent;       /* the sender's call returned */
    zc_status send_s, recv_s;
    uint64_t got;
} rt_pair;

static _Thread_local bool preempt_me;

static void wake_sender_hook(zc__hook_point point, void *ctx) {
    rt_pair *p = ctx;
    if (point != ZC__HOOK_SLOT_CLAIMED || !preempt_me) return;
    preempt_me = false;
    zc_waker w = zc_parker_waker(&p->go);
    w.wake(w.ctx); /* the sender, of higher priority on this CPU, runs now */
}

static void *rt_receiver(void *arg) {
    rt_pair *p = arg;
    preempt_me = true;
    p->recv_s = zc_try_recv(p->f->rx, &p->got);
    return NULL;
}

static void *rt_sender(void *arg) {
    rt_pair *p = arg;
    zc_parker_park(&p->go);
    uint64_t v = 2;
    p->send_s = zc_send_blocking(p->f->tx, &v);
    /* Release: the main thread reads send_s after it sees this. */
    atomic_store_explicit(&p->sent, true, memory_order_release);
    return NULL;
}

/* Start fn at SCHED_FIFO priority prio on CPU cpu; false if that is not permitted. */
static bool start_rt_thread(pthread_t *t, void *(*fn)(void *), void *arg, int prio, int cpu) {
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    struct sched_param sp = {.sched_priority = prio};
    bool ok = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0 &&
              pthread_attr_setschedpolicy(&attr, SCHED_FIFO) == 0 &&
              pthread_attr_setschedparam(&attr, &sp) == 0 &&
              pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0 &&
              pthread_create(t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 1);
    send_u64(f.tx, 1); /* full */
    rt_pair p = {.f = &f};
    zc_parker_init(&p.go);
    atomic_init(&p.sent, false);
    int cpu = sched_getcpu();
    if (cpu < 0) cpu = 0;
    pthread_t sender, receiver;
    if (!start_rt_thread(&sender, rt_sender, &p, 20, cpu)) {
        zc_parker_destroy(&p.go);
        fixture_done(&f);
        skip(); /* no real-time priorities here (not root, or a container's limit) */
    }
    zc__test_set_hook(wake_sender_hook, &p);
    if (!start_rt_thread(&receiver, rt_receiver, &p, 10, cpu)) {
        /* The sender is parked: wake it; it sends once the slot is free. */
        zc_waker w = zc_parker_waker(&p.go);
        w.wake(w.ctx);
        uint64_t v;
        assert_int_equal(zc_try_recv(f.rx, &v), ZC_OK);
        pthread_join(sender, NULL);
        zc__test_set_hook(NULL, NULL);
        zc_parker_destroy(&p.go);
        fixture_done(&f);
        skip();
    }
    /* The main thread runs at normal priority, not pinned: on another CPU. */
    uint64_t until = now_ns() + WATCHDOG_NS;
    bool forced = false;
    while (!atomic_load_explicit(&p.sent, memory_order_acquire)) {
        if (now_ns() >= until) { /* demote the sender: the receiver runs, and then it */
            forced = true;
            struct sched_param normal = {.sched_priority = 0};
            assert_int_equal(pthread_setschedparam(sender, SCHED_OTHER, &normal), 0);
            break;
        }
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    pthread_join(sender, NULL);
    pthread_join(receiver, NULL);
    zc__test_set_hook(NULL, NULL);
    zc_parker_destroy(&p.go);
    assert_false(forced); /* the send finished with the sender at its priority */
    assert_int_equal(p.send_s, ZC_OK);
    assert_int_equal(p.recv_s, ZC_OK);
    assert_int_equal(p.got, 1);
    expect_u64(f.rx, 2);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

#else

static void test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run(
    void **state) {
    (void)state;
    skip(); /* needs Linux's CPU affinity */
}

#endif /* __linux__ */

#endif /* ZCHAN_TEST_HOOKS */

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timed_out_blocking_recv_leaves_the_wake_to_the_next),
#if ZCHAN_TEST_HOOKS
        cmocka_unit_test(test_timed_send_behind_a_segment_install_times_out_and_sends_nothing),
        cmocka_unit_test(test_recv_timeout_expires_while_another_receiver_is_held_mid_copy),
        cmocka_unit_test(test_send_timeout_expires_while_another_sender_is_held_mid_write),
        cmocka_unit_test(test_recv_timeout_expires_while_another_receiver_holds_a_segment_end),
        cmocka_unit_test(test_send_timeout_expires_while_another_sender_holds_a_segment_end),
        cmocka_unit_test(test_blocking_send_lets_a_lower_priority_receiver_held_mid_copy_run),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

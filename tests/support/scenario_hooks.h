/**
 * @file scenario_hooks.h
 * Test support for the reliability scenarios that need the race-window hook points
 * (a ZCHAN_TEST_HOOKS build, src/hooks.h): a sender stalled between its claim and its
 * write, a peer that holds its slot claimed for a steered time, a peer held at its claim
 * until released (with a watchdog), and the scenario of a cancel after a self-woken
 * pending poll that the future and batch scenarios share. Include "scenario.h" first.
 */
#ifndef ZCHAN_TEST_SCENARIO_HOOKS_H
#define ZCHAN_TEST_SCENARIO_HOOKS_H

#include <zchan/batch.h>

#include "hooks.h"
#include "scenario.h"

/* Slots per segment of an unbounded channel (src/segq.h ZC__SEG_CAP). */
#define SEG_SLOTS 31

/* Holds the thread marked `stall_me` at its SLOT_CLAIMED hook point (after it claimed
 * its slot, before it wrote the message) until the main thread has begun the operation
 * under test, plus a few milliseconds more so that the operation runs inside the window.
 * What the test asserts does not depend on that time, only how often the window is hit. */
typedef struct stall {
    atomic_bool stalled;      /* the marked sender sits in its window */
    atomic_bool main_entered; /* the main thread is about to look at the channel */
} stall;

static _Thread_local bool stall_me;
static stall the_stall;

static inline void stall_hook(zc__hook_point point, void *ctx) {
    stall *st = ctx;
    if (point != ZC__HOOK_SLOT_CLAIMED || !stall_me) return;
    stall_me = false;
    /* Release/acquire: plain flags between the two threads of the test. */
    atomic_store_explicit(&st->stalled, true, memory_order_release);
    while (!atomic_load_explicit(&st->main_entered, memory_order_acquire))
        sched_yield();
    uint64_t until = now_ns() + 5 * 1000 * 1000;
    while (now_ns() < until)
        sched_yield();
}

static inline void *stalled_send(void *arg) {
    zc_sender *tx = arg;
    stall_me = true;
    uint64_t v = 1;
    (void)zc_try_send(tx, &v);
    return NULL;
}

static inline void *quick_send(void *arg) {
    uint64_t v = 2;
    (void)zc_try_send((zc_sender *)arg, &v);
    return NULL;
}


/* An unbounded channel holding 100..129 (offsets 0..29) and a thread (thread_main,
 * which sends 1 through f->tx as stall_me) held at its SLOT_CLAIMED point on offset 30,
 * the segment's last slot, before it installs the next segment; main_entered set. */
static inline void hold_a_sender_at_a_segment_boundary(fixture *f, pthread_t *a,
                                                void *(*thread_main)(void *)) {
    fixture_init(f, 0);
    for (uint64_t v = 100; v < 130; v++) send_u64(f->tx, v);
    atomic_init(&the_stall.stalled, false);
    atomic_init(&the_stall.main_entered, false);
    zc__test_set_hook(stall_hook, &the_stall);
    start_thread(a, thread_main, f->tx);
    while (!atomic_load_explicit(&the_stall.stalled, memory_order_acquire))
        sched_yield();
    atomic_store_explicit(&the_stall.main_entered, true, memory_order_release);
}

/* Holds the thread marked hold_me at its SLOT_CLAIMED point until release is set: a
 * receiver that claimed the only message and was preempted before copying it out, or a
 * sender that claimed the only slot before writing. The operation under test must finish
 * while the peer is held; a watchdog releases the peer after HOLD_NS and says so, so a
 * regression fails the test instead of hanging it. */
#define HOLD_NS (5ull * 1000 * 1000 * 1000)

typedef struct hold {
    atomic_bool held;    /* the marked thread sits at its SLOT_CLAIMED point */
    atomic_bool release; /* let it go on */
    atomic_bool forced;  /* the watchdog released it: the call under test had not returned */
    atomic_uint freed;   /* segments freed (or kept as spare) so far, any thread */
} hold;

static _Thread_local bool hold_me;

static inline void hold_hook(zc__hook_point point, void *ctx) {
    hold *h = ctx;
    if (point == ZC__HOOK_SEGMENT_FREED)
        /* Relaxed: a count, read after the threads are joined. */
        atomic_fetch_add_explicit(&h->freed, 1, memory_order_relaxed);
    if (point != ZC__HOOK_SLOT_CLAIMED || !hold_me) return;
    hold_me = false;
    /* Release/acquire: plain flags between the threads of the test. */
    atomic_store_explicit(&h->held, true, memory_order_release);
    while (!atomic_load_explicit(&h->release, memory_order_acquire))
        sched_yield();
}

static inline void *hold_watchdog(void *arg) {
    hold *h = arg;
    uint64_t until = now_ns() + HOLD_NS;
    while (!atomic_load_explicit(&h->release, memory_order_acquire)) {
        if (now_ns() >= until) {
            atomic_store_explicit(&h->forced, true, memory_order_release);
            atomic_store_explicit(&h->release, true, memory_order_release);
            break;
        }
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    return NULL;
}

typedef struct held_op {
    fixture *f;
    uint64_t v;  /* the held sender's message; the held receiver's catch */
    zc_status s; /* what the held operation returned (checked on the main thread) */
} held_op;

static inline void *held_try_recv(void *arg) {
    held_op *op = arg;
    hold_me = true;
    op->s = zc_try_recv(op->f->rx, &op->v);
    return NULL;
}

static inline void *held_try_send(void *arg) {
    held_op *op = arg;
    hold_me = true;
    op->s = zc_try_send(op->f->tx, &op->v);
    return NULL;
}

/* A hold with nobody held yet (hold_start, or a hook that calls hold_hook, holds one). */
static inline void hold_init(hold *h) {
    atomic_init(&h->held, false);
    atomic_init(&h->release, false);
    atomic_init(&h->forced, false);
    atomic_init(&h->freed, 0);
}

/* Start the peer (a zc_try_recv, or a zc_try_send of op->v) on op's channel and wait
 * until it is held at its SLOT_CLAIMED point; then start the watchdog. */
static inline void hold_start(hold *h, held_op *op, bool receive, pthread_t *peer,
                              pthread_t *dog) {
    hold_init(h);
    zc__test_set_hook(hold_hook, h);
    start_thread(peer, receive ? held_try_recv : held_try_send, op);
    while (!atomic_load_explicit(&h->held, memory_order_acquire))
        sched_yield();
    start_thread(dog, hold_watchdog, h);
}

/* Release the peer and join it and the watchdog. True if the watchdog had released it
 * already: the calls made meanwhile had waited for the peer. */
static inline bool hold_end(hold *h, pthread_t peer, pthread_t dog) {
    bool forced = atomic_load_explicit(&h->forced, memory_order_acquire);
    atomic_store_explicit(&h->release, true, memory_order_release);
    pthread_join(dog, NULL);
    pthread_join(peer, NULL);
    return forced;
}

/* How long release_later holds a peer: well past the 20 ms timeouts under test. */
#define RELEASE_LATER_NS (100ull * 1000 * 1000)

/* Releases the held peer of hold arg after RELEASE_LATER_NS. */
static inline void *release_later(void *arg) {
    hold *h = arg;
    nanosleep(&(struct timespec){0, (long)RELEASE_LATER_NS}, NULL);
    atomic_store_explicit(&h->release, true, memory_order_release);
    return NULL;
}

/* A peer thread that holds its slot claimed (a sender before publishing it, or a
 * receiver before releasing it) for `delay` pauses at its SLOT_CLAIMED hook point, then
 * finishes, and its [F1] check wakes the first waiter of the other side. */
typedef struct slow_peer {
    atomic_uint go, claimed, acked, done; /* round numbers (release / acquire) */
    zc_sender *tx;                 /* the peer sends through tx, or receives through rx */
    zc_receiver *rx;               /* (both written before go) */
    unsigned delay;                /* written before go */
} slow_peer;

static _Thread_local slow_peer *slow_me;

static inline void slow_peer_hook(zc__hook_point point, void *ctx) {
    (void)ctx;
    slow_peer *sp = slow_me;
    if (point != ZC__HOOK_SLOT_CLAIMED || sp == NULL) return;
    /* Relaxed: this thread read go with acquire before it began the operation. */
    unsigned round = atomic_load_explicit(&sp->go, memory_order_relaxed);
    atomic_store_explicit(&sp->claimed, round, memory_order_release); /* pairs: await_uint */
    /* Hold from the moment the main thread is known to be running (its ack), so that a
     * main thread descheduled while it waited does not skew the steering. */
    await_uint(&sp->acked, round);
    spin(sp->delay);
}

static inline void *slow_peer_main(void *arg) {
    slow_peer *sp = arg;
    for (unsigned round = 1; await_uint(&sp->go, round); round++) {
        slow_me = sp;
        uint64_t v = round;
        if (sp->tx != NULL)
            (void)zc_try_send(sp->tx, &v);
        else
            (void)zc_try_recv(sp->rx, &v);
        slow_me = NULL;
        atomic_store_explicit(&sp->done, round, memory_order_release); /* pairs: await_uint */
    }
    return NULL;
}

/* Futures A and B wait on one side of a bounded(1) channel (A first): receivers on an
 * empty one, or senders on a full one. A peer of the other side claims the slot and
 * holds it; A is polled again meanwhile: the ring says PENDING (the peer is mid-copy),
 * so A's poll steps off the list, wakes itself and returns PENDING, and A's executor
 * cancels it (a timeout). If the peer's [F1] wake reached A in the moment between A's
 * look at the slot and A's stepping off, A held that wake-up: it must reach B (waker
 * rule 4), or B waits while what it waits for is there. The peer holds the slot from the
 * main thread's ack for a time steered (as the first-segment race steers its skew) so
 * that it ends about when A looks, round after round. A, the future cancelled, is a
 * receive or send future, or a batch future (zc_recv_many, zc_send_many) with a plain
 * future as B. */
typedef enum waiting_kind { RECEIVERS, SENDERS, BATCH_RECEIVER, BATCH_SENDER } waiting_kind;

static inline void run_cancel_after_a_self_woken_pending_poll(waiting_kind kind) {
    bool receivers = kind == RECEIVERS || kind == BATCH_RECEIVER;
    const unsigned ROUNDS = scenario_rounds(20000);
    static slow_peer sp;
    atomic_init(&sp.go, 0);
    atomic_init(&sp.claimed, 0);
    atomic_init(&sp.acked, 0);
    atomic_init(&sp.done, 0);
    sp.delay = 200;
    zc__test_set_hook(slow_peer_hook, NULL);
    pthread_t t;
    start_thread(&t, slow_peer_main, &sp);
    cpu_set_t cpus = spread_threads(t);
    unsigned early = 0, late = 0, stranded = 0, first_stranded = 0, round;
    uint64_t t0 = now_ns();
    for (round = 1; race_goes_on(round, ROUNDS, t0); round++) {
        fixture f;
        fixture_init(&f, 1);
        zc_recv r[2];
        zc_send s[2];
        zc_recv_many batch;
        zc_send_many batch_send;
        uint64_t msg[2], out = 0;
        size_t got = 0;
        zc_status sa;
        if (kind == BATCH_SENDER) { /* A sends a batch of one; B is a plain send future */
            send_u64(f.tx, 1);
            msg[0] = 100;
            msg[1] = 101;
            zc_send_many_init(&batch_send, f.tx, &msg[0], 1, 0);
            assert_int_equal(zc_send_many_poll(&batch_send, &f.w[0]), ZC_PENDING);
            zc_send_init(&s[1], f.tx, &msg[1]);
            assert_int_equal(zc_send_poll(&s[1], &f.w[1]), ZC_PENDING);
            sp.tx = NULL;
            sp.rx = f.rx;
        } else if (kind == BATCH_RECEIVER) { /* A takes batches; B is a plain receive future */
            zc_recv_many_init(&batch, f.rx);
            assert_int_equal(zc_recv_many_poll(&batch, &f.w[0], &out, 1, &got), ZC_PENDING);
            zc_recv_init(&r[1], f.rx);
            expect_poll_pending(&r[1], &f.w[1]);
            sp.tx = f.tx;
            sp.rx = NULL;
        } else if (receivers) {
            pend_receivers(&f, r, 2);
            sp.tx = f.tx;
            sp.rx = NULL;
        } else {
            pend_senders(&f, s, msg, 2);
            sp.tx = NULL;
            sp.rx = f.rx;
        }
        atomic_store_explicit(&sp.go, round, memory_order_release); /* tx/rx/delay set */
        await_uint(&sp.claimed, round);
        atomic_store_explicit(&sp.acked, round, memory_order_release); /* pairs: the hook */
        if (kind == BATCH_SENDER) {
            sa = zc_send_many_poll(&batch_send, &f.w[0]);
            if (sa == ZC_PENDING) zc_send_many_cancel(&batch_send);
        } else if (kind == BATCH_RECEIVER) {
            sa = zc_recv_many_poll(&batch, &f.w[0], &out, 1, &got);
            if (sa == ZC_PENDING) zc_recv_many_cancel(&batch);
        } else if (receivers) {
            sa = zc_recv_poll(&r[0], &f.w[0], &out);
            if (sa == ZC_PENDING) zc_recv_cancel(&r[0]);
        } else {
            sa = zc_send_poll(&s[0], &f.w[0]);
            if (sa == ZC_PENDING) zc_send_cancel(&s[0]);
        }
        await_uint(&sp.done, round);
        unsigned step = 1 + round % 7;
        bool b_can_go = channel_len(&f) == (receivers ? 1u : 0u);
        if (sa == ZC_OK) { /* the peer finished while A looked: hold longer */
            early++;
            /* Bounded: when the main thread is descheduled, the peer finishes first
             * whatever its hold. */
            sp.delay = sp.delay < 4000 ? sp.delay + step : 4000;
        } else if (wakes(&f, 1) == 1) { /* it finished after A stepped off: B woken */
            late++;
            sp.delay = sp.delay > step ? sp.delay - step : 0;
        } else if (b_can_go) {
            if (stranded++ == 0) first_stranded = round;
            sp.delay = sp.delay > step ? sp.delay - step : 0;
        }
        if (receivers) {
            zc_recv_cancel(&r[1]);
        } else {
            if (kind == BATCH_SENDER)
                zc_send_many_cancel(&batch_send);
            else
                zc_send_cancel(&s[0]);
            zc_send_cancel(&s[1]);
        }
        fixture_done(&f);
    }
    atomic_store_explicit(&sp.go, RACE_END, memory_order_release);
    pthread_join(t, NULL);
    unspread_threads(cpus);
    zc__test_set_hook(NULL, NULL);
    print_message("self-woken %s cancelled: %u rounds, %u early, %u late, %u with B "
                  "stranded (first in round %u)\n",
                  kind == RECEIVERS   ? "receiver"
                  : kind == SENDERS   ? "sender"
                  : kind == BATCH_RECEIVER ? "batch receiver"
                                      : "batch sender",
                  round - 1, early, late, stranded,
                  first_stranded);
    assert_int_equal(stranded, 0);
    /* The peer must have finished on both sides of A's look, or the window was never
     * reached: then the test says so instead of passing (two threads on one busy core
     * cannot be steered). */
    if (early == 0 || late == 0) skip();
}

#endif /* ZCHAN_TEST_SCENARIO_HOOKS_H */

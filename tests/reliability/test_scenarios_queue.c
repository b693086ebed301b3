/* Reliability scenarios of the queues (the bounded ring and the unbounded segmented queue
 * under the channel): many threads racing for one slot, messages circulating through a
 * full ring, and, with the hook points, a completed send behind a stalled one and a
 * segment that must outlive a receiver held inside it. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "scenario.h"
#if ZCHAN_TEST_HOOKS
#include "scenario_hooks.h"
#endif

/* A hundred threads released together each try_send once into an empty bounded(1)
 * channel. Guards: exactly one wins (the others get ZC_FULL), its message is the one
 * received, and the slot then works as usual. */
enum { RACERS = 100 };

typedef struct racer {
    zc_sender *tx;
    atomic_uint *gate;
    uint64_t id;
    zc_status status;
} racer;

static void *try_send_once(void *arg) {
    racer *r = arg;
    /* Acquire: pairs with the opening release; all start together. */
    while (atomic_load_explicit(r->gate, memory_order_acquire) == 0)
        sched_yield();
    r->status = zc_try_send(r->tx, &r->id);
    zc_sender_drop(r->tx);
    return NULL;
}

static void test_one_of_a_hundred_racing_try_sends_fills_a_bounded_1_slot(void **state) {
    (void)state;
    for (int round = 0; round < 5; round++) {
        fixture f;
        fixture_init(&f, 1);
        static racer racers[RACERS];
        pthread_t t[RACERS];
        atomic_uint gate;
        atomic_init(&gate, 0);
        for (int i = 0; i < RACERS; i++) {
            racers[i] = (racer){zc_sender_clone(f.tx), &gate, (uint64_t)i, ZC_EINVAL};
            start_thread(&t[i], try_send_once, &racers[i]);
        }
        atomic_store_explicit(&gate, 1, memory_order_release); /* pairs: try_send_once */
        int winners = 0, winner = -1;
        for (int i = 0; i < RACERS; i++) {
            pthread_join(t[i], NULL);
            if (racers[i].status == ZC_OK) {
                winners++;
                winner = i;
            } else {
                assert_int_equal(racers[i].status, ZC_FULL);
            }
        }
        assert_int_equal(winners, 1);
        expect_u64(f.rx, (uint64_t)winner);
        expect_recv_status(f.rx, ZC_EMPTY);
        uint64_t v = 7;
        assert_int_equal(zc_try_send(f.tx, &v), ZC_OK);
        assert_int_equal(zc_try_send(f.tx, &v), ZC_FULL);
        fixture_done(&f);
    }
}

/* Four messages in a channel of capacity 4 and four threads, each of which takes one and
 * puts it back. Whoever sends holds one of the four, so the channel holds at most three
 * during the whole send: ZC_FULL is never a linearizable answer, and a send future never
 * has a reason to wait for longer than a receiver's copy-out. Guards: no ZC_FULL from
 * try_send, no send or receive future hangs, and the four messages are all there at the
 * end. */
enum { CIRCULATORS = 4, CIRCULATIONS = 20000 };

typedef struct circulator {
    zc_sender *tx;
    zc_receiver *rx;
    uint64_t rng;
    unsigned fulls;  /* ZC_FULL from try_send: must stay 0 */
    unsigned hangs;  /* a future pending HANG_NS without a wake: must stay 0 */
    unsigned errors; /* any other unexpected status */
} circulator;

static void *circulate(void *arg) {
    circulator *c = arg;
    zc_parker p;
    zc_parker_init(&p);
    zc_recv r;
    zc_recv_init(&r, c->rx);
    for (unsigned i = 0; i < CIRCULATIONS; i++) {
        c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned how = (unsigned)(c->rng >> 60); /* 0..15 */
        uint64_t m = 0;
        zc_status s;
        if (how & 1) {
            s = recv_parked(&r, &p, &m);
        } else {
            while ((s = zc_try_recv(c->rx, &m)) == ZC_EMPTY)
                sched_yield(); /* the others may hold all four for a moment */
        }
        if (s == ZC_TIMEDOUT) c->hangs++;
        if (s != ZC_OK) {
            c->errors++;
            break;
        }
        if (how & 2) {
            s = send_parked(c->tx, &m, &p);
            if (s == ZC_TIMEDOUT) c->hangs++;
        } else {
            s = zc_try_send(c->tx, &m);
            if (s == ZC_FULL) {
                c->fulls++;
                s = zc_send_blocking(c->tx, &m); /* keep the message in circulation */
            }
        }
        if (s != ZC_OK) {
            c->errors++;
            break;
        }
    }
    zc_parker_destroy(&p);
    return NULL;
}

static void test_circulating_messages_never_meet_a_false_full(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, CIRCULATORS);
    for (uint64_t i = 0; i < CIRCULATORS; i++)
        send_u64(f.tx, i);
    circulator c[CIRCULATORS];
    pthread_t t[CIRCULATORS];
    for (int i = 0; i < CIRCULATORS; i++) {
        c[i] = (circulator){f.tx, f.rx, (uint64_t)i * 7919 + 1, 0, 0, 0};
        start_thread(&t[i], circulate, &c[i]);
    }
    unsigned fulls = 0, hangs = 0, errors = 0;
    for (int i = 0; i < CIRCULATORS; i++) {
        pthread_join(t[i], NULL);
        fulls += c[i].fulls;
        hangs += c[i].hangs;
        errors += c[i].errors;
    }
    assert_int_equal(fulls, 0);
    assert_int_equal(hangs, 0);
    assert_int_equal(errors, 0);
    uint64_t sum = 0, out;
    for (int i = 0; i < CIRCULATORS; i++) {
        assert_int_equal(zc_try_recv(f.rx, &out), ZC_OK);
        sum += out;
    }
    assert_int_equal(sum, 0 + 1 + 2 + 3);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

#if ZCHAN_TEST_HOOKS

/* Sender A claims the next slot and stalls; sender B completes the slot after it and
 * is joined. A try_recv (or, with use_future, a receive future's poll) that starts after
 * B's completion must not answer ZC_EMPTY: it returns A's message once A is done, or
 * the future pends and is woken. */
static void run_completed_send_is_never_empty(size_t cap, bool use_future) {
    fixture f;
    fixture_init(&f, cap);
    atomic_init(&the_stall.stalled, false);
    atomic_init(&the_stall.main_entered, false);
    zc__test_set_hook(stall_hook, &the_stall);
    pthread_t a, b;
    start_thread(&a, stalled_send, f.tx);
    while (!atomic_load_explicit(&the_stall.stalled, memory_order_acquire))
        sched_yield();
    start_thread(&b, quick_send, f.tx);
    pthread_join(b, NULL); /* B's send happened-before everything below */
    atomic_store_explicit(&the_stall.main_entered, true, memory_order_release);
    uint64_t out = 0;
    if (!use_future) {
        assert_int_equal(zc_try_recv(f.rx, &out), ZC_OK);
        assert_int_equal(out, 1);
    } else {
        zc_recv r;
        zc_recv_init(&r, f.rx);
        zc_status s = zc_recv_poll(&r, &f.w[0], &out);
        if (s == ZC_PENDING) {
            pthread_join(a, NULL);
            assert_true(wakes(&f, 0) >= 1); /* a self-wake or A's publish woke it */
            s = zc_recv_poll(&r, &f.w[0], &out);
        }
        assert_int_equal(s, ZC_OK);
        assert_int_equal(out, 1);
    }
    pthread_join(a, NULL);
    zc__test_set_hook(NULL, NULL);
    expect_u64(f.rx, 2);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

static void test_completed_send_is_never_reported_empty_behind_a_stalled_one(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        run_completed_send_is_never_empty(both_flavours[k], false);
        run_completed_send_is_never_empty(both_flavours[k], true);
    }
}

/* A receiver claims the first message of a segment and is held before copying it out.
 * The main thread receives the rest of that segment, past its end (where the segment is
 * reclaimed once its readers are done), then sends and receives two segments' worth, so
 * that the first segment, had it been freed or reused while the held receiver still
 * needed it, would hold other bytes by then (the freed segment is the spare that the
 * next segment is made from). The held receiver must still copy out its own message,
 * and once it is done, a receive that finds the channel empty frees that segment. Guards:
 * the held receiver's message intact, and the three segments read out freed while the
 * channel lives (a drained channel holds at
 * most the current segment and the spare). */
static void test_unbounded_segment_outlives_a_receiver_held_mid_copy(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    for (uint64_t v = 1; v <= SEG_SLOTS; v++) send_u64(f.tx, v);
    hold h;
    held_op op = {.f = &f, .v = 0};
    pthread_t peer, dog;
    hold_start(&h, &op, true, &peer, &dog); /* the peer claims message 1, then is held */
    for (uint64_t v = 2; v <= SEG_SLOTS; v++) expect_u64(f.rx, v);
    for (uint64_t v = SEG_SLOTS + 1; v <= 3 * SEG_SLOTS; v++) send_u64(f.tx, v);
    for (uint64_t v = SEG_SLOTS + 1; v <= 3 * SEG_SLOTS; v++) expect_u64(f.rx, v);
    bool forced = hold_end(&h, peer, dog);
    assert_false(forced); /* the main thread never waited for the held receiver */
    assert_int_equal(op.s, ZC_OK);
    assert_int_equal(op.v, 1);
    expect_recv_status(f.rx, ZC_EMPTY);
    zc__test_set_hook(NULL, NULL);
    assert_int_equal(atomic_load_explicit(&h.freed, memory_order_relaxed), 3);
    fixture_done(&f);
}

#endif /* ZCHAN_TEST_HOOKS */

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_of_a_hundred_racing_try_sends_fills_a_bounded_1_slot),
        cmocka_unit_test(test_circulating_messages_never_meet_a_false_full),
#if ZCHAN_TEST_HOOKS
        cmocka_unit_test(test_completed_send_is_never_reported_empty_behind_a_stalled_one),
        cmocka_unit_test(test_unbounded_segment_outlives_a_receiver_held_mid_copy),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of zc_force_send (zchan/mpmc.h): with room it is a send; on a full bounded
 * channel the oldest message is taken out (to evicted_out, or drop_msg) and the new one
 * goes in last; a reservation at the oldest place is not taken out; close, unbounded and
 * bad input; the wake a waiting receiver is owed. Last, threads forcing and receiving
 * at once: every message is received once or taken out once, never both, never lost,
 * and each receiver sees each sender's messages in order. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "counting_waker.h"

static zc_config u64_cfg(void) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    return cfg;
}

static void force(zc_sender *tx, uint64_t v, zc_status want, bool want_evicted,
                  uint64_t want_out) {
    uint64_t out = 0;
    bool evicted = !want_evicted;
    assert_int_equal(zc_force_send(tx, &v, &out, &evicted), want);
    assert_int_equal(evicted, want_evicted);
    if (want_evicted) assert_int_equal(out, want_out);
}

static void expect(zc_receiver *rx, uint64_t want) {
    uint64_t out = 0;
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, want);
}

static void test_full_channel_gives_up_its_oldest_message(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(3, &cfg, &tx, &rx), ZC_OK);
    force(tx, 1, ZC_OK, false, 0); /* room: a plain send */
    force(tx, 2, ZC_OK, false, 0);
    force(tx, 3, ZC_OK, false, 0);
    force(tx, 4, ZC_OK, true, 1); /* full: 1 out, 4 in last */
    force(tx, 5, ZC_OK, true, 2);
    expect(rx, 3);
    force(tx, 6, ZC_OK, false, 0); /* room again */
    force(tx, 7, ZC_OK, true, 4);
    expect(rx, 5);
    expect(rx, 6);
    expect(rx, 7);
    uint64_t out;
    assert_int_equal(zc_try_recv(rx, &out), ZC_EMPTY);
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* Many laps of a bounded(1) channel: the positions wrap the ring again and again. */
static void test_bounded_one_keeps_only_the_newest(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    force(tx, 0, ZC_OK, false, 0);
    for (uint64_t v = 1; v < 1000; v++) {
        force(tx, v, ZC_OK, true, v - 1);
        if (v % 10 == 0) {
            expect(rx, v);
            force(tx, 1000 + v, ZC_OK, false, 0);
            expect(rx, 1000 + v);
            force(tx, v, ZC_OK, false, 0); /* refill for the next round */
        }
    }
    expect(rx, 999);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_without_evicted_out_the_oldest_goes_to_drop_msg(void **state) {
    (void)state;
    drop_counter dc;
    drop_counter_init(&dc, NULL, 0);
    zc_config cfg = {sizeof(uint64_t), drop_counter_fn, &dc};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    uint64_t v;
    bool evicted = false;
    for (v = 1; v <= 2; v++) assert_int_equal(zc_force_send(tx, &v, NULL, &evicted), ZC_OK);
    assert_false(evicted);
    v = 3;
    assert_int_equal(zc_force_send(tx, &v, NULL, &evicted), ZC_OK);
    assert_true(evicted);
    v = 4;
    assert_int_equal(zc_force_send(tx, &v, NULL, NULL), ZC_OK); /* evicted is optional */
    assert_int_equal(atomic_load(&dc.calls), 2);
    assert_int_equal(atomic_load(&dc.sum), 1 + 2);
    expect(rx, 3);
    expect(rx, 4);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    assert_int_equal(atomic_load(&dc.calls), 2); /* nothing else was left */
}

static void test_a_reservation_at_the_oldest_place_is_not_taken_out(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    zc_permit p;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_OK); /* the oldest place */
    force(tx, 1, ZC_OK, false, 0);
    force(tx, 2, ZC_FULL, false, 0); /* the reservation is no message */
    uint64_t v = 9;
    assert_int_equal(zc_permit_commit(&p, &v), ZC_OK);
    force(tx, 3, ZC_OK, true, 9); /* now the oldest is a message */
    expect(rx, 1);
    expect(rx, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_released_place_is_room_not_an_eviction(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    zc_permit p;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_OK);
    force(tx, 1, ZC_OK, false, 0);
    assert_int_equal(zc_permit_release(&p), ZC_OK); /* the oldest place: freed at once */
    force(tx, 2, ZC_OK, false, 0); /* its slot: room, not an eviction */
    force(tx, 3, ZC_OK, true, 1);
    expect(rx, 2);
    expect(rx, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_closed_unbounded_and_bad_input(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    for (uint64_t v = 0; v < 100; v++) force(tx, v, ZC_OK, false, 0); /* never full */
    for (uint64_t v = 0; v < 100; v++) expect(rx, v);
    uint64_t v = 1;
    bool evicted = true;
    assert_int_equal(zc_force_send(NULL, &v, NULL, &evicted), ZC_EINVAL);
    assert_false(evicted);
    assert_int_equal(zc_force_send(tx, NULL, NULL, NULL), ZC_EINVAL);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);

    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    force(tx, 1, ZC_OK, false, 0);
    assert_true(zc_receiver_close(rx));
    force(tx, 2, ZC_CLOSED, false, 0); /* nothing taken out of a closed channel */
    expect(rx, 1);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_a_waiting_receiver_is_woken_once(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    zc_recv f;
    zc_recv_init(&f, rx);
    uint64_t out = 0;
    assert_int_equal(zc_recv_poll(&f, &w, &out), ZC_PENDING);
    force(tx, 7, ZC_OK, false, 0);
    assert_int_equal(counting_waker_count(&cw), 1);
    force(tx, 8, ZC_OK, true, 7); /* takes out the message the receiver was woken for */
    assert_int_equal(zc_recv_poll(&f, &w, &out), ZC_OK);
    assert_int_equal(out, 8);
    assert_int_equal(counting_waker_count(&cw), 1);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- threads ---------------------------------------------------------------------- */

enum { FORCERS = 2, RECEIVERS = 2, PER_FORCER = 20000 };

/* A message: forcer id in the high bits, its sequence number in the low. */
#define MSG(id, seq) (((uint64_t)(id) << 32) | (uint64_t)(seq))

typedef struct shared {
    zc_sender *tx;
    zc_receiver *rx;
    atomic_uchar *seen; /* per message: times received or taken out */
} shared;

typedef struct forcer_arg {
    shared *sh;
    unsigned id;
} forcer_arg;

static void count(shared *sh, uint64_t m) {
    size_t i = (size_t)(m >> 32) * PER_FORCER + (size_t)(m & 0xffffffffu);
    atomic_fetch_add_explicit(&sh->seen[i], 1, memory_order_relaxed);
}

static void *forcer(void *arg) {
    forcer_arg *a = arg;
    zc_sender *tx = zc_sender_clone(a->sh->tx);
    for (uint32_t s = 0; s < PER_FORCER; s++) {
        uint64_t m = MSG(a->id, s), out;
        bool evicted = false;
        if (zc_force_send(tx, &m, &out, &evicted) != ZC_OK) abort();
        if (evicted) count(a->sh, out);
    }
    zc_sender_drop(tx);
    return NULL;
}

static void *receiver(void *arg) {
    shared *sh = arg;
    uint64_t last[FORCERS];
    for (int i = 0; i < FORCERS; i++) last[i] = UINT64_MAX;
    uint64_t m;
    while (zc_recv_blocking(sh->rx, &m) == ZC_OK) {
        unsigned id = (unsigned)(m >> 32);
        uint64_t seq = m & 0xffffffffu;
        if (id >= FORCERS || (last[id] != UINT64_MAX && seq <= last[id])) abort(); /* order */
        last[id] = seq;
        count(sh, m);
    }
    return NULL;
}

static void test_forcers_and_receivers_account_for_every_message_once(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    shared sh;
    assert_int_equal(zc_bounded(4, &cfg, &sh.tx, &sh.rx), ZC_OK);
    sh.seen = calloc(FORCERS * PER_FORCER, sizeof *sh.seen);
    assert_non_null(sh.seen);
    pthread_t f[FORCERS], r[RECEIVERS];
    forcer_arg fa[FORCERS];
    for (unsigned i = 0; i < FORCERS; i++) {
        fa[i] = (forcer_arg){&sh, i};
        assert_int_equal(pthread_create(&f[i], NULL, forcer, &fa[i]), 0);
    }
    for (int i = 0; i < RECEIVERS; i++)
        assert_int_equal(pthread_create(&r[i], NULL, receiver, &sh), 0);
    for (int i = 0; i < FORCERS; i++) assert_int_equal(pthread_join(f[i], NULL), 0);
    zc_sender_drop(sh.tx); /* the last sender: receivers drain, then see ZC_CLOSED */
    for (int i = 0; i < RECEIVERS; i++) assert_int_equal(pthread_join(r[i], NULL), 0);
    for (size_t i = 0; i < FORCERS * PER_FORCER; i++)
        if (atomic_load(&sh.seen[i]) != 1)
            fail_msg("message %zu accounted for %u times", i, (unsigned)atomic_load(&sh.seen[i]));
    free(sh.seen);
    zc_receiver_drop(sh.rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_channel_gives_up_its_oldest_message),
        cmocka_unit_test(test_bounded_one_keeps_only_the_newest),
        cmocka_unit_test(test_without_evicted_out_the_oldest_goes_to_drop_msg),
        cmocka_unit_test(test_a_reservation_at_the_oldest_place_is_not_taken_out),
        cmocka_unit_test(test_a_released_place_is_room_not_an_eviction),
        cmocka_unit_test(test_closed_unbounded_and_bad_input),
        cmocka_unit_test(test_a_waiting_receiver_is_woken_once),
        cmocka_unit_test(test_forcers_and_receivers_account_for_every_message_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

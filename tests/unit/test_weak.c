/* Unit tests of the weak handles (zchan/mpmc.h, "Weak handles"): a weak handle keeps the
 * channel's memory but not the channel open; an upgrade gives a strong handle while one
 * of that kind is left (and, for senders, the channel is open); clone and drop as for
 * the others; bad input. Last, threads upgrading and sending while the last sender is
 * dropped: every send that went through is received once. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>

#include "counting_waker.h"

typedef enum flavour { BOUNDED, UNBOUNDED } flavour;

static void make(flavour fl, const zc_config *cfg, zc_sender **tx, zc_receiver **rx) {
    zc_status s = fl == BOUNDED ? zc_bounded(4, cfg, tx, rx) : zc_unbounded(cfg, tx, rx);
    assert_int_equal(s, ZC_OK);
}

static zc_config u64_cfg(void) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    return cfg;
}

static zc_info info_of(zc_receiver *rx) {
    zc_info info;
    assert_int_equal(zc_receiver_info(rx, &info), ZC_OK);
    return info;
}

static void weak_sender_does_not_keep_the_channel_open(flavour fl) {
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    make(fl, &cfg, &tx, &rx);
    zc_weak_sender *w = zc_sender_downgrade(tx);
    assert_non_null(w);
    assert_int_equal(info_of(rx).senders, 1); /* a weak handle is no sender */
    uint64_t v = 5, out = 0;
    zc_sender *tx2 = zc_weak_sender_upgrade(w);
    assert_non_null(tx2);
    assert_int_equal(info_of(rx).senders, 2);
    assert_int_equal(zc_try_send(tx2, &v), ZC_OK);
    zc_sender_drop(tx2);
    zc_sender_drop(tx); /* the last sender: closes, though w lives */
    assert_true(info_of(rx).closed);
    assert_null(zc_weak_sender_upgrade(w)); /* no sender comes back from zero */
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 5);
    assert_int_equal(zc_try_recv(rx, &out), ZC_CLOSED);
    zc_receiver_drop(rx);
    assert_null(zc_weak_sender_upgrade(w)); /* the memory is still there to ask */
    zc_weak_sender_drop(w);                 /* the last handle of any kind: freed */
}

static void test_weak_sender_does_not_keep_the_channel_open_bounded(void **state) {
    (void)state;
    weak_sender_does_not_keep_the_channel_open(BOUNDED);
}

static void test_weak_sender_does_not_keep_the_channel_open_unbounded(void **state) {
    (void)state;
    weak_sender_does_not_keep_the_channel_open(UNBOUNDED);
}

static void test_weak_sender_upgrade_fails_once_closed(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    make(BOUNDED, &cfg, &tx, &rx);
    zc_weak_sender *w = zc_sender_downgrade(tx);
    assert_true(zc_receiver_close(rx));
    assert_null(zc_weak_sender_upgrade(w)); /* senders are left, but none could send */
    assert_int_equal(info_of(rx).senders, 1);
    zc_weak_sender_drop(w);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* A weak receiver: the last receiver's drop still closes the channel and disposes of
 * what is left; while a receiver lives, an upgrade works even on a closed channel (a
 * receiver may drain it). */
static void test_weak_receiver_upgrades_while_a_receiver_is_left(void **state) {
    (void)state;
    drop_counter dc;
    atomic_uchar seen[8];
    drop_counter_init(&dc, seen, 8);
    zc_config cfg = {sizeof(uint64_t), drop_counter_fn, &dc};
    zc_sender *tx;
    zc_receiver *rx;
    make(BOUNDED, &cfg, &tx, &rx);
    zc_weak_receiver *w = zc_receiver_downgrade(rx);
    assert_non_null(w);
    uint64_t v = 1, out = 0;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    v = 2;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    assert_true(zc_sender_close(tx));
    zc_receiver *rx2 = zc_weak_receiver_upgrade(w);
    assert_non_null(rx2); /* closed, but a receiver is left: it may drain */
    assert_int_equal(info_of(rx2).receivers, 2);
    assert_int_equal(zc_try_recv(rx2, &out), ZC_OK);
    assert_int_equal(out, 1);
    zc_receiver_drop(rx2);
    zc_receiver_drop(rx); /* the last receiver: message 2 goes to drop_msg */
    assert_int_equal(atomic_load(&dc.calls), 1);
    assert_int_equal(atomic_load(&dc.sum), 2);
    assert_null(zc_weak_receiver_upgrade(w));
    zc_sender_drop(tx);
    zc_weak_receiver_drop(w);
}

static void test_weak_clones_are_dropped_once_each(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    make(UNBOUNDED, &cfg, &tx, &rx);
    zc_weak_sender *ws = zc_sender_downgrade(tx);
    zc_weak_sender *ws2 = zc_weak_sender_clone(ws);
    zc_weak_receiver *wr = zc_receiver_downgrade(rx);
    zc_weak_receiver *wr2 = zc_weak_receiver_clone(wr);
    assert_non_null(ws2);
    assert_non_null(wr2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    zc_weak_sender_drop(ws);
    zc_weak_receiver_drop(wr);
    assert_null(zc_weak_sender_upgrade(ws2));
    assert_null(zc_weak_receiver_upgrade(wr2));
    zc_weak_sender_drop(ws2);
    zc_weak_receiver_drop(wr2); /* the last: freed here (AddressSanitizer checks) */
}

static void test_weak_handles_take_bad_input(void **state) {
    (void)state;
    assert_null(zc_sender_downgrade(NULL));
    assert_null(zc_receiver_downgrade(NULL));
    assert_null(zc_weak_sender_upgrade(NULL));
    assert_null(zc_weak_receiver_upgrade(NULL));
    assert_null(zc_weak_sender_clone(NULL));
    assert_null(zc_weak_receiver_clone(NULL));
    zc_weak_sender_drop(NULL);
    zc_weak_receiver_drop(NULL);
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    make(BOUNDED, &cfg, &tx, &rx);
    /* A handle of the other kind: no weak handle, no count changed. */
    assert_null(zc_sender_downgrade((zc_sender *)(void *)rx));
    assert_null(zc_receiver_downgrade((zc_receiver *)(void *)tx));
    zc_weak_sender *w = zc_sender_downgrade(tx);
    assert_null(zc_weak_receiver_upgrade((zc_weak_receiver *)(void *)w));
    zc_weak_sender_drop(w);
    assert_int_equal(info_of(rx).senders, 1);
    zc_sender_drop(tx);
    assert_true(info_of(rx).closed);
    zc_receiver_drop(rx);
}

/* ---- threads: upgrades racing the last sender's drop -------------------------------- */

enum { UPGRADERS = 3, ROUNDS = 5000 };

typedef struct race {
    zc_weak_sender *w;
    atomic_ulong sent;
} race;

static void *upgrader(void *arg) {
    race *r = arg;
    for (uint64_t i = 0; i < ROUNDS; i++) {
        zc_sender *tx = zc_weak_sender_upgrade(r->w);
        if (!tx) break; /* every sender went: none comes back */
        zc_status s = zc_send_blocking(tx, &i);
        if (s == ZC_OK) atomic_fetch_add(&r->sent, 1);
        else assert_int_equal(s, ZC_CLOSED);
        zc_sender_drop(tx);
    }
    return NULL;
}

static void test_upgrades_racing_the_last_drop_lose_no_message(void **state) {
    (void)state;
    zc_config cfg = u64_cfg();
    zc_sender *tx;
    zc_receiver *rx;
    make(BOUNDED, &cfg, &tx, &rx);
    race r = {zc_sender_downgrade(tx), 0};
    pthread_t t[UPGRADERS];
    for (int i = 0; i < UPGRADERS; i++) assert_int_equal(pthread_create(&t[i], NULL, upgrader, &r), 0);
    unsigned long received = 0;
    uint64_t out;
    for (int i = 0; i < 100; i++) /* some traffic first */
        if (zc_recv_blocking(rx, &out) == ZC_OK) received++;
    zc_sender_drop(tx); /* from here the upgrades fail once the live ones are dropped */
    while (zc_recv_blocking(rx, &out) == ZC_OK) received++;
    for (int i = 0; i < UPGRADERS; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_null(zc_weak_sender_upgrade(r.w));
    assert_int_equal(received, atomic_load(&r.sent));
    zc_weak_sender_drop(r.w);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weak_sender_does_not_keep_the_channel_open_bounded),
        cmocka_unit_test(test_weak_sender_does_not_keep_the_channel_open_unbounded),
        cmocka_unit_test(test_weak_sender_upgrade_fails_once_closed),
        cmocka_unit_test(test_weak_receiver_upgrades_while_a_receiver_is_left),
        cmocka_unit_test(test_weak_clones_are_dropped_once_each),
        cmocka_unit_test(test_weak_handles_take_bad_input),
        cmocka_unit_test(test_upgrades_racing_the_last_drop_lose_no_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/**
 * @file u64_fixture.h
 * Test support for cmocka tests of the futures: a channel of uint64_t messages whose
 * disposed messages are counted, FIXTURE_WAITERS counting wakers on one clock, and
 * helpers that leave futures pending on it. Include <cmocka.h> first.
 */
#ifndef ZCHAN_TEST_U64_FIXTURE_H
#define ZCHAN_TEST_U64_FIXTURE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/mpmc.h>

#include "counting_waker.h"
#include "u64_channel.h"

enum { FIXTURE_WAITERS = 3 };

/** A channel of uint64_t, a drop counter, and a counting waker per future. */
typedef struct fixture {
    zc_sender *tx;
    zc_receiver *rx;
    drop_counter dc;           /* every message the channel disposes of */
    atomic_uchar seen[256];    /* dc's record of which values were disposed of */
    atomic_uint clock;         /* the wakers' shared clock: the order of their calls */
    counting_waker cw[FIXTURE_WAITERS];
    zc_waker w[FIXTURE_WAITERS];
} fixture;

/** A bounded channel of capacity cap, or an unbounded one for cap 0. */
static inline void fixture_init(fixture *f, size_t cap) {
    drop_counter_init(&f->dc, f->seen, sizeof f->seen);
    zc_config cfg = {sizeof(uint64_t), drop_counter_fn, &f->dc};
    zc_status s = cap == 0 ? zc_unbounded(&cfg, &f->tx, &f->rx)
                           : zc_bounded(cap, &cfg, &f->tx, &f->rx);
    assert_int_equal(s, ZC_OK);
    atomic_init(&f->clock, 0);
    for (int i = 0; i < FIXTURE_WAITERS; i++) {
        counting_waker_init(&f->cw[i]);
        f->cw[i].clock = &f->clock;
        f->w[i] = counting_waker_of(&f->cw[i]);
    }
}

/** Drops both handles (the channel's messages go to f->dc). */
static inline void fixture_done(fixture *f) {
    zc_sender_drop(f->tx);
    zc_receiver_drop(f->rx);
}

/** How many times waker i has been called. */
static inline unsigned wakes(fixture *f, int i) { return counting_waker_count(&f->cw[i]); }

/** The messages in f's channel (zc_sender_info's len). */
static inline size_t channel_len(fixture *f) {
    zc_info info;
    assert_int_equal(zc_sender_info(f->tx, &info), ZC_OK);
    return info.len;
}

/** n receive futures pending on f's empty channel, future i with waker i. */
static inline void pend_receivers(fixture *f, zc_recv *r, int n) {
    for (int i = 0; i < n; i++) {
        zc_recv_init(&r[i], f->rx);
        expect_poll_pending(&r[i], &f->w[i]);
    }
}

/** Fills f's bounded channel of capacity 1 with message 1 and leaves n send futures
 *  pending, future i with waker i and message 100 + i. */
static inline void pend_senders(fixture *f, zc_send *s, uint64_t *msgs, int n) {
    send_u64(f->tx, 1);
    for (int i = 0; i < n; i++) {
        msgs[i] = 100 + (uint64_t)i;
        zc_send_init(&s[i], f->tx, &msgs[i]);
        assert_int_equal(zc_send_poll(&s[i], &f->w[i]), ZC_PENDING);
    }
}

#endif /* ZCHAN_TEST_U64_FIXTURE_H */

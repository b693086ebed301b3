/**
 * @file u64_channel.h
 * Test support for cmocka tests on channels of uint64_t messages: send or receive one
 * message, or poll a receive future once, and assert the status and value. Include <cmocka.h> first.
 */
#ifndef ZCHAN_TEST_U64_CHANNEL_H
#define ZCHAN_TEST_U64_CHANNEL_H

#include <stdint.h>

#include <zchan/mpmc.h>

/** try_send v, which must succeed. */
static inline void send_u64(zc_sender *tx, uint64_t v) {
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
}

/** try_recv, which must return ZC_OK and want. */
static inline void expect_u64(zc_receiver *rx, uint64_t want) {
    uint64_t got = ~want;
    assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
    assert_int_equal(got, want);
}

/** try_recv, which must return want (not ZC_OK) and leave out unwritten. */
static inline void expect_recv_status(zc_receiver *rx, zc_status want) {
    uint64_t got = 0xdeadbeef;
    assert_int_equal(zc_try_recv(rx, &got), want);
    assert_int_equal(got, 0xdeadbeef);
}

/** Poll r, which must return ZC_OK and want. */
static inline void expect_poll_u64(zc_recv *r, const zc_waker *w, uint64_t want) {
    uint64_t got = ~want;
    assert_int_equal(zc_recv_poll(r, w, &got), ZC_OK);
    assert_int_equal(got, want);
}

/** Poll r, which must return ZC_PENDING and leave out unwritten. */
static inline void expect_poll_pending(zc_recv *r, const zc_waker *w) {
    uint64_t got = 0xdeadbeef;
    assert_int_equal(zc_recv_poll(r, w, &got), ZC_PENDING);
    assert_int_equal(got, 0xdeadbeef);
}

#endif /* ZCHAN_TEST_U64_CHANNEL_H */

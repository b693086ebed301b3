/**
 * @file inline_sender.h
 * Test support (header only; include after cmocka.h): a send task of a uint64_t channel
 * whose executor polls it from inside its own wake (waker rule 2 allows it), for the
 * single-thread tests of nested wakes and wake counts. Each wake counts itself, tracks
 * how deep wakes nest on this thread (inline_depth, its maximum in inline_max_depth:
 * a test resets both), and polls the send unless it has completed.
 */
#ifndef ZCHAN_TEST_INLINE_SENDER_H
#define ZCHAN_TEST_INLINE_SENDER_H

#include <stdbool.h>
#include <stdint.h>

#include <zchan/mpmc.h>

typedef struct inline_sender {
    zc_send f;
    zc_waker w;
    uint64_t msg;
    bool done; /* the send completed (ZC_OK or ZC_CLOSED) */
    int wakes;
} inline_sender;

/* Wakes of inline tasks this thread is inside now, and the most at once. */
static int inline_depth, inline_max_depth;

static inline void inline_sender_wake(void *ctx) {
    inline_sender *t = (inline_sender *)ctx;
    t->wakes++;
    if (++inline_depth > inline_max_depth) inline_max_depth = inline_depth;
    if (!t->done && zc_send_poll(&t->f, &t->w) != ZC_PENDING) t->done = true;
    inline_depth--;
}

/* Start t sending msg on tx; the channel must be full, so the first poll pends. */
static inline void inline_sender_wait(inline_sender *t, zc_sender *tx, uint64_t msg) {
    *t = (inline_sender){.msg = msg};
    t->w = (zc_waker){inline_sender_wake, t};
    zc_send_init(&t->f, tx, &t->msg);
    assert_int_equal(zc_send_poll(&t->f, &t->w), ZC_PENDING);
}

#endif /* ZCHAN_TEST_INLINE_SENDER_H */

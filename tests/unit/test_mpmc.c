/* Unit tests of the MPMC channel contract (zchan/mpmc.h, spec/api.md), one thread:
 * constructors, try_send/try_recv, FIFO, element sizes, unbounded growth, the four ways
 * to close, handle counting, drop_msg, info, and bad arguments. Most tests run on both
 * flavours (the _bounded and _unbounded test pairs share one body). */
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
#if defined(__unix__) && !defined(NDEBUG)
#include <sys/wait.h>
#include <unistd.h>
#define HAVE_DEATH_TESTS 1
#endif

#include <zchan/mpmc.h>

#include "counting_waker.h"
#include "u64_channel.h"

/* Capacity of the bounded flavour where a test needs a bounded channel with room. */
#define ROOMY_CAP 64
/* Unbounded segments hold 31 messages: this many spans several of them. */
#define MANY_SEGMENTS 100

typedef enum flavour { BOUNDED, UNBOUNDED } flavour;

static zc_config u64_config(void) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    return cfg;
}

static void make_channel(flavour fl, const zc_config *cfg, zc_sender **tx,
                         zc_receiver **rx) {
    zc_status s =
        fl == BOUNDED ? zc_bounded(ROOMY_CAP, cfg, tx, rx) : zc_unbounded(cfg, tx, rx);
    assert_int_equal(s, ZC_OK);
    assert_non_null(*tx);
    assert_non_null(*rx);
}

static void make_u64_channel(flavour fl, zc_sender **tx, zc_receiver **rx) {
    zc_config cfg = u64_config();
    make_channel(fl, &cfg, tx, rx);
}

static zc_info sender_info(const zc_sender *tx) {
    zc_info info;
    memset(&info, 0xa5, sizeof info);
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    return info;
}

static zc_info receiver_info(const zc_receiver *rx) {
    zc_info info;
    memset(&info, 0xa5, sizeof info);
    assert_int_equal(zc_receiver_info(rx, &info), ZC_OK);
    return info;
}

/* Runs body(BOUNDED) and body(UNBOUNDED) as the cmocka tests test_<body>_bounded and
 * test_<body>_unbounded. */
#define BOTH_FLAVOURS(body)                                                                \
    static void test_##body##_bounded(void **state) {                                      \
        (void)state;                                                                       \
        body(BOUNDED);                                                                     \
    }                                                                                      \
    static void test_##body##_unbounded(void **state) {                                    \
        (void)state;                                                                       \
        body(UNBOUNDED);                                                                   \
    }
#define BOTH_TESTS(body)                                                                   \
    cmocka_unit_test(test_##body##_bounded), cmocka_unit_test(test_##body##_unbounded)

/* ---- constructors -------------------------------------------------------------------- */

/* Sentinels: a failed constructor must overwrite them with NULL. */
static int sentinel;
#define NOT_NULL_TX ((zc_sender *)(void *)&sentinel)
#define NOT_NULL_RX ((zc_receiver *)(void *)&sentinel)

static void expect_bounded_einval(size_t cap, const zc_config *cfg) {
    zc_sender *tx = NOT_NULL_TX;
    zc_receiver *rx = NOT_NULL_RX;
    assert_int_equal(zc_bounded(cap, cfg, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
}

static void expect_unbounded_einval(const zc_config *cfg) {
    zc_sender *tx = NOT_NULL_TX;
    zc_receiver *rx = NOT_NULL_RX;
    assert_int_equal(zc_unbounded(cfg, &tx, &rx), ZC_EINVAL);
    assert_null(tx);
    assert_null(rx);
}

static void test_bounded_with_zero_capacity_returns_einval_and_null_handles(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    expect_bounded_einval(0, &cfg);
}

static void
test_constructors_with_null_config_return_einval_and_null_handles(void **state) {
    (void)state;
    expect_bounded_einval(4, NULL);
    expect_unbounded_einval(NULL);
}

static void
test_constructors_with_zero_elem_size_return_einval_and_null_handles(void **state) {
    (void)state;
    zc_config cfg = {0, NULL, NULL};
    expect_bounded_einval(4, &cfg);
    expect_unbounded_einval(&cfg);
}

static void
test_bounded_whose_size_overflows_returns_einval_and_null_handles(void **state) {
    (void)state;
    zc_config two = {2, NULL, NULL};
    expect_bounded_einval(SIZE_MAX / 2 + 1, &two); /* cap * elem_size wraps */
    zc_config half = {SIZE_MAX / 2 + 1, NULL, NULL};
    expect_bounded_einval(2, &half);
    zc_config huge = {SIZE_MAX, NULL, NULL};
    expect_bounded_einval(1, &huge); /* one slot: elem_size plus its stamp wraps */
    expect_bounded_einval(SIZE_MAX, &two);
}

static void test_unbounded_with_too_large_elem_size_returns_einval(void **state) {
    (void)state;
    zc_config huge = {SIZE_MAX, NULL, NULL};
    expect_unbounded_einval(&huge); /* a segment of them cannot be sized */
}

static void test_constructors_with_null_tx_return_einval_and_null_rx(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    zc_receiver *rx = NOT_NULL_RX;
    assert_int_equal(zc_bounded(4, &cfg, NULL, &rx), ZC_EINVAL);
    assert_null(rx);
    rx = NOT_NULL_RX;
    assert_int_equal(zc_unbounded(&cfg, NULL, &rx), ZC_EINVAL);
    assert_null(rx);
}

static void test_constructors_with_null_rx_return_einval_and_null_tx(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    zc_sender *tx = NOT_NULL_TX;
    assert_int_equal(zc_bounded(4, &cfg, &tx, NULL), ZC_EINVAL);
    assert_null(tx);
    tx = NOT_NULL_TX;
    assert_int_equal(zc_unbounded(&cfg, &tx, NULL), ZC_EINVAL);
    assert_null(tx);
}

static void test_constructors_with_both_handles_null_return_einval(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    assert_int_equal(zc_bounded(4, &cfg, NULL, NULL), ZC_EINVAL);
    assert_int_equal(zc_unbounded(&cfg, NULL, NULL), ZC_EINVAL);
}

static void test_bounded_with_capacity_one_is_created_open_and_empty(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    zc_sender *tx = NULL;
    zc_receiver *rx = NULL;
    assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
    zc_info info = sender_info(tx);
    assert_int_equal(info.len, 0);
    assert_int_equal(info.capacity, 1);
    assert_int_equal(info.senders, 1);
    assert_int_equal(info.receivers, 1);
    assert_false(info.closed);
    expect_recv_status(rx, ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- try_send / try_recv at exact capacity --------------------------------------------
 */

/* Fill to exactly cap; the next send is FULL; receive one; one send works; FULL again;
 * then everything comes out in order and the channel is EMPTY. */
static void check_full_at_exact_capacity(size_t cap) {
    zc_config cfg = u64_config();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(cap, &cfg, &tx, &rx), ZC_OK);
    for (uint64_t i = 0; i < cap; i++)
        send_u64(tx, i);
    assert_int_equal(sender_info(tx).len, cap);
    uint64_t extra = cap;
    assert_int_equal(zc_try_send(tx, &extra), ZC_FULL);
    assert_int_equal(sender_info(tx).len, cap);
    expect_u64(rx, 0);
    assert_int_equal(receiver_info(rx).len, cap - 1);
    send_u64(tx, extra);
    assert_int_equal(zc_try_send(tx, &extra), ZC_FULL);
    for (uint64_t i = 1; i <= cap; i++)
        expect_u64(rx, i);
    expect_recv_status(rx, ZC_EMPTY);
    assert_int_equal(receiver_info(rx).len, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_try_send_returns_full_at_exactly_capacity_1(void **state) {
    (void)state;
    check_full_at_exact_capacity(1);
}

static void test_try_send_returns_full_at_exactly_capacity_2(void **state) {
    (void)state;
    check_full_at_exact_capacity(2);
}

static void test_try_send_returns_full_at_exactly_capacity_3(void **state) {
    (void)state;
    check_full_at_exact_capacity(3);
}

static void test_try_send_returns_full_at_exactly_capacity_7(void **state) {
    (void)state;
    check_full_at_exact_capacity(7);
}

static void test_try_send_returns_full_at_exactly_capacity_1000(void **state) {
    (void)state;
    check_full_at_exact_capacity(1000);
}

static void test_bounded_stays_exact_over_many_laps(void **state) {
    (void)state;
    /* cap 3 is not a power of two: the index wraps at 3 every lap. */
    zc_config cfg = u64_config();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(3, &cfg, &tx, &rx), ZC_OK);
    uint64_t next_in = 0, next_out = 0;
    for (int lap = 0; lap < 1000; lap++) {
        size_t burst = (size_t)lap % 3 + 1; /* 1, 2, 3 messages */
        for (size_t i = 0; i < burst; i++)
            send_u64(tx, next_in++);
        if (burst == 3)
            assert_int_equal(zc_try_send(tx, &next_in), ZC_FULL);
        assert_int_equal(sender_info(tx).len, burst);
        for (size_t i = 0; i < burst; i++)
            expect_u64(rx, next_out++);
        expect_recv_status(rx, ZC_EMPTY);
    }
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void try_recv_on_empty_open_channel_returns_empty(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    expect_recv_status(rx, ZC_EMPTY);
    send_u64(tx, 1);
    expect_u64(rx, 1);
    expect_recv_status(rx, ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(try_recv_on_empty_open_channel_returns_empty)

static void messages_come_out_in_the_order_they_were_sent(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    /* One global order across handles: alternate senders and receivers. */
    for (uint64_t i = 0; i < 50; i++)
        send_u64(i % 2 ? tx2 : tx, i);
    for (uint64_t i = 0; i < 50; i++)
        expect_u64(i % 3 ? rx2 : rx, i);
    expect_recv_status(rx, ZC_EMPTY);
    zc_sender_drop(tx2);
    zc_receiver_drop(rx2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(messages_come_out_in_the_order_they_were_sent)

/* ---- element sizes ----------------------------------------------------------------------
 */

/* Messages of elem_size bytes come out byte-exact, and try_recv writes exactly elem_size
 * bytes of out (the canary after them stays). */
static void check_elem_size(flavour fl, size_t elem_size) {
    enum { N = 40, CANARY = 16 };
    zc_config cfg = {elem_size, NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    make_channel(fl, &cfg, &tx, &rx);
    unsigned char *msg = malloc(elem_size);
    unsigned char *out = malloc(elem_size + CANARY);
    assert_non_null(msg);
    assert_non_null(out);
    for (size_t round = 0; round < 2; round++) { /* twice: reuse slots after a full lap */
        for (size_t m = 0; m < N; m++) {
            for (size_t j = 0; j < elem_size; j++)
                msg[j] = (unsigned char)(m * 31 + j * 7 + round);
            assert_int_equal(zc_try_send(tx, msg), ZC_OK);
        }
        for (size_t m = 0; m < N; m++) {
            memset(out, 0xcc, elem_size + CANARY);
            assert_int_equal(zc_try_recv(rx, out), ZC_OK);
            for (size_t j = 0; j < elem_size; j++)
                assert_int_equal(out[j], (unsigned char)(m * 31 + j * 7 + round));
            for (size_t j = elem_size; j < elem_size + CANARY; j++)
                assert_int_equal(out[j], 0xcc);
        }
    }
    expect_recv_status(rx, ZC_EMPTY);
    free(msg);
    free(out);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void messages_of_every_elem_size_come_out_byte_exact(flavour fl) {
    static const size_t sizes[] = {1, 3, 8, 24, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_elem_size(fl, sizes[i]);
}
BOTH_FLAVOURS(messages_of_every_elem_size_come_out_byte_exact)

/* ---- unbounded growth
 * -------------------------------------------------------------------- */

static void test_unbounded_holds_100000_messages_and_drains_to_zero(void **state) {
    (void)state;
    enum { N = 100000 };
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(UNBOUNDED, &tx, &rx);
    for (uint64_t i = 0; i < N; i++)
        send_u64(tx, i);
    zc_info info = sender_info(tx);
    assert_int_equal(info.len, N);
    assert_int_equal(info.capacity, SIZE_MAX);
    for (uint64_t i = 0; i < N; i++)
        expect_u64(rx, i);
    expect_recv_status(rx, ZC_EMPTY);
    assert_int_equal(receiver_info(rx).len, 0);
    /* Drained and grown again: still in order. */
    for (uint64_t i = 0; i < 3 * 31 + 5; i++)
        send_u64(tx, i);
    for (uint64_t i = 0; i < 3 * 31 + 5; i++)
        expect_u64(rx, i);
    assert_int_equal(receiver_info(rx).len, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_unbounded_interleaved_across_segment_boundaries_keeps_order(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(UNBOUNDED, &tx, &rx);
    uint64_t next_in = 0, next_out = 0;
    for (int round = 0; round < 200; round++) { /* send 3, receive 2: len creeps up */
        for (int i = 0; i < 3; i++)
            send_u64(tx, next_in++);
        for (int i = 0; i < 2; i++)
            expect_u64(rx, next_out++);
        assert_int_equal(sender_info(tx).len, next_in - next_out);
    }
    while (next_out < next_in)
        expect_u64(rx, next_out++);
    expect_recv_status(rx, ZC_EMPTY);
    assert_int_equal(sender_info(tx).len, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

/* ---- close ------------------------------------------------------------------------------
 */

/* After the channel was closed (by any path) with messages 0..left-1 still in it: a
 * send fails with ZC_CLOSED and leaves the message alone, receives drain, then ZC_CLOSED.
 */
static void check_closed_drains(zc_sender *tx, zc_receiver *rx, uint64_t left) {
    uint64_t msg = 777;
    if (tx != NULL) {
        assert_int_equal(zc_try_send(tx, &msg), ZC_CLOSED);
        assert_int_equal(msg, 777);
        assert_true(sender_info(tx).closed);
    }
    assert_true(receiver_info(rx).closed);
    assert_int_equal(receiver_info(rx).len, left);
    for (uint64_t i = 0; i < left; i++)
        expect_u64(rx, i);
    expect_recv_status(rx, ZC_CLOSED);
    expect_recv_status(rx, ZC_CLOSED);
}

static void sender_close_closes_and_receivers_drain(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    for (uint64_t i = 0; i < 3; i++)
        send_u64(tx, i);
    assert_false(sender_info(tx).closed);
    assert_true(zc_sender_close(tx));
    check_closed_drains(tx, rx, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(sender_close_closes_and_receivers_drain)

static void receiver_close_closes_and_the_same_receiver_drains(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    for (uint64_t i = 0; i < 3; i++)
        send_u64(tx, i);
    assert_true(zc_receiver_close(rx));
    check_closed_drains(tx, rx, 3);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(receiver_close_closes_and_the_same_receiver_drains)

static void dropping_the_last_sender_closes(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    assert_non_null(tx2);
    send_u64(tx, 0);
    zc_sender_drop(tx); /* not the last one */
    assert_false(receiver_info(rx).closed);
    send_u64(tx2, 1);
    zc_sender_drop(tx2); /* the last one */
    check_closed_drains(NULL, rx, 2);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(dropping_the_last_sender_closes)

static void dropping_the_last_receiver_closes_and_disposes(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    assert_non_null(rx2);
    send_u64(tx, 0);
    send_u64(tx, 1);
    zc_receiver_drop(rx); /* not the last one */
    assert_false(sender_info(tx).closed);
    expect_u64(rx2, 0);
    zc_receiver_drop(rx2); /* the last one: closes, message 1 is disposed of */
    zc_info info = sender_info(tx);
    assert_true(info.closed);
    assert_int_equal(info.len, 0);
    assert_int_equal(info.receivers, 0);
    assert_int_equal(info.senders, 1);
    uint64_t msg = 5;
    assert_int_equal(zc_try_send(tx, &msg), ZC_CLOSED);
    assert_int_equal(msg, 5);
    assert_false(zc_sender_close(tx)); /* already closed by the drop */
    zc_sender_drop(tx);
}
BOTH_FLAVOURS(dropping_the_last_receiver_closes_and_disposes)

static void close_returns_true_once_then_false(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    zc_sender *tx2 = zc_sender_clone(tx);
    assert_true(zc_sender_close(tx));
    assert_false(zc_sender_close(tx));
    assert_false(zc_sender_close(tx2));
    assert_false(zc_receiver_close(rx));
    zc_sender_drop(tx2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);

    make_u64_channel(fl, &tx, &rx);
    assert_true(zc_receiver_close(rx));
    assert_false(zc_receiver_close(rx));
    assert_false(zc_sender_close(tx));
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(close_returns_true_once_then_false)

static void closing_an_empty_channel_makes_recv_return_closed_at_once(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    assert_true(zc_sender_close(tx));
    check_closed_drains(tx, rx, 0);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(closing_an_empty_channel_makes_recv_return_closed_at_once)

static void test_full_bounded_channel_reports_closed_not_full_after_close(void **state) {
    (void)state;
    zc_config cfg = u64_config();
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    send_u64(tx, 0);
    send_u64(tx, 1);
    assert_true(zc_receiver_close(rx));
    check_closed_drains(tx, rx, 2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_null_handles_are_harmless_to_drop_close_and_clone(void **state) {
    (void)state;
    zc_sender_drop(NULL);
    zc_receiver_drop(NULL);
    assert_false(zc_sender_close(NULL));
    assert_false(zc_receiver_close(NULL));
    assert_null(zc_sender_clone(NULL));
    assert_null(zc_receiver_clone(NULL));
}

/* A handle cast to the other kind (a receiver passed as a sender, a sender as a
 * receiver) is refused by the calls that change the handle counts: the clones return
 * NULL and the drops do nothing, so the channel is neither closed nor emptied. */
static void a_handle_cast_to_the_other_kind_changes_no_count(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    uint64_t v = 7, out = 0;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    zc_sender *rx_as_tx = (zc_sender *)(void *)rx;
    zc_receiver *tx_as_rx = (zc_receiver *)(void *)tx;
    assert_null(zc_sender_clone(rx_as_tx));
    assert_null(zc_receiver_clone(tx_as_rx));
    zc_sender_drop(rx_as_tx);   /* would close the channel: the only sender */
    zc_receiver_drop(tx_as_rx); /* would discard the message: the only receiver */
    zc_info info = sender_info(tx);
    assert_int_equal(info.senders, 1);
    assert_int_equal(info.receivers, 1);
    assert_false(info.closed);
    assert_int_equal(info.len, 1);
    v = 8;
    assert_int_equal(zc_try_send(tx, &v), ZC_OK);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 7);
    assert_int_equal(zc_try_recv(rx, &out), ZC_OK);
    assert_int_equal(out, 8);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(a_handle_cast_to_the_other_kind_changes_no_count)

#ifdef HAVE_DEATH_TESTS
/* A double drop is undefined; a debug build's assertion catches it once the count of
 * that kind is already zero (mpmc.h). Run in a child, which must die of SIGABRT. */
static void drop_twice_in_a_child(flavour fl, bool sender) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);
        if (!freopen("/dev/null", "w", stderr)) _exit(3); /* the assertion's message */
        zc_sender *tx;
        zc_receiver *rx;
        zc_config cfg = u64_config();
        if ((fl == BOUNDED ? zc_bounded(4, &cfg, &tx, &rx) : zc_unbounded(&cfg, &tx, &rx)) !=
            ZC_OK)
            _exit(2);
        if (sender) {
            zc_sender_drop(tx); /* the other kind lives on: the channel is not freed */
            zc_sender_drop(tx);
        } else {
            zc_receiver_drop(rx);
            zc_receiver_drop(rx);
        }
        _exit(0); /* the second drop went through */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void a_second_drop_of_the_last_handle_fails_an_assertion(flavour fl) {
    drop_twice_in_a_child(fl, true);
    drop_twice_in_a_child(fl, false);
}
BOTH_FLAVOURS(a_second_drop_of_the_last_handle_fails_an_assertion)
#endif

/* ---- drop_msg
 * ---------------------------------------------------------------------------- */

enum { SEEN_LEN = 256 };

typedef struct drop_fixture {
    drop_counter dc;
    atomic_uchar seen[SEEN_LEN];
    zc_config cfg;
} drop_fixture;

static void drop_fixture_init(drop_fixture *f) {
    drop_counter_init(&f->dc, f->seen, SEEN_LEN);
    f->cfg.elem_size = sizeof(uint64_t);
    f->cfg.drop_msg = drop_counter_fn;
    f->cfg.drop_ctx = &f->dc;
}

/* Exactly the values first..last-1 were disposed of, once each. */
static void expect_disposed_once(drop_fixture *f, uint64_t first, uint64_t last) {
    assert_int_equal(drop_counter_calls(&f->dc), last - first);
    assert_true(drop_counter_saw_once(&f->dc, first, last));
}

static void drop_msg_runs_once_per_unreceived_message_when_last_receiver_drops(flavour fl) {
    drop_fixture f;
    drop_fixture_init(&f);
    zc_sender *tx;
    zc_receiver *rx;
    make_channel(fl, &f.cfg, &tx, &rx);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    for (uint64_t i = 0; i < 10; i++)
        send_u64(tx, i);
    for (uint64_t i = 0; i < 4; i++)
        expect_u64(rx, i);
    zc_sender_drop(tx); /* closes; nothing is disposed of while a receiver lives */
    zc_receiver_drop(rx);
    assert_int_equal(drop_counter_calls(&f.dc), 0);
    zc_receiver_drop(rx2); /* the last receiver: 4..9 go to drop_msg before it returns */
    expect_disposed_once(&f, 4, 10);
}
BOTH_FLAVOURS(drop_msg_runs_once_per_unreceived_message_when_last_receiver_drops)

static void test_drop_msg_runs_once_per_message_across_unbounded_segments(void **state) {
    (void)state;
    drop_fixture f;
    drop_fixture_init(&f);
    zc_sender *tx;
    zc_receiver *rx;
    make_channel(UNBOUNDED, &f.cfg, &tx, &rx);
    for (uint64_t i = 0; i < MANY_SEGMENTS; i++)
        send_u64(tx, i);
    for (uint64_t i = 0; i < 40; i++) /* drain past the first segment and into the second */
        expect_u64(rx, i);
    zc_receiver_drop(rx); /* the sender still lives: the drop disposes of 40..99 now */
    expect_disposed_once(&f, 40, MANY_SEGMENTS);
    uint64_t msg = 200;
    assert_int_equal(zc_try_send(tx, &msg), ZC_CLOSED);
    zc_sender_drop(tx);
    expect_disposed_once(&f, 40,
                         MANY_SEGMENTS); /* nothing more, the closed send included */
}

static void drop_msg_is_not_called_for_a_send_to_a_closed_channel(flavour fl) {
    drop_fixture f;
    drop_fixture_init(&f);
    zc_sender *tx;
    zc_receiver *rx;
    make_channel(fl, &f.cfg, &tx, &rx);
    assert_true(zc_sender_close(tx));
    uint64_t msg = 9;
    assert_int_equal(zc_try_send(tx, &msg), ZC_CLOSED);
    zc_send fut;
    zc_send_init(&fut, tx, &msg);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    assert_int_equal(zc_send_poll(&fut, &w), ZC_CLOSED);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    expect_disposed_once(&f, 0, 0);
}
BOTH_FLAVOURS(drop_msg_is_not_called_for_a_send_to_a_closed_channel)

/* drop_msg's msg is aligned to 8 bytes (4 where size_t has 32 bits: the ring's stamp
 * before each message), whatever elem_size (mpmc.h, zc_config). */
static void count_misaligned(void *msg, void *ctx) {
    size_t align = sizeof(size_t) < 8 ? sizeof(size_t) : 8;
    if ((uintptr_t)msg % align != 0) ++*(unsigned *)ctx;
}

static void drop_msg_is_aligned_to_8_bytes(flavour fl) {
    for (size_t size = 1; size <= 40; size++) {
        unsigned misaligned = 0;
        zc_config cfg = {.elem_size = size, .drop_msg = count_misaligned, .drop_ctx = &misaligned};
        zc_sender *tx;
        zc_receiver *rx;
        make_channel(fl, &cfg, &tx, &rx);
        unsigned char msg[40] = {0};
        for (int i = 0; i < 5; i++) assert_int_equal(zc_try_send(tx, msg), ZC_OK);
        zc_receiver_drop(rx); /* five drop_msg calls, one a slot */
        assert_int_equal(misaligned, 0);
        zc_sender_drop(tx);
    }
}
BOTH_FLAVOURS(drop_msg_is_aligned_to_8_bytes)

static void test_drop_msg_is_not_called_for_a_cancelled_send(void **state) {
    (void)state;
    drop_fixture f;
    drop_fixture_init(&f);
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(1, &f.cfg, &tx, &rx), ZC_OK);
    send_u64(tx, 3);
    uint64_t msg = 4;
    zc_send fut;
    zc_send_init(&fut, tx, &msg);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    assert_int_equal(zc_send_poll(&fut, &w), ZC_PENDING);
    zc_send_cancel(&fut);
    assert_int_equal(drop_counter_calls(&f.dc), 0);
    zc_receiver_drop(rx); /* only the queued 3 is disposed of, not the cancelled 4 */
    expect_disposed_once(&f, 3, 4);
    zc_sender_drop(tx);
    assert_int_equal(drop_counter_calls(&f.dc), 1);
}

static void channel_without_drop_msg_frees_undelivered_messages_silently(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    for (uint64_t i = 0; i < MANY_SEGMENTS && (fl == UNBOUNDED || i < ROOMY_CAP); i++)
        send_u64(tx, i);
    zc_receiver_drop(rx); /* with no drop_msg they are forgotten (ASan checks the memory) */
    zc_sender_drop(tx);
}
BOTH_FLAVOURS(channel_without_drop_msg_frees_undelivered_messages_silently)

/* ---- info
 * ---------------------------------------------------------------------------------- */

static void info_counts_handles_and_messages(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    size_t cap = fl == BOUNDED ? ROOMY_CAP : SIZE_MAX;
    zc_sender *tx2 = zc_sender_clone(tx);
    zc_sender *tx3 = zc_sender_clone(tx2);
    zc_receiver *rx2 = zc_receiver_clone(rx);
    send_u64(tx, 1);
    send_u64(tx3, 2);
    zc_info a = sender_info(tx2), b = receiver_info(rx2);
    assert_int_equal(a.len, 2);
    assert_int_equal(a.capacity, cap);
    assert_int_equal(a.senders, 3);
    assert_int_equal(a.receivers, 2);
    assert_false(a.closed);
    assert_int_equal(b.len, a.len);
    assert_int_equal(b.capacity, a.capacity);
    assert_int_equal(b.senders, a.senders);
    assert_int_equal(b.receivers, a.receivers);
    assert_int_equal(b.closed, a.closed);

    zc_sender_drop(tx3);
    zc_receiver_drop(rx);
    expect_u64(rx2, 1);
    a = sender_info(tx);
    assert_int_equal(a.len, 1);
    assert_int_equal(a.capacity, cap);
    assert_int_equal(a.senders, 2);
    assert_int_equal(a.receivers, 1);
    assert_false(a.closed);

    assert_true(zc_sender_close(tx2));
    b = receiver_info(rx2);
    assert_int_equal(b.len, 1);
    assert_int_equal(b.senders, 2);
    assert_int_equal(b.receivers, 1);
    assert_true(b.closed);

    zc_sender_drop(tx);
    zc_sender_drop(tx2);
    b = receiver_info(rx2);
    assert_int_equal(b.senders, 0);
    assert_int_equal(b.receivers, 1);
    assert_int_equal(b.len, 1);
    zc_receiver_drop(rx2);
}
BOTH_FLAVOURS(info_counts_handles_and_messages)

/* ---- bad arguments
 * ------------------------------------------------------------------------- */

static void null_arguments_return_einval_and_change_nothing(flavour fl) {
    zc_sender *tx;
    zc_receiver *rx;
    make_u64_channel(fl, &tx, &rx);
    send_u64(tx, 1);
    uint64_t v = 2;
    zc_info info;
    assert_int_equal(zc_try_send(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_try_send(tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_try_recv(NULL, &v), ZC_EINVAL);
    assert_int_equal(zc_try_recv(rx, NULL), ZC_EINVAL);
    assert_int_equal(v, 2);
    assert_int_equal(zc_sender_info(NULL, &info), ZC_EINVAL);
    assert_int_equal(zc_sender_info(tx, NULL), ZC_EINVAL);
    assert_int_equal(zc_receiver_info(NULL, &info), ZC_EINVAL);
    assert_int_equal(zc_receiver_info(rx, NULL), ZC_EINVAL);
    info = sender_info(tx);
    assert_int_equal(info.len, 1);
    assert_false(info.closed);
    expect_u64(rx, 1);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}
BOTH_FLAVOURS(null_arguments_return_einval_and_change_nothing)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded_with_zero_capacity_returns_einval_and_null_handles),
        cmocka_unit_test(test_constructors_with_null_config_return_einval_and_null_handles),
        cmocka_unit_test(
            test_constructors_with_zero_elem_size_return_einval_and_null_handles),
        cmocka_unit_test(test_bounded_whose_size_overflows_returns_einval_and_null_handles),
        cmocka_unit_test(test_unbounded_with_too_large_elem_size_returns_einval),
        cmocka_unit_test(test_constructors_with_null_tx_return_einval_and_null_rx),
        cmocka_unit_test(test_constructors_with_null_rx_return_einval_and_null_tx),
        cmocka_unit_test(test_constructors_with_both_handles_null_return_einval),
        cmocka_unit_test(test_bounded_with_capacity_one_is_created_open_and_empty),
        cmocka_unit_test(test_try_send_returns_full_at_exactly_capacity_1),
        cmocka_unit_test(test_try_send_returns_full_at_exactly_capacity_2),
        cmocka_unit_test(test_try_send_returns_full_at_exactly_capacity_3),
        cmocka_unit_test(test_try_send_returns_full_at_exactly_capacity_7),
        cmocka_unit_test(test_try_send_returns_full_at_exactly_capacity_1000),
        cmocka_unit_test(test_bounded_stays_exact_over_many_laps),
        BOTH_TESTS(try_recv_on_empty_open_channel_returns_empty),
        BOTH_TESTS(messages_come_out_in_the_order_they_were_sent),
        BOTH_TESTS(messages_of_every_elem_size_come_out_byte_exact),
        cmocka_unit_test(test_unbounded_holds_100000_messages_and_drains_to_zero),
        cmocka_unit_test(test_unbounded_interleaved_across_segment_boundaries_keeps_order),
        BOTH_TESTS(sender_close_closes_and_receivers_drain),
        BOTH_TESTS(receiver_close_closes_and_the_same_receiver_drains),
        BOTH_TESTS(dropping_the_last_sender_closes),
        BOTH_TESTS(dropping_the_last_receiver_closes_and_disposes),
        BOTH_TESTS(close_returns_true_once_then_false),
        BOTH_TESTS(closing_an_empty_channel_makes_recv_return_closed_at_once),
        cmocka_unit_test(test_full_bounded_channel_reports_closed_not_full_after_close),
        cmocka_unit_test(test_null_handles_are_harmless_to_drop_close_and_clone),
        BOTH_TESTS(a_handle_cast_to_the_other_kind_changes_no_count),
#ifdef HAVE_DEATH_TESTS
        BOTH_TESTS(a_second_drop_of_the_last_handle_fails_an_assertion),
#endif
        BOTH_TESTS(drop_msg_runs_once_per_unreceived_message_when_last_receiver_drops),
        cmocka_unit_test(test_drop_msg_runs_once_per_message_across_unbounded_segments),
        BOTH_TESTS(drop_msg_is_not_called_for_a_send_to_a_closed_channel),
        cmocka_unit_test(test_drop_msg_is_not_called_for_a_cancelled_send),
        BOTH_TESTS(drop_msg_is_aligned_to_8_bytes),
        BOTH_TESTS(channel_without_drop_msg_frees_undelivered_messages_silently),
        BOTH_TESTS(info_counts_handles_and_messages),
        BOTH_TESTS(null_arguments_return_einval_and_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of allocation failure (spec/api.md: ZC_ENOMEM, nothing changed). The
 * binary is linked with -Wl,--wrap for malloc, calloc, aligned_alloc and posix_memalign,
 * so every allocation the (static) library makes goes through the wrappers below, which
 * fail on demand. The tests do not assume how many allocations a call makes: they fail the
 * first, then the second, ... until the call succeeds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <zchan/batch.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "counting_waker.h"

/* Allocations that may still succeed; negative: all of them. */
static long allocs_left = -1;

static bool alloc_fails(void) {
    if (allocs_left < 0)
        return false;
    if (allocs_left == 0)
        return true;
    allocs_left--;
    return false;
}

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
int __real_posix_memalign(void **mem, size_t align, size_t size);
int __wrap_posix_memalign(void **mem, size_t align, size_t size);

void *__wrap_malloc(size_t size) { return alloc_fails() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) {
    return alloc_fails() ? NULL : __real_calloc(n, size);
}
void *__wrap_aligned_alloc(size_t align, size_t size) {
    return alloc_fails() ? NULL : __real_aligned_alloc(align, size);
}
int __wrap_posix_memalign(void **mem, size_t align, size_t size) {
    return alloc_fails() ? ENOMEM : __real_posix_memalign(mem, align, size);
}

static int reset_allocator(void **state) {
    (void)state;
    allocs_left = -1;
    return 0;
}

static int sentinel;
#define NOT_NULL_TX ((zc_sender *)(void *)&sentinel)
#define NOT_NULL_RX ((zc_receiver *)(void *)&sentinel)

/* Make a channel with the k-th allocation failing, k = 0, 1, ...: each failure is
 * ZC_ENOMEM with NULL handles and nothing leaked (LeakSanitizer), until one succeeds. */
static void check_constructor_enomem(bool bounded) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    for (long k = 0;; k++) {
        assert_true(k < 16); /* a constructor makes a handful of allocations at most */
        zc_sender *tx = NOT_NULL_TX;
        zc_receiver *rx = NOT_NULL_RX;
        allocs_left = k;
        zc_status s =
            bounded ? zc_bounded(8, &cfg, &tx, &rx) : zc_unbounded(&cfg, &tx, &rx);
        allocs_left = -1;
        if (s == ZC_OK) {
            assert_true(k > 0); /* the first allocation failing must fail the call */
            zc_sender_drop(tx);
            zc_receiver_drop(rx);
            return;
        }
        assert_int_equal(s, ZC_ENOMEM);
        assert_null(tx);
        assert_null(rx);
    }
}

static void
test_bounded_returns_enomem_and_null_handles_when_allocation_fails(void **state) {
    (void)state;
    check_constructor_enomem(true);
}

static void
test_unbounded_returns_enomem_and_null_handles_when_allocation_fails(void **state) {
    (void)state;
    check_constructor_enomem(false);
}

/* With `before` messages already sent, stop all allocation and send until ZC_ENOMEM:
 * it must come within two segments' worth (one current, one spare at most), leave the
 * channel unchanged, and the same send must succeed once memory is back. */
static void check_unbounded_send_enomem(uint64_t before, bool with_future) {
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    uint64_t next = 0;
    for (; next < before; next++)
        assert_int_equal(zc_try_send(tx, &next), ZC_OK);

    allocs_left = 0;
    zc_status s;
    zc_send fut;
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    for (;; next++) {
        assert_true(next < before + 2 * 31 + 1);
        if (with_future) {
            zc_send_init(&fut, tx, &next);
            s = zc_send_poll(&fut, &w);
        } else {
            s = zc_try_send(tx, &next);
        }
        if (s != ZC_OK)
            break;
    }
    assert_int_equal(s, ZC_ENOMEM);
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, next); /* the failed send added nothing */
    assert_false(info.closed);
    assert_int_equal(zc_try_send(tx, &next), ZC_ENOMEM); /* still no memory */

    allocs_left = -1;
    if (with_future) /* the same future, polled again, now completes */
        assert_int_equal(zc_send_poll(&fut, &w), ZC_OK);
    else
        assert_int_equal(zc_try_send(tx, &next), ZC_OK);
    assert_int_equal(counting_waker_count(&cw), 0);
    for (uint64_t i = 0; i <= next; i++) {
        uint64_t got = ~i;
        assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
        assert_int_equal(got, i);
    }
    uint64_t got;
    assert_int_equal(zc_try_recv(rx, &got), ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void
test_unbounded_try_send_that_cannot_grow_returns_enomem_and_changes_nothing(void **state) {
    (void)state;
    check_unbounded_send_enomem(0, false);  /* the very first segment */
    check_unbounded_send_enomem(10, false); /* the next segment, mid-stream */
    check_unbounded_send_enomem(31, false); /* right at a boundary */
}

static void
test_unbounded_send_future_that_cannot_grow_returns_enomem_and_can_retry(void **state) {
    (void)state;
    check_unbounded_send_enomem(0, true);
    check_unbounded_send_enomem(45, true);
}

/* A batch send on an unbounded channel that runs out of memory part way: ZC_ENOMEM, and
 * *sent counts exactly the messages that went in (those the current segment had room
 * for), with or without ZC_ALL_OR_NOTHING (batch.h: "an allocation failure in the middle
 * leaves the first *sent sent even with the flag"). A count short of what went in would
 * have the caller send them twice (a cut batch reported as its failing push's status
 * alone would give *sent 0). */
static void test_unbounded_batch_send_cut_by_enomem_counts_what_it_sent(void **state) {
    (void)state;
    const unsigned flags[] = {0, ZC_ALL_OR_NOTHING};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        zc_config cfg = {sizeof(uint64_t), NULL, NULL};
        zc_sender *tx;
        zc_receiver *rx;
        assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
        uint64_t first = 1000, msgs[100];
        for (uint64_t i = 0; i < 100; i++) msgs[i] = 2000 + i;
        assert_int_equal(zc_try_send(tx, &first), ZC_OK); /* the first segment is there */

        allocs_left = 0;
        size_t sent = 12345;
        assert_int_equal(zc_try_send_many(tx, msgs, 100, &sent, flags[f]), ZC_ENOMEM);
        allocs_left = -1;
        assert_true(sent > 0 && sent < 100); /* the segment had room for some, not all */
        zc_info info;
        assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
        assert_int_equal(info.len, 1 + sent);

        uint64_t got = 0;
        assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
        assert_int_equal(got, first);
        for (size_t i = 0; i < sent; i++) {
            assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
            assert_int_equal(got, msgs[i]);
        }
        assert_int_equal(zc_try_recv(rx, &got), ZC_EMPTY);
        zc_sender_drop(tx);
        zc_receiver_drop(rx);
    }
}

/* An unbounded permit's commit that cannot grow the channel: ZC_ENOMEM, nothing sent,
 * and the permit still holds its place (permit.h: "commit again or release"): once
 * memory is back the same permit commits, and the message is received. (With the permit
 * emptied on ZC_ENOMEM, the second commit said ZC_EINVAL: a mutation of permit.c no
 * test caught.) */
static void test_unbounded_commit_cut_by_enomem_keeps_the_permit(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_unbounded(&cfg, &tx, &rx), ZC_OK);
    zc_permit p;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_OK);
    uint64_t v = 0;
    allocs_left = 0;
    zc_status s;
    while ((s = zc_try_send(tx, &v)) == ZC_OK) v++; /* fill what is allocated */
    assert_int_equal(s, ZC_ENOMEM);
    uint64_t msg = 777;
    assert_int_equal(zc_permit_commit(&p, &msg), ZC_ENOMEM);
    zc_info info;
    assert_int_equal(zc_sender_info(tx, &info), ZC_OK);
    assert_int_equal(info.len, v); /* the commit added nothing */
    allocs_left = -1;
    assert_int_equal(zc_permit_commit(&p, &msg), ZC_OK);
    assert_int_equal(zc_permit_commit(&p, &msg), ZC_EINVAL); /* now empty */
    uint64_t got = 0;
    for (uint64_t i = 0; i < v; i++) {
        assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
        assert_int_equal(got, i);
    }
    assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
    assert_int_equal(got, 777);
    assert_int_equal(zc_try_recv(rx, &got), ZC_EMPTY);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

static void test_bounded_send_and_recv_never_allocate(void **state) {
    (void)state;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(4, &cfg, &tx, &rx), ZC_OK);
    allocs_left = 0;
    for (uint64_t round = 0; round < 10; round++) {
        for (uint64_t i = 0; i < 4; i++)
            assert_int_equal(zc_try_send(tx, &i), ZC_OK);
        for (uint64_t i = 0; i < 4; i++) {
            uint64_t got;
            assert_int_equal(zc_try_recv(rx, &got), ZC_OK);
            assert_int_equal(got, i);
        }
    }
    /* Handles are counted: a clone allocates nothing (but the checked build's handle
     * object, src/check.h). */
    allocs_left = ZCHAN_CHECKED;
    zc_sender *tx2 = zc_sender_clone(tx);
    assert_non_null(tx2);
    allocs_left = -1;
    zc_sender_drop(tx2);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(
            test_bounded_returns_enomem_and_null_handles_when_allocation_fails,
            reset_allocator),
        cmocka_unit_test_teardown(
            test_unbounded_returns_enomem_and_null_handles_when_allocation_fails,
            reset_allocator),
        cmocka_unit_test_teardown(
            test_unbounded_try_send_that_cannot_grow_returns_enomem_and_changes_nothing,
            reset_allocator),
        cmocka_unit_test_teardown(
            test_unbounded_send_future_that_cannot_grow_returns_enomem_and_can_retry,
            reset_allocator),
        cmocka_unit_test_teardown(test_unbounded_batch_send_cut_by_enomem_counts_what_it_sent,
                                  reset_allocator),
        cmocka_unit_test_teardown(test_unbounded_commit_cut_by_enomem_keeps_the_permit,
                                  reset_allocator),
        cmocka_unit_test_teardown(test_bounded_send_and_recv_never_allocate,
                                  reset_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

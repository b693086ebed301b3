/* Reliability scenarios of the batch operations (src/batch.c), built only with the hook
 * points (ZCHAN_TEST_HOOKS): a batch future cancelled after a self-woken pending poll,
 * and an all-or-nothing batch on an unbounded channel held up behind a peer at a
 * segment's end (and by a failed allocation) that its timeout must not cut in two. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <zchan/batch.h>
#include <zchan/config.h>
#include "zchan_build.h" /* ZCHAN_TEST_HOOKS */
#include <zchan/mpmc.h>

#include "scenario.h"
#include "scenario_hooks.h"

#if !ZCHAN_TEST_HOOKS
#error "test_scenarios_batch needs a ZCHAN_TEST_HOOKS build"
#endif

/* A batch future (zc_recv_many, zc_send_many) pends while a peer of the other side holds
 * the slot claimed, then is cancelled; a plain future waits behind it (see
 * run_cancel_after_a_self_woken_pending_poll). Guards: a wake-up the cancelled batch
 * future held reaches the plain one (waker rule 4); no waiter is stranded. */
static void
test_batch_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(BATCH_RECEIVER);
}

static void
test_batch_sender_cancelled_after_a_self_woken_poll_strands_no_waiter(void **state) {
    (void)state;
    run_cancel_after_a_self_woken_pending_poll(BATCH_SENDER);
}

/* The batch's first message goes into a segment's second-to-last slot. At that claim
 * (the main thread's SLOT_CLAIMED point) a peer sender claims the segment's last slot
 * and is held there, before it installs the next segment; a releaser lets it go after
 * RELEASE_LATER_NS, well past the batch's 20 ms timeout. The rest of the batch waits
 * behind the peer, as zc_try_send would. Guards (batch.h): with ZC_ALL_OR_NOTHING a
 * timeout never leaves part of the batch sent (ZC_TIMEDOUT means *sent 0), so the call
 * sends it all, in order around the peer's message. */

typedef struct split {
    hold h;
    held_op op;
    pthread_t peer, releaser;
} split;

static _Thread_local bool split_me;

static void split_hook(zc__hook_point point, void *ctx) {
    split *sp = ctx;
    hold_hook(point, &sp->h); /* the peer, at its claim of the last slot */
    if (point != ZC__HOOK_SLOT_CLAIMED || !split_me) return;
    split_me = false;
    start_thread(&sp->peer, held_try_send, &sp->op);
    while (!atomic_load_explicit(&sp->h.held, memory_order_acquire))
        sched_yield();
    start_thread(&sp->releaser, release_later, &sp->h);
}

/* After the batch returned: let the peer go (at once if the batch did not wait for it),
 * join it and the releaser, and take the hook off. */
static void split_end(split *sp) {
    atomic_store_explicit(&sp->h.release, true, memory_order_release);
    pthread_join(sp->peer, NULL);
    pthread_join(sp->releaser, NULL);
    zc__test_set_hook(NULL, NULL);
}

static void test_unbounded_all_or_nothing_batch_is_not_cut_by_its_timeout(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    for (uint64_t v = 1; v <= SEG_SLOTS - 2; v++) send_u64(f.tx, v);
    split sp = {.op = {.f = &f, .v = 100}};
    hold_init(&sp.h);
    zc__test_set_hook(split_hook, &sp);
    uint64_t batch[4] = {201, 202, 203, 204};
    size_t sent = 99;
    split_me = true;
    zc_status s = zc_send_many_timeout(f.tx, batch, 4, &sent, ZC_ALL_OR_NOTHING,
                                       20 * 1000 * 1000);
    split_me = false;
    split_end(&sp);
    assert_int_equal(sp.op.s, ZC_OK);
    assert_int_equal(s, ZC_OK);
    assert_int_equal(sent, 4);
    for (uint64_t v = 1; v <= SEG_SLOTS - 2; v++) expect_u64(f.rx, v);
    expect_u64(f.rx, 201); /* the batch's first, then the peer's, then the batch's rest */
    expect_u64(f.rx, 100);
    for (uint64_t v = 202; v <= 204; v++) expect_u64(f.rx, v);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* The same batch, cut first by a failed allocation: the batch's push into the segment's
 * last slot needs the next segment, and its allocation fails (the calloc wrapper below,
 * linked in hooks builds); meanwhile a peer sender claims that last slot and is held
 * before it installs the next segment. The batch has begun (the messages before went
 * in). Guards: it waits for the peer and sends all of it, rather than give up at its
 * deadline with part of it sent and ZC_TIMEDOUT. */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static _Thread_local bool fail_alloc_me; /* the next calloc on this thread fails */
static split *fail_alloc_split;           /* ...after starting its held peer */

void *__wrap_calloc(size_t n, size_t size) {
    if (!fail_alloc_me) return __real_calloc(n, size);
    fail_alloc_me = false; /* pthread_create below may allocate too */
    split *sp = fail_alloc_split;
    start_thread(&sp->peer, held_try_send, &sp->op);
    while (!atomic_load_explicit(&sp->h.held, memory_order_acquire))
        sched_yield();
    start_thread(&sp->releaser, release_later, &sp->h);
    return NULL;
}

static void test_unbounded_all_or_nothing_batch_cut_by_enomem_is_not_cut_by_its_timeout(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f, 0);
    send_u64(f.tx, 1); /* the first segment, then its first slot taken out again */
    expect_u64(f.rx, 1);
    split sp = {.op = {.f = &f, .v = 100}};
    hold_init(&sp.h);
    zc__test_set_hook(hold_hook, &sp.h);
    enum { N = 40, BEFORE = SEG_SLOTS - 2 }; /* slots 1 .. 29 before the last one */
    uint64_t batch[N];
    for (int i = 0; i < N; i++) batch[i] = 200 + (uint64_t)i;
    size_t sent = 99;
    fail_alloc_split = &sp;
    fail_alloc_me = true;
    zc_status s = zc_send_many_timeout(f.tx, batch, N, &sent, ZC_ALL_OR_NOTHING,
                                       20 * 1000 * 1000);
    fail_alloc_me = false;
    split_end(&sp);
    assert_int_equal(sp.op.s, ZC_OK);
    assert_int_equal(s, ZC_OK);
    assert_int_equal(sent, N);
    for (int i = 0; i < BEFORE; i++) expect_u64(f.rx, 200 + (uint64_t)i);
    expect_u64(f.rx, 100); /* the peer's, in the last slot */
    for (int i = BEFORE; i < N; i++) expect_u64(f.rx, 200 + (uint64_t)i);
    expect_recv_status(f.rx, ZC_EMPTY);
    fixture_done(&f);
}

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_receiver_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_batch_sender_cancelled_after_a_self_woken_poll_strands_no_waiter),
        cmocka_unit_test(test_unbounded_all_or_nothing_batch_is_not_cut_by_its_timeout),
        cmocka_unit_test(test_unbounded_all_or_nothing_batch_cut_by_enomem_is_not_cut_by_its_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

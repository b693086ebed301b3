/* Reliability scenario of permits (reserve/commit, src/permit.c over the queue): the
 * release of a reserved place racing the last receiver's drop, repeated many times. */
#define _GNU_SOURCE /* clock_gettime; pthread_setaffinity_np on Linux */

#include <unistd.h>

#include <zchan/mpmc.h>
#include <zchan/permit.h>

#include "scenario.h"

/* Each round: a bounded(1) channel with its only place reserved; one thread releases the
 * permit while the other drops the last receiver, whose disposal runs from head. The
 * release that skips its own hole at head frees that slot (stamp head + one lap) under
 * the disposal. Guards: the drop returns (an alarm fails a hang) and the channel is
 * closed afterwards. */

typedef struct release_race {
    atomic_uint round;   /* the round the releaser may run */
    atomic_uint done;    /* the last round it finished */
    zc_permit permit;
} release_race;

static void *releaser_main(void *arg) {
    release_race *rr = arg;
    for (unsigned r = 1; await_uint(&rr->round, r); r++) { /* the permit is filled in */
        assert_int_equal(zc_permit_release(&rr->permit), ZC_OK);
        /* Release: the main thread's await sees the release done. */
        atomic_store_explicit(&rr->done, r, memory_order_release);
    }
    return NULL;
}

static void test_last_receiver_drop_racing_a_release_returns(void **state) {
    (void)state;
    release_race rr;
    atomic_init(&rr.round, 0);
    atomic_init(&rr.done, 0);
    pthread_t t;
    start_thread(&t, releaser_main, &rr);
    alarm(120); /* a hang in the drop fails the test instead of stalling it */
    unsigned rounds = scenario_rounds(20000);
    uint64_t t0 = now_ns();
    for (unsigned r = 1; race_goes_on(r, rounds, t0); r++) {
        zc_sender *tx;
        zc_receiver *rx;
        zc_config cfg = {sizeof(uint64_t), NULL, NULL};
        assert_int_equal(zc_bounded(1, &cfg, &tx, &rx), ZC_OK);
        assert_int_equal(zc_try_reserve(tx, &rr.permit), ZC_OK);
        /* Release: the releaser sees the permit filled in. */
        atomic_store_explicit(&rr.round, r, memory_order_release);
        zc_receiver_drop(rx); /* while the place is being released */
        await_uint(&rr.done, r);
        uint64_t v = 1;
        assert_int_equal(zc_try_send(tx, &v), ZC_CLOSED);
        zc_sender_drop(tx);
    }
    atomic_store_explicit(&rr.round, RACE_END, memory_order_release);
    pthread_join(t, NULL);
    alarm(0);
}

/* An optional argument runs only the tests whose names match it (cmocka's pattern). */
int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_receiver_drop_racing_a_release_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the two-phase send API (zchan/batch.h), which is not supported yet:
 * every call says ZC_EINVAL, leaves the channel as it was, and never calls the waker. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <zchan/batch.h>
#include <zchan/mpmc.h>

#include "counting_waker.h"
#include "u64_channel.h"

static void test_every_reservation_call_is_einval_and_changes_nothing(void **state) {
    (void)state;
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {sizeof(uint64_t), NULL, NULL};
    assert_int_equal(zc_bounded(2, &cfg, &tx, &rx), ZC_OK);
    counting_waker cw;
    counting_waker_init(&cw);
    zc_waker w = counting_waker_of(&cw);
    zc_permit p;
    zc_reserve f;
    uint64_t v = 5;
    assert_int_equal(zc_try_reserve(tx, &p), ZC_EINVAL);
    zc_reserve_init(&f, tx, &p);
    assert_int_equal(zc_reserve_poll(&f, &w), ZC_EINVAL);
    zc_reserve_cancel(&f);
    assert_int_equal(zc_reserve_blocking(tx, &p), ZC_EINVAL);
    assert_int_equal(zc_reserve_timeout(tx, &p, 0), ZC_EINVAL);
    assert_int_equal(zc_permit_commit(&p, &v), ZC_EINVAL);
    assert_int_equal(zc_permit_release(&p), ZC_EINVAL);
    assert_int_equal(counting_waker_count(&cw), 0);
    /* Both slots are still free, and nothing was sent. */
    send_u64(tx, 1);
    send_u64(tx, 2);
    expect_u64(rx, 1);
    expect_u64(rx, 2);
    expect_recv_status(rx, ZC_EMPTY);
    zc_reserve_init(NULL, tx, &p);
    zc_reserve_cancel(NULL);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_reservation_call_is_einval_and_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

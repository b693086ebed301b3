/* Unit tests of zchan/status.h: the fixed values and the strings of every status code. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <zchan/status.h>

static void test_status_values_are_fixed(void **state) {
    (void)state;
    assert_int_equal(ZC_OK, 0);
    assert_int_equal(ZC_PENDING, 1);
    assert_int_equal(ZC_FULL, 2);
    assert_int_equal(ZC_EMPTY, 3);
    assert_int_equal(ZC_CLOSED, 4);
    assert_int_equal(ZC_TIMEDOUT, 5);
    assert_int_equal(ZC_LAGGED, 6);
    assert_int_equal(ZC_EINVAL, 7);
    assert_int_equal(ZC_ENOMEM, 8);
}

static void test_status_str_names_every_code_as_spelled_in_the_enum(void **state) {
    (void)state;
    assert_string_equal(zc_status_str(ZC_OK), "ZC_OK");
    assert_string_equal(zc_status_str(ZC_PENDING), "ZC_PENDING");
    assert_string_equal(zc_status_str(ZC_FULL), "ZC_FULL");
    assert_string_equal(zc_status_str(ZC_EMPTY), "ZC_EMPTY");
    assert_string_equal(zc_status_str(ZC_CLOSED), "ZC_CLOSED");
    assert_string_equal(zc_status_str(ZC_TIMEDOUT), "ZC_TIMEDOUT");
    assert_string_equal(zc_status_str(ZC_LAGGED), "ZC_LAGGED");
    assert_string_equal(zc_status_str(ZC_EINVAL), "ZC_EINVAL");
    assert_string_equal(zc_status_str(ZC_ENOMEM), "ZC_ENOMEM");
}

static void test_status_str_of_any_other_value_is_unknown(void **state) {
    (void)state;
    static const int others[] = {-1, 9, 10, 100, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        assert_string_equal(zc_status_str((zc_status)others[i]), "ZC_UNKNOWN");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_values_are_fixed),
        cmocka_unit_test(test_status_str_names_every_code_as_spelled_in_the_enum),
        cmocka_unit_test(test_status_str_of_any_other_value_is_unknown),
    };
    return cmocka_run_group_tests(tests, 0, NULL);
}

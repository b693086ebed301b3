/* Unit tests of the version (zchan/zchan.h, zchan/config.h): the library built and the
 * headers it was built with name the same version, in every form. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include <zchan/zchan.h>

/* The number is usable in #if, as a program that needs some version tests it. */
#if ZCHAN_VERSION_NUMBER / 10000 != ZCHAN_VERSION_MAJOR || \
    ZCHAN_VERSION_NUMBER % 100 != ZCHAN_VERSION_PATCH
#error "ZCHAN_VERSION_NUMBER does not hold the major and patch versions in #if"
#endif

static void test_version_macros_are_the_numbers_of_the_version_string(void **state) {
    (void)state;
    unsigned major, minor, patch;
    int end = 0;
    assert_int_equal(sscanf(ZCHAN_VERSION_STRING, "%u.%u.%u%n", &major, &minor, &patch, &end),
                     3);
    assert_int_equal(ZCHAN_VERSION_STRING[end], '\0');
    assert_int_equal(major, ZCHAN_VERSION_MAJOR);
    assert_int_equal(minor, ZCHAN_VERSION_MINOR);
    assert_int_equal(patch, ZCHAN_VERSION_PATCH);
    /* Two decimal digits each for minor and patch, or the number would be ambiguous. */
    assert_in_range(minor, 0, 99);
    assert_in_range(patch, 0, 99);
    assert_int_equal(ZCHAN_VERSION_NUMBER, major * 10000 + minor * 100 + patch);
}

static void test_zc_version_returns_the_headers_version_number(void **state) {
    (void)state;
    assert_int_equal(zc_version(), ZCHAN_VERSION_NUMBER);
    assert_int_equal(zc_version() / 10000, ZCHAN_VERSION_MAJOR);
    assert_int_equal(zc_version() / 100 % 100, ZCHAN_VERSION_MINOR);
    assert_int_equal(zc_version() % 100, ZCHAN_VERSION_PATCH);
}

static void test_zc_version_string_returns_the_headers_version_string(void **state) {
    (void)state;
    assert_non_null(zc_version_string());
    assert_string_equal(zc_version_string(), ZCHAN_VERSION_STRING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_macros_are_the_numbers_of_the_version_string),
        cmocka_unit_test(test_zc_version_returns_the_headers_version_number),
        cmocka_unit_test(test_zc_version_string_returns_the_headers_version_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

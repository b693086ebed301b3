/* status.c: zc_status_str, generated from the same X-macro as the enum. */
#include <zchan/status.h>

const char *zc_status_str(zc_status s) {
    switch (s) {
#define ZC__STATUS_CASE(name, value, meaning) \
    case name:                                \
        return #name;
        ZC_STATUS_MAP(ZC__STATUS_CASE)
#undef ZC__STATUS_CASE
    }
    return "ZC_UNKNOWN";
}

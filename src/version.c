/* version.c: zc_version and zc_version_string, the library's version as built. */
#include <zchan/zchan.h>

unsigned zc_version(void) { return ZCHAN_VERSION_NUMBER; }

const char *zc_version_string(void) { return ZCHAN_VERSION_STRING; }

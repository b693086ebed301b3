/* version.c: zc_version and zc_version_string, the library's version as built, and the
 * symbol that ties programs built with zchan/inline.h to this layout. */
#include <zchan/zchan.h>

#include "check.h" /* ZCHAN_CHECKED */

unsigned zc_version(void) { return ZCHAN_VERSION_NUMBER; }

const char *zc_version_string(void) { return ZCHAN_VERSION_STRING; }

#if !ZCHAN_CHECKED
/* The layout zchan/bits/ describes (zchan/inline.h references it). Bump the number here,
 * in zchan/inline.h and in the zc__v1_ entries (zchan/bits/fast.h) with any change of
 * what those headers read: a struct, an offset, a field's meaning. The checked build
 * defines none of them: its handles carry stamps the inline paths do not check. */
ZC_EXPORT const char zc__layout_v1 = 1;
#endif

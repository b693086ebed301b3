/* wake.c: the thread-local of wake.h. */
#include "wake.h"

ZC__TLS_FAST zc__wake_frame *zc__wake_current;

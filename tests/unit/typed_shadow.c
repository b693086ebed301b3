/* Compile-only test of zchan/typed.h: a file whose own file-scope names are those a
 * generated function could use for its parameters or locals must still compile with
 * -Wshadow -Werror (as C11 and as C++17): the generated code must not shadow them
 * (handles named tx/rx and a counter named sent, declared before ZC_DEFINE_CHANNEL,
 * among them). */
#include <stddef.h>

#include <zchan/typed.h>

extern int tx, rx, msg, msgs, out, n, max, got, sent, flags, cap, f, p, c, w, drop_msg,
    drop_ctx, timeout_ns, cfg;
#ifndef __cplusplus /* g++ defines _GNU_SOURCE, and glibc's sched.h then declares clone() */
extern int clone;
#endif

typedef struct point {
    int x, y;
} point;

ZC_DEFINE_CHANNEL(points, point)
#if defined(ZCHAN_HAS_BROADCAST)
extern int mode, missed, clone_msg, ctx;
ZC_DEFINE_BROADCAST(point_feeds, point)
#endif

/*
 * hooks.h: named race windows for tests (build option ZCHAN_TEST_HOOKS).
 *
 * With the option OFF (the default) every ZC__HOOK() compiles to nothing. With it ON,
 * each hook point calls the function a test installed with zc__test_set_hook(), on the
 * thread that reached the point, so a stress test can widen the window there.
 * zc__test_set_start_lap() makes counters start a few laps before they wrap.
 */
#ifndef ZCHAN_SRC_HOOKS_H
#define ZCHAN_SRC_HOOKS_H

#include <stddef.h>

#include "zchan_build.h"
#include <zchan/status.h>

typedef enum zc__hook_point {
    ZC__HOOK_SLOT_CLAIMED,      /* a send or receive won its slot, before the copy */
    ZC__HOOK_SLOT_PUBLISHED,    /* the slot's stamp / state was published */
    ZC__HOOK_WAIT_REGISTERING,  /* a poll found the queue not ready, before it registers */
    ZC__HOOK_WAITER_REGISTERED, /* a future linked its waiter, before the re-check */
    ZC__HOOK_QUEUE_RECHECKED,   /* a future re-checked the queue and will return PENDING */
    ZC__HOOK_WAITER_NOTIFIED,   /* a notifier unlinked a waiter, before calling wake */
    ZC__HOOK_SEGMENT_INSTALLED, /* a sender installed the next segment */
    ZC__HOOK_SEGMENT_FREED,     /* a segment is about to be freed or kept as spare */
    ZC__HOOK_CLOSE_MARKED,      /* close set the mark, before waking the waiters */
    ZC__HOOK_WAIT_STALLED,      /* a poll met a peer mid-operation; before it steps off */
    ZC__HOOK_POINTS
} zc__hook_point;

/* zchan/bits/ring.h's first attempts call ZC__HOOK, which it makes a no-op where this
 * file has not defined it (zchan/inline.h): the library includes this file first. */
#ifdef ZCHAN_BITS_RING_H
#error "src/hooks.h must be included before zchan/bits/ring.h"
#endif

#if ZCHAN_TEST_HOOKS
/* Install fn (NULL: none); called as fn(point, ctx) at every hook point reached. */
ZC_EXPORT void zc__test_set_hook(void (*fn)(zc__hook_point point, void *ctx), void *ctx);
/* Channels created afterwards start laps_before_wrap laps before their counters wrap
 * (0: start at 0, the normal case). */
ZC_EXPORT void zc__test_set_start_lap(size_t laps_before_wrap);
/* The start position for a queue whose lap is lap_size positions (internal). */
size_t zc__test_start_pos(size_t lap_size);
void zc__test_hook(zc__hook_point point);
#define ZC__HOOK(point) zc__test_hook(point)
#define ZC__START_POS(lap_size) zc__test_start_pos(lap_size)
#else
#define ZC__HOOK(point) ((void)0)
#define ZC__START_POS(lap_size) ((size_t)0)
#endif

#endif /* ZCHAN_SRC_HOOKS_H */

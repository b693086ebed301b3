/* hooks.c: the test hook registry (compiled only with ZCHAN_TEST_HOOKS=ON). */
#include "hooks.h"

#include <stdatomic.h>

typedef void (*hook_fn)(zc__hook_point, void *);

static _Atomic(hook_fn) the_hook;
static void *_Atomic the_ctx;
static _Atomic size_t start_laps;

void zc__test_set_hook(hook_fn fn, void *ctx) {
    /* Release/acquire: a thread that sees the new function also sees its context. Tests
     * install hooks before starting threads; the atomics only keep TSan informed. */
    atomic_store_explicit(&the_ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&the_hook, fn, memory_order_release);
}

void zc__test_hook(zc__hook_point point) {
    hook_fn fn = atomic_load_explicit(&the_hook, memory_order_acquire); /* pairs above */
    if (fn) fn(point, atomic_load_explicit(&the_ctx, memory_order_relaxed));
}

void zc__test_set_start_lap(size_t laps_before_wrap) {
    atomic_store_explicit(&start_laps, laps_before_wrap, memory_order_relaxed); /* a setting */
}

size_t zc__test_start_pos(size_t lap_size) {
    /* Unsigned wrap-around is the point: 0 - n laps is n laps before the counter wraps. */
    return (size_t)0 - atomic_load_explicit(&start_laps, memory_order_relaxed) * lap_size;
}

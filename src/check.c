/*
 * check.c: the checked build's reports and its quarantine of dropped handles (check.h).
 * Empty unless ZCHAN_CHECKED.
 */
#include "check.h"

#if ZCHAN_CHECKED

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "wake.h"

void zc__misuse(const char *call, const void *obj, const char *what) {
    fprintf(stderr, "zchan: %s: %s (%p)\n", call, what, obj);
    fflush(stderr);
    abort();
}

void zc__check_handle(const uintptr_t *stamp, const void *handle, const char *call) {
    uintptr_t s = *stamp;
    if (s == ZC__STAMP_SENDER || s == ZC__STAMP_RECEIVER || s == ZC__STAMP_WEAK_SENDER ||
        s == ZC__STAMP_WEAK_RECEIVER)
        return;
    zc__misuse(call, handle,
               s == ZC__STAMP_DEAD ? "handle used after its drop (use after drop, or a "
                                     "second drop)"
                                   : "not a live zchan handle (never made by zchan, or its "
                                     "memory was overwritten)");
}

/* The last ZC__QUARANTINE dropped handles, oldest at `next` once full. */
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static void *quarantined[ZC__QUARANTINE];
static size_t next;

void zc__quarantine(void *p) {
    pthread_mutex_lock(&quarantine_lock);
    void *oldest = quarantined[next];
    quarantined[next] = p;
    next = (next + 1) % ZC__QUARANTINE;
    pthread_mutex_unlock(&quarantine_lock);
    free(oldest); /* NULL until the quarantine is full */
}

/* When the library is unloaded (dlclose, or the process's exit): the memory kept goes
 * with it, so that nothing it held is left unreachable. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((destructor)) static void quarantine_empty(void) {
    pthread_mutex_lock(&quarantine_lock);
    for (size_t i = 0; i < ZC__QUARANTINE; i++) {
        free(quarantined[i]);
        quarantined[i] = NULL;
    }
    pthread_mutex_unlock(&quarantine_lock);
}
#endif

void zc__check_not_in_wake(const char *call) {
    if (zc__in_wake())
        zc__misuse(call, (const void *)(zc__wake_current ? zc__wake_current->ctx : NULL),
                   "would wait inside a wake callback (wake ctx shown): a waker must not "
                   "block, and this thread may be the one that must deliver what it "
                   "waits for");
}

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int zc__check_unused;

#endif /* ZCHAN_CHECKED */

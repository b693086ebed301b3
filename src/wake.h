/*
 * wake.h: the wake a thread is inside: a waiter list's, as a waker of the library's own
 * sees it, and a future's self-wake.
 *
 * The waiter list (waitlist.c) records every wake it makes in a frame on its own stack
 * while the wake runs. A wake function of the library's own that is done with its
 * context before it returns (the parker's: futex_wake needs only an address) says so
 * with zc__wake_release(wake, ctx), and the woken future goes on at once. The frame
 * knows nothing of parkers, and the parker nothing of waiter lists.
 */
#ifndef ZCHAN_SRC_WAKE_H
#define ZCHAN_SRC_WAKE_H

#include <stdbool.h>

#include <zchan/waker.h>

#include "atomic.h"

typedef struct zc__wake_frame zc__wake_frame;
struct zc__wake_frame {
    void (*wake)(void *ctx);               /* the wake in progress: its function */
    const void *ctx;                       /* and its context */
    void (*release)(zc__wake_frame *self); /* makes the wake's node WOKEN now */
};

/* The innermost wake this thread is inside; NULL outside every wake. Thread-local:
 * read and written by this thread only. */
extern ZC__TLS_FAST zc__wake_frame *zc__wake_current;

/* Called by the wake function `wake` once it no longer touches ctx: if the wake this
 * thread is inside is {wake, ctx} itself, release it. Otherwise nothing: a context alone
 * does not say whose wake this is (a user's wake whose context begins with a parker,
 * calling the parker's wake, is still running when the parker's returns). */
static inline void zc__wake_release(void (*wake)(void *), const void *ctx) {
    zc__wake_frame *f = zc__wake_current;
    if (f && f->wake == wake && f->ctx == ctx) f->release(f);
}

/* The self-wake of a poll whose attempt met a peer mid-operation: it calls its own waker
 * to be polled again soon. An executor may poll from inside that wake, so zc__wake_self
 * counts the self-wakes this thread is inside, and a poll made from inside one
 * (zc__in_self_wake) waits the peer out with a backoff rather than nest one wake deeper
 * per round. */
void zc__wake_self(const zc_waker *w);
bool zc__in_self_wake(void);

/* Whether this thread is inside a wake the library is making: a waiter list's notify or
 * pass-on (a frame), or a self-wake. */
static inline bool zc__in_wake(void) { return zc__wake_current || zc__in_self_wake(); }

#endif /* ZCHAN_SRC_WAKE_H */

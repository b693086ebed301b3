/* wake.c: the thread-locals of wake.h, and the self-wake. */
#include "wake.h"

ZC__TLS_FAST zc__wake_frame *zc__wake_current;

/* Self-wakes this thread is inside. Only this thread reads or writes it. */
static _Thread_local unsigned self_wakes;

void zc__wake_self(const zc_waker *w) {
    self_wakes++;
    w->wake(w->ctx);
    self_wakes--;
}

bool zc__in_self_wake(void) { return self_wakes > 0; }

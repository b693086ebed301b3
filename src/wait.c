/*
 * wait.c: the one wait primitive (wait.h).
 *
 * No atomics of its own: the orderings are waitlist.c's ([F2], [N2], [W1]/[W2]) and
 * those of the queue attempts and wakes in chan.h ([F1]).
 */
#include "wait.h"

#include "backoff.h"
#include "hooks.h"

/* Self-wakes this thread is inside (wait.h). Only this thread reads or writes it. */
static _Thread_local unsigned self_wakes;

void zc__wake_self(const zc_waker *w) {
    self_wakes++;
    w->wake(w->ctx);
    self_wakes--;
}

bool zc__in_self_wake(void) { return self_wakes > 0; }

void zc__wait_cancel(zc__chan *ch, zc__side side, zc__waiter *node) {
    switch (side) {
    case ZC__SIDE_RECV: zc__chan_cancel_recv(ch, node); break;
    case ZC__SIDE_SEND: zc__chan_cancel_send(ch, node); break;
    default: zc__waitlist_unregister(&ch->close_waiters, node); break; /* close wakes all */
    }
}

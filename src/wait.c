/*
 * wait.c: the one wait primitive (wait.h).
 *
 * No atomics of its own: the orderings are waitlist.c's ([F2], [N2], [W1]/[W2]) and
 * those of the queue attempts and wakes in chan.h ([F1]).
 */
#include "wait.h"

/* A close wakes every waiter of the closed-event list: nothing to pass on there
 * (zc__wait_pass_on does nothing for it). */
void zc__wait_cancel(zc__chan *ch, zc__side side, zc__waiter *node) {
    if (zc__waitlist_unregister(zc__wait_list(ch, side), node)) zc__wait_pass_on(ch, side);
}

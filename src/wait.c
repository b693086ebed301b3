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

static zc__waitlist *side_list(zc__chan *ch, zc__side side) {
    switch (side) {
    case ZC__SIDE_RECV: return &ch->recv_waiters;
    case ZC__SIDE_SEND: return &ch->send_waiters;
    default: return &ch->close_waiters;
    }
}

void zc__wait_cancel(zc__chan *ch, zc__side side, zc__waiter *node) {
    switch (side) {
    case ZC__SIDE_RECV: zc__chan_cancel_recv(ch, node); break;
    case ZC__SIDE_SEND: zc__chan_cancel_send(ch, node); break;
    default: zc__waitlist_unregister(&ch->close_waiters, node); break; /* close wakes all */
    }
}

static bool final(zc_status s) { return s != ZC_EMPTY && s != ZC_FULL && s != ZC_PENDING; }

zc_status zc__wait_slow(zc__chan *ch, zc__side side, zc__waiter *node, const zc_waker *w,
                        zc__attempt_fn *attempt, void *arg, zc_status s, unsigned owed) {
    zc__waitlist *wl = side_list(ch, side);
    bool registered = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        if (owed > 0 && !final(s)) {
            /* Slots freed (holes skipped) and nothing taken: off the list (a wake-up held
             * was used by this attempt), wake whom the slots are for, wait over again. */
            zc__waitlist_unregister(wl, node);
            zc__wait_pay(ch, side, owed);
            owed = 0;
            registered = false;
        }
        if (s == ZC_EMPTY || s == ZC_FULL) {
            if (registered) {
                ZC__HOOK(ZC__HOOK_QUEUE_RECHECKED);
                return ZC_PENDING;
            }
            zc__waitlist_register(wl, node, w);
            registered = true;
            s = attempt(ch, arg, &owed); /* the re-check */
        } else if (s == ZC_PENDING && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake */
            s = attempt(ch, arg, &owed);
        } else if (s == ZC_PENDING) {
            ZC__HOOK(ZC__HOOK_WAIT_STALLED);
            if (!zc__waitlist_step_off(wl, node) || !registered) zc__wake_self(w);
            return ZC_PENDING;
        } else {
            zc__waitlist_unregister(wl, node); /* a wake-up held was used: not passed on */
            zc__wait_pay(ch, side, owed); /* our node is off the list */
            return s; /* ZC_OK, ZC_CLOSED, ZC_ENOMEM */
        }
    }
}

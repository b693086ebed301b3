/*
 * wait.h: the one wait primitive of the MPMC channel's futures: what a poll does after
 * an attempt that did not complete at once. Send, receive, reserve, batch receive and
 * the closed-event futures are each an attempt function plus this.
 */
#ifndef ZCHAN_SRC_WAIT_H
#define ZCHAN_SRC_WAIT_H

#include "backoff.h"
#include "chan.h"
#include "hooks.h"
#include "wake.h"

/* Which of the channel's waiter lists an operation waits on, and so whom it owes wakes
 * and passes wake-ups on to. */
typedef enum zc__side {
    ZC__SIDE_RECV,  /* receivers: waits for a message; owes senders a wake per slot freed */
    ZC__SIDE_SEND,  /* senders: waits for a free slot; owes a receiver a wake per message */
    ZC__SIDE_CLOSE, /* close events: waits for the close mark; owes nothing, passes nothing */
} zc__side;

/* One attempt of an operation, with its argument: ZC_OK, ZC_CLOSED or ZC_ENOMEM (final);
 * ZC_EMPTY or ZC_FULL (not ready: wait); ZC_PENDING (a peer mid-operation). Adds to
 * *owed the wakes the attempt owes the other side, whatever its status; they are made
 * only once the node is off its list, so that none runs a peer that wakes this future
 * inside its poll. */
typedef zc_status zc__attempt_fn(zc__chan *ch, void *arg, unsigned *owed);

/* Make the wakes an attempt owed the other side ([F1]: after its seq_cst claims; the
 * waiter count looked at here first, so that no call is made while nobody waits). */
static inline void zc__wait_pay(zc__chan *ch, zc__side side, unsigned owed) {
    if (owed == 0) return;
    if (side == ZC__SIDE_RECV && zc__waitlist_has_waiters(&ch->send_waiters))
        zc__chan_wake_senders(ch, owed);
    else if (side == ZC__SIDE_SEND && zc__waitlist_has_waiters(&ch->recv_waiters))
        zc__chan_wake_receivers(ch, owed);
}

/* Take node off side's list for a cancel, passing on a wake-up it held and did not use
 * if a waiter of its kind could use it now (waker rule 4). */
void zc__wait_cancel(zc__chan *ch, zc__side side, zc__waiter *node);

/* Pass a wake-up on to a waiter of side's kind that could use it now (zc__chan_pass_on_*):
 * what a cancel, or a poll that did not use the wake-up it got, does with it. */
static inline void zc__wait_pass_on(zc__chan *ch, zc__side side) {
    if (side == ZC__SIDE_RECV)
        zc__chan_pass_on_recv(ch);
    else if (side == ZC__SIDE_SEND)
        zc__chan_pass_on_send(ch);
}

/* The list side's operations wait on. */
static inline zc__waitlist *zc__wait_list(zc__chan *ch, zc__side side) {
    return side == ZC__SIDE_RECV   ? &ch->recv_waiters
           : side == ZC__SIDE_SEND ? &ch->send_waiters
                                   : &ch->close_waiters;
}

/* A wait's re-check (zc__ready_fn; arg: a zc__wait_look): whether an attempt now could
 * complete (zc__queue_ready; a send that needs `need` slots at once, an all-or-nothing
 * batch: zc__queue_send_ready; close events: the close mark). Changes nothing. */
typedef struct zc__wait_look {
    zc__chan *ch;
    zc__side side;
    size_t need; /* ZC__SIDE_SEND: slots the next attempt needs (0 or 1: one) */
} zc__wait_look;

static inline bool zc__wait_ready(void *arg) {
    const zc__wait_look *l = arg;
    if (l->side == ZC__SIDE_CLOSE) return zc__chan_is_closed(l->ch);
    if (l->side == ZC__SIDE_RECV) return zc__queue_ready(&l->ch->q, true);
    return zc__queue_send_ready(&l->ch->q, l->need);
}

/* Wait on side's list with node and waker w, after a first attempt that returned s and
 * owed `owed`:
 *   - not ready: register node unless the re-check, made under the list's lock after
 *     the registration's [F2] (zc__waitlist_register_unless with zc__wait_ready), says
 *     an attempt could complete: then attempt again, node off the list; else
 *     ZC_PENDING, node linked. An attempt is never made with node linked, so no wake
 *     meant for what comes after it reaches a poll that completes: a wake-up the node
 *     holds came before its attempt and is used by it (waker rule 5), and none is
 *     passed on (docs/architecture.md, "How a wake-up is kept or passed on");
 *   - a peer mid-operation: step off the list keeping any wake-up held from an earlier
 *     poll (zc__waitlist_step_off), call w, and return ZC_PENDING; polled from inside
 *     such a self-wake, back off and attempt again instead (zc__in_self_wake);
 *   - final: take node off the list, make the wakes owed, and return the status.
 * Source: crossbeam-channel's register, is_ready, abort-then-retry order (flavors/,
 * waker.rs), with tokio's Notify for the held wake-up. */
static inline zc_status zc__wait_slow(zc__chan *ch, zc__side side, zc__waiter *node,
                                      const zc_waker *w, zc__attempt_fn *attempt, void *arg,
                                      zc_status s, unsigned owed) {
    zc__waitlist *wl = zc__wait_list(ch, side);
    zc__wait_look look = {ch, side, 1};
    zc__backoff backoff = ZC__BACKOFF_INIT;
    for (;;) {
        if (owed > 0 && (s == ZC_EMPTY || s == ZC_FULL || s == ZC_PENDING)) {
            /* Slots freed (holes skipped) and nothing taken: off the list (a wake-up held
             * was used by this attempt), wake whom the slots are for, wait over again. */
            zc__waitlist_unregister(wl, node);
            zc__wait_pay(ch, side, owed);
            owed = 0;
        }
        if (s == ZC_EMPTY || s == ZC_FULL) {
            ZC__HOOK(ZC__HOOK_WAIT_REGISTERING);
            if (zc__waitlist_register_unless(wl, node, w, zc__wait_ready, &look)) {
                ZC__HOOK(ZC__HOOK_QUEUE_RECHECKED);
                return ZC_PENDING;
            }
            s = attempt(ch, arg, &owed);
        } else if (s == ZC_PENDING && zc__in_self_wake()) {
            zc__backoff_snooze(&backoff); /* polled from inside a self-wake */
            s = attempt(ch, arg, &owed);
        } else if (s == ZC_PENDING) {
            ZC__HOOK(ZC__HOOK_WAIT_STALLED);
            zc__waitlist_step_off(wl, node);
            zc__wake_self(w);
            return ZC_PENDING;
        } else {
            zc__waitlist_unregister(wl, node); /* a wake-up held was used by the attempt */
            zc__wait_pay(ch, side, owed);      /* our node is off the list */
            return s;                          /* ZC_OK, ZC_CLOSED, ZC_ENOMEM */
        }
    }
}

/* zc__wait_slow, but a first attempt that completed for a node that never waited (IDLE)
 * only makes its wakes. */
static inline zc_status zc__wait(zc__chan *ch, zc__side side, zc__waiter *node,
                                 const zc_waker *w, zc__attempt_fn *attempt, void *arg,
                                 zc_status s, unsigned owed) {
    if ((s == ZC_OK || s == ZC_CLOSED) && zc__waitlist_is_idle(node)) {
        zc__wait_pay(ch, side, owed);
        return s;
    }
    return zc__wait_slow(ch, side, node, w, attempt, arg, s, owed);
}

/* A poll: its first attempt, then zc__wait. A node still linked by an earlier poll skips
 * the first attempt and lets the re-check decide (zc__wait_slow), keeping its place. */
static inline zc_status zc__wait_poll(zc__chan *ch, zc__side side, zc__waiter *node,
                                      const zc_waker *w, zc__attempt_fn *attempt, void *arg) {
    unsigned owed = 0;
    zc_status s = zc__waitlist_is_linked(node) ? (side == ZC__SIDE_SEND ? ZC_FULL : ZC_EMPTY)
                                               : attempt(ch, arg, &owed);
    return zc__wait(ch, side, node, w, attempt, arg, s, owed);
}

#endif /* ZCHAN_SRC_WAIT_H */

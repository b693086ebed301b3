/*
 * waitlist.h: the waiter list: register, notify, cancel, wake-up passing.
 *
 * Knows nothing of messages: a list of waiter nodes (zc__waiter, embedded in each
 * caller-allocated future) in FIFO order, a lock around it, and a count of linked nodes
 * that the hot path reads with one atomic load. Notification is readiness-based with
 * unlink-on-notify (Go's sudog queues, tokio's Notify): a notified node is off the list,
 * so register, notify and cancel are all O(1).
 *
 * Node states (zc__waiter.zc__state):
 *   IDLE     not in any list, no notification held
 *   WAITING  linked, waiting
 *   WAKING   unlinked by a notifier whose call of wake() has not returned yet
 *   WOKEN    notified; the notification is held by the node until its owner acts
 */
#ifndef ZCHAN_SRC_WAITLIST_H
#define ZCHAN_SRC_WAITLIST_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/mpmc.h>
#include <zchan/waker.h>

#include "atomic.h"

enum { ZC__IDLE = 0, ZC__WAITING, ZC__WAKING, ZC__WOKEN };

/* zc__waiter.zc__flags, written and read by the node's owner only: the node was linked
 * again by a register that found it WOKEN (see zc__waitlist_unregister_slow). */
#define ZC__REQUEUED 1u

typedef struct zc__waitlist {
    /* Linked (un-notified) nodes. Read on every successful operation of the other side,
     * written only under the lock: its own line, so those reads stay shared hits. */
    ZC_CACHE_ALIGNED _Atomic size_t waiters;
    ZC_CACHE_ALIGNED atomic_bool locked;
    zc__waiter *head; /* oldest waiter; guarded by locked */
    zc__waiter *tail;
    unsigned waking_all; /* notify_all calls in progress; guarded by locked */
    /* Nodes notified whose owner has not registered or unregistered them since: waiters
     * holding a wake-up they have not acted on yet (zc__waitlist_notified). */
    _Atomic size_t notified;
} zc__waitlist;

void zc__waitlist_init(zc__waitlist *wl);

/* A fresh node: not linked, no notification (the links and waker are written when it
 * registers). Relaxed: a future is not shared with anyone until it registers. */
static inline void zc__waiter_init(zc__waiter *n) {
    atomic_store_explicit(ZC__ATOMIC_UINT(n->zc__state), ZC__IDLE, memory_order_relaxed);
    n->zc__prev = n->zc__next = NULL;
    n->zc__flags = 0;
}

/* [F1] The notifier's half of the Dekker pairing: called after a seq_cst RMW that made
 * the resource available. Either this load sees a waiter that registered, or that
 * waiter's re-check (after its [F2]) sees the resource. */
static inline bool zc__waitlist_has_waiters(zc__waitlist *wl) {
    return atomic_load_explicit(&wl->waiters, memory_order_seq_cst) != 0;
}

/* Wake the oldest waiter, if any (outside the lock); with none linked, one seq_cst load
 * and no lock. Returns true if one was woken. */
bool zc__waitlist_notify_one(zc__waitlist *wl);

/* The waiters of wl holding a wake-up they have not acted on (by registering again, or
 * by the unregister of a completion or cancel). A pass-on, and each wake of a
 * notify_owed after its first, is owed only for what there is to take beyond what they
 * will take: each of them, when it acts, looks again (chan.c).
 * seq_cst, as the increments in notify and the decrements of the owners: of two owners
 * acting at once, the later decrement's load sees both. */
static inline size_t zc__waitlist_notified(zc__waitlist *wl) {
    return atomic_load_explicit(&wl->notified, memory_order_seq_cst);
}

/* What a waiter of a list woken now could take (messages, or free slots), read from the
 * queue the list waits on (arg: the channel). */
typedef size_t zc__avail_fn(void *arg);

/* Whether a waiter of wl woken now would find something that the waiters woken and not
 * yet acted will not take: the test of a pass-on.
 * What there is (avail) is read first, the count second (seq_cst): a woken waiter
 * acting in between takes one and lowers the count, so the answer errs towards a wake
 * too many, never one too few. */
static inline bool zc__waitlist_wake_has_work(zc__waitlist *wl, zc__avail_fn *avail,
                                              void *arg) {
    size_t there = avail(arg);
    return there > zc__waitlist_notified(wl);
}

/* Make the wakes owed to waiters of wl for n messages or slots a call has just made
 * available, after the seq_cst claims that made them ([F1]): one waiter woken for each,
 * oldest first, while waiters are linked, and (after the first) while there is more to
 * take (avail(arg), read first) than the waiters this call woke and that have not acted
 * yet will take (the fewer of its wakes so far and `notified`, read second, [N1]): under
 * an executor that polls inside the wake, the first woken waiter's pass-ons may have
 * taken it all (ten freed slots woke nineteen senders, found by a break test). So n
 * messages wake what n single sends would. None is held back for waiters woken before
 * this call and not acted yet: waker rule 4 wants a waiter
 * that can use what the call made available woken within the call, and a woken waiter
 * acts only when its executor polls it, which may be busy or stalled (waiting, say, on
 * what another executor's waiter would do with this message). Sessions 18 and 19 left
 * it to the holders while two of them had not acted (as event-listener's notify(n)):
 * bench row 13a with 512 senders on one executor thread ran at 17 ns a message instead
 * of 34, since the first sender polled refills what the others were woken for; but two
 * woken futures left unpolled held up every other waiter of their side, a thread in a
 * blocking call included (session 19 exempted threads only). As async-channel's
 * notify_additional(1), then. */
void zc__waitlist_notify_owed(zc__waitlist *wl, size_t n, zc__avail_fn *avail, void *arg);

/* A pass-on: wakes the next waiter of a list if there is still something for it (its
 * caller's predicate, checked again), through zc__waitlist_pass_on. */
typedef void zc__pass_on_fn(void *arg);

/* Pass a wake-up on to the oldest waiter of wl: what a woken waiter that completed, or
 * was cancelled, does with a wake-up it did not use, once the caller's predicate says
 * that another waiter could use it (rule 4). Made at once, as a notify_one, unless this
 * thread is inside the wake of such a pass-on of wl: then it is left to the outermost
 * one, which calls again(arg) once its wake has returned. So under an executor that
 * polls inside the wake, a chain of pass-ons (a batch or a commit that lets k waiters
 * through, k waiters cancelled in their wakes) runs one after another, two wakes deep,
 * instead of one level deeper per waiter. The deferred pass-on is still made within the
 * call that made the wake-up, as that pass-on's notify is part of it. */
void zc__waitlist_pass_on(zc__waitlist *wl, zc__pass_on_fn *again, void *arg);

/* Wake every waiter linked now, one at a time (close). A woken waiter that registers
 * again meanwhile (from inside its wake, under an executor that polls there) goes to the
 * back and is not woken again by this call: it registered after the change it was
 * woken for, and its re-check saw that. */
void zc__waitlist_notify_all(zc__waitlist *wl);

/* Make node wait with waker w: link it (at the front if it had been notified and is
 * waiting again, so that it keeps its turn), or refresh its waker if it is still
 * linked. The caller must re-check its condition afterwards ([F2]). */
void zc__waitlist_register(zc__waitlist *wl, zc__waiter *node, const zc_waker *w);

/* Called by a wake function of the library's own (the futex parker's) once it no longer
 * touches ctx: if this thread is inside the notification of a node whose waker context is
 * ctx, the node becomes WOKEN now, so that its owner need not wait for the rest of the
 * wake (a futex_wake system call, which needs only the address). Otherwise nothing. */
void zc__waitlist_wake_done(const void *ctx);

/* Take node out of the list and back to IDLE. Returns true if it holds a wake-up that
 * the caller may owe the next waiter: one its registration absorbed (then *woken, if
 * not NULL, is set: its waker has been called since it registered, and that call is
 * done), or one it held when it registered again (ZC__REQUEUED: a woken waiter that
 * registered again, instead of acting otherwise, re-checked after that, and any wake
 * skipped for it meanwhile (zc__waitlist_notify_owed) is its to pass on). When it
 * returns, no wake of node's waker is running or to come (unless called from inside
 * that very wake). */
bool zc__waitlist_unregister_slow(zc__waitlist *wl, zc__waiter *node, bool *woken);

/* Take node off the list for a poll that returns ZC_PENDING without waiting on it (it
 * met a peer mid-operation and will be polled again soon), keeping any wake-up it holds:
 * the future will be polled again, so that poll, not another waiter, uses it. A node
 * that holds one is left WOKEN (off the list, counted in `notified`): its next poll
 * completes and passes it on if something is left, registers again keeping its turn, or
 * its cancel passes it on (zc__waitlist_unregister_slow). A node that is linked and holds
 * none becomes IDLE. Returns true if the node's waker has been called since its last
 * registration (that call is done): the future is then polled again because of it. */
bool zc__waitlist_step_off(zc__waitlist *wl, zc__waiter *node);

/* Whether node is IDLE: neither linked nor notified. IDLE is only ever entered by the
 * node's owner (the caller), so a true answer is stable. Acquire: a state other than
 * IDLE is examined again under the lock or through [W2] (waitlist.c). */
static inline bool zc__waitlist_is_idle(zc__waiter *node) {
    return atomic_load_explicit(ZC__ATOMIC_UINT(node->zc__state), memory_order_acquire) ==
           ZC__IDLE;
}

/* zc__waitlist_unregister_slow, without its cost for an IDLE node (which holds nothing). */
static inline bool zc__waitlist_unregister_woken(zc__waitlist *wl, zc__waiter *node,
                                                 bool *woken) {
    if (woken) *woken = false;
    return zc__waitlist_is_idle(node) ? false : zc__waitlist_unregister_slow(wl, node, woken);
}

static inline bool zc__waitlist_unregister(zc__waitlist *wl, zc__waiter *node) {
    return zc__waitlist_unregister_woken(wl, node, NULL);
}

#endif /* ZCHAN_SRC_WAITLIST_H */

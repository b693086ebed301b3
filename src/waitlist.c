/*
 * waitlist.c: FIFO waiter list with a wake-in-progress handshake.
 *
 * Sources: readiness notification with unlink-on-notify as in tokio's Notify and Go's
 * channel wait queues; the WAKING/WOKEN handshake follows the Linux futex_q protocol
 * (kernel/futex/waitwake.c: the waker marks a queued waiter done with a release store
 * and never touches it again; the waiter spins while a wake is in flight).
 *
 * Wake-up rules kept here (spec/api.md, waker contract):
 * - wake() is never called under the lock: the notifier unlinks the node and copies its
 *   waker under the lock, marks it WAKING, unlocks, calls wake, then stores WOKEN.
 * - No wake after unregister returns: unregister waits while the node is WAKING.
 * - Inline re-entry: an executor may poll or cancel a future from inside its own wake.
 *   Each notifier records the node it is waking in a frame on its stack, linked to the
 *   frame of the wake it is inside; an unregister or register that finds its node
 *   WAKING and named by any of this thread's frames takes the node over (WOKEN) and
 *   clears the frame, so that its notifier leaves the node alone after wake returns.
 * - Early release: a wake done with its context before it returns calls
 *   zc__wake_release (wake.h), whose frame marks the node WOKEN at once.
 * - Pass-ons in a row: a pass-on (zc__waitlist_pass_on) made inside the wake of another
 *   pass-on of the same list, on this thread, is counted on the outermost such frame,
 *   whose notify makes it once its wake has returned: a chain of pass-ons under an
 *   inline executor runs two wakes deep, not one level deeper per waiter.
 * - One at a time: notify_all pops and wakes nodes one by one; it pops as many as were
 *   linked when it started, and a node registering again meanwhile goes to the back, so
 *   a waiter that registers again from inside its wake is not popped for ever.
 *
 * Ordering map:
 *   [F2] register: seq_cst increment of `waiters` (under the lock), before the caller's
 *        seq_cst re-check of the queue  <->  [F1] notifier: seq_cst RMW on the queue,
 *        then seq_cst load of `waiters`. In the single total order of seq_cst
 *        operations one of the two sees the other: no lost wake-up.
 *   [L1] lock acquire (exchange, acquire) <-> [L2] unlock (store, release): the list,
 *        node links, node states and wakers are guarded by the lock.
 *   [W1] notifier: release-store of WOKEN after wake returns <-> [W2] owner: acquire
 *        load seeing WOKEN: the notifier's wake call is over, the owner may free the task.
 *   [N1] a pass-on's test: seq_cst load of `notified` after the look at the queue
 *        (zc__waitlist_wake_has_work)  <->  [N2] owner: seq_cst decrement of
 *        `notified` (register or unregister of a woken node), before its seq_cst look
 *        at the queue (the re-check). Either the passer sees the count lowered and
 *        wakes, or the holder sees what there is and takes it.
 */
#include "waitlist.h"

#include "backoff.h"
#include "hooks.h"
#include "lock.h"
#include "wake.h"

/* A wake this thread is inside, on the notifier's stack. */
struct waking {
    zc__wake_frame base; /* first: zc__wake_current points at the innermost */
    zc__node *node;      /* NULL once taken over or once the wake has returned */
    zc__waitlist *wl;    /* the list the node was on */
    bool passing;        /* the notify is a pass-on */
    bool in_wake;        /* false once the wake returned (deferred pass-ons run) */
    unsigned passes;     /* pass-ons deferred to this frame, made with again(again_arg) */
    zc__pass_on_fn *again;
    void *again_arg;
    struct waking *outer; /* the wake this one was made from; NULL: none */
};

static inline _Atomic unsigned int *node_state(zc__node *n) { return ZC__ATOMIC_UINT(n->state); }

/* The innermost wake this thread is inside; NULL outside every wake. */
static inline struct waking *innermost(void) { return (struct waking *)zc__wake_current; }

/* The frame's early release (wake.h): the node becomes WOKEN now. */
static void release_frame(zc__wake_frame *base) {
    struct waking *f = (struct waking *)base;
    zc__node *n = f->node;
    if (!n) return;
    f->node = NULL; /* the notifier leaves the node alone from here on */
    /* [W1] release, as in notify: the rest of this wake touches nothing of the owner's,
     * so the owner may return (and free its parker) now. */
    atomic_store_explicit(node_state(n), ZC__WOKEN, memory_order_release);
}

/* [L1] acquire / [L2] release (lock.h): the list, node links, states and wakers. */
static void lock(zc__waitlist *wl) { zc__lock(&wl->locked); }
static void unlock(zc__waitlist *wl) { zc__unlock(&wl->locked); }

void zc__waitlist_init(zc__waitlist *wl) {
    atomic_init(&wl->waiters, 0);
    atomic_init(&wl->locked, false);
    wl->head = wl->tail = NULL;
    wl->waking_all = 0;
    atomic_init(&wl->notified, 0);
}

static void link_node(zc__waitlist *wl, zc__node *n, bool front) {
    if (front) {
        n->prev = NULL;
        n->next = wl->head;
        if (wl->head) wl->head->prev = n; else wl->tail = n;
        wl->head = n;
    } else {
        n->next = NULL;
        n->prev = wl->tail;
        if (wl->tail) wl->tail->next = n; else wl->head = n;
        wl->tail = n;
    }
    /* [F2] seq_cst: see the map. */
    atomic_fetch_add_explicit(&wl->waiters, 1, memory_order_seq_cst);
}

static void unlink_node(zc__waitlist *wl, zc__node *n) {
    if (n->prev) n->prev->next = n->next; else wl->head = n->next;
    if (n->next) n->next->prev = n->prev; else wl->tail = n->prev;
    n->prev = n->next = NULL;
    /* A plain store, relaxed: the count is written only under the lock, which orders
     * this store after every increment before it. A lower count cannot hide a waiter
     * from [F1]: it takes away only n, no longer waiting, and a node linked later is
     * counted by its own seq_cst increment ([F2]), which the lock orders after this. */
    size_t waiters = atomic_load_explicit(&wl->waiters, memory_order_relaxed);
    atomic_store_explicit(&wl->waiters, waiters - 1, memory_order_relaxed);
}

/* Wait until no wake of n is in flight. Inside n's own wake, take the node over. */
static void wait_not_waking(zc__node *n) {
    /* [W2] acquire pairs with [W1]. */
    if (atomic_load_explicit(node_state(n), memory_order_acquire) != ZC__WAKING) return;
    for (struct waking *f = innermost(); f; f = f->outer) {
        if (f->node != n) continue;
        /* Inside n's wake: take the node over (the frame tells the notifier). Relaxed:
         * same thread. */
        f->node = NULL;
        atomic_store_explicit(node_state(n), ZC__WOKEN, memory_order_relaxed);
        return;
    }
    zc__backoff b = ZC__BACKOFF_INIT;
    while (atomic_load_explicit(node_state(n), memory_order_acquire) == ZC__WAKING) /* [W2] */
        zc__backoff_snooze(&b);
}

#if ZCHAN_CHECKED
/* An init's look at the stamp reads memory the caller may never have written (a fresh
 * future): under valgrind's memcheck, say that this is meant (a no-op elsewhere). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define LOOK_AT_FRESH(p) VALGRIND_MAKE_MEM_DEFINED((p), sizeof *(p))
#endif
#endif
#ifndef LOOK_AT_FRESH
#define LOOK_AT_FRESH(p) ((void)0)
#endif

static uintptr_t node_stamp(zc__node *n, bool pending) {
    return (uintptr_t)n ^ (pending ? ZC__STAMP_NODE_PENDING : ZC__STAMP_NODE_IDLE);
}

/* The owner's mark of its node entering (pending) or leaving IDLE. */
#define MARK(n, pending) ((n)->check = node_stamp((n), (pending)))

void zc__waiter_check_init(zc__waiter *w, const char *call) {
    zc__node *n = zc__node_of(w);
    LOOK_AT_FRESH(&n->check);
    if (n->check == node_stamp(n, true))
        zc__misuse(call, w, "future initialised again while pending (registered, or woken "
                            "and not yet polled): cancel it first");
    MARK(n, false);
}

void zc__waiter_check(zc__waiter *w, const char *call) {
    zc__node *n = zc__node_of(w);
    if (n->check == node_stamp(n, false) || n->check == node_stamp(n, true)) return;
    if ((n->check & 3) == (ZC__STAMP_NODE_PENDING & 3))
        zc__misuse(call, w, "future moved in memory while pending, or its memory overwritten "
                            "(a pending future must stay where it was polled)");
    MARK(n, false); /* an idle future may move */
}

void zc__waitlist_check_none_pending(zc__waitlist *const *lists, size_t n, const char *call,
                                     const void *chan) {
    /* Relaxed: the channel's last handle is going, after the acquire of its drop; nobody
     * else touches the lists, and the counts are final. */
    for (size_t i = 0; i < n; i++)
        if (atomic_load_explicit(&lists[i]->waiters, memory_order_relaxed) != 0 ||
            atomic_load_explicit(&lists[i]->notified, memory_order_relaxed) != 0)
            zc__misuse(call, chan, "channel freed with futures still pending on it "
                                   "(registered, or woken and not yet polled): complete or "
                                   "cancel every future before the last handle is dropped");
}

/* A linked node that no longer holds its pending stamp: its memory was freed or reused
 * while it was registered. Under the list's lock, as the owner's marks of a linked node. */
static void check_linked(zc__node *n, const zc__node *prev) {
    /* A node links back to the one a walk from the head came from (the oldest to none),
     * and a linked node is WAITING (relaxed: under the lock, as every write of a linked
     * node's state); memory freed and reused breaks one of these, or the stamp (an
     * allocator's free writes its links at the start). Nothing is read through a link. */
    if (n->check != node_stamp(n, true) || n->prev != prev ||
        atomic_load_explicit(node_state(n), memory_order_relaxed) != ZC__WAITING)
        zc__misuse("zchan (waking a waiter)", n,
                   "a pending future's memory was freed or overwritten while it was "
                   "registered: cancel a future before freeing it");
}
#else
#define MARK(n, pending) ((void)0)
#define check_linked(n, prev) ((void)(prev))
#endif

/* Unlink n, which the caller found linked under the lock, as notified: WAKING, counted
 * in `notified`, its waker copied into *t for the wake made after the lock. */
static void take_node(zc__waitlist *wl, zc__node *n, zc__taken *t) {
    unlink_node(wl, n);
    /* seq_cst: read by pass-ons (zc__waitlist_notified); the owner takes it off. */
    atomic_fetch_add_explicit(&wl->notified, 1, memory_order_seq_cst);
    *t = (zc__taken){wl, n, n->waker};
    /* Relaxed: under the lock; the owner reads it under the lock or through [W2]. */
    atomic_store_explicit(node_state(n), ZC__WAKING, memory_order_relaxed);
}

bool zc__waitlist_take(zc__waitlist *wl, zc__take_fn *take, void *arg, zc__taken *t) {
    /* [F1] no waiter linked: nothing to take, and no lock taken. Every caller comes after
     * the seq_cst operation that made the resource available or found it there, so a
     * waiter that links after this load finds the resource in its re-check ([F2]). */
    if (!zc__waitlist_has_waiters(wl)) return false;
    lock(wl);
    zc__node *n = wl->head, *prev = NULL;
    for (; n; prev = n, n = n->next) {
        check_linked(n, prev); /* before take reads what its owner keeps beside it */
        if (!take || take(n, arg)) break;
    }
    if (n) take_node(wl, n, t);
    unlock(wl);
    return n != NULL;
}

/* The wake of a taken node, in a frame (see the file comment); passing: a pass-on. */
static void wake_taken(const zc__taken *t, bool passing) {
    ZC__HOOK(ZC__HOOK_WAITER_NOTIFIED);
    struct waking frame = {{t->waker.wake, t->waker.ctx, release_frame}, t->node, t->wl,
                           passing, true, 0, NULL, NULL, innermost()};
    zc__wake_current = &frame.base;
    t->waker.wake(t->waker.ctx);
    frame.in_wake = false;
    /* Our wake call is over: the node becomes WOKEN ([W1]) unless the wake released it
     * early. The pass-ons deferred to this notify then run one after the other; the
     * frame stays on the chain (with no node) while they run, so those their wakes defer
     * come here too. */
    release_frame(&frame.base);
    while (frame.passes > 0) {
        frame.passes--;
        frame.again(frame.again_arg);
    }
    zc__wake_current = frame.outer ? &frame.outer->base : NULL;
}

void zc__waitlist_wake_taken(const zc__taken *t) { wake_taken(t, false); }

/* zc__waitlist_notify_one (the oldest taken, then woken); passing: the notify is a
 * pass-on (see the frame). */
static bool notify(zc__waitlist *wl, bool passing) {
    zc__taken t;
    if (!zc__waitlist_take(wl, NULL, NULL, &t)) return false;
    wake_taken(&t, passing);
    return true;
}

bool zc__waitlist_notify_one(zc__waitlist *wl) { return notify(wl, false); }

void zc__waitlist_notify_n(zc__waitlist *wl, size_t n) {
    /* notify looks at the waiter count first ([F1]): the loop stops once none is left. */
    while (n-- > 0 && notify(wl, false)) {
    }
}

void zc__waitlist_pass_on(zc__waitlist *wl, zc__pass_on_fn *again, void *arg) {
    struct waking *outermost = NULL;
    for (struct waking *f = innermost(); f; f = f->outer)
        if (f->wl == wl && f->passing) outermost = f;
    /* None, or the one whose deferred pass-on this is (its wake is over): notify now. */
    if (!outermost || (outermost == innermost() && !outermost->in_wake)) {
        notify(wl, true);
        return;
    }
    outermost->passes++;
    outermost->again = again; /* the same for every pass-on of one list */
    outermost->again_arg = arg;
}

void zc__waitlist_notify_all(zc__waitlist *wl) {
    lock(wl);
    /* Relaxed: written only under the lock we hold. */
    size_t n = atomic_load_explicit(&wl->waiters, memory_order_relaxed);
    wl->waking_all++; /* those that register again meanwhile go to the back */
    unlock(wl);
    /* The n linked now are in front of every node linked from here on, so n pops reach
     * each of them (one cancelled meanwhile lets a later node get an extra wake). Not
     * "until empty": see "One at a time" above. */
    while (n-- > 0 && zc__waitlist_notify_one(wl)) {
    }
    lock(wl);
    wl->waking_all--;
    unlock(wl);
}

bool zc__waitlist_register_unless(zc__waitlist *wl, zc__waiter *storage, const zc_waker *w,
                                  zc__ready_fn *ready, void *arg) {
    zc__node *node = zc__node_of(storage);
    for (;;) {
        wait_not_waking(node);
        lock(wl);
        /* Acquire: pairs with [W1]. WOKEN is stored after the notifier's unlock, so the
         * lock alone does not order its wake call before our reuse of the node. */
        unsigned st = atomic_load_explicit(node_state(node), memory_order_acquire);
        if (st == ZC__WAKING) { /* notified between our check and the lock */
            unlock(wl);
            continue;
        }
        /* A woken node keeps its turn at the front, but not during a notify_all. [F2]:
         * the count's seq_cst increment, before the look. */
        if (st != ZC__WAITING) link_node(wl, node, st == ZC__WOKEN && wl->waking_all == 0);
        /* The re-check, under the lock: no notifier takes the node between the look and
         * what follows it, so a node that was ever linked for this look holds no wake-up
         * for what the look saw. Ready: off the list again, a wake-up held kept. */
        if (ready && ready(arg)) {
            unlink_node(wl, node);
            if (st == ZC__WAITING) {
                /* Relaxed: under the lock, which notifiers take before reading it. */
                atomic_store_explicit(node_state(node), ZC__IDLE, memory_order_relaxed);
                MARK(node, false);
            }
            unlock(wl);
            return false;
        }
        if (st != ZC__WAITING) {
            /* A woken node uses its wake-up by registering again. [N2] seq_cst. */
            if (st == ZC__WOKEN) atomic_fetch_sub_explicit(&wl->notified, 1, memory_order_seq_cst);
            /* Relaxed: under the lock, which notifiers take before reading the state. */
            atomic_store_explicit(node_state(node), ZC__WAITING, memory_order_relaxed);
            MARK(node, true);
            node->waker = *w;
        } else if (node->waker.wake != w->wake || node->waker.ctx != w->ctx) {
            node->waker = *w; /* a later poll replaces the waker */
        }
        unlock(wl);
        ZC__HOOK(ZC__HOOK_WAITER_REGISTERED);
        return true;
    }
}

/* Take node, seen WAITING, off the list and back to IDLE: true; false if a notifier
 * unlinked it first (it is WAKING or WOKEN now). */
static bool unlink_waiting(zc__waitlist *wl, zc__node *node) {
    lock(wl);
    /* Relaxed: under the lock, which notifiers take before reading or writing it. */
    bool waiting = atomic_load_explicit(node_state(node), memory_order_relaxed) == ZC__WAITING;
    if (waiting) {
        unlink_node(wl, node);
        atomic_store_explicit(node_state(node), ZC__IDLE, memory_order_relaxed);
        MARK(node, false);
    }
    unlock(wl);
    return waiting;
}

bool zc__waitlist_unregister_slow(zc__waitlist *wl, zc__waiter *storage) {
    /* Off the list, or WOKEN and holding its wake-up (zc__waitlist_step_off). */
    if (!zc__waitlist_step_off(wl, storage)) return false;
    zc__node *node = zc__node_of(storage);
    atomic_store_explicit(node_state(node), ZC__IDLE, memory_order_relaxed); /* owner only */
    MARK(node, false);
    /* Its wake-up is acted on: used, or passed on by the caller. [N2] seq_cst: before
     * the caller's look at the queue and at the count (zc__waitlist_notified). */
    atomic_fetch_sub_explicit(&wl->notified, 1, memory_order_seq_cst);
    return true;
}

bool zc__waitlist_step_off(zc__waitlist *wl, zc__waiter *storage) {
    zc__node *node = zc__node_of(storage);
    /* Acquire: as zc__waitlist_is_idle; a linked node is examined again under the lock. */
    unsigned st = atomic_load_explicit(node_state(node), memory_order_acquire);
    if (st == ZC__IDLE) return false;
    if (st == ZC__WAITING && unlink_waiting(wl, node)) return false;
    wait_not_waking(node); /* now WOKEN, and kept so: the next poll uses the wake-up */
    return true;
}

/*
 * waitlist.h: the waiter list: register, notify, cancel, wake-up passing.
 *
 * Knows nothing of messages: a list of waiter nodes (zc__waiter, embedded in each
 * caller-allocated future) in FIFO order, a lock around it, and a count of linked nodes
 * that the hot path reads with one atomic load. A notified node is off the list, so
 * register, notify and cancel are all O(1) (sources and ordering map: waitlist.c).
 *
 * One wake-up per thing made available (waker rules 4 and 5): a call that makes n
 * messages or slots available wakes up to n linked waiters, one each (notify_n). A woken
 * waiter holds its wake-up (WOKEN, counted in `notified`) until its owner acts on it: a
 * poll that registers again, or attempts, uses it; a cancel passes it on (pass_on) if
 * another waiter could use it; a poll that steps off to be polled again soon keeps it
 * (step_off). A poll of wait.h (or of batch.c's send) attempts only with its node off
 * the list (register_unless takes it off when the re-check finds the queue ready), so a
 * wake-up its node holds came before the attempt that uses it. So every wake is owed to
 * one message, one slot, a close, or a wake-up passed on unused: by a cancel, by an
 * all-or-nothing batch send that found too few slots (batch.c), or by a select for a
 * case it did not choose (select.c).
 *
 * Node states (zc__node.state):
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
#include <zchan/bits/node.h>

#include <stdalign.h>

#include "atomic.h"
#include "check.h"

enum { ZC__IDLE = 0, ZC__WAITING, ZC__WAKING, ZC__WOKEN };

/* The waiter node, in the storage a future reserves for it (zc__waiter, zchan/mpmc.h,
 * whose fields no caller touches): only this layer reads or writes it, always through
 * this type (may_alias: the storage's declared type is the public one). */
typedef struct zc__node {
    struct zc__node *prev;
    struct zc__node *next;
    zc_waker waker;
    unsigned int state; /* a ZC__ state; accessed atomically (ZC__ATOMIC_UINT) */
    /* Checked build: the node's own address ^ ZC__STAMP_NODE_IDLE or _PENDING (check.h),
     * written by its owner when the node leaves or enters IDLE, under the list's lock
     * while it is linked. Unused otherwise. */
    uintptr_t check;
}
#if defined(__GNUC__) || defined(__clang__)
__attribute__((may_alias))
#endif
zc__node;

_Static_assert(sizeof(zc__node) <= sizeof(zc__waiter), "the node fits its storage");
_Static_assert(alignof(zc__node) <= alignof(zc__waiter), "the storage aligns the node");

/* zchan/bits/fast.h finds the state by offset and reads IDLE as 0. */
_Static_assert(offsetof(zc__node, state) == ZC__FAST_NODE_STATE, "fast.h: the node's state");
_Static_assert(ZC__IDLE == 0, "fast.h: idle is 0");

static inline zc__node *zc__node_of(zc__waiter *w) { return (zc__node *)(void *)w; }

typedef struct zc__waitlist {
    /* Linked (un-notified) nodes. Read on every successful operation of the other side,
     * written only under the lock: the owner keeps the list on the line of the end that
     * reads it (chan.h), so that a registration moves that line once. */
    _Atomic size_t waiters;
    /* Nodes notified whose owner has not registered or unregistered them since: waiters
     * holding a wake-up they have not acted on yet (zc__waitlist_notified). */
    _Atomic size_t notified;
    zc__node *head; /* oldest waiter; guarded by locked */
    zc__node *tail;
    unsigned waking_all; /* notify_all calls in progress; guarded by locked */
    atomic_bool locked;
} zc__waitlist;

void zc__waitlist_init(zc__waitlist *wl);

#if ZCHAN_CHECKED
/* The checked build's node checks (check.h), made by the public call named: at a
 * future's init, whether its memory holds a node of this address that is still pending
 * (then abort: initialised again while pending), and stamp it IDLE; at a poll or cancel,
 * whether the node holds its own address's stamp (else, if the stamp says pending, it
 * was moved or overwritten while pending: abort; an idle node may move, and is stamped
 * again). */
void zc__waiter_check_init(zc__waiter *w, const char *call);
void zc__waiter_check(zc__waiter *w, const char *call);

/* The checked build's look at a channel's n waiter lists as call frees its memory (chan:
 * the channel, for the report): a node linked, or woken and not acted on, is a future
 * still pending there, which aborts. */
void zc__waitlist_check_none_pending(zc__waitlist *const *lists, size_t n, const char *call,
                                     const void *chan);

/* The checked build's look at a future f (NULL passes: the call answers ZC_EINVAL) at
 * the start of a public poll or cancel: its node where its init left it, and its handle
 * h live (check.h). Nothing in other builds. */
#define ZC__CHECK_FUTURE(f, h)                                                             \
    ((f) ? (zc__waiter_check(&(f)->zc__node, __func__), ZC__CHECK_HANDLE(h)) : (void)0)
#else
#define ZC__CHECK_FUTURE(f, h) ((void)0)
#endif

/* A fresh node: not linked, no notification (the links and waker are written when it
 * registers). Relaxed: a future is not shared with anyone until it registers. call: the
 * public init, for the checked build's report (zc__waiter_init passes its caller's). */
static inline void zc__waiter_init_at(zc__waiter *w, const char *call) {
#if ZCHAN_CHECKED
    zc__waiter_check_init(w, call);
#else
    (void)call;
#endif
    zc__fast_node_init(w);
}
#define zc__waiter_init(w) zc__waiter_init_at((w), __func__)

/* [F1] The notifier's half of the Dekker pairing: called after a seq_cst RMW that made
 * the resource available. Either this load sees a waiter that registered, or that
 * waiter's re-check (after its [F2]) sees the resource. */
static inline bool zc__waitlist_has_waiters(zc__waitlist *wl) {
    return atomic_load_explicit(&wl->waiters, memory_order_seq_cst) != 0;
}

/* Wake the oldest waiter, if any (outside the lock); with none linked, one seq_cst load
 * and no lock. Returns true if one was woken. */
bool zc__waitlist_notify_one(zc__waitlist *wl);

/* The waiters of wl holding a wake-up they have not acted on. seq_cst ([N1]/[N2]). */
static inline size_t zc__waitlist_notified(zc__waitlist *wl) {
    return atomic_load_explicit(&wl->notified, memory_order_seq_cst);
}

/* What a waiter of a list woken now could take (messages, or free slots), read from the
 * queue the list waits on (arg: the channel). */
typedef size_t zc__avail_fn(void *arg);

/* The test of a pass-on: whether there is more to take (avail) than the waiters woken
 * and not yet acted will take. avail is read first, the count second ([N1]), so the
 * answer errs towards a wake too many, never one too few. */
static inline bool zc__waitlist_wake_has_work(zc__waitlist *wl, zc__avail_fn *avail,
                                              void *arg) {
    size_t there = avail(arg);
    return there > zc__waitlist_notified(wl);
}

/* Make the wakes owed for n messages or slots a call has just made available, after the
 * seq_cst claims that made them ([F1]): the n oldest waiters linked, one at a time. None
 * is held back for waiters woken earlier and not acted yet (their executors may be
 * stalled; rule 4). Source: async-channel's notify_additional(1) per message. */
void zc__waitlist_notify_n(zc__waitlist *wl, size_t n);

/* A pass-on: wakes the next waiter of a list if there is still something for it (its
 * caller's predicate, checked again), through zc__waitlist_pass_on. */
typedef void zc__pass_on_fn(void *arg);

/* Pass a wake-up on to the oldest waiter of wl: what a woken waiter that was cancelled
 * (or could not use it) does with the wake-up, once the caller's predicate says that
 * another waiter could use it (rule 4). Made at once, as a notify_one, unless this
 * thread is inside the wake of such a pass-on of wl: then the outermost one calls
 * again(arg) once its wake has returned, still within the call that made the wake-up
 * (waitlist.c, "Pass-ons in a row"). */
void zc__waitlist_pass_on(zc__waitlist *wl, zc__pass_on_fn *again, void *arg);

/* A node taken off a list by zc__waitlist_take, whose wake is still to be made. */
typedef struct zc__taken {
    zc__waitlist *wl;
    zc__node *node;
    zc_waker waker;
} zc__taken;

/* Whether the caller takes linked node n (arg: the caller's), asked under the list's
 * lock: it may read and write what the node's owner keeps beside it for this list (the
 * owner changes that only under the same lock or while not linked). Must not block, take
 * this list's lock, or wake anyone. */
typedef bool zc__take_fn(zc__node *n, void *arg);

/* Notify the oldest linked node that take(n, arg) accepts (take NULL: the oldest), if
 * any: unlinked, WAKING and counted as notified, but its wake is made only by
 * zc__waitlist_wake_taken(t), which the caller calls once it holds no lock (waker rule
 * 2). notify_one is this and that wake; a rendezvous channel's hand-off (rendezvous.c)
 * takes under a lock of its own and hands the waiter something first. Returns true with
 * *t set if one was taken. O(linked nodes passed over). */
bool zc__waitlist_take(zc__waitlist *wl, zc__take_fn *take, void *arg, zc__taken *t);
void zc__waitlist_wake_taken(const zc__taken *t);

/* Wake every waiter linked now, one at a time (close). A woken waiter that registers
 * again meanwhile goes to the back and is not woken again by this call. */
void zc__waitlist_notify_all(zc__waitlist *wl);

/* What a waiter is about to wait for, looked at once more after it is counted: true if
 * it is there now (arg: the caller's). Must not block, take a lock, or wake anyone. */
typedef bool zc__ready_fn(void *arg);

/* Make node wait with waker w, unless ready(arg) says what it waits for is there: link
 * it (at the front if it had been notified and is waiting again, so that it keeps its
 * turn), or refresh its waker if it is still linked; then, still under the lock, the
 * re-check ready(arg) ([F2]: after the count's seq_cst increment). Returns true if node
 * waits (linked, WAITING); false if ready said so, with node off the list (a WAITING
 * node IDLE again; a wake-up held still held). ready NULL: always waits, and the caller
 * must re-check its condition afterwards. Source: crossbeam-channel's register then
 * is_ready, with the abort made under the list's lock. */
bool zc__waitlist_register_unless(zc__waitlist *wl, zc__waiter *node, const zc_waker *w,
                                  zc__ready_fn *ready, void *arg);

static inline void zc__waitlist_register(zc__waitlist *wl, zc__waiter *node, const zc_waker *w) {
    (void)zc__waitlist_register_unless(wl, node, w, NULL, NULL);
}

/* Take node out of the list and back to IDLE. Returns true if it held a wake-up (its
 * waker was called since it last registered, and that call is done). When it returns,
 * no wake of node's waker is running or to come (unless called from inside that wake). */
bool zc__waitlist_unregister_slow(zc__waitlist *wl, zc__waiter *node);

/* Take node off the list for a poll that returns ZC_PENDING without waiting on it (it
 * met a peer mid-operation and will be polled again soon), keeping any wake-up it holds
 * for that next poll: it stays WOKEN until that poll uses it or a cancel passes it on; a
 * linked node becomes IDLE. Returns true if the node holds a wake-up (as
 * zc__waitlist_unregister_slow). */
bool zc__waitlist_step_off(zc__waitlist *wl, zc__waiter *node);

/* node's state, as its owner reads it before acting on it. Acquire: a state other than
 * IDLE is examined again under the lock or through [W2] (waitlist.c). */
static inline unsigned zc__waitlist_state(zc__waiter *node) {
    return atomic_load_explicit(ZC__ATOMIC_UINT(zc__node_of(node)->state), memory_order_acquire);
}

/* Whether node is IDLE: neither linked nor notified. IDLE is only ever entered by the
 * node's owner (the caller), so a true answer is stable. */
static inline bool zc__waitlist_is_idle(zc__waiter *node) { return zc__fast_node_idle(node); }

/* Whether node holds a wake-up (WOKEN, or WAKING: its wake is being made); unregister
 * examines it again under the lock. */
static inline bool zc__waitlist_holds_wake(zc__waiter *node) {
    unsigned st = zc__waitlist_state(node);
    return st == ZC__WOKEN || st == ZC__WAKING;
}

/* Whether node is linked (WAITING): registered by an earlier poll and not woken since;
 * the registration examines it again under the lock. */
static inline bool zc__waitlist_is_linked(zc__waiter *node) {
    return zc__waitlist_state(node) == ZC__WAITING;
}

/* zc__waitlist_unregister_slow, without its cost for an IDLE node (which holds nothing). */
static inline bool zc__waitlist_unregister(zc__waitlist *wl, zc__waiter *node) {
    return !zc__waitlist_is_idle(node) && zc__waitlist_unregister_slow(wl, node);
}

#endif /* ZCHAN_SRC_WAITLIST_H */

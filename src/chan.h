/*
 * chan.h: the MPMC channel object behind zc_sender / zc_receiver handles.
 *
 * A channel is one allocation: its queue (queue/queue.h: a ring or a segmented queue,
 * chosen there), one waiter list per side and one for close events (waitlist.h), the
 * handle counts, the two handle structs that zc_sender* / zc_receiver* point at
 * (handles are counted, so cloning allocates nothing and cannot fail; the checked build
 * allocates each handle apart, check.h), and a bounded queue's slots. This layer joins
 * the two: an operation on the queue, then the wakes it owes the other side.
 *
 * Layout (queue/lines.h): the channel's fields fill the queue's room on the lines of its
 * ends, each where the end that reads it on every operation is the end that writes the
 * line, from the start of a ZC_CACHE_LINE-aligned block:
 *   - the receivers' line: the queue's receivers' words, the senders' waiter list (a
 *     receive that frees a slot reads its count), and the handle counts (clone, drop);
 *   - the senders' line: the queue's senders' words, the receivers' waiter list (a send
 *     reads its count), and the close waiters (closed-event futures only);
 *   - what is never written after creation: the queue's constants and the handles, which
 *     every operation reads, and drop_msg;
 *   - a bounded queue's slots, from the next line on.
 * A waiter list's lock and links are written only while somebody waits; a registration
 * or a notification then writes the line of the end it waits for, once.
 *
 * Ordering map (the rest is in the queues and waitlist.c):
 *   [F1] after an operation's seq_cst claim on the queue, zc__waitlist_has_waiters
 *        (seq_cst) of the other side  <->  [F2] a waiter's registration, then its
 *        re-check of the queue (waitlist.c's map: no lost wake-up).
 *   [H1] handle-count decrements are acq_rel (chan.c).
 */
#ifndef ZCHAN_SRC_CHAN_H
#define ZCHAN_SRC_CHAN_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/mpmc.h>

#include "hooks.h" /* before zchan/bits/fast.h: its ring uses the hooks */

#include <zchan/bits/fast.h>

#include "atomic.h"
#include "check.h"
#include "queue/queue.h"
#include "waitlist.h"

typedef struct zc__chan zc__chan;

/* The handles. The checked build (check.h) gives each its own allocation and a stamp. */
struct zc_sender {
    zc__chan *ch;
#if ZCHAN_CHECKED
    uintptr_t stamp; /* ZC__STAMP_SENDER, or ZC__STAMP_DEAD once dropped */
#endif
};
struct zc_receiver {
    zc__chan *ch;
#if ZCHAN_CHECKED
    uintptr_t stamp; /* ZC__STAMP_RECEIVER, or ZC__STAMP_DEAD once dropped */
#endif
};
/* Weak handles: they keep the channel's memory, not the channel open (chan.c). */
struct zc_weak_sender {
    zc__chan *ch;
#if ZCHAN_CHECKED
    uintptr_t stamp; /* ZC__STAMP_WEAK_SENDER, or ZC__STAMP_DEAD once dropped */
#endif
};
struct zc_weak_receiver {
    zc__chan *ch;
#if ZCHAN_CHECKED
    uintptr_t stamp; /* ZC__STAMP_WEAK_RECEIVER, or ZC__STAMP_DEAD once dropped */
#endif
};

struct zc__chan {
    union {
        zc__queue q;
        struct { /* in the queue's room on its lines (queue/lines.h); the chars are its */
            unsigned char queue_rx[ZC__QUEUE_END_BYTES];
            zc__waitlist send_waiters; /* senders waiting for a free slot or close (bounded) */
            /* Handle counts, touched by clone/drop only. */
            _Atomic size_t senders;
            _Atomic size_t receivers;
            _Atomic size_t handles; /* senders + receivers + weak handles: the last frees it */
#if !ZCHAN_CHECKED
            struct zc_weak_sender weak_tx; /* every weak sender handle is this one (counted) */
            struct zc_weak_receiver weak_rx;
#endif
            ZC_CACHE_ALIGNED unsigned char queue_tx[ZC__QUEUE_END_BYTES];
            zc__waitlist recv_waiters;  /* receivers waiting for a message or close */
            zc__waitlist close_waiters; /* zc_sender_closed / zc_receiver_closed: close only */
            ZC_CACHE_ALIGNED unsigned char queue_consts[sizeof(zc__queue) - 2 * ZC_CACHE_LINE];
#if !ZCHAN_CHECKED
            struct zc_sender tx; /* every sender handle is this one (counted) */
            struct zc_receiver rx;
#endif
            void (*drop_msg)(void *msg, void *ctx);
            void *drop_ctx;
            /* A rendezvous channel's hand-off (after the slots), NULL for the others: its
             * queue holds nothing, and every operation goes through rendezvous.c. */
            struct zc__rv *rv;
        };
    };
    /* A bounded queue's slots follow (zc__queue_storage_size bytes), then a rendezvous
     * channel's hand-off. */
};

/* The fields stay within the room of the line they are listed under. */
_Static_assert(offsetof(zc__chan, queue_tx) == ZC_CACHE_LINE, "the receivers' line's fields fit");
_Static_assert(offsetof(zc__chan, queue_consts) == 2 * ZC_CACHE_LINE,
               "the senders' line's fields fit");
_Static_assert(sizeof(zc__chan) == 3 * ZC_CACHE_LINE, "the constants' line's fields fit");

/* The words the fast paths of zchan/bits/fast.h (and so zchan/inline.h) find by offset. */
_Static_assert(offsetof(zc__chan, q.u.ring) == 0, "fast.h: the ring starts the block");
_Static_assert(offsetof(zc__chan, send_waiters.waiters) == ZC__FAST_SEND_WAITERS,
               "fast.h: waiting senders' count");
_Static_assert(offsetof(zc__chan, recv_waiters.waiters) == ZC__FAST_RECV_WAITERS,
               "fast.h: waiting receivers' count");
_Static_assert(offsetof(zc__chan, q.ring8) == ZC__FAST_RING8, "fast.h: the ring8 flag");
_Static_assert(sizeof(((zc__chan *)0)->q.ring8) == sizeof(bool), "fast.h: ring8 is a bool");
_Static_assert(offsetof(struct zc_sender, ch) == 0 && offsetof(struct zc_receiver, ch) == 0,
               "fast.h: a handle's first word is its channel");

/* Whether tx is a sender handle (not NULL, and not a receiver cast to zc_sender *), for
 * the calls that change the handle counts (clones, drops). The checked build asks the
 * stamp, once ZC__CHECK_HANDLE has passed it. */
static inline bool zc__is_sender(const zc_sender *tx) {
#if ZCHAN_CHECKED
    return tx && tx->stamp == ZC__STAMP_SENDER;
#else
    return tx && tx == &tx->ch->tx;
#endif
}

static inline bool zc__is_receiver(const zc_receiver *rx) {
#if ZCHAN_CHECKED
    return rx && rx->stamp == ZC__STAMP_RECEIVER;
#else
    return rx && rx == &rx->ch->rx;
#endif
}

static inline bool zc__is_weak_sender(const zc_weak_sender *w) {
#if ZCHAN_CHECKED
    return w && w->stamp == ZC__STAMP_WEAK_SENDER;
#else
    return w && w == &w->ch->weak_tx;
#endif
}

static inline bool zc__is_weak_receiver(const zc_weak_receiver *w) {
#if ZCHAN_CHECKED
    return w && w->stamp == ZC__STAMP_WEAK_RECEIVER;
#else
    return w && w == &w->ch->weak_rx;
#endif
}

/* ---- The wakes an operation owes ([F1]: after the seq_cst claims that made them owed) */

/* One waiting sender woken for each of n slots freed on a bounded channel (plus one for
 * each hole left at the oldest place, skipped first), or one waiting receiver for each
 * of n messages made receivable, while waiters are linked (zc__waitlist_notify_n). */
void zc__chan_wake_senders(zc__chan *ch, size_t n);
void zc__chan_wake_receivers(zc__chan *ch, size_t n);

/* One waiting receiver (sender) woken after a message was sent (a slot freed), out of
 * line; ZC_OK, so that a fast path ends in a tail call. */
zc_status zc__chan_wake_receiver_ok(zc__chan *ch);
zc_status zc__chan_wake_sender_ok(zc__chan *ch);

/* After a first attempt sent a message (freed a slot): wake a waiting receiver (sender)
 * if one is linked ([F1]); ZC_OK. With none linked, one seq_cst load and no call. */
static inline zc_status zc__chan_sent(zc__chan *ch) {
    return zc__waitlist_has_waiters(&ch->recv_waiters) ? zc__chan_wake_receiver_ok(ch) : ZC_OK;
}

static inline zc_status zc__chan_received(zc__chan *ch) {
    return zc__waitlist_has_waiters(&ch->send_waiters) ? zc__chan_wake_sender_ok(ch) : ZC_OK;
}

/* ---- Attempts (a future's, select's: they make no wake, they count it) ------------- */

/* One send attempt of msg (a zc__attempt_fn, wait.h): zc__queue_push's statuses. On
 * ZC_OK one wake is owed to a waiting receiver, added to *owed for the caller to make
 * once its own node is off the list. */
static inline zc_status zc__chan_send_attempt(zc__chan *ch, void *msg, unsigned *owed) {
    zc_status s = zc__queue_push(&ch->q, msg);
    *owed += s == ZC_OK;
    return s;
}

/* One receive attempt into out: zc__queue_pop's statuses. Each slot freed (the
 * message's, a skipped hole's) owes a waiting sender a wake: added to *owed, whatever
 * the status. */
static inline zc_status zc__chan_recv_attempt(zc__chan *ch, void *out, unsigned *owed) {
    size_t freed = 0;
    zc_status s = zc__queue_pop(&ch->q, out, &freed);
    *owed += (unsigned)freed;
    return s;
}

/* One full attempt that makes its wakes at once (no waiter node of the caller's is on a
 * list): the try operations' and the batches'. */
zc_status zc__chan_send(zc__chan *ch, const void *msg);
zc_status zc__chan_recv(zc__chan *ch, void *out);

/* ---- Waiting ---------------------------------------------------------------------- */

/* Whether the channel is closed (seq_cst: usable as the re-check half of a wait). */
static inline bool zc__chan_is_closed(zc__chan *ch) { return zc__queue_is_closed(&ch->q); }

/* Pass on a wake-up a receive / send waiter node held and did not use: wake one waiting
 * receiver / sender if one is linked and could make progress now (waker rule 4). A
 * cancel (zc__wait_cancel) does it after taking its node off; select after taking all
 * its nodes off. */
void zc__chan_pass_on_recv(zc__chan *ch);
void zc__chan_pass_on_send(zc__chan *ch);

#endif /* ZCHAN_SRC_CHAN_H */

/*
 * broadcast.c: the broadcast channel (zchan/broadcast.h).
 *
 * Source: tokio::sync::broadcast (a ring of slots, each with the number of receivers
 * that still have to read it; a receiver whose position fell behind the oldest message
 * held is told how many it missed and moves up to it). Here one mutex per channel
 * guards the ring, the receivers' positions and the counts.
 *
 * State, all under ch->mu:
 *   Sequence numbers count messages from 0; messages head .. tail-1 are held, message
 *   s in slot s % cap. rem[slot] is the number of receivers that still have to read
 *   the message in it: at a send, every live receiver; a receiver created by clone adds
 *   itself to each held message at or after its position; a subscriber to none. A
 *   receiver's pos is the next message it reads; pos < head means it lagged (overflow).
 *   Invariant (the prefix property): a receiver counted in message s is counted in every
 *   later message, and it reads in order, so rem of s reaches 0 only after rem of every
 *   earlier message did: the held messages are exactly those with rem > 0. The last
 *   reader of a message takes the original, the others get copies (clone_msg, or bytes);
 *   one whose rem drops to 0 unread, or that is overwritten (overflow), goes to drop_msg.
 *
 * Waiting: two waiter lists (waitlist.c), used as the MPMC futures use them, except
 * that a send wakes every waiting receiver (each has a new message), not one.
 *   - Receivers: a send wakes as many receivers as were linked when it looked. A receive
 *     node is always linked at the back (it is IDLE before each registration), so that
 *     many pops reach each of them, and woken receivers that register again while it
 *     runs are not popped for ever. A receive's unused wake-up is owed to no other
 *     receiver (every send and the close wake all), so its cancel passes nothing on.
 *   - Senders (back-pressure mode): a freed slot wakes the oldest waiting sender; a
 *     woken sender that is cancelled passes its wake-up on while room is left.
 *
 * Ordering map:
 *   [M1] The state is read and written only under ch->mu (pthread mutex: lock acquires,
 *        unlock releases).
 *   [M2] No lost wake-up, both lists: a waiter registers ([F2]: a seq_cst RMW of the
 *        list's `waiters`), then re-checks the state under ch->mu. A notifier changes the
 *        state under ch->mu, unlocks, then loads `waiters` (seq_cst). The mutex orders
 *        the two critical sections: either the re-check sees the change, or the
 *        registration happens-before the notifier's load.
 *   [H1] Handle counts are under ch->mu too. A drop takes its handle off `handles` only
 *        after the wakes it makes (release_handle), so that its handle keeps the channel
 *        alive under them; the thread that takes the last one away frees the channel
 *        after its unlock.
 */
#include <zchan/broadcast.h>

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "block_on.h"
#include "check.h"
#include "waitlist.h"

typedef struct zc__bcast zc__bcast;

/* The handles. The checked build (check.h) gives each sender its own allocation, and
 * every handle a stamp (ZC__STAMP_SENDER / _RECEIVER, or ZC__STAMP_DEAD once dropped). */
struct zc_bcast_sender {
    zc__bcast *ch;
#if ZCHAN_CHECKED
    uintptr_t stamp;
#endif
};

struct zc_bcast_receiver {
    zc__bcast *ch;
    uint64_t pos; /* the next message this receiver reads; under ch->mu */
#if ZCHAN_CHECKED
    uintptr_t stamp;
#endif
};

struct zc__bcast {
    /* A line each: the waiter counts are read after every send (receive). */
    ZC_CACHE_ALIGNED zc__waitlist recv_waiters; /* receivers waiting for a message or close */
    ZC_CACHE_ALIGNED zc__waitlist send_waiters; /* senders waiting for a free slot or close */
    ZC_CACHE_ALIGNED zc__waitlist close_waiters; /* zc_bcast_closed: close, no receiver left */
    ZC_CACHE_ALIGNED pthread_mutex_t mu;
    /* Under mu ([M1]). */
    uint64_t head;    /* oldest message held */
    uint64_t tail;    /* next message to send */
    size_t senders;   /* live sender handles */
    size_t receivers; /* live receiver handles */
    size_t handles;   /* senders + receivers: the last one frees the channel */
    bool closed;
    size_t *rem;          /* per slot: receivers that still have to read it */
    unsigned char *slots; /* cap * elem_size bytes of messages */
    /* Read-only after creation. */
    size_t cap;
    size_t elem_size;
    zc_bcast_mode mode;
    void (*clone_msg)(void *dst, const void *src, void *ctx);
    void (*drop_msg)(void *msg, void *ctx);
    void *ctx;
    struct zc_bcast_sender tx; /* every sender handle is this one (counted); unchecked */
};

#if ZCHAN_CHECKED
static zc_bcast_sender *sender_handle(zc__bcast *ch) {
    zc_bcast_sender *h = malloc(sizeof *h);
    if (h) *h = (zc_bcast_sender){ch, ZC__STAMP_SENDER};
    return h;
}
#define STAMP_RECEIVER(r) ((r)->stamp = ZC__STAMP_RECEIVER)
/* A dropped handle: stamped dead, and kept a while so that a later use reads that. */
#define RETIRE(h) ((h)->stamp = ZC__STAMP_DEAD, zc__quarantine(h))
#else
static zc_bcast_sender *sender_handle(zc__bcast *ch) { return &ch->tx; }
#define STAMP_RECEIVER(r) ((void)0)
#define RETIRE(h) free(h)
#endif

static void lock(zc__bcast *ch) { pthread_mutex_lock(&ch->mu); }     /* [M1] */
static void unlock(zc__bcast *ch) { pthread_mutex_unlock(&ch->mu); } /* [M1] */

static size_t slot_of(const zc__bcast *ch, uint64_t seq) { return (size_t)(seq % ch->cap); }

static unsigned char *msg_at(const zc__bcast *ch, uint64_t seq) {
    return ch->slots + slot_of(ch, seq) * ch->elem_size;
}

static void drop_held(zc__bcast *ch, uint64_t seq) {
    if (ch->drop_msg) ch->drop_msg(msg_at(ch, seq), ch->ctx);
}

/* Move head past the messages no receiver has still to read; returns how many slots
 * that freed. Under mu. */
static size_t advance_head(zc__bcast *ch) {
    size_t freed = 0;
    while (ch->head < ch->tail && ch->rem[slot_of(ch, ch->head)] == 0) {
        ch->head++;
        freed++;
    }
    return freed;
}

/* ---- creation, handles, close ------------------------------------------------------ */

zc_status zc_bcast_new(size_t cap, const zc_bcast_config *cfg, zc_bcast_sender **tx,
                       zc_bcast_receiver **rx) {
    if (tx) *tx = NULL;
    if (rx) *rx = NULL;
    if (!cfg || !tx || cap == 0 || cfg->elem_size == 0 ||
        (cfg->mode != ZC_BCAST_BACKPRESSURE && cfg->mode != ZC_BCAST_OVERFLOW) ||
        cfg->elem_size > SIZE_MAX - sizeof(size_t) ||
        cap > SIZE_MAX / (cfg->elem_size + sizeof(size_t))) /* the size, whole */
        return ZC_EINVAL;

    size_t size = (sizeof(zc__bcast) + ZC_CACHE_LINE - 1) & ~(size_t)(ZC_CACHE_LINE - 1);
    zc__bcast *ch = aligned_alloc(ZC_CACHE_LINE, size);
    zc_bcast_receiver *r = rx ? malloc(sizeof *r) : NULL; /* no rx: no receiver wanted */
    size_t *rem = calloc(cap, sizeof *rem);
    unsigned char *slots = malloc(cap * cfg->elem_size);
    zc_bcast_sender *t = ch ? sender_handle(ch) : NULL;
    if (!ch || (rx && !r) || !rem || !slots || !t || pthread_mutex_init(&ch->mu, NULL) != 0) {
#if ZCHAN_CHECKED
        free(t);
#endif
        free(slots);
        free(rem);
        free(r);
        free(ch);
        return ZC_ENOMEM;
    }
    zc__waitlist_init(&ch->recv_waiters);
    zc__waitlist_init(&ch->send_waiters);
    zc__waitlist_init(&ch->close_waiters);
    ch->head = ch->tail = 0;
    ch->senders = 1;
    ch->receivers = r ? 1 : 0;
    ch->handles = 1 + ch->receivers;
    ch->closed = false;
    ch->rem = rem;
    ch->slots = slots;
    ch->cap = cap;
    ch->elem_size = cfg->elem_size;
    ch->mode = cfg->mode;
    ch->clone_msg = cfg->clone_msg;
    ch->drop_msg = cfg->drop_msg;
    ch->ctx = cfg->ctx;
    ch->tx.ch = ch;
    if (r) {
        r->ch = ch;
        r->pos = 0;
        STAMP_RECEIVER(r);
        *rx = r;
    }
    *tx = t;
    return ZC_OK;
}

static void bcast_free(zc__bcast *ch, const char *call) {
    assert(ch->head == ch->tail && "every held message was read or dropped");
#if ZCHAN_CHECKED /* no future may still be pending here (after [H1]'s unlock) */
    zc__waitlist *const lists[] = {&ch->recv_waiters, &ch->send_waiters, &ch->close_waiters};
    zc__waitlist_check_none_pending(lists, 3, call, ch);
#else
    (void)call;
#endif
    pthread_mutex_destroy(&ch->mu);
    free(ch->slots);
    free(ch->rem);
    free(ch);
}

/* Mark closed under mu; true if this call did it (then the caller wakes everyone). */
static bool close_locked(zc__bcast *ch) {
    if (ch->closed) return false;
    ch->closed = true;
    return true;
}

/* Close wakes every waiter of every kind; they re-check and see closed ([M2]). */
static void wake_all(zc__bcast *ch) {
    zc__waitlist_notify_all(&ch->recv_waiters);
    zc__waitlist_notify_all(&ch->send_waiters);
    zc__waitlist_notify_all(&ch->close_waiters);
}

/* Slots a waiting sender could take now: none once closed (zc__avail_fn). */
static size_t send_room(void *arg) {
    zc__bcast *ch = arg;
    lock(ch);
    uint64_t used = ch->tail - ch->head;
    size_t room = !ch->closed && used < ch->cap ? (size_t)(ch->cap - used) : 0;
    unlock(ch);
    return room;
}

/* The wakes owed to waiting senders, one per freed slot ([M2]: after the unlock). */
static void wake_senders(zc__bcast *ch, size_t freed) {
    zc__waitlist_notify_n(&ch->send_waiters, freed);
}

/* Wake the receivers that were waiting when we looked (see the file comment). */
static void wake_receivers(zc__bcast *ch) {
    /* [M2] seq_cst, as zc__waitlist_has_waiters: after our unlock. */
    size_t n = atomic_load_explicit(&ch->recv_waiters.waiters, memory_order_seq_cst);
    while (n-- > 0 && zc__waitlist_notify_one(&ch->recv_waiters)) {
    }
}

/* Take one handle off after the dropping call's wakes; the last one frees ([H1]). */
static void release_handle(zc__bcast *ch, const char *call) {
    lock(ch);
    bool last = --ch->handles == 0; /* [H1] */
    unlock(ch);
    if (last) bcast_free(ch, call);
}

/* Close from either side; true if this call did it (then it woke everyone). */
static bool bcast_close(zc__bcast *ch) {
    lock(ch);
    bool closed = close_locked(ch);
    unlock(ch);
    if (closed) wake_all(ch);
    return closed;
}

bool zc_bcast_sender_close(zc_bcast_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    return tx ? bcast_close(tx->ch) : false;
}

bool zc_bcast_receiver_close(zc_bcast_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    return rx ? bcast_close(rx->ch) : false;
}

zc_bcast_sender *zc_bcast_sender_clone(zc_bcast_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    if (!tx) return NULL;
    zc__bcast *ch = tx->ch;
    zc_bcast_sender *clone = sender_handle(ch);
    if (!clone) return NULL; /* the checked build's allocation */
    lock(ch);
    assert(ch->senders > 0 && "zc_bcast_sender_clone on a dropped sender");
    ch->senders++;
    ch->handles++;
    unlock(ch);
    return clone;
}

void zc_bcast_sender_drop(zc_bcast_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    if (!tx) return;
    zc__bcast *ch = tx->ch;
#if ZCHAN_CHECKED
    RETIRE(tx);
#endif
    lock(ch);
    assert(ch->senders > 0 && "zc_bcast_sender_drop: handle dropped twice");
    bool closed = --ch->senders == 0 && close_locked(ch);
    unlock(ch);
    if (closed) wake_all(ch);
    release_handle(ch, __func__);
}

/* A new receiver at position pos (clone: its original's; subscribe: tail). */
static zc_bcast_receiver *receiver_new(zc__bcast *ch, const zc_bcast_receiver *from) {
    zc_bcast_receiver *r = malloc(sizeof *r);
    if (!r) return NULL;
    r->ch = ch;
    STAMP_RECEIVER(r);
    lock(ch);
    if (from) {
        r->pos = from->pos;
        /* It will read every held message from its position on: one more reader each. */
        for (uint64_t s = r->pos > ch->head ? r->pos : ch->head; s < ch->tail; s++)
            ch->rem[slot_of(ch, s)]++;
    } else {
        r->pos = ch->tail;
    }
    ch->receivers++;
    ch->handles++;
    unlock(ch);
    return r;
}

zc_bcast_receiver *zc_bcast_subscribe(zc_bcast_sender *tx) {
    ZC__CHECK_HANDLE(tx);
    return tx ? receiver_new(tx->ch, NULL) : NULL;
}

zc_bcast_receiver *zc_bcast_resubscribe(zc_bcast_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    return rx ? receiver_new(rx->ch, NULL) : NULL;
}

zc_bcast_receiver *zc_bcast_receiver_clone(zc_bcast_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    return rx ? receiver_new(rx->ch, rx) : NULL;
}

void zc_bcast_receiver_drop(zc_bcast_receiver *rx) {
    ZC__CHECK_HANDLE(rx);
    if (!rx) return;
    zc__bcast *ch = rx->ch;
    lock(ch);
    assert(ch->receivers > 0 && "zc_bcast_receiver_drop: handle dropped twice");
    /* Give up what rx had still to read; a message no one else will read is dropped. */
    for (uint64_t s = rx->pos > ch->head ? rx->pos : ch->head; s < ch->tail; s++)
        if (--ch->rem[slot_of(ch, s)] == 0) drop_held(ch, s);
    size_t freed = advance_head(ch);
    bool closed = --ch->receivers == 0 && close_locked(ch);
    unlock(ch);
    RETIRE(rx);
    if (closed)
        wake_all(ch);
    else
        wake_senders(ch, freed);
    release_handle(ch, __func__);
}

/* ---- send and receive ------------------------------------------------------------- */

/* One send attempt without its wakes: ZC_OK, ZC_FULL (back-pressure), ZC_CLOSED. On
 * ZC_OK the waiting receivers are owed a wake (pay_send), made by a future only once its
 * own node is off the list (as wait.h's); *reached (if not NULL) is the number of
 * receivers the message went to. */
static zc_status bcast_send_quiet(zc__bcast *ch, const void *msg, size_t *reached) {
    lock(ch);
    if (ch->closed) {
        unlock(ch);
        return ZC_CLOSED;
    }
    if (ch->receivers == 0) {
        /* Open with no receiver yet (zc_bcast_new without one): nobody will read it. It
         * goes to drop_msg from the free slot at tail (nothing is held: every rem is 0). */
        memcpy(msg_at(ch, ch->tail), msg, ch->elem_size);
        drop_held(ch, ch->tail);
        unlock(ch);
        return ZC_OK;
    }
    if (ch->tail - ch->head == ch->cap) {
        if (ch->mode == ZC_BCAST_BACKPRESSURE) {
            unlock(ch);
            return ZC_FULL;
        }
        /* Overflow: the oldest message goes; receivers that had not read it will see
         * ZC_LAGGED (their pos is now below head). rem > 0 for every held message. */
        drop_held(ch, ch->head);
        ch->rem[slot_of(ch, ch->head)] = 0;
        ch->head++;
    }
    memcpy(msg_at(ch, ch->tail), msg, ch->elem_size);
    ch->rem[slot_of(ch, ch->tail)] = ch->receivers; /* >= 1 (none: above) */
    ch->tail++;
    if (reached) *reached = ch->receivers;
    unlock(ch);
    return ZC_OK;
}

/* The wakes a send owes: every receiver waiting when we look ([M2]). */
static void pay_send(zc__bcast *ch) {
    if (zc__waitlist_has_waiters(&ch->recv_waiters)) wake_receivers(ch); /* [M2] */
}

/* One receive attempt without its wakes: ZC_OK, ZC_LAGGED, ZC_EMPTY, ZC_CLOSED; *freed
 * (always written): the slots it freed, each owing a waiting sender a wake. */
static zc_status bcast_recv_quiet(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                                  size_t *freed) {
    zc__bcast *ch = rx->ch;
    *freed = 0;
    lock(ch);
    if (rx->pos < ch->head) { /* overflow mode: overwritten before we read them */
        uint64_t lag = ch->head - rx->pos;
        rx->pos = ch->head;
        unlock(ch);
        if (missed) *missed = lag;
        return ZC_LAGGED;
    }
    if (rx->pos == ch->tail) {
        zc_status s = ch->closed ? ZC_CLOSED : ZC_EMPTY;
        unlock(ch);
        return s;
    }
    unsigned char *msg = msg_at(ch, rx->pos);
    if (--ch->rem[slot_of(ch, rx->pos)] == 0) {
        memcpy(out, msg, ch->elem_size); /* the last reader takes the original */
        *freed = advance_head(ch);
    } else if (ch->clone_msg) {
        ch->clone_msg(out, msg, ch->ctx);
    } else {
        memcpy(out, msg, ch->elem_size);
    }
    rx->pos++;
    unlock(ch);
    return ZC_OK;
}

/* A try send, its wakes made; the public calls check tx first. */
static zc_status bcast_try_send(zc_bcast_sender *tx, const void *msg, size_t *reached) {
    if (reached) *reached = 0;
    if (!tx || !msg) return ZC_EINVAL;
    zc_status s = bcast_send_quiet(tx->ch, msg, reached);
    if (s == ZC_OK) pay_send(tx->ch);
    return s;
}

zc_status zc_bcast_try_send(zc_bcast_sender *tx, const void *msg) {
    ZC__CHECK_HANDLE(tx);
    return bcast_try_send(tx, msg, NULL);
}

zc_status zc_bcast_try_send_counted(zc_bcast_sender *tx, const void *msg, size_t *reached) {
    ZC__CHECK_HANDLE(tx);
    return bcast_try_send(tx, msg, reached);
}

zc_status zc_bcast_try_recv(zc_bcast_receiver *rx, void *out, uint64_t *missed) {
    ZC__CHECK_HANDLE(rx);
    if (!rx || !out) return ZC_EINVAL;
    size_t freed;
    zc_status s = bcast_recv_quiet(rx, out, missed, &freed);
    wake_senders(rx->ch, freed); /* [M2] */
    return s;
}

static void info(zc__bcast *ch, uint64_t from, zc_info *out) {
    out->len = (size_t)(ch->tail - (from > ch->head ? from : ch->head));
    out->capacity = ch->cap;
    out->senders = ch->senders;
    out->receivers = ch->receivers;
    out->closed = ch->closed;
}

zc_status zc_bcast_sender_info(const zc_bcast_sender *tx, zc_info *out) {
    ZC__CHECK_HANDLE(tx);
    if (!tx || !out) return ZC_EINVAL;
    lock(tx->ch);
    info(tx->ch, 0, out);
    unlock(tx->ch);
    return ZC_OK;
}

zc_status zc_bcast_receiver_info(const zc_bcast_receiver *rx, zc_info *out) {
    ZC__CHECK_HANDLE(rx);
    if (!rx || !out) return ZC_EINVAL;
    lock(rx->ch);
    info(rx->ch, rx->pos, out);
    unlock(rx->ch);
    return ZC_OK;
}

/* ---- futures ------------------------------------------------------------------------ */

void zc_bcast_send_init(zc_bcast_send *f, zc_bcast_sender *tx, const void *msg) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__msg = msg;
    f->zc__done = 0;
}

/* Pass a wake-up on to the next waiting sender, as chan.c's zc__chan_pass_on_send. */
static void pass_on_send(void *arg) {
    zc__bcast *ch = arg;
    if (zc__waitlist_has_waiters(&ch->send_waiters) &&
        zc__waitlist_wake_has_work(&ch->send_waiters, send_room, ch))
        zc__waitlist_pass_on(&ch->send_waiters, pass_on_send, ch);
}

/* A cancel of a future that never waited, or completed, touches only the future. */
void zc_bcast_send_cancel(zc_bcast_send *f) {
    if (!f || !f->zc__tx || f->zc__done || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    /* Pass on a wake-up it held and did not use. */
    if (zc__waitlist_unregister(&f->zc__tx->ch->send_waiters, &f->zc__node))
        pass_on_send(f->zc__tx->ch);
}

zc_status zc_bcast_send_poll(zc_bcast_send *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__done ? NULL : f->zc__tx); /* done: tx may be gone */
    if (!f || !f->zc__tx || !f->zc__msg) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_bcast_send_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    if (f->zc__done) return (zc_status)(f->zc__done - 1);
    zc__bcast *ch = f->zc__tx->ch;
    bool registered = false;
    for (;;) {
        zc_status s = bcast_send_quiet(ch, f->zc__msg, NULL);
        if (s == ZC_FULL) {
            if (registered) return ZC_PENDING;
            zc__waitlist_register(&ch->send_waiters, &f->zc__node, w); /* [M2] */
            registered = true; /* and re-check */
            continue;
        }
        /* A wake-up that came for this poll's registration may be unused: passed on. */
        if (zc__waitlist_unregister(&ch->send_waiters, &f->zc__node) && registered)
            pass_on_send(ch);
        if (s == ZC_OK) pay_send(ch); /* our node off */
        f->zc__done = (int)s + 1;
        return s; /* ZC_OK, ZC_CLOSED */
    }
}

void zc_bcast_recv_init(zc_bcast_recv *f, zc_bcast_receiver *rx) {
    if (!f) return;
    ZC__CHECK_HANDLE(rx);
    zc__waiter_init(&f->zc__node);
    f->zc__rx = rx;
}

void zc_bcast_recv_cancel(zc_bcast_recv *f) {
    if (!f || !f->zc__rx || zc__waitlist_is_idle(&f->zc__node)) return; /* as send's */
    ZC__CHECK_FUTURE(f, f->zc__rx);
    /* An unused wake-up of a receive is owed to no one (file comment): just unlink. */
    zc__waitlist_unregister(&f->zc__rx->ch->recv_waiters, &f->zc__node);
}

zc_status zc_bcast_recv_poll(zc_bcast_recv *f, const zc_waker *w, void *out,
                             uint64_t *missed) {
    ZC__CHECK_FUTURE(f, f->zc__rx);
    if (!f || !f->zc__rx) return ZC_EINVAL;
    if (!w || !w->wake || !out) {
        zc_bcast_recv_cancel(f); /* rule 3 */
        return ZC_EINVAL;
    }
    zc__waitlist *wl = &f->zc__rx->ch->recv_waiters;
    bool registered = false;
    for (;;) {
        size_t freed;
        zc_status s = bcast_recv_quiet(f->zc__rx, out, missed, &freed);
        if (s == ZC_EMPTY) {
            if (registered) return ZC_PENDING;
            /* Always linked at the back, from IDLE (see the file comment). */
            zc__waitlist_unregister(wl, &f->zc__node);
            zc__waitlist_register(wl, &f->zc__node, w); /* [M2] */
            registered = true; /* and re-check */
            continue;
        }
        zc__waitlist_unregister(wl, &f->zc__node);
        wake_senders(f->zc__rx->ch, freed); /* [M2], our node off */
        return s; /* ZC_OK, ZC_LAGGED, ZC_CLOSED */
    }
}

/* ---- the senders' closed event ------------------------------------------------------ */

void zc_bcast_closed_init(zc_bcast_closed *f, zc_bcast_sender *tx) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
}

/* Whether no receiver can take a message any more: closed, or none there. Under mu. */
static bool nobody_listens(zc__bcast *ch) {
    lock(ch);
    bool done = ch->closed || ch->receivers == 0;
    unlock(ch);
    return done;
}

zc_status zc_bcast_closed_poll(zc_bcast_closed *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__tx);
    if (!f || !f->zc__tx) return ZC_EINVAL;
    if (!w || !w->wake) {
        zc_bcast_closed_cancel(f); /* rule 3 */
        return ZC_EINVAL;
    }
    zc__waitlist *wl = &f->zc__tx->ch->close_waiters;
    bool registered = false;
    for (;;) {
        if (nobody_listens(f->zc__tx->ch)) {
            zc__waitlist_unregister(wl, &f->zc__node); /* the close wakes all: none owed */
            return ZC_OK;
        }
        if (registered) return ZC_PENDING;
        zc__waitlist_register(wl, &f->zc__node, w); /* [M2], and re-check */
        registered = true;
    }
}

void zc_bcast_closed_cancel(zc_bcast_closed *f) {
    if (!f || !f->zc__tx || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    zc__waitlist_unregister(&f->zc__tx->ch->close_waiters, &f->zc__node);
}

/* ---- blocking ----------------------------------------------------------------------- */

typedef struct send_op {
    zc_bcast_send f;
} send_op;

typedef struct recv_op {
    zc_bcast_recv f;
    void *out;
    uint64_t *missed;
} recv_op;

static zc_status send_op_poll(void *op, const zc_waker *w) {
    return zc_bcast_send_poll(&((send_op *)op)->f, w);
}

static void send_op_cancel(void *op) { zc_bcast_send_cancel(&((send_op *)op)->f); }

static zc_status recv_op_poll(void *op, const zc_waker *w) {
    recv_op *o = op;
    return zc_bcast_recv_poll(&o->f, w, o->out, o->missed);
}

static void recv_op_cancel(void *op) { zc_bcast_recv_cancel(&((recv_op *)op)->f); }

/* call: the public blocking call (zc__block_on). */
static zc_status send_for(zc_bcast_sender *tx, const void *msg, zc__limit limit,
                          const char *call) {
    send_op o;
    zc_bcast_send_init(&o.f, tx, msg); /* NULL tx or msg: the poll says ZC_EINVAL */
    return zc__block_on(&o, send_op_poll, send_op_cancel, limit, ZC__PARK_YIELD, call);
}

static zc_status recv_for(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                          zc__limit limit, const char *call) {
    recv_op o = {.out = out, .missed = missed};
    zc_bcast_recv_init(&o.f, rx);
    return zc__block_on(&o, recv_op_poll, recv_op_cancel, limit, ZC__PARK_YIELD, call);
}

zc_status zc_bcast_send_timeout(zc_bcast_sender *tx, const void *msg, uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_bcast_recv_timeout(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                                uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, missed, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_bcast_send_blocking(zc_bcast_sender *tx, const void *msg) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_after(UINT64_MAX), __func__);
}

zc_status zc_bcast_recv_blocking(zc_bcast_receiver *rx, void *out, uint64_t *missed) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, missed, zc__limit_after(UINT64_MAX), __func__);
}

zc_status zc_bcast_send_until(zc_bcast_sender *tx, const void *msg, uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(tx);
    return send_for(tx, msg, zc__limit_until(deadline_ns), __func__);
}

zc_status zc_bcast_recv_until(zc_bcast_receiver *rx, void *out, uint64_t *missed,
                              uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(rx);
    return recv_for(rx, out, missed, zc__limit_until(deadline_ns), __func__);
}

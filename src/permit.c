/*
 * permit.c: the two-phase send (zchan/permit.h): reserve a place, then commit a message
 * into it or release it.
 *
 * Bounded: the ring claims the place (zc__ring_reserve, the same claim as a send) and
 * marks its slot reserved; commit publishes it with a seq_cst CAS and, as a send, then
 * looks at the receivers' waiter count [F1]; release turns it into a hole, wakes a
 * receiver that may be waiting behind it, and a sender if the release freed the slot at
 * once. A reservation future waits as a send future does (zc__wait). The orderings are
 * ring.c's ([S1], [S3]) and chan.h's ([F1]); the atomics here are a relaxed bound on
 * the wakes and the acquire look at the receivers' count ([H1]).
 *
 * Unbounded: there is always room, so a reservation only checks the close mark and a
 * commit is a plain send.
 */
#include <zchan/permit.h>

#include "backoff.h"
#include "block_on.h"
#include "wait.h"

/* One reservation attempt into the permit arg: ZC_OK, ZC_FULL, ZC_CLOSED, ZC_PENDING. */
static zc_status reserve_attempt(zc__chan *ch, void *arg, unsigned *owed) {
    (void)owed; /* a reservation publishes nothing: its commit owes the wake */
    return zc__queue_reserve(&ch->q, &((zc_permit *)arg)->zc__pos);
}

/* Fill p for tx after s: held on ZC_OK, empty otherwise. */
static zc_status permit_set(zc_permit *p, zc_sender *tx, zc_status s) {
    p->zc__tx = s == ZC_OK ? tx : NULL;
    return s;
}

zc_status zc_try_reserve(zc_sender *tx, zc_permit *p) {
    ZC__CHECK_HANDLE(tx);
    if (!p) return ZC_EINVAL;
    if (!tx || tx->ch->rv) return permit_set(p, NULL, ZC_EINVAL); /* rendezvous: no slot */
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status s;
    /* ZC_PENDING: a receiver is mid-release on our slot; ZC_FULL would be false. */
    while ((s = reserve_attempt(tx->ch, p, NULL)) == ZC_PENDING) zc__backoff_snooze(&backoff);
    return permit_set(p, tx, s);
}

void zc_reserve_init(zc_reserve *f, zc_sender *tx, zc_permit *p) {
    if (!f) return;
    ZC__CHECK_HANDLE(tx);
    zc__waiter_init(&f->zc__node);
    f->zc__tx = tx;
    f->zc__permit = p;
    f->zc__done = 0;
}

zc_status zc_reserve_poll(zc_reserve *f, const zc_waker *w) {
    ZC__CHECK_FUTURE(f, f->zc__done ? NULL : f->zc__tx); /* done: tx may be gone */
    if (!f || !f->zc__tx || !f->zc__permit) return ZC_EINVAL;
    if (!w || !w->wake || (!f->zc__done && f->zc__tx->ch->rv)) { /* rendezvous: no slot */
        zc_reserve_cancel(f); /* rule 3: not ZC_PENDING, so no wake may follow */
        return ZC_EINVAL;
    }
    if (f->zc__done) return (zc_status)(f->zc__done - 1);
    zc__chan *ch = f->zc__tx->ch;
    zc_status s = zc__wait_poll(ch, ZC__SIDE_SEND, &f->zc__node, w, reserve_attempt,
                                f->zc__permit);
    if (s != ZC_PENDING) {
        f->zc__done = (int)s + 1;
        permit_set(f->zc__permit, f->zc__tx, s);
    }
    return s;
}

void zc_reserve_cancel(zc_reserve *f) {
    if (!f || !f->zc__tx || f->zc__done || zc__waitlist_is_idle(&f->zc__node)) return;
    ZC__CHECK_FUTURE(f, f->zc__tx);
    zc__wait_cancel(f->zc__tx->ch, ZC__SIDE_SEND, &f->zc__node);
}

static zc_status reserve_poll(void *op, const zc_waker *w) { return zc_reserve_poll(op, w); }
static void reserve_cancel(void *op) { zc_reserve_cancel(op); }

/* A reserve future run to a final status or to limit. */
static zc_status reserve_for(zc_sender *tx, zc_permit *p, zc__limit limit,
                             const char *call) {
    if (!p) return ZC_EINVAL;
    if (!tx) return permit_set(p, NULL, ZC_EINVAL);
    zc_reserve f;
    zc_reserve_init(&f, tx, p);
    zc_status s = zc__block_on(&f, reserve_poll, reserve_cancel, limit, ZC__PARK_YIELD, call);
    return s == ZC_TIMEDOUT ? permit_set(p, NULL, s) : s;
}

zc_status zc_reserve_timeout(zc_sender *tx, zc_permit *p, uint64_t timeout_ns) {
    ZC__CHECK_HANDLE(tx);
    return reserve_for(tx, p, zc__limit_after(timeout_ns), __func__);
}

zc_status zc_reserve_blocking(zc_sender *tx, zc_permit *p) {
    ZC__CHECK_HANDLE(tx);
    return reserve_for(tx, p, zc__limit_after(UINT64_MAX), __func__);
}

/* After a bounded commit or release ([F1]: its CAS was seq_cst): the wakes owed to the
 * waiting receivers, one for each message it let through (the place pos itself, and
 * those queued behind it, not those before it: zc__ring_ready_run; at least one); on a
 * closed channel every one, since all of them may now see the end, as close does. */
static void wake_receivers(zc__chan *ch, size_t pos) {
    if (!zc__waitlist_has_waiters(&ch->recv_waiters)) return;
    if (zc__chan_is_closed(ch)) {
        zc__waitlist_notify_all(&ch->recv_waiters);
    } else {
        /* Relaxed: only a bound on the count (no more wakes than waiters can be made);
         * the wakes themselves look at the count again ([F1]). */
        size_t linked = atomic_load_explicit(&ch->recv_waiters.waiters, memory_order_relaxed);
        size_t run = zc__queue_ready_run(&ch->q, pos, linked);
        zc__chan_wake_receivers(ch, run > 0 ? run : 1);
    }
}

/* A bounded place found to be a hole already: abandoned by the last receiver's drop
 * (ZC_CLOSED), or released through a copy of this permit (a stale permit: ZC_EINVAL). */
static zc_status hole_status(zc__chan *ch) {
    /* Acquire: pairs with the last receiver drop's acq_rel decrement ([H1]). */
    return atomic_load_explicit(&ch->receivers, memory_order_acquire) == 0 ? ZC_CLOSED
                                                                          : ZC_EINVAL;
}

zc_status zc_permit_commit(zc_permit *p, const void *msg) {
    if (!p || !p->zc__tx || !msg) return ZC_EINVAL;
    ZC__CHECK_HANDLE(p->zc__tx);
    zc__chan *ch = p->zc__tx->ch;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status s;
    /* Unbounded, the commit is the send itself, which may meet a sender installing the
     * next segment (ZC_PENDING): waited out, as zc_try_send does. */
    while ((s = zc__queue_commit(&ch->q, p->zc__pos, msg)) == ZC_PENDING)
        zc__backoff_snooze(&backoff);
    if (s == ZC_ENOMEM) return s; /* unbounded: the place is still held */
    if (s == ZC_OK) wake_receivers(ch, p->zc__pos);
    /* A bounded place found to be a hole; unbounded, the channel was closed. */
    if (s == ZC_CLOSED && zc__queue_bounded(&ch->q)) s = hole_status(ch);
    p->zc__tx = NULL;
    return s;
}

zc_status zc_permit_release(zc_permit *p) {
    if (!p || !p->zc__tx) return ZC_EINVAL;
    ZC__CHECK_HANDLE(p->zc__tx);
    zc__chan *ch = p->zc__tx->ch;
    p->zc__tx = NULL;
    if (!zc__queue_bounded(&ch->q)) return ZC_OK; /* no place was held */
    size_t freed = 0;
    zc_status s = zc__queue_release(&ch->q, p->zc__pos, &freed);
    if (s != ZC_OK) return s == ZC_CLOSED && hole_status(ch) == ZC_CLOSED ? ZC_OK : ZC_EINVAL;
    /* After the hole's seq_cst CAS and each skip's ([F1], as after receives). */
    wake_receivers(ch, p->zc__pos);
    zc__chan_wake_senders(ch, freed);
    return ZC_OK;
}

zc_status zc_reserve_until(zc_sender *tx, zc_permit *p, uint64_t deadline_ns) {
    ZC__CHECK_HANDLE(tx);
    return reserve_for(tx, p, zc__limit_until(deadline_ns), __func__);
}

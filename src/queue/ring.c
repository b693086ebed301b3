/*
 * ring.c: bounded MPMC ring with per-slot stamps.
 *
 * Source: D. Vyukov, "Bounded MPMC queue" (1024cores.net), generalised as in
 * crossbeam-channel's array flavour (crossbeam-channel/src/flavors/array.rs): head, tail
 * and every slot's stamp are {lap | mark | index} words. mark_bit = next_pow2(cap + 1)
 * sits above every index; one_lap = 2 * mark_bit. Slot i starts with stamp i. A sender at
 * position t may write the slot when its stamp == t, and publishes stamp t + 1; a
 * receiver at position h may read it when its stamp == h + 1, and releases it with
 * stamp h + one_lap (the position the slot has one lap later). Close sets mark_bit in
 * tail, which makes every later CAS on tail fail and every sender see the mark.
 *
 * Full and empty are linearizable (no false ZC_FULL / ZC_EMPTY): when a stamp says
 * "not yet", a seq_cst load of the opposite index tells "really full/empty" from "a peer
 * is between its claim and its stamp store"; the latter spins briefly, then reports
 * ZC_PENDING and the caller decides how to wait. The first attempts are inline in ring.h.
 *
 * Ordering map:
 *   [R1] push: release-store of the published stamp  -> [A2] pop: acquire-load of the stamp
 *        (a receiver that sees stamp == h + 1 also sees the message bytes)
 *   [R2] pop: release-store of the released stamp    -> [A1] push: acquire-load of the stamp
 *        (a sender that sees the slot free also sees the receiver's copy-out finished,
 *        so it cannot overwrite bytes still being read)
 *   [S1] push/pop: seq_cst CAS on tail/head, and [S2] the seq_cst loads of the opposite
 *        index: the queue's half of the Dekker pairing with the waiter counts
 *        (waitlist.c [F1]/[F2]).
 *   [S3] commit/release: seq_cst CAS of a reserved stamp, then (chan layer) a seq_cst
 *        load of the receivers' waiter count  <->  a waiting receiver's registration,
 *        then its seq_cst re-read of the reserved stamp (zc__ring_pop_marked).
 *
 * Reservations (two-phase send): a reserved position's slot holds pos | mark_bit; commit
 * publishes pos + 1 like a push; release leaves the hole (pos + 1) | mark_bit, which the
 * receiver that reaches it skips (moving head and freeing the slot). A releaser whose
 * hole is the oldest place, and a sender that needs that slot, skip it too, so a
 * released place never keeps a slot nobody comes for. mark_bit never appears in a free
 * or published stamp. A receiver never passes a reservation: the message takes its
 * place in the order at reserve time (as the Disruptor's claimed sequence does).
 */
#include "ring.h"

#include "backoff.h"

#include <stdint.h>
#include <string.h>

/* Bytes per slot: the stamp and the message, rounded to 8. */
static size_t ring_stride(size_t elem_size) {
    return (ZC__RING_MSG_OFFSET + elem_size + 7) & ~(size_t)7;
}

zc_status zc__ring_slots_size(size_t cap, size_t elem_size, size_t *bytes) {
    if (cap == 0 || elem_size == 0) return ZC_EINVAL;
    /* cap < 2^(bits-2) keeps mark_bit and one_lap representable. */
    if (cap > SIZE_MAX / 4 || elem_size > SIZE_MAX - ZC__RING_MSG_OFFSET - 8) return ZC_EINVAL;
    if (cap > SIZE_MAX / elem_size) return ZC_EINVAL;
    size_t stride = ring_stride(elem_size);
    if (cap > SIZE_MAX / stride) return ZC_EINVAL;
    *bytes = cap * stride;
    return ZC_OK;
}

void zc__ring_init(zc__ring *r, size_t cap, size_t elem_size, void *slots) {
    size_t mark_bit = 1;
    while (mark_bit < cap + 1) mark_bit <<= 1;
    r->cap = cap;
    r->mark_bit = mark_bit;
    r->one_lap = mark_bit * 2;
    r->elem_size = elem_size;
    r->stride = ring_stride(elem_size);
    r->slots = slots;
    /* atomic_init: the handle's hand-over to other threads publishes the ring. A
     * lap-aligned start: 0, or (test hooks) a few laps before the counters wrap. */
    size_t start = ZC__START_POS(r->one_lap);
    for (size_t i = 0; i < cap; i++) atomic_init(zc__ring_stamp(r, i), start + i);
    atomic_init(ZC__RING_HEAD(r), start);
    atomic_init(ZC__RING_TAIL(r), start);
}

/* Claim the next send position: ZC_OK (*pos claimed, its slot free for us), ZC_FULL,
 * ZC_CLOSED, or ZC_PENDING (a receiver is still releasing the slot we need). */
static zc_status ring_claim_send(zc__ring *r, size_t *pos) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    /* Relaxed: only a guess of where to start; the stamp check and the CAS validate it. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
    for (;;) {
        if (tail & r->mark_bit) return ZC_CLOSED;
        size_t index = tail & (r->mark_bit - 1);
        /* [A1] pairs with [R2]: a free slot's previous message has been copied out. */
        size_t stamp = atomic_load_explicit(zc__ring_stamp(r, index), memory_order_acquire);
        if (stamp == tail) {
            /* [S1] seq_cst: the claim takes part in the waiter-count Dekker pairing. On
             * failure tail is reloaded (relaxed: the stamp re-validates it). */
            if (atomic_compare_exchange_weak_explicit(ZC__RING_TAIL(r),
                                                      &tail, zc__ring_next(r, tail),
                                                      memory_order_seq_cst,
                                                      memory_order_relaxed)) {
                ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
                *pos = tail;
                return ZC_OK;
            }
            zc__backoff_spin(&contention);
        } else {
            zc__ring_block b = zc__ring_send_blocked(r, tail, stamp);
            if (b == ZC__RING_BLOCK_FULL) return ZC_FULL;
            if (b == ZC__RING_BLOCK_WAIT && !zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            /* Relaxed: a guess, as above. */
            tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
        }
    }
}

zc__ring_block zc__ring_send_blocked(zc__ring *r, size_t pos, size_t stamp) {
    /* Our tail is stale (other senders moved on), or the sender that claimed the slot's
     * previous position is still writing it: a peer mid-operation, as far as we know. */
    if (!zc__ring_held_prev_lap(r, stamp, pos)) return ZC__RING_BLOCK_WAIT;
    /* The slot still holds the previous lap's message (or reservation, or hole). [S2]
     * seq_cst: a waiting sender's re-check must see a receiver's claim. */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
    /* Not the oldest place: a receiver claimed that message and is still copying it out. */
    if (head + r->one_lap != pos) return ZC__RING_BLOCK_WAIT;
    /* The oldest place. A released one is no message: skip it as a receive would, and
     * take the slot (no false ZC_FULL); anything else: cap places are held. */
    return zc__ring_skip_hole(r, head, stamp) ? ZC__RING_BLOCK_AGAIN : ZC__RING_BLOCK_FULL;
}

zc_status zc__ring_push_slow(zc__ring *r, const void *msg) {
    size_t tail;
    zc_status s = ring_claim_send(r, &tail);
    if (s != ZC_OK) return s;
    size_t index = tail & (r->mark_bit - 1);
    zc__copy_in(zc__ring_msg(r, index), msg, r->elem_size);
    /* [R1] publish the message; pairs with [A2] in zc__ring_pop(). */
    atomic_store_explicit(zc__ring_stamp(r, index), tail + 1, memory_order_release);
    ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
    return ZC_OK;
}

zc_status zc__ring_pop_slow(zc__ring *r, void *out, size_t *skipped) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    /* Relaxed: a guess, validated by the stamp and the CAS. */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
    for (;;) {
        size_t index = head & (r->mark_bit - 1);
        /* [A2] pairs with [R1]: a published stamp makes the message bytes visible. */
        size_t stamp = atomic_load_explicit(zc__ring_stamp(r, index), memory_order_acquire);
        if (stamp == head + 1) {
            /* [S1] seq_cst claim (Dekker pairing with the senders' waiter count). */
            if (atomic_compare_exchange_weak_explicit(ZC__RING_HEAD(r),
                                                      &head, zc__ring_next(r, head),
                                                      memory_order_seq_cst,
                                                      memory_order_relaxed)) {
                ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
                zc__copy_out(out, zc__ring_msg(r, index), r->elem_size);
                /* [R2] release the slot for the next lap; pairs with [A1]. */
                atomic_store_explicit(zc__ring_stamp(r, index), head + r->one_lap,
                                      memory_order_release);
                ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
                return ZC_OK;
            }
            zc__backoff_spin(&contention);
        } else {
            zc__ring_block b = zc__ring_recv_blocked(r, head, stamp, skipped);
            if (b == ZC__RING_BLOCK_EMPTY) return ZC_EMPTY;
            if (b == ZC__RING_BLOCK_CLOSED) return ZC_CLOSED;
            if (b == ZC__RING_BLOCK_WAIT && !zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            /* Relaxed: a guess, as above. */
            head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
        }
    }
}

zc__ring_block zc__ring_recv_blocked(zc__ring *r, size_t head, size_t stamp, size_t *skipped) {
    if (stamp & r->mark_bit) {
        /* A reservation (the ring is empty for now) or a released hole (skip it). */
        zc__ring_mark m = zc__ring_pop_marked(r, head, stamp);
        if (m == ZC__RING_RESERVED) return ZC__RING_BLOCK_EMPTY;
        *skipped += m == ZC__RING_SKIPPED;
        return ZC__RING_BLOCK_AGAIN;
    }
    /* Stale head (other receivers moved on), or the receiver that claimed the slot's
     * previous message is still copying it out. */
    if (stamp != head) return ZC__RING_BLOCK_WAIT;
    /* Nothing published here. [S2] seq_cst: see the map. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst);
    if ((tail & ~r->mark_bit) == head)
        return (tail & r->mark_bit) ? ZC__RING_BLOCK_CLOSED : ZC__RING_BLOCK_EMPTY;
    return ZC__RING_BLOCK_WAIT; /* a sender claimed this slot and is still writing it */
}

zc_status zc__ring_reserve(zc__ring *r, size_t *pos) {
    zc_status s = ring_claim_send(r, pos);
    if (s != ZC_OK) return s;
    /* Release: orders nothing that matters (no bytes yet); until this store a receiver
     * sees the free stamp and waits as for any sender between claim and publish. */
    atomic_store_explicit(zc__ring_stamp(r, *pos & (r->mark_bit - 1)), *pos | r->mark_bit,
                          memory_order_release);
    ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
    return ZC_OK;
}

zc_status zc__ring_commit(zc__ring *r, size_t pos, const void *msg) {
    size_t index = pos & (r->mark_bit - 1);
    size_t reserved = pos | r->mark_bit;
    /* Acquire: a stale permit (a copy of one committed or released since) must not write
     * into a slot that another position may own now: a reserved stamp is ours alone. */
    size_t now = atomic_load_explicit(zc__ring_stamp(r, index), memory_order_acquire);
    if (now != reserved) return now == ((pos + 1) | r->mark_bit) ? ZC_CLOSED : ZC_EINVAL;
    zc__copy_in(zc__ring_msg(r, index), msg, r->elem_size);
    /* [S3] seq_cst CAS: publishes the message as [R1] does (pairs with [A2]) and, being an
     * RMW before the caller's look at the receivers' waiter count, pairs with a waiting
     * receiver's seq_cst re-read of the reserved stamp in zc__ring_pop_marked (Dekker).
     * It fails only if discard abandoned the reservation: then no one reads the bytes. */
    if (atomic_compare_exchange_strong_explicit(zc__ring_stamp(r, index), &reserved, pos + 1,
                                                memory_order_seq_cst, memory_order_relaxed)) {
        ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
        return ZC_OK;
    }
    return ZC_CLOSED; /* abandoned since our check: the slot stays a hole, unread */
}

/* Move head past the hole at *head and free its slot: true on success; false if another
 * receiver moved head first (*head is then the new value). */
static bool ring_skip(zc__ring *r, size_t *head) {
    size_t h = *head;
    /* [S1] seq_cst: freeing a slot takes part in the senders' Dekker pairing as a
     * receive's claim does; failure reloads head (relaxed: a guess). */
    if (!atomic_compare_exchange_strong_explicit(ZC__RING_HEAD(r), head, zc__ring_next(r, h),
                                                 memory_order_seq_cst, memory_order_relaxed))
        return false;
    /* [R2] free the slot for the next lap; pairs with a sender's [A1]. */
    atomic_store_explicit(zc__ring_stamp(r, h & (r->mark_bit - 1)), h + r->one_lap,
                          memory_order_release);
    return true;
}

bool zc__ring_skip_hole(zc__ring *r, size_t head, size_t stamp) {
    return stamp == ((head + 1) | r->mark_bit) && ring_skip(r, &head);
}

zc_status zc__ring_release(zc__ring *r, size_t pos, size_t *freed) {
    _Atomic size_t *stamp = zc__ring_stamp(r, pos & (r->mark_bit - 1));
    size_t reserved = pos | r->mark_bit, hole = (pos + 1) | r->mark_bit;
    *freed = 0;
    /* [S3] seq_cst, as in zc__ring_commit: receivers waiting behind the reservation must
     * see the hole, or be seen by the caller's look at their waiter count. On failure,
     * acquire: what we read decides only the status. */
    if (!atomic_compare_exchange_strong_explicit(stamp, &reserved, hole, memory_order_seq_cst,
                                                 memory_order_acquire))
        return reserved == hole ? ZC_CLOSED : ZC_EINVAL;
    /* seq_cst: a guess that ring_skip's CAS validates. If our hole is the oldest place,
     * free its slot and those of the holes right after it. */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
    if (head == pos) *freed = zc__ring_skip_holes(r, head);
    return ZC_OK;
}

size_t zc__ring_skip_holes(zc__ring *r, size_t head) {
    size_t n = 0;
    for (;;) {
        /* Acquire: pairs with the release's [S3] CAS that made the hole. */
        size_t st = atomic_load_explicit(zc__ring_stamp(r, head & (r->mark_bit - 1)),
                                         memory_order_acquire);
        if (!zc__ring_skip_hole(r, head, st)) return n;
        ++n;
        head = zc__ring_next(r, head);
    }
}

zc__ring_mark zc__ring_pop_marked(zc__ring *r, size_t head, size_t stamp) {
    _Atomic size_t *at = zc__ring_stamp(r, head & (r->mark_bit - 1));
    if (stamp == (head | r->mark_bit)) {
        /* [S3] seq_cst re-read: a receiver registered as a waiter before this load sees
         * a commit or release whose waiter-count load did not see it (Dekker). */
        return atomic_load_explicit(at, memory_order_seq_cst) == stamp ? ZC__RING_RESERVED
                                                                       : ZC__RING_GONE;
    }
    /* A hole: skip it. Anything else: a stale head's slot, reused since. */
    return zc__ring_skip_hole(r, head, stamp) ? ZC__RING_SKIPPED : ZC__RING_GONE;
}

/* What one try at replacing the oldest message came to. */
typedef enum replace_result {
    REPLACED,       /* msg sent (the oldest taken out, or a receiver took it first) */
    REPLACE_AGAIN,  /* the ring moved (no longer full, or a peer moved tail): push again */
    REPLACE_NOTHING /* the oldest place is a reservation: nothing to take out */
} replace_result;

/* With the ring seen full: claim the send position tail (its slot still holds the
 * oldest place, head, so no other sender can), then the oldest message (a receive's
 * claim), and write msg into the slot. A receiver that takes the oldest message first
 * frees the slot for us as it would for any sender. */
static replace_result ring_replace_oldest(zc__ring *r, const void *msg,
                                          zc__ring_evict_fn *evict, void *ctx,
                                          bool *evicted) {
    /* Relaxed: a guess, validated by the CAS on tail below. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
    if (tail & r->mark_bit) return REPLACE_AGAIN; /* closed: the push says so */
    size_t head = tail - r->one_lap; /* the oldest place, if the ring is full */
    _Atomic size_t *stamp = zc__ring_stamp(r, head & (r->mark_bit - 1));
    /* [S2] seq_cst, as a send's look at head: full means head is one lap behind tail. */
    if (atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst) != head) return REPLACE_AGAIN;
    /* [A2] pairs with [R1]: a published message's bytes are visible. */
    size_t st = atomic_load_explicit(stamp, memory_order_acquire);
    if (st == (head | r->mark_bit)) return REPLACE_NOTHING; /* a reservation */
    if (st != head + 1) {
        zc__ring_skip_hole(r, head, st); /* a hole is no message: skip it, push again */
        return REPLACE_AGAIN;
    }
    /* [S1] seq_cst claim of position tail, as a push's. */
    if (!atomic_compare_exchange_strong_explicit(ZC__RING_TAIL(r), &tail, zc__ring_next(r, tail),
                                                 memory_order_seq_cst, memory_order_relaxed))
        return REPLACE_AGAIN;
    ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
    size_t h = head;
    /* [S1] seq_cst claim of the oldest message, as a receive's. */
    if (atomic_compare_exchange_strong_explicit(ZC__RING_HEAD(r), &h, zc__ring_next(r, head),
                                                memory_order_seq_cst, memory_order_relaxed)) {
        evict(zc__ring_msg(r, head & (r->mark_bit - 1)), ctx);
        *evicted = true;
    } else {
        /* A receiver took it: wait while it copies it out ([A1] pairs with its [R2]). */
        zc__backoff backoff = ZC__BACKOFF_INIT;
        while (atomic_load_explicit(stamp, memory_order_acquire) != tail)
            zc__backoff_snooze(&backoff);
    }
    zc__copy_in(zc__ring_msg(r, tail & (r->mark_bit - 1)), msg, r->elem_size);
    /* [R1] publish the message; pairs with [A2]. */
    atomic_store_explicit(stamp, tail + 1, memory_order_release);
    ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
    return REPLACED;
}

zc_status zc__ring_force_push(zc__ring *r, const void *msg, zc__ring_evict_fn *evict,
                              void *ctx, bool *evicted) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    *evicted = false;
    for (;;) {
        zc_status s = zc__ring_push(r, msg);
        if (s == ZC_OK || s == ZC_CLOSED) return s;
        if (s == ZC_FULL) {
            replace_result k = ring_replace_oldest(r, msg, evict, ctx, evicted);
            if (k == REPLACED) return ZC_OK;
            if (k == REPLACE_NOTHING) return ZC_FULL;
        }
        zc__backoff_snooze(&backoff); /* a peer mid-operation, or the ring moved */
    }
}

bool zc__ring_recv_ready(const zc__ring *r) {
    /* seq_cst, each load: the queue's half of the waiter's [F2] re-check. Not ready only
     * where the peer that makes it ready pays its wakes after a seq_cst RMW ordered after
     * the load that saw it not ready: a sender's [S1] claim of tail, a commit's [S3] CAS
     * of the reserved stamp. */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
    size_t stamp = atomic_load_explicit(zc__ring_stamp(r, head & (r->mark_bit - 1)),
                                        memory_order_seq_cst);
    /* A reservation at head: empty for now. A hole: the attempt skips it. */
    if (stamp & r->mark_bit) return stamp != (head | r->mark_bit);
    /* Published, or a stale head or a receiver still copying out: the attempt decides. */
    if (stamp != head) return true;
    /* Nothing published at head: ready if closed, or a sender claimed it (mid-write). */
    return atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst) != head;
}

bool zc__ring_send_ready(const zc__ring *r) {
    /* seq_cst, as in zc__ring_recv_ready: a receiver's [S1] claim of head, a releaser's
     * [S3] CAS, make room and pay the wakes after. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst);
    if (tail & r->mark_bit) return true; /* closed */
    size_t stamp = atomic_load_explicit(zc__ring_stamp(r, tail & (r->mark_bit - 1)),
                                        memory_order_seq_cst);
    if (stamp == tail || !zc__ring_held_prev_lap(r, stamp, tail)) return true;
    /* The slot holds the previous lap's place: full, unless a receiver has claimed it
     * (still copying out) or it is a hole (the attempt skips it). */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
    return head + r->one_lap != tail || stamp == ((head + 1) | r->mark_bit);
}

bool zc__ring_send_ready_n(const zc__ring *r, size_t n) {
    if (n <= 1) return zc__ring_send_ready(r);
    /* seq_cst, as zc__ring_send_ready: a receiver's [S1] claim of head, a releaser's [S3]
     * CAS, make room and pay the wakes after; zc__ring_len's loads are seq_cst too. */
    if (atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst) & r->mark_bit) return true;
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
    size_t stamp = atomic_load_explicit(zc__ring_stamp(r, head & (r->mark_bit - 1)),
                                        memory_order_seq_cst);
    return stamp == ((head + 1) | r->mark_bit) || r->cap - zc__ring_len(r) >= n;
}

bool zc__ring_close(zc__ring *r) {
    /* seq_cst: close is ordered before the waiter-list sweep that follows it, and any
     * sender's later CAS on tail fails against the marked value. */
    size_t old = atomic_fetch_or_explicit(ZC__RING_TAIL(r), r->mark_bit, memory_order_seq_cst);
    return (old & r->mark_bit) == 0;
}

bool zc__ring_is_closed(const zc__ring *r) {
    /* seq_cst: callers use it for the "closed" half of a re-check (Dekker pairing). */
    return (atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst) & r->mark_bit) != 0;
}

size_t zc__ring_len(const zc__ring *r) {
    for (;;) {
        /* seq_cst loads, tail read twice: a consistent snapshot of both indices. */
        size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst);
        size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst);
        if (atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst) != tail) continue;
        size_t hix = head & (r->mark_bit - 1);
        size_t tix = tail & (r->mark_bit - 1);
        if (hix < tix) return tix - hix;
        if (hix > tix) return r->cap - hix + tix;
        return (tail & ~r->mark_bit) == head ? 0 : r->cap;
    }
}

size_t zc__ring_ready_run(const zc__ring *r, size_t from, size_t max) {
    /* seq_cst: after the caller's seq_cst commit or release ([F1]); a head older than
     * that only ends the count early. */
    size_t pos = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst), n = 0;
    /* Places before from are not counted. A head at or past from (within a lap of it,
     * so the difference tells) counts from head. */
    bool counting = pos - from < SIZE_MAX / 2;
    /* Acquire, as [A2]; a guess all the same. A hole is passed over, a reservation ends
     * the run. At most cap places: the next lap's are not published while ours is held. */
    for (size_t places = 0; n < max && places < r->cap; places++) {
        size_t stamp = atomic_load_explicit(zc__ring_stamp(r, pos & (r->mark_bit - 1)),
                                            memory_order_acquire);
        counting = counting || pos == from;
        if (stamp == pos + 1)
            n += counting;
        else if (stamp != ((pos + 1) | r->mark_bit))
            break;
        pos = zc__ring_next(r, pos);
    }
    return n;
}

/* Move head from *head to the next position: true if this call did; false if another
 * did first (*head is then the new value). [S1] seq_cst, as a receive's claim. */
static bool ring_claim_head(zc__ring *r, size_t *head) {
    return atomic_compare_exchange_strong_explicit(ZC__RING_HEAD(r), head, zc__ring_next(r, *head),
                                                   memory_order_seq_cst, memory_order_relaxed);
}

void zc__ring_discard(zc__ring *r, void (*drop)(void *msg, void *ctx), void *ctx) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    /* The ring is closed: tail is frozen. seq_cst/relaxed: no receiver is left, and the
     * caller's handle-count RMW (acq_rel) ordered every earlier receive before us. Head
     * still moves under us: a force push that claimed its send position before the close
     * takes the oldest message as a receive would (ring_replace_oldest), and a releaser
     * skips its hole at head. So each position is claimed here with a CAS on head, and
     * whoever moves head owns what was there. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_seq_cst) & ~r->mark_bit;
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
    while (head != tail) {
        size_t index = head & (r->mark_bit - 1);
        _Atomic size_t *at = zc__ring_stamp(r, index);
        /* [A2] pairs with [R1]: wait for a sender that claimed before the close. */
        size_t stamp = atomic_load_explicit(at, memory_order_acquire);
        size_t reserved = head | r->mark_bit;
        if (stamp == head + 1) {
            size_t pos = head;
            if (!ring_claim_head(r, &head)) continue; /* a force push took it */
            if (drop) drop(zc__ring_msg(r, index), ctx);
            /* [R2] free the slot, as a receive does: the force push that claimed this
             * slot's next position writes there next. */
            atomic_store_explicit(at, pos + r->one_lap, memory_order_release);
            head = zc__ring_next(r, pos);
        } else if (stamp == ((head + 1) | r->mark_bit)) {
            /* A hole (released, or abandoned below): passed over, its stamp left as it
             * is, so that a commit of its permit finds it abandoned (a releaser that
             * skips it first moves head: the CAS says so). */
            size_t pos = head;
            if (ring_claim_head(r, &head)) head = zc__ring_next(r, pos);
        } else if (stamp == head + r->one_lap) {
            /* Its releaser skipped it and freed the slot after we read head. */
            /* Relaxed: a guess, as above. */
            head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
        } else if (stamp == reserved) {
            /* A reservation not committed yet: abandon it, so that its commit fails and
             * the permit's message stays with its holder, then skip it. Relaxed: only who
             * owns the slot is decided (commit's seq_cst CAS on the same stamp); no bytes
             * pass. */
            atomic_compare_exchange_strong_explicit(at, &reserved, (head + 1) | r->mark_bit,
                                                    memory_order_relaxed, memory_order_relaxed);
        } else {
            zc__backoff_snooze(&backoff);
            head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed); /* a guess */
        }
    }
}

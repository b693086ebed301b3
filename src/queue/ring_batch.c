/*
 * ring_batch.c: batch send and receive on the bounded ring, one CAS per batch.
 *
 * A batch checks the stamps of the k slots from tail (head) onwards, walking positions
 * with zc__ring_next (so it may wrap around the slot array), and claims all k with one
 * CAS to the position after the k-th. The k slots are still free once the CAS succeeds:
 * a free slot's stamp (== its position p) changes only after someone moves tail past p,
 * and our CAS found tail unchanged. The same holds for a receive batch with published
 * stamps (== p + 1) and head. A batch never holds more than cap slots: after cap steps
 * the walk is back at the first slot, whose stamp belongs to the earlier lap. A batch
 * claims only slots it has seen ready, so one that fails has committed nothing.
 *
 * Ordering map: the pairs of ring.c's map, per slot: [A1]/[R2] and [R1]/[A2] on each
 * stamp; [S1] the seq_cst CAS claiming the batch, [S2] the seq_cst load of the opposite
 * index before reporting full / empty (the Dekker pairing of waitlist.c [F1]/[F2]).
 */
#include "ring_batch.h"

#include "backoff.h"

#include <assert.h>

/* Bytes of message i of a batch. */
static inline const unsigned char *batch_msg(const void *msgs, size_t i, size_t elem_size) {
    return (const unsigned char *)msgs + i * elem_size;
}

zc_status zc__ring_push_many(zc__ring *r, const void *msgs, size_t n, bool all, size_t *count,
                             size_t *freed) {
    assert(n > 0 && !(all && n > r->cap) && "all-or-nothing batches never exceed cap");
    *freed = 0;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    /* Relaxed: a guess of where to send; the stamps and the CAS validate it. */
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
    for (;;) {
        if (tail & r->mark_bit) return ZC_CLOSED;
        /* Count the free slots from tail, up to n; pos ends after the last free one. */
        size_t k = 0, pos = tail, stamp = 0;
        while (k < n) {
            /* [A1] pairs with [R2]: a free slot's previous message has been copied out. */
            stamp = atomic_load_explicit(zc__ring_stamp(r, pos & (r->mark_bit - 1)),
                                         memory_order_acquire);
            if (stamp != pos) break;
            k++;
            pos = zc__ring_next(r, pos);
        }
        if (k == n || (k > 0 && !all)) {
            /* [S1] seq_cst claim of all k at once; on failure tail is reloaded (relaxed:
             * the stamps re-validate it). */
            if (atomic_compare_exchange_weak_explicit(ZC__RING_TAIL(r),
                                                      &tail, pos, memory_order_seq_cst,
                                                      memory_order_relaxed)) {
                ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
                for (size_t i = 0, p = tail; i < k; i++, p = zc__ring_next(r, p)) {
                    size_t index = p & (r->mark_bit - 1);
                    zc__copy_in(zc__ring_msg(r, index), batch_msg(msgs, i, r->elem_size),
                                 r->elem_size);
                    /* [R1] publish each message; pairs with [A2]. */
                    atomic_store_explicit(zc__ring_stamp(r, index), p + 1, memory_order_release);
                }
                ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
                *count = k;
                return ZC_OK;
            }
            zc__backoff_spin(&contention);
        } else {
            /* The slot at pos is not free. If its message is unclaimed, at most k slots
             * were free at this load (tail only grows): full. */
            zc__ring_block blk = zc__ring_send_blocked(r, pos, stamp);
            if (blk == ZC__RING_BLOCK_FULL) return ZC_FULL;
            *freed += blk == ZC__RING_BLOCK_AGAIN; /* a hole skipped */
            if (blk == ZC__RING_BLOCK_WAIT && !zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            /* Relaxed: a guess, as above. */
            tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
        }
    }
}

zc_status zc__ring_pop_many(zc__ring *r, void *out, size_t max, size_t *count,
                           size_t *skipped) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    /* Relaxed: a guess, validated by the stamps and the CAS. */
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
    for (;;) {
        /* Count the published slots from head, up to max. */
        size_t k = 0, pos = head, stamp = 0;
        while (k < max) {
            /* [A2] pairs with [R1]: a published stamp makes the message bytes visible. */
            stamp = atomic_load_explicit(zc__ring_stamp(r, pos & (r->mark_bit - 1)),
                                         memory_order_acquire);
            if (stamp != pos + 1) break;
            k++;
            pos = zc__ring_next(r, pos);
        }
        if (k > 0) {
            /* [S1] seq_cst claim of all k at once; failure reloads head (relaxed). */
            if (atomic_compare_exchange_weak_explicit(ZC__RING_HEAD(r),
                                                      &head, pos, memory_order_seq_cst,
                                                      memory_order_relaxed)) {
                ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
                unsigned char *dst = out;
                for (size_t i = 0, p = head; i < k; i++, p = zc__ring_next(r, p)) {
                    size_t index = p & (r->mark_bit - 1);
                    zc__copy_out(dst + i * r->elem_size, zc__ring_msg(r, index), r->elem_size);
                    /* [R2] release each slot for the next lap; pairs with [A1]. */
                    atomic_store_explicit(zc__ring_stamp(r, index), p + r->one_lap,
                                          memory_order_release);
                }
                ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
                *count = k;
                return ZC_OK;
            }
            zc__backoff_spin(&contention);
        } else {
            /* At head (k == 0). */
            zc__ring_block blk = zc__ring_recv_blocked(r, head, stamp, skipped);
            if (blk == ZC__RING_BLOCK_EMPTY) return ZC_EMPTY;
            if (blk == ZC__RING_BLOCK_CLOSED) return ZC_CLOSED;
            if (blk == ZC__RING_BLOCK_WAIT && !zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed); /* a guess */
        }
    }
}

/*
 * ring_batch.h: batch operations on the bounded ring (algorithm only, like ring.h):
 * claim k consecutive slots with one CAS on tail (or head), then copy and publish each.
 * Ordering map and the argument for the multi-slot claim: ring_batch.c.
 */
#ifndef ZCHAN_SRC_RING_BATCH_H
#define ZCHAN_SRC_RING_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "ring.h"

/* Send up to n messages (msgs: n * elem_size contiguous bytes) with one claim.
 * ZC_OK: the first *count of them (1 <= *count <= min(n, cap)) were copied in and
 *        published, as one consecutive run of the ring's order; *count == n when all.
 * ZC_FULL: no slot was free (or, when all, fewer than n), at some moment of the call.
 * ZC_CLOSED: the ring is closed.
 * ZC_PENDING: a receiver is still copying out of a slot this claim needs, and a short
 *             spin did not see it finish; nothing was claimed.
 * n >= 1, and n <= cap when all. *count is written only on ZC_OK. *freed (always
 * written) counts the released reservations (holes) skipped at the oldest place on the
 * way, each of which freed a slot; on any status but ZC_OK those slots were left unused,
 * and each owes a waiting sender a wake. */
zc_status zc__ring_push_many(zc__ring *r, const void *msgs, size_t n, bool all, size_t *count,
                             size_t *freed);

/* Receive up to max messages (out: max * elem_size writable bytes) with one claim.
 * ZC_OK: *count (1 <= *count <= min(max, cap)) messages, the oldest ones, were copied
 *        out in order; the claim stops early at a slot whose sender is still writing,
 *        at a reservation, or at a hole.
 * ZC_EMPTY, ZC_CLOSED, ZC_PENDING, and holes skipped (added to *skipped): as zc__ring_pop.
 * max >= 1. *count is written only on ZC_OK. */
zc_status zc__ring_pop_many(zc__ring *r, void *out, size_t max, size_t *count,
                           size_t *skipped);

#endif /* ZCHAN_SRC_RING_BATCH_H */

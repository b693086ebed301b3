/*
 * queue.c: the queue interface's operations that are not inline (queue.h): each chooses
 * the kind and calls it. The segmented queue has no batch claim, so its batches are a
 * loop of single operations here.
 *
 * No atomics of its own besides zc__queue_freed_mark's load; the orderings are those of
 * ring.c, ring_batch.c and segq.c.
 */
#include "queue.h"

#include "backoff.h"

zc_status zc__queue_storage_size(size_t cap, size_t elem_size, size_t *bytes) {
    if (cap > 0) return zc__ring_slots_size(cap, elem_size, bytes);
    *bytes = 0;
    return elem_size > 0 ? ZC_OK : ZC_EINVAL;
}

zc_status zc__queue_init(zc__queue *q, size_t cap, size_t elem_size, void *storage) {
    q->kind = cap > 0 ? ZC__QUEUE_RING : ZC__QUEUE_SEGQ;
    q->ring8 = cap > 0 && elem_size == 8;
    q->segq8 = cap == 0 && elem_size == 8;
    q->elem_size = elem_size;
    if (cap == 0) return zc__segq_init(&q->u.segq, elem_size);
    zc__ring_init(&q->u.ring, cap, elem_size, storage);
    return ZC_OK;
}

void zc__queue_destroy(zc__queue *q) {
    if (q->kind == ZC__QUEUE_SEGQ) zc__segq_destroy(&q->u.segq);
}

size_t zc__queue_capacity(const zc__queue *q) {
    return q->kind == ZC__QUEUE_RING ? q->u.ring.cap : SIZE_MAX;
}

/* One push at a time. The push that fails (closed, ENOMEM) is reported by the next
 * attempt if some went in. Once an all-or-nothing batch has begun (in this attempt or an
 * earlier one, cut by ENOMEM), a sender installing the next segment (ZC_PENDING) is
 * waited out: a ZC_PENDING here would let a deadline or a cancel leave it half sent. */
static zc_status segq_push_many(zc__segq *q, const unsigned char *msgs, size_t n, bool all,
                                bool begun, size_t *count) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    size_t k = 0;
    zc_status s = ZC_OK;
    while (k < n) {
        s = zc__segq_push(q, msgs + k * q->elem_size);
        if (s == ZC_OK)
            k++;
        else if (s == ZC_PENDING && all && (begun || k > 0))
            zc__backoff_snooze(&backoff);
        else
            break;
    }
    if (k == 0) return s;
    *count = k;
    return ZC_OK;
}

zc_status zc__queue_push_many(zc__queue *q, const void *msgs, size_t n, bool all, bool begun,
                              size_t *count, size_t *freed) {
    if (q->kind != ZC__QUEUE_RING) return segq_push_many(&q->u.segq, msgs, n, all, begun, count);
    size_t skipped;
    zc_status s = zc__ring_push_many(&q->u.ring, msgs, n, all, count, &skipped);
    if (s != ZC_OK) *freed += skipped; /* slots freed and left unused */
    return s;
}

zc_status zc__queue_pop_many(zc__queue *q, void *out, size_t max, size_t *count,
                             size_t *freed) {
    if (q->kind == ZC__QUEUE_RING) {
        zc_status s = zc__ring_pop_many(&q->u.ring, out, max, count, freed);
        if (s == ZC_OK) *freed += *count;
        return s;
    }
    unsigned char *bytes = out;
    size_t k = 0;
    zc_status s = ZC_OK;
    while (k < max && (s = zc__segq_pop(&q->u.segq, bytes + k * q->elem_size)) == ZC_OK) k++;
    if (k == 0) return s;
    *count = k;
    return ZC_OK;
}

zc_status zc__queue_reserve(zc__queue *q, size_t *pos) {
    if (q->kind == ZC__QUEUE_RING) return zc__ring_reserve(&q->u.ring, pos);
    *pos = 0;
    return zc__segq_is_closed(&q->u.segq) ? ZC_CLOSED : ZC_OK;
}

zc_status zc__queue_commit(zc__queue *q, size_t pos, const void *msg) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_commit(&q->u.ring, pos, msg)
                                     : zc__segq_push(&q->u.segq, msg);
}

zc_status zc__queue_release(zc__queue *q, size_t pos, size_t *freed) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_release(&q->u.ring, pos, freed) : ZC_OK;
}

size_t zc__queue_ready_run(const zc__queue *q, size_t from, size_t max) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_ready_run(&q->u.ring, from, max) : 1;
}

bool zc__queue_ready(const zc__queue *q, bool recv) {
    if (!recv) return zc__queue_send_ready(q, 1);
    return q->kind == ZC__QUEUE_RING ? zc__ring_recv_ready(&q->u.ring)
                                     : zc__segq_recv_ready(&q->u.segq);
}

bool zc__queue_send_ready(const zc__queue *q, size_t n) {
    return q->kind != ZC__QUEUE_RING || zc__ring_send_ready_n(&q->u.ring, n);
}

bool zc__queue_close(zc__queue *q) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_close(&q->u.ring) : zc__segq_close(&q->u.segq);
}

bool zc__queue_is_closed(const zc__queue *q) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_is_closed(&q->u.ring)
                                     : zc__segq_is_closed(&q->u.segq);
}

size_t zc__queue_len(const zc__queue *q) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_len(&q->u.ring) : zc__segq_len(&q->u.segq);
}

size_t zc__queue_room(const zc__queue *q) {
    if (q->kind != ZC__QUEUE_RING || zc__ring_is_closed(&q->u.ring)) return 0;
    size_t len = zc__ring_len(&q->u.ring);
    return len < q->u.ring.cap ? q->u.ring.cap - len : 0;
}

size_t zc__queue_skip_holes(zc__queue *q) {
    if (q->kind != ZC__QUEUE_RING) return 0;
    /* seq_cst: a guess (each skip's CAS validates it), after the caller's claims. */
    zc__ring *r = &q->u.ring;
    return zc__ring_skip_holes(r, atomic_load_explicit(ZC__RING_HEAD(r), memory_order_seq_cst));
}

size_t zc__queue_freed_mark(const zc__queue *q) {
    /* seq_cst: after the caller's registration ([N2]) or claims, it sees their moves of
     * head; a later value only means more room. */
    return q->kind == ZC__QUEUE_RING
               ? atomic_load_explicit(ZC__RING_HEAD(&q->u.ring), memory_order_seq_cst)
               : 0;
}

void zc__queue_discard(zc__queue *q, void (*drop)(void *msg, void *ctx), void *ctx) {
    if (q->kind == ZC__QUEUE_RING)
        zc__ring_discard(&q->u.ring, drop, ctx);
    else
        zc__segq_discard(&q->u.segq, drop, ctx);
}

void zc__queue_receiver_left(zc__queue *q) {
    if (q->kind == ZC__QUEUE_SEGQ) zc__segq_reclaim(&q->u.segq, NULL);
}

zc_status zc__queue_force_push(zc__queue *q, const void *msg, zc__ring_evict_fn *evict,
                               void *ctx, bool *evicted) {
    if (q->kind == ZC__QUEUE_RING) return zc__ring_force_push(&q->u.ring, msg, evict, ctx, evicted);
    *evicted = false;
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc_status s;
    while ((s = zc__segq_push(&q->u.segq, msg)) == ZC_PENDING) zc__backoff_snooze(&backoff);
    return s;
}

/*
 * queue.h: the one interface between an MPMC channel and its queue kinds.
 *
 * A channel makes every operation on its messages through the functions below; each
 * chooses the kind here, so nothing above this file knows which kind it has. The kinds
 * are algorithms only (no wakers, no handles):
 *   ring.h, ring.c, ring_batch.c  bounded: D. Vyukov's ring with per-slot stamps
 *   segq.h, segq.c                unbounded: a list of 31-slot segments
 * Source: crossbeam-channel's flavors/ (array, list) behind one Channel shape.
 *
 * `freed` counts the slots a call made free for waiting senders: the message's and
 * those of holes it skipped at the oldest place (an unbounded queue frees none).
 *
 * Thread safety: any number of senders and receivers at once on every operation but
 * init, destroy and discard (one thread). A "first attempt" never waits and changes
 * nothing when it fails; a full attempt spins briefly on a peer mid-operation, then
 * reports ZC_PENDING: the queues never yield or sleep, their callers decide.
 */
#ifndef ZCHAN_SRC_QUEUE_H
#define ZCHAN_SRC_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/status.h>

#include "lines.h"
#include "ring.h"
#include "ring_batch.h"
#include "segq.h"

typedef enum zc__queue_kind { ZC__QUEUE_RING, ZC__QUEUE_SEGQ } zc__queue_kind;

typedef struct zc__queue {
    union {
        zc__ring ring; /* ZC__QUEUE_RING */
        zc__segq segq; /* ZC__QUEUE_SEGQ */
    } u;
    /* Which inline first attempt a queue of 8-byte messages takes (a copy of the
     * constant size 8: one move, no call); neither for other sizes. */
    bool ring8, segq8;
    zc__queue_kind kind;
    size_t elem_size; /* bytes per message */
} zc__queue;

/* Each kind keeps its words for each end within ZC__QUEUE_END_BYTES of that end's line,
 * and starts the lines where lines.h says. */
_Static_assert(offsetof(zc__ring, rx_rest) <= ZC__QUEUE_END_BYTES, "ring: receivers' words");
_Static_assert(offsetof(zc__segq, rx_rest) <= ZC__QUEUE_END_BYTES, "segq: receivers' words");
_Static_assert(offsetof(zc__ring, tx_rest) <= ZC_CACHE_LINE + ZC__QUEUE_END_BYTES,
               "ring: senders' words");
_Static_assert(offsetof(zc__segq, tx_rest) <= ZC_CACHE_LINE + ZC__QUEUE_END_BYTES,
               "segq: senders' words");
_Static_assert(offsetof(zc__ring, tail) == ZC_CACHE_LINE, "ring: senders' line");
_Static_assert(offsetof(zc__segq, tail_index) == ZC_CACHE_LINE, "segq: senders' line");
_Static_assert(offsetof(zc__ring, cap) == 2 * ZC_CACHE_LINE, "ring: constants' line");
_Static_assert(offsetof(zc__segq, elem_size) == 2 * ZC_CACHE_LINE, "segq: constants' line");

/* The bytes of storage, beside the struct, that a queue of cap slots (0: unbounded) of
 * elem_size-byte messages needs (a ring's slots; none for a segmented queue, which
 * allocates its segments as it grows): ZC_OK with *bytes set, or ZC_EINVAL (elem_size 0,
 * sizes that overflow). */
zc_status zc__queue_storage_size(size_t cap, size_t elem_size, size_t *bytes);
/* A ring of exactly cap slots in storage (zc__queue_storage_size bytes, 8-aligned, the
 * caller's, to be freed after zc__queue_destroy), or (cap 0) a segmented queue, of
 * elem_size-byte messages; cap and elem_size as zc__queue_storage_size accepted them.
 * ZC_OK, or ZC_EINVAL (a segmented queue's message too large for its segments). */
zc_status zc__queue_init(zc__queue *q, size_t cap, size_t elem_size, void *storage);
/* Free what the queue allocated (a segmented queue's segments). */
void zc__queue_destroy(zc__queue *q);

static inline bool zc__queue_bounded(const zc__queue *q) { return q->kind == ZC__QUEUE_RING; }

/* cap, or SIZE_MAX for an unbounded queue. */
size_t zc__queue_capacity(const zc__queue *q);

/* ---- One message ------------------------------------------------------------------- */

/* The first attempt alone: true if msg went in (out came out); false for anything else,
 * with nothing changed. A bounded first attempt reads only the caller's own end of the
 * ring and the slot. */
static inline bool zc__queue_push_first(zc__queue *q, const void *msg) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_push_first(&q->u.ring, msg, q->elem_size)
                                     : zc__segq_push_first(&q->u.segq, msg, q->elem_size);
}

/* A receive's first attempt returns 0 if it took nothing, else 1 + the slots it freed
 * for waiting senders (bounded: 2; unbounded: 1): whether it owes a wake, without a
 * second look at q. */
static inline unsigned zc__queue_pop_first(zc__queue *q, void *out) {
    if (q->kind == ZC__QUEUE_RING) return zc__ring_pop_first(&q->u.ring, out, q->elem_size) ? 2 : 0;
    return zc__segq_pop_first(&q->u.segq, out, q->elem_size) ? 1 : 0;
}

/* The fast paths' first attempts, for the futures and try operations: as the two above,
 * with the constant size 8 for 8-byte messages, else ZC__QUEUE_FIRST_GENERIC without an
 * attempt, for the caller to go on out of line. */
#define ZC__QUEUE_FIRST_GENERIC 3u

static inline unsigned zc__queue_push_first8(zc__queue *q, const void *msg) {
    if (ZC__LIKELY(q->ring8)) return zc__ring_push_first(&q->u.ring, msg, 8);
    if (q->segq8) return zc__segq_push_first(&q->u.segq, msg, 8);
    return ZC__QUEUE_FIRST_GENERIC;
}

static inline unsigned zc__queue_pop_first8(zc__queue *q, void *out) {
    if (ZC__LIKELY(q->ring8)) return zc__ring_pop_first(&q->u.ring, out, 8) ? 2 : 0;
    if (q->segq8) return zc__segq_pop_first(&q->u.segq, out, 8) ? 1 : 0;
    return ZC__QUEUE_FIRST_GENERIC;
}

/* One full send attempt: ZC_OK, ZC_FULL, ZC_CLOSED, ZC_ENOMEM, ZC_PENDING (ring.h, segq.h). */
static inline zc_status zc__queue_push(zc__queue *q, const void *msg) {
    return q->kind == ZC__QUEUE_RING ? zc__ring_push(&q->u.ring, msg)
                                     : zc__segq_push(&q->u.segq, msg);
}

/* A send that never waits for a receiver (zc__ring_force_push): on a full ring the oldest
 * message is given to evict; a segmented queue is never full, and its send waits out a
 * peer installing a segment. ZC_OK, ZC_CLOSED, ZC_ENOMEM (unbounded), ZC_FULL (a
 * reservation is the oldest place). */
zc_status zc__queue_force_push(zc__queue *q, const void *msg, zc__ring_evict_fn *evict,
                               void *ctx, bool *evicted);

/* One full receive attempt: ZC_OK, ZC_EMPTY, ZC_CLOSED, ZC_PENDING (ring.h, segq.h).
 * Adds the slots it freed to *freed, whatever the status. */
static inline zc_status zc__queue_pop(zc__queue *q, void *out, size_t *freed) {
    if (q->kind != ZC__QUEUE_RING) return zc__segq_pop(&q->u.segq, out);
    zc_status s = zc__ring_pop(&q->u.ring, out, freed);
    *freed += s == ZC_OK;
    return s;
}

/* ---- Batches ----------------------------------------------------------------------- */

/* Send up to n messages (n * elem_size contiguous bytes), all of them or none if all:
 * ZC_OK with *count >= 1 sent, as one run of the queue's order when bounded; ZC_FULL,
 * ZC_CLOSED, ZC_ENOMEM, ZC_PENDING as zc__queue_push. begun: earlier attempts of the same
 * batch sent part of it (an all-or-nothing unbounded batch then waits out a peer rather
 * than stop half sent). Adds to *freed the slots it freed and left unused. */
zc_status zc__queue_push_many(zc__queue *q, const void *msgs, size_t n, bool all, bool begun,
                              size_t *count, size_t *freed);

/* Receive up to max messages (max * elem_size bytes at out): ZC_OK with *count >= 1, or
 * as zc__queue_pop. Adds the slots it freed to *freed. */
zc_status zc__queue_pop_many(zc__queue *q, void *out, size_t max, size_t *count,
                             size_t *freed);

/* ---- Reservations (the two-phase send) ---------------------------------------------- */

/* Claim the next place for a later commit: ZC_OK (*pos set; unbounded: no place is
 * held, the commit is a send), ZC_FULL, ZC_CLOSED, ZC_PENDING. */
zc_status zc__queue_reserve(zc__queue *q, size_t *pos);
/* Bounded only (ring.h): publish msg into reserved pos, or give the place back. */
zc_status zc__queue_commit(zc__queue *q, size_t pos, const void *msg);
zc_status zc__queue_release(zc__queue *q, size_t pos, size_t *freed);
/* Bounded only: the messages a commit or release of place from let through, up to max
 * (zc__ring_ready_run). */
size_t zc__queue_ready_run(const zc__queue *q, size_t from, size_t max);

/* ---- State ------------------------------------------------------------------------- */

/* The re-check of a wait ([F2]): whether a receive (recv) or send attempt now would
 * answer anything but ZC_EMPTY / ZC_FULL, closed included, with nothing changed.
 * seq_cst: it answers "not ready" only where the peer that makes the queue ready pays
 * its wakes after a seq_cst claim ordered after this look ([F1]); anything else
 * (a peer mid-operation, a hole to skip) is "ready", for the attempt to decide. */
bool zc__queue_ready(const zc__queue *q, bool recv);
/* The same for a send that needs n slots at once (an all-or-nothing batch; n 1: a send). */
bool zc__queue_send_ready(const zc__queue *q, size_t n);

/* Set the close mark: true if this call set it. */
bool zc__queue_close(zc__queue *q);
/* Whether the close mark is set (seq_cst: usable as the re-check half of a wait). */
bool zc__queue_is_closed(const zc__queue *q);
/* Messages held now (a snapshot; bounded: held reservations and holes not yet skipped
 * count, as they hold slots). */
size_t zc__queue_len(const zc__queue *q);
/* Slots a sender could take now: 0 once closed, and for an unbounded queue (whose
 * senders never wait). */
size_t zc__queue_room(const zc__queue *q);
/* Skip the holes at the oldest place (bounded), freeing their slots: how many. */
size_t zc__queue_skip_holes(zc__queue *q);
/* A value that changes whenever slots are freed (bounded: the receivers' index), for a
 * waiter that must not offer the same room twice; 0 for an unbounded queue. seq_cst. */
size_t zc__queue_freed_mark(const zc__queue *q);

/* Whether a send (receive) now would find the queue full (empty): a guess from the
 * caller's own end and the slot, relaxed; false for an unbounded queue. A caller about
 * to wait registers first and lets its next attempt decide. */
static inline bool zc__queue_looks_full(const zc__queue *q) {
    return q->kind == ZC__QUEUE_RING && zc__ring_looks_full(&q->u.ring);
}

static inline bool zc__queue_looks_empty(const zc__queue *q) {
    return q->kind == ZC__QUEUE_RING && zc__ring_looks_empty(&q->u.ring);
}

/* Wait for at most `pauses` pause instructions while the slot a receive (recv) or send
 * needs keeps what it holds (bounded; an unbounded queue just pauses). A hint only. */
static inline void zc__queue_watch(const zc__queue *q, bool recv, unsigned pauses) {
    if (q->kind == ZC__QUEUE_RING) {
        const zc__ring *r = &q->u.ring;
        zc__ring_watch(r, recv ? ZC__RING_HEAD(r) : ZC__RING_TAIL(r), pauses);
    } else {
        for (unsigned i = 0; i < pauses; i++) zc__cpu_relax();
    }
}

/* After close with no receiver left: hand every message held to drop (if not NULL) and
 * free what held them. One thread; senders that claimed before the close are waited for. */
void zc__queue_discard(zc__queue *q, void (*drop)(void *msg, void *ctx), void *ctx);
/* A receiver left, others remain: free what is read out (unbounded: retired segments). */
void zc__queue_receiver_left(zc__queue *q);

#endif /* ZCHAN_SRC_QUEUE_H */

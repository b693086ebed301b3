/*
 * segq.h: the segmented unbounded queue under zc_unbounded (algorithm only).
 *
 * Source: crossbeam-channel's list flavour (crossbeam-channel/src/flavors/list.rs):
 * segments of 31 slots linked in a list; head and tail are {position << 1 | mark} words
 * plus a segment pointer; one position per 32 is the segment boundary. Each slot's
 * reader marks it read; the reader of a segment's last slot frees the segment once every
 * slot is read (segq.c), so no hazard pointers or epochs are needed. Memory follows the
 * number of messages held; one freed segment is kept as a spare.
 */
#ifndef ZCHAN_SRC_SEGQ_H
#define ZCHAN_SRC_SEGQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/status.h>

#include "atomic.h"
#include "hooks.h"
#include "lines.h"

struct zc__seg;

typedef struct zc__segq {
    /* Receivers' line (lines.h): their end; the rest is left to the queue's owner. */
    _Atomic size_t head_index; /* position << 1; mark: not the last segment */
    _Atomic(struct zc__seg *) head_seg;
    unsigned char rx_rest[ZC_CACHE_LINE - sizeof(size_t) - sizeof(void *)];
    /* Senders' line: their end, and the words either end writes once a segment; the rest
     * is left to the queue's owner. */
    _Atomic size_t tail_index; /* position << 1; mark: closed */
    _Atomic(struct zc__seg *) tail_seg;
    /* One freed segment kept for reuse. */
    _Atomic(struct zc__seg *) spare;
    /* Segments whose last slot was read while a reader of another slot was still
     * copying out (a stack linked by next): freed by a later zc__segq_reclaim. */
    _Atomic(struct zc__seg *) retired;
    unsigned char tx_rest[ZC_CACHE_LINE - sizeof(size_t) - 3 * sizeof(void *)];
    /* Constants: read-only after init. */
    size_t elem_size;
    uint64_t id;      /* unique in the process: keys each thread's seen tail (below) */
    size_t stride;    /* bytes per slot: header + message, rounded to 8 */
    size_t seg_bytes; /* bytes per segment */
} zc__segq;

/* Slots per segment. */
#define ZC__SEG_CAP 31

/* ZC_OK or ZC_EINVAL (elem_size 0 or too large). Allocates nothing: the first segment
 * comes with the first message. */
zc_status zc__segq_init(zc__segq *q, size_t elem_size);
/* Frees every segment. No other thread may use q. */
void zc__segq_destroy(zc__segq *q);

/* Append one message: ZC_OK, ZC_CLOSED, ZC_ENOMEM (a new segment was needed and could
 * not be allocated), or ZC_PENDING: the sender that took the last slot of the current
 * segment has not installed the next one yet (after a short backoff). Nothing changes
 * unless ZC_OK. */
static inline zc_status zc__segq_push(zc__segq *q, const void *msg);

/* Take the oldest message: ZC_OK, ZC_EMPTY, ZC_CLOSED (closed and drained), or
 * ZC_PENDING (a peer at a segment boundary, after a short backoff; nothing changed).
 * Once it has claimed a slot whose sender is still writing, it waits for that sender. */
static inline zc_status zc__segq_pop(zc__segq *q, void *out);

/* The re-check of a wait (queue.h, zc__queue_ready): whether a receive attempt now
 * would answer anything but ZC_EMPTY (a send is never refused for room). seq_cst. */
bool zc__segq_recv_ready(const zc__segq *q);

bool zc__segq_close(zc__segq *q);
bool zc__segq_is_closed(const zc__segq *q);
size_t zc__segq_len(const zc__segq *q);

/* After close with no receiver left: hand every message still held to drop (if not
 * NULL) and free the segments they occupied. */
void zc__segq_discard(zc__segq *q, void (*drop)(void *msg, void *ctx), void *ctx);

/* ---- The hot path: a slot inside the current segment, inline; the rest in segq.c.
 * Ordering map: segq.c. */

#define ZC__SEG_SHIFT 1
#define ZC__SEG_MARK ((size_t)1)
#define ZC__SEG_LAP 32
_Static_assert(ZC__SEG_CAP == ZC__SEG_LAP - 1, "one position per lap is the boundary");

struct zc__seg {
    /* The next segment; once this one is retired, the next one down the retired stack. */
    _Atomic(struct zc__seg *) next;
    /* ZC__SEG_CAP slots of q->stride bytes: {struct zc__slot; message}. */
    alignas(8) unsigned char slots[];
};

/* A slot's header: one word for each of its two users, each stored once (segq.c). */
struct zc__slot {
    _Atomic unsigned read;    /* 0, then 1 once the message is out (its reader is done) */
    _Atomic unsigned written; /* 0, then 1 once the message is in */
};

#define ZC__SEG_MSG_OFFSET 8
_Static_assert(sizeof(struct zc__slot) <= ZC__SEG_MSG_OFFSET, "the header fits before the message");

static inline struct zc__slot *zc__seg_slot(const zc__segq *q, struct zc__seg *s, size_t off) {
    return (struct zc__slot *)(void *)(s->slots + off * q->stride);
}

static inline unsigned char *zc__seg_msg(const zc__segq *q, struct zc__seg *s, size_t off) {
    return s->slots + off * q->stride + ZC__SEG_MSG_OFFSET;
}

/* A zeroed segment (the spare if there is one), or NULL. */
struct zc__seg *zc__seg_alloc(zc__segq *q);
/* Keep s as the spare, or free it. */
void zc__seg_free(zc__segq *q, struct zc__seg *s);
/* Free the segments on q->retired whose readers are all done, and s (if not NULL: from
 * the reader of s's last slot, its copy-out done) if its readers are; keep the rest on
 * q->retired for a later call (segq.c). */
void zc__segq_reclaim(zc__segq *q, struct zc__seg *s);
/* The segment after s, waiting for the sender that installs it. */
struct zc__seg *zc__seg_wait_next(struct zc__seg *s);

/* The rest of a receive that claimed slot offset of seg: wait for the slot's sender,
 * copy the message out, mark the slot read (the last slot: reclaim the segment). */
void zc__segq_pop_finish(zc__segq *q, struct zc__seg *seg, size_t offset, void *out);

/* The general loops (segq.c): boundaries, the first segment, contention, empty, closed. */
zc_status zc__segq_push_slow(zc__segq *q, const void *msg);
zc_status zc__segq_pop_slow(zc__segq *q, void *out);

/* Each thread's last known tail index of the queue it last sent to or looked at the
 * tail of: every position before it is one a sender has claimed (tail only grows). A
 * receive whose head is behind it knows a message is there (or being written, which the
 * receive waits for) without loading tail_index, the senders' line (bench/README.md,
 * row 2). Keyed by the queue's id, not its address: the seen tail of a freed queue must
 * not stand for one allocated in its place. Source: the receiver's local copy of the
 * write index in MCRingBuffer (P. Lee, T. Bu, G. Chandranmenon, IPDPS 2010). */
typedef struct zc__segq_seen {
    uint64_t id;
    size_t tail; /* a tail index without its mark */
} zc__segq_seen;

extern ZC__TLS_FAST zc__segq_seen zc__segq_seen_tail;

/* Whether head index head (its mark aside) is behind this thread's seen tail of q,
 * modulo 2^N as the indices wrap. Only where size_t has 64 bits: a seen tail left
 * behind while half the index range went by would look ahead of head again (2^30
 * messages with a 32-bit size_t); there every receive reads tail. */
static inline bool zc__segq_seen_past(const zc__segq *q, size_t head) {
#if SIZE_MAX > UINT32_MAX
    const zc__segq_seen *k = &zc__segq_seen_tail;
    return k->id == q->id && k->tail - (head & ~ZC__SEG_MARK) - 1 < SIZE_MAX / 2;
#else
    (void)q, (void)head;
    return false;
#endif
}

/* The first attempt alone: true if msg was sent into a slot inside the current segment;
 * false for anything else (a boundary, the first segment, contention, closed), with
 * nothing changed. elem_size as for zc__ring_push_first (queue.h's segq8). */
static inline bool zc__segq_push_first(zc__segq *q, const void *msg, size_t elem_size) {
    /* [A3] acquire: a tail index past a boundary comes with its installed segment. */
    size_t tail = atomic_load_explicit(&q->tail_index, memory_order_acquire);
    struct zc__seg *seg = atomic_load_explicit(&q->tail_seg, memory_order_acquire);
    size_t offset = (tail >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
    /* Not closed, a segment exists, and this is not its last slot (nothing to install). */
    if (!(tail & ZC__SEG_MARK) && seg && offset + 1 < ZC__SEG_CAP &&
        /* [S1] seq_cst claim (Dekker pairing with the receivers' waiter count). */
        atomic_compare_exchange_strong_explicit(&q->tail_index, &tail,
                                                tail + ((size_t)1 << ZC__SEG_SHIFT),
                                                memory_order_seq_cst, memory_order_relaxed)) {
        ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
        zc__copy_in(zc__seg_msg(q, seg, offset), msg, elem_size);
        /* [R4] release: publish the message; pairs with [A4] in the receiver. */
        atomic_store_explicit(&zc__seg_slot(q, seg, offset)->written, 1u, memory_order_release);
        ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
        zc__segq_seen_tail = (zc__segq_seen){q->id, tail + ((size_t)1 << ZC__SEG_SHIFT)};
        return true;
    }
    return false;
}

static inline zc_status zc__segq_push(zc__segq *q, const void *msg) {
    return zc__segq_push_first(q, msg, q->elem_size) ? ZC_OK : zc__segq_push_slow(q, msg);
}

/* The first attempt alone: true if a message was copied out of a slot inside the
 * current segment; false for anything else (empty, a boundary, contention, closed),
 * with nothing changed. elem_size as for zc__segq_push_first. */
static inline bool zc__segq_pop_first(zc__segq *q, void *out, size_t elem_size) {
    /* [A5] acquire: a head index past a boundary comes with its segment. */
    size_t head = atomic_load_explicit(&q->head_index, memory_order_acquire);
    struct zc__seg *seg = atomic_load_explicit(&q->head_seg, memory_order_acquire);
    size_t offset = (head >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
    if (!seg || offset + 1 >= ZC__SEG_CAP) return false;
    /* A message is there if head is marked "not the last segment", or is behind this
     * thread's seen tail, or else behind tail: [S2] seq_cst load (Dekker pairing). The
     * claim below is [S1]'s seq_cst CAS. */
    if (!(head & ZC__SEG_MARK) && !zc__segq_seen_past(q, head)) {
        size_t tail = atomic_load_explicit(&q->tail_index, memory_order_seq_cst);
        if ((tail >> ZC__SEG_SHIFT) == (head >> ZC__SEG_SHIFT)) return false;
        zc__segq_seen_tail = (zc__segq_seen){q->id, tail & ~ZC__SEG_MARK};
    }
    if (atomic_compare_exchange_strong_explicit(&q->head_index, &head,
                                                head + ((size_t)1 << ZC__SEG_SHIFT),
                                                memory_order_seq_cst, memory_order_relaxed)) {
        ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
        struct zc__slot *slot = zc__seg_slot(q, seg, offset);
        /* [A4] pairs with [R4]: the sender that claimed this slot is done. */
        if (!ZC__LIKELY(atomic_load_explicit(&slot->written, memory_order_acquire))) {
            zc__segq_pop_finish(q, seg, offset, out);
            return true;
        }
        zc__copy_out(out, zc__seg_msg(q, seg, offset), elem_size);
        /* [R6] release: our last access to the segment; pairs with [A6] (segq.c). */
        atomic_store_explicit(&slot->read, 1u, memory_order_release);
        ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
        return true;
    }
    return false;
}

static inline zc_status zc__segq_pop(zc__segq *q, void *out) {
    return zc__segq_pop_first(q, out, q->elem_size) ? ZC_OK : zc__segq_pop_slow(q, out);
}

#endif /* ZCHAN_SRC_SEGQ_H */

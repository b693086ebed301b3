/*
 * segq.c: unbounded MPMC queue of 31-slot segments.
 *
 * Source: crossbeam-channel list flavour (crossbeam-channel/src/flavors/list.rs), also
 * smol-rs/concurrent-queue src/unbounded.rs. Positions advance by 1 << ZC__SEG_SHIFT;
 * position p sits in slot (p % ZC__SEG_LAP) of its segment, and offset ZC__SEG_CAP is the
 * boundary: the sender that takes the last slot of a segment installs the next segment
 * (allocated before its claiming CAS, so allocation failure changes nothing), then moves
 * tail past the boundary. The receiver that takes the last slot moves head likewise.
 *
 * Reclamation: each slot has one writer and one reader. The writer copies the message
 * in, then stores 1 to the slot's written word; the reader waits for written, copies the
 * message out, then stores 1 to the slot's read word (plain release stores, no RMW). The
 * reader of a segment's last slot then checks every other read word: all read, it frees
 * the segment; otherwise it goes onto the retired stack, which zc__segq_reclaim re-checks
 * at each later last slot, drained receive and receiver drop. So a stalled reader holds
 * its own segment only. No thread dereferences a segment pointer before winning a CAS
 * on the monotonic index that proves the segment is still current.
 *
 * The first attempts (a slot inside the current segment) are inline in segq.h; the map
 * covers both files.
 *
 * Ordering map:
 *   [R3] push: release-stores installing the next segment (tail_seg, tail_index, next)
 *        -> [A3] acquire loads of tail_index/tail_seg/next by the other senders/receivers
 *   [R4] push: release store of the slot's written word, the writer's last access to the
 *        segment -> [A4] pop, discard: acquire wait for written. The message is in, and
 *        the writer is done with the segment before the reader's [R6], so before any free
 *   [R5] pop: release-stores moving head to the next segment -> [A5] acquire head loads
 *   [R6] pop: release store of the slot's read word, the reader's last access to the
 *        segment -> [A6] segq_reclaim: acquire load of every read word before the free
 *   [R8] segq_reclaim: release CAS pushing onto retired -> [A8] acquire exchange taking
 *        the stack: the links (next) written before the push
 *   [R7] seg_free: release CAS into spare -> [A7] seg_alloc: acquire exchange of spare
 *   [S1] seq_cst CAS on tail_index, [S2] seq_cst load of tail_index in pop: Dekker
 *        pairing with the waiter count (waitlist.c [F1]/[F2]).
 */
#include "segq.h"

#include "backoff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct zc__seg *zc__seg_alloc(zc__segq *q) {
    /* [A7] acquire pairs with [R7]: the previous owner's last accesses are done. */
    struct zc__seg *s = atomic_exchange_explicit(&q->spare, NULL, memory_order_acquire);
    if (s) {
        /* next, and every slot's state and written words, back to 0 (messages too). */
        memset(s, 0, q->seg_bytes);
        return s;
    }
    return calloc(1, q->seg_bytes);
}

void zc__seg_free(zc__segq *q, struct zc__seg *s) {
    ZC__HOOK(ZC__HOOK_SEGMENT_FREED);
    struct zc__seg *expected = NULL;
    /* [R7] release: our reads of the segment happen before its reuse (pairs with [A7]).
     * Relaxed on failure: we only learn that the spare place is taken. */
    if (!atomic_compare_exchange_strong_explicit(&q->spare, &expected, s,
                                                 memory_order_release, memory_order_relaxed))
        free(s);
}

/* Whether the readers of slots 0..ZC__SEG_CAP-2 of s are done with it (the caller read
 * the last slot). */
static bool seg_read_out(const zc__segq *q, struct zc__seg *s) {
    /* stride in a local: the acquire loads would make the compiler reload q->stride. */
    const size_t stride = q->stride;
    const unsigned char *slot = s->slots;
    unsigned all = 1;
    for (size_t i = 0; i < ZC__SEG_CAP - 1; i++, slot += stride)
        /* [A6] acquire pairs with [R6]: that reader's copy-out is over. */
        all &= atomic_load_explicit(&((struct zc__slot *)(void *)slot)->read, memory_order_acquire);
    return all != 0;
}

/* The link of a retired segment (its next field: see struct zc__seg). Relaxed: a
 * retired segment is only ever touched by the thread that took it off the stack (or is
 * about to push it), and the stack's release/acquire pair ([R8]/[A8]) orders the links. */
static struct zc__seg *retired_below(struct zc__seg *s) {
    return atomic_load_explicit(&s->next, memory_order_relaxed);
}

static void set_retired_below(struct zc__seg *s, struct zc__seg *below) {
    atomic_store_explicit(&s->next, below, memory_order_relaxed);
}

void zc__segq_reclaim(zc__segq *q, struct zc__seg *s) {
    /* Relaxed: only whether there is a stack to take; the exchange orders what it takes.
     * A segment pushed after this load waits for the next pass. */
    if (atomic_load_explicit(&q->retired, memory_order_relaxed)) {
        /* [A8] acquire pairs with [R8]: the links of the segments taken. */
        struct zc__seg *below = atomic_exchange_explicit(&q->retired, NULL, memory_order_acquire);
        if (s)
            set_retired_below(s, below);
        else
            s = below;
    } else if (s) {
        set_retired_below(s, NULL);
    }
    struct zc__seg *keep = NULL, *keep_last = NULL; /* still being read: back on the stack */
    for (struct zc__seg *next; s; s = next) {
        next = retired_below(s);
        if (seg_read_out(q, s)) {
            zc__seg_free(q, s);
        } else {
            set_retired_below(s, keep);
            keep = s;
            if (!keep_last) keep_last = s;
        }
    }
    if (!keep) return;
    /* Relaxed: a first guess; the CAS checks it. */
    struct zc__seg *top = atomic_load_explicit(&q->retired, memory_order_relaxed);
    do {
        set_retired_below(keep_last, top);
        /* [R8] release: the links before the next taker's [A8]. Only whole stacks are
         * ever taken (the exchange), so a top that changed and changed back (ABA) still
         * is the stack's top. Relaxed on failure: top is reloaded for the next try. */
    } while (!atomic_compare_exchange_weak_explicit(&q->retired, &top, keep,
                                                    memory_order_release, memory_order_relaxed));
}

struct zc__seg *zc__seg_wait_next(struct zc__seg *s) {
    zc__backoff b = ZC__BACKOFF_INIT;
    for (;;) {
        /* [A3] pairs with [R3]: the next segment is zeroed and installed. */
        struct zc__seg *n = atomic_load_explicit(&s->next, memory_order_acquire);
        if (n) return n;
        zc__backoff_snooze(&b);
    }
}

void zc__segq_pop_finish(zc__segq *q, struct zc__seg *seg, size_t offset, void *out) {
    struct zc__slot *slot = zc__seg_slot(q, seg, offset);
    zc__backoff wait = ZC__BACKOFF_INIT;
    /* [A4] pairs with [R4]: wait for the sender that claimed this slot. */
    while (!atomic_load_explicit(&slot->written, memory_order_acquire)) zc__backoff_snooze(&wait);
    zc__copy_out(out, zc__seg_msg(q, seg, offset), q->elem_size);
    if (offset + 1 == ZC__SEG_CAP)
        zc__segq_reclaim(q, seg); /* the last slot: no one waits for its read word */
    else
        atomic_store_explicit(&slot->read, 1u, memory_order_release); /* [R6] */
    ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
}

ZC__TLS_FAST zc__segq_seen zc__segq_seen_tail; /* id 0: no queue's (see queue_id) */

static _Atomic uint64_t queues_made;

/* A queue id no other queue of this process has: a count of the queues made, above the
 * address of that count, which differs between two copies of zchan in one process (two
 * statically linked plugins). Two copies' counts lie at least 8 bytes apart, so their ids
 * meet only after 2^20 queues; a mapped count's address is above 2^20, so no id is 0. */
static uint64_t queue_id(void) {
    /* Relaxed: only uniqueness is needed; every init takes its own value. */
    uint64_t n = atomic_fetch_add_explicit(&queues_made, 1, memory_order_relaxed);
    return ((uint64_t)(uintptr_t)&queues_made >> 3 << 20) + n;
}

zc_status zc__segq_init(zc__segq *q, size_t elem_size) {
    if (elem_size == 0 || elem_size > (SIZE_MAX - sizeof(struct zc__seg)) / ZC__SEG_CAP - 16)
        return ZC_EINVAL;
    q->elem_size = elem_size;
    q->stride = (ZC__SEG_MSG_OFFSET + elem_size + 7) & ~(size_t)7;
    q->seg_bytes = sizeof(struct zc__seg) + ZC__SEG_CAP * q->stride;
    q->id = queue_id();
    /* Lap-aligned start: 0, or (test hooks) a few laps before the counters wrap. */
    size_t start = ZC__START_POS((size_t)ZC__SEG_LAP << ZC__SEG_SHIFT);
    atomic_init(&q->head_index, start);
    atomic_init(&q->head_seg, NULL);
    atomic_init(&q->tail_index, start);
    atomic_init(&q->tail_seg, NULL);
    atomic_init(&q->spare, NULL);
    atomic_init(&q->retired, NULL);
    return ZC_OK;
}

/* [A5] acquire: a head index past a boundary comes with the segment it moved to. */
static void reload_head(zc__segq *q, size_t *head, struct zc__seg **seg) {
    *head = atomic_load_explicit(&q->head_index, memory_order_acquire);
    *seg = atomic_load_explicit(&q->head_seg, memory_order_acquire);
}

/* [A3] acquire: a tail index past a boundary comes with its installed segment. */
static void reload_tail(zc__segq *q, size_t *tail, struct zc__seg **seg) {
    *tail = atomic_load_explicit(&q->tail_index, memory_order_acquire);
    *seg = atomic_load_explicit(&q->tail_seg, memory_order_acquire);
}

/* Install the first segment: ZC_OK (*seg is it), ZC_ENOMEM, or ZC_PENDING (another
 * sender installed one first: the one allocated here is kept in *next_seg for the next
 * boundary, and the caller reloads). */
static zc_status install_first(zc__segq *q, struct zc__seg **seg, struct zc__seg **next_seg) {
    struct zc__seg *first = zc__seg_alloc(q);
    if (!first) return ZC_ENOMEM;
    struct zc__seg *expected = NULL;
    /* [R3] release: the zeroed segment is visible to whoever loads tail_seg. */
    if (atomic_compare_exchange_strong_explicit(&q->tail_seg, &expected, first,
                                                memory_order_release, memory_order_relaxed)) {
        /* [R5] release: receivers that load head_seg see it zeroed. */
        atomic_store_explicit(&q->head_seg, first, memory_order_release);
        *seg = first;
        return ZC_OK;
    }
    if (*next_seg) zc__seg_free(q, *next_seg);
    *next_seg = first;
    return ZC_PENDING;
}

/* The sender that claimed seg's last slot installs next and moves tail past the
 * boundary. [R3] release, in the order readers load them. tail_index moves with an RMW,
 * not a store: a close may set its mark meanwhile, and a store would erase it,
 * reopening the channel. */
static void install_next(zc__segq *q, struct zc__seg *seg, struct zc__seg *next) {
    atomic_store_explicit(&q->tail_seg, next, memory_order_release);
    atomic_fetch_add_explicit(&q->tail_index, (size_t)1 << ZC__SEG_SHIFT, memory_order_release);
    atomic_store_explicit(&seg->next, next, memory_order_release);
    ZC__HOOK(ZC__HOOK_SEGMENT_INSTALLED);
}

zc_status zc__segq_push_slow(zc__segq *q, const void *msg) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    struct zc__seg *next_seg = NULL; /* allocated before claiming a segment's last slot */
    size_t tail;
    struct zc__seg *seg;
    reload_tail(q, &tail, &seg);
    zc_status status;
    for (;;) {
        status = ZC_CLOSED;
        if (tail & ZC__SEG_MARK) break;
        size_t offset = (tail >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
        if (offset == ZC__SEG_CAP) {
            /* Another sender is installing the next segment: once the spin is over,
             * ZC_PENDING (one preempted there holds up every sender). */
            status = ZC_PENDING;
            if (!zc__backoff_wait_peer(&backoff)) break;
            reload_tail(q, &tail, &seg);
            continue;
        }
        if (offset + 1 == ZC__SEG_CAP && !next_seg) {
            next_seg = zc__seg_alloc(q);
            if (!next_seg) return ZC_ENOMEM;
        }
        if (!seg) {
            /* The very first message: install the first segment. */
            status = install_first(q, &seg, &next_seg);
            if (status == ZC_ENOMEM) break;
            if (status == ZC_PENDING) { /* someone else installed it */
                reload_tail(q, &tail, &seg);
                continue;
            }
        }
        size_t new_tail = tail + (1 << ZC__SEG_SHIFT);
        /* [S1] seq_cst claim (Dekker pairing with the receivers' waiter count); on
         * failure [A3] acquire, as for the first load. */
        if (atomic_compare_exchange_weak_explicit(&q->tail_index, &tail, new_tail,
                                                  memory_order_seq_cst,
                                                  memory_order_acquire)) {
            ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
            if (offset + 1 == ZC__SEG_CAP) {
                install_next(q, seg, next_seg);
                next_seg = NULL;
            }
            zc__copy_in(zc__seg_msg(q, seg, offset), msg, q->elem_size);
            /* [R4] release: publish the message; pairs with [A4] in zc__segq_pop(). */
            atomic_store_explicit(&zc__seg_slot(q, seg, offset)->written, 1u, memory_order_release);
            ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
            status = ZC_OK;
            break;
        }
        seg = atomic_load_explicit(&q->tail_seg, memory_order_acquire); /* [A3] */
        zc__backoff_spin(&contention);
    }
    if (next_seg) zc__seg_free(q, next_seg);
    return status;
}

zc_status zc__segq_pop_slow(zc__segq *q, void *out) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    zc__backoff contention = ZC__BACKOFF_INIT; /* lost claims */
    /* [A5] acquire pairs with [R5]: a head index past a boundary comes with its segment. */
    size_t head = atomic_load_explicit(&q->head_index, memory_order_acquire);
    struct zc__seg *seg = atomic_load_explicit(&q->head_seg, memory_order_acquire);
    for (;;) {
        size_t offset = (head >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
        if (offset == ZC__SEG_CAP) {
            /* Another receiver is moving head to the next segment: as at the senders'
             * end, ZC_PENDING once the spin is over. */
            if (!zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            reload_head(q, &head, &seg);
            continue;
        }
        size_t new_head = head + (1 << ZC__SEG_SHIFT);
        if ((new_head & ZC__SEG_MARK) == 0) {
            /* head may be in the last segment: compare with tail. [S2] seq_cst. */
            size_t tail = atomic_load_explicit(&q->tail_index, memory_order_seq_cst);
            if ((head >> ZC__SEG_SHIFT) == (tail >> ZC__SEG_SHIFT)) {
                /* Drained: free the retired segments whose late readers are done. */
                zc__segq_reclaim(q, NULL);
                return (tail & ZC__SEG_MARK) ? ZC_CLOSED : ZC_EMPTY;
            }
            /* Tail is in a later segment: remember that head is not in the last one. */
            if ((head >> ZC__SEG_SHIFT) / ZC__SEG_LAP != (tail >> ZC__SEG_SHIFT) / ZC__SEG_LAP) new_head |= ZC__SEG_MARK;
        }
        if (!seg) {
            /* The first segment is being installed by a sender (ZC_PENDING likewise). */
            if (!zc__backoff_wait_peer(&backoff)) return ZC_PENDING;
            reload_head(q, &head, &seg);
            continue;
        }
        /* [S1] seq_cst claim; failure reloads with [A5] acquire. */
        if (atomic_compare_exchange_weak_explicit(&q->head_index, &head, new_head,
                                                  memory_order_seq_cst,
                                                  memory_order_acquire)) {
            ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
            if (offset + 1 == ZC__SEG_CAP) {
                /* We took the last slot: move head to the next segment. */
                struct zc__seg *next = zc__seg_wait_next(seg);
                size_t next_index = (new_head & ~ZC__SEG_MARK) + (1 << ZC__SEG_SHIFT);
                /* [A3] acquire: next's own next pointer, if already installed. */
                if (atomic_load_explicit(&next->next, memory_order_acquire)) next_index |= ZC__SEG_MARK;
                /* [R5] release stores: segment before index, as readers load them. */
                atomic_store_explicit(&q->head_seg, next, memory_order_release);
                atomic_store_explicit(&q->head_index, next_index, memory_order_release);
            }
            zc__segq_pop_finish(q, seg, offset, out);
            return ZC_OK;
        }
        seg = atomic_load_explicit(&q->head_seg, memory_order_acquire); /* [A5] */
        zc__backoff_spin(&contention);
    }
}

bool zc__segq_recv_ready(const zc__segq *q) {
    /* seq_cst, both: the queue's half of the waiter's [F2] re-check, against a sender's
     * [S1] claim of tail_index (then its wakes). Ready: closed, or a position claimed
     * past head (its sender may still be writing; the attempt waits for it). */
    size_t head = atomic_load_explicit(&q->head_index, memory_order_seq_cst);
    size_t tail = atomic_load_explicit(&q->tail_index, memory_order_seq_cst);
    return (tail & ZC__SEG_MARK) || (head >> ZC__SEG_SHIFT) != (tail >> ZC__SEG_SHIFT);
}

bool zc__segq_close(zc__segq *q) {
    /* seq_cst: ordered before the waiter sweep that follows; later claims fail. */
    size_t old = atomic_fetch_or_explicit(&q->tail_index, ZC__SEG_MARK, memory_order_seq_cst);
    return (old & ZC__SEG_MARK) == 0;
}

bool zc__segq_is_closed(const zc__segq *q) {
    /* seq_cst: used as the "closed" half of a re-check (Dekker pairing). */
    return (atomic_load_explicit(&q->tail_index, memory_order_seq_cst) & ZC__SEG_MARK) != 0;
}

size_t zc__segq_len(const zc__segq *q) {
    for (;;) {
        /* seq_cst, tail read twice: a consistent snapshot of both ends. */
        size_t tail = atomic_load_explicit(&q->tail_index, memory_order_seq_cst);
        size_t head = atomic_load_explicit(&q->head_index, memory_order_seq_cst);
        if (atomic_load_explicit(&q->tail_index, memory_order_seq_cst) != tail) continue;
        /* Positions from head to tail, in wrapping arithmetic (the counters may wrap);
         * minus the boundary positions (one per lap) among them. */
        size_t positions = ((tail & ~ZC__SEG_MARK) - (head & ~ZC__SEG_MARK)) >> ZC__SEG_SHIFT;
        size_t head_offset = (head >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
        return positions - (head_offset + positions) / ZC__SEG_LAP;
    }
}

void zc__segq_discard(zc__segq *q, void (*drop)(void *msg, void *ctx), void *ctx) {
    zc__backoff backoff = ZC__BACKOFF_INIT;
    /* Closed: tail is frozen once no sender sits at a boundary. [A3] acquire. */
    size_t tail = atomic_load_explicit(&q->tail_index, memory_order_acquire);
    while (((tail >> ZC__SEG_SHIFT) % ZC__SEG_LAP) == ZC__SEG_CAP) {
        zc__backoff_snooze(&backoff);
        tail = atomic_load_explicit(&q->tail_index, memory_order_acquire); /* [A3] */
    }
    /* No receiver is left; the caller's acq_rel handle-count RMW ordered every earlier
     * receive before us, so relaxed/acquire loads of head see the final state, and every
     * retired segment is read out: free them. */
    zc__segq_reclaim(q, NULL);
    size_t head = atomic_load_explicit(&q->head_index, memory_order_acquire);
    /* acq_rel: take the segment out; a first-segment sender racing the close may store
     * its own later, which zc__segq_destroy frees. */
    struct zc__seg *seg = atomic_exchange_explicit(&q->head_seg, NULL, memory_order_acq_rel);
    if ((head >> ZC__SEG_SHIFT) != (tail >> ZC__SEG_SHIFT)) {
        while (!seg) {
            zc__backoff_snooze(&backoff);
            seg = atomic_exchange_explicit(&q->head_seg, NULL, memory_order_acq_rel); /* as above */
        }
    }
    while ((head >> ZC__SEG_SHIFT) != (tail >> ZC__SEG_SHIFT)) {
        size_t offset = (head >> ZC__SEG_SHIFT) % ZC__SEG_LAP;
        if (offset < ZC__SEG_CAP) {
            _Atomic unsigned *written = &zc__seg_slot(q, seg, offset)->written;
            zc__backoff wait = ZC__BACKOFF_INIT;
            /* [A4]: a sender that claimed before the close is still writing. */
            while (!atomic_load_explicit(written, memory_order_acquire)) zc__backoff_snooze(&wait);
            if (drop) drop(zc__seg_msg(q, seg, offset), ctx);
        } else {
            struct zc__seg *next = zc__seg_wait_next(seg);
            zc__seg_free(q, seg);
            seg = next;
        }
        head += (size_t)1 << ZC__SEG_SHIFT;
    }
    if (seg) zc__seg_free(q, seg);
    /* Release: a later len() reads an empty queue. */
    atomic_store_explicit(&q->head_index, head & ~ZC__SEG_MARK, memory_order_release);
}

void zc__segq_destroy(zc__segq *q) {
    /* No other thread: relaxed throughout. After discard (which the last receiver's drop
     * runs, before any destroy), head == tail, the retired stack is empty, and at most the
     * segment a racing first sender installed is left, plus the spare. */
    struct zc__seg *seg = atomic_load_explicit(&q->head_seg, memory_order_relaxed);
    size_t head = atomic_load_explicit(&q->head_index, memory_order_relaxed) >> ZC__SEG_SHIFT;
    size_t tail = atomic_load_explicit(&q->tail_index, memory_order_relaxed) >> ZC__SEG_SHIFT;
    while (seg && head != tail) {
        if (head % ZC__SEG_LAP == ZC__SEG_CAP) {
            struct zc__seg *next = atomic_load_explicit(&seg->next, memory_order_relaxed);
            free(seg);
            seg = next;
        }
        head++;
    }
    free(seg);
    free(atomic_load_explicit(&q->spare, memory_order_relaxed));
}

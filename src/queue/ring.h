/*
 * ring.h: the bounded ring under zc_bounded (algorithm only: no wakers, no handles).
 *
 * Source: D. Vyukov's bounded MPMC queue (1024cores.net) in the form of
 * crossbeam-channel's array flavour (stamps, ordering map, reservations: ring.c). The CAS
 * that claims a slot runs only once the slot is known free, so an attempt that finds the
 * ring full commits nothing and a cancelled future leaves no ticket behind.
 */
#ifndef ZCHAN_SRC_RING_H
#define ZCHAN_SRC_RING_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/status.h>

#include "atomic.h"
#include "backoff.h"
#include "hooks.h"
#include "lines.h"

#include <zchan/bits/ring.h>

/* The ring itself (its layout and first attempts) is zchan/bits/ring.h's, which
 * zchan/inline.h compiles too; its index words are plain there: reached here through
 * ZC__RING_HEAD / ZC__RING_TAIL, the _Atomic views of them. */
#define ZC__RING_HEAD(r) ZC__ATOMIC_SIZE((r)->head)
#define ZC__RING_TAIL(r) ZC__ATOMIC_SIZE((r)->tail)

/* The bytes of slot storage a ring of cap slots of elem_size-byte messages needs: ZC_OK
 * with *bytes set, or ZC_EINVAL (cap or elem_size 0, or sizes that overflow). */
zc_status zc__ring_slots_size(size_t cap, size_t elem_size, size_t *bytes);
/* Set up a ring of exactly cap slots of elem_size bytes in slots: zc__ring_slots_size
 * bytes, 8-aligned, the caller's to free once the ring is no longer used (the ring
 * allocates nothing). cap and elem_size as zc__ring_slots_size accepted them. */
void zc__ring_init(zc__ring *r, size_t cap, size_t elem_size, void *slots);

/* One send attempt. ZC_OK (copied in), ZC_FULL (cap messages held), ZC_CLOSED, or
 * ZC_PENDING: a peer is mid-operation on the slot this send needs, after a short spin. */
static inline zc_status zc__ring_push(zc__ring *r, const void *msg);

/* One receive attempt. ZC_OK (copied out), ZC_EMPTY (also: a reservation holds the next
 * place), ZC_CLOSED (closed and drained), ZC_PENDING (as a push). Holes met at the oldest
 * place are skipped, each freeing its slot: added to *skipped, whatever the status. */
static inline zc_status zc__ring_pop(zc__ring *r, void *out, size_t *skipped);

/* A message a force push took out of the ring, at msg (elem_size bytes, 8-aligned), for
 * the caller's evict(msg, ctx) to copy out or dispose of before the slot is reused. */
typedef void zc__ring_evict_fn(void *msg, void *ctx);

/* Send msg even if the ring is full, never waiting for a receiver: a full ring's oldest
 * message is taken out (given to evict, *evicted set) and msg takes its place, as one
 * step in the ring's order (async-channel's force_send). ZC_OK; ZC_CLOSED (nothing
 * taken out); ZC_FULL only if the oldest place is a reservation, which is no message
 * (nothing taken out). Waits out peers mid-operation, as zc_try_send does. */
zc_status zc__ring_force_push(zc__ring *r, const void *msg, zc__ring_evict_fn *evict,
                              void *ctx, bool *evicted);

/* The re-check of a wait (queue.h, zc__queue_ready): whether a receive (send) attempt
 * now would answer anything but ZC_EMPTY (ZC_FULL): the first step of zc__ring_pop_slow
 * (zc__ring_push_slow) with seq_cst loads and nothing changed. */
bool zc__ring_recv_ready(const zc__ring *r);
bool zc__ring_send_ready(const zc__ring *r);
/* The same for a send of n messages at once (an all-or-nothing batch): closed, a hole at
 * the oldest place (the attempt skips it), or n slots not held. */
bool zc__ring_send_ready_n(const zc__ring *r, size_t n);

/* Set the mark bit; true if this call set it. */
bool zc__ring_close(zc__ring *r);
bool zc__ring_is_closed(const zc__ring *r);
size_t zc__ring_len(const zc__ring *r);
/* The messages a commit or release of place from let through: from head, published
 * places in a row (holes passed over, a reservation ends the run), those at or after
 * from counted, up to max. A guess, for sizing the wakes owed (permit.c). */
size_t zc__ring_ready_run(const zc__ring *r, size_t from, size_t max);

/* After close with no receiver left: hand every message still held to drop (if not
 * NULL), waiting for senders that claimed a slot before the close to publish it, and
 * abandoning reservations not yet committed (their commit then fails). */
void zc__ring_discard(zc__ring *r, void (*drop)(void *msg, void *ctx), void *ctx);

/* ---- Reservations (the two-phase send, permit.c; their stamps: ring.c). */

/* What a receive finds at a marked slot at head (zc__ring_pop_marked). */
typedef enum zc__ring_mark {
    ZC__RING_RESERVED, /* a reservation holds the next place: empty for now */
    ZC__RING_SKIPPED,  /* a hole, which this call skipped, freeing its slot */
    ZC__RING_GONE,     /* head moved meanwhile: look again */
} zc__ring_mark;

/* Claim the next send position for a later commit: ZC_OK (*pos set), ZC_FULL,
 * ZC_CLOSED, or ZC_PENDING (as zc__ring_push). */
zc_status zc__ring_reserve(zc__ring *r, size_t *pos);
/* Write msg into reserved pos and publish it: ZC_OK; ZC_CLOSED if pos is a hole
 * (abandoned by discard, or released), msg not taken; ZC_EINVAL if not reserved. */
zc_status zc__ring_commit(zc__ring *r, size_t pos, const void *msg);
/* Turn reserved pos into a hole; if it is the oldest place, skip it and the holes right
 * after it, freeing their slots (*freed: how many). ZC_OK; ZC_CLOSED if pos was a hole
 * already (abandoned, or released before); ZC_EINVAL if it is not reserved at all. */
zc_status zc__ring_release(zc__ring *r, size_t pos, size_t *freed);
/* If stamp (the stamp of head's slot) is a hole, move head past it and free its slot:
 * true if this call did. */
bool zc__ring_skip_hole(zc__ring *r, size_t head, size_t stamp);
/* Skip the holes at the oldest place, one after another from head (a guess, validated
 * by each skip's CAS), freeing their slots: how many this call skipped. A hole left at
 * head is a free slot too, owed a wake (chan.c zc__chan_wake_senders). */
size_t zc__ring_skip_holes(zc__ring *r, size_t head);
/* The slot at head carries stamp, which has mark_bit: what it is (zc__ring_mark). */
zc__ring_mark zc__ring_pop_marked(zc__ring *r, size_t head, size_t stamp);

/* Why an attempt cannot take the slot it needs, and what it does next. */
typedef enum zc__ring_block {
    ZC__RING_BLOCK_FULL,   /* (a send) cap places are held */
    ZC__RING_BLOCK_EMPTY,  /* (a receive) nothing published at head, or a reservation */
    ZC__RING_BLOCK_CLOSED, /* (a receive) closed and drained */
    ZC__RING_BLOCK_AGAIN,  /* a hole skipped (or head moved): try again now */
    ZC__RING_BLOCK_WAIT,   /* a peer mid-operation, or a stale index: zc__backoff_wait_peer */
} zc__ring_block;

/* For a send at position pos whose slot carries stamp != pos. */
zc__ring_block zc__ring_send_blocked(zc__ring *r, size_t pos, size_t stamp);
/* For a receive at head whose slot carries stamp != head + 1; a hole skipped is added to
 * *skipped. */
zc__ring_block zc__ring_recv_blocked(zc__ring *r, size_t head, size_t stamp, size_t *skipped);

/* Whether the slot of send position pos still holds what position pos - one_lap left
 * there: a message not yet received, a reservation, or a hole not yet skipped. */
static inline bool zc__ring_held_prev_lap(const zc__ring *r, size_t stamp, size_t pos) {
    size_t s = stamp & ~r->mark_bit;
    return s + r->one_lap == pos + 1 || (s != stamp && s + r->one_lap == pos);
}

/* ---- The hot path: the first attempts are inline (zchan/bits/ring.h); anything else
 * goes to ring.c. */

static inline _Atomic size_t *zc__ring_stamp(const zc__ring *r, size_t index) {
    return (_Atomic size_t *)(void *)zc__ring_slot(r, index);
}

static inline unsigned char *zc__ring_msg(const zc__ring *r, size_t index) {
    return zc__ring_slot(r, index) + ZC__RING_MSG_OFFSET;
}

/* The general loops (ring.c): contention, full, empty, closed, peers mid-operation. */
zc_status zc__ring_push_slow(zc__ring *r, const void *msg);
zc_status zc__ring_pop_slow(zc__ring *r, void *out, size_t *skipped);

static inline zc_status zc__ring_push(zc__ring *r, const void *msg) {
    return zc__ring_push_first(r, msg, r->elem_size) ? ZC_OK : zc__ring_push_slow(r, msg);
}

static inline zc_status zc__ring_pop(zc__ring *r, void *out, size_t *skipped) {
    return zc__ring_pop_first(r, out, r->elem_size) ? ZC_OK : zc__ring_pop_slow(r, out, skipped);
}

/* Whether a send now would find the ring full: the slot at tail still holds the previous
 * lap's message (or a receiver is still copying it out). A guess from the senders' own
 * line and that slot, with nothing changed. Relaxed loads: a caller that is about to
 * wait registers first and lets its next attempt decide (that attempt's seq_cst claim
 * or index load, [S1]/[S2], is the re-check of the Dekker pairing). */
static inline bool zc__ring_looks_full(const zc__ring *r) {
    size_t tail = atomic_load_explicit(ZC__RING_TAIL(r), memory_order_relaxed);
    size_t stamp = atomic_load_explicit(zc__ring_stamp(r, tail & (r->mark_bit - 1)),
                                        memory_order_relaxed);
    return zc__ring_held_prev_lap(r, stamp, tail);
}

/* Whether a receive now would find the ring empty: nothing is published at head (or
 * its sender is still writing). A guess, as zc__ring_looks_full (relaxed, as there). */
static inline bool zc__ring_looks_empty(const zc__ring *r) {
    size_t head = atomic_load_explicit(ZC__RING_HEAD(r), memory_order_relaxed);
    return atomic_load_explicit(zc__ring_stamp(r, head & (r->mark_bit - 1)),
                                memory_order_relaxed) == head;
}

/* Wait, for at most `pauses` pause instructions, while the slot at the end given by
 * `index_word` (ZC__RING_HEAD(r) for a receiver, ZC__RING_TAIL(r) for a sender) keeps its
 * stamp: watching only that slot and its own index leaves the peer's index line alone. A
 * hint only. */
static inline void zc__ring_watch(const zc__ring *r, const _Atomic size_t *index_word,
                                  unsigned pauses) {
    /* Relaxed: a guess of the slot to watch; nothing is read through it. */
    size_t pos = atomic_load_explicit((_Atomic size_t *)index_word, memory_order_relaxed);
    _Atomic size_t *stamp = zc__ring_stamp(r, pos & (r->mark_bit - 1));
    /* Relaxed: only a change is looked for; the next attempt reads with acquire. */
    size_t seen = atomic_load_explicit(stamp, memory_order_relaxed);
    for (unsigned i = 0; i < pauses && atomic_load_explicit(stamp, memory_order_relaxed) == seen;
         i++)
        zc__cpu_relax();
}

#endif /* ZCHAN_SRC_RING_H */

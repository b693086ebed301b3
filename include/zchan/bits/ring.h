/*
 * zchan/bits/ring.h: the bounded ring's layout and its first attempts, the one copy that
 * the library (src/queue/ring.h) and zchan/inline.h both compile.
 *
 * Private: nothing here is part of the API; it changes with the library's layout
 * (zchan/inline.h says how a mismatch is caught). Compiles as C11 and C++17 with GCC or
 * Clang: the index words and stamps are plain `size_t`, reached with the __atomic
 * builtins here and through _Atomic views in the library (src/atomic.h, ZC__ATOMIC_SIZE),
 * both the same lock-free operations on the same words.
 *
 * Source: D. Vyukov's bounded MPMC queue (1024cores.net) in the form of
 * crossbeam-channel's array flavour; the ordering map is src/queue/ring.c's.
 */
#ifndef ZCHAN_BITS_RING_H
#define ZCHAN_BITS_RING_H

/* Pulled in by zchan/inline.h: the library's code, exempt from the including file's
 * warnings. The library's own sources keep them. */
#if defined(ZCHAN_INLINE_H) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC system_header
#endif

#include <stdbool.h>
#include <stddef.h>

#include <zchan/bits/base.h>

/* The library's race-window hooks (src/hooks.h) where it defines them; nothing else. */
#ifndef ZC__HOOK
#define ZC__HOOK(point) ((void)0)
#endif

typedef struct zc__ring {
    /* Receivers' line (src/queue/lines.h): the next position to receive from; the rest
     * is left to the ring's owner. */
    size_t head;
    unsigned char rx_rest[ZC_CACHE_LINE - sizeof(size_t)];
    /* Senders' line: the next position to send to, its mark bit meaning closed; the rest
     * is left to the ring's owner. */
    size_t tail;
    unsigned char tx_rest[ZC_CACHE_LINE - sizeof(size_t)];
    /* Constants: read-only after init. */
    size_t cap;
    size_t one_lap;   /* 2 * mark_bit: adding it moves a stamp to the next lap */
    size_t mark_bit;  /* next_pow2(cap + 1): above every index */
    size_t elem_size; /* bytes per message */
    size_t stride;    /* bytes per slot: stamp + message, rounded to 8 */
    unsigned char *slots; /* the caller's (zc__ring_init) */
} zc__ring;

/* Slot = {stamp, message}; the message follows the stamp at this offset. */
#define ZC__RING_MSG_OFFSET sizeof(size_t)

/* The slot at index. A 16-byte slot (messages of up to 8 bytes) is found with a shift,
 * not a multiply: the address is on the dependency chain up to the claiming CAS. */
static inline unsigned char *zc__ring_slot(const zc__ring *r, size_t index) {
    return r->slots + (ZC__LIKELY(r->stride == 16) ? index << 4 : index * r->stride);
}

/* The slot at index for a caller that passes the message size: a constant 8 means a
 * 16-byte slot, found with no look at stride. */
static inline unsigned char *zc__ring_slot_for(const zc__ring *r, size_t index,
                                               size_t elem_size) {
    return elem_size == 8 ? r->slots + (index << 4) : zc__ring_slot(r, index);
}

/* The position after pos: the next index in this lap, or index 0 of the next lap. */
static inline size_t zc__ring_next(const zc__ring *r, size_t pos) {
    size_t index = pos & (r->mark_bit - 1);
    size_t lap = pos & ~(r->one_lap - 1);
    return ZC__LIKELY(index + 1 < r->cap) ? pos + 1 : lap + r->one_lap;
}

/* The first attempt alone: true if msg was sent; false for anything else (full, closed,
 * contention, a peer mid-operation), with nothing changed and head (the receivers' line)
 * not read. Both first attempts read every field before the claiming CAS. elem_size is
 * r->elem_size, or the constant 8 from a caller that knows it (the channel's ring8): the
 * copy is then one move and the attempt makes no call. */
static inline bool zc__ring_push_first(zc__ring *r, const void *msg, size_t elem_size) {
    /* Relaxed: a guess of where to send; the stamp check and the CAS validate it. */
    size_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    size_t index = tail & (r->mark_bit - 1); /* a marked (closed) tail fails the stamp check */
    unsigned char *slot = zc__ring_slot_for(r, index, elem_size);
    size_t *stamp = (size_t *)(void *)slot;
    size_t next = zc__ring_next(r, tail);
    /* [A1] pairs with [R2] (ring.c map): the slot's previous message was copied out. */
    if (__atomic_load_n(stamp, __ATOMIC_ACQUIRE) == tail &&
        /* [S1] seq_cst claim; see the map in ring.c. */
        __atomic_compare_exchange_n(&r->tail, &tail, next, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED)) {
        ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
        zc__copy_in(slot + ZC__RING_MSG_OFFSET, msg, elem_size);
        /* [R1] publish the message; pairs with [A2]. */
        __atomic_store_n(stamp, tail + 1, __ATOMIC_RELEASE);
        ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
        return true;
    }
    return false;
}

/* The first attempt alone: true if a message was copied out; false for anything else
 * (empty, closed, a reservation or hole, contention, a sender mid-write), found without
 * reading tail (the senders' line) and with nothing changed. elem_size as for
 * zc__ring_push_first. */
static inline bool zc__ring_pop_first(zc__ring *r, void *out, size_t elem_size) {
    /* Relaxed: a guess, validated by the stamp and the CAS. */
    size_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    size_t index = head & (r->mark_bit - 1);
    unsigned char *slot = zc__ring_slot_for(r, index, elem_size);
    size_t *stamp = (size_t *)(void *)slot;
    size_t next = zc__ring_next(r, head), one_lap = r->one_lap;
    /* [A2] pairs with [R1]: a published stamp makes the message bytes visible. */
    if (__atomic_load_n(stamp, __ATOMIC_ACQUIRE) == head + 1 &&
        /* [S1] seq_cst claim. */
        __atomic_compare_exchange_n(&r->head, &head, next, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED)) {
        ZC__HOOK(ZC__HOOK_SLOT_CLAIMED);
        zc__copy_out(out, slot + ZC__RING_MSG_OFFSET, elem_size);
        /* [R2] release the slot for the next lap; pairs with [A1]. */
        __atomic_store_n(stamp, head + one_lap, __ATOMIC_RELEASE);
        ZC__HOOK(ZC__HOOK_SLOT_PUBLISHED);
        return true;
    }
    return false;
}

#endif /* ZCHAN_BITS_RING_H */

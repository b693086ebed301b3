/*
 * ring.h: the bounded ring under zc_bounded (algorithm only: no wakers, no handles).
 *
 * Source: D. Vyukov's bounded MPMC queue (1024cores.net) in the form of
 * crossbeam-channel's array flavour: every index is a stamp {lap | mark | index}, so any
 * capacity >= 1 works without rounding to a power of two, and close is one fetch_or of
 * the mark bit on tail. Chosen over FAA rings (SCQ, atomic_queue) because the CAS that
 * claims a slot happens only once the slot is known to be free, so a try_send that finds
 * the ring full has committed nothing, and a cancelled future can never leave a ticket
 * behind; see ../shared design notes section 1.7.
 */
#ifndef ZCHAN_SRC_RING_H
#define ZCHAN_SRC_RING_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/status.h>

#include "atomic.h"

typedef struct zc__ring {
    /* Receivers' word: the next position to receive from. Own line (producer/consumer). */
    ZC_CACHE_ALIGNED _Atomic size_t head;
    /* Senders' word: the next position to send to; its mark bit means closed. */
    ZC_CACHE_ALIGNED _Atomic size_t tail;
    /* Read-only after init. */
    ZC_CACHE_ALIGNED size_t cap;
    size_t one_lap;   /* 2 * mark_bit: adding it moves a stamp to the next lap */
    size_t mark_bit;  /* next_pow2(cap + 1): above every index */
    size_t elem_size; /* bytes per message */
    size_t stride;    /* bytes per slot: stamp + message, rounded to 8 */
    unsigned char *slots;
} zc__ring;

/* Set up a ring of exactly cap slots of elem_size bytes. ZC_OK, ZC_EINVAL (cap or
 * elem_size 0, or sizes overflow), ZC_ENOMEM. */
zc_status zc__ring_init(zc__ring *r, size_t cap, size_t elem_size);
void zc__ring_destroy(zc__ring *r);

/* One send attempt. ZC_OK (copied in), ZC_FULL (cap messages held), ZC_CLOSED, or
 * ZC_PENDING: a receiver is between claiming and releasing the slot this send needs,
 * and a short spin did not see it finish; the caller retries (or re-polls later). */
zc_status zc__ring_push(zc__ring *r, const void *msg);

/* One receive attempt. ZC_OK (copied out), ZC_EMPTY, ZC_CLOSED (closed and drained), or
 * ZC_PENDING: a sender has claimed the next slot but not yet published it. */
zc_status zc__ring_pop(zc__ring *r, void *out);

/* Set the mark bit; true if this call set it. */
bool zc__ring_close(zc__ring *r);
bool zc__ring_is_closed(const zc__ring *r);
size_t zc__ring_len(const zc__ring *r);

/* After close with no receiver left: hand every message still held to drop (if not
 * NULL), waiting for senders that claimed a slot before the close to publish it. */
void zc__ring_discard(zc__ring *r, void (*drop)(void *msg, void *ctx), void *ctx);

#endif /* ZCHAN_SRC_RING_H */

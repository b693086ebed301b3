/*
 * segq.h: the segmented unbounded queue under zc_unbounded (algorithm only).
 *
 * Source: crossbeam-channel's list flavour (crossbeam-channel/src/flavors/list.rs):
 * segments of 31 slots linked in a list; head and tail are {position << 1 | mark} words
 * plus a segment pointer; one position per 32 is the segment boundary. Each segment is
 * freed by its last reader (READ/DESTROY bits), so no hazard pointers or epochs are
 * needed. Chosen because it is the proven MPMC design whose memory follows the number of
 * messages held (tokio's list and Jiffy are single-consumer; LCRQ/LSCQ need safe
 * reclamation of whole rings). One freed segment is kept as a spare, so a channel that
 * hovers around a boundary does not call malloc/free every 31 messages.
 */
#ifndef ZCHAN_SRC_SEGQ_H
#define ZCHAN_SRC_SEGQ_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/status.h>

#include "atomic.h"

struct zc__seg;

typedef struct zc__segq {
    /* Receivers' end. */
    ZC_CACHE_ALIGNED _Atomic size_t head_index; /* position << 1; mark: not the last segment */
    _Atomic(struct zc__seg *) head_seg;
    /* Senders' end. */
    ZC_CACHE_ALIGNED _Atomic size_t tail_index; /* position << 1; mark: closed */
    _Atomic(struct zc__seg *) tail_seg;
    /* One freed segment kept for reuse; written by both ends, so on its own line. */
    ZC_CACHE_ALIGNED _Atomic(struct zc__seg *) spare;
    /* Read-only after init. */
    ZC_CACHE_ALIGNED size_t elem_size;
    size_t stride;    /* bytes per slot: state word + message, rounded to 8 */
    size_t seg_bytes; /* bytes per segment */
} zc__segq;

/* Slots per segment. */
#define ZC__SEG_CAP 31

/* ZC_OK or ZC_EINVAL (elem_size 0 or too large). Allocates nothing: the first segment
 * comes with the first message. */
zc_status zc__segq_init(zc__segq *q, size_t elem_size);
/* Frees every segment. No other thread may use q. */
void zc__segq_destroy(zc__segq *q);

/* Append one message: ZC_OK, ZC_CLOSED, or ZC_ENOMEM (a new segment was needed and could
 * not be allocated; nothing changed). */
zc_status zc__segq_push(zc__segq *q, const void *msg);

/* Take the oldest message: ZC_OK, ZC_EMPTY, or ZC_CLOSED (closed and drained). Once it
 * has claimed a slot whose sender is still writing, it waits for that sender. */
zc_status zc__segq_pop(zc__segq *q, void *out);

bool zc__segq_close(zc__segq *q);
bool zc__segq_is_closed(const zc__segq *q);
size_t zc__segq_len(const zc__segq *q);

/* After close with no receiver left: hand every message still held to drop (if not
 * NULL) and free the segments they occupied. */
void zc__segq_discard(zc__segq *q, void (*drop)(void *msg, void *ctx), void *ctx);

#endif /* ZCHAN_SRC_SEGQ_H */

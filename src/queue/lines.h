/*
 * lines.h: how a queue kind lays its struct out in cache lines (ZC_CACHE_LINE bytes).
 *
 * Three lines, so that no line is written by both ends on their fast paths:
 *   - the receivers' line: the words receivers claim and move (ring: head);
 *   - the senders' line: the words senders claim and move (ring: tail), and words
 *     either end writes once a segment (segq: the spare segment);
 *   - the constants, read by both ends, written once at init.
 * Each end's words take at most the first ZC__QUEUE_END_BYTES of its line; the queue
 * never touches the rest of those two lines (ZC__QUEUE_ROOM bytes each): they are left
 * to its owner, for fields that the same end reads on every operation or that anyone
 * writes only rarely (the channel's waiter lists and handle counts, chan.h), so that a
 * small channel is not mostly padding.
 * The struct is aligned to 8 only (a 128-aligned one would be padded to a whole line);
 * its owner places it at the start of a ZC_CACHE_LINE-aligned block.
 * Source: DPDK's rte_ring and crossbeam's CachePadded keep the producer and consumer
 * words apart the same way; ZC_CACHE_LINE (atomic.h) says why 128 bytes.
 */
#ifndef ZCHAN_SRC_QUEUE_LINES_H
#define ZCHAN_SRC_QUEUE_LINES_H

#include "atomic.h"

/* The bytes at the start of each end's line that a kind's words for that end may take. */
#define ZC__QUEUE_END_BYTES 32
/* The rest of each end's line: the owner's (see above). */
#define ZC__QUEUE_ROOM (ZC_CACHE_LINE - ZC__QUEUE_END_BYTES)

#endif /* ZCHAN_SRC_QUEUE_LINES_H */

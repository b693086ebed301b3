/**
 * @file bench/mutex_chan.h
 * The baseline: a channel of uint64_t as a C programmer writes it by hand, a circular
 * buffer under one pthread mutex with two condition variables (not full, not empty).
 * Bounded: cap slots allocated up front. Unbounded: the buffer doubles when full and
 * never shrinks.
 *
 * | call                  | concurrent with                |
 * |-----------------------|--------------------------------|
 * | send, recv, try_*     | everything, from any thread    |
 * | new, free             | nothing                        |
 */
#ifndef ZCHAN_BENCH_MUTEX_CHAN_H
#define ZCHAN_BENCH_MUTEX_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mutex_chan mutex_chan;

/**
 * Make a channel.
 *
 * @param cap  Capacity in messages; 0 makes it unbounded.
 * @return The channel, or NULL if out of memory.
 */
mutex_chan *mutex_chan_new(size_t cap);

/** Free a channel no thread is using any more; NULL does nothing. */
void mutex_chan_free(mutex_chan *c);

/**
 * Send v, waiting while a bounded channel is full.
 *
 * @return true; false only if an unbounded channel could not grow.
 * Thread safety: any thread. Wakes: one waiting receiver.
 */
bool mutex_chan_send(mutex_chan *c, uint64_t v);

/** Receive one message, waiting while the channel is empty. Wakes one waiting sender. */
uint64_t mutex_chan_recv(mutex_chan *c);

/** Send v if there is room (or the unbounded buffer could grow); never waits. */
bool mutex_chan_try_send(mutex_chan *c, uint64_t v);

/** Receive into *out if a message is there; never waits. */
bool mutex_chan_try_recv(mutex_chan *c, uint64_t *out);

#endif /* ZCHAN_BENCH_MUTEX_CHAN_H */

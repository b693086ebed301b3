/**
 * @file feed.h
 * The job that the event-loop examples (uv_loop.c, ev_loop.c, epoll_loop.c) share, so
 * that each of them shows only how its loop drives zchan futures.
 *
 *   producer thread --readings (bounded 64)--> event loop --flushed (unbounded)--> producer
 *
 * A producer thread sends readings 1, 2, 3, ... in FEED_BURSTS bursts of FEED_BURST_LEN,
 * with blocking sends. The loop receives them with a zc_recv future woken through the
 * loop's own wake-up mechanism and adds each to a batch (feed_take); a periodic timer of
 * FEED_TICK_MS on the same loop flushes the batch (feed_tick), reporting the running
 * total back to the producer on a second channel. After each burst the producer waits
 * until that total covers everything it sent, so every burst is flushed by a timer tick:
 * messages and timers are both needed for the job to finish. After the last burst the
 * producer drops its sender, which closes the channel; the loop sees ZC_CLOSED, stops
 * its timers and returns, and feed_finish checks the outcome.
 */
#ifndef ZCHAN_EXAMPLES_FEED_H
#define ZCHAN_EXAMPLES_FEED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <zchan/mpmc.h>

enum {
    FEED_BURSTS = 5,
    FEED_BURST_LEN = 200,
    FEED_TICK_MS = 2,        /* the flush timer's period */
    FEED_DEADLINE_MS = 10000 /* a loop still running then has lost a wake-up: give up */
};

typedef struct feed {
    /* the loop's side */
    zc_receiver *readings; /**< uint64_t readings, in order from 1 */
    zc_sender *flushed;    /**< uint64_t: readings flushed so far, sent at each flush */
    uint64_t next;         /**< the reading expected next */
    uint64_t batch_len, batch_sum, flushed_len, flushed_sum;
    unsigned ticks, flushes;
    bool out_of_order, flush_failed;
    /* the producer's side */
    pthread_t producer;
    zc_sender *tx;
    zc_receiver *acks;
    bool producer_failed;
} feed;

/** Make both channels and start the producer thread. Returns 0, or -1 (nothing started). */
int feed_start(feed *f);

/** The loop received a reading: check its order and add it to the batch. */
void feed_take(feed *f, uint64_t reading);

/** The flush timer fired: report the batch to the producer, then start a new one. */
void feed_tick(feed *f);

/**
 * After the loop returned: drop the loop's handles (so that a producer still sending or
 * waiting sees ZC_CLOSED and ends), join the producer, check and print the outcome.
 *
 * @param name      The example's name, for the output.
 * @param finished  Whether the loop saw the channel close (false: it gave up).
 * @return The exit status: 0 if every reading arrived once, in order, and was flushed
 *         by a timer tick; 1 otherwise.
 */
int feed_finish(feed *f, const char *name, bool finished);

#endif /* ZCHAN_EXAMPLES_FEED_H */

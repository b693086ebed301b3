/*
 * feed.c: the producer thread and the checks shared by the event-loop examples (see
 * feed.h). The producer is a plain thread, so it uses the blocking layer.
 */
#include "feed.h"

#include <stdio.h>

#include <zchan/block.h>

enum { TOTAL = FEED_BURSTS * FEED_BURST_LEN };

/* Send the bursts; after each, wait until the loop has flushed all of it. */
static void *produce(void *arg) {
    feed *f = arg;
    uint64_t sent = 0, flushed = 0;
    for (int b = 0; b < FEED_BURSTS && !f->producer_failed; b++) {
        for (int i = 0; i < FEED_BURST_LEN && !f->producer_failed; i++) {
            uint64_t reading = sent + 1;
            if (zc_send_blocking(f->tx, &reading) == ZC_OK)
                sent = reading;
            else
                f->producer_failed = true; /* the loop gave up and dropped its receiver */
        }
        while (flushed < sent && !f->producer_failed)
            if (zc_recv_blocking(f->acks, &flushed) != ZC_OK)
                f->producer_failed = true;
    }
    zc_sender_drop(f->tx); /* the only sender: this closes the channel */
    return NULL;
}

int feed_start(feed *f) {
    *f = (feed){.next = 1};
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    if (zc_bounded(64, &cfg, &f->tx, &f->readings) != ZC_OK)
        return -1;
    if (zc_unbounded(&cfg, &f->flushed, &f->acks) != ZC_OK) {
        zc_sender_drop(f->tx);
        zc_receiver_drop(f->readings);
        return -1;
    }
    if (pthread_create(&f->producer, NULL, produce, f) != 0) {
        zc_sender_drop(f->tx);
        zc_receiver_drop(f->readings);
        zc_sender_drop(f->flushed);
        zc_receiver_drop(f->acks);
        return -1;
    }
    return 0;
}

void feed_take(feed *f, uint64_t reading) {
    if (reading != f->next)
        f->out_of_order = true;
    f->next = reading + 1;
    f->batch_len++;
    f->batch_sum += reading;
}

void feed_tick(feed *f) {
    f->ticks++;
    if (f->batch_len == 0)
        return;
    f->flushed_len += f->batch_len;
    f->flushed_sum += f->batch_sum;
    f->batch_len = f->batch_sum = 0;
    f->flushes++;
    /* Unbounded: never full, so a loop can send without waiting. */
    if (zc_try_send(f->flushed, &f->flushed_len) != ZC_OK)
        f->flush_failed = true;
}

int feed_finish(feed *f, const char *name, bool finished) {
    zc_receiver_drop(f->readings);
    zc_sender_drop(f->flushed);
    pthread_join(f->producer, NULL);
    zc_receiver_drop(f->acks);

    int failures = 0;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            printf("%s: ", name);                                                          \
            printf(__VA_ARGS__);                                                           \
            printf("\n");                                                                  \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)
    CHECK(finished, "the loop gave up after %d ms (a lost wake-up?)", FEED_DEADLINE_MS);
    CHECK(!f->out_of_order, "readings arrived out of order");
    CHECK(f->next - 1 == TOTAL, "received %llu readings, sent %d",
          (unsigned long long)(f->next - 1), TOTAL);
    CHECK(f->flushed_len == TOTAL && f->flushed_sum == (uint64_t)TOTAL * (TOTAL + 1) / 2,
          "flushed %llu readings summing to %llu", (unsigned long long)f->flushed_len,
          (unsigned long long)f->flushed_sum);
    CHECK(f->flushes >= FEED_BURSTS, "%u flushes for %d bursts", f->flushes, FEED_BURSTS);
    CHECK(!f->producer_failed && !f->flush_failed, "a send or a flush report failed");
#undef CHECK
    printf("%s: %d readings in %d bursts, flushed %u times over %u timer ticks: %s\n", name,
           TOTAL, FEED_BURSTS, f->flushes, f->ticks,
           failures ? "FAILED" : "all as expected");
    return failures ? 1 : 0;
}

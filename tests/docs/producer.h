/* What the loop frames (embedding-1.c, embedding-2.c) receive from: a thread that sends
 * 1, 2 and 3 on a bounded(1) channel of uint64_t and drops its sender, which closes the
 * channel. start_producer returns the receiver (NULL if anything failed); join_producer
 * waits for the thread and drops the receiver. The frames check the sum, 6. */
#ifndef ZCHAN_DOCS_PRODUCER_H
#define ZCHAN_DOCS_PRODUCER_H

#include <pthread.h>
#include <stdint.h>
#include <zchan/zchan.h>

enum { PRODUCED_SUM = 1 + 2 + 3 };

static pthread_t producer_thread;

static void *produce(void *tx) {
    for (uint64_t i = 1; i <= 3; i++)
        if (zc_send_blocking(tx, &i) != ZC_OK)
            break;
    zc_sender_drop(tx);
    return NULL;
}

static zc_receiver *start_producer(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK)
        return NULL;
    if (pthread_create(&producer_thread, NULL, produce, tx) != 0) {
        zc_sender_drop(tx);
        zc_receiver_drop(rx);
        return NULL;
    }
    return rx;
}

static void join_producer(zc_receiver *rx) {
    pthread_join(producer_thread, NULL);
    zc_receiver_drop(rx);
}

#endif

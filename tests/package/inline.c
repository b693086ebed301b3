/* An outside user of zchan's inline fast paths (ZCHAN_INLINE, zchan/inline.h) through the
 * installed headers: a sender thread and a receiving thread on a bounded channel of
 * 8-byte messages, with try operations and futures. Exits 0 only if all N messages
 * arrive once, in order. */
#define ZCHAN_INLINE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include <zchan/zchan.h>

enum { N = 100000 };

static void noop_wake(void *ctx) { (void)ctx; }

static void *produce(void *arg) {
    zc_sender *tx = arg;
    const zc_waker w = {noop_wake, NULL};
    for (uint64_t i = 0; i < N; i++) {
        if (i % 2) { /* odd messages by future, polled until it completes */
            zc_send f;
            zc_send_init(&f, tx, &i);
            while (zc_send_poll(&f, &w) == ZC_PENDING) {
                zc_send_cancel(&f);
                sched_yield();
                zc_send_init(&f, tx, &i);
            }
        } else {
            while (zc_try_send(tx, &i) == ZC_FULL) sched_yield();
        }
    }
    zc_sender_drop(tx); /* the last sender: closes the channel */
    return NULL;
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    pthread_t thread;
    if (zc_bounded(8, &cfg, &tx, &rx) != ZC_OK || pthread_create(&thread, NULL, produce, tx))
        return 1;
    uint64_t v, next = 0;
    zc_status s;
    while ((s = zc_try_recv(rx, &v)) != ZC_CLOSED) {
        if (s == ZC_EMPTY) {
            sched_yield();
            continue;
        }
        if (s != ZC_OK || v != next) break;
        next++;
    }
    pthread_join(thread, NULL);
    zc_receiver_drop(rx);
    if (s != ZC_CLOSED || next != N) {
        fprintf(stderr, "package: inline: %s after %llu of %d messages\n", zc_status_str(s),
                (unsigned long long)next, N);
        return 1;
    }
    printf("package: inline fast paths, %d messages in order, then %s\n", N, zc_status_str(s));
    return 0;
}

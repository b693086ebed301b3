/* docs/embedding.md, the fd waker loop: a thread sends three messages and drops its
 * sender; the loop must handle all three, then stop on ZC_CLOSED. */
#define _DEFAULT_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <zchan/zchan.h>

enum { N = 3 };
static uint64_t handled;
static void handle(const uint64_t *m) { handled += *m; }

static void *produce(void *tx) {
    for (uint64_t i = 1; i <= N; i++)
        if (zc_send_blocking(tx, &i) != ZC_OK)
            break;
    zc_sender_drop(tx);
    return NULL;
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK)
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, produce, tx) != 0)
        return 1;
    uint64_t msg;
    nfds_t nfds = 1;
    int timeout_ms = 1000;

@SNIPPET@

    pthread_join(t, NULL);
    zc_receiver_drop(rx);
    return handled == 1 + 2 + 3 ? 0 : 1;
}

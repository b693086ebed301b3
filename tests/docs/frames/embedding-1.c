/* docs/embedding.md, the fd waker loop: a thread sends three messages and drops its
 * sender; the loop must handle all three, then stop on ZC_CLOSED. */
#define _DEFAULT_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <zchan/zchan.h>

#include "producer.h"

static uint64_t handled;
static void handle(const uint64_t *m) { handled += *m; }

int main(void) {
    zc_receiver *rx = start_producer();
    if (!rx)
        return 1;
    uint64_t msg;
    nfds_t nfds = 1;
    int timeout_ms = 1000;

@SNIPPET@

    join_producer(rx);
    return handled == PRODUCED_SUM ? 0 : 1;
}

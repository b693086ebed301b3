/* README.md, an epoll loop with the fd waker: a thread sends three messages and drops
 * its sender; the loop must handle all three, then stop on ZC_CLOSED. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <zchan/zchan.h>

#include "producer.h"

static uint64_t handled;
static void handle(uint64_t m) { handled += m; }

int main(void) {
    zc_receiver *rx = start_producer();
    if (!rx)
        return 1;
    uint64_t msg;

@SNIPPET@

    join_producer(rx);
    return handled == PRODUCED_SUM ? 0 : 1;
}

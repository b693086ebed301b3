/* README.md, typed wrappers: both macros at file scope, then one message each way. */
#include <stdint.h>
#include <zchan/zchan.h>

struct job {
    uint64_t id;
};
struct tick {
    uint64_t n;
};

@SNIPPET@

int main(void) {
    jobs_sender *tx;
    jobs_receiver *rx;
    struct job j = {5}, out = {0};
    if (jobs_bounded(4, &tx, &rx) != ZC_OK || jobs_try_send(tx, j) != ZC_OK ||
        jobs_try_recv(rx, &out) != ZC_OK || out.id != 5)
        return 1;
    jobs_sender_drop(tx);
    jobs_receiver_drop(rx);

    ticks_sender *btx;
    ticks_receiver *brx;
    struct tick t = {3}, got = {0};
    uint64_t missed;
    if (ticks_new(4, ZC_BCAST_OVERFLOW, &btx, &brx) != ZC_OK || ticks_try_send(btx, t) != ZC_OK ||
        ticks_try_recv(brx, &got, &missed) != ZC_OK || got.n != 3)
        return 1;
    ticks_receiver_drop(brx);
    ticks_sender_drop(btx);
    return 0;
}

/* README.md, broadcast: the frame's subscribe also sends ticks 1..66 into the 64 places,
 * so the new receiver has fallen 2 behind: the snippet's receive must say ZC_LAGGED with
 * 2 missed, and the next receive give tick 3, the oldest held. */
#include <stdint.h>
#include <zchan/zchan.h>

struct tick {
    uint64_t n;
};

static zc_bcast_receiver *subscribe_then_send(zc_bcast_sender *tx) {
    zc_bcast_receiver *rx = zc_bcast_subscribe(tx);
    for (uint64_t n = 1; rx != NULL && n <= 66; n++) {
        struct tick t = {n};
        if (zc_bcast_try_send(tx, &t) != ZC_OK) {
            zc_bcast_receiver_drop(rx);
            return NULL;
        }
    }
    return rx;
}
#define zc_bcast_subscribe subscribe_then_send

int main(void) {
@SNIPPET@

    if (s != ZC_LAGGED || missed != 2)
        return 1;
    if (zc_bcast_try_recv(rx2, &t, &missed) != ZC_OK || t.n != 3)
        return 1;
    zc_bcast_receiver_drop(rx2);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
    return 0;
}

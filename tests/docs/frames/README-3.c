/* README.md, broadcast: the snippet's receive would wait for ever on its own, so the
 * frame's subscribe also sends one tick, which the new receiver must get. */
#include <stdint.h>
#include <zchan/zchan.h>

struct tick {
    uint64_t n;
};

static zc_bcast_receiver *subscribe_then_send(zc_bcast_sender *tx) {
    zc_bcast_receiver *rx = zc_bcast_subscribe(tx);
    struct tick t = {42};
    if (rx == NULL || zc_bcast_try_send(tx, &t) != ZC_OK) {
        zc_bcast_receiver_drop(rx);
        return NULL;
    }
    return rx;
}
#define zc_bcast_subscribe subscribe_then_send

int main(void) {
@SNIPPET@

    if (s != ZC_OK || t.n != 42)
        return 1;
    (void)missed;
    zc_bcast_receiver_drop(rx2);
    zc_bcast_receiver_drop(rx);
    zc_bcast_sender_drop(tx);
    return 0;
}

/* README.md, batches: on a channel of 16 places, the send of 32 sends the 16 that fit,
 * and the receive of up to 32 takes those 16, leaving it empty. */
#include <stdint.h>
#include <zchan/zchan.h>

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(16, &cfg, &tx, &rx) != ZC_OK)
        return 1;

@SNIPPET@

    uint64_t more;
    if (sent != 16 || got != 16 || zc_try_recv(rx, &more) != ZC_EMPTY)
        return 1;
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return 0;
}

/* README.md, select: a message waits on the second channel only, so the select must
 * complete case 1 with it and take nothing from the first. */
#include <stdint.h>
#include <zchan/zchan.h>

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx_a, *tx_b;
    zc_receiver *rx_a, *rx_b;
    if (zc_bounded(4, &cfg, &tx_a, &rx_a) != ZC_OK || zc_bounded(4, &cfg, &tx_b, &rx_b) != ZC_OK)
        return 1;
    uint64_t seven = 7, zero = 0;
    if (zc_try_send(tx_b, &seven) != ZC_OK)
        return 1;

@SNIPPET@

    (void)a;
    if (s != ZC_OK || i != 1 || b != 7)
        return 1;
    if (zc_try_send(tx_a, &zero) != ZC_OK || zc_try_recv(rx_a, &a) != ZC_OK || a != 0)
        return 1; /* the first channel was left as it was */
    zc_sender_drop(tx_a);
    zc_sender_drop(tx_b);
    zc_receiver_drop(rx_a);
    zc_receiver_drop(rx_b);
    return 0;
}

/* README.md, the select loop: two channels hold 1, 2 and 10, 20, and both are closed
 * (their senders dropped). The loop must handle all four messages, skip each input once
 * it is closed and drained, and end with ZC_CLOSED for none of the cases (index 2). */
#include <stdint.h>
#include <zchan/zchan.h>

static uint64_t handled_sum;
static int handled;
static void handle(uint64_t v) {
    handled_sum += v;
    handled++;
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx_a, *tx_b;
    zc_receiver *rx_a, *rx_b;
    if (zc_bounded(4, &cfg, &tx_a, &rx_a) != ZC_OK || zc_bounded(4, &cfg, &tx_b, &rx_b) != ZC_OK)
        return 1;
    uint64_t v[] = {1, 2, 10, 20};
    if (zc_try_send(tx_a, &v[0]) != ZC_OK || zc_try_send(tx_a, &v[1]) != ZC_OK ||
        zc_try_send(tx_b, &v[2]) != ZC_OK || zc_try_send(tx_b, &v[3]) != ZC_OK)
        return 1;
    zc_sender_drop(tx_a);
    zc_sender_drop(tx_b);

@SNIPPET@

    if (handled != 4 || handled_sum != 33 || s != ZC_CLOSED || i != 2)
        return 1;
    zc_receiver_drop(rx_a);
    zc_receiver_drop(rx_b);
    return 0;
}

/* README.md, batches: 32 go in and the same 32 come out. */
#include <stdint.h>
#include <zchan/zchan.h>

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(64, &cfg, &tx, &rx) != ZC_OK)
        return 1;

@SNIPPET@

    if (sent != 32 || got != 32)
        return 1;
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return 0;
}

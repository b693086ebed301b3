/* docs/embedding.md, the thread pool: the echo task must handle every message sent
 * before its channel closed, on 4 workers. */
#include <stdint.h>
#include <zchan/zchan.h>

#include "executor.h"

static _Atomic uint64_t handled;
static void handle(uint64_t m) { handled += m; }

@PART 1@

@PART 2@

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(8, &cfg, &tx, &rx) != ZC_OK)
        return 1;
    for (uint64_t i = 1; i <= 4; i++)
        if (zc_try_send(tx, &i) != ZC_OK)
            return 1;
    zc_sender_drop(tx);

@PART 3@

    zc_receiver_drop(rx);
    return handled == 1 + 2 + 3 + 4 ? 0 : 1;
}

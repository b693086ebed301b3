/* A program built with ZCHAN_INLINE, for the link test of tests/inline/CMakeLists.txt:
 * against a library of another layout (the checked build's) it must not link. */
#define ZCHAN_INLINE
#include <zchan/zchan.h>

int main(void) {
    zc_sender *tx;
    zc_receiver *rx;
    zc_config cfg = {.elem_size = 8};
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK) return 1;
    unsigned long long v = 1;
    int bad = zc_try_send(tx, &v) != ZC_OK || zc_try_recv(rx, &v) != ZC_OK || v != 1;
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return bad;
}

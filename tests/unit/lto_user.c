/* Compile-only test (test_builds_with_lto): a program built together with zchan's
 * sources under -flto -O3 -Werror, as a project that adds zchan to its own build and
 * optimises across it. Link-time inlining puts zchan's message copy next to this file's
 * 4-byte message objects, where gcc 12 can report the copy's 8- and 16-byte branches,
 * which cannot run for this channel, as overflows of them and fail the build. Kept to one
 * send and one receive: with more call sites gcc inlines less, and the check would no
 * longer look at that copy. */
#include <zchan/mpmc.h>

int main(void) {
    zc_config cfg = {.elem_size = sizeof(int)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(4, &cfg, &tx, &rx) != ZC_OK) return 1;
    int in = 3, out = 0;
    zc_status sent = zc_try_send(tx, &in);
    zc_status got = zc_try_recv(rx, &out);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return sent != ZC_OK || got != ZC_OK || out != 3;
}

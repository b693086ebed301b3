/* docs/embedding.md, sending from a loop: pump_poll and pump_send as written, with a
 * watch_source that records the pauses and resumes. On a channel of capacity 1 the
 * first record is sent at once; the second waits, which must pause the source once;
 * a receive wakes the future, and the poll that completes it must resume the source.
 * Nothing reads the source in between: the loop's part is only to call them. */
#include <stdbool.h>
#include <stdint.h>
#include <zchan/zchan.h>

typedef struct pump pump;
static int pauses, resumes;
static void watch_source(pump *p, bool on) {
    (void)p;
    if (on)
        resumes++;
    else
        pauses++;
}

static int wakes;
static void count_wake(void *ctx) {
    (void)ctx;
    wakes++;
}

@SNIPPET@

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_receiver *rx;
    pump p = {.waker = {count_wake, NULL}};
    if (zc_bounded(1, &cfg, &p.tx, &rx) != ZC_OK)
        return 1;
    if (pump_send(&p, 1) != ZC_OK || p.sending || pauses != 0)
        return 1;
    if (pump_send(&p, 2) != ZC_PENDING || !p.sending || pauses != 1 || resumes != 0)
        return 1;
    uint64_t v = 0;
    if (zc_try_recv(rx, &v) != ZC_OK || v != 1 || wakes != 1)
        return 1;
    if (pump_poll(&p) != ZC_OK || p.sending || pauses != 1 || resumes != 1)
        return 1;
    if (zc_try_recv(rx, &v) != ZC_OK || v != 2)
        return 1;
    /* No receiver left: the send says ZC_CLOSED, and a waiting one resumes the source. */
    if (pump_send(&p, 3) != ZC_OK || pump_send(&p, 4) != ZC_PENDING || pauses != 2)
        return 1;
    zc_receiver_drop(rx);
    if (pump_poll(&p) != ZC_CLOSED || p.sending || resumes != 2)
        return 1;
    zc_sender_drop(p.tx);
    return 0;
}

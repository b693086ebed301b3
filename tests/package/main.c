/* An outside user of zchan: a sender thread and a receive loop over a bounded channel.
 * Exits 0 only if the library is the headers' version, and all N messages arrive, in
 * order, and then ZC_CLOSED. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <zchan/zchan.h>

enum { N = 10000 };

static void *produce(void *arg) {
    zc_sender *tx = arg;
    for (uint64_t i = 0; i < N && zc_send_blocking(tx, &i) == ZC_OK; i++) {
    }
    zc_sender_drop(tx); /* the last sender: closes the channel */
    return NULL;
}

int main(void) {
    /* The library this program runs with is the version its headers name. */
    if (zc_version() != ZCHAN_VERSION_NUMBER ||
        strcmp(zc_version_string(), ZCHAN_VERSION_STRING) != 0) {
        fprintf(stderr, "package: headers %s, library %s (%u)\n", ZCHAN_VERSION_STRING,
                zc_version_string(), zc_version());
        return 1;
    }
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    pthread_t thread;
    if (zc_bounded(4, &cfg, &tx, &rx) != ZC_OK || pthread_create(&thread, NULL, produce, tx))
        return 1;
    uint64_t v, next = 0;
    zc_status s;
    while ((s = zc_recv_blocking(rx, &v)) == ZC_OK && v == next)
        next++;
    pthread_join(thread, NULL);
    zc_receiver_drop(rx);
    if (s != ZC_CLOSED || next != N) {
        fprintf(stderr, "package: %s after %llu of %d messages\n", zc_status_str(s),
                (unsigned long long)next, N);
        return 1;
    }
    printf("package: zchan %s, %d messages in order, then %s\n", ZCHAN_VERSION_STRING, N,
           zc_status_str(s));
    return 0;
}

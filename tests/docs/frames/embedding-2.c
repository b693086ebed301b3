/* docs/embedding.md, libuv: a thread sends three messages and drops its sender; the
 * async callback must handle all three and stop the loop on ZC_CLOSED. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <uv.h>
#include <zchan/zchan.h>

typedef struct app {
    uv_async_t async;
    zc_recv next;
    zc_waker waker;
} app;

static uint64_t msg, handled;
static void handle(const uint64_t *m) { handled += *m; }
static void stop(app *a) { uv_close((uv_handle_t *)&a->async, NULL); }

@PART 1@
@PART 2@

static void *produce(void *tx) {
    for (uint64_t i = 1; i <= 3; i++)
        if (zc_send_blocking(tx, &i) != ZC_OK)
            break;
    zc_sender_drop(tx);
    return NULL;
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK)
        return 1;
    uv_loop_t *loop = uv_default_loop();
    app app_, *a = &app_;
    pthread_t t;
    if (pthread_create(&t, NULL, produce, tx) != 0)
        return 1;

@PART 3@

    pthread_join(t, NULL);
    uv_loop_close(loop);
    zc_receiver_drop(rx);
    return handled == 1 + 2 + 3 ? 0 : 1;
}

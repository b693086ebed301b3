/* docs/embedding.md, libuv: a thread sends three messages and drops its sender; the
 * async callback must handle all three and stop the loop on ZC_CLOSED. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <uv.h>
#include <zchan/zchan.h>

#include "producer.h"

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

int main(void) {
    zc_receiver *rx = start_producer();
    if (!rx)
        return 1;
    uv_loop_t *loop = uv_default_loop();
    app app_, *a = &app_;

@PART 3@

    join_producer(rx);
    uv_loop_close(loop);
    return handled == PRODUCED_SUM ? 0 : 1;
}

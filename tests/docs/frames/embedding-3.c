/* docs/embedding.md, coroutines: co_recv as written, with the simplest scheduler there
 * is, one coroutine that is the thread itself (co_suspend parks it, co_wake unparks it).
 * The worker loop must square every job and stop when the job channel closes. */
#include <stdint.h>
#include <zchan/zchan.h>

typedef struct result {
    uint64_t job, square;
} result;

static zc_parker self;
static void *current_coroutine(void) { return &self; }
static void co_suspend(void) { zc_parker_park(&self); }
static void co_wake(void *co) { zc_waker w = zc_parker_waker(co); w.wake(w.ctx); }

static zc_status co_send(zc_sender *tx, const void *msg) {
    zc_waker w = {co_wake, current_coroutine()};
    zc_send f;
    zc_send_init(&f, tx, msg);
    zc_status s;
    while ((s = zc_send_poll(&f, &w)) == ZC_PENDING)
        co_suspend();
    return s;
}

@PART 1@

int main(void) {
    zc_parker_init(&self);
    zc_config jcfg = {.elem_size = sizeof(uint64_t)}, rcfg = {.elem_size = sizeof(result)};
    zc_sender *jtx, *results;
    zc_receiver *jobs, *rrx;
    if (zc_bounded(8, &jcfg, &jtx, &jobs) != ZC_OK || zc_unbounded(&rcfg, &results, &rrx) != ZC_OK)
        return 1;
    for (uint64_t j = 1; j <= 5; j++)
        if (zc_try_send(jtx, &j) != ZC_OK)
            return 1;
    zc_sender_drop(jtx);
    uint64_t job;
    {
@PART 2@
    }

    zc_sender_drop(results);
    result r;
    uint64_t sum = 0;
    while (zc_try_recv(rrx, &r) == ZC_OK)
        sum += r.square;
    zc_receiver_drop(jobs);
    zc_receiver_drop(rrx);
    zc_parker_destroy(&self);
    return sum == 1 + 4 + 9 + 16 + 25 ? 0 : 1;
}

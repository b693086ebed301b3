/* README.md, a rendezvous channel: the try finds nobody waiting; the blocking send
 * returns once the worker thread has the job, which it received exactly then. */
#include <pthread.h>
#include <zchan/zchan.h>

static pthread_t worker;
static int its_job;

static void *work(void *rx) {
    if (zc_recv_blocking(rx, &its_job) != ZC_OK) its_job = -1;
    return NULL;
}

static void start_worker(zc_receiver *rx) { pthread_create(&worker, NULL, work, rx); }

int main(void) {
@SNIPPET@

    int full = zc_try_send(tx, &job) == ZC_FULL; /* the worker took one and is gone */
    pthread_join(worker, NULL);
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    return s == ZC_OK && its_job == 7 && full ? 0 : 1;
}

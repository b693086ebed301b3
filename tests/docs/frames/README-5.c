/* README.md, the two-phase send: a job taken from the "socket" is committed and
 * received; when there is none, the place is released and nothing is received. */
#include <stdbool.h>
#include <stdint.h>
#include <zchan/zchan.h>

struct job {
    uint64_t id;
};

static int jobs_left = 1, requeued;
static bool take_job_from_socket(struct job *j) {
    if (jobs_left == 0)
        return false;
    jobs_left--;
    j->id = 99;
    return true;
}
static void requeue_job(const struct job *j) {
    (void)j;
    requeued++;
}

static int send_one(zc_sender *tx) {
@SNIPPET@
    return 0;
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(struct job)};
    zc_sender *tx;
    zc_receiver *rx;
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK)
        return 1;
    struct job got;
    send_one(tx); /* commits job 99 */
    if (zc_try_recv(rx, &got) != ZC_OK || got.id != 99)
        return 1;
    send_one(tx); /* no job: releases its place */
    if (zc_try_recv(rx, &got) != ZC_EMPTY || zc_try_send(tx, &got) != ZC_OK)
        return 1; /* nothing came, and the place is free again */
    zc_receiver_drop(rx);
    jobs_left = 1;
    send_one(tx); /* no receiver: the reserve fails, nothing to requeue */
    zc_sender_drop(tx);
    return requeued == 0 ? 0 : 1;
}

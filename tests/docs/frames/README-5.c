/* README.md, the two-phase send, each branch once: a job taken from the "socket" is
 * committed and received; with no job the place is released and nothing is received;
 * a job whose commit finds the receiver gone (dropped while the job was being taken)
 * is requeued. */
#include <stdbool.h>
#include <stdint.h>
#include <zchan/zchan.h>

struct job {
    uint64_t id;
};

static int calls, requeued;
static zc_receiver *rx;

static bool take_job_from_socket(struct job *j) {
    switch (++calls) {
    case 1: /* a job */
        j->id = 99;
        return true;
    case 2: /* none */
        return false;
    default: /* a job, but the receiver goes meanwhile */
        zc_receiver_drop(rx);
        rx = NULL;
        j->id = 7;
        return true;
    }
}
static void requeue_job(const struct job *j) {
    if (j->id == 7)
        requeued++;
}

static void send_one(zc_sender *tx) {
@SNIPPET@
}

int main(void) {
    zc_config cfg = {.elem_size = sizeof(struct job)};
    zc_sender *tx;
    if (zc_bounded(1, &cfg, &tx, &rx) != ZC_OK)
        return 1;
    struct job got;
    send_one(tx); /* commits job 99 */
    if (zc_try_recv(rx, &got) != ZC_OK || got.id != 99)
        return 1;
    send_one(tx); /* no job: releases its place */
    if (zc_try_recv(rx, &got) != ZC_EMPTY || zc_try_send(tx, &got) != ZC_OK ||
        zc_try_recv(rx, &got) != ZC_OK)
        return 1; /* nothing came, and the place was free again */
    send_one(tx); /* the commit finds no receiver: ZC_CLOSED, the job is requeued */
    zc_sender_drop(tx);
    return calls == 3 && requeued == 1 && rx == NULL ? 0 : 1;
}

/*
 * hello: the basics of a zchan channel, on one thread.
 *
 * Two senders and two receivers share one bounded channel of capacity 2. The channel is
 * full after two sends; a third send is refused and the message stays the caller's.
 * Each receiver takes one message, in the order they were sent. Once both senders are
 * dropped the channel is closed, and both receivers see ZC_CLOSED.
 *
 * Exits 0 if everything happened as described, 1 otherwise.
 */
#include <stdio.h>

#include <zchan/mpmc.h>

static int failures;

/* Print one step and whether zchan answered as expected. */
static void expect(const char *what, zc_status got, zc_status want) {
    if (got == want) {
        printf("%-46s -> %s\n", what, zc_status_str(got));
    } else {
        printf("%-46s -> %s, UNEXPECTED (wanted %s)\n", what, zc_status_str(got),
               zc_status_str(want));
        failures++;
    }
}

int main(void) {
    /* Messages are pointers to strings: the channel copies elem_size bytes, here the
     * pointer itself. */
    zc_config cfg = {.elem_size = sizeof(const char *)};
    zc_sender *tx1;
    zc_receiver *rx1;
    if (zc_bounded(2, &cfg, &tx1, &rx1) != ZC_OK) {
        fprintf(stderr, "hello: could not make a channel\n");
        return 1;
    }
    zc_sender *tx2 = zc_sender_clone(tx1);
    zc_receiver *rx2 = zc_receiver_clone(rx1);

    const char *hello = "hello", *world = "world", *extra = "one too many";
    expect("tx1 sends \"hello\"", zc_try_send(tx1, &hello), ZC_OK);
    expect("tx2 sends \"world\"", zc_try_send(tx2, &world), ZC_OK);
    expect("tx1 sends \"one too many\" (capacity is 2)", zc_try_send(tx1, &extra), ZC_FULL);
    printf("  the refused message is still ours: \"%s\"\n", extra);

    const char *got = NULL;
    expect("rx1 receives", zc_try_recv(rx1, &got), ZC_OK);
    printf("  rx1 got \"%s\"\n", got ? got : "(nothing)");
    if (got != hello)
        failures++;
    got = NULL;
    expect("rx2 receives", zc_try_recv(rx2, &got), ZC_OK);
    printf("  rx2 got \"%s\"\n", got ? got : "(nothing)");
    if (got != world)
        failures++;
    expect("rx1 receives from the empty, open channel", zc_try_recv(rx1, &got), ZC_EMPTY);

    zc_sender_drop(tx1);
    zc_sender_drop(tx2);
    printf("both senders dropped: the channel is closed\n");
    expect("rx1 receives", zc_try_recv(rx1, &got), ZC_CLOSED);
    expect("rx2 receives", zc_try_recv(rx2, &got), ZC_CLOSED);

    zc_receiver_drop(rx1);
    zc_receiver_drop(rx2);
    if (failures) {
        printf("hello: %d step(s) went wrong\n", failures);
        return 1;
    }
    printf("hello: all as expected\n");
    return 0;
}

/*
 * fanout: one publisher, several subscribers, through two typed broadcast channels.
 *
 * A publisher thread sends 20,000 quotes, each one to two broadcasts:
 * - "ticks", overflow mode, capacity 1024: the publisher never waits. A fast subscriber
 *   keeps up (mostly); a slow one naps now and then, falls behind, and is told so:
 *   ZC_LAGGED with the number of quotes it missed, after which it goes on from the
 *   oldest quote still held.
 * - "audit", back-pressure mode, capacity 64: the publisher waits for the auditor, who
 *   therefore sees every quote.
 * When the publisher is done it drops its senders, which closes both broadcasts; each
 * subscriber reads what is left for it, then sees ZC_CLOSED.
 *
 * Checks: every subscriber sees the quotes in the order they were sent; for each ticks
 * subscriber, quotes received + quotes missed = quotes sent; the auditor received them
 * all. How many the slow one misses depends on the machine; it prints the counts.
 *
 * Exits 0 if every check held, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <zchan/zchan.h>

#define QUOTES 20000

typedef struct quote {
    uint64_t seq; /* 1, 2, ... in the order sent */
    double price;
} quote;

ZC_DEFINE_BROADCAST(ticks, quote)
ZC_DEFINE_BROADCAST(audit, quote)

typedef struct publisher {
    ticks_sender *ticks;
    audit_sender *audit;
    int failed;
} publisher;

static void *publish(void *arg) {
    publisher *p = arg;
    for (uint64_t seq = 1; seq <= QUOTES; seq++) {
        quote q = {seq, 100.0 + (double)(seq % 50) / 8};
        /* Overflow mode never waits; back-pressure mode waits for the auditor. */
        if (ticks_send_blocking(p->ticks, q) != ZC_OK ||
            audit_send_blocking(p->audit, q) != ZC_OK) {
            p->failed = 1;
            break;
        }
    }
    ticks_sender_drop(p->ticks); /* the last senders: both broadcasts close */
    audit_sender_drop(p->audit);
    return NULL;
}

/* A subscriber of ticks; naps for 5 ms after every nap_every quotes (0: never). */
typedef struct ticker {
    const char *name;
    ticks_receiver *rx;
    unsigned nap_every;
    uint64_t received, missed, lags, last_seq;
    int out_of_order;
} ticker;

static void *watch_ticks(void *arg) {
    ticker *t = arg;
    for (;;) {
        quote q;
        uint64_t missed;
        zc_status s = ticks_recv_blocking(t->rx, &q, &missed);
        if (s == ZC_CLOSED)
            break;
        if (s == ZC_LAGGED) {
            t->missed += missed; /* the next receive returns the oldest quote held */
            t->lags++;
            continue;
        }
        if (s != ZC_OK || q.seq <= t->last_seq)
            t->out_of_order++;
        t->last_seq = q.seq;
        t->received++;
        if (t->nap_every && t->received % t->nap_every == 0)
            nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    ticks_receiver_drop(t->rx);
    return NULL;
}

typedef struct auditor {
    audit_receiver *rx;
    uint64_t received, next_seq;
    int out_of_order;
} auditor;

static void *watch_audit(void *arg) {
    auditor *a = arg;
    quote q;
    zc_status s;
    while ((s = audit_recv_blocking(a->rx, &q, NULL)) == ZC_OK) {
        if (q.seq != a->next_seq)
            a->out_of_order++; /* back-pressure mode: no gaps, ever */
        a->next_seq = q.seq + 1;
        a->received++;
    }
    if (s != ZC_CLOSED)
        a->out_of_order++;
    audit_receiver_drop(a->rx);
    return NULL;
}

int main(void) {
    publisher pub = {0};
    ticker fast = {.name = "fast"}, slow = {.name = "slow", .nap_every = 1000};
    auditor aud = {.next_seq = 1};
    if (ticks_new(1024, ZC_BCAST_OVERFLOW, &pub.ticks, &fast.rx) != ZC_OK ||
        audit_new(64, ZC_BCAST_BACKPRESSURE, &pub.audit, &aud.rx) != ZC_OK) {
        fprintf(stderr, "fanout: could not make the broadcasts\n");
        return 1;
    }
    slow.rx = ticks_subscribe(pub.ticks); /* before the first send: sees them all */
    if (!slow.rx) {
        fprintf(stderr, "fanout: could not subscribe\n");
        return 1;
    }

    pthread_t threads[4];
    int started = pthread_create(&threads[0], NULL, watch_ticks, &fast) == 0 &&
                  pthread_create(&threads[1], NULL, watch_ticks, &slow) == 0 &&
                  pthread_create(&threads[2], NULL, watch_audit, &aud) == 0 &&
                  pthread_create(&threads[3], NULL, publish, &pub) == 0;
    if (!started) {
        fprintf(stderr, "fanout: could not start the threads\n");
        return 1;
    }
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);

    int failures = pub.failed;
    ticker *each[] = {&fast, &slow};
    for (int i = 0; i < 2; i++) {
        ticker *t = each[i];
        int ok = !t->out_of_order && t->received + t->missed == QUOTES;
        printf("ticks, %s subscriber: %llu received + %llu missed (in %llu lags) = %d sent%s\n",
               t->name, (unsigned long long)t->received, (unsigned long long)t->missed,
               (unsigned long long)t->lags, QUOTES, ok ? "" : ": WRONG");
        failures += !ok;
    }
    int audit_ok = !aud.out_of_order && aud.received == QUOTES;
    printf("audit: %llu received of %d sent, in order%s\n", (unsigned long long)aud.received,
           QUOTES, audit_ok ? "" : ": WRONG");
    failures += !audit_ok;
    if (failures) {
        printf("fanout: %d check(s) failed\n", failures);
        return 1;
    }
    printf("fanout: all as expected\n");
    return 0;
}

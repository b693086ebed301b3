/* The hand-written mutex + condition variable channel: see mutex_chan.h. */
#include "mutex_chan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mutex_chan {
    pthread_mutex_t mu;
    pthread_cond_t not_empty; /* receivers wait here */
    pthread_cond_t not_full;  /* senders of a bounded channel wait here */
    uint64_t *buf;
    size_t size; /* slots in buf */
    size_t head; /* next slot to read */
    size_t len;  /* messages held */
    bool bounded;
};

mutex_chan *mutex_chan_new(size_t cap)
{
    mutex_chan *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->bounded = cap > 0;
    c->size = cap > 0 ? cap : 16;
    c->buf = malloc(c->size * sizeof *c->buf);
    if (!c->buf) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->not_empty, NULL);
    pthread_cond_init(&c->not_full, NULL);
    return c;
}

void mutex_chan_free(mutex_chan *c)
{
    if (!c)
        return;
    pthread_cond_destroy(&c->not_full);
    pthread_cond_destroy(&c->not_empty);
    pthread_mutex_destroy(&c->mu);
    free(c->buf);
    free(c);
}

/* Double the buffer of an unbounded channel, unrolling the wrapped part. Caller holds mu. */
static bool grow(mutex_chan *c)
{
    uint64_t *nb = malloc(2 * c->size * sizeof *nb);
    if (!nb)
        return false;
    size_t first = c->size - c->head; /* messages from head to the end of buf */
    if (first > c->len)
        first = c->len;
    memcpy(nb, c->buf + c->head, first * sizeof *nb);
    memcpy(nb + first, c->buf, (c->len - first) * sizeof *nb);
    free(c->buf);
    c->buf = nb;
    c->size *= 2;
    c->head = 0;
    return true;
}

/* Append v; the caller holds mu and has made sure there is room. */
static void push(mutex_chan *c, uint64_t v)
{
    size_t tail = c->head + c->len;
    c->buf[tail < c->size ? tail : tail - c->size] = v;
    c->len++;
}

static uint64_t pop(mutex_chan *c)
{
    uint64_t v = c->buf[c->head];
    if (++c->head == c->size)
        c->head = 0;
    c->len--;
    return v;
}

bool mutex_chan_send(mutex_chan *c, uint64_t v)
{
    pthread_mutex_lock(&c->mu);
    while (c->bounded && c->len == c->size)
        pthread_cond_wait(&c->not_full, &c->mu);
    if (c->len == c->size && !grow(c)) {
        pthread_mutex_unlock(&c->mu);
        return false;
    }
    push(c, v);
    pthread_mutex_unlock(&c->mu);
    pthread_cond_signal(&c->not_empty);
    return true;
}

uint64_t mutex_chan_recv(mutex_chan *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->len == 0)
        pthread_cond_wait(&c->not_empty, &c->mu);
    uint64_t v = pop(c);
    pthread_mutex_unlock(&c->mu);
    if (c->bounded)
        pthread_cond_signal(&c->not_full);
    return v;
}

bool mutex_chan_try_send(mutex_chan *c, uint64_t v)
{
    pthread_mutex_lock(&c->mu);
    bool ok = c->len < c->size || (!c->bounded && grow(c));
    if (ok)
        push(c, v);
    pthread_mutex_unlock(&c->mu);
    if (ok)
        pthread_cond_signal(&c->not_empty);
    return ok;
}

bool mutex_chan_try_recv(mutex_chan *c, uint64_t *out)
{
    pthread_mutex_lock(&c->mu);
    bool ok = c->len > 0;
    if (ok)
        *out = pop(c);
    pthread_mutex_unlock(&c->mu);
    if (ok && c->bounded)
        pthread_cond_signal(&c->not_full);
    return ok;
}

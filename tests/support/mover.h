/* mover.h: push or pop a run of uint64_t values on another thread, for unit tests of a
 * queue's fast path whose thread-local state is per thread (test_segq.c: the seen tails
 * of src/segq.h). Include after cmocka.h. */
#ifndef ZCHAN_TESTS_MOVER_H
#define ZCHAN_TESTS_MOVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <zchan/status.h>

/* One operation of the queue under test: push *msg or pop into *msg. */
typedef zc_status (*mover_op)(void *q, void *msg);

struct mover {
    void *q;
    mover_op op;
    uint64_t first, n; /* push first..first+n-1, or pop n expecting them */
    bool pop;
    uint64_t done; /* how many went as expected (cmocka asserts only on its own thread) */
};

static void *mover_run(void *arg) {
    struct mover *m = arg;
    for (; m->done < m->n; m->done++) {
        uint64_t v = m->first + m->done, got = v;
        if (m->pop) got = ~v;
        if (m->op(m->q, &got) != ZC_OK || got != v) break;
    }
    return NULL;
}

/* Run op (a push, or a pop if pop) on q for first..first+n-1 on a new thread, and check
 * that every one went through with the value expected. */
static void mover_move(void *q, mover_op op, uint64_t first, uint64_t n, bool pop) {
    struct mover m = {q, op, first, n, pop, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, mover_run, &m), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(m.done, n);
}

#endif /* ZCHAN_TESTS_MOVER_H */

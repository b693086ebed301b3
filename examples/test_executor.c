/*
 * Unit tests of the examples' executor (executor.h), in both kinds: the single-thread
 * executor (ex_new(0)) and a pool (ex_new(POOL)). A lost wake-up shows as a hang, which
 * the ctest TIMEOUT turns into a failure. Pool threads never call cmocka's asserts: they
 * count what they saw and the test thread checks it.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <zchan/mpmc.h>

#include "executor.h"

enum { POOL = 3 };
static unsigned single = 0, pool = POOL;

#define WORKERS(state) (*(unsigned *)*(state))

/* ---- a task that counts its polls ------------------------------------------------------- */

typedef struct counter {
    ex_task task;
    unsigned polls;     /* only the polling thread writes it; read after ex_run */
    unsigned done_at; /* poll number that returns EX_DONE */
} counter;

/* Wakes itself (a yield) until its done_at'th poll. */
static ex_result count_poll(ex_task *t, const zc_waker *w) {
    counter *c = (counter *)t;
    if (++c->polls >= c->done_at)
        return EX_DONE;
    w->wake(w->ctx);
    return EX_PENDING;
}

static void test_run_with_no_task_returns_at_once(void **state) {
    ex_executor *ex = ex_new(WORKERS(state));
    assert_non_null(ex);
    ex_run(ex);
    ex_free(ex);
}

static void test_a_task_that_wakes_itself_is_polled_until_it_is_done(void **state) {
    ex_executor *ex = ex_new(WORKERS(state));
    assert_non_null(ex);
    counter c[4] = {{.done_at = 1}, {.done_at = 2}, {.done_at = 7}, {.done_at = 100}};
    for (int i = 0; i < 4; i++)
        ex_spawn(ex, &c[i].task, count_poll);
    ex_run(ex);
    for (int i = 0; i < 4; i++)
        assert_int_equal(c[i].polls, c[i].done_at);
    ex_free(ex);
}

/* ---- wakes while running: one more poll, requeued behind the others ---------------------- */

typedef struct pair {
    ex_task a, b; /* two tasks of one test; each poll function finds the pair */
    unsigned a_polls, b_polls;
    unsigned a_polls_seen_by_b;
} pair;

/* a: poll 1 wakes itself three times; poll 2 waits without a wake (b wakes it); poll 3 ends. */
static ex_result pair_a_poll(ex_task *t, const zc_waker *w) {
    pair *p = (pair *)((char *)t - offsetof(pair, a));
    if (++p->a_polls == 1) {
        for (int i = 0; i < 3; i++)
            w->wake(w->ctx);
        return EX_PENDING;
    }
    return p->a_polls == 3 ? EX_DONE : EX_PENDING;
}

/* b: yields once (so that a's second poll comes first), then wakes a and ends. */
static ex_result pair_b_poll(ex_task *t, const zc_waker *w) {
    pair *p = (pair *)((char *)t - offsetof(pair, b));
    if (++p->b_polls == 1) {
        w->wake(w->ctx);
        return EX_PENDING;
    }
    p->a_polls_seen_by_b = p->a_polls;
    ex_wake(&p->a);
    return EX_DONE;
}

static void test_several_wakes_during_a_poll_cause_exactly_one_more_poll(void **state) {
    (void)state;
    ex_executor *ex = ex_new(0); /* FIFO on one thread makes the order exact */
    assert_non_null(ex);
    pair p = {0};
    ex_spawn(ex, &p.a, pair_a_poll);
    ex_spawn(ex, &p.b, pair_b_poll);
    ex_run(ex);
    assert_int_equal(p.a_polls_seen_by_b, 2); /* three self-wakes made one extra poll */
    assert_int_equal(p.a_polls, 3);
    assert_int_equal(p.b_polls, 2);
    ex_free(ex);
}

/* ---- a pool worker's LIFO slot ----------------------------------------------------------- */

/* Tasks of one script on a one-worker pool (so that the order is exact); each poll appends
 * the task's letter to the log. Only the worker touches them until ex_run returns. */
typedef struct scripted {
    ex_task task;
    char name;
    unsigned polls;
    bool done;
    struct script *sc;
} scripted;

typedef struct script {
    char log[64];
    unsigned n;
    ex_executor *ex;
    scripted *tasks[3]; /* what the spawner spawns, in this order */
    ex_poll_fn polls[3];
    /* ping-pong script */
    scripted *ping, *pong;
    bool stop;
    unsigned pingpong_polls, pingpong_polls_before_q;
} script;

static void logged(scripted *t) {
    script *sc = t->sc;
    if (sc->n < sizeof sc->log - 1)
        sc->log[sc->n++] = t->name;
    t->polls++;
}

/* Spawns the script's three tasks from inside a poll, on the worker. */
static ex_result spawner_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    scripted *s = (scripted *)t;
    logged(s);
    for (int i = 0; i < 3; i++)
        ex_spawn(s->sc->ex, &s->sc->tasks[i]->task, s->sc->polls[i]);
    return EX_DONE;
}

/* Waits for one wake after its first poll, then ends. */
static ex_result sleeper_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    scripted *s = (scripted *)t;
    logged(s);
    return s->polls == 2 ? EX_DONE : EX_PENDING;
}

/* Wakes the two sleepers, first x then y, and ends. */
static ex_result double_waker_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    scripted *s = (scripted *)t;
    logged(s);
    ex_wake(&s->sc->tasks[0]->task);
    ex_wake(&s->sc->tasks[1]->task);
    return EX_DONE;
}

/* Spawn three tasks, named by names and polled by polls, from a task S that runs first
 * on an executor of that many workers (0 or 1, so that the order is exact), and run them
 * all to the end. */
static void run_script(unsigned workers, script *sc, scripted tasks[3], const char names[3],
                       const ex_poll_fn polls[3]) {
    scripted spawner = {.name = 'S', .sc = sc};
    for (int i = 0; i < 3; i++) {
        tasks[i] = (scripted){.name = names[i], .sc = sc};
        sc->tasks[i] = &tasks[i];
        sc->polls[i] = polls[i];
    }
    sc->ex = ex_new(workers);
    assert_non_null(sc->ex);
    ex_spawn(sc->ex, &spawner.task, spawner_poll);
    ex_run(sc->ex);
    ex_free(sc->ex);
}

static void test_a_task_woken_inside_a_poll_on_a_worker_runs_next(void **state) {
    (void)state;
    script sc = {0};
    scripted t[3];
    run_script(1, &sc, t, "XYW", (ex_poll_fn[]){sleeper_poll, sleeper_poll, double_waker_poll});
    /* W woke X, then Y: Y took the LIFO slot and ran at once, X went to the queue. */
    assert_string_equal(sc.log, "SXYWYX");
}

static void test_tasks_woken_inside_a_poll_on_one_thread_run_in_the_order_woken(void **state) {
    (void)state;
    script sc = {0};
    scripted t[3];
    run_script(0, &sc, t, "XYW", (ex_poll_fn[]){sleeper_poll, sleeper_poll, double_waker_poll});
    /* No LIFO slot on the single-thread executor: W woke X, then Y, and they ran so. */
    assert_string_equal(sc.log, "SXYWXY");
}

/* Ping-pong: each poll wakes the other task, until the stop flag (set by q); the ping
 * task waits for the pong task's wake at its first poll. A guard stops a ping-pong that
 * never lets q run, so that the test fails instead of hanging. */
static ex_result pingpong_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    scripted *s = (scripted *)t;
    script *sc = s->sc;
    logged(s);
    scripted *other = s == sc->ping ? sc->pong : sc->ping;
    if (++sc->pingpong_polls == 1000)
        sc->stop = true;
    if (sc->stop) {
        s->done = true;
        if (!other->done)
            ex_wake(&other->task);
        return EX_DONE;
    }
    if (s == sc->ping && s->polls == 1)
        return EX_PENDING;
    ex_wake(&other->task);
    return EX_PENDING;
}

static ex_result stopper_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    scripted *s = (scripted *)t;
    logged(s);
    s->sc->pingpong_polls_before_q = s->sc->pingpong_polls;
    s->sc->stop = true;
    return EX_DONE;
}

static void test_tasks_that_keep_waking_each_other_let_a_queued_task_run(void **state) {
    (void)state;
    script sc = {0};
    scripted t[3];
    sc.ping = &t[0], sc.pong = &t[1];
    run_script(1, &sc, t, "ABQ", (ex_poll_fn[]){pingpong_poll, pingpong_poll, stopper_poll});
    /* A and B from the queue, then EX_LIFO_BUDGET polls from the LIFO slot, then Q. */
    assert_int_equal(sc.pingpong_polls_before_q, 2 + EX_LIFO_BUDGET);
    assert_string_equal(sc.log, "SABABAQBA");
}

/* A task spawned from inside a poll runs on an idle worker while that poll goes on (the
 * poll here waits for it, up to 10 s, only to see whether it runs meanwhile). */
typedef struct spawner_of_one {
    ex_task task;
    ex_task child;
    ex_executor *ex;
    atomic_bool child_ran;
    bool seen_from_the_poll;
} spawner_of_one;

static ex_result child_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    spawner_of_one *p = (spawner_of_one *)((char *)t - offsetof(spawner_of_one, child));
    atomic_store(&p->child_ran, true);
    return EX_DONE;
}

static ex_result long_parent_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    spawner_of_one *p = (spawner_of_one *)t;
    ex_spawn(p->ex, &p->child, child_poll);
    for (int i = 0; i < 10000 && !atomic_load(&p->child_ran); i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    p->seen_from_the_poll = atomic_load(&p->child_ran);
    return EX_DONE;
}

static void test_a_task_spawned_inside_a_long_poll_runs_on_an_idle_worker(void **state) {
    (void)state;
    spawner_of_one p = {.ex = ex_new(2)};
    assert_non_null(p.ex);
    atomic_init(&p.child_ran, false);
    struct timespec settle = {0, 100000000}; /* both workers idle, waiting for work */
    nanosleep(&settle, NULL);
    ex_spawn(p.ex, &p.task, long_parent_poll);
    ex_run(p.ex);
    assert_true(p.seen_from_the_poll);
    ex_free(p.ex);
}

/* ---- wakes from other threads ----------------------------------------------------------- */

enum { TASKS = 16, WAKERS = 2, WAKES = 200, TOTAL = WAKERS * WAKES };

/* Each waker thread, for each task in turn: bump wanted, wake the task, and wait until a
 * poll has seen the bump (a lost wake hangs right there). The task may end only once no
 * wake of it can still be running (as a zchan future guarantees), so after it has seen
 * every bump it yields until every waker's last ex_wake has returned. seq_cst throughout:
 * a test, where the simplest correct order is the right one. */
typedef struct woken {
    ex_task task;
    atomic_uint wanted;  /* bumps made before a wake */
    atomic_uint seen;    /* wanted as the latest poll read it */
    atomic_uint woke;    /* ex_wake calls that returned */
    atomic_int in_poll;  /* 1 while a poll runs */
    atomic_int overlaps; /* polls that found another poll of this task running */
} woken;

static ex_result woken_poll(ex_task *t, const zc_waker *w) {
    woken *k = (woken *)t;
    if (atomic_exchange(&k->in_poll, 1) != 0)
        atomic_fetch_add(&k->overlaps, 1);
    unsigned seen = atomic_load(&k->wanted);
    atomic_store(&k->seen, seen);
    bool done = seen == TOTAL && atomic_load(&k->woke) == TOTAL;
    atomic_store(&k->in_poll, 0);
    if (done)
        return EX_DONE;
    if (seen == TOTAL)
        w->wake(w->ctx); /* yield until the wakers are out of ex_wake */
    return EX_PENDING;
}

static void *waker_main(void *arg) {
    woken *tasks = arg;
    for (int i = 0; i < WAKES; i++) {
        for (int j = 0; j < TASKS; j++) {
            unsigned v = atomic_fetch_add(&tasks[j].wanted, 1) + 1;
            ex_wake(&tasks[j]);
            atomic_fetch_add(&tasks[j].woke, 1);
            while (atomic_load(&tasks[j].seen) < v)
                sched_yield();
        }
    }
    return NULL;
}

static void test_wakes_from_other_threads_are_never_lost(void **state) {
    ex_executor *ex = ex_new(WORKERS(state));
    assert_non_null(ex);
    woken tasks[TASKS];
    for (int j = 0; j < TASKS; j++) {
        tasks[j] = (woken){0};
        ex_spawn(ex, &tasks[j].task, woken_poll);
    }
    pthread_t th[WAKERS];
    for (int i = 0; i < WAKERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, waker_main, tasks), 0);
    ex_run(ex);
    for (int i = 0; i < WAKERS; i++)
        pthread_join(th[i], NULL);
    for (int j = 0; j < TASKS; j++) {
        assert_int_equal(atomic_load(&tasks[j].seen), TOTAL);
        assert_int_equal(atomic_load(&tasks[j].overlaps), 0);
    }
    ex_free(ex);
}

/* A wake from inside a poll on one single-thread executor, of a task of another: the task
 * is polled on its own executor's thread, not queued on the waking one. */
typedef struct far_task {
    ex_task task;
    atomic_uint polls;
    pthread_t polled_on[2];
} far_task;

static ex_result far_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    far_task *f = (far_task *)t;
    unsigned n = atomic_load(&f->polls);
    if (n < 2)
        f->polled_on[n] = pthread_self();
    atomic_store(&f->polls, n + 1); /* seen by near_poll, which then wakes it */
    return n + 1 == 2 ? EX_DONE : EX_PENDING;
}

typedef struct near_task {
    ex_task task;
    far_task *far;
} near_task;

/* Waits for the far task's first poll (so that the wake finds it waiting), wakes it. */
static ex_result near_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    near_task *n = (near_task *)t;
    while (atomic_load(&n->far->polls) == 0)
        sched_yield();
    ex_wake(&n->far->task);
    return EX_DONE;
}

static void *run_main(void *arg) {
    ex_run(arg);
    return NULL;
}

static void test_a_wake_inside_a_poll_reaches_the_woken_tasks_own_executor(void **state) {
    (void)state;
    ex_executor *near_ex = ex_new(0), *far_ex = ex_new(0);
    assert_non_null(near_ex);
    assert_non_null(far_ex);
    far_task f = {0};
    near_task n = {.far = &f};
    ex_spawn(far_ex, &f.task, far_poll);
    pthread_t far_thread;
    assert_int_equal(pthread_create(&far_thread, NULL, run_main, far_ex), 0);
    ex_spawn(near_ex, &n.task, near_poll);
    ex_run(near_ex);
    pthread_join(far_thread, NULL); /* returns once f is done: a hang fails the test */
    assert_int_equal(atomic_load(&f.polls), 2);
    assert_true(pthread_equal(f.polled_on[0], far_thread));
    assert_true(pthread_equal(f.polled_on[1], far_thread));
    ex_free(near_ex);
    ex_free(far_ex);
}

/* ---- on_done and spawning from inside a poll --------------------------------------------- */

static atomic_int done_calls;

static void free_on_done(ex_task *t) {
    atomic_fetch_add(&done_calls, 1);
    free(t);
}

/* The executor of the test below, for its parent tasks to spawn on. */
static ex_executor *parent_ex;

/* A counter that spawns two heap counters (ended by on_done) on each of its polls. */
static ex_result parent_poll(ex_task *t, const zc_waker *w) {
    (void)w;
    for (unsigned i = 0; i < 2; i++) {
        counter *c = calloc(1, sizeof *c);
        if (c == NULL)
            return EX_DONE; /* the count of done calls then fails the test */
        c->done_at = 3 + i;
        ex_spawn_then(parent_ex, &c->task, count_poll, free_on_done);
    }
    return count_poll(t, w);
}

static void test_on_done_runs_once_per_task_before_run_returns(void **state) {
    parent_ex = ex_new(WORKERS(state));
    assert_non_null(parent_ex);
    atomic_store(&done_calls, 0);
    for (int i = 0; i < 8; i++) {
        counter *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->done_at = 1 + (unsigned)i % 3;
        ex_spawn_then(parent_ex, &c->task, parent_poll, free_on_done);
    }
    ex_run(parent_ex);
    /* 8 parents, each polled done_at times and spawning 2 children per poll. */
    assert_int_equal(atomic_load(&done_calls), 8 + 2 * (3 * 1 + 3 * 2 + 2 * 3));
    ex_free(parent_ex);
}

/* ---- tasks driven by zchan futures -------------------------------------------------------- */

enum { SENDERS = 4, RECEIVERS = 2, PER_SENDER = 2000 };

typedef struct sender {
    ex_task task;
    zc_sender *tx;
    zc_send send;
    uint64_t next, last, msg;
    bool sending;
    atomic_int failed;
} sender;

typedef struct receiver {
    ex_task task;
    zc_receiver *rx;
    zc_recv recv;
    uint64_t msg, sum, count;
    atomic_int failed;
} receiver;

static ex_result sender_poll(ex_task *t, const zc_waker *w) {
    sender *s = (sender *)t;
    while (s->next <= s->last) {
        if (!s->sending) {
            s->msg = s->next;
            zc_send_init(&s->send, s->tx, &s->msg);
            s->sending = true;
        }
        zc_status st = zc_send_poll(&s->send, w);
        if (st == ZC_PENDING)
            return EX_PENDING;
        s->sending = false;
        if (st != ZC_OK)
            atomic_store(&s->failed, 1);
        s->next++;
    }
    zc_sender_drop(s->tx);
    return EX_DONE;
}

static ex_result receiver_poll(ex_task *t, const zc_waker *w) {
    receiver *r = (receiver *)t;
    for (;;) {
        zc_status st = zc_recv_poll(&r->recv, w, &r->msg);
        if (st == ZC_PENDING)
            return EX_PENDING;
        if (st != ZC_OK) {
            if (st != ZC_CLOSED)
                atomic_store(&r->failed, 1);
            zc_receiver_drop(r->rx);
            return EX_DONE;
        }
        r->sum += r->msg;
        r->count++;
    }
}

static void test_tasks_exchange_every_message_through_a_small_channel(void **state) {
    ex_executor *ex = ex_new(WORKERS(state));
    assert_non_null(ex);
    zc_sender *tx;
    zc_receiver *rx;
    assert_int_equal(zc_bounded(4, &(zc_config){.elem_size = sizeof(uint64_t)}, &tx, &rx),
                     ZC_OK);
    sender s[SENDERS];
    receiver r[RECEIVERS];
    for (int i = 0; i < RECEIVERS; i++) {
        r[i] = (receiver){.rx = zc_receiver_clone(rx)};
        zc_recv_init(&r[i].recv, r[i].rx);
        ex_spawn(ex, &r[i].task, receiver_poll);
    }
    for (int i = 0; i < SENDERS; i++) {
        s[i] = (sender){.tx = zc_sender_clone(tx),
                        .next = (uint64_t)i * PER_SENDER + 1,
                        .last = (uint64_t)(i + 1) * PER_SENDER};
        ex_spawn(ex, &s[i].task, sender_poll);
    }
    zc_sender_drop(tx);
    zc_receiver_drop(rx);
    ex_run(ex);
    uint64_t sum = 0, count = 0;
    for (int i = 0; i < RECEIVERS; i++) {
        assert_int_equal(atomic_load(&r[i].failed), 0);
        sum += r[i].sum;
        count += r[i].count;
    }
    for (int i = 0; i < SENDERS; i++)
        assert_int_equal(atomic_load(&s[i].failed), 0);
    const uint64_t n = SENDERS * PER_SENDER;
    assert_int_equal(count, n);
    assert_int_equal(sum, n * (n + 1) / 2);
    ex_free(ex);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_run_with_no_task_returns_at_once, &single),
        cmocka_unit_test_prestate(test_run_with_no_task_returns_at_once, &pool),
        cmocka_unit_test_prestate(test_a_task_that_wakes_itself_is_polled_until_it_is_done,
                                  &single),
        cmocka_unit_test_prestate(test_a_task_that_wakes_itself_is_polled_until_it_is_done,
                                  &pool),
        cmocka_unit_test(test_several_wakes_during_a_poll_cause_exactly_one_more_poll),
        cmocka_unit_test(test_a_task_woken_inside_a_poll_on_a_worker_runs_next),
        cmocka_unit_test(test_tasks_woken_inside_a_poll_on_one_thread_run_in_the_order_woken),
        cmocka_unit_test(test_tasks_that_keep_waking_each_other_let_a_queued_task_run),
        cmocka_unit_test(test_a_task_spawned_inside_a_long_poll_runs_on_an_idle_worker),
        cmocka_unit_test_prestate(test_wakes_from_other_threads_are_never_lost, &single),
        cmocka_unit_test_prestate(test_wakes_from_other_threads_are_never_lost, &pool),
        cmocka_unit_test(test_a_wake_inside_a_poll_reaches_the_woken_tasks_own_executor),
        cmocka_unit_test_prestate(test_on_done_runs_once_per_task_before_run_returns, &single),
        cmocka_unit_test_prestate(test_on_done_runs_once_per_task_before_run_returns, &pool),
        cmocka_unit_test_prestate(test_tasks_exchange_every_message_through_a_small_channel,
                                  &single),
        cmocka_unit_test_prestate(test_tasks_exchange_every_message_through_a_small_channel,
                                  &pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the waiter list (src/waitlist.h), one thread: node states through
 * register, notify and unregister; FIFO order; waker replacement; wake-up passing; and
 * wakes that re-enter the list. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h> /* alarm */

#include "waitlist.h"
#include "wake.h"

#include "counting_waker.h"

enum { NODES = 3 };

typedef struct fixture {
    zc__waitlist wl;
    zc__waiter node[NODES];
    atomic_uint clock;
    counting_waker cw[NODES];
    zc_waker w[NODES];
} fixture;

static void fixture_init(fixture *f) {
    memset(f, 0, sizeof *f); /* nodes start IDLE, as a future's init leaves them */
    zc__waitlist_init(&f->wl);
    atomic_init(&f->clock, 0);
    for (int i = 0; i < NODES; i++) {
        counting_waker_init(&f->cw[i]);
        f->cw[i].clock = &f->clock;
        f->w[i] = counting_waker_of(&f->cw[i]);
    }
}

static unsigned node_state(fixture *f, int i) {
    return atomic_load_explicit(ZC__ATOMIC_UINT(zc__node_of(&f->node[i])->state),
                                memory_order_relaxed);
}

static unsigned wakes(fixture *f, int i) { return counting_waker_count(&f->cw[i]); }

static size_t waiters(fixture *f) {
    return atomic_load_explicit(&f->wl.waiters, memory_order_relaxed);
}

static void test_new_list_has_no_waiters_and_notifies_nobody(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_false(zc__waitlist_has_waiters(&f.wl));
    assert_false(zc__waitlist_notify_one(&f.wl));
    zc__waitlist_notify_all(&f.wl);
    assert_int_equal(waiters(&f), 0);
}

static void test_register_makes_a_node_waiting_and_notify_wakes_it_once(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_int_equal(node_state(&f, 0), ZC__WAITING);
    assert_true(zc__waitlist_has_waiters(&f.wl));
    assert_int_equal(waiters(&f), 1);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(node_state(&f, 0), ZC__WOKEN);
    assert_false(zc__waitlist_has_waiters(&f.wl));
    assert_false(zc__waitlist_notify_one(&f.wl)); /* unlinked on notify */
    assert_int_equal(wakes(&f, 0), 1);
}

static void test_notify_one_wakes_in_registration_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    for (int i = 0; i < NODES; i++)
        zc__waitlist_register(&f.wl, &f.node[i], &f.w[i]);
    assert_int_equal(waiters(&f), NODES);
    for (int i = 0; i < NODES; i++) {
        assert_true(zc__waitlist_notify_one(&f.wl));
        for (int j = 0; j < NODES; j++)
            assert_int_equal(wakes(&f, j), j <= i ? 1 : 0);
        assert_int_equal(counting_waker_order(&f.cw[i]), (unsigned)i + 1);
        assert_int_equal(waiters(&f), NODES - 1 - (size_t)i);
    }
    assert_false(zc__waitlist_notify_one(&f.wl));
}

static void test_notify_all_wakes_every_node_once_in_order(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    for (int i = 0; i < NODES; i++)
        zc__waitlist_register(&f.wl, &f.node[i], &f.w[i]);
    zc__waitlist_notify_all(&f.wl);
    for (int i = 0; i < NODES; i++) {
        assert_int_equal(wakes(&f, i), 1);
        assert_int_equal(counting_waker_order(&f.cw[i]), (unsigned)i + 1);
        assert_int_equal(node_state(&f, i), ZC__WOKEN);
    }
    assert_int_equal(waiters(&f), 0);
    assert_false(zc__waitlist_notify_one(&f.wl));
}

static void test_registering_a_waiting_node_again_only_replaces_its_waker(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[2]); /* same node, new waker */
    assert_int_equal(waiters(&f), 2);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(wakes(&f, 2), 1); /* node 0 kept its place, with the new waker */
    assert_int_equal(wakes(&f, 1), 0);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 1), 1);
    assert_false(zc__waitlist_notify_one(&f.wl));
}

static void test_unregister_of_a_waiting_node_unlinks_it_without_a_wake(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    assert_false(zc__waitlist_unregister(&f.wl, &f.node[0]));
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
    assert_int_equal(waiters(&f), 1);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 0);
    assert_int_equal(wakes(&f, 1), 1);
}

static void test_unregister_of_a_woken_node_reports_the_held_notification(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_true(zc__waitlist_unregister(&f.wl, &f.node[0]));
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
    assert_false(zc__waitlist_unregister(&f.wl, &f.node[0])); /* handed over once */
}

/* A woken node that registers again (it found nothing: a barger took what it was woken
 * for) uses its wake-up by doing so: its re-check looks at the queue. Its unregister
 * then holds nothing to pass on. */
static void test_woken_node_registered_again_holds_no_wake_up(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(zc__waitlist_notified(&f.wl), 1);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_int_equal(zc__waitlist_notified(&f.wl), 0); /* acted on: looked again */
    assert_false(zc__waitlist_unregister(&f.wl, &f.node[0]));
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
}

/* Each call's wakes are made whatever the waiters woken before and not acted yet (waker
 * rule 4: they may never be polled). */
static void test_each_call_wakes_one_more_waiter_whatever_the_holders(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    for (int i = 0; i < NODES; i++) zc__waitlist_register(&f.wl, &f.node[i], &f.w[i]);
    for (int i = 0; i < NODES; i++) {
        zc__waitlist_notify_n(&f.wl, 1);
        for (int j = 0; j < NODES; j++) assert_int_equal(wakes(&f, j), j <= i ? 1 : 0);
        assert_int_equal(zc__waitlist_notified(&f.wl), (size_t)i + 1);
    }
    assert_int_equal(waiters(&f), 0);
    for (int i = 0; i < NODES; i++) assert_true(zc__waitlist_unregister(&f.wl, &f.node[i]));
    assert_int_equal(zc__waitlist_notified(&f.wl), 0);
}

/* n things made available wake the n oldest waiters, one each (rule 5), or every one
 * linked if fewer are. */
static void test_notify_n_wakes_the_n_oldest_and_no_more_than_are_linked(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    for (int i = 0; i < NODES; i++) zc__waitlist_register(&f.wl, &f.node[i], &f.w[i]);
    zc__waitlist_notify_n(&f.wl, 2);
    assert_int_equal(wakes(&f, 0), 1);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(wakes(&f, 2), 0);
    zc__waitlist_notify_n(&f.wl, (size_t)NODES + 5);
    for (int i = 0; i < NODES; i++) assert_int_equal(wakes(&f, i), 1);
    assert_int_equal(waiters(&f), 0);
    assert_int_equal(zc__waitlist_notified(&f.wl), (size_t)NODES);
    for (int i = 0; i < NODES; i++) assert_true(zc__waitlist_unregister(&f.wl, &f.node[i]));
}

/* A node that steps off to be polled again soon keeps a wake-up it holds (WOKEN, still
 * counted), so that its next poll uses it or its cancel passes it on; a linked node that
 * holds none just leaves the list. */
static void test_step_off_keeps_a_held_wake_up_and_unlinks_a_waiting_node(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_true(zc__waitlist_step_off(&f.wl, &f.node[0]));
    assert_int_equal(node_state(&f, 0), ZC__WOKEN);
    assert_int_equal(zc__waitlist_notified(&f.wl), 1);
    assert_false(zc__waitlist_step_off(&f.wl, &f.node[1]));
    assert_int_equal(node_state(&f, 1), ZC__IDLE);
    assert_int_equal(waiters(&f), 0);
    assert_false(zc__waitlist_step_off(&f.wl, &f.node[1])); /* IDLE: nothing */
    assert_true(zc__waitlist_unregister(&f.wl, &f.node[0]));
    assert_int_equal(zc__waitlist_notified(&f.wl), 0);
    assert_int_equal(wakes(&f, 1), 0);
}

/* A take's predicate: accepts the node *arg names. */
static bool take_this(zc__node *n, void *arg) { return n == arg; }
static bool take_none(zc__node *n, void *arg) {
    (void)n, (void)arg;
    return false;
}

static void test_take_notifies_the_node_the_caller_accepts_and_wakes_it_later(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    for (int i = 0; i < NODES; i++) zc__waitlist_register(&f.wl, &f.node[i], &f.w[i]);
    zc__taken t;
    assert_false(zc__waitlist_take(&f.wl, take_none, NULL, &t));
    assert_int_equal(waiters(&f), NODES);
    /* The middle node, passing over the oldest: unlinked and WAKING, not woken yet. */
    assert_true(zc__waitlist_take(&f.wl, take_this, zc__node_of(&f.node[1]), &t));
    assert_ptr_equal(t.node, zc__node_of(&f.node[1]));
    assert_int_equal(node_state(&f, 1), ZC__WAKING);
    assert_int_equal(waiters(&f), NODES - 1);
    assert_int_equal(wakes(&f, 1), 0);
    assert_int_equal(zc__waitlist_notified(&f.wl), 1);
    zc__waitlist_wake_taken(&t);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(node_state(&f, 1), ZC__WOKEN);
    assert_true(zc__waitlist_unregister(&f.wl, &f.node[1])); /* it held the wake-up */
    /* The others kept their order. */
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 1);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 2), 1);
    assert_false(zc__waitlist_take(&f.wl, take_this, zc__node_of(&f.node[0]), &t));
    for (int i = 0; i < NODES; i++) (void)zc__waitlist_unregister(&f.wl, &f.node[i]);
}

static void test_unregister_of_an_idle_node_does_nothing(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    assert_false(zc__waitlist_unregister(&f.wl, &f.node[0]));
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
    assert_int_equal(waiters(&f), 0);
}

static void test_woken_node_registering_again_goes_to_the_front(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    assert_true(zc__waitlist_notify_one(&f.wl)); /* node 0 woken, lost the race */
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_int_equal(node_state(&f, 0), ZC__WAITING);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 2); /* it keeps its turn */
    assert_int_equal(wakes(&f, 1), 0);
}

static void test_idle_node_registering_again_goes_to_the_back(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    assert_false(zc__waitlist_unregister(&f.wl, &f.node[0])); /* cancelled */
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(wakes(&f, 0), 0);
}

/* ---- wakes that re-enter the list ---------------------------------------------------- */

typedef struct reentry {
    fixture *f;
    int node;    /* the node whose wake this is */
    bool result; /* of the call made inside wake */
    int calls;
    unsigned before, after; /* the node's state around a call made inside wake */
} reentry;

static void unregister_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->result = zc__waitlist_unregister(&re->f->wl, &re->f->node[re->node]);
}

static void register_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->f->cw[re->node].on_wake = NULL; /* once */
    zc__waitlist_register(&re->f->wl, &re->f->node[re->node], &re->f->w[re->node]);
}

static void notify_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->result = zc__waitlist_notify_one(&re->f->wl);
}

/* A wake function that is not the one this wake called. */
static void another_wake(void *ctx) { (void)ctx; }

/* The futex parker's early release: with another node's context, and with this wake's
 * context but another function (a user's wake whose context begins with a parker):
 * nothing; then with this wake's own function and context. */
static void wake_done_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    zc__wake_release(counting_waker_wake, &re->f->cw[(re->node + 1) % NODES]);
    zc__wake_release(another_wake, &re->f->cw[re->node]);
    re->before = node_state(re->f, re->node);
    zc__wake_release(counting_waker_wake, &re->f->cw[re->node]);
    re->after = node_state(re->f, re->node);
}

static void set_hook(fixture *f, reentry *re, int node, void (*hook)(void *)) {
    memset(re, 0, sizeof *re);
    re->f = f;
    re->node = node;
    f->cw[node].on_wake = hook;
    f->cw[node].arg = re;
}

static void test_unregister_inside_its_own_wake_takes_the_node_over(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    reentry re;
    set_hook(&f, &re, 0, unregister_inside_wake);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(re.calls, 1);
    assert_true(re.result);                        /* it held the notification */
    assert_int_equal(node_state(&f, 0), ZC__IDLE); /* the notifier left it alone */
}

static void test_register_inside_its_own_wake_waits_again(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    reentry re;
    set_hook(&f, &re, 0, register_inside_wake);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(re.calls, 1);
    assert_int_equal(node_state(&f, 0), ZC__WAITING); /* not overwritten with WOKEN */
    assert_int_equal(waiters(&f), 1);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(wakes(&f, 0), 2);
    assert_int_equal(node_state(&f, 0), ZC__WOKEN);
}

/* zc__wake_release, called by a wake with its own function and context, marks the node
 * WOKEN at once, so that its owner need not wait for the rest of the wake (a futex_wake
 * system call); with any other function or context it does nothing. */
static void test_wake_done_inside_a_wake_marks_its_node_woken_before_the_wake_returns(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    reentry re;
    set_hook(&f, &re, 0, wake_done_inside_wake);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(re.calls, 1);
    assert_int_equal(re.before, ZC__WAKING); /* another context or function: nothing */
    assert_int_equal(re.after, ZC__WOKEN);
    assert_int_equal(node_state(&f, 0), ZC__WOKEN);
    assert_true(zc__waitlist_unregister(&f.wl, &f.node[0])); /* it holds the wake-up */
    assert_int_equal(node_state(&f, 0), ZC__IDLE);
}

static void test_notify_inside_a_wake_wakes_the_next_node(void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    reentry re;
    set_hook(&f, &re, 0, notify_inside_wake);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    assert_true(zc__waitlist_notify_one(&f.wl));
    assert_int_equal(re.calls, 1);
    assert_true(re.result);
    assert_int_equal(wakes(&f, 1), 1);
    assert_int_equal(node_state(&f, 0), ZC__WOKEN);
    assert_int_equal(node_state(&f, 1), ZC__WOKEN);
    assert_int_equal(waiters(&f), 0);
}

/* Node 1's wake unregisters node 0, whose own wake is the one that notified node 1: the
 * thread is inside node 0's wake too, one frame further out (an inline executor whose
 * poll sends and so wakes the next task, which cancels the first). */
static void unregister_node0_inside_wake(void *arg) {
    reentry *re = arg;
    re->calls++;
    re->result = zc__waitlist_unregister(&re->f->wl, &re->f->node[0]);
}

static void test_unregister_inside_a_nested_wake_takes_over_an_outer_wakes_node(
    void **state) {
    (void)state;
    fixture f;
    fixture_init(&f);
    reentry re0, re1;
    set_hook(&f, &re0, 0, notify_inside_wake);
    set_hook(&f, &re1, 1, unregister_node0_inside_wake);
    zc__waitlist_register(&f.wl, &f.node[0], &f.w[0]);
    zc__waitlist_register(&f.wl, &f.node[1], &f.w[1]);
    alarm(10); /* an unregister that waited for its own thread would hang: fail instead */
    assert_true(zc__waitlist_notify_one(&f.wl));
    alarm(0);
    assert_int_equal(re0.calls, 1);
    assert_true(re0.result);
    assert_int_equal(re1.calls, 1);
    assert_true(re1.result);                       /* node 0 held the notification */
    assert_int_equal(node_state(&f, 0), ZC__IDLE); /* its notifier left it alone */
    assert_int_equal(node_state(&f, 1), ZC__WOKEN);
    assert_int_equal(waiters(&f), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_list_has_no_waiters_and_notifies_nobody),
        cmocka_unit_test(test_register_makes_a_node_waiting_and_notify_wakes_it_once),
        cmocka_unit_test(test_notify_one_wakes_in_registration_order),
        cmocka_unit_test(test_notify_all_wakes_every_node_once_in_order),
        cmocka_unit_test(test_registering_a_waiting_node_again_only_replaces_its_waker),
        cmocka_unit_test(test_unregister_of_a_waiting_node_unlinks_it_without_a_wake),
        cmocka_unit_test(test_unregister_of_a_woken_node_reports_the_held_notification),
        cmocka_unit_test(test_woken_node_registered_again_holds_no_wake_up),
        cmocka_unit_test(test_each_call_wakes_one_more_waiter_whatever_the_holders),
        cmocka_unit_test(test_notify_n_wakes_the_n_oldest_and_no_more_than_are_linked),
        cmocka_unit_test(test_step_off_keeps_a_held_wake_up_and_unlinks_a_waiting_node),
        cmocka_unit_test(test_take_notifies_the_node_the_caller_accepts_and_wakes_it_later),
        cmocka_unit_test(test_unregister_of_an_idle_node_does_nothing),
        cmocka_unit_test(test_woken_node_registering_again_goes_to_the_front),
        cmocka_unit_test(test_idle_node_registering_again_goes_to_the_back),
        cmocka_unit_test(test_unregister_inside_its_own_wake_takes_the_node_over),
        cmocka_unit_test(test_register_inside_its_own_wake_waits_again),
        cmocka_unit_test(test_wake_done_inside_a_wake_marks_its_node_woken_before_the_wake_returns),
        cmocka_unit_test(test_notify_inside_a_wake_wakes_the_next_node),
        cmocka_unit_test(test_unregister_inside_a_nested_wake_takes_over_an_outer_wakes_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

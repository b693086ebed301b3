/* The shared library loaded at run time (dlopen), not linked: its thread-local state
 * (the unbounded queues' initial-exec seen tails, src/segq.h) must fit the static TLS
 * space that glibc keeps for modules loaded later, and a thread that existed before
 * the dlopen must be able to use it. Two copies of the library in one process
 * (ZCHAN_COPY_A/B: the same file under two names, as two plugins that each link zchan
 * statically would have) must not take each other's channels for their own. This binary
 * links no zchan library; ZCHAN_SHARED_PATH names the one the build made. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <zchan/mpmc.h>

struct api {
    zc_status (*bounded)(size_t, const zc_config *, zc_sender **, zc_receiver **);
    zc_status (*unbounded)(const zc_config *, zc_sender **, zc_receiver **);
    zc_status (*try_send)(zc_sender *, const void *);
    zc_status (*try_recv)(zc_receiver *, void *);
    void (*sender_drop)(zc_sender *);
    void (*receiver_drop)(zc_receiver *);
};

static struct api api;
static pthread_barrier_t loaded;
static zc_sender *tx;

#define N 10000
#define CAP 16

/* Created before the dlopen; sends 0..N-1 once the library is there. Returns how many
 * went through (cmocka asserts only on the main thread). */
static void *early_sender(void *arg) {
    (void)arg;
    pthread_barrier_wait(&loaded);
    uint64_t sent = 0;
    while (sent < N) {
        zc_status s = api.try_send(tx, &sent);
        if (s == ZC_OK) sent++;
        else if (s != ZC_FULL) break;
    }
    return (void *)(uintptr_t)sent;
}

#define RESOLVE_IN(a, h, field, name)                                                    \
    do {                                                                                 \
        *(void **)&(a).field = dlsym(h, name);                                           \
        assert_non_null((a).field);                                                      \
    } while (0)

/* dlopen path and fill *a with its functions. */
static void *load(const char *path, struct api *a) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) fail_msg("dlopen %s: %s", path, dlerror());
    RESOLVE_IN(*a, h, bounded, "zc_bounded");
    RESOLVE_IN(*a, h, unbounded, "zc_unbounded");
    RESOLVE_IN(*a, h, try_send, "zc_try_send");
    RESOLVE_IN(*a, h, try_recv, "zc_try_recv");
    RESOLVE_IN(*a, h, sender_drop, "zc_sender_drop");
    RESOLVE_IN(*a, h, receiver_drop, "zc_receiver_drop");
    return h;
}

static void test_dlopen_after_a_thread_started_and_use_from_it(void **state) {
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_barrier_init(&loaded, NULL, 2), 0);
    assert_int_equal(pthread_create(&t, NULL, early_sender, NULL), 0);
    void *h = load(ZCHAN_SHARED_PATH, &api);
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_receiver *rx;
    assert_int_equal(api.bounded(CAP, &cfg, &tx, &rx), ZC_OK);
    pthread_barrier_wait(&loaded);
    uint64_t want = 0;
    while (want < N) { /* in order, each once, from the thread that predates the dlopen */
        uint64_t got;
        zc_status s = api.try_recv(rx, &got);
        if (s == ZC_EMPTY) continue;
        assert_int_equal(s, ZC_OK);
        assert_int_equal(got, want);
        want++;
    }
    void *sent;
    assert_int_equal(pthread_join(t, &sent), 0);
    assert_int_equal((uintptr_t)sent, N);
    uint64_t none;
    assert_int_equal(api.try_recv(rx, &none), ZC_EMPTY);
    api.sender_drop(tx);
    api.receiver_drop(rx);
    pthread_barrier_destroy(&loaded);
    assert_int_equal(dlclose(h), 0);
}

struct one_through {
    struct api *a;
    zc_sender *tx;
    zc_receiver *rx;
    zc_status sent, received;
    uint64_t got;
};

/* Send 7 and receive it on another thread (whose thread-local state is its own). */
static void *one_through_elsewhere(void *arg) {
    struct one_through *o = arg;
    uint64_t v = 7;
    o->sent = o->a->try_send(o->tx, &v);
    o->received = o->a->try_recv(o->rx, &o->got);
    return NULL;
}

/* This thread sends and receives 40 messages through copy B's first unbounded channel
 * (its seen tail in copy B: 40 on, in B's first queue); copy A makes its own first
 * unbounded channel, and another thread puts one message through it. A receive on it
 * here through copy B's functions (the same code) must find it empty: had copy B taken
 * its seen tail for this channel's, the receive would claim a place no sender has (and
 * wait for it forever: the alarm ends the test). */
static void test_two_copies_do_not_take_each_others_channels_for_their_own(void **state) {
    (void)state;
    struct api a, b;
    void *ha = load(ZCHAN_COPY_A, &a), *hb = load(ZCHAN_COPY_B, &b);
    assert_ptr_not_equal(a.unbounded, b.unbounded);
    zc_config cfg = {.elem_size = sizeof(uint64_t)};
    zc_sender *bt, *t;
    zc_receiver *br, *r;
    assert_int_equal(b.unbounded(&cfg, &bt, &br), ZC_OK);
    for (uint64_t i = 0; i < 40; i++)
        assert_int_equal(b.try_send(bt, &i), ZC_OK);
    for (uint64_t i = 0; i < 40; i++) {
        uint64_t got;
        assert_int_equal(b.try_recv(br, &got), ZC_OK);
        assert_int_equal(got, i);
    }
    assert_int_equal(a.unbounded(&cfg, &t, &r), ZC_OK);
    struct one_through o = {&a, t, r, ZC_EINVAL, ZC_EINVAL, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, one_through_elsewhere, &o), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(o.sent, ZC_OK);
    assert_int_equal(o.received, ZC_OK);
    assert_int_equal(o.got, 7);
    alarm(30);
    uint64_t none = 0;
    assert_int_equal(b.try_recv(r, &none), ZC_EMPTY);
    alarm(0);
    a.sender_drop(t);
    a.receiver_drop(r);
    b.sender_drop(bt);
    b.receiver_drop(br);
    assert_int_equal(dlclose(ha), 0);
    assert_int_equal(dlclose(hb), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlopen_after_a_thread_started_and_use_from_it),
        cmocka_unit_test(test_two_copies_do_not_take_each_others_channels_for_their_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

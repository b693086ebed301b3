/* The shared library loaded at run time (dlopen), not linked: its thread-local state
 * (the rings' initial-exec guesses, src/ring.h) must fit the static TLS space that
 * glibc keeps for modules loaded later, and a thread that existed before the dlopen
 * must be able to use it. This binary links no zchan library; ZCHAN_SHARED_PATH names
 * the one the build made. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>

#include <zchan/mpmc.h>

struct api {
    zc_status (*bounded)(size_t, const zc_config *, zc_sender **, zc_receiver **);
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

#define RESOLVE(h, field, name)                                                          \
    do {                                                                                 \
        *(void **)&api.field = dlsym(h, name);                                           \
        assert_non_null(api.field);                                                      \
    } while (0)

static void test_dlopen_after_a_thread_started_and_use_from_it(void **state) {
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_barrier_init(&loaded, NULL, 2), 0);
    assert_int_equal(pthread_create(&t, NULL, early_sender, NULL), 0);
    void *h = dlopen(ZCHAN_SHARED_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!h) fail_msg("dlopen: %s", dlerror());
    RESOLVE(h, bounded, "zc_bounded");
    RESOLVE(h, try_send, "zc_try_send");
    RESOLVE(h, try_recv, "zc_try_recv");
    RESOLVE(h, sender_drop, "zc_sender_drop");
    RESOLVE(h, receiver_drop, "zc_receiver_drop");
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlopen_after_a_thread_started_and_use_from_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

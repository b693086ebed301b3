/* Compile-only test of zchan/typed.h: passing the wrong type to a typed channel must not
 * compile (with -Werror, as CI builds). Built by ctest once per case:
 *   -DWRONG=0      every call uses the right type: must compile;
 *   -DWRONG=n > 0  only case n uses a wrong type: must fail with a type error,
 * so each failure can only come from that one wrong type, never from another error.
 * With -DWRONG=0 it is also compiled as C++17, and cases 11 to 13 only as C++17. */
#include <zchan/typed.h>

#ifndef WRONG
#error "define WRONG: 0 for the right types, 1..10 for one wrong case (11-13: C++ only)"
#endif

typedef struct point {
    int x, y;
} point;

ZC_DEFINE_CHANNEL(ints, int)
ZC_DEFINE_CHANNEL(points, point)
#if defined(ZCHAN_HAS_BROADCAST) /* zchan/config.h; cases 9, 10 and 12 need it */
ZC_DEFINE_BROADCAST(int_feeds, int)
ZC_DEFINE_BROADCAST(point_feeds, point)
#else
typedef void int_feeds_sender, point_feeds_receiver;
#endif

int typed_wrong_type_cases(ints_sender *itx, ints_receiver *irx, points_sender *ptx,
                           points_receiver *prx, int_feeds_sender *ftx,
                           point_feeds_receiver *frx);
int typed_wrong_type_cases(ints_sender *itx, ints_receiver *irx, points_sender *ptx,
                           points_receiver *prx, int_feeds_sender *ftx,
                           point_feeds_receiver *frx) {
    int n = 0;
    point p = {1, 2};

    /* 1: a double * where an int * is expected. */
#if WRONG == 1
    double d;
    n += ints_try_recv(irx, &d);
#else
    int i;
    n += ints_try_recv(irx, &i);
#endif

    /* 2: another channel's sender. */
#if WRONG == 2
    n += ints_try_send(ptx, 3);
#else
    n += ints_try_send(itx, 3);
#endif

    /* 3: a struct where an int is expected. */
#if WRONG == 3
    n += ints_try_send(itx, p);
#else
    n += points_try_send(ptx, p);
#endif

    /* 4: another channel's receive future. */
    ints_recv ir;
    points_recv pr;
    ints_recv_init(&ir, irx);
    points_recv_init(&pr, prx);
#if WRONG == 4
    n += ints_recv_poll(&pr, NULL, &p.x);
#else
    n += ints_recv_poll(&ir, NULL, &p.x);
#endif

    /* 5: a typed handle where a byte handle is expected. */
#if WRONG == 5
    n += zc_try_send(itx, &p.y);
#else
    n += ints_try_send(itx, p.y);
#endif

    /* 6: an array of another type for a batch. */
    size_t sent;
#if WRONG == 6
    double ds[2] = {1, 2};
    n += ints_try_send_many(itx, ds, 2, &sent, 0);
#else
    int is[2] = {1, 2};
    n += ints_try_send_many(itx, is, 2, &sent, 0);
#endif

    /* 7: another channel's permit. */
    ints_permit ip;
    points_permit pp;
    n += ints_try_reserve(itx, &ip);
    n += points_try_reserve(ptx, &pp);
#if WRONG == 7
    n += ints_permit_commit(&pp, 4);
#else
    n += ints_permit_commit(&ip, 4);
    n += points_permit_commit(&pp, p);
#endif

    /* 8: another channel's receiver in a select case. */
    zc_select_case c;
#if WRONG == 8
    points_select_recv_case(&c, irx, &p);
#else
    points_select_recv_case(&c, prx, &p);
#endif

#if defined(ZCHAN_HAS_BROADCAST)
    /* 9: a channel's sender where a broadcast's is expected (same element type). */
#if WRONG == 9
    n += int_feeds_try_send(itx, 5);
#else
    n += int_feeds_try_send(ftx, 5);
#endif

    /* 10: another broadcast's receive future. */
    int_feeds_recv fr;
    point_feeds_recv pfr;
    point_feeds_recv_init(&pfr, frx);
#if WRONG == 10
    int_feeds_recv_init(&fr, frx);
#else
    int_feeds_recv_init(&fr, NULL);
#endif
    n += int_feeds_recv_poll(&fr, NULL, &p.x, NULL);
    n += point_feeds_recv_poll(&pfr, NULL, &p, NULL);
#else
    (void)ftx;
    (void)frx;
#endif
    return n;
}

/* 11 and 12 (C++ only): a type that is not trivially copyable; a channel (11) or a
 * broadcast (12) copies bytes. */
#if WRONG == 11 || WRONG == 12
#include <string>
#endif
#if WRONG == 11
ZC_DEFINE_CHANNEL(strings, std::string)
#elif WRONG == 12
ZC_DEFINE_BROADCAST(string_feeds, std::string)
#endif

/* 13 (C++ only): a trivially copyable type that cannot be assigned (a const member): a
 * send future assigns its message into itself. */
#if WRONG == 13
struct job {
    const int id;
    double weight;
};
ZC_DEFINE_CHANNEL(jobs, job)
#endif

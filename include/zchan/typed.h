/**
 * @file zchan/typed.h
 * Typed wrappers: ZC_DEFINE_CHANNEL(name, T) declares a channel of T values whose
 * handles, futures and functions accept only T, so passing the wrong type (or another
 * channel's handle) is a compile error instead of a silent byte copy.
 *
 * Everything it declares is a thin static inline layer over the byte API of
 * zchan/mpmc.h and zchan/block.h (elem_size is sizeof(T)); the behaviour, statuses,
 * waker contract and thread safety are exactly those of the functions named on the
 * right below, and the typed handles are the byte handles under another name.
 *
 * ZC_DEFINE_CHANNEL(name, T) declares, at file scope and with no trailing semicolon
 * (name_x below stands for the pasted token name \#\# _x), each wrapping the zc_ call named
 * after it:
 *
 *   name_sender, name_receiver           incomplete handle types (zc_sender, zc_receiver)
 *   zc_status name_bounded(size_t cap, name_sender **tx, name_receiver **rx)  zc_bounded
 *   zc_status name_unbounded(name_sender **tx, name_receiver **rx)          zc_unbounded
 *   zc_status name_bounded_with(size_t cap, void (*drop_msg)(void *msg, void *ctx),
 *                               void *drop_ctx, name_sender **tx, name_receiver **rx)
 *                                                                             zc_bounded
 *   zc_status name_unbounded_with(drop_msg, drop_ctx, tx, rx)               zc_unbounded
 *   name_sender *name_sender_clone(name_sender *tx)                      zc_sender_clone
 *   void name_sender_drop(name_sender *tx)                                zc_sender_drop
 *   bool name_sender_close(name_sender *tx)                              zc_sender_close
 *   name_receiver *name_receiver_clone(name_receiver *rx)              zc_receiver_clone
 *   void name_receiver_drop(name_receiver *rx)                          zc_receiver_drop
 *   bool name_receiver_close(name_receiver *rx)                        zc_receiver_close
 *   zc_status name_try_send(name_sender *tx, T msg)                          zc_try_send
 *   zc_status name_try_recv(name_receiver *rx, T *out)                       zc_try_recv
 *   zc_status name_send_blocking(name_sender *tx, T msg)                zc_send_blocking
 *   zc_status name_recv_blocking(name_receiver *rx, T *out)             zc_recv_blocking
 *   zc_status name_send_timeout(name_sender *tx, T msg, uint64_t timeout_ns)
 *                                                                        zc_send_timeout
 *   zc_status name_recv_timeout(name_receiver *rx, T *out, uint64_t timeout_ns)
 *                                                                        zc_recv_timeout
 *   zc_status name_sender_info(const name_sender *tx, zc_info *out)       zc_sender_info
 *   zc_status name_receiver_info(const name_receiver *rx, zc_info *out) zc_receiver_info
 *   name_send                       send future: a zc_send and the T it sends (zc_send)
 *   void name_send_init(name_send *f, name_sender *tx, T msg)               zc_send_init
 *   zc_status name_send_poll(name_send *f, const zc_waker *w)               zc_send_poll
 *   void name_send_cancel(name_send *f)                                   zc_send_cancel
 *   T *name_send_msg(name_send *f)             the message the future holds (NULL if f is)
 *   name_recv                                    receive future and stream (zc_recv)
 *   void name_recv_init(name_recv *f, name_receiver *rx)                    zc_recv_init
 *   zc_status name_recv_poll(name_recv *f, const zc_waker *w, T *out)       zc_recv_poll
 *   void name_recv_cancel(name_recv *f)                                   zc_recv_cancel
 *
 * Batches (zchan/batch.h): msgs and out are arrays of T, n and max counts of T.
 *   zc_status name_try_send_many(name_sender *tx, const T *msgs, size_t n, size_t *sent,
 *                                unsigned flags)                     zc_try_send_many
 *   zc_status name_try_recv_many(name_receiver *rx, T *out, size_t max, size_t *got)
 *                                                                    zc_try_recv_many
 *   zc_status name_send_many_blocking(tx, msgs, n, sent, flags)  zc_send_many_blocking
 *   zc_status name_send_many_timeout(tx, msgs, n, sent, flags, timeout_ns)
 *                                                                zc_send_many_timeout
 *   zc_status name_recv_many_blocking(rx, out, max, got)         zc_recv_many_blocking
 *   zc_status name_recv_many_timeout(rx, out, max, got, timeout_ns)
 *                                                                zc_recv_many_timeout
 *   name_send_many                          batch send future (zc_send_many)
 *   void name_send_many_init(name_send_many *f, name_sender *tx, const T *msgs, size_t n,
 *                            unsigned flags)   zc_send_many_init (msgs is borrowed)
 *   zc_status name_send_many_poll(name_send_many *f, const zc_waker *w) zc_send_many_poll
 *   size_t name_send_many_sent(const name_send_many *f)             zc_send_many_sent
 *   void name_send_many_cancel(name_send_many *f)                  zc_send_many_cancel
 *   name_recv_many                          batch receive future (zc_recv_many)
 *   void name_recv_many_init(name_recv_many *f, name_receiver *rx)   zc_recv_many_init
 *   zc_status name_recv_many_poll(name_recv_many *f, const zc_waker *w, T *out,
 *                                 size_t max, size_t *got)           zc_recv_many_poll
 *   void name_recv_many_cancel(name_recv_many *f)                  zc_recv_many_cancel
 *
 * The two-phase send (zchan/permit.h):
 *   name_permit                                  a reserved place (zc_permit)
 *   zc_status name_try_reserve(name_sender *tx, name_permit *p)        zc_try_reserve
 *   zc_status name_reserve_blocking(name_sender *tx, name_permit *p) zc_reserve_blocking
 *   zc_status name_reserve_timeout(tx, p, timeout_ns)                zc_reserve_timeout
 *   name_reserve                                 reservation future (zc_reserve)
 *   void name_reserve_init(name_reserve *f, name_sender *tx, name_permit *p)
 *                                                                     zc_reserve_init
 *   zc_status name_reserve_poll(name_reserve *f, const zc_waker *w)   zc_reserve_poll
 *   void name_reserve_cancel(name_reserve *f)                       zc_reserve_cancel
 *   zc_status name_permit_commit(name_permit *p, T msg)                zc_permit_commit
 *   zc_status name_permit_release(name_permit *p)                     zc_permit_release
 *
 * Select cases (zchan/select.h; the select itself is untyped, its cases are not) and
 * close futures (zchan/closed.h; only their init takes a handle):
 *   void name_select_recv_case(zc_select_case *c, name_receiver *rx, T *out)
 *                                                                 zc_select_recv_case
 *   void name_select_send_case(zc_select_case *c, name_sender *tx, const T *msg)
 *                                                 zc_select_send_case (msg is borrowed)
 *   void name_sender_closed_init(zc_sender_closed *f, name_sender *tx)
 *                                                               zc_sender_closed_init
 *   void name_receiver_closed_init(zc_receiver_closed *f, name_receiver *rx)
 *                                                             zc_receiver_closed_init
 *
 * The typed futures' poll returns ZC_EINVAL for a NULL future, and their init and cancel
 * do nothing with one, as the byte futures do; a NULL permit is passed on as NULL
 * (ZC_EINVAL from the call that needs it). The _with constructors take the
 * byte-level drop_msg(void *msg, void *ctx) of zc_config: msg points at the sizeof(T)
 * bytes of one T that no receiver will take, possibly not aligned for T, so copy it
 * out with memcpy before use.
 *
 * A name_send future copies the message into itself at init: unlike zc_send it does not
 * borrow the caller's storage, but it must not move in memory from init until it
 * completes or is cancelled. After ZC_CLOSED or a cancel the message is still the
 * caller's, at name_send_msg(f).
 *
 * T must be a complete object type other than an array, spelled so that `T x` declares
 * x (typedef a function-pointer type first).
 *
 * Example:
 * @code
 * typedef struct point { int x, y; } point;
 * ZC_DEFINE_CHANNEL(points, point)
 * ...
 * points_sender *tx; points_receiver *rx;
 * if (points_bounded(16, &tx, &rx) == ZC_OK) {
 *     points_try_send(tx, (point){1, 2});
 *     point p;
 *     points_try_recv(rx, &p);
 *     points_sender_drop(tx);
 *     points_receiver_drop(rx);
 * }
 * @endcode
 *
 * Every function is marked unused, so a translation unit that uses only some of
 * them compiles warning-free. The header compiles as C11 and as C++17.
 *
 * | call                   | concurrent with                                          |
 * |------------------------|----------------------------------------------------------|
 * | every name_* function  | as its zc_* counterpart (zchan/mpmc.h, block.h, batch.h,  |
 * |                        | permit.h, select.h, closed.h)                            |
 */
#ifndef ZCHAN_TYPED_H
#define ZCHAN_TYPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/closed.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>
#include <zchan/select.h>
#include <zchan/status.h>
#include <zchan/waker.h>

/* Private: the handle casts (reinterpret_cast in C++, so -Wold-style-cast stays quiet),
 * and the storage of every generated function: static inline, and it may go unused. */
#ifdef __cplusplus
#define ZC__CAST(type, x) reinterpret_cast<type>(x)
#else
#define ZC__CAST(type, x) ((type)(x))
#endif
#if defined(__GNUC__) || defined(__clang__)
#define ZC__TYPED_FN static inline __attribute__((unused))
#else
#define ZC__TYPED_FN static inline
#endif

/**
 * Declare a channel of T values named name: handle types, futures and functions (see
 * the table at the top of zchan/typed.h). Use at file scope, with no semicolon after it.
 *
 * @param name  Identifier prefix of everything declared.
 * @param T     Message type; elem_size is sizeof(T).
 */
#define ZC_DEFINE_CHANNEL(name, T)                                                         \
    typedef struct name##_sender name##_sender;                                            \
    typedef struct name##_receiver name##_receiver;                                        \
    /** A send future of name: the zc_send and the message it sends. Fields private. */    \
    typedef struct name##_send {                                                           \
        zc_send zc__fut;                                                                   \
        T zc__msg;                                                                         \
    } name##_send;                                                                         \
    /** A receive future (and stream) of name. Fields private. */                          \
    typedef struct name##_recv {                                                           \
        zc_recv zc__fut;                                                                   \
    } name##_recv;                                                                         \
    /** A batch send future of name (it borrows the array it sends). Fields private. */    \
    typedef struct name##_send_many {                                                      \
        zc_send_many zc__fut;                                                              \
    } name##_send_many;                                                                    \
    /** A batch receive future of name. Fields private. */                                 \
    typedef struct name##_recv_many {                                                      \
        zc_recv_many zc__fut;                                                              \
    } name##_recv_many;                                                                    \
    /** A place reserved in a channel of name. Fields private. */                          \
    typedef struct name##_permit {                                                         \
        zc_permit zc__permit;                                                              \
    } name##_permit;                                                                       \
    /** A reservation future of name. Fields private. */                                   \
    typedef struct name##_reserve {                                                        \
        zc_reserve zc__fut;                                                                \
    } name##_reserve;                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_bounded_with(size_t cap,                                 \
                                               void (*drop_msg)(void *msg, void *ctx),     \
                                               void *drop_ctx, name##_sender **tx,         \
                                               name##_receiver **rx) {                     \
        zc_config cfg;                                                                     \
        cfg.elem_size = sizeof(T);                                                         \
        cfg.drop_msg = drop_msg;                                                           \
        cfg.drop_ctx = drop_ctx;                                                           \
        return zc_bounded(cap, &cfg, ZC__CAST(zc_sender **, tx),                           \
                          ZC__CAST(zc_receiver **, rx));                                   \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_bounded(size_t cap, name##_sender **tx,                  \
                                          name##_receiver **rx) {                          \
        return name##_bounded_with(cap, NULL, NULL, tx, rx);                               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_unbounded_with(void (*drop_msg)(void *msg, void *ctx),   \
                                                 void *drop_ctx, name##_sender **tx,       \
                                                 name##_receiver **rx) {                   \
        zc_config cfg;                                                                     \
        cfg.elem_size = sizeof(T);                                                         \
        cfg.drop_msg = drop_msg;                                                           \
        cfg.drop_ctx = drop_ctx;                                                           \
        return zc_unbounded(&cfg, ZC__CAST(zc_sender **, tx),                              \
                            ZC__CAST(zc_receiver **, rx));                                 \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_unbounded(name##_sender **tx, name##_receiver **rx) {    \
        return name##_unbounded_with(NULL, NULL, tx, rx);                                  \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN name##_sender *name##_sender_clone(name##_sender *tx) {                   \
        return ZC__CAST(name##_sender *, zc_sender_clone(ZC__CAST(zc_sender *, tx)));      \
    }                                                                                      \
    ZC__TYPED_FN void name##_sender_drop(name##_sender *tx) {                              \
        zc_sender_drop(ZC__CAST(zc_sender *, tx));                                         \
    }                                                                                      \
    ZC__TYPED_FN bool name##_sender_close(name##_sender *tx) {                             \
        return zc_sender_close(ZC__CAST(zc_sender *, tx));                                 \
    }                                                                                      \
    ZC__TYPED_FN name##_receiver *name##_receiver_clone(name##_receiver *rx) {             \
        zc_receiver *clone = zc_receiver_clone(ZC__CAST(zc_receiver *, rx));               \
        return ZC__CAST(name##_receiver *, clone);                                         \
    }                                                                                      \
    ZC__TYPED_FN void name##_receiver_drop(name##_receiver *rx) {                          \
        zc_receiver_drop(ZC__CAST(zc_receiver *, rx));                                     \
    }                                                                                      \
    ZC__TYPED_FN bool name##_receiver_close(name##_receiver *rx) {                         \
        return zc_receiver_close(ZC__CAST(zc_receiver *, rx));                             \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_send(name##_sender *tx, T msg) {                     \
        return zc_try_send(ZC__CAST(zc_sender *, tx), &msg);                               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_try_recv(name##_receiver *rx, T *out) {                  \
        return zc_try_recv(ZC__CAST(zc_receiver *, rx), out);                              \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_blocking(name##_sender *tx, T msg) {                \
        return zc_send_blocking(ZC__CAST(zc_sender *, tx), &msg);                          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_blocking(name##_receiver *rx, T *out) {             \
        return zc_recv_blocking(ZC__CAST(zc_receiver *, rx), out);                         \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_timeout(name##_sender *tx, T msg,                   \
                                               uint64_t timeout_ns) {                      \
        return zc_send_timeout(ZC__CAST(zc_sender *, tx), &msg, timeout_ns);               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_timeout(name##_receiver *rx, T *out,                \
                                               uint64_t timeout_ns) {                      \
        return zc_recv_timeout(ZC__CAST(zc_receiver *, rx), out, timeout_ns);              \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_sender_info(const name##_sender *tx, zc_info *out) {     \
        return zc_sender_info(ZC__CAST(const zc_sender *, tx), out);                       \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_receiver_info(const name##_receiver *rx, zc_info *out) { \
        return zc_receiver_info(ZC__CAST(const zc_receiver *, rx), out);                   \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN void name##_send_init(name##_send *f, name##_sender *tx, T msg) {         \
        if (f == NULL)                                                                     \
            return;                                                                        \
        f->zc__msg = msg;                                                                  \
        zc_send_init(&f->zc__fut, ZC__CAST(zc_sender *, tx), &f->zc__msg);                 \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_poll(name##_send *f, const zc_waker *w) {           \
        return f == NULL ? ZC_EINVAL : zc_send_poll(&f->zc__fut, w);                       \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_cancel(name##_send *f) {                                 \
        if (f != NULL)                                                                     \
            zc_send_cancel(&f->zc__fut);                                                   \
    }                                                                                      \
    ZC__TYPED_FN T *name##_send_msg(name##_send *f) {                                      \
        return f == NULL ? NULL : &f->zc__msg;                                             \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_init(name##_recv *f, name##_receiver *rx) {              \
        if (f != NULL)                                                                     \
            zc_recv_init(&f->zc__fut, ZC__CAST(zc_receiver *, rx));                        \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_poll(name##_recv *f, const zc_waker *w, T *out) {   \
        return f == NULL ? ZC_EINVAL : zc_recv_poll(&f->zc__fut, w, out);                  \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_cancel(name##_recv *f) {                                 \
        if (f != NULL)                                                                     \
            zc_recv_cancel(&f->zc__fut);                                                   \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_send_many(name##_sender *tx, const T *msgs,          \
                                                size_t n, size_t *sent, unsigned flags) {  \
        return zc_try_send_many(ZC__CAST(zc_sender *, tx), msgs, n, sent, flags);          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_try_recv_many(name##_receiver *rx, T *out, size_t max,   \
                                                size_t *got) {                             \
        return zc_try_recv_many(ZC__CAST(zc_receiver *, rx), out, max, got);               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_blocking(name##_sender *tx, const T *msgs,     \
                                                     size_t n, size_t *sent,               \
                                                     unsigned flags) {                     \
        return zc_send_many_blocking(ZC__CAST(zc_sender *, tx), msgs, n, sent, flags);     \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_timeout(name##_sender *tx, const T *msgs,      \
                                                    size_t n, size_t *sent,                \
                                                    unsigned flags, uint64_t timeout_ns) { \
        return zc_send_many_timeout(ZC__CAST(zc_sender *, tx), msgs, n, sent, flags,       \
                                    timeout_ns);                                           \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_blocking(name##_receiver *rx, T *out,          \
                                                     size_t max, size_t *got) {            \
        return zc_recv_many_blocking(ZC__CAST(zc_receiver *, rx), out, max, got);          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_timeout(name##_receiver *rx, T *out,           \
                                                    size_t max, size_t *got,               \
                                                    uint64_t timeout_ns) {                 \
        return zc_recv_many_timeout(ZC__CAST(zc_receiver *, rx), out, max, got,            \
                                    timeout_ns);                                           \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_many_init(name##_send_many *f, name##_sender *tx,        \
                                            const T *msgs, size_t n, unsigned flags) {     \
        if (f != NULL)                                                                     \
            zc_send_many_init(&f->zc__fut, ZC__CAST(zc_sender *, tx), msgs, n, flags);     \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_poll(name##_send_many *f, const zc_waker *w) { \
        return f == NULL ? ZC_EINVAL : zc_send_many_poll(&f->zc__fut, w);                  \
    }                                                                                      \
    ZC__TYPED_FN size_t name##_send_many_sent(const name##_send_many *f) {                 \
        return f == NULL ? 0 : zc_send_many_sent(&f->zc__fut);                             \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_many_cancel(name##_send_many *f) {                       \
        if (f != NULL)                                                                     \
            zc_send_many_cancel(&f->zc__fut);                                              \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_many_init(name##_recv_many *f, name##_receiver *rx) {    \
        if (f != NULL)                                                                     \
            zc_recv_many_init(&f->zc__fut, ZC__CAST(zc_receiver *, rx));                   \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_poll(name##_recv_many *f, const zc_waker *w,   \
                                                 T *out, size_t max, size_t *got) {        \
        return f == NULL ? ZC_EINVAL : zc_recv_many_poll(&f->zc__fut, w, out, max, got);   \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_many_cancel(name##_recv_many *f) {                       \
        if (f != NULL)                                                                     \
            zc_recv_many_cancel(&f->zc__fut);                                              \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_reserve(name##_sender *tx, name##_permit *p) {       \
        return zc_try_reserve(ZC__CAST(zc_sender *, tx),                                   \
                              p == NULL ? NULL : &p->zc__permit);                          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_blocking(name##_sender *tx, name##_permit *p) {  \
        return zc_reserve_blocking(ZC__CAST(zc_sender *, tx),                              \
                                   p == NULL ? NULL : &p->zc__permit);                     \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_timeout(name##_sender *tx, name##_permit *p,     \
                                                  uint64_t timeout_ns) {                   \
        return zc_reserve_timeout(ZC__CAST(zc_sender *, tx),                               \
                                  p == NULL ? NULL : &p->zc__permit, timeout_ns);          \
    }                                                                                      \
    ZC__TYPED_FN void name##_reserve_init(name##_reserve *f, name##_sender *tx,            \
                                          name##_permit *p) {                              \
        if (f != NULL)                                                                     \
            zc_reserve_init(&f->zc__fut, ZC__CAST(zc_sender *, tx),                        \
                            p == NULL ? NULL : &p->zc__permit);                            \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_poll(name##_reserve *f, const zc_waker *w) {     \
        return f == NULL ? ZC_EINVAL : zc_reserve_poll(&f->zc__fut, w);                    \
    }                                                                                      \
    ZC__TYPED_FN void name##_reserve_cancel(name##_reserve *f) {                           \
        if (f != NULL)                                                                     \
            zc_reserve_cancel(&f->zc__fut);                                                \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_permit_commit(name##_permit *p, T msg) {                 \
        return zc_permit_commit(p == NULL ? NULL : &p->zc__permit, &msg);                  \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_permit_release(name##_permit *p) {                       \
        return zc_permit_release(p == NULL ? NULL : &p->zc__permit);                       \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN void name##_select_recv_case(zc_select_case *c, name##_receiver *rx,      \
                                              T *out) {                                    \
        zc_select_recv_case(c, ZC__CAST(zc_receiver *, rx), out);                          \
    }                                                                                      \
    ZC__TYPED_FN void name##_select_send_case(zc_select_case *c, name##_sender *tx,        \
                                              const T *msg) {                              \
        zc_select_send_case(c, ZC__CAST(zc_sender *, tx), msg);                            \
    }                                                                                      \
    ZC__TYPED_FN void name##_sender_closed_init(zc_sender_closed *f, name##_sender *tx) {  \
        zc_sender_closed_init(f, ZC__CAST(zc_sender *, tx));                               \
    }                                                                                      \
    ZC__TYPED_FN void name##_receiver_closed_init(zc_receiver_closed *f,                   \
                                                  name##_receiver *rx) {                   \
        zc_receiver_closed_init(f, ZC__CAST(zc_receiver *, rx));                           \
    }

#endif /* ZCHAN_TYPED_H */

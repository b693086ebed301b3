/**
 * @file zchan/typed.h
 * Typed wrappers: ZC_DEFINE_CHANNEL(name, T) declares a channel of T values whose
 * handles, futures and functions accept only T, so passing the wrong type (or another
 * channel's handle) is caught by the compiler instead of copied as bytes: an error in
 * C++; in C the incompatible-pointer diagnostic, a warning by default in gcc 12 and
 * clang, an error with -Werror (or -Werror=incompatible-pointer-types). What C converts
 * implicitly still converts: a double passed by value to a channel of int (-Wconversion
 * reports it), or a void * buffer passed as an array of T.
 *
 * Everything it declares is a thin static inline layer over the byte API (elem_size is
 * sizeof(T)); the behaviour, statuses, waker contract and thread safety are exactly
 * those of the functions named on the right below, and the typed handles are the byte
 * handles under another name. ZC_DEFINE_BROADCAST (below) does the same for the
 * broadcast channel.
 *
 * ZC_DEFINE_CHANNEL(name, T) declares, at file scope and with no trailing semicolon
 * (name_x below stands for the pasted token `name ## _x`), each wrapping the `zc_` call
 * named after it:
 *
 * @code{.unparsed}
 *   name_sender, name_receiver           incomplete handle types (zc_sender, zc_receiver)
 *   zc_status name_bounded(size_t cap, name_sender **tx, name_receiver **rx)  zc_bounded
 *   zc_status name_unbounded(name_sender **tx, name_receiver **rx)          zc_unbounded
 *   zc_status name_bounded_with(size_t cap, void (*drop_msg)(void *msg, void *ctx),
 *                               void *drop_ctx, name_sender **tx, name_receiver **rx)
 *                                                                             zc_bounded
 *   zc_status name_unbounded_with(drop_msg, drop_ctx, tx, rx)               zc_unbounded
 *   zc_status name_rendezvous(name_sender **tx, name_receiver **rx)        zc_rendezvous
 *   name_sender *name_sender_clone(name_sender *tx)                      zc_sender_clone
 *   void name_sender_drop(name_sender *tx)                                zc_sender_drop
 *   bool name_sender_close(name_sender *tx)                              zc_sender_close
 *   name_receiver *name_receiver_clone(name_receiver *rx)              zc_receiver_clone
 *   void name_receiver_drop(name_receiver *rx)                          zc_receiver_drop
 *   bool name_receiver_close(name_receiver *rx)                        zc_receiver_close
 *   zc_status name_try_send(name_sender *tx, T msg)                          zc_try_send
 *   zc_status name_try_recv(name_receiver *rx, T *out)                       zc_try_recv
 *   zc_status name_force_send(name_sender *tx, T msg, T *evicted_out, bool *evicted)
 *                                                                          zc_force_send
 *   zc_status name_send_blocking(name_sender *tx, T msg)                zc_send_blocking
 *   zc_status name_recv_blocking(name_receiver *rx, T *out)             zc_recv_blocking
 *   zc_status name_send_timeout(name_sender *tx, T msg, uint64_t timeout_ns)
 *                                                                        zc_send_timeout
 *   zc_status name_recv_timeout(name_receiver *rx, T *out, uint64_t timeout_ns)
 *                                                                        zc_recv_timeout
 *   zc_status name_send_until(name_sender *tx, T msg, uint64_t deadline_ns)
 *                                                                          zc_send_until
 *   zc_status name_recv_until(name_receiver *rx, T *out, uint64_t deadline_ns)
 *                                                                          zc_recv_until
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
 * @endcode
 *
 * Weak handles (zchan/mpmc.h), distinct types as the strong ones:
 * @code{.unparsed}
 *   name_weak_sender, name_weak_receiver  incomplete types (zc_weak_sender, _receiver)
 *   name_weak_sender *name_sender_downgrade(name_sender *tx)       zc_sender_downgrade
 *   name_sender *name_weak_sender_upgrade(name_weak_sender *w)  zc_weak_sender_upgrade
 *   name_weak_sender *name_weak_sender_clone(name_weak_sender *w) zc_weak_sender_clone
 *   void name_weak_sender_drop(name_weak_sender *w)               zc_weak_sender_drop
 *   (and name_receiver_downgrade, name_weak_receiver_upgrade, _clone, _drop)
 * @endcode
 *
 * Batches (zchan/batch.h): msgs and out are arrays of T, n and max counts of T.
 * @code{.unparsed}
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
 *   zc_status name_send_many_until(tx, msgs, n, sent, flags, deadline_ns)
 *                                                                  zc_send_many_until
 *   zc_status name_recv_many_until(rx, out, max, got, deadline_ns)
 *                                                                  zc_recv_many_until
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
 * @endcode
 *
 * The two-phase send (zchan/permit.h):
 * @code{.unparsed}
 *   name_permit                                  a reserved place (zc_permit)
 *   zc_status name_try_reserve(name_sender *tx, name_permit *p)        zc_try_reserve
 *   zc_status name_reserve_blocking(name_sender *tx, name_permit *p) zc_reserve_blocking
 *   zc_status name_reserve_timeout(tx, p, timeout_ns)                zc_reserve_timeout
 *   zc_status name_reserve_until(tx, p, deadline_ns)                   zc_reserve_until
 *   name_reserve                                 reservation future (zc_reserve)
 *   void name_reserve_init(name_reserve *f, name_sender *tx, name_permit *p)
 *                                                                     zc_reserve_init
 *   zc_status name_reserve_poll(name_reserve *f, const zc_waker *w)   zc_reserve_poll
 *   void name_reserve_cancel(name_reserve *f)                       zc_reserve_cancel
 *   zc_status name_permit_commit(name_permit *p, T msg)                zc_permit_commit
 *   zc_status name_permit_release(name_permit *p)                     zc_permit_release
 * @endcode
 *
 * Select cases (zchan/select.h; the select itself is untyped, its cases are not) and
 * close futures (zchan/closed.h; only their init takes a handle):
 * @code{.unparsed}
 *   void name_select_recv_case(zc_select_case *c, name_receiver *rx, T *out)
 *                                                                 zc_select_recv_case
 *   void name_select_send_case(zc_select_case *c, name_sender *tx, const T *msg)
 *                                                 zc_select_send_case (msg is borrowed)
 *   void name_sender_closed_init(zc_sender_closed *f, name_sender *tx)
 *                                                               zc_sender_closed_init
 *   void name_receiver_closed_init(zc_receiver_closed *f, name_receiver *rx)
 *                                                             zc_receiver_closed_init
 * @endcode
 *
 * ZC_DEFINE_BROADCAST(name, T) declares the same for a broadcast channel of T
 * (zchan/broadcast.h; defined where zchan/config.h has ZCHAN_HAS_BROADCAST). Its
 * handles are distinct types from any ZC_DEFINE_CHANNEL's, so give it its own name:
 * @code{.unparsed}
 *   name_sender, name_receiver        incomplete handle types (zc_bcast_sender, _receiver)
 *   zc_status name_new(size_t cap, zc_bcast_mode mode, name_sender **tx,
 *                      name_receiver **rx)                                 zc_bcast_new
 *   zc_status name_new_with(size_t cap, zc_bcast_mode mode,
 *                           void (*clone_msg)(void *dst, const void *src, void *ctx),
 *                           void (*drop_msg)(void *msg, void *ctx), void *ctx,
 *                           name_sender **tx, name_receiver **rx)          zc_bcast_new
 *   name_sender *name_sender_clone(name_sender *tx)                zc_bcast_sender_clone
 *   void name_sender_drop(name_sender *tx)                          zc_bcast_sender_drop
 *   bool name_sender_close(name_sender *tx)                        zc_bcast_sender_close
 *   name_receiver *name_subscribe(name_sender *tx)                    zc_bcast_subscribe
 *   name_receiver *name_resubscribe(name_receiver *rx)              zc_bcast_resubscribe
 *   name_receiver *name_receiver_clone(name_receiver *rx)        zc_bcast_receiver_clone
 *   void name_receiver_drop(name_receiver *rx)                    zc_bcast_receiver_drop
 *   bool name_receiver_close(name_receiver *rx)                  zc_bcast_receiver_close
 *   zc_status name_try_send(name_sender *tx, T msg)                    zc_bcast_try_send
 *   zc_status name_try_send_counted(name_sender *tx, T msg, size_t *reached)
 *                                                              zc_bcast_try_send_counted
 *   zc_status name_try_recv(name_receiver *rx, T *out, uint64_t *missed)
 *                                                                      zc_bcast_try_recv
 *   zc_status name_send_blocking(name_sender *tx, T msg)          zc_bcast_send_blocking
 *   zc_status name_recv_blocking(name_receiver *rx, T *out, uint64_t *missed)
 *                                                                 zc_bcast_recv_blocking
 *   zc_status name_send_timeout(name_sender *tx, T msg, uint64_t timeout_ns)
 *                                                                  zc_bcast_send_timeout
 *   zc_status name_recv_timeout(name_receiver *rx, T *out, uint64_t *missed,
 *                               uint64_t timeout_ns)               zc_bcast_recv_timeout
 *   zc_status name_send_until(name_sender *tx, T msg, uint64_t deadline_ns)
 *                                                                    zc_bcast_send_until
 *   zc_status name_recv_until(name_receiver *rx, T *out, uint64_t *missed,
 *                             uint64_t deadline_ns)                  zc_bcast_recv_until
 *   zc_status name_sender_info(const name_sender *tx, zc_info *out) zc_bcast_sender_info
 *   zc_status name_receiver_info(const name_receiver *rx, zc_info *out)
 *                                                                 zc_bcast_receiver_info
 *   name_send                       send future: a zc_bcast_send and the T it sends
 *   void name_send_init(name_send *f, name_sender *tx, T msg)         zc_bcast_send_init
 *   zc_status name_send_poll(name_send *f, const zc_waker *w)         zc_bcast_send_poll
 *   void name_send_cancel(name_send *f)                             zc_bcast_send_cancel
 *   T *name_send_msg(name_send *f)             the message the future holds (NULL if f is)
 *   name_recv                                    receive future and stream (zc_bcast_recv)
 *   void name_recv_init(name_recv *f, name_receiver *rx)              zc_bcast_recv_init
 *   zc_status name_recv_poll(name_recv *f, const zc_waker *w, T *out, uint64_t *missed)
 *                                                                     zc_bcast_recv_poll
 *   void name_recv_cancel(name_recv *f)                             zc_bcast_recv_cancel
 * @endcode
 * The _with constructor's clone_msg and drop_msg are the byte-level callbacks of
 * zc_bcast_config; the channel's side of each (src, msg) is aligned for T (up to
 * alignof(max_align_t): see zc_bcast_config), unlike the MPMC drop_msg below.
 *
 * The typed futures' poll returns ZC_EINVAL for a NULL future, and their init and cancel
 * do nothing with one, as the byte futures do; a NULL permit is passed on as NULL
 * (ZC_EINVAL from the call that needs it). The _with constructors take the
 * byte-level drop_msg(void *msg, void *ctx) of zc_config: msg points at the sizeof(T)
 * bytes of one T that no receiver will take, aligned to 8 bytes only (zc_config), so copy
 * it out with memcpy before use if T needs more.
 *
 * A name_send future (of either macro) copies the message into itself at init: unlike
 * zc_send or zc_bcast_send it does not borrow the caller's storage, but it must not move
 * in memory from init until it completes or is cancelled. After ZC_CLOSED or a cancel
 * the message is still the caller's, at name_send_msg(f).
 *
 * T must be a complete object type other than an array, not const- or
 * volatile-qualified, spelled so that `T x` declares x (typedef a function-pointer type
 * first), and assignable: no const-qualified member at any depth, since a name_send
 * future assigns the message into itself (C reports such a T at the macro as an
 * assignment to a read-only member). In C++ T must also be trivially copyable, since
 * the channel copies its bytes (static_asserts check both), and declaring a name_send
 * needs T default-constructible (the future holds a T).
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
 * Every generated function is static inline with the unused attribute (gcc, clang), so
 * a translation unit that uses only some of them compiles warning-free under gcc's and
 * clang's -Wall -Wextra -Wpedantic -Wshadow -Wconversion (clang's -Weverything adds
 * -Wused-but-marked-unused, which reports every one that is used). The header compiles
 * as C11 and as C++17.
 *
 * | call                   | concurrent with                                          |
 * |------------------------|----------------------------------------------------------|
 * | every name_* function  | as its zc_* counterpart (zchan/mpmc.h, block.h, batch.h,  |
 * |                        | permit.h, select.h, closed.h, broadcast.h)               |
 */
#ifndef ZCHAN_TYPED_H
#define ZCHAN_TYPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zchan/batch.h>
#include <zchan/block.h>
#include <zchan/closed.h>
#include <zchan/config.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>
#include <zchan/select.h>
#include <zchan/status.h>
#include <zchan/waker.h>

/**
 * @defgroup zchan_typed Typed channels (zchan/typed.h)
 * @copydoc zchan/typed.h
 * @{
 */

/* Private: the handle casts (reinterpret_cast in C++, so -Wold-style-cast stays quiet);
 * the check of T (C++: the channel copies T's bytes, which is right only for a
 * trivially copyable T, and a send future assigns T, so any other is a compile error;
 * C: every object type is, and the assignment itself rejects a const member); and
 * the storage of every generated function: static inline, and it may go unused. The
 * generated functions name their parameters and locals zc__*, so that they shadow none
 * of the including file's own names (-Wshadow). */
#ifdef __cplusplus
#include <type_traits>
#define ZC__CAST(type, x) reinterpret_cast<type>(x)
#define ZC__TYPED_CHECK(macro, name, T)                                                    \
    static_assert(std::is_trivially_copyable<T>::value,                                    \
                  #macro "(" #name ", " #T "): a channel copies the bytes of its "         \
                  "messages, so T must be trivially copyable");                            \
    static_assert(std::is_copy_assignable<T>::value,                                       \
                  #macro "(" #name ", " #T "): a send future assigns its message into "    \
                  "itself, so T must be assignable (no const member)");
#else
#define ZC__CAST(type, x) ((type)(x))
#define ZC__TYPED_CHECK(macro, name, T)
#endif
#if defined(__GNUC__) || defined(__clang__)
#define ZC__TYPED_FN static inline __attribute__((unused))
#else
#define ZC__TYPED_FN static inline
#endif

/* Private: the weak handle type of name's side k (sender or receiver) and its four
 * calls, over zc_weak_k and zc_k_downgrade (ZC_DEFINE_CHANNEL). */
#define ZC__TYPED_WEAK(name, k)                                                            \
    typedef struct name##_weak_##k name##_weak_##k;                                        \
    ZC__TYPED_FN name##_weak_##k *name##_##k##_downgrade(name##_##k *zc__h) {              \
        zc_weak_##k *zc__w = zc_##k##_downgrade(ZC__CAST(zc_##k *, zc__h));                \
        return ZC__CAST(name##_weak_##k *, zc__w);                                         \
    }                                                                                      \
    ZC__TYPED_FN name##_##k *name##_weak_##k##_upgrade(name##_weak_##k *zc__w) {           \
        zc_##k *zc__h = zc_weak_##k##_upgrade(ZC__CAST(zc_weak_##k *, zc__w));             \
        return ZC__CAST(name##_##k *, zc__h);                                              \
    }                                                                                      \
    ZC__TYPED_FN name##_weak_##k *name##_weak_##k##_clone(name##_weak_##k *zc__w) {        \
        zc_weak_##k *zc__c = zc_weak_##k##_clone(ZC__CAST(zc_weak_##k *, zc__w));          \
        return ZC__CAST(name##_weak_##k *, zc__c);                                         \
    }                                                                                      \
    ZC__TYPED_FN void name##_weak_##k##_drop(name##_weak_##k *zc__w) {                     \
        zc_weak_##k##_drop(ZC__CAST(zc_weak_##k *, zc__w));                                \
    }

/* Private: what ZC_DEFINE_CHANNEL and ZC_DEFINE_BROADCAST share, for the byte API whose
 * names start with p (zc_ or zc_bcast_): the handle types, the send and receive futures,
 * handle clone/drop/close, the sends, the queries, and the futures' calls other than the
 * receive poll (whose arguments differ). */
#define ZC__TYPED_COMMON(name, T, p)                                                       \
    typedef struct name##_sender name##_sender;                                            \
    typedef struct name##_receiver name##_receiver;                                        \
    /** A send future of name: the byte send future and the message it sends. Private. */  \
    typedef struct name##_send {                                                           \
        p##send zc__fut;                                                                   \
        T zc__msg;                                                                         \
    } name##_send;                                                                         \
    /** A receive future (and stream) of name. Fields private. */                          \
    typedef struct name##_recv {                                                           \
        p##recv zc__fut;                                                                   \
    } name##_recv;                                                                         \
                                                                                           \
    ZC__TYPED_FN name##_sender *name##_sender_clone(name##_sender *zc__tx) {               \
        return ZC__CAST(name##_sender *, p##sender_clone(ZC__CAST(p##sender *, zc__tx)));  \
    }                                                                                      \
    ZC__TYPED_FN void name##_sender_drop(name##_sender *zc__tx) {                          \
        p##sender_drop(ZC__CAST(p##sender *, zc__tx));                                     \
    }                                                                                      \
    ZC__TYPED_FN bool name##_sender_close(name##_sender *zc__tx) {                         \
        return p##sender_close(ZC__CAST(p##sender *, zc__tx));                             \
    }                                                                                      \
    ZC__TYPED_FN name##_receiver *name##_receiver_clone(name##_receiver *zc__rx) {         \
        p##receiver *zc__clone = p##receiver_clone(ZC__CAST(p##receiver *, zc__rx));       \
        return ZC__CAST(name##_receiver *, zc__clone);                                     \
    }                                                                                      \
    ZC__TYPED_FN void name##_receiver_drop(name##_receiver *zc__rx) {                      \
        p##receiver_drop(ZC__CAST(p##receiver *, zc__rx));                                 \
    }                                                                                      \
    ZC__TYPED_FN bool name##_receiver_close(name##_receiver *zc__rx) {                     \
        return p##receiver_close(ZC__CAST(p##receiver *, zc__rx));                         \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_send(name##_sender *zc__tx, T zc__v) {               \
        return p##try_send(ZC__CAST(p##sender *, zc__tx), &zc__v);                         \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_blocking(name##_sender *zc__tx, T zc__v) {          \
        return p##send_blocking(ZC__CAST(p##sender *, zc__tx), &zc__v);                    \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_timeout(name##_sender *zc__tx, T zc__v,             \
                                               uint64_t zc__timeout_ns) {                  \
        return p##send_timeout(ZC__CAST(p##sender *, zc__tx), &zc__v, zc__timeout_ns);     \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_until(name##_sender *zc__tx, T zc__v,               \
                                             uint64_t zc__deadline_ns) {                   \
        return p##send_until(ZC__CAST(p##sender *, zc__tx), &zc__v, zc__deadline_ns);      \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_sender_info(const name##_sender *zc__tx,                 \
                                              zc_info *zc__out) {                          \
        return p##sender_info(ZC__CAST(const p##sender *, zc__tx), zc__out);               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_receiver_info(const name##_receiver *zc__rx,             \
                                                zc_info *zc__out) {                        \
        return p##receiver_info(ZC__CAST(const p##receiver *, zc__rx), zc__out);           \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN void name##_send_init(name##_send *zc__f, name##_sender *zc__tx,          \
                                       T zc__v) {                                          \
        if (zc__f == NULL)                                                                 \
            return;                                                                        \
        zc__f->zc__msg = zc__v;                                                            \
        p##send_init(&zc__f->zc__fut, ZC__CAST(p##sender *, zc__tx), &zc__f->zc__msg);     \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_poll(name##_send *zc__f, const zc_waker *zc__w) {   \
        return zc__f == NULL ? ZC_EINVAL : p##send_poll(&zc__f->zc__fut, zc__w);           \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_cancel(name##_send *zc__f) {                             \
        if (zc__f != NULL)                                                                 \
            p##send_cancel(&zc__f->zc__fut);                                               \
    }                                                                                      \
    ZC__TYPED_FN T *name##_send_msg(name##_send *zc__f) {                                  \
        return zc__f == NULL ? NULL : &zc__f->zc__msg;                                     \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_init(name##_recv *zc__f, name##_receiver *zc__rx) {      \
        if (zc__f != NULL)                                                                 \
            p##recv_init(&zc__f->zc__fut, ZC__CAST(p##receiver *, zc__rx));                \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_cancel(name##_recv *zc__f) {                             \
        if (zc__f != NULL)                                                                 \
            p##recv_cancel(&zc__f->zc__fut);                                               \
    }

/**
 * Declare a channel of T values named name: handle types, futures and functions (see
 * the table at the top of zchan/typed.h). Use at file scope, with no semicolon after it.
 *
 * @param name  Identifier prefix of everything declared.
 * @param T     Message type; elem_size is sizeof(T).
 */
#define ZC_DEFINE_CHANNEL(name, T)                                                         \
    ZC__TYPED_CHECK(ZC_DEFINE_CHANNEL, name, T)                                            \
    ZC__TYPED_COMMON(name, T, zc_)                                                         \
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
    ZC__TYPED_FN zc_status name##_bounded_with(                                            \
        size_t zc__cap, void (*zc__drop)(void *, void *), void *zc__ctx,                   \
        name##_sender **zc__tx, name##_receiver **zc__rx) {                                \
        zc_config zc__cfg;                                                                 \
        zc__cfg.elem_size = sizeof(T);                                                     \
        zc__cfg.drop_msg = zc__drop;                                                       \
        zc__cfg.drop_ctx = zc__ctx;                                                        \
        return zc_bounded(zc__cap, &zc__cfg, ZC__CAST(zc_sender **, zc__tx),               \
                          ZC__CAST(zc_receiver **, zc__rx));                               \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_bounded(size_t zc__cap, name##_sender **zc__tx,          \
                                          name##_receiver **zc__rx) {                      \
        return name##_bounded_with(zc__cap, NULL, NULL, zc__tx, zc__rx);                   \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_unbounded_with(void (*zc__drop)(void *, void *),         \
                                                 void *zc__ctx, name##_sender **zc__tx,    \
                                                 name##_receiver **zc__rx) {               \
        zc_config zc__cfg;                                                                 \
        zc__cfg.elem_size = sizeof(T);                                                     \
        zc__cfg.drop_msg = zc__drop;                                                       \
        zc__cfg.drop_ctx = zc__ctx;                                                        \
        return zc_unbounded(&zc__cfg, ZC__CAST(zc_sender **, zc__tx),                      \
                            ZC__CAST(zc_receiver **, zc__rx));                             \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_unbounded(name##_sender **zc__tx,                        \
                                            name##_receiver **zc__rx) {                    \
        return name##_unbounded_with(NULL, NULL, zc__tx, zc__rx);                          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_rendezvous(name##_sender **zc__tx,                       \
                                             name##_receiver **zc__rx) {                   \
        zc_config zc__cfg;                                                                 \
        zc__cfg.elem_size = sizeof(T);                                                     \
        zc__cfg.drop_msg = NULL;                                                           \
        zc__cfg.drop_ctx = NULL;                                                           \
        return zc_rendezvous(&zc__cfg, ZC__CAST(zc_sender **, zc__tx),                     \
                             ZC__CAST(zc_receiver **, zc__rx));                            \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_recv(name##_receiver *zc__rx, T *zc__out) {          \
        return zc_try_recv(ZC__CAST(zc_receiver *, zc__rx), zc__out);                      \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_force_send(name##_sender *zc__tx, T zc__v,               \
                                             T *zc__evicted_out, bool *zc__evicted) {      \
        return zc_force_send(ZC__CAST(zc_sender *, zc__tx), &zc__v, zc__evicted_out,       \
                             zc__evicted);                                                 \
    }                                                                                      \
    ZC__TYPED_WEAK(name, sender)                                                           \
    ZC__TYPED_WEAK(name, receiver)                                                         \
    ZC__TYPED_FN zc_status name##_recv_blocking(name##_receiver *zc__rx, T *zc__out) {     \
        return zc_recv_blocking(ZC__CAST(zc_receiver *, zc__rx), zc__out);                 \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_timeout(name##_receiver *zc__rx, T *zc__out,        \
                                               uint64_t zc__timeout_ns) {                  \
        return zc_recv_timeout(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__timeout_ns);  \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_until(name##_receiver *zc__rx, T *zc__out,          \
                                             uint64_t zc__deadline_ns) {                   \
        return zc_recv_until(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__deadline_ns);   \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_recv_poll(name##_recv *zc__f, const zc_waker *zc__w,     \
                                            T *zc__out) {                                  \
        return zc__f == NULL ? ZC_EINVAL : zc_recv_poll(&zc__f->zc__fut, zc__w, zc__out);  \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_send_many(name##_sender *zc__tx, const T *zc__vs,    \
                                                size_t zc__n, size_t *zc__sent,            \
                                                unsigned zc__flags) {                      \
        return zc_try_send_many(ZC__CAST(zc_sender *, zc__tx), zc__vs, zc__n, zc__sent,    \
                                zc__flags);                                                \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_try_recv_many(name##_receiver *zc__rx, T *zc__out,       \
                                                size_t zc__max, size_t *zc__got) {         \
        return zc_try_recv_many(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__max,         \
                                zc__got);                                                  \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_blocking(                                      \
        name##_sender *zc__tx, const T *zc__vs, size_t zc__n, size_t *zc__sent,            \
        unsigned zc__flags) {                                                              \
        return zc_send_many_blocking(ZC__CAST(zc_sender *, zc__tx), zc__vs, zc__n,         \
                                     zc__sent, zc__flags);                                 \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_timeout(                                       \
        name##_sender *zc__tx, const T *zc__vs, size_t zc__n, size_t *zc__sent,            \
        unsigned zc__flags, uint64_t zc__timeout_ns) {                                     \
        return zc_send_many_timeout(ZC__CAST(zc_sender *, zc__tx), zc__vs, zc__n,          \
                                    zc__sent, zc__flags, zc__timeout_ns);                  \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_until(                                         \
        name##_sender *zc__tx, const T *zc__vs, size_t zc__n, size_t *zc__sent,            \
        unsigned zc__flags, uint64_t zc__deadline_ns) {                                    \
        return zc_send_many_until(ZC__CAST(zc_sender *, zc__tx), zc__vs, zc__n, zc__sent,  \
                                  zc__flags, zc__deadline_ns);                             \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_blocking(name##_receiver *zc__rx, T *zc__out,  \
                                                     size_t zc__max, size_t *zc__got) {    \
        return zc_recv_many_blocking(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__max,    \
                                     zc__got);                                             \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_timeout(name##_receiver *zc__rx, T *zc__out,   \
                                                    size_t zc__max, size_t *zc__got,       \
                                                    uint64_t zc__timeout_ns) {             \
        return zc_recv_many_timeout(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__max,     \
                                    zc__got, zc__timeout_ns);                              \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_until(name##_receiver *zc__rx, T *zc__out,     \
                                                  size_t zc__max, size_t *zc__got,         \
                                                  uint64_t zc__deadline_ns) {              \
        return zc_recv_many_until(ZC__CAST(zc_receiver *, zc__rx), zc__out, zc__max,       \
                                  zc__got, zc__deadline_ns);                               \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_many_init(name##_send_many *zc__f,                       \
                                            name##_sender *zc__tx, const T *zc__vs,        \
                                            size_t zc__n, unsigned zc__flags) {            \
        if (zc__f != NULL)                                                                 \
            zc_send_many_init(&zc__f->zc__fut, ZC__CAST(zc_sender *, zc__tx), zc__vs,      \
                              zc__n, zc__flags);                                           \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_send_many_poll(name##_send_many *zc__f,                  \
                                                 const zc_waker *zc__w) {                  \
        return zc__f == NULL ? ZC_EINVAL : zc_send_many_poll(&zc__f->zc__fut, zc__w);      \
    }                                                                                      \
    ZC__TYPED_FN size_t name##_send_many_sent(const name##_send_many *zc__f) {             \
        return zc__f == NULL ? 0 : zc_send_many_sent(&zc__f->zc__fut);                     \
    }                                                                                      \
    ZC__TYPED_FN void name##_send_many_cancel(name##_send_many *zc__f) {                   \
        if (zc__f != NULL)                                                                 \
            zc_send_many_cancel(&zc__f->zc__fut);                                          \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_many_init(name##_recv_many *zc__f,                       \
                                            name##_receiver *zc__rx) {                     \
        if (zc__f != NULL)                                                                 \
            zc_recv_many_init(&zc__f->zc__fut, ZC__CAST(zc_receiver *, zc__rx));           \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_many_poll(name##_recv_many *zc__f,                  \
                                                 const zc_waker *zc__w, T *zc__out,        \
                                                 size_t zc__max, size_t *zc__got) {        \
        if (zc__f != NULL)                                                                 \
            return zc_recv_many_poll(&zc__f->zc__fut, zc__w, zc__out, zc__max, zc__got);   \
        if (zc__got != NULL)                                                               \
            *zc__got = 0; /* as zc_recv_many_poll on every status but ZC_OK */             \
        return ZC_EINVAL;                                                                  \
    }                                                                                      \
    ZC__TYPED_FN void name##_recv_many_cancel(name##_recv_many *zc__f) {                   \
        if (zc__f != NULL)                                                                 \
            zc_recv_many_cancel(&zc__f->zc__fut);                                          \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_reserve(name##_sender *zc__tx,                       \
                                              name##_permit *zc__p) {                      \
        return zc_try_reserve(ZC__CAST(zc_sender *, zc__tx),                               \
                              zc__p == NULL ? NULL : &zc__p->zc__permit);                  \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_blocking(name##_sender *zc__tx,                  \
                                                   name##_permit *zc__p) {                 \
        return zc_reserve_blocking(ZC__CAST(zc_sender *, zc__tx),                          \
                                   zc__p == NULL ? NULL : &zc__p->zc__permit);             \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_timeout(                                         \
        name##_sender *zc__tx, name##_permit *zc__p, uint64_t zc__timeout_ns) {            \
        return zc_reserve_timeout(ZC__CAST(zc_sender *, zc__tx),                           \
                                  zc__p == NULL ? NULL : &zc__p->zc__permit,               \
                                  zc__timeout_ns);                                         \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_until(                                           \
        name##_sender *zc__tx, name##_permit *zc__p, uint64_t zc__deadline_ns) {           \
        return zc_reserve_until(ZC__CAST(zc_sender *, zc__tx),                             \
                                zc__p == NULL ? NULL : &zc__p->zc__permit,                 \
                                zc__deadline_ns);                                          \
    }                                                                                      \
    ZC__TYPED_FN void name##_reserve_init(name##_reserve *zc__f, name##_sender *zc__tx,    \
                                          name##_permit *zc__p) {                          \
        if (zc__f != NULL)                                                                 \
            zc_reserve_init(&zc__f->zc__fut, ZC__CAST(zc_sender *, zc__tx),                \
                            zc__p == NULL ? NULL : &zc__p->zc__permit);                    \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_reserve_poll(name##_reserve *zc__f,                      \
                                               const zc_waker *zc__w) {                    \
        return zc__f == NULL ? ZC_EINVAL : zc_reserve_poll(&zc__f->zc__fut, zc__w);        \
    }                                                                                      \
    ZC__TYPED_FN void name##_reserve_cancel(name##_reserve *zc__f) {                       \
        if (zc__f != NULL)                                                                 \
            zc_reserve_cancel(&zc__f->zc__fut);                                            \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_permit_commit(name##_permit *zc__p, T zc__v) {           \
        return zc_permit_commit(zc__p == NULL ? NULL : &zc__p->zc__permit, &zc__v);        \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_permit_release(name##_permit *zc__p) {                   \
        return zc_permit_release(zc__p == NULL ? NULL : &zc__p->zc__permit);               \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN void name##_select_recv_case(zc_select_case *zc__c,                       \
                                              name##_receiver *zc__rx, T *zc__out) {       \
        zc_select_recv_case(zc__c, ZC__CAST(zc_receiver *, zc__rx), zc__out);              \
    }                                                                                      \
    ZC__TYPED_FN void name##_select_send_case(zc_select_case *zc__c,                       \
                                              name##_sender *zc__tx, const T *zc__v) {     \
        zc_select_send_case(zc__c, ZC__CAST(zc_sender *, zc__tx), zc__v);                  \
    }                                                                                      \
    ZC__TYPED_FN void name##_sender_closed_init(zc_sender_closed *zc__f,                   \
                                                name##_sender *zc__tx) {                   \
        zc_sender_closed_init(zc__f, ZC__CAST(zc_sender *, zc__tx));                       \
    }                                                                                      \
    ZC__TYPED_FN void name##_receiver_closed_init(zc_receiver_closed *zc__f,               \
                                                  name##_receiver *zc__rx) {               \
        zc_receiver_closed_init(zc__f, ZC__CAST(zc_receiver *, zc__rx));                   \
    }

#if defined(ZCHAN_HAS_BROADCAST)
#include <zchan/broadcast.h>

/**
 * Declare a broadcast channel of T values named name: handle types, futures and
 * functions (see the broadcast table at the top of zchan/typed.h). Use at file scope,
 * with no semicolon after it.
 *
 * @param name  Identifier prefix of everything declared.
 * @param T     Message type; elem_size is sizeof(T).
 */
#define ZC_DEFINE_BROADCAST(name, T)                                                       \
    ZC__TYPED_CHECK(ZC_DEFINE_BROADCAST, name, T)                                          \
    ZC__TYPED_COMMON(name, T, zc_bcast_)                                                   \
    ZC__TYPED_FN zc_status name##_new_with(                                                \
        size_t zc__cap, zc_bcast_mode zc__mode,                                            \
        void (*zc__clone)(void *, const void *, void *),                                   \
        void (*zc__drop)(void *, void *), void *zc__ctx, name##_sender **zc__tx,           \
        name##_receiver **zc__rx) {                                                        \
        zc_bcast_config zc__cfg;                                                           \
        zc__cfg.elem_size = sizeof(T);                                                     \
        zc__cfg.mode = zc__mode;                                                           \
        zc__cfg.clone_msg = zc__clone;                                                     \
        zc__cfg.drop_msg = zc__drop;                                                       \
        zc__cfg.ctx = zc__ctx;                                                             \
        return zc_bcast_new(zc__cap, &zc__cfg, ZC__CAST(zc_bcast_sender **, zc__tx),       \
                            ZC__CAST(zc_bcast_receiver **, zc__rx));                       \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_new(size_t zc__cap, zc_bcast_mode zc__mode,              \
                                      name##_sender **zc__tx, name##_receiver **zc__rx) {  \
        return name##_new_with(zc__cap, zc__mode, NULL, NULL, NULL, zc__tx, zc__rx);       \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN name##_receiver *name##_subscribe(name##_sender *zc__tx) {                \
        zc_bcast_receiver *zc__rx =                                                        \
            zc_bcast_subscribe(ZC__CAST(zc_bcast_sender *, zc__tx));                       \
        return ZC__CAST(name##_receiver *, zc__rx);                                        \
    }                                                                                      \
    ZC__TYPED_FN name##_receiver *name##_resubscribe(name##_receiver *zc__rx) {            \
        zc_bcast_receiver *zc__new =                                                       \
            zc_bcast_resubscribe(ZC__CAST(zc_bcast_receiver *, zc__rx));                   \
        return ZC__CAST(name##_receiver *, zc__new);                                       \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_try_send_counted(name##_sender *zc__tx, T zc__v,         \
                                                   size_t *zc__reached) {                  \
        return zc_bcast_try_send_counted(ZC__CAST(zc_bcast_sender *, zc__tx), &zc__v,      \
                                         zc__reached);                                     \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_try_recv(name##_receiver *zc__rx, T *zc__out,            \
                                           uint64_t *zc__missed) {                         \
        return zc_bcast_try_recv(ZC__CAST(zc_bcast_receiver *, zc__rx), zc__out,           \
                                 zc__missed);                                              \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_blocking(name##_receiver *zc__rx, T *zc__out,       \
                                                uint64_t *zc__missed) {                    \
        return zc_bcast_recv_blocking(ZC__CAST(zc_bcast_receiver *, zc__rx), zc__out,      \
                                      zc__missed);                                         \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_timeout(name##_receiver *zc__rx, T *zc__out,        \
                                               uint64_t *zc__missed,                       \
                                               uint64_t zc__timeout_ns) {                  \
        return zc_bcast_recv_timeout(ZC__CAST(zc_bcast_receiver *, zc__rx), zc__out,       \
                                     zc__missed, zc__timeout_ns);                          \
    }                                                                                      \
    ZC__TYPED_FN zc_status name##_recv_until(name##_receiver *zc__rx, T *zc__out,          \
                                             uint64_t *zc__missed,                         \
                                             uint64_t zc__deadline_ns) {                   \
        return zc_bcast_recv_until(ZC__CAST(zc_bcast_receiver *, zc__rx), zc__out,         \
                                   zc__missed, zc__deadline_ns);                           \
    }                                                                                      \
                                                                                           \
    ZC__TYPED_FN zc_status name##_recv_poll(name##_recv *zc__f, const zc_waker *zc__w,     \
                                            T *zc__out, uint64_t *zc__missed) {            \
        return zc__f == NULL                                                               \
                   ? ZC_EINVAL                                                             \
                   : zc_bcast_recv_poll(&zc__f->zc__fut, zc__w, zc__out, zc__missed);      \
    }
#endif /* ZCHAN_HAS_BROADCAST */

/** @} */

#endif /* ZCHAN_TYPED_H */

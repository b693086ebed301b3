/**
 * @file zchan/status.h
 * Status codes returned by every zchan call that can fail.
 *
 * One X-macro (ZC_STATUS_MAP) lists each code with its fixed value, and generates both
 * the enum and zc_status_str(), so the two cannot drift apart (the idea of libuv's
 * UV_ERRNO_MAP). Values are the same on every platform.
 */
#ifndef ZCHAN_STATUS_H
#define ZCHAN_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_status Status codes (zchan/status.h)
 * @copydoc zchan/status.h
 * @{
 */

/* Symbol visibility: the shared library exports only what is marked ZC_EXPORT (the
 * rest is built with hidden visibility). Every public header includes this one. */
#ifndef ZC_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define ZC_EXPORT __attribute__((visibility("default")))
#else
#define ZC_EXPORT
#endif
#endif

/** The status codes as X(name, value, meaning): one list for the enum and its names. */
#define ZC_STATUS_MAP(X)                                                                   \
    X(ZC_OK, 0, "done")                                                                    \
    X(ZC_PENDING, 1, "poll only: not ready yet; the waker will be called")                 \
    X(ZC_FULL, 2, "try_send: no room (a full bounded channel; rendezvous: nobody waits)")  \
    X(ZC_EMPTY, 3, "try_recv: nothing to take (open and empty, or a reserved place next)") \
    X(ZC_CLOSED, 4, "send on a closed channel; recv on a closed and drained channel")      \
    X(ZC_TIMEDOUT, 5, "a blocking call with a timeout ran out of time")                    \
    X(ZC_LAGGED, 6, "broadcast only, overflow mode: messages were skipped")                \
    X(ZC_EINVAL, 7, "bad argument: NULL handle, zero capacity, zero elem_size, overflow")  \
    X(ZC_ENOMEM, 8, "allocation failed; nothing changed")

/** Result of a zchan call. See ZC_STATUS_MAP for the meaning of each code. */
typedef enum zc_status {
#define ZC__STATUS_ENUM(name, value, meaning) name = value,
    ZC_STATUS_MAP(ZC__STATUS_ENUM)
#undef ZC__STATUS_ENUM
} zc_status;

/**
 * The name of a status code, as spelled in the enum ("ZC_OK", "ZC_FULL", ...).
 *
 * @param s  Any value.
 * @return A static string, never NULL: the enum's own name, or "ZC_UNKNOWN" for a value
 *         that is not one of the codes.
 *
 * Thread safety: any thread, any time.
 */
ZC_EXPORT const char *zc_status_str(zc_status s);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_STATUS_H */

/*
 * check.h: the checked build (ZCHAN_CHECKED): misuse that the contract leaves undefined,
 * caught at the call that commits it, with a message naming the call and the object.
 *
 * With ZCHAN_CHECKED 0 (Release) every check here compiles to nothing. With it 1 (Debug,
 * by default): handles carry a stamp (chan.h), and each clone is a handle object of its
 * own, so one handle dropped twice is told apart from two handles dropped once; waiter
 * nodes carry their own address, mixed with a key that says whether the node is pending
 * (waitlist.h), so a node moved, freed or initialised again while pending is seen. A dropped handle is kept,
 * stamped dead, in a quarantine of the last ZC__QUARANTINE dropped (the memory is freed
 * once that many more were dropped), so that a use after drop reads a dead stamp, not
 * memory reused by someone else. The same idea as glibc's tcache key ("free(): double
 * free detected") and AddressSanitizer's quarantine.
 */
#ifndef ZCHAN_SRC_CHECK_H
#define ZCHAN_SRC_CHECK_H

#include <stdint.h>

#include "zchan_build.h"

/* Handle stamps (32-bit values, so that uintptr_t holds them everywhere). */
#define ZC__STAMP_SENDER ((uintptr_t)0x7a635478u)   /* "zcTx": a live sender */
#define ZC__STAMP_RECEIVER ((uintptr_t)0x7a635278u) /* "zcRx": a live receiver */
#define ZC__STAMP_WEAK_SENDER ((uintptr_t)0x7a635778u)   /* "zcWx": a live weak sender */
#define ZC__STAMP_WEAK_RECEIVER ((uintptr_t)0x7a637778u) /* "zcwx": a live weak receiver */
#define ZC__STAMP_DEAD ((uintptr_t)0x7a634444u)     /* "zcDD": dropped */
/* What a waiter node's check word holds: its own address, mixed with one of two keys:
 * IDLE (not registered, no wake-up held) or PENDING (registered, or woken and not yet
 * acted on). Their two low bits differ, and a node's address has none set (it is
 * pointer-aligned), so they tell, even for a node moved elsewhere, which it was. */
#define ZC__STAMP_NODE_IDLE ((uintptr_t)0x5a63a559u)    /* low bits 01 */
#define ZC__STAMP_NODE_PENDING ((uintptr_t)0x3c96c5a6u) /* low bits 10 */

#if ZCHAN_CHECKED

#if defined(__GNUC__) || defined(__clang__)
#define ZC__NORETURN __attribute__((noreturn))
#else
#define ZC__NORETURN _Noreturn
#endif

/* Print "zchan: CALL: WHAT (OBJ)" on stderr and abort. call: the public call that
 * committed the misuse; obj: the object misused; what: one line, no newline. */
ZC__NORETURN void zc__misuse(const char *call, const void *obj, const char *what);

/* Check a handle's stamp at the start of call: a dead stamp aborts ("used after its
 * drop"), and so does any value that is not a live stamp of either kind. NULL passes
 * (bad input: the call itself answers ZC_EINVAL). */
void zc__check_handle(const uintptr_t *stamp, const void *handle, const char *call);

/* Keep dropped handle memory p (its stamp dead) in the quarantine; frees the oldest
 * kept once ZC__QUARANTINE are. Thread-safe. */
#define ZC__QUARANTINE 4096
void zc__quarantine(void *p);

/* Abort if this thread is inside a wake callback that zchan is making (a notify, a
 * pass-on or a self-wake): call is about to wait, and a wake must not block (waker
 * rules, zchan/waker.h); the thread may be the one that must deliver what it waits for. */
void zc__check_not_in_wake(const char *call);

#define ZC__CHECK_HANDLE(h) ((h) ? zc__check_handle(&(h)->stamp, (h), __func__) : (void)0)
#define ZC__CHECK_NOT_IN_WAKE(call) zc__check_not_in_wake(call)

#else

#define ZC__CHECK_HANDLE(h) ((void)0)
#define ZC__CHECK_NOT_IN_WAKE(call) ((void)(call))

#endif /* ZCHAN_CHECKED */

#endif /* ZCHAN_SRC_CHECK_H */

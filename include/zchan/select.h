/**
 * @file zchan/select.h
 * Select: wait on several send and receive operations, on any channels (of any element
 * sizes), and complete exactly one of them.
 *
 * A select is a poll-style future over a caller-allocated array of cases. Each case is
 * one operation (receive from a receiver into an out buffer, or send a message through a
 * sender) and embeds the waiter node it waits with, so a select never allocates.
 *
 * Algorithm (readiness-based, as crossbeam-channel's Select): a poll tries the cases one
 * after the other. A new select (every zc_select_blocking and zc_select_timeout call)
 * tries them in an order drawn uniformly at random for each pass over them (a
 * Fisher-Yates shuffle drawn one step per case tried, kept in the cases themselves), so
 * that the case chosen is uniformly random among the cases ready while the poll looks,
 * wherever the cases that are not ready, disabled or NULL stand. A select polled again
 * after a completion goes on round-robin, from the case after the one chosen, so that a
 * loop of polls takes the cases that stay ready in turn, each as often as the others.
 * Either way a case that is always ready cannot starve the others. In
 * ZC_SELECT_ORDERED mode the cases are tried in array order instead. The first operation that completes (a message received or sent, the
 * channel found closed, a timer case found due, or with ZC_SELECT_READY a case found
 * ready) is the outcome; every other case is taken off its channel's
 * waiter list, and a wake-up it had absorbed is passed on to the next waiter of that
 * channel. If no case is ready, every case registers its node on its channel's waiter
 * list, all with the poll's waker, and the cases are tried once more
 * (register-then-recheck, as a single future does); still nothing: ZC_PENDING. Messages leave a channel only through the selecting task's
 * own attempts, so an operation that was not chosen took or sent nothing. A poll costs
 * what it tries: one that finds the case it tries first ready touches no other case, so
 * a loop over many busy channels pays O(1) a message; registering every case (a poll
 * that waits) and taking every node off again (the completion after it) are O(n).
 * Several cases may use the same channel (two receive cases, a send and a receive case);
 * a select never passes a wake-up from one of its cases to another, so it does not wake
 * itself while it completes.
 * Sources: crossbeam-channel's Select (readiness, then the selecting thread performs the
 * operation itself); Go's select (the cases tried in a random order, for fairness);
 * R. Durstenfeld's shuffle (Algorithm 235, CACM 1964); D. Lemire's bounded random
 * integers (ACM TOMACS 2019).
 *
 * Rendezvous channels (zc_rendezvous): a hand-off needs both parties, so a select's case
 * on such a channel, while the select waits, is an offer (send) or a place (receive) that
 * a peer completes: the peer claims the whole select first, so that it completes that
 * one case and no other, and the select's next poll reports it (ZC_OK, its index). Two
 * threads each selecting on the other's rendezvous channels meet; a select never pairs
 * with itself (a send and a receive case on one channel). A cancel that comes after a
 * peer completed a case leaves the select completed (zc_select_abort tells). While its
 * poll runs, a select is not waiting yet: a try operation of a peer does not meet it
 * then (a peer that waits is met by the walk the select makes again before it waits).
 * A ZC_SELECT_READY select reports ZC_EINVAL for an enabled rendezvous case, from the
 * first poll that reaches that case (a waiting case would be completed, which a
 * readiness select must not do).
 * Source: Go's select over unbuffered channels (a waiting select's selectDone claimed
 * once); crossbeam-channel's zero flavour (a waiting context selected once).
 *
 * A case whose handle is NULL is disabled, like a nil channel in Go: never tried, never
 * registered. A select loop disables a case whose channel reported ZC_CLOSED with
 * zc_select_disable; once every case is disabled the select reports ZC_CLOSED with
 * index n (nothing is left to select).
 *
 * With the flag ZC_SELECT_SKIP_CLOSED a loop over inputs that close one by one needs
 * no bookkeeping: a case whose channel is closed (a receive: closed and drained) is
 * skipped, as if not ready, and the select reports ZC_CLOSED (index n) only once every
 * enabled case is closed:
 *
 * \code
 * zc_select_case cases[2];
 * zc_select_recv_case(&cases[0], rx_a, &a);
 * zc_select_recv_case(&cases[1], rx_b, &b);
 * size_t i;
 * while (zc_select_blocking(cases, 2, ZC_SELECT_SKIP_CLOSED, &i) == ZC_OK)
 *     handle(i, i == 0 ? a : b); // every message of both, in any interleaving
 * // ZC_CLOSED, i == 2: both closed and drained
 * \endcode
 *
 * | call                                    | concurrent with                          |
 * |-----------------------------------------|------------------------------------------|
 * | poll, cancel, disable of one select     | not with each other (one owner)          |
 * | any call on different selects           | everything, also on the same channels    |
 * | zc_select_blocking, zc_select_timeout   | everything (each call owns its select)   |
 * | zc_select_until                         | everything (each call owns its select)   |
 * | case init, select init                  | only while that select is not pending    |
 */
#ifndef ZCHAN_SELECT_H
#define ZCHAN_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include <zchan/mpmc.h>
#include <zchan/status.h>
#include <zchan/waker.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_select Select (zchan/select.h)
 * @copydoc zchan/select.h
 * @{
 */

/** Flag for zc_select_init: among the ready cases, always take the first in list order
 *  (priority) instead of the fair choice (see the file comment). */
#define ZC_SELECT_ORDERED 1u

/** Flag for zc_select_init, zc_select_blocking, zc_select_timeout and zc_select_until:
 *  skip a case whose channel is closed (a receive case: closed and drained; a send case:
 *  closed), as if it were never ready (it is not registered, so its channel never wakes
 *  the select), and report ZC_CLOSED, with index n, only once every enabled case is
 *  closed. Without it a closed case is an outcome of its own: ZC_CLOSED for that case,
 *  at every poll until it is disabled (zc_select_disable). Combines with
 *  ZC_SELECT_ORDERED. */
#define ZC_SELECT_SKIP_CLOSED 2u

/** Flag for zc_select_init and the blocking forms: readiness only (crossbeam's
 *  Select::ready). The select completes with the index of a case whose operation could go
 *  ahead now (a receive: a message is held; a send: a place is free; a timer: due), and
 *  performs none: nothing is received or sent. The promise is none: by the time the
 *  caller acts, another thread may have taken the message or the place (the caller then
 *  finds ZC_EMPTY or ZC_FULL and selects again). A reservation (zchan/permit.h), or a
 *  sender between its claim and its write, makes a receive case look ready. For
 *  callers that compute what to send only once they know where it goes. A closed case
 *  completes with ZC_CLOSED, as without the flag; combines with the others. */
#define ZC_SELECT_READY 4u

/** One operation of a select. Caller-allocated (usually an array); fields are private.
 *  Set it up with zc_select_recv_case, zc_select_send_case or zc_select_after_case. It
 *  must not move while its
 *  select is pending. */
typedef struct zc_select_case {
    zc__waiter zc__node;
    void *zc__handle;    /* zc_receiver * or zc_sender *; NULL: disabled */
    void *zc__out;       /* receive: where the message goes */
    const void *zc__msg; /* send: the message */
    unsigned zc__kind;   /* receive or send */
    uint32_t zc__order;  /* the place of a case in a walk's random order (select.c) */
} zc_select_case;

/** A select as a poll-style future. Caller-allocated; fields are private. It must not
 *  move while it is pending. */
typedef struct zc_select {
    zc_select_case *zc__cases;
    size_t zc__n;
    size_t zc__start; /* the case the next walk tries first (zc__n: a shuffled walk);
                       * its two top bits: select.c's own state */
    unsigned zc__flags;
} zc_select;

/**
 * Make c a receive case: take one message from rx into out.
 *
 * @param c    The case; NULL does nothing.
 * @param rx   Receiver handle; must stay alive while the select is pending. NULL makes a
 *             disabled case (never ready, like a nil channel).
 * @param out  elem_size writable bytes of rx's channel, written only when this case is
 *             the one chosen with ZC_OK. NULL (with rx not NULL) makes polls return
 *             ZC_EINVAL.
 *
 * Thread safety: only while no select using c is pending.
 */
ZC_EXPORT void zc_select_recv_case(zc_select_case *c, zc_receiver *rx, void *out);

/**
 * Make c a send case: send the message at msg through tx.
 *
 * @param c    The case; NULL does nothing.
 * @param tx   Sender handle; must stay alive while the select is pending. NULL makes a
 *             disabled case.
 * @param msg  elem_size bytes of tx's channel, borrowed: valid and unchanged until the
 *             select completes or is cancelled. On any outcome but this case with ZC_OK
 *             they are still the caller's. NULL (with tx not NULL) makes polls return
 *             ZC_EINVAL.
 *
 * Thread safety: only while no select using c is pending.
 */
ZC_EXPORT void zc_select_send_case(zc_select_case *c, zc_sender *tx, const void *msg);

/**
 * Make c a timer case: ready once CLOCK_MONOTONIC (nanoseconds, as zc_recv_until's) has
 * reached deadline_ns, so that one select waits on channels and on a deadline of its
 * own (Go's time.After in a select, crossbeam's after). Chosen, it completes with ZC_OK
 * and its index, having done nothing else; a deadline already passed is ready at once
 * (among the ready cases: uniformly, or in array order with ZC_SELECT_ORDERED).
 *
 * The blocking forms (zc_select_blocking, _timeout, _until) wait for it; a timer case due
 * no later than the call's own deadline is chosen over ZC_TIMEDOUT. An enabled timer
 * case never closes, so with ZC_SELECT_SKIP_CLOSED a select holding one does not report
 * ZC_CLOSED (one that never fires, UINT64_MAX, waits for ever once every channel case
 * has closed: disable it then). The future form
 * starts no thread and arms no timer: a poll that returns ZC_PENDING registers the
 * channel cases only, and the executor learns when to poll again from
 * zc_select_deadline (a timer of its own: timerfd, a libuv timer).
 *
 * @param c            The case; NULL does nothing.
 * @param deadline_ns  The deadline; UINT64_MAX: never ready (a timer that never fires).
 *
 * Thread safety: only while no select using c is pending.
 */
ZC_EXPORT void zc_select_after_case(zc_select_case *c, uint64_t deadline_ns);

/**
 * Prepare a select over cases[0..n-1]. Does nothing else: the first poll starts it.
 *
 * @param s      The select; NULL does nothing.
 * @param cases  n cases made by zc_select_recv_case / _send_case / _after_case, none of them
 *               pending in another select; they stay the caller's and must stay in
 *               place while s is pending. NULL or n 0 makes every poll return ZC_EINVAL.
 * @param n      Number of cases; more than UINT32_MAX (SIZE_MAX / 4 where size_t has 32
 *               bits) makes every poll return ZC_EINVAL.
 * @param flags  0 (fair: the first selection chooses uniformly at random among the
 *               cases ready, the next ones go on round-robin after the case chosen), or
 *               ZC_SELECT_ORDERED (the first ready case in list order wins), either
 *               or'd with ZC_SELECT_SKIP_CLOSED (closed cases are skipped) and with
 *               ZC_SELECT_READY (readiness only: nothing is performed). Any other bit
 *               makes every poll return ZC_EINVAL.
 *
 * Thread safety: the select is the caller's; init it only when it is not pending.
 */
ZC_EXPORT void zc_select_init(zc_select *s, zc_select_case *cases, size_t n, unsigned flags);

/**
 * The earliest deadline among s's enabled timer cases (zc_select_after_case): when an
 * executor driving the select future must poll it again even if no waker call comes.
 *
 * @param s  The select, or NULL.
 * @return The deadline in CLOCK_MONOTONIC nanoseconds; UINT64_MAX if s is NULL or has no
 *         enabled timer case.
 *
 * Thread safety: as zc_select_poll.
 */
ZC_EXPORT uint64_t zc_select_deadline(const zc_select *s);

/**
 * Drive a select: complete exactly one ready case, else register w on every case's
 * channel and return ZC_PENDING.
 *
 * The outcome belongs to the case *index: ZC_OK (a receive case wrote its message to
 * its out buffer, or a send case's message moved into its channel); ZC_CLOSED (that
 * case's channel is closed: for a receive, also drained); ZC_ENOMEM (a send case on an
 * unbounded channel that could not grow; nothing sent). Every other case took and sent
 * nothing, and no waiter node of this select is left on any channel. The select is then
 * ready for the next selection: polling it again selects again, over the same cases,
 * trying them in turn from the case after the one just chosen (so a loop stays fair). Disable a case whose
 * channel is closed with zc_select_disable, or it keeps being reported.
 *
 * @param s      An initialised select.
 * @param w      Waker for the whole select; copied into every case's node. Several
 *               channels may call it for one ZC_PENDING (one wake per node at most,
 *               and the poll's own "poll again soon" of waker.h).
 * @param index  Receives the index of the case the status belongs to, or n when it
 *               belongs to none (ZC_PENDING, ZC_EINVAL for a bad select or waker, and
 *               ZC_CLOSED when every case is disabled).
 * @return ZC_OK, ZC_CLOSED (never with ZC_SELECT_SKIP_CLOSED) or ZC_ENOMEM for case
 *         *index (ZC_OK for a timer case means its deadline came, and with
 *         ZC_SELECT_READY it means the case could go ahead: nothing was done);
 *         ZC_CLOSED with *index == n when every case is disabled, or with
 *         ZC_SELECT_SKIP_CLOSED when every enabled case is closed; ZC_PENDING (registered with w, see waker.h);
 *         ZC_EINVAL (s, w, w->wake or index NULL, no cases or more than zc_select_init
 *         allows, unknown flags; or case *index has a NULL out or msg, or is on a rendezvous
 *         channel in a ZC_SELECT_READY select or one of more than 2^29 - 5 cases: a
 *         case is checked when a poll tries it, so a case tried before a bad one may
 *         complete first, and a bad case is reported by the first poll that reaches
 *         it; nothing is taken or sent by a poll that reports it). Any status but
 *         ZC_PENDING leaves nothing registered.
 *
 * Thread safety: one poll, cancel or disable of s at a time; any number of selects and
 *                futures on the same channels.
 * Progress: the attempts a poll makes until one completes (each after one random draw
 *           until the first completion, then in turn): O(1) when the next case in
 *           turn is ready, n when none is; n waiter-list registrations when it pends,
 *           and n removals at the completion after a poll that pended. Allocates
 *           nothing: the random order is kept in the cases.
 * Wakes: what the chosen operation wakes (a receiver for a sent message, a sender for
 *        a freed slot); and a wake-up absorbed by a case that was not chosen is passed
 *        on to the next waiter of that channel, so nobody is stranded.
 * Source: readiness-based select (crossbeam-channel Select); the cases of a new select
 *         tried in a uniformly random order, as Go's select (Durstenfeld's shuffle, one
 *         step per case tried).
 */
ZC_EXPORT zc_status zc_select_poll(zc_select *s, const zc_waker *w, size_t *index);

/**
 * Cancel a pending select: take every case off its channel's waiter list, passing on
 * any wake-up a case had absorbed. Nothing was taken or sent. The select returns to its
 * just-initialised state (its next starting case is kept). A never-polled or completed select is
 * left as it is; so is one whose rendezvous case a peer completed after its last
 * ZC_PENDING poll (its next poll reports that case: zc_select_abort says which it was).
 * When cancel returns, the waker is not running and will not be called (unless cancel
 * is called from inside that wake).
 *
 * @param s  The select; NULL does nothing.
 *
 * Thread safety: the select's owner; may be called from inside the select's own wake.
 */
ZC_EXPORT void zc_select_cancel(zc_select *s);

/**
 * Cancel s as zc_select_cancel does, and say whether a rendezvous peer had completed a
 * case first (only a rendezvous case completes without a poll of the select).
 *
 * @param s      The select; NULL returns true.
 * @param index  Receives the case a peer completed, when this returns false; may be
 *               NULL.
 * @return true if nothing was done (the select is as just initialised); false if case
 *         *index completed with ZC_OK (its message received or sent): the selection is
 *         over, as if a poll had reported it, and the select is ready for the next one.
 *
 * Thread safety: as zc_select_cancel.
 */
ZC_EXPORT bool zc_select_abort(zc_select *s, size_t *index);

/**
 * Disable case index of s: later polls neither try it nor register it. If s is pending,
 * the case is first taken off its channel's waiter list (passing on any wake-up it
 * absorbed). Typical use: a select loop whose poll reported ZC_CLOSED for that case.
 * The case in the caller's array is changed as if it had been set up with a NULL
 * handle, so it stays disabled for a later zc_select_init over the same array, until it
 * is set up again (zc_select_recv_case, _send_case or _after_case).
 *
 * @param s      The select; NULL does nothing.
 * @param index  A case of s; an index >= n does nothing.
 *
 * Thread safety: the select's owner, as zc_select_cancel.
 */
ZC_EXPORT void zc_select_disable(zc_select *s, size_t index);

/**
 * Select on the calling thread: complete exactly one of cases[0..n-1], parking the
 * thread while none is ready.
 *
 * Each call chooses uniformly at random among the cases ready (unless flags has
 * ZC_SELECT_ORDERED), so a loop of calls is fair to cases that are always ready,
 * whatever else the loop selects on and wherever cases that are never ready stand.
 *
 * @param cases  As for zc_select_init; used for the duration of the call.
 * @param n      Number of cases.
 * @param flags  As for zc_select_init.
 * @param index  Receives the case the status belongs to, or n (see zc_select_poll).
 * @return As zc_select_poll, without ZC_PENDING.
 *
 * Thread safety: any number of threads at once, on any channels.
 * Source: a zc_select driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_select_blocking(zc_select_case *cases, size_t n, unsigned flags,
                                       size_t *index);

/**
 * As zc_select_blocking, giving up after timeout_ns nanoseconds.
 *
 * @param cases       As for zc_select_init; used for the duration of the call.
 * @param n           Number of cases.
 * @param flags       As for zc_select_init.
 * @param timeout_ns  0 makes one attempt; UINT64_MAX waits forever.
 * @param index       Receives the case the status belongs to, or n.
 * @return As zc_select_blocking, plus ZC_TIMEDOUT with *index == n (every case was
 *         cancelled: nothing was taken, nothing was sent).
 */
ZC_EXPORT zc_status zc_select_timeout(zc_select_case *cases, size_t n, unsigned flags,
                                      uint64_t timeout_ns, size_t *index);

/**
 * As zc_select_timeout, giving up at deadline_ns, an absolute CLOCK_MONOTONIC time
 * (clock_gettime(CLOCK_MONOTONIC), in nanoseconds): a select loop that must end by a
 * given time passes the same deadline to every call.
 *
 * @param cases        As for zc_select_init; used for the duration of the call.
 * @param n            Number of cases.
 * @param flags        As for zc_select_init.
 * @param deadline_ns  CLOCK_MONOTONIC time in nanoseconds; one already past makes one
 *                     attempt at every case (as a timeout of 0); UINT64_MAX waits forever.
 * @param index        Receives the case the status belongs to, or n.
 * @return As zc_select_blocking, plus ZC_TIMEDOUT with *index == n (the deadline passed;
 *         every case was cancelled: nothing was taken, nothing was sent).
 *
 * Thread safety: any number of threads at once, on any channels.
 * Source: a zc_select driven by a zc_parker waker (block_on).
 */
ZC_EXPORT zc_status zc_select_until(zc_select_case *cases, size_t n, unsigned flags,
                                    uint64_t deadline_ns, size_t *index);

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_SELECT_H */

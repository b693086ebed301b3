/**
 * @file zchan/waker.h
 * The waker: how a pending zchan future tells its executor to poll it again.
 *
 * A waker is a plain {function, context} pair passed by value to every poll. zchan keeps
 * no reference count and never stores a waker anywhere but inside the future that was
 * polled with it. The contract every poll function keeps:
 *
 * 1. When a poll returns ZC_PENDING, the future is registered with the waker passed to
 *    that poll (a later poll replaces the earlier waker). wake(ctx) is then called at
 *    most once for that registration, on some thread, once the future may make progress.
 * 2. zchan never calls wake while holding one of its locks, so wake may call any zchan
 *    function, including polling the same future again.
 * 3. After a poll returns anything other than ZC_PENDING, or after the future's cancel
 *    returns, that future's waker is never called again and no call of it is still
 *    running (other than the one the caller may be inside), so the owner may free the
 *    task at once. Polling or cancelling a future from inside its own wake is allowed.
 * 4. No lost wake-ups: if the condition a pending future waits for becomes true, some
 *    waiter that can use it is woken within the call that made it true (a send, receive,
 *    close or drop). A woken future that is cancelled instead of polled passes its
 *    wake-up on to the next waiter of the same kind.
 * 5. No herd: a message made available wakes at most one waiting receiver, a slot freed
 *    wakes at most one waiting sender; only close (and the last handle's drop) wakes all.
 *    Waiters of one kind are woken in the order they registered.
 *
 * A poll may also call wake(ctx) itself, on the polling thread, just before returning
 * ZC_PENDING ("poll me again soon"): it does so when a peer thread is in the middle of
 * an operation on the very slot this future needs (it is off its waiter list then, so no
 * other thread's wake comes for that poll). No other wake of a future comes from inside
 * its own poll: a poll makes the wakes its operation owes the other side only once its
 * own waiter node is off the list.
 *
 * Executors must accept a wake that arrives before the poll has returned. A poll that
 * has to wait registers its future first and then looks once more (the re-check that
 * keeps rule 4), so another thread's wake may come once it is registered, while the
 * poll is still on its way to returning ZC_PENDING. Such a wake comes before the poll
 * returns, never after (rule 3).
 *
 * One wake-up a message or slot (rules 4 and 5). A call that makes something available
 * (a send, a receive, a batch, a commit or release of a reservation) wakes the oldest
 * waiters of the other side, one for each message or slot, whatever the waiters woken
 * before and not polled yet: a woken future acts only when its executor polls it, and
 * no future waits on another executor's polls. A woken future uses its wake-up when it
 * is polled (it completes, or finds nothing and waits again); one cancelled before that
 * poll passes the wake-up on to the next waiter if that one could use it. A send or
 * receive future takes (or sends) only with its future off the waiter list, so a
 * wake-up it holds is for something that came before that attempt. So every wake of a
 * future is owed to one message, one slot, a close, or a wake-up passed on unused: by
 * a cancel, or by an all-or-nothing batch send woken while too few slots are free
 * (zchan/batch.h), or by a select for a case it did not choose (zchan/select.h).
 * The price is futile polls where one task sends (receives) in a loop: the first polled
 * takes what the others were woken for, and they find the channel full (empty) again.
 *
 * An executor may poll from inside wake (rule 2), and those polls wake others in turn. A
 * call that wakes k waiters (a batch, a commit that releases k messages queued behind
 * it) wakes them one after another from its own frame; a pass-on made inside the wake of
 * another pass-on on the same list is left to that one, which makes it once its wake has
 * returned (still within the call that made the wake-up). So k waiters cancelled in
 * their wakes run two wakes deep, not k. Nothing is passed on once a channel is
 * closed, so the wakes of a close do not nest either. What still nests, one level per operation, is a chain of real sends and
 * receives between inline tasks, each woken task's operation making the wake-up of the
 * next: a commit into an empty bounded(1) channel with k inline receivers and k inline
 * senders waiting goes 2k deep (each receive wakes a sender, whose send wakes the next
 * receiver). A wake should return promptly: the pass-ons left to it wait until it does.
 */
#ifndef ZCHAN_WAKER_H
#define ZCHAN_WAKER_H

#include <zchan/status.h> /* every public header brings the status codes */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup zchan_waker Wakers (zchan/waker.h)
 * @copydoc zchan/waker.h
 * @{
 */

/**
 * A wake-up callback.
 *
 * wake is called from any thread, at most once per registration, and must not block
 * (push the task on a run queue, write an eventfd, unpark a thread). A blocking zchan
 * call made from inside a wake that would have to wait aborts in the checked build
 * (ZCHAN_CHECKED, zchan/mpmc.h): the thread may be the one that must deliver what it
 * waits for. ctx is the
 * caller's and must stay valid until the future it was given to completes or is
 * cancelled. A waker whose wake is NULL is a bad argument (ZC_EINVAL from the poll).
 */
typedef struct zc_waker {
    void (*wake)(void *ctx); /**< called from any thread; must not block */
    void *ctx;               /**< passed to wake, never dereferenced by zchan */
} zc_waker;

#ifdef __cplusplus
}
#endif

/** @} */

#endif /* ZCHAN_WAKER_H */

/*
 * waitlist.pml: a Promela model of zchan's waiter-list protocol, as src/waitlist.c and
 * src/future.c implement it, on a bounded ring (src/ring.c) with a receive list and a
 * send list. Checked exhaustively with spin (tests/model/check.sh).
 *
 * What is modelled, step by step as in the C code:
 *  - the ring as positions: a send claims position `tail` (one atomic step: the CAS,
 *    which fails on a closed channel), then publishes it; a receive claims `head`, then
 *    releases the slot. A claimed-but-unpublished head gives PENDING to a receive, a
 *    claimed-but-unreleased slot gives PENDING to a send or a receive, and so does a
 *    slot whose previous lap's sender has not published (ring.c: a peer is mid-copy; the
 *    attempt backs off, then says PENDING); FULL and EMPTY are answered only when they
 *    hold.
 *  - after a successful claim, the [F1] check (notify_owed, as zc__waitlist_notify_owed):
 *    the other side's `waiters` count, and if it is not zero, waitlist_notify_one,
 *    whatever the nodes of that list that hold a wake-up their owner has not acted on
 *    (`notified`); a batch's second wake only for what there is beyond what the first
 *    will take ([N1]).
 *  - waitlist_register of a WOKEN node: it keeps the wake-up (requeued, ZC__REQUEUED)
 *    until it leaves, and its waitlist_unregister then reports it held, so chan_finish
 *    passes it on.
 *  - waitlist_register (zc__waitlist_register): wait while WAKING (wait_not_waking),
 *    then under the lock link the node (link_node; at the front if it was WOKEN) and
 *    count it ([F2]), or keep it if still WAITING.
 *  - waitlist_notify_one (zc__waitlist_notify_one): under the lock unlink the oldest node
 *    (unlink_node), uncount it, mark it WAKING; then, outside the lock, call wake; then
 *    store WOKEN ([W1]).
 *  - waitlist_unregister (zc__waitlist_unregister_slow): IDLE -> nothing; WAITING ->
 *    under the lock unlink it (no wake-up held); otherwise wait while WAKING, then IDLE,
 *    and report a held wake-up (`woken`: one this registration absorbed).
 *  - chan_finish (zc__chan_finish_recv / _send): waitlist_unregister, and if a wake-up
 *    was held and the resource is ready (receive: a message held or closed; send: a free
 *    slot or closed), waitlist_notify_one: the wake-up passes to the next waiter.
 *  - a poll (future.c): send_attempt / recv_attempt (or none, if the ring looks
 *    empty/full: a guess, so either at any time); EMPTY/FULL -> waitlist_register,
 *    attempt again (the re-check); still EMPTY/FULL -> PENDING. PENDING from the ring ->
 *    chan_finish, wake itself (zc__wake_self) unless this poll registered and was woken
 *    since (that wake asks for the next poll, and a self-wake on top would be a second
 *    call for one registration), PENDING. OK/CLOSED -> chan_finish, then notify_owed.
 *  - chan_close: set the mark, then waitlist_notify_all on both lists (one
 *    waitlist_notify_one at a time, as many as were linked when it started; a node
 *    registering again meanwhile goes to the back).
 * Every lock-protected section is one atomic step (the lock serialises them; the only
 * lock-free reads of what they write are the waiter count and the owner's reads of its
 * own node state, which see the value before or after the section, as in the C code).
 * Promela is sequentially consistent: this checks the protocol, not the C11 orderings
 * (ThreadSanitizer and the [F1]/[F2] seq_cst argument cover those).
 *
 * Tasks: NRECV receive streams (poll until ZC_CLOSED) and NSEND senders (MSGS messages
 * each through send futures). A task whose poll returned PENDING either parks until its
 * waker runs and polls again, or is cancelled (at once: a timer won; or after its wake,
 * before polling again) and then starts over or gives up for good, at most CANCELS
 * times per task. With CLOSE_AT_END
 * the last sender closes the channel once all its messages are sent (the last sender's
 * drop); with RECV_CLOSES a receiver may close it instead, at any point. With STALLS, a
 * task that is woken may stall instead of polling (its executor is busy for ever), at
 * most STALLS times in all: it keeps its wake-up and does nothing more.
 *
 * Variants of the PENDING path: FIX_PENDING=1 (the default, the code) passes a wake-up
 * it held on, as chan_finish does (zc__chan_finish_*). FIX_PENDING=0 drops the held
 * wake-up: the check fails with a lost wake-up (two receivers, one of which closes).
 * FIX_PENDING=2 keeps the registration instead of stepping off.
 *
 * Mutants: compiled with -DMUTANT_<name>=1 the model has one deliberate bug, and the
 * check must fail (check.sh --mutants runs them, so the properties are known to bite):
 *  NO_FORWARD           a cancelled or completed future never passes a wake-up on
 *  NO_RECHECK           register without the re-check
 *  EARLY_WOKEN          notify marks the node WOKEN before calling wake (no handshake)
 *  CHECK_BEFORE_CLAIM   a sender reads the waiter count before claiming its slot
 *  REQUEUE_HOLDS_NOTHING  a woken node that registers again and then leaves (its
 *                       re-check took a message or slot) passes nothing on, although
 *                       a wake skipped for it meanwhile may be its to pass on. Caught
 *                       together with CAPPED (one receiver, two senders of two
 *                       messages, capacity 2); without it a wake is skipped for a
 *                       holder only by a pass-on or a batch's second wake, and no
 *                       configuration small enough to check reaches that, so check.sh
 *                       does not run it
 *  SELF_WAKE_TOO        a poll that meets PENDING wakes itself even when its
 *                       registration was woken meanwhile (P2 fails)
 *  CAPPED               an owed wake is left to the holders while one node of the list
 *                       holds a wake-up it has not acted on (a cap at one holder):
 *                       P5 fails
 *
 * Properties (assertions; a failing one is a counterexample trail):
 *  P1 no wake after return: a wake call starts only while its future is registered
 *     (between the link and the return of the poll that ends the registration or of its
 *     cancel), and none is still running when that poll or cancel returns.
 *  P2 at most one wake per registration.
 *  P3 no lost wake-up: when nothing can move any more, no task is parked while what it
 *     waits for holds (receiver: a message held or closed; sender: a free slot or
 *     closed). With a close, that means every pending future ended.
 *  P4 exactly once: when every receiver has seen ZC_CLOSED, they received every message
 *     that a send completed, and the ring is empty.
 *  P5 no task is held up by stalled futures: when nothing can move any more, no task
 *     is parked while what it waits for holds beyond what the stalled tasks of its kind
 *     hold wake-ups for (receiver: more messages than they; sender: more free slots; or
 *     closed). (P3 is waived once a task has stalled: a stalled holder keeps what it was
 *     woken for.)
 */

#ifndef NRECV
#define NRECV 2
#endif
#ifndef NSEND
#define NSEND 1
#endif
#ifndef MSGS
#define MSGS 2 /* messages per sender */
#endif
#ifndef CAP
#define CAP 1
#endif
#ifndef CANCELS
#define CANCELS 1 /* cancels per task */
#endif
#ifndef CLOSE_AT_END
#define CLOSE_AT_END 1
#endif
#ifndef FIX_PENDING
#define FIX_PENDING 1 /* future.c: the PENDING path passes a held wake-up on */
#endif
#ifndef RECV_CLOSES
#define RECV_CLOSES 0
#endif
/* The order of a poll's steps: 1 is the code, 0 a variant the check rejects.
 * PAY_AFTER_FINISH: a poll's attempt only counts the wake it owes the other side
 * (`owed`, as chan.h's owed); the poll makes it (notify_owed: the [F1] check and
 * waitlist_notify_one) after chan_finish has taken its own node off; with 0, the attempt
 * makes it at once, while the node can still be linked.
 * QUIET_FINISH: chan_finish passes nothing on once the channel is closed: the close
 * wakes every waiter. (Passing nothing on after a completed operation as well would lose
 * a wake-up: a sender whose re-check sends while it is still linked can absorb the wake
 * meant for the next sender; 1 receiver and 2 senders show it.) */
#ifndef PAY_AFTER_FINISH
#define PAY_AFTER_FINISH 1
#endif
#ifndef QUIET_FINISH
#define QUIET_FINISH 1
#endif
/* BATCH_RECV: a receive attempt may claim the next two positions at once (a batch
 * receive, ring_batch.c; with CAP >= 2), and then owes two wakes to waiting senders
 * (notify_owed). */
#ifndef BATCH_RECV
#define BATCH_RECV 0
#endif
#ifndef STALLS
#define STALLS 0
#endif

#define NT (NRECV + NSEND)       /* tasks: receivers 0..NRECV-1, then senders */
#define NPOS (NSEND * MSGS + 1)  /* positions ever claimed, plus one */

#define IDLE 0
#define WAITING 1
#define WAKING 2
#define WOKEN 3

#define RECV 0 /* the receive list: receivers wait for a message or close */
#define SEND 1 /* the send list: senders wait for a free slot or close */

#define OK 0
#define PENDING 1
#define FULL 2
#define EMPTY 3
#define CLOSED 4

/* ---- the ring ---- */
byte head, tail;   /* positions claimed by receivers / senders */
bool pub[NPOS];    /* position published by its sender */
bool rel[NPOS];    /* position's slot released by its receiver */
bool closed;

/* ---- the two waiter lists: list[L*NT .. L*NT+nlinked[L]-1], oldest first ---- */
byte list[2 * NT];
byte nlinked[2];
byte waiters[2];   /* the count the [F1] check reads */
byte waking_all[2]; /* notify_all calls in progress (under the lock in the C code) */
byte notified[2];   /* nodes notified whose owner has not registered or unregistered since */
bool requeued[NT];  /* the node was linked again by a register that found it WOKEN (its
                       owner's own field: read and cleared by its unregister) */
byte state[NT];    /* each task's node */

/* ---- the executor: one wake permit per task ---- */
bool permit[NT];
bool parked[NT];   /* parked on its permit after a PENDING poll */
bool ended[NT];     /* receivers: the stream ended with ZC_CLOSED */
bool stalled[NT];   /* woken, and stalled instead of polling (STALLS) */
byte stalls = STALLS;

/* ---- ghosts for the properties ---- */
bool live[NT];      /* P1: registered, and the poll/cancel ending it has not returned */
byte inwake[NT];    /* P1: wake calls of this task running now */
byte wakes_reg[NT]; /* P2: wakes of the current registration */
byte sent;          /* P4: sends that completed */

/* Scratch for loops and reads that stay inside one atomic step: hidden (not part of the
 * state vector), so stale values do not multiply the states. */
hidden byte i, st;
byte received;
byte senders_left = NSEND;

#define ready(L) (L == RECV -> (tail != head || closed) : (tail - head < CAP || closed))

/* ---- list operations (callers hold the lock: inside an atomic step) ---- */

inline link_node(L, n, front) {
    if
    :: front ->
        i = nlinked[L];
        do
        :: i > 0 -> list[L * NT + i] = list[L * NT + i - 1]; i--
        :: else -> break
        od;
        list[L * NT] = n
    :: else -> list[L * NT + nlinked[L]] = n
    fi;
    nlinked[L]++;
    waiters[L]++
}

inline unlink_node(L, n) {
    i = 0;
    do
    :: list[L * NT + i] == n -> break
    :: else -> i++
    od;
    do
    :: i + 1 < nlinked[L] -> list[L * NT + i] = list[L * NT + i + 1]; i++
    :: else -> break
    od;
    list[L * NT + nlinked[L] - 1] = 0;
    nlinked[L]--;
    waiters[L]--
}

/* ---- waitlist.c ---- */

/* zc__waitlist_notify_one: res = whether a node was woken. First, outside the lock, the
 * early out on a zero waiter count (its own step); then the locked section. */
inline waitlist_notify_one(L, res) {
    if
    :: waiters[L] == 0 -> res = false
    :: else ->
    atomic {
        if
        :: nlinked[L] == 0 -> res = false
        :: else ->
            n = list[L * NT];
            unlink_node(L, n);
            notified[L]++;
#if MUTANT_EARLY_WOKEN
            state[n] = WOKEN;         /* no wake-in-progress handshake */
#else
            state[n] = WAKING;
#endif
            res = true;
            /* unlock, then wake(ctx) starts (nothing of the owner's can change in
             * between: it waits while WAKING) */
            assert(live[n]);          /* P1 */
            inwake[n]++;
            wakes_reg[n]++;
            assert(wakes_reg[n] <= 1) /* P2 */
        fi
    }
    if
    :: res ->
        permit[n] = true;             /* what wake does: the task's permit */
#if MUTANT_EARLY_WOKEN
        atomic { inwake[n]--; n = 0 }
#else
        atomic { inwake[n]--; state[n] = WOKEN; n = 0 } /* wake returns; [W1] */
#endif
    :: else -> skip
    fi
    fi
}

/* zc__waitlist_notify_all: as many waitlist_notify_ones as nodes were linked at the start; a node
 * that registers again meanwhile goes to the back (waitlist_register, waking_all). */
inline waitlist_notify_all(L) {
    atomic { budget = nlinked[L]; waking_all[L]++ }
    do
    :: budget > 0 ->
       budget--;
       waitlist_notify_one(L, res2);
       if
       :: !res2 -> break
       :: else -> skip
       fi
    :: else -> break
    od;
    waking_all[L]--
}

/* zc__waitlist_register */
inline waitlist_register(L, t) {
    do
    :: (state[t] != WAKING) ->        /* wait_not_waking */
        atomic {
            st = state[t];
            if
            :: st == WAKING -> skip   /* notified meanwhile: try again */
            :: st == WAITING -> break /* still linked: keep the registration */
            :: else ->
                if
                :: st == WOKEN -> notified[L]--; /* its wake-up is acted on, */
                   requeued[t] = true             /* and kept until it leaves */
                :: else -> skip
                fi;
                state[t] = WAITING;
                link_node(L, t, st == WOKEN && waking_all[L] == 0);
                live[t] = true;
                wakes_reg[t] = 0;
                break
            fi
        }
    od
}

/* zc__waitlist_unregister_slow: res = whether the node holds a wake-up to pass on: one its
 * registration absorbed (then woken = true), or one it kept by registering again after a
 * wake (requeued). */
inline waitlist_unregister(L, t, res) {
    woken = false;
    if
    :: state[t] == IDLE -> res = false
    :: else ->
        done = false;
        if
        :: state[t] == WAITING ->
            atomic {
                if
                :: state[t] == WAITING ->
                    unlink_node(L, t);
                    state[t] = IDLE;
#if MUTANT_REQUEUE_HOLDS_NOTHING
                    res = false;
#else
                    res = requeued[t];
#endif
                    requeued[t] = false;
                    done = true
                :: else -> skip
                fi
            }
        :: else -> skip
        fi;
        if
        :: !done ->
            (state[t] != WAKING);     /* [W2] */
            atomic { state[t] = IDLE; notified[L]--; requeued[t] = false };
            res = true;
            woken = true
        :: else -> skip
        fi
    fi
}

/* zc__chan_finish_recv / _send (chan.c): take the node off; pass a held wake-up on if
 * it can be used: the waiter count is read first, then the queue, each its own step.
 * With QUIET_FINISH, a closed channel counts as not ready: its close wakes every waiter. */
inline chan_finish(L, t) {
    waitlist_unregister(L, t, res);
    if
#if MUTANT_NO_FORWARD
    :: false -> skip
#else
    :: res && waiters[L] != 0 ->
        if
#if QUIET_FINISH
        /* what there is to take, read first; then only if more than the notified
         * waiters that have not acted will take (chan.c) */
        :: k2 = (closed -> 0 : (L == RECV -> tail - head : CAP - (tail - head)));
           if
           :: k2 > notified[L] -> waitlist_notify_one(L, res2)
           :: else -> skip
           fi
#else
        :: ready(L) -> waitlist_notify_one(L, res2)
#endif
        :: else -> skip
        fi
#endif
    :: else -> skip
    fi
}

/* zc__waitlist_notify_owed, [F1] after a claim: the wakes the attempt owes the other
 * side (one, or two for a batch receive): the first while a waiter is counted ([F1]),
 * whatever the holders (with the mutant CAPPED, only while no node of that list holds a
 * wake-up its owner has not acted on); the second only if, besides, the room (read
 * first) is more than what the senders this call woke and that have not acted will take
 * (the fewer of one and `notified`, read second, [N1]). */
#if MUTANT_CAPPED
#define CAPPED(L) (notified[L] >= 1)
#else
#define CAPPED(L) false
#endif
inline notify_owed(L) {
    if
    :: owed > 0 ->
        lst = (L == RECV -> SEND : RECV);
        if
        :: waiters[lst] != 0 && !CAPPED(lst) -> waitlist_notify_one(lst, res2)
        :: else -> owed = 1           /* no one waits (or, CAPPED, left to a holder) */
        fi;
        if
        :: owed == 2 && waiters[SEND] != 0 && !CAPPED(SEND) ->
            k2 = (closed -> 0 : CAP - (tail - head));
            if
            :: k2 > (notified[SEND] < 1 -> notified[SEND] : 1) -> waitlist_notify_one(SEND, res2)
            :: else -> skip
            fi
        :: else -> skip
        fi;
        atomic { owed = 0; k2 = 0; lst = 0 }
    :: else -> skip
    fi
}

/* The end of a registration: the poll that returns non-PENDING, or the cancel. */
inline registration_over(t) {
    atomic { assert(inwake[t] == 0); live[t] = false; wakes_reg[t] = 0 } /* P1 */
}

/* ---- the ring and chan.h ---- */

/* zc__chan_send_quiet: one attempt; after a claim, publish and the [F1] check. */
inline send_attempt(s) {
#if MUTANT_CHECK_BEFORE_CLAIM
    res2 = waiters[RECV] != 0;        /* looks for waiters before its claim */
#endif
    atomic {
        if
        :: closed -> s = CLOSED
        :: !closed && (tail < CAP || rel[tail - CAP]) -> k = tail; tail++; s = OK
        :: !closed && tail >= CAP && !rel[tail - CAP] && head + CAP == tail && pub[tail - CAP] ->
            s = FULL
        :: !closed && tail >= CAP && !rel[tail - CAP] && head + CAP != tail -> s = PENDING
        /* the previous lap's sender has not published: back off, then PENDING (ring.c) */
        :: !closed && tail >= CAP && !rel[tail - CAP] && head + CAP == tail && !pub[tail - CAP] ->
            s = PENDING
        fi
    }
    if
    :: s == OK ->
        atomic { pub[k] = true; k = 0 };
#if PAY_AFTER_FINISH && !MUTANT_CHECK_BEFORE_CLAIM
        owed = 1                      /* paid by the poll after its finish */
#else
        if
#if MUTANT_CHECK_BEFORE_CLAIM
        :: res2 -> waitlist_notify_one(RECV, res2)
#else
        :: waiters[RECV] != 0 -> waitlist_notify_one(RECV, res2)
#endif
        :: else -> skip
        fi
#endif
    :: else -> skip
    fi
}

/* zc__chan_recv_quiet: one attempt; after a claim, release and the [F1] check. */
inline recv_attempt(s) {
    atomic {
        if
        /* the slot's previous receiver has not released it: back off, then PENDING */
        :: head >= CAP && !rel[head - CAP] -> s = PENDING
        :: (head < CAP || rel[head - CAP]) && head != tail && pub[head] ->
            k = head; head++; received++; s = OK
#if BATCH_RECV
        /* a batch of two in one claim: both published, the second's slot released by
         * its previous lap's receiver; two wakes owed */
        :: (head < CAP || rel[head - CAP]) && head + 1 < tail && pub[head] && pub[head + 1] &&
           (head + 1 < CAP || rel[head + 1 - CAP]) ->
            k = head; head = head + 2; received = received + 2; s = OK; owed = 2
#endif
        :: (head < CAP || rel[head - CAP]) && head != tail && !pub[head] -> s = PENDING
        :: (head < CAP || rel[head - CAP]) && head == tail && closed -> s = CLOSED
        :: (head < CAP || rel[head - CAP]) && head == tail && !closed -> s = EMPTY
        fi
    }
    if
    :: s == OK ->
        atomic { rel[k] = true; k = (owed == 2 -> k + 1 : 0) };
        if
        :: k > 0 -> atomic { rel[k] = true; k = 0 } /* a batch's second slot */
        :: else -> skip
        fi;
#if PAY_AFTER_FINISH
        owed = (owed == 2 -> 2 : 1)   /* paid by the poll after its finish */
#else
        if
        :: waiters[SEND] != 0 -> waitlist_notify_one(SEND, res2)
        :: else -> skip
        fi
#endif
    :: else -> skip
    fi
}

inline chan_close() {
    atomic { res = !closed; closed = true };
    if
    :: res -> waitlist_notify_all(RECV); waitlist_notify_all(SEND)
    :: else -> skip
    fi
}

/* ---- future.c polls: s = OK, CLOSED or PENDING ---- */

inline poll(L, t, s, WOULD_WAIT) {
    if                                /* the first attempt, or none: a ring that looks */
    :: L == RECV -> recv_attempt(s)       /* empty (full) goes straight to the registration */
    :: L == SEND -> send_attempt(s)       /* (zc__ring_looks_empty / _full: relaxed loads, */
    :: s = WOULD_WAIT                 /* a guess that may be stale: any state here) */
    fi;
    registered = false;
    do
    :: s == WOULD_WAIT && registered -> s = PENDING; break
    :: s == WOULD_WAIT && !registered ->
        waitlist_register(L, t);
        registered = true;
#if MUTANT_NO_RECHECK
        skip
#else
        if                            /* the re-check */
        :: L == RECV -> recv_attempt(s)
        :: else -> send_attempt(s)
        fi
#endif
    :: s == PENDING ->                /* a peer is mid-copy on our slot */
#if FIX_PENDING == 1
        chan_finish(L, t);                 /* step off, passing a held wake-up on */
        if
#if MUTANT_SELF_WAKE_TOO
        :: false -> skip
#else
        :: woken && registered -> skip /* this poll's registration was woken: that */
                                       /* wake asks for the next poll already */
#endif
        :: else ->
            /* P2 across the step-off: the self-wake is a second call for this poll's
             * registration if that was woken */
            assert(!(registered && wakes_reg[t] > 0));
            permit[t] = true          /* wake ourselves: poll again soon */
        fi;
        registration_over(t);
#elif FIX_PENDING == 2
        skip;                         /* stay registered, keep what it holds */
        permit[t] = true;
#else
        waitlist_unregister(L, t, res); /* a held wake-up is dropped */
        registration_over(t);
        permit[t] = true;
#endif
        break
    :: s == OK || s == CLOSED ->
        chan_finish(L, t);
        notify_owed(L);               /* the wake the attempt owes, with our node off */
        registration_over(t);
        break
    od;
    /* locals back to their initial values (fewer distinct states) */
    atomic { res = false; res2 = false; done = false; registered = false }
}

/* What the executor does with a PENDING future: park until woken and poll again, or
 * cancel it (at once: a timer won; or after its wake, before polling again) and then
 * either start over or give the operation up for good (quit). */
inline cancel_and_maybe_quit(L, t) {
    cancels--;
    chan_finish(L, t);
    registration_over(t);
    if
    :: quit = true
    :: skip
    fi
}

inline wait_or_cancel(L, t) {
    if
    :: cancels > 0 -> cancel_and_maybe_quit(L, t)
    :: true ->
        parked[t] = true;
end_wait:
        atomic { permit[t] -> permit[t] = false; parked[t] = false };
        if
        :: cancels > 0 -> cancel_and_maybe_quit(L, t)
        :: stalls > 0 ->
            atomic { stalls--; stalled[t] = true };
end_stalled:
            false                     /* its executor never polls it again */
        :: true -> skip
        fi
    fi
}

proctype Receiver(byte t) {
    byte s, n, k, k2, budget;
    bool res, res2, done, registered, quit, woken;
    byte owed, lst;
    byte cancels = CANCELS;
    do
    :: poll(RECV, t, s, EMPTY);
       if
       :: s == OK -> skip
       :: s == CLOSED -> ended[t] = true; break
       :: s == PENDING ->
           wait_or_cancel(RECV, t);
           if
           :: quit -> break
           :: else -> skip
           fi
       fi
    :: RECV_CLOSES && !closed -> chan_close()
    od
}

proctype Sender(byte t) {
    byte s, n, k, k2, m, budget;
    bool res, res2, done, registered, quit, woken;
    byte owed, lst;
    byte cancels = CANCELS;
    do
    :: m == MSGS -> break
    :: m < MSGS ->
        poll(SEND, t, s, FULL);
        if
        :: s == OK -> m++; atomic { sent++ }
        :: s == CLOSED -> break        /* the message stays the caller's */
        :: s == PENDING ->
            wait_or_cancel(SEND, t);
            if
            :: quit -> break           /* the message stays the caller's */
            :: else -> skip
            fi
        fi
    od;
    atomic { senders_left--; res = senders_left == 0 };
    if
    :: res && CLOSE_AT_END -> chan_close()
    :: else -> skip
    fi;
    ended[t] = true
}

/* P3 and P4, checked when no statement anywhere can run any more. */
active proctype Quiescence() {
    byte t, held[2];
    bool all_received = true;
    timeout ->
    t = 0;
    do
    :: t < NRECV ->
        assert(stalls != STALLS || !(parked[t] && (tail != head || closed)));      /* P3 */
        all_received = all_received && ended[t];
        if
        :: stalled[t] -> held[RECV]++
        :: else -> skip
        fi;
        t++
    :: t >= NRECV && t < NT ->
        assert(stalls != STALLS || !(parked[t] && (tail - head < CAP || closed))); /* P3 */
        if
        :: stalled[t] -> held[SEND]++
        :: else -> skip
        fi;
        t++
    :: t == NT -> break
    od;
    assert(!all_received || (received == sent && head == tail)); /* P4 */
    t = 0;                                                       /* P5 */
    do
    :: t < NRECV -> assert(!(parked[t] && (tail - head > held[RECV] || closed))); t++
    :: t >= NRECV && t < NT ->
        assert(!(parked[t] && (CAP - (tail - head) > held[SEND] || closed))); t++
    :: t == NT -> break
    od
}

init {
    byte t;
    atomic {
        t = 0;
        do
        :: t < NRECV -> run Receiver(t); t++
        :: t >= NRECV && t < NT -> run Sender(t); t++
        :: t == NT -> break
        od
    }
}

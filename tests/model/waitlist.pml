/*
 * waitlist.pml: a Promela model of zchan's waiter-list protocol, as src/waitlist.c,
 * src/wait.c and src/chan.c implement it, on a bounded ring (src/queue/ring.c) with a
 * receive list and a send list. Checked exhaustively with spin (tests/model/check.sh).
 *
 * What is modelled, step by step as in the C code:
 *  - the ring as positions: a send claims position `tail` (one atomic step: the CAS,
 *    which fails on a closed channel), then publishes it; a receive claims `head`, then
 *    releases the slot. A claimed-but-unpublished head gives PENDING to a receive, a
 *    claimed-but-unreleased slot gives PENDING to a send or a receive, and so does a
 *    slot whose previous lap's sender has not published (ring.c: a peer is mid-copy; the
 *    attempt backs off, then says PENDING); FULL and EMPTY are answered only when they
 *    hold. An attempt that claimed owes the other side one wake per message published
 *    or slot released (`owed`: one, or two for a batch receive).
 *  - zc__waitlist_register: wait while WAKING (wait_not_waking), then under the lock
 *    link the node (link_node, [F2]; at the front if it was WOKEN, unless a notify_all
 *    is under way) and count it, or keep it if still WAITING. A WOKEN node that
 *    registers again has used its wake-up: `notified` goes down ([N2]) and it holds
 *    nothing. zc__waitlist_register_unless makes, in the same locked step, the
 *    re-check: a look at the ring (zc__queue_ready); ready -> the node off the list
 *    again (a WAITING one IDLE, a WOKEN one still holding its wake-up), not linked.
 *  - zc__waitlist_notify_one: the early out on a zero waiter count ([F1], its own step,
 *    outside the lock); then under the lock unlink the oldest node (unlink_node),
 *    uncount it, count it in `notified`, mark it WAKING; then, outside the lock, call
 *    wake; then store WOKEN ([W1]).
 *  - zc__waitlist_notify_n: up to n zc__waitlist_notify_ones, one a thing made
 *    available, stopping at the first that finds no waiter; none is held back for
 *    waiters woken before and not acted yet.
 *  - zc__waitlist_notify_all: as many zc__waitlist_notify_ones as nodes were linked when
 *    it started (`waking_all`: a node registering again meanwhile goes to the back).
 *  - zc__waitlist_unregister_slow: WAITING -> under the lock unlink it (no wake-up
 *    held); WAKING or WOKEN -> wait while WAKING ([W2]), then IDLE, `notified` down, and
 *    report the wake-up held.
 *  - zc__waitlist_step_off: WAITING -> under the lock unlink it, IDLE (no wake-up held);
 *    WAKING or WOKEN -> wait while WAKING, and leave it WOKEN (off the list, still
 *    counted in `notified`): it reports the wake-up held, which the next poll uses.
 *  - zc__wait_pay (zc__chan_wake_receivers / _senders): the wakes an attempt owes,
 *    made by zc__waitlist_notify_n on the other side's list once the poll's own node is
 *    off its list.
 *  - zc__wait_cancel (receive / send side): zc__waitlist_unregister, and if it
 *    held a wake-up, zc__chan_pass_on_recv / _send: if a waiter is counted, read what a
 *    woken waiter could take (recv_avail / send_avail: messages held or free slots,
 *    nothing once closed), then `notified` ([N1]), each its own step; if there is more
 *    than the woken waiters will take, zc__waitlist_notify_one.
 *  - a poll (zc__wait_slow): an attempt (or none, if the ring looks empty/full:
 *    zc__queue_looks_empty/_full is a guess, so either at any time); EMPTY/FULL ->
 *    zc__waitlist_register_unless: not ready -> PENDING, linked; ready -> off the list,
 *    attempt again. PENDING from the ring -> zc__waitlist_step_off, zc__wake_self,
 *    PENDING. OK/CLOSED -> zc__waitlist_unregister (a wake-up held came before the
 *    attempt and was used by it), then zc__wait_pay. No attempt is made with the node
 *    linked.
 *  - chan_close: set the mark, then zc__waitlist_notify_all on both lists.
 * Every lock-protected section is one atomic step (the lock serialises them; the only
 * lock-free reads of what they write are the waiter count, `notified` and the owner's
 * reads of its own node state, which see the value before or after the section, as in
 * the C code). Promela is sequentially consistent: this checks the protocol, not the C11
 * orderings (ThreadSanitizer and the [F1]/[F2] seq_cst argument cover those).
 *
 * Not modelled: the holes of a batch's all-or-nothing claim (zc__queue_skip_holes, the
 * wakes they owe, and a batch that passes on a wake-up it cannot use); a poll made from
 * inside its own self-wake (zc__in_self_wake: it backs off and attempts again); the
 * deferral of a pass-on made inside the wake of another pass-on (zc__waitlist_pass_on:
 * the executor here never polls inside a wake, so the pass-on is made at once); select
 * (select_finish: a case not chosen passes its wake-up on, as a cancel does); the
 * unbounded queue.
 *
 * Tasks: NRECV receive streams (poll until ZC_CLOSED) and NSEND senders (MSGS messages
 * each through send futures). A task whose poll returned PENDING either parks until its
 * waker runs and polls again, or is cancelled (at once: a timer won; or after its wake,
 * before polling again) and then starts over or gives up for good, at most CANCELS
 * times per task. With CLOSE_AT_END the last sender closes the channel once all its
 * messages are sent (the last sender's drop); with RECV_CLOSES a receiver may close it
 * instead, at any point. With STALLS, a task that is woken may stall instead of polling
 * (its executor is busy for ever), at most STALLS times in all: it keeps its wake-up and
 * does nothing more.
 *
 * Variants of the PENDING path: FIX_PENDING=1 (the default, the code) steps off keeping
 * a held wake-up (zc__waitlist_step_off). FIX_PENDING=0 steps off through
 * zc__waitlist_unregister and passes the held wake-up on as a cancel does, while the
 * poll still counts on that wake for its next poll (no self-wake): one message wakes two
 * receivers, and P6 fails (two receivers, one sender of two messages).
 *
 * Mutants: compiled with -DMUTANT_<name>=1 the model has one deliberate bug, and the
 * check must fail (check.sh --mutants runs them, so the properties are known to bite):
 *  NO_FORWARD           a cancelled future never passes a wake-up on (P3 fails)
 *  NO_RECHECK           register without the re-check (P3)
 *  EARLY_WOKEN          notify marks the node WOKEN before calling wake, no handshake
 *                       (P1)
 *  CHECK_BEFORE_CLAIM   a sender reads the waiter count before claiming its slot (P3)
 *  COMPLETION_PASS_ON   a poll that completes passes a wake-up it held on, as a cancel
 *                       does: a woken receiver that takes a message and sees the next
 *                       one, published but not yet notified by its sender, wakes a
 *                       second receiver for it, and the sender's notify wakes a third
 *                       (P6)
 *  ATTEMPT_LINKED       the re-check is an attempt made with the node still linked, and
 *                       a wake that came meanwhile counts as used: a sender that sends
 *                       through it is woken for the slot freed after, and the sender
 *                       behind it stays parked beside a free slot (P3)
 *  ATTEMPT_LINKED_PASS_ON  the same, passing such a wake-up on: two wakes for one slot
 *                       (P6, three senders)
 *  LOOK_UNLOCKED        the look made after the registration's locked step, and the node
 *                       taken off in another: a woken sender that registers again at the
 *                       front can take the wake of a second slot between the two, and
 *                       the sender behind it stays parked (P5)
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
 *  P6 no herd (waker rule 5): every wake of a future by another task is owed. Per side,
 *     the wakes delivered never exceed the things made available (receivers: messages
 *     published; senders: slots released) plus the waiters woken by close plus the
 *     wake-ups held by cancelled futures (each cancel passes at most one on). Kept as
 *     `credit` per side: up one for each of those, down one for each wake, never below
 *     zero (a self-wake is the task's own and not counted).
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
#define FIX_PENDING 1 /* wait.c: the PENDING path steps off keeping a held wake-up */
#endif
#ifndef RECV_CLOSES
#define RECV_CLOSES 0
#endif
/* BATCH_RECV: a receive attempt may claim the next two positions at once (a batch
 * receive; with CAP >= 2), and then owes two wakes to waiting senders. */
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
byte waiters[2];    /* the count the [F1] check reads */
byte waking_all[2]; /* notify_all calls in progress (under the lock in the C code) */
byte notified[2];   /* nodes notified whose owner has not registered or unregistered since */
byte state[NT];     /* each task's node */

/* ---- the executor: one wake permit per task ---- */
bool permit[NT];
bool parked[NT];    /* parked on its permit after a PENDING poll */
bool ended[NT];     /* receivers: the stream ended with ZC_CLOSED */
bool stalled[NT];   /* woken, and stalled instead of polling (STALLS) */
byte stalls = STALLS;

/* ---- ghosts for the properties ---- */
bool live[NT];      /* P1: registered, and the poll/cancel ending it has not returned */
byte inwake[NT];    /* P1: wake calls of this task running now */
byte wakes_reg[NT]; /* P2: wakes of the current registration */
byte sent;          /* P4: sends that completed */
byte credit[2];     /* P6: wakes owed to the list's waiters and not made yet */

/* Scratch for loops and reads that stay inside one atomic step: hidden (not part of the
 * state vector), so stale values do not multiply the states. */
hidden byte i, st;
byte received;
byte senders_left = NSEND;

/* what a waiter of list L woken now could take (recv_avail / send_avail in chan.c) */
#define avail(L) (closed -> 0 : (L == RECV -> tail - head : CAP - (tail - head)))

/* the re-check's look (zc__queue_ready): whether an attempt now could complete
 * (receive: closed, or the oldest position published; send: closed, or the next slot
 * released). "Not ready" only where the peer that makes it so pays its wake after. */
#define ready(L) (closed || (L == RECV -> (head != tail && pub[head]) : (tail < CAP || rel[tail - CAP])))

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
 * early out on a zero waiter count (its own step); then the locked section. A wake by
 * close (by_close) brings its own credit (P6). */
inline waitlist_notify_one(L, res, by_close) {
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
            assert(wakes_reg[n] <= 1); /* P2 */
            assert(by_close || credit[L] > 0); /* P6 */
            credit[L] = credit[L] - (by_close -> 0 : 1)
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

/* zc__waitlist_notify_n: up to cnt wakes, one at a time, until one finds no waiter. */
inline waitlist_notify_n(L, cnt) {
    do
    :: cnt > 0 ->
        cnt--;
        waitlist_notify_one(L, res2, false);
        if
        :: !res2 -> break
        :: else -> skip
        fi
    :: else -> break
    od;
    cnt = 0
}

/* zc__waitlist_notify_all: as many waitlist_notify_ones as nodes were linked at the
 * start; a node that registers again meanwhile goes to the back (waitlist_register,
 * waking_all). */
inline waitlist_notify_all(L) {
    atomic { budget = nlinked[L]; waking_all[L]++ }
    do
    :: budget > 0 ->
       budget--;
       waitlist_notify_one(L, res2, true);
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
                :: st == WOKEN -> notified[L]-- /* its wake-up is used ([N2]) */
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

/* zc__waitlist_register_unless with the wait's look (ready): as waitlist_register, but
 * in the same locked step the look at the ring; ready -> the node off the list again
 * (a WAITING one IDLE, a WOKEN one still holding its wake-up), linked = false. */
inline waitlist_register_unless(L, t, linked) {
    do
    :: (state[t] != WAKING) ->        /* wait_not_waking */
        atomic {
            st = state[t];
            if
            :: st == WAKING -> skip   /* notified meanwhile: try again */
            :: st != WAKING && ready(L) ->
                if
                :: st == WAITING -> unlink_node(L, t); state[t] = IDLE
                :: else -> skip
                fi;
                linked = false;
                break
            :: st == WAITING && !ready(L) -> linked = true; break
            :: st != WAKING && st != WAITING && !ready(L) ->
                if
                :: st == WOKEN -> notified[L]-- /* its wake-up is used ([N2]) */
                :: else -> skip
                fi;
                state[t] = WAITING;
                link_node(L, t, st == WOKEN && waking_all[L] == 0);
                live[t] = true;
                wakes_reg[t] = 0;
                linked = true;
                break
            fi
        }
    od
}

/* zc__waitlist_unregister_slow (keep false) and zc__waitlist_step_off (keep true):
 * res = whether the node holds a wake-up. IDLE -> nothing held; WAITING -> under the
 * lock unlink it, IDLE, nothing held; WAKING or WOKEN -> wait while WAKING ([W2]); then
 * unregister makes it IDLE with `notified` down, step_off leaves it WOKEN (off the list,
 * still counted in `notified`) for the next poll to use. cancelled: the caller is a
 * cancel, and the wake-up held and not used may be passed on: one wake more owed to the
 * list (P6). */
inline take_off(L, t, res, keep, cancelled) {
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
                    res = false;
                    done = true
                :: else -> skip
                fi
            }
        :: else -> skip
        fi;
        if
        :: !done && keep -> (state[t] != WAKING); res = true /* [W2] */
        :: !done && !keep ->
            (state[t] != WAKING);     /* [W2] */
            atomic {
                state[t] = IDLE;
                notified[L]--;
                credit[L] = credit[L] + (cancelled -> 1 : 0);
                res = true
            }
        :: else -> skip
        fi
    fi
}

inline waitlist_unregister(L, t, res, cancelled) { take_off(L, t, res, false, cancelled) }

inline waitlist_step_off(L, t, res) { take_off(L, t, res, true, false) }

/* ---- chan.c ---- */

/* zc__chan_pass_on_recv / _send: if a waiter is counted, what a woken waiter could take
 * (read first), then `notified` ([N1]): a wake if there is more than they will take. */
inline chan_pass_on(L) {
    if
    :: waiters[L] != 0 ->
        k2 = avail(L);
        if
        :: k2 > notified[L] -> k2 = 0; waitlist_notify_one(L, res2, false)
        :: else -> k2 = 0
        fi
    :: else -> skip
    fi
}

/* zc__wait_cancel (receive / send side): take the node off; pass a wake-up it
 * held on. */
inline chan_cancel(L, t) {
    waitlist_unregister(L, t, res, true);
    if
#if MUTANT_NO_FORWARD
    :: false -> skip
#else
    :: res -> chan_pass_on(L)
#endif
    :: else -> skip
    fi
}

/* zc__wait_pay: the wakes the attempt owes the other side, the poll's node off its list
 * (zc__chan_wake_senders / _receivers: zc__waitlist_notify_n). */
inline wait_pay(L) {
    if
    :: owed > 0 ->
        if
        :: L == RECV -> waitlist_notify_n(SEND, owed)
        :: else -> waitlist_notify_n(RECV, owed)
        fi
    :: else -> skip
    fi
}

/* The end of a registration: the poll that returns non-PENDING, or the cancel. */
inline registration_over(t) {
    atomic { assert(inwake[t] == 0); live[t] = false; wakes_reg[t] = 0 } /* P1 */
}

/* ---- the ring ---- */

/* A send attempt: the claim; after it, the publish, and one wake owed to receivers. */
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
        atomic { pub[k] = true; k = 0; credit[RECV]++ }; /* P6: a message published */
#if MUTANT_CHECK_BEFORE_CLAIM
        owed = (res2 -> 1 : 0);       /* a wake only if it saw a waiter before */
        res2 = false
#else
        owed = 1                      /* paid by the poll once its node is off */
#endif
    :: else -> skip
    fi
}

/* A receive attempt: the claim; after it, the release, and one wake owed to senders a
 * slot (two for a batch). */
inline recv_attempt(s) {
    atomic {
        if
        /* the slot's previous receiver has not released it: back off, then PENDING */
        :: head >= CAP && !rel[head - CAP] -> s = PENDING
        :: (head < CAP || rel[head - CAP]) && head != tail && pub[head] ->
            k = head; head++; received++; s = OK; owed = 1
#if BATCH_RECV
        /* a batch of two in one claim: both published, the second's slot released by
         * its previous lap's receiver */
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
        /* P6: a slot released (each) */
        atomic { rel[k] = true; credit[SEND]++; k = (owed == 2 -> k + 1 : 0) };
        if
        :: k > 0 -> atomic { rel[k] = true; credit[SEND]++; k = 0 } /* a batch's second */
        :: else -> skip
        fi
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

/* ---- wait.c: a poll, s = OK, CLOSED or PENDING ---- */

inline poll(L, t, s, WOULD_WAIT) {
    if                                /* the first attempt, or none: a ring that looks */
    :: L == RECV -> recv_attempt(s)   /* empty (full) goes straight to the registration */
    :: L == SEND -> send_attempt(s)   /* (zc__queue_looks_*: relaxed, a guess that */
    :: s = WOULD_WAIT                 /* may be stale: any state here) */
    fi;
    registered = false;
    do
    :: s == WOULD_WAIT && registered -> s = PENDING; break
    :: s == WOULD_WAIT && !registered ->
#if MUTANT_NO_RECHECK
        waitlist_register(L, t);
        registered = true
#elif MUTANT_ATTEMPT_LINKED || MUTANT_ATTEMPT_LINKED_PASS_ON
        waitlist_register(L, t);
        registered = true;
        if                            /* the re-check: an attempt while still linked */
        :: L == RECV -> recv_attempt(s)
        :: else -> send_attempt(s)
        fi
#elif MUTANT_LOOK_UNLOCKED
        /* the look after the registration's locked step, and the node taken off in
         * another: a wake may come between them (the order without the lock) */
        waitlist_register(L, t);
        if
        :: ready(L) ->
            waitlist_unregister(L, t, res, false);
            if
            :: L == RECV -> recv_attempt(s)
            :: else -> send_attempt(s)
            fi
        :: else -> registered = true
        fi
#else
        /* the re-check: the look at the ring, in the registration's locked step */
        waitlist_register_unless(L, t, registered);
        if
        :: registered -> skip
        :: else ->
            if
            :: L == RECV -> recv_attempt(s)
            :: else -> send_attempt(s)
            fi
        fi
#endif
    :: s == PENDING ->                /* a peer is mid-operation on our slot */
#if FIX_PENDING
        waitlist_step_off(L, t, res); /* a wake-up held is kept for the next poll */
#else
        waitlist_unregister(L, t, res, false); /* passed on, and counted on as well */
        if
        :: res -> chan_pass_on(L)
        :: else -> skip
        fi;
#endif
        permit[t] = true;             /* zc__wake_self: poll again soon */
        registration_over(t);
        break
    :: s == OK || s == CLOSED ->
#if MUTANT_ATTEMPT_LINKED_PASS_ON
        /* a wake-up that came during this poll's registration passed on (a herd) */
        waitlist_unregister(L, t, res, false);
        if
        :: res && registered -> chan_pass_on(L)
        :: else -> skip
        fi;
#else
        waitlist_unregister(L, t, res, false); /* a wake-up held was used */
#endif
#if MUTANT_COMPLETION_PASS_ON
        if
        :: res -> chan_pass_on(L)
        :: else -> skip
        fi;
#endif
        wait_pay(L);                  /* the wakes the attempt owes, with our node off */
        registration_over(t);
        break
    od;
    /* locals back to their initial values (fewer distinct states) */
    atomic { res = false; res2 = false; done = false; registered = false; owed = 0 }
}

/* What the executor does with a PENDING future: park until woken and poll again, or
 * cancel it (at once: a timer won; or after its wake, before polling again) and then
 * either start over or give the operation up for good (quit). */
inline cancel_and_maybe_quit(L, t) {
    cancels--;
    chan_cancel(L, t);
    registration_over(t);
    atomic { res = false; res2 = false; done = false };
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
    bool res, res2, done, registered, quit;
    byte owed;
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
    bool res, res2, done, registered, quit;
    byte owed;
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

/*
 * rendezvous.pml: a Promela model of the claim protocol of selects over rendezvous
 * channels (src/rendezvous.c, src/select.c): two selects, each with a send case on one
 * channel and a receive case on the other (select s sends on channel s and receives on
 * channel 1 - s), so that they can meet on either channel and on no other partner.
 * Checked exhaustively with spin (tests/model/check.sh --model=rendezvous).
 *
 * Modelled, step by step as in the C code:
 *  - the claim word of each select: FREE, BUSY (its owner polls), POKED (BUSY, and a
 *    peer passed it over), SELF (its owner completes it), PEER + c (a peer completed
 *    its case c) (zc__rv_select_enter, _wait, _finishing, _leave; claim_case);
 *  - a poll: enter (FREE -> BUSY; a peer's claim found instead ends the selection with
 *    that case); walk the cases in either order, each attempt one step under its
 *    channel's lock (zc__rv_case_try: the partner's node, if linked, is claimed FREE ->
 *    PEER + its case and taken off the list; a BUSY partner is poked instead and passed
 *    over); register the cases not linked yet (zc__rv_case_register), each one step
 *    under its channel's lock; walk again; then wait (BUSY -> FREE) or, poked, walk the
 *    cases again (POKED -> BUSY) first (select_walks_rv);
 *  - a completion by the select's own attempt: SELF, every own node off its list, FREE
 *    (zc__rv_select_finishing, select_finish, zc__rv_select_leave); the partner, its
 *    node taken, is woken;
 *  - a select that waits (its nodes linked, its claim FREE) sleeps until a peer claims
 *    it (its waker is called once its node is taken), then takes its other node off
 *    and frees its claim (select_claimed).
 * Every step under a channel's lock is one atomic step; Promela is sequentially
 * consistent (the orderings are the C code's comments and ThreadSanitizer's business).
 *
 * Checked: every run ends with both selects done (an invalid end state is a pairing
 * lost: both waiting, neither woken); each completes exactly one case, and they met on
 * the same channel, one sending and the other receiving (P1). MUTANT_NO_POKE: a peer
 * passes a BUSY select over without poking it (its owner then waits without walking
 * again): a pairing is lost. MUTANT_CLAIM_BUSY: a peer claims a BUSY select as if it
 * were FREE: a select completes two cases.
 */

#define FREE 0
#define BUSY 1
#define POKED 2
#define SELF 3
#define PEER 4 /* PEER + case: 0 send, 1 receive */

#ifndef MUTANT_NO_POKE
#define MUTANT_NO_POKE 0
#endif
#ifndef MUTANT_CLAIM_BUSY
#define MUTANT_CLAIM_BUSY 0
#endif

byte claim[2];
bool linked[4];   /* node of select s, case c: index 2 * s + c */
byte outcomes[2]; /* cases completed by each select (by its own attempt or a peer) */
byte met[2];      /* the channel each select completed on, + 1 */

/* The channel of case c of select s: a send case (0) on channel s, a receive case (1)
 * on channel 1 - s. The partner of case (s, c) is case (1 - s, 1 - c). */
#define CHAN(s, c) ((c) == 0 -> (s) : 1 - (s))

/* One attempt of case c of select s, under the channel's lock: if the partner's node is
 * linked, claim the partner's select (FREE -> PEER + its case) and take its node; a
 * BUSY partner is poked and passed over. done: whether the attempt completed. */
inline attempt(s, c, done) {
    atomic {
        done = false;
        if
        :: linked[2 * (1 - s) + (1 - c)] ->
            if
            :: claim[1 - s] == FREE || (MUTANT_CLAIM_BUSY && claim[1 - s] == BUSY) ->
                claim[1 - s] = PEER + (1 - c);
                linked[2 * (1 - s) + (1 - c)] = false;
                outcomes[1 - s]++;
                met[1 - s] = CHAN(s, c) + 1;
                outcomes[s]++;
                met[s] = CHAN(s, c) + 1;
                done = true
            :: claim[1 - s] == BUSY && !MUTANT_NO_POKE ->
                claim[1 - s] = POKED
            :: else -> skip
            fi
        :: else -> skip
        fi
    }
}

/* A walk over both cases, in an order chosen by spin. */
inline walk(s, done) {
    if
    :: attempt(s, 0, done); if :: !done -> attempt(s, 1, done) :: else -> skip fi
    :: attempt(s, 1, done); if :: !done -> attempt(s, 0, done) :: else -> skip fi
    fi
}

/* The owner's completion: SELF, its nodes off their lists, FREE. */
inline complete(s) {
    claim[s] = SELF;
    atomic { linked[2 * s] = false };
    atomic { linked[2 * s + 1] = false };
    claim[s] = FREE
}

proctype Select(byte s) {
    bool done = false;
    atomic {
        assert(claim[s] == FREE); /* nobody can claim a select before it registers */
        claim[s] = BUSY
    };
again:
    walk(s, done);
    if
    :: done -> complete(s); goto end
    :: else -> skip
    fi;
    atomic { linked[2 * s] = true };
    atomic { linked[2 * s + 1] = true };
    walk(s, done);
    if
    :: done -> complete(s); goto end
    :: else -> skip
    fi;
    atomic {
        if
        :: claim[s] == BUSY -> claim[s] = FREE
        :: claim[s] == POKED -> claim[s] = BUSY; goto again
        fi
    };
    /* Waiting: woken once a peer has claimed it. */
    (claim[s] >= PEER);
    atomic { linked[2 * s] = false };
    atomic { linked[2 * s + 1] = false };
    claim[s] = FREE;
end:
    skip
}

init {
    atomic {
        run Select(0);
        run Select(1)
    };
    (_nr_pr == 1);
    /* P1: one case each, on the same channel. */
    assert(outcomes[0] == 1 && outcomes[1] == 1);
    assert(met[0] == met[1] && met[0] != 0);
    assert(!linked[0] && !linked[1] && !linked[2] && !linked[3])
}

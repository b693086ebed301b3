/*
 * rendezvous.h: the hand-off of a rendezvous channel (zc_rendezvous), a channel with no
 * buffer: a send completes only when a receiver takes its message, at that moment.
 *
 * Who waits where (each a waiter list, waitlist.h):
 *   offers   send futures (zc_send; a blocking send runs one): the message stays in the
 *            sender's memory, and a receiver that takes it completes the send;
 *   asking   receive futures (zc_recv): they have no place for a message until their next
 *            poll, so they wait to be woken by an offer and then take it themselves; a
 *            try_send, which cannot wait, leaves its message instead in a block of the
 *            channel's on the held list (zc__rv_held) and wakes one of them: every
 *            receive takes the held messages first, oldest first, so the first receiver
 *            to act takes it and the channel's one order holds. Held messages exist only
 *            while no taker or select place waits (those are filled at once);
 *   takers   blocking receives (zc__rv_taker), with their place: a sender puts its
 *            message there, and that completes the receive;
 *   sel_send, sel_recv  select cases, offers and takers: a peer completes one only after
 *            claiming its whole select (zc__rv_claim), so a select completes one case.
 * The channel's own send and receive waiter lists are offers and asking; the others are
 * the hand-off's. Every look for a partner and every registration is made under the
 * hand-off's lock, so of two parties that can pair, the one that looks later finds the
 * other; the message is copied under it (as Go copies under the channel's lock) and the partner's
 * wake is made after it (waker rule 2), by zc__waitlist_wake_taken.
 *
 * A select mid-poll (its claim word BUSY) cannot be claimed: every peer passes it over
 * (its operation is in progress, so it is not waiting yet). A peer that then waits
 * pokes it first, and the select walks its cases again before it waits, finding that
 * peer registered; a try does not poke (it leaves nothing to find).
 *
 * Sources: Go's unbuffered channels (runtime/chan.go: the sender and receiver queues of
 * sudogs, sendDirect and recvDirect, select's selectDone claim); crossbeam-channel's
 * flavors/zero.rs (a packet per waiting operation, a select's context claimed once).
 */
#ifndef ZCHAN_SRC_RENDEZVOUS_H
#define ZCHAN_SRC_RENDEZVOUS_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/mpmc.h>
#include <zchan/select.h>

#include "atomic.h"
#include "queue/queue.h"
#include "waitlist.h"

#include <zchan/bits/fast.h> /* zc__send_done, zc__send_set_done */

/* A message a try_send left for a receive future asking (rendezvous.c), in a block of
 * the channel's, on the held list until a receiver takes it. */
typedef struct zc__rv_held {
    struct zc__rv_held *next;
    unsigned char msg[];
} zc__rv_held;

typedef struct zc__rv {
    atomic_bool locked;
    size_t elem_size;
    const zc__queue *q;   /* the channel's queue, which holds nothing: its close mark */
    zc__waitlist *offers; /* the channel's senders' list */
    zc__waitlist *asking; /* the channel's receivers' list */
    zc__waitlist takers;
    zc__waitlist sel_send;
    zc__waitlist sel_recv;
    zc__rv_held *held_head, *held_tail; /* oldest first; under the lock */
} zc__rv;

/* A blocking receive's waiter: a taker with its place. Caller memory (block.c's stack). */
typedef struct zc__rv_taker {
    zc__waiter node; /* first: the list's node is the taker */
    zc__rv *rv;
    void *out;
    bool done; /* a sender put its message in out; written under the lock */
} zc__rv_taker;

/* Set up rv for a channel whose queue q, senders' list offers and receivers' list asking
 * it uses, of elem_size-byte messages. */
void zc__rv_init(zc__rv *rv, const zc__queue *q, zc__waitlist *offers, zc__waitlist *asking,
                 size_t elem_size);
/* After the close mark is set: wake every taker and select case (the channel wakes its
 * own lists). */
void zc__rv_close(zc__rv *rv);
/* After the last receiver's drop: every message held for receivers to drop (if not
 * NULL), and freed. One thread. */
void zc__rv_discard(zc__rv *rv, void (*drop)(void *msg, void *ctx), void *ctx);
/* The hand-off's lists, for the checked build's look at futures left pending. */
void zc__rv_lists(zc__rv *rv, zc__waitlist *lists[3]);

/* A send future's completion (zc__send_done, zc__send_set_done) is zchan/bits/fast.h's:
 * a receiver that takes an offer writes it, under the lock. */

/* The operations, for the public calls that found their channel a rendezvous one
 * (arguments checked by the caller). Statuses as those calls document. */
zc_status zc__rv_try_send(zc__rv *rv, const void *msg);
zc_status zc__rv_try_recv(zc__rv *rv, void *out);
zc_status zc__rv_send_poll(zc__rv *rv, zc_send *f, const zc_waker *w);
void zc__rv_send_cancel(zc__rv *rv, zc_send *f);
zc_status zc__rv_recv_poll(zc__rv *rv, zc_recv *f, const zc_waker *w, void *out);
void zc__rv_recv_cancel(zc__rv *rv, zc_recv *f);

/* A blocking receive: init, then polls, and a cancel that says how it ended: ZC_OK if a
 * sender had completed it (its message is in out), else ZC_TIMEDOUT (nothing taken). */
void zc__rv_taker_init(zc__rv_taker *k, zc__rv *rv, void *out);
zc_status zc__rv_taker_poll(zc__rv_taker *k, const zc_waker *w);
zc_status zc__rv_taker_cancel(zc__rv_taker *k);

/* ---- Select (select.c) ------------------------------------------------------------
 * A select with a rendezvous case guards its completion with a claim word (rendezvous.c)
 * kept in its zc__flags beside the flags: read the flags with zc__rv_select_flags. */
unsigned zc__rv_select_flags(const zc_select *s);
/* What zc_select_init keeps for flags (the claim FREE), or for flags with a bit it does
 * not know a mark that zc__rv_select_bad finds. */
unsigned zc__rv_select_init_flags(unsigned flags);
bool zc__rv_select_bad(const zc_select *s);
/* The most cases a select with a rendezvous case may have (the claim names one). */
size_t zc__rv_select_max_cases(void);
/* The owner starts a poll (busy) or a cancel: true, the select is the owner's until
 * zc__rv_select_leave; false if a peer completed case *claimed (it stays claimed). */
bool zc__rv_select_enter(zc_select *s, bool busy, size_t *claimed);
/* A poll that registered its cases is about to return ZC_PENDING: true, peers may claim
 * it now; false if a peer passed it over meanwhile: walk the cases again first (it is
 * still the owner's). */
bool zc__rv_select_wait(zc_select *s);
/* The owner completes a case: peers pass the select over from here on. */
void zc__rv_select_finishing(zc_select *s);
/* The owner is done with its nodes: the claim word is FREE. */
void zc__rv_select_leave(zc_select *s);
/* Whether a peer completed a case (its index in *index), with what it wrote (acquire). */
bool zc__rv_select_claimed(const zc_select *s, size_t *index);

/* One attempt of select case c (recv: a receive case) of select s on a rendezvous
 * channel: ZC_OK with *t naming the partner to wake (zc__rv_wake_partner, once the
 * select has called zc__rv_select_finishing), ZC_CLOSED, or ZC_EMPTY / ZC_FULL. s's own
 * cases are never its partners. */
zc_status zc__rv_case_try(zc__rv *rv, zc_select_case *c, const zc_select *s, bool recv,
                          zc__taken *t);
/* Wake the partner a look took, if it took one (a held message has none). */
void zc__rv_wake_partner(const zc__taken *t);
/* Register c (of s) as an offer or a place, with waker w. Returns true if it was not
 * linked: a send case's new offer, for which the select wakes a receive future asking
 * (zc__rv_wake_asking) once peers may claim it. */
bool zc__rv_case_register(zc__rv *rv, zc_select_case *c, const zc_select *s, bool recv,
                          const zc_waker *w);
/* The list a case of that kind waits on. */
zc__waitlist *zc__rv_case_list(zc__rv *rv, bool recv);
/* Wake one receive future asking, for an offer it can take now. */
void zc__rv_wake_asking(zc__rv *rv);

#endif /* ZCHAN_SRC_RENDEZVOUS_H */

/*
 * chan.h: the channel object behind zc_sender / zc_receiver handles, shared by
 * chan.c (handles, counts, close, drop_msg, try ops) and future.c (futures).
 *
 * A channel is one allocation: the queue (ring or segmented), one waiter list per side,
 * the handle counts, and the two handle structs that zc_sender* / zc_receiver* point at
 * (handles are counted, so cloning allocates nothing and cannot fail).
 */
#ifndef ZCHAN_SRC_CHAN_H
#define ZCHAN_SRC_CHAN_H

#include <stdbool.h>
#include <stddef.h>

#include <zchan/mpmc.h>

#include "atomic.h"
#include "park.h"
#include "ring.h"
#include "segq.h"
#include "waitlist.h"

typedef struct zc__chan zc__chan;

struct zc_sender {
    zc__chan *ch;
};
struct zc_receiver {
    zc__chan *ch;
};

struct zc__chan {
    union {
        zc__ring ring;  /* bounded */
        zc__segq segq;  /* unbounded */
    } q;
    zc__waitlist recv_waiters; /* receivers waiting for a message or close */
    zc__waitlist send_waiters; /* senders waiting for a free slot or close (bounded) */
    zc__waitlist close_waiters; /* zc_sender_closed / zc_receiver_closed: close only */
    /* Handle counts, touched by clone/drop only. */
    ZC_CACHE_ALIGNED _Atomic size_t senders;
    _Atomic size_t receivers;
    _Atomic size_t handles; /* senders + receivers: the last one frees the channel */
    bool bounded;
    bool ring8; /* bounded, with 8-byte messages: the first attempts' inline path */
    bool seg8;  /* unbounded, with 8-byte messages: likewise */
    size_t elem_size;
    void (*drop_msg)(void *msg, void *ctx);
    void *drop_ctx;
    struct zc_sender tx;
    struct zc_receiver rx;
};

/* Whether tx is a sender handle (not NULL, and not a receiver cast to zc_sender *: both
 * kinds live in the channel, at different places). For the calls that change the
 * handle counts (mpmc.h: the clones and the drops), where a cast handle would close a
 * channel or discard its messages early. */
static inline bool zc__is_sender(const zc_sender *tx) { return tx && tx == &tx->ch->tx; }
static inline bool zc__is_receiver(const zc_receiver *rx) { return rx && rx == &rx->ch->rx; }

/* The wakes owed to waiting senders for n slots freed on a bounded channel (plus one for
 * each hole the call left at head, skipped first), or to waiting receivers for n
 * messages made receivable, after the seq_cst claims that freed or made them ([F1]):
 * one waiter woken for each while waiters are linked (zc__waitlist_notify_n). */
void zc__chan_wake_senders(zc__chan *ch, size_t n);
void zc__chan_wake_receivers(zc__chan *ch, size_t n);

/* [F1] after a send: its claim was a seq_cst RMW; now look for a waiting receiver, and
 * wake it. */
static inline void zc__chan_wake_receiver(zc__chan *ch) {
    if (zc__waitlist_has_waiters(&ch->recv_waiters)) zc__chan_wake_receivers(ch, 1);
}

/* [F1] after a receive freed a slot with a seq_cst claim: wake a waiting sender, as
 * zc__chan_wake_receiver. */
static inline void zc__chan_wake_sender(zc__chan *ch) {
    if (zc__waitlist_has_waiters(&ch->send_waiters)) zc__chan_wake_senders(ch, 1);
}

/* One send attempt without its wake: ZC_OK, ZC_FULL, ZC_CLOSED, ZC_ENOMEM, or
 * ZC_PENDING (a receiver is mid-release on the slot we need, or a sender is installing
 * the next segment; try again soon). On ZC_OK one wake-up is owed to a waiting receiver:
 * added to *owed, for the caller to make with zc__chan_wake_receiver before it returns.
 * Select (select.c) makes it only once its own nodes are off the lists, so that its send
 * case never wakes its own receive case on the same channel; zc__chan_send at once. */
static inline zc_status zc__chan_send_quiet(zc__chan *ch, const void *msg, unsigned *owed) {
    zc_status s = ch->bounded ? zc__ring_push(&ch->q.ring, msg) : zc__segq_push(&ch->q.segq, msg);
    if (s == ZC_OK) ++*owed;
    return s;
}

/* One receive attempt without its wakes: ZC_OK, ZC_EMPTY (also while a reservation holds
 * the next place), ZC_CLOSED, or ZC_PENDING (a sender is mid-write on the next slot, or a
 * receiver is moving head to the next segment). Holes left by released reservations are
 * skipped on the way. Each slot freed (the message's, a skipped hole's) owes a wake-up to
 * a waiting sender: added to *owed, whatever the status, for zc__chan_wake_sender (as
 * zc__chan_send_quiet). */
static inline zc_status zc__chan_recv_quiet(zc__chan *ch, void *out, unsigned *owed) {
    if (!ch->bounded) return zc__segq_pop(&ch->q.segq, out); /* no sender ever waits */
    zc_status s = zc__ring_pop(&ch->q.ring, out);
    for (; s == ZC__RING_SKIPPED; s = zc__ring_pop(&ch->q.ring, out)) ++*owed;
    if (s == ZC_OK) ++*owed;
    return s;
}

/* One send attempt, waking a receiver on success (zc__chan_send_quiet's statuses). */
static inline zc_status zc__chan_send(zc__chan *ch, const void *msg) {
    unsigned owed = 0;
    zc_status s = zc__chan_send_quiet(ch, msg, &owed);
    if (owed) zc__chan_wake_receiver(ch);
    return s;
}

/* One receive attempt, waking a sender for each slot it freed (zc__chan_recv_quiet's
 * statuses). */
static inline zc_status zc__chan_recv(zc__chan *ch, void *out) {
    unsigned owed = 0;
    zc_status s = zc__chan_recv_quiet(ch, out, &owed);
    if (owed) zc__chan_wake_senders(ch, owed); /* a call only when a slot was freed */
    return s;
}


/* The first attempt alone (the ring's or the segmented queue's inline fast path), waking
 * a waiting peer on success as zc__chan_send / recv do: true if the message went
 * through; false for anything else, with nothing changed, so the caller goes on with
 * the full attempt. The futures' fast paths (future.c). */
static inline bool zc__chan_send_fast(zc__chan *ch, const void *msg) {
    bool sent = ch->bounded ? zc__ring_push_fast(&ch->q.ring, msg)
                            : zc__segq_push_fast(&ch->q.segq, msg);
    if (!sent) return false;
    zc__chan_wake_receiver(ch);
    return true;
}

static inline bool zc__chan_recv_fast(zc__chan *ch, void *out) {
    if (!ch->bounded) return zc__segq_pop_fast(&ch->q.segq, out); /* no sender ever waits */
    if (!zc__ring_pop_fast(&ch->q.ring, out)) return false;
    zc__chan_wake_sender(ch);
    return true;
}

/* The public first attempts (zc_send_poll, zc_recv_poll, zc_try_send, zc_try_recv) on a
 * ring8 channel inline zc__ring_push_first / pop_first with the constant 8, whose copy is
 * one move: the attempt makes no call, so the function saves no register (gcc places a
 * prologue at entry, for every path), and zc__chan_sent / received make the wake of a
 * waiting peer ([F1]) a tail call. A seg8 channel inlines zc__segq_push_first /
 * pop_first the same way (a receive that finds its sender still writing goes on out of
 * line: zc__segq_pop_finish). Every other channel goes on to an out-of-line function with
 * the general attempt. Callgrind, bench rows 1 and 3 (bounded, 8-byte messages): 175 ->
 * 141 and 131 -> 103 instructions a send+receive pair (session 16); rows 2 and 4
 * (unbounded): 203 -> 214 and 166 -> 181 with the ring path alone, 174 and 139 with the
 * segment path too, which costs rows 1 and 3 a saved register in zc_recv_poll (141 ->
 * 144, 103 -> 104; time level). */
zc_status zc__chan_sent_wake(zc__chan *ch);     /* wakes a receiver; ZC_OK */
zc_status zc__chan_received_wake(zc__chan *ch); /* wakes a sender; ZC_OK */

static inline zc_status zc__chan_sent(zc__chan *ch) {
    return zc__waitlist_has_waiters(&ch->recv_waiters) ? zc__chan_sent_wake(ch) : ZC_OK;
}

static inline zc_status zc__chan_received(zc__chan *ch) {
    return zc__waitlist_has_waiters(&ch->send_waiters) ? zc__chan_received_wake(ch) : ZC_OK;
}

/* The attempts of a blocking call's spin before it parks (block.c): on a bounded channel
 * only the first attempt (zc__chan_send_fast / recv_fast), which reads the caller's own
 * index and its slot and never the peer's index, so that the peer's claim and publish
 * stay in its own cache. ZC_OK, ZC_CLOSED (send only: the close mark is on tail, the
 * senders' own line), or ZC_FULL / ZC_EMPTY for "not now" (a receive on a closed channel
 * too: the full attempt after the spin tells). An unbounded channel makes its full
 * attempt. */
static inline zc_status zc__chan_send_spin(zc__chan *ch, const void *msg) {
    if (!ch->bounded) return zc__chan_send(ch, msg);
    if (zc__chan_send_fast(ch, msg)) return ZC_OK;
    return zc__ring_is_closed(&ch->q.ring) ? ZC_CLOSED : ZC_FULL; /* tail: our own line */
}

static inline zc_status zc__chan_recv_spin(zc__chan *ch, void *out) {
    if (!ch->bounded) return zc__chan_recv(ch, out);
    return zc__chan_recv_fast(ch, out) ? ZC_OK : ZC_EMPTY;
}

/* A blocking call's spin before it registers and parks (block.c): first it watches the
 * slot it needs for ZC__SPIN_WATCH_NS, attempting each time the slot changes or a round
 * of pauses (1, 2, 4, then 8) ends; then it yields the CPU ZC__SPIN_YIELDS times
 * (zc__yield, which may nap: park.h), attempting after each; then, while its CPU has no
 * other thread to run, it goes on yielding for ZC__SPIN_ALONE_NS (the lone stage, below).
 *
 * The watch is timed, not counted: a pause takes 21 ns on the AMD EPYC Firecracker guest
 * and about twice that on the Xeon VM, and a yield 1.2-1.3 µs there against 0.38 µs
 * (every system call costs about 1 µs there). Counted as 4 rounds of 1-8 pauses (15
 * pauses), the watch ended after 0.3 µs on the EPYC, before a partner thread's reply (two
 * threads bouncing a flag, no channel, take 0.6-1.9 µs a round trip there), and nearly
 * every wait went on to yields: two threads bouncing a message (bench row 15-threads)
 * took 1.9 µs a round trip. Watching 0.5 µs, against the counted watch, on the EPYC (with
 * park.c's yield check), 150 interleaved runs, medians of the per-run ratios: row
 * 15-threads x0.41 (medians 1.69 and 0.55 µs; its runs are bimodal), row 10 x0.78, row 5
 * x0.72, row 12 x0.92, rows 6 and 11 x1.00 and x1.04. Longer watches cost the
 * oversubscribed row 12 (4 sender threads, 1 receiver, on 2 vCPUs), whose waiting senders
 * keep the CPU from the receiver: 1 µs x1.03, 2 µs x1.30 (row 5 x0.65 and x0.57). */
#define ZC__SPIN_WATCH_NS 500u
#define ZC__SPIN_YIELDS 10u

/* The lone stage: after its ZC__SPIN_YIELDS yields, a blocking call goes on yielding and
 * attempting for up to this long (50 µs), each yield checked (zc__yield_ran_another); the
 * first yield that ran another thread on its CPU ends the stage, and the call parks after
 * the attempt that follows it. So it spins on only where it takes a CPU from nobody.
 *
 * Why: a parked thread wakes late. On the 2-vCPU AMD EPYC Firecracker guest a FUTEX_WAKE
 * from a spinning thread ran the sleeper on the other, idle vCPU 24, 30 and 39 µs later
 * (10th, 50th and 90th percentiles of 2000; 62 µs the 99th), and the ten yields take
 * about 12 µs there. One sender and one receiver thread at capacity 16 (bench row 10)
 * fell into a pattern where each side, having woken the other, filled or drained the 16
 * slots and parked before the other had even begun to run: two wake-ups each 16
 * messages, 1265 context switches in a run of 5.4 ms against 11 in one of 0.48 ms, and
 * a run stayed in the pattern once in it. Measured there against the ten yields alone,
 * two sets of 40 interleaved runs (`zchan_bench --rows 5,6,10,11,12,15-threads --runs 1
 * --impls zchan`; medians, and the slowest run): row 10 0.36 -> 0.45 and 0.36 -> 0.25 ms
 * (its runs fall in three modes; the slowest 10.9 -> 1.23 and 5.8 -> 0.71 ms), row
 * 15-threads 200 -> 186 and 207 -> 184 ns a round trip, row 5 1.34 -> 1.25 and 1.32 ->
 * 1.15 ms, row 6 1.98 -> 1.89 and 2.30 -> 2.14, row 11 0.243 -> 0.232 and 0.195 ->
 * 0.179, row 12 4.69 -> 4.77 and 4.58 -> 4.11; a lone stage of 25 µs left row 10's
 * slowest at 3.3 ms, one of 100 µs was like 50. Unchecked yields for 50 µs made row 5 (8
 * threads on 2 vCPUs, whose yields ran the other waiting threads) 1.38 -> 3.3 ms. The
 * cost: a call that waits long on an idle machine spends some 50-100 µs more of a CPU
 * nobody wanted before it sleeps (a break trial: 77-102 µs of thread CPU for a blocking
 * receive that slept 1 s, against 26-38 µs for a bare futex wait). */
#define ZC__SPIN_ALONE_NS 50000u

/* Two more ends to the spin, found by a break trial (session 22):
 * - A bounded receive's attempts do not see a close (see below): after a yield of the
 *   first stage that took this long (200 µs), which gave a busy thread on this CPU its
 *   time slice (0.75-4 ms; a bare yield takes 0.4-3.6 µs, a nap about 70 µs), it looks
 *   for the close again, and if closed the spin ends. It looked only before the first
 *   yield, and a close made during the spin was told 10-48 ms late, after one to ten
 *   slices. (Ending every spin at such a yield cost the oversubscribed rows: 40
 *   interleaved runs, medians, row 12 4.01 -> 5.13 ms, row 5 1.16 -> 1.34.)
 * - A thread under a real-time or SCHED_IDLE policy (zc__thread_shares_fairly) skips the
 *   lone stage: its yields never run a partner of lower priority on its CPU, so they never
 *   count as running another thread, and the stage starved that partner for its whole 50
 *   µs at every wait (2000 messages between a SCHED_FIFO receiver and a normal sender
 *   pinned to one CPU: 68-78 µs a message, against 18-25 with the ten yields alone). */
#define ZC__SPIN_SLICE_NS 200000u

typedef struct zc__spin {
    unsigned rounds;       /* watch rounds made */
    unsigned yields;       /* yields made, of both stages */
    bool over;             /* the attempt after the last yield is the last one */
    uint64_t watch_end_ns; /* zc__clock_ns() when the watch ends, set at the first round */
    uint64_t alone_end_ns; /* when the lone stage ends, set at its first yield */
} zc__spin;

#define ZC__SPIN_INIT {0, 0, false, 0, 0}

/* Back off between two of those attempts; false once the spin is over (the caller
 * registers and parks). A bounded channel's rounds watch the slot the call needs
 * (zc__ring_watch) and end as soon as it changes; an unbounded one's pause. */
static inline bool zc__chan_snooze(zc__chan *ch, zc__spin *sp, bool recv) {
    if (sp->over) return false;
    if (sp->yields == 0) {
        uint64_t now = zc__clock_ns();
        if (sp->rounds == 0) sp->watch_end_ns = now + ZC__SPIN_WATCH_NS;
        if (now < sp->watch_end_ns) {
            unsigned pauses = 1u << (sp->rounds < 3 ? sp->rounds : 3);
            sp->rounds++;
            if (ch->bounded) {
                zc__ring *r = &ch->q.ring;
                zc__ring_watch(r, recv ? &r->head : &r->tail, pauses);
            } else {
                for (unsigned i = 0; i < pauses; i++) zc__cpu_relax();
            }
            return true;
        }
    }
    if (sp->yields >= ZC__SPIN_YIELDS) { /* the lone stage */
        uint64_t now = zc__clock_ns();
        if (sp->yields == ZC__SPIN_YIELDS) {
            if (!zc__thread_shares_fairly()) return false;
            sp->alone_end_ns = now + ZC__SPIN_ALONE_NS;
        } else if (now >= sp->alone_end_ns) {
            return false;
        }
        sp->yields++;
        sp->over = zc__yield_ran_another();
        return true;
    }
    /* A bounded receive's attempts never read tail, where the close mark is: look for it
     * before the first yield, so that a channel closed and drained before the call is
     * told by the poll after the spin without the yields, each of which may give a busy
     * thread a time slice; and after a yield that did (ZC__SPIN_SLICE_NS). (Before every
     * yield, the senders' line pulled away that often cost rows 10-12 x1.09-1.23.) */
    if (recv && sp->yields == 0 && ch->bounded && zc__ring_is_closed(&ch->q.ring))
        return false;
    sp->yields++;
    if (!(recv && ch->bounded)) {
        zc__yield();
        return true;
    }
    uint64_t before = zc__clock_ns();
    zc__yield();
    if (zc__clock_ns() - before >= ZC__SPIN_SLICE_NS) /* it gave away a slice */
        sp->over = zc__ring_is_closed(&ch->q.ring);
    return true;
}

/* Whether a waiting sender could send now, for passing a wake-up on to one: the channel
 * is bounded (no sender waits otherwise), open, and has a free slot. (Once closed, the
 * close has woken every waiter.) */
bool zc__chan_send_room(zc__chan *ch);

/* The self-wake of a poll whose attempt met a peer mid-operation (a slot claimed and not
 * yet published or released, a segment being installed): it asks to be polled again
 * soon by calling its own waker. The waker contract lets an executor poll from inside
 * that wake; had that poll met the same stall and woken itself again, every round would
 * nest one poll and one wake deeper for as long as the peer stalls (a stack overflow
 * after a 200 ms stall in a break test). So zc__wake_self counts the self-wakes this
 * thread is inside, and a poll made from inside one (zc__in_self_wake) waits the peer out
 * with a backoff instead, as zc_try_send does. */
void zc__wake_self(const zc_waker *w);
bool zc__in_self_wake(void);

/* Whether the channel is closed (seq_cst: usable as the re-check half of a wait). */
bool zc__chan_is_closed(zc__chan *ch);

/* Take a receive / send waiter node off its list for a cancel: a wake-up it held and
 * did not use is passed on if a peer of its kind could use one now (waker rule 4). An
 * operation that ends otherwise (it completed, or waits again) has used its wake-up and
 * only unregisters (zc__waitlist_unregister). */
void zc__chan_cancel_recv(zc__chan *ch, zc__waiter *node);
void zc__chan_cancel_send(zc__chan *ch, zc__waiter *node);

/* The passing-on half of those: wake one waiting receiver / sender if one is linked and
 * could make progress now. For a caller that takes several nodes off first (select, so
 * that a wake-up one of its nodes held is never passed to another of its own). */
void zc__chan_pass_on_recv(zc__chan *ch);
void zc__chan_pass_on_send(zc__chan *ch);

#endif /* ZCHAN_SRC_CHAN_H */

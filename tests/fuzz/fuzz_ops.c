/*
 * fuzz_ops: a libFuzzer target that turns its input into a sequence of operations on
 * one MPMC channel, on one thread, and checks every result against a small reference
 * model of the contract (spec/api.md).
 *
 * Input: byte 0 chooses the channel (bounded with an odd capacity, or unbounded; an
 * element size from 1 to 257 bytes; drop_msg on or off); then each op is one byte
 * (the low 4 bits: which op; the high 4 bits: which handle or future slot), followed by
 * nothing else. Ops: try_send, try_recv, start/poll/cancel a send future, start/poll/
 * cancel a receive future (four slots each, each with its own counting waker), clone
 * or drop a sender or receiver handle, close from either side, zero-timeout blocking
 * send/recv, bad-argument calls, "new channel" (drop everything, start again), and the
 * two-phase send (four permit slots: try_reserve, zero-timeout reserve, commit, release).
 *
 * Checked after every op (abort() with a message on the first difference):
 *  - status codes: ZC_FULL only at cap messages, ZC_EMPTY only with none held,
 *    ZC_CLOSED exactly when closed (and, for receives, drained), a pending send future
 *    only on a full bounded channel, a pending receive future only on an empty one;
 *    ZC_TIMEDOUT for zero-timeout calls that would wait; ZC_EINVAL for bad arguments;
 *  - exactly once and FIFO: every message received is the oldest one the model holds,
 *    byte for byte; a cancelled or refused send leaves its message untouched; a bounded
 *    reservation holds its place in the order (receivers see ZC_EMPTY while it is next),
 *    a released one is a hole that the next receive skips (at once if it was next);
 *  - drop_msg: called only while the last receiver is dropped, once for each message
 *    left (compared as a multiset of payloads), never for a cancelled or refused send;
 *  - zc_*_info: len, capacity, handle counts, closed;
 *  - the waker contract on one thread: no wake of a future that is not pending (after
 *    it completed or was cancelled); at most one wake per registration; at most one
 *    receiver and one sender woken by any op but close and the last drops; close wakes
 *    every pending future; and no lost wake-up: while k messages can be received and p
 *    receive futures are pending, at least the fewer of k and p pending receive futures
 *    have a wake they have not yet been polled for, and likewise for free slots and send
 *    futures (waker rule 4: one a message or slot, whatever the waiters woken before);
 *    a receive that skipped holes may wake one sender per slot it freed. A receive that leaves holes at the front while senders are
 *    registered skips them (their slots are free for any sender), so a free slot held by
 *    a hole at the front cannot strand a sender.
 * Whatever the channel allocated must be freed once every handle is dropped (LeakSanitizer).
 *
 * Built with clang -fsanitize=fuzzer (tests/fuzz/run.sh). With FUZZ_STANDALONE defined
 * it has its own main instead, for compilers without libFuzzer: it runs the files named
 * on the command line, then (with -r N) N inputs from a fixed pseudo-random sequence.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zchan/block.h>
#include <zchan/mpmc.h>
#include <zchan/permit.h>

#define HANDLES 4 /* sender and receiver handle slots */
#define FUTURES 4 /* send and receive future slots */
#define PERMITS 4 /* permit slots */
#define MAX_MSGS 8192
#define MAX_ELEM 257

static const size_t caps[] = {1, 2, 3, 5, 7, 31, 32, 33, 100};
static const size_t elem_sizes[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, MAX_ELEM};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_ops: op %zu (byte 0x%02x): ", ops_done, op_byte);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static size_t ops_done;
static unsigned op_byte; /* the op running, for the message of a failed CHECK */

/* The payload of message id: its bytes say which message it is (as far as elem_size
 * allows) and differ from one position to the next. */
static void payload(uint32_t id, size_t elem_size, unsigned char *out) {
    for (size_t i = 0; i < elem_size; i++)
        out[i] = (unsigned char)((id >> (8 * (i % 4))) ^ (i * 0x9d));
}

/* ---- the reference model ---- */

/* What a place in a bounded channel's order holds. */
enum { E_MSG, E_RESERVED, E_HOLE };

typedef struct model {
    bool exists;
    bool bounded;
    size_t cap, elem_size;
    bool with_drop;
    uint32_t queue[MAX_MSGS]; /* ids held, oldest at head */
    unsigned char kind[MAX_MSGS]; /* E_MSG, or (bounded) a reservation or a hole */
    size_t head, len;
    size_t popped;      /* places taken off the front so far: the head's absolute number */
    size_t holes_skipped; /* by the current op */
    uint32_t next_id;
    bool closed;
    size_t senders, receivers; /* live handles */
} model;

/* A future slot: its channel handle slot, its waker's count, and what it last saw. */
typedef struct future_slot {
    bool pending;      /* its last poll returned ZC_PENDING, not cancelled since */
    bool completed;    /* a send future that returned ZC_OK or ZC_CLOSED */
    unsigned handle;   /* index of the handle it was started on */
    unsigned wakes;    /* calls of its waker */
    unsigned seen;     /* wakes when it was last polled or cancelled */
    uint32_t id;       /* a send future's message */
    unsigned char msg[MAX_ELEM];
    zc_send send;
    zc_recv recv;
} future_slot;

/* A permit slot: its place (bounded: absolute number in the order) and handle. */
typedef struct permit_slot {
    bool held;
    bool abandoned; /* the last receiver's drop came while it was held */
    size_t place;
    unsigned handle;
    zc_permit p;
} permit_slot;

static struct {
    model m;
    permit_slot ps[PERMITS];
    zc_sender *tx[HANDLES];
    zc_receiver *rx[HANDLES];
    future_slot sf[FUTURES], rf[FUTURES];
    /* drop_msg: allowed only inside the last receiver's drop; compared as a multiset */
    bool drop_allowed;
    size_t dropped;
    uint32_t expect_drop[MAX_MSGS];
    size_t expect_drops;
} S;

static void wake_count(void *ctx) { ((future_slot *)ctx)->wakes++; }

static zc_waker waker_of(future_slot *f) {
    zc_waker w = {wake_count, f};
    return w;
}

static void on_drop(void *msg, void *ctx) {
    (void)ctx;
    CHECK(S.drop_allowed, "drop_msg called outside the last receiver's drop");
    unsigned char want[MAX_ELEM];
    for (size_t i = 0; i < S.expect_drops; i++) {
        payload(S.expect_drop[i], S.m.elem_size, want);
        if (memcmp(want, msg, S.m.elem_size) == 0) {
            S.expect_drop[i] = S.expect_drop[--S.expect_drops];
            S.dropped++;
            return;
        }
    }
    CHECK(false, "drop_msg got a message the channel did not hold (or got it twice)");
}

/* Holes at the front: their slots are free for any sender (a send attempt skips them),
 * and the channel may have skipped them already where the model has not (a woken
 * sender's pass-on skips them too: zc__chan_pass_on_send). */
static size_t front_holes(void) {
    size_t n = 0;
    while (n < S.m.len && S.m.kind[(S.m.head + n) % MAX_MSGS] == E_HOLE) n++;
    return n;
}

static size_t free_slots(void) {
    return S.m.bounded ? S.m.cap - S.m.len + front_holes() : SIZE_MAX;
}

static size_t model_index(size_t place) { return (S.m.head + (place - S.m.popped)) % MAX_MSGS; }

/* Append a place of the given kind; returns its absolute number. */
static size_t model_push_kind(uint32_t id, unsigned char kind) {
    CHECK(S.m.len < MAX_MSGS, "model overflow");
    size_t place = S.m.popped + S.m.len;
    S.m.queue[model_index(place)] = id;
    S.m.kind[model_index(place)] = kind;
    S.m.len++;
    return place;
}

static void model_push(uint32_t id) { model_push_kind(id, E_MSG); }

static uint32_t model_pop(void) {
    uint32_t id = S.m.queue[S.m.head];
    S.m.head = (S.m.head + 1) % MAX_MSGS;
    S.m.len--;
    S.m.popped++;
    return id;
}

/* A receive attempt first skips the holes at the front, freeing their slots. */
static void model_skip_holes(void) {
    while (S.m.len > 0 && S.m.kind[S.m.head] == E_HOLE) {
        model_pop();
        S.m.holes_skipped++;
    }
}

/* Messages a receiver could take now: those before the first reservation. */
static size_t receivable(void) {
    size_t n = 0;
    for (size_t i = 0; i < S.m.len; i++) {
        unsigned char k = S.m.kind[(S.m.head + i) % MAX_MSGS];
        if (k == E_RESERVED) break;
        n += k == E_MSG;
    }
    return n;
}

/* What a send attempt must return now: ZC_OK, ZC_FULL or ZC_CLOSED. A send that needs
 * the slot of the oldest place finds it a hole: it skips it and takes the slot. */
static zc_status expected_send(void) {
    if (S.m.closed) return ZC_CLOSED;
    if (S.m.bounded && S.m.len == S.m.cap) {
        if (S.m.kind[S.m.head] != E_HOLE) return ZC_FULL;
        model_pop();
    }
    return ZC_OK;
}

static zc_status expected_recv(void) {
    model_skip_holes();
    if (S.m.len > 0) return S.m.kind[S.m.head] == E_MSG ? ZC_OK : ZC_EMPTY;
    return S.m.closed ? ZC_CLOSED : ZC_EMPTY;
}

/* Whether a receive owes waiting senders a wake now: a send future is registered
 * (pending and not woken since it was last polled: a woken node is off the list). Only
 * then does a receive skip the holes it leaves. */
static bool sender_wake_owed(void) {
    for (unsigned i = 0; i < FUTURES; i++)
        if (S.sf[i].pending && S.sf[i].wakes == S.sf[i].seen) return true;
    return false;
}

/* A receive took the oldest message. If it owed waiting senders a wake when it was
 * called (owed: sender_wake_owed then), it skips the holes it left at the front: their
 * slots are free for any sender, and each owes a registered sender a wake. */
static void check_received(const unsigned char *got, bool owed) {
    unsigned char want[MAX_ELEM];
    payload(model_pop(), S.m.elem_size, want);
    CHECK(memcmp(want, got, S.m.elem_size) == 0, "received a message out of order");
    if (S.m.bounded && owed) model_skip_holes();
}

/* ---- handles ---- */

static int live_tx(unsigned pick) {
    for (unsigned k = 0; k < HANDLES; k++)
        if (S.tx[(pick + k) % HANDLES]) return (int)((pick + k) % HANDLES);
    return -1;
}

static int live_rx(unsigned pick) {
    for (unsigned k = 0; k < HANDLES; k++)
        if (S.rx[(pick + k) % HANDLES]) return (int)((pick + k) % HANDLES);
    return -1;
}

static void check_info(void) {
    if (!S.m.exists) return;
    zc_info info;
    int t = live_tx(0), r = live_rx(0);
    zc_status st = t >= 0 ? zc_sender_info(S.tx[t], &info) : zc_receiver_info(S.rx[r], &info);
    CHECK(st == ZC_OK, "info gave %s", zc_status_str(st));
    CHECK(info.len <= S.m.len && info.len >= S.m.len - front_holes(),
          "info.len %zu, model %zu (%zu holes at the front)", info.len, S.m.len, front_holes());
    CHECK(info.capacity == (S.m.bounded ? S.m.cap : SIZE_MAX), "info.capacity");
    CHECK(info.senders == S.m.senders, "info.senders %zu, model %zu", info.senders,
          S.m.senders);
    CHECK(info.receivers == S.m.receivers, "info.receivers");
    CHECK(info.closed == S.m.closed, "info.closed");
}

/* ---- futures ---- */

/* Poll send future slot i; it must be started. */
static void poll_send(future_slot *f) {
    zc_waker w = waker_of(f);
    bool was_completed = f->completed;
    zc_status want = was_completed ? ZC_OK : expected_send(); /* a completed one sends nothing */
    zc_status st = zc_send_poll(&f->send, &w);
    f->seen = f->wakes;
    if (was_completed) {
        CHECK(st == ZC_OK || st == ZC_CLOSED, "completed send polled again: %s",
              zc_status_str(st));
        return; /* the same status again, nothing sent */
    }
    if (want == ZC_FULL) want = ZC_PENDING;
    CHECK(st == want, "send poll gave %s, expected %s", zc_status_str(st),
          zc_status_str(want));
    f->pending = st == ZC_PENDING;
    if (st == ZC_OK) model_push(f->id);
    if (st == ZC_OK || st == ZC_CLOSED) f->completed = true;
    unsigned char want_msg[MAX_ELEM];
    payload(f->id, S.m.elem_size, want_msg);
    CHECK(memcmp(want_msg, f->msg, S.m.elem_size) == 0, "a send changed its message");
}

static void poll_recv(future_slot *f) {
    zc_waker w = waker_of(f);
    zc_status want = expected_recv();
    unsigned char out[MAX_ELEM + 1];
    memset(out, 0xee, sizeof out);
    bool owed = sender_wake_owed();
    zc_status st = zc_recv_poll(&f->recv, &w, out);
    f->seen = f->wakes;
    if (want == ZC_EMPTY) want = ZC_PENDING;
    CHECK(st == want, "recv poll gave %s, expected %s", zc_status_str(st),
          zc_status_str(want));
    f->pending = st == ZC_PENDING;
    if (st == ZC_OK) check_received(out, owed);
    CHECK(out[S.m.elem_size] == 0xee, "recv wrote past elem_size");
}

static void cancel_send(future_slot *f) {
    zc_send_cancel(&f->send);
    f->pending = false;
    f->seen = f->wakes;
}

static void cancel_recv(future_slot *f) {
    zc_recv_cancel(&f->recv);
    f->pending = false;
    f->seen = f->wakes;
}

/* Cancel the futures started on handle h of one kind (before that handle is dropped). */
static void cancel_futures_on(future_slot *fs, unsigned h, bool send) {
    for (unsigned i = 0; i < FUTURES; i++) {
        if (fs[i].handle != h) continue;
        if (send && !fs[i].completed)
            cancel_send(&fs[i]);
        else if (!send)
            cancel_recv(&fs[i]);
        fs[i].completed = false;
        fs[i].handle = HANDLES; /* not started */
    }
}

/* ---- the waker contract, after every op ---- */

/* made: the messages the op made receivable (a commit or a release lets those queued
 * behind the place through too); rule 5 allows one receiver woken for each. */
static void check_wakes(unsigned *recv_before, unsigned *send_before, bool wake_all,
                        size_t made) {
    size_t pending_r = 0, woken_r = 0, pending_s = 0, woken_s = 0;
    unsigned new_r = 0, new_s = 0;
    for (unsigned i = 0; i < FUTURES; i++) {
        future_slot *r = &S.rf[i], *s = &S.sf[i];
        new_r += r->wakes - recv_before[i];
        new_s += s->wakes - send_before[i];
        if (r->pending) {
            pending_r++;
            CHECK(r->wakes - r->seen <= 1, "receive future %u woken twice", i);
            woken_r += r->wakes > r->seen;
        } else {
            CHECK(r->wakes == r->seen, "receive future %u woken while not pending", i);
        }
        if (s->pending) {
            pending_s++;
            CHECK(s->wakes - s->seen <= 1, "send future %u woken twice", i);
            woken_s += s->wakes > s->seen;
        } else {
            CHECK(s->wakes == s->seen, "send future %u woken while not pending", i);
        }
    }
    if (!wake_all) {
        CHECK(new_r <= (made > 1 ? made : 1), "one op woke %u receivers (%zu made receivable)",
              new_r, made);
        CHECK(new_s <= 1 + S.m.holes_skipped, "one op woke %u senders (%zu holes skipped)", new_s,
              S.m.holes_skipped);
    }
    size_t held = receivable(), room = free_slots();
    size_t first = 0; /* a closed channel is not drained while a reservation is next */
    while (first < S.m.len && S.m.kind[(S.m.head + first) % MAX_MSGS] == E_HOLE) first++;
    bool drained = first == S.m.len || S.m.kind[(S.m.head + first) % MAX_MSGS] != E_RESERVED;
    if (S.m.closed) {
        CHECK(woken_r == pending_r || !drained,
              "closed, but a pending receive future was not woken");
        CHECK(woken_s == pending_s, "closed, but a pending send future was not woken");
    }
    CHECK(woken_r >= (held < pending_r ? held : pending_r),
          "lost wake-up: %zu held, %zu receivers pending, %zu woken", held, pending_r,
          woken_r);
    CHECK(woken_s >= (room < pending_s ? room : pending_s),
          "lost wake-up: %zu free slots, %zu senders pending, %zu woken", room, pending_s,
          woken_s);
}

/* ---- channel life ---- */

static void drop_receiver(unsigned h) {
    cancel_futures_on(S.rf, h, false);
    bool last = S.m.receivers == 1;
    if (last) {
        S.expect_drops = 0;
        S.dropped = 0;
        /* Messages are disposed of; reservations are abandoned (their commit fails). */
        for (unsigned i = 0; i < PERMITS; i++)
            if (S.ps[i].held && S.m.bounded) S.ps[i].abandoned = true;
        while (S.m.len > 0) {
            bool msg = S.m.kind[S.m.head] == E_MSG;
            uint32_t id = model_pop();
            if (msg) S.expect_drop[S.expect_drops++] = id;
        }
        S.drop_allowed = true;
    }
    size_t to_drop = S.expect_drops;
    zc_receiver_drop(S.rx[h]);
    S.rx[h] = NULL;
    S.m.receivers--;
    if (last) {
        S.drop_allowed = false;
        S.m.closed = true;
        if (S.m.with_drop)
            CHECK(S.dropped == to_drop && S.expect_drops == 0,
                  "the last receiver's drop disposed of %zu of %zu messages", S.dropped,
                  to_drop);
        S.expect_drops = 0;
    }
}

static void permit_release(permit_slot *ps);

static void drop_sender(unsigned h) {
    cancel_futures_on(S.sf, h, true);
    for (unsigned i = 0; i < PERMITS; i++) /* a permit needs its handle live */
        if (S.ps[i].held && S.ps[i].handle == h) permit_release(&S.ps[i]);
    zc_sender_drop(S.tx[h]);
    S.tx[h] = NULL;
    if (--S.m.senders == 0) S.m.closed = true;
}

static void drop_everything(void) {
    for (unsigned i = 0; i < PERMITS; i++)
        if (S.ps[i].held) permit_release(&S.ps[i]);
    for (unsigned h = 0; h < HANDLES; h++) {
        if (S.rx[h]) drop_receiver(h);
        if (S.tx[h]) drop_sender(h);
    }
    S.m.exists = false;
}

static void create(unsigned char how) {
    drop_everything();
    memset(&S.m, 0, sizeof S.m);
    for (unsigned i = 0; i < FUTURES; i++) {
        memset(&S.sf[i], 0, sizeof S.sf[i]);
        memset(&S.rf[i], 0, sizeof S.rf[i]);
        S.sf[i].handle = S.rf[i].handle = HANDLES;
    }
    memset(S.ps, 0, sizeof S.ps);
    S.m.elem_size = elem_sizes[(how >> 4) % COUNT(elem_sizes)];
    S.m.with_drop = how & 8;
    size_t c = how & 7;
    S.m.bounded = c < 7;
    S.m.cap = S.m.bounded ? caps[(c + (how >> 4)) % COUNT(caps)] : 0;
    zc_config cfg = {S.m.elem_size, S.m.with_drop ? on_drop : NULL, NULL};
    zc_status st = S.m.bounded ? zc_bounded(S.m.cap, &cfg, &S.tx[0], &S.rx[0])
                               : zc_unbounded(&cfg, &S.tx[0], &S.rx[0]);
    CHECK(st == ZC_OK, "create gave %s", zc_status_str(st));
    S.m.exists = true;
    S.m.senders = S.m.receivers = 1;
}

/* ---- the two-phase send ---- */

/* Reserve into permit slot ps through sender handle t, with try_reserve or (timed)
 * a zero-timeout zc_reserve_timeout. */
static void permit_reserve(permit_slot *ps, unsigned t, bool timed) {
    if (ps->held) return;
    zc_status want = expected_send();
    zc_status st = timed ? zc_reserve_timeout(S.tx[t], &ps->p, 0) : zc_try_reserve(S.tx[t], &ps->p);
    if (timed && want == ZC_FULL) want = ZC_TIMEDOUT;
    CHECK(st == want, "reserve gave %s, expected %s", zc_status_str(st), zc_status_str(want));
    if (st != ZC_OK) return;
    ps->held = true;
    ps->abandoned = false;
    ps->handle = t;
    if (S.m.bounded) ps->place = model_push_kind(0, E_RESERVED);
}

static void permit_commit(permit_slot *ps) {
    unsigned char msg[MAX_ELEM];
    payload(S.m.next_id, S.m.elem_size, msg);
    zc_status st = zc_permit_commit(&ps->p, msg), want = ZC_OK;
    if (!ps->held) want = ZC_EINVAL;
    else if (S.m.bounded ? ps->abandoned : S.m.closed) want = ZC_CLOSED;
    CHECK(st == want, "commit gave %s, expected %s", zc_status_str(st), zc_status_str(want));
    if (!ps->held) return;
    ps->held = false;
    if (st != ZC_OK) return;
    if (S.m.bounded) {
        S.m.queue[model_index(ps->place)] = S.m.next_id++;
        S.m.kind[model_index(ps->place)] = E_MSG;
    } else {
        model_push(S.m.next_id++);
    }
}

static void permit_release(permit_slot *ps) {
    zc_status st = zc_permit_release(&ps->p);
    CHECK(st == (ps->held ? ZC_OK : ZC_EINVAL), "release gave %s", zc_status_str(st));
    if (!ps->held) return;
    ps->held = false;
    if (!S.m.bounded || ps->abandoned) return;
    if (ps->place != S.m.popped) {
        S.m.kind[model_index(ps->place)] = E_HOLE;
        return;
    }
    /* It was the oldest: skipped at once with the holes right after it, slots free (one
     * sender woken per slot). */
    model_pop();
    while (S.m.len > 0 && S.m.kind[S.m.head] == E_HOLE) {
        model_pop();
        S.m.holes_skipped++;
    }
}

/* ---- one op ---- */

static void do_op(unsigned char byte) {
    unsigned op = byte & 15, arg = byte >> 4;
    unsigned slot = arg % FUTURES;
    if (!S.m.exists) {
        create(byte);
        return;
    }
    int t = live_tx(arg), r = live_rx(arg);
    unsigned char buf[MAX_ELEM + 1] = {0}, keep[MAX_ELEM];
    zc_status st, want;
    bool owed; /* a receive owed waiting senders a wake (sender_wake_owed) */
    switch (op) {
    case 0: /* try_send */
    case 1:
        if (t < 0) break;
        payload(S.m.next_id, S.m.elem_size, buf);
        memcpy(keep, buf, S.m.elem_size);
        want = expected_send();
        st = zc_try_send(S.tx[t], buf);
        CHECK(st == want, "try_send gave %s, expected %s", zc_status_str(st),
              zc_status_str(want));
        CHECK(memcmp(buf, keep, S.m.elem_size) == 0, "try_send changed its message");
        if (st == ZC_OK) model_push(S.m.next_id++);
        break;
    case 2: /* try_recv */
    case 3:
        if (r < 0) break;
        memset(buf, 0xee, sizeof buf);
        want = expected_recv();
        owed = sender_wake_owed();
        st = zc_try_recv(S.rx[r], buf);
        CHECK(st == want, "try_recv gave %s, expected %s", zc_status_str(st),
              zc_status_str(want));
        if (st == ZC_OK) check_received(buf, owed);
        CHECK(buf[S.m.elem_size] == 0xee, "try_recv wrote past elem_size");
        break;
    case 4: { /* start (or restart) a send future on a fresh message, or poll it */
        future_slot *f = &S.sf[slot];
        if (f->handle == HANDLES || (f->completed && arg >= 8)) {
            if (t < 0) break;
            if (f->pending) cancel_send(f);
            f->handle = (unsigned)t;
            f->completed = false;
            f->id = S.m.next_id++;
            payload(f->id, S.m.elem_size, f->msg);
            zc_send_init(&f->send, S.tx[t], f->msg);
        }
        poll_send(f);
        break;
    }
    case 5: /* cancel a send future: nothing sent; it starts over when polled again */
        if (S.sf[slot].handle != HANDLES && !S.sf[slot].completed) cancel_send(&S.sf[slot]);
        break;
    case 6: { /* start a receive future, or poll it again (a stream) */
        future_slot *f = &S.rf[slot];
        if (f->handle == HANDLES) {
            if (r < 0) break;
            f->handle = (unsigned)r;
            zc_recv_init(&f->recv, S.rx[r]);
        }
        poll_recv(f);
        break;
    }
    case 7: /* cancel a receive future: nothing taken */
        if (S.rf[slot].handle != HANDLES) cancel_recv(&S.rf[slot]);
        break;
    case 8: /* clone a sender or a receiver into a free handle slot */
        for (unsigned h = 0; h < HANDLES; h++) {
            if (arg & 1 && !S.tx[h] && t >= 0) {
                S.tx[h] = zc_sender_clone(S.tx[t]);
                CHECK(S.tx[h] != NULL, "sender clone failed");
                S.m.senders++;
                break;
            }
            if (!(arg & 1) && !S.rx[h] && r >= 0) {
                S.rx[h] = zc_receiver_clone(S.rx[r]);
                CHECK(S.rx[h] != NULL, "receiver clone failed");
                S.m.receivers++;
                break;
            }
        }
        break;
    case 9: /* drop a sender or a receiver */
        if (arg & 1) {
            if (t >= 0) drop_sender((unsigned)t);
        } else if (r >= 0) {
            drop_receiver((unsigned)r);
        }
        if (S.m.senders == 0 && S.m.receivers == 0) S.m.exists = false;
        break;
    case 10: { /* close from either side */
        bool closed;
        if (arg & 1) {
            if (t < 0) break;
            closed = zc_sender_close(S.tx[t]);
        } else {
            if (r < 0) break;
            closed = zc_receiver_close(S.rx[r]);
        }
        CHECK(closed == !S.m.closed, "close returned %d", closed);
        S.m.closed = true;
        break;
    }
    case 11: /* zero-timeout blocking send */
        if (t < 0) break;
        payload(S.m.next_id, S.m.elem_size, buf);
        want = expected_send();
        if (want == ZC_FULL) want = ZC_TIMEDOUT;
        st = zc_send_timeout(S.tx[t], buf, 0);
        CHECK(st == want, "send_timeout(0) gave %s, expected %s", zc_status_str(st),
              zc_status_str(want));
        if (st == ZC_OK) model_push(S.m.next_id++);
        break;
    case 12: /* zero-timeout blocking recv */
        if (r < 0) break;
        memset(buf, 0xee, sizeof buf);
        want = expected_recv();
        if (want == ZC_EMPTY) want = ZC_TIMEDOUT;
        owed = sender_wake_owed();
        st = zc_recv_timeout(S.rx[r], buf, 0);
        CHECK(st == want, "recv_timeout(0) gave %s, expected %s", zc_status_str(st),
              zc_status_str(want));
        if (st == ZC_OK) check_received(buf, owed);
        break;
    case 13: { /* bad arguments: ZC_EINVAL, nothing changes */
        zc_waker null_wake = {NULL, NULL};
        CHECK(zc_try_send(NULL, buf) == ZC_EINVAL, "try_send(NULL)");
        if (t >= 0) CHECK(zc_try_send(S.tx[t], NULL) == ZC_EINVAL, "try_send(msg NULL)");
        if (r >= 0) CHECK(zc_try_recv(S.rx[r], NULL) == ZC_EINVAL, "try_recv(out NULL)");
        /* a bad waker cancels a pending future (waker rule 3) */
        future_slot *f = &S.rf[slot];
        if (f->handle != HANDLES) {
            CHECK(zc_recv_poll(&f->recv, &null_wake, buf) == ZC_EINVAL, "recv poll, bad waker");
            f->pending = false;
            f->seen = f->wakes;
        }
        break;
    }
    case 14: { /* a new channel (arg 15), or a permit op on slot arg % 4 */
        if (arg == 15) {
            create((unsigned char)(byte ^ 0x5a));
            break;
        }
        permit_slot *ps = &S.ps[arg % PERMITS];
        switch (arg / PERMITS) {
        case 0:
        case 1:
            if (t >= 0) permit_reserve(ps, (unsigned)t, arg / PERMITS == 1);
            break;
        case 2:
            permit_commit(ps);
            break;
        default:
            permit_release(ps);
            break;
        }
        break;
    }
    default: /* 15: poll every started future once, as an executor's sweep */
        for (unsigned i = 0; i < FUTURES; i++) {
            if (S.sf[i].handle != HANDLES) poll_send(&S.sf[i]);
            if (S.rf[i].handle != HANDLES) poll_recv(&S.rf[i]);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memset(&S, 0, sizeof S);
    ops_done = 0;
    if (size == 0) return 0;
    create(data[0]);
    for (size_t i = 1; i < size; i++) {
        unsigned recv_before[FUTURES], send_before[FUTURES];
        for (unsigned k = 0; k < FUTURES; k++) {
            recv_before[k] = S.rf[k].wakes;
            send_before[k] = S.sf[k].wakes;
        }
        op_byte = data[i];
        unsigned op = data[i] & 15;
        bool had = S.m.exists;
        size_t receivable_before = had ? receivable() : 0;
        S.m.holes_skipped = 0;
        do_op(data[i]);
        ops_done++;
        /* close, the last drops and a new channel may wake every waiter; a sweep polls
         * (and a drop cancels) several futures, each of which may wake one */
        /* (and a commit or release on a closed channel wakes every receiver) */
        bool new_chan = op == 14 && (data[i] >> 4) == 15;
        bool wake_all = !had || op == 9 || op == 10 || new_chan || op == 15 ||
                        (op == 14 && S.m.closed);
        if (S.m.exists) {
            size_t now = receivable();
            check_wakes(recv_before, send_before, wake_all,
                        now > receivable_before ? now - receivable_before : 0);
            check_info();
        }
    }
    drop_everything();
    return 0;
}

#ifdef FUZZ_STANDALONE
/* Without libFuzzer: run each file named, then -r N pseudo-random inputs. */
int main(int argc, char **argv) {
    unsigned long runs = 0, files = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
            runs = strtoul(argv[++a], NULL, 10);
            continue;
        }
        FILE *fp = fopen(argv[a], "rb");
        if (!fp) {
            perror(argv[a]);
            return 2;
        }
        static uint8_t data[1 << 16];
        size_t n = fread(data, 1, sizeof data, fp);
        fclose(fp);
        LLVMFuzzerTestOneInput(data, n);
        files++;
    }
    uint64_t x = 0x9e3779b97f4a7c15u;
    static uint8_t data[512];
    for (unsigned long k = 0; k < runs; k++) {
        size_t n = 1 + (size_t)(k % sizeof data);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            data[i] = (uint8_t)(x >> 24);
        }
        LLVMFuzzerTestOneInput(data, n);
    }
    printf("fuzz_ops: %lu files, %lu generated inputs: all held\n", files, runs);
    return 0;
}
#endif

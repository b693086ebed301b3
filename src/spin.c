/*
 * spin.c: the blocking layer's spin before it parks (spin.h).
 *
 * No atomics of its own: the look is chan.c's (relaxed reads, a hint), the attempts the
 * channel's.
 */
#include "spin.h"

#include "backoff.h"
#include "clock.h"

bool zc__spin_snooze(zc__chan *ch, zc__spin_state *sp, bool recv) {
    if (sp->over) return false;
    if (sp->yields == 0) {
        uint64_t now = zc__clock_ns();
        if (sp->rounds == 0) sp->watch_end_ns = now + ZC__SPIN_WATCH_NS;
        if (now < sp->watch_end_ns) {
            unsigned pauses = 1u << (sp->rounds < 3 ? sp->rounds : 3);
            sp->rounds++;
            (void)zc__chan_look(ch, recv, pauses, false); /* the watch; the attempt decides */
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
    bool bounded_recv = recv && zc__queue_bounded(&ch->q);
    /* A bounded receive's looks do not see a close: look for it before the first yield
     * and after a yield that gave away a slice (ZC__SPIN_SLICE_NS). */
    if (bounded_recv && sp->yields == 0 && zc__chan_look(ch, true, 0, true) == ZC__LOOK_CLOSED)
        return false;
    sp->yields++;
    if (!bounded_recv) {
        zc__yield();
        return true;
    }
    uint64_t before = zc__clock_ns();
    zc__yield();
    if (zc__clock_ns() - before >= ZC__SPIN_SLICE_NS) /* it gave away a slice */
        sp->over = zc__chan_look(ch, true, 0, true) == ZC__LOOK_CLOSED;
    return true;
}

/* One look, and an attempt if it says go: a final status, or ZC_PENDING (not now). */
static zc_status try_once(zc__chan *ch, bool recv, zc__spin_attempt_fn *attempt, void *arg) {
    zc__look look = zc__chan_look(ch, recv, 0, !recv);
    if (look == ZC__LOOK_CLOSED) return ZC_CLOSED; /* a send: nothing sent */
    if (look == ZC__LOOK_WAIT) return ZC_PENDING;
    zc_status s = attempt(arg);
    return s == ZC_FULL || s == ZC_EMPTY ? ZC_PENDING : s; /* ZC_PENDING: a peer mid-way */
}

zc_status zc__spin(zc__chan *ch, bool recv, zc__spin_attempt_fn *attempt, void *arg,
                   zc__limit *limit) {
    zc_status s = try_once(ch, recv, attempt, arg);
    if (s != ZC_PENDING) return s;
    uint64_t deadline_ns = zc__limit_deadline(*limit); /* the clock only to wait */
    zc__spin_state sp = ZC__SPIN_INIT;
    while (!zc__deadline_passed(deadline_ns) && zc__spin_snooze(ch, &sp, recv)) {
        s = try_once(ch, recv, attempt, arg);
        if (s != ZC_PENDING) return s;
    }
    *limit = zc__limit_until(deadline_ns);
    return ZC_PENDING;
}

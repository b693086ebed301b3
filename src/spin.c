/*
 * spin.c: the blocking layer's spin before it parks (spin.h).
 *
 * No atomics of its own: the watch is the queue's (relaxed reads, a hint), the close
 * check and the attempts the channel's.
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
            if (ch)
                zc__queue_watch(&ch->q, recv, pauses); /* the watch; the attempt decides */
            else
                for (unsigned i = 0; i < pauses; i++) zc__cpu_relax();
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
    bool bounded_recv = ch && recv && zc__queue_bounded(&ch->q);
    /* A bounded receive's looks do not see a close: look for it before the first yield
     * and after a yield that gave away a slice (ZC__SPIN_SLICE_NS). */
    if (bounded_recv && sp->yields == 0 && zc__chan_is_closed(ch))
        return false;
    sp->yields++;
    if (!bounded_recv) {
        zc__yield();
        return true;
    }
    uint64_t before = zc__clock_ns();
    zc__yield();
    if (zc__clock_ns() - before >= ZC__SPIN_SLICE_NS) /* it gave away a slice */
        sp->over = zc__chan_is_closed(ch);
    return true;
}

/* One attempt: a final status, or ZC_PENDING (not now). A send that did not go through
 * looks for the close (on its own end of the queue). */
static zc_status try_once(zc__chan *ch, bool recv, zc__spin_attempt_fn *attempt, void *arg) {
    zc_status s = attempt(arg);
    if (s != ZC_FULL && s != ZC_EMPTY && s != ZC_PENDING) return s;
    if (!recv && zc__chan_is_closed(ch)) return ZC_CLOSED; /* the close mark: on tail */
    return ZC_PENDING;
}

zc_status zc__spin(zc__chan *ch, bool recv, zc__spin_attempt_fn *attempt, void *arg,
                   zc__limit *limit) {
    /* The caller's first attempt did not go through; a send's may have met the close. */
    if (!recv && zc__chan_is_closed(ch)) return ZC_CLOSED; /* the close mark: on tail */
    uint64_t deadline_ns = zc__limit_deadline(*limit); /* the clock only to wait */
    zc__spin_state sp = ZC__SPIN_INIT;
    while (!zc__deadline_passed(deadline_ns) && zc__spin_snooze(ch, &sp, recv)) {
        zc_status s = try_once(ch, recv, attempt, arg);
        if (s != ZC_PENDING) return s;
    }
    *limit = zc__limit_until(deadline_ns);
    return ZC_PENDING;
}

void zc__spin_for_wake(zc_parker *p, uint64_t deadline_ns) {
    zc__spin_state sp = ZC__SPIN_INIT;
    while (!zc__parker_has_permit(p) && !zc__deadline_passed(deadline_ns) &&
           zc__spin_snooze(NULL, &sp, false)) {
    }
}

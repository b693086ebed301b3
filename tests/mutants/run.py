#!/usr/bin/env python3
"""Mutation check: do the tests fail when the library is wrong?

Each mutant below is one small change to src/ (a condition dropped, a count left out, a
wake not made) that breaks a promise of the contract. The runner copies the tracked files
to a scratch folder, builds them with a CMake preset, and for each mutant applies the
change, rebuilds and runs tests: a mutant is KILLED when a test fails (or the run hangs
past its limit), and SURVIVED when every test passes, which means no test checks what
the changed line does. The change is undone before the next one; the checkout itself is
never touched.

Usage: tests/mutants/run.py [--all] [--preset NAME] [--keep DIR] [ID...]
  (default)  the mutants that name a test: build that test alone and run it (about 10 s
             each; CI runs these)
  --all      every mutant, each against the whole preset's ctest (less the 8-thread
             stress run and the model), which takes 15-40 s a mutant
  ID...      only these mutants
Exit status 1 if any mutant survived.

SURVIVORS describes the changes kept out of MUTANTS because no test can kill them, each
with why: equivalent to the original in what can be observed, or reachable only in a
race that no test can hold open.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Mutant:
    def __init__(self, ident, path, old, new, test=None, preset="dev"):
        self.ident, self.path, self.old, self.new = ident, path, old, new
        self.test = test  # a ctest name that fails on it; None: only the whole run
        self.preset = preset


MUTANTS = [
    # ---- caught by a named test (the default run) ----
    Mutant("fast_path_wakes_nobody", "include/zchan/bits/fast.h",
           "__atomic_load_n(waiters, __ATOMIC_SEQ_CST)) ? ZC__FAST_WAKE",
           "__atomic_load_n(waiters, __ATOMIC_SEQ_CST)) ? ZC__FAST_DONE",
           test="test_inline"),
    Mutant("fast_send_poll_sends_again", "include/zchan/bits/fast.h",
           "if (!ZC__LIKELY(tx && msg && !zc__send_done(f))) return ZC__FAST_MISS;",
           "if (!ZC__LIKELY(tx && msg)) return ZC__FAST_MISS;",
           test="test_inline"),
    Mutant("rv_offer_wakes_nobody", "src/rendezvous.c",
           "    else if (offered) (void)zc__waitlist_notify_one(rv->asking);",
           "    else if (offered && 0) (void)zc__waitlist_notify_one(rv->asking);",
           test="test_rendezvous"),
    Mutant("rv_cancel_keeps_wake_up", "src/rendezvous.c",
           "    if (zc__waitlist_unregister(rv->asking, &f->zc__node)) pass_on_asking(rv);",
           "    if (zc__waitlist_unregister(rv->asking, &f->zc__node) && 0) pass_on_asking(rv);",
           test="test_rendezvous"),
    Mutant("rv_try_poke", "src/rendezvous.c",
           "    if (now == CLAIM_BUSY && waits) (void)claim_move",
           "    if (now == CLAIM_BUSY && (waits || 1)) (void)claim_move",
           test="test_rendezvous"),
    Mutant("rv_select_claim_kept", "src/select.c",
           "    select_finish(s, claimed, true);\n    zc__rv_select_leave(s);",
           "    select_finish(s, claimed, true);", test="test_rendezvous"),
    Mutant("deadline_wraps", "src/clock.c",
           "return timeout_ns >= ZC__NO_DEADLINE - now ? ZC__NO_DEADLINE : now + timeout_ns;",
           "return now + timeout_ns;", test="test_park"),
    Mutant("batch_cut_uncounted", "src/queue/queue.c",
           "    if (k == 0) return s;\n    *count = k;\n    return ZC_OK;\n}\n\nzc_status zc__queue_push_many",
           "    *count = k;\n    return s;\n}\n\nzc_status zc__queue_push_many", test="test_nomem"),
    Mutant("requeue_front_in_notify_all", "src/waitlist.c",
           "link_node(wl, node, st == ZC__WOKEN && wl->waking_all == 0);",
           "link_node(wl, node, st == ZC__WOKEN);", test="test_permit"),
    Mutant("wake_done_ignored", "src/wake.h",
           "    if (f && f->wake == wake && f->ctx == ctx) f->release(f);",
           "    if (f && f->wake == wake && f->ctx == ctx && 0) f->release(f);",
           test="test_waitlist"),
    Mutant("wake_released_for_another_function", "src/wake.h",
           "    if (f && f->wake == wake && f->ctx == ctx) f->release(f);",
           "    if (f && (f->wake == wake || 1) && f->ctx == ctx) f->release(f);",
           test="test_waitlist"),
    Mutant("closed_poll_keeps_node", "src/wait.h",
           "            zc__waitlist_unregister(wl, node); /* a wake-up held was used by the attempt */\n",
           "", test="test_closed"),
    Mutant("closed_cancel_keeps_node", "src/wait.c",
           "    if (zc__waitlist_unregister(zc__wait_list(ch, side), node)) zc__wait_pass_on(ch, side);",
           "    if (side != ZC__SIDE_CLOSE && zc__waitlist_unregister(zc__wait_list(ch, side), node))\n"
           "        zc__wait_pass_on(ch, side);", test="test_closed"),
    Mutant("send_spin_misses_close", "src/spin.c",
           "    if (!recv && zc__chan_is_closed(ch)) return ZC_CLOSED; /* the close mark: on tail */\n"
           "    uint64_t deadline_ns",
           "    uint64_t deadline_ns", test="test_yield"),
    Mutant("notify_n_one_short", "src/waitlist.c",
           "while (n-- > 0 && notify(wl, false)) {", "while (n-- > 1 && notify(wl, false)) {",
           test="test_future"),
    Mutant("requeue_at_back", "src/waitlist.c",
           "link_node(wl, node, st == ZC__WOKEN && wl->waking_all == 0);",
           "link_node(wl, node, false);", test="test_batch"),
    Mutant("notified_not_taken_back", "src/waitlist.c",
           "            if (st == ZC__WOKEN) atomic_fetch_sub_explicit(&wl->notified, 1, memory_order_seq_cst);\n",
           "", test="test_waitlist"),
    Mutant("pass_on_nests", "src/waitlist.c",
           "if (!outermost || (outermost == innermost() && !outermost->in_wake)) {", "if (1) {",
           test="test_batch"),
    Mutant("spin_recv_misses_close", "src/spin.c",
           "    if (bounded_recv && sp->yields == 0 && zc__chan_is_closed(ch))\n"
           "        return false;\n", "", test="test_yield"),
    Mutant("lone_stage_for_realtime", "src/spin.c",
           "            if (!zc__thread_shares_fairly()) return false;\n", "", test="test_yield"),
    Mutant("select_no_rotation", "src/select.c",
           "sel_set_start(s, i + 1 < n ? i + 1 : 0);", "(void)0;", test="test_select"),
    Mutant("select_order_ignored", "src/select.c",
           "size_t start = (zc__rv_select_flags(s) & ZC_SELECT_ORDERED) ? 0 : sel_start(s);",
           "size_t start = sel_start(s);", test="test_select"),
    Mutant("select_keeps_absorbed_wake", "src/select.c",
           "        zc__wait_pass_on(case_chan(c), case_side(c));", "", test="test_select"),
    Mutant("lag_short_by_one", "src/broadcast.c",
           "uint64_t lag = ch->head - rx->pos;", "uint64_t lag = ch->head - rx->pos - 1;",
           test="test_broadcast"),
    Mutant("overwrite_not_dropped", "src/broadcast.c",
           "        drop_held(ch, ch->head);\n        ch->rem", "        ch->rem",
           test="test_broadcast"),
    Mutant("bcast_copy_not_clone", "src/broadcast.c",
           "    } else if (ch->clone_msg) {\n        ch->clone_msg(out, msg, ch->ctx);",
           "    } else if (0) {\n        ch->clone_msg(out, msg, ch->ctx);", test="test_broadcast"),
    Mutant("batch_all_takes_part", "src/queue/ring_batch.c",
           "if (k == n || (k > 0 && !all)) {", "if (k == n || k > 0) {", test="test_batch"),
    Mutant("permit_before_deadline", "src/park.c",
           "    if (take_permit(state)) return ZC_OK;\n"
           "    if (zc__deadline_passed(deadline_ns)) return ZC_TIMEDOUT;",
           "    if (zc__deadline_passed(deadline_ns)) return ZC_TIMEDOUT;\n"
           "    if (take_permit(state)) return ZC_OK;", test="test_park"),
    Mutant("waking_frame_innermost_only", "src/waitlist.c",
           "for (struct waking *f = innermost(); f; f = f->outer) {\n        if (f->node != n) continue;",
           "for (struct waking *f = innermost(); f; f = NULL) {\n        if (f->node != n) continue;",
           test="test_waitlist"),
    Mutant("fd_writes_every_wake", "src/fd.c",
           "        return; /* a wake since the last drain has written, or is writing, already */",
           "        (void)0;", test="test_fd"),
    Mutant("lagging_drop_from_pos", "src/broadcast.c",
           "for (uint64_t s = rx->pos > ch->head ? rx->pos : ch->head; s < ch->tail; s++)\n"
           "        if (--ch->rem", "for (uint64_t s = rx->pos; s < ch->tail; s++)\n        if (--ch->rem",
           test="test_broadcast"),
    Mutant("clone_adds_no_reader", "src/broadcast.c",
           "        for (uint64_t s = r->pos > ch->head ? r->pos : ch->head; s < ch->tail; s++)\n"
           "            ch->rem[slot_of(ch, s)]++;", "        (void)0;", test="test_broadcast"),
    Mutant("bcast_drop_wakes_no_sender", "src/broadcast.c",
           "    else\n        wake_senders(ch, freed);", "    else\n        (void)freed;"),
    Mutant("bcast_keeps_absorbed_wake", "src/broadcast.c",
           "    if (zc__waitlist_unregister(&f->zc__tx->ch->send_waiters, &f->zc__node))\n"
           "        pass_on_send(f->zc__tx->ch);",
           "    (void)zc__waitlist_unregister(&f->zc__tx->ch->send_waiters, &f->zc__node);",
           test="test_broadcast"),
    Mutant("bcast_send_wakes_one_receiver", "src/broadcast.c",
           "    while (n-- > 0 && zc__waitlist_notify_one(&ch->recv_waiters)) {",
           "    while (n-- > 0 && zc__waitlist_notify_one(&ch->recv_waiters)) { break;"),
    Mutant("bcast_close_wakes_no_sender", "src/broadcast.c",
           "    zc__waitlist_notify_all(&ch->recv_waiters);\n    zc__waitlist_notify_all(&ch->send_waiters);",
           "    zc__waitlist_notify_all(&ch->recv_waiters);", test="test_broadcast"),
    Mutant("select_disable_keeps_wake", "src/select.c",
           "    if (absorbed) zc__wait_pass_on(ch, side);\n}", "    (void)absorbed; (void)side; (void)ch;\n}",
           test="test_select"),
    Mutant("enomem_commit_empties_permit", "src/permit.c",
           "    if (s == ZC_ENOMEM) return s; /* unbounded: the place is still held */",
           "    if (s == ZC_ENOMEM) { p->zc__tx = NULL; return s; }", test="test_nomem"),
    Mutant("all_or_nothing_past_cap", "src/batch.c",
           "return !((flags & ZC_ALL_OR_NOTHING) && n > zc__queue_capacity(&ch->q));",
           "(void)ch; return true;", test="test_batch"),
    Mutant("bcast_len_ignores_position", "src/broadcast.c",
           "out->len = (size_t)(ch->tail - (from > ch->head ? from : ch->head));",
           "(void)from; out->len = (size_t)(ch->tail - ch->head);", test="test_broadcast"),
    Mutant("bcast_subscribe_at_head", "src/broadcast.c",
           "    } else {\n        r->pos = ch->tail;\n    }", "    } else {\n        r->pos = ch->head;\n    }",
           test="test_broadcast"),
    Mutant("fd_drain_stays_armed", "src/fd.c",
           "    atomic_exchange_explicit(ZC__ATOMIC_UINT(w->zc__armed), 0, memory_order_acquire);\n",
           "", test="test_fd"),
    Mutant("select_case_without_buffer", "src/select.c",
           "    return case_is_timer(c) || (case_is_recv(c) ? c->zc__out != NULL : c->zc__msg != NULL);",
           "    return c != NULL;",
           test="test_select"),
    Mutant("select_always_starts_at_0", "src/select.c",
           "    s->zc__start = n; /* none chosen yet",
           "    s->zc__start = 0; /* none chosen yet", test="test_select"),
    Mutant("timeout_taken_as_deadline", "src/clock.h",
           "return l.is_deadline ? l.ns : zc__deadline_ns(l.ns);", "return l.ns;",
           test="test_block"),
    Mutant("cancel_passes_nothing_on", "src/wait.c",
           "    if (zc__waitlist_unregister(zc__wait_list(ch, side), node)) zc__wait_pass_on(ch, side);",
           "    (void)zc__waitlist_unregister(zc__wait_list(ch, side), node);", test="test_future"),
    Mutant("wait_pay_skipped", "src/wait.h",
           "            zc__wait_pay(ch, side, owed);      /* our node is off the list */\n", "",
           test="test_future"),
    Mutant("pop_counts_no_freed_slot", "src/queue/queue.h",
           "    *freed += s == ZC_OK;\n", "", test="test_future"),
    Mutant("spin_attempt_waits_out_peer", "src/block.c",
           "    unsigned got = zc__queue_pop_first8(q, a->buf);",
           "    for (zc__backoff b = ZC__BACKOFF_INIT;; zc__backoff_snooze(&b)) {\n"
           "        zc_status r = zc__chan_recv(a->ch, a->buf); /* as zc_try_recv */\n"
           "        if (r != ZC_PENDING) return r;\n    }\n"
           "    unsigned got = zc__queue_pop_first8(q, a->buf);",
           test="test_scenarios_block", preset="hooks"),
    # The checked build (src/check.h; the dev preset is Debug, so checked).
    Mutant("checked_drop_keeps_stamp", "src/chan.c",
           "#define HANDLE_RETIRE(h) ((h)->stamp = ZC__STAMP_DEAD, zc__quarantine(h))",
           "#define HANDLE_RETIRE(h) ((void)0)", test="test_checked"),
    Mutant("checked_register_unmarked", "src/waitlist.c",
           "            MARK(node, true);\n", "", test="test_checked"),
    Mutant("checked_wait_in_wake_allowed", "src/block_on.h",
           "ZC__CHECK_NOT_IN_WAKE(call);", "(void)call;", test="test_checked"),
    Mutant("checked_free_with_futures_allowed", "src/chan.c",
           "static void check_no_futures(zc__chan *ch, const char *call) {\n#if ZCHAN_CHECKED",
           "static void check_no_futures(zc__chan *ch, const char *call) {\n#if 0",
           test="test_checked"),
    # ---- caught only by the whole run (stress, fuzz corpus, scenarios) ----
    Mutant("unbounded_capacity_reported", "src/chan.c",
           "out->capacity = ch->rv ? 0 : zc__queue_capacity(&ch->q);",
           "out->capacity = ch->rv || !zc__queue_bounded(&ch->q) ? 0 : zc__queue_capacity(&ch->q);"),
    Mutant("info_never_closed", "src/chan.c", "out->closed = zc__chan_is_closed(ch);",
           "out->closed = false;"),
    Mutant("second_close_says_first", "src/queue/segq.c",
           "    return (old & ZC__SEG_MARK) == 0;\n}\n\nbool zc__segq_is_closed",
           "    (void)old; return true;\n}\n\nbool zc__segq_is_closed"),
    Mutant("select_of_disabled_cases_waits", "src/select.c",
           "        if (wr.closed == wr.live) {", "        if (wr.live && wr.closed == wr.live) {"),
    Mutant("select_completion_leaves_nodes", "src/select.c",
           "    s->zc__start |= SEL_LINKED;\n", "", test="test_select"),
    Mutant("select_rendezvous_case_unclaimed", "src/select.c",
           "    if (rv && !(s->zc__start & SEL_RV)) {", "    if (0) {", test="test_rendezvous"),
    Mutant("ready_select_refuses_disabled_rendezvous", "src/select.c",
           "        if (bad == s->zc__n) {", "        if (0) {", test="test_rendezvous"),
    Mutant("all_or_nothing_recheck_wants_one", "src/batch.c",
           "zc__wait_look look = {ch, ZC__SIDE_SEND, all ? f->zc__n - f->zc__sent : 1};",
           "zc__wait_look look = {ch, ZC__SIDE_SEND, 1};", test="test_batch"),
    Mutant("recv_many_owes_no_wake", "src/batch.c",
           "    *owed += (unsigned)o.senders; /* a receive owes senders only */",
           "    (void)o.senders;"),
    Mutant("try_send_many_stops_at_pending", "src/batch.c",
           "        } else if (s == ZC_PENDING) {\n            /* ZC_FULL would be false",
           "        } else if (0) {\n            /* ZC_FULL would be false"),
    Mutant("unbounded_reserve_after_close", "src/queue/queue.c",
           "    return zc__segq_is_closed(&q->u.segq) ? ZC_CLOSED : ZC_OK;",
           "    return ZC_OK;"),
    Mutant("failed_reserve_fills_permit", "src/permit.c",
           "    p->zc__tx = s == ZC_OK ? tx : NULL;", "    p->zc__tx = tx;"),
    Mutant("owed_wakes_stop_after_first", "src/waitlist.c",
           "while (n-- > 0 && notify(wl, false)) {", "if (n > 0 && notify(wl, false)) {"),
    Mutant("step_off_passes_wake_on", "src/waitlist.c",
           "    wait_not_waking(node); /* now WOKEN, and kept so: the next poll uses the wake-up */\n"
           "    return true;",
           "    (void)zc__waitlist_unregister_slow(wl, storage);\n    notify(wl, true);\n"
           "    return true;", test="test_herd", preset="hooks"),
    Mutant("spare_segment_not_zeroed", "src/queue/segq.c", "        memset(s, 0, q->seg_bytes);\n", ""),
    Mutant("segment_freed_under_reader", "src/queue/segq.c", "    return all != 0;",
           "    (void)all; return true;"),
    Mutant("ring_wraps_late", "include/zchan/bits/ring.h",
           "return ZC__LIKELY(index + 1 < r->cap) ? pos + 1 : lap + r->one_lap;",
           "return ZC__LIKELY(index + 1 <= r->cap) ? pos + 1 : lap + r->one_lap;"),
    Mutant("tail_holes_ignored", "src/queue/ring.h",
           "return s + r->one_lap == pos + 1 || (s != stamp && s + r->one_lap == pos);",
           "return s + r->one_lap == pos + 1;"),
    Mutant("notify_all_until_empty", "src/waitlist.c",
           "while (n-- > 0 && zc__waitlist_notify_one(wl)) {",
           "(void)n; while (zc__waitlist_notify_one(wl)) {"),
    Mutant("holes_not_owed", "src/chan.c", "    n += zc__queue_skip_holes(&ch->q);\n", ""),
    Mutant("pass_on_recv_unchecked", "src/chan.c",
           "if (zc__waitlist_has_waiters(&ch->recv_waiters) &&\n"
           "        zc__waitlist_wake_has_work(&ch->recv_waiters, recv_avail, ch))",
           "if (zc__waitlist_has_waiters(&ch->recv_waiters))"),
    Mutant("self_wake_skipped", "src/wait.h",
           "            zc__waitlist_step_off(wl, node);\n            zc__wake_self(w);\n",
           "            zc__waitlist_step_off(wl, node);\n"),
    Mutant("recheck_skipped", "src/waitlist.c", "        if (ready && ready(arg)) {",
           "        if (ready && ready(arg) && 0) {", test="test_herd", preset="hooks"),
    Mutant("send_owes_no_wake", "src/chan.h", "    *owed += s == ZC_OK;\n", "    (void)owed;\n"),
    Mutant("done_future_sends_again", "src/future.c",
           "    if (done && zc__waitlist_is_idle(&f->zc__node)) return (zc_status)(done - 1);\n",
           "    (void)done;\n"),
    Mutant("spin_misses_close_after_slice", "src/spin.c",
           "sp->over = zc__chan_is_closed(ch);", "sp->over = false;"),
    Mutant("commit_lets_one_through", "src/permit.c",
           "zc__chan_wake_receivers(ch, run > 0 ? run : 1);",
           "(void)run; zc__chan_wake_receivers(ch, 1);"),
    Mutant("release_after_drop_einval", "src/permit.c",
           "if (s != ZC_OK) return s == ZC_CLOSED && hole_status(ch) == ZC_CLOSED ? ZC_OK : ZC_EINVAL;",
           "if (s != ZC_OK) return ZC_EINVAL;"),
    Mutant("abandoned_commit_einval", "src/queue/ring.c",
           "if (now != reserved) return now == ((pos + 1) | r->mark_bit) ? ZC_CLOSED : ZC_EINVAL;",
           "if (now != reserved) return ZC_EINVAL;"),
    Mutant("timed_wait_ignores_self_wakes", "src/block_on.h",
           "((s = poll(op, &waker)) == ZC_PENDING &&\n"
           "                            zc__deadline_passed(deadline_ns))",
           "((s = poll(op, &waker)) == ZC_PENDING && 0)", preset="hooks"),
    Mutant("segment_fast_path_overruns", "src/queue/segq.h",
           "offset + 1 < ZC__SEG_CAP &&", "offset < ZC__SEG_CAP &&"),
    Mutant("bcast_head_stops_early", "src/broadcast.c",
           "    while (ch->head < ch->tail && ch->rem[slot_of(ch, ch->head)] == 0) {\n"
           "        ch->head++;",
           "    if (ch->head < ch->tail && ch->rem[slot_of(ch, ch->head)] == 0) {\n"
           "        ch->head++;"),
    Mutant("recv_misses_close", "src/queue/ring.c",
           "return (tail & r->mark_bit) ? ZC__RING_BLOCK_CLOSED : ZC__RING_BLOCK_EMPTY;",
           "return ZC__RING_BLOCK_EMPTY;"),
    Mutant("select_recv_owes_no_wake", "src/select.c",
           "    if (owed > 0) zc__wait_pay(case_chan(c), case_side(c), owed);",
           "    if (owed > 0 && !case_is_recv(c)) zc__wait_pay(case_chan(c), case_side(c), owed);"),
    Mutant("release_skips_no_holes", "src/queue/ring.c",
           "    if (head == pos) *freed = zc__ring_skip_holes(r, head);", "    (void)head;"),
    Mutant("ready_run_stops_at_hole", "src/queue/ring.c",
           "        else if (stamp != ((pos + 1) | r->mark_bit))\n            break;",
           "        else\n            break;"),
    Mutant("discard_keeps_reservation", "src/queue/ring.c",
           "atomic_compare_exchange_strong_explicit(at, &reserved, (head + 1) | r->mark_bit,",
           "atomic_compare_exchange_strong_explicit(at, &reserved, reserved,"),
    Mutant("full_ring_len_zero", "src/queue/ring.c",
           "        return (tail & ~r->mark_bit) == head ? 0 : r->cap;", "        return 0;"),
]

# Changes no test is asked to catch, and why.
SURVIVORS = {
    "chan.c zc__chan_pass_on_send without skipping holes first":
        "a hole at head with senders waiting is skipped by whoever moves head onto it; "
        "only a race leaves one there",
    "chan.c recv_avail / queue.c zc__queue_room not 0 once closed":
        "the pass-ons they gate are deferred to the outermost wake (waitlist.c), so they "
        "cannot nest; a closed channel's wakes are close's, which wakes every waiter",
    "ring_batch.c zc__ring_push_many: a skipped hole not counted in *freed":
        "a send meets a hole at head only in a race (see above)",
    "wait.h zc__wait_slow: holes skipped, nothing taken, and no wake paid":
        "a receive meets a hole at head only in a race (see above)",
    "queue.c segq_push_many: all-or-nothing waits out ZC_PENDING only once begun":
        "the caller's loop comes back with begun set, and waits it out then",
    "segq.c: head's 'not in the last segment' mark never set":
        "a shortcut: without it every receive reads tail, same results",
    "ring.c zc__ring_pop_marked: a reservation at head is ZC_EMPTY without the seq_cst "
    "re-read":
        "that re-read is the receiver's half of the Dekker pairing with a commit's CAS; "
        "leaving it out loses a wake only if the two cross in the store buffers",
    "broadcast.c send_room not 0 once closed":
        "as chan.c's: the close has woken every sender already",
}


def run(cmd, cwd, limit=None):
    try:
        return subprocess.run(cmd, cwd=cwd, shell=True, capture_output=True, text=True,
                              timeout=limit).returncode
    except subprocess.TimeoutExpired:
        return "hang"


def commands(preset, tests):
    """The build and ctest commands for these tests of preset (None: the whole suite)."""
    build = f"cmake --preset {preset} >/dev/null && cmake --build --preset {preset}"
    if tests is None:
        return build, f"ctest --preset {preset} -E 'stress_mpmc_p8c2|model'"
    return (f"{build} --target {' '.join('zchan_' + t for t in tests)}",
            f"ctest --preset {preset} -R '^({'|'.join(tests)})$'")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--preset", default=None, help="only the mutants of this preset")
    ap.add_argument("--keep", help="scratch folder to use and keep (default: a temporary one)")
    ap.add_argument("ids", nargs="*")
    o = ap.parse_args()
    chosen = [m for m in MUTANTS if (not o.ids or m.ident in o.ids)
              and (o.all or o.ids or m.test) and (not o.preset or m.preset == o.preset)]
    unknown = set(o.ids) - {m.ident for m in MUTANTS}
    if unknown:
        sys.exit("no such mutant: " + ", ".join(sorted(unknown)))

    scratch = o.keep or tempfile.mkdtemp(prefix="zchan-mutants-")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        dst = os.path.join(scratch, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.join(ROOT, f), dst)  # a new mtime: a kept build redoes it

    # The selection must pass before any change, or a failure would say nothing.
    for preset in sorted({m.preset for m in chosen}):
        mine = [m for m in chosen if m.preset == preset]
        whole = o.all or any(not m.test for m in mine)
        build, test = commands(preset, None if whole else sorted({m.test for m in mine}))
        if run(build, scratch) != 0 or run(test, scratch) != 0:
            sys.exit(f"the tests fail (or do not build) with no mutant, preset {preset}: "
                     f"see {scratch}")

    survived = 0
    for m in chosen:
        path = os.path.join(scratch, m.path)
        with open(path) as fh:
            src = fh.read()
        if src.count(m.old) != 1:
            print(f"{m.ident}: the line to change is not there once (src/ changed?)")
            survived += 1
            continue
        t0 = time.time()
        with open(path, "w") as fh:
            fh.write(src.replace(m.old, m.new))
        try:
            build, test = commands(m.preset, [m.test] if m.test and not o.all else None)
            if run(build, scratch) != 0:
                verdict = "did not build"
                survived += 1
            else:
                rc = run(f"{test} --timeout 60 --stop-on-failure", scratch, limit=300)
                verdict = "killed (hung)" if rc == "hang" else "killed" if rc != 0 else "SURVIVED"
                survived += verdict == "SURVIVED"
        finally:
            with open(path, "w") as fh:
                fh.write(src)
        print(f"{m.ident:34} {m.preset:6} {verdict} ({time.time() - t0:.0f} s)", flush=True)
    if not o.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"mutants: {len(chosen) - survived} killed, {survived} survived")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

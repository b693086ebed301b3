#!/bin/sh
# check.sh: check the waiter-list model (waitlist.pml) exhaustively with spin, in every
# configuration below, and print the states each one explored.
#
# usage: tests/model/check.sh [--fix=N] [--mutants] [--full] [--keep] [-DNAME=VALUE...]
#   --fix=N    check the model with FIX_PENDING=N (see waitlist.pml; 0 passes a held
#              wake-up on at a PENDING poll that still counts on it, and fails P6)
#              instead of the code's variant (1)
#   --mutants  check instead that every deliberate bug is caught: each MUTANT_* of
#              waitlist.pml on the code's variant (FIX_PENDING=1), and FIX_PENDING=0
#   --full     add three larger configurations without cancels: three receivers; two
#              messages and a close; two senders of two messages, one of which may
#              stall
#   --keep     keep the work directory (pan, trails) and print where it is
#   -DNAME=VALUE  a switch of waitlist.pml for every job (e.g. -DSTALLS=1)
# Needs spin (Debian: apt-get install spin) and a C compiler (cc). Exit status: 0 every
# configuration held (or, with --mutants, every mutant was caught), 1 otherwise, 77
# spin is missing (ctest reads that as skipped).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
fix=1 # the code's variant (see waitlist.pml)
mutants=0
full=0
keep=0
extra=
for arg in "$@"; do
    case $arg in
    --fix=*) fix=${arg#--fix=} ;;
    --mutants) mutants=1 ;;
    --full) full=1 ;;
    --keep) keep=1 ;;
    -D*=*) extra="$extra $arg" ;;
    *) echo "usage: $0 [--fix=N] [--mutants] [--full] [--keep] [-DNAME=VALUE...]" >&2; exit 2 ;;
    esac
done
command -v spin >/dev/null 2>&1 || { echo "check.sh: spin not found (apt-get install spin)"; exit 77; }
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/zchan-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/waitlist.pml" "$work/"
cd "$work"

# name | spin -D options. Receivers, senders, messages per sender, capacity 1, one
# cancel per task; with and without the close at the end (without it, a lost wake-up
# for a message cannot be hidden by the close's wake-all). In the last one a receiver
# may stall once woken (STALLS; P5: no other task is held up by it).
configs="
2 receivers, 1 sender, no close|-DNRECV=2 -DNSEND=1 -DMSGS=1 -DCLOSE_AT_END=0
2 receivers, 1 sender, close|-DNRECV=2 -DNSEND=1 -DMSGS=1 -DCLOSE_AT_END=1
1 receiver, 2 senders, no close|-DNRECV=1 -DNSEND=2 -DMSGS=1 -DCLOSE_AT_END=0
1 receiver, 2 senders, close|-DNRECV=1 -DNSEND=2 -DMSGS=1 -DCLOSE_AT_END=1
1 receiver, 1 sender x 2 messages, no close|-DNRECV=1 -DNSEND=1 -DMSGS=2 -DCLOSE_AT_END=0
2 receivers (one may close), 1 sender|-DNRECV=2 -DNSEND=1 -DMSGS=1 -DCLOSE_AT_END=0 -DRECV_CLOSES=1
1 batch receiver, 2 senders x 2, cap 2, no cancels|-DNRECV=1 -DNSEND=2 -DMSGS=2 -DCAP=2 -DBATCH_RECV=1 -DCANCELS=0 -DCLOSE_AT_END=0
2 receivers, 1 sender x 2 messages, no close, no cancels|-DNRECV=2 -DNSEND=1 -DMSGS=2 -DCLOSE_AT_END=0 -DCANCELS=0
2 rx (one may stall), 1 tx x 2, cap 2|-DNRECV=2 -DNSEND=1 -DMSGS=2 -DCAP=2 -DCLOSE_AT_END=0 -DCANCELS=0 -DSTALLS=1"
if [ "$full" = 1 ]; then
    configs="$configs
3 receivers, 1 sender, no cancels, no close|-DNRECV=3 -DNSEND=1 -DMSGS=1 -DCANCELS=0 -DCLOSE_AT_END=0
2 receivers, 1 sender x 2 messages, no cancels, close|-DNRECV=2 -DNSEND=1 -DMSGS=2 -DCANCELS=0 -DCLOSE_AT_END=1
1 rx, 2 tx x 2 (one may stall), cap 2|-DNRECV=1 -DNSEND=2 -DMSGS=2 -DCAP=2 -DCLOSE_AT_END=0 -DCANCELS=0 -DSTALLS=1"
fi

# run DEFINES REPORT: build and run pan; sets $verdict (held / violated) and $states. With
# REPORT=1 a violation's trail is kept and the command that replays it printed.
run() {
    spin -a $1 waitlist.pml >spin.out 2>&1 || { cat spin.out; exit 1; }
    $CC -O2 -DSAFETY -DCOLLAPSE -o pan pan.c 2>cc.out || { cat cc.out; exit 1; }
    ./pan -m200000 >pan.out 2>&1 || true
    states=$(awk '/states, stored/ { printf "%.0f", $1; exit }' pan.out) # pan prints %g past 1e8
    if grep -q 'errors: 0' pan.out && ! grep -q 'max search depth too small' pan.out; then
        verdict=held
    else
        verdict=violated
        if [ "$2" = 1 ] && [ -f waitlist.pml.trail ]; then
            n=$((n + 1))
            mv waitlist.pml.trail "waitlist$n.trail"
            echo "    $(grep -m1 -E 'assertion violated|invalid end state' pan.out)"
            echo "    replay: cd $(pwd) && cp waitlist$n.trail waitlist.pml.trail &&"
            echo "            spin -t -p -g $1 waitlist.pml"
        fi
    fi
    rm -f waitlist.pml.trail
}

# one INDEX NAME DEFINES: check job INDEX (a configuration, or with --mutants a mutant)
# in its own directory; print its line, and leave INDEX.states, INDEX.failed if it
# failed, and INDEX.done once it has finished.
one() {
    mkdir "$work/$1" && cd "$work/$1" && cp "$work/waitlist.pml" . || exit 1
    n=0
    if [ "$mutants" = 0 ]; then
        run "$3 -DFIX_PENDING=$fix$extra" 1
        printf '  %-48s %10s states  %s\n' "$2" "$states" "$verdict"
        [ "$verdict" = held ] || : >"$work/$1.failed"
    else
        run "$3$extra" 0
        if [ "$verdict" = violated ]; then
            printf '  %-24s caught after %s states\n' "$2" "$states"
        else
            printf '  %-24s NOT CAUGHT (%s states)\n' "$2" "$states"
            : >"$work/$1.failed"
        fi
    fi
    echo "${states:-0}" >"$work/$1.states"
    : >"$work/$1.done"
}

# lane K: the jobs whose index is K modulo $lanes, one after another. The lanes run at
# once, one a CPU (two at most: the largest configuration stores 135 million states).
lane() {
    i=0
    while IFS='|' read -r name defines; do
        [ -n "$name" ] || continue
        i=$((i + 1))
        [ $(((i - 1) % lanes)) = "$1" ] || continue
        (one "$i" "$name" "$defines") >"$work/$i.out" 2>&1
    done <"$work/jobs"
}

if [ "$mutants" = 0 ]; then
    echo "model: waitlist.pml, FIX_PENDING=$fix$extra"
    printf '%s\n' "$configs" >"$work/jobs"
else
    echo "mutants of waitlist.pml (FIX_PENDING=1 as the correct baseline): each must fail"
    small="-DNRECV=2 -DNSEND=1 -DMSGS=1 -DCLOSE_AT_END=0"
    # A receiver completing between the publish and the notify of the next message.
    two="-DNRECV=2 -DNSEND=1 -DMSGS=2 -DCLOSE_AT_END=0 -DCANCELS=0"
    {
        for m in NO_FORWARD NO_RECHECK EARLY_WOKEN CHECK_BEFORE_CLAIM; do
            printf '%s|%s\n' "$m" "$small -DFIX_PENDING=1 -DMUTANT_$m=1"
        done
        printf '%s|%s\n' COMPLETION_PASS_ON "$two -DFIX_PENDING=1 -DMUTANT_COMPLETION_PASS_ON=1"
        # A sender whose re-check sends while it is still linked.
        printf '%s|%s\n' ATTEMPT_LINKED "-DNRECV=1 -DNSEND=2 -DMSGS=1 -DCLOSE_AT_END=0 -DFIX_PENDING=1 -DMUTANT_ATTEMPT_LINKED=1"
        # A woken sender registering again at the front while a second slot frees.
        printf '%s|%s\n' LOOK_UNLOCKED "-DNRECV=1 -DNSEND=2 -DMSGS=2 -DCAP=2 -DCLOSE_AT_END=0 -DCANCELS=0 -DSTALLS=1 -DFIX_PENDING=1 -DMUTANT_LOOK_UNLOCKED=1"
        # A receiver that completes through its re-check, woken for the next message.
        printf '%s|%s\n' ATTEMPT_LINKED_PASS_ON "$two -DFIX_PENDING=1 -DMUTANT_ATTEMPT_LINKED_PASS_ON=1"
        printf '%s|%s\n' "FIX_PENDING=0 (herd)" "$small -DFIX_PENDING=0"
    } >"$work/jobs"
fi
lanes=$(nproc 2>/dev/null || echo 1)
[ "$lanes" -gt 2 ] && lanes=2
k=1
while [ "$k" -lt "$lanes" ]; do
    lane "$k" &
    k=$((k + 1))
done
lane 0
wait

failed=0
total=0
jobs=$(grep -c '|' "$work/jobs")
i=1
while [ "$i" -le "$jobs" ]; do
    cat "$work/$i.out"
    if [ ! -f "$work/$i.done" ]; then
        echo "  job $i did not finish"
        failed=1
    else
        total=$((total + $(cat "$work/$i.states")))
        if [ -f "$work/$i.failed" ]; then
            failed=1
            [ "$mutants" = 1 ] || keep=1 # the trail and its replay command
        fi
    fi
    i=$((i + 1))
done
[ "$mutants" = 1 ] || echo "states explored in all: $total"
if [ "$keep" = 1 ]; then
    trap - EXIT
    echo "work directory kept: $work"
fi
exit $failed

#!/bin/sh
# rendezvous.sh: check the select claim model (rendezvous.pml) exhaustively with spin,
# then check that each of its deliberate bugs (MUTANT_*) is caught.
#
# usage: tests/model/rendezvous.sh
# Needs spin (Debian: apt-get install spin) and a C compiler (cc). Exit status: 0 the
# model held and every mutant was caught, 1 otherwise, 77 spin is missing (ctest reads
# that as skipped).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
command -v spin >/dev/null 2>&1 || { echo "rendezvous.sh: spin not found (apt-get install spin)"; exit 77; }
CC=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/zchan-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/rendezvous.pml" "$work/"
cd "$work"

# check DEFINES: build and run pan; prints its verdict line, returns 0 if it held.
check() {
    rm -f rendezvous.pml.trail
    spin -a $1 rendezvous.pml >spin.out 2>&1 || { cat spin.out; exit 1; }
    $CC -O2 -DSAFETY -o pan pan.c 2>cc.out || { cat cc.out; exit 1; }
    ./pan -m100000 >pan.out 2>&1 || true
    states=$(awk '/states, stored/ { printf "%.0f", $1; exit }' pan.out)
    grep -q 'errors: 0' pan.out && ! grep -q 'max search depth too small' pan.out
}

failed=0
if check ""; then
    echo "  rendezvous.pml: held ($states states)"
else
    echo "  rendezvous.pml: VIOLATED: $(grep -m1 -E 'assertion violated|invalid end state' pan.out)"
    failed=1
fi
for m in NO_POKE CLAIM_BUSY; do
    if check "-DMUTANT_$m=1"; then
        echo "  MUTANT_$m: NOT CAUGHT ($states states)"
        failed=1
    else
        echo "  MUTANT_$m: caught ($(grep -m1 -E 'assertion violated|invalid end state' pan.out))"
    fi
done
exit $failed

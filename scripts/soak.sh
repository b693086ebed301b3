#!/usr/bin/env bash
# The soak test (tests/soak/soak.c; docs/reliability.md, "Soak") for as long as asked:
# configures the `hooks` preset (Debug, assertions on, the core's race-window hook points
# compiled in) in build-soak, builds the soak program and runs it for SECONDS seconds
# (default 1800) with the jitter hook on, logging everything to
# build-soak/soak-<date>.log. A line every minute; the last line is the summary:
#   soak: 1800 s, rounds N, messages M (received R, disposed of D), ops O, cancels C,
#   timeouts T, closes K, clones H, failures F
# Exits with the program's status: 0 no failure, 1 a failure, 134 (SIGABRT) a hang.
# ZCHAN_SOAK_SEED=N fixes the seed of the random choices; SOAK_JITTER=P sets the
# probability that a hook point jitters (default 0.05), SOAK_JITTER_SEED=N the seed of
# those choices (default: the clock).
# Usage: scripts/soak.sh [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

seconds=${1:-1800}
case $seconds in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
zc_need_packages cmake ninja-build gcc pkg-config libcmocka-dev || exit 1

dir=build-soak
mkdir -p "$dir"
log=$dir/soak-$(date +%Y%m%d-%H%M%S).log
echo "== soak: build (preset hooks, $dir)"
if ! { cmake --preset hooks -B "$dir" >"$dir/build.log" 2>&1 &&
       cmake --build "$dir" --target zchan_soak >>"$dir/build.log" 2>&1; }; then
    tail -n 40 "$dir/build.log"
    echo "soak: build failed (whole log: $dir/build.log)" >&2
    exit 1
fi
echo "== soak: $seconds s, log $log"
ZCHAN_SOAK_SECONDS=$seconds "$dir/tests/soak/soak" --jitter="${SOAK_JITTER:-0.05}" \
    --jitter-seed="${SOAK_JITTER_SEED:-$(date +%s)}" 2>&1 |
    tee "$log"
status=${PIPESTATUS[0]}
echo "soak: exit status $status (log: $log)"
exit "$status"

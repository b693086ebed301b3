#!/usr/bin/env bash
# A check of zchan_bench --placement (run by scripts/test.sh after the quick bench, whose
# build it uses): two measured runs of row 12 (4 sender threads, 1 receiver) and one of
# row 15-threads must print one placement line each, before the run's CSV line and none
# for the warm-ups, naming every thread in order (tx before rx) with an end time within
# the run and, on Linux, a CPU and switch counts read (not -1).
# Usage: bench/test_placement.sh [BUILD_DIR]   (default: build/bench)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bench=${1:-build/bench}/bench/zchan_bench
[ -x "$bench" ] || { echo "test_placement: no $bench (build the bench first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$bench" --rows 12,15-threads --runs 2 --quick --impls zchan --placement \
        >"$tmp/out" 2>"$tmp/err"; then
    cat "$tmp/err"; echo "test_placement: zchan_bench failed" >&2; exit 1
fi
python3 - "$tmp/out" "$tmp/err" "$(uname -s)" <<'EOF'
import re, sys
out, err, system = open(sys.argv[1]).read().splitlines(), sys.argv[2], sys.argv[3]
lines = [l for l in open(err).read().splitlines() if l.startswith("placement: ")]
csv = [l for l in out if l.startswith(("12,", "15-threads,"))]
threads = {"12": ["tx"] * 4 + ["rx"], "15-threads": ["tx", "rx"]}
fail = []
if len(lines) != len(csv) or len(csv) != 4:
    fail.append(f"{len(lines)} placement lines for {len(csv)} runs (want 4 and 4)")
for line, row in zip(lines, csv):
    head, *parts = line.split(" | ")
    m = re.fullmatch(r"placement: zchan ([\d.]+) ms", head)
    total = float(m.group(1)) if m else None
    roles = [p.split()[0] for p in parts]
    if total is None or roles != threads[row.split(",")[0]]:
        fail.append(f"{line!r} for {row!r}")
        continue
    for p in parts:
        m = re.fullmatch(r"(tx|rx) ([\d.]+) cpu (-?\d+)>(-?\d+) v (-?\d+) iv (-?\d+)", p)
        if not m or float(m.group(2)) > total + 0.001:
            fail.append(f"thread {p!r} in {line!r}")
        elif system == "Linux" and min(int(g) for g in m.groups()[2:]) < 0:
            fail.append(f"nothing read for {p!r}")
for f in fail:
    print("test_placement:", f, file=sys.stderr)
sys.exit(1 if fail else 0)
EOF
status=$?
[ $status = 0 ] && echo "test_placement: passed" || cat "$tmp/err" >&2
exit $status

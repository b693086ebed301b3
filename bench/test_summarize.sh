#!/usr/bin/env bash
# A check of bench/summarize.py (run by scripts/test.sh after the quick bench, where
# python3 and gnuplot are installed): a tiny CSV of two runs, summarised with a note in
# each form run.sh gives a partial run, quotes included (an empty "--impls ''" among
# them, which gnuplot must take as text). The table must carry the median and the ratio,
# and gnuplot must write the plot without complaint.
# Usage: bench/test_summarize.sh
set -uo pipefail
cd "$(dirname "$0")" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%s\n' 8,zchan,1,2,ms_total 8,go,1,8,ms_total 8,zchan,2,3,ms_total 8,go,2,6,ms_total \
    >"$tmp/in.csv"
fail=0
for impls in "'zchan,go'" "''"; do
    note="partial (--rows '8' --impls $impls) run, 2 cores, load 0.5 at start, 2026-11-30"
    rm -f "$tmp/out.md" "$tmp/out.png"
    if ! python3 summarize.py "$tmp/in.csv" --md "$tmp/out.md" --png "$tmp/out.png" \
            --note "$note" >"$tmp/out.txt" 2>"$tmp/err.txt"; then
        cat "$tmp/err.txt"; echo "test_summarize: summarize.py failed" >&2; exit 1
    fi
    # zchan's median of 2 and 3 is 2.5; the ratios per run are 0.25 and 0.5, median 0.375.
    grep -q '| 8 | .* | ms_total | 2.5 <sub>2-3</sub> | 7 <sub>6-8</sub> ×0.38 |' "$tmp/out.md" ||
        { echo "test_summarize: unexpected table:"; cat "$tmp/out.md"; fail=1; } >&2
    [ -s "$tmp/err.txt" ] &&
        { echo "test_summarize: stderr ($note):"; cat "$tmp/err.txt"; fail=1; } >&2
    [ -s "$tmp/out.png" ] || { echo "test_summarize: no plot written ($note)" >&2; fail=1; }
done
[ $fail = 0 ] && echo "test_summarize: passed"
exit $fail

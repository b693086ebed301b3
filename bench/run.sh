#!/usr/bin/env bash
# The whole benchmark in one command: build the C bench (Release), build the Rust and Go
# peer programs if they are there, run everything, and summarise.
#
#   bench/run.sh [--quick] [--runs K] [--rows LIST]
#
# --quick (counts / 10, 3 runs) is what the README's command and CI run. Results:
# bench/results/latest.csv (every run), latest.md (the table) and latest.png (the plot);
# a --quick run writes quick.{csv,md,png} instead (not committed), so that it never
# overwrites the committed results of a full run.
# Environment: BENCH_BUILD_DIR (default build/bench), BENCH_JOBS (build parallelism).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
results=$root/bench/results
args=("$@")
quick=0
for a in "$@"; do
    case $a in
    --quick) quick=1 ;;
    -h | --help)
        sed -n '2,10p' "$0"
        exit 0
        ;;
    esac
done

say() { printf '== %s\n' "$*" >&2; }
start=$(date +%s)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
mkdir -p "$results"
tmp=$results/run.csv.tmp
: >"$tmp"

# ---- build ---------------------------------------------------------------------------
say "building the C bench in $build"
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi
mkdir -p "$build"
log=$build/bench-build.log
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DZCHAN_BUILD_BENCH=ON -DZCHAN_BUILD_TESTS=OFF -DZCHAN_BUILD_EXAMPLES=OFF >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
grep '^-- bench:' "$log" >&2 || true
cmake --build "$build" --target zchan_bench zchan_bench_mem -j "${BENCH_JOBS:-2}" >>"$log" 2>&1 ||
    { tail -40 "$log" >&2; exit 1; }

# A peer directory's build.sh builds its program and prints the program's path as its
# last line of output. A peer that does not build is skipped, and the summary says so.
peers=()
for p in rust go; do
    script=$root/bench/$p/build.sh
    [ -x "$script" ] || { say "no bench/$p/build.sh: skipping the $p peers"; continue; }
    say "building the $p peers"
    if out=$("$script" 2>"$results/$p-build.log.tmp"); then
        prog=$(printf '%s\n' "$out" | tail -n 1)
        if [ -x "$prog" ]; then
            peers+=("$p:$prog")
        else
            say "bench/$p/build.sh printed no program path ('$prog'): skipping the $p peers"
        fi
    else
        say "bench/$p/build.sh failed (see below): skipping the $p peers"
        tail -20 "$results/$p-build.log.tmp" >&2
    fi
done

# ---- run -------------------------------------------------------------------------------
say "running zchan_bench ${args[*]:-}"
# A failed measurement (a wrong checksum, a crash) fails the script, after the summary.
failed=0
"$build/bench/zchan_bench" "${args[@]}" >>"$tmp" || { say "zchan_bench failed: see above"; failed=1; }
say "running zchan_bench_mem"
"$build/bench/zchan_bench_mem" "${args[@]}" >>"$tmp" || { say "zchan_bench_mem failed"; failed=1; }

# The peer programs have no row 14 (memory): leave it out of their --rows.
peer_args=()
prev=""
for a in "${args[@]}"; do
    if [ "$prev" = --rows ]; then
        a=$(printf '%s\n' "$a" | tr ',' '\n' | grep -v '^14' | paste -sd, -)
        [ -n "$a" ] || { peers=(); break; }
    fi
    peer_args+=("$a")
    prev=$a
done
for entry in "${peers[@]}"; do
    name=${entry%%:*}
    prog=${entry#*:}
    say "running the $name peers ($prog ${peer_args[*]:-})"
    "$prog" "${peer_args[@]}" >>"$tmp" || say "the $name peers exited with status $?: their rows may be missing"
done

# Instructions per pair of the single-thread rows 1-4 (zchan and the mutex-condvar
# channel) from callgrind: each case runs with N and 2N operations, and the difference
# divided by N leaves out start-up and set-up.
rows_wanted() { # does --rows (if given) select one of the rows 1-4 named in $1?
    local list="" prev=""
    for a in "${args[@]}"; do
        [ "$prev" = --rows ] && list=$a
        prev=$a
    done
    [ -z "$list" ] && return 0
    local IFS=,
    for item in $list; do [ "$item" = "$1" ] && return 0; done
    return 1
}
callgrind_ir() { # callgrind_ir ROW IMPL COUNT: instructions for the whole program
    local out=$results/callgrind.out.tmp
    valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$build/bench/zchan_bench" --count "$3" --rows "$1" --impls "$2" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
    rm -f "$out"
}
if command -v valgrind >/dev/null; then
    say "counting instructions with callgrind (rows 1-4)"
    for row in 1 2 3 4; do
        rows_wanted "$row" || continue
        per=1
        n=10000
        if [ "$row" -ge 3 ]; then per=1024; n=10; fi
        for impl in zchan mutex-condvar; do
            a=$(callgrind_ir "$row" "$impl" "$n")
            b=$(callgrind_ir "$row" "$impl" $((2 * n)))
            awk -v r="$row" -v i="$impl" -v a="$a" -v b="$b" -v d=$((n * per)) \
                'BEGIN { printf "%s,%s,1,%.1f,instr_per_pair\n", r, i, (b - a) / d }' >>"$tmp"
        done
    done
else
    say "valgrind not found (apt-get install valgrind): no instruction counts"
fi

stem=latest
[ $quick = 1 ] && stem=quick
mv "$tmp" "$results/$stem.csv"
rm -f "$results"/*-build.log.tmp
python3 "$root/bench/summarize.py" "$results/$stem.csv" --md "$results/$stem.md" \
    --png "$results/$stem.png" --note "$( [ $quick = 1 ] && echo quick || echo full ) run, $(nproc) cores, load $load at start, $(date -u +%Y-%m-%d)"
say "done in $(($(date +%s) - start)) s: $results/$stem.{csv,md,png}"
exit $failed

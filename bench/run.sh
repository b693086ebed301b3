#!/usr/bin/env bash
# The whole benchmark in one command: build the C bench (Release), build the Rust and Go
# peer programs if they are there, run everything, and summarise.
#
#   bench/run.sh [--quick] [--runs K] [--rows LIST] [--impls LIST]
#
# --quick (counts / 10, 3 runs) is what the README's command and CI run. --rows: row ids
# or prefixes (13 = every 13a/13b/13c row; 16 = the echo servers). --impls: the C implementations to run, by
# name, and `rust` / `go` for the peer programs (default: all). Results:
# bench/results/latest.csv (every run), latest.md (the table) and latest.png (the plot)
# from a full run (no --quick, --rows or --impls); a --quick run writes quick.* instead,
# and any other run partial.* (neither is committed), so that only a full run replaces
# the committed results.
# The programs are interleaved row by row: run k of a row is the C bench's run, the Rust
# peers' and the Go peers' back to back (in turn first), so that the ratios of run k
# compare measurements seconds apart, not minutes; and run k of every row comes before
# run k + 1 of any (so that the rows of one run, such as 13a's N = 2 and N = 512, are
# minutes apart at most).
# Environment: BENCH_BUILD_DIR (the C bench's build directory, default build/bench; the
# Rust and Go peers build in bench/rust/target and bench/go), BENCH_JOBS (build jobs),
# PEER_LIMIT_S (seconds one invocation of a peer program may take, default 120),
# ECHO_SECONDS (seconds of one row-16 client run: default 10, 1 with --quick).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
results=$root/bench/results
quick=0 runs="" rows="" impls="" runs_given=0
usage() { # the comment at the top of this file
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit "$1"
}
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --runs | --rows | --impls)
        if [ $# -lt 2 ] || [ -z "$2" ]; then
            echo "run.sh: $1 needs a value" >&2
            exit 2
        fi
        case $1 in --runs) runs=$2 runs_given=1 ;; --rows) rows=$2 ;; --impls) impls=$2 ;; esac
        shift
        ;;
    -h | --help) usage 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage 2 ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]*$ || -z $runs ]] ||
    { echo "run.sh: --runs needs a positive integer" >&2; exit 2; }
[ -n "$runs" ] || runs=$([ $quick = 1 ] && echo 3 || echo 7)
stem=latest
[ -n "$rows$impls" ] && stem=partial
[ $quick = 1 ] && stem=quick
common=() # the arguments every program gets
[ $quick = 1 ] && common+=(--quick)
# --impls: rust and go name the peer programs; the other names go to the C programs.
wants_peer() { [ -z "$impls" ] || [[ ",$impls," == *",$1,"* ]]; }
c_impls=$(printf '%s' "$impls" | tr ',' '\n' | grep -vx -e rust -e go -e '' | paste -sd, -) || true
c_args=("${common[@]}")
[ -n "$c_impls" ] && c_args+=(--impls "$c_impls")
run_c=1 # whether any C implementation is wanted
[ -n "$impls" ] && [ -z "$c_impls" ] && run_c=0

say() { printf '== %s\n' "$*" >&2; }
start=$(date +%s)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
mkdir -p "$results"
# Scratch files in a directory of this run's own (two runs at once do not mix).
work=$(mktemp -d "${TMPDIR:-/tmp}/zchan-bench.XXXXXX")
echo_pid="" # a row-16 server running now, stopped on exit
trap 'rm -rf "$work"; [ -z "$echo_pid" ] || kill "$echo_pid" 2>/dev/null' EXIT
tmp=$work/run.csv
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
echo_targets=() # row 16's client and zchan server use epoll: Linux only
[ "$(uname -s)" = Linux ] && echo_targets=(zchan_echo_client zchan_echo_server)
cmake --build "$build" --target zchan_bench zchan_bench_mem "${echo_targets[@]}" -j "${BENCH_JOBS:-2}" >>"$log" 2>&1 ||
    { tail -40 "$log" >&2; exit 1; }

# A peer directory's build.sh builds its program and prints the program's path as its
# last line of output. A peer that does not build is skipped, and the summary says so.
peers=()
for p in rust go; do
    wants_peer "$p" || continue
    script=$root/bench/$p/build.sh
    [ -x "$script" ] || { say "no bench/$p/build.sh: skipping the $p peers"; continue; }
    say "building the $p peers"
    if out=$("$script" 2>"$work/$p-build.log"); then
        prog=$(printf '%s\n' "$out" | tail -n 1)
        if [ -x "$prog" ]; then
            peers+=("$p:$prog")
        else
            say "bench/$p/build.sh printed no program path ('$prog'): skipping the $p peers"
        fi
    else
        say "bench/$p/build.sh failed (see below): skipping the $p peers"
        tail -20 "$work/$p-build.log" >&2
    fi
done

# ---- run -------------------------------------------------------------------------------
# progs: name:path of each program; ids_<name>: the rows it runs.
progs=()
[ $run_c = 1 ] && progs+=("c:$build/bench/zchan_bench")
progs+=("${peers[@]}")
row_args=()
[ -n "$rows" ] && row_args=(--rows "$rows")
# Fails (exit 2, naming the implementations built) on an unknown --impls name.
"$build/bench/zchan_bench" --list "${c_args[@]}" >/dev/null || exit 2
c_ids=$("$build/bench/zchan_bench" --list "${row_args[@]}")
mem_rows=0 # whether row 14 (zchan_bench_mem) is selected
[ -z "$rows" ] || [[ ",$rows," =~ ,14(-[^,]*)?, ]] && mem_rows=1
echo_row=0 # whether row 16 (the echo servers) is selected
[ ${#echo_targets[@]} -gt 0 ] && { [ -z "$rows" ] || [[ ",$rows," == *,16,* ]]; } && echo_row=1
if [ -z "$c_ids" ] && [ $mem_rows = 0 ] && [ $echo_row = 0 ]; then
    echo "run.sh: no row matches --rows $rows; the rows:" $("$build/bench/zchan_bench" --list) "14-* and 16" >&2
    exit 2
fi
declare -A has # has[name:id]: program name runs row id
for entry in "${progs[@]}"; do
    name=${entry%%:*}
    # The peers list every row they run (they reject ids they do not know, so no
    # --rows); only the rows the C bench selected are run.
    for id in $("${entry#*:}" --list); do has[$name:$id]=1; done
done

# One run of one row of one program, its run number set to k. Each distinct line of
# stderr is shown once (every start repeats the notes).
seen=$work/stderr.seen
err=$work/stderr
run_out=$work/out
c_csv=$work/c.csv # the C bench's lines alone (for callgrind below)
: >"$seen"
: >"$c_csv"
failed=0
# skip_c[id]: the C implementations that timed out in an earlier run of row id (their
# later runs are left out, as zchan_bench itself does within one invocation).
declare -A skip_c
run_prog() { # run_prog NAME PATH ID K
    local st=0 extra=("${common[@]}") timed_out
    if [ "$1" = c ]; then
        extra=("${c_args[@]}")
        [ -n "${skip_c[$3]:-}" ] && extra+=(--skip "${skip_c[$3]}")
        [ $(($4 % 2)) = 0 ] && extra+=(--reverse) # as the programs' order below
    fi
    # The C bench kills a measurement itself after its limit (15 s); a peer program
    # gets a whole-invocation limit (its warm-up and run), so that nothing hangs the suite.
    local limit=()
    [ "$1" = c ] || limit=(timeout "${PEER_LIMIT_S:-120}")
    "${limit[@]}" "$2" --rows "$3" --runs 1 "${extra[@]}" 2>"$err" |
        awk -F, -v OFS=, -v k="$4" 'NF == 5 { $3 = k } { print }' >"$run_out" || st=$?
    cat "$run_out" >>"$tmp"
    if [ "$1" = c ]; then
        cat "$run_out" >>"$c_csv"
        for timed_out in $(awk -F, '$5 == "timeout_ms" { print $2 }' "$run_out"); do
            skip_c[$3]=${skip_c[$3]:+${skip_c[$3]},}$timed_out
        done
    fi
    grep -vxF -f "$seen" "$err" | tee -a "$seen" >&2 || true
    if [ $st -ne 0 ]; then
        # A failed C measurement (a wrong checksum, a crash) fails the script, after the
        # summary; a peer program's failure only loses its rows.
        if [ "$1" != c ] && [ $st -eq 124 ]; then
            say "$1 bench, row $3, run $4: killed after ${PEER_LIMIT_S:-120} s"
        else
            say "$1 bench, row $3, run $4: exit status $st"
        fi
        [ "$1" = c ] && failed=1
    fi
}
# Row 16: an echo server (zchan's, Go's, tokio's) on a free localhost port, loaded by
# zchan_echo_client (2 threads, 100 connections, 100-byte messages) for ECHO_SECONDS.
# Each run takes that long per server, so a full run makes 3 runs of it unless --runs
# is given (7 would add over three minutes to the suite). Value: microseconds per
# request, 1e6 / (requests per second), lower is better like every other row; the
# requests per second and the mean latency go to stderr.
echo_seconds=${ECHO_SECONDS:-$([ $quick = 1 ] && echo 1 || echo 10)}
echo_runs=$runs
[ $runs_given = 1 ] || [ $quick = 1 ] || echo_runs=3
echo_servers=() # name:program
if [ $echo_row = 1 ]; then
    wants_peer zchan && echo_servers+=("zchan:$build/bench/echo/zchan_echo_server")
    for entry in "${peers[@]}"; do
        case ${entry%%:*} in
        go) echo_servers+=("go:${entry#*:}") ;;
        rust) echo_servers+=("tokio:${entry#*:}") ;;
        esac
    done
fi
run_echo() { # run_echo NAME PROGRAM K: one client run against a fresh server
    local out=$work/echo-server.out line port="" i args
    case $1 in # each listens on a free port and prints "port N"
    zchan) args=(-w 2 -p 0) ;;
    go) args=(-echo-server 0) ;;
    tokio) args=(--echo-server 0) ;;
    esac
    : >"$out"
    "$2" "${args[@]}" >"$out" 2>"$work/echo-server.err" &
    echo_pid=$!
    for i in $(seq 100); do # up to 10 s for the server to print its port
        port=$(awk '$1 == "port" { print $2; exit }' "$out")
        [ -n "$port" ] || ! kill -0 "$echo_pid" 2>/dev/null || { sleep 0.1; continue; }
        break
    done
    if [ -z "$port" ]; then
        say "row 16, $1 server, run $3: no port"
        cat "$work/echo-server.err" >&2
    elif line=$(timeout $((echo_seconds + 60)) "$build/bench/echo/zchan_echo_client" \
            -t 2 -c 100 -l 100 -d "$echo_seconds" -p "$port" 2>"$err"); then
        awk -v i="$1" -v k="$3" '{
            for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
            printf "16,%s,%d,%.4f,us_per_req\n", i, k, 1e6 / v["req_per_s"]
            printf "row 16, run %d, %s: %.0f requests/s, mean latency %.0f us\n", k, i,
                v["req_per_s"], v["mean_us"] > "/dev/stderr"
        }' <<<"$line" >>"$tmp"
    else
        cat "$err" >&2
        say "row 16, $1 server, run $3: the client failed"
        [ "$1" = zchan ] && failed=1
    fi
    kill "$echo_pid" 2>/dev/null || true
    wait "$echo_pid" 2>/dev/null || true
    echo_pid=""
}
# The thread flows (rows 5, 6, 10-12: more threads than this machine's 2 cores, or one
# a side) are bimodal on a shared host: a run lands in a fast or a slow scheduling
# pattern (for zchan and its peers alike, up to several times slower), so 7 runs give
# a median that is partly luck. They are short, so they get three times the runs.
flow_rows=" 5 6 10 11 12 "
say "running ${#progs[@]} programs (${progs[*]%%:*}), $runs runs, row by row ($((3 * runs)) for the thread flows)"
for k in $(seq 1 $((3 * runs))); do
    order=("${progs[@]}")
    if [ $((k % 2)) = 0 ]; then # every other run, the programs in reverse
        order=()
        for ((j = ${#progs[@]} - 1; j >= 0; j--)); do order+=("${progs[j]}"); done
    fi
    for id in $c_ids; do
        [ "$k" -le "$runs" ] || [[ $flow_rows == *" $id "* ]] || continue
        for entry in "${order[@]}"; do
            name=${entry%%:*}
            [ "$name" = c ] || [ -n "${has[$name:$id]:-}" ] || continue
            run_prog "$name" "${entry#*:}" "$id" "$k"
        done
    done
    [ "$k" -le "$echo_runs" ] || continue
    if [ $((k % 2)) = 0 ]; then # the servers in reverse order too
        for ((j = ${#echo_servers[@]} - 1; j >= 0; j--)); do
            run_echo "${echo_servers[j]%%:*}" "${echo_servers[j]#*:}" "$k"
        done
    else
        for entry in "${echo_servers[@]}"; do run_echo "${entry%%:*}" "${entry#*:}" "$k"; done
    fi
done
if [ $run_c = 1 ] && [ $mem_rows = 1 ]; then
    say "running zchan_bench_mem"
    "$build/bench/zchan_bench_mem" --runs "$runs" "${c_args[@]}" "${row_args[@]}" >>"$tmp" ||
        { say "zchan_bench_mem failed"; failed=1; }
fi

# Instructions per pair of the single-thread rows 1-4 of the C implementations from
# callgrind: each case runs with N and 2N operations, and the difference divided by N
# leaves out start-up and set-up. (The Rust and Go peers are not counted: Go's runtime
# does not run under valgrind.)
callgrind_ir() { # callgrind_ir ROW IMPL COUNT: instructions for the whole program
    local out=$work/callgrind.out
    valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$build/bench/zchan_bench" --count "$3" --rows "$1" --impls "$2" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
    rm -f "$out"
}
if ! grep -qE '^[1-4],' "$c_csv"; then
    : # no C measurement of rows 1-4 to count
elif command -v valgrind >/dev/null; then
    say "counting instructions with callgrind (rows 1-4)"
    for row in 1 2 3 4; do
        per=1
        n=10000
        if [ "$row" -ge 3 ]; then per=1024; n=10; fi
        # The C implementations measured in this row, if any (the floor is two
        # instructions).
        for impl in $(awk -F, -v r="$row" '$1 == r && $2 != "floor" { print $2 }' "$c_csv" | sort -u); do
            a=$(callgrind_ir "$row" "$impl" "$n")
            b=$(callgrind_ir "$row" "$impl" $((2 * n)))
            awk -v r="$row" -v i="$impl" -v a="$a" -v b="$b" -v d=$((n * per)) \
                'BEGIN { printf "%s,%s,1,%.1f,instr_per_pair\n", r, i, (b - a) / d }' >>"$tmp"
        done
    done
else
    say "valgrind not found (apt-get install valgrind): no instruction counts"
fi

if [ ! -s "$tmp" ]; then # nothing measured: leave the results as they were
    say "no results"
    exit 1
fi
cp "$tmp" "$results/$stem.csv"
kind=full
[ $stem = quick ] && kind=quick
[ $stem = partial ] && kind="partial (--rows '$rows' --impls '$impls')"
python3 "$root/bench/summarize.py" "$results/$stem.csv" --md "$results/$stem.md" \
    --png "$results/$stem.png" --note "$kind run, $(nproc) cores, load $load at start, $(date -u +%Y-%m-%d)"
say "done in $(($(date +%s) - start)) s: $results/$stem.{csv,md,png}"
exit $failed

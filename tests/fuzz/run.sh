#!/bin/sh
# run.sh: build the libFuzzer target fuzz_ops (clang, AddressSanitizer +
# UndefinedBehaviorSanitizer, the library instrumented for coverage) in its own build
# directory and fuzz for SECONDS seconds, starting from the seed corpus.
#
# usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]   (BUILD_DIR default: <root>/build-fuzz)
# New inputs that reach new code go to BUILD_DIR/corpus (the seed corpus in
# tests/fuzz/corpus is only read); a failing input is written to BUILD_DIR/crash-* and
# the script exits non-zero. Prints the number of executions at the end.
# Environment: CC (default clang), FUZZ_JOBS (parallel fuzzing processes, default 1).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 SECONDS [BUILD_DIR]" >&2; exit 2; }
seconds=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${2:-$root/build-fuzz}
CC=${CC:-clang}
jobs=${FUZZ_JOBS:-1}

# The library, instrumented for coverage feedback (fuzzer-no-link) and sanitized.
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" \
    -DZCHAN_SANITIZER=address -DZCHAN_BUILD_TESTS=OFF -DZCHAN_BUILD_EXAMPLES=OFF \
    -DZCHAN_BUILD_BENCH=OFF >"$build/cmake.log" 2>&1 || { cat "$build/cmake.log"; exit 1; }
cmake --build "$build" --target zchan_static >/dev/null
"$CC" -std=c11 -g -O1 -Wall -Wextra -Wpedantic -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I"$root/include" -I"$build/include" \
    "$here/fuzz_ops.c" "$build/libzchan.a" -lpthread -o "$build/fuzz_ops"

mkdir -p "$build/corpus"
cd "$build"
set +e
./fuzz_ops -max_total_time="$seconds" -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
    -timeout=10 -rss_limit_mb=2048 corpus "$here/corpus" >fuzz.log 2>&1
status=$?
set -e
if [ "$jobs" -gt 1 ]; then cat fuzz-*.log >>fuzz.log 2>/dev/null || true; fi
grep -E 'ERROR|SUMMARY|fuzz_ops: op|Test unit written' fuzz.log || true
execs=$(awk '/stat::number_of_executed_units/ { n += $NF } END { print n + 0 }' fuzz.log)
corpus=$(ls corpus | wc -l)
echo "fuzz_ops: $execs executions in ${seconds} s, corpus $corpus inputs ($build/corpus), exit $status"
exit $status

#!/usr/bin/env bash
# The whole zchan test suite: the dev preset (unit, stress, reliability, model, example
# and docs tests, warnings as errors); the same but docs and model under
# AddressSanitizer+UBSan (clang) and ThreadSanitizer (gcc); the unit tests with the
# condvar parker; the reliability tests and a 30 s soak with the library's race-window
# hooks; the public-header contract check; the installed-package test; the ABI check
# against abi/ (scripts/abi.sh); valgrind, aarch64 under qemu-user, 32-bit x86 (i686), a
# short fuzz run; mutants of the library that the tests must catch; and the benchmarks
# in quick mode with a check of their summary script.
# Works on a fresh Debian 12 machine: installs what it needs with apt-get. Ends with a
# line "N passed, M failed" (N, M count tests) and exits non-zero if anything failed.
# Usage: scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

# spin: without it the dev preset registers no model tests (tests/model), and the model
# would go unchecked.
zc_need_packages cmake ninja-build gcc g++ clang libclang-rt-14-dev pkg-config \
    libcmocka-dev binutils libuv1-dev libev-dev doxygen spin abigail-tools || exit 1

start=$SECONDS passed=0 failed=0 summary=()

# record STEP PASSED FAILED T0: add a step's counts to the totals and the summary.
record() {
    passed=$((passed + $2)) failed=$((failed + $3))
    summary+=("$(printf '%-9s %4d passed, %d failed  (%d s)' "$1" "$2" "$3" $((SECONDS - $4)))")
}

# ctest_preset PRESET [CTEST_ARGS...]: build a preset and run its tests (soak excluded
# by the test preset). A build failure counts as one failed test.
ctest_preset() {
    local preset=$1 t0=$SECONDS log; shift
    echo "== $preset"
    if ! zc_build "$preset"; then record "$preset" 0 1 "$t0"; return; fi
    log=build/$preset.ctest.log
    # ThreadSanitizer's runtime (gcc 12, clang 14) cannot map its shadow memory under the
    # wide mmap randomisation of newer kernels; running without ASLR sidesteps that.
    local wrap=()
    if [ "$preset" = tsan ] && setarch "$(uname -m)" -R true 2>/dev/null; then
        wrap=(setarch "$(uname -m)" -R)
    fi
    "${wrap[@]}" ctest --preset "$preset" "$@" 2>&1 | tee "$log"
    # ctest's closing line: "95% tests passed, 2 tests failed out of 40".
    local line total bad
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
    if [ -z "$line" ]; then record "$preset" 0 1 "$t0"; return; fi
    bad=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    record "$preset" $((total - bad)) "$bad" "$t0"
}

# step NAME COMMAND...: a check that counts as one test.
step() {
    local name=$1 t0=$SECONDS; shift
    echo "== $name"
    if "$@"; then record "$name" 1 0 "$t0"; else record "$name" 0 1 "$t0"; fi
}

ctest_preset dev
ctest_preset condvar -L unit
ctest_preset hooks
# A short soak (tests/soak) in the hooks build, so that it keeps working: 30 s of random
# traffic with the jitter hook on. The 30-minute runs are `scripts/soak.sh 1800`.
step soak env ZCHAN_SOAK_SECONDS=30 build/hooks/tests/soak/soak --jitter=0.05
ctest_preset asan
ctest_preset tsan
if [ -d ../shared/spec ]; then
    step contract ../shared/spec/check-contract.sh build/dev/include
else
    echo "== contract: skipped (no ../shared/spec beside the project)"
fi
step package tests/package/run.sh
step abi scripts/abi.sh
# Reliability: memcheck, aarch64 under qemu-user, 32-bit x86 (i686), a short fuzz run.
# (The waiter-list model runs in the dev preset's ctest, label model.)
step valgrind scripts/valgrind.sh
step aarch64 scripts/cross.sh aarch64
step i686 scripts/cross.sh i686
if [ -x tests/fuzz/run.sh ]; then step fuzz tests/fuzz/run.sh 60; fi
# The benchmarks must keep building and running (times are not judged here): quick mode,
# in its own build folder, writing bench/results/quick.* (ignored by git).
zc_need_packages python3 gnuplot-nox libglib2.0-dev libck-dev dpdk-dev || exit 1
BENCH_BUILD_DIR=$PWD/build/bench step bench bench/run.sh --quick
step summarize bench/test_summarize.sh
step placement bench/test_placement.sh build/bench
# Mutants of src/ that the tests must catch, each against the test named for it, in a
# scratch copy (python3 is installed above); `tests/mutants/run.py --all` runs every one
# against the whole suite.
step mutants tests/mutants/run.py

echo
echo "== zchan tests, by step"
printf '%s\n' "${summary[@]}"
echo "zchan tests: $passed passed, $failed failed in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

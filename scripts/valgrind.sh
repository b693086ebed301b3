#!/usr/bin/env bash
# zchan's unit tests, a selection of its stress tests, the scenario tests and the fuzz
# corpus run under valgrind's memcheck. A Debug build without sanitizers (build/valgrind);
# ctest's memcheck step runs each test with
#     valgrind --fair-sched=yes --error-exitcode=1 --leak-check=full
#              --errors-for-leak-kinds=definite,indirect
# so an invalid access, a read of uninitialised memory or a definite or indirect leak fails
# the test. --fair-sched=yes hands valgrind's one running thread around in turn; without
# it, a thread that spins waiting for another can hold on for minutes. The compile-only
# typed.h tests run no zchan code and are left out; test_scenarios_* run 1 % of their race
# rounds (all of them take about 4 minutes under valgrind); the stress tests are a
# selection (all 31 of the time took 6 minutes on 2 cores) with each stress program, every
# channel kind and every mode.
# Works on a fresh Debian 12 machine: installs what it needs with apt-get. Takes about
# 3 minutes on 2 cores (logs: build/valgrind.log, and valgrind's own per test in
# build/valgrind/Testing/Temporary/MemoryChecker.<test number>.log). Ends with
# "N passed, M failed" (N, M count tests) and exits non-zero if anything failed.
# Usage: scripts/valgrind.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

zc_need_packages cmake ninja-build gcc pkg-config libcmocka-dev valgrind || exit 1

# The stress tests run (names from tests/stress/CMakeLists.txt), about 10-30 s each.
stress=(
    stress_mpmc_p1c1_unbounded_try
    stress_mpmc_p2c8_cap1024_futures
    stress_mpmc_p4c4_cap1024_blocking
    stress_mpmc_p4c4_unbounded_mixed
    stress_tasks_512_cap16_workers2
    stress_select_p2c4_cap4_futures
    stress_select_p1c4_cap1_timeout
    stress_broadcast_p2r3_cap16_backpressure_mixed
    stress_broadcast_p2r3_cap4_overflow_mixed
    stress_batch_p2c4_unbounded_b64_try
    stress_batch_p4c4_cap16_b8_mixed
)

start=$SECONDS dir=build/valgrind log=build/valgrind.log
echo "== valgrind: build (Debug, no sanitizers, $dir)"
mkdir -p build
if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZCHAN_SANITIZER=none \
           -DZCHAN_WERROR=ON >"$log" 2>&1 && cmake --build "$dir" >>"$log" 2>&1; }; then
    tail -n 40 "$log"
    echo "valgrind: build failed (whole log: $log)" >&2
    echo "0 passed, 1 failed"; exit 1
fi
rm -f "$dir"/Testing/Temporary/MemoryChecker.*.log

passed=0 failed=0
# memcheck NAME EXPECTED CTEST_ARGS...: the tests that CTEST_ARGS select, under valgrind.
# EXPECTED (a count, or "any") guards against a renamed test quietly dropping out.
memcheck() {
    local name=$1 expected=$2 t0=$SECONDS out line total bad; shift 2
    echo "== valgrind: $name"
    # ctest -T memcheck asks for a dashboard file (DartConfiguration.tcl) that this
    # project does not write; it runs without one, and says so: those lines are dropped.
    out=$(cd "$dir" && ctest -T memcheck -j2 --output-on-failure \
        --overwrite MemoryCheckCommand="$(command -v valgrind)" \
        --overwrite MemoryCheckCommandOptions="--fair-sched=yes --error-exitcode=1 \
--leak-check=full --errors-for-leak-kinds=definite,indirect" "$@" 2>&1)
    grep -vE 'DartConfiguration|^ +(Site|Build name):|^ +Start |^ *[0-9]+/[0-9]+ MemCheck +#[0-9]+: .* Passed ' \
        <<<"$out"
    # ctest's closing line: "95% tests passed, 2 tests failed out of 40".
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' <<<"$out" | tail -n 1)
    if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
    bad=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    if [ "$expected" != any ] && [ "$total" -ne "$expected" ]; then
        echo "valgrind: $name ran $total tests, not the $expected listed in $0" >&2
        bad=$((bad + 1))
    fi
    passed=$((passed + total - bad)) failed=$((failed + bad))
    echo "valgrind ($name): $((total - bad)) passed, $bad failed in $((SECONDS - t0)) s"
}
# test_typed_* and test_builds_with_lto only compile (they would check the compiler);
# test_yield counts the thread's voluntary context switches, and valgrind's own thread
# lock adds some.
memcheck unit any -L unit -E '^(test_typed_|test_builds_with_lto$|test_yield$)'
memcheck stress ${#stress[@]} -R "^($(IFS='|'; echo "${stress[*]}"))\$"
# The scenario tests with 1 % of their race rounds (about 25 s under valgrind), and the
# fuzz target's checks on its corpus and 3000 generated inputs (about 15 s).
ZCHAN_SCENARIO_SCALE=1 memcheck reliability 6 -R '^(test_scenarios_.+|fuzz_ops_corpus)$'

# valgrind's report for every test it found something in.
for f in "$dir"/Testing/Temporary/MemoryChecker.*.log; do
    [ -e "$f" ] || continue
    grep -qE 'ERROR SUMMARY: [1-9]' "$f" && { echo "== $f"; head -n 80 "$f"; }
done

echo "valgrind tests: $passed passed, $failed failed in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

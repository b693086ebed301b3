#!/usr/bin/env bash
# zchan cross-compiled for aarch64 (Debian's gcc-aarch64-linux-gnu, warnings as errors,
# -O2 with assertions on) and its unit, stress, example and reliability tests run under
# qemu-user, twice: on qemu's default CPU, whose LSE atomics the read-modify-writes use
# (casal, ldaddal, swpal through libgcc's outline atomics), and as a Cortex-A53, which
# has no LSE, so the same calls take the ldaxr/stlxr loops. Loads and stores are
# ldar/stlr in both. What this does and does not show about weak memory:
# docs/reliability.md.
# Works on a fresh Debian 12 machine as root (or with sudo): installs the cross toolchain
# and qemu-user, and cmocka for arm64 through Debian multiarch (dpkg --add-architecture
# arm64). Build in build/aarch64, log in build/aarch64.log. Takes about 2 minutes on
# 2 cores once the packages are there. Ends with "N passed, M failed" (N, M count tests)
# and exits non-zero if anything failed.
# Usage: scripts/cross-aarch64.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

zc_need_packages cmake ninja-build pkg-config gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
    libc6-dev-arm64-cross qemu-user || exit 1
# cmocka has no -cross package: take the arm64 one from the archive (multiarch).
if ! dpkg-query -W -f='${Status}' libcmocka-dev:arm64 2>/dev/null |
        grep -q 'install ok installed'; then
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    dpkg --print-foreign-architectures | grep -qx arm64 ||
        "${sudo[@]}" dpkg --add-architecture arm64
    zc_need_packages libcmocka-dev:arm64 || {
        echo "cross-aarch64: the tests need libcmocka-dev:arm64 (Debian multiarch)" >&2
        echo "0 passed, 1 failed"; exit 1; }
fi

start=$SECONDS dir=build/aarch64 log=build/aarch64.log
echo "== aarch64: build ($dir)"
mkdir -p build
if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
           -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -g' \
           -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g' -DZCHAN_WERROR=ON >"$log" 2>&1 &&
       cmake --build "$dir" >>"$log" 2>&1; }; then
    tail -n 40 "$log"
    echo "aarch64: build failed (whole log: $log)" >&2
    echo "0 passed, 1 failed"; exit 1
fi

passed=0 failed=0
# run CPU: the tests with qemu emulating CPU (QEMU_CPU is read by qemu-aarch64).
run() {
    local cpu=$1 t0=$SECONDS out line total bad
    echo "== aarch64 under qemu-user, CPU $cpu"
    out=$(QEMU_CPU=$cpu ctest --test-dir "$dir" -L 'unit|stress|example|reliability' -j2 \
        --output-on-failure 2>&1)
    grep -vE '^ +Start |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' <<<"$out"
    # ctest's closing line: "95% tests passed, 2 tests failed out of 40".
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' <<<"$out" | tail -n 1)
    if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
    bad=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    passed=$((passed + total - bad)) failed=$((failed + bad))
    echo "aarch64 ($cpu): $((total - bad)) passed, $bad failed in $((SECONDS - t0)) s"
}
run max         # LSE atomics
run cortex-a53  # no LSE: load/store-exclusive loops

echo "aarch64 tests: $passed passed, $failed failed in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

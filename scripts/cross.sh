#!/usr/bin/env bash
# zchan cross-compiled with Debian's cross toolchains (warnings as errors, -O2 with
# assertions on), and its unit, stress, example and reliability tests run:
#   aarch64  under qemu-user, twice: on qemu's default CPU, whose LSE atomics the
#            read-modify-writes use (casal, ldaddal, swpal through libgcc's outline
#            atomics), and as a Cortex-A53, which has no LSE, so the same calls take the
#            ldaxr/stlxr loops. Loads and stores are ldar/stlr in both. What this does and
#            does not show about weak memory: docs/reliability.md.
#   i686     natively where the x86-64 kernel runs 32-bit x86 binaries, and under
#            qemu-user (qemu-i386) where it does not (a kernel built without IA32
#            emulation, as some VMs' are): size_t, pointers, and so every position counter
#            and stamp, are 32 bits wide, and what is compiled only for that case runs.
#            Built with the race-window hooks (ZCHAN_TEST_HOOKS), so that the hooks tests
#            start counters a few laps before their 32-bit wrap.
# Works on a fresh Debian 12 machine as root (or with sudo): installs the cross toolchain
# (and qemu-user), and cmocka for the target through Debian multiarch (dpkg
# --add-architecture). Build in build/TARGET, log in build/TARGET.log. Takes about 2
# minutes (aarch64) or 1 minute (i686; 4 under qemu) on 2 cores once the packages are there. Ends with
# "N passed, M failed" (N, M count tests) and exits non-zero if anything failed.
# Usage: scripts/cross.sh aarch64|i686
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

target=${1:-}
case $target in
aarch64) debarch=arm64 cpus=(max cortex-a53) extra=()
         packages=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
                   qemu-user) ;;
i686)    debarch=i386 cpus=(native) extra=(-DZCHAN_TEST_HOOKS=ON)
         packages=(gcc-i686-linux-gnu g++-i686-linux-gnu libc6-dev-i386-cross) ;;
*)       echo "usage: scripts/cross.sh aarch64|i686" >&2; exit 2 ;;
esac

zc_need_packages cmake ninja-build pkg-config "${packages[@]}" || exit 1
# cmocka has no -cross package: take the target's one from the archive (multiarch).
if ! dpkg-query -W -f='${Status}' "libcmocka-dev:$debarch" 2>/dev/null |
        grep -q 'install ok installed'; then
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    dpkg --print-foreign-architectures | grep -qx "$debarch" ||
        "${sudo[@]}" dpkg --add-architecture "$debarch"
    zc_need_packages "libcmocka-dev:$debarch" || {
        echo "cross $target: the tests need libcmocka-dev:$debarch (Debian multiarch)" >&2
        echo "0 passed, 1 failed"; exit 1; }
fi

start=$SECONDS dir=build/$target log=build/$target.log
mkdir -p build
# i686: can this kernel run a 32-bit x86 program? A probe tells; if it cannot, ctest runs
# each test binary through qemu-i386 (the program's own loader and libraries, as natively:
# the multiarch ones that came with libcmocka-dev:i386).
if [ "$target" = i686 ]; then
    probe=build/i686-probe
    if printf 'int main(void) { return 0; }\n' | i686-linux-gnu-gcc -x c - -o "$probe" 2>>"$log" &&
            "$probe" 2>/dev/null; then
        echo "== i686: this kernel runs 32-bit x86 programs: tests run natively"
        extra+=(-UCMAKE_CROSSCOMPILING_EMULATOR)
    else
        echo "== i686: this kernel does not run 32-bit x86 programs: tests run under qemu-i386"
        zc_need_packages qemu-user || exit 1
        cpus=(qemu)
        extra+=(-DCMAKE_CROSSCOMPILING_EMULATOR=qemu-i386)
    fi
    rm -f "$probe"
fi
echo "== $target: build ($dir)"
if ! { cmake -S . -B "$dir" -G Ninja \
           -DCMAKE_TOOLCHAIN_FILE="cmake/toolchain-$target.cmake" \
           -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O2 -g' \
           -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g' -DZCHAN_WERROR=ON "${extra[@]}" \
           >"$log" 2>&1 &&
       cmake --build "$dir" >>"$log" 2>&1; }; then
    tail -n 40 "$log"
    echo "$target: build failed (whole log: $log)" >&2
    echo "0 passed, 1 failed"; exit 1
fi

passed=0 failed=0
# run CPU: the tests, with qemu-aarch64 emulating CPU (QEMU_CPU); the i686 binaries run
# on the host's CPU, natively or through qemu-i386 with its default CPU, and CPU only
# names the run. Under an emulator test_yield is left out: it counts the thread's
# voluntary context switches, and the emulator's own locks can add some, as valgrind's
# do (one extra in 20 yields, seen once in CI as a Cortex-A53; not seen in 19 runs here).
emulated=()
[ "$target" = aarch64 ] || [ "${cpus[0]}" = qemu ] && emulated=(-E '^test_yield$')
run() {
    local cpu=$1 t0=$SECONDS out line total bad
    echo "== $target tests, CPU $cpu"
    local env=()
    [ "$target" = aarch64 ] && env=(QEMU_CPU="$cpu")
    out=$(env "${env[@]}" ctest --test-dir "$dir" -L 'unit|stress|example|reliability' \
        "${emulated[@]}" -j2 --output-on-failure 2>&1)
    grep -avE '^ +Start |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' <<<"$out"
    # ctest's closing line: "95% tests passed, 2 tests failed out of 40".
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' <<<"$out" | tail -n 1)
    if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
    bad=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    passed=$((passed + total - bad)) failed=$((failed + bad))
    echo "$target ($cpu): $((total - bad)) passed, $bad failed in $((SECONDS - t0)) s"
}
for cpu in "${cpus[@]}"; do run "$cpu"; done

echo "$target tests: $passed passed, $failed failed in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

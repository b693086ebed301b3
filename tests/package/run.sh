#!/usr/bin/env bash
# The installed-package test: build zchan, install it into a temporary prefix, then build
# and run tests/package/main.c against that tree four ways: find_package(zchan CONFIG)
# with zchan::zchan (shared) and zchan::zchan_static, and pkg-config zchan, shared and
# static. Also builds and runs the README's example, checks that the shared library
# exports only zc_ symbols, what ZCHAN_BROADCAST=OFF leaves out, and an install with
# absolute CMAKE_INSTALL_LIBDIR and INCLUDEDIR through pkg-config.
# Usage: tests/package/run.sh [WORK_DIR]   (default: a temporary directory, removed after)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if [ $# -gt 0 ]; then work=$1; mkdir -p "$work"; else
    work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
log=$work/log
cc=${CC:-cc}
fail() { echo "package: $*" >&2; exit 1; }
quiet() { "$@" >"$log" 2>&1 || { tail -n 30 "$log"; fail "failed: $*"; }; }

# install_zchan PREFIX CMAKE_ARGS...: a release build of the library alone, installed
# into PREFIX; sets libdir to where its libraries went and exports to the dynamic
# symbols that libzchan.so defines.
install_zchan() {
    local to=$1; shift
    quiet cmake -S "$src" -B "$work/build-${to##*/}" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$to" -DZCHAN_BUILD_TESTS=OFF -DZCHAN_BUILD_EXAMPLES=OFF \
        -DZCHAN_BUILD_BENCH=OFF -DZCHAN_WERROR=ON "$@"
    quiet cmake --build "$work/build-${to##*/}"
    quiet cmake --install "$work/build-${to##*/}"
    local pc
    pc=$(find "$to" -name zchan.pc | head -n 1)
    [ -n "$pc" ] || fail "zchan.pc was not installed"
    libdir=$(dirname "$(dirname "$pc")")
    [ -f "$libdir/libzchan.a" ] || fail "no libzchan.a in $libdir"
    exports=$(nm -D --defined-only "$libdir/libzchan.so" | awk '{print $3}')
}
install_zchan "$prefix"

# needs_shared EXE: true if EXE loads libzchan.so at run time.
needs_shared() { readelf -d "$1" | grep -q 'NEEDED.*libzchan\.so'; }

# 1. find_package(zchan CONFIG), both targets.
quiet cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/cmake"
needs_shared "$work/cmake/use_shared" || fail "zchan::zchan did not link the shared library"
needs_shared "$work/cmake/use_static" && fail "zchan::zchan_static linked the shared library"
"$work/cmake/use_shared" || fail "find_package, shared: main.c failed"
"$work/cmake/use_static" || fail "find_package, static: main.c failed"

# 2. pkg-config: shared by default; static by asking the linker for the archive.
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=(-std=c11 -Wall -Wextra -Wpedantic -Werror)
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
quiet "$cc" "${flags[@]}" "$here/main.c" -o "$work/pc_shared" \
    $(pkg-config --cflags --libs zchan) -Wl,-rpath,"$(pkg-config --variable=libdir zchan)"
# shellcheck disable=SC2046
quiet "$cc" "${flags[@]}" "$here/main.c" -o "$work/pc_static" $(pkg-config --cflags zchan) \
    -Wl,-Bstatic $(pkg-config --static --libs zchan) -Wl,-Bdynamic
needs_shared "$work/pc_shared" || fail "pkg-config --libs did not link the shared library"
needs_shared "$work/pc_static" && fail "pkg-config --static linked the shared library"
"$work/pc_shared" || fail "pkg-config, shared: main.c failed"
"$work/pc_static" || fail "pkg-config, static: main.c failed"

# 3. The README's example, as a user would paste it.
# shellcheck disable=SC2016 # backquotes, not an expansion
# The first C block only: later ones are fragments.
awk '/^```c$/ && !done {on=1; next} on && /^```$/ {on=0; done=1; next} on' \
    "$src/README.md" >"$work/readme.c"
[ -s "$work/readme.c" ] || fail "no C example in README.md"
# shellcheck disable=SC2046
quiet "$cc" "${flags[@]}" "$work/readme.c" -o "$work/readme" $(pkg-config --cflags zchan) \
    -Wl,-Bstatic $(pkg-config --static --libs zchan) -Wl,-Bdynamic
quiet "$work/readme"
[ "$(wc -l <"$log")" -eq 100 ] || fail "the README example printed $(wc -l <"$log") lines, not 100"

# 4. The shared library's exports: the public zc_ API only.
stray=$(grep -v '^zc_[a-z]' <<<"$exports" || true)
[ -z "$stray" ] || fail "libzchan.so exports more than zc_ symbols: $(tr '\n' ' ' <<<"$stray")"
grep -qx zc_bounded <<<"$exports" || fail "libzchan.so does not export zc_bounded"

# 5. ZCHAN_BROADCAST: ON (the default) installs broadcast.h and defines ZCHAN_HAS_BROADCAST;
#    OFF installs neither, exports no zc_bcast_ function, and zchan.h still compiles.
has_bcast() { grep -q '^#define ZCHAN_HAS_BROADCAST' "$1/include/zchan/config.h"; }
[ -f "$prefix/include/zchan/broadcast.h" ] || fail "broadcast.h not installed (ZCHAN_BROADCAST=ON)"
has_bcast "$prefix" || fail "config.h lacks ZCHAN_HAS_BROADCAST (ZCHAN_BROADCAST=ON)"
grep -qx zc_bcast_new <<<"$exports" || fail "zc_bcast_new not exported (ZCHAN_BROADCAST=ON)"
install_zchan "$work/prefix-nobcast" -DZCHAN_BROADCAST=OFF
[ ! -e "$work/prefix-nobcast/include/zchan/broadcast.h" ] || fail "broadcast.h installed with ZCHAN_BROADCAST=OFF"
has_bcast "$work/prefix-nobcast" && fail "config.h defines ZCHAN_HAS_BROADCAST with ZCHAN_BROADCAST=OFF"
grep -q '^zc_bcast_' <<<"$exports" && fail "zc_bcast_ functions exported with ZCHAN_BROADCAST=OFF"
quiet "$cc" "${flags[@]}" "$here/main.c" -o "$work/nobcast" -I"$work/prefix-nobcast/include" \
    -L"$libdir" -Wl,-rpath,"$libdir" -lzchan -pthread
quiet "$work/nobcast"

# 6. Absolute CMAKE_INSTALL_LIBDIR and INCLUDEDIR (Nix, some distributions): zchan.pc
#    names them as they are.
abs=$work/prefix-abs
install_zchan "$abs" -DCMAKE_INSTALL_LIBDIR="$abs/lib64" -DCMAKE_INSTALL_INCLUDEDIR="$abs/inc"
[ "$libdir" = "$abs/lib64" ] || fail "absolute libdir: zchan.pc went to $libdir"
# shellcheck disable=SC2046
quiet "$cc" "${flags[@]}" "$here/main.c" \
    -o "$work/pc_abs" $(PKG_CONFIG_PATH="$abs/lib64/pkgconfig" pkg-config --cflags --libs zchan) \
    -Wl,-rpath,"$abs/lib64"
"$work/pc_abs" || fail "pkg-config with an absolute libdir: main.c failed"

echo "package: find_package and pkg-config, shared and static, and the README example: ok"
echo "package: libzchan.so exports zc_* only; ZCHAN_BROADCAST ON and OFF install what they should"
echo "package: an absolute CMAKE_INSTALL_LIBDIR and INCLUDEDIR: ok"

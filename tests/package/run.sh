#!/usr/bin/env bash
# The package test: an outside project (tests/package: main.c) uses zchan each way a user
# can take it, and each build is run, linked with the shared library and with the static
# one:
#   1. installed: find_package(zchan CONFIG) (zchan::zchan, zchan::zchan_static);
#   2. installed: pkg-config zchan;
#   3. add_subdirectory of the sources; configured with cmocka hidden, it must build only
#      the libraries and leave the parent's cache alone; configured with everything on,
#      every target zchan defines must be named zchan_*;
#   4. FetchContent from a local file:// tarball of the sources (no network).
# Also: the installed files (soname, docs, zchan.pc's paths), the README's example, that
# the shared library exports only zc_ symbols, what ZCHAN_BROADCAST=OFF leaves out, and an
# install with absolute CMAKE_INSTALL_LIBDIR and INCLUDEDIR through pkg-config.
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

# The installed files: libzchan.so.MAJOR (soname) -> libzchan.so.MAJOR.MINOR.PATCH, the
# license and the docs, and a zchan.pc whose paths are plain.
version() { sed -n "s/^#define ZCHAN_VERSION_$1 //p" "$prefix/include/zchan/config.h"; }
major=$(version MAJOR)
full=$(version STRING | tr -d '"')
if [ -z "$major" ] || [ "$full" != "$major.$(version MINOR).$(version PATCH)" ]; then
    fail "config.h: version $full, major $major"
fi
[ -f "$libdir/libzchan.so.$full" ] || fail "no libzchan.so.$full"
readelf -d "$libdir/libzchan.so" | grep -q "SONAME.*\[libzchan\.so\.$major\]" ||
    fail "the soname of libzchan.so is not libzchan.so.$major"
for doc in LICENSE README.md "$src"/docs/*.md; do
    [ -f "$prefix/share/doc/zchan/${doc##*/}" ] || fail "${doc##*/} not installed in share/doc/zchan"
done
pc() { PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config "$@" zchan; }
[ "$(pc --variable=includedir)" = "$prefix/include" ] ||
    fail "zchan.pc: includedir $(pc --variable=includedir), not $prefix/include"
[ "$(pc --variable=libdir)" = "$libdir" ] || fail "zchan.pc: libdir $(pc --variable=libdir)"
[ "$(pc --modversion)" = "$full" ] || fail "zchan.pc: version $(pc --modversion), not $full"

# needs_shared EXE: true if EXE loads libzchan.so at run time.
needs_shared() { readelf -d "$1" | grep -q 'NEEDED.*libzchan\.so'; }

# cmake_way NAME CMAKE_ARGS...: configure and build tests/package in $work/NAME, and run
# use_shared (which must load libzchan.so) and use_static (which must not), and the
# inline fast paths' use_inline_shared and use_inline_static.
cmake_way() {
    local name=$1; shift
    quiet cmake -S "$here" -B "$work/$name" -G Ninja "$@"
    quiet cmake --build "$work/$name"
    needs_shared "$work/$name/use_shared" || fail "$name: zchan::zchan did not link the shared library"
    needs_shared "$work/$name/use_static" && fail "$name: zchan::zchan_static linked the shared library"
    "$work/$name/use_shared" || fail "$name, shared: main.c failed"
    "$work/$name/use_static" || fail "$name, static: main.c failed"
    "$work/$name/use_inline_shared" || fail "$name, shared: inline.c failed"
    "$work/$name/use_inline_static" || fail "$name, static: inline.c failed"
}

# 1. find_package(zchan CONFIG), both targets.
cmake_way cmake -DCMAKE_PREFIX_PATH="$prefix"

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

# 3. add_subdirectory. pkg-config finds nothing while configuring (so no cmocka either):
#    zchan as a sub-project builds its libraries alone, looks up no test dependency, and
#    leaves the parent's build type as the parent set it (not at all).
mkdir -p "$work/no-pc"
PKG_CONFIG_LIBDIR=$work/no-pc PKG_CONFIG_PATH='' \
    cmake_way subdir -DZCHAN_FROM=subdirectory -DZCHAN_SOURCE_DIR="$src"
cache=$work/subdir/CMakeCache.txt
for opt in TESTS EXAMPLES BENCH DOCS; do
    grep -qx "ZCHAN_BUILD_$opt:BOOL=OFF" "$cache" || fail "add_subdirectory: ZCHAN_BUILD_$opt is not OFF"
done
grep -qx 'CMAKE_BUILD_TYPE:STRING=' "$cache" ||
    fail "add_subdirectory: zchan set the parent's $(grep '^CMAKE_BUILD_TYPE:' "$cache")"
grep -q "^[^/#].*CMOCKA" "$cache" && fail "add_subdirectory: cmocka was looked up with the tests off"
#    With tests, examples, benchmarks and docs on (configured only): no name collides with
#    the parent's (hello, docs), and every target of zchan is named zchan_*.
quiet cmake -S "$here" -B "$work/subdir-all" -G Ninja -DZCHAN_FROM=subdirectory \
    -DZCHAN_SOURCE_DIR="$src" -DZCHAN_CHECK_NAMES=ON -DZCHAN_BUILD_TESTS=ON \
    -DZCHAN_BUILD_EXAMPLES=ON -DZCHAN_BUILD_BENCH=ON -DZCHAN_BUILD_DOCS=ON

# 4. FetchContent from a tarball of the sources, as a release would be fetched (the build
#    trees and .git left out).
name=${src##*/}
tar -C "$src/.." --exclude-vcs --exclude="$name/build*" --exclude="$name/out" \
    --exclude="$name/bench/rust/target" -czf "$work/zchan-src.tar.gz" "$name"
cmake_way fetch -DZCHAN_FROM=fetchcontent -DZCHAN_URL="file://$work/zchan-src.tar.gz"

# 5. The README's example, as a user would paste it.
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

# 6. The shared library's exports: the public zc_ API, and the private zc__ symbols that
# the inline fast paths reach, each declared ZC_EXPORT in zchan/inline.h or zchan/bits/.
stray=$(grep -v '^zc_[a-z]' <<<"$exports" || true)
for sym in $stray; do
    grep -qE "^ZC_EXPORT .*\b$sym\b" "$src"/include/zchan/inline.h "$src"/include/zchan/bits/*.h ||
        fail "libzchan.so exports $sym, neither public nor declared for zchan/inline.h"
done
for f in zc_bounded zc_version zc_version_string; do
    grep -qx $f <<<"$exports" || fail "libzchan.so does not export $f"
done

# 7. ZCHAN_BROADCAST: ON (the default) installs broadcast.h and defines ZCHAN_HAS_BROADCAST;
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

# 8. Absolute CMAKE_INSTALL_LIBDIR and INCLUDEDIR (Nix, some distributions): zchan.pc
#    names them as they are.
abs=$work/prefix-abs
install_zchan "$abs" -DCMAKE_INSTALL_LIBDIR="$abs/lib64" -DCMAKE_INSTALL_INCLUDEDIR="$abs/inc"
[ "$libdir" = "$abs/lib64" ] || fail "absolute libdir: zchan.pc went to $libdir"
# shellcheck disable=SC2046
quiet "$cc" "${flags[@]}" "$here/main.c" \
    -o "$work/pc_abs" $(PKG_CONFIG_PATH="$abs/lib64/pkgconfig" pkg-config --cflags --libs zchan) \
    -Wl,-rpath,"$abs/lib64"
"$work/pc_abs" || fail "pkg-config with an absolute libdir: main.c failed"

echo "package: find_package, pkg-config, add_subdirectory and FetchContent, shared and static: ok"
echo "package: as a sub-project, no test dependency, no cache value of the parent's, zchan_* targets"
echo "package: libzchan.so.$major ($full) exports zc_* only; zchan.pc, LICENSE and the docs installed"
echo "package: the README example; ZCHAN_BROADCAST ON and OFF; absolute LIBDIR and INCLUDEDIR: ok"

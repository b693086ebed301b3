#!/usr/bin/env bash
# The ABI check: the shared library built from this tree, described by abidw (Debian's
# abigail-tools), against the committed baseline abi/libzchan.so.MAJOR.abi, compared by
# abidiff. Fails on any change to what a program built against the baseline relies on: a
# function or variable removed, or changed (its signature, or the size or layout of a
# type it reaches, such as a future or a select case that users embed). Functions and
# variables only added are compatible: they are listed, and the check passes with a
# reminder to record them.
#
# The library is built for this check alone in build/abi: RelWithDebInfo (the released
# layout with the DWARF abidw reads), only the zchan_shared target, with the source path
# mapped to "." in the debug info so that the description is the same from any checkout.
# Only the types of the public headers (include/zchan, and the generated zchan/config.h)
# are described; internal structs appear as declarations only. The baseline is for
# x86_64 Linux (the sizes are the LP64 ones); on another machine the check is skipped.
#
# A change that the check rejects is a mistake, a deliberate break that goes with a new
# major version (a new soname, so a new baseline file), or a change that a person has
# judged compatible (private fields moved or retyped, the struct's size and alignment
# kept). The last two, and additions, update the baseline in the same commit, so that the
# next check compares with them:
#     scripts/abi.sh --update    rewrite abi/libzchan.so.MAJOR.abi from this tree
# Works on a fresh Debian 12 machine: installs what it needs with apt-get.
# Usage: scripts/abi.sh [--update]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

update=0
case ${1:-} in
    "") ;;
    --update) update=1 ;;
    *) echo "usage: scripts/abi.sh [--update]" >&2; exit 2 ;;
esac

if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "abi: skipped (the baseline describes x86_64 Linux; this is $(uname -sm))"
    exit 0
fi
zc_need_packages cmake ninja-build gcc binutils abigail-tools || exit 1

root=$PWD dir=build/abi log=build/abi.log
mkdir -p build
# gcc, as for the baseline: another compiler's DWARF may describe the same types
# differently.
if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=gcc \
        "-DCMAKE_C_FLAGS=-fdebug-prefix-map=$root=." \
        -DZCHAN_BUILD_TESTS=OFF -DZCHAN_BUILD_EXAMPLES=OFF -DZCHAN_BUILD_DOCS=OFF \
        -DZCHAN_BUILD_BENCH=OFF -DZCHAN_INSTALL=OFF &&
       cmake --build "$dir" --target zchan_shared; } >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "abi: build failed (whole log: $log)" >&2
    exit 1
fi

soname=$(objdump -p "$dir/libzchan.so" | awk '$1 == "SONAME" { print $2 }')
if [ -z "$soname" ]; then echo "abi: $dir/libzchan.so has no soname" >&2; exit 1; fi
baseline=abi/$soname.abi current=$dir/$soname.abi

# The public headers decide what is public: types defined anywhere else (src/) are
# dropped, and appear only as the declarations the public headers make of them.
# --exported-interfaces-only: without it, abidw 2.2 describes a function called in an
# earlier translation unit (zc_send_init, called in block.c) by that unit's declaration
# and leaves its definition out, so abidiff would not see the types only it reaches.
if ! abidw --headers-dir include/zchan --headers-dir "$dir/include/zchan" \
        --drop-private-types --exported-interfaces-only \
        --no-show-locs --no-corpus-path --no-comp-dir-path \
        --out-file "$current" "$dir/$soname"; then
    echo "abi: abidw could not describe $dir/$soname" >&2
    exit 1
fi
# Every exported symbol must come with its declaration (elf-symbol-id), or the check would
# be blind to the types that declaration reaches.
symbols() { sed -n "s/.*<elf-symbol name='\([^']*\)'.*/\1/p" "$1" | sort -u; }
declared() { sed -n "s/.* elf-symbol-id='\([^']*\)'.*/\1/p" "$1" | sort -u; }
bare=$(comm -23 <(symbols "$current") <(declared "$current"))
if [ -n "$bare" ]; then
    echo "abi: abidw described these symbols without their declaration: ${bare//$'\n'/ }" >&2
    exit 1
fi

if [ "$update" = 1 ]; then
    mkdir -p abi
    cp "$current" "$baseline"
    echo "abi: wrote $baseline from $dir/$soname; commit it with the change it records"
    exit 0
fi
if [ ! -f "$baseline" ]; then
    echo "abi: no baseline $baseline for $soname (a new major version?);" \
        "record it with scripts/abi.sh --update" >&2
    exit 1
fi

# abidiff's status is a bit set: 1 an error, 2 a usage error, 4 an ABI change, 8 an
# incompatible change (a symbol removed). abidiff counts a struct that grew as a change
# (4), not as incompatible, although a program that embeds the struct breaks: so any
# change fails but functions and variables added, which --no-added-syms leaves out.
# Harmless changes (an enumerator added, a private field renamed) are not counted.
echo "abi: abidiff $baseline (baseline) $current (built from this tree)"
abidiff --no-added-syms "$baseline" "$current" >"$dir/abidiff.txt" 2>&1
rc=$?
if [ $((rc & 3)) -ne 0 ]; then
    cat "$dir/abidiff.txt"
    echo "abi: abidiff failed (status $rc)" >&2
    exit 1
fi
if [ "$rc" -ne 0 ]; then
    cat "$dir/abidiff.txt"
    echo "abi: FAIL: $soname changed against $baseline (abidiff status $rc): a break of" \
        "the ABI is for a new major version; a deliberate compatible change updates the" \
        "baseline in the same commit (scripts/abi.sh --update)" >&2
    exit 1
fi
if ! abidiff "$baseline" "$current" >"$dir/abidiff-added.txt" 2>&1; then
    cat "$dir/abidiff-added.txt"
    echo "abi: $soname adds to $baseline (compatible); record the additions in the" \
        "baseline in the same commit: scripts/abi.sh --update"
else
    echo "abi: $soname is compatible with $baseline (abidiff counts no change)"
fi

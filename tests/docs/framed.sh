#!/bin/sh
# framed.sh FRAMES_DIR DOC...: fails unless each ```c or ```cpp block k of each DOC.md
# has a frame FRAMES_DIR/DOC-k.c (or .cpp for ```cpp), and each frame a block.
set -eu
frames=$1; shift
fail=0 expected=""
for doc in "$@"; do
    stem=$(basename "$doc" .md)
    for f in $(awk '/^```(c|cpp)$/ { n++; print n "." substr($0, 4) }' "$doc"); do
        name=$stem-$f
        expected="$expected $name"
        [ -f "$frames/$name" ] || { echo "framed: block ${f%%.*} of $doc has no frame $frames/$name"; fail=1; }
    done
done
for path in "$frames"/*; do
    name=$(basename "$path")
    case " $expected " in
        *" $name "*) ;;
        *) echo "framed: $path frames no block (blocks moved? renumber the frames)"; fail=1 ;;
    esac
done
[ $fail = 0 ] && echo "framed: every C and C++ block of $* has a frame"
exit $fail

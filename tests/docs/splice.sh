#!/bin/sh
# splice.sh DOC INDEX FRAME OUT: writes OUT, the FRAME with the INDEX-th C or C++ block
# of the markdown file DOC (1-based, counting ```c and ```cpp fences in order) put in
# place of its markers:
#   @SNIPPET@   the whole block;
#   @PART k@    the block's k-th paragraph (lines between blank lines), for blocks that
#               mix file-scope definitions with statements.
# Fails if DOC has no such block, if the frame has no marker, or if a marker names a part
# the block lacks, so that a frame cannot silently test an empty snippet.
set -eu
doc=$1 index=$2 frame=$3 out=$4
block=$(mktemp)
trap 'rm -f "$block"' EXIT
awk -v want="$index" '
    /^```(c|cpp)$/ { n++; on = (n == want); next }
    on && /^```$/  { on = 0; next }
    on             { print }
' "$doc" >"$block"
[ -s "$block" ] || { echo "splice: $doc has no C or C++ block number $index" >&2; exit 1; }
awk -v blockfile="$block" -v frame="$frame" '
    BEGIN {
        part = 1
        while ((getline line < blockfile) > 0) {
            whole = whole line "\n"
            if (line == "") { part++; continue }
            parts[part] = parts[part] line "\n"
        }
        nparts = part
    }
    /^[ \t]*@SNIPPET@[ \t]*$/ { printf "%s", whole; used++; next }
    /^[ \t]*@PART [0-9]+@[ \t]*$/ {
        k = $0; gsub(/[^0-9]/, "", k)
        if (!(k in parts)) { printf "splice: %s: the block has no part %d (it has %d)\n", frame, k, nparts > "/dev/stderr"; bad = 1; exit 1 }
        printf "%s", parts[k]; used++; next
    }
    { print }
    END {
        if (bad) exit 1
        if (!used) { printf "splice: %s has no @SNIPPET@ or @PART k@ marker\n", frame > "/dev/stderr"; exit 1 }
    }
' "$frame" >"$out.tmp"
# A #line directive would point errors at the doc, but the frame lines around the
# snippet would then be misnumbered; the output keeps the frame's own numbering.
mv "$out.tmp" "$out"

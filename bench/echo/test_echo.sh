#!/usr/bin/env bash
# A check of row 16's programs: the zchan echo server on a free localhost port, loaded by
# the client for a second over 8 connections on 2 threads. The client must verify every
# echo (it exits non-zero on a wrong byte, a closed connection or no completed request)
# and report requests > 0, and the server must stop cleanly on SIGTERM (exit 0).
# Usage: bench/echo/test_echo.sh SERVER CLIENT
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 SERVER CLIENT" >&2; exit 2; }
server=$1 client=$2
tmp=$(mktemp -d)
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

"$server" -w 2 -p 0 -s 30 >"$tmp/port" 2>"$tmp/server.err" &
pid=$!
port=""
for _ in $(seq 100); do
    port=$(awk '$1 == "port" { print $2; exit }' "$tmp/port")
    [ -z "$port" ] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/server.err"; echo "test_echo: the server printed no port" >&2; exit 1; }

fail=0
if line=$("$client" -t 2 -c 8 -l 100 -d 1 -p "$port"); then
    requests=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")
    echo "$line"
    [ "${requests:-0}" -gt 0 ] || { echo "test_echo: no request completed: $line" >&2; fail=1; }
else
    echo "test_echo: the client failed" >&2
    fail=1
fi
kill -TERM "$pid"
wait "$pid"
status=$?
pid=""
[ $status = 0 ] || { cat "$tmp/server.err"; echo "test_echo: the server exited $status" >&2; fail=1; }
[ $fail = 0 ] && echo "test_echo: passed"
exit $fail

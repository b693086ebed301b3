#!/bin/sh
# Builds zchan-peers-go with Debian's Go (no modules are fetched) and prints the
# binary's path on stdout (everything else goes to stderr). Installs golang-go with
# apt-get only if go is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v go >/dev/null 2>&1; then
    echo "build.sh: installing golang-go" >&2
    apt-get install -y golang-go >&2 || { apt-get update >&2 && apt-get install -y golang-go >&2; }
fi
# go needs a build cache; without HOME it has no default.
if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
    export GOCACHE="${TMPDIR:-/tmp}/zchan-peers-go-cache"
fi
cd "$here"
GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on go build -o "$here/zchan-peers-go" . >&2
echo "$here/zchan-peers-go"

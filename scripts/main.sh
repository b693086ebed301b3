#!/usr/bin/env bash
# The main job: build zchan (release preset), run every example, then a short benchmark.
# Works on a fresh Debian 12 machine: installs what it needs with apt-get (libuv and
# libev for the event-loop examples, g++ for the C++ one).
# Usage: scripts/main.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

zc_need_packages cmake ninja-build gcc g++ pkg-config libcmocka-dev libuv1-dev libev-dev

echo "== build (release preset, build/release)"
zc_build release
for example in hello work_spreading pipeline fanout; do
    echo "== example: $example"
    "build/release/examples/$example"
done
echo "== the other examples (examples/loops: event loops, coroutines, TCP, C++)"
ctest --preset release -L example -E '^example_(hello|work_spreading|pipeline|fanout)$' \
    --output-on-failure

echo "== benchmark (quick)"
# The C peers, instruction counts and the summary (bench/README.md); bench/rust and
# bench/go install their own toolchains.
zc_need_packages python3 valgrind gnuplot-nox libglib2.0-dev libck-dev dpdk-dev
bench/run.sh --quick

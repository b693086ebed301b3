#!/usr/bin/env bash
# The main job: build zchan (release preset), run every example, then a short benchmark.
# Works on a fresh Debian 12 machine: installs what it needs with apt-get.
# Usage: scripts/main.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

zc_need_packages cmake ninja-build gcc pkg-config libcmocka-dev

echo "== build (release preset, build/release)"
zc_build release
for example in hello work_spreading pipeline; do
    echo "== example: $example"
    "build/release/examples/$example"
done

echo "== benchmark (quick)"
if [ -x scripts/bench-quick.sh ]; then
    scripts/bench-quick.sh
elif [ -x bench/run.sh ]; then
    bench/run.sh --quick
else
    echo "the benchmark is not built yet (no scripts/bench-quick.sh or bench/run.sh)"
fi

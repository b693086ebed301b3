#!/bin/sh
# Builds zchan-peers-rs offline from Debian's packaged crates and prints the binary's
# path on stdout (everything else goes to stderr). Installs the Debian packages with
# apt-get only if something is missing. Uses Debian's cargo and rustc (1.65 / 1.63) so
# a fresh Debian 12 machine builds the same thing; set CARGO and RUSTC to override.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

packages="cargo rustc librust-async-channel-dev librust-futures-lite-dev librust-tokio-dev librust-flume-dev librust-crossbeam-channel-dev"
crates="async-channel-1.8.0 futures-lite-1.12.0 tokio-1.24.2 flume-0.10.14 crossbeam-channel-0.5.6"

missing=no
[ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] || missing=yes
for c in $crates; do
    [ -d "/usr/share/cargo/registry/$c" ] || missing=yes
done
if [ "$missing" = yes ]; then
    echo "build.sh: installing $packages" >&2
    apt-get install -y $packages >&2 || { apt-get update >&2 && apt-get install -y $packages >&2; }
fi

export CARGO="${CARGO:-/usr/bin/cargo}"
export RUSTC="${RUSTC:-/usr/bin/rustc}"
# Cargo reads .cargo/config.toml (crates.io replaced by /usr/share/cargo/registry) from
# the working directory, hence the cd; --offline and --locked make sure nothing is
# fetched and Cargo.lock is used as committed.
cd "$here"
"$CARGO" build --release --offline --locked >&2
echo "${CARGO_TARGET_DIR:-$here/target}/release/zchan-peers-rs"

# shellcheck shell=bash
# Sourced by scripts/main.sh and scripts/test.sh (not an entry point of its own).

# zc_need_packages PKG...: install the Debian packages that are missing, quietly.
# Uses sudo only when not root; prints apt's log only if apt fails. A machine without
# dpkg (not Debian) is left alone: the build then says what it lacks.
# A name without an architecture means this machine's (or "all"): the check looks at the
# architecture too, since dpkg-query also answers for a foreign one, as the libcmocka-dev:
# arm64 that scripts/cross.sh installs (then test.sh's build found no cmocka).
zc_need_packages() {
    command -v dpkg-query >/dev/null || return 0
    local missing=() p arch native
    native="($(dpkg --print-architecture)|all)"
    for p in "$@"; do
        arch=$native
        case $p in *:*) arch='[^ ]+' ;; esac
        dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null |
            grep -qE "^install ok installed $arch\$" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=() log
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    log=$(mktemp)
    echo "installing ${missing[*]} (apt-get)"
    # An update that fails for some index (a mirror caught mid-sync: "File has unexpected
    # size") still refreshes the others, and apt keeps the old copy of that one: go on to
    # the install, which fails by itself if what it needs is not there.
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update >"$log" 2>&1 ||
        echo "apt-get update reported errors; installing from the indexes it has" >&2
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
            --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
        tail -n 30 "$log"; rm -f "$log"
        echo "apt-get could not install: ${missing[*]}" >&2
        return 1
    fi
    rm -f "$log"
}

# zc_build PRESET [TARGET...]: configure and build one CMake preset, quietly; on failure
# print the end of the log. Logs stay in build/PRESET.log.
zc_build() {
    local preset=$1; shift
    local log=build/$preset.log targets=()
    [ $# -gt 0 ] && targets=(--target "$@")
    mkdir -p build
    if cmake --preset "$preset" >"$log" 2>&1 &&
       cmake --build --preset "$preset" "${targets[@]}" >>"$log" 2>&1; then
        return 0
    fi
    tail -n 40 "$log"
    echo "$preset: build failed (whole log: $log)" >&2
    return 1
}

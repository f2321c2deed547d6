#!/usr/bin/env bash
# Installs the Debian packages trms builds and tests with, when missing.
# Quiet when everything is present; uses sudo when not run as root.
set -euo pipefail

# chromium: the HTML report's test opens the page in headless Chromium.
# pigz: the HTML layout test records it (a real program, 4 threads); gawk,
# sqlite3 and xz-utils: the growth verdicts are tested on real programs.
# clang and libclang-rt-14-dev: libFuzzer, for tools/fuzz.sh.
# libzstd-dev: recordings compress their event blocks with zstd.
packages=(gcc g++ make cmake pkg-config liblmdb-dev libdw-dev libcapstone-dev libzstd-dev valgrind
          rr python3 chromium pigz gawk sqlite3 xz-utils clang libclang-rt-14-dev)

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian system; make sure these are installed: ${packages[*]}" >&2
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
        exit 1
    }
    sudo=sudo
fi
echo "install-deps: installing ${missing[*]}" >&2
install() {
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}
# A fresh machine may have no package lists yet.
install || { $sudo apt-get update -qq && install; }

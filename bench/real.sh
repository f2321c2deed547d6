#!/usr/bin/env bash
# Real Debian programs under trms and its peers, and the analysis alone
# against another build, side by side (bench/real_programs.py; the tables
# of bench/README.md, section "Real programs at scale").
#
#   BASE=/path/to/old/build bash bench/real.sh [peers|analysis|all|aprof]
#
# BASE holds bin/trms and lib/ of the build to compare with (without it,
# only the peers run). Needs xz-utils, pigz and sqlite3 (installed here
# when missing) and the aprof peer (APROF_LIB, APROF_RUN; see
# ../shared/peers/aprof/README.md). REPEAT rounds, default 3.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in xz-utils pigz sqlite3; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi
bash tools/build.sh build
exec python3 bench/real_programs.py "${1:-all}"

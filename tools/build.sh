#!/usr/bin/env bash
# Configures and builds trms into DIR (default build/); extra arguments go
# to cmake's configure step (e.g. -DTRMS_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)" -- --no-print-directory >/dev/null

#!/usr/bin/env bash
# The README's second command (and CI's): installs what is missing, builds,
# runs the whole test suite, then the unit and CLI tests again under AddressSanitizer
# and UndefinedBehaviorSanitizer, then fuzzes each parser of outside input
# for FUZZ_SECONDS (default 30; 0 skips it) with libFuzzer (tools/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh build
(cd build && ctest --output-on-failure -j "$(nproc)")
bash tools/build.sh build-asan -DTRMS_SANITIZE=ON
(cd build-asan && ctest --output-on-failure -j "$(nproc)" -L "unit|cli")
[ "${FUZZ_SECONDS:-30}" = 0 ] || bash tools/fuzz.sh "${FUZZ_SECONDS:-30}"

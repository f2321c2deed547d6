#!/usr/bin/env bash
# The README's second command (and CI's): installs what is missing, builds,
# runs the whole test suite, the step engine's and explore's tests four more
# times beside a CPU hog, then the unit and CLI tests again under AddressSanitizer
# and UndefinedBehaviorSanitizer, then fuzzes each parser of outside input
# for FUZZ_SECONDS (default 30; 0 skips it) with libFuzzer (tools/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh build
(cd build && ctest --output-on-failure -j "$(nproc)")
# The step engine's schedules and the explore runs built on them, four more
# times beside a CPU hog: a schedule that depends on the host's timing fails
# here before it reaches users.
sh -c 'while :; do :; done' &
hog=$!
trap 'kill "$hog" 2>/dev/null' EXIT
(cd build && ctest --output-on-failure -j "$(nproc)" -R '^(step|explore)_' --repeat until-fail:4)
kill "$hog"
trap - EXIT
bash tools/build.sh build-asan -DTRMS_SANITIZE=ON
(cd build-asan && ctest --output-on-failure -j "$(nproc)" -L "unit|cli")
[ "${FUZZ_SECONDS:-30}" = 0 ] || bash tools/fuzz.sh "${FUZZ_SECONDS:-30}"

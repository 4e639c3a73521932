#!/usr/bin/env bash
# Builds lineup and runs the test suite (ctest, each test in its own process
# with a timeout).
#
#   scripts/test.sh          the default tier: what CI runs
#   scripts/test.sh --long   every test, with the long tier (label "long"):
#                            the same claims at full scale, minutes more
#
# Further arguments go to ctest (-R REGEX, -L LABEL, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=(-LE long)
if [[ ${1:-} == --long ]]; then
    tier=()
    shift
fi
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600 "${tier[@]}" "$@"

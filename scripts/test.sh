#!/usr/bin/env bash
# Builds lineup and runs the whole test suite (ctest, each test in its own
# process with a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600

#!/usr/bin/env bash
# Configures and builds lineup into build/ (programs in build/bin/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINEUP_WERROR=ON -DLINEUP_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)"

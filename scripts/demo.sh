#!/usr/bin/env bash
# The main job on the bundled example: builds lineup, builds the contract
# queue harness (or the bundled two-lock queue) with lineup-cc and runs the
# Line-Up check on it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
src=../shared/contract/queue_harness.c
# without the contract beside the clone: the bundled two-lock queue
[ -f "$src" ] || src=benchmarks/subjects/twolock_queue.c
mkdir -p build/demo
build/bin/lineup-cc -shared -o build/demo/queue_harness.so "$src"
exec build/bin/lineup --matrix 3x3 --samples 100 --replay-dir build/demo build/demo/queue_harness.so

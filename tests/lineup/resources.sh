#!/usr/bin/env bash
# Resource limits of the Line-Up check (lineup [options] HARNESS.so): the
# processes, threads and mappings lineup itself uses count against the
# user's limits; running out of them is a tool error naming the limit
# (exit status 3, no verdict), never a finding about the harness. One
# ctest entry per CASE.
#
#   resources.sh CASE LINEUP HARNESS_DIR WORK
#
# HARNESS_DIR holds counter_fixed.so and queue.so built by lineup-cc (with
# gcc).
# Exit status: 0 pass, 1 fail, 77 skipped (ctest SKIP_RETURN_CODE).
set -uo pipefail

case_=$1
L=$2
G=$3
WORK=$4
LU_BIN=$L
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/../cli_lib.sh"
rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK" || exit 1
out=$WORK/out.txt
TEST=(--jobs 1 --test "inc(0) | inc(0) get(0)")

case $case_ in
nproc)
    if ! unprivileged "$G/counter_fixed.so"; then
        echo "SKIPPED: cannot run lineup as an unprivileged user here (root is exempt from RLIMIT_NPROC)"
        exit 77
    fi
    # room for lineup, its worker and the explorer: with one TLS for the
    # test threads (the default, here) they run on stacks the explorer
    # maps, no threads
    nobody_lu 0 3 "${TEST[@]}" counter_fixed.so
    has "^verdict: PASS"
    # each on TLS of its own, a test thread needs a pool thread: no room
    # for the test threads then. It used to be "harness error: could
    # not start the test threads" (exit status 2)
    nobody_lu 3 3 --tls per-thread "${TEST[@]}" counter_fixed.so
    has "^lineup: cannot start (a thread|a worker process): Resource temporarily unavailable \(RLIMIT_NPROC is [0-9]+, and lineup's own processes and threads count against it: raise it with ulimit -u\)"
    lacks "harness error"
    lacks_verdict
    # and with room, the same run passes
    nobody_lu 0 64 "${TEST[@]}" counter_fixed.so
    has "^verdict: PASS"
    ;;
as_samples)
    # the tests of a huge --samples do not fit the address space: a
    # resource error naming the limit (a crash, exit 139, before)
    as_lu 3 2000000 --quiet --matrix 2x2 --samples 1000000 --seed 1 "$G/counter_fixed.so"
    has "^lineup: out of memory for the tests.* \(--samples\): Cannot allocate memory \(RLIMIT_AS is [0-9]+ MB"
    has "^lineup: stopped: no verdict"
    lacks_verdict
    ;;
as_small)
    # too little address space for lineup's own threads and mappings: the
    # limit is named, whatever ran out first
    for kb in 20000 30000; do
        as_lu 3 $kb "${TEST[@]}" "$G/counter_fixed.so"
        has "^lineup: .*: (Cannot allocate memory|Resource temporarily unavailable) \(RLIMIT_AS is [0-9]+ MB.*: raise it with ulimit -v\)"
        lacks "harness error|crash|internal error"
        lacks_verdict
    done
    ;;
as_moderate)
    # the table of distinct histories used to reserve 2 GB of address
    # space: under 1 GB every test failed with "cannot map shared memory"
    as_lu 0 1000000 --matrix 3x3 --samples 3 --seed 7 --max-executions 2000 "$G/queue.so"
    has "^verdict: PASS"
    # with parallel explorers too
    as_lu 0 1000000 --jobs 2 --max-executions 0 --test "enqueue(200) | take(0) | try_dequeue(0)" "$G/queue.so"
    has "^verdict: PASS"
    has "split among 2 worker processes"
    ;;
*)
    echo "unknown case $case_"
    exit 1
    ;;
esac
echo "1 passed, 0 failed"

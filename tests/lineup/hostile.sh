#!/usr/bin/env bash
# What a harness does to lineup's processes and output streams (harness
# hostile.c). One ctest entry per CASE.
#
#   hostile.sh CASE LINEUP HOSTILE_SO WORK
set -uo pipefail

case_=$1
L=$2
SO=$3
WORK=$4
fail() {
    echo "FAIL: $*"
    for f in "$WORK"/out.txt "$WORK"/err.txt; do
        [[ -f $f ]] && { echo "---- $f"; cat "$f"; }
    done
    exit 1
}
rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK" || exit 1

# every process below pid (children, grandchildren, ...)
descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}
# alive: exists and is not a zombie waiting to be reaped
alive() {
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n $st && $st != Z ]]
}
# wait_descendants PID N: the processes below PID once there are N of
# them, or fewer after 20 s
wait_descendants() {
    local pids=""
    for _ in $(seq 200); do
        sleep 0.1
        pids=$(descendants "$1")
        [[ $(echo "$pids" | grep -c .) -ge $2 ]] && break
    done
    echo "$pids"
}
# kill_lineup PID WHAT PIDS...: SIGKILL lineup (PID); each of PIDS must
# be gone within 3 s
kill_lineup() {
    local lp=$1 what=$2 left p
    shift 2
    kill -KILL "$lp"
    wait "$lp" 2>/dev/null
    for _ in $(seq 30); do
        left=""
        for p in "$@"; do alive "$p" && left="$left $p"; done
        [[ -z $left ]] && return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null
    fail "$what outlived lineup's SIGKILL:$left"
}

case $case_ in
stdout)
    # the harness prints a marker on stdout: it must reach stderr, and
    # lineup's stdout must hold only its report
    rc=0
    timeout 120 "$L" --harness chatty --matrix 2x2 --samples 2 --seed 1 "$SO" >out.txt 2>err.txt || rc=$?
    [[ $rc == 0 ]] || fail "lineup exited $rc, expected 0"
    grep -q '^verdict: PASS' out.txt || fail "the report is not on stdout"
    if grep -q hostile-chatty-marker out.txt; then fail "the harness's output is on lineup's stdout"; fi
    grep -q hostile-chatty-marker err.txt || fail "the harness's output is not on stderr"
    ;;
orphans)
    # lineup killed with SIGKILL leaves no worker behind, also not one
    # blocked in a call lineup does not control
    "$L" --harness blocking --matrix 2x2 --samples 4 --jobs 2 --seed 1 --timeout 300 "$SO" >out.txt 2>err.txt &
    lp=$!
    pids=$(wait_descendants "$lp" 2)
    [[ -n $pids ]] || fail "lineup started no worker"
    sleep 0.5 # the workers reach read()
    # shellcheck disable=SC2046
    kill_lineup "$lp" workers $(descendants "$lp")
    ;;
explorer_orphans)
    # the same in phase 2, whose explorers are the worker's children: a long
    # exhaustive search of one test split between two explorers
    "$L" --harness sigpipe --test "put(1) put(1) put(1) | put(1) put(1) put(1) | put(1) put(1) put(1)" \
        --jobs 2 --preemptions -1 --max-executions 0 --reduction off --timeout 300 "$SO" >out.txt 2>err.txt &
    lp=$!
    # the worker and, below it, the phase-2 processes
    pids=$(wait_descendants "$lp" 3)
    [[ $(echo "$pids" | grep -c .) -ge 3 ]] || fail "lineup started no explorers: ${pids//$'\n'/ }"
    # shellcheck disable=SC2086
    kill_lineup "$lp" explorers $pids
    ;;
timeout_budget)
    # a test that times out is not minimized: each attempt would wait
    # --timeout again; nor is a crash past the first smaller test that
    # timed out
    start=$(date +%s)
    rc=0
    timeout 120 "$L" --harness blocking --matrix 2x2 --samples 2 --jobs 2 --seed 1 --timeout 2 --replay-dir . \
        "$SO" >out.txt 2>err.txt || rc=$?
    secs=$(($(date +%s) - start))
    [[ $rc == 2 ]] || fail "lineup exited $rc, expected 2 (timeouts only: inconclusive)"
    grep -q 'INCONCLUSIVE harness blocking: timeout' out.txt || fail "no timeout was reported"
    grep -q 'not minimized: each attempt would wait --timeout' out.txt || fail "the timeout was minimized"
    ((secs <= 8)) || fail "2 tests with --timeout 2 on 2 jobs took $secs s"
    start=$(date +%s)
    rc=0
    timeout 120 "$L" --harness fuse --test 'arm(0) fire(0)' --timeout 2 --replay-dir . "$SO" >out.txt 2>err.txt ||
        rc=$?
    secs=$(($(date +%s) - start))
    [[ $rc == 1 ]] || fail "lineup exited $rc, expected 1"
    grep -q 'FAIL harness fuse: crash' out.txt || fail "the crash was not reported"
    grep -q 'minimization stopped after 2 runs: a smaller test timed out' out.txt ||
        fail "minimization did not stop at the smaller test that timed out"
    ((secs <= 6)) || fail "the crash with --timeout 2 took $secs s"
    ;;
external_kill)
    # a worker killed by SIGKILL from outside (what the OOM killer does) is
    # a tool-side error (exit 3), not a crash of the code under test
    "$L" --harness blocking --test "block(0)" --timeout 60 "$SO" >out.txt 2>err.txt &
    lp=$!
    pids=$(wait_descendants "$lp" 1)
    [[ -n $pids ]] || fail "lineup started no worker"
    sleep 0.5 # the worker reaches read()
    # shellcheck disable=SC2086
    kill -KILL $pids
    rc=0
    wait "$lp" || rc=$?
    [[ $rc == 3 ]] || fail "lineup exited $rc, expected 3"
    grep -q 'killed by SIGKILL from outside the code under test' out.txt || fail "the kill was not explained"
    if grep -q 'FAIL harness blocking: crash' out.txt; then fail "reported as a crash"; fi
    ;;
*)
    fail "unknown case $case_"
    ;;
esac
echo "1 passed, 0 failed"

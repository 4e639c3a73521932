# shellcheck shell=bash disable=SC2154 # out and LU_BIN come from the sourcing script
# Helpers of the command-line test scripts (tests/lineup/cli.sh,
# tests/run/cli.sh), sourced by them. The caller sets LU_BIN (the lineup
# binary), out (the file each run's output goes to) and may set LU_TIMEOUT
# (seconds per run, default 120).

fail() {
    echo "FAIL: $*"
    echo "---- last output"
    cat "$out" 2>/dev/null
    exit 1
}
# lu WANT_RC ARGS...: lineup ARGS, output (stdout and stderr) in $out
lu() {
    local want=$1 rc=0
    shift
    timeout "${LU_TIMEOUT:-120}" "$LU_BIN" "$@" >"$out" 2>&1 || rc=$?
    [[ $rc == "$want" ]] || fail "lineup $* exited $rc, expected $want"
}
has() {
    grep -qE -- "$1" "$out" || fail "the output lacks /$1/"
}
lacks() {
    if grep -qE -- "$1" "$out"; then fail "the output has /$1/"; fi
}
# stopped_for SECS ARGS...: lineup ARGS in a process group of its own,
# stopped (as by Ctrl-Z) for SECS seconds from 0.3 s after its start;
# output in $out, exit status in $rc
stopped_for() {
    local secs=$1 pid
    shift
    set -m
    "$LU_BIN" "$@" >"$out" 2>&1 &
    pid=$!
    set +m
    sleep 0.3
    kill -STOP -- "-$pid"
    sleep "$secs"
    kill -CONT -- "-$pid"
    rc=0
    wait "$pid" || rc=$?
}

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
    # a run that ended already would test nothing
    kill -STOP -- "-$pid" || fail "lineup ended before it was stopped: the run is too short for this test"
    sleep "$secs"
    kill -CONT -- "-$pid"
    rc=0
    wait "$pid" || rc=$?
}
# lacks_verdict: the output has no verdict line (a resource error stops
# lineup before any)
lacks_verdict() {
    lacks "^verdict|^FAIL|PASS"
}
# unprivileged FILE...: RLIMIT_NPROC binds only unprivileged users (root
# is exempt from it), so a test of it runs lineup as user 65534 (nobody):
# sets NOBODY_DIR, a fresh directory that user owns and works in, holding
# copies of FILE... and of the liblineup.so beside $LU_BIN (the build
# directory may not be readable by that user), and NOBODY, the command
# prefix that runs as that user with the copies. Returns 1 when that is
# impossible here (not root, no setpriv, a /tmp that forbids execution):
# the caller skips.
unprivileged() {
    [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null || return 1
    NOBODY_DIR=$(mktemp -d) || return 1
    cp -- "$LU_BIN" "$(dirname -- "$LU_BIN")/../lib/liblineup.so" "$@" "$NOBODY_DIR/" || return 1
    chmod 755 "$NOBODY_DIR" && chown -R 65534:65534 "$NOBODY_DIR" || return 1
    NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups env "LD_LIBRARY_PATH=$NOBODY_DIR")
    # shellcheck disable=SC2064 # the directory is known now
    trap "rm -rf -- '$NOBODY_DIR'" EXIT
    (cd -- "$NOBODY_DIR" && "${NOBODY[@]}" "$NOBODY_DIR/lineup" --version) >/dev/null 2>&1
}
# nobody_lu WANT_RC NPROC ARGS...: lineup ARGS as user 65534 in
# NOBODY_DIR, with RLIMIT_NPROC at what that user runs now plus NPROC;
# output in $out
nobody_lu() {
    local want=$1 n=$2 rc=0 have
    shift 2
    have=$(ps -L -u 65534 --no-headers 2>/dev/null | wc -l)
    # shellcheck disable=SC2016 # expanded by the inner shell
    (cd -- "$NOBODY_DIR" && timeout "${LU_TIMEOUT:-120}" "${NOBODY[@]}" bash -c \
        'ulimit -u "$1" && shift && exec "$@"' - "$((have + n))" "$NOBODY_DIR/lineup" "$@") >"$out" 2>&1 || rc=$?
    [[ $rc == "$want" ]] || fail "lineup $* (as nobody, ulimit -u $((have + n))) exited $rc, expected $want"
}
# as_lu WANT_RC KB ARGS...: lineup ARGS under ulimit -v KB; output in $out
as_lu() {
    local want=$1 kb=$2 rc=0
    shift 2
    (ulimit -v "$kb" && exec timeout "${LU_TIMEOUT:-120}" "$LU_BIN" "$@") >"$out" 2>&1 || rc=$?
    [[ $rc == "$want" ]] || fail "lineup $* (ulimit -v $kb) exited $rc, expected $want"
}
# interrupt_after SECS SIG WHOM ARGS...: lineup ARGS in a process group of
# its own, sent SIG after SECS seconds: WHOM "group" sends it to the whole
# group (a terminal's Ctrl-C reaches the program under test too), "lineup"
# to lineup alone (kill PID); output in $out, exit status in $rc, process
# group in $pgid
interrupt_after() {
    local secs=$1 sig=$2 whom=$3
    shift 3
    set -m
    "$LU_BIN" "$@" >"$out" 2>&1 &
    pgid=$!
    set +m
    sleep "$secs"
    if [[ $whom == group ]]; then
        kill -s "$sig" -- "-$pgid"
    else
        kill -s "$sig" "$pgid"
    fi
    rc=0
    wait "$pgid" || rc=$?
}

#!/usr/bin/env bash
# expect.sh RC [PATTERN | !PATTERN]... -- COMMAND [ARGS...]
# Runs COMMAND, then asserts its exit status is RC and that its output
# (stdout and stderr) matches every PATTERN (grep -E) and no !PATTERN.
# With REPLAY=1 it also re-runs the first "replay: lineup --replay FILE"
# the output names and asserts that the replay exits with RC too and prints
# $REPLAY_PATTERN (default: the bug was reproduced).
set -uo pipefail
want=$1
shift
pats=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    pats+=("$1")
    shift
done
shift
out=$(mktemp)
trap 'rm -f "$out" "$out.r"' EXIT
check() {
    local file=$1 rc=$2 what=$3 ok=0
    if [ "$rc" != "$want" ]; then
        echo "FAIL: $what exited $rc, expected $want"
        ok=1
    fi
    for p in "${pats[@]}"; do
        if [ "${p:0:1}" = "!" ]; then
            if grep -Eq -- "${p:1}" "$file"; then
                echo "FAIL: $what printed /${p:1}/"
                ok=1
            fi
        elif ! grep -Eq -- "$p" "$file"; then
            echo "FAIL: $what did not print /$p/"
            ok=1
        fi
    done
    if [ $ok -ne 0 ]; then
        echo "---- output of $what"
        cat "$file"
    fi
    return $ok
}
"$@" >"$out" 2>&1
rc=$?
status=0
check "$out" $rc "$*" || status=1
if [ "${REPLAY:-0}" = 1 ]; then
    file=$(grep -Eo 'replay: lineup --replay [^ ]+' "$out" | head -1 | awk '{print $4}')
    if [ -z "$file" ]; then
        echo "FAIL: no replay file was reported"
        status=1
    else
        "$1" --replay "$file" >"$out.r" 2>&1
        rrc=$?
        rpat=${REPLAY_PATTERN:-"\(reproduced\)|^crash: |^divergence: "}
        if [ "$rrc" != "$want" ] || ! grep -Eq -- "$rpat" "$out.r"; then
            echo "FAIL: lineup --replay $file exited $rrc (expected $want) or did not print /$rpat/"
            cat "$out.r"
            status=1
        fi
    fi
fi
if [ $status -eq 0 ]; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
fi
exit $status

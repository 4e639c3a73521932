#!/usr/bin/env bash
# reduction_equal.sh [--long] LINEUP HARNESS.so [LINEUP OPTIONS...]
# Partial-order reduction must drop executions, never a distinct history:
# checks random tests exhaustively (within the preemption bound) with
# --reduction off and on and asserts that every test gets the same verdict
# and, when it passes, the same set of distinct phase-2 histories (the
# JSON's histories_digest, a sum of their hashes), and that reduction ran
# no more executions than the full search.
# The default tier checks three 2x2 tests, two 2x3 tests and one 3x2 test
# (bound 1), all from seed 1; --long (the long tier) two more 3x2 tests,
# from seed 2. A 3x2 test costs ten 2x2 or 2x3 tests.
set -uo pipefail
matrices=("--seed 1 --matrix 2x2 --samples 3" "--seed 1 --matrix 2x3 --samples 2"
    "--seed 1 --matrix 3x2 --samples 1 --preemptions 1")
if [ "${1:-}" = --long ]; then
    matrices=("--seed 2 --matrix 3x2 --samples 2 --preemptions 1")
    shift
fi
lineup=$1
so=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# one line per test, tab-separated ('|' separates threads in a test):
# test, verdict, digest, phase-2 executions
tests_of() {
    grep -o '"test": "[^"]*", "verdict": "[A-Z_]*"\|"phase2_executions": [0-9]*\|"histories_digest": "[0-9a-f]*"' "$1" |
        awk -F'"' '/^"test"/ { if (t != "") print t "\t" v "\t" d "\t" e; t = $4; v = $8; d = ""; e = "" }
                   /^"phase2_executions"/ { split($0, a, ": "); e = a[2] }
                   /^"histories_digest"/ { d = $4 }
                   END { if (t != "") print t "\t" v "\t" d "\t" e }'
}
status=0
for m in "${matrices[@]}"; do
    for r in off on; do
        # shellcheck disable=SC2086
        "$lineup" --quiet --jobs 1 --no-minimize --max-reports 1 --max-executions 0 $m "$@" \
            --reduction $r --json "$dir/$r.json" --replay-dir "$dir" "$so" >"$dir/$r.out" 2>&1
        rc=$?
        if [ $rc -gt 1 ]; then
            echo "FAIL: lineup $m --reduction $r exited $rc"
            cat "$dir/$r.out"
            exit 1
        fi
        tests_of "$dir/$r.json" >"$dir/$r.tests"
    done
    if [ ! -s "$dir/off.tests" ]; then
        echo "FAIL: $m: no tests in the JSON output"
        exit 1
    fi
    while IFS=$'\t' read -r t v d e && IFS=$'\t' read -r t2 v2 d2 e2 <&3; do
        if [ "$t" != "$t2" ] || [ "$v" != "$v2" ]; then
            echo "FAIL: $t: $v without reduction, $t2: $v2 with"
            status=1
        elif [ "$v" = PASS ] && [ "$d" != "$d2" ]; then
            echo "FAIL: $t: different distinct histories with reduction (digest $d without, $d2 with)"
            status=1
        elif [ "$v" = PASS ] && [ "$e2" -gt "$e" ]; then
            echo "FAIL: $t: $e2 executions with reduction, $e without"
            status=1
        else
            echo "ok: $m: $t: $v, $e executions without reduction, $e2 with"
        fi
    done <"$dir/off.tests" 3<"$dir/on.tests"
    if [ "$(wc -l <"$dir/off.tests")" != "$(wc -l <"$dir/on.tests")" ]; then
        echo "FAIL: $m: different numbers of tests"
        status=1
    fi
done
exit $status

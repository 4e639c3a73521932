#!/usr/bin/env bash
# --shard K/N: the N shares of a --samples run together check exactly the
# tests one run of all checks, each once, with the same verdicts and the
# same counts (same --seed), also for a randomized strategy whose seeds are
# drawn per sample.
set -uo pipefail
lineup=$1
so=$2
n=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0
compare() { # name lineup-options...
    local name=$1
    shift
    "$lineup" --quiet --no-minimize --replay-dir "$tmp" --json "$tmp/all.json" "$@" "$so" >"$tmp/all.out" 2>&1
    local rc_all=$? rc_max=0
    for k in $(seq 1 $n); do
        "$lineup" --quiet --no-minimize --replay-dir "$tmp" --json "$tmp/$k.json" --shard $k/$n "$@" "$so" \
            >"$tmp/$k.out" 2>&1
        local rc=$?
        [ $rc -gt $rc_max ] && rc_max=$rc
    done
    local got
    got=$(python3 - "$tmp" $n <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
def rows(path):
    d = json.load(open(path))
    return [(h['name'], t['sample'], t['test'], t['verdict'], t['phase1']['executions'], t['phase2']['executions'],
             t['phase2']['histories'], t['phase2']['checks']) for h in d['harnesses'] for t in h['tests']]
whole = rows(tmp + '/all.json')
parts = [r for k in range(1, n + 1) for r in rows('%s/%d.json' % (tmp, k))]
verdicts = {r[3] for r in whole}
if len(whole) < 2 * n or 'PASS' not in verdicts or len(verdicts) < 2:
    print('the run is too small to show anything: %s' % (whole,))
elif sorted(parts) != sorted(whole) or len(set(parts)) != len(parts):
    print('shares differ from the whole run:\n  whole %s\n  parts %s' % (sorted(whole), sorted(parts)))
else:
    print('ok')
PY
)
    if [ "$got" = ok ] && [ $rc_all = $rc_max ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name (exit status: all $rc_all, shares at most $rc_max): $got"
        fail=$((fail + 1))
    fi
}
compare ipb --matrix 2x3 --samples 10 --seed 11 --max-executions 3000
compare random --matrix 2x3 --samples 10 --seed 11 --strategy random --max-executions 300
# the share's header says which samples it checks
if grep -q "shard 2/3 checks samples 2, 5, ... (3 tests)" "$tmp/2.out"; then
    pass=$((pass + 1))
else
    echo "FAIL header of shard 2/3:"
    cat "$tmp/2.out"
    fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# Executions, distinct histories and checks of each phase, per test and in
# the summary, for every phase-2 strategy. Phase 2 checks each distinct
# history once, so its checks equal its distinct histories however many
# executions produce them; histories that differ only in the order of
# consecutive calls or of consecutive returns are one history (the order of
# those does not change the real-time order or any result). The exhaustive
# strategies' numbers are golden: a
# change is a change in the search and must be deliberate (update them and
# say why). The randomized strategies' numbers depend on their sampling, so
# only their invariants are asserted. Partial-order reduction is on by
# default (the .full rows: without it); idb and the randomized strategies
# do not use it.
set -uo pipefail
lineup=$1
dir=$2
fail=0
pass=0
json=$(mktemp)
out=$(mktemp)
trap 'rm -f "$json" "$out"' EXIT
fields() { # the first test of the first harness, and the run's strategy
    python3 -c "
import json
d=json.load(open('$json')); t=d['harnesses'][0]['tests'][0]
p1=t['phase1']; p2=t['phase2']
print(d['strategy'], t['verdict'], p1['executions'], p1['histories'], p1['checks'], p2['executions'], p2['histories'], p2['checks'], t.get('complete_bound', '-'))"
}
golden() { # name so test want lineup-options...
    local name=$1 so=$2 test=$3 want=$4
    shift 4
    # one explorer: split among explorers, a reduced search runs a number of
    # executions that depends on when the work was split (docs/por.md)
    "$lineup" --quiet --jobs 1 --max-executions 0 --json "$json" "$@" --test "$test" "$dir/$so" >"$out" 2>&1
    local got
    got=$(fields)
    if [ "$got" = "$want" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: got '$got', expected '$want'"
        echo "  (strategy verdict p1-executions p1-histories p1-checks p2-executions p2-histories p2-checks complete-bound)"
        fail=$((fail + 1))
    fi
}
golden counter gcc/counter_fixed.so 'inc(0) | inc(0) get(0)' "default PASS 3 3 3 44 8 8 2"
golden queue gcc/queue.so 'enqueue(200) try_dequeue(0) | take(0) enqueue(400)' "default PASS 4 4 4 96 17 17 2"
# the summary names the strategy and shows all three numbers of each phase
if grep -q "phase 1: 4 serial executions, 4 distinct serial histories, 4 determinism checks" "$out" &&
    grep -q "phase 2 (default): 96 executions, 17 distinct histories, 17 linearizability checks" "$out"; then
    pass=$((pass + 1))
else
    echo "FAIL summary lines:"
    cat "$out"
    fail=$((fail + 1))
fi
S='push(1) pop(0) | push(2) | pop(0)'
golden stack.dfs gcc/stack.so "$S" "dfs PASS 12 12 12 499 119 119 2" --strategy dfs
golden stack.dfs.full gcc/stack.so "$S" "dfs PASS 12 12 12 851 119 119 2" --strategy dfs --reduction off
golden stack.ipb gcc/stack.so "$S" "ipb PASS 12 12 12 622 119 119 2" --strategy ipb
golden stack.idb gcc/stack.so "$S" "idb PASS 12 12 12 164 44 44 2" --strategy idb
golden stack.default gcc/stack.so "$S" "default PASS 12 12 12 622 119 119 2"
golden stack.default.full gcc/stack.so "$S" "default PASS 12 12 12 982 119 119 2" --reduction off
# objects with threads of their own: phase 1 does not cover bound 0 for
# them (their threads run beside the calls), so phase 2 runs round 0 too
O='incr(1) | incr(2) incr(1)'
golden objthreads.janitor gcc/objthreads.so "$O" "default PASS 3 3 3 203 9 9 2" --harness janitor
golden objthreads.ticker gcc/objthreads.so 'fadd(1) | fadd(10) fadd(1)' "default PASS 3 3 3 465 9 9 2" --harness ticker
# unbounded: one DFS, or rounds until a bound cuts nothing
C='inc(0) | inc(0) get(0)'
golden counter.dfs.unbounded gcc/counter_fixed.so "$C" "dfs PASS 3 3 3 14 8 8 -1" --strategy dfs --preemptions -1
golden counter.ipb.unbounded gcc/counter_fixed.so "$C" "ipb PASS 3 3 3 44 8 8 -1" --strategy ipb --preemptions -1
golden counter.idb.unbounded gcc/counter_fixed.so "$C" "idb PASS 3 3 3 126 8 8 -1" --strategy idb --preemptions -1

# randomized: the budget is spent exactly, each distinct history checked once
for st in random pct pos; do
    "$lineup" --quiet --seed 1 --strategy $st --max-executions 300 --json "$json" --test "$S" "$dir/gcc/stack.so" >"$out" 2>&1
    got=$(python3 -c "
import json
d=json.load(open('$json')); t=d['harnesses'][0]['tests'][0]; p2=t['phase2']
ok = d['strategy'] == '$st' and t['verdict'] == 'PASS' and p2['executions'] == 300 and 1 <= p2['histories'] == p2['checks'] <= 119
ok = ok and ('depth' in d) == ('$st' == 'pct') and 'complete_bound' not in t
print('ok' if ok else 'bad: %s %s' % (d.get('strategy'), t))")
    if [ "$got" = ok ] && grep -q "phase 2 ($st): 300 executions" "$out" && grep -q "300 sampled schedules per test" "$out"; then
        pass=$((pass + 1))
    else
        echo "FAIL $st: $got"
        cat "$out"
        fail=$((fail + 1))
    fi
done

# the summary's numbers are the sums over the tests of every harness
"$lineup" --quiet --seed 2 --matrix 2x2 --samples 3 --json "$json" "$dir/gcc/two.so" >"$out" 2>&1
got=$(python3 -c "
import json
d=json.load(open('$json')); s=d['summary']
ts=[t for h in d['harnesses'] for t in h['tests']]
ok = len(ts) == 6 == s['tests']
for ph in ('phase1', 'phase2'):
    for k in ('executions', 'histories', 'checks'):
        ok = ok and s[ph][k] == sum(t[ph][k] for t in ts) > 0
ok = ok and all(t['phase2']['checks'] == t['phase2']['histories'] <= t['phase2']['executions'] for t in ts)
print('ok' if ok else 'bad: %s' % s)")
if [ "$got" = ok ]; then
    pass=$((pass + 1))
else
    echo "FAIL summary totals: $got"
    fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

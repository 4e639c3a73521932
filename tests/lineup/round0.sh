#!/usr/bin/env bash
# Iterative bounding (the default strategy, ipb) skips its bound-0 round
# when phase 1 switched threads only at calls' boundaries: every schedule
# without a preemption is then a serial execution phase 1 ran. Checked
# against the round run anyway (LINEUP_ROUND0=1, a testing knob): the same
# verdict and distinct histories (digest), and exactly phase 1's serial
# executions fewer; no skip when a serial call blocks (the queue's take);
# and under a budget smaller than the serial orders, the budget goes to
# preemptions: a bug the bound-0 round would have hidden is found, and a
# passing test's coverage still names bound 0 (phase 1 covered it); a
# search whose budget ran out at bound 0 says so and points to sampling.
set -uo pipefail
lineup=$1
dir=$2
fail=0
pass=0
json=$(mktemp)
out=$(mktemp)
trap 'rm -f "$json" "$out"' EXIT
ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL $*"
    fail=$((fail + 1))
}
row() { # verdict p1-executions p2-executions histories digest complete-bound
    python3 -c "
import json
t=json.load(open('$json'))['harnesses'][0]['tests'][0]
print(t['verdict'], t['phase1_executions'], t['phase2_executions'], t['histories'], t['histories_digest'], t['complete_bound'])"
}
compare() { # name so test skipped(yes|no) lineup-options...
    local name=$1 so=$2 test=$3 skipped=$4
    shift 4
    "$lineup" --quiet --jobs 1 --max-executions 0 --json "$json" "$@" --test "$test" "$dir/$so" >/dev/null 2>&1
    local a b
    a=$(row)
    LINEUP_ROUND0=1 "$lineup" --quiet --jobs 1 --max-executions 0 --json "$json" "$@" --test "$test" "$dir/$so" \
        >/dev/null 2>&1
    b=$(row)
    read -r va p1a p2a ha da ca <<<"$a"
    read -r vb p1b p2b hb db cb <<<"$b"
    if [ "$va $p1a $ha $da $ca" != "$vb $p1b $hb $db $cb" ] || [ "$va" != PASS ]; then
        bad "$name: '$a' against '$b' with the bound-0 round"
        return
    fi
    local want=$p2b
    [ "$skipped" = yes ] && want=$((p2b - p1b))
    if [ "$p2a" = "$want" ]; then ok; else bad "$name: $p2a executions, expected $want ('$b' with the round)"; fi
}
compare counter gcc/counter_fixed.so 'inc(0) | inc(0) get(0)' yes
compare counter.off gcc/counter_fixed.so 'inc(0) | inc(0) get(0)' yes --reduction off
compare stack3 gcc/stack.so 'push(1) pop(0) | push(2) | pop(0)' yes --preemptions 1
compare stack.ipb gcc/stack.so 'push(1) pop(0) | push(2) pop(0)' yes --strategy ipb
# a serial take() on an empty queue blocks: the round runs
compare queue.take gcc/queue.so 'take(0) enqueue(200) | enqueue(400) take(0) | try_dequeue(0)' no
# a timed wait that gives up in a serial execution (poll_ of an empty work
# queue): the round runs; where every poll_ follows a submit in its own
# thread, no serial execution waits, and it is skipped
compare workq.timedwait gcc/user_workq.so 'poll_(0) | submit(8)' no
compare workq gcc/user_workq.so 'submit(7) poll_(0) | submit(8)' yes
# one round at the bound (dfs), and delay bounding: nothing skipped
compare stack.dfs gcc/stack.so 'push(1) pop(0) | push(2) pop(0)' no --strategy dfs
compare stack.idb gcc/stack.so 'push(1) pop(0) | push(2) pop(0)' no --strategy idb

# 4x2: 2,520 serial orders, more than a budget of 2,000
T4='push(1) pop(0) | push(2) pop(0) | push(1) pop(0) | push(2) pop(0)'
"$lineup" --jobs 1 --no-minimize --replay-dir "$(dirname "$json")" --max-executions 2000 --test "$T4" \
    "$dir/gcc/stack_push.so" >"$out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^verdict: FAIL' "$out"; then ok; else bad "stack_push 4x2, budget 2000: exit $rc, expected the bug (1)"; fi
LINEUP_ROUND0=1 "$lineup" --jobs 1 --strategy ipb --max-executions 2000 --test "$T4" "$dir/gcc/stack_push.so" \
    >"$out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'before any bound was covered completely (in the worst, only schedules without preemptions ran: raise --max-executions, or sample schedules with preemptions with --strategy pos)' "$out"; then
    ok
else
    bad "stack_push 4x2, ipb, budget 2000, with the bound-0 round: exit $rc, expected a pass that covered no bound, and the advice"
fi
# the default gives bound 0 half of the budget, and POS the other half,
# which finds the bug
LINEUP_ROUND0=1 "$lineup" --jobs 1 --no-minimize --replay-dir "$(dirname "$json")" --max-executions 2000 \
    --test "$T4" "$dir/gcc/stack_push.so" >"$out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'execution [0-9]*, [0-9]* preemptions*, sampled by POS' "$out"; then
    ok
else
    bad "stack_push 4x2, default, budget 2000, with the bound-0 round: exit $rc, expected the bug found by POS"
    cat "$out"
fi
# the advice is for ipb alone: dfs's one round is at the bound, and the
# default samples with POS when its share runs out
"$lineup" --jobs 1 --strategy dfs --max-executions 2000 --test "$T4" "$dir/gcc/stack.so" >"$out" 2>&1
if grep -q 'before any bound was covered completely (raise --max-executions)$' "$out"; then
    ok
else
    bad "stack 4x2, dfs, budget 2000: expected no advice about bound 0"
    cat "$out"
fi
"$lineup" --jobs 1 --preemptions -1 --max-executions 2000 --test "$T4" "$dir/gcc/stack.so" >"$out" 2>&1
if grep -q "iterative bounding's share of the budget (1000 of 2000 executions) ran out before any bound was covered completely, then 1000 schedules were sampled (partial order sampling, seed 0; raise --max-executions for more)$" "$out"; then
    ok
else
    bad "stack 4x2, --preemptions -1, budget 2000: expected 1000 executions sampled after the unbounded search"
    cat "$out"
fi
"$lineup" --jobs 1 --max-executions 2000 --test "$T4" "$dir/gcc/stack.so" >"$out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'every schedule with at most 0 preemptions was covered' "$out"; then
    ok
else
    bad "stack 4x2, budget 2000: exit $rc, expected a pass covering bound 0"; cat "$out"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

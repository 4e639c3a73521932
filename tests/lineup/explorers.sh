#!/usr/bin/env bash
# Phase 2 in explorer processes: restarting the explorer (to shed memory
# that stuck executions leak; forced here every few executions) and
# splitting one test's schedule tree among parallel explorers (--jobs 2
# with a single exhaustive test; forced to split after every execution
# here) must not change what is explored: the same
# executions, distinct histories, checks and verdict as one explorer that
# never restarts; and random or POS sampling split among explorers (the
# same chunks of executions). Also with a crash, which must be reported the same way
# (parallel explorers stop when one crashes: only the verdict is the same).
# The exact comparisons run without partial-order reduction: an explorer
# that restarts, or takes over part of another's tree, starts without the
# sleep sets learnt before, so with reduction it may run more executions
# (never fewer histories: checked at the end).
set -uo pipefail
lineup=$1
dir=$2
json=$(mktemp)
replays=$(mktemp -d)
trap 'rm -rf "$json" "$replays"' EXIT
fail=0
pass=0
row() {
    python3 -c "
import json
t=json.load(open('$json'))['harnesses'][0]['tests'][0]; p=t['phase2']
print(t['verdict'], p['executions'], p['histories'], p['checks'], p['explorers'], 'restarted' if p['restarts'] else 'once')"
}
same() { # name so test explorers-with-jobs-2 lineup-options...
    local name=$1 so=$2 test=$3 split=$4
    shift 4
    "$lineup" --quiet --no-minimize --jobs 1 --replay-dir "$replays" --json "$json" "$@" --test "$test" "$dir/$so" \
        >/dev/null 2>&1
    local base
    base=$(row)
    local want=${base% 1 once}
    if [ "$want" = "$base" ]; then
        echo "FAIL $name: the plain run is not one explorer that never restarted: $base"
        fail=$((fail + 1))
        return
    fi
    local env jobs
    for variant in "LINEUP_RECYCLE_EVERY=$every 1" "LINEUP_RECYCLE_EVERY=1000000 2" "LINEUP_RECYCLE_EVERY=$every 2"; do
        # explorers give work away as often as they can
        env=${variant% *}
        jobs=${variant#* }
        env "$env" LINEUP_SPLIT_AFTER=1 "$lineup" --quiet --no-minimize --jobs "$jobs" --replay-dir "$replays" --json "$json" "$@" \
            --test "$test" "$dir/$so" >/dev/null 2>&1
        local got expect
        got=$(row)
        expect="$want $([ "$jobs" = 2 ] && echo "$split" || echo 1) $([ "$env" = LINEUP_RECYCLE_EVERY=1000000 ] && echo once || echo restarted)"
        if [ "$jobs" = 2 ] && [ "${want%% *}" != PASS ]; then
            # a failure stops the search: how far the others got differs
            got="${got%% *} ${got#* * * * }"
            expect="${expect%% *} ${expect#* * * * }"
        fi
        if [ "$got" = "$expect" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL $name with $env --jobs $jobs: got '$got', expected '$expect'"
            fail=$((fail + 1))
        fi
    done
}
Q='take(0) enqueue(200) | enqueue(400) take(0) | try_dequeue(0)'
every=40
same queue.ipb gcc/queue.so "$Q" 2 --max-executions 0 --reduction off
same stack.ipb gcc/stack.so 'push(1) pop(0) | push(2) pop(0) | pop(0)' 2 --max-executions 0 --reduction off
every=9
same queue.idb gcc/queue.so "$Q" 2 --max-executions 0 --strategy idb
same counter.dfs gcc/counter_fixed.so 'inc(0) get(0) | inc(0) | get(0)' 2 --max-executions 0 --strategy dfs \
    --reduction off
# a budget: one explorer for the DFS, cut at the same execution with
# restarts; the default's POS part after it takes chunks as pos does
same queue.budget.ipb gcc/queue.so "$Q" 1 --max-executions 700 --reduction off --strategy ipb
same queue.budget gcc/queue.so "$Q" 2 --max-executions 700 --reduction off
# random and POS: explorers take chunks of executions in turn, each drawn
# from the seed and the chunk's number, so that the executions are the
# same however many explorers run them (restarts come between chunks of
# 256). PCT learns the length of an execution within each chunk.
every=40
same queue.random gcc/queue.so "$Q" 2 --max-executions 1500 --strategy random --seed 3
same queue.pos gcc/queue.so "$Q" 2 --max-executions 1500 --strategy pos --seed 3
same queue.pct gcc/queue.so "$Q" 2 --max-executions 1500 --strategy pct --seed 3
# a crash in phase 2: the same report whatever the explorers do (found in
# phase 2's second execution: a restart after each)
every=1
same crash gcc/crash.so 'push(1) | pop(0) | pop(0)' 2 --max-executions 0
every=3
# (seed 29: the crash comes in the third chunk, after two restarts)
same crash.random gcc/crash.so 'push(1) | pop(0) | pop(0)' 2 --max-executions 3000 --strategy random --seed 29
# with reduction (the default): the same distinct histories (and checks and
# verdict) however the explorers restart and split the tree. And not many
# more executions: the explorers share one prefix-trace cache, so what one
# explored before it restarted, or another explored of the same tree, is
# not explored again (docs/por.md, section 8; each explorer with its own
# ran up to 3.3 times the executions of one that never restarts here).
execs() {
    python3 -c "import json; print(json.load(open('$json'))['harnesses'][0]['tests'][0]['phase2']['executions'])"
}
hist() {
    python3 -c "
import json
t=json.load(open('$json'))['harnesses'][0]['tests'][0]; p=t['phase2']
print(t['verdict'], p['histories'], p['checks'], t['histories_digest'])"
}
for c in "queue.so|$Q" "stack.so|push(1) pop(0) | push(2) pop(0) | pop(0)" "counter_fixed.so|inc(0) get(0) | inc(0) | get(0)"; do
    so=${c%%|*}
    test=${c#*|}
    "$lineup" --quiet --jobs 1 --max-executions 0 --json "$json" --test "$test" "$dir/gcc/$so" >/dev/null 2>&1
    want=$(hist)
    base=$(execs)
    for variant in "LINEUP_RECYCLE_EVERY=9 1" "LINEUP_RECYCLE_EVERY=1000000 2" "LINEUP_RECYCLE_EVERY=9 2"; do
        env "${variant% *}" LINEUP_SPLIT_AFTER=1 "$lineup" --quiet --jobs "${variant#* }" --max-executions 0 \
            --json "$json" --test "$test" "$dir/gcc/$so" >/dev/null 2>&1
        got=$(hist)
        if [ "$got" = "$want" ] && [ "${want%% *}" = PASS ]; then
            pass=$((pass + 1))
        else
            echo "FAIL $so with reduction and ${variant% *} --jobs ${variant#* }: got '$got', expected '$want'"
            fail=$((fail + 1))
        fi
        n=$(execs)
        if [ $((n * 4)) -le $((base * 7)) ]; then
            pass=$((pass + 1))
        else
            echo "FAIL $so with reduction and ${variant% *} --jobs ${variant#* }: $n executions, more than 1.75 times the $base of one explorer that never restarts"
            fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

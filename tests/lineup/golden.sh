#!/usr/bin/env bash
# Golden execution counts of the Line-Up check on fixed tests: phase 1
# serial executions, distinct serial histories, phase 2 executions and
# distinct histories, exhaustive at the given bound. A change here is a
# change in the search (scheduling points, spin detection, bounding) and must
# be deliberate: update the numbers in the same commit and say why (the
# last: iterative bounding no longer runs its bound-0 round when phase 1
# switched threads only at calls' boundaries; each count fell by the
# test's serial orders, the histories stayed). Histories
# that differ only in the order of consecutive calls or of consecutive
# returns count as one.
set -uo pipefail
lineup=$1
dir=$2
fail=0
pass=0
check() { # name so bound test expected-json-fields [reduction [harness]]
    local name=$1 so=$2 bound=$3 test=$4 want=$5 reduction=${6:-on} harness=(${7:+--harness "$7"})
    local json
    json=$(mktemp)
    # one explorer: split among explorers, a reduced search runs a number of
    # executions that depends on when the work was split (docs/por.md)
    "$lineup" --quiet --jobs 1 --preemptions "$bound" --max-executions 0 --reduction "$reduction" --json "$json" \
        "${harness[@]}" --test "$test" "$dir/$so" >/dev/null
    local got
    got=$(python3 -c "
import json,sys
t=json.load(open('$json'))['harnesses'][0]['tests'][0]
print(t['verdict'], t['phase1_executions'], t.get('serial_histories','-'), t.get('stuck_serial_histories','-'), t['phase2_executions'], t['histories'])")
    rm -f "$json"
    if [ "$got" = "$want" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: got '$got', expected '$want' (verdict p1-executions serial stuck-serial p2-executions histories)"
        fail=$((fail + 1))
    fi
}
# with partial-order reduction (the default): the same distinct histories
# as without, in fewer executions
check counter gcc/counter_fixed.so 2 'inc(0) | inc(0) get(0)' "PASS 3 3 0 44 8"
check queue gcc/queue.so 2 'enqueue(200) try_dequeue(0) | take(0) enqueue(400)' "PASS 4 2 2 96 17"
check stack gcc/stack.so 2 'push(1) pop(0) | push(2) pop(0)' "PASS 6 6 0 186 30"
check stack3 gcc/stack.so 1 'push(1) pop(0) | push(2) | pop(0)' "PASS 12 12 0 123 64"
# alternatives the cache covers before they run are not started (docs/por.md,
# section 8, "Ahead"): 1079 executions before that. 931 until a call's
# boundary reset spin detection: the second of two remaining(0) in a row
# was taken for a spin, not chosen while others could run (1990 without
# reduction)
check latch gcc/latch.so 2 'remaining(0) await(0) | remaining(0) remaining(0) | await(0) await(0)' "PASS 15 0 15 1033 56"
# without: every schedule within the bound
check counter.full gcc/counter_fixed.so 2 'inc(0) | inc(0) get(0)' "PASS 3 3 0 65 8" off
check queue.full gcc/queue.so 2 'enqueue(200) try_dequeue(0) | take(0) enqueue(400)' "PASS 4 2 2 154 17" off
check stack.full gcc/stack.so 2 'push(1) pop(0) | push(2) pop(0)' "PASS 6 6 0 266 30" off
check stack3.full gcc/stack.so 1 'push(1) pop(0) | push(2) | pop(0)' "PASS 12 12 0 131 64" off
check latch.full gcc/latch.so 2 'remaining(0) await(0) | remaining(0) remaining(0) | await(0) await(0)' "PASS 15 0 15 2004 56" off
# double-collect snapshots (harnesses/snapshot.c): a collect's second
# reads are looks, and every distinct history of the same object whose
# collects share no instruction (apart) is still explored, unbounded
# (before session 33, 7 of 8 and 30 of 32)
same_histories() { # name harness control test
    local name=$1 harness=$2 control=$3 test=$4 got=()
    for h in "$harness" "$control"; do
        got+=("$("$lineup" --quiet --jobs 1 --preemptions -1 --max-executions 0 --harness "$h" --test "$test" \
            --json - "$dir/gcc/snapshot.so" 2>/dev/null | python3 -c "
import json,sys
t=json.load(sys.stdin)['harnesses'][0]['tests'][0]
print(t['verdict'], t['histories'], t['histories_digest'])")")
    done
    if [ "${got[0]}" = "${got[1]}" ] && [ "${got[0]#PASS }" != "${got[0]}" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: $harness got '${got[0]}', $control '${got[1]}' (verdict histories digest)"
        fail=$((fail + 1))
    fi
}
check snapshot.rolled gcc/snapshot.so -1 'snap | set snap' "PASS 3 3 0 125 8" on rolled
check snapshot.unrolled gcc/snapshot.so -1 'snap | snap | set' "PASS 6 6 0 2773 32" on unrolled
same_histories snapshot.rolled rolled apart 'snap | set snap'
same_histories snapshot.rolled3 rolled apart 'snap | snap | set'
same_histories snapshot.unrolled unrolled apart 'snap | set snap'
same_histories snapshot.unrolled3 unrolled apart 'set | snap | snap'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

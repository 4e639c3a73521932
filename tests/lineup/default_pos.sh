#!/usr/bin/env bash
# The default strategy under a budget: iterative bounding with the first
# half, then POS with the rest when that half ran out before the search was
# complete (docs/guide.md, section 5).
#
#   default_pos.sh LINEUP BUILD_DIR     (BUILD_DIR/gcc holds the harnesses)
set -uo pipefail
lineup=$1
g=$2/gcc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    echo "FAIL $*"
    fail=$((fail + 1))
}
field() { # field JSON KEY: the first test's KEY (phase2.X for phase 2's)
    python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["harnesses"][0]["tests"][0]
for k in sys.argv[2].split("."):
    t = t.get(k, "absent") if isinstance(t, dict) else "absent"
print(t)' "$1" "$2"
}

# a lock that tests, then sets: two incs must both pass the test before
# either sets. Under the default budget ipb reaches only bound 0 of this
# 3x3 test (preemptions late in the execution), and misses it
T='inc(0) get(0) inc(0) | get(0) inc(0) get(0) | get(0) get(0) inc(0)'
"$lineup" --jobs 1 --strategy ipb --test "$T" "$g/tas_tts.so" >out 2>&1
rc=$?
if [ $rc = 0 ] && grep -q 'the budget of 20000 executions ran out; every schedule with at most 0 preemptions' out; then
    ok
else
    bad "tas 3x3, ipb: exit $rc, expected a pass that covered bound 0 only"
    cat out
fi
# the default's POS half finds it, and the replay file reproduces it
"$lineup" --jobs 1 --no-minimize --test "$T" "$g/tas_tts.so" >out 2>&1
rc=$?
if [ $rc = 1 ] && grep -Eq 'execution 1[0-9]{4}, [0-9]+ preemptions, sampled by POS' out; then
    ok
else
    bad "tas 3x3, default: exit $rc, expected the violation in an execution POS sampled"
    cat out
fi
replay=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' out | head -n1)
if [ -n "$replay" ] && "$lineup" --replay "$replay" "$g/tas_tts.so" >rout 2>&1; [ $? = 1 ] &&
    grep -q '(reproduced)' rout; then
    ok
else
    bad "tas 3x3, default: the replay of the sampled execution did not reproduce it"
    cat rout
fi

# a crash in a sampled execution ends the test: the sampled executions
# are still counted, as the phase's are (the crashing one is not)
M='enqueue(2) dequeue(0) enqueue(1) | enqueue(1) enqueue(2) enqueue(1) | dequeue(0) dequeue(0) enqueue(1)'
"$lineup" --quiet --jobs 1 --no-minimize --max-executions 400 --json crash.json --test "$M" "$g/msq_missing_cas.so" \
    >out 2>&1
rc=$?
got="$rc $(field crash.json verdict) $(field crash.json phase2_executions) $(field crash.json sampled_executions)"
if [ "$got" = "1 CRASH 248 48" ]; then
    ok
else
    bad "msqueue missing CAS, budget 400: got '$got', expected '1 CRASH 248 48' (exit, verdict, executions, sampled)"
    cat out
fi

# a passing test whose bound-1 round is larger than the half: 10000
# executions of iterative bounding, 10000 sampled; with --test from seed 0,
# so that two runs explore the same histories
S='push(1) pop(0) push(2) | pop(0) push(2) pop(0) | push(1) pop(0) pop(0)'
digest() { # digest NAME lineup-options...: the run's histories digest, checking its counts
    local name=$1
    shift
    "$lineup" --quiet --no-minimize --json "$name.json" "$@" --test "$S" "$g/stack.so" >out 2>&1
    local rc=$?
    local got
    got="$rc $(field "$name.json" verdict) $(field "$name.json" phase2.executions) $(field "$name.json" sampled_executions) $(field "$name.json" complete_bound)"
    if [ "$got" = "0 PASS 20000 10000 0" ]; then
        ok
    else
        bad "stack 3x3 $name: got '$got', expected '0 PASS 20000 10000 0' (exit, verdict, executions, sampled, bound)"
        cat out
    fi
    field "$name.json" histories_digest
}
d1=$(digest once --jobs 1)
d2=$(digest again --jobs 1)
s1=$(digest seed5 --jobs 1 --seed 5)
# the sampled part splits among explorers as --strategy pos does: the same
# histories
s2=$(digest seed5.jobs2 --jobs 2 --seed 5)
if [ "$d1" = "$d2" ]; then ok; else bad "stack 3x3: two runs with seed 0 explored different histories ($d1, $d2)"; fi
if [ "$d1" != "$s1" ]; then ok; else bad "stack 3x3: seed 5 sampled the histories seed 0 did ($d1)"; fi
if [ "$s1" = "$s2" ]; then ok; else bad "stack 3x3, seed 5: --jobs 2 explored other histories than --jobs 1 ($s1, $s2)"; fi
grep -q "iterative bounding's share of the budget (10000 of 20000 executions) ran out; every schedule with at most 0 preemptions was covered, then 10000 schedules were sampled (partial order sampling, seed 5;" out ||
    bad "stack 3x3: no coverage line naming the sampled schedules"
grep -q "phase 2 (default): 20000 executions (10000 sampled by POS), " out ||
    bad "stack 3x3: the summary does not count the sampled executions"
python3 -c 'import json,sys
sys.exit(json.load(open(sys.argv[1]))["summary"]["phase2"]["sampled_executions"] != 10000)' seed5.jobs2.json ||
    bad "stack 3x3: the JSON summary does not count the sampled executions"

# a search that ends within its half samples nothing; without a budget
# nothing is sampled, and the JSON has no such field
"$lineup" --quiet --json small.json --test 'push(1) pop(0) | pop(0)' "$g/stack.so" >out 2>&1
got="$(field small.json sampled_executions) $(field small.json truncated)"
if [ "$got" = "0 False" ] && grep -q 'every schedule with at most 2 preemptions in every passing test' out; then
    ok
else
    bad "stack 2x2: got '$got', expected nothing sampled and bound 2 covered"
    cat out
fi
"$lineup" --quiet --max-executions 0 --json none.json --test 'push(1) pop(0) | pop(0)' "$g/stack.so" >out 2>&1
got=$(field none.json sampled_executions)
if [ "$got" = absent ]; then ok; else bad "stack 2x2, --max-executions 0: sampled_executions is '$got'"; fi
# a budget of 1 leaves nothing to sample: iterative bounding has it all,
# and with --test nothing is drawn
"$lineup" --max-executions 1 --test 'push(1) pop(0) | pop(0)' "$g/stack.so" >out 2>&1
if grep -q 'the budget of 1 executions ran out; every schedule with at most 0 preemptions' out && ! grep -q seed out; then
    ok
else
    bad "stack 2x2, --max-executions 1: expected ipb's coverage line, and no seed"
    cat out
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# Every command-line flag of both modes with malformed and extreme values:
# empty, negative, overflowing, trailing garbage, huge, zero. Each row gets
# a usage error (exit status 2, the message naming the flag) or works (0);
# never a crash, a hang (each run is bounded by timeout(1)) or an internal
# error. One table, one row per case.
#
#   flags.sh LINEUP HARNESS.so PROGRAM
#
# HARNESS.so: a passing Line-Up harness with an operation inc(0)
# (counter_fixed.so); PROGRAM: a correct lineup-cc program (correct).
set -uo pipefail

LU_BIN=$(realpath -- "$1")
H=$(realpath -- "$2")
P=$(realpath -- "$3")
here=$(dirname -- "$(realpath -- "$0")")
WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT
out=$WORK/out.txt
LU_TIMEOUT=60
# shellcheck source=tests/cli_lib.sh
source "$here/cli_lib.sh" || exit 1
cd -- "$WORK" || exit 1

rows=0
# lineup_row RC PATTERN ARGS...: lineup ARGS (the Line-Up check, small and
# quiet) exits RC and prints PATTERN
lineup_row() {
    local want=$1 pat=$2
    shift 2
    rows=$((rows + 1))
    lu "$want" --quiet --jobs 1 "$@"
    has "$pat"
    lacks "internal error|Segmentation|Aborted|core dumped"
}
# run_row RC PATTERN ARGS...: lineup run ARGS -- PROGRAM
run_row() {
    local want=$1 pat=$2
    shift 2
    rows=$((rows + 1))
    lu "$want" run --quiet "$@" -- "$P"
    has "$pat"
    lacks "internal error|Segmentation|Aborted|core dumped"
}

S=(--matrix 1x1 --samples 1 --seed 1) # one tiny random test
U="^lineup: "
R="^lineup run: "

# ---- lineup: usage errors
for v in "" 0x3 3x0 -1x3 +2x2 3x3x 1e3x1 " 3x3" 3x3z 4294967297x1; do
    lineup_row 2 "$U--matrix takes TxN" --matrix "$v" "$H"
done
lineup_row 2 "$U--matrix 100000x100000 is too large" --matrix 100000x100000 "$H"
lineup_row 2 "$U--matrix 9x1 is too large" --matrix 9x1 "$H"
lineup_row 2 "$U--matrix 3x16: .* more than phase 1's limit" --matrix 3x16 "$H"
lineup_row 2 "$U--samples must be at least 1" --samples 0 "$H"
for v in "" -1 1e3 " 5" "5 " 0x10 10000001 18446744073709551616; do
    lineup_row 2 "$U--samples takes a whole number" --samples "$v" "$H"
done
for v in "" -1 0x10 18446744073709551616; do
    lineup_row 2 "$U--seed takes a whole number" --seed "$v" "$H"
done
for v in "" -2 65 1.5 " 1" 99999999999999999999; do
    lineup_row 2 "$U--preemptions takes a whole number up to 64, or -1" --preemptions "$v" "$H"
done
lineup_row 2 "$U--test: the test has no calls" --test "" "$H"
lineup_row 2 "$U--test: empty thread before '\|'" --test "|" "$H"
lineup_row 2 "$U--test: empty thread after '\|'" --test "inc(0) |" "$H"
lineup_row 2 "$U--test: 'nope\(0\)' is not an operation" --test "nope(0)" "$H"
lineup_row 2 "$U--jobs must be at least 1" --jobs 0 "$H"
for v in "" -1 100000 1e2; do
    lineup_row 2 "$U--jobs takes a whole number" --jobs "$v" "$H"
done
lineup_row 2 "$U--json takes a file name, not an empty string" --json "" "$H"
lineup_row 2 "$U--replay takes a file name, not an empty string" --replay ""
lineup_row 2 "$U--harness takes the name of a harness, not an empty string" --harness "" "$H"
# an option after the harness
lineup_row 2 "$U'--seed' after the shared object: options go before it" "$H" --seed 6
# a program given where a harness goes: pointed to lineup run
lineup_row 2 "$U.*correct is a program, not a harness \(a shared object\): 'lineup run -- " "$P"
lineup_row 2 "$U.*correct is a program, not a harness" --allow-uninstrumented "$P"
# a second --test, --json, --harness or --replay would drop the first unsaid
lineup_row 2 "$U--test given twice: lineup takes one per run \(run it once per test\)" --test "inc(0)" --test "inc(0) | inc(0)" "$H"
lineup_row 2 "$U--json given twice" --json a.json --json b.json "$H"
lineup_row 2 "$U--harness given twice" --harness counter --harness counter "$H"
lineup_row 2 "$U--replay given twice" --replay a.replay --replay b.replay
lineup_row 2 "$U.* has no harness named nope; it has: counter" --harness nope "${S[@]}" "$H"
lineup_row 2 "$U--replay-dir takes a directory, not an empty string" --replay-dir "" "$H"
lineup_row 2 "$U--replay-dir no/such: No such file or directory" --replay-dir no/such "$H"
for v in "" -1 18446744073709551616; do
    lineup_row 2 "$U--max-executions takes a whole number" --max-executions "$v" "$H"
done
for v in "" -1 1.5 604801; do
    lineup_row 2 "$U--timeout takes a whole number" --timeout "$v" "$H"
done
lineup_row 2 "$U--spin-bound takes a whole number from 1 to 100000000, not '0'" --spin-bound 0 "$H"
lineup_row 2 "$U--spin-bound takes a whole number up to 100000000" --spin-bound 100000001 "$H"
lineup_row 2 "$U--watchdog-ms takes a whole number from 1 to 3600000, not '0'" --watchdog-ms 0 "$H"
lineup_row 2 "$U--watchdog-ms takes a whole number up to 3600000" --watchdog-ms 3600001 "$H"
for v in -1 1000001; do
    lineup_row 2 "$U--max-reports takes a whole number" --max-reports "$v" "$H"
done
for v in -1 10000001; do
    lineup_row 2 "$U--max-timeouts takes a whole number" --max-timeouts "$v" "$H"
done
lineup_row 2 "$U--strategy takes one of default" --strategy "" "$H"
lineup_row 2 "$U--strategy takes one of default" --strategy DFS "$H"
lineup_row 2 "$U--depth must be at least 1" --strategy pct --max-executions 5 --depth 0 "$H"
lineup_row 2 "$U--depth takes a whole number up to 64" --strategy pct --max-executions 5 --depth 65 "$H"
lineup_row 2 "$U--depth is the bug depth of --strategy pct" --depth 3 "$H"
lineup_row 2 "$U--strategy random samples schedules without end" --strategy random --max-executions 0 "$H"
for v in "" maybe ON; do
    lineup_row 2 "$U--reduction takes on or off" --reduction "$v" "$H"
done
for v in "" AUTO per_thread "auto "; do
    lineup_row 2 "$U--tls takes auto, per-thread or shared, not '$v'" --tls "$v" "$H"
done
for v in auto per-thread shared; do
    lineup_row 0 "^verdict: PASS" --tls "$v" --test "inc(0) | inc(0)" "$H"
done
for v in / 1/ /2 a/b 1/2/3 -1/2 " 1/2"; do
    lineup_row 2 "$U--shard takes K/N" --seed 1 --shard "$v" "$H"
done
lineup_row 2 "$U--shard 0/1: in K/N, the share K must be between 1 and N" --seed 1 --shard 0/1 "$H"
lineup_row 2 "$U--shard 3/2: in K/N, the share K must be between 1 and N" --seed 1 --shard 3/2 "$H"
lineup_row 2 "$U--shard 1/0: in K/N, the number of shares N must be between 1 and 1000000" --seed 1 --shard 1/0 "$H"
lineup_row 2 "$U--shard 1/1000001: in K/N, the number of shares N" --seed 1 --shard 1/1000001 "$H"
lineup_row 2 "${U}the shared object's name is empty" ""
lineup_row 2 "${U}no harness given"

# ---- lineup: extreme values that work
lineup_row 0 "^verdict: PASS" "${S[@]}" --matrix 000001x01 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --preemptions -1 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --preemptions 64 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --timeout 0 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --timeout 604800 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --max-executions 0 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --max-executions 18446744073709551615 "$H"
lineup_row 0 "^verdict: PASS" --matrix 1x1 --samples 2 --seed 18446744073709551615 "$H"
lineup_row 0 "^verdict: PASS" --matrix 1x1 --samples 3 --seed 1 --jobs 1024 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --max-reports 0 --max-timeouts 0 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --spin-bound 100000000 --watchdog-ms 3600000 "$H"
lineup_row 0 "^verdict: PASS" --matrix 1x1 --samples 1 --seed 1 --shard 1000000/1000000 "$H"
lineup_row 0 "^verdict: PASS" "${S[@]}" --strategy pct --depth 64 --max-executions 3 "$H"

# ---- lineup run: usage errors
for v in "" -1 1e3 5ms s " 5" 18446744073709551616; do
    run_row 2 "$R--budget takes" --budget "$v"
done
run_row 2 "$R--budget takes a whole number up to 1000000000, not '1000000001'" --budget 1000000001s
run_row 2 "$R--json given twice" --json a.json --json b.json
run_row 2 "$R--replay given twice" --replay a.replay --replay b.replay
run_row 2 "$R--budget 0 \(none\) needs --strategy dfs, ipb or idb" --budget 0
run_row 2 "$R--budget 0 \(none\) needs --strategy dfs, ipb or idb" --budget 0s
for v in "" -2 65 " 1"; do
    run_row 2 "$R--preemptions takes a whole number up to 64, or -1" --preemptions "$v"
done
run_row 2 "$R--depth must be at least 1" --strategy pct --depth 0
run_row 2 "$R--depth takes a whole number up to 32" --strategy pct --depth 33
run_row 2 "$R--depth is the bug depth of --strategy pct" --depth 3
for v in "" -1 18446744073709551616; do
    run_row 2 "$R--seed takes a whole number" --seed "$v"
done
run_row 2 "$R--seed has no effect with --strategy dfs" --strategy dfs --seed 1
for v in "" -1 256; do
    run_row 2 "$R--expect-exit takes a whole number" --expect-exit "$v"
done
run_row 2 "$R--nondet-range must be at least 1" --nondet-range 0
run_row 2 "$R--nondet-range takes a whole number up to 63" --nondet-range 64
run_row 2 "$R--max-steps must be at least 16" --max-steps 15
run_row 2 "$R--max-steps takes a whole number up to 16777216" --max-steps 16777217
for v in "" -1 86401; do
    run_row 2 "$R--timeout takes a whole number" --timeout "$v"
done
run_row 2 "$R--spin-bound takes a whole number from 1 to 100000000, not '0'" --spin-bound 0
run_row 2 "$R--watchdog-ms takes a whole number from 1 to 3600000, not '0'" --watchdog-ms 0
run_row 2 "$R--max-timeouts has no effect without --all" --max-timeouts 3
run_row 2 "$R--max-timeouts takes a whole number" --all --max-timeouts -1
run_row 2 "$R--strategy takes dfs, ipb, idb, random, pct, pos or default, not ''" --strategy ""
run_row 2 "$R--reduction takes on or off" --reduction ""
run_row 2 "$R--tls takes auto, per-thread or shared, not 'none'" --tls none
run_row 0 "no failure found" --tls per-thread --budget 20
run_row 2 "$R--replay takes a file name, not an empty string" --replay ""
run_row 2 "$R--replay-dir takes a directory, not an empty string" --replay-dir ""
rows=$((rows + 1))
lu 2 run -- ""
has "${R}the program name is empty"
rows=$((rows + 1))
lu 2 run
has "${R}no program given"

# ---- lineup run: extreme values that work
run_row 0 "^verdict: PASS" --budget 3
run_row 0 "^verdict: PASS" --budget 1s
run_row 0 "^verdict: PASS" --strategy dfs --budget 0 --preemptions 0
run_row 0 "^verdict: PASS" --budget 3 --preemptions -1
run_row 0 "^verdict: PASS" --budget 3 --timeout 0
run_row 0 "^verdict: PASS" --budget 3 --timeout 86400
run_row 0 "^verdict: PASS" --budget 3 --all --max-timeouts 0
run_row 0 "^verdict: PASS" --budget 3 --expect-exit 0
run_row 0 "^verdict: PASS" --budget 3 --nondet-range 63
run_row 0 "^verdict: PASS" --budget 3 --max-steps 16777216
run_row 0 "^verdict: PASS" --budget 3 --seed 18446744073709551615
run_row 0 "^verdict: PASS" --budget 3 --spin-bound 100000000 --watchdog-ms 3600000
run_row 0 "^verdict: PASS" --budget 3 --strategy pct --depth 32

echo "$rows rows"
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# End-to-end lineup benchmarks on the contract queue and stack harnesses
# (correct builds):
#   1. phase 1 time of one 3x3 test
#   2. phase 2 executions and time of fixed 3x3 tests, exhaustive at P=2
#   3. the whole `--matrix 3x3 --samples 100 --seed 1` run, default budget
#   4. peak memory (lineup parent and its worker processes)
#
#   benchmarks/run_lineup.sh [BUILD_DIR]      (default: build)
#
# Environment: CONTRACT_DIR (where queue_harness.c and stack_harness.c are,
# default /work/shared/contract), REPS (runs of the full matrix, default 3),
# P1_REPS (runs of the phase-1 measurement, default 5), EXH_REPS (runs of each
# exhaustive test, default 1: each takes 1-2 minutes of CPU), EXH=0 (skip
# the exhaustive tests), EXH_ALL=1 (two exhaustive tests per harness instead
# of one), KEEP=1 (keep the temporary directory).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$root/benchmarks/common.sh"
lu_bench_build run_lineup.sh "${1:-build}" bin/lineup bin/lineup-cc
contract=${CONTRACT_DIR:-/work/shared/contract}
for f in queue_harness.c stack_harness.c; do
    [[ -f $contract/$f ]] || {
        echo "run_lineup.sh: $contract/$f not found (set CONTRACT_DIR)" >&2
        exit 1
    }
done
[[ -x /usr/bin/time ]] || {
    echo "run_lineup.sh: /usr/bin/time (GNU time) is needed: apt-get install time" >&2
    exit 1
}

REPS=${REPS:-3}
P1_REPS=${P1_REPS:-5}
EXH_REPS=${EXH_REPS:-1}
EXH=${EXH:-1}
EXH_ALL=${EXH_ALL:-0}
lineup=$build/bin/lineup

lu_bench_tmp bench

# The harness build step the README documents, unchanged (no -O).
"$build/bin/lineup-cc" -shared -o "$tmp/queue.so" "$contract/queue_harness.c"
"$build/bin/lineup-cc" -shared -o "$tmp/stack.so" "$contract/stack_harness.c"

# Fixed 3x3 tests. Phase 1 tests use calls that never block, so every one
# of the 9!/(3!3!3!) = 1680 orders of whole calls is a serial execution.
p1_test() {
    case $1 in
    queue) echo 'enqueue(200) try_dequeue(0) enqueue(400) | try_dequeue(0) enqueue(400) try_dequeue(0) | enqueue(400) try_dequeue(0) enqueue(200)' ;;
    stack) echo 'push(1) pop(0) push(2) | pop(0) push(2) pop(0) | push(1) push(2) pop(0)' ;;
    esac
}
one_test() {
    case $1 in
    queue) echo 'enqueue(200)' ;;
    stack) echo 'push(1)' ;;
    esac
}
# Exhaustive tests, one per line; the first is the default one.
exh_tests() {
    case $1 in
    queue)
        echo 'enqueue(200) try_dequeue(0) enqueue(400) | try_dequeue(0) enqueue(400) try_dequeue(0) | enqueue(200) try_dequeue(0) take(0)'
        echo 'take(0) enqueue(200) try_dequeue(0) | enqueue(400) take(0) enqueue(200) | try_dequeue(0) enqueue(400) take(0)'
        ;;
    stack)
        echo 'pop(0) push(1) pop(0) | pop(0) pop(0) push(2) | push(1) pop(0) pop(0)'
        echo 'push(1) pop(0) push(2) | pop(0) push(2) pop(0) | push(1) push(2) pop(0)'
        ;;
    esac
}

# ---- helpers ----
stats() { # "median min max" of numbers
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
        if (NR == 0) { print "- - -"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.6g %.6g %.6g\n", m, v[1], v[NR] }'
}
jnum() { # jnum KEY FILE: first number of "KEY": in a JSON file
    grep -o "\"$1\": [-0-9.e]*" "$2" | head -n1 | sed 's/.*: //'
}
tv() { # tv FIELD FILE: a field of GNU time -v output
    grep -F "$1" "$2" | head -n1 | sed 's/.*: //'
}
wall_secs() { # h:mm:ss or m:ss.ss -> seconds
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<<"$1"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

# cpu_secs CMD...: runs CMD (stdout discarded) and prints the CPU seconds
# (user+sys) of it and its descendants, from the `times` builtin of a fresh
# subshell (millisecond resolution; perf stat is not used because its
# counters would make every context switch dearer).
cpu_secs() {
    (
        "$@" >/dev/null
        times
    ) | awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.3f\n", s }'
}

# sample_tree PID OUT: every 50 ms, the sum of Rss and of Pss over PID and
# all its descendants; writes "peak_rss_kb peak_pss_kb max_processes" to OUT.
sample_tree() {
    local top=$1 out=$2 prss=0 ppss=0 pn=0
    while [[ -d /proc/$top ]]; do
        local queue=("$top") all=() p c rss=0 pss=0 k v
        while ((${#queue[@]})); do
            p=${queue[0]}
            queue=("${queue[@]:1}")
            all+=("$p")
            c=()
            { read -r -a c </proc/"$p"/task/"$p"/children; } 2>/dev/null || true
            queue+=("${c[@]}")
        done
        for p in "${all[@]}"; do
            { while read -r k v _; do
                case $k in
                Rss:) rss=$((rss + v)) ;;
                Pss:) pss=$((pss + v)) ;;
                esac
            done </proc/"$p"/smaps_rollup; } 2>/dev/null || true
        done
        ((rss > prss)) && prss=$rss
        ((pss > ppss)) && ppss=$pss
        ((${#all[@]} > pn)) && pn=${#all[@]}
        sleep 0.05
    done
    echo "$prss $ppss $pn" >"$out"
}

echo "# lineup end-to-end benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "# $(nproc) cores; load average at start: $(load); $("$lineup" --version 2>&1 | head -n1)"
echo "# harnesses: $contract/{queue,stack}_harness.c built with: lineup-cc -shared -o X.so X.c"
echo

# ---- 1. phase 1 ----
echo "## 1. phase 1 of one 3x3 test (target < 20 ms)"
echo "   lineup --jobs 1 --test T --preemptions 0 --max-executions 1 --json F: phase 1 complete, then one"
echo "   phase-2 execution. JSON 'seconds' = worker process lifetime (fork .. reaped: dlopen, phase 1, one"
echo "   execution, exit; the parent polls every 1 ms). Phase 1 alone = that minus the same for a 1x1 test"
echo "   (same start-up, 1 serial execution). CPU = user+sys of lineup and its worker."
for h in queue stack; do
    p1=$(p1_test "$h")
    one1=$(one_test "$h")
    secs=() one=() cpu=() cpu1=()
    for ((r = 0; r < P1_REPS; r++)); do
        cpu+=("$(cpu_secs "$lineup" --quiet --jobs 1 --test "$p1" --preemptions 0 --max-executions 1 \
            --json "$tmp/p1.json" "$tmp/$h.so")")
        secs+=("$(jnum seconds "$tmp/p1.json")")
        cpu1+=("$(cpu_secs "$lineup" --quiet --jobs 1 --test "$one1" --preemptions 0 --max-executions 1 \
            --json "$tmp/one.json" "$tmp/$h.so")")
        one+=("$(jnum seconds "$tmp/one.json")")
    done
    n1=$(jnum phase1_executions "$tmp/p1.json")
    read -r sm slo shi <<<"$(stats "${secs[@]}")"
    read -r om _ _ <<<"$(stats "${one[@]}")"
    read -r cm clo chi <<<"$(stats "${cpu[@]}")"
    read -r c1m _ _ <<<"$(stats "${cpu1[@]}")"
    awk -v h="$h" -v n="$n1" -v sm="$sm" -v slo="$slo" -v shi="$shi" -v om="$om" -v cm="$cm" -v clo="$clo" \
        -v chi="$chi" -v c1="$c1m" -v t="$p1" 'BEGIN {
        p = (sm - om) * 1000; pc = (cm - c1) * 1000
        printf "   %-5s %s\n", h, t
        printf "         %d serial executions; worker lifetime %.0f ms median [%.0f-%.0f]; 1x1 test %.0f ms\n", n, sm * 1000, slo * 1000, shi * 1000, om * 1000
        printf "         phase 1 = %.0f ms wall (%s); CPU: whole run %.1f ms [%.1f-%.1f] - 1x1 run %.1f ms = %.1f ms (%.1f us/serial execution): %s\n",
            p, (p < 20 ? "met" : "NOT met"), cm * 1000, clo * 1000, chi * 1000, c1 * 1000, pc, pc * 1000 / n, (pc < 20 ? "met" : "NOT met") }'
done
echo

# ---- 2. phase 2, exhaustive ----
if [[ $EXH == 1 ]]; then
    echo "## 2. phase 2 of fixed 3x3 tests, exhaustive at P=2 (--jobs 1 --max-executions 0; runs: $EXH_REPS)"
    for h in queue stack; do
        mapfile -t tests < <(exh_tests "$h")
        [[ $EXH_ALL == 1 ]] || tests=("${tests[0]}")
        for t in "${tests[@]}"; do
            secs=() cpu=() rss=()
            for ((r = 0; r < EXH_REPS; r++)); do
                /usr/bin/time -v -o "$tmp/tv.txt" "$lineup" --quiet --jobs 1 --test "$t" --preemptions 2 \
                    --max-executions 0 --json "$tmp/ex.json" "$tmp/$h.so" >/dev/null
                secs+=("$(jnum seconds "$tmp/ex.json")")
                cpu+=("$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$tmp/tv.txt")")
                rss+=("$(tv 'Maximum resident set size' "$tmp/tv.txt")")
            done
            read -r sm slo shi <<<"$(stats "${secs[@]}")"
            read -r cm _ _ <<<"$(stats "${cpu[@]}")"
            read -r rm _ _ <<<"$(stats "${rss[@]}")"
            n2=$(jnum phase2_executions "$tmp/ex.json")
            printf '   %-5s %s\n' "$h" "$t"
            awk -v n1="$(jnum phase1_executions "$tmp/ex.json")" -v n2="$n2" -v hi="$(jnum histories "$tmp/ex.json")" \
                -v cb="$(jnum complete_bound "$tmp/ex.json")" -v sm="$sm" -v slo="$slo" -v shi="$shi" -v cm="$cm" \
                -v rm="$rm" 'BEGIN {
                printf "         phase 1 %d + phase 2 %d executions (%d distinct histories, complete bound %d)\n", n1, n2, hi, cb
                printf "         %.1f s median [%.1f-%.1f] = %.0f executions/s wall; %.1f s CPU = %.0f executions/CPU-s; max RSS %.0f MB\n",
                    sm, slo, shi, (n1 + n2) / sm, cm, (n1 + n2) / cm, rm / 1024 }'
        done
    done
    echo
fi

# ---- 3 and 4. the whole matrix, with memory ----
echo "## 3. lineup --matrix 3x3 --samples 100 --seed 1 (default budget 20000, P=2, --jobs $(nproc)); target < 60 s"
echo "## 4. peak memory: GNU time max RSS = the largest single process of the tree (parent or one worker);"
echo "##    sampled every 50 ms: sum of Rss / Pss over the parent and its live workers; target < 100 MB"
for h in queue stack; do
    wall=() cpu=() rss=() srss=() spss=()
    for ((r = 0; r < REPS; r++)); do
        /usr/bin/time -v -o "$tmp/tv.txt" "$lineup" --matrix 3x3 --samples 100 --seed 1 --quiet \
            --json "$tmp/m.json" "$tmp/$h.so" >"$tmp/m.out" &
        tpid=$!
        sample_tree "$tpid" "$tmp/mem.txt" &
        spid=$!
        rc=0
        wait "$tpid" || rc=$?
        wait "$spid" || true
        if ((rc != 0)); then
            echo "run_lineup.sh: lineup exited with $rc on the correct $h harness" >&2
            cat "$tmp/m.out" >&2
            exit 1
        fi
        wall+=("$(wall_secs "$(tv 'Elapsed (wall clock) time' "$tmp/tv.txt")")")
        cpu+=("$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$tmp/tv.txt")")
        rss+=("$(tv 'Maximum resident set size' "$tmp/tv.txt")")
        read -r a b _ <"$tmp/mem.txt"
        srss+=("$a")
        spss+=("$b")
    done
    read -r wm wlo whi <<<"$(stats "${wall[@]}")"
    read -r cm clo chi <<<"$(stats "${cpu[@]}")"
    read -r rm rlo rhi <<<"$(stats "${rss[@]}")"
    read -r sm slo shi <<<"$(stats "${srss[@]}")"
    read -r pm plo phi <<<"$(stats "${spss[@]}")"
    echo "   $h:"
    sed -n 's/^/     | /; /summary:/p; /phase 1:/p; /phase 2 coverage:/p' "$tmp/m.out"
    awk -v wm="$wm" -v wlo="$wlo" -v whi="$whi" -v cm="$cm" -v clo="$clo" -v chi="$chi" -v rm="$rm" -v rlo="$rlo" \
        -v rhi="$rhi" -v sm="$sm" -v slo="$slo" -v shi="$shi" -v pm="$pm" -v plo="$plo" -v phi="$phi" 'BEGIN {
        printf "     wall %.1f s median [%.1f-%.1f]: %s; CPU (user+sys, all processes) %.1f s [%.1f-%.1f]\n", wm, wlo, whi, (wm < 60 ? "met" : "NOT met"), cm, clo, chi
        printf "     max RSS of one process %.1f MB [%.1f-%.1f]; sampled tree peak: Rss sum %.1f MB [%.1f-%.1f], Pss sum %.1f MB [%.1f-%.1f]: %s\n",
            rm / 1024, rlo / 1024, rhi / 1024, sm / 1024, slo / 1024, shi / 1024, pm / 1024, plo / 1024, phi / 1024, (sm < 100 * 1024 ? "met" : "NOT met") }'
    e2=$(grep -o '"phase2_executions": [0-9]*' "$tmp/m.json" | awk '{ s += $2 } END { print s }')
    e1=$(grep -o '"phase1_executions": [0-9]*' "$tmp/m.json" | awk '{ s += $2 } END { print s }')
    awk -v e1="$e1" -v e2="$e2" -v wm="$wm" -v cm="$cm" 'BEGIN {
        printf "     %d + %d executions: %.0f executions/s wall (all workers), %.0f per CPU-s\n", e1, e2, (e1 + e2) / wm, (e1 + e2) / cm }'
done
echo
echo "# load average at end: $(load)"

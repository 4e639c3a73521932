#!/usr/bin/env bash
# Scheduler throughput: executions/s and baton handoffs/s of lineup's
# scheduler on a 2- and a 3-thread atomic-counter program (10 increments per
# thread), driven through the scheduler API and through lineup-cc's __tsan_*
# hooks, with DFS (P=2) and RANDOM, pinned to one core and unpinned, against
# the same program run natively (pthread_create/join per execution). Then a
# breakdown of where the time of one execution goes.
#
#   benchmarks/run_sched.sh [BUILD_DIR]      (default: build)
#
# Environment: REPS (runs per configuration, default 5), N (executions per
# run, default 10000), TMAX (wall-clock cap per run in seconds, default 1),
# KEEP=1 (keep the temporary directory).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$root/benchmarks/common.sh"
lu_bench_build run_sched.sh "${1:-build}" lib/liblineup.so bin/lineup-cc

REPS=${REPS:-5}
N=${N:-10000}
TMAX=${TMAX:-1}

lu_bench_tmp bench

# ---- build ----
cc=${CC:-gcc}
"$build/bin/lineup-cc" -O2 -c "$here/bench_sched_tsan.c" -o "$tmp/bench_sched_tsan.o"
"$cc" -O2 -std=c11 -Wall -Wextra -DBENCH_WITH_LINEUP -I"$root/scheduler" "$here/bench_sched.c" \
    "$tmp/bench_sched_tsan.o" -o "$tmp/bench_lineup" -L"$build/lib" -Wl,-rpath,"$build/lib" -llineup -lpthread
"$cc" -O2 -std=c11 -Wall -Wextra "$here/bench_sched.c" -o "$tmp/bench_native" -lpthread
"$cc" -O2 -Wall -shared -fPIC "$here/bench_wd_shim.c" -o "$tmp/wd_shim.so" -ldl

# ---- helpers ----
kv() { # kv KEY LINE: the value of KEY= in a bench_sched output line
    local k=$1 line=$2
    sed -n "s/.*[[:space:]]$k=\\([^[:space:]]*\\).*/\\1/p; s/^$k=\\([^[:space:]]*\\).*/\\1/p" <<<"$line" | head -n1
}
# stats V...: "median min max" of numbers
stats() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
        if (NR == 0) { print "- - -"; exit }
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.6g %.6g %.6g\n", m, v[1], v[NR] }'
}
fmt_int() { awk -v x="$1" 'BEGIN { printf "%.0f", x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "# lineup scheduler benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "# $(nproc) cores; load average at start: $(load); REPS=$REPS N=$N TMAX=$TMAX"
echo "# watchdog: $("$tmp/bench_lineup" api -t 2 -n 10 | sed -n 's/.*watchdog="\(.*\)"/\1/p')"
echo

# Configurations: "pin threads mode strategy". Runs are interleaved (the
# repetition is the outer loop), so that a burst of load from elsewhere hits
# every configuration alike rather than one.
cfgs=()
for pin in pinned unpinned; do
    for t in 2 3; do
        cfgs+=("$pin $t native -")
        for mode in api tsan; do
            for strat in dfs random; do
                cfgs+=("$pin $t $mode $strat")
            done
        done
    done
done
declare -A WALL CPU SW PTS SWE
for ((r = 0; r < REPS; r++)); do
    for c in "${cfgs[@]}"; do
        read -r pin t mode strat <<<"$c"
        pre=()
        [[ $pin == pinned ]] && pre=(taskset -c 0)
        if [[ $mode == native ]]; then
            line=$("${pre[@]}" "$tmp/bench_native" native -t "$t" -k 10 -n "$N" -T "$TMAX")
        else
            bound=2
            [[ $strat == random ]] && bound=-1
            line=$("${pre[@]}" "$tmp/bench_lineup" "$mode" -t "$t" -k 10 -s "$strat" -p "$bound" -n "$N" -T "$TMAX")
        fi
        WALL[$c]+="$(kv exec_per_s "$line") "
        CPU[$c]+="$(kv per_cpu_s "$line") "
        SW[$c]+="$(kv switches_per_s "$line") "
        PTS[$c]=$(kv points_per_exec "$line")
        SWE[$c]=$(kv switches_per_exec "$line")
    done
done

printf '%-7s %-6s %-6s %-8s %-24s %-22s %-24s %-6s %-5s %-8s %-8s\n' program mode strat pin \
    "exec/s wall med [range]" "exec/CPU-s med [range]" "switches/s wall med" pts/ex sw/ex wall/nat CPU/nat
for c in "${cfgs[@]}"; do
    read -r pin t mode strat <<<"$c"
    # shellcheck disable=SC2086
    read -r w wlo whi <<<"$(stats ${WALL[$c]})"
    # shellcheck disable=SC2086
    read -r u ulo uhi <<<"$(stats ${CPU[$c]})"
    if [[ $mode == native ]]; then
        nw=$w nu=$u
        swtxt=- pts=- swe=-
    else
        # shellcheck disable=SC2086
        read -r s slo shi <<<"$(stats ${SW[$c]})"
        swtxt="$(fmt_int "$s") [$(fmt_int "$slo")-$(fmt_int "$shi")]"
        pts=${PTS[$c]} swe=${SWE[$c]}
    fi
    printf '%-7s %-6s %-6s %-8s %-24s %-22s %-24s %-6s %-5s %-8s %-8s\n' "${t}x10" "$mode" "$strat" "$pin" \
        "$(fmt_int "$w") [$(fmt_int "$wlo")-$(fmt_int "$whi")]" "$(fmt_int "$u") [$(fmt_int "$ulo")-$(fmt_int "$uhi")]" \
        "$swtxt" "$pts" "$swe" "$(ratio "$w" "$nw")" "$(ratio "$u" "$nu")"
done
echo
echo "DFS is bounded (P=2) and explored again with a fresh scheduler when the tree is smaller than N"
echo "(2x10: $("$tmp/bench_lineup" api -t 2 -n 1000000 -x | sed -n 's/.*dfs_tree=\([0-9]*\).*/\1/p') executions," \
    "3x10: $("$tmp/bench_lineup" api -t 3 -n 1000000 -x | sed -n 's/.*dfs_tree=\([0-9]*\).*/\1/p') executions);" \
    "RANDOM is unbounded (P=-1), seed 1."
echo "exec/CPU-s = executions per second of CPU time (user+sys, all threads): the per-core rate on an idle"
echo "machine; wall-clock rates on a loaded machine mostly measure waiting for a core."
echo "target (issue): >= 100000 executions/s per core for 3x10."

# ---- breakdown ----
echo
echo "## Where the time goes (3x10, api, DFS P=2, pinned to core 0)"
echo
echo "### baton handoff alone (two threads passing a token; no lineup)"
declare -A PNS PCNS
kinds=(futex-pinned futex-unpinned spin-unpinned ucontext-pinned)
for ((r = 0; r < REPS; r++)); do
    for k in "${kinds[@]}"; do
        kind=${k%-*}
        pin=${k#*-}
        pre=()
        [[ $pin == pinned ]] && pre=(taskset -c 0)
        line=$("${pre[@]}" "$tmp/bench_native" "pingpong-$kind" -n 200000 -T "$TMAX")
        PNS[$k]+="$(kv ns_per_handoff "$line") "
        PCNS[$k]+="$(awk -v u="$(kv cpu_us_per_item "$line")" 'BEGIN { printf "%.1f", u * 1000 }') "
    done
done
for k in "${kinds[@]}"; do
    # shellcheck disable=SC2086
    read -r m lo hi <<<"$(stats ${PNS[$k]})"
    # shellcheck disable=SC2086
    read -r cm clo chi <<<"$(stats ${PCNS[$k]})"
    printf '  %-16s %8.0f ns/handoff wall [%.0f-%.0f], %6.0f ns CPU/handoff [%.0f-%.0f]\n' "$k" "$m" "$lo" "$hi" \
        "$cm" "$clo" "$chi"
done
echo
echo "### divergence watchdog (bench_wd_shim.so forces lu_sched's fallbacks)"
declare -A WW WC WN
for ((r = 0; r < REPS; r++)); do
    for wd in perf timer none; do
        line=$(BENCH_WATCHDOG=$wd LD_PRELOAD=$tmp/wd_shim.so taskset -c 0 "$tmp/bench_lineup" api -t 3 -n "$N" -T "$TMAX")
        WW[$wd]+="$(kv exec_per_s "$line") "
        WC[$wd]+="$(kv cpu_us_per_item "$line") "
        WN[$wd]=$(sed -n 's/.*watchdog="\(.*\)"/\1/p' <<<"$line")
    done
done
for wd in perf timer none; do
    # shellcheck disable=SC2086
    read -r wm wlo whi <<<"$(stats ${WW[$wd]})"
    # shellcheck disable=SC2086
    read -r cm clo chi <<<"$(stats ${WC[$wd]})"
    printf '  %-40s %7s exec/s wall [%s-%s], %5.1f us CPU/exec [%.1f-%.1f]\n' "${WN[$wd]}" "$(fmt_int "$wm")" \
        "$(fmt_int "$wlo")" "$(fmt_int "$whi")" "$cm" "$clo" "$chi"
done
echo
echo "### scheduling policy of all threads: default (SCHED_OTHER) vs SCHED_BATCH (chrt -b 0: no wakeup preemption)"
if command -v chrt >/dev/null 2>&1; then
    declare -A PW PC PV PI
    for ((r = 0; r < REPS; r++)); do
        for pol in other batch; do
            pre=(taskset -c 0)
            [[ $pol == batch ]] && pre=(chrt -b 0 taskset -c 0)
            line=$("${pre[@]}" "$tmp/bench_lineup" api -t 3 -n "$N" -T "$TMAX")
            PW[$pol]+="$(kv exec_per_s "$line") "
            PC[$pol]+="$(kv cpu_us_per_item "$line") "
            PV[$pol]=$(kv vcsw_per_item "$line")
            PI[$pol]=$(kv ivcsw_per_item "$line")
        done
    done
    for pol in other batch; do
        # shellcheck disable=SC2086
        read -r wm wlo whi <<<"$(stats ${PW[$pol]})"
        # shellcheck disable=SC2086
        read -r cm clo chi <<<"$(stats ${PC[$pol]})"
        printf '  %-6s %7s exec/s wall [%s-%s], %5.1f us CPU/exec [%.1f-%.1f], %s voluntary + %s involuntary switches/exec\n' \
            "$pol" "$(fmt_int "$wm")" "$(fmt_int "$wlo")" "$(fmt_int "$whi")" "$cm" "$clo" "$chi" "${PV[$pol]}" "${PI[$pol]}"
    done
else
    echo "  chrt not installed: skipped"
fi
echo
echo "### system calls and context switches per execution"
ns=2000
line=$(taskset -c 0 "$tmp/bench_lineup" api -t 3 -n "$ns")
echo "  getrusage: $(kv vcsw_per_item "$line") voluntary + $(kv ivcsw_per_item "$line") involuntary context switches/exec;" \
    "$(kv switches_per_exec "$line") scheduler switches + thread start/finish handoffs"
if command -v strace >/dev/null 2>&1; then
    taskset -c 0 strace -f -c -o "$tmp/strace.txt" "$tmp/bench_lineup" api -t 3 -n "$ns" >/dev/null
    awk -v n="$ns" '$NF == "futex" { printf "  strace -c: %.1f futex calls/exec (%s calls, %s returned an error: EAGAIN, the baton was already given)\n", $4 / n, $4, ($5 ~ /^[0-9]+$/ ? $5 : 0) }
        $NF == "total" { printf "  strace -c: %.1f system calls/exec in all\n", $4 / n }' "$tmp/strace.txt"
else
    echo "  strace not installed: skipped"
fi
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
    perf stat -x, -e task-clock,context-switches,cpu-migrations -o "$tmp/perf.txt" \
        taskset -c 0 "$tmp/bench_lineup" api -t 3 -n "$ns" >/dev/null
    awk -F, -v n="$ns" '$3 == "task-clock" { printf "  perf stat: %.1f us task-clock/exec", $1 * 1000 / n }
        $3 == "context-switches" { printf ", %.1f context switches/exec", $1 / n }
        $3 == "cpu-migrations" { printf ", %.2f migrations/exec\n", $1 / n }' "$tmp/perf.txt"
    hw=$(perf stat -e instructions true 2>&1 || true)
    [[ $hw == *"not supported"* ]] && hw="not available (VM)" || hw=available
    echo "  (perf stat includes process start and pool creation; hardware counters: $hw)"
else
    echo "  perf not usable: skipped"
fi

echo
echo "### user-space instructions per execution (valgrind callgrind; kernel time not included)"
if command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
    for n in 200 1200; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$tmp/bench_lineup" api -t 3 -n "$n" \
            >/dev/null 2>&1
        callgrind_annotate --auto=no --threshold=100 "$tmp/cg.$n" 2>/dev/null |
            awk '/^ *[0-9,]+ +\(/ { ir = $1; gsub(",", "", ir); f = $NF; if ($0 ~ /PROGRAM TOTALS/) f = "TOTAL";
                 else { f = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", f); sub(/ \[.*$/, "", f); sub(/^.*:/, "", f) }
                 s[f] += ir } END { for (f in s) print f, s[f] }' >"$tmp/cg.$n.txt"
    done
    awk 'NR == FNR { a[$1] = $2; next } { d = $2 - a[$1]; if (d > 0) print d / 1000, $1 }' \
        "$tmp/cg.200.txt" "$tmp/cg.1200.txt" | sort -gr | head -n 11 |
        awk '{ if ($2 == "TOTAL") printf "  %8.0f instructions/exec in all (difference of a 1200- and a 200-execution run)\n", $1;
               else printf "  %8.0f  %s\n", $1, $2 }'
else
    echo "  valgrind not installed: skipped"
fi
echo
echo "# load average at end: $(load)"

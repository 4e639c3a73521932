#!/usr/bin/env bash
# One large Line-Up test on one process and on JOBS: wall time of
# `lineup --test T --jobs 1` against `--jobs JOBS` for the searches that
# split a test among idle explorers: exhaustive (the schedule tree, at
# bound 2), random, pos and pct sampling with a budget (chunks of 256
# executions), and the default strategy with that budget (iterative
# bounding on one process with half of it, POS on all with the rest). The test is a fixed 3x3 test of the contract queue (correct
# build). Runs interleaved, REPS of each; prints the median wall seconds,
# the executions (median), the distinct histories, the ratio of one
# process's time to JOBS processes', and whether both found the same
# histories (histories_digest: always for the samplers, whose executions
# are the same; for the exhaustive search too, with fewer or more
# executions, since a given subtree starts without sleep sets).
#
#   benchmarks/lineup_jobs.sh [BUILD_DIR]     (default: build)
#
# Environment: REPS (default 5), JOBS (default 2), BUDGET (the samplers and
# the default, default 400000), ONLY (grep -E on the search names above),
# CONTRACT_DIR (default /work/shared/contract).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$here/common.sh"
lu_bench_build lineup_jobs.sh "${1:-build}" bin/lineup bin/lineup-cc
lu_bench_python lineup_jobs.sh
contract=${CONTRACT_DIR:-/work/shared/contract}
[[ -f $contract/queue_harness.c ]] || {
    echo "lineup_jobs.sh: $contract/queue_harness.c not found (set CONTRACT_DIR)" >&2
    exit 1
}
REPS=${REPS:-5}
JOBS=${JOBS:-2}
BUDGET=${BUDGET:-400000}
lu_bench_tmp lineup_jobs
"$build/bin/lineup-cc" -shared -o "$tmp/queue.so" "$contract/queue_harness.c"
test='enqueue(200) try_dequeue(0) enqueue(400) | try_dequeue(0) enqueue(200) take(0) | enqueue(400) try_dequeue(0) try_dequeue(0)'

searches=(
    "exhaustive|--max-executions 0"
    "random|--strategy random --seed 1 --max-executions $BUDGET"
    "pos|--strategy pos --seed 1 --max-executions $BUDGET"
    "pct|--strategy pct --seed 1 --max-executions $BUDGET"
    "default|--seed 1 --max-executions $BUDGET"
)

# one_run JOBS ARGS: "seconds executions histories digest" of one run
one_run() {
    local j=$1 args=$2 s e
    s=$(date +%s.%N)
    # shellcheck disable=SC2086 # ARGS is a list of options
    "$build/bin/lineup" --quiet --no-minimize --replay-dir "$tmp" --jobs "$j" $args --json "$tmp/r.json" \
        --test "$test" "$tmp/queue.so" >"$tmp/out" 2>&1 || true
    e=$(date +%s.%N)
    python3 - "$tmp/r.json" "$(echo "$e - $s" | bc)" <<'EOF' || { cat "$tmp/out" >&2; exit 1; }
import json, sys
t = json.load(open(sys.argv[1]))['harnesses'][0]['tests'][0]
print(sys.argv[2], t['phase2_executions'], t['histories'], t['histories_digest'])
EOF
}

echo "lineup --test (contract queue, 3x3) --jobs 1 and --jobs $JOBS ($(nproc) cores), median of $REPS interleaved runs"
printf '%-11s %9s %10s %9s %10s %10s %7s %s\n' search "1: s" execs "$JOBS: s" execs histories ratio same
for entry in "${searches[@]}"; do
    IFS='|' read -r name args <<<"$entry"
    grep -Eq -- "${ONLY:-.}" <<<"$name" || continue
    : >"$tmp/one"
    : >"$tmp/many"
    for _ in $(seq "$REPS"); do
        one_run 1 "$args" >>"$tmp/one"
        one_run "$JOBS" "$args" >>"$tmp/many"
    done
    t1=$(cut -d' ' -f1 "$tmp/one" | lu_bench_median)
    n1=$(cut -d' ' -f2 "$tmp/one" | lu_bench_median)
    tj=$(cut -d' ' -f1 "$tmp/many" | lu_bench_median)
    nj=$(cut -d' ' -f2 "$tmp/many" | lu_bench_median)
    h=$(cut -d' ' -f3 "$tmp/one" | lu_bench_median)
    same=yes
    [[ $(cut -d' ' -f3,4 "$tmp/one" "$tmp/many" | sort -u | wc -l) == 1 ]] || same=no
    printf '%-11s %8.2fs %10d %8.2fs %10d %10d %6.2fx %s\n' "$name" "$t1" "$n1" "$tj" "$nj" "$h" \
        "$(echo "$t1 / $tj" | bc -l)" "$same"
done

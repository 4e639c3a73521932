#!/usr/bin/env bash
# `lineup run --jobs`: wall time of whole-program searches with one lane
# and with JOBS lanes (executions at once, each a forked child of the
# program's server): exhaustive DFS at bound 2 (the tree split among the
# lanes) on tests/run/programs/long_search_fixed (1,614 executions) and on
# benchmarks/programs/token_ring.fixed (26,324), the default strategy with
# a budget (bounds 0-2, then the samplers), and random sampling. Runs interleaved, REPS of each; prints the median wall seconds,
# the executions (median), executions per second and the ratio of one
# lane's time to JOBS lanes'.
#
#   benchmarks/run_jobs.sh [BUILD_DIR]     (default: build)
#
# Environment: REPS (default 5), JOBS (default 2), BUDGET (default 3000).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$here/common.sh"
lu_bench_build run_jobs.sh "${1:-build}" bin/lineup tests/run/programs/long_search_fixed \
    tests/run/programs/correct benchmarks/programs/token_ring.fixed
REPS=${REPS:-5}
JOBS=${JOBS:-2}
BUDGET=${BUDGET:-3000}
lu_bench_tmp run_jobs

searches=(
    "exhaustive|--strategy dfs --preemptions 2 --budget 0|tests/run/programs/long_search_fixed"
    "exhaustive|--strategy dfs --preemptions 2 --budget 0|benchmarks/programs/token_ring.fixed"
    "default|--seed 1 --budget $BUDGET|tests/run/programs/long_search_fixed"
    "random|--strategy random --seed 1 --budget $BUDGET|tests/run/programs/correct"
)

# one_run JOBS ARGS PROGRAM: "seconds executions" of one run
one_run() {
    local j=$1 args=$2 prog=$3 s e n
    s=$(date +%s.%N)
    # shellcheck disable=SC2086 # ARGS is a list of options
    "$build/bin/lineup" run --quiet --jobs "$j" $args -- "$build/$prog" >"$tmp/out" 2>&1 || true
    e=$(date +%s.%N)
    n=$(sed -n 's/^summary: \([0-9]*\) executions\{0,1\} in .*/\1/p' "$tmp/out")
    [[ -n $n ]] || {
        cat "$tmp/out" >&2
        echo "run_jobs.sh: no summary" >&2
        exit 1
    }
    echo "$(echo "$e - $s" | bc) $n"
}

echo "lineup run --jobs 1 and --jobs $JOBS ($(nproc) cores), median of $REPS interleaved runs"
printf '%-11s %-24s %10s %9s %8s %10s %9s %8s %7s\n' search program "1: s" execs "exec/s" "$JOBS: s" execs \
    "exec/s" ratio
for entry in "${searches[@]}"; do
    IFS='|' read -r name args prog <<<"$entry"
    : >"$tmp/one"
    : >"$tmp/many"
    for _ in $(seq "$REPS"); do
        one_run 1 "$args" "$prog" >>"$tmp/one"
        one_run "$JOBS" "$args" "$prog" >>"$tmp/many"
    done
    t1=$(cut -d' ' -f1 "$tmp/one" | lu_bench_median)
    n1=$(cut -d' ' -f2 "$tmp/one" | lu_bench_median)
    tj=$(cut -d' ' -f1 "$tmp/many" | lu_bench_median)
    nj=$(cut -d' ' -f2 "$tmp/many" | lu_bench_median)
    printf '%-11s %-24s %9.2fs %9d %8.0f %9.2fs %9d %8.0f %6.2fx\n' "$name" "${prog##*/}" "$t1" "$n1" \
        "$(echo "$n1 / $t1" | bc -l)" "$tj" "$nj" "$(echo "$nj / $tj" | bc -l)" "$(echo "$t1 / $tj" | bc -l)"
done

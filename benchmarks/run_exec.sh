#!/usr/bin/env bash
# The cost of one `lineup run` execution: every execution is a forked child
# of the program's server, so the figure is mostly fork and the pages the
# child writes (and, with TLS per thread, the pool threads it starts). Runs `lineup run --quiet --budget N`
# on two programs of tests/run/programs, REPS times each, and prints the
# median wall seconds and executions per second; with a baseline build, its
# lineup and liblineup.so run the same programs (through LD_LIBRARY_PATH,
# which wins over the programs' RUNPATH), runs interleaved so that load
# changes hit both alike.
#
#   benchmarks/run_exec.sh [BUILD_DIR [BASELINE_BUILD_DIR]]     (default: build)
#
# Environment: REPS (default 5), BUDGET (default 300).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$here/common.sh"
lu_bench_base run_exec.sh "${2:-}" bin/lineup lib/liblineup.so
lu_bench_build run_exec.sh "${1:-build}" bin/lineup lib/liblineup.so tests/run/programs/correct \
    tests/run/programs/long_search_fixed
REPS=${REPS:-5}
BUDGET=${BUDGET:-300}
lu_bench_tmp run_exec

# one_run BUILD PROGRAM: wall seconds of one run
one_run() {
    local b=$1 prog=$2 s e
    s=$(date +%s.%N)
    LD_LIBRARY_PATH=$b/lib "$b/bin/lineup" run --quiet --budget "$BUDGET" -- "$build/tests/run/programs/$prog" \
        >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}

echo "lineup run --budget $BUDGET, median of $REPS runs (s), executions per second"
for prog in correct long_search_fixed; do
    : >"$tmp/new"
    : >"$tmp/base"
    for _ in $(seq "$REPS"); do
        one_run "$build" "$prog" >>"$tmp/new"
        [[ -n $base ]] && one_run "$base" "$prog" >>"$tmp/base"
    done
    m=$(lu_bench_median <"$tmp/new")
    line=$(printf '%-18s %6.2f s  %5.0f/s' "$prog" "$m" "$(echo "$BUDGET / $m" | bc -l)")
    if [[ -n $base ]]; then
        mb=$(lu_bench_median <"$tmp/base")
        line+=$(printf '   baseline %6.2f s  %5.0f/s   ratio %.2fx' "$mb" "$(echo "$BUDGET / $mb" | bc -l)" \
            "$(echo "$mb / $m" | bc -l)")
    fi
    echo "$line"
done

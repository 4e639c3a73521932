#!/usr/bin/env bash
# Partial-order reduction on the subject suite: for every variant of
# benchmarks/subjects/subjects.txt (or those matching ONLY), random tests
# checked exhaustively at a preemption bound, with --reduction off and on:
# phase-2 executions and seconds (sum over the tests, from --json), the
# ratio, and whether every test got the same verdict and (passing tests)
# the same set of distinct histories (histories_digest). "hists" is the
# number of distinct histories and "ceiling" the executions without reduction
# divided by it: every execution yields one history, so no reduction that
# keeps every distinct history can run fewer executions than "hists", nor
# reach a ratio above "ceiling". With TRACES=1 the run with reduction also
# names each complete execution's Mazurkiewicz trace (LINEUP_TRACE_NAMES,
# docs/por.md section 8): "traces" is their number (per test and bound,
# summed), the least any trace-preserving reduction runs, and "t-ceiling"
# the executions without reduction divided by it.
#
#   benchmarks/subjects/reduction.sh [BUILD_DIR]      (default: build)
#
# Environment: MATRIX (default 3x2), SAMPLES (2), BOUND (2), SEED (1),
# ONLY (grep -E on variant names), JOBS (lineup --jobs, default 1), TRACES
# (1: count the traces too).
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$root/benchmarks/common.sh"
lu_bench_build reduction.sh "${1:-build}" bin/lineup bin/lineup-cc
lu_bench_python reduction.sh
MATRIX=${MATRIX:-3x2}
SAMPLES=${SAMPLES:-2}
BOUND=${BOUND:-2}
SEED=${SEED:-1}
ONLY=${ONLY:-.}
JOBS=${JOBS:-1}
TRACES=${TRACES:-0}
lu_bench_tmp reduction

echo "# --matrix $MATRIX --samples $SAMPLES --seed $SEED --preemptions $BOUND --max-executions 0 --jobs $JOBS"
if [[ $TRACES == 1 ]]; then
    printf '%-34s %12s %8s %12s %8s %7s %10s %8s %s %10s %9s\n' variant "execs off" "s off" "execs on" "s on" ratio \
        hists ceiling same traces t-ceiling
else
    printf '%-34s %12s %8s %12s %8s %7s %10s %8s %s\n' variant "execs off" "s off" "execs on" "s on" ratio hists \
        ceiling same
fi
grep -v '^[[:space:]]*\(#\|$\)' "$here/subjects.txt" | while IFS=';' read -r name src flags _; do
    name=$(echo "$name" | xargs)
    src=$(echo "$src" | xargs)
    flags=$(echo "$flags" | xargs)
    echo "$name" | grep -Eq -- "$ONLY" || continue
    so=$tmp/$name.so
    # shellcheck disable=SC2086
    LINEUP_CC=${LINEUP_CC:-cc} "$build/bin/lineup-cc" $flags -shared -o "$so" "$here/$src"
    names=$tmp/names.txt
    : >"$names"
    for r in off on; do
        if [[ $TRACES == 1 && $r == on ]]; then export LINEUP_TRACE_NAMES=$names; fi
        "$build/bin/lineup" --quiet --jobs "$JOBS" --no-minimize --max-reports 1 --replay-dir "$tmp" \
            --matrix "$MATRIX" --samples "$SAMPLES" --seed "$SEED" --preemptions "$BOUND" --max-executions 0 \
            --reduction $r --json "$tmp/$r.json" "$so" >/dev/null 2>&1 || true
        unset LINEUP_TRACE_NAMES
    done
    python3 - "$name" "$tmp/off.json" "$tmp/on.json" "$TRACES" "$names" <<'PY'
import json, sys
name, off, on, traces, names = sys.argv[1:6]
def tests(p):
    d = json.load(open(p))
    return [t for h in d['harnesses'] for t in h['tests']]
a, b = tests(off), tests(on)
ex = [sum(t['phase2_executions'] for t in x) for x in (a, b)]
sec = [sum(t['seconds'] for t in x) for x in (a, b)]
same = len(a) == len(b) and all(
    x['test'] == y['test'] and x['verdict'] == y['verdict'] and
    (x['verdict'] != 'PASS' or x['histories_digest'] == y['histories_digest']) for x, y in zip(a, b))
hs = sum(t['histories'] for t in a)
line = '%-34s %12d %8.2f %12d %8.2f %6.2fx %10d %7.2fx %s' % (name, ex[0], sec[0], ex[1], sec[1],
                                                             ex[0] / max(ex[1], 1), hs, ex[0] / max(hs, 1),
                                                             'yes' if same else 'NO')
if traces == '1':
    seen, unnamed = set(), 0
    for l in open(names):
        f = l.split()
        if f[2] == '-':
            unnamed += 1
        else:
            seen.add(tuple(f))
    # an execution without a name (too deep, too many threads) is a trace
    # of its own, as far as this count knows
    n = len(seen) + unnamed
    line += ' %10d %8.2fx' % (n, ex[0] / max(n, 1)) + (' (%d unnamed)' % unnamed if unnamed else '')
print(line)
PY
done

#!/usr/bin/env bash
# eval.sh: the evaluation of issue 5. Runs `lineup run` on every program of
# manifest.txt with every exploration strategy and prints markdown tables:
#
#   1. per strategy: buggy programs found within the budget, and the median
#      number of executions to the first failure;
#   2. per program and strategy: executions to the first failure (median
#      over seeds for the randomized strategies, with how many seeds found
#      it), and whether the failure was of the expected kind;
#   3. one line per correct twin, which must not fail under any strategy;
#   4. with ALL=1: per program and strategy, the executions of the whole run.
#
# Usage: benchmarks/programs/eval.sh [BUILD_DIR] [NAME-PATTERN]
#   BUILD_DIR: a lineup build directory (default: build, relative to the
#   current directory or the repository root) with bin/lineup and the
#   programs in benchmarks/programs/.
#
# Environment:
#   STRATEGIES   default "dfs ipb idb random pct pos default"; a strategy
#                with the suffix "-off" (dfs-off, ipb-off, default-off) runs
#                with --reduction off (partial-order reduction)
#   PREEMPTIONS  --preemptions for every run (default: lineup's)
#   ALL=1        run with --all (every distinct failure): the executions of a
#                run are then those of the whole search within the budget
#   SEEDS        seeds of the randomized strategies (random, pct, pos,
#                default): 1..SEEDS (default 5); dfs, ipb, idb run once
#   BUDGET       executions per run for buggy programs (default 10000)
#   TWIN_BUDGET  executions per run for correct twins (default 1000)
#   TWINS=0      skip the twins; BUGGY=0 skip the buggy programs
#   TWIN_RACES=1 run every twin with --races as well (no false races)
#   RUN_TIMEOUT  wall-clock seconds per lineup run (default 600)
#   OUT          directory for the logs, replay files and the raw results
#                (results.tsv); default: a new temporary directory
#   FROM         an earlier run's results.tsv: print its tables, run nothing
#
# Exit status: 0 when every twin passed and every run worked (whether a bug
# was found or not is the measurement, not an error); 1 when a twin failed
# or a run ended in a lineup error (status 2 or 3, or killed by
# RUN_TIMEOUT).
set -u -o pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
build=${1:-build}
pattern=${2:-}
if [[ ! -d $build && -d $root/$build ]]; then
    build=$root/$build
fi
build=$(cd -- "$build" 2>/dev/null && pwd) || {
    echo "eval.sh: no build directory '${1:-build}'" >&2
    exit 2
}
lineup=$build/bin/lineup
progdir=$build/benchmarks/programs
[[ -x $lineup ]] || {
    echo "eval.sh: $lineup not found (build lineup first)" >&2
    exit 2
}
"$lineup" run --help >/dev/null 2>&1 || {
    echo "eval.sh: this lineup has no 'run' command" >&2
    exit 2
}

read -r -a strategies <<<"${STRATEGIES:-dfs ipb idb random pct pos default}"
nseeds=${SEEDS:-5}
budget=${BUDGET:-10000}
twin_budget=${TWIN_BUDGET:-1000}
run_timeout=${RUN_TIMEOUT:-600}
if [[ -n ${FROM:-} ]]; then
    raw=$FROM
    out=$(dirname -- "$raw")
else
    out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/lineup-eval.XXXXXX")}
    mkdir -p "$out/logs" "$out/replays"
    raw=$out/results.tsv
    : >"$raw"
fi

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

randomized() {
    case $1 in
    random | pct | pos | default | default-off) return 0 ;;
    esac
    return 1
}

# The manifest's kind for the text after "FAIL: " in lineup's headline
# ("deadlock: every thread ...", "data race on 4 bytes at ...").
kind_of() {
    case $1 in
    "assertion failure"* | "reach_error() called"* | abort*) echo assert ;;
    "data race"*) echo race ;;
    deadlock* | livelock*) echo "${1%%:*}" ;;
    *) local k=${1%%:*}
       echo "${k// /_}" ;;
    esac
}

errors=0
# One lineup run; appends a line to results.tsv:
# role name strategy seed status found execs_to_failure kind executions seconds log
run_one() {
    local role=$1 name=$2 strategy=$3 seed=$4 runflags=$5 bud=$6
    local log=$out/logs/$name.$strategy.$seed.log
    local exe=$progdir/$name
    local t0 t1 st
    local -a extra=()
    if [[ $strategy == *-off ]]; then
        extra+=(--reduction off)
    fi
    [[ -n ${PREEMPTIONS:-} ]] && extra+=(--preemptions "$PREEMPTIONS")
    [[ ${ALL:-0} != 0 ]] && extra+=(--all)
    case ${strategy%-off} in
    dfs | ipb | idb) ;; # they draw nothing: --seed is refused
    *) extra+=(--seed "$seed") ;;
    esac
    if [[ ! -x $exe ]]; then
        echo "eval.sh: $exe missing (build the benchmark_programs target)" >&2
        errors=$((errors + 1))
        return
    fi
    local -a rf=()
    read -r -a rf <<<"$runflags"
    t0=$(date +%s.%N)
    (cd "$out/replays" && timeout -s KILL "$run_timeout" "$lineup" run --strategy "${strategy%-off}" --budget "$bud" \
        --quiet --replay-dir "$out/replays" "${extra[@]}" "${rf[@]}" -- "$exe") >"$log" 2>&1 </dev/null
    st=$?
    t1=$(date +%s.%N)
    local found=0 at=- kind=- execs=-
    local headline
    headline=$(grep -m1 '^FAIL: ' "$log")
    if [[ $st == 1 && -n $headline ]]; then
        found=1
        kind=$(kind_of "${headline#FAIL: }")
        at=$(sed -n 's/^  execution \([0-9][0-9]*\) (strategy.*/\1/p' "$log" | head -1)
        [[ -z $at ]] && at=-
    elif [[ $st != 0 ]]; then
        kind="error-$st"
        errors=$((errors + 1))
        echo "eval.sh: $name, strategy $strategy, seed $seed: lineup ended with status $st (log: $log)" >&2
    fi
    execs=$(sed -n 's/^summary: \([0-9][0-9]*\) executions\?.*/\1/p' "$log" | head -1)
    [[ -z $execs ]] && execs=-
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n' "$role" "$name" "$strategy" "$seed" "$st" "$found" \
        "$at" "$kind" "$execs" "$(echo "$t1 - $t0" | bc)" "$log" >>"$raw"
}

entries=()
while IFS='|' read -r name _ _ runflags expect kind preempt _; do
    name=$(trim "$name")
    [[ -z $name || $name == \#* ]] && continue
    [[ -n $pattern && $name != *$pattern* ]] && continue
    entries+=("$name|$(trim "$runflags")|$(trim "$expect")|$(trim "$kind")|$(trim "$preempt")")
done <"$here/manifest.txt"

total=0
[[ -n ${FROM:-} ]] && entries=()
for e in "${entries[@]}"; do
    IFS='|' read -r name runflags expect kind preempt <<<"$e"
    if [[ $expect == fails && ${BUGGY:-1} != 0 ]]; then
        for s in "${strategies[@]}"; do
            if randomized "$s"; then
                for ((seed = 1; seed <= nseeds; seed++)); do
                    run_one bug "$name" "$s" "$seed" "$runflags" "$budget"
                    total=$((total + 1))
                done
            else
                run_one bug "$name" "$s" 1 "$runflags" "$budget"
                total=$((total + 1))
            fi
        done
    elif [[ $expect == passes && ${TWINS:-1} != 0 ]]; then
        [[ ${TWIN_RACES:-0} != 0 && " $runflags " != *" --races "* ]] && runflags="$runflags --races"
        for s in "${strategies[@]}"; do
            run_one twin "$name" "$s" 1 "$runflags" "$twin_budget"
            total=$((total + 1))
        done
    fi
    printf 'eval.sh: %s done (%d runs so far)\n' "$name" "$total" >&2
done

# ---- Tables ----
python3 - "$raw" "$here/manifest.txt" "$budget" "$twin_budget" "$nseeds" "${ALL:-0}" "${strategies[@]}" <<'PY'
import sys, statistics
raw, manifest, budget, twin_budget, nseeds, all_ = sys.argv[1:7]
strategies = sys.argv[7:]
meta = {}
for line in open(manifest):
    if not line.strip() or line.lstrip().startswith('#'):
        continue
    f = [x.strip() for x in line.split('|')]
    meta[f[0]] = dict(runflags=f[3], expect=f[4], kind=f[5], preempt=f[6], notes=f[7])
rows = [l.rstrip('\n').split('\t') for l in open(raw) if l.strip()]
def norm(kind):
    # results.tsv of older runs kept more of the headline
    k = kind.replace('_', ' ')
    if k.startswith(('assertion failure', 'reach error() called', 'abort')):
        return 'assert'
    if k.startswith('data race'):
        return 'race'
    return kind

runs = {}
for role, name, strat, seed, st, found, at, kind, execs, secs, log in rows:
    kind = norm(kind)
    runs.setdefault((role, name, strat), []).append(
        dict(st=int(st), found=found == '1', at=None if at == '-' else int(at), kind=kind,
             execs=None if execs == '-' else int(execs), secs=float(secs)))
bugs = [n for n in meta if meta[n]['expect'] == 'fails' and any(k[:2] == ('bug', n) for k in runs)]
twins = [n for n in meta if meta[n]['expect'] == 'passes' and any(k[:2] == ('twin', n) for k in runs)]

def med(xs):
    return statistics.median(xs) if xs else None

def fmt(x):
    if x is None:
        return '-'
    return str(int(x)) if float(x).is_integer() else '%.1f' % x

def program_table(lead, heads, align, cell):
    # one row per buggy program: lead(n) after its name, then cell(n, runs)
    # for each strategy (empty when it did not run)
    print('| program | ' + ' | '.join(heads + strategies) + ' |')
    print('|---|' + align + '---:|' * len(strategies))
    for n in bugs:
        cells = []
        for s in strategies:
            rs = runs.get(('bug', n, s), [])
            cells.append(cell(n, rs) if rs else '')
        print('| ' + ' | '.join([n] + lead(n) + cells) + ' |')
    print()

if bugs:
    print('## Buggy programs: per strategy (budget %s executions per run)\n' % budget)
    print('| strategy | runs per program | found (in any run) | found (in every run) | median executions to first failure | wrong kind | total time (s) |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for s in strategies:
        anyf = allf = wrong = 0
        ats = []
        secs = 0.0
        nrun = 0
        for n in bugs:
            rs = runs.get(('bug', n, s), [])
            if not rs:
                continue
            nrun = max(nrun, len(rs))
            f = [r for r in rs if r['found']]
            anyf += bool(f)
            allf += len(f) == len(rs)
            wrong += any(r['kind'] != meta[n]['kind'] for r in f)
            # per program: the median over its runs, a run that did not find
            # the bug counting as more than the budget
            per = [r['at'] if r['found'] and r['at'] else float('inf') for r in rs]
            m = med(per)
            if m != float('inf'):
                ats.append(m)
            secs += sum(r['secs'] for r in rs)
        print('| %s | %d | %d / %d | %d / %d | %s | %d | %.0f |' % (s, nrun, anyf, len(bugs), allf, len(bugs),
              fmt(med(ats)), wrong, secs))
    print('\n"median executions to first failure": the median, over the programs whose bug the strategy found')
    print('in most of its runs, of the per-program median over runs (a run that missed counts as infinite).\n')

    print('## Buggy programs: executions to the first failure\n')
    print('Median over seeds for the randomized strategies, with (seeds that found it / seeds); "-": not found')
    print('within the budget; a failure kind other than the expected one is given after the number.\n')
    def first_failure(n, rs):
        per = [r['at'] if r['found'] and r['at'] else float('inf') for r in rs]
        m = med(per)
        c = '-' if m == float('inf') else fmt(m)
        if len(rs) > 1:
            c += ' (%d/%d)' % (sum(r['found'] for r in rs), len(rs))
        kinds = sorted({r['kind'] for r in rs if r['found'] and r['kind'] != meta[n]['kind']})
        errs = sorted({r['kind'] for r in rs if not r['found'] and r['kind'] != '-'})
        if kinds:
            c += ' [' + ','.join(kinds) + ']'
        if errs:
            c += ' {' + ','.join(errs) + '}'
        return c
    program_table(lambda n: [meta[n]['kind'], meta[n]['preempt']], ['kind', 'preemptions'], '---|---:|',
                  first_failure)

if bugs and all_ != '0':
    print('## Buggy programs: executions of the whole run (--all, budget %s)\n' % budget)
    print('Median over seeds for the randomized strategies; "+": the budget ran out.\n')

    def whole_run(n, rs):
        m = med([r['execs'] for r in rs if r['execs'] is not None])
        return '' if m is None else fmt(m) + ('+' if m >= int(budget) else '')
    program_table(lambda n: [], [], '', whole_run)

if twins:
    print('## Correct twins (budget %s executions per run, seed 1): must not fail\n' % twin_budget)
    bad = 0
    for n in twins:
        parts = []
        ok = True
        for s in strategies:
            for r in runs.get(('twin', n, s), []):
                if r['found'] or r['st'] != 0:
                    ok = False
                    parts.append('%s: FAIL (%s at execution %s)' % (s, r['kind'], fmt(r['at'])))
                else:
                    parts.append('%s: %s' % (s, fmt(r['execs'])))
        bad += not ok
        print('- %s %s: %s' % ('PASS' if ok else '**FAIL**', n, ', '.join(parts)))
    print('\n%d of %d twins passed under every strategy.' % (len(twins) - bad, len(twins)))
PY
echo
echo "raw results: $raw; logs: $out/logs"

bad=$(awk -F'\t' '$1 == "twin" && $5 != 0' "$raw" | wc -l)
((bad == 0 && errors == 0))

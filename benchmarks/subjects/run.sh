#!/usr/bin/env bash
# lineup against the stress loop on the buggy subjects of the suite
# (benchmarks/subjects/subjects.txt): for every buggy variant,
#   lineup  random matrices of the variant's search options (--matrix, ...),
#           one run per seed (1..SEEDS), --jobs 1 --no-minimize: the number of
#           tests, executions (phase 1 + phase 2) and seconds (sum of the
#           tests' worker lifetimes from --json) up to and including the first
#           failing test; median over the seeds (a seed that finds nothing
#           within SAMPLES tests counts as infinite);
#   stress  benchmarks/subjects/stress.c built against the same source with
#           cc -O2 (no lineup): real threads, random matrices of the same
#           shape, for STRESS_SECONDS; what it found and when.
#
#   benchmarks/subjects/run.sh [BUILD_DIR]        (default: build)
#
# Environment: STRESS_SECONDS (default 60), SEEDS (5), SAMPLES (most random
# tests per lineup run, 40; 4 for a known miss), ONLY (grep -E on variant names, e.g.
# 'treiber|seqlock'), LINEUP=0 / STRESS=0 (skip a side), LINEUP_ARGS (more
# lineup options, split on spaces, e.g. '--reduction off'), KEEP=1 (keep the
# temporary directory). The whole suite with the defaults takes about
# 25 x 60 s for the stress side alone.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$root/benchmarks/common.sh"
lu_bench_build run.sh "${1:-build}" bin/lineup bin/lineup-cc
lu_bench_python run.sh

STRESS_SECONDS=${STRESS_SECONDS:-60}
SEEDS=${SEEDS:-5}
SAMPLES=${SAMPLES:-40}
ONLY=${ONLY:-.}
LINEUP=${LINEUP:-1}
STRESS=${STRESS:-1}
CC=${CC:-cc}

lu_bench_tmp subjects

# first_fail JSON: "TESTS EXECUTIONS SECONDS KIND" up to the first failing
# test, or "inf EXECUTIONS SECONDS none" when every test passed
first_fail() {
    python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = ex = 0
secs = 0.0
for h in d["harnesses"]:
    for t in h["tests"]:
        n += 1
        ex += t["phase1_executions"] + t["phase2_executions"]
        secs += t["seconds"]
        if t["verdict"] != "PASS":
            print(n, ex, "%.3f" % secs, t["verdict"])
            sys.exit(0)
print("inf", ex, "%.3f" % secs, "none")
EOF
}

trim() {
    local v=${1#"${1%%[![:space:]]*}"}
    printf '%s' "${v%"${v##*[![:space:]]}"}"
}

median() { # numbers or "inf"
    printf '%s\n' "$@" | sed 's/^inf$/1e300/' | sort -g | awk '{v[NR] = $1} END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        if (m >= 1e299) print "-"; else printf "%.6g\n", m }'
}

echo "# lineup vs. stress loop on the buggy subjects ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$build/bin/lineup" --version 2>&1 | head -n1)"
echo "# lineup: --jobs 1 --no-minimize, the variant's search options, up to $SAMPLES random tests, seeds 1..$SEEDS;"
echo "#   tests/executions/seconds up to the first failing test, median over seeds ('-': most seeds found nothing)"
echo "# stress: $STRESS_SECONDS s of real threads on random matrices of the same shape (seed 1), $CC -O2"
echo
printf '%-34s %-9s | %-6s %-7s %-9s %-8s %-10s | %-9s %-8s %s\n' variant expect found tests executions seconds kind \
    stress seconds runs
n=0
while IFS=';' read -r name src flags expect pattern search test; do
    name=$(trim "$name")
    [[ -z $name || $name == \#* ]] && continue
    expect=$(trim "$expect")
    [[ $expect == pass ]] && continue
    grep -Eq -- "$ONLY" <<<"$name" || continue
    src=$(trim "$src")
    read -r -a fl <<<"$flags"
    eval "sa=($search)"
    matrix=3x3
    for ((i = 0; i < ${#sa[@]}; i++)); do
        [[ ${sa[i]} == --matrix ]] && matrix=${sa[i + 1]}
    done
    n=$((n + 1))

    found=- tests=- execs=- secs=- kind=-
    if [[ $LINEUP == 1 ]]; then
        "$build/bin/lineup-cc" "${fl[@]}" -shared -o "$tmp/$name.so" "$here/$src"
        ts=() es=() ss=() hits=0 kinds=()
        # a known miss is not found however long we look: 4 tests per seed
        max=$SAMPLES
        [[ $expect == miss ]] && max=$((SAMPLES < 4 ? SAMPLES : 4))
        for ((seed = 1; seed <= SEEDS; seed++)); do
            # lineup checks every sample even after a failing one, and the
            # same seed draws the same first tests whatever --samples is: 4,
            # then 16, then SAMPLES tests, so that an early find is cheap
            for k in 4 16 "$max"; do
                ((k <= max)) || k=$max
                rc=0
                # shellcheck disable=SC2086
                "$build/bin/lineup" --quiet --jobs 1 --no-minimize --max-reports 1 ${LINEUP_ARGS:-} "${sa[@]}" --samples "$k" \
                    --seed "$seed" --replay-dir "$tmp" --json "$tmp/$name.json" "$tmp/$name.so" >"$tmp/$name.out" \
                    2>&1 || rc=$?
                if ((rc > 1)); then
                    echo "run.sh: lineup exited $rc on $name (seed $seed):" >&2
                    cat "$tmp/$name.out" >&2
                    exit 1
                fi
                ((rc == 1 || k >= max)) && break
            done
            read -r t e s k <<<"$(first_fail "$tmp/$name.json")"
            if [[ $t == inf ]]; then
                ts+=(inf) es+=(inf) ss+=(inf)
            else
                hits=$((hits + 1))
                ts+=("$t") es+=("$e") ss+=("$s") kinds+=("$k")
            fi
        done
        found="$hits/$SEEDS"
        tests=$(median "${ts[@]}")
        execs=$(median "${es[@]}")
        secs=$(median "${ss[@]}")
        kind=$( ((${#kinds[@]})) && printf '%s\n' "${kinds[@]}" | tr 'A-Z' 'a-z' | sort | uniq -c | sort -rn |
            awk 'NR == 1 { print $2 }' || echo -)
    fi

    sfound=- ssecs=- sruns=-
    if [[ $STRESS == 1 ]]; then
        $CC -std=c11 -O2 -pthread -I"$root/harness" "${fl[@]}" -o "$tmp/$name.stress" "$here/stress.c" "$here/$src"
        "$tmp/$name.stress" --quiet --seconds "$STRESS_SECONDS" --matrix "$matrix" --seed 1 \
            >"$tmp/$name.stress.out" 2>&1 || true
        line=$(grep '^stress-result:' "$tmp/$name.stress.out" || true)
        if [[ -z $line ]]; then
            echo "run.sh: the stress loop of $name gave no result:" >&2
            cat "$tmp/$name.stress.out" >&2
            exit 1
        fi
        sfound=$(sed 's/.*found=\([a-z]*\).*/\1/' <<<"$line")
        ssecs=$(sed 's/.*seconds=\([0-9.]*\).*/\1/' <<<"$line")
        sruns=$(sed 's/.*runs=\([0-9]*\).*/\1/' <<<"$line")
        [[ $sfound == none ]] && ssecs=">$STRESS_SECONDS"
    fi
    printf '%-34s %-9s | %-6s %-7s %-9s %-8s %-10s | %-9s %-8s %s\n' "$name" "$expect" "$found" "$tests" "$execs" \
        "$secs" "$kind" "$sfound" "$ssecs" "$sruns"
done <"$here/subjects.txt"
((n > 0)) || {
    echo "run.sh: no buggy variant matches ONLY='$ONLY'" >&2
    exit 1
}
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

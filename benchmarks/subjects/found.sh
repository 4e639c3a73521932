#!/usr/bin/env bash
# Bug-finding power under a budget: for every buggy variant of the suite
# (benchmarks/subjects/subjects.txt) and the contract's buggy queue and
# stack, how many of SAMPLES random tests of one shape fail, per strategy
# and budget. The same tests in every column (same --seed): exact counts,
# no timing. RESULTS.md, S23.1.
#
#   benchmarks/subjects/found.sh [BUILD_DIR [BASELINE_BUILD_DIR]]   (default: build)
#
# Environment: MATRIX (default 3x3), SAMPLES (20), SEED (1), CONFIGS
# (default "default:20000": STRATEGY:BUDGET pairs, each a column; with a
# baseline build, each also runs on it, as a column "base STRATEGY:BUDGET"),
# ONLY (grep -E on variant names; the contract's are "contract.queue",
# "contract.queue_wakeup", "contract.stack"), CONTRACT_DIR (default
# /work/shared/contract).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$root/benchmarks/common.sh"
# the baseline first: lu_bench_base sets $build too
lu_bench_base found.sh "${2:-}" bin/lineup
lu_bench_build found.sh "${1:-build}" bin/lineup bin/lineup-cc
lu_bench_python found.sh
MATRIX=${MATRIX:-3x3}
SAMPLES=${SAMPLES:-20}
SEED=${SEED:-1}
CONFIGS=${CONFIGS:-default:20000}
ONLY=${ONLY:-.}
contract=${CONTRACT_DIR:-/work/shared/contract}
lu_bench_tmp found

trim() {
    local v=${1#"${1%%[![:space:]]*}"}
    printf '%s' "${v%"${v##*[![:space:]]}"}"
}
# variant name, source, flags: the manifest's buggy variants, then the contract's
variants=()
while IFS=';' read -r name src flags expect _; do
    name=$(trim "$name")
    expect=$(trim "$expect")
    [[ -z $name || $name == \#* || $expect == pass ]] && continue
    variants+=("$name;$here/$(trim "$src");$flags")
done <"$here/subjects.txt"
variants+=("contract.queue;$contract/queue_harness.c;-DBUGGY_TRY_DEQUEUE"
    "contract.queue_wakeup;$contract/queue_harness.c;-DBUGGY_LOST_WAKEUP"
    "contract.stack;$contract/stack_harness.c;-DBUGGY_PUSH")

columns=()
for c in $CONFIGS; do
    columns+=("new $c")
    [[ -n $base ]] && columns+=("base $c")
done
echo "# failing tests of $SAMPLES random $MATRIX tests (--seed $SEED, --jobs $(nproc), --no-minimize) per strategy:budget"
echo "# new: $build${base:+; base: $base}"
printf '%-34s' variant
for col in "${columns[@]}"; do printf ' %18s' "${col#new }"; done
echo
declare -A total
for v in "${variants[@]}"; do
    IFS=';' read -r name src flags <<<"$v"
    grep -Eq -- "$ONLY" <<<"$name" || continue
    [[ -f $src ]] || { echo "found.sh: $src not found" >&2; exit 1; }
    read -r -a fl <<<"$flags"
    "$build/bin/lineup-cc" "${fl[@]}" -shared -o "$tmp/$name.so" "$src"
    printf '%-34s' "$name"
    for col in "${columns[@]}"; do
        which=${col%% *}
        c=${col#* }
        bin=$build/bin/lineup
        [[ $which == base ]] && bin=$base/bin/lineup
        rc=0
        "$bin" --quiet --no-minimize --max-reports 1 --matrix "$MATRIX" --samples "$SAMPLES" --seed "$SEED" \
            --strategy "${c%%:*}" --max-executions "${c#*:}" --replay-dir "$tmp" --json "$tmp/r.json" \
            "$tmp/$name.so" >"$tmp/out" 2>&1 || rc=$?
        if ((rc > 1)); then
            echo
            echo "found.sh: lineup exited $rc on $name ($col):" >&2
            cat "$tmp/out" >&2
            exit 1
        fi
        n=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum(t["verdict"] != "PASS" for h in d["harnesses"] for t in h["tests"]))' "$tmp/r.json")
        total[$col]=$((${total[$col]:-0} + n))
        printf ' %18s' "$n"
    done
    echo
done
printf '%-34s' all
for col in "${columns[@]}"; do printf ' %18s' "${total[$col]}"; done
echo

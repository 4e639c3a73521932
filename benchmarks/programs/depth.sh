#!/usr/bin/env bash
# depth.sh: checks the "preempt" column of manifest.txt with lineup itself:
# for each buggy program, exhaustive DFS (`lineup run --strategy dfs
# --preemptions P --budget 0`) with P = 0, 1, 2, ... finds the smallest
# preemption bound at which the bug shows; a correct twin is explored
# exhaustively at bound 2 and must not fail.
#
# Usage: benchmarks/programs/depth.sh [BUILD_DIR] [NAME-PATTERN]
# Environment: MAXP (largest bound tried, default 4), BUDGET (executions per
# bound, default 20000; 0: no limit), RUN_TIMEOUT (seconds per run, default
# 300). A bound whose search the budget cut short is reported: the bug may
# then need fewer preemptions than measured.
# Exit status: 0 when every measured depth equals the manifest's and every
# twin passed, 1 otherwise.
set -u -o pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)
build=${1:-build}
pattern=${2:-}
[[ ! -d $build && -d $root/$build ]] && build=$root/$build
build=$(cd -- "$build" 2>/dev/null && pwd) || {
    echo "depth.sh: no build directory '${1:-build}'" >&2
    exit 2
}
lineup=$build/bin/lineup
progdir=$build/benchmarks/programs
maxp=${MAXP:-4}
budget=${BUDGET:-20000}
run_timeout=${RUN_TIMEOUT:-300}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lineup-depth.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

# Prints "status executions headline" of one exhaustive DFS run.
dfs() {
    local exe=$1 p=$2 runflags=$3
    local -a rf=()
    read -r -a rf <<<"$runflags"
    (cd "$tmp" && timeout -s KILL "$run_timeout" "$lineup" run --strategy dfs --preemptions "$p" --budget "$budget" \
        --quiet "${rf[@]}" -- "$exe") >"$tmp/log" 2>&1 </dev/null
    local st=$?
    local n
    n=$(sed -n 's/^summary: \([0-9][0-9]*\) executions\?.*/\1/p' "$tmp/log" | head -1)
    local full=partial
    grep -q 'coverage: every schedule' "$tmp/log" && full=complete
    printf '%s %s %s %s\n' "$st" "${n:--}" "$full" "$(grep -m1 '^FAIL: ' "$tmp/log" | cut -c1-70)"
}

bad=0
printf '| program | manifest | measured | executions at that bound | failure |\n|---|---:|---:|---:|---|\n'
while IFS='|' read -r name _ _ runflags expect _ preempt _; do
    name=$(trim "$name")
    [[ -z $name || $name == \#* ]] && continue
    [[ -n $pattern && $name != *$pattern* ]] && continue
    expect=$(trim "$expect")
    preempt=$(trim "$preempt")
    runflags=$(trim "$runflags")
    exe=$progdir/$name
    if [[ $expect == passes ]]; then
        read -r st n full head <<<"$(dfs "$exe" 2 "$runflags")"
        [[ $full == partial ]] && n="$n (budget reached)"
        if [[ $st != 0 ]]; then
            bad=$((bad + 1))
            printf '| %s | passes | **st %s** | %s | %s |\n' "$name" "$st" "$n" "$head"
        else
            printf '| %s | passes | passes (P<=2) | %s | - |\n' "$name" "$n"
        fi
        continue
    fi
    found=""
    cut=""
    for ((p = 0; p <= maxp; p++)); do
        read -r st n full head <<<"$(dfs "$exe" "$p" "$runflags")"
        if [[ $st == 0 && $full == partial ]]; then
            cut="$cut $p"
        fi
        if [[ $st == 1 ]]; then
            found=$p
            break
        elif [[ $st != 0 ]]; then
            head="lineup status $st $head"
            break
        fi
    done
    mark=""
    [[ $found != "$preempt" ]] && {
        mark="**"
        bad=$((bad + 1))
    }
    [[ -n $cut ]] && cut=" (budget reached at bound${cut})"
    printf '| %s | %s | %s%s%s%s | %s | %s |\n' "$name" "$preempt" "$mark" "${found:-none<=$maxp}" "$mark" "$cut" "$n" \
        "$head"
done <"$here/manifest.txt"
((bad == 0))

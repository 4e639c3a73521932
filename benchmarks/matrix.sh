#!/usr/bin/env bash
# The issue-4 matrix target: `lineup --matrix 3x3 --samples 100 --seed 1`
# (default budget, --jobs 2) on the contract queue and stack and on the
# Michael-Scott queue and Treiber stack subjects; median wall and CPU
# seconds of REPS runs, with partial-order reduction on (the default) and
# off, and with a baseline build if one is given (runs interleaved, so that
# load changes hit all variants alike).
#
#   benchmarks/matrix.sh [BUILD_DIR [BASELINE_BUILD_DIR]]     (default: build)
#
# Environment: REPS (default 3), CONTRACT_DIR (default /work/shared/contract),
# ONLY (grep -E on harness names), VARIANTS (default "on off baseline": the
# ones to run; baseline only with a baseline build; baseoff: the baseline
# build with reduction off; pertls: reduction on with --tls per-thread,
# each test thread on TLS of its own).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$here/common.sh"
lu_bench_base matrix.sh "${2:-}" bin/lineup
lu_bench_build matrix.sh "${1:-build}" bin/lineup bin/lineup-cc
REPS=${REPS:-3}
ONLY=${ONLY:-.}
contract=${CONTRACT_DIR:-/work/shared/contract}
[[ -x /usr/bin/time ]] || { echo "matrix.sh: /usr/bin/time is needed (Debian package time)" >&2; exit 1; }
lu_bench_tmp matrix

"$build/bin/lineup-cc" -shared -o "$tmp/queue.so" "$contract/queue_harness.c"
"$build/bin/lineup-cc" -shared -o "$tmp/stack.so" "$contract/stack_harness.c"
"$build/bin/lineup-cc" -shared -o "$tmp/msqueue.so" "$root/benchmarks/subjects/msqueue.c"
"$build/bin/lineup-cc" -shared -o "$tmp/treiber.so" "$root/benchmarks/subjects/treiber.c"

want=" ${VARIANTS:-on off baseline} "
variants=()
[[ $want == *" on "* ]] && variants+=("on|$build/bin/lineup --reduction on")
[[ $want == *" off "* ]] && variants+=("off|$build/bin/lineup --reduction off")
[[ $want == *" pertls "* ]] && variants+=("pertls|$build/bin/lineup --tls per-thread")
[[ -n $base && $want == *" baseline "* ]] && variants+=("baseline|$base/bin/lineup")
[[ -n $base && $want == *" baseoff "* ]] && variants+=("baseoff|$base/bin/lineup --reduction off")
[[ ${#variants[@]} -gt 0 ]] || { echo "matrix.sh: VARIANTS='${VARIANTS:-}' names none of on, off, pertls, baseline, baseoff" >&2; exit 2; }
printf '%-9s %-9s %8s %8s   %s\n' harness variant wall cpu "runs (wall)"
for h in queue stack msqueue treiber; do
    echo "$h" | grep -Eq -- "$ONLY" || continue
    for v in "${variants[@]}"; do : >"$tmp/${v%%|*}.w"; : >"$tmp/${v%%|*}.c"; done
    for ((r = 0; r < REPS; r++)); do
        for v in "${variants[@]}"; do
            name=${v%%|*}
            # shellcheck disable=SC2086
            /usr/bin/time -f '%e %U %S' -o "$tmp/t" ${v#*|} --quiet --jobs 2 --matrix 3x3 --samples 100 --seed 1 \
                --replay-dir "$tmp" "$tmp/$h.so" >/dev/null 2>&1 || true
            read -r e u sy <"$tmp/t"
            echo "$e" >>"$tmp/$name.w"
            awk -v a="$u" -v b="$sy" 'BEGIN { print a + b }' >>"$tmp/$name.c"
        done
    done
    for v in "${variants[@]}"; do
        name=${v%%|*}
        printf '%-9s %-9s %8s %8s   %s\n' "$h" "$name" "$(lu_bench_median <"$tmp/$name.w")" "$(lu_bench_median <"$tmp/$name.c")" \
            "$(tr '\n' ' ' <"$tmp/$name.w")"
    done
done

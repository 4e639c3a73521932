#!/usr/bin/env bash
# Deeper than 3x3 at P=2 (issue #4: "3x4, 4x3, P=3 within a coffee
# break"): one random test per configuration (--samples 1 --seed SEED),
# checked exhaustively (--max-executions 0) with every core
# (--jobs $(nproc): the test's schedule tree is split among them). Prints,
# per harness and configuration, the wall seconds, the phase-2 executions
# and distinct histories, and the verdict; a run that passes TIMEOUT
# seconds is stopped and shown as "> TIMEOUT". One run each (each takes
# minutes): the figures are indicative, not medians.
#
#   benchmarks/deep.sh [BUILD_DIR]     (default: build)
#
# Environment: CONFIGS (default "3x4:2 4x3:2 3x3:3", MATRIX:BOUND),
# SUBJECTS (default "queue stack treiber msqueue": the contract's queue
# and stack, benchmarks/subjects/*.c), SEED (default 1), TIMEOUT (default
# 1200), CONTRACT_DIR (default /work/shared/contract).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
# shellcheck source=benchmarks/common.sh
source "$here/common.sh"
lu_bench_build deep.sh "${1:-build}" bin/lineup bin/lineup-cc
lu_bench_python deep.sh
contract=${CONTRACT_DIR:-/work/shared/contract}
CONFIGS=${CONFIGS:-3x4:2 4x3:2 3x3:3}
SUBJECTS=${SUBJECTS:-queue stack treiber msqueue}
SEED=${SEED:-1}
TIMEOUT=${TIMEOUT:-1200}
lu_bench_tmp deep

for s in $SUBJECTS; do
    case $s in
    queue | stack) src=$contract/${s}_harness.c ;;
    *) src=$here/subjects/$s.c ;;
    esac
    [[ -f $src ]] || {
        echo "deep.sh: $src not found" >&2
        exit 1
    }
    "$build/bin/lineup-cc" -shared -o "$tmp/$s.so" "$src"
done

echo "one exhaustive test per configuration, --seed $SEED --jobs $(nproc) ($(nproc) cores), stopped after $TIMEOUT s"
printf '%-9s %-7s %10s %12s %11s %s\n' harness config "wall s" executions histories verdict
for c in $CONFIGS; do
    m=${c%%:*}
    p=${c#*:}
    for s in $SUBJECTS; do
        rm -f "$tmp/r.json"
        st=$(date +%s.%N)
        rc=0
        timeout "$TIMEOUT" "$build/bin/lineup" --quiet --no-minimize --replay-dir "$tmp" --jobs "$(nproc)" \
            --matrix "$m" --samples 1 --seed "$SEED" --preemptions "$p" --max-executions 0 --json "$tmp/r.json" \
            "$tmp/$s.so" >"$tmp/out" 2>&1 || rc=$?
        en=$(date +%s.%N)
        if [[ $rc == 124 ]]; then
            printf '%-9s %-7s %10s %12s %11s %s\n' "$s" "$m P=$p" "> $TIMEOUT" - - "stopped"
            continue
        fi
        python3 - "$tmp/r.json" "$(echo "$en - $st" | bc)" "$s" "$m P=$p" <<'EOF' || { cat "$tmp/out" >&2; exit 1; }
import json, sys
t = json.load(open(sys.argv[1]))['harnesses'][0]['tests'][0]
print('%-9s %-7s %10.1f %12d %11d %s' % (sys.argv[3], sys.argv[4], float(sys.argv[2]),
      t['phase2_executions'], t['histories'], t['verdict']))
EOF
    done
done

#!/usr/bin/env bash
# native.sh: build every program of manifest.txt with plain gcc and clang
# (no lineup; the SV-COMP functions come from verifier_native.c) and run it
# natively: a correct twin must pass every run; a buggy program is run until
# its first failure (or RUNS runs), to record whether the bug shows without
# a controlled scheduler at all.
#
# Usage: benchmarks/programs/native.sh [NAME-PATTERN]
# Environment: RUNS (runs per program, default 200), TIMEOUT (seconds per
# run; a deadlock or livelock shows as a timeout; default 2), CCS (compilers,
# default "gcc clang"), KEEP=1 keeps the build directory.
# Exit status: 0 when every twin passed every run, 1 otherwise, 2 on a build
# error.
set -u -o pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
pattern=${1:-}
runs=${RUNS:-200}
tmo=${TIMEOUT:-2}
read -r -a ccs <<<"${CCS:-gcc clang}"

work=$(mktemp -d "${TMPDIR:-/tmp}/lineup-native.XXXXXX") || exit 2
if [[ ${KEEP:-0} == 0 ]]; then
    trap 'rm -rf -- "$work"' EXIT
else
    echo "build directory: $work"
fi

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

# Status of one run as a word: ok, abort (assertion), timeout (hang),
# signal N, exit N.
run_once() {
    local st
    timeout -s KILL "$tmo" "$1" >/dev/null 2>&1 </dev/null
    st=$?
    case $st in
    0) echo ok ;;
    134) echo abort ;;
    137) echo timeout ;;
    *) if ((st > 128)); then echo "signal $((st - 128))"; else echo "exit $st"; fi ;;
    esac
}

bad_twins=0
printf '| program | compiler | expect | runs | failures | first failure |\n'
printf '|---|---|---|---:|---:|---|\n'
while IFS='|' read -r name src cflags _ expect _; do
    name=$(trim "$name")
    [[ -z $name || $name == \#* ]] && continue
    [[ -n $pattern && $name != *$pattern* ]] && continue
    src=$(trim "$src")
    read -r -a flags <<<"$(trim "$cflags")"
    expect=$(trim "$expect")
    extra=()
    grep -q '__VERIFIER_' "$here/$src" && extra=("$here/verifier_native.c")
    for cc in "${ccs[@]}"; do
        exe=$work/$name.$cc
        if ! "$cc" -std=gnu11 -O2 -g -Wall -Wextra -Werror "${flags[@]}" -o "$exe" "$here/$src" "${extra[@]}" \
            -pthread 2>"$exe.log"; then
            echo "native.sh: $cc failed on $name:" >&2
            cat "$exe.log" >&2
            exit 2
        fi
        n=0 fails=0 first=""
        while ((n < runs)); do
            st=$(run_once "$exe")
            n=$((n + 1))
            if [[ $st != ok ]]; then
                fails=$((fails + 1))
                [[ -z $first ]] && first="$st (run $n)"
                [[ $expect == fails ]] && break
            fi
        done
        if [[ $expect == passes && $fails -gt 0 ]]; then
            bad_twins=$((bad_twins + 1))
            first="$first  <-- a correct twin failed"
        fi
        printf '| %s | %s | %s | %d | %d | %s |\n' "$name" "$cc" "$expect" "$n" "$fails" "${first:--}"
    done
done <"$here/manifest.txt"

if ((bad_twins)); then
    echo "native.sh: $bad_twins correct twin run(s) failed" >&2
    exit 1
fi
exit 0

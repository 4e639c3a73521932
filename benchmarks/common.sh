# Sourced by the benchmark scripts (bash). Expects $root, the repository.

# lu_bench_build NAME DIR FILE...: sets build to DIR made absolute (as given,
# or relative to the repository) and checks that each FILE exists in it;
# otherwise says so, as NAME, and exits 1.
lu_bench_build() {
    local name=$1 dir=$2 f
    shift 2
    build=$dir
    [[ -d $build ]] || build=$root/$build
    build=$(cd -- "$build" 2>/dev/null && pwd) || {
        echo "$name: build directory $dir not found" >&2
        exit 1
    }
    for f in "$@"; do
        [[ -e $build/$f ]] || {
            echo "$name: $build/$f missing (build lineup first)" >&2
            exit 1
        }
    done
}

# lu_bench_base NAME DIR FILE...: sets base to the baseline build DIR,
# checked as lu_bench_build does, or to "" when DIR is empty (no baseline).
lu_bench_base() {
    local name=$1 dir=$2
    shift 2
    base=""
    [[ -n $dir ]] || return 0
    lu_bench_build "$name" "$dir" "$@"
    base=$build
}

# lu_bench_python NAME: exits 1, as NAME, unless python3 (which reads
# lineup's --json output) is on the PATH.
lu_bench_python() {
    command -v python3 >/dev/null || {
        echo "$1: python3 is needed to read lineup's --json output" >&2
        exit 1
    }
}

# lu_bench_tmp WHAT: sets tmp to a new temporary directory, removed when the
# script exits unless KEEP=1.
lu_bench_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/lineup-$1.XXXXXX")
    trap 'if [[ ${KEEP:-0} == 1 ]]; then echo "kept $tmp"; else rm -rf -- "$tmp"; fi' EXIT
}

# lu_bench_median: the median of the numbers on stdin, one per line (of an
# even count, the lower of the two middle ones).
lu_bench_median() {
    sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

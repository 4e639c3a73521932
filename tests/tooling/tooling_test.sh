#!/usr/bin/env bash
# Tests of lineup-cc and lineup_add_harness; run by ctest (tests/tooling).
#
#   tooling_test.sh CASE COMPILER
#
# Environment (set by CMakeLists.txt): LINEUP_CC_BIN (the configured
# lineup-cc), LINEUP_LIB (liblineup.so), TOOLING_SRC (this directory),
# CONTRACT_DIR (../shared/contract next to the repository), LINEUP_SRC (the
# repository), WORK (a scratch directory for this test), HARNESS_SO (the
# .so of case harness_target).
#
# Exit status: 0 pass, 1 fail, 77 skipped (ctest SKIP_RETURN_CODE).
# shellcheck disable=SC2153 # the environment comes from CMakeLists.txt
set -euo pipefail

case_=$1
compiler=$2

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

if ! command -v "$compiler" >/dev/null 2>&1; then
    [[ $compiler == clang* ]] && {
        echo "SKIPPED: $compiler not found"
        exit 77
    }
    fail "$compiler not found"
fi

need_contract() {
    [[ -f $CONTRACT_DIR/queue_harness.c && -f $CONTRACT_DIR/stack_harness.c ]] ||
        fail "contract harnesses not found in $CONTRACT_DIR (expected ../shared/contract/ next to the repository root)"
}

rm -rf -- "$WORK"
mkdir -p -- "$WORK/tmp"
cd -- "$WORK"
export LINEUP_CC=$compiler
# lineup-cc must leave no temporary file behind.
export TMPDIR=$WORK/tmp
check_no_temps() {
    [[ -z $(ls -A "$TMPDIR") ]] || fail "temporary files left in TMPDIR: $(ls -A "$TMPDIR")"
}

lcc() {
    echo "+ LINEUP_CC=$LINEUP_CC lineup-cc $*"
    "$LINEUP_CC_BIN" "$@"
}

# Symbols from the dynamic symbol table.
undefined_tsan() {
    nm -D --undefined-only "$1" | awk '$2 ~ /^__tsan_/ {print $2}' | sort -u
}

no_libtsan() {
    if readelf -d "$1" | grep NEEDED | grep -q tsan; then
        fail "$1 depends on the TSan runtime: $(readelf -d "$1" | grep NEEDED)"
    fi
}

# Every __tsan_* an object needs must be defined by liblineup.so.
covered_by_runtime() {
    local missing
    missing=$(comm -23 <(nm -u "$1" | awk '$2 ~ /^__tsan_/ {print $2}' | sort -u) \
        <(nm -D --defined-only "$LINEUP_LIB" | awk '{print $3}' | sort -u))
    [[ -z $missing ]] || fail "$1 needs __tsan_* symbols liblineup.so does not define: $missing"
}

case $case_ in
contract)
    need_contract
    for v in "queue_harness" "queue_harness -DBUGGY_TRY_DEQUEUE" "queue_harness -DBUGGY_LOST_WAKEUP" \
        "stack_harness" "stack_harness -DBUGGY_PUSH"; do
        read -r name def <<<"$v"
        out=${name}${def:+_${def#-D}}.so
        lcc -shared -o "$out" ${def:+"$def"} "$CONTRACT_DIR/$name.c"
        [[ -f $out ]] || fail "$out not built"
        no_libtsan "$out"
        undefined_tsan "$out" | grep -q . || fail "$out references no __tsan_* symbol"
        if [[ $name == stack_harness ]]; then
            undefined_tsan "$out" | grep -q '^__tsan_atomic' || fail "$out has no undefined __tsan_atomic*"
            echo "$out: $(undefined_tsan "$out" | tr '\n' ' ')"
        fi
        nm -D --undefined-only "$out" | grep -q ' lineup_register$' || fail "$out does not reference lineup_register"
    done
    # The same objects through -c, then a -shared link of the objects.
    lcc -c -fPIC -o stack.o "$CONTRACT_DIR/stack_harness.c"
    covered_by_runtime stack.o
    lcc -shared -o stack2.so stack.o
    no_libtsan stack2.so
    undefined_tsan stack2.so | grep -q '^__tsan_atomic' || fail "stack2.so has no undefined __tsan_atomic*"
    # A -z defs from the caller's flags must not break harness links.
    lcc -shared -Wl,-z,defs -o stack3.so "$CONTRACT_DIR/stack_harness.c"
    check_no_temps
    ;;

link)
    lcc -c -o helper.o "$TOOLING_SRC/prog_helper.c"
    nm -u helper.o | grep -q '__tsan_atomic64_' || fail "helper.o has no __tsan_atomic64_* reference"
    # compile and link in one command, with an object and a library
    lcc -o prog "$TOOLING_SRC/prog_main.c" helper.o -lm
    no_libtsan prog
    needed=$(readelf -d prog | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    # shellcheck disable=SC2086 # one line
    echo "NEEDED:" $needed
    lineup_pos=$(grep -n '^liblineup\.so' <<<"$needed" | cut -d: -f1 || true)
    libc_pos=$(grep -n '^libc\.so' <<<"$needed" | cut -d: -f1 || true)
    [[ -n $lineup_pos ]] || fail "prog does not depend on liblineup.so"
    [[ -n $libc_pos ]] || fail "prog does not depend on libc"
    ((lineup_pos < libc_pos)) || fail "liblineup.so comes after libc in DT_NEEDED"
    [[ $lineup_pos == 1 ]] || fail "liblineup.so is not the first DT_NEEDED"
    readelf -d prog | grep -Eq '(RPATH|RUNPATH).*\[.*'"$(dirname "$LINEUP_LIB")" || fail "prog has no rpath to liblineup.so"
    # bound at load, the runtime too: lineup run's forked executions would
    # each resolve the calls anew
    readelf -d prog | grep -q 'BIND_NOW' || fail "prog is not linked with -z now"
    readelf -d "$LINEUP_LIB" | grep -q 'BIND_NOW' || fail "liblineup.so is not linked with -z now"
    # the caller's -z lazy wins
    lcc -o prog_lazy "$TOOLING_SRC/prog_main.c" helper.o -lm -Wl,-z,lazy
    ! readelf -d prog_lazy | grep -q 'BIND_NOW' || fail "-Wl,-z,lazy of the caller did not win"
    out=$(./prog)
    echo "prog: $out"
    [[ $out == "result 4000 4000" ]] || fail "prog printed '$out'"
    # compile, then link objects only
    lcc -c "$TOOLING_SRC/prog_main.c" -o main.o
    lcc main.o helper.o -lm -o prog2
    [[ $(./prog2) == "result 4000 4000" ]] || fail "prog2 printed '$(./prog2)'"
    # the stages before linking pass through, instrumented
    lcc -S -o helper.s "$TOOLING_SRC/prog_helper.c"
    grep -q '__tsan_atomic64_fetch_add' helper.s || fail "-S output is not instrumented"
    lcc -E "$TOOLING_SRC/prog_main.c" >main.i
    grep -q 'helper_total' main.i || fail "-E output wrong"
    lcc -M "$TOOLING_SRC/prog_main.c" >main.d
    grep -q 'prog_main.o:' main.d || fail "-M output wrong"
    # version, help, missing compiler
    "$LINEUP_CC_BIN" --version | tee version.txt
    grep -q '^lineup-cc (lineup) [0-9]' version.txt || fail "--version lacks lineup's version"
    [[ $(wc -l <version.txt) -ge 2 ]] || fail "--version lacks the compiler's version"
    "$LINEUP_CC_BIN" --help >help.txt
    grep -q Usage help.txt || fail "--help prints no usage"
    set +e
    LINEUP_CC=/nonexistent/cc "$LINEUP_CC_BIN" -c "$TOOLING_SRC/prog_helper.c" 2>err.txt
    rc=$?
    set -e
    cat err.txt
    [[ $rc == 2 ]] || fail "missing compiler: exit status $rc, expected 2"
    grep -q '/nonexistent/cc.*not found' err.txt || fail "missing compiler: unclear message"
    check_no_temps
    ;;

error)
    for mode in exe shared obj; do
        case $mode in
        exe) cmd=(-o bad "$TOOLING_SRC/bad.c") ;;
        shared) cmd=(-shared -o bad.so "$TOOLING_SRC/bad.c") ;;
        obj) cmd=(-c -o bad.o "$TOOLING_SRC/bad.c") ;;
        esac
        set +e
        lcc "${cmd[@]}" 2>err.txt
        rc=$?
        set -e
        cat err.txt
        [[ $rc != 0 ]] || fail "$mode: a failing compile exited 0"
        grep -q 'bad\.c:[0-9]*:[0-9]*: error' err.txt || fail "$mode: the error does not name bad.c"
        grep -q 'lineup-cc\.' err.txt && fail "$mode: the error names a temporary file"
        [[ ! -e bad && ! -e bad.so && ! -e bad.o ]] || fail "$mode: output produced despite the error"
    done
    check_no_temps
    ;;

noreturn)
    # an operation without its return statement is warned about without
    # -Wall (lineup would check whatever the register held)
    lcc -shared -o noreturn.so "$TOOLING_SRC/noreturn.c" 2>err.txt
    cat err.txt
    grep -q 'noreturn\.c:[0-9]*:[0-9]*: warning: .*\[-Wreturn-type\]' err.txt ||
        fail "no -Wreturn-type warning for an operation that does not return a value"
    lcc -shared -Wno-return-type -o noreturn.so "$TOOLING_SRC/noreturn.c" 2>err.txt
    grep -q 'Wreturn-type' err.txt && fail "-Wno-return-type did not silence the warning"
    check_no_temps
    ;;

abi)
    # -Werror: gcc's -Wtsan about fences must be off.
    flags=(-O2 -Wall -Wextra -Werror)
    # Without cx16 clang leaves some 16-byte atomics to libatomic.
    [[ $compiler == clang* ]] && flags+=(-mcx16)
    lcc "${flags[@]}" -c -o probe.o "$TOOLING_SRC/abi_probe.c"
    echo "probe.o needs: $(nm -u probe.o | awk '$2 ~ /^__tsan_/ {print $2}' | sort -u | tr '\n' ' ')"
    covered_by_runtime probe.o
    lcc -o probe probe.o
    ./probe
    lcc -O0 -o probe0 "$TOOLING_SRC/abi_probe.c" "${flags[@]:1}"
    ./probe0
    check_no_temps
    ;;

sched)
    # Instrumented code under the real scheduler (needs lineup's internal
    # headers, and dladdr to name the pcs of scheduling points).
    lcc -O1 -Wall -Wextra -Werror -I"$LINEUP_SRC/scheduler" -I"$LINEUP_SRC/interpose" -rdynamic \
        -o sched_tsan "$TOOLING_SRC/sched_tsan.c" -ldl
    ./sched_tsan
    check_no_temps
    ;;

harness_target)
    need_contract
    [[ -f $HARNESS_SO ]] || fail "lineup_add_harness output $HARNESS_SO not built"
    [[ $(basename "$HARNESS_SO") == tooling_queue_harness.so ]] || fail "unexpected name $HARNESS_SO"
    no_libtsan "$HARNESS_SO"
    undefined_tsan "$HARNESS_SO" | grep -q . || fail "$HARNESS_SO references no __tsan_* symbol"
    undefined_tsan "$HARNESS_SO" | grep -q '^__tsan_func_entry$' || fail "$HARNESS_SO is not instrumented"
    covered_by_runtime "$HARNESS_SO"
    ;;

cmake_external)
    need_contract
    cmake -S "$TOOLING_SRC/external" -B build -DCMAKE_C_COMPILER="$compiler" -DLINEUP_SOURCE_DIR="$LINEUP_SRC" \
        -DCONTRACT_DIR="$CONTRACT_DIR" -DCMAKE_MODULE_LINKER_FLAGS=-Wl,-z,defs
    cmake --build build
    # (gcc: build/fortify/fortify_probe.so compiled at all shows that
    # _FORTIFY_SOURCE stayed off)
    [[ $compiler != gcc* || -f build/fortify/fortify_probe.so ]] || fail "fortify_probe.so not built"
    for so in build/stack_harness.so build/queue_harness.so; do
        [[ -f $so ]] || fail "$so not built"
        no_libtsan "$so"
        covered_by_runtime "$so"
    done
    undefined_tsan build/stack_harness.so | grep -q '^__tsan_atomic' || fail "stack_harness.so has no __tsan_atomic*"
    # the compiler the external project asked for did the work
    readelf -p .comment build/stack_harness.so | grep -qi "${compiler%%-*}" ||
        fail "stack_harness.so was not compiled by $compiler"
    # lineup-cc's flags, all of them: a build without those that keep libc
    # calls as calls (gcc) or reads before writes (clang) passed these
    # tests with the reduction on (an audit)
    lineup=$(dirname -- "$LINEUP_CC_BIN")/lineup
    for t in "footprint rbw write_y(2) | read_twice(0)" "libcmem literal put(0) | is_ab(0)"; do
        read -r so h test <<<"$t"
        rc=0
        "$lineup" --jobs 1 --max-executions 0 --harness "$h" --test "$test" "build/$so.so" >"$so.out" 2>&1 || rc=$?
        [[ $rc == 1 ]] && grep -q "4 distinct histories" "$so.out" ||
            fail "$so.so built by lineup_add_harness: exit $rc, not the bug lineup-cc's build shows: $(tail -5 "$so.out")"
    done
    flags_of() {
        tr -d '\\' | tr ' ' '\n' | grep -E -- '^(-fno-builtin-|-U|-Wp,|-tsan-|--param|-fsanitize|-fno-omit|-W(return-type|no-tsan)$|-g$)' |
            sort -u
    }
    LINEUP_CC_VERBOSE=1 lcc -O2 -shared -o lcc_footprint.so "$LINEUP_SRC/tests/lineup/harnesses/footprint.c" 2>&1 |
        grep -- '-fsanitize=thread' | flags_of >lcc.flags
    grep -o '"command": "[^"]*footprint.c[^"]*"' build/compile_commands.json | flags_of >cmake.flags
    [[ -s lcc.flags ]] || fail "no compile command of lineup-cc seen"
    diff lcc.flags cmake.flags >flags.diff || fail "lineup_add_harness and lineup-cc compile differently: $(cat flags.diff)"
    ;;

*)
    fail "unknown case $case_"
    ;;
esac
echo "PASS: $case_ ($compiler)"

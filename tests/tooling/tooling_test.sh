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

# refused WHAT PATTERN COMMAND...: COMMAND exits 2 with PATTERN on stderr.
refused() {
    local what=$1 pattern=$2 rc
    shift 2
    set +e
    "$@" >out.txt 2>err.txt
    rc=$?
    set -e
    [[ $rc == 2 ]] && grep -q -- "$pattern" err.txt || fail "$what: exit $rc, $(cat err.txt)"
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
    # (clang: lineup-cc's -mcx16 keeps 16-byte atomics away from libatomic)
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
        tr -d '\\' | tr ' ' '\n' | grep -E -- '^(-fno-builtin-|-U|-Wp,|-tsan-|--param|-fsanitize|-fno-omit|-W(return-type|no-tsan)$|-g$|-fno-lto$|-mcx16$|-include$|.*lineup-cc-mark.h$)' |
            sort -u
    }
    LINEUP_CC_VERBOSE=1 lcc -O2 -shared -o lcc_footprint.so "$LINEUP_SRC/tests/lineup/harnesses/footprint.c" 2>&1 |
        grep -- '-fsanitize=thread' | flags_of >lcc.flags
    grep -o '"command": "[^"]*footprint.c[^"]*"' build/compile_commands.json | flags_of >cmake.flags
    [[ -s lcc.flags ]] || fail "no compile command of lineup-cc seen"
    diff lcc.flags cmake.flags >flags.diff || fail "lineup_add_harness and lineup-cc compile differently: $(cat flags.diff)"
    ;;

args)
    # Ways of passing sources and flags that once built something lineup
    # could not see (an audit: each gave PASS on a lost update, or a wrong
    # refusal). Each output must reference the hooks of its atomics.
    need_contract
    lineup=$(dirname -- "$LINEUP_CC_BIN")/lineup
    stack=$CONTRACT_DIR/stack_harness.c
    atomics() { undefined_tsan "$1" | grep -q '^__tsan_atomic64_' || fail "$1: its atomics are not instrumented"; }
    # -flto: gcc instruments at link time then, where there is no
    # -fsanitize=thread
    lcc -O2 -flto -shared -o lto.so "$stack"
    atomics lto.so
    lcc -O2 -flto -fPIC -c -o lto.o "$stack"
    lcc -O2 -flto -shared -o lto2.so lto.o
    atomics lto2.so
    # -xc joined, the source on standard input
    lcc -shared -o stdin.so -xc - <"$stack"
    atomics stdin.so
    # response files, nested, with a quoted name
    cp "$stack" "my stack.c"
    printf '%s\n' "-O1 '@inner.rsp'" >outer.rsp
    printf '%s\n' '"my stack.c"' >inner.rsp
    lcc -shared -o rsp.so @outer.rsp
    atomics rsp.so
    # -MD in a command that compiles and links: OUT.d names OUT, as cc's
    lcc -MD -shared -o md.so "$stack"
    grep -q "^md.so: .*stack_harness.c" md.d || fail "-MD: md.d is not cc's: $(cat md.d 2>&1 | head -2)"
    # a program whose objects all come from a library
    lcc -c -o helper.o "$TOOLING_SRC/prog_helper.c"
    lcc -c -o main.o "$TOOLING_SRC/prog_main.c"
    ar rcs libprog.a main.o helper.o
    lcc -o libonly -L. -lprog -lm
    readelf -d libonly | grep -q 'NEEDED.*liblineup' || fail "libonly is not linked with liblineup.so"
    [[ $(./libonly) == "result 4000 4000" ]] || fail "libonly printed '$(./libonly)'"
    lcc -o wholearchive -Wl,--whole-archive,libprog.a,--no-whole-archive,-lm
    readelf -d wholearchive | grep -q 'NEEDED.*liblineup' || fail "wholearchive is not linked with liblineup.so"
    refused "--static" '-static is not supported' lcc --static -o st "$TOOLING_SRC/prog_main.c" helper.o
    # 16-byte atomic arithmetic (clang without -mcx16 calls libatomic)
    cat >i128.c <<'EOS'
unsigned __int128 v;
unsigned __int128 add(void) { return __atomic_fetch_add(&v, 1, __ATOMIC_SEQ_CST); }
EOS
    lcc -c -fPIC -o i128.o i128.c
    nm -u i128.o | grep -q '__tsan_atomic128_fetch_add' || fail "16-byte fetch_add is not a hook: $(nm -u i128.o)"
    # a harness compiled with -fsanitize=thread but not by lineup-cc is
    # refused (no volatile hooks, no sound reduction), and says why
    "$compiler" -O1 -fsanitize=thread -fPIC -I"$LINEUP_SRC/harness" -c -o plain.o "$stack"
    "$compiler" -shared -o plain.so plain.o
    refused "plain -fsanitize=thread harness" 'compiled with -fsanitize=thread, but not by lineup-cc' \
        "$lineup" --jobs 1 --matrix 2x2 --samples 1 --seed 1 plain.so
    "$lineup" --jobs 1 --matrix 2x2 --samples 1 --seed 1 --allow-uninstrumented plain.so >out.txt 2>&1 ||
        fail "--allow-uninstrumented did not accept it: $(cat out.txt)"
    # the mark is no symbol: a version script that hides every one keeps it
    printf '{ local: *; };\n' >hide.map
    lcc -shared -Wl,--version-script=hide.map -o hidden.so "$stack"
    "$lineup" --jobs 1 --matrix 2x2 --samples 1 --seed 1 hidden.so >out.txt 2>&1 ||
        fail "a lineup-cc harness with a version script was refused: $(cat out.txt)"
    # and a program with a plain -fsanitize=thread object is refused too
    "$compiler" -O1 -fsanitize=thread -c -o plain_helper.o "$TOOLING_SRC/prog_helper.c"
    "$compiler" -O1 -fsanitize=thread -c -o plain_main.o "$TOOLING_SRC/prog_main.c"
    lcc -o plainprog plain_main.o plain_helper.o -lm
    refused "plain -fsanitize=thread program" 'compiled with -fsanitize=thread, but not by lineup-cc' \
        "$lineup" run --budget 1 -- ./plainprog
    "$lineup" run --budget 1 -- ./libonly >out.txt 2>&1 || fail "a lineup-cc program was refused: $(cat out.txt)"
    # compiled by lineup-cc with the instrumentation turned off again: the
    # message names the flags that do it, not a build without lineup-cc
    lcc -fno-sanitize=thread -shared -o nosan.so "$stack"
    refused "-fno-sanitize=thread harness" 'compiled by lineup-cc, but none of its code is instrumented' \
        "$lineup" --jobs 1 --matrix 2x2 --samples 1 --seed 1 nosan.so
    lcc -fno-sanitize=thread -o nosanprog "$TOOLING_SRC/prog_main.c" "$TOOLING_SRC/prog_helper.c" -lm
    refused "-fno-sanitize=thread program" 'compiled by lineup-cc, but none of its code is instrumented' \
        "$lineup" run --budget 1 -- ./nosanprog
    # a harness in C++ (LINEUP_HARNESS is valid C++) finds a bug there
    cxx=g++
    [[ $compiler == clang* ]] && cxx=clang++
    if command -v "$cxx" >/dev/null; then
        cat >counter.cpp <<'EOS'
#include <lineup.h>
#include <atomic>
struct counter { std::atomic<long> v{0}; };
static void *create() { return new counter; }
static void destroy(void *c) { delete static_cast<counter *>(c); }
static int64_t inc(void *c, int64_t) {
    auto *k = static_cast<counter *>(c);
    long x = k->v.load();
    k->v.store(x + 1);
    return x;
}
LINEUP_HARNESS(cxx_counter, create, destroy, LINEUP_OP(inc, 0));
EOS
        LINEUP_CC=$cxx lcc -Wall -Wextra -Werror -shared -o cxx.so counter.cpp
        rc=0
        "$lineup" --jobs 1 --test 'inc(0) | inc(0)' cxx.so >out.txt 2>&1 || rc=$?
        [[ $rc == 1 ]] || fail "C++ harness: exit $rc, expected the lost update: $(tail -5 out.txt)"
    fi
    check_no_temps
    ;;

*)
    fail "unknown case $case_"
    ;;
esac
echo "PASS: $case_ ($compiler)"

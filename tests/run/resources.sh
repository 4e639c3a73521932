#!/usr/bin/env bash
# Resource limits of `lineup run`: the processes and threads lineup itself
# uses (the server, the process of each execution, the pool thread behind
# each program thread) count against the user's limits; running out of
# them is a tool error naming the limit (exit status 3, no verdict), and
# the program never sees an EAGAIN it would not get natively. One ctest
# entry per CASE.
#
#   resources.sh CASE
#
# Environment (from CMakeLists.txt): LINEUP, PROGS (the built programs),
# WORK (scratch directory).
# Exit status: 0 pass, 1 fail, 77 skipped (ctest SKIP_RETURN_CODE).
# shellcheck disable=SC2153 # the environment comes from CMakeLists.txt
set -uo pipefail

case_=$1
P=$PROGS
LU_BIN=$LINEUP
LU_TIMEOUT=100
out=$WORK/out.txt
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/../cli_lib.sh"
rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK" || exit 1

case $case_ in
nproc)
    if ! unprivileged "$P/deadlock" "$P/many_threads" "$P/correct"; then
        echo "SKIPPED: cannot run lineup as an unprivileged user here (root is exempt from RLIMIT_NPROC)"
        exit 77
    fi
    # room for lineup, the server and an execution: with one TLS for the
    # program's threads (the default, here) they run on stacks the
    # execution maps, no threads, and the verdicts are the program's
    nobody_lu 1 3 run --quiet --budget 50 -- ./deadlock
    has "^FAIL: deadlock"
    nobody_lu 2 3 run --quiet --budget 50 -- ./many_threads
    has "more than 64 threads in one execution"
    rm -f -- "$NOBODY_DIR"/*.replay
    # each on TLS of its own, a program thread needs a pool thread: room
    # for main's, not for the threads main creates. deadlock.c used to see
    # pthread_create fail and report a false deadlock (or an unsupported
    # join), many_threads.c to exit 1 and pass, where it goes past
    # lineup's 64 threads
    for prog in deadlock many_threads; do
        nobody_lu 3 4 run --quiet --budget 50 --tls per-thread -- "./$prog"
        has "^lineup run: cannot start (a thread|the process of an execution|the program): Resource temporarily unavailable \(RLIMIT_NPROC is [0-9]+, and lineup's own processes and threads count against it: raise it with ulimit -u\)"
        lacks "^FAIL|unsupported call|exit status"
        lacks_verdict
        ! ls -- "$NOBODY_DIR"/*.replay >/dev/null 2>&1 || fail "a replay file was written for $prog"
    done
    # --jobs 3 runs three executions at once: room for one only is the
    # same resource error, never a verdict from fewer executions than asked
    nobody_lu 3 3 run --quiet --budget 50 --jobs 3 -- ./correct
    has "^lineup run: cannot start the process of an execution: Resource temporarily unavailable \(RLIMIT_NPROC is [0-9]+, and lineup's own processes and threads count against it: raise it with ulimit -u\)"
    lacks_verdict
    nobody_lu 0 5 run --quiet --budget 50 --jobs 3 -- ./correct
    has "^verdict: PASS"
    # and with room, the verdicts are the program's
    nobody_lu 0 64 run --quiet --budget 50 -- ./correct
    has "^verdict: PASS"
    nobody_lu 1 64 run --quiet --budget 50 -- ./deadlock
    has "^FAIL: deadlock"
    ;;
as)
    # 63 threads need 63 stacks of 8 MB: under 300 MB the program used to
    # get EAGAIN, exit 1 and pass. With one TLS for the threads (the
    # default, here) the execution maps them itself; each on TLS of its
    # own, a pool thread's stack each (pthread_create's EAGAIN)
    for tls in auto per-thread; do
        err="Cannot allocate memory"
        [[ $tls == per-thread ]] && err="Resource temporarily unavailable"
        as_lu 3 300000 run --quiet --budget 20 --tls $tls -- "$P/threads_63"
        has "^lineup run: cannot start a thread: $err \(RLIMIT_AS is 292 MB and each thread's stack takes 8 MB of it: raise it with ulimit -v\)"
        lacks "exit status"
        lacks_verdict
        # a thread that asked for a bigger stack: its size, not the default's
        as_lu 3 300000 run --quiet --budget 20 --tls $tls -- "$P/stack_huge"
        has "^lineup run: cannot start a thread: $err \(RLIMIT_AS is 292 MB and this thread's stack takes 1024 MB of it, each other thread's 8 MB: raise it with ulimit -v\)"
        lacks_verdict
    done
    # a program with few threads runs under the same limit
    as_lu 0 300000 run --quiet --budget 20 -- "$P/correct"
    has "^verdict: PASS"
    ;;
files)
    # the shared region is a file (a memfd): under a smaller file size
    # limit lineup used to die of SIGXFSZ without a word
    rc=0
    (ulimit -f 100 && exec timeout 100 "$LU_BIN" run --quiet --budget 5 -- "$P/correct") >"$out" 2>&1 || rc=$?
    [[ $rc == 3 ]] || fail "lineup run under ulimit -f 100 exited $rc, expected 3"
    has "^lineup run: cannot create the shared region: File too large \(RLIMIT_FSIZE is 100 KB and this file needs [0-9]+ MB: raise it with ulimit -f\)"
    lacks_verdict
    # lineup's own descriptors: the pipes to the program
    rc=0
    (ulimit -n 6 && exec timeout 100 "$LU_BIN" run --quiet --budget 5 -- "$P/correct") >"$out" 2>&1 || rc=$?
    [[ $rc == 3 ]] || fail "lineup run under ulimit -n 6 exited $rc, expected 3"
    has "^lineup run: cannot .*: Too many open files \(RLIMIT_NOFILE is 6, and lineup's own descriptors count against it: raise it with ulimit -n\)"
    lacks_verdict
    ;;
stack)
    # lineup's own frames take tens of KB: under a soft stack limit of
    # 32 KB it crashed (SIGSEGV, exit 139); it raises the soft limit now,
    # and the verdicts are the program's
    rc=0
    (ulimit -Ss 32 && exec timeout 100 "$LU_BIN" run --quiet --budget 50 -- "$P/lost_update") >"$out" 2>&1 || rc=$?
    [[ $rc == 1 ]] || fail "lineup run under ulimit -Ss 32 exited $rc, expected 1"
    has "^FAIL: assertion failure"
    # where the hard limit is as low, it says so
    rc=0
    (ulimit -s 32 && exec timeout 100 "$LU_BIN" run --quiet --budget 5 -- "$P/correct") >"$out" 2>&1 || rc=$?
    [[ $rc == 3 ]] || fail "lineup run under ulimit -s 32 exited $rc, expected 3"
    has "^lineup: the stack size limit \(ulimit -s\) is below the 128 KB lineup needs"
    lacks_verdict
    ;;
*)
    echo "unknown case $case_"
    exit 1
    ;;
esac
echo "1 passed, 0 failed"

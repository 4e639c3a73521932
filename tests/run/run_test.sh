#!/usr/bin/env bash
# Tests of `lineup run` (tests/run): each case runs lineup on small programs
# (built by lineup-cc at build time, see CMakeLists.txt) and checks its exit
# status and the lines of its report.
#
#   run_test.sh CASE
#
# Environment (from CMakeLists.txt): LINEUP (the driver), LINEUP_CC_BIN,
# PROGS (the built programs), SRC (their sources), WORK (scratch directory).
# shellcheck disable=SC2153 # the environment comes from CMakeLists.txt
set -euo pipefail

case_=$1
# reduction_suite_full is the long tier's reduction_suite (scripts/test.sh
# --long): bound 2 where the quick one stops at bound 1
full=0
if [[ $case_ == reduction_suite_full ]]; then
    case_=reduction_suite
    full=1
fi
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK"

out=$WORK/out.txt
# run EXPECTED_STATUS ARGS...: lineup run ARGS, output in $out
run() {
    local want=$1
    shift
    echo "+ lineup run $*"
    local rc=0
    timeout 100 "$LINEUP" run --quiet "$@" >"$out" 2>&1 || rc=$?
    sed 's/^/    /' "$out"
    [[ $rc == "$want" ]] || fail "lineup run $* exited with $rc, expected $want"
}
has() {
    grep -qF -- "$1" "$out" || fail "the output lacks: $1"
}
lacks() {
    if grep -qF -- "$1" "$out"; then fail "the output has: $1"; fi
}
replay_file() {
    sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1
}

P=$PROGS
case $case_ in
assert)
    # the lost update needs one preemption: dfs finds it, shows where the
    # thread was preempted and what the program printed
    run 1 --strategy dfs -- "$P/lost_update"
    has "FAIL: assertion failure: \`atomic_load(&counter) == 2' in the main thread at main (lost_update.c:39)"
    has "preempted before atomic_store(32) at incr (lost_update.c:24)"
    has "1 preemption:"
    has "| lost_update: counter is 1"
    has "lost_update.c:39: main: Assertion \`atomic_load(&counter) == 2' failed."
    [[ -f $(replay_file) ]] || fail "no replay file written"
    # the same program with the mutex: every schedule, no failure
    run 0 --strategy dfs --preemptions -1 -- "$P/lost_fixed"
    has "every schedule of the program was explored"
    has "verdict: PASS"
    ;;
replay)
    run 1 --strategy pct --seed 3 --replay-dir "$WORK" -- "$P/lost_update"
    f=$(replay_file)
    [[ -f $f ]] || fail "no replay file"
    grep -q '^kind ASSERT$' "$f" || fail "the replay file does not record the kind"
    for _ in 1 2; do
        run 1 --replay "$f"
        has "verdict: assertion failure (reproduced)"
        has "| lost_update: counter is 1"
    done
    # the program given on the command line wins over the recorded one
    cp "$P/lost_update" "$WORK/copy"
    run 1 --replay "$f" -- "$WORK/copy"
    has "(reproduced)"
    # a crash replays as a crash, nondet inputs and all
    run 1 --strategy dfs -- "$P/nondet"
    f=$(replay_file)
    grep -q '^schedule d3 ' "$f" || fail "the nondet value is not the first choice of the schedule: $(cat "$f")"
    run 1 --replay "$f"
    has "verdict: reach_error() called (reproduced)"
    has "__VERIFIER_nondet_int() = 3"
    # a schedule that does not fit the program: the replay stops there and
    # says so (exit 2), never a verdict about the program
    run 1 --strategy dfs -- "$P/deadlock"
    f=$(replay_file)
    run 2 --replay "$f" -- "$P/lost_fixed"
    has "verdict: the recorded schedule does not fit (recorded as deadlock)"
    has "lineup run: replay: the recorded schedule does not fit this program at choice"
    has "To check a fix, run it again: lineup run -- $P/lost_fixed"
    lacks "(reproduced)"
    lacks "nondeterminism"
    run 1 --strategy dfs --replay-dir "$WORK" -- "$P/lost_update"
    f=$(replay_file)
    n=$(sed -n 's/^schedule //p' "$f" | wc -w)
    nofit() {
        run 2 --replay "$@"
        has "verdict: the recorded schedule does not fit (recorded as assertion failure)"
        lacks "(reproduced)"
        lacks "nondeterminism"
        lacks "did not fail"
    }
    # the program rebuilt with the fix
    nofit "$f" -- "$P/lost_fixed"
    # cut, emptied, padded, or naming a thread that does not exist
    sed 's/^\(schedule .*\) [td][0-9]*$/\1/' "$f" >short.replay
    nofit short.replay
    has "at choice $n (the schedule ended after $((n - 1)) choices but the execution went on)"
    sed 's/^schedule .*/schedule /' "$f" >empty.replay
    nofit empty.replay
    has "at choice 1 (the schedule ended after 0 choices but the execution went on)"
    sed 's/^\(schedule .*\)$/\1 t1 t0/' "$f" >extra.replay
    nofit extra.replay
    has "at choice $((n + 1)) of $((n + 2)) (the execution ended before it; 2 recorded choices were left over)"
    sed 's/^\(schedule .*\) [td][0-9]*$/\1 t9/' "$f" >nothread.replay
    nofit nothread.replay
    has "at choice $n of $n (thread 9 (t9) does not exist)"
    # the file as written still reproduces
    run 1 --replay "$f"
    has "verdict: assertion failure (reproduced)"
    lacks "does not fit"
    # the environment is not recorded: replayed without the variable the
    # failure depends on, the schedule does not fit, and the message says
    # what the file leaves out
    LINEUP_TEST_RACY=1 run 1 --strategy dfs --replay-dir "$WORK" -- "$P/env"
    f=$(replay_file)
    run 2 --replay "$f"
    has "the file does not record the environment variables, input files or the clock it may read"
    LINEUP_TEST_RACY=1 run 1 --replay "$f"
    has "verdict: assertion failure (reproduced)"
    ;;
segv)
    # a program that ignores SIGCHLD (in a constructor) keeps its
    # disposition, and its executions' crashes are still seen as crashes,
    # on one lane or two
    for j in 1 2; do
        run 1 --jobs $j --strategy dfs -- "$P/sigchld_ign"
        has "FAIL: crash: SIGSEGV (Segmentation fault) in thread 1 at worker (sigchld_ign.c:23)"
        lacks "assertion failure"
    done
    run 1 -- "$P/segv"
    has "FAIL: crash: SIGSEGV (Segmentation fault) in thread 1 at reader (segv.c:26)"
    has "preempted before atomic_load(64) at reader (segv.c:25)"
    f=$(replay_file)
    run 1 --replay "$f"
    has "verdict: crash (reproduced)"
    # raised, not faulted: nothing re-executes it, the handler must end it
    run 1 -- "$P/raise_segv"
    has "FAIL: crash: SIGSEGV (Segmentation fault) in thread 1"
    lacks "survived the signal"
    run 1 -- "$P/raise_trap"
    has "FAIL: crash: SIGTRAP"
    lacks "survived the signal"
    # SIGKILL: no handler runs, so raise and kill report it on the way
    run 1 --strategy dfs -- "$P/raise_kill"
    has "FAIL: crash: SIGKILL (Killed) in thread 1 at worker (raise_signal.c:18)"
    lacks "lineup's own code"
    lacks "not started"
    # so do the program's own signals whose default action ends it, and
    # sigqueue and syscall(SYS_kill) as kill: never "from outside"
    while IFS='|' read -r prog sig line; do
        run 1 --strategy dfs -- "$P/$prog"
        has "FAIL: crash: $sig in thread 1 at worker (self_signal.c:$line)"
        lacks "from outside"
    done <<'EOF'
self_term|SIGTERM (Terminated)|30
self_usr1|SIGUSR1 (User defined signal 1)|23
self_sigqueue|SIGKILL (Killed)|26
self_syskill|SIGKILL (Killed)|28
EOF
    # one nobody announced: what killed it, who ran last, no guess at a line
    run 1 --watchdog-ms 20000 -- "$P/alarm_default"
    has "FAIL: killed by SIGALRM (Alarm clock), which no handler saw (sent by the kernel, a timer or another process, or one whose handler the program replaced); the main thread ran last"
    # a thread that crashes before its first scheduling point runs inside
    # its creator's pthread_create: the creator is in that call, past the
    # scheduling point that announced it
    run 1 -- "$P/start_crash"
    has "FAIL: crash: SIGSEGV (Segmentation fault) in thread 1 at worker (start_crash.c:9)"
    has "  main thread  creating thread 1 in pthread_create at main (start_crash.c:15)"
    lacks "about to pthread_create"
    ;;
exit)
    # a thread that replaces the program: the new program's status, and the
    # call that replaced it, by whom and where
    run 1 --strategy dfs --expect-exit 0 -- "$P/exec_thread"
    has "FAIL: exit status 5 (expected 0), after thread 1's execl at worker (exec_thread.c:28) replaced the program"
    has "  | replaced"
    run 1 --strategy dfs --expect-exit 0 -- "$P/exec_thread_execve"
    has "FAIL: exit status 5 (expected 0), after thread 1's execve at worker (exec_thread.c:26) replaced the program"
    # an exec that fails returns, and the thread goes on
    run 0 --strategy dfs -- "$P/exec_missing"
    has "verdict: PASS"
    # an unsupported call is a tool error (2), shown where it is made, and
    # counted apart from the failing executions, in the JSON too
    run 2 --json "$WORK/unsup.json" -- "$P/unsupported"
    has "ERROR: unsupported call: fork is not supported under lineup"
    has ", 0 failing, 1 ended by an error (not a finding: unsupported call or lineup's limits)"
    lacks "FAIL:"
    python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))["summary"]; sys.exit(not (s["failing"] == 0 and s["errors"] == 1))' "$WORK/unsup.json" ||
        fail "the JSON summary does not count the unsupported call as an error: $(cat "$WORK/unsup.json")"
    has "  main thread  unsupported call at main (unsupported.c:31)"
    # processes an execution starts and leaves running end with it: none
    # is left after lineup (each execution left one before)
    run 0 --budget 20 -- "$P/spawn_orphan"
    sleep 0.5
    ! pgrep -f "^sleep 987.5$" >/dev/null || fail "processes spawned by the executions are left: $(pgrep -f '^sleep 987.5$' | wc -l)"
    # ... but not while the execution that started it runs, though another
    # lane's ends (--jobs: a false FAIL before)
    run 0 --jobs 4 --strategy random --budget 12 -- "$P/daemon_alive"
    ! pgrep -f "^sleep 966.5$" >/dev/null || fail "daemons of the executions are left"
    # a program that signals its parent: no request to stop, in a search
    # or a replay
    run 1 --strategy dfs -- "$P/kill_parent"
    has "FAIL: assertion failure: \`v == 0' in the main thread at main (kill_parent.c:30)"
    lacks "interrupted"
    f=$(replay_file)
    run 1 --replay "$f"
    has "assertion failure (reproduced)"
    run 2 -- "$P/unsupported_vfork"
    has "ERROR: unsupported call: vfork is not supported under lineup"
    has "  main thread  unsupported call at main (unsupported.c:31)"
    "$P/unsupported_vfork" || fail "unsupported_vfork outside lineup exited with $?"
    # threads ended by pthread_exit are finished in the report
    run 1 --strategy dfs -- "$P/thread_exit"
    has "FAIL: assertion failure"
    has "  thread 1     finished"
    lacks "about to atomic_store"
    run 1 --strategy dfs -- "$P/main_exit"
    has "FAIL: assertion failure: \`atomic_load(&x) == 0' in thread 1"
    has "  main thread  finished"
    # a stale read of a node whose memory malloc hands out again, the node
    # from main or from before main's execution: found with reduction on
    for v in node_reuse node_reuse_ctor; do
        for red in on off; do
            run 1 --strategy dfs --preemptions -1 --budget 0 --reduction $red -- "$P/$v"
            has "FAIL: abort() called by thread 1 at reader (node_reuse.c:"
        done
    done
    # C++ names are demangled
    run 1 --strategy dfs -- "$P/mangled"
    has "FAIL: assertion failure: \`atomic_load(&state) != 1' in the main thread at G::check() (mangled.c:"
    # after main's pthread_exit, the last thread's end is exit(0): the exit
    # handlers run there
    run 1 --strategy dfs -- "$P/main_exit_atexit"
    has "FAIL: assertion failure: \`atomic_load(&x) == 5' in thread 1 at at_end (thread_exit.c:"
    # without --expect-exit a status is only noted
    run 0 -- "$P/exit_main"
    has "note: execution"
    has "ended with exit status 1"
    has "exit statuses: "
    run 1 --expect-exit 0 -- "$P/exit_main"
    has "FAIL: exit status 1 (expected 0): main returned 1"
    run 1 --expect-exit 0 -- "$P/exit_thread"
    has "FAIL: exit status 3 (expected 0): exit(3) called by thread 1 at worker (exit_status.c:34)"
    has "| worker: buffered before the exit call"
    # the report names the call; only exit() flushes stdio
    for f in now:_exit c99:_Exit quick:quick_exit group:exit_group; do
        run 1 --expect-exit 0 -- "$P/exit_thread_${f%%:*}"
        has "FAIL: exit status 3 (expected 0): ${f#*:}(3) called by thread 1 at worker (exit_status.c:34)"
        has "thread 1     ${f#*:}(3) at worker"
        lacks "buffered before the exit call"
    done
    run 0 --expect-exit 0 --strategy dfs -- "$P/lost_fixed"
    # a thread ended by the exit system call would take the kernel thread
    # every controlled thread runs on (a timeout after --timeout)
    run 2 --timeout 10 -- "$P/sys_exit"
    has "ERROR: unsupported call: syscall(SYS_exit) is not supported under lineup"
    has "  thread 1     unsupported call at worker (sys_exit.c:14)"
    run 1 --strategy dfs -- "$P/exit_group_point"
    has "FAIL: assertion failure: \`atomic_load(&x) == 0' in the main thread at main (exit_group_point.c:28)"
    has "  thread 1     about to exit_group at worker (exit_group_point.c:19)"
    # the other threads may run while the process ends: the worker sees
    # what main tore down just before returning, or calling exit
    run 1 --strategy dfs -- "$P/main_return"
    has "FAIL: assertion failure: \`atomic_load(&alive)' in thread 1 at worker (main_return.c:17)"
    has "  main thread  about to return from main at main (main_return.c:22)"
    has "the main thread preempted before return from main at main (main_return.c:22); thread 1 runs"
    run 1 --strategy dfs -- "$P/main_return_exit"
    has "  main thread  about to exit at main (main_return.c:30)"
    run 0 --strategy dfs --preemptions -1 -- "$P/main_return_fixed"
    has "every schedule of the program was explored"
    # exit handlers run, under control: an assertion in one is found; they
    # run last registered first, a constructor's among them, and on_exit's
    # gets the status (the last one ends with 42 when all ran in order);
    # quick_exit runs the at_quick_exit handlers only (43)
    run 1 --strategy dfs -- "$P/atexit"
    has "FAIL: assertion failure: \`atomic_load(&done) == 2' in the main thread at check (atexit.c:39)"
    run 0 --strategy dfs --preemptions -1 --expect-exit 42 -- "$P/atexit_fixed"
    has "every schedule of the program was explored"
    run 0 --strategy dfs --preemptions -1 --expect-exit 43 -- "$P/atexit_quick"
    has "every schedule of the program was explored"
    ;;
cleanup)
    # pthread_exit runs the pthread_cleanup_push handlers (innermost first,
    # the exit value kept): one releases the mutex the exiting worker holds,
    # so the other worker is never stuck
    run 0 --strategy dfs --preemptions -1 -- "$P/cleanup"
    has "every schedule of the program was explored"
    run 0 --races --strategy dfs -- "$P/cleanup"
    # the control: the handler without the unlock deadlocks
    run 1 --strategy dfs -- "$P/cleanup_bug"
    has "FAIL: deadlock"
    has "blocked in pthread_mutex_lock at worker (cleanup.c:39)"
    # built with -fexceptions the handlers are the exception unwinder's
    # landing pads, which pthread_exit runs as glibc's does
    run 0 --strategy dfs --preemptions -1 -- "$P/cleanup_fexc"
    has "every schedule of the program was explored"
    run 1 --strategy dfs -- "$P/cleanup_fexc_bug"
    has "FAIL: deadlock"
    ;;
robust)
    # a robust mutex whose owner ended: the next lock gets EOWNERDEAD and
    # the mutex, never a deadlock
    run 0 --strategy dfs --preemptions -1 -- "$P/robust"
    has "every schedule of the program was explored"
    run 0 --races --strategy dfs --preemptions -1 -- "$P/robust"
    # unlocked without pthread_mutex_consistent: unusable from then on
    run 1 --strategy dfs -- "$P/robust_unrecoverable"
    has "FAIL: assertion failure: \`rc == 0 || rc == EOWNERDEAD' in the main thread at lock (robust.c:20)"
    # not robust: it stays locked
    run 1 --strategy dfs -- "$P/robust_stalled"
    has "FAIL: deadlock"
    has "  thread 2     blocked in pthread_mutex_lock at lock (robust.c:19)"
    # initialized again, a mutex forgets what the old one went through
    # (unrecoverable, robust)
    run 0 --strategy dfs --preemptions -1 -- "$P/robust_reinit"
    has "every schedule of the program was explored"
    ;;
por_sync)
    # semaphore and rwlock steps are dependent under the reduction: the
    # failing order is explored (the semaphore's at bound 0 too: the
    # threads run in creation order only by the default choice; the
    # rwlock's needs main preempted after the create)
    for b in 0 2; do
        run 1 --strategy dfs --preemptions $b -- "$P/por_sem"
        has "FAIL: assertion failure: \`got == 0'"
    done
    for b in 1 2; do
        run 1 --strategy dfs --preemptions $b -- "$P/por_rw"
        has "FAIL: assertion failure: \`r == 0'"
    done
    # racing plain accesses order the steps that make them: with
    # reduction as without (a local passed by address; a heap block right
    # below a thread's stack, under TLS per thread)
    for p in plain_race plain_race_big; do
        for r in on off; do
            run 1 --strategy dfs --preemptions -1 --reduction $r -- "$P/$p"
            has "FAIL: assertion failure: \`r == 0'"
        done
    done
    # lineup's own invariant failing in an execution is lineup's error
    run 3 --strategy dfs -- "$P/internal_bug"
    has "internal error at"
    has "verdict: ERROR"
    lacks "FAIL: abort"
    # a waiter that gives up after up to --spin-bound looks does so in
    # some schedule (half the bound, and near it)
    run 1 --strategy dfs -- "$P/por_spin500"
    has "FAIL: assertion failure: \`!gave_up'"
    run 1 --strategy dfs -- "$P/por_spin900"
    has "FAIL: assertion failure: \`!gave_up'"
    ;;
vtime)
    # virtual time: sleeps and timed waits that gave up last what they
    # asked for, by every clock, and the clock is the same on the same
    # schedule (it was uncontrolled nondeterminism)
    for p in vtime vtime_timedwait vtime_poll vtime_branch vtime_forever; do
        run 0 --strategy dfs --preemptions -1 -- "$P/$p"
        has "every schedule of the program was explored"
    done
    ;;
thread_end)
    # a thread is still alive after its last operation: its robust mutex's
    # owner is not dead yet there (EBUSY), and a signal still reaches it
    run 1 --strategy dfs --preemptions -1 -- "$P/thread_end"
    has "FAIL: assertion failure: \`rc == EOWNERDEAD' in the main thread"
    run 1 --strategy dfs --preemptions -1 -- "$P/thread_end_signal"
    has "FAIL: assertion failure: \`!atomic_load(&handled)' in the main thread"
    # a once routine its thread exits in is not done: the other caller runs
    # it (glibc's cleanup of pthread_once), no deadlock
    run 0 --strategy dfs --preemptions -1 -- "$P/thread_end_once"
    has "every schedule of the program was explored"
    run 0 --strategy dfs --preemptions -1 -- "$P/thread_end_once_c11"
    has "every schedule of the program was explored"
    ;;
sync_kinds)
    # memory that held one kind of object and then another (a stack slot
    # of two functions' locals): the second starts from its initializer
    run 0 --strategy dfs -- "$P/slot_reuse"
    has "every schedule with at most 2 preemptions was explored"
    run 0 --strategy dfs -- "$P/slot_reuse_rw"
    has "every schedule with at most 2 preemptions was explored"
    run 0 --strategy dfs -- "$P/slot_reuse_sem"
    run 1 --strategy dfs -- "$P/slot_reuse_sem_bug"
    has "FAIL: deadlock: every thread that has not finished is blocked"
    # a holder's failed trylock is a look: its poll spins until another
    # thread unlocks (glibc lets anyone unlock these kinds)
    for p in owner_trylock owner_trylock_spin; do
        run 0 --strategy dfs -- "$P/$p"
        has "every schedule of the program was explored"
    done
    # a timed writer on a writer-preferring rwlock turns readers away
    run 0 --budget 300 -- "$P/rw_timed_prefer"
    # a once control set back to its initializer runs its routine again
    for p in once_rearm once_rearm_c11; do
        run 0 --strategy dfs -- "$P/$p"
        has "every schedule with at most 2 preemptions was explored"
    done
    ;;
foreign_unlock)
    # a normal mutex unlocked by a thread that does not hold it is released,
    # as glibc does: a third thread gets into the section beside the holder
    run 1 --strategy dfs -- "$P/foreign_unlock"
    has "FAIL: assertion failure: \`atomic_fetch_add(&inside, 1) == 0' in thread"
    # an error-checking one refuses (EPERM): the section stays exclusive
    run 0 --strategy dfs -- "$P/foreign_unlock_errorcheck"
    has "every schedule with at most 2 preemptions was explored"
    # also when the model first meets the mutex there: its kind comes from
    # its static initializer, or from an initialization before control
    run 0 --strategy dfs -- "$P/unlock_kinds"
    has "every schedule of the program was explored"
    # nor does glibc check that a condition wait holds a normal mutex: the
    # wait goes ahead, and the wakeup can be lost (not a loop returning
    # EPERM at once, which looked like divergence)
    run 1 --strategy dfs -- "$P/cond_nolock"
    has "FAIL: deadlock: every thread that has not finished is blocked"
    has "  main thread  blocked in pthread_cond_wait at main (cond_nolock.c:31)"
    lacks "divergence"
    run 0 --strategy dfs --preemptions -1 -- "$P/cond_nolock_fixed"
    has "every schedule of the program was explored"
    # a block that held a mutex, freed and allocated again, holds a new
    # one initialized by assignment: its model starts afresh (the old one
    # deadlocked on a mutex freed while locked, and relocked a normal mutex
    # that had been a recursive one)
    # and a stack slot whose recursive mutex gives way to another
    # function's normal one, initialized by assignment: the memory's kind
    for p in sync_reuse sync_reuse_kind sync_reuse_realloc stack_reuse; do
        run 0 --strategy dfs --preemptions -1 -- "$P/$p"
        has "every schedule of the program was explored"
    done
    # glibc's return values at the edges: a timed lock with a bad time
    # takes a free mutex, fails on a held one; a post at SEM_VALUE_MAX
    # fails with EOVERFLOW
    run 0 --strategy dfs --preemptions -1 -- "$P/edge_returns"
    has "every schedule of the program was explored"
    # an object freed and its block allocated again while a thread waits
    # on it, or is at an operation on it: a deadlock, as natively (the
    # model the waiter found stays), not a crash in lineup's code
    for m in 0 1 2 3 4; do
        run 1 --strategy dfs -- "$P/freed_waited" $m
        has "FAIL: deadlock: every thread that has not finished is blocked"
        lacks "crash"
    done
    # a wait on a recursive mutex locked twice releases one level, as
    # glibc's does: the waiter keeps the mutex, and the signaler blocks
    run 1 --strategy dfs -- "$P/cond_recursive"
    has "FAIL: deadlock: every thread that has not finished is blocked"
    has "  thread 1     blocked in pthread_mutex_lock at signaler (cond_recursive.c:35)"
    run 1 --strategy dfs -- "$P/cond_recursive_c11"
    has "FAIL: deadlock: every thread that has not finished is blocked"
    run 0 --strategy dfs --preemptions -1 -- "$P/cond_recursive_fixed"
    has "every schedule of the program was explored"
    ;;
futex)
    # futex waits and wakes of a whole program: a wake with a count of 0
    # wakes one waiter, as the kernel does (not none: an endless loop);
    # main's wakes before the waiter waits spin, so no preemption bound
    # cuts the search
    run 0 --strategy dfs -- "$P/futex_wake0"
    has "every schedule of the program was explored"
    # a polling loop of wakes that wake nobody and sleeps spins: a
    # livelock when nothing else can run, not an execution too long; and
    # when the wake does wake the waiter, an unbounded search ends
    run 1 --spin-bound 200 -- "$P/futex_poll"
    has "FAIL: livelock"
    has "spinning in futex at main (futex_poll.c:39)"
    has "blocked in futex at waiter (futex_poll.c:28)"
    run 0 --strategy dfs --preemptions -1 --budget 2000 -- "$P/futex_poll_fixed"
    has "every schedule of the program was explored"
    # a deadline loop of timed futex waits ends: each that gives up has
    # waited until its deadline (a livelock until session 32)
    run 0 --strategy dfs -- "$P/futex_deadline"
    has "verdict: PASS"
    ;;
tls)
    # errno is each thread's own whether the threads share one TLS (the
    # program has none of its own: auto shares) or not
    for t in auto per-thread shared; do
        run 0 --strategy dfs --tls $t -- "$P/tls"
        has "every schedule with at most 2 preemptions was explored"
    done
    # glibc's __libc_single_threaded is 0 after the first pthread_create
    # whichever TLS the threads run on (it stayed 1 on a shared one until
    # session 32, and code that skips atomics while it is set lost updates)
    for t in auto per-thread shared; do
        run 0 --strategy dfs --tls $t -- "$P/single_threaded"
        has "every schedule of the program was explored"
    done
    # a program with thread-local variables keeps them per thread under
    # auto; forced to share, its threads see each other's
    run 0 --strategy dfs -- "$P/tls_own"
    has "every schedule with at most 2 preemptions was explored"
    run 1 --strategy dfs --tls shared -- "$P/tls_own"
    has "FAIL: assertion failure"
    has "mine == id"
    f=$(replay_file)
    grep -qx "tls shared" "$f" || fail "the replay file does not record --tls shared"
    run 1 --replay "$f"
    has "(reproduced)"
    # as many thread-specific data keys as glibc gives, each with a value
    # per thread (there were 128, and the 129th create failed with EAGAIN)
    run 0 --strategy dfs -- "$P/keys_many"
    has "every schedule of the program was explored"
    # keys a constructor holds count against them, as in glibc
    run 0 --strategy dfs -- "$P/keys_ctor"
    has "every schedule of the program was explored"
    # each thread's call stack is its own, whichever TLS it runs on
    for t in auto per-thread; do
        run 1 --strategy dfs --tls $t -- "$P/stacks"
        has "FAIL: deadlock"
        grep -A2 "^  thread 1 " "$out" | grep -q "called from via_one (stacks.c:" ||
            fail "--tls $t: thread 1's stack is not via_one's"
        grep -A2 "^  thread 2 " "$out" | grep -q "called from via_two (stacks.c:" ||
            fail "--tls $t: thread 2's stack is not via_two's"
    done
    ;;
pfm_user)
    # A program that uses libpfm4 itself, initialized in its constructor:
    # the runtime, which opens the same library to encode its watchdog's
    # events, leaves it initialized (pfm_terminate would make the program's
    # encoding in main fail)
    run 0 --strategy dfs -- "$P/pfm_user"
    has "verdict: PASS (no failure found)"
    lacks "FAIL"
    ;;
deadlock)
    # timed waits retried in loops: giving up again and again while another
    # thread can go on must not make an endless execution
    # (dfs covers bound 2 in 152 executions; default samples 400 more)
    for st in dfs default; do
        run 0 --strategy $st --budget 600 --max-steps 2000 -- "$P/periodic"
        lacks "execution too long"
    done
    for st in random pct pos; do
        run 0 --strategy $st --seed 1 --budget 300 --max-steps 2000 -- "$P/periodic"
        lacks "execution too long"
        lacks "dropped"
    done
    # the randomized strategies give a timed wait up while the holder could
    # still run, too: the failure needs nothing else
    for st in random pct pos; do
        run 1 --strategy $st --seed 1 --budget 200 -- "$P/timed"
        has "FAIL: assertion failure: \`rc == 0' in thread 1 at worker (timed.c:20)"
        f=$(replay_file)
        run 1 --replay "$f"
        has "thread 1's pthread_mutex_timedlock at worker (timed.c:19) timed out"
    done
    # a timed lock that gave up once and then got the mutex: the give-up
    # is a choice, not a run alone until the retry loop is dropped as a
    # spin; and a retry that gives up again waits for another thread's
    # step first, so that an unbounded search ends
    for red in on off; do
        run 1 --strategy dfs --reduction $red -- "$P/timed_retry"
        has "FAIL: assertion failure: \`tries == 0' in thread 1 at retrier (timed_retry.c:44)"
        has "timed out"
        f=$(replay_file)
        run 1 --replay "$f"
        has "thread 1's pthread_mutex_timedlock at retrier (timed_retry.c:37) timed out"
    done
    run 0 --strategy dfs --preemptions -1 -- "$P/timed_retry_fixed"
    has "every schedule of the program was explored"
    lacks "dropped"
    # a timed wait beside a holder that sleeps and then lets go, while
    # everyone spins: the others take their turns first (a deadline outlasts
    # their looks), so the wait gets what it waits for at no cost, and
    # giving up is the alternative at a cost of 1 (until session 30 it gave
    # up at its turn, and only that ran: a bug missed, with every schedule
    # said to be explored)
    for p in timed_sleep timed_sleep_sem; do
        run 1 --strategy dfs --preemptions 0 -- "$P/$p"
        has "FAIL: assertion failure: \`got == 0' in the main thread at main (timed_sleep.c:59)"
    done
    run 0 --strategy dfs --preemptions 0 -- "$P/timed_sleep_got"
    has "every schedule with at most 0 preemptions was explored"
    run 1 --strategy dfs -- "$P/timed_sleep_got"
    has "FAIL: assertion failure: \`got == 1' in the main thread at main (timed_sleep.c:57)"
    has "thread 1's pthread_mutex_timedlock at worker (timed_sleep.c:37) timed out"
    # flockfile is a lock of the model's (a recursive mutex at the FILE):
    # under the shared TLS glibc's one owner for all threads excluded nobody
    run 0 --strategy dfs -- "$P/flockfile"
    has "every schedule with at most 2 preemptions was explored"
    run 1 --strategy dfs -- "$P/flockfile_bug"
    has "FAIL: assertion failure: \`atomic_fetch_add(&inside, 1) == 0'"
    run 2 --strategy dfs -- "$P/flockfile_foreign"
    has "unsupported call: funlockfile by a thread that does not hold the stream's lock"
    # a retry loop of timed waits that runs to the length cap: the report
    # lists 16 of its timeouts and counts the rest
    run 1 -- "$P/timed_forever"
    has "execution too long"
    has "    step 32: thread 1's pthread_cond_timedwait at waiter (timed_forever.c:21) timed out"
    lacks "    step 34: thread 1's"
    has "    (32751 more)"
    # giving up at a later turn of a bounded sleep loop (its third look)
    run 1 --strategy dfs --preemptions -1 -- "$P/timed_cancel"
    has "FAIL: assertion failure: \`seen != 2' in the main thread at main (timed_cancel.c:50)"
    # a timed lock that gave up is listed with the schedule, and replayed
    run 1 --strategy dfs -- "$P/timed"
    has "FAIL: assertion failure: \`rc == 0' in thread 1 at worker (timed.c:20)"
    has "timeouts:"
    has "    step 1: thread 1's pthread_mutex_timedlock at worker (timed.c:19) timed out"
    f=$(replay_file)
    run 1 --replay "$f"
    has "thread 1's pthread_mutex_timedlock at worker (timed.c:19) timed out"
    run 1 -- "$P/deadlock"
    has "FAIL: deadlock: every thread that has not finished is blocked"
    has "blocked in pthread_join at main (deadlock.c:31)"
    has "blocked in pthread_mutex_lock at ab (deadlock.c:10)"
    has "blocked in pthread_mutex_lock at ba (deadlock.c:20)"
    ;;
livelock)
    run 1 --spin-bound 200 -- "$P/livelock"
    has "FAIL: livelock"
    has "spinning in atomic_load(32) at polite (livelock.c:15)"
    # the report says what to do when the loop would end after more looks
    has "(200 looks each without progress; a loop that ends after more looks needs a larger --spin-bound)"
    # a thread that polls under a lock for a flag nobody sets runs into the
    # limit of scheduling points: lineup run counts every lock and unlock
    # as progress (config.quiet_waits is the Line-Up driver's), since
    # programs share state where its writes go unseen (main's stack)
    run 1 -- "$P/poll_stuck"
    has "FAIL: execution too long"
    # and so handing a turn back and forth under a lock, storing to an
    # atomic between yields, or counting under a lock in a struct on main's
    # stack is progress however often it happens (session 28's first take
    # at waits that poll made the last a livelock)
    run 0 --spin-bound 20 --budget 200 -- "$P/poll_progress"
    has "verdict: PASS"
    run 0 --spin-bound 20 --budget 200 -- "$P/poll_progress_ticker"
    has "verdict: PASS"
    run 0 --spin-bound 20 --budget 200 -- "$P/poll_progress_stack"
    has "verdict: PASS"
    ;;
diverge)
    run 1 --watchdog-ms 200 -- "$P/diverge"
    has "FAIL: divergence"
    has "in thread 1 at waiter (diverge.c:46)"
    # blocking and ignoring signals does not turn the watchdog off
    run 1 --watchdog-ms 200 --timeout 20 -- "$P/diverge_signals_off"
    has "FAIL: divergence"
    lacks "FAIL: timeout"
    # unoptimized, the loop calls lineup's access hooks: the watchdog's
    # tick lands in them or in their PLT stubs, and the report must still
    # name the program's line, every time (and with the race detector's
    # hooks as well), and --all must count one failure
    for r in 1 2 3; do
        run 1 --watchdog-ms 100 -- "$P/diverge_O0"
        has "in thread 1 at waiter (diverge.c:4"
        lacks "lu_ipose"
        run 1 --races --watchdog-ms 100 -- "$P/diverge_O0"
        has "in thread 1 at waiter (diverge.c:4"
        lacks "lu_sched"
    done
    run 1 --all --strategy random --budget 4 --seed 3 --watchdog-ms 100 -- "$P/diverge_O0"
    has "    4 executions (first: 1): divergence"
    # nor does a constructor that blocked them before lineup took over
    run 1 --watchdog-ms 200 --timeout 20 -- "$P/diverge_signals_ctor"
    has "FAIL: divergence"
    lacks "FAIL: timeout"
    # the other endless kind: a loop that keeps changing shared memory
    # looks like one too many scheduling choices
    run 1 --max-steps 16 -- "$P/correct"
    has "FAIL: execution too long: more than 16 scheduling choices"
    ;;
timeout)
    # a timeout is lineup failing to run the program (a call it does not
    # control), not a bug found: exit status 2, with the report and advice
    run 2 --timeout 1 -- "$P/block"
    has "INCONCLUSIVE: timeout: the execution did not end within 1.0 s: blocked in the system call read, which lineup does not control"
    has "verdict: INCONCLUSIVE (an execution blocked outside lineup's control)"
    lacks "bug found"
    [[ -f $(replay_file) ]] || fail "no replay file for the timeout"
    # the reader blocks in read() before its first scheduling point: it is
    # the thread to name, although no scheduling point shows it, with the
    # call it blocks in and where the program makes it
    has "thread 1     blocked in read, called at reader (block.c:"
    # ... inside main's pthread_create, which main is past announcing
    has "  main thread  creating thread 1 in pthread_create at main (block.c:"
    lacks "about to pthread_create"
    # --all goes on after a timeout, but each costs --timeout: a program
    # whose every schedule blocks stops at --max-timeouts (default 3)
    SECONDS=0
    run 2 --all --timeout 1 --budget 20 -- "$P/block_many"
    grep -qE "^summary: 3 executions in .*, 0 failing, 3 timed out" "$out" || fail "not 3 executions, 3 timed out"
    has "  coverage: stopped at --max-timeouts"
    has "  stopped: 3 executions timed out (--max-timeouts 3), each after --timeout 1 s; "
    [[ $SECONDS -lt 15 ]] || fail "--all on a program that always blocks took $SECONDS s"
    # with two lanes timing out together: stopped at exactly N, the other
    # lane's execution cut off uncounted
    run 2 --all --strategy random --seed 1 --timeout 1 --max-timeouts 1 --budget 20 --jobs 2 -- "$P/block_many"
    grep -qE "^summary: 1 execution in .*, 0 failing, 1 timed out" "$out" || fail "--jobs 2: not 1 execution, 1 timed out"
    has "  stopped: 1 execution timed out (--max-timeouts 1), each after --timeout 1 s; "
    run 2 --all --timeout 1 --budget 4 --max-timeouts 0 -- "$P/block_many"
    grep -qE "^summary: 4 executions in .*, 0 failing, 4 timed out" "$out" || fail "not 4 executions, 4 timed out"
    lacks "max-timeouts"
    run 2 --timeout 1 --max-timeouts 5 -- "$P/block_many"
    has "lineup run: --max-timeouts has no effect without --all: the first timeout stops the search"
    # a process the program stopped itself: said so, not "blocked in" a call
    run 2 --timeout 1 -- "$P/self_stop"
    has "INCONCLUSIVE: timeout: the execution did not end within 1.0 s: its process was stopped (SIGSTOP, "
    lacks "blocked in the system call"
    # killed from outside with SIGKILL (what the OOM killer does) while it
    # blocks: a tool-side error (exit 3), not a finding about the program
    "$LINEUP" run --quiet --timeout 60 -- "$P/block" >"$out" 2>&1 &
    lp=$!
    victim=""
    for _ in $(seq 100); do
        sleep 0.1
        # lineup, the program's fork server, the execution's process
        server=$(pgrep -P "$lp" | head -1)
        [[ -n $server ]] && victim=$(pgrep -P "$server" | head -1) && [[ -n $victim ]] && break
    done
    [[ -n $victim ]] || fail "no execution process appeared"
    sleep 0.3
    kill -KILL "$victim"
    rc=0
    wait "$lp" || rc=$?
    sed 's/^/    /' "$out"
    [[ $rc == 3 ]] || fail "an execution killed from outside: exit $rc, expected 3"
    has "killed by SIGKILL from outside the program"
    lacks "FAIL: crash"
    ;;
pipe_poll)
    # a correct program whose threads talk through a pipe with poll: when
    # the reader polls before the writer wrote, it blocks for good under
    # lineup (one thread runs at a time), although natively it never does
    run 2 --timeout 1 -- "$P/pipe_poll"
    has "INCONCLUSIVE: timeout: the execution did not end within 1.0 s"
    has "thread 1     blocked in poll, called at reader (pipe_poll.c:"
    # asked where it blocks, the execution stays there until it is killed:
    # poll must not fail with EINTR and let the program go on to exit
    lacks "exit statuses:"
    lacks "from main"
    has "if the program is only slow, raise --timeout"
    has "verdict: INCONCLUSIVE (an execution blocked outside lineup's control)"
    lacks "bug found"
    lacks "FAIL"
    has "coverage: stopped at a timeout"
    lacks "first failure"
    [[ -f $(replay_file) ]] || fail "no replay file for the timeout"
    # the reader blocks before any scheduling choice, in every execution:
    # the search that goes on with --all sees nothing else to explore, which
    # is no coverage of the program
    run 2 --timeout 1 --all -- "$P/pipe_poll"
    has "(1 execution timed out: no schedule past its blocking call was explored, whatever the coverage says)"
    has "verdict: INCONCLUSIVE (an execution blocked outside lineup's control)"
    ;;
nondet)
    # fails for one input value in 0..3: dfs tries them all
    run 1 --strategy dfs --preemptions 0 -- "$P/nondet"
    has "FAIL: reach_error() called by the main thread at main (nondet.c:26)"
    has "__VERIFIER_nondet_int() = 3 in the main thread at main (nondet.c:20)"
    # with the values 0..2 (and -1) it cannot fail; -1 is discarded
    run 0 --strategy dfs --nondet-range 3 -- "$P/nondet"
    has "every schedule of the program was explored (with the __VERIFIER_nondet_* values"
    has "1 discarded (an assumption was false)"
    has "summary: 4 executions"
    ;;
atomic)
    run 0 --strategy dfs --preemptions -1 -- "$P/atomic_section"
    has "every schedule of the program was explored"
    # the control: without the section the same exploration fails
    run 1 --strategy dfs --preemptions -1 -- "$P/atomic_none"
    has "FAIL: assertion failure"
    # sections order their plain accesses: no race
    run 0 --races --strategy dfs --preemptions -1 -- "$P/atomic_plain"
    has "every schedule of the program was explored"
    lacks "FAIL: data race"
    # the other thread may run just before a section
    run 1 --strategy dfs --preemptions -1 -- "$P/section_gap"
    has "FAIL: assertion failure: \`r == 0' in the main thread at main (section_gap.c:30)"
    # an _Atomic struct that is not lock-free: libatomic's generic calls are
    # scheduling points (a lost update between __atomic_load and
    # __atomic_store), with libatomic loaded or not
    run 1 --strategy dfs -- "$P/generic_atomic"
    has "thread 1 preempted before __atomic_store at incr (generic_atomic.c:30)"
    run 0 --strategy dfs --preemptions -1 -- "$P/generic_atomic_fixed"
    has "every schedule of the program was explored"
    ;;
races)
    run 1 --races -- "$P/race_plain"
    has "FAIL: data race on 4 bytes"
    has "by thread 2 at reader (race.c:50)"
    has "by thread 1 at writer (race.c:32)"
    # detection is off by default, and the coverage claim says what it
    # rests on
    run 0 --strategy dfs --preemptions -1 -- "$P/race_plain"
    has "  (schedules differ at atomic, volatile and pthread operations; plain memory accesses are not scheduling points, so a data race can hide a failure: --races finds races)"
    run 0 --races --strategy dfs --preemptions -1 -- "$P/race_mutex"
    has "every schedule of the program was explored"
    lacks "a data race can hide a failure"
    run 0 --races --strategy dfs --preemptions -1 -- "$P/race_acqrel"
    has "every schedule of the program was explored"
    # an atomic increment and a plain read of one counter race
    run 1 --races -- "$P/race_mixed"
    has "FAIL: data race on 4 bytes"
    has "atomic write by thread 1 at writer (race.c:"
    # a futex wake that woke nobody publishes nothing, and a wait that
    # returned EAGAIN only read the word; a wake orders the waker before
    # the thread it woke
    run 1 --races --strategy dfs --preemptions -1 -- "$P/futex_race"
    has "FAIL: data race on 4 bytes"
    has "read by the main thread at main (futex_race.c:"
    has "write by thread 1 at writer (futex_race.c:"
    run 0 --races --strategy dfs --preemptions -1 -- "$P/futex_race_fixed"
    has "every schedule of the program was explored"
    ;;
threads)
    # 63 threads and main: the most one execution runs
    run 0 --strategy random --budget 3 -- "$P/threads_63"
    run 2 --strategy random --budget 3 -- "$P/many_threads"
    has "more than 64 threads in one execution"
    lacks "pthread_create 64: error"
    # a thread gets the stack size its attributes ask for; without them, the
    # default 8 MiB, too small for the same worker
    run 0 --strategy dfs --preemptions -1 -- "$P/stack"
    has "every schedule of the program was explored"
    run 1 --strategy dfs -- "$P/stack_default"
    has "FAIL: crash: SIGSEGV (Segmentation fault) in thread 1 at worker (stack.c:17)"
    # all threads of an execution share one kernel thread, yet each has a
    # kernel thread id of its own, for a lock keyed by it
    run 0 --strategy dfs --preemptions -1 -- "$P/gettid"
    has "every schedule of the program was explored"
    # a thread id names a thread of the execution for tgkill, through
    # syscall() or glibc's tgkill() (which makes the system call itself),
    # never whatever kernel thread has that id
    for v in gettid_tgkill gettid_tgkill_fn; do
        run 0 --strategy dfs --preemptions 1 -- "$P/$v"
        has "every schedule with at most 1 preemption was explored"
    done
    # signals between threads: to oneself at once, to another thread (also
    # a blocked one) when it is next chosen, its handler's scheduling
    # points its own
    for v in signals signals_tgkill; do
        run 0 --strategy dfs --preemptions -1 -- "$P/$v"
        has "every schedule of the program was explored"
        lacks "nondeterminism"
    done
    for red in on off; do
        run 1 --strategy dfs --reduction $red -- "$P/signals_bug"
        has "FAIL: assertion failure: \`atomic_load(&counter) == 3' in the main thread at main (signals.c:"
    done
    f=$(replay_file)
    run 1 --replay "$f"
    has "verdict: assertion failure (reproduced)"
    # the signals lineup delivers follow each thread's own mask, not the
    # kernel thread's they all share: a thread's raise is handled at once
    # while another blocks the signal or is in its handler
    for v in signal_mask raise_both signal_nested kill_blocked kill_all_blocked; do
        run 0 --strategy dfs --preemptions -1 -- "$P/$v"
        has "every schedule of the program was explored"
    done
    # a signal may come before a thread's mask change or handler install
    for red in on off; do
        run 1 --strategy dfs --preemptions -1 --reduction $red -- "$P/signal_window"
        has "FAIL: assertion failure: \`atomic_load(&handled) == 0' in the main thread"
        run 1 --strategy dfs --preemptions -1 --reduction $red -- "$P/signal_window_handler"
        has "FAIL: crash: SIGUSR1 (User defined signal 1) in the main thread"
    done
    # a timer's signal arrives at a time lineup does not decide: its
    # handler runs within the step it interrupts, its atomics no choices
    # (they were, at places that changed: nondeterminism); a pthread call
    # there is unsupported
    run 0 --strategy dfs --preemptions 1 --budget 40 -- "$P/timer_signal"
    has "verdict: PASS"
    lacks "nondeterminism"
    run 2 --strategy dfs -- "$P/timer_signal_lock"
    has "ERROR: unsupported call: a pthread call in the handler of a signal that arrived at a time lineup does not control (a timer's, another process's) is not supported under lineup"
    has "  thread 1     unsupported call at on_alarm (timer_signal.c:30)"
    # a failure in it is the interrupted thread's
    run 1 --strategy dfs -- "$P/timer_signal_assert"
    has "FAIL: assertion failure: \`atomic_load(&ticks) < 0' in thread 1 at on_alarm (timer_signal.c:34)"
    # made-up ids are never real threads' (lineup's own come right after
    # the pid): the calls that take one act on the shared kernel thread,
    # or fail with ESRCH once the thread is gone
    run 0 --strategy dfs --preemptions -1 -- "$P/tid_calls"
    has "every schedule of the program was explored"
    ;;
strategies)
    for s in dfs ipb idb random pct pos default; do
        seed=(--seed 1)
        [[ $s == dfs || $s == ipb || $s == idb ]] && seed=() # they draw nothing
        run 0 --strategy "$s" --budget 150 "${seed[@]}" -- "$P/correct"
        has "summary: "
        run 1 --strategy "$s" --budget 2000 "${seed[@]}" -- "$P/lost_update"
        has "FAIL: assertion failure"
        has "(strategy $s"
    done
    # a seconds budget stops too
    run 0 --strategy random --budget 1s -- "$P/correct"
    has "executions sampled (random"
    # ipb stops at the bound asked for
    run 0 --strategy ipb --preemptions 1 --budget 0 -- "$P/correct"
    has "every schedule with at most 1 preemption was explored"
    ;;
svcomp)
    run 1 -- "$P/svcomp"
    has "FAIL: reach_error() called by thread"
    has "at enter (svcomp.c:30)"
    has "discarded (an assumption was false)"
    ;;
all)
    run 1 --all --strategy dfs --preemptions 3 -- "$P/svcomp"
    has "distinct failures:"
    has "reach_error() called by thread"
    [[ $(grep -c '^FAIL: ' "$out") == 1 ]] || fail "one failure reported more than once"
    ;;
bad_input)
    run 2
    has "no program given"
    run 2 -- "$WORK/missing"
    has "cannot open"
    run 2 -- /bin/true
    has "was not linked by lineup-cc"
    "$LINEUP_CC_BIN" -shared -o "$WORK/lib.so" "$SRC/correct.c"
    run 2 -- "$WORK/lib.so"
    has "is not a dynamically linked program"
    run 2 --strategy bogus -- "$P/correct"
    has "--strategy takes"
    run 2 --budget 12x -- "$P/correct"
    run 2 --no-such-flag -- "$P/correct"
    has "unknown option '--no-such-flag'"
    run 2 --max-executions 10 -- "$P/correct"
    has "unknown option '--max-executions': lineup run's budget is --budget N"
    run 2 --matrix 3x3 -- "$P/correct"
    has "unknown option '--matrix': it is an option of the Line-Up check"
    run 2 --budget 0 --strategy pct -- "$P/correct"
    echo "garbage" >"$WORK/bad.replay"
    run 2 --replay "$WORK/bad.replay"
    has "not a valid replay file"
    printf 'lineup-run-replay 2\nprogram %s\nkind ASSERT\nschedule t0 x9\n' "$P/correct" >"$WORK/bad2.replay"
    run 2 --replay "$WORK/bad2.replay"
    has "schedule entries are"
    printf 'lineup-replay 2\nharness x\n' >"$WORK/lineup.replay"
    run 2 --replay "$WORK/lineup.replay"
    has "lineup --replay FILE"
    run 2 --replay "$WORK/none.replay"
    has "cannot open replay file"
    printf 'lineup-run-replay 1\nprogram %s\nkind ASSERT\nschedule t0\n' "$P/correct" >"$WORK/old.replay"
    run 2 --replay "$WORK/old.replay"
    has "written by an older lineup"
    ;;
reduction)
    # golden counts: a change in them is a change in the search. Three
    # threads writing their own variables: with reduction only the orders
    # of the thread ends against main's creates and joins are left (thread
    # ends commute with each other).
    run 0 --strategy dfs --preemptions -1 --budget 0 -- "$P/independent"
    has ", reduction on, "
    has "summary: 114 executions in"
    # (26 of them cut: where a prefix's trace was explored before and DFS
    # could go another way, the prefix-trace cache ends the execution that
    # sleep sets let run on)
    has ", 26 cut short as redundant (partial-order reduction), 0 failing"
    has "every schedule of the program was explored"
    run 0 --strategy dfs --preemptions -1 --budget 0 --reduction off -- "$P/independent"
    has ", reduction off, "
    has "summary: 1121 executions in"
    lacks "cut short"
    has "every schedule of the program was explored"
    run 0 --strategy dfs --preemptions 2 --budget 0 -- "$P/independent"
    has "summary: 79 executions in"
    has "every schedule with at most 2 preemptions was explored"
    run 0 --strategy dfs --preemptions 2 --budget 0 --reduction off -- "$P/independent"
    has "summary: 264 executions in"
    # ipb: bounds 0, 1, 2 in turn, each reduced (11 + 40 + 79)
    run 0 --strategy ipb --preemptions 2 --budget 0 -- "$P/independent"
    has "summary: 130 executions in"
    run 0 --strategy ipb --preemptions 2 --budget 0 --reduction off -- "$P/independent"
    has "summary: 353 executions in"
    # the failing twin: the same distinct failure, fewer executions; the
    # executions cut short are neither failing nor discarded (at bound 1
    # sleep entries wake whole: partial ones, which save one execution
    # here, start at bound 2)
    run 1 --all --strategy dfs --preemptions 1 --budget 0 -- "$P/independent_bug"
    has "summary: 71 executions in"
    has ", 10 cut short as redundant (partial-order reduction), 13 failing"
    lacks "discarded"
    has "13 executions (first: 4): assertion failure: \`atomic_load(&counter) == N - 1' in the main thread"
    [[ $(grep -c '^FAIL: ' "$out") == 1 ]] || fail "one failure reported more than once"
    run 1 --all --strategy dfs --preemptions 1 --budget 0 --reduction off -- "$P/independent_bug"
    has "summary: 160 executions in"
    has ", 23 failing"
    has "23 executions (first: 7): assertion failure: \`atomic_load(&counter) == N - 1' in the main thread"
    # the default strategy reduces its exhaustive pass (bounds 0 to 2, as
    # ipb: 130 executions); its last bound cut little, so an unbounded
    # search follows (114 executions) and covers the program
    run 0 --budget 600 --seed 1 -- "$P/independent"
    has "summary: 244 executions in"
    has "coverage: every schedule of the program was explored"
    # with less budget the unbounded search stops at the pass's half, and
    # the samplers take the rest
    run 0 --budget 400 --seed 1 -- "$P/independent"
    has "every schedule with at most 2 preemptions was explored; an unbounded search that followed did not finish in 70 executions; then 200 executions sampled by PCT, POS and random walks in turn (seed 1)"
    # --preemptions -1: its exhaustive pass has no last bound
    run 0 --budget 2000 --seed 1 --preemptions -1 -- "$P/independent"
    has "coverage: every schedule of the program was explored"
    # without: half of the budget does not finish bound 2 (13 + 76 + 264)
    run 0 --budget 600 --seed 1 --reduction off -- "$P/independent"
    has "every schedule with at most 1 preemption was explored; the exhaustive pass stopped in bound 2 when its half of the budget ran out, after 300 executions; then 300 executions sampled"
    # delay bounding and the samplers have no reduction, and the samplers
    # no bound: those options would change nothing
    run 0 --strategy idb --preemptions 1 --budget 0 -- "$P/independent"
    lacks "reduction"
    run 2 --strategy idb --preemptions 1 --budget 0 --reduction off -- "$P/independent"
    has "lineup run: --reduction has no effect with --strategy idb: only default, dfs and ipb are reduced"
    run 2 --strategy random --reduction on -- "$P/independent"
    has "--reduction has no effect with --strategy random"
    for st in random pct pos; do
        run 2 --strategy $st --preemptions 3 -- "$P/independent"
        has "lineup run: --preemptions has no effect with --strategy $st, which samples without a bound"
    done
    # an assumption's discard is still one, next to the cuts
    run 0 --strategy dfs --nondet-range 3 -- "$P/nondet"
    has "1 discarded (an assumption was false)"
    run 2 --reduction maybe -- "$P/independent"
    has "--reduction takes on or off"
    ;;
jobs)
    # --jobs 2: two executions at once. LINEUP_SPLIT_AFTER=1 makes a lane
    # give work away after every execution, so that the exhaustive search's
    # tree is split as often as it can be: without reduction it must run
    # exactly the schedules of one process (the golden counts of the
    # reduction case), with reduction reach the same coverage and verdicts.
    export LINEUP_SPLIT_AFTER=1
    run 0 --jobs 2 --strategy dfs --preemptions -1 --budget 0 --reduction off -- "$P/independent"
    has "summary: 1121 executions in"
    has "every schedule of the program was explored"
    run 0 --jobs 2 --strategy ipb --preemptions 2 --budget 0 --reduction off -- "$P/independent"
    has "summary: 353 executions in"
    has ", no budget, 2 executions at once (--jobs)"
    run 0 --jobs 2 --strategy dfs --preemptions -1 --budget 0 -- "$P/independent"
    has "every schedule of the program was explored"
    has "verdict: PASS"
    run 1 --jobs 2 --all --strategy dfs --preemptions 1 --budget 0 --reduction off -- "$P/independent_bug"
    has "summary: 160 executions in"
    has ", 23 failing"
    grep -qE "^    23 executions \(first: [0-9]+\): assertion failure: \`atomic_load\(&counter\) == N - 1' in the main thread" "$out" ||
        fail "not the 23 failing executions of one process"
    [[ $(grep -c '^FAIL: ' "$out") == 1 ]] || fail "one failure reported more than once"
    run 1 --jobs 2 --all --strategy dfs --preemptions 1 --budget 0 -- "$P/independent_bug"
    [[ $(grep -c '^FAIL: ' "$out") == 1 ]] || fail "with reduction: not the one distinct failure"
    # the executions do run at once: each logs its start and its end, and
    # some start before another ended (never with one lane)
    # (two lanes on a loaded machine may happen to take turns: a few tries)
    for j in 1 2; do
        for try in 1 2 3 4 5; do
            rm -f overlap.log
            OVERLAP_LOG=$WORK/overlap.log run 0 --jobs $j --strategy dfs --preemptions -1 --budget 0 --reduction off -- "$P/overlap"
            has "summary: 19 executions in"
            [[ $(grep -c S overlap.log) == 19 && $(grep -c E overlap.log) == 19 ]] || fail "not 19 starts and ends"
            overlapped=$(tr -d '\n' <overlap.log | grep -c SS || true)
            if [[ $j == 1 && $overlapped != 0 ]]; then fail "one lane ran executions at once"; fi
            [[ $j == 1 || $overlapped != 0 ]] && break
            if [[ $try == 5 ]]; then fail "two lanes never ran executions at once"; fi
        done
    done
    # a failure found by one of several lanes (each report is copied from
    # the lane's own areas): its report, and a replay file that replays it
    run 1 --jobs 2 --strategy dfs -- "$P/lost_update"
    has "FAIL: assertion failure: \`atomic_load(&counter) == 2' in the main thread at main (lost_update.c:39)"
    # (which lane finds it first, and so which thread is preempted and who
    # runs next, varies: a schedule that preempts main before its second
    # pthread_create lets main run after the incr's preemption)
    grep -qE "step [0-9]+: thread [12] preempted before atomic_store\(32\) at incr \(lost_update.c:24\); (thread [12]|the main thread) runs" "$out" ||
        fail "no preemption of an incr before its store"
    has "| lost_update: counter is 1"
    rf=$(replay_file)
    [[ -f $rf ]] || fail "no replay file"
    run 1 --replay "$rf" -- "$P/lost_update"
    has "verdict: assertion failure (reproduced)"
    unset LINEUP_SPLIT_AFTER
    run 2 --replay "$rf" --jobs 2 -- "$P/lost_update"
    has "lineup run: --jobs has no effect with --replay"
    # the samplers draw on both lanes, the default strategy too
    run 1 --jobs 2 --strategy random --seed 3 -- "$P/lost_update"
    has "FAIL: assertion failure"
    run 1 --jobs 2 --seed 3 -- "$P/lost_update"
    has "FAIL: assertion failure"
    run 0 --jobs 2 --seed 3 --budget 300 -- "$P/correct"
    grep -qE "^summary: [0-9]+ executions in" "$out" || fail "no summary"
    # a lane's execution that blocks times out while the other lane goes on
    run 2 --jobs 2 --timeout 1 -- "$P/block"
    has "INCONCLUSIVE: timeout: the execution did not end within 1.0 s: blocked in the system call read"
    # what --jobs takes
    run 2 --jobs 0 -- "$P/correct"
    has "lineup run: --jobs must be at least 1"
    run 2 --jobs 65 -- "$P/correct"
    has "lineup run: --jobs takes a whole number up to 64, not '65'"
    run 2 --jobs two -- "$P/correct"
    has "lineup run: --jobs takes a whole number, not 'two'"
    ;;
reduction_replay)
    # failures found with reduction replay (replay runs without it)
    for bound in 1 -1; do
        run 1 --strategy dfs --preemptions "$bound" --budget 0 --replay-dir "$WORK" -- "$P/independent_bug"
        has "FAIL: assertion failure: \`atomic_load(&counter) == N - 1'"
        f=$(replay_file)
        [[ -f $f ]] || fail "no replay file"
        run 1 --replay "$f"
        has "verdict: assertion failure (reproduced)"
        has "| independent: counter is 1"
    done
    # every distinct failure of the suite's program with the most cuts
    run 1 --all --strategy dfs --preemptions 2 --budget 0 --replay-dir "$WORK" -- "$BENCH/barrier_early_exit"
    has "cut short as redundant"
    mapfile -t files < <(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out")
    ((${#files[@]} == 2)) || fail "expected 2 distinct failures, got ${#files[@]}"
    for f in "${files[@]}"; do
        run 1 --replay "$f"
        has "(reproduced)"
    done
    ;;
coverage)
    # the coverage line claims what was explored completely, and says where
    # and why the search stopped short of the rest
    F=$P/long_search_fixed
    # default: its exhaustive pass (bounds 0, 1, 2) ran out of its half of
    # the budget in bound 0, or in bound 2 after bounds 0 and 1; then the
    # samplers took the rest
    run 0 --budget 10 --seed 1 -- "$F"
    has "coverage: the exhaustive pass stopped in bound 0 when its half of the budget ran out, after 5 executions, so no bound was explored completely; then 5 executions sampled by PCT, POS and random walks in turn (seed 1): no coverage guarantee"
    run 0 --budget 1 --seed 1 -- "$F"
    has "coverage: the exhaustive pass stopped in bound 0 when its half of the budget ran out, after 1 execution, so no bound was explored completely: no coverage guarantee"
    run 0 --budget 600 --seed 1 --reduction off -- "$P/independent"
    has "coverage: every schedule with at most 1 preemption was explored; the exhaustive pass stopped in bound 2 when its half of the budget ran out, after 300 executions; then 300 executions sampled by PCT, POS and random walks in turn (seed 1)"
    run 0 --budget 1s --seed 1 --preemptions -1 -- "$F"
    has "when its half of the budget ran out, after "
    # the pass finished its last bound
    run 0 --budget 60 --preemptions 0 --seed 1 -- "$F"
    has "coverage: every schedule with at most 0 preemptions was explored, then 47 executions sampled by PCT, POS and random walks in turn (seed 1)"
    # the pass's last bound cut little: an unbounded search follows, allowed
    # as many executions as the pass took (212 here), and either covers the
    # program (155) or says it did not finish; a failure it finds is
    # reported as its own
    run 0 --seed 1 -- "$P/indexer"
    has "summary: 367 executions in"
    has "coverage: every schedule of the program was explored"
    run 0 --seed 1 --budget 600 -- "$P/indexer"
    has "coverage: every schedule with at most 2 preemptions was explored; an unbounded search that followed did not finish in 88 executions; then 300 executions sampled by PCT, POS and random walks in turn (seed 1)"
    run 1 --seed 1 -- "$BENCH/work_stealing"
    has "execution 73 (strategy default, unbounded search)"
    has "coverage: every schedule with at most 2 preemptions was explored; stopped at the first failure in the unbounded search that followed"
    # a failure in the pass
    run 1 --seed 1 -- "$P/lost_update"
    has "coverage: every schedule with at most 0 preemptions was explored; stopped at the first failure in bound 1"
    # the exhaustive strategies
    run 0 --strategy dfs --budget 100 -- "$F"
    has "coverage: the budget ran out before every schedule with at most 2 preemptions was explored"
    run 0 --strategy dfs --preemptions -1 --budget 100 -- "$F"
    has "coverage: the budget ran out before every schedule was explored"
    run 1 --strategy dfs --budget 100 -- "$P/long_search"
    has "coverage: stopped at the first failure"
    run 0 --strategy ipb --budget 100 -- "$F"
    has "coverage: every schedule with at most 0 preemptions was explored; the budget ran out in bound 1"
    run 1 --strategy ipb --budget 100 -- "$P/long_search"
    has "coverage: every schedule with at most 0 preemptions was explored; stopped at the first failure in bound 1"
    run 0 --strategy idb --budget 100 -- "$F"
    has "coverage: every schedule with at most 1 delay was explored; the budget ran out in bound 2"
    # the samplers
    run 0 --strategy pos --budget 20 --seed 1 -- "$F"
    has "coverage: 20 executions sampled (pos, seed 1): no coverage guarantee"
    ;;
reduction_suite)
    # Soundness on the buggy-program suite (benchmarks/programs): for each
    # program and correct twin, dfs with --all, with reduction and without:
    # the same exit status, the same distinct failures (kind and place),
    # the same coverage, and never more executions with reduction; and with
    # reduction on two lanes (--jobs 2) the same as on one. Bound 2,
    # or 1 where bound 2 takes more than about 1000 executions; reorder_5,
    # reorder_10 and twostage_4 are left out (tens of thousands at bound 1).
    # That is the long tier's run (reduction_suite_full). The default tier
    # stops at bound 1, and leaves out token_ring (thousands of executions at
    # bound 1): a few minutes less where every execution forks.
    # One difference in coverage is allowed: with reduction, a search that
    # cut nothing by the bound covers every trace (the skipped alternatives
    # are not bound cuts), where without it some schedule beyond the bound
    # is always cut. That claim is checked against an unbounded search
    # without reduction, when one fits in 600 executions.
    bound_of() {
        local b
        case $1 in
        reorder_5* | reorder_10* | twostage_4*) b=skip ;;
        cond_signal_shared* | barrier_early_exit.fixed | circular_buffer* | token_ring* | fib_bench_5*) b=1 ;;
        *) b=2 ;;
        esac
        if ((!full)) && [[ $b != skip ]]; then
            [[ $1 == token_ring* ]] && b=skip || b=1
        fi
        echo "$b"
    }
    # distinct failures without their counts (and addresses: each run has
    # its own layout), sorted
    digest() {
        sed -n 's/^    [0-9]* executions* (first: [0-9]*): //p' "$1" | sed 's/0x[0-9a-f]*/ADDR/g' | sort
    }
    coverage() {
        grep '^  coverage: ' "$1"
    }
    anon_threads() {
        sed -E 's/(the main thread|thread [0-9]+)/thread N/g' | sort
    }
    every="  coverage: every schedule of the program was explored"
    total_on=0 total_off=0 programs=0 found=0 whole=0 fewer=0
    while IFS='|' read -r name _ _ runflags _; do
        read -r name <<<"$name"
        [[ -z $name || $name == \#* ]] && continue
        b=$(bound_of "$name")
        [[ $b == skip ]] && continue
        read -r -a rf <<<"$runflags"
        declare -A st execs
        for red in on off; do
            echo "+ $name, bound $b, reduction $red"
            rc=0
            timeout 100 "$LINEUP" run --quiet --all --strategy dfs --preemptions "$b" --budget 0 --reduction "$red" \
                "${rf[@]}" -- "$BENCH/$name" >"$WORK/$red.txt" 2>&1 || rc=$?
            st[$red]=$rc
            execs[$red]=$(sed -n 's/^summary: \([0-9]*\) executions\?.*/\1/p' "$WORK/$red.txt")
            [[ $rc == 0 || $rc == 1 ]] || { cat "$WORK/$red.txt"; fail "$name: lineup exited with $rc"; }
            [[ -n ${execs[$red]} ]] || fail "$name: no summary"
        done
        [[ ${st[on]} == "${st[off]}" ]] || fail "$name: exit status ${st[on]} with reduction, ${st[off]} without"
        if ! diff <(digest "$WORK/off.txt") <(digest "$WORK/on.txt"); then
            fail "$name: distinct failures differ (< without, > with reduction)"
        fi
        c_on=$(coverage "$WORK/on.txt")
        c_off=$(coverage "$WORK/off.txt")
        if [[ $c_on != "$c_off" ]]; then
            [[ $c_on == "$every" && $c_off == "  coverage: every schedule with at most $b preemption$( ((b == 1)) || echo s) was explored" ]] ||
                fail "$name: coverage with reduction: '$c_on', without: '$c_off'"
            timeout 100 "$LINEUP" run --quiet --all --strategy dfs --preemptions -1 --budget 600 --reduction off \
                "${rf[@]}" -- "$BENCH/$name" >"$WORK/all.txt" 2>&1 || true
            if [[ $(coverage "$WORK/all.txt") == "$every" ]]; then
                diff <(digest "$WORK/all.txt") <(digest "$WORK/on.txt") ||
                    fail "$name: every schedule covered with reduction at bound $b, but unbounded without it differs"
                whole=$((whole + 1))
            fi
        fi
        ((execs[on] <= execs[off])) || fail "$name: ${execs[on]} executions with reduction, ${execs[off]} without"
        # two lanes splitting the tree as often as they can (--jobs 2,
        # LINEUP_SPLIT_AFTER=1): the same failures and coverage as one
        rc=0
        LINEUP_SPLIT_AFTER=1 timeout 100 "$LINEUP" run --quiet --all --strategy dfs --preemptions "$b" --budget 0 \
            --jobs 2 "${rf[@]}" -- "$BENCH/$name" >"$WORK/jobs.txt" 2>&1 || rc=$?
        [[ $rc == "${st[on]}" ]] || { cat "$WORK/jobs.txt"; fail "$name: exit status $rc with --jobs 2, ${st[on]} without"; }
        # (a failure's message names the thread of the first execution that
        # showed it, and which one comes first depends on the lanes)
        if ! diff <(digest "$WORK/on.txt" | anon_threads) <(digest "$WORK/jobs.txt" | anon_threads); then
            fail "$name: distinct failures differ (< one lane, > --jobs 2)"
        fi
        # (or the bound's claim where one lane claims every schedule: an
        # item handed to another lane starts without the sleep sets, and
        # alternatives the reduction had put to sleep count as cut by the
        # bound there)
        c_jobs=$(coverage "$WORK/jobs.txt")
        [[ $c_jobs == "$c_on" || ($c_on == "$every" && $c_jobs == "$c_off") ]] ||
            fail "$name: coverage with --jobs 2: '$c_jobs', with one lane: '$c_on'"
        echo "  $name: ${execs[on]} executions with reduction, ${execs[off]} without, status ${st[on]}"
        fewer=$((fewer + (execs[on] < execs[off])))
        total_on=$((total_on + execs[on]))
        total_off=$((total_off + execs[off]))
        programs=$((programs + 1))
        found=$((found + (st[on] == 1)))
    done <"$MANIFEST"
    echo "$programs programs ($found failing): $total_on executions with reduction, $total_off without;" \
        "fewer with reduction for $fewer; $whole covered completely only with reduction, confirmed unbounded"
    ((programs >= 60 && found >= 25)) || fail "only $programs programs checked, $found failing"
    # the shared reduction state works across the fork server's children
    # (45 of 65 at bound 1, 59 of 67 with the long tier's bounds)
    ((fewer >= (full ? 50 : 40))) || fail "reduction saved executions on only $fewer programs"
    ;;
*)
    fail "unknown case $case_"
    ;;
esac
echo PASS

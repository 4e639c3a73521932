#!/usr/bin/env bash
# Command-line edge cases of the Line-Up check (lineup [options] HARNESS.so):
# where --json writes, values that are missing or out of range, options that
# would do nothing, write errors on standard output. One ctest entry per CASE.
#
#   cli.sh CASE LINEUP HARNESS_DIR WORK
#
# HARNESS_DIR holds counter.so (buggy) and counter_fixed.so built by lineup-cc.
set -uo pipefail

case_=$1
L=$2
G=$3
WORK=$4
LU_BIN=$L
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/../cli_lib.sh"
rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK" || exit 1
out=$WORK/out.txt
QUICK=(--quiet --matrix 2x2 --samples 2 --seed 1)

# a usage error found at option parsing: nothing was checked
usage_error() {
    lu 2 "$@"
    lacks "^lineup [0-9.]+: harness|^verdict"
}
json_ok() {
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" || fail "$1 is not valid JSON"
}

case $case_ in
json)
    # a symlink stays a symlink: the target is written, also a dangling one
    mkdir real
    ln -s real/target.json link.json
    lu 0 "${QUICK[@]}" --json link.json "$G/counter_fixed.so"
    [[ -L link.json ]] || fail "link.json was replaced by a regular file"
    json_ok real/target.json
    lu 0 "${QUICK[@]}" --json link.json "$G/counter_fixed.so"
    [[ -L link.json ]] || fail "link.json was replaced on the second run"
    ! compgen -G "real/target.json.partial*" >/dev/null && ! compgen -G "link.json.partial*" >/dev/null ||
        fail "a .partial file was left"
    # a FIFO is written to, not replaced by a file
    mkfifo fifo
    cat fifo >from_fifo &
    reader=$!
    lu 0 "${QUICK[@]}" --json fifo "$G/counter_fixed.so"
    wait $reader
    [[ -p fifo ]] || fail "the FIFO was replaced"
    json_ok from_fifo
    # a device with no room: the error is reported and the node stays (a
    # node of our own, in case a regression renames onto it)
    if mknod full c 1 7 2>/dev/null && ! (echo x >full) 2>/dev/null; then
        lu 3 "${QUICK[@]}" --json full "$G/counter_fixed.so"
        has "^lineup: cannot write full: No space left on device"
        [[ -c full ]] || fail "the device node was replaced"
    else
        echo "(no device node here: the full-device case is skipped)"
    fi
    # what cannot work fails before any test runs
    usage_error "${QUICK[@]}" --json "" "$G/counter_fixed.so"
    has "^lineup: --json takes a file name"
    usage_error "${QUICK[@]}" --json real "$G/counter_fixed.so"
    has "^lineup: --json real: is a directory"
    usage_error "${QUICK[@]}" --json no/such/dir/x.json "$G/counter_fixed.so"
    has "^lineup: --json no/such/dir/x.json: directory no/such/dir: No such file or directory"
    if [[ $(id -u) != 0 ]]; then
        mkdir ro && chmod a-w ro
        usage_error "${QUICK[@]}" --json ro/x.json "$G/counter_fixed.so"
        has "cannot create files in ro"
    fi
    # two runs writing one FILE at once: each its own FILE.partial.PID, and
    # FILE is one of the two documents, whole
    "$L" --quiet --matrix 2x2 --samples 20 --seed 1 --json same.json "$G/counter.so" >/dev/null 2>&1 &
    p1=$!
    "$L" --quiet --matrix 2x2 --samples 20 --seed 2 --json same.json "$G/counter.so" >/dev/null 2>&1 &
    p2=$!
    rc1=0 rc2=0
    wait $p1 || rc1=$?
    wait $p2 || rc2=$?
    [[ $rc1 != 3 && $rc2 != 3 ]] || fail "two runs on one --json FILE: exit statuses $rc1 and $rc2"
    json_ok same.json
    ! compgen -G "same.json.partial*" >/dev/null || fail "a same.json.partial file was left"
    # a FIFO without a reader yet: a signal while lineup waits to open it
    # (the search is over) was "cannot write: Interrupted system call",
    # exit status 3; now the JSON goes out when a reader comes
    mkfifo j.fifo
    "$L" --quiet --matrix 2x2 --samples 2 --seed 1 --json j.fifo "$G/counter_fixed.so" >fifo.txt 2>&1 &
    pid=$!
    sleep 2
    kill -INT $pid
    sleep 0.5
    timeout 30 cat j.fifo >fifo.json
    rc=0
    wait $pid || rc=$?
    [[ $rc == 0 ]] || fail "--json FIFO and a late SIGINT: exit status $rc, expected the search's 0: $(cat fifo.txt)"
    json_ok fifo.json
    # "-" and lineup's own standard output: the JSON alone there, for a
    # pipe, the report on standard error
    for target in - /dev/stdout; do
        rc=0
        timeout 120 "$L" "${QUICK[@]}" --json "$target" "$G/counter_fixed.so" >piped.json 2>report.txt || rc=$?
        [[ $rc == 0 ]] || fail "--json $target exited $rc, expected 0"
        json_ok piped.json
        grep -q "^verdict: PASS" report.txt || fail "--json $target: no report on standard error"
    done
    # a test's "seconds" is the whole test, not the time since its last
    # execution: with --jobs 1 the tests' seconds make up the run's
    lu 0 --quiet --matrix 3x3 --samples 2 --seed 1 --jobs 1 --json secs.json "$G/counter_fixed.so"
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
t = [x["seconds"] for h in d["harnesses"] for x in h["tests"]]
s = d["summary"]["seconds"]
sys.exit(0 if len(t) == 2 and min(t) > 0.01 and sum(t) >= 0.5 * s else 1)' secs.json ||
        fail "the tests' seconds do not add up to the run's: $(tr -d '\n' <secs.json | grep -o '"seconds": [0-9.]*' | tr '\n' ' ')"
    # a test whose first finding is past --max-reports: the findings it
    # lists are still a JSON array (it had "[, {")
    if [[ -f $G/queue_trydeq.so ]]; then
        lu 1 --quiet --matrix 3x3 --samples 6 --seed 1 --max-executions 10000 --no-minimize --max-reports 1 \
            --json reports.json "$G/queue_trydeq.so"
        json_ok reports.json
        python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
t = [x for h in d["harnesses"] for x in h["tests"]]
sys.exit(0 if any(x["verdict"] == "VIOLATION" and [(f["verdict"], f.get("reported", True)) for f in x["findings"]] == [("VIOLATION", False), ("STUCK", True)] for x in t) else 1)' \
            reports.json || fail "no test in reports.json lists its unreported violation and then its STUCK finding"
    fi
    # the harness is not overwritten
    cp "$G/counter_fixed.so" self.so
    usage_error "${QUICK[@]}" --json self.so self.so
    has "^lineup: --json self.so is the harness itself"
    cmp -s self.so "$G/counter_fixed.so" || fail "--json overwrote the harness"
    # SIGTERM and SIGINT end lineup by the signal, with FILE holding the
    # tests that finished (case interrupt) and no FILE.partial.PID left;
    # SIGKILL leaves nothing either (the document is in memory until the
    # end: a FILE.partial.PID written as the run went was left behind)
    "$L" --quiet --matrix 3x3 --samples 1000 --seed 1 --jobs 1 --max-executions 0 --json killed.json \
        "$G/counter_fixed.so" >/dev/null 2>&1 &
    pid=$!
    sleep 1.5
    kill -KILL $pid
    wait $pid
    ! compgen -G "killed.json*" >/dev/null || fail "SIGKILL left $(compgen -G 'killed.json*')"
    for sig in TERM INT; do
        "$L" --quiet --matrix 3x3 --samples 1000 --seed 1 --jobs 1 --max-executions 0 --json sig.json \
            "$G/counter_fixed.so" >/dev/null 2>&1 &
        pid=$!
        sleep 1.5
        kill -s $sig $pid
        rc=0
        wait $pid || rc=$?
        want=$((128 + $(kill -l $sig)))
        [[ $rc == "$want" ]] || fail "SIG$sig: lineup exited $rc, expected $want"
        ! compgen -G "sig.json.partial*" >/dev/null || fail "SIG$sig left sig.json.partial.PID"
        json_ok sig.json
        grep -q '"interrupted": true' sig.json || fail "SIG$sig: sig.json does not say it was interrupted"
        rm -f sig.json
    done
    # a --json named as the next replay file would replace it at the end:
    # the replay file takes another name
    lu 1 --quiet --matrix 2x2 --samples 5 --seed 1 --json lineup-counter-1.replay "$G/counter.so"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -n $f && $f != ./lineup-counter-1.replay ]] || fail "the replay file is the --json file: '$f'"
    json_ok lineup-counter-1.replay
    lu 1 --replay "$f"
    has "\(reproduced\)"
    ;;
stdfds)
    # closed standard descriptors are not taken by files lineup opens
    lu 0 --quiet --test "inc(0) | inc(0)" "$G/counter_fixed.so" <&-
    has "verdict: PASS"
    rc=0
    timeout 120 "$L" --quiet --test "inc(0) | inc(0)" "$G/counter_fixed.so" >&- 2>"$out" || rc=$?
    [[ $rc == 0 ]] || fail "with stdout closed lineup exited $rc"
    # the JSON file must not become fd 1, where the report goes
    rc=0
    timeout 120 "$L" --quiet --test "inc(0) | inc(0)" --json fd.json "$G/counter_fixed.so" >&- 2>"$out" || rc=$?
    [[ $rc == 0 ]] || fail "with stdout closed lineup --json exited $rc"
    json_ok fd.json
    ;;
missing_value)
    for opt in --matrix --replay --samples --json --replay-dir --test; do
        usage_error "$opt"
        has "^lineup: option $opt needs an argument"
        lacks "unknown option"
    done
    # the other mode's options: where they belong, or this mode's name
    usage_error --budget 10 "$G/counter.so"
    has "^lineup: unknown option '--budget': the Line-Up check's budget per test is --max-executions N"
    usage_error --races "$G/counter.so"
    has "^lineup: unknown option '--races': it is an option of lineup run"
    usage_error --bogus "$G/counter.so"
    has "^lineup: unknown option '--bogus'$"
    ;;
before_run)
    usage_error --seed 5 --matrix 2x2 run -- ./prog
    has "^lineup: options of 'lineup run' go after 'run': lineup run \[options\] -- PROGRAM"
    # a harness built for another machine: said so, not "No such file"
    cp "$G/counter.so" arm64.so
    printf '\xb7\x00' | dd of=arm64.so bs=1 seek=18 conv=notrunc status=none
    usage_error arm64.so
    has "arm64.so is built for another architecture \(ELF machine 183\); lineup runs x86-64 code"
    # a FIFO is no shared object: refused at once, not waited on
    mkfifo fifo.so
    usage_error fifo.so
    has "fifo.so is not a shared object"
    ;;
shard_seed)
    usage_error --shard 1/2 --samples 4 --matrix 2x2 "$G/counter_fixed.so"
    has "^lineup: --shard needs --seed S"
    lu 0 --quiet --shard 1/2 --seed 3 --samples 4 --matrix 2x2 "$G/counter_fixed.so"
    has "shard 1/2"
    ;;
replay_dir)
    usage_error "${QUICK[@]}" --replay-dir "" "$G/counter.so"
    has "^lineup: --replay-dir takes a directory"
    usage_error "${QUICK[@]}" --replay-dir no/such "$G/counter.so"
    has "^lineup: --replay-dir no/such: No such file or directory"
    touch afile
    usage_error "${QUICK[@]}" --replay-dir afile "$G/counter.so"
    has "^lineup: --replay-dir afile: not a directory"
    # a replay file that cannot be written later: a warning naming it (the
    # file size limit makes every write to a file fail; the output goes
    # through a pipe, which it does not limit)
    mkdir rd
    (
        ulimit -f 0
        trap '' XFSZ
        rc=0
        "$L" --quiet --replay-dir rd --test "inc(0) get(0) | inc(0)" "$G/counter.so" 2>&1 >/dev/null || rc=$?
        echo "exit status $rc"
    ) | cat >"$out"
    has "^exit status 1$"
    has "^lineup: cannot write replay file rd/lineup-counter-[0-9]+\.replay: File too large"
    [[ -z $(ls rd) ]] || fail "a truncated replay file was left: $(ls rd)"
    ;;
matrix)
    for bad in 4294967297x1 -1x3 +2x2 "2x 2" " 2x2" 2x2x 0x3 3x0 x3 3x 2y2; do
        usage_error --matrix "$bad" "$G/counter_fixed.so"
        has "^lineup: --matrix takes TxN"
    done
    usage_error --matrix 9x2 "$G/counter_fixed.so"
    has "too large"
    # phase 1 would run every serial order: more than its limit is refused
    # at once, with the number
    usage_error --matrix 3x16 "$G/counter_fixed.so"
    has "^lineup: --matrix 3x16: a 3x16 test has up to 1.36e\+21 serial orders of its calls, more than phase 1's limit of 5000000"
    usage_error --matrix 4x4 "$G/counter_fixed.so"
    has "up to 63063000 serial orders"
    usage_error --quiet --test "inc inc inc inc | inc inc inc inc | inc inc inc inc | inc inc inc inc" \
        "$G/counter_fixed.so"
    has "^lineup: --test: the test has up to 63063000 serial orders"
    lu 0 --quiet --matrix 2X2 --samples 1 --seed 1 "$G/counter_fixed.so"
    has "1 samples of 2x2 matrices"
    ;;
stdout_errors)
    # GNU close_stdout: a lost report is an error, status 3
    if [[ -c /dev/full ]]; then
        rc=0
        timeout 120 "$L" --help >/dev/full 2>"$out" || rc=$?
        [[ $rc == 3 ]] || fail "lineup --help >/dev/full exited $rc, expected 3"
        has "^lineup: write error on standard output: No space left on device"
        rc=0
        timeout 120 "$L" "${QUICK[@]}" "$G/counter_fixed.so" >/dev/full 2>"$out" || rc=$?
        [[ $rc == 3 ]] || fail "a check with stdout on /dev/full exited $rc, expected 3"
        has "^lineup: write error on standard output: No space left on device"
    else
        echo "(no /dev/full: skipped)"
    fi
    # a reader that went away is not an error: the verdict's status, no message
    rc=0
    timeout 120 "$L" --quiet --matrix 2x2 --samples 50 --seed 1 "$G/counter_fixed.so" 2>"$out" | head -1 >/dev/null
    rc=${PIPESTATUS[0]}
    [[ $rc == 0 ]] || fail "lineup | head -1 exited $rc, expected 0"
    lacks "write error"
    ;;
nohup)
    # started with SIGHUP ignored (nohup), lineup keeps ignoring it: a
    # hangup stopped a nohup'd run (exit 129), in both modes
    # (a hangup goes to the whole process group: the workers keep it
    # ignored too, or their end was a crash of the code under test)
    (
        trap '' HUP
        exec setsid "$L" --quiet --matrix 3x3 --samples 12 --seed 1 --jobs 2 "$G/counter_fixed.so"
    ) >"$out" 2>&1 &
    pid=$!
    sleep 0.5
    kill -HUP -- -"$pid" || fail "lineup ended before the hangup: make its run longer"
    rc=0
    wait $pid || rc=$?
    [[ $rc == 0 ]] || fail "nohup'd lineup: exit status $rc after SIGHUP, expected 0"
    has "^verdict: PASS"
    lacks "interrupted"
    ;;
interrupt)
    # SIGINT (or SIGTERM) stops the run: no test is started any more, the
    # running ones are stopped, and the tests that finished are reported,
    # minimized no further; then lineup dies of the signal. (A non-
    # interactive shell starts it with SIGINT ignored; lineup handles it.)
    # On a loaded machine no failing test may have finished after 2 s: then
    # the run is repeated with more time before the signal.
    for wait_s in 2 6 20; do
        "$L" --matrix 2x2 --samples 100000 --seed 1 --jobs 2 --json run.json "$G/counter.so" >"$out" 2>&1 &
        pid=$!
        sleep $wait_s
        kids=$(pgrep -P "$pid")
        kill -INT "$pid"
        rc=0
        wait "$pid" || rc=$?
        grep -q "^FAIL harness counter" "$out" && break
    done
    [[ $rc == 130 ]] || fail "exit status $rc after SIGINT, expected 130 (killed by SIGINT)"
    has "^interrupted \(Interrupt\): [0-9]+ of 100000 tests of harness counter finished; reporting those"
    has "^FAIL harness counter: linearizability violation"
    has "^  not minimized: lineup was interrupted|^  minimization stopped after [0-9]+ runs: lineup was interrupted"
    has "^replay: lineup --replay "
    has "^  interrupted: [0-9]+ tests? (was|were) stopped unfinished \([0-9]+ in phase 1\): what (it|they) ran is counted above, (its|their) findings are not; [0-9]+ tests were not run$"
    has "^verdict: FAIL \(bug found\)"
    lacks "crash|internal error"
    json_ok run.json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]
assert s["interrupted"] is True and 0 < s["tests"] < 100000 and s["failed"] > 0, s
assert len(d["harnesses"][0]["tests"]) == s["tests"], (len(d["harnesses"][0]["tests"]), s["tests"])' run.json ||
        fail "run.json does not describe the finished tests"
    for k in $kids; do
        st=$(awk '{print $3}' "/proc/$k/stat" 2>/dev/null) || continue
        [[ $st == Z ]] || fail "worker $k outlived the interrupted run"
    done
    ;;
interrupt_minimize)
    # a signal while a failing test is minimized (a testing knob raises
    # SIGINT after the first smaller test) is the same interruption: the
    # summary says so, lineup dies of the signal, and the JSON's exit is
    # what a shell sees
    T='inc(0) inc(0) | inc(0) inc(0) | get(0) get(0)'
    rc=0
    LINEUP_TEST_INTERRUPT_MINIMIZE=1 "$L" --jobs 1 --json min.json --test "$T" "$G/counter.so" >"$out" 2>&1 ||
        rc=$?
    [[ $rc == 130 ]] || fail "exit status $rc after SIGINT during minimization, expected 130"
    has "^  minimization stopped after 1 run: lineup was interrupted"
    has "^  interrupted: while failing tests were minimized \(the reports say which\)$"
    has "^verdict: FAIL \(bug found\)"
    json_ok min.json
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
assert s["interrupted"] is True and s["exit"] == 130 and s["not_run"] == 0 and s["failed"] == 1, s' min.json ||
        fail "min.json does not say the run was interrupted: $(grep -o '"summary".*' min.json)"
    ;;
interrupt_phase1)
    # a test stopped in phase 1 (756756 serial orders, several seconds of
    # them) says what it ran, not "0 serial executions"
    long="inc(0) inc(0) inc(0) inc(0) inc(0) | inc(0) inc(0) inc(0) inc(0) inc(0) | get(0) get(0) get(0) get(0) get(0)"
    interrupt_after 1 INT lineup --quiet --jobs 1 --json p1.json --test "$long" "$G/counter_fixed.so"
    [[ $rc == 130 ]] || fail "exit status $rc after SIGINT, expected 130"
    has "^summary: 0 tests, 0 passed, 0 failed"
    has "^  phase 1: [1-9][0-9]* serial executions, [1-9][0-9]* distinct serial histories, [1-9][0-9]* determinism checks$"
    has "^  interrupted: 1 test was stopped unfinished \(1 in phase 1\): what it ran is counted above, its findings are not$"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
assert s["interrupted"] is True and s["stopped_tests"] == 1 and s["tests"] == 0 and s["phase1"]["executions"] > 0, s' p1.json ||
        fail "p1.json does not count the stopped test's executions"
    ;;
timeout_progress)
    # --timeout is for tests that hang: a long search whose executions keep
    # finishing is not a timeout (400,000 executions: about 2 s of work on a
    # machine that runs 200,000 a second, --timeout 1)
    lu 0 --timeout 1 --jobs 1 --max-executions 400000 --preemptions 3 \
        --test "inc(0) inc(0) get(0) | inc(0) get(0) inc(0) | inc(0) get(0)" "$G/counter_fixed.so"
    has "^verdict: PASS"
    # nor is the time lineup spends stopped (Ctrl-Z): its process group
    # stopped for 3 s with --timeout 1 (the same search as above: a smaller
    # one, of 51,068 executions, ended before the stop)
    stopped_for 3 --timeout 1 --jobs 1 --max-executions 400000 --preemptions 3 \
        --test "inc(0) inc(0) get(0) | inc(0) get(0) inc(0) | inc(0) get(0)" "$G/counter_fixed.so"
    [[ $rc == 0 ]] || fail "stopped for 3 s with --timeout 1: exit $rc, expected 0"
    has "^verdict: PASS"
    lacks "timeout:"
    ;;
watchdog_encoding)
    # The driver encodes the watchdog's perf events once, before it forks
    # its workers, which inherit the encoding: libpfm4 is loaded once, by
    # dlopen (it is no dependency of liblineup.so), and unloaded after.
    # The dynamic linker's log of all the processes goes to one file.
    LD_DEBUG=files LD_DEBUG_OUTPUT=$WORK/ld lu 0 --quiet --matrix 2x2 --samples 4 --seed 1 --jobs 2 \
        "$G/counter_fixed.so"
    has "^verdict: PASS"
    log=$(cat "$WORK"/ld.*) || fail "no log of the dynamic linker"
    n=$(grep -c "file=libpfm[^ ]* \[0\];  generating link map" <<<"$log")
    h=$(grep -c "file=.*counter_fixed.so \[0\];  dynamically loaded" <<<"$log")
    ((h >= 4)) || fail "the harness was loaded $h times: fewer than the 4 tests' workers"
    ((n == 1)) || fail "libpfm4 was loaded $n times, expected once for $h loads of the harness"
    grep -q "calling fini: .*libpfm" <<<"$log" || fail "libpfm4 was not unloaded after the encoding"
    ;;
trace_names)
    # LINEUP_TRACE_NAMES: one line per complete phase-2 execution with its
    # trace's name. The reduction keeps every trace, so the distinct names
    # are the same however the search went: one explorer or a tree split
    # among two, a cache of the default size or of 1 MB; each run names
    # every one of its complete executions (executions - cut); and the
    # count is golden (the naming must not change silently).
    t="inc(0) inc(0) get(0) | inc(0) get(0) inc(0) | get(0)"
    for cfg in "1" "2 LINEUP_SPLIT_AFTER=16" "1 LINEUP_PC_MB=1"; do
        read -r jobs extra <<<"$cfg"
        rm -f names.txt
        # shellcheck disable=SC2086 # extra: an assignment or nothing
        env LINEUP_TRACE_NAMES=names.txt $extra "$L" --quiet --jobs "$jobs" --json names.json --test "$t" \
            --max-executions 0 "$G/counter_fixed.so" >"$out" 2>&1 || fail "jobs $jobs $extra: exit status $?"
        complete=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["harnesses"][0]["tests"][0]["phase2"]
print(p["executions"] - p["cut_executions"])' names.json)
        [[ $(wc -l <names.txt) == "$complete" ]] ||
            fail "jobs $jobs $extra: $(wc -l <names.txt) names for $complete complete executions"
        ! grep -q ' -$' names.txt || fail "jobs $jobs $extra: executions without a name"
        n=$(sort -u names.txt | wc -l)
        [[ $n == 9104 ]] || fail "jobs $jobs $extra: $n traces, expected 9104"
    done
    # a file it cannot open: a usage error before anything runs
    LINEUP_TRACE_NAMES=no/such/dir/names.txt lu 2 --quiet --test "inc(0) | inc(0)" "$G/counter_fixed.so"
    has "^lineup: LINEUP_TRACE_NAMES=no/such/dir/names.txt: cannot open it: No such file or directory"
    lacks "^verdict"
    ;;
no_effect)
    lu 1 --quiet --test "inc(0) get(0) | inc(0)" "$G/counter.so"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    for o in "--json x.json" "--test inc(0)" "--matrix 2x2" "--samples 3" "--harness counter" "--strategy dfs" \
        "--jobs 2" "--seed 1" "--preemptions 1" "--max-executions 5" "--replay-dir ." "--no-minimize" \
        "--max-reports 1" "--reduction off" "--allow-uninstrumented" "--max-timeouts 1"; do
        read -r name val <<<"$o"
        usage_error --replay "$f" "$name" ${val:+"$val"}
        has "^lineup: $name has no effect with --replay"
    done
    [[ ! -e x.json ]] || fail "--json with --replay wrote a file"
    lu 1 --replay "$f" --timeout 60 --spin-bound 50 --watchdog-ms 500 --quiet
    lu 1 --replay "$f" --tls per-thread --quiet
    has "\(reproduced\)"
    usage_error --test "inc(0) | inc(0)" --samples 5 "$G/counter_fixed.so"
    has "^lineup: --samples has no effect with --test"
    usage_error --test "inc(0) | inc(0)" --matrix 2x2 "$G/counter_fixed.so"
    has "^lineup: --matrix has no effect with --test"
    # the reduction applies to the exhaustive strategies only, the bound
    # not to pct and pos
    for st in idb random pct pos; do
        usage_error --strategy $st --max-executions 10 --reduction off "$G/counter_fixed.so"
        has "^lineup: --reduction has no effect with --strategy $st: only default, dfs and ipb are reduced"
    done
    for st in pct pos; do
        usage_error --strategy $st --max-executions 10 --preemptions 3 "$G/counter_fixed.so"
        has "^lineup: --preemptions has no effect with --strategy $st"
    done
    lu 0 --quiet --matrix 2x2 --samples 2 --strategy random --max-executions 10 --preemptions 3 \
        "$G/counter_fixed.so"
    ;;
zero_limits)
    usage_error --spin-bound 0 "$G/counter_fixed.so"
    has "^lineup: --spin-bound takes a whole number from 1 to 100000000, not '0'"
    usage_error --watchdog-ms 0 "$G/counter_fixed.so"
    has "^lineup: --watchdog-ms takes a whole number from 1 to 3600000, not '0'"
    lu 0 --timeout 0 --quiet --test "inc(0) | inc(0)" "$G/counter_fixed.so"
    has "verdict: PASS"
    lu 0 --help
    has "--timeout SEC +a test times out when none of its executions finished for SEC$"
    has "^ +seconds of wall-clock time \(default 600; 0: none\)$"
    ;;
cache_size)
    # LINEUP_PC_MB: the largest prefix-trace cache of the reduction, 0 none;
    # the same histories either way, fewer executions with it
    LINEUP_PC_MB=abc usage_error --quiet --test "inc(0) | inc(0)" "$G/counter_fixed.so"
    has "^lineup: LINEUP_PC_MB takes a whole number, not 'abc'"
    for mb in 0 32; do
        LINEUP_PC_MB=$mb lu 0 --quiet --jobs 1 --max-executions 0 --json "pc$mb.json" \
            --test "inc(0) get(0) | inc(0) | get(0)" "$G/counter_fixed.so"
    done
    python3 - pc0.json pc32.json <<'PY' || fail "LINEUP_PC_MB=0 and 32 differ other than in executions"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ta, tb = a['harnesses'][0]['tests'][0], b['harnesses'][0]['tests'][0]
print(a['cache_mb'], ta['phase2']['executions'], b['cache_mb'], tb['phase2']['executions'])
assert a['cache_mb'] == 0 and b['cache_mb'] == 32
assert ta['histories_digest'] == tb['histories_digest'] and ta['verdict'] == tb['verdict'] == 'PASS'
assert tb['phase2']['executions'] < ta['phase2']['executions']
PY
    ;;
replay_cli)
    lu 1 --quiet --test "inc(0) get(0) | inc(0)" "$G/counter.so"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    # one verdict line
    lu 1 --replay "$f"
    [[ $(grep -c '^verdict' "$out") == 1 ]] || fail "not one verdict line"
    has "^verdict: linearizability violation \(reproduced\)$"
    sed 's/^kind .*/kind BOGUS/' "$f" >bogus.replay
    usage_error --replay bogus.replay
    has "bogus.replay:6: not a valid replay file: unknown kind"
    sed '1s/.*/lineup-replay 4/' "$f" >newer.replay
    usage_error --replay newer.replay
    has "newer.replay:1: not a valid replay file: it was written by a newer lineup"
    # a kind no replay file is written for
    sed 's/^kind .*/kind MISFIT/' "$f" >misfit.replay
    usage_error --replay misfit.replay
    has "misfit.replay:6: not a valid replay file: unknown kind"
    # a line twice (two schedules are not one longer one), a test too long
    # to keep whole
    { cat "$f" && grep '^schedule' "$f"; } >twice.replay
    usage_error --replay twice.replay
    has "twice.replay:[0-9]+: not a valid replay file: a repeated line"
    # also the line that says whose TLS the threads ran on
    { cat "$f" && echo "tls shared" && echo "tls per-thread"; } >tls_twice.replay
    usage_error --replay tls_twice.replay
    has "tls_twice.replay:[0-9]+: not a valid replay file: a repeated line"
    sed "s/^test .*/test $(printf 'inc(0) %.0s' {1..700})/" "$f" >long.replay
    usage_error --replay long.replay
    has "long.replay:4: not a valid replay file: a line too long"
    # a timed wait that gave up is named in the replay
    lu 1 --quiet --harness timed --test "hold(0) | take_timed(0)" --replay-dir . "$G/misc.so"
    has "^timed out: thread 1's pthread_mutex_timedlock \(step [0-9]+\)$"
    t=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    lu 1 --replay "$t"
    has "^timeouts:$"
    has "^    step [0-9]+: thread 1's pthread_mutex_timedlock at take_timed \(misc.c:[0-9]+\) timed out$"
    # the printed replay command pastes into a shell as it is, also for a
    # directory with a space and a quote
    mkdir -p "it's here"
    lu 1 --quiet --test "inc(0) get(0) | inc(0)" --replay-dir "it's here" "$G/counter.so"
    cmd=$(sed -n 's/^replay: lineup //p' "$out" | head -1)
    [[ $cmd == "--replay 'it'\\''s here/"* ]] || fail "the replay command is not quoted: $cmd"
    eval "lu 1 $cmd"
    has "\(reproduced\)$"
    # a harness path with a newline, a carriage return and a backslash
    # stays on its line
    odd=$'odd\ndir\r\\x'
    mkdir -p "$odd"
    cp "$G/counter.so" "$odd/counter.so"
    lu 1 --quiet --test "inc(0) get(0) | inc(0)" --replay-dir . "$odd/counter.so"
    g=$(ls ./lineup-counter-*.replay | tail -1)
    lu 1 --replay "$g"
    has "^verdict: linearizability violation \(reproduced\)$"
    printf 'lineup-run-replay 2\nprogram /bin/true\nkind ASSERT\nschedule t0\n' >run.replay
    usage_error --replay run.replay
    has "use 'lineup run --replay FILE'"
    mkdir adir
    usage_error --replay adir
    has "^lineup: cannot open replay file adir: it is a directory"
    usage_error --preemptions -2 "$G/counter_fixed.so"
    has "^lineup: --preemptions takes a whole number up to 64, or -1 for no bound, not '-2'"
    ;;
replay_corrupt)
    # no replay file: a clear error at once, never a read until memory runs
    # out (ulimit -v, so that a regression fails instead of filling the
    # machine's memory)
    as_lu 2 2000000 --replay /dev/zero
    has "^lineup: /dev/zero:1: not a valid replay file: it has a NUL byte: it is no text file$"
    head -c 300000 /dev/zero | tr '\0' a >noline.replay
    as_lu 2 2000000 --replay noline.replay
    has "^lineup: noline.replay:1: not a valid replay file: a line longer than [0-9]+ bytes, which no replay file has$"
    printf 'lineup-replay 2\nharness x\0y\n' >nul.replay
    as_lu 2 2000000 --replay nul.replay
    has "^lineup: nul.replay:2: not a valid replay file: it has a NUL byte"
    # a stream of lines lineup would skip, without end
    as_lu 2 2000000 --replay <(echo lineup-replay 2 && yes '#')
    has "^lineup: /dev/fd/[0-9]+:[0-9]+: not a valid replay file: longer than [0-9]+ bytes, which no replay file is$"
    # a good file, then one change each: an indented line (it was skipped),
    # no kind (it replayed as "recorded as ?"), a second history (the last
    # one won)
    lu 1 --jobs 1 --test "inc(0) get(0) | inc(0)" --replay-dir . "$G/counter.so"
    good=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $good ]] || fail "no replay file"
    sed 's/^kind /  kind /' "$good" >indented.replay
    lu 2 --replay indented.replay
    has "^lineup: indented.replay:[0-9]+: not a valid replay file: a line that starts with white space$"
    grep -v '^kind ' "$good" >nokind.replay
    lu 2 --replay nokind.replay
    has "not a valid replay file: harness, name, test, phase, kind and schedule lines are required$"
    { cat "$good"; grep '^history ' "$good"; } >twohist.replay
    lu 2 --replay twohist.replay
    has "^lineup: twohist.replay:[0-9]+: not a valid replay file: a repeated line$"
    # a malformed schedule entry is named as such, not as out of range
    sed 's/^schedule t\([0-9]*\)/schedule t\1x/' "$good" >badentry.replay
    lu 2 --replay badentry.replay
    has "not a valid replay file: schedule entries are tN or dN, separated by single spaces$"
    ;;
minimize_sampled)
    # a randomized strategy minimizes with the schedules --test draws from
    # the same --seed, so the minimized test fails again with --test (pct
    # seed 6 found it in sample 2, whose schedules --test does not draw)
    minimized=0
    for seed in 1 2 3 4 5 6 7 8; do
        o=(--quiet --strategy pct --seed "$seed" --max-executions 3 --jobs 1 --replay-dir .)
        rc=0
        timeout 120 "$L" "${o[@]}" --matrix 2x3 --samples 4 --max-reports 1 "$G/counter.so" >"$out" 2>&1 || rc=$?
        [[ $rc == 0 || $rc == 1 ]] || fail "pct seed $seed exited $rc"
        lacks "already minimal"
        m=$(sed -n 's/^  minimized ([0-9]* runs) to: \(.*\)$/\1/p' "$out" | head -1)
        m=${m%%, reported above*}
        [[ -n $m ]] || continue
        minimized=$((minimized + 1))
        lu 1 "${o[@]}" --no-minimize --test "$m" "$G/counter.so"
    done
    [[ $minimized -gt 0 ]] || fail "no seed gave a minimized test"
    ;;
file_size_limit)
    # a file size limit (ulimit -f) on lineup: the replay file cannot be
    # written, which is said, and the report goes on to its end (lineup
    # died of SIGXFSZ halfway through it, exit 153)
    bash -c 'ulimit -f 0; exec "$@"' lu "$LU_BIN" --jobs 1 --test "inc(0) get(0) | inc(0)" --replay-dir . \
        "$G/counter.so" 2>&1 | cat >"$out"
    rc=${PIPESTATUS[0]}
    [[ $rc == 1 ]] || fail "lineup under ulimit -f 0 exited $rc, expected 1"
    has "cannot write replay file .*File too large"
    has "^verdict: FAIL"
    ;;
replay_symlink)
    # a dangling symlink where a replay file would go is not followed: the
    # file gets another name, and nothing is created outside the directory
    mkdir rd
    ln -s ../outside rd/lineup-counter-1.replay
    lu 1 --jobs 1 --test "inc(0) get(0) | inc(0)" --replay-dir rd "$G/counter.so"
    [[ ! -e outside ]] || fail "the replay file was written through the symlink"
    has "^replay: lineup --replay rd/lineup-counter-2.replay$"
    [[ -s rd/lineup-counter-2.replay ]] || fail "no replay file"
    ;;
json_minimized)
    # "minimized" is the minimized test, or null where none was run (it held
    # the unminimized test under --no-minimize)
    lu 1 --quiet --jobs 1 --test "inc(0) inc(0) get(0) | inc(0)" --no-minimize --json nm.json "$G/counter.so"
    lu 1 --quiet --jobs 1 --test "inc(0) inc(0) get(0) | inc(0)" --json m.json "$G/counter.so"
    python3 -c 'import json,sys
f = lambda p: json.load(open(p))["harnesses"][0]["tests"][0]["findings"][0]
nm, m = f(sys.argv[1]), f(sys.argv[2])
assert nm["verdict"] == m["verdict"] == "VIOLATION", (nm, m)
assert nm["minimized"] is None, nm
assert isinstance(m["minimized"], str) and len(m["minimized"]) < len("inc(0) inc(0) get(0) | inc(0)"), m' nm.json m.json ||
        fail "\"minimized\" is not null without minimization, or not the smaller test with it"
    ;;
json_sums)
    # the summary's counts are the sums of the tests' (a run with stuck and
    # cut executions, so that swapping two of them shows)
    lu 1 --quiet --jobs 1 --matrix 2x2 --samples 4 --seed 1 --json sums.json "$G/queue_wakeup.so"
    json_ok sums.json
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
tests = [t for h in d["harnesses"] for t in h["tests"]]
for ph in ("phase1", "phase2"):
    for k, v in d["summary"][ph].items():
        got = sum(t[ph].get(k, 0) for t in tests)
        assert v == got, (ph, k, v, got)
p2 = d["summary"]["phase2"]
assert p2["stuck_executions"] > 0 and p2["cut_executions"] > 0 and p2["stuck_executions"] != p2["cut_executions"], p2
# every test under its own verdict at least; a passing test under PASS alone
v = d["summary"]["verdicts"]
for k in set(t["verdict"] for t in tests):
    assert v[k] >= sum(t["verdict"] == k for t in tests), (k, v)
assert v["PASS"] == sum(t["verdict"] == "PASS" for t in tests) > 0, v
assert sum(v.values()) >= len(tests), v
print("sums ok")' sums.json || fail "the summary is not the sum of the tests"
    # and the report prints the same counts per kind
    python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))["summary"]["verdicts"]
names = {"PASS": "pass", "VIOLATION": "linearizability violation", "STUCK": "stuck history with no serial explanation"}
lines = {l.strip() for l in open(sys.argv[2])}
for k, n in v.items():
    if n:
        assert "%s: %d" % (names[k], n) in lines, (k, n)
assert v["STUCK"] > 0, v' sums.json "$out" || fail "the summary's verdicts differ from the report's lines"
    # findings past --max-reports stay in the tests' records, so that the
    # kinds of the tests' findings add up to the summary's verdicts
    lu 1 --quiet --jobs 1 --matrix 2x2 --samples 6 --seed 1 --max-reports 1 --json few.json "$G/queue_wakeup.so"
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
tests = [t for h in d["harnesses"] for t in h["tests"]]
v = d["summary"]["verdicts"]
unreported = 0
for k, n in v.items():
    if k != "PASS":
        got = sum(any(f["verdict"] == k for f in t.get("findings", [])) for t in tests)
        assert n == got, (k, n, got)
unreported = sum(f.get("reported", True) is False for t in tests for f in t.get("findings", []))
assert unreported > 0, "no finding past --max-reports 1"
print("kinds ok")' few.json || fail "few.json: the tests' findings do not add up to the summary"
    ;;
timeout_json)
    # --json classifies a timeout as the report does: verdict TIMEOUT, an
    # inconclusive test rather than a failed one, and exit 1 only for the
    # bug another test found
    lu 1 --quiet --matrix 2x1 --samples 1 --seed 1 --timeout 1 --jobs 1 --json run.json "$G/slow.so"
    json_ok run.json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]
assert (s["tests"], s["failed"], s["inconclusive"], s["exit"]) == (2, 1, 1, 1), s
v = {h["name"]: [t["verdict"] for t in h["tests"]] for h in d["harnesses"]}
assert v == {"sleepy": ["TIMEOUT"], "lossy": ["VIOLATION"]}, v
f = d["harnesses"][0]["tests"][0]["findings"]
assert [x["verdict"] for x in f] == ["TIMEOUT"] and "replay" in f[0], f' run.json ||
        fail "run.json does not classify the timeout as inconclusive"
    # alone, the timeout is exit 2
    lu 2 --quiet --harness sleepy --test "nap(0)" --timeout 1 --json one.json "$G/slow.so"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
assert (s["failed"], s["inconclusive"], s["exit"]) == (0, 1, 2), s' one.json ||
        fail "one.json: a lone timeout is not exit 2, inconclusive"
    ;;
replay_timeout)
    # a timeout found with --timeout 1 replays with it, not the default
    # 600 s, and the replay says what it replays before it waits
    lu 2 --quiet --harness blocking --test "block(0)" --timeout 1 --replay-dir . "$G/hostile.so"
    has "^INCONCLUSIVE harness blocking: timeout"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    grep -qx "timeout 1" "$f" || fail "the replay file does not record the timeout"
    SECONDS=0
    LU_TIMEOUT=30 lu 2 --replay "$f"
    [[ $SECONDS -lt 10 ]] || fail "the replay took $SECONDS s"
    has "^verdict: timeout \(reproduced\)$"
    [[ $(head -1 "$out") == "lineup "*": replaying $f (harness blocking, recorded as TIMEOUT"* ]] ||
        fail "the replay does not begin with what it replays: $(head -1 "$out")"
    # likewise --watchdog-ms: 0.1 s of computing is a divergence under 20 ms,
    # and none under the default 1000
    lu 1 --quiet --harness busy --test "compute(0)" --watchdog-ms 20 --replay-dir . "$G/misc.so"
    has "^FAIL harness busy: divergence"
    w=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    grep -qx "watchdog-ms 20" "$w" || fail "the replay file does not record the watchdog"
    lu 1 --replay "$w"
    has "^verdict: divergence \(reproduced\)$"
    lu 2 --replay "$w" --watchdog-ms 1000 "$G/misc.so"
    has "does not fit this build"
    ;;
spawn_orphans)
    # processes the executions start and leave running are killed, in
    # phase 1 (the worker) and phase 2 (the explorers): none is left after
    # lineup (before, one per execution)
    lu 0 --quiet --harness spawner --matrix 2x2 --samples 3 --seed 1 --max-executions 300 --jobs 2 "$G/misc.so"
    sleep 0.5
    ! pgrep -f "^sleep 988.5$" >/dev/null || fail "processes spawned by the executions are left: $(pgrep -f '^sleep 988.5$' | wc -l)"
    # and by the serial executions run again after phase 2 failed
    lu 1 --quiet --harness spawnlost --test "spawn_inc(0) spawn_inc(0) | spawn_inc(0) spawn_get(0)" --no-minimize \
        "$G/misc.so"
    has "linearizability violation"
    sleep 0.5
    ! pgrep -f "^sleep 988.5$" >/dev/null || fail "processes spawned by the recheck are left: $(pgrep -f '^sleep 988.5$' | wc -l)"
    ;;
phase1_limit)
    # a test whose phase 1 runs past its limit stops the matrix: the other
    # tests have the same shape, and each would take most of a minute
    LINEUP_MAX_SERIAL=3 lu 2 --quiet --matrix 2x2 --samples 5 --seed 1 --jobs 1 --json p.json "$G/counter_fixed.so"
    has "^phase 1 needs more than 3 serial executions; use a smaller matrix$"
    has "^stopped: phase 1 of harness [a-z_]+'s sample 1 needed more than 3 serial executions: the other 4 tests of this matrix were not run; use a smaller matrix$"
    has "^  not run: 4 tests, after a test needed more serial executions than phase 1's limit$"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]
assert (s["tests"], s["errors"], s["not_run"], s["exit"]) == (1, 1, 4, 2), s' p.json || fail "p.json: $(cat p.json)"
    # an object's own thread multiplies the serial executions: said so
    LINEUP_MAX_SERIAL=1 lu 2 --quiet --harness server --matrix 2x1 --samples 2 --seed 1 --jobs 1 "$G/objthreads.so"
    has "they ran up to [0-9]+ threads, more than the test's 2 and the main thread"
    has "the other 1 test of this matrix was not run"
    # under the limit nothing stops
    LINEUP_MAX_SERIAL=100 lu 0 --quiet --matrix 2x2 --samples 5 --seed 1 "$G/counter_fixed.so"
    lacks "^stopped:|not run"
    LINEUP_MAX_SERIAL=0 lu 2 "${QUICK[@]}" "$G/counter_fixed.so"
    has "LINEUP_MAX_SERIAL=0"
    ;;
replay_spin)
    # the spin bound shapes the schedule (here: when the spinning waiter is a
    # livelock), so the replay file records it and a replay uses it
    lu 1 --quiet --test "inc(0) | inc(0)" --spin-bound 5 --replay-dir . "$G/hoglock.so"
    has "^FAIL harness hog: stuck history with no serial explanation"
    has "spinning in atomic_load"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    grep -qx "spin-bound 5" "$f" || fail "the replay file does not record the spin bound"
    lu 1 --replay "$f"
    has "^verdict: stuck history with no serial explanation \(reproduced\)$"
    lacks "does not fit"
    # --spin-bound on the command line wins, and here makes another schedule
    lu 2 --replay "$f" --spin-bound 1000
    has "^lineup: replay: the recorded schedule does not fit this build"
    # and the message names that as the likely cause, not a changed harness
    has "it was recorded with --spin-bound 5 and replayed with 1000, which changes where spinning threads stop"
    lacks "the harness changed since"
    sed 's/^spin-bound .*/spin-bound 0/' "$f" >sb0.replay
    usage_error --replay sb0.replay
    has "sb0.replay:9: not a valid replay file: bad spin-bound \(1 to 100000000\)"
    # found under the default --tls: the file has no tls line; a bad one is
    # refused
    ! grep -q "^tls " "$f" || fail "a replay found with --tls auto records a tls line"
    { cat "$f" && echo "tls none"; } >tls.replay
    usage_error --replay tls.replay
    has "tls.replay:[0-9]+: not a valid replay file: bad tls \(auto, per-thread or shared\)"
    # found under --tls shared: the file says so, and a schedule that no
    # longer fits gives the command to check the test again with it
    lu 1 --quiet --jobs 1 --tls shared --test "put(1) calls(0) | put(2)" --replay-dir . "$G/tlsval.so"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    grep -qx "tls shared" "$f" || fail "the replay file does not record --tls shared"
    sed 's/^schedule .*/& t1 t1 t1/' "$f" >tlsmis.replay
    lu 2 --replay tlsmis.replay
    has "To check a fix, run the test again: lineup --test .* --harness tlsval --tls shared "
    ;;
replay_fit)
    # a replay follows the recorded schedule exactly; where it cannot, it
    # says so (exit 2), never a verdict about the code
    lu 1 --quiet --test "inc(0) get(0) | inc(0)" "$G/counter.so"
    f=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    n=$(sed -n 's/^schedule //p' "$f" | wc -w)
    nofit() {
        lu 2 --replay "$@"
        has "^verdict: the recorded schedule does not fit \(recorded as linearizability violation\)$"
        has "^lineup: replay: the recorded schedule does not fit this build at choice [0-9]+"
        has "To check a fix, run the test again: lineup --test 'inc\(0\) get\(0\) \| inc\(0\)' --harness counter "
        lacks "\(reproduced\)|nondeterminism|^verdict: (pass|linearizability)"
        [[ $(grep -c '^verdict' "$out") == 1 ]] || fail "not one verdict line"
    }
    sed 's/^\(schedule .*\) [td][0-9]*$/\1/' "$f" >short.replay
    nofit short.replay
    has "at choice $n \(the schedule ended after $((n - 1)) choices but the execution went on\)"
    sed 's/^schedule .*/schedule /' "$f" >empty.replay
    nofit empty.replay
    has "at choice 1 \(the schedule ended after 0 choices"
    sed 's/^\(schedule .*\)$/\1 t1 t2/' "$f" >extra.replay
    nofit extra.replay
    has "at choice $((n + 1)) of $((n + 2)) \(the execution ended before it; 2 recorded choices were left over\)"
    sed 's/^\(schedule .*\) [td][0-9]*$/\1 t9/' "$f" >nothread.replay
    nofit nothread.replay
    has "at choice $n of $n \(thread 8 \(t9\) does not exist\)"
    # the harness rebuilt with the fix: the schedule is the old build's
    nofit "$f" "$G/counter_fixed.so"
    has "the harness changed since the replay file was written"
    # a sampled failure: the advice samples the same way, from the seed the
    # file records
    lu 1 --quiet --strategy pos --seed 7 --max-executions 500 --test "inc(0) get(0) | inc(0)" "$G/counter.so"
    fp=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
    grep -qx 'seed 7' "$fp" || fail "$fp does not record the seed"
    nofit "$fp" "$G/counter_fixed.so"
    has "To check a fix, run the test again: lineup --test 'inc\(0\) get\(0\) \| inc\(0\)' --harness counter --strategy pos --seed 7 "
    sed 's/^seed .*/seed x7/' "$fp" >badseed.replay
    lu 2 --replay badseed.replay
    has "badseed.replay:[0-9]+: not a valid replay file: bad seed"
    # the file as written still reproduces the bug
    lu 1 --replay "$f"
    has "^verdict: linearizability violation \(reproduced\)$"
    lacks "does not fit"
    # a rebuilt harness that fails on the same schedule with other results
    # is not the recorded failure: the file keeps the history's hash
    grep -qE '^history [0-9a-f]{16}$' "$f" || fail "$f does not record the history"
    lu 1 --replay "$f" "$G/counter_scaled.so"
    has "^verdict: linearizability violation \(recorded as the same kind of failure, but on another history: "
    lacks "reproduced|does not fit"
    sed 's/^history .*/history 12345/' "$f" >badhist.replay
    lu 2 --replay badhist.replay
    has "badhist.replay:[0-9]+: not a valid replay file: bad history \(16 hexadecimal digits\)"
    # a test line changed to other calls, with the same positions and
    # results, is another test: since format 3 the hash names the test
    if [[ -f $G/queue_trydeq.so ]]; then
        lu 1 --quiet --test "try_dequeue(0) | enqueue(400) enqueue(400)" --replay-dir . "$G/queue_trydeq.so"
        q=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
        head -1 "$q" | grep -qx 'lineup-replay 3' || fail "$q is not format 3"
        sed 's/^test .*/test try_dequeue(0) | enqueue(200) enqueue(400)/' "$q" >edited.replay
        lu 1 --replay edited.replay
        has "^verdict: linearizability violation \(recorded as the same kind of failure, but on another history: .*test line was changed\)$"
        lacks "reproduced"
        lu 1 --replay "$q"
        has "\(reproduced\)$"
    fi
    # files without the line (older ones, crashes) compare the kind alone
    sed '/^history /d' "$f" >nohist.replay
    lu 1 --replay nohist.replay "$G/counter_scaled.so"
    has "^verdict: linearizability violation \(reproduced\)$"
    # a build without lineup-cc's instrumentation is said to be one, not a
    # harness that changed; a file written with --allow-uninstrumented
    # replays on such a build
    lu 2 --replay "$f" "$G/plain.so"
    has "plain.so was not built with lineup-cc, and .* was written for a build that was"
    lacks "^verdict|does not fit"
    if [[ -f $G/queue_wakeup_plain.so ]]; then
        lu 1 --quiet --allow-uninstrumented --test "take(0) | enqueue(200)" --replay-dir . \
            "$G/queue_wakeup_plain.so"
        u=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
        lu 1 --replay "$u"
        has "\(reproduced\)$"
    fi
    # the suggested test searches as the one that found the bug did: at its
    # preemption (or delay) bound and spin bound
    for o in "--preemptions 3" "--strategy idb --preemptions 1" "--spin-bound 50"; do
        # shellcheck disable=SC2086 # word splitting wanted
        lu 1 --quiet --test "inc(0) get(0) | inc(0)" $o --replay-dir . "$G/counter.so"
        g=$(sed -n 's/^replay: lineup --replay \(.*\)$/\1/p' "$out" | head -1)
        lu 2 --replay "$g" "$G/counter_fixed.so"
        has "To check a fix, run the test again: lineup --test 'inc\(0\) get\(0\) \| inc\(0\)' --harness counter $o "
    done
    lu 0 --help
    has "^unsupported call, a --replay whose recorded schedule does not fit this harness; and a timeout,"
    has "^which is no bug: lineup could not check the test\), 3 internal error"
    ;;
*)
    echo "unknown case $case_"
    exit 1
    ;;
esac
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# Command-line edge cases of `lineup run`: closed standard descriptors,
# write errors on stdout, options that would do nothing, out-of-range
# values, replay files that are not what they seem. One ctest entry per CASE.
#
#   cli.sh CASE
#
# Environment (from CMakeLists.txt): LINEUP, PROGS (the built programs),
# WORK (scratch directory).
# shellcheck disable=SC2153 # the environment comes from CMakeLists.txt
set -uo pipefail

case_=$1
P=$PROGS
rm -rf -- "$WORK"
mkdir -p -- "$WORK"
cd -- "$WORK" || exit 1
out=$WORK/out.txt
LU_BIN=$LINEUP
LU_TIMEOUT=100
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/../cli_lib.sh"
# server_of PID: waits until lineup PID has started its server (the
# program's process); sets server
server_of() {
    for _ in $(seq 300); do
        server=$(pgrep -P "$1" | head -1)
        [[ -n $server ]] && return 0
        sleep 0.1
    done
    fail "the program's process did not start"
}
# lineup run of PROG in its own process group ($lp), its program's process
# ($server) stopped, then lineup interrupted: the forwarded SIGINT stays
# pending in the stopped server
interrupt_stopped() {
    set -m
    "$LINEUP" run --quiet --all --budget 100000000 --seed 1 -- "$P/$1" >"$out" 2>&1 &
    lp=$!
    set +m
    server_of "$lp"
    sleep 1
    kill -STOP "$server"
    kill -INT "$lp"
}
# a usage error found at option parsing: nothing was run
usage_error() {
    lu 2 "$@"
    lacks "^lineup [0-9.]+: run|^verdict"
}

case $case_ in
stopped)
    # time lineup spends stopped (Ctrl-Z: its process group) is no timeout
    # (the search must outlast the 0.3 s before the stop: 8000 executions
    # take about 3 s on a machine that runs 2,800 a second)
    stopped_for 2.5 run --quiet --timeout 1 --budget 8000 -- "$P/correct"
    [[ $rc == 0 ]] || fail "stopped for 2.5 s with --timeout 1: exit $rc, expected 0"
    lacks "timeout:"
    ;;
interrupt)
    # SIGINT, SIGTERM or SIGHUP stops the search: the execution under way is
    # cut off and not counted, the summary says how far the search got and
    # claims no more, and lineup dies of the signal. Long searches: millions
    # of schedules (long_search.c).
    same_count() {
        local n m
        n=$(sed -n 's/^summary: \([0-9]*\) executions\{0,1\} in .*/\1/p' "$out")
        m=$(sed -n 's/^  interrupted ([A-Za-z]*): the search stopped after \([0-9]*\) execution.*/\1/p' "$out")
        [[ -n $n && $n == "$m" && $n -gt 0 ]] || fail "summary of $n executions, interrupted after $m"
    }
    # Ctrl-C in a terminal: the signal reaches lineup, the program's server
    # and the execution under way. No failure so far, and the default's
    # exhaustive pass, without a last bound, is still at it (bounds 0 to 2
    # take about 2000 executions, bound 3 many more)
    interrupt_after 2 INT group run --preemptions -1 --budget 100000000 --seed 1 -- "$P/long_search_fixed"
    [[ $rc == 130 ]] || fail "exit status $rc after SIGINT, expected 130 (killed by SIGINT)"
    has "^  coverage: (every schedule with at most [0-9]+ preemptions? was explored; interrupted in bound [0-9]+|interrupted before bound 0 was explored completely)$"
    has "^  interrupted \(Interrupt\): the search stopped after [0-9]+ executions"
    has "^verdict: INTERRUPTED \(no failure so far\)$"
    lacks "^FAIL|sampled|crash|internal error|runtime in"
    same_count
    sleep 0.5
    ! pgrep -g "$pgid" >/dev/null || fail "processes of the interrupted run are left: $(pgrep -g "$pgid")"
    # kill(1) reaches lineup alone: with --all, the failures found so far,
    # each with its replay file, and an unbounded search that did not finish
    interrupt_after 2 TERM lineup run --all --strategy dfs --preemptions -1 --budget 0 -- "$P/long_search"
    [[ $rc == 143 ]] || fail "exit status $rc after SIGTERM, expected 143 (killed by SIGTERM)"
    has "^FAIL: assertion failure: \`atomic_load\(&counter\) == THREADS \* ROUNDS' in the main thread"
    has "^  coverage: interrupted before every schedule was explored$"
    has "^  interrupted \(Terminated\): the search stopped after [0-9]+ executions"
    has "^    [0-9]+ executions \(first: [0-9]+\): assertion failure"
    has "^verdict: FAIL \(bug found\)$"
    lacks "every schedule with|crash|internal error"
    same_count
    replay=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out")
    [[ -f $replay ]] || fail "no replay file '$replay'"
    sleep 0.5
    ! pgrep -g "$pgid" >/dev/null || fail "processes of the interrupted run are left: $(pgrep -g "$pgid")"
    lu 1 run --replay "$replay"
    has "^verdict: assertion failure \(reproduced\)"
    # timeout(1) signals lineup, then its own process group: one request,
    # one report; a sampler's line says how many it sampled
    rc=0
    timeout -s INT 2 "$LINEUP" run --strategy pct --budget 100000000 --seed 1 -- "$P/long_search_fixed" \
        >"$out" 2>&1 || rc=$?
    [[ $rc == 124 ]] || fail "timeout -s INT 2 lineup run ...: exit status $rc, expected 124"
    has "^  coverage: [0-9]+ executions sampled \(pct, seed 1\): no coverage guarantee$"
    has "^verdict: INTERRUPTED \(no failure so far\)$"
    [[ $(grep -c '^summary: ' "$out") == 1 ]] || fail "not one summary"
    same_count
    # with two executions at once (--jobs 2): both are cut off and neither
    # counted, and no process is left
    interrupt_after 2 INT group run --jobs 2 --preemptions -1 --budget 100000000 --seed 1 -- "$P/long_search_fixed"
    [[ $rc == 130 ]] || fail "--jobs 2: exit status $rc after SIGINT, expected 130 (killed by SIGINT)"
    has "^  interrupted \(Interrupt\): the search stopped after [0-9]+ executions"
    has "^verdict: INTERRUPTED \(no failure so far\)$"
    lacks "^FAIL|crash|internal error"
    same_count
    sleep 0.5
    ! pgrep -g "$pgid" >/dev/null || fail "--jobs 2: processes of the interrupted run are left: $(pgrep -g "$pgid")"
    ;;
interrupt_late)
    # A signal that reaches lineup after the server finished the search
    # stopped nothing: the verdict and the exit status are the search's.
    # lineup is stopped (its server goes on) until the server has sent its
    # summary and exited, then gets SIGINT and goes on.
    # (the search must outlast the half second before the stop: 15000
    # executions take about 5.5 s on a machine that runs 2,700 a second;
    # 1500 took 0.56 s and failed CI)
    "$LINEUP" run --quiet --budget 15000 --seed 1 -- "$P/long_search_fixed" >"$out" 2>&1 &
    lp=$!
    server_of "$lp"
    sleep 0.5 # lineup has read the server's hello: signals are requests now
    kill -STOP "$lp" || fail "lineup ended before it was stopped: the search is too short for this test"
    for _ in $(seq 600); do
        [[ $(ps -o stat= -p "$server" 2>/dev/null) == Z* ]] && break
        sleep 0.1
    done
    [[ $(ps -o stat= -p "$server" 2>/dev/null) == Z* ]] || fail "the server did not finish its search"
    kill -INT "$lp"
    kill -CONT "$lp"
    rc=0
    wait "$lp" || rc=$?
    [[ $rc == 0 ]] || fail "SIGINT after the search finished: exit status $rc, expected 0"
    has "^  \(Interrupt arrived after the search had finished: the verdict is the search's\)$"
    has "^verdict: PASS \(no failure found\)$"
    lacks "INTERRUPTED|interrupted"
    ;;
nohup)
    # started with SIGHUP ignored (nohup), lineup and the program's process
    # keep ignoring it: a hangup stopped a nohup'd run (exit 129)
    (
        trap '' HUP
        exec "$LINEUP" run --quiet --budget 3000 --seed 1 -- "$P/long_search_fixed"
    ) >"$out" 2>&1 &
    lp=$!
    server_of "$lp"
    sleep 0.5
    kill -HUP "$lp" || fail "lineup ended before the hangup: make its run longer"
    kill -HUP "$server" 2>/dev/null
    rc=0
    wait "$lp" || rc=$?
    [[ $rc == 0 ]] || fail "nohup'd lineup run: exit status $rc after SIGHUP, expected 0"
    has "^verdict: PASS"
    lacks "interrupted"
    ;;
interrupt_died)
    # The program's process (the fork server) killed after an interruption
    # reached lineup: the interruption is reported like any other (the
    # executions finished so far, the verdict so far, death by the signal),
    # not as an internal error. The server is stopped first, so that the
    # forwarded SIGINT stays pending until SIGKILL.
    for prog in long_search_fixed long_search; do
        interrupt_stopped "$prog"
        sleep 1
        kill -KILL "$server"
        rc=0
        wait "$lp" || rc=$?
        [[ $rc == 130 ]] || fail "$prog: exit status $rc after SIGINT and a dead server, expected 130"
        has "^  interrupted \(Interrupt\): the search stopped after [0-9]+ executions"
        has "^  \(lineup's runtime in the program's process died \(signal 9\) after the interruption"
        lacks "internal error"
        if [[ $prog == long_search ]]; then
            has "^FAIL: assertion failure"
            has "^verdict: FAIL \(bug found\)$"
        else
            has "^verdict: INTERRUPTED \(no failure so far\)$"
        fi
        # the execution's process dies with the server (PR_SET_PDEATHSIG)
        for _ in $(seq 50); do
            pgrep -g "$lp" >/dev/null || break
            sleep 0.1
        done
        ! pgrep -g "$lp" >/dev/null || fail "processes of the interrupted run are left: $(pgrep -g "$lp")"
    done
    # a server that never answers the interruption (stopped): lineup kills
    # it after 10 s and reports, instead of waiting for ever
    interrupt_stopped long_search_fixed
    SECONDS=0
    rc=0
    wait "$lp" || rc=$?
    [[ $rc == 130 && $SECONDS -lt 30 ]] || fail "a stopped server: exit status $rc after $SECONDS s, expected 130 within 30 s"
    has "^  \(lineup's runtime in the program's process died \(signal 9\) after the interruption"
    # one sent to the program's process alone during a replay, which has no
    # graceful stop: lineup ends with it too
    # (block's reader blocks in read: replayed with a long --timeout, the
    # execution waits there)
    lu 2 run --quiet --timeout 1 -- "$P/block"
    f=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    "$LINEUP" run --quiet --replay "$f" --timeout 60 >"$out" 2>&1 &
    lp=$!
    server_of "$lp"
    kill -TERM "$server"
    rc=0
    wait "$lp" || rc=$?
    [[ $rc == 143 ]] || fail "SIGTERM to the program's process during a replay: exit status $rc, expected 143"
    lacks "internal error"
    ;;
json)
    # --json: one JSON object with the verdict, what the exit status means,
    # the counts, the coverage and each finding, valid whatever the program
    # prints and however the run ends. jq FILE EXPR...: each Python
    # expression over the document d must hold.
    jq_() {
        local f=$1
        shift
        python3 - "$f" "$@" <<'PY' || fail "$f: $(head -c 3000 "$f")"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
s = d.get("summary", {})
for e in sys.argv[2:]:
    if not eval(e):
        sys.exit("does not hold: " + e)
PY
    }
    # a pass, explored completely
    lu 0 run --quiet --strategy dfs --preemptions -1 --json pass.json -- "$P/lost_fixed"
    jq_ pass.json 'd["mode"] == "run" and d["strategy"] == "dfs" and d["preemptions"] == -1 and d["jobs"] == 1' \
        'd["seed"] is None and d["findings"] == [] and d["program"].endswith("/lost_fixed")' \
        's["verdict"] == "PASS" and s["exit"] == 0 and s["exit_meaning"] == "no failure found"' \
        's["executions"] > 0 and s["complete"] == s["executions"] - s["cut_executions"] - s["discarded"] - s["dropped"]' \
        's["coverage"]["exhaustive"] and s["coverage"]["stopped_by"] is None and not s["interrupted"]'
    ! compgen -G "pass.json.partial*" >/dev/null || fail "a pass.json.partial file was left"
    # a non-zero exit status without --expect-exit: a note, not a finding
    lu 0 run --quiet --strategy dfs --json notes.json -- "$P/exit_main"
    jq_ notes.json 'd["findings"] == [] and [n["exit_status"] for n in d["notes"]] == [1]' \
        'd["notes"][0]["execution"] == 1 and d["notes"][0]["replay"].endswith(".replay")' \
        'sorted(e["status"] for e in s["exit_statuses"]) == [0, 1] and s["verdict"] == "PASS"'
    # a bug, with --json -: the JSON alone on standard output, although the
    # program prints a JSON object of its own, quotes, control characters
    # and bytes that are not UTF-8; the report, with that output, on
    # standard error. With --jobs 2 the execution's record, schedule and
    # output are a lane's own, copied for the driver.
    rc=0
    timeout 100 "$LINEUP" run --quiet --jobs 2 --strategy dfs --json - -- "$P/noisy" fail >bug.json 2>"$out" || rc=$?
    [[ $rc == 1 ]] || fail "noisy fail: exit status $rc, expected 1"
    has "^verdict: FAIL \(bug found\)$"
    has "^  \| \{\"verdict\": \"PASS\", \"exit\": 0\}$"
    jq_ bug.json 's["verdict"] == "FAIL" and s["exit"] == 1 and s["failing"] == 1 and d["jobs"] == 2' \
        's["coverage"]["stopped_by"] == "failure" and d["args"] == ["fail"]' \
        'len(d["findings"]) == 1 and d["findings"][0]["verdict"] == "ASSERT"' \
        'd["findings"][0]["kind"] == "assertion failure" and d["findings"][0]["thread"] == 0' \
        'd["findings"][0]["location"].startswith("main (noisy.c:")' \
        'd["findings"][0]["message"].startswith("assertion failure: `argc < 2'"'"' in the main thread")' \
        '"café" in d["findings"][0]["report"] and "\ufffd" in d["findings"][0]["report"]' \
        'd["findings"][0]["report"].count("{\"verdict\": \"PASS\"") == 3' \
        's["distinct"][0]["verdict"] == "ASSERT" and s["distinct"][0]["executions"] == 1'
    replay=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["replay"])' bug.json)
    [[ -f $replay ]] || fail "no replay file '$replay'"
    lu 1 run --quiet --replay "$replay"
    has "\(reproduced\)"
    # the program is not overwritten (it was, by the JSON of its verdict)
    cp "$P/lost_fixed" self
    usage_error run --quiet --json self -- ./self
    has "^lineup run: --json self is the program itself"
    cmp -s self "$P/lost_fixed" || fail "--json overwrote the program"
    # a timeout: no verdict, exit status 2
    lu 2 run --quiet --timeout 1 --json timeout.json -- "$P/block"
    jq_ timeout.json 's["verdict"] == "INCONCLUSIVE" and s["exit"] == 2 and s["inconclusive"] == 1' \
        's["failing"] == 0 and s["coverage"]["stopped_by"] == "timeout" and s["coverage"]["timed_out"]' \
        '[f["verdict"] for f in d["findings"]] == ["TIMEOUT"] and d["findings"][0]["thread"] == 1' \
        'd["findings"][0]["location"].startswith("reader (block.c:")' \
        '"timed out" in s["exit_meaning"]'
    # with --all, stopped by --max-timeouts: said so, and the limit recorded
    lu 2 run --quiet --all --timeout 1 --budget 20 --max-timeouts 2 --json maxto.json -- "$P/block_many"
    jq_ maxto.json 's["inconclusive"] == 2 and s["coverage"]["stopped_by"] == "max-timeouts"' \
        'd["max_timeouts"] == 2 and d["all"]'
    # interrupted (timeout(1) sends SIGINT): the executions so far, and
    # lineup still dies of the signal
    rc=0
    timeout -s INT 2 "$LINEUP" run --quiet --strategy pct --budget 100000000 --seed 1 --json int.json \
        -- "$P/long_search_fixed" >"$out" 2>&1 || rc=$?
    [[ $rc == 124 ]] || fail "timeout -s INT 2 lineup run --json ...: exit status $rc, expected 124"
    jq_ int.json 's["verdict"] == "INTERRUPTED" and s["exit"] == 130 and s["interrupted"]' \
        's["signal"] == "SIGINT" and s["executions"] > 0 and s["coverage"]["stopped_by"] == "interrupt"' \
        's["coverage"]["sampled"] == s["executions"] and d["seed"] == 1 and d["depth"] == 3' \
        '"interrupted by SIGINT" in s["exit_meaning"]'
    ! compgen -G "int.json.partial*" >/dev/null || fail "an int.json.partial file was left"
    # ... with a failure found: FAIL, and the finding
    interrupt_after 2 TERM lineup run --quiet --all --strategy dfs --preemptions -1 --budget 0 --json term.json \
        -- "$P/long_search"
    [[ $rc == 143 ]] || fail "exit status $rc after SIGTERM, expected 143"
    jq_ term.json 's["verdict"] == "FAIL" and s["exit"] == 143 and s["signal"] == "SIGTERM"' \
        'd["findings"][0]["verdict"] == "ASSERT" and d["budget"] is None and d["all"]' \
        's["coverage"]["text"] == "interrupted before every schedule was explored"'
    # a resource error (exit status 3): no verdict, the limit named
    rc=0
    (ulimit -f 100 && exec timeout 100 "$LINEUP" run --quiet --budget 5 --json - -- "$P/correct") \
        >res.json 2>"$out" || rc=$?
    [[ $rc == 3 ]] || fail "lineup run --json - under ulimit -f 100 exited $rc, expected 3"
    jq_ res.json 's["verdict"] == "ERROR" and s["exit"] == 3 and "RLIMIT_FSIZE" in s["error"]' \
        's["coverage"] is None and s["executions"] == 0'
    # a JSON that cannot be written: exit status 3
    if [[ -c /dev/full ]]; then
        lu 3 run --quiet --strategy dfs --json /dev/full -- "$P/lost_fixed"
        has "^lineup run: cannot write /dev/full: No space left on device"
    fi
    # usage errors: nothing runs, no JSON
    usage_error run --json "" -- "$P/correct"
    has "^lineup run: --json takes a file name, not an empty string"
    usage_error run --json . -- "$P/correct"
    has "^lineup run: --json \.: is a directory; give a file name"
    ;;
output_cut)
    # a report keeps the last 64 KiB of the output: it says what it left
    # out, and drops the fragment of a line the kept part begins in
    lu 1 run --quiet -- "$P/long_line"
    has "^    \(the first 100001 bytes not shown\)$"
    has "^  \| long_line: .*Assertion .0. failed\.$"
    lacks "^  \| [0-9]+$|more than"
    lu 1 run --quiet -- "$P/long_lines"
    has "^    \(the first [0-9]+ bytes and [0-9]+ more lines not shown\)$"
    has "^  \| line 19999 of the output$"
    [[ $(grep -c '^  | line' "$out") == 39 ]] || fail "not the last 39 lines of output and the assertion"
    # 24 MiB of output: given back while the execution runs, but counted
    lu 1 run --quiet --budget 1 -- "$P/output_flood"
    has "^  \| the start of the output: given back$"
    has "^output \(stdout and stderr of this execution, 251[0-9]{5} bytes\):$"
    ;;
closed_fds)
    # the shared region must not land on fd 0 or 1, which the program's
    # stdin and stdout replace
    lu 0 run --quiet --budget 200 -- "$P/correct" <&-
    has "verdict: PASS"
    rc=0
    timeout 100 "$LINEUP" run --quiet --budget 200 -- "$P/correct" >&- 2>"$out" || rc=$?
    [[ $rc == 0 ]] || fail "with stdout closed lineup run exited $rc"
    lacks "runtime taking over"
    ;;
stdout)
    if [[ ! -c /dev/full ]]; then
        echo "(no /dev/full: skipped)"
        echo "1 passed, 0 failed"
        exit 0
    fi
    for args in "run --quiet --budget 200 -- $P/correct" "run --help"; do
        rc=0
        # shellcheck disable=SC2086 # word splitting wanted
        timeout 100 "$LINEUP" $args >/dev/full 2>"$out" || rc=$?
        [[ $rc == 3 ]] || fail "lineup $args >/dev/full exited $rc, expected 3"
        has "^lineup: write error on standard output: No space left on device"
    done
    # a reader that went away is not an error
    timeout 100 "$LINEUP" run --quiet --budget 200 -- "$P/correct" 2>"$out" | head -1 >/dev/null
    rc=${PIPESTATUS[0]}
    [[ $rc == 0 ]] || fail "lineup run | head -1 exited $rc, expected 0"
    lacks "write error"
    ;;
options)
    lu 0 run --version
    has "^lineup [0-9]+\.[0-9]+"
    usage_error run --replay-dir "" -- "$P/correct"
    has "^lineup run: --replay-dir takes a directory"
    usage_error run --replay-dir no/such -- "$P/correct"
    has "^lineup run: --replay-dir no/such: No such file or directory"
    usage_error run --preemptions -2 -- "$P/correct"
    has "^lineup run: --preemptions takes a whole number up to 64, or -1 for no bound, not '-2'"
    # --seed with a strategy that draws nothing would let the user believe
    # it changed something
    for s in dfs ipb idb; do
        usage_error run --strategy "$s" --seed 3 -- "$P/correct"
        has "^lineup run: --seed has no effect with --strategy $s, which draws nothing"
    done
    lu 0 run --quiet --strategy dfs --budget 20 -- "$P/correct"
    lacks "seed"
    usage_error run --depth 5 -- "$P/correct"
    has "^lineup run: --depth is the bug depth of --strategy pct"
    lu 0 run --quiet --strategy pct --depth 5 --budget 20 -- "$P/correct"
    usage_error run --spin-bound 0 -- "$P/correct"
    has "^lineup run: --spin-bound takes a whole number from 1 to 100000000, not '0'"
    usage_error run --watchdog-ms 0 -- "$P/correct"
    has "^lineup run: --watchdog-ms takes a whole number from 1 to 3600000, not '0'"
    lu 0 run --quiet --timeout 0 --budget 20 -- "$P/correct"
    lu 0 run --help
    has "--timeout SEC +wall-clock limit of one execution \(default 30; 0: none\)"
    usage_error run --strategy
    has "^lineup run: option --strategy needs an argument"
    usage_error run --budget 5ms -- "$P/correct"
    has "^lineup run: --budget takes N \(executions\), Ns \(seconds\) or Nm \(minutes\), not '5ms'"
    # the reduction's cache size (LINEUP_PC_MB) is checked like an option
    LINEUP_PC_MB=x usage_error run -- "$P/correct"
    has "^lineup run: LINEUP_PC_MB takes a whole number, not 'x'"
    LINEUP_PC_MB=0 lu 0 run --quiet --strategy dfs --budget 20 -- "$P/correct"
    # a small stack (ulimit -s 128): lineup and lineup-cc programs start
    (ulimit -s 128 && "$LINEUP" --version >/dev/null) || fail "lineup --version fails with a 128 KB stack"
    (ulimit -s 128 && "$P/correct") || fail "a lineup-cc program fails with a 128 KB stack"
    # an empty name is not looked up on PATH (it would match a directory)
    usage_error run -- ""
    has "^lineup run: the program name is empty"
    # a program for another machine: said so, not "cannot execute"
    cp "$P/correct" arm64
    printf '\xb7\x00' | dd of=arm64 bs=1 seek=18 conv=notrunc status=none
    usage_error run -- ./arm64
    has "arm64 is built for another architecture \(ELF machine 183\); lineup runs x86-64 code"
    # a FIFO is no program: refused at once, not waited on
    mkfifo fifo
    chmod +x fifo
    usage_error run -- ./fifo
    has "fifo is not an executable"
    ;;
replay)
    lu 1 run --quiet --strategy dfs -- "$P/lost_update"
    f=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file"
    for o in "--strategy dfs" "--preemptions 1" "--depth 2" "--reduction off" "--budget 5" "--seed 1" "--all" "--max-timeouts 1" \
        "--replay-dir ." "--json x.json"; do
        read -r name val <<<"$o"
        usage_error run --replay "$f" "$name" ${val:+"$val"}
        has "^lineup run: $name has no effect with --replay"
    done
    lu 1 run --quiet --replay "$f" --timeout 60 --max-steps 100000
    has "\(reproduced\)"
    lu 1 run --quiet --replay "$f" --tls per-thread
    has "\(reproduced\)"
    { cat "$f" && echo "tls none"; } >tls.replay
    usage_error run --replay tls.replay
    has "tls.replay:[0-9]+: not a valid replay file: bad tls \(auto, per-thread or shared\)"
    # the replay file holds to the command line's ranges
    sed 's/^max-steps .*/max-steps 0/' "$f" >steps0.replay
    usage_error run --replay steps0.replay
    has "steps0.replay:[0-9]+: not a valid replay file: bad max-steps \(16 to 16777216\)"
    mkdir adir
    usage_error run --replay adir
    has "^lineup run: cannot open replay file adir: it is a directory"
    sed '1s/.*/lineup-run-replay 3/' "$f" >newer.replay
    usage_error run --replay newer.replay
    has "newer.replay:1: not a valid replay file: it was written by a newer lineup"
    { cat "$f" && grep '^schedule' "$f"; } >twice.replay
    usage_error run --replay twice.replay
    has "twice.replay:[0-9]+: not a valid replay file: a repeated line"
    # no replay file: a clear error at once, never a read until memory runs
    # out (ulimit -v, so that a regression fails instead of filling the
    # machine's memory)
    as_lu 2 2000000 run --replay /dev/zero
    has "^lineup run: /dev/zero:1: not a valid replay file: it has a NUL byte: it is no text file$"
    as_lu 2 2000000 run --replay <(yes | tr -d '\n')
    has "^lineup run: /dev/fd/[0-9]+:1: not a valid replay file: a line longer than [0-9]+ bytes, which no replay file has$"
    as_lu 2 2000000 run --replay <(echo lineup-run-replay 2 && yes 'arg x')
    has "^lineup run: /dev/fd/[0-9]+:[0-9]+: not a valid replay file: more arguments than a program can take \(ARG_MAX, [0-9]+ bytes\)$"
    # a timeout found with --timeout 1 replays with it, not the default 30 s
    lu 2 run --quiet --timeout 1 --replay-dir . -- "$P/block"
    b=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $b ]] || fail "no replay file for the timeout"
    SECONDS=0
    lu 2 run --quiet --replay "$b"
    [[ $SECONDS -lt 10 ]] || fail "the replay of a 1 s timeout took $SECONDS s"
    has "\(reproduced\)"
    # and --watchdog-ms
    lu 1 run --quiet --watchdog-ms 200 --replay-dir . -- "$P/diverge"
    d=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    grep -qx "watchdog-ms 200" "$d" || fail "the replay file does not record the watchdog"
    lu 1 run --quiet --replay "$d"
    has "\(reproduced\)"
    # a misfit suggests running the program again with the settings the
    # failure depended on: without --races the race would pass unfixed
    lu 1 run --quiet --races --replay-dir . -- "$P/race_plain"
    r=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $r ]] || fail "no replay file for the race"
    lu 2 run --replay "$r" -- "$P/race_mutex"
    has "does not fit this program .* To check a fix, run it again: lineup run --races -- .*/race_mutex$"
    lu 1 run --quiet --races -- "$P/race_plain"
    # a program path and an argument with a carriage return, a newline and a
    # backslash are replayed as they were, not cut at the carriage return
    odd=$'odd\rdir\n\\x'
    mkdir -p "$odd"
    cp "$P/exit_main" "$odd/prog"
    lu 0 run --quiet --replay-dir . -- "$odd/prog" $'a\rb'
    f=$(sed -n 's/^note: .*; replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    [[ -f $f ]] || fail "no replay file for the exit status"
    grep -qxF 'arg a\rb' "$f" || fail "the argument is not escaped in $f: $(grep '^arg' "$f")"
    lu 0 run --quiet --replay "$f"
    has "^no failure: main returned 1$"
    lacks "does not fit|cannot open|^note: the file recorded"
    # -- PROGRAM without the recorded arguments: said so
    lu 0 run --quiet --replay "$f" -- "$odd/prog"
    has "^note: the file recorded the arguments .*; this replay passes none"
    lu 0 run --quiet --replay "$f" -- "$odd/prog" $'a\rb'
    lacks "^note: the file recorded"
    # argv[0] as the program was started: the replay gives it the same
    # (the program fails only when argv[0] begins with '.')
    cp "$P/argv0" .
    lu 1 run --quiet --strategy dfs --replay-dir . -- ./argv0
    a=$(sed -n 's/^replay: lineup run --replay \(.*\)$/\1/p' "$out" | head -1)
    grep -qxF 'argv0 ./argv0' "$a" || fail "$a does not record argv[0]: $(head -3 "$a")"
    lu 1 run --quiet --replay "$a"
    has "\(reproduced\)"
    # and a misfit's advice names the program so, where that names it
    sed 's/^schedule .*/schedule t0/' "$a" >argv0_short.replay
    lu 2 run --replay argv0_short.replay
    has "To check a fix, run it again: lineup run -- \./argv0$"
    ;;
oom)
    # Under a ulimit -v that lineup's own mappings fill, oom's malloc(64 MB)
    # fails although the limit would allow it: lineup run stops with exit
    # status 3 and says so, never the assertion the program makes next.
    # Every 8 MB from 72 MB (below 64 MB the request cannot fit whatever
    # runs it, and the program sees it fail) to 256 MB more than what lineup
    # needs plus the 64 MB is tried: below what lineup needs plus 64 MB the
    # request fails beside lineup's mappings (at which of those limits
    # depends on how glibc lays out its arenas), above it succeeds.
    lo=16384 hi=1048576
    while ((hi - lo > 4096)); do
        mid=$(((lo + hi) / 2))
        if (ulimit -v $mid && "$LINEUP" run --quiet --budget 20 -- "$P/oom" 0 >/dev/null 2>&1); then
            hi=$mid
        else
            lo=$mid
        fi
    done
    stopped=0
    for ((v = 65536 + 8192; v <= hi + 65536 + 262144; v += 8192)); do
        rc=0
        (ulimit -v $v && timeout 100 "$LINEUP" run --quiet --budget 20 -- "$P/oom" 64 >"$out" 2>&1) || rc=$?
        case $rc in
        0) has "verdict: PASS" ;;
        3)
            has "^ERROR: out of memory: malloc\(67108864\) by (the main thread|thread 1) at grab \(oom.c:[0-9]+\) returned NULL in lineup's process, which had [0-9]+ MB of address space of the [0-9]+ MB ulimit -v allows; not a finding"
            has "verdict: ERROR"
            lacks "assertion"
            stopped=$((stopped + 1))
            ;;
        *) fail "ulimit -v $v: lineup run exited $rc, expected 0 (malloc succeeded) or 3" ;;
        esac
    done
    ((stopped > 0)) || fail "no ulimit -v from 72 MB on made malloc(64 MB) fail"
    echo "lineup run needs ulimit -v $((hi / 1024)) MB; from 72 MB to $(((hi + 65536 + 262144) / 1024)) MB: $stopped runs stopped out of memory"
    # a request that fails natively too is the program's own
    lu 0 run --quiet --budget 20 -- "$P/oom" huge
    has "verdict: PASS"
    (ulimit -v $((hi + 16384)) && lu 0 run --quiet --budget 20 -- "$P/oom" huge) || exit 1
    ;;
*)
    echo "unknown case $case_"
    exit 1
    ;;
esac
echo "1 passed, 0 failed"

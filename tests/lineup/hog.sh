#!/usr/bin/env bash
# lineup's own memory limits, with the hogs of harnesses/hog.c:
#  1. restart limit: leak(8) leaks 8 MB per call (16 MB per execution, 54
#     executions); the explorer restarts right after the execution whose
#     heap growth passed LINEUP_RECYCLE_MB=64, so the largest process stays
#     within about base + 64 + 16 (+ phase 1's 32) MB. Checked every 16
#     executions, it grew to base + 300 MB.
set -uo pipefail
lineup=$1
so=$2
python3 - "$lineup" "$so" <<'PY'
import json, os, sys, tempfile
lineup, so = sys.argv[1:3]
failed = 0
for k in ('LINEUP_RECYCLE_MB', 'LINEUP_MEM_AVAILABLE_MB', 'LINEUP_RECYCLE_EVERY'):
    os.environ.pop(k, None)
out = tempfile.mkstemp(suffix='.json')[1]

def run_peak(test, env):
    """lineup on one test: (exit status, largest process in MB: wait4 gives
    this child's own, its descendants included)"""
    e = dict(os.environ)
    e.update(env)
    cmd = [lineup, '--jobs', '1', '--max-executions', '0', '--reduction', 'off', '--json', out,
           '--test', test, so]
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execve(lineup, cmd, e)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss / 1024

def problem(what):
    global failed
    print('FAIL: ' + what)
    failed += 1

# 1. the restart limit holds exactly
rc0, base = run_peak('leak(0) | leak(0)', {'LINEUP_RECYCLE_MB': '64'})
rc, peak = run_peak('leak(8) | leak(8)', {'LINEUP_RECYCLE_MB': '64'})
p2 = json.load(open(out))['harnesses'][0]['tests'][0]['phase2']
print('restart limit 64 MB: largest process %.0f MB (%.0f MB without the leak), %d restarts in %d executions'
      % (peak, base, p2['restarts'], p2['executions']))
if rc0 != 0 or rc != 0:
    problem('exit status %d and %d, expected 0' % (rc0, rc))
if p2['executions'] != 54 or p2['restarts'] < 11:
    problem('expected 54 executions and a restart every 4 or 5 (864 MB leaked): %s' % p2)
if peak > base + 64 + 16 + 32 + 24:
    problem('the largest process grew by %.0f MB, past 64 + 16 + 32 MB' % (peak - base))

os.unlink(out)
print('all passed' if not failed else '%d failed' % failed)
sys.exit(1 if failed else 0)
PY

#!/usr/bin/env bash
# lineup's own memory limits, with the hogs of harnesses/hog.c:
#  1. restart limit: leak(8) leaks 8 MB per call (16 MB per execution, 52
#     executions); the explorer restarts right after the execution whose
#     heap growth passed LINEUP_RECYCLE_MB=64, so the largest process stays
#     within about base + 64 + 16 (+ phase 1's 32) MB. Checked every 16
#     executions, it grew to base + 300 MB.
#  2. cap: one serial execution of leak(64) | leak(64) allocates 128 MB,
#     past the 100 MB a test process may use when 100 MB are available: the
#     test stops with exit status 3 and an out-of-memory report.
#  3. ulimit -v: lineup's own address space fills it, so grab(64)'s malloc
#     fails in lineup's processes although it would succeed natively: exit
#     status 3 and the report, never the -1 it returns as a verdict.
#  4. huge(0) asks for 64 TB and expects NULL, natively too: it passes,
#     with and without ulimit -v.
set -uo pipefail
lineup=$1
so=$2
python3 - "$lineup" "$so" <<'PY'
import json, os, re, resource, subprocess, sys, tempfile
lineup, so = sys.argv[1:3]
failed = 0
for k in ('LINEUP_RECYCLE_MB', 'LINEUP_MEM_AVAILABLE_MB', 'LINEUP_RECYCLE_EVERY'):
    os.environ.pop(k, None)
out = tempfile.mkstemp(suffix='.json')[1]

def run(test, env=None, vlimit_kb=None):
    """lineup on one test, under ulimit -v vlimit_kb if given: (exit status, output)"""
    e = dict(os.environ)
    e.update(env or {})
    def limit():
        if vlimit_kb:
            resource.setrlimit(resource.RLIMIT_AS, (vlimit_kb << 10, vlimit_kb << 10))
    cmd = [lineup, '--jobs', '1', '--max-executions', '0', '--reduction', 'off', '--test', test, so]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=e, preexec_fn=limit,
                       timeout=120)
    return p.returncode, p.stdout.decode(errors='replace')

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
if p2['executions'] != 52 or p2['restarts'] < 11:
    problem('expected 52 executions and a restart every 4 or 5 (832 MB leaked): %s' % p2)
if peak > base + 64 + 16 + 32 + 24:
    problem('the largest process grew by %.0f MB, past 64 + 16 + 32 MB' % (peak - base))

# 1b. memory the code maps itself: the heap count misses it, the resident
# memory read every 16 executions catches it (16 MB per execution: a
# restart after 16 executions at the latest, 3 in 52)
rc, peak = run_peak('mapleak(8) | mapleak(8)', {'LINEUP_RECYCLE_MB': '64'})
p2 = json.load(open(out))['harnesses'][0]['tests'][0]['phase2']
print('restart limit 64 MB, mmap: largest process %.0f MB, %d restarts in %d executions'
      % (peak, p2['restarts'], p2['executions']))
if rc != 0:
    problem('exit status %d, expected 0' % rc)
if p2['executions'] != 52 or p2['restarts'] < 3:
    problem('expected 52 executions and a restart every 16 at the latest (832 MB mapped): %s' % p2)
if peak > base + 16 * 16 + 32 + 24:
    problem('the largest process grew by %.0f MB, past 16 executions of 16 MB and 32 MB' % (peak - base))

# 2. the cap on one process's heap
rc, peak = run_peak('leak(64) | leak(64)', {'LINEUP_RECYCLE_MB': '32', 'LINEUP_MEM_AVAILABLE_MB': '100'})
rc2, text = run('leak(64) | leak(64)', {'LINEUP_RECYCLE_MB': '32', 'LINEUP_MEM_AVAILABLE_MB': '100'})
print('cap 100 MB: exit status %d, largest process %.0f MB' % (rc, peak))
for want in ('out of memory: the heap of lineup.s process for this test grew by 1[0-9][0-9] MB in phase 1 ',
             'past the 100 MB a test process may use', 'malloc\\(67108864\\) at leak \\(hog.c:[0-9]+\\)', 'for 1 job', 'verdict: ERROR'):
    if not re.search(want, text):
        problem('the cap report lacks /%s/:\n%s' % (want, text))
if rc != 3 or rc2 != 3:
    problem('exit status %d and %d, expected 3' % (rc, rc2))
if peak > base + 100 + 64 + 24:
    problem('the largest process grew by %.0f MB' % (peak - base))

# 2b. the cap on what phase 1 maps: its serial executions run in one
# process, which keeps what each maps (16 MB each here; the heap count
# misses it, and until session 31 nothing stopped it short of the
# machine's memory): resident memory, read every 16 serial executions
rc, text = run('mapleak(8) mapleak(8) | mapleak(8) mapleak(8) | mapleak(8)',
               {'LINEUP_RECYCLE_MB': '32', 'LINEUP_MEM_AVAILABLE_MB': '100'})
print('cap 100 MB, mmap in phase 1: exit status %d' % rc)
for want in ('out of memory: the resident memory of lineup.s process for this test grew by [0-9]+ MB in phase 1 '
             '\\(what the code under test mapped itself', 'past the 100 MB a test process may use', 'verdict: ERROR'):
    if not re.search(want, text):
        problem('the mapped-memory cap report lacks /%s/:\n%s' % (want, text))
if rc != 3:
    problem('exit status %d, expected 3' % rc)

# 2c. descriptors the code leaks: phase 1 (every serial order in one
# process) stops with a harness error that names them; an explorer restarts
# before it runs out, so phase 2 gives no verdict from EMFILE (until session
# 31: nondeterminism, or a violation whose replay did not fit)
def run_nofile(args, nofile):
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.run([lineup, '--jobs', '1'] + args + [so], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       preexec_fn=limit, timeout=120)
    return p.returncode, p.stdout.decode(errors='replace')
rc, text = run_nofile(['--test', 'fdleak(1) fdleak(1) fdleak(1) | fdleak(1) fdleak(1) | fdleak(1) fdleak(1)'], 128)
print('fd leak, phase 1: exit status %d' % rc)
if rc != 2 or not re.search('the code under test leaks file descriptors: [0-9]+ open after [0-9]+ serial '
                            'executions, [0-9]+ at phase 1.s start, of the 128 that ulimit -n allows', text):
    problem('phase 1 fd leak: exit status %d, expected 2 and the report:\n%s' % (rc, text))
# a phase 1 that reaches the limit between two counts: checked again
# before its nondeterminism becomes a verdict (it did)
rc, text = run_nofile(['--test', ' '.join(['fdleak(1)'] * 6) + ' | ' + ' '.join(['fdleak(1)'] * 6)], 128)
if rc != 2 or 'the code under test leaks file descriptors: 128 open of the 128 that ulimit -n allows' not in text:
    problem('phase 1 fd leak past the limit between counts: exit status %d, expected 2 and the report:\n%s'
            % (rc, text))
rc, text = run_nofile(['--test', 'fdleak(1) fdleak(1) | fdleak(1) fdleak(1)', '--reduction', 'off',
                       '--max-executions', '0', '--json', out], 128)
p2 = json.load(open(out))['harnesses'][0]['tests'][0]['phase2'] if rc == 0 else None
print('fd leak, phase 2: exit status %d, %s' % (rc, p2))
if rc != 0 or 'verdict: PASS' not in text or p2['restarts'] < 2:
    problem('phase 2 fd leak: exit status %d, expected 0, PASS and restarts:\n%s' % (rc, text))
# a randomized strategy restarts only between chunks of 256 executions:
# near the limit, an error instead of a verdict from EMFILE
rc, text = run_nofile(['--test', 'fdleak(1) | fdleak(1)', '--strategy', 'random', '--max-executions', '600'], 128)
print('fd leak, phase 2, random: exit status %d' % rc)
if rc != 2 or not re.search('the code under test leaks file descriptors: [0-9]+ open of the 128 that ulimit -n '
                            'allows', text) or 'nondeterminism' in text:
    problem('phase 2 fd leak, random: exit status %d, expected 2 and the report:\n%s' % (rc, text))

# 3. ulimit -v: the least address space (in 16 MB steps) lineup needs for
# itself, then 16 MB more, too few for grab(64); but above 64 MB, where
# malloc(64 MB) would fail natively too (section 4: the code's to handle).
# Since thread 0 runs on the controller's thread pointer (no malloc arena
# of its own), lineup alone needs about 50 MB here.
lo, hi = 16 << 10, 16 << 20
while hi - lo > 16 << 10:
    mid = (lo + hi) // 2
    if run('leak(0) | leak(0)', vlimit_kb=mid)[0] == 0:
        hi = mid
    else:
        lo = mid
tight = max(hi + (16 << 10), 80 << 10)
rc, text = run('grab(64) | grab(64)', vlimit_kb=tight)
print('ulimit -v %d MB (lineup alone needs %d): grab(64) exits %d' % (tight >> 10, hi >> 10, rc))
for want in ('out of memory: malloc\\(67108864\\) by the code under test returned NULL in phase [12], called at '
             'grab \\(hog.c:[0-9]+\\)', 'MB of address space of the [0-9]+ MB ulimit -v allows',
             'what to do: raise ulimit -v', '--jobs 1', 'verdict: ERROR'):
    if not re.search(want, text):
        problem('the ulimit report lacks /%s/:\n%s' % (want, text))
if rc != 3:
    problem('exit status %d under ulimit -v, expected 3:\n%s' % (rc, text))

# 4. a request that fails natively too is the code's to handle
for vl in (None, tight):
    rc, text = run('huge(0) | huge(0)', vlimit_kb=vl)
    if rc != 0 or 'verdict: PASS' not in text:
        problem('huge(0) with %s: exit status %d:\n%s' % ('ulimit -v' if vl else 'no limit', rc, text))
print('huge(0): passes with and without ulimit -v')

os.unlink(out)
print('all passed' if not failed else '%d failed' % failed)
sys.exit(1 if failed else 0)
PY

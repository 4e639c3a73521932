#!/usr/bin/env bash
# Stuck executions leak the object (destroy() is never called on an object
# threads are stuck in): with a 2 MB object and ~300 stuck executions, an
# explorer that never restarted would pass 600 MB. lineup restarts it from
# its clean copy when its private memory grew by LINEUP_RECYCLE_MB, so the
# largest process of the run stays near that, and the search is unchanged.
# Run twice: at LINEUP_RECYCLE_MB=32, and at the default, which depends on
# the memory available (between 32 and 256 MB, reported as recycle_mb);
# then the default's formula, from memory amounts given in
# LINEUP_MEM_AVAILABLE_MB.
set -uo pipefail
lineup=$1
so=$2
json=$(mktemp)
trap 'rm -f "$json"' EXIT
python3 - "$lineup" "$so" "$json" <<'PY'
import json, os, resource, subprocess, sys
lineup, so, out = sys.argv[1:4]
failed = 0

for limit in ('32', None):
    env = dict(os.environ)
    env.pop('LINEUP_RECYCLE_MB', None)
    if limit:
        env['LINEUP_RECYCLE_MB'] = limit
    # without reduction: restarts (here when memory grows) lose what the
    # reduction learnt, so the count would depend on where they happen
    cmd = [lineup, '--quiet', '--jobs', '1', '--max-executions', '0', '--reduction', 'off', '--json', out,
           '--test', 'pass(0) | pass(0) open_gate(0) | pass(0)', so]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    # ru_maxrss of children is the largest of all so far: runs go from small to large limits
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    d = json.load(open(out))
    t = d['harnesses'][0]['tests'][0]
    p2 = t['phase2']
    mb = d['recycle_mb']
    problems = []
    if rc != 0 or t['verdict'] != 'PASS':
        problems.append('exit status %d, verdict %s' % (rc, t['verdict']))
    if p2['stuck_executions'] < 250 or p2['executions'] != 294:
        problems.append('expected 294 executions, most of them stuck: %s' % p2)
    if limit and mb != int(limit):
        problems.append('recycle_mb %d, not the %s of LINEUP_RECYCLE_MB' % (mb, limit))
    if not 32 <= mb <= 256:
        problems.append('recycle_mb %d outside 32..256' % mb)
    # ~590 MB leaked in all: a restart right after the execution whose
    # leak made the heap's growth pass recycle_mb
    if p2['restarts'] < 590 // (mb + 40) or p2['restarts'] < 1:
        problems.append('the explorer restarted %d times' % p2['restarts'])
    if peak_mb > mb + 90:
        problems.append('largest process: %.0f MB' % peak_mb)
    print('recycle_mb %d: largest process %.0f MB, %d stuck executions, %d restarts'
          % (mb, peak_mb, p2['stuck_executions'], p2['restarts']))
    if problems:
        print('FAIL: ' + '; '.join(problems))
        failed += 1

# The default's formula, from a given amount of memory available: a
# quarter of it per job, between 32 and 256 MB; LINEUP_RECYCLE_MB wins.
cases = [('400', '1', None, 100), ('400', '2', None, 50), ('40', '1', None, 32), ('100000', '1', None, 256),
         ('400', '1', '77', 77)]
for avail, jobs, fixed, want in cases:
    env = dict(os.environ)
    env.pop('LINEUP_RECYCLE_MB', None)
    env['LINEUP_MEM_AVAILABLE_MB'] = avail
    if fixed:
        env['LINEUP_RECYCLE_MB'] = fixed
    cmd = [lineup, '--quiet', '--jobs', jobs, '--json', out, '--test', 'open_gate(0) | pass(0)', so]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
    mb = json.load(open(out))['recycle_mb'] if rc == 0 else None
    if mb != want:
        print('FAIL: %s MB available, --jobs %s%s: recycle_mb %s, expected %d (exit status %d)'
              % (avail, jobs, ', LINEUP_RECYCLE_MB=' + fixed if fixed else '', mb, want, rc))
        failed += 1
print('recycle_mb from the memory available: %d cases' % len(cases))
print('%d passed, %d failed' % (2 + len(cases) - failed, failed))
sys.exit(1 if failed else 0)
PY

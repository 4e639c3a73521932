#!/usr/bin/env bash
# Stuck executions leak the object (destroy() is never called on an object
# threads are stuck in): with a 2 MB object and ~300 stuck executions, an
# explorer that never restarted would pass 600 MB. lineup restarts it from
# its clean copy when its private memory grew by LINEUP_RECYCLE_MB (32 by
# default), so the largest process of the run stays far below that, and the
# search is unchanged.
set -uo pipefail
lineup=$1
so=$2
json=$(mktemp)
trap 'rm -f "$json"' EXIT
python3 - "$lineup" "$so" "$json" <<'PY'
import json, resource, subprocess, sys
lineup, so, out = sys.argv[1:4]
# without reduction: restarts (here when memory grows) lose what the
# reduction learnt, so the count would depend on where they happen
cmd = [lineup, '--quiet', '--jobs', '1', '--max-executions', '0', '--reduction', 'off', '--json', out,
       '--test', 'pass(0) | pass(0) open_gate(0) | pass(0)', so]
rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
t = json.load(open(out))['harnesses'][0]['tests'][0]
p2 = t['phase2']
problems = []
if rc != 0 or t['verdict'] != 'PASS':
    problems.append('exit status %d, verdict %s' % (rc, t['verdict']))
if p2['stuck_executions'] < 250 or p2['executions'] != 294:
    problems.append('expected 294 executions, most of them stuck: %s' % p2)
if p2['restarts'] < 3:
    problems.append('the explorer restarted %d times' % p2['restarts'])
if peak_mb > 120:
    problems.append('largest process: %.0f MB' % peak_mb)
print('largest process %.0f MB, %d stuck executions, %d restarts' % (peak_mb, p2['stuck_executions'], p2['restarts']))
if problems:
    print('FAIL: ' + '; '.join(problems))
    print('0 passed, 1 failed')
    sys.exit(1)
print('1 passed, 0 failed')
PY

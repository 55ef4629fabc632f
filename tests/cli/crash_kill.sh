#!/bin/sh
# Crash safety: SIGKILL hta-ingest at several points of a multi-file ingest into an
# existing database (WAL, one transaction per file). Each time the database must
# open, pass integrity_check and hold exactly the files committed before the kill,
# each with all of its events; a rerun then completes the rest.
set -u
command -v python3 >/dev/null || { echo "python3 needed to generate traces"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$top/tools/gen_trace.py" tr --ranks 8 --steps 6 --layers 8 -q || exit 1
mkdir -p first && mv tr/rank0.pt.trace.json first/
# the reference: every file ingested cleanly, events per file
$HTA_INGEST -q ref.db tr first || exit 1
ref() { sqlite3 ref.db "SELECT replace(file_name, 'first/', 'tr/') || '|' || event_count FROM trace ORDER BY 1"; }
fails=0 tried=0
for delay in 0.02 0.05 0.1 0.15 0.2 0.3 0.45 0.6; do
  rm -f c.db c.db-wal c.db-shm
  $HTA_INGEST -q c.db first || exit 1          # an existing database: append mode
  $HTA_INGEST -q -j 2 c.db tr & pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  tried=$((tried + 1))
  if [ "$(sqlite3 c.db 'PRAGMA integrity_check')" != ok ]; then
    echo "FAIL at $delay s: integrity_check"; fails=$((fails + 1)); continue
  fi
  # every trace present has exactly its events, and the event table holds nothing else
  bad=$(sqlite3 c.db "SELECT file_name FROM trace t WHERE event_count != (SELECT count(*) FROM event
         WHERE event_id BETWEEN t.trace_id << 32 AND (t.trace_id << 32) | 0xffffffff)")
  orphans=$(sqlite3 c.db "SELECT count(*) FROM event WHERE trace_id NOT IN (SELECT trace_id FROM trace)")
  have=$(sqlite3 c.db "SELECT replace(file_name, 'first/', 'tr/') || '|' || event_count FROM trace ORDER BY 1")
  missing=$(printf '%s\n' "$have" | grep -vxF "$(ref)" || true)
  if [ -n "$bad" ] || [ "$orphans" != 0 ] || [ -n "$missing" ]; then
    echo "FAIL at $delay s: partial trace [$bad] orphans [$orphans] unknown [$missing]"; fails=$((fails + 1)); continue
  fi
  n=$(sqlite3 c.db 'SELECT count(*) FROM trace')
  # a rerun completes the rest
  $HTA_INGEST -q c.db tr
  if [ "$(sqlite3 c.db "SELECT replace(file_name, 'first/', 'tr/') || '|' || event_count FROM trace ORDER BY 1")" != "$(ref)" ]; then
    echo "FAIL at $delay s: the rerun did not complete the ingest"; fails=$((fails + 1)); continue
  fi
  echo "kill at $delay s: $n of 9 files committed, rerun completed"
done
echo "crash_kill: $tried kill points, $fails failures"
[ $fails = 0 ]

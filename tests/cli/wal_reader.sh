#!/bin/sh
# Readers may query while an ingest runs (DESIGN 7, README: WAL, one transaction per file).
# hta-ingest appends 7 generated traces to an existing database while readers query it:
#   W1 a read (one statement, or one BEGIN ... COMMIT) sees whole files only: every trace
#      present has exactly event_count events, and sum(event_count) = count(*) of
#      event (so no event lacks its trace);
#   W2 a read transaction keeps its snapshot while the writer commits: the same counts
#      before and after a pause inside one transaction;
#   W3 an analysis (hta_temporal_breakdown, through the extension) run during the ingest
#      reports exactly the ranks whose traces its own snapshot holds;
#   W4 readers are never refused (no "database is locked"), and the ingest ends with
#      every file present.
set -u
command -v python3 >/dev/null || { echo "python3 needed to generate traces"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${HTA_TMP:-/tmp}/wal.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
python3 "$top/tools/gen_trace.py" tr --ranks 8 --steps 6 --layers 8 -q || exit 1
mkdir -p first && mv tr/rank0.pt.trace.json first/
$HTA_INGEST -q w.db first || exit 1 # an existing database: the next run appends in WAL mode

# W1 + W2: a Python reader (standard library, no extension) loops until the ingest ends.
cat > reader.py <<'PY'
import os, sqlite3, sys, time
db = sqlite3.connect("w.db", timeout=10, isolation_level=None)
CHECK = """SELECT (SELECT count(*) FROM trace),
  (SELECT count(*) FROM trace t WHERE event_count != (SELECT count(*) FROM event
     WHERE event_id BETWEEN t.trace_id << 32 AND (t.trace_id << 32) | 0xffffffff)),
  (SELECT count(*) FROM event), (SELECT coalesce(sum(event_count), 0) FROM trace)"""
reads = pauses = 0
states = set()
bad = []
while True:
    done = os.path.exists("ingest.done")
    try:
        db.execute("BEGIN")
        a = db.execute(CHECK).fetchone()
        time.sleep(0.03)  # the writer may commit meanwhile
        b = db.execute(CHECK).fetchone()
        db.execute("COMMIT")
    except sqlite3.Error as e:
        bad.append("W4 read refused: %s" % e)
        break
    reads += 1
    states.add(a[0])
    for r in (a, b):
        if r[1] or r[2] != r[3]:  # more events than counted: some lack their trace
            bad.append("W1 %d traces: %d partial, %d events vs %d counted" % r)
    if a != b:
        bad.append("W2 snapshot moved inside a transaction: %r -> %r" % (a, b))
    else:
        pauses += 1
    if reads == 1:
        open("reader.ready", "w").close()
    if done:
        break
print("reader: %d reads, %d trace counts seen %s" % (reads, len(states), sorted(states)))
for m in bad[:10]:
    print("FAIL: " + m)
sys.exit(1 if bad else 0)
PY

# W3: the extension in the sqlite3 shell, one statement per snapshot.
analysis() {
  sqlite3 -cmd ".timeout 10000" -cmd ".load $HTA_EXT" w.db \
    "SELECT (SELECT group_concat(rank) FROM (SELECT DISTINCT rank FROM trace WHERE min_ts IS NOT NULL ORDER BY 1)),
            (SELECT group_concat(rank) FROM (SELECT DISTINCT rank FROM hta_temporal_breakdown ORDER BY 1))"
}

python3 reader.py > reader.txt 2>&1 & rpid=$!
i=0
while [ ! -e reader.ready ] && [ $i -lt 100 ] && kill -0 $rpid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
$HTA_INGEST -q -j 1 w.db tr 2> ingest.txt & ipid=$!
fails=0 n3=0
while kill -0 $ipid 2>/dev/null; do
  out=$(analysis 2>&1)
  n3=$((n3 + 1))
  case $out in
    *Error*|*error*|*locked*) echo "FAIL: W3/W4 analysis during the ingest: $out"; fails=$((fails + 1)) ;;
    *)
      a=${out%%|*} b=${out#*|}
      [ "$a" = "$b" ] || { echo "FAIL: W3 traces of ranks [$a], analysis ranks [$b]"; fails=$((fails + 1)); }
      ;;
  esac
done
wait $ipid; irc=$?
: > ingest.done
wait $rpid; rrc=$?
cat reader.txt
[ $irc = 0 ] || { echo "FAIL: the ingest exited $irc: $(cat ingest.txt)"; fails=$((fails + 1)); }
[ $rrc = 0 ] || fails=$((fails + 1))
[ "$(sqlite3 w.db 'SELECT count(*) FROM trace')" = 8 ] || { echo "FAIL: W4 not every file landed"; fails=$((fails + 1)); }
[ "$(sqlite3 w.db 'PRAGMA integrity_check')" = ok ] || { echo "FAIL: integrity_check"; fails=$((fails + 1)); }
echo "wal_reader: $n3 analyses during the ingest, $fails failures"
[ $fails = 0 ]

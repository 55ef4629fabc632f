#!/bin/sh
# A JSON file that is no Kineto trace (an execution trace beside the Kineto files, a common
# layout) is reported and skipped, and the run succeeds; --strict makes it a failure. A broken
# Kineto file still fails the run. env: HTA_INGEST.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${HTA_INGEST:=$top/hta-ingest}"
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir job
cp "$top/examples/traces/rank0.pt.trace.json.gz" job/
printf '{"schema": "1.0.1", "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|thread]"}]}\n' > job/et_rank0.json

$HTA_INGEST a.db job 2> err.txt; rc=$?
[ $rc = 0 ] || fail "exit $rc with an execution trace beside the Kineto file, expected 0"
grep -q "job/et_rank0.json: skipped: byte [0-9]*: not a Kineto trace: no traceEvents array (--strict makes this an error)" err.txt \
  || fail "no skip message: $(cat err.txt)"
grep -q "1 file ingested, 1 not a Kineto trace (skipped)" err.txt || fail "summary: $(tail -n 1 err.txt)"
[ "$(sqlite3 a.db 'SELECT count(*) FROM trace')" = 1 ] || fail "the Kineto file was not ingested"

$HTA_INGEST --strict b.db job 2> err.txt; rc=$?
[ $rc = 1 ] || fail "--strict: exit $rc, expected 1"
grep -q "1 failed" err.txt || fail "--strict summary: $(tail -n 1 err.txt)"

printf '{"traceEvents": [{"ph": "X", "ts": 1, "dur": ' > job/broken.json
$HTA_INGEST c.db job 2> err.txt; rc=$?
[ $rc = 1 ] || fail "a broken Kineto file: exit $rc, expected 1"
grep -q "job/broken.json: byte" err.txt || fail "broken file message: $(cat err.txt)"
# a .json.gz error's offset counts decompressed bytes, and says so
gzip -dc "$top/examples/traces/rank0.pt.trace.json.gz" | head -c 5000 | gzip > cut.json.gz
$HTA_INGEST d.db cut.json.gz 2> err.txt
grep -q "cut.json.gz: byte 5000: unexpected end of input (offset in the decompressed JSON)" err.txt \
  || fail "gzip offset: $(cat err.txt)"
[ $fails = 0 ] && echo "ok: foreign json"
[ $fails = 0 ]

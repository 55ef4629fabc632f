#!/bin/sh
# Graph capture traces (ingest/captures.h, schema.sql's capture table), checked against the
# small traces written below:
#  1. a job folder's capture_traces/ joins the job as captures; its execution_details.json
#     is the capture index (batch size, mode), never a trace; the summary says so
#  2. a capture is no window of its rank: no shared_rank issue, the analyses and
#     job_summary see one trace of rank 0, its ProfilerStep is not the job's
#  3. --captures DIR for a folder elsewhere: to --job NAME or to the one job of the PATHs;
#     with several jobs and no --job it is a usage error that writes nothing
#  4. a broken index: named with its byte offset, exit 1, the captures still land (without
#     batch size and mode); a listed file that is missing and an unlisted capture are named
#  5. a database of schema 3 is upgraded to 4 when appended to (capture created, the
#     job_summary view rebuilt)
#  6. HTA's Python API on the database (TraceAnalysis.from_database) sees the replay only
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
ING="${VG:-} $HTA_INGEST"
fails=0
check() { label=$1; shift; if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi; }
q() { sqlite3 "$@"; }

# The replay: one step, a graph launch (correlation 9) and the two kernels it ran, then one
# kernel launched on its own.
mkdir -p run/capture_traces elsewhere
cat > run/replay.json <<'J'
{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 1010, "dur": 5, "args": {"correlation": 9}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020, "dur": 30, "args": {"stream": 7, "correlation": 9}},
 {"ph": "X", "cat": "kernel", "name": "add", "pid": 0, "tid": 7, "ts": 1050, "dur": 10, "args": {"stream": 7, "correlation": 9}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1070, "dur": 5, "args": {"correlation": 10}},
 {"ph": "X", "cat": "kernel", "name": "tail", "pid": 0, "tid": 7, "ts": 1080, "dur": 10, "args": {"stream": 7, "correlation": 10}}]}
J
# The capture, recorded earlier: its own ProfilerStep, the operators and their launches.
cat > run/capture_traces/cap_bs8.json <<'J'
{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10, "dur": 90},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1, "tid": 1, "ts": 15, "dur": 1},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 20, "args": {"Input Dims": [[8, 16], [16, 16]]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 5, "args": {"correlation": 1, "kernel": "gemm"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 45, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 50, "dur": 5, "args": {"correlation": 2, "kernel": "add"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamEndCapture", "pid": 1, "tid": 1, "ts": 80, "dur": 1}]}
J
cat > run/capture_traces/execution_details.json <<'J'
[{"file": "cap_bs8.json", "batch_size": 8, "mode": "FULL", "note": "ignored"},
 {"file": "gone.json", "batch_size": 16, "mode": "PIECEWISE"}]
J

# 1, 2. The folder as one job.
$ING t.db run 2> err.txt; check "job folder: exit 0" [ $? = 0 ]
check "summary counts the capture" grep -q '^hta-ingest: 2 files ingested (1 graph capture); 1 rank, 14 events' err.txt
check "a listed file that is missing is named" grep -q 'execution_details.json: lists gone.json, which is not in its folder' err.txt
check "the index is no trace" [ "$(q t.db "SELECT count(*) FROM trace WHERE file_name LIKE '%execution_details%'")" = 0 ]
check "capture row from the index" [ "$(q t.db "SELECT t.file_name || '|' || c.batch_size || '|' || c.mode FROM capture c JOIN trace t USING (trace_id)")" = "run/capture_traces/cap_bs8.json|8|FULL" ]
check "capture in the replay's job" [ "$(q t.db "SELECT count(DISTINCT job_id) || ' ' || count(*) FROM trace")" = "1 2" ]
check "no shared_rank for a capture" [ "$(q t.db "SELECT count(*) FROM ingest_issue WHERE code = 'shared_rank'")" = 0 ]
check "job_summary: 1 rank, 2 files, 1 capture, the replay's step" [ "$(q t.db "SELECT ranks || ' ' || files || ' ' || captures || ' ' || steps FROM job_summary")" = "1 2 1 1" ]
# (the files are read in parallel: either may get trace_id 1)
rid=$(q t.db "SELECT trace_id FROM trace WHERE file_name = 'run/replay.json'")
check "analyses: one trace of rank 0" [ "$(q t.db -cmd ".load $HTA_EXT" "SELECT count(*) || ' ' || min(trace_id) FROM hta_temporal_breakdown")" = "1 $rid" ]
check "profiler steps: the replay's step 5 only" [ "$(q t.db -cmd ".load $HTA_EXT" "SELECT group_concat(DISTINCT step || '@' || trace_id) FROM hta_profiler_steps")" = "5@$rid" ]
# the job's time origin is the replay's (1000 µs), not the capture's (10 µs): the queue of
# the launch at 1070 µs starts at 70 µs
check "time origin: the replay's" [ "$(q t.db -cmd ".load $HTA_EXT" "SELECT min(ts_us) FROM hta_queue_length")" = 70.0 ]
$ING -q t.db run 2>/dev/null; check "again: exit 0 (already present)" [ $? = 0 ]
check "again: nothing added" [ "$(q t.db "SELECT count(*) FROM trace; SELECT count(*) FROM capture")" = "2
1" ]

# 3. --captures for a folder elsewhere
cp run/replay.json elsewhere/rank0.json
mkdir -p caps && cp run/capture_traces/cap_bs8.json caps/c.json
$ING -q t2.db elsewhere --captures caps; check "--captures: exit 0" [ $? = 0 ]
check "--captures: no index, no batch size" [ "$(q t2.db "SELECT j.name || '|' || coalesce(c.batch_size, '-') || '|' || coalesce(c.index_file, '-') FROM capture c JOIN trace t USING (trace_id) JOIN job j USING (job_id)")" = "elsewhere|-|-" ]
$ING -q t3.db --job later --captures caps; check "--captures alone with --job: exit 0" [ $? = 0 ]
check "--captures alone: the job holds the capture" [ "$(q t3.db "SELECT name FROM job; SELECT count(*) FROM capture")" = "later
1" ]
mkdir -p two/a two/b && cp run/replay.json two/a/r.json && cp run/replay.json two/b/r.json
$ING -q t4.db two --captures caps 2> err.txt; check "--captures, two jobs: exit 2" [ $? = 2 ]
check "--captures, two jobs: says why" grep -q 'whose captures? The PATHs name 2 jobs: give --job NAME' err.txt
check "--captures, two jobs: no database" [ ! -e t4.db ]

# 4. a broken index: the file and the byte offset; the captures land without it
mkdir -p bad/capture_traces && cp run/replay.json bad/ && cp run/capture_traces/cap_bs8.json bad/capture_traces/
printf '[{"file": "cap_bs8.json", "batch_size": "eight"}]' > bad/capture_traces/execution_details.json
$ING -q t5.db bad 2> err.txt; check "broken index: exit 1" [ $? = 1 ]
check "broken index: file, byte and what" grep -q 'bad/capture_traces/execution_details.json: byte 40: batch_size is not a non-negative integer' err.txt
check "broken index: the capture landed" [ "$(q t5.db "SELECT count(*) || ' ' || count(batch_size) FROM capture")" = "1 0" ]
printf '[]' > bad/capture_traces/execution_details.json
cp run/capture_traces/cap_bs8.json bad/capture_traces/extra.json
$ING t6.db bad 2> err.txt; check "unlisted capture: exit 0" [ $? = 0 ]
check "unlisted capture: named" grep -q 'extra.json: a capture the index .*execution_details.json does not list' err.txt

# 5. schema 3 (no capture table, the old job_summary) is upgraded when appended to
cp t2.db s3.db
q s3.db "DELETE FROM capture; DROP TABLE capture; DROP VIEW job_summary;
CREATE VIEW job_summary AS SELECT j.job_id, j.name AS job FROM job j;
UPDATE meta SET value = '3' WHERE key = 'schema_version'"
$ING s3.db run 2> err.txt; check "schema 3: append exit 0" [ $? = 0 ]
check "schema 3: said so" grep -q 'upgraded the database to schema 5' err.txt
check "schema 3: capture and the new job_summary" [ "$(q s3.db "SELECT captures FROM job_summary WHERE job = 'run'")" = 1 ]

# 6. HTA's Python API on such a database (from_database) sees the replay only
py=${HTA_PYTHON:-/usr/bin/python3}
if "$py" -c "import pandas, sqlite3; sqlite3.connect(':memory:').enable_load_extension" 2>/dev/null; then
  mkdir -p pkg && cp -R "$top/python/hta_sqlite" pkg/ && cp "$HTA_EXT" pkg/hta_sqlite/hta.so
  cp "$HTA_INGEST" pkg/hta_sqlite/hta-ingest && cp "$top/VERSION" pkg/hta_sqlite/VERSION
  got=$(PYTHONPATH=pkg HTA_SQLITE_CACHE="$work/cache" "$py" -c "
import sys
from hta_sqlite.trace_analysis import TraceAnalysis
a = TraceAnalysis.from_database(sys.argv[1])
print(len(a._src.files), a.get_profiler_steps())
" t.db 2>&1 | tail -n 1)
  check "Python API: the replay's file and step only (got: $got)" [ "$got" = "1 [5]" ]
fi

[ $fails = 0 ] && echo "captures: all checks passed"
[ $fails = 0 ]

#!/bin/sh
# Extreme but valid times never crash the ingest or the analyses (DESIGN 7: "No input
# crashes either binary"). Reproducer for signed overflow found by fuzz_sql and the corrupt
# input suite: it passes in the normal build (the overflow wraps) and fails under
# `make test-asan` (UBSan) until ts + dur, ts - min_ts and friends are computed without
# overflow.
#   E1 a trace whose ts and dur are each within int64 ns but whose ts + dur is not
#      (ts = dur = 9e15 us) is ingested or refused with a message; no sanitizer report.
#   E2 on a database holding such times (written by SQL, as a hostile or older database
#      could hold them), every hta_* table-valued function and hta_union_length answer
#      rows or an SQL error; no signal, no sanitizer report.
set -u
command -v python3 >/dev/null || { echo "python3 needed to generate traces"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
ING="${VG:-} $HTA_INGEST"
work=$(mktemp -d "${HTA_TMP:-/tmp}/extreme.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
fails=0 cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sanitizer() { grep -q -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY: [1-9]' "$1"; }
report() { grep -m 1 -e 'runtime error' -e 'Sanitizer' -e 'ERROR SUMMARY' "$1"; }

# Every hta_* module, then hta_union_length, on database DB: LABEL names the case.
analyses() { # analyses LABEL DB
  for m in $(sqlite3 "$2" -cmd ".load $HTA_EXT" "SELECT name FROM pragma_module_list WHERE name GLOB 'hta_*' ORDER BY 1"); do
    cases=$((cases + 1))
    sqlite3 "$2" -cmd ".load $HTA_EXT" "SELECT count(*) FROM $m" > out.txt 2> err.txt; rc=$?
    if [ $rc -gt 1 ] || sanitizer err.txt; then fail "$1: $m: exit $rc: $(report err.txt)"; fi
  done
  cases=$((cases + 1))
  sqlite3 "$2" -cmd ".load $HTA_EXT" "SELECT hta_union_length(ts, ts + dur) FROM event" > out.txt 2> err.txt; rc=$?
  if [ $rc -gt 1 ] || sanitizer err.txt; then fail "$1: hta_union_length: exit $rc: $(report err.txt)"; fi
}

# E1
cat > extreme.json <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": -9000000000000000, "dur": 9000000000000000},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 9000000000000000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": -9000000000000000, "dur": 2},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": -9000000000000000, "dur": 1, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 9000000000000000, "dur": 9000000000000000, "args": {"stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 1, "args": {"correlation": 2}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": -9000000000000000, "dur": 9000000000000000, "args": {"stream": 7, "correlation": 2, "bytes": 100}},
 {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 8, "ts": 9223372036854775, "dur": 1, "args": {"stream": 8}},
 {"ph": "B", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 2, "ts": -9223372036854775.808},
 {"ph": "E", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 2, "ts": 9223372036854775.807},
 {"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": -9223372036854775.808, "dur": 9000000000000000}
]}
J
cases=$((cases + 1))
$ING -q x.db extreme.json 2> err.txt; rc=$?
if sanitizer err.txt; then
  fail "E1 hta-ingest: $(report err.txt)"
elif [ $rc != 0 ] && [ $rc != 1 ]; then
  fail "E1 hta-ingest: exit $rc: $(cat err.txt)"
elif [ $rc = 0 ]; then
  analyses E1 x.db
fi

# E2
python3 "$top/tools/gen_trace.py" gen --ranks 2 --steps 3 --layers 1 -q || exit 1
$HTA_INGEST -q y.db gen || { echo "the generated trace did not ingest"; exit 1; }
sqlite3 y.db "UPDATE event SET dur = 9000000000000000000 WHERE event_id % 7 = 0;
  UPDATE event SET ts = -9000000000000000000 WHERE event_id % 11 = 0;
  UPDATE profiler_step SET dur = 9000000000000000000 WHERE step % 2 = 0;
  UPDATE trace SET min_ts = -9000000000000000000, max_end = 9000000000000000000"
analyses E2 y.db

echo "extreme_times: $cases cases, $fails failures"
[ $fails = 0 ]

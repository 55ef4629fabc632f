#!/bin/sh
# The trace writers of the io entry point (ext/io/io_counters.c WC-n, ext/io/io_overlay.c OV-n,
# ext/io/io_rewrite.c IO-n, ext/io/trace_writer.h TW-n) and hta-ingest --write-counters, on small
# hand-made traces with hand-computed answers: the exact bytes written, gzip vs plain,
# re-ingest of the output, the refusals (input file, hash, size), atomicity.
# cwd is a scratch directory; HTA_INGEST and HTA_EXT are the binaries under test.
set -u
fails=0
VG=${VG:-}
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
ING="$VG $HTA_INGEST"
# vgrun CMD...: runs CMD, prints its stdout and stderr without valgrind's own lines; a
# valgrind error (exit 99 under HTA_VALGRIND=1) is recorded in vg_errors and fails the test.
vgrun() {
  "$@" > vg.out 2>&1
  [ $? = 99 ] && [ -n "$VG" ] && echo "$*" >> vg_errors
  grep -v '^==[0-9]*==' vg.out
}
has() { echo "$2" | grep -q -- "$1" || { echo "  got: $2"; return 1; }; } # has PATTERN TEXT
# io DB SQL...: the io entry point on DB; stdout and stderr together
io() { db=$1; shift; vgrun $VG sqlite3 "$db" -cmd ".load $HTA_EXT sqlite3_hta_io_init" "$@"; }
no_tmp() { [ -z "$(ls -a "${1:-.}" | grep '\.tmp-')" ]; }
rm -rf io_w && mkdir io_w && cd io_w || exit 1

# ---------------------------------------------------------------- fixture
# Rank 0, no ProfilerStep (no cut). Stream 7: gemm (launched 1100.5, starts 1200.125),
# HtoD copy (1150 -> 1260, 1.5 GB/s, 4 us), DtoH copy (1180 -> 1400, 2.25 GB/s, dur 0
# which lasts 1 us). Stream 8, pid "gpu0": relu (1170.001 -> 1300.001).
cat > c0.json <<'J'
{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 1000, "dur": 500,
   "args": {"x": 1E+3, "y": -0.0, "z": 1.50, "u": "\u00e9\u0001\/\"", "l": [true, false, null, {}, []]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1100.5, "dur": 20.25, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1200.125, "dur": 50, "args": {"stream": 7, "correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 10, "tid": 11, "ts": 1150, "dur": 10, "args": {"correlation": 8}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1260, "dur": 4,
   "args": {"stream": 7, "correlation": 8, "bytes": 6000, "memory bandwidth (GB/s)": 1.5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1170.001, "dur": 5, "args": {"correlation": 9}},
  {"ph": "X", "cat": "kernel", "name": "relu", "pid": "gpu0", "tid": 8, "ts": 1300.001, "dur": 3, "args": {"stream": 8, "correlation": 9}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 10, "tid": 11, "ts": 1180, "dur": 2, "args": {"correlation": 10}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 1400, "dur": 0,
   "args": {"stream": 7, "correlation": 10, "memory bandwidth (GB/s)": 2.25}},
  {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "main\tthread"}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "mark", "pid": 10, "tid": 11, "ts": 1450, "s": "t"},
  42
 ],
 "displayTimeUnit": "ms"}
J
# TW-1: the original minified, values exact; WC-1/WC-2: the 8 queue points (stream 7 then
# 8) and the 4 bandwidth points (Memcpy DtoH then Memcpy HtoD) appended.
copy='{"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":0,"world_size":1},"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":11,"ts":1000,"dur":500,"args":{"x":1E+3,"y":-0.0,"z":1.50,"u":"é\u0001/\"","l":[true,false,null,{},[]]}},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":1100.5,"dur":20.25,"args":{"correlation":7}},{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1200.125,"dur":50,"args":{"stream":7,"correlation":7}},{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":10,"tid":11,"ts":1150,"dur":10,"args":{"correlation":8}},{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":1260,"dur":4,"args":{"stream":7,"correlation":8,"bytes":6000,"memory bandwidth (GB/s)":1.5}},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":1170.001,"dur":5,"args":{"correlation":9}},{"ph":"X","cat":"kernel","name":"relu","pid":"gpu0","tid":8,"ts":1300.001,"dur":3,"args":{"stream":8,"correlation":9}},{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":10,"tid":11,"ts":1180,"dur":2,"args":{"correlation":10}},{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,"ts":1400,"dur":0,"args":{"stream":7,"correlation":10,"memory bandwidth (GB/s)":2.25}},{"ph":"M","name":"thread_name","pid":10,"tid":11,"args":{"name":"main\tthread"}},{"ph":"i","cat":"cpu_instant_event","name":"mark","pid":10,"tid":11,"ts":1450,"s":"t"},42'
q='{"ph":"C","name":"Queue Length","pid":'
counters=",${q}0,\"ts\":1100.5,\"id\":7,\"args\":{\"Queue Length\":1}},${q}0,\"ts\":1150,\"id\":7,\"args\":{\"Queue Length\":2}},${q}0,\"ts\":1180,\"id\":7,\"args\":{\"Queue Length\":3}},${q}0,\"ts\":1200.125,\"id\":7,\"args\":{\"Queue Length\":2}},${q}0,\"ts\":1260,\"id\":7,\"args\":{\"Queue Length\":1}},${q}0,\"ts\":1400,\"id\":7,\"args\":{\"Queue Length\":0}},${q}\"gpu0\",\"ts\":1170.001,\"id\":8,\"args\":{\"Queue Length\":1}},${q}\"gpu0\",\"ts\":1300.001,\"id\":8,\"args\":{\"Queue Length\":0}}"
counters="$counters"',{"ph":"C","name":"Memcpy DtoH","pid":0,"ts":1400,"args":{"Memcpy BW":2.25}},{"ph":"C","name":"Memcpy DtoH","pid":0,"ts":1401,"args":{"Memcpy BW":0}},{"ph":"C","name":"Memcpy HtoD","pid":0,"ts":1260,"args":{"Memcpy BW":1.5}},{"ph":"C","name":"Memcpy HtoD","pid":0,"ts":1264,"args":{"Memcpy BW":0}}'
printf '%s%s]%s' "$copy" "$counters" ',"displayTimeUnit":"ms"}' > expected_c0.json

$ING -q c.db c0.json; check "fixture ingests" [ $? = 0 ]
abs=$(pwd)/c0.json
check "file_path recorded" [ "$(sqlite3 c.db 'SELECT file_path FROM trace')" = "$abs" ]

# 1. plain output: exact bytes (TW-1, WC-1, WC-2), the count returned
check "returns 12 counters" [ "$(io c.db "SELECT hta_write_trace_with_counters(0, 'out.json')")" = 12 ]
check "plain exact bytes" cmp -s out.json expected_c0.json
check "plain is not gzip" [ "$(head -c 2 out.json | od -An -tx1 | tr -d ' ')" = 7b22 ]
check "valid JSON (SQLite)" [ "$(sqlite3 :memory: "SELECT json_valid(readfile('out.json')) AND json_type(readfile('out.json'), '\$.traceEvents') = 'array'")" = 1 ]
check "no temp file left" no_tmp

# 2. gzip output by name (IO-4), same content
check "gz returns 12" [ "$(io c.db "SELECT hta_write_trace_with_counters(0, 'out.json.gz')")" = 12 ]
check "gz magic" [ "$(head -c 2 out.json.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]
check "gz content = plain" sh -c 'gzip -dc out.json.gz | cmp -s - expected_c0.json'
check "gz integrity" gzip -t out.json.gz

# 3. re-ingest (WC-4): the counter table holds the series; the events are unchanged
$ING -q r.db out.json.gz; check "re-ingest exit 0" [ $? = 0 ]
check "counter rows" [ "$(sqlite3 r.db 'SELECT count(*) FROM counter')" = 12 ]
check "counter rows exact" [ "$(sqlite3 r.db "SELECT group_concat(s.value || '/' || c.pid || '/' || c.ts || '/' || c.series || '/' || c.value, ' ') FROM (SELECT * FROM counter ORDER BY counter_id) c JOIN string s ON s.string_id = c.name_id")" = \
  "Queue Length/0/1100500/Queue Length/1.0 Queue Length/0/1150000/Queue Length/2.0 Queue Length/0/1180000/Queue Length/3.0 Queue Length/0/1200125/Queue Length/2.0 Queue Length/0/1260000/Queue Length/1.0 Queue Length/0/1400000/Queue Length/0.0 Queue Length/gpu0/1170001/Queue Length/1.0 Queue Length/gpu0/1300001/Queue Length/0.0 Memcpy DtoH/0/1400000/Memcpy BW/2.25 Memcpy DtoH/0/1401000/Memcpy BW/0.0 Memcpy HtoD/0/1260000/Memcpy BW/1.5 Memcpy HtoD/0/1264000/Memcpy BW/0.0" ]
# the counters are the series of the original database (ts_us relative to the job's 1000 us)
check "counters = hta_queue_length" [ "$(io r.db "ATTACH 'c.db' AS o" "SELECT count(*) FROM (SELECT ts_us * 1000 + 1000000 AS ts, queue_length AS v FROM o.hta_queue_length EXCEPT SELECT c.ts, c.value FROM counter c WHERE c.series = 'Queue Length')" | tail -n 1)" = 0 ]
check "counters = hta_memory_bw" [ "$(io r.db "ATTACH 'c.db' AS o" "SELECT count(*) FROM (SELECT ts_us * 1000 + 1000000 AS ts, memory_bw_gbps AS v FROM o.hta_memory_bw EXCEPT SELECT c.ts, c.value FROM counter c WHERE c.series = 'Memcpy BW')" | tail -n 1)" = 0 ]
check "events unchanged" [ "$(sqlite3 r.db 'SELECT count(*), sum(ts), sum(dur), group_concat(args) FROM events')" = "$(sqlite3 c.db 'SELECT count(*), sum(ts), sum(dur), group_concat(args) FROM events')" ]
check "analyses unchanged" [ "$(io r.db 'SELECT count(*), sum(queue_length) FROM hta_queue_length')" = "$(io c.db 'SELECT count(*), sum(queue_length) FROM hta_queue_length')" ]

# 4. CLI: hta-ingest --write-counters RANK OUT DB
$ING --write-counters 0 cli.json c.db 2> err.txt; check "cli exit 0" [ $? = 0 ]
check "cli same bytes" cmp -s cli.json expected_c0.json
check "cli says how many" grep -q "cli.json: 12 counter events written" err.txt
$ING -q --write-counters 5 cli5.json c.db 2> err.txt; check "cli no rank exit 1" [ $? = 1 ]
check "cli error names OUT" grep -q "^hta-ingest: cli5.json: no trace with rank 5$" err.txt
check "cli wrote nothing" [ ! -e cli5.json ]
$ING --write-counters 0 c0.json c.db 2> err.txt; check "cli refuses input exit 1" [ $? = 1 ]
check "cli refusal message" grep -q "^hta-ingest: c0.json: refusing to overwrite the input trace file of trace_id" err.txt
$ING --write-counters 0 x.json missing.db 2> err.txt; check "cli no database exit 2" [ $? = 2 ]
$ING --write-counters 0 > /dev/null 2>&1; check "cli missing args exit 2" [ $? = 2 ]
$ING --write-counters x y.json c.db > /dev/null 2>&1; check "cli bad rank exit 2" [ $? = 2 ]
$ING --write-counters 0 y.json c.db c0.json > /dev/null 2>&1; check "cli with PATH exit 2" [ $? = 2 ]
check "cli opened read-only" sh -c '[ ! -e c.db-wal ] && [ ! -e c.db-journal ]'

# 5. refusals (IO-3): the input itself, by another name, a symlink, a hard link
cp c0.json c0.keep
for p in c0.json ./c0.json "$abs" ../io_w/c0.json; do
  check "refuse $p" has "refusing to overwrite the input trace file of trace_id 1 ($abs)" \
    "$(io c.db "SELECT hta_write_trace_with_counters(0, '$p')")"
done
ln -s c0.json sym.json; ln c0.json hard.json
check "refuse symlink" has 'refusing to overwrite' "$(io c.db "SELECT hta_write_trace_with_counters(0, 'sym.json')")"
check "refuse hard link" has 'refusing to overwrite' "$(io c.db "SELECT hta_write_trace_with_counters(0, 'hard.json')")"
check "overlay refuses too" has 'refusing to overwrite' "$(io c.db "SELECT hta_write_sequence_overlay(0, 'aten', 'c0.json')")"
check "input untouched" cmp -s c0.json c0.keep
check "no temp after refusals" no_tmp
# another trace's input is refused as well; other existing files are replaced
mkdir other && sed 's/"rank": 0/"rank": 1/' c0.json > other/c1.json
$ING -q c.db other/c1.json
check "refuse another trace's input" has 'refusing to overwrite the input trace file of trace_id 2' "$(io c.db "SELECT hta_write_trace_with_counters(0, 'other/c1.json')")"
echo old > replaced.json
check "existing file replaced" [ "$(io c.db "SELECT hta_write_trace_with_counters(0, 'replaced.json')")" = 12 ]
check "replaced content" cmp -s replaced.json expected_c0.json

# 6. errors (IO-1, IO-5): argument checks, rank, trace_id, several traces per rank
r=$(io c.db "SELECT hta_write_trace_with_counters(7, 'n.json')")
check "no such rank" [ "$r" = "Error: stepping, hta_write_trace_with_counters: n.json: no trace with rank 7" ] || echo "  got: $r"
check "rank must be an integer" has 'hta_write_trace_with_counters: rank must be an integer' "$(io c.db "SELECT hta_write_trace_with_counters('x', 'n.json')")"
check "NULL rank needs trace_id" has 'rank must be an integer' "$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'n.json')")"
check "path must be a string" has 'path must be a non-empty string' "$(io c.db "SELECT hta_write_trace_with_counters(0, NULL)")"
check "trace_id pick" [ "$(io c.db "SELECT hta_write_trace_with_counters(NULL, 't2.json', 2)")" = 12 ]
check "trace_id rank mismatch" has 'trace_id 2 has rank 1, not 0' "$(io c.db "SELECT hta_write_trace_with_counters(0, 'n.json', 2)")"
check "no such trace_id" has 'no trace with trace_id 9' "$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'n.json', 9)")"
sed 's/"ts": 1450/"ts": 1451/' c0.json > c0b.json
$ING -q c.db c0b.json
r=$(io c.db "SELECT hta_write_trace_with_counters(0, 'n.json')")
check "two traces for a rank" [ "$r" = "Error: stepping, hta_write_trace_with_counters: n.json: rank 0 has 2 traces (trace_id 1, 3): give the trace_id too" ] || echo "  got: $r"
check "pick one of them" [ "$(io c.db "SELECT hta_write_trace_with_counters(0, 'n3.json', 3)")" = 12 ]
check "picked the right file" grep -q '"ts":1451' n3.json
check "no file on errors" [ ! -e n.json ]

# 7. the input changed (IO-2): same size different bytes, other size, missing; no temp left,
#    an existing output stays as it was
cp expected_c0.json keep.json
cp c0.json c0.orig
sed 's/"ts": 1450/"ts": 1459/' c0.orig > c0.json
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'keep.json', 1)")
check "hash mismatch" has "keep.json: input $abs changed since it was ingested (content hash [0-9a-f]*-1791, ingested [0-9a-f]*-1791)" "$r"
check "output kept on hash error" cmp -s keep.json expected_c0.json
check "no temp after hash error" no_tmp
echo ' ' >> c0.json
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'keep.json', 1)")
check "size mismatch" has 'changed since it was ingested ([0-9]* bytes, ingested [0-9]*)' "$r"
rm c0.json
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'keep.json', 1)")
check "missing input" [ "$r" = "Error: stepping, hta_write_trace_with_counters: keep.json: input $abs: No such file or directory" ] || echo "  got: $r"
$ING -q --write-counters 1 keep.json c.db 2>/dev/null; check "cli: other rank still fine" [ $? = 0 ]
mv c0.orig c0.json
check "restored input works" [ "$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'keep.json', 1)")" = 12 ]
mkdir adir
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'adir', 1)")
check "output is a directory" has 'adir: cannot rename the output into place: Is a directory' "$r"
check "no temp in dir error" no_tmp
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'adir/', 1)")
check "output ends in /" has 'the output path names a directory' "$r"
r=$(io c.db "SELECT hta_write_trace_with_counters(NULL, 'nodir/x.json', 1)")
check "output dir missing" has 'nodir/x.json: cannot create the output: No such file or directory' "$r"
check "no temp at all" no_tmp

# 8. bare-array layout stays an array; a trace without GPU work gets no counter (WC-3)
cat > arr_rank4.json <<'J'
[{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 2},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 6, "dur": 1, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 9.5, "dur": 1, "args": {"stream": 7, "correlation": 1}}]
J
printf '[{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]' > cpu_rank5.json
$ING -q a.db arr_rank4.json cpu_rank5.json
check "array: 2 counters" [ "$(io a.db "SELECT hta_write_trace_with_counters(4, 'arr_out.json')")" = 2 ]
check "array output exact" [ "$(cat arr_out.json)" = '[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":5,"dur":2},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":9.5,"dur":1,"args":{"stream":7,"correlation":1}},{"ph":"C","name":"Queue Length","pid":0,"ts":6,"id":7,"args":{"Queue Length":1}},{"ph":"C","name":"Queue Length","pid":0,"ts":9.5,"id":7,"args":{"Queue Length":0}}]' ]
check "cpu only: 0 counters" [ "$(io a.db "SELECT hta_write_trace_with_counters(5, 'cpu_out.json.gz')")" = 0 ]
check "cpu only: a copy" [ "$(gzip -dc cpu_out.json.gz)" = '[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":5,"dur":2}]' ]
$ING -q a2.db arr_out.json; check "array output re-ingests" [ "$(sqlite3 a2.db 'SELECT count(*) FROM counter')" = 2 ]

# ---------------------------------------------------------------- overlay (OV-n)
# Three aten::linear roots: two with kernels k1 k2 k3, one with k1 k2 k4 (7 rows each:
# root + 3 launches + 3 kernels); aten::relu has one kernel (too few: not a root).
# Root 1 has args with an old Patterns member, root 2 no args, a launch of root 3 args null.
cat > s0.json <<'J'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 1000, "dur": 20, "args": {"Patterns": "old", "x": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1001, "dur": 1, "args": {"correlation": 101}},
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1101, "dur": 2, "args": {"stream": 7, "correlation": 101}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1003, "dur": 1, "args": {"correlation": 102}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 1103, "dur": 2, "args": {"stream": 7, "correlation": 102}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1005, "dur": 1, "args": {"correlation": 103}},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 1105, "dur": 2, "args": {"stream": 7, "correlation": 103}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 2000, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2001, "dur": 1, "args": {"correlation": 104}},
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 2101, "dur": 2, "args": {"stream": 7, "correlation": 104}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2003, "dur": 1, "args": {"correlation": 105}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 2103, "dur": 2, "args": {"stream": 7, "correlation": 105}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2005, "dur": 1, "args": {"correlation": 106}},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 2105, "dur": 2, "args": {"stream": 7, "correlation": 106}},
 {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 3000, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3001, "dur": 1, "args": null},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3003, "dur": 1, "args": {"correlation": 108}},
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 3103, "dur": 2, "args": {"stream": 7, "correlation": 108}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3005, "dur": 1, "args": {"correlation": 109}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 3105, "dur": 2, "args": {"stream": 7, "correlation": 109}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3007, "dur": 1, "args": {"correlation": 110}},
 {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts": 3107, "dur": 2, "args": {"stream": 7, "correlation": 110}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 4000, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4001, "dur": 1, "args": {"correlation": 111}},
 {"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts": 4101, "dur": 2, "args": {"stream": 7, "correlation": 111}}
]}
J
# root 3's first launch has no correlation and no kernel: it is a stack row all the same,
# so root 3 has 4 host rows + 3 kernels = 8 rows; k1 k2 k4 are its kernels.
$ING -q s.db s0.json; check "overlay fixture ingests" [ $? = 0 ]
check "the patterns" [ "$(io s.db "SELECT group_concat(pattern || '=' || count, ' ') FROM hta_frequent_kernel_sequences('aten::linear')")" = "aten::linear|k1|k2|k3=2 aten::linear|k1|k2|k4=1" ]
check "marks 22 events (OV-1)" [ "$(io s.db "SELECT hta_write_sequence_overlay(0, 'aten::linear', 'ov.json.gz')")" = 22 ]
check "overlay gz" [ "$(head -c 2 ov.json.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]
check "top_k 1 marks 14" [ "$(io s.db "SELECT hta_write_sequence_overlay(0, 'aten::linear', 'ov1.json', 1)")" = 14 ]
check "top_k 0 marks 0" [ "$(io s.db "SELECT hta_write_sequence_overlay(0, 'aten::linear', 'ov0.json', 0)")" = 0 ]
check "no match marks 0" [ "$(io s.db "SELECT hta_write_sequence_overlay(0, 'nothing', 'ovn.json')")" = 0 ]
check "empty operator marks 0" [ "$(io s.db "SELECT hta_write_sequence_overlay(0, '', 'ove.json')")" = 0 ]
check "unmarked copy = minified original" [ "$(cat ov0.json)" = "$(cat ovn.json)" ]
check "operator_name NULL" has 'hta_write_sequence_overlay: operator_name must be a string' "$(io s.db "SELECT hta_write_sequence_overlay(0, NULL, 'x.json')")"
check "top_k negative" has 'hta_write_sequence_overlay: top_k must be a non-negative integer' "$(io s.db "SELECT hta_write_sequence_overlay(0, 'a', 'x.json', -1)")"
check "overlay trace_id arg" [ "$(io s.db "SELECT hta_write_sequence_overlay(NULL, 'aten::linear', 'ovt.json', 5, 1)")" = 22 ]
# OV-2 on the re-ingested overlay
$ING -q o.db ov.json.gz; check "overlay re-ingests" [ $? = 0 ]
P='$.Patterns."aten::linear|k1|k2|k3"'; P4='$.Patterns."aten::linear|k1|k2|k4"'
check "14 events in pattern 1 (count 2)" [ "$(sqlite3 o.db "SELECT count(*) FROM event WHERE json_extract(args, '$P') = 2")" = 14 ]
check "8 events in pattern 2 (count 1)" [ "$(sqlite3 o.db "SELECT count(*) FROM event WHERE json_extract(args, '$P4') = 1")" = 8 ]
check "relu stack unmarked" [ "$(sqlite3 o.db "SELECT count(*) FROM event WHERE seq >= 23 AND args LIKE '%Patterns%'")" = 0 ]
check "metadata event unmarked" [ "$(sqlite3 o.db "SELECT count(*) FROM event WHERE args LIKE '%Patterns%'")" = 22 ]
check "old Patterns replaced, other args kept" [ "$(sqlite3 o.db "SELECT args FROM event WHERE seq = 0")" = '{"x":1,"Patterns":{"aten::linear|k1|k2|k3":2}}' ]
check "args created" [ "$(sqlite3 o.db "SELECT args FROM event WHERE seq = 7")" = '{"Patterns":{"aten::linear|k1|k2|k3":2}}' ]
check "args null replaced" [ "$(sqlite3 o.db "SELECT args FROM event WHERE seq = 16")" = '{"Patterns":{"aten::linear|k1|k2|k4":1}}' ]
check "kernel keeps its args" [ "$(sqlite3 o.db "SELECT args FROM event WHERE seq = 2")" = '{"Patterns":{"aten::linear|k1|k2|k3":2}}' ]
check "kernel keeps stream/correlation" [ "$(sqlite3 o.db "SELECT stream, correlation FROM event WHERE seq = 2")" = "7|101" ]
check "same events otherwise" [ "$(sqlite3 o.db 'SELECT count(*), sum(ts), sum(dur), sum(stream), sum(correlation) FROM event')" = "$(sqlite3 s.db 'SELECT count(*), sum(ts), sum(dur), sum(stream), sum(correlation) FROM event')" ]
check "top_k 1: only pattern 1" [ "$(io s.db "SELECT count(*) FROM hta_trace_events('ov1.json') WHERE args LIKE '%k4\":%'")" = 0 ]
# the analysis walks the stacks through the parent_id index when there is one: same marks
cp s.db si.db; sqlite3 si.db 'CREATE INDEX event_parent ON event(parent_id)'
check "index walk marks 22" [ "$(io si.db "SELECT hta_write_sequence_overlay(0, 'aten::linear', 'ovi.json.gz')")" = 22 ]
check "index walk same file" [ "$(gzip -dc ovi.json.gz)" = "$(gzip -dc ov.json.gz)" ]

check "no temp files at the end" no_tmp
[ -s vg_errors ] && { echo "FAIL: valgrind errors in:"; cat vg_errors; fails=$((fails + 1)); }
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
exit 0

#!/bin/sh
# hta-ingest as a user meets it: exit codes, messages (file and byte offset),
# one transaction per file, idempotence, --replace, directories, usage errors.
# cwd is a scratch directory; HTA_INGEST is the binary under test.
set -u
fails=0
ING="${VG:-} $HTA_INGEST"
check() { # check LABEL CONDITION...
  label=$1; shift
  if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi
}
q() { sqlite3 "$@"; }

mkdir -p good bad mixed
cat > good/rank0.json <<'J'
{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#3", "pid": 10, "tid": 11, "ts": 1000, "dur": 500},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1100.5, "dur": 20.25, "args": {"correlation": 7, "External id": 3}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1200.125, "dur": 50, "args": {"stream": 7, "correlation": 7, "device": 0, "grid": [1, 2, 3]}},
  {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "args": {"name": "python"}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "mark", "pid": 10, "tid": 11, "ts": 1300, "s": "t"}
 ]}
J
# rank 1 comes from the file name: no distributedInfo
cat > good/worker1.json <<'J'
[{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]
J
gzip -c good/rank0.json > mixed/a_rank0.json.gz
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 1},\n{"ph": "X", "ts": "oops"' > mixed/b_rank1.json
cp good/worker1.json mixed/c_worker2.json
echo "not a trace" > mixed/notes.txt

# 1. a good directory: exit 0, both files, ranks from distributedInfo and file name
$ING -q g.db good; rc=$?
check "good exit 0" [ $rc = 0 ]
check "two traces" [ "$(q g.db 'SELECT group_concat(rank || rank_source, ",") FROM (SELECT * FROM trace ORDER BY rank)')" = "0distributedInfo,1file_name" ]
check "ns exact" [ "$(q g.db "SELECT ts, dur FROM events WHERE name = 'cudaLaunchKernel'")" = "1100500|20250" ]
check "link both ways" [ "$(q g.db "SELECT count(*) FROM event a JOIN event b ON a.link_id = b.event_id AND b.link_id = a.event_id")" = 2 ]
check "kernel stream, iteration, parent" [ "$(q g.db "SELECT stream, iteration, (SELECT name FROM events p WHERE p.event_id = k.parent_id) FROM events k WHERE name = 'gemm'")" = "7|3|cudaLaunchKernel" ]
check "args keep unpromoted" [ "$(q g.db "SELECT args FROM events WHERE name = 'gemm'")" = '{"grid":[1,2,3]}' ]
check "thread name" [ "$(q g.db "SELECT thread_name FROM thread WHERE pid = 10 AND tid = 11")" = python ]
check "no temp file left" [ -z "$(ls | grep 'g.db.tmp')" ]
check "integrity" [ "$(q g.db 'PRAGMA integrity_check')" = ok ]

# 2. the same files again: nothing added, exit 0; --replace re-ingests
$ING -q g.db good; rc=$?
check "rerun exit 0" [ $rc = 0 ]
check "rerun adds nothing" [ "$(q g.db 'SELECT count(*) FROM trace')" = 2 ]
n0=$(q g.db 'SELECT count(*) FROM event')
$ING -q --replace g.db good/rank0.json; rc=$?
check "replace exit 0" [ $rc = 0 ]
check "replace keeps counts" [ "$(q g.db 'SELECT count(*) FROM event')" = "$n0" ]
check "replace: still 2 traces" [ "$(q g.db 'SELECT count(*) FROM trace')" = 2 ]

# 3. a bad file among good ones: exit 1, message with file and byte offset, the others land
$ING m.db mixed 2> err.txt; rc=$?
check "mixed exit 1" [ $rc = 1 ]
check "message names file and offset" grep -q "^hta-ingest: mixed/b_rank1.json: byte [0-9][0-9]*: " err.txt
check "non-json reported" grep -q "mixed/notes.txt: skipped" err.txt
check "good files landed" [ "$(q m.db 'SELECT group_concat(file_name, ",") FROM (SELECT file_name FROM trace ORDER BY 1)')" = "mixed/a_rank0.json.gz,mixed/c_worker2.json" ]
check "bad file rolled back" [ "$(q m.db "SELECT count(*) FROM event WHERE rank = 1")" = 0 ]
check "failure recorded" [ "$(q m.db "SELECT count(*) FROM ingest_issue WHERE code = 'file_failed' AND example = 'mixed/b_rank1.json'")" = 1 ]
check "integrity after failure" [ "$(q m.db 'PRAGMA integrity_check')" = ok ]

# 4. appending to an existing database (WAL) keeps what was there
sed 's/"ts": 5/"ts": 6/' good/worker1.json > worker2.json
$ING -q m.db worker2.json; rc=$?
check "append exit 0" [ $rc = 0 ]
check "append adds a trace" [ "$(q m.db 'SELECT count(*) FROM trace')" = 3 ]
check "append: its own job" [ "$(q m.db "SELECT j.name = '$(basename "$PWD")' FROM trace t JOIN job j USING (job_id) WHERE file_name = 'worker2.json'")" = 1 ]
# worker2.json joined the job of its directory (this scratch directory), not mixed's:
# another job's rank 2 is no shared rank; the same rank in the same job (--job) is
check "other job: no shared rank" [ "$(q m.db "SELECT count(*) FROM ingest_issue WHERE code = 'shared_rank'")" = 0 ]
sed 's/"ts": 5/"ts": 7/' good/worker1.json > worker2b.json
$ING --job mixed m.db worker2b.json 2> err.txt
check "shared rank noted" [ "$(q m.db "SELECT count(*) FROM ingest_issue i JOIN trace t USING (trace_id) JOIN job j USING (job_id) WHERE i.code = 'shared_rank' AND j.name = 'mixed' AND t.file_name = 'worker2b.json'")" = 1 ]
# ... and said on the terminal, naming both files (issues_print.h); -q keeps quiet
check "shared rank printed" grep -q '^hta-ingest: warning: worker2b.json: rank 2 is also the rank of mixed/c_worker2.json (job "mixed")' err.txt
sed 's/"ts": 5/"ts": 8/' good/worker1.json > worker2c.json
$ING -q --job mixed m.db worker2c.json 2> err.txt
check "shared rank: -q prints nothing" [ ! -s err.txt ]
$ING --job mixed m.db worker2b.json 2> err.txt
check "shared rank: not repeated for a file already present" [ "$(grep -c warning err.txt)" = 0 ]

# 5. usage and environment errors
$ING >/dev/null 2>&1; check "no args exit 2" [ $? = 2 ]
$ING --bogus x.db good >/dev/null 2>err.txt; check "bad option exit 2" [ $? = 2 ]
check "bad option named" grep -q "Incorrect parameter: --bogus" err.txt
$ING -j 0 x.db good >/dev/null 2>&1; check "-j 0 exit 2" [ $? = 2 ]
$ING --help > out.txt; check "help exit 0" [ $? = 0 ]
check "help on stdout" grep -q "^Usage: hta-ingest" out.txt
$ING --version > out.txt; check "version" grep -q "^hta-ingest v[0-9]" out.txt
$ING -q n.db does-not-exist 2>err.txt; check "missing path exit 1" [ $? = 1 ]
check "missing path named" grep -q "does-not-exist: No such file" err.txt
echo "garbage" > notadb.db
$ING -q notadb.db good 2>err.txt; check "foreign db exit 2" [ $? = 2 ]
check "foreign db untouched" [ "$(cat notadb.db)" = garbage ]

# 7. an end (ts + dur) beyond int64 ns is refused with its byte offset
printf '{"traceEvents": [{"ph": "X", "cat": "c", "name": "a", "pid": 1, "tid": 1, "ts": 9000000000000000, "dur": 9000000000000000}]}' > over.json
$ING -q o.db over.json 2>err.txt; check "ts+dur overflow exit 1" [ $? = 1 ]
check "ts+dur overflow message" grep -q 'over.json: byte [0-9]*: number out of range ("ts" + "dur")' err.txt

# 6. summary line (the M event goes to thread, not event: 4 + 1 events)
$ING s.db good 2>err.txt
check "summary" grep -q "^hta-ingest: 2 files ingested; 2 ranks, 5 events, .* MB/s of input$" err.txt

# 8. flows are written while the file is scanned (the writer is free and no trace has the
#    file's size): ids in file order, all gone when the file fails or is a duplicate
cat > fl.json <<'J'
{"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 10},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"stream": 7, "correlation": 1}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 20, "bp": "e"},
  {"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": "x9", "pid": 1, "tid": 1, "ts": 12}
]}
J
$ING -q f.db fl.json; check "flows exit 0" [ $? = 0 ]
check "flows in order" [ "$(q f.db "SELECT group_concat(ph || (flow_id - (trace_id << 32)) || ':' || seq, ' ') FROM (SELECT * FROM flow ORDER BY flow_id)")" = "s0:1 f1:3 s2:4" ]
check "flow ids" [ "$(q f.db "SELECT group_concat(id, ',') FROM (SELECT id FROM flow ORDER BY flow_id)")" = "1,1,x9" ]
cp fl.json fl_copy.json
for k in 1 2 3 4; do # the same content twice in one run: one lands, its flows once
  rm -f d.db
  $ING -q -j 2 d.db fl.json fl_copy.json 2>err.txt; rc=$?
  check "duplicate pair exit 0 ($k)" [ $rc = 0 ]
  check "duplicate pair: one trace, 3 flows ($k)" [ "$(q d.db 'SELECT count(*) FROM trace; SELECT count(*) FROM flow' | tr '\n' ' ')" = "1 3 " ]
done
{ head -c -4 fl.json; printf ',\n  {"ph": "X", "ts": "bad"}]}\n'; } > fl_bad.json
$ING -q f.db fl_bad.json 2>err.txt; check "flows then a bad event: exit 1" [ $? = 1 ]
check "flows then a bad event: none kept" [ "$(q f.db 'SELECT count(*) FROM flow; SELECT count(*) FROM trace' | tr '\n' ' ')" = "3 1 " ]
$ING -q --replace f.db fl.json; check "flows replace exit 0" [ $? = 0 ]
check "flows replace: 3 flows of the new trace" [ "$(q f.db 'SELECT count(*), min(trace_id) FROM flow; SELECT trace_id FROM trace' | tr '\n' ' ')" = "3|2 2 " ]

# 9. each file is read once: a FIFO's first content is what is stored (a writer that
#    rewrites it afterwards is not read again). A regular
#    file that changes while it is read is refused (tests/unit/test_parser.c,
#    testChangedFile: a test here would need two processes to race).
if mkfifo p.json 2>/dev/null; then
  printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]}' > pa.json
  printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 5}]}' > pb.json
  timeout 60 sh -c 'cat pa.json > p.json; sleep 1; cat pb.json > p.json' & wp=$!
  $ING -q ch.db p.json 2>err.txt; rc=$?
  kill $wp 2>/dev/null; wait $wp 2>/dev/null
  check "FIFO exit 0" [ $rc = 0 ]
  check "FIFO: its first content stored" [ "$(q ch.db "SELECT name FROM events; SELECT count(*) FROM trace" | tr '\n' ' ')" = "a 1 " ]
  rm -f p.json
fi

[ $fails = 0 ] && echo "ingest_cli: all checks passed"
[ $fails = 0 ]

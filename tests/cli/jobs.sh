#!/bin/sh
# Jobs (DESIGN.md section 3) as hta-ingest gives them, checked against values worked out
# by hand from the small traces below:
#  1. a directory is a job named after it; a file joins its directory's job; --job NAME
#  2. --list and the view job_summary
#  3. a file that fails leaves no job behind; nothing to ingest (an empty directory, a
#     missing path) is an error and creates no database
#  4. a directory of job folders: one job per folder
#  5. a database of schema 1 (its DDL written here by hand) is upgraded when appended
#     to, and by --upgrade; --merge reads one as upgraded
#  6. --ranks: skipped files listed (a count with -q); a rank only the end of the file
#     tells (distributedInfo after traceEvents) is found by the scan
#  7. --merge: duplicates skipped and reported, a database into itself refused, a
#     missing input creates nothing, jobs merged by name
set -u
# a directory of its own: the scratch directory is shared with the other tests
work=$(mktemp -d "${TMPDIR:-/tmp}/hta-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
ING="${VG:-} $HTA_INGEST"
fails=0
check() { label=$1; shift; if "$@"; then :; else echo "FAIL: $label"; fails=$((fails + 1)); fi; }
q() { sqlite3 "$@"; }
here=$(pwd -P)

# runA: rank0 has 3 events (steps 1, 2), rank1 2 events (steps 1, 2), plus an M row
mkdir -p runA runB
cat > runA/rank0.json <<'J'
{"distributedInfo": {"rank": 0, "world_size": 3}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 50},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 210, "dur": 5, "args": {"stream": 7}}]}
J
cat > runA/rank1.json <<'J'
{"distributedInfo": {"rank": 1, "world_size": 3}, "traceEvents": [
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 60},
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 60}]}
J
# runB: a bare array, rank 3 from the file name, one event in step 7
echo '[{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]' > runB/worker3.json

# 1. default naming, a file joining its directory's job, --job
$ING -q t.db runA; check "runA exit 0" [ $? = 0 ]
$ING -q --job exp t.db runB/worker3.json; check "--job exit 0" [ $? = 0 ]
cat > runA/rank2.json <<'J'
{"distributedInfo": {"rank": 2}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 200, "dur": 70}]}
J
$ING -q t.db runA/rank2.json; check "file exit 0" [ $? = 0 ]
check "jobs" [ "$(q t.db "SELECT group_concat(job_id || ':' || name || ':' || source, ' ') FROM job")" = "1:runA:$here/runA 2:exp:$here/runB/worker3.json" ]
check "every trace's job" [ "$(q t.db "SELECT group_concat(file_name || '=' || job_id, ' ') FROM (SELECT * FROM trace ORDER BY file_name)")" = "runA/rank0.json=1 runA/rank1.json=1 runA/rank2.json=1 runB/worker3.json=2" ]
check "schema_version 4" [ "$(q t.db "SELECT value FROM meta WHERE key = 'schema_version'")" = 4 ]

# 2. --list: runA 3 ranks 0-2, 3 files, steps {1, 2}, 3 + 2 + 1 events; exp 1 rank (3),
#    1 file, step {7}, 1 event. Bytes: the files' sizes.
bA=$(( $(wc -c < runA/rank0.json) + $(wc -c < runA/rank1.json) + $(wc -c < runA/rank2.json) ))
bB=$(wc -c < runB/worker3.json)
$ING --list t.db > list.txt; check "--list exit 0" [ $? = 0 ]
check "--list header" [ "$(sed -n 1p list.txt | tr -s ' ')" = "job ranks range files steps events json_bytes source" ]
check "--list runA" [ "$(sed -n 2p list.txt | tr -s ' ')" = "runA 3 0-2 3 2 6 $bA $here/runA" ]
check "--list exp" [ "$(sed -n 3p list.txt | tr -s ' ')" = "exp 1 3-3 1 1 1 $bB $here/runB/worker3.json" ]
check "--list: 3 lines" [ "$(wc -l < list.txt)" = 3 ]
check "job_summary" [ "$(q t.db "SELECT group_concat(job || ',' || ranks || ',' || min_rank || ',' || max_rank || ',' || files || ',' || steps || ',' || events || ',' || json_bytes, ' ') FROM job_summary")" = "runA,3,0,2,3,2,6,$bA exp,1,3,3,1,1,1,$bB" ]
# the same file into another job: a duplicate within a job only, so both jobs have it (a
# file copied into two runs' folders belongs to both); --replace within its job replaces it
cp t.db rp.db
$ING -q --job moved rp.db runB/worker3.json; check "second job exit 0" [ $? = 0 ]
check "second job: exp and moved both have it" [ "$(q rp.db "SELECT group_concat(j.name, ' ') FROM (SELECT * FROM trace ORDER BY trace_id) t JOIN job j USING (job_id) WHERE file_name = 'runB/worker3.json'")" = "exp moved" ]
$ING -q --job moved rp.db runB/worker3.json; check "same job again exit 0" [ $? = 0 ]
check "same job again: nothing added" [ "$(q rp.db "SELECT count(*) FROM trace")" = 5 ]
$ING -q --replace --job moved rp.db runB/worker3.json; check "replace exit 0" [ $? = 0 ]
check "replace: one copy per job, the new one last" [ "$(q rp.db "SELECT group_concat(j.name, ' ') FROM (SELECT * FROM trace ORDER BY trace_id) t JOIN job j USING (job_id) WHERE file_name = 'runB/worker3.json'")" = "exp moved" ]
check "replace: trace ids" [ "$(q rp.db "SELECT max(trace_id) FROM trace")" = 6 ]
$ING --list nope.db 2> err.txt; check "--list missing db: exit 2" [ $? = 2 ]
check "--list missing db: not created" [ ! -e nope.db ]

# 3. a failing file of a new job leaves no job; nothing to ingest creates nothing
printf '{"traceEvents": [{"ph": "X", "ts": "oops"}]}' > bad.json
$ING -q --job broken t.db bad.json 2> err.txt; check "bad file exit 1" [ $? = 1 ]
check "bad file: no job" [ "$(q t.db "SELECT count(*) FROM job WHERE name = 'broken'")" = 0 ]
check "bad file: byte offset" grep -q '^hta-ingest: bad.json: byte [0-9]*: ' err.txt
mkdir -p empty/sub; echo notes > empty/README
$ING e.db empty 2> err.txt; check "empty dir exit 1" [ $? = 1 ]
check "empty dir: hint" grep -q '^hta-ingest: empty: nothing to ingest: no .json or .json.gz file in it or in its sub-directories (give the directory' err.txt
check "empty dir: no database" [ -z "$(ls | grep '^e\.db')" ]
$ING -q n.db missing-dir 2> err.txt; check "missing path exit 1" [ $? = 1 ]
check "missing path: named" grep -q '^hta-ingest: missing-dir: No such file or directory' err.txt
check "missing path: no database" [ -z "$(ls | grep '^n\.db')" ]

# 4. a directory of job folders
mkdir -p folders/j1 folders/j2 folders/nothing
sed 's/"ts": 100/"ts": 101/' runA/rank0.json > folders/j1/rank0.json  # content of its own
sed 's/"ts": 100/"ts": 101/' runA/rank1.json > folders/j2/rank1.json
$ING f.db folders 2> err.txt; check "folders exit 0" [ $? = 0 ]
check "folders: said so" grep -q '^hta-ingest: folders: a directory of job folders: 2 jobs (j1, j2)$' err.txt
check "folders: two jobs" [ "$(q f.db "SELECT group_concat(j.name || ':' || t.rank, ' ') FROM (SELECT * FROM trace ORDER BY rank) t JOIN job j USING (job_id)")" = "j1:0 j2:1" ]

# 5. schema 1: no job table, no trace.job_id (the DDL of that schema, by hand)
old_db() {
  q "$1" <<'SQL'
PRAGMA application_id = 0x48544131;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE trace(trace_id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, rank_source TEXT NOT NULL,
  file_name TEXT NOT NULL, file_path TEXT, file_size INTEGER NOT NULL, content_hash TEXT NOT NULL UNIQUE,
  world_size INTEGER, backend TEXT, device_type TEXT, schema_version TEXT, base_time_ns INTEGER,
  display_time_unit TEXT, event_count INTEGER NOT NULL, min_ts INTEGER, max_end INTEGER, metadata TEXT);
CREATE TABLE string(string_id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
CREATE TABLE category(category_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE event(event_id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL REFERENCES trace,
  rank INTEGER NOT NULL, seq INTEGER NOT NULL, ph TEXT NOT NULL, category_id INTEGER REFERENCES category,
  name_id INTEGER REFERENCES string, pid, tid, ts INTEGER, dur INTEGER, stream INTEGER, device INTEGER,
  correlation INTEGER, external_id INTEGER, link_id INTEGER, parent_id INTEGER, depth INTEGER,
  iteration INTEGER, args TEXT);
INSERT INTO trace VALUES (1, 0, 'distributedInfo', 'a/run1/r0.json', '/data/a/run1/r0.json', 10, 'h1', 2, NULL, 'NVIDIA GPU', '1', NULL, NULL, 1, 10, 20, '{}');
INSERT INTO trace VALUES (2, 1, 'distributedInfo', 'a/run1/r1.json', '/data/a/run1/r1.json', 20, 'h2', 2, NULL, 'NVIDIA GPU', '1', NULL, NULL, 0, NULL, NULL, '{}');
INSERT INTO trace VALUES (3, 0, 'file_name', 'b/run1/rank0.json', '/data/b/run1/rank0.json', 30, 'h3', NULL, NULL, 'NVIDIA GPU', '1', NULL, NULL, 0, NULL, NULL, '{}');
INSERT INTO trace VALUES (4, 0, 'default', 'x.json', '/data/c/x.json', 40, 'h4', NULL, NULL, 'NVIDIA GPU', '1', NULL, NULL, 0, NULL, NULL, '{}');
INSERT INTO string VALUES (1, 'gemm');
INSERT INTO category VALUES (1, 'kernel');
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, ts, dur, stream) VALUES (1 << 32, 1, 0, 0, 'X', 1, 1, 10, 10, 7);
SQL
}
old_db o.db; old_db o2.db; old_db o3.db
$ING o.db runB 2> err.txt; check "append to schema 1: exit 0" [ $? = 0 ]
check "append to schema 1: said so" grep -q '^hta-ingest: o.db: upgraded the database to schema 4: 4 traces in 3 jobs$' err.txt
# /data/a/run1 and /data/b/run1 are two directories of one name: the second is run1-2
check "upgrade: jobs" [ "$(q o.db "SELECT group_concat(job_id || ':' || name || ':' || source, ' ') FROM (SELECT * FROM job ORDER BY job_id)")" = "1:run1:/data/a/run1 2:run1-2:/data/b/run1 3:c:/data/c 4:runB:$here/runB" ]
check "upgrade: traces' jobs" [ "$(q o.db "SELECT group_concat(trace_id || '=' || job_id, ' ') FROM trace")" = "1=1 2=1 3=2 4=3 5=4" ]
check "upgrade: rows kept" [ "$(q o.db "SELECT file_size, min_ts, max_end, event_count FROM trace WHERE trace_id = 1; SELECT count(*) FROM event")" = "10|10|20|1
2" ]
check "upgrade: trace's columns as a new database's" [ "$(q o.db "SELECT group_concat(name) FROM pragma_table_info('trace')")" = "$(q t.db "SELECT group_concat(name) FROM pragma_table_info('trace')")" ]
check "upgrade: schema_version 4" [ "$(q o.db "SELECT value FROM meta WHERE key = 'schema_version'")" = 4 ]
check "upgrade: integrity" [ "$(q o.db 'PRAGMA integrity_check')" = ok ]
$ING --upgrade o2.db 2> err.txt; check "--upgrade exit 0" [ $? = 0 ]
check "--upgrade: said so" grep -q '^hta-ingest: o2.db: upgraded the database to schema 4: 4 traces in 3 jobs$' err.txt
check "--upgrade: no trace added" [ "$(q o2.db "SELECT count(*) FROM trace; SELECT count(*) FROM job")" = "4
3" ]
$ING --upgrade o2.db 2> err.txt; check "--upgrade again exit 0" [ $? = 0 ]
check "--upgrade again: already" grep -q '^hta-ingest: o2.db: already at schema 4$' err.txt
# schema 2 (jobs, no device_peak, no capture) to 4: the tables are created, device_peak seeded, nothing else changes
cp t.db s2.db && q s2.db "DROP TABLE device_peak; DROP TABLE capture; UPDATE meta SET value = '2' WHERE key = 'schema_version'"
$ING --upgrade s2.db 2> err.txt; check "--upgrade 2 -> 4: exit 0" [ $? = 0 ]
check "--upgrade 2 -> 4: said so" grep -q '^hta-ingest: s2.db: upgraded the database to schema 4: 4 traces in 2 jobs$' err.txt
check "--upgrade 2 -> 4: device_peak seeded" [ "$(q s2.db "SELECT count(*) > 100 FROM device_peak")" = 1 ]
check "--upgrade 2 -> 4: schema_version 4" [ "$(q s2.db "SELECT value FROM meta WHERE key = 'schema_version'")" = 4 ]
$ING --upgrade missing.db 2> err.txt; check "--upgrade missing: exit 2" [ $? = 2 ]
check "--upgrade missing: not created" [ ! -e missing.db ]
check "--upgrade missing: named" grep -q '^hta-ingest: missing.db: No such file or directory$' err.txt
$ING --list o3.db 2> err.txt; check "--list of schema 1: exit 2" [ $? = 2 ]
check "--list of schema 1: the way out" grep -q '^hta-ingest: o3.db: no such table: job_summary (a database of an older hta-ingest: hta-ingest --upgrade DB)$' err.txt
$ING -q --merge om.db o3.db; check "merge of schema 1: exit 0" [ $? = 0 ]
check "merge of schema 1: jobs by directory" [ "$(q om.db "SELECT group_concat(t.content_hash || ':' || j.name, ' ') FROM trace t JOIN job j USING (job_id)")" = "h1:run1 h2:run1 h3:run1 h4:c" ]
check "merge of schema 1: input unchanged" [ "$(q o3.db "SELECT value FROM meta WHERE key = 'schema_version'")" = 1 ]

# 6. --ranks
$ING r.db runA --ranks 1-2 2> err.txt; check "--ranks exit 0" [ $? = 0 ]
check "--ranks: rank 0 listed" [ "$(grep ': skipped: ' err.txt)" = "hta-ingest: runA/rank0.json: skipped: rank 0 not in 1-2" ]
check "--ranks: ranks 1, 2" [ "$(q r.db "SELECT group_concat(rank) FROM (SELECT rank FROM trace ORDER BY rank)")" = "1,2" ]
$ING -q r1.db runA --ranks 2 2> err.txt; check "--ranks N -q exit 0" [ $? = 0 ]
check "--ranks -q: a count" [ "$(cat err.txt)" = "hta-ingest: 2 files skipped: rank not in 2-2" ]
# distributedInfo after traceEvents: the file name says 0, the end of the file 5
mkdir late
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}],\n "distributedInfo": {"rank": 5}}' > late/rank0.json
$ING rl.db late --ranks 0-1 2> err.txt; check "late rank: exit 0" [ $? = 0 ]
check "late rank: skipped after the scan" grep -q '^hta-ingest: late/rank0.json: skipped: rank 5 not in 0-1$' err.txt
check "late rank: nothing stored" [ "$(q rl.db 'SELECT count(*) FROM trace; SELECT count(*) FROM job; SELECT count(*) FROM event' | tr '\n' ' ')" = "0 0 0 " ]
$ING -q rl5.db late --ranks 5; check "late rank 5: exit 0" [ $? = 0 ]
check "late rank 5: ingested" [ "$(q rl5.db 'SELECT rank, rank_source FROM trace')" = "5|distributedInfo" ]
$ING rn.db runA --ranks 7-9 2> err.txt; check "--ranks none: exit 1" [ $? = 1 ]
check "--ranks none: said so" grep -q '^hta-ingest: no trace file of rank 7-9 among 3 (ranks 0-2); rn.db was not created$' err.txt
check "--ranks none: no database" [ ! -e rn.db ]
$ING x.db runA --ranks 3-1 2> err.txt; check "--ranks 3-1: exit 2" [ $? = 2 ]
check "--ranks 3-1: named" grep -q 'Incorrect parameter: --ranks needs A-B (A <= B) or N, not 3-1' err.txt

# 7. --merge
check "t.db is in WAL mode (appended to)" [ "$(q t.db 'PRAGMA journal_mode')" = wal ]
$ING -v --merge m.db t.db 2> err.txt; check "merge exit 0" [ $? = 0 ]
# a new output starts as a page copy of its first input, even one in WAL mode
check "merge: first input copied whole" grep -q '^hta-ingest: m.db: t.db: copied whole, page by page (4 traces)$' err.txt
check "merge: the copy is no WAL database" [ "$(q m.db 'PRAGMA journal_mode')" = delete ]
check "merge: the copy's integrity" [ "$(q m.db 'PRAGMA integrity_check')" = ok ]
check "merge: jobs and traces" [ "$(q m.db "SELECT group_concat(j.name || ':' || t.rank, ' ') FROM (SELECT * FROM trace ORDER BY rank) t JOIN job j USING (job_id)")" = "runA:0 runA:1 runA:2 exp:3" ]
$ING --merge m.db t.db 2> err.txt; check "merge again exit 0" [ $? = 0 ]
check "merge again: 4 skipped" [ "$(grep -c '^hta-ingest: t.db: .*: skipped: already in the output (same content)$' err.txt)" = 4 ]
check "merge again: 4 traces" [ "$(q m.db 'SELECT count(*) FROM trace')" = 4 ]
mkdir extra
sed 's/"ts": 5/"ts": 6/; s/worker3/x/' runB/worker3.json > extra/rank4.json
$ING -q --job runA more.db extra/rank4.json
$ING -q --merge m.db r.db more.db f.db 2> err.txt; check "merge by name: exit 0" [ $? = 0 ]
# r.db's runA ranks 1 and 2 are m.db's (same content): skipped; more.db's runA joins runA;
# f.db's j1, j2 are new jobs
check "merge by name" [ "$(q m.db "SELECT group_concat(name || ':' || n, ' ') FROM (SELECT j.name, count(*) AS n FROM trace t JOIN job j USING (job_id) GROUP BY j.job_id ORDER BY j.name)")" = "exp:1 j1:1 j2:1 runA:4" ]
check "merge: ids shifted" [ "$(q m.db "SELECT count(*) FROM event WHERE event_id >> 32 <> trace_id OR link_id >> 32 <> trace_id OR parent_id >> 32 <> trace_id; SELECT count(*) FROM profiler_step p JOIN event e USING (event_id) WHERE e.trace_id <> p.trace_id")" = "0
0" ]
check "merge: integrity" [ "$(q m.db 'PRAGMA integrity_check')" = ok ]
$ING --merge m.db m.db 2> err.txt; check "merge into itself: exit 2" [ $? = 2 ]
check "merge into itself: said so" grep -q '^hta-ingest: m.db: cannot merge a database into itself (it is the output m.db)$' err.txt
$ING --merge new.db t.db nothere.db 2> err.txt; check "merge missing input: exit 2" [ $? = 2 ]
check "merge missing input: named" grep -q '^hta-ingest: nothere.db: No such file or directory$' err.txt
check "merge missing input: nothing created" [ -z "$(ls | grep '^new\.db')" ]
echo "not a database" > junk.db
$ING --merge new.db t.db junk.db 2> err.txt; check "merge junk input: exit 2" [ $? = 2 ]
check "merge junk input: nothing created" [ -z "$(ls | grep '^new\.db')" ]

[ $fails = 0 ] && echo "jobs: all checks passed"
[ $fails = 0 ]

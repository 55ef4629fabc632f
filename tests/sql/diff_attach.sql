-- hta_trace_diff against another database (trace_diff.c R2, R3, R5, R6): control
-- rows from main, test rows from an ATTACHed schema, matched by name (the string
-- ids of the two databases differ). The schema name is quoted as an identifier.
-- main: rank 3, steps 10 and 11; iteration 10: ProfilerStep#10 500, aten::mm 10,
--       only_main 1 (µs)
-- b:    rank 1, steps 20 and 21; iteration 20: ProfilerStep#20 600, aten::mm 10 + 12,
--       only_b 3; iteration 21: ProfilerStep#21 600
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 3, 'distributedInfo', 'base.json', 0, 'h1', 5, 1000000, 2500000);
INSERT INTO category(category_id, name) VALUES (1, 'user_annotation'), (2, 'cpu_op');
INSERT INTO string(string_id, value) VALUES
  (1, 'ProfilerStep#10'), (2, 'ProfilerStep#11'), (3, 'aten::mm'), (4, 'only_main');
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, iteration)
VALUES ((1 << 32) | 1, 1, 3, 1, 'X', 1, 1, 1, 1, 1000000, 500000, 10),
       ((1 << 32) | 2, 1, 3, 2, 'X', 2, 3, 1, 1, 1100000, 10000, 10),
       ((1 << 32) | 3, 1, 3, 3, 'X', 2, 4, 1, 1, 1200000, 1000, 10),
       ((1 << 32) | 4, 1, 3, 4, 'X', 1, 2, 1, 1, 2000000, 500000, 11),
       ((1 << 32) | 5, 1, 3, 5, 'X', 2, 3, 1, 1, 2100000, 10000, 11);
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 10, (1 << 32) | 1, 1000000, 500000), (1, 11, (1 << 32) | 4, 2000000, 500000);

ATTACH 'diff_attach_b.db' AS b;
CREATE TABLE b.job(job_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE b.trace(trace_id INTEGER PRIMARY KEY, rank INTEGER, min_ts INTEGER, job_id INTEGER DEFAULT 1);
CREATE TABLE b.category(category_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE b.string(string_id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE b.event(event_id INTEGER PRIMARY KEY, trace_id, rank, seq, ph, category_id, name_id,
                     ts, dur, stream, iteration);
CREATE TABLE b.profiler_step(trace_id, step, event_id, ts, dur);
INSERT INTO b.trace(trace_id, rank, min_ts) VALUES (7, 1, 1000000);
INSERT INTO b.category VALUES (5, 'cpu_op'), (9, 'user_annotation');
INSERT INTO b.string VALUES (11, 'only_b'), (12, 'aten::mm'), (13, 'ProfilerStep#21'), (14, 'ProfilerStep#20');
INSERT INTO b.event VALUES
  ((7 << 32) | 1, 7, 1, 1, 'X', 9, 14, 1000000, 600000, NULL, 20),
  ((7 << 32) | 2, 7, 1, 2, 'X', 5, 12, 1100000, 10000, NULL, 20),
  ((7 << 32) | 3, 7, 1, 3, 'X', 5, 12, 1200000, 12000, NULL, 20),
  ((7 << 32) | 4, 7, 1, 4, 'X', 5, 11, 1300000, 3000, NULL, 20),
  ((7 << 32) | 5, 7, 1, 5, 'X', 9, 13, 2000000, 600000, NULL, 21);
INSERT INTO b.profiler_step VALUES (7, 20, (7 << 32) | 1, 1000000, 600000), (7, 21, (7 << 32) | 5, 2000000, 600000);

SELECT 'att_01_rows', group_concat(name || ':' || control_counts || ':' || control_total_duration_us || ':'
    || test_counts || ':' || test_total_duration_us || ':' || diff_counts || ':' || diff_duration_us || ':'
    || change || ':' || change_class, ',') =
  'ProfilerStep#10:1:500.0:0:0.0:-1:-500.0:-:deleted,' ||
  'aten::mm:1:10.0:2:22.0:1:12.0:+:increased,' ||
  'only_main:1:1.0:0:0.0:-1:-1.0:-:deleted,' ||
  'ProfilerStep#20:0:0.0:1:600.0:1:600.0:+:added,' ||
  'only_b:0:0.0:1:3.0:1:3.0:+:added'
  FROM hta_trace_diff WHERE test_schema = 'b';
-- each side takes its own defaults: rank 3 / step 10 in main, rank 1 / step 20 in b
SELECT 'att_02_readback', control_rank = 3 AND control_iteration = 10 AND test_rank = 1
  AND test_iteration = 20 AND test_schema = 'b'
  FROM hta_trace_diff WHERE test_schema = 'b' LIMIT 1;
SELECT 'att_03_positional', count(*) = 5 FROM hta_trace_diff(NULL, NULL, NULL, NULL, 'b');
SELECT 'att_04_test_iteration', group_concat(name || ':' || test_counts, ',') = 'ProfilerStep#21:1'
  FROM hta_trace_diff(3, 10, 1, 21, 'b') WHERE test_counts > 0;
SELECT 'att_05_control_iteration', group_concat(name || ':' || control_counts, ',') =
  'ProfilerStep#11:1,aten::mm:1' FROM hta_trace_diff(3, 11, 1, 20, 'b') WHERE control_counts > 0;
-- schema names are case-insensitive, as in SQL
SELECT 'att_06_case', count(*) = 5 FROM hta_trace_diff WHERE test_schema = 'B';
-- main against main is the default
SELECT 'att_07_main', count(*) = 3 AND sum(change_class = 'unchanged') = 3 FROM hta_trace_diff;

-- a schema name that needs quoting
ATTACH 'diff_attach_c.db' AS "we""ird x";
CREATE TABLE "we""ird x".trace AS SELECT * FROM b.trace;
CREATE TABLE "we""ird x".job AS SELECT * FROM b.job;
CREATE TABLE "we""ird x".category AS SELECT * FROM b.category;
CREATE TABLE "we""ird x".string AS SELECT * FROM b.string;
CREATE TABLE "we""ird x".event AS SELECT * FROM b.event;
CREATE TABLE "we""ird x".profiler_step AS SELECT * FROM b.profiler_step;
SELECT 'att_08_quoted', count(*) = 5 FROM hta_trace_diff WHERE test_schema = 'we"ird x';

-- a database without traces: no rows, no error
ATTACH 'diff_attach_e.db' AS e;
CREATE TABLE e.trace AS SELECT * FROM b.trace WHERE 0;
CREATE TABLE e.job AS SELECT * FROM b.job WHERE 0;
CREATE TABLE e.profiler_step AS SELECT * FROM b.profiler_step WHERE 0;
SELECT 'att_09_empty', count(*) = 0 FROM hta_trace_diff WHERE test_schema = 'e';
DETACH e;

-- errors: a schema that is not attached, a rank or step the test schema lacks,
-- a database that is not an hta database
.shell sh -c "sqlite3 diff_attach_c.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(NULL, NULL, NULL, NULL, char(110,111,112,101))' 2>&1 | grep -qF 'hta_trace_diff: no database named' && echo 'att_10_err_schema|1' || echo 'att_10_err_schema|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(NULL, NULL, NULL, NULL, 7)' 2>&1 | grep -qF 'hta_trace_diff: test_schema must be a schema name' && echo 'att_11_err_schema_type|1' || echo 'att_11_err_schema_type|0'"
.shell sh -c "sqlite3 diff_attach_c.db -cmd '.load $HTA_EXT' -cmd 'ATTACH char(100,105,102,102,95,97,116,116,97,99,104,95,98,46,100,98) AS b' 'SELECT * FROM hta_trace_diff(1, 20, 3, NULL, char(98))' 2>&1 | grep -qF 'hta_trace_diff: test_rank 3 is not a rank of schema b' && echo 'att_12_err_rank|1' || echo 'att_12_err_rank|0'"
.shell sh -c "sqlite3 diff_attach_c.db -cmd '.load $HTA_EXT' -cmd 'ATTACH char(100,105,102,102,95,97,116,116,97,99,104,95,98,46,100,98) AS b' 'SELECT * FROM hta_trace_diff(1, 20, 1, 10, char(98))' 2>&1 | grep -qF 'hta_trace_diff: test_iteration 10 is not a ProfilerStep number of schema b' && echo 'att_13_err_iter|1' || echo 'att_13_err_iter|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff' 2>&1 | grep -qF 'is not an hta-sqlite database (no trace table)' && echo 'att_14_err_not_hta|1' || echo 'att_14_err_not_hta|0'"
-- an SQL error inside a side's query keeps its message (the statements' finalize would clear it)
ATTACH 'diff_attach_f.db' AS f;
CREATE TABLE f.trace AS SELECT * FROM b.trace;
CREATE TABLE f.job AS SELECT * FROM b.job;
CREATE TABLE f.profiler_step AS SELECT * FROM b.profiler_step;
CREATE TABLE f.category AS SELECT * FROM b.category;
CREATE TABLE f.string AS SELECT * FROM b.string;
CREATE TABLE f.event AS SELECT event_id, trace_id, rank, seq, ph, category_id, name_id, ts, dur FROM b.event;
DETACH f;
.shell sh -c "sqlite3 diff_attach_c.db -cmd '.load $HTA_EXT' -cmd 'ATTACH char(100,105,102,102,95,97,116,116,97,99,104,95,102,46,100,98) AS f' 'SELECT * FROM hta_trace_diff(1, 20, 1, 20, char(102))' 2>&1 | grep -qF 'hta_trace_diff: no such column: e.iteration' && echo 'att_15_err_side_query|1' || echo 'att_15_err_side_query|0'"

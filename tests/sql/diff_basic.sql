-- hta_trace_diff within one database (trace_diff.c R1-R6; spec 2.11).
-- rank 0, iteration 5: ProfilerStep#5 1000, aten::copy_ 4.25, aten::mm 10 + 20,
--                      gemm 5 (GPU), shared 3 (cpu_op) + 4 (kernel)          (µs)
-- rank 0, iteration 6: ProfilerStep#6 1000, aten::mm 30, aten::add 1
-- rank 1, iteration 5: ProfilerStep#5 1100, aten::mm 15, aten::relu 2, gemm 6 + 7,
--                      shared 3 + 4
-- Not loaded: the "Trace" span, an instant, rows outside every step.
CREATE TEMP TABLE ev(t, seq, ph, cat, name, ts, dur, stream, iter);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'X', 'Trace', 'PyTorch Profiler (0)', 0, 9000000, NULL, 5),
  (1, 2, 'X', 'user_annotation', 'ProfilerStep#5', 1000000, 1000000, NULL, 5),
  (1, 3, 'X', 'cpu_op', 'aten::copy_', 1100000, 4250, NULL, 5),
  (1, 4, 'X', 'cpu_op', 'aten::mm', 1200000, 10000, NULL, 5),
  (1, 5, 'X', 'cpu_op', 'aten::mm', 1300000, 20000, NULL, 5),
  (1, 6, 'X', 'kernel', 'gemm', 1400000, 5000, 7, 5),
  (1, 7, 'X', 'cpu_op', 'shared', 1500000, 3000, NULL, 5),
  (1, 8, 'X', 'kernel', 'shared', 1600000, 4000, 7, 5),
  (1, 9, 'i', 'cpu_instant_event', 'marker', 1700000, NULL, NULL, 5),
  (1, 10, 'X', 'user_annotation', 'ProfilerStep#6', 2000000, 1000000, NULL, 6),
  (1, 11, 'X', 'cpu_op', 'aten::mm', 2100000, 30000, NULL, 6),
  (1, 12, 'X', 'cpu_op', 'aten::add', 2200000, 1000, NULL, 6),
  (1, 13, 'X', 'cpu_op', 'aten::zeros', 3500000, 1000, NULL, NULL),
  (2, 1, 'X', 'user_annotation', 'ProfilerStep#5', 1000000, 1100000, NULL, 5),
  (2, 2, 'X', 'cpu_op', 'aten::mm', 1100000, 15000, NULL, 5),
  (2, 3, 'X', 'cpu_op', 'aten::relu', 1200000, 2000, NULL, 5),
  (2, 4, 'X', 'kernel', 'gemm', 1300000, 6000, 7, 5),
  (2, 5, 'X', 'kernel', 'gemm', 1400000, 7000, 7, 5),
  (2, 6, 'X', 'cpu_op', 'shared', 1500000, 3000, NULL, 5),
  (2, 7, 'X', 'kernel', 'shared', 1600000, 4000, 7, 5),
  (2, 8, 'X', 'user_annotation', 'ProfilerStep#6', 2100000, 1000000, NULL, 6);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, iteration)
SELECT (t << 32) | seq, t, t - 1, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur, stream, iter
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT e.trace_id, e.iteration, e.event_id, e.ts, e.dur FROM event e
  JOIN string s ON s.string_id = e.name_id WHERE s.value LIKE 'ProfilerStep#%';
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id AND dur IS NOT NULL),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'diff_01_columns', group_concat(name, ',') =
  'name,control_counts,control_total_duration_us,test_counts,test_total_duration_us,diff_counts,diff_duration_us,change,change_class'
  FROM pragma_table_info('hta_trace_diff');
SELECT 'diff_02_hidden', group_concat(name, ',') =
  'control_rank,control_iteration,test_rank,test_iteration,test_schema,control_job,test_job,control_schema'
  FROM pragma_table_xinfo('hta_trace_diff') WHERE hidden;

-- R2: defaults = first rank, first step on both sides: everything unchanged
SELECT 'diff_03_defaults', count(*) = 5 AND sum(diff_counts <> 0) = 0 AND sum(change = '=') = 5
  AND sum(change_class = 'unchanged') = 5 FROM hta_trace_diff;
SELECT 'diff_04_readback', control_rank = 0 AND control_iteration = 5 AND test_rank = 0
  AND test_iteration = 5 AND test_schema = 'main' FROM hta_trace_diff LIMIT 1;

-- rank 0 vs rank 1 (R4-R6): control names ascending, then the test-only ones
SELECT 'diff_05_ranks', group_concat(name || ':' || control_counts || ':' || control_total_duration_us || ':'
    || test_counts || ':' || test_total_duration_us || ':' || diff_counts || ':' || diff_duration_us || ':'
    || change || ':' || change_class, ',') =
  'ProfilerStep#5:1:1000.0:1:1100.0:0:100.0:=:unchanged,' ||
  'aten::copy_:1:4.25:0:0.0:-1:-4.25:-:deleted,' ||
  'aten::mm:2:30.0:1:15.0:-1:-15.0:-:decreased,' ||
  'gemm:1:5.0:2:13.0:1:8.0:+:increased,' ||
  'shared:2:7.0:2:7.0:0:0.0:=:unchanged,' ||
  'aten::relu:0:0.0:1:2.0:1:2.0:+:added'
  FROM hta_trace_diff(0, NULL, 1);
SELECT 'diff_06_ranks_named', count(*) = 6 FROM hta_trace_diff WHERE control_rank = 0 AND test_rank = 1;
SELECT 'diff_07_types', typeof(control_counts) || typeof(control_total_duration_us) || typeof(change)
  = 'integerrealtext' FROM hta_trace_diff(0, NULL, 1) LIMIT 1;

-- iteration 5 vs 6 of rank 0
SELECT 'diff_08_iterations', group_concat(name || ':' || control_counts || ':' || test_counts || ':'
    || diff_duration_us || ':' || change || ':' || change_class, ',') =
  'ProfilerStep#5:1:0:-1000.0:-:deleted,aten::copy_:1:0:-4.25:-:deleted,aten::mm:2:1:0.0:-:decreased,' ||
  'gemm:1:0:-5.0:-:deleted,shared:2:0:-7.0:-:deleted,ProfilerStep#6:0:1:1000.0:+:added,aten::add:0:1:1.0:+:added'
  FROM hta_trace_diff(0, 5, 0, 6);
SELECT 'diff_09_iter_named', count(*) = 7 FROM hta_trace_diff
 WHERE control_iteration = 5 AND test_iteration = 6;
-- no alignment, no cut (R1): the last step of rank 1 is compared, and it is empty
-- but for its own row
SELECT 'diff_10_no_cut', group_concat(name || ':' || test_counts, ',') = 'ProfilerStep#6:1'
  FROM hta_trace_diff(0, 5, 1, 6) WHERE test_counts > 0;
-- a rank given as 1.0 is rank 1; NULL means the default
SELECT 'diff_11_real_rank', count(*) = 6 FROM hta_trace_diff(NULL, NULL, 1.0);
-- a step number that exists for another rank only: valid, just empty on that side
DELETE FROM event WHERE trace_id = 2 AND iteration = 6;
SELECT 'diff_12_empty_side', count(*) = 5 AND sum(change_class = 'deleted') = 5
  FROM hta_trace_diff(0, 5, 1, 6);

-- errors (on a copy of this database, so that the message sees the data)
ATTACH 'diff_basic_copy.db' AS cp;
CREATE TABLE cp.trace AS SELECT * FROM main.trace;
CREATE TABLE cp.job AS SELECT * FROM main.job;
CREATE TABLE cp.event AS SELECT * FROM main.event;
CREATE TABLE cp.string AS SELECT * FROM main.string;
CREATE TABLE cp.category AS SELECT * FROM main.category;
CREATE TABLE cp.profiler_step AS SELECT * FROM main.profiler_step;
DETACH cp;
.shell sh -c "sqlite3 diff_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(7)' 2>&1 | grep -qF 'hta_trace_diff: control_rank 7 is not a rank of schema main' && echo 'diff_13_err_rank|1' || echo 'diff_13_err_rank|0'"
.shell sh -c "sqlite3 diff_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(0, 5, 1, 9)' 2>&1 | grep -qF 'hta_trace_diff: test_iteration 9 is not a ProfilerStep number of schema main' && echo 'diff_14_err_iter|1' || echo 'diff_14_err_iter|0'"
.shell sh -c "sqlite3 diff_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(0, 5, char(120))' 2>&1 | grep -qF 'hta_trace_diff: test_rank must be an integer' && echo 'diff_15_err_type|1' || echo 'diff_15_err_type|0'"
.shell sh -c "sqlite3 diff_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_trace_diff(0, 5.5)' 2>&1 | grep -qF 'hta_trace_diff: control_iteration must be an integer' && echo 'diff_16_err_real|1' || echo 'diff_16_err_real|0'"

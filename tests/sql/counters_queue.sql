-- hta_queue_length, hta_queue_length_summary, hta_queue_full_time (queue_length.c
-- QL-1..8; spec 2.7 with D10, D15). Trace 1 (rank 0) has two host ProfilerSteps: the
-- cut drops host rows at or after 1150000 ns and their GPU rows. Trace 2 (rank 1) has
-- no step and loses its host rows unless include_last_profiler_step = 1; its aten::mm
-- at 500000 ns is the job's earliest event, so every ts_us is (ts - 500000) / 1000.
CREATE TEMP TABLE ev(t, seq, ph, cat, name, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'X', 'kernel', 'k0', 1130000, 1000, 9, 20, 30),      -- traceEvents position 0
  (1, 1, 'X', 'cpu_op', 'ProfilerStep#1', 1000000, 150000, NULL, NULL, NULL),
  (1, 2, 'X', 'cpu_op', 'ProfilerStep#2', 1150000, 100000, NULL, NULL, NULL),
  (1, 3, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1010000, 1000, NULL, 1, 4),
  (1, 4, 'X', 'kernel', 'k1', 1030000, 5000, 7, 1, 3),
  (1, 5, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1020000, 1000, NULL, 2, 6),
  (1, 6, 'X', 'kernel', 'k2', 1040000, 5000, 7, 2, 5),
  (1, 7, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1030000, 1000, NULL, 3, 8), -- tie with k1's start
  (1, 8, 'X', 'kernel', 'k3', 1050000, 5000, 7, 3, 7),
  (1, 9, 'X', 'cuda_runtime', 'cudaMemsetAsync', 1060000, 1000, NULL, 4, 10),
  (1, 10, 'X', 'gpu_memset', 'Memset (Device)', 1060000, 500, 7, 4, 9),  -- starts at its launch
  (1, 11, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1070000, 1000, NULL, 5, 12),
  (1, 12, 'X', 'kernel', 'k5', 1090000, 5000, 8, 5, 11),
  (1, 13, 'X', 'cuda_runtime', 'hipModuleLaunchKernel', 1080000, 1000, NULL, 6, 14), -- D15
  (1, 14, 'X', 'kernel', 'k6', 1100000, 5000, 8, 6, 13),
  (1, 15, 'X', 'cuda_runtime', 'cudaGraphLaunch', 1110000, 1000, NULL, 7, 16), -- not a runtime call
  (1, 16, 'X', 'kernel', 'k7', 1120000, 1000, 8, 7, 15),
  (1, 17, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1160000, 1000, NULL, 8, 18), -- after the cut
  (1, 18, 'X', 'kernel', 'k8', 1170000, 1000, 7, 8, 17),
  (1, 30, 'X', 'cuda_runtime', 'cudaLaunchKernel', 1125000, 1000, NULL, 20, 0),
  (1, 31, 'i', 'cpu_instant_event', 'mark', 1149000, NULL, NULL, NULL, NULL), -- no dur: not kept
  (1, 32, 'X', 'Trace', 'PyTorch Profiler (0)', 900000, 400000, NULL, NULL, NULL),
  (2, 1, 'X', 'cpu_op', 'aten::mm', 500000, 1000, NULL, NULL, NULL),
  (2, 2, 'X', 'cuda_runtime', 'cudaLaunchKernel', 600000, 1000, NULL, 1, 3),
  (2, 3, 'X', 'kernel', 'kr1', 700000, 1000, 7, 1, 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (t << 32) | seq, t, t - 1, seq, ph, (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 1, (1 << 32) | 1, 1000000, 150000), (1, 2, (1 << 32) | 2, 1150000, 100000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id AND dur IS NOT NULL
            AND e.category_id IS NOT (SELECT category_id FROM category WHERE name = 'Trace')),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- registration, columns, parameters
SELECT 'queue_01_modules', count(*) = 3 FROM pragma_module_list
 WHERE name IN ('hta_queue_length', 'hta_queue_length_summary', 'hta_queue_full_time');
SELECT 'queue_02_columns', group_concat(name, ',') = 'rank,stream,ts_us,queue_length,trace_id,job'
  FROM pragma_table_info('hta_queue_length');
SELECT 'queue_03_hidden', group_concat(name, ',') = 'include_last_profiler_step,collapse_ties,hta_tie_order,schema'
  FROM pragma_table_xinfo('hta_queue_length') WHERE hidden;
SELECT 'queue_04_summary_columns', group_concat(name, ',') =
  'rank,stream,count,mean,std,min,p25,p50,p75,max,trace_id,job'
  FROM pragma_table_info('hta_queue_length_summary');
SELECT 'queue_05_full_columns', group_concat(name, ',') =
  'rank,stream,duration_at_max_us,relative_duration,trace_id,job'
  FROM pragma_table_info('hta_queue_full_time');
SELECT 'queue_06_full_hidden', group_concat(name, ',') =
  'max_queue_length,include_last_profiler_step,hta_tie_order,schema'
  FROM pragma_table_xinfo('hta_queue_full_time') WHERE hidden;

-- QL-1..4, QL-8: the series of rank 0 before the cut. Stream 7 goes up and down; at
-- 530 µs k3's launch (+1) comes before k1's start (-1), and at 560 µs the memset's
-- launch before its own start, so the queue never dips below 0 (QL-3). Stream 8
-- counts hipModuleLaunchKernel (D15) but not cudaGraphLaunch; k0 (position 0) and
-- k8 (after the cut) give nothing.
SELECT 'queue_07_series', group_concat(stream || ':' || ts_us || ':' || queue_length, ',') =
  '7:510.0:1,7:520.0:2,7:530.0:3,7:530.0:2,7:540.0:1,7:550.0:0,7:560.0:1,7:560.0:0,'
  || '8:570.0:1,8:580.0:2,8:590.0:1,8:600.0:0'
  FROM hta_queue_length;
SELECT 'queue_08_types', typeof(rank) || typeof(stream) || typeof(ts_us) || typeof(queue_length)
  || typeof(trace_id) = 'integerintegerrealintegerinteger' FROM hta_queue_length LIMIT 1;
SELECT 'queue_09_rank_trace', group_concat(DISTINCT rank || ':' || trace_id) = '0:1' FROM hta_queue_length;

-- QL-5: one point per (stream, ts), the value after the last change
SELECT 'queue_10_collapsed', group_concat(stream || ':' || ts_us || ':' || queue_length, ',') =
  '7:510.0:1,7:520.0:2,7:530.0:2,7:540.0:1,7:550.0:0,7:560.0:0,'
  || '8:570.0:1,8:580.0:2,8:590.0:1,8:600.0:0'
  FROM hta_queue_length(0, 1);
SELECT 'queue_11_readback', include_last_profiler_step = 0 AND collapse_ties = 1 AND hta_tie_order = 0
  FROM hta_queue_length(0, 1) LIMIT 1;
-- QL-3: HTA's order (numpy's quicksort is an insertion sort below 17 changes, so it
-- keeps the +1 changes first here too)
SELECT 'queue_12_hta_order', group_concat(stream || ':' || ts_us || ':' || queue_length, ',') =
  '7:510.0:1,7:520.0:2,7:530.0:3,7:530.0:2,7:540.0:1,7:550.0:0,7:560.0:1,7:560.0:0,'
  || '8:570.0:1,8:580.0:2,8:590.0:1,8:600.0:0'
  FROM hta_queue_length WHERE hta_tie_order = 1;

-- the cut: rank 1 loses its host rows; include_last_profiler_step = 1 brings k8 and rank 1
SELECT 'queue_13_rank1_cut', count(*) = 0 FROM hta_queue_length WHERE rank = 1;
SELECT 'queue_14_last_step', group_concat(rank || ':' || stream || ':' || ts_us || ':' || queue_length, ',') =
  '0:7:510.0:1,0:7:520.0:2,0:7:530.0:2,0:7:540.0:1,0:7:550.0:0,0:7:560.0:0,0:7:660.0:1,0:7:670.0:0,'
  || '0:8:570.0:1,0:8:580.0:2,0:8:590.0:1,0:8:600.0:0,1:7:100.0:1,1:7:200.0:0'
  FROM hta_queue_length(1, 1);
-- WHERE rank = 1 keeps the job's time base (500 µs), not rank 1's own
SELECT 'queue_15_rank1_base', group_concat(ts_us, ',') = '100.0,200.0'
  FROM hta_queue_length(1) WHERE rank = 1;
SELECT 'queue_16_rank_absent', count(*) = 0 FROM hta_queue_length WHERE rank = 7;

-- QL-6: describe() over every point (8 points on stream 7, 4 on stream 8)
SELECT 'queue_17_summary_s7', count = 8 AND mean = 1.25 AND abs(std - 1.0350983390135313) < 1e-12
  AND min = 0 AND p25 = 0.75 AND p50 = 1 AND p75 = 2 AND max = 3 AND trace_id = 1
  FROM hta_queue_length_summary WHERE rank = 0 AND stream = 7;
SELECT 'queue_18_summary_s8', count = 4 AND mean = 1 AND abs(std - 0.816496580927726) < 1e-12
  AND min = 0 AND p25 = 0.75 AND p50 = 1 AND p75 = 1.25 AND max = 2
  FROM hta_queue_length_summary WHERE stream = 8;
SELECT 'queue_19_summary_rows', group_concat(rank || ':' || stream, ',') = '0:7,0:8' FROM hta_queue_length_summary;
-- ... and over the collapsed series (QL-5): the *_at_ts summary
SELECT 'queue_20_summary_collapsed', count = 6 AND mean = 1 AND abs(std - 0.894427190999916) < 1e-12
  AND min = 0 AND p25 = 0.25 AND p50 = 1 AND p75 = 1.75 AND max = 2
  FROM hta_queue_length_summary(0, 1) WHERE stream = 7;
-- one point: std is NULL (pandas NaN)
SELECT 'queue_21_summary_last', group_concat(rank || ':' || stream || ':' || count, ',') = '0:7:10,0:8:4,1:7:2'
  FROM hta_queue_length_summary(1);
SELECT 'queue_22_summary_types', typeof(count) || typeof(mean) || typeof(std) = 'integerrealreal'
  FROM hta_queue_length_summary LIMIT 1;

-- QL-7: time at a full queue, every stream that reaches the maximum (D10). With 2:
-- stream 7 holds >= 2 from 520 to 540 µs (20), stream 8 from 580 to 590 µs (10);
-- rank 0's kept rows span 1000000..1130000 ns (130 µs: k0 counts, the instant, the
-- Trace span and the rows after the cut do not).
SELECT 'queue_23_full2', group_concat(rank || ':' || stream || ':' || duration_at_max_us || ':' || trace_id, ',')
  = '0:7:20.0:1,0:8:10.0:1' FROM hta_queue_full_time(2);
SELECT 'queue_24_full2_relative', group_concat(abs(relative_duration - duration_at_max_us / 130.0) < 1e-15, ',')
  = '1,1' FROM hta_queue_full_time(2);
SELECT 'queue_25_full_default', count(*) = 0 FROM hta_queue_full_time;
SELECT 'queue_26_readback', max_queue_length = 2.0 AND include_last_profiler_step = 0
  FROM hta_queue_full_time(2) LIMIT 1;
-- 3 is reached only for an instant at 530 µs: a row with duration 0
SELECT 'queue_27_full3_instant', group_concat(stream || ':' || duration_at_max_us || ':' || relative_duration, ',')
  = '7:0.0:0.0' FROM hta_queue_full_time(3);
-- 0: the whole series of each stream (the last point adds nothing)
SELECT 'queue_28_full0', group_concat(stream || ':' || duration_at_max_us, ',') = '7:50.0,8:30.0'
  FROM hta_queue_full_time(0);
-- without the cut, rank 0 spans 170 µs and rank 1 (max 1 from 100 to 200 µs) 200 µs
SELECT 'queue_29_full_last', group_concat(rank || ':' || stream || ':' || duration_at_max_us || ':'
  || (abs(relative_duration - duration_at_max_us / CASE rank WHEN 0 THEN 170.0 ELSE 200.0 END) < 1e-15), ',')
  = '0:7:50.0:1,0:8:30.0:1,1:7:100.0:1' FROM hta_queue_full_time(1, 1);
SELECT 'queue_30_full_rank', group_concat(stream, ',') = '7' FROM hta_queue_full_time(1, 1) WHERE rank = 1;

-- errors name the function and the parameter
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_queue_length(2)' 2>&1 | grep -qF 'hta_queue_length: include_last_profiler_step must be 0 or 1' && echo 'queue_31_err_last|1' || echo 'queue_31_err_last|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_queue_length_summary WHERE collapse_ties = 3' 2>&1 | grep -qF 'hta_queue_length_summary: collapse_ties must be 0 or 1' && echo 'queue_32_err_collapse|1' || echo 'queue_32_err_collapse|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_queue_full_time(char(120))' 2>&1 | grep -qF 'hta_queue_full_time: max_queue_length must be a number' && echo 'queue_33_err_max|1' || echo 'queue_33_err_max|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_queue_full_time(NULL)' 2>&1 | grep -qF 'hta_queue_full_time: max_queue_length must be a number' && echo 'queue_34_err_null|1' || echo 'queue_34_err_null|0'"

-- no runtime call, then an empty database: no rows, no error
DELETE FROM event WHERE name_id IN (SELECT string_id FROM string WHERE value LIKE 'cuda%' OR value LIKE 'hip%');
SELECT 'queue_35_no_runtime', (SELECT count(*) FROM hta_queue_length(1)) + (SELECT count(*) FROM hta_queue_length_summary(1))
  + (SELECT count(*) FROM hta_queue_full_time(0, 1)) = 0;
DELETE FROM profiler_step;
DELETE FROM event;
DELETE FROM trace;
SELECT 'queue_36_empty_db', (SELECT count(*) FROM hta_queue_length) + (SELECT count(*) FROM hta_queue_length_summary)
  + (SELECT count(*) FROM hta_queue_full_time(0)) = 0;

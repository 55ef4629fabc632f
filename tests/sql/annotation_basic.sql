-- hta_user_annotation_breakdown (annotations.c R2; spec 2.12): per trace, rows of
-- user_annotation (use_gpu_annotation = 0) or gpu_user_annotation (default) grouped
-- by full name, nested annotations counted separately, statistics over instances.
-- No ProfilerStep here, so nothing is cut. Times are ns in the database, µs out.
CREATE TEMP TABLE ev(t, seq, ph, cat, name, ts, dur);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 0, 'file_name', 'r0_span2.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'X', 'Trace', 'PyTorch Profiler (0)', 0, 9000000),
  (1, 1, 'X', 'cpu_op', 'aten::mm', 900000, 5000),
  (1, 2, 'X', 'user_annotation', 'fwd', 1000000, 100000),
  (1, 3, 'X', 'user_annotation', 'inner', 1010000, 20000),       -- nested in fwd
  (1, 4, 'X', 'user_annotation', 'fwd', 2000000, 300000),
  (1, 5, 'X', 'user_annotation', 'inner', 2010000, 40000),
  (1, 6, 'X', 'user_annotation', 'bwd', 3000000, 50000),
  (1, 7, 'X', 'gpu_user_annotation', 'fwd', 1100000, 150000),
  (1, 8, 'X', 'gpu_user_annotation', 'fwd', 2100000, 250000),
  (1, 9, 'i', 'user_annotation', 'marker', 2500000, NULL),      -- an instant: not loaded
  (1, 10, 'X', 'user_annotation', 'frac', 4000000, 1500),       -- 1.5 µs
  (2, 1, 'X', 'user_annotation', 'fwd', 1000000, 70000),
  (3, 1, 'X', 'user_annotation', 'fwd', 5000000, 10000);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, ph,
       (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts, dur
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id AND dur IS NOT NULL),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- the four tables of annotations.c and trace_diff.c are registered
SELECT 'ann_01_modules', count(*) = 4 FROM pragma_module_list
 WHERE name IN ('hta_user_annotation_breakdown', 'hta_profiler_steps', 'hta_potential_stragglers',
                'hta_trace_diff');
SELECT 'ann_02_columns', group_concat(name, ',') =
  'rank,name,count,sum_us,max_us,min_us,mean_us,stddev_us,trace_id,job'
  FROM pragma_table_info('hta_user_annotation_breakdown');
SELECT 'ann_03_hidden', group_concat(name, ',') =
  'use_gpu_annotation,duration_ratio,num_kernels,include_last_profiler_step,schema'
  FROM pragma_table_xinfo('hta_user_annotation_breakdown') WHERE hidden;

-- R2: rows by (rank, trace_id, name); the two traces of rank 0 stay apart
SELECT 'ann_04_cpu_rows', group_concat(rank || ':' || trace_id || ':' || name || ':' || count, ',') =
  '0:1:bwd:1,0:1:frac:1,0:1:fwd:2,0:1:inner:2,0:3:fwd:1,1:2:fwd:1'
  FROM hta_user_annotation_breakdown(0);
SELECT 'ann_05_fwd_stats', sum_us = 400.0 AND max_us = 300.0 AND min_us = 100.0 AND mean_us = 200.0
  AND abs(stddev_us - 141.4213562373095) < 1e-9
  FROM hta_user_annotation_breakdown(0) WHERE rank = 0 AND trace_id = 1 AND name = 'fwd';
SELECT 'ann_06_nested', sum_us = 60.0 AND max_us = 40.0 AND min_us = 20.0 AND mean_us = 30.0
  AND abs(stddev_us - 14.142135623730951) < 1e-9
  FROM hta_user_annotation_breakdown(0) WHERE trace_id = 1 AND name = 'inner';
SELECT 'ann_07_single_std0', stddev_us = 0.0 AND count = 1 AND sum_us = 50.0
  FROM hta_user_annotation_breakdown(0) WHERE name = 'bwd';
SELECT 'ann_08_fraction_us', sum_us = 1.5 AND mean_us = 1.5 FROM hta_user_annotation_breakdown(0)
 WHERE name = 'frac';
SELECT 'ann_09_instant_skipped', count(*) = 0 FROM hta_user_annotation_breakdown(0) WHERE name = 'marker';
SELECT 'ann_10_types', typeof(rank) || typeof(name) || typeof(count) || typeof(sum_us) || typeof(trace_id)
  = 'integertextintegerrealinteger' FROM hta_user_annotation_breakdown(0) LIMIT 1;

-- the default is gpu_user_annotation
SELECT 'ann_11_gpu_default', group_concat(rank || ':' || name || ':' || count, ',') = '0:fwd:2'
  FROM hta_user_annotation_breakdown;
SELECT 'ann_12_gpu_stats', sum_us = 400.0 AND mean_us = 200.0 AND max_us = 250.0 AND min_us = 150.0
  AND abs(stddev_us - 70.71067811865476) < 1e-9 FROM hta_user_annotation_breakdown;
SELECT 'ann_13_gpu_named', count(*) = 1 FROM hta_user_annotation_breakdown WHERE use_gpu_annotation = 1;

-- WHERE rank = N
SELECT 'ann_14_rank1', group_concat(name || ':' || sum_us, ',') = 'fwd:70.0'
  FROM hta_user_annotation_breakdown(0) WHERE rank = 1;
SELECT 'ann_15_rank_absent', count(*) = 0 FROM hta_user_annotation_breakdown(0) WHERE rank = 7;
SELECT 'ann_16_rank_null', count(*) = 0 FROM hta_user_annotation_breakdown(0) WHERE rank = NULL;
SELECT 'ann_17_rank_real', count(*) = 5 FROM hta_user_annotation_breakdown(0) WHERE rank = 0.0;

-- the hidden columns read back the values used
SELECT 'ann_18_readback', use_gpu_annotation = 0 AND duration_ratio = 0.8 AND num_kernels = 1000
  AND include_last_profiler_step = 0 FROM hta_user_annotation_breakdown(0) LIMIT 1;
SELECT 'ann_19_named_params', count(*) = 6 FROM hta_user_annotation_breakdown
 WHERE use_gpu_annotation = 0 AND num_kernels = 100000 AND duration_ratio = 1.0;

-- a join feeding the parameter from another table
CREATE TEMP TABLE flags(f);
INSERT INTO temp.flags VALUES (0), (1);
SELECT 'ann_20_join', group_concat(f || ':' || n, ',') = '0:6,1:1' FROM
  (SELECT f, (SELECT count(*) FROM hta_user_annotation_breakdown(temp.flags.f)) AS n FROM temp.flags);
SELECT 'ann_21_join_lateral', count(*) = 7 FROM temp.flags, hta_user_annotation_breakdown(temp.flags.f);

-- errors name the function and the parameter
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_user_annotation_breakdown(1, 1.5)' 2>&1 | grep -qF 'hta_user_annotation_breakdown: duration_ratio must be a number between 0 and 1' && echo 'ann_22_err_ratio|1' || echo 'ann_22_err_ratio|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_user_annotation_breakdown(1, 0.8, -1)' 2>&1 | grep -qF 'hta_user_annotation_breakdown: num_kernels must be a non-negative integer' && echo 'ann_23_err_num|1' || echo 'ann_23_err_num|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_user_annotation_breakdown(NULL)' 2>&1 | grep -qF 'hta_user_annotation_breakdown: use_gpu_annotation must be 0 or 1' && echo 'ann_24_err_null|1' || echo 'ann_24_err_null|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_user_annotation_breakdown(1, 0.8, 2.5)' 2>&1 | grep -qF 'hta_user_annotation_breakdown: num_kernels must be a non-negative integer' && echo 'ann_25_err_int|1' || echo 'ann_25_err_int|0'"

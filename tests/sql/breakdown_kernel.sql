-- hta_kernel_breakdown (breakdown_kernel.c KB-5..7; stats.c ST-n; hta_topk_aggregate).
-- Times in µs below, stored as ns. Trace 1 (rank 0), stream 7, one after another:
--   COMPUTATION k_a 40 | k_b 10, 20 | k_c 5, 15 | k_d 10   (per-name sums 40, 30, 20, 10)
--   COMMUNICATION ncclKernel_x 7 | MEMORY Memset (Device) 1, 3 | OTHER Context Sync 2
-- Traces 2 and 3 both claim rank 1: x 10, y 10, z 10 in trace 2; x 4 in trace 3.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 'file_name', 'w1a.json', 0, 'h2', 0),
       (3, 1, 'file_name', 'w1b.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'kernel', 'k_a', 0, 40, 7), (1, 1, 'kernel', 'k_b', 100, 10, 7), (1, 2, 'kernel', 'k_b', 200, 20, 7),
  (1, 3, 'kernel', 'k_c', 300, 5, 7), (1, 4, 'kernel', 'k_c', 400, 15, 7), (1, 5, 'kernel', 'k_d', 500, 10, 7),
  (1, 6, 'kernel', 'ncclKernel_x', 600, 7, 8), (1, 7, 'gpu_memset', 'Memset (Device)', 700, 1, 7),
  (1, 8, 'gpu_memset', 'Memset (Device)', 710, 3, 7), (1, 9, 'cuda_sync', 'Context Sync', 800, 2, 7),
  (2, 0, 'kernel', 'z', 0, 10, 7), (2, 1, 'kernel', 'y', 20, 10, 7), (2, 2, 'kernel', 'x', 40, 10, 7),
  (3, 0, 'Kernel', 'x', 0, 4, 7);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat), (SELECT string_id FROM string WHERE value = name),
       1, 1, ts * 1000, dur * 1000, stream
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'kb_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_kernel_breakdown')) =
  'rank,kernel_type,name,count,sum_us,max_us,min_us,mean_us,stddev_us,trace_id,job';
SELECT 'kb_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_kernel_breakdown') WHERE hidden) =
  'duration_ratio,num_kernels,include_memory_kernels,include_last_profiler_step,schema';

-- Defaults (0.8, 10, 1): every name on its own row, per-instance statistics (KB-5);
-- rows by (rank, trace_id, kernel_type, name) (KB-7); OTHER never appears (KB-1).
SELECT 'kb_default_rows', (SELECT group_concat(rank || ':' || trace_id || ':' || kernel_type || ':' || name || ':' || count, ',') FROM hta_kernel_breakdown) =
  '0:1:COMMUNICATION:ncclKernel_x:1,0:1:COMPUTATION:k_a:1,0:1:COMPUTATION:k_b:2,0:1:COMPUTATION:k_c:2,0:1:COMPUTATION:k_d:1,0:1:MEMORY:Memset (Device):2,'
  || '1:2:COMPUTATION:x:1,1:2:COMPUTATION:y:1,1:2:COMPUTATION:z:1,1:3:COMPUTATION:x:1';
SELECT 'kb_stats_kb', sum_us = 30 AND max_us = 20 AND min_us = 10 AND mean_us = 15 AND abs(stddev_us - 7.0710678118654755) < 1e-12
  FROM hta_kernel_breakdown WHERE rank = 0 AND name = 'k_b';
SELECT 'kb_single_std0', stddev_us = 0 AND mean_us = 40 FROM hta_kernel_breakdown WHERE name = 'k_a';
SELECT 'kb_memory', count = 2 AND sum_us = 4 AND mean_us = 2 AND abs(stddev_us - sqrt(2)) < 1e-12 FROM hta_kernel_breakdown WHERE kernel_type = 'MEMORY';
SELECT 'kb_no_memory', (SELECT count(*) FROM hta_kernel_breakdown(0.8, 10, 0) WHERE kernel_type = 'MEMORY') = 0
  AND (SELECT count(*) FROM hta_kernel_breakdown(0.8, 10, 0)) = 9;
SELECT 'kb_same_rank_apart', (SELECT group_concat(trace_id || '=' || sum_us, ',') FROM hta_kernel_breakdown WHERE rank = 1 AND name = 'x') = '2=10.0,3=4.0';
SELECT 'kb_params_read_back', (SELECT group_concat(DISTINCT duration_ratio || '/' || num_kernels || '/' || include_memory_kernels || '/' || include_last_profiler_step)
  FROM hta_kernel_breakdown(0.5, 3)) = '0.5/3/1/0';

-- "others" (KB-6, D3). (0.5, 3): cumsums 40 70 90 100, q = 80: k_c and k_d fold by the
-- quantile rule; others = their 3 instances 5, 15, 10.
SELECT 'kb_others_rows', (SELECT group_concat(name, ',') FROM hta_kernel_breakdown(0.5, 3) WHERE rank = 0 AND kernel_type = 'COMPUTATION') = 'k_a,k_b,others';
SELECT 'kb_others_stats', count = 3 AND sum_us = 30 AND max_us = 15 AND min_us = 5 AND mean_us = 10 AND abs(stddev_us - 5) < 1e-12
  FROM hta_kernel_breakdown(0.5, 3) WHERE rank = 0 AND name = 'others';
SELECT 'kb_kept_true_stats', count = 2 AND max_us = 20 AND min_us = 10 FROM hta_kernel_breakdown(0.5, 3) WHERE name = 'k_b';
-- (1.0, 3): q = 100, nothing exceeds it; the position rule alone folds k_d.
SELECT 'kb_position_rule', (SELECT group_concat(name || ':' || count || ':' || sum_us, ',') FROM hta_kernel_breakdown(1.0, 3) WHERE rank = 0 AND kernel_type = 'COMPUTATION') =
  'k_a:1:40.0,k_b:2:30.0,k_c:2:20.0,others:1:10.0';
-- (0.0, 3): q = the smallest cumsum (40): only k_a stays.
SELECT 'kb_ratio_zero', (SELECT group_concat(name || ':' || count, ',') FROM hta_kernel_breakdown(0.0, 3) WHERE rank = 0 AND kernel_type = 'COMPUTATION') = 'k_a:1,others:5';
-- Four names, num_kernels 4 (or more): the rule does not apply at all.
SELECT 'kb_rule_needs_more_names', (SELECT count(*) FROM hta_kernel_breakdown(0.0, 4) WHERE rank = 0 AND kernel_type = 'COMPUTATION') = 4;
-- num_kernels 0: everything folds; others = all 6 instances 40 10 20 5 15 10.
SELECT 'kb_all_others', count = 6 AND sum_us = 100 AND max_us = 40 AND min_us = 5 AND abs(mean_us - 100.0 / 6) < 1e-12
  AND abs(stddev_us - 12.516655570345725) < 1e-9
  FROM hta_kernel_breakdown(0.8, 0) WHERE rank = 0 AND kernel_type = 'COMPUTATION';
-- Equal sums order by name (x, y, z); "others" comes last (KB-7).
SELECT 'kb_ties_by_name', (SELECT group_concat(name, ',') FROM hta_kernel_breakdown(1.0, 2) WHERE trace_id = 2) = 'x,y,others';
SELECT 'kb_others_single', (SELECT count = 1 AND stddev_us = 0 FROM hta_kernel_breakdown(1.0, 2) WHERE trace_id = 2 AND name = 'others');
SELECT 'kb_rank_filter', (SELECT count(*) FROM hta_kernel_breakdown WHERE rank = 1) = 4 AND (SELECT count(*) FROM hta_kernel_breakdown WHERE rank = 7) = 0;
-- A user rule moves kernels between types (KT-1).
INSERT INTO kernel_type_rule(priority, pattern, kernel_type) VALUES (20, 'k_[cd]', 'COMMUNICATION');
SELECT 'kb_user_rule', (SELECT group_concat(name, ',') FROM hta_kernel_breakdown WHERE rank = 0 AND kernel_type = 'COMMUNICATION') = 'k_c,k_d,ncclKernel_x';
DELETE FROM kernel_type_rule WHERE priority = 20;

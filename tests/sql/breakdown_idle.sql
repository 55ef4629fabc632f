-- hta_idle_time_breakdown and hta_idle_interval_stats (breakdown_idle.c IT-1..6).
-- Times in µs below, stored as ns. Trace 1 (rank 0):
--   seq 0   a host op at t=1000 (HTA joined unlinked kernels to event 0: D4 says never)
--   seq 1   stream 9: one kernel (first in the file, so stream 9 comes first)
--   stream 7, by ts: k1 [100,110) launch 50 | k2 [115,125) launch 60 | k3 [200,210) launch 150
--     | k4 memcpy [260,270) launch 100 | k5 [290,295) no link | k6 [400,405) correlated, no link;
--     a cuda_sync row [130,190) on stream 7 is not a kernel (IT-1).
--   stream 5: ka [100,150) and kb [100,110) tie on ts (file order), then kc [200,210).
-- Trace 2 (rank 1): only a sync row with a stream: no kernels, no rows.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'cpu_op', 'aten::big', 1000, 10, NULL, NULL, NULL),
  (1, 1, 'kernel', 'k9', 10, 5, 9, NULL, NULL),
  (1, 2, 'cuda_runtime', 'cudaLaunchKernel', 50, 2, NULL, 1, 10),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 60, 2, NULL, 2, 11),
  (1, 4, 'cuda_runtime', 'cudaLaunchKernel', 150, 2, NULL, 3, 12),
  (1, 5, 'cuda_runtime', 'cudaMemcpyAsync', 100, 2, NULL, 4, 13),
  (1, 10, 'kernel', 'k1', 100, 10, 7, 1, 2),
  (1, 11, 'kernel', 'k2', 115, 10, 7, 2, 3),
  (1, 12, 'kernel', 'k3', 200, 10, 7, 3, 4),
  (1, 13, 'gpu_memcpy', 'Memcpy DtoD (Device -> Device)', 260, 10, 7, 4, 5),
  (1, 14, 'kernel', 'k5', 290, 5, 7, NULL, NULL),
  (1, 15, 'kernel', 'k6', 400, 5, 7, 77, NULL),
  (1, 16, 'cuda_sync', 'Stream Wait Event', 130, 60, 7, NULL, NULL),
  (1, 20, 'kernel', 'ka', 100, 50, 5, NULL, NULL),
  (1, 21, 'kernel', 'kb', 100, 10, 5, NULL, NULL),
  (1, 22, 'kernel', 'kc', 200, 10, 5, NULL, NULL),
  (2, 0, 'cuda_sync', 'Context Sync', 0, 10, 7, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, link_id)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat), (SELECT string_id FROM string WHERE value = name),
       1, 1, ts * 1000, dur * 1000, stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'it_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_idle_time_breakdown')) =
  'rank,stream,idle_category,idle_time_us,idle_time_ratio,trace_id,job';
SELECT 'it_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_idle_time_breakdown') WHERE hidden) =
  'consecutive_kernel_delay_us,include_last_profiler_step,schema';
SELECT 'is_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_idle_interval_stats')) =
  'rank,stream,idle_category,count,mean_us,std_us,min_us,p25_us,p50_us,p75_us,max_us,trace_id,job';
SELECT 'is_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_idle_interval_stats') WHERE hidden) =
  'consecutive_kernel_delay_us,include_last_profiler_step,schema';

-- Default delay 30 us. Streams in order of first appearance (IT-2), categories in order (IT-5).
SELECT 'it_rows', (SELECT group_concat(stream || ':' || idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown) =
  '9:other=0.0,7:host_wait=75.0,7:kernel_wait=25.0,7:other=155.0,5:kernel_wait=-50.0,5:other=90.0';
SELECT 'it_ratio_s7', (SELECT abs(idle_time_ratio - 75.0 / 255) < 1e-12 FROM hta_idle_time_breakdown WHERE stream = 7 AND idle_category = 'host_wait')
  AND (SELECT abs(idle_time_ratio - 155.0 / 255) < 1e-12 FROM hta_idle_time_breakdown WHERE stream = 7 AND idle_category = 'other');
SELECT 'it_ratio_zero_total_null', (SELECT idle_time_ratio IS NULL FROM hta_idle_time_breakdown WHERE stream = 9);
SELECT 'it_negative_gap', (SELECT idle_time_ratio FROM hta_idle_time_breakdown WHERE stream = 5 AND idle_category = 'kernel_wait') = -1.25;
SELECT 'it_rank_trace', (SELECT group_concat(DISTINCT rank || ':' || trace_id) FROM hta_idle_time_breakdown) = '0:1';
SELECT 'it_no_kernels_no_rows', (SELECT count(*) FROM hta_idle_time_breakdown WHERE rank = 1) = 0;
-- Delay 0: only negative gaps are kernel_wait; stream 7 has none.
SELECT 'it_delay0', (SELECT group_concat(stream || ':' || idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown(0)) =
  '9:other=0.0,7:host_wait=75.0,7:other=180.0,5:kernel_wait=-50.0,5:other=90.0';
-- Delay 100: k4's gap (50) becomes kernel_wait; k6's (105) stays other.
SELECT 'it_delay100', (SELECT group_concat(idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown(100) WHERE stream = 7) =
  'host_wait=75.0,kernel_wait=75.0,other=105.0';
-- The comparison is strict: a gap equal to the delay is "other".
SELECT 'it_delay_strict', (SELECT group_concat(idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown(20) WHERE stream = 7) =
  'host_wait=75.0,kernel_wait=5.0,other=175.0';
SELECT 'it_delay_fraction', (SELECT group_concat(idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown(20.5) WHERE stream = 7) =
  'host_wait=75.0,kernel_wait=25.0,other=155.0';
SELECT 'it_delay_reads_back', (SELECT DISTINCT consecutive_kernel_delay_us FROM hta_idle_time_breakdown(12.5)) = 12.5;

-- Interval statistics (IT-6): describe() of each category's gaps.
SELECT 'is_rows', (SELECT group_concat(stream || ':' || idle_category || ':' || count, ',') FROM hta_idle_interval_stats) =
  '9:other:0,7:host_wait:1,7:kernel_wait:2,7:other:2,5:kernel_wait:1,5:other:1';
SELECT 'is_first_only_null', (SELECT mean_us IS NULL AND std_us IS NULL AND min_us IS NULL AND max_us IS NULL FROM hta_idle_interval_stats WHERE stream = 9);
SELECT 'is_single_std_null', (SELECT mean_us = 75 AND std_us IS NULL AND min_us = 75 AND p25_us = 75 AND p50_us = 75 AND p75_us = 75 AND max_us = 75
  FROM hta_idle_interval_stats WHERE stream = 7 AND idle_category = 'host_wait');
SELECT 'is_kernel_wait', (SELECT mean_us = 12.5 AND abs(std_us - 10.606601717798213) < 1e-12 AND min_us = 5 AND p25_us = 8.75
  AND p50_us = 12.5 AND p75_us = 16.25 AND max_us = 20 FROM hta_idle_interval_stats WHERE stream = 7 AND idle_category = 'kernel_wait');
SELECT 'is_other', (SELECT mean_us = 77.5 AND abs(std_us - 38.890872965260115) < 1e-12 AND min_us = 50 AND p25_us = 63.75
  AND p50_us = 77.5 AND p75_us = 91.25 AND max_us = 105 FROM hta_idle_interval_stats WHERE stream = 7 AND idle_category = 'other');
SELECT 'is_delay0', (SELECT group_concat(idle_category || ':' || count, ',') FROM hta_idle_interval_stats(0) WHERE stream = 7) = 'host_wait:1,other:4';
SELECT 'is_rank_filter', (SELECT count(*) FROM hta_idle_interval_stats WHERE rank = 0) = 6 AND (SELECT count(*) FROM hta_idle_interval_stats WHERE rank = 5) = 0;

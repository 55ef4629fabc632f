-- The last-ProfilerStep cut (traces.c TR-1..4, gpu.c GPU-2..3) through the breakdowns,
-- and include_last_profiler_step. Times in µs below, stored as ns.
--   trace 1 (rank 0): host steps #1 [0,100) and #2 [100,200), so cut_ts = 100.
--     k1 [20,30) launched at 10 (kept) | k2 [160,170) launched at 150 (dropped)
--     k3 [50,60) no correlation: a host-like row for HTA, kept since 50 < 100
--     k4 [120,130) no correlation, dropped | k5 [35,40) correlated, no launch: dropped
--   trace 2 (rank 1): host rows but no step of its own: every host row goes, so k goes.
--   trace 3 (rank 2): GPU rows only, no host row at all: HTA leaves it unchanged.
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, NULL),
  (1, 1, 'cpu_op', 'ProfilerStep#2', 100, 100, NULL, NULL, NULL),
  (1, 2, 'cuda_runtime', 'cudaLaunchKernel', 10, 2, NULL, 1, 10),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 150, 2, NULL, 2, 11),
  (1, 10, 'kernel', 'k1', 20, 10, 7, 1, 2),
  (1, 11, 'kernel', 'k2', 160, 10, 7, 2, 3),
  (1, 12, 'kernel', 'k3', 50, 10, 7, NULL, NULL),
  (1, 13, 'kernel', 'k4', 120, 10, 7, NULL, NULL),
  (1, 14, 'kernel', 'k5', 35, 5, 7, 99, NULL),
  (2, 0, 'cpu_op', 'aten::mm', 0, 5, NULL, NULL, NULL),
  (2, 1, 'cuda_runtime', 'cudaLaunchKernel', 1, 2, NULL, 1, 2),
  (2, 2, 'kernel', 'k1', 10, 10, 7, 1, 1),
  (3, 0, 'kernel', 'k1', 0, 10, 7, 5, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, link_id)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat), (SELECT string_id FROM string WHERE value = name),
       1, 1, ts * 1000, dur * 1000, stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT trace_id, CAST(substr(s.value, 14) AS INTEGER), event_id, ts, dur FROM event JOIN string s ON s.string_id = name_id
 WHERE s.value LIKE 'ProfilerStep#%';
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'cut_steps_loaded', (SELECT count(DISTINCT step) FROM profiler_step) = 2;
-- Default: cut. rank 0 keeps k1 and k3: [20,30) [50,60).
SELECT 'cut_tb_r0', (SELECT kernel_time_us = 40 AND idle_time_us = 20 AND compute_time_us = 20 FROM hta_temporal_breakdown WHERE rank = 0);
SELECT 'cut_tb_rows', (SELECT group_concat(rank, ',') FROM hta_temporal_breakdown) = '0,2';
SELECT 'cut_kb_r0', (SELECT group_concat(name, ',') FROM hta_kernel_breakdown WHERE rank = 0) = 'k1,k3';
SELECT 'cut_ktb', (SELECT sum_us FROM hta_kernel_type_breakdown WHERE kernel_type = 'COMPUTATION') = 30.0;
SELECT 'cut_idle_r0', (SELECT group_concat(idle_category || '=' || idle_time_us, ',') FROM hta_idle_time_breakdown WHERE rank = 0) = 'kernel_wait=20.0,other=0.0';
SELECT 'cut_cc_rows', (SELECT group_concat(rank || ':' || ifnull(comp_comm_overlap_pctg, 'null'), ',') FROM hta_comm_comp_overlap) = '0:null,1:null,2:null';
-- A trace without steps of its own loses its host rows, hence its launched kernels (TR-3).
SELECT 'cut_rank_without_steps', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 1) = 0;
-- A trace without any host row is left alone (TR-3).
SELECT 'cut_gpu_only_trace_kept', (SELECT kernel_time_us FROM hta_temporal_breakdown WHERE rank = 2) = 10.0;

-- include_last_profiler_step = 1: no cut anywhere.
SELECT 'last_tb_r0', (SELECT kernel_time_us = 150 AND idle_time_us = 105 AND compute_time_us = 45 FROM hta_temporal_breakdown(1) WHERE rank = 0);
SELECT 'last_tb_rows', (SELECT group_concat(rank, ',') FROM hta_temporal_breakdown(1)) = '0,1,2';
SELECT 'last_named', (SELECT kernel_time_us FROM hta_temporal_breakdown WHERE rank = 1 AND include_last_profiler_step = 1) = 10.0;
SELECT 'last_kb', (SELECT group_concat(name, ',') FROM hta_kernel_breakdown(0.8, 10, 1, 1) WHERE rank = 0) = 'k1,k2,k3,k4,k5';
SELECT 'last_ktb', (SELECT sum_us FROM hta_kernel_type_breakdown(1, 1) WHERE kernel_type = 'COMPUTATION') = 65.0;
SELECT 'last_idle', (SELECT count(*) FROM hta_idle_time_breakdown(30, 1) WHERE rank = 1) = 1;
SELECT 'last_is', (SELECT sum(count) FROM hta_idle_interval_stats(30, 1) WHERE rank = 0) = 4;
SELECT 'last_reads_back', (SELECT DISTINCT include_last_profiler_step FROM hta_comm_comp_overlap(1)) = 1;

-- With a single distinct step number in the database, nothing is cut (TR-3).
DELETE FROM profiler_step WHERE step = 2;
SELECT 'one_step_no_cut', (SELECT kernel_time_us FROM hta_temporal_breakdown WHERE rank = 0) = 150.0
  AND (SELECT count(*) FROM hta_temporal_breakdown) = 3;

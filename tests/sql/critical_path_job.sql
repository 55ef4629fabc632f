-- hta_critical_path_job, _summary, _stats: the job's critical path across ranks
-- (critical_path_job.c CPJ-1..4). Times are µs (the database holds ns). Two ranks
-- meet in one all-reduce; rank 1 is a planted straggler: 500 µs of CPU work
-- (slow_loader) before it launches its share, so rank 0 waits inside its NCCL kernel.
-- link = seq of the correlated partner; host rows pid 1 tid 1, GPU rows pid 0.
CREATE TEMP TABLE ev(t, seq, cat, name, pid, tid, ts, dur, stream, corr, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
-- rank 0: k_mul, then its all-reduce (waits for rank 1 until 590), then k_add, which
-- was launched while the all-reduce ran (queue 2: a kernel-kernel edge, not a launch delay)
  (1, 1, 'user_annotation', 'ProfilerStep#1', 1, 1, 0, 1000, NULL, NULL, NULL, NULL),
  (1, 2, 'cpu_op', 'aten::mul', 1, 1, 10, 20, NULL, NULL, NULL, NULL),             -- [10, 30]
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 15, 5, NULL, 1, 4, NULL),      -- [15, 20]
  (1, 4, 'kernel', 'k_mul', 0, 7, 30, 50, 7, 1, 3, NULL),                           -- [30, 80]
  (1, 5, 'cpu_op', 'c10d::allreduce_', 1, 1, 40, 20, NULL, NULL, NULL, NULL),      -- [40, 60]
  (1, 6, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 45, 5, NULL, 2, 7, NULL),      -- [45, 50]
  (1, 7, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 0, 7, 85, 515, 7, 2, 6,
   '{"Collective name":"allreduce","Process Group Name":"0","Group size":2,"dtype":"Float","In msg nelems":256,"Out msg nelems":256}'),
                                                                                    -- [85, 600]
  (1, 8, 'cpu_op', 'aten::add', 1, 1, 62, 10, NULL, NULL, NULL, NULL),             -- [62, 72]
  (1, 9, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 64, 5, NULL, 3, 10, NULL),     -- [64, 69]
  (1, 10, 'kernel', 'k_add', 0, 7, 600, 100, 7, 3, 9, NULL),                        -- [600, 700]
-- rank 1: slow_loader, k_mul, then its all-reduce, the last to start (590)
  (2, 1, 'user_annotation', 'ProfilerStep#1', 1, 1, 0, 1000, NULL, NULL, NULL, NULL),
  (2, 2, 'cpu_op', 'slow_loader', 1, 1, 10, 500, NULL, NULL, NULL, NULL),          -- [10, 510]
  (2, 3, 'cpu_op', 'aten::mul', 1, 1, 520, 20, NULL, NULL, NULL, NULL),            -- [520, 540]
  (2, 4, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 525, 5, NULL, 1, 5, NULL),     -- [525, 530]
  (2, 5, 'kernel', 'k_mul', 0, 7, 535, 50, 7, 1, 4, NULL),                          -- [535, 585]
  (2, 6, 'cpu_op', 'c10d::allreduce_', 1, 1, 550, 20, NULL, NULL, NULL, NULL),     -- [550, 570]
  (2, 7, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 555, 5, NULL, 2, 8, NULL),     -- [555, 560]
  (2, 8, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 0, 7, 590, 10, 7, 2, 7,
   '{"Collective name":"allreduce","Process Group Name":"0","Group size":2,"dtype":"Float","In msg nelems":256,"Out msg nelems":256}');
                                                                                    -- [590, 600]
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, tid, ts * 1000, dur * 1000,
       stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END, args
FROM temp.ev;
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'cpj_01_columns', group_concat(name, ',') =
  'rank,path_pos,src_event_seq,src_is_start,src_ts_us,dst_event_seq,dst_is_start,dst_ts_us,edge_type,weight_us,duration_us,event_seq,name,cat,pid,tid,stream,bound_by,src_event_id,dst_event_id,event_id,trace_id,src_rank,job'
  FROM pragma_table_info('hta_critical_path_job');

-- Each rank alone (HTA's analysis), worked by hand from spec 5.3-5.6:
-- rank 0: mul.s>launch.s (5, aten::mul), launch delay to k_mul (30 - 15 = 15), k_mul (50),
--   kernel-kernel to the all-reduce (5), the all-reduce (515: mostly waiting for rank 1),
--   kernel-kernel to k_add (0), k_add (100): 690 µs, 17 graph edges.
-- rank 1: slow_loader (500), dependency, mul.s>launch.s (5), launch delay (10), k_mul (50),
--   kernel-kernel (5), the all-reduce (10): 580 µs, 13 graph edges.
SELECT 'cpj_02_ranks_alone', group_concat(rank || ':' || graph_edges || ':' || path_length_us, ' ')
  = '0:17:690.0 1:13:580.0' FROM hta_critical_path_stats;
SELECT 'cpj_03_rank0_comm', duration_us = 515 FROM hta_critical_path_summary
 WHERE rank = 0 AND bound_by = 'gpu_communication_bound';

-- The job's graph: rank 0's all-reduce edge (85 > 600, 515 µs) is replaced by
-- start(rank 0) > start(rank 1) (wait, 0) and start(rank 1) > end(rank 0) (collective,
-- 600 - 590 = 10): 17 + 13 - 1 + 2 = 31 edges; dist(start of rank 1's all-reduce) =
-- max(570 on rank 1, 75 + 0 from rank 0) = 570; end of rank 0's = 580; k_add ends at 680.
-- The path starts at the straggler's slow_loader and ends on rank 0.
SELECT 'cpj_04_stats', status = 'ok' AND ranks = 2 AND ranks_left_out = 0
   AND collectives_joined = 1 AND graph_nodes = 32 AND graph_edges = 31 AND path_nodes = 10
   AND path_length_us = 680 AND path_ranks = 2 AND window_start_us = 0 AND window_end_us = 1000
  FROM hta_critical_path_job_stats;
SELECT 'cpj_05_path', group_concat(src_rank || '.' || src_event_seq
         || (CASE src_is_start WHEN 1 THEN 's' ELSE 'e' END) || '>' || rank || '.' || dst_event_seq
         || (CASE dst_is_start WHEN 1 THEN 's' ELSE 'e' END) || ':' || substr(edge_type, 15)
         || ':' || weight_us, ' ') =
  '1.2s>1.2e:operator:500.0 1.2e>1.3s:dependency:0.0 1.3s>1.4s:operator:5.0 '
  || '1.4s>1.5s:kernel_launch_delay:10.0 1.5s>1.5e:operator:50.0 '
  || '1.5e>1.8s:kernel_kernel_delay:5.0 1.8s>0.7e:collective:10.0 '
  || '0.7e>0.10s:kernel_kernel_delay:0.0 0.10s>0.10e:operator:100.0'
  FROM (SELECT * FROM hta_critical_path_job ORDER BY path_pos);
-- the crossing edge: attributed to rank 0's all-reduce kernel
SELECT 'cpj_06_crossing', name = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL' AND event_seq = 7
   AND bound_by = 'gpu_communication_bound' AND duration_us = 10 AND stream = 7
   AND event_id = (1 << 32) | 7 AND trace_id = 1 AND src_ts_us = 590 AND dst_ts_us = 600
  FROM hta_critical_path_job WHERE edge_type = 'critical_path_collective';
SELECT 'cpj_07_straggler_on_path', name = 'slow_loader' AND bound_by = 'cpu_bound' AND rank = 1
   AND weight_us = 500 AND path_pos = 0
  FROM hta_critical_path_job WHERE event_seq = 2 AND rank = 1;
-- rank 0's 515 µs of waiting is not on the job's path
SELECT 'cpj_08_wait_off_path', count(*) = 0 FROM hta_critical_path_job
 WHERE rank = 0 AND weight_us > 100;
-- summary: per rank, shares of the whole 680 µs
SELECT 'cpj_09_summary', group_concat(rank || ':' || bound_by || ':' || duration_us, ',') =
  '0:gpu_communication_bound:10.0,0:gpu_compute_bound:100.0,0:gpu_kernel_kernel_overhead:0.0,'
  || '1::0.0,1:cpu_bound:505.0,1:gpu_compute_bound:50.0,1:gpu_kernel_kernel_overhead:5.0,'
  || '1:gpu_kernel_launch_overhead:10.0'
  FROM hta_critical_path_job_summary;
SELECT 'cpj_10_pct', abs(percentage - 100.0 * 505 / 680) < 1e-12
  FROM hta_critical_path_job_summary WHERE rank = 1 AND bound_by = 'cpu_bound';
SELECT 'cpj_11_pct_total', abs(sum(percentage) - 100) < 1e-9 FROM hta_critical_path_job_summary;
-- WHERE rank = N: that rank's rows of the one job path (positions keep their place)
SELECT 'cpj_12_rank_filter', group_concat(path_pos) = '6,7,8'
  FROM hta_critical_path_job WHERE rank = 0;
SELECT 'cpj_13_rank_summary', group_concat(bound_by) =
  'gpu_communication_bound,gpu_compute_bound,gpu_kernel_kernel_overhead'
  FROM hta_critical_path_job_summary WHERE rank = 0;
-- no second ProfilerStep instance on any rank: no path, and the reason
SELECT 'cpj_14_no_instance', status = 'no rank has a critical path (rank 0: failed: no such instance)'
   AND ranks_left_out = 2
   AND path_nodes IS NULL FROM hta_critical_path_job_stats('ProfilerStep', 1);
SELECT 'cpj_15_no_rows', count(*) = 0 FROM hta_critical_path_job('ProfilerStep', 1);

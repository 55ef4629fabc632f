-- hta_temporal_breakdown, hta_kernel_type_breakdown and hta_comm_comp_overlap on a
-- hand-made job of 4 traces (requirement ids: TB-n breakdown_temporal.c, KB-n
-- breakdown_kernel.c, CC-n comm_comp_overlap.c, TR-n traces.c, GPU-n gpu.c).
-- Times below are in µs and stored as ns (x 1000); outputs are µs.
--   rank 0 (trace 1): stream 7: gemm_a [10,30) C, gemm_a [40,50) C, Stream Wait Event
--     [50,52) (a GPU row of type OTHER), Memcpy [60,65) M; stream 8: nccl [20,50) N,
--     fused [70,80) C. Launches on the host link to every kernel.
--   rank 1 (trace 2): gemm_a [0,100) C, nccl [50,150) N, Memset [100,110) M.
--   rank 2 (trace 3): host rows only.   rank 3 (trace 4): no kept event (min_ts NULL).
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0), (4, 3, 'distributedInfo', 'r3.json', 0, 'h4', 0);
INSERT INTO temp.ev VALUES
  (1, 0, 'cpu_op', 'aten::mm', 0, 100, NULL, NULL, NULL),
  (1, 1, 'cuda_runtime', 'cudaLaunchKernel', 1, 2, NULL, 1, 10),
  (1, 2, 'cuda_runtime', 'cudaLaunchKernel', 3, 2, NULL, 2, 11),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 5, 2, NULL, 3, 12),
  (1, 4, 'cuda_runtime', 'cudaMemcpyAsync', 7, 2, NULL, 4, 13),
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 9, 2, NULL, 5, 14),
  (1, 10, 'kernel', 'gemm_a', 10, 20, 7, 1, 1),
  (1, 11, 'kernel', 'ncclKernel_AllReduce', 20, 30, 8, 2, 2),
  (1, 12, 'kernel', 'gemm_a', 40, 10, 7, 3, 3),
  (1, 13, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 60, 5, 7, 4, 4),
  (1, 14, 'kernel', 'fused_kernel<float>(int)', 70, 10, 8, 5, 5),
  (1, 15, 'cuda_sync', 'Stream Wait Event', 50, 2, 7, NULL, NULL),
  (2, 0, 'kernel', 'gemm_a', 0, 100, 7, NULL, NULL),
  (2, 1, 'kernel', 'ncclKernel_AllReduce', 50, 100, 9, NULL, NULL),
  (2, 2, 'gpu_memset', 'Memset (Device)', 100, 10, 7, NULL, NULL),
  (3, 0, 'cpu_op', 'aten::add', 0, 10, NULL, NULL, NULL);
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

-- Columns exactly as DESIGN 4, trace_id last, parameters hidden.
SELECT 'tb_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_temporal_breakdown')) =
  'rank,idle_time_us,compute_time_us,non_compute_time_us,kernel_time_us,idle_time_pctg,compute_time_pctg,non_compute_time_pctg,trace_id,job';
SELECT 'tb_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_temporal_breakdown') WHERE hidden) = 'include_last_profiler_step,schema';
SELECT 'ktb_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_kernel_type_breakdown')) = 'kernel_type,sum_us,percentage,job';
SELECT 'ktb_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_kernel_type_breakdown') WHERE hidden) = 'include_memory_kernels,include_last_profiler_step,rank,schema';
SELECT 'cc_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_comm_comp_overlap')) = 'rank,comp_comm_overlap_pctg,trace_id,job';
SELECT 'cc_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_comm_comp_overlap') WHERE hidden) = 'include_last_profiler_step,schema';

-- Temporal (TB-1..4): rank 0 merged [10,52) [60,65) [70,80): kernel 70, idle 13, compute 40,
-- non-compute 17 (communication alone 10, the OTHER row 2, memory 5).
SELECT 'tb_rows', (SELECT group_concat(rank || ':' || trace_id, ',') FROM hta_temporal_breakdown) = '0:1,1:2';
SELECT 'tb_r0_times', idle_time_us = 13.0 AND compute_time_us = 40.0 AND non_compute_time_us = 17.0 AND kernel_time_us = 70.0
  FROM hta_temporal_breakdown WHERE rank = 0;
SELECT 'tb_r0_pctg', abs(idle_time_pctg - 100.0 * 13 / 70) < 1e-9 AND abs(compute_time_pctg - 100.0 * 40 / 70) < 1e-9
  AND abs(non_compute_time_pctg - 100.0 * 17 / 70) < 1e-9 FROM hta_temporal_breakdown WHERE rank = 0;
SELECT 'tb_r0_pctg_sum', abs(idle_time_pctg + compute_time_pctg + non_compute_time_pctg - 100) < 1e-9 FROM hta_temporal_breakdown WHERE rank = 0;
-- rank 1: everything touches or overlaps: [0,150), no idle time.
SELECT 'tb_r1', idle_time_us = 0 AND compute_time_us = 100 AND non_compute_time_us = 50 AND kernel_time_us = 150
  AND idle_time_pctg = 0 AND abs(compute_time_pctg - 200.0 / 3) < 1e-9 FROM hta_temporal_breakdown WHERE rank = 1;
SELECT 'tb_r1_types', typeof(idle_time_us) = 'real' AND typeof(rank) = 'integer' AND typeof(trace_id) = 'integer' FROM hta_temporal_breakdown WHERE rank = 1;
-- rank 2 has no GPU row, rank 3 no kept event, rank 9 does not exist: no rows, no error.
SELECT 'tb_no_gpu_no_row', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 2) = 0;
SELECT 'tb_empty_trace', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 3) = 0;
SELECT 'tb_unknown_rank', (SELECT count(*) FROM hta_temporal_breakdown WHERE rank = 9) = 0;

-- Kernel types (KB-1..4): summed over ranks. rank 0: C 20, C+N 20, N 10, M 5; rank 1: C 50, C+N 50,
-- N+M 10, N 40. At t=100 on rank 1 compute ends where memset starts: no zero-length label (KB-3).
SELECT 'ktb_rows', (SELECT group_concat(kernel_type || '=' || sum_us, ',') FROM hta_kernel_type_breakdown) =
  'COMPUTATION=70.0,COMPUTATION overlapping COMMUNICATION=70.0,COMMUNICATION=50.0,COMMUNICATION overlapping MEMORY=10.0,MEMORY=5.0';
SELECT 'ktb_pct', (SELECT abs(percentage - 100.0 * 50 / 205) < 1e-9 FROM hta_kernel_type_breakdown WHERE kernel_type = 'COMMUNICATION');
SELECT 'ktb_pct_sum', (SELECT abs(sum(percentage) - 100) < 1e-9 FROM hta_kernel_type_breakdown);
SELECT 'ktb_no_instant_label', (SELECT count(*) FROM hta_kernel_type_breakdown WHERE kernel_type = 'COMPUTATION overlapping MEMORY') = 0;
SELECT 'ktb_no_other', (SELECT count(*) FROM hta_kernel_type_breakdown WHERE kernel_type LIKE '%OTHER%') = 0;
SELECT 'ktb_rank0', (SELECT group_concat(kernel_type || '=' || sum_us, ',') FROM hta_kernel_type_breakdown WHERE rank = 0) =
  'COMPUTATION=20.0,COMPUTATION overlapping COMMUNICATION=20.0,COMMUNICATION=10.0,MEMORY=5.0';
SELECT 'ktb_rank_hidden_reads_back', (SELECT DISTINCT rank FROM hta_kernel_type_breakdown WHERE rank = 1) = 1;
SELECT 'ktb_rank_unknown', (SELECT count(*) FROM hta_kernel_type_breakdown WHERE rank = 9) = 0;
SELECT 'ktb_no_memory', (SELECT group_concat(kernel_type || '=' || sum_us, ',') FROM hta_kernel_type_breakdown(0)) =
  'COMPUTATION=70.0,COMPUTATION overlapping COMMUNICATION=70.0,COMMUNICATION=60.0';
SELECT 'ktb_param_reads_back', (SELECT DISTINCT include_memory_kernels FROM hta_kernel_type_breakdown(0)) = 0;

-- Overlap (CC-1..3): rank 0: 20 of 30 us of communication overlap compute; rank 1: 50 of 100;
-- rank 2 (no GPU work) NULL; rank 3 (no kept event) no row.
SELECT 'cc_rows', (SELECT group_concat(rank || ':' || trace_id, ',') FROM hta_comm_comp_overlap) = '0:1,1:2,2:3';
SELECT 'cc_r0', (SELECT abs(comp_comm_overlap_pctg - 200.0 / 3) < 1e-9 FROM hta_comm_comp_overlap WHERE rank = 0);
SELECT 'cc_r1', (SELECT comp_comm_overlap_pctg FROM hta_comm_comp_overlap WHERE rank = 1) = 50.0;
SELECT 'cc_r2_null', (SELECT comp_comm_overlap_pctg IS NULL FROM hta_comm_comp_overlap WHERE rank = 2);

-- A user's rule changes every analysis (KT-1): fused_* becomes communication.
INSERT INTO kernel_type_rule(priority, pattern, kernel_type) VALUES (10, 'fused_*', 'COMMUNICATION');
SELECT 'rule_tb', (SELECT compute_time_us = 30 AND non_compute_time_us = 27 FROM hta_temporal_breakdown WHERE rank = 0);
SELECT 'rule_ktb', (SELECT sum_us FROM hta_kernel_type_breakdown WHERE rank = 0 AND kernel_type = 'COMMUNICATION') = 20.0;
SELECT 'rule_cc', (SELECT comp_comm_overlap_pctg FROM hta_comm_comp_overlap WHERE rank = 0) = 50.0;
DELETE FROM kernel_type_rule WHERE priority = 10;
SELECT 'rule_removed', (SELECT compute_time_us FROM hta_temporal_breakdown WHERE rank = 0) = 40.0;

-- hta_critical_path_job's one deviation from HTA's graph (critical_path_job.c CPJ-5):
-- a cudaMemcpyAsync that returned only after its copy ended waited for the GPU, so its
-- duration weighs 0 and a sync edge joins the copy's end to the call's end. One rank
-- (µs; link = seq of the correlated partner; host rows pid 1 tid 1, GPU rows pid 0).
CREATE TEMP TABLE ev(seq, cat, name, pid, tid, ts, dur, stream, corr, link);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0);
INSERT INTO temp.ev VALUES
  (1, 'user_annotation', 'ProfilerStep#1', 1, 1, 0, 1000, NULL, NULL, NULL),
  (2, 'cpu_op', 'aten::mul', 1, 1, 10, 20, NULL, NULL, NULL),                    -- [10, 30]
  (3, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 15, 5, NULL, 1, 4),             -- [15, 20]
  (4, 'kernel', 'k', 0, 7, 30, 300, 7, 1, 3),                                      -- [30, 330]
  (5, 'cpu_op', 'aten::item', 1, 1, 40, 370, NULL, NULL, NULL),                  -- [40, 410]
  (6, 'cuda_runtime', 'cudaMemcpyAsync', 1, 1, 45, 350, NULL, 2, 7),             -- [45, 395]
  (7, 'gpu_memcpy', 'Memcpy DtoH (Device -> Pageable)', 0, 7, 330, 60, 7, 2, 6); -- [330, 390]
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, tid, ts * 1000, dur * 1000,
       stream, corr, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END
FROM temp.ev;
UPDATE trace SET event_count = 7, min_ts = 0, max_end = 1000000;

-- HTA (spec 5.4-5.6): the copy's call counts its 350 µs as CPU time. CPU chain: mul.s>launch.s
-- (5), the launch (5), launch.e>mul.e (10), dependency, item.s>copy.s (5), the copy call
-- (350), copy.e>item.e (15) = 390; the GPU chain reaches the copy's end at 5+15+300+0+60 = 380.
-- Edges: 2 calls (pass 1) + 5 nesting (pass 2) + 2 GPU rows, a launch delay, a
-- kernel-kernel edge (pass 3) = 11.
SELECT 'cpc_01_hta', path_length_us = 390 AND graph_edges = 11 FROM hta_critical_path_stats;
SELECT 'cpc_02_hta_call', count(*) = 1 FROM hta_critical_path
 WHERE name = 'cudaMemcpyAsync' AND weight_us = 350;
-- The job's graph: the call weighs 0, the sync edge brings the GPU chain to its end (380),
-- item ends 15 later: 395, through the kernel and the copy (7 edges, 8 nodes).
SELECT 'cpc_03_job', status = 'ok' AND graph_edges = 12 AND path_length_us = 395
   AND path_nodes = 8 AND path_ranks = 1 AND collectives_joined = 0
  FROM hta_critical_path_job_stats;
SELECT 'cpc_04_job_path', group_concat(src_event_seq
         || (CASE src_is_start WHEN 1 THEN 's' ELSE 'e' END) || '>' || dst_event_seq
         || (CASE dst_is_start WHEN 1 THEN 's' ELSE 'e' END) || ':' || substr(edge_type, 15)
         || ':' || weight_us, ' ') =
  '2s>3s:operator:5.0 3s>4s:kernel_launch_delay:15.0 4s>4e:operator:300.0 '
  || '4e>7s:kernel_kernel_delay:0.0 7s>7e:operator:60.0 7e>6e:sync_dependency:0.0 '
  || '6e>5e:operator:15.0'
  FROM (SELECT * FROM hta_critical_path_job ORDER BY path_pos);
SELECT 'cpc_05_job_summary', group_concat(bound_by || ':' || duration_us, ',') =
  ':0.0,cpu_bound:20.0,gpu_compute_bound:360.0,gpu_kernel_kernel_overhead:0.0,'
  || 'gpu_kernel_launch_overhead:15.0'
  FROM hta_critical_path_job_summary;

-- hta_critical_path, _summary, _graph, _stats (critical_path.c CP-1..6,
-- critical_path_build.c CPG-1..8; spec 5). Times below are µs (the database holds ns).
-- link = seq of the correlated partner; host rows pid 1 tid 1, GPU rows pid 0.
CREATE TEMP TABLE ev(t, seq, cat, name, pid, tid, ts, dur, stream, corr, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
-- Rank 0: nested operators, two launch delays, a kernel-kernel delay, and a
-- cudaStreamSynchronize whose Stream Sync row (args.stream 7) blocks the CPU.
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 1, 1, 0, 120, NULL, NULL, NULL, NULL),
  (1, 2, 'cpu_op', 'aten::add', 1, 1, 10, 30, NULL, NULL, NULL, NULL),          -- [10, 40]
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 15, 5, NULL, 1, 4, NULL),   -- [15, 20]
  (1, 4, 'kernel', 'k1', 0, 7, 25, 10, 7, 1, 3, NULL),                           -- [25, 35]
  (1, 5, 'cpu_op', 'aten::mul', 1, 1, 45, 20, NULL, NULL, NULL, NULL),          -- [45, 65]
  (1, 6, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 50, 5, NULL, 2, 7, NULL),   -- [50, 55]
  (1, 7, 'kernel', 'k2', 0, 7, 56, 30, 7, 2, 6, NULL),                           -- [56, 86]
  (1, 8, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 60, 3, NULL, 3, 9, NULL),   -- [60, 63]
  (1, 9, 'kernel', 'k3', 0, 7, 86, 4, 7, 3, 8, NULL),                            -- [86, 90]
  (1, 10, 'cuda_runtime', 'cudaStreamSynchronize', 1, 1, 70, 25, NULL, 4, 11, NULL), -- [70, 95]
  (1, 11, 'cuda_sync', 'Stream Sync', 0, 7, 89, 1, NULL, 4, 10, '{"stream":7}'),
  (1, 12, 'cpu_op', 'aten::copy_', 1, 1, 96, 10, NULL, NULL, NULL, NULL),      -- [96, 106]
-- Rank 1: kB on stream 8 waits (Stream Wait Event) for kA on stream 7; the host
-- waits for kB with cudaEventSynchronize (Event Sync on the record of corr 6).
  (2, 1, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 0, 5, NULL, 1, 3, NULL),
  (2, 2, 'cuda_runtime', 'cudaEventRecord', 1, 1, 6, 2, NULL, 2, NULL, NULL),
  (2, 3, 'kernel', 'kA', 0, 7, 10, 100, 7, 1, 1, NULL),                          -- [10, 110]
  (2, 4, 'cuda_runtime', 'cudaStreamWaitEvent', 1, 1, 9, 2, NULL, 3, 5, NULL),
  (2, 5, 'cuda_sync', 'Stream Wait Event', 0, 8, 11, 1, NULL, 3, 4,
   '{"stream":8,"wait_on_stream":7,"wait_on_cuda_event_record_corr_id":2}'),
  (2, 6, 'cuda_runtime', 'cudaLaunchKernel', 1, 1, 12, 5, NULL, 4, 7, NULL),
  (2, 7, 'kernel', 'kB', 0, 8, 110, 20, 8, 4, 6, NULL),                          -- [110, 130]
  (2, 8, 'cuda_runtime', 'cudaEventRecord', 1, 1, 18, 1, NULL, 6, NULL, NULL),
  (2, 9, 'cuda_runtime', 'cudaEventSynchronize', 1, 1, 20, 115, NULL, 5, 10, NULL), -- [20, 135]
  (2, 10, 'cuda_sync', 'Event Sync', 0, -1, 130, 1, NULL, 5, 9,
   '{"stream":-1,"wait_on_stream":8,"wait_on_cuda_event_record_corr_id":6}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (t << 32) | seq, t, t - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, tid, ts * 1000, dur * 1000,
       stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END, args
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES (1, 1, (1 << 32) | 1, 0, 120000);
UPDATE trace SET
  event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'cp_01_columns', group_concat(name, ',') =
  'rank,path_pos,src_event_seq,src_is_start,src_ts_us,dst_event_seq,dst_is_start,dst_ts_us,edge_type,weight_us,duration_us,event_seq,name,cat,pid,tid,stream,bound_by,src_event_id,dst_event_id,event_id,trace_id,job'
  FROM pragma_table_info('hta_critical_path');
SELECT 'cp_02_hidden', group_concat(name, ',') =
  'annotation,instance_id,add_zero_weight_launch_edges,include_last_profiler_step,schema'
  FROM pragma_table_xinfo('hta_critical_path') WHERE hidden;

-- Rank 0, ProfilerStep#1 = [0, 120]. Nodes (ts, seq, start first) 0..21:
-- 2s 3s 3e 4s 4e 2e 5s 6s 6e 7s 8s 8e 5e 10s 7e@86 9s@86 11s 9e@90 11e@90 10e 12s 12e.
-- Pass 1 (lock): 3s->3e, 6s->6e, 8s->8e (operator). Pass 2: 2s->3s (5), 3e->2e (20),
-- 2e->5s (dependency), 5s->6s (5), 6e->8s (5, attributed to the parent aten::mul),
-- 8e->5e (2), 5e->10s (dependency), 10s->10e (0: blocking), 10e->12s, 12s->12e (10).
-- Pass 3 (queue 1 at each launch, 0 at each start): k1 launch delay 3s->4s (10),
-- k2 launch delay 6s->7s (6: k1 ended before the launch), k3 kernel-kernel 7e->9s (0:
-- k2 ends after k3's launch), Stream Sync: 9e->10e (sync). 20 edges, 20 graph nodes
-- (11s, 11e untouched). dist(10e) = 75 through the sync edge (50 through 10s), so the
-- path runs through the GPU and back to the CPU: 13 nodes, 85 us.
SELECT 'cp_03_stats', status = 'ok' AND window_start_us = 0 AND window_end_us = 120
   AND clipped_events = 12 AND event_nodes = 22 AND graph_nodes = 20 AND graph_edges = 20
   AND path_nodes = 13 AND path_length_us = 85
  FROM hta_critical_path_stats WHERE rank = 0;
SELECT 'cp_04_path', group_concat(src_event_seq || (CASE src_is_start WHEN 1 THEN 's' ELSE 'e' END)
         || '>' || dst_event_seq || (CASE dst_is_start WHEN 1 THEN 's' ELSE 'e' END)
         || ':' || substr(edge_type, 15) || ':' || weight_us, ' ') =
  '2s>3s:operator:5.0 3s>3e:operator:5.0 3e>2e:operator:20.0 2e>5s:dependency:0.0 '
  || '5s>6s:operator:5.0 6s>7s:kernel_launch_delay:6.0 7s>7e:operator:30.0 '
  || '7e>9s:kernel_kernel_delay:0.0 9s>9e:operator:4.0 9e>10e:sync_dependency:0.0 '
  || '10e>12s:dependency:0.0 12s>12e:operator:10.0'
  FROM (SELECT * FROM hta_critical_path WHERE rank = 0 ORDER BY path_pos);
-- CP-4, CP-5: attribution and bound_by
SELECT 'cp_05_attr', group_concat(path_pos || ':' || ifnull(event_seq, '-') || ':' || ifnull(name, '-')
         || ':' || bound_by, ' ') =
  '0:2:aten::add:cpu_bound 1:3:cudaLaunchKernel:cpu_bound 2:2:aten::add:cpu_bound 3:-:-: '
  || '4:5:aten::mul:cpu_bound 5:-:-:gpu_kernel_launch_overhead 6:7:k2:gpu_compute_bound '
  || '7:7:k2:gpu_kernel_kernel_overhead 8:9:k3:gpu_compute_bound 9:-:-: 10:-:-: '
  || '11:12:aten::copy_:cpu_bound'
  FROM (SELECT * FROM hta_critical_path WHERE rank = 0 ORDER BY path_pos);
SELECT 'cp_06_cols', cat = 'kernel' AND pid = 0 AND tid = 7 AND stream = 7 AND src_ts_us = 56
   AND dst_ts_us = 86 AND duration_us = 30 AND src_event_id = (1 << 32) | 7
   AND event_id = (1 << 32) | 7 AND trace_id = 1
  FROM hta_critical_path WHERE rank = 0 AND path_pos = 6;
-- CPG-4: the parent's edge 6e->8s is attributed to aten::mul (in the graph, not on the path)
SELECT 'cp_07_graph_parent', event_seq = 5 AND weight_us = 5 AND on_path = 0
  FROM hta_critical_path_graph WHERE rank = 0 AND src_event_seq = 6 AND dst_event_seq = 8;
SELECT 'cp_08_graph_blocking', weight_us = 0 AND edge_type = 'critical_path_operator'
  FROM hta_critical_path_graph WHERE rank = 0 AND src_event_seq = 10 AND dst_event_seq = 10;
-- CP-6: summary, '' first; 100 * share of 85 us
SELECT 'cp_09_summary', group_concat(bound_by || ':' || duration_us, ',') =
  ':0.0,cpu_bound:45.0,gpu_compute_bound:34.0,gpu_kernel_kernel_overhead:0.0,gpu_kernel_launch_overhead:6.0'
  FROM hta_critical_path_summary WHERE rank = 0;
SELECT 'cp_10_pct', abs(percentage - 100.0 * 45 / 85) < 1e-12
  FROM hta_critical_path_summary WHERE rank = 0 AND bound_by = 'cpu_bound';
-- the zero-weight option adds 8s->9s for k3 (weight 0); the path does not change
SELECT 'cp_11_zero_weight', graph_edges = 21 AND path_length_us = 85
  FROM hta_critical_path_stats('ProfilerStep', 0, 1) WHERE rank = 0;
SELECT 'cp_12_zero_weight_edge', count(*) = 1 FROM hta_critical_path_graph('ProfilerStep', 0, 1)
 WHERE rank = 0 AND edge_type = 'critical_path_kernel_launch_delay' AND src_event_seq = 8;

-- Rank 1, the whole trace (''): window [0, 135]. Stream Wait Event: record corr 2's
-- previous launch on stream 7 is kA; cudaStreamWaitEvent's next launch on stream 8 is
-- kB: sync kA.end -> kB.start; kB gets no launch delay (kA ends after kB's launch).
-- Event Sync: record corr 6 -> kB: sync kB.end -> cudaEventSynchronize end (135).
-- dist: kB end 130 = cudaEventSynchronize end 130 (the blocking call weighs 0): the
-- path ends at the first of them, kB's end: 1s>3s (10), kA (100), sync, kB (20).
SELECT 'cp_13_stream_wait', group_concat(src_event_seq || '>' || dst_event_seq || ':'
         || substr(edge_type, 15) || ':' || weight_us, ' ') =
  '1>3:kernel_launch_delay:10.0 3>3:operator:100.0 3>7:sync_dependency:0.0 7>7:operator:20.0'
  FROM (SELECT * FROM hta_critical_path('', NULL) WHERE rank = 1 ORDER BY path_pos);
SELECT 'cp_14_event_sync', count(*) = 1 FROM hta_critical_path_graph('', NULL)
 WHERE rank = 1 AND edge_type = 'critical_path_sync_dependency' AND src_event_seq = 7
   AND src_is_start = 0 AND dst_event_seq = 9 AND dst_is_start = 0 AND on_path = 0;
SELECT 'cp_15_stats1', graph_edges = 16 AND graph_nodes = 16 AND event_nodes = 18
   AND clipped_events = 10 AND path_nodes = 5 AND path_length_us = 130
  FROM hta_critical_path_stats('', NULL) WHERE rank = 1;
SELECT 'cp_16_summary1', group_concat(bound_by || ':' || duration_us, ',') =
  ':0.0,gpu_compute_bound:120.0,gpu_kernel_launch_overhead:10.0'
  FROM hta_critical_path_summary('', NULL) WHERE rank = 1;

-- CP-1: no instance of ProfilerStep on rank 1, no such name at all, instance 1 missing
SELECT 'cp_17_no_instance', status = 'failed: no such instance' AND path_nodes IS NULL
  FROM hta_critical_path_stats WHERE rank = 1;
SELECT 'cp_18_no_name', group_concat(status) = 'no_annotation,no_annotation'
  FROM hta_critical_path_stats('NoSuchName');
SELECT 'cp_19_no_rows', count(*) = 0 FROM hta_critical_path('ProfilerStep', 1);
-- instance ranges as '[a, b]', every rank without WHERE rank
SELECT 'cp_20_range', count(*) = 12 FROM hta_critical_path('ProfilerStep', '[0, 0]');
SELECT 'cp_21_all_ranks', group_concat(DISTINCT rank) = '0,1' FROM hta_critical_path('', NULL);
SELECT 'cp_22_param_back', annotation = 'ProfilerStep' AND instance_id = '[0, 0]'
  FROM hta_critical_path('ProfilerStep', '[0, 0]') LIMIT 1;
-- argument errors: tests/cli/critical_path_errors.sh

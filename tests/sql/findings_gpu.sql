-- hta_findings' GPU rules (findings_gpu.c FG-1..4): gpu_waits_for_host, exposed_communication,
-- straggler. Times in µs below, stored as ns. Job 'g', two ranks, steps #1 [0,1000),
-- #2 [1000,2000), #3 [2000,3000) on both: #3 is cut, 2 analysed steps of mean 1000 µs.
-- Rank 0 (trace 1); launch [ts, end) -> kernel [ts, end) on stream s:
--   [50,55)     -> gemm [100,200) s7          [250,255)   -> gemm [300,400) s7
--   [260,265)   -> gemm [400,500) s7          [1050,1055) -> gemm [1100,1200) s7
--   [1210,1270) -> gemm [1250,1300) s7 (shorter than its launch)
--   [590,595)   -> small [600,610) s9         [880,885)   -> small [900,905) s9
--   [450,455)   -> nccl all-reduce [500,900) s20 (waits for rank 1)
-- Rank 1 (trace 2): slow_loader [100,800), then [820,825) -> nccl all-reduce [850,900) s20.
-- Job 'c': rank 0 with a step and host operators only.
--
-- gpu_waits_for_host, rank 0: stream 7 is the busiest (450 µs of kernels; s20 400, s9 15).
--   Its gaps: 100 (launch 250 after the end 200: host_wait), 0 (kernel_wait), 600 (host_wait),
--   50 (host_wait): 750 µs over 2 steps = 375 µs, 37.5 %; 3 gaps, median 100; 5 kernels, 1
--   shorter than its launch (20 %), median kernel 100, median launch 5.
-- exposed_communication: rank 0's all-reduce [500,900) overlaps computation only in
--   [600,610): 390 µs exposed / 2 = 195, 19.5 %; overlap 10 / 400 = 2.5 %. Rank 1's
--   [850,900) overlaps nothing: 50 / 2 = 25, 2.5 %.
-- straggler: one instance, rank 1 starts last (850 > 500): pct_arrived_last 100; the others
--   (rank 0) wait 350: avg_wait (350 + 0) / 2 = 175, times 2 / (2 - 1) = 350; / 2 steps =
--   175 µs, 17.5 % of rank 1's step; before arriving rank 1 ran slow_loader.
INSERT INTO job(job_id, name) VALUES (1, 'g'), (2, 'c');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 1, 0, 'distributedInfo', 'g0.json', 0, 'h1', 0), (2, 1, 1, 'distributedInfo', 'g1.json', 0, 'h2', 0),
       (3, 2, 0, 'distributedInfo', 'c0.json', 0, 'h3', 0);
CREATE TEMP TABLE ev(t, seq, cat, name, tid, ts, dur, stream, corr, link, args);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 1, 0, 1000, NULL, NULL, NULL, NULL),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 1, 1000, 1000, NULL, NULL, NULL, NULL),
  (1, 3, 'user_annotation', 'ProfilerStep#3', 1, 2000, 1000, NULL, NULL, NULL, NULL),
  (1, 10, 'cuda_runtime', 'cudaLaunchKernel', 1, 50, 5, NULL, 1, 20, NULL),
  (1, 11, 'cuda_runtime', 'cudaLaunchKernel', 1, 250, 5, NULL, 2, 21, NULL),
  (1, 12, 'cuda_runtime', 'cudaLaunchKernel', 1, 260, 5, NULL, 3, 22, NULL),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 1, 1050, 5, NULL, 4, 23, NULL),
  (1, 14, 'cuda_runtime', 'cudaLaunchKernel', 1, 1210, 60, NULL, 5, 24, NULL),
  (1, 15, 'cuda_runtime', 'cudaLaunchKernel', 1, 590, 5, NULL, 6, 25, NULL),
  (1, 16, 'cuda_runtime', 'cudaLaunchKernel', 1, 880, 5, NULL, 7, 26, NULL),
  (1, 17, 'cuda_runtime', 'cudaLaunchKernel', 1, 450, 5, NULL, 8, 27, NULL),
  (1, 20, 'kernel', 'gemm', 7, 100, 100, 7, 1, 10, NULL),
  (1, 21, 'kernel', 'gemm', 7, 300, 100, 7, 2, 11, NULL),
  (1, 22, 'kernel', 'gemm', 7, 400, 100, 7, 3, 12, NULL),
  (1, 23, 'kernel', 'gemm', 7, 1100, 100, 7, 4, 13, NULL),
  (1, 24, 'kernel', 'gemm', 7, 1250, 50, 7, 5, 14, NULL),
  (1, 25, 'kernel', 'small', 9, 600, 10, 9, 6, 15, NULL),
  (1, 26, 'kernel', 'small', 9, 900, 5, 9, 7, 16, NULL),
  (1, 27, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 20, 500, 400, 20, 8, 17,
   '{"Collective name":"allreduce","Process Group Name":"0","Group size":2,"dtype":"Float","In msg nelems":256,"Out msg nelems":256}'),
  (2, 1, 'user_annotation', 'ProfilerStep#1', 1, 0, 1000, NULL, NULL, NULL, NULL),
  (2, 2, 'user_annotation', 'ProfilerStep#2', 1, 1000, 1000, NULL, NULL, NULL, NULL),
  (2, 3, 'user_annotation', 'ProfilerStep#3', 1, 2000, 1000, NULL, NULL, NULL, NULL),
  (2, 10, 'cpu_op', 'slow_loader', 1, 100, 700, NULL, NULL, NULL, NULL),
  (2, 11, 'cuda_runtime', 'cudaLaunchKernel', 1, 820, 5, NULL, 1, 20, NULL),
  (2, 20, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 20, 850, 50, 20, 1, 11,
   '{"Collective name":"allreduce","Process Group Name":"0","Group size":2,"dtype":"Float","In msg nelems":256,"Out msg nelems":256}'),
  (3, 1, 'user_annotation', 'ProfilerStep#1', 1, 0, 1000, NULL, NULL, NULL, NULL),
  (3, 2, 'user_annotation', 'ProfilerStep#2', 1, 1000, 1000, NULL, NULL, NULL, NULL),
  (3, 10, 'cpu_op', 'aten::add', 1, 100, 50, NULL, NULL, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
-- iteration: the step of the row's time (a GPU row's: its launch's)
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, iteration, args)
SELECT (e.t << 32) | e.seq, e.t, (SELECT rank FROM trace WHERE trace_id = e.t), e.seq, 'X',
       (SELECT category_id FROM category WHERE name = e.cat), (SELECT string_id FROM string WHERE value = e.name),
       CASE WHEN e.stream IS NULL THEN 1 ELSE 0 END, e.tid, e.ts * 1000, e.dur * 1000, e.stream, e.corr,
       CASE WHEN e.link IS NOT NULL THEN (e.t << 32) | e.link END,
       1 + (coalesce((SELECT l.ts FROM temp.ev l WHERE e.stream IS NOT NULL AND l.t = e.t AND l.seq = e.link), e.ts) / 1000),
       e.args
FROM temp.ev e;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT t, seq, (t << 32) | seq, ts * 1000, dur * 1000 FROM temp.ev WHERE cat = 'user_annotation';
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

-- The analyses the rules read, as worked out above.
SELECT 'fg_idle_read', (SELECT idle_time_us FROM hta_idle_time_breakdown WHERE rank = 0 AND stream = 7 AND idle_category = 'host_wait') = 750;
SELECT 'fg_rows', (SELECT group_concat(rule || ':' || rank || ':' || time_us || ':' || pct_of_step, ' ') FROM hta_findings WHERE job = 'g') =
  'gpu_waits_for_host:0:375.0:37.5 exposed_communication:0:195.0:19.5 straggler:1:175.0:17.5 exposed_communication:1:25.0:2.5';
-- FG-1
SELECT 'fg_waits_ev', (SELECT count = 3 AND json_extract(evidence, '$.stream') = 7 AND json_extract(evidence, '$.host_wait_us') = 750
  AND json_extract(evidence, '$.gaps') = 3 AND json_extract(evidence, '$.gap_p50_us') = 100 AND json_extract(evidence, '$.kernels') = 5
  AND json_extract(evidence, '$.short_kernels_pct') = 20 AND json_extract(evidence, '$.kernel_p50_us') = 100
  AND json_extract(evidence, '$.launch_p50_us') = 5 AND json_extract(evidence, '$.steps') = 2
  FROM hta_findings WHERE rule = 'gpu_waits_for_host');
SELECT 'fg_waits_title', (SELECT title FROM hta_findings WHERE rule = 'gpu_waits_for_host') = 'The GPU waits for the host 375 µs per step on stream 7';
-- FG-2
SELECT 'fg_exposed_ev', (SELECT json_extract(evidence, '$.exposed_us') = 390 AND json_extract(evidence, '$.communication_us') = 400
  AND json_extract(evidence, '$.overlap_pct') = 2.5 AND count IS NULL AND trace_id = 1
  FROM hta_findings WHERE rule = 'exposed_communication' AND rank = 0);
SELECT 'fg_exposed_title', (SELECT title FROM hta_findings WHERE rule = 'exposed_communication' AND rank = 1) =
  'Communication not overlapped by computation: 25.0 µs per step (100% of the communication time)';
-- FG-3: the straggler's evidence; its critical-path share is the job's path summary's.
SELECT 'fg_straggler_ev', (SELECT count = 1 AND trace_id = 2 AND json_extract(evidence, '$.pct_arrived_last') = 100
  AND json_extract(evidence, '$.times_arrived_last') = 1 AND json_extract(evidence, '$.collectives') = 1
  AND json_extract(evidence, '$.others_wait_us') = 350
  AND json_extract(evidence, '$.before.operators') = '[{"name":"slow_loader","times":1}]'
  FROM hta_findings WHERE rule = 'straggler');
SELECT 'fg_straggler_crit', (SELECT abs(json_extract(evidence, '$.critical_path_pct') -
  (SELECT sum(percentage) FROM hta_critical_path_job_summary WHERE rank = 1)) < 1e-9
  AND json_extract(evidence, '$.critical_path_pct') > 0 FROM hta_findings WHERE rule = 'straggler');
SELECT 'fg_straggler_title', (SELECT title FROM hta_findings WHERE rule = 'straggler') =
  'Rank 1 arrives last at 100% of the collectives: the other ranks wait 175 µs per step for it, after slow_loader';
-- WHERE rank = 1 keeps the straggler (computed over both ranks) and rank 1's exposure.
SELECT 'fg_rank1', (SELECT group_concat(rule) FROM hta_findings WHERE rank = 1) = 'straggler,exposed_communication';
-- min_pct 20: only the 37.5 % finding.
SELECT 'fg_min_pct', (SELECT group_concat(rule) FROM hta_findings(20) WHERE job = 'g') = 'gpu_waits_for_host';
-- FG-4: no GPU rows (job 'c'): no finding, no error.
SELECT 'fg_cpu_only', (SELECT count(*) FROM hta_findings(0) WHERE job = 'c') = 0;

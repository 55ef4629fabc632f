-- hta_findings' accounting of the step (ext/findings/fd_account.c FA-1..8) and its causes
-- (findings_host.c FH-n, findings_gpu.c FG-n, findings_step.c FSS-n, findings.c FD-n), on small
-- traces written here. Times in µs below, stored as ns; every thread is tid 1 unless named.
--
-- Job 'acct', trace 1 (rank 0): steps #1 [0,1000), #2 [1000,2000), #3 [2000,3000) (cut: the
-- analysed steps are #1 and #2). Compute stream 7. K1..K8 are kernels, L(Kn) their launches.
--   step 1:
--     DataLoader span [0,200), a cudaStreamSynchronize [50,100) inside it (overlapping causes:
--       the DataLoader has priority: that sync costs nothing).
--     L(K1) [200,205), K1 [210,400).  Idle [0,210): not issued until 205: DataLoader 200, the
--       launch call 5 (gpu_waits_for_host); issued [205,210): unexplained 5.
--     L(K2) [300,305), K2 [400,600): queued (the host is ahead).
--     cudaStreamSynchronize [310,600): waits while the GPU is busy (costs nothing of itself) and
--       drains the lead (FA-6): the launch-bound idle after it is the sync's.
--     L(K3) [650,655), K3 [660,700). Idle [600,660): host_sync 55 ([600,655)), unexplained 5.
--     L(K4) [665,670), K4 [700,750): launched before K3 ends: the host is ahead again.
--     L(K5) [900,905), K5 [910,950). Idle [750,910): the previous launch ended at 670, the next
--       starts at 900 (a gap under 1 ms): gpu_waits_for_host 150 + 5; unexplained 5.
--     Idle [950,1000) before K6 (launched at 1005): gpu_waits_for_host 50.
--     busy 520, idle 480 = dataloader 200 + host_sync 55 + gpu_waits_for_host 210 + unexplained 15.
--   step 2:
--     L(K6) [1005,1010), K6 [1020,1100). Idle [1000,1020): gpu_waits_for_host 10, unexplained 10.
--     cudaMemcpy [1100,1600) of 60 bytes, its copy "Memcpy HtoD (Pageable -> Device)" [1590,1595)
--       on stream 7, in aten::to: blocking_copy 490 + 5 (the call still runs until 1600). It began
--       with no work on the GPU: no lead to drain.
--     cudaFree [1700,1800): allocator_churn 100.
--     L(K7) [1850,1855), K7 [1860,1900). Idle [1595,1860): blocking_copy 5, allocator_churn 100,
--       gpu_waits_for_host 100 + 50 + 5, unexplained 5.
--     L(K8) [1950,1955), K8 [1990,2050). Idle [1900,1990): gpu_waits_for_host 55, unexplained 35.
--     K8 was launched in step 2 and ends at 2050: step 2 reaches to 2050 (fd_steps.c FS-4).
--     busy 185, idle 865 = blocking_copy 495 + allocator_churn 100 + gpu_waits_for_host 220 +
--       unexplained 50.
--   Per step (the mean of the two typical steps): step 1025, busy 352.5, idle 672.5; dataloader
--   100, host_sync 27.5, blocking_copy 247.5, allocator_churn 50, gpu_waits_for_host 215,
--   unexplained 32.5; recoverable 640 (62.44% of 1025).
--
-- Job 'win', trace 2 (rank 0): no ProfilerStep, a window [0,500) (an annotation on tid 2).
--   L(K) [50,55), K [100,200). Idle [0,100): host_other 50 (no launch before), the launch call 5,
--   unexplained 45; idle [200,500) after the last work: the thread launches nothing more:
--   host_other 300. One step, with a caveat.
--
-- Job 'amd', trace 3 (rank 0, 'AMD GPU'): no ProfilerStep, window [0,495000).
--   L(A) [100,105), A [110,1000) on stream 0.
--   L(B) [1010,1015): B waits until [494000,494010) -- ROCm holds it while the host is in
--   hipMemcpyWithStream [1020,494020) (60 bytes, in aten::to [1018,494022)), whose copy runs at
--   [494010,494015). L(C) [494100,494105), C [494110,495000).
--   Idle [0,110): host_other 100, gpu_waits_for_host 5, unexplained 5. Idle [1000,494000):
--   gpu_waits_for_host 15, unexplained 5, blocking_copy 492980 (the copy holds the issued B).
--   Idle [494015,494110): blocking_copy 5 (the call) + 85 (it drained the lead: B was issued when
--   it began), unexplained 5. busy 1795, idle 493205; blocking_copy 493070 (a 493 ms finding).
--
-- Job 'late', trace 4 (rank 0): no ProfilerStep, window [0,10000). The GPU was busy with work
--   the trace does not show: the first kernel starts 5 ms after its launch returned (a host that
--   runs ahead of a busy GPU: the profiler opened with its launch queue full).
--   L(K1) [100,105), K1 [5105,5200): the trace's first GPU work. Idle [0,5105): host_other 100 (no
--   launch before), the launch call 5, issued [105,5105): before_trace 5000 (FA-4: over 1 ms).
--   L(K2) [5300,5305), K2 [7305,7400): waits 2 ms too, but K1 ran before it: idle [5200,7305):
--   host_other 100 (the last launch ended at 105), the launch call 5, unexplained 2000.
--   Idle [7400,10000) after the last work: host_other 2600. busy 190, idle 9810 = host_other
--   2800 + gpu_waits_for_host 10 + before_trace 5000 + unexplained 2000; attributed 2810.
INSERT INTO job(job_id, name) VALUES (1, 'acct'), (2, 'win'), (3, 'amd'), (4, 'late');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, device_type)
VALUES (1, 1, 0, 'distributedInfo', 'a0.json', 0, 'h1', 0, 'NVIDIA GPU'),
       (2, 2, 0, 'distributedInfo', 'w0.json', 0, 'h2', 0, 'NVIDIA GPU'),
       (3, 3, 0, 'distributedInfo', 'm0.json', 0, 'h3', 0, 'AMD GPU'),
       (4, 4, 0, 'distributedInfo', 'l0.json', 0, 'h4', 0, 'NVIDIA GPU');
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link, parent, tid, args);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 0, 1000, NULL, NULL, NULL, NULL, 1, NULL),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 1000, 1000, NULL, NULL, NULL, NULL, 1, NULL),
  (1, 3, 'user_annotation', 'ProfilerStep#3', 2000, 1000, NULL, NULL, NULL, NULL, 1, NULL),
  (1, 10, 'user_annotation', 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', 0, 200, NULL, NULL, NULL, 1, 1, NULL),
  (1, 11, 'cuda_runtime', 'cudaStreamSynchronize', 50, 50, NULL, NULL, NULL, 10, 1, NULL),
  (1, 12, 'cuda_runtime', 'cudaLaunchKernel', 200, 5, NULL, 1, 13, 1, 1, NULL),
  (1, 13, 'kernel', 'k1', 210, 190, 7, 1, 12, NULL, 7, NULL),
  (1, 14, 'cuda_runtime', 'cudaLaunchKernel', 300, 5, NULL, 2, 15, 1, 1, NULL),
  (1, 15, 'kernel', 'k2', 400, 200, 7, 2, 14, NULL, 7, NULL),
  (1, 16, 'cuda_runtime', 'cudaStreamSynchronize', 310, 290, NULL, NULL, NULL, 1, 1, NULL),
  (1, 17, 'cuda_runtime', 'cudaLaunchKernel', 650, 5, NULL, 3, 18, 1, 1, NULL),
  (1, 18, 'kernel', 'k3', 660, 40, 7, 3, 17, NULL, 7, NULL),
  (1, 19, 'cuda_runtime', 'cudaLaunchKernel', 665, 5, NULL, 4, 20, 1, 1, NULL),
  (1, 20, 'kernel', 'k4', 700, 50, 7, 4, 19, NULL, 7, NULL),
  (1, 21, 'cuda_runtime', 'cudaLaunchKernel', 900, 5, NULL, 5, 22, 1, 1, NULL),
  (1, 22, 'kernel', 'k5', 910, 40, 7, 5, 21, NULL, 7, NULL),
  (1, 30, 'cuda_runtime', 'cudaLaunchKernel', 1005, 5, NULL, 6, 31, 2, 1, NULL),
  (1, 31, 'kernel', 'k6', 1020, 80, 7, 6, 30, NULL, 7, NULL),
  (1, 32, 'cpu_op', 'aten::to', 1098, 504, NULL, NULL, NULL, 2, 1, NULL),
  (1, 33, 'cuda_runtime', 'cudaMemcpy', 1100, 500, NULL, 7, 34, 32, 1, NULL),
  (1, 34, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 1590, 5, 7, 7, 33, NULL, 7, '{"bytes":60}'),
  (1, 35, 'cuda_runtime', 'cudaFree', 1700, 100, NULL, NULL, NULL, 2, 1, NULL),
  (1, 36, 'cuda_runtime', 'cudaLaunchKernel', 1850, 5, NULL, 8, 37, 2, 1, NULL),
  (1, 37, 'kernel', 'k7', 1860, 40, 7, 8, 36, NULL, 7, NULL),
  (1, 38, 'cuda_runtime', 'cudaLaunchKernel', 1950, 5, NULL, 9, 39, 2, 1, NULL),
  (1, 39, 'kernel', 'k8', 1990, 60, 7, 9, 38, NULL, 7, NULL),
  (2, 1, 'user_annotation', 'window', 0, 500, NULL, NULL, NULL, NULL, 2, NULL),
  (2, 2, 'cuda_runtime', 'cudaLaunchKernel', 50, 5, NULL, 1, 3, NULL, 1, NULL),
  (2, 3, 'kernel', 'k', 100, 100, 7, 1, 2, NULL, 7, NULL),
  (3, 1, 'user_annotation', 'window', 0, 495000, NULL, NULL, NULL, NULL, 2, NULL),
  (3, 2, 'cuda_runtime', 'hipLaunchKernel', 100, 5, NULL, 1, 3, NULL, 1, NULL),
  (3, 3, 'kernel', 'a', 110, 890, 0, 1, 2, NULL, 0, NULL),
  (3, 4, 'cuda_runtime', 'hipLaunchKernel', 1010, 5, NULL, 2, 5, NULL, 1, NULL),
  (3, 5, 'kernel', 'resolve_future_token_ids_kernel', 494000, 10, 0, 2, 4, NULL, 0, NULL),
  (3, 6, 'cpu_op', 'aten::to', 1018, 493004, NULL, NULL, NULL, NULL, 1, NULL),
  (3, 7, 'cuda_runtime', 'hipMemcpyWithStream', 1020, 493000, NULL, 3, 8, 6, 1, NULL),
  (3, 8, 'gpu_memcpy', 'Memcpy HtoD (Host -> Device)', 494010, 5, 0, 3, 7, NULL, 0, '{"bytes":60}'),
  (3, 9, 'cuda_runtime', 'hipLaunchKernel', 494100, 5, NULL, 4, 10, NULL, 1, NULL),
  (3, 10, 'kernel', 'c', 494110, 890, 0, 4, 9, NULL, 0, NULL),
  (4, 1, 'user_annotation', 'window', 0, 10000, NULL, NULL, NULL, NULL, 2, NULL),
  (4, 2, 'cuda_runtime', 'cudaLaunchKernel', 100, 5, NULL, 1, 3, NULL, 1, NULL),
  (4, 3, 'kernel', 'k1', 5105, 95, 7, 1, 2, NULL, 7, NULL),
  (4, 4, 'cuda_runtime', 'cudaLaunchKernel', 5300, 5, NULL, 2, 5, NULL, 1, NULL),
  (4, 5, 'kernel', 'k2', 7305, 95, 7, 2, 4, NULL, 7, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, parent_id, iteration, args)
SELECT (t << 32) | seq, t, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts * 1000, dur * 1000, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END,
       CASE WHEN parent IS NOT NULL THEN (t << 32) | parent END,
       CASE WHEN t = 1 AND stream IS NULL THEN CASE WHEN ts < 1000 THEN 1 WHEN ts < 2000 THEN 2 ELSE 3 END END, args
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT 1, seq, (1 << 32) | seq, ts * 1000, dur * 1000 FROM temp.ev WHERE t = 1 AND seq <= 3;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE f AS SELECT * FROM hta_findings(0);

SELECT 'fa_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_findings')) =
  'rank,rule,kind,parent,source,time_us,pct_of_step,title,advice,evidence,caveats,trace_id,job';
SELECT 'fa_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_findings') WHERE hidden) = 'min_pct,schema';

-- FA-1..5, FA-8, FSS-3: the step of job 'acct', per typical step
SELECT 'fa_step', (SELECT json_extract(evidence, '$.step_us') = 1025 AND json_extract(evidence, '$.busy_us') = 352.5
  AND json_extract(evidence, '$.idle_us') = 672.5 AND json_extract(evidence, '$.unexplained_us') = 32.5
  AND json_extract(evidence, '$.attributed_us') = 640 AND json_extract(evidence, '$.steps') = 2
  AND json_extract(evidence, '$.compute_streams') = '[7]' AND kind = 'summary' AND parent IS NULL
  FROM f WHERE job = 'acct' AND rule = 'step');
SELECT 'fa_parts', (SELECT json_extract(evidence, '$.parts') FROM f WHERE job = 'acct' AND rule = 'step') =
  '{"dataloader":100,"host_sync":27.5,"blocking_copy":247.5,"allocator_churn":50,"waits_for_ranks":0,"pipeline_bubble":0,"exposed_communication":0,"gpu_waits_for_host":215,"host_other":0,"warmup":0,"before_trace":0,"unexplained":32.5}';
-- FA-7, FSS-3: the unexplained time with the launches of the work that waited: K1, K3, K5 5 each
-- in step 1; K6 10, K7 5, K8 35 in step 2 (per step: K8 17.5, K6 5, the others 2.5; ties by seq)
SELECT 'fa_unexplained_ev', (SELECT json_extract(evidence, '$.unexplained.idle_us') = 32.5
  AND json_extract(evidence, '$.unexplained.calls') = 6
  AND json_extract(evidence, '$.unexplained.by_call') = '[{"name":"cudaLaunchKernel","calls":6}]'
  AND json_extract(evidence, '$.unexplained.top[0].seq') = 38 AND json_extract(evidence, '$.unexplained.top[0].idle_us_per_step') = 17.5
  AND json_extract(evidence, '$.unexplained.top[1].seq') = 30 AND json_extract(evidence, '$.unexplained.top[1].idle_us_per_step') = 5
  AND json_extract(evidence, '$.unexplained.top[2].seq') = 12 AND json_array_length(evidence, '$.unexplained.top') = 3
  FROM f WHERE job = 'acct' AND rule = 'step');
-- FSS-2: the recoverable time is the causes' (no busy finding here: no device_peak row matches)
SELECT 'fa_recoverable', (SELECT time_us = 640 AND abs(pct_of_step - 6400.0 / 102.5) < 1e-9 FROM f WHERE job = 'acct' AND rule = 'step');
-- FH-1, FG-1: each cause's time per step; FD-4: kind; FD-5: parent 'step' (the plugin's
-- gpu_low_utilization is not here: its step window of this trace is mostly busy)
SELECT 'fa_causes', (SELECT group_concat(rule || ':' || time_us || ':' || kind || ':' || coalesce(parent, '-'), ' ')
  FROM f WHERE job = 'acct' AND source = 'hta-sqlite' AND rule <> 'step') =
  'blocking_copy:247.5:cause:step gpu_waits_for_host:215.0:cause:step dataloader:100.0:cause:step allocator_churn:50.0:cause:step host_sync:27.5:cause:step';
-- FD-4: the causes add up to at most the idle time
SELECT 'fa_sum', (SELECT sum(time_us) FROM f WHERE job = 'acct' AND kind = 'cause')
  <= (SELECT json_extract(evidence, '$.idle_us') FROM f WHERE job = 'acct' AND rule = 'step');
-- FD-7: the summary first
SELECT 'fa_order', (SELECT rule FROM f WHERE job = 'acct' LIMIT 1) = 'step';
-- the sync inside the DataLoader costs nothing; the one that drained the lead is the evidence
SELECT 'fa_sync_ev', (SELECT json_extract(evidence, '$.calls') = 1 AND json_extract(evidence, '$.top[0].seq') = 16
  AND json_extract(evidence, '$.top[0].idle_us_per_step') = 27.5 FROM f WHERE job = 'acct' AND rule = 'host_sync');
-- FH-3: the blocking copy's bytes, call and operator in its title and evidence
SELECT 'fa_copy', (SELECT title = 'A blocking copy of 60 B (cudaMemcpy in aten::to) leaves the GPU idle 248 µs per step'
  AND json_extract(evidence, '$.bytes') = 60 AND json_extract(evidence, '$.top[0].operator') = 'aten::to'
  AND advice LIKE '%cudaMemcpy%' FROM f WHERE job = 'acct' AND rule = 'blocking_copy');
SELECT 'fa_alloc_ev', (SELECT json_extract(evidence, '$.by_call[0].name') = 'cudaFree' FROM f WHERE job = 'acct' AND rule = 'allocator_churn');
SELECT 'fa_loader_ev', (SELECT json_extract(evidence, '$.estimate') = 0 AND json_extract(evidence, '$.outlier_steps') = '[]'
  FROM f WHERE job = 'acct' AND rule = 'dataloader' AND source = 'hta-sqlite');
-- FD-6: min_pct drops the causes under 3% of the step, never the summary
SELECT 'fa_min_pct', (SELECT group_concat(rule, ',') FROM hta_findings(3) WHERE job = 'acct' AND source = 'hta-sqlite') =
  'step,blocking_copy,gpu_waits_for_host,dataloader,allocator_churn';

-- FS-2, FC-1: no ProfilerStep: the window is one step, and the caveat says so
SELECT 'fa_win', (SELECT json_extract(evidence, '$.parts.host_other') = 350 AND json_extract(evidence, '$.parts.gpu_waits_for_host') = 5
  AND json_extract(evidence, '$.unexplained_us') = 45 AND json_extract(evidence, '$.steps') = 1
  AND json_extract(caveats, '$[0].check') = 'steps' AND json_extract(caveats, '$[0].text') LIKE 'no ProfilerStep: the per-step analyses see the whole window (500 µs)%'
  FROM f WHERE job = 'win' AND rule = 'step');
SELECT 'fa_win_caveat_all', (SELECT count(*) = sum(caveats LIKE '%"check":"steps"%') FROM f WHERE job = 'win');

-- FA-4: a 60-byte blocking copy of 493 ms that holds a kernel launched before it (ROCm)
SELECT 'fa_amd', (SELECT time_us = 493070 AND kind = 'cause'
  AND title = 'A blocking copy of 60 B (hipMemcpyWithStream in aten::to) leaves the GPU idle 493.1 ms per step'
  AND advice LIKE '%hipMemcpyWithStream%' FROM f WHERE job = 'amd' AND rule = 'blocking_copy');
SELECT 'fa_amd_parts', (SELECT json_extract(evidence, '$.parts') FROM f WHERE job = 'amd' AND rule = 'step') =
  '{"dataloader":0,"host_sync":0,"blocking_copy":493070,"allocator_churn":0,"waits_for_ranks":0,"pipeline_bubble":0,"exposed_communication":0,"gpu_waits_for_host":20,"host_other":100,"warmup":0,"before_trace":0,"unexplained":15}';
-- its gpu_waits_for_host is no CUDA-graph story: the kernels are longer than their launches
SELECT 'fa_amd_gwfh', (SELECT json_extract(evidence, '$.launch_bound') = 0 AND advice NOT LIKE '%graphs (%'
  FROM f WHERE job = 'amd' AND rule = 'gpu_waits_for_host');

-- FA-4, FSS-3, FSS-5: the first kernel's 5 ms wait after its launch is before_trace (no cause,
-- not recoverable), the second's 2 ms wait unexplained; the title names the wait
SELECT 'fa_late', (SELECT json_extract(evidence, '$.parts') =
  '{"dataloader":0,"host_sync":0,"blocking_copy":0,"allocator_churn":0,"waits_for_ranks":0,"pipeline_bubble":0,"exposed_communication":0,"gpu_waits_for_host":10,"host_other":2800,"warmup":0,"before_trace":5000,"unexplained":2000}'
  AND json_extract(evidence, '$.idle_us') = 9810 AND json_extract(evidence, '$.attributed_us') = 2810
  AND json_extract(evidence, '$.before_trace_us') = 5000 AND json_extract(evidence, '$.unexplained_us') = 2000
  AND time_us = 2810
  AND title = 'Step 10.0 ms: the GPU computes 1.9% of it; of 9810 µs idle, 2810 µs has a cause and 5000 µs waits on GPU work from before the trace; the findings below recover up to 28.1% of the step'
  FROM f WHERE job = 'late' AND rule = 'step');
-- its unexplained 2000 µs waited before K2 (L(K2), seq 4); the 5000 µs before K1 are not in it
SELECT 'fa_late_unexplained', (SELECT json_extract(evidence, '$.unexplained.calls') = 1
  AND json_extract(evidence, '$.unexplained.top[0].seq') = 4 AND json_extract(evidence, '$.unexplained.top[0].idle_us_per_step') = 2000
  FROM f WHERE job = 'late' AND rule = 'step');
-- FSS-6: 2000 µs without a cause (20% of the step), its one wait over 100 µs: the step row's own
-- caveat names it, first, before the trace's; job 'acct' has 32.5 µs (3.2%) but its longest wait is
-- 17.5 µs per step: no such caveat
SELECT 'fa_late_caveat', (SELECT json_extract(caveats, '$[0].check') = 'unexplained'
  AND json_extract(caveats, '$[0].text') = '2000 µs of the idle time has no cause in the trace: the GPU waited with work queued (on another stream''s work, or on what the trace does not record); the longest wait, 2000 µs per step, held the work of cudaLaunchKernel (seq 4)'
  AND json_extract(caveats, '$[1].check') = 'steps' FROM f WHERE job = 'late' AND rule = 'step');
SELECT 'fa_unexplained_caveat_only', (SELECT group_concat(job || ':' || rule) FROM f, json_each(f.caveats)
  WHERE json_extract(json_each.value, '$.check') = 'unexplained') = 'late:step';
-- the other jobs' first kernels start microseconds after their launch: no before_trace, no title part
SELECT 'fa_late_only', (SELECT count(*) FROM f WHERE rule = 'step' AND job <> 'late'
  AND (json_extract(evidence, '$.before_trace_us') <> 0 OR title LIKE '%before the trace%')) = 0;

-- FD-1: WHERE rank = 0 gives the same rows
SELECT 'fa_rank', (SELECT count(*) FROM hta_findings(0) WHERE rank = 0) = (SELECT count(*) FROM f);
-- FD-8: evidence and caveats are JSON
SELECT 'fa_json', (SELECT min(json_valid(evidence) AND json_valid(caveats) AND json_type(caveats) = 'array') FROM f) = 1;

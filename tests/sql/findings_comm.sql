-- hta_findings' communication (findings_comm.c FCO-1..3, fd_comm.c FCM-n, fd_account.c FA-4):
-- waits_for_ranks vs pipeline_bubble, exposed_communication's estimate, the straggler only on
-- collectives every rank joins and bounded by the waiting rank's communication time.
-- Times in µs below, stored as ns. No ProfilerStep: each trace's window [0,700) is one step.
--
-- Each job has two ranks (traces 2j-1: rank 0, 2j: rank 1). On each rank: X [0,100) on stream 7
-- (launched [1,6)), a communication kernel on stream 20, and Y [500,600) on stream 7 launched at
-- [50,55): queued behind the collective (issued: FA-4 asks the communication).
--   job 'ar': an all-reduce (metadata in the kernel's args), rank 0 at [100,500), rank 1 at
--     [300,500). Rank 0 waits 200 for rank 1 (its wait part [100,300): waits_for_ranks 200), then
--     transfers [300,500) (exposed_communication 200). Rank 1 idles [100,300) with nothing
--     running (unexplained 200), then transfers 200. Both: [600,700) after the last work:
--     host_other 100. Rank 1 arrives last at 100%: straggler on rank 1, the others' wait 200 per
--     step (28.57% of the 700 µs step); no straggler on rank 0.
--     exposed_communication's estimate: min(E 200, busy 200 - overlap 0) = 200.
--   job 'pp': the same with send/recv kernels (ncclDevKernel_SendRecv, no metadata): rank 0's
--     wait is a pipeline bubble (200), and there is no straggler: a send/recv waits for one peer.
--   job 'clip': an all-reduce whose instance is matched across a bad pair: rank 0 at [100,200),
--     rank 1 at [400,500): rank 0's wait (300) is longer than its kernel (100): the straggler's
--     cost on rank 0 is at most rank 0's communication time (100), not 300.
INSERT INTO job(job_id, name) VALUES (1, 'ar'), (2, 'pp'), (3, 'clip');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, world_size)
SELECT t, (t + 1) / 2, (t + 1) % 2, 'distributedInfo', 'f' || t || '.json', 0, 'h' || t, 0, 2
FROM (SELECT 1 AS t UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6);
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link, args);
-- per trace: window, X and its launch, Y and its launch, the comm kernel and its launch
INSERT INTO temp.ev
SELECT t, 1, 'user_annotation', 'window', 0, 700, NULL, NULL, NULL, NULL FROM (SELECT value AS t FROM generate_series(1, 6))
UNION ALL SELECT t, 2, 'cuda_runtime', 'cudaLaunchKernel', 1, 5, NULL, 1, 3, NULL FROM (SELECT value AS t FROM generate_series(1, 6))
UNION ALL SELECT t, 3, 'kernel', 'x', 0, 100, 7, 1, 2, NULL FROM (SELECT value AS t FROM generate_series(1, 6))
UNION ALL SELECT t, 4, 'cuda_runtime', 'cudaLaunchKernel', 50, 5, NULL, 2, 5, NULL FROM (SELECT value AS t FROM generate_series(1, 6))
UNION ALL SELECT t, 5, 'kernel', 'y', 500, 100, 7, 2, 4, NULL FROM (SELECT value AS t FROM generate_series(1, 6))
UNION ALL SELECT t, 6, 'cuda_runtime', 'cudaLaunchKernel', 20, 5, NULL, 3, 7, NULL FROM (SELECT value AS t FROM generate_series(1, 6));
INSERT INTO temp.ev VALUES
  (1, 7, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)', 100, 400, 20, 3, 6,
   '{"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"dtype":"Float","In msg nelems":1024,"Out msg nelems":1024}'),
  (2, 7, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)', 300, 200, 20, 3, 6,
   '{"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"dtype":"Float","In msg nelems":1024,"Out msg nelems":1024}'),
  (3, 7, 'kernel', 'ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)', 100, 400, 20, 3, 6, NULL),
  (4, 7, 'kernel', 'ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)', 300, 200, 20, 3, 6, NULL),
  (5, 7, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)', 100, 100, 20, 3, 6,
   '{"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"dtype":"Float","In msg nelems":1024,"Out msg nelems":1024}'),
  (6, 7, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)', 400, 100, 20, 3, 6,
   '{"Collective name":"allreduce","Process Group Name":"0","Process Group Ranks":"[0, 1]","Group size":2,"dtype":"Float","In msg nelems":1024,"Out msg nelems":1024}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, args)
SELECT (t << 32) | seq, t, (t + 1) % 2, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, CASE WHEN stream IS NULL THEN 1 ELSE stream END,
       ts * 1000, dur * 1000, stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE f AS SELECT * FROM hta_findings(0);

-- FA-4, FCO-1: the wait of a collective every rank joins is waits_for_ranks, of a send/recv a bubble
SELECT 'fc_ar0', (SELECT json_extract(evidence, '$.parts') FROM f WHERE job = 'ar' AND rank = 0 AND rule = 'step') =
  '{"dataloader":0,"host_sync":0,"blocking_copy":0,"allocator_churn":0,"waits_for_ranks":200,"pipeline_bubble":0,"exposed_communication":200,"gpu_waits_for_host":0,"host_other":100,"warmup":0,"before_trace":0,"unexplained":0}';
SELECT 'fc_ar1', (SELECT json_extract(evidence, '$.parts') FROM f WHERE job = 'ar' AND rank = 1 AND rule = 'step') =
  '{"dataloader":0,"host_sync":0,"blocking_copy":0,"allocator_churn":0,"waits_for_ranks":0,"pipeline_bubble":0,"exposed_communication":200,"gpu_waits_for_host":0,"host_other":100,"warmup":0,"before_trace":0,"unexplained":200}';
SELECT 'fc_pp0', (SELECT json_extract(evidence, '$.parts.pipeline_bubble') = 200 AND json_extract(evidence, '$.parts.waits_for_ranks') = 0
  FROM f WHERE job = 'pp' AND rank = 0 AND rule = 'step');
SELECT 'fc_waits', (SELECT time_us = 200 AND kind = 'cause' AND json_extract(evidence, '$.waits_for[0].name') = '1'
  AND json_extract(evidence, '$.ranks_profiled') = 2 AND title LIKE '%(most often for rank 1)'
  FROM f WHERE job = 'ar' AND rank = 0 AND rule = 'waits_for_ranks');
SELECT 'fc_bubble', (SELECT time_us = 200 AND advice LIKE '%micro-batches%' FROM f WHERE job = 'pp' AND rank = 0 AND rule = 'pipeline_bubble');
-- FCO-2: the estimate
SELECT 'fc_exposed', (SELECT time_us = 200 AND json_extract(evidence, '$.estimate') = 1 AND json_extract(evidence, '$.exposed_us') = 200
  AND json_extract(evidence, '$.busy_us') = 200 AND json_extract(evidence, '$.overlapped_us') = 0
  FROM f WHERE job = 'ar' AND rank = 0 AND rule = 'exposed_communication');
-- FCO-3: the straggler: only rank 1 of 'ar', a symptom (not in rank 1's sum), none for send/recv
SELECT 'fc_straggler', (SELECT group_concat(job || ':' || rank || ':' || time_us || ':' || round(pct_of_step, 2) || ':' || kind, ' ')
  FROM f WHERE rule = 'straggler') = 'ar:1:200.0:28.57:symptom clip:1:100.0:14.29:symptom';
SELECT 'fc_straggler_ev', (SELECT json_extract(evidence, '$.pct_arrived_last') = 100 AND json_extract(evidence, '$.waiting[0].rank') = 0
  AND json_extract(evidence, '$.ranks_profiled') = 2 AND json_extract(evidence, '$.group_size') = 2
  FROM f WHERE job = 'ar' AND rule = 'straggler');
-- FCO-3: bounded by the waiting rank's communication time (its kernel lasts 100; its wait 300)
SELECT 'fc_clip', (SELECT time_us FROM f WHERE job = 'clip' AND rule = 'straggler')
  <= (SELECT sum(dur) / 1000.0 FROM event WHERE trace_id = 5 AND stream = 20);
-- WHERE rank = 1 still sees rank 0's waits (every trace's steps are loaded: FD-1)
SELECT 'fc_rank', (SELECT time_us FROM hta_findings(0) WHERE job = 'ar' AND rank = 1 AND rule = 'straggler') = 200;
-- FC-2: no caveat on ranks profiled: both of world_size 2 are here
SELECT 'fc_caveats', (SELECT count(*) FROM f WHERE caveats LIKE '%ranks_profiled%') = 0;
-- FD-4: per trace the causes add up to at most the idle time
SELECT 'fc_sum', (SELECT count(*) FROM f s WHERE s.rule = 'step' AND (SELECT sum(time_us) FROM f c WHERE c.kind = 'cause'
  AND c.trace_id = s.trace_id) > json_extract(s.evidence, '$.idle_us')) = 0;

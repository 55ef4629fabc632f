-- hta_findings on a serving trace: no ProfilerStep, but the engine annotates its iterations
-- (ext/findings/fd_steps.c FS-2, fd_health.c FC-1, ext/health/health.c HL-5). Times in µs below, stored as ns.
--
-- Job 'eng', trace 1 (rank 0): four SGLang iterations "step[DECODE bs=2]" on tid 1, at
-- [0,100), [200,300), [400,500), [600,700) (the engine waits for requests between them).
-- In each, a launch [s+10,s+15) and its kernel on stream 7 from s+20: 50 µs in the first
-- three, 70 µs in the last. Per engine step (the mean of the four typical steps): step 100,
-- busy (50+50+50+70)/4 = 55, idle 45. Read as one window [0,700) it would be a step of
-- 700 µs with 220 µs busy: the gaps between iterations are no step's time.
-- Idle per step: [s,s+10) before the launch (host_other 10 in the first step, no launch
-- before it; gpu_waits_for_host 10 in the others, the previous launch has ended), the launch
-- call [s+10,s+15) gpu_waits_for_host 5, issued [s+15,s+20) unexplained 5; after the kernel
-- until s+100 gpu_waits_for_host 30 (in the last step the kernel ends at 690 and the tail
-- [690,700) is host_other: the thread launches nothing more). Per step: gpu_waits_for_host (35+45+45+15)/4 = 35,
-- host_other (10+0+0+10)/4 = 5, unexplained 5.
-- Job 'win', trace 2: the same events with the annotations named "iteration" (no engine
-- form): one step, the window [0,700), busy 220.
INSERT INTO job(job_id, name) VALUES (1, 'eng'), (2, 'win');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count, device_type)
VALUES (1, 1, 0, 'distributedInfo', 'e0.json', 0, 'h1', 0, 'NVIDIA GPU'),
       (2, 2, 0, 'distributedInfo', 'w0.json', 0, 'h2', 0, 'NVIDIA GPU');
CREATE TEMP TABLE it(k, s, kdur);
INSERT INTO temp.it VALUES (0, 0, 50), (1, 200, 50), (2, 400, 50), (3, 600, 70);
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link, tid);
INSERT INTO temp.ev
  SELECT t, 10 * k + 1, 'user_annotation', CASE t WHEN 1 THEN 'step[DECODE bs=2]' ELSE 'iteration' END, s, 100, NULL, NULL, NULL, 1
    FROM temp.it, (SELECT 1 AS t UNION ALL SELECT 2)
  UNION ALL
  SELECT t, 10 * k + 2, 'cuda_runtime', 'cudaLaunchKernel', s + 10, 5, NULL, k + 1, 10 * k + 3, 1
    FROM temp.it, (SELECT 1 AS t UNION ALL SELECT 2)
  UNION ALL
  SELECT t, 10 * k + 3, 'kernel', 'k', s + 20, kdur, 7, k + 1, 10 * k + 2, 7
    FROM temp.it, (SELECT 1 AS t UNION ALL SELECT 2);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, parent_id, iteration, args)
SELECT (t << 32) | seq, t, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts * 1000, dur * 1000, stream, corr,
       CASE WHEN link IS NOT NULL THEN (t << 32) | link END, NULL, NULL, NULL
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE f AS SELECT * FROM hta_findings(0);

-- FS-2: the four engine iterations are the steps; the summary is per engine step
SELECT 'fe_step', (SELECT json_extract(evidence, '$.step_us') = 100 AND json_extract(evidence, '$.busy_us') = 55
  AND json_extract(evidence, '$.idle_us') = 45 AND json_extract(evidence, '$.steps') = 4
  AND json_extract(evidence, '$.outlier_steps') = '[]' FROM f WHERE job = 'eng' AND rule = 'step');
SELECT 'fe_parts', (SELECT json_extract(evidence, '$.parts.gpu_waits_for_host') = 35
  AND json_extract(evidence, '$.parts.host_other') = 5 AND json_extract(evidence, '$.unexplained_us') = 5
  FROM f WHERE job = 'eng' AND rule = 'step');
-- the same steps hta_inference_steps shows, and hta_trace_health counts
SELECT 'fe_health', (SELECT verdict = 'warn' AND value = 0 AND json_extract(detail, '$.engine_steps') = 4
  FROM hta_trace_health WHERE job = 'eng' AND "check" = 'steps');
SELECT 'fe_inference_steps', (SELECT count(*) FROM hta_inference_steps WHERE job = 'eng') = 4;
-- FC-1, health.c HL-5: the caveat (hta_trace_health's steps check: 0 ProfilerSteps) names
-- them, on every finding of the trace
SELECT 'fe_caveat', (SELECT json_extract(caveats, '$[0].check') = 'steps' AND json_extract(caveats, '$[0].value') = 0
  AND json_extract(caveats, '$[0].text') LIKE 'no ProfilerStep: the per-step analyses use the 4 engine iterations%'
  FROM f WHERE job = 'eng' AND rule = 'step');
SELECT 'fe_caveat_all', (SELECT count(*) > 0 AND count(*) = sum(caveats LIKE '%engine iterations%') FROM f WHERE job = 'eng');
-- every cause per engine step: at most the idle time of one
SELECT 'fe_sum', (SELECT sum(time_us) FROM f WHERE job = 'eng' AND kind = 'cause') <= 45;
-- FS-2 without engine annotations: the window is one step
SELECT 'fe_win', (SELECT json_extract(evidence, '$.step_us') = 700 AND json_extract(evidence, '$.busy_us') = 220
  AND json_extract(evidence, '$.steps') = 1 AND json_extract(caveats, '$[0].text') LIKE 'no ProfilerStep: the per-step analyses see the whole window (700 µs)%'
  FROM f WHERE job = 'win' AND rule = 'step');

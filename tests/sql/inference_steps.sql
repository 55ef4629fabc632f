-- hta_inference_steps (ext/inference/inference_steps.c IS-n, ext/core/steps.c STP-n):
-- engine iterations from their annotations, the GPU work each launched, steady windows.
-- Times below in µs (x1000 into ns). Trace 1 (rank 0), thread (1, 1) unless said:
--   A  execute_context_2(100)_generation_0(0)   [0, 100]     vLLM native: 2 prefill requests,
--      100 tokens. Inside it step[EXTEND bs=2 toks=100] [10, 90]: the same iteration (STP-2).
--      hipLaunchKernel at 20 -> kernel [30, 70]; cudaMemcpyAsync at 50 -> memcpy [60, 80]:
--      2 GPU events, busy [30, 80] = 50 µs.
--   B  execute_context_0(0)_generation_3(3)     [200, 300]   3 decode requests, 3 tokens.
--      cudaGraphLaunch [210, 220] -> kernels [230, 240], [240, 260]; cudaGraphLaunch [295, 305]
--      (ends after the step: not one of its graph launches, IS-3) -> kernel [310, 320], whose
--      launch starts inside: 3 GPU events, busy [230, 260] + [310, 320] = 40 µs.
--   C  decode[bs=3 tok=9 p=1 d=2]               [400, 450]   ATOM: 1 prefill + 2 decode: mixed.
--   G  step[DECODE bs=5]                        [410, 430]   thread (1, 2): inside C's span but
--      on another thread, so a step of its own (STP-2).
--   not steps: capture_32_DECODE [600, 610]; step[DECODE bs=4] of category
--   gpu_user_annotation [700, 710]; a kernel launched at 500, outside every step;
--   ProfilerStep#1 [0, 300] and #2 [300, 600] around them (two step numbers: HTA's cut
--   would drop C and G; hta_inference_steps reads the whole trace, IS-1).
-- Trace 2 (rank 1): 11 decode steps execute_context_0(0)_generation_N(N), step i at
-- [1000 i, 1000 i + 500], N = 10, 20, 20, 19, 20, 18, 20, 20, 5, 20, 20 (IS-4).
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, tid, stream, corr, link);
INSERT INTO job(job_id, name) VALUES (1, 'serve');
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'execute_context_2(100)_generation_0(0)', 0, 100, 1, NULL, NULL, NULL),
  (1, 2, 'user_annotation', 'step[EXTEND bs=2 toks=100]', 10, 80, 1, NULL, NULL, NULL),
  (1, 3, 'cuda_runtime', 'hipLaunchKernel', 20, 5, 1, NULL, 1, 4),
  (1, 4, 'kernel', 'gemm_kernel', 30, 40, 7, 7, 1, 3),
  (1, 5, 'cuda_runtime', 'cudaMemcpyAsync', 50, 5, 1, NULL, 2, 6),
  (1, 6, 'gpu_memcpy', 'Memcpy DtoD (Device -> Device)', 60, 20, 7, 7, 2, 5),
  (1, 7, 'user_annotation', 'execute_context_0(0)_generation_3(3)', 200, 100, 1, NULL, NULL, NULL),
  (1, 8, 'cuda_runtime', 'cudaGraphLaunch', 210, 10, 1, NULL, 3, 9),
  (1, 9, 'kernel', 'k_a', 230, 10, 7, 7, 3, 8),
  (1, 10, 'kernel', 'k_b', 240, 20, 7, 7, 3, 8),
  (1, 11, 'cuda_runtime', 'cudaGraphLaunch', 295, 10, 1, NULL, 4, 12),
  (1, 12, 'kernel', 'k_a', 310, 10, 7, 7, 4, 11),
  (1, 13, 'user_annotation', 'decode[bs=3 tok=9 p=1 d=2]', 400, 50, 1, NULL, NULL, NULL),
  (1, 14, 'kernel', 'k_c', 510, 10, 7, 7, 5, 15),
  (1, 15, 'cuda_runtime', 'hipLaunchKernel', 500, 5, 1, NULL, 5, 14),
  (1, 16, 'user_annotation', 'capture_32_DECODE', 600, 10, 1, NULL, NULL, NULL),
  (1, 17, 'gpu_user_annotation', 'step[DECODE bs=4]', 700, 10, 1, NULL, NULL, NULL),
  (1, 18, 'user_annotation', 'step[DECODE bs=5]', 410, 20, 2, NULL, NULL, NULL),
  (1, 19, 'user_annotation', 'ProfilerStep#1', 0, 300, 1, NULL, NULL, NULL),
  (1, 20, 'user_annotation', 'ProfilerStep#2', 300, 300, 1, NULL, NULL, NULL);
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < 10)
INSERT INTO temp.ev SELECT 2, k + 1, 'user_annotation',
  'execute_context_0(0)_generation_' || n || '(' || n || ')', 1000 * k, 500, 1, NULL, NULL, NULL
FROM i JOIN (SELECT 0 AS j, 10 AS n UNION ALL SELECT 1, 20 UNION ALL SELECT 2, 20 UNION ALL
             SELECT 3, 19 UNION ALL SELECT 4, 20 UNION ALL SELECT 5, 18 UNION ALL SELECT 6, 20 UNION ALL
             SELECT 7, 20 UNION ALL SELECT 8, 5 UNION ALL SELECT 9, 20 UNION ALL SELECT 10, 20) ON j = k;
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts * 1000, dur * 1000, stream, corr,
       CASE WHEN link IS NOT NULL THEN (tr << 32) | link END
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
VALUES (1, 1, (1 << 32) | 19, 0, 300000), (1, 2, (1 << 32) | 20, 300000, 300000);
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'is_01_columns', group_concat(name, ',') =
  'rank,step,name,format,detailed,phase,batch_size,tokens,context_requests,generation_requests,context_tokens,generation_tokens,start_us,dur_us,graph_launches,kernels,kernel_us,steady_window,event_id,trace_id,job'
  FROM pragma_table_info('hta_inference_steps');
SELECT 'is_02_hidden', group_concat(name, ',') = 'window_min_steps,window_tolerance,schema'
  FROM pragma_table_xinfo('hta_inference_steps') WHERE hidden;

-- STP-2, STP-3: four steps in trace 1, by time; the nested, capture, GPU-side and
-- ProfilerStep annotations are none; IS-1: C and G survive what the cut would drop
SELECT 'is_03_steps', group_concat(step || ':' || name, ' | ') =
  '0:execute_context_2(100)_generation_0(0) | 1:execute_context_0(0)_generation_3(3) | 2:decode[bs=3 tok=9 p=1 d=2] | 3:step[DECODE bs=5]'
  FROM hta_inference_steps WHERE trace_id = 1;
-- IS-2 (EA-2..5): the fields of each form
SELECT 'is_04_a', format = 'vllm' AND detailed = 0 AND phase = 'prefill' AND batch_size = 2
  AND tokens = 100 AND context_requests = 2 AND generation_requests = 0 AND context_tokens = 100
  AND generation_tokens = 0 AND start_us = 0.0 AND dur_us = 100.0 AND event_id = (1 << 32) | 1
  AND rank = 0 AND job = 'serve'
  FROM hta_inference_steps WHERE trace_id = 1 AND step = 0;
SELECT 'is_05_b', phase = 'decode' AND batch_size = 3 AND tokens = 3 AND start_us = 200.0
  FROM hta_inference_steps WHERE trace_id = 1 AND step = 1;
SELECT 'is_06_c', format = 'atom' AND phase = 'mixed' AND batch_size = 3 AND tokens = 9
  AND context_requests = 1 AND generation_requests = 2 AND context_tokens IS NULL
  AND generation_tokens IS NULL
  FROM hta_inference_steps WHERE trace_id = 1 AND step = 2;
SELECT 'is_07_g', format = 'sglang' AND phase = 'decode' AND batch_size = 5 AND tokens = 5
  AND start_us = 410.0 AND dur_us = 20.0
  FROM hta_inference_steps WHERE trace_id = 1 AND step = 3;
-- IS-3: GPU work by the launch's start; graph launches wholly inside the step
SELECT 'is_08_gpu', group_concat(kernels || '/' || kernel_us || '/' || graph_launches, ' ') =
  '2/50.0/0 3/40.0/1 0/0.0/0 0/0.0/0'
  FROM hta_inference_steps WHERE trace_id = 1;
-- IS-4: trace 1's peak is 5 (G), at load >= 4: one step, no window
SELECT 'is_09_no_window', count(steady_window) = 0 FROM hta_inference_steps WHERE trace_id = 1;
-- trace 2: peak 20, slack max(1, 0.1 * 20) = 2, at load >= 18: steps 1..7 (7 >= 6), then
-- 9..10 (2 < 6)
SELECT 'is_10_window', group_concat(coalesce(steady_window, '-'), '') = '-1111111---'
  FROM hta_inference_steps WHERE trace_id = 2;
SELECT 'is_11_window_min2', group_concat(coalesce(steady_window, '-'), '') = '-1111111-22'
  FROM hta_inference_steps(2) WHERE trace_id = 2;
-- tolerance 0: slack 1, at load >= 19: 1..4, 6..7, 9..10
SELECT 'is_12_window_tol0', group_concat(coalesce(steady_window, '-'), '') = '-1111-22-33'
  FROM hta_inference_steps(2, 0) WHERE trace_id = 2;
SELECT 'is_13_named', group_concat(coalesce(steady_window, '-'), '') = '-1111-22-33'
  FROM hta_inference_steps WHERE trace_id = 2 AND window_min_steps = 2 AND window_tolerance = 0.0;
-- rank filter, and phases over the job
SELECT 'is_14_rank', count(*) = 11 FROM hta_inference_steps WHERE rank = 1;
SELECT 'is_15_phases', group_concat(phase || '=' || n, ',') = 'decode=13,mixed=1,prefill=1'
  FROM (SELECT phase, count(*) n FROM hta_inference_steps GROUP BY phase ORDER BY phase);
-- IS-5: bad parameters
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_inference_steps(0)' 2>&1 | grep -qF 'hta_inference_steps: window_min_steps must be an integer >= 1' && echo 'is_16_err_min|1' || echo 'is_16_err_min|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_inference_steps(6, 1.5)' 2>&1 | grep -qF 'hta_inference_steps: window_tolerance must be a number in [0, 1]' && echo 'is_17_err_tol|1' || echo 'is_17_err_tol|0'"
-- hostile times (a database written by SQL): ends saturate, nothing overflows (UBSan), and
-- a batch size past int64 saturates
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (3, 2, 'default', 'r2.json', 0, 'h3', 3, -9223372036854775807, 9223372036854775807);
INSERT INTO string(value) VALUES ('step[DECODE bs=99999999999999999999]');
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation, link_id)
VALUES ((3 << 32) | 1, 3, 2, 1, 'X', (SELECT category_id FROM category WHERE name = 'user_annotation'),
        (SELECT string_id FROM string WHERE value = 'step[DECODE bs=99999999999999999999]'), 1, 1,
        9223372036854775000, 9223372036854775000, NULL, NULL, NULL),
       ((3 << 32) | 2, 3, 2, 2, 'X', (SELECT category_id FROM category WHERE name = 'cuda_runtime'),
        (SELECT string_id FROM string WHERE value = 'cudaGraphLaunch'), 1, 1,
        9223372036854775100, 9223372036854775000, NULL, 9, (3 << 32) | 3),
       ((3 << 32) | 3, 3, 2, 3, 'X', (SELECT category_id FROM category WHERE name = 'kernel'),
        (SELECT string_id FROM string WHERE value = 'k_a'), 0, 7,
        -9223372036854775807, 9223372036854775807, 7, 9, (3 << 32) | 2);
SELECT 'is_18_hostile', batch_size = 9223372036854775807 AND kernels = 1 AND graph_launches = 1
  AND dur_us >= 0 FROM hta_inference_steps WHERE trace_id = 3;
-- no annotation anywhere: no rows, no error
DELETE FROM event WHERE trace_id = 2;
UPDATE string SET value = 'renamed_' || value WHERE value LIKE 'execute%' OR value LIKE 'step[%'
  OR value LIKE 'decode[%';
SELECT 'is_19_none', count(*) = 0 FROM hta_inference_steps;

-- hta_findings (findings.c FD-1..8) and its host rules (findings_host.c FH-1..6): pageable_memcpy,
-- host_sync, allocator_churn. Times in µs below, stored as ns.
-- Job 'j', trace 1 (rank 0): steps #1 [0, 800), #2 [800, 2000), #3 [2000, 3000). Three step
-- numbers: the last is cut, so the analysed steps are #1 and #2, mean 1000 µs (FD-2).
--   step 1: aten::item [100,160) > aten::_local_scalar_dense [105,155) >
--             cudaMemcpyAsync [110,150) (40) -> "Memcpy DtoH (Device -> Pageable)" [140,145), 4 B
--             cudaStreamSynchronize [150,154) (4)
--   step 2: aten::to [900,1000) > aten::copy_ [905,995) >
--             cudaMemcpyAsync [910,990) (80) -> "Memcpy HtoD (Pageable -> Device)" [950,985), 1 MiB
--           aten::to [1010,1040) > cudaMemcpyAsync [1015,1035) (20) -> "Memcpy HtoD (Pinned ->
--             Device)" [1020,1030): pinned, no finding
--           cudaDeviceSynchronize [1500,1600) (100), in no operator
--           aten::empty [1700,1760) > cudaMalloc [1705,1755) (50);  cudaFree [1800,1830) (30)
--   step 3 (cut): cudaStreamSynchronize [2100,2600), cudaMalloc [2200,2300), a pageable copy
--           issued by cudaMemcpyAsync [2700,2900): none counts (FH-1).
-- Each copy is alone on its stream (8, 7, 9, 10): no GPU idle time, no other finding.
-- Expected, per step of the 2 analysed steps, % of the 1000 µs mean step:
--   pageable_memcpy  (40 + 80) / 2 = 60 µs, 6 %;   2 copies, 4 + 1048576 bytes, GPU 5 + 35 µs
--   host_sync        (4 + 100) / 2 = 52 µs, 5.2 %; 2 calls
--   allocator_churn  (50 + 30) / 2 = 40 µs, 4 %;   1 allocation, 1 free
-- Job 'k', trace 2 (rank 0): no steps: one step, its window [0, 500) (FD-2);
--   cudaStreamSynchronize [100,150): host_sync 50 µs per step, 10 %.
-- Trace 3 (rank 5) names job 3, which has no job row (no name): cudaEventSynchronize [10,30)
--   in its window [0, 200): host_sync 20 µs, 10 %, job NULL.
INSERT INTO job(job_id, name) VALUES (1, 'j'), (2, 'k');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 1, 0, 'distributedInfo', 'j0.json', 0, 'h1', 0), (2, 2, 0, 'distributedInfo', 'k0.json', 0, 'h2', 0),
       (3, 3, 5, 'distributedInfo', 'n5.json', 0, 'h3', 0);
CREATE TEMP TABLE ev(t, seq, cat, name, ts, dur, stream, corr, link, parent, args);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 0, 800, NULL, NULL, NULL, NULL, NULL),
  (1, 2, 'user_annotation', 'ProfilerStep#2', 800, 1200, NULL, NULL, NULL, NULL, NULL),
  (1, 3, 'user_annotation', 'ProfilerStep#3', 2000, 1000, NULL, NULL, NULL, NULL, NULL),
  (1, 10, 'cpu_op', 'aten::item', 100, 60, NULL, NULL, NULL, 1, NULL),
  (1, 11, 'cpu_op', 'aten::_local_scalar_dense', 105, 50, NULL, NULL, NULL, 10, NULL),
  (1, 12, 'cuda_runtime', 'cudaMemcpyAsync', 110, 40, NULL, 1, 13, 11, NULL),
  (1, 13, 'gpu_memcpy', 'Memcpy DtoH (Device -> Pageable)', 140, 5, 8, 1, 12, NULL, '{"bytes":4}'),
  (1, 14, 'cuda_runtime', 'cudaStreamSynchronize', 150, 4, NULL, NULL, NULL, 11, NULL),
  (1, 20, 'cpu_op', 'aten::to', 900, 100, NULL, NULL, NULL, 2, NULL),
  (1, 21, 'cpu_op', 'aten::copy_', 905, 90, NULL, NULL, NULL, 20, NULL),
  (1, 22, 'cuda_runtime', 'cudaMemcpyAsync', 910, 80, NULL, 2, 23, 21, NULL),
  (1, 23, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 950, 35, 7, 2, 22, NULL, '{"bytes":1048576}'),
  (1, 24, 'cpu_op', 'aten::to', 1010, 30, NULL, NULL, NULL, 2, NULL),
  (1, 25, 'cuda_runtime', 'cudaMemcpyAsync', 1015, 20, NULL, 3, 26, 24, NULL),
  (1, 26, 'gpu_memcpy', 'Memcpy HtoD (Pinned -> Device)', 1020, 10, 9, 3, 25, NULL, '{"bytes":64}'),
  (1, 27, 'cuda_runtime', 'cudaDeviceSynchronize', 1500, 100, NULL, NULL, NULL, 2, NULL),
  (1, 28, 'cpu_op', 'aten::empty', 1700, 60, NULL, NULL, NULL, 2, NULL),
  (1, 29, 'cuda_runtime', 'cudaMalloc', 1705, 50, NULL, NULL, NULL, 28, NULL),
  (1, 30, 'cuda_runtime', 'cudaFree', 1800, 30, NULL, NULL, NULL, 2, NULL),
  (1, 40, 'cuda_runtime', 'cudaStreamSynchronize', 2100, 500, NULL, NULL, NULL, 3, NULL),
  (1, 41, 'cuda_runtime', 'cudaMalloc', 2200, 100, NULL, NULL, NULL, 3, NULL),
  (1, 42, 'cuda_runtime', 'cudaMemcpyAsync', 2700, 200, NULL, 4, 43, 3, NULL),
  (1, 43, 'gpu_memcpy', 'Memcpy DtoH (Device -> Pageable)', 2800, 50, 10, 4, 42, NULL, '{"bytes":8}'),
  (2, 1, 'user_annotation', 'window', 0, 500, NULL, NULL, NULL, NULL, NULL),
  (2, 2, 'cuda_runtime', 'cudaStreamSynchronize', 100, 50, NULL, NULL, NULL, NULL, NULL),
  (3, 1, 'user_annotation', 'window', 0, 200, NULL, NULL, NULL, NULL, NULL),
  (3, 2, 'cuda_runtime', 'cudaEventSynchronize', 10, 20, NULL, NULL, NULL, NULL, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  correlation, link_id, parent_id, iteration, args)
SELECT (t << 32) | seq, t, (SELECT rank FROM trace WHERE trace_id = t), seq, 'X',
       (SELECT category_id FROM category WHERE name = cat), (SELECT string_id FROM string WHERE value = name),
       1, 1, ts * 1000, dur * 1000, stream, corr, CASE WHEN link IS NOT NULL THEN (t << 32) | link END,
       CASE WHEN parent IS NOT NULL THEN (t << 32) | parent END,
       CASE WHEN t = 1 THEN CASE WHEN ts < 800 THEN 1 WHEN ts < 2000 THEN 2 ELSE 3 END END, args
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur)
SELECT 1, seq, (1 << 32) | seq, ts * 1000, dur * 1000 FROM temp.ev WHERE t = 1 AND seq <= 3;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);

SELECT 'fd_columns', (SELECT group_concat(name, ',') FROM pragma_table_info('hta_findings')) =
  'rank,rule,title,time_us,pct_of_step,count,evidence,advice,source,trace_id,job';
SELECT 'fd_hidden', (SELECT group_concat(name, ',') FROM pragma_table_xinfo('hta_findings') WHERE hidden) = 'min_pct,schema';

-- FD-6: pct_of_step descending across rules; FH-1..4 times per step; FD-3 percentages.
SELECT 'fd_rows_j', (SELECT group_concat(rule || ':' || rank || ':' || trace_id || ':' || time_us || ':' || pct_of_step || ':' || count, ' ')
  FROM hta_findings WHERE job = 'j') =
  'pageable_memcpy:0:1:60.0:6.0:2 host_sync:0:1:52.0:5.2:2 allocator_churn:0:1:40.0:4.0:2';
SELECT 'fd_source', (SELECT group_concat(DISTINCT source) FROM hta_findings WHERE job = 'j') = 'hta-sqlite';
-- FD-4: min_pct keeps pct_of_step >= min_pct (5.2 itself stays), 0 keeps all, 100 none.
SELECT 'fd_min_pct_5', (SELECT group_concat(rule) FROM hta_findings(5) WHERE job = 'j') = 'pageable_memcpy,host_sync';
SELECT 'fd_min_pct_equal', (SELECT group_concat(rule) FROM hta_findings(5.2) WHERE job = 'j') = 'pageable_memcpy,host_sync';
SELECT 'fd_min_pct_6_01', (SELECT count(*) FROM hta_findings(6.01) WHERE job = 'j') = 0;
SELECT 'fd_min_pct_reads_back', (SELECT DISTINCT min_pct FROM hta_findings(2.5) WHERE job = 'j') = 2.5;
-- FD-5: the parameter's bounds and type.
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_findings(-0.5)' 2>&1 | grep -qF 'hta_findings: min_pct must be a number from 0 to 100' && echo 'fd_err_negative|1' || echo 'fd_err_negative|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_findings(100.5)' 2>&1 | grep -qF 'hta_findings: min_pct must be a number from 0 to 100' && echo 'fd_err_over|1' || echo 'fd_err_over|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_findings(char(120))' 2>&1 | grep -qF 'hta_findings: min_pct must be a number from 0 to 100' && echo 'fd_err_text|1' || echo 'fd_err_text|0'"
.shell sh -c "sqlite3 :memory: -cmd '.load $HTA_EXT' 'SELECT * FROM hta_findings(NULL)' 2>&1 | grep -qF 'hta_findings: min_pct must be a number from 0 to 100' && echo 'fd_err_null|1' || echo 'fd_err_null|0'"
SELECT 'fd_bounds_ok', (SELECT count(*) FROM hta_findings(0) WHERE job = 'j') = 3 AND (SELECT count(*) FROM hta_findings(100) WHERE job = 'j') = 0;

-- FH-2: the copies' evidence; the operators by host time (FH-5: the outermost operator,
-- aten::to and aten::item, not aten::copy_ or aten::_local_scalar_dense).
SELECT 'fh_pageable_ev', (SELECT json_extract(evidence, '$.copies') = 2 AND json_extract(evidence, '$.steps') = 2
  AND json_extract(evidence, '$.bytes') = 1048580 AND json_extract(evidence, '$.host_us') = 120
  AND json_extract(evidence, '$.gpu_us') = 40 AND json_extract(evidence, '$.by_kind') = '{"Memcpy DtoH":1,"Memcpy HtoD":1}'
  FROM hta_findings WHERE rule = 'pageable_memcpy');
SELECT 'fh_pageable_ops', (SELECT json_extract(evidence, '$.operators') FROM hta_findings WHERE rule = 'pageable_memcpy') =
  '[{"name":"aten::to","copies":1,"us":80},{"name":"aten::item","copies":1,"us":40}]';
-- the longest calls by seq (their position in the trace file: the same in any database)
SELECT 'fh_pageable_longest', (SELECT json_extract(evidence, '$.longest') FROM hta_findings WHERE rule = 'pageable_memcpy') =
  '[{"seq":22,"us":80},{"seq":12,"us":40}]';
SELECT 'fh_pageable_title', (SELECT title FROM hta_findings WHERE rule = 'pageable_memcpy') =
  '2 copies between the GPU and pageable host memory take 60.0 µs of host time per step, most in aten::to';
-- FH-3: the calls by name; a call in no operator has operator null.
SELECT 'fh_sync_ev', (SELECT json_extract(evidence, '$.calls') = 2 AND json_extract(evidence, '$.host_us') = 104
  AND json_extract(evidence, '$.by_call') = '{"cudaDeviceSynchronize":1,"cudaStreamSynchronize":1}'
  AND json_extract(evidence, '$.operators') = '[{"name":null,"calls":1,"us":100},{"name":"aten::item","calls":1,"us":4}]'
  FROM hta_findings WHERE rule = 'host_sync' AND job = 'j');
SELECT 'fh_sync_title', (SELECT title FROM hta_findings WHERE rule = 'host_sync' AND job = 'j') =
  '2 synchronizations of the host with the GPU take 52.0 µs per step';
-- FH-4: allocations and frees.
SELECT 'fh_alloc_ev', (SELECT json_extract(evidence, '$.allocations') = 1 AND json_extract(evidence, '$.frees') = 1
  AND json_extract(evidence, '$.by_call') = '{"cudaMalloc":1,"cudaFree":1}' AND json_extract(evidence, '$.host_us') = 80
  FROM hta_findings WHERE rule = 'allocator_churn');
SELECT 'fd_advice', (SELECT count(*) FROM hta_findings) > 0 AND (SELECT count(*) FROM hta_findings WHERE length(advice) > 40) = (SELECT count(*) FROM hta_findings);
SELECT 'fd_evidence_json', (SELECT count(*) FROM hta_findings WHERE json_valid(evidence) AND json_type(evidence) = 'object')
  = (SELECT count(*) FROM hta_findings);

-- FD-2: a trace without steps is one step, its window; FD-1: jobs apart, in job order; a job
-- without a name (no job row) is its own, job NULL.
SELECT 'fd_no_steps', (SELECT rule || ':' || time_us || ':' || pct_of_step || ':' || json_extract(evidence, '$.steps')
  FROM hta_findings WHERE job = 'k') = 'host_sync:50.0:10.0:1';
SELECT 'fd_jobs', (SELECT group_concat(coalesce(job, 'NULL') || ':' || rule, ' ') FROM hta_findings) =
  'j:pageable_memcpy j:host_sync j:allocator_churn k:host_sync NULL:host_sync';
SELECT 'fd_unnamed_job', (SELECT rank || ':' || time_us || ':' || pct_of_step FROM hta_findings WHERE job IS NULL) = '5:20.0:10.0';
-- FD-6: WHERE rank = N.
SELECT 'fd_rank', (SELECT count(*) FROM hta_findings WHERE rank = 0) = 4 AND (SELECT count(*) FROM hta_findings WHERE rank = 5) = 1
  AND (SELECT count(*) FROM hta_findings WHERE rank = 1) = 0;
-- FD-8: a job without any of this (job 'k' has no GPU rows) gives no error; neither does an empty one.
INSERT INTO job(job_id, name) VALUES (4, 'empty');
SELECT 'fd_empty_job', (SELECT count(*) FROM hta_findings WHERE job = 'empty') = 0;
-- An ATTACHed database is read through the hidden schema parameter: the same findings.
ATTACH 'findings_host.db' AS o;
SELECT 'fd_schema', (SELECT group_concat(rule || ':' || time_us, ',') FROM hta_findings WHERE schema = 'o' AND job = 'j')
  = (SELECT group_concat(rule || ':' || time_us, ',') FROM hta_findings WHERE job = 'j');

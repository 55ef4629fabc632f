-- hta_findings' plugin rules read from the Overview and the tensor-core figures
-- (findings_overview.c FO-1..4), on hand-made traces of one job 'ov'. Times are us (x1000 into ns).
--
-- Trace 1 (rank 0), device 0 of compute capability 8.0, thread 1:
--   ProfilerStep#1 [0,100); enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ [0,30);
--   aten::mm [40,50) launches (cudaLaunchKernel [42,45), correlation 7) sgemm_fp32 on GPU 0 [60,80).
--   The step launched [60,80), which ends before 100: the window stays [0,100).
--   Roles: Kernel 20, Runtime 3, DataLoader 30, CPU Exec = aten::mm 10 less the runtime 3 = 7,
--   Other 100 - 20 - 3 - 30 - 7 = 40.
--   FO-1 dataloader: 30 / 100 = 0.3 > 0.05: time 30 us, pct_of_step 30.
--   FO-3 gpu_low_utilization: GPU 0 busy 20 of 100 = 0.2: time (1 - 0.2) * 100 = 80, pct 80.
--   FO-4 tensor_cores_unused: aten::mm is eligible, sgemm_fp32 is no tensor-core kernel: eligible
--   100 % of the operators' kernel time (20 of 20), none on tensor cores, cc 8 >= 7: a
--   configuration row (no time), eligible 20 us per step, the advice for compute capability 8.x.
-- Trace 2 (rank 1): ProfilerStep#1 [0,100), nccl:all_reduce [10,25): Communication 15 of 100 >
--   0.10: FO-2 communication, time 15, pct 15.
-- Trace 3 (rank 2): the bounds: nccl:all_reduce [10,20) (0.10, not over) and a DataLoader
--   [50,55) (0.05, not over): nothing.
-- Trace 4 (rank 3), cc 8.0: aten::mm [10,20) launches [12,14) sm80_xmma_gemm_f16 on GPU 0 [20,70):
--   a tensor-core kernel (no FO-4); busy 50 of 100 = 0.5, not under 0.5 (no FO-3).
-- Trace 5 (rank 4), cc 6.1: as trace 1 without the DataLoader, plus a kernel on GPU 1
--   [65,95) (no launch; it starts after the step's first device start 60, so the window stays
--   [0,100)): GPUs 0 (0.2) and 1 (0.3) both low: one FO-3 finding, utilization 0.2, time 80; cc 6
--   < 7: no FO-4.
INSERT INTO job(job_id, name) VALUES (1, 'ov');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count)
SELECT r + 1, 1, r, 'distributedInfo', 'r' || r || '.json', 0, 'h' || r, 0
FROM (WITH RECURSIVE n(r) AS (SELECT 0 UNION ALL SELECT r + 1 FROM n WHERE r < 4) SELECT r FROM n);
INSERT INTO device(trace_id, device_id, total_global_mem, compute_major, compute_minor) VALUES
  (1, 0, 85899345920, 8, 0), (4, 0, 85899345920, 8, 0), (5, 0, 85899345920, 6, 1);
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, corr, dev, ext);
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, 1),
  (1, 2, 'cpu_op', 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', 0, 30, NULL, NULL, 2),
  (1, 3, 'cpu_op', 'aten::mm', 40, 10, NULL, NULL, 3),
  (1, 4, 'cuda_runtime', 'cudaLaunchKernel', 42, 3, 7, NULL, 3),
  (1, 5, 'kernel', 'sgemm_fp32', 60, 20, 7, 0, 3),
  (2, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, 1),
  (2, 2, 'cpu_op', 'nccl:all_reduce', 10, 15, NULL, NULL, 2),
  (3, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, 1),
  (3, 2, 'cpu_op', 'nccl:all_reduce', 10, 10, NULL, NULL, 2),
  (3, 3, 'cpu_op', 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', 50, 5, NULL, NULL, 3),
  (4, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, 1),
  (4, 2, 'cpu_op', 'aten::mm', 10, 10, NULL, NULL, 2),
  (4, 3, 'cuda_runtime', 'cudaLaunchKernel', 12, 2, 8, NULL, 2),
  (4, 4, 'kernel', 'sm80_xmma_gemm_f16', 20, 50, 8, 0, 2),
  (5, 1, 'cpu_op', 'ProfilerStep#1', 0, 100, NULL, NULL, 1),
  (5, 2, 'cpu_op', 'aten::mm', 40, 10, NULL, NULL, 3),
  (5, 3, 'cuda_runtime', 'cudaLaunchKernel', 42, 3, 7, NULL, 3),
  (5, 4, 'kernel', 'sgemm_fp32', 60, 20, 7, 0, 3),
  (5, 5, 'kernel', 'other_kernel', 65, 30, NULL, 1, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, correlation,
                  device, external_id, stream)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, 1, ts * 1000, dur * 1000, corr, dev, ext,
       CASE WHEN cat = 'kernel' THEN 7 END
FROM temp.ev;
-- each kernel's link to its launch (the row before it in these traces)
UPDATE event SET link_id = event_id - 1 WHERE correlation IS NOT NULL AND stream IS NOT NULL;
UPDATE event SET link_id = event_id + 1 WHERE correlation IS NOT NULL AND stream IS NULL;
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = (SELECT min(ts) FROM event e WHERE e.trace_id = trace.trace_id),
  max_end = (SELECT max(ts + coalesce(dur, 0)) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE f AS SELECT * FROM hta_findings(0) WHERE source = 'tb_plugin';

-- the rules that fire, and nowhere else (FO-1..4 with their bounds)
SELECT 'fo_rows', (SELECT group_concat(rule || ':' || rank, ' ') FROM (SELECT * FROM temp.f ORDER BY rank, rule)) =
  'dataloader:0 gpu_low_utilization:0 tensor_cores_unused:0 communication:1 gpu_low_utilization:4';
-- FO-1
SELECT 'fo_dataloader', (SELECT time_us = 30 AND pct_of_step = 30 AND json_extract(evidence, '$.step_us') = 100
  AND json_extract(evidence, '$.steps') = 1 AND title = 'The DataLoader takes 30.0% of each step (30.0 µs of 100 µs)'
  FROM temp.f WHERE rule = 'dataloader');
-- FO-2
SELECT 'fo_communication', (SELECT time_us = 15 AND pct_of_step = 15 AND json_extract(evidence, '$.role_us') = 15
  FROM temp.f WHERE rule = 'communication');
-- FO-3: one GPU, then two under 0.5 in one finding
SELECT 'fo_low_util', (SELECT abs(time_us - 80) < 1e-9 AND abs(pct_of_step - 80) < 1e-9
  AND json_extract(evidence, '$.utilization') = 0.2 FROM temp.f WHERE rule = 'gpu_low_utilization' AND rank = 0);
SELECT 'fo_low_util_two_gpus', (SELECT abs(time_us - 80) < 1e-9 AND json_extract(evidence, '$.utilization') = 0.2
  AND json_extract(evidence, '$.gpus[1].device') = 1 AND json_extract(evidence, '$.gpus[1].utilization') = 0.3
  AND json_array_length(evidence, '$.gpus') = 2 FROM temp.f WHERE rule = 'gpu_low_utilization' AND rank = 4);
-- FO-4
SELECT 'fo_tc_unused', (SELECT time_us IS NULL AND pct_of_step IS NULL AND kind = 'configuration'
  AND json_extract(evidence, '$.eligible_pct') = 100 AND json_extract(evidence, '$.eligible_kernel_us_per_step') = 20
  AND json_extract(evidence, '$.compute_capability') = '8.0' AND advice LIKE '%bf16%TF32%'
  FROM temp.f WHERE rule = 'tensor_cores_unused');
-- FD-6 min_pct on these rules: 25 keeps 30 (dataloader), 80 (utilization) and the configuration
SELECT 'fo_min_pct', (SELECT group_concat(rule, ' ') FROM (SELECT rule FROM hta_findings(25)
  WHERE rank = 0 AND source = 'tb_plugin' ORDER BY rule)) = 'dataloader gpu_low_utilization tensor_cores_unused';
-- FO-3, FD-5: the symptom lists the causes of the trace's accounting, which name it as parent; the
-- plugin's own rules are symptoms and configurations, never causes
SELECT 'fo_causes', (SELECT json_extract(evidence, '$.causes') FROM temp.f WHERE rule = 'gpu_low_utilization' AND rank = 0) =
  '[{"rule":"dataloader","us":30},{"rule":"gpu_waits_for_host","us":3},{"rule":"host_other","us":32}]';
SELECT 'fo_parents', (SELECT group_concat(DISTINCT parent) FROM hta_findings(0) WHERE rank = 0 AND kind = 'cause') = 'gpu_low_utilization';
SELECT 'fo_kinds', (SELECT group_concat(DISTINCT kind) FROM (SELECT kind FROM temp.f ORDER BY kind)) = 'configuration,symptom';

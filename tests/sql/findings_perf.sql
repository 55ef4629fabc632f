-- hta_findings' low_efficiency (findings_perf.c FP-1..4, fd_perf.c FPF-1..4) and hta-sqlite's
-- tensor_cores_unused (findings_tc.c FTC-1..4) on a hand-made job 'perf'. Times in µs
-- below (x1000 into ns). A device 'TestGPU 1' with its own device_peak row: matrix_bf16 100 TFLOPS,
-- 1 TB/s. Rank 0, one step ProfilerStep#1 [0, 2000):
--   A  aten::mm bf16 [1024,1024] x [1024,1024], twice, each kernel 100 µs:
--      FLOPs 2 * 1024^3 = 2147483648 -> 2147483648 / 100e12 s = 21.47483648 µs;
--      bytes (3 * 1024^2) * 2 = 6291456 -> 6.291456 µs at 1 TB/s; roofline 21.47483648 (compute).
--      K = 200, R = 42.94967296: R < K / 2, far: K - R = 157.05032704.
--   F  aten::mm bf16 [1024,1024] x [1024,2048] (another signature), kernel 50 µs: FLOPs
--      2 * 1024 * 2048 * 1024 = 4294967296 -> 42.94967296 µs; bytes (1024^2 + 2 * 1024 * 2048) * 2
--      = 10485760 -> 10.48576 µs; R / K = 42.94967296 / 50 = 0.859: not far (FP-3).
--   N  an aten::mm [512,1024] x [1024,1024] inside another of the same shapes, one kernel of
--      100 µs for both (FP-2: counted once, for the outer call): FLOPs 2*512*1024*1024 =
--      1073741824 -> 10.73741824 µs; bytes (512*1024 + 1024^2 + 512*1024) * 2 = 4194304 ->
--      4.194304 µs; K - R = 100 - 10.73741824 = 89.26258176.
--   time_us = (157.05032704 + 89.26258176) / 1 step = 246.3129088; pct_of_step = 100 * that / 2000
--   = 12.31564544; evidence.calls = 3 (A twice, N's outer once); A first in the evidence; kind
--   'busy', an estimate.
-- Rank 1: the same A on a device no device_peak pattern matches: no roofline, no finding (FPF-2).
-- Rank 2: 'TestGPU 2', compute capability 8.0 (peaks: vector_fp32 10, matrix_fp32 50, matrix_bf16
--   100 TFLOPS): a float32 aten::mm [1024,1024] x [1024,1024] whose kernel ampere_sgemm_128x128_nn
--   (no tensor-core name) takes 500 µs of the 2000 µs step: tensor_cores_unused's (FTC-1), time
--   500 * (1 - 10 / 100) = 450 µs, 22.5%; low_efficiency leaves it out (FP-1) though it is far
--   from its roofline (42.95 µs).
INSERT INTO job(job_id, name) VALUES (1, 'perf');
INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0), (2, 1, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0),
       (3, 1, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0);
INSERT INTO device(trace_id, device_id, name, compute_major, compute_minor)
VALUES (1, 0, 'TestGPU 1', NULL, NULL), (2, 0, 'Unknown Accelerator', NULL, NULL), (3, 0, 'TestGPU 2', 8, 0);
INSERT INTO device_peak(device_pattern, priority, compute_spec, peak_tflops, peak_tbps, form_factor, source)
VALUES ('TestGPU*', 0, 'matrix_bf16', 100.0, 1.0, 'test', 'this test'),
       ('TestGPU 2', -1, 'matrix_bf16', 100.0, 1.0, 'test', 'this test'),
       ('TestGPU 2', -1, 'matrix_fp32', 50.0, 1.0, 'test', 'this test'),
       ('TestGPU 2', -1, 'vector_fp32', 10.0, 1.0, 'test', 'this test');
CREATE TEMP TABLE ev(tr, seq, cat, name, ts, dur, stream, corr, link, it, args);
CREATE TEMP TABLE shapes(k, args);
INSERT INTO temp.shapes VALUES
  ('big', '{"Input Dims":[[1024,1024],[1024,1024]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[1024,1],[1024,1]],"Concrete Inputs":["",""]}'),
  ('wide', '{"Input Dims":[[1024,1024],[1024,2048]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[1024,1],[2048,1]],"Concrete Inputs":["",""]}'),
  ('half', '{"Input Dims":[[512,1024],[1024,1024]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[1024,1],[1024,1]],"Concrete Inputs":["",""]}'),
  ('f32', '{"Input Dims":[[1024,1024],[1024,1024]],"Input type":["float","float"],"Input Strides":[[1024,1],[1024,1]],"Concrete Inputs":["",""]}');
INSERT INTO temp.ev VALUES
  (1, 1, 'cpu_op', 'ProfilerStep#1', 0, 2000, NULL, NULL, NULL, 1, NULL),
  (1, 2, 'cpu_op', 'aten::mm', 100, 100, NULL, NULL, NULL, 1, 'big'),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 110, 5, NULL, 1, 4, 1, NULL),
  (1, 4, 'kernel', 'gemm_bf16', 120, 100, 7, 1, 3, 1, NULL),
  (1, 5, 'cpu_op', 'aten::mm', 300, 100, NULL, NULL, NULL, 1, 'big'),
  (1, 6, 'cuda_runtime', 'cudaLaunchKernel', 310, 5, NULL, 2, 7, 1, NULL),
  (1, 7, 'kernel', 'gemm_bf16', 320, 100, 7, 2, 6, 1, NULL),
  (1, 8, 'cpu_op', 'aten::mm', 500, 100, NULL, NULL, NULL, 1, 'wide'),
  (1, 9, 'cuda_runtime', 'cudaLaunchKernel', 510, 5, NULL, 3, 10, 1, NULL),
  (1, 10, 'kernel', 'gemm_bf16', 520, 50, 7, 3, 9, 1, NULL),
  (1, 11, 'cpu_op', 'aten::mm', 700, 200, NULL, NULL, NULL, 1, 'half'),
  (1, 12, 'cpu_op', 'aten::mm', 710, 180, NULL, NULL, NULL, 1, 'half'),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 720, 5, NULL, 4, 14, 1, NULL),
  (1, 14, 'kernel', 'gemm_bf16', 730, 100, 7, 4, 13, 1, NULL),
  (2, 1, 'cpu_op', 'ProfilerStep#1', 0, 2000, NULL, NULL, NULL, 1, NULL),
  (2, 2, 'cpu_op', 'aten::mm', 100, 100, NULL, NULL, NULL, 1, 'big'),
  (2, 3, 'cuda_runtime', 'cudaLaunchKernel', 110, 5, NULL, 1, 4, 1, NULL),
  (2, 4, 'kernel', 'gemm_bf16', 120, 100, 7, 1, 3, 1, NULL),
  (3, 1, 'cpu_op', 'ProfilerStep#1', 0, 2000, NULL, NULL, NULL, 1, NULL),
  (3, 2, 'cpu_op', 'aten::mm', 100, 100, NULL, NULL, NULL, 1, 'f32'),
  (3, 3, 'cuda_runtime', 'cudaLaunchKernel', 110, 5, NULL, 1, 4, 1, NULL),
  (3, 4, 'kernel', 'ampere_sgemm_128x128_nn', 120, 500, 7, 1, 3, 1, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream, correlation,
                  link_id, iteration, args)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, CASE WHEN stream IS NULL THEN 1 ELSE 7 END,
       ts * 1000, dur * 1000, stream, corr, CASE WHEN link IS NOT NULL THEN (tr << 32) | link END, it,
       (SELECT s.args FROM temp.shapes s WHERE s.k = ev.args)
FROM temp.ev;
INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES (1, 1, (1 << 32) | 1, 0, 2000000),
  (2, 1, (2 << 32) | 1, 0, 2000000), (3, 1, (3 << 32) | 1, 0, 2000000);
UPDATE trace SET event_count = (SELECT count(*) FROM event e WHERE e.trace_id = trace.trace_id),
  min_ts = 0, max_end = (SELECT max(ts + dur) FROM event e WHERE e.trace_id = trace.trace_id);
CREATE TEMP TABLE f AS SELECT * FROM hta_findings(0) WHERE rule = 'low_efficiency';

SELECT 'fp_rows', (SELECT group_concat(rank) FROM temp.f) = '0';
SELECT 'fp_time', (SELECT abs(time_us - 246.3129088) < 1e-6 AND abs(pct_of_step - 12.31564544) < 1e-6
  AND json_extract(evidence, '$.calls') = 3 AND json_extract(evidence, '$.estimate') = 1 AND kind = 'busy'
  AND parent = 'step' AND source = 'hta-sqlite' FROM temp.f);
SELECT 'fp_evidence', (SELECT json_extract(evidence, '$.signatures') = 2
  AND json_array_length(evidence, '$.operators') = 2
  AND json_extract(evidence, '$.operators[0].calls') = 2
  AND json_extract(evidence, '$.operators[0].shapes.M') = 1024
  AND abs(json_extract(evidence, '$.operators[0].roofline_us') - 42.94967296) < 1e-6
  AND json_extract(evidence, '$.operators[0].bound') = 'compute'
  AND json_extract(evidence, '$.operators[0].seq') = 2
  AND json_extract(evidence, '$.operators[1].calls') = 1
  AND json_extract(evidence, '$.operators[1].shapes.M') = 512
  AND json_extract(evidence, '$.operators[1].seq') = 11 FROM temp.f);
SELECT 'fp_title', (SELECT title = 'Operators far from the device''s limit: 246 µs per step above their roofline, most in aten::mm (21% of peak, compute bound)' FROM temp.f);
-- FTC-1..4: rank 2's float32 GEMM on no tensor core
SELECT 'ftc_time', (SELECT time_us = 450 AND pct_of_step = 22.5 AND kind = 'busy' AND json_extract(evidence, '$.estimate') = 1
  AND json_extract(evidence, '$.eligible_us') = 500 AND json_extract(evidence, '$.compute_capability') = '8.0'
  AND json_extract(evidence, '$.operators[0].name') = 'aten::mm' AND advice LIKE '%bf16%TF32%'
  FROM hta_findings(0) WHERE rule = 'tensor_cores_unused' AND source = 'hta-sqlite' AND rank = 2);
SELECT 'ftc_only', (SELECT group_concat(rank) FROM hta_findings(0) WHERE rule = 'tensor_cores_unused' AND source = 'hta-sqlite') = '2';
-- FPF-2: without device_peak the rules have nothing to say, and no error
DROP TABLE device_peak;
SELECT 'fp_no_peak_table', (SELECT count(*) FROM hta_findings(0) WHERE kind = 'busy') = 0;

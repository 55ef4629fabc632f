-- The roofline's device and peaks (ext/perf/op_perf.c OP-11, OP-15; op_perf_peaks.c): a
-- device named in its trace, a device named only by its properties (device_model), the
-- achievable figures beside the datasheet's, a database older than them.
-- Every trace (rank r) holds the same call: aten::mm [1024,1024] x [1024,1024] bf16,
-- 2 * 1024^3 = 2147483648 FLOPs, 3 * 1024^2 * 2 = 6291456 bytes, one kernel of 10 µs.
--   rank 0: no name; AMD GPU, compute 9.4, 304 CUs, 192 GiB       -> MI300X by its properties
--   rank 1: 'NVIDIA H100 80GB HBM3'                                -> H100 SXM5, no achievable
--   rank 2: no name; AMD GPU, 9.4, 304 CUs, 256 GiB               -> MI325X
--   rank 3: no name; NVIDIA GPU with rank 0's properties           -> no GPU: no roofline
--   rank 4: 'TestGPU 1', a row of our own with only achievable_tbps
CREATE TEMP TABLE ev(seq, cat, name, ts, dur, stream, corr, link, args);
INSERT INTO temp.ev VALUES
  (1, 'cpu_op', 'aten::mm', 0, 100000, NULL, NULL, NULL,
   '{"Input Dims":[[1024,1024],[1024,1024]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[1024,1],[1024,1]],"Concrete Inputs":["",""]}'),
  (2, 'cuda_runtime', 'hipLaunchKernel', 10000, 5000, NULL, 1, 3, NULL),
  (3, 'kernel', 'Cijk_Alik_Bljk_BBS_BH', 20000, 10000, 7, 1, 2, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
WITH t(tr, dt) AS (VALUES (1, 'AMD GPU'), (2, 'NVIDIA GPU'), (3, 'AMD GPU'), (4, 'NVIDIA GPU'), (5, 'NVIDIA GPU'))
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, device_type, min_ts, max_end)
SELECT tr, tr - 1, 'distributedInfo', 'r' || tr || '.json', 0, 'h' || tr, 3, dt, 0, 100000 FROM t;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, device, correlation, link_id, args)
SELECT (t.trace_id << 32) | seq, t.trace_id, t.rank, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, CASE WHEN stream IS NULL THEN 1 ELSE 7 END,
       ts, dur, stream, CASE WHEN stream IS NOT NULL THEN 0 END, corr,
       CASE WHEN link IS NOT NULL THEN (t.trace_id << 32) | link END, args
FROM temp.ev, trace t;
INSERT INTO device(trace_id, device_id, name, total_global_mem, compute_major, compute_minor, num_sms) VALUES
  (1, 0, '', 206141652992, 9, 4, 304),
  (2, 0, 'NVIDIA H100 80GB HBM3', 85018951680, 9, 0, 132),
  (3, 0, NULL, 274877906944, 9, 4, 304),
  (4, 0, '', 206141652992, 9, 4, 304),
  (5, 0, 'TestGPU 1', 1073741824, 1, 0, 1);
INSERT INTO device_peak(device_pattern, priority, compute_spec, peak_tflops, peak_tbps, form_factor, achievable_tbps)
VALUES ('TestGPU*', 1, 'matrix_bf16', 100, 1.0, 'a test GPU', 0.5);

SELECT 'opk_01_columns', group_concat(name, ',') =
  'rank,launcher_category,name,calls,kernel_us_total,subtree_kernel_us_total,percentage,cumulative_percentage,pct_of_gpu_time,gflops_total,tflops,pct_of_peak,pct_of_achievable,trace_id,job'
  FROM pragma_table_info('hta_op_perf_summary');
-- OP-11: rank 0 is an MI300X by its properties: matrix_bf16 1307.4 TFLOPS, 5.3 TB/s;
-- compute 2147483648 / 1307.4e12 s = 1.6426 µs > memory 6291456 / 5.3e12 s = 1.1871 µs
SELECT 'opk_02_by_properties', peak_device = 'MI300X OAM 192GB (and its VF)' AND peak_tflops = 1307.4
  AND peak_tbps = 5.3 AND bound = 'compute'
  AND abs(pct_of_peak - 100 * (2147483648 / 1307.4e12 * 1e6) / 10) < 1e-9
  FROM hta_op_perf WHERE rank = 0;
-- OP-15: its achievable BF16 rate is 708 TFLOPS (5.3 TB/s): 3.0332 µs of the 10
SELECT 'opk_03_achievable', achievable_tflops = 708 AND achievable_tbps = 5.3
  AND abs(pct_of_achievable - 100 * (2147483648 / 708e12 * 1e6) / 10) < 1e-9
  FROM hta_op_perf WHERE rank = 0;
SELECT 'opk_04_instance', abs(pct_of_achievable - 30.331690) < 1e-6 AND abs(pct_of_peak - 16.425605) < 1e-6
  FROM hta_op_perf('instance') WHERE rank = 0;
-- a device named in its trace: H100 SXM5, 989.4 TFLOPS; no published achievable figure
SELECT 'opk_05_named', peak_device = 'H100 SXM5 80GB' AND peak_tflops = 989.4 AND pct_of_peak > 0
  AND achievable_tflops IS NULL AND pct_of_achievable IS NULL
  FROM hta_op_perf WHERE rank = 1;
-- 256 GiB: an MI325X (843 TFLOPS achievable BF16, 6.0 TB/s)
SELECT 'opk_06_mi325x', peak_device = 'MI325X OAM 256GB' AND achievable_tflops = 843
  AND abs(pct_of_achievable - 100 * (2147483648 / 843e12 * 1e6) / 10) < 1e-9
  FROM hta_op_perf WHERE rank = 2;
-- the vendor must match too: no GPU, no roofline, never an error
SELECT 'opk_07_no_device', peak_device IS NULL AND peak_tflops IS NULL AND pct_of_peak IS NULL
  AND pct_of_achievable IS NULL AND gflops = 2.147483648
  FROM hta_op_perf WHERE rank = 3;
-- a missing achievable figure is the peak's: 100 TFLOPS and 0.5 TB/s: compute 21.47 µs,
-- memory 12.58 µs -> 214.7 % of the 10 µs (faster than the roofline: the data was cached)
SELECT 'opk_08_half_achievable', abs(pct_of_achievable - 100 * (2147483648 / 100e12 * 1e6) / 10) < 1e-9
  AND achievable_tflops IS NULL AND achievable_tbps = 0.5 AND pct_of_peak = pct_of_achievable
  FROM hta_op_perf WHERE rank = 4;
-- the summary: the GEMM category's achievable roofline time over its kernel time
SELECT 'opk_09_summary', abs(pct_of_achievable - 30.331690) < 1e-6 AND abs(pct_of_peak - 16.425605) < 1e-6
  FROM hta_op_perf_summary WHERE rank = 0 AND launcher_category = 'GEMM';
SELECT 'opk_10_summary_none', pct_of_achievable IS NULL AND pct_of_peak > 0
  FROM hta_op_perf_summary WHERE rank = 1 AND launcher_category = 'GEMM';
-- a schema 3 database: no achievable columns, no device_model; named devices keep their peaks
ALTER TABLE device_peak DROP COLUMN achievable_source;
ALTER TABLE device_peak DROP COLUMN achievable_tbps;
ALTER TABLE device_peak DROP COLUMN achievable_tflops;
DROP TABLE device_model;
SELECT 'opk_11_schema3', (SELECT pct_of_peak > 0 AND pct_of_achievable IS NULL FROM hta_op_perf WHERE rank = 1)
  AND (SELECT peak_tflops IS NULL FROM hta_op_perf WHERE rank = 0);

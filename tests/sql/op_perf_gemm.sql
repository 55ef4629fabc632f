-- hta_op_perf on GEMMs (op_perf.c OP-3..5, OP-10..12, OP-14): FLOPs and bytes by hand,
-- the kernel time as the busy time of a call's GPU events, the roofline from device_peak.
-- One trace, rank 0, an "NVIDIA H100 80GB HBM3" (device_peak: H100 SXM5, matrix_bf16
-- 989.4 TFLOPS, matrix_fp32 (TF32) 494.7, 3.35 TB/s). Times: ns in, µs out.
CREATE TEMP TABLE ev(seq, cat, name, ts, dur, stream, corr, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0);
INSERT INTO device(trace_id, device_id, name) VALUES (1, 0, 'NVIDIA H100 80GB HBM3');
INSERT INTO temp.ev VALUES
  -- mm [64,128] x [128,256] bf16: 2*64*256*128 = 4194304 FLOPs; (64*128 + 128*256 + 64*256) * 2
  -- = (8192 + 32768 + 16384) * 2 = 114688 bytes. Its GPU events: a kernel [20, 28) µs and a
  -- memset [26, 30) µs: busy 10 µs (the overlap once).
  (1, 'cpu_op', 'aten::mm', 0, 100000, NULL, NULL, NULL,
   '{"Input Dims":[[64,128],[128,256]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[128,1],[256,1]],"Concrete Inputs":["",""]}'),
  (2, 'cuda_runtime', 'cudaLaunchKernel', 10000, 5000, NULL, 1, 3, NULL),
  (3, 'kernel', 'nvjet_hsh_64x128_TN', 20000, 8000, 7, 1, 2, NULL),
  (4, 'cuda_runtime', 'cudaMemsetAsync', 30000, 2000, NULL, 2, 5, NULL),
  (5, 'gpu_memset', 'Memset (Device)', 26000, 4000, 7, 2, 4, NULL),
  -- addmm [256] + [32,64] x [64,256]: 2*32*256*64 + 32*256 = 1048576 + 8192 = 1056768 FLOPs;
  -- (32*64 + 64*256 + 32*256 + 256) * 2 = (2048 + 16384 + 8192 + 256) * 2 = 53760 bytes; no GPU event
  (6, 'cpu_op', 'aten::addmm', 200000, 50000, NULL, NULL, NULL,
   '{"Input Dims":[[256],[32,64],[64,256]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Input Strides":[[1],[64,1],[256,1]],"Concrete Inputs":["","",""]}'),
  -- bmm [4,8,16] x [4,16,32] float: 4*2*8*32*16 = 32768 FLOPs; 4*(8*16 + 16*32 + 8*32)*4 = 14336 bytes
  (7, 'cpu_op', 'aten::bmm', 260000, 10000, NULL, NULL, NULL,
   '{"Input Dims":[[4,8,16],[4,16,32]],"Input type":["float","float"],"Input Strides":[[128,16,1],[512,32,1]],"Concrete Inputs":["",""]}'),
  -- the same mm again, its kernel 20 µs
  (8, 'cpu_op', 'aten::mm', 300000, 100000, NULL, NULL, NULL,
   '{"Input Dims":[[64,128],[128,256]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[128,1],[256,1]],"Concrete Inputs":["",""]}'),
  (9, 'cuda_runtime', 'cudaLaunchKernel', 305000, 5000, NULL, 3, 10, NULL),
  (10, 'kernel', 'nvjet_hsh_64x128_TN', 310000, 20000, 7, 3, 9, NULL),
  -- no row: an mm with one shape, a bmm of 2-d shapes (OP-5)
  (11, 'cpu_op', 'aten::mm', 500000, 1000, NULL, NULL, NULL, '{"Input Dims":[[64,128]],"Input type":["float"]}'),
  (12, 'cpu_op', 'aten::bmm', 510000, 1000, NULL, NULL, NULL,
   '{"Input Dims":[[8,16],[16,32]],"Input type":["float","float"],"Input Strides":[[16,1],[32,1]]}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, CASE WHEN stream IS NULL THEN 1 ELSE 7 END,
       ts, dur, stream, corr, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event), min_ts = 0,
                 max_end = (SELECT max(ts + dur) FROM event);

SELECT 'opg_01_columns', group_concat(name, ',') =
  'rank,category,name,m,n,k,batch,shapes,dtypes,compute_spec,calls,gflops,bytes,flops_per_byte,kernel_us_mean,kernel_us_median,kernel_us_std,kernel_us_min,kernel_us_max,kernel_us_total,tflops,tbps,peak_tflops,peak_tbps,roofline_us,pct_of_peak,bound,achievable_tflops,achievable_tbps,pct_of_achievable,peak_device,event_id,is_backward,num_kernels,kernel_event_ids,graph_launch_event_id,trace_id,job'
  FROM pragma_table_info('hta_op_perf');
SELECT 'opg_02_hidden', group_concat(name, ',') = 'group_by,schema'
  FROM pragma_table_xinfo('hta_op_perf') WHERE hidden;

-- OP-4, OP-5: four rows per call (the malformed two have none), in seq order
SELECT 'opg_03_calls', group_concat(name || '@' || (event_id & 0xffffffff), ' ') =
  'aten::mm@1 aten::addmm@6 aten::bmm@7 aten::mm@8' FROM hta_op_perf('instance');
SELECT 'opg_04_mm', category = 'GEMM' AND m = 64 AND n = 256 AND k = 128 AND batch = 1
  AND gflops = 0.004194304 AND bytes = 114688 AND abs(flops_per_byte - 4194304.0 / 114688) < 1e-12
  AND compute_spec = 'matrix_bf16' AND calls = 1 AND is_backward = 0
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
-- OP-3: busy time of the kernel and the memset, by start
SELECT 'opg_05_kernel_time', kernel_us_total = 10.0 AND kernel_us_mean = 10.0 AND num_kernels = 2
  AND kernel_event_ids = json_array((1 << 32) | 3, (1 << 32) | 5)
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
-- OP-10: 0.004194304 GFLOPS / 1e3 / (10 µs / 1e6) = 0.4194304 TFLOPS; 114688 B / 1e12 / 1e-5 = 0.0114688 TB/s
SELECT 'opg_06_rates', abs(tflops - 0.4194304) < 1e-12 AND abs(tbps - 0.0114688) < 1e-15
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
-- parameters (TraceLens's names): the nvjet name's last token TN: A transposed, B not
SELECT 'opg_07_shapes', json_extract(shapes, '$.M') = 64 AND json_extract(shapes, '$.bias') = 0
  AND json_extract(shapes, '$.stride_A') = '[128,1]' AND json_extract(shapes, '$.transpose') = '[true,false]'
  AND dtypes = '["c10::BFloat16","c10::BFloat16"]'
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
-- OP-11: H100 SXM5 bf16 989.4 TFLOPS, 3.35 TB/s: memory 114688 / 3.35e12 s = 0.0342352... µs
-- beats compute 4194304 / 989.4e12 s = 0.00424... µs; pct = 100 * 0.0342352 / 10
SELECT 'opg_08_roofline', peak_tflops = 989.4 AND peak_tbps = 3.35 AND bound = 'memory'
  AND abs(roofline_us - 114688 / 3.35e6) < 1e-12 AND abs(pct_of_peak - 10 * 114688 / 3.35e6) < 1e-10
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
-- addmm: the bias adds M*N FLOPs and N elements; no GPU event: kernel time 0, rates NULL
SELECT 'opg_09_addmm', gflops = 0.001056768 AND bytes = 53760 AND kernel_us_total = 0
  AND num_kernels = 0 AND kernel_event_ids = '[]' AND tflops IS NULL AND tbps IS NULL
  AND pct_of_peak IS NULL AND bound = 'memory' AND json_extract(shapes, '$.bias') = 1
  AND json_extract(shapes, '$.transpose') IS NULL
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 6;
SELECT 'opg_10_bmm', batch = 4 AND m = 8 AND n = 32 AND k = 16 AND gflops = 3.2768e-05
  AND bytes = 14336 AND compute_spec = 'matrix_fp32' AND peak_tflops = 494.7
  FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 7;

-- OP-12: the two mm calls are one signature: 10 and 20 µs
SELECT 'opg_11_signature', calls = 2 AND kernel_us_total = 30 AND kernel_us_mean = 15
  AND kernel_us_median = 15 AND kernel_us_min = 10 AND kernel_us_max = 20
  AND abs(kernel_us_std - sqrt(50)) < 1e-12 AND event_id = (1 << 32) | 1
  AND abs(tflops - (0.4194304 + 0.2097152) / 2) < 1e-12 AND num_kernels IS NULL
  AND kernel_event_ids IS NULL
  FROM hta_op_perf WHERE name = 'aten::mm';
-- rows by kernel time, then first call
SELECT 'opg_12_order', group_concat(name, ' ') = 'aten::mm aten::addmm aten::bmm' FROM hta_op_perf;
SELECT 'opg_13_group_by', (SELECT count(*) FROM hta_op_perf('signature')) = 3
  AND (SELECT count(*) FROM hta_op_perf WHERE group_by = 'instance') = 4;

-- OP-13: launchers: the two mm calls (GEMM), 10 + 20 µs of the 30 µs of GPU time. FLOPs of
-- every forward GEMM row: 2 * 4194304 + 1056768 + 32768 = 9478144; with a kernel time only
-- the mm calls: 8388608 FLOPs in 30 µs = 0.2796202666... TFLOPS
SELECT 'opg_14_summary', launcher_category = 'GEMM' AND calls = 2 AND kernel_us_total = 30
  AND percentage = 100 AND cumulative_percentage = 100 AND pct_of_gpu_time = 100
  AND abs(gflops_total - 0.009478144) < 1e-15 AND abs(tflops - 8388608 / 30e-6 / 1e12) < 1e-12
  AND abs(pct_of_peak - 100 * 2 * 114688 / 3.35e6 / 30) < 1e-10 AND name IS NULL
  FROM hta_op_perf_summary;
SELECT 'opg_15_summary_name', group_concat(name || ':' || calls || ':' || kernel_us_total || ':'
  || subtree_kernel_us_total, ' ') = 'aten::mm:2:30.0:30.0' FROM hta_op_perf_summary('name');

-- OP-14
.system sqlite3 op_perf_gemm.db -cmd ".load $HTA_EXT" "SELECT * FROM hta_op_perf('bogus')" 2>&1 | grep -q "hta_op_perf: group_by must be 'signature' or 'instance'" && echo 'opg_16_err\|1' || echo 'opg_16_err\|0'
.system sqlite3 op_perf_gemm.db -cmd ".load $HTA_EXT" "SELECT * FROM hta_op_perf_summary(1)" 2>&1 | grep -q "hta_op_perf_summary: group_by must be 'category' or 'name'" && echo 'opg_17_err\|1' || echo 'opg_17_err\|0'

-- OP-11: a device no pattern matches, then no device_peak at all: NULL, never an error
UPDATE device SET name = 'Some GPU';
SELECT 'opg_18_no_device', count(*) = 4 AND count(peak_tflops) = 0 AND count(roofline_us) = 0
  AND count(bound) = 0 AND count(pct_of_peak) = 0 FROM hta_op_perf('instance');
-- a user's row: its own pattern, the first by priority
INSERT INTO device_peak(device_pattern, priority, compute_spec, peak_tflops, peak_tbps)
VALUES ('Some*', 1, 'matrix_bf16', 0.001, 1000);
-- compute 4194304 / 1e9 s = 4194.304 µs beats memory 114688 / 1e15 s: compute bound
SELECT 'opg_19_user_peak', bound = 'compute' AND abs(roofline_us - 4194.304) < 1e-9
  AND peak_tflops = 0.001 FROM hta_op_perf('instance') WHERE event_id = (1 << 32) | 1;
DROP TABLE device_peak;
SELECT 'opg_20_no_table', count(*) = 4 AND count(peak_tflops) = 0 AND count(roofline_us) = 0
  FROM hta_op_perf('instance');

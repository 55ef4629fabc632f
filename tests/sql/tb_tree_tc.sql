-- Tensor cores, eligibility, launch-configuration means, input shapes and several ranks in
-- hta_kernel_stats, hta_operator_stats and hta_tensor_core_summary (ext/tb/tb_stats.c TS-n,
-- ext/tb/tb_tree.c TB-n, ext/tb/tb_rules.c TBR-n), on three hand-made traces. Times in ns.
--
-- Trace 1, rank 0, thread 10, GPU 0 (every runtime's External id is its node's):
--   ProfilerStep#1 [0, 20000)
--   n1 aten::convolution_backward [1000, 2000) -> k1 cudnn_plain_kernel 300   (no tensor cores)
--   n2 aten::convolution_backward [3000, 4000) -> k2 volta_s884cudnn_dgrad 600 (tensor cores: s884)
--   n3 aten::linear [5000, 7000) > n4 aten::matmul [5100, 6900) > n5 aten::mm [5200, 6800)
--        n5 -> k3 volta_sgemm_128x64_nn 1000, grid [1,1,1], blocks per SM 4, occupancy 50
--   n6 aten::relu [7500, 8000) -> k4 relu_kernel 200, blocks per SM -1, occupancy 10
--   n7 aten::mm [8200, 8800) -> k5 volta_sgemm_128x64_nn 3000, grid [2,1,1], no blocks, occupancy 30
-- Trace 2, rank 1, GPU 1: aten::mm [100, 1100) -> Cijk_..._MI32x32x8x1_SN (an AMD matrix-core
--   GEMM: tensor cores by our names only) 800
-- Trace 3, rank 2: nccl:all_reduce [100, 1000) (an annotation node) -> ncclKernel_AllReduce 500,
--   the kernel carrying the collective's External id: no Kernel view (TB-12)
CREATE TEMP TABLE ev(tr, seq, cat, name, tid, ts, dur, stream, dev, ext, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 20000),
       (2, 1, 'distributedInfo', 'r1.json', 0, 'h2', 0, 100, 1100),
       (3, 2, 'distributedInfo', 'r2.json', 0, 'h3', 0, 100, 1000);
INSERT INTO temp.ev VALUES
  (1, 1, 'user_annotation', 'ProfilerStep#1', 10, 0, 20000, NULL, NULL, 1, NULL, NULL),
  (1, 2, 'cpu_op', 'aten::convolution_backward', 10, 1000, 1000, NULL, NULL, 11, NULL,
   '{"Input Dims":[[8,3,32,32],[]]}'),
  (1, 3, 'cuda_runtime', 'cudaLaunchKernel', 10, 1100, 100, NULL, NULL, 11, 21, NULL),
  (1, 4, 'cpu_op', 'aten::convolution_backward', 10, 3000, 1000, NULL, NULL, 12, NULL,
   '{"Input Dims":[[8,3,32,32],[]]}'),
  (1, 5, 'cuda_runtime', 'cudaLaunchKernel', 10, 3100, 100, NULL, NULL, 12, 22, NULL),
  (1, 6, 'cpu_op', 'aten::linear', 10, 5000, 2000, NULL, NULL, 13, NULL, NULL),
  (1, 7, 'cpu_op', 'aten::matmul', 10, 5100, 1800, NULL, NULL, 14, NULL, NULL),
  (1, 8, 'cpu_op', 'aten::mm', 10, 5200, 1600, NULL, NULL, 15, NULL, '{"Input Dims":[[8,512],[512,64]]}'),
  (1, 9, 'cuda_runtime', 'cudaLaunchKernel', 10, 5300, 100, NULL, NULL, 15, 23, NULL),
  (1, 10, 'cpu_op', 'aten::relu', 10, 7500, 500, NULL, NULL, 16, NULL,
   '{"Input Dims":[[],"x",1.5,null,true,1e-05]}'),
  (1, 11, 'cuda_runtime', 'cudaLaunchKernel', 10, 7600, 100, NULL, NULL, 16, 24, NULL),
  (1, 12, 'cpu_op', 'aten::mm', 10, 8200, 600, NULL, NULL, 17, NULL, '{"Input Dims":[[16,512],[512,64]]}'),
  (1, 13, 'cuda_runtime', 'cudaLaunchKernel', 10, 8300, 100, NULL, NULL, 17, 25, NULL),
  (1, 21, 'kernel', 'cudnn_plain_kernel', 7, 1300, 300, 7, 0, 11, 3, '{"grid":[1,1,1],"block":[64,1,1]}'),
  (1, 22, 'kernel', 'volta_s884cudnn_dgrad', 7, 3300, 600, 7, 0, 12, 5, '{"grid":[4,1,1],"block":[128,1,1]}'),
  (1, 23, 'kernel', 'volta_sgemm_128x64_nn', 7, 5500, 1000, 7, 0, 15, 9,
   '{"grid":[1,1,1],"block":[256,1,1],"blocks per SM":4,"est. achieved occupancy %":50}'),
  (1, 24, 'kernel', 'relu_kernel', 7, 7800, 200, 7, 0, 16, 11,
   '{"grid":[1,1,1],"block":[32,1,1],"blocks per SM":-1,"est. achieved occupancy %":10}'),
  (1, 25, 'kernel', 'volta_sgemm_128x64_nn', 7, 8500, 3000, 7, 0, 17, 13,
   '{"grid":[2,1,1],"block":[256,1,1],"est. achieved occupancy %":30}'),
  (2, 1, 'cpu_op', 'aten::mm', 5, 100, 1000, NULL, NULL, 21, NULL, NULL),
  (2, 2, 'cuda_runtime', 'hipLaunchKernel', 5, 200, 100, NULL, NULL, 21, 3, NULL),
  (2, 3, 'kernel', 'Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN', 3, 400, 800, 3, 1, 21, 2,
   '{"grid":[64,1,1],"block":[256,1,1]}'),
  (3, 1, 'user_annotation', 'nccl:all_reduce', 5, 100, 900, NULL, NULL, 31, NULL, NULL),
  (3, 2, 'cuda_runtime', 'cudaLaunchKernel', 5, 200, 100, NULL, NULL, 31, 3, NULL),
  (3, 3, 'kernel', 'ncclKernel_AllReduce', 7, 300, 500, 7, 0, 31, 2, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  device, external_id, link_id, args)
SELECT (tr << 32) | seq, tr, tr - 1, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur, stream, dev, ext,
       CASE WHEN link IS NOT NULL THEN (tr << 32) | link END, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event WHERE event.trace_id = trace.trace_id);

-- TB-9 eligibility: n1 is not (not on the list, no tensor-core kernel), n2 is (its kernel
-- uses tensor cores). TS-5: the row is eligible when any node is; the plugin (bit 32) shows
-- the first node's, n1's. Device self 300 + 600, tensor cores 600: 100 * 600 / 900.
SELECT 'tbc_01_eligible_any', calls = 2 AND tensor_cores_eligible = 1 AND device_self_us = 0.9
  AND abs(tensor_cores_self_pct - 200.0 / 3) < 1e-9 FROM hta_operator_stats
  WHERE name = 'aten::convolution_backward' AND rank = 0;
SELECT 'tbc_02_eligible_first', tensor_cores_eligible = 0 FROM hta_operator_stats(NULL, 32)
  WHERE name = 'aten::convolution_backward' AND rank = 0;
-- TB-11: the op eligibility of k2's group is its node's (n2: 1); the plugin (bit 64) copies the
-- name's (not on the list: 0); k1's node n1 is not eligible either way
SELECT 'tbc_03_kernel_op_eligible', group_concat(name || ':' || tensor_cores_used || op_tensor_cores_eligible, ',')
  = 'cudnn_plain_kernel:00,volta_s884cudnn_dgrad:11'
  FROM (SELECT * FROM hta_kernel_stats WHERE operator = 'aten::convolution_backward' ORDER BY name);
SELECT 'tbc_04_kernel_op_name', group_concat(name || ':' || tensor_cores_used || op_tensor_cores_eligible, ',')
  = 'cudnn_plain_kernel:00,volta_s884cudnn_dgrad:10'
  FROM (SELECT * FROM hta_kernel_stats(NULL, 64) WHERE operator = 'aten::convolution_backward' ORDER BY name);
-- nested eligible operators: aten::mm calls 2: host total 1600 + 600, self (1600 - 100) + (600 - 100),
-- device 1000 + 3000; aten::linear self 2000 - 1800, device total 1000
SELECT 'tbc_05_mm', calls = 2 AND host_total_us = 2.2 AND host_self_us = 2.0 AND device_self_us = 4.0
  AND device_total_us = 4.0 AND tensor_cores_eligible = 1 AND tensor_cores_self_pct = 0
  FROM hta_operator_stats WHERE name = 'aten::mm' AND rank = 0;
SELECT 'tbc_06_linear', calls = 1 AND host_self_us = 0.2 AND device_self_us = 0 AND device_total_us = 1.0
  AND tensor_cores_eligible = 1 FROM hta_operator_stats WHERE name = 'aten::linear';
-- rows by device self descending (TS-6)
SELECT 'tbc_07_order', group_concat(name, ',') =
  'aten::mm,aten::convolution_backward,aten::relu,aten::linear,aten::matmul'
  FROM hta_operator_stats WHERE rank = 0;

-- TS-2 means weighted by duration: by configuration k3 and k5 are two rows (grids differ);
-- by name (TS-3) one: blocks (4 * 1000 + 0 * 3000) / 4000 = 1, occupancy (50 * 1000 + 30 * 3000)
-- / 4000 = 35; a negative value is kept (relu: -1)
SELECT 'tbc_08_config_rows', group_concat(grid || ':' || calls || ':' || blocks_per_sm || ':'
  || achieved_occupancy, ',') = '[2,1,1]:1:0.0:30.0,[1,1,1]:1:4.0:50.0'
  FROM hta_kernel_stats WHERE name = 'volta_sgemm_128x64_nn';
SELECT 'tbc_09_by_name_means', calls = 2 AND total_us = 4.0 AND mean_us = 2.0 AND max_us = 3.0
  AND min_us = 1.0 AND blocks_per_sm = 1.0 AND achieved_occupancy = 35.0
  FROM hta_kernel_stats('name') WHERE name = 'volta_sgemm_128x64_nn';
SELECT 'tbc_10_negative_kept', blocks_per_sm = -1.0 AND achieved_occupancy = 10.0
  FROM hta_kernel_stats('name') WHERE name = 'relu_kernel';

-- TS-6, TBR-5: input shapes as Python prints them; none: "[]"
SELECT 'tbc_11_shapes', group_concat(name || ' ' || input_shape || ' ' || calls, '|') =
  'aten::convolution_backward [[8, 3, 32, 32], []] 2|aten::linear [] 1|aten::matmul [] 1|'
  || 'aten::mm [[16, 512], [512, 64]] 1|aten::mm [[8, 512], [512, 64]] 1|'
  || 'aten::relu [[], ''x'', 1.5, None, True, 1e-05] 1'
  FROM (SELECT * FROM hta_operator_stats('input_shape') WHERE rank = 0 ORDER BY name, input_shape);
SELECT 'tbc_12_shape_mm', device_self_us = 3.0 FROM hta_operator_stats('input_shape')
  WHERE input_shape = '[[16, 512], [512, 64]]';

-- TB-13 rank 0: eligible operators n2, n3, n4, n5, n7 (5); the bottom ones n2, n5, n7 (n3 and n4
-- hold eligible nodes): 600 + 1000 + 3000 of the operators' 5100 ns of kernels; tensor cores
-- 600 of all 5100; GPU 0's operator kernels likewise
SELECT 'tbc_13_summary', device = 0 AND eligible_operators = 5 AND eligible_nodes = 3
  AND eligible_kernel_us = 4.6 AND op_kernel_us = 5.1 AND tc_kernel_us = 0.6 AND kernel_us = 5.1
  AND abs(tensor_core_eligible_pct - 100.0 * 4600 / 5100) < 1e-9
  AND abs(tensor_core_used_pct - 100.0 * 600 / 5100) < 1e-9
  AND abs(tensor_core_kernel_pct - 100.0 * 600 / 5100) < 1e-9
  AND device_tc_kernel_us = 0.6 AND device_kernel_us = 5.1 AND trace_id = 1
  FROM hta_tensor_core_summary WHERE rank = 0;
-- TBR-2: the AMD matrix-core GEMM of rank 1 uses tensor cores by our names, not the plugin's
SELECT 'tbc_14_amd', device = 1 AND tensor_core_used_pct = 100.0 AND tensor_core_kernel_pct = 100.0
  AND tensor_core_eligible_pct = 100.0 FROM hta_tensor_core_summary WHERE rank = 1;
SELECT 'tbc_15_amd_plugin', tensor_core_used_pct = 0.0 AND tensor_core_kernel_pct = 0.0
  AND tensor_core_eligible_pct = 100.0 FROM hta_tensor_core_summary(16) WHERE rank = 1;
SELECT 'tbc_16_amd_kernel', tensor_cores_used = 1 AND operator = 'aten::mm' AND grid = '[64,1,1]'
  FROM hta_kernel_stats WHERE rank = 1;
-- TB-12 rank 2: the only kernel is the collective's: no Kernel view (no kernel rows, used
-- NULL); no operator node: eligible 0 and no per-GPU ratio
SELECT 'tbc_17_no_kernel_view', (SELECT count(*) FROM hta_kernel_stats WHERE rank = 2) = 0
  AND (SELECT count(*) FROM hta_kernel_stats('name') WHERE rank = 2) = 0;
SELECT 'tbc_18_no_view_summary', device = 0 AND tensor_core_used_pct IS NULL AND tensor_core_kernel_pct IS NULL
  AND tensor_core_eligible_pct = 0.0 AND kernel_us = 0.5 FROM hta_tensor_core_summary WHERE rank = 2;
-- TS-1: every rank in (rank, trace_id) order; WHERE rank = N keeps one
SELECT 'tbc_19_ranks', group_concat(rank || '/' || trace_id || '/' || device, ',') = '0/1/0,1/2/1,2/3/0'
  FROM hta_tensor_core_summary;
SELECT 'tbc_20_kernel_ranks', group_concat(DISTINCT rank) = '0,1' FROM hta_kernel_stats;

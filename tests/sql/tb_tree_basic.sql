-- The TensorBoard plugin's host tree and attribution (ext/tb/tb_tree.c TB-n) through
-- hta_operator_stats and hta_kernel_stats (ext/tb/tb_stats.c TS-n), on one hand-made trace
-- of rank 0, with our rules (plugin_quirks 0) and the plugin's (bits of tb_tree.h).
-- Times are ns; output is us.
--
-- Thread 10 (the step thread), in file order:
--   e1  user_annotation ProfilerStep#1 [0, 10000) ext 1
--   e2  cpu_op aten::linear [1000, 5000) ext 2
--   e3    cpu_op aten::addmm [1500, 4500) ext 3
--   e4      runtime [2000, 2100) ext 3 -> K1 volta_h884gemm (1000 ns, tensor cores: h884)
--   e5      runtime [3000, 3100) ext 3 -> K2 elementwise_kernel (500 ns)
--   e6  cpu_op aten::chain [5500, 6500) ext 4
--   e7    cpu_op aten::chain [5600, 6400) ext 5   (only child, same name: merged, TB-8)
--   e8    runtime [5520, 5540) ext 4 -> K3 k_outer (100)   (the outer node's own)
--   e9    runtime [5700, 5720) ext 5 -> K4 k_inner (200)
--   e10 cpu_op aten::copy_ [7000, 8000) ext 6
--   e11   runtime [7100, 7200) ext 999 (no node has it) -> M1 memcpy (300)
--   e12   cuda_driver cuLaunchKernel [7300, 7350) ext 6 -> K9 triton_poi (60)
--   e13 cpu_op aten::bad [7500, 8500) ext 8: starts in aten::copy_, ends after: dropped (TB-3)
--   e14 runtime [8600, 8700), no External id -> K6 k_noext (50)
--   e15 python_function nn.Module: Net_0 [9000, 9500) (Python module id: a node without id)
--   e16 user_annotation my_range [9600, 9700): not a node (TB-2)
-- Thread 20: e17 gpu_user_annotation ProfilerStep#1 [0, 10000) ext 1 (a GPU-side copy)
-- Thread 30: e18 cpu_op aten::mm [2000, 3000) ext 7; e19 runtime [2100, 2200) ext 7 -> K8
--   sm80_xmma_fprop_implicit_gemm_tf32 (400; tensor cores by our names only, TBR-2)
-- K7 k_unlinked (70) has no launch (TB-7).
CREATE TEMP TABLE ev(seq, cat, name, pid, tid, ts, dur, stream, ext, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 10000);
INSERT INTO temp.ev VALUES
  (1, 'user_annotation', 'ProfilerStep#1', 1, 10, 0, 10000, NULL, 1, NULL, NULL),
  (2, 'cpu_op', 'aten::linear', 1, 10, 1000, 4000, NULL, 2, NULL, NULL),
  (3, 'cpu_op', 'aten::addmm', 1, 10, 1500, 3000, NULL, 3, NULL, NULL),
  (4, 'cuda_runtime', 'cudaLaunchKernel', 1, 10, 2000, 100, NULL, 3, 31, NULL),
  (5, 'cuda_runtime', 'cudaLaunchKernel', 1, 10, 3000, 100, NULL, 3, 32, NULL),
  (6, 'cpu_op', 'aten::chain', 1, 10, 5500, 1000, NULL, 4, NULL, NULL),
  (7, 'cpu_op', 'aten::chain', 1, 10, 5600, 800, NULL, 5, NULL, NULL),
  (8, 'cuda_runtime', 'cudaLaunchKernel', 1, 10, 5520, 20, NULL, 4, 33, NULL),
  (9, 'cuda_runtime', 'cudaLaunchKernel', 1, 10, 5700, 20, NULL, 5, 34, NULL),
  (10, 'cpu_op', 'aten::copy_', 1, 10, 7000, 1000, NULL, 6, NULL, NULL),
  (11, 'cuda_runtime', 'cudaMemcpyAsync', 1, 10, 7100, 100, NULL, 999, 35, NULL),
  (12, 'cuda_driver', 'cuLaunchKernel', 1, 10, 7300, 50, NULL, 6, 36, NULL),
  (13, 'cpu_op', 'aten::bad', 1, 10, 7500, 1000, NULL, 8, NULL, NULL),
  (14, 'cuda_runtime', 'cudaLaunchKernel', 1, 10, 8600, 100, NULL, NULL, 37, NULL),
  (15, 'python_function', 'nn.Module: Net_0', 1, 10, 9000, 500, NULL, NULL, NULL, '{"Python module id":1}'),
  (16, 'user_annotation', 'my_range', 1, 10, 9600, 100, NULL, NULL, NULL, NULL),
  (17, 'gpu_user_annotation', 'ProfilerStep#1', 0, 20, 0, 10000, NULL, 1, NULL, NULL),
  (18, 'cpu_op', 'aten::mm', 1, 30, 2000, 1000, NULL, 7, NULL, NULL),
  (19, 'cuda_runtime', 'cudaLaunchKernel', 1, 30, 2100, 100, NULL, 7, 38, NULL),
  (31, 'kernel', 'volta_h884gemm_64x64_nn', 0, 7, 2500, 1000, 7, 3, 4,
   '{"grid":[8,1,1],"block":[128,1,1],"registers per thread":64,"shared memory":1024,"blocks per SM":0.5,"est. achieved occupancy %":25}'),
  (32, 'kernel', 'elementwise_kernel', 0, 7, 3600, 500, 7, 3, 5,
   '{"grid":[8,1,1],"block":[128,1,1],"registers per thread":32,"blocks per SM":2.0}'),
  (33, 'kernel', 'k_outer', 0, 7, 5600, 100, 7, 4, 8, '{"grid":[1,1,1],"block":[32,1,1]}'),
  (34, 'kernel', 'k_inner', 0, 7, 5750, 200, 7, 5, 9, '{"grid":[1,1,1],"block":[32,1,1]}'),
  (35, 'gpu_memcpy', 'Memcpy HtoD (Pageable -> Device)', 0, 7, 7250, 300, 7, 999, 11, NULL),
  (36, 'kernel', 'triton_poi_fused_0', 0, 7, 7400, 60, 7, 6, 12, '{"grid":[4,1,1],"block":[64,1,1]}'),
  (37, 'kernel', 'k_noext', 0, 7, 8800, 50, 7, NULL, 14, '{"grid":[1,1,1],"block":[32,1,1]}'),
  (38, 'kernel', 'sm80_xmma_fprop_implicit_gemm_tf32', 0, 8, 2300, 400, 8, 7, 19,
   '{"grid":[2,1,1],"block":[256,1,1]}'),
  (39, 'kernel', 'k_unlinked', 0, 7, 9800, 70, 7, NULL, NULL, '{"grid":[1,1,1],"block":[32,1,1]}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, stream,
                  device, external_id, link_id, args)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), pid, tid, ts, dur, stream,
       CASE WHEN stream IS NOT NULL THEN 0 END, ext, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END, args
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event);

-- registration and columns (TS-2, TS-5)
SELECT 'tbt_01_modules', count(*) = 3 FROM pragma_module_list
 WHERE name IN ('hta_kernel_stats', 'hta_operator_stats', 'hta_tensor_core_summary');
SELECT 'tbt_02_kernel_columns', group_concat(name, ',') =
  'rank,name,operator,grid,block,registers_per_thread,shared_memory,tensor_cores_used,'
  || 'op_tensor_cores_eligible,calls,total_us,mean_us,max_us,min_us,blocks_per_sm,achieved_occupancy,trace_id,job'
  FROM pragma_table_info('hta_kernel_stats');
SELECT 'tbt_03_operator_columns', group_concat(name, ',') =
  'rank,name,input_shape,calls,device_self_us,device_total_us,host_self_us,host_total_us,'
  || 'tensor_cores_eligible,tensor_cores_self_pct,tensor_cores_total_pct,trace_id,job'
  FROM pragma_table_info('hta_operator_stats');
SELECT 'tbt_04_hidden', (SELECT group_concat(name) FROM pragma_table_xinfo('hta_kernel_stats') WHERE hidden)
  = 'group_by,plugin_quirks,schema';

-- TB-2, TB-3, TB-8: the operator rows are the operator nodes: aten::bad is dropped, the two
-- aten::chain are one call, ProfilerStep, the nn.Module and my_range are no rows.
SELECT 'tbt_05_operator_names', group_concat(name || ':' || calls, ',') =
  'aten::linear:1,aten::addmm:1,aten::chain:1,aten::copy_:1,aten::mm:1'
  FROM (SELECT * FROM hta_operator_stats ORDER BY name = 'aten::mm', host_total_us DESC, name);
-- TB-9 aten::addmm: host total 3000, self 3000 - 100 - 100 = 2800; device self K1 + K2 = 1500;
-- tensor cores K1 1000: 100 * 1000 / 1500. Eligible by name (TBR-3).
SELECT 'tbt_06_addmm', calls = 1 AND device_self_us = 1.5 AND device_total_us = 1.5 AND host_self_us = 2.8
  AND host_total_us = 3.0 AND tensor_cores_eligible = 1 AND abs(tensor_cores_self_pct - 200.0 / 3) < 1e-9
  AND abs(tensor_cores_total_pct - 200.0 / 3) < 1e-9 AND input_shape IS NULL AND trace_id = 1 AND rank = 0
  FROM hta_operator_stats WHERE name = 'aten::addmm';
-- aten::linear: self 4000 - 3000 = 1000; device self 0, total 1500 (its child's): self pct 0
SELECT 'tbt_07_linear', device_self_us = 0 AND device_total_us = 1.5 AND host_self_us = 1.0
  AND host_total_us = 4.0 AND tensor_cores_self_pct = 0 AND abs(tensor_cores_total_pct - 200.0 / 3) < 1e-9
  FROM hta_operator_stats WHERE name = 'aten::linear';
-- TB-8 ours: the merged aten::chain keeps its own runtime e8 and takes e9: self 1000 - 20 - 20
-- = 960, device 100 + 200 = 300. The plugin (bit 2) keeps only e9: 980 and 200.
SELECT 'tbt_08_merge', device_self_us = 0.3 AND host_self_us = 0.96 AND host_total_us = 1.0
  FROM hta_operator_stats WHERE name = 'aten::chain';
SELECT 'tbt_09_merge_plugin', device_self_us = 0.2 AND host_self_us = 0.98
  FROM hta_operator_stats(NULL, 2) WHERE name = 'aten::chain';
-- TB-6 ours: e11 (an id of no node) hangs by time under aten::copy_; TB-5: the cuLaunchKernel
-- e12 is a launch; aten::bad is dropped so both are copy_'s: self 1000 - 100 - 50 = 850,
-- device 300 + 60 = 360 (memcpy time counts as device time).
SELECT 'tbt_10_copy', device_self_us = 0.36 AND host_self_us = 0.85 FROM hta_operator_stats
  WHERE name = 'aten::copy_';
-- The plugin: bit 1 loses e11 (self 950, device 60); bit 8 ignores e12 (self 900, device 300);
-- both: 1000 and 0.
SELECT 'tbt_11_copy_extid', device_self_us = 0.06 AND host_self_us = 0.95
  FROM hta_operator_stats(NULL, 1) WHERE name = 'aten::copy_';
SELECT 'tbt_12_copy_driver', device_self_us = 0.3 AND host_self_us = 0.9
  FROM hta_operator_stats(NULL, 8) WHERE name = 'aten::copy_';
SELECT 'tbt_13_copy_all', device_self_us = 0 AND host_self_us = 1.0
  FROM hta_operator_stats(NULL, 127) WHERE name = 'aten::copy_';
-- aten::mm on thread 30 (TB-3: its own tree): self 900, device 400, tensor cores ours 100 %,
-- the plugin's names (bit 16) 0 %; eligible by name either way.
SELECT 'tbt_14_mm', device_self_us = 0.4 AND host_self_us = 0.9 AND tensor_cores_self_pct = 100.0
  AND tensor_cores_eligible = 1 FROM hta_operator_stats WHERE name = 'aten::mm';
SELECT 'tbt_15_mm_names', tensor_cores_self_pct = 0.0 AND tensor_cores_eligible = 1
  FROM hta_operator_stats(NULL, 16) WHERE name = 'aten::mm';

-- TS-2: kernels by configuration; TB-11 operators. Ours: e14 (no id) hangs by time under
-- ProfilerStep#1; K7 under one root (thread 10, the first with a step).
SELECT 'tbt_16_kernel_ops', group_concat(name || '@' || operator || 'x' || calls, ',') =
  'elementwise_kernel@aten::addmmx1,k_inner@aten::chainx1,k_noext@ProfilerStep#1x1,'
  || 'k_outer@aten::chainx1,k_unlinked@CallTreeRootx1,sm80_xmma_fprop_implicit_gemm_tf32@aten::mmx1,'
  || 'triton_poi_fused_0@aten::copy_x1,volta_h884gemm_64x64_nn@aten::addmmx1'
  FROM (SELECT * FROM hta_kernel_stats ORDER BY name);
-- the plugin: e14 to the first node without id (the nn.Module, bit 1); K9 without its launch
-- (bit 8) and K7 under both ProfilerStep threads' roots (bit 4): calls 2 each
SELECT 'tbt_17_kernel_ops_plugin', group_concat(name || '@' || operator || 'x' || calls, ',') =
  'elementwise_kernel@aten::addmmx1,k_inner@aten::chainx1,k_noext@nn.Module: Net_0x1,'
  || 'k_unlinked@CallTreeRootx2,sm80_xmma_fprop_implicit_gemm_tf32@aten::mmx1,'
  || 'triton_poi_fused_0@CallTreeRootx2,volta_h884gemm_64x64_nn@aten::addmmx1'
  FROM (SELECT * FROM hta_kernel_stats(NULL, 127) ORDER BY name);
-- launch configuration from the args: JSON text; registers and shared memory 0 when absent;
-- blocks per SM and occupancy weighted by duration, a missing value as 0 (K2's occupancy)
SELECT 'tbt_18_config', grid = '[8,1,1]' AND block = '[128,1,1]' AND registers_per_thread = 64
  AND shared_memory = 1024 AND blocks_per_sm = 0.5 AND achieved_occupancy = 25.0 AND tensor_cores_used = 1
  AND op_tensor_cores_eligible = 1 AND total_us = 1.0 AND mean_us = 1.0 AND max_us = 1.0 AND min_us = 1.0
  FROM hta_kernel_stats WHERE name = 'volta_h884gemm_64x64_nn';
SELECT 'tbt_19_config_missing', registers_per_thread = 32 AND shared_memory = 0 AND blocks_per_sm = 2.0
  AND achieved_occupancy = 0.0 AND tensor_cores_used = 0 FROM hta_kernel_stats WHERE name = 'elementwise_kernel';
-- rows by total_us descending (TS-4)
SELECT 'tbt_20_order', group_concat(total_us, ',') = '1.0,0.5,0.4,0.2,0.1,0.07,0.06,0.05'
  FROM hta_kernel_stats;
-- TS-3: by name every kernel of the trace, whatever its launch; configuration columns NULL
SELECT 'tbt_21_by_name', count(*) = 8 AND sum(calls) = 8 AND count(operator) + count(grid) + count(block)
  + count(registers_per_thread) + count(shared_memory) + count(op_tensor_cores_eligible) = 0
  AND abs(sum(total_us) - 2.38) < 1e-12 FROM hta_kernel_stats('name');
SELECT 'tbt_22_by_name_quirks_same', (SELECT group_concat(name || calls) FROM hta_kernel_stats('name'))
  = (SELECT group_concat(name || calls) FROM hta_kernel_stats('name', 127));

-- TS-1: the rank constraint; a trace without data gives no rows, never an error
SELECT 'tbt_23_rank', (SELECT count(*) FROM hta_operator_stats WHERE rank = 0) = 5
  AND (SELECT count(*) FROM hta_operator_stats WHERE rank = 1) = 0
  AND (SELECT count(*) FROM hta_kernel_stats WHERE rank = 1) = 0;
-- TS-8: bad parameters (on a copy of this database, so that the function runs)
VACUUM INTO 'tb_tree_basic_copy.db';
.shell sh -c "sqlite3 tb_tree_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_stats(char(111,112))' 2>&1 | grep -q 'hta_kernel_stats: group_by must be .config. or .name.$' && echo 'tbt_24_err_group|1' || echo 'tbt_24_err_group|0'"
.shell sh -c "sqlite3 tb_tree_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_operator_stats(1)' 2>&1 | grep -q 'hta_operator_stats: group_by must be .name. or .input_shape.$' && echo 'tbt_25_err_group_int|1' || echo 'tbt_25_err_group_int|0'"
.shell sh -c "sqlite3 tb_tree_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_kernel_stats(NULL, 128)' 2>&1 | grep -qF 'hta_kernel_stats: plugin_quirks must be an integer from 0 to 127' && echo 'tbt_26_err_quirks|1' || echo 'tbt_26_err_quirks|0'"
.shell sh -c "sqlite3 tb_tree_basic_copy.db -cmd '.load $HTA_EXT' 'SELECT * FROM hta_tensor_core_summary(1.5)' 2>&1 | grep -qF 'hta_tensor_core_summary: plugin_quirks must be an integer from 0 to 127' && echo 'tbt_27_err_quirks_real|1' || echo 'tbt_27_err_quirks_real|0'"
.shell rm -f tb_tree_basic_copy.db

-- hta_op_perf's call tree, GPU links and launchers, and hta_op_perf_summary (op_perf.c
-- OP-2, OP-3, OP-8, OP-9, OP-13). Host thread 1; GPU stream 7. No flow events at all:
-- GPU events reach their launch through the correlation id (OP-6 e). Times ns.
CREATE TEMP TABLE ev(seq, cat, name, ts, dur, corr, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count,
                  min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 1000000);
INSERT INTO temp.ev VALUES
  -- an add [10] + [10] float (10 FLOPs) and its kernel: 3 µs
  (1, 'cpu_op', 'aten::add', 0, 10000, NULL, NULL, '{"Input Dims":[[10],[10],[]],"Input type":["float","float","Scalar"],"Input Strides":[[1],[1],[]],"Concrete Inputs":["","","1"]}'),
  (2, 'cuda_runtime', 'cudaLaunchKernel', 1000, 1000, 1, 3, NULL),
  (3, 'kernel', 'void at::native::vectorized_elementwise_kernel<add>', 2000, 3000, 1, 2, NULL),
  -- OP-2, a bleed under 1 µs: the neg starts 0.5 µs before the mul ends and ends after it:
  -- the mul is closed and the neg becomes its sibling under outer_op; its kernel is its own
  (4, 'cpu_op', 'outer_op', 20000, 20000, NULL, NULL, NULL),
  (5, 'cpu_op', 'aten::mul', 21000, 10000, NULL, NULL, '{"Input Dims":[[10],[10]],"Input type":["float","float"],"Input Strides":[[1],[1]],"Concrete Inputs":["",""]}'),
  (6, 'cpu_op', 'aten::neg', 30500, 5000, NULL, NULL, '{"Input Dims":[[10]],"Input type":["float"],"Input Strides":[[1]],"Concrete Inputs":[""]}'),
  (7, 'cuda_runtime', 'cudaLaunchKernel', 32000, 500, 2, 8, NULL),
  (8, 'kernel', 'neg_kernel', 33000, 1000, 2, 7, NULL),
  -- a bleed of 5 µs: this neg is left out of the tree; the launch inside its time is
  -- outer2's, and the neg has no GPU event
  (9, 'cpu_op', 'outer2', 50000, 10000, NULL, NULL, NULL),
  (10, 'cpu_op', 'aten::neg', 55000, 10000, NULL, NULL, '{"Input Dims":[[10]],"Input type":["float"],"Input Strides":[[1]],"Concrete Inputs":[""]}'),
  (11, 'cuda_runtime', 'cudaLaunchKernel', 56000, 500, 3, 12, NULL),
  (12, 'kernel', 'k3', 57000, 2000, 3, 11, NULL),
  -- OP-8: 'execute' passes its launches to the operator above it
  (13, 'cpu_op', 'aten::copy_', 70000, 10000, NULL, NULL, '{"Input Dims":[[10],[10],[]],"Input type":["float","float","Scalar"],"Input Strides":[[1],[1],[]],"Concrete Inputs":["","","False"]}'),
  (14, 'cpu_op', 'execute', 71000, 5000, NULL, NULL, NULL),
  (15, 'cuda_runtime', 'cudaLaunchKernel', 72000, 500, 4, 16, NULL),
  (16, 'kernel', 'copy_kernel', 73000, 1000, 4, 15, NULL),
  -- a launch outside every operator is its own launcher
  (17, 'cuda_runtime', 'cudaLaunchKernel', 90000, 500, 5, 18, NULL),
  (18, 'kernel', 'orphan_kernel', 91000, 2000, 5, 17, NULL),
  -- a graph launch: two kernels of one launch, [101, 102.5) µs busy
  (19, 'cpu_op', 'graph_replay', 99000, 5000, NULL, NULL, NULL),
  (20, 'cuda_runtime', 'cudaGraphLaunch', 100000, 500, 6, 22, NULL),
  (21, 'kernel', 'graph_k1', 101000, 1000, 6, 20, NULL),
  (22, 'kernel', 'graph_k2', 101500, 1000, 6, 20, NULL),
  -- communication: no launcher (it still counts as GPU time)
  (23, 'cpu_op', 'nccl:all_reduce', 110000, 5000, NULL, NULL, NULL),
  (24, 'cuda_runtime', 'cudaLaunchKernel', 110500, 500, 7, 25, NULL),
  (25, 'kernel', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', 111000, 10000, 7, 24, NULL),
  -- OP-9: 'triton' by the name's prefix
  (26, 'cpu_op', 'triton_poi_fused_add_0', 130000, 2000, NULL, NULL, NULL),
  (27, 'cuda_runtime', 'cudaLaunchKernel', 130500, 500, 8, 28, NULL),
  (28, 'kernel', 'triton_poi_fused_add_0', 131000, 1000, 8, 27, NULL),
  -- a driver call inside a runtime call: the walk stops at the runtime call, the driver
  -- call is the launcher; its category from its kernel's name: reduce
  (29, 'cpu_op', 'aten::zero_', 140000, 5000, NULL, NULL, NULL),
  (30, 'cuda_runtime', 'cudaLaunchKernel', 140500, 2000, NULL, NULL, NULL),
  (31, 'cuda_driver', 'cuLaunchKernel', 141000, 500, 9, 32, NULL),
  (32, 'kernel', 'void at::native::reduce_kernel<512, 1>', 142000, 1000, 9, 31, NULL),
  -- an operator without a category of its own: its kernel's name says elementwise
  (33, 'cpu_op', 'aten::fill_', 150000, 5000, NULL, NULL, NULL),
  (34, 'cuda_runtime', 'cudaLaunchKernel', 150500, 500, 11, 35, NULL),
  (35, 'kernel', 'void at::native::vectorized_elementwise_kernel<fill>', 151000, 1000, 11, 34, NULL);
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), CASE WHEN cat = 'kernel' THEN 0 ELSE 1 END,
       CASE WHEN cat = 'kernel' THEN 7 ELSE 1 END, ts, dur, CASE WHEN cat = 'kernel' THEN 7 END,
       corr, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END, args
FROM temp.ev;
CREATE TEMP TABLE r AS SELECT event_id & 0xffffffff AS s, * FROM hta_op_perf('instance');

-- OP-2, OP-3: each modelled call's GPU time
SELECT 'opt_01_kernels', group_concat(s || ':' || name || ':' || kernel_us_total || ':' || kernel_event_ids, ' ') =
  printf('1:aten::add:3.0:[%d] 5:aten::mul:0.0:[] 6:aten::neg:1.0:[%d] 10:aten::neg:0.0:[] 13:aten::copy_:1.0:[%d]',
         (1 << 32) | 3, (1 << 32) | 8, (1 << 32) | 16) FROM temp.r;

-- OP-8, OP-9, OP-13: launchers by name (and category); communication launches none
SELECT 'opt_02_launchers', group_concat(name || ':' || launcher_category || ':' || calls || ':' || kernel_us_total, ' ') =
  'aten::add:elementwise:1:3.0 cudaLaunchKernel:other:1:2.0 outer2:other:1:2.0 graph_replay:other:1:1.5 aten::copy_:elementwise:1:1.0 aten::fill_:elementwise:1:1.0 aten::neg:elementwise:1:1.0 cuLaunchKernel:reduce:1:1.0 triton_poi_fused_add_0:triton:1:1.0'
  FROM hta_op_perf_summary('name');
SELECT 'opt_03_subtree', subtree_kernel_us_total = 1.5 FROM hta_op_perf_summary('name') WHERE name = 'graph_replay';
-- per category: elementwise 3 + 1 + 1 + 1 = 6 µs (4 launchers), other 2 + 2 + 1.5 = 5.5 (3),
-- reduce 1, triton 1: of 13.5 µs. GPU busy time: 3 + 1 + 2 + 1 + 2 + 1.5 + 10 + 1 + 1 + 1 = 23.5 µs
SELECT 'opt_04_categories', group_concat(launcher_category || ':' || calls || ':' || kernel_us_total, ' ') =
  'elementwise:4:6.0 other:3:5.5 reduce:1:1.0 triton:1:1.0' FROM hta_op_perf_summary;
SELECT 'opt_05_percentages', abs(percentage - 600 / 13.5) < 1e-12 AND abs(cumulative_percentage - 600 / 13.5) < 1e-12
  AND abs(pct_of_gpu_time - 600 / 23.5) < 1e-12
  FROM hta_op_perf_summary WHERE launcher_category = 'elementwise';
SELECT 'opt_06_cumulative', abs(cumulative_percentage - 100) < 1e-12 FROM hta_op_perf_summary WHERE launcher_category = 'triton';
-- FLOPs of the outermost elementwise calls: add, mul, both negs, copy_: 5 x 10; with a
-- kernel time the add (3 µs), the first neg (1 µs), the copy_ (1 µs): 30 FLOPs in 5 µs
SELECT 'opt_07_flops', abs(gflops_total - 5e-8) < 1e-20 AND abs(tflops - 30 / 5e-6 / 1e12) < 1e-18
  FROM hta_op_perf_summary WHERE launcher_category = 'elementwise';
SELECT 'opt_08_no_flops', gflops_total IS NULL AND tflops IS NULL FROM hta_op_perf_summary WHERE launcher_category = 'other';

-- rank and job constraints, an empty database
SELECT 'opt_09_rank', (SELECT count(*) FROM hta_op_perf WHERE rank = 1) = 0
  AND (SELECT count(*) FROM hta_op_perf WHERE rank = 0) = 4;
SELECT 'opt_10_job', (SELECT count(*) FROM hta_op_perf_summary WHERE job = 'nope') = 0;
VACUUM INTO 'op_perf_tree_empty.db';
.system sqlite3 op_perf_tree_empty.db "DELETE FROM event; DELETE FROM trace"; sqlite3 op_perf_tree_empty.db -cmd ".load $HTA_EXT" "SELECT count(*) FROM hta_op_perf; SELECT count(*) FROM hta_op_perf_summary" 2>&1 | grep -c '^0$' | grep -q '^2$' && echo 'opt_11_empty\|1' || echo 'opt_11_empty\|0'

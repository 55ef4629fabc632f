-- hta_op_perf on convolutions and attention, and the backward pass (op_perf.c OP-4..7):
-- FLOPs and bytes by hand (deviations b, c), backward rows from the backward nodes
-- linked by sequence number. Thread 1 runs the forward pass, thread 2 the backward.
CREATE TEMP TABLE ev(seq, tid, cat, name, ts, dur, corr, link, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count,
                  min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 100000000);
INSERT INTO temp.ev VALUES
  -- conv x [1,3,8,8], w [4,3,3,3], bias [4], stride 1, padding 1, bf16: y [1,4,8,8] (256):
  -- 2*27*256 + 256 (OP-6 c: the bias) = 14080 FLOPs; (192 + 108 + 256 + 4) * 2 = 1120 bytes
  (1, 1, 'cpu_op', 'aten::convolution', 0, 10000, NULL, NULL,
   '{"Input Dims":[[1,3,8,8],[4,3,3,3],[4],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Input Strides":[[192,64,8,1],[27,9,3,1],[1],[],[],[],[],[],[]],"Concrete Inputs":["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"]}'),
  -- no bias, stride 2: trunc((8 + 2 - 2 - 1) / 2 + 1) = 4, y [1,4,4,4] (64):
  -- 2*27*64 = 3456 FLOPs; (192 + 108 + 64) * 2 = 728 bytes
  (2, 1, 'cpu_op', 'aten::convolution', 20000, 10000, NULL, NULL,
   '{"Input Dims":[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Input Strides":[[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"]}'),
  -- conv with a float weight on a bf16 input: no row
  (3, 1, 'cpu_op', 'aten::convolution', 40000, 10000, NULL, NULL,
   '{"Input Dims":[[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Input Strides":[[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"]}'),
  -- OP-6 c: the first conv's backward with output_mask [False, True, True] (no input
  -- gradient): weight gradient 2*108*1*64 = 13824 + bias gradient 256 = 14080 FLOPs;
  -- ((256 + 192 + 108) + (256 + 4)) * 2 = 1632 bytes; in CONV_bwd from the forward pass
  (4, 2, 'cpu_op', 'aten::convolution_backward', 60000, 10000, NULL, NULL,
   '{"Input Dims":[[1,4,8,8],[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"],"Input Strides":[[256,64,8,1],[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","[4]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[False, True, True]"]}'),
  -- flash attention q, k, v [2,4,16,8] bf16, causal: 2*4*(2*16*16*8 + 2*16*16*8) / 2 = 32768
  -- FLOPs; 4 * 1024 elements * 2 = 8192 bytes; no backward node: no backward row
  (6, 1, 'cpu_op', 'aten::_scaled_dot_product_flash_attention', 100000, 10000, NULL, NULL,
   '{"Input Dims":[[2,4,16,8],[2,4,16,8],[2,4,16,8],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"],"Input Strides":[[512,128,8,1],[512,128,8,1],[512,128,8,1],[],[],[],[]],"Concrete Inputs":["","","","0.","True","False","0.35"],"Sequence number":4}'),
  -- a wrapper with the same sequence number as the call inside it, which starts later and
  -- so takes the backward node (OP-7)
  (30, 1, 'cpu_op', 'aten::scaled_dot_product_attention', 690000, 20000, NULL, NULL, '{"Sequence number":5}'),
  -- OP-6 b: efficient attention [1,2,8,4] float, not causal: 1*2*(2*8*8*4 * 2) = 2048 FLOPs;
  -- 4 * 64 elements * 4 bytes (float) = 1024 bytes
  (7, 1, 'cpu_op', 'aten::_scaled_dot_product_efficient_attention', 700000, 5000, NULL, NULL,
   '{"Input Dims":[[1,2,8,4],[1,2,8,4],[1,2,8,4],[],[],[],[],[]],"Input type":["float","float","float","","Scalar","Scalar","Scalar",""],"Input Strides":[[64,32,4,1],[64,32,4,1],[64,32,4,1],[],[],[],[],[]],"Concrete Inputs":["","","","","True","0.0","False",""],"Sequence number":5}'),
  (31, 1, 'cpu_op', 'aten::_efficient_attention_forward', 701000, 2000, NULL, NULL, '{"Sequence number":6}'),
  -- sum of [4,6] float over [0]: 24 FLOPs; (24 + 6) * 4 = 120 bytes; its backward row
  -- repeats them (TraceLens's backward formulas for reductions are the forward ones)
  (8, 1, 'cpu_op', 'aten::sum', 800000, 10000, NULL, NULL,
   '{"Input Dims":[[4,6],[],[],[]],"Input type":["float","ScalarList","Scalar",""],"Input Strides":[[6,1],[],[],[]],"Concrete Inputs":["","[0]","False",""],"Sequence number":9}'),
  -- a mean without its own backward link, over an operator with one: no backward row (OP-4)
  (40, 1, 'cpu_op', 'aten::mean', 900000, 10000, NULL, NULL,
   '{"Input Dims":[[4]],"Input type":["float"],"Input Strides":[[1]],"Concrete Inputs":[""]}'),
  (41, 1, 'cpu_op', 'aten::mean_inner', 901000, 1000, NULL, NULL, '{"Sequence number":12}'),
  -- the backward pass: for sequence number 5, a node whose subtree runs 30 µs of kernel
  (20, 2, 'cpu_op', 'autograd::engine::evaluate_function: ScaledDotProductEfficientAttentionBackward0', 1000000, 100000, NULL, NULL, '{"Sequence number":5}'),
  (21, 2, 'cpu_op', 'aten::_scaled_dot_product_efficient_attention_backward', 1010000, 50000, NULL, NULL, NULL),
  (22, 2, 'cuda_runtime', 'cudaLaunchKernel', 1020000, 5000, 10, 23, NULL),
  (23, 7, 'kernel', 'fmha_bwd', 1030000, 30000, 10, 22, NULL),
  -- for 6 (the call under the attention): 10 µs more
  (27, 2, 'cpu_op', 'autograd::engine::evaluate_function: EfficientAttentionBackward0', 1100000, 50000, NULL, NULL, '{"Sequence number":6}'),
  (28, 2, 'cuda_runtime', 'cudaLaunchKernel', 1105000, 2000, 12, 29, NULL),
  (29, 7, 'kernel', 'fmha_bwd_2', 1110000, 10000, 12, 28, NULL),
  -- for 9 (the sum): 4 µs
  (24, 2, 'cpu_op', 'autograd::engine::evaluate_function: SumBackward0', 1200000, 50000, NULL, NULL, '{"Sequence number":9}'),
  (25, 2, 'cuda_runtime', 'cudaLaunchKernel', 1210000, 2000, 11, 26, NULL),
  (26, 7, 'kernel', 'expand', 1215000, 4000, 11, 25, NULL),
  -- for 12 (under the mean)
  (42, 2, 'cpu_op', 'autograd::engine::evaluate_function: MeanBackward1', 1300000, 5000, NULL, NULL, '{"Sequence number":12}');
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,
                  stream, correlation, link_id, args)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, tid, ts, dur,
       CASE WHEN cat = 'kernel' THEN 7 END, corr, CASE WHEN link IS NOT NULL THEN (1 << 32) | link END, args
FROM temp.ev;
CREATE TEMP TABLE r AS SELECT event_id & 0xffffffff AS s, * FROM hta_op_perf('instance');

SELECT 'opb_01_rows', group_concat(s || ':' || category || ':' || is_backward, ' ') =
  '1:CONV_fwd:0 2:CONV_fwd:0 4:CONV_bwd:0 6:SDPA_fwd:0 7:SDPA_fwd:0 7:SDPA_bwd:1 8:Reduce_fwd:0 8:Reduce_bwd:1 40:Reduce_fwd:0'
  FROM temp.r;
SELECT 'opb_02_costs', group_concat(s || ':' || is_backward || ':' || CAST(round(gflops * 1e9) AS INTEGER) || ':' || bytes, ' ') =
  '1:0:14080:1120 2:0:3456:728 4:0:14080:1632 6:0:32768:8192 7:0:2048:1024 7:1:4096:1792 8:0:24:120 8:1:24:120 40:0:4:20'
  FROM temp.r;
SELECT 'opb_03_conv_params', json_extract(shapes, '$.bias') = 1 AND json_extract(shapes, '$.convNd') = 'conv2d'
  AND json_extract(shapes, '$.stride') = '[1,1]' AND json_extract(shapes, '$.groups') = 1
  AND dtypes = '["c10::BFloat16","c10::BFloat16"]' AND compute_spec = 'matrix_bf16'
  FROM temp.r WHERE s = 1;
SELECT 'opb_04_conv_nobias', json_extract(shapes, '$.bias') = 0 AND json_extract(shapes, '$.stride') = '[2,2]'
  FROM temp.r WHERE s = 2;
SELECT 'opb_05_sdpa_params', json_extract(shapes, '$.causal') = 1 AND json_extract(shapes, '$.flash_impl') = 1
  AND json_extract(shapes, '$.N_Q') = 16 AND json_extract(shapes, '$.dropout') = 0.0
  FROM temp.r WHERE s = 6;
-- OP-7: sequence number 5 has the wrapper (690 µs) and the attention (700 µs): the later
-- one, the attention, takes the node; its backward row sees that node's kernel and the
-- one of the node linked to the call below it: 30 + 10 = 40 µs, two kernels
SELECT 'opb_06_bwd_kernels', kernel_us_total = 40 AND num_kernels = 2
  AND kernel_event_ids = json_array((1 << 32) | 23, (1 << 32) | 29)
  FROM temp.r WHERE s = 7 AND is_backward = 1;
SELECT 'opb_07_fwd_no_kernel', kernel_us_total = 0 AND tflops IS NULL FROM temp.r WHERE s = 7 AND is_backward = 0;
SELECT 'opb_08_sum_bwd', kernel_us_total = 4 AND abs(tflops - 24e-9 / 1e3 / 4e-6) < 1e-18
  FROM temp.r WHERE s = 8 AND is_backward = 1;
-- signatures: one row per table and pass
SELECT 'opb_09_signatures', (SELECT count(*) FROM hta_op_perf WHERE name = 'aten::sum') = 2
  AND (SELECT is_backward FROM hta_op_perf WHERE category = 'Reduce_bwd') = 1;

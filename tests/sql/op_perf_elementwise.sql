-- hta_op_perf on elementwise operators, reductions and normalizations (op_perf.c OP-4..6):
-- FLOPs and bytes computed by hand from the shapes below, with the deviations a and d.
-- One trace on an "AMD Instinct MI300X" (device_peak: vector_bf16 163.4 TFLOPS, 5.3 TB/s).
CREATE TEMP TABLE ev(seq, name, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count,
                  min_ts, max_end)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 0, 100000000);
INSERT INTO device(trace_id, device_id, name) VALUES (1, 0, 'AMD Instinct MI300X');
INSERT INTO temp.ev VALUES
  -- add [16,64] + [16,64] bf16 (alpha a Scalar): 1024 FLOPs; 1024 * (2 + 2 + 2) = 6144 bytes
  (1, 'aten::add', '{"Input Dims":[[16,64],[16,64],[]],"Input type":["c10::BFloat16","c10::BFloat16","Scalar"],"Input Strides":[[64,1],[64,1],[]],"Concrete Inputs":["","","1"]}'),
  -- mul [1,8,4] float by a 0-d double: 32 FLOPs; 32*4 + 1*8 + 32*4 = 264 bytes (the output
  -- keeps the tensor's size when the other operand is a scalar)
  (2, 'aten::mul', '{"Input Dims":[[1,8,4],[]],"Input type":["float","double"],"Input Strides":[[32,4,1],[]],"Concrete Inputs":["",""]}'),
  -- add [4,1] + [1,3] float broadcasts to [4,3]: 12 FLOPs; 4*4 + 3*4 + 12*4 = 76 bytes
  (3, 'aten::add', '{"Input Dims":[[4,1],[1,3],[]],"Input type":["float","float","Scalar"],"Input Strides":[[1,1],[3,1],[]],"Concrete Inputs":["","","1"]}'),
  -- add [4,2] + [3]: no broadcast, no row
  (4, 'aten::add', '{"Input Dims":[[4,2],[3],[]],"Input type":["float","float","Scalar"],"Input Strides":[[2,1],[1],[]],"Concrete Inputs":["","","1"]}'),
  -- copy_ of float [8,16] into bf16: 128 FLOPs; 128*2 + 128*4 = 768 bytes
  (5, 'aten::copy_', '{"Input Dims":[[8,16],[8,16],[]],"Input type":["c10::BFloat16","float","Scalar"],"Input Strides":[[16,1],[16,1],[]],"Concrete Inputs":["","","False"]}'),
  -- copy_ of a 0-d double into a 0-d bf16: the 0-d source counts as absent, 2 + 2 = 4 bytes
  (6, 'aten::copy_', '{"Input Dims":[[],[],[]],"Input type":["c10::BFloat16","double","Scalar"],"Input Strides":[[],[],[]],"Concrete Inputs":["","","False"]}'),
  -- silu without Input Strides: no row
  (7, 'aten::silu', '{"Input Dims":[[8]],"Input type":["float"]}'),
  -- upsample [1,2,4,4] float to [8, 8]: out [1,2,8,8] = 128 FLOPs; (32 + 128) * 4 = 640 bytes
  (8, 'aten::upsample_nearest2d', '{"Input Dims":[[1,2,4,4],[],[],[]],"Input type":["float","ScalarList","",""],"Input Strides":[[32,16,4,1],[],[],[]],"Concrete Inputs":["","[8, 8]","",""]}'),
  -- upsample by scale factors (no output size): no row
  (9, 'aten::upsample_nearest2d', '{"Input Dims":[[1,2,4,4],[],[],[]],"Input type":["float","","",""],"Input Strides":[[32,16,4,1],[],[],[]],"Concrete Inputs":["","","2.0","2.0"]}'),
  -- silu_and_mul(out [4,8], input [4,16]) bf16: 5 * 32 = 160 FLOPs; 2*32*2 + 32*2 = 192 bytes
  (10, 'sgl_kernel::silu_and_mul', '{"Input Dims":[[4,8],[4,16]],"Input type":["c10::BFloat16","c10::BFloat16"],"Input Strides":[[8,1],[16,1]],"Concrete Inputs":["",""]}'),
  -- replication_pad1d [1,2,5] by [1, 2]: out [1,2,8] = 16 FLOPs; (10 + 16) * 4 = 104 bytes
  (11, 'aten::replication_pad1d', '{"Input Dims":[[1,2,5],[]],"Input type":["float","ScalarList"],"Input Strides":[[10,5,1],[]],"Concrete Inputs":["","[1, 2]"]}'),
  -- OP-6 a: mean of [4,6,8] float over [-1]: 192 FLOPs; 24 outputs (not 1): (192 + 24) * 4 = 864
  (12, 'aten::mean', '{"Input Dims":[[4,6,8],[],[],[]],"Input type":["float","ScalarList","Scalar",""],"Input Strides":[[48,8,1],[],[],[]],"Concrete Inputs":["","[-1]","True",""]}'),
  -- sum of everything of [10,10]: (100 + 1) * 4 = 404 bytes
  (13, 'aten::sum', '{"Input Dims":[[10,10],[]],"Input type":["float",""],"Input Strides":[[10,1],[]],"Concrete Inputs":["",""]}'),
  -- max.dim of [3,5] over 1: 3 outputs, (15 + 3) * 4 = 72 bytes
  (14, 'aten::max', '{"Input Dims":[[3,5],[],[]],"Input type":["float","Scalar","Scalar"],"Input Strides":[[5,1],[],[]],"Concrete Inputs":["","1","False"]}'),
  -- cumsum of [7] int: 7 outputs, (7 + 7) * 4 = 56 bytes; int has no compute spec
  (15, 'aten::cumsum', '{"Input Dims":[[7],[],[]],"Input type":["int","Scalar",""],"Input Strides":[[1],[],[]],"Concrete Inputs":["","0",""]}'),
  -- linalg_norm of [2,768] bf16 over [-1]: 2 outputs, (1536 + 2) * 2 = 3076 bytes
  (16, 'aten::linalg_norm', '{"Input Dims":[[2,768],[],[],[],[]],"Input type":["c10::BFloat16","Scalar","ScalarList","Scalar",""],"Input Strides":[[768,1],[],[],[],[]],"Concrete Inputs":["","2","[-1]","True",""]}'),
  -- a sum without recorded shapes: 0 elements, bytes unknown, a row all the same
  (17, 'aten::sum', NULL),
  -- layer_norm [2,4,8] bf16 over [8] with weight and bias: n = 64, C = 8, training:
  -- 6*8 + 2*64 + 3*64 = 368 FLOPs; (2*64 + (2 + 1 + 1 + 2)*8) * 2 = 352 bytes
  (18, 'aten::layer_norm', '{"Input Dims":[[2,4,8],[],[8],[8],[],[]],"Input type":["c10::BFloat16","ScalarList","c10::BFloat16","c10::BFloat16","Scalar","Scalar"],"Input Strides":[[32,8,1],[],[1],[1],[],[]],"Concrete Inputs":["","[8]","","","1e-05","True"]}'),
  -- OP-6 d: the same without weight and bias: (2*64 + (2 + 2)*8) * 2 = 320 bytes
  (19, 'aten::layer_norm', '{"Input Dims":[[2,4,8],[],[],[],[],[]],"Input type":["c10::BFloat16","ScalarList","","","Scalar","Scalar"],"Input Strides":[[32,8,1],[],[],[],[],[]],"Concrete Inputs":["","[8]","","","1e-05","True"]}'),
  -- OP-6 d: batch_norm [2,3,4,4] float in inference (training 'False'): n = 96, C = 3:
  -- 6*3 + 2*96 = 210 FLOPs; (2*96 + (2 + 1 + 1)*3) * 4 = 816 bytes
  (20, 'aten::batch_norm', '{"Input Dims":[[2,3,4,4],[3],[3],[3],[3],[],[],[],[]],"Input type":["float","float","float","float","float","Scalar","Scalar","Scalar","Scalar"],"Input Strides":[[48,16,4,1],[1],[1],[1],[1],[],[],[],[]],"Concrete Inputs":["","","","","","False","0.1","1e-05","True"]}'),
  -- native_batch_norm_backward of the same shapes in bf16, training, mask [T, T, T]:
  -- C * (4e + 5e) with e = 96/3 = 32: 864 FLOPs; (3*96 + 4*3) * 2 = 600 bytes
  (21, 'aten::native_batch_norm_backward', '{"Input Dims":[[2,3,4,4],[2,3,4,4],[3],[3],[3],[3],[3],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","float","Scalar","Scalar","ScalarList"],"Input Strides":[[48,16,4,1],[48,16,4,1],[1],[1],[1],[1],[1],[],[],[]],"Concrete Inputs":["","","","","","","","True","1e-05","[True, True, True]"]}'),
  -- aiter::rms_norm x [4,16] bf16, weight [16]: (64/16)*(2*16 + 2) + 2*64 = 264 FLOPs;
  -- (2*64 + 16) * 2 = 288 bytes
  (22, 'aiter::rms_norm', '{"Input Dims":[[4,16],[16],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","Scalar","Scalar"],"Input Strides":[[16,1],[1],[],[]],"Concrete Inputs":["","","1e-05","0"]}');
INSERT INTO category(name) VALUES ('cpu_op');
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, args)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', 1, (SELECT string_id FROM string WHERE value = name), 1, 1,
       seq * 10000, 5000, args
FROM temp.ev;

-- OP-4, OP-5: the rows, by call; the malformed calls 4, 7 and 9 have none
SELECT 'ope_01_rows', group_concat(event_id & 0xffffffff, ',') =
  '1,2,3,5,6,8,10,11,12,13,14,15,16,17,18,19,20,21,22' FROM hta_op_perf('instance');
CREATE TEMP TABLE r AS SELECT event_id & 0xffffffff AS s, * FROM hta_op_perf('instance');
SELECT 'ope_02_tables', group_concat(s || ':' || category, ' ') =
  '1:BinaryElementwise 2:BinaryElementwise 3:BinaryElementwise 5:UnaryElementwise 6:UnaryElementwise 8:UnaryElementwise 10:UnaryElementwise 11:UnaryElementwise 12:Reduce_fwd 13:Reduce_fwd 14:Reduce_fwd 15:Reduce_fwd 16:Reduce_fwd 17:Reduce_fwd 18:Normalization 19:Normalization 20:Normalization 21:Normalization 22:RMSNorm_fwd'
  FROM temp.r;
-- FLOPs (as gflops * 1e9) and bytes, call by call
SELECT 'ope_03_costs', group_concat(s || ':' || CAST(round(gflops * 1e9) AS INTEGER) || ':' || coalesce(bytes, 'null'), ' ') =
  '1:1024:6144 2:32:264 3:12:76 5:128:768 6:1:4 8:128:640 10:160:192 11:16:104 12:192:864 13:100:404 14:15:72 15:7:56 16:1536:3076 17:0:null 18:368:352 19:368:320 20:210:816 21:864:600 22:264:288'
  FROM temp.r;
SELECT 'ope_04_specs', group_concat(s || ':' || coalesce(compute_spec, '-'), ' ') =
  '1:vector_bf16 2:vector_fp32 3:vector_fp32 5:vector_bf16 6:vector_bf16 8:vector_fp32 10:vector_bf16 11:vector_fp32 12:vector_fp32 13:vector_fp32 14:vector_fp32 15:- 16:vector_bf16 17:- 18:vector_bf16 19:vector_bf16 20:vector_fp32 21:vector_bf16 22:vector_bf16'
  FROM temp.r;
-- parameters by TraceLens's names
SELECT 'ope_05_binary', json_extract(shapes, '$.shape_in2') = '[]' AND dtypes = '["float","double",null]'
  AND json_extract(shapes, '$.stride_output') IS NULL FROM temp.r WHERE s = 2;
SELECT 'ope_06_unary', json_extract(shapes, '$.op_shape') = '[8,16]' AND dtypes = '["c10::BFloat16","float"]'
  AND json_extract(shapes, '$.stride_output') = '[16,1]' FROM temp.r WHERE s = 5;
SELECT 'ope_07_upsample', json_extract(shapes, '$.output_shape') = '[1,2,8,8]' FROM temp.r WHERE s = 8;
SELECT 'ope_08_reduce', json_extract(shapes, '$.num_input_elems') = 192
  AND json_extract(shapes, '$.num_output_elems') = 24 AND json_extract(shapes, '$.reduce_type') = 'mean'
  FROM temp.r WHERE s = 12;
SELECT 'ope_09_no_shapes', shapes = '{"num_input_elems":0,"num_output_elems":0}' AND dtypes = '[null,null]'
  AND gflops = 0 AND bytes IS NULL AND flops_per_byte IS NULL FROM temp.r WHERE s = 17;
SELECT 'ope_10_norm_flags', group_concat(s || ':' || json_extract(shapes, '$.is_affine') || json_extract(shapes, '$.has_bias')
  || json_extract(shapes, '$.is_training') || ':' || json_extract(shapes, '$.num_channels'), ' ') =
  '18:111:8 19:001:8 20:110:3 21:111:3 22:100:16' FROM temp.r WHERE s >= 18;
SELECT 'ope_11_mask', json_extract(shapes, '$.output_mask') = '[true,true,true]' FROM temp.r WHERE s = 21;
-- OP-11 on MI300X: the add moves 6144 bytes at 5.3 TB/s (0.00115924... µs) and does 1024
-- FLOPs at 163.4 TFLOPS (0.0000062... µs): memory bound; no kernel, no percentage
SELECT 'ope_12_roofline', bound = 'memory' AND abs(roofline_us - 6144 / 5.3e6) < 1e-15
  AND pct_of_peak IS NULL AND peak_tflops = 163.4 AND peak_tbps = 5.3 FROM temp.r WHERE s = 1;
SELECT 'ope_13_no_spec', roofline_us IS NULL AND bound IS NULL AND peak_tflops IS NULL FROM temp.r WHERE s = 15;
-- OP-12: the two layer norms are two signatures (their flags differ)
SELECT 'ope_14_signatures', count(*) = 2 FROM hta_op_perf WHERE name = 'aten::layer_norm';

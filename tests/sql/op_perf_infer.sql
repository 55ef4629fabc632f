-- The inference and low-precision models (ext/perf/op_perf_model_infer.c OI-n): FLOPs and
-- bytes worked out by hand for one call of each, on an "AMD Instinct MI300X". E_active, the
-- experts 4 tokens reach with top-2 of 8 under uniform routing: 8 (1 - (6/8)^4) = 5.46875.
-- The engine step [0, 1000] µs around the calls is
-- execute_10_context_1(sq8sk12sqsq64sqsk96)_generation_2(sq2sk30sqsq2sqsk30): one prefill
-- request of 8 new tokens over 12 (sums sq 8, sk 12, sq^2 64, sq*sk 96), two decode requests
-- (sq 2, sk 30, sq^2 2, sq*sk 30).
CREATE TEMP TABLE ev(seq, cat, name, ts, dur, args);
INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash, event_count, device_type)
VALUES (1, 0, 'distributedInfo', 'r0.json', 0, 'h1', 0, 'AMD GPU');
INSERT INTO device(trace_id, device_id, name) VALUES (1, 0, 'AMD Instinct MI300X');
INSERT INTO temp.ev VALUES
  (1, 'user_annotation', 'execute_10_context_1(sq8sk12sqsq64sqsk96)_generation_2(sq2sk30sqsq2sqsk30)', 0, 1000, NULL),
  (2, 'cpu_op', 'aiter::gemm_a8w8_blockscale_ck', 10, 10, '{"Input Dims":[[16,256],[512,256],[16,2],[4,2]],"Input type":["c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","float","float"],"Concrete Inputs":["","","",""]}'),
  (3, 'cpu_op', 'aiter::gemm_a8w8_ck', 30, 10, '{"Input Dims":[[8,64],[32,64],[8,1],[1,32]],"Input type":["signed char","signed char","float","float"],"Concrete Inputs":["","","",""]}'),
  (4, 'cpu_op', 'primus_turbo::hipblaslt_gemm_fp8', 50, 10, '{"Input Dims":[[128,64],[],[64,32],[],[],[],[],[],[]],"Input type":["c10::Float8_e4m3fnuz","float","c10::Float8_e4m3fnuz","float","Scalar","","","",""],"Concrete Inputs":["","","","","","False","False","False",""]}'),
  (5, 'cpu_op', 'primus_turbo_cpp_extension::hipblaslt_gemm_fp8', 70, 10, '{"Input Dims":[[128,64],[],[64,32],[],[],[],[],[],[]],"Input type":["c10::Float8_e4m3fnuz","float","c10::Float8_e4m3fnuz","float","Scalar","","","",""],"Concrete Inputs":["","","","","","False","True","True",""]}'),
  (6, 'cpu_op', 'primus_turbo::hipblaslt_gemm_fp4', 90, 10, '{"Input Dims":[[128,32],[128,2],[64,32],[64,2],[],[],[],[],[]],"Input type":["c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","Scalar","","","",""],"Concrete Inputs":["","","","","","False","True","False",""]}'),
  (7, 'cpu_op', 'aiter::gemm_a4w4', 110, 10, '{"Input Dims":[[32,64],[16,64],[32,4],[16,4],[],[],[],[],[]],"Input type":["c10::Float4_e2m1fn_x2","c10::Float4_e2m1fn_x2","c10::Float8_e8m0fnu","c10::Float8_e8m0fnu","","Scalar","","",""],"Concrete Inputs":["","","","","","","","",""]}'),
  (8, 'cpu_op', 'aiter::gemm_afp4wfp4_', 130, 10, '{"Input Dims":[[16,32],[8,32],[16,2],[8,2],[],[16,8]],"Input type":["unsigned char","unsigned char","unsigned char","unsigned char","",""],"Concrete Inputs":["","","","","",""]}'),
  (9, 'cpu_op', 'aiter::batched_gemm_a16wfp4_', 150, 10, '{"Input Dims":[[2,4,64],[2,8,32],[2,8,2]],"Input type":["c10::BFloat16","unsigned char","unsigned char"],"Concrete Inputs":["","",""]}'),
  (10, 'cpu_op', 'sglang_profiler::batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant_batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant_7', 170, 10, '{"Input Dims":[[4,2,16],[2,8,16],[1]],"Input type":["c10::BFloat16","signed char","float"],"Concrete Inputs":["","",""]}'),
  (11, 'cpu_op', 'vllm::gemm_with_dynamic_quant', 190, 10, '{"Input Dims":[[32,128],[64,64],[],[]],"Input type":["c10::BFloat16","unsigned char","",""],"Concrete Inputs":["","","",""]}'),
  (12, 'cpu_op', 'primus_turbo::grouped_gemm', 210, 10, '{"Input Dims":[[64,32],[4,32,16],[4]],"Input type":["c10::BFloat16","c10::BFloat16","long int"],"Concrete Inputs":["","",""]}'),
  (13, 'cpu_op', 'primus_turbo::grouped_gemm_impl', 230, 10, '{"Input Dims":[[64,32],[4,16,32],[4]],"Input type":["c10::BFloat16","c10::BFloat16","long int"],"Concrete Inputs":["","",""]}'),
  (14, 'cpu_op', 'primus_turbo::grouped_gemm_variable_k', 250, 10, '{"Input Dims":[[64,32],[64,16],[4]],"Input type":["c10::BFloat16","c10::BFloat16","long int"],"Concrete Inputs":["","",""]}'),
  (15, 'cpu_op', 'aiter::fmoe_g1u1', 270, 10, '{"Input Dims":[[4,64],[4,64],[8,64,64],[8,64,32],[4,2],[4,2],[40],[10],[],[]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","float","int","int","int","",""],"Concrete Inputs":["","","","","","","","","2",""]}'),
  (16, 'cpu_op', 'aiter::moe_cktile2stages_gemm1_ck', 290, 10, '{"Input Dims":[[4,64],[8,64,64],[4,2,32],[40],[10],[1]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","c10::BFloat16","int","int","int"],"Concrete Inputs":["","","","","",""]}'),
  (17, 'cpu_op', 'aiter::moe_cktile2stages_gemm2_ck', 310, 10, '{"Input Dims":[[4,2,32],[8,64,32],[4,64],[40],[10],[1]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","c10::BFloat16","int","int","int"],"Concrete Inputs":["","","","","",""]}'),
  (18, 'cpu_op', 'aiter::ck_moe_stage1', 330, 10, '{"Input Dims":[[4,64],[8,64,32],[8,64,16],[40],[10],[1],[4,2,32]],"Input type":["c10::BFloat16","c10::Float4_e2m1fn_x2","c10::Float4_e2m1fn_x2","int","int","int","c10::BFloat16"],"Concrete Inputs":["","","","","","",""]}'),
  (19, 'cpu_op', 'aiter::ck_moe_stage2', 350, 10, '{"Input Dims":[[4,2,32],[8,64,64],[8,64,32],[40],[10],[1],[4,64]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","int","int","int","c10::BFloat16"],"Concrete Inputs":["","","","","","",""]}'),
  (20, 'cpu_op', 'sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel_3', 370, 10, '{"Input Dims":[[4,64],[8,32,64],[],[8,32],[],[4,2],[4,2],[40],[4,2]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","","c10::BFloat16","","float","int","int","int"],"Concrete Inputs":["","","","","","","","",""]}'),
  (21, 'cpu_op', 'vllm::unified_attention_with_output', 390, 10, '{"Input Dims":[[10,4,16],[100,2,16],[100,2,16],[10,4,16]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["","","",""]}'),
  (22, 'cpu_op', 'aiter::mha_batch_prefill', 410, 10, '{"Input Dims":[[10,4,16],[100,2,16],[100,2,8]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["","",""]}'),
  (23, 'cpu_op', 'aiter::pa_decode_gluon', 430, 10, '{"Input Dims":[[2,4,16],[2,4,16],[50,2,16,16],[50,2,16,16],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","","","","","","","","","","","","","","","",""],"Concrete Inputs":["","","","","","","","","","","","","","","","","","","","10"]}'),
  (24, 'cpu_op', 'sglang_profiler::attention_paged_attention_ragged_5', 450, 10, '{"Input Dims":[[10,4,16],[1],[10,4,16],[100,1,2,16],[100,1,2,16]],"Input type":["c10::BFloat16","unsigned char","c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Concrete Inputs":["","","","",""]}')
,
  -- outside every step, then inside a native (not detailed) one: no attention row (OI-4)
  (40, 'cpu_op', 'vllm::unified_attention_with_output', 2000, 10, '{"Input Dims":[[10,4,16],[100,2,16]],"Input type":["c10::BFloat16","c10::BFloat16"]}'),
  (41, 'user_annotation', 'execute_context_1(8)_generation_2(2)', 3000, 1000, NULL),
  (42, 'cpu_op', 'vllm::unified_attention_with_output', 3500, 10, '{"Input Dims":[[10,4,16],[100,2,16]],"Input type":["c10::BFloat16","c10::BFloat16"]}'),
  -- malformed: a grouped GEMM whose weight matches no K, a fused MoE without its top-k
  (43, 'cpu_op', 'primus_turbo::grouped_gemm', 5000, 10, '{"Input Dims":[[64,32],[4,16,8]],"Input type":["c10::BFloat16","c10::BFloat16"]}'),
  (44, 'cpu_op', 'aiter::fmoe_g1u1', 5100, 10, '{"Input Dims":[[4,64],[4,64],[8,64,64],[8,64,32]],"Input type":["c10::BFloat16","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz","c10::Float8_e4m3fnuz"]}');
-- a kernel under five of the calls (a launch at +2 µs, its kernel at +5 for 4 µs), so that
-- they are launchers of the summary
CREATE TEMP TABLE k AS SELECT seq, ts FROM temp.ev WHERE seq IN (2, 12, 15, 16, 21);
INSERT INTO temp.ev SELECT 100 + seq, 'cuda_runtime', 'hipLaunchKernel', ts + 2, 2, NULL FROM temp.k;
INSERT INTO temp.ev SELECT 200 + seq, 'kernel', 'kernel_' || seq, ts + 5, 4, NULL FROM temp.k;
INSERT INTO category(name) SELECT DISTINCT cat FROM temp.ev;
INSERT INTO string(value) SELECT DISTINCT name FROM temp.ev;
INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur, args,
                  stream, device, correlation, link_id)
SELECT (1 << 32) | seq, 1, 0, seq, 'X', (SELECT category_id FROM category WHERE name = cat),
       (SELECT string_id FROM string WHERE value = name), 1, CASE WHEN cat = 'kernel' THEN 7 ELSE 1 END,
       ts * 1000, dur * 1000, args, CASE WHEN cat = 'kernel' THEN 7 END, CASE WHEN cat = 'kernel' THEN 0 END,
       CASE WHEN seq > 100 THEN seq % 100 END,
       CASE WHEN seq > 200 THEN (1 << 32) | (seq - 100) WHEN seq > 100 THEN (1 << 32) | (seq + 100) END
FROM temp.ev;
UPDATE trace SET event_count = (SELECT count(*) FROM event), min_ts = 0,
                 max_end = (SELECT max(ts + dur) FROM event);
CREATE TEMP TABLE p AS SELECT * FROM hta_op_perf('instance');

-- OI-1 a: x [16, 256], w [512, 256] FP8: 2*16*512*256 = 4194304 FLOPs;
-- 16*256 + 512*256 + 16*512*2 = 4096 + 131072 + 16384 = 151552 bytes; blocks 256/2, 512/4
SELECT 'opi_01_a8w8', category = 'GEMM' AND gflops = 0.004194304 AND bytes = 151552
  AND compute_spec = 'matrix_fp8' AND m = 16 AND n = 512 AND k = 256
  AND json_extract(shapes, '$.block_k') = 128 AND json_extract(shapes, '$.block_n') = 128
  FROM temp.p WHERE name = 'aiter::gemm_a8w8_blockscale_ck';
-- INT8 (signed char): 2*8*32*64 = 32768; 512 + 2048 + 8*32*2 = 3072; matrix_int8 (2614.9 TOPS)
SELECT 'opi_02_int8', gflops = 0.000032768 AND bytes = 3072 AND compute_spec = 'matrix_int8'
  AND peak_tflops = 2614.9
  FROM temp.p WHERE name = 'aiter::gemm_a8w8_ck';
-- OI-1 b: A [128, 64], B [64, 32]: 2*128*32*64 = 524288; 8192 + 2048 + 128*32*2 = 18432
SELECT 'opi_03_fp8', gflops = 0.000524288 AND bytes = 18432 AND m = 128 AND n = 32 AND k = 64
  FROM temp.p WHERE name = 'primus_turbo::hipblaslt_gemm_fp8';
-- transB, transC: A and B swap, transA = not transB = 0, transB = not transA = 1:
-- M = 64, K = 32, N = 128 (TraceLens's rule)
SELECT 'opi_04_fp8_transc', m = 64 AND k = 32 AND n = 128 AND bytes = 64*32 + 32*128 + 64*128*2
  FROM temp.p WHERE name = 'primus_turbo_cpp_extension::hipblaslt_gemm_fp8';
-- OI-1 c: A [128, 32 packed] -> K 64, B [64, 32] (transB) -> N 64: 2*128*64*64 = 1048576;
-- 128*32 + 64*32 + scales 128*2 + 64*2 + 128*64*2 = 4096 + 2048 + 256 + 128 + 16384 = 22912
SELECT 'opi_05_fp4', gflops = 0.001048576 AND bytes = 22912 AND compute_spec = 'matrix_fp4' AND k = 64
  FROM temp.p WHERE name = 'primus_turbo::hipblaslt_gemm_fp4';
-- a4w4: A [32, 64] -> K 128, B [16, 64] NT -> N 16: 131072; 2048 + 1024 + 128 + 64 + 1024 = 4288
SELECT 'opi_06_a4w4', gflops = 0.000131072 AND bytes = 4288 AND m = 32 AND n = 16 AND k = 128
  FROM temp.p WHERE name = 'aiter::gemm_a4w4';
-- OI-1 d: x [16, 32], w [8, 32] -> K 64: 16384; 16*64/2 + 8*64/2 + 16*8*2 = 512 + 256 + 256
SELECT 'opi_07_afp4', gflops = 0.000016384 AND bytes = 1024 AND compute_spec = 'matrix_fp4'
  FROM temp.p WHERE name = 'aiter::gemm_afp4wfp4_';
-- OI-1 e: x [2, 4, 64] bf16, w [2, 8, 32]: 2*2*4*8*64 = 8192; 2*(512 + 256 + 64) = 1664
SELECT 'opi_08_bg_a16wfp4', gflops = 0.000008192 AND bytes = 1664 AND batch = 2 AND compute_spec = 'matrix_fp4'
  FROM temp.p WHERE name = 'aiter::batched_gemm_a16wfp4_';
-- OI-1 f: x [4, 2, 16] ([M, B, K]: x[0] is not B = 2), w [2, 8, 16] int8: 2048;
-- 2*(4*16*2 + 8*16 + 4*8*2) = 640; SGLang's per-layer name read without its _7 (OP-4)
SELECT 'opi_09_bg_a8w8', gflops = 0.000002048 AND bytes = 640 AND m = 4 AND batch = 2
  AND compute_spec = 'matrix_int8'
  FROM temp.p WHERE name = 'sglang_profiler::batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant_batched_gemm_a8w8_a_per_token_group_prequant_w_per_batched_tensor_quant';
-- OI-1 g: x [32, 128] bf16, w [64, 64] packed: 524288; 8192 + 64*64 + 32*64*2 = 16384
SELECT 'opi_10_dynq', gflops = 0.000524288 AND bytes = 16384 AND compute_spec = 'matrix_bf16'
  FROM temp.p WHERE name = 'vllm::gemm_with_dynamic_quant';
-- OI-2: x [64, 32], w [4, 32, 16] and [4, 16, 32]: 2*64*32*16 = 65536;
-- 64*32*2 + 4*32*16*2 + 64*16*2 = 4096 + 4096 + 2048 = 10240; variable K [64, 32], [64, 16]:
-- 4096 + 32*16*2 + 2048 = 7168
SELECT 'opi_11_grouped', group_concat(category || ' ' || gflops || ' ' || bytes, ', ') =
  'GroupedGEMM_fwd 6.5536e-05 10240, GroupedGEMM_fwd 6.5536e-05 10240, GroupedGEMM_fwd 6.5536e-05 7168'
  FROM temp.p WHERE name LIKE 'primus_turbo::grouped_gemm%';
-- OI-3 a: M 4, K 64, N 32 (w1 rows 64 = 2N: gated), E 8, top-2: 2*4*64*32 = 16384;
-- 16384*2*2 + 16384*2 + 4*64*(2*2 - 1) = 99072; 256 + 5.46875*32*64*(2 + 1) + 256*2 = 34368
SELECT 'opi_12_fused', category = 'MoE_fused_fwd' AND gflops = 0.000099072 AND bytes = 34368
  AND compute_spec = 'matrix_fp8' AND json_extract(shapes, '$.gated') = 1
  AND json_extract(shapes, '$.topk') = 2
  FROM temp.p WHERE name = 'aiter::fmoe_g1u1';
-- OI-3 b: up, gated: 2*4*64*32*2*2 = 65536; 256*2 + 5.46875*2*64*32 + 4*32*2*2 = 23424
SELECT 'opi_13_up', category = 'MoE_unfused_fwd' AND gflops = 0.000065536 AND bytes = 23424
  FROM temp.p WHERE name = 'aiter::moe_cktile2stages_gemm1_ck';
-- OI-3 c: down: 2*4*32*64*2 = 32768; 4*32*2*2 + 5.46875*32*64 + 256*2 = 12224
SELECT 'opi_14_down', gflops = 0.000032768 AND bytes = 12224
  FROM temp.p WHERE name = 'aiter::moe_cktile2stages_gemm2_ck';
-- ck stage 1 with FP4 weights: w2 [8, 64, 16] packed, w1 [8, 64, 32]: N = 16 * 64/32 = 32,
-- gated; the weights half a byte: 512 + 5.46875*2*64*32/2 + 512 = 12224
SELECT 'opi_15_ck1_fp4', gflops = 0.000065536 AND bytes = 12224 AND json_extract(shapes, '$.inter_dim') = 32
  FROM temp.p WHERE name = 'aiter::ck_moe_stage1';
SELECT 'opi_16_ck2', gflops = 0.000032768 AND bytes = 12224
  FROM temp.p WHERE name = 'aiter::ck_moe_stage2';
-- OI-3 d: B [8, 32, 64], topk_ids [4, 2]: 8 rows of work: 2*8*32*64 = 32768;
-- 8*64*2 + 5.46875*32*64 + 8*32*2 = 1024 + 11200 + 512 = 12736
SELECT 'opi_17_triton', gflops = 0.000032768 AND bytes = 12736 AND compute_spec = 'matrix_fp8'
  FROM temp.p WHERE name = 'sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel';
-- OI-4: H_Q 4, d 16 + 16, H_kv 2: 4*(2*96 - 64)*32 + 2*4*30*32 = 16384 + 7680 = 24064 FLOPs;
-- Q, output, new K/V: (8 + 2)*(4*32 + 2*32) = 1920 elements, cached K/V (12 - 8 + 30 - 2)*2*32
-- = 2048, 2 bytes each: 7936
SELECT 'opi_18_attention', category = 'InferenceAttention_fwd' AND gflops = 0.000024064
  AND bytes = 7936 AND compute_spec = 'matrix_bf16' AND json_extract(shapes, '$.c_sqsk') = 96
  AND json_extract(shapes, '$.g_sk') = 30
  FROM temp.p WHERE name = 'vllm::unified_attention_with_output';
-- d_v 8 from v: 4*128*24 + 2*4*30*24 = 18048; (10*(4*24 + 2*24) + 32*2*24)*2 = 5952
SELECT 'opi_19_prefill', gflops = 0.000018048 AND bytes = 5952
  FROM temp.p WHERE name = 'aiter::mha_batch_prefill';
-- decode only, window 10 caps g_sk and g_sqsk at 2*10 = 20: 2*4*20*32 = 5120;
-- 2*192*2 + (20 - 2)*2*32 at the FP8 cache's 1 byte = 768 + 1152 = 1920
SELECT 'opi_20_gluon', gflops = 0.00000512 AND bytes = 1920 AND json_extract(shapes, '$.sliding_window') = 10
  FROM temp.p WHERE name = 'aiter::pa_decode_gluon';
SELECT 'opi_21_ragged', gflops = 0.000024064 AND bytes = 7936 AND json_extract(shapes, '$.N_KV') = 42
  FROM temp.p WHERE name = 'sglang_profiler::attention_paged_attention_ragged';
-- no detailed step: no row; malformed shapes: no row (OP-5)
SELECT 'opi_22_no_step', count(*) = 1 FROM temp.p WHERE name = 'vllm::unified_attention_with_output';
SELECT 'opi_23_malformed', (SELECT count(*) FROM temp.p WHERE name = 'primus_turbo::grouped_gemm') = 1
  AND (SELECT count(*) FROM temp.p WHERE name = 'aiter::fmoe_g1u1') = 1;
SELECT 'opi_24_rows', count(*) = 23 FROM temp.p;
-- the launchers' categories (TraceLens's for these names), each 4 µs of kernel time
SELECT 'opi_25_launchers', group_concat(launcher_category || ':' || calls || ':' || kernel_us_total, ',') =
  'GEMM:1:4.0,GroupedGEMM_fwd:1:4.0,InferenceAttention:1:4.0,MoE_fused:1:4.0,MoE_unfused:1:4.0'
  FROM (SELECT * FROM hta_op_perf_summary ORDER BY launcher_category);
-- with kernel time, the roofline of the FP8 a8w8 GEMM: 2614.9 TFLOPS and
-- 5.3 TB/s: memory 151552 / 5.3e12 s = 0.0286 µs > compute 0.0016 µs, of 4 µs
SELECT 'opi_26_roofline', bound = 'memory' AND abs(pct_of_peak - 100 * (151552 / 5.3e12 * 1e6) / 4) < 1e-9
  FROM hta_op_perf('instance') WHERE name = 'aiter::gemm_a8w8_blockscale_ck';

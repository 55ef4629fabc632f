-- Tensor-core recognition by kernel name and by dtype (ext/core/tensor_cores.c TC-1..6), through
-- hta_tensor_cores(name) (ext/core/scalars.c SC-4). Kernel names as the corpus and current
-- libraries write them.
-- TC-1: NVIDIA MMA families; cuBLAS/cuDNN FP32 FMA kernels named xmma are no tensor-core kernels
SELECT 'tc_xmma_tf32', hta_tensor_cores('sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer') = 'mma,tf32';
SELECT 'tc_xmma_ffma', hta_tensor_cores('sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nhwckrsc_nchw_tilesize128x128x8_stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel_cudnn') IS NULL;
SELECT 'tc_xmma_gemm_ffma', hta_tensor_cores('sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas') IS NULL;
SELECT 'tc_hopper', hta_tensor_cores('sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas') = 'mma,half';
SELECT 'tc_nvjet', hta_tensor_cores('nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT') = 'mma';
SELECT 'tc_gmma', hta_tensor_cores('void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<cute::tuple<...>, cutlass::gemm::KernelTmaWarpSpecializedCooperative>>>') = 'mma';
SELECT 'tc_wgmma', hta_tensor_cores('sm90_wgmma_bf16bf16_f32_kernel') = 'mma,half';
SELECT 'tc_tcgen05', hta_tensor_cores('kernel_cutlass_tcgen05_mma_sm100_bf16') = 'mma,half';
SELECT 'tc_cutlass', hta_tensor_cores('void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)') = 'mma';
SELECT 'tc_volta', hta_tensor_cores('volta_h884gemm_64x64_ldg8_nn') = 'mma,half';
-- TC-2: attention kernels; not flashinfer's helpers
SELECT 'tc_fmha', hta_tensor_cores('fmhaSm100fKernel_QkvE4m3OBfloat16HQk128HV128') = 'mma,half,fp8';
SELECT 'tc_flash', hta_tensor_cores('void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, true>(Flash_fwd_params)') = 'mma,half';
SELECT 'tc_flashinfer_helper', hta_tensor_cores('create_flashinfer_kv_indices_triton') IS NULL;
-- TC-3: Blackwell FP8 / FP4 GEMMs
SELECT 'tc_fp8_bmm', hta_tensor_cores('bmm_E4m3_E4m3E4m3_Fp32_t128x64x128_s6_et128x64_m256x64x32_cga1x1x1_16dp256b_TN_transOut_schedS_sm100f') = 'mma,fp8';
SELECT 'tc_fp4_gemm', hta_tensor_cores('gemm_E2m1_E2m1_Bf16_sm100_block_scaled') = 'mma,half,fp4';
-- TC-4: AMD matrix cores
SELECT 'tc_tensile', hta_tensor_cores('Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x64x128_MI16x16x1_SN_LDSB1') = 'mma,half';
SELECT 'tc_tensile_mi0', hta_tensor_cores('Cijk_Alik_Bljk_SB_MT64x64x8_MI0x0x0_SN') IS NULL;
SELECT 'tc_ck', hta_tensor_cores('_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3') = 'mma';
SELECT 'tc_miopen', hta_tensor_cores('igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8') = 'mma,half';
SELECT 'tc_ck_fmha', hta_tensor_cores('_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernel') = 'mma';
-- no tensor core: FP32 SIMT GEMMs and convolutions, elementwise kernels, and the names that only look alike
SELECT 'tc_sgemm', hta_tensor_cores('volta_sgemm_64x64_nt') IS NULL;
SELECT 'tc_scudnn', hta_tensor_cores('volta_scudnn_128x128_stridedB_splitK_medium_nn_v1') IS NULL;
SELECT 'tc_simt', hta_tensor_cores('void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)') IS NULL;
SELECT 'tc_subtensorop', hta_tensor_cores('SubTensorOpWithCastTensor1d') IS NULL;
SELECT 'tc_hfp8_cast', hta_tensor_cores('void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_float_to_hfp8_gpu(at::Tensor const&, long, long, double)') IS NULL;
SELECT 'tc_null', hta_tensor_cores(NULL) IS NULL;

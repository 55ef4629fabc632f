/*
** tensor_cores.h: which kernels run on tensor (NVIDIA) or matrix (AMD) cores, and in
** what precision, by their names; and what precision an operator's dtype asks for.
** One place for every analysis that classifies tensor-core work (the TensorBoard
** views' tensor-core figures, tb/tb_rules.c; hta_findings' tensor_cores_unused;
** FP8 / FP4 work). Implemented in tensor_cores.c; docs/sql.md "Tensor cores" lists
** the rules with examples.
**
**   unsigned f = hta_tc_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
**   (f & HTA_TC_MMA) -> on tensor cores;  (f & HTA_TC_HALF) -> in fp16 / bf16
**   hta_tc_dtype("c10::Float8_e4m3fn") == HTA_TC_FP8
**
** A kernel runs on tensor / matrix cores (HTA_TC_MMA) when its name holds an MMA
** instruction family (TC-n in tensor_cores.c):
**   NVIDIA  hmma, imma, xmma (not an FP32 FMA kernel: no "ffma"), gmma, wgmma, tcgen05,
**           cuBLASLt's nvjet, FlashAttention (flash_fwd, flash_bwd, flash_attn, flash::)
**           and fmha (any case), CUTLASS tensorop / MmaTensorOp / wmma, the MMA shapes
**           h884, s884, h1688, s1688, c1688, i8816, 16816, cuDNN's tensor-core kernels
**           the TensorBoard plugin lists by name (conv1x1, direct_group, ...), and GEMMs named with an FP8 or
**           FP4 element type (e4m3, e5m2, e2m1: Blackwell's bmm_*E4m3* kernels);
**   AMD     a Tensile / hipBLASLt _MI<m>x<n>x<k> token (m > 0), composable_kernel's xdl,
**           MIOpen's _gtcx, mfma, wmma.
** The precision bits come from the name's element types where it has them.
*/
#ifndef HTA_TENSOR_CORES_H
#define HTA_TENSOR_CORES_H

#define HTA_TC_MMA 1u   /* runs on tensor / matrix cores */
#define HTA_TC_TF32 2u  /* TF32 inputs */
#define HTA_TC_HALF 4u  /* fp16 or bf16 */
#define HTA_TC_FP8 8u   /* 8-bit floats (e4m3, e5m2) */
#define HTA_TC_FP4 16u  /* 4-bit floats (e2m1) */
#define HTA_TC_INT8 32u /* 8-bit integers */

/* HTA_TC_MMA and the precision bits the kernel NAME shows; 0 for a kernel that runs on
** no tensor core by its name (NULL: 0). */
unsigned hta_tc_kernel(const char *name);
/* The precision bits of an operator's input dtype as the profiler writes it ("float",
** "c10::Half", "c10::BFloat16", "c10::Float8_e4m3fn", "c10::Float4_e2m1fn_x2", "signed
** char"): what tensor cores run; 0 for float32, float64 and other types. */
unsigned hta_tc_dtype(const char *dtype);

#endif

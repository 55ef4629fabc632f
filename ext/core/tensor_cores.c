/*
** tensor_cores.c: hta_tc_kernel and hta_tc_dtype (tensor_cores.h).
**
** Requirements (tests cite them as TC-n):
**  1. NVIDIA MMA families, case-sensitive substrings: hmma, imma, gmma (wgmma too),
**     tcgen05, nvjet, tensorop, MmaTensorOp, wmma, and the MMA shapes h884, s884, h1688,
**     s1688, c1688, i8816, 16816, and the cuDNN tensor-core kernels NVIDIA's tools list
**     by name (dgrad_1x1_stride_2x2, first_layer_wgrad_kernel, conv1x1, conv2d_c1_k1,
**     direct_group: the TensorBoard plugin's list); xmma unless the name holds ffma (cuBLAS and cuDNN name
**     their FP32 FMA kernels sm80_xmma_..._ffma_...: no tensor core).
**  2. Attention kernels built on MMA, any case: fmha, flash_fwd, flash_bwd, flash_attn,
**     flashattn, flash:: (not flashinfer's helper kernels, e.g.
**     create_flashinfer_kv_indices_triton).
**  3. A GEMM named with an FP8 or FP4 element type, any case: e4m3, e5m2, e2m1 together
**     with gemm, bmm or mma (Blackwell's bmm_E4m3..., sm100 FP4 GEMMs).
**  4. AMD: a Tensile / hipBLASLt "_MI<m>x<n>x<k>" token with m > 0 (the MFMA
**     instruction: Cijk_..._MT64x16x16_MI16x16x1_...), composable_kernel's xdl, MIOpen's
**     _gtcx, and mfma (any case), wmma.
**  5. Precision bits from the name, any case: tf32 -> TF32; bf16, f16 (fp16), bfloat16,
**     h884, h1688, hmma, and case-sensitive Tensile's _BBS_ / _HHS_ / _BH_ / _HH_ -> HALF; e4m3, e5m2, fp8 -> FP8;
**     e2m1, fp4 -> FP4; imma, i8816, int8 -> INT8. Only for a name TC-1..4 recognise.
**  6. hta_tc_dtype: Half, BFloat16 (c10:: or not, any case) -> HALF; Float8 -> FP8;
**     Float4 -> FP4; "signed char", int8, qint8 -> INT8; anything else 0.
*/
#include <string.h>

#include "core/hta_common.h"
#include "core/tensor_cores.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* 1 when S holds P, ignoring ASCII case. */
static int tcHasNoCase(const char *s, const char *p) {
  size_t n = strlen(p);
  for (; *s; s++)
    if (!sqlite3_strnicmp(s, p, (int)n)) return 1;
  return 0;
}

static int tcAny(const char *s, const char *const *list, size_t n, int nocase) {
  for (size_t i = 0; i < n; i++)
    if (nocase ? tcHasNoCase(s, list[i]) : strstr(s, list[i]) != 0) return 1;
  return 0;
}

/* TC-4: a Tensile "_MI<m>x<n>x<k>" token, m > 0. */
static int tcTensileMi(const char *s) {
  for (const char *p = strstr(s, "_MI"); p; p = strstr(p + 1, "_MI")) {
    const char *q = p + 3;
    int digits[3] = {0, 0, 0}, part = 0, nonzero = 0;
    while (part < 3) {
      while (*q >= '0' && *q <= '9') {
        if (part == 0 && *q != '0') nonzero = 1;
        digits[part]++, q++;
      }
      if (!digits[part]) break;
      if (++part < 3) {
        if (*q != 'x') break;
        q++;
      }
    }
    if (part == 3 && nonzero) return 1;
  }
  return 0;
}

#define TC_N(a) (sizeof(a) / sizeof((a)[0]))

unsigned hta_tc_kernel(const char *s) {
  static const char *const nv[] = {"hmma",
                                   "imma",
                                   "gmma",
                                   "tcgen05",
                                   "nvjet",
                                   "tensorop",
                                   "MmaTensorOp",
                                   "wmma",
                                   "h884",
                                   "s884",
                                   "h1688",
                                   "s1688",
                                   "c1688",
                                   "i8816",
                                   "16816",
                                   "dgrad_1x1_stride_2x2",
                                   "first_layer_wgrad_kernel",
                                   "conv1x1",
                                   "conv2d_c1_k1",
                                   "direct_group"};
  static const char *const attn[] = {"fmha",       "flash_fwd", "flash_bwd",
                                     "flash_attn", "flashattn", "flash::"};
  static const char *const low[] = {"e4m3", "e5m2", "e2m1"};
  static const char *const gemm[] = {"gemm", "bmm", "mma"};
  static const char *const amd[] = {"xdl", "_gtcx"};
  unsigned f = 0;
  if (!s) return 0;
  if (tcAny(s, nv, TC_N(nv), 0) || (strstr(s, "xmma") && !tcHasNoCase(s, "ffma")) || /* TC-1 */
      tcAny(s, attn, TC_N(attn), 1) ||                                               /* TC-2 */
      (tcAny(s, low, TC_N(low), 1) && tcAny(s, gemm, TC_N(gemm), 1)) ||              /* TC-3 */
      tcTensileMi(s) || tcAny(s, amd, TC_N(amd), 0) || tcHasNoCase(s, "mfma"))       /* TC-4 */
    f = HTA_TC_MMA;
  if (!f) return 0;
  static const char *const half[] = {"bf16", "f16",   "bfloat16", "h884", "h1688",
                                     "hmma", "_BBS_", "_HHS_",    "_BH_", "_HH_"};
  static const char *const fp8[] = {"e4m3", "e5m2", "fp8"};
  static const char *const fp4[] = {"e2m1", "fp4"};
  static const char *const i8[] = {"imma", "i8816", "int8"};
  if (tcHasNoCase(s, "tf32")) f |= HTA_TC_TF32; /* TC-5 */
  if (tcAny(s, half, 6, 1) || tcAny(s, half + 6, TC_N(half) - 6, 0)) f |= HTA_TC_HALF;
  if (tcAny(s, fp8, TC_N(fp8), 1)) f |= HTA_TC_FP8;
  if (tcAny(s, fp4, TC_N(fp4), 1)) f |= HTA_TC_FP4;
  if (tcAny(s, i8, TC_N(i8), 1)) f |= HTA_TC_INT8;
  return f;
}

unsigned hta_tc_dtype(const char *d) { /* TC-6 */
  if (!d) return 0;
  if (tcHasNoCase(d, "half") || tcHasNoCase(d, "bfloat16")) return HTA_TC_HALF;
  if (tcHasNoCase(d, "float8")) return HTA_TC_FP8;
  if (tcHasNoCase(d, "float4")) return HTA_TC_FP4;
  if (!strcmp(d, "signed char") || tcHasNoCase(d, "int8")) return HTA_TC_INT8;
  return 0;
}

/*
** op_perf_model_infer.c: the costs of the operators of LLM inference and low-precision
** training (op_perf.c OP-5, OP-16; the names in op_perf_names.c): quantized, FP8 and
** FP4 (MX) GEMMs, grouped GEMMs, mixture-of-experts blocks fused and unfused, and the
** inference attention kernels that serve a whole batch of requests. The formulas are
** AMD TraceLens's (PerfModel, its extensions for MoE, attention and AITER, commit
** 171dd74), read for the facts and written here in integer arithmetic.
**
** Requirements (tests cite them as OI-n; e = element size of a type, op_perf_build.h;
** out = the output's, 2 bytes (BF16) where the operator writes BF16 whatever its inputs):
**  1. GEMMs, FLOPs 2MNK (x B when batched), bytes MK e_x + NK e_w + MN out:
**     a. a8w8 / blockscale (x [M, K], w [N, K]), out 2; block_k, block_n from the scale
**        shapes when given;
**     b. hipblaslt_gemm_fp8 (A at 0, B at 2; transA, transB, transC the concrete inputs
**        5-7: transC swaps A and B and flips both), out 2 when A is 1 byte, else e_A;
**     c. FP4 (hipblaslt_gemm_fp4, the same layout; aiter gemm_a4w4, A and B at 0 and 1,
**        NT): K is twice the packed width; bytes M K/2 e_A + N K/2 e_B + the E8M0 block
**        scales M ceil(K/32) + N ceil(K/32) (their types' sizes, 1 when unknown) + 2MN;
**     d. gemm_afp4wfp4_ (x [M, K/2], w [N, K/2]): MK/2 + NK/2 + 2MN; spec fp4;
**     e. batched_gemm_a16wfp4_ (x [B, M, K], w [B, N, K/2]): B (MK e_x + NK/2 + 2MN), fp4;
**     f. batched_gemm_a8w8 (w [B, N, K]; x [B, M, K], or [M, B, K] when x[0] is not B):
**        B (MK e_x + NK e_w + 2MN), spec from w;
**     g. vllm::gemm_with_dynamic_quant (the first two 2-d shapes: x [M, K], w [N, Kp]):
**        MK e_x + N Kp e_w + MN e_x: the weight as stored (packed FP4 is Kp = K/2
**        bytes a row; TraceLens charges it as N K elements of x's size, 4x the bytes).
**     Quantized INT8 inputs ('signed char') have the spec matrix_int8 (TraceLens's
**     precision map has none for them).
**  2. Grouped GEMM (GroupedGEMM_fwd): x [M, K], w [G, K, N] or [G, N, K] (whichever
**     matches K): FLOPs 2MKN, bytes MK e_x + GKN e_w + MN e_x; variable K in its
**     aggregate form [M, K], [M, N]: one group. The per-group (zipped) form has no row.
**  3. MoE. E_active = E (1 - ((E - topk) / E)^M), the experts M tokens are expected to
**     reach under uniform routing; bytes are rounded to whole bytes. FP4 weights
**     (Float4_e2m1fn_x2) are half a byte an element of the logical shapes; a type of
**     unknown size is 2 bytes for activations, 1 for weights. gated = the up weight has
**     two halves (w1 rows = 2 N).
**     a. fused (aiter fmoe_g1u1, fmoe_fp8_blockscale_g1u1: out [M, K], input, w1
**        [E, N (x2), K], w2 [E, K, N], topk = concrete input 8): FLOPs 2MKN topk (x2 when
**        gated) + 2MKN topk + MK (2 topk - 1); bytes MK e_in + E_active N K e_w (x2 when
**        gated) + E_active N K e_w + MK e_out. INT4 packing: N scales by K / w1[-1].
**     b. up stages (cktile gemm1: x [M, K], w1, out [M, topk, N]; ck_moe_stage1: x,
**        w1, w2 [E, K, N], ..., out [M, topk, N] at 6): FLOPs 2MKN topk (x2 gated);
**        bytes MK e_in + E_active (2 if gated) K N e_w + M N topk e_out.
**     c. down stages (cktile gemm2: x [M, topk, N], w2 [E, K, .]; ck_moe_stage2: x,
**        w1, w2 [E, K, .]): FLOPs 2MNK topk; bytes M N topk e_in + E_active N K e_w +
**        MK e_out.
**     d. SGLang's invoke_fused_moe_kernel (B [E, N, K] at 1, topk_ids [M, topk] at 8):
**        FLOPs 2 (M topk) N K; bytes (M topk) K e_A + E_active N K e_B + (M topk) N e_C.
**  4. Inference attention (InferenceAttention_fwd) over the requests of an engine step:
**     the sums of its detailed annotation (engine_ann.c: c_ for the prefill requests,
**     g_ for the decode ones). FLOPs = H_Q (2 c_sqsk - c_sqsq)(d_qk + d_v) +
**     2 H_Q g_sqsk (d_qk + d_v): each prefill chunk attends to the cached context and,
**     causally, to itself. Bytes: Q, the output and the new K/V at Q's size,
**     (c_sq + g_sq)(H_Q d_qk + H_Q d_v + H_kv d_qk + H_kv d_v) e_q, plus the cached K/V
**     at the cache's size, (c_sk - c_sq + g_sk - g_sq) H_kv (d_qk + d_v) e_kv. Shapes:
**     q (N_Q, H_Q, d_qk) at 0 and the cache's last three dims (N_KV, H_kv, d_v) at 1;
**     fmha_v3_varlen_fwd and mha_batch_prefill read d_v from v (argument 2);
**     paged_attention_ragged q at 2, H_kv and d_v from the caches at 3 and 4; pa_decode_gluon
**     is decode only (c_ sums 0), H_kv = cache[1], its K/V cache type at 2, and a sliding
**     window W (concrete input 19, > 0) caps g_sk and g_sqsk at W g_sq.
**     A call in no step with a detailed annotation, or a step with no query token, has
**     no row.
*/
#include "perf/op_perf_build.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- GEMMs */
/* The precision of a quantized operand: TraceLens's, plus INT8 (OI-1). */
static void setSpecQ(op_cost *c, const char *t) {
  if (t && !strcasecmp(t, "signed char")) snprintf(c->spec, sizeof c->spec, "matrix_int8");
  else setSpec(c, "matrix", t);
}

/* FLOPs of BATCH GEMMs MxNxK; the parameters B, M, N, K, bias false. */
static void gemmParams(build *b, int64_t batch, int64_t M, int64_t N, int64_t K) {
  mctx *m = &b->m;
  op_cost *c = b->c;
  c->m = M, c->n = N, c->k = K, c->batch = batch, c->has_mnk = 1;
  c->flops = (double)mul(m, batch, mul(m, 2, mul(m, M, mul(m, N, K))));
  jInt(&b->j, "B", batch);
  jInt(&b->j, "M", M);
  jInt(&b->j, "N", N);
  jInt(&b->j, "K", K);
  jBool(&b->j, "bias", 0);
}

/* Bytes of a GEMM given as half-byte units (FP4 operands are halves): HALVES / 2,
** rounded up (a packed odd count takes a whole byte). */
static void setHalfBytes(build *b, int64_t halves) {
  b->c->bytes = halves / 2 + (halves % 2), b->c->has_bytes = 1;
}

static void dtypes2(build *b, const char *x, const char *w) {
  const char *t[2] = {x, w};
  setDtypes(b, t, 2);
}

/* OI-1 a, f, g: x [M, K] and w [N, K] (a), batched (f), dynamic quant (g). */
static void gemmQuant(build *b, int kind) {
  mctx *m = &b->m;
  int64_t batch = 1, M, N, K, wbytes;
  shape x = {0, 0}, w = {0, 0};
  if (kind == OPM_DYNQ_GEMM) { /* the first two 2-d shapes */
    int found = 0;
    for (int i = 0; i < count(m, OPA_DIMS) && found < 2; i++) {
      const opa_entry *e = entry(m, OPA_DIMS, i);
      if (!e || e->kind != OPA_INTS || e->n != 2) continue;
      if (found++ == 0) x = dims(m, i);
      else w = dims(m, i);
    }
    if (found < 2) m->ok = 0;
  } else {
    x = dims(m, 0), w = dims(m, 1);
  }
  needTypes(m, 0, 2);
  if (!m->ok) return;
  const char *tx = type(m, 0), *tw = type(m, 1);
  int ex = bpeOf(tx), ew = bpeOf(tw), eo = 2;
  if (kind == OPM_BG_A8W8) {
    if (x.n != 3 || w.n != 3) {
      m->ok = 0;
      return;
    }
    batch = w.v[0], N = w.v[1], K = x.v[2];
    M = x.v[0] == batch ? x.v[1] : x.v[0];
  } else {
    M = at(m, x, 0), K = at(m, x, 1), N = at(m, w, 0);
  }
  if (!m->ok) return;
  gemmParams(b, batch, M, N, K);
  if (kind == OPM_A8W8) { /* block sizes from the scales' shapes, when they are there */
    const opa_entry *xs = entry(m, OPA_DIMS, 2), *ws = entry(m, OPA_DIMS, 3);
    const int64_t *xv = xs && xs->kind == OPA_INTS && xs->n ? m->ar->iv + xs->off : 0;
    const int64_t *wv = ws && ws->kind == OPA_INTS && ws->n ? m->ar->iv + ws->off : 0;
    if (xv && xv[xs->n - 1] > 0) jInt(&b->j, "block_k", (K + xv[xs->n - 1] - 1) / xv[xs->n - 1]);
    if (wv && wv[0] > 0) jInt(&b->j, "block_n", (N + wv[0] - 1) / wv[0]);
  }
  dtypes2(b, tx, tw);
  if (kind == OPM_DYNQ_GEMM) eo = ex, wbytes = mul(m, prod(m, w, 0), ew); /* OI-1 g */
  else wbytes = mul(m, mul(m, N, K), ew);
  setSpecQ(b->c, kind == OPM_BG_A8W8 ? tw : tx);
  if (!ex || !ew || !eo) return;
  int64_t per = add(m, add(m, mul(m, mul(m, M, K), ex), wbytes), mul(m, mul(m, M, N), eo));
  b->c->bytes = mul(m, batch, per), b->c->has_bytes = 1;
}

/* OI-1 b, c: hipBLASLt's FP8 and FP4 layouts and aiter's gemm_a4w4. */
static void gemmLowp(build *b, int kind) {
  mctx *m = &b->m;
  int ia = 0, ib = kind == OPM_A4W4 ? 1 : 2, ta = 0, tb = kind == OPM_A4W4, tc = 0;
  shape A = dims(m, ia), B = dims(m, ib);
  needTypes(m, 0, kind == OPM_A4W4 ? 2 : 3);
  if (!m->ok || A.n < 2 || B.n < 2) {
    m->ok = 0;
    return;
  }
  if (kind != OPM_A4W4) { /* transA, transB, transC: TraceLens's parse_bool ('' is false) */
    const char *f[3] = {str(m, OPA_CONC, 5), str(m, OPA_CONC, 6), str(m, OPA_CONC, 7)};
    int *v[3] = {&ta, &tb, &tc};
    for (int i = 0; i < 3; i++)
      *v[i] = f[i] && f[i][0] && strcasecmp(f[i], "false") && strcmp(f[i], "0");
  }
  if (tc) { /* C^T = B^T A^T */
    shape s = A;
    A = B, B = s;
    int t = ta;
    ta = !tb, tb = !t;
  }
  int64_t M = ta ? A.v[1] : A.v[0], K = ta ? A.v[0] : A.v[1], N = tb ? B.v[0] : B.v[1];
  const char *tA = type(m, ia), *tB = type(m, ib);
  int eA = bpeOf(tA), eB = bpeOf(tB);
  if (kind == OPM_HBL_FP8) {
    gemmParams(b, 1, M, N, K);
    dtypes2(b, tA, tB);
    setSpec(b->c, "matrix", tA);
    if (eA && eB)
      b->c->bytes = add(m, add(m, mul(m, mul(m, M, K), eA), mul(m, mul(m, K, N), eB)),
                        mul(m, mul(m, M, N), eA == 1 ? 2 : eA)),
      b->c->has_bytes = 1;
    return;
  }
  K = mul(m, K, 2); /* packed pairs */
  gemmParams(b, 1, M, N, K);
  dtypes2(b, tA, tB);
  setSpec(b->c, "matrix", tA);
  int isa = kind == OPM_A4W4 ? 2 : 1, isb = 3; /* the scales' types */
  int esa = bpeOf(type(m, isa)), esb = bpeOf(type(m, isb));
  int64_t nblk = (K + 31) / 32;
  if (!eA || !eB) return;
  b->c->bytes = add(
      m, add(m, mul(m, mul(m, M, K / 2), eA), mul(m, mul(m, N, K / 2), eB)),
      add(m, add(m, mul(m, mul(m, M, nblk), esa ? esa : 1), mul(m, mul(m, N, nblk), esb ? esb : 1)),
          mul(m, mul(m, M, N), 2)));
  b->c->has_bytes = 1;
}

/* OI-1 d, e: aiter's MXFP4 GEMMs, FP4 operands at half a byte an element. */
static void gemmFp4(build *b, int kind) {
  mctx *m = &b->m;
  shape x = dims(m, 0), w = dims(m, 1);
  needTypes(m, 0, 2);
  if (!m->ok) return;
  const char *tx = type(m, 0), *tw = type(m, 1);
  int64_t batch = 1, M, N, K, halves;
  if (kind == OPM_AFP4WFP4) {
    M = at(m, x, 0), N = at(m, w, 0), K = mul(m, at(m, x, 1), 2);
  } else {
    if (x.n != 3 || w.n < 2) {
      m->ok = 0;
      return;
    }
    batch = x.v[0], M = x.v[1], K = x.v[2], N = w.v[1];
  }
  if (!m->ok) return;
  gemmParams(b, batch, M, N, K);
  dtypes2(b, tx, tw);
  snprintf(b->c->spec, sizeof b->c->spec, "matrix_fp4");
  int ex = kind == OPM_AFP4WFP4 ? 1 : 2 * bpeOf(tx); /* in halves */
  if (!ex) return;
  halves = add(m, add(m, mul(m, mul(m, M, K), ex), mul(m, N, K)), mul(m, mul(m, M, N), 4));
  setHalfBytes(b, mul(m, batch, halves));
}

/* ---------------------------------------------------------------- grouped GEMM */
/* OI-2 */
static void groupedGemm(build *b, int kind) {
  mctx *m = &b->m;
  shape x = dims(m, 0), w = dims(m, 1);
  needTypes(m, 0, 1);
  if (!m->ok || x.n < 2 || x.v[0] <= 0 || x.v[1] <= 0) {
    m->ok = 0;
    return;
  }
  int64_t M = x.v[0], K = x.v[1], G = 1, N;
  if (kind == OPM_GGEMM) {
    if (w.n != 3) {
      m->ok = 0;
      return;
    }
    G = w.v[0];
    if (w.v[1] == K) N = w.v[2];
    else if (w.v[2] == K) N = w.v[1];
    else {
      m->ok = 0;
      return;
    }
  } else {
    if (x.n != 2 || w.n != 2 || w.v[0] <= 0 || w.v[1] <= 0) {
      m->ok = 0;
      return;
    }
    N = w.v[1];
  }
  const char *tx = type(m, 0), *tw = count(m, OPA_TYPES) > 1 ? type(m, 1) : tx;
  int ex = bpeOf(tx), ew = bpeOf(tw);
  b->c->flops = (double)mul(m, 2, mul(m, M, mul(m, K, N)));
  b->c->m = M, b->c->n = N, b->c->k = K, b->c->batch = 1, b->c->has_mnk = 1;
  jInt(&b->j, "M", M);
  jInt(&b->j, "K", K);
  jInt(&b->j, "N", N);
  jInt(&b->j, "G", G);
  dtypes2(b, tx, tw);
  setSpec(b->c, "matrix", tx);
  if (!ex || !ew) return;
  b->c->bytes = add(m, add(m, mul(m, mul(m, M, K), ex), mul(m, mul(m, G, mul(m, K, N)), ew)),
                    mul(m, mul(m, M, N), ex));
  b->c->has_bytes = 1;
}

/* ---------------------------------------------------------------- MoE */
/* Bytes per element of an MoE operand in half bytes (OI-3): FP4 is one half. */
static int moeHalves(const char *t, int dflt) {
  if (t && !strcasecmp(t, "c10::float4_e2m1fn_x2")) return 1;
  int e = bpeOf(t);
  return 2 * (e ? e : dflt);
}

/* E_active of OI-3. */
static double eActive(int64_t E, int64_t topk, int64_t M) {
  if (E <= 0) return 0;
  return (double)E * (1.0 - pow((double)(E - topk) / (double)E, (double)M));
}

typedef struct moe {
  int64_t M, K, N, E, topk;
  int gated;
  const char *tin, *tw, *tout;
  int hin, hw, hout; /* element sizes in half bytes */
} moe;

static void moeParams(build *b, const moe *z) {
  jInt(&b->j, "num_tokens", z->M);
  jInt(&b->j, "hidden_dim", z->K);
  jInt(&b->j, "inter_dim", z->N);
  jInt(&b->j, "num_experts", z->E);
  jInt(&b->j, "topk", z->topk);
  jBool(&b->j, "gated", z->gated);
  const char *t[3] = {z->tin, z->tw, z->tout};
  setDtypes(b, t, 3);
}

/* Half-byte counts added as a double and rounded to whole bytes (OI-3). */
static void moeBytes(build *b, double halves) {
  if (!(halves >= 0) || halves > 9.0e18) {
    b->m.ok = 0;
    return;
  }
  b->c->bytes = (int64_t)llround(halves / 2.0), b->c->has_bytes = 1;
}

/* OI-3 a: fused */
static void moeFused(build *b) {
  mctx *m = &b->m;
  shape out = dims(m, 0), w1 = dims(m, 2), w2 = dims(m, 3);
  const char *tk = conc(m, 8);
  needTypes(m, 0, 3);
  if (!m->ok || out.n < 1 || w1.n != 3 || w2.n != 3 || !tk[0] || w1.v[2] <= 0) {
    m->ok = 0;
    return;
  }
  moe z;
  int64_t v[1];
  if (parseList(tk, v, 1, 1) != 1) {
    m->ok = 0;
    return;
  }
  z.M = out.v[0], z.K = w2.v[1], z.N = mul(m, w2.v[2], w2.v[1] / w1.v[2]), z.E = w1.v[0];
  z.topk = v[0], z.gated = w1.v[1] == 2 * z.N;
  z.tout = type(m, 0), z.tin = type(m, 1), z.tw = type(m, 2);
  z.hin = moeHalves(z.tin, 1), z.hw = moeHalves(z.tw, 1), z.hout = moeHalves(z.tout, 2);
  int64_t mkn = mul(m, mul(m, 2, z.M), mul(m, z.K, z.N));
  int64_t f = add(m, mul(m, mul(m, mkn, z.topk), z.gated ? 2 : 1), mul(m, mkn, z.topk));
  b->c->flops = (double)add(m, f, mul(m, mul(m, z.M, z.K), sub(m, mul(m, 2, z.topk), 1)));
  moeParams(b, &z);
  setSpec(b->c, "matrix", z.tin);
  if (!m->ok) return;
  double ea = eActive(z.E, z.topk, z.M), nk = (double)z.N * (double)z.K;
  moeBytes(b, (double)z.M * (double)z.K * (z.hin + z.hout) + ea * nk * z.hw * (z.gated ? 3 : 2));
}

/* OI-3 b, c: the two GEMM stages of an unfused MoE. */
static void moeStage(build *b, int kind) {
  mctx *m = &b->m;
  moe z;
  int up = kind == OPM_MOE_UP_TILE || kind == OPM_MOE_CK1;
  memset(&z, 0, sizeof z);
  needTypes(m, 0, kind == OPM_MOE_CK1 ? 2 : 3);
  if (kind == OPM_MOE_UP_TILE) {
    shape x = dims(m, 0), w1 = dims(m, 1), o = dims(m, 2);
    if (!m->ok || x.n != 2 || w1.n != 3 || o.n != 3) goto stage_fail;
    z.M = x.v[0], z.K = x.v[1], z.E = w1.v[0], z.topk = o.v[1], z.N = o.v[2];
    z.gated = w1.v[1] == 2 * z.N;
  } else if (kind == OPM_MOE_DN_TILE) {
    shape x = dims(m, 0), w2 = dims(m, 1);
    if (!m->ok || x.n != 3 || w2.n != 3) goto stage_fail;
    z.M = x.v[0], z.topk = x.v[1], z.N = x.v[2], z.E = w2.v[0], z.K = w2.v[1];
  } else if (kind == OPM_MOE_CK1) {
    shape x = dims(m, 0), w1 = dims(m, 1), w2 = dims(m, 2), o = dims(m, 6);
    if (!m->ok || x.n < 1 || w1.n < 2 || w2.n != 3 || o.n < 2 || w1.v[w1.n - 1] <= 0)
      goto stage_fail;
    z.M = x.v[0], z.E = w2.v[0], z.K = w2.v[1];
    z.N = mul(m, w2.v[2], w2.v[1] / w1.v[w1.n - 1]); /* INT4/FP4 packing */
    z.topk = o.v[1], z.gated = w1.v[1] == 2 * z.N;
  } else {
    shape x = dims(m, 0), w1 = dims(m, 1), w2 = dims(m, 2);
    if (!m->ok || x.n != 3 || w2.n != 3 || (w1.n && w1.v[w1.n - 1] <= 0)) goto stage_fail;
    z.M = x.v[0], z.topk = x.v[1], z.E = w2.v[0], z.K = w2.v[1];
    z.N = mul(m, x.v[2], w1.n ? w2.v[1] / w1.v[w1.n - 1] : 1);
  }
  z.tin = type(m, 0);
  z.tw = type(m, kind == OPM_MOE_CK2 ? 2 : 1);
  z.tout = kind == OPM_MOE_UP_TILE || kind == OPM_MOE_DN_TILE ? type(m, 2) : z.tin;
  z.hin = moeHalves(z.tin, 2), z.hw = moeHalves(z.tw, 1), z.hout = moeHalves(z.tout, 2);
  int64_t f = mul(m, mul(m, mul(m, 2, z.M), mul(m, z.K, z.N)), z.topk);
  b->c->flops = (double)(up && z.gated ? mul(m, f, 2) : f);
  moeParams(b, &z);
  setSpec(b->c, "matrix", z.tin);
  if (!m->ok) return;
  double ea = eActive(z.E, z.topk, z.M), nk = (double)z.N * (double)z.K;
  double mk = (double)z.M * (double)z.K, mnt = (double)z.M * (double)z.N * (double)z.topk;
  if (up) moeBytes(b, mk * z.hin + ea * (z.gated ? 2 : 1) * nk * z.hw + mnt * z.hout);
  else moeBytes(b, mnt * z.hin + ea * nk * z.hw + mk * z.hout);
  return;
stage_fail:
  m->ok = 0;
}

/* OI-3 d */
static void moeTriton(build *b) {
  mctx *m = &b->m;
  shape w = dims(m, 1), ids = dims(m, 8);
  if (!m->ok || w.n != 3 || ids.n != 2) {
    m->ok = 0;
    return;
  }
  moe z;
  z.E = w.v[0], z.N = w.v[1], z.K = w.v[2], z.M = ids.v[0], z.topk = ids.v[1], z.gated = 0;
  z.tin = type(m, 0), z.tw = type(m, 1);
  z.tout = type(m, 3) && type(m, 3)[0] ? type(m, 3) : z.tin;
  z.hin = moeHalves(z.tin, 2), z.hw = moeHalves(z.tw, 1), z.hout = moeHalves(z.tout, 2);
  int64_t work = mul(m, z.M, z.topk);
  b->c->flops = (double)mul(m, mul(m, 2, work), mul(m, z.N, z.K));
  moeParams(b, &z);
  jInt(&b->j, "m_work", work);
  setSpec(b->c, "matrix", z.tw);
  if (!m->ok) return;
  double ea = eActive(z.E, z.topk, z.M);
  moeBytes(b, (double)work * (double)z.K * z.hin + ea * (double)z.N * (double)z.K * z.hw +
                  (double)work * (double)z.N * z.hout);
}

/* ---------------------------------------------------------------- inference attention */
/* OI-4 */
static void inferenceAttention(build *b, int kind, const hta_engine_ann *ann) {
  mctx *m = &b->m;
  int iq = kind == OPM_IATTN_RAGGED ? 2 : 0;
  shape q = dims(m, iq);
  int64_t HKV, dv, NKV;
  const char *tq = type(m, iq), *tkv = 0;
  if (!m->ok || !ann || q.n < 3 || (q.n != 3 && kind != OPM_IATTN_GLUON)) {
    m->ok = 0;
    return;
  }
  hta_engine_ann a = *ann;
  int64_t NQ = q.v[0], HQ = q.v[1], dqk = q.v[2], window = 0;
  if (kind == OPM_IATTN || kind == OPM_IATTN_V) {
    shape k = dims(m, 1);
    if (!m->ok || k.n < 3) goto attn_fail;
    NKV = k.v[k.n - 3], HKV = k.v[k.n - 2], dv = k.v[k.n - 1];
    if (kind == OPM_IATTN_V && present(m, 2)) dv = at(m, dims(m, 2), -1);
    tkv = count(m, OPA_TYPES) > 1 ? type(m, 1) : tq;
  } else if (kind == OPM_IATTN_RAGGED) {
    shape k = dims(m, 3), v = dims(m, 4);
    if (!m->ok || k.n < 2 || v.n < 1) goto attn_fail;
    HKV = k.v[k.n - 2], dv = v.v[v.n - 1], NKV = a.c_sk + a.g_sk;
  } else { /* pa_decode_gluon */
    shape k = dims(m, 2);
    const char *w = str(m, OPA_CONC, 19);
    int64_t wv[1];
    if (!m->ok || k.n < 2) goto attn_fail;
    HKV = k.v[1], dv = dqk;
    a.c_sq = a.c_sk = a.c_sqsq = a.c_sqsk = 0;
    NKV = a.g_sk;
    tkv = count(m, OPA_TYPES) > 2 ? type(m, 2) : tq;
    if (w && parseList(w, wv, 1, 1) == 1 && wv[0] > 0) window = wv[0];
    if (window > 0 && a.g_sq > 0) { /* the window caps what each decode query reads */
      int64_t cap = mul(m, a.g_sq, window);
      if (a.g_sk > cap) a.g_sk = cap;
      if (a.g_sqsk > cap) a.g_sqsk = cap;
    }
  }
  if (a.c_sq == 0 && a.g_sq == 0) goto attn_fail; /* no query token */
  int64_t dsum = add(m, dqk, dv);
  int64_t ctx = mul(m, sub(m, mul(m, 2, a.c_sqsk), a.c_sqsq), mul(m, HQ, dsum));
  int64_t gen = mul(m, mul(m, 2, a.g_sqsk), mul(m, HQ, dsum));
  b->c->flops = (double)add(m, ctx, gen);
  int eq = bpeOf(tq) ? bpeOf(tq) : 2, ekv = tkv && bpeOf(tkv) ? bpeOf(tkv) : eq;
  int64_t per_q = add(m, mul(m, HQ, dsum), mul(m, HKV, dsum));
  int64_t nq = add(m, a.c_sq, a.g_sq),
          ncache = add(m, sub(m, a.c_sk, a.c_sq), sub(m, a.g_sk, a.g_sq));
  b->c->bytes =
      add(m, mul(m, mul(m, nq, per_q), eq), mul(m, mul(m, ncache, mul(m, HKV, dsum)), ekv));
  b->c->has_bytes = 1;
  jAttn(&b->j, 1, NQ, HQ, NKV, HKV, dqk, dv);
  jInt(&b->j, "c_sq", a.c_sq);
  jInt(&b->j, "c_sk", a.c_sk);
  jInt(&b->j, "c_sqsq", a.c_sqsq);
  jInt(&b->j, "c_sqsk", a.c_sqsk);
  jInt(&b->j, "g_sq", a.g_sq);
  jInt(&b->j, "g_sk", a.g_sk);
  jInt(&b->j, "g_sqsq", a.g_sqsq);
  jInt(&b->j, "g_sqsk", a.g_sqsk);
  if (window > 0) jInt(&b->j, "sliding_window", window);
  const char *t[2] = {tq, tkv ? tkv : tq};
  setDtypes(b, t, 2);
  setSpec(b->c, "matrix", tq);
  return;
attn_fail:
  m->ok = 0;
}

/* ---------------------------------------------------------------- entry */
void opm_infer_cost(build *b, int kind, const op_kernels *k, const hta_engine_ann *ann) {
  (void)k;
  switch (kind) {
  case OPM_A8W8:
  case OPM_BG_A8W8:
  case OPM_DYNQ_GEMM: gemmQuant(b, kind); break;
  case OPM_HBL_FP8:
  case OPM_HBL_FP4:
  case OPM_A4W4: gemmLowp(b, kind); break;
  case OPM_AFP4WFP4:
  case OPM_BG_A16WFP4: gemmFp4(b, kind); break;
  case OPM_GGEMM:
  case OPM_GGEMM_VK: groupedGemm(b, kind); break;
  case OPM_MOE_FUSED: moeFused(b); break;
  case OPM_MOE_UP_TILE:
  case OPM_MOE_DN_TILE:
  case OPM_MOE_CK1:
  case OPM_MOE_CK2: moeStage(b, kind); break;
  case OPM_MOE_TRITON: moeTriton(b); break;
  case OPM_IATTN:
  case OPM_IATTN_V:
  case OPM_IATTN_RAGGED:
  case OPM_IATTN_GLUON: inferenceAttention(b, kind, ann); break;
  default: b->m.ok = 0; break;
  }
}

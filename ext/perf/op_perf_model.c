/*
** op_perf_model.c: what one operator call costs: its floating-point operations and
** bytes moved, from its recorded shapes, with the parameters that identify it and
** its compute spec (op_perf.c OP-5, OP-6 state the rules; op_perf.h the interface).
**
** The formulas are TraceLens's performance models (AMD TraceLens, PerfModel), read
** for the facts and written here in exact integer arithmetic; where TraceLens
** divides, so do we, in the same order (its numbers are then bit-identical). Five
** places compute the right thing instead (OP-6, docs/deviations.md):
**  a. a reduction produces the elements its dims leave, not one;
**  b. attention moves its dtype's element size, not 2 bytes;
**  c. a convolution's bias is counted, and its backward computes the gradients
**     output_mask asks for (the bias gradient in bytes);
**  d. normalization flags come from the arguments: a weight and a bias are there
**     when their shapes are, training is the text 'True';
**  e. (in op_perf_tree.c) GPU events are the ones linked by correlation id.
** A call whose shapes a model cannot read (a missing list or position, a malformed
** literal, shapes that do not broadcast...) has no row: SQLITE_DONE. The inference and
** low-precision models (quantized, FP8, FP4 GEMMs, grouped GEMMs, MoE, inference
** attention) are in op_perf_model_infer.c; op_perf_build.h has what both files share.
*/
#include "perf/op_perf_build.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- GEMM */
/* TraceLens's kernel-name parse of a GEMM: 1 with the transposes (-1 unknown) when
** NAME is a ROCm Tensile or an nvjet name, 0 when not, -1 when it fails. */
static int gemmTranspose(const char *name, int *ta, int *tb) {
  size_t n = strlen(name);
  *ta = *tb = -1;
  for (size_t i = 0; i + 14 <= n; i++) { /* C[a-z]{3}_A[a-z]{3}_B[a-z]{3} anywhere */
    const char *p = name + i;
    int ok = p[0] == 'C' && p[4] == '_' && p[5] == 'A' && p[9] == '_' && p[10] == 'B';
    for (int k = 1; ok && k <= 13; k++) {
      if (k == 4 || k == 5 || k == 9 || k == 10) continue;
      ok = p[k] >= 'a' && p[k] <= 'z';
    }
    if (!ok) continue;
    if (strstr(name, "_Ailk_")) *ta = 0;
    else if (strstr(name, "_Alik_")) *ta = 1;
    if (strstr(name, "_Bljk_")) *tb = 0;
    else if (strstr(name, "_Bjlk_")) *tb = 1;
    return 1;
  }
  if (strncmp(name, "nvjet", 5)) return 0;
  const char *last = strrchr(name, '_');
  last = last ? last + 1 : name;
  if (strlen(last) < 2) return -1; /* TraceLens raises: the call has no row */
  *ta = last[0] == 'T';
  *tb = last[1] == 'T';
  return 1;
}

static void gemmCommon(build *b, int64_t batch, int64_t M, int64_t N, int64_t K, int bias) {
  op_cost *c = b->c;
  c->m = M, c->n = N, c->k = K, c->batch = batch, c->has_mnk = 1;
  c->flops = (double)mul(
      &b->m, batch,
      add(&b->m, mul(&b->m, 2, mul(&b->m, M, mul(&b->m, N, K))), bias ? mul(&b->m, M, N) : 0));
}

/* The GEMM bytes: (MK*ba + KN*bb + MN*bo + N*bbias) per batch; unknown when a size is. */
static void gemmBytes(build *b, int64_t batch, int64_t M, int64_t N, int64_t K, int bias, int ba,
                      int bb, int bbias, int bo) {
  mctx *m = &b->m;
  if (!ba || !bb || !bo || !bbias) return;
  int64_t per = add(m, add(m, mul(m, mul(m, M, K), ba), mul(m, mul(m, K, N), bb)),
                    add(m, mul(m, mul(m, M, N), bo), bias ? mul(m, N, bbias) : 0));
  b->c->bytes = mul(m, batch, per);
  b->c->has_bytes = 1;
}

static void gemmTail(build *b, int64_t batch, const op_kernels *k, int batch_first) {
  if (!batch_first) jInt(&b->j, "B", batch);
  for (size_t i = 0; i < k->n; i++) { /* the first GPU event whose name parses */
    int ta, tb, r = gemmTranspose(k->names[i] ? k->names[i] : "", &ta, &tb);
    if (r < 0) b->m.ok = 0;
    if (r == 0) continue;
    if (r > 0) {
      jKey(&b->j, "transpose");
      sqlite3_str_appendf(b->j.s, "[%s,%s]",
                          ta < 0 ? "null"
                          : ta   ? "true"
                                 : "false",
                          tb < 0 ? "null"
                          : tb   ? "true"
                                 : "false");
    }
    break;
  }
}

static void modelGemm(build *b, int kind, const op_kernels *k) {
  mctx *m = &b->m;
  int ia = kind == OPM_ADDMM || kind == OPM_BADDBMM ? 1 : 0; /* index of A */
  shape A = dims(m, ia), B = dims(m, ia + 1);
  int bias = kind == OPM_ADDMM || kind == OPM_BADDBMM;
  int64_t batch = 1, M, N, K;
  if (!m->ok) return;
  if (kind == OPM_BMM || kind == OPM_BADDBMM) {
    if (A.n != 3 || B.n != 3) { /* TraceLens unpacks exactly three */
      m->ok = 0;
      return;
    }
    batch = A.v[0], M = A.v[1], K = A.v[2], N = B.v[2];
  } else if (kind == OPM_AITER_GEMM || kind == OPM_VLLM_GEMM) {
    M = at(m, A, 0), K = at(m, A, 1), N = at(m, B, 0); /* weight N x K */
    const opa_entry *e = entry(m, OPA_DIMS, 2);
    if (e && e->kind != OPA_INTS) m->ok = 0; /* len() of a non-list */
    bias = e && e->n > 0;
  } else {
    M = at(m, A, 0), K = at(m, A, 1), N = at(m, B, 1);
  }
  if (kind == OPM_SCALED_MM) bias = count(m, OPA_DIMS) == 3;
  needTypes(m, ia, 2);
  if (!m->ok) return;
  const char *t[3] = {type(m, ia), type(m, ia + 1), 0};
  int ntypes = 2;
  gemmCommon(b, batch, M, N, K, bias);
  if (kind == OPM_AITER_GEMM) {
    t[2] = t[0], ntypes = 3;
    jInt(&b->j, "B", 1);
  }
  if (kind == OPM_BMM || kind == OPM_BADDBMM) jInt(&b->j, "B", batch);
  jInt(&b->j, "M", M);
  jInt(&b->j, "N", N);
  jInt(&b->j, "K", K);
  jBool(&b->j, "bias", bias);
  if (kind == OPM_VLLM_GEMM) {
    t[2] = count(m, OPA_TYPES) > 2 ? type(m, 2) : "", ntypes = 3;
  } else if (kind != OPM_AITER_GEMM) {
    jStrideOpt(&b->j, m, "stride_A", ia);
    jStrideOpt(&b->j, m, "stride_B", ia + 1);
  }
  setDtypes(b, t, ntypes);
  int ba = bpeOf(t[0]), bb = bpeOf(t[1]);
  if (kind == OPM_SCALED_MM) {
    if (!ba || !bb) { /* TraceLens asserts both sizes are known */
      m->ok = 0;
      return;
    }
    gemmBytes(b, 1, M, N, K, bias, ba, ba, ba, ba == 1 ? 2 : ba == 2 || ba == 4 ? ba : 0);
  } else if (kind == OPM_AITER_GEMM) {
    gemmBytes(b, 1, M, N, K, bias, ba, bb, ba, ba);
  } else if (kind == OPM_VLLM_GEMM) {
    int bo = bias ? bpeOf(t[2]) : bb;
    gemmBytes(b, 1, M, N, K, bias, ba, bb, bo, bo);
  } else {
    gemmBytes(b, batch, M, N, K, bias, ba, ba, ba, ba); /* A's size for all (15.8 (8)) */
  }
  setSpec(b->c, "matrix", t[0]);
  gemmTail(b, batch, k, kind == OPM_BMM || kind == OPM_BADDBMM || kind == OPM_AITER_GEMM);
}

/* ---------------------------------------------------------------- attention */
static void modelSdpa(build *b, int kind, int bwd) {
  mctx *m = &b->m;
  shape q = dims(m, 0), kk = dims(m, 1), v = dims(m, 2);
  /* (B, H, N, d) for the aten kernels; (B, N, H, d) for flash_attn */
  int ih = kind == OPM_FA_FUNC ? 2 : 1, in = kind == OPM_FA_FUNC ? 1 : 2;
  int64_t B = at(m, q, 0), HQ = at(m, q, ih), NQ = at(m, q, in), dqk = at(m, q, 3);
  int64_t Bk = at(m, kk, 0), HK = at(m, kk, ih), NK = at(m, kk, in), dk = at(m, kk, 3);
  int64_t Bv = at(m, v, 0), HV = at(m, v, ih), NV = at(m, v, in), dv = at(m, v, 3);
  if (!m->ok || B != Bk || B != Bv || HK != HV || NK != NV || dqk != dk || (bwd && HK == 0)) {
    m->ok = 0;
    return;
  }
  double dropout;
  int causal;
  if (kind == OPM_FA_FUNC) {
    const char *d = conc(m, 3), *cz = conc(m, 5);
    char *end;
    dropout = strtod(d, &end);
    causal = parseBool(cz);
    if (end == d || *end || causal < 0) m->ok = 0; /* float('') and eval() raise */
  } else {
    int ic = kind == OPM_SDPA_FLASH ? 3 : 5;
    const char *cz = conc(m, ic + 1);
    dropout = optFloat(conc(m, ic));
    causal = *cz && strcmp(cz, "None") && !strcasecmp(cz, "true");
  }
  needTypes(m, 0, 2);
  if (!m->ok) return;
  int64_t HKV = HK, NKV = NK;
  mctx *x = m;
  int64_t f;
  if (!bwd) {
    f = add(x, mul(x, mul(x, B, HQ), mul(x, 2, mul(x, NQ, mul(x, NKV, dqk)))),
            mul(x, mul(x, B, HQ), mul(x, 2, mul(x, NQ, mul(x, dv, NKV)))));
  } else {
    int64_t g = HQ / HKV - 1, s2 = mul(x, 2, mul(x, NQ, NKV));
    f = (kind == OPM_SDPA_EFF ? 0 : mul(x, mul(x, B, HQ), mul(x, s2, dqk))); /* recompute */
    f = add(x, f,
            add(x, mul(x, mul(x, B, HQ), mul(x, s2, dv)), mul(x, mul(x, B, NKV), mul(x, dv, g))));
    f = add(x, f, mul(x, mul(x, B, HQ), mul(x, s2, dv)));
    f = add(x, f, mul(x, mul(x, B, HQ), mul(x, s2, dqk)));
    f = add(x, f,
            add(x, mul(x, mul(x, B, HQ), mul(x, s2, dqk)), mul(x, mul(x, B, NKV), mul(x, dqk, g))));
  }
  if (causal && NQ != NKV) { /* TraceLens raises */
    m->ok = 0;
    return;
  }
  b->c->flops = causal ? (double)f / 2 : (double)f;
  /* OP-6 b: the dtype's element size (TraceLens: 2 bytes whatever the dtype) */
  const char *t[2] = {type(m, 0), type(m, 1)};
  int bpe = bpeOf(t[0]);
  int64_t q_el = mul(x, mul(x, B, NQ), mul(x, HQ, dqk)),
          k_el = mul(x, mul(x, B, NKV), mul(x, HKV, dqk));
  int64_t v_el = mul(x, mul(x, B, NKV), mul(x, HKV, dv)),
          o_el = mul(x, mul(x, B, NQ), mul(x, HQ, dv));
  int64_t el = bwd ? add(x, mul(x, 2, add(x, add(x, q_el, k_el), v_el)), o_el)
                   : add(x, add(x, q_el, k_el), add(x, v_el, o_el));
  if (bpe) b->c->bytes = mul(x, el, bpe), b->c->has_bytes = 1;
  jAttn(&b->j, B, NQ, HQ, NKV, HKV, dqk, dv);
  if (kind == OPM_FA_FUNC) {
    jShape(&b->j, "q_stride", need(m, OPA_STRIDES, 0));
    jShape(&b->j, "k_stride", need(m, OPA_STRIDES, 1));
    jShape(&b->j, "v_stride", need(m, OPA_STRIDES, 2));
  }
  jDouble(&b->j, "dropout", dropout);
  jBool(&b->j, "causal", causal);
  jBool(&b->j, "flash_impl", kind != OPM_SDPA_EFF);
  setDtypes(b, t, 2);
  setSpec(b->c, "matrix", t[0]);
}

/* ---------------------------------------------------------------- convolution */
#define CONV_MAXD 8

/* Concrete Inputs text I as a tuple of ND ints ('' -> DFLT each; one value repeats). */
static void convTuple(mctx *m, int i, int nd, int64_t dflt, int64_t *out, int *nout) {
  const char *s = conc(m, i);
  int n;
  if (!*s) {
    for (n = 0; n < nd; n++) out[n] = dflt;
  } else {
    n = parseList(s, out, CONV_MAXD, 0);
    if (n < 0 || (n == 0 && nd > 0)) m->ok = 0; /* str_to_tuple('[]') fails */
    if (n == 1)
      for (int k = 1; k < nd; k++) out[k] = out[0], n = nd;
  }
  if (n < nd) m->ok = 0; /* indexed per spatial dim */
  *nout = n < 0 ? 0 : n;
}

static void jTuple(jout *j, const char *k, const int64_t *v, int n) {
  shape s = {v, n};
  jShape(j, k, s);
}

static void modelConv(build *b, int bwd_op) {
  mctx *m = &b->m;
  int o = bwd_op ? 1 : 0; /* convolution_backward's grad_output comes first */
  shape x = dims(m, o), w = dims(m, o + 1);
  if (!m->ok) return;
  int nd = x.n - 2, ns, np, ndl, nop;
  int64_t st[CONV_MAXD], pad[CONV_MAXD], dil[CONV_MAXD], op[CONV_MAXD], y[CONV_MAXD + 2];
  if (nd < 1 || nd > 3 || w.n != x.n) { /* conv1d/2d/3d only */
    m->ok = 0;
    return;
  }
  convTuple(m, o + 3, nd, 1, st, &ns);
  convTuple(m, o + 4, nd, 0, pad, &np);
  convTuple(m, o + 5, nd, 1, dil, &ndl);
  int transposed = parseBool(conc(m, o + 6));
  convTuple(m, o + 7, nd, 0, op, &nop);
  int64_t groups;
  if (parseList(conc(m, o + 8), &groups, 1, 1) != 1 || transposed < 0) m->ok = 0;
  needTypes(m, o, 2);
  if (!m->ok) return;
  const char *t[2] = {type(m, o), type(m, o + 1)};
  if ((t[0] == 0) != (t[1] == 0) || (t[0] && strcmp(t[0], t[1]))) { /* mixed precision raises */
    m->ok = 0;
    return;
  }
  /* output shape */
  y[0] = x.v[0];
  y[1] = transposed ? w.v[1] : w.v[0];
  for (int i = 0; i < nd; i++) {
    int64_t xi = x.v[2 + i], ki = w.v[2 + i];
    /* hostile shapes overflow: checked arithmetic fails the model instead */
    int64_t dk = mul(m, dil[i], sub(m, ki, 1));
    if (transposed) {
      y[2 + i] = add(m, add(m, sub(m, mul(m, sub(m, xi, 1), st[i]), mul(m, 2, pad[i])), dk),
                     add(m, op[i], 1));
    } else {
      int64_t num = sub(m, sub(m, add(m, xi, mul(m, 2, pad[i])), dk), 1);
      double v = st[i] ? (double)num / (double)st[i] + 1.0 : 0.0; /* TraceLens: real division */
      if (st[i] == 0 || !(v > -9.2e18 && v < 9.2e18)) m->ok = 0;
      else y[2 + i] = (int64_t)v;
    }
  }
  if (!m->ok) return;
  shape ys = {y, x.n};
  int64_t px = prod(m, x, 0), pw = prod(m, w, 0), py = prod(m, ys, 0), pw1 = prod(m, w, 1);
  int bpe = bpeOf(t[0]);
  int64_t f = 0, el = 0;
  int bias;
  if (!bwd_op) {
    bias = present(m, 2); /* OP-6 c: the bias is counted when given */
    f = mul(m, mul(m, 2, pw1), transposed ? px : py);
    if (bias) f = add(m, f, py);
    el = add(m, add(m, px, pw), add(m, py, bias ? y[1] : 0));
  } else {
    /* OP-6 c: the gradients output_mask asks for; all three when it cannot be read */
    int64_t mask[3] = {1, 1, 0};
    const char *ms = str(m, OPA_CONC, 10);
    if (!ms || parseList(ms, mask, 3, 0) != 3) mask[0] = mask[1] = 1, mask[2] = 0;
    bias = (int)mask[2];
    int64_t in_g = mul(m, mul(m, 2, pw1), transposed ? px : py);
    int64_t w_g = transposed ? mul(m, mul(m, 2, mul(m, x.v[0], prod(m, x, 2))), pw)
                             : mul(m, mul(m, 2, mul(m, y[0], prod(m, ys, 2))), pw);
    if (mask[0]) f = add(m, f, in_g), el = add(m, el, add(m, py, add(m, pw, px)));
    if (mask[1]) f = add(m, f, w_g), el = add(m, el, add(m, py, add(m, px, pw)));
    if (mask[2]) f = add(m, f, py), el = add(m, el, add(m, py, y[1]));
  }
  if (!m->ok) return;
  b->c->flops = (double)f;
  if (bpe) b->c->bytes = mul(m, el, bpe), b->c->has_bytes = 1;
  char nm[8];
  snprintf(nm, sizeof nm, "conv%dd", nd);
  jKey(&b->j, "convNd");
  jText(b->j.s, nm);
  jShape(&b->j, "input_shape", x);
  jShape(&b->j, "filter_shape", w);
  jStrideOpt(&b->j, m, "input_stride", o);
  jStrideOpt(&b->j, m, "weight_stride", o + 1);
  jBool(&b->j, "bias", bias);
  jTuple(&b->j, "stride", st, ns);
  jTuple(&b->j, "padding", pad, np);
  jTuple(&b->j, "dilation", dil, ndl);
  jBool(&b->j, "transposed_conv", transposed);
  jTuple(&b->j, "output_padding", op, nop);
  jInt(&b->j, "groups", groups);
  setDtypes(b, t, 2);
  setSpec(b->c, "matrix", t[0]);
}

/* ---------------------------------------------------------------- elementwise */
static void elemBytes(build *b, int64_t n_in, int b_in, int64_t n_out, int b_out) {
  if (!b_in || !b_out) return;
  b->c->bytes = add(&b->m, mul(&b->m, n_in, b_in), mul(&b->m, n_out, b_out));
  b->c->has_bytes = 1;
}

static void modelUnary(build *b, int kind, const char *opname) {
  mctx *m = &b->m;
  const char *t[2];
  shape in = dims(m, 0);
  shape si = need(m, OPA_STRIDES, kind == OPM_SILU_MUL ? 1 : 0);
  if (!m->ok) return;
  if (kind == OPM_UNARY) {
    int has_out = present(m, 1);
    int64_t n = prod(m, in, 0);
    t[0] = type(m, 0), t[1] = has_out ? type(m, 1) : 0;
    if (count(m, OPA_TYPES) < (has_out ? 2 : 1)) m->ok = 0;
    b->c->flops = (double)n;
    elemBytes(b, n, bpeOf(t[0]), n, has_out ? bpeOf(t[1]) : bpeOf(t[0]));
    jShape(&b->j, "op_shape", in);
    jShape(&b->j, "stride_input", si);
    if (has_out) jShape(&b->j, "stride_output", need(m, OPA_STRIDES, 1));
    else jNull(&b->j, "stride_output");
  } else if (kind == OPM_SILU_MUL) { /* silu_and_mul(out, input): 5 FLOPs per output */
    int64_t n = prod(m, in, 0);
    needTypes(m, 0, 2);
    t[0] = type(m, 1), t[1] = type(m, 0);
    shape so = need(m, OPA_STRIDES, 0);
    b->c->flops = (double)mul(m, 5, n);
    elemBytes(b, mul(m, 2, n), bpeOf(t[0]), n, bpeOf(t[1]));
    jShape(&b->j, "op_shape", in);
    jShape(&b->j, "stride_input", si);
    jShape(&b->j, "stride_output", so);
  } else { /* upsample / replication pad: the output shape from Concrete Inputs[1] */
    int64_t out[CONV_MAXD + 2], pv[2 * CONV_MAXD];
    int nout = in.n, npad = 0;
    needTypes(m, 0, 1);
    t[0] = t[1] = type(m, 0);
    if (in.n > CONV_MAXD + 2) m->ok = 0;
    if (!m->ok) return;
    memcpy(out, in.v, (size_t)in.n * sizeof *out);
    if (kind == OPM_UPSAMPLE) {
      int64_t sp[CONV_MAXD];
      int k = parseList(conc(m, 1), sp, CONV_MAXD, 0); /* '' (scale factors) fails */
      if (k < 0 || in.n < 2) m->ok = 0;
      else {
        nout = 2 + k;
        for (int i = 0; i < k; i++) out[2 + i] = sp[i];
      }
    } else {
      npad = parseList(conc(m, 1), pv, 2 * CONV_MAXD, 0);
      if (npad < 0) m->ok = 0;
      for (int i = 0; m->ok && i < npad / 2; i++) {
        int d = in.n - 1 - i;
        if (d < 0) m->ok = 0;
        else out[d] = add(m, out[d], add(m, pv[2 * i], pv[2 * i + 1]));
      }
    }
    if (!m->ok) return;
    shape os = {out, nout};
    int64_t n_in = prod(m, in, 0), n_out = prod(m, os, 0);
    b->c->flops = (double)n_out;
    elemBytes(b, n_in, bpeOf(t[0]), n_out, bpeOf(t[0]));
    jShape(&b->j, "input_shape", in);
    jShape(&b->j, "output_shape", os);
    if (kind == OPM_REPPAD) {
      shape ps = {pv, npad};
      jShape(&b->j, "padding", ps);
    }
    jShape(&b->j, "op_shape", os);
    jShape(&b->j, "stride_input", si);
    jNull(&b->j, "stride_output");
  }
  (void)opname;
  setDtypes(b, t, 2);
  setSpec(b->c, "vector", t[0]);
}

static void modelBinary(build *b) {
  mctx *m = &b->m;
  shape s1 = dims(m, 0), s2 = dims(m, 1);
  shape st1 = need(m, OPA_STRIDES, 0), st2 = need(m, OPA_STRIDES, 1);
  int has_out = present(m, 2);
  needTypes(m, 0, has_out ? 3 : 2);
  if (!m->ok) return;
  const char *t[3] = {type(m, 0), type(m, 1), has_out ? type(m, 2) : 0};
  /* the broadcast of s1 and s2, right-aligned */
  int nd = s1.n > s2.n ? s1.n : s2.n;
  int64_t nout = 1;
  for (int i = 0; i < nd; i++) {
    int64_t d1 = i < nd - s1.n ? 1 : s1.v[i - (nd - s1.n)];
    int64_t d2 = i < nd - s2.n ? 1 : s2.v[i - (nd - s2.n)];
    if (d1 != d2 && d1 != 1 && d2 != 1) {
      m->ok = 0;
      return;
    }
    nout = mul(m, nout, d1 > d2 ? d1 : d2);
  }
  int b1 = bpeOf(t[0]), b2 = bpeOf(t[1]), bo;
  if (has_out) bo = bpeOf(t[2]);
  else if (b1 && b2) bo = s1.n && s2.n ? (b1 > b2 ? b1 : b2) : b1; /* a scalar keeps s1's */
  else bo = 0;
  b->c->flops = (double)nout;
  if (b1 && b2 && bo) {
    b->c->bytes =
        add(m, add(m, mul(m, prod(m, s1, 0), b1), mul(m, prod(m, s2, 0), b2)), mul(m, nout, bo));
    b->c->has_bytes = 1;
  }
  jShape(&b->j, "shape_in1", s1);
  jShape(&b->j, "shape_in2", s2);
  jShape(&b->j, "stride_input1", st1);
  jShape(&b->j, "stride_input2", st2);
  if (has_out) jShape(&b->j, "stride_output", need(m, OPA_STRIDES, 2));
  else jNull(&b->j, "stride_output");
  setDtypes(b, t, 3);
  setSpec(b->c, "vector", t[0]);
}

/* ---------------------------------------------------------------- normalization */
typedef struct norm {
  int64_t n, C;
  int affine, has_bias, training;
  int64_t mask0; /* backward: output_mask[0] */
  int bpe;
} norm;

/* The parameters every norm model writes. */
static void normParams(build *b, shape x, shape sx, const char *t, const norm *z, int with_mask,
                       const int64_t *mask, int nmask) {
  const char *tt[2] = {t, 0};
  jShape(&b->j, "op_shape", x);
  jShape(&b->j, "stride_input", sx);
  jNull(&b->j, "stride_output");
  jInt(&b->j, "num_channels", z->C);
  jBool(&b->j, "has_bias", z->has_bias);
  jBool(&b->j, "is_affine", z->affine);
  jBool(&b->j, "is_training", z->training);
  if (with_mask) {
    jKey(&b->j, "output_mask");
    sqlite3_str_appendchar(b->j.s, 1, '[');
    for (int i = 0; i < nmask; i++)
      sqlite3_str_appendf(b->j.s, "%s%s", i ? "," : "", mask[i] ? "true" : "false");
    sqlite3_str_appendchar(b->j.s, 1, ']');
  }
  setDtypes(b, tt, 2);
  setSpec(b->c, "vector", t);
}

/* TraceLens's forward norm: FLOPs 6C + 2n (+3n training); bytes 2n + k*C elements. */
static void normFwd(build *b, const norm *z) {
  mctx *m = &b->m;
  int64_t f = add(m, mul(m, 6, z->C), mul(m, 2, z->n));
  if (z->training) f = add(m, f, mul(m, 3, z->n));
  int k = 2 + (z->affine ? 1 : 0) + (z->affine && z->has_bias ? 1 : 0) + (z->training ? 2 : 0);
  b->c->flops = (double)f;
  if (z->bpe) {
    b->c->bytes = add(m, mul(m, mul(m, 2, z->n), z->bpe), mul(m, mul(m, k, z->C), z->bpe));
    b->c->has_bytes = 1;
  }
}

/* TraceLens's backward norm, in its order of float operations. */
static void normBwd(build *b, const norm *z) {
  mctx *m = &b->m;
  if (z->C == 0) {
    m->ok = 0;
    return;
  }
  double e = (double)z->n / (double)z->C;
  double fpc = z->training ? 0.0 : 3.0;
  fpc += 4 * e;
  if (z->mask0) {
    if (z->training) fpc += 5 * e;
  } else {
    fpc += 2 * e;
  }
  b->c->flops = (double)z->C * fpc;
  if (!z->bpe) return;
  int64_t bb =
      add(m, mul(m, z->n, z->bpe), mul(m, mul(m, z->n, z->bpe), z->mask0 && z->training ? 2 : 1));
  if (z->training) bb = add(m, bb, mul(m, z->C, z->bpe));
  if (z->affine) {
    bb = add(m, bb, mul(m, z->C, z->bpe));
    if (z->training) bb = add(m, bb, mul(m, mul(m, z->C, z->bpe), z->has_bias ? 2 : 1));
  }
  b->c->bytes = bb;
  b->c->has_bytes = 1;
}

/* RMSNorm: (n/C)(2C + 2) + n (x2 with a weight) FLOPs; 2n (+C) elements. EXTRA_ADD:
** a fused residual add (n more FLOPs, 4n + C elements). */
static void normRms(build *b, const norm *z, int extra_add) {
  mctx *m = &b->m;
  if (z->C == 0) {
    m->ok = 0;
    return;
  }
  double f = (double)z->n / (double)z->C * (double)(2 * z->C + 2);
  f += (double)mul(m, z->n, z->affine ? 2 : 1);
  b->c->flops = extra_add ? (double)z->n + f : f;
  if (!z->bpe) return;
  if (extra_add) b->c->bytes = mul(m, add(m, mul(m, 4, z->n), z->C), z->bpe);
  else b->c->bytes = add(m, mul(m, mul(m, 2, z->n), z->bpe), z->affine ? mul(m, z->C, z->bpe) : 0);
  b->c->has_bytes = 1;
}

/* prod of the Python literal list in Concrete Inputs I (a normalized shape). */
static int64_t litProd(mctx *m, int i) {
  int64_t v[CONV_MAXD];
  int n = parseList(conc(m, i), v, CONV_MAXD, 0);
  int64_t p = 1;
  if (n < 0) m->ok = 0;
  for (int k = 0; k < n; k++) p = mul(m, p, v[k]);
  return p;
}

static void modelNorm(build *b, int kind) {
  mctx *m = &b->m;
  norm z;
  memset(&z, 0, sizeof z);
  int ix =
      kind == OPM_BN_BWD || kind == OPM_LN_BWD || kind == OPM_AITER_RMSOUT || kind == OPM_RMS_ADD;
  shape x = dims(m, ix), sx = need(m, OPA_STRIDES, ix);
  needTypes(m, ix, 1);
  if (!m->ok) return;
  const char *t = type(m, ix);
  int64_t mask[3] = {1, 1, 1};
  int nmask = 0, with_mask = 0;
  z.n = prod(m, x, 0);
  z.bpe = bpeOf(t);
  switch (kind) {
  case OPM_BN: /* OP-6 d: (input, weight, bias, running_mean, running_var, training, ...) */
  case OPM_IN:
    z.C = at(m, x, 1);
    z.affine = present(m, 1);
    z.has_bias = present(m, 2);
    z.training = !strcmp(conc(m, 5), "True");
    normFwd(b, &z);
    break;
  case OPM_LN:
    z.C = litProd(m, 1);
    z.affine = present(m, 2);
    z.has_bias = present(m, 3);
    z.training = 1;
    normFwd(b, &z);
    break;
  case OPM_GN:
  case OPM_GN_NATIVE:
    z.C = at(m, x, 1); /* the groups play no part (TraceLens) */
    z.affine = present(m, kind == OPM_GN ? 2 : 1);
    z.has_bias = present(m, kind == OPM_GN ? 3 : 2);
    z.training = 1;
    normFwd(b, &z);
    break;
  case OPM_BN_BWD: /* (grad_out, input, weight, ..., train, eps, output_mask) */
  case OPM_BN_BWD_LIB: {
    z.C = at(m, x, 1);
    z.affine = present(m, 2);
    z.has_bias = 1;
    if (kind == OPM_BN_BWD_LIB) {
      z.training = 0; /* by TraceLens's assertion */
      z.mask0 = 1;
      nmask = 1;
    } else {
      z.training = !strcmp(conc(m, 7), "True");
      const char *ms = str(m, OPA_CONC, 9);
      nmask = ms ? parseList(ms, mask, 3, 0) : -1;
      if (nmask < 1) mask[0] = 1, nmask = 1;
      z.mask0 = mask[0];
    }
    with_mask = 1;
    normBwd(b, &z);
    break;
  }
  case OPM_LN_BWD: { /* (grad_out, input, normalized_shape, mean, rstd, weight, bias, mask) */
    z.C = litProd(m, 2);
    nmask = parseList(conc(m, 7), mask, 3, 0);
    if (nmask < 3) m->ok = 0;
    z.affine = (int)mask[1];
    z.has_bias = (int)mask[2];
    z.training = 1;
    z.mask0 = mask[0];
    with_mask = 1;
    normBwd(b, &z);
    break;
  }
  case OPM_RMS:
    z.C = litProd(m, 1);
    z.affine = present(m, 2);
    normRms(b, &z, 0);
    break;
  case OPM_AITER_RMS: /* the weight's length is C: argument 1, 2 or 4 by the layout */
  case OPM_AITER_RMSOUT:
  case OPM_RMS_ADD:
    z.C = at(m, dims(m, kind == OPM_AITER_RMS ? 1 : kind == OPM_AITER_RMSOUT ? 2 : 4), 0);
    z.affine = 1;
    normRms(b, &z, kind == OPM_RMS_ADD);
    break;
  }
  if (!m->ok) return;
  normParams(b, x, sx, t, &z, with_mask, mask, nmask);
}

/* ---------------------------------------------------------------- reductions */
/* Position of the dims argument of a reduction by its overload (OP-6 a); -1 when
** the call reduces every element. */
static int reduceDimArg(mctx *m, const char *name) {
  const char *t1 = type(m, 1), *t2 = type(m, 2);
  if (strstr(name, "norm")) /* norm(self, p, dim, keepdim), linalg_norm(self, ord, dim, ...) */
    return t2 && !strcmp(t2, "ScalarList") ? 2 : -1;
  if (!strcmp(name, "aten::max") || !strcmp(name, "aten::min")) /* max.dim(self, dim, keepdim) */
    return count(m, OPA_DIMS) == 3 && t1 && !strcmp(t1, "Scalar") ? 1 : -1;
  return t1 && !strcmp(t1, "ScalarList") ? 1 : -1; /* sum.dim_IntList(self, dim, ...) ... */
}

static void modelReduce(build *b, const char *name, int bwd) {
  mctx *m = &b->m;
  const opa_entry *e0 = entry(m, OPA_DIMS, 0);
  const char *t[2] = {0, 0};
  int64_t n_in = 0, n_out = 0;
  int with_type = 0;
  (void)bwd; /* the backward formulas are the forward ones (TraceLens) */
  if (e0 && e0->kind != OPA_INTS) m->ok = 0;
  if (!m->ok) return;
  if (e0) { /* no Input Dims: 0 elements and no types, as TraceLens */
    shape x = dims(m, 0);
    n_in = prod(m, x, 0);
    t[0] = count(m, OPA_TYPES) > 0 ? type(m, 0) : 0;
    if (strstr(name, "cumsum") || strstr(name, "cumprod")) {
      n_out = n_in;
    } else { /* OP-6 a: the elements the reduced dims leave */
      int arg = reduceDimArg(m, name);
      int64_t d[CONV_MAXD];
      const char *ds = arg < 0 ? 0 : str(m, OPA_CONC, arg); /* none: every element */
      int nd = ds ? parseList(ds, d, CONV_MAXD, 1) : -1;
      n_out = 1;
      if (nd > 0) {
        unsigned char keep[64];
        if (x.n > 64) m->ok = 0;
        memset(keep, 1, sizeof keep);
        for (int i = 0; i < nd; i++) {
          int64_t k = d[i] < 0 ? d[i] + x.n : d[i];
          if (k >= 0 && k < x.n && k < 64) keep[k] = 0;
        }
        for (int i = 0; i < x.n && m->ok; i++)
          if (keep[i]) n_out = mul(m, n_out, x.v[i]);
      }
    }
    with_type = 1;
  }
  int bpe = t[0] && *t[0] ? bpeOf(t[0]) : 0;
  b->c->flops = (double)n_in;
  if (bpe) b->c->bytes = mul(m, add(m, n_in, n_out), bpe), b->c->has_bytes = 1;
  jInt(&b->j, "num_input_elems", n_in);
  jInt(&b->j, "num_output_elems", n_out);
  if (with_type) {
    const char *rt = strstr(name, "mean")   ? "mean"
                     : strstr(name, "max")  ? "max"
                     : strstr(name, "min")  ? "min"
                     : strstr(name, "norm") ? "norm"
                                            : "sum";
    jKey(&b->j, "reduce_type");
    jText(b->j.s, rt);
  }
  setDtypes(b, t, 2);
  if (t[0]) setSpec(b->c, "vector", t[0]);
}

/* ---------------------------------------------------------------- inference extensions */
static void modelRope(build *b) {
  mctx *m = &b->m;
  shape q = dims(m, 1), k = dims(m, 2);
  if (!m->ok) return;
  int64_t hs = at(m, q, -1), rot;
  const char *c3 = str(m, OPA_CONC, 3);
  if (c3) {
    while (*c3 == ' ') c3++;
    if (*c3 && parseList(c3, &hs, 1, 1) != 1) m->ok = 0;
  }
  rot = hs;
  const opa_entry *e4 = entry(m, OPA_DIMS, 4);
  if (e4 && e4->kind == OPA_INTS && e4->n > 1) rot = m->ar->iv[e4->off + 1];
  if (hs == 0) m->ok = 0;
  needTypes(m, 1, 1);
  if (!m->ok) return;
  /* Python's floor division */
  int64_t qh = at(m, q, 1), kh = at(m, k, 1);
  int64_t nq = qh / hs - ((qh % hs != 0) && ((qh < 0) != (hs < 0)));
  int64_t nk = kh / hs - ((kh % hs != 0) && ((kh < 0) != (hs < 0)));
  int64_t ne = mul(m, mul(m, at(m, q, 0), add(m, nq, nk)), rot);
  const char *t = type(m, 1);
  int bpe = bpeOf(t) ? bpeOf(t) : 2;
  b->c->flops = (double)mul(m, 3, ne);
  b->c->bytes = mul(m, mul(m, 2, ne), bpe), b->c->has_bytes = 1;
  jInt(&b->j, "num_elements", ne);
  setSpec(b->c, "vector", t);
}

static void modelStoreCache(build *b) {
  mctx *m = &b->m;
  shape k = dims(m, 0);
  needTypes(m, 0, 1);
  if (!m->ok) return;
  const char *t = type(m, 0);
  int64_t n = prod(m, k, 0);
  int bpe = bpeOf(t) ? bpeOf(t) : 2;
  b->c->flops = 0;
  b->c->bytes = mul(m, mul(m, 4, n), bpe), b->c->has_bytes = 1;
  jShape(&b->j, "op_shape", k);
  jInt(&b->j, "nelems", n);
  b->dt = sqlite3_str_new(0);
  jText(b->dt, t);
  setSpec(b->c, "vector", t);
}

/* ---------------------------------------------------------------- entry */
int opm_cost(const opm_def *def, const opa_arena *arena, const op_args *a, const op_kernels *k,
             int bwd, const hta_engine_ann *ann, op_cost *c) {
  build b;
  memset(c, 0, sizeof *c);
  memset(&b, 0, sizeof b);
  b.m.ar = arena;
  b.m.a = a;
  b.m.ok = 1;
  b.c = c;
  b.j.s = sqlite3_str_new(0);
  sqlite3_str_appendchar(b.j.s, 1, '{');
  switch (def->kind) {
  case OPM_MM:
  case OPM_ADDMM:
  case OPM_BMM:
  case OPM_BADDBMM:
  case OPM_SCALED_MM:
  case OPM_AITER_GEMM:
  case OPM_VLLM_GEMM: modelGemm(&b, def->kind, k); break;
  case OPM_SDPA_FLASH:
  case OPM_SDPA_EFF:
  case OPM_FA_FUNC: modelSdpa(&b, def->kind, bwd); break;
  case OPM_CONV: modelConv(&b, 0); break;
  case OPM_CONV_BWD: modelConv(&b, 1); break;
  case OPM_UNARY:
  case OPM_UPSAMPLE:
  case OPM_REPPAD:
  case OPM_SILU_MUL: modelUnary(&b, def->kind, def->name); break;
  case OPM_BINARY: modelBinary(&b); break;
  case OPM_REDUCE: modelReduce(&b, def->name, bwd); break;
  case OPM_SGL_ROPE: modelRope(&b); break;
  case OPM_STORE_CACHE: modelStoreCache(&b); break;
  default:
    if (def->kind >= OPM_A8W8) opm_infer_cost(&b, def->kind, k, ann);
    else modelNorm(&b, def->kind);
    break;
  }
  sqlite3_str_appendchar(b.j.s, 1, '}');
  int rc = sqlite3_str_errcode(b.j.s);
  c->shapes = sqlite3_str_finish(b.j.s);
  if (b.dt) {
    if (rc == SQLITE_OK) rc = sqlite3_str_errcode(b.dt);
    c->dtypes = sqlite3_str_finish(b.dt);
  }
  if (rc == SQLITE_OK && (!c->shapes || (b.dt && !c->dtypes))) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK && !b.m.ok) rc = SQLITE_DONE;
  if (rc != SQLITE_OK) opm_cost_free(c);
  return rc;
}

void opm_cost_free(op_cost *c) {
  sqlite3_free(c->shapes);
  sqlite3_free(c->dtypes);
  c->shapes = c->dtypes = 0;
}

/*
** findings_perf.c: low_efficiency (DESIGN 11), kind 'busy': operators whose GPU time is
** far above what their shapes need on this device, from the operator performance model
** (hta_op_perf, through fd_perf.c).
**
** Requirements (tests cite them as FP-n):
**  1. Calls: fd_perf_ops' calls of the trace with a roofline (roofline_us not NaN), in
**     the typical steps (fd_in_steps), that copy nothing between host and device (the
**     link bounds those: blocking_copy is their finding), and that tensor_cores_unused
**     does not claim (float32 matrix work on no tensor core of a device that has them:
**     findings_tc.c FTC-1), so no kernel time counts in two busy findings.
**  2. Signature = (name, category, shapes, dtypes, is_backward). Per signature: calls,
**     kernel time K and roofline time R (sums). A signature is far from its roofline
**     when R < 0.5 * K.
**  3. One finding per trace with such signatures: time_us = sum of (K - R) over them per
**     typical step (the time above the roofline: an estimate of what a kernel at the
**     device's limit would save; evidence.estimate true); evidence.operators = the 5
**     with the most K - R: name, category, calls, kernel_us, roofline_us, pct_of_peak
**     (100 R / K), bound, shapes, dtypes, seq (of the first call).
**  4. The advice names the pattern of the costliest signature: a batched matrix
**     product (aten::bmm, baddbmm, matmul) shaped like attention (one of its inner
**     dimensions at most 256 and another at least 4 times that) in a trace that runs a
**     softmax: scaled_dot_product_attention; else by its bound (compute: lower
**     precision, sizes, the kernel chosen; memory: fuse with torch.compile).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fd_perf.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FP_FAR 0.5 /* FP-2 */
#define FP_TOP 5   /* FP-3 */

typedef struct fp_sig {
  const fd_op *first;
  int64_t calls;
  double kernel_us, roofline_us;
} fp_sig;

static int fpExcessCmp(const void *a, const void *b) {
  const fp_sig *x = a, *y = b;
  double ex = x->kernel_us - x->roofline_us, ey = y->kernel_us - y->roofline_us;
  if (ex != ey) return ex > ey ? -1 : 1;
  return x->first->seq < y->first->seq ? -1 : x->first->seq > y->first->seq;
}

static int fpStrEq(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static int fpSame(const fd_op *a, const fd_op *b) {
  return a->is_backward == b->is_backward && fpStrEq(a->name, b->name) &&
         fpStrEq(a->category, b->category) && fpStrEq(a->shapes, b->shapes) &&
         fpStrEq(a->dtypes, b->dtypes);
}

/* FP-4: an attention-shaped batched matrix product. */
static int fpAttention(const fd_op *op) {
  if (!op->name || (strcmp(op->name, "aten::bmm") && strcmp(op->name, "aten::baddbmm") &&
                    strcmp(op->name, "aten::matmul")))
    return 0;
  int64_t d[3] = {op->m, op->n, op->k}, lo = -1, hi = -1;
  for (int i = 0; i < 3; i++) {
    if (d[i] <= 0) continue;
    if (lo < 0 || d[i] < lo) lo = d[i];
    if (d[i] > hi) hi = d[i];
  }
  return lo > 0 && lo <= 256 && hi >= 4 * lo;
}

int fd_low_efficiency(fd_ctx *x, const fd_rule *r) {
  const fd_ops *ops;
  int64_t soft = 0;
  int isnull;
  int rc = fd_perf_ops(x, &ops);
  if (rc == SQLITE_OK && ops->n)
    rc = hta_query_int64(x->db, x->schema,
                         "SELECT 1 FROM $S.string WHERE value IN ('aten::softmax',"
                         " 'aten::_softmax', 'aten::_safe_softmax') LIMIT 1",
                         0, 0, &soft, &isnull);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    fp_sig *s = 0;
    size_t n = 0, cap = 0, far = 0;
    double excess = 0;
    int64_t calls = 0;
    if (!fd_unit_wanted(x, u) || !u->ntypical) continue;
    for (size_t k = 0; k < ops->n; k++) { /* FP-1, FP-2 */
      const fd_op *op = &ops->a[k];
      if (op->trace_id != u->trace_id || isnan(op->roofline_us) || op->copy ||
          fd_tc_claims(u, op) || !fd_in_steps(u, op->has_it, op->it))
        continue;
      size_t j = 0;
      while (j < n && !fpSame(s[j].first, op)) j++;
      if (j == n) {
        fp_sig v = {op, 0, 0, 0};
        HTA_PUSH(s, n, cap, 16, v, fp_oom);
      }
      s[j].calls++;
      s[j].kernel_us += op->kernel_us;
      s[j].roofline_us += op->roofline_us;
      continue;
    fp_oom:
      rc = SQLITE_NOMEM;
      break;
    }
    for (size_t j = 0; rc == SQLITE_OK && j < n; j++) { /* FP-2: the far ones first */
      if (!(s[j].roofline_us < FP_FAR * s[j].kernel_us)) continue;
      fp_sig t = s[far];
      s[far++] = s[j];
      s[j] = t;
    }
    if (rc == SQLITE_OK && far) {
      qsort(s, far, sizeof *s, fpExcessCmp);
      for (size_t j = 0; j < far; j++) {
        excess += s[j].kernel_us - s[j].roofline_us;
        calls += s[j].calls;
      }
      const fd_op *top = s[0].first;
      fd_row row = fd_row_init(u);
      sqlite3_str *e = row.evidence;
      char b[32];
      row.time_us = excess / (double)u->ntypical; /* FP-3 */
      sqlite3_str_appendf(e,
                          "{\"estimate\":true,\"steps\":%lld,\"calls\":%lld,\"signatures\":%lld,"
                          "\"excess_us\":",
                          (long long)u->ntypical, (long long)calls, (long long)far);
      fd_json_num(e, excess);
      sqlite3_str_appendall(e, ",\"operators\":[");
      for (size_t j = 0; j < far && j < FP_TOP; j++) {
        const fd_op *o = s[j].first;
        sqlite3_str_appendall(e, j ? ",{\"name\":" : "{\"name\":");
        fd_json_str(e, o->name);
        sqlite3_str_appendall(e, ",\"category\":");
        fd_json_str(e, o->category);
        sqlite3_str_appendf(e, ",\"calls\":%lld,\"kernel_us\":", (long long)s[j].calls);
        fd_json_num(e, s[j].kernel_us);
        sqlite3_str_appendall(e, ",\"roofline_us\":");
        fd_json_num(e, s[j].roofline_us);
        sqlite3_str_appendall(e, ",\"pct_of_peak\":");
        fd_json_num(e, 100.0 * s[j].roofline_us / s[j].kernel_us);
        sqlite3_str_appendall(e, ",\"bound\":");
        fd_json_str(e, o->bound);
        /* shapes and dtypes are JSON already */
        sqlite3_str_appendf(e, ",\"shapes\":%s,\"dtypes\":%s,\"seq\":%lld}",
                            o->shapes ? o->shapes : "null", o->dtypes ? o->dtypes : "null",
                            (long long)o->seq);
      }
      sqlite3_str_appendall(e, "]}");
      int attention = soft && fpAttention(top); /* FP-4 */
      row.title = sqlite3_mprintf(
          "Operators far from the device's limit: %s per step above their roofline, most in "
          "%s (%.0f%% of peak, %s bound)%s",
          hta_fmt_us(row.time_us, b), top->name, 100.0 * s[0].roofline_us / s[0].kernel_us,
          top->bound ? top->bound : "?", attention ? ": unfused attention" : "");
      row.advice =
          attention ? "Attention computed as batched matrix products around a softmax (bmm, "
                      "softmax, bmm) writes the whole score matrix to memory: call "
                      "torch.nn.functional.scaled_dot_product_attention (FlashAttention or "
                      "memory-efficient kernels), which never materialises it."
          : top->bound && !strcmp(top->bound, "compute")
              ? "Matrix work runs far below the device's peak: keep matrix sizes multiples "
                "of 8 (16 for fp8), batch small GEMMs together (bmm, grouped GEMMs), and "
                "check the kernel chosen (cuBLASLt heuristics, torch.compile max-autotune)."
              : "Memory-bound operators move their data far slower than the device's "
                "bandwidth allows: fuse chains of elementwise and normalization operators "
                "(torch.compile), avoid float32 copies of bf16 tensors and non-contiguous "
                "(strided) inputs, and keep tensors large enough to fill the GPU.";
      rc = fd_emit(x, r, &row);
    }
    sqlite3_free(s);
  }
  return rc;
}

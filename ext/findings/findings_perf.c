/*
** findings_perf.c: the finding low_efficiency (findings.h), source 'hta-sqlite':
** operators whose GPU time is far above what their shapes need on this device, read
** from the operator performance model (hta_op_perf, op_perf.c).
**
** Requirements (tests cite them as FP-n):
**  1. Calls: the rows of hta_op_perf('instance') of the trace with a roofline
**     (roofline_us not NULL: a device_peak row for the device, known bytes, FLOPs > 0)
**     and GPU time (kernel_us_total > 0), whose operator event lies in the analysed
**     steps (fd_in_steps). Calls that copy between host and device (a GPU event named
**     `Memcpy HtoD`, `DtoH`, ...) are left out: the link, not the device's memory,
**     bounds them (pageable_memcpy is their finding).
**  2. Nested modelled operators share their GPU events (aten::layer_norm and the
**     aten::native_layer_norm inside it): of the calls with the same GPU events, only
**     the first (the outer one, lowest seq) counts, so no GPU time counts twice.
**  3. Signature = (name, category, shapes, dtypes, is_backward). Per signature: calls,
**     kernel time K and roofline time R (sums). A signature is far from its roofline
**     when R < 0.5 * K: its kernels take more than twice what the device's peak
**     compute or memory bandwidth allows.
**  4. One finding per trace with such signatures: time_us = sum of (K - R) over them /
**     the trace's steps (the time above the roofline per step); count = their calls;
**     evidence.operators = the 5 with the most K - R: name, category, calls,
**     kernel_us, roofline_us, pct_of_peak (100 R / K), bound, shapes, dtypes, seq (of
**     the first call); the advice follows the bound of the first.
**  5. Quick exits (nothing to compute, so hta_op_perf need not run): a database
**     without device_peak, a trace whose devices match no device_peak pattern, a trace
**     without recorded shapes (no host event with "Input Dims").
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FP_FAR 0.5 /* FP-3: a roofline under half the kernel time */
#define FP_TOP 5   /* FP-4 */

typedef struct fp_sig {
  char *key; /* name \x1f category \x1f shapes \x1f dtypes \x1f backward */
  char *name, *category, *shapes, *dtypes, *bound;
  int64_t calls, seq;
  double kernel_us, roofline_us;
} fp_sig;

static void fpSigsFree(fp_sig *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    sqlite3_free(s[i].key);
    sqlite3_free(s[i].name);
    sqlite3_free(s[i].category);
    sqlite3_free(s[i].shapes);
    sqlite3_free(s[i].dtypes);
    sqlite3_free(s[i].bound);
  }
  sqlite3_free(s);
}

static int fpExcessCmp(const void *a, const void *b) {
  const fp_sig *x = a, *y = b;
  double ex = x->kernel_us - x->roofline_us, ey = y->kernel_us - y->roofline_us;
  if (ex != ey) return ex > ey ? -1 : 1;
  return strcmp(x->key, y->key);
}

/* Appends V to *PS; on failure frees V's strings and returns SQLITE_NOMEM. */
static int fpPush(fp_sig **ps, size_t *pn, size_t *pa, fp_sig v) {
  HTA_PUSH(*ps, *pn, *pa, 16, v, fp_push_oom);
  return SQLITE_OK;
fp_push_oom:
  sqlite3_free(v.key);
  sqlite3_free(v.name);
  sqlite3_free(v.category);
  sqlite3_free(v.shapes);
  sqlite3_free(v.dtypes);
  sqlite3_free(v.bound);
  return SQLITE_NOMEM;
}

/* A copy of column COL of ST (NULL stays NULL); *oom set on failure. */
static char *fpText(sqlite3_stmt *st, int col, int *oom) {
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
  char *z = sqlite3_mprintf("%s", sqlite3_column_text(st, col));
  if (!z) *oom = 1;
  return z;
}

/* FP-5: 1 in *GO when trace U can have a roofline at all. */
static int fpWorthIt(fd_ctx *x, const fd_unit *u, int *go) {
  int64_t one, range[2] = {hta_trace_first_id(u->trace_id), hta_trace_last_id(u->trace_id)};
  int isnull, rc;
  *go = 0;
  rc = hta_query_int64(x->db, x->schema,
                       "SELECT 1 FROM $S.device d WHERE d.trace_id = ?1 AND EXISTS (SELECT 1"
                       " FROM $S.device_peak p WHERE d.name GLOB p.device_pattern) LIMIT 1",
                       1, &u->trace_id, &one, &isnull);
  if (rc != SQLITE_OK || isnull) return rc;
  rc = hta_query_int64(x->db, x->schema,
                       "SELECT 1 FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
                       " AND stream IS NULL AND instr(args, '\"Input Dims\"') LIMIT 1",
                       2, range, &one, &isnull);
  *go = rc == SQLITE_OK && !isnull;
  return rc;
}

/* FP-1..3: the signatures of trace U into *PS (*PN of them). */
static int fpSignatures(fd_ctx *x, const fd_unit *u, fp_sig **ps, size_t *pn) {
  sqlite3_stmt *st;
  fp_sig *s = 0;
  size_t n = 0, a = 0;
  char *prev_kernels = 0;
  int oom = 0;
  int rc = fd_query(
      x,
      "SELECT p.name, p.category, p.shapes, p.dtypes, p.is_backward, p.kernel_us_total,"
      " p.roofline_us, p.bound, e.iteration, e.seq, p.kernel_event_ids"
      " FROM hta_op_perf('instance') p JOIN $S.event e ON e.event_id = p.event_id"
      " WHERE p.schema = ?1 AND p.job = ?2 AND p.rank = ?3 AND p.trace_id = ?4"
      " AND p.roofline_us IS NOT NULL AND p.kernel_us_total > 0"
      " AND NOT EXISTS (SELECT 1 FROM json_each(p.kernel_event_ids) j"
      "  JOIN $S.event g ON g.event_id = j.value JOIN $S.string s ON s.string_id = g.name_id"
      "  WHERE s.value GLOB 'Memcpy [DHP]to[DHP]*' AND s.value NOT GLOB 'Memcpy DtoD*')"
      " ORDER BY p.kernel_event_ids, e.seq",
      &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 3, u->rank);
    sqlite3_bind_int64(st, 4, u->trace_id);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    const char *kernels = (const char *)sqlite3_column_text(st, 10);
    if (prev_kernels && kernels && !strcmp(prev_kernels, kernels)) continue; /* FP-2 */
    sqlite3_free(prev_kernels);
    if (!(prev_kernels = sqlite3_mprintf("%s", kernels ? kernels : ""))) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (!fd_in_steps(u, sqlite3_column_type(st, 8) != SQLITE_NULL, sqlite3_column_int64(st, 8)))
      continue;
    char *key = sqlite3_mprintf("%s\x1f%s\x1f%s\x1f%s\x1f%d", sqlite3_column_text(st, 0),
                                sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
                                sqlite3_column_text(st, 3), sqlite3_column_int(st, 4));
    if (!key) {
      rc = SQLITE_NOMEM;
      break;
    }
    size_t i = 0;
    while (i < n && strcmp(s[i].key, key)) i++;
    if (i == n) {
      fp_sig v;
      memset(&v, 0, sizeof v);
      v.key = key;
      v.name = fpText(st, 0, &oom);
      v.category = fpText(st, 1, &oom);
      v.shapes = fpText(st, 2, &oom);
      v.dtypes = fpText(st, 3, &oom);
      v.bound = fpText(st, 7, &oom);
      v.seq = sqlite3_column_int64(st, 9);
      if ((rc = fpPush(&s, &n, &a, v)) != SQLITE_OK) break;
    } else {
      sqlite3_free(key);
    }
    s[i].calls++;
    s[i].kernel_us += sqlite3_column_double(st, 5);
    s[i].roofline_us += sqlite3_column_double(st, 6);
    if (oom) rc = SQLITE_NOMEM;
  }
  sqlite3_free(prev_kernels);
  rc = fd_done(st, rc);
  *ps = s;
  *pn = n;
  return rc;
}

int fd_low_efficiency(fd_ctx *x, const fd_rule *r) {
  int64_t one;
  int isnull;
  int rc = hta_query_int64(x->db, x->schema,
                           "SELECT 1 FROM $S.sqlite_master WHERE type = 'table'"
                           " AND name = 'device_peak'",
                           0, 0, &one, &isnull);
  if (rc != SQLITE_OK || isnull) return rc; /* FP-5 */
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    fp_sig *s = 0;
    size_t n = 0, far = 0;
    int go;
    double excess = 0;
    int64_t calls = 0;
    if ((rc = fpWorthIt(x, u, &go)) != SQLITE_OK || !go) continue;
    rc = fpSignatures(x, u, &s, &n);
    for (size_t j = 0; rc == SQLITE_OK && j < n; j++) { /* FP-3: the far ones first */
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
      fd_row row = fd_row_init(u);
      sqlite3_str *e = row.evidence;
      char b[32];
      row.time_us = excess / (double)u->nsteps;
      row.count = calls;
      sqlite3_str_appendf(e, "{\"signatures\":%lld,\"excess_us\":", (long long)far);
      fd_json_num(e, excess);
      sqlite3_str_appendall(e, ",\"operators\":[");
      for (size_t j = 0; j < far && j < FP_TOP; j++) {
        sqlite3_str_appendall(e, j ? ",{\"name\":" : "{\"name\":");
        fd_json_str(e, s[j].name);
        sqlite3_str_appendall(e, ",\"category\":");
        fd_json_str(e, s[j].category);
        sqlite3_str_appendf(e, ",\"calls\":%lld,\"kernel_us\":", (long long)s[j].calls);
        fd_json_num(e, s[j].kernel_us);
        sqlite3_str_appendall(e, ",\"roofline_us\":");
        fd_json_num(e, s[j].roofline_us);
        sqlite3_str_appendall(e, ",\"pct_of_peak\":");
        fd_json_num(e, 100.0 * s[j].roofline_us / s[j].kernel_us);
        sqlite3_str_appendall(e, ",\"bound\":");
        fd_json_str(e, s[j].bound);
        /* shapes and dtypes are JSON already */
        sqlite3_str_appendf(e, ",\"shapes\":%s,\"dtypes\":%s,\"seq\":%lld}",
                            s[j].shapes ? s[j].shapes : "null", s[j].dtypes ? s[j].dtypes : "null",
                            (long long)s[j].seq);
      }
      sqlite3_str_appendall(e, "]}");
      row.title = sqlite3_mprintf(
          "Operators far from the device's limit: %s per step above their roofline, most in "
          "%s (%.0f%% of peak, %s bound)",
          fd_fmt_us(row.time_us, b), s[0].name, 100.0 * s[0].roofline_us / s[0].kernel_us,
          s[0].bound ? s[0].bound : "?");
      row.advice =
          s[0].bound && !strcmp(s[0].bound, "compute")
              ? "Matrix work runs far below the device's peak: use bf16/fp16 (autocast) or "
                "TF32, keep matrix sizes multiples of 8 (16 for fp8), batch small GEMMs "
                "together (bmm, grouped GEMMs), and check the kernel chosen (cuBLASLt, "
                "torch.compile max-autotune)."
              : "Memory-bound operators move their data far slower than the device's "
                "bandwidth allows: fuse chains of elementwise and normalization operators "
                "(torch.compile), avoid float32 copies of bf16 tensors and non-contiguous "
                "(strided) inputs, and keep tensors large enough to fill the GPU.";
      rc = fd_emit(x, r, &row);
    }
    fpSigsFree(s, n);
  }
  return rc;
}

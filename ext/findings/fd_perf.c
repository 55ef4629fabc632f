/*
** fd_perf.c: fd_perf_ops (fd_perf.h), hta_op_perf's operator calls for hta_findings.
**
** Requirements (tests cite them as FPF-n):
**  1. The rows of hta_op_perf('instance') of each unit with GPU time (kernel_us_total >
**     0), with the operator event's iteration and seq, m, n, k, and the names of their
**     kernels (tc = the OR of hta_tc_kernel over them; copy = one is a host <-> device
**     copy, a GPU event named Memcpy HtoD, DtoH, ... but not DtoD).
**  2. Quick exits (hta_op_perf need not run): a database without device_peak, a unit
**     whose devices match no device_peak pattern, a unit without recorded shapes (no
**     host event with "Input Dims").
**  4. fd_tc_claims: float32 matrix work (compute_spec matrix_fp32, a GEMM, CONV or SDPA
**     category) none of whose kernels runs on tensor cores, on a device that has them:
**     NVIDIA compute capability 7 or more (its kernel names tell the MMA families); on
**     AMD only when a kernel is a Tensile GEMM without a matrix instruction (Cijk_ and
**     no _MI token): Triton and other kernels there name no instruction, and run float32
**     dots on the matrix cores. tensor_cores_unused's, no other busy finding's.
**  5. fd_tc_advice by compute capability and vendor: 7.x fp16 autocast (no bf16, no
**     TF32 on Volta and Turing); 8.x bf16 autocast or TF32; 9.x and later bf16, or FP8
**     with Transformer Engine; AMD (MI series) bf16 autocast.
**  3. Nested modelled operators share their GPU events (aten::linear and the aten::addmm
**     inside it): of the calls with the same kernels, only the first (the outer one,
**     lowest seq) is kept, so no GPU time counts twice.
*/
#include <math.h>
#include <string.h>

#include "core/tensor_cores.h"
#include "findings/fd_perf.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static void fpfFree(void *p) {
  fd_ops *o = p;
  for (size_t i = 0; i < o->n; i++) {
    fd_op *q = &o->a[i];
    sqlite3_free(q->name);
    sqlite3_free(q->category);
    sqlite3_free(q->shapes);
    sqlite3_free(q->dtypes);
    sqlite3_free(q->bound);
    sqlite3_free(q->spec);
  }
  sqlite3_free(o->a);
  sqlite3_free(o);
}

/* FPF-2: 1 in *GO when unit U can have a roofline at all. */
static int fpfWorthIt(fd_ctx *x, const fd_unit *u, int *go) {
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

static char *fpfText(sqlite3_stmt *st, int col, int *oom) {
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
  char *z = sqlite3_mprintf("%s", sqlite3_column_text(st, col));
  if (!z) *oom = 1;
  return z;
}

/* FPF-1, FPF-3: unit U's calls into O. */
static int fpfUnit(fd_ctx *x, sqlite3_stmt *st, const fd_unit *u, fd_ops *o, size_t *cap) {
  char *prev = 0;
  int rc, oom = 0;
  sqlite3_bind_int64(st, 3, u->rank);
  sqlite3_bind_int64(st, 4, u->trace_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *kernels = (const char *)sqlite3_column_text(st, 10);
    if (prev && kernels && !strcmp(prev, kernels)) continue; /* FPF-3 */
    sqlite3_free(prev);
    if (!(prev = sqlite3_mprintf("%s", kernels ? kernels : ""))) {
      rc = SQLITE_NOMEM;
      break;
    }
    fd_op v;
    memset(&v, 0, sizeof v);
    v.trace_id = u->trace_id;
    v.name = fpfText(st, 0, &oom);
    v.category = fpfText(st, 1, &oom);
    v.shapes = fpfText(st, 2, &oom);
    v.dtypes = fpfText(st, 3, &oom);
    v.is_backward = sqlite3_column_int(st, 4);
    v.kernel_us = sqlite3_column_double(st, 5);
    v.roofline_us = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6);
    v.bound = fpfText(st, 7, &oom);
    v.has_it = sqlite3_column_type(st, 8) != SQLITE_NULL;
    v.it = sqlite3_column_int64(st, 8);
    v.seq = sqlite3_column_int64(st, 9);
    v.spec = fpfText(st, 11, &oom);
    v.m = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13);
    v.n = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 14);
    v.k = sqlite3_column_type(st, 15) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 15);
    const char *names = (const char *)sqlite3_column_text(st, 12); /* kernel names, \x1e apart */
    for (const char *p = names; p && *p;) {
      const char *q = strchr(p, '\x1e');
      size_t len = q ? (size_t)(q - p) : strlen(p);
      char buf[512];
      sqlite3_snprintf(len + 1 < sizeof buf ? (int)len + 1 : (int)sizeof buf, buf, "%s", p);
      unsigned f = hta_tc_kernel(buf);
      v.tc |= f;
      if (!f && !strncmp(buf, "Cijk_", 5)) v.simt_amd = 1;
      if (!strncmp(buf, "Memcpy ", 7) && strncmp(buf, "Memcpy DtoD", 11)) v.copy = 1;
      p = q ? q + 1 : p + len;
    }
    HTA_PUSH(o->a, o->n, *cap, 64, v, fpf_oom);
    if (oom) break;
    continue;
  fpf_oom:
    sqlite3_free(v.name);
    sqlite3_free(v.category);
    sqlite3_free(v.shapes);
    sqlite3_free(v.dtypes);
    sqlite3_free(v.bound);
    sqlite3_free(v.spec);
    oom = 1;
    break;
  }
  sqlite3_free(prev);
  sqlite3_reset(st);
  if (oom) return SQLITE_NOMEM;
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

int fd_perf_ops(fd_ctx *x, const fd_ops **pops) {
  fd_ops *o = fd_slot(x, FD_SLOT_PERF);
  sqlite3_stmt *st = 0;
  size_t cap = 0;
  int64_t one;
  int isnull, rc;
  *pops = 0;
  if (o) {
    *pops = o;
    return SQLITE_OK;
  }
  if (!(o = sqlite3_malloc64(sizeof *o))) return SQLITE_NOMEM;
  memset(o, 0, sizeof *o);
  fd_slot_set(x, FD_SLOT_PERF, o, fpfFree);
  *pops = o; /* empty until filled below */
  rc = hta_query_int64(x->db, x->schema,
                       "SELECT 1 FROM $S.sqlite_master WHERE type = 'table'"
                       " AND name = 'device_peak'",
                       0, 0, &one, &isnull);
  if (rc != SQLITE_OK || isnull) return rc; /* FPF-2 */
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    int go;
    if (!fd_unit_wanted(x, u)) continue;
    if ((rc = fpfWorthIt(x, u, &go)) != SQLITE_OK || !go) continue;
    if (!st)
      rc = fd_query(x,
                    "SELECT p.name, p.category, p.shapes, p.dtypes, p.is_backward,"
                    " p.kernel_us_total, p.roofline_us, p.bound, e.iteration, e.seq,"
                    " p.kernel_event_ids, p.compute_spec, (SELECT group_concat(s.value,"
                    " char(30)) FROM json_each(p.kernel_event_ids) j JOIN $S.event g"
                    " ON g.event_id = j.value JOIN $S.string s ON s.string_id = g.name_id),"
                    " p.m, p.n, p.k"
                    " FROM hta_op_perf('instance') p JOIN $S.event e ON e.event_id = p.event_id"
                    " WHERE p.schema = ?1 AND p.job = ?2 AND p.rank = ?3 AND p.trace_id = ?4"
                    " AND p.kernel_us_total > 0 ORDER BY p.kernel_event_ids, e.seq",
                    &st);
    if (rc == SQLITE_OK) rc = fpfUnit(x, st, u, o, &cap);
  }
  sqlite3_finalize(st);
  return rc;
}

int fd_op_matrix(const fd_op *op) {
  const char *c = op->category;
  return c && (!strncmp(c, "GEMM", 4) || !strncmp(c, "CONV", 4) || !strncmp(c, "SDPA", 4));
}

int fd_peak_tflops(fd_ctx *x, const fd_unit *u, const char *spec, double *tflops) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(x->db, x->schema,
                       "SELECT p.peak_tflops FROM $S.device d JOIN $S.device_peak p"
                       " ON d.name GLOB p.device_pattern WHERE d.trace_id = ?1"
                       " AND p.compute_spec = ?2 ORDER BY d.device_id, p.priority LIMIT 1",
                       &st);
  *tflops = NAN;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, u->trace_id);
  sqlite3_bind_text(st, 2, spec, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *tflops = sqlite3_column_double(st, 0);
  return fd_done(st, rc);
}

int fd_tc_claims(const fd_unit *u, const fd_op *op) {
  if (!fd_op_matrix(op) || !op->spec || strcmp(op->spec, "matrix_fp32") || (op->tc & HTA_TC_MMA))
    return 0;
  return u->amd ? op->simt_amd : u->cc_major >= 7;
}

const char *fd_tc_advice(const fd_unit *u) {
  static const char volta[] =
      "Matrix multiplications and convolutions run in float32 on the CUDA cores: on this GPU "
      "(compute capability 7.x: no bf16, no TF32) use float16 automatic mixed precision, "
      "torch.autocast('cuda', dtype=torch.float16) with torch.cuda.amp.GradScaler.";
  static const char ampere[] =
      "Matrix multiplications and convolutions run in float32 without tensor cores: use bf16 "
      "automatic mixed precision (torch.autocast('cuda', dtype=torch.bfloat16)), or allow TF32 "
      "(torch.set_float32_matmul_precision('high'), torch.backends.cudnn.allow_tf32 = True).";
  static const char hopper[] =
      "Matrix multiplications and convolutions run in float32 without tensor cores: use bf16 "
      "automatic mixed precision (torch.autocast('cuda', dtype=torch.bfloat16)); for the large "
      "GEMMs FP8 with Transformer Engine (te.fp8_autocast) doubles the tensor-core rate again.";
  static const char amd[] =
      "Matrix multiplications and convolutions run in float32: use bf16 automatic mixed "
      "precision on the MI-series matrix cores (torch.autocast('cuda', dtype=torch.bfloat16)).";
  return u->amd ? amd : u->cc_major == 7 ? volta : u->cc_major == 8 ? ampere : hopper;
}

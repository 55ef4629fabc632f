/*
** findings_overview.c: the TensorBoard plugin's recommendations that read its
** Overview and its tensor-core figures, as findings (fd.h), source 'tb_plugin':
** dataloader, communication and gpu_low_utilization (kind 'symptom': their time is
** what the causes explain, never added to them) and tensor_cores_unused (kind
** 'configuration': no time; hta-sqlite's tensor_cores_unused estimates the saving). Each reads the analysis that shows its numbers
** (hta_step_time_breakdown, hta_gpu_metrics, hta_tensor_core_summary) on the
** plugin's own steps, so pct_of_step is a share of the plugin's step time, not of
** the host ProfilerStep mean.
**
** A step here is a step of hta_step_time_breakdown whose window has a length: the
** zero-length GPU-side copies of a step (recent PyTorch writes ProfilerStep#N on
** the GPU timeline too; the plugin lists each as a step) are not steps of their
** own. The plugin's Average Step Time divides by them as well, so its means per
** step shrink by the number of copies while its shares do not: the shares below are
** the plugin's (a ratio of sums is the ratio of its means), the times are per step.
**
** Requirements (tests cite them as FO-n):
**  1. dataloader: the DataLoader role's time over the steps' time (the plugin's
**     mean over its Average Step Time) > 0.05 (strict, as the plugin). time_us =
**     the role's time / the steps; pct_of_step = 100 * that share.
**  2. communication: likewise for the Communication role, > 0.10.
**  3. gpu_low_utilization: one finding per trace listing every GPU of
**     hta_gpu_metrics whose gpu_utilization < 0.5 (a GPU without a utilization,
**     e.g. a trace with no step window, is never listed). evidence.utilization =
**     the lowest of them (a fraction), evidence.gpus = [{device, utilization}].
**     time_us = (1 - utilization) * the mean step: the idle share of the step;
**     pct_of_step = 100 * (1 - utilization).
**  4. tensor_cores_unused: the trace's first device (lowest device_id of its
**     device properties; none: no finding) has compute capability >= 7, no kernel
**     time on tensor-core kernels (tensor_core_used_pct exactly 0, not NULL) and
**     eligible operators' kernel time > 0 (tensor_core_eligible_pct > 0).
**     evidence.eligible_pct = tensor_core_eligible_pct; time_us = the eligible
**     operators' kernel time / the steps; pct_of_step = 100 * time_us / the mean
**     step. Tensor-core kernels are those of hta_kernel_stats
**     (AMD matrix-core kernels included), so the rule fires where nothing runs on
**     tensor cores, not merely where no NVIDIA library name matched. A configuration:
**     time_us and pct_of_step NULL (the eligible time is an upper bound, no saving);
**     evidence.eligible_kernel_us per step; advice by compute capability (fd_tc_advice).
**  5. The numbers are those the three analyses show, from the same C code: each
**     trace's plugin model (tb_steps.c) is built once per run for the four rules
**     (the step sums of hta_step_time_breakdown, the GPUs' busy time of
**     hta_gpu_metrics), and the operator tree's tensor-core figures (tb_tree.c, those
**     of hta_tensor_core_summary) only for a trace that passes the cheaper tests, so
**     hta_findings does not build each model three times through SQL.
*/
#include <math.h>
#include <string.h>

#include "findings/fd_account.h"
#include "findings/fd_perf.h"
#include "findings/fd_run.h"
#include "findings/findings_rules.h"
#include "tb/tb_model.h"
#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- the plugin's figures: FO-5 */

typedef fd_plugin_fig fo_trace;

typedef struct fo_cache {
  fo_trace *t; /* one per unit of the run, same order */
  int n;
} fo_cache;

static void foCacheFree(void *p) {
  fo_cache *c = p;
  for (int i = 0; i < c->n; i++) sqlite3_free(c->t[i].gpu);
  sqlite3_free(c->t);
  sqlite3_free(c);
}

_Static_assert(sizeof((fo_trace *)0)->role / sizeof(int64_t) == TV_NROLE, "a time per role");

int fd_plugin_fig_of(const tv_model *m, fo_trace *f) {
  memset(f, 0, sizeof *f);
  for (size_t j = 0; j < m->nsteps; j++) {
    int64_t len = hta_sub_sat(m->steps[j].end, m->steps[j].start);
    if (len <= 0) continue; /* a GPU-side copy of a step: no step of its own */
    f->nsteps++;
    f->total = hta_add_sat(f->total, len);
    for (int k = 0; k < TV_NROLE; k++) f->role[k] = hta_add_sat(f->role[k], m->steps[j].cost[k]);
  }
  if (m->nsteps) f->window = hta_sub_sat(m->steps[m->nsteps - 1].end, m->steps[0].start);
  return tv_gpu_busy(m, &f->gpu, &f->ngpu);
}

/* The figures of every unit of X, built on the first call of a run (FO-5). */
static int foFigures(fd_ctx *x, fo_cache **pc) {
  fo_cache *have = fd_slot(x, FD_SLOT_PLUGIN);
  if (have) {
    *pc = have;
    return SQLITE_OK;
  }
  fo_cache *c = sqlite3_malloc64(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->n = x->nu;
  c->t = sqlite3_malloc64((x->nu ? (size_t)x->nu : 1) * sizeof *c->t);
  if (!c->t) {
    sqlite3_free(c);
    return SQLITE_NOMEM;
  }
  memset(c->t, 0, (x->nu ? (size_t)x->nu : 1) * sizeof *c->t);
  fd_slot_set(x, FD_SLOT_PLUGIN, c, foCacheFree); /* freed with the run, whatever happens */
  for (int i = 0; i < x->nu; i++) {
    fo_trace *f = &c->t[i];
    if (!fd_unit_wanted(x, &x->u[i])) continue;
    if (x->given && x->given->trace_id == x->u[i].t->trace_id) {
      const fo_trace *g = x->given->fig; /* the caller's: the model is not loaded twice */
      *f = *g;
      f->gpu = 0;
      if (g->ngpu && !(f->gpu = sqlite3_malloc64(g->ngpu * sizeof *g->gpu))) return SQLITE_NOMEM;
      if (g->ngpu) memcpy(f->gpu, g->gpu, g->ngpu * sizeof *g->gpu);
      continue;
    }
    tv_model m;
    int rc = tv_model_load(x->db, x->u[i].t, 0, &m); /* the device is a column: no args */
    if (rc == SQLITE_OK) rc = fd_plugin_fig_of(&m, f);
    tv_model_free(&m);
    if (rc != SQLITE_OK) return rc;
  }
  *pc = c;
  return SQLITE_OK;
}

int fd_plugin_figures(fd_ctx *x) {
  fo_cache *c;
  return foFigures(x, &c);
}

/* The mean step of F in µs (0 without steps). */
static double foStepUs(const fo_trace *f) {
  return f->nsteps ? (double)f->total / (double)f->nsteps / 1000.0 : 0.0;
}

/* ---------------------------------------------------------------- dataloader, communication */

static const char foDataloaderAdvice[] =
    "The GPU waits for input: give the DataLoader worker processes (num_workers), "
    "pin_memory=True, persistent_workers=True and a prefetch_factor, and move decoding "
    "and augmentation off the training process.";
static const char foCommAdvice[] =
    "Collectives take a large share of each step: overlap them with computation "
    "(DistributedDataParallel's bucketing, FSDP prefetch), send less (gradient "
    "compression, larger batches per step), or check the interconnect.";

/* FO-1, FO-2: role ROLE (TV_DATALOADER or TV_COMM) over THRESHOLD of the step time. */
static int foRole(fd_ctx *x, const fd_rule *r, int role, double threshold) {
  fo_cache *c;
  int rc = foFigures(x, &c);
  for (int i = 0; rc == SQLITE_OK && i < c->n; i++) {
    const fo_trace *f = &c->t[i];
    if (!f->nsteps || f->total <= 0 || !fd_unit_wanted(x, &x->u[i])) continue;
    double share = (double)f->role[role] / (double)f->total;
    if (!(share > threshold)) continue;
    char b1[32], b2[32];
    double step = foStepUs(f);
    fd_row row = fd_row_init(&x->u[i]);
    row.time_us = (double)f->role[role] / (double)f->nsteps / 1000.0;
    row.pct = 100.0 * share;
    sqlite3_str_appendall(row.evidence, "{\"role_us\":");
    fd_json_num(row.evidence, row.time_us);
    sqlite3_str_appendall(row.evidence, ",\"step_us\":");
    fd_json_num(row.evidence, step);
    sqlite3_str_appendf(row.evidence, ",\"steps\":%lld,\"share_pct\":", (long long)f->nsteps);
    fd_json_num(row.evidence, row.pct);
    sqlite3_str_appendchar(row.evidence, 1, '}');
    row.title = sqlite3_mprintf("%s takes %.1f%% of each step (%s of %s)",
                                role == TV_DATALOADER ? "The DataLoader" : "Communication", row.pct,
                                hta_fmt_us(row.time_us, b1), hta_fmt_us(step, b2));
    row.advice = role == TV_DATALOADER ? foDataloaderAdvice : foCommAdvice;
    rc = fd_emit(x, r, &row);
  }
  return rc;
}

int fd_dataloader(fd_ctx *x, const fd_rule *r) { return foRole(x, r, TV_DATALOADER, 0.05); }

int fd_communication(fd_ctx *x, const fd_rule *r) { return foRole(x, r, TV_COMM, 0.10); }

/* ---------------------------------------------------------------- gpu_low_utilization: FO-3 */

int fd_gpu_low_utilization(fd_ctx *x, const fd_rule *r) {
  fo_cache *c;
  fd_acct *acct = 0;
  int rc = fd_account(x, &acct);
  if (rc == SQLITE_OK) rc = foFigures(x, &c);
  for (int i = 0; rc == SQLITE_OK && i < c->n; i++) {
    const fo_trace *f = &c->t[i];
    double low = 1.0, step = foStepUs(f);
    int nlow = 0;
    if (f->window <= 0 || !fd_unit_wanted(x, &x->u[i])) continue; /* no window: (GM-2) */
    fd_row row = fd_row_init(&x->u[i]);
    sqlite3_str *e = row.evidence;
    sqlite3_str_appendall(e, "{\"gpus\":[");
    for (size_t g = 0; g < f->ngpu; g++) {
      double u = (double)f->gpu[g].busy / (double)f->window;
      if (!(u < 0.5)) continue;
      sqlite3_str_appendf(e, "%s{\"device\":%lld,\"utilization\":", nlow++ ? "," : "",
                          (long long)f->gpu[g].device);
      fd_json_num(e, u);
      sqlite3_str_appendchar(e, 1, '}');
      if (u < low) low = u;
    }
    if (!nlow) {
      sqlite3_free(sqlite3_str_finish(e));
      continue;
    }
    sqlite3_str_appendall(e, "],\"utilization\":");
    fd_json_num(e, low);
    sqlite3_str_appendall(e, ",\"step_us\":");
    fd_json_num(e, step > 0 ? step : NAN);
    sqlite3_str_appendall(e, ",\"causes\":[");
    for (int p = 0, k = 0; acct && acct[i].has_gpu && p < FD_NCAUSE; p++) {
      if (!(acct[i].part_us[p] > 0)) continue;
      sqlite3_str_appendf(e, "%s{\"rule\":\"%s\",\"us\":", k++ ? "," : "", fd_part_rule(p));
      fd_json_num(e, acct[i].part_us[p]);
      sqlite3_str_appendchar(e, 1, '}');
    }
    sqlite3_str_appendall(e, "]}");
    if (step > 0) { /* a time and its share together (FD-3: else neither) */
      row.time_us = (1.0 - low) * step;
      row.pct = 100.0 * (1.0 - low);
    }
    row.title = sqlite3_mprintf(
        "GPU busy only %.1f%% of the step%s (the TensorBoard plugin's "
        "measure)",
        100.0 * low, nlow > 1 ? ", lowest of its GPUs" : "");
    row.advice =
        "The GPU idles most of each step: the causes listed under this finding (their parent "
        "is gpu_low_utilization) say why, each with its cost and what to try.";
    rc = fd_emit(x, r, &row);
  }
  return rc;
}

/* ---------------------------------------------------------------- tensor_cores_unused: FO-4 */

/* 1 in *USED when some kernel of trace T with a tensor-core name ran for a time: then
** the tree's tensor-core time is not 0 and the rule cannot fire (FO-5: the tree is
** not built for nothing). */
static int foTensorCoreTime(sqlite3 *db, const char *schema, const hta_trace *t, int *used) {
  sqlite3_stmt *st;
  *used = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT s.value FROM (SELECT name_id, sum(dur) AS d FROM $S.event"
                       " WHERE trace_id = ?1 AND stream IS NOT NULL AND category_id IN"
                       " (SELECT category_id FROM $S.category WHERE lower(name) = 'kernel')"
                       " GROUP BY name_id) k JOIN $S.string s ON s.string_id = k.name_id"
                       " WHERE k.d > 0",
                       &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  while (!*used && (rc = sqlite3_step(st)) == SQLITE_ROW)
    *used = (tb_name_flags((const char *)sqlite3_column_text(st, 0)) & TB_N_TC) != 0;
  return fd_done(st, rc == SQLITE_ROW ? SQLITE_OK : rc);
}

/* FO-4's gate, read on DB: 1 in *WANT when unit U is wanted, its first device has
** compute capability 7 or more (*MAJOR, *MINOR; -1 when it has no properties) and no
** tensor-core kernel ran: then its operator tree's figures decide. */
static int foTcGate(sqlite3 *db, const fd_ctx *x, const fd_unit *u, int64_t *major, int64_t *minor,
                    int *want) {
  sqlite3_stmt *cc;
  int used,
      rc = hta_prepare(db, x->schema,
                       "SELECT compute_major, compute_minor FROM $S.device WHERE trace_id = ?1"
                       " ORDER BY device_id LIMIT 1",
                       &cc);
  *major = -1, *minor = 0, *want = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(cc, 1, u->trace_id);
  if ((rc = sqlite3_step(cc)) == SQLITE_ROW && sqlite3_column_type(cc, 0) != SQLITE_NULL) {
    *major = sqlite3_column_int64(cc, 0);
    *minor = sqlite3_column_int64(cc, 1);
  }
  rc = fd_done(cc, rc == SQLITE_ROW ? SQLITE_OK : rc);
  if (rc != SQLITE_OK || *major < 7 || !fd_unit_wanted(x, u)) return rc; /* no tensor cores */
  rc = foTensorCoreTime(db, x->schema, u->t, &used);
  *want = rc == SQLITE_OK && !used;
  return rc;
}

/* FO-4's look at one unit, taken ahead (fd_plugin_prepare). */
typedef struct fo_tc {
  int want;             /* the gate passed: F holds the operator tree's figures */
  int64_t major, minor; /* the first device's compute capability */
  tb_tc f;
} fo_tc;

typedef struct fo_ahead {
  fo_tc *u; /* one per unit of the run, same order */
  int n;
} fo_ahead;

static void foAheadFree(void *p) {
  fo_ahead *a = p;
  if (!a) return;
  for (int i = 0; i < a->n; i++) tb_tc_free(&a->u[i].f);
  sqlite3_free(a->u);
  sqlite3_free(a);
}

int fd_plugin_prepare(sqlite3 *db, const fd_ctx *x, void **out) {
  fo_ahead *a = sqlite3_malloc64(sizeof *a);
  size_t n = x->nu ? (size_t)x->nu : 1;
  int rc = SQLITE_OK;
  *out = 0;
  if (!a || !(a->u = sqlite3_malloc64(n * sizeof *a->u))) {
    sqlite3_free(a);
    return SQLITE_NOMEM;
  }
  memset(a->u, 0, n * sizeof *a->u);
  a->n = x->nu;
  for (int i = 0; i < x->nu && rc == SQLITE_OK; i++) {
    fo_tc *g = &a->u[i];
    rc = foTcGate(db, x, &x->u[i], &g->major, &g->minor, &g->want);
    if (rc == SQLITE_OK && g->want) rc = tb_tc_figures(db, x->u[i].t, &g->f);
  }
  if (rc != SQLITE_OK) foAheadFree(a), a = 0;
  *out = a;
  return rc;
}

void fd_plugin_install(fd_ctx *x, void *prepared) {
  if (prepared) fd_slot_set(x, FD_SLOT_PLUGIN_TC, prepared, foAheadFree);
}

int fd_tensor_cores_unused(fd_ctx *x, const fd_rule *r) {
  fo_cache *c;
  int rc = foFigures(x, &c);
  for (int i = 0; rc == SQLITE_OK && i < c->n; i++) {
    const fd_unit *u = &x->u[i];
    const fo_trace *f = &c->t[i];
    fo_ahead *ahead = fd_slot(x, FD_SLOT_PLUGIN_TC);
    fo_tc now = {0, -1, 0, {0}}, *g = ahead ? &ahead->u[i] : &now;
    if (!ahead && (rc = foTcGate(x->db, x, u, &g->major, &g->minor, &g->want)) != SQLITE_OK) break;
    if (!g->want) continue;
    int64_t major = g->major, minor = g->minor;
    tb_tc tc = g->f; /* built ahead, or now */
    memset(&g->f, 0, sizeof g->f);
    if (!ahead) rc = tb_tc_figures(x->db, u->t, &tc);
    if (rc == SQLITE_OK && tc.kernel_view && tc.tc_ns == 0 && tc.op_ns > 0 && tc.eligible_ns > 0) {
      double pct = 100.0 * ((double)tc.eligible_ns / (double)tc.op_ns);
      double step = foStepUs(f);
      fd_row row = fd_row_init(u);
      sqlite3_str_appendall(row.evidence, "{\"eligible_pct\":");
      fd_json_num(row.evidence, pct);
      sqlite3_str_appendall(row.evidence, ",\"eligible_kernel_us\":");
      fd_json_us(row.evidence, tc.eligible_ns);
      sqlite3_str_appendall(row.evidence, ",\"eligible_kernel_us_per_step\":");
      fd_json_num(row.evidence, f->nsteps && step > 0
                                    ? (double)tc.eligible_ns / (double)f->nsteps / 1000.0
                                    : NAN);
      sqlite3_str_appendf(row.evidence, ",\"compute_capability\":\"%lld.%lld\"}", (long long)major,
                          (long long)minor);
      row.title = sqlite3_mprintf(
          "%.1f%% of kernel time is in tensor-core eligible operators, none on tensor cores", pct);
      row.advice = fd_tc_advice(u);
      rc = fd_emit(x, r, &row);
    }
    tb_tc_free(&tc);
  }
  return rc;
}

/*
** tb_gpu.c: hta_gpu_metrics, the "GPU Summary" of the PyTorch TensorBoard profiler
** plugin's Overview: per GPU, its utilization, estimated SM efficiency and
** estimated achieved occupancy over the kept steps, over the model of tb_steps.c.
**
**   SELECT device, gpu_utilization, sm_efficiency, achieved_occupancy FROM hta_gpu_metrics;
**
** Parameter (HIDDEN): plugin_quirks (0): tb_tree.h's TB_Q_* bits for the two tensor-core
** columns (127: the plugin's own rules). Columns (then `job`): rank, device, gpu_utilization, sm_efficiency,
** achieved_occupancy, tensor_core_kernel_pct, tensor_core_eligible_pct,
** kernel_time_us, window_us, name, memory_bytes, compute_capability, kernels,
** window_start_us, window_end_us, trace_id.
**
** Requirements (tests cite them as GM-n):
**  1. One row per GPU of a trace file: the values of args.device over its kernel
**     events (kernels without one count nowhere; memcpy and memset are no kernels),
**     ascending; rows in (rank, trace_id) order; each file whole, on its own.
**  2. The window W = [start of the first kept step, end of the last] (TV-3..5), the
**     same for every GPU of the file; window_us its length; window_start_us and
**     window_end_us relative to the job's origin. A file without steps (TV-3) has
**     no window: every metric below is NULL.
**  3. kernel_time_us = the time in W with at least one of the GPU's kernels running
**     (every stream, communication kernels included); gpu_utilization =
**     kernel_time_us / window_us, a fraction (NULL when W is empty).
**  4. sm_efficiency, a fraction: over the GPU's kernels with "blocks per SM" > 0
**     (missing, 0 and negative values are left out), the time between consecutive
**     kernel starts and ends (a start before an end at the same instant) has level
**     min(sum of the running kernels' blocks per SM, 1); sm_efficiency = the sum of
**     level * length over the pieces inside W, divided by window_us (not by the busy
**     time). NULL when no such piece lies inside W.
**  5. achieved_occupancy, a percent: over the GPU's kernels with "est. achieved
**     occupancy %" >= 0, each clipped to W: sum of occupancy * clipped length / sum
**     of clipped lengths, over those overlapping W. NULL when none does.
**  6. name, memory_bytes and compute_capability ("major.minor") come from the
**     trace's deviceProperties entry at list position = the GPU id (as the plugin
**     reads it; NULL when the list is shorter); kernels = the GPU's kernel events.
**  7. tensor_core_kernel_pct (per GPU) and tensor_core_eligible_pct (the file's, on
**     each of its rows), from the plugin's operator tree (tb_tree.c: tb_tc_compute,
**     with plugin_quirks): 100 * the time of the tensor-core kernels launched under
**     operators on the GPU / the time of all kernels launched under operators on it
**     (0 when that is 0, NULL when no kernel of the file hangs under an operator);
**     100 * the kernel time of the lowest eligible operators / that of every operator
**     (0 when that is 0). They do not depend on the window. The tree is built only
**     when the statement reads one of the two (TVF-7): the other columns stay cheap.
**  8. plugin_quirks not an integer from 0 to 127: "hta_gpu_metrics: plugin_quirks must
**     be an integer from 0 to 127".
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_model.h"
#include "tb/tb_tree.h" /* the tensor-core figures (GM-7) */
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define GM_RANK 0
#define GM_DEVICE 1
#define GM_UTIL 2
#define GM_SM 3
#define GM_OCC 4
#define GM_TC_KERNEL 5
#define GM_TC_ELIGIBLE 6
#define GM_KERNEL_TIME 7
#define GM_WINDOW 8
#define GM_NAME 9
#define GM_MEMORY 10
#define GM_CC 11
#define GM_KERNELS 12
#define GM_WSTART 13
#define GM_WEND 14
#define GM_TRACE_ID 15
#define GM_NVISIBLE 16
#define GM_P_QUIRKS 0
static const char gmSchema[] =
    "CREATE TABLE x(rank INTEGER, device INTEGER, gpu_utilization REAL, sm_efficiency REAL,"
    " achieved_occupancy REAL, tensor_core_kernel_pct REAL, tensor_core_eligible_pct REAL,"
    " kernel_time_us REAL, window_us REAL, name TEXT, memory_bytes INTEGER,"
    " compute_capability TEXT, kernels INTEGER, window_start_us REAL, window_end_us REAL,"
    " trace_id INTEGER, plugin_quirks HIDDEN)";
static const hta_param gmParams[] = {
    {"plugin_quirks", 0, 0.0, 0.0, (double)TB_Q_ALL, "an integer from 0 to 127"},
};

/* A kernel start or end for the sweep of GM-4. */
typedef struct gm_point {
  int64_t t;
  int is_end;   /* starts sort first at one instant */
  size_t order; /* then the plugin's (stable) order */
  double v;
} gm_point;

static int gmPointCmp(const void *a, const void *b) {
  const gm_point *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->is_end != y->is_end) return x->is_end - y->is_end;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The GPU's figures of GM-3..5 over W = [ws, we); K lists its kernels (TV-1 order). */
typedef struct gm_gpu {
  int64_t busy;
  double sm_weighted; /* level * ns */
  int has_sm;
  double occ_weighted; /* occupancy * ns */
  int64_t occ_time;
} gm_gpu;

static int gmFigures(const tv_dev *const *k, size_t n, int64_t ws, int64_t we, gm_gpu *g,
                     hta_iv *iv, gm_point *pt) {
  size_t np = 0, nm;
  memset(g, 0, sizeof *g);
  for (size_t i = 0; i < n; i++) iv[i] = (hta_iv){k[i]->ts, k[i]->end};
  nm = hta_iv_merge(iv, n);
  g->busy = hta_iv_clip_length(iv, nm, ws, we); /* GM-3 */
  for (size_t i = 0; i < n; i++) {
    if (k[i]->has_bps && k[i]->bps > 0.0) { /* GM-4 */
      pt[np] = (gm_point){k[i]->ts, 0, np, k[i]->bps};
      np++;
      pt[np] = (gm_point){k[i]->end, 1, np, k[i]->bps};
      np++;
    }
    if (k[i]->has_occ && k[i]->occ >= 0.0) { /* GM-5 */
      int64_t s = k[i]->ts > ws ? k[i]->ts : ws, e = k[i]->end < we ? k[i]->end : we;
      if (s < e) {
        g->occ_weighted += k[i]->occ * (double)hta_sub_sat(e, s);
        g->occ_time = hta_add_sat(g->occ_time, hta_sub_sat(e, s));
      }
    }
  }
  if (np) qsort(pt, np, sizeof *pt, gmPointCmp);
  double level = np ? pt[0].v : 0.0;
  for (size_t i = 1; i < np; i++) {
    if (pt[i].t > pt[i - 1].t && level > 0.0) {
      int64_t s = pt[i - 1].t > ws ? pt[i - 1].t : ws, e = pt[i].t < we ? pt[i].t : we;
      if (s < e) {
        g->sm_weighted += (level < 1.0 ? level : 1.0) * (double)hta_sub_sat(e, s);
        g->has_sm = 1;
      }
    }
    level += pt[i].is_end ? -pt[i].v : pt[i].v;
  }
  return SQLITE_OK;
}

static int gmDevCmp(const void *a, const void *b) {
  const tv_dev *x = *(const tv_dev *const *)a, *y = *(const tv_dev *const *)b;
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  return x < y ? -1 : x > y; /* TV-1 order within a GPU */
}

/* GM-6: the deviceProperties entry at position DEVICE into ROW. */
static int gmProperties(sqlite3_stmt *q, const hta_trace *t, int64_t device, hta_cell *row) {
  int rc;
  if (device < 0) return SQLITE_OK;
  sqlite3_bind_int64(q, 1, t->trace_id);
  sqlite3_bind_int64(q, 2, device);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    rc = SQLITE_OK;
    if (sqlite3_column_type(q, 0) != SQLITE_NULL)
      rc = hta_cell_text(&row[GM_NAME], (const char *)sqlite3_column_text(q, 0));
    if (sqlite3_column_type(q, 1) == SQLITE_INTEGER)
      hta_cell_int(&row[GM_MEMORY], sqlite3_column_int64(q, 1));
    if (rc == SQLITE_OK && sqlite3_column_type(q, 2) != SQLITE_NULL)
      rc = hta_cell_text(&row[GM_CC], (const char *)sqlite3_column_text(q, 2));
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_reset(q);
  return rc;
}

typedef struct gm_ctx {
  sqlite3 *db;
  hta_table *out;
  int quirks;  /* TB_Q_* bits for the tensor-core figures */
  int need_tc; /* a tensor-core column is read (GM-7) */
} gm_ctx;

/* GM-7: the tensor-core columns of the row of DEVICE. */
static void gmTensorCores(const tb_tc *tc, int64_t device, hta_cell *row) {
  for (int i = 0; tc->has_op_kernels && i < tc->ngpu; i++) {
    if (tc->gpu[i].device != device) continue;
    hta_cell_double(&row[GM_TC_KERNEL],
                    tc->gpu[i].kernel_ns
                        ? 100.0 * ((double)tc->gpu[i].tc_ns / (double)tc->gpu[i].kernel_ns)
                        : 0.0);
  }
  hta_cell_double(&row[GM_TC_ELIGIBLE],
                  tc->op_ns ? 100.0 * ((double)tc->eligible_ns / (double)tc->op_ns) : 0.0);
}

/* GM-1: M's kernels with a device, by (device, TV-1 order), into *PK (sqlite3_malloc'd;
** NULL and *N = 0 when there are none). SQLITE_OK or SQLITE_NOMEM. */
static int gmKernels(const tv_model *m, const tv_dev ***pk, size_t *pn) {
  size_t n = 0;
  *pk = 0;
  *pn = 0;
  for (size_t j = 0; j < m->ndev; j++) n += m->devs[j].kind == TV_KERNEL && m->devs[j].has_device;
  if (!n) return SQLITE_OK;
  const tv_dev **k = sqlite3_malloc64(n * sizeof *k);
  if (!k) return SQLITE_NOMEM;
  n = 0;
  for (size_t j = 0; j < m->ndev; j++)
    if (m->devs[j].kind == TV_KERNEL && m->devs[j].has_device) k[n++] = &m->devs[j];
  qsort(k, n, sizeof *k, gmDevCmp);
  *pk = k;
  *pn = n;
  return SQLITE_OK;
}

int tv_gpu_busy(const tv_model *m, tv_gpu **out, size_t *nout) {
  const tv_dev **k;
  size_t n, ng = 0;
  int64_t ws = 0, we = 0;
  *out = 0;
  *nout = 0;
  int rc = gmKernels(m, &k, &n);
  if (rc != SQLITE_OK || !n) return rc;
  hta_iv *iv = sqlite3_malloc64(n * sizeof *iv);
  tv_gpu *g = sqlite3_malloc64(n * sizeof *g);
  if (!iv || !g) {
    sqlite3_free(k);
    sqlite3_free(iv);
    sqlite3_free(g);
    return SQLITE_NOMEM;
  }
  if (m->nsteps) ws = m->steps[0].start, we = m->steps[m->nsteps - 1].end;
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo; hi < n && k[hi]->device == k[lo]->device; hi++)
      iv[hi - lo] = (hta_iv){k[hi]->ts, k[hi]->end};
    g[ng].device = k[lo]->device;
    g[ng++].busy = hta_iv_clip_length(iv, hta_iv_merge(iv, hi - lo), ws, we); /* GM-3 */
  }
  sqlite3_free(k);
  sqlite3_free(iv);
  *out = g;
  *nout = ng;
  return SQLITE_OK;
}

static int gmTrace(void *ctx, const hta_trace *t, const tv_model *m, int64_t origin) {
  gm_ctx *c = ctx;
  const tv_dev **k = 0;
  hta_iv *iv = 0;
  gm_point *pt = 0;
  sqlite3_stmt *q = 0;
  size_t n = 0;
  int rc = SQLITE_OK, has_tc = 0;
  tb_tc tc;
  int64_t ws = 0, we = 0;
  memset(&tc, 0, sizeof tc); /* gm_done frees it */
  if (m->nsteps) ws = m->steps[0].start, we = m->steps[m->nsteps - 1].end;
  rc = gmKernels(m, &k, &n);
  if (rc != SQLITE_OK || !n) return rc;
  iv = sqlite3_malloc64(n * sizeof *iv);
  pt = sqlite3_malloc64(2 * n * sizeof *pt);
  if (!iv || !pt) {
    rc = SQLITE_NOMEM;
    goto gm_done;
  }
  if (c->need_tc) { /* GM-7: the operator tree, only when read */
    tb_tree tr;
    rc = tb_tree_load(c->db, t, c->quirks, 0, &tr);
    if (rc == SQLITE_OK) rc = tb_tc_compute(&tr, &tc);
    tb_tree_free(&tr);
    has_tc = rc == SQLITE_OK;
    if (rc != SQLITE_OK) goto gm_done;
  }
  rc = hta_prepare(c->db, t->schema,
                   "SELECT json_extract(p, '$.name'), json_extract(p, '$.totalGlobalMem'),"
                   " json_extract(p, '$.computeMajor') || '.' || json_extract(p, '$.computeMinor')"
                   " FROM (SELECT json_extract(metadata, '$.deviceProperties[' || ?2 || ']') AS p"
                   " FROM $S.trace WHERE trace_id = ?1 AND json_valid(metadata))"
                   " WHERE json_type(p) = 'object'",
                   &q);
  for (size_t lo = 0, hi; rc == SQLITE_OK && lo < n; lo = hi) {
    gm_gpu g;
    hta_cell *row;
    for (hi = lo + 1; hi < n && k[hi]->device == k[lo]->device; hi++) {
    }
    rc = gmFigures(k + lo, hi - lo, ws, we, &g, iv, pt);
    if (rc != SQLITE_OK) break;
    if (!(row = hta_table_add_row(c->out))) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[GM_RANK], t->rank);
    hta_cell_int(&row[GM_DEVICE], k[lo]->device);
    if (m->nsteps) { /* GM-2 */
      hta_cell_double(&row[GM_KERNEL_TIME], (double)g.busy / 1000.0);
      hta_cell_double(&row[GM_WINDOW], (double)hta_sub_sat(we, ws) / 1000.0);
      hta_cell_double(&row[GM_WSTART], (double)hta_sub_sat(ws, origin) / 1000.0);
      hta_cell_double(&row[GM_WEND], (double)hta_sub_sat(we, origin) / 1000.0);
      if (we > ws) {
        double w = (double)hta_sub_sat(we, ws);
        hta_cell_double(&row[GM_UTIL], (double)g.busy / w);
        if (g.has_sm) hta_cell_double(&row[GM_SM], g.sm_weighted / w);
      }
      if (g.occ_time > 0) hta_cell_double(&row[GM_OCC], g.occ_weighted / (double)g.occ_time);
    }
    hta_cell_int(&row[GM_KERNELS], (int64_t)(hi - lo));
    hta_cell_int(&row[GM_TRACE_ID], t->trace_id);
    if (has_tc) gmTensorCores(&tc, k[lo]->device, row);
    rc = gmProperties(q, t, k[lo]->device, row);
  }
gm_done:
  tb_tc_free(&tc);
  sqlite3_finalize(q);
  sqlite3_free(k);
  sqlite3_free(iv);
  sqlite3_free(pt);
  return rc;
}

static int gmRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  gm_ctx c = {db, out, (int)a->p[GM_P_QUIRKS],
              (a->col_used >> GM_TC_KERNEL & 1) || (a->col_used >> GM_TC_ELIGIBLE & 1)};
  (void)pzErr;
  return tv_foreach(db, a, TV_LOAD_KERNEL_ARGS, gmTrace, &c);
}

const hta_tvf hta_gpu_metrics_tvf = {
    .name = "hta_gpu_metrics",
    .schema = gmSchema,
    .nvisible = GM_NVISIBLE,
    .rank_col = GM_RANK,
    .nparam = 1,
    .params = gmParams,
    .run = gmRun,
};

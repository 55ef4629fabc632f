/*
** breakdown_temporal.c: hta_temporal_breakdown, HTA's get_temporal_breakdown
** (spec 2.1 with deviations D1 and D5 of DESIGN.md 5).
**
**   SELECT * FROM hta_temporal_breakdown;
**   SELECT idle_time_pctg FROM hta_temporal_breakdown WHERE rank = 3;
**   SELECT * FROM hta_temporal_breakdown(1);   -- include_last_profiler_step
**
** Parameters (HIDDEN): include_last_profiler_step (0).
** Columns: rank, idle_time_us, compute_time_us, non_compute_time_us,
**          kernel_time_us, idle_time_pctg, compute_time_pctg,
**          non_compute_time_pctg, trace_id.
**
** Requirements (tests cite them as TB-n):
**  1. One row per trace that has GPU work after the last-ProfilerStep cut, in
**     (rank, trace_id) order; a trace without GPU rows has no row (HTA raised).
**  2. M = the merged intervals of every GPU row; kernel_time = end of the last
**     group - start of the first; idle = kernel_time - |M|; compute = the union
**     length of the COMPUTATION rows; non_compute = kernel_time - compute - idle
**     (busy time with no compute kernel: communication, memory, other).
**  3. X_pctg = 100 * X / kernel_time, not rounded; NULL when kernel_time is 0.
**  4. Times are exact: integer ns, reported as us (ns / 1000.0).
*/
#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define TB_SCHEMA                                                          \
  "CREATE TABLE x(rank INTEGER, idle_time_us REAL, compute_time_us REAL,"  \
  " non_compute_time_us REAL, kernel_time_us REAL, idle_time_pctg REAL,"   \
  " compute_time_pctg REAL, non_compute_time_pctg REAL, trace_id INTEGER," \
  " include_last_profiler_step HIDDEN)"
#define TB_RANK 0
#define TB_IDLE 1
#define TB_COMPUTE 2
#define TB_NON_COMPUTE 3
#define TB_KERNEL 4
#define TB_IDLE_PCTG 5
#define TB_COMPUTE_PCTG 6
#define TB_NON_COMPUTE_PCTG 7
#define TB_TRACE_ID 8
#define TB_NVISIBLE 9
#define TB_P_LAST 0 /* parameter index */

static const hta_param tbParams[] = {HTA_PARAM_LAST_STEP};

/* Appends T's row to the table CTX; SQLITE_OK or SQLITE_NOMEM. */
static int tbTrace(void *ctx, const hta_trace *t, const hta_gpu_rows *g) {
  hta_table *out = ctx;
  hta_iv *all, *comp;
  size_t nall, ncomp;
  int64_t kernel, idle, compute;
  if (g->n == 0) return SQLITE_OK; /* TB-1 */
  all = sqlite3_malloc64(2 * g->n * sizeof *all);
  if (!all) return SQLITE_NOMEM;
  comp = all + g->n;
  nall = hta_gpu_merged(g, HTA_KT_ANY, all); /* TB-2 */
  kernel = hta_sub_sat(all[nall - 1].end, all[0].start);
  idle = hta_sub_sat(kernel, hta_iv_length(all, nall));
  ncomp = hta_gpu_merged(g, HTA_KT_COMPUTATION, comp);
  compute = hta_iv_length(comp, ncomp);
  sqlite3_free(all);

  hta_cell *row = hta_table_add_row(out);
  if (!row) return SQLITE_NOMEM;
  int64_t non_compute = hta_sub_sat(hta_sub_sat(kernel, compute), idle);
  double k = (double)kernel;
  hta_cell_int(&row[TB_RANK], t->rank);
  hta_cell_double(&row[TB_IDLE], idle / 1000.0);
  hta_cell_double(&row[TB_COMPUTE], compute / 1000.0);
  hta_cell_double(&row[TB_NON_COMPUTE], non_compute / 1000.0);
  hta_cell_double(&row[TB_KERNEL], kernel / 1000.0);
  if (kernel != 0) { /* TB-3 */
    hta_cell_double(&row[TB_IDLE_PCTG], 100.0 * (idle / k));
    hta_cell_double(&row[TB_COMPUTE_PCTG], 100.0 * (compute / k));
    hta_cell_double(&row[TB_NON_COMPUTE_PCTG], 100.0 * (non_compute / k));
  }
  hta_cell_int(&row[TB_TRACE_ID], t->trace_id);
  return SQLITE_OK;
}

static int tbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, (int)a->p[TB_P_LAST], tbTrace, out);
}

const hta_tvf hta_temporal_breakdown_tvf = {
    "hta_temporal_breakdown", TB_SCHEMA, TB_NVISIBLE, TB_RANK, 1, tbParams, tbRun,
};

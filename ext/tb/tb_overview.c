/*
** tb_overview.c: the Overview of the PyTorch TensorBoard profiler plugin: each
** step's time split into the eight roles, and their means over the steps (its "Step
** Time Breakdown" and "Execution Summary"), over the model of tb_steps.c (TV-n).
** Also registers the plugin-view family (hta_register_tb_views).
**
**   SELECT step, kernel_us, dataloader_us, total_us FROM hta_step_time_breakdown;
**   SELECT role, mean_us, percentage FROM hta_execution_summary WHERE rank = 0 AND shown;
**
** No parameters. Columns (then `job`, as every analysis):
**   hta_step_time_breakdown: rank, step, kernel_us, memcpy_us, memset_us,
**     communication_us, runtime_us, dataloader_us, cpu_exec_us, other_us, total_us,
**     step_pos, step_start_us, step_end_us, host_start_us, host_end_us,
**     device_start_us, device_end_us, device_ops, trace_id
**   hta_execution_summary: rank, role, mean_us, percentage, shown, steps, trace_id
**
** Requirements (tests cite them as OV-n):
**  1. Each trace file on its own, whole (no last-ProfilerStep cut); rows in (rank,
**     trace_id) order, a trace without steps (TV-3's GPU-only case) gives none.
**  2. hta_step_time_breakdown: one row per kept step in the plugin's order (step_pos
**     0, 1, ...; names can repeat); the eight costs of TV-7 and total_us = the
**     window's length (their sum). step_start_us / step_end_us = the window,
**     host_* = the step event's own interval, device_* = first start / last end of
**     the device work it launched (NULL when none) and device_ops their number
**     (TV-4); these times are relative to the job's origin, as every ts_us.
**  3. hta_execution_summary: the eight roles by the plugin's names in priority
**     order, then "Average Step Time": mean_us = the role's cost summed over the
**     kept steps / their number; percentage = 100 * mean_us / the mean step time
**     (100 on the last row; NULL when the mean step time is 0). shown = 1 when the
**     plugin lists the row (TV-8: Kernel, Memcpy, Memset, Runtime with the GPU
**     columns, Communication with its time, the other four always); steps = the
**     number of kept steps.
*/
#include "tb/tb_model.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* hta_step_time_breakdown */
#define SB_RANK 0
#define SB_STEP 1
#define SB_COST 2 /* the eight roles, then total_us */
#define SB_TOTAL 10
#define SB_POS 11
#define SB_START 12 /* step, host and device start/end pairs */
#define SB_DEVICE_OPS 18
#define SB_TRACE_ID 19
#define SB_NVISIBLE 20
static const char sbSchema[] =
    "CREATE TABLE x(rank INTEGER, step TEXT, kernel_us REAL, memcpy_us REAL, memset_us REAL,"
    " communication_us REAL, runtime_us REAL, dataloader_us REAL, cpu_exec_us REAL,"
    " other_us REAL, total_us REAL, step_pos INTEGER, step_start_us REAL, step_end_us REAL,"
    " host_start_us REAL, host_end_us REAL, device_start_us REAL, device_end_us REAL,"
    " device_ops INTEGER, trace_id INTEGER)";

/* hta_execution_summary */
#define ES_RANK 0
#define ES_ROLE 1
#define ES_MEAN 2
#define ES_PCT 3
#define ES_SHOWN 4
#define ES_STEPS 5
#define ES_TRACE_ID 6
#define ES_NVISIBLE 7
static const char esSchema[] =
    "CREATE TABLE x(rank INTEGER, role TEXT, mean_us REAL, percentage REAL, shown INTEGER,"
    " steps INTEGER, trace_id INTEGER)";

static double ovUs(int64_t ns) { return (double)ns / 1000.0; }
static double ovRelUs(int64_t ts, int64_t origin) {
  return (double)hta_sub_sat(ts, origin) / 1000.0;
}

static int sbTrace(void *ctx, const hta_trace *t, const tv_model *m, int64_t origin) {
  hta_table *out = ctx;
  for (size_t i = 0; i < m->nsteps; i++) {
    const tv_step *s = &m->steps[i];
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    hta_cell_int(&row[SB_RANK], t->rank);
    if (hta_cell_text(&row[SB_STEP], s->name)) return SQLITE_NOMEM;
    for (int r = 0; r < TV_NROLE; r++) hta_cell_double(&row[SB_COST + r], ovUs(s->cost[r]));
    hta_cell_double(&row[SB_TOTAL], ovUs(hta_sub_sat(s->end, s->start)));
    hta_cell_int(&row[SB_POS], (int64_t)i);
    hta_cell_double(&row[SB_START], ovRelUs(s->start, origin));
    hta_cell_double(&row[SB_START + 1], ovRelUs(s->end, origin));
    hta_cell_double(&row[SB_START + 2], ovRelUs(s->host_start, origin));
    hta_cell_double(&row[SB_START + 3], ovRelUs(s->host_end, origin));
    if (s->dev_ops) {
      hta_cell_double(&row[SB_START + 4], ovRelUs(s->dev_start, origin));
      hta_cell_double(&row[SB_START + 5], ovRelUs(s->dev_end, origin));
    }
    hta_cell_int(&row[SB_DEVICE_OPS], s->dev_ops);
    hta_cell_int(&row[SB_TRACE_ID], t->trace_id);
  }
  return SQLITE_OK;
}

static int sbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return tv_foreach(db, a, 0, sbTrace, out);
}

static int esTrace(void *ctx, const hta_trace *t, const tv_model *m, int64_t origin) {
  hta_table *out = ctx;
  int64_t sum[TV_NROLE + 1] = {0}; /* the roles, then the windows */
  (void)origin;
  if (!m->nsteps) return SQLITE_OK; /* OV-1 */
  for (size_t i = 0; i < m->nsteps; i++) {
    for (int r = 0; r < TV_NROLE; r++) sum[r] = hta_add_sat(sum[r], m->steps[i].cost[r]);
    sum[TV_NROLE] = hta_add_sat(sum[TV_NROLE], hta_sub_sat(m->steps[i].end, m->steps[i].start));
  }
  for (int r = 0; r <= TV_NROLE; r++) {
    hta_cell *row = hta_table_add_row(out);
    int shown = 1;
    if (!row) return SQLITE_NOMEM;
    if (r == TV_KERNEL || r == TV_MEMCPY || r == TV_MEMSET || r == TV_RUNTIME)
      shown = tv_shows_gpu(m);
    else if (r == TV_COMM) shown = tv_has_comm(m);
    hta_cell_int(&row[ES_RANK], t->rank);
    hta_cell_static(&row[ES_ROLE], r < TV_NROLE ? tv_role_names[r] : "Average Step Time");
    hta_cell_double(&row[ES_MEAN], (double)sum[r] / (double)m->nsteps / 1000.0);
    if (sum[TV_NROLE] != 0)
      hta_cell_double(&row[ES_PCT],
                      r < TV_NROLE ? 100.0 * ((double)sum[r] / (double)sum[TV_NROLE]) : 100.0);
    hta_cell_int(&row[ES_SHOWN], shown);
    hta_cell_int(&row[ES_STEPS], (int64_t)m->nsteps);
    hta_cell_int(&row[ES_TRACE_ID], t->trace_id);
  }
  return SQLITE_OK;
}

static int esRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return tv_foreach(db, a, 0, esTrace, out);
}

static const hta_tvf hta_step_time_breakdown_tvf = {
    .name = "hta_step_time_breakdown",
    .schema = sbSchema,
    .nvisible = SB_NVISIBLE,
    .rank_col = SB_RANK,
    .nparam = 0,
    .params = 0,
    .run = sbRun,
};

static const hta_tvf hta_execution_summary_tvf = {
    .name = "hta_execution_summary",
    .schema = esSchema,
    .nvisible = ES_NVISIBLE,
    .rank_col = ES_RANK,
    .nparam = 0,
    .params = 0,
    .run = esRun,
};

int hta_register_tb_views(sqlite3 *db) {
  static const hta_tvf *const defs[] = {
      &hta_step_time_breakdown_tvf, &hta_execution_summary_tvf,    &hta_gpu_metrics_tvf,
      &hta_distributed_overlap_tvf, &hta_distributed_comm_ops_tvf,
  };
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

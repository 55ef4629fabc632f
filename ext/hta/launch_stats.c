/*
** launch_stats.c: kernel launch statistics (spec hta_semantics.md 2.5 with the
** deviations D9 and D15 of DESIGN.md 5). One eponymous table-valued function:
**
**   SELECT * FROM hta_kernel_launch_stats WHERE rank = 0;
**   SELECT * FROM hta_kernel_launch_stats(0, 20, 50);   -- no memcpy/memset launches
**   SELECT launch_name, count(*), avg(launch_delay_us)
**     FROM hta_kernel_launch_stats GROUP BY launch_name;
**
** hta_kernel_launch_stats(include_memory_events=1, runtime_cutoff_us=50,
**     launch_delay_cutoff_us=100, include_last_profiler_step=0)
**   columns: rank, correlation, launch_name, kernel_name, cpu_duration_us,
**            gpu_duration_us, launch_delay_us, is_short_kernel,
**            is_runtime_outlier, is_launch_delay_outlier, trace_id
**
** Requirements (tests cite them as LS-n):
**  1. Launches are host rows named cudaLaunchKernel, cudaLaunchKernelExC,
**     cuLaunchKernel, cuLaunchKernelEx, runFunction -
**     job_prep_and_submit_for_execution, hipLaunchKernel,
**     hipExtModuleLaunchKernel or hipModuleLaunchKernel (D9, D15); with
**     include_memory_events != 0 also cudaMemcpyAsync, cudaMemsetAsync,
**     hipMemcpyAsync and hipMemsetAsync.
**  2. One row per GPU row (event.stream NOT NULL, D5) whose correlated partner
**     (link_id, made on equal correlation ids as HTA's index_correlation) is a
**     launch. That is HTA's inner join on correlation wherever a correlation id
**     belongs to one host row, which holds in every Kineto trace.
**  3. The last-ProfilerStep cut applies as in every analysis (hta_gpu_load): a
**     launch at or after the cut goes, and its GPU rows with it, unless
**     include_last_profiler_step != 0.
**  4. cpu_duration_us = the launch's dur, gpu_duration_us = the GPU row's dur,
**     launch_delay_us = max(0, gpu.ts - launch.ts - launch.dur), all REAL µs
**     computed from integer ns.
**  5. is_short_kernel = cpu_duration_us <= runtime_cutoff_us AND
**     gpu_duration_us < cpu_duration_us; is_runtime_outlier = cpu_duration_us >
**     runtime_cutoff_us; is_launch_delay_outlier = launch_delay_us >
**     launch_delay_cutoff_us (HTA's plot definitions, returned as 0/1 columns).
**  6. Rows come ordered by (rank, trace_id, launch seq, GPU row seq): HTA's join
**     order. WHERE rank = N runs over rank N only; no launch gives no rows.
**
** HOW IT WORKS: hta_gpu_load() returns every trace's GPU rows after the cut,
** each with the name, ts and dur of its linked host row. The launch names are
** looked up once in the string table; a GPU row whose launch_name_id is one
** of them makes a row. Rows are sorted by (launch, GPU row) event_id.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Visible columns. */
#define LS_RANK 0
#define LS_CORRELATION 1
#define LS_LAUNCH_NAME 2
#define LS_KERNEL_NAME 3
#define LS_CPU_DURATION 4
#define LS_GPU_DURATION 5
#define LS_LAUNCH_DELAY 6
#define LS_IS_SHORT 7
#define LS_IS_RUNTIME_OUTLIER 8
#define LS_IS_DELAY_OUTLIER 9
#define LS_TRACE_ID 10
#define LS_NVISIBLE 11
/* Parameters (hta_tvf_args.p[]). */
#define LS_P_MEMORY 0
#define LS_P_RUNTIME_CUTOFF 1
#define LS_P_DELAY_CUTOFF 2
#define LS_P_LAST_STEP 3
#define LS_NPARAM 4
static const char lsSchema[] =
    "CREATE TABLE x(rank INTEGER, correlation INTEGER, launch_name TEXT, kernel_name TEXT,"
    " cpu_duration_us REAL, gpu_duration_us REAL, launch_delay_us REAL,"
    " is_short_kernel INTEGER, is_runtime_outlier INTEGER, is_launch_delay_outlier INTEGER,"
    " trace_id INTEGER,"
    " include_memory_events HIDDEN, runtime_cutoff_us HIDDEN, launch_delay_cutoff_us HIDDEN,"
    " include_last_profiler_step HIDDEN)";

/* LS-1: kernel launches first, then the memory launches. */
static const char *const lsKernelLaunches[] = {
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipModuleLaunchKernel",
};
static const char *const lsMemoryLaunches[] = {
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "hipMemcpyAsync",
    "hipMemsetAsync",
};
#define LS_NKERNEL (sizeof lsKernelLaunches / sizeof lsKernelLaunches[0])
#define LS_NMEMORY (sizeof lsMemoryLaunches / sizeof lsMemoryLaunches[0])
#define LS_MAXLAUNCH (LS_NKERNEL + LS_NMEMORY)

/* The launch names present in the database, with their string ids. */
typedef struct ls_names {
  int32_t id[LS_MAXLAUNCH];
  const char *name[LS_MAXLAUNCH]; /* static strings */
  int n;
} ls_names;

/* One output row before sorting: the GPU row and its launch. */
typedef struct ls_pair {
  const hta_gpu *g;
  const char *launch_name;
} ls_pair;

/* Looks up NAMES[0..n) in the string table and appends those present to OUT. */
static int lsLookup(sqlite3 *db, const char *schema, const char *const *names, size_t n,
                    ls_names *out) {
  int32_t ids[LS_MAXLAUNCH];
  int rc = hta_string_ids(db, schema, names, n, ids);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    if (ids[i] < 0) continue;
    out->id[out->n] = ids[i];
    out->name[out->n++] = names[i];
  }
  return rc;
}

/* The launch name whose string id is ID, or NULL when ID is not a launch. */
static const char *lsLaunchName(const ls_names *ln, int32_t id) {
  for (int i = 0; i < ln->n; i++) {
    if (ln->id[i] == id) return ln->name[i];
  }
  return 0;
}

/* LS-6: by launch, then by GPU row (both event ids, hence file order). */
static int lsPairCmp(const void *a, const void *b) {
  const hta_gpu *x = ((const ls_pair *)a)->g, *y = ((const ls_pair *)b)->g;
  if (x->link_id != y->link_id) return x->link_id < y->link_id ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* What lsTrace needs besides the trace. */
typedef struct ls_ctx {
  const ls_names *ln;
  const hta_tvf_args *a;
  hta_table *out;
} ls_ctx;

/* hta_gpu_foreach callback: appends the rows of trace T to the table. */
static int lsTrace(void *pctx, const hta_trace *t, const hta_gpu_rows *g) {
  const ls_ctx *x = pctx;
  const hta_tvf_args *a = x->a;
  ls_pair *pairs = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *pairs);
  size_t np = 0;
  int rc = SQLITE_OK;
  if (!pairs) return SQLITE_NOMEM;
  for (size_t i = 0; i < g->n; i++) { /* LS-2 */
    const char *name = g->a[i].link_id ? lsLaunchName(x->ln, g->a[i].launch_name_id) : 0;
    if (!name) continue;
    pairs[np].g = &g->a[i];
    pairs[np++].launch_name = name;
  }
  qsort(pairs, np, sizeof *pairs, lsPairCmp);
  for (size_t i = 0; i < np; i++) {
    const hta_gpu *k = pairs[i].g;
    int64_t delay = hta_sub_sat(hta_sub_sat(k->ts, k->launch_ts), k->launch_dur);
    double cpu_us = (double)k->launch_dur / 1000.0, gpu_us = (double)k->dur / 1000.0;
    double delay_us = (double)(delay > 0 ? delay : 0) / 1000.0; /* LS-4 */
    const char *kname = hta_gpu_name(g, k->name_id);
    hta_cell *row = hta_table_add_row(x->out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[LS_RANK], t->rank);
    hta_cell_int(&row[LS_CORRELATION], k->correlation);
    hta_cell_static(&row[LS_LAUNCH_NAME], pairs[i].launch_name);
    if (kname) {
      rc = hta_cell_text(&row[LS_KERNEL_NAME], kname);
      if (rc != SQLITE_OK) break;
    }
    hta_cell_double(&row[LS_CPU_DURATION], cpu_us);
    hta_cell_double(&row[LS_GPU_DURATION], gpu_us);
    hta_cell_double(&row[LS_LAUNCH_DELAY], delay_us);
    /* LS-5 */
    hta_cell_int(&row[LS_IS_SHORT], cpu_us <= a->p[LS_P_RUNTIME_CUTOFF] && gpu_us < cpu_us);
    hta_cell_int(&row[LS_IS_RUNTIME_OUTLIER], cpu_us > a->p[LS_P_RUNTIME_CUTOFF]);
    hta_cell_int(&row[LS_IS_DELAY_OUTLIER], delay_us > a->p[LS_P_DELAY_CUTOFF]);
    hta_cell_int(&row[LS_TRACE_ID], t->trace_id);
  }
  sqlite3_free(pairs);
  return rc;
}

static int lsRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  ls_names ln;
  ls_ctx x = {&ln, a, out};
  int rc;
  (void)pzErr;
  memset(&ln, 0, sizeof ln);
  rc = lsLookup(db, a->scope.schema, lsKernelLaunches, LS_NKERNEL, &ln);
  if (rc == SQLITE_OK && a->p[LS_P_MEMORY] != 0) {
    rc = lsLookup(db, a->scope.schema, lsMemoryLaunches, LS_NMEMORY, &ln);
  }
  if (rc != SQLITE_OK) return rc;
  if (ln.n == 0) return SQLITE_OK; /* no launch anywhere: no rows */
  return hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, a->p[LS_P_LAST_STEP] != 0, lsTrace,
                         &x);
}

static const hta_param lsParams[LS_NPARAM] = {
    {"include_memory_events", 0, 1, 0, 1, "0 or 1"},
    {"runtime_cutoff_us", 1, 50, 0, 1e18, "a number >= 0"},
    {"launch_delay_cutoff_us", 1, 100, 0, 1e18, "a number >= 0"},
    HTA_PARAM_LAST_STEP,
};

static const hta_tvf lsTvf = {
    .name = "hta_kernel_launch_stats",
    .schema = lsSchema,
    .nvisible = LS_NVISIBLE,
    .rank_col = LS_RANK,
    .nparam = LS_NPARAM,
    .params = lsParams,
    .run = lsRun,
};

int hta_register_launch(sqlite3 *db) { return hta_tvf_register(db, &lsTvf); }

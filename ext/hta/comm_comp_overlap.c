/*
** comm_comp_overlap.c: hta_comm_comp_overlap, HTA's get_comm_comp_overlap
** (spec 2.4 with deviations D1 and D5 of DESIGN.md 5).
**
**   SELECT * FROM hta_comm_comp_overlap;
**   SELECT comp_comm_overlap_pctg FROM hta_comm_comp_overlap WHERE rank = 1;
**
** Parameters (HIDDEN): include_last_profiler_step (0).
** Columns: rank, comp_comm_overlap_pctg, trace_id.
**
** Requirements (tests cite them as CC-n):
**  1. One row per loaded trace, in (rank, trace_id) order, GPU work or not.
**  2. A = the merged COMMUNICATION rows, B = the merged COMPUTATION rows;
**     comp_comm_overlap_pctg = 100 * |A intersect B| / |A|: the share of the
**     communication time during which computation runs. Not rounded.
**  3. No communication time (|A| = 0): NULL (HTA's NaN).
*/
#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define CC_SCHEMA                                                               \
  "CREATE TABLE x(rank INTEGER, comp_comm_overlap_pctg REAL, trace_id INTEGER," \
  " include_last_profiler_step HIDDEN)"
#define CC_RANK 0
#define CC_PCTG 1
#define CC_TRACE_ID 2
#define CC_NVISIBLE 3
#define CC_P_LAST 0

static const hta_param ccParams[] = {HTA_PARAM_LAST_STEP};

static int ccTrace(void *ctx, const hta_trace *t, const hta_gpu_rows *g) {
  hta_table *out = ctx;
  hta_iv *buf = 0, *lists[2];
  size_t counts[2] = {0, 0};
  int64_t state[4] = {0, 0, 0, 0};
  int64_t comm = 0;
  hta_cell *row;

  if (g->n) {
    buf = sqlite3_malloc64(g->n * sizeof *buf);
    if (!buf) return SQLITE_NOMEM;
    lists[0] = buf; /* bit 0: communication */
    counts[0] = hta_gpu_merged(g, HTA_KT_COMMUNICATION, lists[0]);
    lists[1] = buf + counts[0]; /* bit 1: computation */
    counts[1] = hta_gpu_merged(g, HTA_KT_COMPUTATION, lists[1]);
    comm = hta_iv_length(lists[0], counts[0]);
    int rc = hta_iv_sweep(lists, counts, 2, state); /* CC-2 */
    sqlite3_free(buf);
    if (rc != SQLITE_OK) return rc;
  }
  row = hta_table_add_row(out);
  if (!row) return SQLITE_NOMEM;
  hta_cell_int(&row[CC_RANK], t->rank);
  if (comm != 0) hta_cell_double(&row[CC_PCTG], 100.0 * ((double)state[3] / (double)comm));
  hta_cell_int(&row[CC_TRACE_ID], t->trace_id);
  return SQLITE_OK;
}

static int ccRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, (int)a->p[CC_P_LAST], ccTrace, out);
}

const hta_tvf hta_comm_comp_overlap_tvf = {
    "hta_comm_comp_overlap", CC_SCHEMA, CC_NVISIBLE, CC_RANK, 1, ccParams, ccRun,
};

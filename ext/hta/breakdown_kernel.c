/*
** breakdown_kernel.c: hta_kernel_type_breakdown and hta_kernel_breakdown, the two
** tables of HTA's get_gpu_kernel_breakdown (spec 2.2 with deviations D1, D3, D5
** and D12 of DESIGN.md 5).
**
**   SELECT * FROM hta_kernel_type_breakdown;              -- all ranks summed
**   SELECT * FROM hta_kernel_type_breakdown(0) WHERE rank = 1;   -- without MEMORY
**   SELECT * FROM hta_kernel_breakdown;                   -- top kernels per rank/type
**   SELECT * FROM hta_kernel_breakdown(1.0, 100000);      -- every kernel name
**   SELECT name, count, mean_us FROM hta_kernel_breakdown
**    WHERE rank = 0 AND kernel_type = 'COMMUNICATION';
**
** hta_kernel_type_breakdown
**   Parameters (HIDDEN): include_memory_kernels (1), include_last_profiler_step (0);
**   rank is a hidden column too: WHERE rank = N sums that rank only.
**   Columns: kernel_type, sum_us, percentage.
** hta_kernel_breakdown
**   Parameters (HIDDEN): duration_ratio (0.8), num_kernels (10),
**   include_memory_kernels (1), include_last_profiler_step (0).
**   Columns: rank, kernel_type, name, count, sum_us, max_us, min_us, mean_us,
**            stddev_us, trace_id.
**
** Requirements (tests cite them as KB-n):
**  1. Types analysed: COMPUTATION, COMMUNICATION, and MEMORY when
**     include_memory_kernels = 1. OTHER rows (syncs...) are never reported.
**  2. Kernel types: each type's GPU rows are merged; the merged lists are swept
**     together and each stretch of time goes to the label naming the types active
**     in it, in the order COMPUTATION, COMMUNICATION, MEMORY, joined by
**     " overlapping ". Lengths are exact (D12). Sums add over the traces.
**  3. Changes at one instant apply together (interval.c IV-3): a label that only
**     exists at an instant has no row (HTA printed it with sum 0 or not,
**     depending on its sort's tie order). Rows: sum descending, then label.
**  4. percentage = 100 * sum / total of all rows, not rounded.
**  5. Per kernel (per trace and type): every name's count, sum, max, min, mean and
**     sample std (ddof 1; 0 for a single instance) over its instances.
**  6. With more than num_kernels names: order names by sum descending (ties by
**     name); cumsum = the running sum in that order; q = the duration_ratio
**     quantile of the cumsums (linear, pandas); a name folds into "others" when
**     its cumsum > q or its 0-based position >= num_kernels (both rules, HTA's).
**     "others" reports the statistics over all instances of the folded names (D3).
**  7. Rows come by (rank, trace_id, kernel_type), then the kept names by sum
**     descending (ties by name, byte order) and "others" last: the biggest first,
**     as a reader of the table expects.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The analysed types, in HTA's bit order (KB-1, KB-2). */
static const int kbTypes[3] = {HTA_KT_COMPUTATION, HTA_KT_COMMUNICATION, HTA_KT_MEMORY};

/* ---------------------------------------------------------------- kernel type breakdown */

#define KTB_SCHEMA                                                 \
  "CREATE TABLE x(kernel_type TEXT, sum_us REAL, percentage REAL," \
  " include_memory_kernels HIDDEN, include_last_profiler_step HIDDEN, rank HIDDEN)"
#define KTB_KERNEL_TYPE 0
#define KTB_SUM 1
#define KTB_PERCENTAGE 2
#define KTB_NVISIBLE 3
#define KTB_RANK 5 /* hidden, after the two parameters */
#define KTB_P_MEMORY 0
#define KTB_P_LAST 1

static const hta_param ktbParams[] = {
    {"include_memory_kernels", 0, 1.0, 0.0, 1.0, "0 or 1"},
    HTA_PARAM_LAST_STEP,
};

typedef struct ktb_ctx {
  int ntypes;       /* 2 or 3 */
  int64_t total[8]; /* ns per label bitmask, summed over traces */
} ktb_ctx;

static int ktbTrace(void *pctx, const hta_trace *t, const hta_gpu_rows *g) {
  ktb_ctx *k = pctx;
  hta_iv *buf, *lists[3];
  size_t counts[3] = {0, 0, 0};
  int64_t out[8] = {0};
  int rc;
  (void)t;
  if (g->n == 0) return SQLITE_OK;
  buf = sqlite3_malloc64(g->n * sizeof *buf);
  if (!buf) return SQLITE_NOMEM;
  /* Lay the types out one after another in BUF. */
  size_t off = 0;
  for (int l = 0; l < k->ntypes; l++) {
    lists[l] = buf + off;
    counts[l] = hta_gpu_merged(g, kbTypes[l], lists[l]);
    off += counts[l];
  }
  rc = hta_iv_sweep(lists, counts, k->ntypes, out); /* KB-2 */
  sqlite3_free(buf);
  for (int m = 1; m < 8; m++) k->total[m] = hta_add_sat(k->total[m], out[m]);
  return rc;
}

typedef struct ktb_label {
  int mask;
  int64_t ns;
  char name[80];
} ktb_label;

static int ktbLabelCmp(const void *a, const void *b) {
  const ktb_label *x = a, *y = b;
  if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1; /* KB-3 */
  return strcmp(x->name, y->name);
}

static int ktbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  ktb_ctx k;
  ktb_label lab[8];
  int nlab = 0, rc;
  int64_t all = 0;
  (void)pzErr;
  memset(&k, 0, sizeof k);
  k.ntypes = a->p[KTB_P_MEMORY] != 0 ? 3 : 2;
  rc = hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, (int)a->p[KTB_P_LAST], ktbTrace, &k);
  if (rc != SQLITE_OK) return rc;
  for (int m = 1; m < (1 << k.ntypes); m++) {
    if (k.total[m] <= 0) continue;
    ktb_label *l = &lab[nlab++];
    l->mask = m;
    l->ns = k.total[m];
    l->name[0] = 0;
    for (int b = 0; b < k.ntypes; b++) {
      if (!(m >> b & 1)) continue;
      if (l->name[0]) strcat(l->name, " overlapping ");
      strcat(l->name, hta_kernel_type_name(kbTypes[b]));
    }
    all = hta_add_sat(all, l->ns);
  }
  qsort(lab, nlab, sizeof lab[0], ktbLabelCmp);
  for (int i = 0; i < nlab; i++) {
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    rc = hta_cell_text(&row[KTB_KERNEL_TYPE], lab[i].name);
    if (rc != SQLITE_OK) return rc;
    hta_cell_double(&row[KTB_SUM], lab[i].ns / 1000.0);
    hta_cell_double(&row[KTB_PERCENTAGE], 100.0 * (double)lab[i].ns / (double)all); /* KB-4 */
  }
  return SQLITE_OK;
}

const hta_tvf hta_kernel_type_breakdown_tvf = {
    "hta_kernel_type_breakdown", KTB_SCHEMA, KTB_NVISIBLE, KTB_RANK, 2, ktbParams, ktbRun,
};

/* ---------------------------------------------------------------- kernel breakdown */

#define KB_SCHEMA                                                                         \
  "CREATE TABLE x(rank INTEGER, kernel_type TEXT, name TEXT, count INTEGER, sum_us REAL," \
  " max_us REAL, min_us REAL, mean_us REAL, stddev_us REAL, trace_id INTEGER,"            \
  " duration_ratio HIDDEN, num_kernels HIDDEN, include_memory_kernels HIDDEN,"            \
  " include_last_profiler_step HIDDEN)"
#define KB_RANK 0
#define KB_KERNEL_TYPE 1
#define KB_NAME 2
#define KB_COUNT 3
#define KB_SUM 4
#define KB_MAX 5
#define KB_MIN 6
#define KB_MEAN 7
#define KB_STDDEV 8
#define KB_TRACE_ID 9
#define KB_NVISIBLE 10
#define KB_P_RATIO 0
#define KB_P_NUM 1
#define KB_P_MEMORY 2
#define KB_P_LAST 3

static const hta_param kbParams[] = {
    {"duration_ratio", 1, 0.8, 0.0, 1.0, "a number between 0 and 1"},
    {"num_kernels", 0, 10.0, 0.0, 1e15, "a non-negative integer"},
    {"include_memory_kernels", 0, 1.0, 0.0, 1.0, "0 or 1"},
    HTA_PARAM_LAST_STEP,
};

typedef struct kb_ctx {
  hta_table *out;
  double ratio;
  int64_t num_kernels;
  int with_memory;
} kb_ctx;

typedef struct kb_row { /* an instance: its name slot and duration */
  int32_t slot;
  int64_t dur;
} kb_row;

static int kbRowCmp(const void *a, const void *b) {
  const kb_row *x = a, *y = b;
  return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* KB-7: sum descending, ties by name, "others" (the row of the folded names) last. */
static int kbOutCmp(const void *a, const void *b) {
  const hta_topk_row *x = a, *y = b;
  int xo = !strcmp(x->name, "others"), yo = !strcmp(y->name, "others");
  if (xo != yo) return xo - yo;
  if (x->sum_us != y->sum_us) return x->sum_us > y->sum_us ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The rows of type KT of one trace (KB-5, KB-6 through hta_topk_aggregate). */
static int kbType(kb_ctx *k, const hta_trace *t, const hta_gpu_rows *g, int kt) {
  kb_row *r = 0;
  int64_t *dur = 0;
  hta_topk_group *grp = 0;
  hta_topk_row *rows = 0;
  size_t n = 0, ng = 0, nrows = 0;
  int rc = SQLITE_NOMEM;

  r = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *r);
  if (!r) goto kb_done;
  for (size_t i = 0; i < g->n; i++) {
    if (g->a[i].kernel_type == kt) r[n++] = (kb_row){g->a[i].name_slot, g->a[i].dur};
  }
  if (n == 0) {
    rc = SQLITE_OK;
    goto kb_done;
  }
  qsort(r, n, sizeof *r, kbRowCmp);
  dur = sqlite3_malloc64(n * sizeof *dur);
  grp = sqlite3_malloc64(n * sizeof *grp);
  if (!dur || !grp) goto kb_done;
  for (size_t i = 0; i < n; i++) {
    dur[i] = r[i].dur;
    if (i == 0 || r[i].slot != r[i - 1].slot) {
      grp[ng++] = (hta_topk_group){g->names[r[i].slot], dur + i, 0};
    }
    grp[ng - 1].n++;
  }
  rc = hta_topk_aggregate(grp, ng, k->num_kernels, k->ratio, &rows, &nrows);
  if (rc == SQLITE_OK) qsort(rows, nrows, sizeof *rows, kbOutCmp);
  for (size_t i = 0; rc == SQLITE_OK && i < nrows; i++) {
    hta_cell *row = hta_table_add_row(k->out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[KB_RANK], t->rank);
    hta_cell_static(&row[KB_KERNEL_TYPE], hta_kernel_type_name(kt));
    rc = hta_cell_text(&row[KB_NAME], rows[i].name);
    hta_cells_topk(row, KB_COUNT, &rows[i]); /* KB_COUNT .. KB_STDDEV */
    hta_cell_int(&row[KB_TRACE_ID], t->trace_id);
  }

kb_done:
  hta_topk_free(rows, nrows);
  sqlite3_free(r);
  sqlite3_free(dur);
  sqlite3_free(grp);
  return rc;
}

static int kbTrace(void *pctx, const hta_trace *t, const hta_gpu_rows *g) {
  kb_ctx *k = pctx;
  /* Type names sort as COMMUNICATION < COMPUTATION < MEMORY (KB-7). */
  static const int order[3] = {HTA_KT_COMMUNICATION, HTA_KT_COMPUTATION, HTA_KT_MEMORY};
  for (int i = 0; i < 3; i++) {
    if (order[i] == HTA_KT_MEMORY && !k->with_memory) continue;
    int rc = kbType(k, t, g, order[i]);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

static int kbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  kb_ctx k;
  (void)pzErr;
  k.out = out;
  k.ratio = a->p[KB_P_RATIO];
  k.num_kernels = (int64_t)a->p[KB_P_NUM];
  k.with_memory = a->p[KB_P_MEMORY] != 0;
  return hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, (int)a->p[KB_P_LAST], kbTrace, &k);
}

const hta_tvf hta_kernel_breakdown_tvf = {
    "hta_kernel_breakdown", KB_SCHEMA, KB_NVISIBLE, KB_RANK, 4, kbParams, kbRun,
};

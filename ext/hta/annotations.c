/*
** annotations.c: user-annotation breakdown, profiler steps and potential
** stragglers (spec hta_semantics.md 2.12, 3; DESIGN.md 4). Three eponymous
** table-valued functions, read-only:
**
**   SELECT * FROM hta_user_annotation_breakdown;               -- gpu_user_annotation rows
**   SELECT * FROM hta_user_annotation_breakdown(0, 1.0, 100000) WHERE rank = 1;
**   SELECT * FROM hta_profiler_steps;
**   SELECT DISTINCT step FROM hta_profiler_steps ORDER BY step; -- HTA get_profiler_steps()
**   SELECT * FROM hta_potential_stragglers(3);
**
** hta_user_annotation_breakdown(use_gpu_annotation=1, duration_ratio=0.8,
**     num_kernels=1000, include_last_profiler_step=0)
**   columns: rank, name, count, sum_us, max_us, min_us, mean_us, stddev_us, trace_id
** hta_profiler_steps(include_last_profiler_step=0)
**   columns: rank, step, ts, dur, trace_id
** hta_potential_stragglers(num_candidates=2, include_last_profiler_step=0)
**   columns: rank, straggler_count
** Every one also takes WHERE rank = N (for stragglers it filters the output:
** the analysis itself always compares all ranks).
**
** Requirements (numbered so tests can cite them):
**  R1. Every analysis runs on HTA's loaded table: the last-ProfilerStep cut of
**      hta_traces_load() applies unless include_last_profiler_step = 1.
**      Annotation rows (user_annotation and gpu_user_annotation alike) are host
**      rows in our schema (stream NULL) and HTA's cut treats them as CPU-like:
**      a row stays when ts < cut_ts.
**  R2. The user-annotation breakdown groups the rows of category
**      gpu_user_annotation (use_gpu_annotation != 0) or user_annotation of each
**      trace by full name and folds names into "others" with the kernel
**      breakdown's rule and D3 statistics (shared code: hta_topk_aggregate()).
**      Rows ordered by (rank, trace_id, name). No rows when the category is absent.
**  R3. hta_profiler_steps lists the host ProfilerStep#N rows (table
**      profiler_step) that survive the cut, ordered by (rank, trace_id, step, ts).
**      ts and dur are REAL microseconds; ts is absolute (the trace's own clock,
**      not shifted to the job's first event), so ts * 1000 = profiler_step.ts.
**  R4. Potential stragglers (spec 3, HTA analyzers/straggler.py):
**      a. S = the distinct step numbers > 0 of R3 over all ranks (HTA's default
**         profiler_steps); no step -> no rows.
**      b. mean_iter = (max(ts + dur) - min(ts)) / |S| over the kept rows of all
**         traces whose iteration is in S.
**      c. Comm kernels: GPU rows with stream > 0, iteration in S, name starting
**         with ncclKernel or ncclDevKernel (newer NCCL), dur >= 1% of mean_iter,
**         kept by the cut (their launch stays).
**      d. The last such kernel (row order) per (rank, stream, iteration, name).
**      e. Per (stream, name): the mean over iterations of the across-rank sample
**         std of dur / mean_iter (iterations with < 2 ranks give NaN and are
**         skipped). The (stream, name) with the largest mean wins (first in
**         (stream, name) order on ties); when every mean is NaN (one rank only)
**         there is no row.
**      f. For that kernel, per iteration: metric = ts - min(ts over the ranks);
**         the ranks whose metric >= the num_candidates-th largest metric (all
**         ranks when fewer) count one straggle each.
**      g. Output: the num_candidates ranks with the highest counts, ordered by
**         count descending then rank ascending; then WHERE rank filters.
**
** HOW IT WORKS: each table is an hta_tvf (vtab_util.c: the generic eponymous
** module with HIDDEN numeric parameters and the rank constraint). Its run()
** reads the normalized tables with SQL on the same connection and fills an
** hta_table; the generic cursor hands the rows out.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- shared helpers */

/* ns -> µs, rounded once: epoch-scale ns do not fit a double exactly, µs do (R3). */
static double annUs(int64_t ns) { return (double)(ns / 1000) + (double)(ns % 1000) / 1000.0; }

/* Growable int64 array. */
typedef struct ann_vec {
  int64_t *a;
  size_t n, nAlloc;
} ann_vec;

static int annPush(ann_vec *v, int64_t x) {
  if (v->n == v->nAlloc) {
    size_t n = v->nAlloc ? v->nAlloc * 2 : 64;
    int64_t *a = sqlite3_realloc64(v->a, n * sizeof(int64_t));
    if (!a) return SQLITE_NOMEM;
    v->a = a;
    v->nAlloc = n;
  }
  v->a[v->n++] = x;
  return SQLITE_OK;
}

/* *pId = category_id of zCat, or -1 when the category is absent. */
static int annCategoryId(sqlite3 *db, const char *schema, const char *zCat, sqlite3_int64 *pId) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema, "SELECT category_id FROM $S.category WHERE name = ?1", &st);
  *pId = -1;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, zCat, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *pId = sqlite3_column_int64(st, 0);
  rc = sqlite3_finalize(st);
  return rc;
}

/* ================================================================ user-annotation breakdown */

#define UAB_RANK 0
#define UAB_NAME 1
#define UAB_COUNT 2
#define UAB_SUM_US 3
#define UAB_MAX_US 4
#define UAB_MIN_US 5
#define UAB_MEAN_US 6
#define UAB_STDDEV_US 7
#define UAB_TRACE_ID 8
#define UAB_NOUT 9
/* parameters (HIDDEN) */
#define UAB_P_USE_GPU 0
#define UAB_P_DURATION_RATIO 1
#define UAB_P_NUM_KERNELS 2
#define UAB_P_INCLUDE_LAST 3
static const char uabSchema[] =
    "CREATE TABLE x(rank INTEGER, name TEXT, count INTEGER, sum_us REAL, max_us REAL,"
    " min_us REAL, mean_us REAL, stddev_us REAL, trace_id INTEGER,"
    " use_gpu_annotation HIDDEN, duration_ratio HIDDEN, num_kernels HIDDEN,"
    " include_last_profiler_step HIDDEN)";

/* The instances of one trace, grouped by name (rows come ordered by name_id). */
typedef struct uab_acc {
  char **azName;  /* one per group, sqlite3_malloc'd */
  size_t *aStart; /* group g = dur.a[aStart[g] .. aStart[g+1]) */
  ann_vec dur;    /* ns */
  size_t nGroup, nGroupAlloc;
} uab_acc;

static void uabAccReset(uab_acc *a) {
  for (size_t g = 0; g < a->nGroup; g++) sqlite3_free(a->azName[g]);
  a->nGroup = a->dur.n = 0;
}

static void uabAccFree(uab_acc *a) {
  uabAccReset(a);
  sqlite3_free(a->azName);
  sqlite3_free(a->aStart);
  sqlite3_free(a->dur.a);
  memset(a, 0, sizeof(*a));
}

/* Starts a new group named z; SQLITE_NOMEM on failure. */
static int uabAccGroup(uab_acc *a, const char *z) {
  if (a->nGroup + 1 >= a->nGroupAlloc) {
    size_t n = a->nGroupAlloc ? a->nGroupAlloc * 2 : 64;
    char **az = sqlite3_realloc64(a->azName, n * sizeof(char *));
    if (!az) return SQLITE_NOMEM;
    a->azName = az;
    size_t *as = sqlite3_realloc64(a->aStart, (n + 1) * sizeof(size_t));
    if (!as) return SQLITE_NOMEM;
    a->aStart = as;
    a->nGroupAlloc = n;
  }
  a->azName[a->nGroup] = sqlite3_mprintf("%s", z ? z : "");
  if (!a->azName[a->nGroup]) return SQLITE_NOMEM;
  a->aStart[a->nGroup] = a->dur.n;
  a->nGroup++;
  a->aStart[a->nGroup] = a->dur.n;
  return SQLITE_OK;
}

static int uabAccDur(uab_acc *a, int64_t dur) {
  int rc = annPush(&a->dur, dur);
  if (rc == SQLITE_OK) a->aStart[a->nGroup] = a->dur.n;
  return rc;
}

/* Aggregates one trace's groups (R2) and appends its rows, ordered by name. */
static int uabEmit(const hta_tvf_args *args, const hta_trace *t, uab_acc *a, hta_table *out) {
  hta_topk_group *aGroup = 0;
  hta_topk_row *aRow = 0;
  size_t nRow = 0, g;
  int rc = SQLITE_OK;
  if (a->nGroup == 0) return SQLITE_OK;
  aGroup = sqlite3_malloc64(a->nGroup * sizeof(*aGroup));
  if (!aGroup) return SQLITE_NOMEM;
  for (g = 0; g < a->nGroup; g++) {
    aGroup[g].name = a->azName[g];
    aGroup[g].dur = &a->dur.a[a->aStart[g]];
    aGroup[g].n = a->aStart[g + 1] - a->aStart[g];
  }
  rc = hta_topk_aggregate(aGroup, a->nGroup, (int64_t)args->p[UAB_P_NUM_KERNELS],
                          args->p[UAB_P_DURATION_RATIO], &aRow, &nRow);
  for (g = 0; rc == SQLITE_OK && g < nRow; g++) {
    hta_cell *row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[UAB_RANK], t->rank);
    rc = hta_cell_text(&row[UAB_NAME], aRow[g].name);
    hta_cells_topk(row, UAB_COUNT, &aRow[g]); /* UAB_COUNT .. UAB_STDDEV_US */
    hta_cell_int(&row[UAB_TRACE_ID], t->trace_id);
  }
  hta_topk_free(aRow, nRow);
  sqlite3_free(aGroup);
  return rc;
}

static int uabRun(sqlite3 *db, const hta_tvf_args *args, hta_table *out, char **pzErr) {
  static const char zSql[] =
      "SELECT e.name_id, s.value, e.dur FROM $S.event e"
      " JOIN $S.string s ON s.string_id = e.name_id"
      " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.category_id = ?3"
      " AND e.dur IS NOT NULL AND e.ts < ?4"
      " ORDER BY e.name_id";
  hta_traces tr;
  uab_acc acc;
  sqlite3_stmt *st = 0;
  sqlite3_int64 catId;
  int rc, i;
  memset(&tr, 0, sizeof(tr));
  memset(&acc, 0, sizeof(acc));
  rc = annCategoryId(db, args->scope.schema,
                     args->p[UAB_P_USE_GPU] != 0 ? "gpu_user_annotation" : "user_annotation",
                     &catId);
  if (rc != SQLITE_OK || catId < 0) return rc; /* R2: no such category, no rows */
  rc = hta_traces_load(db, &args->scope, args->has_rank, args->rank,
                       args->p[UAB_P_INCLUDE_LAST] != 0, &tr);
  if (rc == SQLITE_OK) rc = hta_prepare(db, args->scope.schema, zSql, &st);
  for (i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    const hta_trace *t = &tr.a[i];
    int hasPrev = 0;
    sqlite3_int64 prevId = 0;
    uabAccReset(&acc);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
    sqlite3_bind_int64(st, 3, catId);
    sqlite3_bind_int64(st, 4, hta_trace_cut_bound(t));
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      sqlite3_int64 nameId = sqlite3_column_int64(st, 0);
      rc = SQLITE_OK;
      if (!hasPrev || nameId != prevId) {
        rc = uabAccGroup(&acc, (const char *)sqlite3_column_text(st, 1));
        hasPrev = 1;
        prevId = nameId;
      }
      if (rc == SQLITE_OK) rc = uabAccDur(&acc, sqlite3_column_int64(st, 2));
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
    if (rc == SQLITE_OK) rc = uabEmit(args, t, &acc, out);
  }
  sqlite3_finalize(st);
  uabAccFree(&acc);
  hta_traces_free(&tr);
  return rc;
}

/* ================================================================ profiler steps */

#define PST_RANK 0
#define PST_STEP 1
#define PST_TS 2
#define PST_DUR 3
#define PST_TRACE_ID 4
#define PST_NOUT 5
#define PST_P_INCLUDE_LAST 0
static const char pstSchema[] =
    "CREATE TABLE x(rank INTEGER, step INTEGER, ts REAL, dur REAL, trace_id INTEGER,"
    " include_last_profiler_step HIDDEN)";

static int pstRun(sqlite3 *db, const hta_tvf_args *args, hta_table *out, char **pzErr) {
  static const char zSql[] =
      "SELECT step, ts, dur FROM $S.profiler_step WHERE trace_id = ?1 AND ts < ?2"
      " ORDER BY step, ts, event_id";
  hta_traces tr;
  sqlite3_stmt *st = 0;
  int rc, i;
  memset(&tr, 0, sizeof(tr));
  rc = hta_traces_load(db, &args->scope, args->has_rank, args->rank,
                       args->p[PST_P_INCLUDE_LAST] != 0, &tr);
  if (rc == SQLITE_OK) rc = hta_prepare(db, args->scope.schema, zSql, &st);
  for (i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    const hta_trace *t = &tr.a[i];
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, t->trace_id);
    sqlite3_bind_int64(st, 2, hta_trace_cut_bound(t));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      hta_cell *row = hta_table_add_row(out);
      if (!row) {
        rc = SQLITE_NOMEM;
        break;
      }
      hta_cell_int(&row[PST_RANK], t->rank);
      hta_cell_int(&row[PST_STEP], sqlite3_column_int64(st, 0));
      hta_cell_double(&row[PST_TS], annUs(sqlite3_column_int64(st, 1)));
      hta_cell_double(&row[PST_DUR], (double)sqlite3_column_int64(st, 2) / 1000.0);
      hta_cell_int(&row[PST_TRACE_ID], t->trace_id);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  hta_traces_free(&tr);
  return rc;
}

/* ================================================================ potential stragglers */

#define STG_RANK 0
#define STG_COUNT 1
#define STG_NOUT 2
#define STG_P_NUM_CANDIDATES 0
#define STG_P_INCLUDE_LAST 1
static const char stgSchema[] =
    "CREATE TABLE x(rank INTEGER, straggler_count INTEGER,"
    " num_candidates HIDDEN, include_last_profiler_step HIDDEN)";

/* One communication kernel (R4c). */
typedef struct stg_kernel {
  int64_t rank, stream, iteration, nameId;
  int64_t ts, dur; /* ns */
  int64_t ord;     /* row order: the event_id */
  int nameOrd;     /* position of the name in byte order */
} stg_kernel;

static int stgCmpI64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int stgHas(const ann_vec *v, int64_t x) {
  return bsearch(&x, v->a, v->n, sizeof(int64_t), stgCmpI64) != 0;
}

/* (stream, name, iteration, rank, row order): groups R4d/R4e in HTA's groupby order. */
static int stgCmpKernel(const void *a, const void *b) {
  const stg_kernel *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  if (x->nameOrd != y->nameOrd) return x->nameOrd < y->nameOrd ? -1 : 1;
  if (x->iteration != y->iteration) return x->iteration < y->iteration ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->ord > y->ord) - (x->ord < y->ord);
}

/* A communication-kernel name: its name_id and its position in byte order. */
typedef struct stg_name {
  int64_t nameId;
  int ord;
} stg_name;

static int stgCmpNameId(const void *a, const void *b) {
  int64_t x = ((const stg_name *)a)->nameId, y = ((const stg_name *)b)->nameId;
  return (x > y) - (x < y);
}

typedef struct stg_count {
  int64_t rank, count;
} stg_count;

static int stgCmpCount(const void *a, const void *b) {
  const stg_count *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
** The communication-kernel names (R4c) with their byte order (SQLite's BINARY
** collation is memcmp), sorted by name_id for bsearch. *paName: sqlite3_free.
*/
static int stgNames(sqlite3 *db, const char *schema, stg_name **paName, size_t *pnName) {
  static const char zSql[] =
      "SELECT string_id FROM $S.string"
      " WHERE value GLOB 'ncclKernel*' OR value GLOB 'ncclDevKernel*' ORDER BY value";
  sqlite3_stmt *st = 0;
  stg_name *a = 0;
  size_t n = 0, nAlloc = 0;
  int rc = hta_prepare(db, schema, zSql, &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    if (n == nAlloc) {
      size_t m = nAlloc ? nAlloc * 2 : 16;
      stg_name *b = sqlite3_realloc64(a, m * sizeof(*b));
      if (!b) {
        rc = SQLITE_NOMEM;
        break;
      }
      a = b;
      nAlloc = m;
    }
    a[n].nameId = sqlite3_column_int64(st, 0);
    a[n].ord = (int)n;
    n++;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  if (n > 1) qsort(a, n, sizeof(stg_name), stgCmpNameId);
  *paName = a;
  *pnName = n;
  return rc;
}

/* R4a: the kept step numbers > 0 of every trace, sorted and distinct. */
static int stgSteps(sqlite3 *db, const hta_traces *tr, ann_vec *steps) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, tr->scope.schema,
                       "SELECT DISTINCT step FROM $S.profiler_step"
                       " WHERE trace_id = ?1 AND ts < ?2 AND step > 0",
                       &st);
  for (int i = 0; rc == SQLITE_OK && i < tr->n; i++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, tr->a[i].trace_id);
    sqlite3_bind_int64(st, 2, hta_trace_cut_bound(&tr->a[i]));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      rc = annPush(steps, sqlite3_column_int64(st, 0));
      if (rc != SQLITE_OK) break;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK || steps->n == 0) return rc;
  qsort(steps->a, steps->n, sizeof(int64_t), stgCmpI64);
  size_t k = 0;
  for (size_t i = 0; i < steps->n; i++) {
    if (k == 0 || steps->a[k - 1] != steps->a[i]) steps->a[k++] = steps->a[i];
  }
  steps->n = k;
  return SQLITE_OK;
}

/*
** The kept rows of trace T (R1: host rows by their ts, GPU rows by their launch's
** ts) as an SQL condition on event e; ?3 is the cut bound.
*/
#define STG_KEPT                                                    \
  " ((e.stream IS NULL AND e.ts < ?3) OR (e.stream IS NOT NULL AND" \
  " (SELECT l.ts FROM $S.event l WHERE l.event_id = e.link_id) < ?3))"

/* R4b: *pMin / *pMax over the kept rows of iterations in S. *pAny = 0 when none. */
static int stgSpan(sqlite3 *db, const hta_traces *tr, const ann_vec *steps, int64_t *pMin,
                   int64_t *pMax, int *pAny) {
  static const char zSql[] =
      "SELECT e.iteration, min(e.ts), max(e.ts + e.dur) FROM $S.event e"
      " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.iteration > 0 AND e.dur IS NOT NULL"
      " AND e.category_id IS NOT NULL AND e.category_id <> ?4 AND" STG_KEPT " GROUP BY e.iteration";
  sqlite3_stmt *st = 0;
  sqlite3_int64 traceCat;
  int rc = annCategoryId(db, tr->scope.schema, "Trace", &traceCat);
  *pAny = 0;
  if (rc == SQLITE_OK) rc = hta_prepare(db, tr->scope.schema, zSql, &st);
  for (int i = 0; rc == SQLITE_OK && i < tr->n; i++) {
    const hta_trace *t = &tr->a[i];
    sqlite3_reset(st);
    hta_bind_trace_scan(st, t);
    sqlite3_bind_int64(st, 4, traceCat);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2);
      if (!stgHas(steps, sqlite3_column_int64(st, 0))) continue;
      if (!*pAny || lo < *pMin) *pMin = lo;
      if (!*pAny || hi > *pMax) *pMax = hi;
      *pAny = 1;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* R4c: the communication kernels of every trace, in (trace, row) order. */
static int stgKernels(sqlite3 *db, const hta_traces *tr, const ann_vec *steps,
                      const stg_name *aName, size_t nName, double minDur, stg_kernel **paK,
                      size_t *pnK) {
  static const char zSql[] =
      "SELECT e.stream, e.iteration, e.name_id, e.ts, e.dur, e.event_id FROM $S.event e"
      " WHERE e.trace_id = ?4 AND e.event_id BETWEEN ?1 AND ?2 AND e.stream > 0 AND e.iteration > 0"
      " AND e.dur IS NOT NULL AND e.name_id IN (SELECT string_id FROM $S.string"
      "  WHERE value GLOB 'ncclKernel*' OR value GLOB 'ncclDevKernel*') AND" STG_KEPT;
  sqlite3_stmt *st = 0;
  stg_kernel *a = 0;
  size_t n = 0, nAlloc = 0;
  int rc = hta_prepare(db, tr->scope.schema, zSql, &st);
  for (int i = 0; rc == SQLITE_OK && i < tr->n; i++) {
    const hta_trace *t = &tr->a[i];
    sqlite3_reset(st);
    /* the rowid range, or the index event_gpu (trace_id, stream, ...) when it exists */
    hta_bind_trace_scan(st, t);
    sqlite3_bind_int64(st, 4, t->trace_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      stg_kernel k;
      stg_name key, *pName;
      rc = SQLITE_OK;
      k.rank = t->rank;
      k.stream = sqlite3_column_int64(st, 0);
      k.iteration = sqlite3_column_int64(st, 1);
      k.nameId = sqlite3_column_int64(st, 2);
      k.ts = sqlite3_column_int64(st, 3);
      k.dur = sqlite3_column_int64(st, 4);
      k.ord = sqlite3_column_int64(st, 5); /* row order: event_id grows with trace_id, seq */
      if (!stgHas(steps, k.iteration) || !((double)k.dur >= minDur)) continue;
      key.nameId = k.nameId;
      pName = bsearch(&key, aName, nName, sizeof(stg_name), stgCmpNameId);
      if (!pName) continue;
      k.nameOrd = pName->ord;
      if (n == nAlloc) {
        size_t m = nAlloc ? nAlloc * 2 : 64;
        stg_kernel *b = sqlite3_realloc64(a, m * sizeof(*b));
        if (!b) {
          rc = SQLITE_NOMEM;
          break;
        }
        a = b;
        nAlloc = m;
      }
      a[n++] = k;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  *paK = a;
  *pnK = n;
  return rc;
}

/*
** R4d on the kernels sorted by stgCmpKernel: keeps the last row per
** (stream, name, iteration, rank) in place and returns the new count.
*/
static size_t stgLastPerGroup(stg_kernel *a, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k > 0 && a[k - 1].stream == a[i].stream && a[k - 1].nameOrd == a[i].nameOrd &&
        a[k - 1].iteration == a[i].iteration && a[k - 1].rank == a[i].rank) {
      a[k - 1] = a[i]; /* a later row of the same group */
    } else {
      a[k++] = a[i];
    }
  }
  return k;
}

/* Is a[j] in the same (stream, name) as a[i]? Same iteration too when withIter. */
static int stgSame(const stg_kernel *x, const stg_kernel *y, int withIter) {
  return x->stream == y->stream && x->nameOrd == y->nameOrd &&
         (!withIter || x->iteration == y->iteration);
}

/*
** R4e on the kernels of stgLastPerGroup: [*pLo, *pHi) = the (stream, name) group
** with the largest mean across-rank std. aV: scratch for nK doubles. Returns 0
** when every mean is NaN (one rank only).
*/
static int stgPick(const stg_kernel *aK, size_t nK, double meanIter, double *aV, size_t *pLo,
                   size_t *pHi) {
  double bestScore = NAN;
  size_t i, j;
  for (i = 0; i < nK; i = j) {
    double sum = 0.0;
    int nStd = 0;
    size_t g, h;
    for (j = i; j < nK && stgSame(&aK[i], &aK[j], 0); j++) {
    }
    for (g = i; g < j; g = h) { /* one iteration: the ranks' dur / mean_iter */
      size_t m = 0;
      for (h = g; h < j && stgSame(&aK[g], &aK[h], 1); h++) aV[m++] = (double)aK[h].dur / meanIter;
      if (m >= 2) {
        double mean, sd;
        hta_mean_std(aV, m, &mean, &sd);
        sum += sd;
        nStd++;
      }
    }
    if (nStd > 0 && (isnan(bestScore) || sum / nStd > bestScore)) {
      bestScore = sum / nStd;
      *pLo = i;
      *pHi = j;
    }
  }
  return !isnan(bestScore);
}

/*
** R4f-g for the kernels aK[lo, hi) of one (stream, name), sorted by iteration
** then rank: *paCount (sqlite3_free) = each straggling rank and its count, by
** count descending then rank.
*/
static int stgCount(const stg_kernel *aK, size_t lo, size_t hi, int64_t nCand, stg_count **paCount,
                    size_t *pnCount) {
  int64_t *aDelta = sqlite3_malloc64((hi - lo) * sizeof(int64_t));
  int64_t *aRank = sqlite3_malloc64((hi - lo) * sizeof(int64_t));
  stg_count *aCount = sqlite3_malloc64((hi - lo) * sizeof(stg_count));
  size_t i, j, nRank = 0, nCount = 0;
  *paCount = 0;
  *pnCount = 0;
  if (!aDelta || !aRank || !aCount) {
    sqlite3_free(aDelta);
    sqlite3_free(aRank);
    sqlite3_free(aCount);
    return SQLITE_NOMEM;
  }
  for (i = lo; i < hi; i = j) { /* one iteration */
    int64_t t0 = aK[i].ts, thr;
    size_t m = 0;
    for (j = i; j < hi && aK[j].iteration == aK[i].iteration; j++) {
      if (aK[j].ts < t0) t0 = aK[j].ts;
    }
    for (size_t h = i; h < j; h++) aDelta[m++] = hta_sub_sat(aK[h].ts, t0);
    qsort(aDelta, m, sizeof(int64_t), stgCmpI64);
    thr = (int64_t)m > nCand ? aDelta[m - (size_t)nCand] : aDelta[0];
    for (size_t h = i; h < j; h++) {
      if (hta_sub_sat(aK[h].ts, t0) >= thr) aRank[nRank++] = aK[h].rank;
    }
  }
  qsort(aRank, nRank, sizeof(int64_t), stgCmpI64);
  for (i = 0; i < nRank; i++) {
    if (nCount == 0 || aCount[nCount - 1].rank != aRank[i]) {
      aCount[nCount].rank = aRank[i];
      aCount[nCount].count = 0;
      nCount++;
    }
    aCount[nCount - 1].count++;
  }
  if (nCount > 1) qsort(aCount, nCount, sizeof(stg_count), stgCmpCount);
  sqlite3_free(aDelta);
  sqlite3_free(aRank);
  *paCount = aCount;
  *pnCount = nCount;
  return SQLITE_OK;
}

static int stgRun(sqlite3 *db, const hta_tvf_args *args, hta_table *out, char **pzErr) {
  hta_traces tr;
  ann_vec steps = {0, 0, 0};
  stg_name *aName = 0;
  stg_kernel *aK = 0;
  stg_count *aCount = 0;
  double *aV = 0, meanIter;
  size_t nName = 0, nK = 0, nCount = 0, lo = 0, hi = 0, i;
  int64_t tMin = 0, tMax = 0, nCand = (int64_t)args->p[STG_P_NUM_CANDIDATES];
  int rc, any = 0;
  memset(&tr, 0, sizeof(tr));
  rc = hta_traces_load(db, &args->scope, 0, 0, args->p[STG_P_INCLUDE_LAST] != 0, &tr);
  if (rc == SQLITE_OK) rc = stgSteps(db, &tr, &steps); /* R4a */
  if (rc != SQLITE_OK || steps.n == 0) goto stg_end;
  rc = stgSpan(db, &tr, &steps, &tMin, &tMax, &any); /* R4b */
  if (rc != SQLITE_OK || !any) goto stg_end;
  meanIter = (double)hta_sub_sat(tMax, tMin) / (double)steps.n;
  if (!(meanIter > 0.0)) goto stg_end;
  rc = stgNames(db, args->scope.schema, &aName, &nName);
  if (rc != SQLITE_OK || nName == 0) goto stg_end;
  rc = stgKernels(db, &tr, &steps, aName, nName, 0.01 * meanIter, &aK, &nK); /* R4c */
  if (rc != SQLITE_OK || nK == 0) goto stg_end;
  if (hta_interrupted(db)) {
    rc = SQLITE_INTERRUPT;
    goto stg_end;
  }
  qsort(aK, nK, sizeof(stg_kernel), stgCmpKernel);
  nK = stgLastPerGroup(aK, nK); /* R4d */
  aV = sqlite3_malloc64(nK * sizeof(double));
  if (!aV) {
    rc = SQLITE_NOMEM;
    goto stg_end;
  }
  if (!stgPick(aK, nK, meanIter, aV, &lo, &hi)) goto stg_end;             /* R4e */
  rc = stgCount(aK, lo, hi, nCand, &aCount, &nCount);                     /* R4f */
  for (i = 0; rc == SQLITE_OK && i < nCount && (int64_t)i < nCand; i++) { /* R4g */
    hta_cell *row;
    if (args->has_rank && aCount[i].rank != args->rank) continue;
    row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[STG_RANK], aCount[i].rank);
    hta_cell_int(&row[STG_COUNT], aCount[i].count);
  }

stg_end:
  sqlite3_free(aName);
  sqlite3_free(aK);
  sqlite3_free(aV);
  sqlite3_free(aCount);
  sqlite3_free(steps.a);
  hta_traces_free(&tr);
  return rc;
}

/* ================================================================ registration */

static const hta_param uabParams[] = {
    {"use_gpu_annotation", 0, 1.0, 0.0, 1.0, "0 or 1"},
    {"duration_ratio", 1, 0.8, 0.0, 1.0, "a number between 0 and 1"},
    {"num_kernels", 0, 1000, 0, 1e15, "a non-negative integer"},
    HTA_PARAM_LAST_STEP,
};
static const hta_param pstParams[] = {
    HTA_PARAM_LAST_STEP,
};
static const hta_param stgParams[] = {
    {"num_candidates", 0, 2, 1, 1e15, "a positive integer"},
    HTA_PARAM_LAST_STEP,
};

static const hta_tvf annTvfs[] = {
    {"hta_user_annotation_breakdown", uabSchema, UAB_NOUT, UAB_RANK, 4, uabParams, uabRun},
    {"hta_profiler_steps", pstSchema, PST_NOUT, PST_RANK, 1, pstParams, pstRun},
    {"hta_potential_stragglers", stgSchema, STG_NOUT, STG_RANK, 2, stgParams, stgRun},
};

/* Registers the three tables; returns the first failing rc. */
int hta_register_annotations(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(annTvfs) / sizeof(annTvfs[0]); i++) {
    rc = hta_tvf_register(db, &annTvfs[i]);
  }
  return rc;
}

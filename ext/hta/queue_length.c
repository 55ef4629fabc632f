/*
** queue_length.c: the per-stream queue of launched but not yet started GPU work
** (spec hta_semantics.md 2.7 with the deviations D10 and D15 of DESIGN.md 5).
** Three eponymous table-valued functions, registered by counters.c:
**
**   SELECT * FROM hta_queue_length WHERE rank = 0;
**   SELECT * FROM hta_queue_length(0, 1);          -- one point per timestamp
**   SELECT * FROM hta_queue_length_summary;
**   SELECT * FROM hta_queue_full_time(2);          -- time spent at >= 2 queued
**   SELECT * FROM hta_queue_length_summary WHERE hta_tie_order = 1;  -- HTA's
**
** hta_queue_length(include_last_profiler_step=0, collapse_ties=0, hta_tie_order=0)
**   columns: rank, stream, ts_us, queue_length, trace_id
** hta_queue_length_summary(include_last_profiler_step=0, collapse_ties=0,
**     hta_tie_order=0)
**   columns: rank, stream, count, mean, std, min, p25, p50, p75, max, trace_id
** hta_queue_full_time(max_queue_length=1024, include_last_profiler_step=0,
**     hta_tie_order=0)
**   columns: rank, stream, duration_at_max_us, relative_duration, trace_id
**
** Requirements (tests cite them as QL-n):
**  1. Runtime calls: host rows named cudaLaunchKernel, cudaLaunchKernelExC,
**     cuLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync, cudaMemsetAsync,
**     runFunction - job_prep_and_submit_for_execution, hipLaunchKernel,
**     hipExtModuleLaunchKernel, hipModuleLaunchKernel (D15), hipMemcpyAsync,
**     hipMemsetAsync or hipMemcpyWithStream.
**  2. Every GPU row (event.stream NOT NULL, D5) linked to a runtime call makes
**     two changes on its stream: +1 at the call's ts and -1 at its own ts (the
**     queue drops when the work starts, as in HTA). The last-ProfilerStep cut
**     applies (hta_gpu_load) unless include_last_profiler_step != 0. A GPU row
**     at traceEvents position 0 does not count: HTA's index_correlation uses
**     index 0 for "no partner", so its runtime call is not a runtime row there
**     (spec 1.9; corpus job hta_trace_file_list).
**  3. Tie order (HTA sorts with numpy's unstable quicksort; ours is stable):
**     per stream, by ts; at equal ts every +1 comes before every -1; +1 changes
**     in (call, GPU row) event_id order, -1 changes in GPU row event_id order.
**     So a queue never dips below zero at an instant where work is launched and
**     starts. hta_tie_order = 1 reproduces HTA's order exactly instead: numpy
**     1.24's quicksort argsort (hta_np_argsort, spec Appendix A) by ts of [the
**     +1 changes in (call, GPU row) order, then the -1 changes in GPU row
**     order], then per stream; the summary then equals HTA's
**     get_queue_length_summary, intermediate points at tied ts included.
**  4. queue_length = the running sum of the changes of the stream in that order;
**     one point per change. ts_us is relative to the earliest kept event of the
**     whole database (hta_traces.job_min_ts), as HTA aligns every rank.
**  5. collapse_ties = 1 keeps only the last point at each (stream, ts): the
**     queue length after every change at that instant. These series, and the
**     summaries over them, do not depend on the tie order (the *_at_ts files of
**     the expected outputs).
**  6. The summary is pandas' describe() of queue_length over the points of each
**     (trace, stream), every point counting once (not weighted by time); std is
**     NULL for one point.
**  7. Full queue (D10: every stream, not only the last): per stream,
**     duration_at_max_us = the sum of (next point's ts - ts) over the points with
**     queue_length >= max_queue_length (the last point adds nothing);
**     relative_duration = that / (max ts - min ts over every row of the trace
**     that the analyses keep: host rows before the cut and the GPU rows). A
**     stream has a row when any point reaches the maximum, even for zero time;
**     since +1 changes come first at a tie (QL-3), that is every stream whose
**     queue can reach the maximum in some order of its tied changes (with
**     hta_tie_order = 1: exactly HTA's rows).
**  8. Rows come ordered by (rank, trace_id, stream, ts_us, QL-3); a trace with
**     no runtime-linked GPU row has no rows; WHERE rank = N runs over rank N.
**
** HOW IT WORKS: hta_gpu_load() gives each trace's GPU rows after the cut, each
** with the name and ts of its linked host row. The runtime names are looked up
** once in the string table. The +1/-1 changes of a trace are a stepwise series
** (step_series.h, shared with memory_bw.c), keyed by stream, sorted by (stream,
** ts, QL-3) and summed per stream into the points, which become the rows, the
** summary, or (hta_queue_length_points) C points for hta_write_trace_with_counters
** (io_counters.c).
*/
#include <stdlib.h>
#include <string.h>

#include "hta/step_series.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* hta_queue_length */
#define QL_RANK 0
#define QL_STREAM 1
#define QL_TS 2
#define QL_QUEUE_LENGTH 3
#define QL_TRACE_ID 4
#define QL_NVISIBLE 5
#define QL_P_LAST_STEP 0
#define QL_P_COLLAPSE 1
#define QL_P_TIE_ORDER 2
static const char qlSchema[] =
    "CREATE TABLE x(rank INTEGER, stream INTEGER, ts_us REAL, queue_length INTEGER,"
    " trace_id INTEGER, include_last_profiler_step HIDDEN, collapse_ties HIDDEN,"
    " hta_tie_order HIDDEN)";

/* hta_queue_length_summary */
#define QS_RANK 0
#define QS_STREAM 1
#define QS_COUNT 2
#define QS_MEAN 3
#define QS_STD 4
#define QS_MIN 5
#define QS_P25 6
#define QS_P50 7
#define QS_P75 8
#define QS_MAX 9
#define QS_TRACE_ID 10
#define QS_NVISIBLE 11
static const char qsSchema[] =
    "CREATE TABLE x(rank INTEGER, stream INTEGER, count INTEGER, mean REAL, std REAL,"
    " min REAL, p25 REAL, p50 REAL, p75 REAL, max REAL, trace_id INTEGER,"
    " include_last_profiler_step HIDDEN, collapse_ties HIDDEN, hta_tie_order HIDDEN)";

/* hta_queue_full_time */
#define QF_RANK 0
#define QF_STREAM 1
#define QF_DURATION 2
#define QF_RELATIVE 3
#define QF_TRACE_ID 4
#define QF_NVISIBLE 5
#define QF_P_MAX 0
#define QF_P_LAST_STEP 1
#define QF_P_TIE_ORDER 2
static const char qfSchema[] =
    "CREATE TABLE x(rank INTEGER, stream INTEGER, duration_at_max_us REAL,"
    " relative_duration REAL, trace_id INTEGER,"
    " max_queue_length HIDDEN, include_last_profiler_step HIDDEN, hta_tie_order HIDDEN)";

/* QL-1: hta_queue_launch_names (names.c) */
#define qlRuntimeNames hta_queue_launch_names
#define QL_NRUNTIME HTA_NQUEUE_LAUNCH

/* The runtime names' string ids present in the database. */
typedef struct ql_ids {
  int32_t id[QL_NRUNTIME];
  int n;
} ql_ids;

static int qlLookup(sqlite3 *db, const char *schema, ql_ids *out) {
  int32_t ids[QL_NRUNTIME];
  int rc = hta_string_ids(db, schema, qlRuntimeNames, QL_NRUNTIME, ids);
  memset(out, 0, sizeof *out);
  for (size_t i = 0; rc == SQLITE_OK && i < QL_NRUNTIME; i++) {
    if (ids[i] >= 0) out->id[out->n++] = ids[i];
  }
  return rc;
}

static int qlIsRuntime(const ql_ids *ids, int32_t id) {
  for (int i = 0; i < ids->n; i++) {
    if (ids->id[i] == id) return 1;
  }
  return 0;
}

/* 1 when GPU row K counts for the queue (QL-2). */
static int qlCounts(const ql_ids *ids, const hta_gpu *k) {
  if (!k->link_id || !qlIsRuntime(ids, k->launch_name_id)) return 0;
  return k->seq != 0; /* HTA: traceEvents position 0 means "no partner" */
}

/* What a run builds and emits with. */
typedef struct ql_ctx {
  hta_series_ctx base; /* how the rows look, collapse_ties */
  ql_ids ids;          /* QL-1 */
  int hta_order;       /* hta_tie_order */
  double max_q;        /* hta_queue_full_time's max_queue_length */
} ql_ctx;

/* Builds the series of trace T into *S (QL-2..4; freed by the caller). */
static int qlBuild(void *ctx, sqlite3 *db, const hta_trace *t, const hta_classifier *cls,
                   hta_series *s) {
  const ql_ctx *c = ctx;
  hta_gpu_rows g;
  size_t nlinked = 0;
  int rc = hta_gpu_load(db, t, cls, &g);
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < g.n; i++) {
    nlinked += qlCounts(&c->ids, &g.a[i]);
  }
  s->a = sqlite3_malloc64((nlinked ? 2 * nlinked : 1) * sizeof *s->a);
  if (!s->a) {
    hta_gpu_free(&g);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < g.n; i++) {
    const hta_gpu *k = &g.a[i];
    hta_series_pt *p;
    if (!s->has_gpu || k->ts < s->gpu_min_ts) s->gpu_min_ts = k->ts;
    if (!s->has_gpu || k->ts > s->gpu_max_ts) s->gpu_max_ts = k->ts;
    s->has_gpu = 1;
    if (!qlCounts(&c->ids, k)) continue;
    p = &s->a[s->n]; /* the +1 change, first at a tie (QL-3); its -1 goes nlinked places later */
    memset(p, 0, sizeof *p);
    p->key = k->stream;
    p->ts = k->launch_ts;
    p->delta = 1;
    p->opens = 1;
    p->id1 = k->link_id;
    p->id2 = k->event_id;
    p = &s->a[s->n + nlinked];
    memset(p, 0, sizeof *p);
    p->key = k->stream;
    p->ts = k->ts;
    p->delta = -1;
    p->opens = -1;
    p->tie = 1;
    p->id1 = k->event_id; /* -1 changes by GPU row (QL-3) */
    p->id2 = k->event_id;
    s->n++;
  }
  hta_gpu_free(&g);
  s->n = 2 * s->n;
  /* QL-3 (HTA's order: the +1 changes by call, then GPU row, before the argsort), QL-4 */
  return hta_series_order(s, c->hta_order, nlinked, 0);
}

static const hta_series_def qlDef = {.int_values = 1};

/* Runs EMIT over the series of every trace of the query with C (its ids looked up
** here; no runtime call anywhere: no rows). */
static int qlForEachTrace(sqlite3 *db, const hta_tvf_args *a, ql_ctx *c, int include_last_step,
                          hta_series_emit emit, hta_table *out) {
  int rc = qlLookup(db, a->scope.schema, &c->ids);
  if (rc != SQLITE_OK || c->ids.n == 0) return rc;
  return hta_series_each_trace(db, a, include_last_step, qlBuild, emit, c, out);
}

/* ---------------------------------------------------------------- hta_queue_length */

static int qlRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  ql_ctx c = {{&qlDef, a->p[QL_P_COLLAPSE] != 0}, .hta_order = a->p[QL_P_TIE_ORDER] != 0};
  (void)pzErr;
  return qlForEachTrace(db, a, &c, a->p[QL_P_LAST_STEP] != 0, hta_series_emit_rows, out);
}

/* ---------------------------------------------------------------- hta_queue_length_summary */

static int qsRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  ql_ctx c = {{&qlDef, a->p[QL_P_COLLAPSE] != 0}, .hta_order = a->p[QL_P_TIE_ORDER] != 0};
  (void)pzErr;
  return qlForEachTrace(db, a, &c, a->p[QL_P_LAST_STEP] != 0, hta_series_emit_summary,
                        out); /* QL-6 */
}

/* ---------------------------------------------------------------- hta_queue_full_time */

/* The smallest and largest ts of trace T's host rows that the analyses keep
** (dur and category present, category not 'Trace', before the cut); *has = 0
** when there is none. */
static int qfHostSpan(sqlite3 *db, const hta_trace *t, int64_t *lo, int64_t *hi, int *has) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(
      db, t->schema,
      "SELECT min(ts), max(ts) FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
      " AND stream IS NULL AND dur IS NOT NULL AND ts < ?3 AND category_id IS NOT NULL"
      " AND category_id IS NOT (SELECT category_id FROM $S.category WHERE name = 'Trace')",
      &st);
  *has = 0;
  if (rc != SQLITE_OK) return rc;
  hta_bind_trace_scan(st, t);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
      *has = 1;
      *lo = sqlite3_column_int64(st, 0);
      *hi = sqlite3_column_int64(st, 1);
    }
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

static int qfEmitFull(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                      int64_t job_min_ts, hta_table *out) {
  double max_q = ((const ql_ctx *)ctx)->max_q;
  int have_span = 0;
  double span = 0;
  (void)job_min_ts;
  for (size_t i = 0; i < s->n;) { /* one stream: [i, j) */
    size_t j = i;
    int reached = 0;
    int64_t dur = 0;
    hta_cell *row;
    for (; j < s->n && s->a[j].key == s->a[i].key; j++) { /* QL-7 */
      if (s->a[j].value < max_q) continue;
      reached = 1;
      if (j + 1 < s->n && s->a[j + 1].key == s->a[j].key)
        dur = hta_add_sat(dur, hta_sub_sat(s->a[j + 1].ts, s->a[j].ts));
    }
    if (reached && !have_span) {
      int64_t lo = s->gpu_min_ts, hi = s->gpu_max_ts, hlo = 0, hhi = 0;
      int has_host;
      int rc = qfHostSpan(db, t, &hlo, &hhi, &has_host);
      if (rc != SQLITE_OK) return rc;
      if (has_host) {
        if (hlo < lo) lo = hlo;
        if (hhi > hi) hi = hhi;
      }
      span = (double)hta_sub_sat(hi, lo);
      have_span = 1;
    }
    if (reached) {
      row = hta_table_add_row(out);
      if (!row) return SQLITE_NOMEM;
      hta_cell_int(&row[QF_RANK], t->rank);
      hta_cell_int(&row[QF_STREAM], s->a[i].key);
      hta_cell_double(&row[QF_DURATION], (double)dur / 1000.0);
      hta_cell_double(&row[QF_RELATIVE], (double)dur / span);
      hta_cell_int(&row[QF_TRACE_ID], t->trace_id);
    }
    i = j;
  }
  return SQLITE_OK;
}

static int qfRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  ql_ctx c = {.hta_order = a->p[QF_P_TIE_ORDER] != 0, .max_q = a->p[QF_P_MAX]};
  (void)pzErr;
  return qlForEachTrace(db, a, &c, a->p[QF_P_LAST_STEP] != 0, qfEmitFull, out);
}

/* ---------------------------------------------------------------- definitions */

static const hta_param qlParams[] = {
    HTA_PARAM_LAST_STEP,
    {"collapse_ties", 0, 0, 0, 1, "0 or 1"},
    {"hta_tie_order", 0, 0, 0, 1, "0 or 1"},
};

static const hta_param qfParams[] = {
    {"max_queue_length", 1, 1024, -1e18, 1e18, "a number"},
    HTA_PARAM_LAST_STEP,
    {"hta_tie_order", 0, 0, 0, 1, "0 or 1"},
};

const hta_tvf hta_queue_length_tvf = {
    .name = "hta_queue_length",
    .schema = qlSchema,
    .nvisible = QL_NVISIBLE,
    .rank_col = QL_RANK,
    .nparam = 3,
    .params = qlParams,
    .run = qlRun,
};

const hta_tvf hta_queue_length_summary_tvf = {
    .name = "hta_queue_length_summary",
    .schema = qsSchema,
    .nvisible = QS_NVISIBLE,
    .rank_col = QS_RANK,
    .nparam = 3,
    .params = qlParams,
    .run = qsRun,
};

const hta_tvf hta_queue_full_time_tvf = {
    .name = "hta_queue_full_time",
    .schema = qfSchema,
    .nvisible = QF_NVISIBLE,
    .rank_col = QF_RANK,
    .nparam = 3,
    .params = qfParams,
    .run = qfRun,
};

/* ---------------------------------------------------------------- points for writers */

/* Trace T's series (QL-2..4, default tie order QL-3) as C points for
** hta_write_trace_with_counters (io_counters.c): one per row of hta_queue_length WHERE
** trace_id = T, in row order. *pa is sqlite3_malloc'd, NULL when empty. */
int hta_queue_length_points(sqlite3 *db, const hta_trace *t, hta_series_point **pa, size_t *pn) {
  hta_classifier *cls = 0;
  hta_series s;
  ql_ctx c = {.hta_order = 0};
  int rc = qlLookup(db, t->schema, &c.ids);
  *pa = 0;
  *pn = 0;
  memset(&s, 0, sizeof s);
  if (rc != SQLITE_OK || c.ids.n == 0) return rc;
  rc = hta_classifier_open(db, t->schema, &cls);
  if (rc == SQLITE_OK) rc = qlBuild(&c, db, t, cls, &s);
  hta_classifier_free(cls);
  if (rc == SQLITE_OK) rc = hta_series_points(&s, pa, pn);
  hta_series_free(&s);
  return rc;
}

/*
** memory_bw.c: memory bandwidth over time, per memory kind (spec
** hta_semantics.md 2.8). Two eponymous table-valued functions, registered by
** counters.c:
**
**   SELECT * FROM hta_memory_bw WHERE rank = 0;
**   SELECT * FROM hta_memory_bw_summary;
**   SELECT * FROM hta_memory_bw_summary                      -- HTA bit for bit
**    WHERE bw_from_bytes = 0 AND hta_tie_order = 1;
**
** hta_memory_bw(include_last_profiler_step=0, bw_from_bytes=1, collapse_ties=0,
**     hta_tie_order=0)
**   columns: rank, kind, ts_us, memory_bw_gbps, trace_id, computed_bw
** hta_memory_bw_summary(include_last_profiler_step=0, bw_from_bytes=1,
**     collapse_ties=0, hta_tie_order=0)
**   columns: rank, kind, count, mean, std, min, p25, p50, p75, max, trace_id
**
** Requirements (tests cite them as MB-n):
**  1. Copies: GPU rows (event.stream NOT NULL, D5) whose kernel type is MEMORY
**     (kernel_type_rule; hip* names are COMMUNICATION, as in HTA), after the
**     last-ProfilerStep cut unless include_last_profiler_step != 0. kind =
**     hta_memory_kind(name): "Memset", "Memcpy Unknown" or the first 11
**     characters ("Memcpy HtoD", ...).
**  2. A copy's bandwidth is args."memory bandwidth (GB/s)" when it is a number.
**     Otherwise, with bw_from_bytes = 1 (the default), a copy whose args hold a
**     numeric "bytes" and whose dur > 0 gets bytes / dur_ns (bytes per ns =
**     GB/s) and computed_bw = 1: AMD traces write bytes without a bandwidth.
**     This deviates from HTA, which gives such copies 0; bw_from_bytes = 0
**     reproduces HTA (every other copy without the argument is 0 either way).
**  3. A copy of dur 0 lasts 1 µs (HTA); negative durations stay as they are.
**     It makes two changes of its kind: +bw at ts and -bw at ts + dur.
**  4. Tie order (HTA sorts with numpy's unstable quicksort; ours is stable):
**     per kind in byte order of the name, by ts; at equal ts every end (-bw)
**     comes before every start (+bw), since a copy's interval is half-open; then
**     by event_id. hta_tie_order = 1 instead reproduces HTA's order exactly:
**     numpy 1.24's quicksort argsort (hta_np_argsort, spec Appendix A) by ts of
**     [the starts of the copies in file order, then their ends], then per kind.
**  5. memory_bw_gbps = the running sum in double precision, in that order, of
**     the kind's changes; by default it is exactly 0 whenever no copy of the
**     kind is in flight. HTA's plain running sum leaves residues such as 5.7e-14
**     there, which its summary counts as points > 0 (corpus job
**     hta_trace_diff_test); hta_tie_order = 1 keeps HTA's arithmetic too, and
**     so reproduces HTA's series and summaries bit for bit. One point per
**     change; ts_us is relative to the earliest kept event of the whole database
**     (hta_traces.job_min_ts). computed_bw = 1 when the change comes from a copy
**     whose bandwidth was computed (MB-2).
**  6. collapse_ties = 1 keeps only the last point at each (kind, ts), the value
**     after every change at that instant (computed_bw: any of them computed).
**  7. The summary is pandas' describe() of memory_bw_gbps over the points with
**     memory_bw_gbps > 0 of each (trace, kind); a kind without such a point has
**     no row (so AMD traces without any bandwidth have no summary rows).
**  8. Rows come ordered by (rank, trace_id, kind, ts_us, MB-4); WHERE rank = N
**     runs over rank N only.
**
** HOW IT WORKS: hta_gpu_load() gives each trace's classified GPU rows after the
** cut. For each MEMORY row the arguments are read by its rowid with
** json_extract. The changes of a trace are a stepwise series (step_series.h,
** shared with queue_length.c) keyed by kind, the keys numbered in the kinds' byte
** order; sorted by (kind, ts, MB-4) and summed per kind into the points, which
** become the rows, the summary, or (hta_memory_bw_points) C points for
** hta_write_trace_with_counters (io_counters.c).
*/
#include <stdlib.h>
#include <string.h>

#include "hta/step_series.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* hta_memory_bw */
#define MB_RANK 0
#define MB_KIND 1
#define MB_TS 2
#define MB_BW 3
#define MB_TRACE_ID 4
#define MB_COMPUTED 5
#define MB_NVISIBLE 6
/* Parameters of both functions. */
#define MB_P_LAST_STEP 0
#define MB_P_FROM_BYTES 1
#define MB_P_COLLAPSE 2
#define MB_P_TIE_ORDER 3
#define MB_NPARAM 4
static const char mbSchema[] =
    "CREATE TABLE x(rank INTEGER, kind TEXT, ts_us REAL, memory_bw_gbps REAL, trace_id INTEGER,"
    " computed_bw INTEGER,"
    " include_last_profiler_step HIDDEN, bw_from_bytes HIDDEN, collapse_ties HIDDEN,"
    " hta_tie_order HIDDEN)";

/* hta_memory_bw_summary */
#define MS_RANK 0
#define MS_KIND 1
#define MS_COUNT 2
#define MS_MEAN 3
#define MS_STD 4
#define MS_MIN 5
#define MS_P25 6
#define MS_P50 7
#define MS_P75 8
#define MS_MAX 9
#define MS_TRACE_ID 10
#define MS_NVISIBLE 11
static const char msSchema[] =
    "CREATE TABLE x(rank INTEGER, kind TEXT, count INTEGER, mean REAL, std REAL,"
    " min REAL, p25 REAL, p50 REAL, p75 REAL, max REAL, trace_id INTEGER,"
    " include_last_profiler_step HIDDEN, bw_from_bytes HIDDEN, collapse_ties HIDDEN,"
    " hta_tie_order HIDDEN)";

/* Reads the bandwidth of copy K with ST (?1 = event_id; columns: the bandwidth
** argument, bytes). Sets *BW and *COMPUTED (MB-2). */
static int mbBandwidth(sqlite3_stmt *st, const hta_gpu *k, int from_bytes, double *bw,
                       int *computed) {
  int rc;
  *bw = 0;
  *computed = 0;
  sqlite3_bind_int64(st, 1, k->event_id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    int t0 = sqlite3_column_type(st, 0), t1 = sqlite3_column_type(st, 1);
    if (t0 == SQLITE_INTEGER || t0 == SQLITE_FLOAT) {
      *bw = sqlite3_column_double(st, 0);
    } else if (t0 == SQLITE_NULL && from_bytes && k->dur > 0 &&
               (t1 == SQLITE_INTEGER || t1 == SQLITE_FLOAT)) {
      *bw = sqlite3_column_double(st, 1) / (double)k->dur;
      *computed = 1;
    }
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_reset(st);
  return rc;
}

/* The key of kind K in S->names, added when new; -1 on OOM. */
static int64_t mbKindKey(hta_series *s, const char *k, size_t *cap) {
  for (size_t i = 0; i < s->nnames; i++)
    if (!strcmp(s->names[i], k)) return (int64_t)i;
  if (s->nnames == *cap) {
    size_t nc = *cap ? 2 * *cap : 8;
    char(*nn)[16] = sqlite3_realloc64(s->names, nc * sizeof *nn);
    if (!nn) return -1;
    s->names = nn;
    *cap = nc;
  }
  memcpy(s->names[s->nnames], k, sizeof s->names[0]);
  return (int64_t)s->nnames++;
}

/* Renumbers S's keys in the byte order of their kinds (MB-4). SQLITE_OK or SQLITE_NOMEM. */
static int mbSortKinds(hta_series *s) {
  size_t n = s->nnames;
  int64_t *order = sqlite3_malloc64((n ? n : 1) * sizeof *order);
  int64_t *key = sqlite3_malloc64((n ? n : 1) * sizeof *key);
  char(*names)[16] = sqlite3_malloc64((n ? n : 1) * sizeof *names);
  if (!order || !key || !names) {
    sqlite3_free(order);
    sqlite3_free(key);
    sqlite3_free(names);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < n; i++) order[i] = (int64_t)i;
  for (size_t i = 1; i < n; i++) /* insertion sort: a handful of kinds */
    for (size_t j = i; j > 0 && strcmp(s->names[order[j - 1]], s->names[order[j]]) > 0; j--) {
      int64_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  for (size_t r = 0; r < n; r++) {
    key[order[r]] = (int64_t)r;
    memcpy(names[r], s->names[order[r]], sizeof names[r]);
  }
  for (size_t i = 0; i < s->n; i++) s->a[i].key = key[s->a[i].key];
  sqlite3_free(s->names);
  s->names = names;
  sqlite3_free(order);
  sqlite3_free(key);
  return SQLITE_OK;
}

/* What a run builds and emits with. */
typedef struct mb_ctx {
  hta_series_ctx base;       /* how the rows look, collapse_ties */
  int from_bytes, hta_order; /* bw_from_bytes, hta_tie_order */
} mb_ctx;

/* Builds the series of trace T into *S (MB-1..5; freed by the caller). */
static int mbBuild(void *ctx, sqlite3 *db, const hta_trace *t, const hta_classifier *cls,
                   hta_series *s) {
  int from_bytes = ((const mb_ctx *)ctx)->from_bytes, hta_order = ((const mb_ctx *)ctx)->hta_order;
  hta_gpu_rows g;
  sqlite3_stmt *st = 0;
  size_t nmem = 0, cap = 0;
  int rc = hta_gpu_load(db, t, cls, &g);
  if (rc != SQLITE_OK) return rc;
  rc = hta_prepare(db, t->schema,
                   "SELECT json_extract(args, '$.\"memory bandwidth (GB/s)\"'),"
                   " json_extract(args, '$.bytes')"
                   " FROM $S.event WHERE event_id = ?1 AND json_valid(args)",
                   &st);
  if (rc != SQLITE_OK) goto mb_build_end;
  for (size_t i = 0; i < g.n; i++) nmem += g.a[i].kernel_type == HTA_KT_MEMORY;
  s->a = sqlite3_malloc64((nmem ? 2 * nmem : 1) * sizeof *s->a);
  if (!s->a) {
    rc = SQLITE_NOMEM;
    goto mb_build_end;
  }
  for (size_t i = 0; i < g.n; i++) {
    const hta_gpu *k = &g.a[i];
    int64_t dur = k->dur == 0 ? 1000 : k->dur; /* MB-3 */
    double bw;
    int computed;
    char kind[16] = {0};
    hta_series_pt *p;
    if (k->kernel_type != HTA_KT_MEMORY) continue; /* MB-1 */
    rc = mbBandwidth(st, k, from_bytes, &bw, &computed);
    if (rc != SQLITE_OK) goto mb_build_end;
    hta_memory_kind(hta_gpu_name(&g, k->name_id), kind);
    p = &s->a[s->n]; /* the start; its end goes nmem places later */
    memset(p, 0, sizeof *p);
    if ((p->key = mbKindKey(s, kind, &cap)) < 0) {
      rc = SQLITE_NOMEM;
      goto mb_build_end;
    }
    p->ts = k->ts;
    p->id1 = p->id2 = k->event_id;
    p->tie = 1; /* at a tie, ends first (MB-4) */
    p->opens = 1;
    p->computed = (signed char)computed;
    p->delta = bw;
    s->a[s->n + nmem] = *p;
    p = &s->a[s->n + nmem];
    p->ts = hta_end(k->ts, dur);
    p->tie = 0;
    p->opens = -1;
    p->delta = -bw;
    s->n++;
  }
  s->n = 2 * s->n;
  rc = mbSortKinds(s);
  /* MB-4 (HTA's order: the starts in file order, then the ends), MB-5 */
  if (rc == SQLITE_OK) rc = hta_series_order(s, hta_order, 0, !hta_order);

mb_build_end:
  sqlite3_finalize(st);
  hta_gpu_free(&g);
  return rc;
}

static const hta_series_def mbDef = {.has_computed = 1, .summary_positive = 1};

/* ---------------------------------------------------------------- hta_memory_bw */

/* A run of either function with A's parameters (MB-6 collapse_ties, MB-7 summary). */
static int mbRunWith(sqlite3 *db, const hta_tvf_args *a, hta_series_emit emit, hta_table *out) {
  mb_ctx c = {
      {&mbDef, a->p[MB_P_COLLAPSE] != 0}, a->p[MB_P_FROM_BYTES] != 0, a->p[MB_P_TIE_ORDER] != 0};
  return hta_series_each_trace(db, a, a->p[MB_P_LAST_STEP] != 0, mbBuild, emit, &c, out);
}

static int mbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return mbRunWith(db, a, hta_series_emit_rows, out);
}

/* ---------------------------------------------------------------- hta_memory_bw_summary */

static int msRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return mbRunWith(db, a, hta_series_emit_summary, out);
}

/* ---------------------------------------------------------------- definitions */

static const hta_param mbParams[MB_NPARAM] = {
    HTA_PARAM_LAST_STEP,
    {"bw_from_bytes", 0, 1, 0, 1, "0 or 1"},
    {"collapse_ties", 0, 0, 0, 1, "0 or 1"},
    {"hta_tie_order", 0, 0, 0, 1, "0 or 1"},
};

const hta_tvf hta_memory_bw_tvf = {
    .name = "hta_memory_bw",
    .schema = mbSchema,
    .nvisible = MB_NVISIBLE,
    .rank_col = MB_RANK,
    .nparam = MB_NPARAM,
    .params = mbParams,
    .run = mbRun,
};

const hta_tvf hta_memory_bw_summary_tvf = {
    .name = "hta_memory_bw_summary",
    .schema = msSchema,
    .nvisible = MS_NVISIBLE,
    .rank_col = MS_RANK,
    .nparam = MB_NPARAM,
    .params = mbParams,
    .run = msRun,
};

/* ---------------------------------------------------------------- points for writers */

/* Trace T's series (MB-1..5 with the default parameters) as C points for
** hta_write_trace_with_counters (io_counters.c): one per row of hta_memory_bw WHERE
** trace_id = T, in row order. *pa is sqlite3_malloc'd, NULL when empty. */
int hta_memory_bw_points(sqlite3 *db, const hta_trace *t, hta_series_point **pa, size_t *pn) {
  hta_classifier *cls = 0;
  hta_series s;
  mb_ctx c = {{&mbDef, 0}, mbParams[MB_P_FROM_BYTES].dflt != 0, 0}; /* the defaults */
  memset(&s, 0, sizeof s);
  *pa = 0;
  *pn = 0;
  int rc = hta_classifier_open(db, t->schema, &cls);
  if (rc == SQLITE_OK) rc = mbBuild(&c, db, t, cls, &s);
  hta_classifier_free(cls);
  if (rc == SQLITE_OK) rc = hta_series_points(&s, pa, pn);
  hta_series_free(&s);
  return rc;
}

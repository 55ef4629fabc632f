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
** json_extract. The changes of a trace go into one array, sorted by (kind, ts,
** MB-4), and a running sum per kind makes the points.
** hta_memory_bw_points() hands the same points, as a C array, to
** hta_write_trace_with_counters (io_counters.c).
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
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

/* One change of a kind's bandwidth; after mbBuild also the point it makes. */
typedef struct mb_point {
  char kind[16];    /* hta_memory_kind() */
  int64_t ts;       /* ns, absolute */
  int64_t event_id; /* the copy */
  int is_start;     /* 1: +bw at the start; 0: -bw at the end */
  int computed;     /* the copy's bandwidth came from bytes / dur (MB-2) */
  size_t pos;       /* position in HTA's sorted order (hta_tie_order = 1) */
  double delta;
  double bw; /* the running sum after this change */
} mb_point;

typedef struct mb_series {
  mb_point *a;
  size_t n;
} mb_series;

/* MB-4: kind, ts, ends before starts, event_id. */
static int mbCmpStable(const void *a, const void *b) {
  const mb_point *x = a, *y = b;
  int c = strcmp(x->kind, y->kind);
  if (c != 0) return c;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->is_start != y->is_start) return x->is_start < y->is_start ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* MB-4 with hta_tie_order = 1: kind, then HTA's position. */
static int mbCmpHta(const void *a, const void *b) {
  const mb_point *x = a, *y = b;
  int c = strcmp(x->kind, y->kind);
  if (c != 0) return c;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sorts the changes S->a (starts of the copies in file order, then their ends)
** in HTA's order: numpy's quicksort argsort by ts, then per kind (MB-4). */
static int mbSortHta(mb_series *s) {
  int64_t *v = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *v);
  size_t *perm = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *perm);
  if (!v || !perm) {
    sqlite3_free(v);
    sqlite3_free(perm);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < s->n; i++) v[i] = s->a[i].ts;
  hta_np_argsort(v, s->n, perm);
  for (size_t i = 0; i < s->n; i++) s->a[perm[i]].pos = i;
  qsort(s->a, s->n, sizeof *s->a, mbCmpHta);
  sqlite3_free(v);
  sqlite3_free(perm);
  return SQLITE_OK;
}

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

/* Builds the series of trace T into *S (freed with mbFree). */
static int mbBuild(sqlite3 *db, const hta_trace *t, const hta_classifier *cls, int from_bytes,
                   int hta_order, mb_series *s) {
  hta_gpu_rows g;
  sqlite3_stmt *st = 0;
  size_t nmem = 0;
  int64_t active = 0;
  int rc;
  memset(s, 0, sizeof *s);
  rc = hta_gpu_load(db, t, cls, &g);
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
    mb_point *p;
    if (k->kernel_type != HTA_KT_MEMORY) continue; /* MB-1 */
    rc = mbBandwidth(st, k, from_bytes, &bw, &computed);
    if (rc != SQLITE_OK) goto mb_build_end;
    p = &s->a[s->n]; /* the start; its end goes nmem places later */
    memset(p, 0, sizeof *p);
    hta_memory_kind(hta_gpu_name(&g, k->name_id), p->kind);
    p->ts = k->ts;
    p->event_id = k->event_id;
    p->is_start = 1;
    p->computed = computed;
    p->delta = bw;
    s->a[s->n + nmem] = *p;
    p = &s->a[s->n + nmem];
    p->ts = hta_end(k->ts, dur);
    p->is_start = 0;
    p->delta = -bw;
    s->n++;
  }
  s->n = 2 * s->n;
  if (hta_order) {
    rc = mbSortHta(s);
    if (rc != SQLITE_OK) goto mb_build_end;
  } else {
    qsort(s->a, s->n, sizeof *s->a, mbCmpStable);
  }
  for (size_t i = 0; i < s->n; i++) { /* MB-5 */
    int first = i == 0 || strcmp(s->a[i - 1].kind, s->a[i].kind) != 0;
    if (first) active = 0;
    active += s->a[i].is_start ? 1 : -1; /* copies in flight */
    s->a[i].bw = (first ? 0.0 : s->a[i - 1].bw) + s->a[i].delta;
    if (!hta_order && active == 0) s->a[i].bw = 0.0;
  }

mb_build_end:
  sqlite3_finalize(st);
  hta_gpu_free(&g);
  if (rc != SQLITE_OK) {
    sqlite3_free(s->a);
    memset(s, 0, sizeof *s);
  }
  return rc;
}

static void mbFree(mb_series *s) {
  sqlite3_free(s->a);
  memset(s, 0, sizeof *s);
}

/* 1 when point I is the last one of its (kind, ts) (MB-6). */
static int mbLastAtTs(const mb_series *s, size_t i) {
  return i + 1 == s->n || s->a[i + 1].ts != s->a[i].ts ||
         strcmp(s->a[i + 1].kind, s->a[i].kind) != 0;
}

typedef int (*mb_emit)(const hta_trace *t, const mb_series *s, const hta_tvf_args *a,
                       int64_t job_min_ts, hta_table *out);

static int mbForEachTrace(sqlite3 *db, const hta_tvf_args *a, mb_emit emit, hta_table *out) {
  hta_traces tr;
  hta_classifier *cls = 0;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, a->p[MB_P_LAST_STEP] != 0, &tr);
  if (rc != SQLITE_OK) return rc;
  rc = hta_classifier_open(db, a->scope.schema, &cls);
  for (int i = 0; i < tr.n && rc == SQLITE_OK; i++) {
    mb_series s;
    rc = mbBuild(db, &tr.a[i], cls, a->p[MB_P_FROM_BYTES] != 0, a->p[MB_P_TIE_ORDER] != 0, &s);
    if (rc == SQLITE_OK) rc = emit(&tr.a[i], &s, a, tr.job_min_ts, out);
    mbFree(&s);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_classifier_free(cls);
  hta_traces_free(&tr);
  return rc;
}

/* ---------------------------------------------------------------- hta_memory_bw */

static int mbEmitSeries(const hta_trace *t, const mb_series *s, const hta_tvf_args *a,
                        int64_t job_min_ts, hta_table *out) {
  int collapse = a->p[MB_P_COLLAPSE] != 0, computed = 0;
  for (size_t i = 0; i < s->n; i++) {
    hta_cell *row;
    int rc;
    computed |= s->a[i].computed;
    if (collapse && !mbLastAtTs(s, i)) continue;
    row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    hta_cell_int(&row[MB_RANK], t->rank);
    rc = hta_cell_text(&row[MB_KIND], s->a[i].kind);
    if (rc != SQLITE_OK) return rc;
    hta_cell_double(&row[MB_TS], (double)hta_sub_sat(s->a[i].ts, job_min_ts) / 1000.0);
    hta_cell_double(&row[MB_BW], s->a[i].bw);
    hta_cell_int(&row[MB_TRACE_ID], t->trace_id);
    hta_cell_int(&row[MB_COMPUTED], computed);
    computed = 0;
  }
  return SQLITE_OK;
}

static int mbRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return mbForEachTrace(db, a, mbEmitSeries, out);
}

/* ---------------------------------------------------------------- hta_memory_bw_summary */

static int msEmitSummary(const hta_trace *t, const mb_series *s, const hta_tvf_args *a,
                         int64_t job_min_ts, hta_table *out) {
  int collapse = a->p[MB_P_COLLAPSE] != 0;
  double *v = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *v);
  int rc = SQLITE_OK;
  (void)job_min_ts;
  if (!v) return SQLITE_NOMEM;
  for (size_t i = 0; i < s->n;) { /* one kind: [i, j) */
    size_t j = i, nv = 0;
    hta_describe d;
    hta_cell *row;
    while (j < s->n && strcmp(s->a[j].kind, s->a[i].kind) == 0) {
      if ((!collapse || mbLastAtTs(s, j)) && s->a[j].bw > 0) v[nv++] = s->a[j].bw; /* MB-7 */
      j++;
    }
    if (nv > 0) {
      hta_describe_doubles(v, nv, &d);
      row = hta_table_add_row(out);
      if (!row) {
        rc = SQLITE_NOMEM;
        break;
      }
      hta_cell_int(&row[MS_RANK], t->rank);
      rc = hta_cell_text(&row[MS_KIND], s->a[i].kind);
      if (rc != SQLITE_OK) break;
      hta_cells_describe(row, MS_COUNT, &d); /* MS_COUNT .. MS_MAX */
      hta_cell_int(&row[MS_TRACE_ID], t->trace_id);
    }
    i = j;
  }
  sqlite3_free(v);
  return rc;
}

static int msRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return mbForEachTrace(db, a, msEmitSummary, out);
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
  mb_series s;
  int rc = hta_classifier_open(db, t->schema, &cls);
  *pa = 0;
  *pn = 0;
  if (rc == SQLITE_OK) rc = mbBuild(db, t, cls, mbParams[MB_P_FROM_BYTES].dflt != 0, 0, &s);
  hta_classifier_free(cls);
  if (rc != SQLITE_OK) return rc;
  if (s.n > 0) {
    hta_series_point *a = sqlite3_malloc64(s.n * sizeof *a);
    if (!a) {
      mbFree(&s);
      return SQLITE_NOMEM;
    }
    memset(a, 0, s.n * sizeof *a);
    for (size_t i = 0; i < s.n; i++) {
      a[i].ts = s.a[i].ts;
      a[i].event_id = s.a[i].event_id;
      memcpy(a[i].kind, s.a[i].kind, sizeof a[i].kind);
      a[i].value = s.a[i].bw;
    }
    *pa = a;
    *pn = s.n;
  }
  mbFree(&s);
  return SQLITE_OK;
}

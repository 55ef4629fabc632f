/*
** step_series.h: stepwise series, the shared part of the queue length (queue_length.c)
** and the memory bandwidth (memory_bw.c): a trace's changes (+1 / -1, +bw / -bw) are
** put in order, summed per series into points, and emitted as the rows of the series,
** their pandas describe() summary, or C points for the counter writer (io_counters.c).
**
**   typedef struct my_ctx { hta_series_ctx base; ... } my_ctx;  -- what the builder needs
**   my_ctx c = {{&def, collapse}, ...};
**   hta_series_each_trace(db, a, include_last_step, myBuild, hta_series_emit_rows, &c, out);
**
** where myBuild(ctx, db, t, cls, s) fills s->a with one hta_series_pt per change and calls
** hta_series_order; hta_series_emit_summary gives the summary instead, and
** hta_series_points the C points of one trace.
**
** Requirements (ST-n; the analyses' QL-n and MB-n rest on them):
**  1. Order (stable, the default): by series key, ts, tie (smaller first), id1, id2.
**     HTA's order (hta_order): the first NPRESORT changes sorted by (id1, id2), then
**     numpy 1.24's quicksort argsort by ts of all (hta_np_argsort), then per key.
**  2. A point's value is the running sum, in double precision and in that order, of
**     the deltas of its series; with exact_zero it is 0.0 exactly at a change after
**     which no interval of the series is open (opens: +1 opens one, -1 closes one).
**  3. collapse keeps the last point of each (key, ts); a collapsed point's computed
**     flag is that of any change folded into it.
**  4. The summary describes (hta_describe_doubles) each series' values, every point
**     once; with def->summary_positive only the values > 0, and a series without such
**     a value has no row.
**  5. Rows: rank, the key (stream INTEGER, or names[key] TEXT), ts_us (relative to
**     the job's first event), the value (INTEGER or REAL), trace_id [, computed];
**     summary rows: rank, key, count, mean, std, min, p25, p50, p75, max, trace_id.
*/
#ifndef HTA_STEP_SERIES_H
#define HTA_STEP_SERIES_H

#include "core/hta_common.h"

/* One change of a series; after hta_series_order also the point it makes. */
typedef struct hta_series_pt {
  int64_t key;          /* the series: a stream, or an index into hta_series.names */
  int64_t ts;           /* ns, absolute */
  int64_t id1, id2;     /* the order within a tie (ST-1); id2 is the GPU row */
  size_t pos;           /* position in HTA's order (ST-1) */
  double delta;         /* what the change adds */
  double value;         /* the running sum after it (ST-2) */
  signed char tie;      /* at an equal (key, ts), smaller first */
  signed char opens;    /* +1 opens an interval, -1 closes one (ST-2) */
  signed char computed; /* the delta was computed, not read (MB-2) */
} hta_series_pt;

/* One trace's changes. */
typedef struct hta_series {
  hta_series_pt *a;
  size_t n;
  char (*names)[16]; /* the series' names by key (memory kinds), or NULL: keys are streams */
  size_t nnames;
  int64_t gpu_min_ts, gpu_max_ts; /* over the trace's kept GPU rows (set by the queue) */
  int has_gpu;
} hta_series;

/* How a series' table-valued functions show it (ST-4, ST-5). */
typedef struct hta_series_def {
  int int_values;       /* the value column is INTEGER (a queue length), else REAL */
  int has_computed;     /* the rows end with computed_bw */
  int summary_positive; /* the summary describes the values > 0 only */
} hta_series_def;

void hta_series_free(hta_series *s);
/* Sorts S's changes and sets their values (ST-1, ST-2). SQLITE_OK or SQLITE_NOMEM. */
int hta_series_order(hta_series *s, int hta_order, size_t npresort, int exact_zero);
/* 1 when point I is the last one of its (key, ts) (ST-3). */
int hta_series_last_at_ts(const hta_series *s, size_t i);

/* What a run of the series emits: the start of every builder's context (a caller's
** context struct has it as its first member, "base"). */
typedef struct hta_series_ctx {
  const hta_series_def *def;
  int collapse; /* ST-3 */
} hta_series_ctx;

/* Builds trace T's changes into *S (zeroed first; freed by the caller on any rc). */
typedef int (*hta_series_build)(void *ctx, sqlite3 *db, const hta_trace *t,
                                const hta_classifier *cls, hta_series *s);
/* Emits the rows of trace T's ordered series S. */
typedef int (*hta_series_emit)(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                               int64_t job_min_ts, hta_table *out);
/* Builds and emits the series of every trace of the query A, in (rank, trace_id) order. */
int hta_series_each_trace(sqlite3 *db, const hta_tvf_args *a, int include_last_step,
                          hta_series_build build, hta_series_emit emit, void *ctx, hta_table *out);

/* Emitters for hta_series_each_trace (CTX starts with an hta_series_ctx): the rows of the
** series (ST-3, ST-5), their summary (ST-4, ST-5). */
int hta_series_emit_rows(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                         int64_t job_min_ts, hta_table *out);
int hta_series_emit_summary(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                            int64_t job_min_ts, hta_table *out);
/* S's points, in order, as C points for the counter writer; *pa sqlite3_malloc'd, NULL
** when empty. SQLITE_OK or SQLITE_NOMEM. */
int hta_series_points(const hta_series *s, hta_series_point **pa, size_t *pn);

#endif

/*
** step_series.c: stepwise series (step_series.h), the part the queue length
** (queue_length.c) and the memory bandwidth (memory_bw.c) share: the order of a
** trace's changes, the running sums, and the rows, summaries and C points made from
** them. The callers build the changes; the requirements ST-n are in step_series.h.
**
** HOW IT WORKS: the changes of a trace are one array, sorted in place (qsort with a
** total order, so the result does not depend on qsort's stability); a pass over it
** sums each series. The emitters walk the array once per call.
*/
#include <stdlib.h>
#include <string.h>

#include "hta/step_series.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* the series' key, then whatever orders the changes of one series */
#define ST_SAME_SERIES(x, y) ((x)->key == (y)->key)

void hta_series_free(hta_series *s) {
  sqlite3_free(s->a);
  sqlite3_free(s->names);
  memset(s, 0, sizeof *s);
}

/* ST-1, the stable order: key, ts, tie, id1, id2. */
static int stCmp(const void *a, const void *b) {
  const hta_series_pt *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->tie != y->tie) return x->tie < y->tie ? -1 : 1;
  if (x->id1 != y->id1) return x->id1 < y->id1 ? -1 : 1;
  return x->id2 < y->id2 ? -1 : x->id2 > y->id2;
}

/* ST-1, HTA's order: the presorted changes by (id1, id2). */
static int stCmpIds(const void *a, const void *b) {
  const hta_series_pt *x = a, *y = b;
  if (x->id1 != y->id1) return x->id1 < y->id1 ? -1 : 1;
  return x->id2 < y->id2 ? -1 : x->id2 > y->id2;
}

/* ST-1, HTA's order: key, then the position numpy's argsort gave. */
static int stCmpHta(const void *a, const void *b) {
  const hta_series_pt *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int stSortHta(hta_series *s, size_t npresort) {
  int64_t *v = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *v);
  size_t *perm = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *perm);
  if (!v || !perm) {
    sqlite3_free(v);
    sqlite3_free(perm);
    return SQLITE_NOMEM;
  }
  qsort(s->a, npresort, sizeof *s->a, stCmpIds);
  for (size_t i = 0; i < s->n; i++) v[i] = s->a[i].ts;
  hta_np_argsort(v, s->n, perm);
  for (size_t i = 0; i < s->n; i++) s->a[perm[i]].pos = i;
  qsort(s->a, s->n, sizeof *s->a, stCmpHta);
  sqlite3_free(v);
  sqlite3_free(perm);
  return SQLITE_OK;
}

int hta_series_order(hta_series *s, int hta_order, size_t npresort, int exact_zero) {
  int64_t open = 0;
  if (hta_order) {
    int rc = stSortHta(s, npresort);
    if (rc != SQLITE_OK) return rc;
  } else {
    qsort(s->a, s->n, sizeof *s->a, stCmp);
  }
  for (size_t i = 0; i < s->n; i++) { /* ST-2 */
    int first = i == 0 || !ST_SAME_SERIES(&s->a[i - 1], &s->a[i]);
    if (first) open = 0;
    open += s->a[i].opens;
    s->a[i].value = (first ? 0.0 : s->a[i - 1].value) + s->a[i].delta;
    if (exact_zero && open == 0) s->a[i].value = 0.0;
  }
  return SQLITE_OK;
}

int hta_series_last_at_ts(const hta_series *s, size_t i) {
  return i + 1 == s->n || !ST_SAME_SERIES(&s->a[i + 1], &s->a[i]) || s->a[i + 1].ts != s->a[i].ts;
}

int hta_series_each_trace(sqlite3 *db, const hta_tvf_args *a, int include_last_step,
                          hta_series_build build, hta_series_emit emit, void *ctx, hta_table *out) {
  hta_traces tr;
  hta_classifier *cls = 0;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, include_last_step, &tr);
  if (rc != SQLITE_OK) return rc;
  rc = hta_classifier_open(db, a->scope.schema, &cls);
  for (int i = 0; i < tr.n && rc == SQLITE_OK; i++) {
    hta_series s;
    memset(&s, 0, sizeof s);
    rc = build(ctx, db, &tr.a[i], cls, &s);
    if (rc == SQLITE_OK) rc = emit(ctx, db, &tr.a[i], &s, tr.job_min_ts, out);
    hta_series_free(&s);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_classifier_free(cls);
  hta_traces_free(&tr);
  return rc;
}

/* ---------------------------------------------------------------- rows */

/* Column 1 of a row: the stream, or the series' name (ST-5). */
static int stKeyCell(const hta_series *s, const hta_series_pt *p, hta_cell *c) {
  if (!s->names) {
    hta_cell_int(c, p->key);
    return SQLITE_OK;
  }
  return hta_cell_text(c, s->names[p->key]);
}

int hta_series_emit_rows(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                         int64_t job_min_ts, hta_table *out) {
  const hta_series_def *d = ((const hta_series_ctx *)ctx)->def;
  int collapse = ((const hta_series_ctx *)ctx)->collapse, computed = 0;
  (void)db;
  for (size_t i = 0; i < s->n; i++) {
    const hta_series_pt *p = &s->a[i];
    computed |= p->computed;
    if (collapse && !hta_series_last_at_ts(s, i)) continue; /* ST-3 */
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    hta_cell_int(&row[0], t->rank);
    int rc = stKeyCell(s, p, &row[1]);
    if (rc != SQLITE_OK) return rc;
    hta_cell_double(&row[2], (double)hta_sub_sat(p->ts, job_min_ts) / 1000.0);
    if (d->int_values) hta_cell_int(&row[3], (int64_t)p->value);
    else hta_cell_double(&row[3], p->value);
    hta_cell_int(&row[4], t->trace_id);
    if (d->has_computed) hta_cell_int(&row[5], computed);
    computed = 0;
  }
  return SQLITE_OK;
}

int hta_series_emit_summary(void *ctx, sqlite3 *db, const hta_trace *t, const hta_series *s,
                            int64_t job_min_ts, hta_table *out) {
  const hta_series_def *d = ((const hta_series_ctx *)ctx)->def;
  int collapse = ((const hta_series_ctx *)ctx)->collapse;
  (void)db;
  (void)job_min_ts;
  double *v = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *v);
  int rc = SQLITE_OK;
  if (!v) return SQLITE_NOMEM;
  for (size_t i = 0; i < s->n && rc == SQLITE_OK;) { /* one series: [i, j) */
    size_t j = i, nv = 0;
    for (; j < s->n && ST_SAME_SERIES(&s->a[j], &s->a[i]); j++) {
      if (collapse && !hta_series_last_at_ts(s, j)) continue;
      if (!d->summary_positive || s->a[j].value > 0) v[nv++] = s->a[j].value; /* ST-4 */
    }
    if (nv > 0) {
      hta_describe ds;
      hta_describe_doubles(v, nv, &ds);
      hta_cell *row = hta_table_add_row(out);
      if (!row) {
        rc = SQLITE_NOMEM;
        break;
      }
      hta_cell_int(&row[0], t->rank);
      rc = stKeyCell(s, &s->a[i], &row[1]);
      hta_cells_describe(row, 2, &ds); /* count .. max */
      hta_cell_int(&row[10], t->trace_id);
    }
    i = j;
  }
  sqlite3_free(v);
  return rc;
}

int hta_series_points(const hta_series *s, hta_series_point **pa, size_t *pn) {
  *pa = 0;
  *pn = 0;
  if (s->n == 0) return SQLITE_OK;
  hta_series_point *a = sqlite3_malloc64(s->n * sizeof *a);
  if (!a) return SQLITE_NOMEM;
  memset(a, 0, s->n * sizeof *a);
  for (size_t i = 0; i < s->n; i++) {
    const hta_series_pt *p = &s->a[i];
    a[i].ts = p->ts;
    a[i].event_id = p->id2;
    if (s->names) memcpy(a[i].kind, s->names[p->key], sizeof a[i].kind);
    else a[i].stream = p->key;
    a[i].value = p->value;
  }
  *pa = a;
  *pn = s->n;
  return SQLITE_OK;
}

/*
** traces.c: which traces (files, hence ranks) an analysis runs over, and the
** last-ProfilerStep cut (spec 1.12-1.13 with deviation D7 of DESIGN.md 5).
**
**   hta_traces tr;
**   int rc = hta_traces_load(db, has_rank, rank, include_last_step, &tr);
**   for (int i = 0; i < tr.n; i++) ... tr.a[i].trace_id, tr.a[i].cut_ts ...
**   hta_traces_free(&tr);
**
** Requirements (tests cite them as TR-n):
**  1. A trace whose file left no event that HTA keeps (trace.min_ts NULL) is not
**     loaded, as HTA drops an empty rank (spec 1.12).
**  2. Only the traces of the scope's job, ordered by (rank, trace_id); has_rank
**     keeps one rank's traces.
**  3. The cut applies when the job holds >= 2 distinct step numbers in
**     profiler_step (host-side ProfilerStep#N rows only, D7) and the caller did
**     not ask for the last step. Then, per trace: cut_ts = the start of its last
**     step; a trace without steps of its own loses every host row (cut_ts =
**     INT64_MIN), unless it has no host row at all, which HTA leaves unchanged.
**     Other jobs' steps never count (DESIGN 4).
**  4. job_min_ts = the smallest trace.min_ts of the job, whatever rank was asked
**     for (HTA aligns every rank of a job to the same origin).
*/
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

int64_t hta_trace_first_id(int64_t trace_id) { return (int64_t)((uint64_t)trace_id << 32); }

int64_t hta_trace_last_id(int64_t trace_id) {
  return (int64_t)((uint64_t)trace_id << 32 | 0xFFFFFFFFu);
}

int64_t hta_trace_cut_bound(const hta_trace *t) { return t->has_cut ? t->cut_ts : INT64_MAX; }

void hta_bind_trace_scan(sqlite3_stmt *st, const hta_trace *t) {
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  sqlite3_bind_int64(st, 3, hta_trace_cut_bound(t));
}

/* 1 when T has at least one row HTA's cut treats as a host row: a kept event
** without a stream, or GPU work without a correlation id (spec 1.13). */
static int trHasHostRows(sqlite3 *db, const char *schema, int64_t trace_id, int *has) {
  const int64_t range[2] = {hta_trace_first_id(trace_id), hta_trace_last_id(trace_id)};
  int64_t one;
  int none;
  int rc = hta_query_int64(
      db, schema,
      "SELECT 1 FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
      " AND dur IS NOT NULL AND category_id IS NOT NULL"
      " AND (stream IS NULL OR correlation IS NULL OR correlation < 0)"
      " AND category_id IS NOT (SELECT category_id FROM $S.category WHERE name = 'Trace')"
      " LIMIT 1",
      2, range, &one, &none);
  *has = !none;
  return rc;
}

int hta_traces_load(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank,
                    int include_last_step, hta_traces *out) {
  sqlite3_stmt *st = 0;
  int rc, cap = 0, isnull;
  int64_t nsteps = 0;
  memset(out, 0, sizeof *out);
  out->scope = *sc;

  rc = hta_query_int64(db, sc->schema, "SELECT min(min_ts) FROM $T WHERE job_id = ?1", 1,
                       &sc->job_id, &out->job_min_ts, &isnull);
  if (rc != SQLITE_OK) goto traces_error;
  if (!include_last_step) {
    rc = hta_query_int64(db, sc->schema,
                         "SELECT count(DISTINCT step) FROM $S.profiler_step"
                         " WHERE trace_id IN (SELECT trace_id FROM $T WHERE job_id = ?1)",
                         1, &sc->job_id, &nsteps, &isnull);
    if (rc != SQLITE_OK) goto traces_error;
  }
  rc = hta_prepare(db, sc->schema,
                   "SELECT trace_id, rank, min_ts, max_end FROM $T"
                   " WHERE job_id = ?3 AND min_ts IS NOT NULL AND (?1 = 0 OR rank = ?2)"
                   " ORDER BY rank, trace_id",
                   &st);
  if (rc != SQLITE_OK) goto traces_error;
  sqlite3_bind_int(st, 1, has_rank != 0);
  sqlite3_bind_int64(st, 2, rank);
  sqlite3_bind_int64(st, 3, sc->job_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    hta_trace *t;
    if (out->n == cap) {
      int ncap = cap ? 2 * cap : 8;
      hta_trace *a = sqlite3_realloc64(out->a, (sqlite3_uint64)ncap * sizeof *a);
      if (!a) {
        rc = SQLITE_NOMEM;
        goto traces_error;
      }
      out->a = a;
      cap = ncap;
    }
    t = &out->a[out->n++];
    memset(t, 0, sizeof *t);
    t->schema = sc->schema;
    t->job_id = sc->job_id;
    t->trace_id = sqlite3_column_int64(st, 0);
    t->rank = sqlite3_column_int64(st, 1);
    t->min_ts = sqlite3_column_int64(st, 2);
    t->max_end =
        sqlite3_column_type(st, 3) == SQLITE_NULL ? t->min_ts : sqlite3_column_int64(st, 3);
  }
  if (rc != SQLITE_DONE) goto traces_error;
  sqlite3_finalize(st);
  st = 0;

  if (nsteps >= 2) { /* TR-3 */
    for (int i = 0; i < out->n; i++) {
      hta_trace *t = &out->a[i];
      rc = hta_query_int64(db, sc->schema,
                           "SELECT max(ts) FROM $S.profiler_step WHERE trace_id = ?1", 1,
                           &t->trace_id, &t->cut_ts, &isnull);
      if (rc != SQLITE_OK) goto traces_error;
      if (isnull) {
        int has;
        rc = trHasHostRows(db, sc->schema, t->trace_id, &has);
        if (rc != SQLITE_OK) goto traces_error;
        t->has_cut = has;
        t->cut_ts = INT64_MIN;
      } else {
        t->has_cut = 1;
      }
    }
  }
  return SQLITE_OK;

traces_error:
  sqlite3_finalize(st);
  hta_traces_free(out);
  return rc;
}

void hta_traces_free(hta_traces *t) {
  sqlite3_free(t->a);
  memset(t, 0, sizeof *t);
}

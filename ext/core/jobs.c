/*
** jobs.c: the scope of an analysis (DESIGN 4): which database of the connection it
** reads and the jobs of that database, each analysed on its own.
**
**   char *zErr = 0;
**   if (hta_scope_check(db, "hta_x", schema, &zErr) != SQLITE_OK) ...   // clear error
**   hta_job *jobs; size_t n;
**   rc = hta_jobs_load(db, schema, name_or_NULL, &jobs, &n);
**   for (i = 0; i < n; i++) { hta_scope sc = {schema, jobs[i].job_id}; ... }
**   hta_jobs_free(jobs, n);
**
** Requirements (tests cite them as JOB-n):
**  1. A schema that is not a database of the connection is an error naming it; so
**     is a database without the trace table (not an hta-sqlite database) and one
**     written before jobs existed (no job table: says how to upgrade it).
**  2. The jobs are those with at least one trace, in job_id order; a name keeps
**     only that job (none when no job has it). A trace whose job row is missing
**     (hand-made databases) still forms its job, with a NULL name.
*/
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static int jobHasTable(sqlite3 *db, const char *schema, const char *name);

int hta_prepare(sqlite3 *db, const char *schema, const char *sql, sqlite3_stmt **pp) {
  sqlite3_str *s = sqlite3_str_new(db);
  char *z;
  int rc, captures = -1; /* schema has the capture table; -1: not asked yet */
  *pp = 0;
  for (const char *p = sql; *p;) {
    const char *m = strchr(p, '$');
    while (m && m[1] != 'T' && (m[1] != 'S' || m[2] != '.')) m = strchr(m + 1, '$');
    if (!m) {
      sqlite3_str_appendall(s, p);
      break;
    }
    sqlite3_str_append(s, p, (int)(m - p));
    if (m[1] == 'S') {
      sqlite3_str_appendf(s, "\"%w\".", schema);
      p = m + 3;
      continue;
    }
    if (captures < 0) captures = jobHasTable(db, schema, "capture");
    if (captures)
      sqlite3_str_appendf(s,
                          "(SELECT * FROM \"%w\".trace WHERE trace_id NOT IN"
                          " (SELECT trace_id FROM \"%w\".capture))",
                          schema, schema);
    else sqlite3_str_appendf(s, "\"%w\".trace", schema);
    p = m + 2;
  }
  rc = sqlite3_str_errcode(s);
  z = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !z) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, z, -1, pp, 0);
  sqlite3_free(z);
  return rc;
}

/* 1 when SCHEMA holds a table named NAME (0 on any error). */
static int jobHasTable(sqlite3 *db, const char *schema, const char *name) {
  sqlite3_stmt *st = 0;
  int has = 0;
  if (hta_prepare(db, schema, "SELECT 1 FROM $S.sqlite_schema WHERE type = 'table' AND name = ?1",
                  &st) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    has = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return has;
}

int hta_scope_check(sqlite3 *db, const char *fn, const char *schema, char **pzErr) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(
      db, "SELECT 1 FROM pragma_database_list WHERE name = ?1 COLLATE NOCASE", -1, &st, 0);
  int found = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  found = rc == SQLITE_ROW;
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;
  if (!found) { /* JOB-1 */
    *pzErr = sqlite3_mprintf("%s: no database named '%s' (see PRAGMA database_list)", fn, schema);
    return SQLITE_ERROR;
  }
  if (!jobHasTable(db, schema, "trace")) {
    *pzErr = sqlite3_mprintf("%s: database '%s' is not an hta-sqlite database (no trace table)", fn,
                             schema);
    return SQLITE_ERROR;
  }
  if (!jobHasTable(db, schema, "job")) {
    *pzErr = sqlite3_mprintf(
        "%s: database '%s' was written by an hta-sqlite without jobs (schema "
        "1): run 'hta-ingest --upgrade FILE' on it, or ingest its traces again",
        fn, schema);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int hta_jobs_load(sqlite3 *db, const char *schema, const char *name, hta_job **pa, size_t *pn) {
  sqlite3_stmt *st = 0;
  hta_job *a = 0;
  size_t n = 0, cap = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT t.job_id, j.name FROM $T t"
                       " LEFT JOIN $S.job j ON j.job_id = t.job_id"
                       " WHERE ?1 IS NULL OR j.name = ?1"
                       " GROUP BY t.job_id ORDER BY t.job_id",
                       &st);
  *pa = 0;
  *pn = 0;
  if (rc != SQLITE_OK) return rc;
  if (name) sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    hta_job j = {sqlite3_column_int64(st, 0), 0};
    const char *z = (const char *)sqlite3_column_text(st, 1);
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 4;
      hta_job *na = sqlite3_realloc64(a, ncap * sizeof *a);
      if (!na) {
        rc = SQLITE_NOMEM;
        break;
      }
      a = na;
      cap = ncap;
    }
    if (z && !(j.name = sqlite3_mprintf("%s", z))) {
      rc = SQLITE_NOMEM;
      break;
    }
    a[n++] = j;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    hta_jobs_free(a, n);
    return rc;
  }
  *pa = a;
  *pn = n;
  return SQLITE_OK;
}

void hta_jobs_free(hta_job *a, size_t n) {
  for (size_t i = 0; i < n; i++) sqlite3_free(a[i].name);
  sqlite3_free(a);
}

/*
** health_print.c: after an ingest, the health checks that failed or warned
** (health_print.h), read from hta_trace_health.
**
** Requirements (tests cite them as HP-n):
**  1. Per job given, in that order: its rows of hta_trace_health whose verdict is
**     not 'ok', the job's own check and those of the traces ingested now (their
**     file_name is among the files given); failures before warnings, then in the
**     function's row order.
**  2. One line per row: "hta-ingest: FILE: CHECK (VERDICT): MESSAGE"; a check of the
**     whole job names "job NAME" instead of a file.
**  3. A check with the same verdict on more than HP_MAX_SAME traces of a job is one
**     line: "hta-ingest: job NAME: CHECK (VERDICT) on N traces, e.g. FILE: MESSAGE",
**     the example being its first row.
*/
#include "health_print.h"

#include <stdint.h>
#include <string.h>

#include "report.h"

#define HP_SQL                                                                              \
  "SELECT h.verdict, h.\"check\", t.file_name, h.message,"                                  \
  " count(*) OVER (PARTITION BY h.verdict, h.\"check\"),"                                   \
  " row_number() OVER (PARTITION BY h.verdict, h.\"check\" ORDER BY h.rowid)"               \
  " FROM hta_trace_health h LEFT JOIN trace t ON t.trace_id = h.trace_id"                   \
  " WHERE h.job = ?1 AND h.verdict != 'ok'"                                                 \
  " AND (h.trace_id IS NULL OR t.file_name IN (SELECT path FROM temp.hp_files))"            \
  " ORDER BY h.verdict != 'fail', min(h.rowid) OVER (PARTITION BY h.verdict, h.\"check\")," \
  " h.rowid"

/* Fills temp.hp_files with FILES. */
static int hpFiles(sqlite3 *db, const char *const *files, int nfiles, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_exec(db,
                        "DROP TABLE IF EXISTS temp.hp_files;"
                        " CREATE TEMP TABLE hp_files(path TEXT PRIMARY KEY) WITHOUT ROWID",
                        NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.hp_files VALUES (?1)", -1, &st, NULL);
  for (int i = 0; rc == SQLITE_OK && i < nfiles; i++) {
    sqlite3_bind_text(st, 1, files[i], -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) snprintf(err, errlen, "health checks: %s", sqlite3_errmsg(db));
  return rc == SQLITE_OK ? 0 : -1;
}

static const char *hpText(sqlite3_stmt *st, int col) {
  const char *z = (const char *)sqlite3_column_text(st, col);
  return z ? z : "";
}

/* HP-1..3 for job JOB. */
static int hpJob(sqlite3 *db, FILE *out, const char *job, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc;
  if (sqlite3_prepare_v2(db, HP_SQL, -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "hta_trace_health: %s", sqlite3_errmsg(db));
    return -1;
  }
  sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *verdict = hpText(st, 0), *check = hpText(st, 1), *msg = hpText(st, 3);
    int64_t n = sqlite3_column_int64(st, 4), k = sqlite3_column_int64(st, 5);
    int is_job = sqlite3_column_type(st, 2) == SQLITE_NULL;
    if (n > HP_MAX_SAME) { /* HP-3 */
      if (k == 1)
        fprintf(out, "hta-ingest: job %s: %s (%s) on %lld traces, e.g. %s: %s\n", job, check,
                verdict, (long long)n, hpText(st, 2), msg);
    } else if (is_job) {
      fprintf(out, "hta-ingest: job %s: %s (%s): %s\n", job, check, verdict, msg);
    } else {
      fprintf(out, "hta-ingest: %s: %s (%s): %s\n", hpText(st, 2), check, verdict, msg);
    }
  }
  if (rc != SQLITE_DONE) snprintf(err, errlen, "hta_trace_health: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

int hp_print(sqlite3 *db, FILE *out, const char *const *jobs, int njobs, const char *const *files,
             int nfiles, char *err, size_t errlen) {
  int rc = 0;
  if (hr_use_extension(db, err, errlen) || hpFiles(db, files, nfiles, err, errlen)) return -1;
  for (int i = 0; rc == 0 && i < njobs; i++) rc = hpJob(db, out, jobs[i], err, errlen);
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.hp_files", NULL, NULL, NULL);
  return rc;
}

/*
** issues_print.c: the ingest issues printed after an ingest (issues_print.h).
**
** HOW IT WORKS: one query over ingest_issue joined to its trace; a row is printed when
** its trace's file_name (the path as the command line gave it) is one of this run's
** files, so a re-run that skips present files repeats nothing. Each line names the file,
** the rank, the job and the other files of that rank, e.g.
**   hta-ingest: warning: job/b.json: rank 1 is also the rank of job/a.json (job "job");
**   analyses keep the two apart by trace_id (HTA keeps one trace per rank)
*/
#include "issues_print.h"

#include <sqlite3.h>
#include <string.h>

static int ip_is_ours(const char *name, const char *const *paths, int n) {
  for (int i = 0; name && i < n; i++)
    if (paths[i] && !strcmp(paths[i], name)) return 1;
  return 0;
}

int ip_print(const char *db_path, const char *const *paths, int n, FILE *out) {
  static const char sql[] =
      "SELECT t.file_name, t.rank, j.name,"
      " (SELECT group_concat(o.file_name, ', ') FROM trace o"
      "   WHERE o.job_id = t.job_id AND o.rank = t.rank AND o.trace_id <> t.trace_id)"
      " FROM ingest_issue i JOIN trace t ON t.trace_id = i.trace_id"
      " LEFT JOIN job j ON j.job_id = t.job_id"
      " WHERE i.code = 'shared_rank' ORDER BY i.issue_id";
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int printed = 0;
  if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) goto ip_end;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) goto ip_end;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *file = (const char *)sqlite3_column_text(st, 0);
    if (!ip_is_ours(file, paths, n)) continue;
    const char *job = (const char *)sqlite3_column_text(st, 2);
    const char *others = (const char *)sqlite3_column_text(st, 3);
    fprintf(out,
            "hta-ingest: warning: %s: rank %lld is also the rank of %s (job \"%s\"); analyses "
            "keep them apart by trace_id (HTA keeps one trace per rank)\n",
            file, (long long)sqlite3_column_int64(st, 1), others ? others : "another trace",
            job ? job : "");
    printed++;
  }
ip_end:
  sqlite3_finalize(st);
  sqlite3_close(db);
  return printed;
}

/*
** list.c: hta-ingest --list (list.h).
**
**   job     ranks  range  files  steps  events  json_bytes  source
**   run_a       2    0-1      2      4    9123      812345  /data/run_a
**
** Columns are as wide as their widest cell (the jobs are few: all are read first);
** numbers right-aligned, text left-aligned, the last column unpadded.
*/
#include "list.h"

#include <stdlib.h>
#include <string.h>

#define LS_COLS 8

static const char *const ls_head[LS_COLS] = {"job",   "ranks",  "range",      "files",
                                             "steps", "events", "json_bytes", "source"};
static const int ls_right[LS_COLS] = {0, 1, 1, 1, 1, 1, 1, 0};

int ls_print(sqlite3 *db, FILE *out, char *err, size_t errlen) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT job, ranks, CASE WHEN files THEN min_rank || '-' || max_rank"
                         " ELSE '-' END, files, steps, events, json_bytes, coalesce(source, '')"
                         " FROM job_summary ORDER BY job_id",
                         -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s (a database of an older hta-ingest: hta-ingest --upgrade DB)",
             sqlite3_errmsg(db));
    return -1;
  }
  char **cells = NULL;
  size_t n = 0, cap = 0;
  int w[LS_COLS], rc;
  for (int c = 0; c < LS_COLS; c++) w[c] = (int)strlen(ls_head[c]);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n + LS_COLS > cap) {
      cap = cap ? cap * 2 : 64;
      char **p = realloc(cells, cap * sizeof *p);
      if (!p) break;
      cells = p;
    }
    for (int c = 0; c < LS_COLS; c++) {
      const char *t = (const char *)sqlite3_column_text(st, c);
      cells[n + (size_t)c] = strdup(t ? t : "");
      if (cells[n + (size_t)c] && (int)strlen(cells[n + (size_t)c]) > w[c])
        w[c] = (int)strlen(cells[n + (size_t)c]);
    }
    n += LS_COLS;
  }
  if (rc != SQLITE_DONE)
    snprintf(err, errlen, "%s", rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
  sqlite3_finalize(st);
  for (size_t i = 0; i < n && rc == SQLITE_DONE; i++)
    if (!cells[i]) snprintf(err, errlen, "out of memory"), rc = SQLITE_NOMEM;
  /* the header, then the rows: r counts cells, the header being "row -1" */
  for (size_t r = 0; rc == SQLITE_DONE && r <= n; r += LS_COLS) {
    for (int c = 0; c < LS_COLS; c++) {
      const char *t = r == 0 ? ls_head[c] : cells[r - LS_COLS + (size_t)c];
      if (c == LS_COLS - 1) fprintf(out, "%s\n", t);
      else fprintf(out, ls_right[c] ? "%*s  " : "%-*s  ", w[c], t);
    }
  }
  for (size_t i = 0; i < n; i++) free(cells[i]);
  free(cells);
  return rc == SQLITE_DONE ? 0 : -1;
}

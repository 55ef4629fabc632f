/*
** findings_print.c: hta-ingest --findings DB [--job NAME] (findings_print.h).
**
**   Job run_a (cost per step; share of the rank's mean step):
**
**      63.8%    7663 µs  rank 0  pageable_memcpy
**         9 copies between the GPU and pageable host memory take 7663 µs of host time
**         per step, most in aten::item
**         Try: A copy to or from pageable memory is staged by the driver and blocks ...
**
** Requirements (tests cite them as FP-n):
**  1. One part per job, in job order (only JOB's with --job); a job that is not in the
**     database is an error.
**  2. The rows of hta_findings with its defaults (min_pct 1), in its order; a job
**     without any prints "no findings above 1% of a step".
**  3. A finding without a time (the plugin's configuration and memory rules) shows "-"
**     for its share and time; one about the whole job says "job" instead of its rank; a
**     rank with several traces (profiling windows) also names the trace.
**  4. Titles and advice are wrapped at the width given, counting UTF-8 characters.
**  5. A rule's advice is printed once per job, at its first finding.
*/
#include "findings_print.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define FP_INDENT 6

/* Columns of the first N bytes of S (UTF-8: continuation bytes take none). */
static int fpCols(const char *s, size_t n) {
  int c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

/* Prints TEXT after PREFIX, wrapped at WIDTH, each line indented by FP_INDENT (FP-4). */
static void fpWrap(FILE *out, const char *prefix, const char *text, int width) {
  int col = FP_INDENT + fpCols(prefix, strlen(prefix)), start = col;
  fprintf(out, "%*s%s", FP_INDENT, "", prefix);
  while (*text) {
    while (*text == ' ') text++;
    if (!*text) break;
    size_t w = strcspn(text, " ");
    int wc = fpCols(text, w);
    if (col > start && col + 1 + wc > width) { /* the next line */
      fprintf(out, "\n%*s", FP_INDENT, "");
      col = start = FP_INDENT;
    } else if (col > start) {
      fputc(' ', out);
      col++;
    }
    fwrite(text, 1, w, out);
    col += wc;
    text += w;
  }
  fputc('\n', out);
}

/* The per-step time as the table shows it: µs below 10 ms, else ms. */
static void fpTime(char *buf, size_t n, double us) {
  if (us >= 10000) snprintf(buf, n, "%.1f ms", us / 1000.0);
  else snprintf(buf, n, "%.0f \xC2\xB5s", us);
}

/* Prints one job's findings (FP-2, FP-3). JOB NULL: the job without a name. */
static int fpJob(sqlite3 *db, FILE *out, const char *job, int width, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int n = 0, rc;
  /* job = ?1 hands the job to hta_findings (its xBestIndex takes EQ only: IS would
  ** analyse every job and filter after) */
#define FP_SQL                                                                 \
  "SELECT f.rank, f.rule, f.title, f.time_us, f.pct_of_step, f.advice,"        \
  " f.source, f.trace_id, (SELECT count(*) FROM trace t WHERE t.rank = f.rank" \
  " AND t.job_id = (SELECT trace.job_id FROM trace"                            \
  " WHERE trace.trace_id = f.trace_id)) FROM hta_findings f WHERE f.job "
  if (sqlite3_prepare_v2(db, job ? FP_SQL "= ?1" : FP_SQL "IS NULL", -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "hta_findings: %s", sqlite3_errmsg(db));
    return -1;
  }
  if (job) sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  char seen[1024] = ""; /* " rule rule ": the rules whose advice was printed */
  fprintf(out, "Job %s", job ? job : "(unnamed)");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    char who[64], share[16] = "-", t[32] = "-", key[80];
    const char *rule = (const char *)sqlite3_column_text(st, 1);
    if (n++ == 0) fprintf(out, " (cost per step; share of the rank's mean step):\n");
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) snprintf(who, sizeof who, "job");
    else if (sqlite3_column_int64(st, 8) > 1 && sqlite3_column_type(st, 7) != SQLITE_NULL)
      snprintf(who, sizeof who, "rank %lld / trace %lld", (long long)sqlite3_column_int64(st, 0),
               (long long)sqlite3_column_int64(st, 7));
    else snprintf(who, sizeof who, "rank %lld", (long long)sqlite3_column_int64(st, 0));
    if (sqlite3_column_type(st, 4) != SQLITE_NULL)
      snprintf(share, sizeof share, "%.1f%%", sqlite3_column_double(st, 4));
    if (sqlite3_column_type(st, 3) != SQLITE_NULL)
      fpTime(t, sizeof t, sqlite3_column_double(st, 3));
    int tpad = 9 + (int)strlen(t) - fpCols(t, strlen(t)); /* printf pads bytes, not columns */
    fprintf(out, "\n  %6s  %*s  %s  %s%s\n", share, tpad, t, who, sqlite3_column_text(st, 1),
            strcmp((const char *)sqlite3_column_text(st, 6), "tb_plugin")
                ? ""
                : " (TensorBoard plugin)");
    fpWrap(out, "", (const char *)sqlite3_column_text(st, 2), width);
    /* FP-5: each rule's advice once per job */
    snprintf(key, sizeof key, " %s ", rule);
    if (strstr(seen, key)) {
      fpWrap(out, "Try: as above.", "", width);
    } else {
      fpWrap(out, "Try: ", (const char *)sqlite3_column_text(st, 5), width);
      if (strlen(seen) + strlen(key) < sizeof seen) strcat(seen, key + (seen[0] != 0));
    }
  }
  if (rc != SQLITE_DONE) snprintf(err, errlen, "hta_findings: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE && n == 0) fprintf(out, ": no findings above 1%% of a step\n");
  else if (rc == SQLITE_DONE) fputc('\n', out);
  return rc == SQLITE_DONE ? 0 : -1;
}

int fp_print(sqlite3 *db, FILE *out, const char *job, int width, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  char **names = NULL;
  int *named = NULL, n = 0, rc = 0;
  if (width < 40) width = 40;
  if (hr_use_extension(db, err, errlen)) return -1;
  /* FP-1: the jobs first (a statement open on the database while the analyses run is fine,
  ** but the names are few) */
  if (sqlite3_prepare_v2(db,
                         "SELECT j.name FROM trace t LEFT JOIN job j ON j.job_id = t.job_id"
                         " WHERE ?1 IS NULL OR j.name = ?1 GROUP BY t.job_id ORDER BY t.job_id",
                         -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "%s (a database of an older hta-ingest: hta-ingest --upgrade DB)",
             sqlite3_errmsg(db));
    return -1;
  }
  if (job) sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(st, 0);
    char **nn = realloc(names, (size_t)(n + 1) * sizeof *names);
    int *nd = realloc(named, (size_t)(n + 1) * sizeof *named);
    if (nn) names = nn;
    if (nd) named = nd;
    if (!nn || !nd || (z && !(names[n] = strdup(z)))) {
      snprintf(err, errlen, "out of memory");
      rc = -1;
      break;
    }
    if (!z) names[n] = NULL;
    named[n++] = z != NULL;
  }
  sqlite3_finalize(st);
  if (rc == 0 && job && n == 0) {
    snprintf(err, errlen, "no job named '%s' (hta-ingest --list DB lists them)", job);
    rc = -1;
  }
  if (rc == 0 && n == 0) fprintf(out, "no findings above 1%% of a step\n");
  for (int i = 0; rc == 0 && i < n; i++)
    rc = fpJob(db, out, named[i] ? names[i] : NULL, width, err, errlen);
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  free(named);
  return rc;
}

/*
** findings_print.c: hta-ingest --findings DB [--job NAME] (findings_print.h).
**
**   Job run_a
**
**   rank 0: 64.0% of the 1000 µs step is recoverable (GPU computes 32.8%; 673 µs idle, 640 µs
**   of it with a cause)
**     note: no ProfilerStep: the per-step analyses see the whole window (1.00 ms) as one step
**
**      24.8%    248 µs  blocking_copy (cause)
**         A blocking copy of 60 B (cudaMemcpy in aten::to) leaves the GPU idle 248 µs per step
**         Try: A copy from or to pageable host memory ...
**
** Requirements (tests cite them as FP-n):
**  1. One part per job, in job order (only JOB's with --job); a job that is not in the
**     database is an error.
**  2. The rows of hta_findings with its defaults (min_pct 1). Per trace (the job's own
**     findings first): its summary (rule 'step') first, as one line: the recoverable
**     share of the step, then the step, the GPU's share and the idle time with a cause
**     (and the wait on GPU work from before the trace: findings_rows.c FR-2); the
**     summary's caveats under it, once (its own, such as where the idle time without a
**     cause waited longest, then its trace's).
**  3. Then each symptom, with the causes whose parent it is indented under it; then the
**     causes under no symptom, the busy findings, the configurations; each group in
**     hta_findings' order (time_us descending). A trace with nothing but its summary
**     says "nothing else above 1% of the step"; a job without any row prints "no
**     findings above 1% of a step".
**  4. A finding: its share of the step and its time per step ("-" without), its rule and
**     kind (and "TensorBoard plugin" for the plugin's), the title, "Try:" and its advice
**     (once per rule per job; then "as above"), and the finding's own caveats (those its
**     trace's summary did not print) as "note:" lines. A rank of several traces names
**     the trace; a finding about the whole job says "job".
**  5. Titles, advice and notes are wrapped at the width given, counting UTF-8 characters.
**  6. Times read as people read them (findings_rows.c FR-3).
*/
#include "findings_print.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findings_rows.h"
#include "report.h"

#define FP_MAX_SEEN 2048

/* Columns of the first N bytes of S (UTF-8: continuation bytes take none). */
static int fpCols(const char *s, size_t n) {
  int c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

/* Prints TEXT after PREFIX, wrapped at WIDTH, each line indented by INDENT (FP-5). */
static void fpWrap(FILE *out, int indent, const char *prefix, const char *text, int width) {
  int col = indent + fpCols(prefix, strlen(prefix)), start = col;
  fprintf(out, "%*s%s", indent, "", prefix);
  while (text && *text) {
    while (*text == ' ') text++;
    if (!*text) break;
    size_t w = strcspn(text, " ");
    int wc = fpCols(text, w);
    if (col > start && col + 1 + wc > width) { /* the next line */
      fprintf(out, "\n%*s", indent + 2, "");
      col = start = indent + 2;
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

/* The caveat texts of a JSON array (caveats column) through SQLite's json_each. */
static int fpNotes(sqlite3 *db, const char *caveats, char ***pv, int *pn) {
  sqlite3_stmt *st = NULL;
  *pv = NULL;
  *pn = 0;
  if (!caveats || sqlite3_prepare_v2(db, "SELECT json_extract(value, '$.text') FROM json_each(?1)",
                                     -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, caveats, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(st, 0);
    char **v = realloc(*pv, (size_t)(*pn + 1) * sizeof **pv);
    if (!v || !z) {
      if (v) *pv = v;
      continue;
    }
    *pv = v;
    if (((*pv)[*pn] = strdup(z))) (*pn)++;
  }
  sqlite3_finalize(st);
  return 0;
}

static void fpNotesFree(char **v, int n) {
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* FP-4: one finding at INDENT; SEEN holds the rules whose advice was printed, SHOWN the
** notes its trace's summary printed. */
static void fpFinding(sqlite3 *db, FILE *out, const fr_row *r, int indent, int width, char *seen,
                      char **shown, int nshown, int several) {
  char share[16] = "-", t[32] = "-", key[80], who[64] = "";
  if (r->has_pct) snprintf(share, sizeof share, "%.1f%%", r->pct);
  if (r->has_time) fr_time(t, sizeof t, r->time_us);
  if (!r->has_rank) snprintf(who, sizeof who, "job  ");
  else if (several && r->has_trace) snprintf(who, sizeof who, "trace %lld  ", r->trace_id);
  int tpad = 9 + (int)strlen(t) - fpCols(t, strlen(t)); /* printf pads bytes, not columns */
  fprintf(out, "\n%*s%6s  %*s  %s%s (%s%s)\n", indent, "", share, tpad, t, who, r->rule, r->kind,
          r->plugin ? ", TensorBoard plugin" : "");
  fpWrap(out, indent + 4, "", r->title, width);
  snprintf(key, sizeof key, " %s/%s ", r->rule, r->plugin ? "tb" : "h");
  if (strstr(seen, key)) {
    fpWrap(out, indent + 4, "Try: as above.", "", width);
  } else {
    fpWrap(out, indent + 4, "Try: ", r->advice, width);
    if (strlen(seen) + strlen(key) < FP_MAX_SEEN) strcat(seen, key + (seen[0] != 0));
  }
  char **notes;
  int nn;
  fpNotes(db, r->caveats, &notes, &nn);
  for (int i = 0; i < nn; i++) {
    int dup = 0;
    for (int k = 0; k < nshown && !dup; k++) dup = !strcmp(notes[i], shown[k]);
    if (!dup) fpWrap(out, indent + 4, "note: ", notes[i], width);
  }
  fpNotesFree(notes, nn);
}

/* FP-2: the summary line of a trace. */
static void fpSummary(sqlite3 *db, FILE *out, const fr_row *r, int width, int several) {
  char line[640], who[64], b1[32], b2[32], b3[32], b4[32], before[96] = "";
  fr_summary f;
  fr_summary_read(db, r, &f); /* all 0 when it cannot be read */
  if (several) snprintf(who, sizeof who, "rank %lld / trace %lld", r->rank, r->trace_id);
  else snprintf(who, sizeof who, "rank %lld", r->rank);
  fr_time(b1, sizeof b1, f.step_us);
  fr_time(b2, sizeof b2, f.idle_us);
  fr_time(b3, sizeof b3, f.attributed_us);
  if (f.before_us > 0) {
    fr_time(b4, sizeof b4, f.before_us);
    snprintf(before, sizeof before, ", %s waiting on GPU work from before the trace", b4);
  }
  snprintf(line, sizeof line,
           "%s: %.1f%% of the %s step is recoverable (the GPU computes %.1f%% of it; %s idle, %s "
           "of it with a cause%s)",
           who, r->has_pct ? r->pct : 0.0, b1, f.busy_pct, b2, b3, before);
  fputc('\n', out);
  fpWrap(out, 0, "", line, width);
}

/* Prints one job's findings (FP-2..4). JOB NULL: the job without a name. */
static int fpJob(sqlite3 *db, FILE *out, const char *job, int width, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  fr_row *rows = NULL;
  long n = 0;
  int rc;
  /* job = ?1 hands the job to hta_findings (its xBestIndex takes EQ only: IS would
  ** analyse every job and filter after) */
#define FP_SQL                                                                               \
  "SELECT f.rank, f.trace_id, f.rule, f.kind, f.parent, f.source, f.time_us, f.pct_of_step," \
  " f.title, f.advice, f.caveats, f.evidence FROM hta_findings f WHERE f.job "
  if (sqlite3_prepare_v2(db, job ? FP_SQL "= ?1" : FP_SQL "IS NULL", -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "hta_findings: %s", sqlite3_errmsg(db));
    return -1;
  }
  if (job) sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  rc = fr_load(st, &rows, &n);
  if (rc == SQLITE_NOMEM) snprintf(err, errlen, "out of memory");
  else if (rc != SQLITE_DONE) snprintf(err, errlen, "hta_findings: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  long *order = malloc((size_t)(n ? n : 1) * sizeof *order);
  unsigned char *sub = malloc((size_t)(n ? n : 1));
  if (rc == SQLITE_DONE && (!order || !sub)) {
    snprintf(err, errlen, "out of memory");
    rc = SQLITE_NOMEM;
  }
  fprintf(out, "Job %s", job ? job : "(unnamed)");
  if (rc == SQLITE_DONE && n == 0) fprintf(out, ": no findings above 1%% of a step\n");
  else if (rc == SQLITE_DONE) fputc('\n', out);
  long m = rc == SQLITE_DONE ? fr_order(rows, n, order, sub) : 0;
  char seen[FP_MAX_SEEN + 80] = "";
  char **shown = NULL;
  int nshown = 0, several = 0;
  for (long k = 0; k < m; k++) {
    const fr_row *r = &rows[order[k]];
    if (k == 0 || !fr_same_trace(r, &rows[order[k - 1]])) { /* a new trace (FP-2) */
      fpNotesFree(shown, nshown);
      shown = NULL, nshown = 0, several = 0;
      for (long i = 0; r->has_rank && i < n; i++) /* a rank of several traces */
        several |= rows[i].has_rank && rows[i].rank == r->rank && rows[i].has_trace &&
                   rows[i].trace_id != r->trace_id;
      if (!strcmp(r->kind, "summary")) {
        fpSummary(db, out, r, width, several);
        fpNotes(db, r->caveats, &shown, &nshown);
        for (int c = 0; c < nshown; c++) fpWrap(out, 2, "note: ", shown[c], width);
        if (k + 1 == m || !fr_same_trace(r, &rows[order[k + 1]]))
          fprintf(out, "  nothing else above 1%% of the step\n");
        continue;
      }
    }
    fpFinding(db, out, r, sub[k] ? 6 : 2, width, seen, shown, nshown, several);
  }
  fpNotesFree(shown, nshown);
  free(order);
  free(sub);
  fr_free(rows, n);
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
  for (int i = 0; rc == 0 && i < n; i++) {
    if (i) fputc('\n', out);
    rc = fpJob(db, out, named[i] ? names[i] : NULL, width, err, errlen);
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  free(named);
  return rc;
}

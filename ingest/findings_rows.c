/*
** findings_rows.c: hta_findings' rows for people to read (findings_rows.h).
**
** Requirements (tests cite them as FR-n):
**  1. fr_order: the rows of one trace stay together (in the order hta_findings gives the
**     traces); within a trace, the summary, then each symptom with the causes whose parent
**     it is right under it, then the other causes, busy findings and configurations, each
**     group in hta_findings' order (time_us descending).
**  2. fr_summary_read: the summary's figures from its evidence, the wait on GPU work
**     from before the trace (before_trace_us) among them: the printers say it when it is
**     not 0, as the summary's own title does (findings_step.c FSS-5).
**  3. Times as people read them: µs under 10 ms, ms under 10 s, else s.
*/
#include "findings_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *frDup(sqlite3_stmt *st, int col, int *oom) {
  const char *z = (const char *)sqlite3_column_text(st, col);
  char *d = z ? strdup(z) : NULL;
  if (z && !d) *oom = 1;
  return d;
}

int fr_load(sqlite3_stmt *st, fr_row **pr, long *pn) {
  fr_row *rows = NULL;
  long n = 0, cap = 0;
  int rc, oom = 0;
  while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == cap) {
      fr_row *v = realloc(rows, (size_t)(cap = cap ? 2 * cap : 32) * sizeof *v);
      if (!v) {
        oom = 1;
        break;
      }
      rows = v;
    }
    fr_row *r = &rows[n++];
    memset(r, 0, sizeof *r);
    r->has_rank = sqlite3_column_type(st, 0) != SQLITE_NULL;
    r->rank = sqlite3_column_int64(st, 0);
    r->has_trace = sqlite3_column_type(st, 1) != SQLITE_NULL;
    r->trace_id = sqlite3_column_int64(st, 1);
    r->rule = frDup(st, 2, &oom);
    r->kind = frDup(st, 3, &oom);
    r->parent = frDup(st, 4, &oom);
    r->plugin = sqlite3_column_text(st, 5) &&
                !strcmp((const char *)sqlite3_column_text(st, 5), "tb_plugin");
    r->has_time = sqlite3_column_type(st, 6) != SQLITE_NULL;
    r->time_us = sqlite3_column_double(st, 6);
    r->has_pct = sqlite3_column_type(st, 7) != SQLITE_NULL;
    r->pct = sqlite3_column_double(st, 7);
    r->title = frDup(st, 8, &oom);
    r->advice = frDup(st, 9, &oom);
    r->caveats = frDup(st, 10, &oom);
    r->evidence = frDup(st, 11, &oom);
  }
  *pr = rows;
  *pn = n;
  return oom ? SQLITE_NOMEM : rc;
}

void fr_free(fr_row *r, long n) {
  for (long i = 0; i < n; i++) {
    free(r[i].rule);
    free(r[i].kind);
    free(r[i].parent);
    free(r[i].title);
    free(r[i].advice);
    free(r[i].caveats);
    free(r[i].evidence);
  }
  free(r);
}

int fr_same_trace(const fr_row *a, const fr_row *b) {
  return a->has_rank == b->has_rank && a->rank == b->rank && a->has_trace == b->has_trace &&
         a->trace_id == b->trace_id;
}

void fr_time(char *buf, size_t n, double us) {
  if (us >= 1e7) snprintf(buf, n, "%.2f s", us / 1e6);
  else if (us >= 1e4) snprintf(buf, n, "%.1f ms", us / 1000.0);
  else snprintf(buf, n, "%.0f \xC2\xB5s", us);
}

int fr_summary_read(sqlite3 *db, const fr_row *r, fr_summary *s) {
  sqlite3_stmt *q = NULL;
  int ok = 0;
  memset(s, 0, sizeof *s);
  if (sqlite3_prepare_v2(db,
                         "SELECT json_extract(?1, '$.step_us'), json_extract(?1, '$.busy_pct'),"
                         " json_extract(?1, '$.idle_us'), json_extract(?1, '$.attributed_us'),"
                         " json_extract(?1, '$.before_trace_us')",
                         -1, &q, NULL) != SQLITE_OK) {
    sqlite3_finalize(q);
    return 0;
  }
  sqlite3_bind_text(q, 1, r->evidence ? r->evidence : "{}", -1, SQLITE_STATIC);
  if (sqlite3_step(q) == SQLITE_ROW) {
    s->step_us = sqlite3_column_double(q, 0);
    s->busy_pct = sqlite3_column_double(q, 1);
    s->idle_us = sqlite3_column_double(q, 2);
    s->attributed_us = sqlite3_column_double(q, 3);
    s->before_us = sqlite3_column_double(q, 4);
    ok = 1;
  }
  sqlite3_finalize(q);
  return ok;
}

static int frIs(const fr_row *r, const char *kind) { return r->kind && !strcmp(r->kind, kind); }

long fr_order(const fr_row *r, long n, long *order, unsigned char *sub) {
  static const char *const kinds[] = {"summary", "symptom", "cause", "busy", "configuration"};
  long m = 0;
  unsigned char *done = calloc(n > 0 ? (size_t)n : 1, 1);
  if (!done) return 0;
  for (long i = 0; i < n;) { /* FR-1: one trace (or the job) at a time */
    long j = i;
    while (j < n && fr_same_trace(&r[j], &r[i])) j++;
    for (int pass = 0; pass < 5; pass++) {
      for (long k = i; k < j; k++) {
        if (done[k] || !frIs(&r[k], kinds[pass])) continue;
        if (pass == 2 && r[k].parent) { /* under its symptom, when that is here */
          int under = 0;
          for (long s = i; s < j && !under; s++)
            under = frIs(&r[s], "symptom") && r[s].rule && !strcmp(r[s].rule, r[k].parent);
          if (under) continue;
        }
        done[k] = 1;
        sub[m] = 0;
        order[m++] = k;
        for (long c = i; pass == 1 && c < j; c++) { /* its causes */
          if (done[c] || !frIs(&r[c], "cause") || !r[c].parent || !r[k].rule ||
              strcmp(r[c].parent, r[k].rule))
            continue;
          done[c] = 1;
          sub[m] = 1;
          order[m++] = c;
        }
      }
    }
    i = j;
  }
  free(done);
  return m;
}

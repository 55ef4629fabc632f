/*
** job_diff_rows.c: what hta_job_diff_summary's splits share (job_diff.h): the
** apportionment that makes the parts add up exactly (JS-2), a row with both sides' ns,
** and which splits a WHERE split = 'x' asks for. Below job_diff_summary.c and
** job_diff_account.c, which both call it.
*/
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

void jd_apportion(const int64_t *tot, int np, int64_t nsteps, int64_t *out, int64_t *step) {
  int64_t sum = 0, base = 0, rem[JD_MAXPART];
  for (int p = 0; p < np; p++) {
    out[p] = tot[p] / nsteps;
    rem[p] = tot[p] % nsteps;
    sum += tot[p];
    base += out[p];
  }
  *step = sum / nsteps;
  for (int64_t extra = *step - base; extra > 0; extra--) {
    int best = -1;
    for (int p = 0; p < np; p++)
      if (rem[p] > 0 && (best < 0 || rem[p] > rem[best])) best = p;
    if (best < 0) break;
    out[best]++;
    rem[best] = 0;
  }
}

static double jsUs(int64_t ns) { return (double)ns / 1000.0; }

hta_cell *jd_summary_row(hta_table *out, const jd_pair *p, const char *split, const char *part,
                         int64_t c, int64_t t, int64_t step_delta) {
  hta_cell *row = hta_table_add_row(out);
  if (!row) return 0;
  hta_cell_static(&row[JS_PART], part);
  hta_cell_static(&row[JS_SPLIT], split);
  hta_cell_double(&row[JS_US], jsUs(c));
  hta_cell_double(&row[JS_US + 1], jsUs(t));
  hta_cell_double(&row[JS_US + 2], jsUs(t - c));
  hta_cell_int(&row[JS_NS], c);
  hta_cell_int(&row[JS_NS + 1], t);
  hta_cell_int(&row[JS_NS + 2], t - c);
  if (step_delta) hta_cell_double(&row[JS_SHARE], (double)(t - c) / (double)step_delta);
  hta_cell_int(&row[JS_TRACE], p->t[0].trace_id);
  hta_cell_int(&row[JS_TRACE + 1], p->t[1].trace_id);
  return row;
}

int jd_wants_split(const jd_pair *p, const char *split) {
  return !p->split || !strcmp(p->split, split);
}

/*
** report_health.c: the "Trace health" block at the top of each job's part of the HTML
** report (report.c HR-10): the checks of hta_trace_health that failed or warned, before
** anything the analyses say is read.
**
** Requirements (tests cite them as HRH-n):
**  1. One line says how many checks failed and warned of how many, on how many traces.
**  2. Then a table of the checks that are not 'ok': failures first, then by rank, trace
**     and check; who (the trace's label, "job" for the job's own check), the check, its
**     verdict, value and threshold, and its message. Every check ok: the line says so
**     and there is no table.
**  3. The SQL of the table is under it, as everywhere.
*/
#include <string.h>

#include "report_int.h"

static const char hrh_sql[] =
    "SELECT rank, trace_id, \"check\", verdict, value, threshold, message\n"
    "FROM hta_trace_health WHERE verdict != 'ok'\n"
    "ORDER BY verdict = 'warn', rank, trace_id, \"check\"";

/* A value or threshold cell. */
static void hrhCell(sv_buf *o, sqlite3_stmt *st, int c) {
  sv_puts(o, "</td><td class=\"n\">");
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: sv_puts(o, "-"); break;
  case SQLITE_INTEGER: sv_printf(o, "%lld", (long long)sqlite3_column_int64(st, c)); break;
  case SQLITE_FLOAT: sv_num(o, sqlite3_column_double(st, c)); break;
  default: sv_esc(o, (const char *)sqlite3_column_text(st, c));
  }
}

void hrHealth(hr_ctx *x) {
  sv_buf *o = x->o;
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT count(*), sum(verdict = 'fail'), sum(verdict = 'warn'),"
                            " count(DISTINCT trace_id) FROM hta_trace_health",
                            "trace health");
  long long all = 0, nfail = 0, nwarn = 0, ntraces = 0;
  if (st && hrStep(x, st, "trace health") == SQLITE_ROW) {
    all = sqlite3_column_int64(st, 0);
    nfail = sqlite3_column_int64(st, 1);
    nwarn = sqlite3_column_int64(st, 2);
    ntraces = sqlite3_column_int64(st, 3);
  }
  sqlite3_finalize(st);
  if (x->fatal) return;
  sv_printf(o, "<div id=\"%shealth\"><h2>Trace health</h2>\n<p class=\"what\">", x->idp);
  if (nfail + nwarn == 0) /* HRH-1 */
    sv_printf(o, "All %lld checks of <code>hta_trace_health</code> on %lld trace%s say ok.</p>\n",
              all, ntraces, ntraces == 1 ? "" : "s");
  else
    sv_printf(o,
              "Of the %lld checks of <code>hta_trace_health</code> on %lld trace%s, %lld "
              "failed and %lld warned: read what the sections below say with these in mind.</p>\n",
              all, ntraces, ntraces == 1 ? "" : "s", nfail, nwarn);
  if (nfail + nwarn > 0 && (st = hrPrep(x, hrh_sql, "trace health"))) { /* HRH-2 */
    sv_puts(o,
            "<div class=\"tw fd\"><table class=\"fd\"><thead><tr><th>who</th><th>check</th>"
            "<th>verdict</th><th class=\"n\">value</th><th class=\"n\">threshold</th>"
            "<th>what it means</th></tr></thead><tbody>");
    while (hrStep(x, st, "trace health") == SQLITE_ROW) {
      const char *verdict = (const char *)sqlite3_column_text(st, 3);
      sv_puts(o, "<tr><td>");
      if (sqlite3_column_type(st, 1) == SQLITE_NULL) sv_puts(o, "job");
      else {
        const char *label = hrLabel(x, sqlite3_column_int64(st, 1));
        if (strcmp(label, "?")) sv_esc(o, label);
        else /* a trace the analyses do not see: no event they keep */
          sv_printf(o, "rank %lld / trace %lld", (long long)sqlite3_column_int64(st, 0),
                    (long long)sqlite3_column_int64(st, 1));
      }
      sv_puts(o, "</td><td><code>");
      sv_esc(o, (const char *)sqlite3_column_text(st, 2));
      sv_printf(o, "</code></td><td style=\"color:%s;font-weight:600\">",
                verdict && !strcmp(verdict, "fail") ? "#d62728" : "#b8860b");
      sv_esc(o, verdict);
      hrhCell(o, st, 4);
      hrhCell(o, st, 5);
      sv_puts(o, "</td><td class=\"fda\">");
      sv_esc(o, (const char *)sqlite3_column_text(st, 6));
      sv_puts(o, "</td></tr>");
    }
    sqlite3_finalize(st);
    sv_puts(o, "</tbody></table></div>\n");
  }
  sv_puts(o, "<details><summary>SQL</summary><pre>"); /* HRH-3 */
  sv_esc(o, hrh_sql);
  sv_puts(o, "</pre></details>\n</div>\n");
}

/*
** report.c: the HTML report of hta-ingest (`hta-ingest --report OUT.html DB`).
**
**   char err[HR_ERR_MAX];
**   switch (hr_write_report(db, "report.html", NULL, err, sizeof err)) { ... }
**
** One self-contained file (inline CSS and SVG, no script, no network) with the
** charts HTA draws, in HTA's order, each followed by the table it is drawn from
** and, folded under "SQL", the query that makes that table:
**
**   1. Overview: the traces (one per file) and the ingest issues.
**   2. Temporal breakdown: idle / compute / non-compute % per rank (stacked bars).
**   3. Kernel type breakdown: pie over all ranks.
**   4. Top kernels per type per rank: pies (hta_kernel_breakdown defaults).
**   5. Kernel duration across ranks: mean per rank with min/max whiskers, for
**      the HR_TOP_ACROSS kernels of each type with the largest total time.
**   6. Idle time per stream: absolute (µs) and percentage, stacked by category;
**      the idle interval statistics.
**   7. Communication / computation overlap per rank.
**   8. Queue length over time per stream, and 9. memory bandwidth over time per
**      memory kind, for the shown ranks; their summaries for every rank.
**  10. Kernel launch statistics: log-scale histograms of CPU launch duration,
**      launch delay (with the runtime and launch-delay cutoffs) and of the GPU
**      duration of short kernels; per-rank counts and the worst delays.
**  11. Collectives, 12. memory, 13. critical path: in report_more.c.
**  14. GPU kernels and operators: in report_ops.c.
**  15 (shown as 16). Operator performance (roofline, top operators): in report_perf.c.
**  16 (shown as 17). The TensorBoard plugin's Overview, GPU summary and Distributed view: report_tb.c.
**  Before them all, numbered 1: the findings (report_findings.c), what to fix first.
**
** Requirements (tests cite them as HR-n):
**  1. Every analysis runs through SQL on the caller's connection with HTA's
**     default parameters; the SQL shown under a table makes that table. (A
**     chart and its tables read one run of the analysis, copied into a TEMP
**     table that is dropped at the end.)
**  2. Per-rank detail (pies, idle time, time series) covers at most
**     HR_MAX_RANKS ranks: all when there are that few, else the lowest, the
**     highest and evenly spaced ones between; the report says which.
**  3. Time series are downsampled to min/max per pixel column (svg.c SV-4), so
**     the file stays small for any trace and no peak is lost; the series used are
**     the tie-collapsed ones (collapse_ties = 1: one point per timestamp).
**  4. Tables show at most HR_TABLE_ROWS rows and say how many were left out.
**  5. An analysis that fails (SQL error) shows its message in its section and
**     the report is still written (HR_PARTIAL); out of memory, an interrupt or
**     an unwritable output gives HR_FAILED and no file.
**  6. The output is written to OUT.tmp-PID and renamed into place, so a reader
**     never sees half a report. The database is only read.
**  7. A trace whose rank is shared with another trace (two profiling windows of
**     one worker) is labelled "rank R / trace T" wherever ranks are labelled.
**  8. Jobs are never mixed: every section reads one job (the one asked for, else
**     each job of the database in turn, under its own heading, with its own
**     numbered sections); a job that is not in the database is an error.
**  9. Each job's part opens with its findings (hta_findings): section 1,
**     first in the contents; the sections above follow, numbered from 2.
**
** HOW IT WORKS: the extension is registered on the connection (hta-ingest links
** it statically). Every statement goes through hrScoped, which puts the job's
** filter on each table-valued function and on trace, device and ingest_issue
** after FROM or JOIN (FROM hta_x(..) becomes FROM (SELECT * FROM hta_x(..) WHERE
** job IS 'NAME')). Each analysis that feeds a chart runs once into temp.hr_*
** (hrMat); the chart reads that copy with a prepared statement, and its tables
** are rendered by one generic function (hrTableOf) from a SELECT over the copy,
** shown as the same SELECT over the analysis. The whole page is built in an
** sv_buf (svg.h) and written once.
*/
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_int.h"
#include "svg.h"
#include "version.h"

/* ext/hta.c: the default entry point, linked statically into hta-ingest. Weak, so
** that programs linking the ingest objects without the extension (fuzzers) still
** link; hr_write_report() then fails with a message instead of crashing. */
__attribute__((weak)) int sqlite3_hta_init(sqlite3 *db, char **pzErrMsg,
                                           const sqlite3_api_routines *pApi);

/* Records a failed statement and shows its message in the current section. */
void hrFail(hr_ctx *x, const char *what) {
  int rc = sqlite3_errcode(x->db);
  const char *msg = sqlite3_errmsg(x->db);
  if (!x->failures++) snprintf(x->err, sizeof x->err, "%s: %s", what, msg);
  if (rc == SQLITE_NOMEM || rc == SQLITE_INTERRUPT) x->fatal = rc;
  sv_puts(x->o, "<p class=\"error\">");
  sv_esc(x->o, what);
  sv_puts(x->o, " failed: ");
  sv_esc(x->o, msg);
  sv_puts(x->o, "</p>\n");
}

/* The length of the identifier at P (letters, digits, '_'). */
static size_t hrIdent(const char *p) {
  size_t n = 0;
  while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
         (p[n] >= '0' && p[n] <= '9'))
    n++;
  return n;
}

/* SQL with the job's filter on every source after FROM or JOIN (HR-8): a
** table-valued function hta_x or hta_x(...), trace, device, ingest_issue. The
** report's SQL never quotes these words, so a plain scan is enough. NULL on OOM. */
/* The traces a section shows are its job's profiled ones: a graph capture (schema.sql,
** capture) is no window of its rank. Indexed by hr_ctx.has_capture. */
static const char *const hr_no_captures[2] = {
    "", " AND trace_id NOT IN (SELECT trace_id FROM main.capture)"};

static char *hrScoped(hr_ctx *x, const char *sql) {
  sqlite3_str *s = sqlite3_str_new(x->db);
  const char *p = sql;
  while (*p) {
    const char *kw = NULL;
    if (!strncmp(p, "FROM ", 5)) kw = p + 5;
    else if (!strncmp(p, "JOIN ", 5)) kw = p + 5;
    if (!kw || (p > sql && hrIdent(p - 1) > 0)) {
      sqlite3_str_appendchar(s, 1, *p++);
      continue;
    }
    size_t n = hrIdent(kw);
    sqlite3_str_append(s, p, (int)(kw - p));
    if (n > 4 && !strncmp(kw, "hta_", 4)) {
      const char *e = kw + n;
      if (*e == '(') { /* the arguments, balanced */
        int depth = 0;
        do {
          if (*e == '(') depth++;
          else if (*e == ')') depth--;
          e++;
        } while (*e && depth > 0);
      }
      /* "=" hands the job to the analysis (its xBestIndex takes EQ only); IS would run
      ** every job of the database and filter after */
      sqlite3_str_appendf(s, "(SELECT * FROM %.*s WHERE job %s %s)", (int)(e - kw), kw,
                          strcmp(x->job_q, "NULL") ? "=" : "IS", x->job_q);
      p = e;
    } else if (n == 5 && !strncmp(kw, "trace", 5)) {
      sqlite3_str_appendf(s, "(SELECT * FROM main.trace WHERE job_id = %lld%s)",
                          (long long)x->job_id, hr_no_captures[x->has_capture]);
      p = kw + n;
    } else if ((n == 6 && !strncmp(kw, "device", 6)) ||
               (n == 12 && !strncmp(kw, "ingest_issue", 12))) {
      sqlite3_str_appendf(s,
                          "(SELECT * FROM main.%.*s WHERE trace_id IN"
                          " (SELECT trace_id FROM main.trace WHERE job_id = %lld%s))",
                          (int)n, kw, (long long)x->job_id, hr_no_captures[x->has_capture]);
      p = kw + n;
    } else {
      p = kw;
    }
  }
  if (sqlite3_str_errcode(s)) {
    sqlite3_free(sqlite3_str_finish(s));
    return NULL;
  }
  return sqlite3_str_finish(s);
}

/* Prepares SQL in the job's scope (NULL after recording the failure). WHAT names
** it in messages. */
sqlite3_stmt *hrPrep(hr_ctx *x, const char *sql, const char *what) {
  sqlite3_stmt *st = NULL;
  if (x->fatal) return NULL;
  char *scoped = hrScoped(x, sql);
  if (!scoped) {
    hrOom(x);
    return NULL;
  }
  int rc = sqlite3_prepare_v2(x->db, scoped, -1, &st, NULL);
  sqlite3_free(scoped);
  if (rc != SQLITE_OK) {
    hrFail(x, what);
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

/* sqlite3_step(); an error is recorded and reads as the end of the rows. */
int hrStep(hr_ctx *x, sqlite3_stmt *st, const char *what) {
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
  hrFail(x, what);
  return SQLITE_DONE;
}

/* The label of TRACE_ID ("?" for a trace the analyses do not see). */
const char *hrLabel(const hr_ctx *x, int64_t trace_id) {
  int lo = 0, hi = x->by_id ? x->ntr : 0;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    int64_t id = x->by_id[mid].trace_id;
    if (id == trace_id) return x->tr[x->by_id[mid].i].label;
    if (id < trace_id) lo = mid + 1;
    else hi = mid;
  }
  return "?";
}

static int hrCmpId(const void *a, const void *b) {
  int64_t x = ((const struct hr_idref *)a)->trace_id, y = ((const struct hr_idref *)b)->trace_id;
  return x < y ? -1 : x > y;
}

double hrCol(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int hrPush(hr_vec *a, double v) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    double *p = realloc(a->v, cap * sizeof *p);
    if (!p) return -1;
    a->v = p, a->cap = cap;
  }
  a->v[a->n++] = v;
  return 0;
}

int hrPushStr(hr_strs *a, const char *s) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    char **p = realloc(a->v, cap * sizeof *p);
    if (!p) return -1;
    a->v = p, a->cap = cap;
  }
  char *c = strdup(s ? s : "");
  if (!c) return -1;
  a->v[a->n++] = c;
  return 0;
}

void hrStrsFree(hr_strs *a) {
  for (size_t i = 0; i < a->n; i++) free(a->v[i]);
  free(a->v);
  memset(a, 0, sizeof *a);
}

void hrOom(hr_ctx *x) {
  if (!x->fatal) {
    x->fatal = SQLITE_NOMEM;
    if (!x->failures++) snprintf(x->err, sizeof x->err, "out of memory");
  }
}

/* ---------------------------------------------------------------- tables */

static int hrIsNumericDecl(sqlite3_stmt *st, int i) {
  const char *t = sqlite3_column_decltype(st, i);
  return t && (strstr(t, "INT") || strstr(t, "REAL"));
}

/* Renders the rows of ST as an HTML table, then SQL (the query to show), and
** finalizes ST (HR-1, HR-4). */
static void hrRows(hr_ctx *x, sqlite3_stmt *st, const char *sql, const char *what) {
  sv_buf *o = x->o;
  int ncol = sqlite3_column_count(st);
  sv_puts(o, "<div class=\"tw\"><table><thead><tr>");
  for (int i = 0; i < ncol; i++) { /* long names may break after an underscore only */
    const char *name = sqlite3_column_name(st, i);
    sv_puts(o, hrIsNumericDecl(st, i) ? "<th class=\"n\">" : "<th>");
    for (const char *p = name ? name : ""; *p; p++) {
      char c[2] = {*p, 0};
      sv_esc(o, c);
      if (*p == '_' && p[1]) sv_puts(o, "<wbr/>");
    }
    sv_puts(o, "</th>");
  }
  sv_puts(o, "</tr></thead><tbody>");
  long rows = 0;
  while (hrStep(x, st, what) == SQLITE_ROW) {
    if (++rows > HR_TABLE_ROWS) continue;
    sv_puts(o, "<tr>");
    for (int i = 0; i < ncol; i++) {
      int t = sqlite3_column_type(st, i);
      if (t == SQLITE_INTEGER) {
        sv_printf(o, "<td class=\"n\">%lld</td>", (long long)sqlite3_column_int64(st, i));
      } else if (t == SQLITE_FLOAT) {
        sv_puts(o, "<td class=\"n\">");
        sv_num(o, sqlite3_column_double(st, i));
        sv_puts(o, "</td>");
      } else if (t == SQLITE_NULL) {
        sv_printf(o, "<td class=\"%snull\">NULL</td>", hrIsNumericDecl(st, i) ? "n " : "");
      } else {
        const char *s = (const char *)sqlite3_column_text(st, i);
        if (s && strlen(s) > 72) {
          sv_puts(o, "<td title=\"");
          sv_esc(o, s);
          sv_puts(o, "\">");
          sv_esc_cut(o, s, 70);
        } else {
          sv_puts(o, "<td>");
          sv_esc(o, s);
        }
        sv_puts(o, "</td>");
      }
    }
    sv_puts(o, "</tr>");
  }
  sqlite3_finalize(st);
  if (rows == 0)
    sv_printf(o, "<tr><td class=\"empty\" colspan=\"%d\">no rows</td></tr>", ncol > 0 ? ncol : 1);
  sv_puts(o, "</tbody></table></div>\n");
  if (rows > HR_TABLE_ROWS)
    sv_printf(o, "<p class=\"more\">%ld more rows not shown.</p>\n", rows - HR_TABLE_ROWS);
  sv_puts(o, "<details><summary>SQL</summary><pre>");
  sv_esc(o, sql);
  sv_puts(o, "</pre></details>\n");
}

/* The table of the query SQL (shown as it is run). */
void hrTable(hr_ctx *x, const char *sql, const char *what) {
  sqlite3_stmt *st = hrPrep(x, sql, what);
  if (st) hrRows(x, st, sql, what);
}

/* TMPL with every "{src}" replaced by SRC and every "{ranks}" by the shown ranks'
** SQL list; sqlite3_malloc'd, NULL on OOM (recorded). */
static char *hrSub(hr_ctx *x, const char *tmpl, const char *src) {
  sv_buf b;
  sv_init(&b);
  for (const char *p = tmpl; *p;) {
    if (!strncmp(p, "{src}", 5)) sv_puts(&b, src), p += 5;
    else if (!strncmp(p, "{ranks}", 7)) sv_puts(&b, x->in_shown), p += 7;
    else sv_put(&b, p++, 1);
  }
  char *r = b.oom || !b.p ? NULL : sqlite3_mprintf("%s", b.p);
  sv_free(&b);
  if (!r) hrOom(x);
  return r;
}

/* Runs the table-valued function call SRC (e.g. "hta_idle_time_breakdown(30)") once
** into temp.NAME, so that a chart and the tables under it read the same rows
** (and the analysis runs once). 0, or -1 with the failure recorded. */
int hrMat(hr_ctx *x, const char *name, const char *src) {
  char *raw = sqlite3_mprintf(
      "DROP TABLE IF EXISTS temp.%s; CREATE TEMP TABLE %s AS SELECT * FROM %s", name, name, src);
  char *sql = raw ? hrScoped(x, raw) : NULL;
  sqlite3_free(raw);
  if (!sql) {
    hrOom(x);
    return -1;
  }
  int rc = x->fatal ? SQLITE_ERROR : sqlite3_exec(x->db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    if (!x->fatal) hrFail(x, src);
    return -1;
  }
  return 0;
}

/* The table of TMPL (hrSub): shown with SRC, run over temp.NAME (hrMat) when
** NAME is not NULL, else over SRC itself (HR-1). */
void hrTableOf(hr_ctx *x, const char *tmpl, const char *src, const char *name, const char *what) {
  char *shown = hrSub(x, tmpl, src);
  char tmp[64];
  snprintf(tmp, sizeof tmp, "temp.%s", name ? name : "");
  char *run = name ? hrSub(x, tmpl, tmp) : NULL;
  if (shown && (run || !name)) {
    sqlite3_stmt *st = hrPrep(x, run ? run : shown, what);
    if (st) hrRows(x, st, shown, what);
  }
  sqlite3_free(shown);
  sqlite3_free(run);
}

/* ---------------------------------------------------------------- page parts */

static const char hr_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe "
    "UI',Roboto,Helvetica,Arial,sans-serif;color:#222;"
    "margin:0;background:#fafafa}\n"
    "main{max-width:1100px;margin:0 auto;padding:8px 20px 40px;background:#fff}\n"
    "h1{font-size:24px;margin:16px 0 4px}h2{font-size:19px;margin:34px 0 6px;border-bottom:1px "
    "solid #ddd;"
    "padding-bottom:4px}h3{font-size:15px;margin:18px 0 4px}\n"
    "p.what{color:#444;margin:4px 0 10px;max-width:900px}p.note{color:#666;font-size:13px}\n"
    "nav ol{columns:2;font-size:13px;margin:6px 0}\n"
    "svg.chart{display:block;width:100%;height:auto;max-width:960px;margin:6px 0}\n"
    ".pies{display:flex;flex-wrap:wrap;gap:4px 16px}.pies svg.chart{width:auto;max-width:100%}\n"
    ".grid2{display:flex;flex-wrap:wrap;gap:4px 16px}.grid2 "
    "figure{margin:0;width:520px;max-width:100%}\n"
    "figcaption{font-size:13px;font-weight:600;margin-top:8px;overflow-wrap:anywhere}\n"
    ".grid{stroke:#e6e6e6}.axisline{stroke:#888}.xtick{stroke:#888}\n"
    ".tick{font-size:11px;fill:#444}.axis{font-size:12px;fill:#333}.legend{font-size:12px;fill:#"
    "333}\n"
    ".ptitle{font-size:13px;font-weight:600;fill:#222}.slice{fill:#fff;font-size:11px;font-weight:"
    "600}\n"
    ".nodata{fill:#999;font-size:14px}.line{fill:none;stroke-width:1.3}\n"
    ".whisker{stroke:#222;stroke-width:1.5;fill:none}.cutoff{stroke:#d62728;stroke-width:1.5;"
    "stroke-dasharray:5 4}.cutlabel{font-size:11px;fill:#d62728}\n"
    "div.tw{overflow:auto;max-height:440px;margin:8px 0;border:1px solid #e3e3e3}\n"
    "table{border-collapse:collapse;font-size:12.5px;width:100%}th{position:sticky;top:0;"
    "background:#f0f0f0;"
    "text-align:left;font-weight:600}th.n{text-align:right}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid "
    "#eee}td{white-space:nowrap}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "td.null{color:#aaa}td.empty{color:#888;font-style:italic}tbody "
    "tr:nth-child(even){background:#fbfbfb}\n"
    "details{margin:2px 0 10px;font-size:12.5px}summary{cursor:pointer;color:#555}"
    "pre{background:#f6f6f6;padding:8px;overflow:auto;white-space:pre-wrap}\n"
    "p.error{background:#fdecea;border-left:4px solid #d62728;padding:6px 10px}\n"
    "p.more{font-size:12.5px;color:#666;margin:0}footer{color:#777;font-size:12px;margin-top:30px}"
    "\n"
    "div.fd{max-height:none}table.fd td{white-space:normal;vertical-align:top}table.fd "
    "td:first-child{white-space:nowrap}table.fd "
    "td.fdt{min-width:250px}table.fd td.fda{min-width:280px;color:#333}table.fd "
    "pre{overflow-wrap:anywhere;max-width:300px;margin:2px 0}\n";

static const struct {
  const char *id, *title;
} hr_sections[] = {
    {"overview", "Traces"},
    {"temporal", "Temporal breakdown"},
    {"kernel-type", "Kernel type breakdown"},
    {"top-kernels", "Top kernels per type and rank"},
    {"across-ranks", "Kernel duration across ranks"},
    {"idle", "Idle time per stream"},
    {"overlap", "Communication / computation overlap"},
    {"queue", "Queue length over time"},
    {"membw", "Memory bandwidth over time"},
    {"launch", "Kernel launch statistics"},
    {"collectives", "Collectives"},
    {"memory", "Memory"},
    {"critical-path", "Critical path"},
    {"operators", "GPU kernels and operators"},
    {"perf", "Operator performance"},
    {"tb-views", "TensorBoard plugin views: Overview, GPU, Distributed"},
    {"findings", "Findings: what to fix"}, /* HR_SEC_FINDINGS: shown first, as 1 */
};
#define HR_NSECTIONS (sizeof hr_sections / sizeof hr_sections[0])
_Static_assert(HR_NSECTIONS == HR_SEC_FINDINGS + 1, "the findings are hr_sections' last entry");

/* The findings lead the page (HR-9): numbered 1 and listed first, the others after. */
static int hrSectionNumber(size_t i) { return i == HR_SEC_FINDINGS ? 1 : (int)i + 2; }

void hrSection(hr_ctx *x, int i, const char *what) {
  sv_printf(x->o, "<section id=\"%s%s\"><h2>%d. ", x->idp, hr_sections[i].id,
            hrSectionNumber((size_t)i));
  sv_esc(x->o, hr_sections[i].title);
  sv_puts(x->o, "</h2>\n<p class=\"what\">");
  sv_puts(x->o, what); /* static HTML */
  sv_puts(x->o, "</p>\n");
}

void hrEndSection(hr_ctx *x) { sv_puts(x->o, "</section>\n"); }

void hrSectionLink(hr_ctx *x, const char *id) {
  for (size_t i = 0; i < HR_NSECTIONS; i++) {
    if (strcmp(hr_sections[i].id, id)) continue;
    sv_printf(x->o, "<a href=\"#%s%s\">%d. ", x->idp, id, hrSectionNumber(i));
    sv_esc(x->o, hr_sections[i].title);
    sv_puts(x->o, "</a>");
  }
}

/* ---------------------------------------------------------------- traces, shown ranks */

/* Loads the traces the analyses see and picks the shown ranks (HR-2, HR-7). */
static int hrLoadTraces(hr_ctx *x) {
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT trace_id, rank, count(*) OVER (PARTITION BY rank) FROM trace"
                            " WHERE min_ts IS NOT NULL ORDER BY rank, trace_id",
                            "reading the traces");
  if (!st) return -1;
  int cap = 0;
  while (hrStep(x, st, "reading the traces") == SQLITE_ROW) {
    if (x->ntr == cap) {
      cap = cap ? cap * 2 : 16;
      hr_trace *p = realloc(x->tr, (size_t)cap * sizeof *p);
      if (!p) {
        sqlite3_finalize(st);
        hrOom(x);
        return -1;
      }
      x->tr = p;
    }
    hr_trace *t = &x->tr[x->ntr++];
    t->trace_id = sqlite3_column_int64(st, 0);
    t->rank = sqlite3_column_int64(st, 1);
    if (sqlite3_column_int64(st, 2) > 1) {
      snprintf(t->label, sizeof t->label, "rank %lld / trace %lld", (long long)t->rank,
               (long long)t->trace_id);
      x->dup = 1;
    } else {
      snprintf(t->label, sizeof t->label, "rank %lld", (long long)t->rank);
    }
    if (x->ntr == 1 || t->rank != x->tr[x->ntr - 2].rank) x->nranks++;
  }
  sqlite3_finalize(st);
  x->by_id = malloc((size_t)(x->ntr > 0 ? x->ntr : 1) * sizeof *x->by_id);
  if (!x->by_id) {
    hrOom(x);
    return -1;
  }
  for (int i = 0; i < x->ntr; i++) x->by_id[i].trace_id = x->tr[i].trace_id, x->by_id[i].i = i;
  qsort(x->by_id, (size_t)x->ntr, sizeof *x->by_id, hrCmpId);
  /* the distinct ranks, then the shown ones: all, or the ends and evenly spaced ones */
  int64_t *r = malloc((size_t)(x->nranks > 0 ? x->nranks : 1) * sizeof *r);
  if (!r) {
    hrOom(x);
    return -1;
  }
  int n = 0;
  for (int i = 0; i < x->ntr; i++)
    if (n == 0 || r[n - 1] != x->tr[i].rank) r[n++] = x->tr[i].rank;
  if (n <= HR_MAX_RANKS) {
    for (int i = 0; i < n; i++) x->shown[x->nshown++] = r[i];
  } else {
    for (int k = 0; k < HR_MAX_RANKS; k++) {
      int64_t v = r[(int)((double)k * (n - 1) / (HR_MAX_RANKS - 1) + 0.5)];
      if (x->nshown == 0 || x->shown[x->nshown - 1] != v) x->shown[x->nshown++] = v;
    }
  }
  free(r);
  size_t at = (size_t)snprintf(x->in_shown, sizeof x->in_shown, "(");
  for (int i = 0; i < x->nshown; i++)
    at += (size_t)snprintf(x->in_shown + at, sizeof x->in_shown - at, "%s%lld", i ? ", " : "",
                           (long long)x->shown[i]);
  snprintf(x->in_shown + at, sizeof x->in_shown - at, "%s)", x->nshown ? "" : "NULL");
  st = hrPrep(x, "SELECT (max(max_end) - min(min_ts)) / 1000.0 FROM trace WHERE min_ts IS NOT NULL",
              "job span");
  if (st && hrStep(x, st, "job span") == SQLITE_ROW) x->span_us = hrCol(st, 0);
  sqlite3_finalize(st);
  if (!(x->span_us > 0)) x->span_us = 1;
  return 0;
}

/* A sentence saying which ranks the per-rank detail shows (HR-2). */
void hrShownNote(hr_ctx *x) {
  if (x->nranks <= x->nshown) return;
  sv_printf(x->o, "<p class=\"note\">Per-rank detail for %d of %d ranks: ", x->nshown, x->nranks);
  for (int i = 0; i < x->nshown; i++)
    sv_printf(x->o, "%s%lld", i ? ", " : "", (long long)x->shown[i]);
  sv_puts(x->o,
          " (the lowest, the highest and evenly spaced ones). Change the rank in the SQL below for "
          "others.</p>\n");
}

/* ---------------------------------------------------------------- 1. overview */

static void hrOverview(hr_ctx *x) {
  hrSection(
      x, 0,
      "One row per ingested trace file. <code>rank_source</code> says where the rank came from "
      "(<code>distributedInfo</code>, the file name, or the default 0); times below are in "
      "microseconds unless a column says otherwise.");
  hrTable(x,
          "SELECT rank, trace_id, rank_source,\n"
          "       replace(file_name, rtrim(file_name, replace(file_name, '/', '')), '') AS file,\n"
          "       device_type, world_size, event_count AS events,\n"
          "       (max_end - min_ts) / 1000.0 AS span_us, file_size AS bytes\n"
          "FROM trace ORDER BY rank, trace_id",
          "traces");
  sv_puts(
      x->o,
      "<h3>Ingest issues</h3>\n<p class=\"what\">What ingest repaired, guessed or dropped.</p>\n");
  hrTable(x,
          "SELECT trace_id, code, count, first_seq, example, message FROM ingest_issue ORDER BY "
          "issue_id",
          "ingest issues");
  hrEndSection(x);
}

/* ---------------------------------------------------------------- per-trace bars */

/* Draws a percent bar chart of the rows of ST: trace_id, then one value per series
** (NSER), one bar group per trace; finalizes ST (NULL: nothing). */
static void hrTraceBars(hr_ctx *x, sqlite3_stmt *st, const char *what, const char *title,
                        const char *ylabel, int nser, const char *const *sers,
                        const char *const *cols) {
  hr_vec v = {0};
  hr_strs cats = {0};
  int bad = 0;
  while (st && hrStep(x, st, what) == SQLITE_ROW) {
    bad |= hrPushStr(&cats, hrLabel(x, sqlite3_column_int64(st, 0)));
    for (int k = 1; k <= nser; k++) bad |= hrPush(&v, hrCol(st, k));
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  if (st && !bad) {
    sv_bars c = {.title = title,
                 .ylabel = ylabel,
                 .ncat = (int)cats.n,
                 .nser = nser,
                 .cats = (const char *const *)cats.v,
                 .sers = sers,
                 .colors = cols,
                 .v = v.v,
                 .ymax = 100,
                 .unit = "%"};
    sv_bar_chart(x->o, &c);
  }
  free(v.v);
  hrStrsFree(&cats);
}

/* ---------------------------------------------------------------- 2. temporal */

static void hrTemporal(hr_ctx *x) {
  static const char *const sers[] = {"compute", "non-compute", "idle"};
  static const char *const cols[] = {"#636efa", "#ffa15a", "#b0b0b0"};
  hrSection(x, 1,
            "Where each GPU's time goes between its first and last kernel: <b>compute</b> (a "
            "computation kernel "
            "runs), <b>non-compute</b> (only communication, memory or other GPU work runs) and "
            "<b>idle</b> "
            "(nothing runs). Percentages of <code>kernel_time_us</code>.");
  static const char src[] = "hta_temporal_breakdown";
  int ok = hrMat(x, "hr_tb", src) == 0;
  sqlite3_stmt *st =
      !ok ? NULL
          : hrPrep(x,
                   "SELECT trace_id, compute_time_pctg, non_compute_time_pctg, idle_time_pctg"
                   " FROM temp.hr_tb",
                   src);
  hrTraceBars(x, st, src, "Temporal breakdown per rank (% of kernel time)", "% of kernel time", 3,
              sers, cols);
  if (ok)
    hrTableOf(x,
              "SELECT rank, trace_id, idle_time_us, compute_time_us, non_compute_time_us, "
              "kernel_time_us,\n"
              "       idle_time_pctg, compute_time_pctg, non_compute_time_pctg\n"
              "FROM {src}",
              src, "hr_tb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 3. kernel types */

static const char *hrTypeColor(const char *label) {
  if (!strcmp(label, "COMPUTATION")) return "#636efa";
  if (!strcmp(label, "COMMUNICATION")) return "#ef553b";
  if (!strcmp(label, "MEMORY")) return "#00cc96";
  if (!strcmp(label, "COMPUTATION overlapping COMMUNICATION")) return "#ab63fa";
  if (!strcmp(label, "COMPUTATION overlapping MEMORY")) return "#19d3f3";
  if (!strcmp(label, "COMMUNICATION overlapping MEMORY")) return "#ffa15a";
  return "#ff6692";
}

static void hrKernelTypes(hr_ctx *x) {
  hrSection(x, 2,
            "GPU time of all ranks by kernel type. Overlapping kernels of different types are "
            "counted once, "
            "under a label naming every type running (e.g. <i>COMPUTATION overlapping "
            "COMMUNICATION</i>), so "
            "the slices add up to the time any analysed kernel runs.");
  static const char src[] = "hta_kernel_type_breakdown";
  int ok = hrMat(x, "hr_ktb", src) == 0;
  sqlite3_stmt *st = ok ? hrPrep(x, "SELECT kernel_type, sum_us FROM temp.hr_ktb", src) : NULL;
  hr_vec v = {0};
  hr_strs labels = {0};
  const char *colors[32];
  int bad = 0;
  while (st && hrStep(x, st, "hta_kernel_type_breakdown") == SQLITE_ROW) {
    if (labels.n == 32) break;
    bad |= hrPushStr(&labels, (const char *)sqlite3_column_text(st, 0));
    bad |= hrPush(&v, hrCol(st, 1));
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  if (st && !bad) {
    for (size_t i = 0; i < labels.n; i++) colors[i] = hrTypeColor(labels.v[i]);
    sv_pie c = {.title = "Kernel type breakdown, all ranks",
                .n = (int)labels.n,
                .labels = (const char *const *)labels.v,
                .colors = colors,
                .v = v.v,
                .unit = " \xC2\xB5s",
                .width = 760};
    sv_puts(x->o, "<div class=\"pies\">");
    sv_pie_chart(x->o, &c);
    sv_puts(x->o, "</div>\n");
  }
  free(v.v);
  hrStrsFree(&labels);
  if (ok) hrTableOf(x, "SELECT kernel_type, sum_us, percentage FROM {src}", src, "hr_ktb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 4. top kernels */

/* Draws the pie of the rows [from, to) gathered for one (trace, kernel type). */
static void hrKernelPie(hr_ctx *x, const char *title, hr_strs *names, hr_strs *full, hr_vec *v,
                        size_t from) {
  sv_pie c = {.title = title,
              .n = (int)(names->n - from),
              .labels = (const char *const *)names->v + from,
              .hover = (const char *const *)full->v + from,
              .v = v->v + from,
              .unit = " \xC2\xB5s"};
  sv_pie_chart(x->o, &c);
}

static void hrTopKernels(hr_ctx *x) {
  hrSection(
      x, 3,
      "The kernels that take most of each rank's time, per kernel type (HTA's rule with "
      "<code>duration_ratio</code> 0.8 and <code>num_kernels</code> 10: the rest is folded into "
      "<i>others</i>). Names are shortened as HTA does; hover for the full name.");
  hrShownNote(x);
  static const char src[] = "hta_kernel_breakdown";
  if (hrMat(x, "hr_kb", src)) {
    hrEndSection(x);
    return;
  }
  sv_puts(x->o, "<div class=\"pies\">");
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    sqlite3_stmt *st = hrPrep(x,
                              "SELECT trace_id, kernel_type, name, hta_shorten_name(name), sum_us"
                              " FROM temp.hr_kb WHERE rank = ?1"
                              " ORDER BY trace_id, kernel_type, sum_us DESC",
                              src);
    if (!st) break;
    sqlite3_bind_int64(st, 1, x->shown[r]);
    hr_strs names = {0}, full = {0}, raw = {0}; /* raw: the shortened names as they came */
    hr_vec v = {0};
    int64_t cur_trace = -1;
    char cur_type[32] = "", title[128];
    size_t from = 0;
    int bad = 0;
    for (;;) {
      int rc = hrStep(x, st, "hta_kernel_breakdown");
      int64_t t = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
      const char *type = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 1) : "";
      if (names.n > from && (t != cur_trace || strcmp(type ? type : "", cur_type))) {
        snprintf(title, sizeof title, "%s \xE2\x80\x94 %s", hrLabel(x, cur_trace), cur_type);
        hrKernelPie(x, title, &names, &full, &v, from);
        from = names.n;
      }
      if (rc != SQLITE_ROW) break;
      cur_trace = t;
      snprintf(cur_type, sizeof cur_type, "%s", type ? type : "");
      const char *shortname = (const char *)sqlite3_column_text(st, 3);
      const char *name = (const char *)sqlite3_column_text(st, 2);
      const char *label = shortname && *shortname ? shortname : name;
      int same = 0; /* two kernels may shorten alike (cutlass::Kernel2): number them */
      for (size_t k = from; label && k < raw.n; k++) same += !strcmp(raw.v[k], label);
      bad |= hrPushStr(&raw, label);
      if (same && label) {
        char *numbered = sqlite3_mprintf("%s (%d)", label, same + 1);
        bad |= !numbered || hrPushStr(&names, numbered);
        sqlite3_free(numbered);
      } else {
        bad |= hrPushStr(&names, label);
      }
      bad |= hrPushStr(&full, name);
      bad |= hrPush(&v, hrCol(st, 4));
      if (bad) break;
    }
    sqlite3_finalize(st);
    if (bad) hrOom(x);
    hrStrsFree(&names);
    hrStrsFree(&full);
    hrStrsFree(&raw);
    free(v.v);
  }
  sv_puts(x->o, "</div>\n");
  hrTableOf(
      x,
      x->dup
          ? "SELECT rank, trace_id, kernel_type, hta_shorten_name(name) AS kernel, count, sum_us,\n"
            "       mean_us, min_us, max_us, stddev_us\n"
            "FROM {src} WHERE rank IN {ranks}\n"
            "ORDER BY rank, trace_id, kernel_type, sum_us DESC"
          : "SELECT rank, kernel_type, hta_shorten_name(name) AS kernel, count, sum_us, mean_us,\n"
            "       min_us, max_us, stddev_us\n"
            "FROM {src} WHERE rank IN {ranks}\n"
            "ORDER BY rank, trace_id, kernel_type, sum_us DESC",
      src, "hr_kb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 5. across ranks */

static const char hr_across_sql[] =
    "WITH kb AS MATERIALIZED (SELECT * FROM {src}),\n"
    "top AS (SELECT kernel_type, name, row_number() OVER\n"
    "          (PARTITION BY kernel_type ORDER BY sum(sum_us) DESC, name) AS k\n"
    "        FROM kb GROUP BY kernel_type, name)\n"
    "SELECT kb.kernel_type, hta_shorten_name(kb.name) AS kernel, kb.rank, kb.trace_id, kb.count,\n"
    "       kb.mean_us, kb.min_us, kb.max_us, kb.name\n"
    "FROM top JOIN kb USING (kernel_type, name)\n"
    "WHERE top.k <= " HR_XSTR(HR_TOP_ACROSS) "\n"
    "ORDER BY kb.kernel_type, top.k, kb.rank, kb.trace_id";

static void hrAcross(hr_ctx *x) {
  hrSection(
      x, 4,
      "For the " HR_XSTR(HR_TOP_ACROSS) " kernels of each type with the largest total time over "
      "all ranks: the mean duration on each rank (bar) and the shortest and longest instance "
      "(whisker). A rank that stands out is slower, or waits longer inside its collectives.");
  static const char src[] = "hta_kernel_breakdown(1.0, 100000)";
  char *run = hrMat(x, "hr_kba", src) ? NULL : hrSub(x, hr_across_sql, "temp.hr_kba");
  sqlite3_stmt *st = run ? hrPrep(x, run, src) : NULL;
  int ok = st != NULL;
  sqlite3_free(run);
  sv_puts(x->o, "<div class=\"grid2\">");
  hr_strs cats = {0};
  hr_vec mean = {0}, lo = {0}, hi = {0};
  char *cur = NULL, *cur_short = NULL, cur_type[32] = "";
  int bad = 0;
  for (;;) {
    int rc = st ? hrStep(x, st, src) : SQLITE_DONE;
    const char *name = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 8) : NULL;
    const char *type = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (cats.n && (!name || !type || strcmp(name, cur) || strcmp(type, cur_type))) {
      sv_puts(x->o, "<figure><figcaption title=\"");
      sv_esc(x->o, cur);
      sv_puts(x->o, "\">");
      sv_esc(x->o, cur_type);
      sv_puts(x->o, ": ");
      sv_esc_cut(x->o, cur_short, 70);
      sv_puts(x->o, "</figcaption>");
      static const char *const ser[] = {"mean"};
      const char *col[] = {hrTypeColor(cur_type)};
      sv_bars c = {.title = cur,
                   .ylabel = "mean duration (\xC2\xB5s)",
                   .ncat = (int)cats.n,
                   .nser = 1,
                   .cats = (const char *const *)cats.v,
                   .sers = ser,
                   .colors = col,
                   .v = mean.v,
                   .lo = lo.v,
                   .hi = hi.v,
                   .unit = " \xC2\xB5s",
                   .width = 520,
                   .height = 260};
      sv_bar_chart(x->o, &c);
      sv_puts(x->o, "</figure>\n");
      hrStrsFree(&cats);
      mean.n = lo.n = hi.n = 0;
    }
    if (rc != SQLITE_ROW || !name || !type) break;
    if (!cats.n) {
      free(cur);
      free(cur_short);
      cur = strdup(name);
      const char *s = (const char *)sqlite3_column_text(st, 1);
      cur_short = strdup(s ? s : name);
      snprintf(cur_type, sizeof cur_type, "%s", type);
      if (!cur || !cur_short) bad = 1;
    }
    bad |= hrPushStr(&cats, hrLabel(x, sqlite3_column_int64(st, 3)));
    bad |= hrPush(&mean, hrCol(st, 5)) | hrPush(&lo, hrCol(st, 6)) | hrPush(&hi, hrCol(st, 7));
    if (bad) break;
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  sv_puts(x->o, "</div>\n");
  hrStrsFree(&cats);
  free(mean.v), free(lo.v), free(hi.v), free(cur), free(cur_short);
  if (ok) hrTableOf(x, hr_across_sql, src, "hr_kba", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 6. idle time */

static void hrIdle(hr_ctx *x) {
  static const char *const sers[] = {"host_wait", "kernel_wait", "other"};
  static const char *const cols[] = {"#ef553b", "#ffa15a", "#8c8c8c"};
  hrSection(
      x, 5,
      "Gaps between consecutive kernels of each stream, by cause: <b>host_wait</b> (the kernel was "
      "launched only after the previous one ended: the CPU could not keep up), <b>kernel_wait</b> "
      "(a gap "
      "shorter than <code>consecutive_kernel_delay_us</code> = 30 \xC2\xB5s: launch overhead) and "
      "<b>other</b>.");
  hrShownNote(x);
  static const char src[] = "hta_idle_time_breakdown(30)";
  char *run = hrSub(x,
                    "SELECT trace_id, stream, idle_category, idle_time_us, idle_time_ratio"
                    " FROM temp.hr_it WHERE rank IN {ranks}",
                    "");
  int ok = run && hrMat(x, "hr_it", src) == 0;
  sqlite3_stmt *st = ok ? hrPrep(x, run, src) : NULL;
  sqlite3_free(run);
  hr_strs cats = {0};
  hr_vec abs = {0}, pct = {0};
  int64_t ct = -1, cs = INT64_MIN;
  int bad = 0;
  while (st && hrStep(x, st, src) == SQLITE_ROW) {
    int64_t t = sqlite3_column_int64(st, 0), s = sqlite3_column_int64(st, 1);
    if (t != ct || s != cs || !cats.n) {
      char lab[80];
      snprintf(lab, sizeof lab, "%s stream %lld", hrLabel(x, t), (long long)s);
      bad |= hrPushStr(&cats, lab);
      for (int k = 0; k < 3; k++) bad |= hrPush(&abs, NAN) | hrPush(&pct, NAN);
      ct = t, cs = s;
    }
    if (bad) break;
    const char *cat = (const char *)sqlite3_column_text(st, 2);
    int k = !cat                          ? -1
            : !strcmp(cat, "host_wait")   ? 0
            : !strcmp(cat, "kernel_wait") ? 1
            : !strcmp(cat, "other")       ? 2
                                          : -1;
    if (k < 0) continue;
    abs.v[abs.n - 3 + (size_t)k] = hrCol(st, 3);
    pct.v[pct.n - 3 + (size_t)k] = 100 * hrCol(st, 4);
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  if (st && !bad) {
    sv_puts(x->o, "<h3>Idle time (\xC2\xB5s)</h3>\n");
    sv_bars c = {.title = "Idle time per stream (us)",
                 .ylabel = "idle time (\xC2\xB5s)",
                 .ncat = (int)cats.n,
                 .nser = 3,
                 .cats = (const char *const *)cats.v,
                 .sers = sers,
                 .colors = cols,
                 .v = abs.v,
                 .unit = " \xC2\xB5s"};
    sv_bar_chart(x->o, &c);
    sv_puts(x->o, "<h3>Idle time (% of the stream's idle time)</h3>\n");
    c.title = "Idle time per stream (%)";
    c.ylabel = "% of idle time";
    c.v = pct.v;
    c.ymax = 100;
    c.unit = "%";
    sv_bar_chart(x->o, &c);
  }
  hrStrsFree(&cats);
  free(abs.v), free(pct.v);
  if (ok)
    hrTableOf(x,
              x->dup
                  ? "SELECT rank, trace_id, stream, idle_category, idle_time_us, idle_time_ratio\n"
                    "FROM {src} WHERE rank IN {ranks}"
                  : "SELECT rank, stream, idle_category, idle_time_us, idle_time_ratio\n"
                    "FROM {src} WHERE rank IN {ranks}",
              src, "hr_it", src);
  sv_puts(x->o, "<h3>Idle interval statistics (\xC2\xB5s)</h3>\n");
  hrTableOf(
      x,
      x->dup
          ? "SELECT rank, trace_id, stream, idle_category, count, mean_us, std_us, min_us, "
            "p25_us,\n"
            "       p50_us, p75_us, max_us\n"
            "FROM {src} WHERE rank IN {ranks}"
          : "SELECT rank, stream, idle_category, count, mean_us, std_us, min_us, p25_us, p50_us,\n"
            "       p75_us, max_us\n"
            "FROM {src} WHERE rank IN {ranks}",
      "hta_idle_interval_stats(30)", NULL, "hta_idle_interval_stats");
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 7. overlap */

static void hrOverlap(hr_ctx *x) {
  hrSection(x, 6,
            "The share of each rank's communication time during which a computation kernel also "
            "runs. Higher "
            "is better: communication hidden behind computation costs no GPU time. Empty for a "
            "rank without "
            "communication kernels.");
  static const char src[] = "hta_comm_comp_overlap";
  int ok = hrMat(x, "hr_cc", src) == 0;
  sqlite3_stmt *st =
      ok ? hrPrep(x, "SELECT trace_id, comp_comm_overlap_pctg FROM temp.hr_cc", src) : NULL;
  static const char *const ser[] = {"overlap"};
  static const char *const col[] = {"#ab63fa"};
  hrTraceBars(x, st, src, "Communication overlapped by computation (%)", "% of communication time",
              1, ser, col);
  if (ok)
    hrTableOf(x, "SELECT rank, trace_id, comp_comm_overlap_pctg FROM {src}", src, "hr_cc", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 8, 9. time series */

/* One chart per shown rank of the series of SQL (?1 = rank; columns trace_id,
** key (stream or kind), ts_us, value), downsampled (HR-3). */
void hrSeries(hr_ctx *x, const char *sql, const char *what, const char *key_prefix,
              const char *ylabel, const char *unit) {
  int ms = x->span_us > 20000;
  double scale = ms ? 1e-3 : 1;
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    sqlite3_stmt *st = hrPrep(x, sql, what);
    if (!st) return;
    sqlite3_bind_int64(st, 1, x->shown[r]);
    sv_ds ds[HR_MAX_SERIES];
    sv_series ser[HR_MAX_SERIES];
    char names[HR_MAX_SERIES][96];
    int n = 0, dropped = 0, cur = -1; /* cur: the series of the current key, -1 when not drawn */
    int64_t ct = INT64_MIN;
    char ckey[64] = "";
    int have = 0;
    while (hrStep(x, st, what) == SQLITE_ROW) {
      int64_t t = sqlite3_column_int64(st, 0);
      const char *key = (const char *)sqlite3_column_text(st, 1);
      if (!key) key = "";
      if (!have || t != ct || strncmp(key, ckey, sizeof ckey - 1)) {
        have = 1, ct = t;
        snprintf(ckey, sizeof ckey, "%s", key);
        if (n == HR_MAX_SERIES) {
          dropped++, cur = -1;
        } else {
          sv_ds_init(&ds[n], 0, x->span_us * scale, HR_BUCKETS);
          if (x->dup)
            snprintf(names[n], sizeof names[n], "trace %lld %s%s", (long long)t, key_prefix, key);
          else snprintf(names[n], sizeof names[n], "%s%s", key_prefix, key);
          cur = n++;
        }
      }
      if (cur >= 0)
        sv_ds_add(&ds[cur], sqlite3_column_double(st, 2) * scale, sqlite3_column_double(st, 3));
    }
    sqlite3_finalize(st);
    int oom = 0;
    for (int i = 0; i < n; i++) {
      sv_ds_finish(&ds[i]);
      oom |= ds[i].oom;
      ser[i].name = names[i], ser[i].d = &ds[i];
    }
    char title[160];
    snprintf(title, sizeof title, "%s, rank %lld", ylabel, (long long)x->shown[r]);
    sv_printf(x->o, "<h3>Rank %lld</h3>\n", (long long)x->shown[r]);
    if (oom) {
      hrOom(x);
    } else if (n == 0) {
      sv_puts(x->o, "<p class=\"note\">No series for this rank.</p>\n");
    } else {
      sv_lines c = {.title = title,
                    .xlabel = ms ? "time since the job's first event (ms)"
                                 : "time since the job's first event (\xC2\xB5s)",
                    .ylabel = ylabel,
                    .nser = n,
                    .s = ser,
                    .x0 = 0,
                    .x1 = x->span_us * scale,
                    .unit = unit};
      sv_step_chart(x->o, &c);
      if (dropped)
        sv_printf(x->o, "<p class=\"note\">%d more series not drawn (at most %d per chart).</p>\n",
                  dropped, HR_MAX_SERIES);
    }
    for (int i = 0; i < n; i++) sv_ds_free(&ds[i]);
  }
}

static void hrQueue(hr_ctx *x) {
  hrSection(x, 7,
            "Per stream, the number of kernels, copies and memsets launched by the CPU that have "
            "not started "
            "on the GPU yet. A queue that stays long means the GPU is the bottleneck; at 1024 the "
            "CPU blocks. "
            "One point per timestamp (ties collapsed); lines are drawn with the minimum and "
            "maximum of every "
            "pixel column, so no peak is lost.");
  hrShownNote(x);
  hrSeries(
      x, "SELECT trace_id, stream, ts_us, queue_length FROM hta_queue_length(0, 1) WHERE rank = ?1",
      "hta_queue_length", "stream ", "queue length", "");
  sv_puts(x->o, "<h3>Summary, every rank</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, stream, count, mean, std, min, p25, p50, p75, max\n"
          "FROM hta_queue_length_summary",
          "hta_queue_length_summary");
  sv_puts(x->o, "<h3>Time blocked on a full queue (1024)</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, stream, duration_at_max_us, relative_duration\nFROM "
          "hta_queue_full_time(1024)",
          "hta_queue_full_time");
  hrEndSection(x);
}

static void hrMemBw(hr_ctx *x) {
  hrSection(x, 8,
            "Per memory kind (Memcpy HtoD, DtoH, DtoD, Memset...), the total bandwidth of the "
            "copies in flight, "
            "in GB/s. Copies that only record their size (AMD) get bytes / duration; HTA counts "
            "them as 0 "
            "(see docs/deviations.md).");
  hrShownNote(x);
  hrSeries(
      x, "SELECT trace_id, kind, ts_us, memory_bw_gbps FROM hta_memory_bw(0, 1, 1) WHERE rank = ?1",
      "hta_memory_bw", "", "memory bandwidth (GB/s)", " GB/s");
  sv_puts(x->o, "<h3>Summary, every rank (GB/s, points above 0)</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, kind, count, mean, std, min, p25, p50, p75, max\nFROM "
          "hta_memory_bw_summary",
          "hta_memory_bw_summary");
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 10. launches */

#define HR_HBINS 33 /* edges 10^(k/4) µs for k = -4 .. 28: 0.1 µs .. 10 s */

static void hrHistogram(hr_ctx *x, const char *title, const char *xlabel, const double *count,
                        double cutoff, const char *cutoff_label, const char *color) {
  double edges[HR_HBINS];
  for (int k = 0; k < HR_HBINS; k++) edges[k] = pow(10, (k - 4) / 4.0);
  int last = 1;
  for (int k = 0; k < HR_HBINS; k++)
    if (count[k] > 0) last = k;
  int n = last + 1 < 2 ? 2 : last + 1;
  sv_printf(x->o, "<h3>%s</h3>\n", title); /* static text */
  sv_hist c = {.title = title,
               .xlabel = xlabel,
               .nbins = n,
               .edges = edges,
               .count = count,
               .cutoff = cutoff,
               .cutoff_label = cutoff_label,
               .color = color};
  sv_hist_chart(x->o, &c);
}

static int hrBin(double v) {
  if (!(v >= 0.1)) return 0;
  int k = (int)floor(4 * log10(v)) + 5; /* v in [10^((k-5)/4), 10^((k-4)/4)) */
  return k < 1 ? 1 : k > HR_HBINS - 1 ? HR_HBINS - 1 : k;
}

static void hrLaunch(hr_ctx *x) {
  hrSection(x, 9,
            "Each CPU launch call (cudaLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, ...) with "
            "the GPU work it "
            "launched: how long the call took on the CPU, the GPU duration, and the <b>launch "
            "delay</b> (from "
            "the end of the call to the start on the GPU). Outliers: runtime above "
            "<code>runtime_cutoff_us</code> = 50 \xC2\xB5s, launch delay above "
            "<code>launch_delay_cutoff_us</code> = 100 \xC2\xB5s; <b>short kernels</b> run shorter "
            "on the GPU "
            "than their launch took on the CPU. All ranks; logarithmic axes, 4 bins per decade.");
  static const char src[] = "hta_kernel_launch_stats(1, 50, 100)";
  int ok = hrMat(x, "hr_ls", src) == 0;
  sqlite3_stmt *st =
      !ok ? NULL
          : hrPrep(x,
                   "SELECT cpu_duration_us, launch_delay_us, gpu_duration_us, is_short_kernel"
                   " FROM temp.hr_ls",
                   src);
  double cpu[HR_HBINS] = {0}, delay[HR_HBINS] = {0}, shortk[HR_HBINS] = {0};
  while (st && hrStep(x, st, src) == SQLITE_ROW) {
    cpu[hrBin(hrCol(st, 0))]++;
    delay[hrBin(hrCol(st, 1))]++;
    if (sqlite3_column_int(st, 3)) shortk[hrBin(hrCol(st, 2))]++;
  }
  sqlite3_finalize(st);
  if (st) {
    hrHistogram(x, "Launch delay", "launch delay (\xC2\xB5s, log scale)", delay, 100,
                "launch_delay_cutoff_us = 100", "#636efa");
    hrHistogram(x, "CPU duration of the launch calls", "CPU duration (\xC2\xB5s, log scale)", cpu,
                50, "runtime_cutoff_us = 50", "#00cc96");
    hrHistogram(x, "GPU duration of short kernels", "GPU duration (\xC2\xB5s, log scale)", shortk,
                0, NULL, "#ffa15a");
  }
  if (!ok) {
    hrEndSection(x);
    return;
  }
  sv_puts(x->o, "<h3>Per rank</h3>\n");
  hrTableOf(
      x,
      "SELECT rank, trace_id, count(*) AS launches, sum(is_short_kernel) AS short_kernels,\n"
      "       sum(is_runtime_outlier) AS runtime_outliers,\n"
      "       sum(is_launch_delay_outlier) AS launch_delay_outliers,\n"
      "       hta_median(cpu_duration_us) AS cpu_p50_us, max(cpu_duration_us) AS cpu_max_us,\n"
      "       hta_median(launch_delay_us) AS delay_p50_us, max(launch_delay_us) AS delay_max_us\n"
      "FROM {src}\n"
      "GROUP BY rank, trace_id ORDER BY rank, trace_id",
      src, "hr_ls", src);
  sv_puts(x->o, "<h3>Longest launch delays</h3>\n");
  hrTableOf(x,
            "SELECT rank, correlation, launch_name, hta_shorten_name(kernel_name) AS kernel,\n"
            "       cpu_duration_us, gpu_duration_us, launch_delay_us\n"
            "FROM {src}\n"
            "WHERE is_launch_delay_outlier\n"
            "ORDER BY launch_delay_us DESC LIMIT 20",
            src, "hr_ls", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- the page */

/* The database file's base name, for the title. */
static const char *hrDbName(sqlite3 *db) {
  const char *f = sqlite3_db_filename(db, "main");
  if (!f || !*f) return "(in-memory database)";
  const char *s = strrchr(f, '/');
  return s ? s + 1 : f;
}

/* The page's head: title and style. */
static void hrHead(hr_ctx *x) {
  sv_buf *o = x->o;
  const char *name = hrDbName(x->db);
  sv_puts(o,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>HTA "
          "report: ");
  sv_esc(o, name);
  sv_printf(o, "</title>\n<style>\n%s</style></head>\n<body><main>\n<h1>Holistic Trace Analysis: ",
            hr_css);
  sv_esc(o, name);
  sv_puts(o, "</h1>\n");
}

/* One job's part of the page: its overview line, contents and sections (HR-8).
** JOB is its name (NULL when the trace rows name a missing job row). */
static void hrJob(hr_ctx *x, const char *job, int njobs) {
  sv_buf *o = x->o;
  if (njobs > 1) {
    sv_printf(o, "<h1 id=\"%sjob\">Job ", x->idp);
    sv_esc(o, job ? job : "(unnamed)");
    sv_puts(o, "</h1>\n");
  }
  sv_puts(o, "<p class=\"what\">");
  sqlite3_stmt *st =
      hrPrep(x,
             "SELECT (SELECT count(*) FROM trace), (SELECT count(DISTINCT rank) FROM trace),"
             " (SELECT coalesce(sum(event_count), 0) FROM trace),"
             " (SELECT group_concat(name, ', ') FROM (SELECT DISTINCT name FROM device"
             "  WHERE name IS NOT NULL ORDER BY name)),"
             " (SELECT value FROM meta WHERE key = 'updated_at')",
             "overview");
  if (st && hrStep(x, st, "overview") == SQLITE_ROW) {
    long long nt = sqlite3_column_int64(st, 0), nr = sqlite3_column_int64(st, 1),
              ne = sqlite3_column_int64(st, 2);
    if (job) {
      sv_puts(o, "Job <b>");
      sv_esc(o, job);
      sv_puts(o, "</b>: ");
    }
    sv_printf(o, "%lld trace file%s, %lld rank%s, %lld events", nt, nt == 1 ? "" : "s", nr,
              nr == 1 ? "" : "s", ne);
    if (sqlite3_column_type(st, 3) == SQLITE_TEXT) {
      sv_puts(o, "; GPUs: ");
      sv_esc(o, (const char *)sqlite3_column_text(st, 3));
    }
    if (sqlite3_column_type(st, 4) == SQLITE_TEXT) {
      sv_puts(o, "; ingested ");
      sv_esc(o, (const char *)sqlite3_column_text(st, 4));
    }
    sv_puts(o, ". ");
  }
  sqlite3_finalize(st);
  sv_puts(
      o,
      "Times are microseconds (\xC2\xB5s) unless marked. Hover over a chart for its numbers; every "
      "table can be reproduced with the SQL under it (<code>sqlite3 DB -cmd '.load "
      "./hta'</code>)");
  if (njobs > 1) {
    sv_puts(o, ", with <code>WHERE job = ");
    sv_esc(o, x->job_q);
    sv_puts(o, "</code> on each analysis");
  }
  sv_puts(o, ".</p>\n<nav><ol>");
  for (size_t k = 0; k < HR_NSECTIONS; k++) { /* in their numbers' order (HR-9) */
    size_t i = k == 0 ? HR_SEC_FINDINGS : k - 1;
    sv_printf(o, "<li><a href=\"#%s%s\">", x->idp, hr_sections[i].id);
    sv_esc(o, hr_sections[i].title);
    sv_puts(o, "</a></li>");
  }
  sv_puts(o, "</ol></nav>\n");
  void (*const parts[])(hr_ctx *) = {
      hrFindings, hrOverview, hrTemporal, hrKernelTypes, hrTopKernels, hrAcross,
      hrIdle,     hrOverlap,  hrQueue,    hrMemBw,       hrLaunch,     hrCollectives,
      hrMemory,   hrCritPath, hrOps,      hrPerf,        hrTbViews};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !x->fatal && !o->oom; i++) parts[i](x);
}

static void hrFoot(hr_ctx *x) {
  sv_printf(x->o,
            "<footer>Made by hta-ingest %s (hta-sqlite) with SQLite %s. The analyses follow HTA "
            "0.6.1 with "
            "the deviations listed in docs/deviations.md.</footer>\n</main></body></html>\n",
            HTA_VERSION, sqlite3_libversion());
}

/* Forgets one job's traces and shown ranks (hrLoadTraces fills them again). */
static void hrJobReset(hr_ctx *x) {
  free(x->tr);
  free(x->by_id);
  x->tr = NULL;
  x->by_id = NULL;
  x->ntr = x->nranks = x->dup = x->nshown = 0;
  x->span_us = 0;
  sqlite3_free(x->job_q);
  x->job_q = NULL;
}

/* Writes every job of the database, or only JOB (HR-8). The jobs are read first:
** an open statement would keep hrMat from dropping its temp tables. */
static void hrJobs(hr_ctx *x, const char *job) {
  sqlite3_stmt *st = NULL;
  int has_job_table = 0, njobs = 0;
  struct hr_job {
    int64_t id;
    char *name;
  } *jobs = NULL;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'job'",
                         -1, &st, NULL) == SQLITE_OK)
    has_job_table = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(x->db,
                         "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'capture'",
                         -1, &st, NULL) == SQLITE_OK)
    x->has_capture = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(
          x->db,
          has_job_table ? "SELECT t.job_id, j.name FROM trace t"
                          " LEFT JOIN job j ON j.job_id = t.job_id"
                          " WHERE ?1 IS NULL OR j.name = ?1 GROUP BY t.job_id ORDER BY t.job_id"
                        : "SELECT 1, NULL FROM trace WHERE ?1 IS NULL LIMIT 1",
          -1, &st, NULL) != SQLITE_OK) {
    hrFail(x, "reading the jobs");
    x->fatal = SQLITE_ERROR;
    return;
  }
  if (job) sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  while (!x->fatal && hrStep(x, st, "reading the jobs") == SQLITE_ROW) {
    struct hr_job *p = realloc(jobs, (size_t)(njobs + 1) * sizeof *p);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!p) {
      hrOom(x);
      break;
    }
    jobs = p;
    jobs[njobs].id = sqlite3_column_int64(st, 0);
    jobs[njobs].name = name ? strdup(name) : NULL;
    if (name && !jobs[njobs].name) {
      hrOom(x);
      break;
    }
    njobs++;
  }
  sqlite3_finalize(st);
  if (njobs == 0 && !job && !x->fatal) { /* a database without traces: its empty sections */
    if (!(jobs = calloc(1, sizeof *jobs))) hrOom(x);
    else jobs[njobs++].id = -1;
  }
  for (int k = 0; k < njobs && !x->fatal && !x->o->oom; k++) {
    hrJobReset(x);
    x->job_id = jobs[k].id;
    if (!(x->job_q = sqlite3_mprintf("%Q", jobs[k].name))) {
      hrOom(x);
      break;
    }
    if (njobs > 1) snprintf(x->idp, sizeof x->idp, "j%d-", k + 1);
    else x->idp[0] = 0;
    if (hrLoadTraces(x) == 0 && !x->fatal) hrJob(x, jobs[k].name, njobs);
  }
  for (int k = 0; k < njobs; k++) free(jobs[k].name);
  free(jobs);
  if (job && njobs == 0 && !x->fatal) {
    snprintf(x->err, sizeof x->err, "no job named '%s' (hta-ingest --list DB lists them)", job);
    x->fatal = SQLITE_ERROR;
  }
}

/* ---------------------------------------------------------------- entry point */

/* 1 when the hta extension is registered on DB already. */
static int hrHasExtension(sqlite3 *db) {
  sqlite3_stmt *st;
  int has = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT 1 FROM pragma_module_list WHERE name = 'hta_temporal_breakdown'",
                         -1, &st, NULL) == SQLITE_OK) {
    has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
  }
  return has;
}

static int hrWriteFile(const char *path, const sv_buf *b, char *err, size_t errlen) {
  char tmp[4096];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp) {
    snprintf(err, errlen, "%s: path too long", path);
    return -1;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
    return -1;
  }
  int ok = fwrite(b->p, 1, b->n, f) == b->n;
  int e = errno;
  if (fclose(f) != 0 && ok) ok = 0, e = errno;
  if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
  if (!ok) {
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    unlink(tmp);
    return -1;
  }
  return 0;
}

int hr_use_extension(sqlite3 *db, char *err, size_t errlen) {
  sqlite3_stmt *st;
  int is_hta = 0;
  if (sqlite3_prepare_v2(
          db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'trace'", -1, &st,
          NULL) == SQLITE_OK) {
    is_hta = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
  }
  if (!is_hta) {
    snprintf(err, errlen, "%s: not an hta-sqlite database (no trace table)", hrDbName(db));
    return -1;
  }
  if (!hrHasExtension(db)) {
    char *zErr = NULL;
    if (!sqlite3_hta_init) {
      snprintf(err, errlen, "the hta extension is not linked into this program");
      return -1;
    }
    if (sqlite3_hta_init(db, &zErr, NULL) != SQLITE_OK) {
      snprintf(err, errlen, "registering the hta extension: %s", zErr ? zErr : sqlite3_errmsg(db));
      sqlite3_free(zErr);
      return -1;
    }
  }
  return 0;
}

int hr_write_report(sqlite3 *db, const char *out_path, const char *job, char *err, size_t errlen) {
  hr_ctx x = {.db = db};
  sv_buf out;
  sv_init(&out);
  x.o = &out;
  if (errlen) err[0] = 0;
  if (hr_use_extension(db, err, errlen)) return HR_FAILED;
  hrHead(&x);
  hrJobs(&x, job);
  if (!x.fatal) hrFoot(&x);
  hrJobReset(&x);
  sqlite3_exec(db,
               "DROP TABLE IF EXISTS temp.hr_tb; DROP TABLE IF EXISTS temp.hr_ktb; DROP TABLE IF "
               "EXISTS temp.hr_kb;"
               " DROP TABLE IF EXISTS temp.hr_kba; DROP TABLE IF EXISTS temp.hr_it; DROP TABLE IF "
               "EXISTS temp.hr_cc;"
               " DROP TABLE IF EXISTS temp.hr_ls; DROP TABLE IF EXISTS temp.hr_ci;"
               " DROP TABLE IF EXISTS temp.hr_cr; DROP TABLE IF EXISTS temp.hr_ms;"
               " DROP TABLE IF EXISTS temp.hr_mt; DROP TABLE IF EXISTS temp.hr_cps;"
               " DROP TABLE IF EXISTS temp.hr_cpsum; DROP TABLE IF EXISTS temp.hr_cp;",
               NULL, NULL, NULL);
  int rc;
  if (out.oom || x.fatal) {
    snprintf(err, errlen, "%s", out.oom ? "out of memory" : x.err);
    rc = HR_FAILED;
  } else if (hrWriteFile(out_path, &out, err, errlen)) {
    rc = HR_FAILED;
  } else if (x.failures) {
    snprintf(err, errlen, "%s", x.err);
    rc = HR_PARTIAL;
  } else {
    rc = HR_OK;
  }
  sv_free(&out);
  return rc;
}

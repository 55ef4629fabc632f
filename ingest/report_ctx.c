/*
** report_ctx.c: what every section of the HTML report uses (report_int.h declares it;
** report.c has the page, report_charts.c the charts, the report_*.c files the sections).
**
**   - errors: hrFail shows a failed statement's message in the current section and
**     records it (HR-5); hrOom records out of memory;
**   - the job's scope: hrPrep prepares SQL with the job's filter on every analysis
**     (HR-8), hrStep steps it, hrMat runs an analysis once into temp.NAME (HR-1),
**     hrScalar reads one value, hrMatRows says whether a copy has rows;
**   - tables: hrTable / hrTableOf render a query as an HTML table with the SQL that
**     makes it under it (HR-1, HR-4);
**   - sections: their ids, titles and numbers (HR-9), the contents, headings, links;
**   - the job's traces: their labels (HR-7) and the shown ranks (HR-2).
** It calls nothing of the other report files: they stand on it.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

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

/* The traces a section shows are its job's profiled ones: a graph capture (schema.sql,
** capture) is no window of its rank. Indexed by hr_ctx.has_capture. */
static const char *const hr_no_captures[2] = {
    "", " AND trace_id NOT IN (SELECT trace_id FROM main.capture)"};

/* SQL with the job's filter on every source after FROM or JOIN (HR-8): a
** table-valued function hta_x or hta_x(...), trace, device, ingest_issue. The
** report's SQL never quotes these words, so a plain scan is enough. NULL on OOM. */
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
    /* the two-run functions (hta_job_diff...) name their jobs themselves */
    if (n > 4 && !strncmp(kw, "hta_", 4) && strncmp(kw, "hta_job_diff", 12)) {
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
char *hrSub(hr_ctx *x, const char *tmpl, const char *src) {
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

/* hrMat of SRC into temp.NAME, then SQL (over it) prepared: the statement, or NULL;
** *OK says whether the copy exists (the tables under a chart read it). */
sqlite3_stmt *hrMatPrep(hr_ctx *x, const char *name, const char *src, const char *sql, int *ok) {
  *ok = hrMat(x, name, src) == 0;
  return *ok ? hrPrep(x, sql, src) : NULL;
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

/* One value of a single query (NAN when it fails or is NULL). */
double hrScalar(hr_ctx *x, const char *sql, const char *what) {
  double v = NAN;
  sqlite3_stmt *st = hrPrep(x, sql, what);
  if (st && hrStep(x, st, what) == SQLITE_ROW) v = hrCol(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* hrMat of SRC into temp.NAME; 1 when it has rows, else 0 with NOTE (static HTML) shown
** when nothing failed. */
int hrMatRows(hr_ctx *x, const char *name, const char *src, const char *note) {
  if (hrMat(x, name, src) != 0) return 0;
  char *sql = sqlite3_mprintf("SELECT count(*) FROM temp.%s", name);
  double n = sql ? hrScalar(x, sql, src) : 0;
  sqlite3_free(sql);
  if (!sql) hrOom(x);
  if (n > 0) return 1;
  if (!x->fatal) sv_printf(x->o, "<p class=\"note\">%s</p>\n", note);
  return 0;
}

/* ---------------------------------------------------------------- sections */

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

/* The list of the sections, linked, in their numbers' order (HR-9). */
void hrContents(hr_ctx *x) {
  sv_puts(x->o, "<nav><ol>");
  for (size_t k = 0; k < HR_NSECTIONS; k++) {
    size_t i = k == 0 ? HR_SEC_FINDINGS : k - 1;
    sv_printf(x->o, "<li><a href=\"#%s%s\">", x->idp, hr_sections[i].id);
    sv_esc(x->o, hr_sections[i].title);
    sv_puts(x->o, "</a></li>");
  }
  sv_puts(x->o, "</ol></nav>\n");
}

/* ---------------------------------------------------------------- traces, shown ranks */

/* Loads the traces the analyses see and picks the shown ranks (HR-2, HR-7). */
int hrLoadTraces(hr_ctx *x) {
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

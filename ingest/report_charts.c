/*
** report_charts.c: the HTML report's chart helpers, one per chart shape (svg.h draws;
** these read the rows and label them). A section prepares the rows (hrPrep, usually
** over its temp.hr_* copy, HR-1) and hands the statement over; the helper reads the
** rows, draws, and finalizes the statement. A NULL statement (its failure is already
** shown) draws nothing.
**
**   hrBarsOf        bars, one per row, stacked when a row has several values, with
**                   optional whiskers (per-rank breakdowns, totals per rank)
**   hrBarsDraw      the same from arrays (for bars whose rows are grouped in C)
**   hrPiesOf        pies, one per group of rows (kernel types, top kernels)
**   hrLinesOf       step lines over the job's time, downsampled (HR-3)
**   hrLogHistogram  a histogram with logarithmic bins (durations, delays)
**   (the roofline, one chart of one section, is report_perf.c's rlChart)
**
**   sqlite3_stmt *st = hrPrep(x, "SELECT trace_id, NULL, compute_pct, idle_pct"
**                                " FROM temp.hr_tb", src);
**   static const char *const sers[] = {"compute", "idle"};
**   hr_bars c = {.title = "Temporal breakdown (%)", .ylabel = "%", .nser = 2,
**                .sers = sers, .ymax = 100, .unit = "%"};
**   hrBarsOf(x, st, src, &c);
**
** Requirements (tests cite them as HRC-n):
**  1. A bar's label is its trace's (hrLabel: "rank R", or "rank R / trace T" when the
**     rank is shared, HR-7), then the row's own label after c->sep; either may be
**     NULL. Labels are never cut here (svg.c cuts what it shows, not the hover text).
**  2. Labels that repeat within one pie are numbered "name (2)", "name (3)", so that
**     its legend tells them apart.
**  3. No rows draws nothing, unless draw_empty asks for the empty chart ("no data").
**  4. Out of memory is recorded (hrOom) and nothing is drawn.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ---------------------------------------------------------------- bars */

/* The label of the current row (HRC-1); sqlite3_malloc'd, NULL on OOM. */
static char *hrRowLabel(hr_ctx *x, sqlite3_stmt *st, const char *sep) {
  int has_trace = sqlite3_column_type(st, 0) != SQLITE_NULL;
  const char *own = (const char *)sqlite3_column_text(st, 1);
  return sqlite3_mprintf("%s%s%s", has_trace ? hrLabel(x, sqlite3_column_int64(st, 0)) : "",
                         has_trace && own ? (sep ? sep : " ") : "", own ? own : "");
}

void hrBarsDraw(hr_ctx *x, const hr_bars *c, int n, const char *const *cats, const double *v,
                const double *lo, const double *hi) {
  if (c->heading) sv_puts(x->o, c->heading);
  sv_bars b = {.title = c->title,
               .ylabel = c->ylabel,
               .ncat = n,
               .nser = c->nser,
               .cats = cats,
               .sers = c->sers,
               .colors = c->colors,
               .v = v,
               .lo = lo,
               .hi = hi,
               .ymax = c->ymax,
               .unit = c->unit,
               .width = c->width,
               .height = c->height};
  sv_bar_chart(x->o, &b);
}

void hrBarsOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_bars *c) {
  hr_strs cats = {0};
  hr_vec v = {0}, lo = {0}, hi = {0};
  int bad = 0;
  while (st && !bad && hrStep(x, st, what) == SQLITE_ROW) {
    char *label = hrRowLabel(x, st, c->sep);
    bad |= !label || hrPushStr(&cats, label);
    sqlite3_free(label);
    for (int k = 0; k < c->nser; k++) bad |= hrPush(&v, hrCol(st, 2 + k));
    if (c->whiskers)
      bad |= hrPush(&lo, hrCol(st, 2 + c->nser)) | hrPush(&hi, hrCol(st, 3 + c->nser));
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  else if (st && (cats.n || c->draw_empty))
    hrBarsDraw(x, c, (int)cats.n, (const char *const *)cats.v, v.v, c->whiskers ? lo.v : NULL,
               c->whiskers ? hi.v : NULL);
  hrStrsFree(&cats);
  free(v.v), free(lo.v), free(hi.v);
}

/* ---------------------------------------------------------------- pies */

/* The slices gathered for hrPiesOf: parallel arrays, as sv_pie takes them. */
typedef struct hr_slices {
  hr_strs labels, full, raw; /* raw: the labels as they came (HRC-2) */
  hr_vec v;
  const char **hover, **colors; /* into full, or NULL; c->color's */
  size_t cap;
} hr_slices;

/* Appends one slice; -1 on OOM. */
static int hrSliceAdd(hr_slices *s, size_t from, const char *label, const char *name, double v,
                      const hr_pies *c) {
  if (s->labels.n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    const char **h = realloc(s->hover, nc * sizeof *h);
    if (h) s->hover = h;
    const char **k = h ? realloc(s->colors, nc * sizeof *k) : NULL;
    if (!k) return -1;
    s->colors = k, s->cap = nc;
  }
  int same = 0, bad = 0;
  for (size_t i = from; label && i < s->raw.n; i++) same += !strcmp(s->raw.v[i], label);
  bad |= hrPushStr(&s->raw, label);
  if (same && label) {
    char *numbered = sqlite3_mprintf("%s (%d)", label, same + 1);
    bad |= !numbered || hrPushStr(&s->labels, numbered);
    sqlite3_free(numbered);
  } else {
    bad |= hrPushStr(&s->labels, label);
  }
  bad |= hrPushStr(&s->full, name) | hrPush(&s->v, v);
  if (bad) return -1;
  s->hover[s->labels.n - 1] = name ? s->full.v[s->full.n - 1] : NULL;
  s->colors[s->labels.n - 1] = c->color ? c->color(s->raw.v[s->raw.n - 1]) : NULL;
  return 0;
}

/* Draws the pie of the slices [from, n). */
static void hrPieDraw(hr_ctx *x, const hr_pies *c, const char *title, const hr_slices *s,
                      size_t from) {
  size_t n = s->labels.n - from;
  sv_pie p = {.title = title,
              .n = (int)n,
              .labels = n ? (const char *const *)s->labels.v + from : NULL,
              .hover = n ? s->hover + from : NULL,
              .colors = n && c->color ? s->colors + from : NULL,
              .v = n ? s->v.v + from : NULL,
              .unit = c->unit,
              .width = c->width};
  sv_pie_chart(x->o, &p);
}

void hrPiesOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_pies *c) {
  hr_slices s = {0};
  size_t from = 0;
  int bad = 0, has_trace = 0, pies = 0;
  int64_t cur_trace = 0;
  char *cur_group = NULL;
  while (st && !bad) {
    int row = hrStep(x, st, what) == SQLITE_ROW;
    int has_t = row && sqlite3_column_type(st, 0) != SQLITE_NULL;
    int64_t t = row ? sqlite3_column_int64(st, 0) : 0;
    const char *group = row ? (const char *)sqlite3_column_text(st, 1) : NULL;
    if (s.labels.n > from &&
        (!row || has_t != has_trace || t != cur_trace || strcmp(group ? group : "", cur_group))) {
      char *title = c->title ? sqlite3_mprintf("%s", c->title)
                             : sqlite3_mprintf("%s%s%s", has_trace ? hrLabel(x, cur_trace) : "",
                                               has_trace ? " \xE2\x80\x94 " : "", cur_group);
      if (!title) {
        bad = 1;
        break;
      }
      hrPieDraw(x, c, title, &s, from);
      sqlite3_free(title);
      from = s.labels.n, pies++;
    }
    if (!row) break;
    if (s.labels.n == from) { /* a new pie */
      has_trace = has_t, cur_trace = t;
      sqlite3_free(cur_group);
      if (!(cur_group = sqlite3_mprintf("%s", group ? group : ""))) bad = 1;
    }
    bad |= hrSliceAdd(&s, from, (const char *)sqlite3_column_text(st, 2),
                      (const char *)sqlite3_column_text(st, 3), hrCol(st, 4), c) != 0;
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  else if (st && !pies && c->draw_empty && c->title) hrPieDraw(x, c, c->title, &s, 0);
  sqlite3_free(cur_group);
  hrStrsFree(&s.labels), hrStrsFree(&s.full), hrStrsFree(&s.raw);
  free(s.v.v), free(s.hover), free(s.colors);
}

/* ---------------------------------------------------------------- step lines */

int hrLinesOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_lines *c) {
  int ms = x->span_us > 20000;
  double scale = ms ? 1e-3 : 1;
  sv_ds ds[HR_MAX_SERIES];
  sv_series ser[HR_MAX_SERIES];
  char names[HR_MAX_SERIES][96];
  int n = 0, dropped = 0, cur = -1; /* cur: the series of the current key, -1 when not drawn */
  int64_t ct = INT64_MIN;
  char ckey[64] = "";
  int have = 0;
  if (!st) return 0;
  if (c->single) { /* one line, there even without points */
    sv_ds_init(&ds[0], 0, x->span_us * scale, HR_BUCKETS);
    snprintf(names[0], sizeof names[0], "%s", c->single);
    cur = n++;
  }
  while (hrStep(x, st, what) == SQLITE_ROW) {
    int64_t t = sqlite3_column_int64(st, 0);
    const char *key = (const char *)sqlite3_column_text(st, 1);
    if (!key) key = "";
    if (!c->single && (!have || t != ct || strncmp(key, ckey, sizeof ckey - 1))) {
      have = 1, ct = t;
      snprintf(ckey, sizeof ckey, "%s", key);
      if (n == HR_MAX_SERIES) {
        dropped++, cur = -1;
      } else {
        sv_ds_init(&ds[n], 0, x->span_us * scale, HR_BUCKETS);
        if (x->dup && sqlite3_column_type(st, 0) != SQLITE_NULL)
          snprintf(names[n], sizeof names[n], "trace %lld %s%s", (long long)t, c->key_prefix, key);
        else snprintf(names[n], sizeof names[n], "%s%s", c->key_prefix, key);
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
  char xlabel[160];
  snprintf(xlabel, sizeof xlabel, "%stime since the job's first event (%s)", c->xwhat,
           ms ? "ms" : "\xC2\xB5s");
  if (oom) {
    hrOom(x);
  } else if (n > 0) {
    sv_lines l = {.title = c->title,
                  .xlabel = xlabel,
                  .ylabel = c->ylabel,
                  .nser = n,
                  .s = ser,
                  .x0 = 0,
                  .x1 = x->span_us * scale,
                  .unit = c->unit};
    sv_step_chart(x->o, &l);
    if (dropped)
      sv_printf(x->o, "<p class=\"note\">%d more series not drawn (at most %d per chart).</p>\n",
                dropped, HR_MAX_SERIES);
  }
  for (int i = 0; i < n; i++) sv_ds_free(&ds[i]);
  return oom ? -1 : n;
}

/* One chart per shown rank of the series of SQL (?1 = rank; columns trace_id,
** key (stream or kind), ts_us, value), downsampled (HR-3). */
void hrSeries(hr_ctx *x, const char *sql, const char *what, const char *key_prefix,
              const char *ylabel, const char *unit) {
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    sqlite3_stmt *st = hrPrep(x, sql, what);
    if (!st) return;
    sqlite3_bind_int64(st, 1, x->shown[r]);
    char title[160];
    snprintf(title, sizeof title, "%s, rank %lld", ylabel, (long long)x->shown[r]);
    sv_printf(x->o, "<h3>Rank %lld</h3>\n", (long long)x->shown[r]);
    hr_lines c = {
        .title = title, .ylabel = ylabel, .unit = unit, .xwhat = "", .key_prefix = key_prefix};
    if (hrLinesOf(x, st, what, &c) == 0)
      sv_puts(x->o, "<p class=\"note\">No series for this rank.</p>\n");
  }
}

/* ---------------------------------------------------------------- log histogram */

int hrLogBin(double v) {
  if (!(v >= 0.1)) return 0;
  int k = (int)floor(4 * log10(v)) + 5; /* v in [10^((k-5)/4), 10^((k-4)/4)) */
  return k < 1 ? 1 : k > HR_HBINS - 1 ? HR_HBINS - 1 : k;
}

void hrLogHistogram(hr_ctx *x, const char *title, const char *xlabel, const double *count,
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

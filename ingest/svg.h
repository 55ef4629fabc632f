/*
** svg.h: a small writer of inline SVG charts for the HTML report (prefix sv_).
** Pure C: no sqlite3 types, never prints, never exits. Everything is appended to
** an sv_buf; an allocation failure sets buf->oom and later appends do nothing.
**
**   sv_buf b; sv_init(&b);
**   static const char *const cats[] = {"rank 0", "rank 1"}, *const sers[] = {"idle", "busy"};
**   double v[] = {10, 90, 20, 80};
**   sv_bars c = {.title = "Time", .ylabel = "%", .ncat = 2, .nser = 2, .cats = cats,
**                .sers = sers, .v = v, .ymax = 100, .unit = "%"};
**   sv_bar_chart(&b, &c);
**   ... fwrite(b.p, 1, b.n, f); sv_free(&b);
**
** Every chart is one <svg> element with a viewBox (it scales to the page width),
** an aria-label, and a <title> on each mark so that hovering shows the numbers.
** Text is escaped for XML; the markup is well-formed (every element closed).
*/
#ifndef HTA_SVG_H
#define HTA_SVG_H

#include <stddef.h>

/* ---------------------------------------------------------------- text buffer */
typedef struct sv_buf {
  char *p; /* NUL-terminated when n > 0 */
  size_t n, cap;
  int oom; /* an allocation failed: the content is incomplete */
} sv_buf;

void sv_init(sv_buf *b);
void sv_free(sv_buf *b);
void sv_put(sv_buf *b, const char *s, size_t n);
void sv_puts(sv_buf *b, const char *s);
void sv_printf(sv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends S (NULL = "") escaped for XML/HTML text and attribute values. */
void sv_esc(sv_buf *b, const char *s);
/* The same, cut to at most MAXCHARS characters (UTF-8 aware) with "…" added. */
void sv_esc_cut(sv_buf *b, const char *s, size_t maxchars);
/* Appends V readably: integers as such, others with 3 decimals (trailing zeros
** dropped) or 4 significant digits below 1; NaN as "NaN". */
void sv_num(sv_buf *b, double v);

/* The i-th colour of the palette (cycles), "#rrggbb". */
const char *sv_color(int i);

/* ---------------------------------------------------------------- bar chart */
/* NCAT bars on the x axis; each is the stack of NSER series values (NaN or <= 0
** draws nothing). With lo/hi (one series only), a whisker from lo to hi is drawn
** on each bar (HTA's min/max lines). */
typedef struct sv_bars {
  const char *title;  /* aria-label */
  const char *ylabel; /* y axis title */
  int ncat, nser;
  const char *const *cats;   /* ncat bar labels */
  const char *const *sers;   /* nser series names (legend; none when nser == 1) */
  const char *const *colors; /* nser colours, or NULL for the palette */
  const double *v;           /* ncat * nser values, by category then series */
  const double *lo, *hi;     /* optional, ncat each */
  double ymax;               /* 0: from the data */
  const char *unit;          /* appended to numbers on hover, e.g. " µs", "%" */
  int width, height;         /* 0: defaults */
} sv_bars;

void sv_bar_chart(sv_buf *b, const sv_bars *c);

/* ---------------------------------------------------------------- pie chart */
typedef struct sv_pie {
  const char *title; /* shown above the pie and as aria-label */
  int n;
  const char *const *labels; /* legend labels (cut to fit the width) */
  const char *const *hover;  /* full names for the hover text, or NULL */
  const char *const *colors; /* or NULL for the palette */
  const double *v;           /* slice values (<= 0 or NaN: no slice) */
  const char *unit;
  int width; /* 0: 540; the legend's labels are cut to fit */
} sv_pie;

void sv_pie_chart(sv_buf *b, const sv_pie *c);

/* ---------------------------------------------------------------- time series */
/* A streaming min/max downsampler for step series: points come in x order; x in
** [x0, x1] is split into NB buckets, and each bucket keeps its first, lowest,
** highest and last point (in x order), so every peak and trough survives. */
typedef struct sv_ds {
  double x0, x1;
  int nb;
  long cur;                                  /* bucket of the pending points, -1 before the first */
  int has;                                   /* pending points in cur */
  double fx, fy, lox, loy, hix, hiy, lx, ly; /* first, lowest, highest, last */
  double *x, *y;                             /* the kept points */
  size_t n, cap;
  size_t seen;             /* points added */
  double maxx, maxy, miny; /* the global peak (first reached) and minimum */
  int oom;
} sv_ds;

void sv_ds_init(sv_ds *d, double x0, double x1, int nb);
void sv_ds_add(sv_ds *d, double x, double y);
void sv_ds_finish(sv_ds *d);
void sv_ds_free(sv_ds *d);

typedef struct sv_series {
  const char *name;
  const sv_ds *d; /* finished */
} sv_series;

/* Step lines (the value holds until the next point) of NSER series over [x0, x1]. */
typedef struct sv_lines {
  const char *title, *xlabel, *ylabel;
  int nser;
  const sv_series *s;
  double x0, x1;
  const char *unit; /* of y, for the hover text */
  int width, height;
} sv_lines;

void sv_step_chart(sv_buf *b, const sv_lines *c);

/* ---------------------------------------------------------------- histogram */
/* A histogram on a log10 x axis: bin 0 is everything below edge[0] (drawn as
** its own bar at the left), bin i (1..nbins-1) is [edge[i-1], edge[i]). A dashed
** vertical line marks the cutoff when cutoff > 0. */
typedef struct sv_hist {
  const char *title, *xlabel;
  int nbins;
  const double *edges; /* nbins edges, ascending, > 0 */
  const double *count; /* nbins counts */
  double cutoff;
  const char *cutoff_label;
  const char *color;
  int width, height;
} sv_hist;

void sv_hist_chart(sv_buf *b, const sv_hist *c);

/* ---------------------------------------------------------------- waterfall */
/* From one total to another through its parts: a bar from 0 to START (labelled
** FIRST), then for each part a bar floating from the running total to the running
** total + delta (red when it adds, green when it takes away), then a bar from 0 to
** the end (START + every delta, labelled LAST). */
typedef struct sv_waterfall {
  const char *title, *ylabel, *unit;
  const char *first, *last; /* labels of the two totals' bars */
  double start;
  int n;
  const char *const *labels; /* n parts */
  const double *delta;       /* n deltas (NaN: drawn as 0) */
  int width, height;
} sv_waterfall;

void sv_waterfall_chart(sv_buf *b, const sv_waterfall *c);

#endif

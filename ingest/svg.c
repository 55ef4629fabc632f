/*
** svg.c: inline SVG charts for the HTML report (svg.h). Bars (stacked, with
** optional min/max whiskers), pies, step lines with a min/max downsampler, and
** log-scale histograms with a cutoff line.
**
** Requirements (tests cite them as SV-n):
**  1. The output is well-formed XML: every element is closed and every text
**     and attribute value goes through sv_esc (& < > " ' escaped).
**  2. Every mark (bar segment, slice, line, histogram bin) carries a <title>
**     with its label and number, so hovering shows the values without scripts.
**  3. Charts scale with the page (viewBox, width 100%), and draw something
**     sensible for empty or degenerate input (no data, one point, all zero):
**     an empty plot with a "no data" note, never NaN coordinates.
**  4. The downsampler keeps, per bucket, the first, lowest, highest and last
**     point, so the drawn line reaches every peak of the full series; its
**     output has at most 4 points per bucket whatever the input size.
**
** HOW IT WORKS: each chart computes a plot rectangle inside its width x height,
** "nice" axis ticks (1, 2, 5 x 10^k steps), and appends SVG elements to the
** buffer. Coordinates are printed with one decimal to keep the file small.
*/
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- buffer */

void sv_init(sv_buf *b) { memset(b, 0, sizeof *b); }

void sv_free(sv_buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static int sv_reserve(sv_buf *b, size_t more) {
  if (b->oom) return -1;
  if (b->n + more + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->n + more + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p, b->cap = cap;
  return 0;
}

void sv_put(sv_buf *b, const char *s, size_t n) {
  if (sv_reserve(b, n)) return;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void sv_puts(sv_buf *b, const char *s) { sv_put(b, s, strlen(s)); }

void sv_printf(sv_buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k < sizeof tmp) {
    sv_put(b, tmp, (size_t)k);
    return;
  }
  if (sv_reserve(b, (size_t)k)) return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

static void sv_escn(sv_buf *b, const char *s, size_t n) {
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    const char *rep = NULL;
    switch (s[i]) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&#39;"; break;
    default:
      /* control characters are not allowed in XML 1.0 text */
      if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') rep = " ";
    }
    if (rep) {
      sv_put(b, s + run, i - run);
      sv_puts(b, rep);
      run = i + 1;
    }
  }
  sv_put(b, s + run, n - run);
}

void sv_esc(sv_buf *b, const char *s) {
  if (s) sv_escn(b, s, strlen(s));
}

void sv_esc_cut(sv_buf *b, const char *s, size_t maxchars) {
  if (!s) return;
  size_t chars = 0, i = 0, n = strlen(s);
  while (i < n && chars < maxchars) {
    i++;
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) i++; /* continuation bytes */
    chars++;
  }
  sv_escn(b, s, i);
  if (i < n) sv_puts(b, "\xE2\x80\xA6"); /* … */
}

void sv_num(sv_buf *b, double v) {
  char tmp[64];
  if (isnan(v)) {
    sv_puts(b, "NaN");
    return;
  }
  if (isinf(v)) {
    sv_puts(b, v > 0 ? "inf" : "-inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 1e15) {
    snprintf(tmp, sizeof tmp, "%.0f", v);
  } else if (fabs(v) >= 1 || v == 0) {
    snprintf(tmp, sizeof tmp, "%.3f", v);
    char *e = tmp + strlen(tmp) - 1;
    while (*e == '0') *e-- = 0;
    if (*e == '.') *e = 0;
  } else {
    snprintf(tmp, sizeof tmp, "%.4g", v);
  }
  sv_puts(b, tmp);
}

/* A short number for axis ticks. */
static void sv_tick(sv_buf *b, double v) {
  char tmp[64];
  if (fabs(v) < 1e-12) v = 0;
  if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3)) snprintf(tmp, sizeof tmp, "%.3g", v);
  else snprintf(tmp, sizeof tmp, "%.6g", v);
  sv_puts(b, tmp);
}

/* Plotly's default palette (familiar to HTA users), then D3's: 20 distinct colours. */
static const char *const sv_palette[] = {"#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a",
                                         "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52",
                                         "#1f77b4", "#8c564b", "#2ca02c", "#d62728", "#9467bd",
                                         "#bcbd22", "#17becf", "#7f7f7f", "#e377c2", "#ff7f0e"};

const char *sv_color(int i) {
  int n = (int)(sizeof sv_palette / sizeof sv_palette[0]);
  return sv_palette[((i % n) + n) % n];
}

/* ---------------------------------------------------------------- axes */

typedef struct sv_plot {
  double l, t, w, h; /* plot rectangle */
  double lo, hi;     /* y range */
} sv_plot;

/* A "nice" step for about TARGET ticks over RANGE. */
static double sv_nice_step(double range, int target) {
  if (!(range > 0) || !isfinite(range)) return 1;
  double raw = range / target, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static double sv_py(const sv_plot *p, double v) {
  double r = p->hi - p->lo;
  double y = p->t + p->h - (r > 0 ? (v - p->lo) / r : 0) * p->h;
  if (y < p->t - 2) y = p->t - 2;
  if (y > p->t + p->h) y = p->t + p->h;
  return y;
}

/* Opens the <svg> with its aria-label (inline in HTML5: no xmlns needed). */
static void sv_open(sv_buf *b, int w, int h, const char *title) {
  sv_printf(b,
            "<svg class=\"chart\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
            w, h, w, h);
  sv_esc(b, title);
  sv_puts(b, "\">");
}

/* Y grid lines, tick labels and the axis title; rounds p->hi up to a tick. */
static void sv_yaxis(sv_buf *b, sv_plot *p, const char *label) {
  if (!isfinite(p->lo)) p->lo = 0;
  if (!isfinite(p->hi) || p->hi <= p->lo) p->hi = p->lo + 1;
  double step = sv_nice_step(p->hi - p->lo, 5);
  p->hi = ceil(p->hi / step - 1e-9) * step;
  if (p->hi <= p->lo) p->hi = p->lo + step;
  int ticks = 0; /* at most ~12 by construction; the bound guards against rounding */
  for (double v = p->lo; v <= p->hi + step / 2 && ticks < 50; v += step, ticks++) {
    double y = sv_py(p, v);
    sv_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p->l, y,
              p->l + p->w, y);
    sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", p->l - 6,
              y + 4);
    sv_tick(b, v);
    sv_puts(b, "</text>");
  }
  if (label) {
    sv_printf(
        b,
        "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
        p->t + p->h / 2);
    sv_esc(b, label);
    sv_puts(b, "</text>");
  }
  sv_printf(b, "<line class=\"axisline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p->l,
            p->t + p->h, p->l + p->w, p->t + p->h);
}

/* A legend row at the top: a swatch and a name per series. */
static void sv_legend(sv_buf *b, double x, double y, double maxx, int n, const char *const *names,
                      const char *const *colors) {
  for (int i = 0; i < n; i++) {
    size_t len = strlen(names[i] ? names[i] : "");
    double w = 18 + 7.0 * (double)(len > 40 ? 41 : len) + 14;
    if (x + w > maxx && i > 0) x = 60, y += 16;
    sv_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y - 10,
              colors ? colors[i] : sv_color(i));
    sv_printf(b, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 16, y);
    sv_esc_cut(b, names[i], 40);
    sv_puts(b, "</text>");
    x += w;
  }
}

static void sv_nodata(sv_buf *b, const sv_plot *p) {
  sv_printf(b, "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no data</text>",
            p->l + p->w / 2, p->t + p->h / 2);
}

/* Rows of legend a set of names needs (approximation of sv_legend's wrapping). */
static int sv_legend_rows(int n, const char *const *names, double width) {
  double x = 60;
  int rows = n > 0;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(names[i] ? names[i] : "");
    double w = 18 + 7.0 * (double)(len > 40 ? 41 : len) + 14;
    if (x + w > width - 10 && i > 0) x = 60, rows++;
    x += w;
  }
  return rows;
}

/* ---------------------------------------------------------------- bar chart */

void sv_bar_chart(sv_buf *b, const sv_bars *c) {
  int W = c->width ? c->width : 960, H = c->height ? c->height : 320;
  int nleg = c->nser > 1 ? sv_legend_rows(c->nser, c->sers, W) : 0;
  size_t maxlab = 0;
  for (int i = 0; i < c->ncat; i++) {
    size_t len = strlen(c->cats[i] ? c->cats[i] : "");
    if (len > maxlab) maxlab = len;
  }
  double slot0 = (W - 90.0) / (c->ncat > 0 ? c->ncat : 1);
  int rotate = c->ncat > 0 && (double)maxlab * 7 > slot0 - 4;
  double bottom = rotate ? 20 + 5.0 * (double)(maxlab > 24 ? 24 : maxlab) : 34;
  sv_plot p = {.l = 70, .t = 14 + 16.0 * nleg, .w = W - 90, .lo = 0};
  p.h = H - p.t - bottom;
  if (p.h < 80) {
    H += (int)(80 - p.h);
    p.h = 80;
  }
  double top = 0;
  for (int i = 0; i < c->ncat; i++) {
    double s = 0;
    for (int k = 0; k < c->nser; k++) {
      double v = c->v[(size_t)i * (size_t)c->nser + (size_t)k];
      if (v > 0 && isfinite(v)) s += v;
    }
    if (c->hi && isfinite(c->hi[i]) && c->hi[i] > s) s = c->hi[i];
    if (s > top) top = s;
  }
  p.hi = c->ymax > 0 ? c->ymax : (top > 0 ? top * 1.05 : 1);
  sv_open(b, W, H, c->title);
  if (nleg) sv_legend(b, 60, 14, W - 10, c->nser, c->sers, c->colors);
  sv_yaxis(b, &p, c->ylabel);
  if (c->ncat == 0 || top <= 0) sv_nodata(b, &p);
  double slot = p.w / (c->ncat > 0 ? c->ncat : 1);
  double bw = slot * 0.7 > 60 ? 60 : slot * 0.7;
  if (bw < 0.5) bw = 0.5;
  int every = 1;
  if (rotate) {
    double need = 14; /* px per rotated label */
    while (slot * every < need) every++;
  }
  for (int i = 0; i < c->ncat; i++) {
    double cx = p.l + slot * (i + 0.5), acc = 0;
    sv_puts(b, "<g>");
    for (int k = 0; k < c->nser; k++) {
      double v = c->v[(size_t)i * (size_t)c->nser + (size_t)k];
      if (!(v > 0) || !isfinite(v)) continue;
      double y0 = sv_py(&p, acc), y1 = sv_py(&p, acc + v);
      acc += v;
      sv_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                cx - bw / 2, y1, bw, y0 - y1 > 0 ? y0 - y1 : 0,
                c->colors ? c->colors[k] : sv_color(c->nser > 1 ? k : 0));
      sv_esc(b, c->cats[i]);
      if (c->nser > 1) {
        sv_puts(b, " \xE2\x80\x94 "); /* — */
        sv_esc(b, c->sers[k]);
      }
      sv_puts(b, ": ");
      sv_num(b, v);
      sv_esc(b, c->unit);
      if (c->lo && c->hi) {
        sv_puts(b, " (min ");
        sv_num(b, c->lo[i]);
        sv_puts(b, ", max ");
        sv_num(b, c->hi[i]);
        sv_puts(b, ")");
      }
      sv_puts(b, "</title></rect>");
    }
    if (c->lo && c->hi && isfinite(c->lo[i]) && isfinite(c->hi[i])) {
      double ylo = sv_py(&p, c->lo[i]), yhi = sv_py(&p, c->hi[i]), cap = bw / 4 > 8 ? 8 : bw / 4;
      sv_printf(
          b, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"><title>",
          cx, ylo, yhi, cx - cap, ylo, cx + cap, cx - cap, yhi, cx + cap);
      sv_esc(b, c->cats[i]);
      sv_puts(b, ": min ");
      sv_num(b, c->lo[i]);
      sv_puts(b, ", max ");
      sv_num(b, c->hi[i]);
      sv_esc(b, c->unit);
      sv_puts(b, "</title></path>");
    }
    if (i % every == 0) {
      double ly = p.t + p.h + 14;
      if (rotate) {
        sv_printf(b,
                  "<text class=\"tick\" transform=\"translate(%.1f %.1f) rotate(-40)\" "
                  "text-anchor=\"end\">",
                  cx + 3, ly - 4);
      } else {
        sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx, ly);
      }
      sv_esc_cut(b, c->cats[i], 24);
      sv_puts(b, "</text>");
    }
    sv_puts(b, "</g>");
  }
  sv_puts(b, "</svg>\n");
}

/* ---------------------------------------------------------------- pie chart */

void sv_pie_chart(sv_buf *b, const sv_pie *c) {
  double total = 0;
  int shown = 0;
  for (int i = 0; i < c->n; i++) {
    if (c->v[i] > 0 && isfinite(c->v[i])) total += c->v[i], shown++;
  }
  int W = c->width > 300 ? c->width : 540, rows = shown > 0 ? shown : 1;
  int H = 28 + (rows * 16 > 200 ? rows * 16 : 200) + 12;
  double r = 95, cx = 12 + r, cy = 30 + r;
  size_t cut =
      (size_t)((W - 2 * r - 46 - 70) / 7); /* legend characters that fit, with " (12.3%)" */
  sv_open(b, W, H, c->title);
  sv_puts(b, "<text class=\"ptitle\" x=\"6\" y=\"16\">");
  sv_esc_cut(b, c->title, 64);
  sv_puts(b, "</text>");
  if (!(total > 0)) {
    sv_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#eee\"/>", cx, cy, r);
    sv_printf(b,
              "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no data</text>",
              cx, cy);
    sv_puts(b, "</svg>\n");
    return;
  }
  double a = -M_PI / 2;
  int k = 0;
  for (int i = 0; i < c->n; i++) {
    double v = c->v[i];
    if (!(v > 0) || !isfinite(v)) continue;
    const char *col = c->colors ? c->colors[i] : sv_color(k);
    double frac = v / total, a2 = a + frac * 2 * M_PI;
    if (shown == 1 || frac > 0.999999) {
      sv_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>", cx, cy, r,
                col);
    } else {
      sv_printf(b,
                "<path d=\"M%.1f %.1fL%.2f %.2fA%.1f %.1f 0 %d 1 %.2f %.2fZ\" fill=\"%s\"><title>",
                cx, cy, cx + r * cos(a), cy + r * sin(a), r, r, frac > 0.5 ? 1 : 0,
                cx + r * cos(a2), cy + r * sin(a2), col);
    }
    sv_esc(b, c->hover && c->hover[i] ? c->hover[i] : c->labels[i]);
    sv_puts(b, ": ");
    sv_num(b, v);
    sv_esc(b, c->unit);
    sv_printf(b, " (%.2f%%)</title>%s", 100 * frac,
              shown == 1 || frac > 0.999999 ? "</circle>" : "</path>");
    if (frac >= 0.05) {
      double am = (a + a2) / 2;
      sv_printf(b,
                "<text class=\"slice\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f%%</text>",
                cx + 0.62 * r * cos(am), cy + 0.62 * r * sin(am) + 4, 100 * frac);
    }
    /* legend entry */
    double ly = 36 + 16.0 * k;
    sv_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"%s\"/>", 2 * r + 30,
              ly - 9, col);
    sv_printf(b, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\"><title>", 2 * r + 46, ly);
    sv_esc(b, c->hover && c->hover[i] ? c->hover[i] : c->labels[i]);
    sv_puts(b, "</title>");
    sv_esc_cut(b, c->labels[i], cut);
    sv_printf(b, " (%.1f%%)</text>", 100 * frac);
    a = a2;
    k++;
  }
  sv_puts(b, "</svg>\n");
}

/* ---------------------------------------------------------------- downsampler */

void sv_ds_init(sv_ds *d, double x0, double x1, int nb) {
  memset(d, 0, sizeof *d);
  d->x0 = x0;
  d->x1 = x1 > x0 ? x1 : x0 + 1;
  d->nb = nb > 0 ? nb : 1;
  d->cur = -1;
  d->maxy = -INFINITY;
  d->miny = INFINITY;
}

static void sv_ds_push(sv_ds *d, double x, double y) {
  if (d->n && d->x[d->n - 1] == x && d->y[d->n - 1] == y) return;
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 256;
    double *nx = realloc(d->x, cap * sizeof *nx);
    if (!nx) {
      d->oom = 1;
      return;
    }
    d->x = nx;
    double *ny = realloc(d->y, cap * sizeof *ny);
    if (!ny) {
      d->oom = 1;
      return;
    }
    d->y = ny, d->cap = cap;
  }
  d->x[d->n] = x, d->y[d->n] = y;
  d->n++;
}

static void sv_ds_flush(sv_ds *d) {
  if (!d->has) return;
  sv_ds_push(d, d->fx, d->fy);
  if (d->lox <= d->hix) {
    sv_ds_push(d, d->lox, d->loy);
    sv_ds_push(d, d->hix, d->hiy);
  } else {
    sv_ds_push(d, d->hix, d->hiy);
    sv_ds_push(d, d->lox, d->loy);
  }
  sv_ds_push(d, d->lx, d->ly);
  d->has = 0;
}

void sv_ds_add(sv_ds *d, double x, double y) {
  if (!isfinite(x) || !isfinite(y)) return;
  double f = (x - d->x0) / (d->x1 - d->x0) * d->nb;
  long k = f < 0 ? 0 : f >= d->nb ? d->nb - 1 : (long)f;
  if (k != d->cur) {
    sv_ds_flush(d);
    d->cur = k;
  }
  if (!d->has) {
    d->fx = d->lox = d->hix = x;
    d->fy = d->loy = d->hiy = y;
    d->has = 1;
  }
  if (y < d->loy) d->lox = x, d->loy = y;
  if (y > d->hiy) d->hix = x, d->hiy = y;
  d->lx = x, d->ly = y;
  if (y > d->maxy) d->maxx = x, d->maxy = y;
  if (y < d->miny) d->miny = y;
  d->seen++;
}

void sv_ds_finish(sv_ds *d) { sv_ds_flush(d); }

void sv_ds_free(sv_ds *d) {
  free(d->x);
  free(d->y);
  d->x = d->y = NULL;
  d->n = d->cap = 0;
}

/* ---------------------------------------------------------------- step lines */

/* A series' peak for a hover title: "<max><unit> at <x of the max>". */
static void sv_peak(sv_buf *b, const sv_ds *d, const char *unit) {
  sv_num(b, d->maxy);
  sv_esc(b, unit);
  sv_puts(b, " at ");
  sv_num(b, d->maxx);
}

void sv_step_chart(sv_buf *b, const sv_lines *c) {
  int W = c->width ? c->width : 960, H = c->height ? c->height : 300;
  const char *names[64];
  int nleg = c->nser < 64 ? c->nser : 64;
  for (int i = 0; i < nleg; i++) names[i] = c->s[i].name;
  int rows = sv_legend_rows(nleg, names, W);
  sv_plot p = {.l = 70, .t = 14 + 16.0 * rows, .w = W - 90};
  p.h = H - p.t - 44;
  if (p.h < 100) {
    H += (int)(100 - p.h);
    p.h = 100;
  }
  double lo = 0, hi = 0;
  size_t points = 0;
  for (int i = 0; i < c->nser; i++) {
    const sv_ds *d = c->s[i].d;
    if (!d->seen) continue;
    if (d->maxy > hi) hi = d->maxy;
    if (d->miny < lo) lo = d->miny;
    points += d->seen;
  }
  p.lo = lo < 0 ? -sv_nice_step(-lo, 1) * ceil(-lo / sv_nice_step(-lo, 1)) : 0;
  p.hi = hi > 0 ? hi * 1.05 : 1;
  double x0 = c->x0, x1 = c->x1 > c->x0 ? c->x1 : c->x0 + 1;
  sv_open(b, W, H, c->title);
  sv_legend(b, 60, 14, W - 10, nleg, names, NULL);
  sv_yaxis(b, &p, c->ylabel);
  /* x ticks */
  double step = sv_nice_step(x1 - x0, 8);
  int ticks = 0;
  for (double v = ceil(x0 / step) * step; v <= x1 + step * 1e-9 && ticks < 50; v += step, ticks++) {
    double x = p.l + (v - x0) / (x1 - x0) * p.w;
    sv_printf(b, "<line class=\"xtick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x,
              p.t + p.h, x, p.t + p.h + 4);
    sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
              p.t + p.h + 16);
    sv_tick(b, v);
    sv_puts(b, "</text>");
  }
  if (c->xlabel) {
    sv_printf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
              p.l + p.w / 2, p.t + p.h + 36);
    sv_esc(b, c->xlabel);
    sv_puts(b, "</text>");
  }
  if (!points) sv_nodata(b, &p);
  for (int i = 0; i < c->nser; i++) {
    const sv_ds *d = c->s[i].d;
    if (!d->n) continue;
    const char *col = sv_color(i);
    sv_printf(b, "<path class=\"line\" stroke=\"%s\" d=\"", col);
    for (size_t k = 0; k < d->n; k++) {
      double x = p.l + (d->x[k] - x0) / (x1 - x0) * p.w, y = sv_py(&p, d->y[k]);
      if (x < p.l) x = p.l;
      if (x > p.l + p.w) x = p.l + p.w;
      if (k == 0) sv_printf(b, "M%.1f %.1f", x, y);
      else sv_printf(b, "H%.1fV%.1f", x, y);
    }
    sv_puts(b, "\"><title>");
    sv_esc(b, c->s[i].name);
    sv_printf(b, ": %zu points", d->seen);
    if (d->n < d->seen) sv_printf(b, " (%zu drawn: min/max per pixel)", d->n);
    sv_puts(b, "; min ");
    sv_num(b, d->miny);
    sv_puts(b, ", max ");
    sv_peak(b, d, c->unit);
    sv_puts(b, "</title></path>");
    /* the peak, marked so that hovering gives its exact value */
    sv_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
              p.l + (d->maxx - x0) / (x1 - x0) * p.w, sv_py(&p, d->maxy), col);
    sv_esc(b, c->s[i].name);
    sv_puts(b, " peak: ");
    sv_peak(b, d, c->unit);
    sv_puts(b, "</title></circle>");
  }
  sv_puts(b, "</svg>\n");
}

/* ---------------------------------------------------------------- histogram */

void sv_hist_chart(sv_buf *b, const sv_hist *c) {
  int W = c->width ? c->width : 960, H = c->height ? c->height : 260;
  sv_plot p = {.l = 70, .t = 20, .w = W - 90, .h = H - 20 - 48, .lo = 0};
  double top = 0;
  for (int i = 0; i < c->nbins; i++)
    if (c->count[i] > top && isfinite(c->count[i])) top = c->count[i];
  p.hi = top > 0 ? top * 1.08 : 1;
  sv_open(b, W, H, c->title);
  sv_yaxis(b, &p, "count");
  if (c->nbins < 2 || !(top > 0)) {
    sv_nodata(b, &p);
    sv_puts(b, "</svg>\n");
    return;
  }
  double l0 = log10(c->edges[0]),
         lw = log10(c->edges[1]) - l0; /* the underflow bar is one bin wide */
  double lmin = l0 - lw, lmax = log10(c->edges[c->nbins - 1]);
  if (c->cutoff > 0 && log10(c->cutoff) > lmax) lmax = log10(c->cutoff) + lw;
#define SV_HX(lv) (p.l + ((lv)-lmin) / (lmax - lmin) * p.w)
  const char *col = c->color ? c->color : sv_color(0);
  for (int i = 0; i < c->nbins; i++) {
    if (!(c->count[i] > 0)) continue;
    double a = i == 0 ? lmin : log10(c->edges[i - 1]), z = i == 0 ? l0 : log10(c->edges[i]);
    double xa = SV_HX(a) + 0.5, xz = SV_HX(z) - 0.5, y = sv_py(&p, c->count[i]);
    sv_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
              xa, y, xz - xa > 0.5 ? xz - xa : 0.5, p.t + p.h - y, i == 0 ? "#999999" : col);
    if (i == 0) {
      sv_puts(b, "below ");
      sv_num(b, c->edges[0]);
    } else {
      sv_puts(b, "[");
      sv_num(b, c->edges[i - 1]);
      sv_puts(b, ", ");
      sv_num(b, c->edges[i]);
      sv_puts(b, ")");
    }
    sv_puts(b, ": ");
    sv_num(b, c->count[i]);
    sv_puts(b, "</title></rect>");
  }
  /* decade ticks */
  for (double d = ceil(lmin); d <= lmax + 1e-9; d += 1) {
    if (d < l0 - 1e-9) continue;
    double x = SV_HX(d);
    if (fabs(d - l0) < 1e-9) { /* the underflow bar's label sits right beside it */
      sv_printf(b, "<line class=\"xtick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x,
                p.t + p.h, x, p.t + p.h + 4);
      continue;
    }
    sv_printf(b, "<line class=\"xtick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x,
              p.t + p.h, x, p.t + p.h + 4);
    sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
              p.t + p.h + 16);
    sv_tick(b, pow(10, d));
    sv_puts(b, "</text>");
  }
  sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">&lt;",
            SV_HX(lmin + lw / 2), p.t + p.h + 16);
  sv_tick(b, c->edges[0]);
  sv_puts(b, "</text>");
  if (c->cutoff > 0) {
    double x = SV_HX(log10(c->cutoff));
    sv_printf(b, "<line class=\"cutoff\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>",
              x, p.t - 6, x, p.t + p.h);
    sv_esc(b, c->cutoff_label);
    sv_puts(b, "</title></line>");
    sv_printf(b, "<text class=\"cutlabel\" x=\"%.1f\" y=\"%.1f\">", x + 4, p.t + 4);
    sv_esc(b, c->cutoff_label);
    sv_puts(b, "</text>");
  }
#undef SV_HX
  if (c->xlabel) {
    sv_printf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
              p.l + p.w / 2, p.t + p.h + 36);
    sv_esc(b, c->xlabel);
    sv_puts(b, "</text>");
  }
  sv_puts(b, "</svg>\n");
}

/* ---------------------------------------------------------------- waterfall */

/* One bar of the waterfall from LO to HI (either order) at slot I. */
static void sv_wf_bar(sv_buf *b, const sv_plot *p, double slot, int i, double from, double to,
                      const char *color, const char *label, double shown, const char *unit) {
  double cx = p->l + slot * (i + 0.5), bw = slot * 0.7 > 60 ? 60 : slot * 0.7;
  double y0 = sv_py(p, from < to ? from : to), y1 = sv_py(p, from < to ? to : from);
  if (bw < 0.5) bw = 0.5;
  sv_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
            cx - bw / 2, y1, bw, y0 - y1 > 0.5 ? y0 - y1 : 0.5, color);
  sv_esc(b, label);
  sv_puts(b, ": ");
  if (shown > 0 && strcmp(color, "#9e9e9e")) sv_puts(b, "+");
  sv_num(b, shown);
  sv_esc(b, unit);
  sv_puts(b, "</title></rect>");
}

void sv_waterfall_chart(sv_buf *b, const sv_waterfall *c) {
  int W = c->width ? c->width : 960, H = c->height ? c->height : 340, n = c->n + 2;
  size_t maxlab = strlen(c->first ? c->first : "") > strlen(c->last ? c->last : "")
                      ? strlen(c->first ? c->first : "")
                      : strlen(c->last ? c->last : "");
  for (int i = 0; i < c->n; i++) {
    size_t len = strlen(c->labels[i] ? c->labels[i] : "");
    if (len > maxlab) maxlab = len;
  }
  double slot = (W - 90.0) / n;
  int rotate = (double)maxlab * 7 > slot - 4;
  double bottom = rotate ? 20 + 5.0 * (double)(maxlab > 24 ? 24 : maxlab) : 34;
  sv_plot p = {.l = 70, .t = 14, .w = W - 90, .lo = 0};
  p.h = H - p.t - bottom;
  if (p.h < 80) {
    H += (int)(80 - p.h);
    p.h = 80;
  }
  double run = isfinite(c->start) ? c->start : 0, lo = run < 0 ? run : 0, hi = run > 0 ? run : 0;
  for (int i = 0; i < c->n; i++) {
    if (isfinite(c->delta[i])) run += c->delta[i];
    if (run < lo) lo = run;
    if (run > hi) hi = run;
  }
  p.lo = lo < 0 ? lo * 1.05 : 0;
  p.hi = hi > 0 ? hi * 1.05 : 1;
  if (p.lo < 0) { /* a tick at a round value below 0 */
    double step = sv_nice_step(p.hi - p.lo, 5);
    p.lo = floor(p.lo / step) * step;
  }
  sv_open(b, W, H, c->title);
  sv_yaxis(b, &p, c->ylabel);
  run = isfinite(c->start) ? c->start : 0;
  for (int i = 0; i < n; i++) {
    const char *label = i == 0 ? c->first : i == n - 1 ? c->last : c->labels[i - 1];
    sv_puts(b, "<g>");
    if (i == 0 || i == n - 1) {
      sv_wf_bar(b, &p, slot, i, 0, run, "#9e9e9e", label, run, c->unit);
    } else {
      double d = isfinite(c->delta[i - 1]) ? c->delta[i - 1] : 0;
      sv_wf_bar(b, &p, slot, i, run, run + d, d > 0 ? "#d62728" : "#2ca02c", label, d, c->unit);
      run += d;
    }
    double cx = p.l + slot * (i + 0.5), ly = p.t + p.h + 14;
    if (rotate)
      sv_printf(b,
                "<text class=\"tick\" transform=\"translate(%.1f %.1f) rotate(-40)\" "
                "text-anchor=\"end\">",
                cx + 3, ly - 4);
    else sv_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx, ly);
    sv_esc_cut(b, label, 24);
    sv_puts(b, "</text></g>");
  }
  if (p.lo < 0) { /* the zero line */
    double y = sv_py(&p, 0);
    sv_printf(b, "<line class=\"axisline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p.l,
              y, p.l + p.w, y);
  }
  sv_puts(b, "</svg>\n");
}

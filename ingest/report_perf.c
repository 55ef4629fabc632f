/*
** report_perf.c: section 15 of the HTML report (numbered 16 on the page, the
** findings coming first), the operator performance model (hta_op_perf,
** hta_op_perf_summary; report_int.h says what the parts share).
**
**  15. Operator performance: per shown rank, a roofline chart (achieved TFLOPS
**      against FLOPs per byte, both log scales, one dot per operator signature sized
**      by its kernel time, the device's roofline per compute spec drawn from
**      device_peak); the top operators by kernel time with TFLOPS, TB/s and % of
**      peak; the launchers' time per category. A job without modelled operators
**      (no record_shapes) gets a note saying so.
**
** Every statement goes through hrPrep / hrMat / hrTableOf (report_ctx.c), so each reads
** the current job only (HR-8); the chart reads the temp.hr_op copy that the table
** under it shows the SQL of (HR-1).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define HR_OP_TOP 15  /* operators in the top table */
#define HR_RL_SPECS 4 /* roofline lines per chart */
#define HR_RL_W 870   /* chart size, px */
#define HR_RL_H 380
#define HR_RL_MAXCAT 16 /* categories with a colour of their own */

typedef struct rl_point {
  double ai, tflops, kus, pct; /* FLOPs / byte, TFLOPS, kernel µs, % of peak (NaN) */
  int cat;
  char tip[200];
} rl_point;

typedef struct rl_line {
  char spec[24];
  double tflops, tbps;
} rl_line;

/* Maps V in [lo, hi] (log10) onto [a, b]. */
static double rlPos(double v, double lo, double hi, double a, double b) {
  return a + (log10(v) - lo) / (hi - lo) * (b - a);
}

/* The roofline chart of one rank: points P[0..n) over the lines L[0..nl). */
static void rlChart(sv_buf *o, const char *title, const rl_point *p, size_t n, const rl_line *l,
                    int nl, const char *const *cats, int ncat) {
  const double left = 64, right = HR_RL_W - 170, top = 14, bottom = HR_RL_H - 46;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, kmax = 0;
  for (size_t i = 0; i < n; i++) {
    xlo = fmin(xlo, p[i].ai), xhi = fmax(xhi, p[i].ai);
    ylo = fmin(ylo, p[i].tflops), yhi = fmax(yhi, p[i].tflops);
    kmax = fmax(kmax, p[i].kus);
  }
  for (int k = 0; k < nl; k++) { /* the ridge point and the peak in view */
    xhi = fmax(xhi, l[k].tflops / l[k].tbps * 4);
    yhi = fmax(yhi, l[k].tflops);
  }
  xlo = floor(log10(xlo)), xhi = ceil(log10(xhi)), ylo = floor(log10(ylo)), yhi = ceil(log10(yhi));
  if (xhi <= xlo) xhi = xlo + 1;
  if (yhi <= ylo) yhi = ylo + 1;
  sv_printf(o, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", HR_RL_W,
            HR_RL_H);
  sv_esc(o, title);
  sv_puts(o, "\">");
  for (double d = xlo; d <= xhi + 1e-9; d++) { /* decades */
    double x = rlPos(pow(10, d), xlo, xhi, left, right);
    sv_printf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, top,
              x, bottom);
    sv_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
              bottom + 16);
    sv_num(o, pow(10, d));
    sv_puts(o, "</text>");
  }
  for (double d = ylo; d <= yhi + 1e-9; d++) {
    double y = rlPos(pow(10, d), ylo, yhi, bottom, top);
    sv_printf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", left, y,
              right, y);
    sv_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
              y + 4);
    sv_num(o, pow(10, d));
    sv_puts(o, "</text>");
  }
  sv_printf(o,
            "<line class=\"axisline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<line class=\"axisline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
            left, bottom, right, bottom, left, top, left, bottom);
  sv_printf(o,
            "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">FLOPs per byte"
            "</text><text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">achieved TFLOPS</text>",
            (left + right) / 2, (double)HR_RL_H - 8, (top + bottom) / 2);
  /* the rooflines: min(peak, ai * bandwidth), over the whole x range */
  for (int k = 0; k < nl; k++) {
    double ridge = l[k].tflops / l[k].tbps, x0 = pow(10, xlo), x1 = pow(10, xhi);
    double ax = fmax(x0, fmin(ridge, x1)), y0 = x0 * l[k].tbps;
    sv_printf(o, "<polyline class=\"line\" stroke=\"#555\" stroke-dasharray=\"%s\" points=\"",
              k == 0   ? "none"
              : k == 1 ? "6 3"
                       : "2 3");
    if (y0 >= pow(10, ylo)) sv_printf(o, "%.1f,%.1f ", left, rlPos(y0, ylo, yhi, bottom, top));
    else /* enters the plot at its bottom */
      sv_printf(o, "%.1f,%.1f ", rlPos(pow(10, ylo) / l[k].tbps, xlo, xhi, left, right), bottom);
    sv_printf(o, "%.1f,%.1f %.1f,%.1f\"><title>", rlPos(ax, xlo, xhi, left, right),
              rlPos(fmin(ax * l[k].tbps, l[k].tflops), ylo, yhi, bottom, top), right,
              rlPos(l[k].tflops, ylo, yhi, bottom, top));
    sv_esc(o, l[k].spec);
    sv_printf(o, ": %g TFLOPS, %g TB/s</title></polyline>", l[k].tflops, l[k].tbps);
    sv_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
              rlPos(ax, xlo, xhi, left, right) - 4, rlPos(l[k].tflops, ylo, yhi, bottom, top) - 4);
    sv_esc(o, l[k].spec);
    sv_puts(o, "</text>");
  }
  for (size_t i = 0; i < n; i++) { /* area by kernel time */
    double r = 3 + 9 * sqrt(kmax > 0 ? p[i].kus / kmax : 0);
    sv_printf(o,
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"0.65\" "
              "stroke=\"#333\" stroke-width=\"0.5\"><title>",
              rlPos(p[i].ai, xlo, xhi, left, right), rlPos(p[i].tflops, ylo, yhi, bottom, top), r,
              sv_color(p[i].cat));
    sv_esc(o, p[i].tip);
    sv_puts(o, "</title></circle>");
  }
  for (int c = 0; c < ncat; c++) {
    double y = top + 8 + 17 * c;
    sv_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>", right + 20, y - 4,
              sv_color(c));
    sv_printf(o, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", right + 30, y);
    sv_esc(o, cats[c]);
    sv_puts(o, "</text>");
  }
  sv_puts(o, "</svg>\n");
}

/* The roofline chart of RANK from temp.hr_op; a note when it has nothing to draw. */
static void hrRoofline(hr_ctx *x, int64_t rank) {
  rl_point *p = NULL;
  size_t n = 0, cap = 0;
  rl_line l[HR_RL_SPECS];
  int nl = 0, ncat = 0;
  const char *cats[HR_RL_MAXCAT];
  char catbuf[HR_RL_MAXCAT][32];
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT category, name, flops_per_byte, tflops, kernel_us_total,"
                            " pct_of_peak, calls, compute_spec, peak_tflops, peak_tbps, trace_id"
                            " FROM temp.hr_op WHERE rank = ?1 AND tflops > 0 AND"
                            " flops_per_byte > 0 ORDER BY kernel_us_total DESC",
                            "hta_op_perf");
  if (!st) return;
  sqlite3_bind_int64(st, 1, rank);
  while (hrStep(x, st, "hta_op_perf") == SQLITE_ROW) {
    const char *cat = (const char *)sqlite3_column_text(st, 0);
    const char *spec = (const char *)sqlite3_column_text(st, 7);
    int c = 0;
    while (c < ncat && strcmp(cats[c], cat ? cat : "")) c++;
    if (c == ncat && ncat < HR_RL_MAXCAT) {
      snprintf(catbuf[ncat], sizeof catbuf[ncat], "%s", cat ? cat : "");
      cats[ncat] = catbuf[ncat];
      ncat++;
    }
    if (spec && sqlite3_column_type(st, 8) != SQLITE_NULL &&
        sqlite3_column_type(st, 9) != SQLITE_NULL) {
      int k = 0;
      while (k < nl && strcmp(l[k].spec, spec)) k++;
      if (k == nl && nl < HR_RL_SPECS) {
        snprintf(l[nl].spec, sizeof l[nl].spec, "%s", spec);
        l[nl].tflops = sqlite3_column_double(st, 8);
        l[nl].tbps = sqlite3_column_double(st, 9);
        if (l[nl].tflops > 0 && l[nl].tbps > 0) nl++;
      }
    }
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 64;
      rl_point *np = realloc(p, nc * sizeof *np);
      if (!np) {
        hrOom(x);
        break;
      }
      p = np, cap = nc;
    }
    rl_point *q = &p[n++];
    q->ai = sqlite3_column_double(st, 2);
    q->tflops = sqlite3_column_double(st, 3);
    q->kus = sqlite3_column_double(st, 4);
    q->pct = hrCol(st, 5);
    q->cat = c < HR_RL_MAXCAT ? c : HR_RL_MAXCAT;
    snprintf(q->tip, sizeof q->tip,
             "%s (%s): %lld calls, %.1f \xC2\xB5s, %.3g TFLOPS, %.3g FLOPs/B",
             (const char *)sqlite3_column_text(st, 1), cat ? cat : "",
             (long long)sqlite3_column_int64(st, 6), q->kus, q->tflops, q->ai);
    if (!isnan(q->pct)) {
      size_t len = strlen(q->tip);
      snprintf(q->tip + len, sizeof q->tip - len, ", %.1f%% of peak", q->pct);
    }
  }
  sqlite3_finalize(st);
  if (!x->fatal && n) {
    char title[96];
    snprintf(title, sizeof title, "Roofline, rank %lld", (long long)rank);
    rlChart(x->o, title, p, n, l, nl, cats, ncat);
    if (!nl)
      sv_puts(x->o,
              "<p class=\"note\">No peak for this GPU in <code>device_peak</code>: no roofline "
              "(add its rows: pattern, compute spec, TFLOPS, TB/s).</p>\n");
  } else if (!x->fatal) {
    sv_puts(x->o, "<p class=\"note\">No operator with both FLOPs and kernel time.</p>\n");
  }
  free(p);
}

void hrPerf(hr_ctx *x) {
  hrSection(x, 14,
            "How fast the operators ran against the GPU's peak (AMD TraceLens's performance "
            "model): from the shapes the profiler records (<code>record_shapes=True</code>), "
            "each operator's floating-point operations and bytes moved, divided by the busy "
            "time of the GPU work it launched; the roofline is the lower of the device's peak "
            "TFLOPS and FLOPs per byte times its memory bandwidth (<code>device_peak</code>). "
            "A dot per operator signature, its area the kernel time; below the lines is "
            "headroom.");
  static const char src[] = "hta_op_perf";
  if (!hrMatRows(x, "hr_op", src,
                 "No modelled operators: the traces have no recorded shapes (profile with "
                 "<code>record_shapes=True</code>) or no operator with a model.")) {
    hrEndSection(x);
    return;
  }
  hrShownNote(x);
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    sv_printf(x->o, "<h3>Rank %lld</h3>\n", (long long)x->shown[r]);
    hrRoofline(x, x->shown[r]);
  }
  sv_printf(x->o,
            "<h3>Top %d operators by kernel time, every rank</h3>\n<p class=\"what\">Per "
            "signature (name and shapes): TFLOPS and TB/s are the means over the calls, "
            "<b>pct_of_peak</b> the share of the roofline reached, <b>bound</b> the roof that "
            "limits it.</p>\n",
            HR_OP_TOP);
  hrTableOf(x,
            "SELECT rank, category, name, calls, kernel_us_total, gflops, tflops, tbps,\n"
            "       pct_of_peak, bound, m, n, k, compute_spec\n"
            "FROM (SELECT *, row_number() OVER (PARTITION BY trace_id ORDER BY kernel_us_total "
            "DESC) AS pos\n"
            "      FROM {src})\nWHERE pos <= " HR_XSTR(HR_OP_TOP) " ORDER BY rank, trace_id, pos",
            src, "hr_op", src);
  sv_puts(x->o,
          "<h3>Kernel time by launcher category, every rank</h3>\n<p class=\"what\">Each GPU "
          "kernel counted once, for the innermost operator that launched it; the category's "
          "GFLOPs and TFLOPS where its operators have a model.</p>\n");
  hrTableOf(x,
            "SELECT rank, launcher_category, calls, kernel_us_total, percentage,\n"
            "       pct_of_gpu_time, gflops_total, tflops, pct_of_peak\n"
            "FROM {src}",
            "hta_op_perf_summary", NULL, "hta_op_perf_summary");
  sqlite3_exec(x->db, "DROP TABLE IF EXISTS temp.hr_op", NULL, NULL, NULL);
  hrEndSection(x);
}

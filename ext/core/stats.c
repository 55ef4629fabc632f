/*
** stats.c: pandas-compatible descriptive statistics (spec "Conventions").
**
**   hta_quantile_sorted()   numpy's linear quantile, as pandas' Series.quantile
**   hta_mean_std()          mean and sample standard deviation (ddof 1)
**   hta_describe_doubles()  DataFrame.describe(): count mean std min 25% 50% 75% max
**   hta_fmt_us()            a time as people read it, for messages and titles
**
** Requirements (tests cite them as ST-n):
**  1. Quantile: q' = (q*100)/100 (pandas hands numpy a percentage); pos = q'(n-1);
**     lo = floor(pos); t = pos - lo; a = v[lo], b = v[min(lo+1, n-1)];
**     result = a + (b-a)t when t < 0.5, else b - (b-a)(1-t) (numpy's _lerp).
**  2. Means and variances use compensated sums and the corrected two-pass formula,
**     so they agree with numpy/pandas to ~1e-15 relative.
**  3. std of one value: 0 from hta_mean_std (HTA's fillna(0)), NaN from describe.
**     Every statistic of zero values is NaN (count 0).
**  4. hta_topk_aggregate: HTA's "others" rule with per-instance statistics (D3),
**     as documented in hta_common.h; ties in a name's sum are broken by name.
**  5. hta_np_argsort: numpy 1.24 aquicksort step for step (spec Appendix A):
**     median-of-3 quicksort down to partitions of 16, insertion sort below,
**     heapsort when the depth budget 2*floor(log2 n) runs out.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

double hta_quantile_sorted(const double *v, size_t n, double q) {
  if (n == 0) return NAN;
  q = (q * 100.0) / 100.0; /* ST-1: pandas -> numpy percentage round trip */
  double pos = (double)(n - 1) * q;
  double lo = floor(pos);
  double t = pos - lo;
  size_t i = lo < 0 ? 0 : (size_t)lo;
  if (i > n - 1) i = n - 1;
  size_t j = i + 1 < n ? i + 1 : n - 1;
  double a = v[i], b = v[j], d = b - a;
  return t < 0.5 ? a + d * t : b - d * (1.0 - t);
}

/* Neumaier's compensated sum of f(v[i]) with f = x - shift. */
static double sumShift(const double *v, size_t n, double shift) {
  double s = 0, c = 0;
  for (size_t i = 0; i < n; i++) {
    double x = v[i] - shift, t = s + x;
    c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  return s + c;
}

void hta_mean_std(const double *v, size_t n, double *mean, double *std) {
  if (n == 0) {
    *mean = *std = NAN;
    return;
  }
  double m = sumShift(v, n, 0) / (double)n;
  if (n == 1) {
    *mean = m;
    *std = 0; /* ST-3 */
    return;
  }
  /* ST-2: corrected two-pass variance. */
  double ss = 0, c = 0, corr = sumShift(v, n, m);
  for (size_t i = 0; i < n; i++) {
    double d = v[i] - m, x = d * d, t = ss + x;
    c += ss >= x ? (ss - t) + x : (x - t) + ss;
    ss = t;
  }
  ss += c;
  ss -= corr * corr / (double)n;
  *mean = m;
  *std = ss > 0 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

static int dblCmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void hta_sort_doubles(double *v, size_t n) { qsort(v, n, sizeof *v, dblCmp); }

void hta_describe_doubles(double *v, size_t n, hta_describe *d) {
  d->count = (int64_t)n;
  if (n == 0) {
    d->mean = d->std = d->min = d->p25 = d->p50 = d->p75 = d->max = NAN;
    return;
  }
  hta_sort_doubles(v, n);
  hta_mean_std(v, n, &d->mean, &d->std);
  if (n < 2) d->std = NAN; /* ST-3 */
  d->min = v[0];
  d->max = v[n - 1];
  d->p25 = hta_quantile_sorted(v, n, 0.25);
  d->p50 = hta_quantile_sorted(v, n, 0.5);
  d->p75 = hta_quantile_sorted(v, n, 0.75);
}

/* ---------------------------------------------------------------- top-k + others */

typedef struct topk_item {
  const hta_topk_group *g;
  int64_t sum;
  int others;
} topk_item;

static int topkSumCmp(const void *a, const void *b) {
  const topk_item *x = a, *y = b;
  if (x->sum != y->sum) return x->sum > y->sum ? -1 : 1;
  return strcmp(x->g->name, y->g->name);
}

static int topkNameCmp(const void *a, const void *b) {
  const hta_topk_row *x = a, *y = b;
  return strcmp(x->name, y->name);
}

/* Fills R with the statistics of the instances of the groups in IT[0..n) that have
** others == WHICH; V is scratch for all their durations. */
static void topkStats(const topk_item *it, size_t n, int which, double *v, hta_topk_row *r) {
  size_t m = 0;
  int64_t sum = 0, mx = 0, mn = 0;
  double mean, std;
  for (size_t i = 0; i < n; i++) {
    if (it[i].others != which) continue;
    for (size_t j = 0; j < it[i].g->n; j++) {
      int64_t d = it[i].g->dur[j];
      if (m == 0 || d > mx) mx = d;
      if (m == 0 || d < mn) mn = d;
      sum = hta_add_sat(sum, d);
      v[m++] = (double)d;
    }
  }
  hta_mean_std(v, m, &mean, &std);
  r->count = (int64_t)m;
  r->sum_us = sum / 1000.0;
  r->max_us = m ? mx / 1000.0 : NAN;
  r->min_us = m ? mn / 1000.0 : NAN;
  r->mean_us = m ? (double)sum / (double)m / 1000.0 : NAN;
  r->std_us = std / 1000.0;
}

int hta_topk_aggregate(const hta_topk_group *g, size_t n, int64_t num, double ratio,
                       hta_topk_row **rows, size_t *nrows) {
  topk_item *it = sqlite3_malloc64((n ? n : 1) * sizeof *it);
  hta_topk_row *out = sqlite3_malloc64((n + 1) * sizeof *out);
  double *cum = 0, *v = 0;
  size_t maxn = 0, nout = 0;
  int any_others = 0;
  *rows = 0;
  *nrows = 0;
  if (!it || !out) goto topk_oom;
  for (size_t i = 0; i < n; i++) {
    it[i].g = &g[i];
    it[i].sum = 0;
    it[i].others = 0;
    for (size_t j = 0; j < g[i].n; j++) it[i].sum = hta_add_sat(it[i].sum, g[i].dur[j]);
    maxn += g[i].n;
  }
  if ((int64_t)n > num) {
    int64_t run = 0;
    qsort(it, n, sizeof *it, topkSumCmp);
    cum = sqlite3_malloc64(2 * n * sizeof *cum);
    if (!cum) goto topk_oom;
    for (size_t i = 0; i < n; i++) {
      run = hta_add_sat(run, it[i].sum);
      cum[i] = cum[n + i] = (double)run;
    }
    hta_sort_doubles(cum + n, n);
    double q = hta_quantile_sorted(cum + n, n, ratio);
    for (size_t i = 0; i < n; i++) {
      it[i].others = cum[i] > q || (int64_t)i >= num;
      any_others |= it[i].others;
    }
  }
  v = sqlite3_malloc64((maxn ? maxn : 1) * sizeof *v);
  if (!v) goto topk_oom;
  for (size_t i = 0; i < n; i++) {
    if (it[i].others) continue;
    out[nout].name = it[i].g->name;
    topkStats(&it[i], 1, 0, v, &out[nout]);
    nout++;
  }
  if (any_others) {
    out[nout].name = "others";
    topkStats(it, n, 1, v, &out[nout]);
    nout++;
  }
  qsort(out, nout, sizeof *out, topkNameCmp);
  sqlite3_free(it);
  sqlite3_free(cum);
  sqlite3_free(v);
  *rows = out;
  *nrows = nout;
  return SQLITE_OK;

topk_oom:
  sqlite3_free(it);
  sqlite3_free(out);
  sqlite3_free(cum);
  sqlite3_free(v);
  return SQLITE_NOMEM;
}

void hta_topk_free(hta_topk_row *rows, size_t n) {
  (void)n;
  sqlite3_free(rows);
}

/* ---------------------------------------------------------------- numpy's argsort */

#define NP_SMALL_QUICKSORT 15
#define NP_QS_STACK 128 /* numpy's PYA_QS_STACK: 2 * bits of npy_intp */

static void npSwap(size_t *a, size_t *b) {
  size_t t = *a;
  *a = *b;
  *b = t;
}

/* numpy's heap sift-down of a[i] within the heap a[0..n). numpy indexes its heap
** from 1 through a pointer one before the array, which C does not allow; here node
** k (numpy's k + 1) has the children 2k + 1 and 2k + 2, the same nodes, so the
** comparisons and moves, and the order of equal values, are numpy's. */
static void npSiftDown(const int64_t *v, size_t *a, size_t i, size_t n) {
  size_t tmp = a[i], j;
  for (j = 2 * i + 1; j < n;) {
    if (j + 1 < n && v[a[j]] < v[a[j + 1]]) j += 1;
    if (v[tmp] < v[a[j]]) {
      a[i] = a[j];
      i = j;
      j = 2 * j + 1;
    } else {
      break;
    }
  }
  a[i] = tmp;
}

/* numpy's aheapsort over a[0..n): build the heap, then move its top out. */
static void npAheapsort(const int64_t *v, size_t *a, size_t n) {
  for (size_t l = n >> 1; l > 0; --l) npSiftDown(v, a, l - 1, n);
  for (; n > 1; n--) {
    size_t tmp = a[n - 1];
    a[n - 1] = a[0];
    a[0] = tmp;
    npSiftDown(v, a, 0, n - 1);
  }
}

void hta_np_argsort(const int64_t *v, size_t n, size_t *perm) {
  size_t *pl, *pr, *pm, *pi, *pj, *pk, vi;
  size_t *stack[NP_QS_STACK], **sptr = stack;
  int depth[NP_QS_STACK], *psdepth = depth, cdepth = 0;
  int64_t vp;
  for (size_t i = 0; i < n; i++) perm[i] = i;
  if (n < 2) return;
  for (size_t m = n; m > 1; m >>= 1) cdepth += 2; /* 2 * floor(log2 n) */
  pl = perm;
  pr = perm + n - 1;
  for (;;) {
    if (cdepth < 0) {
      npAheapsort(v, pl, (size_t)(pr - pl) + 1);
      goto np_pop;
    }
    while (pr - pl > NP_SMALL_QUICKSORT) {
      pm = pl + ((pr - pl) >> 1);
      if (v[*pm] < v[*pl]) npSwap(pm, pl);
      if (v[*pr] < v[*pm]) npSwap(pr, pm);
      if (v[*pm] < v[*pl]) npSwap(pm, pl);
      vp = v[*pm];
      pi = pl;
      pj = pr - 1;
      npSwap(pm, pj);
      for (;;) {
        do ++pi;
        while (v[*pi] < vp);
        do --pj;
        while (vp < v[*pj]);
        if (pi >= pj) break;
        npSwap(pi, pj);
      }
      pk = pr - 1;
      npSwap(pi, pk);
      /* the larger partition goes on the stack */
      if (pi - pl < pr - pi) {
        *sptr++ = pi + 1;
        *sptr++ = pr;
        pr = pi - 1;
      } else {
        *sptr++ = pl;
        *sptr++ = pi - 1;
        pl = pi + 1;
      }
      *psdepth++ = --cdepth;
    }
    for (pi = pl + 1; pi <= pr; ++pi) { /* insertion sort (never forms pl - 1) */
      vi = *pi;
      vp = v[vi];
      for (pj = pi; pj > pl && vp < v[pj[-1]]; pj--) *pj = pj[-1];
      *pj = vi;
    }
  np_pop:
    if (sptr == stack) break;
    pr = *(--sptr);
    pl = *(--sptr);
    cdepth = *(--psdepth);
  }
}

const char *hta_fmt_us(double us, char buf[32]) {
  double a = fabs(us);
  if (a >= 1e6) sqlite3_snprintf(32, buf, "%.2f s", us / 1e6);
  else if (a >= 1e4) sqlite3_snprintf(32, buf, "%.1f ms", us / 1e3);
  else if (a >= 100) sqlite3_snprintf(32, buf, "%.0f \xC2\xB5s", us);
  else if (a >= 10) sqlite3_snprintf(32, buf, "%.1f \xC2\xB5s", us);
  else sqlite3_snprintf(32, buf, "%.2f \xC2\xB5s", us);
  return buf;
}

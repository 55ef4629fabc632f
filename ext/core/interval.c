/*
** interval.c: interval algebra for the analyses (spec 2, "merge").
**
**   hta_iv_merge()    HTA's merge(): sort by start, then fold every interval whose
**                     start is <= the largest end seen so far into the current group
**   hta_iv_length()   the union length of merged intervals
**   hta_iv_sweep()    time spent in each combination of several merged lists
**   hta_iv_intersect(), hta_iv_subtract(), hta_iv_clip_length()
**                     set algebra on merged lists (the TensorBoard plugin's views)
**
** All times are integer ns, so sums are exact.
**
** Requirements (tests cite them as IV-n):
**  1. Touching intervals merge ([0,5) and [5,8) give [0,8)): a new group starts only
**     at an interval whose start is strictly greater than every earlier end.
**  2. A group is [its smallest start, its largest end]. An interval with a negative
**     length is kept as HTA keeps it (it can make a group whose end < start).
**  3. hta_iv_sweep applies every change at one instant before measuring, so states
**     that last zero time (one kernel ends where another begins) get nothing.
**  4. The set operations take merged lists (sorted, disjoint: hta_iv_merge's
**     output) and give merged lists without zero-length pieces; clip_length counts
**     only time inside [start, end).
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static int ivCmp(const void *a, const void *b) {
  const hta_iv *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return 0;
}

size_t hta_iv_merge(hta_iv *iv, size_t n) {
  size_t m = 0;
  int64_t maxend = 0;
  size_t sorted = 1;
  if (n == 0) return 0;
  while (sorted < n && ivCmp(&iv[sorted - 1], &iv[sorted]) <= 0) sorted++;
  if (sorted < n) qsort(iv, n, sizeof *iv, ivCmp); /* often they come in order */
  for (size_t i = 0; i < n; i++) {
    hta_iv x = iv[i];
    if (m == 0 || x.start > maxend) {
      iv[m++] = x; /* IV-1: strictly after every earlier end */
    } else if (x.end > iv[m - 1].end) {
      iv[m - 1].end = x.end;
    }
    if (i == 0 || x.end > maxend) maxend = x.end;
  }
  return m;
}

int64_t hta_iv_length(const hta_iv *iv, size_t n) {
  int64_t s = 0;
  for (size_t i = 0; i < n; i++) s = hta_add_sat(s, hta_sub_sat(iv[i].end, iv[i].start));
  return s;
}

typedef struct iv_event {
  int64_t t;
  int list;  /* which list */
  int delta; /* +1 start, -1 end */
} iv_event;

static int evCmp(const void *a, const void *b) {
  const iv_event *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

int hta_iv_sweep(hta_iv *const *lists, const size_t *counts, int nlists, int64_t *out) {
  size_t ne = 0, k = 0;
  int64_t active[HTA_IV_MAXLISTS] = {0};
  iv_event *ev;
  if (nlists > HTA_IV_MAXLISTS) return SQLITE_MISUSE;
  for (int l = 0; l < nlists; l++) ne += 2 * counts[l];
  if (ne == 0) return SQLITE_OK;
  ev = sqlite3_malloc64(ne * sizeof *ev);
  if (!ev) return SQLITE_NOMEM;
  for (int l = 0; l < nlists; l++) {
    for (size_t i = 0; i < counts[l]; i++) {
      ev[k++] = (iv_event){lists[l][i].start, l, 1};
      ev[k++] = (iv_event){lists[l][i].end, l, -1};
    }
  }
  qsort(ev, ne, sizeof *ev, evCmp);
  for (size_t i = 0; i < ne;) {
    int64_t t = ev[i].t;
    int mask = 0;
    while (i < ne && ev[i].t == t) { /* IV-3: every change at t first */
      active[ev[i].list] += ev[i].delta;
      i++;
    }
    if (i == ne) break;
    for (int l = 0; l < nlists; l++) {
      if (active[l] > 0) mask |= 1 << l;
    }
    out[mask] = hta_add_sat(out[mask], hta_sub_sat(ev[i].t, t));
  }
  sqlite3_free(ev);
  return SQLITE_OK;
}

size_t hta_iv_intersect(const hta_iv *a, size_t na, const hta_iv *b, size_t nb, hta_iv *out) {
  size_t i = 0, j = 0, m = 0;
  while (i < na && j < nb) {
    int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
    int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
    if (s < e) out[m++] = (hta_iv){s, e};
    if (a[i].end < b[j].end) i++; /* the piece that ends first is done */
    else j++;
  }
  return m;
}

size_t hta_iv_subtract(const hta_iv *a, size_t na, const hta_iv *b, size_t nb, hta_iv *out) {
  size_t j = 0, m = 0;
  for (size_t i = 0; i < na; i++) {
    int64_t s = a[i].start;
    while (j < nb && b[j].end <= s) j++;
    for (size_t k = j; k < nb && b[k].start < a[i].end; k++) {
      if (b[k].end <= b[k].start) continue; /* cuts nothing: no split */
      if (b[k].start > s) out[m++] = (hta_iv){s, b[k].start};
      if (b[k].end > s) s = b[k].end;
    }
    if (s < a[i].end) out[m++] = (hta_iv){s, a[i].end};
  }
  return m;
}

int64_t hta_iv_clip_length(const hta_iv *iv, size_t n, int64_t start, int64_t end) {
  size_t lo = 0, hi = n;
  int64_t len = 0;
  while (lo < hi) { /* the first piece ending after START (ends ascend: IV-4) */
    size_t mid = lo + (hi - lo) / 2;
    if (iv[mid].end <= start) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < n && iv[i].start < end; i++) {
    int64_t s = iv[i].start > start ? iv[i].start : start;
    int64_t e = iv[i].end < end ? iv[i].end : end;
    if (s < e) len = hta_add_sat(len, hta_sub_sat(e, s));
  }
  return len;
}

/*
** health_clock.c: the ranks' clock offsets, from the collectives that end together.
**
** An all-reduce, all-gather, reduce-scatter or all-to-all ends on every rank of its
** group at the same moment (no rank leaves before the last one's data arrived), up
** to a few microseconds. A rank whose clock is off by D shows every such end D late.
** collectives/ matches each collective kernel across ranks (an instance per process
** group and position); this file reads those instances.
**
** Requirements (tests cite them as HC-n):
**  1. Nothing is measured when the job has fewer than two distinct ranks.
**  2. An instance counts when its kernels come from at least two ranks, one kernel
**     a rank, all of one type that ends together: by the collectives' metadata
**     (allreduce, allgather, reducescatter, alltoall; no field of the instance
**     differs) or, without it, by every kernel's name (AllReduce, AllGather or
**     ReduceScatter in it: never SendRecv, whose ends need not meet).
**  3. In a counted instance each kernel's offset = its end - the median of the
**     instance's ends (the mean of the middle two for an even count).
**  4. A trace's clock offset = the median of its kernels' offsets (µs), when it has
**     at least HC_MIN_COLLECTIVES of them; with two ranks each gets half the
**     difference, with opposite signs. Also kept: their number, min and max.
*/
#include <stdlib.h>
#include <string.h>

#include "collectives/collectives.h"
#include "health/health.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define HC_MIN_COLLECTIVES 3 /* HC-4: fewer tell nothing reliable */

/* HC-2: 1..3 for the kernels whose name says they end together, 0 else. */
static int hcNameClass(const char *name) {
  static const char *const kinds[] = {"allreduce", "allgather", "reducescatter"};
  char low[256];
  size_t n = 0;
  if (!name) return 0;
  for (const char *p = name; *p && n + 1 < sizeof low; p++)
    if (*p != '_') low[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
  low[n] = 0;
  for (int i = 0; i < 3; i++)
    if (strstr(low, kinds[i])) return i + 1;
  return 0;
}

/* HC-2: the instance's kernels end together. */
static int hcCounts(const coll_inst *in) {
  if (in->n < 2) return 0;
  for (size_t i = 1; i < in->n; i++)
    if (in->k[i]->rank == in->k[i - 1]->rank) return 0; /* by (rank, trace_id): adjacent */
  int type = in->k[0]->type;
  if (type != COLL_T_NONE) {
    if (in->mismatch[0]) return 0;
    return type == COLL_T_ALLREDUCE || type == COLL_T_ALLGATHER || type == COLL_T_REDUCESCATTER ||
           type == COLL_T_ALLTOALL;
  }
  int cls = hcNameClass(in->k[0]->kname);
  for (size_t i = 1; cls && i < in->n; i++)
    if (in->k[i]->type != COLL_T_NONE || hcNameClass(in->k[i]->kname) != cls) return 0;
  return cls != 0;
}

typedef struct hc_off {
  size_t tix; /* index into the caller's traces */
  double us;
} hc_off;

static int hcCmp(const void *a, const void *b) {
  const hc_off *x = a, *y = b;
  if (x->tix != y->tix) return x->tix < y->tix ? -1 : 1;
  return x->us < y->us ? -1 : x->us > y->us;
}

int hl_clock(sqlite3 *db, const hta_scope *sc, int64_t job_ranks, hl_trace *t, size_t n) {
  coll_job j;
  hc_off *off = 0;
  double *ends = 0;
  size_t noff = 0, cap = 0, nends = 0;
  int rc;
  if (job_ranks < 2 || n == 0) return SQLITE_OK; /* HC-1 */
  rc = coll_load(db, sc, 1, &j);
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < j.ninst; i++) nends = j.inst[i].n > nends ? j.inst[i].n : nends;
  ends = sqlite3_malloc64((nends ? nends : 1) * sizeof *ends);
  if (!ends) goto clock_oom;
  for (size_t i = 0; i < j.ninst; i++) {
    const coll_inst *in = &j.inst[i];
    if (!hcCounts(in)) continue;
    for (size_t k = 0; k < in->n; k++) ends[k] = (double)hta_end(in->k[k]->ts, in->k[k]->dur);
    hta_sort_doubles(ends, in->n);
    double med = hta_quantile_sorted(ends, in->n, 0.5); /* HC-3 */
    for (size_t k = 0; k < in->n; k++) {
      const coll_kernel *ck = in->k[k];
      size_t tix = n;
      for (size_t x = 0; x < n; x++)
        if (t[x].trace_id == ck->trace_id) tix = x;
      if (tix == n) continue; /* a trace left out by the caller's rank filter */
      hc_off o = {tix, ((double)hta_end(ck->ts, ck->dur) - med) / 1000.0};
      HTA_PUSH(off, noff, cap, 64, o, clock_oom);
    }
  }
  if (noff) qsort(off, noff, sizeof *off, hcCmp); /* qsort(NULL, 0) is undefined */
  for (size_t a = 0, b; a < noff; a = b) {        /* HC-4: one run of offsets per trace */
    for (b = a; b < noff && off[b].tix == off[a].tix; b++) continue;
    hl_trace *x = &t[off[a].tix];
    if (b - a < HC_MIN_COLLECTIVES) continue;
    double *v = sqlite3_malloc64((b - a) * sizeof *v);
    if (!v) goto clock_oom;
    for (size_t k = a; k < b; k++) v[k - a] = off[k].us;
    x->has_clock = 1;
    x->clock_offset_us = hta_quantile_sorted(v, b - a, 0.5);
    x->clock_collectives = (int64_t)(b - a);
    x->clock_min_us = v[0];
    x->clock_max_us = v[b - a - 1];
    sqlite3_free(v);
  }
  sqlite3_free(off);
  sqlite3_free(ends);
  coll_free(&j);
  return SQLITE_OK;
clock_oom:
  sqlite3_free(off);
  sqlite3_free(ends);
  coll_free(&j);
  return SQLITE_NOMEM;
}

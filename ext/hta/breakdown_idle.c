/*
** breakdown_idle.c: hta_idle_time_breakdown and hta_idle_interval_stats, the two
** outputs of HTA's get_idle_time_breakdown (spec 2.3 with deviations D1, D4 and D5
** of DESIGN.md 5).
**
**   SELECT * FROM hta_idle_time_breakdown;                -- delay 30 us
**   SELECT * FROM hta_idle_time_breakdown(0) WHERE rank = 1;
**   SELECT stream, idle_category, count, p50_us FROM hta_idle_interval_stats;
**
** Parameters (HIDDEN): consecutive_kernel_delay_us (30), include_last_profiler_step (0).
** hta_idle_time_breakdown columns: rank, stream, idle_category, idle_time_us,
**   idle_time_ratio, trace_id.
** hta_idle_interval_stats columns: rank, stream, idle_category, count, mean_us,
**   std_us, min_us, p25_us, p50_us, p75_us, max_us, trace_id.
**
** Requirements (tests cite them as IT-n):
**  1. Kernels = GPU rows whose category is kernel, Kernel, gpu_memset, Memset,
**     gpu_memcpy, Memcpy or mtia_ccp_events (sync rows are not kernels).
**  2. Streams come in the order of their first kernel in the file; per trace, in
**     (rank, trace_id) order.
**  3. Per stream, kernels by ts (equal ts: file order, a stable documented choice;
**     HTA's order there is its sort's accident). For every kernel after the first:
**     prev_end = the previous kernel's ts + dur (not the running maximum);
**     gap = ts - prev_end (negative when they overlap).
**  4. Category: host_wait when the kernel's launch (its linked host row) started
**     after prev_end; else kernel_wait when gap < consecutive_kernel_delay_us;
**     else other. A kernel without a launch link is never host_wait (D4). The
**     first kernel of a stream is "other" with no gap.
**  5. A category appears when at least one kernel fell into it, in the order
**     host_wait, kernel_wait, other. idle_time = the sum of its gaps;
**     idle_time_ratio = idle_time / the stream's total (NULL for 0/0).
**  6. The interval statistics describe() the gaps of each category present
**     (count excludes the first kernel, so a stream's "other" can have count 0 and
**     NULL statistics); std is the sample std, NULL below two values.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define IT_SCHEMA                                                                       \
  "CREATE TABLE x(rank INTEGER, stream INTEGER, idle_category TEXT, idle_time_us REAL," \
  " idle_time_ratio REAL, trace_id INTEGER, consecutive_kernel_delay_us HIDDEN,"        \
  " include_last_profiler_step HIDDEN)"
#define IT_RANK 0
#define IT_STREAM 1
#define IT_CATEGORY 2
#define IT_IDLE 3
#define IT_RATIO 4
#define IT_TRACE_ID 5
#define IT_NVISIBLE 6

#define IS_SCHEMA                                                                   \
  "CREATE TABLE x(rank INTEGER, stream INTEGER, idle_category TEXT, count INTEGER," \
  " mean_us REAL, std_us REAL, min_us REAL, p25_us REAL, p50_us REAL, p75_us REAL," \
  " max_us REAL, trace_id INTEGER, consecutive_kernel_delay_us HIDDEN,"             \
  " include_last_profiler_step HIDDEN)"
#define IS_RANK 0
#define IS_STREAM 1
#define IS_CATEGORY 2
#define IS_COUNT 3
#define IS_MEAN 4
#define IS_STD 5
#define IS_MIN 6
#define IS_P25 7
#define IS_P50 8
#define IS_P75 9
#define IS_MAX 10
#define IS_TRACE_ID 11
#define IS_NVISIBLE 12

/* Parameter indexes, shared by both functions. */
#define IT_P_DELAY 0
#define IT_P_LAST 1

static const hta_param itParams[] = {
    {"consecutive_kernel_delay_us", 1, 30.0, 0.0, 1e300, "a non-negative number"},
    HTA_PARAM_LAST_STEP,
};

enum { IT_HOST_WAIT, IT_KERNEL_WAIT, IT_OTHER, IT_NCAT };
static const char *const itCategory[IT_NCAT] = {"host_wait", "kernel_wait", "other"};

typedef struct it_ctx {
  hta_table *out;
  double delay_ns;
  int stats; /* 0: hta_idle_time_breakdown; 1: hta_idle_interval_stats */
} it_ctx;

typedef struct it_key { /* a kernel, for the sort */
  int32_t order;        /* its stream's rank of first appearance */
  int64_t ts;
  size_t row; /* index in hta_gpu_rows (file order) */
} it_key;

static int itKeyCmp(const void *a, const void *b) {
  const it_key *x = a, *y = b;
  if (x->order != y->order) return x->order < y->order ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row; /* IT-3 */
}

typedef struct it_first { /* a stream and the row of its first kernel */
  int64_t stream;
  size_t row;
} it_first;

static int itFirstCmp(const void *a, const void *b) {
  const it_first *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

static int itRowCmp(const void *a, const void *b) {
  const it_first *x = a, *y = b;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Emits the rows of one stream: kernels K[0..n) of G in stream order. */
static int itStream(it_ctx *k, const hta_trace *t, const hta_gpu_rows *g, const it_key *K, size_t n,
                    double *gaps /* scratch, n entries */) {
  int present[IT_NCAT] = {0, 0, 0};
  int64_t sum[IT_NCAT] = {0, 0, 0};
  int *cat = sqlite3_malloc64(n * sizeof *cat);
  int64_t total = 0;
  int64_t stream = g->a[K[0].row].stream;
  if (!cat) return SQLITE_NOMEM;

  present[IT_OTHER] = 1; /* IT-4: the first kernel */
  cat[0] = -1;
  for (size_t i = 1; i < n; i++) {
    const hta_gpu *prev = &g->a[K[i - 1].row], *cur = &g->a[K[i].row];
    int64_t prev_end = hta_end(prev->ts, prev->dur); /* IT-3 */
    int64_t gap = hta_sub_sat(cur->ts, prev_end);
    int c = IT_OTHER;
    if (cur->link_id && cur->launch_ts != INT64_MIN && cur->launch_ts > prev_end) c = IT_HOST_WAIT;
    else if ((double)gap < k->delay_ns) c = IT_KERNEL_WAIT;
    cat[i] = c;
    present[c] = 1;
    sum[c] = hta_add_sat(sum[c], gap);
    total = hta_add_sat(total, gap);
    gaps[i] = gap / 1000.0;
  }
  for (int c = 0; c < IT_NCAT; c++) {
    hta_cell *row;
    if (!present[c]) continue;
    row = hta_table_add_row(k->out);
    if (!row) {
      sqlite3_free(cat);
      return SQLITE_NOMEM;
    }
    hta_cell_int(&row[IT_RANK], t->rank); /* same index in both schemas */
    hta_cell_int(&row[IT_STREAM], stream);
    hta_cell_static(&row[IT_CATEGORY], itCategory[c]);
    if (!k->stats) {
      hta_cell_double(&row[IT_IDLE], sum[c] / 1000.0);
      if (!(sum[c] == 0 && total == 0)) { /* IT-5: 0/0 is NULL */
        hta_cell_double(&row[IT_RATIO], (double)sum[c] / (double)total);
      }
      hta_cell_int(&row[IT_TRACE_ID], t->trace_id);
    } else {
      /* Gather this category's gaps at the front of a scratch copy. */
      hta_describe d;
      double *v = gaps + n; /* second half of the scratch */
      size_t m = 0;
      for (size_t i = 1; i < n; i++) {
        if (cat[i] == c) v[m++] = gaps[i];
      }
      hta_describe_doubles(v, m, &d);        /* IT-6 */
      hta_cells_describe(row, IS_COUNT, &d); /* IS_COUNT .. IS_MAX */
      hta_cell_int(&row[IS_TRACE_ID], t->trace_id);
    }
  }
  sqlite3_free(cat);
  return SQLITE_OK;
}

static int itTrace(void *pctx, const hta_trace *t, const hta_gpu_rows *g) {
  it_ctx *k = pctx;
  it_key *K = 0;
  it_first *F = 0;
  double *scratch = 0;
  size_t n = 0, nf = 0;
  int rc = SQLITE_NOMEM;

  K = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *K);
  F = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *F);
  scratch = sqlite3_malloc64((g->n ? 2 * g->n : 1) * sizeof *scratch);
  if (!K || !F || !scratch) goto it_done;
  for (size_t i = 0; i < g->n; i++) { /* IT-1 */
    if (!g->a[i].is_kernel_cat) continue;
    F[n] = (it_first){g->a[i].stream, i};
    K[n++] = (it_key){0, g->a[i].ts, i};
  }
  /* IT-2: each stream's first kernel, then the streams in the order of those. */
  qsort(F, n, sizeof *F, itFirstCmp);
  for (size_t i = 0; i < n; i++) {
    if (nf == 0 || F[nf - 1].stream != F[i].stream) F[nf++] = F[i];
  }
  qsort(F, nf, sizeof *F, itRowCmp);
  {
    /* order of a kernel's stream: look it up by stream in a by-stream copy */
    it_first *S = sqlite3_malloc64((nf ? nf : 1) * sizeof *S);
    if (!S) goto it_done;
    for (size_t i = 0; i < nf; i++) S[i] = (it_first){F[i].stream, i};
    qsort(S, nf, sizeof *S, itFirstCmp);
    for (size_t i = 0; i < n; i++) {
      int64_t s = g->a[K[i].row].stream;
      size_t lo = 0, hi = nf;
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (S[mid].stream < s) lo = mid + 1;
        else hi = mid;
      }
      K[i].order = (int32_t)S[lo].row;
    }
    sqlite3_free(S);
  }
  qsort(K, n, sizeof *K, itKeyCmp);
  rc = SQLITE_OK;
  for (size_t i = 0; i < n && rc == SQLITE_OK;) {
    size_t j = i;
    while (j < n && K[j].order == K[i].order) j++;
    rc = itStream(k, t, g, K + i, j - i, scratch + 2 * i);
    i = j;
  }

it_done:
  sqlite3_free(K);
  sqlite3_free(F);
  sqlite3_free(scratch);
  return rc;
}

static int itRunEither(sqlite3 *db, const hta_tvf_args *a, hta_table *out, int stats) {
  it_ctx k;
  k.out = out;
  k.delay_ns = a->p[IT_P_DELAY] * 1000.0;
  k.stats = stats;
  return hta_gpu_foreach(db, &a->scope, a->has_rank, a->rank, (int)a->p[IT_P_LAST], itTrace, &k);
}

static int itRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return itRunEither(db, a, out, 0);
}

static int isRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return itRunEither(db, a, out, 1);
}

const hta_tvf hta_idle_time_breakdown_tvf = {
    "hta_idle_time_breakdown", IT_SCHEMA, IT_NVISIBLE, IT_RANK, 2, itParams, itRun,
};

const hta_tvf hta_idle_interval_stats_tvf = {
    "hta_idle_interval_stats", IS_SCHEMA, IS_NVISIBLE, IS_RANK, 2, itParams, isRun,
};

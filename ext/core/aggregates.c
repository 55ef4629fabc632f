/*
** aggregates.c: aggregate SQL functions of hta.so.
**
**   SELECT hta_union_length(ts, ts + dur) FROM kernels WHERE rank = 0;  -- busy ns
**   SELECT hta_quantile(dur, 0.25) FROM kernels;   -- pandas' Series.quantile(0.25)
**   SELECT hta_median(dur) FROM kernels GROUP BY name;
**
** Requirements (tests cite them as AG-n):
**  1. Rows where any argument is NULL are ignored; no remaining row gives NULL.
**  2. hta_union_length(start, end) is the length of the union of [start, end)
**     with HTA's merge (interval.c IV-1, IV-2): touching intervals merge. It is an
**     INTEGER when every start and end is an integer, else a REAL.
**  3. hta_quantile(x, q): numpy's linear quantile as pandas computes it
**     (stats.c ST-1). q must be a number in [0, 1] and the same on every row.
**     hta_median(x) = hta_quantile(x, 0.5).
**  4. A value that is not a number (text that does not look like one, a blob) is
**     an error naming the function and the argument.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- hta_union_length */

typedef struct ag_union {
  hta_iv *iv; /* integer intervals, while every value is an integer */
  double *dv; /* start,end pairs once a REAL was seen */
  size_t n, cap;
  int is_real;
  int error;
} ag_union;

static int agNumber(sqlite3_value *v) {
  int t = sqlite3_value_numeric_type(v);
  return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

/* Switches P to doubles: converts the integer intervals seen so far. */
static int agUnionToReal(ag_union *p) {
  double *dv = sqlite3_malloc64((p->cap ? p->cap : 16) * 2 * sizeof *dv);
  if (!dv) return SQLITE_NOMEM;
  for (size_t i = 0; i < p->n; i++) {
    dv[2 * i] = (double)p->iv[i].start;
    dv[2 * i + 1] = (double)p->iv[i].end;
  }
  sqlite3_free(p->iv);
  p->iv = 0;
  p->dv = dv;
  if (!p->cap) p->cap = 16;
  p->is_real = 1;
  return SQLITE_OK;
}

static void agUnionStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ag_union *p = sqlite3_aggregate_context(ctx, sizeof *p);
  (void)argc;
  if (!p) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->error) return;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  if (!agNumber(argv[0]) || !agNumber(argv[1])) {
    p->error = 1;
    sqlite3_result_error(ctx, "hta_union_length(): start and end must be numbers", -1);
    return;
  }
  if (!p->is_real && (sqlite3_value_numeric_type(argv[0]) == SQLITE_FLOAT ||
                      sqlite3_value_numeric_type(argv[1]) == SQLITE_FLOAT)) {
    if (agUnionToReal(p) != SQLITE_OK) goto union_oom;
  }
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 16;
    if (p->is_real) {
      double *dv = sqlite3_realloc64(p->dv, cap * 2 * sizeof *dv);
      if (!dv) goto union_oom;
      p->dv = dv;
    } else {
      hta_iv *iv = sqlite3_realloc64(p->iv, cap * sizeof *iv);
      if (!iv) goto union_oom;
      p->iv = iv;
    }
    p->cap = cap;
  }
  if (p->is_real) {
    p->dv[2 * p->n] = sqlite3_value_double(argv[0]);
    p->dv[2 * p->n + 1] = sqlite3_value_double(argv[1]);
  } else {
    p->iv[p->n].start = sqlite3_value_int64(argv[0]);
    p->iv[p->n].end = sqlite3_value_int64(argv[1]);
  }
  p->n++;
  return;
union_oom:
  p->error = 1;
  sqlite3_result_error_nomem(ctx);
}

static int agPairCmp(const void *a, const void *b) {
  const double *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* HTA's merge over double pairs (the same rules as hta_iv_merge). */
static double agUnionReal(double *dv, size_t n) {
  double total = 0, gs = 0, ge = 0, maxend = 0;
  qsort(dv, n, 2 * sizeof *dv, agPairCmp);
  for (size_t i = 0; i < n; i++) {
    double s = dv[2 * i], e = dv[2 * i + 1];
    if (i == 0 || s > maxend) {
      if (i) total += ge - gs;
      gs = s;
      ge = e;
    } else if (e > ge) {
      ge = e;
    }
    if (i == 0 || e > maxend) maxend = e;
  }
  return total + (ge - gs);
}

static void agUnionFinal(sqlite3_context *ctx) {
  ag_union *p = sqlite3_aggregate_context(ctx, 0);
  if (!p) return; /* no rows */
  if (!p->error && p->n > 0) {
    if (p->is_real) {
      sqlite3_result_double(ctx, agUnionReal(p->dv, p->n));
    } else {
      size_t m = hta_iv_merge(p->iv, p->n);
      sqlite3_result_int64(ctx, hta_iv_length(p->iv, m));
    }
  }
  sqlite3_free(p->iv);
  sqlite3_free(p->dv);
  memset(p, 0, sizeof *p);
}

/* ---------------------------------------------------------------- hta_quantile */

typedef struct ag_quantile {
  double *v;
  size_t n, cap;
  double q;
  int has_q;
  int error;
} ag_quantile;

/* Fails the aggregate: "<NTH> argument to <FN>() must be <WHAT>" (AG-3, AG-4). */
static void agQuantileFail(sqlite3_context *ctx, ag_quantile *p, const char *nth, const char *fn,
                           const char *what) {
  char *m = sqlite3_mprintf("%s argument to %s() must be %s", nth, fn, what);
  p->error = 1;
  if (m) sqlite3_result_error(ctx, m, -1);
  else sqlite3_result_error_nomem(ctx);
  sqlite3_free(m);
}

/* Shared step of hta_quantile (QV = its 2nd argument) and hta_median (QV = NULL: 0.5). */
static void agQuantileAdd(sqlite3_context *ctx, const char *fn, sqlite3_value *x,
                          sqlite3_value *qv) {
  ag_quantile *p = sqlite3_aggregate_context(ctx, sizeof *p);
  double q = 0.5;
  if (!p) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (p->error) return;
  if (qv) {
    int t = sqlite3_value_numeric_type(qv);
    q = sqlite3_value_double(qv);
    if ((t != SQLITE_INTEGER && t != SQLITE_FLOAT) || !(q >= 0.0 && q <= 1.0)) {
      agQuantileFail(ctx, p, "2nd", fn, "a number between 0.0 and 1.0");
      return;
    }
  }
  if (p->has_q && q != p->q) {
    agQuantileFail(ctx, p, "2nd", fn, "the same for all rows");
    return;
  }
  p->q = q;
  p->has_q = 1;
  if (sqlite3_value_type(x) == SQLITE_NULL) return;
  if (!agNumber(x)) {
    agQuantileFail(ctx, p, "1st", fn, "a number");
    return;
  }
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    double *v = sqlite3_realloc64(p->v, cap * sizeof *v);
    if (!v) {
      p->error = 1;
      sqlite3_result_error_nomem(ctx);
      return;
    }
    p->v = v;
    p->cap = cap;
  }
  double d = sqlite3_value_double(x);
  if (!isnan(d)) p->v[p->n++] = d;
}

static void agQuantileStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  agQuantileAdd(ctx, "hta_quantile", argv[0], argv[1]);
}

static void agMedianStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  agQuantileAdd(ctx, "hta_median", argv[0], 0);
}

static void agQuantileFinal(sqlite3_context *ctx) {
  ag_quantile *p = sqlite3_aggregate_context(ctx, 0);
  if (!p) return;
  if (!p->error && p->n > 0) {
    hta_sort_doubles(p->v, p->n);
    sqlite3_result_double(ctx, hta_quantile_sorted(p->v, p->n, p->q));
  }
  sqlite3_free(p->v);
  memset(p, 0, sizeof *p);
}

/* ---------------------------------------------------------------- registration */

#define AG_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

int hta_register_aggregates(sqlite3 *db) {
  static const struct {
    const char *name;
    int nArg;
    void (*step)(sqlite3_context *, int, sqlite3_value **);
    void (*final)(sqlite3_context *);
  } fns[] = {
      {"hta_union_length", 2, agUnionStep, agUnionFinal},
      {"hta_quantile", 2, agQuantileStep, agQuantileFinal},
      {"hta_median", 1, agMedianStep, agQuantileFinal},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    int rc = sqlite3_create_function_v2(db, fns[i].name, fns[i].nArg, AG_FLAGS, 0, 0, fns[i].step,
                                        fns[i].final, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

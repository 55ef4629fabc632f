/*
** gpu.c: one trace's GPU work rows, classified, after the last-ProfilerStep cut.
**
**   hta_gpu_rows g;
**   rc = hta_gpu_load(db, &traces.a[i], classifier, &g);
**   for (size_t k = 0; k < g.n; k++) ... g.a[k].ts, g.a[k].kernel_type,
**                                        hta_gpu_name(&g, g.a[k].name_id) ...
**   hta_gpu_free(&g);
**
** Requirements (tests cite them as GPU-n):
**  1. GPU work = rows with event.stream NOT NULL and a dur (D5); that is what
**     HTA's `stream != -1` becomes.
**  2. With the cut (hta_trace.has_cut): a row with a correlation id stays when its
**     linked host row (link_id) starts before cut_ts, and is dropped when it has
**     no link; a row without a correlation id is a host-like row for HTA and stays
**     when its own ts < cut_ts (spec 1.13).
**  3. launch_ts/launch_dur/launch_name_id/launch_tid are the linked row's
**     ts/dur/name_id/tid (hta_tid_key); INT64_MIN/0/-1/INT64_MIN without a link (D4:
**     never event 0).
**  4. Rows come in file order (event_id). Each distinct name is classified once.
**  5. hta_gpu_load_bare, of a trace without the cut, leaves the launch fields unset
**     (INT64_MIN/0/-1/INT64_MIN) and link_id as recorded: it may name no row.
**
** HOW IT WORKS: one query over the partial covering index event_gpu, joined to
** the linked row by its rowid, then a sort by event_id in C (the index returns
** the rows in (stream, ts) order). Names and categories are fetched once per id.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static int gpuCmpId(const void *a, const void *b) {
  const hta_gpu *x = a, *y = b;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

static int32_t fieldOf(const hta_gpu *g, size_t offset) {
  int32_t v;
  memcpy(&v, (const char *)g + offset, sizeof v);
  return v;
}

/* The sorted distinct values (*pids, *pn) of the int32 field at OFFSET of the
** rows, and in SLOTS[i] the index of row i's value among them. Ids are small
** dense integers (string ids), so a direct table usually replaces the sort. */
static int distinctIds(const hta_gpu *a, size_t n, size_t offset, int32_t **pids, size_t *pn,
                       int32_t *slots) {
  int32_t lo = 0, hi = 0, *ids;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t v = fieldOf(&a[i], offset);
    if (i == 0 || v < lo) lo = v;
    if (i == 0 || v > hi) hi = v;
  }
  ids = sqlite3_malloc64((n ? n : 1) * sizeof *ids);
  if (!ids) return SQLITE_NOMEM;
  if (n && (uint64_t)((int64_t)hi - lo) <= 4 * (uint64_t)n + 65536) {
    size_t span = (size_t)((int64_t)hi - lo) + 1;
    int32_t *tab = sqlite3_malloc64(span * sizeof *tab);
    if (!tab) {
      sqlite3_free(ids);
      return SQLITE_NOMEM;
    }
    memset(tab, 0xff, span * sizeof *tab); /* -1: absent */
    for (size_t i = 0; i < n; i++) tab[fieldOf(&a[i], offset) - lo] = 0;
    for (size_t k = 0; k < span; k++) {
      if (tab[k] < 0) continue;
      tab[k] = (int32_t)m;
      ids[m++] = (int32_t)(lo + (int64_t)k);
    }
    for (size_t i = 0; i < n; i++) slots[i] = tab[fieldOf(&a[i], offset) - lo];
    sqlite3_free(tab);
  } else {
    for (size_t i = 0; i < n; i++) ids[i] = fieldOf(&a[i], offset);
    qsort(ids, n, sizeof *ids, hta_i32_cmp);
    for (size_t i = 0; i < n; i++) {
      if (m == 0 || ids[m - 1] != ids[i]) ids[m++] = ids[i];
    }
    for (size_t i = 0; i < n; i++) slots[i] = (int32_t)hta_i32_find(ids, m, fieldOf(&a[i], offset));
  }
  *pids = ids;
  *pn = m;
  return SQLITE_OK;
}

/* Fetches the string of every id ("" for unknown ids) with SQL (?1 = id). */
static int fetchStrings(sqlite3 *db, const char *schema, const char *sql, const int32_t *ids,
                        size_t n, char **out) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema, sql, &st);
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < n; i++) {
    const char *s = 0;
    sqlite3_bind_int64(st, 1, ids[i]);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) s = (const char *)sqlite3_column_text(st, 0);
    else if (rc != SQLITE_DONE) break;
    out[i] = sqlite3_mprintf("%s", s ? s : "");
    if (!out[i]) {
      rc = SQLITE_NOMEM;
      break;
    }
    rc = SQLITE_OK;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

int hta_is_kernel_category(const char *c) {
  static const char *const cats[] = {"kernel",     "Kernel", "gpu_memset",     "Memset",
                                     "gpu_memcpy", "Memcpy", "mtia_ccp_events"};
  for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
    if (strcmp(c, cats[i]) == 0) return 1;
  }
  return 0;
}

/* GPU-5: without the cut, a caller that needs no launch fields reads the covering
** index alone (the join costs a b-tree search per row). */
static int gpuLoad(sqlite3 *db, const hta_trace *t, const hta_classifier *c, int launches,
                   hta_gpu_rows *out) {
  sqlite3_stmt *st = 0;
  size_t cap = 0, ncat = 0;
  int32_t *cat_ids = 0, *slots = 0;
  char **cat_names = 0;
  int rc, sorted = 1;
  memset(out, 0, sizeof *out);

  { /* room for every row at once (a count from the index): the array is not copied */
    int64_t n = 0;
    int isnull = 1;
    rc = hta_query_int64(db, t->schema,
                         "SELECT count(*) FROM $S.event WHERE trace_id = ?1 AND stream IS NOT NULL",
                         1, &t->trace_id, &n, &isnull);
    if (rc != SQLITE_OK) goto gpu_error;
    if (n > 1024 && n < ((int64_t)1 << 28) && (out->a = hta_malloc_big((size_t)n * sizeof *out->a)))
      cap = (size_t)n;
  }
  rc = hta_prepare(db, t->schema,
                   launches || t->has_cut
                       ? "SELECT e.event_id, e.ts, e.dur, e.stream, e.name_id, e.category_id,"
                         " e.link_id, h.ts, h.dur, e.correlation, h.name_id, e.seq, h.tid"
                         " FROM $S.event e LEFT JOIN $S.event h ON h.event_id = e.link_id"
                         " WHERE e.trace_id = ?1 AND e.stream IS NOT NULL AND e.dur IS NOT NULL"
                       : "SELECT e.event_id, e.ts, e.dur, e.stream, e.name_id, e.category_id,"
                         " e.link_id, NULL, NULL, e.correlation, NULL, e.seq, NULL"
                         " FROM $S.event e"
                         " WHERE e.trace_id = ?1 AND e.stream IS NOT NULL AND e.dur IS NOT NULL",
                   &st);
  if (rc != SQLITE_OK) goto gpu_error;
  sqlite3_bind_int64(st, 1, t->trace_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    hta_gpu g;
    memset(&g, 0, sizeof g);
    g.event_id = sqlite3_column_int64(st, 0);
    g.seq = sqlite3_column_int64(st, 11);
    g.ts = sqlite3_column_int64(st, 1);
    g.dur = sqlite3_column_int64(st, 2);
    g.stream = sqlite3_column_int64(st, 3);
    g.name_id =
        sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 4);
    g.cat_id =
        sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 5);
    g.link_id = sqlite3_column_int64(st, 6); /* 0 when NULL */
    if (!launches && !t->has_cut) {          /* GPU-5: the link as recorded */
      g.launch_ts = INT64_MIN;
      g.launch_name_id = -1;
      g.launch_tid = INT64_MIN;
    } else if (g.link_id && sqlite3_column_type(st, 7) != SQLITE_NULL) {
      g.launch_ts = sqlite3_column_int64(st, 7);
      g.launch_dur = sqlite3_column_int64(st, 8);
      g.launch_name_id =
          sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 10);
      g.launch_tid = hta_tid_key(sqlite3_column_value(st, 12));
    } else {
      g.link_id = 0; /* a dangling link is no link (GPU-3) */
      g.launch_ts = INT64_MIN;
      g.launch_name_id = -1;
      g.launch_tid = INT64_MIN;
    }
    g.correlation = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
    if (g.correlation < 0) g.correlation = -1;
    if (t->has_cut) { /* GPU-2 */
      int keep = g.correlation < 0 ? g.ts < t->cut_ts : (g.link_id != 0 && g.launch_ts < t->cut_ts);
      if (!keep) continue;
    }
    if (out->n == cap) {
      size_t ncap = cap ? 2 * cap : 1024;
      hta_gpu *a = hta_realloc_big(out->a, ncap * sizeof *a);
      if (!a) {
        rc = SQLITE_NOMEM;
        goto gpu_error;
      }
      out->a = a;
      cap = ncap;
    }
    if (out->n && out->a[out->n - 1].event_id > g.event_id) sorted = 0;
    out->a[out->n++] = g;
  }
  if (rc != SQLITE_DONE) goto gpu_error;
  sqlite3_finalize(st);
  st = 0;
  if (!sorted) qsort(out->a, out->n, sizeof *out->a, gpuCmpId); /* GPU-4 */

  /* Names: fetch and classify each distinct one once. */
  slots = sqlite3_malloc64((out->n ? out->n : 1) * sizeof *slots);
  if (!slots) {
    rc = SQLITE_NOMEM;
    goto gpu_error;
  }
  rc = distinctIds(out->a, out->n, offsetof(hta_gpu, name_id), &out->name_ids, &out->nnames, slots);
  if (rc != SQLITE_OK) goto gpu_error;
  for (size_t i = 0; i < out->n; i++) out->a[i].name_slot = slots[i];
  out->names = sqlite3_malloc64((out->nnames ? out->nnames : 1) * sizeof *out->names);
  if (!out->names) {
    rc = SQLITE_NOMEM;
    goto gpu_error;
  }
  memset(out->names, 0, (out->nnames ? out->nnames : 1) * sizeof *out->names);
  rc = fetchStrings(db, t->schema, HTA_SQL_NAME_OF_ID, out->name_ids, out->nnames, out->names);
  if (rc != SQLITE_OK) goto gpu_error;

  /* Categories: a handful of ids. */
  rc = distinctIds(out->a, out->n, offsetof(hta_gpu, cat_id), &cat_ids, &ncat, slots);
  if (rc != SQLITE_OK) goto gpu_error;
  cat_names = sqlite3_malloc64((ncat ? ncat : 1) * sizeof *cat_names);
  if (!cat_names) {
    rc = SQLITE_NOMEM;
    goto gpu_error;
  }
  memset(cat_names, 0, (ncat ? ncat : 1) * sizeof *cat_names);
  rc = fetchStrings(db, t->schema, "SELECT name FROM $S.category WHERE category_id = ?1", cat_ids,
                    ncat, cat_names);
  if (rc != SQLITE_OK) goto gpu_error;

  {
    int *kt = sqlite3_malloc64((out->nnames ? out->nnames : 1) * sizeof *kt);
    int *kc = sqlite3_malloc64((ncat ? ncat : 1) * sizeof *kc);
    if (!kt || !kc) {
      sqlite3_free(kt);
      sqlite3_free(kc);
      rc = SQLITE_NOMEM;
      goto gpu_error;
    }
    for (size_t i = 0; i < out->nnames; i++) kt[i] = hta_classify(c, out->names[i]);
    for (size_t i = 0; i < ncat; i++) kc[i] = hta_is_kernel_category(cat_names[i]);
    for (size_t i = 0; i < out->n; i++) { /* slots[] now holds category slots */
      out->a[i].kernel_type = kt[out->a[i].name_slot];
      out->a[i].is_kernel_cat = kc[slots[i]];
    }
    sqlite3_free(kt);
    sqlite3_free(kc);
  }
  for (size_t i = 0; i < ncat; i++) sqlite3_free(cat_names[i]);
  sqlite3_free(cat_names);
  sqlite3_free(cat_ids);
  sqlite3_free(slots);
  return SQLITE_OK;

gpu_error:
  sqlite3_finalize(st);
  if (cat_names) {
    for (size_t i = 0; i < ncat; i++) sqlite3_free(cat_names[i]);
  }
  sqlite3_free(cat_names);
  sqlite3_free(cat_ids);
  sqlite3_free(slots);
  hta_gpu_free(out);
  return rc;
}

int hta_gpu_load(sqlite3 *db, const hta_trace *t, const hta_classifier *c, hta_gpu_rows *out) {
  return gpuLoad(db, t, c, 1, out);
}

int hta_gpu_load_bare(sqlite3 *db, const hta_trace *t, const hta_classifier *c, hta_gpu_rows *out) {
  return gpuLoad(db, t, c, 0, out);
}

const char *hta_gpu_name(const hta_gpu_rows *g, int32_t name_id) {
  long s = hta_i32_find(g->name_ids, g->nnames, name_id);
  return s < 0 ? 0 : g->names[s];
}

void hta_gpu_free(hta_gpu_rows *g) {
  if (g->names) {
    for (size_t i = 0; i < g->nnames; i++) sqlite3_free(g->names[i]);
  }
  sqlite3_free(g->names);
  sqlite3_free(g->name_ids);
  sqlite3_free(g->a);
  memset(g, 0, sizeof *g);
}

int hta_gpu_foreach(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank,
                    int include_last_step,
                    int (*fn)(void *ctx, const hta_trace *t, const hta_gpu_rows *g), void *ctx) {
  hta_traces tr;
  hta_classifier *c = 0;
  int rc = hta_traces_load(db, sc, has_rank, rank, include_last_step, &tr);
  if (rc != SQLITE_OK) return rc;
  rc = hta_classifier_open(db, sc->schema, &c);
  for (int i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    hta_gpu_rows g;
    rc = hta_gpu_load(db, &tr.a[i], c, &g);
    if (rc != SQLITE_OK) break;
    rc = fn(ctx, &tr.a[i], &g);
    hta_gpu_free(&g);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_classifier_free(c);
  hta_traces_free(&tr);
  return rc;
}

size_t hta_gpu_merged(const hta_gpu_rows *g, int types, hta_iv *out) {
  size_t n = 0;
  for (size_t i = 0; i < g->n; i++) {
    if (g->a[i].kernel_type & types)
      out[n++] = (hta_iv){g->a[i].ts, hta_end(g->a[i].ts, g->a[i].dur)};
  }
  return hta_iv_merge(out, n);
}

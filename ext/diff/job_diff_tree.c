/*
** job_diff_tree.c: one run's side of the structural diff (job_diff.c JD-2): the
** call tree TraceLens builds (perf/op_perf_tree.c, loaded tree-only), with each GPU
** event as a leaf under the runtime call that launched it, the names TraceDiff
** compares, and TraceDiff's roots.
**
** HOW IT WORKS: the host events keep op_perf_tree.c's order (thread, ts, seq), in
** which a node's subtree is the range of positions up to its sub_end; the GPU rows
** linked to the in-tree runtime calls of that range, laid out in position order, are
** one contiguous slice (gfirst, ngpu), so a node's GPU events, their count and the
** GPU path need no walk. Children lists follow TraceLens's order: host children by
** (ts, seq), then the GPU events a runtime call launched, in file order.
*/
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The kind of each GPU category id of the schema (JD-2): a sorted (id, kind) list. */
typedef struct jd_cat {
  int64_t id;
  int kind;
} jd_cat;

static int jdCatKinds(sqlite3 *db, const char *schema, jd_cat **pv, size_t *pn) {
  sqlite3_stmt *st = 0;
  size_t a = 0;
  int rc = hta_prepare(db, schema, "SELECT category_id, name FROM $S.category ORDER BY 1", &st);
  *pv = 0, *pn = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(st, 1);
    jd_cat x = {sqlite3_column_int64(st, 0), JD_K_GPU};
    rc = SQLITE_OK;
    if (!c) continue;
    if (!strcmp(c, "kernel") || !strcmp(c, "Kernel")) x.kind = JD_K_KERNEL;
    else if (!strcmp(c, "gpu_memcpy") || !strcmp(c, "Memcpy")) x.kind = JD_K_MEMCPY;
    else if (!strcmp(c, "gpu_memset") || !strcmp(c, "Memset")) x.kind = JD_K_MEMSET;
    HTA_PUSH(*pv, *pn, a, 16, x, cat_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
cat_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

static int jdKindOfCat(const jd_cat *v, size_t n, int64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo].id == id ? v[lo].kind : JD_K_GPU;
}

/* Names: the raw text of every node (its comparison ids: jd_side_names). */
static int jdRawNames(sqlite3 *db, const char *schema, jd_side *s) {
  s->raw = sqlite3_malloc64(s->n * sizeof *s->raw);
  if (!s->raw) return SQLITE_NOMEM;
  for (size_t u = 0; u < s->n; u++)
    s->raw[u] = u < s->nhost ? s->ot.nodes[u].name_id : s->ot.gpu.a[u - s->nhost].name_id;
  return hta_name_slots(db, schema, s->raw, s->n, &s->rawnames, &s->nraw);
}

int jd_side_names(jd_side *s, jd_intern *names) {
  int32_t *norm = sqlite3_malloc64((s->nraw + 1) * sizeof *norm);
  int32_t *snorm = sqlite3_malloc64((s->nraw + 1) * sizeof *snorm);
  int rc = norm && snorm ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t k = 0; rc == SQLITE_OK && k <= s->nraw; k++) { /* JD-3 */
    const char *raw = k < s->nraw && s->rawnames[k] ? s->rawnames[k] : "";
    for (int strip = 0; strip < 2 && rc == SQLITE_OK; strip++) {
      char *z = 0;
      rc = jd_normalize(raw, strip, &z);
      if (rc == SQLITE_OK) {
        int32_t id = jd_intern_id(names, z, strlen(z));
        if (id < 0) rc = SQLITE_NOMEM;
        (strip ? snorm : norm)[k] = id;
      }
      sqlite3_free(z);
    }
  }
  if (rc == SQLITE_OK) {
    s->name = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *s->name);
    s->sname = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *s->sname);
    if (!s->name || !s->sname) rc = SQLITE_NOMEM;
  }
  for (size_t u = 0; rc == SQLITE_OK && u < s->n; u++) {
    size_t k = s->raw[u] >= 0 ? (size_t)s->raw[u] : s->nraw; /* no name: "" */
    s->name[u] = norm[k];
    s->sname[u] = snorm[k];
  }
  sqlite3_free(norm);
  sqlite3_free(snorm);
  return rc;
}

/* Kinds, parents and children lists (JD-2). */
static int jdShape(sqlite3 *db, const char *schema, jd_side *s) {
  jd_cat *cats = 0;
  size_t ncat = 0;
  int32_t *fill = 0;
  int rc = jdCatKinds(db, schema, &cats, &ncat);
  if (rc != SQLITE_OK) return rc;
  s->kind = sqlite3_malloc64(s->n);
  s->parent = sqlite3_malloc64(s->n * sizeof *s->parent);
  s->coff = sqlite3_malloc64((s->n + 1) * sizeof *s->coff);
  s->cidx = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *s->cidx);
  fill = sqlite3_malloc64((s->n + 1) * sizeof *fill);
  if (!s->kind || !s->parent || !s->coff || !s->cidx || !fill) {
    rc = SQLITE_NOMEM;
    goto shape_end;
  }
  for (size_t u = 0; u < s->n; u++) {
    if (u < s->nhost) {
      const opt_node *e = &s->ot.nodes[u];
      const char *nm = jd_raw_name(s, (int32_t)u);
      s->kind[u] = !e->is_runtime                                                    ? JD_K_CPU
                   : !strcmp(nm, "cudaGraphLaunch") || !strcmp(nm, "hipGraphLaunch") ? JD_K_GRAPH
                                                                                     : JD_K_RT;
      s->parent[u] = e->in_tree ? e->parent : -1;
    } else {
      const hta_gpu *g = &s->ot.gpu.a[u - s->nhost];
      s->kind[u] = (uint8_t)jdKindOfCat(cats, ncat, g->cat_id);
      s->parent[u] = s->ot.gpu_node[u - s->nhost];
    }
  }
  memset(s->coff, 0, (s->n + 1) * sizeof *s->coff);
  for (size_t u = 0; u < s->n; u++)
    if (s->parent[u] >= 0) s->coff[s->parent[u] + 1]++;
  for (size_t u = 0; u < s->n; u++) s->coff[u + 1] += s->coff[u];
  memcpy(fill, s->coff, (s->n + 1) * sizeof *fill);
  /* host children first (tree order), then GPU children (file order) */
  for (size_t u = 0; u < s->n; u++)
    if (s->parent[u] >= 0) s->cidx[fill[s->parent[u]]++] = (int32_t)u;
shape_end:
  sqlite3_free(cats);
  sqlite3_free(fill);
  return rc;
}

/* Each host node's GPU events as one slice of glist (see HOW IT WORKS). */
static int jdGpuSlices(jd_side *s) {
  const opt_trace *ot = &s->ot;
  size_t k = 0;
  int32_t *pre = sqlite3_malloc64((s->nhost + 1) * sizeof *pre);
  s->ngpu = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *s->ngpu);
  s->gfirst = sqlite3_malloc64((s->n ? s->n : 1) * sizeof *s->gfirst);
  s->glist = sqlite3_malloc64((ot->gpu.n ? ot->gpu.n : 1) * sizeof *s->glist);
  if (!pre || !s->ngpu || !s->gfirst || !s->glist) {
    sqlite3_free(pre);
    return SQLITE_NOMEM;
  }
  pre[0] = 0;
  for (size_t p = 0; p < s->nhost; p++) {
    int32_t own = ot->nodes[p].in_tree ? ot->goff[p + 1] - ot->goff[p] : 0;
    for (int32_t q = 0; q < own; q++) s->glist[k++] = ot->gidx[ot->goff[p] + q];
    pre[p + 1] = pre[p] + own;
  }
  for (size_t p = 0; p < s->nhost; p++) {
    const opt_node *e = &ot->nodes[p];
    s->gfirst[p] = pre[p];
    s->ngpu[p] = e->in_tree ? pre[e->sub_end + 1] - pre[p] : 0;
  }
  for (size_t u = s->nhost; u < s->n; u++) s->gfirst[u] = -1, s->ngpu[u] = 1;
  sqlite3_free(pre);
  return SQLITE_OK;
}

typedef struct jd_rootkey {
  int64_t ts, seq;
  int32_t top, node;
} jd_rootkey;

static int jdRootCmp(const void *a, const void *b) {
  const jd_rootkey *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* JD-4: every in-tree cpu_op without a cpu_op above it, taken to its top ancestor,
** then down while that has one child that is neither a cpu_op nor a runtime call;
** each top once, in (ts, seq) order of the cpu_op. */
static int jdRoots(jd_side *s) {
  jd_rootkey *k = sqlite3_malloc64((s->nhost ? s->nhost : 1) * sizeof *k);
  unsigned char *seen = sqlite3_malloc64(s->n ? s->n : 1);
  size_t nk = 0;
  if (!k || !seen) {
    sqlite3_free(k);
    sqlite3_free(seen);
    return SQLITE_NOMEM;
  }
  memset(seen, 0, s->n ? s->n : 1);
  for (size_t p = 0; p < s->nhost; p++) {
    int32_t q, top = (int32_t)p;
    if (s->kind[p] != JD_K_CPU || !s->ot.nodes[p].in_tree) continue;
    for (q = s->parent[p]; q >= 0 && s->kind[q] != JD_K_CPU; q = s->parent[q]) top = q;
    if (q >= 0) continue; /* a cpu_op above it */
    jd_rootkey x = {s->ot.nodes[p].ts, s->ot.nodes[p].seq, top, (int32_t)p};
    k[nk++] = x;
  }
  qsort(k, nk, sizeof *k, jdRootCmp);
  s->roots = sqlite3_malloc64((nk ? nk : 1) * sizeof *s->roots);
  if (!s->roots) {
    sqlite3_free(k);
    sqlite3_free(seen);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < nk; i++) {
    int32_t cur = k[i].top;
    if (seen[cur]) continue;
    seen[cur] = 1;
    while (s->coff[cur + 1] - s->coff[cur] == 1) {
      int32_t c = s->cidx[s->coff[cur]];
      if (s->kind[c] == JD_K_CPU || s->kind[c] == JD_K_RT) break;
      cur = c;
    }
    s->roots[s->nroots++] = cur;
  }
  sqlite3_free(k);
  sqlite3_free(seen);
  return SQLITE_OK;
}

int jd_side_load(sqlite3 *db, const hta_trace *t, opt_ids *ids, jd_side *s) {
  int rc;
  memset(s, 0, sizeof *s);
  s->trace_id = t->trace_id;
  s->rank = t->rank;
  ids->tree_only = 1;
  rc = opt_trace_load(db, t, ids, &s->ot);
  if (rc != SQLITE_OK) return rc;
  s->nhost = s->ot.nnode;
  s->n = s->nhost + s->ot.gpu.n;
  if (s->n >= INT32_MAX / 2) return SQLITE_TOOBIG;
  rc = jdRawNames(db, t->schema, s);
  if (rc == SQLITE_OK) rc = jdShape(db, t->schema, s);
  if (rc == SQLITE_OK) rc = jdGpuSlices(s);
  if (rc == SQLITE_OK) rc = jdRoots(s);
  return rc;
}

void jd_side_free(jd_side *s) {
  opt_trace_free(&s->ot);
  sqlite3_free(s->kind);
  sqlite3_free(s->name);
  sqlite3_free(s->sname);
  sqlite3_free(s->raw);
  hta_names_free(s->rawnames, s->nraw);
  sqlite3_free(s->parent);
  sqlite3_free(s->coff);
  sqlite3_free(s->cidx);
  sqlite3_free(s->ngpu);
  sqlite3_free(s->gfirst);
  sqlite3_free(s->glist);
  sqlite3_free(s->roots);
  memset(s, 0, sizeof *s);
}

void jd_gpu_of(const jd_side *s, int32_t u, const int32_t **v, int32_t *n, int32_t *self) {
  if ((size_t)u >= s->nhost) {
    *self = u - (int32_t)s->nhost;
    *v = self;
    *n = 1;
  } else {
    *v = s->glist + s->gfirst[u];
    *n = s->ngpu[u];
  }
}

int jd_gpu_times(const jd_side *s, const int32_t *v, size_t n, int64_t *sum, int64_t *busy) {
  int64_t tot = 0;
  for (size_t i = 0; i < n; i++) tot = hta_add_sat(tot, s->ot.gpu.a[v[i]].dur);
  *sum = tot;
  *busy = opt_busy_ns(&s->ot, v, n); /* the union, as the performance model measures it */
  return *busy < 0 ? SQLITE_NOMEM : SQLITE_OK;
}

int32_t jd_cpu_op_of(const jd_side *s, int32_t u) {
  while (u >= 0 && s->kind[u] != JD_K_CPU) u = s->parent[u];
  return u;
}

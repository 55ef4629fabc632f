/*
** critical_path_graph.c: HTA's lightweight critical path graph of one rank and
** its longest path (spec hta_semantics.md 5, expected/README 12), for the
** table-valued functions of critical_path.c.
**
** Requirements (tests cite them as CPG-n):
**  1. Rows: the trace's events with dur and category (not 'Trace'), after the
**     last-ProfilerStep cut. Stream: event.stream, else a cuda_sync row's
**     args.stream (D5 is not applied to them here, README 12.3), else -1.
**  2. Window: [min ts, max end] of instances a..b of the rows whose name contains
**     the annotation (seq order); '' = the whole trace. No such name: no path
**     (HTA: None); an instance past the last: no path (HTA raises).
**  3. Kept rows: host rows (stream -1) starting in the window with dur > 0;
**     device rows whose runtime call is such a row; every Stream Wait Event.
**  4. Nodes: kept cpu_op / cuda_runtime / cuda_driver rows and device rows with a
**     correlation; start and end nodes sorted by (ts, seq, start first).
**  5. Pass 1, runtime lock (cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync);
**     pass 2, CPU call stacks (backward thread merged into forward); pass 3, GPU
**     kernels and cuda_sync rows with the queue length (spec 5.4-5.6), in
**     critical_path_gpu.c.
**  6. Re-adding an edge replaces its type and weight, keeps its place and its
**     attribution unless the new edge is attributed (spec 5.3, 5.9).
**  7. Weights <= -1 us are zeroed for the path; a sync edge within one stream or
**     a cycle makes the graph invalid (spec 5.7).
**  8. Longest path: networkx 2.8 dag_longest_path over Kahn generations: first
**     best predecessor in edge order, restart at negative, first best end node.
**  9. With an annotation, only the rows that can matter are loaded when a guess
**     at the window (the annotation rows in seq order before the cut) holds the
**     true one: rows starting in the guess, GPU rows, rows with a partner,
**     cuda_sync rows and rows with the names the passes look for. The true
**     window is computed as in 2 over them (every annotation row is loaded); if
**     it is not inside the guess, every row is loaded. The answer is the same.
**
** HOW IT WORKS: the rows are loaded in seq order (positions found by binary
** search on seq), edges go into an array with a hash index on (u, v), and the
** path is computed over CSR adjacency lists built in edge order. Times stay ns.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critical_path/critical_path.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static const char *const kFixed[N_FIXED] = {"cudaHostAlloc",
                                            "cudaLaunchKernel",
                                            "cudaMemcpyAsync",
                                            "cudaDeviceSynchronize",
                                            "cudaStreamSynchronize",
                                            "cudaEventQuery",
                                            "cudaEventSynchronize",
                                            "cudaMemcpy",
                                            "Event Sync",
                                            "Context Sync",
                                            "Stream Sync",
                                            "Stream Wait Event",
                                            "cudaEventRecord",
                                            "cudaStreamWaitEvent"};
/* QL-1: runtime launches of the queue length (with D15), shared with queue_length.c */
#define kLaunch hta_queue_launch_names

int cp_parse_instance(sqlite3_value *w, int64_t *a, int64_t *b) {
  long long x = 0, y = 0;
  int n = 0;
  *a = *b = 0;
  if (!w || sqlite3_value_type(w) == SQLITE_NULL) return 1;
  if (hta_value_int64(w, a)) {
    *b = *a;
  } else {
    const char *z = (const char *)sqlite3_value_text(w);
    if (sqlite3_value_type(w) != SQLITE_TEXT || !z ||
        sscanf(z, " [ %lld , %lld ] %n", &x, &y, &n) != 2 || z[n] != 0)
      return 0;
    *a = x;
    *b = y;
  }
  return *a >= 0 && *b >= *a;
}

const char *cp_edge_type_name(int type) {
  static const char *const n[] = {"critical_path_operator",
                                  "critical_path_dependency",
                                  "critical_path_kernel_launch_delay",
                                  "critical_path_kernel_kernel_delay",
                                  "critical_path_sync_dependency",
                                  "critical_path_collective_wait",
                                  "critical_path_collective"};
  return type >= 0 && type <= CP_COLLECTIVE ? n[type] : "";
}

void cp_graph_free(cp_graph *g) {
  sqlite3_free(g->ev);
  sqlite3_free(g->node);
  sqlite3_free(g->edge);
  sqlite3_free(g->path);
  memset(g, 0, sizeof *g);
}

static int cmpI32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}
static int inSet(const int32_t *s, size_t n, int32_t v) {
  return v >= 0 && n && bsearch(&v, s, n, sizeof *s, cmpI32) != 0;
}

/* The sorted ids of the names containing SUB. */
static int idsContaining(sqlite3 *db, const char *schema, const char *sub, int32_t **pa,
                         size_t *pn) {
  sqlite3_stmt *st = 0;
  size_t n = 0, a = 0;
  int32_t *v = 0;
  int rc =
      hta_prepare(db, schema, "SELECT string_id FROM $S.string WHERE instr(value, ?1) > 0", &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, sub, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    HTA_PUSH(v, n, a, 64, (int32_t)sqlite3_column_int64(st, 0), oom);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    sqlite3_free(v);
    return rc;
  }
  if (n) qsort(v, n, sizeof *v, cmpI32);
  *pa = v;
  *pn = n;
  return SQLITE_OK;
oom:
  sqlite3_finalize(st);
  sqlite3_free(v);
  return SQLITE_NOMEM;
}

/* A grouping key for a pid or tid value (integers as they are, text hashed). */
static int64_t valueKey(sqlite3_stmt *st, int col) {
  if (sqlite3_column_type(st, col) == SQLITE_INTEGER) return sqlite3_column_int64(st, col);
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return INT64_MIN;
  const unsigned char *z = sqlite3_column_text(st, col);
  uint64_t h = 1469598103934665603ull;
  while (z && *z) h = (h ^ *z++) * 1099511628211ull;
  return (int64_t)(h | (1ull << 62)) ^ INT64_MIN;
}

/* HTA's to_numeric stream of a JSON value (spec 1.6): numbers truncate, others -1. */
static int64_t numericOr(sqlite3_stmt *st, int col, int64_t dflt) {
  int t = sqlite3_column_type(st, col);
  if (t == SQLITE_INTEGER) return sqlite3_column_int64(st, col);
  if (t == SQLITE_FLOAT) return (int64_t)sqlite3_column_double(st, col);
  if (t == SQLITE_TEXT) {
    const char *z = (const char *)sqlite3_column_text(st, col);
    char *end = 0;
    double d = z ? strtod(z, &end) : 0;
    if (z && end != z && *end == 0 && d == d) return (int64_t)d;
  }
  return dflt;
}

static int catKind(const char *c) {
  if (!c) return CK_OTHER;
  if (!strcmp(c, "cpu_op")) return CK_CPU_OP;
  if (!strcmp(c, "cuda_runtime")) return CK_RUNTIME;
  if (!strcmp(c, "cuda_driver")) return CK_DRIVER;
  if (!strcmp(c, "user_annotation")) return CK_USER_ANN;
  if (!strcmp(c, "cuda_sync")) return CK_SYNC;
  return CK_OTHER;
}

static int cmpEvSeq(const void *a, const void *b) {
  const cp_ev *x = a, *y = b;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return (x->event_id > y->event_id) - (x->event_id < y->event_id);
}

/* The CK_* kind of every category id (*pk[id], ids up to *pn - 1), the id of
** cuda_sync and of Trace (-1 when absent). */
static int loadCategories(sqlite3 *db, const char *schema, unsigned char **pk, size_t *pn,
                          int64_t *sync_id, int64_t *trace_id) {
  sqlite3_stmt *st = 0;
  unsigned char *k = 0;
  size_t n = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT category_id, name FROM $S.category WHERE category_id BETWEEN 0 AND "
                       "1000000 ORDER BY category_id DESC",
                       &st);
  *sync_id = *trace_id = -1;
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!k) { /* the largest id comes first */
      n = (size_t)id + 1;
      if (!(k = sqlite3_malloc64(n))) break;
      memset(k, CK_OTHER, n);
    }
    k[id] = (unsigned char)catKind(name);
    if (name && !strcmp(name, "cuda_sync")) *sync_id = id;
    if (name && !strcmp(name, "Trace")) *trace_id = id;
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW) return SQLITE_NOMEM;
  if (rc != SQLITE_DONE) {
    sqlite3_free(k);
    return rc;
  }
  *pk = k;
  *pn = n;
  return SQLITE_OK;
}

static int cmpEvId(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = ((const cp_ev *)b)->event_id;
  return (x > y) - (x < y);
}

/* CPG-1: loads the rows of T in seq order. The partner of a row (link_id) is
** looked up among the rows, which come in event_id order, and the cut applied
** then: a host row before the cut bound, a GPU row when its partner (else the
** row itself) is. With NARROW (CPG-9), only the rows that can matter for a window
** within [ws, we]: those that start in it, every GPU row, every row with a
** partner, every cuda_sync row and every row named in NARROW (an SQL list of ids). */
static int loadRows(sqlite3 *db, const hta_trace *t, cp_graph *g, const char *narrow, int64_t ws,
                    int64_t we) {
  sqlite3_stmt *st = 0;
  size_t a = 0, nk = 0;
  unsigned char *kinds = 0;
  int64_t sync_id, trace_cat, bound = hta_trace_cut_bound(t);
  int rc = loadCategories(db, t->schema, &kinds, &nk, &sync_id, &trace_cat);
  if (rc != SQLITE_OK) return rc;
  char *sql = sqlite3_mprintf(
      "SELECT e.event_id, e.seq, e.ts, e.dur, e.name_id, e.category_id, e.pid, e.tid, e.stream,"
      " e.correlation, e.link_id,"
      " CASE WHEN e.category_id = ?4 THEN json_extract(e.args, '$.stream') END,"
      " CASE WHEN instr(e.args, 'wait_on') THEN json_extract(e.args, '$.wait_on_stream') END,"
      " CASE WHEN instr(e.args, 'wait_on') THEN"
      "   json_extract(e.args, '$.wait_on_cuda_event_record_corr_id') END"
      " FROM $S.event e"
      " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.dur IS NOT NULL AND e.ts IS NOT NULL"
      "   AND e.category_id IS NOT NULL AND e.category_id IS NOT ?5%s%s%s"
      " ORDER BY e.event_id",
      narrow ? " AND (e.ts BETWEEN ?6 AND ?7 OR e.stream IS NOT NULL OR e.link_id IS NOT NULL"
               " OR e.category_id = ?4 OR e.name_id IN ("
             : "",
      narrow ? narrow : "", narrow ? "))" : "");
  rc = sql ? hta_prepare(db, t->schema, sql, &st) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    sqlite3_free(kinds);
    return rc;
  }
  hta_bind_trace_scan(st, t);
  sqlite3_bind_int64(st, 4, sync_id);
  sqlite3_bind_int64(st, 6, ws);
  sqlite3_bind_int64(st, 7, we);
  if (!narrow) { /* room for every row at once: no copying while loading */
    int64_t cnt = 0;
    int isnull = 1;
    int64_t bind[1] = {t->trace_id};
    rc = hta_query_int64(db, t->schema, "SELECT event_count FROM $S.trace WHERE trace_id = ?1", 1,
                         bind, &cnt, &isnull);
    if (rc == SQLITE_OK && !isnull && cnt > 0 && cnt < (int64_t)1 << 31) {
      g->ev = sqlite3_malloc64((size_t)cnt * sizeof *g->ev);
      if (g->ev) a = (size_t)cnt;
    }
    if (rc != SQLITE_OK) {
      sqlite3_finalize(st);
      sqlite3_free(kinds);
      return rc;
    }
  }
  sqlite3_bind_int64(st, 5, trace_cat);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    cp_ev e;
    int64_t cat = sqlite3_column_int64(st, 5);
    memset(&e, 0, sizeof e);
    e.event_id = sqlite3_column_int64(st, 0);
    e.seq = sqlite3_column_int64(st, 1);
    e.ts = sqlite3_column_int64(st, 2);
    e.dur = sqlite3_column_int64(st, 3);
    e.name_id =
        sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 4);
    e.kind = cat >= 0 && (size_t)cat < nk ? kinds[cat] : CK_OTHER;
    e.pidk = valueKey(st, 6);
    e.tidk = valueKey(st, 7);
    e.dbgpu = sqlite3_column_type(st, 8) != SQLITE_NULL;
    if (e.dbgpu) e.stream = sqlite3_column_int64(st, 8);
    else e.stream = e.kind == CK_SYNC ? numericOr(st, 11, -1) : -1;
    e.corr = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
    e.link = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 10);
    e.wait_stream = numericOr(st, 12, -1);
    e.wait_corr = numericOr(st, 13, -1);
    e.partner = -1;
    e.ns = e.ne = -1;
    HTA_PUSH(g->ev, g->nev, a, 256, e, oom);
    if ((g->nev & 4095) == 0 && hta_interrupted(db)) {
      rc = SQLITE_INTERRUPT;
      break;
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(kinds);
  if (rc != SQLITE_DONE) return rc;
  /* index_correlation: the partner's seq (0: a correlation without partner) */
  for (size_t i = 0; i < g->nev; i++) {
    cp_ev *e = &g->ev[i];
    const cp_ev *p = e->link >= 0 ? bsearch(&e->link, g->ev, g->nev, sizeof *g->ev, cmpEvId) : 0;
    e->icorr = e->corr < 0 ? -1 : p ? p->seq : 0;
    e->keep_ts = e->dbgpu && p ? p->ts : e->ts;
  }
  size_t m = 0; /* the cut */
  for (size_t i = 0; i < g->nev; i++)
    if (g->ev[i].keep_ts < bound) g->ev[m++] = g->ev[i];
  g->nev = m;
  for (size_t i = 1; i < g->nev; i++)
    if (g->ev[i].seq < g->ev[i - 1].seq) {
      qsort(g->ev, g->nev, sizeof *g->ev, cmpEvSeq);
      break;
    }
  return SQLITE_OK;
oom:
  sqlite3_finalize(st);
  sqlite3_free(kinds);
  return SQLITE_NOMEM;
}

int cp_ev_pos(const cp_graph *g, int64_t seq) {
  size_t lo = 0, hi = g->nev;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->ev[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nev && g->ev[lo].seq == seq ? (int)lo : -1;
}

/* ---------------------------------------------------------------- edges */

int cp_add_edge(cp_ctx *x, int u, int v, int type, int zero, int attr_mode, int parent) {
  cp_graph *g = x->g;
  const cp_node *s = &g->node[u], *d = &g->node[v];
  uint64_t key = (uint64_t)(uint32_t)u << 32 | (uint32_t)v;
  size_t h;
  int idx = -1;
  if (u == v) return SQLITE_OK;
  if (2 * (g->nedge + 1) > x->hcap) { /* grow and rehash */
    size_t nc = x->hcap ? 2 * x->hcap : 1024;
    int *nh = sqlite3_malloc64(nc * sizeof *nh);
    if (!nh) return SQLITE_NOMEM;
    memset(nh, 0, nc * sizeof *nh);
    for (size_t i = 0; i < g->nedge; i++) {
      uint64_t k = (uint64_t)(uint32_t)g->edge[i].u << 32 | (uint32_t)g->edge[i].v;
      size_t j = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (nc - 1);
      while (nh[j]) j = (j + 1) & (nc - 1);
      nh[j] = (int)i + 1;
    }
    sqlite3_free(x->hash);
    x->hash = nh;
    x->hcap = nc;
  }
  h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (x->hcap - 1);
  while (x->hash[h]) {
    const cp_edge *e = &g->edge[x->hash[h] - 1];
    if (e->u == u && e->v == v) {
      idx = x->hash[h] - 1;
      break;
    }
    h = (h + 1) & (x->hcap - 1);
  }
  if (idx < 0) { /* CPG-6: a new edge */
    cp_edge e;
    memset(&e, 0, sizeof e);
    e.u = u;
    e.v = v;
    e.attr = -1;
    HTA_PUSH(g->edge, g->nedge, g->aedge, 1024, e, oom);
    idx = (int)g->nedge - 1;
    x->hash[h] = idx + 1;
  }
  cp_edge *e = &g->edge[idx];
  e->type = type;
  e->w = (type == CP_DEPENDENCY || type == CP_SYNC || zero) ? 0 : hta_sub_sat(d->ts, s->ts);
  if (attr_mode && (type == CP_OPERATOR || type == CP_KERNEL_KERNEL)) { /* spec 5.9 */
    if (type == CP_KERNEL_KERNEL || s->is_start) e->attr = s->ev;
    else if (!d->is_start) e->attr = d->ev;
    else e->attr = parent;
  }
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- window and nodes */

static int cmpNode(const void *a, const void *b) {
  const cp_node *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->ev != y->ev) return x->ev < y->ev ? -1 : 1; /* positions follow seq */
  return y->is_start - x->is_start;
}

/* CPG-2, CPG-3, CPG-4. Returns 0, or 1 when there is no window. */
static int windowAndNodes(cp_ctx *x, const char *annotation, int64_t ia, int64_t ib) {
  cp_graph *g = x->g;
  int64_t start = INT64_MAX, end = INT64_MIN, k = 0;
  int any = 0;
  for (size_t i = 0; i < g->nev; i++) {
    const cp_ev *e = &g->ev[i];
    if (*annotation) {
      if (!inSet(x->ids.ann, x->ids.nann, e->name_id)) continue;
      if (k < ia || k > ib) {
        k++;
        continue;
      }
      k++;
    }
    any = 1;
    if (e->ts < start) start = e->ts;
    if (hta_end(e->ts, e->dur) > end) end = hta_end(e->ts, e->dur);
  }
  if (!any) return 1;
  g->win_start = start;
  g->win_end = end;
  for (size_t i = 0; i < g->nev; i++) {
    cp_ev *e = &g->ev[i];
    e->partner = e->icorr > 0 ? cp_ev_pos(g, e->icorr) : -1;
    if (e->stream == -1) e->kept = e->ts >= start && e->ts <= end && e->dur > 0;
    else if (cp_is_id(e->name_id, x->ids.fixed[N_STREAM_WAIT])) e->kept = 1;
  }
  for (size_t i = 0; i < g->nev; i++) { /* device rows through their runtime */
    const cp_ev *h = &g->ev[i];
    if (h->stream != -1 || !h->kept || h->partner < 0) continue;
    if (g->ev[h->partner].stream != -1) g->ev[h->partner].kept = 1;
  }
  size_t nn = 0;
  for (size_t i = 0; i < g->nev; i++) {
    cp_ev *e = &g->ev[i];
    if (!e->kept) continue;
    g->nkept++;
    if (e->kind == CK_CPU_OP || e->kind == CK_RUNTIME || e->kind == CK_DRIVER ||
        (e->stream != -1 && e->icorr >= 0))
      nn += 2;
  }
  g->node = sqlite3_malloc64((nn ? nn : 1) * sizeof *g->node);
  if (!g->node) return -1;
  for (size_t i = 0; i < g->nev; i++) {
    cp_ev *e = &g->ev[i];
    if (!e->kept) continue;
    if (!(e->kind == CK_CPU_OP || e->kind == CK_RUNTIME || e->kind == CK_DRIVER ||
          (e->stream != -1 && e->icorr >= 0)))
      continue;
    g->node[g->nnode++] = (cp_node){e->ts, (int)i, 1};
    g->node[g->nnode++] = (cp_node){hta_end(e->ts, e->dur), (int)i, 0};
  }
  qsort(g->node, g->nnode, sizeof *g->node, cmpNode);
  for (size_t n = 0; n < g->nnode; n++) {
    cp_ev *e = &g->ev[g->node[n].ev];
    if (g->node[n].is_start) e->ns = (int)n;
    else e->ne = (int)n;
  }
  return 0;
}

static int isLock(const cp_ctx *x, const cp_ev *e) {
  return cp_is_id(e->name_id, x->ids.fixed[N_HOSTALLOC]) ||
         cp_is_id(e->name_id, x->ids.fixed[N_LAUNCH]) ||
         cp_is_id(e->name_id, x->ids.fixed[N_MEMCPYASYNC]);
}
static int isBlocking(const cp_ctx *x, const cp_ev *e) {
  for (int k = N_DEVSYNC; k <= N_MEMCPY; k++)
    if (cp_is_id(e->name_id, x->ids.fixed[k])) return 1;
  return cp_is_id(e->name_id, x->ids.fixed[N_MEMCPYASYNC]);
}
/* spec 5.5 "share the lock" */
static int sharesLock(const cp_ctx *x, int a, int b) {
  const cp_node *p = &x->g->node[a], *q = &x->g->node[b];
  return isLock(x, &x->g->ev[p->ev]) && isLock(x, &x->g->ev[q->ev]) &&
         (p->is_start || !q->is_start);
}

/* ---------------------------------------------------------------- pass 1: the runtime lock */
static int passLock(cp_ctx *x) {
  cp_graph *g = x->g;
  int *stack = sqlite3_malloc64((g->nnode ? g->nnode : 1) * sizeof *stack);
  int top = 0, last = -1, rc = SQLITE_OK;
  if (!stack) return SQLITE_NOMEM;
  for (size_t n = 0; n < g->nnode && rc == SQLITE_OK; n++) {
    const cp_node *nd = &g->node[n];
    if (!isLock(x, &g->ev[nd->ev])) continue;
    if (nd->is_start) {
      stack[top++] = (int)n;
    } else {
      while (top > 0 && rc == SQLITE_OK) {
        int s = stack[--top];
        if (g->node[s].ev == nd->ev) rc = cp_add_edge(x, s, (int)n, CP_OPERATOR, 0, 1, -1);
        else rc = cp_add_edge(x, s, (int)n, CP_DEPENDENCY, 0, 0, -1);
      }
      if (rc == SQLITE_OK && last >= 0 && !g->node[last].is_start)
        rc = cp_add_edge(x, last, (int)n, CP_DEPENDENCY, 0, 0, -1);
    }
    last = (int)n;
  }
  sqlite3_free(stack);
  return rc;
}

/* ---------------------------------------------------------------- pass 2: call stacks */
typedef struct cs_pt {
  int64_t t, dur;
  int ev, is_start;
} cs_pt;

/* The call-stack point order of spec 5.5 step 3 (kept host rows have dur > 0). */
static int cmpPt(const void *a, const void *b) {
  const cs_pt *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->ev == y->ev) return y->is_start - x->is_start;
  if (x->is_start && y->is_start) {
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;
    return x->ev < y->ev ? -1 : 1;
  }
  if (!x->is_start && !y->is_start) {
    if (x->dur != y->dur) return x->dur < y->dur ? -1 : 1;
    return x->ev > y->ev ? -1 : 1;
  }
  if (x->dur > 0 && y->dur > 0) return x->is_start ? 1 : -1; /* the end first */
  if (x->dur == 0 && y->dur == 0) return x->ev < y->ev ? -1 : 1;
  return x->is_start ? -1 : 1;
}

typedef struct cs_row {
  int64_t pidk, tidk;
  int ev;
} cs_row;
static int cmpRow(const void *a, const void *b) {
  const cs_row *x = a, *y = b;
  if (x->pidk != y->pidk) return x->pidk < y->pidk ? -1 : 1;
  if (x->tidk != y->tidk) return x->tidk < y->tidk ? -1 : 1;
  return x->ev - y->ev;
}

/* The single tid of kept cpu_op / user_annotation rows named in SET; 0 when none or several. */
static int64_t singleTid(const cp_graph *g, const int32_t *set, size_t n, int *found) {
  int64_t tid = 0;
  *found = 0;
  for (size_t i = 0; i < g->nev; i++) {
    const cp_ev *e = &g->ev[i];
    if (!e->kept || (e->kind != CK_CPU_OP && e->kind != CK_USER_ANN)) continue;
    if (!inSet(set, n, e->name_id)) continue;
    if (*found && e->tidk != tid) {
      *found = 0;
      return 0;
    }
    *found = 1;
    tid = e->tidk;
  }
  return tid;
}

/* One CPU thread: nesting, then the depth-first edges (spec 5.5 steps 3-4). */
static int stackEdges(cp_ctx *x, const cs_row *r, size_t n, cs_pt *pts, int *work) {
  cp_graph *g = x->g;
  int rc = SQLITE_OK;
  size_t np = 0;
  int *parent = work, *kids = work + (n + 1), *first = work + 2 * (n + 1);
  int *lastkid = work + 3 * (n + 1), *stk = work + 4 * (n + 1), top = 0;
  for (size_t i = 0; i < n; i++) {
    const cp_ev *e = &g->ev[r[i].ev];
    int64_t d = e->dur > 0 ? e->dur : 0;
    pts[np++] = (cs_pt){e->ts, d, r[i].ev, 1};
    pts[np++] = (cs_pt){hta_end(e->ts, d), d, r[i].ev, 0};
  }
  qsort(pts, np, sizeof *pts, cmpPt);
  for (size_t i = 0; i <= n; i++) first[i] = lastkid[i] = kids[i] = -1;
  for (size_t p = 0; p < np; p++) {
    size_t lo = 0, hi = n; /* local index: R is sorted by ev */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (r[mid].ev < pts[p].ev) lo = mid + 1;
      else hi = mid;
    }
    int k = (int)lo;
    if (pts[p].is_start) {
      int par = top ? stk[top - 1] : (int)n; /* n = the root */
      parent[k] = par;
      if (lastkid[par] < 0) first[par] = k;
      else kids[lastkid[par]] = k;
      lastkid[par] = k;
      stk[top++] = k;
    } else if (top) {
      top--; /* an end pops the top, whatever it is */
    }
  }
  /* depth-first walk from the root: enter, children, exit */
  int last = -1, depth = 0, lastParent = -1;
  int cur = first[n];
  while (cur >= 0 && rc == SQLITE_OK) {
    /* enter cur */
    const cp_ev *e = &g->ev[r[cur].ev];
    int pev = parent[cur] == (int)n ? -1 : r[parent[cur]].ev;
    if (e->ns >= 0) {
      if (last >= 0 && !sharesLock(x, last, e->ns))
        rc =
            cp_add_edge(x, last, e->ns, depth == 0 ? CP_DEPENDENCY : CP_OPERATOR, 0, 1, lastParent);
      last = e->ns;
      lastParent = pev;
      depth++;
    }
    if (first[cur] >= 0) {
      cur = first[cur];
      continue;
    }
    /* exit cur and its finished ancestors */
    for (;;) {
      const cp_ev *f = &g->ev[r[cur].ev];
      int fp = parent[cur] == (int)n ? -1 : r[parent[cur]].ev;
      if (f->ne >= 0 && rc == SQLITE_OK) {
        if (last >= 0 && !sharesLock(x, last, f->ne))
          rc = cp_add_edge(x, last, f->ne, CP_OPERATOR, isBlocking(x, f), 1, lastParent);
        last = f->ne;
        lastParent = fp;
        depth--;
      }
      if (kids[cur] >= 0) {
        cur = kids[cur];
        break;
      }
      if (parent[cur] == (int)n) {
        cur = -1;
        break;
      }
      cur = parent[cur];
    }
  }
  return rc;
}

static int passStacks(cp_ctx *x) {
  cp_graph *g = x->g;
  cs_row *rows = 0;
  size_t n = 0, a = 0;
  int ff, fb, rc = SQLITE_OK;
  int64_t fwd = singleTid(g, x->ids.fwd, x->ids.nfwd, &ff);
  int64_t bwd = singleTid(g, x->ids.bwd, x->ids.nbwd, &fb);
  int remap = ff && fb && fwd != 0 && bwd != 0 && fwd != bwd; /* HTA tests truthiness */
  for (size_t i = 0; i < g->nev; i++) {
    const cp_ev *e = &g->ev[i];
    if (!e->kept) continue;
    cs_row r = {e->pidk, remap && e->tidk == bwd ? fwd : e->tidk, (int)i};
    HTA_PUSH(rows, n, a, 256, r, oom);
  }
  if (n == 0) return SQLITE_OK;
  qsort(rows, n, sizeof *rows, cmpRow);
  cs_pt *pts = sqlite3_malloc64(2 * n * sizeof *pts);
  int *work = sqlite3_malloc64((5 * n + 8) * sizeof *work);
  if (!pts || !work) {
    sqlite3_free(pts);
    sqlite3_free(work);
    goto oom;
  }
  for (size_t i = 0; i < n && rc == SQLITE_OK;) {
    size_t j = i;
    int cpu = 1;
    while (j < n && rows[j].pidk == rows[i].pidk && rows[j].tidk == rows[i].tidk) {
      if (g->ev[rows[j].ev].stream >= 0) cpu = 0; /* spec 5.5 step 2 */
      j++;
    }
    if (cpu) {
      rc = stackEdges(x, rows + i, j - i, pts, work);
    }
    i = j;
  }
  sqlite3_free(pts);
  sqlite3_free(work);
  sqlite3_free(rows);
  return rc;
oom:
  sqlite3_free(rows);
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- validity and the path */

/* CPG-7, CPG-8. */
int cp_longest_path(cp_graph *g) {
  size_t nn = g->nnode, ne = g->nedge, ng = 0;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < ne; i++) { /* CPG-7 */
    cp_edge *e = &g->edge[i];
    e->gw = e->w <= -1000 ? 0 : e->w;
    if (e->type == CP_SYNC) {
      int64_t a = g->ev[g->node[e->u].ev].stream, b = g->ev[g->node[e->v].ev].stream;
      if (a != -1 && a == b) {
        g->status = CP_INVALID;
        g->why = "a sync edge within one stream";
      }
    }
  }
  if (g->status != CP_OK) return SQLITE_OK;
  /* graph order: first appearance in edge insertions; CSR lists in edge order */
  int *gpos = sqlite3_malloc64((nn + 1) * sizeof *gpos),
      *gnodes = sqlite3_malloc64((nn + 1) * sizeof *gnodes);
  int *so = sqlite3_malloc64((nn + 2) * sizeof *so), *sl = sqlite3_malloc64((ne + 1) * sizeof *sl);
  int *po = sqlite3_malloc64((nn + 2) * sizeof *po), *pl = sqlite3_malloc64((ne + 1) * sizeof *pl);
  int *indeg = sqlite3_malloc64((nn + 1) * sizeof *indeg),
      *topo = sqlite3_malloc64((nn + 1) * sizeof *topo);
  int64_t *dist = sqlite3_malloc64((nn + 1) * sizeof *dist);
  int *from = sqlite3_malloc64((nn + 1) * sizeof *from);
  if (!gpos || !gnodes || !so || !sl || !po || !pl || !indeg || !topo || !dist || !from) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < nn; i++) gpos[i] = -1;
  memset(so, 0, (nn + 2) * sizeof *so);
  memset(po, 0, (nn + 2) * sizeof *po);
  for (size_t i = 0; i < ne; i++) {
    const cp_edge *e = &g->edge[i];
    if (gpos[e->u] < 0) gpos[e->u] = (int)ng, gnodes[ng++] = e->u;
    if (gpos[e->v] < 0) gpos[e->v] = (int)ng, gnodes[ng++] = e->v;
    so[e->u + 1]++;
    po[e->v + 1]++;
  }
  for (size_t i = 0; i < nn; i++) so[i + 1] += so[i], po[i + 1] += po[i];
  for (size_t i = 0; i < nn; i++) indeg[i] = po[i + 1] - po[i];
  {
    int *fs = from, *fp = topo; /* fill cursors, reused below */
    for (size_t i = 0; i < nn; i++) fs[i] = so[i], fp[i] = po[i];
    for (size_t i = 0; i < ne; i++) {
      sl[fs[g->edge[i].u]++] = (int)i;
      pl[fp[g->edge[i].v]++] = (int)i;
    }
  }
  /* Kahn by generations */
  size_t nt = 0;
  for (size_t i = 0; i < ng; i++)
    if (indeg[gnodes[i]] == 0) topo[nt++] = gnodes[i];
  for (size_t gen = 0; gen < nt;) {
    size_t end = nt;
    for (size_t k = gen; k < end; k++) {
      int u = topo[k];
      for (int j = so[u]; j < so[u + 1]; j++) {
        int v = g->edge[sl[j]].v;
        if (--indeg[v] == 0) topo[nt++] = v;
      }
    }
    gen = end;
  }
  if (nt < ng) {
    g->status = CP_INVALID;
    g->why = "a cycle";
    goto done;
  }
  /* dist(v) = max over predecessors in edge order; restart when negative */
  int64_t best = INT64_MIN;
  int bestNode = -1;
  for (size_t k = 0; k < nt; k++) {
    int v = topo[k];
    int64_t d = 0;
    int f = -1;
    for (int j = po[v]; j < po[v + 1]; j++) {
      const cp_edge *e = &g->edge[pl[j]];
      int64_t c = hta_add_sat(dist[e->u], e->gw);
      if (f < 0 || c > d) d = c, f = e->u;
    }
    if (f < 0 || d < 0) d = 0, f = v;
    dist[v] = d;
    from[v] = f;
    if (d > best) best = d, bestNode = v;
  }
  if (bestNode < 0) {
    g->status = CP_FAILED;
    g->why = "a path of fewer than 2 nodes";
    goto done;
  }
  size_t np = 0;
  for (int v = bestNode;; v = from[v]) {
    np++;
    if (from[v] == v) break;
  }
  if (np < 2) {
    g->status = CP_FAILED;
    g->why = "a path of fewer than 2 nodes";
    goto done;
  }
  g->path = sqlite3_malloc64(np * sizeof *g->path);
  if (!g->path) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  g->npath = np;
  {
    size_t k = np;
    for (int v = bestNode;; v = from[v]) {
      g->path[--k] = v;
      if (from[v] == v) break;
    }
  }
  for (size_t k = 0; k + 1 < np; k++) { /* mark the path edges */
    int u = g->path[k], v = g->path[k + 1];
    for (int j = so[u]; j < so[u + 1]; j++)
      if (g->edge[sl[j]].v == v) g->edge[sl[j]].on_path = 1;
  }
done:
  sqlite3_free(gpos);
  sqlite3_free(gnodes);
  sqlite3_free(so);
  sqlite3_free(sl);
  sqlite3_free(po);
  sqlite3_free(pl);
  sqlite3_free(indeg);
  sqlite3_free(topo);
  sqlite3_free(dist);
  sqlite3_free(from);
  return rc;
}

/* ---------------------------------------------------------------- build */

/* The ids of X's annotation names, and with ALL its fixed names and launches
** too, as an SQL list ("-1,5,9"), sqlite3_malloc'd. */
static char *idList(const cp_ctx *x, int all) {
  sqlite3_str *b = sqlite3_str_new(0);
  const int32_t *sets[] = {x->ids.ann, x->ids.fixed, x->ids.launch};
  const size_t n[] = {x->ids.nann, N_FIXED, N_LAUNCHES};
  sqlite3_str_appendall(b, "-1");
  for (int k = 0; k < (all ? 3 : 1); k++)
    for (size_t i = 0; i < n[k]; i++)
      if (sets[k][i] >= 0) sqlite3_str_appendf(b, ",%d", (int)sets[k][i]);
  return sqlite3_str_finish(b);
}

/* CPG-9: [*ws, *we] holds instances [a, b] of the annotation (IDS: its names)
** when *found: their rows in seq order before the cut. The cut's partner rule is
** left out, so this is a guess: the build checks that the true window falls
** inside it, else loads every row. */
static int annWindow(sqlite3 *db, const hta_trace *t, const char *ids, int64_t a, int64_t b,
                     int64_t *ws, int64_t *we, int *found) {
  sqlite3_stmt *st = 0;
  char *sql = sqlite3_mprintf(
      "WITH a AS MATERIALIZED (SELECT seq, ts, dur, category_id FROM $S.event" /* one cheap scan */
      " WHERE event_id BETWEEN ?1 AND ?2 AND name_id IN (%s))"
      " SELECT min(ts), max(ts + dur), count(*) FROM (SELECT ts, dur FROM a"
      " WHERE ts < ?3 AND dur IS NOT NULL AND ts IS NOT NULL"
      " AND category_id NOT IN (SELECT category_id FROM $S.category WHERE name = 'Trace')"
      " ORDER BY seq LIMIT ?4 OFFSET ?5)",
      ids);
  int rc = sql ? hta_prepare(db, t->schema, sql, &st) : SQLITE_NOMEM;
  sqlite3_free(sql);
  *found = 0;
  if (rc != SQLITE_OK) return rc;
  hta_bind_trace_scan(st, t);
  sqlite3_bind_int64(st, 4, b - a + 1);
  sqlite3_bind_int64(st, 5, a);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *found = sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
             sqlite3_column_type(st, 1) == SQLITE_INTEGER && /* ts + dur did not overflow */
             sqlite3_column_int64(st, 2) == b - a + 1;
    *ws = sqlite3_column_int64(st, 0);
    *we = sqlite3_column_int64(st, 1);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

int cp_graph_build(sqlite3 *db, const hta_trace *t, const char *annotation, int64_t a, int64_t b,
                   int zero_weight_launch, cp_graph *g) {
  cp_ctx x;
  int rc;
  memset(g, 0, sizeof *g);
  memset(&x, 0, sizeof x);
  x.db = db;
  x.g = g;
  x.zw = zero_weight_launch;
  rc = hta_string_ids(db, t->schema, kFixed, N_FIXED, x.ids.fixed);
  if (rc == SQLITE_OK) rc = hta_string_ids(db, t->schema, kLaunch, N_LAUNCHES, x.ids.launch);
  if (rc == SQLITE_OK && *annotation)
    rc = idsContaining(db, t->schema, annotation, &x.ids.ann, &x.ids.nann);
  if (rc == SQLITE_OK) rc = idsContaining(db, t->schema, "forward", &x.ids.fwd, &x.ids.nfwd);
  if (rc == SQLITE_OK) rc = idsContaining(db, t->schema, "autograd", &x.ids.bwd, &x.ids.nbwd);
  if (rc != SQLITE_OK) goto done;
  if (*annotation && x.ids.nann == 0) { /* CPG-2: HTA returns None */
    g->status = CP_NO_ANNOTATION;
    g->why = "no name contains the annotation";
    goto done;
  }
  if (*annotation) { /* CPG-9: the rows near the window, when a guess at it holds */
    int64_t ws = 0, we = 0;
    int found = 0;
    char *ann = idList(&x, 0), *ids = idList(&x, 1);
    rc = ann && ids ? annWindow(db, t, ann, a, b, &ws, &we, &found) : SQLITE_NOMEM;
    if (rc == SQLITE_OK && found) rc = loadRows(db, t, g, ids, ws, we);
    sqlite3_free(ann);
    sqlite3_free(ids);
    if (rc != SQLITE_OK) goto done;
    if (found) {
      int w = windowAndNodes(&x, annotation, a, b);
      if (w < 0) {
        rc = SQLITE_NOMEM;
        goto done;
      }
      if (w == 0 && g->win_start >= ws && g->win_end <= we) goto built;
      cp_graph_free(g); /* the guess missed: every row */
    }
  }
  rc = loadRows(db, t, g, 0, 0, 0);
  if (rc != SQLITE_OK) goto done;
  if (*annotation) { /* CPG-2 is about the job's names (HTA's symbol table holds its ranks'
                       names); the string table holds every job's: ask the job's events */
    int64_t one, bind[1] = {t->job_id};
    int none = 0, jobs = 0;
    rc = hta_query_int64(db, t->schema, "SELECT count(*) > 1 FROM $S.job", 0, 0, &one, &none);
    jobs = rc == SQLITE_OK && !none && one;
    if (rc == SQLITE_OK && jobs) {
      sqlite3_stmt *st = 0;
      rc = hta_prepare(db, t->schema,
                       "SELECT 1 FROM $S.event WHERE trace_id IN"
                       " (SELECT trace_id FROM $T WHERE job_id = ?1) AND name_id IN"
                       " (SELECT string_id FROM $S.string WHERE instr(value, ?2) > 0) LIMIT 1",
                       &st);
      if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, bind[0]);
        sqlite3_bind_text(st, 2, annotation, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        none = rc == SQLITE_DONE;
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
      }
      sqlite3_finalize(st);
      if (rc != SQLITE_OK) goto done;
      if (none) {
        g->status = CP_NO_ANNOTATION;
        g->why = "no name contains the annotation";
        goto done;
      }
    }
    if (rc != SQLITE_OK) goto done;
  }
  {
    int w = windowAndNodes(&x, annotation, a, b);
    if (w < 0) {
      rc = SQLITE_NOMEM;
      goto done;
    }
    if (w > 0) {
      g->status = CP_FAILED;
      g->why = "no such instance";
      goto done;
    }
  }
built:
  rc = passLock(&x);
  if (rc == SQLITE_OK) rc = passStacks(&x);
  if (rc == SQLITE_OK) rc = cp_pass_gpu(&x);
  if (rc == SQLITE_OK && g->status == CP_OK) rc = cp_longest_path(g);
done:
  sqlite3_free(x.ids.ann);
  sqlite3_free(x.ids.fwd);
  sqlite3_free(x.ids.bwd);
  sqlite3_free(x.hash);
  return rc;
}

/* The path's edges in order (CP-2): edge k joins path nodes k and k+1. One pass
** over the edges with each node's position on the path (a node is on it once). */
int cp_path_edges(const cp_graph *g, const cp_edge ***pe) {
  const cp_edge **e = sqlite3_malloc64((g->npath ? g->npath : 1) * sizeof *e);
  int64_t *pos = sqlite3_malloc64((g->nnode ? g->nnode : 1) * sizeof *pos);
  if (!e || !pos) {
    sqlite3_free(e);
    sqlite3_free(pos);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < g->nnode; i++) pos[i] = -1;
  for (size_t k = 0; k < g->npath; k++) {
    pos[g->path[k]] = (int64_t)k;
    e[k] = 0;
  }
  for (size_t j = 0; j < g->nedge; j++) {
    const cp_edge *x = &g->edge[j];
    int64_t k = x->on_path ? pos[x->u] : -1;
    if (k >= 0 && (size_t)k + 1 < g->npath && g->path[k + 1] == x->v && !e[k]) e[k] = x;
  }
  sqlite3_free(pos);
  *pe = e;
  return SQLITE_OK;
}

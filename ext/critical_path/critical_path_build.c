/*
** critical_path_build.c: HTA's lightweight critical path graph of one rank and its
** longest path (spec hta_semantics.md 5, expected/README 12), for the table-valued
** functions of critical_path.c, the job's graph (critical_path_job.c) and the io
** overlay: loads the rows, finds the window, makes the nodes, runs the passes
** (critical_path_passes.h) and the longest path (critical_path_graph.h).
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
**     kernels and cuda_sync rows with the queue length (spec 5.4-5.6): passes 1-2
**     in critical_path_host.c, pass 3 in critical_path_gpu.c.
**  6-8 are critical_path_graph.c's:
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
** search on seq); the window and the nodes follow from them; the passes add the
** edges; cp_longest_path finds the path. Times stay ns.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critical_path/critical_path.h"
#include "critical_path/critical_path_passes.h"
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
  cp_ids_sort(v, n);
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
      if (!cp_in_set(x->ids.ann, x->ids.nann, e->name_id)) continue;
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
  rc = cp_pass_lock(&x);
  if (rc == SQLITE_OK) rc = cp_pass_stacks(&x);
  if (rc == SQLITE_OK) rc = cp_pass_gpu(&x);
  if (rc == SQLITE_OK && g->status == CP_OK) rc = cp_longest_path(g);
done:
  sqlite3_free(x.ids.ann);
  sqlite3_free(x.ids.fwd);
  sqlite3_free(x.ids.bwd);
  sqlite3_free(x.hash);
  return rc;
}

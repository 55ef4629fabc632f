/*
** critical_path.c: HTA's lightweight critical path analysis, one rank at a time
** (spec hta_semantics.md 5; the graph: critical_path_build.c).
**
**   SELECT * FROM hta_critical_path WHERE rank = 0;          -- ProfilerStep, instance 0
**   SELECT * FROM hta_critical_path('ProfilerStep', 1);      -- the second instance
**   SELECT * FROM hta_critical_path('', NULL);               -- the whole trace
**   SELECT * FROM hta_critical_path('ProfilerStep', '[0, 2]', 1);
**   SELECT * FROM hta_critical_path_summary WHERE rank = 0;
**   SELECT * FROM hta_critical_path_graph WHERE rank = 0;    -- every edge
**   SELECT * FROM hta_critical_path_stats;                   -- one row per rank
**
** Parameters (HIDDEN, all four functions): annotation ('ProfilerStep' when not
** given or NULL; '' = the whole trace), instance_id (NULL = 0, an integer, or the
** text '[a, b]' for instances a..b), add_zero_weight_launch_edges (0),
** include_last_profiler_step (0).
** hta_critical_path columns: rank, path_pos, src_event_seq, src_is_start,
**   src_ts_us, dst_event_seq, dst_is_start, dst_ts_us, edge_type, weight_us,
**   duration_us, event_seq, name, cat, pid, tid, stream, bound_by, src_event_id,
**   dst_event_id, event_id, trace_id.
** hta_critical_path_summary: rank, bound_by, duration_us, percentage, trace_id.
** hta_critical_path_graph: rank, edge_pos, src_node, dst_node, src_event_seq,
**   src_is_start, src_ts_us, dst_event_seq, dst_is_start, dst_ts_us, edge_type,
**   weight_us, duration_us, event_seq, on_path, trace_id.
** hta_critical_path_stats: rank, status, window_start_us, window_end_us,
**   clipped_events, event_nodes, graph_nodes, graph_edges, path_nodes,
**   path_length_us, trace_id.
**
** Requirements (tests cite them as CP-n):
**  1. One analysis per trace (rank) in (rank, trace_id) order; WHERE rank = N
**     analyses rank N only. A rank where HTA returns None, raises or finds the
**     graph invalid has no path rows; hta_critical_path_stats says why (status
**     'ok', 'no_annotation', 'invalid' or 'failed: <why>').
**  2. Path rows in path order, path_pos from 0; row k's dst is row k+1's src.
**     Times are us relative to the job's earliest event; an event is its
**     traceEvents position (seq); *_event_id are event.event_id.
**  3. weight_us: the weight the path used; duration_us: HTA's edge weight (they
**     differ for weights <= -1 us, zeroed for the path).
**  4. event_seq: the event the edge is attributed to (operator and kernel-kernel
**     edges only), with its shortened name, category, pid, tid and HTA stream.
**  5. bound_by: kernel-kernel -> gpu_kernel_kernel_overhead; launch delay ->
**     gpu_kernel_launch_overhead; dependency, sync -> ''; operator -> cpu_bound
**     (stream < 0), gpu_communication_bound (shortened name starts with nccl, hip
**     or hccl, or contains ncclKernel), else gpu_compute_bound.
**  6. Summary: per bound_by ('' first, then ascending), the sum of duration_us and
**     100 * sum / the total (NULL when the total is 0).
*/
#include <stdio.h>
#include <string.h>

#include "critical_path/critical_path.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define CP_PARAMS                                                                \
  " annotation HIDDEN, instance_id HIDDEN, add_zero_weight_launch_edges HIDDEN," \
  " include_last_profiler_step HIDDEN)"
static const hta_param cpParams[] = {
    {"annotation", HTA_PARAM_VALUE, 0.0, 0.0, 0.0, "text"},
    {"instance_id", HTA_PARAM_VALUE, 0.0, 0.0, 0.0, "an integer or '[a, b]'"},
    {"add_zero_weight_launch_edges", 0, 0.0, 0.0, 1.0, "0 or 1"},
    HTA_PARAM_LAST_STEP,
};
enum { P_ANN, P_INST, P_ZW, P_LAST };

enum { F_PATH, F_SUMMARY, F_GRAPH, F_STATS };

/* The call's annotation and instance range; SQLITE_ERROR with *pzErr when invalid. */
static int cpArgs(const hta_tvf_args *a, const char *fn, const char **ann, int64_t *ia, int64_t *ib,
                  char **pzErr) {
  sqlite3_value *v = a->v[P_ANN], *w = a->v[P_INST];
  *ann = "ProfilerStep";
  if (v && sqlite3_value_type(v) != SQLITE_NULL) {
    if (sqlite3_value_type(v) != SQLITE_TEXT) {
      *pzErr = sqlite3_mprintf("%s: annotation must be text", fn);
      return SQLITE_ERROR;
    }
    *ann = (const char *)sqlite3_value_text(v);
    if (!*ann) return SQLITE_NOMEM;
  }
  if (!cp_parse_instance(w, ia, ib)) {
    *pzErr = sqlite3_mprintf("%s: instance_id must be an integer or '[a, b]'", fn);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static double relUs(int64_t ns, int64_t base) { return (double)hta_sub_sat(ns, base) / 1000.0; }

/* CP-5: HTA's COMMUNICATION rule on a shortened name. */
static int isComm(const char *s) {
  return s && (!strncmp(s, "nccl", 4) || !strncmp(s, "hip", 3) || !strncmp(s, "hccl", 4) ||
               strstr(s, "ncclKernel"));
}

static const char *boundBy(const cp_graph *g, const cp_edge *e, const char *sname) {
  if (e->type == CP_COLLECTIVE) return "gpu_communication_bound"; /* CPJ-3 */
  if (e->type == CP_KERNEL_KERNEL) return "gpu_kernel_kernel_overhead";
  if (e->type == CP_LAUNCH_DELAY) return "gpu_kernel_launch_overhead";
  if (e->type != CP_OPERATOR || e->attr < 0) return "";
  if (g->ev[e->attr].stream < 0) return "cpu_bound";
  return isComm(sname) ? "gpu_communication_bound" : "gpu_compute_bound";
}

typedef struct ev_info {
  char *sname;
  const char *cat;
  sqlite3_value *pid, *tid;
} ev_info;

/* Reads the attributed event's shortened name, category, pid and tid with Q. */
static int evInfo(sqlite3_stmt *q, const hta_classifier *cls, int64_t event_id, hta_cell *name,
                  hta_cell *cat, hta_cell *pid, hta_cell *tid) {
  int rc;
  sqlite3_bind_int64(q, 1, event_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    const char *n = (const char *)sqlite3_column_text(q, 0);
    rc = SQLITE_OK;
    if (n) {
      char *s = hta_shorten_name(n, cls);
      if (!s) rc = SQLITE_NOMEM;
      else {
        rc = hta_cell_text(name, s);
        sqlite3_free(s);
      }
    }
    if (rc == SQLITE_OK && sqlite3_column_type(q, 1) != SQLITE_NULL)
      rc = hta_cell_text(cat, (const char *)sqlite3_column_text(q, 1));
    for (int k = 0; k < 2 && rc == SQLITE_OK; k++) {
      hta_cell *c = k ? tid : pid;
      int t = sqlite3_column_type(q, 2 + k);
      if (t == SQLITE_INTEGER) hta_cell_int(c, sqlite3_column_int64(q, 2 + k));
      else if (t != SQLITE_NULL) rc = hta_cell_text(c, (const char *)sqlite3_column_text(q, 2 + k));
    }
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_reset(q);
  return rc;
}

/* hta_critical_path rows of trace T, or with T NULL hta_critical_path_job rows of
** the job's graph (each row's rank and trace are its dst event's; column 22 is the
** src event's rank; with HAS_RANK only the rows of RANK). */
static int emitPath(sqlite3 *db, const hta_traces *tr, const hta_trace *t, const cp_graph *g,
                    int has_rank, int64_t rank, hta_table *out) {
  const cp_edge **pe = 0;
  hta_classifier *cls = 0;
  sqlite3_stmt *q = 0;
  int rc = cp_path_edges(g, &pe);
  if (rc == SQLITE_OK) rc = hta_classifier_open(db, tr->scope.schema, &cls);
  if (rc == SQLITE_OK)
    rc = hta_prepare(db, tr->scope.schema,
                     "SELECT s.value, c.name, e.pid, e.tid FROM $S.event e"
                     " LEFT JOIN $S.string s ON s.string_id = e.name_id"
                     " LEFT JOIN $S.category c ON c.category_id = e.category_id"
                     " WHERE e.event_id = ?1",
                     &q);
  for (size_t k = 0; rc == SQLITE_OK && k + 1 < g->npath; k++) {
    const cp_edge *e = pe[k];
    const cp_node *s = &g->node[g->path[k]], *d = &g->node[g->path[k + 1]];
    const hta_trace *dt = t ? t : &tr->a[g->ev[d->ev].tix];
    if (has_rank && dt->rank != rank) continue;
    hta_cell *row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[0], dt->rank);
    hta_cell_int(&row[1], (int64_t)k);
    hta_cell_int(&row[2], g->ev[s->ev].seq);
    hta_cell_int(&row[3], s->is_start);
    hta_cell_double(&row[4], relUs(s->ts, tr->job_min_ts));
    hta_cell_int(&row[5], g->ev[d->ev].seq);
    hta_cell_int(&row[6], d->is_start);
    hta_cell_double(&row[7], relUs(d->ts, tr->job_min_ts));
    hta_cell_int(&row[21], dt->trace_id);
    if (!t) hta_cell_int(&row[22], tr->a[g->ev[s->ev].tix].rank);
    if (!e) continue;
    hta_cell_static(&row[8], cp_edge_type_name(e->type));
    hta_cell_double(&row[9], e->gw / 1000.0);
    hta_cell_double(&row[10], e->w / 1000.0);
    if (e->attr >= 0) {
      const cp_ev *a = &g->ev[e->attr];
      hta_cell_int(&row[11], a->seq);
      rc = evInfo(q, cls, a->event_id, &row[12], &row[13], &row[14], &row[15]);
      hta_cell_int(&row[16], a->stream);
      hta_cell_int(&row[20], a->event_id);
    }
    if (rc == SQLITE_OK) rc = hta_cell_text(&row[17], boundBy(g, e, row[12].v.s));
    hta_cell_int(&row[18], g->ev[s->ev].event_id);
    hta_cell_int(&row[19], g->ev[d->ev].event_id);
  }
  sqlite3_finalize(q);
  hta_classifier_free(cls);
  sqlite3_free(pe);
  return rc;
}

/* hta_critical_path_summary rows (CP-6) over the path rows just computed into TMP
** (hta_critical_path's columns): per (rank, trace_id) in that order, then bound_by;
** the percentage is of the whole path (every rank's rows, for the job's path). With
** HAS_RANK only the rows of RANK. */
static int emitSummary(const hta_table *tmp, int has_rank, int64_t rank, hta_table *out) {
  static const char *const kinds[] = {"",
                                      "cpu_bound",
                                      "gpu_communication_bound",
                                      "gpu_compute_bound",
                                      "gpu_kernel_kernel_overhead",
                                      "gpu_kernel_launch_overhead"};
  typedef struct {
    int64_t rank, trace_id, sum[6];
    int seen[6];
  } acc;
  acc *v = 0;
  size_t n = 0, cap = 0, hit = 0;
  int64_t total = 0;
  int rc = SQLITE_OK;
  for (size_t r = 0; r < tmp->nrow && rc == SQLITE_OK; r++) {
    const hta_cell *row = tmp->cells + r * tmp->ncol;
    const char *b = row[17].type == SQLITE_TEXT ? row[17].v.s : "";
    /* weight_us back to ns; a weight beyond int64 ns (hostile times) saturates */
    double wd = row[10].type == SQLITE_FLOAT ? row[10].v.d * 1000.0 : 0.0;
    int64_t ns = wd >= 9.2e18    ? INT64_MAX
                 : wd <= -9.2e18 ? INT64_MIN
                                 : (int64_t)(wd + (wd < 0 ? -0.5 : 0.5));
    if (hit >= n || v[hit].trace_id != row[21].v.i) { /* rows of one rank come in runs */
      for (hit = 0; hit < n && v[hit].trace_id != row[21].v.i; hit++) {
      }
      if (hit == n) {
        if (n == cap) {
          acc *w = sqlite3_realloc64(v, (cap = cap ? 2 * cap : 8) * sizeof *w);
          if (!w) {
            rc = SQLITE_NOMEM;
            break;
          }
          v = w;
        }
        memset(&v[n], 0, sizeof v[n]);
        v[n].rank = row[0].v.i;
        v[n++].trace_id = row[21].v.i;
      }
    }
    for (int k = 0; k < 6; k++)
      if (!strcmp(b, kinds[k])) {
        v[hit].sum[k] = hta_add_sat(v[hit].sum[k], ns);
        v[hit].seen[k] = 1;
      }
    total = hta_add_sat(total, ns);
  }
  for (size_t i = 0; i < n && rc == SQLITE_OK; i++) { /* (rank, trace_id) order */
    size_t m = i;
    for (size_t x = i + 1; x < n; x++)
      if (v[x].rank < v[m].rank || (v[x].rank == v[m].rank && v[x].trace_id < v[m].trace_id)) m = x;
    acc t = v[i];
    v[i] = v[m];
    v[m] = t;
    for (int k = 0; k < 6 && rc == SQLITE_OK; k++) {
      if (!v[i].seen[k] || (has_rank && v[i].rank != rank)) continue;
      hta_cell *row = hta_table_add_row(out);
      if (!row) {
        rc = SQLITE_NOMEM;
        break;
      }
      hta_cell_int(&row[0], v[i].rank);
      hta_cell_static(&row[1], kinds[k]);
      hta_cell_double(&row[2], v[i].sum[k] / 1000.0);
      if (total != 0) hta_cell_double(&row[3], (v[i].sum[k] / 1000.0) / (total / 1000.0) * 100.0);
      hta_cell_int(&row[4], v[i].trace_id);
    }
  }
  sqlite3_free(v);
  return rc;
}

static int emitGraph(const hta_traces *tr, const hta_trace *t, const cp_graph *g, hta_table *out) {
  for (size_t j = 0; j < g->nedge; j++) {
    const cp_edge *e = &g->edge[j];
    const cp_node *s = &g->node[e->u], *d = &g->node[e->v];
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    hta_cell_int(&row[0], t->rank);
    hta_cell_int(&row[1], (int64_t)j);
    hta_cell_int(&row[2], e->u);
    hta_cell_int(&row[3], e->v);
    hta_cell_int(&row[4], g->ev[s->ev].seq);
    hta_cell_int(&row[5], s->is_start);
    hta_cell_double(&row[6], relUs(s->ts, tr->job_min_ts));
    hta_cell_int(&row[7], g->ev[d->ev].seq);
    hta_cell_int(&row[8], d->is_start);
    hta_cell_double(&row[9], relUs(d->ts, tr->job_min_ts));
    hta_cell_static(&row[10], cp_edge_type_name(e->type));
    hta_cell_double(&row[11], e->gw / 1000.0);
    hta_cell_double(&row[12], e->w / 1000.0);
    if (e->attr >= 0) hta_cell_int(&row[13], g->ev[e->attr].seq);
    hta_cell_int(&row[14], e->on_path);
    hta_cell_int(&row[15], t->trace_id);
  }
  return SQLITE_OK;
}

/* The graph's nodes: those some edge touches (HTA's networkx graph has no others). */
static int graphNodes(const cp_graph *g, size_t *n) {
  unsigned char *m = sqlite3_malloc64(g->nnode + 1);
  if (!m) return SQLITE_NOMEM;
  memset(m, 0, g->nnode + 1);
  for (size_t j = 0; j < g->nedge; j++) m[g->edge[j].u] = m[g->edge[j].v] = 1;
  *n = 0;
  for (size_t i = 0; i < g->nnode; i++) *n += m[i];
  sqlite3_free(m);
  return SQLITE_OK;
}

/* CP-1: a build's status as hta_critical_path_stats shows it (sqlite3_malloc'd). */
static char *statusText(int status, const char *why) {
  if (status == CP_OK) return sqlite3_mprintf("ok");
  if (status == CP_NO_ANNOTATION) return sqlite3_mprintf("no_annotation");
  if (status == CP_INVALID) return sqlite3_mprintf("invalid");
  return sqlite3_mprintf("failed: %s", why ? why : "?");
}

static int emitStats(const hta_traces *tr, const hta_trace *t, const cp_graph *g, hta_table *out) {
  hta_cell *row = hta_table_add_row(out);
  int rc = SQLITE_OK;
  int64_t len = 0;
  size_t ngn = 0;
  if (!row) return SQLITE_NOMEM;
  hta_cell_int(&row[0], t->rank);
  char *z = statusText(g->status, g->why);
  if (!z) return SQLITE_NOMEM;
  rc = hta_cell_text(&row[1], z);
  sqlite3_free(z);
  if (g->node || g->status == CP_OK) {
    hta_cell_double(&row[2], relUs(g->win_start, tr->job_min_ts));
    hta_cell_double(&row[3], relUs(g->win_end, tr->job_min_ts));
    hta_cell_int(&row[4], (int64_t)g->nkept);
    hta_cell_int(&row[5], (int64_t)g->nnode);
    if (graphNodes(g, &ngn) != SQLITE_OK) return SQLITE_NOMEM;
    hta_cell_int(&row[6], (int64_t)ngn);
    hta_cell_int(&row[7], (int64_t)g->nedge);
  }
  if (g->status == CP_OK) {
    for (size_t j = 0; j < g->nedge; j++)
      if (g->edge[j].on_path) len = hta_add_sat(len, g->edge[j].gw);
    hta_cell_int(&row[8], (int64_t)g->npath);
    hta_cell_double(&row[9], len / 1000.0);
  }
  hta_cell_int(&row[10], t->trace_id);
  return rc;
}

/* emitPath's rows, or with SUMMARY their time by rank and bound_by (emitSummary); either
** only for RANK when HAS_RANK. */
static int emitPathOrSummary(sqlite3 *db, const hta_traces *tr, const hta_trace *t,
                             const cp_graph *g, int summary, int has_rank, int64_t rank,
                             hta_table *out) {
  if (!summary) return emitPath(db, tr, t, g, has_rank, rank, out);
  hta_table tmp = {.ncol = t ? 22 : 23}; /* the job's rows have src_rank too */
  int rc = emitPath(db, tr, t, g, 0, 0, &tmp);
  if (rc == SQLITE_OK) rc = emitSummary(&tmp, has_rank, rank, out);
  hta_table_free(&tmp);
  return rc;
}

static int cpRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr, int what,
                 const char *fn) {
  const char *ann;
  int64_t ia, ib;
  hta_traces tr;
  int rc = cpArgs(a, fn, &ann, &ia, &ib, pzErr);
  if (rc != SQLITE_OK) return rc;
  rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, (int)a->p[P_LAST], &tr);
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < tr.n && rc == SQLITE_OK; i++) {
    cp_graph g;
    rc = cp_graph_build(db, &tr.a[i], ann, ia, ib, (int)a->p[P_ZW], &g);
    if (rc == SQLITE_OK) {
      if (what == F_STATS) rc = emitStats(&tr, &tr.a[i], &g, out);
      else if (what == F_GRAPH) rc = emitGraph(&tr, &tr.a[i], &g, out);
      else if (g.status == CP_OK)
        rc = emitPathOrSummary(db, &tr, &tr.a[i], &g, what == F_SUMMARY, 0, 0, out);
    }
    cp_graph_free(&g);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_traces_free(&tr);
  return rc;
}

/* ---------------------------------------------------------------- the job's path */

enum { F_JOB_PATH, F_JOB_SUMMARY, F_JOB_STATS };

/* The distinct ranks of the traces of TR marked in SEEN (NULL: all); TR is in
** (rank, trace_id) order. */
static int64_t distinctRanks(const hta_traces *tr, const unsigned char *seen) {
  int64_t n = 0;
  for (int i = 0, prev = -1; i < tr->n; i++) {
    if (seen && !seen[i]) continue;
    if (prev < 0 || tr->a[i].rank != tr->a[prev].rank) n++;
    prev = i;
  }
  return n;
}

/* hta_critical_path_job_stats' row (CPJ-1): with no path, why (the first rank left
** out says its own reason). */
static int emitJobStats(const hta_traces *tr, const cp_graph *g, const cp_job_info *info,
                        hta_table *out) {
  hta_cell *row = hta_table_add_row(out);
  if (!row) return SQLITE_NOMEM;
  char *z = 0, *r = 0;
  if (g->status == CP_OK) z = sqlite3_mprintf("ok");
  else if (info->nleft && (r = statusText(info->left_status, info->left_why)))
    z = sqlite3_mprintf("%s (rank %lld: %s)", g->why ? g->why : "failed",
                        (long long)info->left_rank, r);
  else if (!info->nleft) z = sqlite3_mprintf("%s", g->why ? g->why : "failed");
  sqlite3_free(r);
  if (!z) return SQLITE_NOMEM;
  int rc = hta_cell_text(&row[0], z);
  sqlite3_free(z);
  hta_cell_int(&row[1], distinctRanks(tr, 0));
  hta_cell_int(&row[2], info->nleft);
  hta_cell_int(&row[3], (int64_t)info->nlinked);
  size_t ngn;
  if (graphNodes(g, &ngn) != SQLITE_OK) return SQLITE_NOMEM;
  hta_cell_int(&row[4], (int64_t)ngn);
  hta_cell_int(&row[5], (int64_t)g->nedge);
  if (g->status == CP_OK) {
    int64_t len = 0, ranks;
    unsigned char *seen = sqlite3_malloc64(tr->n + 1);
    if (!seen) return SQLITE_NOMEM;
    memset(seen, 0, tr->n + 1);
    for (size_t j = 0; j < g->nedge; j++)
      if (g->edge[j].on_path) len = hta_add_sat(len, g->edge[j].gw);
    for (size_t k = 0; k < g->npath; k++) seen[g->ev[g->node[g->path[k]].ev].tix] = 1;
    ranks = distinctRanks(tr, seen);
    sqlite3_free(seen);
    hta_cell_int(&row[6], (int64_t)g->npath);
    hta_cell_double(&row[7], len / 1000.0);
    hta_cell_int(&row[8], ranks);
    hta_cell_double(&row[9], relUs(g->win_start, tr->job_min_ts));
    hta_cell_double(&row[10], relUs(g->win_end, tr->job_min_ts));
  }
  return rc;
}

static int cpJobRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr, int what,
                    const char *fn) {
  const char *ann;
  int64_t ia, ib;
  hta_traces tr;
  cp_graph g;
  cp_job_info info;
  int rc = cpArgs(a, fn, &ann, &ia, &ib, pzErr);
  if (rc != SQLITE_OK) return rc;
  if (what == F_JOB_STATS && a->has_rank) {
    *pzErr = sqlite3_mprintf("%s: the job's graph spans every rank: no rank to choose", fn);
    return SQLITE_ERROR;
  }
  rc = cp_job_graph_build(db, &a->scope, ann, ia, ib, (int)a->p[P_ZW], (int)a->p[P_LAST], &g, &tr,
                          &info);
  if (rc == SQLITE_OK && tr.n > 0) {
    if (what == F_JOB_STATS) rc = emitJobStats(&tr, &g, &info, out);
    else if (g.status == CP_OK)
      rc = emitPathOrSummary(db, &tr, 0, &g, what == F_JOB_SUMMARY, a->has_rank, a->rank, out);
  }
  cp_graph_free(&g);
  hta_traces_free(&tr);
  return rc;
}

static int cpPathRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpRun(db, a, out, pzErr, F_PATH, "hta_critical_path");
}
static int cpSummaryRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpRun(db, a, out, pzErr, F_SUMMARY, "hta_critical_path_summary");
}
static int cpGraphRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpRun(db, a, out, pzErr, F_GRAPH, "hta_critical_path_graph");
}
static int cpStatsRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpRun(db, a, out, pzErr, F_STATS, "hta_critical_path_stats");
}

static int cpJobPathRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpJobRun(db, a, out, pzErr, F_JOB_PATH, "hta_critical_path_job");
}
static int cpJobSummaryRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpJobRun(db, a, out, pzErr, F_JOB_SUMMARY, "hta_critical_path_job_summary");
}
static int cpJobStatsRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  return cpJobRun(db, a, out, pzErr, F_JOB_STATS, "hta_critical_path_job_stats");
}

#define CP_PATH_COLS                                                                              \
  "rank INTEGER, path_pos INTEGER, src_event_seq INTEGER, src_is_start INTEGER,"                  \
  " src_ts_us REAL, dst_event_seq INTEGER, dst_is_start INTEGER, dst_ts_us REAL, edge_type TEXT," \
  " weight_us REAL, duration_us REAL, event_seq INTEGER, name TEXT, cat TEXT, pid, tid,"          \
  " stream INTEGER, bound_by TEXT, src_event_id INTEGER, dst_event_id INTEGER,"                   \
  " event_id INTEGER, trace_id INTEGER,"
#define CP_SUMMARY_COLS \
  "rank INTEGER, bound_by TEXT, duration_us REAL, percentage REAL, trace_id INTEGER,"

static const hta_tvf cpPath = {
    "hta_critical_path", "CREATE TABLE x(" CP_PATH_COLS CP_PARAMS, 22, 0, 4, cpParams, cpPathRun,
};
static const hta_tvf cpSummary = {
    "hta_critical_path_summary",
    "CREATE TABLE x(" CP_SUMMARY_COLS CP_PARAMS,
    5,
    0,
    4,
    cpParams,
    cpSummaryRun,
};
static const hta_tvf cpGraph = {
    "hta_critical_path_graph",
    "CREATE TABLE x(rank INTEGER, edge_pos INTEGER, src_node INTEGER, dst_node INTEGER,"
    " src_event_seq INTEGER, src_is_start INTEGER, src_ts_us REAL, dst_event_seq INTEGER,"
    " dst_is_start INTEGER, dst_ts_us REAL, edge_type TEXT, weight_us REAL, duration_us REAL,"
    " event_seq INTEGER, on_path INTEGER, trace_id INTEGER," CP_PARAMS,
    16,
    0,
    4,
    cpParams,
    cpGraphRun,
};
static const hta_tvf cpStats = {
    "hta_critical_path_stats",
    "CREATE TABLE x(rank INTEGER, status TEXT, window_start_us REAL, window_end_us REAL,"
    " clipped_events INTEGER, event_nodes INTEGER, graph_nodes INTEGER, graph_edges INTEGER,"
    " path_nodes INTEGER, path_length_us REAL, trace_id INTEGER," CP_PARAMS,
    11,
    0,
    4,
    cpParams,
    cpStatsRun,
};

static const hta_tvf cpJobPath = {
    "hta_critical_path_job",
    "CREATE TABLE x(" CP_PATH_COLS " src_rank INTEGER," CP_PARAMS,
    23,
    0,
    4,
    cpParams,
    cpJobPathRun,
};
static const hta_tvf cpJobSummary = {
    "hta_critical_path_job_summary",
    "CREATE TABLE x(" CP_SUMMARY_COLS CP_PARAMS,
    5,
    0,
    4,
    cpParams,
    cpJobSummaryRun,
};
static const hta_tvf cpJobStats = {
    "hta_critical_path_job_stats",
    "CREATE TABLE x(status TEXT, ranks INTEGER, ranks_left_out INTEGER,"
    " collectives_joined INTEGER, graph_nodes INTEGER, graph_edges INTEGER, path_nodes INTEGER,"
    " path_length_us REAL, path_ranks INTEGER, window_start_us REAL, window_end_us REAL,"
    " annotation HIDDEN, instance_id HIDDEN, add_zero_weight_launch_edges HIDDEN,"
    " include_last_profiler_step HIDDEN, rank HIDDEN)",
    11,
    15,
    4,
    cpParams,
    cpJobStatsRun,
};

int hta_register_critical_path(sqlite3 *db) {
  static const hta_tvf *const defs[] = {&cpPath,    &cpSummary,    &cpGraph,   &cpStats,
                                        &cpJobPath, &cpJobSummary, &cpJobStats};
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

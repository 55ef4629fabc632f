/*
** io_critical_path.c: hta_write_critical_path_overlay, HTA's
** overlay_critical_path_analysis (spec hta_semantics.md 5.12): a copy of a
** trace file where the events of the critical path carry args.critical = 1 and
** flow arrows show its dependency, launch-delay and sync edges. Io entry point
** only (SQLITE_DIRECTONLY, see io.c).
**
**   SELECT hta_write_critical_path_overlay(0, 'ProfilerStep', 1, 'cp_rank0.json.gz');
**   SELECT hta_write_critical_path_overlay(0, '', NULL, 'cp.json', 1);     -- zero-weight edges
**   SELECT hta_write_critical_path_overlay(NULL, '', NULL, 'cp.json', 0, 3); -- trace_id 3
**
** hta_write_critical_path_overlay(rank, annotation, instance_id, path
**                                 [, add_zero_weight_launch_edges [, trace_id]])
**   rank, trace_id          which trace (io_rewrite.c IO-1)
**   annotation, instance_id as for hta_critical_path (NULL annotation: 'ProfilerStep')
**   path                    the file to write: gzip when it ends in ".gz"
** Returns the number of events marked critical.
**
** Requirements (tests cite them as CO-n; IO-1..5 of io_rewrite.c apply):
**  1. The critical events are those of the nodes of hta_critical_path's path (the
**     same call); each gets args.critical = 1 (trace_writer.h TW-3).
**  2. For each path edge of type dependency, kernel launch delay or sync
**     dependency, in path order, two flow events are appended (ids from 0):
**     {"ph":"s","id":K,"pid":P,"tid":T,"ts":TS,"cat":"critical_path",
**      "name":"critical_path","args":{"weight":W,"critical":true,"type":TYPE}}
**     at the source node's event, and the same with "ph":"f" and "bp":"e" at the
**     destination's. TS = the event's ts for a start node, else ts + dur minus
**     min(1 us, dur) for events with a device; truncated to whole us. W = the
**     edge's duration truncated to whole us; P and T as stored.
**  3. No path (HTA returns None, raises or finds the graph invalid): an error
**     "<fn>: PATH: no critical path (STATUS)" and nothing is written.
**
** Deliberate difference from HTA: the other events are kept (HTA's default
** only_show_critical_events drops every non-critical X event except
** user_annotation and python_function ones); find the path with args.critical.
*/
#include <stdio.h>
#include <string.h>

#include "critical_path/critical_path.h"
#include "io/io.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct io_cp {
  io_hook_status st; /* first: see io_hook_status */
  sqlite3 *db;
  const cp_graph *g;
  int64_t *seqs; /* the critical events' seqs, ascending, distinct */
  size_t nseq, next;
  sqlite3_stmt *q; /* pid, tid, device of an event */
} io_cp;

static int cmpI64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* tw_hooks.patch: "1" for a critical event (CO-1). */
static const char *ioCpPatch(void *ctx, int64_t seq, size_t *n) {
  io_cp *v = ctx;
  while (v->next < v->nseq && v->seqs[v->next] < seq) v->next++;
  if (v->next >= v->nseq || v->seqs[v->next] != seq) return NULL;
  *n = 1;
  return "1";
}

/* Writes a pid or tid value as stored (an integer or a JSON string). */
static int ioCpValue(tw_out *o, sqlite3_stmt *q, int col) {
  char buf[32];
  if (sqlite3_column_type(q, col) == SQLITE_TEXT) {
    const char *s = (const char *)sqlite3_column_text(q, col);
    return s ? tw_string(o, s, (size_t)sqlite3_column_bytes(q, col)) : -1;
  }
  snprintf(buf, sizeof buf, "%lld", (long long)sqlite3_column_int64(q, col));
  return tw_puts(o, buf);
}

/* One flow event at node NODE of edge E (CO-2). */
static int ioCpFlow(io_cp *v, tw_out *o, int *comma, const cp_edge *e, int node, int64_t id,
                    int start) {
  const cp_node *nd = &v->g->node[node];
  const cp_ev *ev = &v->g->ev[nd->ev];
  char buf[160];
  int rc;
  int64_t ts;
  sqlite3_bind_int64(v->q, 1, ev->event_id);
  rc = sqlite3_step(v->q);
  if (rc != SQLITE_ROW) {
    v->st.rc = rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
    sqlite3_reset(v->q);
    return -1;
  }
  ts = ev->ts;
  if (!nd->is_start) {
    ts = hta_end(ev->ts, ev->dur);
    if (sqlite3_column_type(v->q, 2) != SQLITE_NULL && sqlite3_column_int64(v->q, 2) >= 0)
      ts -= ev->dur < 1000 ? ev->dur : 1000;
  }
  snprintf(buf, sizeof buf, "{\"ph\":\"%s\",\"id\":%lld,\"pid\":", start ? "s" : "f",
           (long long)id);
  rc = tw_sep(o, comma) || tw_puts(o, buf) || ioCpValue(o, v->q, 0) || tw_puts(o, ",\"tid\":") ||
       ioCpValue(o, v->q, 1);
  sqlite3_reset(v->q);
  if (rc) return -1;
  snprintf(buf, sizeof buf,
           ",\"ts\":%lld,\"cat\":\"critical_path\",\"name\":\"critical_path\",\"args\":{"
           "\"weight\":%lld,\"critical\":true,\"type\":\"%s\"}%s}",
           (long long)(ts / 1000), (long long)(e->w / 1000), cp_edge_type_name(e->type),
           start ? "" : ",\"bp\":\"e\"");
  return tw_puts(o, buf);
}

/* tw_hooks.append: the flow events (CO-2). */
static int ioCpAppend(void *ctx, tw_out *o, int *comma) {
  io_cp *v = ctx;
  const cp_graph *g = v->g;
  const cp_edge **pe = 0;
  int64_t id = 0;
  int rc = cp_path_edges(g, &pe) == SQLITE_OK ? 0 : -1;
  for (size_t k = 0; rc == 0 && k + 1 < g->npath; k++) {
    const cp_edge *e = pe[k];
    if (!e || (e->type != CP_DEPENDENCY && e->type != CP_LAUNCH_DELAY && e->type != CP_SYNC))
      continue;
    rc = ioCpFlow(v, o, comma, e, e->u, id, 1) || ioCpFlow(v, o, comma, e, e->v, id, 0) ? -1 : 0;
    id++;
  }
  sqlite3_free(pe);
  return rc;
}

static int ioCpWrite(sqlite3 *db, const hta_io_sel *sel, const char *ann, int64_t a, int64_t b,
                     int zw, const char *out, int64_t *pcount, char **pzErr) {
  io_trace t;
  hta_trace ht;
  cp_graph g;
  io_cp v;
  tw_hooks hooks;
  int found;
  int rc = ioPickTrace(db, sel, &t, &ht, &found, pzErr);
  *pcount = 0;
  if (rc != SQLITE_OK) return rc;
  memset(&g, 0, sizeof g);
  memset(&v, 0, sizeof v);
  if (found) rc = cp_graph_build(db, &ht, ann, a, b, zw, &g);
  if (rc == SQLITE_OK && (!found || g.status != CP_OK)) { /* CO-3 */
    *pzErr = sqlite3_mprintf("no critical path (%s)", !found ? "no events" : g.why ? g.why : "");
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    v.db = db;
    v.g = &g;
    v.seqs = sqlite3_malloc64((g.npath ? g.npath : 1) * sizeof *v.seqs);
    if (!v.seqs) rc = SQLITE_NOMEM;
    for (size_t k = 0; rc == SQLITE_OK && k < g.npath; k++)
      v.seqs[v.nseq++] = g.ev[g.node[g.path[k]].ev].seq;
    if (rc == SQLITE_OK) {
      size_t m = 0;
      qsort(v.seqs, v.nseq, sizeof *v.seqs, cmpI64);
      for (size_t k = 0; k < v.nseq; k++)
        if (m == 0 || v.seqs[m - 1] != v.seqs[k]) v.seqs[m++] = v.seqs[k];
      v.nseq = m;
      rc = hta_prepare(db, ht.schema, "SELECT pid, tid, device FROM $S.event WHERE event_id = ?1",
                       &v.q);
    }
  }
  if (rc == SQLITE_OK) {
    memset(&hooks, 0, sizeof hooks);
    hooks.ctx = &v;
    hooks.patch_key = "critical";
    hooks.patch = ioCpPatch;
    hooks.append = ioCpAppend;
    rc = ioRewrite(db, &t, out, &hooks, pcount, pzErr);
  } else if (rc != SQLITE_ERROR && rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT && !*pzErr) {
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(v.q);
  sqlite3_free(v.seqs);
  sqlite3_free(v.st.zErr);
  cp_graph_free(&g);
  ioTraceFree(&t);
  return rc;
}

/* hta_write_critical_path_overlay(rank, annotation, instance_id, path [, zw [, trace_id]]) */
void hta_io_critical_path_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const char fn[] = "hta_write_critical_path_overlay";
  hta_io_sel sel;
  const char *path, *ann = "ProfilerStep";
  int64_t a, b, zw = 0, n = 0;
  char *err = 0;
  int rc;
  if (!ioSelArgs(ctx, fn, argv[0], argc > 5 ? argv[5] : 0, &sel)) return;
  if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
      sqlite3_result_error(ctx, "hta_write_critical_path_overlay: annotation must be text", -1);
      return;
    }
    if (!(ann = (const char *)sqlite3_value_text(argv[1]))) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (!cp_parse_instance(argv[2], &a, &b)) {
    sqlite3_result_error(
        ctx, "hta_write_critical_path_overlay: instance_id must be an integer or '[a, b]'", -1);
    return;
  }
  if (!(path = ioPathArg(ctx, fn, argv[3]))) return;
  if (argc > 4 && (!hta_value_int64(argv[4], &zw) || zw < 0 || zw > 1)) {
    sqlite3_result_error(
        ctx, "hta_write_critical_path_overlay: add_zero_weight_launch_edges must be 0 or 1", -1);
    return;
  }
  rc = ioCpWrite(sqlite3_context_db_handle(ctx), &sel, ann, a, b, (int)zw, path, &n, &err);
  ioResult(ctx, fn, path, rc, n, err);
  sqlite3_free(err);
}

/*
** graph_kernels.c: the graph match (graph_match.c) as three table-valued functions.
**
**   SELECT match, match_rule, count(*) FROM hta_graph_kernels GROUP BY 1, 2;
**   SELECT name, op_name, op_input_dims FROM hta_graph_kernels WHERE match = 'matched';
**   SELECT * FROM hta_graph_launches WHERE result <> 'merged';
**   SELECT rank, coverage FROM hta_graph_coverage;
**
** hta_graph_kernels: one row per GPU event of every profiled trace that has a graph
**   launch (KG-1), by (rank, trace_id, kernel_seq): rank, kernel_event_id, kernel_seq
**   (its position in traceEvents), name, stream, ts_us, dur_us, graph_launch_event_id,
**   graph_pos, match ('matched', 'unmatched', 'eager', 'unlinked'), match_rule,
**   unmatched_reason, capture_trace_id, capture_window, capture_launch_pos,
**   capture_launch_event_id, capture_launch_seq (the dispatch's position in the capture
**   file), op_event_id, op_seq (the operator's position in its file: the capture's for
**   a matched kernel, else the replay's), op_name, op_input_dims (its recorded Input
**   Dims, JSON), graph_node_id, trace_id.
** hta_graph_launches: one row per graph launch, by (rank, trace_id, ts): rank,
**   graph_launch_event_id, graph_launch_seq, ts_us, dur_us, gpu_events, gpu_time_us,
**   root_event_id, batch_size, capture_batch_size, capture_trace_id, capture_window,
**   capture_dispatches, multistream, match_rule, matched, unmatched,
**   discarded_dispatches, result ('merged': every GPU event matched, 'partial',
**   'unmatched'), unmatched_reason, trace_id.
** hta_graph_coverage: one row per profiled trace that has a graph launch: rank,
**   gpu_events, replayed (GPU events under graph launches), matched (of those, matched
**   with a captured operator), replayed_us, matched_us (their summed durations),
**   coverage (matched_us / replayed_us), launches, launches_merged, trace_id.
**
** Requirements (tests cite them as KG-n):
**  1. The traces are the job's profiled traces (never a capture), whole (no last-step
**     cut); a trace without a GPU event under a graph launch has no row in any of them.
**  2. Times are µs (REAL) from integer ns; coverage is NULL when replayed_us is 0.
*/
#include <string.h>

#include "graph/graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- lookups */
typedef struct kg_look {
  sqlite3_stmt *seq; /* an event's seq */
  sqlite3_stmt *op;  /* an operator's seq, name, args */
} kg_look;

static int kgSeq(kg_look *q, int64_t id, hta_cell *c) {
  int rc;
  sqlite3_reset(q->seq);
  sqlite3_bind_int64(q->seq, 1, id);
  rc = sqlite3_step(q->seq);
  if (rc == SQLITE_ROW) hta_cell_int(c, sqlite3_column_int64(q->seq, 0));
  sqlite3_reset(q->seq);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The operator's seq, name and Input Dims into three cells. */
static int kgOp(kg_look *q, int64_t id, hta_cell *seq, hta_cell *name, hta_cell *dims) {
  static const hta_jkey kdims[1] = {HTA_JKEY("Input Dims")};
  int rc;
  sqlite3_reset(q->op);
  sqlite3_bind_int64(q->op, 1, id);
  rc = sqlite3_step(q->op);
  if (rc == SQLITE_ROW) {
    const char *args = (const char *)sqlite3_column_text(q->op, 2);
    hta_jval v[1];
    hta_cell_int(seq, sqlite3_column_int64(q->op, 0));
    rc = hta_cell_text(name, (const char *)sqlite3_column_text(q->op, 1));
    hta_json_members(args, args ? sqlite3_column_bytes(q->op, 2) : 0, kdims, 1, v);
    if (rc == SQLITE_OK && v[0].p) {
      char *z = sqlite3_mprintf("%.*s", v[0].n, v[0].p);
      rc = z ? hta_cell_text(dims, z) : SQLITE_NOMEM;
      sqlite3_free(z);
    }
    if (rc == SQLITE_OK) rc = SQLITE_ROW;
  }
  sqlite3_reset(q->op);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int kgLookOpen(sqlite3 *db, const char *schema, kg_look *q) {
  int rc = hta_prepare(db, schema, "SELECT seq FROM $S.event WHERE event_id = ?1", &q->seq);
  if (rc == SQLITE_OK)
    rc = hta_prepare(db, schema,
                     "SELECT e.seq, s.value, e.args FROM $S.event e"
                     " LEFT JOIN $S.string s ON s.string_id = e.name_id WHERE e.event_id = ?1",
                     &q->op);
  return rc;
}

static void kgLookClose(kg_look *q) {
  sqlite3_finalize(q->seq);
  sqlite3_finalize(q->op);
}

/* Runs FN for every profiled trace of the scope with its match (KG-1). */
static int kgForeach(sqlite3 *db, const hta_tvf_args *a, int flags,
                     int (*fn)(sqlite3 *, const hta_trace *, const hg_attr *, hta_table *,
                               kg_look *),
                     hta_table *out) {
  hta_traces tr;
  kg_look q = {0, 0};
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1, &tr);
  if (rc != SQLITE_OK) return rc;
  rc = kgLookOpen(db, a->scope.schema, &q);
  for (int i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    hg_attr ga;
    rc = hg_attr_load(db, &tr.a[i], flags, &ga);
    if (rc == SQLITE_OK && ga.nl) rc = fn(db, &tr.a[i], &ga, out, &q);
    hg_attr_free(&ga);
  }
  kgLookClose(&q);
  hta_traces_free(&tr);
  return rc;
}

/* ---------------------------------------------------------------- hta_graph_kernels */
static const char kgSchema[] =
    "CREATE TABLE x(rank INTEGER, kernel_event_id INTEGER, kernel_seq INTEGER, name TEXT,"
    " stream INTEGER, ts_us REAL, dur_us REAL, graph_launch_event_id INTEGER, graph_pos INTEGER,"
    " match TEXT, match_rule TEXT, unmatched_reason TEXT, capture_trace_id INTEGER,"
    " capture_window INTEGER, capture_launch_pos INTEGER, capture_launch_event_id INTEGER,"
    " capture_launch_seq INTEGER, op_event_id INTEGER, op_seq INTEGER, op_name TEXT,"
    " op_input_dims TEXT, graph_node_id INTEGER, trace_id INTEGER)";
enum {
  KG_RANK,
  KG_EVENT_ID,
  KG_SEQ,
  KG_NAME,
  KG_STREAM,
  KG_TS,
  KG_DUR,
  KG_LAUNCH,
  KG_POS,
  KG_MATCH,
  KG_RULE,
  KG_REASON,
  KG_CAPTURE,
  KG_WINDOW,
  KG_DPOS,
  KG_DISPATCH,
  KG_DSEQ,
  KG_OP,
  KG_OP_SEQ,
  KG_OP_NAME,
  KG_OP_DIMS,
  KG_NODE,
  KG_TRACE_ID,
  KG_NCOL
};

static int kgKernels(sqlite3 *db, const hta_trace *t, const hg_attr *ga, hta_table *out,
                     kg_look *q) {
  int32_t *slots = sqlite3_malloc64((ga->nk ? ga->nk : 1) * sizeof *slots);
  char **names = 0;
  size_t nnames = 0;
  int rc = slots ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) slots[i] = ga->k[i].name_id;
  if (rc == SQLITE_OK) rc = hta_name_slots(db, t->schema, slots, ga->nk, &names, &nnames);
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) {
    const hg_kernel *k = &ga->k[i];
    const hg_launch *l = k->launch >= 0 ? &ga->l[k->launch] : 0;
    hta_cell *row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[KG_RANK], t->rank);
    hta_cell_int(&row[KG_EVENT_ID], k->event_id);
    hta_cell_int(&row[KG_SEQ], k->seq);
    if (slots[i] >= 0) rc = hta_cell_text(&row[KG_NAME], names[slots[i]]);
    hta_cell_int(&row[KG_STREAM], k->stream);
    hta_cell_double(&row[KG_TS], (double)k->ts / 1000.0);
    hta_cell_double(&row[KG_DUR], (double)k->dur / 1000.0);
    if (l) {
      hta_cell_int(&row[KG_LAUNCH], l->event_id);
      hta_cell_int(&row[KG_POS], k->graph_pos);
    }
    hta_cell_static(&row[KG_MATCH], hg_match_name(k->match));
    if (hg_rule_name(k->rule)) hta_cell_static(&row[KG_RULE], hg_rule_name(k->rule));
    if (hg_reason_name(k->reason)) hta_cell_static(&row[KG_REASON], hg_reason_name(k->reason));
    if (k->match == HG_MATCHED) {
      hta_cell_int(&row[KG_CAPTURE], l->capture_trace_id);
      hta_cell_int(&row[KG_WINDOW], ga->w[l->window].index);
      hta_cell_int(&row[KG_DPOS], k->dpos);
      hta_cell_int(&row[KG_DISPATCH], k->dispatch_id);
      if (rc == SQLITE_OK) rc = kgSeq(q, k->dispatch_id, &row[KG_DSEQ]);
    }
    if (k->op_id) {
      hta_cell_int(&row[KG_OP], k->op_id);
      if (rc == SQLITE_OK)
        rc = kgOp(q, k->op_id, &row[KG_OP_SEQ], &row[KG_OP_NAME], &row[KG_OP_DIMS]);
    }
    if (k->node >= 0) hta_cell_int(&row[KG_NODE], k->node);
    hta_cell_int(&row[KG_TRACE_ID], t->trace_id);
  }
  sqlite3_free(slots);
  hta_names_free(names, nnames);
  return rc;
}

static int kgKernelsRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return kgForeach(db, a, HG_EAGER_OPS, kgKernels, out);
}

static const hta_tvf kgKernelsTvf = {
    .name = "hta_graph_kernels",
    .schema = kgSchema,
    .nvisible = KG_NCOL,
    .rank_col = KG_RANK,
    .nparam = 0,
    .params = 0,
    .run = kgKernelsRun,
};

/* ---------------------------------------------------------------- hta_graph_launches */
static const char klSchema[] =
    "CREATE TABLE x(rank INTEGER, graph_launch_event_id INTEGER, graph_launch_seq INTEGER,"
    " ts_us REAL, dur_us REAL, gpu_events INTEGER, gpu_time_us REAL, root_event_id INTEGER,"
    " batch_size INTEGER, capture_batch_size INTEGER, capture_trace_id INTEGER,"
    " capture_window INTEGER, capture_dispatches INTEGER, multistream INTEGER, match_rule TEXT,"
    " matched INTEGER, unmatched INTEGER, discarded_dispatches INTEGER, result TEXT,"
    " unmatched_reason TEXT, trace_id INTEGER)";
enum {
  KL_RANK,
  KL_EVENT_ID,
  KL_SEQ,
  KL_TS,
  KL_DUR,
  KL_GPU,
  KL_GPU_TIME,
  KL_ROOT,
  KL_BATCH,
  KL_CAPTURE_BATCH,
  KL_CAPTURE,
  KL_WINDOW,
  KL_DISPATCHES,
  KL_MULTI,
  KL_RULE,
  KL_MATCHED,
  KL_UNMATCHED,
  KL_DISCARDED,
  KL_RESULT,
  KL_REASON,
  KL_TRACE_ID,
  KL_NCOL
};

static int klLaunches(sqlite3 *db, const hta_trace *t, const hg_attr *ga, hta_table *out,
                      kg_look *q) {
  (void)db;
  (void)q;
  for (size_t i = 0; i < ga->nl; i++) {
    const hg_launch *l = &ga->l[i];
    hta_cell *row = hta_table_add_row(out);
    int64_t gpu_ns = 0;
    if (!row) return SQLITE_NOMEM;
    for (int32_t j = 0; j < l->nk; j++)
      gpu_ns = hta_add_sat(gpu_ns, ga->k[ga->lk[l->first + j]].dur);
    hta_cell_int(&row[KL_RANK], t->rank);
    hta_cell_int(&row[KL_EVENT_ID], l->event_id);
    hta_cell_int(&row[KL_SEQ], l->seq);
    hta_cell_double(&row[KL_TS], (double)l->ts / 1000.0);
    hta_cell_double(&row[KL_DUR], (double)l->dur / 1000.0);
    hta_cell_int(&row[KL_GPU], l->nk);
    hta_cell_double(&row[KL_GPU_TIME], (double)gpu_ns / 1000.0);
    if (l->root_id) hta_cell_int(&row[KL_ROOT], l->root_id);
    if (l->batch >= 0) hta_cell_int(&row[KL_BATCH], l->batch);
    if (l->capture_trace_id) {
      if (l->capture_batch >= 0) hta_cell_int(&row[KL_CAPTURE_BATCH], l->capture_batch);
      hta_cell_int(&row[KL_CAPTURE], l->capture_trace_id);
    }
    if (l->window >= 0) {
      hta_cell_int(&row[KL_WINDOW], ga->w[l->window].index);
      hta_cell_int(&row[KL_DISPATCHES], ga->w[l->window].ndispatch);
      hta_cell_int(&row[KL_MULTI], l->multistream);
      hta_cell_int(&row[KL_DISCARDED], l->discarded);
    }
    if (hg_rule_name(l->rule)) hta_cell_static(&row[KL_RULE], hg_rule_name(l->rule));
    hta_cell_int(&row[KL_MATCHED], l->matched);
    hta_cell_int(&row[KL_UNMATCHED], l->nk - l->matched);
    hta_cell_static(&row[KL_RESULT], l->matched == l->nk ? "merged"
                                     : l->matched        ? "partial"
                                                         : "unmatched");
    if (hg_reason_name(l->reason)) hta_cell_static(&row[KL_REASON], hg_reason_name(l->reason));
    hta_cell_int(&row[KL_TRACE_ID], t->trace_id);
  }
  return SQLITE_OK;
}

static int klRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return kgForeach(db, a, 0, klLaunches, out);
}

static const hta_tvf klTvf = {
    .name = "hta_graph_launches",
    .schema = klSchema,
    .nvisible = KL_NCOL,
    .rank_col = KL_RANK,
    .nparam = 0,
    .params = 0,
    .run = klRun,
};

/* ---------------------------------------------------------------- hta_graph_coverage */
static const char kcSchema[] =
    "CREATE TABLE x(rank INTEGER, gpu_events INTEGER, replayed INTEGER, matched INTEGER,"
    " replayed_us REAL, matched_us REAL, coverage REAL, launches INTEGER,"
    " launches_merged INTEGER, trace_id INTEGER)";
enum {
  KC_RANK,
  KC_GPU,
  KC_REPLAYED,
  KC_MATCHED,
  KC_REPLAYED_US,
  KC_MATCHED_US,
  KC_COVERAGE,
  KC_LAUNCHES,
  KC_MERGED,
  KC_TRACE_ID,
  KC_NCOL
};

static int kcCoverage(sqlite3 *db, const hta_trace *t, const hg_attr *ga, hta_table *out,
                      kg_look *q) {
  hta_cell *row = hta_table_add_row(out);
  int64_t merged = 0;
  (void)db;
  (void)q;
  if (!row) return SQLITE_NOMEM;
  for (size_t i = 0; i < ga->nl; i++) merged += ga->l[i].matched == ga->l[i].nk;
  hta_cell_int(&row[KC_RANK], t->rank);
  hta_cell_int(&row[KC_GPU], (int64_t)ga->nk);
  hta_cell_int(&row[KC_REPLAYED], (int64_t)ga->nreplayed);
  hta_cell_int(&row[KC_MATCHED], (int64_t)ga->nmatched);
  hta_cell_double(&row[KC_REPLAYED_US], (double)ga->replayed_ns / 1000.0);
  hta_cell_double(&row[KC_MATCHED_US], (double)ga->matched_ns / 1000.0);
  if (ga->replayed_ns > 0)
    hta_cell_double(&row[KC_COVERAGE], (double)ga->matched_ns / (double)ga->replayed_ns);
  hta_cell_int(&row[KC_LAUNCHES], (int64_t)ga->nl);
  hta_cell_int(&row[KC_MERGED], merged);
  hta_cell_int(&row[KC_TRACE_ID], t->trace_id);
  return SQLITE_OK;
}

static int kcRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return kgForeach(db, a, 0, kcCoverage, out);
}

static const hta_tvf kcTvf = {
    .name = "hta_graph_coverage",
    .schema = kcSchema,
    .nvisible = KC_NCOL,
    .rank_col = KC_RANK,
    .nparam = 0,
    .params = 0,
    .run = kcRun,
};

int hta_register_graph(sqlite3 *db) {
  static const hta_tvf *const defs[] = {&kgKernelsTvf, &klTvf, &kcTvf};
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

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
#include <stdlib.h>
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

/* An event the rows refer to (a dispatch or an operator), looked up once: its seq, and
** an operator's name and Input Dims (texts kept by the table). */
typedef struct kg_ref {
  int64_t id, seq;
  const char *name, *dims;
} kg_ref;

static int kgRefCmp(const void *a, const void *b) {
  const kg_ref *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Text Z (N bytes; NULL: none) kept by OUT; *pz points at the copy. */
static int kgKeep(hta_table *out, const char *z, int n, const char **pz) {
  char *c;
  *pz = 0;
  if (!z) return SQLITE_OK;
  if (!(c = sqlite3_mprintf("%.*s", n, z))) return SQLITE_NOMEM;
  *pz = c;
  return hta_table_keep(out, c);
}

/* Looks up the distinct ids among V[0..n) (0 skipped) into *pr, sorted by id: with OPS
** their name and Input Dims too. */
static int kgRefs(kg_look *q, const int64_t *v, size_t n, int ops, hta_table *out, kg_ref **pr,
                  size_t *pn) {
  static const hta_jkey kdims[1] = {HTA_JKEY("Input Dims")};
  kg_ref *r = sqlite3_malloc64((n ? n : 1) * sizeof *r);
  size_t m = 0;
  int rc = SQLITE_OK;
  *pr = r;
  *pn = 0;
  if (!r) return SQLITE_NOMEM;
  for (size_t i = 0; i < n; i++) {
    if (v[i]) r[m].id = v[i], m++;
  }
  if (m > 1) qsort(r, m, sizeof *r, kgRefCmp);
  size_t k = 0;
  for (size_t i = 0; i < m; i++) {
    if (i && r[i].id == r[i - 1].id) continue;
    r[k].id = r[i].id;
    r[k].seq = -1;
    r[k].name = r[k].dims = 0;
    k++;
  }
  for (size_t i = 0; i < k && rc == SQLITE_OK; i++) {
    sqlite3_stmt *st = ops ? q->op : q->seq;
    sqlite3_bind_int64(st, 1, r[i].id);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      rc = SQLITE_OK;
      r[i].seq = sqlite3_column_int64(st, 0);
      if (ops) {
        const char *args = (const char *)sqlite3_column_text(st, 2);
        hta_jval jv[1];
        hta_json_members(args, args ? sqlite3_column_bytes(st, 2) : 0, kdims, 1, jv);
        rc = kgKeep(out, (const char *)sqlite3_column_text(st, 1), sqlite3_column_bytes(st, 1),
                    &r[i].name);
        if (rc == SQLITE_OK) rc = kgKeep(out, jv[0].p, jv[0].n, &r[i].dims);
      }
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_OK;
    }
    sqlite3_reset(st);
  }
  *pn = k;
  return rc;
}

static const kg_ref *kgRef(const kg_ref *r, size_t n, int64_t id) {
  kg_ref key = {id, 0, 0, 0};
  return id ? bsearch(&key, r, n, sizeof *r, kgRefCmp) : 0;
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
  int64_t *ids = sqlite3_malloc64((ga->nk ? ga->nk : 1) * sizeof *ids);
  char **names = 0;
  size_t nnames = 0, nops = 0, ndisp = 0;
  kg_ref *ops = 0, *disp = 0;
  int rc = slots && ids ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) slots[i] = ga->k[i].name_id;
  if (rc == SQLITE_OK) rc = hta_name_slots(db, t->schema, slots, ga->nk, &names, &nnames);
  for (size_t i = 0; i < nnames; i++) { /* the table keeps the names (or they go) */
    if (rc == SQLITE_OK) rc = hta_table_keep(out, names[i]);
    else sqlite3_free(names[i]);
  }
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) ids[i] = ga->k[i].op_id;
  if (rc == SQLITE_OK) rc = kgRefs(q, ids, ga->nk, 1, out, &ops, &nops);
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) ids[i] = ga->k[i].dispatch_id;
  if (rc == SQLITE_OK) rc = kgRefs(q, ids, ga->nk, 0, out, &disp, &ndisp);
  for (size_t i = 0; rc == SQLITE_OK && i < ga->nk; i++) {
    const hg_kernel *k = &ga->k[i];
    const hg_launch *l = k->launch >= 0 ? &ga->l[k->launch] : 0;
    const kg_ref *op = kgRef(ops, nops, k->op_id), *d = kgRef(disp, ndisp, k->dispatch_id);
    hta_cell *row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&row[KG_RANK], t->rank);
    hta_cell_int(&row[KG_EVENT_ID], k->event_id);
    hta_cell_int(&row[KG_SEQ], k->seq);
    if (slots[i] >= 0) hta_cell_static(&row[KG_NAME], names[slots[i]]);
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
      if (d && d->seq >= 0) hta_cell_int(&row[KG_DSEQ], d->seq);
    }
    if (op) {
      hta_cell_int(&row[KG_OP], k->op_id);
      if (op->seq >= 0) hta_cell_int(&row[KG_OP_SEQ], op->seq);
      if (op->name) hta_cell_static(&row[KG_OP_NAME], op->name);
      if (op->dims) hta_cell_static(&row[KG_OP_DIMS], op->dims);
    }
    if (k->node >= 0) hta_cell_int(&row[KG_NODE], k->node);
    hta_cell_int(&row[KG_TRACE_ID], t->trace_id);
  }
  sqlite3_free(slots);
  sqlite3_free(ids);
  sqlite3_free(names); /* the texts are the table's */
  sqlite3_free(ops);
  sqlite3_free(disp);
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

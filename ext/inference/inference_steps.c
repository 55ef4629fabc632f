/*
** inference_steps.c: hta_inference_steps, the iterations of an inference engine
** (vLLM, SGLang, ATOM, xDiT) with their phase, batch and GPU work, and the
** steady-state windows of each trace.
**
**   SELECT step, phase, batch_size, tokens, dur_us, kernel_us FROM hta_inference_steps;
**   SELECT phase, count(*), avg(dur_us) FROM hta_inference_steps GROUP BY phase;
**   SELECT * FROM hta_inference_steps WHERE steady_window IS NOT NULL AND phase = 'decode';
**   SELECT * FROM hta_inference_steps(4, 0.2);   -- window_min_steps, window_tolerance
**
** Columns: rank, step (0-based, per trace), name (the annotation as written), format
** (whose annotation form: 'vllm', 'sglang', 'atom', 'diffusion'; SGLang with
** TraceLens's patches writes the vLLM form), detailed (1: the annotation carries the
** attention aggregates), phase ('prefill', 'decode', 'mixed', NULL), batch_size
** (requests), tokens, context_requests, generation_requests, context_tokens,
** generation_tokens, start_us (absolute, the trace's clock, as hta_profiler_steps),
** dur_us, graph_launches, kernels, kernel_us, steady_window, event_id, trace_id, job.
** Parameters (HIDDEN): window_min_steps (6), window_tolerance (0.1).
**
** Requirements (tests cite them as IS-n):
**  1. The steps are hta_engine_steps_load's (steps.c STP-2, STP-3): every engine
**     iteration annotation of the trace, outermost per thread, whatever its
**     ProfilerSteps; the whole trace (no last-step cut). Rows by (rank, trace_id, step).
**  2. The fields come from the annotation (engine_ann.c EA-1..5); NULL when it does
**     not say.
**  3. graph_launches: the CUDA/HIP graph launches (a host call whose name contains
**     "graphlaunch", any case) with GPU work, whose [ts, ts + dur] lies inside the
**     step's span. kernels: the GPU events (kernels, copies, memsets) whose launching
**     call starts inside the span; kernel_us: the busy time (union) of those events.
**     GPU events without a launch belong to no step.
**  4. Steady-state windows (per trace): the peak load P is the largest batch_size;
**     a step is at load when batch_size >= P - max(1, window_tolerance * P). A
**     window is a run of at least window_min_steps consecutive steps at load (a step
**     without a batch size ends a run); steady_window numbers the windows from 1, in
**     time order, and is NULL outside them. AMD TraceLens's trace splitter looks for
**     the same thing (concurrency near its peak for more than five steps) before it
**     picks a window; we report every such run and leave the choice to SQL.
**  5. window_min_steps is an integer >= 1, window_tolerance a number in [0, 1]; else
**     "hta_inference_steps: window_min_steps must be an integer >= 1" (tolerance:
**     "a number in [0, 1]").
**
** HOW IT WORKS: per trace, the engine steps (steps.c); none -> no rows and nothing
** else read. Else the trace's GPU rows (gpu.c: each with its launch's ts and name)
** are attributed to the step holding their launch (hta_steps_find), and the windows
** are one pass over the steps.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define IS_SCHEMA                                                                         \
  "CREATE TABLE x(rank INTEGER, step INTEGER, name TEXT, format TEXT, detailed INTEGER,"  \
  " phase TEXT, batch_size INTEGER, tokens INTEGER, context_requests INTEGER,"            \
  " generation_requests INTEGER, context_tokens INTEGER, generation_tokens INTEGER,"      \
  " start_us REAL, dur_us REAL, graph_launches INTEGER, kernels INTEGER, kernel_us REAL," \
  " steady_window INTEGER, event_id INTEGER, trace_id INTEGER, window_min_steps HIDDEN,"  \
  " window_tolerance HIDDEN)"
enum {
  IS_RANK,
  IS_STEP,
  IS_NAME,
  IS_FORMAT,
  IS_DETAILED,
  IS_PHASE,
  IS_BATCH,
  IS_TOKENS,
  IS_CTX_REQ,
  IS_GEN_REQ,
  IS_CTX_TOK,
  IS_GEN_TOK,
  IS_START,
  IS_DUR,
  IS_GRAPHS,
  IS_KERNELS,
  IS_KERNEL_US,
  IS_WINDOW,
  IS_EVENT_ID,
  IS_TRACE_ID,
  IS_NVISIBLE
};
enum { IS_P_MIN_STEPS, IS_P_TOLERANCE };

/* ns -> µs, rounded once: epoch-scale ns do not fit a double exactly, µs do. */
static double isUs(int64_t ns) { return (double)(ns / 1000) + (double)(ns % 1000) / 1000.0; }

/* What each step gathers from the GPU rows (IS-3). */
typedef struct is_acc {
  int64_t kernels, graphs;
  hta_iv *iv; /* the step's GPU intervals */
  size_t niv, aiv;
  int64_t *launches; /* graph launch event ids seen (distinct) */
  size_t nl, al;
} is_acc;

static void accFree(is_acc *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) sqlite3_free(v[i].iv), sqlite3_free(v[i].launches);
  sqlite3_free(v);
}

/* 1 when string id ID is a graph launch name (IDS ascending). */
static int isGraphName(const int32_t *ids, size_t n, int32_t id) {
  return id >= 0 && hta_i32_find(ids, n, id) >= 0;
}

/* The ids of names containing "graphlaunch" (any case), ascending, into *PV. */
static int graphNames(sqlite3 *db, const char *schema, int32_t **pv, size_t *pn) {
  sqlite3_stmt *st = 0;
  size_t a = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT string_id FROM $S.string WHERE value LIKE '%graphlaunch%'"
                       " ORDER BY string_id",
                       &st);
  *pv = 0, *pn = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    HTA_PUSH(*pv, *pn, a, 4, (int32_t)sqlite3_column_int64(st, 0), graph_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
graph_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

/* IS-3: attributes trace T's GPU rows to the steps S, into ACC (one per step). */
static int gatherGpu(sqlite3 *db, const hta_trace *t, const hta_steps *s, const int32_t *gids,
                     size_t ng, is_acc *acc) {
  hta_classifier *cls = 0;
  hta_gpu_rows g;
  memset(&g, 0, sizeof g);
  int rc = hta_classifier_open(db, t->schema, &cls);
  if (rc == SQLITE_OK) rc = hta_gpu_load(db, t, cls, &g);
  for (size_t i = 0; rc == SQLITE_OK && i < g.n; i++) {
    const hta_gpu *k = &g.a[i];
    if (k->launch_ts == INT64_MIN || !k->is_kernel_cat) continue;
    long j = hta_steps_find(s, k->launch_ts);
    if (j < 0) continue;
    is_acc *x = &acc[j];
    const hta_step *st = &s->a[j];
    hta_iv iv = {k->ts, hta_end(k->ts, k->dur)};
    x->kernels++;
    HTA_PUSH(x->iv, x->niv, x->aiv, 16, iv, gpu_oom);
    if (isGraphName(gids, ng, k->launch_name_id) &&
        hta_end(k->launch_ts, k->launch_dur) <= st->end) {
      size_t m = 0;
      while (m < x->nl && x->launches[m] != k->link_id) m++;
      if (m == x->nl) {
        HTA_PUSH(x->launches, x->nl, x->al, 4, k->link_id, gpu_oom);
        x->graphs++;
      }
    }
  }
  goto gpu_end;
gpu_oom:
  rc = SQLITE_NOMEM;
gpu_end:
  hta_gpu_free(&g);
  hta_classifier_free(cls);
  return rc;
}

/* IS-4: the window number of each step into WIN (0: none). */
static void windows(const hta_steps *s, int64_t min_steps, double tol, int64_t *win) {
  int64_t peak = -1, next = 1;
  for (size_t i = 0; i < s->n; i++)
    if (s->a[i].ann.batch_size > peak) peak = s->a[i].ann.batch_size;
  double slack = tol * (double)peak > 1.0 ? tol * (double)peak : 1.0;
  size_t run = 0;
  for (size_t i = 0; i < s->n; i++) win[i] = 0;
  for (size_t i = 0; i <= s->n; i++) {
    int at_load = i < s->n && peak >= 0 && s->a[i].ann.batch_size >= 0 &&
                  (double)s->a[i].ann.batch_size >= (double)peak - slack;
    if (at_load) {
      run++;
      continue;
    }
    if (run >= (size_t)min_steps) {
      for (size_t k = i - run; k < i; k++) win[k] = next;
      next++;
    }
    run = 0;
  }
}

static void cellOpt(hta_cell *c, int64_t v) {
  if (v >= 0) hta_cell_int(c, v);
}

/* The rows of trace T. */
static int traceRows(sqlite3 *db, const hta_tvf_args *a, const hta_trace *t, const int32_t *gids,
                     size_t ng, sqlite3_stmt *qname, hta_table *out) {
  hta_steps s;
  is_acc *acc = 0;
  int64_t *win = 0;
  int rc = hta_engine_steps_load(db, t, &s);
  if (rc != SQLITE_OK || !s.n) goto rows_end;
  acc = sqlite3_malloc64(s.n * sizeof *acc);
  win = sqlite3_malloc64(s.n * sizeof *win);
  if (!acc || !win) goto rows_oom;
  memset(acc, 0, s.n * sizeof *acc);
  if ((rc = gatherGpu(db, t, &s, gids, ng, acc)) != SQLITE_OK) goto rows_end;
  windows(&s, (int64_t)a->p[IS_P_MIN_STEPS], a->p[IS_P_TOLERANCE], win);
  for (size_t i = 0; rc == SQLITE_OK && i < s.n; i++) {
    const hta_step *st = &s.a[i];
    const hta_engine_ann *e = &st->ann;
    hta_cell *row = hta_table_add_row(out);
    if (!row) goto rows_oom;
    hta_cell_int(&row[IS_RANK], t->rank);
    hta_cell_int(&row[IS_STEP], st->number);
    sqlite3_bind_int64(qname, 1, st->name_id);
    if (sqlite3_step(qname) == SQLITE_ROW)
      rc = hta_cell_text(&row[IS_NAME], (const char *)sqlite3_column_text(qname, 0));
    sqlite3_reset(qname);
    hta_cell_static(&row[IS_FORMAT], hta_engine_name(e->format));
    hta_cell_int(&row[IS_DETAILED], e->detailed);
    if (hta_phase_name(e->phase)) hta_cell_static(&row[IS_PHASE], hta_phase_name(e->phase));
    cellOpt(&row[IS_BATCH], e->batch_size);
    cellOpt(&row[IS_TOKENS], e->tokens);
    cellOpt(&row[IS_CTX_REQ], e->ctx_requests);
    cellOpt(&row[IS_GEN_REQ], e->gen_requests);
    cellOpt(&row[IS_CTX_TOK], e->ctx_tokens);
    cellOpt(&row[IS_GEN_TOK], e->gen_tokens);
    hta_cell_double(&row[IS_START], isUs(st->ts));
    hta_cell_double(&row[IS_DUR], (double)hta_sub_sat(st->end, st->ts) / 1000.0);
    hta_cell_int(&row[IS_GRAPHS], acc[i].graphs);
    hta_cell_int(&row[IS_KERNELS], acc[i].kernels);
    size_t m = hta_iv_merge(acc[i].iv, acc[i].niv);
    hta_cell_double(&row[IS_KERNEL_US], (double)hta_iv_length(acc[i].iv, m) / 1000.0);
    if (win[i]) hta_cell_int(&row[IS_WINDOW], win[i]);
    hta_cell_int(&row[IS_EVENT_ID], st->event_id);
    hta_cell_int(&row[IS_TRACE_ID], t->trace_id);
  }
  goto rows_end;
rows_oom:
  rc = SQLITE_NOMEM;
rows_end:
  accFree(acc, s.n);
  sqlite3_free(win);
  hta_steps_free(&s);
  return rc;
}

static int isRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  hta_traces ts;
  sqlite3_stmt *qname = 0;
  int32_t *gids = 0;
  size_t ng = 0;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1, &ts); /* IS-1: no cut */
  if (rc == SQLITE_OK && ts.n) rc = graphNames(db, a->scope.schema, &gids, &ng);
  if (rc == SQLITE_OK && ts.n) rc = hta_prepare(db, a->scope.schema, HTA_SQL_NAME_OF_ID, &qname);
  for (int i = 0; rc == SQLITE_OK && i < ts.n; i++) {
    rc = traceRows(db, a, &ts.a[i], gids, ng, qname, out);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  sqlite3_finalize(qname);
  sqlite3_free(gids);
  hta_traces_free(&ts);
  return rc;
}

static const hta_param isParams[] = {
    {"window_min_steps", 0, 6.0, 1.0, 1e9, "an integer >= 1"},
    {"window_tolerance", 1, 0.1, 0.0, 1.0, "a number in [0, 1]"},
};

static const hta_tvf isTvf = {
    "hta_inference_steps", IS_SCHEMA, IS_NVISIBLE, IS_RANK, 2, isParams, isRun,
};

int hta_register_inference(sqlite3 *db) { return hta_tvf_register(db, &isTvf); }

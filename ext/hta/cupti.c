/*
** cupti.c: hta_cupti_counters, HTA's get_cupti_counter_data_with_operators (spec
** hta_semantics.md 2.10): CUPTI range-profiler counters of each GPU kernel, with
** the CPU operators that launched it. Long format: one row per (kernel, counter).
**
**   SELECT kernel_name, counter, value FROM hta_cupti_counters WHERE rank = 0;
**   SELECT top_level_op, sum(value) FROM hta_cupti_counters
**    WHERE counter = 'smsp__sass_thread_inst_executed_op_ffma_pred_on.sum' GROUP BY 1;
**   (examples/queries/cupti_flops.sql computes FLOPs from the SASS counters.)
**
** Columns: rank, kernel_event_id, kernel_name, op_stack, top_level_op,
** bottom_level_op, counter, value, kernel_seq, launch_seq, trace_id. No parameters.
**   kernel_event_id  event.event_id of the cuda_profiler_range event (join to events)
**   kernel_seq       its event.seq, the traceEvents position (HTA's `index`)
**   launch_seq       the seq of the launch it is paired with (HTA's `index_runtime`)
**   op_stack         JSON array of cpu_op names, outermost first
**
** Requirements (tests cite them as CUP-n):
**  1. Each trace (file) is analysed on its own; WHERE rank = N keeps that rank's
**     traces. Rows come per trace in (rank, trace_id) order.
**  2. Kernels = the trace's events of category 'cuda_profiler_range' (with a dur,
**     before the last-ProfilerStep cut) ordered by (ts, event_id). Launches = events
**     whose category starts with 'cuda_runtime' and whose name starts with
**     'cudaLaunchKernel' (ExC included), same order. The i-th kernel is paired with
**     the i-th launch BY POSITION: these kernels carry no correlation id.
**  3. When the counts differ, the trace gets ONE row instead of silently nothing
**     (HTA dropped the rank): counter = 'error', value, kernel_event_id, kernel_seq,
**     launch_seq, op_stack and the op columns NULL, and kernel_name = "hta_cupti_counters: rank
**     R (trace T): K cuda_profiler_range kernels but L cudaLaunchKernel launches;
**     kernels are paired with launches by position, so none is reported". A trace
**     without cuda_profiler_range events gives no rows.
**  4. op_stack = the launch's ancestors (parent_id chain, which crosses from the
**     backward thread to the main one as HTA's call graph does), the launch and its
**     host descendants, ordered by (ts, depth, event_id), keeping category 'cpu_op'
**     only, as full names. top_level_op = the first, bottom_level_op = the last;
**     both NULL and op_stack '[]' when no cpu_op encloses the launch (HTA raised).
**  5. Counters = every key of the kernel's args JSON, ordered by key (byte order);
**     value = the JSON value as SQL (integer, real, text). A kernel without args
**     has no rows; a counter missing from one kernel but present in others has no
**     row for that kernel (HTA's wide frame shows -1 there).
**
** HOW IT WORKS: per trace, two ordered scans of the trace's rowid range list the
** kernels and the launches. Each launch's ancestors come from rowid lookups along
** parent_id; the descendants of all launches come level by level, one query per
** level for the whole trace (no index on parent_id needed). json_each() unpivots
** the counters.
** The table itself is the generic hta_tvf module of vtab_util.c; the rows of one
** kernel share its name and stack strings (owned by the kernel's first row).
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- schema */
#define CUP_SCHEMA                                                                \
  "CREATE TABLE x(rank INTEGER, kernel_event_id INTEGER, kernel_name TEXT,"       \
  " op_stack TEXT, top_level_op TEXT, bottom_level_op TEXT, counter TEXT, value," \
  " kernel_seq INTEGER, launch_seq INTEGER, trace_id INTEGER)"
#define CUP_RANK 0
#define CUP_KERNEL_EVENT_ID 1
#define CUP_KERNEL_NAME 2
#define CUP_OP_STACK 3
#define CUP_TOP_LEVEL_OP 4
#define CUP_BOTTOM_LEVEL_OP 5
#define CUP_COUNTER 6
#define CUP_VALUE 7
#define CUP_KERNEL_SEQ 8
#define CUP_LAUNCH_SEQ 9
#define CUP_TRACE_ID 10
#define CUP_NCOL 11

/* ---------------------------------------------------------------- analysis */

static const char cup_sql_kernels[] =
    "SELECT e.event_id, e.seq, v.value, e.args FROM $S.event e"
    " LEFT JOIN $S.string v ON v.string_id = e.name_id"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.dur IS NOT NULL AND e.ts < ?3"
    " AND e.category_id = (SELECT category_id FROM $S.category WHERE name = 'cuda_profiler_range')"
    " ORDER BY e.ts, e.event_id";

static const char cup_sql_launches[] =
    "SELECT e.event_id, e.seq FROM $S.event e"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.dur IS NOT NULL AND e.ts < ?3"
    " AND e.category_id IN (SELECT category_id FROM $S.category WHERE name GLOB 'cuda_runtime*')"
    " AND e.name_id IN (SELECT string_id FROM $S.string WHERE value GLOB 'cudaLaunchKernel*')"
    " ORDER BY e.ts, e.event_id";

/* CUP-4, upwards: the cpu_ops among the launch ?1 and its ancestors (rowid lookups):
** event_id, ts, depth (-1 when none), name. ?2 the depth bound. */
static const char cup_sql_up[] =
    "WITH RECURSIVE up(id, lvl) AS (SELECT ?1, 0 UNION ALL"
    "   SELECT e.parent_id, up.lvl + 1 FROM $S.event e JOIN up ON e.event_id = up.id"
    "    WHERE e.parent_id IS NOT NULL AND up.lvl < ?2)"
    " SELECT e.event_id, e.ts, coalesce(e.depth, -1), v.value FROM up"
    " JOIN $S.event e ON e.event_id = up.id"
    " JOIN $S.category c ON c.category_id = e.category_id AND c.name = 'cpu_op'"
    " LEFT JOIN $S.string v ON v.string_id = e.name_id";

/* CUP-4, downwards: the kept host rows whose parent is in the JSON array ?4 (one
** level of every launch's descendants at once; one scan of the trace without an
** index on parent_id): event_id, parent_id, ts, depth, is_cpu_op, name. */
static const char cup_sql_down[] =
    "SELECT e.event_id, e.parent_id, e.ts, coalesce(e.depth, -1),"
    "  e.category_id IS (SELECT category_id FROM $S.category WHERE name = 'cpu_op'), v.value"
    " FROM $S.event e LEFT JOIN $S.string v ON v.string_id = e.name_id"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.stream IS NULL AND e.dur IS NOT NULL"
    "  AND e.ts < ?3 AND e.parent_id IN (SELECT value FROM json_each(?4))";

/* Longest chain followed from a launch, up or down; the bound only stops a corrupt
** parent_id cycle. */
#define CUP_MAX_DEPTH 10000

static const char cup_sql_counters[] =
    "SELECT key, value FROM json_each(CASE WHEN json_valid(?1) THEN ?1 END) ORDER BY key";

/* What the rows of one kernel share; every string is sqlite3_malloc'd. */
typedef struct cup_kernel {
  char *op_stack, *top, *bottom; /* top/bottom NULL for an empty stack */
} cup_kernel;

static void cupKernelFree(cup_kernel *k) {
  sqlite3_free(k->op_stack);
  sqlite3_free(k->top);
  sqlite3_free(k->bottom);
  memset(k, 0, sizeof *k);
}

/* One row of an operator stack. */
typedef struct cup_op {
  sqlite3_int64 id, ts, depth;
  size_t launch; /* the launch (index) it belongs to */
  int is_cpu_op;
  char *name; /* sqlite3_malloc'd */
} cup_op;

typedef struct cup_ops {
  cup_op *a;
  size_t n, nalloc;
} cup_ops;

static void cupOpsFree(cup_ops *o) {
  for (size_t k = 0; k < o->n; k++) sqlite3_free(o->a[k].name);
  sqlite3_free(o->a);
  memset(o, 0, sizeof *o);
}

/* Appends an op; NAME is copied. */
static int cupOpsPush(cup_ops *o, sqlite3_int64 id, sqlite3_int64 ts, sqlite3_int64 depth,
                      size_t launch, int is_cpu_op, const char *name) {
  cup_op x = {id, ts, depth, launch, is_cpu_op, sqlite3_mprintf("%s", name ? name : "")};
  if (!x.name) return SQLITE_NOMEM;
  HTA_PUSH(o->a, o->n, o->nalloc, 64, x, oom);
  return SQLITE_OK;
oom:
  sqlite3_free(x.name);
  return SQLITE_NOMEM;
}

/* Stack order (CUP-4): launch, then ts, depth, event_id. */
static int cupCmpOp(const void *pa, const void *pb) {
  const cup_op *a = pa, *b = pb;
  if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static int cupCmpId(const void *pa, const void *pb) {
  const cup_op *a = pa, *b = pb;
  return a->id < b->id ? -1 : a->id > b->id;
}

/*
** Collects into OPS the cpu_ops of every launch's stack (CUP-4): each launch's
** ancestors through rowid lookups, and the descendants of all launches level by
** level (one query per level). OPS is then sorted by (launch, ts, depth, id).
*/
static int cupCollectStacks(sqlite3 *db, const hta_trace *t, const sqlite3_int64 *launch, size_t nl,
                            cup_ops *ops) {
  sqlite3_stmt *qu = 0, *qd = 0;
  cup_ops front, next; /* the current level of descendants (all host rows) */
  sqlite3_str *js = 0;
  int rc;
  memset(&front, 0, sizeof front);
  memset(&next, 0, sizeof next);

  rc = hta_prepare(db, t->schema, cup_sql_up, &qu);
  if (rc == SQLITE_OK) rc = hta_prepare(db, t->schema, cup_sql_down, &qd);
  if (rc != SQLITE_OK) goto cup_collect_done;
  sqlite3_bind_int64(qu, 2, CUP_MAX_DEPTH);
  for (size_t i = 0; i < nl && rc == SQLITE_OK; i++) {
    sqlite3_bind_int64(qu, 1, launch[i]);
    while ((rc = sqlite3_step(qu)) == SQLITE_ROW) {
      rc = cupOpsPush(ops, sqlite3_column_int64(qu, 0), sqlite3_column_int64(qu, 1),
                      sqlite3_column_int64(qu, 2), i, 1, (const char *)sqlite3_column_text(qu, 3));
      if (rc != SQLITE_OK) break;
    }
    sqlite3_reset(qu);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }

  /* descendants: level 0 is the launches themselves */
  for (size_t i = 0; i < nl && rc == SQLITE_OK; i++)
    rc = cupOpsPush(&front, launch[i], 0, 0, i, 0, 0);
  hta_bind_trace_scan(qd, t);
  for (int level = 0; rc == SQLITE_OK && front.n > 0 && level < CUP_MAX_DEPTH; level++) {
    qsort(front.a, front.n, sizeof *front.a, cupCmpId);
    js = sqlite3_str_new(db);
    sqlite3_str_appendchar(js, 1, '[');
    for (size_t k = 0; k < front.n; k++)
      sqlite3_str_appendf(js, k ? ",%lld" : "%lld", (long long)front.a[k].id);
    sqlite3_str_appendchar(js, 1, ']');
    rc = sqlite3_str_errcode(js);
    char *z = sqlite3_str_finish(js);
    js = 0;
    if (rc != SQLITE_OK || !z) {
      sqlite3_free(z);
      rc = SQLITE_NOMEM;
      break;
    }
    sqlite3_bind_text(qd, 4, z, -1, sqlite3_free);
    while ((rc = sqlite3_step(qd)) == SQLITE_ROW) {
      cup_op key;
      key.id = sqlite3_column_int64(qd, 1);
      const cup_op *p = bsearch(&key, front.a, front.n, sizeof *front.a, cupCmpId);
      if (!p) continue;
      const char *name = (const char *)sqlite3_column_text(qd, 5);
      sqlite3_int64 id = sqlite3_column_int64(qd, 0), ts = sqlite3_column_int64(qd, 2);
      sqlite3_int64 depth = sqlite3_column_int64(qd, 3);
      rc = cupOpsPush(&next, id, ts, depth, p->launch, 0, 0);
      if (rc == SQLITE_OK && sqlite3_column_int(qd, 4))
        rc = cupOpsPush(ops, id, ts, depth, p->launch, 1, name);
      if (rc != SQLITE_OK) break;
    }
    sqlite3_reset(qd);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    cupOpsFree(&front);
    front = next;
    memset(&next, 0, sizeof next);
  }
  if (rc == SQLITE_OK && ops->n > 1) qsort(ops->a, ops->n, sizeof *ops->a, cupCmpOp);

cup_collect_done:
  sqlite3_free(sqlite3_str_finish(js));
  cupOpsFree(&front);
  cupOpsFree(&next);
  sqlite3_finalize(qu);
  sqlite3_finalize(qd);
  return rc;
}

/* Fills K from the stack rows OPS[a..b) of one launch (CUP-4). */
static int cupStack(const cup_op *ops, size_t a, size_t b, cup_kernel *k) {
  sqlite3_str *s = sqlite3_str_new(0);
  int n = 0;
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t x = a; x < b; x++) {
    if (x > a && ops[x].id == ops[x - 1].id) continue; /* the launch: up and down */
    if (n++) sqlite3_str_appendchar(s, 1, ',');
    hta_json_append_string(s, ops[x].name);
  }
  sqlite3_str_appendchar(s, 1, ']');
  int rc = sqlite3_str_errcode(s);
  k->op_stack = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !k->op_stack) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK && b > a) {
    k->top = sqlite3_mprintf("%s", ops[a].name);
    k->bottom = sqlite3_mprintf("%s", ops[b - 1].name);
    if (!k->top || !k->bottom) rc = SQLITE_NOMEM;
  }
  return rc;
}

/* Sets text cell C to S: copied into the table when *SHARED is NULL (and *SHARED then
** points at the copy), else pointing at *SHARED, a string owned by an earlier cell of
** the same table, so it lives exactly as long as this cell. NULL S leaves C NULL. */
static int cupShareText(hta_cell *c, const char *s, const char **shared) {
  if (!s) return SQLITE_OK;
  if (*shared) {
    hta_cell_static(c, *shared);
    return SQLITE_OK;
  }
  if (hta_cell_text(c, s)) return SQLITE_NOMEM;
  *shared = c->v.s;
  return SQLITE_OK;
}

/* Appends the rows of one kernel: one per key of ARGS (CUP-5); LAUNCH_SEQ its launch's seq. */
static int cupEmitKernel(hta_table *out, sqlite3_stmt *qc, const hta_trace *t, sqlite3_stmt *qk,
                         const cup_kernel *k, sqlite3_int64 launch_seq) {
  const char *sname = 0, *sstack = 0, *stop = 0, *sbottom = 0;
  int rc;
  sqlite3_bind_value(qc, 1, sqlite3_column_value(qk, 3));
  while ((rc = sqlite3_step(qc)) == SQLITE_ROW) {
    hta_cell *c = hta_table_add_row(out);
    const char *name = (const char *)sqlite3_column_text(qk, 2);
    const char *key = (const char *)sqlite3_column_text(qc, 0);
    if (!c) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&c[CUP_RANK], t->rank);
    hta_cell_int(&c[CUP_KERNEL_EVENT_ID], sqlite3_column_int64(qk, 0));
    if (cupShareText(&c[CUP_KERNEL_NAME], name ? name : "", &sname) ||
        cupShareText(&c[CUP_OP_STACK], k->op_stack, &sstack) ||
        cupShareText(&c[CUP_TOP_LEVEL_OP], k->top, &stop) ||
        cupShareText(&c[CUP_BOTTOM_LEVEL_OP], k->bottom, &sbottom) ||
        hta_cell_text(&c[CUP_COUNTER], key ? key : "")) {
      rc = SQLITE_NOMEM;
      break;
    }
    switch (sqlite3_column_type(qc, 1)) {
    case SQLITE_INTEGER: hta_cell_int(&c[CUP_VALUE], sqlite3_column_int64(qc, 1)); break;
    case SQLITE_FLOAT: hta_cell_double(&c[CUP_VALUE], sqlite3_column_double(qc, 1)); break;
    case SQLITE_NULL: break;
    default: /* text, or a nested array/object as JSON text */
      if (hta_cell_text(&c[CUP_VALUE], (const char *)sqlite3_column_text(qc, 1))) rc = SQLITE_NOMEM;
      break;
    }
    if (rc == SQLITE_NOMEM) break;
    hta_cell_int(&c[CUP_KERNEL_SEQ], sqlite3_column_int64(qk, 1));
    hta_cell_int(&c[CUP_LAUNCH_SEQ], launch_seq);
    hta_cell_int(&c[CUP_TRACE_ID], t->trace_id);
  }
  sqlite3_reset(qc);
  sqlite3_clear_bindings(qc);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Runs the analysis on trace T and appends its rows to OUT (CUP-2 .. CUP-5). */
static int cupRunTrace(sqlite3 *db, const hta_trace *t, hta_table *out) {
  sqlite3_stmt *qk = 0, *ql = 0, *qc = 0;
  cup_ops ops = {0, 0, 0};
  sqlite3_int64 *launch = 0, *lseq = 0; /* the launches' event_id and seq */
  size_t nl = 0, al = 0, ns = 0, as = 0, nk = 0;
  cup_kernel k;
  int rc;
  memset(&k, 0, sizeof k);

  /* Kernels in order: count them first (CUP-3), pair them by position below. */
  rc = hta_prepare(db, t->schema, cup_sql_kernels, &qk);
  if (rc != SQLITE_OK) goto cup_run_error;
  hta_bind_trace_scan(qk, t);
  while ((rc = sqlite3_step(qk)) == SQLITE_ROW) nk++;
  if (rc != SQLITE_DONE) goto cup_run_error;
  sqlite3_reset(qk);
  rc = SQLITE_OK;
  if (nk == 0) goto cup_run_done;

  /* Launches in order (CUP-2). */
  rc = hta_prepare(db, t->schema, cup_sql_launches, &ql);
  if (rc != SQLITE_OK) goto cup_run_error;
  hta_bind_trace_scan(ql, t);
  while ((rc = sqlite3_step(ql)) == SQLITE_ROW) {
    HTA_PUSH(launch, nl, al, 256, sqlite3_column_int64(ql, 0), cup_run_oom);
    HTA_PUSH(lseq, ns, as, 256, sqlite3_column_int64(ql, 1), cup_run_oom);
  }
  if (rc != SQLITE_DONE) goto cup_run_error;
  rc = SQLITE_OK;
  if (nk != nl) {
    hta_cell *c = hta_table_add_row(out);
    char *msg = sqlite3_mprintf(
        "hta_cupti_counters: rank %lld (trace %lld): %llu "
        "cuda_profiler_range kernels but %llu cudaLaunchKernel "
        "launches; kernels are paired with launches by position, "
        "so none is reported",
        (long long)t->rank, (long long)t->trace_id, (unsigned long long)nk, (unsigned long long)nl);
    if (!c || !msg || hta_cell_text(&c[CUP_KERNEL_NAME], msg)) {
      sqlite3_free(msg);
      goto cup_run_oom;
    }
    sqlite3_free(msg);
    hta_cell_int(&c[CUP_RANK], t->rank);
    hta_cell_static(&c[CUP_COUNTER], "error");
    hta_cell_int(&c[CUP_TRACE_ID], t->trace_id);
    goto cup_run_done;
  }

  rc = cupCollectStacks(db, t, launch, nl, &ops);
  if (rc != SQLITE_OK) goto cup_run_error;
  rc = hta_prepare(db, t->schema, cup_sql_counters, &qc);
  if (rc != SQLITE_OK) goto cup_run_error;
  for (size_t i = 0, x = 0; i < nk; i++) {
    size_t b = x;
    if ((rc = sqlite3_step(qk)) != SQLITE_ROW) { /* the same rows as counted */
      if (rc == SQLITE_DONE) rc = SQLITE_ERROR;
      goto cup_run_error;
    }
    if ((i & 1023) == 0 && hta_interrupted(db)) {
      rc = SQLITE_INTERRUPT;
      goto cup_run_error;
    }
    while (b < ops.n && ops.a[b].launch == i) b++;
    rc = cupStack(ops.a, x, b, &k);
    x = b;
    if (rc == SQLITE_OK) rc = cupEmitKernel(out, qc, t, qk, &k, lseq[i]);
    cupKernelFree(&k);
    if (rc != SQLITE_OK) goto cup_run_error;
  }
  goto cup_run_done;

cup_run_oom:
  rc = SQLITE_NOMEM;
cup_run_error:
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_ERROR;
cup_run_done:
  cupKernelFree(&k);
  sqlite3_finalize(qk);
  sqlite3_finalize(ql);
  sqlite3_finalize(qc);
  cupOpsFree(&ops);
  sqlite3_free(launch);
  sqlite3_free(lseq);
  return rc;
}

/* ---------------------------------------------------------------- the table */

/* hta_tvf run(): every trace (or those of rank a->rank), one after the other. */
static int cupRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  hta_traces tr;
  int64_t one;
  int none, rc;
  memset(&tr, 0, sizeof tr);
  /* Most databases have no CUPTI data at all: answer without scanning events. */
  rc = hta_query_int64(db, a->scope.schema,
                       "SELECT 1 FROM $S.category WHERE name = 'cuda_profiler_range'", 0, 0, &one,
                       &none);
  if (rc != SQLITE_OK || none) return rc;
  rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 0, &tr);
  for (int t = 0; rc == SQLITE_OK && t < tr.n; t++) rc = cupRunTrace(db, &tr.a[t], out);
  hta_traces_free(&tr);
  return rc;
}

static const hta_tvf cup_tvf = {
    .name = "hta_cupti_counters",
    .schema = CUP_SCHEMA,
    .nvisible = CUP_NCOL,
    .rank_col = CUP_RANK,
    .nparam = 0,
    .params = 0,
    .run = cupRun,
};

/* Registers hta_cupti_counters. */
int hta_register_cupti(sqlite3 *db) { return hta_tvf_register(db, &cup_tvf); }

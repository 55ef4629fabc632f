/*
** aten_ops.c: hta_aten_op_kernels, HTA's get_aten_op_kernels_and_delay (spec
** hta_semantics.md 2.12, deviations D11, D13 and D15 of DESIGN.md 5). Registered by
** hta_register_sequences() (sequences.c).
**
**   SELECT aten_op_name, kernel_sequence, occurrence_count FROM hta_aten_op_kernels;
**   SELECT * FROM hta_aten_op_kernels WHERE rank = 1 AND occurrence_count > 10;
**
** Columns: rank, aten_op_name, kernel_sequence, occurrence_count,
** avg_aten_op_launch_delay_us, avg_runtime_delay_us, trace_id. No parameters.
**
** Requirements (tests cite them as AOK-n):
**  1. Each trace (file) is analysed on its own (D11); WHERE rank = N keeps that
**     rank's traces. Rows come per trace in (rank, trace_id) order.
**  2. Launches = HTA-kept host rows (stream NULL, dur and category present, not
**     'Trace') before the last-ProfilerStep cut whose name matches GLOB
**     'cuda*LaunchKernel*', 'cuLaunchKernel*' or 'runFunction*' (HTA's, matched
**     at the start of the name), or is hipLaunchKernel, hipExtModuleLaunchKernel
**     (D13) or hipModuleLaunchKernel (D15); and whose link_id names a GPU row
**     (stream NOT NULL, stream 0 included). A launch without one is skipped (D13).
**  3. The launch's op = among the kept host rows named 'aten::*' of ANY thread
**     with op.ts <= launch.ts and op.ts + op.dur >= launch.ts + launch.dur, the one
**     with the latest start. Ties at equal start (HTA's pick is not defined): the
**     shortest op wins (the innermost of nested ops), then the higher event_id
**     (later in the file). A launch inside no aten:: op is skipped.
**  4. Per op instance: its kernels' names in launch order, and the delays of its
**     FIRST launch: aten_op_launch_delay = launch.ts - op.ts, runtime_delay =
**     kernel.ts - launch.ts. Launch order is file (traceEvents) order, HTA's row
**     order: usually ts order too, but not always (MTIA runFunction launches of
**     one op can be written in reverse).
**  5. Op instances are grouped by (op name, kernel_sequence = kernel names joined
**     by " -> "): occurrence_count = instances, avg_* = the mean of their delays
**     in us, unrounded (HTA rounds to 3 decimals).
**  6. Rows are ordered by occurrence_count descending, then aten_op_name, then
**     kernel_sequence ascending (byte order).
**  7. A trace without any such launch gives no rows (HTA raised instead).
**
** HOW IT WORKS: per trace, one scan of the trace's rowid range loads the aten::
** ops (then sorted by start) and the launches joined to their GPU row through
** link_id (in file order). A max-segment-tree over the ops' ends answers "the rightmost op
** starting at or before t whose end reaches e" in O(log n) per launch. Records are
** then grouped per op instance and per (op name, kernel name ids) by sorting.
** The table itself is the generic hta_tvf module of vtab_util.c.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

int hta_register_aten_ops(sqlite3 *db); /* called by hta_register_sequences() */

/* ---------------------------------------------------------------- schema */
#define AOK_SCHEMA                                                        \
  "CREATE TABLE x(rank INTEGER, aten_op_name TEXT, kernel_sequence TEXT," \
  " occurrence_count INTEGER, avg_aten_op_launch_delay_us REAL,"          \
  " avg_runtime_delay_us REAL, trace_id INTEGER)"
#define AOK_RANK 0
#define AOK_ATEN_OP_NAME 1
#define AOK_KERNEL_SEQUENCE 2
#define AOK_OCCURRENCE_COUNT 3
#define AOK_AVG_ATEN_DELAY 4
#define AOK_AVG_RUNTIME_DELAY 5
#define AOK_TRACE_ID 6
#define AOK_NCOL 7

typedef struct aok_row { /* one result row, before it goes to the table */
  sqlite3_int64 count;
  sqlite3_int64 aten_ns, runtime_ns; /* sums over the instances */
  char *op_name, *sequence;          /* sqlite3_malloc'd */
} aok_row;

typedef struct aok_rows {
  aok_row *a;
  size_t n, nalloc;
} aok_rows;

static void aokRowsFree(aok_rows *r) {
  for (size_t k = 0; k < r->n; k++) {
    sqlite3_free(r->a[k].op_name);
    sqlite3_free(r->a[k].sequence);
  }
  sqlite3_free(r->a);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- analysis */

typedef struct aok_op {
  sqlite3_int64 id, ts, end, name_id;
} aok_op;

typedef struct aok_launch { /* a launch that has a GPU row */
  sqlite3_int64 ts, end, kernel_ts, kname;
} aok_launch;

typedef struct aok_rec { /* one launch attributed to an op */
  size_t op;             /* index into the sorted ops */
  size_t order;          /* launch order */
  sqlite3_int64 aten_ns, runtime_ns, kname;
} aok_rec;

typedef struct aok_inst { /* one op instance: ids[off] = op name, then kernels */
  size_t off, n;
  sqlite3_uint64 h; /* hash of the ids: sorts equal lists together, fast */
  sqlite3_int64 aten_ns, runtime_ns;
} aok_inst;

typedef struct aok_instref { /* an instance seen through the id array (for qsort) */
  const aok_inst *p;
  const sqlite3_int64 *ids;
} aok_instref;

/* Ops by start; at equal start the longest first, so the rightmost containing op
** at a start is the innermost (AOK-3); then by event_id. */
static int aokCmpOp(const void *pa, const void *pb) {
  const aok_op *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->end != b->end) return a->end > b->end ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static int aokCmpRec(const void *pa, const void *pb) {
  const aok_rec *a = pa, *b = pb;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* By (hash, length, ids): any total order in which equal id lists are adjacent. */
static int aokCmpInst(const void *pa, const void *pb) {
  const aok_instref *a = pa, *b = pb;
  if (a->p->h != b->p->h) return a->p->h < b->p->h ? -1 : 1;
  if (a->p->n != b->p->n) return a->p->n < b->p->n ? -1 : 1;
  for (size_t k = 0; k < a->p->n; k++) {
    sqlite3_int64 x = a->ids[a->p->off + k], y = b->ids[b->p->off + k];
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

static int aokCmpRow(const void *pa, const void *pb) {
  const aok_row *a = pa, *b = pb;
  int d;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if ((d = strcmp(a->op_name, b->op_name)) != 0) return d;
  return strcmp(a->sequence, b->sequence);
}

/* Max-segment-tree over the ops' ends: tree[1] is the root, leaves at size..2*size). */
typedef struct aok_segtree {
  sqlite3_int64 *t;
  size_t size;
} aok_segtree;

static int aokTreeBuild(aok_segtree *st, const aok_op *ops, size_t n) {
  st->size = 1;
  while (st->size < n) st->size *= 2;
  st->t = sqlite3_malloc64(2 * st->size * sizeof *st->t);
  if (!st->t) return SQLITE_NOMEM;
  for (size_t k = 0; k < st->size; k++) st->t[st->size + k] = k < n ? ops[k].end : INT64_MIN;
  for (size_t k = st->size - 1; k >= 1; k--)
    st->t[k] = st->t[2 * k] > st->t[2 * k + 1] ? st->t[2 * k] : st->t[2 * k + 1];
  return SQLITE_OK;
}

/* The largest index j <= last with end[j] >= e, or -1. Iterative: at most two
** passes down the tree of height log2(size). */
static long long aokTreeFind(const aok_segtree *st, size_t last, sqlite3_int64 e) {
  /* Walk up from leaf `last`, looking at left siblings of the path, right to left. */
  size_t k = st->size + last;
  if (st->t[k] >= e) return (long long)last;
  while (k > 1) {
    if ((k & 1) && st->t[k - 1] >= e) { /* k is a right child: try its left sibling */
      k--;
      while (k < st->size) k = st->t[2 * k + 1] >= e ? 2 * k + 1 : 2 * k;
      return (long long)(k - st->size);
    }
    k /= 2;
  }
  return -1;
}

/* Appends a row to R; takes ownership of OP and SEQ (freed on failure too). */
static int aokAddRow(aok_rows *r, sqlite3_int64 count, sqlite3_int64 aten_ns,
                     sqlite3_int64 runtime_ns, char *op, char *seq) {
  if (r->n == r->nalloc) {
    size_t na = r->nalloc ? 2 * r->nalloc : 16;
    aok_row *p = sqlite3_realloc64(r->a, na * sizeof *p);
    if (!p) {
      sqlite3_free(op);
      sqlite3_free(seq);
      return SQLITE_NOMEM;
    }
    r->a = p;
    r->nalloc = na;
  }
  aok_row *w = &r->a[r->n++];
  w->count = count;
  w->aten_ns = aten_ns;
  w->runtime_ns = runtime_ns;
  w->op_name = op;
  w->sequence = seq;
  return SQLITE_OK;
}

/* Appends the rows of trace T, in AOK-6 order, to the table. */
static int aokEmit(hta_table *out, const hta_trace *t, aok_rows *r) {
  qsort(r->a, r->n, sizeof *r->a, aokCmpRow);
  for (size_t k = 0; k < r->n; k++) {
    const aok_row *w = &r->a[k];
    hta_cell *c = hta_table_add_row(out);
    if (!c) return SQLITE_NOMEM;
    hta_cell_int(&c[AOK_RANK], t->rank);
    if (hta_cell_text(&c[AOK_ATEN_OP_NAME], w->op_name)) return SQLITE_NOMEM;
    if (hta_cell_text(&c[AOK_KERNEL_SEQUENCE], w->sequence)) return SQLITE_NOMEM;
    hta_cell_int(&c[AOK_OCCURRENCE_COUNT], w->count);
    hta_cell_double(&c[AOK_AVG_ATEN_DELAY], (double)w->aten_ns / (double)w->count / 1000.0);
    hta_cell_double(&c[AOK_AVG_RUNTIME_DELAY], (double)w->runtime_ns / (double)w->count / 1000.0);
    hta_cell_int(&c[AOK_TRACE_ID], t->trace_id);
  }
  return SQLITE_OK;
}

/* One scan of the trace's kept host rows (spec 1.4) before the cut, in file order:
** the aten:: ops (is_op = 1) and the launches (AOK-2) with their GPU row, if any.
** ?1..?2 the trace's event_id range, ?3 the cut ts. */
#define AOK_LAUNCH_NAMES                                            \
  "value GLOB 'cuda*LaunchKernel*' OR value GLOB 'cuLaunchKernel*'" \
  " OR value GLOB 'runFunction*'"                                   \
  " OR value IN ('hipLaunchKernel', 'hipExtModuleLaunchKernel', 'hipModuleLaunchKernel')"
static const char aok_sql_scan[] =
    "SELECT e.event_id, e.ts, e.ts + e.dur, e.name_id,"
    "  e.name_id IN (SELECT string_id FROM $S.string WHERE value GLOB 'aten::*'),"
    "  k.event_id IS NOT NULL, k.ts, k.name_id"
    " FROM $S.event e LEFT JOIN $S.event k"
    "  ON k.event_id = e.link_id AND k.stream IS NOT NULL AND k.dur IS NOT NULL"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.stream IS NULL AND e.dur IS NOT NULL"
    "  AND e.ts < ?3 AND e.category_id IS NOT NULL"
    "  AND e.category_id IS NOT (SELECT category_id FROM $S.category WHERE name = 'Trace')"
    "  AND e.name_id IN (SELECT string_id FROM $S.string WHERE value GLOB 'aten::*' "
    "OR " AOK_LAUNCH_NAMES
    ")"
    " ORDER BY e.event_id";

/* Runs the analysis on trace T and appends its rows to OUT. Returns an SQLite code. */
static int aokRunTrace(sqlite3 *db, const hta_trace *t, hta_table *out) {
  sqlite3_stmt *q = 0, *qn = 0;
  aok_op *ops = 0;
  aok_launch *launches = 0;
  aok_rec *recs = 0;
  aok_inst *inst = 0;
  aok_instref *refs = 0;
  sqlite3_int64 *ids = 0;
  aok_segtree st = {0, 0};
  size_t nops = 0, aops = 0, nl = 0, al = 0, nrecs = 0, ninst = 0, nids = 0;
  aok_rows rows = {0, 0, 0};
  int rc;

  /* 1. One scan: the aten:: ops, and the launches that have a GPU row (AOK-2). */
  rc = hta_prepare(db, t->schema, aok_sql_scan, &q);
  if (rc != SQLITE_OK) goto aok_run_error;
  hta_bind_trace_scan(q, t);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (sqlite3_column_int(q, 4)) {
      aok_op op;
      op.id = sqlite3_column_int64(q, 0);
      op.ts = sqlite3_column_int64(q, 1);
      op.end = sqlite3_column_int64(q, 2);
      op.name_id = sqlite3_column_type(q, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 3);
      HTA_PUSH(ops, nops, aops, 256, op, aok_run_oom);
    } else if (sqlite3_column_int(q, 5)) {
      aok_launch l;
      l.ts = sqlite3_column_int64(q, 1);
      l.end = sqlite3_column_int64(q, 2);
      l.kernel_ts = sqlite3_column_int64(q, 6);
      l.kname = sqlite3_column_type(q, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 7);
      HTA_PUSH(launches, nl, al, 256, l, aok_run_oom);
    }
  }
  if (rc != SQLITE_DONE) goto aok_run_error;
  rc = SQLITE_OK;
  if (nops == 0 || nl == 0) goto aok_run_done; /* AOK-7 */
  if (hta_interrupted(db)) {
    rc = SQLITE_INTERRUPT;
    goto aok_run_error;
  }

  /* 2. Each launch, in file order, attributed to its op (AOK-3). */
  qsort(ops, nops, sizeof *ops, aokCmpOp);
  rc = aokTreeBuild(&st, ops, nops);
  if (rc != SQLITE_OK) goto aok_run_error;
  recs = sqlite3_malloc64(nl * sizeof *recs);
  if (!recs) goto aok_run_oom;
  for (size_t order = 0; order < nl; order++) {
    const aok_launch *L = &launches[order];
    size_t a = 0, b = nops; /* a = the number of ops starting at or before the launch */
    while (a < b) {
      size_t m = a + (b - a) / 2;
      if (ops[m].ts <= L->ts) a = m + 1;
      else b = m;
    }
    if (a == 0) continue;
    long long j = aokTreeFind(&st, a - 1, L->end);
    if (j < 0) continue;
    recs[nrecs].op = (size_t)j;
    recs[nrecs].order = order;
    recs[nrecs].aten_ns = hta_sub_sat(L->ts, ops[j].ts);
    recs[nrecs].runtime_ns = hta_sub_sat(L->kernel_ts, L->ts);
    recs[nrecs].kname = L->kname;
    nrecs++;
  }
  if (nrecs == 0) goto aok_run_done;

  /* 3. Op instances (AOK-4): ids = op name, kernel names...; first launch's delays. */
  qsort(recs, nrecs, sizeof *recs, aokCmpRec);
  inst = sqlite3_malloc64(nrecs * sizeof *inst);
  ids = sqlite3_malloc64(2 * nrecs * sizeof *ids); /* <= one op name per record + kernels */
  if (!inst || !ids) goto aok_run_oom;
  for (size_t a = 0; a < nrecs;) {
    aok_inst *in = &inst[ninst++];
    in->off = nids;
    in->aten_ns = recs[a].aten_ns;
    in->runtime_ns = recs[a].runtime_ns;
    ids[nids++] = ops[recs[a].op].name_id;
    size_t b = a;
    for (; b < nrecs && recs[b].op == recs[a].op; b++) ids[nids++] = recs[b].kname;
    in->n = nids - in->off;
    in->h = 1469598103934665603ull; /* FNV-1a over the ids */
    for (size_t k = in->off; k < nids; k++)
      in->h = (in->h ^ (sqlite3_uint64)ids[k]) * 1099511628211ull;
    a = b;
  }

  /* 4. Group instances by (op name, kernel names) (AOK-5). */
  refs = sqlite3_malloc64(ninst * sizeof *refs);
  if (!refs) goto aok_run_oom;
  for (size_t k = 0; k < ninst; k++) {
    refs[k].p = &inst[k];
    refs[k].ids = ids;
  }
  qsort(refs, ninst, sizeof *refs, aokCmpInst);
  rc = hta_prepare(db, t->schema, HTA_SQL_NAME_OF_ID, &qn);
  if (rc != SQLITE_OK) goto aok_run_error;
  for (size_t a = 0; a < ninst;) {
    size_t b = a;
    sqlite3_int64 aten = 0, runtime = 0;
    for (; b < ninst && aokCmpInst(&refs[a], &refs[b]) == 0; b++) {
      aten = hta_add_sat(aten, refs[b].p->aten_ns);
      runtime = hta_add_sat(runtime, refs[b].p->runtime_ns);
    }
    const sqlite3_int64 *g = ids + refs[a].p->off; /* op name, then kernel names */
    char *zo = 0, *zs = 0;
    rc = hta_join_names(qn, g, 1, "", &zo);
    if (rc == SQLITE_OK) rc = hta_join_names(qn, g + 1, refs[a].p->n - 1, " -> ", &zs);
    if (rc != SQLITE_OK) {
      sqlite3_free(zo);
      goto aok_run_error;
    }
    rc = aokAddRow(&rows, (sqlite3_int64)(b - a), aten, runtime, zo, zs);
    if (rc != SQLITE_OK) goto aok_run_error;
    a = b;
  }
  rc = aokEmit(out, t, &rows);
  goto aok_run_done;

aok_run_oom:
  rc = SQLITE_NOMEM;
aok_run_error:
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_ERROR;
aok_run_done:
  sqlite3_finalize(q);
  sqlite3_finalize(qn);
  sqlite3_free(st.t);
  sqlite3_free(ops);
  sqlite3_free(launches);
  sqlite3_free(recs);
  sqlite3_free(inst);
  sqlite3_free(refs);
  sqlite3_free(ids);
  aokRowsFree(&rows);
  return rc;
}

/* ---------------------------------------------------------------- the table */

/* hta_tvf run(): every trace (or those of rank a->rank), one after the other. */
static int aokRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  hta_traces tr;
  int rc;
  memset(&tr, 0, sizeof tr);
  rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 0, &tr);
  for (int t = 0; rc == SQLITE_OK && t < tr.n; t++) rc = aokRunTrace(db, &tr.a[t], out);
  hta_traces_free(&tr);
  return rc;
}

static const hta_tvf aok_tvf = {
    .name = "hta_aten_op_kernels",
    .schema = AOK_SCHEMA,
    .nvisible = AOK_NCOL,
    .rank_col = AOK_RANK,
    .nparam = 0,
    .params = 0,
    .run = aokRun,
};

int hta_register_aten_ops(sqlite3 *db) { return hta_tvf_register(db, &aok_tvf); }

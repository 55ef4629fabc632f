/*
** tb_stats.c: the GPU Kernel and Operator views of the PyTorch TensorBoard profiler
** plugin, and its tensor-core figures, over the host tree of tb_tree.c. Registered
** by hta_register_tb_stats.
**
**   SELECT name, operator, grid, block, calls, total_us, blocks_per_sm
**     FROM hta_kernel_stats WHERE rank = 0;                   -- by kernel and launch configuration
**   SELECT * FROM hta_kernel_stats('name');                   -- by kernel name
**   SELECT name, calls, device_self_us, host_self_us FROM hta_operator_stats;
**   SELECT * FROM hta_operator_stats('input_shape') WHERE name = 'aten::mm';
**   SELECT * FROM hta_tensor_core_summary;
**
** Parameters (HIDDEN): group_by ('config' or 'name' for hta_kernel_stats, 'name' or
** 'input_shape' for hta_operator_stats); plugin_quirks (0; a sum of tb_tree.h's
** TB_Q_* bits, 127 = all: reproduce the plugin's quirks, e.g. to compare with it).
** Columns (then `job`, as every analysis):
**   hta_kernel_stats: rank, name, operator, grid, block, registers_per_thread,
**     shared_memory, tensor_cores_used, op_tensor_cores_eligible, calls, total_us,
**     mean_us, max_us, min_us, blocks_per_sm, achieved_occupancy, trace_id
**   hta_operator_stats: rank, name, input_shape, calls, device_self_us, device_total_us,
**     host_self_us, host_total_us, tensor_cores_eligible, tensor_cores_self_pct,
**     tensor_cores_total_pct, trace_id
**   hta_tensor_core_summary: rank, device, tensor_core_kernel_pct, device_tc_kernel_us,
**     device_kernel_us, tensor_core_used_pct, tc_kernel_us, kernel_us,
**     tensor_core_eligible_pct, eligible_kernel_us, op_kernel_us, eligible_nodes,
**     eligible_operators, trace_id
**
** Requirements (tests cite them as TS-n; TB-n and TBR-n are tb_tree.c's, tb_rules.c's):
**  1. Each trace file is analysed whole, on its own (no last-ProfilerStep cut), in
**     (rank, trace_id) order; a trace without the data gives no rows.
**  2. hta_kernel_stats('config'): the kernels that hang in the tree (TB-6, TB-7),
**     grouped by (name, operator (TB-11), grid, block, registers per thread, shared
**     memory): grid and block are the args' JSON text (NULL when absent); registers
**     and shared memory 0 when absent. calls, total/mean/max/min of the kernels'
**     durations; blocks_per_sm and achieved_occupancy = sum(value * dur) / sum(dur)
**     with a missing value as 0, 0 when the durations sum to 0; tensor_cores_used
**     (TBR-2); op_tensor_cores_eligible = 1 when the operator node of any of the
**     group's kernels is eligible (TB-11).
**  3. hta_kernel_stats('name'): every kernel event of the trace grouped by name, the
**     same columns, operator/grid/block/registers/shared memory/op eligibility NULL.
**  4. Both give rows only for a trace with a Kernel view (TB-12). Rows by total_us
**     descending, then name, operator, grid, block, registers, shared memory.
**  5. hta_operator_stats('name'): per operator name (TB-2), over its operator nodes
**     (after merges, TB-8): calls = nodes; host_total_us, host_self_us,
**     device_self_us, device_total_us the sums of TB-9; tensor_cores_self_pct = 100 *
**     tensor-core self / device self, tensor_cores_total_pct = 100 * tensor-core total
**     / device total, 0 when the denominator is 0; tensor_cores_eligible = 1 when any
**     node is eligible (TB_Q_FIRST_NODE: the first node's, TB-10). input_shape NULL.
**  6. hta_operator_stats('input_shape'): per (name, input_shape), input_shape the
**     text Python prints for the recorded Input Dims (TBR-5; "[]" without them).
**     Rows by device_self_us descending, host_self_us descending, name, input_shape.
**  7. hta_tensor_core_summary: one row per trace and GPU id of its kernels (args
**     device; one row with device NULL when none): tensor_core_kernel_pct = 100 *
**     device_tc_kernel_us / device_kernel_us over the kernels launched under operator
**     nodes on that GPU (0 when none there; NULL when no kernel hangs under any
**     operator); the trace's tensor_core_used_pct = 100 * tc_kernel_us / kernel_us
**     over every kernel (0 when 0; NULL without a Kernel view), tensor_core_eligible_pct
**     = 100 * eligible_kernel_us / op_kernel_us (0 when 0), eligible_nodes,
**     eligible_operators (TB-13).
**  8. Bad parameters: "<function>: group_by must be ...", "<function>: plugin_quirks
**     must be an integer from 0 to 127".
**
** HOW IT WORKS: per trace, tb_tree_load builds the tree; the kernel rows come from
** one sort of the kernel instances by their group key, the operator rows from one
** sort of the operator nodes, each run of equal keys making a row.
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* Compares texts A and B as strcmp does, NULL first. */
static int textCmp(const char *a, const char *b) {
  if (!a || !b) return (a != 0) - (b != 0);
  return strcmp(a, b);
}

/* The index in CHOICES of A's parameter K (0 when not given or NULL); SQLITE_ERROR with *pzErr
** when it is none of CHOICES. */
static int groupBy(const hta_tvf_args *a, int k, const char *fn, const char *const *choices,
                   int *out, char **pzErr) {
  sqlite3_value *v = a->v[k];
  const char *s;
  *out = 0;
  if (!v || sqlite3_value_type(v) == SQLITE_NULL) return SQLITE_OK; /* the default */
  s = sqlite3_value_type(v) == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : 0;
  for (int i = 0; s && i < 2; i++) {
    if (!strcmp(s, choices[i])) {
      *out = i;
      return SQLITE_OK;
    }
  }
  *pzErr = sqlite3_mprintf("%s: group_by must be '%s' or '%s'", fn, choices[0], choices[1]);
  return SQLITE_ERROR;
}

/* Runs EMIT on every trace of A's scope (TS-1). */
typedef int (*ts_emit)(const hta_trace *t, const tb_tree *tr, int mode, hta_table *out);

static int tsRun(sqlite3 *db, const hta_tvf_args *a, int quirks, int shapes, int mode, ts_emit emit,
                 hta_table *out) {
  hta_traces ts;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1 /* TS-1: no cut */, &ts);
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < ts.n && rc == SQLITE_OK; i++) {
    tb_tree tr;
    rc = tb_tree_load(db, &ts.a[i], quirks, shapes, &tr);
    if (rc == SQLITE_OK) rc = emit(&ts.a[i], &tr, mode, out);
    tb_tree_free(&tr);
  }
  hta_traces_free(&ts);
  return rc;
}

/* ---------------------------------------------------------------- hta_kernel_stats */

#define KS_RANK 0
#define KS_NAME 1
#define KS_OPERATOR 2
#define KS_GRID 3
#define KS_BLOCK 4
#define KS_REGS 5
#define KS_SMEM 6
#define KS_TC 7
#define KS_OP_TC 8
#define KS_CALLS 9
#define KS_TOTAL 10
#define KS_MEAN 11
#define KS_MAX 12
#define KS_MIN 13
#define KS_BPS 14
#define KS_OCC 15
#define KS_TRACE_ID 16
#define KS_NVISIBLE 17
#define KS_SCHEMA                                                                               \
  "CREATE TABLE x(rank INTEGER, name TEXT, operator TEXT, grid TEXT, block TEXT,"               \
  " registers_per_thread INTEGER, shared_memory INTEGER, tensor_cores_used INTEGER,"            \
  " op_tensor_cores_eligible INTEGER, calls INTEGER, total_us REAL, mean_us REAL, max_us REAL," \
  " min_us REAL, blocks_per_sm REAL, achieved_occupancy REAL, trace_id INTEGER,"                \
  " group_by HIDDEN, plugin_quirks HIDDEN)"
enum { KS_P_GROUP, KS_P_QUIRKS };
static const hta_param ksParams[] = {
    {"group_by", HTA_PARAM_VALUE, 0.0, 0.0, 0.0, "'config' or 'name'"},
    TB_QUIRKS_PARAM,
};

typedef struct ks_inst { /* one kernel under one node */
  const tb_tree *tr;
  int32_t name, op;     /* name slots (TB_NAME_ROOT: a root) */
  uint32_t grid, block; /* arena references */
  int64_t regs, smem, dur;
  double blocks, occ;
  uint8_t tc, op_tc, by_name;
} ks_inst;

/* Group order (TS-2, TS-3): ints first, texts only between equal names. */
static int ksInstCmp(const void *a, const void *b) {
  const ks_inst *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  if (x->op != y->op) return x->op < y->op ? -1 : 1;
  if (x->regs != y->regs) return x->regs < y->regs ? -1 : 1;
  if (x->smem != y->smem) return x->smem < y->smem ? -1 : 1;
  int c = x->grid == y->grid
              ? 0
              : textCmp(tb_arena_text(x->tr, x->grid), tb_arena_text(x->tr, y->grid));
  if (!c && x->block != y->block)
    c = textCmp(tb_arena_text(x->tr, x->block), tb_arena_text(x->tr, y->block));
  return c;
}

typedef struct ks_row {
  const ks_inst *first; /* its key */
  int64_t calls, total, max, min;
  double wb, wo; /* sums of value * dur */
  uint8_t op_tc;
} ks_row;

static const char *ksName(const ks_inst *k) { return tb_name(k->tr, k->name); }

static const char *ksOp(const ks_inst *k) { return k->by_name ? 0 : tb_name(k->tr, k->op); }

/* Row order (TS-4): total descending, then the key's texts. */
static int ksRowCmp(const void *a, const void *b) {
  const ks_row *x = a, *y = b;
  const ks_inst *p = x->first, *q = y->first;
  int c;
  if (x->total != y->total) return x->total > y->total ? -1 : 1;
  if ((c = textCmp(ksName(p), ksName(q))) != 0) return c;
  if ((c = textCmp(ksOp(p), ksOp(q))) != 0) return c;
  if ((c = textCmp(tb_arena_text(p->tr, p->grid), tb_arena_text(q->tr, q->grid))) != 0) return c;
  if ((c = textCmp(tb_arena_text(p->tr, p->block), tb_arena_text(q->tr, q->block))) != 0) return c;
  if (p->regs != q->regs) return p->regs < q->regs ? -1 : 1;
  return p->smem < q->smem ? -1 : p->smem > q->smem;
}

/* Appends kernel D (under OP, NULL for by-name) to *P. */
static ks_inst ksInst(const tb_tree *tr, const tb_dev *d, const tb_node *op, int by_name) {
  ks_inst k;
  memset(&k, 0, sizeof k);
  k.tr = tr;
  k.name = d->name;
  k.by_name = (uint8_t)by_name;
  k.dur = d->dur;
  k.blocks = d->blocks, k.occ = d->occ;
  k.tc = (uint8_t)tb_dev_tc(tr, d);
  if (!by_name) {
    k.op = op->name;
    k.grid = d->grid;
    k.block = d->block;
    k.regs = d->regs, k.smem = d->smem;
    if (tr->quirks & TB_Q_OP_NAME) /* TB-11 */
      k.op_tc = op->name >= 0 && (tr->name_flags[op->name] & TB_N_ELIGIBLE) != 0;
    else k.op_tc = op->tc;
  }
  return k;
}

/* The kernel instances of TS-2 (by_name 0) or TS-3 into *PA. */
static int ksInstances(const tb_tree *tr, int by_name, ks_inst **pa, size_t *pn) {
  ks_inst *a = 0;
  size_t n = 0, cap = 0;
  if (by_name) {
    for (size_t i = 0; i < tr->ndev; i++) {
      if (tr->devs[i].kind == TB_K_KERNEL)
        HTA_PUSH(a, n, cap, 256, ksInst(tr, &tr->devs[i], 0, 1), oom);
    }
  } else {
    for (size_t k = 0; k < tr->ntrav; k++) {
      int32_t i = tr->trav[k];
      for (int32_t at = tr->att_first[i]; at < tr->att_first[i + 1]; at++) {
        const tb_rt *r = &tr->rts[tr->att[at].rt];
        for (int32_t j = r->dev_first; j < r->dev_first + r->ndev; j++) {
          if (tr->devs[j].kind != TB_K_KERNEL) continue;
          HTA_PUSH(a, n, cap, 256, ksInst(tr, &tr->devs[j], &tr->nodes[i], 0), oom);
        }
      }
    }
  }
  *pa = a, *pn = n;
  return SQLITE_OK;
oom:
  sqlite3_free(a);
  return SQLITE_NOMEM;
}

static int ksEmit(const hta_trace *t, const tb_tree *tr, int by_name, hta_table *out) {
  ks_inst *a = 0;
  ks_row *rows = 0;
  size_t n = 0, nrow = 0;
  int rc;
  if (!tr->kernel_view) return SQLITE_OK; /* TS-4 */
  rc = ksInstances(tr, by_name, &a, &n);
  if (rc != SQLITE_OK) return rc;
  TB_QSORT(a, n, ksInstCmp);
  rows = sqlite3_malloc64((n ? n : 1) * sizeof *rows);
  if (!rows) goto oom;
  for (size_t i = 0; i < n; i++) {
    ks_row *r = nrow ? &rows[nrow - 1] : rows; /* the first instance opens a row below */
    if (i == 0 || ksInstCmp(&a[i - 1], &a[i])) {
      r = &rows[nrow++];
      memset(r, 0, sizeof *r);
      r->first = &a[i];
      r->max = r->min = a[i].dur;
    }
    r->calls++;
    r->total = hta_add_sat(r->total, a[i].dur);
    if (a[i].dur > r->max) r->max = a[i].dur;
    if (a[i].dur < r->min) r->min = a[i].dur;
    r->wb += a[i].blocks * (double)a[i].dur;
    r->wo += a[i].occ * (double)a[i].dur;
    r->op_tc |= a[i].op_tc;
  }
  TB_QSORT(rows, nrow, ksRowCmp);
  for (size_t i = 0; i < nrow; i++) {
    const ks_row *r = &rows[i];
    const ks_inst *k = r->first;
    hta_cell *c = hta_table_add_row(out);
    if (!c) goto oom;
    hta_cell_int(&c[KS_RANK], t->rank);
    rc = hta_cell_text(&c[KS_NAME], ksName(k));
    if (!by_name) {
      if (rc == SQLITE_OK) rc = hta_cell_text(&c[KS_OPERATOR], ksOp(k));
      if (rc == SQLITE_OK && k->grid) rc = hta_cell_text(&c[KS_GRID], tb_arena_text(tr, k->grid));
      if (rc == SQLITE_OK && k->block)
        rc = hta_cell_text(&c[KS_BLOCK], tb_arena_text(tr, k->block));
      hta_cell_int(&c[KS_REGS], k->regs);
      hta_cell_int(&c[KS_SMEM], k->smem);
      hta_cell_int(&c[KS_OP_TC], r->op_tc);
    }
    if (rc != SQLITE_OK) goto oom;
    hta_cell_int(&c[KS_TC], k->tc);
    hta_cell_int(&c[KS_CALLS], r->calls);
    hta_cell_double(&c[KS_TOTAL], us(r->total));
    hta_cell_double(&c[KS_MEAN], us(r->total) / (double)r->calls);
    hta_cell_double(&c[KS_MAX], us(r->max));
    hta_cell_double(&c[KS_MIN], us(r->min));
    hta_cell_double(&c[KS_BPS], r->total ? r->wb / (double)r->total : 0.0);
    hta_cell_double(&c[KS_OCC], r->total ? r->wo / (double)r->total : 0.0);
    hta_cell_int(&c[KS_TRACE_ID], t->trace_id);
  }
  sqlite3_free(a);
  sqlite3_free(rows);
  return SQLITE_OK;
oom:
  sqlite3_free(a);
  sqlite3_free(rows);
  return SQLITE_NOMEM;
}

static int ksRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  static const char *const choices[] = {"config", "name"};
  int by_name;
  int rc = groupBy(a, KS_P_GROUP, "hta_kernel_stats", choices, &by_name, pzErr);
  if (rc != SQLITE_OK) return rc;
  return tsRun(db, a, (int)a->p[KS_P_QUIRKS], 0, by_name, ksEmit, out);
}

static const hta_tvf ksTvf = {
    "hta_kernel_stats", KS_SCHEMA, KS_NVISIBLE, KS_RANK, 2, ksParams, ksRun,
};

/* ---------------------------------------------------------------- hta_operator_stats */

#define OS_RANK 0
#define OS_NAME 1
#define OS_SHAPE 2
#define OS_CALLS 3
#define OS_DEV_SELF 4
#define OS_DEV_TOTAL 5
#define OS_HOST_SELF 6
#define OS_HOST_TOTAL 7
#define OS_TC 8
#define OS_TC_SELF 9
#define OS_TC_TOTAL 10
#define OS_TRACE_ID 11
#define OS_NVISIBLE 12
#define OS_SCHEMA                                                                            \
  "CREATE TABLE x(rank INTEGER, name TEXT, input_shape TEXT, calls INTEGER,"                 \
  " device_self_us REAL, device_total_us REAL, host_self_us REAL, host_total_us REAL,"       \
  " tensor_cores_eligible INTEGER, tensor_cores_self_pct REAL, tensor_cores_total_pct REAL," \
  " trace_id INTEGER, group_by HIDDEN, plugin_quirks HIDDEN)"
enum { OS_P_GROUP, OS_P_QUIRKS };
static const hta_param osParams[] = {
    {"group_by", HTA_PARAM_VALUE, 0.0, 0.0, 0.0, "'name' or 'input_shape'"},
    TB_QUIRKS_PARAM,
};

typedef struct os_key {
  const tb_tree *tr;
  int32_t name, node, trav; /* trav: its position in the traversal (TB-10) */
  uint32_t shape;           /* arena reference; 0: "[]"; 0 for all by name */
} os_key;

/* Group order: equal (name, shape) together, in traversal order. */
static int osKeyCmp(const void *a, const void *b) {
  const os_key *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  if (x->shape != y->shape) return x->shape < y->shape ? -1 : 1;
  return x->trav < y->trav ? -1 : x->trav > y->trav;
}

static const char *osShape(const os_key *k, int by_shape) {
  return !by_shape ? 0 : k->shape ? tb_arena_text(k->tr, k->shape) : "[]";
}

typedef struct os_row {
  const os_key *key;
  int64_t calls, host_total, host_self, dev_self, dev_total, tc_self, tc_total;
  int tc, by_shape;
} os_row;

/* Row order (TS-6). */
static int osRowCmp(const void *a, const void *b) {
  const os_row *x = a, *y = b;
  int c;
  if (x->dev_self != y->dev_self) return x->dev_self > y->dev_self ? -1 : 1;
  if (x->host_self != y->host_self) return x->host_self > y->host_self ? -1 : 1;
  if ((c = strcmp(tb_name(x->key->tr, x->key->name), tb_name(y->key->tr, y->key->name))) != 0)
    return c;
  return textCmp(osShape(x->key, x->by_shape), osShape(y->key, y->by_shape));
}

static double pct(int64_t part, int64_t whole) {
  return whole ? 100.0 * ((double)part / (double)whole) : 0.0;
}

static int osEmit(const hta_trace *t, const tb_tree *tr, int by_shape, hta_table *out) {
  os_key *k = sqlite3_malloc64((tr->ntrav ? tr->ntrav : 1) * sizeof *k);
  os_row *rows = sqlite3_malloc64((tr->ntrav ? tr->ntrav : 1) * sizeof *rows);
  size_t n = 0, nrow = 0;
  if (!k || !rows) goto oom;
  for (size_t j = 0; j < tr->ntrav; j++) {
    const tb_node *nd = &tr->nodes[tr->trav[j]];
    if (!nd->is_op) continue;
    os_key e = {tr, nd->name, tr->trav[j], (int32_t)j, by_shape ? nd->shape : 0};
    k[n++] = e;
  }
  TB_QSORT(k, n, osKeyCmp);
  for (size_t i = 0; i < n; i++) {
    const tb_node *nd = &tr->nodes[k[i].node];
    os_row *r = nrow ? &rows[nrow - 1] : rows; /* the first node opens a row below */
    if (i == 0 || k[i - 1].name != k[i].name || k[i - 1].shape != k[i].shape) {
      r = &rows[nrow++];
      memset(r, 0, sizeof *r);
      r->key = &k[i];
      r->by_shape = by_shape;
      r->tc = nd->tc; /* the first node's (TB-10) */
    }
    r->calls++;
    r->host_total = hta_add_sat(r->host_total, hta_sub_sat(nd->end, nd->ts));
    r->host_self = hta_add_sat(r->host_self, nd->host_self);
    r->dev_self = hta_add_sat(r->dev_self, nd->dev_self);
    r->dev_total = hta_add_sat(r->dev_total, nd->dev_total);
    r->tc_self = hta_add_sat(r->tc_self, nd->tc_self);
    r->tc_total = hta_add_sat(r->tc_total, nd->tc_total);
    if (!(tr->quirks & TB_Q_FIRST_NODE)) r->tc |= nd->tc; /* TS-5: any node */
  }
  TB_QSORT(rows, nrow, osRowCmp);
  for (size_t i = 0; i < nrow; i++) {
    const os_row *r = &rows[i];
    hta_cell *c = hta_table_add_row(out);
    int rc;
    if (!c) goto oom;
    hta_cell_int(&c[OS_RANK], t->rank);
    rc = hta_cell_text(&c[OS_NAME], tb_name(tr, r->key->name));
    if (rc == SQLITE_OK && by_shape) rc = hta_cell_text(&c[OS_SHAPE], osShape(r->key, 1));
    if (rc != SQLITE_OK) goto oom;
    hta_cell_int(&c[OS_CALLS], r->calls);
    hta_cell_double(&c[OS_DEV_SELF], us(r->dev_self));
    hta_cell_double(&c[OS_DEV_TOTAL], us(r->dev_total));
    hta_cell_double(&c[OS_HOST_SELF], us(r->host_self));
    hta_cell_double(&c[OS_HOST_TOTAL], us(r->host_total));
    hta_cell_int(&c[OS_TC], r->tc);
    hta_cell_double(&c[OS_TC_SELF], pct(r->tc_self, r->dev_self));
    hta_cell_double(&c[OS_TC_TOTAL], pct(r->tc_total, r->dev_total));
    hta_cell_int(&c[OS_TRACE_ID], t->trace_id);
  }
  sqlite3_free(k);
  sqlite3_free(rows);
  return SQLITE_OK;
oom:
  sqlite3_free(k);
  sqlite3_free(rows);
  return SQLITE_NOMEM;
}

static int osRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  static const char *const choices[] = {"name", "input_shape"};
  int by_shape;
  int rc = groupBy(a, OS_P_GROUP, "hta_operator_stats", choices, &by_shape, pzErr);
  if (rc != SQLITE_OK) return rc;
  return tsRun(db, a, (int)a->p[OS_P_QUIRKS], by_shape, by_shape, osEmit, out);
}

static const hta_tvf osTvf = {
    "hta_operator_stats", OS_SCHEMA, OS_NVISIBLE, OS_RANK, 2, osParams, osRun,
};

/* ---------------------------------------------------------------- hta_tensor_core_summary */

#define TC_RANK 0
#define TC_DEVICE 1
#define TC_KERNEL_PCT 2
#define TC_DEV_TC_US 3
#define TC_DEV_KERNEL_US 4
#define TC_USED_PCT 5
#define TC_TC_US 6
#define TC_KERNEL_US 7
#define TC_ELIGIBLE_PCT 8
#define TC_ELIGIBLE_US 9
#define TC_OP_US 10
#define TC_NODES 11
#define TC_OPS 12
#define TC_TRACE_ID 13
#define TC_NVISIBLE 14
#define TC_SCHEMA                                                                               \
  "CREATE TABLE x(rank INTEGER, device INTEGER, tensor_core_kernel_pct REAL,"                   \
  " device_tc_kernel_us REAL, device_kernel_us REAL, tensor_core_used_pct REAL,"                \
  " tc_kernel_us REAL, kernel_us REAL, tensor_core_eligible_pct REAL, eligible_kernel_us REAL," \
  " op_kernel_us REAL, eligible_nodes INTEGER, eligible_operators INTEGER, trace_id INTEGER,"   \
  " plugin_quirks HIDDEN)"
static const hta_param tcParams[] = {TB_QUIRKS_PARAM};

static int tcEmit(const hta_trace *t, const tb_tree *tr, int mode, hta_table *out) {
  tb_tc f;
  int rc = tb_tc_compute(tr, &f);
  (void)mode;
  if (rc != SQLITE_OK) return rc;
  for (int g = 0; g < (f.ngpu ? f.ngpu : 1); g++) {
    hta_cell *c = hta_table_add_row(out);
    if (!c) {
      tb_tc_free(&f);
      return SQLITE_NOMEM;
    }
    hta_cell_int(&c[TC_RANK], t->rank);
    if (f.ngpu) {
      const tb_tc_gpu *d = &f.gpu[g];
      hta_cell_int(&c[TC_DEVICE], d->device);
      if (f.has_op_kernels) hta_cell_double(&c[TC_KERNEL_PCT], pct(d->tc_ns, d->kernel_ns));
      hta_cell_double(&c[TC_DEV_TC_US], us(d->tc_ns));
      hta_cell_double(&c[TC_DEV_KERNEL_US], us(d->kernel_ns));
    }
    if (f.kernel_view) hta_cell_double(&c[TC_USED_PCT], pct(f.tc_ns, f.kernel_ns));
    hta_cell_double(&c[TC_TC_US], us(f.tc_ns));
    hta_cell_double(&c[TC_KERNEL_US], us(f.kernel_ns));
    hta_cell_double(&c[TC_ELIGIBLE_PCT], pct(f.eligible_ns, f.op_ns));
    hta_cell_double(&c[TC_ELIGIBLE_US], us(f.eligible_ns));
    hta_cell_double(&c[TC_OP_US], us(f.op_ns));
    hta_cell_int(&c[TC_NODES], f.bottom_nodes);
    hta_cell_int(&c[TC_OPS], f.eligible_ops);
    hta_cell_int(&c[TC_TRACE_ID], t->trace_id);
  }
  tb_tc_free(&f);
  return SQLITE_OK;
}

static int tcRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return tsRun(db, a, (int)a->p[0], 0, 0, tcEmit, out);
}

static const hta_tvf tcTvf = {
    "hta_tensor_core_summary", TC_SCHEMA, TC_NVISIBLE, TC_RANK, 1, tcParams, tcRun,
};

int hta_register_tb_stats(sqlite3 *db) {
  static const hta_tvf *const defs[] = {&ksTvf, &osTvf, &tcTvf};
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

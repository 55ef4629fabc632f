/*
** graph_tree.c: the host call tree of one trace as TraceLens builds it for the graph
** merge (TraceToTree with python functions), and the operator above an event.
**
** Requirements (tests cite them as GT-n):
**  1. Nodes: the trace's events of category cpu_op, cuda_runtime, cuda_driver and
**     python_function that have a ts and a dur.
**  2. Per thread (pid, tid), in (ts, file order): every open node that ended at or
**     before a node's ts is closed; the innermost open one is its parent. A node
**     ending after its parent moves up a level (its parent closed) when it starts
**     less than 1 µs before the parent's end and the parent has a parent; else it is
**     left out of the tree (no parent, no child). Times in exact ns.
**  3. A node's operator (hg_tree_op): the first cpu_op above it, passing over python
**     functions and operators named "execute"; a runtime call on the way, an ancestor
**     outside the given window, or none: no operator (TraceLens's kernel launcher
**     rule, where a runtime call launches its kernels itself).
**
** HOW IT WORKS: one scan of the trace's rowid range; an index sorted by (thread, ts,
** seq); one stack sweep. Nodes stay in event_id order, so a lookup is a binary search.
*/
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct gt_key { /* a node's place in the sweep */
  int64_t pid, tid, ts, seq;
  int32_t idx;
} gt_key;

static int gtKeyCmp(const void *a, const void *b) {
  const gt_key *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char gtSql[] =
    "SELECT e.event_id, e.seq, c.name, e.name_id, e.pid, e.tid, e.ts, e.dur"
    " FROM $S.event e JOIN $S.category c ON c.category_id = e.category_id"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.category_id IN (SELECT category_id FROM"
    " $S.category WHERE name IN ('cpu_op', 'cuda_runtime', 'cuda_driver', 'python_function'))"
    " AND e.ts IS NOT NULL AND e.dur IS NOT NULL";

/* GT-2: the sweep over K (sorted) sets the parents. */
static int gtNest(hg_tree *t, const gt_key *k) {
  int32_t *stack = sqlite3_malloc64((t->n ? t->n : 1) * sizeof *stack);
  size_t sp = 0;
  if (!stack) return SQLITE_NOMEM;
  for (size_t i = 0; i < t->n; i++) {
    hg_hnode *e = &t->a[k[i].idx];
    if (i > 0 && (k[i].pid != k[i - 1].pid || k[i].tid != k[i - 1].tid)) sp = 0;
    while (sp && e->ts >= t->a[stack[sp - 1]].end) sp--;
    if (sp && e->end > t->a[stack[sp - 1]].end) {
      if (t->a[stack[sp - 1]].end - e->ts < 1000 && sp >= 2) sp--; /* a bleed under 1 µs */
      else continue;                                               /* out of the tree */
    }
    e->parent = sp ? stack[sp - 1] : -1;
    stack[sp++] = k[i].idx;
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

int hg_tree_load(sqlite3 *db, const char *schema, int64_t trace_id, hg_tree *out) {
  sqlite3_stmt *st = 0;
  gt_key *k = 0;
  size_t a = 0, ak = 0, nk = 0;
  const char *exe = "execute";
  int rc;
  memset(out, 0, sizeof *out);
  rc = hta_string_ids(db, schema, &exe, 1, &out->execute_id);
  if (rc == SQLITE_OK) rc = hta_prepare(db, schema, gtSql, &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(trace_id));
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    const char *cat = (const char *)sqlite3_column_text(st, 2);
    hg_hnode n;
    gt_key key;
    memset(&n, 0, sizeof n);
    n.event_id = sqlite3_column_int64(st, 0);
    n.seq = sqlite3_column_int64(st, 1);
    n.cls = !cat                              ? HG_C_OTHER
            : !strcmp(cat, "cpu_op")          ? HG_C_OP
            : !strcmp(cat, "python_function") ? HG_C_PYTHON
                                              : HG_C_RUNTIME;
    n.name_id = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
    n.ts = sqlite3_column_int64(st, 6);
    n.end = hta_end(n.ts, sqlite3_column_int64(st, 7));
    n.parent = -1;
    key.pid = hta_tid_key(sqlite3_column_value(st, 4));
    key.tid = hta_tid_key(sqlite3_column_value(st, 5));
    key.ts = n.ts;
    key.seq = n.seq;
    key.idx = (int32_t)out->n;
    HTA_PUSH(out->a, out->n, a, 1024, n, tree_oom);
    HTA_PUSH(k, nk, ak, 1024, key, tree_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  if (rc == SQLITE_OK && nk > 1) qsort(k, nk, sizeof *k, gtKeyCmp);
  if (rc == SQLITE_OK) rc = gtNest(out, k);
  sqlite3_free(k);
  if (rc != SQLITE_OK) hg_tree_free(out);
  return rc;
tree_oom:
  sqlite3_finalize(st);
  sqlite3_free(k);
  hg_tree_free(out);
  return SQLITE_NOMEM;
}

void hg_tree_free(hg_tree *t) {
  sqlite3_free(t->a);
  memset(t, 0, sizeof *t);
}

long hg_tree_find(const hg_tree *t, int64_t event_id) {
  return hg_find_id(t->a, t->n, sizeof *t->a, offsetof(hg_hnode, event_id), event_id);
}

long hg_tree_op(const hg_tree *t, long i, int64_t lo, int64_t hi) { /* GT-3 */
  for (long p = i >= 0 ? t->a[i].parent : -1; p >= 0; p = t->a[p].parent) {
    const hg_hnode *e = &t->a[p];
    if (e->ts < lo || e->end > hi) return -1;
    if (e->cls == HG_C_PYTHON) continue;
    if (e->cls != HG_C_OP) return -1;
    if (e->name_id != t->execute_id || t->execute_id < 0) return p;
  }
  return -1;
}

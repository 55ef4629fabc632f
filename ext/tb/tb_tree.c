/*
** tb_tree.c: the PyTorch TensorBoard profiler plugin's host operator tree of one
** trace file (torch_tb_profiler 0.4.3: its event_parser, op_tree and node
** modules), with the runtime calls and GPU events hung under its nodes and every
** node's host and device time. The GPU Kernel and Operator views (tb_stats.c) and
** the tensor-core figures read it. Exact integer ns throughout (the plugin adds
** float64 µs, which can move a child's end past its parent's and drop it).
**
** Requirements (tests cite them as TB-n; quirk bits are tb_tree.h's TB_Q_*):
**  1. Events: the trace's ph 'X' rows with a ts and a dur, by category (any case):
**     cpu_op/operator, user_annotation/gpu_user_annotation, python and
**     python_function (nodes); runtime, cuda_runtime, mtia_runtime, glow_runtime,
**     xpu_runtime, privateuse1_runtime (runtimes); kernel, memcpy/gpu_memcpy,
**     memset/gpu_memset (GPU events). An External id is args "external id", else
**     the "External id" column (the plugin's order).
**  2. Nodes (TBR-1 names): every cpu_op/operator row (type step when its name is a
**     step, else operator); a user_annotation/gpu_user_annotation row only when it
**     is a step, data loading, an optimizer step or a collective (type
**     annotation, or step); every python row (type python); a python_function row
**     only when its args carry a non-null "Python module id" (an nn.Module: type
**     module, no External id). An operator node (a row of the Operator view) is a
**     node of type operator from cpu_op/operator whose name is an operator's name
**     (TBR-4).
**  3. Threads are tids (hta_tid_key: "5555" is 5555; the pid is not looked at, as
**     the plugin), ordered by their first node in (ts, file order). Per thread,
**     nodes in (ts, -end, file order) are nested by a stack under a root
**     ("CallTreeRoot"): a node that starts before the innermost open node ends and
**     ends no later is its child; one that starts inside and ends after is dropped
**     (no node, no call). A zero-length node contains nothing.
**  4. GPU events hang under their launch: the host row their link_id names (the
**     database's correlation link).
**  5. Runtimes: every runtime-category row, and (not TB_Q_DRIVER) every other host
**     row that launched a GPU event (cuLaunchKernel of Triton, cuda_driver).
**  6. Each runtime hangs under one node. Not TB_Q_EXTID: the first node (ts, file
**     order) of its own thread with its External id; without one (no id, or an id no
**     node of its thread carries), the innermost node of its thread whose interval
**     holds the runtime's, else its thread's root; a runtime of a thread without
**     nodes hangs nowhere. TB_Q_EXTID (the plugin): the first node in thread order
**     then (ts, file order) anywhere whose External id equals the runtime's, where no
**     id equals no id (so an id-less runtime goes to the trace's first nn.Module); a
**     runtime with id 0 also hangs under its thread's root; no match: nowhere (its
**     GPU events are in no operator's times).
**  7. A kernel without a launching runtime hangs under a placeholder runtime (no
**     host time) at a thread root: once, at the first thread holding a ProfilerStep
**     node, else at the first thread; TB_Q_UNLINKED (the plugin): at every thread
**     holding a ProfilerStep node, none without. Memcpy and memset without one hang
**     nowhere.
**  8. Same-name chains: a node of type operator whose only child is a node of type
**     operator with the same name absorbs it: it takes the child's
**     children and keeps its own interval; the child is no node. Runtimes: the
**     outer node keeps its own and takes the child's; TB_Q_MERGE (the plugin): it
**     keeps only the child's.
**  9. Times per node: host_total = end - ts; host_self = host_total - its children's
**     host_total - its runtimes' (end - ts); dev_self = the time (dur) of its
**     runtimes' GPU events (kernels, memcpy, memset); dev_total = dev_self + its
**     children's dev_total; tc_self/tc_total likewise over tensor-core kernels
**     (TBR-2). Eligible: its name is on the list (TBR-3), or, for type operator, a
**     child is eligible or one of its runtimes launched tensor-core time.
** 10. Traversal order: threads in order, each tree children before parents
**     (post-order), siblings in (ts, -end) order: the plugin's order of operator
**     rows; TB_Q_FIRST_NODE takes a row's eligibility from its first node.
** 11. A kernel's operator is the node its runtime hangs under (a root:
**     "CallTreeRoot"); its op eligibility is that node's eligibility (TB_Q_OP_NAME:
**     whether the node's name is on the list, as the plugin copies it before
**     propagating).
** 12. Kernel view: the trace has a kernel whose External id is none of the
**     collective nodes' External ids (no id equals no id).
** 13. Tensor-core figures (tb_tc_compute): used = over every kernel (dur);
**     eligible_ns = the kernels of the own runtimes of the bottom eligible nodes
**     (eligible, with no eligible descendant; any type); op_ns = the kernels of
**     every operator node's own runtimes; per GPU id (the kernels' device): the
**     kernels of operator nodes' runtimes on it. The placeholder of TB-7 counts in
**     none of these.
** 14. Graph replays (graph/graph.h): for each graph launch matched to a capture window,
**     a copy of the window's rows of the capture (nodes and runtimes wholly inside it,
**     any thread; not its GPU events), moved so that the window starts at the launch's
**     start, each copied thread a thread of its own, builds its trees by TB-2..6; a
**     matched replayed kernel hangs under its dispatch's copy instead of the launch (an
**     unmatched one stays). The copies have no host time (zero-length once nested and
**     attached): the CPU ran none of them at replay; the launch keeps its own.
**
** HOW IT WORKS: one scan of the trace's rows (rowid range) reads nodes, runtimes and
** GPU events, with the args members it needs (json_args.c); names are read once
** per distinct name. Nodes are sorted into threads and nested with a stack; the
** runtimes are attached (a sort and binary search by External id, and a per-thread
** sweep for the time rule); the merges run parent first; the times run in one
** post-order pass with an explicit stack.
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- small helpers */

void tb_tree_free(tb_tree *tr) {
  sqlite3_free(tr->nodes);
  sqlite3_free(tr->rts);
  sqlite3_free(tr->devs);
  sqlite3_free(tr->threads);
  sqlite3_free(tr->att);
  sqlite3_free(tr->att_first);
  sqlite3_free(tr->trav);
  hta_names_free(tr->names, tr->nnames);
  sqlite3_free(tr->name_flags);
  sqlite3_free(tr->arena);
  sqlite3_free(tr->itab);
  memset(tr, 0, sizeof *tr);
}

const char *tb_name(const tb_tree *tr, int32_t slot) {
  if (slot == TB_NAME_ROOT) return "CallTreeRoot";
  return slot >= 0 && (size_t)slot < tr->nnames ? tr->names[slot] : "";
}

const char *tb_arena_text(const tb_tree *tr, uint32_t ref) {
  return ref ? tr->arena + (ref - 1) : 0;
}

int tb_dev_tc(const tb_tree *tr, const tb_dev *d) {
  int bit = (tr->quirks & TB_Q_TC_NAMES) ? TB_N_TC_PLUGIN : TB_N_TC;
  return d->kind == TB_K_KERNEL && d->name >= 0 && (tr->name_flags[d->name] & bit);
}

static uint64_t fnv(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* The reference of the N bytes at P in the arena, added (with a NUL) when new: equal
** texts share one reference, so they compare as integers. */
static int arenaAdd(tb_tree *tr, const char *p, size_t n, uint32_t *ref) {
  size_t i;
  if (2 * (tr->in + 1) > tr->icap) { /* grow the index */
    size_t cap = tr->icap ? 2 * tr->icap : 1024;
    uint32_t *t = sqlite3_malloc64(cap * sizeof *t);
    if (!t) return SQLITE_NOMEM;
    memset(t, 0, cap * sizeof *t);
    for (size_t k = 0; k < tr->icap; k++) {
      uint32_t r = tr->itab[k];
      if (!r) continue;
      const char *z = tr->arena + r - 1;
      for (i = fnv(z, strlen(z)) & (cap - 1); t[i]; i = (i + 1) & (cap - 1)) {
      }
      t[i] = r;
    }
    sqlite3_free(tr->itab);
    tr->itab = t, tr->icap = cap;
  }
  for (i = fnv(p, n) & (tr->icap - 1); tr->itab[i]; i = (i + 1) & (tr->icap - 1)) {
    const char *z = tr->arena + tr->itab[i] - 1;
    if (!memcmp(z, p, n) && z[n] == 0) {
      *ref = tr->itab[i];
      return SQLITE_OK;
    }
  }
  if (tr->narena + n + 1 > tr->carena) {
    size_t c = tr->carena ? tr->carena : 4096;
    while (c < tr->narena + n + 1) c *= 2;
    if (c >= UINT32_MAX) return SQLITE_TOOBIG;
    char *a = sqlite3_realloc64(tr->arena, c);
    if (!a) return SQLITE_NOMEM;
    tr->arena = a, tr->carena = c;
  }
  memcpy(tr->arena + tr->narena, p, n);
  tr->arena[tr->narena + n] = 0;
  *ref = (uint32_t)(tr->narena + 1);
  tr->narena += n + 1;
  tr->itab[i] = *ref;
  tr->in++;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- loading (TB-1) */

/* The load's working state. */
typedef struct tb_load {
  sqlite3 *db;
  const hta_trace *t;
  tb_tree *tr;
  int shapes;
  uint8_t *cls; /* category_id -> C_*, ncls entries */
  int64_t ncls;
  size_t cnode, crt, cdev; /* allocated */
  int extra;               /* runtimes were added after the scan: sort them */
  int32_t ord;             /* the next row's file order (TB-14: copies continue it) */
  int64_t trace_id;        /* the trace scanned: T's own, or a capture of its job (TB-14) */
  const hg_attr *ga;       /* T's graph match (TB-14) */
  int32_t *wl_first, *wl;  /* the launches of each window (ga->w): wl[wl_first[w] ..] */
} tb_load;

/* Reads the category table into L->cls, and the id lists of the scan: ALL the
** categories read, ARGS those whose args are always needed (kernels, modules),
** NODES the node categories (their args for the shapes). */
static int loadCategories(tb_load *l, char **all, char **args, char **nodes) {
  sqlite3_str *s[3];
  sqlite3_stmt *st = 0;
  int rc;
  for (int i = 0; i < 3; i++) s[i] = sqlite3_str_new(0);
  rc = hta_prepare(l->db, l->t->schema, "SELECT category_id, lower(name) FROM $S.category", &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    const char *nm = (const char *)sqlite3_column_text(st, 1);
    int c = tb_category_class(nm);
    rc = SQLITE_OK;
    if (c == TB_C_NONE || id < 0 || id > INT32_MAX) continue;
    if (id >= l->ncls) {
      int64_t n = id + 1 > 2 * l->ncls ? id + 1 : 2 * l->ncls;
      uint8_t *p = sqlite3_realloc64(l->cls, (size_t)n);
      if (!p) {
        rc = SQLITE_NOMEM;
        break;
      }
      memset(p + l->ncls, TB_C_NONE, (size_t)(n - l->ncls));
      l->cls = p, l->ncls = n;
    }
    l->cls[id] = (uint8_t)c;
    sqlite3_str_appendf(s[0], ",%lld", (long long)id);
    if ((c == TB_C_KERNEL && !(l->shapes & TB_LOAD_NO_CONFIG)) || c == TB_C_PYFN)
      sqlite3_str_appendf(s[1], ",%lld", (long long)id);
    if (c == TB_C_OP || c == TB_C_ANN || c == TB_C_PY)
      sqlite3_str_appendf(s[2], ",%lld", (long long)id);
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  *all = sqlite3_str_finish(s[0]); /* NULL when empty */
  *args = sqlite3_str_finish(s[1]);
  *nodes = sqlite3_str_finish(s[2]);
  return rc;
}

/* Args read from rows (TB-1, TB-2, and the kernels' launch configuration). */
enum {
  A_EXT,
  A_EXT2,
  A_MODULE,
  A_DIMS,
  A_DIMS2,
  A_GRID,
  A_BLOCK,
  A_REGS,
  A_SMEM,
  A_BPS,
  A_OCC,
  A_N
};
static const hta_jkey tbArgKeys[A_N] = {
    HTA_JKEY("external id"),
    HTA_JKEY("External id"),
    HTA_JKEY("Python module id"),
    HTA_JKEY("Input Dims"),
    HTA_JKEY("Input dims"),
    HTA_JKEY("grid"),
    HTA_JKEY("block"),
    HTA_JKEY("registers per thread"),
    HTA_JKEY("shared memory"),
    HTA_JKEY("blocks per SM"),
    HTA_JKEY("est. achieved occupancy %"),
};

static int isNull(hta_jval v) { return !v.p || (v.n == 4 && !memcmp(v.p, "null", 4)); }

/* The scan's columns. */
enum { S_ID, S_CAT, S_NAME, S_TID, S_TS, S_DUR, S_EXT, S_LINK, S_DEVICE, S_ARGS };

/* TB-1: a row's External id: args "external id", else column COL, else args
** "External id" (an integer the ingest left in args). */
static int rowExt(sqlite3_stmt *st, int col, const hta_jval *a, int64_t *ext) {
  if (hta_json_int(a[A_EXT], ext)) return 1;
  if (sqlite3_column_type(st, col) != SQLITE_NULL) {
    *ext = sqlite3_column_int64(st, col);
    return 1;
  }
  return hta_json_int(a[A_EXT2], ext);
}

static int32_t rowName(sqlite3_stmt *st) {
  return sqlite3_column_type(st, S_NAME) == SQLITE_NULL ? -1 : sqlite3_column_int(st, S_NAME);
}

/* A node candidate (TB-2); the class rides in type and the name id in name until
** classify(). */
static int addNode(tb_load *l, sqlite3_stmt *st, int cls, const hta_jval *a, int32_t ord) {
  tb_tree *tr = l->tr;
  tb_node n;
  int64_t dur = sqlite3_column_int64(st, S_DUR);
  if (cls == TB_C_PYFN && isNull(a[A_MODULE])) return SQLITE_OK; /* TB-2: not an nn.Module */
  memset(&n, 0, sizeof n);
  n.ts = sqlite3_column_int64(st, S_TS);
  n.end = hta_end(n.ts, dur > 0 ? dur : 0);
  n.tid = hta_tid_key(sqlite3_column_value(st, S_TID));
  n.has_ext = cls != TB_C_PYFN && rowExt(st, S_EXT, a, &n.ext); /* a module has none */
  if (cls == TB_C_PYFN && !hta_json_int(a[A_MODULE], &n.mod)) n.mod = 0;
  n.ord = ord;
  n.name = rowName(st);
  n.child = n.next = n.merged_into = -1;
  n.type = (uint8_t)cls;
  if ((l->shapes & TB_LOAD_SHAPES) && cls != TB_C_PYFN) {
    hta_jval v = !isNull(a[A_DIMS]) ? a[A_DIMS] : a[A_DIMS2];
    if (!isNull(v)) {
      sqlite3_str *s = sqlite3_str_new(0);
      tb_pyrepr(s, v.p, v.n);
      int ns = sqlite3_str_length(s);
      char *z = sqlite3_str_finish(s);
      int rc = z ? arenaAdd(tr, z, (size_t)ns, &n.shape) : SQLITE_NOMEM;
      sqlite3_free(z);
      if (rc != SQLITE_OK) return rc;
    }
  }
  HTA_PUSH(tr->nodes, tr->nnode, l->cnode, 1024, n, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

static int addRuntime(tb_load *l, int64_t event_id, sqlite3_value *tid, int64_t ts, int64_t dur,
                      int has_ext, int64_t ext) {
  tb_tree *tr = l->tr;
  tb_rt r;
  memset(&r, 0, sizeof r);
  r.event_id = event_id;
  r.tid_text = sqlite3_value_type(tid) == SQLITE_TEXT; /* before hta_tid_key converts it */
  r.tid = hta_tid_key(tid);
  r.ts = ts;
  r.end = hta_end(ts, dur > 0 ? dur : 0);
  r.has_ext = (uint8_t)has_ext;
  r.ext = ext;
  r.has_time = 1;
  r.thread = -1;
  r.graft = -1;
  HTA_PUSH(tr->rts, tr->nrt, l->crt, 1024, r, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

/* A GPU event; its name id rides in name until the names are read. */
static int addDev(tb_load *l, sqlite3_stmt *st, int cls, const hta_jval *a) {
  tb_tree *tr = l->tr;
  tb_dev d;
  int rc = SQLITE_OK;
  double r;
  memset(&d, 0, sizeof d);
  d.event_id = sqlite3_column_int64(st, S_ID);
  d.ts = sqlite3_column_int64(st, S_TS);
  d.dur = sqlite3_column_int64(st, S_DUR);
  d.link_id = sqlite3_column_int64(st, S_LINK); /* 0 when NULL: no event has id 0 */
  d.has_device = sqlite3_column_type(st, S_DEVICE) != SQLITE_NULL;
  d.device = sqlite3_column_int64(st, S_DEVICE);
  d.kind = cls == TB_C_KERNEL ? TB_K_KERNEL : cls == TB_C_MEMCPY ? TB_K_MEMCPY : TB_K_MEMSET;
  d.rt = -1;
  d.name = rowName(st);
  d.has_ext = (uint8_t)rowExt(st, S_EXT, a, &d.ext);
  if (cls == TB_C_KERNEL) {
    if (!isNull(a[A_GRID])) rc = arenaAdd(tr, a[A_GRID].p, (size_t)a[A_GRID].n, &d.grid);
    if (rc == SQLITE_OK && !isNull(a[A_BLOCK]))
      rc = arenaAdd(tr, a[A_BLOCK].p, (size_t)a[A_BLOCK].n, &d.block);
    if (rc != SQLITE_OK) return rc;
    /* an integral value as the plugin prints it; beyond int64 (hostile) it is left out */
    if (hta_json_real(a[A_REGS], &r) && r > -9.2e18 && r < 9.2e18) d.regs = (int64_t)r;
    if (hta_json_real(a[A_SMEM], &r) && r > -9.2e18 && r < 9.2e18) d.smem = (int64_t)r;
    if (!hta_json_real(a[A_BPS], &d.blocks)) d.blocks = 0; /* missing counts as 0 */
    if (!hta_json_real(a[A_OCC], &d.occ)) d.occ = 0;
  }
  HTA_PUSH(tr->devs, tr->ndev, l->cdev, 1024, d, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

/* TB-14: a thread key of its own for the copy under launch L of a captured thread TID. */
static int64_t graftTid(int64_t tid, int32_t L) {
  uint64_t z = (uint64_t)tid + 0x9E3779B97F4A7C15ull * (uint64_t)(L + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return INT64_MIN + 2 + (int64_t)(z >> 2); /* below every real key */
}

/* TB-14: a captured row inside a merged window: one copy per launch of the window,
** moved onto the launch's time (the window's start at the launch's start), in a thread
** of its own. GPU events of the capture are not read. */
static int graftRow(tb_load *l, sqlite3_stmt *st, int cls, const hta_jval *a) {
  tb_tree *tr = l->tr;
  int64_t ts = sqlite3_column_int64(st, S_TS), dur = sqlite3_column_int64(st, S_DUR);
  long w = hg_window_find(l->ga, l->trace_id, ts, hta_end(ts, dur > 0 ? dur : 0));
  int rc = SQLITE_OK;
  if (w < 0 || cls == TB_C_NONE || cls >= TB_C_KERNEL) return SQLITE_OK;
  for (int32_t k = l->wl_first[w]; k < l->wl_first[w + 1] && rc == SQLITE_OK; k++) {
    int32_t L = l->wl[k];
    int64_t shift = hta_sub_sat(l->ga->l[L].ts, l->ga->w[w].ts);
    int64_t tid = graftTid(hta_tid_key(sqlite3_column_value(st, S_TID)), L);
    if (cls == TB_C_RT) {
      int64_t ext = 0;
      int has = rowExt(st, S_EXT, a, &ext);
      rc = addRuntime(l, sqlite3_column_int64(st, S_ID), sqlite3_column_value(st, S_TID), ts, dur,
                      has, ext);
      if (rc != SQLITE_OK) break;
      tb_rt *r = &tr->rts[tr->nrt - 1];
      r->ts = hta_add_sat(r->ts, shift), r->end = hta_add_sat(r->end, shift);
      r->tid = tid, r->tid_text = 0, r->graft = L;
    } else {
      size_t before = tr->nnode;
      if (l->ord == INT32_MAX) return SQLITE_TOOBIG;
      rc = addNode(l, st, cls, a, l->ord++);
      if (rc != SQLITE_OK || tr->nnode == before) continue;
      tb_node *n = &tr->nodes[tr->nnode - 1];
      n->ts = hta_add_sat(n->ts, shift), n->end = hta_add_sat(n->end, shift);
      n->tid = tid, n->graft = 1;
    }
  }
  return rc;
}

/* TB-1: one scan of the rows of trace l->trace_id (TB-14: a capture's, grafted). */
static int loadRows(tb_load *l) {
  char *zAll = 0, *zArgs = 0, *zNodes = 0, *sql = 0;
  sqlite3_stmt *st = 0;
  int graft = l->trace_id != l->t->trace_id;
  int rc = loadCategories(l, &zAll, &zArgs, &zNodes);
  if (rc != SQLITE_OK || !zAll) goto done; /* no category the plugin reads */
  /* the lists start with a comma */
  sql = sqlite3_mprintf(
      "SELECT event_id, category_id, name_id, tid, ts, dur, external_id, link_id, device,"
      " CASE WHEN external_id IS NULL OR category_id IN (-1%s) OR (?3 AND category_id IN (-1%s))"
      " THEN args END"
      " FROM $S.event WHERE event_id BETWEEN ?1 AND ?2 AND ph = 'X' AND ts IS NOT NULL"
      " AND dur IS NOT NULL AND category_id IN (%s)",
      zArgs ? zArgs : "", zNodes ? zNodes : "", zAll + 1);
  if (!sql) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  rc = hta_prepare(l->db, l->t->schema, sql, &st);
  if (rc != SQLITE_OK) goto done;
  sqlite3_bind_int64(st, 1, hta_trace_first_id(l->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(l->trace_id));
  sqlite3_bind_int(st, 3, (l->shapes & TB_LOAD_SHAPES) != 0);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t cat = sqlite3_column_int64(st, S_CAT);
    int cls = cat >= 0 && cat < l->ncls ? l->cls[cat] : TB_C_NONE;
    hta_jval a[A_N];
    hta_json_members((const char *)sqlite3_column_text(st, S_ARGS),
                     sqlite3_column_bytes(st, S_ARGS), tbArgKeys, A_N, a);
    rc = SQLITE_OK;
    if (graft) {
      rc = graftRow(l, st, cls, a);
    } else if (cls == TB_C_RT) {
      int64_t ext = 0;
      int has = rowExt(st, S_EXT, a, &ext);
      rc = addRuntime(l, sqlite3_column_int64(st, S_ID), sqlite3_column_value(st, S_TID),
                      sqlite3_column_int64(st, S_TS), sqlite3_column_int64(st, S_DUR), has, ext);
    } else if (cls >= TB_C_KERNEL) {
      rc = addDev(l, st, cls, a);
    } else if (cls != TB_C_NONE) {
      rc = addNode(l, st, cls, a, l->ord);
    }
    if (rc != SQLITE_OK) break;
    if (l->ord == INT32_MAX) {
      rc = SQLITE_TOOBIG;
      break;
    }
    if ((++l->ord & 0xffff) == 0 && hta_interrupted(l->db)) {
      rc = SQLITE_INTERRUPT;
      break;
    }
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
done:
  sqlite3_finalize(st);
  sqlite3_free(sql);
  sqlite3_free(zAll);
  sqlite3_free(zArgs);
  sqlite3_free(zNodes);
  return rc;
}

/* TB-5: the host rows that launched GPU events but are no runtime-category row
** (cuLaunchKernel), read one by one: few traces have them. */
static int loadLaunches(tb_load *l) {
  tb_tree *tr = l->tr;
  sqlite3_stmt *st = 0;
  int64_t *ids;
  size_t n = 0;
  int rc;
  if (!tr->ndev) return SQLITE_OK;
  ids = sqlite3_malloc64(tr->ndev * sizeof *ids);
  if (!ids) return SQLITE_NOMEM;
  for (size_t i = 0; i < tr->ndev; i++) { /* the runtimes are in event_id order */
    int64_t id = tr->devs[i].link_id;
    size_t lo = 0, hi = tr->nrt;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (tr->rts[mid].event_id < id) lo = mid + 1;
      else hi = mid;
    }
    if (id != 0 && (lo == tr->nrt || tr->rts[lo].event_id != id)) ids[n++] = id;
  }
  rc = n ? hta_prepare(l->db, l->t->schema,
                       "SELECT tid, ts, dur, external_id,"
                       " CASE WHEN external_id IS NULL THEN args END, category_id"
                       " FROM $S.event WHERE event_id = ?1 AND ph = 'X' AND stream IS NULL"
                       " AND ts IS NOT NULL AND dur IS NOT NULL",
                       &st)
         : SQLITE_OK;
  l->extra = n > 0;
  TB_QSORT(ids, n, hta_i64_cmp);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    if (i && ids[i] == ids[i - 1]) continue; /* one launch, several GPU events */
    sqlite3_bind_int64(st, 1, ids[i]);
    rc = sqlite3_step(st);
    int64_t cat = rc == SQLITE_ROW ? sqlite3_column_int64(st, 5) : -1;
    if (rc == SQLITE_ROW && cat >= 0 && cat < l->ncls && l->cls[cat] != TB_C_NONE) {
      rc = SQLITE_OK; /* a row the scan read already (a node): not a launch of its own */
    } else if (rc == SQLITE_ROW) {
      hta_jval a[A_N];
      int64_t ext = 0;
      hta_json_members((const char *)sqlite3_column_text(st, 4), sqlite3_column_bytes(st, 4),
                       tbArgKeys, A_N, a);
      int has = rowExt(st, 3, a, &ext);
      rc = addRuntime(l, ids[i], sqlite3_column_value(st, 0), sqlite3_column_int64(st, 1),
                      sqlite3_column_int64(st, 2), has, ext);
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_OK;
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_free(ids);
  return rc;
}

/* TB-14: the merged windows' rows of each capture the graph match used, grafted. */
static int graftRows(tb_load *l) {
  const hg_attr *ga = l->ga;
  int rc = SQLITE_OK;
  size_t n = 0;
  l->wl_first = sqlite3_malloc64((ga->nw + 1) * sizeof *l->wl_first);
  l->wl = sqlite3_malloc64((ga->nl ? ga->nl : 1) * sizeof *l->wl);
  if (!l->wl_first || !l->wl) return SQLITE_NOMEM;
  for (size_t w = 0; w < ga->nw; w++) { /* the launches of each window (few windows) */
    l->wl_first[w] = (int32_t)n;
    for (size_t i = 0; i < ga->nl; i++) {
      if (ga->l[i].window == (int32_t)w && ga->l[i].matched > 0) l->wl[n++] = (int32_t)i;
    }
  }
  l->wl_first[ga->nw] = (int32_t)n;
  for (size_t w = 0; w < ga->nw && rc == SQLITE_OK; w++) { /* each capture once */
    int64_t cap = ga->w[w].capture_trace_id;
    int seen = 0, used = 0;
    for (size_t v = 0; v < ga->nw; v++) {
      if (ga->w[v].capture_trace_id != cap) continue;
      if (v < w) seen = 1;
      if (l->wl_first[v + 1] > l->wl_first[v]) used = 1;
    }
    if (seen || !used) continue;
    l->trace_id = cap;
    rc = loadRows(l);
    l->extra = 1;
  }
  l->trace_id = l->t->trace_id;
  return rc;
}

/* TB-14: a grafted row has no host time: the CPU ran none of it at replay. */
static void graftTimes(tb_tree *tr) {
  for (size_t i = 0; i < tr->nnode; i++) {
    if (tr->nodes[i].graft) tr->nodes[i].end = tr->nodes[i].ts;
  }
  for (size_t i = 0; i < tr->nrt; i++) {
    if (tr->rts[i].graft >= 0) tr->rts[i].end = tr->rts[i].ts;
  }
}

typedef struct tb_gkey { /* a grafted dispatch: (launch, event id) -> runtime */
  int32_t launch, rt;
  int64_t event_id;
} tb_gkey;

static int gkeyCmp(const void *a, const void *b) {
  const tb_gkey *x = a, *y = b;
  if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* TB-14: each matched replayed kernel to its dispatch's copy instead of its launch. */
static int graftDevices(tb_tree *tr, const hg_attr *ga) {
  tb_gkey *k = 0;
  size_t n = 0, a = 0;
  for (size_t i = 0; i < tr->nrt; i++) {
    if (tr->rts[i].graft < 0) continue;
    tb_gkey x = {tr->rts[i].graft, (int32_t)i, tr->rts[i].event_id};
    HTA_PUSH(k, n, a, 256, x, gd_oom);
  }
  TB_QSORT(k, n, gkeyCmp);
  for (size_t i = 0; n && i < tr->ndev; i++) {
    long j = hg_attr_find(ga, tr->devs[i].event_id);
    if (j < 0 || ga->k[j].match != HG_MATCHED) continue;
    tb_gkey key = {ga->k[j].launch, 0, ga->k[j].dispatch_id};
    const tb_gkey *f = bsearch(&key, k, n, sizeof *k, gkeyCmp);
    if (f) tr->devs[i].rt = f->rt;
  }
  sqlite3_free(k);
  return SQLITE_OK;
gd_oom:
  sqlite3_free(k);
  return SQLITE_NOMEM;
}

static int rtIdCmp(const void *a, const void *b) {
  const tb_rt *x = a, *y = b;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* Reads the names of the nodes and GPU events and turns their name ids into slots. */
static int loadNames(tb_load *l) {
  tb_tree *tr = l->tr;
  size_t n = tr->nnode + tr->ndev;
  int32_t *ids = sqlite3_malloc64((n ? n : 1) * sizeof *ids);
  int rc;
  if (!ids) return SQLITE_NOMEM;
  for (size_t i = 0; i < tr->nnode; i++) ids[i] = tr->nodes[i].name;
  for (size_t i = 0; i < tr->ndev; i++) ids[tr->nnode + i] = tr->devs[i].name;
  rc = hta_name_slots(l->db, l->t->schema, ids, n, &tr->names, &tr->nnames);
  if (rc == SQLITE_OK) {
    for (size_t i = 0; i < tr->nnode; i++) tr->nodes[i].name = ids[i];
    for (size_t i = 0; i < tr->ndev; i++) tr->devs[i].name = ids[tr->nnode + i];
    tr->name_flags = sqlite3_malloc64((tr->nnames ? tr->nnames : 1) * sizeof *tr->name_flags);
    if (!tr->name_flags) rc = SQLITE_NOMEM;
    for (size_t i = 0; rc == SQLITE_OK && i < tr->nnames; i++)
      tr->name_flags[i] = tb_name_flags(tr->names[i]);
  }
  sqlite3_free(ids);
  return rc;
}

static int nameFlags(const tb_tree *tr, int32_t slot) {
  return slot >= 0 && (size_t)slot < tr->nnames ? tr->name_flags[slot] : 0;
}

/* TB-2: keeps the rows that are nodes, with their type. */
static void classify(tb_tree *tr) {
  size_t k = 0;
  for (size_t i = 0; i < tr->nnode; i++) {
    tb_node *n = &tr->nodes[i];
    int f = nameFlags(tr, n->name), cls = n->type;
    if (cls == TB_C_ANN && !(f & (TB_N_STEP | TB_N_DATALOADER | TB_N_OPTIMIZER | TB_N_COMM)))
      continue; /* another record_function range: no node */
    if (cls == TB_C_OP || cls == TB_C_ANN)
      n->type = (f & TB_N_STEP) ? TB_T_STEP : cls == TB_C_OP ? TB_T_OPERATOR : TB_T_ANNOTATION;
    else n->type = cls == TB_C_PY ? TB_T_PYTHON : TB_T_MODULE;
    n->is_op = cls == TB_C_OP && n->type == TB_T_OPERATOR && (f & TB_N_OPERATOR);
    tr->nodes[k++] = *n;
  }
  tr->nnode = k;
}

/* ---------------------------------------------------------------- threads and trees (TB-3) */

/* Reorders the N records of SIZE bytes at BASE so that record i becomes the old record
** PERM[i], in place (cycle by cycle); PERM is used up. TMP has room for one record. */
static void applyPerm(void *base, size_t n, size_t size, int32_t *perm, void *tmp) {
  char *a = base;
  for (size_t i = 0; i < n; i++) {
    if (perm[i] < 0) continue;
    size_t j = i;
    memcpy(tmp, a + i * size, size);
    while ((size_t)perm[j] != i) {
      size_t k = (size_t)perm[j];
      memcpy(a + j * size, a + k * size, size);
      perm[j] = -1;
      j = k;
    }
    memcpy(a + j * size, tmp, size);
    perm[j] = -1;
  }
}

/* A small map from thread keys to thread numbers (open addressing). */
typedef struct tb_tidmap {
  int64_t *keys;
  int32_t *vals;
  size_t cap, n;
} tb_tidmap;

static size_t tidSlot(const tb_tidmap *m, int64_t key) {
  size_t i = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 17) & (m->cap - 1);
  while (m->vals[i] >= 0 && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

static int32_t tidGet(const tb_tidmap *m, int64_t key) {
  return m->cap ? m->vals[tidSlot(m, key)] : -1;
}

static int tidPut(tb_tidmap *m, int64_t key, int32_t val) {
  if (2 * (m->n + 1) > m->cap) { /* grow and rehash */
    tb_tidmap g = {0, 0, m->cap ? 2 * m->cap : 16, 0};
    g.keys = sqlite3_malloc64(g.cap * sizeof *g.keys);
    g.vals = sqlite3_malloc64(g.cap * sizeof *g.vals);
    if (!g.keys || !g.vals) {
      sqlite3_free(g.keys);
      sqlite3_free(g.vals);
      return SQLITE_NOMEM;
    }
    memset(g.vals, 0xff, g.cap * sizeof *g.vals);
    for (size_t i = 0; i < m->cap; i++) {
      if (m->vals[i] < 0) continue;
      size_t s = tidSlot(&g, m->keys[i]);
      g.keys[s] = m->keys[i], g.vals[s] = m->vals[i];
    }
    g.n = m->n;
    sqlite3_free(m->keys);
    sqlite3_free(m->vals);
    *m = g;
  }
  size_t s = tidSlot(m, key);
  if (m->vals[s] < 0) m->n++;
  m->keys[s] = key, m->vals[s] = val;
  return SQLITE_OK;
}

static void tidFree(tb_tidmap *m) {
  sqlite3_free(m->keys);
  sqlite3_free(m->vals);
  memset(m, 0, sizeof *m);
}

typedef struct tb_first { /* a thread's first node in (ts, file order) */
  int64_t tid, ts;
  int32_t ord, id;
} tb_first;

static int firstCmp(const void *a, const void *b) {
  const tb_first *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->ord < y->ord ? -1 : x->ord > y->ord;
}

typedef struct tb_skey { /* a node's place: (thread, ts, -end, file order) */
  int64_t ts, end;
  int32_t thread, ord, idx;
} tb_skey;

static int skeyCmp(const void *a, const void *b) {
  const tb_skey *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Numbers the threads in the plugin's order (by their first node in (ts, file
** order)), sorts the nodes by (thread, ts, -end, file order) and appends one root
** per thread; MAP gets thread key -> thread. */
static int buildThreads(tb_tree *tr, tb_tidmap *map) {
  tb_first *first = 0;
  tb_skey *keys = 0;
  int32_t *perm = 0, *rank = 0;
  size_t nth = 0, cth = 0, n = tr->nnode;
  tb_node tmp, *grown;
  for (size_t i = 0; i < n; i++) { /* the nodes are in file order */
    const tb_node *nd = &tr->nodes[i];
    int32_t t = tidGet(map, nd->tid);
    if (t < 0) {
      tb_first f = {nd->tid, nd->ts, nd->ord, (int32_t)nth};
      if (tidPut(map, nd->tid, (int32_t)nth) != SQLITE_OK) goto oom;
      HTA_PUSH(first, nth, cth, 16, f, oom);
    } else if (nd->ts < first[t].ts) {
      first[t].ts = nd->ts, first[t].ord = nd->ord;
    }
  }
  TB_QSORT(first, nth, firstCmp);
  rank = sqlite3_malloc64((nth ? nth : 1) * sizeof *rank);
  tr->threads = sqlite3_malloc64((nth ? nth : 1) * sizeof *tr->threads);
  keys = sqlite3_malloc64((n ? n : 1) * sizeof *keys);
  perm = sqlite3_malloc64((n ? n : 1) * sizeof *perm);
  if (!rank || !tr->threads || !keys || !perm) goto oom;
  for (size_t t = 0; t < nth; t++) {
    rank[first[t].id] = (int32_t)t;
    memset(&tr->threads[t], 0, sizeof tr->threads[t]);
    tr->threads[t].tid = first[t].tid;
    if (tidPut(map, first[t].tid, (int32_t)t) != SQLITE_OK) goto oom;
  }
  for (size_t i = 0; i < n; i++) {
    tb_node *nd = &tr->nodes[i];
    nd->thread = tidGet(map, nd->tid);
    if (nameFlags(tr, nd->name) & TB_N_STEP) tr->threads[nd->thread].has_step = 1;
    tb_skey k = {nd->ts, nd->end, nd->thread, nd->ord, (int32_t)i};
    keys[i] = k;
  }
  TB_QSORT(keys, n, skeyCmp);
  for (size_t i = 0; i < n; i++) perm[i] = keys[i].idx;
  applyPerm(tr->nodes, n, sizeof *tr->nodes, perm, &tmp);
  grown = sqlite3_realloc64(tr->nodes, (n + nth + 1) * sizeof *grown);
  if (!grown) goto oom;
  tr->nodes = grown;
  for (size_t t = 0; t < nth; t++) { /* the roots */
    tb_node *r = &tr->nodes[n + t];
    memset(r, 0, sizeof *r);
    r->ts = INT64_MIN, r->end = INT64_MAX;
    r->tid = tr->threads[t].tid;
    r->thread = (int32_t)t;
    r->name = TB_NAME_ROOT;
    r->child = r->next = r->merged_into = -1;
    r->ord = -1;
    r->type = TB_T_ROOT;
    tr->threads[t].root = (int32_t)(n + t);
  }
  tr->nthread = nth;
  tr->nnode = n + nth;
  sqlite3_free(first);
  sqlite3_free(rank);
  sqlite3_free(keys);
  sqlite3_free(perm);
  return SQLITE_OK;
oom:
  sqlite3_free(first);
  sqlite3_free(rank);
  sqlite3_free(keys);
  sqlite3_free(perm);
  return SQLITE_NOMEM;
}

/* TB-3: nests each thread's nodes under its root with a stack. */
static int buildTrees(tb_tree *tr) {
  size_t nreal = tr->nnode - tr->nthread;
  int32_t *stack = sqlite3_malloc64((nreal + 1) * sizeof *stack);
  int32_t *last = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * sizeof *last);
  size_t sp = 0;
  if (!stack || !last) {
    sqlite3_free(stack);
    sqlite3_free(last);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < tr->nnode; i++) last[i] = -1;
  for (size_t i = 0; i < nreal; i++) {
    tb_node *n = &tr->nodes[i];
    if (i == 0 || n->thread != tr->nodes[i - 1].thread) {
      sp = 0;
      stack[sp++] = tr->threads[n->thread].root;
    }
    /* the root never ends (but a node at ts INT64_MAX, in a hostile database) */
    while (sp > 1 && !(n->ts < tr->nodes[stack[sp - 1]].end)) sp--;
    int32_t p = stack[sp - 1];
    if (n->end > tr->nodes[p].end) {
      n->dropped = 1; /* starts inside, ends after: the plugin drops it */
      continue;
    }
    if (last[p] < 0) tr->nodes[p].child = (int32_t)i;
    else tr->nodes[last[p]].next = (int32_t)i;
    last[p] = (int32_t)i;
    stack[sp++] = (int32_t)i;
  }
  sqlite3_free(stack);
  sqlite3_free(last);
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- runtimes (TB-4..7) */

typedef struct tb_key { /* a node by External id */
  int64_t ext, ts;
  int32_t thread, ord, node;
  uint8_t has_ext;
} tb_key;

/* Ours: (thread, ext, ts, file order) of the nodes of a thread with an id. */
static int keyThreadCmp(const void *a, const void *b) {
  const tb_key *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* The plugin's: (has_ext, ext, thread order, ts, file order) of every node. */
static int keyGlobalCmp(const void *a, const void *b) {
  const tb_key *x = a, *y = b;
  if (x->has_ext != y->has_ext) return x->has_ext < y->has_ext ? -1 : 1;
  if (x->has_ext && x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Compares K's lookup fields with key M: (thread, ext) ours, (has_ext, ext) global. */
static int keyFind(const tb_key *m, const tb_key *k, int global) {
  if (global) {
    if (m->has_ext != k->has_ext) return m->has_ext < k->has_ext ? -1 : 1;
    return !m->has_ext || m->ext == k->ext ? 0 : m->ext < k->ext ? -1 : 1;
  }
  if (m->thread != k->thread) return m->thread < k->thread ? -1 : 1;
  return m->ext == k->ext ? 0 : m->ext < k->ext ? -1 : 1;
}

/* The node of the first key matching K, or -1. */
static int32_t findKey(const tb_key *keys, size_t n, const tb_key *k, int global) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (keyFind(&keys[mid], k, global) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && keyFind(&keys[lo], k, global) == 0 ? keys[lo].node : -1;
}

static int addAtt(tb_tree *tr, int32_t node, int32_t rt) {
  tb_att a = {node, rt};
  HTA_PUSH(tr->att, tr->natt, tr->catt, 1024, a, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

typedef struct tb_pend { /* a runtime waiting for the time rule */
  int64_t ts, end;
  int32_t thread, rt;
} tb_pend;

static int pendCmp(const void *a, const void *b) {
  const tb_pend *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->rt < y->rt ? -1 : x->rt > y->rt;
}

/* TB-6, the time rule: each pending runtime hangs under the innermost node of its
** thread that holds [ts, end] (half-open at the node's end), else its root. */
static int attachByTime(tb_tree *tr, tb_pend *p, size_t np) {
  size_t nreal = tr->nnode - tr->nthread, j = 0, sp = 0;
  int32_t *stack = sqlite3_malloc64((nreal + 1) * sizeof *stack);
  int32_t cur = -1;
  int rc = SQLITE_OK;
  if (!stack) return SQLITE_NOMEM;
  TB_QSORT(p, np, pendCmp);
  for (size_t k = 0; k < np && rc == SQLITE_OK; k++) {
    if (p[k].thread != cur) { /* a new thread: its nodes start at j */
      cur = p[k].thread;
      while (j < nreal && tr->nodes[j].thread < cur) j++;
      sp = 0;
      stack[sp++] = tr->threads[cur].root;
    }
    for (; j < nreal && tr->nodes[j].thread == cur && tr->nodes[j].ts <= p[k].ts; j++) {
      if (tr->nodes[j].dropped) continue;
      while (sp > 1 && tr->nodes[stack[sp - 1]].end <= tr->nodes[j].ts) sp--;
      stack[sp++] = (int32_t)j;
    }
    while (sp > 1 && tr->nodes[stack[sp - 1]].end <= p[k].ts) sp--;
    size_t s = sp;
    while (s > 1 && tr->nodes[stack[s - 1]].end < p[k].end) s--;
    rc = addAtt(tr, stack[s - 1], p[k].rt);
  }
  sqlite3_free(stack);
  return rc;
}

/* TB-6: hangs every runtime under its node(s); MAP: thread key -> thread. */
static int attachRuntimes(tb_tree *tr, const tb_tidmap *map) {
  size_t nreal = tr->nnode - tr->nthread, nk = 0, np = 0;
  int global = (tr->quirks & TB_Q_EXTID) != 0;
  tb_key *keys = sqlite3_malloc64((nreal ? nreal : 1) * sizeof *keys);
  tb_pend *pend = sqlite3_malloc64((tr->nrt ? tr->nrt : 1) * sizeof *pend);
  int rc = keys && pend ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < nreal; i++) {
    const tb_node *n = &tr->nodes[i];
    if (!global && (!n->has_ext || n->dropped)) continue;
    tb_key k = {n->ext, n->ts, n->thread, n->ord, (int32_t)i, n->has_ext};
    keys[nk++] = k;
  }
  if (rc == SQLITE_OK) TB_QSORT(keys, nk, global ? keyGlobalCmp : keyThreadCmp);
  for (size_t i = 0; rc == SQLITE_OK && i < tr->nrt; i++) {
    tb_rt *r = &tr->rts[i];
    r->thread = tidGet(map, r->tid);
    tb_key k = {r->ext, 0, r->thread, 0, 0, r->has_ext};
    int32_t node;
    if (global) {                                                      /* the plugin */
      if (r->has_ext && r->ext == 0 && r->thread >= 0 && !r->tid_text) /* keyed by the raw tid */
        rc = addAtt(tr, tr->threads[r->thread].root, (int32_t)i);
      node = findKey(keys, nk, &k, 1);
      if (node >= 0 && rc == SQLITE_OK) rc = addAtt(tr, node, (int32_t)i);
      continue;
    }
    if (r->thread < 0) continue; /* a thread without nodes: no tree */
    node = r->has_ext ? findKey(keys, nk, &k, 0) : -1;
    if (node >= 0) {
      rc = addAtt(tr, node, (int32_t)i);
    } else {
      tb_pend pe = {r->ts, r->end, r->thread, (int32_t)i};
      pend[np++] = pe;
    }
  }
  if (rc == SQLITE_OK && np) rc = attachByTime(tr, pend, np);
  sqlite3_free(keys);
  sqlite3_free(pend);
  return rc;
}

/* TB-4, TB-7: GPU events to their runtimes (by link_id), the placeholder for kernels
** without one with its attachments, and each runtime's GPU time. The GPU events end
** up ordered by runtime (those of none last), in file order within one. */
static int linkDevices(tb_tree *tr, const hg_attr *ga) {
  size_t nun = 0, nb;
  int32_t *pos = 0, *perm = 0;
  tb_dev tmp;
  /* a table by event_id when the runtimes' ids are dense enough, else binary search */
  int64_t base = tr->nrt ? tr->rts[0].event_id : 0;
  int64_t span = tr->nrt ? tr->rts[tr->nrt - 1].event_id - base + 1 : 0;
  int32_t *byId = 0;
  if (span > 0 && (uint64_t)span <= 8 * (uint64_t)tr->nrt + 65536) {
    if (!(byId = sqlite3_malloc64((size_t)span * sizeof *byId))) return SQLITE_NOMEM;
    memset(byId, 0xff, (size_t)span * sizeof *byId);
    for (size_t i = 0; i < tr->nrt; i++) byId[tr->rts[i].event_id - base] = (int32_t)i;
  }
  for (size_t i = 0; i < tr->ndev; i++) {
    tb_dev *d = &tr->devs[i];
    int64_t k = hta_sub_sat(d->link_id, base); /* a hostile link_id is any int64 */
    d->rt = -1;
    if (d->link_id == 0 || k < 0 || k >= span) {
    } else if (byId) {
      d->rt = byId[k];
    } else {
      size_t lo = 0, hi = tr->nrt;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tr->rts[mid].event_id < d->link_id) lo = mid + 1;
        else hi = mid;
      }
      if (lo < tr->nrt && tr->rts[lo].event_id == d->link_id) d->rt = (int32_t)lo;
    }
  }
  sqlite3_free(byId);
  if (ga->nl && graftDevices(tr, ga) != SQLITE_OK) return SQLITE_NOMEM;
  for (size_t i = 0; i < tr->ndev; i++) {
    if (tr->devs[i].rt < 0 && tr->devs[i].kind == TB_K_KERNEL) nun++;
  }
  if (nun) { /* TB-7: the placeholder */
    int every = (tr->quirks & TB_Q_UNLINKED) != 0;
    size_t first = 0, crt = tr->nrt;
    tb_rt r;
    memset(&r, 0, sizeof r);
    r.event_id = -1, r.thread = -1;
    HTA_PUSH(tr->rts, tr->nrt, crt, 1, r, oom);
    for (size_t i = 0; i < tr->ndev; i++) {
      if (tr->devs[i].rt < 0 && tr->devs[i].kind == TB_K_KERNEL)
        tr->devs[i].rt = (int32_t)(tr->nrt - 1);
    }
    while (first < tr->nthread && !tr->threads[first].has_step) first++;
    if (first == tr->nthread) first = 0; /* no step: the first thread */
    for (size_t t = 0; t < tr->nthread; t++) {
      if (every ? !tr->threads[t].has_step : t != first) continue;
      if (addAtt(tr, tr->threads[t].root, (int32_t)(tr->nrt - 1)) != SQLITE_OK) goto oom;
    }
  }
  nb = tr->nrt + 1; /* a counting sort by runtime; bucket nrt: none */
  pos = sqlite3_malloc64((nb + 1) * sizeof *pos);
  perm = sqlite3_malloc64((tr->ndev ? tr->ndev : 1) * sizeof *perm);
  if (!pos || !perm) goto oom;
  memset(pos, 0, (nb + 1) * sizeof *pos);
  for (size_t i = 0; i < tr->ndev; i++) {
    int32_t b = tr->devs[i].rt < 0 ? (int32_t)tr->nrt : tr->devs[i].rt;
    pos[b + 1]++;
  }
  for (size_t b = 0; b < nb; b++) pos[b + 1] += pos[b];
  for (size_t i = 0; i < tr->ndev; i++) {
    int32_t b = tr->devs[i].rt < 0 ? (int32_t)tr->nrt : tr->devs[i].rt;
    perm[pos[b]++] = (int32_t)i;
  }
  applyPerm(tr->devs, tr->ndev, sizeof *tr->devs, perm, &tmp);
  for (size_t i = 0; i < tr->ndev; i++) {
    tb_dev *d = &tr->devs[i];
    if (d->rt < 0) continue;
    tb_rt *rt = &tr->rts[d->rt];
    if (rt->ndev == 0) rt->dev_first = (int32_t)i;
    rt->ndev++;
    rt->dev_ns = hta_add_sat(rt->dev_ns, d->dur);
    if (d->kind == TB_K_KERNEL) rt->k_ns = hta_add_sat(rt->k_ns, d->dur);
    if (tb_dev_tc(tr, d)) rt->tc_ns = hta_add_sat(rt->tc_ns, d->dur);
  }
  sqlite3_free(pos);
  sqlite3_free(perm);
  return SQLITE_OK;
oom:
  sqlite3_free(pos);
  sqlite3_free(perm);
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- merges and times (TB-8..12) */

/* TB-8: same-name chains, parents first. LAST[n] = the last node N absorbed. */
static int mergeChains(tb_tree *tr, int32_t *last) {
  int32_t *stack = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * sizeof *stack);
  size_t sp = 0;
  if (!stack) return SQLITE_NOMEM;
  for (size_t i = 0; i < tr->nnode; i++) last[i] = -1;
  for (size_t t = 0; t < tr->nthread; t++) {
    stack[sp++] = tr->threads[t].root;
    while (sp) {
      tb_node *n = &tr->nodes[stack[--sp]];
      while (n->child >= 0 && tr->nodes[n->child].next < 0) {
        int32_t ci = n->child;
        tb_node *c = &tr->nodes[ci];
        if (n->type != TB_T_OPERATOR || c->type != TB_T_OPERATOR || n->name != c->name) break;
        int32_t self = (int32_t)(n - tr->nodes);
        n->child = c->child;
        c->merged_into = self;
        last[self] = ci;
      }
      for (int32_t c = n->child; c >= 0; c = tr->nodes[c].next) stack[sp++] = c;
    }
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

/* Attachment order: by node, then the runtime's (ts, -end), untimed last. */
typedef struct tb_attk {
  int64_t ts, end;
  int32_t node, rt;
  int untimed;
} tb_attk;

static int attkCmp(const void *a, const void *b) {
  const tb_attk *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  if (x->untimed != y->untimed) return x->untimed < y->untimed ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->rt < y->rt ? -1 : x->rt > y->rt;
}

/* TB-8: moves the attachments of absorbed nodes to the absorbing one (TB_Q_MERGE:
** it keeps only those of the last node it absorbed), drops those of dropped nodes,
** sorts them and indexes them by node. */
static int finishAtt(tb_tree *tr, const int32_t *last) {
  tb_attk *k = sqlite3_malloc64((tr->natt ? tr->natt : 1) * sizeof *k);
  size_t n = 0;
  if (!k) return SQLITE_NOMEM;
  tr->att_first = sqlite3_malloc64((tr->nnode + 1) * sizeof *tr->att_first);
  if (!tr->att_first) {
    sqlite3_free(k);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < tr->natt; i++) {
    int32_t p = tr->att[i].node, f = p;
    if (tr->nodes[p].dropped) continue;
    while (tr->nodes[f].merged_into >= 0) f = tr->nodes[f].merged_into;
    if ((tr->quirks & TB_Q_MERGE) && last[f] >= 0 && p != last[f]) continue;
    const tb_rt *r = &tr->rts[tr->att[i].rt];
    tb_attk e = {r->ts, r->end, f, tr->att[i].rt, !r->has_time};
    k[n++] = e;
  }
  TB_QSORT(k, n, attkCmp);
  for (size_t i = 0; i < n; i++) tr->att[i].node = k[i].node, tr->att[i].rt = k[i].rt;
  tr->natt = n;
  sqlite3_free(k);
  size_t j = 0;
  for (size_t i = 0; i <= tr->nnode; i++) {
    while (j < n && (size_t)tr->att[j].node < i) j++;
    tr->att_first[i] = (int32_t)j;
  }
  return SQLITE_OK;
}

/* TB-9 for node N, whose children are done. */
static void nodeTimes(tb_tree *tr, tb_node *n) {
  int op = n->type == TB_T_OPERATOR;
  int32_t self = (int32_t)(n - tr->nodes);
  int64_t host = n->type == TB_T_ROOT ? 0 : hta_sub_sat(n->end, n->ts);
  n->tc = (nameFlags(tr, n->name) & TB_N_ELIGIBLE) != 0;
  for (int32_t c = n->child; c >= 0; c = tr->nodes[c].next) {
    const tb_node *ch = &tr->nodes[c];
    host = hta_sub_sat(host, hta_sub_sat(ch->end, ch->ts));
    n->dev_total = hta_add_sat(n->dev_total, ch->dev_total);
    n->tc_total = hta_add_sat(n->tc_total, ch->tc_total);
    if (op && ch->tc) n->tc = 1;
  }
  for (int32_t a = tr->att_first[self]; a < tr->att_first[self + 1]; a++) {
    const tb_rt *r = &tr->rts[tr->att[a].rt];
    if (r->has_time) host = hta_sub_sat(host, hta_sub_sat(r->end, r->ts));
    n->dev_self = hta_add_sat(n->dev_self, r->dev_ns);
    n->tc_self = hta_add_sat(n->tc_self, r->tc_ns);
    if (r->event_id >= 0) n->k_self = hta_add_sat(n->k_self, r->k_ns); /* TB-13 */
    if (op && r->tc_ns > 0) n->tc = 1;
  }
  n->host_self = n->type == TB_T_ROOT ? 0 : host;
  n->dev_total = hta_add_sat(n->dev_total, n->dev_self);
  n->tc_total = hta_add_sat(n->tc_total, n->tc_self);
}

/* TB-9, TB-10: one post-order pass per thread, in thread order. */
static int traverse(tb_tree *tr) {
  int32_t *stack = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * 2 * sizeof *stack);
  tr->trav = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * sizeof *tr->trav);
  if (!stack || !tr->trav) {
    sqlite3_free(stack);
    return SQLITE_NOMEM;
  }
  tr->ntrav = 0;
  for (size_t t = 0; t < tr->nthread; t++) {
    int32_t root = tr->threads[t].root;
    size_t sp = 1;
    stack[0] = root, stack[1] = tr->nodes[root].child;
    while (sp) {
      int32_t *top = &stack[2 * (sp - 1)];
      if (top[1] >= 0) {
        int32_t c = top[1];
        top[1] = tr->nodes[c].next;
        stack[2 * sp] = c, stack[2 * sp + 1] = tr->nodes[c].child;
        sp++;
      } else {
        tb_node *n = &tr->nodes[top[0]];
        nodeTimes(tr, n);
        tr->trav[tr->ntrav++] = top[0];
        sp--;
      }
    }
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

typedef struct tb_ek {
  int64_t ext;
  int has;
} tb_ek;

static int ekCmp(const void *a, const void *b) {
  const tb_ek *x = a, *y = b;
  if (x->has != y->has) return x->has < y->has ? -1 : 1;
  if (!x->has) return 0;
  return x->ext < y->ext ? -1 : x->ext > y->ext;
}

/* TB-12: is there a kernel launched by no collective? */
static int kernelView(tb_tree *tr) {
  size_t nreal = tr->nnode - tr->nthread, n = 0;
  tb_ek *k = sqlite3_malloc64((nreal ? nreal : 1) * sizeof *k);
  if (!k) return SQLITE_NOMEM;
  for (size_t i = 0; i < nreal; i++) {
    const tb_node *nd = &tr->nodes[i];
    if (nameFlags(tr, nd->name) & TB_N_COMM) k[n].ext = nd->ext, k[n++].has = nd->has_ext;
  }
  TB_QSORT(k, n, ekCmp);
  tr->kernel_view = 0;
  for (size_t i = 0; i < tr->ndev && !tr->kernel_view; i++) {
    const tb_dev *d = &tr->devs[i];
    tb_ek e = {d->ext, d->has_ext};
    if (d->kind == TB_K_KERNEL && !bsearch(&e, k, n, sizeof *k, ekCmp)) tr->kernel_view = 1;
  }
  sqlite3_free(k);
  return SQLITE_OK;
}

int tb_tree_load(sqlite3 *db, const hta_trace *t, int quirks, int shapes, tb_tree *tr) {
  tb_load l;
  tb_tidmap map = {0, 0, 0, 0};
  int32_t *last = 0;
  hg_attr ga;
  int rc;
  memset(tr, 0, sizeof *tr);
  memset(&l, 0, sizeof l);
  memset(&ga, 0, sizeof ga);
  tr->quirks = quirks;
  l.db = db, l.t = t, l.tr = tr, l.shapes = shapes, l.trace_id = t->trace_id, l.ga = &ga;
  rc = loadRows(&l);
  if (rc == SQLITE_OK && !(quirks & TB_Q_DRIVER)) rc = loadLaunches(&l);
  if (rc == SQLITE_OK) rc = hg_attr_load(db, t, 0, &ga);
  if (rc == SQLITE_OK && ga.nl) rc = graftRows(&l);
  sqlite3_free(l.cls);
  sqlite3_free(l.wl_first);
  sqlite3_free(l.wl);
  if (rc == SQLITE_OK && l.extra) TB_QSORT(tr->rts, tr->nrt, rtIdCmp);
  if (rc == SQLITE_OK) rc = loadNames(&l);
  if (rc == SQLITE_OK) classify(tr);
  if (rc == SQLITE_OK) rc = buildThreads(tr, &map);
  if (rc == SQLITE_OK) rc = buildTrees(tr);
  if (rc == SQLITE_OK) rc = attachRuntimes(tr, &map);
  tidFree(&map);
  if (rc == SQLITE_OK && ga.nl) graftTimes(tr);
  if (rc == SQLITE_OK) rc = linkDevices(tr, &ga);
  hg_attr_free(&ga);
  if (rc == SQLITE_OK && !(last = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * sizeof *last)))
    rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = mergeChains(tr, last);
  if (rc == SQLITE_OK) rc = finishAtt(tr, last);
  if (rc == SQLITE_OK) rc = traverse(tr);
  if (rc == SQLITE_OK) rc = kernelView(tr);
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  sqlite3_free(last);
  if (rc != SQLITE_OK) tb_tree_free(tr);
  return rc;
}

/* ---------------------------------------------------------------- tensor-core figures (TB-13) */

void tb_tc_free(tb_tc *tc) {
  sqlite3_free(tc->gpu);
  memset(tc, 0, sizeof *tc);
}

static int gpuCmp(const void *a, const void *b) {
  const tb_tc_gpu *x = a, *y = b;
  return x->device < y->device ? -1 : x->device > y->device;
}

/* Adds the kernels of node I's own runtimes to their GPU's times in OUT. */
static void gpuTimes(const tb_tree *tr, int32_t i, tb_tc *out) {
  for (int32_t a = tr->att_first[i]; a < tr->att_first[i + 1]; a++) {
    const tb_rt *r = &tr->rts[tr->att[a].rt];
    for (int32_t j = r->dev_first; j < r->dev_first + r->ndev; j++) {
      const tb_dev *d = &tr->devs[j];
      if (d->kind != TB_K_KERNEL) continue;
      out->has_op_kernels = 1;
      tb_tc_gpu key = {d->device, 0, 0};
      tb_tc_gpu *g =
          d->has_device ? bsearch(&key, out->gpu, (size_t)out->ngpu, sizeof key, gpuCmp) : 0;
      if (!g) continue; /* no device: the plugin would raise */
      g->kernel_ns = hta_add_sat(g->kernel_ns, d->dur);
      if (tb_dev_tc(tr, d)) g->tc_ns = hta_add_sat(g->tc_ns, d->dur);
    }
  }
}

int tb_tc_compute(const tb_tree *tr, tb_tc *out) {
  int64_t *ids = sqlite3_malloc64((tr->ndev ? tr->ndev : 1) * sizeof *ids);
  uint8_t *below = sqlite3_malloc64(tr->nnode ? tr->nnode : 1); /* an eligible descendant */
  size_t n = 0;
  memset(out, 0, sizeof *out);
  if (!ids || !below) goto oom;
  out->kernel_view = tr->kernel_view;
  for (size_t i = 0; i < tr->ndev; i++) {
    const tb_dev *d = &tr->devs[i];
    if (d->kind != TB_K_KERNEL) continue;
    out->kernel_ns = hta_add_sat(out->kernel_ns, d->dur);
    if (tb_dev_tc(tr, d)) out->tc_ns = hta_add_sat(out->tc_ns, d->dur);
    if (d->has_device) ids[n++] = d->device;
  }
  TB_QSORT(ids, n, hta_i64_cmp);
  out->gpu = sqlite3_malloc64((n ? n : 1) * sizeof *out->gpu);
  if (!out->gpu) goto oom;
  for (size_t i = 0; i < n; i++) {
    if (i && ids[i] == ids[i - 1]) continue;
    tb_tc_gpu g = {ids[i], 0, 0};
    out->gpu[out->ngpu++] = g;
  }
  for (size_t k = 0; k < tr->ntrav; k++) { /* children before parents */
    int32_t i = tr->trav[k];
    const tb_node *nd = &tr->nodes[i];
    int sub = 0;
    for (int32_t c = nd->child; c >= 0; c = tr->nodes[c].next) sub |= below[c] | tr->nodes[c].tc;
    below[i] = (uint8_t)sub;
    if (nd->tc && !sub) {
      out->bottom_nodes++;
      out->eligible_ns = hta_add_sat(out->eligible_ns, nd->k_self);
    }
    if (!nd->is_op) continue;
    out->op_ns = hta_add_sat(out->op_ns, nd->k_self);
    out->eligible_ops += nd->tc;
    gpuTimes(tr, i, out);
  }
  sqlite3_free(ids);
  sqlite3_free(below);
  return SQLITE_OK;
oom:
  sqlite3_free(ids);
  sqlite3_free(below);
  tb_tc_free(out);
  return SQLITE_NOMEM;
}

int tb_tc_figures(sqlite3 *db, const hta_trace *t, tb_tc *out) {
  tb_tree tr;
  int rc = tb_tree_load(db, t, 0, TB_LOAD_NO_CONFIG, &tr); /* no Kernel view here */
  memset(out, 0, sizeof *out);
  if (rc != SQLITE_OK) return rc;
  rc = tb_tc_compute(&tr, out);
  tb_tree_free(&tr);
  return rc;
}

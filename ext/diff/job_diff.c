/*
** job_diff.c: hta_job_diff, what changed between two runs, operator by operator: the
** two runs' call trees matched node by node as AMD TraceLens's TraceDiff matches them
** (the same call in the same place of the model, not only the same name), each
** matched pair with both sides' host time, GPU time and kernel count, and the
** comparison points where the two runs' GPU work is compared.
**
**   SELECT name, match, control_kernel_us, test_kernel_us, delta_us FROM hta_job_diff
**    WHERE control_job = 'before' AND test_job = 'after' AND is_comparison_point
**    ORDER BY abs(point_delta_us) DESC LIMIT 10;
**   SELECT * FROM hta_job_diff('a', 'b', 0, 0);             -- rank 0 of both
**   SELECT * FROM hta_job_diff WHERE test_schema = 'other'; -- an ATTACHed database
**
** Parameters: job_diff_vtab.c (control_job, test_job, control_rank, test_rank,
** control_schema, test_schema).
** Columns: node_id, parent_node_id, depth, name, match ('matched', 'renamed',
** 'control_only', 'test_only'), control_seq, test_seq (the event's position in its
** traceEvents), control_name, test_name, control_kind, test_kind ('cpu_op',
** 'runtime', 'graph_launch', 'kernel', 'gpu_memcpy', 'gpu_memset', 'gpu'),
** control_host_us, test_host_us (the event's dur), control_kernels, test_kernels,
** control_kernel_us, test_kernel_us (the GPU events at or below the node: their
** number and summed dur), delta_us (test - control kernel time), control_busy_us,
** test_busy_us (their busy time: the union), is_comparison_point,
** point_control_kernels, point_test_kernels, point_control_us, point_test_us,
** point_delta_us (at a comparison point: the GPU events it compares and their busy
** time per side), point_seqs (those events' seq: JSON {"control": [...], "test":
** [...]}, each by seq), control_trace_id, test_trace_id.
**
** Requirements (tests cite them as JD-n; expected/README.md 17 is TraceDiff):
**  1. Each side is one trace file (job_diff_vtab.c), whole: no last-step cut.
**  2. A side's tree is TraceLens's (op_perf.c OP-2): cpu_op, cuda_runtime and
**     cuda_driver events nested per thread by (ts, seq), a bleed under 1 us moved
**     up, a larger one left out. A GPU event (kernel, gpu_memcpy, gpu_memset) is a
**     leaf under the runtime call it is linked to by correlation (event.link_id;
**     TraceLens needs ac2g flow events: deviation JD-a). A node is on the GPU path
**     when a GPU event is at or below it; children lists hold host children by
**     (ts, seq), then GPU events in file order.
**  3. Names are compared after TraceDiff's normalisation (job_diff_names.c).
**  4. Roots: every cpu_op without a cpu_op above it, taken to its top ancestor,
**     then down while that has one child that is neither a cpu_op nor a runtime call
**     (graph launches and GPU events are descended into); each once, in (ts, seq)
**     order. The two root lists are aligned as a child list is (JD-5's names); roots
**     left unmatched on both sides under one name are paired (a call moved: the k-th
**     with the k-th); the unmatched roots between two matches are paired in order
**     when there are as many on each side (renamed in place), else one-sided
**     (TraceDiff pairs roots by position: deviation JD-b). A pair met twice is one
**     node. A node 256 levels deep gets no children.
**  5. A pair's children (TraceDiff's traverse_and_merge): each side's GPU-path
**     children, plus the last child of a name that is a GPU-path child name only on
**     the other side; both sorted by ts (stable). Phase 1: when the counts differ
**     and one side has one child, that child is descended through nodes with one
**     GPU-path child (stopping at a runtime call or a cpu_op with a runtime child);
**     if that ends at several, the pair's own node on that side becomes the one
**     reached and its children those. Phase 2: equal counts and no runtime call
**     (graph launches aside) among them: matched by position; else aligned by
**     Wagner-Fischer on names (a match whenever the names are equal, else a delete
**     when the cost allows, else an insert), lists over 2^28 cells position by
**     position. Phase 3: for an unmatched control/test pair, neither a kernel nor a
**     runtime call, when one's name is among the other's GPU-path children, or
**     both have the same GPU-path child names, the wrapper(s) are replaced by those
**     children (re-sorted by ts); earlier matches stay, the rest is aligned again.
**     Phase 4: the still unmatched of both sides are each collapsed as in phase 1
**     and aligned, then the leftovers by names with details stripped. The pairs
**     recurse in alignment order; the unmatched become one-sided subtrees.
**  6. After each name alignment, a name that occurs more than once on a side and is
**     matched at least once is re-paired: every pair of its candidates is scored by
**     the number of equal levels of GPU-path child names below them (4 levels, then
**     the overlap at the first unequal level), ties keeping the alignment's pair,
**     then the lowest positions, and assigned greedily (names with more than 2^22
**     pairs keep the alignment). A node whose partner alone was re-paired becomes
**     one-sided (TraceDiff drops it: deviation JD-c).
**  7. node_id is TraceDiff's merged_id: pre-order, children in alignment order.
**     match: 'matched' (names equal after JD-3), 'renamed' (paired with another
**     name: by position or as roots), 'control_only', 'test_only'.
**  8. Comparison points (TraceDiff's lowest common ancestors), walking depth first:
**     a pair on the GPU path on both sides with a one-sided GPU-path child, or whose
**     two nodes are GPU events, compares those children's GPU events (and its own);
**     those children are not walked again. A one-sided node reached otherwise gives
**     its GPU events to its parent pair (a one-sided root: to itself). The walk
**     goes on below any pair on the GPU path on either side.
**  9. Every GPU event of the merged tree is compared exactly once (deviation JD-d:
**     TraceDiff loses a one-sided GPU event reached outside a comparison point, a
**     gpu_memset among an LCA's children or paired with another GPU event, and a GPU
**     event paired with a node off the GPU path; here the first two are compared at
**     their parent, the last at its own pair).
** 10. Times are exact integer ns, output in us (REAL). kernel_us = summed dur,
**     busy_us = the union's length.
*/
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

enum {
  JC_NODE,
  JC_PARENT,
  JC_DEPTH,
  JC_NAME,
  JC_MATCH,
  JC_SEQ,        /* control_seq, test_seq */
  JC_RAW = 7,    /* control_name, test_name */
  JC_KIND = 9,   /* control_kind, test_kind */
  JC_HOST = 11,  /* control_host_us, test_host_us */
  JC_NGPU = 13,  /* control_kernels, test_kernels */
  JC_KUS = 15,   /* control_kernel_us, test_kernel_us */
  JC_DELTA = 17, /* delta_us */
  JC_BUSY = 18,  /* control_busy_us, test_busy_us */
  JC_POINT = 20,
  JC_PN = 21,     /* point_control_kernels, point_test_kernels */
  JC_PUS = 23,    /* point_control_us, point_test_us */
  JC_PDELTA = 25, /* point_delta_us */
  JC_PSEQS = 26,  /* point_seqs */
  JC_TRACE = 27,  /* control_trace_id, test_trace_id */
  JC_NVISIBLE = 29
};
static const char jdSchema[] =
    "CREATE TABLE x(node_id INTEGER, parent_node_id INTEGER, depth INTEGER, name TEXT,"
    " match TEXT, control_seq INTEGER, test_seq INTEGER, control_name TEXT, test_name TEXT,"
    " control_kind TEXT, test_kind TEXT, control_host_us REAL, test_host_us REAL,"
    " control_kernels INTEGER, test_kernels INTEGER, control_kernel_us REAL,"
    " test_kernel_us REAL, delta_us REAL, control_busy_us REAL, test_busy_us REAL,"
    " is_comparison_point INTEGER, point_control_kernels INTEGER, point_test_kernels INTEGER,"
    " point_control_us REAL, point_test_us REAL, point_delta_us REAL, point_seqs TEXT,"
    " control_trace_id INTEGER, test_trace_id INTEGER)";

static const char *jdKindName(int k) {
  switch (k) {
  case JD_K_CPU: return "cpu_op";
  case JD_K_RT: return "runtime";
  case JD_K_GRAPH: return "graph_launch";
  case JD_K_KERNEL: return "kernel";
  case JD_K_MEMCPY: return "gpu_memcpy";
  case JD_K_MEMSET: return "gpu_memset";
  default: return "gpu";
  }
}

static double jdUs(int64_t ns) { return (double)ns / 1000.0; }

/* One side of a comparison: its ids and its tree, on connection DB (hta_par2). */
typedef struct jd_load_arg {
  const jd_pair *p;
  jd_compare *c;
  int k;
} jd_load_arg;

static int jdLoadSide(sqlite3 *db, void *arg) {
  const jd_load_arg *a = arg;
  int rc = opt_ids_load(db, a->p->schema[a->k], &a->c->ids[a->k]);
  if (rc == SQLITE_OK) rc = jd_side_load(db, &a->p->t[a->k], &a->c->ids[a->k], &a->c->s[a->k]);
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  return rc;
}

int jd_compare_load(sqlite3 *db, const jd_pair *p, jd_compare *c) {
  jd_load_arg a[2] = {{p, c, 0}, {p, c, 1}};
  int rc;
  memset(c, 0, sizeof *c);
  rc = hta_par2(db, p->schema[1], p->register_all, jdLoadSide, &a[0], jdLoadSide, &a[1]);
  for (int k = 0; k < 2 && rc == SQLITE_OK; k++) rc = jd_side_names(&c->s[k], &c->names);
  if (rc == SQLITE_OK) rc = jd_merge(db, &c->s[0], &c->s[1], &c->m);
  if (rc != SQLITE_OK) jd_compare_free(c);
  return rc;
}

void jd_compare_free(jd_compare *c) {
  for (int k = 0; k < 2; k++) {
    jd_side_free(&c->s[k]);
    opt_ids_free(&c->ids[k]);
  }
  jd_merged_free(&c->m);
  jd_intern_free(&c->names);
}

/* The lazily read result: the comparison, and the times of the row last asked for. */
typedef struct jd_lazy {
  jd_compare c;
  size_t row;      /* the row the times below are of; (size_t)-1: none yet */
  int64_t sum[2];  /* its GPU events' summed dur per side */
  int64_t busy[2]; /* and their union */
  int64_t pbusy[2];
  char *pseqs;  /* point_seqs of the row (sqlite3_malloc'd) */
  int32_t *tmp; /* scratch for a point's GPU rows */
  size_t ntmp;
} jd_lazy;

static void jdLazyFree(void *p) {
  jd_lazy *z = p;
  jd_compare_free(&z->c);
  sqlite3_free(z->pseqs);
  sqlite3_free(z->tmp);
  sqlite3_free(z);
}

/* "[a, b, ...]": the seqs of a point's GPU rows V[0..n) of side S, appended to *PZ. */
static int jdSeqList(const jd_side *s, const int32_t *v, int32_t n, char **pz) {
  sqlite3_str *b = sqlite3_str_new(0);
  sqlite3_str_appendall(b, *pz);
  sqlite3_str_appendchar(b, 1, '[');
  for (int32_t i = 0; i < n; i++)
    sqlite3_str_appendf(b, "%s%lld", i ? ", " : "", (long long)s->ot.gpu.a[v[i]].seq);
  sqlite3_str_appendchar(b, 1, ']');
  sqlite3_free(*pz);
  *pz = sqlite3_str_finish(b);
  return *pz ? SQLITE_OK : SQLITE_NOMEM;
}

/* The times (and point_seqs) of ROW into Z's cache. */
static int jdLazyTimes(jd_lazy *z, size_t row) {
  const jd_node *nd = &z->c.m.nodes[row];
  int32_t u[2] = {nd->u1, nd->u2};
  int rc = SQLITE_OK;
  if (z->row == row) return SQLITE_OK;
  z->row = (size_t)-1;
  sqlite3_free(z->pseqs);
  z->pseqs = 0;
  for (int k = 0; k < 2 && rc == SQLITE_OK; k++) {
    const jd_side *s = &z->c.s[k];
    const int32_t *v;
    int32_t n = 0, self;
    z->sum[k] = z->busy[k] = z->pbusy[k] = 0;
    if (u[k] >= 0) {
      jd_gpu_of(s, u[k], &v, &n, &self);
      rc = jd_gpu_times(s, v, (size_t)n, &z->sum[k], &z->busy[k]);
    }
    if (rc != SQLITE_OK || !nd->point) continue;
    n = nd->nrow[k];
    if ((size_t)n > z->ntmp) {
      int32_t *t = sqlite3_realloc64(z->tmp, (size_t)n * sizeof *t);
      if (!t) return SQLITE_NOMEM;
      z->tmp = t;
      z->ntmp = (size_t)n;
    }
    for (int32_t i = 0; i < n; i++) z->tmp[i] = z->c.m.rows[nd->prow[k] + i].gpu;
    int64_t ps = 0;
    rc = jd_gpu_times(s, z->tmp, (size_t)n, &ps, &z->pbusy[k]);
    if (rc == SQLITE_OK && !(z->pseqs = sqlite3_mprintf("%z%s\"%s\": ", z->pseqs, k ? ", " : "{",
                                                        k ? "test" : "control")))
      rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) rc = jdSeqList(s, z->tmp, n, &z->pseqs);
    if (rc == SQLITE_OK && k == 1 && !(z->pseqs = sqlite3_mprintf("%z}", z->pseqs)))
      rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) z->row = row;
  return rc;
}

static int jdLazyColumn(void *p, size_t row, int col, sqlite3_context *ctx) {
  jd_lazy *z = p;
  const jd_node *nd = &z->c.m.nodes[row];
  const jd_side *s1 = &z->c.s[0], *s2 = &z->c.s[1];
  int32_t u[2] = {nd->u1, nd->u2};
  int same = nd->type == JD_COMBINED && s1->name[u[0]] == s2->name[u[1]];
  int k = (col == JC_SEQ + 1 || col == JC_RAW + 1 || col == JC_KIND + 1 || col == JC_HOST + 1 ||
           col == JC_NGPU + 1 || col == JC_KUS + 1 || col == JC_BUSY + 1 || col == JC_PN + 1 ||
           col == JC_PUS + 1 || col == JC_TRACE + 1);
  const jd_side *s = k ? s2 : s1;
  int rc;
  switch (col) {
  case JC_NODE: sqlite3_result_int64(ctx, (int64_t)row); return SQLITE_OK;
  case JC_PARENT:
    if (nd->parent >= 0) sqlite3_result_int64(ctx, nd->parent);
    return SQLITE_OK;
  case JC_DEPTH: sqlite3_result_int(ctx, nd->depth); return SQLITE_OK;
  case JC_NAME:
    if (nd->type == JD_COMBINED && !same) {
      char *z2 = sqlite3_mprintf("%s | %s", jd_raw_name(s1, u[0]), jd_raw_name(s2, u[1]));
      if (!z2) return SQLITE_NOMEM;
      sqlite3_result_text(ctx, z2, -1, sqlite3_free);
    } else {
      sqlite3_result_text(ctx, u[0] >= 0 ? jd_raw_name(s1, u[0]) : jd_raw_name(s2, u[1]), -1,
                          SQLITE_TRANSIENT);
    }
    return SQLITE_OK;
  case JC_MATCH:
    sqlite3_result_text(ctx,
                        nd->type == JD_CONTROL_ONLY ? "control_only"
                        : nd->type == JD_TEST_ONLY  ? "test_only"
                        : same                      ? "matched"
                                                    : "renamed",
                        -1, SQLITE_STATIC);
    return SQLITE_OK;
  case JC_POINT: sqlite3_result_int(ctx, nd->point); return SQLITE_OK;
  case JC_TRACE:
  case JC_TRACE + 1: sqlite3_result_int64(ctx, s->trace_id); return SQLITE_OK;
  default: break;
  }
  if (col == JC_PN || col == JC_PN + 1 || col == JC_PUS || col == JC_PUS + 1 || col == JC_PDELTA ||
      col == JC_PSEQS) {
    if (!nd->point) return SQLITE_OK; /* NULL off the comparison points */
  } else if (col != JC_DELTA && u[k] < 0) {
    return SQLITE_OK; /* NULL on the missing side */
  }
  switch (col) {
  case JC_SEQ:
  case JC_SEQ + 1: sqlite3_result_int64(ctx, jd_seq(s, u[k])); return SQLITE_OK;
  case JC_RAW:
  case JC_RAW + 1:
    sqlite3_result_text(ctx, jd_raw_name(s, u[k]), -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  case JC_KIND:
  case JC_KIND + 1:
    sqlite3_result_text(ctx, jdKindName(s->kind[u[k]]), -1, SQLITE_STATIC);
    return SQLITE_OK;
  case JC_HOST:
  case JC_HOST + 1: sqlite3_result_double(ctx, jdUs(jd_dur(s, u[k]))); return SQLITE_OK;
  case JC_NGPU:
  case JC_NGPU + 1:
    sqlite3_result_int(ctx, (size_t)u[k] < s->nhost ? s->ngpu[u[k]] : 1);
    return SQLITE_OK;
  case JC_PN:
  case JC_PN + 1: sqlite3_result_int(ctx, nd->nrow[k]); return SQLITE_OK;
  default: break;
  }
  if ((rc = jdLazyTimes(z, row)) != SQLITE_OK) return rc;
  switch (col) {
  case JC_KUS:
  case JC_KUS + 1: sqlite3_result_double(ctx, jdUs(z->sum[k])); break;
  case JC_BUSY:
  case JC_BUSY + 1: sqlite3_result_double(ctx, jdUs(z->busy[k])); break;
  case JC_DELTA: sqlite3_result_double(ctx, jdUs(hta_sub_sat(z->sum[1], z->sum[0]))); break;
  case JC_PUS:
  case JC_PUS + 1: sqlite3_result_double(ctx, jdUs(z->pbusy[k])); break;
  case JC_PDELTA: sqlite3_result_double(ctx, jdUs(hta_sub_sat(z->pbusy[1], z->pbusy[0]))); break;
  case JC_PSEQS: sqlite3_result_text(ctx, z->pseqs, -1, SQLITE_TRANSIENT); break;
  default: break;
  }
  return SQLITE_OK;
}

static int jdRun(sqlite3 *db, const jd_pair *p, jd_result *out, char **pzErr) {
  jd_lazy *z = sqlite3_malloc(sizeof *z);
  int rc;
  (void)pzErr;
  if (!z) return SQLITE_NOMEM;
  memset(z, 0, sizeof *z);
  z->row = (size_t)-1;
  rc = jd_compare_load(db, p, &z->c);
  if (rc != SQLITE_OK) {
    sqlite3_free(z);
    return rc;
  }
  out->lazy = z;
  out->nlazy = z->c.m.n;
  out->column = jdLazyColumn;
  out->lazy_free = jdLazyFree;
  return SQLITE_OK;
}

const jd_def jd_diff_def = {"hta_job_diff", jdSchema, JC_NVISIBLE, -1, jdRun};

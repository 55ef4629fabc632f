/*
** job_diff.h: the structural diff of two runs (job_diff.c states the rules as JD-n),
** internal to ext/diff/:
**
**   job_diff_names.c   name normalisation (TraceDiff's) and a string intern table
**   job_diff_tree.c    one side: TraceLens's call tree with the GPU events as leaves
**   job_diff_align.c   child-list alignment: Wagner-Fischer, same-name disambiguation
**   job_diff_match.c   the merged tree (roots, the four phases) and its comparison points
**   job_diff.c         hta_job_diff and the two-job vtab both functions share
**   job_diff_summary.c hta_job_diff_summary: the step difference split into parts
**   job_diff_account.c its splits read from hta_findings' run: 'idle' and 'finding'
**   job_diff_rows.c    what both share: jd_apportion, jd_summary_row, jd_wants_split
**
** Nothing outside ext/diff/ includes it.
*/
#ifndef HTA_JOB_DIFF_H
#define HTA_JOB_DIFF_H

#include "core/hta_common.h"
#include "perf/op_perf.h" /* opt_trace: TraceLens's host tree, GPU rows linked by correlation */

/* ---------------------------------------------------------------- names */
/* An intern table of strings: the same text gets the same id on both sides. */
typedef struct jd_intern {
  char **s;    /* by id (sqlite3_malloc'd) */
  uint32_t *h; /* open-addressing slots: id + 1, 0 = empty */
  size_t n, cap, nslot;
} jd_intern;

/* The id of text S (N bytes), added when new; -1 when out of memory. */
int32_t jd_intern_id(jd_intern *t, const char *s, size_t n);
void jd_intern_free(jd_intern *t);

/* TraceDiff's comparison name of NAME into *OUT (sqlite3_malloc'd): every
** 0x<hex> becomes 0xXXXX, ".py(<digits>):" becomes ".py:", and with STRIP a final
** ": <word>" is dropped and a path ending in ".py" cut to its file name; then
** hipModuleLaunchKernel and cuLaunchKernel become "__kernel_launch__" (JD-3). */
int jd_normalize(const char *name, int strip, char **out);

/* ---------------------------------------------------------------- one side */
/* What a node is (JD-2). */
enum {
  JD_K_CPU = 1, /* cpu_op (and the 2020-21 'Operator') */
  JD_K_RT,      /* cuda_runtime / cuda_driver call that is not a graph launch */
  JD_K_GRAPH,   /* cudaGraphLaunch / hipGraphLaunch */
  JD_K_KERNEL,  /* GPU: kernel */
  JD_K_MEMCPY,  /* GPU: gpu_memcpy */
  JD_K_MEMSET,  /* GPU: gpu_memset */
  JD_K_GPU      /* GPU: any other kernel-like category (mtia_ccp_events) */
};
#define JD_IS_GPU(k) ((k) >= JD_K_KERNEL)
/* TraceDiff's _is_kernel: a kernel or a memcpy (not a memset). */
#define JD_IS_KMC(k) ((k) == JD_K_KERNEL || (k) == JD_K_MEMCPY)

/* One trace as TraceDiff sees it: nodes 0..nhost-1 are the host events of ot (tree
** order), nhost + g the GPU row g of ot.gpu. */
typedef struct jd_side {
  opt_trace ot;
  size_t nhost, n;
  uint8_t *kind;   /* JD_K_* */
  int32_t *name;   /* normalised name id (jd_intern); -1: no name */
  int32_t *sname;  /* the same with strip_details */
  int32_t *raw;    /* the name's slot in rawnames; -1: none */
  char **rawnames; /* the side's distinct names */
  size_t nraw;
  int32_t *parent;      /* the tree parent; -1 */
  int32_t *coff, *cidx; /* children: cidx[coff[u]..coff[u+1]) in TraceLens's order */
  int32_t *ngpu;        /* GPU events at or below the node (a GPU node: 1) */
  int32_t *gfirst;      /* a host node's GPU events: glist[gfirst[u]..gfirst[u]+ngpu[u]) */
  int32_t *glist;       /* GPU row indices, grouped by the host node subtree they are in */
  int32_t *roots;       /* TraceDiff's roots, in (ts, seq) order */
  size_t nroots;
  int64_t trace_id, rank;
} jd_side;

/* Loads trace T as a side, all but its comparison names (jd_side_names): what needs
** only its own connection, so that the sides can load at once (hta_par2).
** SQLITE_OK, SQLITE_NOMEM, SQLITE_INTERRUPT or the error of a query. */
int jd_side_load(sqlite3 *db, const hta_trace *t, opt_ids *ids, jd_side *s);
/* Its name and sname ids, interned into NAMES (shared by both sides). SQLITE_NOMEM. */
int jd_side_names(jd_side *s, jd_intern *names);
void jd_side_free(jd_side *s);

static inline int64_t jd_ts(const jd_side *s, int32_t u) {
  return (size_t)u < s->nhost ? s->ot.nodes[u].ts : s->ot.gpu.a[(size_t)u - s->nhost].ts;
}
static inline int64_t jd_dur(const jd_side *s, int32_t u) {
  if ((size_t)u < s->nhost) return hta_sub_sat(s->ot.nodes[u].end, s->ot.nodes[u].ts);
  return s->ot.gpu.a[(size_t)u - s->nhost].dur;
}
static inline int64_t jd_seq(const jd_side *s, int32_t u) {
  return (size_t)u < s->nhost ? s->ot.nodes[u].seq : s->ot.gpu.a[(size_t)u - s->nhost].seq;
}
/* On the GPU path (not TraceLens's non_gpu_path): a GPU event, or a host node with
** GPU events at or below it. */
static inline int jd_gpu_path(const jd_side *s, int32_t u) { return u >= 0 && s->ngpu[u] > 0; }
static inline const char *jd_raw_name(const jd_side *s, int32_t u) {
  return s->raw[u] >= 0 ? s->rawnames[s->raw[u]] : "";
}
/* The GPU row indices of node U (itself for a GPU node) into *V (n entries). */
void jd_gpu_of(const jd_side *s, int32_t u, const int32_t **v, int32_t *n, int32_t *self);
/* Sum of durations and busy time (union) of the GPU rows V[0..n); SQLITE_NOMEM. */
int jd_gpu_times(const jd_side *s, const int32_t *v, size_t n, int64_t *sum, int64_t *busy);
/* The nearest cpu_op at or above node U; -1. */
int32_t jd_cpu_op_of(const jd_side *s, int32_t u);

/* ---------------------------------------------------------------- alignment */
enum { JD_MATCH = 1, JD_DELETE, JD_INSERT };
typedef struct jd_op {
  int32_t op, i, j; /* j is -1 for a delete, i for an insert */
} jd_op;
typedef struct jd_ops {
  jd_op *a;
  size_t n, cap;
} jd_ops;
int jd_ops_push(jd_ops *o, int32_t op, int32_t i, int32_t j);

/* TraceDiff's aligned_wf: Wagner-Fischer over the comparison names of the nodes
** A[0..na) (side S1) and B[0..nb) (side S2), STRIP choosing sname, backtracked as
** TraceDiff does, then the same-name disambiguation (JD-6). OPS is emptied first.
** SQLITE_OK or SQLITE_NOMEM. */
int jd_align(const jd_side *s1, const int32_t *a, size_t na, const jd_side *s2, const int32_t *b,
             size_t nb, int strip, jd_ops *ops);

/* ---------------------------------------------------------------- the merged tree */
enum { JD_COMBINED = 1, JD_CONTROL_ONLY, JD_TEST_ONLY };

typedef struct jd_node {
  int32_t u1, u2; /* the node on each side; -1 */
  int32_t parent; /* the merged parent's id; -1 for a root */
  int32_t depth;
  int32_t cfirst, nchild; /* children ids: jd_merged.kids[cfirst..cfirst+nchild) */
  uint8_t type;           /* JD_COMBINED, JD_CONTROL_ONLY, JD_TEST_ONLY */
  uint8_t point;          /* a comparison point (JD-8) */
  int32_t prow[2];        /* its comparison rows per side: jd_merged.rows */
  int32_t nrow[2];
} jd_node;

/* One GPU event compared at a comparison point (TraceDiff's diff_stats row). */
typedef struct jd_row {
  int32_t node; /* the comparison point */
  int32_t side; /* 0 control, 1 test */
  int32_t gpu;  /* GPU row index of that side */
} jd_row;

typedef struct jd_merged {
  jd_node *nodes; /* by id: TraceDiff's pre-order merged_id */
  size_t n, cap;
  int32_t *kids;
  size_t nkids, capkids;
  jd_row *rows; /* grouped by (node, side) */
  size_t nrows, caprows;
  int64_t lost_by_tracediff; /* GPU events TraceDiff would give no row (JD-9) */
} jd_merged;

/* Matches the trees of S1 (control) and S2 (test) into *M (JD-4..9). */
int jd_merge(sqlite3 *db, const jd_side *s1, const jd_side *s2, jd_merged *m);
void jd_merged_free(jd_merged *m);

/* ---------------------------------------------------------------- the two-run functions */
#define JD_NPARAM \
  6 /* control_job, test_job, control_rank, test_rank, control_schema, test_schema */

/* The two sides a comparison runs on (job_diff_vtab.c resolves them). */
typedef struct jd_pair {
  sqlite3 *db;
  char *job[2]; /* the jobs used (sqlite3_malloc'd) */
  int64_t job_id[2];
  int has_rank[2]; /* given explicitly */
  int64_t rank[2]; /* the ranks used */
  char *schema[2]; /* the databases read (sqlite3_malloc'd) */
  hta_trace t[2];  /* the trace of each side (valid when have) */
  char *split;     /* WHERE split = 'x' (sqlite3_malloc'd; NULL: none): the summary computes
                      only the splits asked for (and the step) */
  int have;
  uint64_t col_used;
  int (*register_all)(sqlite3 *); /* the extension on a connection of its own (hta.c) */
} jd_pair;

/* What a run computes: rows up front (t), or a result read row by row (lazy: a large
** one, whose cells are computed only when a statement reads them). */
typedef struct jd_result {
  hta_table t;
  void *lazy;
  size_t nlazy; /* its rows */
  /* Hands column COL of row ROW to CTX. SQLITE_OK or an error code. */
  int (*column)(void *lazy, size_t row, int col, sqlite3_context *ctx);
  void (*lazy_free)(void *lazy);
} jd_result;

/* One two-run table-valued function: visible columns, then the JD_NPARAM parameters. */
typedef struct jd_def {
  const char *name;
  const char *schema; /* CREATE TABLE x(visible columns) */
  int nvisible;
  int split_col; /* the column 'split' whose EQ constraint is passed to run (jd_pair.split),
                    -1: none */
  /* Computes the result of P into OUT (out->t.ncol is set). On error an SQLite code and
  ** maybe *pzErr (sqlite3_malloc'd). */
  int (*run)(sqlite3 *db, const jd_pair *p, jd_result *out, char **pzErr);
} jd_def;

extern const jd_def jd_diff_def;    /* hta_job_diff (job_diff.c) */
extern const jd_def jd_summary_def; /* hta_job_diff_summary (job_diff_summary.c) */

/* Loads both sides of P and merges them (what hta_job_diff and the summary share):
** *s1, *s2, *m and *names are freed with jd_compare_free. */
typedef struct jd_compare {
  jd_intern names;
  opt_ids ids[2];
  jd_side s[2];
  jd_merged m;
} jd_compare;
int jd_compare_load(sqlite3 *db, const jd_pair *p, jd_compare *c);
void jd_compare_free(jd_compare *c);

/* ---------------------------------------------------------------- the summary's rows */
/* hta_job_diff_summary's columns (job_diff_summary.c). */
enum {
  JS_PART,
  JS_US, /* control_us, test_us, delta_us */
  JS_SPLIT = 4,
  JS_NS = 5, /* control_ns, test_ns, delta_ns */
  JS_COUNT = 8,
  JS_SHARE = 10,
  JS_TRACE = 11,
  JS_CHANGE = 13,
  JS_NVISIBLE = 14
};
#define JD_MAXPART 16 /* the most parts one split apportions */

/* Largest-remainder apportionment (JS-2) of the totals TOT[0..NP) (NP <= JD_MAXPART) over
** NSTEPS > 0 steps: *STEP = their sum / NSTEPS rounded down, OUT[p] = TOT[p] / NSTEPS
** rounded so that the OUT add up to *STEP exactly (the largest remainders get 1 ns more;
** ties: the first part). */
void jd_apportion(const int64_t *tot, int np, int64_t nsteps, int64_t *out, int64_t *step);
/* A row of split SPLIT, part PART with both sides' ns C and T (us, ns, delta, share of
** STEP_DELTA when that is not 0, trace ids); PART and SPLIT static. NULL: out of memory. */
hta_cell *jd_summary_row(hta_table *out, const jd_pair *p, const char *split, const char *part,
                         int64_t c, int64_t t, int64_t step_delta);
/* The 'idle' and 'finding' splits (job_diff_account.c JSA-n): side K's findings run on
** connection DB into *OUT (NULL when P->split asks for neither; free with jd_acct_free);
** STEP: the side's mean step (JS-1); FIG: the plugin's figures of its trace, which the
** run reads rather than computes again (NULL: computed). Then the rows of both into OUT,
** those that P->split asks for. */
typedef struct jd_acct jd_acct;
struct fd_plugin_fig;
int jd_acct_side(sqlite3 *db, const jd_pair *p, int k, int64_t step,
                 const struct fd_plugin_fig *fig, jd_acct **out);
void jd_acct_free(jd_acct *a);
int jd_summary_accounting(const jd_pair *p, jd_acct *const a[2], const int64_t step[2],
                          hta_table *out);
/* 1 when P's split constraint lets split SPLIT through (none, or equal). */
int jd_wants_split(const jd_pair *p, const char *split);

#endif

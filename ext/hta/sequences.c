/*
** sequences.c: hta_frequent_kernel_sequences, HTA's get_frequent_cuda_kernel_sequences
** (spec hta_semantics.md 2.6, deviations D1 and D14 of DESIGN.md 5).
**
**   SELECT pattern, count FROM hta_frequent_kernel_sequences('aten::linear');
**   SELECT * FROM hta_frequent_kernel_sequences
**    WHERE operator_name = 'CppNode' AND min_pattern_len = 5 AND rank = 1;
**
** Parameters (HIDDEN columns, in this order for the table-valued-function form):
**   operator_name    required: a case-sensitive substring of event names
**   min_pattern_len  default 3: a root needs at least this many GPU descendants
**   top_k            default 5: HTA's signature; it limits only the overlay trace file
**                    (hta_write_sequence_overlay), never the rows returned here
** Columns: rank, pattern, count, gpu_kernel_duration_us, cpu_op_duration_us, trace_id.
**
** This is not sequence mining: operator instances are grouped by their whole
** kernel list. Requirements (tests cite them as FKS-n):
**  1. Each trace (file) is analysed on its own; WHERE rank = N keeps that rank's
**     traces. Rows come per trace in (rank, trace_id) order.
**  2. Candidates = the trace's HTA-kept events (dur and category present, category
**     not 'Trace') left by the last-ProfilerStep cut (hta_traces_load; a GPU row
**     stays when its linked launch does, or, unlinked and uncorrelated, when its
**     own ts is before the cut) whose name contains operator_name. Kernel names
**     can match too.
**  3. min_depth = the minimum depth over ALL candidates; a candidate outside every
**     call stack (depth NULL or -1, e.g. an unlinked kernel) counts as -1, as in
**     HTA. Roots = candidates at min_depth whose num_kernels >= min_pattern_len, so
**     shallow matches with too few kernels give no rows even when deeper matches
**     would qualify (spec 4.16).
**  4. num_kernels = the GPU rows (stream NOT NULL, stream 0 included: D14) in the
**     root's parent_id subtree, host rows of the subtree cut like the candidates.
**     A root that is itself a GPU row has one kernel: itself. A root outside every
**     call stack has none.
**  5. pattern = the root's name, then its kernels' names ordered by (ts, event_id),
**     joined by '|'. Kernels that start at the same ns keep file order (HTA's
**     order there is not defined).
**  6. Per pattern: count = number of roots; gpu_kernel_duration_us = the sum of
**     their kernels' dur; cpu_op_duration_us = the sum of the roots' dur (us, REAL).
**  7. Rows are ordered by count descending, then pattern ascending (byte order,
**     which is code-point order for UTF-8). All patterns are returned.
**  8. Arguments, as the generic table-valued functions check theirs (vtab_util.c
**     TVF-1): a missing operator_name is an error "hta_frequent_kernel_sequences:
**     operator_name is required"; a NULL one "...: operator_name must be a string";
**     min_pattern_len and top_k that are NULL, not integers or negative "...:
**     min_pattern_len must be a non-negative integer" (resp. top_k). An empty
**     operator_name gives no rows (HTA returns an empty frame). WHERE rank = NULL
**     (or a non-integral rank) gives no rows.
**
** HOW IT WORKS: per trace, one scan of the trace's rowid range finds the
** candidates (names matched in the string table first). Each root's subtree is
** then walked with a recursive query over the event_parent index (cheap for
** operator-sized subtrees). When the database has no index on parent_id, or the
** subtrees walked so far exceed an eighth of the trace's rows (a root such as
** ProfilerStep#N), the remaining roots are walked in memory instead: one more
** scan turns the trace's parent_id column into child lists indexed by seq (about
** 20 bytes per row). Roots are sorted by their sequence of name ids to group
** equal patterns, and only one name string per group is built.
** hta_fks_patterns() runs the same analysis for hta_write_sequence_overlay
** (io_overlay.c), collecting on the way every root's stack rows (the root, the
** host rows below it, its GPU rows) as the occurrence set of its pattern.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* In aten_ops.c: hta_aten_op_kernels, registered together with this module. */
int hta_register_aten_ops(sqlite3 *db);

#define FKS_DEFAULT_MIN_PATTERN_LEN 3
#define FKS_DEFAULT_TOP_K 5

/* ---------------------------------------------------------------- schema */
#define FKS_SCHEMA                                                           \
  "CREATE TABLE x(rank INTEGER, pattern TEXT, count INTEGER,"                \
  " gpu_kernel_duration_us REAL, cpu_op_duration_us REAL, trace_id INTEGER," \
  " operator_name HIDDEN, min_pattern_len HIDDEN, top_k HIDDEN, schema HIDDEN, job TEXT)"
#define FKS_RANK 0
#define FKS_PATTERN 1
#define FKS_COUNT 2
#define FKS_GPU_US 3
#define FKS_CPU_US 4
#define FKS_TRACE_ID 5
#define FKS_OPERATOR_NAME 6
#define FKS_MIN_PATTERN_LEN 7
#define FKS_TOP_K 8
#define FKS_SCHEMA_COL 9
#define FKS_JOB 10

/* idxNum bits (xBestIndex and xFilter): which arguments xFilter receives, in
** this order in argv. */
#define FKS_HAS_OPERATOR 1
#define FKS_HAS_MINLEN 2
#define FKS_HAS_TOPK 4
#define FKS_HAS_RANK 8
#define FKS_HAS_SCHEMA 16
#define FKS_HAS_JOB 32

typedef struct fks_row {
  const char *job; /* the cursor's job name (NULL: a missing job row) */
  sqlite3_int64 rank, trace_id, count;
  sqlite3_int64 gpu_ns, cpu_ns;
  char *pattern; /* sqlite3_malloc'd */
} fks_row;

typedef struct fks_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} fks_vtab;

typedef struct fks_cursor {
  sqlite3_vtab_cursor base;
  fks_row *a; /* the result, owned */
  sqlite3_int64 n, nalloc;
  sqlite3_int64 i;              /* current row */
  sqlite3_value *operator_name; /* copies of the arguments, for the HIDDEN columns */
  int64_t min_pattern_len, top_k;
  char *schema;  /* the database read */
  hta_job *jobs; /* the jobs analysed; rows point at their names */
  size_t njobs;
  const char *job; /* the job being analysed, for fksAddRow */
} fks_cursor;

/* ---------------------------------------------------------------- analysis */

/* One root operator instance: its kernel name ids live in fks_job.ids[off..off+n). */
typedef struct fks_root {
  size_t off, n; /* n includes the root's own name id first */
  sqlite3_int64 kernel_ns, cpu_ns;
  size_t occ_off, occ_n; /* its stack rows in fks_occ.seqs (only when collecting) */
} fks_root;

/* The state of one trace's analysis; freed by fksJobFree. */
typedef struct fks_job {
  sqlite3_int64 *ids; /* name ids of every root's pattern, back to back */
  size_t nids, aids;
  fks_root *roots;
  size_t nroots, aroots;
} fks_job;

static void fksJobFree(fks_job *j) {
  sqlite3_free(j->ids);
  sqlite3_free(j->roots);
  memset(j, 0, sizeof *j);
}

/* A root seen through its id array, so that qsort needs no global state.
** Orders roots by their name-id sequence (any total order groups equal patterns). */
typedef struct fks_rootref {
  const fks_root *r;
  const sqlite3_int64 *ids;
} fks_rootref;

static int fksCmpRef(const void *pa, const void *pb) {
  const fks_rootref *a = pa, *b = pb;
  if (a->r->n != b->r->n) return a->r->n < b->r->n ? -1 : 1;
  for (size_t k = 0; k < a->r->n; k++) {
    sqlite3_int64 x = a->ids[a->r->off + k], y = b->ids[b->r->off + k];
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

static int fksCmpRow(const void *pa, const void *pb) {
  const fks_row *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return strcmp(a->pattern, b->pattern);
}

/* Appends one result row; takes ownership of PATTERN (freed on failure too). */
static int fksAddRow(fks_cursor *c, const hta_trace *t, sqlite3_int64 count, sqlite3_int64 gpu_ns,
                     sqlite3_int64 cpu_ns, char *pattern) {
  if (c->n == c->nalloc) {
    sqlite3_int64 na = c->nalloc ? 2 * c->nalloc : 16;
    fks_row *p = sqlite3_realloc64(c->a, (sqlite3_uint64)na * sizeof *p);
    if (!p) {
      sqlite3_free(pattern);
      return SQLITE_NOMEM;
    }
    c->a = p;
    c->nalloc = na;
  }
  fks_row *r = &c->a[c->n++];
  r->job = c->job;
  r->rank = t->rank;
  r->trace_id = t->trace_id;
  r->count = count;
  r->gpu_ns = gpu_ns;
  r->cpu_ns = cpu_ns;
  r->pattern = pattern;
  return SQLITE_OK;
}

/* FKS_KEPT_ROWS: the HTA-kept rows of one trace (FKS-2); FKS_KEPT: 1 when the
** last-step cut leaves the row. ?1..?2 the trace's event_id range, ?4 cut ts,
** ?5 has_cut. */
#define FKS_KEPT_ROWS                                                                       \
  " FROM $S.event e"                                                                        \
  " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.dur IS NOT NULL AND e.category_id IS NOT NULL" \
  "   AND e.category_id IS NOT (SELECT category_id FROM $S.category WHERE name = 'Trace')"
#define FKS_KEPT                                                                          \
  "  CASE WHEN NOT ?5 THEN 1"                                                             \
  "       WHEN e.stream IS NULL THEN e.ts < ?4"                                           \
  "       WHEN e.link_id IS NOT NULL THEN"                                                \
  "         coalesce((SELECT l.ts < ?4 FROM $S.event l WHERE l.event_id = e.link_id), 0)" \
  "       ELSE e.correlation IS NULL AND e.ts < ?4 END"

/* Candidates (FKS-2): seq, depth (-1 when none), dur, is_gpu, kept, name_id, ts.
** ?3 operator_name. */
static const char fks_sql_candidates[] =
    "SELECT e.event_id - ?1, coalesce(e.depth, -1), e.dur, e.stream IS NOT NULL," FKS_KEPT
    ","
    "  e.name_id, e.ts" FKS_KEPT_ROWS
    "   AND e.name_id IN (SELECT string_id FROM $S.string WHERE instr(value, ?3) > 0)";

/* The tree for the in-memory walk: every kept row below the roots' depth ?6 that
** has a parent in the trace: seq << 32 | parent seq, is_gpu, and for GPU rows name_id,
** ts, dur. This scan reads every row of the trace, so it returns and decodes as
** little as it can. A GPU row counts as kept: it hangs below its launch, which the
** cut decides, so the walk never reaches the GPU row of a launch that was cut. */
static const char fks_sql_tree[] =
    "SELECT (e.event_id - ?1) << 32 | (e.parent_id - ?1), e.stream IS NOT NULL,"
    "  CASE WHEN e.stream IS NOT NULL THEN e.name_id END,"
    "  CASE WHEN e.stream IS NOT NULL THEN e.ts END,"
    "  CASE WHEN e.stream IS NOT NULL THEN e.dur END" FKS_KEPT_ROWS
    " AND e.parent_id BETWEEN ?1 AND ?2 AND e.depth > ?6"
    "   AND (e.stream IS NOT NULL OR NOT ?5 OR e.ts < ?4)";

/* The kept rows below one root through the event_parent index (FKS-4): is_gpu,
** name_id, ts, dur, seq. ?1 root, ?2 cut ts, ?3 depth bound, ?4 range start. */
static const char fks_sql_subtree[] =
    "WITH RECURSIVE sub(id, lvl) AS ("
    "  SELECT ?1, 0"
    "  UNION ALL"
    "  SELECT e.event_id, sub.lvl + 1 FROM $S.event e JOIN sub ON e.parent_id = sub.id"
    "   WHERE sub.lvl < ?3 AND e.dur IS NOT NULL AND (e.stream IS NOT NULL OR e.ts < ?2))"
    " SELECT e.stream IS NOT NULL, e.name_id, e.ts, e.dur, e.event_id - ?4"
    " FROM sub JOIN $S.event e ON e.event_id = sub.id WHERE sub.lvl > 0";

/* *has = 1 when an index of event starts with parent_id (the index walk can run). */
static int fksHasIndex(sqlite3 *db, const char *schema, int *has) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db,
                              "SELECT 1 FROM pragma_index_list('event', ?1) l,"
                              " pragma_index_info(l.name, ?1) i"
                              " WHERE i.seqno = 0 AND i.name = 'parent_id'",
                              -1, &st, 0);
  *has = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  *has = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
}

/* Longest parent chain the recursive query follows below a root. Call stacks are
** at most a few hundred deep; the bound only stops a corrupt parent_id cycle. */
#define FKS_MAX_DEPTH 10000

/* A GPU row of the trace (the kernels of patterns). */
typedef struct fks_gpu {
  sqlite3_int64 ts, dur, name_id;
  sqlite3_uint64 seq;
} fks_gpu;

/* The kept rows of one trace as a tree: the children of seq s are kids[off[s] ..
** off[s + 1]); GPU rows are flagged in isgpu and described in gpu[] (seq order). */
typedef struct fks_tree {
  sqlite3_uint64 nseq; /* seqs are < nseq */
  unsigned *off;       /* nseq + 1 */
  unsigned *kids;
  unsigned char *isgpu, *seen; /* bitmaps over seq */
  fks_gpu *gpu;
  size_t ngpu, agpu;
  unsigned *edges;       /* (parent, child) pairs while scanning */
  size_t nedges, aedges; /* counts unsigned values, two per edge */
} fks_tree;

static void fksTreeFree(fks_tree *tr) {
  sqlite3_free(tr->off);
  sqlite3_free(tr->kids);
  sqlite3_free(tr->isgpu);
  sqlite3_free(tr->seen);
  sqlite3_free(tr->gpu);
  sqlite3_free(tr->edges);
  memset(tr, 0, sizeof *tr);
}

#define FKS_BIT(m, i) ((m)[(i) >> 3] & (1u << ((i)&7)))
#define FKS_SETBIT(m, i) ((m)[(i) >> 3] |= (unsigned char)(1u << ((i)&7)))

/* Loads trace T's kept rows (the scan's ?1..?6 bound in Q) into child lists. */
static int fksTreeLoad(sqlite3_stmt *q, fks_tree *tr) {
  int rc;
  size_t nbytes;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    sqlite3_uint64 pair = (sqlite3_uint64)sqlite3_column_int64(q, 0);
    unsigned seq = (unsigned)(pair >> 32), parent = (unsigned)pair;
    if (seq + (sqlite3_uint64)1 > tr->nseq) tr->nseq = seq + (sqlite3_uint64)1;
    if (parent + (sqlite3_uint64)1 > tr->nseq) tr->nseq = parent + (sqlite3_uint64)1;
    HTA_PUSH(tr->edges, tr->nedges, tr->aedges, 1024, parent, fks_tree_oom);
    HTA_PUSH(tr->edges, tr->nedges, tr->aedges, 1024, seq, fks_tree_oom);
    if (sqlite3_column_int(q, 1)) {
      fks_gpu g;
      g.name_id = sqlite3_column_type(q, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 2);
      g.ts = sqlite3_column_int64(q, 3);
      g.dur = sqlite3_column_int64(q, 4);
      g.seq = seq;
      HTA_PUSH(tr->gpu, tr->ngpu, tr->agpu, 256, g, fks_tree_oom);
    }
  }
  if (rc != SQLITE_DONE) return rc;

  /* counting sort of the edges by parent */
  size_t ne = tr->nedges / 2;
  nbytes = (size_t)(tr->nseq + 7) / 8 + 1;
  tr->off = sqlite3_malloc64((tr->nseq + 2) * sizeof *tr->off);
  tr->kids = sqlite3_malloc64((ne + 1) * sizeof *tr->kids);
  tr->isgpu = sqlite3_malloc64(nbytes);
  tr->seen = sqlite3_malloc64(nbytes);
  if (!tr->off || !tr->kids || !tr->isgpu || !tr->seen) return SQLITE_NOMEM;
  memset(tr->off, 0, (tr->nseq + 2) * sizeof *tr->off);
  memset(tr->isgpu, 0, nbytes);
  memset(tr->seen, 0, nbytes);
  for (size_t k = 0; k < tr->ngpu; k++) FKS_SETBIT(tr->isgpu, tr->gpu[k].seq);
  for (size_t k = 0; k < ne; k++) tr->off[tr->edges[2 * k] + 2]++;
  for (sqlite3_uint64 s = 2; s < tr->nseq + 2; s++) tr->off[s] += tr->off[s - 1];
  /* now off[p + 1] is where p's children start; filling advances it to their end */
  for (size_t k = 0; k < ne; k++) tr->kids[tr->off[tr->edges[2 * k] + 1]++] = tr->edges[2 * k + 1];
  sqlite3_free(tr->edges);
  tr->edges = 0;
  return SQLITE_OK;

fks_tree_oom:
  return SQLITE_NOMEM;
}

static int fksCmpGpu(const void *pa, const void *pb) {
  const fks_gpu *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The GPU row of SEQ (gpu[] is in seq order and holds it). */
static const fks_gpu *fksGpuOf(const fks_tree *tr, sqlite3_uint64 seq) {
  size_t a = 0, b = tr->ngpu;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (tr->gpu[m].seq < seq) a = m + 1;
    else b = m;
  }
  return &tr->gpu[a];
}

/*
** Occurrence sets for the overlay (hta_fks_patterns): while collecting, every
** kept root's stack rows (the root, its host descendants, its GPU rows; spec 2.6
** step 4) go to seqs; at the end the first top_k rows get their sets in out.
*/
typedef struct fks_occ {
  sqlite3_int64 top_k;
  sqlite3_uint64 *seqs; /* stack rows of every kept root, root after root */
  size_t nseqs, aseqs;
  hta_fks_pattern *out; /* the result: top_k patterns, FKS-7 order */
  size_t nout;
} fks_occ;

/* A group of equal patterns while collecting: its row's pattern and its roots. */
typedef struct fks_group {
  const char *pattern; /* owned by the row */
  size_t a, b;         /* refs[a..b) */
} fks_group;

static int fksCmpU64(const void *pa, const void *pb) {
  sqlite3_uint64 a = *(const sqlite3_uint64 *)pa, b = *(const sqlite3_uint64 *)pb;
  return a < b ? -1 : a > b;
}

/* Fills OCC->out with the first top_k rows of C (from FIRST on, sorted) and the
** union of their roots' stack rows, as event_ids (LO = the trace's first). */
static int fksOccFinish(fks_occ *occ, const fks_cursor *c, sqlite3_int64 first, sqlite3_int64 lo,
                        const fks_rootref *refs, const fks_group *groups, size_t ngroups) {
  sqlite3_int64 nrows = c->n - first;
  size_t k = (size_t)(occ->top_k < nrows ? occ->top_k : nrows);
  occ->out = sqlite3_malloc64((k ? k : 1) * sizeof *occ->out);
  if (!occ->out) return SQLITE_NOMEM;
  memset(occ->out, 0, (k ? k : 1) * sizeof *occ->out);
  for (size_t i = 0; i < k; i++) {
    const fks_row *row = &c->a[first + (sqlite3_int64)i];
    const fks_group *g = 0;
    hta_fks_pattern *o = &occ->out[occ->nout++];
    size_t n = 0, m = 0;
    for (size_t x = 0; x < ngroups && !g; x++)
      if (groups[x].pattern == row->pattern) g = &groups[x];
    if (!g) return SQLITE_ERROR; /* cannot happen: every row has its group */
    o->pattern = sqlite3_mprintf("%s", row->pattern);
    if (!o->pattern) return SQLITE_NOMEM;
    o->count = row->count;
    for (size_t x = g->a; x < g->b; x++) n += refs[x].r->occ_n;
    sqlite3_uint64 *v = sqlite3_malloc64((n ? n : 1) * sizeof *v);
    if (!v) return SQLITE_NOMEM;
    for (size_t x = g->a; x < g->b; x++) {
      memcpy(v + m, occ->seqs + refs[x].r->occ_off, refs[x].r->occ_n * sizeof *v);
      m += refs[x].r->occ_n;
    }
    qsort(v, n, sizeof *v, fksCmpU64);
    m = 0;
    for (size_t x = 0; x < n; x++)
      if (m == 0 || v[m - 1] != v[x]) v[m++] = v[x];
    o->event_ids = (int64_t *)v; /* in place: offsets < 2^32 become event_ids */
    for (size_t x = 0; x < m; x++) o->event_ids[x] = lo + (sqlite3_int64)v[x];
    o->n = m;
  }
  return SQLITE_OK;
}

/* One candidate at the lowest depth seen so far. */
typedef struct fks_cand {
  sqlite3_uint64 seq;
  sqlite3_int64 dur, name_id, ts;
  int is_gpu;
} fks_cand;

/*
** Runs the analysis on trace T and appends its rows to C, ordered (FKS-7). Returns
** an SQLite code; for an SQL error the message is the connection's (xFilter
** copies it into the vtab).
*/
static int fksRunTrace(fks_cursor *c, sqlite3 *db, const hta_trace *t, const char *opname,
                       sqlite3_int64 minlen, int has_index, fks_occ *occ) {
  sqlite3_stmt *q = 0, *qs = 0, *qn = 0;
  fks_job j;
  fks_tree tr;
  fks_rootref *refs = 0;
  fks_cand *cand = 0;
  fks_gpu *hits = 0;
  unsigned *stack = 0;
  fks_group *groups = 0;
  size_t ncand = 0, acand = 0, nhits = 0, ahits = 0, nstack = 0, astack = 0;
  size_t ngroups = 0, agroups = 0;
  sqlite3_int64 lo = hta_trace_first_id(t->trace_id), hi = hta_trace_last_id(t->trace_id);
  sqlite3_int64 cut = hta_trace_cut_bound(t);
  sqlite3_int64 mindepth = INT64_MAX;
  sqlite3_int64 first = c->n;
  sqlite3_int64 budget = 0; /* rows the index walk may still visit (trace rows / 8) */
  int in_memory = !has_index, rc;
  memset(&j, 0, sizeof j);
  memset(&tr, 0, sizeof tr);

  /* 1. The candidates at the lowest depth (FKS-2, FKS-3). */
  rc = hta_prepare(db, t->schema, fks_sql_candidates, &q);
  if (rc != SQLITE_OK) goto fks_run_error;
  sqlite3_bind_int64(q, 1, lo);
  sqlite3_bind_int64(q, 2, hi);
  sqlite3_bind_text(q, 3, opname, -1, SQLITE_STATIC);
  sqlite3_bind_int64(q, 4, cut);
  sqlite3_bind_int(q, 5, t->has_cut != 0);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (!sqlite3_column_int(q, 4)) continue; /* removed by the last-step cut */
    sqlite3_int64 depth = sqlite3_column_int64(q, 1);
    if (depth > mindepth) continue;
    if (depth < mindepth) {
      mindepth = depth;
      ncand = 0;
    }
    fks_cand cd;
    cd.seq = (sqlite3_uint64)sqlite3_column_int64(q, 0);
    cd.dur = sqlite3_column_int64(q, 2);
    cd.is_gpu = sqlite3_column_int(q, 3);
    cd.name_id = sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 5);
    cd.ts = sqlite3_column_int64(q, 6);
    HTA_PUSH(cand, ncand, acand, 64, cd, fks_run_oom);
  }
  if (rc != SQLITE_DONE) goto fks_run_error;
  rc = SQLITE_OK;
  sqlite3_finalize(q);
  q = 0;
  if (ncand == 0 || mindepth < 0)
    goto fks_run_done; /* FKS-3: roots outside stacks have no kernels */

  if (!in_memory) {
    int64_t nrows;
    int none;
    rc = hta_query_int64(db, t->schema, "SELECT event_count FROM $S.trace WHERE trace_id = ?1", 1,
                         &t->trace_id, &nrows, &none);
    if (rc != SQLITE_OK) goto fks_run_error;
    budget = nrows / 8;
    rc = hta_prepare(db, t->schema, fks_sql_subtree, &qs);
    if (rc != SQLITE_OK) goto fks_run_error;
    sqlite3_bind_int64(qs, 2, cut);
    sqlite3_bind_int64(qs, 3, FKS_MAX_DEPTH);
    sqlite3_bind_int64(qs, 4, lo);
  }

  /* 2. Each root's kernels (FKS-4, FKS-5). */
  for (size_t k = 0; k < ncand; k++) {
    const fks_cand *cd = &cand[k];
    fks_root r;
    memset(&r, 0, sizeof r);
    r.off = j.nids;
    r.cpu_ns = cd->dur;
    nhits = 0;
    if (occ) { /* the stack starts with the root itself */
      r.occ_off = occ->nseqs;
      HTA_PUSH(occ->seqs, occ->nseqs, occ->aseqs, 256, cd->seq, fks_run_oom);
    }
    if (cd->is_gpu) { /* a GPU row as root: itself */
      fks_gpu g = {cd->ts, cd->dur, cd->name_id, cd->seq};
      HTA_PUSH(hits, nhits, ahits, 64, g, fks_run_oom);
    } else if (!in_memory) {
      sqlite3_bind_int64(qs, 1, lo + (sqlite3_int64)cd->seq);
      while ((rc = sqlite3_step(qs)) == SQLITE_ROW) {
        budget--;
        if (occ)
          HTA_PUSH(occ->seqs, occ->nseqs, occ->aseqs, 256,
                   (sqlite3_uint64)sqlite3_column_int64(qs, 4), fks_run_oom);
        if (!sqlite3_column_int(qs, 0)) continue;
        fks_gpu g;
        g.name_id = sqlite3_column_type(qs, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(qs, 1);
        g.ts = sqlite3_column_int64(qs, 2);
        g.dur = sqlite3_column_int64(qs, 3);
        g.seq = (sqlite3_uint64)sqlite3_column_int64(qs, 4);
        HTA_PUSH(hits, nhits, ahits, 64, g, fks_run_oom);
      }
      sqlite3_reset(qs);
      if (rc != SQLITE_DONE) goto fks_run_error;
      rc = SQLITE_OK;
      if (budget < 0) in_memory = 1; /* huge subtrees: walk the rest in memory */
    } else {
      if (!tr.off) { /* first use: load the tree */
        rc = hta_prepare(db, t->schema, fks_sql_tree, &q);
        if (rc != SQLITE_OK) goto fks_run_error;
        sqlite3_bind_int64(q, 1, lo);
        sqlite3_bind_int64(q, 2, hi);
        sqlite3_bind_int64(q, 4, cut);
        sqlite3_bind_int(q, 5, t->has_cut != 0);
        sqlite3_bind_int64(q, 6, mindepth);
        rc = fksTreeLoad(q, &tr);
        if (rc != SQLITE_OK) goto fks_run_error;
      }
      /* depth-first over the child lists; `seen` also guards against a corrupt cycle */
      if (cd->seq < tr.nseq && !FKS_BIT(tr.seen, cd->seq)) {
        nstack = 0;
        FKS_SETBIT(tr.seen, cd->seq);
        HTA_PUSH(stack, nstack, astack, 256, (unsigned)cd->seq, fks_run_oom);
        while (nstack) {
          unsigned sq = stack[--nstack];
          for (unsigned x = tr.off[sq]; x < tr.off[sq + 1]; x++) {
            unsigned ch = tr.kids[x];
            if (FKS_BIT(tr.seen, ch)) continue;
            FKS_SETBIT(tr.seen, ch);
            if (occ)
              HTA_PUSH(occ->seqs, occ->nseqs, occ->aseqs, 256, (sqlite3_uint64)ch, fks_run_oom);
            if (FKS_BIT(tr.isgpu, ch))
              HTA_PUSH(hits, nhits, ahits, 64, *fksGpuOf(&tr, ch), fks_run_oom);
            else HTA_PUSH(stack, nstack, astack, 256, ch, fks_run_oom);
          }
        }
      }
    }
    if ((sqlite3_int64)nhits < minlen) {
      if (occ) occ->nseqs = r.occ_off; /* not a root: forget its stack */
      continue;                        /* FKS-3: too few kernels */
    }
    if (occ) r.occ_n = occ->nseqs - r.occ_off;
    if (nhits > 1) qsort(hits, nhits, sizeof *hits, fksCmpGpu);
    HTA_PUSH(j.ids, j.nids, j.aids, 256, cd->name_id, fks_run_oom);
    for (size_t h = 0; h < nhits; h++) {
      HTA_PUSH(j.ids, j.nids, j.aids, 256, hits[h].name_id, fks_run_oom);
      r.kernel_ns = hta_add_sat(r.kernel_ns, hits[h].dur);
    }
    r.n = j.nids - r.off;
    HTA_PUSH(j.roots, j.nroots, j.aroots, 64, r, fks_run_oom);
    if ((k & 1023) == 1023 && hta_interrupted(db)) {
      rc = SQLITE_INTERRUPT;
      goto fks_run_error;
    }
  }
  if (j.nroots == 0) goto fks_run_done;

  /* 3. Group equal name-id sequences (FKS-6). */
  refs = sqlite3_malloc64(j.nroots * sizeof *refs);
  if (!refs) goto fks_run_oom;
  for (size_t k = 0; k < j.nroots; k++) {
    refs[k].r = &j.roots[k];
    refs[k].ids = j.ids;
  }
  qsort(refs, j.nroots, sizeof *refs, fksCmpRef);
  rc = hta_prepare(db, t->schema, HTA_SQL_NAME_OF_ID, &qn);
  if (rc != SQLITE_OK) goto fks_run_error;
  for (size_t a = 0; a < j.nroots;) {
    size_t b = a;
    sqlite3_int64 gpu = 0, cpu = 0;
    while (b < j.nroots && fksCmpRef(&refs[a], &refs[b]) == 0) {
      gpu = hta_add_sat(gpu, refs[b].r->kernel_ns);
      cpu = hta_add_sat(cpu, refs[b].r->cpu_ns);
      b++;
    }
    char *pat = 0;
    rc = hta_join_names(qn, j.ids + refs[a].r->off, refs[a].r->n, "|", &pat);
    if (rc != SQLITE_OK) goto fks_run_error;
    rc = fksAddRow(c, t, (sqlite3_int64)(b - a), gpu, cpu, pat);
    if (rc != SQLITE_OK) goto fks_run_error;
    if (occ) {
      fks_group g = {pat, a, b};
      HTA_PUSH(groups, ngroups, agroups, 64, g, fks_run_oom);
    }
    a = b;
  }
  qsort(c->a + first, (size_t)(c->n - first), sizeof *c->a, fksCmpRow); /* FKS-7 */
  if (occ) rc = fksOccFinish(occ, c, first, lo, refs, groups, ngroups);
  goto fks_run_done;

fks_run_oom:
  rc = SQLITE_NOMEM;
fks_run_error:
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_ERROR;
fks_run_done:
  sqlite3_finalize(q);
  sqlite3_finalize(qs);
  sqlite3_finalize(qn);
  sqlite3_free(refs);
  sqlite3_free(cand);
  sqlite3_free(hits);
  sqlite3_free(stack);
  sqlite3_free(groups);
  fksTreeFree(&tr);
  fksJobFree(&j);
  return rc;
}

/* ---------------------------------------------------------------- vtab methods */

static int fksConnect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr) {
  fks_vtab *p;
  int rc = sqlite3_declare_vtab(db, FKS_SCHEMA);
  if (rc != SQLITE_OK) return rc;
  p = sqlite3_malloc(sizeof *p);
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, sizeof *p);
  p->db = db;
  /* Read-only and side-effect free: usable from views and triggers. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int fksDisconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int fksOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  fks_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *ppCursor = &c->base;
  return SQLITE_OK;
}

/* Frees the rows of the previous scan. */
static void fksReset(fks_cursor *c) {
  for (sqlite3_int64 k = 0; k < c->n; k++) sqlite3_free(c->a[k].pattern);
  sqlite3_free(c->a);
  sqlite3_value_free(c->operator_name);
  hta_jobs_free(c->jobs, c->njobs);
  sqlite3_free(c->schema);
  c->a = 0;
  c->n = c->nalloc = c->i = 0;
  c->operator_name = 0;
  c->jobs = 0;
  c->njobs = 0;
  c->schema = 0;
  c->job = 0;
}

static int fksClose(sqlite3_vtab_cursor *cur) {
  fksReset((fks_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/*
** idxNum bits: FKS_HAS_OPERATOR (1), FKS_HAS_MINLEN (2), FKS_HAS_TOPK (4),
** FKS_HAS_RANK (8), FKS_HAS_SCHEMA (16) and FKS_HAS_JOB (32) say which of
** operator_name, min_pattern_len, top_k, rank, schema, job are in argv, in that
** order. Each job of the schema is analysed on its own (TVF-4 of vtab_util.c).
*/
static int fksFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  fks_cursor *c = (fks_cursor *)cur;
  fks_vtab *vt = (fks_vtab *)cur->pVtab;
  hta_traces tr;
  int64_t rank = 0;
  int has_rank = 0, has_index = 0, k = 0, rc = SQLITE_OK, no_rows = 0;
  const char *opname = 0, *schema = "main", *job = 0;
  char *zErr = 0;
  memset(&tr, 0, sizeof tr);
  fksReset(c);
  c->min_pattern_len = FKS_DEFAULT_MIN_PATTERN_LEN;
  c->top_k = FKS_DEFAULT_TOP_K;

  /* FKS-8 */
  if (idxNum & FKS_HAS_OPERATOR) {
    if (sqlite3_value_type(argv[k]) == SQLITE_NULL) {
      hta_vtab_error(cur->pVtab, "hta_frequent_kernel_sequences: operator_name must be a string");
      return SQLITE_ERROR;
    }
    c->operator_name = sqlite3_value_dup(argv[k]);
    if (!c->operator_name) return SQLITE_NOMEM;
    opname = (const char *)sqlite3_value_text(c->operator_name);
    if (!opname) return SQLITE_NOMEM;
    k++;
  }
  if (idxNum & FKS_HAS_MINLEN) {
    if (!hta_value_int64(argv[k++], &c->min_pattern_len) || c->min_pattern_len < 0) {
      hta_vtab_error(
          cur->pVtab,
          "hta_frequent_kernel_sequences: min_pattern_len must be a non-negative integer");
      return SQLITE_ERROR;
    }
  }
  if (idxNum & FKS_HAS_TOPK) {
    if (!hta_value_int64(argv[k++], &c->top_k) || c->top_k < 0) {
      hta_vtab_error(cur->pVtab,
                     "hta_frequent_kernel_sequences: top_k must be a non-negative integer");
      return SQLITE_ERROR;
    }
  }
  if (idxNum & FKS_HAS_RANK) {
    if (!hta_value_int64(argv[k++], &rank)) no_rows = 1; /* rank = NULL / 'x' / 1.5: no row */
    has_rank = 1;
  }
  if (idxNum & FKS_HAS_SCHEMA) {
    schema = (const char *)sqlite3_value_text(argv[k++]);
    if (!schema) {
      hta_vtab_error(cur->pVtab, "hta_frequent_kernel_sequences: schema must be a database name");
      return SQLITE_ERROR;
    }
  }
  if (idxNum & FKS_HAS_JOB) {
    job = (const char *)sqlite3_value_text(argv[k++]);
    if (!job) no_rows = 1;
  }
  if (!(c->schema = sqlite3_mprintf("%s", schema))) return SQLITE_NOMEM;
  if (no_rows || !opname || !opname[0]) return SQLITE_OK;

  rc = hta_scope_check(vt->db, "hta_frequent_kernel_sequences", c->schema, &zErr);
  if (rc == SQLITE_OK) rc = fksHasIndex(vt->db, c->schema, &has_index);
  if (rc == SQLITE_OK) rc = hta_jobs_load(vt->db, c->schema, job, &c->jobs, &c->njobs);
  for (size_t j = 0; rc == SQLITE_OK && j < c->njobs; j++) {
    hta_scope sc = {c->schema, c->jobs[j].job_id};
    c->job = c->jobs[j].name;
    rc = hta_traces_load(vt->db, &sc, has_rank, rank, 0, &tr);
    for (int t = 0; rc == SQLITE_OK && t < tr.n; t++)
      rc = fksRunTrace(c, vt->db, &tr.a[t], opname, c->min_pattern_len, has_index, 0);
    hta_traces_free(&tr);
  }
  if (rc != SQLITE_OK) {
    if (zErr) hta_vtab_error(cur->pVtab, "%s", zErr);
    else if (rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
      hta_vtab_error(cur->pVtab, "hta_frequent_kernel_sequences: %s", sqlite3_errmsg(vt->db));
    sqlite3_free(zErr);
    fksReset(c);
  }
  return rc;
}

static int fksNext(sqlite3_vtab_cursor *cur) {
  ((fks_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int fksEof(sqlite3_vtab_cursor *cur) {
  fks_cursor *c = (fks_cursor *)cur;
  return c->i >= c->n;
}

static int fksColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  fks_cursor *c = (fks_cursor *)cur;
  const fks_row *r = &c->a[c->i];
  switch (col) {
  case FKS_RANK: sqlite3_result_int64(ctx, r->rank); break;
  case FKS_PATTERN: sqlite3_result_text(ctx, r->pattern, -1, SQLITE_TRANSIENT); break;
  case FKS_COUNT: sqlite3_result_int64(ctx, r->count); break;
  case FKS_GPU_US: sqlite3_result_double(ctx, (double)r->gpu_ns / 1000.0); break;
  case FKS_CPU_US: sqlite3_result_double(ctx, (double)r->cpu_ns / 1000.0); break;
  case FKS_TRACE_ID: sqlite3_result_int64(ctx, r->trace_id); break;
  case FKS_OPERATOR_NAME:
    if (c->operator_name) sqlite3_result_value(ctx, c->operator_name);
    break;
  case FKS_MIN_PATTERN_LEN: sqlite3_result_int64(ctx, c->min_pattern_len); break;
  case FKS_TOP_K: sqlite3_result_int64(ctx, c->top_k); break;
  case FKS_SCHEMA_COL:
    if (c->schema) sqlite3_result_text(ctx, c->schema, -1, SQLITE_TRANSIENT);
    break;
  case FKS_JOB:
    if (r->job) sqlite3_result_text(ctx, r->job, -1, SQLITE_TRANSIENT);
    break;
  default: break;
  }
  return SQLITE_OK;
}

static int fksRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((fks_cursor *)cur)->i + 1;
  return SQLITE_OK;
}

/*
** idxNum bits: FKS_HAS_OPERATOR (1), FKS_HAS_MINLEN (2), FKS_HAS_TOPK (4),
** FKS_HAS_RANK (8); argvIndex follows that order and every used constraint is
** omitted (xFilter applies rank = N exactly as SQLite would).
** operator_name is required: absent -> SQLITE_ERROR, present but unusable ->
** SQLITE_CONSTRAINT so that SQLite picks another plan.
*/
static int fksBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p) {
  int aIdx[6] = {-1, -1, -1, -1,
                 -1, -1}; /* operator_name, min_pattern_len, top_k, rank,
                                            schema, job */
  int unusable = 0, idxNum = 0, argv = 1;
  for (int i = 0; i < p->nConstraint; i++) {
    const struct sqlite3_index_constraint *pc = &p->aConstraint[i];
    int j;
    if (pc->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    switch (pc->iColumn) {
    case FKS_OPERATOR_NAME: j = 0; break;
    case FKS_MIN_PATTERN_LEN: j = 1; break;
    case FKS_TOP_K: j = 2; break;
    case FKS_RANK: j = 3; break;
    case FKS_SCHEMA_COL: j = 4; break;
    case FKS_JOB: j = 5; break;
    default: continue;
    }
    if (!pc->usable) {
      unusable |= 1 << j;
      continue;
    }
    aIdx[j] = i;
  }
  if (aIdx[0] < 0) {
    if (unusable & 1) return SQLITE_CONSTRAINT;
    hta_vtab_error(tab, "hta_frequent_kernel_sequences: operator_name is required");
    return SQLITE_ERROR;
  }
  if ((unusable & 16) && aIdx[4] < 0) return SQLITE_CONSTRAINT; /* TVF-3 */
  for (int j = 0; j < 6; j++) {
    if (aIdx[j] < 0) continue;
    p->aConstraintUsage[aIdx[j]].argvIndex = argv++;
    p->aConstraintUsage[aIdx[j]].omit = 1;
    idxNum |= 1 << j;
  }
  p->idxNum = idxNum;
  p->estimatedCost = (idxNum & FKS_HAS_RANK) ? 1000.0 : 10000.0;
  p->estimatedRows = (idxNum & FKS_HAS_RANK) ? 10 : 100;
  return SQLITE_OK;
}

/* Eponymous-only (no xCreate): the table exists in every schema, read-only. */
static const sqlite3_module fksModule = {
    .iVersion = 0,
    .xConnect = fksConnect,
    .xBestIndex = fksBestIndex,
    .xDisconnect = fksDisconnect,
    .xOpen = fksOpen,
    .xClose = fksClose,
    .xFilter = fksFilter,
    .xNext = fksNext,
    .xEof = fksEof,
    .xColumn = fksColumn,
    .xRowid = fksRowid,
};

/* Registers hta_frequent_kernel_sequences and hta_aten_op_kernels. */
int hta_register_sequences(sqlite3 *db) {
  int rc = sqlite3_create_module(db, "hta_frequent_kernel_sequences", &fksModule, 0);
  if (rc == SQLITE_OK) rc = hta_register_aten_ops(db);
  return rc;
}

/* ---------------------------------------------------------------- occurrence sets */

/* The first TOP_K patterns of trace T with their occurrence sets, for
** hta_write_sequence_overlay (io_overlay.c). The same analysis as the table
** (FKS-2..7); *pa (free with hta_fks_patterns_free) is NULL when empty. */
int hta_fks_patterns(sqlite3 *db, const hta_trace *t, const char *opname, int64_t min_pattern_len,
                     int64_t top_k, hta_fks_pattern **pa, size_t *pn) {
  fks_cursor c;
  fks_occ occ;
  int has_index = 0;
  int rc;
  memset(&c, 0, sizeof c);
  memset(&occ, 0, sizeof occ);
  occ.top_k = top_k;
  *pa = 0;
  *pn = 0;
  if (!opname || !opname[0] || top_k <= 0) return SQLITE_OK;
  rc = fksHasIndex(db, t->schema, &has_index);
  if (rc == SQLITE_OK) rc = fksRunTrace(&c, db, t, opname, min_pattern_len, has_index, &occ);
  fksReset(&c);
  sqlite3_free(occ.seqs);
  if (rc != SQLITE_OK) {
    hta_fks_patterns_free(occ.out, occ.nout);
    return rc;
  }
  if (occ.nout == 0) {
    sqlite3_free(occ.out);
    return SQLITE_OK;
  }
  *pa = occ.out;
  *pn = occ.nout;
  return SQLITE_OK;
}

void hta_fks_patterns_free(hta_fks_pattern *a, size_t n) {
  for (size_t i = 0; a && i < n; i++) {
    sqlite3_free(a[i].pattern);
    sqlite3_free(a[i].event_ids);
  }
  sqlite3_free(a);
}

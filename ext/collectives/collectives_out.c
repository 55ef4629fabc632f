/*
** collectives_out.c: the collective-communication analysis across the ranks of a
** job (TraceLens NcclAnalyser, docs/deviations.md E13), from the kernels and
** instances of collectives.c (COL-1..10).
**
**   SELECT * FROM hta_collectives WHERE rank = 0;        -- one row per kernel and rank
**   SELECT * FROM hta_collective_instances;              -- one row per instance
**   SELECT * FROM hta_collective_instances(1);           -- all types, not just implicit-sync
**   SELECT * FROM hta_collective_summary;                -- per name, dtype, size, group
**   SELECT * FROM hta_collective_ranks;                  -- per rank: waits, arrivals
**
** Parameters (HIDDEN): hta_collectives(include_last_profiler_step = 1); the others
** (all_types = 0, include_last_profiler_step = 1). include_last_profiler_step = 0
** applies the last-ProfilerStep cut (COL-1).
**
** Requirements (tests cite them as CO-n):
**  1. hta_collectives: one row per collective kernel, by (rank, trace_id, ts, seq);
**     ts_us relative to the job's earliest event; wait_us = COL-8's wait over its
**     instance (every type); in_bytes/out_bytes integers (COL-4); WHERE rank = N
**     keeps that rank's rows (waits still over every rank).
**  2. hta_collective_instances: one row per instance (COL-6 order) that is kept
**     (COL-7), or every instance with all_types = 1. Metadata of its first kernel;
**     ranks_present = its kernels; comm_latency_us = min dur; start_skew_us = max ts
**     - min ts; end_skew_us = max end - min end; avg_wait_us; first_rank, last_rank
**     (COL-8); algbw_gibps = msg_bytes / 2^30 / s of comm_latency, algbw_gbps the
**     same in 10^9 B/s, busbw_* = algbw_* x COL-9's factor; NULL when msg_bytes is
**     NULL or comm_latency <= 0. metadata_mismatch = COL-10's fields, NULL when the
**     ranks agree. WHERE rank = N keeps the instances where rank N has a kernel.
**  3. last_rank_prev_kernel = the name of the last rank's GPU row (any stream) that
**     ends last at or before its collective kernel's start (ties: the later start,
**     then the later event); last_rank_gap_us = that start - that end;
**     last_rank_prev_op = the `cpu_op` on the launching thread that ends last at or
**     before the start of the launch's nearest record_param_comms (else the launch).
**     NULL when there is none.
**  4. hta_collective_summary: the instances of 2 grouped by (collective_name, dtype,
**     in_nelems, pg_name, group_size, msg_bytes), NULL equal to NULL: count,
**     total_latency_us, and M_mean, M_std (ddof 1, NULL for one), M_median, M_min,
**     M_max of latency, start skew, end skew, algbw_gibps and busbw_gibps over the
**     non-NULL values; ordered by total_latency_us descending, then the key.
**  5. hta_collective_ranks: one row per trace with collective kernels, by (rank,
**     trace_id): over the instances of 2 where it has a kernel, total and mean
**     wait, times it was last_rank / first_rank, pct_arrived_last = 100 x last /
**     num_collectives; total_collective_dur_us = sum of the dur of all its
**     collective kernels (every type). WHERE rank = N keeps that rank's row.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collectives.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define GIB 1073741824.0

static const hta_param ckParams[] = {
    {"include_last_profiler_step", 0, 1.0, 0.0, 1.0, "0 or 1"},
};
static const hta_param ciParams[] = {
    {"all_types", 0, 0.0, 0.0, 1.0, "0 or 1"},
    {"include_last_profiler_step", 0, 1.0, 0.0, 1.0, "0 or 1"},
};

/* A static string (type names, sources) into C; NULL stays NULL. */
static void coText(hta_cell *c, const char *s) {
  if (s) hta_cell_static(c, s);
}

/* Copies S into C (NULL stays NULL). */
static int coCopy(hta_cell *c, const char *s) { return s ? hta_cell_text(c, s) : SQLITE_OK; }

static void coOptInt(hta_cell *c, int has, int64_t v) {
  if (has) hta_cell_int(c, v);
}

/* ---------------------------------------------------------------- hta_collectives */

#define CK_SCHEMA                                                                                 \
  "CREATE TABLE x(rank INTEGER, pg_name TEXT, pg_ranks TEXT, collective_name TEXT,"               \
  " collective_type TEXT, group_size INTEGER, dtype TEXT, in_nelems INTEGER, out_nelems INTEGER," \
  " in_bytes INTEGER, out_bytes INTEGER, index_in_group INTEGER, stream INTEGER, ts_us REAL,"     \
  " dur_us REAL, wait_us REAL, metadata_source TEXT, kernel_name TEXT, event_id INTEGER,"         \
  " trace_id INTEGER, include_last_profiler_step HIDDEN)"
enum {
  CK_RANK,
  CK_PG,
  CK_PG_RANKS,
  CK_NAME,
  CK_TYPE,
  CK_GS,
  CK_DTYPE,
  CK_IN,
  CK_OUT,
  CK_IN_BYTES,
  CK_OUT_BYTES,
  CK_INDEX,
  CK_STREAM,
  CK_TS,
  CK_DUR,
  CK_WAIT,
  CK_SOURCE,
  CK_KNAME,
  CK_EVENT,
  CK_TRACE,
  CK_NVISIBLE
};

static int ckRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  coll_job j;
  int rc = coll_load(db, &a->scope, (int)a->p[0], &j);
  (void)pzErr;
  for (size_t i = 0; rc == SQLITE_OK && i < j.nk; i++) {
    const coll_kernel *k = &j.k[i];
    hta_cell *r;
    if (a->has_rank && k->rank != a->rank) continue;
    if (!(r = hta_table_add_row(out))) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&r[CK_RANK], k->rank);
    rc = coCopy(&r[CK_PG], k->pg_name);
    if (rc == SQLITE_OK) rc = coCopy(&r[CK_PG_RANKS], k->pg_ranks);
    if (rc == SQLITE_OK) rc = coCopy(&r[CK_NAME], k->coll_name);
    if (rc == SQLITE_OK) rc = coCopy(&r[CK_DTYPE], k->dtype);
    if (rc == SQLITE_OK) rc = coCopy(&r[CK_KNAME], k->kname);
    coText(&r[CK_TYPE], coll_type_name(k->type));
    coOptInt(&r[CK_GS], k->has_gs, k->group_size);
    coOptInt(&r[CK_IN], k->has_in, k->in_nelems);
    coOptInt(&r[CK_OUT], k->has_out, k->out_nelems);
    coOptInt(&r[CK_IN_BYTES], k->in_bytes >= 0, k->in_bytes);
    coOptInt(&r[CK_OUT_BYTES], k->out_bytes >= 0, k->out_bytes);
    hta_cell_int(&r[CK_INDEX], k->index);
    hta_cell_int(&r[CK_STREAM], k->stream);
    hta_cell_double(&r[CK_TS], hta_sub_sat(k->ts, j.tr.job_min_ts) / 1000.0);
    hta_cell_double(&r[CK_DUR], k->dur / 1000.0);
    hta_cell_double(&r[CK_WAIT], k->wait / 1000.0);
    coText(&r[CK_SOURCE], k->source);
    hta_cell_int(&r[CK_EVENT], k->event_id);
    hta_cell_int(&r[CK_TRACE], k->trace_id);
  }
  coll_free(&j);
  return rc;
}

/* ---------------------------------------------------------------- instances */

/* 1 when instance IN is listed under A's parameters (CO-2). */
static int coListed(const coll_inst *in, const hta_tvf_args *a) {
  if (!in->kept && a->p[0] == 0) return 0;
  if (!a->has_rank) return 1;
  for (size_t i = 0; i < in->n; i++) {
    if (in->k[i]->rank == a->rank) return 1;
  }
  return 0;
}

#define CI_SCHEMA                                                                                 \
  "CREATE TABLE x(pg_name TEXT, index_in_group INTEGER, collective_name TEXT,"                    \
  " collective_type TEXT, group_size INTEGER, dtype TEXT, in_nelems INTEGER, out_nelems INTEGER," \
  " pg_ranks TEXT, msg_bytes INTEGER, ranks_present INTEGER, ts_us REAL, comm_latency_us REAL,"   \
  " start_skew_us REAL, end_skew_us REAL, avg_wait_us REAL, first_rank INTEGER,"                  \
  " last_rank INTEGER, algbw_gibps REAL, busbw_gibps REAL, algbw_gbps REAL, busbw_gbps REAL,"     \
  " stream INTEGER, last_rank_prev_kernel TEXT, last_rank_prev_op TEXT, last_rank_gap_us REAL,"   \
  " metadata_mismatch TEXT, all_types HIDDEN, include_last_profiler_step HIDDEN, rank HIDDEN)"
enum {
  CI_PG,
  CI_INDEX,
  CI_NAME,
  CI_TYPE,
  CI_GS,
  CI_DTYPE,
  CI_IN,
  CI_OUT,
  CI_PG_RANKS,
  CI_MSG,
  CI_NRANKS,
  CI_TS,
  CI_LAT,
  CI_SSKEW,
  CI_ESKEW,
  CI_AVGWAIT,
  CI_FIRST,
  CI_LAST,
  CI_ALG_GIB,
  CI_BUS_GIB,
  CI_ALG_GB,
  CI_BUS_GB,
  CI_STREAM,
  CI_PREV_K,
  CI_PREV_OP,
  CI_GAP,
  CI_MISMATCH,
  CI_NVISIBLE
};

/* CO-3: the GPU rows of one trace (the partial index event_gpu covers them). */
#define CO_SQL_GPU                                                                             \
  "SELECT ts, dur, event_id, name_id FROM $S.event WHERE trace_id = ?1 AND stream IS NOT NULL" \
  " AND ts IS NOT NULL AND dur IS NOT NULL"
/* CO-3: the launch ?3's thread and the time its collective started on the host: the
** start of the nearest record_param_comms above the launch, else the launch's own. */
#define CO_SQL_ROOT                                                                              \
  "WITH RECURSIVE up(id, d) AS (SELECT ?1, 0 UNION ALL SELECT e.parent_id, up.d + 1"             \
  " FROM $S.event e JOIN up ON e.event_id = up.id WHERE e.parent_id IS NOT NULL AND up.d < 256)" \
  " SELECT l.pid, l.tid, coalesce((SELECT e.ts FROM up JOIN $S.event e ON e.event_id = up.id"    \
  " WHERE up.d > 0 AND e.name_id = (SELECT string_id FROM $S.string"                             \
  " WHERE value = 'record_param_comms') ORDER BY up.d LIMIT 1), l.ts)"                           \
  " FROM $S.event l WHERE l.event_id = ?1"
/* CO-3: the cpu_ops of one thread of one trace. */
#define CO_SQL_OPS                                                                      \
  "SELECT ts, dur, event_id, name_id FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"    \
  " AND pid IS ?3 AND tid IS ?4 AND category_id = (SELECT category_id FROM $S.category" \
  " WHERE name = 'cpu_op') AND ts IS NOT NULL AND dur IS NOT NULL"

/* The cpu_ops of one launching thread, by (end, ts, event_id): read once per thread,
** not once per instance (a scan of the trace each). */
typedef struct co_op {
  int64_t end, ts, id, name_id;
} co_op;
typedef struct co_thread {
  int64_t trace_id;
  sqlite3_value *pid, *tid;
  co_op *a;
  size_t n;
} co_thread;
typedef struct co_prev {
  sqlite3_stmt *gpu, *root, *ops, *name;
  co_thread *t; /* threads read so far (CPU ops), and traces (GPU rows: pid and tid NULL) */
  size_t nt, capt;
} co_prev;

static void coPrevFree(co_prev *p) {
  sqlite3_finalize(p->gpu);
  sqlite3_finalize(p->root);
  sqlite3_finalize(p->ops);
  sqlite3_finalize(p->name);
  for (size_t i = 0; i < p->nt; i++) {
    sqlite3_value_free(p->t[i].pid);
    sqlite3_value_free(p->t[i].tid);
    sqlite3_free(p->t[i].a);
  }
  sqlite3_free(p->t);
}

/* pid and tid as `IS` compares them (integers, or text as written). */
static int coSameValue(sqlite3_value *a, sqlite3_value *b) {
  int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
  if (ta == SQLITE_NULL || tb == SQLITE_NULL) return ta == tb;
  if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER)
    return sqlite3_value_int64(a) == sqlite3_value_int64(b);
  if (ta != tb) return 0;
  const char *x = (const char *)sqlite3_value_text(a), *y = (const char *)sqlite3_value_text(b);
  return x && y && !strcmp(x, y);
}

static int coOpCmp(const void *pa, const void *pb) {
  const co_op *x = pa, *y = pb;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* The cpu_ops of (TRACE_ID, PID, TID), or with PID NULL the GPU rows of TRACE_ID, read on
** first use. NULL on error (*prc set). */
static co_thread *coThread(co_prev *p, int64_t trace_id, sqlite3_value *pid, sqlite3_value *tid,
                           int *prc) {
  for (size_t i = 0; i < p->nt; i++) {
    co_thread *t = &p->t[i];
    if (t->trace_id != trace_id || !t->pid != !pid) continue;
    if (!pid || (coSameValue(t->pid, pid) && coSameValue(t->tid, tid))) return t;
  }
  co_thread t = {trace_id, pid ? sqlite3_value_dup(pid) : 0, pid ? sqlite3_value_dup(tid) : 0, 0,
                 0};
  sqlite3_stmt *q = pid ? p->ops : p->gpu;
  size_t cap = 0;
  int rc = !pid || (t.pid && t.tid) ? SQLITE_OK : SQLITE_NOMEM;
  if (pid) {
    sqlite3_bind_int64(q, 1, hta_trace_first_id(trace_id));
    sqlite3_bind_int64(q, 2, hta_trace_last_id(trace_id));
    sqlite3_bind_value(q, 3, pid);
    sqlite3_bind_value(q, 4, tid);
  } else {
    sqlite3_bind_int64(q, 1, trace_id);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    co_op o = {hta_end(sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1)),
               sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 2),
               sqlite3_column_type(q, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 3)};
    rc = SQLITE_OK;
    HTA_PUSH(t.a, t.n, cap, 64, o, co_thread_oom);
    continue;
  co_thread_oom:
    rc = SQLITE_NOMEM;
  }
  sqlite3_reset(q);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc == SQLITE_OK && t.n) qsort(t.a, t.n, sizeof *t.a, coOpCmp);
  if (rc == SQLITE_OK) HTA_PUSH(p->t, p->nt, p->capt, 4, t, co_list_oom);
  if (rc == SQLITE_OK) return &p->t[p->nt - 1];
  goto co_fail;
co_list_oom:
  rc = SQLITE_NOMEM;
co_fail:
  sqlite3_value_free(t.pid);
  sqlite3_value_free(t.tid);
  sqlite3_free(t.a);
  *prc = rc;
  return 0;
}

/* The index in T of the last row that ends at or before TS, skipping event SKIP; -1 when
** none. T is sorted by (end, ts, event_id): that row is the one that ends last, the later
** start and then the later event on ties (CO-3). */
static ptrdiff_t coLastBefore(const co_thread *t, int64_t ts, int64_t skip) {
  size_t lo = 0, hi = t->n; /* the first row that ends after ts */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->a[mid].end <= ts) lo = mid + 1;
    else hi = mid;
  }
  ptrdiff_t i = (ptrdiff_t)lo - 1;
  while (i >= 0 && t->a[i].id == skip) i--;
  return i;
}

/* The name of string NAME_ID into cell C (NULL when it has none). */
static int coName(co_prev *p, int64_t name_id, hta_cell *c) {
  int rc;
  if (name_id < 0) return SQLITE_OK;
  sqlite3_bind_int64(p->name, 1, name_id);
  if ((rc = sqlite3_step(p->name)) == SQLITE_ROW)
    rc = coCopy(c, (const char *)sqlite3_column_text(p->name, 0));
  else if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_reset(p->name);
  return rc;
}

/* CO-3: last_rank_prev_op of kernel K into R. */
static int coPrevOp(co_prev *p, const coll_kernel *k, hta_cell *r) {
  int rc;
  sqlite3_bind_int64(p->root, 1, k->launch_id);
  rc = sqlite3_step(p->root);
  if (rc == SQLITE_ROW && sqlite3_column_type(p->root, 2) != SQLITE_NULL) {
    int64_t root_ts = sqlite3_column_int64(p->root, 2);
    co_thread *t = coThread(p, k->trace_id, sqlite3_column_value(p->root, 0),
                            sqlite3_column_value(p->root, 1), &rc);
    if (t) {
      ptrdiff_t i = coLastBefore(t, root_ts, -1);
      rc = i >= 0 ? coName(p, t->a[i].name_id, &r[CI_PREV_OP]) : SQLITE_OK;
    }
  } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_reset(p->root);
  return rc;
}

/* CO-3: last_rank_prev_kernel, last_rank_gap_us and last_rank_prev_op of K into R. */
static int coPrev(co_prev *p, const coll_kernel *k, hta_cell *r) {
  int rc = SQLITE_OK;
  co_thread *g = coThread(p, k->trace_id, 0, 0, &rc);
  if (!g) return rc;
  ptrdiff_t i = coLastBefore(g, k->ts, k->event_id);
  if (i >= 0) {
    rc = coName(p, g->a[i].name_id, &r[CI_PREV_K]);
    hta_cell_double(&r[CI_GAP], hta_sub_sat(k->ts, g->a[i].end) / 1000.0);
  }
  if (rc != SQLITE_OK || k->launch_id == 0) return rc;
  return coPrevOp(p, k, r);
}

static double coBw(double algbw_bpns, double factor, double scale) {
  return algbw_bpns * factor * scale;
}

static int ciRow(const coll_job *j, const coll_inst *in, hta_cell *r) {
  const coll_kernel *f = in->k[0];
  int rc = coCopy(&r[CI_PG], f->pg_name);
  if (rc == SQLITE_OK) rc = coCopy(&r[CI_NAME], f->coll_name);
  if (rc == SQLITE_OK) rc = coCopy(&r[CI_DTYPE], f->dtype);
  if (rc == SQLITE_OK) rc = coCopy(&r[CI_PG_RANKS], f->pg_ranks);
  if (rc == SQLITE_OK && in->mismatch[0]) rc = hta_cell_text(&r[CI_MISMATCH], in->mismatch);
  hta_cell_int(&r[CI_INDEX], f->index);
  coText(&r[CI_TYPE], coll_type_name(f->type));
  coOptInt(&r[CI_GS], f->has_gs, f->group_size);
  coOptInt(&r[CI_IN], f->has_in, f->in_nelems);
  coOptInt(&r[CI_OUT], f->has_out, f->out_nelems);
  coOptInt(&r[CI_MSG], in->msg_bytes >= 0, in->msg_bytes);
  hta_cell_int(&r[CI_NRANKS], (int64_t)in->n);
  hta_cell_double(&r[CI_TS], hta_sub_sat(in->min_ts, j->tr.job_min_ts) / 1000.0);
  hta_cell_double(&r[CI_LAT], in->min_dur / 1000.0);
  hta_cell_double(&r[CI_SSKEW], hta_sub_sat(in->max_ts, in->min_ts) / 1000.0);
  hta_cell_double(&r[CI_ESKEW], hta_sub_sat(in->max_end, in->min_end) / 1000.0);
  hta_cell_double(&r[CI_AVGWAIT], in->avg_wait_ns / 1000.0);
  hta_cell_int(&r[CI_FIRST], in->first_rank);
  hta_cell_int(&r[CI_LAST], in->last_rank);
  double alg = coll_algbw(in), bus = coll_bus_factor(f->type, f);
  hta_cell_double(&r[CI_ALG_GIB], coBw(alg, 1.0, 1e9 / GIB));
  hta_cell_double(&r[CI_BUS_GIB], coBw(alg, bus, 1e9 / GIB));
  hta_cell_double(&r[CI_ALG_GB], coBw(alg, 1.0, 1.0));
  hta_cell_double(&r[CI_BUS_GB], coBw(alg, bus, 1.0));
  hta_cell_int(&r[CI_STREAM], f->stream);
  return rc;
}

static int ciRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  coll_job j;
  co_prev p;
  int rc = coll_load(db, &a->scope, (int)a->p[1], &j);
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  memset(&p, 0, sizeof p);
  rc = hta_prepare(db, a->scope.schema, CO_SQL_GPU, &p.gpu);
  if (rc == SQLITE_OK) rc = hta_prepare(db, a->scope.schema, CO_SQL_ROOT, &p.root);
  if (rc == SQLITE_OK) rc = hta_prepare(db, a->scope.schema, CO_SQL_OPS, &p.ops);
  if (rc == SQLITE_OK) rc = hta_prepare(db, a->scope.schema, HTA_SQL_NAME_OF_ID, &p.name);
  for (size_t i = 0; rc == SQLITE_OK && i < j.ninst; i++) {
    const coll_inst *in = &j.inst[i];
    hta_cell *r;
    if (!coListed(in, a)) continue;
    if (hta_interrupted(db)) rc = SQLITE_INTERRUPT;
    else if (!(r = hta_table_add_row(out))) rc = SQLITE_NOMEM;
    else if ((rc = ciRow(&j, in, r)) == SQLITE_OK) rc = coPrev(&p, in->k[in->last], r);
  }
  coPrevFree(&p);
  coll_free(&j);
  return rc;
}

/* ---------------------------------------------------------------- summary */

#define CS_NSTAT 5
#define CS_STATCOLS(m) \
  " " m "_mean REAL, " m "_std REAL, " m "_median REAL, " m "_min REAL, " m "_max REAL,"
#define CS_SCHEMA                                                                              \
  "CREATE TABLE x(collective_name TEXT, dtype TEXT, in_nelems INTEGER, pg_name TEXT,"          \
  " group_size INTEGER, msg_bytes INTEGER, count INTEGER, total_latency_us REAL," CS_STATCOLS( \
      "latency_us") CS_STATCOLS("start_skew_us") CS_STATCOLS("end_skew_us")                    \
      CS_STATCOLS("algbw_gibps") CS_STATCOLS(                                                  \
          "busbw_gibps") " all_types HIDDEN, include_last_profiler_step HIDDEN, rank HIDDEN)"
enum { CS_NAME, CS_DTYPE, CS_IN, CS_PG, CS_GS, CS_MSG, CS_COUNT, CS_TOTAL, CS_STATS };
#define CS_NVISIBLE (CS_STATS + 5 * CS_NSTAT)

static int csCmpText(const char *a, const char *b) {
  if (!a || !b) return (a != 0) - (b != 0); /* NULL first, equal to NULL */
  return strcmp(a, b);
}

static int csCmpInt(int ha, int64_t a, int hb, int64_t b) {
  if (ha != hb) return ha - hb;
  return ha ? (a > b) - (a < b) : 0;
}

/* The summary key of CO-4. */
static int csCmpKey(const coll_inst *x, const coll_inst *y) {
  const coll_kernel *a = x->k[0], *b = y->k[0];
  int r;
  if ((r = csCmpText(a->coll_name, b->coll_name))) return r;
  if ((r = csCmpText(a->dtype, b->dtype))) return r;
  if ((r = csCmpInt(a->has_in, a->in_nelems, b->has_in, b->in_nelems))) return r;
  if ((r = csCmpText(a->pg_name, b->pg_name))) return r;
  if ((r = csCmpInt(a->has_gs, a->group_size, b->has_gs, b->group_size))) return r;
  return csCmpInt(x->msg_bytes >= 0, x->msg_bytes, y->msg_bytes >= 0, y->msg_bytes);
}

static int csCmpPtr(const void *pa, const void *pb) {
  const coll_inst *x = *(const coll_inst *const *)pa, *y = *(const coll_inst *const *)pb;
  int r = csCmpKey(x, y);
  return r ? r : (x > y) - (x < y);
}

/* The CS_NSTAT values of instance IN (NaN = none). */
static void csValues(const coll_inst *in, double *v) {
  double alg = coll_algbw(in), bus = coll_bus_factor(in->k[0]->type, in->k[0]);
  v[0] = in->min_dur / 1000.0;
  v[1] = hta_sub_sat(in->max_ts, in->min_ts) / 1000.0;
  v[2] = hta_sub_sat(in->max_end, in->min_end) / 1000.0;
  v[3] = alg * 1e9 / GIB;
  v[4] = alg * bus * 1e9 / GIB;
}

/* Fills the row of group G[0..n) into R; BUF has room for n doubles. */
static int csRow(coll_inst **g, size_t n, double *buf, hta_cell *r) {
  const coll_kernel *f = g[0]->k[0];
  double total = 0;
  int rc = coCopy(&r[CS_NAME], f->coll_name);
  if (rc == SQLITE_OK) rc = coCopy(&r[CS_DTYPE], f->dtype);
  if (rc == SQLITE_OK) rc = coCopy(&r[CS_PG], f->pg_name);
  coOptInt(&r[CS_IN], f->has_in, f->in_nelems);
  coOptInt(&r[CS_GS], f->has_gs, f->group_size);
  coOptInt(&r[CS_MSG], g[0]->msg_bytes >= 0, g[0]->msg_bytes);
  hta_cell_int(&r[CS_COUNT], (int64_t)n);
  for (size_t i = 0; i < n; i++) total += g[i]->min_dur / 1000.0;
  hta_cell_double(&r[CS_TOTAL], total);
  for (int s = 0; s < CS_NSTAT; s++) {
    size_t m = 0;
    hta_describe d;
    for (size_t i = 0; i < n; i++) {
      double v[CS_NSTAT];
      csValues(g[i], v);
      if (!isnan(v[s])) buf[m++] = v[s];
    }
    hta_describe_doubles(buf, m, &d);
    hta_cell *c = &r[CS_STATS + 5 * s];
    hta_cell_double(&c[0], d.mean);
    hta_cell_double(&c[1], d.std);
    hta_cell_double(&c[2], d.p50);
    hta_cell_double(&c[3], d.min);
    hta_cell_double(&c[4], d.max);
  }
  return rc;
}

static int csCmpRows(const void *pa, const void *pb) {
  const hta_cell *a = *(const hta_cell *const *)pa, *b = *(const hta_cell *const *)pb;
  double x = a[CS_TOTAL].v.d, y = b[CS_TOTAL].v.d;
  if (x != y) return x > y ? -1 : 1;
  return (a > b) - (a < b);
}

/* Reorders OUT's rows by total latency descending (CO-4); groups were added in key order. */
static int csOrder(hta_table *out) {
  size_t n = out->nrow, nc = (size_t)out->ncol;
  hta_cell **p = sqlite3_malloc64((n ? n : 1) * sizeof *p);
  hta_cell *cells = sqlite3_malloc64((n ? n : 1) * nc * sizeof *cells);
  if (!p || !cells) {
    sqlite3_free(p);
    sqlite3_free(cells);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < n; i++) p[i] = out->cells + i * nc;
  qsort(p, n, sizeof *p, csCmpRows);
  for (size_t i = 0; i < n; i++) memcpy(cells + i * nc, p[i], nc * sizeof *cells);
  if (n) memcpy(out->cells, cells, n * nc * sizeof *cells);
  sqlite3_free(p);
  sqlite3_free(cells);
  return SQLITE_OK;
}

static int csRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  coll_job j;
  coll_inst **g = 0;
  double *buf = 0;
  size_t n = 0;
  int rc = coll_load(db, &a->scope, (int)a->p[1], &j);
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  g = sqlite3_malloc64((j.ninst ? j.ninst : 1) * sizeof *g);
  buf = sqlite3_malloc64((j.ninst ? j.ninst : 1) * sizeof *buf);
  if (!g || !buf) rc = SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < j.ninst; i++) {
    if (coListed(&j.inst[i], a)) g[n++] = &j.inst[i];
  }
  if (rc == SQLITE_OK) qsort(g, n, sizeof *g, csCmpPtr);
  for (size_t s = 0, e; rc == SQLITE_OK && s < n; s = e) {
    hta_cell *r;
    for (e = s + 1; e < n && csCmpKey(g[s], g[e]) == 0; e++) {
    }
    if (!(r = hta_table_add_row(out))) rc = SQLITE_NOMEM;
    else rc = csRow(g + s, e - s, buf, r);
  }
  if (rc == SQLITE_OK) rc = csOrder(out);
  sqlite3_free(g);
  sqlite3_free(buf);
  coll_free(&j);
  return rc;
}

/* ---------------------------------------------------------------- per rank */

#define CR_SCHEMA                                                                               \
  "CREATE TABLE x(rank INTEGER, total_wait_us REAL, mean_wait_us REAL,"                         \
  " times_arrived_last INTEGER, times_arrived_first INTEGER, pct_arrived_last REAL,"            \
  " num_collectives INTEGER, total_collective_dur_us REAL, trace_id INTEGER, all_types HIDDEN," \
  " include_last_profiler_step HIDDEN)"
enum {
  CR_RANK,
  CR_TOTAL_WAIT,
  CR_MEAN_WAIT,
  CR_LAST,
  CR_FIRST,
  CR_PCT_LAST,
  CR_NUM,
  CR_DUR,
  CR_TRACE,
  CR_NVISIBLE
};

typedef struct cr_acc {
  int64_t wait, dur, last, first, num, nk;
} cr_acc;

static int crRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  coll_job j;
  cr_acc *acc;
  hta_tvf_args all = *a;
  int rc = coll_load(db, &a->scope, (int)a->p[1], &j);
  (void)pzErr;
  if (rc != SQLITE_OK) return rc;
  all.has_rank = 0; /* every instance; the rank filters the rows */
  acc = sqlite3_malloc64((j.tr.n ? (size_t)j.tr.n : 1) * sizeof *acc);
  if (!acc) rc = SQLITE_NOMEM;
  else memset(acc, 0, (j.tr.n ? (size_t)j.tr.n : 1) * sizeof *acc);
  for (size_t i = 0; rc == SQLITE_OK && i < j.nk; i++) {
    acc[j.k[i].tix].dur = hta_add_sat(acc[j.k[i].tix].dur, j.k[i].dur);
    acc[j.k[i].tix].nk++;
  }
  for (size_t i = 0; rc == SQLITE_OK && i < j.ninst; i++) {
    const coll_inst *in = &j.inst[i];
    if (!coListed(in, &all)) continue;
    for (size_t q = 0; q < in->n; q++) {
      cr_acc *c = &acc[in->k[q]->tix];
      c->wait = hta_add_sat(c->wait, in->k[q]->wait);
      c->num++;
      c->last += q == in->last;
      c->first += q == in->first;
    }
  }
  for (int t = 0; rc == SQLITE_OK && t < j.tr.n; t++) {
    const cr_acc *c = &acc[t];
    hta_cell *r;
    if (c->nk == 0 || (a->has_rank && j.tr.a[t].rank != a->rank)) continue;
    if (!(r = hta_table_add_row(out))) {
      rc = SQLITE_NOMEM;
      break;
    }
    hta_cell_int(&r[CR_RANK], j.tr.a[t].rank);
    hta_cell_double(&r[CR_TOTAL_WAIT], c->wait / 1000.0);
    if (c->num) {
      hta_cell_double(&r[CR_MEAN_WAIT], (double)c->wait / (double)c->num / 1000.0);
      hta_cell_double(&r[CR_PCT_LAST], 100.0 * (double)c->last / (double)c->num);
    }
    hta_cell_int(&r[CR_LAST], c->last);
    hta_cell_int(&r[CR_FIRST], c->first);
    hta_cell_int(&r[CR_NUM], c->num);
    hta_cell_double(&r[CR_DUR], c->dur / 1000.0);
    hta_cell_int(&r[CR_TRACE], j.tr.a[t].trace_id);
  }
  sqlite3_free(acc);
  coll_free(&j);
  return rc;
}

static const hta_tvf collTvfs[] = {
    {"hta_collectives", CK_SCHEMA, CK_NVISIBLE, CK_RANK, 1, ckParams, ckRun},
    {"hta_collective_instances", CI_SCHEMA, CI_NVISIBLE, CI_NVISIBLE + 2, 2, ciParams, ciRun},
    {"hta_collective_summary", CS_SCHEMA, CS_NVISIBLE, CS_NVISIBLE + 2, 2, ciParams, csRun},
    {"hta_collective_ranks", CR_SCHEMA, CR_NVISIBLE, CR_RANK, 2, ciParams, crRun},
};

int hta_register_collectives(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof collTvfs / sizeof collTvfs[0]; i++) {
    rc = hta_tvf_register(db, &collTvfs[i]);
  }
  return rc;
}

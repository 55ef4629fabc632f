/*
** collectives.c: the collective kernels of a job, their metadata, and their
** matching across ranks into instances (TraceLens NcclAnalyser's rules, with the
** deviations of docs/deviations.md E13). collectives_out.c turns them into
** hta_collectives, hta_collective_instances, hta_collective_summary and
** hta_collective_ranks.
**
** Requirements (tests cite them as COL-n):
**  1. A collective kernel is a GPU row (stream set) of category `kernel` (any case),
**     with a correlation or external id, whose name contains `nccl`, `rccl` or
**     `cross_device_reduce` (any case). Every one of the job's traces counts; the
**     last-ProfilerStep cut applies only when include_last_profiler_step = 0 (default
**     1: TraceLens reads whole files); then a kernel stays when its launch's ts (its
**     own without launch) is below the cut.
**  2. rank = the trace's rank; ts/dur as stored (ns).
**  3. Metadata (`Collective name`, `Process Group Name`, `Process Group Ranks`,
**     `Group size`, `dtype`, `In msg nelems`, `Out msg nelems`) comes from the kernel's
**     args when they hold `Collective name` (source 'kernel'); else from the nearest
**     `record_param_comms` above its launch (kernel.link_id, then parent_id up) when
**     that holds it (source 'record_param_comms'); else whatever the kernel's args hold
**     (source NULL). Malformed args read as none. A kernel still unnamed whose name
**     contains cross_device_reduce is 'allreduce' (TraceLens).
**  4. bytes = nelems x the dtype's size: Float, Int 4; Long, Double 8; BFloat16, Half,
**     Short 2; Bool, Byte 1; NULL for any other dtype (TraceLens's table), and for a
**     negative count or a size past int64.
**  5. Types by name: allreduce(_coalesced); reducescatter, _reduce_scatter_base,
**     reduce_scatter_tensor_coalesced; allgather, all_gather, _allgather_base,
**     all_gather_into_tensor_coalesced, allgather_into_tensor_coalesced; all_to_all;
**     all_to_allv; broadcast; reduce; anything else has no type.
**  6. Matching: a kernel with a process group is in group pg_name; one without is in
**     the group of its stream (the n-th stream, by id, among its trace's streams with
**     such kernels). index_in_group = its 0-based position in its trace by (ts, seq)
**     within the group. An instance = the kernels of all traces with the same group
**     and index, ordered by (rank, trace_id); its metadata are its first kernel's.
**     Instances come ordered by pg_name (bytes), stream-matched ones last by stream
**     ordinal, then index.
**  7. Kept (the implicit-sync instances of TraceLens) = first kernel's type is
**     allreduce, reducescatter, allgather or alltoall; in a stream-matched group also
**     anything but alltoallv (TraceLens's simplified mode).
**  8. Per instance: wait of a kernel = max ts - its ts; avg = their mean; first_rank =
**     the lowest rank among the earliest starts, last_rank = the lowest rank among the
**     latest starts (ties: lowest rank, both); min/max of ts, end and min dur.
**  9. msg_bytes = out_bytes for allgather, in_bytes for any other named collective,
**     NULL without a name or a size. Bus factor (nccl-tests, n = `Group size`):
**     allreduce 2(n-1)/n; reducescatter, allgather, alltoall (n-1)/n; broadcast,
**     reduce 1; NULL otherwise or without a group size > 0.
** 10. mismatch = the fields (collective_name, dtype, in_nelems, out_nelems,
**     group_size, pg_ranks) in which some kernel of the instance differs from its
**     first one; nothing raises.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collectives.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* COL-1: one trace's collective kernels with the launch's ts (for the cut). */
#define COLL_SQL_KERNELS                                                                    \
  "SELECT e.event_id, e.ts, e.dur, e.stream, e.seq, s.value, e.link_id, e.args, l.ts"       \
  " FROM $S.event e JOIN $S.string s ON s.string_id = e.name_id"                            \
  " JOIN $S.category c ON c.category_id = e.category_id"                                    \
  " LEFT JOIN $S.event l ON l.event_id = e.link_id"                                         \
  " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.stream IS NOT NULL AND e.ts IS NOT NULL"       \
  " AND e.dur IS NOT NULL AND (e.correlation IS NOT NULL OR e.external_id IS NOT NULL)"     \
  " AND c.name = 'kernel' COLLATE NOCASE AND e.name_id IN (SELECT string_id FROM $S.string" \
  " WHERE value LIKE '%nccl%' OR value LIKE '%rccl%' OR value LIKE '%cross_device_reduce%')"

/* COL-3: the seven fields of an args JSON text (?1). */
#define COLL_SQL_META                                                                \
  "SELECT json_extract(j, '$.\"Collective name\"'), json_extract(j, '$.\"Process "   \
  "Group Name\"'), json_extract(j, '$.\"Process Group Ranks\"'),"                    \
  " json_extract(j, '$.\"Group size\"'), json_extract(j, '$.dtype'),"                \
  " json_extract(j, '$.\"In msg nelems\"'), json_extract(j, '$.\"Out msg nelems\"')" \
  " FROM (SELECT CASE WHEN json_valid(?1) THEN ?1 END AS j)"

#define COLL_SQL_NODE "SELECT parent_id, name_id, args FROM $S.event WHERE event_id = ?1"

typedef struct coll_ctx {
  sqlite3 *db;
  sqlite3_stmt *meta, *node;
  int32_t rpc_name; /* string id of record_param_comms; -1 when absent */
} coll_ctx;

static const struct {
  const char *name;
  int type;
} collTypes[] = {
    {"allreduce", COLL_T_ALLREDUCE},
    {"allreduce_coalesced", COLL_T_ALLREDUCE},
    {"reducescatter", COLL_T_REDUCESCATTER},
    {"_reduce_scatter_base", COLL_T_REDUCESCATTER},
    {"reduce_scatter_tensor_coalesced", COLL_T_REDUCESCATTER},
    {"allgather", COLL_T_ALLGATHER},
    {"all_gather", COLL_T_ALLGATHER},
    {"_allgather_base", COLL_T_ALLGATHER},
    {"all_gather_into_tensor_coalesced", COLL_T_ALLGATHER},
    {"allgather_into_tensor_coalesced", COLL_T_ALLGATHER},
    {"all_to_all", COLL_T_ALLTOALL},
    {"all_to_allv", COLL_T_ALLTOALLV},
    {"broadcast", COLL_T_BROADCAST},
    {"reduce", COLL_T_REDUCE},
};

static const char *const collTypeNames[] = {
    NULL, "allreduce", "reducescatter", "allgather", "alltoall", "alltoallv", "broadcast", "reduce",
};

const char *coll_type_name(int type) { return collTypeNames[type]; }

static int collType(const char *name) {
  if (!name) return COLL_T_NONE;
  for (size_t i = 0; i < sizeof collTypes / sizeof collTypes[0]; i++) {
    if (strcmp(name, collTypes[i].name) == 0) return collTypes[i].type;
  }
  return COLL_T_NONE;
}

/* COL-4 */
static int64_t collDtypeSize(const char *dtype) {
  static const struct {
    const char *name;
    int size;
  } sizes[] = {{"Float", 4}, {"Int", 4},    {"Long", 8}, {"BFloat16", 2}, {"Bool", 1},
               {"Byte", 1},  {"Double", 8}, {"Half", 2}, {"Short", 2}};
  if (!dtype) return -1;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if (strcmp(dtype, sizes[i].name) == 0) return sizes[i].size;
  }
  return -1;
}

/* NELEMS x SIZE bytes; -1 when unknown, negative or past int64 (COL-4). */
static int64_t collBytes(int has, int64_t nelems, int64_t size) {
  int64_t b;
  if (!has || size <= 0 || nelems < 0 || __builtin_mul_overflow(nelems, size, &b)) return -1;
  return b;
}

static int collDup(sqlite3_stmt *st, int col, char **out) {
  const unsigned char *z = sqlite3_column_text(st, col);
  *out = 0;
  if (!z) return sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_OK;
  *out = sqlite3_mprintf("%s", (const char *)z);
  return *out ? SQLITE_OK : SQLITE_NOMEM;
}

static void collFreeMeta(coll_kernel *k) {
  sqlite3_free(k->coll_name);
  sqlite3_free(k->pg_name);
  sqlite3_free(k->pg_ranks);
  sqlite3_free(k->dtype);
  k->coll_name = k->pg_name = k->pg_ranks = k->dtype = 0;
  k->has_in = k->has_out = k->has_gs = 0;
}

/* Reads the metadata fields of ARGS (JSON text or NULL) into K; *named = 1 when it
** holds a `Collective name`. */
static int collReadMeta(coll_ctx *c, const char *args, coll_kernel *k, int *named) {
  int rc;
  sqlite3_stmt *st = c->meta;
  *named = 0;
  collFreeMeta(k);
  if (!args) return SQLITE_OK;
  sqlite3_bind_text(st, 1, args, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    rc = collDup(st, 0, &k->coll_name);
    if (rc == SQLITE_OK) rc = collDup(st, 1, &k->pg_name);
    if (rc == SQLITE_OK) rc = collDup(st, 2, &k->pg_ranks);
    if (rc == SQLITE_OK) rc = collDup(st, 4, &k->dtype);
    if ((k->has_gs = sqlite3_column_type(st, 3) != SQLITE_NULL))
      k->group_size = sqlite3_column_int64(st, 3);
    if ((k->has_in = sqlite3_column_type(st, 5) != SQLITE_NULL))
      k->in_nelems = sqlite3_column_int64(st, 5);
    if ((k->has_out = sqlite3_column_type(st, 6) != SQLITE_NULL))
      k->out_nelems = sqlite3_column_int64(st, 6);
    *named = k->coll_name != 0;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_reset(st);
  return rc;
}

/* The args of the nearest record_param_comms above event LAUNCH (COL-3), or NULL
** in *args (sqlite3_malloc'd). */
static int collRpcArgs(coll_ctx *c, int64_t launch, char **args) {
  int rc = SQLITE_OK;
  int64_t id = launch;
  *args = 0;
  if (c->rpc_name < 0) return SQLITE_OK;
  for (int depth = 0; depth < 256 && id != 0; depth++) {
    sqlite3_bind_int64(c->node, 1, id);
    rc = sqlite3_step(c->node);
    if (rc != SQLITE_ROW) break;
    if (depth > 0 && sqlite3_column_type(c->node, 1) == SQLITE_INTEGER &&
        sqlite3_column_int64(c->node, 1) == c->rpc_name) {
      rc = collDup(c->node, 2, args);
      break;
    }
    id = sqlite3_column_type(c->node, 0) == SQLITE_INTEGER ? sqlite3_column_int64(c->node, 0) : 0;
    sqlite3_reset(c->node);
  }
  sqlite3_reset(c->node);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int collMeta(coll_ctx *c, const char *kargs, coll_kernel *k) {
  int named, rc = collReadMeta(c, kargs, k, &named);
  if (rc != SQLITE_OK) return rc;
  if (named) {
    k->source = "kernel";
  } else if (k->launch_id != 0) {
    char *rargs;
    rc = collRpcArgs(c, k->launch_id, &rargs);
    if (rc == SQLITE_OK && rargs) {
      coll_kernel r;
      memset(&r, 0, sizeof r);
      rc = collReadMeta(c, rargs, &r, &named);
      if (rc == SQLITE_OK && named) {
        collFreeMeta(k);
        k->coll_name = r.coll_name, k->pg_name = r.pg_name, k->pg_ranks = r.pg_ranks;
        k->dtype = r.dtype;
        k->has_in = r.has_in, k->in_nelems = r.in_nelems, k->has_out = r.has_out;
        k->out_nelems = r.out_nelems, k->has_gs = r.has_gs, k->group_size = r.group_size;
        k->source = "record_param_comms";
      } else {
        collFreeMeta(&r);
      }
    }
    sqlite3_free(rargs);
    if (rc != SQLITE_OK) return rc;
  }
  if (!k->coll_name && sqlite3_strlike("%cross_device_reduce%", k->kname, 0) == 0) {
    k->coll_name = sqlite3_mprintf("allreduce");
    if (!k->coll_name) return SQLITE_NOMEM;
  }
  k->type = collType(k->coll_name);
  int64_t size = collDtypeSize(k->dtype);
  k->in_bytes = collBytes(k->has_in, k->in_nelems, size);
  k->out_bytes = collBytes(k->has_out, k->out_nelems, size);
  return SQLITE_OK;
}

/* Appends trace T's collective kernels to J (COL-1..5). */
static int collLoadTrace(coll_ctx *c, sqlite3_stmt *st, int tix, coll_job *j, size_t *cap) {
  const hta_trace *t = &j->tr.a[tix];
  int rc;
  int64_t cut = hta_trace_cut_bound(t);
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    coll_kernel k;
    int64_t host_ts = sqlite3_column_type(st, 8) == SQLITE_INTEGER ? sqlite3_column_int64(st, 8)
                                                                   : sqlite3_column_int64(st, 1);
    if (host_ts >= cut) continue;
    memset(&k, 0, sizeof k);
    k.event_id = sqlite3_column_int64(st, 0);
    k.trace_id = t->trace_id;
    k.tix = tix;
    k.rank = t->rank;
    k.ts = sqlite3_column_int64(st, 1);
    k.dur = sqlite3_column_int64(st, 2);
    k.stream = sqlite3_column_int64(st, 3);
    k.seq = sqlite3_column_int64(st, 4);
    k.launch_id = sqlite3_column_type(st, 6) == SQLITE_INTEGER ? sqlite3_column_int64(st, 6) : 0;
    rc = collDup(st, 5, &k.kname);
    if (rc == SQLITE_OK) rc = collMeta(c, (const char *)sqlite3_column_text(st, 7), &k);
    if (rc == SQLITE_OK && j->nk == *cap) {
      size_t ncap = *cap ? 2 * *cap : 64;
      coll_kernel *a = sqlite3_realloc64(j->k, ncap * sizeof *a);
      if (!a) rc = SQLITE_NOMEM;
      else j->k = a, *cap = ncap;
    }
    if (rc != SQLITE_OK) {
      collFreeMeta(&k);
      sqlite3_free(k.kname);
      break;
    }
    j->k[j->nk++] = k;
  }
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* ---------------------------------------------------------------- matching (COL-6) */

static int collCmpText(const char *a, const char *b) {
  if (!a || !b) return (a != 0) - (b != 0);
  return strcmp(a, b);
}

static int collCmpI64(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* One trace's kernels in (ts, seq) order. */
static int collCmpTime(const void *pa, const void *pb) {
  const coll_kernel *a = pa, *b = pb;
  int r = collCmpI64(a->ts, b->ts);
  return r ? r : collCmpI64(a->seq, b->seq);
}

/* Group (pg_name before stream slot: NULL pg sorts last), index, rank, trace. */
static int collCmpInst(const void *pa, const void *pb) {
  const coll_kernel *a = *(coll_kernel *const *)pa, *b = *(coll_kernel *const *)pb;
  int r;
  if ((a->pg_name == 0) != (b->pg_name == 0)) return a->pg_name ? -1 : 1;
  if ((r = collCmpText(a->pg_name, b->pg_name))) return r;
  if ((r = collCmpI64(a->slot, b->slot))) return r;
  if ((r = collCmpI64(a->index, b->index))) return r;
  if ((r = collCmpI64(a->rank, b->rank))) return r;
  return collCmpI64(a->trace_id, b->trace_id);
}

static int collSameInst(const coll_kernel *a, const coll_kernel *b) {
  return collCmpText(a->pg_name, b->pg_name) == 0 && a->slot == b->slot && a->index == b->index;
}

/* Sets slot and index of the kernels K[0..n) of one trace (sorted by time). */
static int collIndex(coll_kernel *k, size_t n) {
  int64_t *streams = 0;
  size_t ns = 0, as = 0;
  /* the distinct streams of the kernels without process group, ascending */
  for (size_t i = 0; i < n; i++) {
    size_t s = 0;
    if (k[i].pg_name) continue;
    while (s < ns && streams[s] != k[i].stream) s++;
    if (s == ns) HTA_PUSH(streams, ns, as, 4, k[i].stream, oom);
  }
  for (size_t a = 1; a < ns; a++) { /* insertion sort: few streams */
    int64_t v = streams[a];
    size_t b = a;
    while (b > 0 && streams[b - 1] > v) streams[b] = streams[b - 1], b--;
    streams[b] = v;
  }
  for (size_t i = 0; i < n; i++) {
    k[i].slot = -1;
    if (!k[i].pg_name) {
      for (size_t s = 0; s < ns; s++) {
        if (streams[s] == k[i].stream) k[i].slot = (int64_t)s;
      }
    }
    /* position among the earlier kernels of the same group (groups are few) */
    k[i].index = 0;
    for (size_t p = i; p-- > 0;) {
      if (k[p].slot == k[i].slot && collCmpText(k[p].pg_name, k[i].pg_name) == 0) {
        k[i].index = k[p].index + 1;
        break;
      }
    }
  }
  sqlite3_free(streams);
  return SQLITE_OK;
oom:
  sqlite3_free(streams);
  return SQLITE_NOMEM;
}

static void collMismatch(coll_inst *in) {
  const coll_kernel *f = in->k[0];
  int bad[6] = {0};
  static const char *const names[6] = {"collective_name", "dtype",      "in_nelems",
                                       "out_nelems",      "group_size", "pg_ranks"};
  for (size_t i = 1; i < in->n; i++) {
    const coll_kernel *k = in->k[i];
    bad[0] |= collCmpText(f->coll_name, k->coll_name) != 0;
    bad[1] |= collCmpText(f->dtype, k->dtype) != 0;
    bad[2] |= f->has_in != k->has_in || (f->has_in && f->in_nelems != k->in_nelems);
    bad[3] |= f->has_out != k->has_out || (f->has_out && f->out_nelems != k->out_nelems);
    bad[4] |= f->has_gs != k->has_gs || (f->has_gs && f->group_size != k->group_size);
    bad[5] |= collCmpText(f->pg_ranks, k->pg_ranks) != 0;
  }
  in->mismatch[0] = 0;
  for (int b = 0; b < 6; b++) {
    if (!bad[b]) continue;
    if (in->mismatch[0]) strcat(in->mismatch, ",");
    strcat(in->mismatch, names[b]);
  }
}

/* COL-7..10 for one instance. */
static void collInstance(coll_inst *in) {
  const coll_kernel *f = in->k[0];
  double sum = 0;
  in->min_ts = in->max_ts = f->ts;
  in->min_end = in->max_end = hta_end(f->ts, f->dur);
  in->min_dur = f->dur;
  in->first_rank = in->last_rank = f->rank;
  in->first = in->last = 0;
  for (size_t i = 1; i < in->n; i++) {
    const coll_kernel *k = in->k[i];
    int64_t e = hta_end(k->ts, k->dur);
    if (k->ts < in->min_ts)
      in->min_ts = k->ts, in->first_rank = k->rank, in->first = i; /* ties: lowest */
    if (k->ts > in->max_ts) in->max_ts = k->ts, in->last_rank = k->rank, in->last = i;
    if (e < in->min_end) in->min_end = e;
    if (e > in->max_end) in->max_end = e;
    if (k->dur < in->min_dur) in->min_dur = k->dur;
  }
  for (size_t i = 0; i < in->n; i++) {
    in->k[i]->wait = hta_sub_sat(in->max_ts, in->k[i]->ts);
    sum += (double)in->k[i]->wait;
  }
  in->avg_wait_ns = sum / (double)in->n;
  in->kept = (f->type >= COLL_T_ALLREDUCE && f->type <= COLL_T_ALLTOALL) ||
             (!f->pg_name && f->type != COLL_T_ALLTOALLV);
  in->msg_bytes = !f->coll_name ? -1 : f->type == COLL_T_ALLGATHER ? f->out_bytes : f->in_bytes;
  collMismatch(in);
}

double coll_algbw(const coll_inst *in) {
  if (in->msg_bytes < 0 || in->min_dur <= 0) return NAN;
  return (double)in->msg_bytes / (double)in->min_dur;
}

double coll_bus_factor(int type, const coll_kernel *k) {
  double n = (double)k->group_size;
  if (!k->has_gs || k->group_size <= 0) return NAN;
  switch (type) {
  case COLL_T_ALLREDUCE: return 2.0 * (n - 1) / n;
  case COLL_T_REDUCESCATTER:
  case COLL_T_ALLGATHER:
  case COLL_T_ALLTOALL: return (n - 1) / n;
  case COLL_T_BROADCAST:
  case COLL_T_REDUCE: return 1.0;
  default: return NAN;
  }
}

static int collMatch(coll_job *j) {
  size_t i, start = 0;
  if (j->nk == 0) return SQLITE_OK;
  for (i = 0; i <= j->nk; i++) { /* per trace: sort by time, then index */
    if (i < j->nk && j->k[i].trace_id == j->k[start].trace_id) continue;
    qsort(j->k + start, i - start, sizeof *j->k, collCmpTime);
    if (collIndex(j->k + start, i - start) != SQLITE_OK) return SQLITE_NOMEM;
    start = i;
  }
  j->byinst = sqlite3_malloc64(j->nk * sizeof *j->byinst);
  if (!j->byinst) return SQLITE_NOMEM;
  for (i = 0; i < j->nk; i++) j->byinst[i] = &j->k[i];
  qsort(j->byinst, j->nk, sizeof *j->byinst, collCmpInst);
  for (i = 0; i < j->nk; i++) j->ninst += i == 0 || !collSameInst(j->byinst[i - 1], j->byinst[i]);
  j->inst = sqlite3_malloc64(j->ninst * sizeof *j->inst);
  if (!j->inst) return SQLITE_NOMEM;
  memset(j->inst, 0, j->ninst * sizeof *j->inst);
  size_t n = 0;
  for (i = 0; i < j->nk; i++) {
    if (i == 0 || !collSameInst(j->byinst[i - 1], j->byinst[i])) j->inst[n++].k = &j->byinst[i];
    j->inst[n - 1].n++;
    j->byinst[i]->inst = n - 1;
  }
  for (i = 0; i < j->ninst; i++) collInstance(&j->inst[i]);
  return SQLITE_OK;
}

int coll_load(sqlite3 *db, const hta_scope *sc, int include_last_step, coll_job *j) {
  coll_ctx c;
  sqlite3_stmt *st = 0;
  size_t cap = 0;
  const char *rpc = "record_param_comms";
  int rc;
  memset(j, 0, sizeof *j);
  memset(&c, 0, sizeof c);
  c.db = db;
  rc = hta_traces_load(db, sc, 0, 0, include_last_step, &j->tr);
  if (rc != SQLITE_OK) return rc;
  rc = hta_string_ids(db, sc->schema, &rpc, 1, &c.rpc_name);
  if (rc == SQLITE_OK) rc = hta_prepare(db, sc->schema, COLL_SQL_KERNELS, &st);
  if (rc == SQLITE_OK) rc = hta_prepare(db, sc->schema, COLL_SQL_META, &c.meta);
  if (rc == SQLITE_OK) rc = hta_prepare(db, sc->schema, COLL_SQL_NODE, &c.node);
  for (int t = 0; rc == SQLITE_OK && t < j->tr.n; t++) {
    if (hta_interrupted(db)) rc = SQLITE_INTERRUPT;
    else rc = collLoadTrace(&c, st, t, j, &cap);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(c.meta);
  sqlite3_finalize(c.node);
  if (rc == SQLITE_OK) rc = collMatch(j);
  if (rc != SQLITE_OK) coll_free(j);
  return rc;
}

void coll_free(coll_job *j) {
  for (size_t i = 0; i < j->nk; i++) {
    collFreeMeta(&j->k[i]);
    sqlite3_free(j->k[i].kname);
  }
  sqlite3_free(j->k);
  sqlite3_free(j->byinst);
  sqlite3_free(j->inst);
  hta_traces_free(&j->tr);
  memset(j, 0, sizeof *j);
}

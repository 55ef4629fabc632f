/*
** tb_steps.c: the model of one trace file that the PyTorch TensorBoard profiler
** plugin (torch_tb_profiler 0.4.3) draws its Overview, GPU summary and Distributed
** view from (tb_model.h): the events it reads, its steps, the device-side step
** windows, and the eight roles each instant of a step is given. The analyses over it
** are tb_overview.c, tb_gpu.c and tb_distributed.c.
**
** Requirements (tests cite them as TV-n):
**  1. Events: the trace's ph 'X' rows with a ts, by category in any case: cpu_op and
**     operator (operators), user_annotation and gpu_user_annotation (annotations),
**     python, runtime, cuda_runtime, mtia_runtime, glow_runtime, xpu_runtime,
**     privateuse1_runtime (runtime calls), kernel, memcpy / gpu_memcpy, memset /
**     gpu_memset. Every other row is ignored (cuda_driver launches, cuda_sync,
**     python_function, instants). Order: (ts, seq), the plugin's stable sort by ts in
**     traceEvents order. An interval is [ts, ts + dur) in exact ns; a NULL or
**     negative dur is zero-length.
**  2. Launches: a kernel, memcpy or memset belongs to the runtime call with its
**     correlation id that comes last before it in TV-1 order, else to the first one
**     after it; with none (or without a correlation) it is unlinked. External id =
**     args "external id", else "External id" (the 2020 traces write the first).
**  3. Steps: the operator and annotation events named ProfilerStep#N, GPU-side
**     copies included (names repeat), in TV-1 order; the name is N printed back as
**     an integer (the text after '#' when it is none). Without any: one step "0"
**     over [first start, last end] of the operator and python events (annotations
**     do not count). Without those either (GPU-only traces) there is no step at all
**     and every analysis of the file gives no step rows (the plugin keeps an empty
**     sentinel window [2^63-1, -2^63] whose numbers mean nothing).
**  4. Device-side windows: the runtime calls in TV-1 order are walked with one
**     current step (host windows): a call that starts before the step is skipped; one
**     inside it (start >= step start, end <= step end) is the step's, with all its
**     device events (counted in dev_ops; first start, last end); one that starts
**     inside and ends after is skipped; one at or after the step's end closes the
**     step and is looked at again with the next. When no device event was matched
**     the host windows stay. Otherwise prev = the first step's host start, raised,
**     when the first step launched work, to the latest end of the device events no
**     step matched that end before that work's first start; then per step in order
**     start = max(prev, host start), end = max(host end, last device end) when it
**     launched work (not less than start), else max(host end, start); prev = end.
**  5. Tail rule (device windows and >= 2 steps): the steps after the last one with
**     device work are dropped, and that one too when the step before it launched
**     more than 1.25 times as much (count_before * 0.8 > count_last).
**  6. Roles, each the union of its events' intervals: Kernel (kernel events, but
**     those whose External id is a communication operation's are Communication),
**     Memcpy, Memset, Runtime (runtime calls), DataLoader (operators and annotations
**     named enumerate(DataLoader)#...__next__ or enumerate(DataPipe)#...),
**     Communication (operators, annotations and python events named nccl: or gloo:
**     broadcast, reduce, all_reduce, all_gather, reduce_scatter: the operations), CPU
**     Exec (every other operator, annotation and python event but the steps). An
**     operation or kernel without an External id is linked to nothing.
**  7. Costs: over the union of the kept windows each instant goes to the first role
**     active at it in the order Kernel, Memcpy, Memset, Communication, Runtime,
**     DataLoader, CPU Exec; Other is the rest. A step's cost of a role is its share
**     inside the step's window; the costs add up to the window's length.
**  8. Flags: the GPU columns are shown when the file has a runtime call, a
**     Kernel-role kernel, a memcpy or a memset; Communication when that role has an
**     event.
**  9. The Distributed view's computation is the Kernel role, or CPU Exec when the
**     file has no Kernel-role event.
**
** HOW IT WORKS: one scan of the trace's rowid range reads the events in file order
** into runtime calls, device events, step candidates, operations and role
** intervals; the arrays are sorted by (ts, seq) (TV-1). Launches are found by a
** binary search in the runtime calls sorted by (correlation, ts, seq). The walk of
** TV-4 is the plugin's two-way merge. Costs: the kept windows' union is cut role by
** role (intersect, then subtract: hta_iv_*), and each step's share of each piece
** list is measured by binary search.
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_model.h"
#include "tb/tb_tree.h" /* tb_name_flags: the plugin's name rules */
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

const char *const tv_role_names[TV_NROLE] = {
    "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other",
};

/* ---------------------------------------------------------------- categories and names */

/* What a category is to the plugin (TV-1): a TB_C_* class of tb_rules.c. */
/* tv_cat and tv_name start with their int64 id: hta_i64_cmp sorts and finds them. */
typedef struct tv_cat {
  int64_t id;
  int type;
} tv_cat;

/* The category's class for the model (TV-1): python_function events are in no role. */
static int tvCatType(const char *name) {
  int c = tb_category_class(name);
  return c == TB_C_PYFN ? TB_C_NONE : c;
}

/* What a name is to the plugin: a step, a data-loading call or an operation. */
enum { TN_STEP = 1, TN_DATALOADER, TN_COMM };

typedef struct tv_name {
  int64_t id;
  int cls;
  char text[32]; /* TN_STEP: the step's name; TN_COMM: the collective's */
} tv_name;

typedef struct tv_names {
  tv_cat *cats;
  size_t ncat;
  tv_name *names;
  size_t nname;
} tv_names;

/* TV-3: the step name of "ProfilerStep#<text>": the integer printed back, as Python's
** str(int(text)) (spaces and a sign allowed), else the text itself, cut to fit. */
static void tvStepName(const char *s, char out[32]) {
  const char *p = strchr(s, '#') + 1, *q = p;
  size_t n = strcspn(p, "#");
  int neg = 0;
  uint64_t v = 0;
  while (q < p + n && (*q == ' ' || *q == '\t')) q++;
  if (q < p + n && (*q == '+' || *q == '-')) neg = *q++ == '-';
  const char *d = q;
  while (q < p + n && *q >= '0' && *q <= '9' && v < UINT64_MAX / 10)
    v = v * 10 + (uint64_t)(*q++ - '0');
  const char *digits_end = q;
  while (q < p + n && (*q == ' ' || *q == '\t')) q++;
  if (digits_end > d && q == p + n && v <= (uint64_t)INT64_MAX) {
    sqlite3_snprintf(32, out, "%s%llu", neg && v ? "-" : "", (unsigned long long)v);
  } else {
    sqlite3_snprintf(32, out, "%.*s", (int)(n < 31 ? n : 31), p);
  }
}

static void tvNamesFree(tv_names *nm) {
  sqlite3_free(nm->cats);
  sqlite3_free(nm->names);
  memset(nm, 0, sizeof *nm);
}

/* Reads the categories the plugin knows and the names it treats apart (tb_rules.c's
** rules: steps, data loading, the ten collectives). */
static int tvNamesLoad(sqlite3 *db, const char *schema, tv_names *nm) {
  sqlite3_stmt *st = 0;
  size_t capc = 0, capn = 0;
  int rc;
  memset(nm, 0, sizeof *nm);
  rc = hta_prepare(db, schema, "SELECT category_id, name FROM $S.category", &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    tv_cat c = {sqlite3_column_int64(st, 0), tvCatType((const char *)sqlite3_column_text(st, 1))};
    if (c.type != TB_C_NONE) HTA_PUSH(nm->cats, nm->ncat, capc, 16, c, names_oom);
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  if (rc == SQLITE_OK)
    rc = hta_prepare(
        db, schema,
        "SELECT string_id, value FROM $S.string WHERE value GLOB 'ProfilerStep#*'"
        " OR value GLOB 'enumerate(Data*' OR value GLOB 'nccl:*' OR value GLOB 'gloo:*'",
        &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 1);
    int f = tb_name_flags(v);
    tv_name n = {sqlite3_column_int64(st, 0), 0, ""};
    rc = SQLITE_OK;
    if (f & TB_N_STEP) {
      n.cls = TN_STEP;
      tvStepName(v, n.text);
    } else if (f & TB_N_DATALOADER) {
      n.cls = TN_DATALOADER;
    } else if (f & TB_N_COMM) {
      n.cls = TN_COMM;
      sqlite3_snprintf(sizeof n.text, n.text, "%s", v);
    } else {
      continue;
    }
    HTA_PUSH(nm->names, nm->nname, capn, 16, n, names_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  if (nm->ncat) qsort(nm->cats, nm->ncat, sizeof *nm->cats, hta_i64_cmp);
  if (nm->nname) qsort(nm->names, nm->nname, sizeof *nm->names, hta_i64_cmp);
  return rc;
names_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

static int tvCatOf(const tv_names *nm, int64_t id) {
  const tv_cat *c = bsearch(&id, nm->cats, nm->ncat, sizeof *c, hta_i64_cmp);
  return c ? c->type : TB_C_NONE;
}

static const tv_name *tvNameOf(const tv_names *nm, int64_t id) {
  return nm->nname ? bsearch(&id, nm->names, nm->nname, sizeof *nm->names, hta_i64_cmp) : 0;
}

/* ", "-joined ids of the categories of TYPE (or of the operation names), "-1" when
** none: inlined into the scan's SQL (integers only). */
static char *tvIdList(const tv_names *nm, int type) {
  sqlite3_str *s = sqlite3_str_new(0);
  int n = 0;
  if (type >= 0) {
    for (size_t i = 0; i < nm->ncat; i++)
      if (nm->cats[i].type == type)
        sqlite3_str_appendf(s, "%s%lld", n++ ? "," : "", (long long)nm->cats[i].id);
  } else {
    for (size_t i = 0; i < nm->nname; i++)
      if (nm->names[i].cls == TN_COMM)
        sqlite3_str_appendf(s, "%s%lld", n++ ? "," : "", (long long)nm->names[i].id);
  }
  if (!n) sqlite3_str_appendall(s, "-1");
  return sqlite3_str_finish(s);
}

/* ---------------------------------------------------------------- loading */

static int tvTsSeqCmp(int64_t ta, int64_t sa, int64_t tb, int64_t sb) {
  if (ta != tb) return ta < tb ? -1 : 1;
  return sa < sb ? -1 : sa > sb;
}
static int tvDevCmp(const void *a, const void *b) {
  const tv_dev *x = a, *y = b;
  return tvTsSeqCmp(x->ts, x->seq, y->ts, y->seq);
}
static int tvRtCmp(const void *a, const void *b) {
  const tv_rt *x = a, *y = b;
  return tvTsSeqCmp(x->ts, x->seq, y->ts, y->seq);
}
static int tvOpCmp(const void *a, const void *b) {
  const tv_comm_op *x = a, *y = b;
  return tvTsSeqCmp(x->ts, x->seq, y->ts, y->seq);
}

/* A step candidate with its seq, for sorting (TV-3). */
typedef struct tv_cand {
  tv_step s;
  int64_t seq;
} tv_cand;
static int tvCandCmp(const void *a, const void *b) {
  const tv_cand *x = a, *y = b;
  return tvTsSeqCmp(x->s.host_start, x->seq, y->s.host_start, y->seq);
}

/* The scan's scratch: capacities, step candidates, the TV-3 fallback span. */
typedef struct tv_load {
  size_t cap_role[TV_NLIST], cap_dev, cap_rt, cap_op, cap_cand;
  tv_cand *cands;
  size_t ncand;
  int64_t cpu_min, cpu_max;
  int has_cpu;
} tv_load;

/* The scan's SQL: the rows of TV-1 with the External id of TV-2 (read from args only
** for kernels and operations, KCATS and COMMS: integer id lists) and, with
** TV_LOAD_KERNEL_ARGS, each kernel's blocks per SM and occupancy. */
static char *tvScanSql(const char *kcats, const char *comms, int flags) {
  sqlite3_str *s = sqlite3_str_new(0);
  sqlite3_str_appendf(s,
                      "SELECT e.category_id, e.name_id, e.ts, e.dur, e.correlation,"
                      " CASE WHEN (e.category_id IN (%s) OR e.name_id IN (%s))"
                      "  AND instr(e.args, '\"external id\"')"
                      "  THEN json_extract(e.args, '$.\"external id\"') ELSE e.external_id END,"
                      " e.device, e.seq, e.event_id",
                      kcats, comms);
  if (flags & TV_LOAD_KERNEL_ARGS)
    sqlite3_str_appendf(s,
                        ", CASE WHEN e.category_id IN (%s)"
                        "  THEN json_extract(e.args, '$.\"blocks per SM\"') END,"
                        " CASE WHEN e.category_id IN (%s)"
                        "  THEN json_extract(e.args, '$.\"est. achieved occupancy %%\"') END",
                        kcats, kcats);
  sqlite3_str_appendall(s,
                        " FROM $S.event e WHERE e.event_id BETWEEN ?1 AND ?2"
                        " AND e.ph = 'X' AND e.ts IS NOT NULL");
  return sqlite3_str_finish(s);
}

/* One host row (operator, annotation, python) of the scan. */
static int tvHostRow(sqlite3_stmt *st, const tv_names *nm, int type, hta_iv iv, int64_t seq,
                     int64_t ext, int has_ext, tv_model *m, tv_load *L) {
  const tv_name *n = tvNameOf(nm, sqlite3_column_int64(st, 1));
  int cls = n ? n->cls : 0, role = TV_CPU_EXEC;
  if (type == TB_C_PY && cls != TN_COMM) cls = 0; /* python: never a step or data loading */
  if (type == TB_C_OP || type == TB_C_PY || cls == TN_STEP) { /* TV-3: the fallback span */
    if (!L->has_cpu || iv.start < L->cpu_min) L->cpu_min = iv.start;
    if (!L->has_cpu || iv.end > L->cpu_max) L->cpu_max = iv.end;
    L->has_cpu = 1;
  }
  if (cls == TN_STEP) {
    tv_cand c;
    memset(&c, 0, sizeof c);
    memcpy(c.s.name, n->text, sizeof c.s.name);
    c.s.event_id = sqlite3_column_int64(st, 8);
    c.s.host_start = iv.start;
    c.s.host_end = iv.end;
    c.seq = seq;
    HTA_PUSH(L->cands, L->ncand, L->cap_cand, 16, c, host_oom);
    return SQLITE_OK;
  }
  if (cls == TN_DATALOADER) role = TV_DATALOADER;
  if (cls == TN_COMM) {
    tv_comm_op op = {sqlite3_column_int64(st, 8), seq, iv.start, iv.end, ext, has_ext, ""};
    memcpy(op.name, n->text, sizeof op.name);
    role = TV_COMM;
    m->comm_libs |= n->text[0] == 'n' ? 1 : 2; /* nccl: or gloo: */
    HTA_PUSH(m->ops, m->nops, L->cap_op, 16, op, host_oom);
  }
  HTA_PUSH(m->role[role], m->nrole[role], L->cap_role[role], 64, iv, host_oom);
  return SQLITE_OK;
host_oom:
  return SQLITE_NOMEM;
}

/* One device row (kernel, memcpy, memset) of the scan; kernels get their role once
** the operations are known (tvKernelRoles). */
static int tvDevRow(sqlite3_stmt *st, int type, int flags, hta_iv iv, int64_t seq, int64_t corr,
                    int64_t ext, int has_ext, tv_model *m, tv_load *L) {
  tv_dev d;
  memset(&d, 0, sizeof d);
  d.ts = iv.start;
  d.end = iv.end;
  d.seq = seq;
  d.corr = corr;
  d.ext = ext;
  d.has_ext = (unsigned char)has_ext;
  d.rt = -1;
  d.kind = type == TB_C_KERNEL ? TV_KERNEL : type == TB_C_MEMCPY ? TV_MEMCPY : TV_MEMSET;
  d.has_device = (unsigned char)hta_value_int64(sqlite3_column_value(st, 6), &d.device);
  if ((flags & TV_LOAD_KERNEL_ARGS) && type == TB_C_KERNEL) {
    int t9 = sqlite3_column_type(st, 9), t10 = sqlite3_column_type(st, 10);
    if (t9 == SQLITE_INTEGER || t9 == SQLITE_FLOAT)
      d.bps = sqlite3_column_double(st, 9), d.has_bps = 1;
    if (t10 == SQLITE_INTEGER || t10 == SQLITE_FLOAT)
      d.occ = sqlite3_column_double(st, 10), d.has_occ = 1;
  }
  if (d.kind != TV_KERNEL)
    HTA_PUSH(m->role[d.kind], m->nrole[d.kind], L->cap_role[d.kind], 64, iv, dev_oom);
  HTA_PUSH(m->devs, m->ndev, L->cap_dev, 64, d, dev_oom);
  return SQLITE_OK;
dev_oom:
  return SQLITE_NOMEM;
}

/* One scan of trace T's rows (TV-1) into M and L. */
static int tvScan(sqlite3 *db, const hta_trace *t, const tv_names *nm, int flags, tv_model *m,
                  tv_load *L) {
  sqlite3_stmt *st = 0;
  char *kcats = tvIdList(nm, TB_C_KERNEL), *comms = tvIdList(nm, -1);
  char *sql = kcats && comms ? tvScanSql(kcats, comms, flags) : 0;
  int rc = sql ? hta_prepare(db, t->schema, sql, &st) : SQLITE_NOMEM;
  sqlite3_free(sql);
  sqlite3_free(kcats);
  sqlite3_free(comms);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int type = tvCatOf(nm, sqlite3_column_int64(st, 0)), has_ext;
    int64_t ts, dur, seq, corr = INT64_MIN, ext = 0;
    if (type == TB_C_NONE) continue;
    ts = sqlite3_column_int64(st, 2);
    dur = sqlite3_column_int64(st, 3); /* NULL reads 0 */
    hta_iv iv = {ts, hta_end(ts, dur > 0 ? dur : 0)};
    seq = sqlite3_column_int64(st, 7);
    has_ext = hta_value_int64(sqlite3_column_value(st, 5), &ext);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL) corr = sqlite3_column_int64(st, 4);
    if (type == TB_C_OP || type == TB_C_ANN || type == TB_C_PY) {
      rc = tvHostRow(st, nm, type, iv, seq, ext, has_ext, m, L);
    } else if (type == TB_C_RT) {
      tv_rt r = {ts, iv.end, seq, corr, INT64_MAX, INT64_MIN, 0, 0};
      HTA_PUSH(m->role[TV_RUNTIME], m->nrole[TV_RUNTIME], L->cap_role[TV_RUNTIME], 64, iv,
               scan_oom);
      HTA_PUSH(m->rts, m->nrt, L->cap_rt, 64, r, scan_oom);
      rc = SQLITE_OK;
    } else {
      rc = tvDevRow(st, type, flags, iv, seq, corr, ext, has_ext, m, L);
    }
    if (rc != SQLITE_OK) break;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
scan_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- launches and roles */

/* A runtime call's key for TV-2: sorted by (corr, ts, seq). */
typedef struct tv_rtkey {
  int64_t corr, ts, seq;
  size_t i; /* index in tv_model.rts (TV-1 order) */
} tv_rtkey;
static int tvRtKeyCmp(const void *a, const void *b) {
  const tv_rtkey *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return tvTsSeqCmp(x->ts, x->seq, y->ts, y->seq);
}

/* TV-1 order for everything, then each device event's runtime call (TV-2). */
static int tvLink(tv_model *m) {
  tv_rtkey *k;
  size_t nk = 0;
  if (m->nrt) qsort(m->rts, m->nrt, sizeof *m->rts, tvRtCmp);
  if (m->ndev) qsort(m->devs, m->ndev, sizeof *m->devs, tvDevCmp);
  if (m->nops) qsort(m->ops, m->nops, sizeof *m->ops, tvOpCmp);
  if (!m->nrt || !m->ndev) return SQLITE_OK;
  k = sqlite3_malloc64(m->nrt * sizeof *k);
  if (!k) return SQLITE_NOMEM;
  for (size_t i = 0; i < m->nrt; i++)
    if (m->rts[i].corr != INT64_MIN)
      k[nk++] = (tv_rtkey){m->rts[i].corr, m->rts[i].ts, m->rts[i].seq, i};
  qsort(k, nk, sizeof *k, tvRtKeyCmp);
  for (size_t j = 0; j < m->ndev; j++) {
    tv_dev *d = &m->devs[j];
    size_t lo = 0, hi = nk, first, p;
    if (d->corr == INT64_MIN) continue;
    while (lo < hi) { /* the first call with this correlation */
      size_t mid = lo + (hi - lo) / 2;
      if (k[mid].corr < d->corr) lo = mid + 1;
      else hi = mid;
    }
    first = lo;
    if (first == nk || k[first].corr != d->corr) continue; /* unlinked */
    hi = nk;
    while (lo < hi) { /* the first call of it after the device event */
      size_t mid = lo + (hi - lo) / 2;
      if (k[mid].corr == d->corr && tvTsSeqCmp(k[mid].ts, k[mid].seq, d->ts, d->seq) < 0)
        lo = mid + 1;
      else hi = mid;
    }
    p = lo > first ? lo - 1 : first; /* the last one before it, else the first after */
    tv_rt *r = &m->rts[k[p].i];
    d->rt = (int32_t)k[p].i;
    r->ndev++;
    if (d->ts < r->dev_start) r->dev_start = d->ts;
    if (d->end > r->dev_end) r->dev_end = d->end;
  }
  sqlite3_free(k);
  return SQLITE_OK;
}

/* TV-6: each kernel to Kernel, or to Communication when its External id is an
** operation's. */
static int tvKernelRoles(tv_model *m, tv_load *L) {
  int64_t *ids = 0;
  size_t n = 0;
  if (m->nops) {
    ids = sqlite3_malloc64(m->nops * sizeof *ids);
    if (!ids) return SQLITE_NOMEM;
    for (size_t i = 0; i < m->nops; i++)
      if (m->ops[i].has_ext) ids[n++] = m->ops[i].ext;
    qsort(ids, n, sizeof *ids, hta_i64_cmp);
  }
  for (size_t j = 0; j < m->ndev; j++) {
    tv_dev *d = &m->devs[j];
    int role = TV_KERNEL;
    if (d->kind != TV_KERNEL) continue;
    if (d->has_ext && n && bsearch(&d->ext, ids, n, sizeof *ids, hta_i64_cmp)) {
      d->comm = 1;
      role = TV_COMM;
    }
    HTA_PUSH(m->role[role], m->nrole[role], L->cap_role[role], 64, ((hta_iv){d->ts, d->end}),
             roles_oom);
  }
  sqlite3_free(ids);
  for (int r = 0; r < TV_NLIST; r++) {
    m->nraw[r] = (int64_t)m->nrole[r];
    m->nrole[r] = hta_iv_merge(m->role[r], m->nrole[r]);
  }
  return SQLITE_OK;
roles_oom:
  sqlite3_free(ids);
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- steps */

/* TV-4: the walk of the runtime calls over the host windows, then the move of the
** windows to the device side. */
static void tvDeviceWindows(tv_model *m) {
  size_t is = 0, ir = 0, ns = m->nsteps, matched = 0;
  int64_t dmin = INT64_MAX, dmax = INT64_MIN, prev;
  tv_step *s = m->steps;
  for (size_t i = 0; i < ns; i++) s[i].dev_start = INT64_MAX, s[i].dev_end = INT64_MIN;
  while (is < ns && ir < m->nrt) {
    tv_rt *r = &m->rts[ir];
    if (r->ts < s[is].host_start) {
      ir++; /* before the step, or across its start */
    } else if (r->end <= s[is].host_end) {
      if (r->ndev) {
        if (r->dev_start < dmin) dmin = r->dev_start;
        if (r->dev_end > dmax) dmax = r->dev_end;
        s[is].dev_ops += r->ndev;
        matched += (size_t)r->ndev;
      }
      r->matched = 1;
      ir++;
    } else if (r->ts < s[is].host_end) {
      ir++; /* across the step's end */
    } else {
      s[is].dev_start = dmin, s[is].dev_end = dmax; /* at or after the end: next step */
      dmin = INT64_MAX, dmax = INT64_MIN;
      is++;
    }
  }
  if (is < ns) s[is].dev_start = dmin, s[is].dev_end = dmax; /* the step in progress */
  if (!matched) return;                                      /* host windows stay */
  m->device_windows = 1;
  prev = s[0].host_start;
  if (s[0].dev_ops) { /* the tail of the work launched before the first step */
    for (size_t j = 0; j < m->ndev; j++) {
      const tv_dev *d = &m->devs[j];
      if ((d->rt < 0 || !m->rts[d->rt].matched) && d->end < s[0].dev_start && d->end > prev)
        prev = d->end;
    }
  }
  for (size_t i = 0; i < ns; i++) {
    int64_t start = prev > s[i].host_start ? prev : s[i].host_start, end = s[i].host_end;
    if (s[i].dev_ops && s[i].dev_end > end) end = s[i].dev_end;
    if (end < start) end = start;
    s[i].start = start;
    s[i].end = end;
    prev = end;
  }
}

/* TV-5: keep the steps up to the last one with device work, or one fewer. */
static void tvTailRule(tv_model *m) {
  size_t last;
  if (!m->device_windows || m->nsteps < 2) return;
  for (last = m->nsteps; last > 0 && m->steps[last - 1].dev_ops == 0; last--) {
  }
  if (last == 0) return;
  if (last >= 2 && (double)m->steps[last - 2].dev_ops * 0.8 > (double)m->steps[last - 1].dev_ops)
    last--;
  m->nsteps = last;
}

/* TV-3: the step list (the candidates, else the fallback step, else none). */
static int tvSteps(tv_model *m, tv_load *L) {
  if (L->ncand) {
    qsort(L->cands, L->ncand, sizeof *L->cands, tvCandCmp);
    m->steps = sqlite3_malloc64(L->ncand * sizeof *m->steps);
    if (!m->steps) return SQLITE_NOMEM;
    for (size_t i = 0; i < L->ncand; i++) m->steps[i] = L->cands[i].s;
    m->nsteps = L->ncand;
  } else if (L->has_cpu) {
    m->steps = sqlite3_malloc64(sizeof *m->steps);
    if (!m->steps) return SQLITE_NOMEM;
    memset(m->steps, 0, sizeof *m->steps);
    strcpy(m->steps[0].name, "0");
    m->steps[0].host_start = L->cpu_min;
    m->steps[0].host_end = L->cpu_max;
    m->nsteps = 1;
  } else {
    m->sentinel = 1;
    return SQLITE_OK;
  }
  for (size_t i = 0; i < m->nsteps; i++) {
    m->steps[i].start = m->steps[i].host_start;
    m->steps[i].end = m->steps[i].host_end;
  }
  tvDeviceWindows(m);
  m->nfound = m->nsteps;
  tvTailRule(m);
  return SQLITE_OK;
}

/* TV-7: each kept step's cost per role. */
static int tvCosts(tv_model *m) {
  size_t n = m->nsteps, cap = n;
  hta_iv *slots, *share, *rest;
  int rc = SQLITE_OK;
  if (!n) return SQLITE_OK;
  for (int r = 0; r < TV_NLIST; r++) cap += m->nrole[r];
  slots = sqlite3_malloc64(3 * cap * sizeof *slots);
  if (!slots) return SQLITE_NOMEM;
  share = slots + cap;
  rest = share + cap;
  for (size_t i = 0; i < n; i++) slots[i] = (hta_iv){m->steps[i].start, m->steps[i].end};
  size_t ns = hta_iv_merge(slots, n);
  for (int r = 0; r < TV_NLIST; r++) {
    size_t nsh = hta_iv_intersect(slots, ns, m->role[r], m->nrole[r], share);
    for (size_t i = 0; i < n; i++)
      m->steps[i].cost[r] = hta_iv_clip_length(share, nsh, m->steps[i].start, m->steps[i].end);
    ns = hta_iv_subtract(slots, ns, share, nsh, rest);
    memcpy(slots, rest, ns * sizeof *slots);
  }
  for (size_t i = 0; i < n; i++)
    m->steps[i].cost[TV_OTHER] = hta_iv_clip_length(slots, ns, m->steps[i].start, m->steps[i].end);
  sqlite3_free(slots);
  return rc;
}

/* ---------------------------------------------------------------- the model */

void tv_model_free(tv_model *m) {
  sqlite3_free(m->steps);
  for (int r = 0; r < TV_NLIST; r++) sqlite3_free(m->role[r]);
  sqlite3_free(m->devs);
  sqlite3_free(m->rts);
  sqlite3_free(m->ops);
  memset(m, 0, sizeof *m);
}

int tv_model_load(sqlite3 *db, const hta_trace *t, int flags, tv_model *m) {
  tv_names nm;
  tv_load L;
  int rc;
  memset(m, 0, sizeof *m);
  memset(&L, 0, sizeof L);
  rc = tvNamesLoad(db, t->schema, &nm);
  if (rc == SQLITE_OK) rc = tvScan(db, t, &nm, flags, m, &L);
  tvNamesFree(&nm);
  if (rc == SQLITE_OK) rc = tvLink(m);
  if (rc == SQLITE_OK) rc = tvKernelRoles(m, &L);
  if (rc == SQLITE_OK) rc = tvSteps(m, &L);
  if (rc == SQLITE_OK) rc = tvCosts(m);
  sqlite3_free(L.cands);
  return rc;
}

int tv_shows_gpu(const tv_model *m) {
  return m->nraw[TV_RUNTIME] || m->nraw[TV_KERNEL] || m->nraw[TV_MEMCPY] || m->nraw[TV_MEMSET];
}

int tv_has_comm(const tv_model *m) { return m->nraw[TV_COMM] > 0; }

int tv_computation_role(const tv_model *m) { return m->nraw[TV_KERNEL] ? TV_KERNEL : TV_CPU_EXEC; }

int tv_foreach(sqlite3 *db, const hta_tvf_args *a, int flags,
               int (*fn)(void *ctx, const hta_trace *t, const tv_model *m, int64_t origin),
               void *ctx) {
  hta_traces tr;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1 /* no cut */, &tr);
  for (int i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    tv_model m;
    rc = tv_model_load(db, &tr.a[i], flags, &m);
    if (rc == SQLITE_OK) rc = fn(ctx, &tr.a[i], &m, tr.job_min_ts);
    tv_model_free(&m);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_traces_free(&tr); /* also after a failed load: it leaves the struct zeroed */
  return rc;
}

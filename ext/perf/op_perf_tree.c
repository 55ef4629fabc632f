/*
** op_perf_tree.c: one trace as the performance model sees it (op_perf.c OP-2, OP-3,
** OP-7, OP-8): the call tree of its host events, the GPU events each runtime call
** launched, the backward nodes of each forward operator, and the launchers.
**
** HOW IT WORKS: one scan of the trace's event_id range reads the complete cpu_op,
** cuda_runtime and cuda_driver events (the args of modelled operators are parsed,
** the "Sequence number" of every operator read when the database has backward
** nodes at all). They are ordered by (thread, ts, seq): a stable bucket pass of
** their keys by thread, a merge of a thread's keys only when they are out of order
** (they mostly come sorted), the nodes gathered in that order; one stack sweep per
** thread nests them; a node's subtree is then the contiguous range of positions up to
** sub_end (the events placed while it was open), so the GPU events under an
** operator are the GPU lists of the in-tree nodes of that range. GPU rows come from
** gpu.c and reach their runtime call through event.link_id (the correlation id),
** never through flow events. Times stay integer ns throughout.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "perf/op_perf.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define BWD_PREFIX "autograd::engine::evaluate_function:"

/* ---------------------------------------------------------------- ids */
int opt_ids_load(sqlite3 *db, const char *schema, opt_ids *ids) {
  sqlite3_stmt *st = 0;
  int rc;
  size_t a = 0;
  memset(ids, 0, sizeof *ids);
  ids->execute_id = -1;
  rc = hta_prepare(db, schema, "SELECT category_id, name FROM $S.category", &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    const char *c = (const char *)sqlite3_column_text(st, 1);
    int32_t id = (int32_t)sqlite3_column_int64(st, 0);
    if (!c) continue;
    if ((!strcmp(c, "cpu_op") || !strcmp(c, "Operator")) && ids->ncat_op < 2)
      ids->cat_op[ids->ncat_op++] = id;
    else if ((!strcmp(c, "cuda_runtime") || !strcmp(c, "cuda_driver") || !strcmp(c, "Runtime")) &&
             ids->ncat_rt < 4)
      ids->cat_rt[ids->ncat_rt++] = id;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  /* the modelled names present in this database: exact, and SGLang's per-layer
  ** sglang_profiler::x_<n> (opm_find drops the suffix) */
  if (rc == SQLITE_OK) {
    const char **names = sqlite3_malloc64(opm_ndefs * sizeof *names);
    int32_t *found = sqlite3_malloc64(opm_ndefs * sizeof *found);
    size_t am = 0, ad = 0;
    if (!names || !found) rc = SQLITE_NOMEM;
    for (size_t i = 0; rc == SQLITE_OK && i < opm_ndefs; i++) names[i] = opm_defs[i].name;
    if (rc == SQLITE_OK) rc = hta_string_ids(db, schema, names, opm_ndefs, found);
    for (size_t i = 0; rc == SQLITE_OK && i < opm_ndefs; i++) {
      if (found[i] < 0) continue;
      HTA_PUSH(ids->model_ids, ids->nmodel, am, 64, found[i], names_oom);
      HTA_PUSH(ids->model_def, ids->nmodel_def, ad, 64, (int32_t)i, names_oom);
    }
    if (rc == SQLITE_OK)
      rc = hta_prepare(db, schema,
                       "SELECT string_id, value FROM $S.string WHERE value >= 'sglang_profiler::'"
                       " AND value < 'sglang_profiler:;'",
                       &st);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      const char *v = (const char *)sqlite3_column_text(st, 1);
      long d = opm_find(v);
      rc = SQLITE_OK;
      if (d < 0 || !strcmp(v, opm_defs[d].name)) continue; /* none, or found exactly above */
      HTA_PUSH(ids->model_ids, ids->nmodel, am, 64, (int32_t)sqlite3_column_int64(st, 0),
               names_oom);
      HTA_PUSH(ids->model_def, ids->nmodel_def, ad, 64, (int32_t)d, names_oom);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_finalize(st);
    st = 0;
    goto names_done;
  names_oom:
    rc = SQLITE_NOMEM;
  names_done:
    sqlite3_free(names);
    sqlite3_free(found);
    /* sorted by name id, for the lookups (insertion: the arrays are short) */
    for (size_t i = 1; rc == SQLITE_OK && i < ids->nmodel; i++) {
      int32_t id = ids->model_ids[i], def = ids->model_def[i];
      size_t k = i;
      for (; k > 0 && ids->model_ids[k - 1] > id; k--) {
        ids->model_ids[k] = ids->model_ids[k - 1];
        ids->model_def[k] = ids->model_def[k - 1];
      }
      ids->model_ids[k] = id, ids->model_def[k] = def;
    }
  }
  if (rc == SQLITE_OK) {
    const char *exe = "execute";
    rc = hta_string_ids(db, schema, &exe, 1, &ids->execute_id);
  }
  /* backward nodes: names after the prefix (':' + 1 is ';') */
  if (rc == SQLITE_OK)
    rc = hta_prepare(db, schema,
                     "SELECT string_id FROM $S.string WHERE value >= '" BWD_PREFIX
                     "' AND value < 'autograd::engine::evaluate_function;'",
                     &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    int32_t id = (int32_t)sqlite3_column_int64(st, 0);
    HTA_PUSH(ids->bwd_ids, ids->nbwd, a, 16, id, ids_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  if (ids->nbwd) qsort(ids->bwd_ids, ids->nbwd, sizeof *ids->bwd_ids, hta_i32_cmp);
  if (rc == SQLITE_OK) rc = hta_classifier_open(db, schema, &ids->cls);
  return rc;
ids_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

void opt_ids_free(opt_ids *ids) {
  sqlite3_free(ids->model_ids);
  sqlite3_free(ids->model_def);
  sqlite3_free(ids->bwd_ids);
  hta_classifier_free(ids->cls);
  memset(ids, 0, sizeof *ids);
}

/* ---------------------------------------------------------------- loading */
/* A pid or tid as a key: an integer as itself, text by its index among the
** trace's distinct texts (keys below INT64_MIN + 2^20), NULL as INT64_MIN. */
typedef struct textkeys {
  char **v;
  size_t n, a;
} textkeys;

static int valueKey(sqlite3_stmt *st, int col, textkeys *tk, int64_t *out) {
  int t = sqlite3_column_type(st, col);
  const char *s;
  char *copy;
  *out = INT64_MIN;
  if (t == SQLITE_INTEGER) {
    *out = sqlite3_column_int64(st, col);
    return SQLITE_OK;
  }
  if (t == SQLITE_NULL || !(s = (const char *)sqlite3_column_text(st, col))) return SQLITE_OK;
  for (size_t i = 0; i < tk->n; i++) {
    if (!strcmp(tk->v[i], s)) {
      *out = INT64_MIN + 1 + (int64_t)i;
      return SQLITE_OK;
    }
  }
  if (!(copy = sqlite3_mprintf("%s", s))) return SQLITE_NOMEM;
  HTA_PUSH(tk->v, tk->n, tk->a, 4, copy, key_oom);
  *out = INT64_MIN + (int64_t)tk->n;
  return SQLITE_OK;
key_oom:
  sqlite3_free(copy);
  return SQLITE_NOMEM;
}

typedef struct thread_key {
  int64_t pid, tid;
  int32_t graft; /* a graft's copy of a captured thread: its launch index; -1 */
} thread_key;

/* Index of (pid, tid, graft) among the trace's threads, added when new; -1 on OOM. */
static int32_t threadOf(thread_key **pv, size_t *pn, size_t *pa, int64_t pid, int64_t tid,
                        int32_t graft, int32_t *last) {
  thread_key k = {pid, tid, graft};
  if (*last >= 0 && (*pv)[*last].pid == pid && (*pv)[*last].tid == tid &&
      (*pv)[*last].graft == graft)
    return *last;
  for (size_t i = 0; i < *pn; i++) {
    if ((*pv)[i].pid == pid && (*pv)[i].tid == tid && (*pv)[i].graft == graft)
      return *last = (int32_t)i;
  }
  HTA_PUSH(*pv, *pn, *pa, 16, k, thr_oom);
  return *last = (int32_t)(*pn - 1);
thr_oom:
  return -1;
}

/* "a, b, c": the ids of V as SQL text (sqlite3_free), "-1" when none. */
static char *idList(const int32_t *v, int n) {
  char *s = sqlite3_mprintf("-1");
  for (int i = 0; s && i < n; i++) s = sqlite3_mprintf("%z, %d", s, v[i]);
  return s;
}

typedef struct seqpair {
  int64_t seqnum;
  int32_t seq, load; /* file position; index in load order */
} seqpair;

static int seqpairCmp(const void *a, const void *b) {
  const seqpair *x = a, *y = b;
  if (x->seqnum != y->seqnum) return x->seqnum < y->seqnum ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Room for the trace's events at once (its event_count: an upper bound of the nodes),
** so that the array is not copied as it grows; pages left unused are never touched.
** A count that is absent or implausible leaves the array to grow. */
static int presize(sqlite3 *db, const hta_trace *t, opt_trace *ot, size_t *pa) {
  int64_t n = 0;
  int isnull = 1, rc;
  rc = hta_query_int64(db, t->schema, "SELECT event_count FROM $S.trace WHERE trace_id = ?1", 1,
                       &t->trace_id, &n, &isnull);
  if (rc != SQLITE_OK || isnull || n <= 4096 || n > ((int64_t)1 << 27)) return rc;
  opt_node *v = hta_malloc_big((size_t)n * sizeof *v);
  if (v) { /* else: grow as usual */
    ot->nodes = v;
    *pa = (size_t)n;
  }
  return SQLITE_OK;
}

/* The scan: every complete host event of the tree categories of trace TRACE_ID, appended
** in load (event_id) order. PAIRS NULL: no backward links (a capture's events). The
** capacities *AN, *AA (nodes, args) and *ATH (threads) persist across scans. */
static int loadNodes(sqlite3 *db, const hta_trace *t, int64_t trace_id, const opt_ids *ids,
                     opt_trace *ot, size_t *an, size_t *aa, thread_key **threads, size_t *nthreads,
                     size_t *ath, seqpair **pairs, size_t *npairs) {
  sqlite3_stmt *st = 0;
  textkeys tk = {0, 0, 0};
  size_t ap = 0;
  int32_t last = -1;
  char *ops = idList(ids->cat_op, ids->ncat_op), *rts = idList(ids->cat_rt, ids->ncat_rt);
  char *sql = ops && rts
                  ? sqlite3_mprintf(
                        "SELECT event_id, seq, category_id IN (%s), name_id, pid, tid, ts,"
                        " dur, CASE WHEN %d AND category_id IN (%s) THEN args END FROM $S.event"
                        " WHERE event_id BETWEEN ?1 AND ?2 AND category_id IN (%s, %s)"
                        " AND ts IS NOT NULL AND dur IS NOT NULL",
                        rts, !ids->tree_only, ops, ops, rts)
                  : 0;
  int rc = sql ? hta_prepare(db, t->schema, sql, &st) : SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(trace_id));
    if (!ot->nodes) rc = presize(db, t, ot, an); /* the profiled trace, scanned first */
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    opt_node n;
    int64_t pid, tid;
    memset(&n, 0, sizeof n);
    n.event_id = sqlite3_column_int64(st, 0);
    n.seq = (int32_t)sqlite3_column_int64(st, 1);
    n.is_runtime = (uint8_t)sqlite3_column_int(st, 2);
    n.name_id =
        sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 3);
    n.ts = sqlite3_column_int64(st, 6);
    n.end = hta_end(n.ts, sqlite3_column_int64(st, 7));
    n.parent = n.args = n.graft = n.grafted = -1;
    n.model = -1;
    if ((rc = valueKey(st, 4, &tk, &pid)) != SQLITE_OK ||
        (rc = valueKey(st, 5, &tk, &tid)) != SQLITE_OK)
      break;
    if ((n.thread = threadOf(threads, nthreads, ath, pid, tid, -1, &last)) < 0) goto load_oom;
    if (!n.is_runtime) {
      const char *args = (const char *)sqlite3_column_text(st, 8);
      size_t len = (size_t)sqlite3_column_bytes(st, 8);
      long mi = ids->tree_only ? -1 : hta_i32_find(ids->model_ids, ids->nmodel, n.name_id);
      int64_t sn;
      if (mi >= 0) { /* OP-5: the recorded shapes of a modelled call */
        op_args a;
        if ((rc = opa_parse(&ot->arena, args, len, &a)) != SQLITE_OK) break;
        n.model = (int16_t)ids->model_def[mi];
        n.args = (int32_t)ot->nargs;
        HTA_PUSH(ot->args, ot->nargs, *aa, 64, a, load_oom);
      }
      n.is_bwd_node = pairs && hta_i32_find(ids->bwd_ids, ids->nbwd, n.name_id) >= 0;
      if (pairs && ids->nbwd && !ids->tree_only && opa_seqnum(args, len, &sn)) { /* OP-7 */
        seqpair p = {sn, n.seq, (int32_t)ot->nnode};
        HTA_PUSH(*pairs, *npairs, ap, 256, p, load_oom);
      }
    }
    HTA_PUSH(ot->nodes, ot->nnode, *an, 4096, n, load_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  goto load_end;
load_oom:
  rc = SQLITE_NOMEM;
load_end:
  sqlite3_finalize(st);
  sqlite3_free(sql);
  sqlite3_free(ops);
  sqlite3_free(rts);
  for (size_t i = 0; i < tk.n; i++) sqlite3_free(tk.v[i]);
  sqlite3_free(tk.v);
  return rc;
}

typedef struct nkey {
  int64_t ts;
  int32_t seq, load; /* load: index in load order */
} nkey;

static int nkeyCmp(const void *a, const void *b) {
  const nkey *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts K[0..n) by nkeyCmp, stably, with TMP (n keys) as scratch: the stretches
** already in order are merged pairwise until one is left. A thread's events come in
** order but for a few places (a trace's tiles, a late flush), so this takes a pass or
** a few where a comparison sort takes twenty. */
static int sortRuns(nkey *k, size_t n, nkey *tmp) {
  size_t nb = 1, *starts;
  nkey *src = k, *dst = tmp;
  for (size_t i = 1; i < n; i++) nb += nkeyCmp(&k[i - 1], &k[i]) > 0;
  if (!(starts = sqlite3_malloc64((nb + 1) * sizeof *starts))) return SQLITE_NOMEM;
  nb = 0;
  starts[nb++] = 0;
  for (size_t i = 1; i < n; i++)
    if (nkeyCmp(&k[i - 1], &k[i]) > 0) starts[nb++] = i;
  starts[nb] = n;
  while (nb > 1) { /* one pass: runs 2r and 2r + 1 into one (an odd last run copied) */
    size_t m = 0;
    for (size_t r = 0; r < nb; r += 2) {
      size_t lo = starts[r], mid = starts[r + 1], hi = r + 1 < nb ? starts[r + 2] : mid;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) dst[o++] = nkeyCmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
      memcpy(dst + o, src + i, (mid - i) * sizeof *dst);
      memcpy(dst + o + (mid - i), src + j, (hi - j) * sizeof *dst);
      starts[m++] = lo;
    }
    starts[m] = n;
    nb = m;
    nkey *t = src;
    src = dst, dst = t;
  }
  if (src != k) memcpy(k, src, n * sizeof *k);
  sqlite3_free(starts);
  return SQLITE_OK;
}

/* Orders the nodes by (thread, ts, seq); *pos_of[load index] = position. A stable
** bucket pass of their keys by thread (file order within a thread), a merge of a
** thread's ordered stretches only when it is out of order, then the nodes gathered in
** that order into a new array. */
static int orderNodes(opt_trace *ot, size_t nthreads, int32_t **pos_of) {
  size_t n = ot->nnode;
  int32_t *start = sqlite3_malloc64((nthreads + 1) * sizeof *start);
  nkey *k = hta_malloc_big((n ? n : 1) * sizeof *k), *scratch = 0;
  *pos_of = hta_malloc_big((n ? n : 1) * sizeof **pos_of);
  if (!start || !k || !*pos_of) {
    sqlite3_free(start);
    sqlite3_free(k);
    return SQLITE_NOMEM;
  }
  memset(start, 0, (nthreads + 1) * sizeof *start);
  for (size_t i = 0; i < n; i++) start[ot->nodes[i].thread + 1]++;
  for (size_t t = 0; t < nthreads; t++) start[t + 1] += start[t];
  for (size_t i = 0; i < n; i++) { /* start[t] ends at thread t's end: t + 1's start */
    const opt_node *e = &ot->nodes[i];
    nkey x = {e->ts, e->seq, (int32_t)i};
    k[start[e->thread]++] = x;
  }
  for (size_t t = 0; t < nthreads; t++) { /* each thread's run */
    size_t lo = t ? (size_t)start[t - 1] : 0, hi = (size_t)start[t];
    int ordered = 1;
    for (size_t i = lo + 1; i < hi && ordered; i++) ordered = nkeyCmp(&k[i - 1], &k[i]) <= 0;
    if (!ordered && ((!scratch && !(scratch = hta_malloc_big(n * sizeof *scratch))) ||
                     sortRuns(k + lo, hi - lo, scratch) != SQLITE_OK)) {
      sqlite3_free(start);
      sqlite3_free(k);
      sqlite3_free(scratch);
      return SQLITE_NOMEM;
    }
  }
  sqlite3_free(scratch);
  for (size_t p = 0; p < n; p++) (*pos_of)[k[p].load] = (int32_t)p;
  /* the node at load index k[p].load belongs at p: gathered into a new array, read a
  ** thread's stretch after another (a cycle walk would miss the cache at every step) */
  opt_node *v = hta_malloc_big((n ? n : 1) * sizeof *v);
  if (!v) {
    sqlite3_free(start);
    sqlite3_free(k);
    return SQLITE_NOMEM;
  }
  for (size_t p = 0; p < n; p++) v[p] = ot->nodes[k[p].load];
  sqlite3_free(ot->nodes);
  ot->nodes = v;
  sqlite3_free(start);
  sqlite3_free(k);
  return SQLITE_OK;
}

/* OP-2: TraceLens's stack sweep, per thread, in exact ns. */
static int nestNodes(opt_trace *ot) {
  size_t n = ot->nnode, sp = 0;
  int32_t *stack = sqlite3_malloc64((n ? n : 1) * sizeof *stack);
  opt_node *v = ot->nodes;
  if (!stack) return SQLITE_NOMEM;
  for (size_t i = 0; i <= n; i++) {
    if (i == n || (i > 0 && v[i].thread != v[i - 1].thread)) { /* close the thread */
      while (sp) v[stack[--sp]].sub_end = (int32_t)i - 1;
      if (i == n) break;
    }
    opt_node *e = &v[i];
    while (sp && e->ts >= v[stack[sp - 1]].end) v[stack[--sp]].sub_end = (int32_t)i - 1;
    e->sub_end = (int32_t)i;
    if (sp && e->end > v[stack[sp - 1]].end) {
      /* a bleed: under 1 µs into the parent's end moves it up a level, else out */
      if (v[stack[sp - 1]].end - e->ts < 1000 && sp >= 2) {
        v[stack[--sp]].sub_end = (int32_t)i - 1;
      } else {
        e->in_tree = 0;
        continue;
      }
    }
    e->in_tree = 1;
    e->parent = sp ? stack[sp - 1] : -1;
    stack[sp++] = (int32_t)i;
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

/* The position of the trace's own node with EVENT_ID; -1. IDS are the load-order event
** ids of its N own nodes (the grafted copies come after them). */
static int32_t posOfId(const int64_t *ids, size_t n, const int32_t *pos_of, int64_t event_id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < event_id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && ids[lo] == event_id ? pos_of[lo] : -1;
}

/* 1 when NEEDLE (lower case) occurs in S, ignoring case. */
static int hasWord(const char *s, const char *needle) {
  size_t n = strlen(needle);
  for (; *s; s++) {
    size_t k = 0;
    while (k < n && s[k] && tolower((unsigned char)s[k]) == needle[k]) k++;
    if (k == n) return 1;
  }
  return 0;
}

/* A grafted runtime call: (launch index, event id) -> position. */
typedef struct gdisp {
  int32_t launch, pos;
  int64_t event_id;
} gdisp;

static int gdispCmp(const void *a, const void *b) {
  const gdisp *x = a, *y = b;
  if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* OP-3: each GPU event to the runtime call it is linked to; the per-node lists. A
** replayed kernel matched to a dispatch hangs under that dispatch's copy (OP-17). */
static int linkGpu(opt_trace *ot, const int64_t *ids, size_t nown, const int32_t *pos_of,
                   const hg_attr *ga) {
  gdisp *gd = 0;
  size_t ngd = 0, agd = 0;
  size_t n = ot->gpu.n;
  ot->gpu_node = sqlite3_malloc64((n ? n : 1) * sizeof *ot->gpu_node);
  ot->gpu_comm = sqlite3_malloc64(n ? n : 1);
  ot->goff = sqlite3_malloc64((ot->nnode + 1) * sizeof *ot->goff);
  ot->gidx = sqlite3_malloc64((n ? n : 1) * sizeof *ot->gidx);
  unsigned char *slot_comm = sqlite3_malloc64(ot->gpu.nnames ? ot->gpu.nnames : 1);
  if (!ot->gpu_node || !ot->gpu_comm || !ot->goff || !ot->gidx || !slot_comm) {
    sqlite3_free(slot_comm);
    return SQLITE_NOMEM;
  }
  for (size_t p = 0; p < ot->nnode; p++) { /* the grafted runtime calls */
    const opt_node *e = &ot->nodes[p];
    if (e->graft < 0 || !e->is_runtime) continue;
    gdisp x = {e->graft, (int32_t)p, e->event_id};
    HTA_PUSH(gd, ngd, agd, 256, x, link_oom);
  }
  if (ngd > 1) qsort(gd, ngd, sizeof *gd, gdispCmp);
  for (size_t s = 0; s < ot->gpu.nnames; s++) { /* OP-8: communication by name */
    const char *nm = ot->gpu.names[s];
    slot_comm[s] =
        nm && (hasWord(nm, "nccl") || hasWord(nm, "rccl") || hasWord(nm, "cross_device_reduce"));
  }
  memset(ot->goff, 0, (ot->nnode + 1) * sizeof *ot->goff);
  for (size_t i = 0; i < n; i++) {
    const hta_gpu *g = &ot->gpu.a[i];
    int32_t p = g->is_kernel_cat && g->link_id ? posOfId(ids, nown, pos_of, g->link_id) : -1;
    long k = ngd ? hg_attr_find(ga, g->event_id) : -1;
    if (k >= 0 && ga->k[k].match == HG_MATCHED) { /* OP-17 */
      gdisp key = {ga->k[k].launch, 0, ga->k[k].dispatch_id};
      const gdisp *d = bsearch(&key, gd, ngd, sizeof *gd, gdispCmp);
      if (d) p = d->pos;
    }
    if (p >= 0 && !ot->nodes[p].is_runtime) p = -1;
    ot->gpu_node[i] = p;
    ot->gpu_comm[i] = g->name_id >= 0 ? slot_comm[g->name_slot] : 0;
    if (p >= 0) ot->goff[p + 1]++;
  }
  sqlite3_free(slot_comm);
  sqlite3_free(gd);
  gd = 0;
  for (size_t p = 0; p < ot->nnode; p++) ot->goff[p + 1] += ot->goff[p];
  int32_t *fill = sqlite3_malloc64((ot->nnode ? ot->nnode : 1) * sizeof *fill);
  if (!fill) return SQLITE_NOMEM;
  memcpy(fill, ot->goff, ot->nnode * sizeof *fill);
  for (size_t i = 0; i < n; i++) {
    if (ot->gpu_node[i] >= 0) ot->gidx[fill[ot->gpu_node[i]]++] = (int32_t)i;
  }
  sqlite3_free(fill);
  return SQLITE_OK;
link_oom:
  sqlite3_free(slot_comm);
  sqlite3_free(gd);
  return SQLITE_NOMEM;
}

/* OP-7: each backward node to the latest-starting operator of its sequence number
** off its own thread; per node, the backward nodes linked to it. */
static int linkBackward(opt_trace *ot, seqpair *pairs, size_t np, const int32_t *pos_of) {
  int32_t(*link)[2] = 0; /* (forward position, backward position) */
  size_t nl = 0, al = 0;
  qsort(pairs, np, sizeof *pairs, seqpairCmp);
  for (size_t lo = 0; lo < np;) {
    size_t hi = lo;
    while (hi < np && pairs[hi].seqnum == pairs[lo].seqnum) hi++;
    int32_t bwd = -1, fwd = -1;
    for (size_t k = lo; k < hi && bwd < 0; k++) {
      int32_t p = pos_of[pairs[k].load];
      if (ot->nodes[p].is_bwd_node) bwd = p;
    }
    if (bwd >= 0) {
      int64_t best = -1;
      for (size_t k = lo; k < hi; k++) {
        int32_t p = pos_of[pairs[k].load];
        if (ot->nodes[p].thread == ot->nodes[bwd].thread) continue;
        if (ot->nodes[p].ts > best) best = ot->nodes[p].ts, fwd = p;
      }
    }
    if (fwd >= 0) {
      if (nl == al) {
        size_t na = al ? 2 * al : 64;
        void *nv = sqlite3_realloc64(link, na * sizeof *link);
        if (!nv) goto bwd_oom;
        link = nv;
        al = na;
      }
      link[nl][0] = fwd;
      link[nl][1] = bwd;
      nl++;
    }
    lo = hi;
  }
  if (nl) {
    ot->boff = sqlite3_malloc64((ot->nnode + 1) * sizeof *ot->boff);
    ot->bwd = sqlite3_malloc64(nl * sizeof *ot->bwd);
    int32_t *fill = sqlite3_malloc64((ot->nnode + 1) * sizeof *fill);
    if (!ot->boff || !ot->bwd || !fill) {
      sqlite3_free(fill);
      goto bwd_oom;
    }
    memset(ot->boff, 0, (ot->nnode + 1) * sizeof *ot->boff);
    for (size_t i = 0; i < nl; i++) ot->boff[link[i][0] + 1]++;
    for (size_t p = 0; p < ot->nnode; p++) ot->boff[p + 1] += ot->boff[p];
    memcpy(fill, ot->boff, (ot->nnode + 1) * sizeof *fill);
    for (size_t i = 0; i < nl; i++) ot->bwd[fill[link[i][0]]++] = link[i][1];
    sqlite3_free(fill);
  }
  sqlite3_free(link);
  return SQLITE_OK;
bwd_oom:
  sqlite3_free(link);
  return SQLITE_NOMEM;
}

typedef struct lpair {
  int32_t node, gpu;
} lpair;

static int lpairCmp(const void *a, const void *b) {
  const lpair *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* OP-8: the launcher of each non-communication GPU event, and its times. */
static int findLaunchers(opt_trace *ot, int32_t execute_id) {
  lpair *lp = 0;
  size_t nl = 0, al = 0, alaunch = 0, nv = 0, av = 0;
  int32_t *v = 0;
  unsigned char *mark = sqlite3_malloc64(ot->gpu.n ? ot->gpu.n : 1);
  int rc = SQLITE_OK;
  if (!mark) return SQLITE_NOMEM;
  memset(mark, 0, ot->gpu.n ? ot->gpu.n : 1);
  for (size_t i = 0; i < ot->gpu.n; i++) {
    int32_t rt = ot->gpu_node[i], p, launcher = -1;
    if (rt < 0 || ot->gpu_comm[i]) continue;
    for (p = ot->nodes[rt].parent; p >= 0;) {
      const opt_node *e = &ot->nodes[p];
      if (e->is_runtime) break;
      if (e->name_id == execute_id && execute_id >= 0) { /* a pass-through operator */
        p = e->parent;
        continue;
      }
      launcher = p;
      break;
    }
    lpair x = {launcher >= 0 ? launcher : rt, (int32_t)i};
    HTA_PUSH(lp, nl, al, 1024, x, launch_oom);
  }
  if (nl) qsort(lp, nl, sizeof *lp, lpairCmp);
  ot->lgpu = sqlite3_malloc64((nl ? nl : 1) * sizeof *ot->lgpu);
  if (!ot->lgpu) goto launch_oom;
  for (size_t lo = 0; lo < nl;) {
    size_t hi = lo;
    while (hi < nl && lp[hi].node == lp[lo].node) ot->lgpu[hi] = lp[hi].gpu, hi++;
    opt_launcher L;
    memset(&L, 0, sizeof L);
    L.node = lp[lo].node;
    L.first = (int32_t)lo;
    L.n = (int32_t)(hi - lo);
    if ((rc = opt_sort_gpu(ot, ot->lgpu + lo, hi - lo)) != SQLITE_OK) goto launch_end;
    L.direct_ns = opt_busy_ns(ot, ot->lgpu + lo, hi - lo);
    nv = 0;
    if ((rc = opt_subtree_gpu(ot, &L.node, 1, mark, &v, &nv, &av)) != SQLITE_OK) goto launch_end;
    L.subtree_ns = opt_busy_ns(ot, v, nv);
    if (L.direct_ns < 0 || L.subtree_ns < 0) goto launch_oom;
    HTA_PUSH(ot->launchers, ot->nlaunch, alaunch, 256, L, launch_oom);
    lo = hi;
  }
  goto launch_end;
launch_oom:
  rc = SQLITE_NOMEM;
launch_end:
  sqlite3_free(lp);
  sqlite3_free(v);
  sqlite3_free(mark);
  return rc;
}

/* OP-17: for each graph launch merged with a capture window (graph/graph.h), a copy of
** the window's events (those of the capture's tree categories wholly inside it), each
** copy its own threads; appended after the trace's own nodes. */
static int graftCaptures(sqlite3 *db, const hta_trace *t, const opt_ids *ids, opt_trace *ot,
                         const hg_attr *ga, size_t *an, size_t *aa, thread_key **threads,
                         size_t *nthreads, size_t *ath) {
  int32_t *win = 0;
  int rc = SQLITE_OK;
  for (size_t li = 0; li < ga->nl && rc == SQLITE_OK; li++) {
    const hg_launch *first = &ga->l[li];
    int64_t cap = first->capture_trace_id;
    int seen = 0;
    if (first->window < 0 || first->matched == 0) continue;
    for (size_t j = 0; j < li && !seen; j++) /* each capture once */
      seen = ga->l[j].window >= 0 && ga->l[j].matched && ga->l[j].capture_trace_id == cap;
    if (seen) continue;
    size_t a = ot->nnode, b;
    rc = loadNodes(db, t, cap, ids, ot, an, aa, threads, nthreads, ath, 0, 0);
    if (rc != SQLITE_OK) break;
    b = ot->nnode;
    sqlite3_free(win);
    if (!(win = sqlite3_malloc64((b - a + 1) * sizeof *win))) return SQLITE_NOMEM;
    for (size_t i = a; i < b; i++)
      win[i - a] = (int32_t)hg_window_find(ga, cap, ot->nodes[i].ts, ot->nodes[i].end);
    for (size_t lj = li; lj < ga->nl; lj++) { /* the copies: one per launch */
      const hg_launch *l = &ga->l[lj];
      int32_t last = -1;
      if (l->window < 0 || l->matched == 0 || l->capture_trace_id != cap) continue;
      for (size_t i = a; i < b; i++) {
        if (win[i - a] != l->window) continue;
        opt_node n = ot->nodes[i];
        const thread_key *k = &(*threads)[n.thread];
        n.graft = (int32_t)lj;
        if ((n.thread = threadOf(threads, nthreads, ath, k->pid, k->tid, (int32_t)lj, &last)) < 0)
          goto graft_oom;
        HTA_PUSH(ot->nodes, ot->nnode, *an, 4096, n, graft_oom);
      }
    }
    /* the loaded events themselves go: only their copies hang in the tree */
    memmove(ot->nodes + a, ot->nodes + b, (ot->nnode - b) * sizeof *ot->nodes);
    ot->nnode -= b - a;
  }
  sqlite3_free(win);
  return rc;
graft_oom:
  sqlite3_free(win);
  return SQLITE_NOMEM;
}

/* OP-17: the roots of each copy hang under their launch; the launch knows its copy's
** positions (contiguous: its threads were made one after the other). */
static int hangGrafts(opt_trace *ot, const hg_attr *ga, const int64_t *ids, size_t nown,
                      const int32_t *pos_of) {
  int32_t *lpos = sqlite3_malloc64((ga->nl ? ga->nl : 1) * sizeof *lpos);
  size_t ag = 0;
  if (!lpos) return SQLITE_NOMEM;
  for (size_t i = 0; i < ga->nl; i++) lpos[i] = posOfId(ids, nown, pos_of, ga->l[i].event_id);
  for (size_t p = 0; p < ot->nnode; p++) {
    opt_node *e = &ot->nodes[p];
    int32_t lp = e->graft >= 0 ? lpos[e->graft] : -1;
    if (lp < 0) continue;
    if (e->in_tree && e->parent < 0) e->parent = lp;
    opt_node *l = &ot->nodes[lp];
    if (l->grafted < 0) {
      opt_graft g = {lp, (int32_t)p, (int32_t)p};
      l->grafted = (int32_t)ot->ngraft;
      HTA_PUSH(ot->grafts, ot->ngraft, ag, 16, g, hang_oom);
    }
    ot->grafts[l->grafted].last = (int32_t)p;
  }
  sqlite3_free(lpos);
  return SQLITE_OK;
hang_oom:
  sqlite3_free(lpos);
  return SQLITE_NOMEM;
}

int opt_trace_load(sqlite3 *db, const hta_trace *t, const opt_ids *ids, opt_trace *ot) {
  thread_key *threads = 0;
  seqpair *pairs = 0;
  size_t nthreads = 0, npairs = 0, an = 0, aa = 0, ath = 0, nown;
  int32_t *pos_of = 0;
  int64_t *load_ids = 0;
  hg_attr ga;
  int rc;
  memset(ot, 0, sizeof *ot);
  memset(&ga, 0, sizeof ga);
  rc = loadNodes(db, t, t->trace_id, ids, ot, &an, &aa, &threads, &nthreads, &ath, &pairs, &npairs);
  nown = ot->nnode;
  if (rc == SQLITE_OK) rc = hg_attr_load(db, t, 0, &ga);
  if (rc == SQLITE_OK && ga.nl) {
    rc = graftCaptures(db, t, ids, ot, &ga, &an, &aa, &threads, &nthreads, &ath);
    if (rc == SQLITE_OK && !(ot->graft_launch = sqlite3_malloc64(ga.nl * sizeof *ot->graft_launch)))
      rc = SQLITE_NOMEM;
    for (size_t i = 0; rc == SQLITE_OK && i < ga.nl; i++) ot->graft_launch[i] = ga.l[i].event_id;
  }
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  if (rc == SQLITE_OK) {
    load_ids = sqlite3_malloc64((nown ? nown : 1) * sizeof *load_ids);
    if (!load_ids) rc = SQLITE_NOMEM;
    for (size_t i = 0; rc == SQLITE_OK && i < nown; i++) load_ids[i] = ot->nodes[i].event_id;
  }
  if (rc == SQLITE_OK) rc = orderNodes(ot, nthreads, &pos_of);
  if (rc == SQLITE_OK) rc = nestNodes(ot);
  if (rc == SQLITE_OK && ot->nnode > nown) rc = hangGrafts(ot, &ga, load_ids, nown, pos_of);
  if (rc == SQLITE_OK) rc = hta_gpu_load_bare(db, t, ids->cls, &ot->gpu);
  if (rc == SQLITE_OK) rc = linkGpu(ot, load_ids, nown, pos_of, &ga);
  if (rc == SQLITE_OK && npairs) rc = linkBackward(ot, pairs, npairs, pos_of);
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  if (rc == SQLITE_OK && !ids->tree_only) rc = findLaunchers(ot, ids->execute_id);
  hg_attr_free(&ga);
  sqlite3_free(threads);
  sqlite3_free(pairs);
  sqlite3_free(pos_of);
  sqlite3_free(load_ids);
  if (rc != SQLITE_OK) opt_trace_free(ot);
  return rc;
}

void opt_trace_free(opt_trace *ot) {
  sqlite3_free(ot->nodes);
  sqlite3_free(ot->grafts);
  sqlite3_free(ot->graft_launch);
  hta_gpu_free(&ot->gpu);
  sqlite3_free(ot->gpu_node);
  sqlite3_free(ot->gpu_comm);
  sqlite3_free(ot->goff);
  sqlite3_free(ot->gidx);
  sqlite3_free(ot->boff);
  sqlite3_free(ot->bwd);
  sqlite3_free(ot->launchers);
  sqlite3_free(ot->lgpu);
  opa_arena_free(&ot->arena);
  sqlite3_free(ot->args);
  memset(ot, 0, sizeof *ot);
}

/* ---------------------------------------------------------------- queries */
static int appendNode(const opt_trace *ot, int32_t p, unsigned char *mark, int32_t **pv, size_t *pn,
                      size_t *pa) {
  for (int32_t k = ot->goff[p]; k < ot->goff[p + 1]; k++) {
    int32_t g = ot->gidx[k];
    if (mark[g]) continue;
    mark[g] = 1;
    HTA_PUSH(*pv, *pn, *pa, 16, g, app_oom);
  }
  return SQLITE_OK;
app_oom:
  return SQLITE_NOMEM;
}

/* The GPU rows of node P's own runtimes, and of the copy grafted under it (OP-17). */
static int appendOwn(const opt_trace *ot, int32_t p, unsigned char *mark, int32_t **pv, size_t *pn,
                     size_t *pa) {
  int rc = appendNode(ot, p, mark, pv, pn, pa);
  if (rc == SQLITE_OK && ot->nodes[p].grafted >= 0) {
    const opt_graft *g = &ot->grafts[ot->nodes[p].grafted];
    for (int32_t j = g->first; j <= g->last && rc == SQLITE_OK; j++) {
      if (ot->nodes[j].in_tree) rc = appendNode(ot, j, mark, pv, pn, pa);
    }
  }
  return rc;
}

int opt_subtree_gpu(const opt_trace *ot, const int32_t *list, size_t nlist, unsigned char *mark,
                    int32_t **pv, size_t *pn, size_t *pa) {
  size_t first = *pn;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < nlist && rc == SQLITE_OK; i++) {
    int32_t p = list[i];
    if (!ot->nodes[p].in_tree) { /* no children: only its own launches (a runtime call) */
      rc = appendOwn(ot, p, mark, pv, pn, pa);
      continue;
    }
    for (int32_t j = p; j <= ot->nodes[p].sub_end && rc == SQLITE_OK; j++) {
      if (ot->nodes[j].in_tree) rc = appendOwn(ot, j, mark, pv, pn, pa);
    }
  }
  for (size_t i = first; i < *pn; i++) mark[(*pv)[i]] = 0;
  return rc;
}

typedef struct gkey {
  int64_t ts;
  int32_t idx;
} gkey;

static int gkeyCmp(const void *a, const void *b) {
  const gkey *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int opt_sort_gpu(const opt_trace *ot, int32_t *v, size_t n) {
  gkey *k;
  if (n < 2) return SQLITE_OK;
  if (!(k = sqlite3_malloc64(n * sizeof *k))) return SQLITE_NOMEM;
  for (size_t i = 0; i < n; i++) k[i].ts = ot->gpu.a[v[i]].ts, k[i].idx = v[i];
  qsort(k, n, sizeof *k, gkeyCmp);
  for (size_t i = 0; i < n; i++) v[i] = k[i].idx;
  sqlite3_free(k);
  return SQLITE_OK;
}

int64_t opt_busy_ns(const opt_trace *ot, const int32_t *v, size_t n) {
  hta_iv *iv;
  int64_t len;
  if (n == 0) return 0;
  if (n == 1) { /* one event (most nodes): its length, as the merge below would give */
    const hta_gpu *g = &ot->gpu.a[v[0]];
    return hta_sub_sat(hta_end(g->ts, g->dur), g->ts);
  }
  if (!(iv = sqlite3_malloc64(n * sizeof *iv))) return -1;
  for (size_t i = 0; i < n; i++) {
    const hta_gpu *g = &ot->gpu.a[v[i]];
    iv[i].start = g->ts;
    iv[i].end = hta_end(g->ts, g->dur);
  }
  len = hta_iv_length(iv, hta_iv_merge(iv, n));
  sqlite3_free(iv);
  return len;
}

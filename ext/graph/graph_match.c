/*
** graph_match.c: a replay trace's GPU events matched to the captures of its job
** (hg_attr_load, graph.h): which graph launch ran each kernel, which capture window
** recorded that launch's graph, which dispatch of the window the kernel ran for, and
** the operator that issued the dispatch. TraceLens merges the capture into the replay
** by the same rules (trace_capture_merge_experimental.py); docs/deviations.md lists
** where we differ and why.
**
** Requirements (tests cite them as GM-n):
**  1. GPU events: the replay's kernel, gpu_memcpy and gpu_memset rows (and their legacy
**     spellings), no last-step cut. Each is 'eager' when its correlation partner
**     (link_id) is a cuda_runtime or cuda_driver call that is no graph launch,
**     'unlinked' without such a partner; under a graph launch (a call whose name
**     contains "graphlaunch", any case) it is 'matched' or 'unmatched'. graph_pos: its
**     position among its launch's GPU events by (ts, file order), from 0.
**  2. Capture windows: the k-th cuda_runtime call named *StreamBeginCapture* with the
**     k-th *StreamEndCapture* (file order); the window runs from the begin call's end
**     to the end call's start. Windows are numbered by start from 0. Dispatches: the
**     cuda_runtime and cuda_driver calls wholly inside it (any thread) whose name
**     contains launch, memcpy or memset (any case), by (ts, file order); a dispatch's
**     kernel is its args.kernel. (TraceLens takes only the calls under the window's
**     roots, operators or python functions with a parent outside it.)
**  3. Execution roots (graph_roots.c): a graph launch belongs to the first root (by
**     start) whose span holds it. The captures of the job are those of the replay's
**     rank when any capture has that rank, else all. A root's capture: the smallest
**     captured batch size >= the root's; with both modes captured at that size,
**     PIECEWISE unless the root has exactly one launch; of several files with the same
**     size and mode, the last (trace_id order). When no capture of the job has a batch
**     size (no index) and it has exactly one capture, that one, whatever the root's
**     batch; the same capture serves the launches in no root (TraceLens merges
**     nothing without an index or a root).
**  4. Pairing: a capture with one window pairs it with every launch of the root; n
**     windows with n launches pair the k-th with the k-th (by start); other counts pair
**     nothing (reason 'windows').
**  5. Matching each pair: graph_align.c (GA-n), kernels by (ts, file order), their
**     stream and "graph node id" (args) where written.
**  6. Reasons of an unmatched kernel: no_capture (the job has none), no_root,
**     no_batch_size, no_capture_batch_size, no_window, windows, no_dispatch.
**  7. A matched kernel's operator: the first cpu_op above its dispatch in the capture's
**     tree (graph_tree.c GT-3) inside the window; an eager or unmatched kernel's (with
**     HG_EAGER_OPS): the first cpu_op above its launch in the replay's tree.
**  8. Coverage: replayed_ns = the summed dur of the GPU events under graph launches;
**     matched_ns = of those, the ones matched with an operator.
**
** HOW IT WORKS: the string table says first whether any graph launch exists (a trace
** without one costs nothing more). One query reads the trace's GPU rows with their
** launch (a rowid join); the roots come from graph_roots.c; a capture is loaded when
** a root first needs it: its tree, its windows and its dispatches with their kernel
** names (as string ids, so that names compare as integers).
*/
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

enum { GM_MODE_OTHER = 0, GM_FULL, GM_PIECEWISE };

typedef struct gm_cap { /* a capture trace of the job */
  int64_t trace_id, batch;
  int mode;
  int loaded;     /* 1 after gmLoadCapture, -1 when that failed */
  int32_t w0, nw; /* its windows: out->w[w0 .. w0+nw) */
  hg_tree tree;   /* its call tree, once loaded */
} gm_cap;

typedef struct gm_dref { /* a dispatch: its runtime call and its operator (GM-7), 0 none */
  int64_t id, op;
} gm_dref;

typedef struct gm_ctx {
  sqlite3 *db;
  const hta_trace *t;
  hg_attr *out;
  gm_cap *caps;
  size_t ncap, acap;
  int64_t single; /* GM-3: the one capture of a job without batch sizes; 0 */
  /* the dispatches of every loaded window (out->w[i] holds wd0[i] .. + ndispatch) */
  hg_item *d;
  gm_dref *dr; /* beside d: the call and its operator */
  size_t nd, ad, ndr, adr;
  int32_t *wd0;
  size_t awd0;
  size_t aw;
  /* dispatch kernel names without a string id: negative keys by text */
  char **xname;
  size_t nx, ax;
} gm_ctx;

/* ---------------------------------------------------------------- helpers */
/* The string ids of the names for which the SQL condition COND (on `value`) holds, as a
** JSON array text (sqlite3_free; "[]" when none), with their number. */
static int gmIdsWhere(sqlite3 *db, const char *schema, const char *cond, char **pz, size_t *pn) {
  sqlite3_stmt *st = 0;
  sqlite3_str *s = sqlite3_str_new(db);
  char *sql = sqlite3_mprintf("SELECT string_id FROM $S.string WHERE %s", cond);
  size_t n = 0;
  int rc = sql ? hta_prepare(db, schema, sql, &st) : SQLITE_NOMEM;
  sqlite3_str_appendchar(s, 1, '[');
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    sqlite3_str_appendf(s, "%s%lld", n++ ? "," : "", (long long)sqlite3_column_int64(st, 0));
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  sqlite3_str_appendchar(s, 1, ']');
  *pz = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !*pz) rc = SQLITE_NOMEM;
  if (rc != SQLITE_OK) {
    sqlite3_free(*pz);
    *pz = 0;
  }
  *pn = n;
  return rc;
}

/* The key of dispatch kernel name NAME (N bytes): its string id, else a negative key
** of its own (the same for the same text). */
static int gmNameKey(gm_ctx *x, sqlite3_stmt *qid, const char *name, int n, int64_t *key) {
  int rc;
  sqlite3_reset(qid);
  sqlite3_bind_text(qid, 1, name, n, SQLITE_STATIC);
  rc = sqlite3_step(qid);
  if (rc == SQLITE_ROW) {
    *key = sqlite3_column_int64(qid, 0);
    sqlite3_reset(qid);
    return SQLITE_OK;
  }
  sqlite3_reset(qid);
  if (rc != SQLITE_DONE) return rc;
  for (size_t i = 0; i < x->nx; i++) {
    if ((int)strlen(x->xname[i]) == n && !memcmp(x->xname[i], name, (size_t)n)) {
      *key = -1000 - (int64_t)i;
      return SQLITE_OK;
    }
  }
  char *c = sqlite3_mprintf("%.*s", n, name);
  if (!c) return SQLITE_NOMEM;
  HTA_PUSH(x->xname, x->nx, x->ax, 8, c, key_oom);
  *key = -1000 - (int64_t)(x->nx - 1);
  return SQLITE_OK;
key_oom:
  sqlite3_free(c);
  return SQLITE_NOMEM;
}

/* A JSON string value [P, P+N) (with its quotes) unescaped into a sqlite3_str-owned
** text: only \" \\ \/ and the control escapes, which is what kernel names use. */
static char *gmJsonString(const char *p, int n) {
  sqlite3_str *s;
  if (n < 2 || p[0] != '"') return 0;
  s = sqlite3_str_new(0);
  for (int i = 1; i < n - 1; i++) {
    char c = p[i];
    if (c == '\\' && i + 1 < n - 1) {
      c = p[++i];
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
    }
    sqlite3_str_appendchar(s, 1, c);
  }
  return sqlite3_str_finish(s);
}

/* ---------------------------------------------------------------- captures */
static int gmCapsLoad(gm_ctx *x) {
  sqlite3_stmt *st = 0;
  int64_t n_rank = 0, n_batch = 0;
  int rc = hta_prepare(x->db, x->t->schema,
                       "SELECT c.trace_id, c.batch_size, c.mode, t.rank = ?2 FROM $S.capture c"
                       " JOIN $S.trace t ON t.trace_id = c.trace_id WHERE t.job_id = ?1"
                       " ORDER BY c.trace_id",
                       &st);
  int *same = 0;
  size_t asame = 0, nsame = 0;
  if (rc != SQLITE_OK) { /* a database without captures (schema 3): none */
    sqlite3_finalize(st);
    return SQLITE_OK;
  }
  sqlite3_bind_int64(st, 1, x->t->job_id);
  sqlite3_bind_int64(st, 2, x->t->rank);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    gm_cap c;
    const char *mode = (const char *)sqlite3_column_text(st, 2);
    int rk = sqlite3_column_int(st, 3);
    memset(&c, 0, sizeof c);
    c.trace_id = sqlite3_column_int64(st, 0);
    c.batch = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
    c.mode = !mode                        ? GM_MODE_OTHER
             : !strcmp(mode, "FULL")      ? GM_FULL
             : !strcmp(mode, "PIECEWISE") ? GM_PIECEWISE
                                          : GM_MODE_OTHER;
    c.w0 = -1;
    HTA_PUSH(x->caps, x->ncap, x->acap, 4, c, caps_oom);
    HTA_PUSH(same, nsame, asame, 4, rk, caps_oom);
    n_rank += rk;
  }
  sqlite3_finalize(st);
  st = 0;
  if (rc != SQLITE_DONE) goto caps_end;
  rc = SQLITE_OK;
  if (n_rank > 0) { /* GM-3: the replay's rank only */
    size_t k = 0;
    for (size_t i = 0; i < x->ncap; i++) {
      if (same[i]) x->caps[k++] = x->caps[i];
    }
    x->ncap = k;
  }
  for (size_t i = 0; i < x->ncap; i++) n_batch += x->caps[i].batch >= 0;
  if (x->ncap == 1 && n_batch == 0) x->single = x->caps[0].trace_id;
  goto caps_end;
caps_oom:
  rc = SQLITE_NOMEM;
caps_end:
  sqlite3_finalize(st);
  sqlite3_free(same);
  return rc;
}

/* GM-3: the capture of a root of batch BATCH with NLAUNCH launches; NULL when none
** (*reason set). */
static gm_cap *gmChoose(gm_ctx *x, int64_t batch, size_t nlaunch, int *reason) {
  gm_cap *full = 0, *piece = 0, *other = 0;
  int64_t best = -1;
  if (x->ncap == 0) {
    *reason = HG_R_NO_CAPTURE;
    return 0;
  }
  if (x->single) return &x->caps[0];
  if (batch < 0) {
    *reason = HG_R_NO_BATCH;
    return 0;
  }
  for (size_t i = 0; i < x->ncap; i++) {
    int64_t b = x->caps[i].batch;
    if (b >= batch && (best < 0 || b < best)) best = b;
  }
  for (size_t i = 0; best >= 0 && i < x->ncap; i++) {
    gm_cap *c = &x->caps[i];
    if (c->batch != best) continue;
    if (c->mode == GM_FULL) full = c;
    else if (c->mode == GM_PIECEWISE) piece = c;
    else other = c;
  }
  if (full && piece) return nlaunch != 1 ? piece : full;
  if (full || piece || other) return full ? full : piece ? piece : other;
  *reason = HG_R_NO_CAPTURE_BS;
  return 0;
}

typedef struct gm_ep { /* a StreamBeginCapture or StreamEndCapture call */
  int64_t event_id, seq, ts, end;
} gm_ep;

static int gmEpCmp(const void *a, const void *b) {
  const gm_ep *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int gmWinCmp(const void *a, const void *b) {
  const hg_window *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->begin_id < y->begin_id ? -1 : x->begin_id > y->begin_id;
}

/* GM-2: the capture's windows appended to out->w. */
static int gmWindows(gm_ctx *x, gm_cap *c) {
  sqlite3_stmt *st = 0;
  gm_ep *b = 0, *e = 0;
  size_t nb = 0, ab = 0, ne = 0, ae = 0;
  char *ids = 0;
  size_t nids;
  int rc =
      gmIdsWhere(x->db, x->t->schema,
                 "instr(value, 'StreamBeginCapture') > 0 OR instr(value, 'StreamEndCapture') > 0",
                 &ids, &nids);
  if (rc == SQLITE_OK && nids)
    rc = hta_prepare(x->db, x->t->schema,
                     "SELECT e.event_id, e.seq, e.ts, e.dur, instr(s.value, 'StreamBeginCapture'),"
                     " instr(s.value, 'StreamEndCapture') FROM $S.event e"
                     " JOIN $S.string s ON s.string_id = e.name_id"
                     " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.ts IS NOT NULL"
                     " AND e.category_id = (SELECT category_id FROM $S.category"
                     "  WHERE name = 'cuda_runtime')"
                     " AND e.name_id IN (SELECT value FROM json_each(?3))",
                     &st);
  if (rc == SQLITE_OK && st) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(c->trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(c->trace_id));
    sqlite3_bind_text(st, 3, ids, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      gm_ep p = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 2), 0};
      p.end = hta_end(p.ts, sqlite3_column_int64(st, 3));
      if (sqlite3_column_int(st, 4) > 0) HTA_PUSH(b, nb, ab, 8, p, win_oom);
      else if (sqlite3_column_int(st, 5) > 0) HTA_PUSH(e, ne, ae, 8, p, win_oom);
    }
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  sqlite3_finalize(st);
  st = 0;
  if (rc != SQLITE_OK) goto win_end;
  if (nb > 1) qsort(b, nb, sizeof *b, gmEpCmp);
  if (ne > 1) qsort(e, ne, sizeof *e, gmEpCmp);
  c->w0 = (int32_t)x->out->nw;
  for (size_t i = 0; i < nb && i < ne; i++) {
    hg_window w;
    memset(&w, 0, sizeof w);
    w.capture_trace_id = c->trace_id;
    w.begin_id = b[i].event_id;
    w.end_id = e[i].event_id;
    w.ts = b[i].end;
    w.end = e[i].ts;
    HTA_PUSH(x->out->w, x->out->nw, x->aw, 8, w, win_oom);
  }
  c->nw = (int32_t)(x->out->nw - (size_t)c->w0);
  if (c->nw > 1) qsort(x->out->w + c->w0, (size_t)c->nw, sizeof *x->out->w, gmWinCmp);
  for (int32_t i = 0; i < c->nw; i++) x->out->w[c->w0 + i].index = i;
  goto win_end;
win_oom:
  rc = SQLITE_NOMEM;
win_end:
  sqlite3_finalize(st);
  sqlite3_free(ids);
  sqlite3_free(b);
  sqlite3_free(e);
  return rc;
}

typedef struct gm_disp { /* a dispatch candidate: ts order */
  int64_t ts, seq;
  int32_t node; /* index in the capture's tree */
  int mem;
  int64_t key;
} gm_disp;

static int gmDispCmp(const void *a, const void *b) {
  const gm_disp *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* GM-2: the dispatches of the capture's windows, with their operators (GM-7). */
static int gmDispatches(gm_ctx *x, gm_cap *c) {
  sqlite3_stmt *st = 0, *qid = 0;
  gm_disp *v = 0;
  size_t nv = 0, av = 0;
  char *ids = 0;
  size_t nids;
  static const hta_jkey kkernel[1] = {HTA_JKEY("kernel")};
  int rc = gmIdsWhere(x->db, x->t->schema,
                      "value LIKE '%launch%' OR value LIKE '%memcpy%' OR value LIKE '%memset%'",
                      &ids, &nids);
  if (rc == SQLITE_OK)
    rc =
        hta_prepare(x->db, x->t->schema,
                    "SELECT e.event_id, e.seq, e.ts, s.value, e.args FROM $S.event e"
                    " JOIN $S.string s ON s.string_id = e.name_id"
                    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.ts IS NOT NULL AND e.dur IS NOT NULL"
                    " AND e.category_id IN (SELECT category_id FROM $S.category"
                    "  WHERE name IN ('cuda_runtime', 'cuda_driver'))"
                    " AND e.name_id IN (SELECT value FROM json_each(?3))",
                    &st);
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->t->schema, "SELECT string_id FROM $S.string WHERE value = ?1", &qid);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(c->trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(c->trace_id));
    sqlite3_bind_text(st, 3, ids, -1, SQLITE_STATIC);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    gm_disp p;
    long node = hg_tree_find(&c->tree, sqlite3_column_int64(st, 0));
    const char *args = (const char *)sqlite3_column_text(st, 4);
    hta_jval kv[1];
    if (node < 0) continue;
    p.ts = c->tree.a[node].ts;
    p.seq = sqlite3_column_int64(st, 1);
    p.node = (int32_t)node;
    p.mem = hg_dispatch_mem((const char *)sqlite3_column_text(st, 3));
    p.key = HG_ANY_KERNEL;
    hta_json_members(args, args ? sqlite3_column_bytes(st, 4) : 0, kkernel, 1, kv);
    if (kv[0].p) {
      char *name = gmJsonString(kv[0].p, kv[0].n);
      if (name) rc = gmNameKey(x, qid, name, (int)strlen(name), &p.key);
      sqlite3_free(name);
      if (rc != SQLITE_OK) break;
    }
    HTA_PUSH(v, nv, av, 1024, p, disp_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK) goto disp_end;
  if (nv > 1) qsort(v, nv, sizeof *v, gmDispCmp);
  /* each window: the candidates wholly inside it */
  for (int32_t wi = 0; wi < c->nw; wi++) {
    hg_window *w = &x->out->w[c->w0 + wi];
    size_t lo = 0, hi = nv;
    while (lo < hi) { /* the first candidate starting at or after the window */
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid].ts < w->ts) lo = mid + 1;
      else hi = mid;
    }
    if (x->awd0 < x->out->nw) {
      size_t na = x->out->nw + 16;
      int32_t *nw0 = sqlite3_realloc64(x->wd0, na * sizeof *nw0);
      if (!nw0) goto disp_oom;
      x->wd0 = nw0;
      x->awd0 = na;
    }
    x->wd0[c->w0 + wi] = (int32_t)x->nd;
    for (size_t i = lo; i < nv && v[i].ts <= w->end; i++) {
      const hg_hnode *h = &c->tree.a[v[i].node];
      if (h->end > w->end) continue;
      hg_item it;
      long op = hg_tree_op(&c->tree, v[i].node, w->ts, w->end);
      memset(&it, 0, sizeof it);
      it.key = v[i].key;
      it.mem = v[i].mem;
      it.node = -1;
      gm_dref r = {h->event_id, op >= 0 ? c->tree.a[op].event_id : 0};
      HTA_PUSH(x->dr, x->ndr, x->adr, 1024, r, disp_oom);
      HTA_PUSH(x->d, x->nd, x->ad, 1024, it, disp_oom);
      w->ndispatch++;
    }
  }
  goto disp_end;
disp_oom:
  rc = SQLITE_NOMEM;
disp_end:
  sqlite3_finalize(st);
  sqlite3_finalize(qid);
  sqlite3_free(ids);
  sqlite3_free(v);
  return rc;
}

/* Loads capture C: its tree, windows and dispatches (once). */
static int gmLoadCapture(gm_ctx *x, gm_cap *c) {
  int rc;
  if (c->loaded) return SQLITE_OK;
  rc = hg_tree_load(x->db, x->t->schema, c->trace_id, &c->tree);
  if (rc == SQLITE_OK) rc = gmWindows(x, c);
  if (rc == SQLITE_OK) rc = gmDispatches(x, c);
  c->loaded = rc == SQLITE_OK ? 1 : -1;
  return rc;
}

/* ---------------------------------------------------------------- the replay */
static const char gmGpuSql[] =
    "SELECT e.event_id, e.seq, e.ts, e.dur, e.stream, e.name_id, e.link_id,"
    " l.category_id IN (SELECT category_id FROM $S.category"
    "  WHERE name IN ('cuda_runtime', 'cuda_driver')),"
    " l.name_id IN (SELECT value FROM json_each(?3)), l.seq, l.ts, l.dur,"
    " CASE WHEN instr(e.args, 'graph node id') > 0 THEN e.args END"
    " FROM $S.event e LEFT JOIN $S.event l ON l.event_id = e.link_id"
    " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.stream IS NOT NULL AND e.ts IS NOT NULL"
    " AND e.category_id IN (SELECT category_id FROM $S.category WHERE name IN"
    "  ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset', 'mtia_ccp_events'))";

typedef struct gm_lkey { /* a graph kernel's launch, to number the launches */
  int64_t ts, seq, event_id, dur;
  int32_t k; /* the kernel */
} gm_lkey;

static int gmLkeyCmp(const void *a, const void *b) {
  const gm_lkey *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

typedef struct gm_kpos { /* a kernel of a launch, by (launch, ts, seq) */
  int32_t launch, k;
  int64_t ts, seq;
} gm_kpos;

static int gmKposCmp(const void *a, const void *b) {
  const gm_kpos *x = a, *y = b;
  if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* GM-1: the GPU rows and the graph launches. *has = 0 when no GPU row is under one. */
static int gmReplay(gm_ctx *x, const char *graph_ids, hg_item **pitems, int *has) {
  hg_attr *o = x->out;
  sqlite3_stmt *st = 0;
  gm_lkey *lk = 0;
  gm_kpos *kp = 0;
  int32_t *nids = 0;
  char **names = 0;
  size_t nnames = 0, ak = 0, al = 0, alk = 0, nlk = 0;
  static const hta_jkey knode[1] = {HTA_JKEY("graph node id")};
  hg_item *items = 0;
  int rc = hta_prepare(x->db, x->t->schema, gmGpuSql, &st);
  *has = 0;
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(x->t->trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(x->t->trace_id));
    sqlite3_bind_text(st, 3, graph_ids, -1, SQLITE_STATIC);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    hg_kernel k;
    memset(&k, 0, sizeof k);
    k.event_id = sqlite3_column_int64(st, 0);
    k.seq = sqlite3_column_int64(st, 1);
    k.ts = sqlite3_column_int64(st, 2);
    k.dur = sqlite3_column_int64(st, 3);
    k.stream = sqlite3_column_int64(st, 4);
    k.name_id = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 5);
    k.launch = k.graph_pos = k.dpos = -1;
    k.node = -1;
    k.match = HG_UNLINKED;
    if (sqlite3_column_int(st, 7)) { /* a runtime call launched it */
      k.launch_id = sqlite3_column_int64(st, 6);
      k.match = HG_EAGER;
      if (sqlite3_column_int(st, 8)) {
        gm_lkey l = {sqlite3_column_int64(st, 10), sqlite3_column_int64(st, 9), k.launch_id,
                     sqlite3_column_int64(st, 11), (int32_t)o->nk};
        k.match = HG_UNMATCHED;
        HTA_PUSH(lk, nlk, alk, 256, l, rep_oom);
      }
    }
    if (sqlite3_column_type(st, 12) != SQLITE_NULL) {
      hta_jval v[1];
      int64_t node;
      hta_json_members((const char *)sqlite3_column_text(st, 12), sqlite3_column_bytes(st, 12),
                       knode, 1, v);
      if (hta_json_int(v[0], &node) && node >= 0) k.node = node;
    }
    HTA_PUSH(o->k, o->nk, ak, 1024, k, rep_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  if (rc != SQLITE_OK || nlk == 0) goto rep_end;
  *has = 1;
  /* the launches, by (ts, seq) */
  qsort(lk, nlk, sizeof *lk, gmLkeyCmp);
  if (!(kp = sqlite3_malloc64(nlk * sizeof *kp))) goto rep_oom;
  for (size_t i = 0; i < nlk; i++) {
    if (i == 0 || lk[i].event_id != lk[i - 1].event_id) {
      hg_launch l;
      memset(&l, 0, sizeof l);
      l.event_id = lk[i].event_id;
      l.seq = lk[i].seq;
      l.ts = lk[i].ts;
      l.dur = lk[i].dur;
      l.batch = l.capture_batch = -1;
      l.window = -1;
      HTA_PUSH(o->l, o->nl, al, 64, l, rep_oom);
    }
    o->k[lk[i].k].launch = (int32_t)(o->nl - 1);
    kp[i].launch = (int32_t)(o->nl - 1);
    kp[i].k = lk[i].k;
    kp[i].ts = o->k[lk[i].k].ts;
    kp[i].seq = o->k[lk[i].k].seq;
  }
  qsort(kp, nlk, sizeof *kp, gmKposCmp);
  if (!(o->lk = sqlite3_malloc64(nlk * sizeof *o->lk))) goto rep_oom;
  for (size_t i = 0; i < nlk; i++) {
    hg_launch *l = &o->l[kp[i].launch];
    if (l->nk == 0) l->first = (int32_t)i;
    o->k[kp[i].k].graph_pos = l->nk++;
    o->lk[i] = kp[i].k;
  }
  /* the kernels as match items: name ids, memory kinds from the names */
  if (!(items = sqlite3_malloc64(o->nk * sizeof *items)) ||
      !(nids = sqlite3_malloc64(o->nk * sizeof *nids)))
    goto rep_oom;
  for (size_t i = 0; i < o->nk; i++) nids[i] = o->k[i].name_id;
  rc = hta_name_slots(x->db, x->t->schema, nids, o->nk, &names, &nnames);
  for (size_t i = 0; rc == SQLITE_OK && i < o->nk; i++) {
    items[i].key = o->k[i].name_id;
    items[i].stream = o->k[i].stream;
    items[i].node = o->k[i].node;
    items[i].mem = nids[i] >= 0 ? hg_gpu_mem(names[nids[i]]) : HG_MEM_NONE;
  }
  goto rep_end;
rep_oom:
  rc = SQLITE_NOMEM;
rep_end:
  sqlite3_finalize(st);
  sqlite3_free(lk);
  sqlite3_free(kp);
  sqlite3_free(nids);
  hta_names_free(names, nnames);
  if (rc == SQLITE_OK && *has) *pitems = items;
  else sqlite3_free(items);
  return rc;
}

/* GM-4, GM-5: the NL launches L (indices into out->l, by start) of one root with
** capture C. */
static int gmPair(gm_ctx *x, gm_cap *c, const int32_t *L, size_t nl, const hg_item *items) {
  hg_attr *o = x->out;
  int32_t *pair = 0;
  hg_item *kv = 0;
  size_t apair = 0;
  int rc = SQLITE_OK;
  for (size_t j = 0; j < nl; j++) {
    hg_launch *l = &o->l[L[j]];
    l->capture_trace_id = c->trace_id;
    l->capture_batch = c->batch;
    if (c->nw == 0) l->reason = HG_R_NO_WINDOW;
    else if (c->nw != 1 && (size_t)c->nw != nl) l->reason = HG_R_WINDOWS;
    else l->window = c->w0 + (c->nw == 1 ? 0 : (int32_t)j);
  }
  for (size_t j = 0; j < nl && rc == SQLITE_OK; j++) {
    hg_launch *l = &o->l[L[j]];
    size_t matched;
    int rule;
    if (l->window < 0) continue;
    const hg_window *w = &o->w[l->window];
    const int32_t d0 = x->wd0[l->window];
    if ((size_t)l->nk > apair) {
      sqlite3_free(pair);
      sqlite3_free(kv);
      apair = (size_t)l->nk;
      pair = sqlite3_malloc64(apair * sizeof *pair);
      kv = sqlite3_malloc64(apair * sizeof *kv);
      if (!pair || !kv) {
        rc = SQLITE_NOMEM;
        break;
      }
    }
    for (int32_t i = 0; i < l->nk; i++) {
      kv[i] = items[o->lk[l->first + i]];
      if (kv[i].stream != kv[0].stream) l->multistream = 1;
    }
    rule = hg_align(x->d + d0, (size_t)w->ndispatch, kv, (size_t)l->nk, pair, &matched);
    if (rule < 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    l->rule = (uint8_t)rule;
    l->matched = (int32_t)matched;
    l->discarded = w->ndispatch - (int32_t)matched;
    if (!matched) l->reason = HG_R_NO_DISPATCH;
    for (int32_t i = 0; i < l->nk; i++) {
      hg_kernel *k = &o->k[o->lk[l->first + i]];
      if (pair[i] < 0) {
        k->reason = HG_R_NO_DISPATCH;
        continue;
      }
      k->match = HG_MATCHED;
      k->rule = (uint8_t)rule;
      k->reason = HG_R_NONE;
      k->dpos = pair[i];
      k->dispatch_id = x->dr[d0 + pair[i]].id;
      k->op_id = x->dr[d0 + pair[i]].op;
    }
  }
  sqlite3_free(pair);
  sqlite3_free(kv);
  return rc;
}

/* GM-3: the roots of the launches, then each root's capture and pairs. */
static int gmRoots(gm_ctx *x, const hg_item *items) {
  hg_attr *o = x->out;
  hg_root *r = 0;
  size_t nr = 0;
  int64_t *pmax = 0;
  int32_t *L = 0, *owner = 0;
  int rc = hg_roots_load(x->db, x->t, &r, &nr);
  if (rc != SQLITE_OK) return rc;
  pmax = sqlite3_malloc64((nr ? nr : 1) * sizeof *pmax);
  owner = sqlite3_malloc64((o->nl ? o->nl : 1) * sizeof *owner);
  L = sqlite3_malloc64((o->nl ? o->nl : 1) * sizeof *L);
  if (!pmax || !owner || !L) {
    rc = SQLITE_NOMEM;
    goto roots_end;
  }
  for (size_t j = 0; j < nr; j++) pmax[j] = j && pmax[j - 1] > r[j].end ? pmax[j - 1] : r[j].end;
  for (size_t i = 0; i < o->nl; i++) { /* the first root, by start, holding the launch */
    hg_launch *l = &o->l[i];
    int64_t end = hta_end(l->ts, l->dur);
    long lo = 0, hi = (long)nr, best = -1;
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (r[mid].ts <= l->ts) lo = mid + 1;
      else hi = mid;
    }
    for (long j = lo - 1; j >= 0 && pmax[j] >= end; j--) {
      if (r[j].end >= end) best = j;
    }
    owner[i] = (int32_t)best;
    if (best >= 0) {
      l->root_id = r[best].event_id;
      l->batch = r[best].batch;
    }
  }
  /* each root's launches (they come by start), then the launches of no root */
  for (long j = -1; j < (long)nr && rc == SQLITE_OK; j++) {
    size_t nl = 0;
    int reason = HG_R_NONE;
    for (size_t i = 0; i < o->nl; i++) {
      if (owner[i] == (j < 0 ? -1 : j)) L[nl++] = (int32_t)i;
    }
    if (nl == 0) continue;
    gm_cap *c = 0;
    if (j < 0 && !x->single) reason = x->ncap ? HG_R_NO_ROOT : HG_R_NO_CAPTURE;
    else c = gmChoose(x, j < 0 ? -1 : r[j].batch, nl, &reason);
    if (c) rc = gmLoadCapture(x, c);
    if (rc == SQLITE_OK && c) rc = gmPair(x, c, L, nl, items);
    for (size_t i = 0; !c && i < nl; i++) o->l[L[i]].reason = (uint8_t)reason;
  }
roots_end:
  sqlite3_free(r);
  sqlite3_free(pmax);
  sqlite3_free(owner);
  sqlite3_free(L);
  return rc;
}

/* GM-7 (HG_EAGER_OPS): the replay's operator of the eager and unmatched kernels. */
static int gmEagerOps(gm_ctx *x) {
  hg_attr *o = x->out;
  hg_tree tr;
  int rc = hg_tree_load(x->db, x->t->schema, x->t->trace_id, &tr);
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < o->nk; i++) {
    hg_kernel *k = &o->k[i];
    if (k->match != HG_EAGER && k->match != HG_UNMATCHED) continue;
    long op = hg_tree_op(&tr, hg_tree_find(&tr, k->launch_id), INT64_MIN, INT64_MAX);
    k->op_id = op >= 0 ? tr.a[op].event_id : 0;
  }
  hg_tree_free(&tr);
  return SQLITE_OK;
}

static int gmWsortCmp(const void *a, const void *b, const hg_window *w) {
  const hg_window *x = &w[*(const int32_t *)a], *y = &w[*(const int32_t *)b];
  if (x->capture_trace_id != y->capture_trace_id)
    return x->capture_trace_id < y->capture_trace_id ? -1 : 1;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int hg_attr_load(sqlite3 *db, const hta_trace *t, int flags, hg_attr *out) {
  gm_ctx x;
  char *graph_ids = 0;
  size_t ngraph = 0;
  hg_item *items = 0;
  int has = 0;
  int rc;
  memset(out, 0, sizeof *out);
  memset(&x, 0, sizeof x);
  x.db = db;
  x.t = t;
  x.out = out;
  rc = gmIdsWhere(db, t->schema, "value LIKE '%graphlaunch%'", &graph_ids, &ngraph);
  if (rc != SQLITE_OK || ngraph == 0) goto attr_end; /* GM-1: no graph launch anywhere */
  rc = gmReplay(&x, graph_ids, &items, &has);
  if (rc != SQLITE_OK) goto attr_end;
  if (!has) { /* GPU rows, but none replayed: nothing */
    hg_attr_free(out);
    goto attr_end;
  }
  rc = gmCapsLoad(&x);
  if (rc == SQLITE_OK) rc = gmRoots(&x, items);
  for (size_t i = 0; rc == SQLITE_OK && i < out->nk; i++) { /* launch reasons, coverage */
    hg_kernel *k = &out->k[i];
    if (k->launch < 0) continue;
    if (k->match == HG_UNMATCHED && !k->reason) k->reason = out->l[k->launch].reason;
    out->nreplayed++;
    out->replayed_ns = hta_add_sat(out->replayed_ns, k->dur);
    if (k->match == HG_MATCHED && k->op_id) {
      out->nmatched++;
      out->matched_ns = hta_add_sat(out->matched_ns, k->dur);
    }
  }
  if (rc == SQLITE_OK && (flags & HG_EAGER_OPS)) rc = gmEagerOps(&x);
  if (rc == SQLITE_OK && out->nw) { /* hg_window_find's order */
    if (!(out->wsort = sqlite3_malloc64(out->nw * sizeof *out->wsort))) rc = SQLITE_NOMEM;
    for (size_t i = 0; rc == SQLITE_OK && i < out->nw; i++) out->wsort[i] = (int32_t)i;
    /* insertion sort: windows come grouped by capture, each group by start */
    for (size_t i = 1; rc == SQLITE_OK && i < out->nw; i++) {
      int32_t v = out->wsort[i];
      size_t j = i;
      while (j > 0 && gmWsortCmp(&out->wsort[j - 1], &v, out->w) > 0) {
        out->wsort[j] = out->wsort[j - 1];
        j--;
      }
      out->wsort[j] = v;
    }
  }
attr_end:
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  sqlite3_free(graph_ids);
  sqlite3_free(items);
  for (size_t i = 0; i < x.ncap; i++) hg_tree_free(&x.caps[i].tree);
  sqlite3_free(x.caps);
  sqlite3_free(x.d);
  sqlite3_free(x.dr);
  sqlite3_free(x.wd0);
  for (size_t i = 0; i < x.nx; i++) sqlite3_free(x.xname[i]);
  sqlite3_free(x.xname);
  if (rc != SQLITE_OK) hg_attr_free(out);
  return rc;
}

void hg_attr_free(hg_attr *a) {
  sqlite3_free(a->k);
  sqlite3_free(a->l);
  sqlite3_free(a->lk);
  sqlite3_free(a->w);
  sqlite3_free(a->wsort);
  memset(a, 0, sizeof *a);
}

long hg_attr_find(const hg_attr *a, int64_t event_id) {
  return hg_find_id(a->k, a->nk, sizeof *a->k, offsetof(hg_kernel, event_id), event_id);
}

long hg_window_find(const hg_attr *a, int64_t capture_trace_id, int64_t ts, int64_t end) {
  size_t lo = 0, hi = a->nw;
  while (lo < hi) { /* the last window of that capture starting at or before TS */
    size_t mid = lo + (hi - lo) / 2;
    const hg_window *w = &a->w[a->wsort[mid]];
    if (w->capture_trace_id < capture_trace_id ||
        (w->capture_trace_id == capture_trace_id && w->ts <= ts))
      lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return -1;
  const hg_window *w = &a->w[a->wsort[lo - 1]];
  return w->capture_trace_id == capture_trace_id && w->ts <= ts && end <= w->end ? a->wsort[lo - 1]
                                                                                 : -1;
}

int hg_coverage(sqlite3 *db, const hta_trace *t, int64_t *replayed_ns, int64_t *matched_ns,
                int64_t *nreplayed, int64_t *nmatched) {
  hg_attr a;
  int rc = hg_attr_load(db, t, 0, &a);
  *replayed_ns = *matched_ns = *nreplayed = *nmatched = 0;
  if (rc != SQLITE_OK) return rc;
  *replayed_ns = a.replayed_ns;
  *matched_ns = a.matched_ns;
  *nreplayed = (int64_t)a.nreplayed;
  *nmatched = (int64_t)a.nmatched;
  hg_attr_free(&a);
  return SQLITE_OK;
}

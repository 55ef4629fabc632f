/*
** findings_host.c: the findings about runtime calls on the host (findings.h):
** pageable_memcpy, host_sync and allocator_churn (DESIGN 11).
**
** Requirements (tests cite them as FH-n):
**  1. Only rows in the trace's analysed steps count (FD-2): a host row whose
**     iteration is one of them (any row when the trace has no steps), before the
**     trace's last-step cut. time_us = the rows' host duration / the steps.
**  2. pageable_memcpy: GPU copies whose name marks pageable host memory (contains
**     "Pageable": "Memcpy DtoH (Device -> Pageable)", "Memcpy HtoD (Pageable ->
**     Device)"); a copy is in a step when its launch is (the GPU row's iteration,
**     inherited through the launch link). time = the host duration of the runtime
**     calls that issued them (cudaMemcpyAsync waits for a pageable copy); count =
**     the copies. Evidence: bytes (args.bytes), GPU time, copies per memory kind,
**     the operators that issued them, the longest calls.
**  3. host_sync: the runtime calls cudaDeviceSynchronize, cudaStreamSynchronize,
**     cudaEventSynchronize, the driver's cuCtxSynchronize, cuStreamSynchronize,
**     cuEventSynchronize and the hip ones; time = their host duration; count = the
**     calls. Evidence: calls per name, the operators they ran in, the longest calls.
**  4. allocator_churn: cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost,
**     cudaHostAlloc, cudaMallocManaged, cudaMallocAsync, cudaFreeAsync,
**     cudaMallocPitch, and the hip ones; time and count as FH-3, evidence also
**     allocations and frees.
**  5. The operator of a call is its outermost enclosing operator (category cpu_op
**     or operator) on its thread: what the program called (aten::item, aten::to),
**     not the internals under it (aten::_local_scalar_dense, aten::copy_); NULL
**     when the call runs in none.
**  6. A finding needs at least one call (or copy); none of these rules needs GPU rows.
*/
#include <math.h>
#include <string.h>

#include "findings/findings.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FH_TOP 3         /* operators and longest calls listed in evidence */
#define FH_MAX_DEPTH 256 /* a parent chain longer than this is a corrupt database */
#define FH_MAX_NAMES 32  /* names one rule looks for */

/* ---------------------------------------------------------------- the operator of a call */

typedef struct fh_walk {
  sqlite3_stmt *up;   /* parent_id, category_id, name_id of ?1 */
  sqlite3_stmt *name; /* the name of a string id */
  int64_t op_cat[3];  /* category ids of cpu_op / operator (any case); -1 absent */
} fh_walk;

static int fhWalkOpen(fd_ctx *x, fh_walk *w) {
  sqlite3_stmt *st = 0;
  int n = 0, rc;
  memset(w, 0, sizeof *w);
  w->op_cat[0] = w->op_cat[1] = w->op_cat[2] = -1;
  rc = hta_prepare(x->db, x->schema,
                   "SELECT category_id FROM $S.category WHERE lower(name) IN ('cpu_op', 'operator')"
                   " LIMIT 3",
                   &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    w->op_cat[n++] = sqlite3_column_int64(st, 0);
  }
  rc = fd_done(st, rc);
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->schema,
                     "SELECT parent_id, category_id, name_id FROM $S.event WHERE event_id = ?1",
                     &w->up);
  if (rc == SQLITE_OK) rc = hta_prepare(x->db, x->schema, HTA_SQL_NAME_OF_ID, &w->name);
  return rc;
}

static void fhWalkClose(fh_walk *w) {
  sqlite3_finalize(w->up);
  sqlite3_finalize(w->name);
}

/* FH-5: *op = the name_id of the outermost operator at or above event PARENT (the
** call's parent_id; <= 0 or NULL: none), -1 when there is none. */
static int fhTopOp(fh_walk *w, int has_parent, int64_t parent, int64_t *op) {
  int rc = SQLITE_OK;
  *op = -1;
  for (int d = 0; has_parent && d < FH_MAX_DEPTH; d++) {
    sqlite3_bind_int64(w->up, 1, parent);
    rc = sqlite3_step(w->up);
    if (rc != SQLITE_ROW) break;
    int64_t cat = sqlite3_column_int64(w->up, 1);
    if (sqlite3_column_type(w->up, 1) != SQLITE_NULL &&
        (cat == w->op_cat[0] || cat == w->op_cat[1] || cat == w->op_cat[2])) {
      *op = sqlite3_column_type(w->up, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(w->up, 2);
    }
    has_parent = sqlite3_column_type(w->up, 0) != SQLITE_NULL;
    parent = sqlite3_column_int64(w->up, 0);
    sqlite3_reset(w->up);
  }
  sqlite3_reset(w->up);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Adds COUNT and NS to the tally under the name of string id OP (-1: none). */
static int fhTallyOp(fh_walk *w, fd_tally *t, int64_t op, int64_t count, int64_t ns) {
  const char *name = 0;
  int rc = SQLITE_OK;
  if (op >= 0) {
    sqlite3_bind_int64(w->name, 1, op);
    rc = sqlite3_step(w->name);
    if (rc == SQLITE_ROW) name = (const char *)sqlite3_column_text(w->name, 0);
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  if (rc == SQLITE_OK) rc = fd_tally_add(t, name, count, ns);
  sqlite3_reset(w->name);
  return rc;
}

/* ---------------------------------------------------------------- the longest calls */

typedef struct fh_longest { /* the FH_TOP longest calls, longest first, by seq (their position in
                               the trace file's traceEvents: the same in every database) */
  int64_t id[FH_TOP], dur[FH_TOP];
  int n;
} fh_longest;

static void fhLongestAdd(fh_longest *l, int64_t id, int64_t dur) {
  int i;
  if (l->n == FH_TOP && dur <= l->dur[FH_TOP - 1]) return; /* ties: the earlier call stays */
  i = l->n < FH_TOP ? l->n++ : FH_TOP - 1;
  for (; i > 0 && l->dur[i - 1] < dur; i--) {
    l->id[i] = l->id[i - 1];
    l->dur[i] = l->dur[i - 1];
  }
  l->id[i] = id;
  l->dur[i] = dur;
}

static void fhLongestJson(sqlite3_str *s, const fh_longest *l) {
  sqlite3_str_appendall(s, "\"longest\":[");
  for (int i = 0; i < l->n; i++) {
    sqlite3_str_appendf(s, "%s{\"seq\":%lld,\"us\":", i ? "," : "", (long long)l->id[i]);
    fd_json_us(s, l->dur[i]);
    sqlite3_str_appendchar(s, 1, '}');
  }
  sqlite3_str_appendchar(s, 1, ']');
}

/* ", " joined ids as SQL text ("1, 5"); NULL when none is >= 0 (*rc set on OOM). */
static char *fhIdList(const int32_t *ids, size_t n, int *rc) {
  sqlite3_str *s = sqlite3_str_new(0);
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    if (ids[i] < 0) continue;
    sqlite3_str_appendf(s, any++ ? ", %d" : "%d", ids[i]);
  }
  if (sqlite3_str_errcode(s)) *rc = SQLITE_NOMEM;
  char *z = sqlite3_str_finish(s);
  if (!any) {
    sqlite3_free(z);
    return 0;
  }
  return z;
}

/* Prepares FMT, whose %s becomes the id list LIST (freed here), into *PST, and opens the
** operator walk W (fhWalkClose it whatever this returns). */
static int fhOpen(fd_ctx *x, const char *fmt, char *list, fh_walk *w, sqlite3_stmt **pst) {
  char *sql = sqlite3_mprintf(fmt, list);
  int rc;
  sqlite3_free(list);
  memset(w, 0, sizeof *w);
  if (!sql) return SQLITE_NOMEM;
  rc = fhWalkOpen(x, w);
  if (rc == SQLITE_OK) rc = hta_prepare(x->db, x->schema, sql, pst);
  sqlite3_free(sql);
  return rc;
}

/* ---------------------------------------------------------------- runtime calls: FH-3, FH-4 */

typedef struct fh_spec {
  const char *const *names; /* runtime call names, at most FH_MAX_NAMES */
  const int *kind;          /* per name: 0 or 1 (allocator_churn: alloc / free), or NULL */
  size_t n;
  const char *kind_key[2];  /* evidence keys counting the two kinds */
  const char *what, *what1; /* title: "<n> <what> take <time> per step" (n = 1: what1) */
  const char *advice;
} fh_spec;

/* One rule over runtime calls named in SPEC, per trace (FH-1, FH-3, FH-4, FH-5). */
static int fhCallsRule(fd_ctx *x, const fd_rule *r, const fh_spec *spec) {
  int32_t ids[FH_MAX_NAMES];
  fh_walk w;
  sqlite3_stmt *st = 0;
  char *list;
  int rc = hta_string_ids(x->db, x->schema, spec->names, spec->n, ids);
  if (rc != SQLITE_OK) return rc;
  list = fhIdList(ids, spec->n, &rc);
  if (!list) return rc; /* none of the names occurs in this database */
  rc = fhOpen(x,
              "SELECT seq, name_id, dur, iteration, parent_id FROM $S.event"
              " WHERE event_id BETWEEN ?1 AND ?2 AND ts < ?3 AND stream IS NULL"
              " AND dur IS NOT NULL AND name_id IN (%s) ORDER BY event_id",
              list, &w, &st);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    int64_t calls = 0, ns = 0, per_name[FH_MAX_NAMES], kinds[2] = {0, 0};
    fd_tally ops = {0, 0, 0};
    fh_longest longest;
    memset(per_name, 0, sizeof per_name);
    memset(&longest, 0, sizeof longest);
    hta_bind_trace_scan(st, u->t);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t id = sqlite3_column_int64(st, 0), name_id = sqlite3_column_int64(st, 1);
      int64_t dur = sqlite3_column_int64(st, 2), op;
      if (!fd_in_steps(u, sqlite3_column_type(st, 3) != SQLITE_NULL, sqlite3_column_int64(st, 3)))
        continue;
      if (dur < 0) dur = 0;
      calls++;
      ns = hta_add_sat(ns, dur);
      for (size_t k = 0; k < spec->n; k++) {
        if (ids[k] != name_id) continue;
        per_name[k]++;
        if (spec->kind) kinds[spec->kind[k]]++;
      }
      fhLongestAdd(&longest, id, dur);
      rc = fhTopOp(&w, sqlite3_column_type(st, 4) != SQLITE_NULL, sqlite3_column_int64(st, 4), &op);
      if (rc == SQLITE_OK) rc = fhTallyOp(&w, &ops, op, 1, dur);
      if (rc != SQLITE_OK) break;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(st);
    if (rc == SQLITE_OK && calls > 0) { /* FH-6 */
      fd_row row = fd_row_init(u);
      char t[32];
      sqlite3_str *e = row.evidence;
      row.time_us = (double)ns / 1000.0 / (double)u->nsteps;
      row.count = calls;
      sqlite3_str_appendf(e, "{\"calls\":%lld,\"steps\":%lld,", (long long)calls,
                          (long long)u->nsteps);
      if (spec->kind) {
        sqlite3_str_appendf(e, "\"%s\":%lld,\"%s\":%lld,", spec->kind_key[0], (long long)kinds[0],
                            spec->kind_key[1], (long long)kinds[1]);
      }
      sqlite3_str_appendall(e, "\"host_us\":");
      fd_json_us(e, ns);
      sqlite3_str_appendall(e, ",\"by_call\":{");
      for (size_t k = 0, m = 0; k < spec->n; k++) {
        if (!per_name[k]) continue;
        sqlite3_str_appendall(e, m++ ? "," : "");
        fd_json_str(e, spec->names[k]);
        sqlite3_str_appendf(e, ":%lld", (long long)per_name[k]);
      }
      sqlite3_str_appendall(e, "},\"operators\":");
      fd_tally_json(e, &ops, FH_TOP, "calls", 1);
      sqlite3_str_appendchar(e, 1, ',');
      fhLongestJson(e, &longest);
      sqlite3_str_appendchar(e, 1, '}');
      const char *top = fd_tally_top(&ops);
      row.title =
          sqlite3_mprintf("%lld %s %s %s per step%s%s", (long long)calls,
                          calls == 1 ? spec->what1 : spec->what, calls == 1 ? "takes" : "take",
                          fd_fmt_us(row.time_us, t), top ? ", most in " : "", top ? top : "");
      row.advice = spec->advice;
      rc = fd_emit(x, r, &row);
    }
    fd_tally_free(&ops);
  }
  sqlite3_finalize(st);
  fhWalkClose(&w);
  return rc;
}

static const char *const fhSyncNames[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",
    "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",
};

int fd_host_sync(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      fhSyncNames,
      0,
      sizeof fhSyncNames / sizeof fhSyncNames[0],
      {0, 0},
      "synchronizations of the host with the GPU",
      "synchronization of the host with the GPU",
      "Each synchronization stops the host until the GPU is done, so no work is queued "
      "meanwhile: keep values on the GPU instead of calling .item(), .cpu(), .tolist() or "
      "print() on tensors in the step, avoid operators whose output size depends on the data "
      "(nonzero, masked_select, boolean indexing) there, log every N steps, and drop "
      "explicit torch.cuda.synchronize() calls."};
  return fhCallsRule(x, r, &spec);
}

static const char *const fhAllocNames[] = {
    "cudaMalloc",      "cudaMallocHost",   "cudaHostAlloc",  "cudaMallocManaged",
    "cudaMallocAsync", "cudaMallocPitch",  "hipMalloc",      "hipHostMalloc",
    "hipMallocHost",   "hipMallocManaged", "hipMallocAsync", "hipExtMallocWithFlags",
    "cudaFree",        "cudaFreeHost",     "cudaFreeAsync",  "hipFree",
    "hipHostFree",     "hipFreeHost",      "hipFreeAsync",
};
static const int fhAllocKind[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1};

int fd_allocator_churn(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      fhAllocNames,
      fhAllocKind,
      sizeof fhAllocNames / sizeof fhAllocNames[0],
      {"allocations", "frees"},
      "device memory allocations and frees by the runtime",
      "device memory allocation or free by the runtime",
      "Allocating device memory with the driver is slow and synchronizes the device: let "
      "PyTorch's caching allocator keep its blocks (no torch.cuda.empty_cache() in the loop), "
      "keep tensor shapes steady from step to step (pad or bucket variable lengths), try "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, and allocate pinned host buffers "
      "once instead of every step."};
  return fhCallsRule(x, r, &spec);
}

/* ---------------------------------------------------------------- pageable copies: FH-2 */

int fd_pageable_memcpy(fd_ctx *x, const fd_rule *r) {
  sqlite3_stmt *st = 0;
  fh_walk w;
  int32_t ids[32];
  size_t nid = 0;
  char *list;
  int rc =
      hta_prepare(x->db, x->schema,
                  "SELECT string_id FROM $S.string WHERE value LIKE '%Pageable%' LIMIT 32", &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    ids[nid++] = (int32_t)sqlite3_column_int64(st, 0);
  }
  rc = fd_done(st, rc);
  st = 0;
  if (rc != SQLITE_OK) return rc;
  list = fhIdList(ids, nid, &rc);
  if (!list) return rc; /* no pageable copy in this database */
  rc = fhOpen(x,
              "SELECT g.event_id, g.dur, g.iteration, json_extract(g.args, '$.bytes'), s.value,"
              " h.seq, h.dur, h.parent_id"
              " FROM $S.event g JOIN $S.string s ON s.string_id = g.name_id"
              " LEFT JOIN $S.event h ON h.event_id = g.link_id AND h.stream IS NULL"
              " WHERE g.trace_id = ?1 AND g.stream IS NOT NULL AND g.dur IS NOT NULL"
              " AND g.name_id IN (%s) ORDER BY g.event_id",
              list, &w, &st);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    int64_t copies = 0, host_ns = 0, gpu_ns = 0, bytes = 0, op;
    fd_tally ops = {0, 0, 0}, kinds = {0, 0, 0};
    fh_longest longest;
    memset(&longest, 0, sizeof longest);
    sqlite3_bind_int64(st, 1, u->trace_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int has_it = sqlite3_column_type(st, 2) != SQLITE_NULL;
      if (!fd_in_steps(u, has_it, sqlite3_column_int64(st, 2))) continue;
      int64_t gdur = sqlite3_column_int64(st, 1), hdur = sqlite3_column_int64(st, 6);
      char kind[16];
      copies++;
      gpu_ns = hta_add_sat(gpu_ns, gdur > 0 ? gdur : 0);
      bytes = hta_add_sat(bytes, sqlite3_column_int64(st, 3));
      hta_memory_kind((const char *)sqlite3_column_text(st, 4), kind);
      if ((rc = fd_tally_add(&kinds, kind, 1, 0)) != SQLITE_OK) break;
      if (sqlite3_column_type(st, 5) == SQLITE_NULL) continue; /* no launch */
      if (hdur < 0) hdur = 0;
      host_ns = hta_add_sat(host_ns, hdur);
      fhLongestAdd(&longest, sqlite3_column_int64(st, 5), hdur);
      rc = fhTopOp(&w, sqlite3_column_type(st, 7) != SQLITE_NULL, sqlite3_column_int64(st, 7), &op);
      if (rc == SQLITE_OK) rc = fhTallyOp(&w, &ops, op, 1, hdur);
      if (rc != SQLITE_OK) break;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(st);
    if (rc == SQLITE_OK && copies > 0) {
      fd_row row = fd_row_init(u);
      char t[32];
      sqlite3_str *e = row.evidence;
      row.time_us = (double)host_ns / 1000.0 / (double)u->nsteps;
      row.count = copies;
      sqlite3_str_appendf(e, "{\"copies\":%lld,\"steps\":%lld,\"bytes\":%lld,\"host_us\":",
                          (long long)copies, (long long)u->nsteps, (long long)bytes);
      fd_json_us(e, host_ns);
      sqlite3_str_appendall(e, ",\"gpu_us\":");
      fd_json_us(e, gpu_ns);
      sqlite3_str_appendall(e, ",\"by_kind\":{");
      for (size_t k = 0; k < kinds.n; k++) {
        sqlite3_str_appendall(e, k ? "," : "");
        fd_json_str(e, kinds.a[k].name);
        sqlite3_str_appendf(e, ":%lld", (long long)kinds.a[k].count);
      }
      sqlite3_str_appendall(e, "},\"operators\":");
      fd_tally_json(e, &ops, FH_TOP, "copies", 1);
      sqlite3_str_appendchar(e, 1, ',');
      fhLongestJson(e, &longest);
      sqlite3_str_appendchar(e, 1, '}');
      const char *top = fd_tally_top(&ops);
      row.title = sqlite3_mprintf(
          "%lld %s between the GPU and pageable host memory %s %s of host time per step%s%s",
          (long long)copies, copies == 1 ? "copy" : "copies", copies == 1 ? "takes" : "take",
          fd_fmt_us(row.time_us, t), top ? ", most in " : "", top ? top : "");
      row.advice =
          "A copy to or from pageable memory is staged by the driver and blocks the host: pin "
          "the host side (DataLoader(pin_memory=True), tensor.pin_memory()) and copy with "
          "non_blocking=True; for results read on the host (.item(), .cpu()), copy fewer and "
          "later, into a pinned buffer, instead of every step.";
      rc = fd_emit(x, r, &row);
    }
    fd_tally_free(&ops);
    fd_tally_free(&kinds);
  }
  sqlite3_finalize(st);
  fhWalkClose(&w);
  return rc;
}

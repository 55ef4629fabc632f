/*
** tb_distributed.c: the Distributed view of the PyTorch TensorBoard profiler plugin:
** per rank and step, computation, communication and their overlap, and the
** communication time split into data transfer and synchronizing (waiting); per
** collective name, its calls, bytes and times. Over the model of tb_steps.c, across
** the job's trace files.
**
**   SELECT * FROM hta_distributed_overlap WHERE step = 'all';
**   SELECT name, calls, bytes, total_us, wait_us FROM hta_distributed_comm_ops;
**
** No parameters. Columns (then `job`):
**   hta_distributed_overlap: rank, step, computation_us, overlapping_us,
**     communication_us, other_us, transfer_us, wait_us, trace_id
**   hta_distributed_comm_ops: rank, name, calls, bytes, total_us, transfer_us,
**     wait_us, trace_id
**
** Requirements (tests cite them as DV-n):
**  1. Workers: the job's trace files, grouped into spans: the k-th file of each rank
**     (by file name) is in span k (two profiling windows of one worker are two
**     spans). A span has a view when every one of its files has Communication time
**     (TV-8) and at least one operation, and all have the same number of operations
**     and, operation by operation, the same number of ranges; otherwise none of its
**     files has rows. WHERE rank = N shows N's rows of the views computed over all.
**  2. Operations (per file): the host events with a collective's name (TV-6), one
**     per External id, a later event (TV-1 order) replacing an earlier one in its
**     place (the GPU-side copy of an annotation replaces the host one); events
**     without an External id are each their own operation. A file with both NCCL and
**     Gloo names has none. Ranges of an operation: its own interval, plus, when the
**     file has NCCL names, the interval of every kernel with its External id; sorted
**     by (start, -end). Operations are sorted by (start, -end, place).
**  3. Steps of the operations: in order, an operation inside the current kept step's
**     window (start >= window start, end <= window end) is that step's; one starting
**     at or after the window's end moves on to the next step (and is looked at
**     again); any other has no step; once the steps run out no later operation has
**     one.
**  4. Transfer: the k-th operation's j-th range is matched across the span's files
**     by position; m = the shortest of them; each file's transfer range is [its
**     range's end - m, its end] (the fastest is pure transfer, the rest of a range
**     is waiting).
**  5. hta_distributed_overlap, per file: a row "all", then one per step name in the
**     plugin's step order, then (step NULL) the operations without step. Per step
**     window S: comp = |S n computation| (TV-9), comm = |S n Communication|, ov =
**     |S n both|; computation_us = comp - ov, overlapping_us = ov, communication_us
**     = comm - ov, other_us = |S| + ov - comp - comm; a repeated step name shows its
**     last step's values; "all" = their sum over every kept step / the number of
**     steps. transfer_us = |union of the transfer ranges| of the step name's
**     operations, wait_us = |union of their ranges| - transfer_us; "all" = the sums
**     over the step names holding operations (NULL step included) / their number.
**     A column the plugin has not for a row is NULL (no operations in the step; the
**     NULL step has no overlap figures).
**  6. hta_distributed_comm_ops, per file and collective name, in order of the first
**     operation: calls = operations; bytes = sum over each operation's inputs of the
**     product of its "Input Dims" entry (else "Input dims") times the element size of
**     its "Input type" (long int 8, float 4, int 4, c10::Half 2, c10::BFloat16 2,
**     unsigned char 1, anything else 0); total_us = |union of the operations'
**     ranges|; transfer_us = |union of their transfer ranges|; wait_us = total_us -
**     transfer_us.
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_model.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* hta_distributed_overlap */
#define DO_RANK 0
#define DO_STEP 1
#define DO_COMP 2 /* computation, overlapping, communication, other */
#define DO_TRANSFER 6
#define DO_WAIT 7
#define DO_TRACE_ID 8
#define DO_NVISIBLE 9
static const char doSchema[] =
    "CREATE TABLE x(rank INTEGER, step TEXT, computation_us REAL, overlapping_us REAL,"
    " communication_us REAL, other_us REAL, transfer_us REAL, wait_us REAL, trace_id INTEGER)";

/* hta_distributed_comm_ops */
#define DC_RANK 0
#define DC_NAME 1
#define DC_CALLS 2
#define DC_BYTES 3
#define DC_TOTAL 4
#define DC_TRANSFER 5
#define DC_WAIT 6
#define DC_TRACE_ID 7
#define DC_NVISIBLE 8
static const char dcSchema[] =
    "CREATE TABLE x(rank INTEGER, name TEXT, calls INTEGER, bytes INTEGER, total_us REAL,"
    " transfer_us REAL, wait_us REAL, trace_id INTEGER)";

/* One operation (DV-2). */
typedef struct dv_op {
  int64_t event_id, ts, end, ext;
  int has_ext;
  char name[24]; /* the collective's name */
  size_t place;  /* order of its External id's first event */
  int step;      /* the first kept step of its step's name (DV-3, DV-5); -1: none */
  hta_iv *rng;   /* ranges (DV-2), then as many transfer ranges (DV-4) */
  size_t nrng, caprng;
  int64_t bytes;
} dv_op;

/* One trace file: what the views need of its model. */
typedef struct dv_worker {
  const hta_trace *t;
  int span;
  int has_comm;
  size_t nsteps;
  tv_step *steps;   /* names and windows only */
  int64_t (*ov)[4]; /* per step: comp, ov, comm, |S| (DV-5) */
  dv_op *ops;
  size_t nops;
} dv_worker;

static void dvWorkerFree(dv_worker *w) {
  for (size_t i = 0; i < w->nops; i++) sqlite3_free(w->ops[i].rng);
  sqlite3_free(w->ops);
  sqlite3_free(w->steps);
  sqlite3_free(w->ov);
  memset(w, 0, sizeof *w);
}

static int dvOpCmp(const void *a, const void *b) {
  const dv_op *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->place < y->place ? -1 : x->place > y->place;
}

static int dvRangeCmp(const void *a, const void *b) {
  const hta_iv *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

/* An External id and the place of an event or operation that has it. */
typedef struct dv_key {
  int64_t ext;
  size_t i;
} dv_key;
static int dvKeyCmp(const void *a, const void *b) {
  const dv_key *x = a, *y = b;
  if (x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* DV-2: the operations of M, one per External id, with their ranges. */
static int dvOps(const tv_model *m, dv_worker *w) {
  dv_key *key = 0;
  size_t n = 0, nk = 0, *last = 0;
  if (!m->nops || m->comm_libs == 3) return SQLITE_OK;
  w->ops = sqlite3_malloc64(m->nops * sizeof *w->ops);
  key = sqlite3_malloc64(m->nops * sizeof *key);
  last = sqlite3_malloc64(m->nops * sizeof *last);
  if (!w->ops || !key || !last) goto ops_oom;
  for (size_t i = 0; i < m->nops; i++) {
    last[i] = i; /* an event without External id stands alone */
    if (m->ops[i].has_ext) key[nk++] = (dv_key){m->ops[i].ext, i};
  }
  qsort(key, nk, sizeof *key, dvKeyCmp);
  for (size_t lo = 0, hi; lo < nk; lo = hi) { /* each id's first event takes its last */
    for (hi = lo + 1; hi < nk && key[hi].ext == key[lo].ext; hi++) last[key[hi].i] = SIZE_MAX;
    last[key[lo].i] = key[hi - 1].i;
  }
  for (size_t i = 0; i < m->nops; i++) {
    const tv_comm_op *o;
    dv_op *op = &w->ops[n];
    if (last[i] == SIZE_MAX) continue;
    o = &m->ops[last[i]];
    memset(op, 0, sizeof *op);
    op->place = n++;
    op->event_id = o->event_id;
    op->ts = o->ts;
    op->end = o->end;
    op->ext = o->ext;
    op->has_ext = o->has_ext;
    memcpy(op->name, o->name, sizeof op->name);
    HTA_PUSH(op->rng, op->nrng, op->caprng, 4, ((hta_iv){op->ts, op->end}), ops_oom);
  }
  w->nops = n;
  if (m->comm_libs & 1) { /* NCCL: the kernels of each operation, found by id */
    nk = 0;
    for (size_t k = 0; k < n; k++)
      if (w->ops[k].has_ext) key[nk++] = (dv_key){w->ops[k].ext, k};
    qsort(key, nk, sizeof *key, dvKeyCmp);
    for (size_t j = 0; j < m->ndev; j++) {
      const tv_dev *d = &m->devs[j];
      dv_key probe = {d->ext, 0}, *hit;
      size_t lo = 0, hi = nk;
      if (!d->comm) continue;
      while (lo < hi) { /* ids are unique among the operations now */
        size_t mid = lo + (hi - lo) / 2;
        if (key[mid].ext < probe.ext) lo = mid + 1;
        else hi = mid;
      }
      if (lo == nk || key[lo].ext != probe.ext) continue;
      hit = &key[lo];
      dv_op *op = &w->ops[hit->i];
      HTA_PUSH(op->rng, op->nrng, op->caprng, 4, ((hta_iv){d->ts, d->end}), ops_oom);
    }
  }
  sqlite3_free(key);
  sqlite3_free(last);
  for (size_t k = 0; k < n; k++) qsort(w->ops[k].rng, w->ops[k].nrng, sizeof(hta_iv), dvRangeCmp);
  qsort(w->ops, n, sizeof *w->ops, dvOpCmp);
  return SQLITE_OK;
ops_oom:
  w->nops = n;
  sqlite3_free(key);
  sqlite3_free(last);
  return SQLITE_NOMEM;
}

/* DV-3: each operation's step, as the first kept step of that step's name. */
static void dvStepsOfOps(dv_worker *w) {
  size_t idx = 0;
  for (size_t k = 0; k < w->nops; k++) w->ops[k].step = -1;
  for (size_t k = 0; k < w->nops && idx < w->nsteps; k++) {
    dv_op *op = &w->ops[k];
    while (idx < w->nsteps) {
      if (op->ts >= w->steps[idx].start && op->end <= w->steps[idx].end) {
        size_t f = 0;
        while (strcmp(w->steps[f].name, w->steps[idx].name)) f++;
        op->step = (int)f;
        break;
      } else if (op->ts >= w->steps[idx].end) {
        idx++;
      } else {
        break;
      }
    }
  }
}

/* DV-6: the element size of an "Input type" entry. */
static int64_t dvElemSize(const char *t) {
  static const struct {
    const char *name;
    int64_t size;
  } sizes[] = {{"long int", 8},  {"float", 4},         {"int", 4},
               {"c10::Half", 2}, {"c10::BFloat16", 2}, {"unsigned char", 1}};
  for (size_t i = 0; t && i < sizeof sizes / sizeof sizes[0]; i++)
    if (!strcmp(t, sizes[i].name)) return sizes[i].size;
  return 0;
}

/* The product of the integers of JSON array text S ("[8, 512]"; "[]" is 1); 0 when
** S is anything else. */
static int64_t dvDimsProduct(const char *s) {
  int64_t p = 1;
  char *end;
  if (!s || *s++ != '[') return 0;
  for (;;) {
    while (*s == ' ') s++;
    if (*s == ']') return p;
    long long v = strtoll(s, &end, 10);
    if (end == s) return 0;
    if (__builtin_mul_overflow(p, (int64_t)v, &p)) p = INT64_MAX;
    s = end;
    while (*s == ' ') s++;
    if (*s == ',') s++;
    else if (*s != ']') return 0;
  }
}

/* DV-6: every operation's bytes. */
static int dvBytes(sqlite3 *db, const hta_trace *t, dv_worker *w) {
  sqlite3_stmt *q = 0;
  int rc =
      hta_prepare(db, t->schema,
                  "SELECT d.value, json_extract(e.args, '$.\"Input type\"[' || d.key || ']')"
                  " FROM $S.event e, json_each(coalesce(json_extract(e.args, '$.\"Input Dims\"'),"
                  "  json_extract(e.args, '$.\"Input dims\"'))) d"
                  " WHERE e.event_id = ?1 AND json_valid(e.args) AND d.type = 'array'",
                  &q);
  for (size_t k = 0; rc == SQLITE_OK && k < w->nops; k++) {
    sqlite3_bind_int64(q, 1, w->ops[k].event_id);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      int64_t b;
      if (__builtin_mul_overflow(dvDimsProduct((const char *)sqlite3_column_text(q, 0)),
                                 dvElemSize((const char *)sqlite3_column_text(q, 1)), &b))
        b = INT64_MAX;
      w->ops[k].bytes = hta_add_sat(w->ops[k].bytes, b);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(q);
  }
  sqlite3_finalize(q);
  return rc;
}

/* The views' inputs of trace T into W. */
static int dvWorkerLoad(sqlite3 *db, const hta_trace *t, dv_worker *w) {
  tv_model m;
  hta_iv *both = 0;
  int rc = tv_model_load(db, t, 0, &m);
  w->t = t;
  if (rc != SQLITE_OK) goto load_done;
  w->has_comm = tv_has_comm(&m);
  w->nsteps = m.nsteps;
  if (m.nsteps) {
    int cr = tv_computation_role(&m);
    size_t nb;
    w->steps = sqlite3_malloc64(m.nsteps * sizeof *w->steps);
    w->ov = sqlite3_malloc64(m.nsteps * sizeof *w->ov);
    both = sqlite3_malloc64((m.nrole[cr] + m.nrole[TV_COMM] + 1) * sizeof *both);
    if (!w->steps || !w->ov || !both) {
      rc = SQLITE_NOMEM;
      goto load_done;
    }
    memcpy(w->steps, m.steps, m.nsteps * sizeof *w->steps);
    nb = hta_iv_intersect(m.role[cr], m.nrole[cr], m.role[TV_COMM], m.nrole[TV_COMM], both);
    for (size_t i = 0; i < m.nsteps; i++) { /* DV-5 */
      int64_t s = m.steps[i].start, e = m.steps[i].end;
      w->ov[i][0] = hta_iv_clip_length(m.role[cr], m.nrole[cr], s, e);
      w->ov[i][1] = hta_iv_clip_length(both, nb, s, e);
      w->ov[i][2] = hta_iv_clip_length(m.role[TV_COMM], m.nrole[TV_COMM], s, e);
      w->ov[i][3] = hta_sub_sat(e, s);
    }
  }
  rc = dvOps(&m, w);
  if (rc == SQLITE_OK) dvStepsOfOps(w);
  if (rc == SQLITE_OK) rc = dvBytes(db, t, w);
load_done:
  sqlite3_free(both);
  tv_model_free(&m);
  return rc;
}

/* DV-1 and DV-4 over the span's N workers W (rank order); 1 when it has a view. */
static int dvSpan(dv_worker *const *w, size_t n) {
  for (size_t k = 0; k < n; k++) {
    if (!w[k]->has_comm || !w[k]->nops || w[k]->nops != w[0]->nops) return 0;
    for (size_t i = 0; i < w[0]->nops; i++)
      if (w[k]->ops[i].nrng != w[0]->ops[i].nrng) return 0;
  }
  for (size_t i = 0; i < w[0]->nops; i++) {
    for (size_t j = 0; j < w[0]->ops[i].nrng; j++) {
      int64_t mlen = INT64_MAX;
      for (size_t k = 0; k < n; k++) {
        const hta_iv *r = &w[k]->ops[i].rng[j];
        if (hta_sub_sat(r->end, r->start) < mlen) mlen = hta_sub_sat(r->end, r->start);
      }
      for (size_t k = 0; k < n; k++) { /* transfer ranges after the ranges (dv_op.rng) */
        const hta_iv *r = &w[k]->ops[i].rng[j];
        w[k]->ops[i].rng[w[k]->ops[i].nrng + j] = (hta_iv){hta_sub_sat(r->end, mlen), r->end};
      }
    }
  }
  return 1;
}

/* Room for the transfer ranges after the ranges of every operation of W. */
static int dvReserve(dv_worker *w) {
  for (size_t k = 0; k < w->nops; k++) {
    dv_op *op = &w->ops[k];
    if (op->caprng < 2 * op->nrng) {
      hta_iv *r = sqlite3_realloc64(op->rng, 2 * op->nrng * sizeof *r);
      if (!r) return SQLITE_NOMEM;
      op->rng = r;
      op->caprng = 2 * op->nrng;
    }
  }
  return SQLITE_OK;
}

/* The union lengths of the ranges and of the transfer ranges of W's operations
** selected by KEEP(op, arg) into *TOTAL and *TRANSFER (DV-5, DV-6). */
static int dvUnion(const dv_worker *w, int (*keep)(const dv_op *, const void *), const void *arg,
                   int64_t *total, int64_t *transfer) {
  size_t n = 0, nt = 0;
  hta_iv *a, *b;
  for (size_t k = 0; k < w->nops; k++)
    if (keep(&w->ops[k], arg)) n += w->ops[k].nrng;
  *total = *transfer = 0;
  if (!n) return SQLITE_OK;
  a = sqlite3_malloc64(2 * n * sizeof *a);
  if (!a) return SQLITE_NOMEM;
  b = a + n;
  n = 0;
  for (size_t k = 0; k < w->nops; k++) {
    const dv_op *op = &w->ops[k];
    if (!keep(op, arg)) continue;
    memcpy(a + n, op->rng, op->nrng * sizeof *a);
    memcpy(b + nt, op->rng + op->nrng, op->nrng * sizeof *b);
    n += op->nrng;
    nt += op->nrng;
  }
  *total = hta_iv_length(a, hta_iv_merge(a, n));
  *transfer = hta_iv_length(b, hta_iv_merge(b, nt));
  sqlite3_free(a);
  return SQLITE_OK;
}
static int dvKeepStep(const dv_op *op, const void *step) { return op->step == *(const int *)step; }
static int dvKeepName(const dv_op *op, const void *name) { return !strcmp(op->name, name); }

static double dvUs(int64_t ns) { return (double)ns / 1000.0; }

/* DV-5: other = |S| + ov - comp - comm of V = {comp, ov, comm, |S|}, saturated. */
static int64_t dvOther(const int64_t *v) {
  return hta_sub_sat(hta_sub_sat(hta_add_sat(v[3], v[1]), v[0]), v[2]);
}

/* DV-5: W's rows of hta_distributed_overlap. */
static int dvOverlapRows(const dv_worker *w, hta_table *out) {
  int64_t sum[4] = {0, 0, 0, 0}, tsum = 0, wsum = 0, nkeys = 0;
  hta_cell *all = hta_table_add_row(out);
  size_t all_row = out->nrow - 1; /* later rows may move the table: find it again by index */
  int rc = SQLITE_OK;
  if (!all) return SQLITE_NOMEM;
  hta_cell_int(&all[DO_RANK], w->t->rank);
  hta_cell_static(&all[DO_STEP], "all");
  hta_cell_int(&all[DO_TRACE_ID], w->t->trace_id);
  for (size_t i = 0; i < w->nsteps; i++)
    for (int c = 0; c < 4; c++) sum[c] = hta_add_sat(sum[c], w->ov[i][c]);
  /* the steps by name, first appearance; the last step of a name gives the values */
  for (size_t i = 0; rc == SQLITE_OK && i <= w->nsteps; i++) {
    int64_t total, transfer, v[4] = {0, 0, 0, 0};
    int step = -1;
    hta_cell *row;
    if (i < w->nsteps) {
      size_t last = i;
      int seen = 0;
      for (size_t f = 0; f < i && !seen; f++) seen = !strcmp(w->steps[f].name, w->steps[i].name);
      if (seen) continue;
      for (size_t l = i + 1; l < w->nsteps; l++)
        if (!strcmp(w->steps[l].name, w->steps[i].name)) last = l;
      memcpy(v, w->ov[last], sizeof v);
      step = (int)i;
    }
    int holds = 0;
    for (size_t k = 0; k < w->nops && !holds; k++) holds = w->ops[k].step == step;
    if (step < 0 && !holds) break; /* no operation without step: no such row */
    rc = dvUnion(w, dvKeepStep, &step, &total, &transfer);
    if (rc != SQLITE_OK) break;
    if (!(row = hta_table_add_row(out))) return SQLITE_NOMEM;
    hta_cell_int(&row[DO_RANK], w->t->rank);
    if (step >= 0) {
      if (hta_cell_text(&row[DO_STEP], w->steps[step].name)) return SQLITE_NOMEM;
      hta_cell_double(&row[DO_COMP], dvUs(v[0] - v[1]));
      hta_cell_double(&row[DO_COMP + 1], dvUs(v[1]));
      hta_cell_double(&row[DO_COMP + 2], dvUs(v[2] - v[1]));
      hta_cell_double(&row[DO_COMP + 3], dvUs(dvOther(v)));
    }
    if (holds) {
      hta_cell_double(&row[DO_TRANSFER], dvUs(transfer));
      hta_cell_double(&row[DO_WAIT], dvUs(total - transfer));
      tsum = hta_add_sat(tsum, transfer);
      wsum = hta_add_sat(wsum, total - transfer);
      nkeys++;
    }
    hta_cell_int(&row[DO_TRACE_ID], w->t->trace_id);
  }
  if (rc != SQLITE_OK) return rc;
  all = out->cells + all_row * (size_t)out->ncol;
  if (w->nsteps) { /* "all": over the steps and the step names holding operations */
    double ns = (double)w->nsteps;
    hta_cell_double(&all[DO_COMP], (double)(sum[0] - sum[1]) / ns / 1000.0);
    hta_cell_double(&all[DO_COMP + 1], (double)sum[1] / ns / 1000.0);
    hta_cell_double(&all[DO_COMP + 2], (double)(sum[2] - sum[1]) / ns / 1000.0);
    hta_cell_double(&all[DO_COMP + 3], (double)dvOther(sum) / ns / 1000.0);
  }
  if (nkeys) {
    hta_cell_double(&all[DO_TRANSFER], (double)tsum / (double)nkeys / 1000.0);
    hta_cell_double(&all[DO_WAIT], (double)wsum / (double)nkeys / 1000.0);
  }
  return SQLITE_OK;
}

/* DV-6: W's rows of hta_distributed_comm_ops. */
static int dvOpsRows(const dv_worker *w, hta_table *out) {
  for (size_t k = 0; k < w->nops; k++) {
    int64_t calls = 0, bytes = 0, total, transfer;
    int seen = 0, rc;
    hta_cell *row;
    for (size_t f = 0; f < k && !seen; f++) seen = !strcmp(w->ops[f].name, w->ops[k].name);
    if (seen) continue;
    for (size_t f = k; f < w->nops; f++) {
      if (strcmp(w->ops[f].name, w->ops[k].name)) continue;
      calls++;
      bytes = hta_add_sat(bytes, w->ops[f].bytes);
    }
    rc = dvUnion(w, dvKeepName, w->ops[k].name, &total, &transfer);
    if (rc != SQLITE_OK) return rc;
    if (!(row = hta_table_add_row(out))) return SQLITE_NOMEM;
    hta_cell_int(&row[DC_RANK], w->t->rank);
    if (hta_cell_text(&row[DC_NAME], w->ops[k].name)) return SQLITE_NOMEM;
    hta_cell_int(&row[DC_CALLS], calls);
    hta_cell_int(&row[DC_BYTES], bytes);
    hta_cell_double(&row[DC_TOTAL], dvUs(total));
    hta_cell_double(&row[DC_TRANSFER], dvUs(transfer));
    hta_cell_double(&row[DC_WAIT], dvUs(total - transfer));
    hta_cell_int(&row[DC_TRACE_ID], w->t->trace_id);
  }
  return SQLITE_OK;
}

/* DV-1: the span of each trace: its place among its rank's files by name. */
static int dvSpans(sqlite3 *db, const hta_traces *tr, dv_worker *w) {
  sqlite3_stmt *q = 0;
  int rc = hta_prepare(db, tr->scope.schema,
                       "SELECT count(*) FROM $S.trace a, $T b WHERE a.trace_id = ?1"
                       " AND b.job_id = a.job_id AND b.rank = a.rank AND b.min_ts IS NOT NULL"
                       " AND (b.file_name < a.file_name"
                       "  OR (b.file_name = a.file_name AND b.trace_id < a.trace_id))",
                       &q);
  for (int i = 0; rc == SQLITE_OK && i < tr->n; i++) {
    sqlite3_bind_int64(q, 1, tr->a[i].trace_id);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
      w[i].span = sqlite3_column_int(q, 0);
      rc = SQLITE_OK;
    }
    sqlite3_reset(q);
  }
  sqlite3_finalize(q);
  return rc;
}

/* Both views: every worker of the job, every span, then ROWS for the rows asked. */
static int dvRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out,
                 int (*rows)(const dv_worker *, hta_table *)) {
  hta_traces tr;
  dv_worker *w = 0, **span = 0;
  char *shown = 0;
  int rc = hta_traces_load(db, &a->scope, 0, 0, 1 /* no cut */, &tr);
  if (rc != SQLITE_OK) return rc;
  if (!tr.n) goto dv_done;
  w = sqlite3_malloc64(tr.n * sizeof *w);
  if (w) memset(w, 0, tr.n * sizeof *w); /* dv_done frees every worker */
  span = sqlite3_malloc64(tr.n * sizeof *span);
  shown = sqlite3_malloc64((size_t)tr.n);
  if (!w || !span || !shown) {
    rc = SQLITE_NOMEM;
    goto dv_done;
  }
  memset(shown, 0, (size_t)tr.n);
  rc = dvSpans(db, &tr, w);
  for (int i = 0; rc == SQLITE_OK && i < tr.n; i++) {
    rc = dvWorkerLoad(db, &tr.a[i], &w[i]);
    if (rc == SQLITE_OK) rc = dvReserve(&w[i]);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  for (int s = 0; rc == SQLITE_OK && s < tr.n; s++) {
    size_t n = 0;
    for (int i = 0; i < tr.n; i++)
      if (w[i].span == s) span[n++] = &w[i];
    if (n && dvSpan(span, n))
      for (int i = 0; i < tr.n; i++) shown[i] |= w[i].span == s;
  }
  for (int i = 0; rc == SQLITE_OK && i < tr.n; i++)
    if (shown[i] && (!a->has_rank || tr.a[i].rank == a->rank)) rc = rows(&w[i], out);
dv_done:
  for (int i = 0; w && i < tr.n; i++) dvWorkerFree(&w[i]);
  sqlite3_free(w);
  sqlite3_free(span);
  sqlite3_free(shown);
  hta_traces_free(&tr);
  return rc;
}

static int doRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return dvRun(db, a, out, dvOverlapRows);
}

static int dcRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return dvRun(db, a, out, dvOpsRows);
}

const hta_tvf hta_distributed_overlap_tvf = {
    .name = "hta_distributed_overlap",
    .schema = doSchema,
    .nvisible = DO_NVISIBLE,
    .rank_col = DO_RANK,
    .nparam = 0,
    .params = 0,
    .run = doRun,
};

const hta_tvf hta_distributed_comm_ops_tvf = {
    .name = "hta_distributed_comm_ops",
    .schema = dcSchema,
    .nvisible = DC_NVISIBLE,
    .rank_col = DC_RANK,
    .nparam = 0,
    .params = 0,
    .run = dcRun,
};

/*
** fd_account.c: the accounting of the step (fd_account.h, DESIGN 11 version 2): per
** trace and analysed step, the compute streams' busy and idle time, and every idle
** nanosecond given to exactly one part by what held the GPU back.
**
**   fd_acct *a;
**   rc = fd_account(x, &a);        a[i] is x->u[i]'s; built once per run
**   a[i].part_us[FD_P_HOST_SYNC]  the mean over the typical steps, µs
**
** Requirements (tests cite them as FA-n):
**  1. Compute streams: the streams with a kernel whose name is not a communication
**     kernel's (nccl, rccl, cross_device_reduce in any case: the collectives' rule
**     COL-1). A trace without one has no accounting (has_gpu 0).
**  2. busy = the union of the compute streams' kernels, copies and memsets, but their
**     communication kernels (a collective on a compute stream waits or moves data: it
**     computes nothing); idle = step - busy, per step.
**  3. Each idle interval ends where the next compute work K starts (or at the step's
**     end: K is the first work after it). Its time before K's launch call returns is
**     "not issued" (the host had not handed K to the GPU), the rest "issued" (K was
**     queued and the GPU idled anyway: it waited on a dependency).
**  4. Issued idle: a communication kernel of this rank running then explains it: the
**     wait part of a collective (its first wait_us: hta_collectives, the time until the
**     last rank arrives) is waits_for_ranks, of a send/recv pipeline_bubble, the rest
**     of the kernel (the transfer) exposed_communication. Then a blocking copy or a
**     device malloc/free call of K's launching thread holding the work back is that
**     cause (the runtime submits the queued work only after the call: ROCm's
**     hipMemcpyWithStream holds a kernel launched before it until its copy runs). What
**     remains is before_trace when K is the trace's first GPU work (no kernel, copy
**     or memset of any stream starts before it) and starts more than 1 ms after its
**     launch returned (FA_BEFORE_TRACE_NS): the trace shows nothing K could wait for
**     that long, so the GPU was still running work launched before the profiler
**     started (a host that runs ahead of a busy GPU launches that far ahead) or by
**     another process, or its clock is offset from the host's. Like warmup it is no
**     cause. Else it is unexplained (a wait on another stream's event, the GPU's own
**     latency).
**  5. Not-issued idle, by what K's launching thread T was doing, in this priority:
**     warmup (a module-loading call: one-time start-up), dataloader (inside the
**     DataLoader's span: enumerate(DataLoader)#...__next__, enumerate(DataPipe)#...),
**     host_sync (inside a synchronization call; while a communication kernel of this
**     rank runs it waits for that collective: FA-4's parts instead), blocking_copy
**     (inside a synchronous copy call, cudaMemcpy, hipMemcpy, hipMemcpyWithStream, ...,
**     or an asynchronous one whose copy reads or writes pageable memory), allocator_churn
**     (inside a device malloc/free), then host_other where T launched nothing for more
**     than 1 ms (FA_HOST_GAP_NS: a launch costs microseconds of host time; a millisecond
**     without one is host work of another kind) -- but where a communication kernel of
**     this rank runs meanwhile, T is taken to wait for it (Work.wait(), a stream
**     dependency): FA-4's parts --, else gpu_waits_for_host (T was issuing work; the
**     GPU drains faster). K without a launch: FA-4's parts, else unexplained.
**     After the trace's last compute work there is no K: the thread that launched that
**     work is asked, and nothing is issued.
**  6. The causal exception: a sync, blocking copy or device malloc/free S of T (cudaFree
**     and hipFree synchronize the device) that began while the GPU had
**     work (busy, or its next work already issued) drained that lead; the not-issued idle after S that FA-5
**     would call gpu_waits_for_host or host_other is S's cost instead, until the host is
**     ahead again (a compute work item whose launch returned before the work before it
**     ended) or the step ends. A chain of such calls (three pageable copies in a row, the
**     later ones starting on the queue the first drained) is charged to the first. A sync that only waits while the GPU is busy costs
**     nothing: busy time is never idle.
**  7. Charges: each piece of idle time is charged to the host call (sync, copy,
**     allocation, DataLoader span, the launch of K) or the communication kernel that
**     explains it, per step, for the rules' evidence; before_trace and unexplained time
**     to the launch of K, the work that waited (0 when it has none).
**  8. Per step: of N >= 3 analysed steps, a step is an outlier when its length is more
**     than 3x the median step, or one part's time more than 3x that part's median and
**     above 1% of the median step; when more than half the steps are outliers, none is.
**     The per-step figures are the means over the other (typical) steps: robust to a
**     warm-up step like a median, and additive (a sum of medians can exceed the median
**     of the sums, which would break "the causes add up to at most the idle time").
**
** HOW IT WORKS: per trace, the GPU rows (hta_gpu_load, launches and their threads) and
** one scan of the trace's host rows named in the span classes; spans are merged per
** class and thread and found by binary search; each idle interval is cut into pieces
** that each part claims in priority order.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fd_account.h"
#include "findings/fd_comm.h"
#include "tb/tb_tree.h" /* tb_name_flags: the DataLoader's span names (TBR-1) */
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FA_HOST_GAP_NS 1000000     /* FA-5 */
#define FA_OUTLIER 3.0             /* FA-8 */
#define FA_BEFORE_TRACE_NS 1000000 /* FA-4 */

const char *fd_part_rule(int p) {
  static const char *const names[FD_NPART] = {
      "dataloader",      "host_sync",       "blocking_copy",         "allocator_churn",
      "waits_for_ranks", "pipeline_bubble", "exposed_communication", "gpu_waits_for_host",
      "host_other",      "warmup",          "before_trace",          "unexplained"};
  return p >= 0 && p < FD_NPART ? names[p] : "?";
}

/* ---------------------------------------------------------------- host spans */

/* Span classes, in FA-5's priority order. */
enum { FA_WARMUP, FA_LOADER, FA_SYNC, FA_COPY, FA_ALLOC, FA_NCLS };
static const int faPartOf[FA_NCLS] = {FD_P_WARMUP, FD_P_DATALOADER, FD_P_HOST_SYNC,
                                      FD_P_BLOCKING_COPY, FD_P_ALLOCATOR};

static const char *const faSync[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize",      "cuStreamSynchronize",   "cuEventSynchronize",
    "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",
};
static const char *const faCopy[] = {
    "cudaMemcpy",           "cudaMemcpy2D",        "cudaMemcpy3D",    "cudaMemcpyToSymbol",
    "cudaMemcpyFromSymbol", "cudaMemcpyPeer",      "cuMemcpy",        "cuMemcpyDtoH",
    "cuMemcpyHtoD",         "cuMemcpyDtoH_v2",     "cuMemcpyHtoD_v2", "hipMemcpy",
    "hipMemcpyWithStream",  "hipMemcpyDtoH",       "hipMemcpyHtoD",   "hipMemcpy2D",
    "hipMemcpyToSymbol",    "hipMemcpyFromSymbol", "hipMemcpyPeer",
};
static const char *const faAlloc[] = {
    "cudaMalloc",      "cudaMallocHost",   "cudaHostAlloc",  "cudaMallocManaged",
    "cudaMallocAsync", "cudaMallocPitch",  "hipMalloc",      "hipHostMalloc",
    "hipMallocHost",   "hipMallocManaged", "hipMallocAsync", "hipExtMallocWithFlags",
    "cudaFree",        "cudaFreeHost",     "cudaFreeAsync",  "hipFree",
    "hipHostFree",     "hipFreeHost",      "hipFreeAsync",   "cuMemAlloc_v2",
    "cuMemFree_v2",
};
static const char *const faWarmup[] = {
    "cuModuleLoad",      "cuModuleLoadData",    "cuModuleLoadDataEx",   "cuModuleLoadFatBinary",
    "cuLibraryLoadData", "cuModuleGetFunction", "cuLibraryGetKernel",   "hipModuleLoad",
    "hipModuleLoadData", "hipModuleLoadDataEx", "hipModuleGetFunction",
};

typedef struct fa_name { /* a host name of a span class */
  int32_t id;
  int cls;
} fa_name;

typedef struct fa_span {
  int64_t tid, ts, end, id; /* id: the (first) call's event_id */
  int cls;
} fa_span;

static int faNameCmp(const void *a, const void *b) {
  const fa_name *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int faSpanCmp(const void *a, const void *b) {
  const fa_span *x = a, *y = b;
  if (x->cls != y->cls) return x->cls - y->cls;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* ---------------------------------------------------------------- the run's tables */

typedef struct fa_comm { /* a communication kernel of hta_collectives */
  int64_t event_id, wait_ns;
  int p2p; /* a send / recv: no rank waits for all others */
} fa_comm;

typedef struct fa_run {
  hta_classifier *cls;
  fa_name *names; /* the span classes' name ids, by id */
  size_t nnames;
  char *idlist;  /* the ids as SQL text, NULL when none */
  fa_comm *comm; /* by event_id */
  size_t ncomm;
  int32_t cat_kernel[4]; /* category ids named kernel (any case) */
} fa_run;

static int faAddNames(fa_run *r, sqlite3 *db, const char *schema, const char *const *names,
                      size_t n, int cls, size_t *cap) {
  int32_t ids[32];
  int rc = hta_string_ids(db, schema, names, n, ids);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    if (ids[i] < 0) continue;
    fa_name v = {ids[i], cls};
    HTA_PUSH(r->names, r->nnames, *cap, 16, v, fa_names_oom);
  }
  return rc;
fa_names_oom:
  return SQLITE_NOMEM;
}

/* 1 when kernel NAME is a communication kernel (FA-1: COL-1's rule). */
static int faIsComm(const char *name) {
  static const char *const pat[] = {"nccl", "rccl", "cross_device_reduce"};
  if (!name) return 0;
  for (size_t k = 0; k < 3; k++) {
    size_t n = strlen(pat[k]);
    for (const char *p = name; *p; p++)
      if (!sqlite3_strnicmp(p, pat[k], (int)n)) return 1;
  }
  return 0;
}

static int faCommCmp(const void *a, const void *b) {
  const fa_comm *x = a, *y = b;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

static int faRunOpen(fd_ctx *x, fa_run *r) {
  sqlite3_stmt *st = 0;
  size_t cap = 0, ccap = 0;
  int rc;
  memset(r, 0, sizeof *r);
  for (int k = 0; k < 4; k++) r->cat_kernel[k] = -1;
  rc = hta_classifier_open(x->db, x->schema, &r->cls);
  if (rc == SQLITE_OK) rc = faAddNames(r, x->db, x->schema, faWarmup, 11, FA_WARMUP, &cap);
  if (rc == SQLITE_OK) rc = faAddNames(r, x->db, x->schema, faSync, 9, FA_SYNC, &cap);
  if (rc == SQLITE_OK) rc = faAddNames(r, x->db, x->schema, faCopy, 19, FA_COPY, &cap);
  if (rc == SQLITE_OK) rc = faAddNames(r, x->db, x->schema, faAlloc, 21, FA_ALLOC, &cap);
  if (rc == SQLITE_OK) /* FA-5: the DataLoader's spans (the plugin's names, TBR-1) */
    rc = hta_prepare(x->db, x->schema,
                     "SELECT string_id, value FROM $S.string WHERE value LIKE 'enumerate(Data%'",
                     &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    if (!(tb_name_flags((const char *)sqlite3_column_text(st, 1)) & TB_N_DATALOADER)) continue;
    fa_name v = {(int32_t)sqlite3_column_int64(st, 0), FA_LOADER};
    HTA_PUSH(r->names, r->nnames, cap, 16, v, fa_oom);
  }
  rc = fd_done(st, rc);
  st = 0;
  if (rc == SQLITE_OK && r->nnames) {
    sqlite3_str *s = sqlite3_str_new(0);
    qsort(r->names, r->nnames, sizeof *r->names, faNameCmp);
    for (size_t i = 0; i < r->nnames; i++) sqlite3_str_appendf(s, i ? ",%d" : "%d", r->names[i].id);
    if (!(r->idlist = sqlite3_str_finish(s))) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->schema,
                     "SELECT category_id FROM $S.category WHERE lower(name) = 'kernel' LIMIT 4",
                     &st);
  for (int k = 0; rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW; k++) {
    rc = SQLITE_OK;
    r->cat_kernel[k] = (int32_t)sqlite3_column_int64(st, 0);
  }
  rc = fd_done(st, rc);
  st = 0;
  /* FA-4: the waits of the job's collectives (fd_comm.c) */
  const coll_job *j = 0;
  if (rc == SQLITE_OK) rc = fd_comm(x, &j);
  for (size_t i = 0; rc == SQLITE_OK && j && i < j->nk; i++) {
    const coll_kernel *k = &j->k[i];
    fa_comm v = {k->event_id, k->wait > 0 ? k->wait : 0, fd_comm_p2p(k)};
    HTA_PUSH(r->comm, r->ncomm, ccap, 64, v, fa_oom);
  }
  if (r->ncomm) qsort(r->comm, r->ncomm, sizeof *r->comm, faCommCmp);
  return rc;
fa_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

static void faRunClose(fa_run *r) {
  hta_classifier_free(r->cls);
  sqlite3_free(r->names);
  sqlite3_free(r->idlist);
  sqlite3_free(r->comm);
}

static int faClassOf(const fa_run *r, int64_t id) {
  size_t lo = 0, hi = r->nnames;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->names[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < r->nnames && r->names[lo].id == id ? r->names[lo].cls : -1;
}

static const fa_comm *faCommOf(const fa_run *r, int64_t event_id) {
  size_t lo = 0, hi = r->ncomm;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->comm[mid].event_id < event_id) lo = mid + 1;
    else hi = mid;
  }
  return lo < r->ncomm && r->comm[lo].event_id == event_id ? &r->comm[lo] : 0;
}

/* ---------------------------------------------------------------- one trace */

typedef struct fa_work { /* a compute stream's kernel, copy or memset (FA-2) */
  int64_t ts, end, launch_end, tid, launch_id;
  int is_kernel, has_launch;
  int ahead; /* launched before the work before it ended (FA-6) */
} fa_work;

typedef struct fa_comm_iv { /* a piece of a communication kernel (FA-4) */
  int64_t start, end, id;
  int part; /* waits_for_ranks, pipeline_bubble, exposed_communication */
} fa_comm_iv;

typedef struct fa_launch { /* a launch call: its thread and time */
  int64_t tid, ts, end;
} fa_launch;

typedef struct fa_trace {
  fd_unit *u;
  fa_work *w; /* by ts */
  size_t nw;
  int64_t *wts;   /* w[i].ts, for binary search */
  int *ahead_sum; /* prefix counts of w[].ahead: ahead_sum[i] = ahead among w[0..i) */
  hta_iv *busy;   /* merged */
  size_t nbusy;
  fa_comm_iv *cm; /* by part, then start; each part's pieces merged */
  size_t ncm, cm_at[3];
  fa_span *sp; /* by (cls, tid, ts), merged per (cls, tid) */
  size_t nsp;
  fa_launch *ln; /* by (tid, ts) */
  size_t nln;
  int64_t first_gpu; /* the start of the trace's first GPU work, any stream (FA-4) */
  fd_acct *a;
  size_t cap_ch;
} fa_trace;

static int faWorkCmp(const void *a, const void *b) {
  const fa_work *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

static int faLaunchCmp(const void *a, const void *b) {
  const fa_launch *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int faCmIvCmp(const void *a, const void *b) {
  const fa_comm_iv *x = a, *y = b;
  if (x->part != y->part) return x->part - y->part;
  return x->start < y->start ? -1 : x->start > y->start;
}

static int faI64Cmp(const void *a, const void *b) { return hta_i64_cmp(a, b); }

/* Records NS of part P in step S charged to event ID (FA-7). */
static int faCharge(fa_trace *tr, long s, int p, int64_t id, int64_t ns) {
  fd_acct *a = tr->a;
  if (ns <= 0) return SQLITE_OK;
  a->part[s][p] += ns;
  if (a->nch && a->ch[a->nch - 1].part == p && a->ch[a->nch - 1].event_id == id &&
      a->ch[a->nch - 1].step == (int)s) {
    a->ch[a->nch - 1].ns += ns;
    return SQLITE_OK;
  }
  fd_charge c = {id, ns, p, (int)s};
  HTA_PUSH(a->ch, a->nch, tr->cap_ch, 64, c, fa_charge_oom);
  return SQLITE_OK;
fa_charge_oom:
  return SQLITE_NOMEM;
}

/* The spans of class CLS on thread TID: [*lo, *hi) of tr->sp. */
static void faSpanRange(const fa_trace *tr, int cls, int64_t tid, size_t *lo, size_t *hi) {
  size_t a = 0, b = tr->nsp;
  while (a < b) { /* first (cls, tid) >= the key */
    size_t m = a + (b - a) / 2;
    const fa_span *s = &tr->sp[m];
    if (s->cls < cls || (s->cls == cls && s->tid < tid)) a = m + 1;
    else b = m;
  }
  *lo = a;
  b = a;
  while (b < tr->nsp && tr->sp[b].cls == cls && tr->sp[b].tid == tid) b++;
  *hi = b;
}

/* The first span of [lo, hi) (merged, so ends ascend) ending after T. */
static size_t faSpanFrom(const fa_trace *tr, size_t lo, size_t hi, int64_t t) {
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (tr->sp[m].end <= t) lo = m + 1;
    else hi = m;
  }
  return lo;
}

/* A list of pieces of idle time still unclaimed. */
typedef struct fa_pieces {
  hta_iv *a;
  size_t n, cap;
} fa_pieces;

static int faPiecePush(fa_pieces *p, int64_t s, int64_t e) {
  if (e <= s) return SQLITE_OK;
  hta_iv v = {s, e};
  HTA_PUSH(p->a, p->n, p->cap, 8, v, fa_piece_oom);
  return SQLITE_OK;
fa_piece_oom:
  return SQLITE_NOMEM;
}

/* Claims the parts of IN covered by the merged spans [lo, hi) for part P (CLAIM:
** charge them; 0: only cut them out), leaving the rest in OUT. */
typedef int (*fa_claim_fn)(fa_trace *tr, long s, const fa_span *sp, int64_t a, int64_t b,
                           void *ctx);

static int faCut(fa_trace *tr, long s, fa_pieces *in, fa_pieces *out, const fa_span *sp, size_t lo,
                 size_t hi, fa_claim_fn claim, void *ctx) {
  int rc = SQLITE_OK;
  out->n = 0;
  for (size_t i = 0; rc == SQLITE_OK && i < in->n; i++) {
    int64_t a = in->a[i].start, b = in->a[i].end;
    for (size_t k = faSpanFrom(tr, lo, hi, a); rc == SQLITE_OK && k < hi && sp[k].ts < b; k++) {
      int64_t x = sp[k].ts > a ? sp[k].ts : a, y = sp[k].end < b ? sp[k].end : b;
      if (x > a) rc = faPiecePush(out, a, x);
      if (rc == SQLITE_OK && y > x) rc = claim(tr, s, &sp[k], x, y, ctx);
      a = y;
    }
    if (rc == SQLITE_OK) rc = faPiecePush(out, a, b);
  }
  return rc;
}

/* ---- the claims */

typedef struct fa_claim_ctx {
  int part;
} fa_claim_ctx;

static int faClaimSpan(fa_trace *tr, long s, const fa_span *sp, int64_t a, int64_t b, void *ctx) {
  return faCharge(tr, s, ((fa_claim_ctx *)ctx)->part, sp->id, b - a);
}

/* Communication pieces of part P in [a, b), charged; the rest into REST (FA-4). */
static int faClaimComm(fa_trace *tr, long s, int64_t a, int64_t b, fa_pieces *rest) {
  fa_pieces cur = {0, 0, 0}, nxt = {0, 0, 0};
  int rc = faPiecePush(&cur, a, b);
  for (int p = 0; rc == SQLITE_OK && p < 3; p++) {
    size_t lo = tr->cm_at[p], hi = p < 2 ? tr->cm_at[p + 1] : tr->ncm;
    nxt.n = 0;
    for (size_t i = 0; rc == SQLITE_OK && i < cur.n; i++) {
      int64_t x0 = cur.a[i].start, x1 = cur.a[i].end;
      size_t l = lo, h = hi; /* first piece ending after x0 (merged: ends ascend) */
      while (l < h) {
        size_t m = l + (h - l) / 2;
        if (tr->cm[m].end <= x0) l = m + 1;
        else h = m;
      }
      for (size_t k = l; rc == SQLITE_OK && k < hi && tr->cm[k].start < x1; k++) {
        int64_t y0 = tr->cm[k].start > x0 ? tr->cm[k].start : x0;
        int64_t y1 = tr->cm[k].end < x1 ? tr->cm[k].end : x1;
        if (y0 > x0) rc = faPiecePush(&nxt, x0, y0);
        if (rc == SQLITE_OK) rc = faCharge(tr, s, tr->cm[k].part, tr->cm[k].id, y1 - y0);
        x0 = y1;
      }
      if (rc == SQLITE_OK) rc = faPiecePush(&nxt, x0, x1);
    }
    fa_pieces t = cur;
    cur = nxt;
    nxt = t;
  }
  for (size_t i = 0; rc == SQLITE_OK && i < cur.n; i++)
    rc = faPiecePush(rest, cur.a[i].start, cur.a[i].end);
  sqlite3_free(cur.a);
  sqlite3_free(nxt.a);
  return rc;
}

/* A sync span: while a communication kernel runs, it waits for that collective (FA-5). */
static int faClaimSync(fa_trace *tr, long s, const fa_span *sp, int64_t a, int64_t b, void *ctx) {
  fa_pieces rest = {0, 0, 0};
  int rc = faClaimComm(tr, s, a, b, &rest);
  for (size_t i = 0; rc == SQLITE_OK && i < rest.n; i++)
    rc = faCharge(tr, s, FD_P_HOST_SYNC, sp->id, rest.a[i].end - rest.a[i].start);
  (void)ctx;
  sqlite3_free(rest.a);
  return rc;
}

/* 1 when the GPU had work at T: busy, or the next work already issued (FA-6: a lead). */
static int faLeadAt(const fa_trace *tr, int64_t t) {
  size_t lo = 0, hi = tr->nbusy;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (tr->busy[m].end <= t) lo = m + 1;
    else hi = m;
  }
  if (lo < tr->nbusy && tr->busy[lo].start <= t) return 1;
  lo = 0, hi = tr->nw;
  while (lo < hi) { /* the first work starting after t */
    size_t m = lo + (hi - lo) / 2;
    if (tr->wts[m] <= t) lo = m + 1;
    else hi = m;
  }
  return lo < tr->nw && tr->w[lo].has_launch && tr->w[lo].launch_end <= t;
}

/* The number of work items starting in [x, y) that found the host ahead (FA-6). */
static int faAheadIn(const fa_trace *tr, int64_t x, int64_t y) {
  size_t lo = 0, hi = tr->nw, a, b;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (tr->wts[m] < x) lo = m + 1;
    else hi = m;
  }
  a = lo;
  hi = tr->nw;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (tr->wts[m] < y) lo = m + 1;
    else hi = m;
  }
  b = lo;
  return tr->ahead_sum[b] - tr->ahead_sum[a];
}

/* FA-6: the sync, blocking copy or allocation call of thread TID that drained the lead before
** time T in step S (NULL when none). */
static const fa_span *faDrain(const fa_trace *tr, const fd_step *st, int64_t tid, int64_t t) {
  int64_t before = t;
  for (int hop = 0; hop < 64; hop++) { /* back along a chain of such calls */
    const fa_span *best = 0;
    for (int cls = FA_SYNC; cls <= FA_ALLOC; cls++) {
      size_t lo, hi;
      faSpanRange(tr, cls, tid, &lo, &hi);
      size_t k = faSpanFrom(tr, lo, hi, before); /* spans before k end at or before it */
      if (k > lo && (!best || tr->sp[k - 1].end > best->end)) best = &tr->sp[k - 1];
    }
    if (!best || best->end < st->start) return 0;  /* a drain ends with its step */
    if (faAheadIn(tr, best->end, t) > 0) return 0; /* the host got ahead again */
    if (faLeadAt(tr, best->ts)) return best;       /* it drained the lead */
    before = best->ts; /* it began on a drained queue: the call before it may have drained it */
  }
  return 0;
}

/* Not-issued time [a, b) on thread TID that no span claimed: host_other where TID
** launched nothing for FA_HOST_GAP_NS, else gpu_waits_for_host (FA-5), charged to K's
** launch LAUNCH_ID. */
static int faHostTime(fa_trace *tr, long s, int64_t tid, int64_t a, int64_t b, int64_t launch_id) {
  size_t lo = 0, hi = tr->nln;
  int rc = SQLITE_OK;
  while (lo < hi) { /* the first launch of tid starting at or after a */
    size_t m = lo + (hi - lo) / 2;
    const fa_launch *l = &tr->ln[m];
    if (l->tid < tid || (l->tid == tid && l->ts < a)) lo = m + 1;
    else hi = m;
  }
  size_t k = lo; /* the launch at or after x; k - 1 (same thread) the one before */
  if (k > 0 && tr->ln[k - 1].tid == tid && tr->ln[k - 1].end > a) k--; /* a is inside it */
  int64_t x = a;
  while (rc == SQLITE_OK && x < b) {
    int have = k < tr->nln && tr->ln[k].tid == tid;
    if (have && tr->ln[k].ts <= x) { /* inside a launch call: issuing work */
      int64_t y = tr->ln[k].end < b ? tr->ln[k].end : b;
      if (y > x) rc = faCharge(tr, s, FD_P_GPU_WAITS_FOR_HOST, launch_id, y - x);
      if (y > x) x = y;
      k++;
      continue;
    }
    int64_t prev = k > 0 && tr->ln[k - 1].tid == tid ? tr->ln[k - 1].end : INT64_MIN;
    int64_t next = have ? tr->ln[k].ts : INT64_MAX, y = next < b ? next : b;
    int other = prev == INT64_MIN || next == INT64_MAX || hta_sub_sat(next, prev) > FA_HOST_GAP_NS;
    if (other) { /* a thread silent while a collective of its rank runs waits for it */
      fa_pieces rest = {0, 0, 0};
      rc = faClaimComm(tr, s, x, y, &rest);
      for (size_t i = 0; rc == SQLITE_OK && i < rest.n; i++)
        rc = faCharge(tr, s, FD_P_HOST_OTHER, launch_id, rest.a[i].end - rest.a[i].start);
      sqlite3_free(rest.a);
    } else {
      rc = faCharge(tr, s, FD_P_GPU_WAITS_FOR_HOST, launch_id, y - x);
    }
    x = y;
  }
  return rc;
}

/* FA-3..6: one idle interval [a, b) of step S. */
static int faIdle(fa_trace *tr, long s, int64_t a, int64_t b) {
  const fd_step *st = &tr->u->steps[s];
  size_t lo = 0, hi = tr->nw;
  int rc = SQLITE_OK;
  while (lo < hi) { /* K: the first work starting at or after b */
    size_t m = lo + (hi - lo) / 2;
    if (tr->wts[m] < b) lo = m + 1;
    else hi = m;
  }
  const fa_work *k = lo < tr->nw ? &tr->w[lo] : 0;
  /* the thread to ask: K's launcher; after the trace's last work, the last one's */
  const fa_work *asker = k                                    ? (k->has_launch ? k : 0)
                         : lo > 0 && tr->w[lo - 1].has_launch ? &tr->w[lo - 1]
                                                              : 0;
  int64_t tid = asker ? asker->tid : INT64_MIN, launch = k && asker ? k->launch_id : 0;
  int64_t q = b; /* [a, q) not issued, [q, b) issued */
  if (k && k->has_launch) q = k->launch_end < a ? a : k->launch_end > b ? b : k->launch_end;
  if (!asker) q = a; /* no thread to ask: FA-4 only */
  fa_pieces rest = {0, 0, 0};
  if (q < b) { /* FA-4: issued */
    fa_pieces held = {0, 0, 0};
    rc = faClaimComm(tr, s, q, b, &rest);
    for (int cls = FA_COPY; rc == SQLITE_OK && asker && cls <= FA_ALLOC; cls++) {
      size_t l, h; /* FA-4: a copy or allocation call that holds the queued work */
      fa_claim_ctx cc = {faPartOf[cls]};
      faSpanRange(tr, cls, tid, &l, &h);
      if (l == h) continue;
      rc = faCut(tr, s, &rest, &held, tr->sp, l, h, faClaimSpan, &cc);
      fa_pieces t = rest;
      rest = held;
      held = t;
    }
    sqlite3_free(held.a);
    int before = k && k->has_launch && b <= tr->first_gpu &&
                 hta_sub_sat(b, k->launch_end) > FA_BEFORE_TRACE_NS; /* FA-4 */
    int part = before ? FD_P_BEFORE_TRACE : FD_P_UNEXPLAINED;
    for (size_t i = 0; rc == SQLITE_OK && i < rest.n; i++) /* FA-7: to the waiting work's launch */
      rc = faCharge(tr, s, part, launch, rest.a[i].end - rest.a[i].start);
  }
  sqlite3_free(rest.a);
  if (rc != SQLITE_OK || q <= a) return rc;
  /* FA-5: not issued, by what thread T did */
  fa_pieces cur = {0, 0, 0}, nxt = {0, 0, 0};
  rc = faPiecePush(&cur, a, q);
  for (int cls = 0; rc == SQLITE_OK && cls < FA_NCLS && cur.n; cls++) {
    size_t l, h;
    fa_claim_ctx cc = {faPartOf[cls]};
    faSpanRange(tr, cls, tid, &l, &h);
    if (l == h) continue;
    rc = faCut(tr, s, &cur, &nxt, tr->sp, l, h, cls == FA_SYNC ? faClaimSync : faClaimSpan, &cc);
    fa_pieces t = cur;
    cur = nxt;
    nxt = t;
  }
  for (size_t i = 0; rc == SQLITE_OK && i < cur.n; i++) { /* FA-6, then the host's own time */
    const fa_span *d = faDrain(tr, st, tid, cur.a[i].start);
    if (d) rc = faCharge(tr, s, faPartOf[d->cls], d->id, cur.a[i].end - cur.a[i].start);
    else rc = faHostTime(tr, s, tid, cur.a[i].start, cur.a[i].end, launch);
  }
  sqlite3_free(cur.a);
  sqlite3_free(nxt.a);
  return rc;
}

/* The GPU rows of U: compute work, communication pieces, launches (FA-1, FA-2, FA-4). */
static int faLoadGpu(fd_ctx *x, const fa_run *r, fa_trace *tr, fa_span **ps, size_t *pn,
                     size_t *pcap) {
  hta_gpu_rows g;
  int rc = hta_gpu_load(x->db, tr->u->t, r->cls, &g);
  int64_t *streams = 0;
  size_t ns = 0, cs = 0, cw = 0, cc = 0, cl = 0;
  fd_acct *a = tr->a;
  unsigned char *comm = 0;
  if (rc != SQLITE_OK) return rc;
  comm = sqlite3_malloc64(g.nnames ? g.nnames : 1);
  if (!comm) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) { /* FS-4: the steps reach the end of the GPU work they launched */
    int64_t *ls = sqlite3_malloc64((g.n ? g.n : 1) * sizeof *ls),
            *le = sqlite3_malloc64((g.n ? g.n : 1) * sizeof *le);
    size_t m = 0;
    for (size_t i = 0; ls && le && i < g.n; i++) {
      if (!g.a[i].link_id || !g.a[i].is_kernel_cat || g.a[i].dur <= 0) continue;
      ls[m] = g.a[i].launch_ts;
      le[m++] = hta_end(g.a[i].ts, g.a[i].dur);
    }
    if (ls && le) fd_steps_extend(tr->u, ls, le, m);
    else rc = SQLITE_NOMEM;
    sqlite3_free(ls);
    sqlite3_free(le);
  }
  for (size_t i = 0; rc == SQLITE_OK && i < g.nnames; i++)
    comm[i] = (unsigned char)faIsComm(g.names[i]);
  tr->first_gpu = INT64_MAX;
  for (size_t i = 0; i < g.n; i++)
    if (g.a[i].is_kernel_cat && g.a[i].ts < tr->first_gpu) tr->first_gpu = g.a[i].ts;
  for (size_t i = 0; rc == SQLITE_OK && i < g.n; i++) { /* FA-1 */
    const hta_gpu *e = &g.a[i];
    int is_k = 0;
    for (int c = 0; c < 4; c++) is_k |= r->cat_kernel[c] >= 0 && e->cat_id == r->cat_kernel[c];
    if (is_k && e->name_slot >= 0 && !comm[e->name_slot])
      HTA_PUSH(streams, ns, cs, 8, e->stream, fa_oom);
  }
  if (ns) qsort(streams, ns, sizeof *streams, faI64Cmp);
  for (size_t i = 0; i < ns; i++) { /* distinct */
    if (!a->nstreams || streams[a->nstreams - 1] != streams[i]) streams[a->nstreams++] = streams[i];
  }
  a->streams = streams;
  streams = 0;
  a->has_gpu = a->nstreams > 0;
  for (size_t i = 0; rc == SQLITE_OK && a->has_gpu && i < g.n; i++) {
    const hta_gpu *e = &g.a[i];
    int is_comm = e->name_slot >= 0 && comm[e->name_slot], is_k = 0;
    int64_t end = hta_end(e->ts, e->dur > 0 ? e->dur : 0);
    if (!e->is_kernel_cat || e->dur <= 0) continue;
    for (int c = 0; c < 4; c++) is_k |= r->cat_kernel[c] >= 0 && e->cat_id == r->cat_kernel[c];
    if (e->link_id) { /* every launch, for host_other (FA-5) */
      fa_launch l = {e->launch_tid, e->launch_ts, hta_end(e->launch_ts, e->launch_dur)};
      HTA_PUSH(tr->ln, tr->nln, cl, 256, l, fa_oom);
      if (!is_k && e->name_slot >= 0 && strstr(g.names[e->name_slot], "Pageable")) {
        fa_span sp = {e->launch_tid, e->launch_ts, l.end, e->link_id, FA_COPY}; /* FA-5 */
        HTA_PUSH(*ps, *pn, *pcap, 64, sp, fa_oom);
      }
    }
    if (is_comm && is_k) { /* FA-4 */
      const fa_comm *c = faCommOf(r, e->event_id);
      int64_t w = c ? (c->wait_ns < e->dur ? c->wait_ns : e->dur) : 0;
      fa_comm_iv v = {e->ts, hta_end(e->ts, w), e->event_id,
                      c && c->p2p ? FD_P_PIPELINE_BUBBLE : FD_P_WAITS_FOR_RANKS};
      if (v.end > v.start) HTA_PUSH(tr->cm, tr->ncm, cc, 64, v, fa_oom);
      fa_comm_iv t = {v.end, end, e->event_id, FD_P_EXPOSED_COMM};
      if (t.end > t.start) HTA_PUSH(tr->cm, tr->ncm, cc, 64, t, fa_oom);
      continue;
    }
    if (!bsearch(&e->stream, a->streams, a->nstreams, sizeof *a->streams, faI64Cmp)) continue;
    fa_work w = {
        e->ts,           end,        e->link_id ? hta_end(e->launch_ts, e->launch_dur) : INT64_MIN,
        e->launch_tid,   e->link_id, is_k,
        e->link_id != 0, 0};
    HTA_PUSH(tr->w, tr->nw, cw, 256, w, fa_oom);
    if (is_k && e->link_id) {
      a->launched++;
      if (e->dur < e->launch_dur) a->short_kernels++;
    }
    if (is_k) a->kernels++;
  }
  sqlite3_free(comm);
  hta_gpu_free(&g);
  return rc;
fa_oom:
  sqlite3_free(comm);
  sqlite3_free(streams);
  hta_gpu_free(&g);
  return SQLITE_NOMEM;
}

/* Sorts and merges the communication pieces per part (each part's list disjoint). */
static void faCommPrepare(fa_trace *tr) {
  size_t m = 0;
  if (tr->ncm) qsort(tr->cm, tr->ncm, sizeof *tr->cm, faCmIvCmp);
  for (size_t i = 0; i < tr->ncm; i++) {
    fa_comm_iv v = tr->cm[i];
    if (m && tr->cm[m - 1].part == v.part && v.start <= tr->cm[m - 1].end) {
      if (v.end > tr->cm[m - 1].end) tr->cm[m - 1].end = v.end;
      continue;
    }
    tr->cm[m++] = v;
  }
  tr->ncm = m;
  for (int p = 0; p < 3; p++) { /* where each part's pieces begin */
    int part = p == 0 ? FD_P_WAITS_FOR_RANKS : p == 1 ? FD_P_PIPELINE_BUBBLE : FD_P_EXPOSED_COMM;
    size_t k = 0;
    while (k < tr->ncm && tr->cm[k].part < part) k++;
    tr->cm_at[p] = k;
  }
}

/* The host spans of U: one scan of its rows named in the classes (FA-5). */
static int faLoadSpans(fd_ctx *x, const fa_run *r, fa_trace *tr, size_t *pcap) {
  sqlite3_stmt *st = 0;
  int rc = SQLITE_OK;
  if (r->idlist) {
    char *sql = sqlite3_mprintf(
        "SELECT event_id, name_id, ts, dur, tid FROM $S.event"
        " WHERE event_id BETWEEN ?1 AND ?2 AND stream IS NULL"
        " AND dur > 0 AND name_id IN (%s)",
        r->idlist);
    rc = sql ? hta_prepare(x->db, x->schema, sql, &st) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(st, 1, hta_trace_first_id(tr->u->trace_id));
      sqlite3_bind_int64(st, 2, hta_trace_last_id(tr->u->trace_id));
    }
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      rc = SQLITE_OK;
      int cls = faClassOf(r, sqlite3_column_int64(st, 1));
      int64_t ts = sqlite3_column_int64(st, 2);
      fa_span v = {hta_tid_key(sqlite3_column_value(st, 4)), ts,
                   hta_end(ts, sqlite3_column_int64(st, 3)), sqlite3_column_int64(st, 0), cls};
      if (cls < 0) continue;
      HTA_PUSH(tr->sp, tr->nsp, *pcap, 64, v, fa_oom);
    }
    rc = fd_done(st, rc);
  }
  if (rc != SQLITE_OK) return rc;
  size_t m = 0; /* merged per (cls, tid): ends ascend, the first call names the group */
  if (tr->nsp) qsort(tr->sp, tr->nsp, sizeof *tr->sp, faSpanCmp);
  for (size_t i = 0; i < tr->nsp; i++) {
    fa_span v = tr->sp[i];
    fa_span *p = m ? &tr->sp[m - 1] : 0;
    if (p && p->cls == v.cls && p->tid == v.tid && v.ts < p->end) {
      if (v.end > p->end) p->end = v.end;
      continue;
    }
    tr->sp[m++] = v;
  }
  tr->nsp = m;
  return SQLITE_OK;
fa_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

static int faDblCmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double faMedian(double *v, size_t n) {
  qsort(v, n, sizeof *v, faDblCmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double fd_typical_mean_us(const fd_unit *u, const int64_t *v, size_t stride) {
  double sum = 0;
  int64_t n = 0;
  for (size_t s = 0; s < u->nsteps; s++) {
    if (!u->steps[s].typical) continue;
    sum += (double)v[s * stride];
    n++;
  }
  return n ? sum / (double)n / 1000.0 : 0.0;
}

/* FA-8: marks U's outlier steps, then the means. */
static int faTypical(fd_unit *u, fd_acct *a) {
  size_t n = u->nsteps, nout = 0;
  double *v = sqlite3_malloc64((n ? n : 1) * sizeof *v), med_step, med;
  if (!v) return SQLITE_NOMEM;
  if (n >= 3) {
    for (size_t s = 0; s < n; s++) v[s] = (double)(u->steps[s].end - u->steps[s].start);
    med_step = faMedian(v, n);
    for (size_t s = 0; s < n; s++)
      if ((double)(u->steps[s].end - u->steps[s].start) > FA_OUTLIER * med_step)
        u->steps[s].typical = 0;
    for (int p = 0; a->has_gpu && p < FD_NPART; p++) {
      for (size_t s = 0; s < n; s++) v[s] = (double)a->part[s][p];
      med = faMedian(v, n);
      for (size_t s = 0; s < n; s++) {
        double c = (double)a->part[s][p];
        if (c > FA_OUTLIER * med && c - med > 0.01 * med_step) u->steps[s].typical = 0;
      }
    }
    for (size_t s = 0; s < n; s++) nout += !u->steps[s].typical;
    if (2 * nout > n)
      for (size_t s = 0; s < n; s++) u->steps[s].typical = 1;
  }
  sqlite3_free(v);
  u->ntypical = 0;
  u->nnumbers = 0;
  u->numbers = sqlite3_malloc64((n ? n : 1) * sizeof *u->numbers);
  if (!u->numbers) return SQLITE_NOMEM;
  int64_t *len = sqlite3_malloc64((n ? n : 1) * sizeof *len);
  if (!len) return SQLITE_NOMEM;
  for (size_t s = 0; s < n; s++) {
    len[s] = u->steps[s].end - u->steps[s].start;
    if (!u->steps[s].typical) continue;
    u->ntypical++;
    u->numbers[u->nnumbers++] = u->steps[s].number;
  }
  if (u->nnumbers) qsort(u->numbers, u->nnumbers, sizeof *u->numbers, faI64Cmp);
  u->step_us = fd_typical_mean_us(u, len, 1);
  sqlite3_free(len);
  a->step_us = u->step_us;
  if (a->has_gpu) {
    a->busy_us = fd_typical_mean_us(u, a->busy, 1);
    a->idle_us = fd_typical_mean_us(u, a->idle, 1);
    for (int p = 0; p < FD_NPART; p++)
      a->part_us[p] = fd_typical_mean_us(u, &a->part[0][p], FD_NPART);
    a->comm_overlap_us = fd_typical_mean_us(u, a->comm_overlap, 1);
  }
  return SQLITE_OK;
}

static int faChargeCmp(const void *pa, const void *pb) {
  const fd_charge *x = pa, *y = pb;
  if (x->part != y->part) return x->part - y->part;
  if (x->event_id != y->event_id) return x->event_id < y->event_id ? -1 : 1;
  return x->step - y->step;
}

/* The accounting of unit U into A. */
static int faTrace(fd_ctx *x, const fa_run *r, fd_unit *u, fd_acct *a) {
  fa_trace tr;
  size_t cap_sp = 0;
  int rc;
  memset(&tr, 0, sizeof tr);
  tr.u = u;
  tr.a = a;
  if (!fd_unit_wanted(x, u)) return faTypical(u, a); /* its steps only (a straggler's waits) */
  rc = faLoadGpu(x, r, &tr, &tr.sp, &tr.nsp, &cap_sp);
  if (rc == SQLITE_OK && a->has_gpu && u->nsteps) rc = faLoadSpans(x, r, &tr, &cap_sp);
  if (rc != SQLITE_OK || !a->has_gpu || !u->nsteps) goto fa_done;
  faCommPrepare(&tr);
  if (tr.nw) qsort(tr.w, tr.nw, sizeof *tr.w, faWorkCmp);
  if (tr.nln) qsort(tr.ln, tr.nln, sizeof *tr.ln, faLaunchCmp);
  tr.wts = sqlite3_malloc64((tr.nw ? tr.nw : 1) * sizeof *tr.wts);
  tr.ahead_sum = sqlite3_malloc64((tr.nw + 1) * sizeof *tr.ahead_sum);
  tr.busy = sqlite3_malloc64((tr.nw ? tr.nw : 1) * sizeof *tr.busy);
  a->busy = sqlite3_malloc64(u->nsteps * sizeof *a->busy);
  a->idle = sqlite3_malloc64(u->nsteps * sizeof *a->idle);
  a->part = sqlite3_malloc64(u->nsteps * sizeof *a->part);
  a->comm_overlap = sqlite3_malloc64(u->nsteps * sizeof *a->comm_overlap);
  if (!tr.wts || !tr.ahead_sum || !tr.busy || !a->busy || !a->idle || !a->part ||
      !a->comm_overlap) {
    rc = SQLITE_NOMEM;
    goto fa_done;
  }
  memset(a->part, 0, u->nsteps * sizeof *a->part);
  int64_t max_end = INT64_MIN;
  tr.ahead_sum[0] = 0;
  for (size_t i = 0; i < tr.nw; i++) { /* FA-6: was the host ahead at each work item? */
    fa_work *w = &tr.w[i];
    tr.wts[i] = w->ts;
    w->ahead = i > 0 && w->has_launch && w->launch_end <= max_end;
    tr.ahead_sum[i + 1] = tr.ahead_sum[i] + w->ahead;
    if (w->end > max_end) max_end = w->end;
    tr.busy[i] = (hta_iv){w->ts, w->end};
  }
  tr.nbusy = hta_iv_merge(tr.busy, tr.nw); /* FA-2 */
  for (size_t s = 0; rc == SQLITE_OK && s < u->nsteps; s++) {
    const fd_step *st = &u->steps[s];
    int64_t t = st->start;
    a->busy[s] = hta_iv_clip_length(tr.busy, tr.nbusy, st->start, st->end);
    a->idle[s] = (st->end - st->start) - a->busy[s];
    a->comm_overlap[s] = 0; /* the transfers under compute: what overlap already hides */
    for (size_t k = tr.cm_at[2]; k < tr.ncm; k++) {
      int64_t x0 = tr.cm[k].start > st->start ? tr.cm[k].start : st->start;
      int64_t x1 = tr.cm[k].end < st->end ? tr.cm[k].end : st->end;
      if (x1 > x0) a->comm_overlap[s] += hta_iv_clip_length(tr.busy, tr.nbusy, x0, x1);
    }
    size_t lo = 0, hi = tr.nbusy;
    while (lo < hi) { /* the first busy interval ending after the step's start */
      size_t m = lo + (hi - lo) / 2;
      if (tr.busy[m].end <= st->start) lo = m + 1;
      else hi = m;
    }
    for (size_t k = lo; rc == SQLITE_OK && t < st->end; k++) {
      int64_t b = k < tr.nbusy && tr.busy[k].start < st->end ? tr.busy[k].start : st->end;
      if (b > t) rc = faIdle(&tr, (long)s, t, b);
      if (k >= tr.nbusy || tr.busy[k].start >= st->end) break;
      t = tr.busy[k].end;
    }
    if (rc == SQLITE_OK && hta_interrupted(x->db)) rc = SQLITE_INTERRUPT;
  }
  if (rc == SQLITE_OK && a->nch) qsort(a->ch, a->nch, sizeof *a->ch, faChargeCmp);
fa_done:
  if (rc == SQLITE_OK) rc = faTypical(u, a);
  sqlite3_free(tr.w);
  sqlite3_free(tr.wts);
  sqlite3_free(tr.ahead_sum);
  sqlite3_free(tr.busy);
  sqlite3_free(tr.cm);
  sqlite3_free(tr.sp);
  sqlite3_free(tr.ln);
  return rc;
}

void fd_charges(const fd_acct *a, int p, size_t *lo, size_t *hi) {
  size_t l = 0, h = a->nch;
  while (l < h) {
    size_t m = l + (h - l) / 2;
    if (a->ch[m].part < p) l = m + 1;
    else h = m;
  }
  *lo = l;
  while (l < a->nch && a->ch[l].part == p) l++;
  *hi = l;
}

void fd_json_outliers(sqlite3_str *s, const fd_unit *u) {
  int n = 0;
  sqlite3_str_appendall(s, ",\"outlier_steps\":[");
  for (size_t k = 0; k < u->nsteps; k++) {
    if (u->steps[k].typical) continue;
    sqlite3_str_appendf(s, n++ ? ",%lld" : "%lld", (long long)u->steps[k].number);
  }
  sqlite3_str_appendchar(s, 1, ']');
}

void fd_cause_row(const fd_unit *u, const fd_acct *a, int p, double estimate, fd_row *row) {
  sqlite3_str *e = row->evidence;
  row->time_us = isnan(estimate) ? a->part_us[p] : estimate;
  sqlite3_str_appendall(e, "{\"idle_us\":");
  fd_json_num(e, a->part_us[p]);
  sqlite3_str_appendf(e, ",\"steps\":%lld", (long long)u->ntypical);
  fd_json_outliers(e, u);
  sqlite3_str_appendall(e, isnan(estimate) ? ",\"estimate\":false" : ",\"estimate\":true");
  if (u->ntypical < (int64_t)u->nsteps) {
    sqlite3_str *t = sqlite3_str_new(0);
    int n = 0;
    sqlite3_str_appendall(t,
                          "steps left out of the per-step figures (a time over 3x the median): ");
    for (size_t k = 0; k < u->nsteps; k++) {
      if (u->steps[k].typical) continue;
      sqlite3_str_appendf(t, n++ ? ", %lld" : "%lld", (long long)u->steps[k].number);
    }
    char *z = sqlite3_str_finish(t);
    fd_caveat(row, "outlier_steps", z);
    sqlite3_free(z);
  }
}

typedef struct fa_all {
  fd_acct *a;
  int n;
} fa_all;

static void faFree(void *p) {
  fa_all *all = p;
  for (int i = 0; i < all->n; i++) {
    fd_acct *a = &all->a[i];
    sqlite3_free(a->streams);
    sqlite3_free(a->busy);
    sqlite3_free(a->idle);
    sqlite3_free(a->part);
    sqlite3_free(a->comm_overlap);
    sqlite3_free(a->ch);
  }
  sqlite3_free(all->a);
  sqlite3_free(all);
}

int fd_account(fd_ctx *x, fd_acct **pa) {
  fa_all *all = fd_slot(x, FD_SLOT_ACCOUNT);
  fa_run r;
  int rc;
  if (all) {
    *pa = all->a;
    return SQLITE_OK;
  }
  *pa = 0;
  all = sqlite3_malloc64(sizeof *all);
  if (!all) return SQLITE_NOMEM;
  all->n = x->nu;
  all->a = sqlite3_malloc64((x->nu ? (size_t)x->nu : 1) * sizeof *all->a);
  if (!all->a) {
    sqlite3_free(all);
    return SQLITE_NOMEM;
  }
  memset(all->a, 0, (x->nu ? (size_t)x->nu : 1) * sizeof *all->a);
  fd_slot_set(x, FD_SLOT_ACCOUNT, all, faFree); /* freed with the run whatever happens */
  rc = faRunOpen(x, &r);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) rc = faTrace(x, &r, &x->u[i], &all->a[i]);
  faRunClose(&r);
  if (rc == SQLITE_OK) *pa = all->a;
  return rc;
}

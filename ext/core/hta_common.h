/*
** hta_common.h: what every analysis of hta.so shares (implemented once, in ext/).
**
**   traces.c     hta_traces_load(): the traces (ranks) an analysis runs over, the
**                job's time base, and the last-ProfilerStep cut (spec 1.13, D7).
**   gpu.c        hta_gpu_load(): one trace's GPU work rows with their kernel type.
**   steps.c      hta_steps_load(): a trace's steps: ProfilerSteps, else the
**                inference engine's iterations (engine_ann.c parses their names).
**   names.c      the string table: string ids of names, names of string ids.
**   classify.c   hta_classifier: kernel_type_rule read from the database (spec 1.16).
**   interval.c   interval union / merge (spec 2 "merge").
**   stats.c      pandas-compatible describe(): mean, sample std, linear quantiles;
**                HTA's "top kernels + others" aggregation (hta_topk_aggregate).
**   json_args.c  the top-level members of an args JSON text, by one scan.
**   big_alloc.c  hta_malloc_big(): large arrays, backed by huge pages where Linux can.
**   par.c        hta_par2(): two reads of one database at once, on two connections.
**   vtab_util.c  small helpers for eponymous table-valued functions and SQL
**                arguments, one-value queries, result tables (hta_table) and the
**                generic module (hta_tvf_register).
**
** Nothing here holds global mutable state: every object belongs to one call.
** All times are integer ns as stored; analyses convert to µs (REAL) on output.
*/
#ifndef HTA_COMMON_H
#define HTA_COMMON_H

#include <stddef.h>
#include <stdint.h>
#ifndef SQLITE_CORE
#include <sqlite3ext.h>
#else
#include <sqlite3.h>
#endif

/* ---------------------------------------------------------------- overflow-free ns arithmetic */
/* A database may hold any int64 ts and dur (written by SQL, or an older or hostile
** file), so an end (ts + dur), a difference of two times or a running sum of
** durations can leave int64. These saturate at INT64_MIN / INT64_MAX instead of
** overflowing (undefined behaviour); any result that fits is exact, so normal data
** gives unchanged results. */
static inline int64_t hta_add_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}
static inline int64_t hta_sub_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}
/* The end of an event: ts + dur, saturated. */
static inline int64_t hta_end(int64_t ts, int64_t dur) { return hta_add_sat(ts, dur); }

/* ---------------------------------------------------------------- scope */
/* Every analysis reads one database of the connection (SCHEMA: "main", or the name
** of an ATTACHed one, given by the hidden `schema` parameter: SQLite connects an
** eponymous table in "main" whatever it is qualified with) and one job of it
** (DESIGN 4). SQL text in ext/ names that database's tables as $S.name, and its
** profiled traces as $T: the trace table without the graph capture traces (table
** capture, stored beside their replays), which no analysis may take for a window of
** their rank. Only code that reads captures on purpose says $S.trace. */
typedef struct hta_scope {
  const char *schema; /* never NULL */
  int64_t job_id;
} hta_scope;

/* sqlite3_prepare_v2 of SQL with every "$S." replaced by the quoted SCHEMA and a dot, and
** every "$T" by the profiled traces of SCHEMA (a subquery on trace; plain trace in a
** database written before captures existed). */
int hta_prepare(sqlite3 *db, const char *schema, const char *sql, sqlite3_stmt **pp);

/* SQLITE_OK when SCHEMA is a database of the connection holding an hta-sqlite
** database with jobs; else SQLITE_ERROR and *pzErr = "FN: ..." (jobs.c, JOB-1). */
int hta_scope_check(sqlite3 *db, const char *fn, const char *schema, char **pzErr);

typedef struct hta_job {
  int64_t job_id;
  char *name; /* sqlite3_malloc'd; NULL when the trace rows name a missing job */
} hta_job;
/* The jobs of SCHEMA that hold traces, in job_id order; only the one named NAME when
** NAME is not NULL (JOB-2). Free with hta_jobs_free. */
int hta_jobs_load(sqlite3 *db, const char *schema, const char *name, hta_job **pa, size_t *pn);
void hta_jobs_free(hta_job *a, size_t n);

/* ---------------------------------------------------------------- kernel types */
/* Bits as HTA numbers them in the kernel-type breakdown (spec 2.2). */
#define HTA_KT_COMPUTATION 1
#define HTA_KT_COMMUNICATION 2
#define HTA_KT_MEMORY 4
#define HTA_KT_OTHER 8
#define HTA_KT_ANY 15 /* every type, as a mask */

typedef struct hta_classifier hta_classifier;

/* Reads SCHEMA's kernel_type_rule (ordered by priority). *pp is freed with hta_classifier_free. */
int hta_classifier_open(sqlite3 *db, const char *schema, hta_classifier **pp);
/* The HTA_KT_* type of NAME: first rule whose GLOB matches; OTHER when none does. */
int hta_classify(const hta_classifier *c, const char *name);
void hta_classifier_free(hta_classifier *c);
const char *hta_kernel_type_name(int kt); /* "COMPUTATION", ... */

/* HTA's memory kind (spec 1.16): "Memset", "Memcpy Unknown", or the first 11 chars.
** Writes at most 15 bytes + NUL into out. */
void hta_memory_kind(const char *name, char out[16]);

/* HTA's shorten_name (spec 1.7). Returns a sqlite3_malloc'd string, NULL on OOM. */
char *hta_shorten_name(const char *name, const hta_classifier *c);

/* ---------------------------------------------------------------- traces */
typedef struct hta_trace {
  const char *schema; /* the database it is in (hta_scope) */
  int64_t job_id;
  int64_t trace_id;
  int64_t rank;
  int64_t min_ts;  /* ns, this trace's earliest HTA-kept event */
  int64_t max_end; /* ns */
  int has_cut;     /* the last-ProfilerStep cut applies to this trace */
  int64_t cut_ts;  /* host rows with ts >= cut_ts are dropped (when has_cut) */
} hta_trace;

typedef struct hta_traces {
  hta_trace *a; /* ordered by (rank, trace_id) */
  int n;
  int64_t job_min_ts; /* min of min_ts over every trace of the job: series ts base */
  hta_scope scope;
} hta_traces;

/*
** Loads the traces, all of them or only those of RANK (has_rank != 0). A trace
** without any event HTA keeps (trace.min_ts NULL) is left out, as HTA drops an
** empty rank (spec 1.12).
** include_last_step != 0 disables the last-ProfilerStep cut (spec 1.13 with D7):
** the cut applies when the database holds >= 2 distinct host ProfilerStep numbers;
** then for each trace cut_ts = the start of its last step, or, when the trace has
** no step of its own, every host row is dropped (cut_ts = INT64_MIN) -- unless the
** trace has no host row at all, which HTA leaves unchanged (has_cut = 0).
*/
int hta_traces_load(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank,
                    int include_last_step, hta_traces *out);
void hta_traces_free(hta_traces *t);
/* The event_id range of trace TRACE_ID's rows (schema: event_id = trace_id << 32 |
** ordinal), for "event_id BETWEEN first AND last" over the rowid. */
int64_t hta_trace_first_id(int64_t trace_id);
int64_t hta_trace_last_id(int64_t trace_id);
/* Host rows with ts below this bound survive T's cut (INT64_MAX when it has none). */
int64_t hta_trace_cut_bound(const hta_trace *t);
/* Binds ?1 and ?2 of ST to T's event_id range and ?3 to its cut bound: the
** parameters of a scan over one trace's rows. */
void hta_bind_trace_scan(sqlite3_stmt *st, const hta_trace *t);

/* ---------------------------------------------------------------- steps */
/* Inference engines' iteration annotations (engine_ann.c, EA-n). */
enum { HTA_PHASE_NONE = 0, HTA_PHASE_PREFILL, HTA_PHASE_DECODE, HTA_PHASE_MIXED };
enum { HTA_ANN_NONE = 0, HTA_ANN_VLLM, HTA_ANN_SGLANG, HTA_ANN_ATOM, HTA_ANN_DIFFUSION };

typedef struct hta_engine_ann {
  int format;                         /* HTA_ANN_*; HTA_ANN_NONE: not an iteration annotation */
  int phase;                          /* HTA_PHASE_* */
  int detailed;                       /* carries the attention aggregates below */
  int64_t batch_size, tokens;         /* requests, query tokens; -1 unknown */
  int64_t ctx_requests, gen_requests; /* prefill (context) and decode (generation); -1 */
  int64_t ctx_tokens, gen_tokens;     /* -1 unknown */
  /* detailed forms: sums over the context (c_) and generation (g_) requests of N_Q
  ** (sq), N_KV (sk), N_Q^2 (sqsq) and N_Q * N_KV (sqsk); 0 otherwise */
  int64_t c_sq, c_sk, c_sqsq, c_sqsk, g_sq, g_sk, g_sqsq, g_sqsk;
} hta_engine_ann;

/* Parses NAME as an iteration annotation: 1 with *A filled, else 0 (*A cleared). */
int hta_engine_parse(const char *name, hta_engine_ann *a);
/* "prefill", "decode", "mixed"; NULL for HTA_PHASE_NONE. */
const char *hta_phase_name(int phase);
/* "vllm", "sglang", "atom", "diffusion"; NULL for HTA_ANN_NONE. */
const char *hta_engine_name(int format);

/* A trace's steps (steps.c, STP-n): its ProfilerSteps, else its engine iterations. */
enum { HTA_STEPS_NONE = 0, HTA_STEPS_PROFILER, HTA_STEPS_ENGINE };

typedef struct hta_step {
  int64_t number;   /* ProfilerStep#N: N; an engine step: its 0-based index in the trace */
  int64_t ts, end;  /* ns, the annotation's span */
  int64_t event_id; /* the annotation */
  int32_t name_id;
  hta_engine_ann ann; /* an engine step's annotation (format HTA_ANN_NONE for ProfilerSteps) */
} hta_step;

typedef struct hta_steps {
  hta_step *a; /* by (ts, event_id); sqlite3_malloc'd */
  size_t n;
  int source; /* HTA_STEPS_*: where they came from; NONE when there is none */
} hta_steps;

/* The steps of trace T (STP-1..4): with PHASE < 0, its ProfilerSteps that survive T's
** cut, else its engine steps, else none; with PHASE >= 0 (HTA_PHASE_*), only its
** engine steps of that phase. Free with hta_steps_free. */
int hta_steps_load(sqlite3 *db, const hta_trace *t, int phase, hta_steps *out);
/* Trace T's engine steps, every phase, whatever its ProfilerSteps (STP-2, STP-3). */
int hta_engine_steps_load(sqlite3 *db, const hta_trace *t, hta_steps *out);
void hta_steps_free(hta_steps *s);
/* The step of S whose span holds TS (the last one starting at or before it); -1. */
long hta_steps_find(const hta_steps *s, int64_t ts);

/* ---------------------------------------------------------------- GPU rows */
typedef struct hta_gpu {
  int64_t event_id;
  int64_t seq;     /* position in traceEvents */
  int64_t ts, dur; /* ns */
  int64_t stream;
  int64_t correlation; /* -1 when absent */
  int64_t link_id;     /* 0 when absent */
  int64_t launch_ts;   /* ts of the linked host row; INT64_MIN when none */
  int64_t launch_dur;
  int32_t launch_name_id; /* name_id of the linked host row; -1 when none */
  int64_t launch_tid;     /* hta_tid_key of the linked host row's tid; INT64_MIN when none */
  int32_t name_id;        /* -1 when the event has no name */
  int32_t cat_id;
  int32_t name_slot; /* index of the name in hta_gpu_rows.names / name_ids */
  int kernel_type;   /* HTA_KT_* */
  int is_kernel_cat; /* cat in kernel/gpu_memcpy/gpu_memset and legacy spellings, mtia_ccp_events */
} hta_gpu;

typedef struct hta_gpu_rows {
  hta_gpu *a; /* in seq (file) order */
  size_t n;
  /* name_id -> string, for the names present (sqlite3_malloc'd) */
  char **names;      /* indexed by name slot; see hta_gpu_name() */
  int32_t *name_ids; /* ascending; name_ids[slot] */
  size_t nnames;
} hta_gpu_rows;

/*
** Loads the GPU work rows (event.stream IS NOT NULL) of trace T, applying the
** last-ProfilerStep cut of T (a GPU row stays when its linked host row stays;
** a GPU row without correlation stays when its own ts < cut_ts).
** Returns SQLITE_OK, SQLITE_NOMEM, SQLITE_INTERRUPT or an SQLite error.
*/
int hta_gpu_load(sqlite3 *db, const hta_trace *t, const hta_classifier *c, hta_gpu_rows *out);
/* The same rows for a caller that reads no launch_* field: of a trace without the cut,
** read from the covering index alone, launch_* unset and link_id as recorded (it may
** name no row: a dangling link). With the cut, hta_gpu_load itself. */
int hta_gpu_load_bare(sqlite3 *db, const hta_trace *t, const hta_classifier *c, hta_gpu_rows *out);
/* 1 when category NAME is GPU work proper (hta_gpu.is_kernel_cat): kernels, copies and
** memsets in Kineto's and the legacy spellings, and MTIA's mtia_ccp_events. */
int hta_is_kernel_category(const char *name);
const char *hta_gpu_name(const hta_gpu_rows *g, int32_t name_id);
void hta_gpu_free(hta_gpu_rows *g);
/* Loads the traces (hta_traces_load arguments) and calls FN once per trace, in
** (rank, trace_id) order, with its GPU rows (possibly none); one classifier is
** opened for all. Stops at the first non-OK return of FN and returns it, or with
** SQLITE_INTERRUPT when the connection is interrupted between two traces. */
int hta_gpu_foreach(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank,
                    int include_last_step,
                    int (*fn)(void *ctx, const hta_trace *t, const hta_gpu_rows *g), void *ctx);

/* ---------------------------------------------------------------- intervals */
typedef struct hta_iv {
  int64_t start, end; /* ns, half-open */
} hta_iv;

/* Sorts by start and merges overlapping or touching intervals in place (spec 2 merge);
** returns the number of merged intervals. */
size_t hta_iv_merge(hta_iv *iv, size_t n);
/* The merged intervals [ts, ts + dur) of G's rows whose kernel_type is in TYPES (a mask
** of HTA_KT_*) into OUT, which has room for g->n; returns their number (gpu.c). */
size_t hta_gpu_merged(const hta_gpu_rows *g, int types, hta_iv *out);
/* Sum of (end - start) over already merged intervals. */
int64_t hta_iv_length(const hta_iv *iv, size_t n);
/* Sweeps NLISTS (<= HTA_IV_MAXLISTS) merged lists together: out[mask] (1 << nlists
** entries, zeroed by the caller) gains the time during which exactly the lists in
** MASK are active. All changes at one instant apply together, so a state that
** lasts zero time gets nothing. Returns SQLITE_OK or SQLITE_NOMEM. */
#define HTA_IV_MAXLISTS 8
int hta_iv_sweep(hta_iv *const *lists, const size_t *counts, int nlists, int64_t *out);
/* A ∩ B and A − B of two merged lists into OUT (room for na + nb); returns the number
** of pieces, each of positive length, in order (IV-4). */
size_t hta_iv_intersect(const hta_iv *a, size_t na, const hta_iv *b, size_t nb, hta_iv *out);
size_t hta_iv_subtract(const hta_iv *a, size_t na, const hta_iv *b, size_t nb, hta_iv *out);
/* The length of merged list IV inside [start, end) (binary search; IV-4). */
int64_t hta_iv_clip_length(const hta_iv *iv, size_t n, int64_t start, int64_t end);

/* ---------------------------------------------------------------- statistics */
typedef struct hta_describe {
  int64_t count;
  double mean, std, min, p25, p50, p75, max; /* std NaN when count < 2; all NaN when 0 */
} hta_describe;

/* Sorts v[0..n) ascending (no NaN). */
void hta_sort_doubles(double *v, size_t n);
/* pandas describe() of v[0..n) (sorts v in place). */
void hta_describe_doubles(double *v, size_t n, hta_describe *d);
/* Linear quantile of sorted v (numpy's rule, spec conventions), q in [0,1]; NaN when n == 0.
** q goes through pandas' q*100/100 round trip first, as Series.quantile does. */
double hta_quantile_sorted(const double *v, size_t n, double q);
/* A time in µs as people read it ("850 µs", "12.4 µs", "3.2 ms", "1.25 s") into BUF. */
const char *hta_fmt_us(double us, char buf[32]);
/* Numerically careful mean and sample std (ddof 1). n == 1 gives std 0 (HTA's
** fillna(0) in the breakdowns); n == 0 gives NaN for both. describe() instead
** reports NaN std for n < 2, which hta_describe_doubles does itself. */
void hta_mean_std(const double *v, size_t n, double *mean, double *std);
/* numpy 1.24's argsort(kind="quicksort") of v[0..n) (spec Appendix A): writes into
** perm the permutation that sorts v, with numpy's (unstable) order among equal
** keys, so that HTA's single-key sorts can be reproduced exactly where wanted. */
void hta_np_argsort(const int64_t *v, size_t n, size_t *perm);

/* HTA's "top kernels + others" aggregation (spec 2.2 Table 2 with D3), shared by the
** kernel and user-annotation breakdowns. Each group is one name and its instances'
** durations (ns). With more than NUM groups: order the groups by sum descending
** (ties by name), cumsum = the running sum; q = the RATIO quantile of the cumsums;
** a group folds into "others" when its cumsum > q or its position >= NUM. Every
** output row (kept names, and "others" when anything folded) holds count, sum, max,
** min, mean and sample std (ddof 1; 0 for one instance) over its instances (D3).
** *rows (free with hta_topk_free) come ordered by name, byte order; row names point
** to the groups' names or to the static "others". */
typedef struct hta_topk_group {
  const char *name;   /* borrowed */
  const int64_t *dur; /* n durations, ns */
  size_t n;
} hta_topk_group;

typedef struct hta_topk_row {
  const char *name; /* a group's name, or "others" */
  int64_t count;
  double sum_us, max_us, min_us, mean_us, std_us;
} hta_topk_row;

int hta_topk_aggregate(const hta_topk_group *g, size_t n, int64_t num, double ratio,
                       hta_topk_row **rows, size_t *nrows);
void hta_topk_free(hta_topk_row *rows, size_t n);

/* ---------------------------------------------------------------- the string table */
/* The SQL that reads one name: ?1 = a string_id. */
#define HTA_SQL_NAME_OF_ID "SELECT value FROM $S.string WHERE string_id = ?1"
/* The runtime calls that enqueue GPU work (queue length QL-1 with D15; the critical path
** reads the same list). */
#define HTA_NQUEUE_LAUNCH 13
extern const char *const hta_queue_launch_names[HTA_NQUEUE_LAUNCH];
/* qsort's comparator of int32 ids; the index of ID in the ascending V[0..n), -1. */
int hta_i32_cmp(const void *a, const void *b);
int hta_i64_cmp(const void *a, const void *b); /* the same for int64 values */
long hta_i32_find(const int32_t *v, size_t n, int32_t id);
/* ids[i] = the string_id of NAMES[i], -1 when SCHEMA has no such string. */
int hta_string_ids(sqlite3 *db, const char *schema, const char *const *names, size_t n,
                   int32_t *ids);
/* The names of the string ids IDS[0..n) joined by SEP, read with QNAME (prepared from
** HTA_SQL_NAME_OF_ID); an id < 0 or a missing string adds only its separator.
** *pz is sqlite3_malloc'd ("" rather than NULL). */
int hta_join_names(sqlite3_stmt *qname, const sqlite3_int64 *ids, size_t n, const char *sep,
                   char **pz);
/* Names of rows: IDS[0..n) are string ids (< 0: none); each becomes its slot in
** *PNAMES (-1 for none), the *PN distinct names in id order ("" for an unknown id).
** Free *PNAMES with hta_names_free. */
int hta_name_slots(sqlite3 *db, const char *schema, int32_t *ids, size_t n, char ***pnames,
                   size_t *pn);
void hta_names_free(char **names, size_t n);

/* ---------------------------------------------------------------- args (json_args.c) */
/* The top-level members of an args JSON text, read by one scan (JA-n). */
typedef struct hta_jkey {
  const char *name;
  size_t len;
} hta_jkey;
#define HTA_JKEY(s) \
  { s, sizeof(s) - 1 }
typedef struct hta_jval {
  const char *p; /* the member's value text; NULL when absent */
  int n;
} hta_jval;
/* V[i] = the value of member KEYS[i] of object text [S, S+N); all absent when it is none. */
void hta_json_members(const char *s, int n, const hta_jkey *keys, int nkeys, hta_jval *v);
int hta_json_int(hta_jval v, int64_t *out); /* 1 when an integral number that fits */
int hta_json_real(hta_jval v, double *out); /* 1 when a number */
/* Appends S as a JSON string literal to OUT, escaped as SQLite's json_quote() does. */
void hta_json_append_string(sqlite3_str *out, const char *s);
/* [P, E) of JSON text: past the white space at P; past the one value at P (NULL when it
** is malformed or nested deeper than HTA_JSON_MAX_DEPTH). */
const char *hta_json_ws(const char *p, const char *e);
const char *hta_json_skip(const char *p, const char *e);
/* A thread key from a tid as stored: an integer, or text holding one (the 2021 traces
** write operators' tids as "5555" and other events' as 5555); other text hashes into
** keys above 2^62 so that equal text still matches; NULL is INT64_MIN. */
int64_t hta_tid_key(sqlite3_value *v);

/* ---------------------------------------------------------------- vtab helpers */
/* Replaces pVtab->zErrMsg with a formatted message. */
void hta_vtab_error(sqlite3_vtab *p, const char *fmt, ...);
/* 1 when the connection was interrupted (sqlite3_is_interrupted needs 3.41; emulated). */
int hta_interrupted(sqlite3 *db);
/* 1 when V is an integer, or a REAL with an integral value that fits, stored in *OUT;
** 0 for anything else (NULL, text, 1.5). */
int hta_value_int64(sqlite3_value *v, int64_t *out);
/* Runs SQL with the NBIND integers of BIND bound to ?1.. and returns the first column
** of its first row in *OUT; *ISNULL = 1 (and *OUT = 0) when that is NULL or there is
** no row. Returns SQLITE_OK or the error of prepare or step (SQLITE_INTERRUPT too). */
int hta_query_int64(sqlite3 *db, const char *schema, const char *sql, int nbind,
                    const int64_t *bind, int64_t *out, int *isnull);

/* sqlite3_malloc64 / sqlite3_realloc64 for an array of HTA_BIG_BYTES or more filled at
** once: the same block, with the advice that it be backed by huge pages (big_alloc.c).
** Freed with sqlite3_free. */
#define HTA_BIG_BYTES ((sqlite3_uint64)4 << 20)
void *hta_malloc_big(sqlite3_uint64 n);
void *hta_realloc_big(void *p, sqlite3_uint64 n);

/* Two reads at once (par.c): FN0(DB, ARG0), and FN1(c, ARG1) on a read-only connection c
** of its own to the database SCHEMA of DB names (under that name there, REGISTER_ALL run
** on it when not NULL), in a second thread, when c can see what DB sees; else both on DB,
** one after the other. FN1 may touch nothing but c and its ARG1 (and what nobody writes
** meanwhile). The first error, or SQLITE_INTERRUPT when the caller's statement was
** stopped. */
typedef int (*hta_par_fn)(sqlite3 *db, void *arg);
int hta_par2(sqlite3 *db, const char *schema, int (*register_all)(sqlite3 *), hta_par_fn fn0,
             void *arg0, hta_par_fn fn1, void *arg1);

/* Appends V to the growable array P (N used, A allocated, growing from MINA);
** jumps to OOM when out of memory (P is then unchanged and still owned). */
#define HTA_PUSH(p, n, a, minA, v, oom)                      \
  do {                                                       \
    if ((n) == (a)) {                                        \
      size_t na_ = (a) ? 2 * (a) : (minA);                   \
      void *np_ = sqlite3_realloc64((p), na_ * sizeof *(p)); \
      if (!np_) goto oom;                                    \
      (p) = np_;                                             \
      (a) = na_;                                             \
    }                                                        \
    (p)[(n)++] = (v);                                        \
  } while (0)

/* ---------------------------------------------------------------- result tables */
/* An analysis computes its whole result into an hta_table; a generic cursor then
** hands the rows out. Text is either static or owned (freed with the table). */
typedef struct hta_cell {
  int type;  /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
  int owned; /* 1: v.s is sqlite3_malloc'd */
  union {
    int64_t i;
    double d;
    const char *s;
  } v;
} hta_cell;

typedef struct hta_table {
  int ncol; /* set before the first row */
  size_t nrow, cap;
  hta_cell *cells; /* nrow * ncol, row-major */
  char **keep;     /* texts the table owns for its static cells (hta_table_keep) */
  size_t nkeep, akeep;
} hta_table;

/* Hands the sqlite3_malloc'd text S to T, freed with it: cells may then point at it with
** hta_cell_static, so that a text repeated over many rows is allocated once. On OOM S
** is freed and SQLITE_NOMEM returned. */
int hta_table_keep(hta_table *t, char *s);
/* Appends a row of NULL cells; returns its first cell, NULL on OOM. */
hta_cell *hta_table_add_row(hta_table *t);
void hta_table_free(hta_table *t);
void hta_cell_int(hta_cell *c, int64_t i);
void hta_cell_double(hta_cell *c, double d); /* NaN stays NULL */
void hta_cell_static(hta_cell *c, const char *s);
int hta_cell_text(hta_cell *c, const char *s); /* copies s; SQLITE_OK or SQLITE_NOMEM */
/* Hands cell C to SQLite as the column's result (NULL cell: NULL). */
void hta_cell_result(sqlite3_context *ctx, const hta_cell *c);
/* The eight describe() statistics (count, mean, std, min, p25, p50, p75, max) into
** ROW[first_col ..], columns in that order. */
void hta_cells_describe(hta_cell *row, int first_col, const hta_describe *d);
/* A top-k row's count, sum_us, max_us, min_us, mean_us, std_us into ROW[first_col ..],
** columns in that order. */
void hta_cells_topk(hta_cell *row, int first_col, const hta_topk_row *r);

/* ---------------------------------------------------------------- table-valued functions */
/* One generic eponymous-only module (vtab_util.c) serves every analysis that
** fills an hta_table: visible columns, then HIDDEN numeric parameters with
** defaults, and an optional hidden `rank` column when rank is not visible.
** xBestIndex takes EQ constraints on the parameters and on rank (series.c style). */
#define HTA_TVF_MAXPARAM 8

typedef struct hta_param {
  const char *name; /* hidden column name, as in the schema */
  int is_real;      /* 0: an integer is required; 1: any number; HTA_PARAM_VALUE */
  double dflt;
  double min, max;  /* inclusive bounds */
  const char *what; /* for errors: "<fn>: <name> must be <what>" */
} hta_param;

/* is_real value of a parameter that takes any SQL value, unchecked (TVF-6). */
#define HTA_PARAM_VALUE 2

/* The parameter every analysis has (DESIGN 4): keep the last ProfilerStep. */
#define HTA_PARAM_LAST_STEP \
  { "include_last_profiler_step", 0, 0.0, 0.0, 1.0, "0 or 1" }

typedef struct hta_tvf_args {
  hta_scope scope; /* the database and the one job this run analyses */
  int has_rank;    /* WHERE rank = N was given */
  int64_t rank;
  double p[HTA_TVF_MAXPARAM];         /* parameter values, defaults applied, schema order */
  sqlite3_value *v[HTA_TVF_MAXPARAM]; /* HTA_PARAM_VALUE parameters: a copy, NULL if not given */
  uint64_t col_used; /* SQLite's colUsed: bit i = column i is read (bit 63: any from 63 on) */
} hta_tvf_args;

typedef struct hta_tvf {
  const char *name;   /* module name, e.g. "hta_temporal_breakdown" */
  const char *schema; /* CREATE TABLE x(visible..., params HIDDEN [, rank HIDDEN]) */
  int nvisible;       /* the parameters are columns nvisible .. nvisible+nparam-1 */
  int rank_col;       /* column index of rank; == nvisible+nparam when hidden */
  int nparam;
  const hta_param *params;
  /* Computes the rows into OUT (ncol = nvisible). On error returns an SQLite code and
  ** may set *pzErr (sqlite3_malloc'd). SQLITE_INTERRUPT passes through. */
  int (*run)(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr);
} hta_tvf;

/* Registers DEF (which must outlive the connection: a static) as an eponymous-only
** innocuous virtual table. */
int hta_tvf_register(sqlite3 *db, const hta_tvf *def);
/* Registers the N DEFS in order; stops at and returns the first failure. */
int hta_tvf_register_all(sqlite3 *db, const hta_tvf *const *defs, size_t n);

/* The breakdown family (breakdown_*.c, comm_comp_overlap.c), registered by
** hta_register_breakdown in hta.c. */
extern const hta_tvf hta_temporal_breakdown_tvf;
extern const hta_tvf hta_kernel_type_breakdown_tvf;
extern const hta_tvf hta_kernel_breakdown_tvf;
extern const hta_tvf hta_idle_time_breakdown_tvf;
extern const hta_tvf hta_idle_interval_stats_tvf;
extern const hta_tvf hta_comm_comp_overlap_tvf;

/* Registration of each analysis family (one file each). */
int hta_register_scalars(sqlite3 *db);     /* hta_kernel_type, hta_shorten_name, ... */
int hta_register_aggregates(sqlite3 *db);  /* hta_union_length, hta_quantile, hta_median */
int hta_register_breakdown(sqlite3 *db);   /* temporal, kernel type, kernel, idle, overlap */
int hta_register_launch(sqlite3 *db);      /* kernel launch stats */
int hta_register_counters(sqlite3 *db);    /* queue length, memory bandwidth */
int hta_register_sequences(sqlite3 *db);   /* frequent kernel sequences, aten op kernels */
int hta_register_annotations(sqlite3 *db); /* user annotations, profiler steps, stragglers */
int hta_register_cupti(sqlite3 *db);
int hta_register_diff(sqlite3 *db);
/* the structural diff of two runs (ext/diff/); REGISTER_ALL registers the extension on the
** connection of its own a comparison may open (hta.c's htaRegisterAll) */
int hta_register_job_diff(sqlite3 *db, int (*register_all)(sqlite3 *));
int hta_register_collectives(sqlite3 *db); /* collectives across ranks */
int hta_register_memory(sqlite3 *db);      /* memory timeline, summary, by operator, allocations */
int hta_register_critical_path(sqlite3 *db); /* critical path, its summary, graph, stats */
int hta_register_tb_stats(sqlite3 *db);   /* the plugin's kernel and operator views (tb_stats.c) */
int hta_register_tb_modules(sqlite3 *db); /* the plugin's Module view (tb_modules.c) */
int hta_register_tb_views(sqlite3 *db);   /* the plugin's Overview, GPU summary, Distributed view */
int hta_register_op_perf(sqlite3 *db);    /* operator performance model, its summary */
int hta_register_inference(sqlite3 *db);  /* hta_inference_steps (inference/) */
int hta_register_findings(sqlite3 *db);   /* hta_findings: what to fix (findings.c) */
int hta_register_health(sqlite3 *db);     /* hta_trace_health: can I trust this trace (health/) */
int hta_register_graph(sqlite3 *db);      /* graph replays and their captures (graph/) */
int hta_register_io(sqlite3 *db);         /* io entry point only: DIRECTONLY */

/* ---------------------------------------------------------------- results as C arrays */
/* What the trace writers of the io entry point (io_counters.c, io_overlay.c) take from the
** analyses, computed by the analyses' own code, never copied. */

/* One point of a counter series. */
typedef struct hta_series_point {
  int64_t ts;       /* ns, absolute (as stored) */
  int64_t event_id; /* the GPU row whose change made the point (its pid is the counter's) */
  int64_t stream;   /* queue length: the stream; memory bandwidth: 0 */
  char kind[16];    /* memory bandwidth: the memory kind; queue length: "" */
  double value;     /* queue length, or GB/s */
} hta_series_point;

/* Trace T's hta_queue_length (resp. hta_memory_bw) series with the default
** parameters, in their row order. *pa is sqlite3_malloc'd (NULL when empty). */
int hta_queue_length_points(sqlite3 *db, const hta_trace *t, hta_series_point **pa, size_t *pn);
int hta_memory_bw_points(sqlite3 *db, const hta_trace *t, hta_series_point **pa, size_t *pn);

/* One frequent-kernel-sequence pattern and its occurrence set (spec 2.6 step 4). */
typedef struct hta_fks_pattern {
  char *pattern; /* sqlite3_malloc'd, as in hta_frequent_kernel_sequences */
  int64_t count;
  int64_t *event_ids; /* ascending, distinct: every row of every root's stack */
  size_t n;
} hta_fks_pattern;

/* The first TOP_K rows of hta_frequent_kernel_sequences(OPNAME, MIN_PATTERN_LEN)
** for trace T (all of them when there are fewer), with their occurrence sets.
** Free *pa with hta_fks_patterns_free. */
int hta_fks_patterns(sqlite3 *db, const hta_trace *t, const char *opname, int64_t min_pattern_len,
                     int64_t top_k, hta_fks_pattern **pa, size_t *pn);
void hta_fks_patterns_free(hta_fks_pattern *a, size_t n);

#endif

/*
** hta_common.h: what every analysis of hta.so shares (implemented once, in ext/).
**
**   traces.c     hta_traces_load(): the traces (ranks) an analysis runs over, the
**                job's time base, and the last-ProfilerStep cut (spec 1.13, D7).
**   gpu.c        hta_gpu_load(): one trace's GPU work rows with their kernel type.
**   classify.c   hta_classifier: kernel_type_rule read from the database (spec 1.16).
**   interval.c   interval union / merge (spec 2 "merge").
**   stats.c      pandas-compatible describe(): mean, sample std, linear quantiles.
**   vtab_util.c  small helpers for eponymous table-valued functions.
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

/* ---------------------------------------------------------------- kernel types */
/* Bits as HTA numbers them in the kernel-type breakdown (spec 2.2). */
#define HTA_KT_COMPUTATION   1
#define HTA_KT_COMMUNICATION 2
#define HTA_KT_MEMORY        4
#define HTA_KT_OTHER         8

typedef struct hta_classifier hta_classifier;

/* Reads kernel_type_rule (ordered by priority). *pp is freed with hta_classifier_free. */
int hta_classifier_open(sqlite3 *db, hta_classifier **pp);
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
  int64_t trace_id;
  int64_t rank;
  int64_t min_ts;        /* ns, this trace's earliest HTA-kept event */
  int64_t max_end;       /* ns */
  int has_cut;           /* the last-ProfilerStep cut applies to this trace */
  int64_t cut_ts;        /* host rows with ts >= cut_ts are dropped (when has_cut) */
} hta_trace;

typedef struct hta_traces {
  hta_trace *a;          /* ordered by (rank, trace_id) */
  int n;
  int64_t job_min_ts;    /* min of min_ts over every trace in the database: series ts base */
} hta_traces;

/*
** Loads the traces, all of them or only those of RANK (has_rank != 0).
** include_last_step != 0 disables the last-ProfilerStep cut (spec 1.13 with D7):
** the cut applies when the database holds >= 2 distinct host ProfilerStep numbers;
** then for each trace cut_ts = the start of its last step, or, when the trace has
** no step of its own, every host row is dropped (cut_ts = INT64_MIN).
*/
int hta_traces_load(sqlite3 *db, int has_rank, int64_t rank, int include_last_step,
                    hta_traces *out);
void hta_traces_free(hta_traces *t);

/* ---------------------------------------------------------------- GPU rows */
typedef struct hta_gpu {
  int64_t event_id;
  int64_t ts, dur;       /* ns */
  int64_t stream;
  int64_t correlation;   /* -1 when absent */
  int64_t link_id;       /* 0 when absent */
  int64_t launch_ts;     /* ts of the linked host row; INT64_MIN when none */
  int64_t launch_dur;
  int32_t name_id;
  int32_t cat_id;
  int kernel_type;       /* HTA_KT_* */
  int is_kernel_cat;     /* cat in kernel/gpu_memcpy/gpu_memset and legacy spellings, mtia_ccp_events */
} hta_gpu;

typedef struct hta_gpu_rows {
  hta_gpu *a;            /* in seq (file) order */
  size_t n;
  /* name_id -> string, for the names present (sqlite3_malloc'd) */
  char **names;          /* indexed by name slot; see hta_gpu_name() */
  int32_t *name_ids;
  size_t nnames;
} hta_gpu_rows;

/*
** Loads the GPU work rows (event.stream IS NOT NULL) of trace T, applying the
** last-ProfilerStep cut of T (a GPU row stays when its linked host row stays;
** a GPU row without correlation stays when its own ts < cut_ts).
** Returns SQLITE_OK, SQLITE_NOMEM, SQLITE_INTERRUPT or an SQLite error.
*/
int hta_gpu_load(sqlite3 *db, const hta_trace *t, const hta_classifier *c, hta_gpu_rows *out);
const char *hta_gpu_name(const hta_gpu_rows *g, int32_t name_id);
void hta_gpu_free(hta_gpu_rows *g);

/* ---------------------------------------------------------------- intervals */
typedef struct hta_iv {
  int64_t start, end;    /* ns, half-open */
} hta_iv;

/* Sorts by start and merges overlapping or touching intervals in place (spec 2 merge);
** returns the number of merged intervals. */
size_t hta_iv_merge(hta_iv *iv, size_t n);
/* Sum of (end - start) over already merged intervals. */
int64_t hta_iv_length(const hta_iv *iv, size_t n);

/* ---------------------------------------------------------------- statistics */
typedef struct hta_describe {
  int64_t count;
  double mean, std, min, p25, p50, p75, max; /* std NaN when count < 2; all NaN when 0 */
} hta_describe;

/* pandas describe() of v[0..n) (sorts v in place). */
void hta_describe_doubles(double *v, size_t n, hta_describe *d);
/* Linear quantile of sorted v (numpy's rule, spec conventions), q in [0,1]. */
double hta_quantile_sorted(const double *v, size_t n, double q);
/* Numerically careful mean and sample std (ddof 1; 0 when n == 1 if zero_single). */
void hta_mean_std(const double *v, size_t n, double *mean, double *std);

/* ---------------------------------------------------------------- vtab helpers */
/* Replaces pVtab->zErrMsg with a formatted message. */
void hta_vtab_error(sqlite3_vtab *p, const char *fmt, ...);
/* 1 when the connection was interrupted (sqlite3_is_interrupted needs 3.41; emulated). */
int hta_interrupted(sqlite3 *db);

/* Registration of each analysis family (one file each). */
int hta_register_scalars(sqlite3 *db);      /* hta_kernel_type, hta_shorten_name, ... */
int hta_register_aggregates(sqlite3 *db);   /* hta_union_length, hta_quantile, hta_median */
int hta_register_breakdown(sqlite3 *db);    /* temporal, kernel type, kernel, idle, overlap */
int hta_register_launch(sqlite3 *db);       /* kernel launch stats */
int hta_register_counters(sqlite3 *db);     /* queue length, memory bandwidth */
int hta_register_sequences(sqlite3 *db);    /* frequent kernel sequences, aten op kernels */
int hta_register_annotations(sqlite3 *db);  /* user annotations, profiler steps, stragglers */
int hta_register_cupti(sqlite3 *db);
int hta_register_diff(sqlite3 *db);
int hta_register_io(sqlite3 *db);           /* io entry point only: DIRECTONLY */

#endif

/*
** findings.h: the rule framework of hta_findings (findings.c), shared by the files
** that hold the rules (findings_host.c, findings_gpu.c, findings_tb.c,
** findings_overview.c).
**
** A rule is one function and one line of the table fdRules in findings.c:
**
**   static int fdMyRule(fd_ctx *x, const fd_rule *r) {
**     sqlite3_stmt *st;
**     int rc = fd_query(x, "SELECT trace_id, v FROM hta_x WHERE schema = ?1 AND job = ?2", &st);
**     while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
**       const fd_unit *u = fd_unit_of(x, sqlite3_column_int64(st, 0));
**       fd_row row = fd_row_init(u);
**       row.time_us = sqlite3_column_double(st, 1) / u->nsteps;     (a cost per step)
**       sqlite3_str_appendf(row.evidence, "{...}");   (a JSON object; fd_json_* help)
**       row.title = sqlite3_mprintf("...");  row.advice = "...";
**       rc = fd_emit(x, r, &row);                                    (takes title, evidence)
**     }
**     return fd_done(st, rc);
**   }
**   { "my_rule", "hta-sqlite", fdMyRule },          (in fdRules, findings.c)
**
** A rule reads other analyses through SQL on the same connection (fd_query binds ?1
** to the database read and ?2 to the job's name), so a finding's numbers are the
** numbers the analysis shows; it never recomputes an analysis differently.
*/
#ifndef HTA_FINDINGS_H
#define HTA_FINDINGS_H

#include "core/hta_common.h"

/* One trace of the job: a rank's timeline, with its analysed steps (DESIGN 11). */
typedef struct fd_unit {
  const hta_trace *t; /* rank, trace_id, window, cut (hta_traces_load) */
  int64_t rank, trace_id;
  int64_t nsteps; /* the ProfilerSteps hta_profiler_steps keeps; 1 when none */
  double step_us; /* the mean step, µs; 0 when unknown (then pct_of_step is NULL) */
  int64_t *steps; /* their numbers, ascending; NULL when the trace has no step */
  size_t nstep;   /* how many (0: no steps, every row counts) */
} fd_unit;

typedef struct fd_finding fd_finding;
/* The plugin's per-trace figures, built once per run by findings_overview.c (FO-5). */
typedef struct fo_cache fo_cache;
void fo_cache_free(fo_cache *c);

/* One run of hta_findings over one job. */
typedef struct fd_ctx {
  sqlite3 *db;
  const char *schema; /* the database read */
  char *job;          /* the job's name (NULL: its job row is missing) */
  int64_t job_id;
  double min_pct;
  int has_rank; /* WHERE rank = N: the findings of rank N only */
  int64_t rank;
  hta_traces tr;
  fd_unit *u; /* one per trace of tr (same order); ranks filtered by has_rank */
  int nu;
  fo_cache *fo;  /* the plugin rules' figures (NULL until one of them runs) */
  fd_finding *f; /* what the rules found */
  size_t nf, af;
} fd_ctx;

typedef struct fd_rule fd_rule;
typedef int (*fd_rule_fn)(fd_ctx *x, const fd_rule *r);
struct fd_rule {
  const char *id;     /* hta_findings.rule */
  const char *source; /* 'tb_plugin' or 'hta-sqlite' */
  fd_rule_fn run;     /* emits its findings with fd_emit; returns an SQLite code */
};

/* What a rule found. fd_row_init() gives the defaults: no time, no count. */
typedef struct fd_row {
  const fd_unit *u;      /* the trace (rank, trace_id); NULL: see has_rank */
  int64_t rank;          /* when u is NULL and has_rank: a finding about this rank as a whole */
  int has_rank;          /* (trace_id NULL); u NULL and no rank: about the whole job */
  double time_us;        /* cost per step, µs; NAN: a rule that is no time */
  double pct;            /* NAN: 100 * time_us / u->step_us (the usual); else the rule's own */
  int64_t count;         /* < 0: NULL */
  char *title;           /* sqlite3_malloc'd: fd_emit owns it from then on */
  sqlite3_str *evidence; /* a JSON object being written: fd_emit finishes it */
  const char *advice;    /* static */
} fd_row;

/* The defaults (no time, no count) and a new evidence builder (fd_emit says when it
** ran out of memory). */
fd_row fd_row_init(const fd_unit *u);
/* Records ROW as a finding of rule R when it passes min_pct (a row with a time and
** pct_of_step < min_pct, or with a time but no pct_of_step while min_pct > 0, is
** dropped); frees ROW's title and evidence either way. SQLITE_OK, or SQLITE_NOMEM when
** the title or the evidence could not be written. */
int fd_emit(fd_ctx *x, const fd_rule *r, fd_row *row);

/* The unit of TRACE_ID, or NULL (another rank than the one asked for, or a trace
** that no analysis loads). */
const fd_unit *fd_unit_of(const fd_ctx *x, int64_t trace_id);
/* 1 when a host row of iteration IT (has_it: not NULL) lies in U's analysed steps:
** any row when U has no steps. */
int fd_in_steps(const fd_unit *u, int has_it, int64_t it);

/* Prepares SQL on x->db with "$S." meaning the database read, and binds ?1 to that
** database's name and ?2 to the job's name (for `schema = ?1 AND job = ?2`; a job
** without a name reads `job IS ?2`, NULL). */
int fd_query(fd_ctx *x, const char *sql, sqlite3_stmt **pp);
/* Finalizes ST and turns RC into the rule's return: SQLITE_DONE -> SQLITE_OK. */
int fd_done(sqlite3_stmt *st, int rc);

/* ---------------------------------------------------------------- text for titles, JSON */
/* A time in µs as people read it ("850 µs", "12.4 µs", "3.2 ms", "1.25 s") into BUF. */
const char *fd_fmt_us(double us, char buf[32]);
/* JSON values appended to S: a string (null for NULL), a number (null for NaN or
** infinite), and exact µs of an ns count ("%.3f"). */
void fd_json_str(sqlite3_str *s, const char *z);
void fd_json_num(sqlite3_str *s, double v);
void fd_json_us(sqlite3_str *s, int64_t ns);

/* A tally of names (e.g. the operators that issued calls): count and ns per name. */
typedef struct fd_tally_item {
  char *name; /* sqlite3_malloc'd; NULL for "none" */
  int64_t count, ns;
} fd_tally_item;
typedef struct fd_tally {
  fd_tally_item *a;
  size_t n, cap;
} fd_tally;
int fd_tally_add(fd_tally *t, const char *name, int64_t count, int64_t ns);
/* Appends the top K items (by ns, then count, then name) as a JSON array of objects
** {"name": ..., KEY_COUNT: count, "us": ns / 1000} (no "us" when WITH_NS is 0). */
void fd_tally_json(sqlite3_str *s, fd_tally *t, size_t k, const char *key_count, int with_ns);
/* The top item's name (NULL when empty or unnamed); call after fd_tally_json or sort. */
const char *fd_tally_top(fd_tally *t);
void fd_tally_free(fd_tally *t);

/* ---------------------------------------------------------------- the rules */
/* findings_host.c: runtime calls on the host. */
int fd_pageable_memcpy(fd_ctx *x, const fd_rule *r);
int fd_host_sync(fd_ctx *x, const fd_rule *r);
int fd_allocator_churn(fd_ctx *x, const fd_rule *r);
/* findings_gpu.c: the GPU's idle time, communication, stragglers. */
int fd_gpu_waits_for_host(fd_ctx *x, const fd_rule *r);
int fd_exposed_communication(fd_ctx *x, const fd_rule *r);
int fd_straggler(fd_ctx *x, const fd_rule *r);
/* findings_tb.c: the TensorBoard plugin's recommendations. */
int fd_dataparallel(fd_ctx *x, const fd_rule *r);
int fd_ddp_without_nccl(fd_ctx *x, const fd_rule *r);
int fd_memory_near_capacity(fd_ctx *x, const fd_rule *r);
/* findings_perf.c: operators far from their roofline (hta_op_perf). */
int fd_low_efficiency(fd_ctx *x, const fd_rule *r);
/* findings_overview.c: the plugin's recommendations from its Overview and tensor cores. */
int fd_dataloader(fd_ctx *x, const fd_rule *r);
int fd_communication(fd_ctx *x, const fd_rule *r);
int fd_gpu_low_utilization(fd_ctx *x, const fd_rule *r);
int fd_tensor_cores_unused(fd_ctx *x, const fd_rule *r);

#endif

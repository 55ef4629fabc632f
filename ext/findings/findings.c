/*
** findings.c: hta_findings, what to fix ranked by what it costs (DESIGN 11): the
** TensorBoard plugin's performance recommendations and rules of our own, each read
** from the analyses of this database, for every rank and the job, with evidence.
**
**   SELECT rank, rule, title, time_us, pct_of_step FROM hta_findings;
**   SELECT * FROM hta_findings(0) WHERE job = 'run_a';      -- every finding, however small
**   SELECT json_extract(evidence, '$.operators') FROM hta_findings WHERE rule = 'host_sync';
**
** Parameters (HIDDEN): min_pct (1.0): a finding with a time appears when its
** pct_of_step is at least min_pct.
** Columns: rank, rule, title, time_us, pct_of_step, count, evidence, advice, source,
**   trace_id (then job, as every analysis).
**
** Requirements (tests cite them as FD-n):
**  1. Each job is analysed on its own (the generic module runs it per job). A
**     finding is about one trace (rank, trace_id: a rank's timeline), about a rank
**     of several traces as a whole (trace_id NULL) or about the whole job (rank
**     NULL, trace_id NULL).
**  2. Steps: a trace's analysed steps are its rows of hta_profiler_steps (host
**     ProfilerStep#N, the last step cut as in every analysis); a trace without any
**     is one step as long as its window (trace.max_end - min_ts).
**  3. time_us = the finding's cost over the analysed steps / their number;
**     pct_of_step = 100 * time_us / the trace's mean step (NULL when that is 0).
**     A rule that is no time (configuration, memory) has both NULL. A rule may give
**     its own pct_of_step (the plugin's rules use the plugin's steps).
**  4. A finding with a time appears when its rule's condition holds and
**     pct_of_step >= min_pct (with a time but no pct_of_step: only when min_pct is
**     0); a finding without time appears whenever its condition holds.
**  5. min_pct must be a number from 0 to 100: "hta_findings: min_pct must be a
**     number from 0 to 100".
**  6. Rows: pct_of_step descending (NULLs last), then rule, then rank (the job's
**     findings first), then trace_id. WHERE rank = N keeps rank N's findings.
**  7. evidence is a JSON object; title says what was found with its number; advice
**     says what to try; source is 'tb_plugin' or 'hta-sqlite'.
**  8. A job without the data a rule reads (no GPU rows, no collectives, no memory
**     records, no device properties) gets no finding from it, never an error.
**
** HOW IT WORKS: run() loads the job's traces (hta_traces_load) and their steps
** (hta_profiler_steps through SQL), then calls every rule of fdRules in turn. A
** rule reads the analyses it needs through SQL on the same connection (fd_query)
** and hands what it found to fd_emit, which applies min_pct. The findings are
** sorted (FD-6) into the result table.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FD_SCHEMA                                                                       \
  "CREATE TABLE x(rank INTEGER, rule TEXT, title TEXT, time_us REAL, pct_of_step REAL," \
  " count INTEGER, evidence TEXT, advice TEXT, source TEXT, trace_id INTEGER, min_pct HIDDEN)"
#define FD_RANK 0
#define FD_RULE 1
#define FD_TITLE 2
#define FD_TIME 3
#define FD_PCT 4
#define FD_COUNT 5
#define FD_EVIDENCE 6
#define FD_ADVICE 7
#define FD_SOURCE 8
#define FD_TRACE_ID 9
#define FD_NVISIBLE 10
#define FD_P_MIN_PCT 0

static const hta_param fdParams[] = {
    {"min_pct", 1, 1.0, 0.0, 100.0, "a number from 0 to 100"}, /* FD-5 */
};

/* The rules, in no particular order (FD-6 sorts the rows). To add one: write its
** function (findings.h shows the shape) and add its line here. */
static const fd_rule fdRules[] = {
    /* the TensorBoard plugin's recommendations (findings_tb.c) */
    {"dataparallel", "tb_plugin", fd_dataparallel},
    {"ddp_without_nccl", "tb_plugin", fd_ddp_without_nccl},
    {"memory_near_capacity", "tb_plugin", fd_memory_near_capacity},
    /* the plugin's recommendations from its Overview (findings_overview.c) */
    {"dataloader", "tb_plugin", fd_dataloader},
    {"communication", "tb_plugin", fd_communication},
    {"gpu_low_utilization", "tb_plugin", fd_gpu_low_utilization},
    {"tensor_cores_unused", "tb_plugin", fd_tensor_cores_unused},
    /* ours: runtime calls on the host (findings_host.c) */
    {"pageable_memcpy", "hta-sqlite", fd_pageable_memcpy},
    {"host_sync", "hta-sqlite", fd_host_sync},
    {"allocator_churn", "hta-sqlite", fd_allocator_churn},
    /* ours: the GPU's idle time, communication, stragglers (findings_gpu.c) */
    {"gpu_waits_for_host", "hta-sqlite", fd_gpu_waits_for_host},
    {"exposed_communication", "hta-sqlite", fd_exposed_communication},
    {"straggler", "hta-sqlite", fd_straggler},
    /* ours: operators far from their roofline (findings_perf.c) */
    {"low_efficiency", "hta-sqlite", fd_low_efficiency},
};

struct fd_finding {
  const fd_rule *rule;
  int has_rank, has_trace, has_count;
  int64_t rank, trace_id, count;
  double time_us, pct; /* NAN: NULL */
  char *title, *evidence;
  const char *advice;
};

/* ---------------------------------------------------------------- the rules' helpers */

fd_row fd_row_init(const fd_unit *u) {
  fd_row r;
  memset(&r, 0, sizeof r);
  r.u = u;
  r.time_us = NAN;
  r.pct = NAN;
  r.count = -1;
  r.evidence = sqlite3_str_new(0);
  return r;
}

int fd_emit(fd_ctx *x, const fd_rule *r, fd_row *row) {
  fd_finding f;
  int keep;
  memset(&f, 0, sizeof f);
  f.rule = r;
  f.time_us = row->time_us;
  f.pct = row->pct;
  if (!isnan(f.time_us) && isnan(f.pct) && row->u && row->u->step_us > 0) {
    f.pct = 100.0 * f.time_us / row->u->step_us; /* FD-3 */
  }
  if (isnan(f.time_us)) keep = 1; /* FD-4 */
  else if (isnan(f.pct)) keep = x->min_pct == 0;
  else keep = f.pct >= x->min_pct;
  if (row->u) {
    f.has_rank = f.has_trace = 1;
    f.rank = row->u->rank;
    f.trace_id = row->u->trace_id;
  } else if (row->has_rank) {
    f.has_rank = 1;
    f.rank = row->rank;
  }
  if (keep && x->has_rank && (!f.has_rank || f.rank != x->rank)) keep = 0; /* FD-6 */
  f.has_count = row->count >= 0;
  f.count = row->count;
  f.title = row->title;
  int ev_ok = sqlite3_str_errcode(row->evidence) == SQLITE_OK; /* a NULL builder: NOMEM */
  f.evidence = sqlite3_str_finish(row->evidence);
  if (!ev_ok) {
    sqlite3_free(f.evidence);
    f.evidence = 0;
  }
  f.advice = row->advice;
  row->title = 0;
  row->evidence = 0;
  if (!keep || !f.title || !f.evidence) {
    int oom = keep && (!f.title || !f.evidence);
    sqlite3_free(f.title);
    sqlite3_free(f.evidence);
    return oom ? SQLITE_NOMEM : SQLITE_OK;
  }
  HTA_PUSH(x->f, x->nf, x->af, 16, f, fd_emit_oom);
  return SQLITE_OK;
fd_emit_oom:
  sqlite3_free(f.title);
  sqlite3_free(f.evidence);
  return SQLITE_NOMEM;
}

const fd_unit *fd_unit_of(const fd_ctx *x, int64_t trace_id) {
  for (int i = 0; i < x->nu; i++) {
    if (x->u[i].trace_id == trace_id) return &x->u[i];
  }
  return 0;
}

int fd_in_steps(const fd_unit *u, int has_it, int64_t it) {
  if (!u->nstep) return 1;
  if (!has_it) return 0;
  size_t lo = 0, hi = u->nstep;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->steps[mid] < it) lo = mid + 1;
    else hi = mid;
  }
  return lo < u->nstep && u->steps[lo] == it;
}

int fd_query(fd_ctx *x, const char *sql, sqlite3_stmt **pp) {
  char *z = 0;
  /* A job whose trace rows name a missing job row has no name: its rows are those of
  ** `job IS NULL` (no database holds two such jobs but a corrupt one). */
  const char *eq = x->job ? 0 : strstr(sql, "job = ?2");
  if (eq && !(z = sqlite3_mprintf("%.*sjob IS ?2%s", (int)(eq - sql), sql, eq + 8)))
    return SQLITE_NOMEM;
  int rc = hta_prepare(x->db, x->schema, z ? z : sql, pp);
  sqlite3_free(z);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_bind_parameter_count(*pp) >= 1)
    sqlite3_bind_text(*pp, 1, x->schema, -1, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count(*pp) >= 2) {
    if (x->job) sqlite3_bind_text(*pp, 2, x->job, -1, SQLITE_STATIC);
    else sqlite3_bind_null(*pp, 2);
  }
  return SQLITE_OK;
}

int fd_done(sqlite3_stmt *st, int rc) {
  sqlite3_finalize(st);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

const char *fd_fmt_us(double us, char buf[32]) {
  double a = fabs(us);
  if (a >= 1e6) sqlite3_snprintf(32, buf, "%.2f s", us / 1e6);
  else if (a >= 1e4) sqlite3_snprintf(32, buf, "%.1f ms", us / 1e3);
  else if (a >= 100) sqlite3_snprintf(32, buf, "%.0f \xC2\xB5s", us);
  else if (a >= 10) sqlite3_snprintf(32, buf, "%.1f \xC2\xB5s", us);
  else sqlite3_snprintf(32, buf, "%.2f \xC2\xB5s", us);
  return buf;
}

void fd_json_str(sqlite3_str *s, const char *z) {
  static const char hex[] = "0123456789abcdef";
  if (!z) {
    sqlite3_str_appendall(s, "null");
    return;
  }
  sqlite3_str_appendchar(s, 1, '"');
  for (const unsigned char *p = (const unsigned char *)z; *p; p++) {
    if (*p == '"' || *p == '\\') {
      sqlite3_str_appendchar(s, 1, '\\');
      sqlite3_str_appendchar(s, 1, (char)*p);
    } else if (*p < 0x20) {
      char e[7] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15], 0};
      sqlite3_str_appendall(s, e);
    } else {
      sqlite3_str_appendchar(s, 1, (char)*p);
    }
  }
  sqlite3_str_appendchar(s, 1, '"');
}

void fd_json_num(sqlite3_str *s, double v) {
  if (isnan(v) || isinf(v)) sqlite3_str_appendall(s, "null");
  else if (v == floor(v) && fabs(v) < 1e15) sqlite3_str_appendf(s, "%lld", (long long)v);
  else sqlite3_str_appendf(s, "%!.17g", v); /* round-trips */
}

void fd_json_us(sqlite3_str *s, int64_t ns) {
  /* exact: integer µs and three decimals of ns */
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(a % 1000);
  sqlite3_str_appendf(s, ns < 0 ? "-%llu" : "%llu", (unsigned long long)(a / 1000));
  if (frac) {
    char d[5];
    sqlite3_snprintf(sizeof d, d, ".%03u", frac);
    for (int k = 3; k > 0 && d[k] == '0'; k--) d[k] = 0;
    sqlite3_str_appendall(s, d);
  }
}

int fd_tally_add(fd_tally *t, const char *name, int64_t count, int64_t ns) {
  for (size_t i = 0; i < t->n; i++) {
    fd_tally_item *it = &t->a[i];
    if ((!it->name && !name) || (it->name && name && !strcmp(it->name, name))) {
      it->count += count;
      it->ns = hta_add_sat(it->ns, ns);
      return SQLITE_OK;
    }
  }
  fd_tally_item it = {0, count, ns};
  if (name && !(it.name = sqlite3_mprintf("%s", name))) return SQLITE_NOMEM;
  HTA_PUSH(t->a, t->n, t->cap, 8, it, fd_tally_oom);
  return SQLITE_OK;
fd_tally_oom:
  sqlite3_free(it.name);
  return SQLITE_NOMEM;
}

static int fdTallyCmp(const void *pa, const void *pb) {
  const fd_tally_item *a = pa, *b = pb;
  if (a->ns != b->ns) return a->ns > b->ns ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (!a->name || !b->name) return !a->name - !b->name; /* unnamed last */
  return strcmp(a->name, b->name);
}

void fd_tally_json(sqlite3_str *s, fd_tally *t, size_t k, const char *key_count, int with_ns) {
  if (t->n) qsort(t->a, t->n, sizeof *t->a, fdTallyCmp);
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t i = 0; i < t->n && i < k; i++) {
    sqlite3_str_appendall(s, i ? ",{\"name\":" : "{\"name\":");
    fd_json_str(s, t->a[i].name);
    sqlite3_str_appendf(s, ",\"%s\":%lld", key_count, (long long)t->a[i].count);
    if (with_ns) {
      sqlite3_str_appendall(s, ",\"us\":");
      fd_json_us(s, t->a[i].ns);
    }
    sqlite3_str_appendchar(s, 1, '}');
  }
  sqlite3_str_appendchar(s, 1, ']');
}

const char *fd_tally_top(fd_tally *t) {
  if (t->n) qsort(t->a, t->n, sizeof *t->a, fdTallyCmp);
  return t->n ? t->a[0].name : 0;
}

void fd_tally_free(fd_tally *t) {
  for (size_t i = 0; i < t->n; i++) sqlite3_free(t->a[i].name);
  sqlite3_free(t->a);
  memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------- units and steps */

/* The job's traces and their analysed steps (FD-2). */
static int fdLoadUnits(fd_ctx *x, const hta_tvf_args *a) {
  sqlite3_stmt *st = 0;
  int rc = hta_traces_load(x->db, &a->scope, a->has_rank, a->rank, 0, &x->tr);
  if (rc != SQLITE_OK) return rc;
  x->u = sqlite3_malloc64((x->tr.n ? (size_t)x->tr.n : 1) * sizeof *x->u);
  if (!x->u) return SQLITE_NOMEM;
  memset(x->u, 0, (x->tr.n ? (size_t)x->tr.n : 1) * sizeof *x->u);
  for (int i = 0; i < x->tr.n; i++) {
    fd_unit *u = &x->u[i];
    u->t = &x->tr.a[i];
    u->rank = u->t->rank;
    u->trace_id = u->t->trace_id;
  }
  x->nu = x->tr.n;
  rc = fd_query(x,
                "SELECT trace_id, step, dur FROM hta_profiler_steps"
                " WHERE schema = ?1 AND job = ?2 ORDER BY trace_id, step",
                &st);
  double *sum_us = sqlite3_malloc64((x->nu ? (size_t)x->nu : 1) * sizeof *sum_us);
  size_t *cap = sqlite3_malloc64((x->nu ? (size_t)x->nu : 1) * sizeof *cap);
  if (!sum_us || !cap) rc = rc == SQLITE_OK ? SQLITE_NOMEM : rc;
  else memset(cap, 0, (x->nu ? (size_t)x->nu : 1) * sizeof *cap);
  if (sum_us) memset(sum_us, 0, (x->nu ? (size_t)x->nu : 1) * sizeof *sum_us);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    fd_unit *u = (fd_unit *)fd_unit_of(x, sqlite3_column_int64(st, 0));
    if (!u) continue;
    size_t k = (size_t)(u - x->u);
    HTA_PUSH(u->steps, u->nstep, cap[k], 8, sqlite3_column_int64(st, 1), fd_units_oom);
    sum_us[k] += sqlite3_column_double(st, 2);
    continue;
  fd_units_oom:
    rc = SQLITE_NOMEM;
  }
  rc = fd_done(st, rc);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    fd_unit *u = &x->u[i];
    if (u->nstep) {
      qsort(u->steps, u->nstep, sizeof *u->steps, hta_i64_cmp);
      u->nsteps = (int64_t)u->nstep;
      u->step_us = sum_us[i] / (double)u->nstep;
    } else { /* FD-2: one step, the whole window */
      u->nsteps = 1;
      u->step_us = (double)hta_sub_sat(u->t->max_end, u->t->min_ts) / 1000.0;
    }
    if (!(u->step_us > 0)) u->step_us = 0;
  }
  sqlite3_free(sum_us);
  sqlite3_free(cap);
  return rc;
}

/* ---------------------------------------------------------------- the table */

static int fdCmp(const void *pa, const void *pb) {
  const fd_finding *a = pa, *b = pb;
  int an = isnan(a->pct), bn = isnan(b->pct);
  if (an != bn) return an - bn; /* FD-6: NULLs last */
  if (!an && a->pct != b->pct) return a->pct > b->pct ? -1 : 1;
  int c = strcmp(a->rule->id, b->rule->id);
  if (c) return c;
  if (a->has_rank != b->has_rank) return a->has_rank - b->has_rank; /* the job's first */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  return 0;
}

static void fdFree(fd_ctx *x) {
  for (size_t i = 0; i < x->nf; i++) {
    sqlite3_free(x->f[i].title);
    sqlite3_free(x->f[i].evidence);
  }
  sqlite3_free(x->f);
  fo_cache_free(x->fo);
  for (int i = 0; i < x->nu; i++) sqlite3_free(x->u[i].steps);
  sqlite3_free(x->u);
  hta_traces_free(&x->tr);
  sqlite3_free(x->job);
}

/* Moves the findings into OUT (FD-6); title and evidence change owner. */
static int fdOutput(fd_ctx *x, hta_table *out) {
  if (x->nf) qsort(x->f, x->nf, sizeof *x->f, fdCmp); /* (NULL when none) */
  for (size_t i = 0; i < x->nf; i++) {
    fd_finding *f = &x->f[i];
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    if (f->has_rank) hta_cell_int(&row[FD_RANK], f->rank);
    hta_cell_static(&row[FD_RULE], f->rule->id);
    row[FD_TITLE] = (hta_cell){SQLITE_TEXT, 1, {.s = f->title}};
    row[FD_EVIDENCE] = (hta_cell){SQLITE_TEXT, 1, {.s = f->evidence}};
    f->title = f->evidence = 0;
    hta_cell_double(&row[FD_TIME], f->time_us);
    hta_cell_double(&row[FD_PCT], f->pct);
    if (f->has_count) hta_cell_int(&row[FD_COUNT], f->count);
    hta_cell_static(&row[FD_ADVICE], f->advice);
    hta_cell_static(&row[FD_SOURCE], f->rule->source);
    if (f->has_trace) hta_cell_int(&row[FD_TRACE_ID], f->trace_id);
  }
  return SQLITE_OK;
}

static int fdRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  fd_ctx x;
  (void)pzErr;
  memset(&x, 0, sizeof x);
  x.db = db;
  x.schema = a->scope.schema;
  x.job_id = a->scope.job_id;
  x.min_pct = a->p[FD_P_MIN_PCT];
  x.has_rank = a->has_rank;
  x.rank = a->rank;
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, x.schema, "SELECT name FROM $S.job WHERE job_id = ?1", &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, x.job_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
        !(x.job = sqlite3_mprintf("%s", sqlite3_column_text(st, 0))))
      rc = SQLITE_NOMEM;
    rc = fd_done(st, rc);
  }
  if (rc == SQLITE_OK) rc = fdLoadUnits(&x, a);
  for (size_t i = 0; rc == SQLITE_OK && x.nu && i < sizeof fdRules / sizeof fdRules[0]; i++) {
    rc = fdRules[i].run(&x, &fdRules[i]);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  if (rc == SQLITE_OK) rc = fdOutput(&x, out);
  fdFree(&x);
  return rc;
}

static const hta_tvf fdTvf = {
    "hta_findings", FD_SCHEMA, FD_NVISIBLE, FD_RANK, 1, fdParams, fdRun,
};

int hta_register_findings(sqlite3 *db) { return hta_tvf_register(db, &fdTvf); }

/*
** vtab_util.c: helpers shared by the table-valued functions of hta.so.
**
**   hta_vtab_error()     replace a vtab's zErrMsg
**   hta_interrupted()    was sqlite3_interrupt() called on this connection?
**   hta_value_int64()    an integral SQL argument
**   hta_tid_key()        a thread key from a stored tid (integer or text)
**   hta_query_int64()    the one value of a query
**   hta_table_*          a computed result: rows of typed cells
**   hta_cell*()          typed cells, and rows of statistics
**   hta_tvf_register()   one generic eponymous-only module for analyses that
**                        compute their whole result up front (the breakdowns)
**
** The generic module ("tvf", methods tvf<Method>) exists so that six analyses
** share one xBestIndex/xFilter instead of six copies. Each analysis is a static
** hta_tvf: its CREATE TABLE string with the column #defines beside it, its
** parameters with defaults and bounds, and a run() function.
**
**   SELECT * FROM hta_kernel_breakdown(0.9, 5) WHERE rank = 1;
**   SELECT * FROM hta_kernel_breakdown WHERE num_kernels = 5 AND rank = 1;
**
** HOW IT WORKS: xConnect declares the analysis's columns followed by two of
** every analysis: `schema` (HIDDEN, the database read, default 'main') and `job`
** (the last visible column: the job each row belongs to). xBestIndex hands
** xFilter the EQ constraints on the hidden parameter columns, on rank, on schema
** and on job (series.c style, idxNum bits below). xFilter checks every argument,
** runs the analysis once per job of the schema (or for the one job named) into an
** hta_table, and the cursor walks those rows, each with its job's name. Hidden
** parameter columns read back the value used.
**
** Requirements (tests cite them as TVF-n):
**  1. A parameter without a constraint takes its default. A parameter that is
**     NULL, not a number, not an integer where one is required, or out of its
**     bounds is an error "<function>: <parameter> must be <what>".
**  2. WHERE rank = N keeps only rank N; rank = NULL or a non-integral rank gives
**     no rows. Other constraints on rank are left to SQLite.
**  3. An EQ constraint on a parameter, or on a hidden rank column, that SQLite
**     cannot hand over (e.g. equal to another table's column in a join order that
**     does not allow it) makes that plan unusable (SQLITE_CONSTRAINT), never wrong.
**     A hidden rank column reads back NULL when rank was not constrained.
**  4. Each job is analysed on its own (DESIGN 4): a database of several jobs gives
**     every job's rows exactly as that job alone, jobs in job_id order. WHERE job =
**     NAME runs only that job (no rows when none is named so; NULL: none).
**  5. WHERE schema = S reads the ATTACHed database S (JOB-1 errors otherwise).
**  6. A parameter of kind HTA_PARAM_VALUE (is_real == 2) takes any SQL value
**     unchecked: run() sees a copy in args.v[k] (NULL when not given, run()
**     applies its own default) and the column reads it back.
**  7. run() sees which columns the statement reads (args.col_used, SQLite's colUsed
**     handed from xBestIndex to xFilter as idxStr), so that it may leave out a costly
**     column nobody reads; every column when that is unknown.
*/
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- small helpers */

void hta_vtab_error(sqlite3_vtab *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sqlite3_free(p->zErrMsg);
  p->zErrMsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
}

int hta_interrupted(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3041000
  if (sqlite3_libversion_number() >= 3041000) return sqlite3_is_interrupted(db);
#endif
  /* Older SQLite: a statement started while another one runs (ours always are:
  ** we are inside an xFilter) sees the pending interrupt on its first step. */
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, "SELECT 1", -1, &st, 0);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_INTERRUPT;
}

int hta_value_int64(sqlite3_value *v, int64_t *out) {
  int t = sqlite3_value_numeric_type(v);
  if (t == SQLITE_INTEGER) {
    *out = sqlite3_value_int64(v);
    return 1;
  }
  if (t == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(int64_t)d) {
      *out = (int64_t)d;
      return 1;
    }
  }
  return 0;
}

int64_t hta_tid_key(sqlite3_value *v) {
  int64_t k;
  if (sqlite3_value_type(v) == SQLITE_NULL) return INT64_MIN;
  if (hta_value_int64(v, &k)) return k;
  const unsigned char *s = sqlite3_value_text(v);
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; s && *s; s++) h = (h ^ *s) * 1099511628211ull;
  return (int64_t)((h >> 2) | (1ull << 62));
}

int hta_query_int64(sqlite3 *db, const char *schema, const char *sql, int nbind,
                    const int64_t *bind, int64_t *out, int *isnull) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema, sql, &st);
  *out = 0;
  *isnull = 1;
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < nbind; i++) sqlite3_bind_int64(st, i + 1, bind[i]);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
      *isnull = 0;
      *out = sqlite3_column_int64(st, 0);
    }
    rc = SQLITE_OK;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---------------------------------------------------------------- result tables */

hta_cell *hta_table_add_row(hta_table *t) {
  if (t->nrow == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 16;
    hta_cell *c = sqlite3_realloc64(t->cells, (sqlite3_uint64)cap * t->ncol * sizeof *c);
    if (!c) return 0;
    t->cells = c;
    t->cap = cap;
  }
  hta_cell *row = t->cells + t->nrow * t->ncol;
  memset(row, 0, (size_t)t->ncol * sizeof *row);
  for (int i = 0; i < t->ncol; i++) row[i].type = SQLITE_NULL;
  t->nrow++;
  return row;
}

void hta_table_free(hta_table *t) {
  for (size_t i = 0; i < t->nrow * (size_t)t->ncol; i++) {
    if (t->cells[i].owned) sqlite3_free((void *)t->cells[i].v.s);
  }
  sqlite3_free(t->cells);
  for (size_t i = 0; i < t->nkeep; i++) sqlite3_free(t->keep[i]);
  sqlite3_free(t->keep);
  t->cells = 0;
  t->nrow = t->cap = 0;
  t->keep = 0;
  t->nkeep = t->akeep = 0;
}

int hta_table_keep(hta_table *t, char *s) {
  HTA_PUSH(t->keep, t->nkeep, t->akeep, 16, s, keep_oom);
  return SQLITE_OK;
keep_oom:
  sqlite3_free(s);
  return SQLITE_NOMEM;
}

void hta_cell_int(hta_cell *c, int64_t i) {
  c->type = SQLITE_INTEGER;
  c->v.i = i;
}

void hta_cell_double(hta_cell *c, double d) {
  if (isnan(d)) return;
  c->type = SQLITE_FLOAT;
  c->v.d = d;
}

void hta_cell_static(hta_cell *c, const char *s) {
  c->type = SQLITE_TEXT;
  c->owned = 0;
  c->v.s = s;
}

int hta_cell_text(hta_cell *c, const char *s) {
  char *p = sqlite3_mprintf("%s", s);
  if (!p) return SQLITE_NOMEM;
  c->type = SQLITE_TEXT;
  c->owned = 1;
  c->v.s = p;
  return SQLITE_OK;
}

void hta_cell_result(sqlite3_context *ctx, const hta_cell *c) {
  switch (c->type) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, c->v.i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, c->v.d); break;
  case SQLITE_TEXT: sqlite3_result_text(ctx, c->v.s, -1, SQLITE_TRANSIENT); break;
  default: sqlite3_result_null(ctx); break;
  }
}

void hta_cells_describe(hta_cell *row, int first_col, const hta_describe *d) {
  hta_cell *c = row + first_col;
  hta_cell_int(&c[0], d->count);
  hta_cell_double(&c[1], d->mean);
  hta_cell_double(&c[2], d->std);
  hta_cell_double(&c[3], d->min);
  hta_cell_double(&c[4], d->p25);
  hta_cell_double(&c[5], d->p50);
  hta_cell_double(&c[6], d->p75);
  hta_cell_double(&c[7], d->max);
}

void hta_cells_topk(hta_cell *row, int first_col, const hta_topk_row *r) {
  hta_cell *c = row + first_col;
  hta_cell_int(&c[0], r->count);
  hta_cell_double(&c[1], r->sum_us);
  hta_cell_double(&c[2], r->max_us);
  hta_cell_double(&c[3], r->min_us);
  hta_cell_double(&c[4], r->mean_us);
  hta_cell_double(&c[5], r->std_us);
}

/* ---------------------------------------------------------------- the generic module */

typedef struct tvf_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const hta_tvf *def;
} tvf_vtab;

typedef struct tvf_cursor {
  sqlite3_vtab_cursor base;
  hta_table t;       /* the result of the last xFilter: every job's rows */
  size_t i;          /* current row */
  hta_tvf_args args; /* what the hidden columns read back */
  int rank_null;     /* rank = NULL or not integral: no rows */
  char *schema;      /* args.scope.schema points here */
  hta_job *jobs;     /* the jobs analysed */
  size_t njobs;
  size_t *job_end; /* job_end[k]: one past jobs[k]'s last row in t */
  size_t jk;       /* the job of row i (rows only move forward) */
} tvf_cursor;

/* The columns every analysis gets after its own: see "HOW IT WORKS". */
static int tvfSchemaCol(const hta_tvf *def) {
  return def->nvisible + def->nparam + (def->rank_col >= def->nvisible);
}
static int tvfJobCol(const hta_tvf *def) { return tvfSchemaCol(def) + 1; }

/* Forgets the last scan's rows and jobs. */
static void tvfReset(tvf_cursor *c) {
  hta_table_free(&c->t);
  for (int k = 0; k < HTA_TVF_MAXPARAM; k++) {
    sqlite3_value_free(c->args.v[k]); /* TVF-6 */
    c->args.v[k] = 0;
  }
  hta_jobs_free(c->jobs, c->njobs);
  sqlite3_free(c->job_end);
  sqlite3_free(c->schema);
  c->jobs = 0;
  c->njobs = 0;
  c->job_end = 0;
  c->schema = 0;
  c->i = 0;
  c->jk = 0;
}

static int tvfConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr) {
  const hta_tvf *def = pAux;
  tvf_vtab *p;
  size_t len = strlen(def->schema);
  /* def->schema ends in ")": the two scope columns go before it. */
  char *z = sqlite3_mprintf("%.*s, schema HIDDEN, job)", (int)(len - 1), def->schema);
  int rc = z ? sqlite3_declare_vtab(db, z) : SQLITE_NOMEM;
  sqlite3_free(z);
  if (rc != SQLITE_OK) {
    *pzErr = sqlite3_mprintf("%s: %s", def->name, sqlite3_errmsg(db));
    return rc;
  }
  /* Innocuous: the analyses only read this database and have no side effects. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  p = sqlite3_malloc64(sizeof *p);
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, sizeof *p);
  p->db = db;
  p->def = def;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int tvfDisconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int tvfOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  tvf_cursor *c = sqlite3_malloc64(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->t.ncol = ((tvf_vtab *)pVtab)->def->nvisible;
  *ppCursor = &c->base;
  return SQLITE_OK;
}

static int tvfClose(sqlite3_vtab_cursor *cur) {
  tvf_cursor *c = (tvf_cursor *)cur;
  tvfReset(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

/*
** idxNum bits, shared by tvfBestIndex and tvfFilter:
**   bit 0            an EQ constraint on rank is passed;
**   bit 1 + k        an EQ constraint on parameter k is passed;
**   bit 1 + nparam   an EQ constraint on schema is passed;
**   bit 2 + nparam   an EQ constraint on job is passed.
** argv holds them in that order: rank first, the parameters by position, schema, job.
*/
static int tvfBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *info) {
  const hta_tvf *def = ((tvf_vtab *)pVtab)->def;
  int aIdx[3 + HTA_TVF_MAXPARAM]; /* constraint index per slot (0 = rank), or -1 */
  int unusable = 0;               /* bitmask of slots with an unusable EQ */
  int nslot = 3 + def->nparam;
  int jobSlot = nslot - 1;
  for (int k = 0; k < nslot; k++) aIdx[k] = -1;

  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *pc = &info->aConstraint[i];
    int slot;
    if (pc->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (pc->iColumn == def->rank_col) slot = 0;
    else if (pc->iColumn >= def->nvisible && pc->iColumn < def->nvisible + def->nparam)
      slot = 1 + pc->iColumn - def->nvisible;
    else if (pc->iColumn == tvfSchemaCol(def)) slot = 1 + def->nparam;
    else if (pc->iColumn == tvfJobCol(def)) slot = jobSlot;
    else continue;
    if (!pc->usable) unusable |= 1 << slot;
    else if (aIdx[slot] < 0) aIdx[slot] = i;
  }
  /* A parameter that cannot be handed over must not silently take its default, nor
  ** may a hidden rank column (it reads NULL when unconstrained): TVF-3. */
  for (int k = def->rank_col >= def->nvisible ? 0 : 1; k < jobSlot; k++) {
    if ((unusable >> k & 1) && aIdx[k] < 0) return SQLITE_CONSTRAINT;
  }
  int idxNum = 0, nArg = 0;
  for (int k = 0; k < nslot; k++) {
    if (aIdx[k] < 0) continue;
    idxNum |= 1 << k;
    info->aConstraintUsage[aIdx[k]].argvIndex = ++nArg;
    info->aConstraintUsage[aIdx[k]].omit = 1;
  }
  info->idxNum = idxNum;
  /* The columns read, for analyses that can skip costly ones (NULL: take all). */
  info->idxStr = sqlite3_mprintf("%llx", (unsigned long long)info->colUsed);
  info->needToFreeIdxStr = 1;
  /* Restricting to one rank loads a fraction of the data. */
  info->estimatedCost = (idxNum & 1) ? 1000.0 : 100000.0;
  info->estimatedRows = (idxNum & 1) ? 10 : 100;
  return SQLITE_OK;
}

/* Reads parameter P from V into *OUT; 0 on success, else sets the vtab error. */
static int tvfParam(sqlite3_vtab *vt, const hta_tvf *def, const hta_param *p, sqlite3_value *v,
                    double *out) {
  int t = sqlite3_value_numeric_type(v);
  double d = 0;
  int ok = 0;
  if (t == SQLITE_INTEGER) {
    d = (double)sqlite3_value_int64(v);
    ok = 1;
  } else if (t == SQLITE_FLOAT) {
    d = sqlite3_value_double(v);
    ok = isfinite(d) && (p->is_real || d == floor(d));
  }
  if (!ok || d < p->min || d > p->max) {
    hta_vtab_error(vt, "%s: %s must be %s", def->name, p->name, p->what);
    return 1;
  }
  *out = d;
  return 0;
}

/* Moves SRC's rows (and kept texts) to the end of DST (same ncol); SRC is left empty.
** An empty DST takes SRC's arrays as they are (one job: no copy). */
static int tvfAppend(hta_table *dst, hta_table *src) {
  if (dst->nrow == 0 && dst->nkeep == 0) {
    hta_table_free(dst);
    *dst = *src;
    memset(src, 0, sizeof *src);
    src->ncol = dst->ncol;
    return SQLITE_OK;
  }
  for (size_t r = 0; r < src->nrow; r++) {
    hta_cell *row = hta_table_add_row(dst);
    if (!row) return SQLITE_NOMEM;
    memcpy(row, src->cells + r * src->ncol, (size_t)src->ncol * sizeof *row);
  }
  sqlite3_free(src->cells); /* owned text now belongs to DST */
  src->cells = 0;
  src->nrow = src->cap = 0;
  for (size_t i = 0; i < src->nkeep; i++) { /* so do the kept texts */
    if (hta_table_keep(dst, src->keep[i]) != SQLITE_OK) {
      src->keep[i] = 0;
      return SQLITE_NOMEM;
    }
    src->keep[i] = 0;
  }
  src->nkeep = 0;
  return SQLITE_OK;
}

/* Runs the analysis for each of the cursor's jobs, in order (TVF-4). */
static int tvfRunJobs(tvf_cursor *c, tvf_vtab *vt, char **pzErr) {
  const hta_tvf *def = vt->def;
  hta_table one = {.ncol = def->nvisible};
  int rc = SQLITE_OK;
  c->job_end = sqlite3_malloc64((c->njobs ? c->njobs : 1) * sizeof *c->job_end);
  if (!c->job_end) return SQLITE_NOMEM;
  for (size_t k = 0; k < c->njobs && rc == SQLITE_OK; k++) {
    c->args.scope.job_id = c->jobs[k].job_id;
    rc = def->run(vt->db, &c->args, &one, pzErr);
    if (rc == SQLITE_OK) rc = tvfAppend(&c->t, &one);
    hta_table_free(&one);
    c->job_end[k] = c->t.nrow;
    if (rc == SQLITE_OK && k + 1 < c->njobs && hta_interrupted(vt->db)) rc = SQLITE_INTERRUPT;
  }
  return rc;
}

/* See the idxNum bits above tvfBestIndex. */
static int tvfFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  tvf_cursor *c = (tvf_cursor *)cur;
  tvf_vtab *vt = (tvf_vtab *)cur->pVtab;
  const hta_tvf *def = vt->def;
  int iArg = 0, rc;
  char *zErr = 0;
  const char *schema = "main", *job = 0;

  tvfReset(c);
  c->rank_null = 0;
  memset(&c->args, 0, sizeof c->args);
  c->args.col_used = idxStr ? (uint64_t)strtoull(idxStr, 0, 16) : ~(uint64_t)0;
  for (int k = 0; k < def->nparam; k++) c->args.p[k] = def->params[k].dflt;

  if (idxNum & 1) {
    c->args.has_rank = 1;
    /* TVF-2: no rank equals NULL, text or 1.5 */
    if (!hta_value_int64(argv[iArg++], &c->args.rank)) c->rank_null = 1;
  }
  for (int k = 0; k < def->nparam; k++) {
    if (!(idxNum >> (k + 1) & 1)) continue;
    if (iArg >= argc) break;
    if (def->params[k].is_real == HTA_PARAM_VALUE) { /* TVF-6 */
      if (!(c->args.v[k] = sqlite3_value_dup(argv[iArg++]))) return SQLITE_NOMEM;
      continue;
    }
    if (tvfParam(&vt->base, def, &def->params[k], argv[iArg++], &c->args.p[k])) return SQLITE_ERROR;
  }
  if (idxNum >> (1 + def->nparam) & 1 && iArg < argc) {
    schema = (const char *)sqlite3_value_text(argv[iArg++]);
    if (!schema) {
      hta_vtab_error(&vt->base, "%s: schema must be a database name", def->name);
      return SQLITE_ERROR;
    }
  }
  if (idxNum >> (2 + def->nparam) & 1 && iArg < argc) {
    job = (const char *)sqlite3_value_text(argv[iArg++]);
    if (!job) c->rank_null = 1; /* TVF-4: no job is named NULL */
  }
  if (!(c->schema = sqlite3_mprintf("%s", schema))) return SQLITE_NOMEM;
  c->args.scope.schema = c->schema;
  rc = hta_scope_check(vt->db, def->name, c->schema, &zErr);
  if (rc == SQLITE_OK && !c->rank_null)
    rc = hta_jobs_load(vt->db, c->schema, job, &c->jobs, &c->njobs);
  if (rc == SQLITE_OK && !c->rank_null) rc = tvfRunJobs(c, vt, &zErr);
  if (rc != SQLITE_OK) {
    hta_table_free(&c->t);
    if (zErr) {
      hta_vtab_error(&vt->base, "%s", zErr);
      sqlite3_free(zErr);
    } else if (rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT) {
      hta_vtab_error(&vt->base, "%s: %s", def->name, sqlite3_errmsg(vt->db));
    }
  }
  return rc;
}

static int tvfNext(sqlite3_vtab_cursor *cur) {
  ((tvf_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int tvfEof(sqlite3_vtab_cursor *cur) {
  tvf_cursor *c = (tvf_cursor *)cur;
  return c->i >= c->t.nrow;
}

static int tvfColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  tvf_cursor *c = (tvf_cursor *)cur;
  const hta_tvf *def = ((tvf_vtab *)cur->pVtab)->def;
  if (col < def->nvisible) {
    hta_cell_result(ctx, &c->t.cells[c->i * c->t.ncol + col]);
  } else if (col < def->nvisible + def->nparam) {
    const hta_param *p = &def->params[col - def->nvisible];
    double d = c->args.p[col - def->nvisible];
    if (p->is_real == HTA_PARAM_VALUE) {
      if (c->args.v[col - def->nvisible]) sqlite3_result_value(ctx, c->args.v[col - def->nvisible]);
    } else if (p->is_real) sqlite3_result_double(ctx, d);
    else sqlite3_result_int64(ctx, (sqlite3_int64)d);
  } else if (col == def->rank_col && c->args.has_rank) {
    sqlite3_result_int64(ctx, c->args.rank);
  } else if (col == tvfSchemaCol(def)) {
    sqlite3_result_text(ctx, c->schema, -1, SQLITE_TRANSIENT);
  } else if (col == tvfJobCol(def)) {
    while (c->jk + 1 < c->njobs && c->job_end[c->jk] <= c->i) c->jk++;
    if (c->jk < c->njobs && c->jobs[c->jk].name) {
      sqlite3_result_text(ctx, c->jobs[c->jk].name, -1, SQLITE_TRANSIENT);
    }
  }
  return SQLITE_OK;
}

static int tvfRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = (sqlite_int64)((tvf_cursor *)cur)->i + 1;
  return SQLITE_OK;
}

/* Designated initializers: the struct grows fields across SQLite versions. */
static const sqlite3_module tvfModule = {
    .iVersion = 0,
    .xCreate = 0, /* eponymous-only */
    .xConnect = tvfConnect,
    .xBestIndex = tvfBestIndex,
    .xDisconnect = tvfDisconnect,
    .xOpen = tvfOpen,
    .xClose = tvfClose,
    .xFilter = tvfFilter,
    .xNext = tvfNext,
    .xEof = tvfEof,
    .xColumn = tvfColumn,
    .xRowid = tvfRowid,
};

int hta_tvf_register(sqlite3 *db, const hta_tvf *def) {
  return sqlite3_create_module_v2(db, def->name, &tvfModule, (void *)def, 0);
}

int hta_tvf_register_all(sqlite3 *db, const hta_tvf *const *defs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int rc = hta_tvf_register(db, defs[i]);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

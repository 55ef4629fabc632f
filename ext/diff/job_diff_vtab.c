/*
** job_diff_vtab.c: the table-valued function module the two-run comparisons share
** (hta_job_diff, hta_job_diff_summary): two jobs, one rank each, possibly in two
** databases of the connection, instead of the one job every other analysis takes.
**
** Parameters (HIDDEN, after the visible columns, in this order):
**   control_job, test_job       job names; default the first and the last job (by
**                               job_id) of their schema
**   control_rank, test_rank     default the control job's lowest rank; the test side
**                               takes the control's rank when its job has it, else
**                               its own lowest
**   control_schema, test_schema 'main' or an ATTACHed database (default 'main')
** NULL means the default. Each side is one trace file: the first (lowest trace_id)
** of that rank. A job, rank or schema the database does not hold is an error naming
** the function and the parameter; a side without a trace gives no rows. The hidden
** columns read back the values used.
**
** HOW IT WORKS: xBestIndex hands every EQ constraint on a parameter to xFilter
** (bit k of idxNum = parameter k, argv in that order; an unusable one makes the plan
** unusable). xFilter resolves both sides into a jd_pair and calls the function's
** run(), which fills an hta_table the cursor walks.
*/
#include <math.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static const char *const jdParamNames[JD_NPARAM] = {"control_job", "test_job",       "control_rank",
                                                    "test_rank",   "control_schema", "test_schema"};

/* What a module is registered with: its function, and how to register the extension on
** a connection of its own (hta_par2), from the entry point above. */
typedef struct jdv_aux {
  const jd_def *def;
  int (*register_all)(sqlite3 *);
} jdv_aux;

typedef struct jdv_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const jd_def *def;
  int (*register_all)(sqlite3 *);
} jdv_vtab;

typedef struct jdv_cursor {
  sqlite3_vtab_cursor base;
  jd_result r;
  size_t i;
  jd_pair p;
} jdv_cursor;

static void jdResultFree(jd_result *r) {
  hta_table_free(&r->t);
  if (r->lazy && r->lazy_free) r->lazy_free(r->lazy);
  memset(r, 0, sizeof *r);
}

static size_t jdRows(const jd_result *r) { return r->lazy ? r->nlazy : r->t.nrow; }

static void jdPairReset(jd_pair *p) {
  for (int k = 0; k < 2; k++) {
    sqlite3_free(p->job[k]);
    sqlite3_free(p->schema[k]);
  }
  sqlite3_free(p->split);
  memset(p, 0, sizeof *p);
}

static int jdvConnect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr) {
  const jdv_aux *a = aux;
  const jd_def *def = a->def;
  jdv_vtab *v;
  char *sql;
  int rc;
  (void)argc, (void)argv;
  sql = sqlite3_mprintf(
      "%.*s, control_job HIDDEN, test_job HIDDEN, control_rank HIDDEN,"
      " test_rank HIDDEN, control_schema HIDDEN, test_schema HIDDEN)",
      (int)strlen(def->schema) - 1, def->schema);
  if (!sql) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    *pzErr = sqlite3_mprintf("%s: %s", def->name, sqlite3_errmsg(db));
    return rc;
  }
  v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  v->def = def;
  v->register_all = a->register_all;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = &v->base;
  return SQLITE_OK;
}

static int jdvDisconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int jdvOpen(sqlite3_vtab *vt, sqlite3_vtab_cursor **pp) {
  jdv_cursor *c = sqlite3_malloc(sizeof *c);
  (void)vt;
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}

static int jdvClose(sqlite3_vtab_cursor *cur) {
  jdv_cursor *c = (jdv_cursor *)cur;
  jdResultFree(&c->r);
  jdPairReset(&c->p);
  sqlite3_free(c);
  return SQLITE_OK;
}

/*
** idxNum: bit k (0..5) = an EQ constraint on parameter k (control_job, test_job,
** control_rank, test_rank, control_schema, test_schema) is passed; argv holds the
** values in that order; bit 6 (JDV_SPLIT) = then an EQ constraint on the def's split
** column (not omitted: SQLite still checks it; the run skips the splits not asked for).
*/
#define JDV_SPLIT (1 << JD_NPARAM)
static int jdvBestIndex(sqlite3_vtab *vt, sqlite3_index_info *info) {
  const jd_def *def = ((jdv_vtab *)vt)->def;
  int first = def->nvisible, aIdx[JD_NPARAM], unusable = 0, idxNum = 0, n = 0, split = -1;
  for (int k = 0; k < JD_NPARAM; k++) aIdx[k] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *pc = &info->aConstraint[i];
    int k = pc->iColumn - first;
    if (def->split_col >= 0 && pc->iColumn == def->split_col && pc->usable && split < 0 &&
        pc->op == SQLITE_INDEX_CONSTRAINT_EQ)
      split = i;
    if (k < 0 || k >= JD_NPARAM || pc->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!pc->usable) unusable |= 1 << k;
    else if (aIdx[k] < 0) aIdx[k] = i;
  }
  for (int k = 0; k < JD_NPARAM; k++)
    if ((unusable >> k & 1) && aIdx[k] < 0) return SQLITE_CONSTRAINT;
  for (int k = 0; k < JD_NPARAM; k++) {
    if (aIdx[k] < 0) continue;
    idxNum |= 1 << k;
    info->aConstraintUsage[aIdx[k]].argvIndex = ++n;
    info->aConstraintUsage[aIdx[k]].omit = 1;
  }
  if (split >= 0) {
    idxNum |= JDV_SPLIT;
    info->aConstraintUsage[split].argvIndex = ++n;
  }
  info->idxNum = idxNum;
  info->estimatedCost = 1e6;
  info->estimatedRows = 10000;
  return SQLITE_OK;
}

/* The first trace of RANK of side K's job into p->t[k]; 0 in *FOUND when none. */
static int jdSideTrace(sqlite3 *db, jd_pair *p, int k, int *found) {
  hta_traces ts;
  hta_scope sc = {p->schema[k], p->job_id[k]};
  int rc = hta_traces_load(db, &sc, 1, p->rank[k], 1, &ts);
  *found = 0;
  if (rc == SQLITE_OK && ts.n > 0) {
    p->t[k] = ts.a[0];
    p->t[k].schema = p->schema[k];
    *found = 1;
  }
  if (rc == SQLITE_OK) hta_traces_free(&ts);
  return rc;
}

/* Resolves side K (the job and rank used; see the header). */
static int jdResolve(sqlite3 *db, const char *fn, jd_pair *p, int k, char **pzErr) {
  static const char *const side[2] = {"control", "test"};
  hta_job *jobs = 0;
  size_t nj = 0;
  int64_t v = 0;
  int isnull = 1, rc = hta_scope_check(db, fn, p->schema[k], pzErr);
  if (rc == SQLITE_OK) rc = hta_jobs_load(db, p->schema[k], p->job[k], &jobs, &nj);
  if (rc != SQLITE_OK) return rc;
  if (!nj) {
    hta_jobs_free(jobs, nj);
    if (p->job[k])
      *pzErr = sqlite3_mprintf("%s: %s_job '%s' is not a job of schema %s", fn, side[k], p->job[k],
                               p->schema[k]);
    return p->job[k] ? SQLITE_ERROR : SQLITE_DONE; /* no job at all: no rows */
  }
  size_t pick = k == 1 && !p->job[k] ? nj - 1 : 0;
  p->job_id[k] = jobs[pick].job_id;
  if (!p->job[k] && jobs[pick].name) {
    p->job[k] = jobs[pick].name;
    jobs[pick].name = 0;
  }
  hta_jobs_free(jobs, nj);
  int64_t bind[2] = {p->job_id[k], p->rank[k]};
  if (p->has_rank[k]) {
    rc = hta_query_int64(db, p->schema[k],
                         "SELECT 1 FROM $T WHERE job_id = ?1 AND rank = ?2 LIMIT 1", 2, bind, &v,
                         &isnull);
    if (rc == SQLITE_OK && isnull) {
      *pzErr = sqlite3_mprintf("%s: %s_rank %lld is not a rank of job '%s'", fn, side[k],
                               (long long)p->rank[k], p->job[k] ? p->job[k] : "");
      rc = SQLITE_ERROR;
    }
    return rc;
  }
  if (k == 1) { /* the control's rank when this job has it */
    bind[1] = p->rank[0];
    rc = hta_query_int64(db, p->schema[k],
                         "SELECT 1 FROM $T WHERE job_id = ?1 AND rank = ?2 LIMIT 1", 2, bind, &v,
                         &isnull);
    if (rc == SQLITE_OK && !isnull) {
      p->rank[k] = p->rank[0];
      return SQLITE_OK;
    }
  }
  rc = hta_query_int64(db, p->schema[k], "SELECT min(rank) FROM $T WHERE job_id = ?1", 1, bind, &v,
                       &isnull);
  if (rc == SQLITE_OK) p->rank[k] = isnull ? 0 : v;
  return rc;
}

/* See the idxNum bits above jdvBestIndex. */
static int jdvFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                     sqlite3_value **argv) {
  jdv_cursor *c = (jdv_cursor *)cur;
  jdv_vtab *vt = (jdv_vtab *)cur->pVtab;
  const char *fn = vt->def->name;
  sqlite3_value *arg[JD_NPARAM] = {0, 0, 0, 0, 0, 0};
  char *zErr = 0;
  int rc = SQLITE_OK, n = 0, found[2] = {0, 0};
  (void)idxStr;
  jdResultFree(&c->r);
  jdPairReset(&c->p);
  c->i = 0;
  c->r.t.ncol = vt->def->nvisible;
  for (int k = 0; k < JD_NPARAM; k++)
    if ((idxNum >> k & 1) && n < argc) arg[k] = argv[n++];
  if ((idxNum & JDV_SPLIT) && n < argc) {
    const unsigned char *z = sqlite3_value_text(argv[n]);
    if (z && !(c->p.split = sqlite3_mprintf("%s", z))) return SQLITE_NOMEM;
  }
  for (int k = 0; k < JD_NPARAM; k++) {
    sqlite3_value *v = arg[k];
    if (!v || sqlite3_value_type(v) == SQLITE_NULL) continue;
    if (k == 2 || k == 3) { /* a rank: an integer */
      int t = sqlite3_value_numeric_type(v);
      double d = sqlite3_value_double(v);
      if (t == SQLITE_INTEGER) c->p.rank[k - 2] = sqlite3_value_int64(v);
      else if (t == SQLITE_FLOAT && fabs(d) < 9e15 && d == floor(d)) c->p.rank[k - 2] = (int64_t)d;
      else {
        hta_vtab_error(&vt->base, "%s: %s must be an integer", fn, jdParamNames[k]);
        return SQLITE_ERROR;
      }
      c->p.has_rank[k - 2] = 1;
      continue;
    }
    if (sqlite3_value_type(v) != SQLITE_TEXT) {
      hta_vtab_error(&vt->base, "%s: %s must be a %s name", fn, jdParamNames[k],
                     k < 2 ? "job" : "schema");
      return SQLITE_ERROR;
    }
    char **pz = k < 2 ? &c->p.job[k] : &c->p.schema[k - 4];
    if (!(*pz = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(v)))) return SQLITE_NOMEM;
  }
  for (int k = 0; k < 2; k++)
    if (!c->p.schema[k] && !(c->p.schema[k] = sqlite3_mprintf("main"))) return SQLITE_NOMEM;
  c->p.db = vt->db;
  c->p.register_all = vt->register_all;
  c->p.col_used = 0;
  for (int k = 0; k < 2 && rc == SQLITE_OK; k++) {
    rc = jdResolve(vt->db, fn, &c->p, k, &zErr);
    if (rc == SQLITE_OK) rc = jdSideTrace(vt->db, &c->p, k, &found[k]);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK; /* a schema without jobs: no rows */
  else if (rc == SQLITE_OK && found[0] && found[1]) {
    c->p.have = 1;
    rc = vt->def->run(vt->db, &c->p, &c->r, &zErr);
  }
  if (rc != SQLITE_OK) {
    jdResultFree(&c->r);
    if (zErr) hta_vtab_error(&vt->base, "%s", zErr);
    else if (rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
      hta_vtab_error(&vt->base, "%s: %s", fn, sqlite3_errmsg(vt->db));
  }
  sqlite3_free(zErr);
  return rc;
}

static int jdvNext(sqlite3_vtab_cursor *cur) {
  ((jdv_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int jdvEof(sqlite3_vtab_cursor *cur) {
  jdv_cursor *c = (jdv_cursor *)cur;
  return c->i >= jdRows(&c->r);
}

static int jdvColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  jdv_cursor *c = (jdv_cursor *)cur;
  int nv = ((jdv_vtab *)cur->pVtab)->def->nvisible, k = col - nv;
  if (col < nv && c->r.lazy) return c->r.column(c->r.lazy, c->i, col, ctx);
  if (col < nv) {
    hta_cell_result(ctx, &c->r.t.cells[c->i * (size_t)nv + (size_t)col]);
    return SQLITE_OK;
  }
  if (k < 2 && c->p.job[k]) sqlite3_result_text(ctx, c->p.job[k], -1, SQLITE_TRANSIENT);
  else if (k >= 2 && k < 4) sqlite3_result_int64(ctx, c->p.rank[k - 2]);
  else if (k >= 4 && c->p.schema[k - 4])
    sqlite3_result_text(ctx, c->p.schema[k - 4], -1, SQLITE_TRANSIENT);
  return SQLITE_OK;
}

static int jdvRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = (sqlite_int64)((jdv_cursor *)cur)->i + 1;
  return SQLITE_OK;
}

static const sqlite3_module jdvModule = {
    .iVersion = 0,
    .xConnect = jdvConnect,
    .xBestIndex = jdvBestIndex,
    .xDisconnect = jdvDisconnect,
    .xOpen = jdvOpen,
    .xClose = jdvClose,
    .xFilter = jdvFilter,
    .xNext = jdvNext,
    .xEof = jdvEof,
    .xColumn = jdvColumn,
    .xRowid = jdvRowid,
};

int hta_register_job_diff(sqlite3 *db, int (*register_all)(sqlite3 *)) {
  const jd_def *const defs[] = {&jd_diff_def, &jd_summary_def};
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
    jdv_aux *a = sqlite3_malloc(sizeof *a);
    if (!a) return SQLITE_NOMEM;
    a->def = defs[i];
    a->register_all = register_all;
    /* the module owns A from here: freed with it, also when this fails */
    int rc = sqlite3_create_module_v2(db, defs[i]->name, &jdvModule, a, sqlite3_free);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

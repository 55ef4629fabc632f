/*
** trace_diff.c: HTA's TraceDiff.compare_traces (spec hta_semantics.md 2.11,
** DESIGN.md 4) as an eponymous table-valued function, read-only.
**
**   SELECT * FROM hta_trace_diff;                            -- first rank, first step, twice
**   SELECT * FROM hta_trace_diff(0, 551, 1, 551);            -- rank 0 vs rank 1
**   SELECT * FROM hta_trace_diff WHERE control_iteration = 551 AND test_iteration = 552;
**   ATTACH 'other.db' AS b;
**   SELECT * FROM hta_trace_diff WHERE test_schema = 'b';    -- main vs another database
**   SELECT * FROM hta_trace_diff WHERE control_job = 'run-1' AND test_job = 'run-2';
**
** hta_trace_diff(control_rank, control_iteration, test_rank, test_iteration,
**                test_schema='main', control_job, test_job, control_schema='main')
**   columns: name, control_counts, control_total_duration_us, test_counts,
**            test_total_duration_us, diff_counts, diff_duration_us, change, change_class
**
** Requirements (numbered so tests can cite them):
**  R1. No alignment and no last-ProfilerStep cut (HTA's TraceDiff only parses).
**  R2. Control rows come from control_schema, test rows from test_schema (both
**      'main' by default), each from one job of its schema (DESIGN 4): the job
**      named by control_job / test_job, else the first job (lowest job_id) of
**      that schema. A rank that is absent or NULL means the lowest rank of that
**      side's job; an iteration that is absent or NULL means the lowest
**      ProfilerStep number of that side's job (HTA's iterations(): every host
**      step of every trace).
**  R3. An explicit rank that no trace of the job has, an explicit iteration
**      that is no step number of the job, or a job name the schema does not
**      hold is an error (HTA raises ValueError). A schema that is not attached
**      (or not an hta-sqlite database) is an error. A schema without traces or
**      a job without steps gives no rows.
**  R4. A side's rows = the events HTA loads (dur and category present, category
**      not "Trace") of every trace of that rank whose iteration equals the
**      side's iteration, host and GPU alike (device_type ALL). They are grouped by
**      full name over all categories: counts = rows, total_duration = sum of dur.
**  R5. Outer join on name, a missing side counts 0. diff_* = test - control.
**      change = '+', '-' or '=' by the sign of diff_counts (HTA's
**      counts_change_categories; expected/README.md maps it to `change`).
**      change_class = HTA's ops_diff class: 'added' (control 0), 'deleted'
**      (test 0), 'increased', 'decreased' or 'unchanged' (by diff_counts).
**  R6. Rows: the control names ascending (byte order), then the names found only
**      in test, ascending.
**  R7. Total durations, and diff_duration_us, saturate at INT64_MIN / INT64_MAX
**      ns (about +-9223372036854775.8 us) instead of overflowing, as every
**      analysis does (hta_common.h): a database holding durations near the int64
**      limits still gets its rows, never an "integer overflow" error. Counts, and
**      every sum that fits, are exact.
**
** HOW IT WORKS: each side runs one GROUP BY name_id query per trace of the rank,
** over the trace's rowid range (event_id = trace_id << 32 | ordinal), then sorts its
** names in C; the two sorted lists are merged into an hta_table that the cursor
** walks. The query sums three 21-bit slices of dur, which SQL's sum() cannot
** overflow, and tdSumSat joins them into one saturated sum (R7). The schema name
** is always quoted as an identifier ("%w"), never pasted raw.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define TD_NAME 0
#define TD_CONTROL_COUNTS 1
#define TD_CONTROL_TOTAL_DURATION_US 2
#define TD_TEST_COUNTS 3
#define TD_TEST_TOTAL_DURATION_US 4
#define TD_DIFF_COUNTS 5
#define TD_DIFF_DURATION_US 6
#define TD_CHANGE 7
#define TD_CHANGE_CLASS 8
#define TD_NOUT 9
/* HIDDEN parameters, in argument order */
#define TD_CONTROL_RANK 9
#define TD_CONTROL_ITERATION 10
#define TD_TEST_RANK 11
#define TD_TEST_ITERATION 12
#define TD_TEST_SCHEMA 13
#define TD_CONTROL_JOB 14
#define TD_TEST_JOB 15
#define TD_CONTROL_SCHEMA 16
#define TD_NPARAM 8
static const char tdSchema[] =
    "CREATE TABLE x(name TEXT, control_counts INTEGER, control_total_duration_us REAL,"
    " test_counts INTEGER, test_total_duration_us REAL, diff_counts INTEGER,"
    " diff_duration_us REAL, change TEXT, change_class TEXT,"
    " control_rank HIDDEN, control_iteration HIDDEN, test_rank HIDDEN,"
    " test_iteration HIDDEN, test_schema HIDDEN, control_job HIDDEN, test_job HIDDEN,"
    " control_schema HIDDEN)";

typedef struct td_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} td_vtab;

/* The parameters as used (what the hidden columns read back). */
typedef struct td_args {
  int hasRank[2], hasIter[2]; /* [0] control, [1] test: an explicit value */
  int64_t rank[2], iter[2];   /* effective values (when resolved) */
  int resolved[2];            /* rank and iteration known */
  char *zSchema[2];           /* each side's schema name, sqlite3_malloc'd */
  char *zJob[2];              /* each side's job name (as given, or resolved), or NULL */
  int64_t jobId[2];
} td_args;

typedef struct td_cursor {
  sqlite3_vtab_cursor base;
  hta_table t;
  size_t i;
  td_args a;
} td_cursor;

/* One name of one side: rows and summed durations (ns). */
typedef struct td_row {
  char *zName; /* sqlite3_malloc'd */
  int64_t count, dur;
} td_row;

/* One side's summary, names ascending once tdSideSort ran. */
typedef struct td_side {
  td_row *a;
  size_t n, nAlloc;
} td_side;

static void tdSideFree(td_side *s) {
  for (size_t i = 0; i < s->n; i++) sqlite3_free(s->a[i].zName);
  sqlite3_free(s->a);
  memset(s, 0, sizeof(*s));
}

static int tdSidePush(td_side *s, const char *z, int64_t count, int64_t dur) {
  if (s->n == s->nAlloc) {
    size_t n = s->nAlloc ? s->nAlloc * 2 : 64;
    td_row *a = sqlite3_realloc64(s->a, n * sizeof(td_row));
    if (!a) return SQLITE_NOMEM;
    s->a = a;
    s->nAlloc = n;
  }
  s->a[s->n].zName = sqlite3_mprintf("%s", z ? z : "");
  if (!s->a[s->n].zName) return SQLITE_NOMEM;
  s->a[s->n].count = count;
  s->a[s->n].dur = dur;
  s->n++;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- one side */

/*
** Runs SQL (tables named $S.x) in ZSCHEMA with the given integer binds and returns
** its first column in *pVal; *pHas = 0 (*pVal unchanged) when no row or NULL.
*/
static int tdScalar(sqlite3 *db, const char *zSql, const char *zSchema, int nBind,
                    const int64_t *aBind, int64_t *pVal, int *pHas) {
  int64_t v;
  int isnull, rc;
  *pHas = 0;
  rc = hta_query_int64(db, zSchema, zSql, nBind, aBind, &v, &isnull);
  if (rc == SQLITE_OK && !isnull) {
    *pVal = v;
    *pHas = 1;
  }
  return rc;
}

/*
** R2/R3: resolves side k's rank and iteration in schema zSchema. Sets
** a->resolved[k] = 0 when the schema has no trace or no step (no rows).
** Errors go to *pzErr (sqlite3_malloc'd).
*/
static int tdResolve(sqlite3 *db, td_args *a, int k, char **pzErr) {
  static const char *const azSide[2] = {"control", "test"};
  const char *zSchema = a->zSchema[k];
  int64_t v = 0, bind[2];
  int has = 0, rc;
  hta_job *jobs = 0;
  size_t njobs = 0;
  a->resolved[k] = 0;
  rc = hta_scope_check(db, "hta_trace_diff", zSchema, pzErr);
  if (rc == SQLITE_OK) rc = hta_jobs_load(db, zSchema, a->zJob[k], &jobs, &njobs);
  if (rc != SQLITE_OK) return rc;
  if (njobs == 0) {
    if (a->zJob[k]) {
      *pzErr = sqlite3_mprintf("hta_trace_diff: %s_job '%s' is not a job of schema %s", azSide[k],
                               a->zJob[k], zSchema);
      return SQLITE_ERROR;
    }
    return SQLITE_OK; /* R3: no traces, no rows */
  }
  a->jobId[k] = jobs[0].job_id;
  if (!a->zJob[k] && jobs[0].name) {
    a->zJob[k] = jobs[0].name; /* reads back the job used */
    jobs[0].name = 0;
  }
  hta_jobs_free(jobs, njobs);
  bind[0] = a->jobId[k];
  if (a->hasRank[k]) {
    bind[1] = a->rank[k];
    rc = tdScalar(db, "SELECT 1 FROM $T WHERE job_id = ?1 AND rank = ?2 LIMIT 1", zSchema, 2, bind,
                  &v, &has);
    if (rc != SQLITE_OK) return rc;
    if (!has) {
      *pzErr = sqlite3_mprintf("hta_trace_diff: %s_rank %lld is not a rank of schema %s", azSide[k],
                               (long long)a->rank[k], zSchema);
      return SQLITE_ERROR;
    }
  } else {
    rc = tdScalar(db, "SELECT min(rank) FROM $T WHERE job_id = ?1", zSchema, 1, bind, &a->rank[k],
                  &has);
    if (rc != SQLITE_OK || !has) return rc;
  }
  if (a->hasIter[k]) {
    bind[1] = a->iter[k];
    rc = tdScalar(db,
                  "SELECT 1 FROM $S.profiler_step WHERE step = ?2 AND trace_id IN"
                  " (SELECT trace_id FROM $T WHERE job_id = ?1) LIMIT 1",
                  zSchema, 2, bind, &v, &has);
    if (rc != SQLITE_OK) return rc;
    if (!has) {
      *pzErr = sqlite3_mprintf(
          "hta_trace_diff: %s_iteration %lld is not a ProfilerStep number of schema %s", azSide[k],
          (long long)a->iter[k], zSchema);
      return SQLITE_ERROR;
    }
  } else {
    rc = tdScalar(db,
                  "SELECT min(step) FROM $S.profiler_step WHERE trace_id IN"
                  " (SELECT trace_id FROM $T WHERE job_id = ?1)",
                  zSchema, 1, bind, &a->iter[k], &has);
    if (rc != SQLITE_OK || !has) return rc;
  }
  a->resolved[k] = 1;
  return SQLITE_OK;
}

static int tdCmpRow(const void *a, const void *b) {
  return strcmp(((const td_row *)a)->zName, ((const td_row *)b)->zName);
}

/* Sorts the side by name (byte order) and merges the rows of one name, which
** come from different traces of the rank. */
static void tdSideSort(td_side *s) {
  size_t i, k = 0;
  if (s->n == 0) return;
  qsort(s->a, s->n, sizeof(td_row), tdCmpRow);
  for (i = 0; i < s->n; i++) {
    if (k > 0 && strcmp(s->a[k - 1].zName, s->a[i].zName) == 0) {
      s->a[k - 1].count += s->a[i].count;
      s->a[k - 1].dur = hta_add_sat(s->a[k - 1].dur, s->a[i].dur);
      sqlite3_free(s->a[i].zName);
    } else {
      s->a[k++] = s->a[i];
    }
  }
  s->n = k;
}

/*
** R7: the sum of the durations whose bits 42..63 (signed), 21..41 and 0..20 were
** summed apart as D2, D1 and D0, saturated to int64. Each part sums at most
** 2^32 rows (one trace's event_id range) of at most 2^21 in magnitude, so SQL's
** sum() cannot overflow; here D0 and D1 carry into D2 until D1, D0 < 2^21, and the
** total D2 * 2^42 + D1 * 2^21 + D0 fits in int64 exactly when -2^21 <= D2 < 2^21.
*/
static int64_t tdSumSat(int64_t d2, int64_t d1, int64_t d0) {
  const int64_t m = ((int64_t)1 << 21) - 1;
  d1 += d0 >> 21; /* d0, d1 >= 0: the shifts and masks are plain divisions */
  d0 &= m;
  d2 += d1 >> 21;
  d1 &= m;
  if (d2 >= ((int64_t)1 << 21)) return INT64_MAX;
  if (d2 < -((int64_t)1 << 21)) return INT64_MIN;
  return d2 * ((int64_t)1 << 42) + (d1 << 21) + d0;
}

/*
** R4: side k's rows grouped by name, ascending. One grouped query per trace of
** the rank over its rowid range (grouping by name_id first keeps it fast). An SQL
** error's message goes to *pzErr at once: a later bind or finalize clears it.
*/
static int tdLoadSide(sqlite3 *db, const td_args *a, int k, td_side *out, char **pzErr) {
  static const char zTraceSql[] =
      "SELECT trace_id FROM $T WHERE rank = ?1 AND job_id = ?2 ORDER BY trace_id";
  static const char zSql[] =
      "SELECT s.value, x.c, x.d2, x.d1, x.d0 FROM"
      " (SELECT e.name_id AS nid, count(*) AS c, sum(e.dur >> 42) AS d2,"
      "   sum((e.dur >> 21) & 2097151) AS d1, sum(e.dur & 2097151) AS d0 FROM $S.event e"
      "  WHERE e.event_id BETWEEN ?1 AND ?2 AND e.iteration = ?3 AND e.dur IS NOT NULL"
      "  AND e.category_id IS NOT NULL AND e.category_id NOT IN"
      "   (SELECT category_id FROM $S.category WHERE name = 'Trace')"
      "  GROUP BY e.name_id) x"
      " JOIN $S.string s ON s.string_id = x.nid";
  sqlite3_stmt *stT = 0, *st = 0;
  int rc = hta_prepare(db, a->zSchema[k], zTraceSql, &stT);
  if (rc != SQLITE_OK) return rc;
  rc = hta_prepare(db, a->zSchema[k], zSql, &st);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) /* before the bind below clears it */
    *pzErr = sqlite3_mprintf("hta_trace_diff: %s", sqlite3_errmsg(db));
  sqlite3_bind_int64(stT, 1, a->rank[k]);
  sqlite3_bind_int64(stT, 2, a->jobId[k]);
  while (rc == SQLITE_OK && (rc = sqlite3_step(stT)) == SQLITE_ROW) {
    int64_t trace_id = sqlite3_column_int64(stT, 0);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, hta_trace_first_id(trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(trace_id));
    sqlite3_bind_int64(st, 3, a->iter[k]);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      rc = tdSidePush(out, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
                      tdSumSat(sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                               sqlite3_column_int64(st, 4)));
      if (rc != SQLITE_OK) break;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT && !*pzErr)
    *pzErr = sqlite3_mprintf("hta_trace_diff: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_finalize(stT);
  if (rc == SQLITE_OK) tdSideSort(out);
  return rc;
}

/* ---------------------------------------------------------------- the result */

/* Appends one output row (R5). */
static int tdEmit(hta_table *t, const char *zName, int64_t cCount, int64_t cDur, int64_t tCount,
                  int64_t tDur) {
  hta_cell *row = hta_table_add_row(t);
  int64_t d = tCount - cCount;
  const char *zClass;
  if (!row) return SQLITE_NOMEM;
  if (cCount == 0) zClass = "added";
  else if (tCount == 0) zClass = "deleted";
  else if (d > 0) zClass = "increased";
  else if (d < 0) zClass = "decreased";
  else zClass = "unchanged";
  hta_cell_int(&row[TD_CONTROL_COUNTS], cCount);
  hta_cell_double(&row[TD_CONTROL_TOTAL_DURATION_US], (double)cDur / 1000.0);
  hta_cell_int(&row[TD_TEST_COUNTS], tCount);
  hta_cell_double(&row[TD_TEST_TOTAL_DURATION_US], (double)tDur / 1000.0);
  hta_cell_int(&row[TD_DIFF_COUNTS], d);
  hta_cell_double(&row[TD_DIFF_DURATION_US], (double)hta_sub_sat(tDur, cDur) / 1000.0);
  hta_cell_static(&row[TD_CHANGE], d > 0 ? "+" : d < 0 ? "-" : "=");
  hta_cell_static(&row[TD_CHANGE_CLASS], zClass);
  return hta_cell_text(&row[TD_NAME], zName);
}

/* R5/R6: merges the two sorted sides. */
static int tdMerge(const td_side *c, const td_side *t, hta_table *out) {
  unsigned char *aSeen = 0;
  size_t i = 0, j = 0;
  int rc = SQLITE_OK;
  if (t->n) {
    aSeen = sqlite3_malloc64(t->n);
    if (!aSeen) return SQLITE_NOMEM;
    memset(aSeen, 0, t->n);
  }
  for (i = 0; rc == SQLITE_OK && i < c->n; i++) {
    int cmp = 1;
    const td_row *x = &c->a[i];
    while (j < t->n && (cmp = strcmp(t->a[j].zName, x->zName)) < 0) j++;
    if (j < t->n && cmp == 0) {
      aSeen[j] = 1;
      rc = tdEmit(out, x->zName, x->count, x->dur, t->a[j].count, t->a[j].dur);
    } else {
      rc = tdEmit(out, x->zName, x->count, x->dur, 0, 0);
    }
  }
  for (j = 0; rc == SQLITE_OK && j < t->n; j++) {
    if (!aSeen[j]) rc = tdEmit(out, t->a[j].zName, 0, 0, t->a[j].count, t->a[j].dur);
  }
  sqlite3_free(aSeen);
  return rc;
}

/* Runs the diff into pCur->t; errors in *pzErr. */
static int tdRun(sqlite3 *db, td_args *a, hta_table *out, char **pzErr) {
  td_side side[2];
  int rc;
  memset(side, 0, sizeof(side));
  rc = tdResolve(db, a, 0, pzErr); /* R3: errors name the schema and job */
  if (rc == SQLITE_OK) rc = tdResolve(db, a, 1, pzErr);
  if (rc != SQLITE_OK || !a->resolved[0] || !a->resolved[1]) return rc;
  rc = tdLoadSide(db, a, 0, &side[0], pzErr);
  if (rc == SQLITE_OK) rc = tdLoadSide(db, a, 1, &side[1], pzErr);
  if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  if (rc == SQLITE_OK) rc = tdMerge(&side[0], &side[1], out);
  tdSideFree(&side[0]);
  tdSideFree(&side[1]);
  return rc;
}

/* ---------------------------------------------------------------- vtab methods */

static int tdConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr) {
  td_vtab *p;
  int rc = sqlite3_declare_vtab(db, tdSchema);
  if (rc != SQLITE_OK) {
    *pzErr = sqlite3_mprintf("hta_trace_diff: %s", sqlite3_errmsg(db));
    return rc;
  }
  /* Innocuous: reads this connection's databases only, no side effects. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  p = sqlite3_malloc64(sizeof(*p));
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int tdDisconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int tdOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  td_cursor *c = sqlite3_malloc64(sizeof(*c));
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->t.ncol = TD_NOUT;
  *ppCursor = &c->base;
  return SQLITE_OK;
}

static void tdReset(td_cursor *c) {
  hta_table_free(&c->t);
  for (int k = 0; k < 2; k++) {
    sqlite3_free(c->a.zSchema[k]);
    sqlite3_free(c->a.zJob[k]);
  }
  memset(&c->a, 0, sizeof(c->a));
  c->i = 0;
}

static int tdClose(sqlite3_vtab_cursor *cur) {
  tdReset((td_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/*
** idxNum: bit k (0..7) = an EQ constraint on parameter k (control_rank,
** control_iteration, test_rank, test_iteration, test_schema, control_job,
** test_job, control_schema) is passed; argv
** holds the values in that order. An unusable constraint on a parameter makes the
** plan unusable (SQLITE_CONSTRAINT), so it is never silently defaulted.
*/
static int tdBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *info) {
  int aIdx[TD_NPARAM], unusable = 0, idxNum = 0, nArg = 0, k;
  for (k = 0; k < TD_NPARAM; k++) aIdx[k] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *pc = &info->aConstraint[i];
    if (pc->iColumn < TD_CONTROL_RANK || pc->iColumn > TD_CONTROL_SCHEMA) continue;
    if (pc->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    k = pc->iColumn - TD_CONTROL_RANK;
    if (!pc->usable) unusable |= 1 << k;
    else if (aIdx[k] < 0) aIdx[k] = i;
  }
  for (k = 0; k < TD_NPARAM; k++) {
    if ((unusable >> k & 1) && aIdx[k] < 0) return SQLITE_CONSTRAINT;
  }
  for (k = 0; k < TD_NPARAM; k++) {
    if (aIdx[k] < 0) continue;
    idxNum |= 1 << k;
    info->aConstraintUsage[aIdx[k]].argvIndex = ++nArg;
    info->aConstraintUsage[aIdx[k]].omit = 1;
  }
  info->idxNum = idxNum;
  info->estimatedCost = 100000.0;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

/* An integer parameter: NULL = default (R2); else an integer or an error. */
static int tdIntArg(sqlite3_vtab *vt, sqlite3_value *v, const char *zName, int *pHas,
                    int64_t *pVal) {
  int t = sqlite3_value_numeric_type(v);
  if (t == SQLITE_NULL) return SQLITE_OK;
  if (t == SQLITE_INTEGER) {
    *pVal = sqlite3_value_int64(v);
  } else if (t == SQLITE_FLOAT && fabs(sqlite3_value_double(v)) < 9e15 &&
             sqlite3_value_double(v) == floor(sqlite3_value_double(v))) {
    *pVal = (int64_t)sqlite3_value_double(v);
  } else {
    hta_vtab_error(vt, "hta_trace_diff: %s must be an integer", zName);
    return SQLITE_ERROR;
  }
  *pHas = 1;
  return SQLITE_OK;
}

/* See the idxNum bits above tdBestIndex. */
static int tdFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  static const char *const azParam[TD_NPARAM] = {
      "control_rank", "control_iteration", "test_rank", "test_iteration",
      "test_schema",  "control_job",       "test_job",  "control_schema"};
  td_cursor *c = (td_cursor *)cur;
  sqlite3_vtab *vt = cur->pVtab;
  sqlite3_value *aArg[TD_NPARAM] = {0, 0, 0, 0, 0, 0, 0, 0};
  char *zErr = 0;
  int rc = SQLITE_OK, iArg = 0, k;
  tdReset(c);
  for (k = 0; k < TD_NPARAM; k++) {
    if ((idxNum >> k & 1) && iArg < argc) aArg[k] = argv[iArg++];
  }
  for (k = 0; rc == SQLITE_OK && k < 4; k++) {
    int side = k / 2;
    if (!aArg[k]) continue;
    if (k % 2 == 0) rc = tdIntArg(vt, aArg[k], azParam[k], &c->a.hasRank[side], &c->a.rank[side]);
    else rc = tdIntArg(vt, aArg[k], azParam[k], &c->a.hasIter[side], &c->a.iter[side]);
  }
  if (rc != SQLITE_OK) return rc;
  for (k = 4; k < TD_NPARAM; k++) { /* the text parameters: NULL = default */
    int side = k == 4 || k == 6;
    char **pz = k == 4 || k == 7 ? &c->a.zSchema[side] : &c->a.zJob[side];
    if (!aArg[k] || sqlite3_value_type(aArg[k]) == SQLITE_NULL) continue;
    if (sqlite3_value_type(aArg[k]) != SQLITE_TEXT) {
      hta_vtab_error(vt, "hta_trace_diff: %s must be a %s name", azParam[k],
                     k == 4 || k == 7 ? "schema" : "job");
      return SQLITE_ERROR;
    }
    if (!(*pz = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(aArg[k]))))
      return SQLITE_NOMEM;
  }
  for (k = 0; k < 2; k++) {
    if (!c->a.zSchema[k] && !(c->a.zSchema[k] = sqlite3_mprintf("main"))) return SQLITE_NOMEM;
  }
  rc = tdRun(((td_vtab *)vt)->db, &c->a, &c->t, &zErr);
  if (rc != SQLITE_OK) {
    hta_table_free(&c->t);
    if (zErr) hta_vtab_error(vt, "%s", zErr);
    else if (rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
      hta_vtab_error(vt, "hta_trace_diff: %s", sqlite3_errmsg(((td_vtab *)vt)->db));
  }
  sqlite3_free(zErr);
  return rc;
}

static int tdNext(sqlite3_vtab_cursor *cur) {
  ((td_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int tdEof(sqlite3_vtab_cursor *cur) {
  td_cursor *c = (td_cursor *)cur;
  return c->i >= c->t.nrow;
}

static int tdColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  td_cursor *c = (td_cursor *)cur;
  if (col < TD_NOUT) {
    hta_cell_result(ctx, &c->t.cells[c->i * TD_NOUT + (size_t)col]);
    return SQLITE_OK;
  }
  switch (col) { /* hidden parameters: the values used (NULL when unresolved) */
  case TD_CONTROL_RANK:
  case TD_TEST_RANK: {
    int k = col == TD_TEST_RANK;
    if (c->a.resolved[k] || c->a.hasRank[k]) sqlite3_result_int64(ctx, c->a.rank[k]);
    break;
  }
  case TD_CONTROL_ITERATION:
  case TD_TEST_ITERATION: {
    int k = col == TD_TEST_ITERATION;
    if (c->a.resolved[k] || c->a.hasIter[k]) sqlite3_result_int64(ctx, c->a.iter[k]);
    break;
  }
  case TD_TEST_SCHEMA:
  case TD_CONTROL_SCHEMA:
    sqlite3_result_text(ctx, c->a.zSchema[col == TD_TEST_SCHEMA], -1, SQLITE_TRANSIENT);
    break;
  case TD_CONTROL_JOB:
  case TD_TEST_JOB:
    if (c->a.zJob[col == TD_TEST_JOB])
      sqlite3_result_text(ctx, c->a.zJob[col == TD_TEST_JOB], -1, SQLITE_TRANSIENT);
    break;
  default: break;
  }
  return SQLITE_OK;
}

static int tdRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = (sqlite_int64)((td_cursor *)cur)->i + 1;
  return SQLITE_OK;
}

/* Eponymous-only (no xCreate); designated initializers as the struct grows across versions. */
static const sqlite3_module tdModule = {
    .iVersion = 0,
    .xConnect = tdConnect,
    .xBestIndex = tdBestIndex,
    .xDisconnect = tdDisconnect,
    .xOpen = tdOpen,
    .xClose = tdClose,
    .xFilter = tdFilter,
    .xNext = tdNext,
    .xEof = tdEof,
    .xColumn = tdColumn,
    .xRowid = tdRowid,
};

int hta_register_diff(sqlite3 *db) {
  return sqlite3_create_module_v2(db, "hta_trace_diff", &tdModule, 0, 0);
}

/*
** findings.c: hta_findings, what to fix ranked by what it costs (DESIGN 11 version 2):
** one accounting of each step per trace, the causes of its idle time under their
** symptoms, busy time that could be shorter, the TensorBoard plugin's recommendations,
** each with evidence and caveats.
**
**   SELECT rank, rule, kind, time_us, pct_of_step, title FROM hta_findings;
**   SELECT * FROM hta_findings(0) WHERE job = 'run_a';      -- every finding, however small
**   SELECT json_extract(evidence, '$.recoverable_pct') FROM hta_findings WHERE rule = 'step';
**
** Parameters (HIDDEN): min_pct (1.0): a finding with a time appears when its
** pct_of_step is at least min_pct (the summary row always does).
** Columns: rank, rule, kind, parent, source, time_us, pct_of_step, title, advice,
**   evidence, caveats, trace_id (then job, as every analysis).
**
** Requirements (tests cite them as FD-n):
**  1. Each job is analysed on its own (the generic module runs it per job). A
**     finding is about one trace (rank, trace_id: a rank's timeline), about a rank
**     of several traces as a whole (trace_id NULL) or about the whole job (rank
**     NULL, trace_id NULL).
**  2. Steps: fd_steps.c (ProfilerSteps, else the window as one step); per step = the
**     mean over the typical steps (fd_account.c FA-8), whose outliers are named.
**  3. time_us = the finding's cost per step; pct_of_step = 100 * time_us / the trace's
**     typical step (NULL when that is 0). A rule that is no time (configuration,
**     memory) has both NULL. A rule may give its own pct_of_step (the plugin's rules
**     use the plugin's steps).
**  4. kind: 'summary' (rule 'step', one per trace with GPU work: the accounting),
**     'cause' (idle time one cause alone explains), 'busy' (busy time that could be
**     shorter: an estimate, evidence.estimate true), 'symptom' (lists causes, costs
**     nothing of its own), 'configuration'. Per trace, the causes' time_us add up to
**     at most the summary's idle time, causes and busy findings to at most the step.
**  5. parent: a cause's is 'gpu_low_utilization' when that symptom is a row of its
**     trace, else 'step'; a busy finding's 'step'; the others' NULL.
**  6. A finding with a time appears when pct_of_step >= min_pct (with a time but no
**     pct_of_step: only when min_pct is 0); the summary and a finding without time
**     appear whenever their condition holds. min_pct must be a number from 0 to 100:
**     "hta_findings: min_pct must be a number from 0 to 100".
**  7. Rows: the job's findings first, then by rank and trace_id; within a trace the
**     summary first, then time_us descending (NULLs last), then rule, then source.
**     WHERE rank = N keeps rank N's findings.
**  8. evidence is a JSON object; caveats a JSON array of {"check", "text"} (the
**     finding's own, then its trace's: fd_health.c); title says what was found with
**     its number; advice says what to try; source is 'tb_plugin' or 'hta-sqlite'.
**  9. A job without the data a rule reads (no GPU rows, no collectives, no memory
**     records, no device properties) gets no finding from it, never an error.
** 10. The rows are the same whether the plugin's operator trees are read beside the
**     first rules (two connections) or after them (one): the same rules in the same
**     order, on the same data.
**
** HOW IT WORKS: run() loads the job's traces, their steps (fd_steps.c) and caveats
** (fd_health.c), builds the accounting (fd_account.c), then calls every rule of
** fd_rules (findings_rules.c) in turn. A rule reads the accounting and the analyses it
** needs and hands what it found to fd_emit (fd.c), which applies min_pct. Parents are
** set and the findings sorted (FD-5, FD-7) into the result table. The plugin's
** tensor-core rule reads its operator tree of each trace (a third of a large trace's
** time): that is read ahead on a second connection (core/par.c) while the accounting and
** the rules before the plugin's run on the caller's.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fd.h"
#include "findings/fd_account.h"
#include "findings/fd_run.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FD_SCHEMA                                                                          \
  "CREATE TABLE x(rank INTEGER, rule TEXT, kind TEXT, parent TEXT, source TEXT,"           \
  " time_us REAL, pct_of_step REAL, title TEXT, advice TEXT, evidence TEXT, caveats TEXT," \
  " trace_id INTEGER, min_pct HIDDEN)"
enum {
  FD_RANK,
  FD_RULE,
  FD_KIND,
  FD_PARENT,
  FD_SOURCE,
  FD_TIME,
  FD_PCT,
  FD_TITLE,
  FD_ADVICE,
  FD_EVIDENCE,
  FD_CAVEATS,
  FD_TRACE_ID,
  FD_NVISIBLE
};
#define FD_P_MIN_PCT 0

static const hta_param fdParams[] = {
    {"min_pct", 1, 1.0, 0.0, 100.0, "a number from 0 to 100"}, /* FD-6 */
};

/* The job's traces and what every rule reads of them (FD-2). */
static int fdLoadUnits(fd_ctx *x) {
  /* every trace of the job: WHERE rank = N still needs the others' steps (a straggler's
  ** waiting ranks); only rank N's are analysed (fd_unit_wanted) */
  hta_scope sc = {x->schema, x->job_id};
  int rc = hta_traces_load(x->db, &sc, 0, 0, 0, &x->tr);
  int isnull;
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
  sqlite3_stmt *st = 0;
  rc = hta_prepare(x->db, x->schema,
                   "SELECT t.device_type = 'AMD GPU', d.compute_major, d.compute_minor"
                   " FROM $T t LEFT JOIN $S.device d ON d.trace_id = t.trace_id"
                   " WHERE t.trace_id = ?1 ORDER BY d.device_id LIMIT 1",
                   &st);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) { /* vendor and device, for the advice */
    fd_unit *u = &x->u[i];
    u->cc_major = u->cc_minor = -1;
    sqlite3_bind_int64(st, 1, u->trace_id);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      u->amd = sqlite3_column_int(st, 0);
      if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
        u->cc_major = sqlite3_column_int64(st, 1);
        u->cc_minor = sqlite3_column_int64(st, 2);
      }
    }
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_OK)
    rc = hta_query_int64(x->db, x->schema, "SELECT max(world_size) FROM $T WHERE job_id = ?1", 1,
                         &x->job_id, &x->world_size, &isnull);
  if (rc == SQLITE_OK)
    rc = hta_query_int64(x->db, x->schema, "SELECT count(DISTINCT rank) FROM $T WHERE job_id = ?1",
                         1, &x->job_id, &x->ranks_in_job, &isnull);
  if (rc == SQLITE_OK) rc = fd_steps_load(x);
  if (rc == SQLITE_OK) rc = fd_health_caveats(x);
  return rc;
}

/* ---------------------------------------------------------------- the table */

static int fdCmp(const void *pa, const void *pb) {
  const fd_finding *a = pa, *b = pb;
  if (a->has_rank != b->has_rank) return a->has_rank - b->has_rank; /* FD-7: the job's first */
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  if (a->has_trace != b->has_trace) return a->has_trace - b->has_trace;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  int sa = a->rule->kind == FD_SUMMARY, sb = b->rule->kind == FD_SUMMARY;
  if (sa != sb) return sb - sa;
  int an = isnan(a->time_us), bn = isnan(b->time_us);
  if (an != bn) return an - bn; /* NULLs last */
  if (!an && a->time_us != b->time_us) return a->time_us > b->time_us ? -1 : 1;
  int c = strcmp(a->rule->id, b->rule->id);
  return c ? c : strcmp(a->rule->source, b->rule->source);
}

/* FD-5: the causes under their symptom. */
static void fdParents(fd_ctx *x) {
  for (size_t i = 0; i < x->nf; i++) {
    fd_finding *f = &x->f[i];
    if (f->rule->kind == FD_BUSY) f->parent = "step";
    if (f->rule->kind != FD_CAUSE) continue;
    f->parent = "step";
    for (size_t j = 0; j < x->nf; j++) {
      const fd_finding *g = &x->f[j];
      if (g->has_trace == f->has_trace && g->trace_id == f->trace_id &&
          !strcmp(g->rule->id, "gpu_low_utilization"))
        f->parent = g->rule->id;
    }
  }
}

void fd_run_free(fd_ctx *x) {
  for (size_t i = 0; i < x->nf; i++) {
    sqlite3_free(x->f[i].title);
    sqlite3_free(x->f[i].evidence);
    sqlite3_free(x->f[i].caveats);
  }
  sqlite3_free(x->f);
  for (int k = 0; k < FD_NSLOT; k++)
    if (x->slot[k]) x->slot_free[k](x->slot[k]);
  for (int i = 0; i < x->nu; i++) {
    sqlite3_free(x->u[i].steps);
    sqlite3_free(x->u[i].numbers);
    sqlite3_free(x->u[i].caveats);
  }
  sqlite3_free(x->u);
  hta_traces_free(&x->tr);
  sqlite3_free(x->job);
}

/* Moves the findings into OUT (FD-7); title, evidence and caveats change owner. */
static int fdOutput(fd_ctx *x, hta_table *out) {
  for (size_t i = 0; i < x->nf; i++) {
    fd_finding *f = &x->f[i];
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    if (f->has_rank) hta_cell_int(&row[FD_RANK], f->rank);
    hta_cell_static(&row[FD_RULE], f->rule->id);
    hta_cell_static(&row[FD_KIND], fd_kind_name(f->rule->kind));
    if (f->parent) hta_cell_static(&row[FD_PARENT], f->parent);
    hta_cell_static(&row[FD_SOURCE], f->rule->source);
    hta_cell_double(&row[FD_TIME], f->time_us);
    hta_cell_double(&row[FD_PCT], f->pct);
    row[FD_TITLE] = (hta_cell){SQLITE_TEXT, 1, {.s = f->title}};
    hta_cell_static(&row[FD_ADVICE], f->advice);
    row[FD_EVIDENCE] = (hta_cell){SQLITE_TEXT, 1, {.s = f->evidence}};
    row[FD_CAVEATS] = (hta_cell){SQLITE_TEXT, 1, {.s = f->caveats}};
    f->title = f->evidence = f->caveats = 0;
    if (f->has_trace) hta_cell_int(&row[FD_TRACE_ID], f->trace_id);
  }
  return SQLITE_OK;
}

static int fdRule(fd_ctx *x, size_t i) {
  int rc = fd_rules[i].run(x, &fd_rules[i]);
  return rc == SQLITE_OK && hta_interrupted(x->db) ? SQLITE_INTERRUPT : rc;
}

/* The first rule of the plugin's (source 'tb_plugin'): those before it read no plugin
** model, and run while the trees are read (FD-10). */
static size_t fdFirstPlugin(void) {
  size_t i = 0;
  while (i < fd_nrules && strcmp(fd_rules[i].source, "tb_plugin")) i++;
  return i;
}

/* The accounting (the typical steps, first), the rules before the plugin's, then the
** plugin's model figures (while the other connection may still build its trees). */
static int fdOwnRules(sqlite3 *db, void *arg) {
  fd_ctx *x = arg;
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  (void)db; /* x->db, the caller's */
  for (size_t i = 0, n = fdFirstPlugin(); rc == SQLITE_OK && i < n; i++) rc = fdRule(x, i);
  return rc == SQLITE_OK ? fd_plugin_figures(x) : rc;
}

typedef struct fd_ahead {
  const fd_ctx *x;
  void *prepared;
} fd_ahead;

/* The plugin's operator trees, on a connection of their own when there is one. */
static int fdPluginAhead(sqlite3 *db, void *arg) {
  fd_ahead *a = arg;
  return fd_plugin_prepare(db, a->x, &a->prepared);
}

int fd_run(sqlite3 *db, const char *schema, int64_t job_id, int has_rank, int64_t rank,
           double min_pct, int flags, const fd_given *given, fd_ctx *x) {
  fd_acct *acct;
  memset(x, 0, sizeof *x);
  x->db = db;
  x->given = given;
  x->schema = schema;
  x->job_id = job_id;
  x->min_pct = min_pct;
  x->has_rank = has_rank;
  x->rank = rank;
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema, "SELECT name FROM $S.job WHERE job_id = ?1", &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, job_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
        !(x->job = sqlite3_mprintf("%s", sqlite3_column_text(st, 0))))
      rc = SQLITE_NOMEM;
    rc = fd_done(st, rc);
  }
  if (rc == SQLITE_OK) rc = fdLoadUnits(x);
  if (rc == SQLITE_OK && x->nu && (flags & FD_RUN_RULES)) {
    fd_ahead a = {x, 0};
    if (flags & FD_RUN_ONE_CONNECTION)
      rc = fdOwnRules(db, x); /* the tensor-core rule builds its trees */
    else rc = hta_par2(db, schema, 0, fdOwnRules, x, fdPluginAhead, &a);
    fd_plugin_install(x, a.prepared); /* freed with the run, whatever happened */
    for (size_t i = fdFirstPlugin(); rc == SQLITE_OK && i < fd_nrules; i++) rc = fdRule(x, i);
  } else if (rc == SQLITE_OK && x->nu) {
    rc = fd_account(x, &acct); /* the typical steps */
  }
  if (rc == SQLITE_OK) fdParents(x);
  if (rc == SQLITE_OK && x->nf) qsort(x->f, x->nf, sizeof *x->f, fdCmp); /* FD-7 */
  return rc;
}

static int fdRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  fd_ctx x;
  (void)pzErr;
  int rc = fd_run(db, a->scope.schema, a->scope.job_id, a->has_rank, a->rank, a->p[FD_P_MIN_PCT],
                  FD_RUN_RULES, 0, &x);
  if (rc == SQLITE_OK) rc = fdOutput(&x, out);
  fd_run_free(&x);
  return rc;
}

static const hta_tvf fdTvf = {
    "hta_findings", FD_SCHEMA, FD_NVISIBLE, FD_RANK, 1, fdParams, fdRun,
};

int hta_register_findings(sqlite3 *db) { return hta_tvf_register(db, &fdTvf); }

/*
** job_diff_account.c: hta_job_diff_summary's splits that read the findings (DESIGN 11):
** the step difference split by the GPU's busy time and the cause of each idle
** nanosecond ('idle'), and the findings that appeared, disappeared or changed cost
** ('finding'). One hta_findings run per side (findings/fd_run.h) gives both.
**
**   SELECT part, control_us, test_us, delta_us FROM hta_job_diff_summary('a', 'b')
**    WHERE split = 'idle';
**   SELECT part, change, control_us, test_us FROM hta_job_diff_summary('a', 'b')
**    WHERE split = 'finding';
**
** Requirements (tests cite them as JSA-n):
**  1. Each side is hta_findings' run over its job with WHERE rank = the side's rank and
**     min_pct 0; its trace is the side's trace (job_diff_vtab.c). WHERE split = 'idle'
**     runs the accounting only, split = 'role' or 'operator' no run (jd_pair.split).
**  2. Split 'idle': the findings' accounting of the side's trace (fd_account.c FA-1..8):
**     per typical step, the compute streams' 'busy' time and the idle time of each part
**     (the causes in FA-5's priority order, then 'warmup', 'before_trace' and
**     'unexplained'), named as hta_findings names them (fd_part_rule). Each part's
**     total over the typical steps is divided by their number, apportioned in whole ns
**     as JS-2's (jd_apportion), so that the parts add up to the accounting's mean
**     typical step exactly.
**  3. The accounting's steps are not the plugin's (fd_steps.c FS-1..4 against tb_steps.c
**     TV-3..5) and leave the outlier steps out (FA-8): a last part 'other_steps' = JS-1's
**     step - the accounting's mean typical step (negative when the accounting's steps are
**     the longer) makes each side's parts add up to JS-1's step, hence the deltas to the
**     step difference, exactly. A trace without a compute stream (or outside the run)
**     has all of its step there. Parts that are 0 on both sides are left out.
**  4. Split 'finding': per rule (hta_findings.rule; part = the rule, followed by
**     " (tb_plugin)" for the TensorBoard plugin's rules, some of which share an id with
**     ours: 'dataloader'), the findings of the side's trace and those about its rank as a
**     whole (trace_id NULL), but the summary row 'step' (it is the step itself, JS-1):
**     control_ns / test_ns = the sum of their time_us per step in whole ns (rounded to
**     nearest; NULL where the side has no such finding or none with a time),
**     control_count / test_count = how many, delta_ns = test - control with an absent
**     side as 0 (NULL when neither has a time), change = 'appeared', 'disappeared' or
**     'changed' (both sides, different cost). A rule with the same cost on both sides is
**     left out, and one whose every finding with a time is under 1% of its step (or has
**     no pct_of_step) on both sides (hta_findings' default min_pct) and that has none
**     without a time. Rows by |delta_ns| descending (NULL last), then rule.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#include "findings/fd_account.h"
#include "findings/fd_run.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define JSA_MIN_PCT 1.0          /* JSA-4: hta_findings' default */
#define JSA_NPART (FD_NPART + 2) /* busy, FD's parts, other_steps */

/* JSA-2, JSA-3: side's per-step parts into PART (STEP: JS-1's step). */
static void jsaIdle(const fd_ctx *x, const fd_acct *acct, int64_t trace_id, int64_t step,
                    int64_t part[JSA_NPART]) {
  int64_t tot[JSA_NPART], acc_step = 0;
  const fd_unit *u = 0;
  const fd_acct *a = 0;
  memset(tot, 0, sizeof tot);
  memset(part, 0, JSA_NPART * sizeof *part);
  for (int i = 0; acct && i < x->nu; i++)
    if (x->u[i].trace_id == trace_id) u = &x->u[i], a = &acct[i];
  if (u && a->has_gpu && u->ntypical > 0) {
    for (size_t s = 0; s < u->nsteps; s++) {
      if (!u->steps[s].typical) continue;
      tot[0] += a->busy[s];
      for (int p = 0; p < FD_NPART; p++) tot[1 + p] += a->part[s][p];
    }
    jd_apportion(tot, JSA_NPART - 1, u->ntypical, part, &acc_step);
  }
  part[JSA_NPART - 1] = step - acc_step;
}

static const char *jsaPartName(int p) {
  return p == 0 ? "busy" : p == JSA_NPART - 1 ? "other_steps" : fd_part_rule(p - 1);
}

/* One side's run (JSA-1): its findings and its idle parts per step. */
struct jd_acct {
  fd_ctx x;
  int64_t part[JSA_NPART];
};

/* ---------------------------------------------------------------- findings (JSA-4) */
typedef struct jsa_rule {
  const fd_rule *rule; /* (id, source): the plugin's rules share some ids */
  int64_t ns[2];
  int has_ns[2], count[2], big; /* big: some finding at or above JSA_MIN_PCT */
} jsa_rule;

static int jsaRuleCmp(const void *pa, const void *pb) {
  const jsa_rule *a = pa, *b = pb;
  int na = !a->has_ns[0] && !a->has_ns[1], nb = !b->has_ns[0] && !b->has_ns[1];
  if (na != nb) return na - nb;
  if (!na) {
    int64_t da = llabs(a->ns[1] - a->ns[0]), db = llabs(b->ns[1] - b->ns[0]);
    if (da != db) return da > db ? -1 : 1;
  }
  int c = strcmp(a->rule->id, b->rule->id);
  return c ? c : strcmp(a->rule->source, b->rule->source);
}

/* Adds side K's findings of trace TRACE_ID (and its rank's, the job's) to *V. */
static int jsaCollect(const fd_ctx *x, int k, int64_t trace_id, jsa_rule **v, size_t *n,
                      size_t *cap) {
  for (size_t i = 0; i < x->nf; i++) {
    const fd_finding *f = &x->f[i];
    size_t j;
    if (f->rule->kind == FD_SUMMARY || (f->has_trace && f->trace_id != trace_id)) continue;
    for (j = 0; j < *n && (*v)[j].rule != f->rule; j++) {
    }
    if (j == *n) {
      jsa_rule z;
      memset(&z, 0, sizeof z);
      z.rule = f->rule;
      HTA_PUSH(*v, *n, *cap, 16, z, jsa_oom);
    }
    jsa_rule *r = &(*v)[j];
    r->count[k]++;
    if (!isnan(f->time_us)) {
      r->ns[k] += llround(f->time_us * 1000.0);
      r->has_ns[k] = 1;
    }
    if (isnan(f->time_us) || (!isnan(f->pct) && f->pct >= JSA_MIN_PCT)) r->big = 1;
  }
  return SQLITE_OK;
jsa_oom:
  return SQLITE_NOMEM;
}

static int jsaFindings(const jd_pair *p, jd_acct *const a[2], int64_t step_delta, hta_table *out) {
  const hta_cell null = {SQLITE_NULL, 0, {0}};
  jsa_rule *v = 0;
  size_t n = 0, cap = 0;
  int rc = SQLITE_OK;
  for (int k = 0; k < 2 && rc == SQLITE_OK; k++)
    rc = jsaCollect(&a[k]->x, k, p->t[k].trace_id, &v, &n, &cap);
  if (rc == SQLITE_OK && n) qsort(v, n, sizeof *v, jsaRuleCmp);
  for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
    const jsa_rule *r = &v[i];
    const char *change = !r->count[0] ? "appeared" : !r->count[1] ? "disappeared" : "changed";
    if (!r->big) continue;
    if (r->count[0] && r->count[1] && r->has_ns[0] == r->has_ns[1] && r->ns[0] == r->ns[1])
      continue;
    hta_cell *row = jd_summary_row(out, p, "finding", r->rule->id, r->ns[0], r->ns[1], step_delta);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (strcmp(r->rule->source, "hta-sqlite")) { /* "dataloader (tb_plugin)" */
      char *z = sqlite3_mprintf("%s (%s)", r->rule->id, r->rule->source);
      if (!z) {
        rc = SQLITE_NOMEM;
        break;
      }
      row[JS_PART] = (hta_cell){SQLITE_TEXT, 1, {.s = z}};
    }
    for (int k = 0; k < 2; k++) {
      if (!r->has_ns[k]) row[JS_US + k] = row[JS_NS + k] = null;
      hta_cell_int(&row[JS_COUNT + k], r->count[k]);
    }
    if (!r->has_ns[0] && !r->has_ns[1]) row[JS_US + 2] = row[JS_NS + 2] = row[JS_SHARE] = null;
    hta_cell_static(&row[JS_CHANGE], change);
  }
  sqlite3_free(v);
  return rc;
}

int jd_acct_side(sqlite3 *db, const jd_pair *p, int k, int64_t step, const fd_plugin_fig *fig,
                 jd_acct **out) {
  int idle = jd_wants_split(p, "idle"), findings = jd_wants_split(p, "finding");
  const fd_given given = {p->t[k].trace_id, fig};
  fd_acct *acct = 0;
  jd_acct *a;
  int rc;
  *out = 0;
  if (!idle && !findings) return SQLITE_OK; /* WHERE split = 'role': no run needed */
  if (!(a = sqlite3_malloc(sizeof *a))) return SQLITE_NOMEM;
  memset(a, 0, sizeof *a);
  *out = a;
  /* one connection: the other side is read beside this one already */
  rc = fd_run(db, p->schema[k], p->job_id[k], 1, p->t[k].rank, 0.0,
              (findings ? FD_RUN_RULES : 0) | FD_RUN_ONE_CONNECTION, fig ? &given : 0,
              &a->x); /* JSA-1 */
  if (rc == SQLITE_OK && a->x.nu) rc = fd_account(&a->x, &acct);
  if (rc == SQLITE_OK) jsaIdle(&a->x, acct, p->t[k].trace_id, step, a->part);
  a->x.db = 0;    /* the connection may be gone when the rows are made, */
  a->x.given = 0; /* and the figures */
  return rc;
}

void jd_acct_free(jd_acct *a) {
  if (!a) return;
  fd_run_free(&a->x);
  sqlite3_free(a);
}

int jd_summary_accounting(const jd_pair *p, jd_acct *const a[2], const int64_t step[2],
                          hta_table *out) {
  int64_t d = step[1] - step[0];
  int rc = SQLITE_OK;
  if (!a[0] || !a[1]) return SQLITE_OK; /* no run: no such split asked for */
  for (int q = 0; jd_wants_split(p, "idle") && q < JSA_NPART && rc == SQLITE_OK; q++) {
    if (!a[0]->part[q] && !a[1]->part[q]) continue;
    if (!jd_summary_row(out, p, "idle", jsaPartName(q), a[0]->part[q], a[1]->part[q], d))
      rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK && jd_wants_split(p, "finding")) rc = jsaFindings(p, a, d, out);
  return rc;
}

/*
** report_findings.c: the findings in the HTML report (report.c HR-9): the overview of every
** job at the top of a page of several jobs, and section 1 of each job's part, what to fix
** ranked by its cost per step, causes under their symptom, with what to try, the caveats and
** a link to the section of the report that holds the evidence.
**
** Requirements (tests cite them as HRF-n):
**  1. Several jobs: before the first job, one table row per job: its name (a link to its
**     findings), ranks, the mean step over its ranks, the recoverable share (the mean of
**     its ranks' summaries) and its costliest cause (rule, rank, time per step). hta_findings
**     runs once for the whole database (temp.hr_fd_all); each job's section reads it.
**  2. Section 1: per trace, its summary (rule 'step') as a row of its own: the recoverable
**     share of the step, the GPU's share, the idle time with a cause (and the wait on GPU
**     work from before the trace: findings_rows.c FR-2), its caveats (where the idle time
**     without a cause waited longest, the trace's).
**     Then each symptom, its causes indented under it, the other causes, busy findings and
**     configurations (hta_findings' order within each). A row: who (the rank's label, or
**     "job"), the title, the rule and its kind, the finding's own caveats (those its trace's
**     summary above does not show), the time per step
**     and its share of the step ("-" for none), what to try, and the evidence: a link to
**     the section that shows it and the evidence JSON folded under it.
**  3. Times as people read them (findings_rows.c FR-3) (HRF-1, HRF-2).
**  4. No finding: one line saying so; the SQL of the table is under it as everywhere.
**  5. Every rule links to a section: fdSections below, "overview" for a rule it does not
**     list.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_rows.h"
#include "report_int.h"

/* The section holding each rule's evidence (HRF-5). */
static const struct {
  const char *rule, *section;
} fdSections[] = {
    {"step", "idle"},
    {"blocking_copy", "launch"}, /* the copy calls among the launches' CPU times */
    {"host_sync", "critical-path"},
    {"allocator_churn", "memory"},
    {"gpu_waits_for_host", "idle"},
    {"host_other", "critical-path"},
    {"exposed_communication", "overlap"},
    {"waits_for_ranks", "collectives"},
    {"pipeline_bubble", "collectives"},
    {"straggler", "collectives"},
    {"memory_near_capacity", "memory"},
    {"dataparallel", "overview"},
    {"ddp_without_nccl", "overview"},
    {"dataloader", "tb-views"},
    {"communication", "tb-views"},
    {"gpu_low_utilization", "tb-views"},
    {"tensor_cores_unused", "operators"},
    {"low_efficiency", "perf"},
};

static const char *hrfSection(const char *rule) {
  for (size_t i = 0; i < sizeof fdSections / sizeof fdSections[0]; i++) {
    if (rule && !strcmp(fdSections[i].rule, rule)) return fdSections[i].section;
  }
  return "overview";
}

/* HRF-3 */
static void hrfTime(sv_buf *o, double us) {
  char b[32];
  fr_time(b, sizeof b, us);
  sv_puts(o, b);
}

static const char hrf_sql[] =
    "SELECT rank, trace_id, rule, kind, parent, source, time_us, pct_of_step, title, advice,\n"
    "  caveats, evidence\nFROM hta_findings";

void hrJobsOverview(hr_ctx *x, int njobs, char *const *names) {
  sv_buf *o = x->o;
  sqlite3_stmt *st = NULL;
  char *err = NULL;
  if (sqlite3_exec(x->db,
                   "DROP TABLE IF EXISTS temp.hr_fd_all;"
                   " CREATE TEMP TABLE hr_fd_all AS SELECT * FROM hta_findings",
                   NULL, NULL, &err) != SQLITE_OK) {
    sqlite3_free(err);
    return; /* each job's section runs hta_findings itself and reports the error */
  }
  x->fd_all = 1;
  sv_puts(o,
          "<section id=\"jobs\"><h2>Jobs: what to fix first</h2>\n<p class=\"what\">Every job "
          "of the database: its mean step over its ranks, the share of it the findings could "
          "recover (the causes' GPU idle time and the busy findings' estimates, per "
          "<code>hta_findings</code>' summary rows) and its costliest cause; each name links "
          "to the job's findings.</p>\n<div class=\"tw\"><table><thead><tr><th>job</th>"
          "<th class=\"n\">ranks</th><th class=\"n\">step</th><th class=\"n\">recoverable</th>"
          "<th>costliest cause</th></tr></thead><tbody>");
  if (sqlite3_prepare_v2(x->db,
                         "SELECT count(DISTINCT rank), avg(json_extract(evidence, '$.step_us')),"
                         " avg(pct_of_step), (SELECT rule || '|' || rank || '|' || time_us FROM"
                         " temp.hr_fd_all c WHERE c.job IS ?1 AND c.kind = 'cause' ORDER BY"
                         " c.time_us DESC LIMIT 1) FROM temp.hr_fd_all WHERE job IS ?1 AND"
                         " rule = 'step'",
                         -1, &st, NULL) != SQLITE_OK) {
    hrFail(x, "the jobs' findings");
    return;
  }
  for (int k = 0; k < njobs; k++) { /* HRF-1 */
    sqlite3_bind_text(st, 1, names[k], -1, SQLITE_STATIC);
    sv_printf(o, "<tr><td><a href=\"#j%d-findings\">", k + 1);
    sv_esc(o, names[k] ? names[k] : "(unnamed)");
    sv_puts(o, "</a></td>");
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
      sv_printf(o, "<td class=\"n\">%lld</td><td class=\"n\">",
                (long long)sqlite3_column_int64(st, 0));
      hrfTime(o, sqlite3_column_double(st, 1));
      sv_printf(o, "</td><td class=\"n\">%.1f%%</td><td>", sqlite3_column_double(st, 2));
      const char *top = (const char *)sqlite3_column_text(st, 3);
      char rule[64];
      long long rank;
      double us;
      if (top && sscanf(top, "%63[^|]|%lld|%lf", rule, &rank, &us) == 3) {
        sv_printf(o, "<code>%s</code> on rank %lld, ", rule, rank);
        hrfTime(o, us);
        sv_puts(o, " per step");
      } else {
        sv_puts(o, "-");
      }
      sv_puts(o, "</td></tr>");
    } else {
      sv_puts(o,
              "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td><td>no GPU "
              "work to account for</td></tr>");
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sv_puts(o, "</tbody></table></div>\n<details><summary>SQL</summary><pre>");
  sv_esc(o,
         "SELECT job, rank, time_us, pct_of_step, evidence FROM hta_findings WHERE rule = 'step'");
  sv_puts(o, "</pre></details></section>\n");
}

/* The caveat texts of CAVEATS as "note:" lines, but those of SHOWN (the trace's caveats,
** under its summary; NULL: none shown): a finding's own. */
static void hrfNotes(hr_ctx *x, const char *caveats, const char *shown) {
  sqlite3_stmt *q = NULL;
  if (!caveats || sqlite3_prepare_v2(x->db,
                                     "SELECT json_extract(value, '$.text') FROM json_each(?1)"
                                     " WHERE json_extract(value, '$.text') NOT IN"
                                     " (SELECT json_extract(value, '$.text') FROM json_each(?2))",
                                     -1, &q, NULL) != SQLITE_OK) {
    sqlite3_finalize(q);
    return;
  }
  sqlite3_bind_text(q, 1, caveats, -1, SQLITE_STATIC);
  sqlite3_bind_text(q, 2, shown ? shown : "[]", -1, SQLITE_STATIC);
  while (sqlite3_step(q) == SQLITE_ROW) {
    sv_puts(x->o, "<br/><small>note: ");
    sv_esc(x->o, (const char *)sqlite3_column_text(q, 0));
    sv_puts(x->o, "</small>");
  }
  sqlite3_finalize(q);
}

static void hrfWho(hr_ctx *x, const fr_row *r) {
  if (r->has_trace) sv_esc(x->o, hrLabel(x, r->trace_id));
  else if (r->has_rank) sv_printf(x->o, "rank %lld", r->rank);
  else sv_puts(x->o, "job");
}

/* One finding's row; SUB for a cause under its symptom; SHOWN: the caveats shown above. */
static void hrfRow(hr_ctx *x, const fr_row *r, int sub, const char *shown) {
  sv_buf *o = x->o;
  sv_printf(o, "<tr%s><td>", sub ? " class=\"sub\"" : "");
  hrfWho(x, r);
  sv_puts(o, sub ? "</td><td class=\"fdt\">\xE2\x86\xB3 <b>" : "</td><td class=\"fdt\"><b>");
  sv_esc(o, r->title);
  sv_puts(o, "</b><br/><code>");
  sv_esc(o, r->rule);
  sv_puts(o, "</code> ");
  sv_esc(o, r->kind);
  if (r->plugin) sv_puts(o, ", <i>TensorBoard plugin</i>");
  hrfNotes(x, r->caveats, shown);
  sv_puts(o, "</td><td class=\"n\">");
  if (r->has_time) hrfTime(o, r->time_us);
  else sv_puts(o, "-");
  sv_puts(o, "</td><td class=\"n\">");
  if (r->has_pct) sv_printf(o, "%.1f%%", r->pct);
  else sv_puts(o, "-");
  sv_puts(o, "</td><td class=\"fda\">");
  sv_esc(o, r->advice);
  sv_puts(o, "</td><td>");
  hrSectionLink(x, hrfSection(r->rule));
  sv_puts(o, "<details><summary>JSON</summary><pre class=\"wrap\">");
  sv_esc(o, r->evidence);
  sv_puts(o, "</pre></details></td></tr>");
}

/* HRF-2: a trace's summary row. */
static void hrfSummary(hr_ctx *x, const fr_row *r) {
  sv_buf *o = x->o;
  fr_summary f;
  sv_puts(o, "<tr class=\"sum\"><td>");
  hrfWho(x, r);
  sv_puts(o, "</td><td colspan=\"5\"><b>");
  if (fr_summary_read(x->db, r, &f)) {
    sv_printf(o, "%.1f%% of the ", r->has_pct ? r->pct : 0.0);
    hrfTime(o, f.step_us);
    sv_printf(o, " step is recoverable</b> (the GPU computes %.1f%% of it; ", f.busy_pct);
    hrfTime(o, f.idle_us);
    sv_puts(o, " idle, ");
    hrfTime(o, f.attributed_us);
    sv_puts(o, " of it with a cause");
    if (f.before_us > 0) {
      sv_puts(o, ", ");
      hrfTime(o, f.before_us);
      sv_puts(o, " waiting on GPU work from before the trace");
    }
    sv_puts(o, ")");
  } else {
    sv_puts(o, "</b>");
  }
  hrfNotes(x, r->caveats, NULL);
  sv_puts(o, "</td></tr>");
}

/* The job's findings into *PR (HRF-1: from the page's table when it has one); -1 on error. */
static long hrfLoad(hr_ctx *x, fr_row **pr) {
  sqlite3_stmt *st = NULL;
  long n = 0;
  *pr = NULL;
  if (x->fd_all) {
    char *sql = sqlite3_mprintf(
        "SELECT rank, trace_id, rule, kind, parent, source, time_us,"
        " pct_of_step, title, advice, caveats, evidence FROM"
        " temp.hr_fd_all WHERE job IS %s ORDER BY rowid",
        x->job_q);
    if (!sql || sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK) hrFail(x, "findings");
    sqlite3_free(sql);
  } else {
    st = hrPrep(x, hrf_sql, "findings");
  }
  if (!st) return -1;
  int rc = fr_load(st, pr, &n);
  if (rc == SQLITE_NOMEM) hrOom(x);
  else if (rc != SQLITE_DONE) hrFail(x, "findings");
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) return n;
  fr_free(*pr, n);
  *pr = NULL;
  return -1;
}

void hrFindings(hr_ctx *x) {
  sv_buf *o = x->o;
  fr_row *r;
  hrSection(x, HR_SEC_FINDINGS,
            "What to change first. Per rank, the summary says how much of the step the findings "
            "could recover; under it each symptom with the causes that explain it: a cause's "
            "time is GPU idle time it alone explains (fixing it recovers at most that), a busy "
            "finding's an estimate of what faster kernels would save (<code>hta_findings</code>; "
            "findings under 1% of a step are left out). Rules marked <i>TensorBoard plugin</i> "
            "are its Overview's recommendations.");
  long n = hrfLoad(x, &r);
  if (n >= 0) {
    long *order = malloc((size_t)(n ? n : 1) * sizeof *order), m = 0;
    unsigned char *sub = malloc((size_t)(n ? n : 1));
    if (order && sub) m = fr_order(r, n, order, sub); /* HRF-2 */
    else hrOom(x);
    sv_puts(o,
            "<div class=\"tw fd\"><table class=\"fd\"><thead><tr><th>who</th><th>finding</th>"
            "<th class=\"n\">per step</th><th class=\"n\">% of step</th><th>what to "
            "try</th><th>evidence</th></tr></thead><tbody>");
    const fr_row *sum = NULL; /* the last summary: its trace's caveats are shown */
    for (long k = 0; k < m; k++) {
      const fr_row *f = &r[order[k]];
      if (!strcmp(f->kind, "summary")) hrfSummary(x, sum = f);
      else
        hrfRow(x, f, sub[k],
               sum && f->has_trace && sum->trace_id == f->trace_id ? sum->caveats : NULL);
    }
    if (m == 0) /* HRF-4 */
      sv_puts(o, "<tr><td class=\"empty\" colspan=\"6\">no findings above 1% of a step</td></tr>");
    sv_puts(o, "</tbody></table></div>\n<details><summary>SQL</summary><pre>");
    sv_esc(o, hrf_sql);
    sv_puts(o, "</pre></details>\n");
    free(order);
    free(sub);
  }
  fr_free(r, n > 0 ? n : 0);
  hrEndSection(x);
}

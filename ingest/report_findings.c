/*
** report_findings.c: section 1 of each job's part of the HTML report (report.c HR-9):
** hta_findings, what to fix ranked by its cost per step, each with what to try and a
** link to the section of the report that holds its evidence.
**
** Requirements (tests cite them as HRF-n):
**  1. One table row per finding of hta_findings with its defaults (min_pct 1), in its
**     order: who (the rank's label, or "job"), the title, µs per step, % of the rank's
**     mean step ("-" for a finding that is no time), what to try, and the evidence: a
**     link to the section that shows it and the evidence JSON folded under it.
**  2. No finding: a line saying so; the SQL of the table is under it as everywhere.
**  3. Every rule links to a section: fdSections below, "overview" for a rule it does
**     not list.
*/
#include <string.h>

#include "report_int.h"

/* The section holding each rule's evidence (HRF-3). */
static const struct {
  const char *rule, *section;
} fdSections[] = {
    {"pageable_memcpy", "launch"},  /* cudaMemcpyAsync among the launches' CPU times */
    {"host_sync", "critical-path"}, /* syncs hold the critical path */
    {"allocator_churn", "memory"},        {"gpu_waits_for_host", "idle"},
    {"exposed_communication", "overlap"}, {"straggler", "collectives"},
    {"memory_near_capacity", "memory"},   {"dataparallel", "overview"},
    {"ddp_without_nccl", "overview"},     {"dataloader", "tb-views"},
    {"communication", "tb-views"},        {"gpu_low_utilization", "tb-views"},
    {"tensor_cores_unused", "operators"}, {"low_efficiency", "perf"},
};

static const char *hrfSection(const char *rule) {
  for (size_t i = 0; i < sizeof fdSections / sizeof fdSections[0]; i++) {
    if (rule && !strcmp(fdSections[i].rule, rule)) return fdSections[i].section;
  }
  return "overview";
}

static const char hrf_sql[] =
    "SELECT rank, rule, title, time_us, pct_of_step, kind, advice, source, trace_id, evidence\n"
    "FROM hta_findings";

void hrFindings(hr_ctx *x) {
  sv_buf *o = x->o;
  hrSection(x, HR_SEC_FINDINGS,
            "What to change first: each finding's cost per step (the analysed ProfilerSteps' "
            "total over their number) and its share of the rank's mean step, from the analyses "
            "below (<code>hta_findings</code>; findings under 1% of a step are left out). "
            "Rules marked <i>TensorBoard plugin</i> are its Overview's recommendations.");
  sqlite3_stmt *st = hrPrep(x, hrf_sql, "findings");
  long n = 0;
  if (st) {
    sv_puts(o,
            "<div class=\"tw fd\"><table class=\"fd\"><thead><tr><th>who</th><th>finding</th>"
            "<th class=\"n\">\xC2\xB5s per step</th><th class=\"n\">% of step</th><th>what to "
            "try</th><th>evidence</th></tr></thead><tbody>");
    while (hrStep(x, st, "findings") == SQLITE_ROW) {
      const char *rule = (const char *)sqlite3_column_text(st, 1);
      n++;
      sv_puts(o, "<tr><td>");
      if (sqlite3_column_type(st, 8) != SQLITE_NULL)
        sv_esc(o, hrLabel(x, sqlite3_column_int64(st, 8)));
      else if (sqlite3_column_type(st, 0) != SQLITE_NULL)
        sv_printf(o, "rank %lld", (long long)sqlite3_column_int64(st, 0));
      else sv_puts(o, "job");
      sv_puts(o, "</td><td class=\"fdt\"><b>");
      sv_esc(o, (const char *)sqlite3_column_text(st, 2));
      sv_puts(o, "</b><br/><code>");
      sv_esc(o, rule);
      sv_puts(o, "</code>");
      if (!strcmp((const char *)sqlite3_column_text(st, 7), "tb_plugin"))
        sv_puts(o, " <i>TensorBoard plugin</i>");
      for (int c = 3; c <= 4; c++) {
        sv_puts(o, "</td><td class=\"n\">");
        if (sqlite3_column_type(st, c) == SQLITE_NULL) sv_puts(o, "-");
        else sv_printf(o, c == 3 ? "%.1f" : "%.2f", sqlite3_column_double(st, c));
      }
      sv_puts(o, "</td><td class=\"fda\">");
      sv_esc(o, (const char *)sqlite3_column_text(st, 6));
      sv_puts(o, "</td><td>");
      hrSectionLink(x, hrfSection(rule));
      sv_puts(o, "<details><summary>JSON</summary><pre>");
      sv_esc(o, (const char *)sqlite3_column_text(st, 9));
      sv_puts(o, "</pre></details></td></tr>");
    }
    sqlite3_finalize(st);
    if (n == 0)
      sv_puts(o, "<tr><td class=\"empty\" colspan=\"6\">no findings above 1% of a step</td></tr>");
    sv_puts(o, "</tbody></table></div>\n<details><summary>SQL</summary><pre>");
    sv_esc(o, hrf_sql);
    sv_puts(o, "</pre></details>\n");
  }
  hrEndSection(x);
}

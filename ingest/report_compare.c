/*
** report_compare.c: the comparison part of the HTML report (`hta-ingest --report OUT DB
** --compare JOB_A JOB_B`): what changed from run A (control) to run B (test), before the
** jobs' own parts.
**
** Requirements (tests cite them as HRC-n):
**  1. A part of its own, headed "Comparison: A -> B", with the ranks compared; it reads
**     hta_job_diff_summary(A, B) and hta_job_diff(A, B) once each (temp tables), and every
**     table shows the SQL over the function that makes it.
**  2. The mean step of each side and the difference; a waterfall from the control's step
**     to the test's through the parts of the 'role' split (and of every other split but
**     'operator' and 'finding': 'idle', the GPU's busy time and idle causes), each part's
**     delta a bar; then the parts' table (both sides, delta, share, exact ns).
**  6. The findings that appeared, disappeared or changed cost (the 'finding' split): a
**     table of both sides' cost per step, delta and change.
**  3. The 10 operators whose GPU time per step changed most, both sides side by side.
**  4. The matched trees: node counts by match, and the 10 comparison points whose GPU time
**     changed most.
**  5. A job that is not in the database, or a failed analysis, shows its message there
**     (HR-5: the report is still written, HR_PARTIAL).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* HRC-2: the waterfall of one split from temp.hr_cmp_s, from the 'role' split's step. */
static void hrcWaterfall(hr_ctx *x, const char *split, const char *title) {
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT part, control_us, delta_us FROM temp.hr_cmp_s"
                            " WHERE split = ?1 OR (split = 'role' AND part = 'step')"
                            " ORDER BY split = 'role' AND part = 'step' DESC, rowid",
                            "the step difference's parts");
  hr_strs labels = {0, 0, 0};
  hr_vec delta = {0, 0, 0};
  double start = NAN;
  if (!st) return;
  sqlite3_bind_text(st, 1, split, -1, SQLITE_STATIC);
  while (hrStep(x, st, "the step difference's parts") == SQLITE_ROW) {
    const char *part = (const char *)sqlite3_column_text(st, 0);
    if (part && !strcmp(part, "step")) {
      start = hrCol(st, 1) / 1000.0;
      continue;
    }
    if (hrPushStr(&labels, part ? part : "") || hrPush(&delta, hrCol(st, 2) / 1000.0)) hrOom(x);
  }
  sqlite3_finalize(st);
  if (!x->fatal && isfinite(start)) {
    sv_waterfall w = {.title = title,
                      .ylabel = "ms per step",
                      .unit = " ms",
                      .first = "control step",
                      .last = "test step",
                      .start = start,
                      .n = (int)labels.n,
                      .labels = (const char *const *)labels.v,
                      .delta = delta.v};
    sv_waterfall_chart(x->o, &w);
  }
  hrStrsFree(&labels);
  free(delta.v);
}

void hrCompare(hr_ctx *x, const char *a, const char *b) {
  sv_buf *o = x->o;
  char *qa = sqlite3_mprintf("%Q", a), *qb = sqlite3_mprintf("%Q", b);
  char *src_s = qa && qb ? sqlite3_mprintf("hta_job_diff_summary(%s, %s)", qa, qb) : NULL;
  char *src_d = qa && qb ? sqlite3_mprintf("hta_job_diff(%s, %s)", qa, qb) : NULL;
  if (!src_s || !src_d) {
    hrOom(x);
    goto hrc_end;
  }
  sv_puts(o, "<h1 id=\"compare\">Comparison: ");
  sv_esc(o, a);
  sv_puts(o, " \xE2\x86\x92 "); /* → */
  sv_esc(o, b);
  sv_puts(o, "</h1>\n");
  /* HRC-1: each function once (their materialised rows keep the ranks used) */
  if (hrMat(x, "hr_cmp_s", src_s) || hrMat(x, "hr_cmp_d", src_d)) goto hrc_end;
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT control_us, test_us, delta_us, control_count, test_count,"
                            " (SELECT rank FROM main.trace WHERE trace_id = s.control_trace_id),"
                            " (SELECT rank FROM main.trace WHERE trace_id = s.test_trace_id)"
                            " FROM temp.hr_cmp_s s WHERE split = 'role' AND part = 'step'",
                            "the mean step");
  if (st && hrStep(x, st, "the mean step") == SQLITE_ROW) {
    double c = hrCol(st, 0), t = hrCol(st, 1), d = hrCol(st, 2);
    sv_puts(o, "<p class=\"what\">What changed from <b>");
    sv_esc(o, a);
    sv_printf(o, "</b> (control, rank %lld) to <b>", (long long)sqlite3_column_int64(st, 5));
    sv_esc(o, b);
    sv_printf(o,
              "</b> (test, rank %lld), each one trace file. Mean step (the TensorBoard plugin's "
              "steps, %lld and %lld): ",
              (long long)sqlite3_column_int64(st, 6), (long long)sqlite3_column_int64(st, 3),
              (long long)sqlite3_column_int64(st, 4));
    sv_num(o, c / 1000.0);
    sv_puts(o, " ms \xE2\x86\x92 ");
    sv_num(o, t / 1000.0);
    sv_puts(o, " ms: ");
    if (d > 0) sv_puts(o, "+");
    sv_num(o, d / 1000.0);
    sv_puts(o, " ms");
    if (c > 0) sv_printf(o, " (%+.1f%%)", 100.0 * d / c);
    sv_puts(o,
            ". The parts add up to the difference exactly (in ns): red parts made the test run "
            "slower, green ones faster.</p>\n");
  }
  sqlite3_finalize(st);
  /* HRC-2: per split (role first), its waterfall and its table */
  st = hrPrep(x,
              "SELECT split FROM temp.hr_cmp_s WHERE split NOT IN ('operator', 'finding')"
              " GROUP BY split ORDER BY min(rowid)",
              "the splits");
  char splits[8][32];
  int ns = 0;
  while (st && ns < 8 && hrStep(x, st, "the splits") == SQLITE_ROW)
    snprintf(splits[ns++], sizeof splits[0], "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  for (int k = 0; k < ns && !x->fatal; k++) {
    char tmpl[512];
    int role = !strcmp(splits[k], "role"), idle = !strcmp(splits[k], "idle");
    sv_printf(o, "<h3>The step difference by %s</h3>\n",
              role   ? "role (the TensorBoard plugin's roles; the Kernel role by kernel type)"
              : idle ? "GPU busy time and idle cause (the findings' accounting)"
                     : splits[k]);
    if (idle)
      sv_puts(o,
              "<p class=\"what\">hta_findings' accounting of each trace's typical steps: the "
              "compute streams' busy time and every idle nanosecond given to one cause. "
              "other_steps is the plugin's mean step less the accounting's (its steps leave "
              "out the outliers and the cut last step).</p>\n");
    hrcWaterfall(x, splits[k],
                 role ? "The mean step from one run to the other, part by part"
                      : "The mean step from one run to the other, by busy time and idle cause");
    snprintf(tmpl, sizeof tmpl,
             "SELECT part, control_us, test_us, delta_us, share, control_ns, test_ns, delta_ns"
             " FROM {src} WHERE split = '%s'",
             splits[k]);
    hrTableOf(x, tmpl, src_s, "hr_cmp_s", "the step difference's parts");
  }
  /* HRC-6 */
  if (!x->fatal) {
    sv_puts(o,
            "<h3>Findings that appeared, disappeared or changed cost</h3>\n<p class=\"what\">"
            "hta_findings on each run (cost per step; a rule under 1% of the step on both sides "
            "is left out).</p>\n");
    hrTableOf(x,
              "SELECT part AS finding, change, control_us, test_us, delta_us, control_count,"
              " test_count FROM {src} WHERE split = 'finding'",
              src_s, "hr_cmp_s", "the findings");
  }
  /* HRC-3 */
  sv_puts(o,
          "<h3>The operators whose GPU time per step changed most</h3>\n<p class=\"what\">"
          "Each GPU event under the nearest operator (cpu_op) above it; per step.</p>\n");
  hrTableOf(x,
            "SELECT part AS operator, control_us, test_us, delta_us, control_count AS"
            " control_gpu_events, test_count AS test_gpu_events FROM {src}"
            " WHERE split = 'operator' LIMIT 10",
            src_s, "hr_cmp_s", "the operators");
  /* HRC-4 */
  sv_puts(o,
          "<h3>The call trees matched node by node</h3>\n<p class=\"what\">As AMD TraceLens's "
          "TraceDiff matches them: the same call in the same place of the model. A comparison "
          "point compares the GPU events of its unmatched children (and its own).</p>\n");
  hrTableOf(x,
            "SELECT match, count(*) AS nodes, sum(is_comparison_point) AS comparison_points,"
            " sum(point_control_kernels) AS control_gpu_events_compared,"
            " sum(point_test_kernels) AS test_gpu_events_compared FROM {src} GROUP BY match",
            src_d, "hr_cmp_d", "the matched trees");
  hrTableOf(x,
            "SELECT node_id, name, match, point_control_kernels, point_test_kernels,"
            " point_control_us, point_test_us, point_delta_us FROM {src}"
            " WHERE is_comparison_point ORDER BY abs(point_delta_us) DESC, node_id LIMIT 10",
            src_d, "hr_cmp_d", "the comparison points");
hrc_end:
  sqlite3_exec(x->db, "DROP TABLE IF EXISTS temp.hr_cmp_s; DROP TABLE IF EXISTS temp.hr_cmp_d",
               NULL, NULL, NULL);
  sqlite3_free(qa);
  sqlite3_free(qb);
  sqlite3_free(src_s);
  sqlite3_free(src_d);
}

/*
** report_hta.c: sections 2-11 of each job's part of the HTML report (numbered from 2,
** the findings coming first: report.c HR-9): the traces and HTA's analyses, each chart
** drawn from one run of its analysis (hrMat) with the tables under it (HR-1).
**
**   Traces: one row per trace file, and the ingest issues.
**   Temporal breakdown: idle / compute / non-compute % per rank (stacked bars).
**   Kernel type breakdown: pie over all ranks.
**   Top kernels per type per rank: pies (hta_kernel_breakdown defaults).
**   Kernel duration across ranks: mean per rank with min/max whiskers, for the
**     HR_TOP_ACROSS kernels of each type with the largest total time.
**   Idle time per stream: absolute (µs) and percentage, stacked by category; the idle
**     interval statistics.
**   Communication / computation overlap per rank.
**   Queue length over time per stream, and memory bandwidth over time per memory
**     kind, for the shown ranks; their summaries for every rank.
**   Kernel launch statistics: log-scale histograms of CPU launch duration, launch
**     delay (with the runtime and launch-delay cutoffs) and of the GPU duration of
**     short kernels; per-rank counts and the worst delays.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ---------------------------------------------------------------- 1. overview */

void hrOverview(hr_ctx *x) {
  hrSection(
      x, 0,
      "One row per ingested trace file. <code>rank_source</code> says where the rank came from "
      "(<code>distributedInfo</code>, the file name, or the default 0); times below are in "
      "microseconds unless a column says otherwise.");
  hrTable(x,
          "SELECT rank, trace_id, rank_source,\n"
          "       replace(file_name, rtrim(file_name, replace(file_name, '/', '')), '') AS file,\n"
          "       device_type, world_size, event_count AS events,\n"
          "       (max_end - min_ts) / 1000.0 AS span_us, file_size AS bytes\n"
          "FROM trace ORDER BY rank, trace_id",
          "traces");
  sv_puts(
      x->o,
      "<h3>Ingest issues</h3>\n<p class=\"what\">What ingest repaired, guessed or dropped.</p>\n");
  hrTable(x,
          "SELECT trace_id, code, count, first_seq, example, message FROM ingest_issue ORDER BY "
          "issue_id",
          "ingest issues");
  /* HR-11: CUDA/HIP graph replays and their captures (ext/graph/) */
  if (hrScalar(x, "SELECT count(*) FROM hta_graph_coverage", "hta_graph_coverage") > 0) {
    sv_puts(x->o,
            "<h3>Graph replays</h3>\n<p class=\"what\">The kernels a CUDA/HIP graph launch "
            "replayed, matched to the operators that captured them (the job's capture traces): "
            "<code>coverage_pct</code> is the share of the replayed GPU time under a captured "
            "operator; the operator and performance sections count only that part by "
            "operator.</p>\n");
    hrTable(x,
            "SELECT rank, trace_id, launches, launches_merged, replayed AS replayed_kernels,\n"
            "       matched AS matched_kernels, replayed_us, matched_us,\n"
            "       100.0 * coverage AS coverage_pct\n"
            "FROM hta_graph_coverage ORDER BY rank, trace_id",
            "graph coverage");
    if (hrScalar(x, "SELECT count(*) FROM hta_graph_launches WHERE result <> 'merged'",
                 "hta_graph_launches") > 0)
      hrTable(x,
              "SELECT rank, trace_id, graph_launch_seq, ts_us, gpu_events, matched, unmatched,\n"
              "       match_rule, unmatched_reason\n"
              "FROM hta_graph_launches WHERE result <> 'merged' ORDER BY rank, trace_id, ts_us",
              "graph launches not merged");
  }
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 2. temporal */

void hrTemporal(hr_ctx *x) {
  static const char *const sers[] = {"compute", "non-compute", "idle"};
  static const char *const cols[] = {"#636efa", "#ffa15a", "#b0b0b0"};
  hrSection(x, 1,
            "Where each GPU's time goes between its first and last kernel: <b>compute</b> (a "
            "computation kernel "
            "runs), <b>non-compute</b> (only communication, memory or other GPU work runs) and "
            "<b>idle</b> "
            "(nothing runs). Percentages of <code>kernel_time_us</code>.");
  static const char src[] = "hta_temporal_breakdown";
  int ok;
  sqlite3_stmt *st = hrMatPrep(x, "hr_tb", src,
                               "SELECT trace_id, NULL, compute_time_pctg, non_compute_time_pctg, "
                               "idle_time_pctg FROM temp.hr_tb",
                               &ok);
  hr_bars c = {.title = "Temporal breakdown per rank (% of kernel time)",
               .ylabel = "% of kernel time",
               .nser = 3,
               .sers = sers,
               .colors = cols,
               .ymax = 100,
               .unit = "%",
               .draw_empty = 1};
  hrBarsOf(x, st, src, &c);
  if (ok)
    hrTableOf(x,
              "SELECT rank, trace_id, idle_time_us, compute_time_us, non_compute_time_us, "
              "kernel_time_us,\n"
              "       idle_time_pctg, compute_time_pctg, non_compute_time_pctg\n"
              "FROM {src}",
              src, "hr_tb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 3. kernel types */

static const char *hrTypeColor(const char *label) {
  if (!strcmp(label, "COMPUTATION")) return "#636efa";
  if (!strcmp(label, "COMMUNICATION")) return "#ef553b";
  if (!strcmp(label, "MEMORY")) return "#00cc96";
  if (!strcmp(label, "COMPUTATION overlapping COMMUNICATION")) return "#ab63fa";
  if (!strcmp(label, "COMPUTATION overlapping MEMORY")) return "#19d3f3";
  if (!strcmp(label, "COMMUNICATION overlapping MEMORY")) return "#ffa15a";
  return "#ff6692";
}

void hrKernelTypes(hr_ctx *x) {
  hrSection(x, 2,
            "GPU time of all ranks by kernel type. Overlapping kernels of different types are "
            "counted once, "
            "under a label naming every type running (e.g. <i>COMPUTATION overlapping "
            "COMMUNICATION</i>), so "
            "the slices add up to the time any analysed kernel runs.");
  static const char src[] = "hta_kernel_type_breakdown";
  int ok;
  sqlite3_stmt *st = hrMatPrep(
      x, "hr_ktb", src, "SELECT NULL, NULL, kernel_type, NULL, sum_us FROM temp.hr_ktb", &ok);
  if (st) {
    hr_pies c = {.title = "Kernel type breakdown, all ranks",
                 .color = hrTypeColor,
                 .unit = " \xC2\xB5s",
                 .width = 760,
                 .draw_empty = 1};
    sv_puts(x->o, "<div class=\"pies\">");
    hrPiesOf(x, st, "hta_kernel_type_breakdown", &c);
    sv_puts(x->o, "</div>\n");
  }
  if (ok) hrTableOf(x, "SELECT kernel_type, sum_us, percentage FROM {src}", src, "hr_ktb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 4. top kernels */

void hrTopKernels(hr_ctx *x) {
  hrSection(
      x, 3,
      "The kernels that take most of each rank's time, per kernel type (HTA's rule with "
      "<code>duration_ratio</code> 0.8 and <code>num_kernels</code> 10: the rest is folded into "
      "<i>others</i>). Names are shortened as HTA does; hover for the full name.");
  hrShownNote(x);
  static const char src[] = "hta_kernel_breakdown";
  if (hrMat(x, "hr_kb", src)) {
    hrEndSection(x);
    return;
  }
  sv_puts(x->o, "<div class=\"pies\">");
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    /* a kernel's label: its name as HTA shortens it (the full name on hover) */
    sqlite3_stmt *st = hrPrep(x,
                              "SELECT trace_id, kernel_type,"
                              " coalesce(nullif(hta_shorten_name(name), ''), name), name, sum_us"
                              " FROM temp.hr_kb WHERE rank = ?1"
                              " ORDER BY trace_id, kernel_type, sum_us DESC",
                              src);
    if (!st) break;
    sqlite3_bind_int64(st, 1, x->shown[r]);
    hr_pies c = {.unit = " \xC2\xB5s"};
    hrPiesOf(x, st, "hta_kernel_breakdown", &c);
  }
  sv_puts(x->o, "</div>\n");
  hrTableOf(
      x,
      x->dup
          ? "SELECT rank, trace_id, kernel_type, hta_shorten_name(name) AS kernel, count, sum_us,\n"
            "       mean_us, min_us, max_us, stddev_us\n"
            "FROM {src} WHERE rank IN {ranks}\n"
            "ORDER BY rank, trace_id, kernel_type, sum_us DESC"
          : "SELECT rank, kernel_type, hta_shorten_name(name) AS kernel, count, sum_us, mean_us,\n"
            "       min_us, max_us, stddev_us\n"
            "FROM {src} WHERE rank IN {ranks}\n"
            "ORDER BY rank, trace_id, kernel_type, sum_us DESC",
      src, "hr_kb", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 5. across ranks */

static const char hr_across_sql[] =
    "WITH kb AS MATERIALIZED (SELECT * FROM {src}),\n"
    "top AS (SELECT kernel_type, name, row_number() OVER\n"
    "          (PARTITION BY kernel_type ORDER BY sum(sum_us) DESC, name) AS k\n"
    "        FROM kb GROUP BY kernel_type, name)\n"
    "SELECT kb.kernel_type, hta_shorten_name(kb.name) AS kernel, kb.rank, kb.trace_id, kb.count,\n"
    "       kb.mean_us, kb.min_us, kb.max_us, kb.name\n"
    "FROM top JOIN kb USING (kernel_type, name)\n"
    "WHERE top.k <= " HR_XSTR(HR_TOP_ACROSS) "\n"
    "ORDER BY kb.kernel_type, top.k, kb.rank, kb.trace_id";

void hrAcross(hr_ctx *x) {
  hrSection(
      x, 4,
      "For the " HR_XSTR(HR_TOP_ACROSS) " kernels of each type with the largest total time over "
      "all ranks: the mean duration on each rank (bar) and the shortest and longest instance "
      "(whisker). A rank that stands out is slower, or waits longer inside its collectives.");
  static const char src[] = "hta_kernel_breakdown(1.0, 100000)";
  char *run = hrMat(x, "hr_kba", src) ? NULL : hrSub(x, hr_across_sql, "temp.hr_kba");
  sqlite3_stmt *st = run ? hrPrep(x, run, src) : NULL;
  int ok = st != NULL;
  sqlite3_free(run);
  sv_puts(x->o, "<div class=\"grid2\">");
  hr_strs cats = {0};
  hr_vec mean = {0}, lo = {0}, hi = {0};
  char *cur = NULL, *cur_short = NULL, cur_type[32] = "";
  int bad = 0;
  for (;;) {
    int rc = st ? hrStep(x, st, src) : SQLITE_DONE;
    const char *name = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 8) : NULL;
    const char *type = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (cats.n && (!name || !type || strcmp(name, cur) || strcmp(type, cur_type))) {
      sv_puts(x->o, "<figure><figcaption title=\"");
      sv_esc(x->o, cur);
      sv_puts(x->o, "\">");
      sv_esc(x->o, cur_type);
      sv_puts(x->o, ": ");
      sv_esc_cut(x->o, cur_short, 70);
      sv_puts(x->o, "</figcaption>");
      const char *col[] = {hrTypeColor(cur_type)};
      hr_bars c = {.title = cur,
                   .ylabel = "mean duration (\xC2\xB5s)",
                   .nser = 1,
                   .colors = col,
                   .unit = " \xC2\xB5s",
                   .width = 520,
                   .height = 260};
      hrBarsDraw(x, &c, (int)cats.n, (const char *const *)cats.v, mean.v, lo.v, hi.v);
      sv_puts(x->o, "</figure>\n");
      hrStrsFree(&cats);
      mean.n = lo.n = hi.n = 0;
    }
    if (rc != SQLITE_ROW || !name || !type) break;
    if (!cats.n) {
      free(cur);
      free(cur_short);
      cur = strdup(name);
      const char *s = (const char *)sqlite3_column_text(st, 1);
      cur_short = strdup(s ? s : name);
      snprintf(cur_type, sizeof cur_type, "%s", type);
      if (!cur || !cur_short) bad = 1;
    }
    bad |= hrPushStr(&cats, hrLabel(x, sqlite3_column_int64(st, 3)));
    bad |= hrPush(&mean, hrCol(st, 5)) | hrPush(&lo, hrCol(st, 6)) | hrPush(&hi, hrCol(st, 7));
    if (bad) break;
  }
  sqlite3_finalize(st);
  if (bad) hrOom(x);
  sv_puts(x->o, "</div>\n");
  hrStrsFree(&cats);
  free(mean.v), free(lo.v), free(hi.v), free(cur), free(cur_short);
  if (ok) hrTableOf(x, hr_across_sql, src, "hr_kba", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 6. idle time */

void hrIdle(hr_ctx *x) {
  static const char *const sers[] = {"host_wait", "kernel_wait", "other"};
  static const char *const cols[] = {"#ef553b", "#ffa15a", "#8c8c8c"};
  hrSection(
      x, 5,
      "Gaps between consecutive kernels of each stream, by cause: <b>host_wait</b> (the kernel was "
      "launched only after the previous one ended: the CPU could not keep up), <b>kernel_wait</b> "
      "(a gap "
      "shorter than <code>consecutive_kernel_delay_us</code> = 30 \xC2\xB5s: launch overhead) and "
      "<b>other</b>.");
  hrShownNote(x);
  static const char src[] = "hta_idle_time_breakdown(30)";
  int ok = hrMat(x, "hr_it", src) == 0;
  /* one bar per stream, in the analysis' order: its idle time by category in µs, then in % */
  static const char *const val[] = {"idle_time_us", "100 * idle_time_ratio"};
  for (int k = 0; k < 2 && ok && !x->fatal; k++) {
    char sql[640];
    snprintf(sql, sizeof sql,
             "SELECT trace_id, 'stream ' || stream,"
             " max(CASE idle_category WHEN 'host_wait' THEN %s END),"
             " max(CASE idle_category WHEN 'kernel_wait' THEN %s END),"
             " max(CASE idle_category WHEN 'other' THEN %s END)"
             " FROM temp.hr_it WHERE rank IN %s GROUP BY trace_id, stream ORDER BY min(rowid)",
             val[k], val[k], val[k], x->in_shown);
    hr_bars c = {.title = k ? "Idle time per stream (%)" : "Idle time per stream (us)",
                 .ylabel = k ? "% of idle time" : "idle time (\xC2\xB5s)",
                 .nser = 3,
                 .sers = sers,
                 .colors = cols,
                 .ymax = k ? 100 : 0,
                 .unit = k ? "%" : " \xC2\xB5s",
                 .heading = k ? "<h3>Idle time (% of the stream's idle time)</h3>\n"
                              : "<h3>Idle time (\xC2\xB5s)</h3>\n",
                 .draw_empty = 1};
    hrBarsOf(x, hrPrep(x, sql, src), src, &c);
  }
  if (ok)
    hrTableOf(x,
              x->dup
                  ? "SELECT rank, trace_id, stream, idle_category, idle_time_us, idle_time_ratio\n"
                    "FROM {src} WHERE rank IN {ranks}"
                  : "SELECT rank, stream, idle_category, idle_time_us, idle_time_ratio\n"
                    "FROM {src} WHERE rank IN {ranks}",
              src, "hr_it", src);
  sv_puts(x->o, "<h3>Idle interval statistics (\xC2\xB5s)</h3>\n");
  hrTableOf(
      x,
      x->dup
          ? "SELECT rank, trace_id, stream, idle_category, count, mean_us, std_us, min_us, "
            "p25_us,\n"
            "       p50_us, p75_us, max_us\n"
            "FROM {src} WHERE rank IN {ranks}"
          : "SELECT rank, stream, idle_category, count, mean_us, std_us, min_us, p25_us, p50_us,\n"
            "       p75_us, max_us\n"
            "FROM {src} WHERE rank IN {ranks}",
      "hta_idle_interval_stats(30)", NULL, "hta_idle_interval_stats");
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 7. overlap */

void hrOverlap(hr_ctx *x) {
  hrSection(x, 6,
            "The share of each rank's communication time during which a computation kernel also "
            "runs. Higher "
            "is better: communication hidden behind computation costs no GPU time. Empty for a "
            "rank without "
            "communication kernels.");
  static const char src[] = "hta_comm_comp_overlap";
  int ok;
  sqlite3_stmt *st = hrMatPrep(
      x, "hr_cc", src, "SELECT trace_id, NULL, comp_comm_overlap_pctg FROM temp.hr_cc", &ok);
  static const char *const col[] = {"#ab63fa"};
  hr_bars c = {.title = "Communication overlapped by computation (%)",
               .ylabel = "% of communication time",
               .nser = 1,
               .colors = col,
               .ymax = 100,
               .unit = "%",
               .draw_empty = 1};
  hrBarsOf(x, st, src, &c);
  if (ok)
    hrTableOf(x, "SELECT rank, trace_id, comp_comm_overlap_pctg FROM {src}", src, "hr_cc", src);
  hrEndSection(x);
}

void hrQueue(hr_ctx *x) {
  hrSection(x, 7,
            "Per stream, the number of kernels, copies and memsets launched by the CPU that have "
            "not started "
            "on the GPU yet. A queue that stays long means the GPU is the bottleneck; at 1024 the "
            "CPU blocks. "
            "One point per timestamp (ties collapsed); lines are drawn with the minimum and "
            "maximum of every "
            "pixel column, so no peak is lost.");
  hrShownNote(x);
  hrSeries(
      x, "SELECT trace_id, stream, ts_us, queue_length FROM hta_queue_length(0, 1) WHERE rank = ?1",
      "hta_queue_length", "stream ", "queue length", "");
  sv_puts(x->o, "<h3>Summary, every rank</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, stream, count, mean, std, min, p25, p50, p75, max\n"
          "FROM hta_queue_length_summary",
          "hta_queue_length_summary");
  sv_puts(x->o, "<h3>Time blocked on a full queue (1024)</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, stream, duration_at_max_us, relative_duration\nFROM "
          "hta_queue_full_time(1024)",
          "hta_queue_full_time");
  hrEndSection(x);
}

void hrMemBw(hr_ctx *x) {
  hrSection(x, 8,
            "Per memory kind (Memcpy HtoD, DtoH, DtoD, Memset...), the total bandwidth of the "
            "copies in flight, "
            "in GB/s. Copies that only record their size (AMD) get bytes / duration; HTA counts "
            "them as 0 "
            "(see docs/deviations.md).");
  hrShownNote(x);
  hrSeries(
      x, "SELECT trace_id, kind, ts_us, memory_bw_gbps FROM hta_memory_bw(0, 1, 1) WHERE rank = ?1",
      "hta_memory_bw", "", "memory bandwidth (GB/s)", " GB/s");
  sv_puts(x->o, "<h3>Summary, every rank (GB/s, points above 0)</h3>\n");
  hrTable(x,
          "SELECT rank, trace_id, kind, count, mean, std, min, p25, p50, p75, max\nFROM "
          "hta_memory_bw_summary",
          "hta_memory_bw_summary");
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 10. launches */

void hrLaunch(hr_ctx *x) {
  hrSection(x, 9,
            "Each CPU launch call (cudaLaunchKernel, cudaMemcpyAsync, hipLaunchKernel, ...) with "
            "the GPU work it "
            "launched: how long the call took on the CPU, the GPU duration, and the <b>launch "
            "delay</b> (from "
            "the end of the call to the start on the GPU). Outliers: runtime above "
            "<code>runtime_cutoff_us</code> = 50 \xC2\xB5s, launch delay above "
            "<code>launch_delay_cutoff_us</code> = 100 \xC2\xB5s; <b>short kernels</b> run shorter "
            "on the GPU "
            "than their launch took on the CPU. All ranks; logarithmic axes, 4 bins per decade.");
  static const char src[] = "hta_kernel_launch_stats(1, 50, 100)";
  int ok;
  sqlite3_stmt *st = hrMatPrep(
      x, "hr_ls", src,
      "SELECT cpu_duration_us, launch_delay_us, gpu_duration_us, is_short_kernel FROM temp.hr_ls",
      &ok);
  double cpu[HR_HBINS] = {0}, delay[HR_HBINS] = {0}, shortk[HR_HBINS] = {0};
  while (st && hrStep(x, st, src) == SQLITE_ROW) {
    cpu[hrLogBin(hrCol(st, 0))]++;
    delay[hrLogBin(hrCol(st, 1))]++;
    if (sqlite3_column_int(st, 3)) shortk[hrLogBin(hrCol(st, 2))]++;
  }
  sqlite3_finalize(st);
  if (st) {
    hrLogHistogram(x, "Launch delay", "launch delay (\xC2\xB5s, log scale)", delay, 100,
                   "launch_delay_cutoff_us = 100", "#636efa");
    hrLogHistogram(x, "CPU duration of the launch calls", "CPU duration (\xC2\xB5s, log scale)",
                   cpu, 50, "runtime_cutoff_us = 50", "#00cc96");
    hrLogHistogram(x, "GPU duration of short kernels", "GPU duration (\xC2\xB5s, log scale)",
                   shortk, 0, NULL, "#ffa15a");
  }
  if (!ok) {
    hrEndSection(x);
    return;
  }
  sv_puts(x->o, "<h3>Per rank</h3>\n");
  hrTableOf(
      x,
      "SELECT rank, trace_id, count(*) AS launches, sum(is_short_kernel) AS short_kernels,\n"
      "       sum(is_runtime_outlier) AS runtime_outliers,\n"
      "       sum(is_launch_delay_outlier) AS launch_delay_outliers,\n"
      "       hta_median(cpu_duration_us) AS cpu_p50_us, max(cpu_duration_us) AS cpu_max_us,\n"
      "       hta_median(launch_delay_us) AS delay_p50_us, max(launch_delay_us) AS delay_max_us\n"
      "FROM {src}\n"
      "GROUP BY rank, trace_id ORDER BY rank, trace_id",
      src, "hr_ls", src);
  sv_puts(x->o, "<h3>Longest launch delays</h3>\n");
  hrTableOf(x,
            "SELECT rank, correlation, launch_name, hta_shorten_name(kernel_name) AS kernel,\n"
            "       cpu_duration_us, gpu_duration_us, launch_delay_us\n"
            "FROM {src}\n"
            "WHERE is_launch_delay_outlier\n"
            "ORDER BY launch_delay_us DESC LIMIT 20",
            src, "hr_ls", src);
  hrEndSection(x);
}

/*
** report_more.c: sections 12-14 of the HTML report as numbered on the page (report.c
** has the page, report_hta.c sections 2-11, report_int.h what they share).
**
**  12. Collectives: bus bandwidth by message size (power-of-two buckets, mean
**      with min/max whiskers), start skew of each instance over time, total wait
**      per rank; or a note when the job has no collective kernels.
**  13. Memory: per shown rank, allocated and reserved bytes over time per device
**      (downsampled like the other series, the peak marked), the peak per device
**      and the per-step summary.
**  14. Critical path: per shown rank, the time on HTA's critical path by bound_by
**      (default parameters: annotation 'ProfilerStep', its first instance), the
**      top 10 events on the path; a rank without a path says why (its status).
**
** Every statement goes through hrPrep / hrMat / hrTableOf (report_ctx.c), so each
** reads the current job only (HR-8); charts read the temp.hr_* copy that the
** tables under them show the SQL of (HR-1).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define HR_CP_TOP 10 /* events per rank in the critical path's top table */

/* BYTES readably: "4 B", "24 MiB", "27.04 MiB". */
static void hrBytesLabel(char *out, size_t n, double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (u < 6 && bytes >= 1024) bytes /= 1024, u++;
  snprintf(out, n, "%.*f %s", bytes == floor(bytes) ? 0 : 2, bytes, units[u]);
}

/* ---------------------------------------------------------------- 11. collectives */

#define HR_BW_BUCKETS 64

/* Bus bandwidth by message size over temp.hr_ci: one bar per size (mean, whiskers
** min and max) when there are at most HR_BW_EXACT sizes, else per power-of-two
** bucket of msg_bytes. */
#define HR_BW_EXACT 24
static void hrBusBw(hr_ctx *x, const char *src) {
  double sum[HR_BW_BUCKETS] = {0}, lo[HR_BW_BUCKETS], hi[HR_BW_BUCKETS], key[HR_BW_BUCKETS];
  long cnt[HR_BW_BUCKETS] = {0};
  double sizes = hrScalar(x,
                          "SELECT count(DISTINCT msg_bytes) FROM temp.hr_ci"
                          " WHERE msg_bytes > 0 AND busbw_gibps IS NOT NULL",
                          src);
  int exact = sizes <= HR_BW_EXACT, nexact = 0;
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT msg_bytes, busbw_gibps FROM temp.hr_ci"
                            " WHERE msg_bytes > 0 AND busbw_gibps IS NOT NULL ORDER BY msg_bytes",
                            src);
  if (!st) return;
  while (hrStep(x, st, src) == SQLITE_ROW) {
    double b = sqlite3_column_double(st, 0), bw = sqlite3_column_double(st, 1);
    int k;
    if (exact) { /* sizes come in order: a new one opens the next bar */
      if (!nexact || key[nexact - 1] != b) {
        if (nexact == HR_BW_BUCKETS) continue;
        key[nexact++] = b;
      }
      k = nexact - 1;
    } else {
      k = (int)ceil(log2(b));
      if (k < 0) k = 0;
      if (k > HR_BW_BUCKETS - 1) k = HR_BW_BUCKETS - 1;
      key[k] = ldexp(1, k);
    }
    if (!cnt[k]++) lo[k] = hi[k] = bw;
    sum[k] += bw;
    if (bw < lo[k]) lo[k] = bw;
    if (bw > hi[k]) hi[k] = bw;
  }
  sqlite3_finalize(st);
  char labels[HR_BW_BUCKETS][40];
  const char *cats[HR_BW_BUCKETS];
  double v[HR_BW_BUCKETS], vlo[HR_BW_BUCKETS], vhi[HR_BW_BUCKETS];
  int n = 0;
  for (int k = 0; k < HR_BW_BUCKETS; k++) {
    if (!cnt[k]) continue;
    char size[32];
    hrBytesLabel(size, sizeof size, key[k]);
    snprintf(labels[n], sizeof labels[n], "%s%s", exact ? "" : "\xE2\x89\xA4 ", size);
    cats[n] = labels[n];
    v[n] = sum[k] / (double)cnt[k], vlo[n] = lo[k], vhi[n] = hi[k];
    n++;
  }
  if (!n) {
    sv_puts(x->o,
            "<p class=\"note\">No instance has a bus bandwidth (unknown dtype or collective "
            "type).</p>\n");
    return;
  }
  if (!exact) sv_puts(x->o, "<p class=\"note\">Message sizes grouped by powers of two.</p>\n");
  hr_bars c = {.title = "Bus bandwidth by message size (GiB/s)",
               .ylabel = "bus bandwidth (GiB/s)",
               .nser = 1,
               .unit = " GiB/s"};
  hrBarsDraw(x, &c, n, cats, v, vlo, vhi);
}

/* The start skew of each instance at its start time (step line, downsampled). */
static void hrSkew(hr_ctx *x, const char *src) {
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT NULL, NULL, ts_us, start_skew_us FROM temp.hr_ci"
                            " WHERE ts_us IS NOT NULL AND start_skew_us IS NOT NULL ORDER BY ts_us",
                            src);
  hr_lines c = {.title = "Start skew of each collective instance (\xC2\xB5s)",
                .ylabel = "start skew (\xC2\xB5s)",
                .unit = " \xC2\xB5s",
                .xwhat = "instance start, ",
                .key_prefix = "",
                .single = "start skew"};
  hrLinesOf(x, st, src, &c);
}

/* Total wait per rank (hta_collective_ranks, in temp.hr_cr). */
static void hrWaits(hr_ctx *x, const char *src) {
  hr_bars c = {.title = "Total wait in collectives per rank (\xC2\xB5s)",
               .ylabel = "total wait (\xC2\xB5s)",
               .nser = 1,
               .unit = " \xC2\xB5s"};
  hrBarsOf(x, hrPrep(x, "SELECT trace_id, NULL, total_wait_us FROM temp.hr_cr", src), src, &c);
}

void hrCollectives(hr_ctx *x) {
  hrSection(x, 10,
            "The collective-communication kernels (NCCL, RCCL) matched across ranks into "
            "<i>instances</i> (one collective of one process group), as AMD TraceLens does: "
            "implicit-sync types only (allreduce, reducescatter, allgather, alltoall). Bus "
            "bandwidth is nccl-tests' <code>busbw</code> in GiB/s over the fastest rank's kernel; "
            "<b>start skew</b> is how long the first rank waited for the last one; a rank's "
            "<b>wait</b> is the time its kernel waited for the last rank to arrive.");
  static const char src[] = "hta_collective_instances";
  if (!hrMatRows(x, "hr_ci", src,
                 "No collectives: this job has no NCCL or RCCL kernels of the implicit-sync "
                 "types (<code>hta_collective_instances</code> is empty).")) {
    hrEndSection(x);
    return;
  }
  sv_puts(x->o,
          "<h3>Bus bandwidth by message size</h3>\n<p class=\"what\">Instances by message size "
          "(<code>msg_bytes</code>): the bar is their mean bus bandwidth, the whisker the lowest "
          "and highest instance.</p>\n");
  hrBusBw(x, src);
  hrTableOf(x,
            "SELECT collective_name, dtype, msg_bytes, count(*) AS instances,\n"
            "       avg(busbw_gibps) AS busbw_gibps_mean, min(busbw_gibps) AS busbw_gibps_min,\n"
            "       max(busbw_gibps) AS busbw_gibps_max, avg(comm_latency_us) AS latency_us_mean\n"
            "FROM {src}\nGROUP BY collective_name, dtype, msg_bytes ORDER BY msg_bytes, "
            "collective_name, dtype",
            src, "hr_ci", src);
  sv_puts(x->o,
          "<h3>Start skew over time</h3>\n<p class=\"what\">Each instance's start skew (latest "
          "\xE2\x88\x92 earliest start over its ranks) at its start; the table lists the "
          "instances, largest skew first, with the rank that arrived last.</p>\n");
  hrSkew(x, src);
  hrTableOf(x,
            "SELECT pg_name, index_in_group, collective_name, msg_bytes, ts_us, comm_latency_us,\n"
            "       start_skew_us, end_skew_us, first_rank, last_rank, busbw_gibps\n"
            "FROM {src}\nORDER BY start_skew_us DESC, ts_us",
            src, "hr_ci", src);
  static const char rsrc[] = "hta_collective_ranks";
  sv_puts(x->o,
          "<h3>Wait per rank</h3>\n<p class=\"what\">The time each rank's collective kernels "
          "waited for the last rank. The straggler is the rank that waits least.</p>\n");
  if (hrMat(x, "hr_cr", rsrc) == 0) {
    hrWaits(x, rsrc);
    hrTableOf(x,
              "SELECT rank, trace_id, total_wait_us, mean_wait_us, times_arrived_last,\n"
              "       times_arrived_first, pct_arrived_last, num_collectives, "
              "total_collective_dur_us\nFROM {src}",
              rsrc, "hr_cr", rsrc);
  }
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 12. memory */

void hrMemory(hr_ctx *x) {
  hrSection(x, 11,
            "The allocator's <b>allocated</b> and <b>reserved</b> bytes after each allocation or "
            "free, from the <code>[memory]</code> events the PyTorch profiler writes with "
            "<code>profile_memory=True</code> (the TensorBoard plugin's Memory View; HTA has no "
            "memory analysis). The dot on each line marks its peak; hover for the value.");
  static const char src[] = "hta_memory_summary";
  if (!hrMatRows(x, "hr_ms", src,
                 "No memory records: the traces have no <code>[memory]</code> events (profile "
                 "with <code>profile_memory=True</code>).")) {
    hrEndSection(x);
    return;
  }
  hrShownNote(x);
  char *tsrc = sqlite3_mprintf("hta_memory_timeline WHERE rank IN %s", x->in_shown);
  if (!tsrc) {
    hrOom(x);
  } else if (hrMat(x, "hr_mt", tsrc) == 0) {
    /* GPUs (and other devices), then the CPU: apart, each in the unit of its peak */
    static const struct {
      const char *title, *cond;
    } groups[] = {{"GPU memory", "device <> 'CPU'"}, {"CPU memory", "device = 'CPU'"}};
    static const struct {
      double div;
      const char *name;
    } units[] = {{1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1.0, "B"}};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0] && !x->fatal; g++) {
      char sql[720];
      snprintf(sql, sizeof sql,
               "SELECT max(coalesce(max(allocated_bytes), 0), coalesce(max(reserved_bytes), 0))"
               " FROM temp.hr_mt WHERE %s HAVING count(*) > 0",
               groups[g].cond);
      double peak = hrScalar(x, sql, "hta_memory_timeline");
      if (isnan(peak)) continue; /* no records of these devices on the shown ranks */
      size_t u = 0;
      while (u + 1 < sizeof units / sizeof units[0] && peak < units[u].div) u++;
      char ylabel[48], unit[8];
      snprintf(ylabel, sizeof ylabel, "%s (%s)", groups[g].title, units[u].name);
      snprintf(unit, sizeof unit, " %s", units[u].name);
      snprintf(sql, sizeof sql,
               "SELECT trace_id, device || ' allocated', ts_us, allocated_bytes / %.1f"
               " FROM temp.hr_mt WHERE rank = ?1 AND %s AND allocated_bytes IS NOT NULL"
               " UNION ALL SELECT trace_id, device || ' reserved', ts_us, reserved_bytes / %.1f"
               " FROM temp.hr_mt WHERE rank = ?1 AND %s AND reserved_bytes IS NOT NULL"
               " ORDER BY 1, 2, 3",
               units[u].div, groups[g].cond, units[u].div, groups[g].cond);
      sv_printf(x->o, "<h3>%s</h3>\n", groups[g].title); /* static text */
      hrSeries(x, sql, "hta_memory_timeline", "", ylabel, unit);
    }
  }
  sqlite3_free(tsrc);
  sv_puts(x->o,
          "<h3>Peak per device, every rank</h3>\n<p class=\"what\">The highest allocated bytes "
          "of each trace and device, when it was first reached and in which operator.</p>\n");
  hrTableOf(x,
            "SELECT rank, trace_id, device, max(peak_allocated_bytes) AS peak_allocated_bytes,\n"
            "       peak_ts_us, step AS peak_step, peak_operator\n"
            "FROM {src}\nGROUP BY trace_id, device ORDER BY rank, trace_id, device",
            src, "hr_ms", src);
  sv_puts(x->o, "<h3>Per ProfilerStep, every rank</h3>\n");
  hrTableOf(x,
            "SELECT rank, trace_id, device, step, peak_allocated_bytes, peak_reserved_bytes, "
            "peak_ts_us,\n       peak_operator, allocations, allocated_bytes, frees, freed_bytes, "
            "live_bytes_at_end\nFROM {src}",
            src, "hr_ms", src);
  hrEndSection(x);
}

/* ---------------------------------------------------------------- 13. critical path */

/* Bars of the time on the critical path by bound_by, for RANK (temp.hr_cpsum), each
** bound_by under a short label (the trace's before it when a rank has several). */
static void hrCritBars(hr_ctx *x, int64_t rank, const char *src) {
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT CASE WHEN ?2 THEN trace_id END,"
                            " CASE coalesce(bound_by, '')"
                            "  WHEN '' THEN 'dependency / sync'"
                            "  WHEN 'cpu_bound' THEN 'CPU'"
                            "  WHEN 'gpu_compute_bound' THEN 'GPU compute'"
                            "  WHEN 'gpu_communication_bound' THEN 'GPU communication'"
                            "  WHEN 'gpu_kernel_kernel_overhead' THEN 'kernel-kernel gap'"
                            "  WHEN 'gpu_kernel_launch_overhead' THEN 'launch overhead'"
                            "  ELSE bound_by END, duration_us"
                            " FROM temp.hr_cpsum WHERE rank = ?1 ORDER BY trace_id, bound_by",
                            src);
  if (!st) return;
  sqlite3_bind_int64(st, 1, rank);
  sqlite3_bind_int(st, 2, x->dup);
  char title[96];
  snprintf(title, sizeof title, "Critical path by bound_by, rank %lld (\xC2\xB5s)",
           (long long)rank);
  hr_bars c = {.title = title,
               .ylabel = "time on the critical path (\xC2\xB5s)",
               .nser = 1,
               .unit = " \xC2\xB5s",
               .sep = ": "};
  hrBarsOf(x, st, src, &c);
}

/* The job's path across ranks (hta_critical_path_job), for a job of several ranks:
** its status, the time it spends on each rank (bars), by bound_by, and its top events. */
static void hrCritPathJob(hr_ctx *x) {
  sv_puts(x->o,
          "<h3>The job's path, across ranks</h3>\n<p class=\"what\">Every rank's graph joined at "
          "the collectives: a collective ends on every rank only after its last rank arrives, so "
          "the path runs through the chain of work that made the others wait, and the waiting "
          "itself is not on it. Where the path spends its time says which ranks and operators "
          "held the step.</p>\n");
  if (hrMat(x, "hr_cpjst", "hta_critical_path_job_stats") ||
      hrMat(x, "hr_cpjs", "hta_critical_path_job_summary") ||
      hrMat(x, "hr_cpj", "hta_critical_path_job"))
    return;
  hrTableOf(x,
            "SELECT status, ranks, ranks_left_out, collectives_joined, path_nodes, path_length_us,"
            " path_ranks\nFROM {src}",
            "hta_critical_path_job_stats", "hr_cpjst", "hta_critical_path_job_stats");
  hr_bars c = {.title = "The job's critical path by rank (\xC2\xB5s)",
               .ylabel = "time on the job's path (\xC2\xB5s)",
               .nser = 1,
               .unit = " \xC2\xB5s"};
  hrBarsOf(x,
           hrPrep(x,
                  "SELECT NULL, 'rank ' || rank, sum(duration_us) FROM temp.hr_cpjs"
                  " GROUP BY rank ORDER BY rank",
                  "hta_critical_path_job_summary"),
           "hta_critical_path_job_summary", &c);
  hrTableOf(x, "SELECT rank, bound_by, duration_us, percentage\nFROM {src}",
            "hta_critical_path_job_summary", "hr_cpjs", "hta_critical_path_job_summary");
  hrTableOf(x,
            "SELECT rank, name, cat, bound_by, sum(duration_us) AS duration_us, count(*) AS edges\n"
            "FROM {src} WHERE name <> ''\nGROUP BY rank, name, cat, bound_by\n"
            "ORDER BY duration_us DESC, rank, name LIMIT " HR_XSTR(HR_CP_TOP),
            "hta_critical_path_job", "hr_cpj", "hta_critical_path_job");
}

void hrCritPath(hr_ctx *x) {
  hrSection(x, 12,
            "HTA's lightweight critical path analysis with its default parameters: the window is "
            "the first <code>ProfilerStep</code> of each rank, the graph has CPU operators, "
            "runtime calls, GPU kernels and their dependencies, and the longest path through it "
            "is what bounds the step. <b>bound_by</b> says what each part of the path waits on.");
  hrShownNote(x);
  char *ssrc = sqlite3_mprintf("hta_critical_path_stats WHERE rank IN %s", x->in_shown);
  char *msrc = sqlite3_mprintf("hta_critical_path_summary WHERE rank IN %s", x->in_shown);
  char *psrc = sqlite3_mprintf("hta_critical_path WHERE rank IN %s", x->in_shown);
  if (!ssrc || !msrc || !psrc) {
    hrOom(x);
  } else if (hrMat(x, "hr_cps", ssrc) == 0 && hrMat(x, "hr_cpsum", msrc) == 0 &&
             hrMat(x, "hr_cp", psrc) == 0) {
    for (int r = 0; r < x->nshown && !x->fatal; r++) {
      sv_printf(x->o, "<h3>Rank %lld</h3>\n", (long long)x->shown[r]);
      sqlite3_stmt *st = hrPrep(x,
                                "SELECT trace_id, status, path_length_us FROM temp.hr_cps"
                                " WHERE rank = ?1 ORDER BY trace_id",
                                "hta_critical_path_stats");
      if (!st) break;
      sqlite3_bind_int64(st, 1, x->shown[r]);
      int ok = 0;
      while (hrStep(x, st, "hta_critical_path_stats") == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 1);
        if (status && !strcmp(status, "ok")) {
          ok++;
          continue;
        }
        sv_printf(x->o, "<p class=\"note\">%s: no critical path (",
                  hrLabel(x, sqlite3_column_int64(st, 0)));
        if (status && !strcmp(status, "no_annotation"))
          sv_puts(x->o, "no event whose name contains <code>ProfilerStep</code>");
        else sv_esc(x->o, status ? status : "no status");
        sv_puts(x->o, ").</p>\n");
      }
      sqlite3_finalize(st);
      if (ok) hrCritBars(x, x->shown[r], "hta_critical_path_summary");
    }
    sv_puts(x->o, "<h3>Status, shown ranks</h3>\n");
    hrTableOf(x,
              "SELECT rank, trace_id, status, window_start_us, window_end_us, graph_nodes, "
              "graph_edges,\n       path_nodes, path_length_us\nFROM {src} WHERE rank IN {ranks}",
              "hta_critical_path_stats", "hr_cps", "hta_critical_path_stats");
    sv_puts(x->o, "<h3>Time by bound_by, shown ranks</h3>\n");
    hrTableOf(x,
              "SELECT rank, trace_id, bound_by, duration_us, percentage\n"
              "FROM {src} WHERE rank IN {ranks}",
              "hta_critical_path_summary", "hr_cpsum", "hta_critical_path_summary");
    sv_printf(x->o,
              "<h3>Top %d events on the path, shown ranks</h3>\n<p class=\"what\">The path's "
              "time per event name and bound_by (a kernel's own time is "
              "<code>gpu_compute_bound</code> or <code>gpu_communication_bound</code>, the gap "
              "before it <code>gpu_kernel_kernel_overhead</code>).</p>\n",
              HR_CP_TOP);
    hrTableOf(x,
              "SELECT rank, trace_id, name, cat, bound_by, duration_us, edges\n"
              "FROM (SELECT rank, trace_id, name, cat, bound_by, sum(duration_us) AS "
              "duration_us,\n"
              "             count(*) AS edges, row_number() OVER (PARTITION BY trace_id\n"
              "               ORDER BY sum(duration_us) DESC, name) AS pos\n"
              "      FROM {src} WHERE rank IN {ranks} AND name <> ''\n"
              "      GROUP BY trace_id, name, cat, bound_by)\n"
              "WHERE pos <= " HR_XSTR(HR_CP_TOP) " ORDER BY rank, trace_id, pos",
              "hta_critical_path", "hr_cp", "hta_critical_path");
    if (x->nranks > 1 && !x->fatal) hrCritPathJob(x);
  }
  sqlite3_free(ssrc);
  sqlite3_free(msrc);
  sqlite3_free(psrc);
  hrEndSection(x);
}

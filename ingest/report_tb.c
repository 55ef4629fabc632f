/*
** report_tb.c: the report's section on the PyTorch TensorBoard profiler plugin's
** views (report.c has the page, report_ctx.c and report_charts.c the helpers):
**
**   - Overview: the mean step time of each rank split into the plugin's eight roles
**     (stacked bars), each shown rank's steps the same way, the execution summary
**     (percent of the step per role, per rank) and the steps' table;
**   - GPU summary: utilization per GPU (bars), SM efficiency and occupancy (table);
**   - Distributed view (when the plugin would show it): computation, overlap,
**     communication and other per rank, data transfer against waiting per rank, and
**     the collectives' table; else a note saying why there is none.
**
** Every statement goes through hrPrep / hrMat / hrTableOf (report_ctx.c), so each reads the
** current job only (HR-8); charts read the temp.hr_* copy whose SQL the tables show.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define HR_TB_SECTION 15 /* its place in report_ctx.c's hr_sections */
#define HR_TB_STEPS 64   /* steps per rank in the per-step chart */

static const char *const hr_roles[] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                       "Runtime", "DataLoader", "CPU Exec", "Other"};
static const char *const hr_role_cols[] = {"#636efa", "#00cc96", "#19d3f3", "#ef553b",
                                           "#ffa15a", "#ab63fa", "#b6e880", "#b0b0b0"};
#define HR_ROLE_US                                                                              \
  "kernel_us, memcpy_us, memset_us, communication_us, runtime_us, dataloader_us, cpu_exec_us, " \
  "other_us"

static void hrTbOverview(hr_ctx *x) {
  static const char es[] = "hta_execution_summary", sb[] = "hta_step_time_breakdown";
  sv_puts(x->o,
          "<h3>Overview: where a step's time goes</h3>\n<p class=\"what\">The plugin's <i>Step "
          "Time Breakdown</i>: each instant of a step goes to the first role active at it, in the "
          "order Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec; "
          "<b>Other</b> is the rest. A step's window is moved to the GPU work it launched; each "
          "trace file is analysed whole, on its own. The bars are each rank's mean over its "
          "steps (as the plugin's Execution Summary, over every step it lists: a GPU-side copy "
          "of a step that launched nothing adds a step of length 0 and lowers the mean, not the "
          "percentages).</p>\n");
  if (hrMat(x, "hr_tbsb", sb) ||
      !hrMatRows(x, "hr_tbes", es,
                 "No steps: the traces have no host event (no <code>ProfilerStep#N</code>, "
                 "operator or python event), so the plugin's views have no window "
                 "(<code>hta_step_time_breakdown</code> is empty)."))
    return;
  hr_bars roles = {.title = "Mean step time by role, per rank (\xC2\xB5s)",
                   .ylabel = "mean step time (\xC2\xB5s)",
                   .nser = 8,
                   .sers = hr_roles,
                   .colors = hr_role_cols,
                   .unit = " \xC2\xB5s"};
  hrBarsOf(x,
           hrPrep(x,
                  "SELECT trace_id, NULL,"
                  " max(CASE role WHEN 'Kernel' THEN mean_us END),"
                  " max(CASE role WHEN 'Memcpy' THEN mean_us END),"
                  " max(CASE role WHEN 'Memset' THEN mean_us END),"
                  " max(CASE role WHEN 'Communication' THEN mean_us END),"
                  " max(CASE role WHEN 'Runtime' THEN mean_us END),"
                  " max(CASE role WHEN 'DataLoader' THEN mean_us END),"
                  " max(CASE role WHEN 'CPU Exec' THEN mean_us END),"
                  " max(CASE role WHEN 'Other' THEN mean_us END)"
                  " FROM temp.hr_tbes GROUP BY trace_id ORDER BY rank, trace_id",
                  es),
           es, &roles);
  hrTableOf(x,
            "SELECT rank, trace_id, max(steps) AS steps,\n"
            "       max(CASE role WHEN 'Average Step Time' THEN mean_us END) AS step_us,\n"
            "       max(CASE role WHEN 'Kernel' THEN percentage END) AS kernel_pct,\n"
            "       max(CASE role WHEN 'Memcpy' THEN percentage END) AS memcpy_pct,\n"
            "       max(CASE role WHEN 'Memset' THEN percentage END) AS memset_pct,\n"
            "       max(CASE role WHEN 'Communication' THEN percentage END) AS communication_pct,\n"
            "       max(CASE role WHEN 'Runtime' THEN percentage END) AS runtime_pct,\n"
            "       max(CASE role WHEN 'DataLoader' THEN percentage END) AS dataloader_pct,\n"
            "       max(CASE role WHEN 'CPU Exec' THEN percentage END) AS cpu_exec_pct,\n"
            "       max(CASE role WHEN 'Other' THEN percentage END) AS other_pct\n"
            "FROM {src}\nGROUP BY trace_id ORDER BY rank, trace_id",
            es, "hr_tbes", es);
  hrShownNote(x);
  for (int r = 0; r < x->nshown && !x->fatal; r++) {
    char title[96];
    sqlite3_stmt *st = hrPrep(x,
                              "SELECT NULL, step, " HR_ROLE_US
                              " FROM temp.hr_tbsb WHERE rank = ?1"
                              " AND total_us > 0 ORDER BY trace_id, step_pos"
                              " LIMIT " HR_XSTR(HR_TB_STEPS),
                              sb);
    if (!st) break;
    sqlite3_bind_int64(st, 1, x->shown[r]);
    sv_printf(x->o, "<p class=\"what\"><b>Steps of rank %lld</b></p>\n", (long long)x->shown[r]);
    snprintf(title, sizeof title, "Step time breakdown, rank %lld (\xC2\xB5s)",
             (long long)x->shown[r]);
    roles.title = title;
    roles.ylabel = "step time (\xC2\xB5s)";
    hrBarsOf(x, st, sb, &roles);
  }
  sv_puts(x->o,
          "<p class=\"note\">Steps of zero length (GPU-side copies of a step that the plugin "
          "lists as steps of their own) are left out of the per-step charts, and at most " HR_XSTR(
              HR_TB_STEPS) " steps are drawn per rank; the table has them all.</p>\n");
  hrTableOf(x,
            "SELECT rank, trace_id, step_pos, step, " HR_ROLE_US
            ",\n"
            "       total_us, device_ops\nFROM {src} WHERE rank IN {ranks}",
            sb, "hr_tbsb", sb);
}

static void hrTbGpu(hr_ctx *x) {
  static const char src[] = "hta_gpu_metrics";
  static const char *const col[] = {"#636efa"};
  hr_bars c = {.title = "GPU utilization over the steps (%)",
               .ylabel = "% of the window",
               .nser = 1,
               .colors = col,
               .ymax = 100,
               .unit = "%"};
  sv_puts(x->o,
          "<h3>GPU summary</h3>\n<p class=\"what\">Per GPU, over the window from the first step's "
          "start to the last step's end: <b>utilization</b> (time with a kernel running), "
          "<b>SM efficiency</b> (estimated from each kernel's blocks per SM, capped at 1) and "
          "<b>achieved occupancy</b> (the kernels' estimate, weighted by their time), as the "
          "plugin's GPU Summary.</p>\n");
  if (hrMat(x, "hr_tbgm", src)) return;
  if (hrScalar(x, "SELECT count(gpu_utilization) FROM temp.hr_tbgm", src) > 0)
    hrBarsOf(x,
             hrPrep(x,
                    "SELECT trace_id, 'GPU ' || device, 100 * gpu_utilization FROM temp.hr_tbgm"
                    " ORDER BY rank, trace_id, device",
                    src),
             src, &c);
  hrTableOf(
      x,
      "SELECT rank, trace_id, device, name, gpu_utilization, sm_efficiency, achieved_occupancy,"
      "\n       kernel_time_us, window_us, kernels\nFROM {src}",
      src, "hr_tbgm", src);
}

static void hrTbDistributed(hr_ctx *x) {
  static const char ov[] = "hta_distributed_overlap", ops[] = "hta_distributed_comm_ops";
  static const char *const sers[] = {"computation", "overlapping", "communication", "other"};
  static const char *const cols[] = {"#636efa", "#ab63fa", "#ef553b", "#b0b0b0"};
  static const char *const wsers[] = {"data transfer", "synchronizing"};
  static const char *const wcols[] = {"#00cc96", "#ffa15a"};
  sv_puts(x->o,
          "<h3>Distributed view</h3>\n<p class=\"what\">Per rank, the mean step split into "
          "computation only, computation overlapping communication, communication only and "
          "other; and the collectives' time split into <b>data transfer</b> (the fastest rank's "
          "time for the same operation) and <b>synchronizing</b> (the rest: waiting for the "
          "others), operations matched by position across the ranks.</p>\n");
  if (hrMat(x, "hr_tbdc", ops) ||
      !hrMatRows(x, "hr_tbdo", ov,
                 "No Distributed view: as the plugin, it needs communication time and collective "
                 "operations (<code>nccl:*</code> or <code>gloo:*</code> host events) on every "
                 "rank, the same number of operations on each, and one library per file."))
    return;
  hr_bars split = {.title = "Computation and communication per rank, mean step (\xC2\xB5s)",
                   .ylabel = "mean step (\xC2\xB5s)",
                   .nser = 4,
                   .sers = sers,
                   .colors = cols,
                   .unit = " \xC2\xB5s"};
  hrBarsOf(x,
           hrPrep(x,
                  "SELECT trace_id, NULL, computation_us, overlapping_us, communication_us,"
                  " other_us FROM temp.hr_tbdo WHERE step = 'all' ORDER BY rank, trace_id",
                  ov),
           ov, &split);
  hr_bars wait = {.title =
                      "Collectives: data transfer and synchronizing per rank, mean step "
                      "(\xC2\xB5s)",
                  .ylabel = "mean per step (\xC2\xB5s)",
                  .nser = 2,
                  .sers = wsers,
                  .colors = wcols,
                  .unit = " \xC2\xB5s"};
  hrBarsOf(x,
           hrPrep(x,
                  "SELECT trace_id, NULL, transfer_us, wait_us FROM temp.hr_tbdo"
                  " WHERE step = 'all' ORDER BY rank, trace_id",
                  ov),
           ov, &wait);
  hrTableOf(x,
            "SELECT rank, trace_id, step, computation_us, overlapping_us, communication_us, "
            "other_us,\n       transfer_us, wait_us\nFROM {src}",
            ov, "hr_tbdo", ov);
  hrTableOf(x,
            "SELECT rank, trace_id, name, calls, bytes, total_us, transfer_us, wait_us\nFROM {src}",
            ops, "hr_tbdc", ops);
}

void hrTbViews(hr_ctx *x) {
  hrSection(x, HR_TB_SECTION,
            "The Overview, GPU summary and Distributed view of the PyTorch TensorBoard profiler "
            "plugin (<code>torch_tb_profiler</code>), computed in exact nanoseconds: its steps are "
            "the <code>ProfilerStep#N</code> events (GPU-side copies included), windows moved to "
            "the device work each step launched, and the last steps dropped when they look "
            "incomplete. A file without host events has no step, hence no rows here.");
  hrTbOverview(x);
  if (!x->fatal) hrTbGpu(x);
  if (!x->fatal) hrTbDistributed(x);
  hrEndSection(x);
}

/*
** report_ops.c: the report's section on GPU kernels and operators (the TensorBoard
** plugin's GPU Kernel and Operator views, ext/tb/tb_stats.c), called from report.c.
**
**   1. Tensor cores per rank and GPU (hta_tensor_core_summary): a table.
**   2. Per shown rank (HR-2), a bar chart of the operators with the most device self
**      time, each bar split into its tensor-core kernel time and the rest; then the
**      operators of every rank (hta_operator_stats), most device self time first.
**   3. The kernels of every rank by launch configuration and operator
**      (hta_kernel_stats), most time first.
**   4. The nn.Module view (report_modules.c), when the traces have module events.
** Each table is its analysis run once (hrMat) with the SQL that makes it (HR-1).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#define HR_TOP_OPS 10 /* operators per rank chart */

/* Rank R's top operators by device self time (of its first trace), as stacked bars:
** tensor cores, the rest. */
static void hrOpBars(hr_ctx *x, int64_t rank, const char *src) {
  sqlite3_stmt *st = hrPrep(x,
                            "SELECT trace_id FROM temp.hr_os WHERE rank = ?1 AND device_self_us > 0"
                            " ORDER BY trace_id LIMIT 1",
                            src);
  if (!st) return;
  sqlite3_bind_int64(st, 1, rank);
  int has = hrStep(x, st, src) == SQLITE_ROW;
  int64_t trace = has ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  if (!has) return;
  st = hrPrep(x,
              "SELECT NULL, name, device_self_us * tensor_cores_self_pct / 100.0,"
              " device_self_us - device_self_us * tensor_cores_self_pct / 100.0 FROM temp.hr_os"
              " WHERE trace_id = ?1 AND device_self_us > 0"
              " ORDER BY trace_id, device_self_us DESC LIMIT " HR_XSTR(HR_TOP_OPS),
              src);
  if (!st) return;
  sqlite3_bind_int64(st, 1, trace);
  static const char *const sers[] = {"tensor-core kernels", "other GPU work"};
  static const char *const colors[] = {"#59a14f", "#4e79a7"};
  char title[96], heading[96];
  snprintf(title, sizeof title, "%s: operators by device self time (\xC2\xB5s)", hrLabel(x, trace));
  snprintf(heading, sizeof heading, "<h3>%s</h3>\n", hrLabel(x, trace)); /* a label we made */
  hr_bars c = {.title = title,
               .ylabel = "device self time (\xC2\xB5s)",
               .nser = 2,
               .sers = sers,
               .colors = colors,
               .unit = " \xC2\xB5s",
               .heading = heading};
  hrBarsOf(x, st, src, &c);
}

void hrOps(hr_ctx *x) {
  hrSection(x, 13,
            "The PyTorch TensorBoard plugin's Operator and GPU Kernel views: each trace's host "
            "operators nested by time on their threads, each GPU kernel, memcpy and memset charged "
            "to the operator that launched it. <b>Self</b> time excludes the operators called "
            "inside; <b>device</b> time is the GPU work an operator launched. <b>Tensor cores</b>: "
            "kernels that run on tensor (matrix) cores, by their names; an <i>eligible</i> "
            "operator (a matmul, a convolution, ...) could use them, e.g. with mixed precision.");
  static const char tsrc[] = "hta_tensor_core_summary";
  if (hrMat(x, "hr_tc", tsrc) == 0) {
    sv_puts(x->o,
            "<h3>Tensor cores</h3>\n<p class=\"what\">Per rank and GPU: the share of the "
            "operators' kernel time on tensor cores, of all kernel time, and of the kernel time "
            "of eligible operators (%).</p>\n");
    hrTableOf(x,
              "SELECT rank, trace_id, device, tensor_core_kernel_pct, tensor_core_used_pct,\n"
              "       tensor_core_eligible_pct, kernel_us, eligible_kernel_us, eligible_operators\n"
              "FROM {src}",
              tsrc, "hr_tc", tsrc);
  }
  static const char osrc[] = "hta_operator_stats";
  if (hrMat(x, "hr_os", osrc) == 0) {
    sv_puts(x->o, "<h3>Operators</h3>\n");
    hrShownNote(x);
    for (int r = 0; r < x->nshown && !x->fatal; r++) hrOpBars(x, x->shown[r], osrc);
    sv_puts(x->o,
            "<p class=\"what\">Every rank's operators, most device self time first (group by "
            "input shape with <code>hta_operator_stats('input_shape')</code>).</p>\n");
    hrTableOf(x,
              "SELECT rank, trace_id, name, calls, device_self_us, device_total_us, host_self_us,\n"
              "       host_total_us, tensor_cores_eligible, tensor_cores_self_pct\n"
              "FROM {src}\nORDER BY device_self_us DESC, host_self_us DESC, rank, trace_id, name",
              osrc, "hr_os", osrc);
  }
  static const char ksrc[] = "hta_kernel_stats";
  if (hrMat(x, "hr_ks", ksrc) == 0) {
    sv_puts(x->o,
            "<h3>Kernels by launch configuration</h3>\n<p class=\"what\">Every rank's kernels by "
            "the operator that launched them and their grid, block, registers per thread and "
            "shared memory (bytes); blocks per SM and achieved occupancy (%) are means weighted "
            "by duration.</p>\n");
    hrTableOf(
        x,
        "SELECT rank, name, operator, grid, block, registers_per_thread AS registers,\n"
        "       shared_memory, calls, total_us, blocks_per_sm, achieved_occupancy,\n"
        "       tensor_cores_used AS tc\nFROM {src}\nORDER BY total_us DESC, rank, trace_id, name",
        ksrc, "hr_ks", ksrc);
  }
  hrModules(x);
  hrEndSection(x);
}

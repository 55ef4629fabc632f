/*
** report_modules.c: the report's nn.Module view (the TensorBoard plugin's Module view,
** ext/tb/tb_modules.c: hta_module_stats), a part of section 14, called from report_ops.c.
**
**   One table: every rank's module paths, depth first, with calls, direct operator
**   children, host and device time, total and self (µs); nothing when the traces hold no
**   nn.Module events (PyTorch writes them with with_stack=True or with_modules=True).
** The table is the analysis run once (hrMat) with the SQL that makes it (HR-1).
*/
#include "report_int.h"

void hrModules(hr_ctx *x) {
  static const char src[] = "hta_module_stats";
  if (hrMat(x, "hr_mod", src) != 0) return;
  if (hrScalar(x, "SELECT count(*) FROM temp.hr_mod", src) > 0) {
    sv_puts(x->o,
            "<h3>nn.Module view</h3>\n<p class=\"what\">Time per <code>nn.Module</code>, nested "
            "as the modules call each other (the forward pass): per rank and module path, its "
            "calls, its operators called directly, host and device time (\xC2\xB5s). "
            "<b>Self</b> excludes the child modules, not the operators called directly. The "
            "numbers are per module over all its calls, whatever the path.</p>\n");
    hrTableOf(x,
              "SELECT rank, trace_id, path, occurrences AS calls, operators, host_total_us,\n"
              "       host_self_us, device_total_us, device_self_us\nFROM {src}",
              src, "hr_mod", src);
  }
}

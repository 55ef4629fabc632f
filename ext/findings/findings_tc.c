/*
** findings_tc.c: tensor_cores_unused, source 'hta-sqlite', kind 'busy' (DESIGN 11):
** float32 matrix work that the device's tensor (matrix) cores would run faster.
**
** Requirements (tests cite them as FTC-n):
**  1. Eligible calls: fd_perf_ops' calls of the trace that fd_tc_claims (fd_perf.c
**     FPF-4: GEMM, convolution or attention in float32, none of whose kernels has a
**     tensor-core name, core/tensor_cores.c, on a device with tensor cores), in the
**     typical steps.
**  2. time_us = their kernel time per typical step x (1 - P32 / PTC): the saving when
**     the work runs at the tensor-core peak instead of the float32 one (P32 = the
**     device's vector_fp32 peak, PTC its matrix_fp16 peak for compute capability 7.x,
**     else matrix_bf16; device_peak). No peaks for the device: no finding. An estimate
**     (evidence.estimate true: memory-bound work gains less).
**  3. Advice by compute capability and vendor (fd_tc_advice, fd_perf.c FPF-5).
**  4. evidence: eligible_us (per typical step), calls, peaks, compute_capability, the
**     top operators by kernel time.
*/
#include <math.h>
#include <string.h>

#include "findings/fd_perf.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

int fd_tensor_cores_idle(fd_ctx *x, const fd_rule *r) {
  const fd_ops *ops;
  int rc = fd_perf_ops(x, &ops);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    double k_us = 0, p32, ptc;
    int64_t calls = 0;
    fd_tally top = {0, 0, 0};
    if (!fd_unit_wanted(x, u) || !u->ntypical) continue;
    for (size_t j = 0; rc == SQLITE_OK && j < ops->n; j++) { /* FTC-1 */
      const fd_op *op = &ops->a[j];
      if (op->trace_id != u->trace_id || !fd_tc_claims(u, op) ||
          !fd_in_steps(u, op->has_it, op->it))
        continue;
      k_us += op->kernel_us;
      calls++;
      rc = fd_tally_add(&top, op->name, 1, (int64_t)llround(op->kernel_us * 1000.0));
    }
    if (rc == SQLITE_OK && calls) rc = fd_peak_tflops(x, u, "vector_fp32", &p32);
    if (rc == SQLITE_OK && calls)
      rc = fd_peak_tflops(x, u, !u->amd && u->cc_major == 7 ? "matrix_fp16" : "matrix_bf16", &ptc);
    if (rc == SQLITE_OK && calls && p32 > 0 && ptc > p32) { /* FTC-2 */
      fd_row row = fd_row_init(u);
      sqlite3_str *e = row.evidence;
      char b1[32], b2[32];
      double eligible = k_us / (double)u->ntypical;
      row.time_us = eligible * (1.0 - p32 / ptc);
      sqlite3_str_appendf(e, "{\"estimate\":true,\"steps\":%lld,\"calls\":%lld,\"eligible_us\":",
                          (long long)u->ntypical, (long long)calls);
      fd_json_num(e, eligible);
      sqlite3_str_appendall(e, ",\"fp32_peak_tflops\":");
      fd_json_num(e, p32);
      sqlite3_str_appendall(e, ",\"tensor_core_peak_tflops\":");
      fd_json_num(e, ptc);
      if (u->cc_major >= 0)
        sqlite3_str_appendf(e, ",\"compute_capability\":\"%lld.%lld\"", (long long)u->cc_major,
                            (long long)u->cc_minor);
      sqlite3_str_appendall(e, ",\"operators\":");
      fd_tally_json(e, &top, 5, "calls", 1);
      sqlite3_str_appendchar(e, 1, '}');
      row.title = sqlite3_mprintf(
          "Float32 matrix work takes %s per step on no tensor core; "
          "tensor cores could save about %s",
          hta_fmt_us(eligible, b1), hta_fmt_us(row.time_us, b2));
      row.advice = fd_tc_advice(u); /* FTC-3 */
      rc = fd_emit(x, r, &row);
    }
    fd_tally_free(&top);
  }
  return rc;
}

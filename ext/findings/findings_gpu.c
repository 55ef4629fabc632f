/*
** findings_gpu.c: the causes of idle time while the host is not in a blocking call
** (DESIGN 11; fd_account.c FA-5): gpu_waits_for_host (the launching thread issues work
** and the GPU drains it faster) and host_other (the thread launched nothing for over a
** millisecond). Kind 'cause'.
**
** Requirements (tests cite them as FG-n):
**  1. One finding per trace whose part has time in the typical steps: time_us = that
**     idle time per typical step (fd_cause_row); evidence: fd_calls_json's members (the
**     launches of the work the GPU waited for: their operators and regions), then
**     kernels (the compute streams' kernels in the trace), short_kernels_pct (the share
**     of those with a launch that run shorter than their launch call) and launch_bound
**     (short_kernels_pct >= 50).
**  2. gpu_waits_for_host's advice names the pattern: the optimizer's region
**     (Optimizer.step..., Optimizer.zero_grad...) or a _foreach_ operator costliest and
**     launch-bound: a foreach or fused optimizer, zero_grad(set_to_none=True); launch-bound otherwise: CUDA graphs or torch.compile (HIP graphs
**     on AMD); else: more work per launch and a look at the host's own time (CUDA graphs
**     only help when launches are the bottleneck).
*/
#include <math.h>
#include <string.h>

#include "findings/fd_account.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static const char fgOptimizer[] =
    "The optimizer touches each parameter with a few tiny kernels launched one by one, and "
    "the GPU runs dry between them: use a foreach or fused optimizer "
    "(torch.optim.SGD/AdamW(..., foreach=True) or fused=True, apex's FusedAdam), let "
    "zero_grad(set_to_none=True) drop the gradients instead of zeroing each one, or compile "
    "the optimizer step (torch.compile).";
static const char fgGraphs[] =
    "Most kernels run shorter than the host takes to launch them, so the GPU drains its "
    "queue faster than the host fills it: capture the step with CUDA graphs "
    "(torch.compile(mode=\"reduce-overhead\"), torch.cuda.graphs), fuse small kernels with "
    "torch.compile, or give each kernel more work (a larger batch).";
static const char fgGraphsAmd[] =
    "Most kernels run shorter than the host takes to launch them, so the GPU drains its "
    "queue faster than the host fills it: capture the step with HIP graphs "
    "(torch.compile(mode=\"reduce-overhead\"), torch.cuda.graphs on ROCm), fuse small kernels "
    "with torch.compile, or give each kernel more work (a larger batch).";
static const char fgHost[] =
    "The GPU waits while the host prepares the next work (the kernels are not shorter than "
    "their launches, so CUDA graphs would not help much): look at the host's time in the "
    "operators named in evidence (profile with with_stack=True), move Python work out of the "
    "step, and give the GPU more work per step (a larger batch).";
static const char fgOther[] =
    "The launching thread ran for over a millisecond at a time without issuing GPU work "
    "(Python or CPU work outside the recorded operators, logging, checkpointing, waiting on "
    "a queue or a lock): profile the host with with_stack=True to see it, move it out of the "
    "step or to another thread or process, or overlap it with GPU work.";

static int fgCause(fd_ctx *x, const fd_rule *r, int part) {
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    const fd_acct *a = &acct[i];
    if (!a->has_gpu || !(a->part_us[part] > 0) || !fd_unit_wanted(x, u)) continue;
    fd_row row = fd_row_init(u);
    fd_calls c;
    char t[32];
    double short_pct = a->launched ? 100.0 * (double)a->short_kernels / (double)a->launched : NAN;
    int bound = short_pct >= 50.0;
    fd_cause_row(u, a, part, NAN, &row);
    rc = fd_calls_json(x, u, a, part, row.evidence, &c); /* FG-1 */
    sqlite3_str_appendf(row.evidence,
                        ",\"kernels\":%lld,\"short_kernels_pct\":", (long long)a->kernels);
    fd_json_num(row.evidence, short_pct);
    sqlite3_str_appendf(row.evidence, ",\"launch_bound\":%s}", bound ? "true" : "false");
    hta_fmt_us(row.time_us, t);
    const char *where = c.top_region ? c.top_region : c.top_op;
    if (part == FD_P_GPU_WAITS_FOR_HOST) {
      int optim = (where && !strncmp(where, "Optimizer.", 10)) || /* (a cpu_op in old traces) */
                  (c.top_op && strstr(c.top_op, "_foreach_"));
      row.title = sqlite3_mprintf("The GPU waits for the host to issue work %s per step%s%s%s", t,
                                  where ? ", most in " : "", where ? where : "",
                                  bound ? " (launch-bound: short kernels)" : "");
      row.advice = optim && bound ? fgOptimizer
                   : bound        ? (u->amd ? fgGraphsAmd : fgGraphs)
                                  : fgHost;
    } else {
      row.title = sqlite3_mprintf("The host works without issuing GPU work %s per step%s%s", t,
                                  where ? ", before " : "", where ? where : "");
      row.advice = fgOther;
    }
    fd_calls_free(&c);
    if (rc == SQLITE_OK) rc = fd_emit(x, r, &row);
    else fd_row_discard(&row);
  }
  return rc;
}

int fd_gpu_waits_for_host(fd_ctx *x, const fd_rule *r) {
  return fgCause(x, r, FD_P_GPU_WAITS_FOR_HOST);
}

int fd_host_other(fd_ctx *x, const fd_rule *r) { return fgCause(x, r, FD_P_HOST_OTHER); }

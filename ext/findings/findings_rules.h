/*
** findings_rules.h: the rules of hta_findings (DESIGN 11), one function each, and the
** table that lists them (findings_rules.c). The table-valued function (findings.c)
** walks fd_rules; each rule file includes fd.h (the framework) and this header for its
** own declarations, nothing else of findings.
*/
#ifndef HTA_FINDINGS_RULES_H
#define HTA_FINDINGS_RULES_H

#include "findings/fd.h"

/* The rules, in the order they run (the rows are sorted afterwards). */
extern const fd_rule fd_rules[];
extern const size_t fd_nrules;

/* findings_step.c: the summary row of each trace. */
int fd_step_summary(fd_ctx *x, const fd_rule *r);
/* findings_host.c: idle time while the launching thread is in a host call. */
int fd_dataloader_wait(fd_ctx *x, const fd_rule *r);
int fd_host_sync(fd_ctx *x, const fd_rule *r);
int fd_blocking_copy(fd_ctx *x, const fd_rule *r);
int fd_allocator_churn(fd_ctx *x, const fd_rule *r);
/* findings_gpu.c: idle time while the host issues work, or does something else. */
int fd_gpu_waits_for_host(fd_ctx *x, const fd_rule *r);
int fd_host_other(fd_ctx *x, const fd_rule *r);
/* findings_comm.c: communication: waits, bubbles, exposed transfers, stragglers. */
int fd_waits_for_ranks(fd_ctx *x, const fd_rule *r);
int fd_pipeline_bubble(fd_ctx *x, const fd_rule *r);
int fd_exposed_communication(fd_ctx *x, const fd_rule *r);
int fd_straggler(fd_ctx *x, const fd_rule *r);
/* findings_perf.c: kernel time above the roofline (hta_op_perf). */
int fd_low_efficiency(fd_ctx *x, const fd_rule *r);
/* findings_tc.c: float32 matrix work that tensor cores would speed up. */
int fd_tensor_cores_idle(fd_ctx *x, const fd_rule *r);
/* findings_tb.c: the TensorBoard plugin's configuration recommendations. */
int fd_dataparallel(fd_ctx *x, const fd_rule *r);
int fd_ddp_without_nccl(fd_ctx *x, const fd_rule *r);
int fd_memory_near_capacity(fd_ctx *x, const fd_rule *r);
/* findings_overview.c: the plugin's recommendations from its Overview and tensor cores.
** The operator trees' tensor-core figures (FO-4) can be built ahead, on connection DB,
** beside the rules before them (fd_run): fd_plugin_prepare into *OUT (NULL on error),
** then fd_plugin_install in X. */
int fd_plugin_prepare(sqlite3 *db, const fd_ctx *x, void **out);
void fd_plugin_install(fd_ctx *x, void *prepared);
/* The plugin's model figures of each trace (FO-5) built now, on X's connection, for the
** rules that read them later. */
int fd_plugin_figures(fd_ctx *x);
int fd_dataloader(fd_ctx *x, const fd_rule *r);
int fd_communication(fd_ctx *x, const fd_rule *r);
int fd_gpu_low_utilization(fd_ctx *x, const fd_rule *r);
int fd_tensor_cores_unused(fd_ctx *x, const fd_rule *r);

#endif

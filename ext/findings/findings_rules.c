/*
** findings_rules.c: the table of hta_findings' rules (findings_rules.h). To add a rule,
** write its function in the file of its family, declare it in findings_rules.h and add
** its line here: id (hta_findings.rule), source, kind, function.
*/
#include "findings/findings_rules.h"

const fd_rule fd_rules[] = {
    /* the accounting of each step (fd_account.c): the causes of the idle time */
    {"dataloader", "hta-sqlite", FD_CAUSE, fd_dataloader_wait},
    {"host_sync", "hta-sqlite", FD_CAUSE, fd_host_sync},
    {"blocking_copy", "hta-sqlite", FD_CAUSE, fd_blocking_copy},
    {"allocator_churn", "hta-sqlite", FD_CAUSE, fd_allocator_churn},
    {"waits_for_ranks", "hta-sqlite", FD_CAUSE, fd_waits_for_ranks},
    {"pipeline_bubble", "hta-sqlite", FD_CAUSE, fd_pipeline_bubble},
    {"exposed_communication", "hta-sqlite", FD_CAUSE, fd_exposed_communication},
    {"gpu_waits_for_host", "hta-sqlite", FD_CAUSE, fd_gpu_waits_for_host},
    {"host_other", "hta-sqlite", FD_CAUSE, fd_host_other},
    /* busy time that could be shorter */
    {"low_efficiency", "hta-sqlite", FD_BUSY, fd_low_efficiency},
    {"tensor_cores_unused", "hta-sqlite", FD_BUSY, fd_tensor_cores_idle},
    /* a rank the others wait for */
    {"straggler", "hta-sqlite", FD_SYMPTOM, fd_straggler},
    /* the TensorBoard plugin's recommendations (findings_overview.c, findings_tb.c) */
    {"gpu_low_utilization", "tb_plugin", FD_SYMPTOM, fd_gpu_low_utilization},
    {"dataloader", "tb_plugin", FD_SYMPTOM, fd_dataloader},
    {"communication", "tb_plugin", FD_SYMPTOM, fd_communication},
    {"tensor_cores_unused", "tb_plugin", FD_CONFIGURATION, fd_tensor_cores_unused},
    {"dataparallel", "tb_plugin", FD_CONFIGURATION, fd_dataparallel},
    {"ddp_without_nccl", "tb_plugin", FD_CONFIGURATION, fd_ddp_without_nccl},
    {"memory_near_capacity", "tb_plugin", FD_CONFIGURATION, fd_memory_near_capacity},
    /* the summary of each trace: last, it adds up the costs above (findings_step.c) */
    {"step", "hta-sqlite", FD_SUMMARY, fd_step_summary},
};

const size_t fd_nrules = sizeof fd_rules / sizeof fd_rules[0];

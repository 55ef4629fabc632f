/*
** tb_model.h: the PyTorch TensorBoard profiler plugin's view of one trace file,
** built by tb_steps.c and read by its Overview, GPU summary and Distributed view
** analyses (tb_overview.c, tb_gpu.c, tb_distributed.c). The rules are tb_steps.c's
** TV-n. Every time is exact integer ns; each trace file is analysed whole, on its own
** (no last-ProfilerStep cut, no job origin). C names take the prefix tv_ (TensorBoard
** views); tb_tree.h's operator tree has tb_, and its name rules (tb_name_flags) are
** used here too.
**
**   tv_model m;
**   rc = tv_model_load(db, trace, TV_LOAD_KERNEL_ARGS, &m);
**   for (size_t i = 0; i < m.nsteps; i++) ... m.steps[i].cost[TV_KERNEL] ...
**   tv_model_free(&m);
*/
#ifndef HTA_TB_MODEL_H
#define HTA_TB_MODEL_H

#include "core/hta_common.h"

/* The plugin's roles in priority order (TV-7); TV_OTHER is the rest of a step. */
enum {
  TV_KERNEL,
  TV_MEMCPY,
  TV_MEMSET,
  TV_COMM,
  TV_RUNTIME,
  TV_DATALOADER,
  TV_CPU_EXEC,
  TV_OTHER,
  TV_NROLE
};
#define TV_NLIST TV_OTHER /* the roles with intervals of their own */

/* "Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec",
** "Other": the plugin's names. */
extern const char *const tv_role_names[TV_NROLE];

/* One step of the plugin's list (TV-3..5). */
typedef struct tv_step {
  char name[32];                /* "5" for ProfilerStep#5; "0" for the fallback step */
  int64_t event_id;             /* the ProfilerStep event; 0 for the fallback step */
  int64_t host_start, host_end; /* its own interval (fallback: the host events' span) */
  int64_t start, end;           /* the window its costs are taken over (TV-4) */
  int64_t dev_start, dev_end;   /* device work it launched (dev_ops > 0 only) */
  int64_t dev_ops;              /* kernels, memcpys and memsets it launched (TV-4) */
  int64_t cost[TV_NROLE];       /* each role's share of the window (TV-7) */
} tv_step;

/* A kernel, memcpy or memset event (TV-1). */
typedef struct tv_dev {
  int64_t ts, end, seq;
  int64_t corr;       /* correlation id; INT64_MIN when none */
  int64_t ext;        /* External id (TV-2); valid when has_ext */
  int64_t device;     /* args.device; valid when has_device */
  double bps;         /* args "blocks per SM"; valid when has_bps */
  double occ;         /* args "est. achieved occupancy %"; valid when has_occ */
  int32_t rt;         /* index of its runtime call in tv_model.rts; -1: none (TV-2) */
  unsigned char kind; /* TV_KERNEL, TV_MEMCPY or TV_MEMSET */
  unsigned char comm; /* a kernel of a communication operation (TV-6) */
  unsigned char has_ext, has_device, has_bps, has_occ;
} tv_dev;

/* A runtime call (TV-2). */
typedef struct tv_rt {
  int64_t ts, end, seq;
  int64_t corr;               /* correlation id; INT64_MIN when none */
  int64_t dev_start, dev_end; /* its device events' first start and last end */
  int64_t ndev;
  int matched; /* looked at for a step and inside it (TV-4) */
} tv_rt;

/* A host event with a collective's name (TV-6): the Distributed view's operations. */
typedef struct tv_comm_op {
  int64_t event_id, seq, ts, end;
  int64_t ext; /* valid when has_ext */
  int has_ext;
  char name[24]; /* the collective's name (TV-6: at most 19 bytes) */
} tv_comm_op;

typedef struct tv_model {
  tv_step *steps; /* the kept steps, in the plugin's order (TV-3..5) */
  size_t nsteps;
  size_t nfound;          /* steps before the tail rule */
  int sentinel;           /* no step and no host event: no window at all (TV-3) */
  int device_windows;     /* windows moved to the device side (TV-4) */
  hta_iv *role[TV_NLIST]; /* each role's merged intervals, before priority (TV-6) */
  size_t nrole[TV_NLIST];
  int64_t nraw[TV_NLIST]; /* events each role had before merging: the view's flags */
  tv_dev *devs;           /* in (ts, seq) order */
  size_t ndev;
  tv_rt *rts; /* in (ts, seq) order */
  size_t nrt;
  tv_comm_op *ops; /* in (ts, seq) order */
  size_t nops;
  int comm_libs; /* bit 0: an NCCL name seen, bit 1: a Gloo one (TV-6) */
} tv_model;

/* Also read each kernel's device, blocks per SM and occupancy (the GPU summary). */
#define TV_LOAD_KERNEL_ARGS 1

/* Builds the model of trace T (tb_steps.c). M is zeroed first; free it with
** tv_model_free, whatever the return. SQLITE_OK, SQLITE_NOMEM, SQLITE_INTERRUPT or
** the error of a query. */
int tv_model_load(sqlite3 *db, const hta_trace *t, int flags, tv_model *m);
void tv_model_free(tv_model *m);

/* The view flags (TV-8): the file has runtime calls, Kernel-role kernels, memcpys or
** memsets (the GPU columns are shown), Communication time. */
int tv_shows_gpu(const tv_model *m);
int tv_has_comm(const tv_model *m);

/* The list the Distributed view measures computation on (TV-9): the Kernel role, or
** CPU Exec when the file has no Kernel-role event at all. */
int tv_computation_role(const tv_model *m);

/* Each GPU of model M (GM-1: the devices of its kernels, ascending) with its kernel
** time inside the window of the kept steps (GM-2, GM-3: 0 without steps), for the
** findings' gpu_low_utilization (tb_gpu.c). *OUT is sqlite3_malloc'd (*N entries;
** NULL when M has no kernel with a device). SQLITE_OK or SQLITE_NOMEM. */
typedef struct tv_gpu {
  int64_t device;
  int64_t busy; /* ns */
} tv_gpu;
int tv_gpu_busy(const tv_model *m, tv_gpu **out, size_t *n);

/* The table-valued functions of the family (tb_gpu.c, tb_distributed.c); tb_overview.c
** registers them with its own two (hta_register_tb). */
extern const hta_tvf hta_gpu_metrics_tvf;
extern const hta_tvf hta_distributed_overlap_tvf;
extern const hta_tvf hta_distributed_comm_ops_tvf;

/* Runs FN on the model of each trace of the scope (hta_traces_load, every rank or
** RANK), in (rank, trace_id) order; stops at the first non-OK return. */
int tv_foreach(sqlite3 *db, const hta_tvf_args *a, int flags,
               int (*fn)(void *ctx, const hta_trace *t, const tv_model *m, int64_t origin),
               void *ctx);

#endif

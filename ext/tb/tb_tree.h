/*
** tb_tree.h: the PyTorch TensorBoard profiler plugin's host operator tree of one
** trace file, with the runtime calls and GPU events hung under its nodes
** (tb_tree.c, rules TB-n), the name rules it uses (tb_rules.c, TBR-n), and the
** tensor-core figures computed from it. Read by the GPU Kernel and Operator views
** (tb_stats.c) and by hta_gpu_metrics (tb_tc_figures).
*/
#ifndef HTA_TB_TREE_H
#define HTA_TB_TREE_H

#include "core/hta_common.h"
#include "graph/graph.h"

/* The plugin's quirks, reproduced on request (the hidden parameter plugin_quirks,
** a sum of these bits; 0 computes what is right, TB_Q_ALL what the plugin does).
** Each bit is one deviation of docs/deviations.md. */
#define TB_Q_EXTID \
  1                     /* a runtime hangs under the first node anywhere with its External id
                           ** (None = None: no id, the first nn.Module), or nowhere (TB-6) */
#define TB_Q_MERGE 2    /* a same-name merge keeps only the innermost node's runtimes (TB-8) */
#define TB_Q_UNLINKED 4 /* kernels without a launch: under every ProfilerStep thread root (TB-7) */
#define TB_Q_DRIVER 8 /* launches outside the runtime categories (cuLaunchKernel) ignored (TB-5) */
#define TB_Q_TC_NAMES 16   /* tensor-core kernels by the plugin's 18 names only (TBR-2) */
#define TB_Q_FIRST_NODE 32 /* a row's eligibility is its first node's (TB-10) */
#define TB_Q_OP_NAME 64    /* a kernel's op eligibility is its operator's name only (TB-11) */
#define TB_Q_ALL 127

/* The hidden parameter of the views over this tree (hta_param of hta_common.h). */
#define TB_QUIRKS_PARAM \
  { "plugin_quirks", 0, 0.0, 0.0, (double)TB_Q_ALL, "an integer from 0 to 127" }

/* Node types: the plugin's event type of the node. */
enum { TB_T_OPERATOR, TB_T_ANNOTATION, TB_T_PYTHON, TB_T_MODULE, TB_T_STEP, TB_T_ROOT };
/* GPU event kinds. */
enum { TB_K_KERNEL, TB_K_MEMCPY, TB_K_MEMSET };

/* Name flags (tb_rules.c), per name slot. */
#define TB_N_STEP 1        /* ProfilerStep#... */
#define TB_N_OPERATOR 2    /* an operator's name (TBR-4) */
#define TB_N_DATALOADER 4  /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
#define TB_N_OPTIMIZER 8   /* Optimizer.step... */
#define TB_N_COMM 16       /* one of the ten nccl:/gloo: collective names */
#define TB_N_ELIGIBLE 32   /* on the tensor-core eligible operator list (TBR-3) */
#define TB_N_TC 64         /* a tensor-core kernel name, ours (TBR-2) */
#define TB_N_TC_PLUGIN 128 /* a tensor-core kernel name, the plugin's list */

#define TB_NAME_ROOT (-2) /* the name slot of the thread roots: "CallTreeRoot" */

typedef struct tb_node {
  int64_t ts, end; /* ns; a negative dur is zero-length */
  int64_t ext;     /* External id when has_ext */
  int64_t mod;     /* a module node's "Python module id" (TB-2); 0 otherwise */
  int64_t tid;     /* thread key (hta_tid_key) */
  /* after the stats (TB-9), ns */
  int64_t host_self, dev_self, dev_total, tc_self, tc_total;
  int64_t k_self;      /* its own runtimes' kernel time (tensor-core figures) */
  int32_t ord;         /* position in the trace's rows (file order) */
  int32_t thread;      /* index into tb_tree.threads */
  int32_t name;        /* name slot, TB_NAME_ROOT for a root */
  int32_t child, next; /* tree links, -1 for none; siblings in (ts, -end) order */
  int32_t merged_into; /* -1, or the node of its name that absorbed it (TB-8) */
  uint32_t shape;      /* 1 + offset of its Input Dims text in the arena; 0: "[]" */
  uint8_t type;        /* TB_T_* */
  uint8_t has_ext, is_op, dropped, tc;
  uint8_t graft; /* a captured event grafted under a graph launch (TB-14) */
} tb_node;

typedef struct tb_rt {
  int64_t event_id; /* -1 for the placeholder of kernels without a launch */
  int64_t ts, end, ext, tid;
  int64_t dev_ns, tc_ns, k_ns; /* its GPU events' time, its tensor-core kernels', its kernels' */
  int32_t thread;              /* index into tb_tree.threads, -1 when its thread has no node */
  int32_t dev_first, ndev;     /* its GPU events: tb_tree.devs[dev_first ..] */
  int32_t graft;               /* a grafted dispatch: its launch in the graph match; -1 */
  uint8_t has_ext, has_time;
  uint8_t tid_text; /* its tid was written as text (TB-6, TB_Q_EXTID) */
} tb_rt;

typedef struct tb_dev {
  int64_t event_id, ts, dur, ext, device, link_id;
  int64_t regs, smem;   /* registers per thread, shared memory; 0 when absent */
  double blocks, occ;   /* blocks per SM, est. achieved occupancy %; 0 when absent */
  uint32_t grid, block; /* 1 + arena offset of the JSON text; 0 when absent */
  int32_t name, rt;     /* name slot; runtime index, -1 when it has none */
  uint8_t kind, has_ext, has_device;
} tb_dev;

typedef struct tb_thread {
  int64_t tid;
  int32_t root; /* its root node */
  uint8_t has_step;
} tb_thread;

typedef struct tb_att { /* runtime RT hangs under node NODE */
  int32_t node, rt;
} tb_att;

typedef struct tb_tree {
  int quirks;
  tb_node *nodes; /* by (thread, ts, -end, ord), then the thread roots */
  size_t nnode;
  tb_rt *rts; /* by event_id; the placeholder last */
  size_t nrt;
  tb_dev *devs; /* by runtime, then file order */
  size_t ndev;
  tb_thread *threads; /* in the plugin's order (TB-3) */
  size_t nthread;
  tb_att *att; /* by node then runtime (ts, -end) */
  size_t natt, catt;
  int32_t *att_first; /* per node: its first entry in att; att_first[nnode] = natt */
  int32_t *trav;      /* the nodes in traversal order (TB-10) */
  size_t ntrav;
  char **names; /* per slot, sqlite3_malloc'd */
  int *name_flags;
  size_t nnames;
  char *arena; /* NUL-terminated texts, each once: grids, blocks, input shapes */
  size_t narena, carena;
  uint32_t *itab; /* the arena's texts by hash (references; 0 empty) */
  size_t icap, in;
  int kernel_view; /* the trace has a non-communication kernel (TB-12) */
} tb_tree;

/* Loads trace T's tree into *TR (free with tb_tree_free). QUIRKS: TB_Q_* bits.
** SHAPES: TB_LOAD_SHAPES also reads every operator's Input Dims; TB_LOAD_NO_CONFIG
** leaves out the kernels' launch configuration (grid, block, registers, ...: their args
** are read only for an External id the column lacks), for what needs no Kernel view
** (the tensor-core figures). SQLITE_OK, NOMEM, INTERRUPT or an SQLite error. */
#define TB_LOAD_SHAPES 1
#define TB_LOAD_NO_CONFIG 2
int tb_tree_load(sqlite3 *db, const hta_trace *t, int quirks, int shapes, tb_tree *tr);
void tb_tree_free(tb_tree *tr);
/* The name of name slot SLOT ("CallTreeRoot" for TB_NAME_ROOT, "" for none). */
const char *tb_name(const tb_tree *tr, int32_t slot);
/* Text at arena reference REF (0: NULL). */
const char *tb_arena_text(const tb_tree *tr, uint32_t ref);
/* 1 when device event D uses tensor cores under TR's quirks (TBR-2). */
int tb_dev_tc(const tb_tree *tr, const tb_dev *d);

/* ---------------------------------------------------------------- tensor-core figures */
typedef struct tb_tc_gpu {
  int64_t device;
  int64_t tc_ns, kernel_ns; /* kernels launched under operator nodes on it (TB-13) */
} tb_tc_gpu;

typedef struct tb_tc {
  int kernel_view;          /* 0: no Kernel view; the used ratio is none */
  int64_t tc_ns, kernel_ns; /* every kernel: tensor-core time, all time (the used ratio) */
  int64_t eligible_ns;      /* kernels of the bottom eligible nodes' own runtimes */
  int64_t op_ns;            /* kernels of every operator node's own runtimes */
  int64_t bottom_nodes;     /* the bottom eligible nodes */
  int64_t eligible_ops;     /* operator nodes marked eligible */
  int has_op_kernels;       /* some kernel hangs under an operator: per-GPU ratios exist */
  tb_tc_gpu *gpu;           /* the GPU ids of the kernels, ascending (sqlite3_malloc'd) */
  int ngpu;
} tb_tc;

/* The figures of loaded tree TR into *OUT (free with tb_tc_free). */
int tb_tc_compute(const tb_tree *tr, tb_tc *out);
/* The figures of trace T, the right way (quirks 0): for hta_gpu_metrics.
**   used ratio     = tc_ns / kernel_ns (0 when kernel_ns is 0; none when !kernel_view)
**   eligible ratio = eligible_ns / op_ns (0 when op_ns is 0)
**   per GPU ratio  = gpu[i].tc_ns / gpu[i].kernel_ns (0 when 0; none when !has_op_kernels) */
int tb_tc_figures(sqlite3 *db, const hta_trace *t, tb_tc *out);
void tb_tc_free(tb_tc *tc);

/* qsort of N elements at A, nothing when there are fewer than 2 (A may then be NULL). */
#define TB_QSORT(a, n, cmp)                                   \
  do {                                                        \
    if ((n) > 1) qsort((a), (size_t)(n), sizeof *(a), (cmp)); \
  } while (0)

/* ---------------------------------------------------------------- name rules (tb_rules.c) */
/* The plugin's event categories (TB-1, TV-1), compared without case. */
enum {
  TB_C_NONE,
  TB_C_OP,
  TB_C_ANN,
  TB_C_PY,
  TB_C_PYFN,
  TB_C_RT,
  TB_C_KERNEL,
  TB_C_MEMCPY,
  TB_C_MEMSET
};
/* The TB_C_* class of category NAME (NULL: TB_C_NONE). */
int tb_category_class(const char *name);
/* TB_N_* flags of NAME. */
int tb_name_flags(const char *name);
/* Appends Python's str() of the JSON value text [P, P+N) to S (TBR-5). */
void tb_pyrepr(sqlite3_str *s, const char *p, int n);

#endif

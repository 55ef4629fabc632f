/*
** op_perf.h: the operator performance model (op_perf.c states the rules as OP-n),
** internal to its files:
**
**   op_perf_args.c    the recorded shapes of a call: a scanner of the args JSON
**   op_perf_model.c   FLOPs, bytes, parameters and compute spec of each modelled name
**   op_perf_names.c   the operator names: their model, table and launcher category
**   op_perf_tree.c    one trace's call tree, GPU events, backward links, launchers
**   op_perf_peaks.c   the device's peaks (device_peak), found by name or by properties
**   op_perf.c         hta_op_perf and hta_op_perf_summary (rows, statistics, roofline)
**
** ext/diff/ reads one trace's call tree through it (opt_trace_load with
** opt_ids.tree_only): TraceLens's TraceDiff matches the trees TraceLens builds.
*/
#ifndef HTA_OP_PERF_H
#define HTA_OP_PERF_H

#include "core/hta_common.h"
#include "graph/graph.h"

/* ---------------------------------------------------------------- recorded shapes */
/* The four lists PyTorch writes with record_shapes, aligned with the arguments. */
enum { OPA_DIMS, OPA_TYPES, OPA_STRIDES, OPA_CONC, OPA_NLIST };

/* One entry of a list. */
enum {
  OPA_INTS = 1, /* a flat list of integers (a shape or strides; may be empty) */
  OPA_STR,      /* a string (a type, or a Concrete Inputs text) */
  OPA_OTHER     /* anything else: a nested list, a number, null... */
};

typedef struct opa_entry {
  int kind;
  int32_t n;   /* OPA_INTS: number of integers; OPA_STR: bytes */
  int64_t off; /* OPA_INTS: into opa_arena.iv; OPA_STR: into opa_arena.cv (NUL-terminated) */
} opa_entry;

/* The parsed lists of many calls share one arena; a call refers to it by offsets. */
typedef struct opa_arena {
  opa_entry *e;
  size_t ne, ae;
  int64_t *iv;
  size_t ni, ai;
  char *cv;
  size_t nc, ac;
} opa_arena;

typedef struct op_args {
  int64_t first[OPA_NLIST]; /* index of the list's first entry in arena.e */
  int32_t n[OPA_NLIST];     /* number of entries; -1 when the key is absent */
} op_args;

/* Parses the args JSON text S (N bytes) of one call into *A, appending to ARENA.
** A list that is absent or not a JSON array reads as absent. SQLITE_OK or
** SQLITE_NOMEM. */
int opa_parse(opa_arena *arena, const char *s, size_t n, op_args *a);
/* "Sequence number" of the NUL-terminated args JSON text S (a top-level integer
** member): 1 with *out set, else 0. */
int opa_seqnum(const char *s, size_t n, int64_t *out);
void opa_arena_free(opa_arena *arena);

/* ---------------------------------------------------------------- models */
/* Table families (TraceLens's sheet categories). */
enum {
  OPF_GEMM,
  OPF_SDPA,
  OPF_CONV,
  OPF_UNARY,
  OPF_BINARY,
  OPF_NORM,
  OPF_REDUCE,
  OPF_RMSNORM,
  OPF_ROPE,
  OPF_INFATTN,
  OPF_GGEMM,       /* grouped GEMMs (GroupedGEMM_fwd) */
  OPF_MOE_FUSED,   /* a whole MoE block in one kernel (MoE_fused_fwd) */
  OPF_MOE_UNFUSED, /* one MoE GEMM stage (MoE_unfused_fwd) */
  OPF_N
};

/* The models (op_perf_model.c), one per formula and argument layout. */
enum {
  OPM_MM,           /* aten::mm */
  OPM_ADDMM,        /* aten::addmm */
  OPM_BMM,          /* aten::bmm */
  OPM_BADDBMM,      /* aten::baddbmm */
  OPM_SCALED_MM,    /* aten::_scaled_mm and alikes */
  OPM_AITER_GEMM,   /* aiter::gemm_a16w16: weight N x K */
  OPM_VLLM_GEMM,    /* vllm::rocm_unquantized_gemm: weight N x K */
  OPM_SDPA_FLASH,   /* aten::_scaled_dot_product_flash_attention: (B, H, N, d) */
  OPM_SDPA_EFF,     /* aten::_scaled_dot_product_{efficient,cudnn}_attention */
  OPM_FA_FUNC,      /* FlashAttnFunc, flash_attn::_flash_attn_forward: (B, N, H, d) */
  OPM_CONV,         /* aten::convolution */
  OPM_CONV_BWD,     /* aten::convolution_backward */
  OPM_UNARY,        /* aten::copy_, aten::silu, ... */
  OPM_UPSAMPLE,     /* aten::upsample_nearest{1,2,3}d */
  OPM_REPPAD,       /* aten::replication_pad{1,2,3}d */
  OPM_SILU_MUL,     /* silu_and_mul(out, input) */
  OPM_BINARY,       /* aten::add, aten::mul, ... */
  OPM_BN,           /* batch norm (input, weight, bias, mean, var, training, ...) */
  OPM_BN_BWD,       /* native_batch_norm_backward (grad_out, input, weight, ...) */
  OPM_BN_BWD_LIB,   /* cudnn / miopen batch norm backward (input, grad_out, weight, ...) */
  OPM_LN,           /* layer norm (input, normalized_shape, weight, bias, ...) */
  OPM_LN_BWD,       /* native_layer_norm_backward */
  OPM_GN,           /* group_norm (input, groups, weight, bias, ...), aiter::_groupnorm_run */
  OPM_GN_NATIVE,    /* native_group_norm (input, weight, bias, N, C, HxW, group, eps) */
  OPM_IN,           /* instance norm (input, weight, bias, mean, var, use_input_stats, ...) */
  OPM_RMS,          /* aten::_fused_rms_norm (input, normalized_shape, weight, eps) */
  OPM_REDUCE,       /* aten::sum, aten::mean, ... */
  OPM_AITER_RMS,    /* aiter::rms_norm (x, weight, eps) */
  OPM_AITER_RMSOUT, /* aiter::rmsnorm (out, input, weight, eps) */
  OPM_RMS_ADD,      /* fused residual add + RMSNorm (out, input, res_in, res_out, weight, ...) */
  OPM_SGL_ROPE,     /* sgl_kernel::rotary_embedding */
  OPM_STORE_CACHE,  /* sglang::store_cache */
  /* op_perf_model_infer.c: quantized, FP8 and FP4 GEMMs */
  OPM_A8W8,        /* x [M, K], w [N, K] quantized (aiter gemm_a8w8*, blockscale) */
  OPM_HBL_FP8,     /* hipblaslt_gemm_fp8(A, scaleA, B, scaleB, dtype, transA, transB, transC) */
  OPM_HBL_FP4,     /* hipblaslt_gemm_fp4: the same layout, K packed in pairs */
  OPM_A4W4,        /* aiter gemm_a4w4(A, B, scaleA, scaleB, ...): MXFP4, NT */
  OPM_AFP4WFP4,    /* aiter gemm_afp4wfp4_: MXFP4 x and w [., K/2] */
  OPM_BG_A16WFP4,  /* aiter batched_gemm_a16wfp4_: x [B, M, K], w [B, N, K/2] */
  OPM_BG_A8W8,     /* aiter batched_gemm_a8w8: x [B, M, K] or [M, B, K], w [B, N, K] */
  OPM_DYNQ_GEMM,   /* vllm::gemm_with_dynamic_quant: x [M, K], w [N, K packed] */
  OPM_GGEMM,       /* grouped GEMM, one K: x [M, K], w [G, K, N] or [G, N, K] */
  OPM_GGEMM_VK,    /* grouped GEMM, variable K (aggregate form [M, K], [M, N]) */
  OPM_MOE_FUSED,   /* aiter fmoe(out, input, w1, w2, ...), top-k a concrete input */
  OPM_MOE_UP_TILE, /* aiter moe_cktile2stages_gemm1_ck(x, w1, out [M, topk, N], ...) */
  OPM_MOE_DN_TILE, /* aiter moe_cktile2stages_gemm2_ck(x [M, topk, N], w2, out, ...) */
  OPM_MOE_CK1,     /* aiter ck_moe_stage1(x, w1, w2, ..., out [M, topk, N]) */
  OPM_MOE_CK2,     /* aiter ck_moe_stage2(x [M, topk, N], w1, w2, ...) */
  OPM_MOE_TRITON,  /* SGLang invoke_fused_moe_kernel(A, B [E, N, K], C, ..., topk_ids) */
  /* inference attention over a batch of requests: the step's annotation sums */
  OPM_IATTN,        /* q [N, H, d], k [..., N, H_kv, d] */
  OPM_IATTN_V,      /* the same, d_v from v (argument 2) */
  OPM_IATTN_RAGGED, /* paged_attention_ragged: q argument 2, caches 3 and 4 */
  OPM_IATTN_GLUON   /* pa_decode_gluon: decode only, FP8 cache, a sliding window */
};

/* A modelled name (op_perf_names.c). */
typedef struct opm_def {
  const char *name;
  int kind;    /* OPM_* of op_perf_model.c */
  int family;  /* OPF_* */
  int to_bwd;  /* its forward-pass rows belong to the family's _bwd table (OP-4) */
  int has_bwd; /* the model has backward formulas: a backward-pass row is possible */
} opm_def;

/* The names with a model, and their number. */
extern const opm_def opm_defs[];
extern const size_t opm_ndefs;
/* The table of family F and pass (TraceLens's sheet name), e.g. "Reduce_bwd". */
const char *opm_table(int family, int bwd);
/* The launcher category of operator NAME from its name alone (OP-9): the category
** of its model or of TraceLens's category-only names, "triton", "record_param_comms";
** NULL when the name does not decide it. */
const char *opm_launcher_category(const char *name);

/* What a model computes for one call (OP-5, OP-6). */
typedef struct op_cost {
  double flops;  /* FLOPs (a float where the formula divides) */
  int64_t bytes; /* bytes moved, whole (MoE's expected active experts rounded); when has_bytes */
  int has_bytes; /* 0: an element size is unknown */
  int64_t m, n, k, batch;
  int has_mnk;
  char spec[16]; /* compute spec: "matrix_bf16", "vector_fp32"...; "" when none */
  char *shapes;  /* JSON object of the parameters (sqlite3_malloc'd) */
  char *dtypes;  /* JSON of the dtype parameter (sqlite3_malloc'd); NULL when none */
} op_cost;

/* The names of the call's GPU events in start order (for the GEMM transpose). */
typedef struct op_kernels {
  const char *const *names;
  size_t n;
} op_kernels;

/* Computes DEF's model for the call with args A (BWD: its backward formulas); ANN is
** the detailed engine iteration annotation the call runs in (NULL: none), which the
** inference attention models need. Returns SQLITE_OK with *c filled, SQLITE_DONE when
** the model does not apply to the call (missing or malformed shapes, an attention call
** outside a detailed step: the call has no row), SQLITE_NOMEM. */
int opm_cost(const opm_def *def, const opa_arena *arena, const op_args *a, const op_kernels *k,
             int bwd, const hta_engine_ann *ann, op_cost *c);
/* The model of operator NAME (an index into opm_defs), -1 when it has none. SGLang's
** profiler names its annotations per layer (sglang_profiler::x_<n>): that suffix is
** dropped first, as TraceLens's report does. */
long opm_find(const char *name);
void opm_cost_free(op_cost *c);

/* ---------------------------------------------------------------- device peaks */
/* One device_peak row (op_perf_peaks.c, OP-11). */
typedef struct opp_row_t {
  char *pattern, *spec, *form_factor;
  double tflops, tbps;         /* the datasheet's peak; NaN when NULL */
  double ach_tflops, ach_tbps; /* the achievable figures; NaN when none */
} opp_row_t;

typedef struct opp_peaks {
  opp_row_t *v; /* by (priority, pattern) */
  size_t n;
} opp_peaks;

/* Reads SCHEMA's device_peak; none when the database has no such table (an old
** database without the achievable columns reads them as NULL). */
int opp_load(sqlite3 *db, const char *schema, opp_peaks *p);
void opp_free(opp_peaks *p);
/* The device of trace T (OP-11): its GPU's name, else the name device_model gives its
** properties; *FIRST = the index in P->v of the first row of the first pattern that
** matches that name, -1 when none does. */
int opp_device(sqlite3 *db, const hta_trace *t, const opp_peaks *p, long *first);
/* The row of SPEC for the device whose first row is FIRST; NULL. */
const opp_row_t *opp_row(const opp_peaks *p, long first, const char *spec);

/* ---------------------------------------------------------------- one trace */
/* What every trace of a database shares: category and name ids (op_perf_tree.c). */
typedef struct opt_ids {
  int32_t cat_op[2], cat_rt[4]; /* cpu_op (and 'Operator'); cuda_runtime, cuda_driver, 'Runtime' */
  int ncat_op, ncat_rt;
  int32_t *model_ids; /* name ids of the modelled names, ascending ... */
  int32_t *model_def; /* ... and the index of each one's opm_defs entry */
  size_t nmodel, nmodel_def;
  int32_t *bwd_ids; /* name ids of autograd::engine::evaluate_function: ..., ascending */
  size_t nbwd;
  int32_t execute_id; /* "execute"; -1 */
  hta_classifier *cls;
  int tree_only; /* set by the caller: no args, backward links or launchers (the diff) */
} opt_ids;

int opt_ids_load(sqlite3 *db, const char *schema, opt_ids *ids);
void opt_ids_free(opt_ids *ids);

/* A host event of the call tree (cpu_op, cuda_runtime, cuda_driver). */
typedef struct opt_node {
  int64_t ts, end; /* ns */
  int64_t event_id;
  int32_t seq; /* position in traceEvents */
  int32_t name_id;
  int32_t thread;      /* index of its (pid, tid) */
  int32_t parent;      /* position of its parent in the tree order; -1 */
  int32_t sub_end;     /* position of the last event of its subtree (itself when a leaf) */
  int32_t args;        /* index into opt_trace.args; -1 */
  int32_t graft;       /* a captured event grafted under a graph launch: its launch's index
                       ** in the graph match (hg_attr.l); -1 for the trace's own */
  int32_t grafted;     /* a graph launch: its graft in opt_trace.grafts; -1 */
  int16_t model;       /* index into opm_defs; -1 */
  uint8_t is_runtime;  /* cuda_runtime / cuda_driver (else cpu_op) */
  uint8_t in_tree;     /* 0: left out by the bleed rule (OP-2) */
  uint8_t is_bwd_node; /* named autograd::engine::evaluate_function: ... */
} opt_node;

/* A launcher (OP-8): the innermost operator around the launch of non-communication
** GPU events, else the runtime call itself. */
typedef struct opt_launcher {
  int32_t node;  /* position */
  int32_t first; /* its direct GPU events: opt_trace.lgpu[first..first+n), by start */
  int32_t n;
  int64_t direct_ns;  /* busy time of its direct GPU events */
  int64_t subtree_ns; /* busy time of every GPU event under it */
} opt_launcher;

/* The captured events grafted under one graph launch (OP-17): positions first..last. */
typedef struct opt_graft {
  int32_t launch; /* the launch's position */
  int32_t first, last;
} opt_graft;

typedef struct opt_trace {
  opt_node *nodes; /* in tree order: by (thread, ts, seq) */
  size_t nnode;
  opt_graft *grafts; /* by launch position */
  size_t ngraft;
  int64_t *graft_launch;   /* a grafted node's graft (opt_node.graft) -> its launch's event id */
  hta_gpu_rows gpu;        /* the trace's GPU rows (gpu.c), in file order */
  int32_t *gpu_node;       /* per GPU row: the position of the runtime event it is linked to; -1 */
  unsigned char *gpu_comm; /* per GPU row: a communication kernel (OP-8) */
  /* GPU events linked to each runtime node: gidx[goff[p]..goff[p+1]) (file order) */
  int32_t *goff, *gidx;
  /* backward nodes linked to each node (OP-7): bwd[boff[p]..boff[p+1]); NULL when none */
  int32_t *boff, *bwd;
  opt_launcher *launchers; /* by node position */
  size_t nlaunch;
  int32_t *lgpu;
  opa_arena arena;
  op_args *args; /* parsed args of the modelled calls */
  size_t nargs;
} opt_trace;

/* Loads trace T (loaded without the last-step cut) into *OT (free with opt_trace_free). */
int opt_trace_load(sqlite3 *db, const hta_trace *t, const opt_ids *ids, opt_trace *ot);
void opt_trace_free(opt_trace *ot);
/* The GPU rows under the nodes of LIST (nlist positions) and their subtrees, appended
** to *PV (*PN used, *PA allocated) without duplicates; MARK has one zeroed byte per
** GPU row and is left zeroed. SQLITE_OK or SQLITE_NOMEM. */
int opt_subtree_gpu(const opt_trace *ot, const int32_t *list, size_t nlist, unsigned char *mark,
                    int32_t **pv, size_t *pn, size_t *pa);
/* Sorts GPU row indices V[0..n) by (ts, file order). SQLITE_OK or SQLITE_NOMEM. */
int opt_sort_gpu(const opt_trace *ot, int32_t *v, size_t n);
/* Busy time (union length, ns) of the GPU rows V[0..n); -1 when out of memory. */
int64_t opt_busy_ns(const opt_trace *ot, const int32_t *v, size_t n);

#endif

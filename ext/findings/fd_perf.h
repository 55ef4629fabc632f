/*
** fd_perf.h: the operator calls of hta_op_perf (perf/op_perf.c) that hta_findings'
** busy-time rules read (low_efficiency, tensor_cores_unused), loaded once per run
** (fd_perf.c).
*/
#ifndef HTA_FD_PERF_H
#define HTA_FD_PERF_H

#include "findings/fd.h"

/* One operator call with GPU time. */
typedef struct fd_op {
  int64_t trace_id, seq, it; /* it: its iteration (has_it) */
  int has_it, is_backward;
  int64_t m, n, k;                                        /* -1 unknown */
  char *name, *category, *shapes, *dtypes, *bound, *spec; /* sqlite3_malloc'd, may be NULL */
  double kernel_us, roofline_us;                          /* roofline_us NaN when none */
  unsigned tc;                                            /* OR of hta_tc_kernel over its kernels */
  int copy;                                               /* it launched a host <-> device copy */
  int simt_amd; /* a kernel is a Tensile GEMM without a matrix instruction (Cijk_, no _MI) */
} fd_op;

typedef struct fd_ops {
  fd_op *a; /* by trace, then as hta_op_perf gives them */
  size_t n;
} fd_ops;

/* The calls of every unit that can have a roofline (FPF-2), built on the first call of a
** run and kept in its FD_SLOT_PERF. */
int fd_perf_ops(fd_ctx *x, const fd_ops **pops);
/* 1 when OP's category is matrix work: GEMM, CONV_*, SDPA_*. */
int fd_op_matrix(const fd_op *op);
/* 1 when OP is float32 matrix work on no tensor core of U's device, which has them
** (tensor_cores_unused's; FPF-4). */
int fd_tc_claims(const fd_unit *u, const fd_op *op);
/* What to try for float32 matrix work on U's device (FPF-5). */
const char *fd_tc_advice(const fd_unit *u);
/* The peak of SPEC ("vector_fp32", "matrix_bf16", ...) for U's device (device_peak, the
** first pattern by priority); NaN when none. */
int fd_peak_tflops(fd_ctx *x, const fd_unit *u, const char *spec, double *tflops);

#endif

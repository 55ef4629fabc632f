/*
** critical_path_passes.h: the passes that add a rank's edges to its graph, in the
** order the builder (critical_path_build.c) runs them over the nodes it made (spec
** hta_semantics.md 5.5, 5.6; CPG-5). Each adds edges through cp_add_edge only.
*/
#ifndef HTA_CRITICAL_PATH_PASSES_H
#define HTA_CRITICAL_PATH_PASSES_H

#include "critical_path/critical_path_graph.h"

/* Pass 1, the runtime lock, and pass 2, the CPU call stacks (critical_path_host.c). */
int cp_pass_lock(cp_ctx *x);
int cp_pass_stacks(cp_ctx *x);
/* Pass 3, GPU work and its dependencies (critical_path_gpu.c). */
int cp_pass_gpu(cp_ctx *x);

#endif

/*
** critical_path.h: the critical path family's API: the graph of one rank with its
** longest path (critical_path_build.c, over the graph of critical_path_graph.h) and
** the job's graph across ranks (critical_path_job.c), for the table-valued functions
** of critical_path.c and the io entry point's overlay writer.
*/
#ifndef HTA_CRITICAL_PATH_H
#define HTA_CRITICAL_PATH_H

#include "critical_path/critical_path_graph.h"

/* Builds rank T's graph for the instances [a, b] of ANNOTATION (has_inst 0: the
** first) and its longest path. SQLite errors are returned; HTA's own failures set
** g->status. Free with cp_graph_free. */
int cp_graph_build(sqlite3 *db, const hta_trace *t, const char *annotation, int64_t a, int64_t b,
                   int zero_weight_launch, cp_graph *g);
/* What cp_job_graph_build reports besides the graph. */
typedef struct cp_job_info {
  int nleft;            /* ranks whose own graph has no path: left out */
  size_t nlinked;       /* collective instances joined */
  int64_t left_rank;    /* the first rank left out, */
  int left_status;      /* its status */
  const char *left_why; /* and why (static) */
} cp_job_info;
/* The job's graph (critical_path_job.c): every rank's graph for the instances
** [a, b] of ANNOTATION, joined at the collectives matched across ranks, and its
** longest path. TR receives the job's traces (an event's tix indexes it). Free
** with cp_graph_free and hta_traces_free (also on error). */
int cp_job_graph_build(sqlite3 *db, const hta_scope *sc, const char *annotation, int64_t a,
                       int64_t b, int zero_weight_launch, int include_last_step, cp_graph *g,
                       hta_traces *tr, cp_job_info *info);
/* instance_id: NULL -> [0, 0], an integer i -> [i, i], the text '[a, b]'; 0 when invalid. */
int cp_parse_instance(sqlite3_value *w, int64_t *a, int64_t *b);

#endif

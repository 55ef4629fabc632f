/*
** memory.h: one trace's [memory] records with the operator that holds each, shared
** by the four memory analyses (memory.c) and built by memory_model.c. Internal to
** the memory family: nothing else includes it. The rules are memory.c's MEM-n.
*/
#ifndef HTA_MEMORY_H
#define HTA_MEMORY_H

#include "core/hta_common.h"

/* One [memory] record (MEM-1). An absent arg is flagged, never guessed. */
typedef struct mm_record {
  int64_t event_id;
  int64_t seq; /* position in traceEvents */
  int64_t tid_key;
  int64_t ts; /* ns, absolute */
  int64_t step;
  int64_t bytes; /* 0 when absent (has_bytes = 0) */
  int64_t allocated, reserved, addr;
  int64_t dev_type, dev_id; /* normalized (MEM-2); dev_id INT64_MIN when absent */
  int has_step, has_bytes, has_allocated, has_reserved, has_addr, has_type;
  int dev;      /* index into mm_trace.devs */
  int32_t node; /* innermost operator node holding it (MEM-4); -1 when none */
} mm_record;

/* One cpu_op node of the operator tree (MEM-3). */
typedef struct mm_node {
  int64_t tid_key;
  int64_t ts, end; /* ns */
  int64_t event_id;
  int32_t parent; /* index of the enclosing node; -1 at the top */
  int32_t slot;   /* index into mm_trace.names */
  int32_t nchild;
  int dropped; /* overlaps its parent's end: no node at all (MEM-3) */
  int merged;  /* the only child of a node of its name: folded into it (MEM-6) */
} mm_node;

/* One device of the trace: its name and the (type, id) it comes from (MEM-2). */
typedef struct mm_device {
  int64_t type, id; /* type as normalized: HIP (6) reads as CUDA (1); CPU id -1 */
  int has_type;
  char name[48];
} mm_device;

typedef struct mm_trace {
  mm_record *recs; /* ordered by (dev, ts, event_id) (MEM-7) */
  size_t nrec;
  mm_node *nodes; /* ordered by (tid_key, ts, -end, event_id) */
  size_t nnode;
  mm_device *devs; /* in output order: CPU, GPU by id, others by (type, id), none last */
  int ndev;
  char **names; /* per slot: the operator name (sqlite3_malloc'd) */
  int *is_op;   /* per slot: 1 for an operator name, 0 for ProfilerStep#... (MEM-5) */
  size_t nnames;
} mm_trace;

/* Loads trace T's records and operator tree into *M (free with mm_trace_free).
** A trace without [memory] records gives M->nrec = 0. */
int mm_trace_load(sqlite3 *db, const hta_trace *t, mm_trace *m);
void mm_trace_free(mm_trace *m);
/* The operator name of record R (MEM-4), NULL when it has none. */
const char *mm_operator(const mm_trace *m, const mm_record *r);

#endif

/*
** collectives.h: what collectives.c (finding collective kernels, their metadata,
** matching them across ranks) hands to collectives_out.c (the four functions) and to
** hta_findings' communication findings (findings/fd_comm.c).
*/
#ifndef HTA_COLLECTIVES_H
#define HTA_COLLECTIVES_H

#include "core/hta_common.h"

/* Collective types (COL-5): TraceLens's implicit-sync classes, then the rest. */
enum {
  COLL_T_NONE = 0, /* unnamed, or a name of no known type (send, barrier, ...) */
  COLL_T_ALLREDUCE,
  COLL_T_REDUCESCATTER,
  COLL_T_ALLGATHER,
  COLL_T_ALLTOALL,
  COLL_T_ALLTOALLV,
  COLL_T_BROADCAST,
  COLL_T_REDUCE
};

typedef struct coll_kernel {
  int64_t event_id, trace_id, rank;
  int tix; /* its trace's index in coll_job.tr.a */
  int64_t ts, dur, stream, seq;
  int64_t launch_id; /* event.link_id: the runtime launch; 0 when none */
  char *kname;       /* kernel name */
  /* metadata (COL-3); NULL / has_* = 0 when missing */
  char *coll_name, *pg_name, *pg_ranks, *dtype;
  int64_t in_nelems, out_nelems, group_size;
  int has_in, has_out, has_gs;
  const char *source;          /* "kernel", "record_param_comms" or NULL (static) */
  int type;                    /* COLL_T_* */
  int64_t in_bytes, out_bytes; /* -1 when the size is unknown */
  /* matching (COL-6) */
  int64_t slot;  /* group of a kernel without process group: stream ordinal; -1 with one */
  int64_t index; /* index_in_group */
  size_t inst;   /* its instance in coll_job.inst */
  int64_t wait;  /* latest start of its instance - own start, ns */
} coll_kernel;

typedef struct coll_inst {
  coll_kernel **k; /* its kernels, by (rank, trace_id); k[0] gives the metadata */
  size_t n;
  int kept; /* implicit-sync (COL-7) */
  int64_t min_ts, max_ts, min_end, max_end, min_dur;
  int64_t first_rank, last_rank, msg_bytes; /* msg_bytes -1 when unknown */
  size_t first, last; /* indices into k of the first and the last rank's kernels */
  double avg_wait_ns;
  char mismatch[96]; /* "" when every rank agrees, else the fields that differ */
} coll_inst;

typedef struct coll_job {
  hta_traces tr;
  coll_kernel *k; /* by (rank, trace_id), then (ts, seq) */
  size_t nk;
  coll_kernel **byinst; /* nk pointers, grouped by instance */
  coll_inst *inst;      /* by (pg_name, slot, index_in_group) */
  size_t ninst;
} coll_job;

/* Loads and matches every collective kernel of the job in SC. */
int coll_load(sqlite3 *db, const hta_scope *sc, int include_last_step, coll_job *j);
void coll_free(coll_job *j);
/* algbw in bytes/ns (= 10^9 B/s) and the bus factor of TYPE for N ranks; NaN when none. */
double coll_algbw(const coll_inst *in);
double coll_bus_factor(int type, const coll_kernel *k);
/* "allreduce", ... or NULL */
const char *coll_type_name(int type);

#endif

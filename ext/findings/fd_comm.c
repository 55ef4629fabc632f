/*
** fd_comm.c: fd_comm (fd_comm.h), the job's collectives for hta_findings' accounting
** (waits_for_ranks, pipeline_bubble) and its straggler rule.
**
** Requirements (tests cite them as FCM-n):
**  1. coll_load over the whole job with include_last_profiler_step 1 (a kernel's wait is
**     over every kernel of its instance, COL-8), once per run; none when the job has one
**     rank (nobody to wait for) or the database holds no name with nccl, rccl or
**     cross_device_reduce (no collective can match).
**  2. all-join: type allreduce, reducescatter, allgather, alltoall, alltoallv,
**     broadcast, or collective name "barrier"; without a type or name, a kernel name
**     holding AllReduce, AllGather, ReduceScatter, AllToAll or Broadcast.
**  3. p2p: collective name send, recv, sendrecv or batch_isend_irecv; without a name, a
**     kernel name holding SendRecv, _Send or _Recv.
*/
#include <string.h>

#include "findings/fd_comm.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static void fcmFree(void *p) {
  coll_free(p);
  sqlite3_free(p);
}

int fd_comm(fd_ctx *x, const coll_job **pj) {
  coll_job *j = fd_slot(x, FD_SLOT_COMM);
  int64_t one;
  int isnull, rc;
  *pj = 0;
  if (j) {
    *pj = j->nk ? j : 0;
    return SQLITE_OK;
  }
  j = sqlite3_malloc64(sizeof *j);
  if (!j) return SQLITE_NOMEM;
  memset(j, 0, sizeof *j);
  fd_slot_set(x, FD_SLOT_COMM, j, fcmFree);
  if (x->ranks_in_job < 2) return SQLITE_OK; /* FCM-1: one rank waits for nobody */
  rc = hta_query_int64(x->db, x->schema,     /* FCM-1 */
                       "SELECT 1 FROM $S.string WHERE value LIKE '%nccl%' OR value LIKE '%rccl%'"
                       " OR value LIKE '%cross_device_reduce%' LIMIT 1",
                       0, 0, &one, &isnull);
  if (rc != SQLITE_OK || isnull) return rc;
  hta_scope sc = {x->schema, x->job_id};
  rc = coll_load(x->db, &sc, 1, j);
  if (rc == SQLITE_OK && j->nk) *pj = j;
  return rc;
}

int fd_comm_all_join(const coll_kernel *k) { /* FCM-2 */
  static const char *const kn[] = {"AllReduce", "AllGather", "ReduceScatter", "AllToAll",
                                   "Broadcast"};
  switch (k->type) {
  case COLL_T_ALLREDUCE:
  case COLL_T_REDUCESCATTER:
  case COLL_T_ALLGATHER:
  case COLL_T_ALLTOALL:
  case COLL_T_ALLTOALLV:
  case COLL_T_BROADCAST: return 1;
  case COLL_T_REDUCE: return 0;
  default: break;
  }
  if (k->coll_name && *k->coll_name) return !sqlite3_stricmp(k->coll_name, "barrier");
  for (size_t i = 0; k->kname && i < sizeof kn / sizeof kn[0]; i++)
    if (strstr(k->kname, kn[i])) return 1;
  return 0;
}

int fd_comm_p2p(const coll_kernel *k) { /* FCM-3 */
  const char *c = k->coll_name;
  if (c && *c)
    return !sqlite3_stricmp(c, "send") || !sqlite3_stricmp(c, "recv") ||
           !sqlite3_stricmp(c, "sendrecv") || !sqlite3_stricmp(c, "batch_isend_irecv");
  return k->kname &&
         (strstr(k->kname, "SendRecv") || strstr(k->kname, "_Send") || strstr(k->kname, "_Recv"));
}

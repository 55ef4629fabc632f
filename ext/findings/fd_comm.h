/*
** fd_comm.h: the job's collective kernels and their instances across ranks
** (collectives.c, COL-n) for hta_findings, loaded once per run (fd_comm.c).
*/
#ifndef HTA_FD_COMM_H
#define HTA_FD_COMM_H

#include "collectives/collectives.h"
#include "findings/fd.h"

/* The job's collectives (every trace of the job, whatever WHERE rank = N says; whole
** files: the waits are over every kernel of an instance), built on the first call of
** a run and kept in its FD_SLOT_COMM; *pj NULL when the job has no collective kernel. */
int fd_comm(fd_ctx *x, const coll_job **pj);
/* 1 when every rank of K's group joins its collective, so the last to arrive holds all
** the others: all_reduce, all_gather, reduce_scatter, all_to_all(v), broadcast, barrier
** (by its metadata, else by its kernel's name). */
int fd_comm_all_join(const coll_kernel *k);
/* 1 for a send / recv: its wait is for one peer (a pipeline bubble), not for all. */
int fd_comm_p2p(const coll_kernel *k);

#endif

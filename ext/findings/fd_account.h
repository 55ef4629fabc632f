/*
** fd_account.h: the accounting of the step (DESIGN 11, version 2), built once per run
** by fd_account_build (fd_account.c) and read by the rules: per trace and step, the
** compute streams' busy and idle time, and every idle nanosecond given to exactly one
** part (a cause, warm-up, work from before the trace, or unexplained), with the host
** calls or kernels charged.
*/
#ifndef HTA_FD_ACCOUNT_H
#define HTA_FD_ACCOUNT_H

#include "findings/fd.h"

/* The parts of the idle time, causes first in their priority order (FA-5). */
enum {
  FD_P_DATALOADER,         /* the launching thread is inside the DataLoader's span */
  FD_P_HOST_SYNC,          /* inside a blocking synchronization call */
  FD_P_BLOCKING_COPY,      /* inside a synchronous or pageable copy call */
  FD_P_ALLOCATOR,          /* inside a device malloc / free */
  FD_P_WAITS_FOR_RANKS,    /* a collective of this rank waits for another rank */
  FD_P_PIPELINE_BUBBLE,    /* a send / recv of this rank waits for its peer */
  FD_P_EXPOSED_COMM,       /* a collective of this rank transfers, nothing computes */
  FD_P_GPU_WAITS_FOR_HOST, /* the host is issuing work, the GPU has none queued */
  FD_P_HOST_OTHER,         /* the host does something else for long (no launch for 1 ms) */
  FD_NCAUSE,
  FD_P_WARMUP = FD_NCAUSE, /* one-time start-up: module loading, first launches */
  FD_P_BEFORE_TRACE,       /* work queued before the trace's first GPU work: the GPU ran work
                           ** the trace does not show (FA-4) */
  FD_P_UNEXPLAINED,        /* work queued, no communication: the GPU waits on a dependency */
  FD_NPART
};
/* The rule id of part P ("dataloader", ...; "warmup", "before_trace", "unexplained"). */
const char *fd_part_rule(int p);

/* Idle time charged to one host call or kernel in one step. */
typedef struct fd_charge {
  int64_t event_id; /* the call (sync, copy, allocation, DataLoader span), the comm kernel,
                       the launch of the work the GPU waited for; 0: none known */
  int64_t ns;
  int part;
  int step; /* index into the unit's steps */
} fd_charge;

/* One trace's accounting. */
typedef struct fd_acct {
  int has_gpu;      /* some compute stream: else nothing below is set */
  int64_t *streams; /* the compute streams, ascending */
  size_t nstreams;
  int64_t *busy, *idle;      /* per step, ns */
  int64_t (*part)[FD_NPART]; /* per step, ns; a row sums to idle */
  int64_t *comm_overlap;     /* per step: communication transfer time under compute, ns */
  fd_charge *ch;             /* sorted by (part, event_id, step) */
  size_t nch;
  /* per step means over the typical steps (µs) */
  double step_us, busy_us, idle_us, part_us[FD_NPART], comm_overlap_us;
  int64_t kernels, short_kernels, launched; /* compute kernels; shorter than their launch */
} fd_acct;

/* The accounting of every unit (same order as x->u), built on the first call of a run and
** kept in its FD_SLOT_ACCOUNT; sets each unit's typical steps, ntypical, numbers and
** step_us (FA-8). */
int fd_account(fd_ctx *x, fd_acct **pa);

/* The charges of part P of A: [*lo, *hi) of a->ch. */
void fd_charges(const fd_acct *a, int p, size_t *lo, size_t *hi);
/* Starts ROW (fd_row_init'd for U) as part P's finding: time_us = the part's mean per
** typical step, or ESTIMATE when that is not NaN (what fixing it could recover, less than
** the idle time); evidence opened as {"idle_us": .., "steps": .., "outlier_steps": [..],
** "estimate": true/false (the rule appends its own members, then closes it); a caveat
** names the outlier steps. */
void fd_cause_row(const fd_unit *u, const fd_acct *a, int p, double estimate, fd_row *row);
/* Appends ,"outlier_steps":[..] of U to S. */
void fd_json_outliers(sqlite3_str *s, const fd_unit *u);

/* What fd_calls_json found (the strings sqlite3_malloc'd; fd_calls_free). */
typedef struct fd_calls {
  int64_t calls, bytes;
  int64_t top_bytes; /* the costliest call's copy bytes (has_top_bytes) */
  int has_top_bytes;
  char *top_op, *top_name, *top_region; /* the costliest operator, call name, region */
  /* the costliest event (top[0]): its seq, idle µs per typical step, call name and
  ** operator (NULL when unknown); has_first 0 when no charged event is a host row */
  int has_first;
  int64_t first_seq;
  double first_us;
  char *first_name, *first_op;
} fd_calls;
/* Appends to the open evidence object E the members ,"calls", "bytes", "by_call",
** "operators", "frames", "regions", "top" of part P's charges in U's typical steps
** (fd_calls.c FCL-n), and fills OUT. */
int fd_calls_json(fd_ctx *x, const fd_unit *u, const fd_acct *a, int p, sqlite3_str *e,
                  fd_calls *out);
void fd_calls_free(fd_calls *c);

/* The mean over U's typical steps of V[step] (ns), in µs. */
double fd_typical_mean_us(const fd_unit *u, const int64_t *v, size_t stride);

#endif

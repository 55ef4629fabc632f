/*
** health_print.h: what hta-ingest says after an ingest about the traces it just
** wrote (prefix hp_): the checks of hta_trace_health that failed or warned, one line
** each, naming the trace file. Never exits; errors go to the caller's buffer.
**
**   hta-ingest: run/rank1.json: launches_without_kernel (fail): 99.6% of launch calls ...
**   hta-ingest: job run: flows (warn) on 64 traces, e.g. run/rank0.json: no ac2g flows ...
**
**   char err[512];
**   if (hp_print(db, stderr, jobs, njobs, files, nfiles, err, sizeof err)) ...
*/
#ifndef HTA_HEALTH_PRINT_H
#define HTA_HEALTH_PRINT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Prints to OUT the checks that are not 'ok' of the jobs JOBS[0..njobs) (each named
** once): the job's own checks, and those of its traces whose file_name is one of
** FILES[0..nfiles). Failures first, then warnings; a check that fires on more than
** HP_MAX_SAME traces of a job is one line with their count. Registers the hta
** extension on DB when it is not there. Returns 0, or -1 with the reason in ERR. */
#define HP_MAX_SAME 3
int hp_print(sqlite3 *db, FILE *out, const char *const *jobs, int njobs, const char *const *files,
             int nfiles, char *err, size_t errlen);

#endif

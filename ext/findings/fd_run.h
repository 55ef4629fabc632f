/*
** fd_run.h: one run of hta_findings over one job as a C call (findings.c), for the
** families that read findings and the accounting without going through SQL (ext/diff/:
** hta_job_diff_summary's 'idle' and 'finding' splits).
**
**   fd_ctx x;
**   int rc = fd_run(db, "main", job_id, 1, 0, 0.0, FD_RUN_RULES, NULL, &x); rank 0's findings
**   x.f[0..x.nf)                                          the findings, in FD-7's order
**   fd_account(&x, &a)                                    the accounting (built by the run)
**   fd_run_free(&x);
*/
#ifndef HTA_FD_RUN_H
#define HTA_FD_RUN_H

#include "findings/fd.h"

/* What fd_run does: the rules (without: the traces, steps and accounting only, no
** finding: what the accounting's readers need, at a fraction of the cost); on DB alone
** (no second connection: the caller reads beside it already, hta_job_diff_summary). */
#define FD_RUN_RULES 1
#define FD_RUN_ONE_CONNECTION 2

/* Runs every rule over job JOB_ID of database SCHEMA into *X (FD-1..10): HAS_RANK and
** RANK as WHERE rank = N, MIN_PCT as hta_findings' parameter, FLAGS FD_RUN_*. The
** findings are sorted (FD-7) with their parents (FD-5). GIVEN: NULL, or figures the
** caller holds (read, not freed). SQLITE_OK or an SQLite code; free *X with fd_run_free
** either way. */
int fd_run(sqlite3 *db, const char *schema, int64_t job_id, int has_rank, int64_t rank,
           double min_pct, int flags, const fd_given *given, fd_ctx *x);
void fd_run_free(fd_ctx *x);

/* *F: the plugin's figures of model M (findings_overview.c); free F->gpu with
** sqlite3_free. SQLITE_OK or SQLITE_NOMEM. */
struct tv_model;
int fd_plugin_fig_of(const struct tv_model *m, fd_plugin_fig *f);

#endif

/*
** findings_rows.h: hta_findings' rows read into memory and put in the order people read them
** (prefix fr_), for the terminal (findings_print.c) and the HTML report (report_findings.c).
**
**   fr_row *r; long n;
**   if (fr_load(st, &r, &n) == SQLITE_DONE) { long *ord = ...; fr_order(r, n, ord, sub); ... }
**   fr_free(r, n);
*/
#ifndef HTA_FINDINGS_ROWS_H
#define HTA_FINDINGS_ROWS_H

#include <sqlite3.h>
#include <stddef.h>

/* One row of hta_findings. */
typedef struct fr_row {
  int has_rank, has_trace, has_time, has_pct, plugin;
  long long rank, trace_id;
  double time_us, pct;
  char *rule, *kind, *parent, *title, *advice, *caveats, *evidence; /* malloc'd; NULL: none */
} fr_row;

/* Reads every row of ST, whose columns are rank, trace_id, rule, kind, parent, source,
** time_us, pct_of_step, title, advice, caveats, evidence (then any), into *PR (*PN rows).
** Returns SQLITE_DONE, SQLITE_NOMEM, or the error of sqlite3_step. */
int fr_load(sqlite3_stmt *st, fr_row **pr, long *pn);
void fr_free(fr_row *r, long n);
/* 1 when A and B are about the same trace (or both about the job or the same rank). */
int fr_same_trace(const fr_row *a, const fr_row *b);
/* The display order (FR-1): per trace, in the rows' order of traces, its summary first, then
** each symptom followed by the causes whose parent it is (SUB[k] = 1 for those), then the
** causes under no symptom of the trace, the busy findings, the configurations; within each
** group hta_findings' order. ORDER (room for N) gets the row indices; returns how many (N, or
** fewer for rows without kind). */
long fr_order(const fr_row *r, long n, long *order, unsigned char *sub);

/* US as people read it (FR-3): "850 µs", "12.5 ms", "10.24 s". BUF: 32 bytes will do. */
void fr_time(char *buf, size_t n, double us);

/* A trace's summary row (rule 'step') in figures: its evidence's step, busy share, idle
** time, the idle time with a cause and the wait on GPU work from before the trace (µs;
** 0 when there is none). */
typedef struct fr_summary {
  double step_us, busy_pct, idle_us, attributed_us, before_us;
} fr_summary;
/* Reads R's evidence into *S (on DB: its JSON functions); 0 when it could not. */
int fr_summary_read(sqlite3 *db, const fr_row *r, fr_summary *s);

#endif

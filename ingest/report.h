/*
** report.h: the HTML report of `hta-ingest --report OUT.html DB` (prefix hr_).
** Never prints, never exits: errors go to the caller's buffer.
**
**   sqlite3 *db;  sqlite3_open_v2("traces.db", &db, SQLITE_OPEN_READONLY, NULL);
**   char err[HR_ERR_MAX];
**   int rc = hr_write_report(db, "report.html", NULL, err, sizeof err);
**   // 0: written; 1: written, some analysis failed (err: the first); 2: not written (err)
**
** The report is one self-contained HTML file: inline CSS and SVG, no scripts,
** no network. It shows the charts HTA draws, each with the table it is drawn
** from and the SQL that makes that table (see report.c).
*/
#ifndef HTA_REPORT_H
#define HTA_REPORT_H

#include <sqlite3.h>
#include <stddef.h>

#define HR_ERR_MAX 512

/* Return codes of hr_write_report(), chosen to be hta-ingest's exit codes. */
#define HR_OK 0
#define HR_PARTIAL 1 /* the report was written, but an analysis failed (shown in the report) */
#define HR_FAILED \
  2 /* no report: not an hta database, out of memory, or the file could not be written */

/*
** Registers the hta extension on DB (sqlite3_hta_init, linked statically) unless it
** is already there, runs the analyses through SQL and writes OUT_PATH atomically
** (OUT_PATH.tmp-PID, then rename). DB may be read-only; nothing is written to it.
*/
/* JOB: the one job to report (its name), or NULL for every job of the database,
** each in its own part of the page. */
int hr_write_report(sqlite3 *db, const char *out_path, const char *job, char *err, size_t errlen);
/* The same, opened by the comparison of job CMP_A (control) with job CMP_B (test)
** (report_compare.c) when both are given. */
int hr_write_report_cmp(sqlite3 *db, const char *out_path, const char *job, const char *cmp_a,
                        const char *cmp_b, char *err, size_t errlen);

/* Checks that DB is an hta-sqlite database and registers the hta extension on it unless it
** is there already. 0, or -1 with the reason in ERR. */
int hr_use_extension(sqlite3 *db, char *err, size_t errlen);

#endif

/*
** compare_print.h: `hta-ingest --compare DB JOB_A JOB_B` (prefix cmp_): what changed from
** run A (control) to run B (test), on the terminal: the mean step difference and its parts
** (hta_job_diff_summary), the operators that explain it, and the matched call tree's
** largest changes (hta_job_diff). Never exits; errors go to the caller's buffer.
**
**   char err[512];
**   if (cmp_print(db, stdout, "before", "after", 100, err, sizeof err))
**     fprintf(stderr, "%s\n", err);
*/
#ifndef HTA_COMPARE_PRINT_H
#define HTA_COMPARE_PRINT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Prints the comparison of job A (control) with job B (test) of DB to OUT, lines cut at
** WIDTH columns (at least 60). Registers the hta extension on DB when it is not there.
** Returns 0, or -1 with the reason in ERR (not an hta-sqlite database, no such job, an
** analysis failed). */
int cmp_print(sqlite3 *db, FILE *out, const char *a, const char *b, int width, char *err,
              size_t errlen);

#endif

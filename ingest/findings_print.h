/*
** findings_print.h: `hta-ingest --findings DB [--job NAME]` (prefix fp_): hta_findings on the
** terminal, one part per job. Never exits; errors go to the caller's buffer.
**
**   char err[512];
**   if (fp_print(db, stdout, NULL, 100, err, sizeof err)) fprintf(stderr, "%s\n", err);
*/
#ifndef HTA_FINDINGS_PRINT_H
#define HTA_FINDINGS_PRINT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Prints the findings of every job of DB, or of JOB only, to OUT, text wrapped at WIDTH
** columns (at least 40). Registers the hta extension on DB when it is not there. Returns
** 0, or -1 with the reason in ERR (not an hta-sqlite database, no job named JOB, an
** analysis failed). */
int fp_print(sqlite3 *db, FILE *out, const char *job, int width, char *err, size_t errlen);

#endif

/*
** list.h: hta-ingest --list DB (prefix ls_): one line per job of DB, from the
** job_summary view: name, ranks (count and lowest-highest), files, steps (distinct
** host ProfilerStep numbers), events, bytes of JSON on disk, source.
*/
#ifndef HTA_LIST_H
#define HTA_LIST_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

/* Prints DB's jobs to OUT, a header line first. 0, or -1 with err set. */
int ls_print(sqlite3 *db, FILE *out, char *err, size_t errlen);

#endif

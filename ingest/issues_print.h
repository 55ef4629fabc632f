/*
** issues_print.h: the ingest issues a user must see on the terminal right after an
** ingest (prefix ip_), not only find later in the ingest_issue table. Today one kind:
** shared_rank, a file whose rank another trace of its job already has (HTA would
** keep only one of the two; we keep both apart by trace_id, docs/deviations.md E8).
**
**   ip_print(db_path, paths, npaths, stderr);   after the summary line
*/
#ifndef HTA_ISSUES_PRINT_H
#define HTA_ISSUES_PRINT_H

#include <stdio.h>

/* Prints one line to OUT per issue of the traces whose file_name is one of PATHS[0..N)
** (the files this run ingested). Opens DB_PATH read-only; a database it cannot read
** prints nothing. Returns the number of lines printed. */
int ip_print(const char *db_path, const char *const *paths, int n, FILE *out);

#endif

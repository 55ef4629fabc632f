/*
** coldocs.h: descriptions of every table, view and column of the database
** (prefix hr_, shared with the report). One static list is the source of
** truth: hta-ingest writes it into the table _hta_column of every database it
** builds (so a browser such as Datasette can show it), and
** examples/datasette/coldocs.sh turns that table into Datasette's metadata.yml
** and the column lists of docs/schema.md, so the three never disagree.
**
**   int rc = hr_write_column_docs(db);   // SQLITE_OK or an SQLite error code
*/
#ifndef HTA_COLDOCS_H
#define HTA_COLDOCS_H

#include <sqlite3.h>

typedef struct hr_coldoc {
  const char *table;       /* table or view */
  const char *column;      /* "" for the table itself */
  const char *description; /* units and the trace field it comes from */
} hr_coldoc;

/*
** Creates _hta_column(table_name, column_name, description) if needed and
** replaces its rows with the list, inside a savepoint (so it nests in the
** caller's transaction, or is one of its own). Idempotent. Returns SQLITE_OK,
** or an SQLite error code (sqlite3_errstr() names it) after rolling back the
** savepoint, so a failure leaves nothing behind.
*/
int hr_write_column_docs(sqlite3 *db);

#endif

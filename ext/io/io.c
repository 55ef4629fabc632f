/*
** io.c: the io family of hta.so, loaded only by the io entry point
** (`.load ./hta sqlite3_hta_io_init`): what reads or writes files. This file
** registers the family and nothing else; the features are in io_counters.c,
** io_overlay.c, io_critical_path.c and io_events.c, over what the writers share
** (io_rewrite.c).
**
**   SELECT hta_write_trace_with_counters(0, 'rank0_with_counters.json.gz');
**   SELECT hta_write_sequence_overlay(0, 'aten::linear', 'overlaid_rank0.json.gz');
**   SELECT hta_write_critical_path_overlay(0, 'ProfilerStep', 1, 'critical_rank0.json.gz');
**   SELECT name, ts_us FROM hta_trace_events('traces/rank0.json.gz') WHERE ph = 'X';
**
** Every function and table here is SQLITE_DIRECTONLY (sqlite3_vtab_config
** SQLITE_VTAB_DIRECTONLY for the table): they open paths chosen by whoever writes
** the SQL and write files with the process's permissions. DIRECTONLY keeps them
** out of views, triggers, DEFAULT clauses and indexes (generated columns refuse
** them as non-deterministic anyway), so a database file from a stranger cannot
** make a reader's query write or read files behind their back ("unsafe use of
** ..."); they run from top-level SQL that the user typed. One gap is SQLite's:
** 3.40.1 does not apply DIRECTONLY to CHECK constraints (its own writefile() has
** the same gap, tests/cli/io_directonly.sh), so open untrusted databases with the
** default entry point, which registers none of these (DESIGN 2).
**
** hta_ingest(path), listed in DESIGN 4, is deliberately not provided: hta-ingest
** builds a database with its own connection, journal settings (OFF while building
** a new file, WAL when appending), one transaction per file and a parser thread
** pool; an extension function would have to write through the caller's
** connection, inside the caller's transaction and statement, with the caller's
** journal mode. Run `hta-ingest DB PATH...` instead.
*/
#include "io/io.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- registration */

/* Every entry is SQLITE_DIRECTONLY: see the header comment. */
static const struct {
  const char *name;
  int narg;
  void (*fn)(sqlite3_context *, int, sqlite3_value **);
} ioFunctions[] = {
    {"hta_write_trace_with_counters", 2, hta_io_counters_func},
    {"hta_write_trace_with_counters", 3, hta_io_counters_func},
    {"hta_write_sequence_overlay", 3, hta_io_overlay_func},
    {"hta_write_sequence_overlay", 4, hta_io_overlay_func},
    {"hta_write_sequence_overlay", 5, hta_io_overlay_func},
    {"hta_write_critical_path_overlay", 4, hta_io_critical_path_func},
    {"hta_write_critical_path_overlay", 5, hta_io_critical_path_func},
    {"hta_write_critical_path_overlay", 6, hta_io_critical_path_func},
};

int hta_register_io(sqlite3 *db) {
  for (size_t i = 0; i < sizeof ioFunctions / sizeof ioFunctions[0]; i++) {
    int rc = sqlite3_create_function(db, ioFunctions[i].name, ioFunctions[i].narg,
                                     SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, ioFunctions[i].fn, 0, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return hta_register_io_events(db);
}

/*
** io.h: the io entry point of hta.so (io.c and the io_*.c files) as a C
** interface, for hta-ingest --write-counters and for the files of the family.
**
**   hta_io_sel sel = {.has_rank = 1, .rank = 0};
**   int64_t n;
**   char *err = 0;
**   int rc = hta_io_write_counters(db, &sel, "out.json.gz", &n, &err);
**   if (rc != SQLITE_OK) fprintf(stderr, "out.json.gz: %s\n", err);
**   sqlite3_free(err);
**
** *pzErr must be NULL on entry. Return codes of the writers: SQLITE_OK; SQLITE_NOTFOUND when the selection
** names no trace (or several); SQLITE_IOERR when a file could not be read or
** written, or the input changed since it was ingested (nothing was written);
** SQLITE_NOMEM; any other SQLite code for a database error. Messages
** (sqlite3_malloc'd into *pzErr) never start with the output path: the caller
** puts it first ("hta-ingest: OUT: ...").
*/
#ifndef HTA_IO_H
#define HTA_IO_H

#include "core/hta_common.h"
#include "io/trace_writer.h"

/* Which trace to write: the only trace of a rank, or one trace by id (then a
** given rank must be its rank). */
typedef struct hta_io_sel {
  int has_rank;
  int64_t rank;
  int has_trace_id;
  int64_t trace_id;
} hta_io_sel;

/* hta_write_trace_with_counters (io_counters.c): writes OUT; *pcount = counter events. */
int hta_io_write_counters(sqlite3 *db, const hta_io_sel *sel, const char *out, int64_t *pcount,
                          char **pzErr);

/* hta_write_sequence_overlay (io_overlay.c): writes OUT; *pcount = events marked. */
int hta_io_write_overlay(sqlite3 *db, const hta_io_sel *sel, const char *opname, int64_t top_k,
                         const char *out, int64_t *pcount, char **pzErr);

/* ---------------------------------------------------------------- shared by the writers (io_rewrite.c) */

/* The trace a writer re-reads. Free with ioTraceFree. */
typedef struct io_trace {
  int64_t trace_id;
  int64_t job_id;
  int64_t rank;
  char *file_path;    /* absolute path at ingest time (sqlite3_malloc'd) */
  char *content_hash; /* "%016llx-%llu" (sqlite3_malloc'd) */
} io_trace;

/* Resolves SEL to one trace T of the database (SQLITE_NOTFOUND otherwise) and loads
** it as the analyses see it (last-ProfilerStep cut) into *HT; *found = 0 when the
** trace has no event HTA keeps (then the series are empty). On error T is freed. */
int ioPickTrace(sqlite3 *db, const hta_io_sel *sel, io_trace *t, hta_trace *ht, int *found,
                char **pzErr);
void ioTraceFree(io_trace *t);
/* Copies T's original file to OUT through HOOKS: checks that OUT is not an input
** trace of the database, that the input still has its content hash, and writes
** atomically (trace_writer.h TW-5). *ppatched = events patched (may be NULL). */
int ioRewrite(sqlite3 *db, const io_trace *t, const char *out, const tw_hooks *hooks,
              int64_t *ppatched, char **pzErr);

/* The status of a writer's hook: the first member of every tw_hooks.ctx that
** ioRewrite is given, so that a hook's failure (TW_EHOOK) reaches the caller. */
typedef struct io_hook_status {
  int rc;     /* an SQLite code */
  char *zErr; /* sqlite3_malloc'd message, or NULL */
} io_hook_status;

/* SQL argument helpers: on a bad argument they set the function's error
** ("<fn>: rank must be an integer") and return 0 (NULL). */
int ioSelArgs(sqlite3_context *ctx, const char *fn, sqlite3_value *rank, sqlite3_value *trace_id,
              hta_io_sel *sel);
const char *ioPathArg(sqlite3_context *ctx, const char *fn, sqlite3_value *v);
/* Sets the function's result: N when RC is SQLITE_OK, else the error "<fn>: OUT: ERR"
** (ERR NULL: SQLite's text for RC; SQLITE_NOMEM: the nomem error). */
void ioResult(sqlite3_context *ctx, const char *fn, const char *out, int rc, int64_t n,
              const char *err);

/* The SQL functions (registered by io.c). */
void hta_io_counters_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void hta_io_overlay_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void hta_io_critical_path_func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* hta_trace_events (io_events.c). */
int hta_register_io_events(sqlite3 *db);

#endif

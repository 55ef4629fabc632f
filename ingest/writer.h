/*
** writer.h: the SQLite side of hta-ingest (prefix wr_). One connection, used by
** one thread. Never prints, never exits: errors go to the caller's buffer.
**
** A new database is built in a temporary file beside the target (journal in
** memory, no fsync until one at the end) and renamed into place by wr_close(), so a crash never
** leaves a half-written database at the target path. An existing database is
** appended to in WAL mode. Either way every trace file is one transaction:
** [wr_open_file() wr_rows()*] wr_begin() ... wr_rows()* ... wr_end() commits,
** wr_abort() rolls back. Rows that need no trace row (flows) may come between
** wr_open_file() and wr_begin(), while the file is still being scanned.
*/
#ifndef HTA_WRITER_H
#define HTA_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "captures.h"
#include "derive.h"
#include "kineto.h"
#include "strmap.h"

#define WR_ERR_MAX 512

typedef struct wr_db wr_db;

typedef struct wr_file {
  const char *path;
  const char *job;           /* job.name the trace joins (created with it when new) */
  const char *job_source;    /* job.source when the job is new; may be NULL */
  const cp_capture *capture; /* a graph capture trace: a capture row too; NULL otherwise */
  int64_t file_size;
  const char *hash; /* content hash, hex */
  int64_t rank;
  const char *rank_source; /* "distributedInfo" | "file_name" | "default" */
  const kt_meta *meta;
  const dv_state *dv;
  int64_t event_rows; /* rows written to event, set by the caller before wr_end */
} wr_file;

/* The temporary file a new database PATH is built in (PATH.tmp-PID). */
void wr_temp_path(const char *path, char *out, size_t n);

/* Opens or creates PATH; an existing database of schema 1 is upgraded first (in one
** transaction; wr_upgraded() says so). Returns 0, or -1 with err set. */
int wr_open(wr_db **pw, const char *path, char err[WR_ERR_MAX]);
/* wr_open(), and when PATH is new and SEED (may be NULL) a database of exactly this
** build's schema, PATH starts as a copy of SEED (*seeded = 1): --merge copies its first
** input so, page by page. */
int wr_open_seeded(wr_db **pw, const char *path, const char *seed, int *seeded,
                   char err[WR_ERR_MAX]);
/* 1 when wr_open() upgraded an old database (upgrade.h), with its traces and jobs. */
int wr_upgraded(const wr_db *w, int64_t *traces, int64_t *jobs);
/* The connection, for --merge (merge.h); owned by w. */
struct sqlite3 *wr_sqlite(wr_db *w);
/* Content hashes already in the database (read once at open), as wr_hash_key keys. */
sm_map *wr_hashes(wr_db *w);
/* The job a file without one joins ("default"). */
const char *wr_job_name(const char *job);
/* "JOB\x1fHASH" into OUT: a trace is a duplicate of one with the same content in the
** same job only (the same file may belong to two jobs). Its length, -1 if too long. */
int wr_hash_key(char *out, size_t size, const char *job, const char *hash);
/* Records the command line options in meta. */
int wr_set_meta(wr_db *w, const char *key, const char *value);

/* Starts a file's transaction and chooses its trace_id. */
int wr_open_file(wr_db *w, char err[WR_ERR_MAX]);
/* Writes F's trace row, starting its transaction unless wr_open_file() did; with
** replace, first deletes the trace of equal hash. */
int wr_begin(wr_db *w, const wr_file *f, int replace, char err[WR_ERR_MAX]);
/* 1 while a file's transaction is open. */
int wr_in_file(const wr_db *w);
int wr_rows(wr_db *w, const bt_batch *b, char err[WR_ERR_MAX]);
int wr_end(wr_db *w, const wr_file *f, char err[WR_ERR_MAX]);
void wr_abort(wr_db *w);
/* Records a file that could not be ingested (its own transaction). */
int wr_record_failure(wr_db *w, const char *path, const char *message);

/* Closes; with finish, commits and (new database) renames it into place.
** Without finish a new database's temporary file is removed. */
int wr_close(wr_db *w, int finish, char err[WR_ERR_MAX]);

#endif

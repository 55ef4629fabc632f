/*
** pipeline.h: parallel ingest of many trace files into one database (prefix pl_).
**
** N parser threads take files from a list; each reads its file once (spool.h keeps
** the rows until the derived columns are known at its end; a large plain file alone
** is read in two halves at once, split.h) and streams row batches
** to the one writer, the calling thread, because SQLite has one writer. A file's
** rows go out only while its parser holds the writer, so files never interleave
** and each is one transaction. Never prints: messages go through callbacks.
*/
#ifndef HTA_PIPELINE_H
#define HTA_PIPELINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "captures.h"

typedef enum { PL_OK, PL_SKIPPED, PL_FAILED } pl_status;

typedef struct pl_file {
  const char *path;
  const char *job;           /* job.name it joins */
  const char *job_source;    /* job.source if the job is new (may be NULL) */
  const cp_capture *capture; /* a graph capture trace (captures.h), or NULL */
  /* results */
  pl_status status;
  char message[768]; /* why it failed or was skipped */
  int64_t rank;
  int64_t events;         /* rows in event */
  uint64_t json_bytes;    /* uncompressed JSON read */
  double scan_s, write_s; /* seconds in the pass over the bytes, and from then until committed */
  long long spilled;      /* bytes derive's sorts and the spool wrote to temporary files */
  int halves;             /* it was read in two halves at once (split.h) */
  int off_range;          /* PL_SKIPPED because its rank is outside pl_options' range */
  int not_a_trace;        /* PL_FAILED because it is JSON but no Kineto trace (kt_not_a_trace) */
  int from_dir;           /* found in a directory given on the command line (set by the caller) */
  double write_start;
  /* set by the caller before pl_run: the file's size on disk (the progress total) */
  uint64_t size;
  /* raw (on-disk) bytes the pass has read so far, and those whose rows were sent to the
  ** writer after it (in proportion to the spool's batches), stored by the parser thread
  ** (relaxed atomics: any thread may read them) */
  _Atomic uint64_t scan_raw, full_raw;
  volatile int pass; /* 0 waiting, 1 reading, 2 writing, 3 done */
} pl_file;

typedef struct pl_options {
  int jobs;         /* parser threads */
  int replace;      /* re-ingest files already in the database */
  size_t sort_mem;  /* bytes of each parser's derive sorts before they spill to disk */
  size_t spool_mem; /* bytes of each file's spool kept in memory (spool.h) */
  /* plain files of at least this many bytes are read in two halves at once when no
  ** other file is under way (split.h); 0: never */
  uint64_t split_min;
  /* with has_ranks, files whose rank is outside [rank_lo, rank_hi] are skipped after
  ** the scan (off_range): hta-ingest --ranks, for files whose rank rk_peek() left unknown */
  int has_ranks;
  int64_t rank_lo, rank_hi;
  /* called by the writer thread about 6 times a second while work is under way */
  void (*progress)(void *ctx, const pl_file *files, int n, double seconds);
  /* called once per file as it finishes (any status) */
  void (*done)(void *ctx, const pl_file *f);
  void *ctx;
} pl_options;

typedef struct pl_stats {
  double writer_cpu; /* CPU seconds of the writer thread */
  double other_cpu;  /* CPU seconds of every other thread (parsers and their helpers) */
  double finish_s;   /* wall seconds after the last file: commit, close, rename */
  int upgraded;      /* the database was upgraded from schema 1 at open (upgrade.h) */
  int64_t up_traces, up_jobs;
} pl_stats;

/* Ingests files[0..n) into DB. Returns 0, or -1 when the database itself failed
** (message in err); per-file outcomes are in files[i].status; stats may be NULL. */
int pl_run(const char *db, pl_file *files, int n, const pl_options *o, pl_stats *stats, char *err,
           int errlen);

#endif

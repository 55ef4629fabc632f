/*
** merge.h: hta-ingest --merge OUT IN... (prefix mg_): copies whole jobs and traces
** from one hta-sqlite database into another, without reading any JSON.
**
**  1. Every trace of IN lands in OUT with a new trace_id (above OUT's), and every id
**     that encodes it moves with it: event_id, link_id, parent_id,
**     profiler_step.event_id, counter_id, flow_id (trace_id << 32 | ordinal).
**  2. Strings and categories are merged by value; event, counter and flow name and
**     category ids are remapped.
**  3. Jobs are merged by name: a trace joins OUT's job of its IN job's name (created,
**     with IN's source and created_at, in the trace's transaction when new).
**  4. device, thread, profiler_step and ingest_issue rows come along; a trace that
**     joins a job already holding its rank gets a shared_rank issue, as ingest gives.
**  5. A trace whose content_hash OUT has is skipped and reported.
**  6. One transaction per trace: OUT never holds part of a trace.
**  7. IN is only read (a schema-1 IN is read as upgraded: jobs from parent directories).
** (A new OUT may start as a page copy of the first IN instead: wr_open_seeded(), writer.h.)
** Never prints: notes go to the callback (level 1 errors, 2 notes, 3 per trace).
*/
#ifndef HTA_MERGE_H
#define HTA_MERGE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mg_stats {
  int64_t traces;  /* copied */
  int64_t skipped; /* already in OUT */
  int64_t events;  /* event rows copied */
  int64_t rows;    /* rows of every table copied */
} mg_stats;

typedef void (*mg_note)(void *ctx, int level, const char *msg);

/* Copies IN's traces into OUT (the connection of an open hta-sqlite database of the
** current schema, with no transaction open). Adds to *st. Returns 0, or -1 with err
** set ("IN: what" or "IN: FILE: what"): traces committed before stay. */
int mg_merge(sqlite3 *out, const char *in, mg_stats *st, mg_note note, void *ctx, char *err,
             size_t errlen);

/* Sets *st to the rows of every trace of the database (a seeded OUT: what merging it
** would have added). */
void mg_count(sqlite3 *db, mg_stats *st);

#endif

/*
** captures.h: CUDA/HIP graph capture traces and their index (prefix cp_).
**
** vLLM and SGLang replay CUDA/HIP graphs: the profiled trace (the replay) shows one
** graph launch and the kernels it ran, without the operators that issued them. A
** capture trace, recorded while the graph was captured, has those operators and
** launches. TraceLens lays a replay job out as
**
**   job/replay.json.gz
**   job/capture_traces/<capture>.json.gz ...
**   job/capture_traces/execution_details.json   the capture index
**
** and the index is a JSON array of {"file": NAME, "batch_size": N, "mode": "FULL" |
** "PIECEWISE"} objects, one per capture file. hta-ingest stores the captures in the
** job of their replay, marked as captures (schema.sql, table capture), so that no
** analysis takes one for a profiled window of its rank.
**
**  1. A member other than file, batch_size and mode is ignored; an object without
**     a file is ignored; a file listed twice keeps its last listing.
**  2. A document that is not an array of objects, or a member of the wrong type,
**     is an error naming the file, the byte offset and what was wrong.
** Never prints.
*/
#ifndef HTA_CAPTURES_H
#define HTA_CAPTURES_H

#include <stddef.h>
#include <stdint.h>

/* What the index says of one capture file. */
typedef struct cp_capture {
  int64_t batch_size; /* -1 when the index does not say */
  char *mode;         /* NULL when the index does not say */
  char *index_file;   /* the index's path; NULL when the file is listed in none */
} cp_capture;

typedef struct cp_entry {
  char *file; /* as listed: a name in the index's folder */
  int64_t batch_size;
  char *mode;
} cp_entry;

typedef struct cp_index {
  char *path;
  cp_entry *a;
  int n, cap;
} cp_index;

#define CP_INDEX_NAME "execution_details.json"
#define CP_DIR_NAME "capture_traces"

/* Reads the capture index PATH into out. 0, or -1 with err set ("PATH: byte N:
** what"); out is then empty. -2 out of memory. */
int cp_read_index(const char *path, cp_index *out, char *err, size_t errlen);

/* The entry of FILE (a base name), or NULL. */
const cp_entry *cp_find(const cp_index *ix, const char *file);

void cp_index_free(cp_index *ix);

/* A new capture record for FILE from IX (which may be NULL: no index); NULL when out
** of memory. Free with cp_capture_free. */
cp_capture *cp_capture_new(const cp_index *ix, const char *file);
void cp_capture_free(cp_capture *c);

#endif

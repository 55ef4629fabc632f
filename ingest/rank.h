/*
** rank.h: a trace file's rank (prefix rk_): distributedInfo.rank, else the number
** in the file name, else 0 (DESIGN.md section 3, deviation D6).
**
** rk_peek() learns it cheaply, for hta-ingest --ranks: it reads the file only up to
** its first event. Kineto writes distributedInfo before traceEvents, so that is
** usually enough; when the first event comes before any distributedInfo, the rank
** is known only at the end of the file (a distributedInfo may follow traceEvents),
** and the caller must scan the file (hta-ingest's scan pass does, then skips it).
*/
#ifndef HTA_RANK_H
#define HTA_RANK_H

#include <stdint.h>

/* 1 and *rank set when the base name of PATH holds "rank-N", "rank_N", "rankN" or
** "workerN" (the first of them), else 0. */
int rk_from_name(const char *path, int64_t *rank);

/* RK_KNOWN with *rank set, or RK_UNKNOWN (a full scan is needed, or the file could
** not be read: the ingest reports why). */
enum { RK_UNKNOWN = 0, RK_KNOWN = 1 };
int rk_peek(const char *path, int64_t *rank);

#endif

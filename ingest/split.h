/*
** split.h: the second half of a large plain trace file, scanned on a thread of its
** own while the caller scans the first half (prefix sp_).
**
**   (after the first event of the scan pass)
**   sp_half *h = sp_start(scan, path, dv, mem, keep_flows); // NULL: read on alone
**   ... rc = kt_next(scan, &e) ...
**   if (rc == KT_SPLIT) rc = sp_join(h, scan, dv); // KT_END: the scan is complete
**   sp_flows(h, fn, ctx);                          // the second half's flows, if kept
**   sp_free(h);
**
** HOW IT WORKS: a guess at an element boundary of traceEvents past the middle of the
** file ('}' ',' '{' with only whitespace between) becomes the second reader's start
** (kt_open_at) and the first reader's stop (kt_stop_at). Only the first reader can
** tell whether the guess was right: when its kt_next() returns KT_SPLIT it was, and
** the second half, scanned meanwhile into a part of the file's dv_state, is joined
** (kt_join, dv_join_part). Whatever else happens (a wrong guess, a B/E event or an
** error in the second half) the first reader simply reads on, so the rows are those
** of one pass over the file (only the ids of new strings may be numbered otherwise,
** as the writer meets them in another order).
*/
#ifndef HTA_SPLIT_H
#define HTA_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "derive.h"
#include "kineto.h"

typedef struct sp_half sp_half;

/* Starts the second half of SCAN's file (PATH, plain), into a part of DV with MEM
** bytes of sort budget; KEEP_FLOWS: its flow events (s, t, f) are kept, up to 32 MB,
** for sp_flows(). NULL when no boundary was found, or out of resources. */
sp_half *sp_start(kt_file *scan, const char *path, dv_state *dv, size_t mem, int keep_flows);

/* After kt_next(scan) returned KT_SPLIT: KT_END when the halves were joined; KT_SPLIT
** when they cannot be (read on with kt_next); KT_ERROR (kt_errmsg(scan)) or KT_NOMEM
** (dv_error(dv)). */
int sp_join(sp_half *h, kt_file *scan, dv_state *dv);

/* 1 once the halves were joined (NULL: 0). */
int sp_joined(const sp_half *h);

/* Once joined: calls FN on each kept flow of the second half, in order (seq counted
** in the whole file; the event is valid during the call); the first FN result that
** is not 0 ends it and is returned. sp_flows_from() is the seq of the first flow
** that was not kept (INT64_MAX: none, or not joined): that one and the later ones
** are left to the caller. */
int sp_flows(const sp_half *h, int (*fn)(void *ctx, const kt_event *e), void *ctx);
int64_t sp_flows_from(const sp_half *h);

/* Bytes the second half has read so far (updated every 4096 events; any thread may ask,
** for progress; NULL: 0). */
uint64_t sp_read(const sp_half *h);

/* Stops the second half if it still runs; NULL is fine. */
void sp_free(sp_half *h);

#endif

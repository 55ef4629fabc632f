/*
** split.h: the second half of a large plain trace file, read on a thread of its own
** while the caller reads the first half, in the same one pass (prefix sp_).
**
**   (after the first event of the pass)
**   sp_half *h = sp_start(kf, path, dv, mem, fn, ctx); // NULL: read on alone
**   ... rc = kt_next(kf, &e) ...
**   if (rc == KT_SPLIT) rc = sp_join(h, kf, dv);       // KT_END: the pass is complete
**   sp_base(h);                                        // where the second half starts
**   sp_free(h);
**
** HOW IT WORKS: a guess at an element boundary of traceEvents past the middle of the
** file ('}' ',' '{' with only whitespace between) becomes the second reader's start
** (kt_open_at) and the first reader's stop (kt_stop_at). The second reader hands each
** event to a part of the file's dv_state and then to FN (the caller spools its rows,
** seq counted from the half's first event). Only the first reader can tell whether
** the guess was right: when its kt_next() returns KT_SPLIT it was, and the second
** half is joined (kt_join, dv_join_part). Whatever else happens (a wrong guess, a B/E
** event or an error in the second half, FN failing) the first reader simply reads
** on, and the caller drops what FN kept: the rows are those of one reader.
*/
#ifndef HTA_SPLIT_H
#define HTA_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "derive.h"
#include "kineto.h"

typedef struct sp_half sp_half;

/* Starts the second half of KF's file (PATH, plain, opened KT_FULL), into a part of
** DV with MEM bytes of sort budget, each event then passed to FN(CTX, e) (0, or not 0
** to give up). NULL when no boundary was found, or out of resources. */
sp_half *sp_start(kt_file *kf, const char *path, dv_state *dv, size_t mem,
                  int (*fn)(void *ctx, const kt_event *e), void *ctx);

/* After kt_next(kf) returned KT_SPLIT: KT_END when the halves were joined; KT_SPLIT
** when they cannot be (read on with kt_next; what FN kept is not wanted); KT_ERROR
** (kt_errmsg(kf)) or KT_NOMEM (dv_error(dv)). */
int sp_join(sp_half *h, kt_file *kf, dv_state *dv);

/* 1 once the halves were joined (NULL: 0). */
int sp_joined(const sp_half *h);

/* Once joined: the seq of the second half's first event in the whole file. */
int64_t sp_base(const sp_half *h);

/* Bytes the second half has read so far (updated every 4096 events; any thread may ask,
** for progress; NULL: 0). */
uint64_t sp_read(const sp_half *h);

/* Stops the second half if it still runs; NULL is fine. */
void sp_free(sp_half *h);

#endif

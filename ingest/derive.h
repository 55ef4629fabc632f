/*
** derive.h: the columns computed from a whole file before its rows are written
** (prefix dv_): correlation links, call-stack parent/depth, iterations, B/E
** pairing, the file's time span. Pure C: no sqlite3, never prints.
**
**   dv_state *d = dv_new(memory_budget);
**   for each event of a KT_SCAN pass: dv_add(d, e);
**   dv_finish(d);
**   for each event of the KT_FULL pass, in order: dv_get(d, e, &row);
**   dv_free(d);
**   (each returns 0, or -1 with dv_error(d): out of memory, a temporary file failed)
**
** HOW IT WORKS: no array per event. The scan sends what each rule needs to an
** external sort (xsort.h): one record per correlated row (links), two per
** call-stack candidate (its endpoints); plus small per-thread state, the steps and
** the open B events. dv_finish() sweeps the sorted records, and the values found
** (link, parent, depth, the iteration of GPU rows) go into arrays by seq when they
** fit the budget, else into one more sort by seq, which dv_get() reads in step
** with the full pass; ordinals and host iterations are recomputed there. Memory:
** at most about twice the budget (a sort's buffer and qsort's copy of it), whatever
** the number of events; past it the sorts use a temporary file. Rules (spec hta_semantics.md, with DESIGN.md §5):
**  1. "kept" rows are HTA's: dur and cat present, cat != "Trace" (spec 1.4).
**  2. Links (spec 1.9): among kept rows with a correlation, GPU-like rows (stream >= 0
**     and correlation >= 0, or named "Event Sync"/"Context Sync") pair with CPU-like
**     rows of equal correlation; each side links to the LAST partner in file order.
**  3. Call stack (spec 1.17, D14): nodes are kept host rows (not GPU work, D5)
**     grouped by (pid, tid); a group whose rows are all GPU work, or all pid 0,
**     or all tid 0, has no stack. Endpoints sorted by HTA's comparator; a start's
**     parent is the top of the stack, an end pops the top. Backward-thread roots are
**     re-parented under the main thread's "## backward ##" (or ProfilerStep#) rows.
**     A GPU row linked to a node gets that node as parent, depth + 1.
**  4. Iterations (spec 1.10, D7, D8): steps are kept host rows named
**     ProfilerStep#N, other than gpu_user_annotation; a host row's iteration is the
**     last step (row order) with step.ts <= ts < step.ts + dur; a GPU row takes its
**     link partner's.
*/
#ifndef HTA_DERIVE_H
#define HTA_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "kineto.h"

typedef struct dv_state dv_state;

typedef struct dv_row {
  int64_t ord;    /* this event's ordinal among the file's event rows (the low half of
                         its event_id), -1 when it is not an event row */
  int64_t link;   /* ordinal of the partner, -1 */
  int64_t parent; /* ordinal of the call-stack parent, -1 */
  int64_t depth;  /* -1 when not in a call stack */
  int has_iteration;
  int64_t iteration;
  int skip;    /* an E event folded into its B */
  int has_dur; /* B events paired with their E: the computed dur */
  int64_t dur;
} dv_row;

typedef struct dv_step {
  int64_t seq, ord, ts, dur, number; /* ord: its ordinal among the file's event rows */
} dv_step;

typedef struct dv_issue {
  const char *code;
  int64_t count;
  int64_t first_seq;
  char example[96];
  const char *message;
} dv_issue;

/* MEM: bytes for the sorts' buffers before they spill to a temporary file. */
dv_state *dv_new(size_t mem);
/* Records one event of the scan pass (events must come in seq order, seq < 2^31). */
int dv_add(dv_state *d, const kt_event *e);
/*
** A file read in two parts at once (kt_open_at): the second part's events go to
** dv_new_part(whole, mem), numbered from 0 as its reader counts them, in another
** thread. A part returns 1 from dv_add() for an event it cannot take alone (a B or E,
** whose partner may lie before it, or its 2^30th event): the whole then reads on
** alone. dv_join_part(whole, part, base), where the part starts at seq BASE, makes the
** whole as if it had seen every event: 0, 1 when they cannot be joined (nothing
** changed), or -1 (out of memory, temporary file: the whole is then unusable). Make
** and free the part on the whole's thread (they share the group registry), in either
** order.
*/
dv_state *dv_new_part(dv_state *whole, size_t mem);
int dv_join_part(dv_state *whole, dv_state *part, int64_t base);
/* Computes every derived column. */
int dv_finish(dv_state *d);
/* The derived values of e. Call it for every event of the full pass that can be a
** row (all but flows and metadata may be passed too), in seq order. */
int dv_get(dv_state *d, const kt_event *e, dv_row *out);
/* The same for an event known by what dv_get reads of it: its seq, dv_row_class() and
** ts (a pass that keeps rows until dv_finish keeps these with each). */
unsigned dv_row_class(const kt_event *e); /* 0: no event row; else < 256 */
int dv_get_row(dv_state *d, int64_t seq, unsigned cls, int64_t ts, dv_row *out);
/* What failed: "out of memory", "temporary file: cannot write: ...". */
const char *dv_error(const dv_state *d);
/* Bytes the sorts wrote to temporary files (after dv_finish). */
long long dv_spilled(const dv_state *d);

/* File facts after dv_finish. */
int dv_time_span(const dv_state *d, int64_t *min_ts, int64_t *max_end); /* 0 when no kept row */
const dv_step *dv_steps(const dv_state *d, int *n);
const char *dv_device_type(const dv_state *d, const char *backend); /* spec 1.8 */
const dv_issue *dv_issues(const dv_state *d, int *n);

void dv_free(dv_state *d);

#endif

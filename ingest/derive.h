/*
** derive.h: the columns computed from a whole file before its rows are written
** (prefix dv_): correlation links, call-stack parent/depth, iterations, B/E
** pairing, the file's time span. Pure C: no sqlite3, never prints.
**
**   dv_state *d = dv_new();
**   for each event of a KT_SCAN pass: dv_add(d, e);
**   dv_finish(d);
**   for each event of the KT_FULL pass: dv_get(d, e->seq, &row);
**   dv_free(d);
**
** HOW IT WORKS: the scan pass keeps 24 bytes per event (ts, dur, thread group,
** flags) plus 16 per correlated event; dv_finish() computes everything with sorts
** and sweeps, then drops the per-event scan records, keeping 17 bytes per event
** for the full pass. Rules (spec hta_semantics.md, with DESIGN.md §5):
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
  int64_t seq, ts, dur, number;
} dv_step;

typedef struct dv_issue {
  const char *code;
  int64_t count;
  int64_t first_seq;
  char example[96];
  const char *message;
} dv_issue;

dv_state *dv_new(void);
/* Records one event of the scan pass (events must come in seq order). 0, or -1 on OOM. */
int dv_add(dv_state *d, const kt_event *e);
/* Computes every derived column. 0, or -1 on OOM. */
int dv_finish(dv_state *d);
/* The derived values of event SEQ (after dv_finish). */
void dv_get(const dv_state *d, int64_t seq, dv_row *out);

/* The ordinal of event SEQ among the file's event rows, -1 (after dv_finish). */
int64_t dv_ordinal(const dv_state *d, int64_t seq);

/* File facts after dv_finish. */
int dv_time_span(const dv_state *d, int64_t *min_ts, int64_t *max_end); /* 0 when no kept row */
const dv_step *dv_steps(const dv_state *d, int *n);
const char *dv_device_type(const dv_state *d, const char *backend); /* spec 1.8 */
const dv_issue *dv_issues(const dv_state *d, int *n);

void dv_free(dv_state *d);

#endif

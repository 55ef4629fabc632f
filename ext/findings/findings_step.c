/*
** findings_step.c: the summary row of each trace (rule 'step', kind 'summary': DESIGN
** 11 "One accounting of the step"), from the accounting (fd_account.h).
**
** Requirements (tests cite them as FSS-n):
**  1. One row per trace with a compute stream (FA-1), whatever min_pct says.
**  2. time_us = the recoverable time per step: the time_us of every cause and busy
**     finding of the trace (shown or under min_pct); pct_of_step = its share of the
**     typical step.
**  3. evidence: step_us, busy_us, idle_us (per typical step), attributed_us (the causes'
**     part of the idle time), warmup_us, before_trace_us, unexplained_us (idle =
**     attributed + warmup + before_trace + unexplained), recoverable_us,
**     recoverable_pct, busy_pct, the compute streams, steps (typical), outlier_steps,
**     parts: each part's µs per step, and, when some idle time has no cause the trace
**     shows, unexplained: {idle_us, then fd_calls_json's members of its charges: the
**     launches of the work that waited (fd_calls.c FCL-n)}, to find where it waited.
**  4. It runs after every other rule (the last line of fd_rules), so FSS-2 sees them.
**  5. The title gives the step, the busy share, the idle time, its attributed part and
**     the recoverable share; and, when the GPU waited on work from before the trace
**     (before_trace, FA-4: only past 1 ms), that time too: otherwise that idle time
**     would read as a gap nothing explains.
**  6. caveats: the unexplained time, when it is 1% of the step or more and its longest
**     wait (unexplained.top[0]) is over 100 us, as a caveat "unexplained" that names
**     that wait: its time per step, the launch call and operator of the work that
**     waited, its seq. (The GPU's own microseconds between queued kernels, thousands
**     of them, say nothing about where to look.) The trace's caveats follow.
*/
#include <math.h>

#include "findings/fd_account.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FSS_LONG_WAIT_US 100.0 /* FSS-6 */

/* FSS-6: the caveat that says where the idle time without a cause waited longest. */
static int fssUnexplained(const fd_unit *u, const fd_acct *a, const fd_calls *c, fd_row *row) {
  double us = a->part_us[FD_P_UNEXPLAINED];
  char t[32], w[32];
  if (us < 0.01 * u->step_us || !c->has_first || !(c->first_us > FSS_LONG_WAIT_US))
    return SQLITE_OK;
  char *z = sqlite3_mprintf(
      "%s of the idle time has no cause in the trace: the GPU waited with work queued (on "
      "another stream's work, or on what the trace does not record); the longest wait, %s per "
      "step, held the work of %s%s%s (seq %lld)",
      hta_fmt_us(us, t), hta_fmt_us(c->first_us, w), c->first_name ? c->first_name : "a launch",
      c->first_op ? " in " : "", c->first_op ? c->first_op : "", (long long)c->first_seq);
  if (!z) return SQLITE_NOMEM;
  fd_caveat(row, "unexplained", z);
  sqlite3_free(z);
  return SQLITE_OK;
}

int fd_step_summary(fd_ctx *x, const fd_rule *r) {
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    const fd_acct *a = &acct[i];
    if (!a->has_gpu || !(u->step_us > 0) || !fd_unit_wanted(x, u)) continue; /* FSS-1 */
    fd_row row = fd_row_init(u);
    sqlite3_str *e = row.evidence;
    double attributed = 0;
    char b1[32], b2[32], b3[32], b4[32];
    for (int p = 0; p < FD_NCAUSE; p++) attributed += a->part_us[p];
    row.keep = 1;
    row.time_us = u->cost_us; /* FSS-2 */
    double share = 100.0 * u->cost_us / u->step_us;
    sqlite3_str_appendall(e, "{\"step_us\":");
    fd_json_num(e, u->step_us);
    sqlite3_str_appendall(e, ",\"busy_us\":");
    fd_json_num(e, a->busy_us);
    sqlite3_str_appendall(e, ",\"idle_us\":");
    fd_json_num(e, a->idle_us);
    sqlite3_str_appendall(e, ",\"attributed_us\":");
    fd_json_num(e, attributed);
    sqlite3_str_appendall(e, ",\"warmup_us\":");
    fd_json_num(e, a->part_us[FD_P_WARMUP]);
    sqlite3_str_appendall(e, ",\"before_trace_us\":");
    fd_json_num(e, a->part_us[FD_P_BEFORE_TRACE]);
    sqlite3_str_appendall(e, ",\"unexplained_us\":");
    fd_json_num(e, a->part_us[FD_P_UNEXPLAINED]);
    sqlite3_str_appendall(e, ",\"recoverable_us\":");
    fd_json_num(e, u->cost_us);
    sqlite3_str_appendall(e, ",\"recoverable_pct\":");
    fd_json_num(e, share);
    sqlite3_str_appendall(e, ",\"busy_pct\":");
    fd_json_num(e, 100.0 * a->busy_us / u->step_us);
    sqlite3_str_appendall(e, ",\"compute_streams\":[");
    for (size_t k = 0; k < a->nstreams; k++)
      sqlite3_str_appendf(e, k ? ",%lld" : "%lld", (long long)a->streams[k]);
    sqlite3_str_appendf(e, "],\"steps\":%lld", (long long)u->ntypical);
    fd_json_outliers(e, u);
    sqlite3_str_appendall(e, ",\"parts\":{");
    for (int p = 0; p < FD_NPART; p++) {
      sqlite3_str_appendf(e, "%s\"%s\":", p ? "," : "", fd_part_rule(p));
      fd_json_num(e, a->part_us[p]);
    }
    sqlite3_str_appendchar(e, 1, '}');
    if (a->part_us[FD_P_UNEXPLAINED] > 0) { /* FSS-3 */
      fd_calls c;
      sqlite3_str_appendall(e, ",\"unexplained\":{\"idle_us\":");
      fd_json_num(e, a->part_us[FD_P_UNEXPLAINED]);
      rc = fd_calls_json(x, u, a, FD_P_UNEXPLAINED, e, &c);
      sqlite3_str_appendchar(e, 1, '}');
      if (rc == SQLITE_OK) rc = fssUnexplained(u, a, &c, &row);
      fd_calls_free(&c);
      if (rc != SQLITE_OK) {
        fd_row_discard(&row);
        break;
      }
    }
    sqlite3_str_appendchar(e, 1, '}');
    double before = a->part_us[FD_P_BEFORE_TRACE];
    char pre[96] = "";
    if (before > 0) /* FSS-5 */
      sqlite3_snprintf(sizeof pre, pre, " and %s waits on GPU work from before the trace",
                       hta_fmt_us(before, b4));
    row.title = sqlite3_mprintf(
        "Step %s: the GPU computes %.1f%% of it; of %s idle, %s has a cause%s; the findings "
        "below recover up to %.1f%% of the step",
        hta_fmt_us(u->step_us, b1), 100.0 * a->busy_us / u->step_us, hta_fmt_us(a->idle_us, b2),
        hta_fmt_us(attributed, b3), pre, share);
    row.advice =
        "Fix the causes first, costliest first: each cause's time is GPU idle time that it "
        "alone explains, so fixing it recovers at most that; busy findings are estimates.";
    rc = fd_emit(x, r, &row);
  }
  return rc;
}

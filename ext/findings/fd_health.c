/*
** fd_health.c: fd_health_caveats (fd.h), what limits the trust in one trace's findings:
** the one place that judges a trace's health for hta_findings (DESIGN 11 "Caveats").
**
** Requirements (tests cite them as FC-n):
**  1. steps: a trace without ProfilerStep (fd_steps.c FS-2): "no ProfilerStep: the
**     steps are the <n> engine iterations (vLLM, SGLang or ATOM annotations)" with
**     value n, else "no ProfilerStep: the whole window (<time>) counts as one step",
**     value 0.
**  2. ranks_profiled: a job whose world_size (the largest trace.world_size) exceeds the
**     ranks it holds traces of: "<k> of <world_size> ranks profiled: ...", value k.
**  3. link_coverage: the share of the trace's GPU work rows (kernels, copies, memsets)
**     linked to the runtime call that launched them, when below 95%: "<p>% of the GPU
**     work has its launch: the rest is attributed to no host thread (a sampled or
**     truncated trace?)", value the share (0-1).
**  4. The caveats are a JSON array of {"check", "value", "text"}; fd_emit appends them
**     to each finding of the trace after the finding's own.
**
** The seam: hta_trace_health (a table of such checks per trace) will hold these and
** more (launches without GPU work, dropped events); then this file reads its rows with
** verdict 'warn' or 'fail' instead of computing them.
*/
#include <string.h>

#include "findings/fd.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FC_MIN_LINKED 0.95 /* FC-3 */

static void fcAdd(sqlite3_str *s, const char *check, double value, const char *text) {
  if (sqlite3_str_length(s) > 1) sqlite3_str_appendchar(s, 1, ',');
  sqlite3_str_appendall(s, "{\"check\":");
  fd_json_str(s, check);
  sqlite3_str_appendall(s, ",\"value\":");
  fd_json_num(s, value);
  sqlite3_str_appendall(s, ",\"text\":");
  fd_json_str(s, text);
  sqlite3_str_appendchar(s, 1, '}');
}

int fd_health_caveats(fd_ctx *x, fd_unit *u) {
  sqlite3_str *s = sqlite3_str_new(0);
  sqlite3_stmt *st = 0;
  char buf[32], *text;
  int rc;
  sqlite3_str_appendchar(s, 1, '[');
  if (u->engine_steps) { /* FC-1 */
    text = sqlite3_mprintf(
        "no ProfilerStep: the steps are the %lld engine iteration%s (vLLM, "
        "SGLang or ATOM annotations)",
        (long long)u->nsteps, u->nsteps == 1 ? "" : "s");
    fcAdd(s, "steps", (double)u->nsteps, text);
    sqlite3_free(text);
  } else if (u->no_steps && u->nsteps) {
    text = sqlite3_mprintf("no ProfilerStep: the whole window (%s) counts as one step",
                           fd_fmt_us((double)(u->steps[0].end - u->steps[0].start) / 1000.0, buf));
    fcAdd(s, "steps", 0, text);
    sqlite3_free(text);
  }
  if (x->world_size > x->ranks_in_job && x->ranks_in_job > 0) { /* FC-2 */
    text = sqlite3_mprintf(
        "%lld of %lld ranks profiled: waits for the other ranks and their "
        "share of the job are partly unseen",
        (long long)x->ranks_in_job, (long long)x->world_size);
    fcAdd(s, "ranks_profiled", (double)x->ranks_in_job, text);
    sqlite3_free(text);
  }
  rc = hta_prepare(x->db, x->schema, /* FC-3: the GPU index holds link_id */
                   "SELECT count(*), count(link_id) FROM $S.event WHERE trace_id = ?1"
                   " AND stream IS NOT NULL",
                   &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, u->trace_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      int64_t all = sqlite3_column_int64(st, 0), linked = sqlite3_column_int64(st, 1);
      double share = all ? (double)linked / (double)all : 1.0;
      if (share < FC_MIN_LINKED) {
        text = sqlite3_mprintf(
            "%.1f%% of the GPU work has its launch: the rest is attributed to "
            "no host thread (a sampled or truncated trace?)",
            100.0 * share);
        fcAdd(s, "link_coverage", share, text);
        sqlite3_free(text);
      }
    }
    rc = fd_done(st, rc);
  }
  sqlite3_str_appendchar(s, 1, ']');
  if (sqlite3_str_errcode(s) && rc == SQLITE_OK) rc = SQLITE_NOMEM;
  u->caveats = sqlite3_str_finish(s);
  if (!u->caveats && rc == SQLITE_OK) rc = SQLITE_NOMEM;
  return rc;
}

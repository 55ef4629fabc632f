/*
** health.c: hta_trace_health, "can I trust this trace?": one row per check of each
** trace (and one of the whole job) with what was measured, the threshold and a
** verdict, before any analysis is believed.
**
**   SELECT "check", verdict, message FROM hta_trace_health WHERE verdict != 'ok';
**   SELECT rank, value FROM hta_trace_health WHERE "check" = 'clock_offset';
**   SELECT * FROM hta_trace_health WHERE job = 'run_a' AND rank = 3;
**
** Columns: rank, trace_id (both NULL for a check of the whole job), check (quote
**   it: CHECK is an SQL keyword), value, threshold, verdict ('ok', 'warn', 'fail'),
**   detail (JSON object: the counts behind the value), message (one sentence), then
**   job as every analysis. No parameters.
**
** The checks, in their row order (value; the threshold column holds the limit where
** the check stops being 'ok'; "NULL" = nothing to measure, verdict 'ok'):
**
**   check                    value                             warn when     fail when
**   ranks_profiled (job)     distinct ranks; threshold the     < world size  a rank outside
**                            world size (NULL: unknown)                      0..world size-1, or
**                                                                            traces disagree on it
**   profiler_stopped_early   1 when the profiler's log says                  > 0
**                            its GPU buffer filled (NULL: no log)
**   profiler_record_errors   the log's invalid external        > 0
**                            correlations + CPU/GPU out-of-order
**                            + unexpected records (NULL: no log)
**   profiler_log_errors      ERROR lines in the profiler's log  > 0
**   ingest_repairs           events ingest dropped or repaired  > 0           > 1% of the events
**                            (ingest_issue)
**   gpu_activity             GPU rows                          < 1 (CPU-only)
**   cpu_activity             % of launch calls inside a host   < 50 (GPU-only)
**                            operator (NULL: no launch call)
**   kernels_without_launch   % of kernels, copies, memsets     > 5           > 50
**                            without a launch, those launched
**                            before the window left out (HT-1)
**   launches_without_kernel  % of launch calls without GPU     > 5           > 50
**                            work (memset calls apart: HT-2)
**   flows                    ac2g flow starts                  < 1 while launches
**                                                              have kernels
**   graph_coverage           % of the GPU time under graph     < 95
**                            launches whose kernel is matched
**                            to a captured operator (100 x
**                            hta_graph_coverage.coverage; NULL:
**                            no graph launch)
**   steps                    ProfilerSteps (detail: the engine < 1
**                            iterations that stand for them)
**   collapsed_steps          steps but the last lasting < 10%  > 0           >= half of them
**                            of their median, or in which no
**                            kernel starts while in others some do
**   last_step                the last step's duration / the    < 0.5
**                            median of the others' (>= 2 steps)
**   dominant_gpu_event       % of the GPU time (sum of GPU     > 50
**                            rows' dur) in the longest GPU row
**                            (>= 100 GPU rows)
**   clock_offset             µs: the trace's median end offset |v| > 100     |v| > 1000
**                            on collectives that end together
**                            (health_clock.c; >= 2 ranks)
**   rank_identity            how the rank was found             guessed (file name, default)
**                            (trace.rank_source)                in a job of several traces,
**                                                               or another trace has it too
**   distributed_info         1 when the trace has it           0 in a job of several
**                                                              traces or with NCCL kernels
**   device_properties        devices described                 < 1 while GPU rows exist
**   time_unit                displayTimeUnit (NULL: absent)    not 'ms' or 'ns'
**   time_span                seconds from the first event to   > 3600
**                            the last event's end
**
** graph_coverage's 95%: a replayed kernel that no captured operator claims stays under
** its graph launch, so every operator view (hta_op_perf, hta_operator_stats,
** hta_kernel_stats' operators) and the findings that read them miss its time; past 5% of
** the replayed time that is more than the rounding of a per-operator share.
**
** Requirements (tests cite them as HL-n):
**  1. Per job: the job's check first (the table leaves it out under a rank
**     constraint; hta_health_run always gives it: a rank's caveats hold it), then every
**     profiled trace of the job (also those without events; not the graph captures,
**     which record launches that never run by design) in (rank, trace_id) order, each
**     with the checks above in that order. WHERE rank = N keeps rank N's traces.
**  2. A value that cannot be measured is NULL and its verdict 'ok'; the message
**     says why.
**  3. Percentages are not rounded; times are µs (clock_offset) or s (time_span).
**  4. The caveats (hta_health_caveats) of a trace are its checks, and the job's,
**     that are not 'ok' among ranks_profiled, profiler_stopped_early,
**     kernels_without_launch, launches_without_kernel, steps, collapsed_steps and
**     clock_offset, as {"check", "value", "text": the message}. Not last_step: every
**     per-step analysis cuts the last ProfilerStep (D7), so its truncation changes
**     no finding.
**  5. steps: a trace without ProfilerStep whose inference engine annotates its
**     iterations (hta_engine_steps_load, as hta_inference_steps and hta_findings read
**     them, after the same last-step cut) says the per-step analyses use those; one
**     without either says they see its window (its length) as one step.
**  6. graph_coverage: hta_graph_coverage's figure of the trace (graph.h hg_coverage, the
**     same C), as a percentage; a trace without GPU time under a graph launch has the
**     row with value NULL, 'ok', as every check with nothing to measure (HL-2).
**
** HOW IT WORKS: health_trace.c measures each trace with a dozen small queries
** (about 0.4 s on a 540 MB trace); health_clock.c reads the collectives once per
** job of several ranks; hlFamilies asks the steps (core) and graph families what they
** read of each trace; this file judges the measures and writes the rows.
*/
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "health/health.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The thresholds (the header's table). */
#define HL_IN_OPS_WARN_PCT 50.0
#define HL_LINK_WARN_PCT 5.0
#define HL_LINK_FAIL_PCT 50.0
#define HL_REPAIR_FAIL_PCT 1.0
#define HL_COLLAPSE_RATIO 0.1
#define HL_LAST_STEP_RATIO 0.5
#define HL_DOMINANT_PCT 50.0
#define HL_DOMINANT_MIN_ROWS 100
#define HL_CLOCK_WARN_US 100.0
#define HL_CLOCK_FAIL_US 1000.0
#define HL_SPAN_WARN_S 3600.0
#define HL_GRAPH_WARN_PCT 95.0

/* HL-4: the checks whose verdict changes what a finding means. */
static const char *const hlCaveatChecks[] = {
    "ranks_profiled", "profiler_stopped_early", "kernels_without_launch", "launches_without_kernel",
    "steps",          "collapsed_steps",        "clock_offset",
};

/* What the job's traces share. */
typedef struct hl_job {
  int64_t traces, ranks, min_rank, max_rank, min_ws, max_ws;
  int has_ws;
  char *rank_list; /* JSON array of the first ranks */
} hl_job;

/* ---------------------------------------------------------------- rows */

/* A row being built: DETAIL collects the JSON object's members. */
typedef struct hl_row {
  hta_health_row r;
  sqlite3_str *detail;
} hl_row;

static hl_row hlBegin(sqlite3 *db, const hl_trace *t, const char *check) {
  hl_row x;
  memset(&x, 0, sizeof x);
  x.r.trace_id = t ? t->trace_id : 0;
  x.r.rank = t ? t->rank : 0;
  x.r.check = check;
  x.r.value.type = SQLITE_NULL;
  x.detail = sqlite3_str_new(db);
  sqlite3_str_appendchar(x.detail, 1, '{');
  return x;
}

/* Adds "KEY":value to X's detail; FMT formats the value (JSON). */
static void hlDetail(hl_row *x, const char *key, const char *fmt, ...) {
  va_list ap;
  sqlite3_str_appendf(x->detail, "%s\"%w\":", sqlite3_str_length(x->detail) > 1 ? "," : "", key);
  va_start(ap, fmt);
  sqlite3_str_vappendf(x->detail, fmt, ap);
  va_end(ap);
}

static void hlThreshold(hl_row *x, double v) {
  x->r.has_threshold = 1;
  x->r.threshold = v;
}

/* Ends X with VERDICT and the message (printf FMT) and appends it to H. */
static int hlEnd(hta_health *h, hl_row *x, int verdict, const char *fmt, ...) {
  va_list ap;
  sqlite3_str_appendchar(x->detail, 1, '}');
  x->r.detail = sqlite3_str_finish(x->detail);
  x->detail = 0;
  va_start(ap, fmt);
  x->r.message = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  x->r.verdict = verdict;
  if (!x->r.detail || !x->r.message) goto end_oom;
  HTA_PUSH(h->a, h->n, h->cap, 32, x->r, end_oom);
  return SQLITE_OK;
end_oom:
  sqlite3_free(x->r.detail);
  sqlite3_free(x->r.message);
  if (x->r.value.owned) sqlite3_free((char *)x->r.value.v.s);
  return SQLITE_NOMEM;
}

static double hlPct(int64_t part, int64_t whole) { return 100.0 * (double)part / (double)whole; }

/* ---------------------------------------------------------------- the job */

static int hlJobLoad(sqlite3 *db, const hta_scope *sc, hl_job *j) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, sc->schema,
                       "SELECT count(*), count(DISTINCT rank), min(rank), max(rank),"
                       " min(world_size), max(world_size),"
                       " (SELECT json_group_array(rank) FROM (SELECT DISTINCT rank FROM $T"
                       "  WHERE job_id = ?1 ORDER BY rank LIMIT 64))"
                       " FROM $T WHERE job_id = ?1",
                       &st);
  memset(j, 0, sizeof *j);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, sc->job_id);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    j->traces = sqlite3_column_int64(st, 0);
    j->ranks = sqlite3_column_int64(st, 1);
    j->min_rank = sqlite3_column_int64(st, 2);
    j->max_rank = sqlite3_column_int64(st, 3);
    j->has_ws = sqlite3_column_type(st, 5) != SQLITE_NULL;
    j->min_ws = sqlite3_column_int64(st, 4);
    j->max_ws = sqlite3_column_int64(st, 5);
    const char *z = (const char *)sqlite3_column_text(st, 6);
    j->rank_list = sqlite3_mprintf("%s", z ? z : "[]");
    rc = j->rank_list ? SQLITE_DONE : SQLITE_NOMEM;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
}

static int hlRanksProfiled(sqlite3 *db, hta_health *h, const hl_job *j) {
  hl_row x = hlBegin(db, 0, "ranks_profiled");
  hta_cell_int(&x.r.value, j->ranks);
  hlDetail(&x, "traces", "%lld", (long long)j->traces);
  hlDetail(&x, "ranks", "%s", j->rank_list);
  if (!j->has_ws) {
    hlDetail(&x, "world_size", "null");
    return hlEnd(h, &x, HTA_HEALTH_OK, "%lld rank%s profiled; no trace gives the world size",
                 (long long)j->ranks, j->ranks == 1 ? "" : "s");
  }
  hlThreshold(&x, (double)j->max_ws);
  hlDetail(&x, "world_size", "%lld", (long long)j->max_ws);
  if (j->min_ws != j->max_ws)
    return hlEnd(h, &x, HTA_HEALTH_FAIL,
                 "the traces disagree on the world size (%lld to %lld): they may not be one job",
                 (long long)j->min_ws, (long long)j->max_ws);
  if (j->min_rank < 0 || j->max_rank >= j->max_ws)
    return hlEnd(h, &x, HTA_HEALTH_FAIL, "rank %lld is outside the world size %lld",
                 (long long)(j->min_rank < 0 ? j->min_rank : j->max_rank), (long long)j->max_ws);
  if (j->ranks < j->max_ws)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "%lld of %lld ranks profiled: what spans ranks (collectives, stragglers, the "
                 "job's critical path) sees only these",
                 (long long)j->ranks, (long long)j->max_ws);
  return hlEnd(h, &x, HTA_HEALTH_OK, "all %lld ranks profiled", (long long)j->ranks);
}

/* ---------------------------------------------------------------- a trace's checks */

static int hlProfiler(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "profiler_stopped_early");
  int rc;
  hlThreshold(&x, 0);
  if (!t->has_record_counts) {
    rc = hlEnd(h, &x, HTA_HEALTH_OK, "the trace keeps no profiler log that would say");
  } else {
    hta_cell_int(&x.r.value, t->stopped_early > 0);
    rc = t->stopped_early > 0
             ? hlEnd(h, &x, HTA_HEALTH_FAIL,
                     "the profiler's GPU buffer filled and it stopped recording GPU activity "
                     "early: what ran after that is missing")
             : hlEnd(h, &x, HTA_HEALTH_OK, "the profiler recorded GPU activity to the end");
  }
  if (rc != SQLITE_OK) return rc;

  x = hlBegin(db, t, "profiler_record_errors");
  hlThreshold(&x, 0);
  if (!t->has_record_counts)
    return hlEnd(h, &x, HTA_HEALTH_OK, "the trace keeps no profiler log that would say");
  int64_t bad = t->invalid_ext + t->out_of_order + t->unexpected;
  hta_cell_int(&x.r.value, bad);
  hlDetail(&x, "invalid_external_correlations", "%lld", (long long)t->invalid_ext);
  hlDetail(&x, "cpu_gpu_out_of_order", "%lld", (long long)t->out_of_order);
  hlDetail(&x, "unexpected_events", "%lld", (long long)t->unexpected);
  hlDetail(&x, "out_of_range", "%lld", (long long)t->out_of_range);
  hlDetail(&x, "blocklisted_runtime", "%lld", (long long)t->blocklisted);
  if (bad > 0)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "the profiler reports %lld broken records (invalid correlations, GPU before "
                 "CPU, unexpected kinds): their links or times are wrong",
                 (long long)bad);
  return hlEnd(h, &x, HTA_HEALTH_OK,
               "the profiler reports no broken record (%lld outside the window, dropped)",
               (long long)t->out_of_range);
}

static int hlLogErrors(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "profiler_log_errors");
  hlThreshold(&x, 0);
  hta_cell_int(&x.r.value, t->log_errors);
  if (t->first_error) hlDetail(&x, "first", "\"%w\"", t->first_error);
  if (t->log_errors > 0)
    return hlEnd(h, &x, HTA_HEALTH_WARN, "the profiler logged %lld error%s: %s",
                 (long long)t->log_errors, t->log_errors == 1 ? "" : "s",
                 t->first_error ? t->first_error : "");
  return hlEnd(h, &x, HTA_HEALTH_OK, "no error in the profiler's log");
}

static int hlRepairs(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "ingest_repairs");
  hlThreshold(&x, 0);
  hta_cell_int(&x.r.value, t->repaired);
  hlDetail(&x, "codes", "%s", t->repairs ? t->repairs : "{}");
  hlDetail(&x, "events", "%lld", (long long)t->event_count);
  if (t->repaired == 0) return hlEnd(h, &x, HTA_HEALTH_OK, "ingest dropped or repaired no event");
  double pct = t->event_count > 0 ? hlPct(t->repaired, t->event_count) : 100.0;
  return hlEnd(h, &x, pct > HL_REPAIR_FAIL_PCT ? HTA_HEALTH_FAIL : HTA_HEALTH_WARN,
               "ingest dropped or repaired %lld event%s (%s; ingest_issue says which)",
               (long long)t->repaired, t->repaired == 1 ? "" : "s", t->repairs);
}

static int hlActivity(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "gpu_activity");
  int rc;
  hlThreshold(&x, 1);
  hta_cell_int(&x.r.value, t->gpu_rows);
  hlDetail(&x, "launches", "%lld", (long long)t->launches);
  if (t->gpu_rows == 0 && t->launches > 0)
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "no GPU activity though the host made %lld launch calls: the profiler recorded "
               "none (GPU tracing off, or CUPTI range profiling)",
               (long long)t->launches);
  else if (t->gpu_rows == 0)
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "no GPU activity: a CPU-only trace, every GPU analysis is empty");
  else rc = hlEnd(h, &x, HTA_HEALTH_OK, "%lld GPU rows", (long long)t->gpu_rows);
  if (rc != SQLITE_OK) return rc;
  x = hlBegin(db, t, "cpu_activity");
  hlThreshold(&x, HL_IN_OPS_WARN_PCT);
  hlDetail(&x, "launches", "%lld", (long long)t->launches);
  hlDetail(&x, "inside_operators", "%lld", (long long)t->launches_in_ops);
  if (t->launches == 0) return hlEnd(h, &x, HTA_HEALTH_OK, "no launch calls");
  double pct = hlPct(t->launches_in_ops, t->launches);
  hta_cell_double(&x.r.value, pct);
  if (pct < HL_IN_OPS_WARN_PCT)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "%.1f%% of launch calls are inside a host operator: a GPU-only trace (no CPU "
                 "activity recorded), kernels cannot be attributed to operators",
                 pct);
  return hlEnd(h, &x, HTA_HEALTH_OK, "%.1f%% of launch calls are inside a host operator", pct);
}

/* A share check: PCT of WHAT, warn above HL_LINK_WARN_PCT, fail above HL_LINK_FAIL_PCT. */
static int hlLinkVerdict(double pct) {
  return pct > HL_LINK_FAIL_PCT   ? HTA_HEALTH_FAIL
         : pct > HL_LINK_WARN_PCT ? HTA_HEALTH_WARN
                                  : HTA_HEALTH_OK;
}

static int hlLinks(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "kernels_without_launch");
  int rc;
  hlThreshold(&x, HL_LINK_WARN_PCT);
  hlDetail(&x, "kernels", "%lld", (long long)t->kernels);
  hlDetail(&x, "without_launch", "%lld", (long long)t->kernels_unlinked);
  hlDetail(&x, "launched_before_window", "%lld", (long long)t->kernels_before_window);
  if (t->kernels == 0) {
    rc = hlEnd(h, &x, HTA_HEALTH_OK, "no kernels");
  } else {
    int64_t n = t->kernels_unlinked - t->kernels_before_window;
    double pct = hlPct(n, t->kernels);
    hta_cell_double(&x.r.value, pct);
    rc = hlEnd(h, &x, hlLinkVerdict(pct),
               "%.1f%% of kernels (%lld of %lld) have no launch%s; %lld more ran from before the "
               "window",
               pct, (long long)n, (long long)t->kernels,
               pct > HL_LINK_WARN_PCT ? " (no correlation to a runtime call)" : "",
               (long long)t->kernels_before_window);
  }
  if (rc != SQLITE_OK) return rc;
  x = hlBegin(db, t, "launches_without_kernel");
  hlThreshold(&x, HL_LINK_WARN_PCT);
  hlDetail(&x, "launches", "%lld", (long long)t->launches);
  hlDetail(&x, "without_kernel", "%lld", (long long)t->launches_unlinked);
  hlDetail(&x, "without_kernel_in_last_step", "%lld", (long long)t->launches_unlinked_last_step);
  hlDetail(&x, "memset_calls", "%lld", (long long)t->memsets);
  hlDetail(&x, "memset_calls_without_row", "%lld", (long long)t->memsets_unlinked);
  if (t->launches == 0) return hlEnd(h, &x, HTA_HEALTH_OK, "no launch calls");
  double pct = hlPct(t->launches_unlinked, t->launches);
  hta_cell_double(&x.r.value, pct);
  return hlEnd(h, &x, hlLinkVerdict(pct),
               "%.1f%% of launch calls (%lld of %lld) have no GPU work%s", pct,
               (long long)t->launches_unlinked, (long long)t->launches,
               pct > HL_LINK_WARN_PCT
                   ? ": a graph capture, a profiler that skips kernels, or lost GPU records"
                   : "");
}

static int hlFlows(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "flows");
  int64_t linked = t->launches - t->launches_unlinked;
  hlThreshold(&x, 1);
  hta_cell_int(&x.r.value, t->ac2g_flows);
  hlDetail(&x, "ac2g", "%lld", (long long)t->ac2g_flows);
  hlDetail(&x, "other", "%lld", (long long)t->other_flows);
  hlDetail(&x, "launches_with_kernel", "%lld", (long long)linked);
  if (t->ac2g_flows == 0 && linked > 0)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "no ac2g flows%s: TraceLens links no kernel to its launch (hta-sqlite links "
                 "them by correlation id)",
                 t->other_flows > 0 ? " (only flows of an older or other category)" : "");
  return hlEnd(h, &x, HTA_HEALTH_OK, "%lld launch-to-kernel flows", (long long)t->ac2g_flows);
}

/* HL-6: the share of the replayed GPU time that a captured operator claims. */
static int hlGraph(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "graph_coverage");
  char b1[32], b2[32];
  hlThreshold(&x, HL_GRAPH_WARN_PCT);
  if (t->graph_replayed == 0 || t->graph_replayed_ns <= 0)
    return hlEnd(h, &x, HTA_HEALTH_OK, "no GPU time under a graph launch");
  double pct = hlPct(t->graph_matched_ns, t->graph_replayed_ns);
  hta_cell_double(&x.r.value, pct);
  hlDetail(&x, "replayed", "%lld", (long long)t->graph_replayed);
  hlDetail(&x, "matched", "%lld", (long long)t->graph_matched);
  hlDetail(&x, "replayed_us", "%!.15g", (double)t->graph_replayed_ns / 1000.0);
  hlDetail(&x, "matched_us", "%!.15g", (double)t->graph_matched_ns / 1000.0);
  hta_fmt_us((double)t->graph_matched_ns / 1000.0, b1);
  hta_fmt_us((double)t->graph_replayed_ns / 1000.0, b2);
  if (pct < HL_GRAPH_WARN_PCT)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "%.1f%% of the replayed GPU time (%s of %s; %lld of %lld kernels) has its "
                 "captured operator: the rest stays under its graph launch in the operator "
                 "views (hta_graph_kernels says why)",
                 pct, b1, b2, (long long)t->graph_matched, (long long)t->graph_replayed);
  return hlEnd(h, &x, HTA_HEALTH_OK,
               "%.1f%% of the replayed GPU time (%s of %s) has its captured operator", pct, b1, b2);
}

/* The median of the steps' durations, leaving out step SKIP (-1: none). */
static double hlMedianDur(const hl_trace *t, long skip, double *v) {
  size_t n = 0;
  for (size_t i = 0; i < t->nsteps; i++)
    if ((long)i != skip) v[n++] = (double)t->steps[i].dur;
  hta_sort_doubles(v, n);
  return hta_quantile_sorted(v, n, 0.5);
}

static int hlSteps(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "steps");
  double *v = 0;
  int rc;
  hlThreshold(&x, 1);
  hta_cell_int(&x.r.value, (int64_t)t->nsteps);
  if (t->nsteps == 0 && t->engine_steps > 0) { /* HL-5 */
    hlDetail(&x, "engine_steps", "%lld", (long long)t->engine_steps);
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "no ProfilerStep: the per-step analyses use the %lld engine iteration%s (vLLM, "
               "SGLang or ATOM annotations) as steps",
               (long long)t->engine_steps, t->engine_steps == 1 ? "" : "s");
  } else if (t->nsteps == 0) {
    char buf[32];
    hlDetail(&x, "engine_steps", "0");
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "no ProfilerStep: the per-step analyses see the whole window (%s) as one step",
               hta_fmt_us((double)hta_sub_sat(t->max_end, t->min_ts) / 1000.0, buf));
  } else {
    hlDetail(&x, "first", "%lld", (long long)t->steps[0].number);
    hlDetail(&x, "last", "%lld", (long long)t->steps[t->nsteps - 1].number);
    rc = hlEnd(h, &x, HTA_HEALTH_OK, "%lld ProfilerSteps (%lld to %lld)", (long long)t->nsteps,
               (long long)t->steps[0].number, (long long)t->steps[t->nsteps - 1].number);
  }
  if (rc != SQLITE_OK) return rc;

  /* collapsed_steps: every step but the last (last_step judges that one) */
  x = hlBegin(db, t, "collapsed_steps");
  hlThreshold(&x, 0);
  if (t->nsteps < 2) {
    rc = hlEnd(h, &x, HTA_HEALTH_OK, "fewer than two steps: nothing to compare with");
    if (rc != SQLITE_OK) return rc;
    x = hlBegin(db, t, "last_step");
    hlThreshold(&x, HL_LAST_STEP_RATIO);
    return hlEnd(h, &x, HTA_HEALTH_OK, "fewer than two steps: nothing to compare the last with");
  }
  v = sqlite3_malloc64(t->nsteps * sizeof *v);
  if (!v) {
    sqlite3_free(sqlite3_str_finish(x.detail));
    return SQLITE_NOMEM;
  }
  size_t nbody = t->nsteps - 1;
  double med = hlMedianDur(t, (long)nbody, v); /* also last_step's median */
  int any_gpu = 0;
  int64_t ncollapsed = 0;
  for (size_t i = 0; i < nbody; i++) any_gpu |= t->steps[i].gpu_rows > 0;
  hlDetail(&x, "steps", "%lld", (long long)nbody);
  hlDetail(&x, "median_step_us", "%!.15g", med / 1000.0);
  sqlite3_str_appendall(x.detail, ",\"collapsed\":[");
  for (size_t i = 0; i < nbody; i++) {
    const hl_step *s = &t->steps[i];
    int shrunk = (double)s->dur < HL_COLLAPSE_RATIO * med, empty = any_gpu && s->gpu_rows == 0;
    if (!shrunk && !empty) continue;
    sqlite3_str_appendf(x.detail, "%s{\"step\":%lld,\"dur_us\":%!.15g,\"gpu_rows\":%lld}",
                        ncollapsed ? "," : "", (long long)s->number, (double)s->dur / 1000.0,
                        (long long)s->gpu_rows);
    ncollapsed++;
  }
  sqlite3_str_appendchar(x.detail, 1, ']');
  hta_cell_int(&x.r.value, ncollapsed);
  if (ncollapsed == 0) rc = hlEnd(h, &x, HTA_HEALTH_OK, "no collapsed step");
  else
    rc = hlEnd(h, &x, 2 * ncollapsed >= (int64_t)nbody ? HTA_HEALTH_FAIL : HTA_HEALTH_WARN,
               "%lld of %lld steps collapsed (under %.0f%% of the median step, or no kernel "
               "starts in it while other steps have some): per-step averages mix them with "
               "real steps",
               (long long)ncollapsed, (long long)nbody, 100 * HL_COLLAPSE_RATIO);
  if (rc != SQLITE_OK) {
    sqlite3_free(v);
    return rc;
  }

  x = hlBegin(db, t, "last_step");
  hlThreshold(&x, HL_LAST_STEP_RATIO);
  const hl_step *last = &t->steps[nbody];
  sqlite3_free(v);
  hlDetail(&x, "step", "%lld", (long long)last->number);
  hlDetail(&x, "dur_us", "%!.15g", (double)last->dur / 1000.0);
  hlDetail(&x, "median_other_us", "%!.15g", med / 1000.0);
  hlDetail(&x, "launches_without_kernel", "%lld", (long long)t->launches_unlinked_last_step);
  if (!(med > 0)) return hlEnd(h, &x, HTA_HEALTH_OK, "the other steps last 0 µs");
  double ratio = (double)last->dur / med;
  hta_cell_double(&x.r.value, ratio);
  if (ratio < HL_LAST_STEP_RATIO)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "the last step (ProfilerStep#%lld) lasts %.2f of the median step: truncated by "
                 "the end of the window",
                 (long long)last->number, ratio);
  return hlEnd(h, &x, HTA_HEALTH_OK, "the last step lasts %.2f of the median step", ratio);
}

static int hlDominant(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "dominant_gpu_event");
  hlThreshold(&x, HL_DOMINANT_PCT);
  hlDetail(&x, "gpu_rows", "%lld", (long long)t->gpu_rows);
  hlDetail(&x, "longest_us", "%!.15g", (double)t->gpu_max_dur / 1000.0);
  if (t->gpu_rows < HL_DOMINANT_MIN_ROWS || t->gpu_sum_dur <= 0)
    return hlEnd(h, &x, HTA_HEALTH_OK, "fewer than %d GPU rows", HL_DOMINANT_MIN_ROWS);
  double pct = 100.0 * (double)t->gpu_max_dur / t->gpu_sum_dur;
  hta_cell_double(&x.r.value, pct);
  if (pct > HL_DOMINANT_PCT)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "one GPU row of %lld holds %.1f%% of the GPU time: a malformed event or a wait "
                 "that hides the rest",
                 (long long)t->gpu_rows, pct);
  return hlEnd(h, &x, HTA_HEALTH_OK, "the longest GPU row holds %.1f%% of the GPU time", pct);
}

static int hlClock(sqlite3 *db, hta_health *h, const hl_trace *t, const hl_job *j) {
  hl_row x = hlBegin(db, t, "clock_offset");
  hlThreshold(&x, HL_CLOCK_WARN_US);
  if (j->ranks < 2) return hlEnd(h, &x, HTA_HEALTH_OK, "one rank: no other clock to compare");
  if (!t->has_clock)
    return hlEnd(h, &x, HTA_HEALTH_OK,
                 "too few collectives that end together on every rank to compare clocks");
  double off = t->clock_offset_us, a = fabs(off);
  hta_cell_double(&x.r.value, off);
  hlDetail(&x, "collectives", "%lld", (long long)t->clock_collectives);
  hlDetail(&x, "min_us", "%!.15g", t->clock_min_us);
  hlDetail(&x, "max_us", "%!.15g", t->clock_max_us);
  if (a > HL_CLOCK_WARN_US)
    return hlEnd(h, &x, a > HL_CLOCK_FAIL_US ? HTA_HEALTH_FAIL : HTA_HEALTH_WARN,
                 "collectives that end together end %.1f µs %s on this rank (median of %lld): its "
                 "clock is off, so waits and skews across ranks are off by as much",
                 a, off > 0 ? "later" : "earlier", (long long)t->clock_collectives);
  return hlEnd(h, &x, HTA_HEALTH_OK, "its collectives end within %.1f µs of the other ranks'", a);
}

static int hlIdentity(sqlite3 *db, hta_health *h, const hl_trace *t, const hl_job *j) {
  hl_row x = hlBegin(db, t, "rank_identity");
  const char *src = t->rank_source ? t->rank_source : "";
  int guessed = strcmp(src, "distributedInfo") != 0;
  int rc;
  if (t->rank_source && hta_cell_text(&x.r.value, t->rank_source) != SQLITE_OK) {
    sqlite3_free(sqlite3_str_finish(x.detail));
    return SQLITE_NOMEM;
  }
  hlDetail(&x, "shared_rank", "%s", t->same_rank ? "true" : "false");
  if (t->same_rank)
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "rank %lld is also the rank of %s (two profiling windows of one worker?): "
               "analyses keep them apart by trace_id (HTA keeps one trace per rank)",
               (long long)t->rank, t->same_rank);
  else if (guessed && j->traces > 1)
    rc = hlEnd(h, &x, HTA_HEALTH_WARN,
               "rank %lld is a guess (%s, no distributedInfo.rank) in a job of %lld traces",
               (long long)t->rank, strcmp(src, "file_name") ? "a default" : "from the file name",
               (long long)j->traces);
  else rc = hlEnd(h, &x, HTA_HEALTH_OK, "rank %lld (%s)", (long long)t->rank, src);
  if (rc != SQLITE_OK) return rc;

  x = hlBegin(db, t, "distributed_info");
  hlThreshold(&x, 1);
  hta_cell_int(&x.r.value, t->has_dist_info);
  hlDetail(&x, "communication_kernels", "%s", t->has_comm ? "true" : "false");
  if (!t->has_dist_info && (j->traces > 1 || t->has_comm))
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "no distributedInfo in a %s: the rank, world size and process groups are "
                 "unknown",
                 t->has_comm ? "trace with communication kernels" : "job of several traces");
  return hlEnd(h, &x, HTA_HEALTH_OK,
               t->has_dist_info ? "distributedInfo present" : "no distributedInfo (one process)");
}

static int hlDevices(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "device_properties");
  hlThreshold(&x, 1);
  hta_cell_int(&x.r.value, t->devices);
  if (t->devices == 0 && t->gpu_rows > 0)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "no deviceProperties: no peak FLOPS, memory or SM count for the roofline, "
                 "occupancy and memory views");
  return hlEnd(h, &x, HTA_HEALTH_OK, "%lld device%s described", (long long)t->devices,
               t->devices == 1 ? "" : "s");
}

static int hlTime(sqlite3 *db, hta_health *h, const hl_trace *t) {
  hl_row x = hlBegin(db, t, "time_unit");
  const char *u = t->time_unit;
  int ns = t->ts_sub_us > 0, rc;
  if (u && hta_cell_text(&x.r.value, u) != SQLITE_OK) {
    sqlite3_free(sqlite3_str_finish(x.detail));
    return SQLITE_NOMEM;
  }
  hlDetail(&x, "ns_resolution", "%s", ns ? "true" : "false");
  hlDetail(&x, "sampled_events", "%lld", (long long)t->ts_sampled);
  hlDetail(&x, "sub_microsecond_events", "%lld", (long long)t->ts_sub_us);
  if (u && strcmp(u, "ms") && strcmp(u, "ns"))
    rc =
        hlEnd(h, &x, HTA_HEALTH_WARN,
              "displayTimeUnit '%s' is neither 'ms' nor 'ns': the trace's times are read as µs", u);
  else
    rc = hlEnd(h, &x, HTA_HEALTH_OK, "timestamps in µs%s; displayTimeUnit %s",
               ns ? " with ns resolution (kept exact)" : "", u ? u : "absent");
  if (rc != SQLITE_OK) return rc;

  x = hlBegin(db, t, "time_span");
  hlThreshold(&x, HL_SPAN_WARN_S);
  if (!t->has_span) return hlEnd(h, &x, HTA_HEALTH_OK, "no event with a time");
  double s = (double)hta_sub_sat(t->max_end, t->min_ts) / 1e9;
  hta_cell_double(&x.r.value, s);
  if (s > HL_SPAN_WARN_S)
    return hlEnd(h, &x, HTA_HEALTH_WARN,
                 "the trace spans %.0f s: times in ns written as µs, or a clock jump", s);
  return hlEnd(h, &x, HTA_HEALTH_OK, "the trace spans %.3f s", s);
}

/* Appends trace T's checks, in the header's order. */
static int hlTraceRows(sqlite3 *db, hta_health *h, const hl_trace *t, const hl_job *j) {
  int rc = hlProfiler(db, h, t);
  if (rc == SQLITE_OK) rc = hlLogErrors(db, h, t);
  if (rc == SQLITE_OK) rc = hlRepairs(db, h, t);
  if (rc == SQLITE_OK) rc = hlActivity(db, h, t);
  if (rc == SQLITE_OK) rc = hlLinks(db, h, t);
  if (rc == SQLITE_OK) rc = hlFlows(db, h, t);
  if (rc == SQLITE_OK) rc = hlGraph(db, h, t);
  if (rc == SQLITE_OK) rc = hlSteps(db, h, t);
  if (rc == SQLITE_OK) rc = hlDominant(db, h, t);
  if (rc == SQLITE_OK) rc = hlClock(db, h, t, j);
  if (rc == SQLITE_OK) rc = hlIdentity(db, h, t, j);
  if (rc == SQLITE_OK) rc = hlDevices(db, h, t);
  if (rc == SQLITE_OK) rc = hlTime(db, h, t);
  return rc;
}

/* ---------------------------------------------------------------- the job's checks */

/* What other families read of the N traces T, each read as they read it
** (hta_traces_load): HL-5, the engine iterations of a trace without ProfilerStep
** (after the last-step cut); HL-6, the graph coverage (graph.h hg_coverage: the whole
** trace, as hta_graph_coverage). */
static int hlFamilies(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank, hl_trace *t,
                      size_t n) {
  hta_traces tr;
  int rc = hta_traces_load(db, sc, has_rank, rank, 0, &tr);
  for (int k = 0; rc == SQLITE_OK && k < tr.n; k++) {
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
      if (t[i].trace_id != tr.a[k].trace_id) continue;
      if (hta_interrupted(db)) rc = SQLITE_INTERRUPT;
      if (rc == SQLITE_OK && !t[i].nsteps) {
        hta_steps es;
        rc = hta_engine_steps_load(db, &tr.a[k], &es);
        t[i].engine_steps = (int64_t)es.n;
        hta_steps_free(&es);
      }
      hta_trace whole = tr.a[k];
      whole.has_cut = 0;
      if (rc == SQLITE_OK)
        rc = hg_coverage(db, &whole, &t[i].graph_replayed_ns, &t[i].graph_matched_ns,
                         &t[i].graph_replayed, &t[i].graph_matched);
    }
  }
  hta_traces_free(&tr);
  return rc;
}

int hta_health_run(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank, hta_health *out,
                   char **pzErr) {
  hl_job j;
  hl_ids ids;
  hl_trace *t = 0;
  size_t n = 0, cap = 0;
  sqlite3_stmt *st = 0;
  int rc;
  (void)pzErr;
  memset(&ids, 0, sizeof ids);
  rc = hlJobLoad(db, sc, &j);
  if (rc == SQLITE_OK) rc = hl_ids_load(db, sc->schema, &ids);
  if (rc == SQLITE_OK) /* HL-1: every trace, with events or not */
    rc = hta_prepare(db, sc->schema,
                     "SELECT trace_id, rank FROM $T WHERE job_id = ?1"
                     " AND (?2 IS NULL OR rank = ?2) ORDER BY rank, trace_id",
                     &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, sc->job_id);
    if (has_rank) sqlite3_bind_int64(st, 2, rank);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      hl_trace x;
      memset(&x, 0, sizeof x);
      x.trace_id = sqlite3_column_int64(st, 0);
      x.rank = sqlite3_column_int64(st, 1);
      HTA_PUSH(t, n, cap, 16, x, run_oom);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  st = 0;
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    if (hta_interrupted(db)) rc = SQLITE_INTERRUPT;
    else rc = hl_trace_measure(db, sc->schema, &ids, &t[i]);
  }
  if (rc == SQLITE_OK) rc = hlFamilies(db, sc, has_rank, rank, t, n);
  if (rc == SQLITE_OK) rc = hl_clock(db, sc, j.ranks, t, n);
  if (rc == SQLITE_OK && j.traces > 0) rc = hlRanksProfiled(db, out, &j);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) rc = hlTraceRows(db, out, &t[i], &j);
  goto run_end;
run_oom:
  sqlite3_finalize(st);
  rc = SQLITE_NOMEM;
run_end:
  for (size_t i = 0; i < n; i++) hl_trace_clear(&t[i]);
  sqlite3_free(t);
  sqlite3_free(j.rank_list);
  hl_ids_free(&ids);
  return rc;
}

void hta_health_free(hta_health *h) {
  for (size_t i = 0; i < h->n; i++) {
    if (h->a[i].value.owned) sqlite3_free((char *)h->a[i].value.v.s);
    sqlite3_free(h->a[i].detail);
    sqlite3_free(h->a[i].message);
  }
  sqlite3_free(h->a);
  memset(h, 0, sizeof *h);
}

/* 1 when CHECK's verdict is a caveat of the findings (HL-4). */
static int hlIsCaveat(const char *check) {
  for (size_t k = 0; k < sizeof hlCaveatChecks / sizeof hlCaveatChecks[0]; k++)
    if (!strcmp(check, hlCaveatChecks[k])) return 1;
  return 0;
}

/* The value of a check as JSON (a number, a string, or null). */
static void hlJsonCell(sqlite3_str *s, const hta_cell *c) {
  if (c->type == SQLITE_INTEGER) sqlite3_str_appendf(s, "%lld", (long long)c->v.i);
  else if (c->type == SQLITE_FLOAT && isfinite(c->v.d)) sqlite3_str_appendf(s, "%!.15g", c->v.d);
  else if (c->type == SQLITE_TEXT) hta_json_append_string(s, c->v.s);
  else sqlite3_str_appendall(s, "null");
}

int hta_health_caveats(const hta_health *h, int64_t trace_id, char **pz) {
  sqlite3_str *s = sqlite3_str_new(0);
  int n = 0;
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t i = 0; i < h->n; i++) { /* HL-4 */
    const hta_health_row *r = &h->a[i];
    if (r->verdict == HTA_HEALTH_OK || (r->trace_id != 0 && r->trace_id != trace_id)) continue;
    if (!hlIsCaveat(r->check)) continue;
    sqlite3_str_appendall(s, n++ ? ",{\"check\":" : "{\"check\":");
    hta_json_append_string(s, r->check);
    sqlite3_str_appendall(s, ",\"value\":");
    hlJsonCell(s, &r->value);
    sqlite3_str_appendall(s, ",\"text\":");
    hta_json_append_string(s, r->message);
    sqlite3_str_appendchar(s, 1, '}');
  }
  sqlite3_str_appendchar(s, 1, ']');
  *pz = sqlite3_str_finish(s);
  return *pz ? SQLITE_OK : SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- the table-valued function */

#define HL_SCHEMA                                                             \
  "CREATE TABLE x(rank INTEGER, trace_id INTEGER, \"check\" TEXT, value ANY," \
  " threshold REAL, verdict TEXT, detail TEXT, message TEXT)"
#define HL_RANK 0
#define HL_TRACE_ID 1
#define HL_CHECK 2
#define HL_VALUE 3
#define HL_THRESHOLD 4
#define HL_VERDICT 5
#define HL_DETAIL 6
#define HL_MESSAGE 7
#define HL_NVISIBLE 8

static int hlRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  static const char *const verdicts[] = {"ok", "warn", "fail"};
  hta_health h;
  memset(&h, 0, sizeof h);
  int rc = hta_health_run(db, &a->scope, a->has_rank, a->rank, &h, pzErr);
  for (size_t i = 0; rc == SQLITE_OK && i < h.n; i++) {
    hta_health_row *r = &h.a[i];
    if (a->has_rank && !r->trace_id) continue; /* HL-1: WHERE rank = N: no job row */
    hta_cell *row = hta_table_add_row(out);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (r->trace_id) {
      hta_cell_int(&row[HL_RANK], r->rank);
      hta_cell_int(&row[HL_TRACE_ID], r->trace_id);
    }
    hta_cell_static(&row[HL_CHECK], r->check);
    row[HL_VALUE] = r->value; /* ownership moves to the table */
    r->value.owned = 0;
    if (r->has_threshold) hta_cell_double(&row[HL_THRESHOLD], r->threshold);
    hta_cell_static(&row[HL_VERDICT], verdicts[r->verdict]);
    row[HL_DETAIL].type = SQLITE_TEXT, row[HL_DETAIL].owned = 1, row[HL_DETAIL].v.s = r->detail;
    row[HL_MESSAGE].type = SQLITE_TEXT, row[HL_MESSAGE].owned = 1, row[HL_MESSAGE].v.s = r->message;
    r->detail = r->message = 0;
  }
  hta_health_free(&h);
  return rc;
}

static const hta_tvf hlTvf = {
    "hta_trace_health", HL_SCHEMA, HL_NVISIBLE, HL_RANK, 0, 0, hlRun,
};

int hta_register_health(sqlite3 *db) { return hta_tvf_register(db, &hlTvf); }

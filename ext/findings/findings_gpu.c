/*
** findings_gpu.c: the findings about the GPU's time (findings.h):
** gpu_waits_for_host, exposed_communication and straggler (DESIGN 11).
**
** Requirements (tests cite them as FG-n):
**  1. gpu_waits_for_host, per trace: the busiest stream is the one with the most
**     GPU work time (the idle breakdown's kernels: kernel, memcpy and memset rows,
**     after the last-step cut; ties: the lower stream id). time = its idle time that
**     HTA's idle breakdown (default delay) calls host_wait / the steps, read as
**     hta_idle_interval_stats' count * mean_us (hta_idle_time_breakdown's
**     idle_time_us, to rounding); count = those gaps. Evidence: the stream's kernels,
**     the share of them (with a launch) shorter than their launch call, the median
**     kernel and launch durations, the median gap.
**  2. exposed_communication, per rank: communication kernel time during which no
**     computation kernel runs = the rank's hta_kernel_type_breakdown rows whose
**     label has COMMUNICATION and not COMPUTATION; time = that / the steps. Only
**     for traces with communication (hta_comm_comp_overlap not NULL), whose
**     overlap percentage is the evidence. A rank of two or more traces (two
**     profiling windows) is one finding with trace_id NULL, over all its steps.
**  3. straggler, for the job: a rank whose pct_arrived_last (hta_collective_ranks,
**     the implicit-sync collectives, last step cut) is >= 50 in a job of two or more
**     ranks. time = the other ranks' mean wait on the instances it arrived last at
**     (hta_collective_instances: avg_wait_us * n / (n - 1), n = ranks_present, as the
**     last rank waits 0), summed, / its steps; count = those instances. Evidence:
**     pct_arrived_last, its share of the job's critical path
**     (hta_critical_path_job_summary), and what it ran before arriving (the
**     instances' last_rank_prev_op and last_rank_prev_kernel, most frequent first).
**     A rank of two or more traces is one candidate (its traces' rows of
**     hta_collective_ranks summed: the instances name a rank, not a trace) and one
**     finding with trace_id NULL, over all its steps.
**  4. No GPU rows, no communication kernels, or no collective matched across ranks:
**     no finding from these rules.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FG_TOP 3 /* operators and kernels listed in evidence */

/* ---------------------------------------------------------------- analyses' rows */

typedef struct fg_row { /* a row of an analysis: two ids and a value */
  int64_t a, b;
  double v;
} fg_row;

/* The rows (a, b, v) of SQL (fd_query: ?1 schema, ?2 job) whose trace_id, column TCOL
** (0 or 1), is one of the units'. *pa is sqlite3_malloc'd. */
static int fgRows(fd_ctx *x, const char *sql, int tcol, fg_row **pa, size_t *pn) {
  sqlite3_stmt *st = 0;
  size_t cap = 0;
  int rc = fd_query(x, sql, &st);
  *pa = 0;
  *pn = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    fg_row v = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                sqlite3_column_double(st, 2)};
    if (!fd_unit_of(x, tcol ? v.b : v.a)) continue;
    HTA_PUSH(*pa, *pn, cap, 16, v, fg_oom);
    continue;
  fg_oom:
    rc = SQLITE_NOMEM;
  }
  return fd_done(st, rc);
}

/* ---------------------------------------------------------------- gpu_waits_for_host: FG-1 */

typedef struct fg_wait { /* a stream's host_wait gaps (hta_idle_interval_stats) */
  int64_t trace_id, stream, count;
  double us, p50_us; /* their time (count * mean: the idle breakdown's) and median gap */
} fg_wait;

typedef struct fg_busy { /* a stream's GPU work */
  int64_t stream, ns;
} fg_busy;

static int fgBusyCmp(const void *a, const void *b) {
  const fg_busy *x = a, *y = b;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* The busiest stream of G (FG-1): *stream; 0 when G has no kernel row. */
static int fgBusiest(const hta_gpu_rows *g, int64_t *stream) {
  fg_busy *b = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *b);
  size_t n = 0, m = 0;
  if (!b) return -1;
  for (size_t i = 0; i < g->n; i++) {
    if (g->a[i].is_kernel_cat)
      b[n++] = (fg_busy){g->a[i].stream, g->a[i].dur > 0 ? g->a[i].dur : 0};
  }
  qsort(b, n, sizeof *b, fgBusyCmp);
  for (size_t i = 0; i < n; i++) { /* fold each stream's rows into its first */
    if (m && b[m - 1].stream == b[i].stream) b[m - 1].ns = hta_add_sat(b[m - 1].ns, b[i].ns);
    else b[m++] = b[i];
  }
  int found = 0;
  for (size_t i = 0; i < m; i++) {
    if (!found || b[i].ns > b[found - 1].ns) found = (int)i + 1;
  }
  if (found) *stream = b[found - 1].stream;
  sqlite3_free(b);
  return found ? 1 : 0;
}

static int fgDoubleCmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v); NaN when n == 0. */
static double fgMedian(double *v, size_t n) {
  qsort(v, n, sizeof *v, fgDoubleCmp);
  return hta_quantile_sorted(v, n, 0.5);
}

/* One trace's finding: U's host_wait on its busiest stream (W: its streams' waits). */
static int fgWaitsOne(fd_ctx *x, const fd_rule *r, const fd_unit *u, const fg_wait *w, size_t nw,
                      hta_classifier *cls) {
  hta_gpu_rows g;
  int64_t stream = 0, nk = 0, nlaunched = 0, nshort = 0, gaps = -1;
  double host_us = NAN, *kd = 0, *ld = 0, gap_p50 = NAN;
  int rc = hta_gpu_load(x->db, u->t, cls, &g);
  if (rc != SQLITE_OK) return rc;
  int b = fgBusiest(&g, &stream);
  if (b < 0) rc = SQLITE_NOMEM;
  for (size_t i = 0; b > 0 && i < nw; i++) {
    if (w[i].stream == stream) host_us = w[i].us, gaps = w[i].count, gap_p50 = w[i].p50_us;
  }
  if (rc != SQLITE_OK || b == 0 || isnan(host_us)) goto fg_one_done;
  kd = sqlite3_malloc64((g.n ? g.n : 1) * sizeof *kd);
  ld = sqlite3_malloc64((g.n ? g.n : 1) * sizeof *ld);
  if (!kd || !ld) {
    rc = SQLITE_NOMEM;
    goto fg_one_done;
  }
  for (size_t i = 0; i < g.n; i++) {
    const hta_gpu *k = &g.a[i];
    if (!k->is_kernel_cat || k->stream != stream) continue;
    kd[nk++] = k->dur / 1000.0;
    if (k->link_id && k->launch_ts != INT64_MIN) {
      ld[nlaunched++] = k->launch_dur / 1000.0;
      if (k->dur < k->launch_dur) nshort++;
    }
  }
  {
    fd_row row = fd_row_init(u);
    char t[32];
    sqlite3_str *e = row.evidence;
    row.time_us = host_us / (double)u->nsteps;
    row.count = gaps;
    sqlite3_str_appendf(e, "{\"stream\":%lld,\"steps\":%lld,\"host_wait_us\":", (long long)stream,
                        (long long)u->nsteps);
    fd_json_num(e, host_us);
    sqlite3_str_appendall(e, ",\"gaps\":");
    fd_json_num(e, gaps < 0 ? NAN : (double)gaps);
    sqlite3_str_appendall(e, ",\"gap_p50_us\":");
    fd_json_num(e, gap_p50);
    sqlite3_str_appendf(e, ",\"kernels\":%lld,\"short_kernels_pct\":", (long long)nk);
    fd_json_num(e, nlaunched ? 100.0 * (double)nshort / (double)nlaunched : NAN);
    sqlite3_str_appendall(e, ",\"kernel_p50_us\":");
    fd_json_num(e, fgMedian(kd, (size_t)nk));
    sqlite3_str_appendall(e, ",\"launch_p50_us\":");
    fd_json_num(e, fgMedian(ld, (size_t)nlaunched));
    sqlite3_str_appendchar(e, 1, '}');
    row.title = sqlite3_mprintf("The GPU waits for the host %s per step on stream %lld",
                                fd_fmt_us(row.time_us, t), (long long)stream);
    row.advice =
        "The GPU runs out of queued work because the host launches it too slowly (many small "
        "kernels, Python overhead, synchronizations that drain the queue): capture the step "
        "with CUDA graphs (torch.compile(mode=\"reduce-overhead\")), fuse kernels with "
        "torch.compile, remove synchronizations from the step, or give each kernel more work "
        "(a larger batch).";
    rc = fd_emit(x, r, &row);
  }
fg_one_done:
  sqlite3_free(kd);
  sqlite3_free(ld);
  hta_gpu_free(&g);
  return rc;
}

int fd_gpu_waits_for_host(fd_ctx *x, const fd_rule *r) {
  fg_wait *w = 0;
  size_t nw = 0, cap = 0;
  hta_classifier *cls = 0;
  sqlite3_stmt *st = 0;
  /* FG-1: each stream's host_wait gaps; their time is count * mean, the idle breakdown's
  ** idle_time_us (one analysis read instead of two: the same intervals) */
  int rc = fd_query(x,
                    "SELECT trace_id, stream, count * mean_us, count, p50_us"
                    " FROM hta_idle_interval_stats WHERE schema = ?1 AND job = ?2"
                    " AND idle_category = 'host_wait' ORDER BY trace_id, stream",
                    &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    fg_wait v = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 3), sqlite3_column_double(st, 2),
                 sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4)};
    if (!fd_unit_of(x, v.trace_id)) continue;
    HTA_PUSH(w, nw, cap, 16, v, fg_oom);
    continue;
  fg_oom:
    rc = SQLITE_NOMEM;
  }
  rc = fd_done(st, rc);
  if (rc == SQLITE_OK && nw) rc = hta_classifier_open(x->db, x->schema, &cls);
  for (size_t i = 0; rc == SQLITE_OK && i < nw;) {
    size_t j = i;
    double max_us = 0;
    while (j < nw && w[j].trace_id == w[i].trace_id) {
      if (w[j].us > max_us) max_us = w[j].us;
      j++;
    }
    const fd_unit *u = fd_unit_of(x, w[i].trace_id);
    /* The busiest stream waits at most the most any stream waits: below min_pct, no
    ** stream can make a finding, and the GPU rows need not be read. */
    double best_pct = u->step_us > 0 ? 100.0 * max_us / (double)u->nsteps / u->step_us : NAN;
    if (isnan(best_pct) ? x->min_pct == 0 : best_pct >= x->min_pct)
      rc = fgWaitsOne(x, r, u, w + i, j - i, cls);
    i = j;
  }
  hta_classifier_free(cls);
  sqlite3_free(w);
  return rc;
}

/* ---------------------------------------------------------------- exposed_communication: FG-2 */

typedef fg_row fg_overlap; /* a: rank, b: trace_id, v: comp_comm_overlap_pctg */

/* The rank's communication time and the part of it without computation (µs), from
** hta_kernel_type_breakdown over that rank. */
static int fgExposed(fd_ctx *x, int64_t rank, double *comm_us, double *exposed_us) {
  sqlite3_stmt *st = 0;
  int rc = fd_query(x,
                    "SELECT kernel_type, sum_us FROM hta_kernel_type_breakdown"
                    " WHERE schema = ?1 AND job = ?2 AND rank = ?3",
                    &st);
  *comm_us = *exposed_us = 0;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 3, rank);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *label = (const char *)sqlite3_column_text(st, 0);
    double us = sqlite3_column_double(st, 1);
    if (!label || !strstr(label, "COMMUNICATION")) continue;
    *comm_us += us;
    if (!strstr(label, "COMPUTATION")) *exposed_us += us;
  }
  return fd_done(st, rc);
}

int fd_exposed_communication(fd_ctx *x, const fd_rule *r) {
  fg_overlap *o = 0;
  size_t no = 0;
  int rc = fgRows(x,
                  "SELECT rank, trace_id, comp_comm_overlap_pctg FROM hta_comm_comp_overlap"
                  " WHERE schema = ?1 AND job = ?2 AND comp_comm_overlap_pctg IS NOT NULL"
                  " ORDER BY rank, trace_id",
                  1, &o, &no);
  for (size_t i = 0; rc == SQLITE_OK && i < no;) {
    size_t j = i;
    int64_t steps = 0;
    double step_sum = 0, comm_us, exposed_us;
    const fd_unit *only = 0;
    int ntr = 0;
    for (int k = 0; k < x->nu; k++) { /* every trace of the rank, communication or not */
      if (x->u[k].rank != o[i].a) continue;
      only = &x->u[k];
      ntr++;
      steps += x->u[k].nsteps;
      step_sum += x->u[k].step_us * (double)x->u[k].nsteps;
    }
    while (j < no && o[j].a == o[i].a) j++;
    rc = fgExposed(x, o[i].a, &comm_us, &exposed_us);
    if (rc == SQLITE_OK && exposed_us > 0 && steps > 0) {
      fd_row row = fd_row_init(ntr == 1 ? only : 0);
      char t[32];
      sqlite3_str *e = row.evidence;
      row.has_rank = 1;
      row.rank = o[i].a;
      row.time_us = exposed_us / (double)steps;
      if (ntr != 1 && step_sum > 0) row.pct = 100.0 * row.time_us / (step_sum / (double)steps);
      sqlite3_str_appendf(e, "{\"steps\":%lld,\"exposed_us\":", (long long)steps);
      fd_json_num(e, exposed_us);
      sqlite3_str_appendall(e, ",\"communication_us\":");
      fd_json_num(e, comm_us);
      sqlite3_str_appendall(e, ",\"overlap_pct\":");
      if (j - i == 1) fd_json_num(e, o[i].v);
      else { /* one per trace, in trace order */ sqlite3_str_appendchar(e, 1, '[');
        for (size_t k = i; k < j; k++) {
          if (k > i) sqlite3_str_appendchar(e, 1, ',');
          fd_json_num(e, o[k].v);
        }
        sqlite3_str_appendchar(e, 1, ']');
      }
      sqlite3_str_appendchar(e, 1, '}');
      row.title = sqlite3_mprintf(
          "Communication not overlapped by computation: %s per step (%.0f%% of the "
          "communication time)",
          fd_fmt_us(row.time_us, t), comm_us > 0 ? 100.0 * exposed_us / comm_us : 0.0);
      row.advice =
          "The GPU only communicates during this time: overlap communication with computation "
          "(DDP starts each gradient bucket's all-reduce during the backward pass: tune "
          "bucket_cap_mb; FSDP: backward and forward prefetch), send less (bf16 gradients, "
          "gradient accumulation with fewer all-reduces), and when the ranks wait inside the "
          "collectives for a slow rank, fix that rank (the straggler finding).";
      rc = fd_emit(x, r, &row);
    }
    i = j;
  }
  sqlite3_free(o);
  return rc;
}

/* ---------------------------------------------------------------- straggler: FG-3 */

typedef struct fg_cand {
  int64_t rank, trace_id, last, collectives; /* trace_id -1: the rank has several traces */
  double pct_last, wait_us;                  /* the others' mean waits, summed */
  fd_tally ops, kernels;
  double gap_us;
  int64_t ngap;
} fg_cand;

/* The share (%) of the job's critical path on RANK; NaN when the job has none. */
static int fgCritShare(fd_ctx *x, int64_t rank, double *pct) {
  sqlite3_stmt *st = 0;
  int rc = fd_query(x,
                    "SELECT sum(percentage) FROM hta_critical_path_job_summary"
                    " WHERE schema = ?1 AND job = ?2 AND rank = ?3",
                    &st);
  *pct = NAN;
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 3, rank);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    *pct = sqlite3_column_double(st, 0);
  return fd_done(st, rc);
}

static int fgStragglerEmit(fd_ctx *x, const fd_rule *r, fg_cand *c) {
  /* the rank's traces (one, or its profiling windows): their steps and mean step */
  const fd_unit *u = 0;
  int64_t steps = 0;
  double step_sum = 0, crit, time_us, pct;
  char t[32];
  int rc;
  for (int k = 0; k < x->nu; k++) {
    if (x->u[k].rank != c->rank) continue;
    u = &x->u[k];
    steps += u->nsteps;
    step_sum += u->step_us * (double)u->nsteps;
  }
  if (!u || steps <= 0) return SQLITE_OK; /* another rank than the one asked for */
  if (c->trace_id < 0) u = 0;             /* FG-3: a finding about the rank as a whole */
  time_us = c->wait_us / (double)steps;
  pct = step_sum > 0 ? 100.0 * time_us / (step_sum / (double)steps) : NAN;
  if (!isnan(pct) ? pct < x->min_pct : x->min_pct > 0) return SQLITE_OK;
  rc = fgCritShare(x, c->rank, &crit); /* only for a finding: the job's path is costly */
  if (rc != SQLITE_OK) return rc;
  fd_row row = fd_row_init(u);
  row.has_rank = 1;
  row.rank = c->rank;
  row.time_us = time_us;
  row.pct = pct;
  row.count = c->last;
  sqlite3_str *e = row.evidence;
  sqlite3_str_appendall(e, "{\"pct_arrived_last\":");
  fd_json_num(e, c->pct_last);
  sqlite3_str_appendf(e, ",\"times_arrived_last\":%lld,\"collectives\":%lld,\"steps\":%lld,",
                      (long long)c->last, (long long)c->collectives, (long long)steps);
  sqlite3_str_appendall(e, "\"others_wait_us\":");
  fd_json_num(e, c->wait_us);
  sqlite3_str_appendall(e, ",\"critical_path_pct\":");
  fd_json_num(e, crit);
  sqlite3_str_appendall(e, ",\"before\":{\"operators\":");
  fd_tally_json(e, &c->ops, FG_TOP, "times", 0);
  sqlite3_str_appendall(e, ",\"kernels\":");
  fd_tally_json(e, &c->kernels, FG_TOP, "times", 0);
  sqlite3_str_appendall(e, ",\"gap_us_mean\":");
  fd_json_num(e, c->ngap ? c->gap_us / (double)c->ngap : NAN);
  sqlite3_str_appendall(e, "}}");
  const char *op = fd_tally_top(&c->ops);
  row.title = sqlite3_mprintf(
      "Rank %lld arrives last at %.0f%% of the collectives: the other ranks wait %s per step "
      "for it%s%s",
      (long long)c->rank, c->pct_last, fd_fmt_us(row.time_us, t), op ? ", after " : "",
      op ? op : "");
  row.advice =
      "Every other rank waits for this one at each collective: find what it does before them "
      "(evidence.before, and its part of the job's critical path) and even it out: unbalanced "
      "inputs (sequence lengths, batch composition), extra work on this rank only (logging, "
      "checkpointing, evaluation), a data loader that stalls, or a slower GPU or host.";
  rc = fd_emit(x, r, &row);
  return rc;
}

int fd_straggler(fd_ctx *x, const fd_rule *r) {
  sqlite3_stmt *st = 0;
  fg_cand *c = 0;
  size_t nc = 0, ac = 0;
  int64_t nranks = 0;
  int isnull;
  /* one rank in the job: nobody to wait for (and the collectives need not be read) */
  int rc =
      hta_query_int64(x->db, x->schema, "SELECT count(DISTINCT rank) FROM $T WHERE job_id = ?1", 1,
                      &x->job_id, &nranks, &isnull);
  if (rc != SQLITE_OK || nranks < 2) return rc;
  nranks = 0;
  rc = fd_query(x,
                "SELECT rank, trace_id, pct_arrived_last, times_arrived_last, num_collectives"
                " FROM hta_collective_ranks WHERE schema = ?1 AND job = ?2 AND all_types = 0"
                " AND include_last_profiler_step = 0 ORDER BY rank, trace_id",
                &st);
  /* FG-3: one candidate per rank; a rank's traces (profiling windows) are summed, as the
  ** collective instances name a rank, not a trace */
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    int64_t rank = sqlite3_column_int64(st, 0);
    if (!nc || c[nc - 1].rank != rank) {
      fg_cand v;
      memset(&v, 0, sizeof v);
      v.rank = rank;
      v.trace_id = sqlite3_column_int64(st, 1);
      HTA_PUSH(c, nc, ac, 4, v, fg_oom);
      nranks++;
    } else {
      c[nc - 1].trace_id = -1;
    }
    c[nc - 1].last += sqlite3_column_int64(st, 3);
    c[nc - 1].collectives += sqlite3_column_int64(st, 4);
    continue;
  fg_oom:
    rc = SQLITE_NOMEM;
  }
  rc = fd_done(st, rc);
  for (size_t k = 0; k < nc;) { /* keep the ranks that arrive last at >= 50% */
    c[k].pct_last = c[k].collectives ? 100.0 * (double)c[k].last / (double)c[k].collectives : NAN;
    if (c[k].pct_last >= 50.0) k++;
    else c[k] = c[--nc];
  }
  if (rc == SQLITE_OK && nc && nranks >= 2) {
    rc = fd_query(x,
                  "SELECT last_rank, ranks_present, avg_wait_us, last_rank_prev_op,"
                  " last_rank_prev_kernel, last_rank_gap_us FROM hta_collective_instances"
                  " WHERE schema = ?1 AND job = ?2 AND all_types = 0"
                  " AND include_last_profiler_step = 0",
                  &st);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      rc = SQLITE_OK; /* a row: carry on unless the body fails */
      int64_t last = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);
      if (sqlite3_column_type(st, 0) == SQLITE_NULL || n < 2) continue;
      for (size_t k = 0; k < nc && rc == SQLITE_OK; k++) {
        if (c[k].rank != last) continue;
        c[k].wait_us += sqlite3_column_double(st, 2) * (double)n / (double)(n - 1);
        rc = fd_tally_add(&c[k].ops, (const char *)sqlite3_column_text(st, 3), 1, 0);
        if (rc == SQLITE_OK)
          rc = fd_tally_add(&c[k].kernels, (const char *)sqlite3_column_text(st, 4), 1, 0);
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
          c[k].gap_us += sqlite3_column_double(st, 5);
          c[k].ngap++;
        }
      }
    }
    rc = fd_done(st, rc);
    for (size_t k = 0; rc == SQLITE_OK && k < nc; k++) rc = fgStragglerEmit(x, r, &c[k]);
  }
  for (size_t k = 0; k < nc; k++) {
    fd_tally_free(&c[k].ops);
    fd_tally_free(&c[k].kernels);
  }
  sqlite3_free(c);
  return rc;
}

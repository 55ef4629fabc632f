/*
** health.h: hta_trace_health, "can I trust this trace?" (health.c), as C for the
** other families: the findings' caveats read the same checks (one piece of code).
**
**   hta_health h = {0};
**   rc = hta_health_run(db, &scope, 0, 0, &h, &zErr);      // every check of one job
**   rc = hta_health_caveats(&h, trace_id, &zJson);  // '[{"check":"ranks_profiled","value":2,"text":"2 of 8 ...'
**   hta_health_free(&h);
**
** health.c turns the measures of health_trace.c (one trace's counts, read through
** SQL) and health_clock.c (the ranks' clock offsets, from the collectives) into
** rows with a verdict; the checks and their thresholds are listed in health.c.
*/
#ifndef HTA_HEALTH_H
#define HTA_HEALTH_H

#include "core/hta_common.h"

#define HTA_HEALTH_OK 0
#define HTA_HEALTH_WARN 1
#define HTA_HEALTH_FAIL 2

/* One check of one trace (or of the whole job: trace_id 0). */
typedef struct hta_health_row {
  int64_t trace_id; /* 0: a check of the whole job (rank NULL) */
  int64_t rank;
  const char *check; /* static: the check's name */
  hta_cell value;    /* what was measured (NULL: nothing to measure) */
  int has_threshold;
  double threshold; /* where the check stops being 'ok' (health.c's table) */
  int verdict;      /* HTA_HEALTH_* */
  char *detail;     /* JSON object, sqlite3_malloc'd */
  char *message;    /* one sentence for people, sqlite3_malloc'd */
} hta_health_row;

typedef struct hta_health {
  hta_health_row *a; /* the job's checks first, then each trace's in (rank, trace_id) order */
  size_t n, cap;
} hta_health;

/* Every check of the job in SC (only RANK's traces when HAS_RANK; the job's check
** always) into OUT, which the caller zeroes and frees with hta_health_free.
** Returns SQLITE_OK or an error (*pzErr may be set, sqlite3_malloc'd). */
int hta_health_run(sqlite3 *db, const hta_scope *sc, int has_rank, int64_t rank, hta_health *out,
                   char **pzErr);
void hta_health_free(hta_health *h);

/* The caveats DESIGN 11 puts under trace TRACE_ID's findings: a JSON list of
** {"check": name, "value": the check's value, "text": its message}, one per check that
** is not 'ok' among those that change what a finding means (ranks profiled, link
** coverage, steps, a truncated trace: health.c HL-4 says which), the job's first.
** *pz is sqlite3_malloc'd ("[]" when none). */
int hta_health_caveats(const hta_health *h, int64_t trace_id, char **pz);

/* ---------------------------------------------------------------- internal to ext/health */

/* One ProfilerStep of a trace. */
typedef struct hl_step {
  int64_t number, ts, dur;
  int64_t gpu_rows; /* kernels that start within it (HT-5) */
} hl_step;

/* What health_trace.c measures of one trace. Counts are 0 and has_* 0 when unknown. */
typedef struct hl_trace {
  int64_t trace_id, rank, event_count, world_size, min_ts, max_end;
  int has_world_size, has_span, has_dist_info;
  char *rank_source, *time_unit, *file_name; /* sqlite3_malloc'd; time_unit NULL if absent */
  char *same_rank; /* the other traces of the job with its rank, ", "-joined; NULL: none */
  /* the profiler's own log (Kineto's "Record counts" line and ERROR lines) */
  int has_record_counts;
  int64_t out_of_range, blocklisted, invalid_ext, out_of_order, unexpected, stopped_early;
  int64_t log_errors;
  char *first_error; /* sqlite3_malloc'd or NULL */
  int64_t devices;   /* rows in device */
  /* ingest_issue: events dropped or repaired, and the codes as a JSON object */
  int64_t repaired;
  char *repairs; /* JSON object {code: count}, sqlite3_malloc'd */
  /* GPU rows */
  int64_t gpu_rows, gpu_max_dur;
  double gpu_sum_dur;
  int64_t kernels, kernels_unlinked, kernels_before_window;
  int has_comm; /* a communication kernel (nccl, rccl) runs on it */
  /* host rows */
  int64_t launches, launches_unlinked, launches_in_ops, memsets, memsets_unlinked;
  int64_t launches_unlinked_last_step;
  /* flows */
  int64_t ac2g_flows, other_flows;
  /* steps, in ts order */
  hl_step *steps;
  size_t nsteps;
  int64_t engine_steps; /* without ProfilerStep: the engine's iterations (hta_engine_steps_load) */
  /* graph replays (graph/graph.h hg_coverage): GPU time under graph launches, of it the
  ** time matched to a captured operator (ns), and their counts; all 0 without launches */
  int64_t graph_replayed_ns, graph_matched_ns, graph_replayed, graph_matched;
  /* timestamps: the first events, and those with a sub-microsecond part */
  int64_t ts_sampled, ts_sub_us;
  /* the clock (health_clock.c) */
  int has_clock;
  double clock_offset_us;
  int64_t clock_collectives;
  double clock_min_us, clock_max_us;
} hl_trace;

/* Measures trace T of SC (health_trace.c). The ids are SQL lists "(1,2)" ("(-1)" when
** none): string ids of the launch calls, the memset calls and the communication
** kernels' names; category ids of GPU work and of ac2g flows. */
typedef struct hl_ids {
  char *launch_in, *memset_in, *kernel_cat_in, *ac2g_in, *comm_in;
} hl_ids;
int hl_ids_load(sqlite3 *db, const char *schema, hl_ids *ids);
void hl_ids_free(hl_ids *ids);
int hl_trace_measure(sqlite3 *db, const char *schema, const hl_ids *ids, hl_trace *t);
void hl_trace_clear(hl_trace *t);

/* Fills has_clock, clock_* of the N traces (of the job in SC, which has JOB_RANKS
** distinct ranks) from the collectives that end together on every rank (health_clock.c). */
int hl_clock(sqlite3 *db, const hta_scope *sc, int64_t job_ranks, hl_trace *t, size_t n);

#endif

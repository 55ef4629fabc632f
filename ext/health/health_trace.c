/*
** health_trace.c: what hta_trace_health measures of one trace (health.h, hl_trace),
** read through SQL on the analysis's connection; health.c judges it.
**
** Requirements (tests cite them as HT-n):
**  1. GPU work = rows with a stream and a dur; of them the "kernels" are the rows of
**     the GPU work categories (hta_is_kernel_category: kernels, copies, memsets).
**     A kernel without a launch has no link_id. One whose correlation id is below
**     the smallest of the trace's launch calls was launched before the profiling
**     window opened (CUPTI numbers calls in order, and the host side is recorded
**     from the window's start only): counted apart, as kernels_before_window.
**  2. Launch calls (a host row, no stream) are the runtime calls that put work on
**     a GPU queue (hta_queue_launch_names) but the memsets, plus graph launches and
**     synchronous copies; a launch without a kernel has no link_id. Memset calls are
**     counted apart: healthy traces have memset calls without a GPU row (cuBLAS's
**     workspace memsets in aten::addmm on an H100).
**  3. A launch call is inside a host operator when ingest gave it a call-stack
**     parent (parent_id): a trace recorded without CPU activity (GPU-only) has none.
**  4. Flows: flow starts (ph 's'); ac2g is Kineto's launch-to-GPU category, the one
**     TraceLens links kernels by; others (async, async_cpu_to_gpu, fwdbwd) apart.
**  5. Steps: the trace's profiler_step rows by ts; a step's GPU rows are the kernels
**     that start within its window [ts, ts + dur) (a GPU busy with one long kernel
**     through the step has none).
**  6. The profiler's log (metadata INFO/ERROR, written by Kineto when its log is
**     kept): every "Record counts:" line is summed field by field; ERROR lines are
**     counted and the first kept.
**  7. ingest_issue: every code about events (all but rank_from_file_name,
**     rank_default, shared_rank and file_failed) adds its count to `repaired`.
**  8. Timestamps: of the trace's first 10,000 events with a ts, those with a
**     sub-microsecond part (ts % 1000 != 0: ns resolution).
**
** HOW IT WORKS: a dozen small queries. The GPU ones read the partial covering
** index event_gpu; the one host query scans the trace's rowid range with a name_id
** test first, so that only the calls have their later columns read (about 0.15 s per
** million events).
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* HT-2: launch calls besides hta_queue_launch_names, and the memset calls. */
static const char *const htExtraLaunch[] = {
    "cudaGraphLaunch", "hipGraphLaunch",      "cudaMemcpy",
    "hipMemcpy",       "hipMemcpyWithStream", "cudaLaunchCooperativeKernel",
};
static const char *const htExtraMemset[] = {"cudaMemset", "hipMemset"};
#define HT_SAMPLE 10000 /* HT-8 */

/* ---------------------------------------------------------------- id lists */

/* Appends id V to the SQL list being built in S ("(" first). */
static void htListAdd(sqlite3_str *s, int64_t v) {
  sqlite3_str_appendf(s, "%s%lld", sqlite3_str_length(s) > 1 ? "," : "", (long long)v);
}

/* Closes list S: "(-1)" when empty. *pz owns it. */
static int htListEnd(sqlite3_str *s, char **pz) {
  if (sqlite3_str_length(s) == 1) sqlite3_str_appendall(s, "-1");
  sqlite3_str_appendchar(s, 1, ')');
  *pz = sqlite3_str_finish(s);
  return *pz ? SQLITE_OK : SQLITE_NOMEM;
}

/* The string ids of NAMES[0..n) that exist, added to S. */
static int htNameIds(sqlite3 *db, const char *schema, const char *const *names, size_t n,
                     sqlite3_str *s) {
  int32_t ids[32];
  int rc = hta_string_ids(db, schema, names, n, ids);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
    if (ids[i] >= 0) htListAdd(s, ids[i]);
  return rc;
}

int hl_ids_load(sqlite3 *db, const char *schema, hl_ids *ids) {
  sqlite3_str *l = sqlite3_str_new(db), *m = sqlite3_str_new(db);
  sqlite3_str *k = sqlite3_str_new(db), *h = sqlite3_str_new(db), *c = sqlite3_str_new(db);
  sqlite3_stmt *st = 0;
  const char *launch[HTA_NQUEUE_LAUNCH], *memset_[HTA_NQUEUE_LAUNCH];
  size_t nl = 0, nm = 0;
  int rc;
  memset(ids, 0, sizeof *ids);
  sqlite3_str_appendchar(l, 1, '(');
  sqlite3_str_appendchar(m, 1, '(');
  sqlite3_str_appendchar(k, 1, '(');
  sqlite3_str_appendchar(h, 1, '(');
  sqlite3_str_appendchar(c, 1, '(');
  for (int i = 0; i < HTA_NQUEUE_LAUNCH; i++) { /* HT-2 */
    if (strstr(hta_queue_launch_names[i], "Memset")) memset_[nm++] = hta_queue_launch_names[i];
    else launch[nl++] = hta_queue_launch_names[i];
  }
  rc = htNameIds(db, schema, launch, nl, l);
  if (rc == SQLITE_OK)
    rc = htNameIds(db, schema, htExtraLaunch, sizeof htExtraLaunch / sizeof htExtraLaunch[0], l);
  if (rc == SQLITE_OK) rc = htNameIds(db, schema, memset_, nm, m);
  if (rc == SQLITE_OK)
    rc = htNameIds(db, schema, htExtraMemset, sizeof htExtraMemset / sizeof htExtraMemset[0], m);
  if (rc == SQLITE_OK) /* HT-1, HT-3 */
    rc = hta_prepare(db, schema, "SELECT category_id, name FROM $S.category", &st);
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 1);
    int64_t id = sqlite3_column_int64(st, 0);
    if (!name) continue;
    if (hta_is_kernel_category(name)) htListAdd(k, id);
    if (!strcmp(name, "ac2g")) htListAdd(h, id); /* HT-4 */
  }
  if (st) rc = sqlite3_finalize(st);
  st = 0;
  /* the communication kernels' names, as the collectives read them (COL-1) */
  if (rc == SQLITE_OK)
    rc = hta_prepare(db, schema,
                     "SELECT string_id FROM $S.string WHERE value LIKE '%nccl%'"
                     " OR value LIKE '%rccl%'",
                     &st);
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    htListAdd(c, sqlite3_column_int64(st, 0));
  if (st) {
    int frc = sqlite3_finalize(st);
    if (rc == SQLITE_OK) rc = frc;
  }
  {
    int r1 = htListEnd(l, &ids->launch_in), r2 = htListEnd(m, &ids->memset_in);
    int r3 = htListEnd(k, &ids->kernel_cat_in), r4 = htListEnd(h, &ids->ac2g_in);
    int r5 = htListEnd(c, &ids->comm_in);
    if (rc == SQLITE_OK && (r1 || r2 || r3 || r4 || r5)) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK) hl_ids_free(ids);
  return rc;
}

void hl_ids_free(hl_ids *ids) {
  sqlite3_free(ids->launch_in);
  sqlite3_free(ids->memset_in);
  sqlite3_free(ids->kernel_cat_in);
  sqlite3_free(ids->ac2g_in);
  sqlite3_free(ids->comm_in);
  memset(ids, 0, sizeof *ids);
}

/* ---------------------------------------------------------------- queries */

/* Prepares SQL (printf-formatted: the id lists) on SCHEMA. */
static int htPrepare(sqlite3 *db, const char *schema, sqlite3_stmt **pp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  if (!sql) return SQLITE_NOMEM;
  int rc = hta_prepare(db, schema, sql, pp);
  sqlite3_free(sql);
  return rc;
}

/* Steps ST to its end; SQLITE_OK when it ended well. */
static int htDone(sqlite3_stmt *st, int rc) {
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  int frc = sqlite3_finalize(st);
  return rc == SQLITE_OK ? frc : rc;
}

static char *htDup(sqlite3_stmt *st, int col) {
  const char *z = (const char *)sqlite3_column_text(st, col);
  return z ? sqlite3_mprintf("%s", z) : 0;
}

/* The trace row, its devices, its rank's other traces (HT-6's text comes after). */
static int htTraceRow(sqlite3 *db, const char *schema, hl_trace *t) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(
      db, schema,
      "SELECT rank, rank_source, file_name, world_size, display_time_unit, event_count,"
      " min_ts, max_end,"
      " CASE WHEN json_valid(metadata) THEN json_type(metadata, '$.distributedInfo') END,"
      " (SELECT group_concat(file_name, ', ') FROM (SELECT o.file_name FROM $T o"
      "  WHERE o.job_id = t.job_id AND o.rank = t.rank AND o.trace_id != t.trace_id"
      "  ORDER BY o.trace_id)),"
      " (SELECT count(*) FROM $S.device d WHERE d.trace_id = t.trace_id)"
      " FROM $S.trace t WHERE trace_id = ?1",
      &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    t->rank = sqlite3_column_int64(st, 0);
    t->rank_source = htDup(st, 1);
    t->file_name = htDup(st, 2);
    t->has_world_size = sqlite3_column_type(st, 3) == SQLITE_INTEGER;
    t->world_size = sqlite3_column_int64(st, 3);
    t->time_unit = htDup(st, 4);
    t->event_count = sqlite3_column_int64(st, 5);
    t->has_span =
        sqlite3_column_type(st, 6) != SQLITE_NULL && sqlite3_column_type(st, 7) != SQLITE_NULL;
    t->min_ts = sqlite3_column_int64(st, 6);
    t->max_end = sqlite3_column_int64(st, 7);
    t->has_dist_info = sqlite3_column_type(st, 8) != SQLITE_NULL;
    t->same_rank = htDup(st, 9); /* NULL: no other trace has its rank */
    t->devices = sqlite3_column_int64(st, 10);
    rc = SQLITE_DONE;
  }
  return htDone(st, rc);
}

/* The number after KEY in Kineto's "Record counts: A = 1, B = 2" line Z; 0 when absent. */
static int64_t htCount(const char *z, const char *key) {
  const char *p = strstr(z, key);
  if (!p) return 0;
  p += strlen(key);
  while (*p == ' ' || *p == '=') p++;
  return strtoll(p, 0, 10);
}

/* HT-6: the profiler's log lines kept in the trace's metadata. */
static int htLog(sqlite3 *db, const char *schema, hl_trace *t) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT j.value FROM $S.trace t, json_each(t.metadata, '$.INFO') j"
                       " WHERE t.trace_id = ?1 AND json_valid(t.metadata)"
                       " AND json_type(t.metadata, '$.INFO') = 'array'"
                       " AND j.value LIKE '%Record counts:%'",
                       &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(st, 0);
    if (!z) continue;
    t->has_record_counts = 1;
    t->out_of_range += htCount(z, "Out-of-range");
    t->blocklisted += htCount(z, "Blocklisted runtime");
    t->invalid_ext += htCount(z, "Invalid ext correlations");
    t->out_of_order += htCount(z, "out-of-order");
    t->unexpected += htCount(z, "Unexpected CUDA events") + htCount(z, "Unexpected GPU events");
    t->stopped_early += htCount(z, "stopped early?"); /* "CUPTI stopped early?", "GPU ..." */
  }
  rc = htDone(st, rc);
  if (rc != SQLITE_OK) return rc;
  rc = hta_prepare(db, schema,
                   "SELECT CASE json_type(metadata, '$.ERROR') WHEN 'array' THEN"
                   " json_array_length(metadata, '$.ERROR') WHEN 'text' THEN 1 ELSE 0 END,"
                   " CASE json_type(metadata, '$.ERROR') WHEN 'array' THEN"
                   " json_extract(metadata, '$.ERROR[0]') WHEN 'text' THEN"
                   " json_extract(metadata, '$.ERROR') END"
                   " FROM $S.trace WHERE trace_id = ?1 AND json_valid(metadata)",
                   &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    t->log_errors = sqlite3_column_int64(st, 0);
    t->first_error = htDup(st, 1);
    rc = SQLITE_DONE;
  }
  return htDone(st, rc);
}

/* HT-7 */
static int htIssues(sqlite3 *db, const char *schema, hl_trace *t) {
  sqlite3_stmt *st = 0;
  sqlite3_str *s = sqlite3_str_new(db);
  int rc = hta_prepare(db, schema,
                       "SELECT code, sum(count) FROM $S.ingest_issue WHERE trace_id = ?1"
                       " AND code NOT IN ('rank_from_file_name', 'rank_default', 'shared_rank',"
                       " 'file_failed') GROUP BY code ORDER BY code",
                       &st);
  sqlite3_str_appendchar(s, 1, '{');
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, t->trace_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t n = sqlite3_column_int64(st, 1);
      sqlite3_str_appendf(s, "%s\"%w\":%lld", sqlite3_str_length(s) > 1 ? "," : "",
                          (const char *)sqlite3_column_text(st, 0), (long long)n);
      t->repaired = hta_add_sat(t->repaired, n);
    }
    rc = htDone(st, rc);
  }
  sqlite3_str_appendchar(s, 1, '}');
  t->repairs = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !t->repairs) rc = SQLITE_NOMEM;
  return rc;
}

/* HT-2, HT-3: the launch and memset calls, and the launches inside a host operator.
** Sets *first_corr (the smallest correlation of any of them; *has_first 0 when none).
** One aggregate row, no GROUP BY: a sort of the calls would cost as much as the scan. */
static int htLaunches(sqlite3 *db, const char *schema, const hl_ids *ids, hl_trace *t,
                      int64_t *first_corr, int *has_first) {
  sqlite3_stmt *st = 0;
  int rc = htPrepare(db, schema, &st,
                     "SELECT sum(NOT m), sum(NOT m AND link_id IS NULL),"
                     " sum(NOT m AND link_id IS NULL AND iteration = ?3), sum(m),"
                     " sum(m AND link_id IS NULL), min(correlation),"
                     " sum(NOT m AND parent_id IS NOT NULL)"
                     " FROM (SELECT name_id IN %s AS m, link_id, iteration, correlation, parent_id"
                     " FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
                     " AND (name_id IN %s OR name_id IN %s) AND stream IS NULL)",
                     ids->memset_in, ids->launch_in, ids->memset_in);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  if (t->nsteps) sqlite3_bind_int64(st, 3, t->steps[t->nsteps - 1].number);
  *has_first = 0;
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    t->launches = sqlite3_column_int64(st, 0);
    t->launches_unlinked = sqlite3_column_int64(st, 1);
    t->launches_unlinked_last_step = sqlite3_column_int64(st, 2);
    t->memsets = sqlite3_column_int64(st, 3);
    t->memsets_unlinked = sqlite3_column_int64(st, 4);
    *has_first = sqlite3_column_type(st, 5) != SQLITE_NULL;
    *first_corr = sqlite3_column_int64(st, 5);
    t->launches_in_ops = sqlite3_column_int64(st, 6);
    rc = SQLITE_DONE;
  }
  return htDone(st, rc);
}

/* HT-5: the index of the step whose window [ts, ts + dur) holds TS, -1 when none
** (steps by ts; of overlapping ones the last that starts at or before TS). */
static long htStepAt(const hl_trace *t, int64_t ts) {
  size_t lo = 0, hi = t->nsteps; /* the first step starting after ts */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->steps[mid].ts <= ts) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return -1;
  const hl_step *s = &t->steps[lo - 1];
  return ts < hta_end(s->ts, s->dur) ? (long)(lo - 1) : -1;
}

/* HT-1, HT-5: GPU rows, kernels and their links, the kernels starting in each step:
** one pass over the index, counted here. */
static int htGpu(sqlite3 *db, const char *schema, const hl_ids *ids, hl_trace *t,
                 int64_t first_corr, int has_first) {
  sqlite3_stmt *st = 0;
  int rc =
      htPrepare(db, schema, &st,
                "SELECT ts, dur, category_id IN %s, link_id IS NULL, correlation"
                " FROM $S.event WHERE trace_id = ?1 AND stream IS NOT NULL AND dur IS NOT NULL",
                ids->kernel_cat_in);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t ts = sqlite3_column_int64(st, 0), dur = sqlite3_column_int64(st, 1);
    t->gpu_rows++;
    t->gpu_sum_dur += (double)dur;
    if (t->gpu_rows == 1 || dur > t->gpu_max_dur) t->gpu_max_dur = dur;
    if (!sqlite3_column_int(st, 2)) continue;
    t->kernels++;
    if (sqlite3_column_int(st, 3)) {
      t->kernels_unlinked++;
      if (has_first && sqlite3_column_type(st, 4) != SQLITE_NULL &&
          sqlite3_column_int64(st, 4) < first_corr)
        t->kernels_before_window++;
    }
    if (t->nsteps) {
      long k = htStepAt(t, ts);
      if (k >= 0) t->steps[k].gpu_rows++;
    }
  }
  if ((rc = htDone(st, rc)) != SQLITE_OK) return rc;
  rc = htPrepare(db, schema, &st,
                 "SELECT EXISTS (SELECT 1 FROM $S.event WHERE trace_id = ?1 AND stream IS NOT NULL"
                 " AND name_id IN %s)",
                 ids->comm_in);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    t->has_comm = sqlite3_column_int(st, 0);
    rc = SQLITE_DONE;
  }
  return htDone(st, rc);
}

/* HT-5: the steps by ts. */
static int htSteps(sqlite3 *db, const char *schema, hl_trace *t) {
  sqlite3_stmt *st = 0;
  size_t cap = 0;
  int rc = hta_prepare(db, schema,
                       "SELECT step, ts, dur FROM $S.profiler_step WHERE trace_id = ?1"
                       " ORDER BY ts, step",
                       &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    hl_step s = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 2), 0};
    HTA_PUSH(t->steps, t->nsteps, cap, 16, s, steps_oom);
  }
  return htDone(st, rc);
steps_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

/* HT-4, HT-8: flows, the timestamps' resolution. */
static int htHost(sqlite3 *db, const char *schema, const hl_ids *ids, hl_trace *t) {
  sqlite3_stmt *st = 0;
  int64_t lo = hta_trace_first_id(t->trace_id), hi = hta_trace_last_id(t->trace_id);
  int rc;
  rc = htPrepare(db, schema, &st,
                 "SELECT count(*), sum(category_id IN %s) FROM $S.flow"
                 " WHERE flow_id BETWEEN ?1 AND ?2 AND ph = 's'",
                 ids->ac2g_in);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, lo);
  sqlite3_bind_int64(st, 2, hi);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    t->ac2g_flows = sqlite3_column_int64(st, 1);
    t->other_flows = sqlite3_column_int64(st, 0) - t->ac2g_flows;
    rc = SQLITE_DONE;
  }
  if ((rc = htDone(st, rc)) != SQLITE_OK) return rc;
  rc = hta_prepare(db, schema,
                   "SELECT count(*), sum(ts % 1000 != 0) FROM (SELECT ts FROM $S.event"
                   " WHERE event_id BETWEEN ?1 AND ?2 AND ts IS NOT NULL LIMIT ?3)",
                   &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, lo);
  sqlite3_bind_int64(st, 2, hi);
  sqlite3_bind_int(st, 3, HT_SAMPLE);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    t->ts_sampled = sqlite3_column_int64(st, 0);
    t->ts_sub_us = sqlite3_column_int64(st, 1);
    rc = SQLITE_DONE;
  }
  return htDone(st, rc);
}

int hl_trace_measure(sqlite3 *db, const char *schema, const hl_ids *ids, hl_trace *t) {
  int64_t first_corr = 0;
  int has_first = 0;
  int rc = htTraceRow(db, schema, t);
  if (rc == SQLITE_OK) rc = htLog(db, schema, t);
  if (rc == SQLITE_OK) rc = htIssues(db, schema, t);
  if (rc == SQLITE_OK) rc = htSteps(db, schema, t);
  if (rc == SQLITE_OK) rc = htLaunches(db, schema, ids, t, &first_corr, &has_first);
  if (rc == SQLITE_OK) rc = htGpu(db, schema, ids, t, first_corr, has_first);
  if (rc == SQLITE_OK) rc = htHost(db, schema, ids, t);
  return rc;
}

void hl_trace_clear(hl_trace *t) {
  sqlite3_free(t->rank_source);
  sqlite3_free(t->time_unit);
  sqlite3_free(t->file_name);
  sqlite3_free(t->same_rank);
  sqlite3_free(t->first_error);
  sqlite3_free(t->repairs);
  sqlite3_free(t->steps);
  memset(t, 0, sizeof *t);
}

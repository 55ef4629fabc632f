/*
** steps.c: the steps of a trace, for every analysis that reports per step
** (hta_steps_load, declared in hta_common.h). A training trace has ProfilerStep#N
** annotations; an inference server's trace has none, and its steps are the engine's
** iterations, which vLLM, SGLang and ATOM annotate (engine_ann.c says what each
** annotation holds). One function gives either, so a per-step analysis needs no
** second path:
**
**   hta_steps s;
**   int rc = hta_steps_load(db, t, -1, &s);                 // ProfilerSteps, else engine steps
**   int rc = hta_steps_load(db, t, HTA_PHASE_DECODE, &s);   // the decode iterations only
**   for (size_t i = 0; i < s.n; i++) ... s.a[i].ts, s.a[i].end, s.a[i].ann.phase ...
**   hta_steps_free(&s);
**
** Requirements (tests cite them as STP-n):
**  1. ProfilerSteps: the trace's rows of profiler_step (host ProfilerStep#N, D7) that
**     survive its last-step cut (ts below hta_trace_cut_bound), as hta_profiler_steps
**     lists them; number = N.
**  2. Engine steps: the trace's complete host events of category user_annotation
**     whose name is an iteration annotation (hta_engine_parse), starting below the
**     cut bound. An annotation inside another one on the same thread (pid, tid) is
**     the same iteration annotated twice (SGLang's step[DECODE bs=32] inside the
**     execute_32_context_0(...) annotation of TraceLens's patches): only the
**     outermost is a step, with its own name.
**  3. Steps come by (ts, event_id); an engine step's number is its position, from 0.
**  4. phase < 0: the ProfilerSteps when the trace has any, else the engine steps
**     (source says which; HTA_STEPS_NONE and no step when neither). phase >= 0: the
**     engine steps of that phase, numbered as among all engine steps.
**
** HOW IT WORKS: the candidate names are found first, by prefix ranges over the string
** table's unique index (execute_, step[, prefill[, decode[), and parsed once each; a
** database without any never scans events. Then one scan of the trace's rowid range
** keeps the events with those names (json_each of their ids).
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The names that may be iteration annotations, by prefix ranges of the unique index. */
static const char stpNamesSql[] =
    "SELECT string_id, value FROM $S.string WHERE value >= 'execute_' AND value < 'execute`'"
    " UNION ALL SELECT string_id, value FROM $S.string WHERE value >= 'step[' AND value < 'step\\'"
    " UNION ALL SELECT string_id, value FROM $S.string"
    "  WHERE value >= 'prefill[' AND value < 'prefill\\'"
    " UNION ALL SELECT string_id, value FROM $S.string"
    "  WHERE value >= 'decode[' AND value < 'decode\\'";

static const char stpEventsSql[] =
    "SELECT event_id, ts, dur, name_id, pid, tid FROM $S.event"
    " WHERE event_id BETWEEN ?1 AND ?2 AND ts < ?3 AND stream IS NULL AND dur IS NOT NULL"
    "  AND category_id = (SELECT category_id FROM $S.category WHERE name = 'user_annotation')"
    "  AND name_id IN (SELECT value FROM json_each(?4))";

/* A parsed candidate name. */
typedef struct stp_name {
  int32_t id;
  hta_engine_ann ann;
} stp_name;

static int stpNameCmp(const void *a, const void *b) {
  const stp_name *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

/* An annotation event with its thread, for the nesting rule (STP-2). */
typedef struct stp_ev {
  hta_step s;
  int64_t pid, tid;
} stp_ev;

static int stpThreadCmp(const void *a, const void *b) {
  const stp_ev *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->s.ts != y->s.ts) return x->s.ts < y->s.ts ? -1 : 1;
  if (x->s.end != y->s.end) return x->s.end > y->s.end ? -1 : 1; /* the outer one first */
  return (x->s.event_id > y->s.event_id) - (x->s.event_id < y->s.event_id);
}

static int stpTimeCmp(const void *a, const void *b) {
  const hta_step *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->event_id > y->event_id) - (x->event_id < y->event_id);
}

/* The iteration-annotation names of the database, by id, into *PV (*PN). */
static int stpNames(sqlite3 *db, const char *schema, stp_name **pv, size_t *pn) {
  sqlite3_stmt *st = 0;
  stp_name *v = 0;
  size_t n = 0, a = 0;
  int rc = hta_prepare(db, schema, stpNamesSql, &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    stp_name x;
    rc = SQLITE_OK;
    x.id = (int32_t)sqlite3_column_int64(st, 0);
    if (hta_engine_parse((const char *)sqlite3_column_text(st, 1), &x.ann))
      HTA_PUSH(v, n, a, 8, x, names_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) {
    sqlite3_free(v);
    return rc;
  }
  if (n) qsort(v, n, sizeof *v, stpNameCmp);
  *pv = v, *pn = n;
  return SQLITE_OK;
names_oom:
  sqlite3_finalize(st);
  sqlite3_free(v);
  return SQLITE_NOMEM;
}

/* The events of trace T named one of NAMES[0..nn), outermost per thread (STP-2). */
static int stpEvents(sqlite3 *db, const hta_trace *t, const stp_name *names, size_t nn,
                     hta_steps *out) {
  sqlite3_stmt *st = 0;
  stp_ev *v = 0;
  size_t n = 0, a = 0;
  sqlite3_str *ids = sqlite3_str_new(db);
  sqlite3_str_appendchar(ids, 1, '[');
  for (size_t i = 0; i < nn; i++) sqlite3_str_appendf(ids, "%s%d", i ? "," : "", names[i].id);
  sqlite3_str_appendchar(ids, 1, ']');
  int rc = sqlite3_str_errcode(ids);
  char *json = sqlite3_str_finish(ids);
  if (rc == SQLITE_OK && !json) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = hta_prepare(db, t->schema, stpEventsSql, &st);
  if (rc == SQLITE_OK) {
    hta_bind_trace_scan(st, t);
    sqlite3_bind_text(st, 4, json, -1, SQLITE_STATIC);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    stp_ev x;
    stp_name key, *hit;
    rc = SQLITE_OK;
    memset(&x, 0, sizeof x);
    x.s.event_id = sqlite3_column_int64(st, 0);
    x.s.ts = sqlite3_column_int64(st, 1);
    x.s.end = hta_end(x.s.ts, sqlite3_column_int64(st, 2));
    x.s.name_id = key.id = (int32_t)sqlite3_column_int64(st, 3);
    x.pid = hta_tid_key(sqlite3_column_value(st, 4));
    x.tid = hta_tid_key(sqlite3_column_value(st, 5));
    hit = bsearch(&key, names, nn, sizeof *names, stpNameCmp);
    if (!hit) continue;
    x.s.ann = hit->ann;
    HTA_PUSH(v, n, a, 16, x, events_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  sqlite3_free(json);
  json = 0;
  if (rc != SQLITE_OK) goto events_end;
  if (n) qsort(v, n, sizeof *v, stpThreadCmp);
  out->a = sqlite3_malloc64((n ? n : 1) * sizeof *out->a);
  if (!out->a) goto events_oom;
  for (size_t i = 0, last = 0; i < n; i++) {
    const stp_ev *k = out->n ? &v[last] : 0; /* the last step kept */
    if (k && k->pid == v[i].pid && k->tid == v[i].tid && v[i].s.ts >= k->s.ts &&
        v[i].s.end <= k->s.end)
      continue; /* the same iteration annotated twice */
    out->a[out->n++] = v[i].s;
    last = i;
  }
  qsort(out->a, out->n, sizeof *out->a, stpTimeCmp);
  for (size_t i = 0; i < out->n; i++) out->a[i].number = (int64_t)i;
  out->source = out->n ? HTA_STEPS_ENGINE : HTA_STEPS_NONE;
  goto events_end;
events_oom:
  rc = SQLITE_NOMEM;
events_end:
  sqlite3_finalize(st);
  sqlite3_free(json);
  sqlite3_free(v);
  return rc;
}

int hta_engine_steps_load(sqlite3 *db, const hta_trace *t, hta_steps *out) {
  stp_name *names = 0;
  size_t nn = 0;
  memset(out, 0, sizeof *out);
  int rc = stpNames(db, t->schema, &names, &nn);
  if (rc == SQLITE_OK && nn) rc = stpEvents(db, t, names, nn, out);
  sqlite3_free(names);
  if (rc != SQLITE_OK) hta_steps_free(out);
  return rc;
}

/* STP-1 */
static int stpProfiler(sqlite3 *db, const hta_trace *t, hta_steps *out) {
  sqlite3_stmt *st = 0;
  size_t a = 0;
  int rc = hta_prepare(db, t->schema,
                       "SELECT p.step, p.ts, p.dur, p.event_id, e.name_id FROM $S.profiler_step p"
                       " LEFT JOIN $S.event e ON e.event_id = p.event_id"
                       " WHERE p.trace_id = ?1 AND p.ts < ?2 ORDER BY p.ts, p.event_id",
                       &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, t->trace_id);
    sqlite3_bind_int64(st, 2, hta_trace_cut_bound(t));
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    hta_step x;
    rc = SQLITE_OK;
    memset(&x, 0, sizeof x);
    x.number = sqlite3_column_int64(st, 0);
    x.ts = sqlite3_column_int64(st, 1);
    x.end = hta_end(x.ts, sqlite3_column_int64(st, 2));
    x.event_id = sqlite3_column_int64(st, 3);
    x.name_id = (int32_t)sqlite3_column_int64(st, 4);
    x.ann.batch_size = x.ann.tokens = x.ann.ctx_requests = x.ann.gen_requests = -1;
    x.ann.ctx_tokens = x.ann.gen_tokens = -1;
    HTA_PUSH(out->a, out->n, a, 16, x, prof_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  if (out->n) out->source = HTA_STEPS_PROFILER;
  return rc;
prof_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

int hta_steps_load(sqlite3 *db, const hta_trace *t, int phase, hta_steps *out) {
  int rc;
  memset(out, 0, sizeof *out);
  if (phase < 0) {
    rc = stpProfiler(db, t, out);
    if (rc != SQLITE_OK || out->n) {
      if (rc != SQLITE_OK) hta_steps_free(out);
      return rc;
    }
    return hta_engine_steps_load(db, t, out);
  }
  rc = hta_engine_steps_load(db, t, out);
  if (rc != SQLITE_OK) return rc;
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++) {
    if (out->a[i].ann.phase == phase) out->a[k++] = out->a[i];
  }
  out->n = k;
  if (!k) out->source = HTA_STEPS_NONE;
  return SQLITE_OK;
}

void hta_steps_free(hta_steps *s) {
  sqlite3_free(s->a);
  memset(s, 0, sizeof *s);
}

long hta_steps_find(const hta_steps *s, int64_t ts) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) { /* the first step starting after ts */
    size_t mid = lo + (hi - lo) / 2;
    if (s->a[mid].ts <= ts) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && ts <= s->a[lo - 1].end ? (long)(lo - 1) : -1;
}

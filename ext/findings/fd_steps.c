/*
** fd_steps.c: fd_steps_load (fd.h), the analysed steps of every trace of a findings run:
** the one function that says what a step is (DESIGN 11 "Per step").
**
** Requirements (tests cite them as FS-n):
**  1. A trace's steps are its host ProfilerStep#N rows (table profiler_step) that
**     survive the last-step cut of every analysis (a step whose ts is at or past the
**     trace's cut bound is dropped: hta_profiler_steps' rows), ascending by start; a
**     step that starts before the previous one ends is clipped to start there (steps
**     never overlap, so no nanosecond counts twice).
**  2. A trace with no such step has as steps its engine iterations, the annotations
**     vLLM, SGLang and ATOM write around each forward pass (hta_engine_steps_load,
**     core/steps.c STP-2: the steps hta_inference_steps shows), clipped as in FS-1,
**     numbered from 0, and engine_steps = 1; a trace with neither has one step, its
**     window [min_ts, max_end), number -1, and no_steps = 1. A caveat says which
**     (fd_health.c). A host row of an engine step carries no step number (its
**     iteration is a ProfilerStep's), so fd_in_steps keeps every host row of such a
**     trace, as of a window.
**  3. Every step starts typical; fd_account.c marks the outliers.
**  4. fd_steps_extend: a ProfilerStep is the host's span, but a host that runs ahead of
**     the GPU launches step N's work during steps N+1, N+2... So the accounting's step
**     N is [S_N, E_N): E_N = the later of its host end and the end of the last GPU row
**     launched from its host span, S_N = the later of its host start and E_(N-1). Steps
**     stay disjoint; each holds its own GPU work; a step that another's GPU work covers
**     entirely has no length and is no typical step. Engine steps are extended the
**     same way (an engine's host loop runs ahead of the GPU as a training loop does);
**     the window of a trace without steps is not changed.
*/
#include <string.h>

#include "findings/fd.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Appends step [START, END) number N to U (ascending by start), clipped to start where
** the previous one ends (FS-1); an empty step is left out. */
static int fsPush(fd_unit *u, size_t *cap, int64_t n, int64_t start, int64_t end) {
  fd_step s = {n, start, end, 1};
  if (u->nsteps && s.start < u->steps[u->nsteps - 1].end) s.start = u->steps[u->nsteps - 1].end;
  if (s.end <= s.start) return SQLITE_OK; /* empty, or inside the previous step */
  HTA_PUSH(u->steps, u->nsteps, *cap, 8, s, push_oom);
  return SQLITE_OK;
push_oom:
  return SQLITE_NOMEM;
}

/* FS-1: U's ProfilerSteps into U->steps. */
static int fsProfilerSteps(sqlite3_stmt *st, fd_unit *u) {
  size_t cap = 0;
  int rc;
  sqlite3_bind_int64(st, 1, u->trace_id);
  sqlite3_bind_int64(st, 2, hta_trace_cut_bound(u->t));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t ts = sqlite3_column_int64(st, 1);
    rc = fsPush(u, &cap, sqlite3_column_int64(st, 0), ts, hta_end(ts, sqlite3_column_int64(st, 2)));
    if (rc != SQLITE_OK) break;
  }
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* FS-2: U's engine iterations into U->steps (U has no ProfilerStep). */
static int fsEngineSteps(fd_ctx *x, fd_unit *u) {
  hta_steps es;
  size_t cap = 0;
  int rc = hta_engine_steps_load(x->db, u->t, &es);
  for (size_t i = 0; rc == SQLITE_OK && i < es.n; i++)
    rc = fsPush(u, &cap, es.a[i].number, es.a[i].ts, es.a[i].end);
  hta_steps_free(&es);
  u->engine_steps = rc == SQLITE_OK && u->nsteps > 0;
  return rc;
}

void fd_steps_extend(fd_unit *u, const int64_t *launch, const int64_t *end, size_t n) {
  if (u->no_steps || !u->nsteps) return; /* FS-4: ProfilerSteps and engine steps */
  int64_t *gpu_end = sqlite3_malloc64(u->nsteps * sizeof *gpu_end);
  if (!gpu_end) return; /* the host spans stay: a coarser answer, not a wrong one */
  for (size_t s = 0; s < u->nsteps; s++) gpu_end[s] = u->steps[s].end;
  for (size_t i = 0; i < n; i++) {
    long s = fd_step_at(u, launch[i]);
    if (s >= 0 && end[i] > gpu_end[s]) gpu_end[s] = end[i];
  }
  int64_t prev = INT64_MIN;
  for (size_t s = 0; s < u->nsteps; s++) { /* FS-4 */
    fd_step *st = &u->steps[s];
    if (st->start < prev) st->start = prev;
    st->end = gpu_end[s] > st->start ? gpu_end[s] : st->start;
    if (st->end <= st->start) st->typical = 0;
    prev = st->end;
  }
  sqlite3_free(gpu_end);
}

int fd_steps_load(fd_ctx *x) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(x->db, x->schema,
                       "SELECT step, ts, dur FROM $S.profiler_step WHERE trace_id = ?1"
                       " AND ts < ?2 AND dur > 0 ORDER BY ts, step",
                       &st);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    fd_unit *u = &x->u[i];
    rc = fsProfilerSteps(st, u);
    if (rc == SQLITE_OK && u->nsteps == 0) rc = fsEngineSteps(x, u);
    if (rc == SQLITE_OK && u->nsteps == 0 && u->t->max_end > u->t->min_ts) { /* FS-2 */
      fd_step w = {-1, u->t->min_ts, u->t->max_end, 1};
      u->steps = sqlite3_malloc64(sizeof *u->steps);
      if (!u->steps) rc = SQLITE_NOMEM;
      else u->steps[u->nsteps++] = w;
      u->no_steps = 1;
    }
    u->ntypical = (int64_t)u->nsteps; /* FS-3 */
  }
  sqlite3_finalize(st);
  return rc;
}

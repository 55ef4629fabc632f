/*
** test_steps.c: a trace's steps (ext/core/steps.c, STP-n): ProfilerSteps first, else the
** engine's iterations, the phase filter, the last-step cut, and hta_steps_find.
** One trace (times in µs here, ns in the database), thread (1, 1):
**   ProfilerStep#1 [0, 300], ProfilerStep#2 [300, 600]
**   execute_context_1(8)_generation_0(0) [0, 100]      prefill     engine step 0
**   execute_context_0(0)_generation_4(4) [200, 250]    decode      engine step 1
**   execute_context_0(0)_generation_4(4) [400, 450]    decode      engine step 2
**   execute_context_2(9)_generation_1(1) [500, 550]    mixed       engine step 3
*/
#include <stdint.h>
#include <string.h>

#include "core/hta_common.h"
#include "schema_sql.h"
#include "testutil.h"

static const char setup[] =
    "INSERT INTO job(job_id, name) VALUES (1, 'j');"
    "INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash,"
    " event_count, min_ts, max_end) VALUES (1, 1, 0, 'default', 'r0.json', 0, 'h', 6, 0, 600000);"
    "INSERT INTO category(category_id, name) VALUES (1, 'user_annotation');"
    "INSERT INTO string(string_id, value) VALUES (1, 'ProfilerStep#1'), (2, 'ProfilerStep#2'),"
    " (3, 'execute_context_1(8)_generation_0(0)'), (4, 'execute_context_0(0)_generation_4(4)'),"
    " (5, 'execute_context_2(9)_generation_1(1)');"
    "INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur)"
    " VALUES ((1 << 32) | 1, 1, 0, 1, 'X', 1, 1, 1, 1, 0, 300000),"
    " ((1 << 32) | 2, 1, 0, 2, 'X', 1, 2, 1, 1, 300000, 300000),"
    " ((1 << 32) | 3, 1, 0, 3, 'X', 1, 3, 1, 1, 0, 100000),"
    " ((1 << 32) | 4, 1, 0, 4, 'X', 1, 4, 1, 1, 200000, 50000),"
    " ((1 << 32) | 5, 1, 0, 5, 'X', 1, 4, 1, 1, 400000, 50000),"
    " ((1 << 32) | 6, 1, 0, 6, 'X', 1, 5, 1, 1, 500000, 50000);"
    "INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES"
    " (1, 1, (1 << 32) | 1, 0, 300000), (1, 2, (1 << 32) | 2, 300000, 300000);";

/* The steps of the one trace: PHASE as hta_steps_load's, CUT = the last-step cut. */
static int load(sqlite3 *db, int cut, int phase, hta_steps *s) {
  hta_scope sc = {"main", 1};
  hta_traces tr;
  int rc = hta_traces_load(db, &sc, 0, 0, !cut, &tr);
  CHECK_INT(rc, SQLITE_OK);
  CHECK_INT(tr.n, 1);
  rc = tr.n ? hta_steps_load(db, &tr.a[0], phase, s) : SQLITE_ERROR;
  hta_traces_free(&tr);
  return rc;
}

int main(void) {
  sqlite3 *db = 0;
  hta_steps s;
  CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, HTA_SCHEMA_SQL, 0, 0, 0), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, setup, 0, 0, 0), SQLITE_OK);

  /* STP-1, STP-4: ProfilerSteps first; the cut keeps steps starting before #2 */
  CHECK_INT(load(db, 1, -1, &s), SQLITE_OK);
  CHECK_INT(s.source, HTA_STEPS_PROFILER);
  CHECK_INT(s.n, 1);
  CHECK_INT(s.n ? s.a[0].number : -1, 1);
  hta_steps_free(&s);
  CHECK_INT(load(db, 0, -1, &s), SQLITE_OK);
  CHECK_INT(s.n, 2);
  CHECK_INT(s.n == 2 ? s.a[1].number * 1000000 + s.a[1].ts / 1000 + s.a[1].end / 1000 : -1,
            2 * 1000000 + 300 + 600);
  CHECK_INT(s.n ? s.a[0].ann.phase : -1, HTA_PHASE_NONE);
  hta_steps_free(&s);

  /* STP-4: a phase asks for engine steps, numbered among all of them */
  CHECK_INT(load(db, 0, HTA_PHASE_DECODE, &s), SQLITE_OK);
  CHECK_INT(s.source, HTA_STEPS_ENGINE);
  CHECK_INT(s.n, 2);
  CHECK_INT(s.n == 2 ? s.a[0].number * 10 + s.a[1].number : -1, 12);
  CHECK_INT(s.n == 2 ? s.a[1].ts : -1, 400000);
  CHECK_INT(s.n == 2 ? s.a[1].ann.batch_size : -1, 4);
  hta_steps_free(&s);
  /* the cut drops the engine steps that start at or after #2 (STP-2) */
  CHECK_INT(load(db, 1, HTA_PHASE_DECODE, &s), SQLITE_OK);
  CHECK_INT(s.n, 1);
  hta_steps_free(&s);
  CHECK_INT(load(db, 0, HTA_PHASE_MIXED, &s), SQLITE_OK);
  CHECK_INT(s.n, 1);
  CHECK_INT(s.n ? s.a[0].number : -1, 3);
  CHECK_INT(s.n ? s.a[0].ann.batch_size : -1, 3);
  hta_steps_free(&s);
  CHECK_INT(load(db, 0, HTA_PHASE_NONE, &s), SQLITE_OK); /* no idle step */
  CHECK_INT(s.n, 0);
  CHECK_INT(s.source, HTA_STEPS_NONE);
  hta_steps_free(&s);

  /* without ProfilerSteps: the engine steps (STP-4), all four, by time (STP-3) */
  CHECK_INT(sqlite3_exec(db, "DELETE FROM profiler_step", 0, 0, 0), SQLITE_OK);
  CHECK_INT(load(db, 1, -1, &s), SQLITE_OK);
  CHECK_INT(s.source, HTA_STEPS_ENGINE);
  CHECK_INT(s.n, 4);
  for (size_t i = 0; i < s.n; i++) CHECK_INT(s.a[i].number, (int64_t)i);
  CHECK_INT(s.n == 4 ? s.a[3].ann.phase : -1, HTA_PHASE_MIXED);
  /* hta_steps_find: the step whose span holds a time */
  CHECK_INT(hta_steps_find(&s, 0), 0);
  CHECK_INT(hta_steps_find(&s, 100000), 0);
  CHECK_INT(hta_steps_find(&s, 150000), -1);
  CHECK_INT(hta_steps_find(&s, 420000), 2);
  CHECK_INT(hta_steps_find(&s, -5), -1);
  CHECK_INT(hta_steps_find(&s, 999999), -1);
  hta_steps_free(&s);

  /* no annotation name at all: no step, no event scan */
  CHECK_INT(sqlite3_exec(db, "UPDATE string SET value = 'x' || value", 0, 0, 0), SQLITE_OK);
  CHECK_INT(load(db, 0, -1, &s), SQLITE_OK);
  CHECK_INT(s.n, 0);
  CHECK_INT(s.source, HTA_STEPS_NONE);
  hta_steps_free(&s);
  sqlite3_close(db);
  return tu_summary("test_steps");
}

/*
** test_health.c: the C side of hta_trace_health that other families use (ext/health/health.h):
** hta_health_run gives a job's checks as rows, and hta_health_caveats the checks a finding
** should carry, {check, value, text} (health.c HL-4), on a job written here: two ranks of a world of 4, rank 0's two
** kernels without their launch (correlation lost), neither trace with a ProfilerStep or flows.
*/
#include <string.h>

#include "core/hta_common.h"
#include "health/health.h"
#include "schema_sql.h"
#include "testutil.h"

static const char data[] =
    "INSERT INTO job(job_id, name) VALUES (1, 'j');"
    "INSERT INTO category(category_id, name) VALUES (1, 'kernel'), (2, 'cuda_runtime');"
    "INSERT INTO string(string_id, value) VALUES (1, 'gemm'), (2, 'cudaLaunchKernel');"
    "INSERT INTO trace(trace_id, job_id, rank, rank_source, file_name, file_size, content_hash,"
    " world_size, event_count, min_ts, max_end, metadata) VALUES"
    " (1, 1, 0, 'distributedInfo', 'r0.json', 0, 'a', 4, 4, 1000, 3000, "
    "'{\"distributedInfo\":{}}'),"
    " (2, 1, 1, 'distributedInfo', 'r1.json', 0, 'b', 4, 4, 1000, 3000, "
    "'{\"distributedInfo\":{}}');"
    /* rank 0: two kernels, no correlation; rank 1: two kernels and their launches */
    "INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, tid, ts, dur,"
    " stream, correlation, link_id) VALUES"
    " ((1 << 32) | 0, 1, 0, 0, 'X', 1, 1, 0, 7, 1000, 500, 7, NULL, NULL),"
    " ((1 << 32) | 1, 1, 0, 1, 'X', 1, 1, 0, 7, 2000, 500, 7, NULL, NULL),"
    " ((2 << 32) | 0, 2, 1, 0, 'X', 1, 1, 0, 7, 1000, 500, 7, 5, (2 << 32) | 2),"
    " ((2 << 32) | 1, 2, 1, 1, 'X', 1, 1, 0, 7, 2000, 500, 7, 6, (2 << 32) | 3),"
    " ((2 << 32) | 2, 2, 1, 2, 'X', 2, 2, 1, 1, 900, 50, NULL, 5, (2 << 32) | 0),"
    " ((2 << 32) | 3, 2, 1, 3, 'X', 2, 2, 1, 1, 1900, 50, NULL, 6, (2 << 32) | 1);";

/* The index of CHECK of trace TRACE_ID (0: the job's) in H, -1. */
static long find(const hta_health *h, int64_t trace_id, const char *check) {
  for (size_t i = 0; i < h->n; i++)
    if (h->a[i].trace_id == trace_id && !strcmp(h->a[i].check, check)) return (long)i;
  return -1;
}

int main(void) {
  sqlite3 *db;
  hta_health h;
  char *z = 0, *zErr = 0;
  memset(&h, 0, sizeof h);
  CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, HTA_SCHEMA_SQL, 0, 0, 0), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, data, 0, 0, 0), SQLITE_OK);
  hta_scope sc = {"main", 1};

  /* HL-1: the job's check, then 20 per trace */
  CHECK_INT(hta_health_run(db, &sc, 0, 0, &h, &zErr), SQLITE_OK);
  CHECK_INT(h.n, 1 + 2 * 20);
  CHECK_STR(h.a[0].check, "ranks_profiled");
  CHECK_INT(h.a[0].verdict, HTA_HEALTH_WARN);
  long k = find(&h, 1, "kernels_without_launch");
  CHECK(k > 0 && h.a[k].verdict == HTA_HEALTH_FAIL && h.a[k].value.type == SQLITE_FLOAT &&
        h.a[k].value.v.d == 100.0);
  k = find(&h, 2, "kernels_without_launch");
  CHECK(k > 0 && h.a[k].verdict == HTA_HEALTH_OK && h.a[k].value.v.d == 0.0);
  k = find(&h, 1, "flows");
  CHECK(k > 0 && h.a[k].verdict == HTA_HEALTH_OK); /* no launch with a kernel: nothing to flow */
  k = find(&h, 2, "flows");
  CHECK(k > 0 && h.a[k].verdict == HTA_HEALTH_WARN);

  /* HL-4: trace 1's caveats are the job's ranks_profiled, its kernels without launch and its
  ** missing steps, in row order; not its flows or devices (no caveat of a finding) */
  CHECK_INT(hta_health_caveats(&h, 1, &z), SQLITE_OK);
  {
    sqlite3_stmt *st = 0;
    CHECK_INT(sqlite3_prepare_v2(db,
                                 "SELECT json_valid(?1), json_array_length(?1),"
                                 " json_extract(?1, '$[0].text'), json_extract(?1, '$[1].text'),"
                                 " json_extract(?1, '$[2].text'),"
                                 " json_extract(?1, '$[0].check') || ':' || json_extract(?1, "
                                 "'$[0].value') || ' ' || json_extract(?1, '$[1].check') || ':' ||"
                                 " json_extract(?1, '$[1].value') || ' ' || json_extract(?1, "
                                 "'$[2].check') || ':' || json_extract(?1, '$[2].value')",
                                 -1, &st, 0),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, z, -1, SQLITE_STATIC);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(st, 0), 1);
    CHECK_INT(sqlite3_column_int(st, 1), 3);
    CHECK(!strncmp((const char *)sqlite3_column_text(st, 2), "2 of 4 ranks profiled", 21));
    CHECK(!strncmp((const char *)sqlite3_column_text(st, 3), "100.0% of kernels (2 of 2)", 26));
    CHECK(!strncmp((const char *)sqlite3_column_text(st, 4), "no ProfilerStep", 15));
    CHECK_STR((const char *)sqlite3_column_text(st, 5),
              "ranks_profiled:2 kernels_without_launch:100.0 steps:0");
    sqlite3_finalize(st);
  }
  sqlite3_free(z);
  /* trace 2: the job's and its own missing steps */
  CHECK_INT(hta_health_caveats(&h, 2, &z), SQLITE_OK);
  CHECK(z && strstr(z, "ranks profiled") && strstr(z, "no ProfilerStep") && !strstr(z, "kernels"));
  sqlite3_free(z);
  hta_health_free(&h);

  /* HL-1: one rank: its checks, and the job's (its caveats hold it) */
  CHECK_INT(hta_health_run(db, &sc, 1, 1, &h, &zErr), SQLITE_OK);
  CHECK_INT(h.n, 1 + 20);
  CHECK_INT(find(&h, 0, "ranks_profiled"), 0);
  CHECK_INT(find(&h, 1, "steps"), -1);
  CHECK_INT(hta_health_caveats(&h, 2, &z), SQLITE_OK);
  CHECK(z && strstr(z, "2 of 4 ranks profiled"));
  sqlite3_free(z);
  hta_health_free(&h);
  /* a world of 2: every rank profiled, so only the missing steps remain of trace 2's caveats */
  CHECK_INT(sqlite3_exec(db, "UPDATE trace SET world_size = 2", 0, 0, 0), SQLITE_OK);
  CHECK_INT(hta_health_run(db, &sc, 0, 0, &h, &zErr), SQLITE_OK);
  CHECK_INT(h.a[0].verdict, HTA_HEALTH_OK);
  CHECK_INT(hta_health_caveats(&h, 2, &z), SQLITE_OK);
  CHECK_STR(z,
            "[{\"check\":\"steps\",\"value\":0,\"text\":\"no ProfilerStep: the per-step "
            "analyses see the whole window (2.00 \xC2\xB5s) as one step\"}]");
  sqlite3_free(z);
  hta_health_free(&h);
  sqlite3_free(zErr);
  sqlite3_close(db);
  return tu_summary("test_health");
}

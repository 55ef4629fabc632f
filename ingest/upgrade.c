/*
** upgrade.c: schema 1 -> 2 (upgrade.h); 2 -> 3 -> 4 are schema.sql's CREATEs of device_peak
** and capture.
**
** HOW IT WORKS: the current job and trace definitions are read back from a scratch
** in-memory database built from the schema text, so they are written once (schema.sql).
** In one IMMEDIATE transaction: job is created, the jobs are computed in C from the
** traces' paths, trace is copied into a table of the new definition with each row's
** job_id, the old table dropped and the new one renamed. A failure rolls it all back.
*/
#include "upgrade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int up_version(sqlite3 *db, const char *schema) {
  char *sql = sqlite3_mprintf(
      "SELECT (SELECT count(*) FROM pragma_table_info('trace', %Q)),"
      " (SELECT count(*) FROM pragma_table_info('trace', %Q)"
      "  WHERE name = 'job_id'),"
      " (SELECT count(*) FROM pragma_table_info('meta', %Q)),"
      " (SELECT count(*) FROM pragma_table_info('device_peak', %Q)),"
      " (SELECT count(*) FROM pragma_table_info('capture', %Q))",
      schema, schema, schema, schema, schema);
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    int has_trace = sqlite3_column_int(st, 0) > 0, has_job = sqlite3_column_int(st, 1) > 0;
    int has_meta = sqlite3_column_int(st, 2) > 0, has_peak = sqlite3_column_int(st, 3) > 0;
    int has_capture = sqlite3_column_int(st, 4) > 0;
    v = has_trace && !has_job       ? 1
        : has_trace && !has_peak    ? 2
        : has_trace && !has_capture ? 3
                                    : UP_SCHEMA;
    sqlite3_finalize(st);
    st = NULL;
    sqlite3_free(sql);
    sql = has_meta
              ? sqlite3_mprintf("SELECT value FROM %w.meta WHERE key = 'schema_version'", schema)
              : NULL;
    /* a newer schema says so in meta: never write what we do not know */
    if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      int m = sqlite3_column_int(st, 0);
      if (m > UP_SCHEMA) v = m;
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return v;
}

void up_parent(const char *path, char *dir, size_t dn, char *name, size_t nn) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  dir[0] = name[0] = 0;
  if (!slash) return;
  snprintf(dir, dn, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  const char *b = strrchr(dir, '/');
  snprintf(name, nn, "%s", b && b[1] ? b + 1 : dir);
}

static int up_fail(sqlite3 *db, char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "upgrade: %s: %s", what, sqlite3_errmsg(db));
  return -1;
}

/* The stored CREATE TABLE of TABLE in a database built from SCHEMA_SQL, as a new
** string (sqlite3_free), or NULL. */
static char *up_ddl(const char *schema_sql, const char *table) {
  sqlite3 *mem = NULL;
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  if (sqlite3_open(":memory:", &mem) == SQLITE_OK &&
      sqlite3_exec(mem, schema_sql, NULL, NULL, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(mem, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", -1,
                         &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      out = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(mem);
  return out;
}

/* The jobs: one per distinct parent directory, in order of first trace; fills
** temp._hta_up(trace_id, job_id). Returns the number of jobs, or -1. */
static int64_t up_jobs(sqlite3 *db, int64_t *traces) {
  sqlite3_stmt *sel = NULL, *find = NULL, *taken = NULL, *ins = NULL, *map = NULL;
  int64_t njobs = 0, rc = -1;
  char now[32];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  *traces = 0;
  if (sqlite3_exec(db, "CREATE TEMP TABLE _hta_up(trace_id INTEGER PRIMARY KEY, job_id)", NULL,
                   NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "SELECT trace_id, coalesce(file_path, file_name) FROM main.trace"
                         " ORDER BY trace_id",
                         -1, &sel, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT job_id FROM main.job WHERE source IS ?", -1, &find, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT 1 FROM main.job WHERE name = ?", -1, &taken, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO main.job(name, source, created_at) VALUES (?, ?, ?)", -1,
                         &ins, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO temp._hta_up(trace_id, job_id) VALUES (?, ?)", -1, &map,
                         NULL) != SQLITE_OK)
    goto end;
  int r;
  while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
    char dir[4096], base[1024], name[1100];
    up_parent((const char *)sqlite3_column_text(sel, 1), dir, sizeof dir, base, sizeof base);
    if (!base[0]) snprintf(base, sizeof base, "default");
    int64_t job = -1;
    if (dir[0]) sqlite3_bind_text(find, 1, dir, -1, SQLITE_STATIC);
    else sqlite3_bind_null(find, 1);
    if (sqlite3_step(find) == SQLITE_ROW) job = sqlite3_column_int64(find, 0);
    sqlite3_reset(find);
    if (job < 0) { /* a new directory: the first free name of base, base-2, base-3... */
      snprintf(name, sizeof name, "%s", base);
      for (int k = 2;; k++) {
        sqlite3_bind_text(taken, 1, name, -1, SQLITE_STATIC);
        int used = sqlite3_step(taken) == SQLITE_ROW;
        sqlite3_reset(taken);
        if (!used) break;
        snprintf(name, sizeof name, "%s-%d", base, k);
      }
      sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
      if (dir[0]) sqlite3_bind_text(ins, 2, dir, -1, SQLITE_STATIC);
      else sqlite3_bind_null(ins, 2);
      sqlite3_bind_text(ins, 3, now, -1, SQLITE_STATIC);
      if (sqlite3_step(ins) != SQLITE_DONE) goto end;
      sqlite3_reset(ins);
      job = sqlite3_last_insert_rowid(db);
      njobs++;
    }
    sqlite3_bind_int64(map, 1, sqlite3_column_int64(sel, 0));
    sqlite3_bind_int64(map, 2, job);
    if (sqlite3_step(map) != SQLITE_DONE) goto end;
    sqlite3_reset(map);
    (*traces)++;
  }
  if (r == SQLITE_DONE) rc = njobs;
end:
  sqlite3_finalize(sel);
  sqlite3_finalize(find);
  sqlite3_finalize(taken);
  sqlite3_finalize(ins);
  sqlite3_finalize(map);
  return rc;
}

/* "a", "b", ...: the columns of the old trace that the new one has too, as a new
** string with each prefixed by PREFIX (sqlite3_free), or NULL. */
static char *up_columns(sqlite3 *db, const char *prefix) {
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT o.name FROM pragma_table_info('trace', 'main') o"
                         " JOIN pragma_table_info('_hta_trace_v2', 'main') n USING (name)"
                         " ORDER BY o.cid",
                         -1, &st, NULL) != SQLITE_OK)
    return NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char *next = sqlite3_mprintf("%z%s%s\"%w\"", out, out ? ", " : "", prefix,
                                 (const char *)sqlite3_column_text(st, 0));
    if (!next) {
      out = NULL;
      break;
    }
    out = next;
  }
  sqlite3_finalize(st);
  return out;
}

int up_run(sqlite3 *db, const char *schema_sql, int64_t *traces, int64_t *jobs, char *err,
           size_t errlen) {
  char *job_ddl = up_ddl(schema_sql, "job"), *trace_ddl = up_ddl(schema_sql, "trace");
  char *v2 = NULL, *cols = NULL, *tcols = NULL, *copy = NULL;
  int rc = -1;
  static const char head[] = "CREATE TABLE trace";
  if (!job_ddl || !trace_ddl || strncmp(trace_ddl, head, sizeof head - 1)) {
    snprintf(err, errlen, "upgrade: cannot read the job and trace definitions");
    goto end;
  }
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    up_fail(db, err, errlen, "begin");
    goto end;
  }
  v2 = sqlite3_mprintf("CREATE TABLE _hta_trace_v2%s", trace_ddl + sizeof head - 1);
  if (!v2 || sqlite3_exec(db, job_ddl, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db, v2, NULL, NULL, NULL) != SQLITE_OK) {
    up_fail(db, err, errlen, "create");
    goto rollback;
  }
  if ((*jobs = up_jobs(db, traces)) < 0) {
    up_fail(db, err, errlen, "jobs");
    goto rollback;
  }
  cols = up_columns(db, "");
  tcols = up_columns(db, "t.");
  copy = cols && tcols ? sqlite3_mprintf(
                             "INSERT INTO _hta_trace_v2(%s, job_id) SELECT %s, m.job_id"
                             " FROM main.trace t JOIN temp._hta_up m USING (trace_id)"
                             " ORDER BY t.trace_id",
                             cols, tcols)
                       : NULL;
  if (!copy || sqlite3_exec(db, copy, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db,
                   "DROP TABLE main.trace; ALTER TABLE _hta_trace_v2 RENAME TO trace;"
                   " DROP TABLE temp._hta_up;"
                   " INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', '2');",
                   NULL, NULL, NULL) != SQLITE_OK) {
    up_fail(db, err, errlen, "copy");
    goto rollback;
  }
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    up_fail(db, err, errlen, "commit");
    goto rollback;
  }
  rc = 0;
  goto end;
rollback:
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
end:
  sqlite3_free(job_ddl);
  sqlite3_free(trace_ddl);
  sqlite3_free(v2);
  sqlite3_free(cols);
  sqlite3_free(tcols);
  sqlite3_free(copy);
  return rc;
}

/*
** writer.c: writes decoded trace rows into SQLite. See writer.h.
**
** HOW IT WORKS: prepared statements bound per row, WR_MULTI rows per INSERT for
** the event and flow tables (the bulk of the rows); a string new to a file is
** looked up (or added) through the string and category tables' UNIQUE indexes once
** per file, the parser having interned it for the file; event_id is (trace_id << 32) | ordinal, so ids are known before rows exist
** (links, parents) and rows append to the table's B-tree. The indexes
** (schema/indexes.sql) exist before the first row: the GPU index is partial
** (10-20% of the rows) and measured no slower to keep up than to build after the
** load, and appending to a database needs them anyway.
*/
#include "writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coldocs.h"
#include "schema_sql.h"
#include "upgrade.h"
#include "version.h"

#define WR_MULTI 64 /* rows per multi-row event INSERT */
#define STR2(x) #x
#define STR(x) STR2(x)
#define EV_COLS 20
#define FLOW_COLS 11

/* An INSERT of one or WR_MULTI rows and what each row's slot holds from its last binds
** (bindings outlive sqlite3_reset): bit c - 1 of null[slot]: parameter c holds NULL;
** of same[slot]: it holds the integer iv[slot][c - 1] (or the static text at that
** address), so the file's constants (trace_id, rank) are bound once per slot and file. */
typedef struct wr_slots {
  sqlite3_stmt *st;
  uint32_t null[WR_MULTI], same[WR_MULTI];
  int64_t iv[WR_MULTI][EV_COLS];
} wr_slots;

struct wr_db {
  sqlite3 *db;
  char *path; /* the target */
  char *tmp;  /* temporary file of a new database, else NULL */
  int is_new;
  int upgraded;               /* wr_open() upgraded it from schema 1 */
  int64_t up_traces, up_jobs; /* ...with this many traces and jobs */
  sm_map hashes;
  /* the file being written */
  int64_t trace_id, rank;
  int64_t next_string_id, next_category_id; /* above every id, from the file's open */
  int64_t ncounters, nflows;                /* rows so far: the low half of their ids */
  int64_t next_ord;                         /* ordinal the next event row should have */
  int64_t *lname, *lcat;                    /* local id -> database id */
  size_t lname_n, lcat_n, lname_cap, lcat_cap;
  wr_slots ev_multi, ev_one, fl_multi, fl_one; /* the event and flow INSERTs */
  sqlite3_stmt *ins_counter, *ins_thread_p, *ins_thread_t, *ins_thread_s, *ins_string,
      *ins_category, *sel_string, *sel_category, *ins_job, *sel_job;
};

static int wr_fail(wr_db *w, char err[WR_ERR_MAX], const char *what) {
  snprintf(err, WR_ERR_MAX, "%s: %s", what, w->db ? sqlite3_errmsg(w->db) : "out of memory");
  return -1;
}

static int wr_exec(wr_db *w, const char *sql, char err[WR_ERR_MAX]) {
  char *msg = NULL;
  if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    snprintf(err, WR_ERR_MAX, "%s", msg ? msg : sqlite3_errmsg(w->db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

static int wr_prepare(wr_db *w, sqlite3_stmt **st, const char *sql, char err[WR_ERR_MAX]) {
  if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "prepare");
  return 0;
}

/* The event and flow INSERTs are OR FAIL: a multi-row INSERT that may abort halfway
** needs a statement journal, a copy of every 64 KiB page it touches (a quarter of the
** writer's time); after a failure the file's transaction is rolled back anyway. */
static int wr_statements(wr_db *w, char err[WR_ERR_MAX]) {
  static const char cols[] =
      "INSERT OR FAIL INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid, "
      "tid, ts, "
      "dur,"
      " stream, device, correlation, external_id, link_id, parent_id, depth, iteration, args) "
      "VALUES ";
  static const char one[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  char sql[sizeof cols + WR_MULTI * (sizeof one + 1)];
  size_t at = (size_t)snprintf(sql, sizeof sql, "%s", cols);
  for (int i = 0; i < WR_MULTI; i++)
    at += (size_t)snprintf(sql + at, sizeof sql - at, "%s%s", i ? "," : "", one);
  if (wr_prepare(w, &w->ev_multi.st, sql, err)) return -1;
  snprintf(sql, sizeof sql, "%s%s", cols, one);
  if (wr_prepare(w, &w->ev_one.st, sql, err)) return -1;
  static const char fcols[] =
      "INSERT OR FAIL INTO flow(flow_id, trace_id, seq, ph, id, category_id, name_id, pid, tid, "
      "ts, bp) "
      "VALUES ";
  static const char fone[] = "(?,?,?,?,?,?,?,?,?,?,?)";
  at = (size_t)snprintf(sql, sizeof sql, "%s", fcols);
  for (int i = 0; i < WR_MULTI; i++)
    at += (size_t)snprintf(sql + at, sizeof sql - at, "%s%s", i ? "," : "", fone);
  if (wr_prepare(w, &w->fl_multi.st, sql, err)) return -1;
  if (wr_prepare(
          w, &w->ins_counter,
          "INSERT INTO counter(counter_id, trace_id, rank, seq, name_id, pid, ts, series, value)"
          " VALUES (?,?,?,?,?,?,?,?,?)",
          err) ||
      wr_prepare(
          w, &w->fl_one.st,
          "INSERT INTO flow(flow_id, trace_id, seq, ph, id, category_id, name_id, pid, tid, ts, bp)"
          " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
          err) ||
      wr_prepare(w, &w->ins_thread_p,
                 "INSERT INTO thread(trace_id, pid, tid, process_name) VALUES (?,?,?,?)"
                 " ON CONFLICT DO UPDATE SET process_name = excluded.process_name",
                 err) ||
      wr_prepare(w, &w->ins_thread_t,
                 "INSERT INTO thread(trace_id, pid, tid, thread_name) VALUES (?,?,?,?)"
                 " ON CONFLICT DO UPDATE SET thread_name = excluded.thread_name",
                 err) ||
      wr_prepare(w, &w->ins_thread_s,
                 "INSERT INTO thread(trace_id, pid, tid, sort_index) VALUES (?,?,?,?)"
                 " ON CONFLICT DO UPDATE SET sort_index = excluded.sort_index",
                 err) ||
      wr_prepare(w, &w->ins_string, "INSERT INTO string(string_id, value) VALUES (?,?)", err) ||
      wr_prepare(w, &w->ins_category, "INSERT INTO category(category_id, name) VALUES (?,?)",
                 err) ||
      wr_prepare(w, &w->sel_string, "SELECT string_id FROM string WHERE value = ?", err) ||
      wr_prepare(w, &w->sel_category, "SELECT category_id FROM category WHERE name = ?", err) ||
      wr_prepare(w, &w->ins_job,
                 "INSERT INTO job(name, source, created_at) VALUES (?1, ?2, ?3)"
                 " ON CONFLICT(name) DO NOTHING",
                 err) ||
      wr_prepare(w, &w->sel_job, "SELECT job_id FROM job WHERE name = ?", err))
    return -1;
  return 0;
}

void wr_temp_path(const char *path, char *out, size_t n) {
  snprintf(out, n, "%s.tmp-%ld", path, (long)getpid());
}

/* Removes PATH.tmp-PID files left by runs that were killed (PID no longer alive). */
static void wr_remove_stale(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  if (slash == path) snprintf(dir, sizeof dir, "/");
  DIR *d = opendir(dir);
  if (!d) return;
  size_t bl = strlen(base);
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *n = de->d_name;
    if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp-", 5)) continue;
    char *end;
    long pid = strtol(n + bl + 5, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char full[8192];
    snprintf(full, sizeof full, "%s/%s", dir, n);
    unlink(full);
  }
  closedir(d);
}

/* 1 when SEED is an hta-sqlite database of exactly the schema this build writes
** (every table, index and view, and their SQL), so that a copy of it is a database
** this build could have written. */
static int wr_seed_matches(const char *seed) {
  sqlite3 *ref = NULL;
  sqlite3_stmt *st = NULL;
  int same = 0;
  if (sqlite3_open(":memory:", &ref) == SQLITE_OK &&
      sqlite3_exec(ref, HTA_SCHEMA_SQL, NULL, NULL, NULL) == SQLITE_OK &&
      hr_write_column_docs(ref) == SQLITE_OK &&
      sqlite3_exec(ref, HTA_INDEXES_SQL, NULL, NULL, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(ref, "ATTACH ? AS seed", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, seed, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_DONE &&
        sqlite3_prepare_v2(
            ref,
            "SELECT (SELECT application_id FROM seed.pragma_application_id) = 0x48544131"
            " AND (SELECT value FROM seed.meta WHERE key = 'schema_version') = '" STR(
                UP_SCHEMA) "' AND NOT EXISTS (SELECT type, name, tbl_name, sql FROM "
                           "main.sqlite_schema"
                           " EXCEPT SELECT type, name, tbl_name, sql FROM seed.sqlite_schema)"
                           " AND NOT EXISTS (SELECT type, name, tbl_name, sql FROM "
                           "seed.sqlite_schema"
                           " EXCEPT SELECT type, name, tbl_name, sql FROM main.sqlite_schema)",
            -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      same = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(ref);
  return same;
}

/* Copies the whole of SEED into w's new, empty database (SQLite's backup: pages, not
** rows). 0, or -1 with err set. */
static int wr_seed(wr_db *w, const char *seed, char err[WR_ERR_MAX]) {
  sqlite3 *src = NULL;
  int rc = sqlite3_open_v2(seed, &src, SQLITE_OPEN_READONLY, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_backup *b = sqlite3_backup_init(w->db, "main", src, "main");
    rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(w->db);
    int fin = b ? sqlite3_backup_finish(b) : SQLITE_OK;
    if (rc == SQLITE_DONE) rc = fin;
  }
  if (rc != SQLITE_OK) snprintf(err, WR_ERR_MAX, "%.300s: copy: %s", seed, sqlite3_errstr(rc));
  sqlite3_close(src);
  return rc == SQLITE_OK ? 0 : -1;
}

int wr_open(wr_db **pw, const char *path, char err[WR_ERR_MAX]) {
  return wr_open_seeded(pw, path, NULL, NULL, err);
}

int wr_open_seeded(wr_db **pw, const char *path, const char *seed, int *seeded,
                   char err[WR_ERR_MAX]) {
  wr_db *w = calloc(1, sizeof *w);
  *pw = w;
  if (!w || !(w->path = strdup(path))) {
    snprintf(err, WR_ERR_MAX, "out of memory");
    return -1;
  }
  sm_init(&w->hashes);
  struct stat sb;
  wr_remove_stale(path);
  w->is_new = stat(path, &sb) != 0 || sb.st_size == 0;
  const char *open_path = path;
  if (w->is_new) {
    size_t n = strlen(path) + 32;
    if (!(w->tmp = malloc(n))) {
      snprintf(err, WR_ERR_MAX, "out of memory");
      return -1;
    }
    wr_temp_path(path, w->tmp, n);
    unlink(w->tmp);
    open_path = w->tmp;
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(open_path, &w->db, flags, NULL) != SQLITE_OK)
    return wr_fail(w, err, open_path);
  sqlite3_busy_timeout(w->db, 10000);
  if (seeded) *seeded = 0;
  if (w->is_new && seed && wr_seed_matches(seed)) {
    if (wr_seed(w, seed, err)) return -1;
    *seeded = 1;
  }
  if (w->is_new) {
    /* a seed's journal mode was copied with it (WAL in a database appended to): the
    ** build runs with the journal in memory, as any new database */
    if (wr_exec(w,
                "PRAGMA page_size = 65536; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;"
                "PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768; PRAGMA temp_store = "
                "FILE;",
                err))
      return -1;
  } else {
    sqlite3_stmt *st;
    int64_t app = -1;
    if (sqlite3_prepare_v2(w->db, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW) app = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    if (app != 0x48544131) {
      snprintf(err, WR_ERR_MAX, "%s: not an hta-sqlite database", path);
      return -1;
    }
    if (wr_exec(
            w,
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768;",
            err))
      return -1;
    int v = up_version(w->db, "main");
    if (v < 0) return wr_fail(w, err, path);
    if (v > UP_SCHEMA) {
      snprintf(err, WR_ERR_MAX, "%s: schema version %d is newer than this hta-ingest's (%d)", path,
               v, UP_SCHEMA);
      return -1;
    }
    /* before the schema below: its index and view on trace.job_id need the column */
    if (v == 1) {
      char uerr[WR_ERR_MAX];
      if (up_run(w->db, HTA_SCHEMA_SQL, &w->up_traces, &w->up_jobs, uerr, sizeof uerr)) {
        snprintf(err, WR_ERR_MAX, "%.200s: %.300s", path, uerr);
        return -1;
      }
      w->upgraded = 1;
    } else if (v == 2 ||
               v == 3) { /* 3, 4 add device_peak, capture: the schema below creates them */
      if (wr_exec(w, "DROP VIEW IF EXISTS job_summary", err)) return -1; /* 4 counts captures */
      sqlite3_stmt *cq;
      if (sqlite3_prepare_v2(w->db,
                             "SELECT (SELECT count(*) FROM trace), (SELECT count(*) FROM job)", -1,
                             &cq, NULL) != SQLITE_OK)
        return wr_fail(w, err, path);
      if (sqlite3_step(cq) == SQLITE_ROW) {
        w->up_traces = sqlite3_column_int64(cq, 0);
        w->up_jobs = sqlite3_column_int64(cq, 1);
      }
      sqlite3_finalize(cq);
      w->upgraded = 1;
    }
  }
  if (wr_exec(w, HTA_SCHEMA_SQL, err)) return -1;
  int drc = hr_write_column_docs(w->db); /* _hta_column: descriptions a browser can show */
  if (drc != SQLITE_OK) {
    snprintf(err, WR_ERR_MAX, "column docs: %s", sqlite3_errstr(drc));
    return -1;
  }
  if (wr_exec(w, HTA_INDEXES_SQL, err)) return -1;
  sqlite3_stmt *st;
  /* keys as wr_hash_key makes them: a file is a duplicate within its job only */
  if (sqlite3_prepare_v2(w->db,
                         "SELECT coalesce(j.name, '') || char(31) || t.content_hash FROM trace t"
                         " LEFT JOIN job j ON j.job_id = t.job_id",
                         -1, &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "reading traces");
  while (sqlite3_step(st) == SQLITE_ROW) {
    int added;
    const char *h = (const char *)sqlite3_column_text(st, 0);
    if (h) sm_intern(&w->hashes, h, strlen(h), &added);
  }
  sqlite3_finalize(st);
  if (wr_statements(w, err)) return -1;
  char now[32];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  if (wr_set_meta(w, "schema_version", STR(UP_SCHEMA)) ||
      wr_set_meta(w, "tool_version", HTA_VERSION) ||
      (w->is_new && wr_set_meta(w, "created_at", now)) || wr_set_meta(w, "updated_at", now))
    return wr_fail(w, err, "meta");
  return 0;
}

const char *wr_job_name(const char *job) { return job ? job : "default"; }

int wr_hash_key(char *out, size_t size, const char *job, const char *hash) {
  int n = snprintf(out, size, "%s\x1f%s", wr_job_name(job), hash);
  return n >= 0 && (size_t)n < size ? n : -1;
}
struct sqlite3 *wr_sqlite(wr_db *w) {
  return w->db;
}

int wr_upgraded(const wr_db *w, int64_t *traces, int64_t *jobs) {
  *traces = w->up_traces;
  *jobs = w->up_jobs;
  return w->upgraded;
}
sm_map *wr_hashes(wr_db *w) { return &w->hashes; }

int wr_set_meta(wr_db *w, const char *key, const char *value) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* ---------------------------------------------------------------- one file */

/* Traces of job JOB with rank RANK: two profiling windows of one worker, or a mistake. */
static int64_t rank_count(wr_db *w, int64_t job, int64_t rank) {
  sqlite3_stmt *st;
  int64_t n = 0;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT count(*) FROM trace WHERE job_id = ? AND rank = ?"
                         " AND trace_id NOT IN (SELECT trace_id FROM capture)",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(st, 1, job);
  sqlite3_bind_int64(st, 2, rank);
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

static void bind_span(sqlite3_stmt *st, int i, const kt_span *s) {
  if (s->n) sqlite3_bind_text(st, i, s->p, (int)s->n, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, i);
}

static int wr_issue(wr_db *w, int64_t trace_id, const char *code, int64_t count, int64_t first_seq,
                    const char *example, const char *message) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          w->db,
          "INSERT INTO ingest_issue(trace_id, code, count, first_seq, example, message)"
          " VALUES (?,?,?,?,?,?)",
          -1, &st, NULL) != SQLITE_OK)
    return -1;
  if (trace_id > 0) sqlite3_bind_int64(st, 1, trace_id);
  sqlite3_bind_text(st, 2, code, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, count);
  if (first_seq >= 0) sqlite3_bind_int64(st, 4, first_seq);
  if (example && *example) sqlite3_bind_text(st, 5, example, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 6, message, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* a job left without traces goes (the new trace may join another job) */
static const char wr_del_job[] =
    "DELETE FROM job WHERE job_id = (SELECT job_id FROM trace WHERE trace_id = ?1)"
    " AND NOT EXISTS (SELECT 1 FROM trace t WHERE t.job_id = job.job_id AND t.trace_id <> ?1)";

static int wr_delete_hash(wr_db *w, const char *hash, const char *job, char err[WR_ERR_MAX]) {
  static const char *const del[] = {
      "DELETE FROM event WHERE event_id BETWEEN ?1 << 32 AND (?1 << 32) | 0xffffffff",
      "DELETE FROM counter WHERE counter_id BETWEEN ?1 << 32 AND (?1 << 32) | 0xffffffff",
      "DELETE FROM flow WHERE flow_id BETWEEN ?1 << 32 AND (?1 << 32) | 0xffffffff",
      "DELETE FROM thread WHERE trace_id = ?1",
      "DELETE FROM device WHERE trace_id = ?1",
      "DELETE FROM profiler_step WHERE trace_id = ?1",
      "DELETE FROM ingest_issue WHERE trace_id = ?1",
      "DELETE FROM capture WHERE trace_id = ?1",
      wr_del_job,
      "DELETE FROM trace WHERE trace_id = ?1"};
  sqlite3_stmt *st;
  int64_t old = 0;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT trace_id FROM trace WHERE content_hash = ?1"
                         " AND job_id = (SELECT job_id FROM job WHERE name = ?2)",
                         -1, &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "replace");
  sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, job, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) old = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (!old) return 0;
  for (size_t i = 0; i < sizeof del / sizeof del[0]; i++) {
    if (sqlite3_prepare_v2(w->db, del[i], -1, &st, NULL) != SQLITE_OK)
      return wr_fail(w, err, "replace");
    sqlite3_bind_int64(st, 1, old);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return wr_fail(w, err, "replace");
  }
  return 0;
}

int wr_open_file(wr_db *w, char err[WR_ERR_MAX]) {
  /* IMMEDIATE: the write lock first, so no other process takes the same trace_id */
  if (wr_exec(w, "BEGIN IMMEDIATE", err)) return -1;
  sqlite3_stmt *st;
  w->trace_id = 1;
  if (sqlite3_prepare_v2(w->db, "SELECT coalesce(max(trace_id), 0) + 1 FROM trace", -1, &st,
                         NULL) != SQLITE_OK)
    return wr_fail(w, err, "trace id");
  if (sqlite3_step(st) == SQLITE_ROW) w->trace_id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(w->db,
                         "SELECT (SELECT coalesce(max(string_id), 0) + 1 FROM string),"
                         " (SELECT coalesce(max(category_id), 0) + 1 FROM category)",
                         -1, &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "string id");
  w->next_string_id = w->next_category_id = 1;
  if (sqlite3_step(st) == SQLITE_ROW) {
    w->next_string_id = sqlite3_column_int64(st, 0);
    w->next_category_id = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  w->lname_n = w->lcat_n = 0;
  w->ncounters = w->nflows = w->next_ord = 0;
  return 0;
}

int wr_in_file(const wr_db *w) { return !sqlite3_get_autocommit(w->db); }

static int wr_step(sqlite3_stmt *st);

/* The job_id of NAME, added (in the file's transaction) when new. -1 on error. */
static int64_t wr_job(wr_db *w, const char *name, const char *source) {
  char now[32];
  time_t t = time(NULL);
  strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  sqlite3_bind_text(w->ins_job, 1, name, -1, SQLITE_STATIC);
  if (source) sqlite3_bind_text(w->ins_job, 2, source, -1, SQLITE_STATIC);
  else sqlite3_bind_null(w->ins_job, 2);
  sqlite3_bind_text(w->ins_job, 3, now, -1, SQLITE_STATIC);
  if (wr_step(w->ins_job)) return -1;
  sqlite3_bind_text(w->sel_job, 1, name, -1, SQLITE_STATIC);
  int64_t id = sqlite3_step(w->sel_job) == SQLITE_ROW ? sqlite3_column_int64(w->sel_job, 0) : -1;
  sqlite3_reset(w->sel_job);
  return id;
}

/* The capture row of the trace being written (schema.sql, captures.h). */
static int wr_capture(wr_db *w, const cp_capture *c) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(w->db,
                         "INSERT INTO capture(trace_id, batch_size, mode, index_file)"
                         " VALUES (?, ?, ?, ?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, w->trace_id);
  if (c->batch_size >= 0) sqlite3_bind_int64(st, 2, c->batch_size);
  if (c->mode) sqlite3_bind_text(st, 3, c->mode, -1, SQLITE_STATIC);
  if (c->index_file) sqlite3_bind_text(st, 4, c->index_file, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

int wr_begin(wr_db *w, const wr_file *f, int replace, char err[WR_ERR_MAX]) {
  if (!wr_in_file(w) && wr_open_file(w, err)) return -1;
  /* the trace deleted is an older one: trace_id stays above every id in use */
  if (replace && wr_delete_hash(w, f->hash, wr_job_name(f->job), err)) return -1;
  sqlite3_stmt *st;
  w->rank = f->rank;
  int64_t job = wr_job(w, wr_job_name(f->job), f->job_source);
  if (job < 0) return wr_fail(w, err, "job");
  int shared = !f->capture && rank_count(w, job, f->rank) > 0;
  const kt_meta *m = f->meta;
  int64_t min_ts = 0, max_end = 0;
  int span = dv_time_span(f->dv, &min_ts, &max_end);
  char backend[128] = "";
  if (m->backend.n) snprintf(backend, sizeof backend, "%.*s", (int)m->backend.n, m->backend.p);
  if (sqlite3_prepare_v2(
          w->db,
          "INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash,"
          " world_size, backend, device_type, schema_version, base_time_ns, display_time_unit,"
          " event_count, min_ts, max_end, metadata, file_path, job_id)"
          " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?)",
          -1, &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "trace");
  sqlite3_bind_int64(st, 1, w->trace_id);
  sqlite3_bind_int64(st, 2, f->rank);
  sqlite3_bind_text(st, 3, f->rank_source, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, f->path, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 5, f->file_size);
  sqlite3_bind_text(st, 6, f->hash, -1, SQLITE_STATIC);
  if (m->has_world_size) sqlite3_bind_int64(st, 7, m->world_size);
  bind_span(st, 8, &m->backend);
  sqlite3_bind_text(st, 9, dv_device_type(f->dv, backend), -1, SQLITE_STATIC);
  bind_span(st, 10, &m->schema_version);
  if (m->has_base_time) sqlite3_bind_int64(st, 11, m->base_time_ns);
  bind_span(st, 12, &m->display_time_unit);
  if (span) {
    sqlite3_bind_int64(st, 13, min_ts);
    sqlite3_bind_int64(st, 14, max_end);
  }
  bind_span(st, 15, &m->metadata);
  char *abs = realpath(f->path, NULL);
  if (abs) sqlite3_bind_text(st, 16, abs, -1, SQLITE_TRANSIENT);
  free(abs);
  sqlite3_bind_int64(st, 17, job);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return wr_fail(w, err, "trace");
  if (f->capture && wr_capture(w, f->capture)) return wr_fail(w, err, "capture");
  if (shared &&
      wr_issue(w, w->trace_id, "shared_rank", 1, -1, f->path,
               "another trace of this job has the same rank; analyses keep them apart by trace_id"))
    return wr_fail(w, err, "ingest_issue");
  return 0;
}

/*
** Maps a string first seen in this file to its database id, inserting it if new.
** The UNIQUE index finds it: no map of the database's strings is kept in memory, so
** memory does not grow with them (the parser interns per file), and a rollback
** leaves nothing to forget (the next ids are read at each file's open).
*/
static int wr_map_string(wr_db *w, const bt_str *s, const char *arena) {
  int is_cat = s->is_cat;
  sqlite3_stmt *sel = is_cat ? w->sel_category : w->sel_string;
  int64_t id = -1;
  sqlite3_bind_text(sel, 1, arena + s->off, (int)s->len, SQLITE_STATIC);
  int rc = sqlite3_step(sel);
  if (rc == SQLITE_ROW) id = sqlite3_column_int64(sel, 0);
  sqlite3_reset(sel);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return -1;
  if (id < 0) { /* new to the database */
    sqlite3_stmt *ins = is_cat ? w->ins_category : w->ins_string;
    id = is_cat ? w->next_category_id++ : w->next_string_id++;
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_text(ins, 2, arena + s->off, (int)s->len, SQLITE_STATIC);
    rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc != SQLITE_DONE) return -1;
  }
  int64_t **lmap = is_cat ? &w->lcat : &w->lname;
  size_t *ln = is_cat ? &w->lcat_n : &w->lname_n, *lc = is_cat ? &w->lcat_cap : &w->lname_cap;
  if (s->local >= *lc) {
    size_t c = *lc ? *lc * 2 : 4096;
    while (c <= s->local) c *= 2;
    int64_t *p = realloc(*lmap, c * sizeof *p);
    if (!p) return -1;
    *lmap = p, *lc = c;
  }
  (*lmap)[s->local] = id;
  if (s->local >= *ln) *ln = s->local + 1;
  return 0;
}

static void bind_val(sqlite3_stmt *st, int i, const bt_val *v, int present, const char *arena) {
  if (!present) sqlite3_bind_null(st, i);
  else if (v->len >= 0) sqlite3_bind_text(st, i, arena + v->off, v->len, SQLITE_STATIC);
  else sqlite3_bind_int64(st, i, v->i);
}

static void bind_opt(sqlite3_stmt *st, int i, int present, int64_t v) {
  if (present) sqlite3_bind_int64(st, i, v);
  else sqlite3_bind_null(st, i);
}

/* A static one-byte string for ph, so binding it copies nothing. */
static const char *ph_text(char ph) {
  static const char known[] = "XiIBECMstfbenRPpOoNDSTFv";
  const char *p = ph ? strchr(known, ph) : NULL;
  return p ? p : "?";
}

/* Binds into one row's slot of a multi-row INSERT, skipping what the slot already holds
** (bindings outlive sqlite3_reset): a NULL or an integer bound before, the file's
** constants. Most event columns are NULL in most rows, and pid, ph, category, device or
** iteration repeat from the slot's last row: a bind is a third of the writer's time. */
static void b_null(wr_slots *s, int slot, int base, int c) {
  uint32_t bit = 1u << (c - 1);
  if (s->null[slot] & bit) return;
  sqlite3_bind_null(s->st, base + c);
  s->null[slot] |= bit;
  s->same[slot] &= ~bit;
}
static void b_int(wr_slots *s, int slot, int base, int c, int64_t v) {
  uint32_t bit = 1u << (c - 1);
  if ((s->same[slot] & bit) && s->iv[slot][c - 1] == v) return;
  sqlite3_bind_int64(s->st, base + c, v);
  s->null[slot] &= ~bit;
  s->same[slot] |= bit;
  s->iv[slot][c - 1] = v;
}
static void b_text(wr_slots *s, int slot, int base, int c, const char *p, int n) {
  sqlite3_bind_text(s->st, base + c, p, n, SQLITE_STATIC);
  s->null[slot] &= ~(1u << (c - 1));
  s->same[slot] &= ~(1u << (c - 1));
}
/* Text of static storage (ph): known by its address. */
static void b_static(wr_slots *s, int slot, int base, int c, const char *p, int n) {
  uint32_t bit = 1u << (c - 1);
  if ((s->same[slot] & bit) && s->iv[slot][c - 1] == (int64_t)(intptr_t)p) return;
  b_text(s, slot, base, c, p, n);
  s->same[slot] |= bit;
  s->iv[slot][c - 1] = (int64_t)(intptr_t)p;
}
static void b_opt(wr_slots *s, int slot, int base, int c, int present, int64_t v) {
  if (present) b_int(s, slot, base, c, v);
  else b_null(s, slot, base, c);
}
static void b_val(wr_slots *s, int slot, int base, int c, const bt_val *v, int present,
                  const char *arena) {
  if (!present) b_null(s, slot, base, c);
  else if (v->len >= 0) b_text(s, slot, base, c, arena + v->off, v->len);
  else b_int(s, slot, base, c, v->i);
}

/* event_id: explicit for the first row of a file, then NULL, so that SQLite appends
** (max + 1) instead of searching the B-tree for every row; ordinals are dense, so
** max + 1 is the row's own ordinal (checked in wr_end). */
static void bind_event(wr_db *w, wr_slots *s, int slot, const bt_row *r, const char *arena) {
  int base = slot * EV_COLS;
  int64_t hi = w->trace_id << 32;
  if (r->ord == w->next_ord && r->ord > 0) b_null(s, slot, base, 1);
  else b_int(s, slot, base, 1, hi | r->ord);
  w->next_ord = r->ord + 1;
  b_int(s, slot, base, 2, w->trace_id);
  b_int(s, slot, base, 3, w->rank);
  b_int(s, slot, base, 4, r->seq);
  b_static(s, slot, base, 5, ph_text(r->ph), 1);
  b_opt(s, slot, base, 6, r->cat != BT_NONE, r->cat != BT_NONE ? w->lcat[r->cat] : 0);
  b_opt(s, slot, base, 7, r->name != BT_NONE, r->name != BT_NONE ? w->lname[r->name] : 0);
  b_val(s, slot, base, 8, &r->pid, r->has & BT_PID, arena);
  b_val(s, slot, base, 9, &r->tid, r->has & BT_TID, arena);
  b_opt(s, slot, base, 10, r->has & BT_TS, r->ts);
  b_opt(s, slot, base, 11, r->has & BT_DUR, r->dur);
  b_opt(s, slot, base, 12, r->has & BT_STREAM, r->stream);
  b_opt(s, slot, base, 13, r->has & BT_DEVICE, r->device);
  b_opt(s, slot, base, 14, r->has & BT_CORR, r->corr);
  b_opt(s, slot, base, 15, r->has & BT_EXT, r->ext);
  b_opt(s, slot, base, 16, r->has & BT_LINK, hi | r->link);
  b_opt(s, slot, base, 17, r->has & BT_PARENT, hi | r->parent);
  b_opt(s, slot, base, 18, r->depth >= 0, r->depth);
  b_opt(s, slot, base, 19, r->has & BT_ITER, r->iteration);
  if (r->has & BT_ARGS) b_text(s, slot, base, 20, arena + r->text_off, (int)r->text_len);
  else b_null(s, slot, base, 20);
}

static int wr_step(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

static void bind_flow(wr_db *w, wr_slots *s, int slot, const bt_row *r, const char *arena) {
  int base = slot * FLOW_COLS;
  /* as for events: NULL lets SQLite append with max + 1, which is this id */
  if (w->nflows) b_null(s, slot, base, 1);
  else b_int(s, slot, base, 1, w->trace_id << 32);
  w->nflows++;
  b_int(s, slot, base, 2, w->trace_id);
  b_int(s, slot, base, 3, r->seq);
  b_static(s, slot, base, 4, ph_text(r->ph), 1);
  b_val(s, slot, base, 5, &r->id, r->has & BT_ID, arena);
  b_opt(s, slot, base, 6, r->cat != BT_NONE, r->cat != BT_NONE ? w->lcat[r->cat] : 0);
  b_opt(s, slot, base, 7, r->name != BT_NONE, r->name != BT_NONE ? w->lname[r->name] : 0);
  b_val(s, slot, base, 8, &r->pid, r->has & BT_PID, arena);
  b_val(s, slot, base, 9, &r->tid, r->has & BT_TID, arena);
  b_opt(s, slot, base, 10, r->has & BT_TS, r->ts);
  if (r->text_len) b_text(s, slot, base, 11, arena + r->text_off, (int)r->text_len);
  else b_null(s, slot, base, 11);
}

static int wr_other(wr_db *w, const bt_row *r, const char *arena) {
  sqlite3_stmt *st;
  switch (r->kind) {
  case BT_COUNTER:
    st = w->ins_counter;
    if (w->ncounters) sqlite3_bind_null(st, 1);
    else sqlite3_bind_int64(st, 1, w->trace_id << 32);
    w->ncounters++;
    sqlite3_bind_int64(st, 2, w->trace_id);
    sqlite3_bind_int64(st, 3, w->rank);
    sqlite3_bind_int64(st, 4, r->seq);
    bind_opt(st, 5, r->name != BT_NONE, r->name != BT_NONE ? w->lname[r->name] : 0);
    bind_val(st, 6, &r->pid, r->has & BT_PID, arena);
    bind_opt(st, 7, r->has & BT_TS, r->ts);
    sqlite3_bind_text(st, 8, arena + r->text_off, (int)r->text_len, SQLITE_STATIC);
    sqlite3_bind_double(st, 9, r->value);
    return wr_step(st);
  case BT_THREAD: {
    int which = (int)r->value; /* BT_THREAD rows: see batch.h */
    st = which == 1 ? w->ins_thread_p : which == 2 ? w->ins_thread_t : w->ins_thread_s;
    sqlite3_bind_int64(st, 1, w->trace_id);
    bind_val(st, 2, &r->pid, r->has & BT_PID, arena);
    if (r->has & BT_TID) bind_val(st, 3, &r->tid, 1, arena);
    else sqlite3_bind_int64(st, 3, 0);
    if (which == 3) sqlite3_bind_int64(st, 4, r->iteration);
    else sqlite3_bind_text(st, 4, arena + r->text_off, (int)r->text_len, SQLITE_STATIC);
    return wr_step(st);
  }
  default: return 0;
  }
}

/*
** Inserts the rows of KIND (BT_EVENT or BT_FLOW) of b in batch order, WR_MULTI per
** statement. A trace interleaves flows with events, so taking each kind on its own
** keeps the statements full (row by row, a flow costs as much as 64 of them).
*/
static int wr_kind(wr_db *w, const bt_batch *b, int kind) {
  int ev = kind == BT_EVENT;
  wr_slots *multi = ev ? &w->ev_multi : &w->fl_multi, *one = ev ? &w->ev_one : &w->fl_one;
  void (*bind)(wr_db *, wr_slots *, int, const bt_row *, const char *) =
      ev ? bind_event : bind_flow;
  const bt_row *pend[WR_MULTI];
  size_t n = 0;
  for (size_t i = 0; i < b->nrows; i++) {
    if (b->rows[i].kind != kind) continue;
    pend[n++] = &b->rows[i];
    if (n < WR_MULTI) continue;
    for (size_t k = 0; k < n; k++) bind(w, multi, (int)k, pend[k], b->arena);
    if (wr_step(multi->st)) return -1;
    n = 0;
  }
  for (size_t k = 0; k < n; k++) {
    bind(w, one, 0, pend[k], b->arena);
    if (wr_step(one->st)) return -1;
  }
  return 0;
}

int wr_rows(wr_db *w, const bt_batch *b, char err[WR_ERR_MAX]) {
  for (size_t i = 0; i < b->nstrs; i++)
    if (wr_map_string(w, &b->strs[i], b->arena)) return wr_fail(w, err, "string");
  for (size_t i = 0; i < b->nrows; i++) {
    const bt_row *r = &b->rows[i];
    if (r->kind != BT_EVENT && r->kind != BT_FLOW && wr_other(w, r, b->arena))
      return wr_fail(w, err, "insert");
  }
  if (wr_kind(w, b, BT_EVENT) || wr_kind(w, b, BT_FLOW)) return wr_fail(w, err, "insert");
  return 0;
}

int wr_end(wr_db *w, const wr_file *f, char err[WR_ERR_MAX]) {
  sqlite3_stmt *st;
  int n;
  const dv_step *steps = dv_steps(f->dv, &n);
  if (sqlite3_prepare_v2(
          w->db, "INSERT INTO profiler_step(trace_id, step, event_id, ts, dur) VALUES (?,?,?,?,?)",
          -1, &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "profiler_step");
  for (int i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, w->trace_id);
    sqlite3_bind_int64(st, 2, steps[i].number);
    sqlite3_bind_int64(st, 3, (w->trace_id << 32) | steps[i].ord);
    sqlite3_bind_int64(st, 4, steps[i].ts);
    sqlite3_bind_int64(st, 5, steps[i].dur);
    if (wr_step(st)) {
      sqlite3_finalize(st);
      return wr_fail(w, err, "profiler_step");
    }
  }
  sqlite3_finalize(st);
  const dv_issue *is = dv_issues(f->dv, &n);
  for (int i = 0; i < n; i++)
    if (is[i].count && wr_issue(w, w->trace_id, is[i].code, is[i].count, is[i].first_seq,
                                is[i].example, is[i].message))
      return wr_fail(w, err, "ingest_issue");
  if (f->rank_source[0] == 'f' &&
      wr_issue(w, w->trace_id, "rank_from_file_name", 1, -1, f->path,
               "no distributedInfo.rank: rank taken from the file name"))
    return wr_fail(w, err, "ingest_issue");
  if (f->rank_source[0] == 'd' && f->meta->has_rank == 0 &&
      wr_issue(w, w->trace_id, "rank_default", 1, -1, f->path,
               "no rank in distributedInfo or file name: rank 0"))
    return wr_fail(w, err, "ingest_issue");
  if (f->meta->device_properties.n) {
    if (sqlite3_prepare_v2(
            w->db,
            "INSERT OR REPLACE INTO device(trace_id, device_id, name, total_global_mem, "
            "compute_major,"
            " compute_minor, num_sms, properties) SELECT ?1, coalesce(json_extract(value, '$.id'), "
            "key),"
            " json_extract(value, '$.name'), json_extract(value, '$.totalGlobalMem'),"
            " json_extract(value, '$.computeMajor'), json_extract(value, '$.computeMinor'),"
            " json_extract(value, '$.numSms'), value FROM json_each(?2)"
            " WHERE json_type(value) = 'object'",
            -1, &st, NULL) != SQLITE_OK)
      return wr_fail(w, err, "device");
    sqlite3_bind_int64(st, 1, w->trace_id);
    sqlite3_bind_text(st, 2, f->meta->device_properties.p, (int)f->meta->device_properties.n,
                      SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return wr_fail(w, err, "device");
  }
  /* the rows SQLite numbered must have landed on their ordinals */
  if (sqlite3_prepare_v2(
          w->db, "SELECT max(event_id) FROM event WHERE event_id <= (?1 << 32) | 0xffffffff", -1,
          &st, NULL) != SQLITE_OK)
    return wr_fail(w, err, "check");
  sqlite3_bind_int64(st, 1, w->trace_id);
  int64_t last = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  if (w->next_ord > 0 && last != ((w->trace_id << 32) | (w->next_ord - 1))) {
    snprintf(err, WR_ERR_MAX, "internal error: event ids out of step (%lld, expected %lld)",
             (long long)last, (long long)((w->trace_id << 32) | (w->next_ord - 1)));
    return -1;
  }
  if (sqlite3_prepare_v2(w->db, "UPDATE trace SET event_count = ? WHERE trace_id = ?", -1, &st,
                         NULL) != SQLITE_OK)
    return wr_fail(w, err, "trace");
  sqlite3_bind_int64(st, 1, f->event_rows);
  sqlite3_bind_int64(st, 2, w->trace_id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return wr_fail(w, err, "trace");
  return wr_exec(w, "COMMIT", err);
}

void wr_abort(wr_db *w) {
  if (!sqlite3_get_autocommit(w->db)) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
}

int wr_record_failure(wr_db *w, const char *path, const char *message) {
  return wr_issue(w, 0, "file_failed", 1, -1, path, message);
}

/* fsync()s PATH, or with dir the directory that holds it. 0, or -1 with errno set. */
static int sync_path(const char *path, int dir) {
  char d[4096];
  if (dir) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(d, sizeof d, ".");
    else snprintf(d, sizeof d, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    path = d;
  }
  int fd = open(path, O_RDONLY | (dir ? O_DIRECTORY : 0));
  if (fd < 0) return -1;
  int rc = fsync(fd);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

int wr_close(wr_db *w, int finish, char err[WR_ERR_MAX]) {
  int rc = 0;
  if (!w) return 0;
  if (finish && w->db) {
    if (w->is_new && wr_exec(w, "PRAGMA journal_mode = DELETE", err)) rc = -1;
  }
  sqlite3_stmt **sts[] = {&w->ev_multi.st, &w->ev_one.st,    &w->ins_counter,  &w->fl_one.st,
                          &w->fl_multi.st, &w->ins_thread_p, &w->ins_thread_t, &w->ins_thread_s,
                          &w->ins_string,  &w->ins_category, &w->sel_string,   &w->sel_category,
                          &w->ins_job,     &w->sel_job};
  for (size_t i = 0; i < sizeof sts / sizeof sts[0]; i++) sqlite3_finalize(*sts[i]);
  if (w->db && sqlite3_close(w->db) != SQLITE_OK && !rc) {
    snprintf(err, WR_ERR_MAX, "close: %s", sqlite3_errmsg(w->db));
    rc = -1;
  }
  if (w->tmp) {
    if (finish && !rc) {
      /* The build ran without fsync (synchronous=OFF): sync once, so that after a
      ** power loss the target is the whole database or absent, never a torn one. */
      if (sync_path(w->tmp, 0)) {
        snprintf(err, WR_ERR_MAX, "%s: fsync: %s", w->tmp, strerror(errno));
        rc = -1;
      } else if (rename(w->tmp, w->path) != 0) {
        snprintf(err, WR_ERR_MAX, "%s: %s", w->path, strerror(errno));
        rc = -1;
      } else {
        sync_path(w->path, 1); /* the rename itself; best effort (not every filesystem can) */
      }
    }
    if (!finish || rc) unlink(w->tmp);
  }
  sm_free(&w->hashes);
  free(w->lname);
  free(w->lcat);
  free(w->tmp);
  free(w->path);
  free(w);
  return rc;
}

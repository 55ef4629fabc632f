/*
** merge.c: copy traces between hta-sqlite databases (merge.h).
**
** HOW IT WORKS: IN is attached as mg_src. Per IN, temp tables map its string and
** category ids to OUT's (mg_str, mg_cat: filled in the first copied trace's
** transaction, after OUT gains the values it lacked) and its traces to job names
** (mg_job). Each trace is then a handful of INSERT ... SELECT statements over
** mg_src's rowid range of that trace, shifted by d = (new - old) << 32: rows arrive
** in rowid order above every id in OUT, so each insert appends to the B-tree. When
** IN numbers its strings as OUT does (the usual case for shards of one job), the
** maps are the identity and the copy reads no map at all.
*/
#include "merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upgrade.h"

#define MG_APP_ID 0x48544131 /* PRAGMA application_id of an hta-sqlite database */

typedef struct mg_ctx {
  sqlite3 *db;
  const char *in;
  char *err;
  size_t errlen;
  int maps;     /* mg_str / mg_cat hold this IN's maps */
  int same_str; /* ... and they are the identity */
  int same_cat;
  char *trace_cols; /* trace columns both have, but trace_id and job_id */
  unsigned has;     /* bit t: IN has mg_tables[t] (a schema-1 IN may lack some) */
} mg_ctx;

/* The tables copied per trace. */
static const char *const mg_tables[] = {"event",  "counter",       "flow",         "thread",
                                        "device", "profiler_step", "ingest_issue", "capture"};
enum { MG_EVENT, MG_COUNTER, MG_FLOW, MG_THREAD, MG_DEVICE, MG_STEP, MG_ISSUE, MG_CAPTURE };
#define MG_HAS(m, t) (((m)->has >> (t)) & 1u)

static int mg_fail(mg_ctx *m, const char *file, const char *what) {
  snprintf(m->err, m->errlen, "%s: %s%s%s: %s", m->in, file ? file : "", file ? ": " : "", what,
           sqlite3_errmsg(m->db));
  return -1;
}

static int mg_exec(mg_ctx *m, const char *sql) {
  return sqlite3_exec(m->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* One integer from SQL with ?1..?n bound to the int64 arguments; -1 on error or no row. */
static int64_t mg_int(mg_ctx *m, const char *sql, int n, ...) {
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  va_list ap;
  va_start(ap, n);
  for (int i = 1; i <= n; i++) sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
  va_end(ap);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Runs SQL with ?1..?n bound; the number of rows it changed, or -1. */
static int64_t mg_run(mg_ctx *m, const char *sql, int n, ...) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  va_list ap;
  va_start(ap, n);
  for (int i = 1; i <= n; i++) sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
  va_end(ap);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? sqlite3_changes64(m->db) : -1;
}

/* mg_job(trace_id, name, source, created_at) for every trace of IN. */
static int mg_jobs(mg_ctx *m, int version) {
  if (mg_exec(m,
              "CREATE TEMP TABLE mg_job(trace_id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
              " source TEXT, created_at TEXT)"))
    return -1;
  if (version >= 2)
    return mg_exec(m,
                   "INSERT INTO temp.mg_job SELECT t.trace_id, coalesce(j.name, 'default'),"
                   " j.source, j.created_at FROM mg_src.trace t"
                   " LEFT JOIN mg_src.job j ON j.job_id = t.job_id");
  /* schema 1: the job its upgrade would give (upgrade.h), computed the same way */
  sqlite3_stmt *sel = NULL, *ins = NULL;
  int rc = -1, r;
  if (sqlite3_prepare_v2(m->db, "SELECT trace_id, coalesce(file_path, file_name) FROM mg_src.trace",
                         -1, &sel, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(m->db, "INSERT INTO temp.mg_job(trace_id, name, source) VALUES (?,?,?)",
                         -1, &ins, NULL) != SQLITE_OK)
    goto end;
  while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
    char dir[4096], name[1024];
    up_parent((const char *)sqlite3_column_text(sel, 1), dir, sizeof dir, name, sizeof name);
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
    sqlite3_bind_text(ins, 2, name[0] ? name : "default", -1, SQLITE_TRANSIENT);
    if (dir[0]) sqlite3_bind_text(ins, 3, dir, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(ins, 3);
    if (sqlite3_step(ins) != SQLITE_DONE) goto end;
    sqlite3_reset(ins);
  }
  rc = r == SQLITE_DONE ? 0 : -1;
end:
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  return rc;
}

/* The columns of trace that OUT and IN both have, but trace_id and job_id: "a", "b"... */
static char *mg_trace_cols(mg_ctx *m) {
  sqlite3_stmt *st;
  char *out = NULL;
  if (sqlite3_prepare_v2(m->db,
                         "SELECT o.name FROM pragma_table_info('trace', 'main') o"
                         " JOIN pragma_table_info('trace', 'mg_src') i USING (name)"
                         " WHERE o.name NOT IN ('trace_id', 'job_id') ORDER BY o.cid",
                         -1, &st, NULL) != SQLITE_OK)
    return NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char *next = sqlite3_mprintf("%z%s\"%w\"", out, out ? ", " : "",
                                 (const char *)sqlite3_column_text(st, 0));
    if (!next) {
      sqlite3_free(out);
      out = NULL;
      break;
    }
    out = next;
  }
  sqlite3_finalize(st);
  return out;
}

/* Sets m->has from IN's schema. 0, or -1. */
static int mg_has_tables(mg_ctx *m) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(m->db,
                         "SELECT 1 FROM mg_src.sqlite_schema WHERE type = 'table' AND name = ?", -1,
                         &st, NULL) != SQLITE_OK)
    return -1;
  for (size_t t = 0; t < sizeof mg_tables / sizeof mg_tables[0]; t++) {
    sqlite3_bind_text(st, 1, mg_tables[t], -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) m->has |= 1u << t;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return 0;
}

/* In the open transaction: OUT gains IN's strings and categories that it lacks
** (in IN's id order), and mg_str / mg_cat map IN's ids to OUT's. */
static int mg_maps(mg_ctx *m) {
  if (mg_exec(m,
              "INSERT INTO main.string(value) SELECT s.value FROM mg_src.string s"
              " WHERE NOT EXISTS (SELECT 1 FROM main.string o WHERE o.value = s.value)"
              " ORDER BY s.string_id;"
              "INSERT INTO main.category(name) SELECT c.name FROM mg_src.category c"
              " WHERE NOT EXISTS (SELECT 1 FROM main.category o WHERE o.name = c.name)"
              " ORDER BY c.category_id;"
              "CREATE TEMP TABLE mg_str(src_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);"
              "CREATE TEMP TABLE mg_cat(src_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL);"
              "INSERT INTO temp.mg_str SELECT s.string_id, o.string_id FROM mg_src.string s"
              " JOIN main.string o ON o.value = s.value;"
              "INSERT INTO temp.mg_cat SELECT c.category_id, o.category_id"
              " FROM mg_src.category c JOIN main.category o ON o.name = c.name;"))
    return -1;
  m->same_str =
      mg_int(m, "SELECT NOT EXISTS (SELECT 1 FROM temp.mg_str WHERE src_id <> out_id)", 0) == 1;
  m->same_cat =
      mg_int(m, "SELECT NOT EXISTS (SELECT 1 FROM temp.mg_cat WHERE src_id <> out_id)", 0) == 1;
  m->maps = 1;
  return 0;
}

/* A name or category id column of IN as OUT numbers it. */
static const char *mg_str_expr(const mg_ctx *m, int cat, const char *col, char *buf, size_t n) {
  if (cat ? m->same_cat : m->same_str) return col;
  snprintf(buf, n, "(SELECT out_id FROM temp.%s WHERE src_id = %s)", cat ? "mg_cat" : "mg_str",
           col);
  return buf;
}

/* Copies trace S of IN as trace N of job J of OUT, in the open transaction. Adds its
** rows to st. 0, or -1 (SQL error, message in the connection). */
static int mg_trace(mg_ctx *m, int64_t s, int64_t n, int64_t j, mg_stats *st) {
  int64_t d = (int64_t)((uint64_t)(n - s) << 32), lo = s << 32, hi = (s << 32) | 0xffffffff;
  char cat[96], name[96];
  int64_t k;
  char *tr = sqlite3_mprintf(
      "INSERT INTO main.trace(trace_id, job_id, %s) SELECT ?1, ?2, %s"
      " FROM mg_src.trace WHERE trace_id = ?3",
      m->trace_cols, m->trace_cols);
  k = tr ? mg_run(m, tr, 3, n, j, s) : -1;
  sqlite3_free(tr);
  if (k != 1) return -1;
  st->rows++;
  /* event, counter, flow: a rowid range each, ids shifted, names remapped */
  char ev_sql[1024], ct_sql[512], fl_sql[512];
  snprintf(ev_sql, sizeof ev_sql,
           "INSERT INTO main.event(event_id, trace_id, rank, seq, ph, category_id, name_id, pid,"
           " tid, ts, dur, stream, device, correlation, external_id, link_id, parent_id, depth,"
           " iteration, args) SELECT event_id + ?1, ?2, rank, seq, ph, %s, %s, pid, tid, ts, dur,"
           " stream, device, correlation, external_id, link_id + ?1, parent_id + ?1, depth,"
           " iteration, args FROM mg_src.event WHERE event_id BETWEEN ?3 AND ?4"
           " ORDER BY event_id",
           mg_str_expr(m, 1, "category_id", cat, sizeof cat),
           mg_str_expr(m, 0, "name_id", name, sizeof name));
  snprintf(ct_sql, sizeof ct_sql,
           "INSERT INTO main.counter(counter_id, trace_id, rank, seq, name_id, pid, ts, series,"
           " value) SELECT counter_id + ?1, ?2, rank, seq, %s, pid, ts, series, value"
           " FROM mg_src.counter WHERE counter_id BETWEEN ?3 AND ?4 ORDER BY counter_id",
           mg_str_expr(m, 0, "name_id", name, sizeof name));
  snprintf(fl_sql, sizeof fl_sql,
           "INSERT INTO main.flow(flow_id, trace_id, seq, ph, id, category_id, name_id, pid, tid,"
           " ts, bp) SELECT flow_id + ?1, ?2, seq, ph, id, %s, %s, pid, tid, ts, bp"
           " FROM mg_src.flow WHERE flow_id BETWEEN ?3 AND ?4 ORDER BY flow_id",
           mg_str_expr(m, 1, "category_id", cat, sizeof cat),
           mg_str_expr(m, 0, "name_id", name, sizeof name));
  const char *ranged[] = {ev_sql, ct_sql, fl_sql};
  for (int t = MG_EVENT; t <= MG_FLOW; t++) {
    if (!MG_HAS(m, t)) continue;
    if ((k = mg_run(m, ranged[t], 4, d, n, lo, hi)) < 0) return -1;
    st->rows += k;
    if (t == MG_EVENT) st->events += k;
  }
  static const char *const per_trace[] = {
      "INSERT INTO main.thread(trace_id, pid, tid, process_name, thread_name, sort_index)"
      " SELECT ?2, pid, tid, process_name, thread_name, sort_index FROM mg_src.thread"
      " WHERE trace_id = ?3 ORDER BY rowid",
      "INSERT INTO main.device(trace_id, device_id, name, total_global_mem, compute_major,"
      " compute_minor, num_sms, properties) SELECT ?2, device_id, name, total_global_mem,"
      " compute_major, compute_minor, num_sms, properties FROM mg_src.device"
      " WHERE trace_id = ?3 ORDER BY device_id",
      "INSERT INTO main.profiler_step(trace_id, step, event_id, ts, dur)"
      " SELECT ?2, step, event_id + ?1, ts, dur FROM mg_src.profiler_step WHERE trace_id = ?3"
      " ORDER BY event_id",
      "INSERT INTO main.ingest_issue(trace_id, code, count, first_seq, example, message)"
      " SELECT ?2, code, count, first_seq, example, message FROM mg_src.ingest_issue"
      " WHERE trace_id = ?3 ORDER BY issue_id",
      "INSERT INTO main.capture(trace_id, batch_size, mode, index_file)"
      " SELECT ?2, batch_size, mode, index_file FROM mg_src.capture WHERE trace_id = ?3",
      /* 5: the job already had the rank (ingest would have said so); captures never do */
      "INSERT INTO main.ingest_issue(trace_id, code, count, example, message)"
      " SELECT ?2, 'shared_rank', 1, t.file_name, 'another trace of this job has the same rank;"
      " analyses keep them apart by trace_id' FROM main.trace t WHERE t.trace_id = ?2"
      " AND t.trace_id NOT IN (SELECT trace_id FROM main.capture)"
      " AND EXISTS (SELECT 1 FROM main.trace o WHERE o.job_id = t.job_id AND o.rank = t.rank"
      " AND o.trace_id <> t.trace_id AND o.trace_id NOT IN (SELECT trace_id FROM main.capture))"
      " AND NOT EXISTS (SELECT 1 FROM main.ingest_issue i"
      " WHERE i.trace_id = ?2 AND i.code = 'shared_rank')"};
  for (size_t i = 0; i < sizeof per_trace / sizeof per_trace[0]; i++) {
    if (i < 5 && !MG_HAS(m, MG_THREAD + (int)i)) continue; /* 5 needs only trace */
    if ((k = mg_run(m, per_trace[i], 3, d, n, s)) < 0) return -1;
    st->rows += k;
  }
  return 0;
}

/* IN's failed files (ingest_issue rows of no trace) that OUT does not have yet. */
static int mg_failures(mg_ctx *m) {
  if (!MG_HAS(m, MG_ISSUE)) return 0;
  if (mg_exec(m,
              "BEGIN IMMEDIATE;"
              "INSERT INTO main.ingest_issue(trace_id, code, count, first_seq, example, message)"
              " SELECT NULL, code, count, first_seq, example, message FROM mg_src.ingest_issue i"
              " WHERE i.trace_id IS NULL AND NOT EXISTS (SELECT 1 FROM main.ingest_issue o"
              " WHERE o.trace_id IS NULL AND o.code = i.code AND o.example IS i.example"
              " AND o.message = i.message) ORDER BY issue_id;"
              "COMMIT;") == 0)
    return 0;
  if (!sqlite3_get_autocommit(m->db)) {
    char keep[256]; /* the error, not the rollback's */
    snprintf(keep, sizeof keep, "%s", sqlite3_errmsg(m->db));
    mg_exec(m, "ROLLBACK");
    snprintf(m->err, m->errlen, "%s: failed files: %s", m->in, keep);
  } else {
    mg_fail(m, NULL, "failed files");
  }
  return -1;
}

typedef struct mg_src_trace {
  int64_t id;
  char *file; /* file_name */
} mg_src_trace;

/* Copies every trace of IN that OUT lacks, one transaction each. */
static int mg_copy_all(mg_ctx *m, mg_stats *st, mg_note note, void *ctx) {
  sqlite3_stmt *sel;
  mg_src_trace *v = NULL;
  size_t n = 0, cap = 0;
  int rc = -1;
  if (sqlite3_prepare_v2(m->db, "SELECT trace_id, file_name FROM mg_src.trace ORDER BY trace_id",
                         -1, &sel, NULL) != SQLITE_OK)
    return mg_fail(m, NULL, "reading traces");
  int r;
  while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      mg_src_trace *p = realloc(v, cap * sizeof *p);
      if (!p) break;
      v = p;
    }
    v[n].id = sqlite3_column_int64(sel, 0);
    v[n].file = strdup((const char *)sqlite3_column_text(sel, 1));
    if (!v[n++].file) break;
  }
  sqlite3_finalize(sel);
  if (r != SQLITE_DONE) {
    snprintf(m->err, m->errlen, "%s: reading traces: %s", m->in,
             r == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(m->db));
    goto end;
  }
  for (size_t i = 0; i < n; i++) {
    char msg[1200];
    /* asked per trace: OUT may have gained it from an earlier IN or trace of this run */
    if (mg_int(m,
               "SELECT EXISTS (SELECT 1 FROM main.trace o JOIN mg_src.trace t"
               " ON t.content_hash = o.content_hash"
               " JOIN main.job oj ON oj.job_id = o.job_id"
               " WHERE t.trace_id = ?1 AND oj.name IS"
               " (SELECT name FROM temp.mg_job WHERE trace_id = t.trace_id))",
               1, v[i].id) == 1) {
      snprintf(msg, sizeof msg,
               "hta-ingest: %.400s: %.600s: skipped: already in the output (same content)", m->in,
               v[i].file);
      note(ctx, 2, msg);
      st->skipped++;
      continue;
    }
    if (mg_exec(m, "BEGIN IMMEDIATE")) {
      mg_fail(m, v[i].file, "begin");
      goto end;
    }
    int64_t nt = -1, job = -1;
    if ((!m->maps && mg_maps(m)) ||
        (nt = mg_int(m, "SELECT coalesce(max(trace_id), 0) + 1 FROM main.trace", 0)) < 0 ||
        mg_run(m,
               "INSERT INTO main.job(name, source, created_at) SELECT name, source,"
               " coalesce(created_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))"
               " FROM temp.mg_job WHERE trace_id = ?1 ON CONFLICT(name) DO NOTHING",
               1, v[i].id) < 0 ||
        (job = mg_int(m,
                      "SELECT o.job_id FROM main.job o JOIN temp.mg_job j ON j.name = o.name"
                      " WHERE j.trace_id = ?1",
                      1, v[i].id)) < 0 ||
        mg_trace(m, v[i].id, nt, job, st) || mg_exec(m, "COMMIT")) {
      mg_fail(m, v[i].file, "copy");
      mg_exec(m, "ROLLBACK");
      m->maps = 0; /* rolled back with the transaction */
      goto end;
    }
    st->traces++;
    snprintf(msg, sizeof msg, "hta-ingest: %.400s: %.600s: copied as trace %lld", m->in, v[i].file,
             (long long)nt);
    note(ctx, 3, msg);
  }
  rc = 0;
end:
  for (size_t i = 0; i < n; i++) free(v[i].file);
  free(v);
  return rc;
}

int mg_merge(sqlite3 *out, const char *in, mg_stats *st, mg_note note, void *ctx, char *err,
             size_t errlen) {
  mg_ctx m = {.db = out, .in = in, .err = err, .errlen = errlen};
  sqlite3_stmt *at;
  int rc = -1;
  if (sqlite3_prepare_v2(out, "ATTACH ? AS mg_src", -1, &at, NULL) != SQLITE_OK)
    return mg_fail(&m, NULL, "attach");
  sqlite3_bind_text(at, 1, in, -1, SQLITE_STATIC);
  int r = sqlite3_step(at);
  sqlite3_finalize(at);
  if (r != SQLITE_DONE) return mg_fail(&m, NULL, "attach");
  /* OUT may be in EXCLUSIVE locking mode (a new database): IN is only read, and
  ** others may read it meanwhile */
  mg_exec(&m, "PRAGMA mg_src.locking_mode = NORMAL");
  int64_t app = mg_int(&m, "PRAGMA mg_src.application_id", 0);
  int version = app == MG_APP_ID ? up_version(out, "mg_src") : -1;
  if (app != MG_APP_ID) {
    snprintf(err, errlen, "%s: not an hta-sqlite database", in);
  } else if (version < 0) {
    mg_fail(&m, NULL, "reading the schema");
  } else if (version > UP_SCHEMA) {
    snprintf(err, errlen, "%s: schema version %d is newer than this hta-ingest's (%d)", in, version,
             UP_SCHEMA);
  } else if (mg_has_tables(&m)) {
    mg_fail(&m, NULL, "reading the schema");
  } else if (!(m.trace_cols = mg_trace_cols(&m))) {
    mg_fail(&m, NULL, "reading trace's columns");
  } else if (mg_jobs(&m, version)) {
    mg_fail(&m, NULL, "jobs");
  } else if (mg_copy_all(&m, st, note, ctx) == 0) {
    rc = mg_failures(&m);
  }
  sqlite3_free(m.trace_cols);
  mg_exec(&m,
          "DROP TABLE IF EXISTS temp.mg_job; DROP TABLE IF EXISTS temp.mg_str;"
          " DROP TABLE IF EXISTS temp.mg_cat");
  if (sqlite3_exec(out, "DETACH mg_src", NULL, NULL, NULL) != SQLITE_OK && rc == 0)
    rc = mg_fail(&m, NULL, "detach");
  return rc;
}

void mg_count(sqlite3 *db, mg_stats *st) {
  sqlite3_stmt *q;
  memset(st, 0, sizeof *st);
  if (sqlite3_prepare_v2(db,
                         "SELECT (SELECT count(*) FROM trace), (SELECT count(*) FROM event),"
                         " (SELECT count(*) FROM trace) + (SELECT count(*) FROM event)"
                         " + (SELECT count(*) FROM counter) + (SELECT count(*) FROM flow)"
                         " + (SELECT count(*) FROM thread) + (SELECT count(*) FROM device)"
                         " + (SELECT count(*) FROM profiler_step) + (SELECT count(*) FROM capture)"
                         " + (SELECT count(*) FROM ingest_issue WHERE trace_id IS NOT NULL)",
                         -1, &q, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(q) == SQLITE_ROW) {
    st->traces = sqlite3_column_int64(q, 0);
    st->events = sqlite3_column_int64(q, 1);
    st->rows = sqlite3_column_int64(q, 2);
  }
  sqlite3_finalize(q);
}

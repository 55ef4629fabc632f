/*
** par.c: two reads of one database at once (hta_par2, declared in hta_common.h). Reading
** a trace (its call tree, its GPU rows, its plugin model) is most of an analysis's time,
** and two independent reads can run side by side: one on the caller's connection, the
** other in a thread of its own on a read-only connection to the same database file. The
** comparison reads its two runs so (ext/diff/), hta_findings the plugin's models beside
** its accounting (ext/findings/).
**
** HOW IT WORKS: the second connection is opened, given the extension's functions when
** the caller hands over its registrar (the findings read some analyses through SQL) and
** put in a read transaction before the thread starts. A database keeps its schema name
** there: "main" is the file opened itself, another schema the file attached under that
** name to an in-memory connection, so that the code runs unchanged. Where another
** connection could not see what the caller sees (a temporary or in-memory database, the
** caller inside a write transaction, a VFS of its own on an attached database), where
** SQLite is built without its mutexes, or where a connection cannot be had (opening or
** reading fails, no thread), both run on the caller's connection, one after the other.
** (An application that turned the mutexes off at start, SQLITE_CONFIG_SINGLETHREAD,
** cannot be told from one in multi-thread mode, as the sqlite3 shell is; the threads
** share no connection, and the second connection is opened, locked, unlocked and closed
** on the caller's thread.) Each read is one read transaction, so each is self-consistent.
** A stop of the caller's statement (sqlite3_interrupt: Ctrl-C; a progress handler:
** Datasette's time limit) is passed on to the second connection, so that both stop.
*/
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct par_worker {
  sqlite3 *conn;
  sqlite3_stmt *hold; /* a statement kept running on conn (see parTwin) */
  hta_par_fn fn;
  void *arg;
  int rc;
  int done; /* under mu */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} par_worker;

static void *parWorkerMain(void *p) {
  par_worker *w = p;
  int rc = w->fn(w->conn, w->arg);
  pthread_mutex_lock(&w->mu);
  w->rc = rc;
  w->done = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  return 0;
}

/* A read-only connection on which SCHEMA names the database SCHEMA of DB names, in a
** read transaction, with the extension when REGISTER_ALL is not NULL; NULL when there is
** none to be had (see HOW IT WORKS). *HOLD is a statement left running on it:
** sqlite3_interrupt acts only while one runs, and FN1 runs C code between its statements. */
static sqlite3 *parTwin(sqlite3 *db, const char *schema, int (*register_all)(sqlite3 *),
                        sqlite3_stmt **hold) {
  const char *file = sqlite3_db_filename(db, schema);
  int is_main = !sqlite3_stricmp(schema, "main"), rc;
  sqlite3_vfs *vfs = 0;
  sqlite3 *c = 0;
  sqlite3_stmt *st = 0;
  *hold = 0;
  if (!file || !*file || !sqlite3_stricmp(schema, "temp")) return 0;
  if (!sqlite3_threadsafe()) return 0; /* a library built without its mutexes */
  if (sqlite3_txn_state(db, schema) == SQLITE_TXN_WRITE) return 0;
  if (sqlite3_file_control(db, schema, SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || !vfs)
    return 0;
  if (!is_main && vfs != sqlite3_vfs_find(0)) return 0;
  rc = sqlite3_open_v2(is_main ? file : ":memory:", &c, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                       is_main ? vfs->zName : 0);
  if (rc == SQLITE_OK && !is_main) rc = sqlite3_prepare_v2(c, "ATTACH ?1 AS ?2", -1, &st, 0);
  if (st) {
    sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
  }
  if (rc == SQLITE_OK && register_all) rc = register_all(c);
  if (rc == SQLITE_OK) rc = sqlite3_exec(c, "BEGIN", 0, 0, 0);
  /* the read transaction starts with the first read: this one's, left running */
  if (rc == SQLITE_OK) rc = hta_prepare(c, schema, "SELECT count(*) FROM $S.sqlite_schema", hold);
  if (rc == SQLITE_OK) rc = sqlite3_step(*hold) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR;
  if (rc != SQLITE_OK) {
    sqlite3_finalize(*hold);
    *hold = 0;
    sqlite3_close(c);
    return 0;
  }
  return c;
}

/* Whether DB's statement is to stop: sqlite3_interrupt was called, or a progress handler
** (Datasette's time limit) asks for it. A handler runs only every N virtual machine
** steps of a statement, so this one takes a few thousand. */
static int parStopWanted(sqlite3 *db) {
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db,
                              "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c"
                              " WHERE i < 500) SELECT count(*) FROM c",
                              -1, &st, 0);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_INTERRUPT || hta_interrupted(db);
}

/* Waits for W, passing a stop of DB's statement on to its connection; 1 when it did. */
static int parWait(sqlite3 *db, par_worker *w) {
  int passed = 0;
  pthread_mutex_lock(&w->mu);
  while (!w->done) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&w->cv, &w->mu, &until);
    if (!w->done && !passed) {
      pthread_mutex_unlock(&w->mu);
      if (parStopWanted(db)) sqlite3_interrupt(w->conn), passed = 1;
      pthread_mutex_lock(&w->mu);
    }
  }
  pthread_mutex_unlock(&w->mu);
  return passed;
}

int hta_par2(sqlite3 *db, const char *schema, int (*register_all)(sqlite3 *), hta_par_fn fn0,
             void *arg0, hta_par_fn fn1, void *arg1) {
  par_worker w;
  pthread_t th;
  int rc, started = 0, stopped = 0;
  memset(&w, 0, sizeof w);
  w.fn = fn1;
  w.arg = arg1;
  if ((w.conn = parTwin(db, schema, register_all, &w.hold)) != 0) {
    int ok_mu = pthread_mutex_init(&w.mu, 0) == 0,
        ok_cv = ok_mu && pthread_cond_init(&w.cv, 0) == 0;
    started = ok_cv && pthread_create(&th, 0, parWorkerMain, &w) == 0;
    if (!started) {
      if (ok_cv) pthread_cond_destroy(&w.cv);
      if (ok_mu) pthread_mutex_destroy(&w.mu);
    }
  }
  rc = fn0(db, arg0);
  if (started) {
    if (rc != SQLITE_OK) sqlite3_interrupt(w.conn); /* the other read is of no use now */
    stopped = parWait(db, &w);
    pthread_join(th, 0);
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    if (rc == SQLITE_OK) rc = w.rc;
  } else if (rc == SQLITE_OK) {
    rc = fn1(db, arg1);
  }
  if (w.conn) {
    sqlite3_finalize(w.hold);
    sqlite3_exec(w.conn, "COMMIT", 0, 0, 0);
    sqlite3_close(w.conn);
  }
  if (rc == SQLITE_OK && (stopped || hta_interrupted(db))) rc = SQLITE_INTERRUPT;
  return rc;
}

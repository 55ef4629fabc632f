/*
** fuzz_sql.c: libFuzzer target for the SQL surface of hta.so: every hta_*
** function and table-valued function, called with hostile arguments over a
** small real database whose rows the input may also corrupt.
**
**   make fuzz-quick
**   ./build/fuzz/fuzz_sql -dict=tests/fuzz/sql.dict build/fuzz/corpus-sql tests/fuzz/seed-sql
**
** HOW IT WORKS: at start-up an in-memory database gets the schema (HTA_SCHEMA_SQL)
** and the rows of fuzz_sql_rows.h (a two-rank trace ingested by hta-ingest), and
** the extension is registered statically (sqlite3_hta_init, SQLITE_CORE): only
** the default entry point, so nothing here can touch a file. The functions and
** modules to call are discovered from pragma_function_list / pragma_module_list
** and pragma_table_xinfo, so a new analysis is fuzzed without editing this file.
**
** Each input is a little program, read byte by byte (fzByte; zeros once it runs
** out). Inside one transaction, rolled back at the end, it runs up to FZ_MAXOPS
** operations:
**   - corrupt the data: UPDATE one column of some rows of event, trace,
**     profiler_step, string, category, kernel_type_rule or counter to a hostile
**     value, or INSERT a hostile event row;
**   - call a table-valued function: positional arguments, WHERE constraints on
**     hidden and visible columns with =, <, IN, IS NULL, a join that re-filters
**     the cursor once per outer row, two cursors at once, GROUP BY / LIMIT;
**   - call a scalar function, or an aggregate over hostile VALUES rows, as a
**     plain aggregate, with GROUP BY, or as a window function when it is one.
** Hostile values (fzBindValue): NULL, 0, +-1, INT64_MIN/MAX, +-1e308, +-inf,
** NaN (SQLite turns it into NULL), -0.0, denormals, text that looks like a
** number, empty and 300 kB text, invalid UTF-8, blobs, zeroblob, ids that exist,
** and raw bytes of the input as text, blob, integer or double.
** The first byte can also make the progress handler interrupt the statement
** after N steps, or make the Nth allocation fail (SQLite's OOM testing style):
** both drive the analyses' error and cleanup paths, where leaks hide.
**
** FUZZ_SQL_TRACE=1 prints each statement with its values (to turn a crash
** into a reproducer); FUZZ_SQL_VERBOSE=1 lists the targets found.
**
** Failures: the sanitizers (ASan, UBSan, LeakSanitizer at exit of each run),
** and an abort when a statement returns SQLITE_MISUSE, SQLITE_INTERNAL or
** SQLITE_CORRUPT, which no argument may cause.
*/
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_sql_rows.h"
#include "schema_sql.h"

int sqlite3_hta_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

#define FZ_MAXOPS 8     /* operations per input */
#define FZ_MAXROWS 5000 /* rows read from one statement */
#define FZ_MAXTARGETS 128
#define FZ_BIGTEXT 300000 /* bytes of the long text value */

/* ------------------------------------------------------------ the input */

typedef struct fz_in {
  const uint8_t *p;
  size_t n, i;
} fz_in;

static unsigned fzByte(fz_in *in) { return in->i < in->n ? in->p[in->i++] : 0; }

static uint64_t fzU64(fz_in *in) {
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) v = v << 8 | fzByte(in);
  return v;
}

/* Up to MAX raw bytes of the input (a length byte first); *n gets the count. */
static const uint8_t *fzBytes(fz_in *in, size_t max, size_t *n) {
  size_t k = fzByte(in) % (max + 1);
  if (k > in->n - in->i) k = in->n - in->i;
  const uint8_t *p = in->p + in->i;
  in->i += k;
  *n = k;
  return p;
}

/* ------------------------------------------------------------ fault injection */

static sqlite3_mem_methods fzMem; /* SQLite's own allocator */
static long fzFailAt;             /* > 0: the fzFailAt-th allocation from now fails */
static int fzFailRepeat;          /* after the first failure, keep failing */

static int fzShouldFail(void) {
  if (fzFailAt <= 0) return 0;
  if (--fzFailAt > 0) return 0;
  fzFailAt = fzFailRepeat ? 1 : 0;
  return 1;
}
static void *fzMalloc(int n) { return fzShouldFail() ? NULL : fzMem.xMalloc(n); }
static void *fzRealloc(void *p, int n) { return fzShouldFail() ? NULL : fzMem.xRealloc(p, n); }

/* ------------------------------------------------------------ targets */

enum { FZ_SCALAR, FZ_AGG, FZ_WINDOW, FZ_TVF };

typedef struct fz_target {
  char *name;
  int kind;
  int narg; /* functions: -1 = any */
  int ncol; /* tables: columns (visible and hidden) */
  char **col;
  int *hidden;
  int nhidden;
} fz_target;

static sqlite3 *fzDb;
static fz_target fzT[FZ_MAXTARGETS];
static int fzNT;
static char *fzBig; /* FZ_BIGTEXT bytes of 'x' */

/* ------------------------------------------------------------ statements */

static void fzCheckRc(int rc, const char *sql) {
  int prim = rc & 0xff;
  if (prim == SQLITE_MISUSE || prim == SQLITE_INTERNAL || prim == SQLITE_CORRUPT) {
    fprintf(stderr, "fuzz_sql: %s (%d: %s) from: %s\n", sqlite3_errstr(rc), rc,
            sqlite3_errmsg(fzDb), sql);
    abort();
  }
}

/* Binds a hostile value to parameter I of ST. */
static void fzBindValue(fz_in *in, sqlite3_stmt *st, int i) {
  /* clang-format off */
  static const char *const texts[] = {
      "", "1", " 7 ", "1e999", "-0", "0x10", "NaN", "inf", "main", "temp", "nccl*", "*", "[",
      "%", "rank", "\xff\xfe", "\xed\xa0\x80", "aten::mm", "ProfilerStep#1", "Memcpy HtoD",
      "a\0b"};
  /* clang-format on */
  size_t n;
  const uint8_t *b;
  double d;
  uint64_t u;
  unsigned sel = fzByte(in) % 32;
  switch (sel) {
  case 0: sqlite3_bind_null(st, i); break;
  case 1: sqlite3_bind_int64(st, i, 0); break;
  case 2: sqlite3_bind_int64(st, i, 1); break;
  case 3: sqlite3_bind_int64(st, i, -1); break;
  case 4: sqlite3_bind_int64(st, i, INT64_MAX); break;
  case 5: sqlite3_bind_int64(st, i, INT64_MIN); break;
  case 6: sqlite3_bind_int64(st, i, (int64_t)INT32_MAX + 1); break;
  case 7: sqlite3_bind_int64(st, i, (int64_t)INT32_MIN - 1); break;
  case 8: sqlite3_bind_double(st, i, 1e308); break;
  case 9: sqlite3_bind_double(st, i, -1e308); break;
  case 10: sqlite3_bind_double(st, i, INFINITY); break;
  case 11: sqlite3_bind_double(st, i, -INFINITY); break;
  case 12: sqlite3_bind_double(st, i, NAN); break;
  case 13: sqlite3_bind_double(st, i, 0.5); break;
  case 14: sqlite3_bind_double(st, i, -0.0); break;
  case 15: sqlite3_bind_double(st, i, 4.9e-324); break;
  case 16: sqlite3_bind_double(st, i, 9.2233720368547758e18); break;
  case 17: sqlite3_bind_double(st, i, (double)(int)(fzByte(in) % 8) + 0.999999); break;
  case 18:
  case 19: {
    unsigned k = fzByte(in) % (sizeof texts / sizeof texts[0]);
    sqlite3_bind_text(st, i, texts[k], k == sizeof texts / sizeof texts[0] - 1 ? 3 : -1,
                      SQLITE_STATIC);
    break;
  }
  case 20: sqlite3_bind_text(st, i, fzBig, FZ_BIGTEXT, SQLITE_STATIC); break;
  case 21: sqlite3_bind_blob(st, i, "\x00\xff\x01", 3, SQLITE_STATIC); break;
  case 22: sqlite3_bind_zeroblob(st, i, (int)(fzByte(in) * 97)); break;
  case 23:
    b = fzBytes(in, 64, &n);
    sqlite3_bind_text(st, i, (const char *)b, (int)n, SQLITE_TRANSIENT);
    break;
  case 24:
    b = fzBytes(in, 64, &n);
    sqlite3_bind_blob(st, i, b, (int)n, SQLITE_TRANSIENT);
    break;
  case 25: sqlite3_bind_int64(st, i, (int64_t)fzU64(in)); break;
  case 26:
    u = fzU64(in);
    memcpy(&d, &u, sizeof d);
    sqlite3_bind_double(st, i, d);
    break;
  case 27: /* an event id that exists (two traces of 52 rows) */
    sqlite3_bind_int64(st, i, ((int64_t)(1 + fzByte(in) % 2) << 32) | (fzByte(in) % 56));
    break;
  case 28:
    sqlite3_bind_int64(st, i, (int64_t)(fzByte(in) % 16) - 4);
    break; /* small ints: ranks, flags */
  case 29:
    sqlite3_bind_int64(st, i, (int64_t)1000000000 + (int64_t)fzByte(in) * 1000);
    break;                                                                /* a ts */
  case 30: sqlite3_bind_double(st, i, (double)fzByte(in) / 255.0); break; /* a ratio */
  default: sqlite3_bind_int64(st, i, (int64_t)fzByte(in) - 128); break;
  }
}

/* Prepares SQL, binds NPARAM hostile values, steps to the end reading every
** column, finalizes. Errors are expected; only fzCheckRc's codes abort. */
static void fzRun(fz_in *in, const char *sql) {
  static int trace = -1;
  if (trace < 0) trace = getenv("FUZZ_SQL_TRACE") != NULL;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(fzDb, sql, -1, &st, NULL);
  fzCheckRc(rc, sql);
  if (rc != SQLITE_OK || !st) {
    sqlite3_finalize(st);
    return;
  }
  int np = sqlite3_bind_parameter_count(st);
  for (int i = 1; i <= np; i++) fzBindValue(in, st, i);
  if (trace) {
    char *x = sqlite3_expanded_sql(st);
    fprintf(stderr, "fuzz_sql: %.2000s\n", x ? x : sql);
    sqlite3_free(x);
  }
  for (int row = 0; row < FZ_MAXROWS; row++) {
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) break;
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      switch (sqlite3_column_type(st, c)) {
      case SQLITE_TEXT: (void)sqlite3_column_text(st, c); break;
      case SQLITE_BLOB: (void)sqlite3_column_blob(st, c); break;
      case SQLITE_FLOAT: (void)sqlite3_column_double(st, c); break;
      default: (void)sqlite3_column_int64(st, c); break;
      }
      (void)sqlite3_column_bytes(st, c);
    }
  }
  fzCheckRc(rc, sql);
  fzCheckRc(sqlite3_finalize(st), sql);
}

/* ------------------------------------------------------------ operations */

/* Columns the analyses read, and the tables they live in. */
static const char *const fzCols[][2] = {
    {"event", "ts"},
    {"event", "dur"},
    {"event", "stream"},
    {"event", "name_id"},
    {"event", "category_id"},
    {"event", "link_id"},
    {"event", "parent_id"},
    {"event", "depth"},
    {"event", "correlation"},
    {"event", "iteration"},
    {"event", "args"},
    {"event", "trace_id"},
    {"event", "rank"},
    {"event", "ph"},
    {"event", "seq"},
    {"event", "external_id"},
    {"event", "event_id"},
    {"trace", "rank"},
    {"trace", "min_ts"},
    {"trace", "max_end"},
    {"trace", "event_count"},
    {"trace", "trace_id"},
    {"trace", "device_type"},
    {"profiler_step", "step"},
    {"profiler_step", "ts"},
    {"profiler_step", "dur"},
    {"profiler_step", "trace_id"},
    {"string", "value"},
    {"category", "name"},
    {"kernel_type_rule", "pattern"},
    {"kernel_type_rule", "kernel_type"},
    {"kernel_type_rule", "priority"},
    {"counter", "value"},
    {"counter", "series"},
    {"counter", "ts"},
};

static void fzCorrupt(fz_in *in) {
  unsigned k = fzByte(in) % (sizeof fzCols / sizeof fzCols[0]);
  char *sql;
  switch (fzByte(in) % 3) {
  case 0: /* one row */
    sql = sqlite3_mprintf(
        "UPDATE OR IGNORE \"%w\" SET \"%w\" = ?1 WHERE rowid = (SELECT rowid FROM \"%w\" "
        "ORDER BY rowid LIMIT 1 OFFSET ?2)",
        fzCols[k][0], fzCols[k][1], fzCols[k][0]);
    break;
  case 1: /* every row */
    sql = sqlite3_mprintf("UPDATE OR IGNORE \"%w\" SET \"%w\" = ?1", fzCols[k][0], fzCols[k][1]);
    break;
  default: /* a row in n */
    sql = sqlite3_mprintf(
        "UPDATE OR IGNORE \"%w\" SET \"%w\" = ?1 WHERE rowid %% (1 + abs(?2 %% 7)) = 0",
        fzCols[k][0], fzCols[k][1]);
    break;
  }
  if (sql) fzRun(in, sql);
  sqlite3_free(sql);
}

static void fzInsertEvent(fz_in *in) {
  fzRun(in,
        "INSERT OR REPLACE INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, ts, "
        "dur,"
        " stream, correlation, link_id, parent_id, depth, iteration, args)"
        " VALUES (?1, ?2, ?3, ?4, coalesce(?5, 'X'), ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
        "?16)");
}

/* "?1, ?2, ..., ?N" or a hostile SQL expression in some places. */
static void fzArgs(fz_in *in, sqlite3_str *s, int n) {
  static const char *const exprs[] = {"zeroblob(100000)",
                                      "printf('%.*c', 200000, 'x')",
                                      "char(55296)",
                                      "x'ff'",
                                      "-9223372036854775808",
                                      "1e999",
                                      "-(1e999)",
                                      "(SELECT min(rank) FROM trace)",
                                      "'main'",
                                      "9223372036854775807 + 1",
                                      "CAST(x'c3' AS TEXT)"};
  for (int i = 1; i <= n; i++) {
    if (i > 1) sqlite3_str_appendall(s, ", ");
    unsigned b = fzByte(in);
    if (b % 8 == 7)
      sqlite3_str_appendall(s, exprs[(b >> 3) % (sizeof exprs / sizeof exprs[0])]);
    else
      sqlite3_str_appendf(s, "?%d", i);
  }
}

static const fz_target *fzPick(fz_in *in, int tvf) {
  int n = 0, idx[FZ_MAXTARGETS];
  for (int i = 0; i < fzNT; i++)
    if ((fzT[i].kind == FZ_TVF) == tvf) idx[n++] = i;
  return n ? &fzT[idx[fzByte(in) % n]] : NULL;
}

static const char *fzCol(fz_in *in, const fz_target *t, int hidden_only) {
  if (hidden_only && t->nhidden) {
    int k = (int)(fzByte(in) % t->nhidden);
    for (int c = 0; c < t->ncol; c++)
      if (t->hidden[c] && k-- == 0) return t->col[c];
  }
  return t->col[fzByte(in) % t->ncol];
}

static void fzTvf(fz_in *in) {
  const fz_target *t = fzPick(in, 1);
  if (!t) return;
  static const char *const ops[] = {"= ?1",        "> ?1",    "< ?1",    "IS ?1",
                                    "IN (?1, ?2)", "IS NULL", "LIKE ?1", "!= ?1"};
  sqlite3_str *s = sqlite3_str_new(fzDb);
  const char *a, *b;
  switch (fzByte(in) % 7) {
  case 0: /* positional arguments, possibly too many */
    sqlite3_str_appendf(s, "SELECT * FROM \"%w\"(", t->name);
    fzArgs(in, s, (int)(fzByte(in) % (t->nhidden + 2)));
    sqlite3_str_appendall(s, ")");
    break;
  case 1: /* EQ constraints on two columns (hidden parameters or rank) */
    a = fzCol(in, t, 1);
    b = fzCol(in, t, fzByte(in) & 1);
    sqlite3_str_appendf(s, "SELECT * FROM \"%w\" WHERE \"%w\" = ?1 AND \"%w\" = ?2", t->name, a, b);
    break;
  case 2: /* other operators */
    a = fzCol(in, t, fzByte(in) & 1);
    sqlite3_str_appendf(s, "SELECT * FROM \"%w\" WHERE \"%w\" %s", t->name, a, ops[fzByte(in) % 8]);
    break;
  case 3: /* the cursor re-filtered once per outer row */
    a = fzCol(in, t, 1);
    sqlite3_str_appendf(
        s, "SELECT * FROM (VALUES (?1), (?2), (?3)) AS v, \"%w\" AS t WHERE t.\"%w\" = v.column1",
        t->name, a);
    break;
  case 4: /* positional argument from an outer row */
    sqlite3_str_appendf(s, "SELECT * FROM (VALUES (?1), (?2)) AS v, \"%w\"(v.column1) AS t",
                        t->name);
    break;
  case 5: /* aggregation, ordering, LIMIT/OFFSET */
    a = fzCol(in, t, 0);
    sqlite3_str_appendf(s,
                        "SELECT \"%w\", count(*), max(rowid) FROM \"%w\" GROUP BY 1 ORDER BY 1 "
                        "DESC LIMIT ?1 OFFSET ?2",
                        a, t->name);
    break;
  default: { /* two cursors at once */
    const fz_target *u = fzPick(in, 1);
    sqlite3_str_appendf(s, "SELECT * FROM \"%w\" AS a, \"%w\" AS b WHERE a.rowid < ?1 LIMIT 200",
                        t->name, u->name);
    break;
  }
  }
  char *sql = sqlite3_str_finish(s);
  if (sql) fzRun(in, sql);
  sqlite3_free(sql);
}

static void fzFunction(fz_in *in) {
  const fz_target *t = fzPick(in, 0);
  if (!t) return;
  int n = t->narg >= 0 ? t->narg : (int)(fzByte(in) % 5);
  sqlite3_str *s = sqlite3_str_new(fzDb);
  if (t->kind == FZ_SCALAR) {
    sqlite3_str_appendf(s, "SELECT \"%w\"(", t->name);
    fzArgs(in, s, n);
    sqlite3_str_appendall(s, ")");
    if (fzByte(in) & 1) sqlite3_str_appendall(s, " FROM event"); /* once per row */
  } else {
    /* hostile rows: VALUES (?1, ?2), (?3, ?4), ... */
    int rows = 1 + (int)(fzByte(in) % 6), k = 1;
    sqlite3_str_appendall(s, "WITH v AS (SELECT 0 AS g");
    for (int c = 0; c < n; c++) sqlite3_str_appendf(s, ", 0 AS c%d", c);
    sqlite3_str_appendall(s, " WHERE 0");
    for (int r = 0; r < rows; r++) {
      sqlite3_str_appendf(s, " UNION ALL SELECT %d", r % 2);
      for (int c = 0; c < n; c++) sqlite3_str_appendf(s, ", ?%d", k++);
    }
    sqlite3_str_appendf(s, ") SELECT \"%w\"(", t->name);
    for (int c = 0; c < n; c++) sqlite3_str_appendf(s, "%sc%d", c ? ", " : "", c);
    switch (fzByte(in) % 4) {
    case 0: sqlite3_str_appendall(s, ") FROM v"); break;
    case 1: sqlite3_str_appendall(s, ") FROM v GROUP BY g"); break;
    case 2:
      if (t->kind == FZ_WINDOW) {
        sqlite3_str_appendall(
            s, ") OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM v");
        break;
      }
      /* fall through */
    default: sqlite3_str_appendall(s, ") FROM v WHERE g = ?1"); break;
    }
  }
  char *sql = sqlite3_str_finish(s);
  if (sql) fzRun(in, sql);
  sqlite3_free(sql);
}

/* An aggregate over the (possibly corrupted) event table itself. */
static void fzAggregateEvents(fz_in *in) {
  static const char *const q[] = {
      "SELECT hta_union_length(ts, ts + dur) FROM event WHERE stream IS NOT NULL GROUP BY trace_id",
      "SELECT hta_quantile(dur, ?1) FROM event GROUP BY name_id",
      "SELECT hta_median(dur) FROM event",
      "SELECT hta_union_length(?1, ?2) FROM event",
      "SELECT hta_kernel_type(value), hta_shorten_name(value), hta_memory_kind(value) FROM string",
  };
  fzRun(in, q[fzByte(in) % (sizeof q / sizeof q[0])]);
}

/* ------------------------------------------------------------ set-up */

static void fzDie(const char *what) {
  fprintf(stderr, "fuzz_sql: %s: %s\n", what, fzDb ? sqlite3_errmsg(fzDb) : "no database");
  exit(1);
}

static void fzDiscover(void) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          fzDb,
          "SELECT name, type, narg FROM pragma_function_list WHERE name LIKE 'hta\\_%' ESCAPE '\\'"
          " UNION SELECT name, 'v', 0 FROM pragma_module_list WHERE name LIKE 'hta\\_%' ESCAPE '\\'"
          " ORDER BY 1, 3",
          -1, &st, NULL) != SQLITE_OK)
    fzDie("discover");
  while (sqlite3_step(st) == SQLITE_ROW && fzNT < FZ_MAXTARGETS) {
    fz_target *t = &fzT[fzNT++];
    const char *type = (const char *)sqlite3_column_text(st, 1);
    t->name = strdup((const char *)sqlite3_column_text(st, 0));
    t->narg = sqlite3_column_int(st, 2);
    t->kind = type[0] == 'v'   ? FZ_TVF
              : type[0] == 'w' ? FZ_WINDOW
              : type[0] == 'a' ? FZ_AGG
                               : FZ_SCALAR;
  }
  sqlite3_finalize(st);
  for (int i = 0; i < fzNT; i++) {
    fz_target *t = &fzT[i];
    if (t->kind != FZ_TVF) continue;
    if (sqlite3_prepare_v2(fzDb, "SELECT name, hidden FROM pragma_table_xinfo(?1)", -1, &st,
                           NULL) != SQLITE_OK)
      fzDie("table_xinfo");
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
      t->col = realloc(t->col, (size_t)(t->ncol + 1) * sizeof *t->col);
      t->hidden = realloc(t->hidden, (size_t)(t->ncol + 1) * sizeof *t->hidden);
      if (!t->col || !t->hidden) fzDie("out of memory");
      t->col[t->ncol] = strdup((const char *)sqlite3_column_text(st, 0));
      t->hidden[t->ncol] = sqlite3_column_int(st, 1) != 0;
      t->nhidden += t->hidden[t->ncol];
      t->ncol++;
    }
    sqlite3_finalize(st);
    if (t->ncol == 0) fzDie(t->name);
  }
  if (getenv("FUZZ_SQL_VERBOSE")) {
    for (int i = 0; i < fzNT; i++)
      fprintf(stderr, "target %s kind %d narg %d columns %d hidden %d\n", fzT[i].name, fzT[i].kind,
              fzT[i].narg, fzT[i].ncol, fzT[i].nhidden);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  sqlite3_mem_methods m;
  if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &fzMem) != SQLITE_OK) fzDie("GETMALLOC");
  m = fzMem;
  m.xMalloc = fzMalloc;
  m.xRealloc = fzRealloc;
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK) fzDie("MALLOC");
  fzBig = malloc(FZ_BIGTEXT + 1);
  if (!fzBig) fzDie("out of memory");
  memset(fzBig, 'x', FZ_BIGTEXT);
  fzBig[FZ_BIGTEXT] = 0;
  char *err = NULL;
  if (sqlite3_open(":memory:", &fzDb) != SQLITE_OK) fzDie("open");
  if (sqlite3_exec(fzDb, HTA_SCHEMA_SQL, NULL, NULL, &err) != SQLITE_OK) fzDie("schema");
  if (sqlite3_exec(fzDb, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(fzDb, FZ_SEED_ROWS, NULL, NULL, &err) != SQLITE_OK ||
      sqlite3_exec(fzDb, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
    fzDie(err ? err : "seed rows");
  if (sqlite3_exec(fzDb, HTA_INDEXES_SQL, NULL, NULL, &err) != SQLITE_OK) fzDie("indexes");
  if (sqlite3_hta_init(fzDb, &err, NULL) != SQLITE_OK) fzDie(err ? err : "sqlite3_hta_init");
  /* A runaway recursive CTE in a corrupt parent chain would otherwise take long. */
  sqlite3_limit(fzDb, SQLITE_LIMIT_LENGTH, 10000000);
  fzDiscover();
  return 0;
}

static int fzProgressLeft;
static int fzProgress(void *p) {
  (void)p;
  return --fzProgressLeft <= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size, 0};
  unsigned mode = fzByte(&in);
  long fail_at = 0;
  if (mode % 16 == 1) { /* OOM at allocation N */
    fail_at = 1 + (long)fzByte(&in) * 256;
    fail_at += (long)fzByte(&in);
  }
  fzFailRepeat = (mode >> 4) & 1;
  if (sqlite3_exec(fzDb, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) abort();
  if (mode % 16 == 2) {
    fzProgressLeft = 1 + (int)fzByte(&in);
    sqlite3_progress_handler(fzDb, 1 + (int)(fzByte(&in) % 64), fzProgress, NULL);
  }
  fzFailAt = fail_at;
  for (int op = 0; op < FZ_MAXOPS && in.i < in.n; op++) {
    /* An interrupted or failed write rolls the whole transaction back: stop, or
    ** the next corruption would be committed and outlive this input. */
    if (sqlite3_get_autocommit(fzDb)) break;
    switch (fzByte(&in) % 10) {
    case 0:
    case 1: fzCorrupt(&in); break;
    case 2: fzInsertEvent(&in); break;
    case 3:
    case 4:
    case 5:
    case 6: fzTvf(&in); break;
    case 7:
    case 8: fzFunction(&in); break;
    default: fzAggregateEvents(&in); break;
    }
  }
  fzFailAt = 0;
  sqlite3_progress_handler(fzDb, 0, NULL, NULL);
  if (!sqlite3_get_autocommit(fzDb) &&
      sqlite3_exec(fzDb, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "fuzz_sql: ROLLBACK failed: %s\n", sqlite3_errmsg(fzDb));
    abort();
  }
  return 0;
}

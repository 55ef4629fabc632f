/*
** io_events.c: hta_trace_events, a raw trace file read as a table, streaming,
** without ingesting it. Io entry point only (SQLITE_VTAB_DIRECTONLY, see io.c).
**
**   SELECT count(*) FROM hta_trace_events('traces/rank0.json.gz');
**   SELECT name, ts_us, dur_us FROM hta_trace_events('rank0.json') WHERE cat = 'kernel';
**   SELECT json_extract(args, '$.correlation') FROM hta_trace_events
**    WHERE path = 'rank0.json' AND ph = 'X';
**
** hta_trace_events(path)
**   path  a trace file: JSON or gzip-compressed JSON (by magic bytes, not name)
** Columns: seq, ph, cat, name, pid, tid, ts_us, dur_us, args; path (HIDDEN).
**
** Requirements (tests cite them as EV-n):
**  1. One row per object element of traceEvents, in file order; seq is the
**     element's position counting every element (event.seq of an ingest).
**     Elements that are not objects are counted but give no row. Both layouts:
**     an object with traceEvents (anywhere among the top-level keys) or a bare
**     array (ingest/kineto.c K1-K2).
**  2. ph, cat, name, pid, tid: a JSON string is TEXT, a number is INTEGER when
**     its text is an integer that fits in 64 bits and REAL otherwise; any other
**     value (or an absent member) is NULL. A repeated member: the last one wins.
**  3. ts_us, dur_us: REAL, the number as written read as a double (µs, not
**     converted or shifted); NULL when absent or not a number.
**  4. args: the member's value as minified JSON text, every value exact
**     (trace_writer.h TW-1); NULL when absent.
**  5. Errors are SQL errors "hta_trace_events: PATH: byte N: what" (N = offset in
**     the uncompressed JSON), or "hta_trace_events: PATH: cannot open: ..." and
**     the reader's gzip messages; rows before the error have been returned. The
**     whole file is checked: trailing garbage and a truncated gzip are errors,
**     and so is valid JSON without traceEvents ("not a Kineto trace: ..."). A NULL
**     path is an error; the path is required.
**  6. Memory stays constant whatever the file size: one event at a time.
**
** HOW IT WORKS: a pull cursor over ingest/reader.c and ingest/json.c. xFilter
** opens the file and moves to the first event; xNext decodes one element:
** scalars into the row, args through tw_copy_value into a memory buffer,
** everything else skipped with js_skip.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "reader.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static const char evSchema[] =
    "CREATE TABLE x(seq INTEGER, ph TEXT, cat TEXT, name TEXT, pid, tid, ts_us REAL,"
    " dur_us REAL, args TEXT, path HIDDEN)";
#define EV_SEQ 0
#define EV_PH 1
#define EV_CAT 2
#define EV_NAME 3
#define EV_PID 4
#define EV_TID 5
#define EV_TS 6
#define EV_DUR 7
#define EV_ARGS 8
#define EV_PATH 9
#define EV_NSCALAR 5 /* ph, cat, name, pid, tid: row.v[col - EV_PH] */

/* Cursor states */
enum { EV_START, EV_TOP, EV_EVENTS, EV_EOF };

/* A scalar cell of the current row. */
typedef struct ev_val {
  int type; /* SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT */
  int64_t i;
  double d;
  size_t off, n; /* TEXT: bytes in ev_cursor.strs */
} ev_val;

typedef struct ev_vtab {
  sqlite3_vtab base;
} ev_vtab;

typedef struct ev_cursor {
  sqlite3_vtab_cursor base;
  rd_reader rd;
  js_lexer js;
  int is_open;         /* rd and js hold a file */
  int state;           /* EV_* */
  int seen;            /* a traceEvents array was found */
  int is_array;        /* bare-array layout */
  int64_t count;       /* elements of traceEvents so far */
  sqlite3_value *path; /* copy of the argument */
  /* the current row */
  int64_t seq;
  ev_val v[EV_NSCALAR];
  ev_val ts, dur;
  int has_args;
  tw_out strs; /* texts of v[] */
  tw_out args; /* args JSON text */
} ev_cursor;

/* ---------------------------------------------------------------- decoding */

/* Sets the cursor's error "hta_trace_events: PATH: MSG". */
static int evError(ev_cursor *c, const char *msg) {
  const char *p = c->path ? (const char *)sqlite3_value_text(c->path) : 0;
  hta_vtab_error(c->base.pVtab, "hta_trace_events: %s: %s", p ? p : "", msg);
  return SQLITE_ERROR;
}

/* The JSON error of the lexer as an SQL error (EV-5). */
static int evJsonError(ev_cursor *c) {
  char msg[JS_ERR_MAX + 32];
  if (c->js.nomem) return SQLITE_NOMEM;
  snprintf(msg, sizeof msg, "byte %llu: %s", (unsigned long long)c->js.err_off, c->js.err);
  return evError(c, msg);
}

/* Reads the number token's text as a double; 1 when it is an exact int64 too. */
static int evNumber(const js_lexer *js, double *d, int64_t *i) {
  char small[64], *buf = small;
  int is_int = 1;
  if (js->n >= sizeof small) {
    buf = malloc(js->n + 1);
    if (!buf) return -1;
  }
  memcpy(buf, js->s, js->n);
  buf[js->n] = 0;
  for (size_t k = 0; k < js->n; k++) {
    if (buf[k] == '.' || buf[k] == 'e' || buf[k] == 'E') is_int = 0;
  }
  *d = strtod(buf, NULL);
  if (is_int) { /* at most 19 digits always fit; 20 may not */
    size_t digits = js->n - (buf[0] == '-');
    if (digits > 19) {
      char *end;
      errno = 0;
      long long v = strtoll(buf, &end, 10);
      is_int = errno == 0 && *end == 0;
      *i = v;
    } else {
      *i = strtoll(buf, NULL, 10);
    }
  }
  if (buf != small) free(buf);
  return is_int;
}

/* Stores the value that starts with token T into *V (EV-2), skipping containers. */
static int evScalar(ev_cursor *c, js_tok t, ev_val *v) {
  memset(v, 0, sizeof *v);
  switch (t) {
  case JS_STRING:
    v->type = SQLITE_TEXT;
    v->off = c->strs.n;
    v->n = c->js.n;
    return tw_write(&c->strs, c->js.s, c->js.n) ? SQLITE_NOMEM : SQLITE_OK;
  case JS_NUMBER: {
    int r = evNumber(&c->js, &v->d, &v->i);
    if (r < 0) return SQLITE_NOMEM;
    v->type = r ? SQLITE_INTEGER : SQLITE_FLOAT;
    return SQLITE_OK;
  }
  default: v->type = SQLITE_NULL; return js_skip(&c->js, t) ? evJsonError(c) : SQLITE_OK;
  }
}

/* Decodes the event object whose '{' was just read into the row (EV-2..4). */
static int evEvent(ev_cursor *c) {
  js_lexer *js = &c->js;
  static const char *const keys[EV_NSCALAR] = {"ph", "cat", "name", "pid", "tid"};
  int rc = SQLITE_OK;
  memset(c->v, 0, sizeof c->v);
  memset(&c->ts, 0, sizeof c->ts);
  memset(&c->dur, 0, sizeof c->dur);
  c->has_args = 0;
  c->strs.n = 0;
  c->args.n = 0;
  for (;;) {
    js_tok t = js_next(js);
    int which = -1; /* 0..4 scalars, 5 ts, 6 dur, 7 args */
    if (t == JS_OBJ_END) return SQLITE_OK;
    if (t != JS_KEY) return evJsonError(c);
    for (int k = 0; k < EV_NSCALAR; k++) {
      if (js->n == strlen(keys[k]) && memcmp(js->s, keys[k], js->n) == 0) which = k;
    }
    if (js->n == 2 && memcmp(js->s, "ts", 2) == 0) which = 5;
    if (js->n == 3 && memcmp(js->s, "dur", 3) == 0) which = 6;
    if (js->n == 4 && memcmp(js->s, "args", 4) == 0) which = 7;
    t = js_next(js);
    if (t == JS_ERROR) return evJsonError(c);
    if (which >= 0 && which < EV_NSCALAR) {
      rc = evScalar(c, t, &c->v[which]);
    } else if (which == 5 || which == 6) {
      ev_val *v = which == 5 ? &c->ts : &c->dur;
      rc = evScalar(c, t, v);
      if (v->type == SQLITE_TEXT) v->type = SQLITE_NULL; /* EV-3: numbers only */
      else if (v->type == SQLITE_INTEGER) v->type = SQLITE_FLOAT;
    } else if (which == 7) {
      int comma = 0;
      c->args.n = 0;
      c->has_args = 1;
      switch (tw_copy_value(js, t, &c->args, &comma)) {
      case TW_OK: break;
      case TW_EINPUT: return evJsonError(c);
      default: return SQLITE_NOMEM;
      }
    } else if (js_skip(js, t)) {
      return evJsonError(c);
    }
    if (rc != SQLITE_OK) return rc;
  }
}

/* The top-level value ended: the input must end too (EV-5). */
static int evFinish(ev_cursor *c) {
  if (js_next(&c->js) != JS_EOF) return evJsonError(c);
  c->state = EV_EOF;
  return SQLITE_OK;
}

static int evNotTrace(ev_cursor *c) {
  js_fail(&c->js, c->js.tok_off, "not a Kineto trace: no traceEvents array");
  return evJsonError(c);
}

/* Moves to the next row, or to EOF (EV-1). */
static int evAdvance(ev_cursor *c) {
  js_lexer *js = &c->js;
  js_tok t;
  for (;;) {
    switch (c->state) {
    case EV_EOF: return SQLITE_OK;
    case EV_START:
      t = js_next(js);
      if (t == JS_ERROR) return evJsonError(c);
      if (t == JS_ARR_BEGIN) {
        c->is_array = c->seen = 1;
        c->state = EV_EVENTS;
      } else if (t == JS_OBJ_BEGIN) {
        c->state = EV_TOP;
      } else {
        return evNotTrace(c);
      }
      break;
    case EV_TOP:
      t = js_next(js);
      if (t == JS_OBJ_END) {
        if (!c->seen) return evNotTrace(c);
        return evFinish(c);
      }
      if (t != JS_KEY) return evJsonError(c);
      if (js->n == 11 && memcmp(js->s, "traceEvents", 11) == 0) {
        uint64_t off = js->tok_off;
        if (c->seen) {
          js_fail(js, off, "duplicate \"traceEvents\"");
          return evJsonError(c);
        }
        t = js_next(js);
        if (t == JS_ERROR) return evJsonError(c);
        if (t != JS_ARR_BEGIN) {
          js_fail(js, js->tok_off, "wrong type: \"traceEvents\" must be an array");
          return evJsonError(c);
        }
        c->seen = 1;
        c->state = EV_EVENTS;
      } else if (js_skip(js, js_next(js))) {
        return evJsonError(c);
      }
      break;
    case EV_EVENTS:
      t = js_next(js);
      if (t == JS_ARR_END) {
        if (c->is_array) return evFinish(c);
        c->state = EV_TOP;
        break;
      }
      if (t == JS_ERROR || t == JS_EOF) return evJsonError(c);
      c->seq = c->count++;
      if (t == JS_OBJ_BEGIN) return evEvent(c);
      if (js_skip(js, t)) return evJsonError(c); /* EV-1: counted, no row */
      break;
    }
  }
}

/* ---------------------------------------------------------------- vtab methods */

/* Reading files: only from top-level SQL (see io.c), never from views or triggers. */
static int evConnect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr) {
  ev_vtab *p;
  int rc = sqlite3_declare_vtab(db, evSchema);
  if (rc != SQLITE_OK) return rc;
  p = sqlite3_malloc(sizeof *p);
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, sizeof *p);
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int evDisconnect(sqlite3_vtab *pVtab) {
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int evOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor) {
  ev_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  tw_open_mem(&c->strs);
  tw_open_mem(&c->args);
  *ppCursor = &c->base;
  return SQLITE_OK;
}

/* Closes the file of the previous scan. */
static void evReset(ev_cursor *c) {
  if (c->is_open) {
    js_free(&c->js);
    rd_close(&c->rd);
    c->is_open = 0;
  }
  sqlite3_value_free(c->path);
  c->path = 0;
  c->state = EV_EOF;
  c->seen = c->is_array = 0;
  c->count = 0;
}

static int evClose(sqlite3_vtab_cursor *cur) {
  ev_cursor *c = (ev_cursor *)cur;
  evReset(c);
  tw_close(&c->strs);
  tw_close(&c->args);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int evNext(sqlite3_vtab_cursor *cur);

/*
** idxNum: 1 when the path is argv[0] (the only plan that can run).
*/
static int evFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                    sqlite3_value **argv) {
  ev_cursor *c = (ev_cursor *)cur;
  const char *path;
  evReset(c);
  if (!(idxNum & 1) || argc < 1) return evError(c, "path is required");
  c->path = sqlite3_value_dup(argv[0]);
  if (!c->path) return SQLITE_NOMEM;
  if (sqlite3_value_type(c->path) != SQLITE_TEXT) {
    hta_vtab_error(cur->pVtab, "hta_trace_events: path must be a string");
    return SQLITE_ERROR;
  }
  path = (const char *)sqlite3_value_text(c->path);
  if (!path) return SQLITE_NOMEM;
  if (rd_open(&c->rd, path) != 0) {
    int rc = c->rd.nomem ? SQLITE_NOMEM : evError(c, c->rd.err);
    rd_close(&c->rd);
    return rc;
  }
  js_init(&c->js, &c->rd);
  c->is_open = 1;
  c->state = EV_START;
  return evNext(cur);
}

static int evNext(sqlite3_vtab_cursor *cur) {
  ev_cursor *c = (ev_cursor *)cur;
  int rc = evAdvance(c);
  if (rc != SQLITE_OK) c->state = EV_EOF; /* the scan ends with the error */
  return rc;
}

static int evEof(sqlite3_vtab_cursor *cur) { return ((ev_cursor *)cur)->state == EV_EOF; }

static void evResult(sqlite3_context *ctx, const ev_cursor *c, const ev_val *v) {
  switch (v->type) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, v->i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, v->d); break;
  case SQLITE_TEXT:
    sqlite3_result_text64(ctx, (const char *)c->strs.buf + v->off, v->n, SQLITE_TRANSIENT,
                          SQLITE_UTF8);
    break;
  default: break;
  }
}

static int evColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  ev_cursor *c = (ev_cursor *)cur;
  switch (col) {
  case EV_SEQ: sqlite3_result_int64(ctx, c->seq); break;
  case EV_PH:
  case EV_CAT:
  case EV_NAME:
  case EV_PID:
  case EV_TID: evResult(ctx, c, &c->v[col - EV_PH]); break;
  case EV_TS: evResult(ctx, c, &c->ts); break;
  case EV_DUR: evResult(ctx, c, &c->dur); break;
  case EV_ARGS:
    if (c->has_args)
      sqlite3_result_text64(ctx, c->args.n ? (const char *)c->args.buf : "", c->args.n,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
    break;
  case EV_PATH:
    if (c->path) sqlite3_result_value(ctx, c->path);
    break;
  default: break;
  }
  return SQLITE_OK;
}

static int evRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((ev_cursor *)cur)->seq;
  return SQLITE_OK;
}

/*
** idxNum: 1 when path = ? is usable (argvIndex 1, omitted). Without it the
** function cannot run: absent -> SQLITE_ERROR "path is required"; present but
** unusable (a join order that does not have it yet) -> SQLITE_CONSTRAINT so
** that SQLite picks another order.
*/
static int evBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p) {
  int found = -1, unusable = 0;
  for (int i = 0; i < p->nConstraint; i++) {
    const struct sqlite3_index_constraint *pc = &p->aConstraint[i];
    if (pc->iColumn != EV_PATH || pc->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!pc->usable) {
      unusable = 1;
      continue;
    }
    found = i;
  }
  if (found < 0) {
    if (unusable) return SQLITE_CONSTRAINT;
    hta_vtab_error(tab, "hta_trace_events: path is required");
    return SQLITE_ERROR;
  }
  p->aConstraintUsage[found].argvIndex = 1;
  p->aConstraintUsage[found].omit = 1;
  p->idxNum = 1;
  p->estimatedCost = 1e6;
  p->estimatedRows = 100000;
  return SQLITE_OK;
}

/* Eponymous-only (no xCreate), read-only. */
static const sqlite3_module evModule = {
    .iVersion = 0,
    .xConnect = evConnect,
    .xBestIndex = evBestIndex,
    .xDisconnect = evDisconnect,
    .xOpen = evOpen,
    .xClose = evClose,
    .xFilter = evFilter,
    .xNext = evNext,
    .xEof = evEof,
    .xColumn = evColumn,
    .xRowid = evRowid,
};

int hta_register_io_events(sqlite3 *db) {
  return sqlite3_create_module(db, "hta_trace_events", &evModule, 0);
}

/*
** io_rewrite.c: what the io family's trace writers (io_counters.c, io_overlay.c,
** io_critical_path.c) share: their arguments and result, the trace they rewrite,
** the check of the output path, and the rewrite itself through trace_writer.h.
**
** Requirements shared by the writers (tests cite them as IO-n):
**  1. The trace: hta_write_*(rank, ...) takes the only trace of that rank; when
**     several files claim the rank, it fails with "rank R has N traces (trace_id
**     a, b): give the trace_id too" and the trace_id argument picks one (rank may
**     then be NULL). Unknown rank or trace_id: "no trace with rank R".
**  2. The original is re-read from trace.file_path (the absolute path recorded
**     at ingest). A missing file, or one whose size or content hash
**     (trace.content_hash, XXH64 of the raw bytes and the size) differs from what
**     was ingested, is an error and nothing is written.
**  3. The output must not be an input trace of the database (its own, or another
**     trace's: that would destroy an original the database refers to); compared
**     by realpath and by device and inode. Any other existing file is replaced.
**  4. Written atomically (trace_writer.h TW-5): a temporary file beside the
**     output, renamed into place once complete; gzip when the name ends in
**     ".gz", plain JSON otherwise. After any error no temporary file remains and
**     an existing output is unchanged.
**  5. Errors name the output path first: "<function>: OUT: what" (input problems
**     name the input: "input PATH: byte N: what").
**
** HOW IT WORKS: ioPickTrace reads the trace row and finds it among the traces
** the analyses see (hta_traces_load: the last-ProfilerStep cut), and
** ioRewrite checks the paths and streams the original through tw_copy with the
** caller's hooks, compares the hash computed on the way, and commits.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- arguments */

int ioSelArgs(sqlite3_context *ctx, const char *fn, sqlite3_value *rank, sqlite3_value *trace_id,
              hta_io_sel *sel) {
  memset(sel, 0, sizeof *sel);
  if (trace_id && sqlite3_value_type(trace_id) != SQLITE_NULL) {
    if (!hta_value_int64(trace_id, &sel->trace_id)) {
      char *m = sqlite3_mprintf("%s: trace_id must be an integer", fn);
      sqlite3_result_error(ctx, m ? m : "out of memory", -1);
      sqlite3_free(m);
      return 0;
    }
    sel->has_trace_id = 1;
  }
  if (sqlite3_value_type(rank) == SQLITE_NULL && sel->has_trace_id) return 1;
  if (!hta_value_int64(rank, &sel->rank)) {
    char *m =
        sqlite3_mprintf("%s: rank must be an integer%s", fn, sel->has_trace_id ? " or NULL" : "");
    sqlite3_result_error(ctx, m ? m : "out of memory", -1);
    sqlite3_free(m);
    return 0;
  }
  sel->has_rank = 1;
  return 1;
}

const char *ioPathArg(sqlite3_context *ctx, const char *fn, sqlite3_value *v) {
  const char *p = sqlite3_value_type(v) == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : 0;
  if (!p || !p[0]) {
    char *m = sqlite3_mprintf("%s: path must be a non-empty string", fn);
    sqlite3_result_error(ctx, m ? m : "out of memory", -1);
    sqlite3_free(m);
    return 0;
  }
  return p;
}

void ioResult(sqlite3_context *ctx, const char *fn, const char *out, int rc, int64_t n,
              const char *err) {
  if (rc == SQLITE_OK) {
    sqlite3_result_int64(ctx, n);
    return;
  }
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  char *m = sqlite3_mprintf("%s: %s: %s", fn, out, err ? err : sqlite3_errstr(rc));
  if (!m) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, m, -1);
  sqlite3_free(m);
}

/* ---------------------------------------------------------------- the trace */

void ioTraceFree(io_trace *t) {
  sqlite3_free(t->file_path);
  sqlite3_free(t->content_hash);
  memset(t, 0, sizeof *t);
}

/* Copies column I of ST (text or NULL) into *pz. */
static int ioColumnText(sqlite3_stmt *st, int i, char **pz) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  *pz = 0;
  if (!s) return sqlite3_column_type(st, i) == SQLITE_NULL ? SQLITE_OK : SQLITE_NOMEM;
  *pz = sqlite3_mprintf("%s", s);
  return *pz ? SQLITE_OK : SQLITE_NOMEM;
}

/* Finds trace T among the traces the analyses see (its job's last-ProfilerStep cut).
** The io functions read the main database. */
static int ioLoadTrace(sqlite3 *db, const io_trace *t, hta_trace *out, int *found) {
  hta_traces tr;
  hta_scope sc = {"main", t->job_id};
  int rc = hta_traces_load(db, &sc, 1, t->rank, 0, &tr);
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < tr.n; i++) {
    if (tr.a[i].trace_id == t->trace_id) {
      *out = tr.a[i];
      *found = 1;
    }
  }
  hta_traces_free(&tr);
  return SQLITE_OK;
}

int ioPickTrace(sqlite3 *db, const hta_io_sel *sel, io_trace *t, hta_trace *ht, int *found,
                char **pzErr) {
  sqlite3_stmt *st = 0;
  sqlite3_str *ids = 0;
  int rc, n = 0;
  memset(t, 0, sizeof *t);
  memset(ht, 0, sizeof *ht);
  *found = 0;
  if (!sel->has_rank && !sel->has_trace_id) {
    *pzErr = sqlite3_mprintf("a rank or a trace_id is required");
    return SQLITE_NOTFOUND;
  }
  rc = hta_prepare(db, "main",
                   sel->has_trace_id
                       ? "SELECT trace_id, rank, file_path, content_hash, job_id FROM $S.trace"
                         " WHERE trace_id = ?1"
                       : "SELECT trace_id, rank, file_path, content_hash, job_id FROM $S.trace"
                         " WHERE rank = ?1 ORDER BY trace_id",
                   &st);
  if (rc != SQLITE_OK) {
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return rc;
  }
  sqlite3_bind_int64(st, 1, sel->has_trace_id ? sel->trace_id : sel->rank);
  ids = sqlite3_str_new(db);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n++ == 0) {
      t->trace_id = sqlite3_column_int64(st, 0);
      t->rank = sqlite3_column_int64(st, 1);
      t->job_id = sqlite3_column_int64(st, 4);
      rc = ioColumnText(st, 2, &t->file_path);
      if (rc == SQLITE_OK) rc = ioColumnText(st, 3, &t->content_hash);
      if (rc != SQLITE_OK) break;
    }
    if (n <= 10)
      sqlite3_str_appendf(ids, "%s%lld", n > 1 ? ", " : "", (long long)sqlite3_column_int64(st, 0));
    else if (n == 11) sqlite3_str_appendall(ids, ", ...");
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  else if (rc != SQLITE_NOMEM) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  if (rc == SQLITE_OK && sqlite3_str_errcode(ids)) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) { /* IO-1 */
    if (n == 0 && sel->has_trace_id) {
      *pzErr = sqlite3_mprintf("no trace with trace_id %lld", (long long)sel->trace_id);
      rc = SQLITE_NOTFOUND;
    } else if (n == 0) {
      *pzErr = sqlite3_mprintf("no trace with rank %lld", (long long)sel->rank);
      rc = SQLITE_NOTFOUND;
    } else if (sel->has_trace_id && sel->has_rank && t->rank != sel->rank) {
      *pzErr = sqlite3_mprintf("trace_id %lld has rank %lld, not %lld", (long long)t->trace_id,
                               (long long)t->rank, (long long)sel->rank);
      rc = SQLITE_NOTFOUND;
    } else if (n > 1) {
      *pzErr = sqlite3_mprintf("rank %lld has %d traces (trace_id %s): give the trace_id too",
                               (long long)sel->rank, n, sqlite3_str_value(ids));
      rc = SQLITE_NOTFOUND;
    } else if (!t->file_path || !t->content_hash) {
      *pzErr = sqlite3_mprintf("trace_id %lld has no file_path: re-ingest it with this hta-ingest",
                               (long long)t->trace_id);
      rc = SQLITE_NOTFOUND;
    }
  }
  sqlite3_free(sqlite3_str_finish(ids));
  if (rc == SQLITE_OK) {
    rc = ioLoadTrace(db, t, ht, found);
    if (rc != SQLITE_OK && rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
      *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  if (rc != SQLITE_OK) ioTraceFree(t);
  return rc;
}

/* ---------------------------------------------------------------- paths */

/* The canonical form of PATH, which need not exist (then its directory must):
** malloc'd, or NULL when it cannot be resolved. */
static char *ioCanonical(const char *path) {
  char *r = realpath(path, NULL);
  if (r || errno != ENOENT) return r;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  char *rdir = dir ? realpath(dir, NULL) : NULL;
  free(dir);
  if (!rdir) return NULL;
  size_t n = strlen(rdir) + strlen(base) + 2;
  r = malloc(n);
  if (r) snprintf(r, n, "%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base);
  free(rdir);
  return r;
}

/* 1 when OUT (canonical COUT, stat OST when OST_OK) is the file at PATH. */
static int ioSameFile(const char *cout, const struct stat *ost, int ost_ok, const char *path) {
  struct stat st;
  char *cp;
  int same = 0;
  if (ost_ok && stat(path, &st) == 0 && st.st_dev == ost->st_dev && st.st_ino == ost->st_ino)
    return 1;
  cp = cout ? realpath(path, NULL) : NULL;
  if (cp) same = strcmp(cp, cout) == 0;
  free(cp);
  return same;
}

/* IO-3: SQLITE_OK, or SQLITE_IOERR when OUT is an input trace of the database. */
static int ioCheckOutput(sqlite3 *db, const char *out, char **pzErr) {
  sqlite3_stmt *st = 0;
  struct stat ost;
  int ost_ok = stat(out, &ost) == 0;
  char *cout = ioCanonical(out);
  int rc = hta_prepare(db, "main",
                       "SELECT trace_id, file_path FROM $S.trace WHERE file_path IS NOT NULL"
                       " ORDER BY trace_id",
                       &st);
  if (rc != SQLITE_OK) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *p = (const char *)sqlite3_column_text(st, 1);
    if (p && ioSameFile(cout, &ost, ost_ok, p)) {
      *pzErr = sqlite3_mprintf("refusing to overwrite the input trace file of trace_id %lld (%s)",
                               (long long)sqlite3_column_int64(st, 0), p);
      rc = SQLITE_IOERR;
      break;
    }
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  else if (rc != SQLITE_OK && rc != SQLITE_IOERR && !*pzErr)
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  free(cout);
  return rc;
}

/* ---------------------------------------------------------------- rewriting */

int ioRewrite(sqlite3 *db, const io_trace *t, const char *out, const tw_hooks *hooks,
              int64_t *ppatched, char **pzErr) {
  tw_out o;
  tw_result res;
  char err[TW_ERR_MAX], hash[48];
  struct stat st;
  unsigned long long expect_size = 0;
  const char *dash = strrchr(t->content_hash, '-');
  int rc = ioCheckOutput(db, out, pzErr);
  if (ppatched) *ppatched = 0;
  if (rc != SQLITE_OK) return rc;
  if (dash) expect_size = strtoull(dash + 1, NULL, 10);
  /* IO-2: a cheap check before anything is written; the hash comes at the end */
  if (stat(t->file_path, &st) != 0) {
    *pzErr = sqlite3_mprintf("input %s: %s", t->file_path, strerror(errno));
    return SQLITE_IOERR;
  }
  if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size != expect_size) {
    *pzErr = sqlite3_mprintf("input %s changed since it was ingested (%lld bytes, ingested %llu)",
                             t->file_path, (long long)st.st_size, expect_size);
    return SQLITE_IOERR;
  }
  if (tw_open_file(&o, out) != 0) {
    *pzErr = sqlite3_mprintf("%s", o.err);
    tw_close(&o);
    return SQLITE_IOERR;
  }
  switch (tw_copy(t->file_path, &o, hooks, &res, err)) {
  case TW_OK:
    snprintf(hash, sizeof hash, "%016llx-%llu", (unsigned long long)res.hash,
             (unsigned long long)res.raw_size);
    if (strcmp(hash, t->content_hash) != 0) {
      *pzErr =
          sqlite3_mprintf("input %s changed since it was ingested (content hash %s, ingested %s)",
                          t->file_path, hash, t->content_hash);
      rc = SQLITE_IOERR;
    } else if (tw_commit(&o) != 0) {
      *pzErr = sqlite3_mprintf("%s", o.err);
      rc = SQLITE_IOERR;
    } else if (ppatched) {
      *ppatched = res.patched;
    }
    break;
  case TW_EINPUT:
    *pzErr = sqlite3_mprintf("input %s: %s", t->file_path, err);
    rc = SQLITE_IOERR;
    break;
  case TW_EOUTPUT:
    if (strcmp(o.err, "out of memory") == 0) {
      rc = SQLITE_NOMEM;
    } else {
      *pzErr = sqlite3_mprintf("%s", o.err);
      rc = SQLITE_IOERR;
    }
    break;
  case TW_EHOOK: { /* the hook's context starts with its status */
    io_hook_status *hs = hooks->ctx;
    rc = hs->rc != SQLITE_OK ? hs->rc : SQLITE_ERROR;
    *pzErr = hs->zErr;
    hs->zErr = 0;
    break;
  }
  default: rc = SQLITE_NOMEM; break;
  }
  tw_close(&o);
  return rc;
}

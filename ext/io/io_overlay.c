/*
** io_overlay.c: hta_write_sequence_overlay, the overlaid trace of HTA's
** get_frequent_cuda_kernel_sequences (spec hta_semantics.md 2.6 step 6): a copy
** of a trace file whose events that belong to a frequent kernel sequence carry
** args.Patterns, so that Perfetto can find them. Io entry point only
** (SQLITE_DIRECTONLY, see io.c).
**
**   SELECT hta_write_sequence_overlay(0, 'aten::linear', 'overlaid_rank0.json.gz');
**   SELECT hta_write_sequence_overlay(0, 'CppNode', 'o.json', 2);         -- top 2
**   SELECT hta_write_sequence_overlay(NULL, 'aten::mm', 'o.json', 5, 3);  -- trace_id 3
**   -- then, e.g. in Perfetto: args.Patterns
**
** hta_write_sequence_overlay(rank, operator_name, path [, top_k [, trace_id]])
**   rank           the trace's rank (io_rewrite.c IO-1); NULL allowed when trace_id is given
**   operator_name  as for hta_frequent_kernel_sequences (case-sensitive substring)
**   path           the file to write: gzip when it ends in ".gz", plain otherwise
**   top_k          default 5: how many patterns (in the function's row order) mark events
**   trace_id       picks one trace when several files claim the rank
** Returns the number of events marked. min_pattern_len is the default 3.
**
** Requirements (tests cite them as OV-n; IO-1..5 of io_rewrite.c apply):
**  1. The patterns are the first top_k rows of hta_frequent_kernel_sequences(
**     operator_name) WHERE trace_id = T (count descending, then pattern), all of
**     them when there are fewer. An event belongs to a pattern when its
**     traceEvents position is in the pattern's occurrence set: the rows of every
**     root's stack, i.e. the root operator, every host row below it and its GPU
**     rows (spec 2.6 step 4), as the analysis walks them.
**  2. Such an event gets args.Patterns = {pattern: count, ...} for every pattern
**     it belongs to, in row order; args is created when absent, an existing
**     Patterns member is replaced, an args that is not an object is replaced by
**     {"Patterns": ...} (trace_writer.h TW-3).
**  3. Every other element, and every other member of a marked event, is copied
**     unchanged (values exact, trace_writer.h TW-1).
**  5. The Patterns text added may not exceed 1 GiB (IO_OVERLAY_MAX_ADDED): each marked
**     event repeats its patterns in full, so an operator spanning the whole trace
**     (ProfilerStep on a big trace) is refused with an error instead of filling the disk.
**  4. No pattern (an empty operator_name, no match, top_k = 0): the copy is still
**     written and 0 is returned.
**
** Deliberate differences from HTA, which (compress_other_kernels=True) empties
** the args of every other X event, replaces names by symbol ids, adds the symbol
** table to the "PyTorch Profiler" span and rewrites every event from its data
** frame (numbers may become floats): here every other event stays exactly as it
** was, so the file is the original plus the marks. The output is the caller's
** path, gzip only for ".gz" (HTA writes output_dir/"overlaid_" + name, always
** gzip).
**
** HOW IT WORKS: hta_fks_patterns (sequences.c, the analysis's own walk) gives the
** top_k patterns with their occurrence sets; the (seq, pattern) pairs are sorted
** by seq, and since tw_copy asks about events in seq order, ioPatch walks the
** pairs with one cursor and builds each marked event's Patterns object.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define IO_DEFAULT_TOP_K 5
#define IO_MIN_PATTERN_LEN 3

typedef struct io_mark {
  int64_t seq;
  size_t pattern; /* index in io_overlay.p */
} io_mark;

typedef struct io_overlay {
  io_hook_status st; /* first: see io_hook_status */
  hta_fks_pattern *p;
  size_t np;
  io_mark *marks; /* sorted by (seq, pattern) */
  size_t nmarks, next;
  tw_out text; /* the Patterns object of the current event */
} io_overlay;

static int ioCmpMark(const void *pa, const void *pb) {
  const io_mark *a = pa, *b = pb;
  if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
  return a->pattern < b->pattern ? -1 : a->pattern > b->pattern;
}

/* Most pattern text an overlay may add (OV-5). */
#define IO_OVERLAY_MAX_ADDED ((uint64_t)1 << 30)

/* OV-1: every (seq, pattern) pair of the patterns' rows, sorted by seq. */
static int ioMarks(sqlite3 *db, io_overlay *v) {
  sqlite3_stmt *st = 0;
  size_t n = 0;
  int rc;
  for (size_t i = 0; i < v->np; i++) n += v->p[i].n;
  v->marks = sqlite3_malloc64((n ? n : 1) * sizeof *v->marks);
  if (!v->marks) return SQLITE_NOMEM;
  rc = hta_prepare(db, "main", "SELECT seq FROM $S.event WHERE event_id = ?1", &st);
  for (size_t i = 0; rc == SQLITE_OK && i < v->np; i++) {
    for (size_t k = 0; rc == SQLITE_OK && k < v->p[i].n; k++) {
      sqlite3_bind_int64(st, 1, v->p[i].event_ids[k]);
      rc = sqlite3_step(st);
      if (rc == SQLITE_ROW) {
        v->marks[v->nmarks].seq = sqlite3_column_int64(st, 0);
        v->marks[v->nmarks++].pattern = i;
        rc = SQLITE_OK;
      } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
      }
      sqlite3_reset(st);
    }
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_OK) qsort(v->marks, v->nmarks, sizeof *v->marks, ioCmpMark);
  return rc;
}

/* tw_hooks.patch: the Patterns object of element SEQ, or NULL (OV-2). */
static const char *ioPatch(void *ctx, int64_t seq, size_t *n) {
  io_overlay *v = ctx;
  int comma = 0;
  char num[32];
  while (v->next < v->nmarks && v->marks[v->next].seq < seq) v->next++;
  if (v->next >= v->nmarks || v->marks[v->next].seq != seq) return NULL;
  v->text.n = 0;
  tw_write(&v->text, "{", 1);
  for (; v->next < v->nmarks && v->marks[v->next].seq == seq; v->next++) {
    const hta_fks_pattern *p = &v->p[v->marks[v->next].pattern];
    snprintf(num, sizeof num, ":%lld", (long long)p->count);
    tw_sep(&v->text, &comma);
    tw_string(&v->text, p->pattern, strlen(p->pattern));
    tw_puts(&v->text, num);
  }
  if (tw_write(&v->text, "}", 1)) return NULL; /* out of memory: seen at the end */
  *n = v->text.n;
  return (const char *)v->text.buf;
}

int hta_io_write_overlay(sqlite3 *db, const hta_io_sel *sel, const char *opname, int64_t top_k,
                         const char *out, int64_t *pcount, char **pzErr) {
  io_overlay v;
  io_trace t;
  hta_trace ht;
  tw_hooks hooks;
  int found;
  int rc = ioPickTrace(db, sel, &t, &ht, &found, pzErr);
  *pcount = 0;
  if (rc != SQLITE_OK) return rc;
  memset(&v, 0, sizeof v);
  tw_open_mem(&v.text);
  if (found) rc = hta_fks_patterns(db, &ht, opname, IO_MIN_PATTERN_LEN, top_k, &v.p, &v.np);
  if (rc == SQLITE_OK) rc = ioMarks(db, &v);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  if (rc == SQLITE_OK) {
    /* OV-5: every marked event repeats its patterns' full text; an operator whose
       instances span the trace (e.g. ProfilerStep) would write gigabytes. */
    uint64_t added = 0;
    for (size_t i = 0; i < v.nmarks; i++) added += strlen(v.p[v.marks[i].pattern].pattern) + 24;
    if (added > IO_OVERLAY_MAX_ADDED) {
      *pzErr = sqlite3_mprintf(
          "the overlay would add %llu MB of pattern text (limit %llu MB): choose a more"
          " specific operator_name or a smaller top_k",
          (unsigned long long)(added >> 20), (unsigned long long)(IO_OVERLAY_MAX_ADDED >> 20));
      rc = SQLITE_TOOBIG;
    }
  }
  if (rc == SQLITE_OK) {
    memset(&hooks, 0, sizeof hooks);
    hooks.ctx = &v;
    hooks.patch_key = "Patterns";
    hooks.patch = ioPatch;
    rc = ioRewrite(db, &t, out, &hooks, pcount, pzErr);
    if (rc == SQLITE_OK && v.text.failed) { /* ioPatch ran out of memory */
      rc = SQLITE_NOMEM;
      *pcount = 0;
    }
  }
  hta_fks_patterns_free(v.p, v.np);
  sqlite3_free(v.marks);
  sqlite3_free(v.st.zErr);
  tw_close(&v.text);
  ioTraceFree(&t);
  return rc;
}

/* hta_write_sequence_overlay(rank, operator_name, path [, top_k [, trace_id]]) */
void hta_io_overlay_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const char fn[] = "hta_write_sequence_overlay";
  hta_io_sel sel;
  const char *path, *opname;
  int64_t top_k = IO_DEFAULT_TOP_K, n = 0;
  char *err = 0;
  int rc;
  if (!ioSelArgs(ctx, fn, argv[0], argc > 4 ? argv[4] : 0, &sel)) return;
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "hta_write_sequence_overlay: operator_name must be a string", -1);
    return;
  }
  opname = (const char *)sqlite3_value_text(argv[1]);
  if (!opname) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!(path = ioPathArg(ctx, fn, argv[2]))) return;
  if (argc > 3 && (!hta_value_int64(argv[3], &top_k) || top_k < 0)) {
    sqlite3_result_error(ctx, "hta_write_sequence_overlay: top_k must be a non-negative integer",
                         -1);
    return;
  }
  rc = hta_io_write_overlay(sqlite3_context_db_handle(ctx), &sel, opname, top_k, path, &n, &err);
  ioResult(ctx, fn, path, rc, n, err);
  sqlite3_free(err);
}

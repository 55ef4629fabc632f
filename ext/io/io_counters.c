/*
** io_counters.c: hta_write_trace_with_counters, HTA's generate_trace_with_counters
** (spec hta_semantics.md 2.9): a copy of a trace file with the queue-length and
** memory-bandwidth series appended as counter events, for Perfetto or
** chrome://tracing. Io entry point only (SQLITE_DIRECTONLY, see io.c).
**
**   SELECT hta_write_trace_with_counters(0, 'rank0_with_counters.json.gz');  -- 1254
**   SELECT hta_write_trace_with_counters(NULL, 'w0.json', 2);   -- by trace_id
**   $ hta-ingest --write-counters 0 rank0_with_counters.json traces.db
**
** hta_write_trace_with_counters(rank, path [, trace_id])
**   rank      the trace's rank (io_rewrite.c IO-1); NULL allowed when trace_id is given
**   path      the file to write: gzip when it ends in ".gz", plain JSON otherwise
**   trace_id  picks one trace when several files claim the rank
** Returns the number of counter events written.
**
** Requirements (tests cite them as WC-n; IO-1..5 of io_rewrite.c apply):
**  1. The output holds every element of the original traceEvents unchanged, in
**     order (values exact: trace_writer.h TW-1), then the points of
**     hta_queue_length WHERE trace_id = T (default parameters: the
**     last-ProfilerStep cut, our tie order), stream after stream, as
**       {"ph":"C","name":"Queue Length","pid":P,"ts":TS,"id":STREAM,
**        "args":{"Queue Length":Q}}
**     then the points of hta_memory_bw WHERE trace_id = T, kind after kind, as
**       {"ph":"C","name":KIND,"pid":P,"ts":TS,"args":{"Memcpy BW":GBPS}}
**     (spec 2.9). The other top-level keys are kept; a bare-array trace stays an
**     array.
**  2. TS is absolute µs, exact: the point's ns as a decimal with up to three
**     fraction digits ("1682725898110321", "4203669603454.206"). P is the pid of
**     the GPU row that made the change (an integer or a string as stored).
**     GBPS is the shortest text that reads back as the same double; a point
**     whose value is not finite is left out.
**  3. A trace without such points (no runtime-linked GPU work, no memory copy, or
**     no event HTA keeps) is still written, with no counter event: returns 0.
**  4. Re-ingesting the output gives those points in the counter table (name,
**     pid, ts in ns, series = "Queue Length" / "Memcpy BW", value), and the
**     analyses of the original are unchanged: counter events are not events.
**
** Deliberate differences from HTA (spec 4.13): the output path is the caller's
** (HTA rewrites ".json" anywhere in the input path and can overwrite the input);
** gzip only when asked for by the name (HTA always compresses); one trace per
** call (HTA loops over ranks); bandwidth as hta_memory_bw computes it (MB-2:
** from bytes when the profiler gave no bandwidth, where HTA writes 0).
**
** HOW IT WORKS: hta_queue_length_points and hta_memory_bw_points (the analyses'
** own code) give the points as C arrays; tw_copy streams the original and calls
** ioAppendCounters at the end of traceEvents, which looks up each point's pid
** and writes the events.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct io_counters {
  io_hook_status st; /* first: see io_hook_status */
  sqlite3 *db;
  sqlite3_stmt *pid; /* SELECT pid FROM event WHERE event_id = ?1 */
  hta_series_point *ql, *mb;
  size_t nql, nmb;
  int64_t written;
} io_counters;

/* WC-2: NS as exact decimal µs into buf (at least 32 bytes). */
static void ioUs(int64_t ns, char *buf) {
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(a % 1000);
  int n = snprintf(buf, 32, "%s%llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000));
  if (frac) {
    n += snprintf(buf + n, (size_t)(32 - n), ".%03u", frac);
    while (buf[n - 1] == '0') buf[--n] = 0;
  }
}

/* WC-2: the shortest of %.15g, %.16g, %.17g that reads back as V. */
static void ioDouble(double v, char *buf) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, 32, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* Writes the pid of GPU row EVENT_ID (an integer, or a JSON string). */
static int ioWritePid(io_counters *c, tw_out *o, int64_t event_id) {
  int rc;
  char buf[32];
  sqlite3_bind_int64(c->pid, 1, event_id);
  rc = sqlite3_step(c->pid);
  if (rc == SQLITE_ROW && sqlite3_column_type(c->pid, 0) == SQLITE_TEXT) {
    const char *s = (const char *)sqlite3_column_text(c->pid, 0);
    rc = s ? tw_string(o, s, (size_t)sqlite3_column_bytes(c->pid, 0)) : -1;
    if (!s) c->st.rc = SQLITE_NOMEM;
  } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    /* a GPU row without pid (never seen in practice): 0, as counters need one */
    int64_t pid = rc == SQLITE_ROW ? sqlite3_column_int64(c->pid, 0) : 0;
    snprintf(buf, sizeof buf, "%lld", (long long)pid);
    rc = tw_puts(o, buf);
  } else {
    c->st.rc = rc;
    c->st.zErr = sqlite3_mprintf("%s", sqlite3_errmsg(c->db));
    rc = -1;
  }
  sqlite3_reset(c->pid);
  return rc;
}

/* tw_hooks.append: the counter events (WC-1, WC-2). */
static int ioAppendCounters(void *ctx, tw_out *o, int *comma) {
  io_counters *c = ctx;
  char ts[32], v[32];
  for (size_t i = 0; i < c->nql; i++) {
    const hta_series_point *p = &c->ql[i];
    ioUs(p->ts, ts);
    if (tw_sep(o, comma) || tw_puts(o, "{\"ph\":\"C\",\"name\":\"Queue Length\",\"pid\":") ||
        ioWritePid(c, o, p->event_id))
      return -1;
    snprintf(v, sizeof v, "%lld", (long long)p->stream);
    if (tw_puts(o, ",\"ts\":") || tw_puts(o, ts) || tw_puts(o, ",\"id\":") || tw_puts(o, v))
      return -1;
    snprintf(v, sizeof v, "%lld", (long long)p->value);
    if (tw_puts(o, ",\"args\":{\"Queue Length\":") || tw_puts(o, v) || tw_puts(o, "}}")) return -1;
    c->written++;
  }
  for (size_t i = 0; i < c->nmb; i++) {
    const hta_series_point *p = &c->mb[i];
    if (!isfinite(p->value)) continue;
    ioUs(p->ts, ts);
    ioDouble(p->value, v);
    if (tw_sep(o, comma) || tw_puts(o, "{\"ph\":\"C\",\"name\":") ||
        tw_string(o, p->kind, strlen(p->kind)) || tw_puts(o, ",\"pid\":") ||
        ioWritePid(c, o, p->event_id) || tw_puts(o, ",\"ts\":") || tw_puts(o, ts) ||
        tw_puts(o, ",\"args\":{\"Memcpy BW\":") || tw_puts(o, v) || tw_puts(o, "}}"))
      return -1;
    c->written++;
  }
  return 0;
}

int hta_io_write_counters(sqlite3 *db, const hta_io_sel *sel, const char *out, int64_t *pcount,
                          char **pzErr) {
  io_counters c;
  io_trace t;
  hta_trace ht;
  tw_hooks hooks;
  int found;
  int rc = ioPickTrace(db, sel, &t, &ht, &found, pzErr);
  *pcount = 0;
  if (rc != SQLITE_OK) return rc;
  memset(&c, 0, sizeof c);
  c.db = db;
  if (found) rc = hta_queue_length_points(db, &ht, &c.ql, &c.nql);
  if (rc == SQLITE_OK && found) rc = hta_memory_bw_points(db, &ht, &c.mb, &c.nmb);
  if (rc == SQLITE_OK)
    rc = hta_prepare(db, "main", "SELECT pid FROM $S.event WHERE event_id = ?1", &c.pid);
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM && rc != SQLITE_INTERRUPT)
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  if (rc == SQLITE_OK) {
    memset(&hooks, 0, sizeof hooks);
    hooks.ctx = &c;
    hooks.append = ioAppendCounters;
    rc = ioRewrite(db, &t, out, &hooks, NULL, pzErr);
  }
  if (rc == SQLITE_OK) *pcount = c.written;
  sqlite3_finalize(c.pid);
  sqlite3_free(c.ql);
  sqlite3_free(c.mb);
  sqlite3_free(c.st.zErr);
  ioTraceFree(&t);
  return rc;
}

/* hta_write_trace_with_counters(rank, path [, trace_id]) */
void hta_io_counters_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const char fn[] = "hta_write_trace_with_counters";
  hta_io_sel sel;
  const char *path;
  char *err = 0;
  int64_t n = 0;
  int rc;
  if (!ioSelArgs(ctx, fn, argv[0], argc > 2 ? argv[2] : 0, &sel)) return;
  if (!(path = ioPathArg(ctx, fn, argv[1]))) return;
  rc = hta_io_write_counters(sqlite3_context_db_handle(ctx), &sel, path, &n, &err);
  ioResult(ctx, fn, path, rc, n, err);
  sqlite3_free(err);
}

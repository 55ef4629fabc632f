/*
** fd_calls.c: fd_calls_json (fd_account.h), the evidence of a cause: the host calls or
** kernels the accounting charged its idle time to, in the trace's typical steps.
**
** Requirements (tests cite them as FCL-n):
**  1. The charges of part P in typical steps, summed per event: calls = how many events.
**     The FCL_WALK (500) costliest are read (a launch-bound trace charges a launch per
**     gap: hundreds of thousands): by_call = how many of them per name, with their idle
**     time; a charged event that is no host row (0: none known) is counted, not read.
**  2. Those events are walked up their call stack (parent_id): the
**     operator (the outermost cpu_op / operator above: what the program called,
**     aten::item rather than aten::_local_scalar_dense), the Python frame (the nearest
**     python_function above, where the trace records stacks) and the region (the
**     outermost user_annotation that is no ProfilerStep: Optimizer.step#AdamW.step,
**     DataLoader spans...). A ProfilerStep#N is neither (old traces file it as a
**     cpu_op). operators, frames and regions tally their idle time.
**  3. top: the FCL_TOP costliest events: seq (the position in traceEvents), name,
**     host_us (the call's duration), idle_us (charged, all steps), bytes (a copy's: the
**     args.bytes of the GPU copy it launched), operator, frame.
**  4. bytes = the copies' bytes summed (FCL-3's rule) over the events read.
*/
#include <stdlib.h>
#include <string.h>

#include "findings/fd_account.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define FCL_TOP 3
#define FCL_WALK 500
#define FCL_MAX_DEPTH 256 /* a parent chain longer than this is a corrupt database */

typedef struct fcl_ev {
  int64_t id, ns;
} fcl_ev;

static int fclEvCmp(const void *a, const void *b) {
  const fcl_ev *x = a, *y = b;
  if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

enum { FCL_OP, FCL_PY, FCL_ANN };

typedef struct fcl_walk {
  sqlite3_stmt *up, *name, *ev;
  int64_t cat[3][3]; /* category ids per class; -1 absent */
  int32_t *step_ids; /* string ids of ProfilerStep#N names, ascending */
  size_t nstep_ids, cap;
} fcl_walk;

static int fclOpen(fd_ctx *x, fcl_walk *w) {
  static const char *const names[3][3] = {
      {"cpu_op", "operator", "Operator"},
      {"python_function", "python", "Python"},
      {"user_annotation", "User_Annotation", "user_Annotation"}};
  sqlite3_stmt *st = 0;
  int rc;
  memset(w, 0, sizeof *w);
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < 3; k++) w->cat[c][k] = -1;
  rc = hta_prepare(x->db, x->schema, "SELECT category_id, name FROM $S.category", &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    const char *n = (const char *)sqlite3_column_text(st, 1);
    for (int c = 0; n && c < 3; c++) {
      if (sqlite3_stricmp(n, names[c][0]) && sqlite3_stricmp(n, names[c][1])) continue;
      for (int k = 0; k < 3; k++)
        if (w->cat[c][k] < 0) {
          w->cat[c][k] = sqlite3_column_int64(st, 0);
          break;
        }
    }
  }
  rc = fd_done(st, rc);
  st = 0;
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->schema,
                     "SELECT string_id FROM $S.string WHERE value GLOB 'ProfilerStep#*'"
                     " ORDER BY string_id",
                     &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    int32_t id = (int32_t)sqlite3_column_int64(st, 0);
    HTA_PUSH(w->step_ids, w->nstep_ids, w->cap, 16, id, fcl_oom);
    continue;
  fcl_oom:
    rc = SQLITE_NOMEM;
  }
  rc = fd_done(st, rc);
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->schema,
                     "SELECT parent_id, category_id, name_id FROM $S.event WHERE event_id = ?1",
                     &w->up);
  if (rc == SQLITE_OK) rc = hta_prepare(x->db, x->schema, HTA_SQL_NAME_OF_ID, &w->name);
  if (rc == SQLITE_OK)
    rc = hta_prepare(x->db, x->schema,
                     "SELECT e.seq, s.value, e.dur, e.parent_id, (SELECT json_extract(g.args,"
                     " '$.bytes') FROM $S.event g WHERE g.event_id = e.link_id AND"
                     " g.stream IS NOT NULL AND json_valid(g.args)) FROM $S.event e"
                     " LEFT JOIN $S.string s ON s.string_id = e.name_id WHERE e.event_id = ?1",
                     &w->ev);
  return rc;
}

static void fclClose(fcl_walk *w) {
  sqlite3_free(w->step_ids);
  sqlite3_finalize(w->up);
  sqlite3_finalize(w->name);
  sqlite3_finalize(w->ev);
}

static int fclClass(const fcl_walk *w, int64_t cat) {
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < 3; k++)
      if (w->cat[c][k] >= 0 && w->cat[c][k] == cat) return c;
  return -1;
}

/* A copy of the name of string id ID (NULL when none or < 0). */
static int fclName(fcl_walk *w, int64_t id, char **out) {
  int rc = SQLITE_OK;
  *out = 0;
  if (id < 0) return SQLITE_OK;
  sqlite3_bind_int64(w->name, 1, id);
  rc = sqlite3_step(w->name);
  if (rc == SQLITE_ROW && !(*out = sqlite3_mprintf("%s", sqlite3_column_text(w->name, 0))))
    rc = SQLITE_NOMEM;
  sqlite3_reset(w->name);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* FCL-2: name ids of the operator, frame and region above PARENT (-1: none). */
static int fclUp(fcl_walk *w, int has_parent, int64_t parent, int64_t found[3]) {
  int rc = SQLITE_OK;
  found[0] = found[1] = found[2] = -1;
  for (int d = 0; has_parent && d < FCL_MAX_DEPTH; d++) {
    sqlite3_bind_int64(w->up, 1, parent);
    rc = sqlite3_step(w->up);
    if (rc != SQLITE_ROW) break;
    int c = sqlite3_column_type(w->up, 1) == SQLITE_NULL
                ? -1
                : fclClass(w, sqlite3_column_int64(w->up, 1));
    int64_t nm = sqlite3_column_type(w->up, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(w->up, 2);
    if (nm >= 0 && w->step_ids && hta_i32_find(w->step_ids, w->nstep_ids, (int32_t)nm) >= 0)
      c = -1; /* a ProfilerStep is no operator nor region (some traces file it as cpu_op) */
    if (c == FCL_OP || (c == FCL_ANN && nm >= 0)) found[c] = nm; /* the outermost wins */
    if (c == FCL_PY && found[FCL_PY] < 0) found[FCL_PY] = nm;    /* the nearest wins */
    has_parent = sqlite3_column_type(w->up, 0) != SQLITE_NULL;
    parent = sqlite3_column_int64(w->up, 0);
    sqlite3_reset(w->up);
  }
  sqlite3_reset(w->up);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void fd_calls_free(fd_calls *c) {
  sqlite3_free(c->top_op);
  sqlite3_free(c->top_name);
  sqlite3_free(c->top_region);
  sqlite3_free(c->first_name);
  sqlite3_free(c->first_op);
  memset(c, 0, sizeof *c);
}

int fd_calls_json(fd_ctx *x, const fd_unit *u, const fd_acct *a, int part, sqlite3_str *e,
                  fd_calls *out) {
  size_t lo, hi, n = 0;
  fcl_ev *ev;
  fcl_walk w;
  fd_tally ops = {0, 0, 0}, frames = {0, 0, 0}, regions = {0, 0, 0}, names = {0, 0, 0};
  int rc;
  memset(out, 0, sizeof *out);
  fd_charges(a, part, &lo, &hi);
  ev = sqlite3_malloc64((hi > lo ? hi - lo : 1) * sizeof *ev);
  if (!ev) return SQLITE_NOMEM;
  for (size_t i = lo; i < hi; i++) { /* FCL-1: per event, typical steps only */
    const fd_charge *c = &a->ch[i];
    if (!u->steps[c->step].typical) continue;
    if (n && ev[n - 1].id == c->event_id) ev[n - 1].ns += c->ns;
    else ev[n++] = (fcl_ev){c->event_id, c->ns};
  }
  if (n) qsort(ev, n, sizeof *ev, fclEvCmp);
  rc = fclOpen(x, &w);
  sqlite3_str *top = sqlite3_str_new(0);
  for (size_t i = 0; i < n; i++) out->calls += ev[i].id > 0; /* FCL-1 */
  size_t ntop = 0;
  for (size_t i = 0; rc == SQLITE_OK && i < n && i < FCL_WALK; i++) {
    int64_t found[3] = {-1, -1, -1}, bytes = 0;
    char *nm[3] = {0, 0, 0}, *callname = 0;
    double per_step = (double)ev[i].ns / (double)u->ntypical;
    if (ev[i].id <= 0) continue;
    sqlite3_bind_int64(w.ev, 1, ev[i].id);
    if ((rc = sqlite3_step(w.ev)) != SQLITE_ROW) {
      sqlite3_reset(w.ev);
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
      continue;
    }
    rc = SQLITE_OK;
    bytes = sqlite3_column_int64(w.ev, 4); /* FCL-4 */
    out->bytes += bytes;
    if (sqlite3_column_type(w.ev, 1) != SQLITE_NULL &&
        !(callname = sqlite3_mprintf("%s", sqlite3_column_text(w.ev, 1))))
      rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) rc = fd_tally_add(&names, callname, 1, ev[i].ns);
    if (rc == SQLITE_OK)
      rc = fclUp(&w, sqlite3_column_type(w.ev, 3) != SQLITE_NULL, sqlite3_column_int64(w.ev, 3),
                 found);
    for (int c = 0; rc == SQLITE_OK && c < 3; c++) rc = fclName(&w, found[c], &nm[c]);
    if (rc == SQLITE_OK) {
      rc = fd_tally_add(&ops, nm[FCL_OP], 1, ev[i].ns);
      if (rc == SQLITE_OK && nm[FCL_PY]) rc = fd_tally_add(&frames, nm[FCL_PY], 1, ev[i].ns);
      if (rc == SQLITE_OK && nm[FCL_ANN]) rc = fd_tally_add(&regions, nm[FCL_ANN], 1, ev[i].ns);
    }
    if (rc == SQLITE_OK && ntop < FCL_TOP) { /* FCL-3 */
      sqlite3_str_appendf(top, "%s{\"seq\":%lld,\"name\":", ntop ? "," : "",
                          (long long)sqlite3_column_int64(w.ev, 0));
      fd_json_str(top, callname);
      sqlite3_str_appendall(top, ",\"host_us\":");
      fd_json_us(top, sqlite3_column_int64(w.ev, 2));
      sqlite3_str_appendall(top, ",\"idle_us_per_step\":");
      fd_json_num(top, per_step / 1000.0);
      if (sqlite3_column_type(w.ev, 4) != SQLITE_NULL)
        sqlite3_str_appendf(top, ",\"bytes\":%lld", (long long)bytes);
      sqlite3_str_appendall(top, ",\"operator\":");
      fd_json_str(top, nm[FCL_OP]);
      sqlite3_str_appendall(top, ",\"frame\":");
      fd_json_str(top, nm[FCL_PY]);
      sqlite3_str_appendchar(top, 1, '}');
      if (ntop++ == 0) {
        out->top_bytes = bytes;
        out->has_top_bytes = sqlite3_column_type(w.ev, 4) != SQLITE_NULL;
        out->has_first = 1;
        out->first_seq = sqlite3_column_int64(w.ev, 0);
        out->first_us = per_step / 1000.0;
        if ((callname && !(out->first_name = sqlite3_mprintf("%s", callname))) ||
            (nm[FCL_OP] && !(out->first_op = sqlite3_mprintf("%s", nm[FCL_OP]))))
          rc = SQLITE_NOMEM;
      }
    }
    sqlite3_reset(w.ev);
    for (int c = 0; c < 3; c++) sqlite3_free(nm[c]);
    sqlite3_free(callname);
  }
  if (rc == SQLITE_OK) {
    sqlite3_str_appendf(e, ",\"calls\":%lld,\"bytes\":%lld,\"by_call\":", (long long)out->calls,
                        (long long)out->bytes);
    fd_tally_json(e, &names, 5, "calls", 0);
    sqlite3_str_appendall(e, ",\"operators\":");
    fd_tally_json(e, &ops, 5, "calls", 0);
    sqlite3_str_appendall(e, ",\"frames\":");
    fd_tally_json(e, &frames, 3, "calls", 0);
    sqlite3_str_appendall(e, ",\"regions\":");
    fd_tally_json(e, &regions, 3, "calls", 0);
    sqlite3_str_appendall(e, ",\"top\":[");
    sqlite3_str_appendall(e, sqlite3_str_value(top) ? sqlite3_str_value(top) : "");
    sqlite3_str_appendchar(e, 1, ']');
    const char *z;
    if ((z = fd_tally_top(&ops)) && !(out->top_op = sqlite3_mprintf("%s", z))) rc = SQLITE_NOMEM;
    if ((z = fd_tally_top(&names)) && !(out->top_name = sqlite3_mprintf("%s", z)))
      rc = SQLITE_NOMEM;
    if ((z = fd_tally_top(&regions)) && !(out->top_region = sqlite3_mprintf("%s", z)))
      rc = SQLITE_NOMEM;
  }
  if (sqlite3_str_errcode(top) && rc == SQLITE_OK) rc = SQLITE_NOMEM;
  sqlite3_free(sqlite3_str_finish(top));
  fclClose(&w);
  fd_tally_free(&ops);
  fd_tally_free(&frames);
  fd_tally_free(&regions);
  fd_tally_free(&names);
  sqlite3_free(ev);
  return rc;
}

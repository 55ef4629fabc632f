/*
** fd.c: the framework of hta_findings (fd.h): how a rule records a finding (fd_emit),
** reads an analysis (fd_query), writes JSON evidence, tallies names, and keeps what
** several rules read (the run's slots). It calls no rule: the rules call it.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fd.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

const char *fd_kind_name(int kind) {
  static const char *const names[] = {"summary", "cause", "busy", "symptom", "configuration"};
  return kind >= 0 && kind <= FD_CONFIGURATION ? names[kind] : "cause";
}

fd_row fd_row_init(const fd_unit *u) {
  fd_row r;
  memset(&r, 0, sizeof r);
  r.u = u;
  r.time_us = NAN;
  r.pct = NAN;
  r.evidence = sqlite3_str_new(0);
  return r;
}

void fd_row_discard(fd_row *row) {
  sqlite3_free(row->title);
  if (row->evidence) sqlite3_free(sqlite3_str_finish(row->evidence));
  if (row->caveats) sqlite3_free(sqlite3_str_finish(row->caveats));
  row->title = 0;
  row->evidence = row->caveats = 0;
}

void fd_caveat(fd_row *row, const char *check, const char *text) {
  if (!row->caveats) row->caveats = sqlite3_str_new(0);
  else sqlite3_str_appendchar(row->caveats, 1, ',');
  sqlite3_str_appendall(row->caveats, "{\"check\":");
  fd_json_str(row->caveats, check);
  sqlite3_str_appendall(row->caveats, ",\"text\":");
  fd_json_str(row->caveats, text);
  sqlite3_str_appendchar(row->caveats, 1, '}');
}

/* The finding's caveats: its own, then its trace's (a JSON array). NULL on OOM. */
static char *fdCaveats(const fd_row *row) {
  sqlite3_str *s = sqlite3_str_new(0);
  const char *tr = row->u && row->u->caveats ? row->u->caveats : "[]";
  int own = row->caveats && sqlite3_str_length(row->caveats) > 0;
  sqlite3_str_appendchar(s, 1, '[');
  if (own) sqlite3_str_appendall(s, sqlite3_str_value(row->caveats));
  if (tr[1] != ']') {
    if (own) sqlite3_str_appendchar(s, 1, ',');
    sqlite3_str_appendf(s, "%.*s", (int)strlen(tr) - 2, tr + 1);
  }
  sqlite3_str_appendchar(s, 1, ']');
  if (row->caveats && sqlite3_str_errcode(row->caveats)) {
    sqlite3_free(sqlite3_str_finish(s));
    return 0;
  }
  return sqlite3_str_finish(s);
}

int fd_emit(fd_ctx *x, const fd_rule *r, fd_row *row) {
  fd_finding f;
  int keep;
  memset(&f, 0, sizeof f);
  f.rule = r;
  f.time_us = row->time_us;
  f.pct = row->pct;
  if (!isnan(f.time_us) && isnan(f.pct) && row->u && row->u->step_us > 0) {
    f.pct = 100.0 * f.time_us / row->u->step_us; /* FD-3 */
  }
  if (row->u && !isnan(f.time_us) && (r->kind == FD_CAUSE || r->kind == FD_BUSY))
    x->u[row->u - x->u].cost_us += f.time_us;  /* the summary's recoverable time */
  if (row->keep || isnan(f.time_us)) keep = 1; /* FD-4 */
  else if (isnan(f.pct)) keep = x->min_pct == 0;
  else keep = f.pct >= x->min_pct;
  if (row->u) {
    f.has_rank = f.has_trace = 1;
    f.rank = row->u->rank;
    f.trace_id = row->u->trace_id;
  } else if (row->has_rank) {
    f.has_rank = 1;
    f.rank = row->rank;
  }
  if (keep && x->has_rank && (!f.has_rank || f.rank != x->rank)) keep = 0; /* FD-6 */
  f.title = row->title;
  int ev_ok = sqlite3_str_errcode(row->evidence) == SQLITE_OK; /* a NULL builder: NOMEM */
  f.evidence = sqlite3_str_finish(row->evidence);
  if (!ev_ok) {
    sqlite3_free(f.evidence);
    f.evidence = 0;
  }
  f.caveats = keep ? fdCaveats(row) : 0;
  if (row->caveats) sqlite3_free(sqlite3_str_finish(row->caveats));
  f.advice = row->advice;
  row->title = 0;
  row->evidence = 0;
  row->caveats = 0;
  if (!keep || !f.title || !f.evidence || !f.caveats) {
    int oom = keep && (!f.title || !f.evidence || !f.caveats);
    sqlite3_free(f.title);
    sqlite3_free(f.evidence);
    sqlite3_free(f.caveats);
    return oom ? SQLITE_NOMEM : SQLITE_OK;
  }
  HTA_PUSH(x->f, x->nf, x->af, 16, f, fd_emit_oom);
  return SQLITE_OK;
fd_emit_oom:
  sqlite3_free(f.title);
  sqlite3_free(f.evidence);
  sqlite3_free(f.caveats);
  return SQLITE_NOMEM;
}

const fd_unit *fd_unit_of(const fd_ctx *x, int64_t trace_id) {
  for (int i = 0; i < x->nu; i++) {
    if (x->u[i].trace_id == trace_id) return &x->u[i];
  }
  return 0;
}

int fd_unit_wanted(const fd_ctx *x, const fd_unit *u) { return !x->has_rank || u->rank == x->rank; }

int fd_in_steps(const fd_unit *u, int has_it, int64_t it) {
  if (u->no_steps || u->engine_steps) return 1; /* FS-2 */
  if (!has_it) return 0;
  size_t lo = 0, hi = u->nnumbers;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->numbers[mid] < it) lo = mid + 1;
    else hi = mid;
  }
  return lo < u->nnumbers && u->numbers[lo] == it;
}

long fd_step_at(const fd_unit *u, int64_t ts) {
  size_t lo = 0, hi = u->nsteps; /* steps ascending and disjoint */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (u->steps[mid].end <= ts) lo = mid + 1;
    else hi = mid;
  }
  return lo < u->nsteps && u->steps[lo].start <= ts ? (long)lo : -1;
}

void *fd_slot(fd_ctx *x, int slot) { return x->slot[slot]; }

void fd_slot_set(fd_ctx *x, int slot, void *p, void (*free_fn)(void *)) {
  x->slot[slot] = p;
  x->slot_free[slot] = free_fn;
}

int fd_query(fd_ctx *x, const char *sql, sqlite3_stmt **pp) {
  char *z = 0;
  /* A job whose trace rows name a missing job row has no name: its rows are those of
  ** `job IS NULL` (no database holds two such jobs but a corrupt one). */
  const char *eq = x->job ? 0 : strstr(sql, "job = ?2");
  if (eq && !(z = sqlite3_mprintf("%.*sjob IS ?2%s", (int)(eq - sql), sql, eq + 8)))
    return SQLITE_NOMEM;
  int rc = hta_prepare(x->db, x->schema, z ? z : sql, pp);
  sqlite3_free(z);
  if (rc != SQLITE_OK) return rc;
  if (sqlite3_bind_parameter_count(*pp) >= 1)
    sqlite3_bind_text(*pp, 1, x->schema, -1, SQLITE_STATIC);
  if (sqlite3_bind_parameter_count(*pp) >= 2) {
    if (x->job) sqlite3_bind_text(*pp, 2, x->job, -1, SQLITE_STATIC);
    else sqlite3_bind_null(*pp, 2);
  }
  return SQLITE_OK;
}

int fd_done(sqlite3_stmt *st, int rc) {
  sqlite3_finalize(st);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

void fd_json_str(sqlite3_str *s, const char *z) {
  static const char hex[] = "0123456789abcdef";
  if (!z) {
    sqlite3_str_appendall(s, "null");
    return;
  }
  sqlite3_str_appendchar(s, 1, '"');
  for (const unsigned char *p = (const unsigned char *)z; *p; p++) {
    if (*p == '"' || *p == '\\') {
      sqlite3_str_appendchar(s, 1, '\\');
      sqlite3_str_appendchar(s, 1, (char)*p);
    } else if (*p < 0x20) {
      char e[7] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15], 0};
      sqlite3_str_appendall(s, e);
    } else {
      sqlite3_str_appendchar(s, 1, (char)*p);
    }
  }
  sqlite3_str_appendchar(s, 1, '"');
}

void fd_json_num(sqlite3_str *s, double v) {
  if (isnan(v) || isinf(v)) sqlite3_str_appendall(s, "null");
  else if (v == floor(v) && fabs(v) < 1e15) sqlite3_str_appendf(s, "%lld", (long long)v);
  else sqlite3_str_appendf(s, "%!.17g", v); /* round-trips */
}

void fd_json_us(sqlite3_str *s, int64_t ns) {
  /* exact: integer µs and three decimals of ns */
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(a % 1000);
  sqlite3_str_appendf(s, ns < 0 ? "-%llu" : "%llu", (unsigned long long)(a / 1000));
  if (frac) {
    char d[5];
    sqlite3_snprintf(sizeof d, d, ".%03u", frac);
    for (int k = 3; k > 0 && d[k] == '0'; k--) d[k] = 0;
    sqlite3_str_appendall(s, d);
  }
}

int fd_tally_add(fd_tally *t, const char *name, int64_t count, int64_t ns) {
  for (size_t i = 0; i < t->n; i++) {
    fd_tally_item *it = &t->a[i];
    if ((!it->name && !name) || (it->name && name && !strcmp(it->name, name))) {
      it->count += count;
      it->ns = hta_add_sat(it->ns, ns);
      return SQLITE_OK;
    }
  }
  fd_tally_item it = {0, count, ns};
  if (name && !(it.name = sqlite3_mprintf("%s", name))) return SQLITE_NOMEM;
  HTA_PUSH(t->a, t->n, t->cap, 8, it, fd_tally_oom);
  return SQLITE_OK;
fd_tally_oom:
  sqlite3_free(it.name);
  return SQLITE_NOMEM;
}

static int fdTallyCmp(const void *pa, const void *pb) {
  const fd_tally_item *a = pa, *b = pb;
  if (a->ns != b->ns) return a->ns > b->ns ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (!a->name || !b->name) return !a->name - !b->name; /* unnamed last */
  return strcmp(a->name, b->name);
}

void fd_tally_json(sqlite3_str *s, fd_tally *t, size_t k, const char *key_count, int with_ns) {
  if (t->n) qsort(t->a, t->n, sizeof *t->a, fdTallyCmp);
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t i = 0; i < t->n && i < k; i++) {
    sqlite3_str_appendall(s, i ? ",{\"name\":" : "{\"name\":");
    fd_json_str(s, t->a[i].name);
    sqlite3_str_appendf(s, ",\"%s\":%lld", key_count, (long long)t->a[i].count);
    if (with_ns) {
      sqlite3_str_appendall(s, ",\"us\":");
      fd_json_us(s, t->a[i].ns);
    }
    sqlite3_str_appendchar(s, 1, '}');
  }
  sqlite3_str_appendchar(s, 1, ']');
}

const char *fd_tally_top(fd_tally *t) {
  if (t->n) qsort(t->a, t->n, sizeof *t->a, fdTallyCmp);
  return t->n ? t->a[0].name : 0;
}

void fd_tally_free(fd_tally *t) {
  for (size_t i = 0; i < t->n; i++) sqlite3_free(t->a[i].name);
  sqlite3_free(t->a);
  memset(t, 0, sizeof *t);
}

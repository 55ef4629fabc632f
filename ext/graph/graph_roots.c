/*
** graph_roots.c: the execution roots of a replay trace (hg_roots_load): the inference
** engine's iteration annotations, which bound the graph launches of one iteration and
** say its batch size, by which TraceLens picks the capture (graph_match.c GM-3).
**
** This is the narrow interface the match needs (a window and a batch size). The
** parser below reads only the forms the graph merge meets today, vLLM's and SGLang's;
** the full parser of every engine's annotations (ATOM, xDiT too) is hta_inference_steps'
** and replaces it when both meet.
**
** Requirements (tests cite them as GR-n):
**  1. Roots are complete user_annotation events whose name starts (TraceLens's
**     re.match) as a detailed annotation: vLLM's execute_<n>_context_<c>(sq..sk..sqsq..
**     sqsk..)_generation_<g>(sq..sk..sqsq..sqsk..), SGLang's step[EXTEND|DECODE|MIXED
**     ... sqsq=<n> ...]; only when the trace has none of those, a native one: vLLM's
**     execute_context_<c>(<n>)_generation_<g>(<n>), SGLang's step[EXTEND|DECODE|MIXED
**     ...]. By (ts, event_id).
**  2. Batch size (TraceLens's): vLLM detailed c_sq + g_sq, native the two token sums;
**     SGLang detailed c_sq + g_sq, else toks, else bs; native step[DECODE bs=<b>] b,
**     step[EXTEND|MIXED bs=<b> toks=<t>] t, else b (nothing else inside the brackets);
**     otherwise the second "_"-separated part of the name when it is an integer; else
**     none (-1).
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* P past the literal S, or NULL. */
static const char *grLit(const char *p, const char *s) {
  size_t n = strlen(s);
  return p && !strncmp(p, s, n) ? p + n : 0;
}

/* P past one or more digits (their value in *v, saturating), or NULL. */
static const char *grNum(const char *p, int64_t *v) {
  int64_t x = 0;
  if (!p || !isdigit((unsigned char)*p)) return 0;
  for (; isdigit((unsigned char)*p); p++)
    x = x > (INT64_MAX - 9) / 10 ? INT64_MAX : x * 10 + (*p - '0');
  if (v) *v = x;
  return p;
}

/* vLLM's (sq<a>sk<b>sqsq<c>sqsk<d>): P past it with sq in *sq, or NULL. */
static const char *grSqsk(const char *p, int64_t *sq) {
  p = grNum(grLit(p, "(sq"), sq);
  p = grNum(grLit(p, "sk"), 0);
  p = grNum(grLit(p, "sqsq"), 0);
  p = grNum(grLit(p, "sqsk"), 0);
  return grLit(p, ")");
}

/* The value of KEY=<digits> as a whole word inside [P, E); -1 when absent. */
static int64_t grKv(const char *p, const char *e, const char *key) {
  size_t n = strlen(key);
  for (const char *q = p; q + n < e; q++) {
    if ((q == p || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) && !strncmp(q, key, n) &&
        q[n] == '=') {
      int64_t v;
      if (grNum(q + n + 1, &v)) return v;
    }
  }
  return -1;
}

/* SGLang: step[ then a mode as a whole word; P past the mode, *decode set; NULL. */
static const char *grStep(const char *p, int *decode) {
  static const char *const modes[] = {"EXTEND", "DECODE", "MIXED"};
  p = grLit(p, "step[");
  for (int i = 0; p && i < 3; i++) {
    const char *q = grLit(p, modes[i]);
    if (q && !(isalnum((unsigned char)*q) || *q == '_')) {
      *decode = i == 1;
      return q;
    }
  }
  return 0;
}

int hg_root_parse(const char *name, int *tier, int64_t *batch) { /* GR-1, GR-2 */
  int64_t c, g, a, b;
  int decode;
  const char *p, *e;
  *tier = 0;
  *batch = -1;
  if (!name) return 0;
  /* vLLM detailed */
  p = grNum(grLit(name, "execute_"), 0);
  p = grSqsk(grNum(grLit(p, "_context_"), 0), &c);
  p = grSqsk(grNum(grLit(p, "_generation_"), 0), &g);
  if (p) {
    *tier = 1;
    *batch = c + g;
    return 1;
  }
  /* vLLM native */
  p = grNum(grLit(grNum(grLit(name, "execute_context_"), 0), "("), &c);
  p = grNum(grLit(grNum(grLit(p, ")_generation_"), 0), "("), &g);
  if (grLit(p, ")")) {
    *tier = 2;
    *batch = c + g;
    return 1;
  }
  /* SGLang */
  if ((p = grStep(name, &decode)) && (e = strchr(p, ']'))) {
    const char *sqsq = strstr(p, "sqsq=");
    if (sqsq && sqsq < e && isdigit((unsigned char)sqsq[5])) { /* detailed */
      int64_t cs = grKv(p, e = strrchr(p, ']'), "c_sq"), gs = grKv(p, e, "g_sq");
      int64_t sum = (cs > 0 ? cs : 0) + (gs > 0 ? gs : 0), toks = grKv(p, e, "toks");
      *tier = 1;
      *batch = sum ? sum : toks > 0 ? toks : grKv(p, e, "bs") > 0 ? grKv(p, e, "bs") : 0;
      return 1;
    }
    *tier = 2; /* native: step\[(\w+)\s+bs=(\d+)(?:\s+toks=(\d+))?\] exactly */
    const char *q = p;
    a = -1;
    while (isspace((unsigned char)*q)) q++;
    if (q > p && (q = grNum(grLit(q, "bs="), &b))) {
      const char *r = q;
      while (isspace((unsigned char)*r)) r++;
      if (r > q && (r = grNum(grLit(r, "toks="), &a))) q = r;
      else a = -1;
      if (*q == ']') {
        *batch = decode ? b : a > 0 ? a : b;
        return 1;
      }
    }
  }
  if (!*tier) return 0;
  /* TraceLens's fallback: the second "_"-separated part */
  if ((p = strchr(name, '_'))) {
    const char *q = p + 1 + (p[1] == '-');
    if (isdigit((unsigned char)*q) && (e = grNum(q, &a)) && (*e == '_' || !*e)) *batch = a;
  }
  return 1;
}

/* The names that may be roots, by prefix ranges of the string table's unique index. */
static const char grNamesSql[] =
    "SELECT string_id, value FROM $S.string WHERE value >= 'execute_' AND value < 'execute`'"
    " UNION ALL SELECT string_id, value FROM $S.string WHERE value >= 'step[' AND value < 'step\\'";

static const char grEventsSql[] =
    "SELECT event_id, ts, dur, name_id FROM $S.event"
    " WHERE event_id BETWEEN ?1 AND ?2 AND dur IS NOT NULL"
    "  AND category_id = (SELECT category_id FROM $S.category WHERE name = 'user_annotation')"
    "  AND name_id IN (SELECT value FROM json_each(?3))";

typedef struct gr_name {
  int32_t id;
  int tier;
  int64_t batch;
} gr_name;

static int grNameCmp(const void *a, const void *b) {
  const gr_name *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int grRootCmp(const void *a, const void *b) {
  const hg_root *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

int hg_roots_load(sqlite3 *db, const hta_trace *t, hg_root **pa, size_t *pn) {
  sqlite3_stmt *st = 0;
  gr_name *names = 0;
  hg_root *r = 0;
  int *tiers = 0;
  size_t nn = 0, an = 0, nr = 0, ar = 0, nt = 0, at = 0, keep = 0;
  sqlite3_str *ids = 0;
  char *z = 0;
  int rc = hta_prepare(db, t->schema, grNamesSql, &st);
  *pa = 0;
  *pn = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    gr_name x = {sqlite3_column_int(st, 0), 0, -1};
    if (hg_root_parse((const char *)sqlite3_column_text(st, 1), &x.tier, &x.batch))
      HTA_PUSH(names, nn, an, 16, x, roots_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  st = 0;
  if (rc != SQLITE_OK || nn == 0) goto roots_end;
  qsort(names, nn, sizeof *names, grNameCmp);
  ids = sqlite3_str_new(db);
  for (size_t i = 0; i < nn; i++) sqlite3_str_appendf(ids, "%s%d", i ? "," : "[", names[i].id);
  sqlite3_str_appendchar(ids, 1, ']');
  if (!(z = sqlite3_str_finish(ids))) goto roots_oom;
  rc = hta_prepare(db, t->schema, grEventsSql, &st);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
    sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
    sqlite3_bind_text(st, 3, z, -1, SQLITE_STATIC);
  }
  int best = 3; /* GR-1: the first tier that has a root */
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: go on */
    gr_name key = {sqlite3_column_int(st, 3), 0, 0};
    const gr_name *nm = bsearch(&key, names, nn, sizeof *names, grNameCmp);
    if (!nm) continue;
    hg_root x;
    x.event_id = sqlite3_column_int64(st, 0);
    x.ts = sqlite3_column_int64(st, 1);
    x.end = hta_end(x.ts, sqlite3_column_int64(st, 2));
    x.batch = nm->batch;
    int tier = nm->tier;
    if (tier < best) best = tier;
    HTA_PUSH(r, nr, ar, 16, x, roots_oom);
    HTA_PUSH(tiers, nt, at, 16, tier, roots_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < nr; i++) {
    if (tiers[i] == best) r[keep++] = r[i];
  }
  nr = keep;
  if (rc == SQLITE_OK && nr > 1) qsort(r, nr, sizeof *r, grRootCmp);
  goto roots_end;
roots_oom:
  rc = SQLITE_NOMEM;
roots_end:
  sqlite3_finalize(st);
  sqlite3_free(z);
  sqlite3_free(names);
  sqlite3_free(tiers);
  if (rc == SQLITE_OK) {
    *pa = r;
    *pn = nr;
  } else {
    sqlite3_free(r);
  }
  return rc;
}

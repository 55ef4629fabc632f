/*
** tb_modules.c: hta_module_stats, the PyTorch TensorBoard profiler plugin's Module view
** (torch_tb_profiler 0.4.3, module_op.py): time per nn.Module, forward, nested, host and
** device. Registered by hta_register_tb_modules.
**
**   SELECT path, occurrences, host_total_us, device_total_us FROM hta_module_stats WHERE rank = 0;
**   SELECT name, device_self_us FROM hta_module_stats WHERE depth = 1 ORDER BY 2 DESC;
**   SELECT * FROM hta_module_stats(127);        -- with the plugin's quirks (plugin_quirks)
**
** Columns (then `job`): rank, path (JSON array of the module names from the root, e.g.
** ["ResNet_0","Conv2d_0"]), name, module_id, depth (root 0), occurrences, operators,
** host_total_us, host_self_us, device_total_us, device_self_us, trace_id.
** Parameter (HIDDEN): plugin_quirks (0; tb_tree.h's TB_Q_* bits, 127 = the plugin's
** runtime attachment, which gives the id-less runtimes to the first nn.Module).
**
** Requirements (tests cite them as TM-n; TB-n are tb_tree.c's):
**  1. Each trace file is analysed whole, on its own, in (rank, trace_id) order; a trace
**     without nn.Module calls in its host tree gives no rows (the plugin shows no view).
**  2. A module call is a python_function event whose args carry a non-null integer
**     "Python module id"; "Python id" and "Python parent id" link the python_function
**     events (the last event of an id in (ts, event_id) order owns it). A call's parent
**     module is the nearest module call up the chain of parent ids, through plain
**     python_function events and across threads; a parent id no event owns, or a cycle,
**     ends the chain (a root).
**  3. Rows: one per distinct path, the path being the names of a call's module
**     ancestors and its own, root first, each with every "nn.Module: " removed; name
**     and module_id are the call's. (The plugin lists a module called twice in one call
**     twice and merges equal root trees; both repeat a path with equal numbers.) Order:
**     depth first, roots by name then first call, children by first call ((ts,
**     event_id) of the earliest call).
**  4. Numbers per (event name, module id) over the module nodes of the host tree (TB-2,
**     TB-3: a dropped node is none), whatever their path: occurrences = the nodes;
**     operators = their direct children that are operator nodes (TB-2, the Operator
**     view's rows); host_total_us = sum of end - ts; host_self_us = sum of TB-9's
**     host self; device_total_us = sum of TB-9's device total; device_self_us = sum of
**     the own runtimes' device time plus the device totals of the direct operator
**     children (a child module is not self; an operator's whole subtree is). A path
**     whose (name, id) has no node shows zeros (the plugin raised).
**  5. plugin_quirks: as hta_operator_stats ("hta_module_stats: plugin_quirks must be an
**     integer from 0 to 127").
**
** HOW IT WORKS: one scan of the trace's python_function rows (ts order) reads the ids;
** a sorted array maps Python ids to events; each event's nearest module ancestor is
** memoised, so the chains are walked once; paths are interned by (parent path, name,
** module id) in a hash table. tb_tree_load builds the host tree; one pass over its
** module nodes sums the numbers per (name, id), looked up by binary search.
*/
#include <stdlib.h>
#include <string.h>

#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define TM_RANK 0
#define TM_PATH 1
#define TM_NAME 2
#define TM_MODULE_ID 3
#define TM_DEPTH 4
#define TM_OCCURRENCES 5
#define TM_OPERATORS 6
#define TM_HOST_TOTAL 7
#define TM_HOST_SELF 8
#define TM_DEV_TOTAL 9
#define TM_DEV_SELF 10
#define TM_TRACE_ID 11
#define TM_NVISIBLE 12
#define TM_SCHEMA                                                                        \
  "CREATE TABLE x(rank INTEGER, path TEXT, name TEXT, module_id INTEGER, depth INTEGER," \
  " occurrences INTEGER, operators INTEGER, host_total_us REAL, host_self_us REAL,"      \
  " device_total_us REAL, device_self_us REAL, trace_id INTEGER, plugin_quirks HIDDEN)"
static const hta_param tmParams[] = {TB_QUIRKS_PARAM};

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* ---------------------------------------------------------------- the calls (TM-2) */

typedef struct tm_ev { /* a python_function event */
  int64_t pyid, parent, mid, ts, id;
  char *name;   /* sqlite3_malloc'd; module calls only */
  int32_t up;   /* its nearest module ancestor: an index, -1 none, TM_UNKNOWN, TM_BUSY */
  int32_t path; /* module calls: its row */
  uint8_t has_pyid, has_parent, is_mod;
} tm_ev;
#define TM_UNKNOWN (-2)
#define TM_BUSY (-3) /* on the walk now: met again, a cycle */

typedef struct tm_id { /* Python id -> event */
  int64_t pyid;
  int32_t ev;
} tm_id;

typedef struct tm_path { /* a row */
  int32_t parent, first; /* parent row (-1: a root); the earliest call (event index) */
  int32_t child, next;   /* first child, next sibling after ordering (-1: none) */
  int32_t depth;
  char *json; /* the path, JSON; sqlite3_malloc'd */
} tm_path;

typedef struct tm_calls {
  tm_ev *ev;
  size_t nev, cev;
  tm_id *ids;
  size_t nids;
  tm_path *paths;
  size_t npath, cpath;
  int32_t *htab; /* (parent, name, module id) -> row; open addressing, -1 empty */
  size_t hcap;
} tm_calls;

static void callsFree(tm_calls *c) {
  for (size_t i = 0; i < c->nev; i++) sqlite3_free(c->ev[i].name);
  for (size_t i = 0; i < c->npath; i++) sqlite3_free(c->paths[i].json);
  sqlite3_free(c->ev);
  sqlite3_free(c->ids);
  sqlite3_free(c->paths);
  sqlite3_free(c->htab);
  memset(c, 0, sizeof *c);
}

enum { TA_PYID, TA_PARENT, TA_MODULE, TA_N };
static const hta_jkey tmKeys[TA_N] = {
    HTA_JKEY("Python id"),
    HTA_JKEY("Python parent id"),
    HTA_JKEY("Python module id"),
};

/* Reads trace T's python_function events into C->ev, in (ts, event_id) order. */
static int loadCalls(sqlite3 *db, const hta_trace *t, tm_calls *c) {
  sqlite3_stmt *st = 0;
  int rc =
      hta_prepare(db, t->schema,
                  "SELECT e.event_id, e.ts, e.args, v.value FROM $S.event e"
                  " LEFT JOIN $S.string v ON v.string_id = e.name_id"
                  " WHERE e.event_id BETWEEN ?1 AND ?2 AND e.category_id IN"
                  " (SELECT category_id FROM $S.category WHERE lower(name) = 'python_function')"
                  " ORDER BY e.ts, e.event_id",
                  &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    hta_jval a[TA_N];
    tm_ev e;
    memset(&e, 0, sizeof e);
    hta_json_members((const char *)sqlite3_column_text(st, 2), sqlite3_column_bytes(st, 2), tmKeys,
                     TA_N, a);
    e.id = sqlite3_column_int64(st, 0);
    e.ts = sqlite3_column_int64(st, 1);
    e.has_pyid = (uint8_t)hta_json_int(a[TA_PYID], &e.pyid);
    e.has_parent = (uint8_t)hta_json_int(a[TA_PARENT], &e.parent);
    e.is_mod = (uint8_t)hta_json_int(a[TA_MODULE], &e.mid);
    e.up = TM_UNKNOWN;
    e.path = -1;
    if (e.is_mod) {
      const char *nm = (const char *)sqlite3_column_text(st, 3);
      if (!(e.name = sqlite3_mprintf("%s", nm ? nm : ""))) goto oom;
    }
    HTA_PUSH(c->ev, c->nev, c->cev, 1024, e, oom_ev);
    if (c->nev >= INT32_MAX) {
      rc = SQLITE_TOOBIG;
      break;
    }
    if ((c->nev & 0xffff) == 0 && hta_interrupted(db)) {
      rc = SQLITE_INTERRUPT;
      break;
    }
    continue;
  oom_ev:
    sqlite3_free(e.name);
  oom:
    rc = SQLITE_NOMEM;
    break;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int idCmp(const void *a, const void *b) {
  const tm_id *x = a, *y = b;
  if (x->pyid != y->pyid) return x->pyid < y->pyid ? -1 : 1;
  return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The event that owns Python id ID (the last of its run: TM-2), or -1. */
static int32_t findId(const tm_calls *c, int64_t id) {
  size_t lo = 0, hi = c->nids;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->ids[mid].pyid <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && c->ids[lo - 1].pyid == id ? c->ids[lo - 1].ev : -1;
}

/* TM-2: the nearest module ancestor of every event (up), memoised: a walk climbs until
** it meets a module, an event whose answer is known, a root or a cycle; on the way back
** each walked event gets the module nearest above it. */
static int linkCalls(tm_calls *c) {
  int32_t *stack;
  size_t n = 0;
  c->ids = sqlite3_malloc64((c->nev ? c->nev : 1) * sizeof *c->ids);
  stack = sqlite3_malloc64((c->nev ? c->nev : 1) * sizeof *stack);
  if (!c->ids || !stack) {
    sqlite3_free(stack);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < c->nev; i++) {
    if (!c->ev[i].has_pyid) continue;
    tm_id k = {c->ev[i].pyid, (int32_t)i};
    c->ids[n++] = k;
  }
  c->nids = n;
  TB_QSORT(c->ids, n, idCmp);
  for (size_t i = 0; i < c->nev; i++) {
    size_t sp = 0;
    int32_t cur = (int32_t)i, ans = -1;
    if (c->ev[i].up != TM_UNKNOWN) continue;
    for (;;) {
      tm_ev *e = &c->ev[cur];
      int32_t p = e->has_parent ? findId(c, e->parent) : -1;
      e->up = TM_BUSY;
      stack[sp++] = cur;
      if (p < 0 || c->ev[p].up == TM_BUSY) break; /* a root, or a cycle: none above */
      if (c->ev[p].is_mod) {
        ans = p;
        break;
      }
      if (c->ev[p].up != TM_UNKNOWN) {
        ans = c->ev[p].up;
        break;
      }
      cur = p;
    }
    while (sp) { /* top of the walk first */
      int32_t k = stack[--sp];
      c->ev[k].up = ans;
      if (c->ev[k].is_mod) ans = k; /* the events below it have it above them */
    }
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- the rows (TM-3) */

static uint64_t pathHash(int32_t parent, const char *name, int64_t mid) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)parent;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return (h ^ (uint64_t)mid) * 0x9E3779B97F4A7C15ull;
}

static int pathEq(const tm_calls *c, int32_t row, int32_t parent, const tm_ev *e) {
  const tm_ev *f = &c->ev[c->paths[row].first];
  return c->paths[row].parent == parent && f->mid == e->mid && !strcmp(f->name, e->name);
}

static size_t pathSlot(const tm_calls *c, int32_t parent, const tm_ev *e) {
  size_t i = (size_t)pathHash(parent, e->name, e->mid) & (c->hcap - 1);
  while (c->htab[i] >= 0 && !pathEq(c, c->htab[i], parent, e)) i = (i + 1) & (c->hcap - 1);
  return i;
}

/* The row of module call E under row PARENT, added when new. */
static int internPath(tm_calls *c, int32_t parent, int32_t ev, int32_t *row) {
  const tm_ev *e = &c->ev[ev];
  if (2 * (c->npath + 1) > c->hcap) { /* grow the table and re-insert */
    size_t cap = c->hcap ? 2 * c->hcap : 256;
    int32_t *t = sqlite3_malloc64(cap * sizeof *t);
    if (!t) return SQLITE_NOMEM;
    sqlite3_free(c->htab);
    c->htab = t, c->hcap = cap;
    memset(t, 0xff, cap * sizeof *t);
    for (size_t r = 0; r < c->npath; r++)
      c->htab[pathSlot(c, c->paths[r].parent, &c->ev[c->paths[r].first])] = (int32_t)r;
  }
  size_t s = pathSlot(c, parent, e);
  if (c->htab[s] >= 0) {
    *row = c->htab[s];
    return SQLITE_OK;
  }
  tm_path p = {parent, ev, -1, -1, parent >= 0 ? c->paths[parent].depth + 1 : 0, 0};
  HTA_PUSH(c->paths, c->npath, c->cpath, 64, p, oom);
  *row = c->htab[s] = (int32_t)(c->npath - 1);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

/* Every module call's row (TM-3): parents first, by walking up to a call with a row. */
static int buildPaths(tm_calls *c) {
  int32_t *stack = sqlite3_malloc64((c->nev ? c->nev : 1) * sizeof *stack);
  int rc = stack ? SQLITE_OK : SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < c->nev; i++) {
    size_t sp = 0;
    if (!c->ev[i].is_mod || c->ev[i].path >= 0) continue;
    for (int32_t k = (int32_t)i; k >= 0 && c->ev[k].path < 0; k = c->ev[k].up) stack[sp++] = k;
    while (sp && rc == SQLITE_OK) {
      int32_t k = stack[--sp], up = c->ev[k].up;
      rc = internPath(c, up >= 0 ? c->ev[up].path : -1, k, &c->ev[k].path);
    }
  }
  sqlite3_free(stack);
  return rc;
}

/* *OUT: the row's display name, NAME with every "nn.Module: " removed (TM-3). */
static int displayName(const char *name, char **out) {
  static const char pfx[] = "nn.Module: ";
  sqlite3_str *s = sqlite3_str_new(0);
  int rc;
  for (const char *p = name; *p;) {
    if (!strncmp(p, pfx, sizeof pfx - 1)) p += sizeof pfx - 1;
    else sqlite3_str_appendchar(s, 1, *p++);
  }
  rc = sqlite3_str_errcode(s);
  *out = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !*out) *out = sqlite3_mprintf("%s", ""); /* an empty name */
  return rc == SQLITE_OK && !*out ? SQLITE_NOMEM : rc;
}

typedef struct tm_sib { /* ordering siblings */
  const tm_calls *c;
  int32_t row;
  const char *name; /* roots only: by name first */
} tm_sib;

static int sibCmp(const void *a, const void *b) {
  const tm_sib *x = a, *y = b;
  if (!x->name != !y->name) return x->name ? -1 : 1; /* roots (by name) first: a total order */
  if (x->name) {
    int d = strcmp(x->name, y->name);
    if (d) return d;
  }
  const tm_ev *e = &x->c->ev[x->c->paths[x->row].first], *f = &y->c->ev[y->c->paths[y->row].first];
  if (e->ts != f->ts) return e->ts < f->ts ? -1 : 1;
  return e->id < f->id ? -1 : e->id > f->id;
}

/* The earliest call of each row (TM-3's sibling order), then the sibling links; *ROOT
** the first root. NAMES: the rows' display names. */
static int orderPaths(tm_calls *c, char **names, int32_t *root) {
  tm_sib *s = sqlite3_malloc64((c->npath ? c->npath : 1) * sizeof *s);
  int32_t *last = sqlite3_malloc64((c->npath + 1) * sizeof *last);
  uint8_t *seen = sqlite3_malloc64(c->npath ? c->npath : 1);
  if (!s || !last || !seen) {
    sqlite3_free(s);
    sqlite3_free(last);
    sqlite3_free(seen);
    return SQLITE_NOMEM;
  }
  memset(seen, 0, c->npath ? c->npath : 1);
  for (size_t i = 0; i < c->nev; i++) { /* the events are in (ts, event_id) order */
    int32_t r = c->ev[i].path;
    if (r >= 0 && !seen[r]) seen[r] = 1, c->paths[r].first = (int32_t)i;
  }
  for (size_t i = 0; i < c->npath; i++) {
    tm_sib x = {c, (int32_t)i, c->paths[i].parent < 0 ? names[i] : 0};
    s[i] = x;
  }
  TB_QSORT(s, c->npath, sibCmp);
  for (size_t i = 0; i <= c->npath; i++) last[i] = -1;
  *root = -1;
  for (size_t k = 0; k < c->npath; k++) { /* appending in sorted order keeps lists sorted */
    int32_t r = s[k].row, p = c->paths[r].parent;
    int32_t *head = p < 0 ? root : &c->paths[p].child;
    int32_t *tail = &last[p < 0 ? c->npath : (size_t)p];
    if (*tail < 0) *head = r;
    else c->paths[*tail].next = r;
    *tail = r;
  }
  sqlite3_free(last);
  sqlite3_free(seen);
  sqlite3_free(s);
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- the numbers (TM-4) */

typedef struct tm_stat {
  const char *name; /* the event name (tb_tree's slot text) */
  int64_t mid, n, ops, host_total, host_self, dev_total, dev_self;
} tm_stat;

static int statCmp(const void *a, const void *b) {
  const tm_stat *x = a, *y = b;
  int d = strcmp(x->name, y->name);
  if (d) return d;
  return x->mid < y->mid ? -1 : x->mid > y->mid;
}

/* The numbers of every (name, module id) of tree TR into *OUT (sorted, merged); *N their
** count. */
static int moduleStats(const tb_tree *tr, tm_stat **out, size_t *n) {
  size_t k = 0;
  tm_stat *s = sqlite3_malloc64((tr->nnode ? tr->nnode : 1) * sizeof *s);
  *out = s, *n = 0;
  if (!s) return SQLITE_NOMEM;
  for (size_t i = 0; i < tr->nnode; i++) {
    const tb_node *nd = &tr->nodes[i];
    if (nd->type != TB_T_MODULE || nd->dropped) continue;
    tm_stat x;
    memset(&x, 0, sizeof x);
    x.name = tb_name(tr, nd->name);
    x.mid = nd->mod;
    x.n = 1;
    x.host_total = hta_sub_sat(nd->end, nd->ts);
    x.host_self = nd->host_self;
    x.dev_total = nd->dev_total;
    x.dev_self = nd->dev_self;
    for (int32_t c = nd->child; c >= 0; c = tr->nodes[c].next) {
      if (!tr->nodes[c].is_op) continue;
      x.ops++;
      x.dev_self = hta_add_sat(x.dev_self, tr->nodes[c].dev_total);
    }
    s[k++] = x;
  }
  TB_QSORT(s, k, statCmp);
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (m && !statCmp(&s[m - 1], &s[i])) {
      tm_stat *a = &s[m - 1];
      a->n += s[i].n, a->ops += s[i].ops;
      a->host_total = hta_add_sat(a->host_total, s[i].host_total);
      a->host_self = hta_add_sat(a->host_self, s[i].host_self);
      a->dev_total = hta_add_sat(a->dev_total, s[i].dev_total);
      a->dev_self = hta_add_sat(a->dev_self, s[i].dev_self);
    } else {
      s[m++] = s[i];
    }
  }
  *n = m;
  return SQLITE_OK;
}

/* ---------------------------------------------------------------- the table */

/* Appends the row of each root from ROOT on and its subtree, depth first (TM-3, TM-4). */
static int emitRows(const hta_trace *t, const tm_calls *c, char **names, const tm_stat *st,
                    size_t nst, int32_t root, hta_table *out) {
  int32_t *stack = sqlite3_malloc64((c->npath + 1) * sizeof *stack);
  size_t sp = 0;
  if (!stack) return SQLITE_NOMEM;
  for (int32_t r = root; r >= 0; r = c->paths[r].next) stack[sp++] = r;
  for (size_t a = 0, b = sp; a + 1 < b; a++, b--) { /* the first root on top */
    int32_t x = stack[a];
    stack[a] = stack[b - 1], stack[b - 1] = x;
  }
  while (sp) {
    int32_t r = stack[--sp];
    const tm_path *p = &c->paths[r];
    const tm_ev *e = &c->ev[p->first];
    tm_stat key, *s;
    hta_cell *cell = hta_table_add_row(out);
    if (!cell || hta_cell_text(&cell[TM_PATH], p->json) ||
        hta_cell_text(&cell[TM_NAME], names[r])) {
      sqlite3_free(stack);
      return SQLITE_NOMEM;
    }
    key.name = e->name, key.mid = e->mid;
    s = nst ? bsearch(&key, st, nst, sizeof *st, statCmp) : 0;
    hta_cell_int(&cell[TM_RANK], t->rank);
    hta_cell_int(&cell[TM_MODULE_ID], e->mid);
    hta_cell_int(&cell[TM_DEPTH], p->depth);
    hta_cell_int(&cell[TM_OCCURRENCES], s ? s->n : 0);
    hta_cell_int(&cell[TM_OPERATORS], s ? s->ops : 0);
    hta_cell_double(&cell[TM_HOST_TOTAL], us(s ? s->host_total : 0));
    hta_cell_double(&cell[TM_HOST_SELF], us(s ? s->host_self : 0));
    hta_cell_double(&cell[TM_DEV_TOTAL], us(s ? s->dev_total : 0));
    hta_cell_double(&cell[TM_DEV_SELF], us(s ? s->dev_self : 0));
    hta_cell_int(&cell[TM_TRACE_ID], t->trace_id);
    size_t mark = sp; /* the children, the first one on top */
    for (int32_t k = p->child; k >= 0; k = c->paths[k].next) stack[sp++] = k;
    for (size_t a = mark, b = sp; a + 1 < b; a++, b--) {
      int32_t x = stack[a];
      stack[a] = stack[b - 1], stack[b - 1] = x;
    }
  }
  sqlite3_free(stack);
  return SQLITE_OK;
}

/* The JSON path of every row, parents first (rows are interned parents first). */
static int pathTexts(tm_calls *c, char **names) {
  for (size_t i = 0; i < c->npath; i++) {
    tm_path *p = &c->paths[i];
    sqlite3_str *s = sqlite3_str_new(0);
    if (p->parent >= 0) {
      const char *pj = c->paths[p->parent].json;
      sqlite3_str_append(s, pj, (int)strlen(pj) - 1); /* without its ']' */
      sqlite3_str_appendchar(s, 1, ',');
    } else {
      sqlite3_str_appendchar(s, 1, '[');
    }
    hta_json_append_string(s, names[i] ? names[i] : "");
    sqlite3_str_appendchar(s, 1, ']');
    if (!(p->json = sqlite3_str_finish(s))) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int tmRunTrace(sqlite3 *db, const hta_trace *t, int quirks, hta_table *out) {
  tm_calls c;
  tb_tree tr;
  tm_stat *st = 0;
  size_t nst = 0;
  char **names = 0;
  int32_t root = -1;
  int rc, have_tree = 0;
  memset(&c, 0, sizeof c);
  rc = loadCalls(db, t, &c);
  if (rc == SQLITE_OK) rc = linkCalls(&c);
  if (rc == SQLITE_OK) rc = buildPaths(&c);
  if (rc != SQLITE_OK || c.npath == 0) goto tm_done;
  rc = tb_tree_load(db, t, quirks, 0, &tr);
  if (rc != SQLITE_OK) goto tm_done;
  have_tree = 1;
  rc = moduleStats(&tr, &st, &nst);
  if (rc != SQLITE_OK || nst == 0) goto tm_done; /* TM-1: no module node, no view */
  names = sqlite3_malloc64(c.npath * sizeof *names);
  if (!names) {
    rc = SQLITE_NOMEM;
    goto tm_done;
  }
  memset(names, 0, c.npath * sizeof *names);
  for (size_t i = 0; rc == SQLITE_OK && i < c.npath; i++)
    rc = displayName(c.ev[c.paths[i].first].name, &names[i]);
  if (rc == SQLITE_OK) rc = orderPaths(&c, names, &root);
  if (rc == SQLITE_OK) rc = pathTexts(&c, names);
  if (rc == SQLITE_OK) rc = emitRows(t, &c, names, st, nst, root, out);
tm_done:
  for (size_t i = 0; names && i < c.npath; i++) sqlite3_free(names[i]);
  sqlite3_free(names);
  sqlite3_free(st);
  if (have_tree) tb_tree_free(&tr);
  callsFree(&c);
  return rc;
}

static int tmRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  hta_traces ts;
  int rc;
  (void)pzErr;
  rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1 /* TM-1: no cut */, &ts);
  for (int i = 0; rc == SQLITE_OK && i < ts.n; i++)
    rc = tmRunTrace(db, &ts.a[i], (int)a->p[0], out);
  hta_traces_free(&ts);
  return rc;
}

static const hta_tvf tmTvf = {
    "hta_module_stats", TM_SCHEMA, TM_NVISIBLE, TM_RANK, 1, tmParams, tmRun,
};

/* Registers hta_module_stats. */
int hta_register_tb_modules(sqlite3 *db) { return hta_tvf_register(db, &tmTvf); }

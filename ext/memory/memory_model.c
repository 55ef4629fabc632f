/*
** memory_model.c: reads one trace's [memory] records and cpu_op tree, and finds
** the operator that holds each record (memory.c MEM-1..6 state the rules; this
** file implements them for the four memory analyses).
**
** HOW IT WORKS: one scan of the trace's event_id range reads the [memory] instants
** (their args with a small scanner of the JSON text) and the cpu_op / operator complete events.
** Both are sorted by (thread, ts); one sweep per thread keeps the stack of open
** operator nodes: a node's parent is the top of the stack when it starts, and a
** record's node is the top of the stack at its ts once every node that ended at
** or before ts is popped (half-open intervals). The records are then ordered by
** (device, ts, event_id), the order every memory analysis reads them in.
*/
#include <stdlib.h>
#include <string.h>

#include "memory/memory.h"
#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* MEM-3: the thread key of column COL (text tids match their integers). */
static int64_t mmTidKey(sqlite3_stmt *st, int col) {
  return hta_tid_key(sqlite3_column_value(st, col));
}

/* Reads column COL as an integer into *OUT; 0 when absent or not integral. */
static int mmInt(sqlite3_stmt *st, int col, int64_t *out) {
  *out = 0;
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
  return hta_value_int64(sqlite3_column_value(st, col), out);
}

/* MEM-5: the names the plugin treats as operators (tb_rules.c TBR-4). */
static int mmIsOperatorName(const char *s) { return (tb_name_flags(s) & TB_N_OPERATOR) != 0; }

void mm_trace_free(mm_trace *m) {
  sqlite3_free(m->recs);
  sqlite3_free(m->nodes);
  sqlite3_free(m->devs);
  for (size_t i = 0; i < m->nnames; i++) sqlite3_free(m->names[i]);
  sqlite3_free(m->names);
  sqlite3_free(m->is_op);
  memset(m, 0, sizeof *m);
}

const char *mm_operator(const mm_trace *m, const mm_record *r) {
  return r->node < 0 ? 0 : m->names[m->nodes[r->node].slot];
}

/* ---------------------------------------------------------------- loading */

/* ---------------------------------------------------------------- args */
/* The six args of a record, read from its args JSON text by one scan (json_args.c):
** a member whose value is not an integral number is absent, as is everything of a
** text that is not a JSON object (MEM-1). */
#define MM_NARG 6
static const hta_jkey mmArgKeys[MM_NARG] = {
    HTA_JKEY("Device Type"), HTA_JKEY("Device Id"),       HTA_JKEY("Addr"),
    HTA_JKEY("Bytes"),       HTA_JKEY("Total Allocated"), HTA_JKEY("Total Reserved"),
};

/* Reads the args of text [S, S+N) into V and HAS (MM_NARG each). */
static void mmArgs(const char *s, int n, int64_t *v, int *has) {
  hta_jval jv[MM_NARG];
  hta_json_members(s, n, mmArgKeys, MM_NARG, jv);
  for (int i = 0; i < MM_NARG; i++) has[i] = hta_json_int(jv[i], &v[i]);
}

/* Reads record row ST (columns 1.. of mmLoad's query) into *R. */
static void mmReadRecord(sqlite3_stmt *st, mm_record *r) {
  memset(r, 0, sizeof *r);
  r->event_id = sqlite3_column_int64(st, 1);
  r->seq = sqlite3_column_int64(st, 2);
  r->tid_key = mmTidKey(st, 3);
  r->ts = sqlite3_column_int64(st, 4);
  r->has_step = mmInt(st, 7, &r->step);
  int64_t v[MM_NARG];
  int has[MM_NARG];
  mmArgs((const char *)sqlite3_column_text(st, 8), sqlite3_column_bytes(st, 8), v, has);
  r->has_type = has[0], r->dev_type = has[0] ? v[0] : 0;
  r->dev_id = has[1] ? v[1] : INT64_MIN;
  if (r->dev_type == 6) r->dev_type = 1; /* MEM-2: HIP reads as CUDA */
  if (r->has_type && r->dev_type == 0) r->dev_id = -1;
  if (!r->has_type) r->dev_type = r->dev_id = 0;
  r->has_addr = has[2], r->addr = has[2] ? v[2] : 0;
  r->has_bytes = has[3], r->bytes = has[3] ? v[3] : 0;
  r->has_allocated = has[4], r->allocated = has[4] ? v[4] : 0;
  r->has_reserved = has[5], r->reserved = has[5] ? v[5] : 0;
  r->node = -1;
}

/* Reads node row ST into *N; the name id rides in slot until mmNames. */
static void mmReadNode(sqlite3_stmt *st, mm_node *n) {
  int64_t dur = sqlite3_column_int64(st, 5);
  memset(n, 0, sizeof *n);
  n->event_id = sqlite3_column_int64(st, 1);
  n->tid_key = mmTidKey(st, 3);
  n->ts = sqlite3_column_int64(st, 4);
  n->end = hta_end(n->ts, dur > 0 ? dur : 0); /* a negative dur is zero-length */
  n->parent = -1;
  n->slot = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : (int32_t)sqlite3_column_int64(st, 6);
}

/* One scan of trace T's rows: its [memory] records (NAME_ID, MEM-1) and its cpu_op
** nodes (MEM-3). *PNAME_IDS = the nodes' name ids, for mmNames (sqlite3_free). */
static int mmLoad(sqlite3 *db, const hta_trace *t, int32_t name_id, mm_trace *m,
                  int32_t **pname_ids) {
  sqlite3_stmt *st = 0;
  size_t rcap = 0, ncap = 0;
  int32_t *ids;
  int rc = hta_prepare(
      db, t->schema,
      "SELECT ph = 'i', event_id, seq, tid, ts, dur, name_id, iteration,"
      " CASE WHEN ph = 'i' THEN args END"
      " FROM $S.event WHERE event_id BETWEEN ?1 AND ?2 AND ts IS NOT NULL"
      " AND ((ph = 'i' AND name_id = ?3) OR (ph = 'X' AND stream IS NULL AND dur IS NOT NULL"
      " AND category_id IN (SELECT category_id FROM $S.category"
      "  WHERE lower(name) IN ('cpu_op', 'operator'))))",
      &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, hta_trace_first_id(t->trace_id));
  sqlite3_bind_int64(st, 2, hta_trace_last_id(t->trace_id));
  sqlite3_bind_int64(st, 3, name_id);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_int(st, 0)) {
      mm_record r;
      mmReadRecord(st, &r);
      HTA_PUSH(m->recs, m->nrec, rcap, 1024, r, oom);
    } else {
      mm_node n;
      mmReadNode(st, &n);
      HTA_PUSH(m->nodes, m->nnode, ncap, 1024, n, oom);
    }
    if (((m->nrec + m->nnode) & 0xffff) == 0 && hta_interrupted(db)) break;
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW) return SQLITE_INTERRUPT;
  if (rc != SQLITE_DONE) return rc;
  if (m->nnode > INT32_MAX) return SQLITE_TOOBIG;
  ids = sqlite3_malloc64((m->nnode ? m->nnode : 1) * sizeof *ids);
  if (!ids) return SQLITE_NOMEM;
  for (size_t i = 0; i < m->nnode; i++) ids[i] = m->nodes[i].slot;
  *pname_ids = ids;
  return SQLITE_OK;
oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

/* Device order (MEM-2): CPU, GPU by id, other types by (type, id), no type last. */
static int mmDevCmp(const mm_record *x, const mm_record *y) {
  if (x->has_type != y->has_type) return x->has_type ? -1 : 1;
  if (x->dev_type != y->dev_type) return x->dev_type < y->dev_type ? -1 : 1;
  if (x->dev_id != y->dev_id) return x->dev_id < y->dev_id ? -1 : 1;
  return 0;
}

/* MEM-7: (device, ts, event_id). */
static int mmRecCmp(const void *a, const void *b) {
  const mm_record *x = a, *y = b;
  int c = mmDevCmp(x, y);
  if (c) return c;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* Sorts the records (MEM-7) and names their devices (MEM-2). */
static int mmDevices(mm_trace *m) {
  size_t cap = 0;
  qsort(m->recs, m->nrec, sizeof *m->recs, mmRecCmp);
  for (size_t i = 0; i < m->nrec; i++) {
    mm_record *r = &m->recs[i];
    if (i == 0 || mmDevCmp(&m->recs[i - 1], r)) {
      mm_device d;
      memset(&d, 0, sizeof d);
      d.type = r->dev_type;
      d.id = r->dev_id;
      d.has_type = r->has_type;
      if (!r->has_type) d.name[0] = 0;
      else if (r->dev_type == 0) memcpy(d.name, "CPU", 4);
      else if (r->dev_id == INT64_MIN)
        sqlite3_snprintf(sizeof d.name, d.name, r->dev_type == 1 ? "GPU" : "DEVICE%lld",
                         (long long)r->dev_type);
      else if (r->dev_type == 1)
        sqlite3_snprintf(sizeof d.name, d.name, "GPU%lld", (long long)r->dev_id);
      else
        sqlite3_snprintf(sizeof d.name, d.name, "DEVICE%lld:%lld", (long long)r->dev_type,
                         (long long)r->dev_id);
      size_t nd = (size_t)m->ndev;
      HTA_PUSH(m->devs, nd, cap, 4, d, oom);
      m->ndev = (int)nd;
    }
    r->dev = m->ndev - 1;
  }
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

static int mmI32Cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* Gives every node the slot of its name (IDS: the nodes' name ids, sorted and made
** distinct here) and reads the names (MEM-5). */
static int mmNames(sqlite3 *db, const hta_trace *t, mm_trace *m, int32_t *ids) {
  sqlite3_stmt *q = 0;
  size_t n = 0;
  int rc;
  qsort(ids, m->nnode, sizeof *ids, mmI32Cmp);
  for (size_t i = 0; i < m->nnode; i++) {
    if (i == 0 || ids[i] != ids[n - 1]) ids[n++] = ids[i];
  }
  m->names = sqlite3_malloc64((n ? n : 1) * sizeof *m->names);
  m->is_op = sqlite3_malloc64((n ? n : 1) * sizeof *m->is_op);
  if (!m->names || !m->is_op) return SQLITE_NOMEM;
  memset(m->names, 0, (n ? n : 1) * sizeof *m->names);
  m->nnames = n;
  for (size_t i = 0; i < m->nnode; i++) {
    int32_t *p = bsearch(&m->nodes[i].slot, ids, n, sizeof *ids, mmI32Cmp);
    m->nodes[i].slot = (int32_t)(p - ids);
  }
  rc = hta_prepare(db, t->schema, HTA_SQL_NAME_OF_ID, &q);
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    m->is_op[i] = 0;
    if (ids[i] < 0) continue; /* a node without a name is no operator */
    sqlite3_bind_int64(q, 1, ids[i]);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
      const char *s = (const char *)sqlite3_column_text(q, 0);
      m->names[i] = sqlite3_mprintf("%s", s ? s : "");
      if (!m->names[i]) rc = SQLITE_NOMEM;
      else m->is_op[i] = mmIsOperatorName(m->names[i]);
    }
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(q);
  }
  sqlite3_finalize(q);
  return rc;
}

/* MEM-3: nodes by (thread, ts, -end, event_id): an enclosing node comes first. */
static int mmNodeCmp(const void *a, const void *b) {
  const mm_node *x = a, *y = b;
  if (x->tid_key != y->tid_key) return x->tid_key < y->tid_key ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

typedef struct mm_ref {
  int64_t tid_key, ts, event_id;
  size_t i;
} mm_ref;

static int mmRefCmp(const void *a, const void *b) {
  const mm_ref *x = a, *y = b;
  if (x->tid_key != y->tid_key) return x->tid_key < y->tid_key ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/* The sweep of one thread's stack. */
typedef struct mm_stack {
  int32_t *a;
  size_t n;
  int64_t tid_key;
} mm_stack;

/* Pops the nodes that end at or before TS (half-open, MEM-4). */
static void mmPop(const mm_trace *m, mm_stack *s, int64_t ts) {
  while (s->n && m->nodes[s->a[s->n - 1]].end <= ts) s->n--;
}

/* MEM-3: node I starts; its parent is the innermost open node, or it is dropped
** when it ends after that node. */
static void mmPush(mm_trace *m, mm_stack *s, int32_t i) {
  mm_node *n = &m->nodes[i];
  if (s->tid_key != n->tid_key) s->n = 0, s->tid_key = n->tid_key;
  mmPop(m, s, n->ts);
  if (s->n && n->end > m->nodes[s->a[s->n - 1]].end) {
    n->dropped = 1;
    return;
  }
  n->parent = s->n ? s->a[s->n - 1] : -1;
  s->a[s->n++] = i;
}

/* Builds the tree (MEM-3), attributes every record (MEM-4) and marks the merged
** same-name only children (MEM-6). */
static int mmAttribute(mm_trace *m) {
  mm_stack s = {0, 0, INT64_MIN};
  mm_ref *ri;
  size_t j = 0;
  if (m->nnode) qsort(m->nodes, m->nnode, sizeof *m->nodes, mmNodeCmp); /* NULL when none */
  ri = sqlite3_malloc64((m->nrec ? m->nrec : 1) * sizeof *ri);
  s.a = sqlite3_malloc64((m->nnode ? m->nnode : 1) * sizeof *s.a);
  if (!ri || !s.a) {
    sqlite3_free(ri);
    sqlite3_free(s.a);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < m->nrec; i++) {
    ri[i].tid_key = m->recs[i].tid_key;
    ri[i].ts = m->recs[i].ts;
    ri[i].event_id = m->recs[i].event_id;
    ri[i].i = i;
  }
  qsort(ri, m->nrec, sizeof *ri, mmRefCmp);
  for (size_t k = 0; k < m->nrec; k++) {
    mm_record *r = &m->recs[ri[k].i];
    /* every node that starts at or before the record, in the record's thread or before */
    while (j < m->nnode && (m->nodes[j].tid_key < r->tid_key ||
                            (m->nodes[j].tid_key == r->tid_key && m->nodes[j].ts <= r->ts))) {
      mmPush(m, &s, (int32_t)j++);
    }
    if (s.tid_key != r->tid_key) continue; /* no node of its thread has started */
    mmPop(m, &s, r->ts);
    if (s.n && m->is_op[m->nodes[s.a[s.n - 1]].slot]) r->node = s.a[s.n - 1];
  }
  for (; j < m->nnode; j++) mmPush(m, &s, (int32_t)j);
  sqlite3_free(ri);
  sqlite3_free(s.a);
  for (size_t i = 0; i < m->nnode; i++) {
    if (!m->nodes[i].dropped && m->nodes[i].parent >= 0) m->nodes[m->nodes[i].parent].nchild++;
  }
  for (size_t i = 0; i < m->nnode; i++) { /* MEM-6 */
    mm_node *n = &m->nodes[i];
    if (n->dropped || n->parent < 0) continue;
    n->merged = m->nodes[n->parent].nchild == 1 && m->nodes[n->parent].slot == n->slot;
  }
  return SQLITE_OK;
}

int mm_trace_load(sqlite3 *db, const hta_trace *t, mm_trace *m) {
  static const char *const memName[] = {"[memory]"};
  int32_t name_id, *ids = 0;
  int rc = hta_string_ids(db, t->schema, memName, 1, &name_id);
  memset(m, 0, sizeof *m);
  if (rc != SQLITE_OK || name_id < 0) return rc;
  rc = mmLoad(db, t, name_id, m, &ids);
  if (rc == SQLITE_OK && m->nrec == 0) { /* no records: nothing to attribute */
    sqlite3_free(ids);
    mm_trace_free(m);
    return SQLITE_OK;
  }
  if (rc == SQLITE_OK) rc = mmDevices(m);
  if (rc == SQLITE_OK) rc = mmNames(db, t, m, ids);
  sqlite3_free(ids);
  if (rc == SQLITE_OK) rc = mmAttribute(m);
  if (rc != SQLITE_OK) mm_trace_free(m);
  return rc;
}

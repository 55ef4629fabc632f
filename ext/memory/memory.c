/*
** memory.c: the memory analyses of hta.so, over the [memory] instant events that
** PyTorch's profiler writes with profile_memory=True (one per allocation or free,
** args "Device Type", "Device Id", "Addr", "Bytes" (negative for a free), "Total
** Allocated", "Total Reserved"). HTA has none; the reference is the Memory View of
** the PyTorch TensorBoard profiler plugin (torch_tb_profiler 0.4.3), whose rules
** MEM-1..12 follow except where they say otherwise. Registered by hta_register_memory.
**
**   SELECT device, ts_us, allocated_bytes, operator FROM hta_memory_timeline WHERE rank = 0;
**   SELECT * FROM hta_memory_summary;
**   SELECT * FROM hta_memory_by_operator ORDER BY increase_bytes DESC;
**   SELECT * FROM hta_memory_allocations WHERE free_ts_us IS NULL;   -- never freed
**
** No parameters (MEM-1). Columns (then `job`, as every analysis):
**   hta_memory_timeline: rank, device, ts_us, bytes, allocated_bytes, reserved_bytes,
**     addr, operator, step, event_seq, trace_id, event_id
**   hta_memory_summary: rank, device, step, peak_allocated_bytes, peak_reserved_bytes,
**     peak_ts_us, peak_operator, allocations, allocated_bytes, frees, freed_bytes,
**     live_bytes_at_end, records, trace_id
**   hta_memory_by_operator: rank, device, operator, calls, self_increase_bytes,
**     self_allocation_bytes, self_allocations, increase_bytes, allocation_bytes,
**     allocations, trace_id
**   hta_memory_allocations: rank, device, addr, bytes, alloc_ts_us, free_ts_us,
**     duration_us, alloc_operator, free_operator, alloc_event_seq, free_event_seq, trace_id
**
** Requirements (tests cite them as MEM-n):
**  1. Records: the trace's event rows with ph 'i' and name '[memory]' (any category)
**     and a ts. An arg that is absent or not an integer is NULL in the output; an
**     absent Bytes counts as 0. Every record of every trace counts: the memory
**     analyses apply no last-ProfilerStep cut (the plugin has none, HTA no memory
**     analysis to follow) and so take no include_last_profiler_step parameter. A
**     trace that hta_traces_load leaves out (no event HTA keeps) has no rows.
**  2. Device: 'CPU' for Device Type 0 (Device Id ignored); 'GPU<Device Id>' for 1
**     (CUDA) and 6 (HIP, as ROCm writes it; the plugin knows only 0 and 1);
**     'DEVICE<type>:<id>' for any other type; NULL without a Device Type ('GPU' or
**     'DEVICE<type>' without a Device Id). Devices come in the order CPU, GPU by id,
**     other types by (type, id), none last.
**  3. Operator tree, per thread: the nodes are the trace's ph 'X' host rows of
**     category cpu_op or operator (any case); a thread is a tid (the plugin ignores
**     pid; a tid written as text holding an integer is that integer, as the 2021
**     traces write operators' tids as text and records' as numbers). In (ts, -end,
**     event_id) order, a node is the child of the innermost open node when it starts
**     before that node's end and ends no later; one that starts inside but ends after
**     it is dropped (no node: no call, contains nothing), as the plugin does. Ends are
**     exact ns (the plugin's float64 ts + dur can land past a ns-resolution end and
**     count a record there as inside); a negative dur is zero-length.
**  4. A record's operator is the innermost node of its own thread with ts <= t < end:
**     a record at an operator's start is inside it, one at its end is outside (in the
**     parent, or in nothing), and a zero-length node holds nothing. When that node
**     is not an operator (MEM-5) the record has no operator: no fallback to an
**     enclosing one. A record on a thread without nodes, or outside every node, has
**     none (operator NULL).
**  5. Not operators (the plugin's list): ProfilerStep#*, Optimizer.*,
**     enumerate(DataLoader)#*__next__, enumerate(DataPipe)#*, DataParallel.forward,
**     DistributedDataParallel.forward, and a node without a name.
**  6. Same-name chains: a node whose parent has it as only child and the same name
**     is merged into the parent (the plugin's merge): it is no call, and its records
**     count once in the name's totals. A node nested otherwise inside a node of its
**     name counts in both (its records enter the name's totals twice), as the plugin.
**  7. Record order: (device, ts, event_id) -- the plugin sorts by ts, stably, in
**     traceEvents order, which event_id follows.
**  8. step = event.iteration: the ProfilerStep#N whose span holds the record (ingest
**     derives it); NULL outside every step.
**  9. hta_memory_timeline: one row per record, ordered by (rank, trace_id, MEM-7);
**     ts_us relative to the job's origin (hta_traces.job_min_ts), as other series;
**     event_seq = event.seq, the record's position in traceEvents.
** 10. hta_memory_summary: one row per (trace, device, step) holding records; the
**     records outside every step form the row with step NULL, which comes first, then
**     steps ascending. peak_allocated_bytes = max Total Allocated over the row's
**     records; peak_ts_us and peak_operator = those of the first record (MEM-7)
**     reaching it; peak_reserved_bytes = max Total Reserved; allocations and
**     allocated_bytes = count and sum of Bytes > 0; frees and freed_bytes = count and
**     sum of -Bytes over Bytes < 0 (a 0-byte record is neither); live_bytes_at_end =
**     Total Allocated of the row's last record that has it; records = the row's
**     records. A value over no record (no totals written) is NULL.
** 11. hta_memory_by_operator, per (trace, device, operator name): self_* over the
**     records whose operator (MEM-4) is a node of that name; the totals over the
**     records of those nodes and of every node below them (through non-operator nodes
**     too; a record whose innermost node is no operator counts nowhere), summed over
**     the name's nodes (MEM-6). *_increase_bytes = sum of Bytes; *_allocation_bytes
**     and *allocations = sum and count of Bytes > 0. calls = the operator nodes of
**     the name in the trace (every thread, after MEM-6), the same on every device
**     row: the plugin's Operator view count (its memory view's Calls counts only the
**     nodes its walk visits). A row only where one of the six metrics is non-zero;
**     rows ordered by device (MEM-2) then operator, byte order.
** 12. hta_memory_allocations: the records with an Addr, matched by (device, Addr)
**     in MEM-7 order (the plugin matches by Addr alone): Bytes > 0 opens the address;
**     any other record closes the open allocation, making a row with both; a record
**     that finds no open allocation (an unknown address, or an address freed twice:
**     the second free) makes a row with the alloc_* columns NULL and bytes = -Bytes.
**     An address allocated again while open keeps its first allocation as never
**     freed (the plugin loses it). Never freed: free_* and duration_us NULL. bytes =
**     the allocation's Bytes; duration_us = free ts - alloc ts. Rows ordered by
**     (rank, trace_id, device, ts and event_id of the row's first record).
** 13. Sums of bytes saturate (hta_add_sat); times are exact ns, output in us.
**
** HOW IT WORKS: memory_model.c loads one trace at a time: its records, sorted by
** MEM-7, each with the innermost node of the cpu_op tree found by a per-thread
** sweep. Each function then walks those records once (plus a sort for the summary's
** steps and the allocations' addresses) into its result table.
*/
#include <stdlib.h>
#include <string.h>

#include "memory/memory.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* hta_memory_timeline */
#define MT_RANK 0
#define MT_DEVICE 1
#define MT_TS 2
#define MT_BYTES 3
#define MT_ALLOCATED 4
#define MT_RESERVED 5
#define MT_ADDR 6
#define MT_OPERATOR 7
#define MT_STEP 8
#define MT_SEQ 9
#define MT_TRACE_ID 10
#define MT_EVENT_ID 11
#define MT_NVISIBLE 12
static const char mtSchema[] =
    "CREATE TABLE x(rank INTEGER, device TEXT, ts_us REAL, bytes INTEGER,"
    " allocated_bytes INTEGER, reserved_bytes INTEGER, addr INTEGER, operator TEXT,"
    " step INTEGER, event_seq INTEGER, trace_id INTEGER, event_id INTEGER)";

/* hta_memory_summary */
#define MS_RANK 0
#define MS_DEVICE 1
#define MS_STEP 2
#define MS_PEAK_ALLOCATED 3
#define MS_PEAK_RESERVED 4
#define MS_PEAK_TS 5
#define MS_PEAK_OPERATOR 6
#define MS_ALLOCATIONS 7
#define MS_ALLOCATED 8
#define MS_FREES 9
#define MS_FREED 10
#define MS_LIVE 11
#define MS_RECORDS 12
#define MS_TRACE_ID 13
#define MS_NVISIBLE 14
static const char msSchema[] =
    "CREATE TABLE x(rank INTEGER, device TEXT, step INTEGER, peak_allocated_bytes INTEGER,"
    " peak_reserved_bytes INTEGER, peak_ts_us REAL, peak_operator TEXT, allocations INTEGER,"
    " allocated_bytes INTEGER, frees INTEGER, freed_bytes INTEGER, live_bytes_at_end INTEGER,"
    " records INTEGER, trace_id INTEGER)";

/* hta_memory_by_operator */
#define MO_RANK 0
#define MO_DEVICE 1
#define MO_OPERATOR 2
#define MO_CALLS 3
#define MO_METRICS 4 /* the six metrics, in mm_metric order */
#define MO_TRACE_ID 10
#define MO_NVISIBLE 11
static const char moSchema[] =
    "CREATE TABLE x(rank INTEGER, device TEXT, operator TEXT, calls INTEGER,"
    " self_increase_bytes INTEGER, self_allocation_bytes INTEGER, self_allocations INTEGER,"
    " increase_bytes INTEGER, allocation_bytes INTEGER, allocations INTEGER, trace_id INTEGER)";

/* hta_memory_allocations */
#define MA_RANK 0
#define MA_DEVICE 1
#define MA_ADDR 2
#define MA_BYTES 3
#define MA_ALLOC_TS 4
#define MA_FREE_TS 5
#define MA_DURATION 6
#define MA_ALLOC_OPERATOR 7
#define MA_FREE_OPERATOR 8
#define MA_ALLOC_SEQ 9
#define MA_FREE_SEQ 10
#define MA_TRACE_ID 11
#define MA_NVISIBLE 12
static const char maSchema[] =
    "CREATE TABLE x(rank INTEGER, device TEXT, addr INTEGER, bytes INTEGER,"
    " alloc_ts_us REAL, free_ts_us REAL, duration_us REAL, alloc_operator TEXT,"
    " free_operator TEXT, alloc_event_seq INTEGER, free_event_seq INTEGER, trace_id INTEGER)";

/* Writes the memory rows of trace T (records in M) into OUT; ORIGIN = job_min_ts. */
typedef int (*mem_emit)(const hta_trace *t, const mm_trace *m, int64_t origin, hta_table *out);

static int memRun(sqlite3 *db, const hta_tvf_args *a, mem_emit emit, hta_table *out) {
  hta_traces tr;
  int rc = hta_traces_load(db, &a->scope, a->has_rank, a->rank, 1 /* MEM-1: no cut */, &tr);
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < tr.n && rc == SQLITE_OK; i++) {
    mm_trace m;
    rc = mm_trace_load(db, &tr.a[i], &m);
    if (rc == SQLITE_OK && m.nrec > 0) rc = emit(&tr.a[i], &m, tr.job_min_ts, out);
    mm_trace_free(&m);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  hta_traces_free(&tr);
  return rc;
}

static double memUs(int64_t ts, int64_t origin) { return (double)hta_sub_sat(ts, origin) / 1000.0; }

/* Names and devices point into M, which the table outlives: copy them. */
static int memCellText(hta_cell *c, const char *s) { return s ? hta_cell_text(c, s) : SQLITE_OK; }

/* ---------------------------------------------------------------- hta_memory_timeline */

static int mtEmit(const hta_trace *t, const mm_trace *m, int64_t origin, hta_table *out) {
  for (size_t i = 0; i < m->nrec; i++) {
    const mm_record *r = &m->recs[i];
    hta_cell *row = hta_table_add_row(out);
    if (!row) return SQLITE_NOMEM;
    hta_cell_int(&row[MT_RANK], t->rank);
    if (m->devs[r->dev].has_type && hta_cell_text(&row[MT_DEVICE], m->devs[r->dev].name))
      return SQLITE_NOMEM;
    hta_cell_double(&row[MT_TS], memUs(r->ts, origin));
    if (r->has_bytes) hta_cell_int(&row[MT_BYTES], r->bytes);
    if (r->has_allocated) hta_cell_int(&row[MT_ALLOCATED], r->allocated);
    if (r->has_reserved) hta_cell_int(&row[MT_RESERVED], r->reserved);
    if (r->has_addr) hta_cell_int(&row[MT_ADDR], r->addr);
    if (memCellText(&row[MT_OPERATOR], mm_operator(m, r))) return SQLITE_NOMEM;
    if (r->has_step) hta_cell_int(&row[MT_STEP], r->step);
    hta_cell_int(&row[MT_SEQ], r->seq);
    hta_cell_int(&row[MT_TRACE_ID], t->trace_id);
    hta_cell_int(&row[MT_EVENT_ID], r->event_id);
  }
  return SQLITE_OK;
}

static int mtRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return memRun(db, a, mtEmit, out);
}

/* ---------------------------------------------------------------- hta_memory_summary */

/* MEM-10: (device, step NULL first, step), then record order. */
typedef struct ms_ref {
  int dev;
  int has_step;
  int64_t step;
  size_t i; /* index in MEM-7 order */
} ms_ref;

static int msRefCmp(const void *a, const void *b) {
  const ms_ref *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->has_step != y->has_step) return x->has_step ? 1 : -1;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* Appends the summary row of records REFS[lo, hi) (one device and step). */
static int msGroup(const hta_trace *t, const mm_trace *m, int64_t origin, const ms_ref *refs,
                   size_t lo, size_t hi, hta_table *out) {
  const mm_record *first = &m->recs[refs[lo].i], *peak = 0, *last = 0;
  int64_t peak_res = 0, nalloc = 0, alloc = 0, nfree = 0, freed = 0;
  int has_res = 0;
  hta_cell *row;
  for (size_t k = lo; k < hi; k++) {
    const mm_record *r = &m->recs[refs[k].i];
    if (r->has_allocated) {
      if (!peak || r->allocated > peak->allocated) peak = r;
      last = r;
    }
    if (r->has_reserved && (!has_res || r->reserved > peak_res))
      peak_res = r->reserved, has_res = 1;
    if (r->bytes > 0) nalloc++, alloc = hta_add_sat(alloc, r->bytes);
    if (r->bytes < 0) nfree++, freed = hta_add_sat(freed, hta_sub_sat(0, r->bytes));
  }
  row = hta_table_add_row(out);
  if (!row) return SQLITE_NOMEM;
  hta_cell_int(&row[MS_RANK], t->rank);
  if (m->devs[first->dev].has_type && hta_cell_text(&row[MS_DEVICE], m->devs[first->dev].name))
    return SQLITE_NOMEM;
  if (first->has_step) hta_cell_int(&row[MS_STEP], first->step);
  if (peak) {
    hta_cell_int(&row[MS_PEAK_ALLOCATED], peak->allocated);
    hta_cell_double(&row[MS_PEAK_TS], memUs(peak->ts, origin));
    if (memCellText(&row[MS_PEAK_OPERATOR], mm_operator(m, peak))) return SQLITE_NOMEM;
    hta_cell_int(&row[MS_LIVE], last->allocated);
  }
  if (has_res) hta_cell_int(&row[MS_PEAK_RESERVED], peak_res);
  hta_cell_int(&row[MS_ALLOCATIONS], nalloc);
  hta_cell_int(&row[MS_ALLOCATED], alloc);
  hta_cell_int(&row[MS_FREES], nfree);
  hta_cell_int(&row[MS_FREED], freed);
  hta_cell_int(&row[MS_RECORDS], (int64_t)(hi - lo));
  hta_cell_int(&row[MS_TRACE_ID], t->trace_id);
  return SQLITE_OK;
}

static int msEmit(const hta_trace *t, const mm_trace *m, int64_t origin, hta_table *out) {
  ms_ref *refs = sqlite3_malloc64(m->nrec * sizeof *refs);
  int rc = SQLITE_OK;
  if (!refs) return SQLITE_NOMEM;
  for (size_t i = 0; i < m->nrec; i++) {
    refs[i].dev = m->recs[i].dev;
    refs[i].has_step = m->recs[i].has_step;
    refs[i].step = m->recs[i].has_step ? m->recs[i].step : 0;
    refs[i].i = i;
  }
  qsort(refs, m->nrec, sizeof *refs, msRefCmp);
  for (size_t lo = 0, hi; rc == SQLITE_OK && lo < m->nrec; lo = hi) {
    for (hi = lo + 1; hi < m->nrec && refs[hi].dev == refs[lo].dev &&
                      refs[hi].has_step == refs[lo].has_step && refs[hi].step == refs[lo].step;
         hi++) {
    }
    rc = msGroup(t, m, origin, refs, lo, hi, out);
  }
  sqlite3_free(refs);
  return rc;
}

static int msRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return memRun(db, a, msEmit, out);
}

/* ---------------------------------------------------------------- hta_memory_by_operator */

/* MEM-11: the six metrics, in column order. */
enum { MO_SELF_INC, MO_SELF_ALLOC, MO_SELF_NALLOC, MO_INC, MO_ALLOC, MO_NALLOC, MO_NMETRIC };

static void moAdd(int64_t *v, int64_t bytes, int total) {
  int o = total ? MO_INC : MO_SELF_INC;
  v[o] = hta_add_sat(v[o], bytes);
  if (bytes > 0) {
    v[o + 1] = hta_add_sat(v[o + 1], bytes);
    v[o + 2]++;
  }
}

/* Slots by operator name, byte order (each name has one slot). */
typedef struct mo_name {
  const char *name;
  size_t slot;
} mo_name;

static int moNameCmp(const void *a, const void *b) {
  return strcmp(((const mo_name *)a)->name, ((const mo_name *)b)->name);
}

static int moEmit(const hta_trace *t, const mm_trace *m, int64_t origin, hta_table *out) {
  size_t ns = m->nnames, nd = (size_t)m->ndev, nn = 0;
  int64_t *v = sqlite3_malloc64((ns * nd * MO_NMETRIC + 1) * sizeof *v);
  int64_t *calls = sqlite3_malloc64((ns + 1) * sizeof *calls);
  mo_name *names = sqlite3_malloc64((ns + 1) * sizeof *names);
  int rc = SQLITE_OK;
  (void)origin;
  if (!v || !calls || !names) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  memset(v, 0, (ns * nd * MO_NMETRIC + 1) * sizeof *v);
  memset(calls, 0, (ns + 1) * sizeof *calls);
  for (size_t i = 0; i < m->nnode; i++) {
    const mm_node *n = &m->nodes[i];
    if (!n->dropped && !n->merged && m->is_op[n->slot]) calls[n->slot]++;
  }
  for (size_t i = 0; i < m->nrec; i++) {
    const mm_record *r = &m->recs[i];
    if (r->node < 0) continue;
    moAdd(&v[((size_t)m->nodes[r->node].slot * nd + (size_t)r->dev) * MO_NMETRIC], r->bytes, 0);
    for (int32_t k = r->node; k >= 0; k = m->nodes[k].parent) {
      const mm_node *n = &m->nodes[k];
      if (m->is_op[n->slot] && !n->merged)
        moAdd(&v[((size_t)n->slot * nd + (size_t)r->dev) * MO_NMETRIC], r->bytes, 1);
    }
  }
  for (size_t s = 0; s < ns; s++) {
    if (m->is_op[s]) names[nn].name = m->names[s], names[nn++].slot = s;
  }
  qsort(names, nn, sizeof *names, moNameCmp);
  for (size_t d = 0; d < nd && rc == SQLITE_OK; d++) {
    for (size_t k = 0; k < nn; k++) {
      const int64_t *x = &v[(names[k].slot * nd + d) * MO_NMETRIC];
      int any = 0;
      hta_cell *row;
      for (int j = 0; j < MO_NMETRIC; j++) any |= x[j] != 0;
      if (!any) continue;
      row = hta_table_add_row(out);
      if (!row) {
        rc = SQLITE_NOMEM;
        break;
      }
      hta_cell_int(&row[MO_RANK], t->rank);
      if (m->devs[d].has_type && hta_cell_text(&row[MO_DEVICE], m->devs[d].name)) rc = SQLITE_NOMEM;
      if (hta_cell_text(&row[MO_OPERATOR], names[k].name)) rc = SQLITE_NOMEM;
      hta_cell_int(&row[MO_CALLS], calls[names[k].slot]);
      for (int j = 0; j < MO_NMETRIC; j++) hta_cell_int(&row[MO_METRICS + j], x[j]);
      hta_cell_int(&row[MO_TRACE_ID], t->trace_id);
      if (rc != SQLITE_OK) break;
    }
  }
done:
  sqlite3_free(v);
  sqlite3_free(calls);
  sqlite3_free(names);
  return rc;
}

static int moRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return memRun(db, a, moEmit, out);
}

/* ---------------------------------------------------------------- hta_memory_allocations */

/* One row: record indexes (MEM-7 order) of the allocation and the free, -1 when absent. */
typedef struct ma_pair {
  int64_t alloc, free;
} ma_pair;

/* Records with an Addr by (device, addr), then MEM-7 order (their index). */
typedef struct ma_ref {
  int dev;
  int64_t addr;
  size_t i;
} ma_ref;

static int maRefCmp(const void *a, const void *b) {
  const ma_ref *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* Rows by their first record: within a device, MEM-7 order is index order. */
static int maPairCmp(const void *a, const void *b) {
  const ma_pair *x = a, *y = b;
  int64_t kx = x->alloc >= 0 ? x->alloc : x->free, ky = y->alloc >= 0 ? y->alloc : y->free;
  if (kx != ky) return kx < ky ? -1 : 1;
  return x->free < y->free ? -1 : x->free > y->free; /* a free of the same record: never */
}

static int maRow(const hta_trace *t, const mm_trace *m, int64_t origin, const ma_pair *p,
                 hta_table *out) {
  const mm_record *a = p->alloc >= 0 ? &m->recs[p->alloc] : 0;
  const mm_record *f = p->free >= 0 ? &m->recs[p->free] : 0;
  const mm_record *r = a ? a : f;
  hta_cell *row = hta_table_add_row(out);
  if (!row) return SQLITE_NOMEM;
  hta_cell_int(&row[MA_RANK], t->rank);
  if (m->devs[r->dev].has_type && hta_cell_text(&row[MA_DEVICE], m->devs[r->dev].name))
    return SQLITE_NOMEM;
  hta_cell_int(&row[MA_ADDR], r->addr);
  hta_cell_int(&row[MA_BYTES], a ? a->bytes : hta_sub_sat(0, f->bytes));
  if (a) {
    hta_cell_double(&row[MA_ALLOC_TS], memUs(a->ts, origin));
    if (memCellText(&row[MA_ALLOC_OPERATOR], mm_operator(m, a))) return SQLITE_NOMEM;
    hta_cell_int(&row[MA_ALLOC_SEQ], a->seq);
  }
  if (f) {
    hta_cell_double(&row[MA_FREE_TS], memUs(f->ts, origin));
    if (memCellText(&row[MA_FREE_OPERATOR], mm_operator(m, f))) return SQLITE_NOMEM;
    hta_cell_int(&row[MA_FREE_SEQ], f->seq);
  }
  if (a && f) hta_cell_double(&row[MA_DURATION], (double)hta_sub_sat(f->ts, a->ts) / 1000.0);
  hta_cell_int(&row[MA_TRACE_ID], t->trace_id);
  return SQLITE_OK;
}

static int maEmit(const hta_trace *t, const mm_trace *m, int64_t origin, hta_table *out) {
  ma_ref *refs = sqlite3_malloc64(m->nrec * sizeof *refs);
  ma_pair *pairs = sqlite3_malloc64(m->nrec * sizeof *pairs);
  size_t nref = 0, np = 0;
  int rc = SQLITE_OK;
  if (!refs || !pairs) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < m->nrec; i++) {
    if (!m->recs[i].has_addr) continue;
    refs[nref].dev = m->recs[i].dev;
    refs[nref].addr = m->recs[i].addr;
    refs[nref++].i = i;
  }
  qsort(refs, nref, sizeof *refs, maRefCmp);
  for (size_t k = 0; k < nref; k++) { /* MEM-12; at most one row per record */
    int64_t open = -1;
    size_t j = k;
    for (; j < nref && refs[j].dev == refs[k].dev && refs[j].addr == refs[k].addr; j++) {
      int64_t i = (int64_t)refs[j].i;
      if (m->recs[i].bytes > 0) {
        if (open >= 0) pairs[np].alloc = open, pairs[np++].free = -1; /* allocated again */
        open = i;
      } else {
        pairs[np].alloc = open, pairs[np++].free = i; /* open < 0: unknown release */
        open = -1;
      }
    }
    if (open >= 0) pairs[np].alloc = open, pairs[np++].free = -1;
    k = j - 1;
  }
  qsort(pairs, np, sizeof *pairs, maPairCmp); /* index order is (device, ts, event_id) */
  for (size_t k = 0; k < np && rc == SQLITE_OK; k++) rc = maRow(t, m, origin, &pairs[k], out);
done:
  sqlite3_free(refs);
  sqlite3_free(pairs);
  return rc;
}

static int maRun(sqlite3 *db, const hta_tvf_args *a, hta_table *out, char **pzErr) {
  (void)pzErr;
  return memRun(db, a, maEmit, out);
}

/* ---------------------------------------------------------------- registration */

static const hta_tvf hta_memory_timeline_tvf = {
    .name = "hta_memory_timeline",
    .schema = mtSchema,
    .nvisible = MT_NVISIBLE,
    .rank_col = MT_RANK,
    .nparam = 0,
    .params = 0,
    .run = mtRun,
};

static const hta_tvf hta_memory_summary_tvf = {
    .name = "hta_memory_summary",
    .schema = msSchema,
    .nvisible = MS_NVISIBLE,
    .rank_col = MS_RANK,
    .nparam = 0,
    .params = 0,
    .run = msRun,
};

static const hta_tvf hta_memory_by_operator_tvf = {
    .name = "hta_memory_by_operator",
    .schema = moSchema,
    .nvisible = MO_NVISIBLE,
    .rank_col = MO_RANK,
    .nparam = 0,
    .params = 0,
    .run = moRun,
};

static const hta_tvf hta_memory_allocations_tvf = {
    .name = "hta_memory_allocations",
    .schema = maSchema,
    .nvisible = MA_NVISIBLE,
    .rank_col = MA_RANK,
    .nparam = 0,
    .params = 0,
    .run = maRun,
};

int hta_register_memory(sqlite3 *db) {
  static const hta_tvf *const defs[] = {
      &hta_memory_timeline_tvf,
      &hta_memory_summary_tvf,
      &hta_memory_by_operator_tvf,
      &hta_memory_allocations_tvf,
  };
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

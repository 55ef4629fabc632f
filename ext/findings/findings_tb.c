/*
** findings_tb.c: the TensorBoard plugin's performance recommendations (its
** Overview, torch_tb_profiler 0.4.3) as findings (findings.h), source 'tb_plugin':
** dataparallel, ddp_without_nccl and memory_near_capacity, each on the whole trace
** file as the plugin reads it (no step cut). None is a time: time_us and
** pct_of_step are NULL.
**
** Requirements (tests cite them as FT-n):
**  1. dataparallel: a host row named exactly DataParallel.forward, and the trace's
**     GPU work (kernel, memcpy, memset rows) on more than one pid (the plugin's
**     GPUs). count = the DataParallel.forward calls; evidence.devices = the pids.
**  2. ddp_without_nccl: a host row named exactly DistributedDataParallel.forward, no
**     row named nccl:broadcast, nccl:reduce, nccl:all_reduce, nccl:all_gather or
**     nccl:reduce_scatter, and a device (deviceProperties) of compute capability
**     3.5 or more. count = the DistributedDataParallel.forward calls.
**  3. memory_near_capacity: per GPU device GPU<n> of hta_memory_summary, peak =
**     the largest peak_allocated_bytes of its rows (the whole trace); capacity =
**     total_global_mem of the trace's device n. Fires when peak > 0.9 * capacity;
**     one finding per trace, for its device of the largest peak_pct = 100 * peak /
**     capacity (evidence.peak_pct). CPU memory is never compared with a GPU's
**     capacity (the plugin compares it with the last GPU's: a bug, not copied).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Host rows of trace U named by string id NAME_ID: their number. */
static int ftCount(fd_ctx *x, const fd_unit *u, int64_t name_id, int64_t *n) {
  const int64_t bind[3] = {hta_trace_first_id(u->trace_id), hta_trace_last_id(u->trace_id),
                           name_id};
  int isnull;
  return hta_query_int64(x->db, x->schema,
                         "SELECT count(*) FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
                         " AND name_id = ?3 AND stream IS NULL",
                         3, bind, n, &isnull);
}

/* ---------------------------------------------------------------- dataparallel: FT-1 */

int fd_dataparallel(fd_ctx *x, const fd_rule *r) {
  static const char *const name[] = {"DataParallel.forward"};
  int32_t id;
  sqlite3_stmt *st = 0;
  int rc = hta_string_ids(x->db, x->schema, name, 1, &id);
  if (rc != SQLITE_OK || id < 0) return rc;
  rc = hta_prepare(x->db, x->schema,
                   "SELECT DISTINCT e.pid FROM $S.event e JOIN $S.category c"
                   " ON c.category_id = e.category_id WHERE e.trace_id = ?1"
                   " AND e.stream IS NOT NULL AND lower(c.name) IN ('kernel', 'gpu_memcpy',"
                   " 'memcpy', 'gpu_memset', 'memset') ORDER BY e.pid",
                   &st);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    int64_t calls = 0, npid = 0;
    rc = ftCount(x, u, id, &calls);
    if (rc != SQLITE_OK || calls == 0) continue;
    fd_row row = fd_row_init(u);
    sqlite3_str *e = row.evidence;
    sqlite3_str_appendf(e, "{\"forward_calls\":%lld,\"devices\":[", (long long)calls);
    sqlite3_bind_int64(st, 1, u->trace_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      const char *pid = (const char *)sqlite3_column_text(st, 0);
      sqlite3_str_appendall(e, npid++ ? "," : "");
      if (sqlite3_column_type(st, 0) == SQLITE_INTEGER) sqlite3_str_appendall(e, pid);
      else fd_json_str(e, pid);
    }
    sqlite3_reset(st);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_str_appendall(e, "]}");
    if (rc != SQLITE_OK || npid < 2) { /* one GPU: nothing to say */
      sqlite3_free(sqlite3_str_finish(e));
      continue;
    }
    row.count = calls;
    row.title = sqlite3_mprintf("DataParallel drives %lld GPUs from one process", (long long)npid);
    row.advice =
        "DataParallel copies the model to every GPU each step and feeds them all from one "
        "Python thread: DistributedDataParallel, one process per GPU, is faster even on one "
        "machine.";
    rc = fd_emit(x, r, &row);
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---------------------------------------------------------------- ddp_without_nccl: FT-2 */

int fd_ddp_without_nccl(fd_ctx *x, const fd_rule *r) {
  static const char *const ddp[] = {"DistributedDataParallel.forward"};
  static const char *const nccl[] = {"nccl:broadcast", "nccl:reduce", "nccl:all_reduce",
                                     "nccl:all_gather", "nccl:reduce_scatter"};
  int32_t id, nid[5];
  int rc = hta_string_ids(x->db, x->schema, ddp, 1, &id);
  if (rc != SQLITE_OK || id < 0) return rc;
  rc = hta_string_ids(x->db, x->schema, nccl, 5, nid);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    int64_t calls = 0, has_nccl = 0, cc = 0, isnull_cc = 1;
    int isnull;
    rc = ftCount(x, u, id, &calls);
    if (rc != SQLITE_OK || calls == 0) continue;
    const int64_t b[7] = {hta_trace_first_id(u->trace_id),
                          hta_trace_last_id(u->trace_id),
                          nid[0],
                          nid[1],
                          nid[2],
                          nid[3],
                          nid[4]};
    rc = hta_query_int64(x->db, x->schema,
                         "SELECT 1 FROM $S.event WHERE event_id BETWEEN ?1 AND ?2"
                         " AND name_id IN (?3, ?4, ?5, ?6, ?7) LIMIT 1",
                         7, b, &has_nccl, &isnull);
    if (rc != SQLITE_OK || !isnull) continue;
    /* FT-2: the best compute capability, as major * 1000 + minor */
    rc = hta_query_int64(x->db, x->schema,
                         "SELECT max(compute_major * 1000 + coalesce(compute_minor, 0))"
                         " FROM $S.device WHERE trace_id = ?1 AND compute_major IS NOT NULL",
                         1, &u->trace_id, &cc, &isnull);
    isnull_cc = isnull;
    if (rc != SQLITE_OK || isnull_cc || cc < 3005) continue;
    sqlite3_stmt *st = 0;
    char *backend = 0;
    rc = hta_prepare(x->db, x->schema, "SELECT backend FROM $S.trace WHERE trace_id = ?1", &st);
    if (rc == SQLITE_OK) {
      sqlite3_bind_int64(st, 1, u->trace_id);
      rc = sqlite3_step(st);
      if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
          !(backend = sqlite3_mprintf("%s", sqlite3_column_text(st, 0))))
        rc = SQLITE_NOMEM;
      rc = fd_done(st, rc);
    }
    if (rc != SQLITE_OK) break;
    fd_row row = fd_row_init(u);
    sqlite3_str *e = row.evidence;
    sqlite3_str_appendf(e, "{\"ddp_forward_calls\":%lld,\"backend\":", (long long)calls);
    fd_json_str(e, backend);
    sqlite3_str_appendf(e, ",\"compute_capability\":\"%lld.%lld\"}", (long long)(cc / 1000),
                        (long long)(cc % 1000));
    row.count = calls;
    row.title =
        sqlite3_mprintf("DistributedDataParallel runs without NCCL collectives%s%s%s",
                        backend ? " (backend " : "", backend ? backend : "", backend ? ")" : "");
    row.advice =
        "On NVIDIA GPUs, NCCL is the fastest backend for DistributedDataParallel: "
        "torch.distributed.init_process_group(\"nccl\"). Gloo moves the gradients through "
        "host memory.";
    sqlite3_free(backend);
    rc = fd_emit(x, r, &row);
  }
  return rc;
}

/* ---------------------------------------------------------------- memory_near_capacity: FT-3 */

typedef struct ft_peak { /* one trace's device at its peak */
  int64_t trace_id, device_id, peak, capacity;
  double ts_us;
  int has_step;
  int64_t step;
  char *device, *op;
} ft_peak;

static void ftPeakClear(ft_peak *p) {
  sqlite3_free(p->device);
  sqlite3_free(p->op);
  memset(p, 0, sizeof *p);
}

/* Emits P's finding (FT-3) when it is over 90% of its capacity. */
static int ftPeakEmit(fd_ctx *x, const fd_rule *r, const ft_peak *p) {
  const fd_unit *u = fd_unit_of(x, p->trace_id);
  if (!u || p->capacity <= 0 || (double)p->peak <= 0.9 * (double)p->capacity) return SQLITE_OK;
  double pct = 100.0 * (double)p->peak / (double)p->capacity;
  fd_row row = fd_row_init(u);
  sqlite3_str *e = row.evidence;
  sqlite3_str_appendall(e, "{\"device\":");
  fd_json_str(e, p->device);
  sqlite3_str_appendf(e, ",\"peak_bytes\":%lld,\"capacity_bytes\":%lld,\"peak_pct\":",
                      (long long)p->peak, (long long)p->capacity);
  fd_json_num(e, pct);
  sqlite3_str_appendall(e, ",\"peak_ts_us\":");
  fd_json_num(e, p->ts_us);
  sqlite3_str_appendall(e, ",\"peak_operator\":");
  fd_json_str(e, p->op);
  sqlite3_str_appendall(e, ",\"step\":");
  if (p->has_step) sqlite3_str_appendf(e, "%lld", (long long)p->step);
  else sqlite3_str_appendall(e, "null");
  sqlite3_str_appendchar(e, 1, '}');
  row.title = sqlite3_mprintf("Peak memory on %s is %.1f%% of its %.1f GB", p->device, pct,
                              (double)p->capacity / 1073741824.0);
  row.advice =
      "The device's memory is nearly full, so a larger batch or a longer input will not fit "
      "and the allocator may already be freeing and retrying: save activation memory "
      "(activation checkpointing, mixed precision bf16/fp16), shard parameters and optimizer "
      "state (FSDP, ZeRO), or use a smaller batch with gradient accumulation.";
  return fd_emit(x, r, &row);
}

/* Appends device DEV ("GPU<n>") of trace TID to *P, its peak not yet seen. */
static int ftPeakPush(ft_peak **p, size_t *np, size_t *ap, int64_t tid, const char *dev) {
  ft_peak v;
  memset(&v, 0, sizeof v);
  v.trace_id = tid;
  v.device_id = strtoll(dev + 3, 0, 10);
  v.peak = INT64_MIN;
  if (!(v.device = sqlite3_mprintf("%s", dev))) return SQLITE_NOMEM;
  HTA_PUSH(*p, *np, *ap, 8, v, ft_push_oom);
  return SQLITE_OK;
ft_push_oom:
  sqlite3_free(v.device);
  return SQLITE_NOMEM;
}

/* FT-3's quick exit: *MAYBE = 0 when no [memory] record of the run's traces has a
** Total Allocated over 90% of the smallest device memory of the job, so that no
** device can be over and hta_memory_summary (records and operator tree) need not run:
** its peak_allocated_bytes is the largest Total Allocated of the device's records. */
static int ftPeakBound(fd_ctx *x, int64_t *maybe) {
  static const char *const mem[] = {"[memory]"};
  int32_t id;
  int64_t cap, one;
  int isnull;
  *maybe = 0;
  int rc = hta_string_ids(x->db, x->schema, mem, 1, &id);
  if (rc != SQLITE_OK || id < 0) return rc;
  rc = hta_query_int64(x->db, x->schema,
                       "SELECT min(d.total_global_mem) FROM $S.device d JOIN $T t"
                       " ON t.trace_id = d.trace_id WHERE t.job_id = ?1 AND d.total_global_mem > 0",
                       1, &x->job_id, &cap, &isnull);
  for (int i = 0; rc == SQLITE_OK && !isnull && !*maybe && i < x->nu; i++) {
    /* over floor(0.9 cap): over 0.9 cap for an integer, a little looser for a real */
    const int64_t b[4] = {hta_trace_first_id(x->u[i].trace_id), hta_trace_last_id(x->u[i].trace_id),
                          id, (int64_t)(0.9 * (double)cap)};
    int none;
    rc =
        hta_query_int64(x->db, x->schema,
                        "SELECT 1 FROM $S.event WHERE event_id BETWEEN ?1 AND ?2 AND name_id = ?3"
                        " AND json_valid(args) AND json_extract(args, '$.\"Total Allocated\"') > ?4"
                        " LIMIT 1",
                        4, b, &one, &none);
    *maybe = rc == SQLITE_OK && !none;
  }
  return rc;
}

int fd_memory_near_capacity(fd_ctx *x, const fd_rule *r) {
  sqlite3_stmt *st = 0, *cap = 0;
  ft_peak *p = 0;
  size_t np = 0, ap = 0;
  int64_t one;
  int isnull;
  /* no device memory known in this job: nothing to compare with, and the memory
  ** analysis need not run */
  int rc = hta_query_int64(x->db, x->schema,
                           "SELECT 1 FROM $S.device d JOIN $T t ON t.trace_id = d.trace_id"
                           " WHERE t.job_id = ?1 AND d.total_global_mem > 0 LIMIT 1",
                           1, &x->job_id, &one, &isnull);
  if (rc != SQLITE_OK || isnull) return rc;
  rc = ftPeakBound(x, &one);
  if (rc != SQLITE_OK || !one) return rc;
  rc = fd_query(x,
                "SELECT trace_id, device, peak_allocated_bytes, peak_ts_us, peak_operator, step"
                " FROM hta_memory_summary WHERE schema = ?1 AND job = ?2"
                " AND device GLOB 'GPU[0-9]*' AND peak_allocated_bytes IS NOT NULL"
                " ORDER BY trace_id, device",
                &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK; /* a row: carry on unless the body fails */
    int64_t tid = sqlite3_column_int64(st, 0), peak = sqlite3_column_int64(st, 2);
    const char *dev = (const char *)sqlite3_column_text(st, 1);
    if (!fd_unit_of(x, tid)) continue;
    if (!np || p[np - 1].trace_id != tid || strcmp(p[np - 1].device, dev)) { /* a new device */
      rc = ftPeakPush(&p, &np, &ap, tid, dev);
      if (rc != SQLITE_OK) break;
    }
    ft_peak *q = &p[np - 1];
    if (peak > q->peak) { /* FT-3: the largest peak; ties keep the first row's */
      sqlite3_free(q->op);
      q->op = 0;
      q->peak = peak;
      q->ts_us = sqlite3_column_double(st, 3);
      q->has_step = sqlite3_column_type(st, 5) != SQLITE_NULL;
      q->step = sqlite3_column_int64(st, 5);
      if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
          !(q->op = sqlite3_mprintf("%s", sqlite3_column_text(st, 4))))
        rc = SQLITE_NOMEM;
    }
  }
  rc = fd_done(st, rc);
  if (rc == SQLITE_OK)
    rc = hta_prepare(
        x->db, x->schema,
        "SELECT total_global_mem FROM $S.device WHERE trace_id = ?1 AND device_id = ?2", &cap);
  for (size_t i = 0; rc == SQLITE_OK && i < np; i++) {
    sqlite3_bind_int64(cap, 1, p[i].trace_id);
    sqlite3_bind_int64(cap, 2, p[i].device_id);
    rc = sqlite3_step(cap);
    if (rc == SQLITE_ROW) p[i].capacity = sqlite3_column_int64(cap, 0);
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_reset(cap);
  }
  for (size_t i = 0; rc == SQLITE_OK && i < np;) { /* per trace: its device of the largest share */
    size_t j = i, best = np;
    for (; j < np && p[j].trace_id == p[i].trace_id; j++) {
      if (p[j].capacity <= 0) continue;
      if (best == np || (double)p[j].peak / (double)p[j].capacity >
                            (double)p[best].peak / (double)p[best].capacity)
        best = j;
    }
    if (best < np) rc = ftPeakEmit(x, r, &p[best]);
    i = j;
  }
  for (size_t i = 0; i < np; i++) ftPeakClear(&p[i]);
  sqlite3_free(p);
  sqlite3_finalize(cap);
  return rc;
}

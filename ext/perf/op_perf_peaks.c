/*
** op_perf_peaks.c: the peaks of a trace's GPU for the roofline of hta_op_perf (op_perf.c
** OP-11): the rows of device_peak whose pattern matches the device's name. A trace whose
** deviceProperties leave the name empty (vLLM's ROCm traces) is named by its properties
** through device_model (vendor, compute capability, SM or CU count, memory), where they
** single one GPU out.
**
**   opp_peaks pk;  long dev;
**   opp_load(db, "main", &pk);  opp_device(db, t, &pk, &dev);
**   const opp_row_t *r = opp_row(&pk, dev, "matrix_bf16");   // NULL: no roofline
**
** HOW IT WORKS: device_peak is read once per query, by (priority, pattern); the device
** of a trace is the device of its GPU events (else its first); its name, or the name of
** the first device_model row (by rowid) its properties fall in, is GLOBbed against the
** patterns in order. Databases of schema 3 have no achievable columns and no
** device_model: the achievable figures read NULL, and an empty name finds no peak.
*/
#include <math.h>
#include <string.h>

#include "perf/op_perf.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

void opp_free(opp_peaks *p) {
  for (size_t i = 0; i < p->n; i++) {
    sqlite3_free(p->v[i].pattern);
    sqlite3_free(p->v[i].spec);
    sqlite3_free(p->v[i].form_factor);
  }
  sqlite3_free(p->v);
  memset(p, 0, sizeof *p);
}

/* 1 when SCHEMA has TABLE (with COLUMN, when not NULL). */
static int oppHas(sqlite3 *db, const char *schema, const char *table, const char *column, int *rc) {
  char *sql = sqlite3_mprintf("SELECT count(*) FROM pragma_table_info(%Q, %Q)%s%Q", table, schema,
                              column ? " WHERE name = " : "", column ? column : "");
  int64_t n = 0;
  int isnull;
  *rc = sql ? hta_query_int64(db, schema, sql, 0, 0, &n, &isnull) : SQLITE_NOMEM;
  sqlite3_free(sql);
  return *rc == SQLITE_OK && n > 0;
}

static double oppReal(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int opp_load(sqlite3 *db, const char *schema, opp_peaks *p) {
  sqlite3_stmt *st = 0;
  size_t a = 0;
  int rc;
  memset(p, 0, sizeof *p);
  if (!oppHas(db, schema, "device_peak", 0, &rc)) return rc;
  int ach = oppHas(db, schema, "device_peak", "achievable_tflops", &rc);
  if (rc != SQLITE_OK) return rc;
  rc = hta_prepare(db, schema,
                   ach ? "SELECT device_pattern, compute_spec, peak_tflops, peak_tbps, form_factor,"
                         " achievable_tflops, achievable_tbps FROM $S.device_peak"
                         " WHERE device_pattern IS NOT NULL AND compute_spec IS NOT NULL"
                         " ORDER BY priority, device_pattern"
                       : "SELECT device_pattern, compute_spec, peak_tflops, peak_tbps, form_factor,"
                         " NULL, NULL FROM $S.device_peak"
                         " WHERE device_pattern IS NOT NULL AND compute_spec IS NOT NULL"
                         " ORDER BY priority, device_pattern",
                   &st);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    opp_row_t r;
    rc = SQLITE_OK;
    r.pattern = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    r.spec = sqlite3_mprintf("%s", sqlite3_column_text(st, 1));
    r.form_factor = sqlite3_column_type(st, 4) == SQLITE_NULL
                        ? 0
                        : sqlite3_mprintf("%s", sqlite3_column_text(st, 4));
    r.tflops = oppReal(st, 2), r.tbps = oppReal(st, 3);
    r.ach_tflops = oppReal(st, 5), r.ach_tbps = oppReal(st, 6);
    if (!r.pattern || !r.spec || (sqlite3_column_type(st, 4) != SQLITE_NULL && !r.form_factor)) {
      sqlite3_free(r.pattern);
      sqlite3_free(r.spec);
      sqlite3_free(r.form_factor);
      rc = SQLITE_NOMEM;
      break;
    }
    HTA_PUSH(p->v, p->n, a, 32, r, peaks_oom);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
peaks_oom:
  sqlite3_finalize(st);
  return SQLITE_NOMEM;
}

/* The device_model name of trace T's device properties (PROPS: compute major, minor,
** SMs, memory bytes) into *PZ (sqlite3_free), NULL when no row holds them. */
static int oppModel(sqlite3 *db, const hta_trace *t, sqlite3_stmt *dev, char **pz) {
  sqlite3_stmt *st = 0;
  int rc;
  *pz = 0;
  if (!oppHas(db, t->schema, "device_model", 0, &rc)) return rc;
  rc = hta_prepare(db, t->schema,
                   "SELECT m.name FROM $S.device_model m JOIN $S.trace t ON t.trace_id = ?1"
                   " WHERE m.device_type = t.device_type AND m.compute_major = ?2"
                   " AND m.compute_minor = ?3 AND m.num_sms = ?4"
                   " AND ?5 / 1073741824.0 BETWEEN m.min_mem_gib AND m.max_mem_gib"
                   " ORDER BY m.rowid LIMIT 1",
                   &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  for (int i = 0; i < 4; i++) sqlite3_bind_value(st, i + 2, sqlite3_column_value(dev, i + 1));
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *pz = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    rc = *pz ? SQLITE_OK : SQLITE_NOMEM;
  } else if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

int opp_device(sqlite3 *db, const hta_trace *t, const opp_peaks *p, long *first) {
  sqlite3_stmt *st = 0;
  char *model = 0;
  int rc;
  *first = -1;
  if (!p->n) return SQLITE_OK;
  rc = hta_prepare(db, t->schema,
                   "SELECT d.name, d.compute_major, d.compute_minor, d.num_sms, d.total_global_mem"
                   " FROM $S.device d WHERE d.trace_id = ?1"
                   " ORDER BY d.device_id IS NOT (SELECT e.device FROM $S.event e"
                   "  WHERE e.trace_id = ?1 AND e.stream IS NOT NULL AND e.device IS NOT NULL"
                   "  LIMIT 1), d.device_id LIMIT 1",
                   &st);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(st, 1, t->trace_id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    rc = SQLITE_OK;
    if (!name || !name[0]) rc = oppModel(db, t, st, &model), name = model;
    for (size_t i = 0; rc == SQLITE_OK && name && i < p->n; i++) {
      if (sqlite3_strglob(p->v[i].pattern, name) == 0) {
        *first = (long)i;
        break;
      }
    }
  }
  sqlite3_free(model);
  sqlite3_finalize(st);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

const opp_row_t *opp_row(const opp_peaks *p, long first, const char *spec) {
  if (first < 0 || !spec[0]) return 0;
  for (size_t i = (size_t)first; i < p->n && !strcmp(p->v[i].pattern, p->v[first].pattern); i++) {
    if (!strcmp(p->v[i].spec, spec)) return &p->v[i];
  }
  return 0;
}

/*
** names.c: the string table (`string`: string_id, value) as the analyses use it.
**
**   static const char *const launches[] = {"cudaLaunchKernel", "hipLaunchKernel"};
**   int32_t ids[2];
**   rc = hta_string_ids(db, "main", launches, 2, ids);      // ids[i] = -1: not in this database
**   rc = hta_join_names(qname, name_ids, n, " -> ", &z);  // "aten::mm -> gemm_kernel"
**
** hta_string_ids() finds the ids of fixed names once, so that rows can be matched
** by name_id (launch_stats.c, queue_length.c); hta_join_names() builds a pattern
** or sequence string from a list of name ids (sequences.c, aten_ops.c);
** hta_name_slots() reads the names of many rows once per distinct name (tb_tree.c).
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* QL-1 of queue_length.c, with D15: the runtime calls that put work on a GPU queue. */
const char *const hta_queue_launch_names[HTA_NQUEUE_LAUNCH] = {
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipModuleLaunchKernel",
    "hipMemcpyAsync",
    "hipMemsetAsync",
    "hipMemcpyWithStream",
};

int hta_i32_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

int hta_i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

long hta_i32_find(const int32_t *v, size_t n, int32_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo] == id ? (long)lo : -1;
}

int hta_string_ids(sqlite3 *db, const char *schema, const char *const *names, size_t n,
                   int32_t *ids) {
  sqlite3_stmt *st = 0;
  int rc = hta_prepare(db, schema, "SELECT string_id FROM $S.string WHERE value = ?1", &st);
  for (size_t i = 0; i < n; i++) ids[i] = -1;
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
    sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) ids[i] = (int32_t)sqlite3_column_int64(st, 0);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

int hta_join_names(sqlite3_stmt *qname, const sqlite3_int64 *ids, size_t n, const char *sep,
                   char **pz) {
  sqlite3_str *s = sqlite3_str_new(0);
  char *z;
  int rc = SQLITE_OK;
  *pz = 0;
  for (size_t k = 0; k < n && rc == SQLITE_OK; k++) {
    if (k) sqlite3_str_appendall(s, sep);
    if (ids[k] < 0) continue; /* an event without a name */
    sqlite3_bind_int64(qname, 1, ids[k]);
    rc = sqlite3_step(qname);
    if (rc == SQLITE_ROW) {
      const char *v = (const char *)sqlite3_column_text(qname, 0);
      if (v) sqlite3_str_appendall(s, v);
    }
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_reset(qname);
  }
  if (rc == SQLITE_OK) rc = sqlite3_str_errcode(s);
  z = sqlite3_str_finish(s);
  if (rc == SQLITE_OK && !z) { /* sqlite3_str_finish gives NULL for "" */
    z = sqlite3_mprintf("");
    if (!z) rc = SQLITE_NOMEM;
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(z);
    return rc;
  }
  *pz = z;
  return SQLITE_OK;
}

static int nsI32Cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

int hta_name_slots(sqlite3 *db, const char *schema, int32_t *ids, size_t n, char ***pnames,
                   size_t *pn) {
  int32_t *u = sqlite3_malloc64((n ? n : 1) * sizeof *u), *slot = 0;
  char **names = 0;
  size_t m = 0;
  sqlite3_stmt *st = 0;
  int rc = SQLITE_NOMEM;
  *pnames = 0, *pn = 0;
  if (!u) return SQLITE_NOMEM;
  int32_t lo = INT32_MAX, hi = -1;
  for (size_t i = 0; i < n; i++) {
    if (ids[i] < 0) continue;
    u[m++] = ids[i];
    if (ids[i] < lo) lo = ids[i];
    if (ids[i] > hi) hi = ids[i];
  }
  if (m && (uint64_t)hi - (uint64_t)lo <= 4 * (uint64_t)m + 65536) {
    /* string ids are small dense integers: a presence table replaces the sort */
    size_t span = (size_t)(hi - lo) + 1, k = 0;
    slot = sqlite3_malloc64(span * sizeof *slot);
    if (!slot) goto done;
    memset(slot, 0xff, span * sizeof *slot);
    for (size_t i = 0; i < m; i++) slot[u[i] - lo] = 0;
    for (size_t v = 0; v < span; v++) {
      if (slot[v] == 0) slot[v] = (int32_t)k, u[k++] = (int32_t)(lo + (int64_t)v);
    }
    m = k;
  } else {
    qsort(u, m, sizeof *u, nsI32Cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
      if (k == 0 || u[k - 1] != u[i]) u[k++] = u[i];
    }
    m = k;
  }
  names = sqlite3_malloc64((m ? m : 1) * sizeof *names);
  if (!names) goto done;
  memset(names, 0, (m ? m : 1) * sizeof *names);
  rc = hta_prepare(db, schema, HTA_SQL_NAME_OF_ID, &st);
  for (size_t i = 0; rc == SQLITE_OK && i < m; i++) {
    const char *v = 0;
    sqlite3_bind_int64(st, 1, u[i]);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) v = (const char *)sqlite3_column_text(st, 0);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
    if (rc == SQLITE_OK && !(names[i] = sqlite3_mprintf("%s", v ? v : ""))) rc = SQLITE_NOMEM;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_OK) {
    hta_names_free(names, m);
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    if (ids[i] < 0) {
      ids[i] = -1;
      continue;
    }
    if (slot) ids[i] = slot[ids[i] - lo];
    else ids[i] = (int32_t)((int32_t *)bsearch(&ids[i], u, m, sizeof *u, nsI32Cmp) - u);
  }
  *pnames = names, *pn = m;
done:
  sqlite3_free(slot);
  sqlite3_free(u);
  return rc;
}

void hta_names_free(char **names, size_t n) {
  if (!names) return;
  for (size_t i = 0; i < n; i++) sqlite3_free(names[i]);
  sqlite3_free(names);
}

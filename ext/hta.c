/*
** hta.c: the entry points of hta.so. This file only registers things.
**
**   .load ./hta                        -- sqlite3_hta_init: pure, read-only analyses
**   .load ./hta sqlite3_hta_io_init    -- the same plus file I/O (DIRECTONLY)
**
**   SELECT hta_version();                 -- 'v0.1.0'
**   SELECT * FROM hta_temporal_breakdown;
**
** The library is named hta.so so that SQLite derives sqlite3_hta_init from it.
** Requirements:
**  1. SQLite 3.40.0 or later (checked at load time).
**  2. Each family registers from its own file (hta_register_* in hta_common.h);
**     the first failure stops the load with "Error registering <family>: <why>".
*/
#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT1
#endif

#define HTA_MIN_SQLITE 3040000

/* The breakdown family: one generic table-valued module per analysis. */
int hta_register_breakdown(sqlite3 *db) {
  static const hta_tvf *const defs[] = {
      &hta_temporal_breakdown_tvf,  &hta_kernel_type_breakdown_tvf, &hta_kernel_breakdown_tvf,
      &hta_idle_time_breakdown_tvf, &hta_idle_interval_stats_tvf,   &hta_comm_comp_overlap_tvf,
  };
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

static int htaInit(sqlite3 *db, char **pzErrMsg, int with_io);

/* Every family but io on DB: for a connection an analysis opens itself. */
static int htaRegisterAll(sqlite3 *db) { return htaInit(db, 0, 0); }

/* The comparison may open a connection of its own, and registers the extension there. */
static int htaRegisterJobDiff(sqlite3 *db) { return hta_register_job_diff(db, htaRegisterAll); }

static const struct {
  const char *name;
  int (*reg)(sqlite3 *);
} htaFamilies[] = {
    {"scalars", hta_register_scalars},
    {"aggregates", hta_register_aggregates},
    {"breakdown", hta_register_breakdown},
    {"launch", hta_register_launch},
    {"counters", hta_register_counters},
    {"sequences", hta_register_sequences},
    {"annotations", hta_register_annotations},
    {"cupti", hta_register_cupti},
    {"diff", hta_register_diff},
    {"job_diff", htaRegisterJobDiff},
    {"collectives", hta_register_collectives},
    {"memory", hta_register_memory},
    {"critical_path", hta_register_critical_path},
    {"tb_stats", hta_register_tb_stats},
    {"tb_modules", hta_register_tb_modules},
    {"tb_views", hta_register_tb_views},
    {"op_perf", hta_register_op_perf},
    {"inference", hta_register_inference},
    {"findings", hta_register_findings},
    {"health", hta_register_health},
    {"graph", hta_register_graph},
};

static int htaInit(sqlite3 *db, char **pzErrMsg, int with_io) {
  if (sqlite3_libversion_number() < HTA_MIN_SQLITE) {
    if (pzErrMsg) {
      *pzErrMsg =
          sqlite3_mprintf("hta requires SQLite 3.40.0 or later (this is %s)", sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  for (size_t i = 0; i < sizeof htaFamilies / sizeof htaFamilies[0]; i++) {
    int rc = htaFamilies[i].reg(db);
    if (rc != SQLITE_OK) {
      if (pzErrMsg) {
        *pzErrMsg =
            sqlite3_mprintf("Error registering %s: %s", htaFamilies[i].name, sqlite3_errmsg(db));
      }
      return rc;
    }
  }
  if (with_io) {
    int rc = hta_register_io(db);
    if (rc != SQLITE_OK) {
      if (pzErrMsg) *pzErrMsg = sqlite3_mprintf("Error registering io: %s", sqlite3_errmsg(db));
      return rc;
    }
  }
  return SQLITE_OK;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
    int sqlite3_hta_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
#ifndef SQLITE_CORE
  SQLITE_EXTENSION_INIT2(pApi);
#else
  (void)pApi;
#endif
  return htaInit(db, pzErrMsg, 0);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
    int sqlite3_hta_io_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
#ifndef SQLITE_CORE
  SQLITE_EXTENSION_INIT2(pApi);
#else
  (void)pApi;
#endif
  return htaInit(db, pzErrMsg, 1);
}

/*
** counters.c: registers the counter family of hta.so, the analyses behind
** HTA's trace counters (spec hta_semantics.md 2.7-2.8): the queue length of
** each stream (queue_length.c) and the memory bandwidth of each memory kind
** (memory_bw.c). This file only registers things.
**
**   SELECT * FROM hta_queue_length WHERE rank = 0;
**   SELECT * FROM hta_queue_length_summary;
**   SELECT * FROM hta_queue_full_time(2);
**   SELECT * FROM hta_memory_bw WHERE rank = 0;
**   SELECT * FROM hta_memory_bw_summary;
**
** Writing the counters into a trace file (HTA's generate_trace_with_counters,
** spec 2.9) belongs to the io entry point and is not here.
*/
#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Defined in queue_length.c and memory_bw.c. */
extern const hta_tvf hta_queue_length_tvf;
extern const hta_tvf hta_queue_length_summary_tvf;
extern const hta_tvf hta_queue_full_time_tvf;
extern const hta_tvf hta_memory_bw_tvf;
extern const hta_tvf hta_memory_bw_summary_tvf;

int hta_register_counters(sqlite3 *db) {
  static const hta_tvf *const defs[] = {
      &hta_queue_length_tvf, &hta_queue_length_summary_tvf, &hta_queue_full_time_tvf,
      &hta_memory_bw_tvf,    &hta_memory_bw_summary_tvf,
  };
  return hta_tvf_register_all(db, defs, sizeof defs / sizeof defs[0]);
}

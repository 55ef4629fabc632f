/*
** register_defaults.c: empty registrations for the families whose files are not
** written yet. They are weak: a family's own file (launch.c, counters.c, ...)
** defines the real hta_register_* and the linker takes that one, so the build
** links with or without it. Nothing is registered here.
*/
#include "hta_common.h"

#define HTA_WEAK_DEFAULT(fn)                                                           \
  __attribute__((weak)) int fn(sqlite3 *db) {                                          \
    (void)db;                                                                          \
    return SQLITE_OK;                                                                  \
  }

HTA_WEAK_DEFAULT(hta_register_launch)
HTA_WEAK_DEFAULT(hta_register_counters)
HTA_WEAK_DEFAULT(hta_register_sequences)
HTA_WEAK_DEFAULT(hta_register_annotations)
HTA_WEAK_DEFAULT(hta_register_cupti)
HTA_WEAK_DEFAULT(hta_register_diff)
HTA_WEAK_DEFAULT(hta_register_io)

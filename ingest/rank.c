/*
** rank.c: a trace file's rank (rank.h).
*/
#include "rank.h"

#include <string.h>

#include "kineto.h"

int rk_from_name(const char *path, int64_t *rank) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (const char *p = base; *p; p++) {
    const char *q = NULL;
    if (!strncmp(p, "rank", 4)) {
      q = p + 4;
      if (*q == '-' || *q == '_') q++;
    } else if (!strncmp(p, "worker", 6)) {
      q = p + 6;
    }
    if (q && *q >= '0' && *q <= '9') {
      int64_t v = 0;
      for (; *q >= '0' && *q <= '9' && v < INT64_MAX / 10 - 9; q++) v = v * 10 + (*q - '0');
      *rank = v;
      return 1;
    }
  }
  return 0;
}

/* HOW IT WORKS: one kt_next() in scan mode reads the top-level members before the
** first event (distributedInfo among them when it comes first) and that event.
** A bare array of events has no distributedInfo, and a file that ended holds no more. */
int rk_peek(const char *path, int64_t *rank) {
  kt_file *f = NULL;
  char err[KT_ERR_MAX];
  const kt_event *e;
  int known = RK_UNKNOWN;
  if (kt_open(&f, path, KT_SCAN, err) != KT_OK) return RK_UNKNOWN;
  int rc = kt_next(f, &e);
  const kt_meta *m = kt_meta_get(f);
  if (rc == KT_EVENT || rc == KT_END) {
    if (m->has_rank) *rank = m->rank, known = RK_KNOWN;
    else if (m->is_array || rc == KT_END) {
      if (!rk_from_name(path, rank)) *rank = 0;
      known = RK_KNOWN;
    }
  }
  kt_close(f);
  return known;
}

/*
** progress.c: the text of hta-ingest's progress line. See progress.h.
*/
#include "progress.h"

#include <stdio.h>
#include <string.h>

void pg_duration(char out[48], double s) {
  if (!(s >= 0 && s < 360000)) { /* NaN, negative, infinite or absurd */
    snprintf(out, 48, "--:--");
    return;
  }
  long t = (long)(s + 0.5);
  if (t >= 3600) snprintf(out, 48, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(out, 48, "%ld:%02ld", t / 60, t % 60);
}

/* MB with a precision that suits the total: "0.4", "12.5", "286". */
static const char *mb_fmt(uint64_t total) { return total >= 100000000u ? "%.0f" : "%.1f"; }

size_t pg_format(char *buf, size_t size, const pg_info *p, int width) {
  if (!size) return 0;
  uint64_t done = p->done < p->total ? p->done : p->total;
  /* An empty input is done; a rounded 100% is shown only once everything was read. */
  int pct = p->total ? (int)((double)done * 100.0 / (double)p->total) : 100;
  if (pct == 100 && done < p->total) pct = 99;
  double rate = p->seconds > 0 ? (double)done / 1e6 / p->seconds : 0.0;
  char eta[48], dmb[32], tmb[32];
  if (done >= p->total) pg_duration(eta, 0);
  else if (done > 0 && rate > 0) pg_duration(eta, (double)(p->total - done) / 1e6 / rate);
  else pg_duration(eta, -1);
  snprintf(dmb, sizeof dmb, mb_fmt(p->total), (double)done / 1e6);
  snprintf(tmb, sizeof tmb, mb_fmt(p->total), (double)p->total / 1e6);
  int n = snprintf(buf, size, "%3d%% %s/%s MB, %.1f MB/s of input, ETA %s, %d/%d files", pct, dmb,
                   tmb, rate, eta, p->files_done, p->files);
  if (n > 0 && (size_t)n < size && p->current)
    n += snprintf(buf + n, size - (size_t)n, ", %s (%s)", p->current,
                  p->scanning ? "reading" : "writing");
  size_t len = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
  if (width > 0 && len > (size_t)width - 1) len = (size_t)width - 1;
  buf[len] = 0;
  return len;
}

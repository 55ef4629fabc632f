/*
** progress.h: the text of hta-ingest's progress line (prefix pg_). Pure: no I/O, no clock, so
** the line can be tested without a terminal; main.c gathers the numbers and draws it.
**
**   pg_info p = {.done = ..., .total = ..., .seconds = ..., .files_done = 3, .files = 8,
**                .current = "rank3.json", .scanning = 1};
**   pg_format(buf, sizeof buf, &p, 80);
**   // " 42% 120/286 MB, 85.3 MB/s of input, ETA 0:02, 3/8 files, rank3.json (reading)"
*/
#ifndef HTA_PROGRESS_H
#define HTA_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pg_info {
  uint64_t done, total; /* input bytes: consumed so far, and the sum of the files' sizes on disk */
  double seconds;       /* since the ingest began */
  int files_done, files;
  const char *current; /* base name of the file under way, or NULL */
  int scanning;        /* current is in its pass over the bytes (else its rows are being written) */
} pg_info;

/* Writes the line (no "\r", no newline) into buf[0..size), cut to at most width-1 characters
** when width > 0 so that it never wraps. The rate is done / seconds in MB/s of input, the
** definition of the summary line; the ETA is what is left at that rate ("ETA --:--" until
** it is known). Returns the length written. */
size_t pg_format(char *buf, size_t size, const pg_info *p, int width);

/* The ETA (or any duration) as "M:SS", or "H:MM:SS" from an hour on; "--:--" when s is not
** a finite, non-negative number of seconds below 100 hours. */
void pg_duration(char out[48], double s);

#endif

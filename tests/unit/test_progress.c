/*
** test_progress.c: the text of hta-ingest's progress line (ingest/progress.c): percentage,
** MB done of total, MB/s of input, ETA, files and the file under way; cut to the terminal.
*/
#include "progress.h"

#include <math.h>

#include "testutil.h"

static void test_duration(void) {
  char s[48];
  pg_duration(s, 0);
  CHECK_STR(s, "0:00");
  pg_duration(s, 59.4);
  CHECK_STR(s, "0:59");
  pg_duration(s, 59.6);
  CHECK_STR(s, "1:00");
  pg_duration(s, 754);
  CHECK_STR(s, "12:34");
  pg_duration(s, 3600);
  CHECK_STR(s, "1:00:00");
  pg_duration(s, 3 * 3600 + 62);
  CHECK_STR(s, "3:01:02");
  pg_duration(s, -1);
  CHECK_STR(s, "--:--");
  pg_duration(s, 1e12);
  CHECK_STR(s, "--:--");
  pg_duration(s, NAN);
  CHECK_STR(s, "--:--");
}

static void test_line(void) {
  char b[512];
  /* 120 of 300 MB in 2 s: 60 MB/s, 180 MB left: 3 s */
  pg_info p = {.done = 120000000,
               .total = 300000000,
               .seconds = 2,
               .files_done = 3,
               .files = 8,
               .current = "rank3.json",
               .scanning = 1};
  size_t n = pg_format(b, sizeof b, &p, 0);
  CHECK_STR(b, " 40% 120/300 MB, 60.0 MB/s of input, ETA 0:03, 3/8 files, rank3.json (reading)");
  CHECK_INT(n, strlen(b));
  p.scanning = 0;
  pg_format(b, sizeof b, &p, 0);
  CHECK_STR(b, " 40% 120/300 MB, 60.0 MB/s of input, ETA 0:03, 3/8 files, rank3.json (writing)");
  /* small totals keep a decimal; nothing read yet: no rate, no ETA */
  pg_info q = {.done = 0, .total = 60600000, .seconds = 0.2, .files = 4, .current = "a.json"};
  pg_format(b, sizeof b, &q, 0);
  CHECK_STR(b, "  0% 0.0/60.6 MB, 0.0 MB/s of input, ETA --:--, 0/4 files, a.json (writing)");
  /* 99.9% is not shown as 100% */
  pg_info r = {.done = 999, .total = 1000, .seconds = 1, .files_done = 0, .files = 1};
  pg_format(b, sizeof b, &r, 0);
  CHECK(!strncmp(b, " 99% ", 5));
  /* done: 100%, ETA 0:00, no file under way; done past the total is clamped */
  pg_info d = {.done = 70000000, .total = 60000000, .seconds = 1, .files_done = 4, .files = 4};
  pg_format(b, sizeof b, &d, 0);
  CHECK_STR(b, "100% 60.0/60.0 MB, 60.0 MB/s of input, ETA 0:00, 4/4 files");
  /* an empty input is done */
  pg_info e = {.files = 1};
  pg_format(b, sizeof b, &e, 0);
  CHECK(!strncmp(b, "100% ", 5));
  /* cut to width - 1 so that the line never wraps, and to the buffer */
  n = pg_format(b, sizeof b, &p, 40);
  CHECK_INT(n, 39);
  CHECK_INT(strlen(b), 39);
  CHECK_STR(b, " 40% 120/300 MB, 60.0 MB/s of input, ET");
  char small[10];
  n = pg_format(small, sizeof small, &p, 0);
  CHECK_INT(n, 9);
  CHECK_STR(small, " 40% 120/");
}

int main(void) {
  test_duration();
  test_line();
  return tu_summary("test_progress");
}

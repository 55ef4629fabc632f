/*
** tmpfile.c: the anonymous temporary files of the spool and the external sort. See
** tmpfile.h.
*/
#include "tmpfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int tf_open(const char *tag, char *what, size_t whatlen) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  if (!dir || !*dir) dir = "/tmp";
  snprintf(path, sizeof path, "%s/%s-XXXXXX", dir, tag);
  snprintf(what, whatlen, "temporary file in %.100s: cannot create", dir);
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path); /* gone with the descriptor, whatever happens */
  return fd;
}

int tf_write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = ENOSPC;
      return -1;
    }
    c += k, n -= (size_t)k;
  }
  return 0;
}

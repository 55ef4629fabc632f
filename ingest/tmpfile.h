/*
** tmpfile.h: the anonymous temporary files of hta-ingest's spills (prefix tf_): the
** row spool (spool.c) and the external sort (xsort.c). Pure C, never prints.
**
**   char what[160];
**   int fd = tf_open("hta-sort", what, sizeof what);   -- -1: errno, and WHAT says where
**   if (tf_write_all(fd, buf, n)) ... errno ...
**
** The file is created in $TMPDIR (else /tmp) and unlinked at once: it is gone with
** its descriptor, whatever happens to the process.
*/
#ifndef HTA_TMPFILE_H
#define HTA_TMPFILE_H

#include <stddef.h>

/* A new unlinked temporary file named after TAG: its descriptor; or -1 with errno set
** and WHAT (WHATLEN bytes) "temporary file in DIR: cannot create". */
int tf_open(const char *tag, char *what, size_t whatlen);
/* Writes the N bytes at P to FD, retrying on EINTR: 0, or -1 with errno set (ENOSPC
** when the system writes nothing without an error). */
int tf_write_all(int fd, const void *p, size_t n);

#endif

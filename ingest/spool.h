/*
** spool.h: a file's row batches kept between its one pass over the bytes and the
** writer (prefix so_). Pure C: no sqlite3, never prints.
**
**   so_spool *s = so_new(mem);
**   so_put(s, b); ...                 during the pass; b stays the caller's
**   so_rewind(s);                     the pass ended
**   while ((rc = so_get(s, b)) == 1) use(b);   0 at the end, -1 on error
**   so_free(s);
**   (each returns 0, or -1 with so_error(s))
**
** HOW IT WORKS: the rows' derived columns (links, parents, iterations) are known only
** once the whole file was read, so the pass encodes its batches (strings and arena as
** they are, rows as varints of the fields the pass set: 30-50 bytes a row instead of
** the struct's 176) into a byte stream: its first MEM bytes in memory, the rest in an
** unlinked temporary file in $TMPDIR (else /tmp). Reading it back is a memcpy and a
** decode, cheaper than inflating and tokenizing the JSON again.
*/
#ifndef HTA_SPOOL_H
#define HTA_SPOOL_H

#include <stddef.h>

#include "batch.h"

typedef struct so_spool so_spool;

so_spool *so_new(size_t mem);
/* Appends b's rows and strings (an empty batch is skipped). */
int so_put(so_spool *s, const bt_batch *b);
/* Ends the writing; so_get() then reads from the first batch. */
int so_rewind(so_spool *s);
/* The next batch into b (reset first): 1, 0 at the end, -1 on error. */
int so_get(so_spool *s, bt_batch *b);
/* Bytes that went to the temporary file. */
long long so_spilled(const so_spool *s);
/* NULL, or what failed: "out of memory", "temporary file in /tmp: cannot write: ...". */
const char *so_error(const so_spool *s);
void so_free(so_spool *s);

#endif

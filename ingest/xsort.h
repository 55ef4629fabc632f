/*
** xsort.h: an external sort of fixed-size records (prefix xs_). Pure C, never prints.
**
**   xs_sorter *s = xs_new(sizeof(rec), cmp, budget_bytes);
**   xs_add(s, &rec); ...            0, or -1: see xs_error(s)
**   xs_sort(s);
**   xs_reader *r = xs_open(s);
**   while ((p = xs_next(r))) use(p);   NULL at the end, or on an error (xs_error)
**   xs_close(r); xs_free(s);
**
** HOW IT WORKS: records collect in 1 MiB chunks, each sorted when full, and
** readers merge the chunks with a heap: under the budget nothing touches the
** disk. Past it, the chunks are merged into one run appended to an unlinked
** temporary file ($TMPDIR, else /tmp) and their buffers reused; readers then merge
** the runs, each through a small window, with the chunks filled since (never
** written). Several readers may walk the same sorted records at once (one thread).
** The comparator sees only the two records: put every key in the record.
*/
#ifndef HTA_XSORT_H
#define HTA_XSORT_H

#include <stddef.h>

typedef int (*xs_cmp)(const void *a, const void *b);
typedef struct xs_sorter xs_sorter;
typedef struct xs_reader xs_reader;

typedef void (*xs_map)(void *rec, void *ctx);

xs_sorter *xs_new(size_t size, xs_cmp cmp, size_t budget);
int xs_add(xs_sorter *s, const void *rec);
int xs_sort(xs_sorter *s);
size_t xs_count(const xs_sorter *s);
/* Bytes written to the temporary file (0: all in memory). */
long long xs_spilled(const xs_sorter *s);
/* NULL, or what failed: "out of memory", "temporary file: ...". */
const char *xs_error(const xs_sorter *s);

/*
** S takes T (same record size and comparator): T is sorted now and freed with S, and
** S's readers merge T's records too, each passed through MAP as it is handed out.
** MAP must not change how a record compares with the others (it may renumber, keeping
** the order). 0, or -1 (xs_error(s)) and T is still the caller's.
*/
int xs_absorb(xs_sorter *s, xs_sorter *t, xs_map map, void *ctx);

xs_reader *xs_open(xs_sorter *s);
const void *xs_next(xs_reader *r);
void xs_close(xs_reader *r);
void xs_free(xs_sorter *s);

#endif

/*
** xsort.c: external sort of fixed-size records. See xsort.h.
*/
#include "xsort.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XS_WINDOW (256u << 10) /* bytes a reader holds of each run */

typedef struct xs_run {
  off_t off;
  size_t count;
} xs_run;

struct xs_sorter {
  size_t size; /* bytes per record */
  size_t cap;  /* records held in memory at most: the budget */
  xs_cmp cmp;
  char *buf;
  size_t n, bufcap; /* records in buf, records allocated */
  size_t total;
  int fd; /* the runs' file, -1 until the first spill */
  off_t end;
  xs_run *runs;
  size_t nruns, capruns;
  int sorted;
  char err[160];
};

typedef struct xs_window {
  char *buf;
  size_t have, pos; /* records in buf, next one */
  size_t left;      /* records of the run still in the file */
  off_t next;       /* their offset */
} xs_window;

struct xs_reader {
  xs_sorter *s;
  size_t i; /* in memory: the next record */
  xs_window *w;
  size_t *heap, nheap;
  char *cur;
};

static int xs_fail(xs_sorter *s, const char *what, int errnum) {
  if (s->err[0]) return -1;
  char msg[96] = "";
  if (errnum && strerror_r(errnum, msg, sizeof msg) != 0) snprintf(msg, sizeof msg, "error %d", errnum);
  snprintf(s->err, sizeof s->err, "%s%s%s", what, errnum ? ": " : "", msg);
  return -1;
}

xs_sorter *xs_new(size_t size, xs_cmp cmp, size_t budget) {
  xs_sorter *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->size = size;
  s->cmp = cmp;
  s->cap = budget / size > 1 ? budget / size : 1;
  s->fd = -1;
  return s;
}

void xs_free(xs_sorter *s) {
  if (!s) return;
  if (s->fd >= 0) close(s->fd);
  free(s->buf);
  free(s->runs);
  free(s);
}

size_t xs_count(const xs_sorter *s) { return s->total; }
long long xs_spilled(const xs_sorter *s) { return (long long)s->end; }
const char *xs_error(const xs_sorter *s) { return s->err[0] ? s->err : NULL; }

static int xs_write(xs_sorter *s, const char *p, size_t n) {
  while (n) {
    ssize_t k = write(s->fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return xs_fail(s, "temporary file: cannot write", k < 0 ? errno : ENOSPC);
    p += k, n -= (size_t)k;
  }
  return 0;
}

/* Sorts the buffer and appends it to the file as one run. */
static int xs_spill(xs_sorter *s) {
  if (s->fd < 0) {
    const char *dir = getenv("TMPDIR");
    char path[4096], what[160];
    if (!dir || !*dir) dir = "/tmp";
    snprintf(path, sizeof path, "%s/hta-sort-XXXXXX", dir);
    snprintf(what, sizeof what, "temporary file in %.100s: cannot create", dir);
    if ((s->fd = mkstemp(path)) < 0) return xs_fail(s, what, errno);
    unlink(path); /* gone with the descriptor, whatever happens */
  }
  if (s->nruns == s->capruns) {
    size_t c = s->capruns ? 2 * s->capruns : 16;
    xs_run *r = realloc(s->runs, c * sizeof *r);
    if (!r) return xs_fail(s, "out of memory", 0);
    s->runs = r, s->capruns = c;
  }
  qsort(s->buf, s->n, s->size, s->cmp);
  if (xs_write(s, s->buf, s->n * s->size)) return -1;
  s->runs[s->nruns].off = s->end;
  s->runs[s->nruns++].count = s->n;
  s->end += (off_t)(s->n * s->size);
  s->n = 0;
  return 0;
}

int xs_add(xs_sorter *s, const void *rec) {
  if (s->err[0]) return -1;
  if (s->n == s->bufcap) {
    if (s->bufcap == s->cap) {
      if (xs_spill(s)) return -1;
    } else {
      size_t c = s->bufcap ? 2 * s->bufcap : 1024;
      if (c > s->cap) c = s->cap;
      char *b = realloc(s->buf, c * s->size);
      if (!b) return xs_fail(s, "out of memory", 0);
      s->buf = b, s->bufcap = c;
    }
  }
  memcpy(s->buf + s->n++ * s->size, rec, s->size);
  s->total++;
  return 0;
}

int xs_sort(xs_sorter *s) {
  if (s->err[0]) return -1;
  s->sorted = 1;
  if (s->fd < 0) {
    if (s->n > 1) qsort(s->buf, s->n, s->size, s->cmp);
    return 0;
  }
  if (s->n && xs_spill(s)) return -1;
  free(s->buf); /* the readers' windows take its place */
  s->buf = NULL;
  s->bufcap = 0;
  return 0;
}

/* ------------------------------------------------------------ readers */

static int xs_fill(xs_reader *r, size_t k) {
  xs_sorter *s = r->s;
  xs_window *w = &r->w[k];
  size_t want = XS_WINDOW / s->size ? XS_WINDOW / s->size : 1;
  if (want > w->left) want = w->left;
  size_t bytes = want * s->size, got = 0;
  while (got < bytes) {
    ssize_t n = pread(s->fd, w->buf + got, bytes - got, w->next + (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return xs_fail(s, "temporary file: cannot read", n < 0 ? errno : EIO);
    got += (size_t)n;
  }
  w->have = want, w->pos = 0;
  w->left -= want;
  w->next += (off_t)bytes;
  return 0;
}

static const char *xs_head(const xs_reader *r, size_t k) {
  return r->w[k].buf + r->w[k].pos * r->s->size;
}

/* Heap order: the smaller record first, the earlier run on ties. */
static int xs_less(const xs_reader *r, size_t a, size_t b) {
  int c = r->s->cmp(xs_head(r, a), xs_head(r, b));
  return c < 0 || (c == 0 && a < b);
}

static void xs_sift(xs_reader *r, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < r->nheap && xs_less(r, r->heap[l], r->heap[m])) m = l;
    if (l + 1 < r->nheap && xs_less(r, r->heap[l + 1], r->heap[m])) m = l + 1;
    if (m == i) return;
    size_t t = r->heap[i];
    r->heap[i] = r->heap[m], r->heap[m] = t;
    i = m;
  }
}

void xs_close(xs_reader *r) {
  if (!r) return;
  if (r->w)
    for (size_t k = 0; k < r->s->nruns; k++) free(r->w[k].buf);
  free(r->w);
  free(r->heap);
  free(r->cur);
  free(r);
}

xs_reader *xs_open(xs_sorter *s) {
  if (s->err[0] || !s->sorted) return NULL;
  xs_reader *r = calloc(1, sizeof *r);
  if (!r) goto oom;
  r->s = s;
  if (s->fd < 0) return r;
  r->w = calloc(s->nruns, sizeof *r->w);
  r->heap = malloc(s->nruns * sizeof *r->heap);
  r->cur = malloc(s->size);
  if (!r->w || !r->heap || !r->cur) goto oom;
  size_t win = XS_WINDOW / s->size ? XS_WINDOW / s->size : 1; /* records */
  for (size_t k = 0; k < s->nruns; k++) {
    r->w[k].left = s->runs[k].count;
    r->w[k].next = s->runs[k].off;
    if (!(r->w[k].buf = malloc((win < r->w[k].left ? win : r->w[k].left) * s->size))) goto oom;
    if (xs_fill(r, k)) goto fail;
    r->heap[r->nheap++] = k;
  }
  for (size_t i = r->nheap / 2; i-- > 0;) xs_sift(r, i);
  return r;
oom:
  xs_fail(s, "out of memory", 0);
fail:
  xs_close(r);
  return NULL;
}

const void *xs_next(xs_reader *r) {
  xs_sorter *s = r->s;
  if (s->err[0]) return NULL;
  if (s->fd < 0) return r->i < s->n ? s->buf + r->i++ * s->size : NULL;
  if (!r->nheap) return NULL;
  size_t k = r->heap[0];
  memcpy(r->cur, xs_head(r, k), s->size);
  xs_window *w = &r->w[k];
  if (++w->pos == w->have) {
    if (w->left) {
      if (xs_fill(r, k)) return NULL;
    } else {
      r->heap[0] = r->heap[--r->nheap];
    }
  }
  xs_sift(r, 0);
  return r->cur;
}

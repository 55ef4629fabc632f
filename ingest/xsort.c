/*
** xsort.c: external sort of fixed-size records. See xsort.h.
**
** Records go into chunks of XS_CHUNK bytes, each sorted when full (a cache-sized
** qsort) on a helper thread of the sorter's, so that the caller's thread reads on
** (a file's pass is one thread; the helper runs on a core the pass leaves idle): up
** to XS_QUEUE full chunks wait for it, and everything that reads or moves chunks
** first waits until it has sorted them (xs_drain). Readers merge the sorted chunks with a heap. When the chunks hold the
** budget, they are merged into one run appended to the temporary file and their
** buffers reused; readers then merge the runs, each through a small window, with
** the chunks filled since the last spill (those are never written).
*/
#include "xsort.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpfile.h"

#define XS_CHUNK (1u << 20)    /* bytes sorted together */
#define XS_WINDOW (256u << 10) /* bytes a reader holds of each run on disk */
#define XS_QUEUE 8             /* full chunks waiting for the helper thread */

/* The helper thread: sorts the chunks handed to it, in order. */
typedef struct xs_helper {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* work handed over, work done, stop */
  char *buf[XS_QUEUE];
  size_t n[XS_QUEUE];
  unsigned head, tail; /* buf[head % XS_QUEUE] is being sorted until head moves on */
  int stop;
  size_t size;
  int (*cmp)(const void *, const void *);
} xs_helper;

typedef struct xs_run {
  off_t off;
  size_t count;
} xs_run;

struct xs_sorter {
  size_t size;  /* bytes per record */
  size_t cap;   /* records held in memory at most: the budget */
  size_t chunk; /* records per chunk */
  xs_cmp cmp;
  xs_helper *help; /* NULL until the first chunk is full, or when it could not start */
  int no_help;     /* it could not start: sort on the caller's thread */
  char **chunks;   /* chunks[0..nchunks) hold records, the rest are spare buffers */
  size_t *counts;
  size_t nchunks, nbufs, capbufs;
  size_t inmem, total;
  int fd; /* the runs' file, -1 until the first spill */
  off_t end;
  xs_run *runs;
  size_t nruns, capruns;
  int sorted;
  /* absorbed sorters (xs_absorb), read with this one, their records mapped */
  xs_sorter **more;
  xs_map *maps;
  void **map_ctx;
  size_t nmore;
  char err[160];
};

/* One sorted source of a reader: a chunk in memory, or a window on a run. */
typedef struct xs_src {
  xs_sorter *from; /* the sorter it belongs to (its file) */
  xs_map map;      /* applied to its records as they are handed out */
  void *map_ctx;
  char *buf;
  int owned;        /* buf is a window to free */
  size_t have, pos; /* records in buf, next one */
  size_t left;      /* records of the run still in the file */
  off_t next;       /* their offset */
} xs_src;

struct xs_reader {
  xs_sorter *s;
  xs_src *src;
  size_t nsrc;
  size_t *heap, nheap;
  char *cur;
};

static int xs_fail(xs_sorter *s, const char *what, int errnum) {
  if (s->err[0]) return -1;
  char msg[96] = "";
  if (errnum && strerror_r(errnum, msg, sizeof msg) != 0)
    snprintf(msg, sizeof msg, "error %d", errnum);
  snprintf(s->err, sizeof s->err, "%s%s%s", what, errnum ? ": " : "", msg);
  return -1;
}

static void *xs_helper_run(void *arg) {
  xs_helper *h = arg;
  pthread_mutex_lock(&h->mu);
  for (;;) {
    while (h->head == h->tail && !h->stop) pthread_cond_wait(&h->cv, &h->mu);
    if (h->head == h->tail) break; /* stop, and nothing left */
    char *buf = h->buf[h->head % XS_QUEUE];
    size_t n = h->n[h->head % XS_QUEUE];
    pthread_mutex_unlock(&h->mu);
    qsort(buf, n, h->size, h->cmp);
    pthread_mutex_lock(&h->mu);
    h->head++;
    pthread_cond_broadcast(&h->cv);
  }
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

/* Sorts the N records at BUF, on the helper thread when it can take them. */
static void xs_sort_chunk(xs_sorter *s, char *buf, size_t n) {
  if (!s->help && !s->no_help) {
    xs_helper *h = calloc(1, sizeof *h);
    s->no_help = 1;
    if (h && pthread_mutex_init(&h->mu, NULL) == 0) {
      if (pthread_cond_init(&h->cv, NULL) == 0) {
        h->size = s->size, h->cmp = s->cmp;
        if (pthread_create(&h->thread, NULL, xs_helper_run, h) == 0) s->help = h, s->no_help = 0;
        else pthread_cond_destroy(&h->cv);
      }
      if (!s->help) pthread_mutex_destroy(&h->mu);
    }
    if (!s->help) free(h);
  }
  xs_helper *h = s->help;
  if (h) {
    pthread_mutex_lock(&h->mu);
    int room = h->tail - h->head < XS_QUEUE;
    if (room) {
      h->buf[h->tail % XS_QUEUE] = buf, h->n[h->tail % XS_QUEUE] = n;
      h->tail++;
      pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    if (room) return;
  }
  qsort(buf, n, s->size, s->cmp);
}

/* Waits until the helper has sorted every chunk handed to it. */
static void xs_drain(xs_sorter *s) {
  xs_helper *h = s->help;
  if (!h) return;
  pthread_mutex_lock(&h->mu);
  while (h->head != h->tail) pthread_cond_wait(&h->cv, &h->mu);
  pthread_mutex_unlock(&h->mu);
}

static void xs_helper_stop(xs_sorter *s) {
  xs_helper *h = s->help;
  if (!h) return;
  pthread_mutex_lock(&h->mu);
  h->stop = 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
  pthread_join(h->thread, NULL);
  pthread_mutex_destroy(&h->mu);
  pthread_cond_destroy(&h->cv);
  free(h);
  s->help = NULL;
}

xs_sorter *xs_new(size_t size, xs_cmp cmp, size_t budget) {
  xs_sorter *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->size = size;
  s->cmp = cmp;
  s->cap = budget / size > 1 ? budget / size : 1;
  s->chunk = XS_CHUNK / size < s->cap ? XS_CHUNK / size : s->cap;
  s->fd = -1;
  return s;
}

void xs_free(xs_sorter *s) {
  if (!s) return;
  xs_helper_stop(s);
  for (size_t i = 0; i < s->nmore; i++) xs_free(s->more[i]);
  free(s->more);
  free(s->maps);
  free(s->map_ctx);
  if (s->fd >= 0) close(s->fd);
  for (size_t i = 0; i < s->nbufs; i++) free(s->chunks[i]);
  free(s->chunks);
  free(s->counts);
  free(s->runs);
  free(s);
}

size_t xs_count(const xs_sorter *s) { return s->total; }
long long xs_spilled(const xs_sorter *s) {
  long long n = (long long)s->end;
  for (size_t i = 0; i < s->nmore; i++) n += xs_spilled(s->more[i]);
  return n;
}
const char *xs_error(const xs_sorter *s) { return s->err[0] ? s->err : NULL; }

/* ------------------------------------------------------------ readers */

static int xs_fill(xs_reader *r, xs_src *w) {
  xs_sorter *s = r->s;
  size_t want = XS_WINDOW / s->size ? XS_WINDOW / s->size : 1;
  if (want > w->left) want = w->left;
  size_t bytes = want * s->size, got = 0;
  while (got < bytes) {
    ssize_t n = pread(w->from->fd, w->buf + got, bytes - got, w->next + (off_t)got);
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
  return r->src[k].buf + r->src[k].pos * r->s->size;
}

/* Heap order: the smaller record first, the earlier source on ties. */
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
  for (size_t k = 0; k < r->nsrc; k++)
    if (r->src[k].owned) free(r->src[k].buf);
  free(r->src);
  free(r->heap);
  free(r->cur);
  free(r);
}

/* Adds the sources of F to reader r: its runs (when RUNS) and its chunks in memory. */
static int xs_sources(xs_reader *r, xs_sorter *f, int runs, xs_map map, void *ctx) {
  size_t win = XS_WINDOW / f->size ? XS_WINDOW / f->size : 1; /* records */
  size_t nr = runs ? f->nruns : 0;
  for (size_t k = 0; k < nr + f->nchunks; k++) {
    xs_src *w = &r->src[r->nsrc++];
    w->from = f, w->map = map, w->map_ctx = ctx;
    if (k >= nr) {
      w->buf = f->chunks[k - nr], w->have = f->counts[k - nr];
    } else {
      w->left = f->runs[k].count, w->next = f->runs[k].off, w->owned = 1;
      if (!(w->buf = malloc((win < w->left ? win : w->left) * f->size)))
        return xs_fail(r->s, "out of memory", 0);
      if (xs_fill(r, w)) return -1;
    }
    if (w->have) r->heap[r->nheap++] = r->nsrc - 1;
  }
  return 0;
}

/* A reader over the chunks in memory (RUNS 0: only for s itself, while it spills), or
** over all the sorted records of s and of the sorters it absorbed. */
static xs_reader *xs_reader_new(xs_sorter *s, int runs) {
  xs_reader *r = calloc(1, sizeof *r);
  size_t n = (runs ? s->nruns : 0) + s->nchunks;
  for (size_t i = 0; runs && i < s->nmore; i++) n += s->more[i]->nruns + s->more[i]->nchunks;
  if (!r || !(r->src = calloc(n ? n : 1, sizeof *r->src)) ||
      !(r->heap = malloc((n ? n : 1) * sizeof *r->heap)) || !(r->cur = malloc(s->size))) {
    xs_fail(s, "out of memory", 0);
    goto fail;
  }
  r->s = s;
  if (xs_sources(r, s, runs, NULL, NULL)) goto fail;
  for (size_t i = 0; runs && i < s->nmore; i++)
    if (xs_sources(r, s->more[i], 1, s->maps[i], s->map_ctx[i])) goto fail;
  for (size_t i = r->nheap / 2; i-- > 0;) xs_sift(r, i);
  return r;
fail:
  if (r) r->s = s;
  xs_close(r);
  return NULL;
}

xs_reader *xs_open(xs_sorter *s) {
  if (s->err[0] || !s->sorted) return NULL;
  return xs_reader_new(s, 1);
}

const void *xs_next(xs_reader *r) {
  xs_sorter *s = r->s;
  if (s->err[0] || !r->nheap) return NULL;
  size_t k = r->heap[0];
  xs_src *w = &r->src[k];
  memcpy(r->cur, xs_head(r, k), s->size);
  if (w->map) w->map(r->cur, w->map_ctx);
  if (++w->pos == w->have) {
    if (w->left) {
      if (xs_fill(r, w)) return NULL;
    } else {
      r->heap[0] = r->heap[--r->nheap];
    }
  }
  xs_sift(r, 0);
  return r->cur;
}

/* ------------------------------------------------------------ writing */

static int xs_write(xs_sorter *s, const char *p, size_t n) {
  return tf_write_all(s->fd, p, n) ? xs_fail(s, "temporary file: cannot write", errno) : 0;
}

/* Merges the chunks into one run at the end of the file; their buffers become spare. */
static int xs_spill(xs_sorter *s) {
  xs_drain(s);
  if (s->fd < 0) {
    char what[160];
    if ((s->fd = tf_open("hta-sort", what, sizeof what)) < 0) return xs_fail(s, what, errno);
  }
  if (s->nruns == s->capruns) {
    size_t c = s->capruns ? 2 * s->capruns : 16;
    xs_run *r = realloc(s->runs, c * sizeof *r);
    if (!r) return xs_fail(s, "out of memory", 0);
    s->runs = r, s->capruns = c;
  }
  size_t per = XS_WINDOW / s->size ? XS_WINDOW / s->size : 1, n = 0;
  xs_reader *r = xs_reader_new(s, 0);
  char *out = malloc(per * s->size);
  if (!r || !out) {
    if (!out) xs_fail(s, "out of memory", 0);
    free(out);
    xs_close(r);
    return -1;
  }
  const void *p;
  int rc = 0;
  while (!rc && (p = xs_next(r))) {
    memcpy(out + n++ * s->size, p, s->size);
    if (n == per) rc = xs_write(s, out, n * s->size), n = 0;
  }
  if (!rc && n) rc = xs_write(s, out, n * s->size);
  free(out);
  xs_close(r);
  if (rc || s->err[0]) return -1;
  s->runs[s->nruns].off = s->end;
  s->runs[s->nruns++].count = s->inmem;
  s->end += (off_t)(s->inmem * s->size);
  s->nchunks = 0, s->inmem = 0;
  return 0;
}

int xs_add(xs_sorter *s, const void *rec) {
  if (s->err[0]) return -1;
  if (!s->nchunks || s->counts[s->nchunks - 1] == s->chunk) {
    if (s->nchunks) xs_sort_chunk(s, s->chunks[s->nchunks - 1], s->chunk);
    if (s->inmem >= s->cap && xs_spill(s)) return -1;
    if (s->nchunks == s->nbufs) { /* no spare buffer */
      if (s->nbufs == s->capbufs) {
        size_t c = s->capbufs ? 2 * s->capbufs : 16;
        char **b = realloc(s->chunks, c * sizeof *b);
        size_t *n = b ? realloc(s->counts, c * sizeof *n) : NULL;
        if (b) s->chunks = b;
        if (!n) return xs_fail(s, "out of memory", 0);
        s->counts = n, s->capbufs = c;
      }
      if (!(s->chunks[s->nbufs] = malloc(s->chunk * s->size)))
        return xs_fail(s, "out of memory", 0);
      s->nbufs++;
    }
    s->counts[s->nchunks++] = 0;
  }
  size_t *n = &s->counts[s->nchunks - 1];
  memcpy(s->chunks[s->nchunks - 1] + (*n)++ * s->size, rec, s->size);
  s->inmem++, s->total++;
  return 0;
}

int xs_absorb(xs_sorter *s, xs_sorter *t, xs_map map, void *ctx) {
  if (s->err[0]) return -1;
  if (t->err[0] || t->size != s->size || t->cmp != s->cmp || t->nmore)
    return xs_fail(s, t->err[0] ? t->err : "cannot absorb that sorter", 0);
  if (xs_sort(t)) return xs_fail(s, t->err, 0);
  size_t n = s->nmore + 1;
  xs_sorter **more = realloc(s->more, n * sizeof *more);
  if (more) s->more = more;
  xs_map *maps = more ? realloc(s->maps, n * sizeof *maps) : NULL;
  if (maps) s->maps = maps;
  void **ctxs = maps ? realloc(s->map_ctx, n * sizeof *ctxs) : NULL;
  if (!ctxs) return xs_fail(s, "out of memory", 0);
  s->map_ctx = ctxs;
  s->more[s->nmore] = t, s->maps[s->nmore] = map, s->map_ctx[s->nmore] = ctx;
  s->nmore++;
  s->total += t->total;
  return 0;
}

int xs_sort(xs_sorter *s) {
  if (s->err[0]) return -1;
  s->sorted = 1;
  if (s->nchunks) qsort(s->chunks[s->nchunks - 1], s->counts[s->nchunks - 1], s->size, s->cmp);
  xs_drain(s);
  xs_helper_stop(s); /* no more chunks: readers only */
  /* Spilled or not, the chunks in memory are read beside the runs: no last spill. */
  for (size_t i = s->nchunks; i < s->nbufs; i++) free(s->chunks[i]); /* spare buffers */
  s->nbufs = s->nchunks;
  return 0;
}

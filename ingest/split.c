/*
** split.c: the second half of a trace file on its own thread. See split.h.
*/
#include "split.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SP_WINDOW (64u << 10) /* bytes searched for a boundary at a time */
#define SP_WINDOWS 16         /* past the middle: events larger than this are rare */

struct sp_half {
  kt_file *kt;
  dv_state *part;
  int (*fn)(void *ctx, const kt_event *e);
  void *ctx;
  pthread_t thread;
  int running;
  atomic_int stop;       /* the first reader asks the second to give up */
  uint64_t at;           /* file offset of its first byte */
  _Atomic uint64_t read; /* bytes it has read, for progress (sp_read) */
  int rc;                /* the second reader's last kt_next(), or KT_ERROR when it gave up */
  int64_t base;          /* seq of its first event, once joined */
};

static int is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Offset of a '{' that follows '}' and ',' (whitespace between) at or after FROM: 0. */
static uint64_t boundary(const char *path, uint64_t from, uint64_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char *buf = malloc(SP_WINDOW);
  uint64_t found = 0;
  for (int w = 0; buf && w < SP_WINDOWS && !found && from < size; w++) {
    ssize_t n = pread(fd, buf, SP_WINDOW, (off_t)from);
    if (n <= 0) break;
    for (ssize_t i = 1; i < n && !found; i++) {
      if (buf[i] != '{') continue;
      ssize_t j = i - 1;
      while (j >= 0 && is_ws(buf[j])) j--;
      if (j < 0 || buf[j] != ',') continue;
      j--;
      while (j >= 0 && is_ws(buf[j])) j--;
      if (j >= 0 && buf[j] == '}') found = from + (uint64_t)i;
    }
    from += (uint64_t)n - (n > 256 ? 256 : 0); /* windows overlap: a boundary may span two */
  }
  free(buf);
  close(fd);
  return found;
}

static void *sp_run(void *arg) {
  sp_half *h = arg;
  const kt_event *e;
  int rc;
  unsigned n = 0;
  while ((rc = kt_next(h->kt, &e)) == KT_EVENT) {
    if ((n & 4095) == 4095) {
      uint64_t raw = kt_raw_offset(h->kt);
      atomic_store_explicit(&h->read, raw > h->at ? raw - h->at : 0, memory_order_relaxed);
    }
    if (dv_add(h->part, e) || h->fn(h->ctx, e) || ((++n & 1023) == 0 && atomic_load(&h->stop))) {
      rc = KT_ERROR; /* gave up: the first reader reads on */
      break;
    }
  }
  h->rc = rc;
  return NULL;
}

uint64_t sp_read(const sp_half *h) {
  return h ? atomic_load_explicit(&((sp_half *)h)->read, memory_order_relaxed) : 0;
}

void sp_free(sp_half *h) {
  if (!h) return;
  if (h->running) {
    atomic_store(&h->stop, 1);
    pthread_join(h->thread, NULL);
  }
  kt_close(h->kt);
  dv_free(h->part);
  free(h);
}

sp_half *sp_start(kt_file *kf, const char *path, dv_state *dv, size_t mem,
                  int (*fn)(void *ctx, const kt_event *e), void *ctx) {
  uint64_t size = kt_file_size(kf), here = kt_json_offset(kf);
  if (!kt_is_plain_file(kf) || size / 2 <= here) return NULL;
  uint64_t at = boundary(path, size / 2, size);
  if (!at) return NULL;
  sp_half *h = calloc(1, sizeof *h);
  char err[KT_ERR_MAX];
  if (!h) return NULL;
  h->base = INT64_MAX;
  h->fn = fn, h->ctx = ctx;
  atomic_init(&h->stop, 0);
  atomic_init(&h->read, 0);
  h->at = at;
  if (!(h->part = dv_new_part(dv, mem)) ||
      kt_open_at(&h->kt, path, at, kt_meta_get(kf)->is_array, KT_FULL, err) != KT_OK ||
      pthread_create(&h->thread, NULL, sp_run, h) != 0) {
    sp_free(h);
    return NULL;
  }
  h->running = 1;
  kt_stop_at(kf, at);
  return h;
}

int sp_join(sp_half *h, kt_file *kf, dv_state *dv) {
  if (!h) return KT_SPLIT;
  if (h->running) pthread_join(h->thread, NULL);
  h->running = 0;
  if (h->rc != KT_END || !kt_can_join(kf, h->kt)) return KT_SPLIT;
  int64_t base = kt_meta_get(kf)->event_count;
  int r = dv_join_part(dv, h->part, base);
  if (r) return r > 0 ? KT_SPLIT : KT_NOMEM;
  int rc = kt_join(kf, h->kt);
  if (rc == KT_END) h->base = base;
  return rc;
}

int sp_joined(const sp_half *h) { return h && h->base != INT64_MAX; }

int64_t sp_base(const sp_half *h) { return h ? h->base : INT64_MAX; }

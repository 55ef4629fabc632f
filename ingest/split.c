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

#define SP_WINDOW (64u << 10)     /* bytes searched for a boundary at a time */
#define SP_WINDOWS 16             /* past the middle: events larger than this are rare */
#define SP_FLOW_BYTES (32u << 20) /* the second half's flows kept for the writer */

/* A flow of the second half, kept to be written while the first half is joined and
** derived (the writer is idle then); its strings follow it. */
typedef struct sp_flow {
  int64_t seq, ts, pid, tid, id; /* id / pid / tid: the integer, when not a string */
  unsigned flags;
  char ph;
  uint8_t str;   /* 1 pid, 2 tid, 4 id: a string */
  uint16_t n[6]; /* bytes of name, cat, bp, pid, tid, id */
} sp_flow;

struct sp_half {
  kt_file *kt;
  dv_state *part;
  pthread_t thread;
  int running;
  atomic_int stop;       /* the first reader asks the second to give up */
  uint64_t at;           /* file offset of its first byte */
  _Atomic uint64_t read; /* bytes it has read, for progress (sp_read) */
  int rc;                /* the second reader's last kt_next(), or KT_ERROR when it gave up */
  int64_t base;          /* seq of its first event, once joined */
  int keep;              /* keeping flows (while they fit) */
  int64_t unkept;        /* local seq of the first flow not kept, INT64_MAX */
  char *flows;           /* sp_flow records */
  size_t nflows, capflows;
};

static int is_flow(char ph) { return ph == 's' || ph == 't' || ph == 'f'; }

/* The strings of a flow: name, cat, bp, then pid, tid, id when strings. */
static void flow_spans(const kt_event *e, const kt_span *s[6]) {
  static const kt_span none = {"", 0};
  s[0] = &e->name, s[1] = &e->cat, s[2] = &e->bp;
  s[3] = e->pid.is_str ? &e->pid.s : &none;
  s[4] = e->tid.is_str ? &e->tid.s : &none;
  s[5] = e->id.is_str ? &e->id.s : &none;
}

/* Keeps flow e: 0, or -1 when it does not fit (too long, over SP_FLOW_BYTES, no memory). */
static int keep_flow(sp_half *h, const kt_event *e) {
  const kt_span *s[6];
  flow_spans(e, s);
  size_t need = sizeof(sp_flow);
  for (int k = 0; k < 6; k++) {
    if (s[k]->n > UINT16_MAX) return -1;
    need += s[k]->n;
  }
  need = (need + 7) & ~(size_t)7;
  if (h->nflows + need > SP_FLOW_BYTES) return -1;
  if (h->nflows + need > h->capflows) {
    size_t cap = h->capflows ? 2 * h->capflows : 1u << 20;
    if (cap > SP_FLOW_BYTES) cap = SP_FLOW_BYTES;
    char *p = realloc(h->flows, cap);
    if (!p) return -1;
    h->flows = p, h->capflows = cap;
  }
  sp_flow f = {e->seq, e->ts, e->pid.i, e->tid.i, e->id.i, e->flags, e->ph, 0, {0}};
  f.str = (uint8_t)(e->pid.is_str | e->tid.is_str << 1 | e->id.is_str << 2);
  char *at = h->flows + h->nflows + sizeof f;
  for (int k = 0; k < 6; k++) {
    f.n[k] = (uint16_t)s[k]->n;
    if (s[k]->n) memcpy(at, s[k]->p, s[k]->n);
    at += s[k]->n;
  }
  memcpy(h->flows + h->nflows, &f, sizeof f);
  h->nflows += need;
  return 0;
}

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
    if (h->keep && is_flow(e->ph) && keep_flow(h, e)) h->keep = 0, h->unkept = e->seq;
    if ((n & 4095) == 4095) {
      uint64_t raw = kt_raw_offset(h->kt);
      atomic_store_explicit(&h->read, raw > h->at ? raw - h->at : 0, memory_order_relaxed);
    }
    if (dv_add(h->part, e) || ((++n & 1023) == 0 && atomic_load(&h->stop))) {
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
  free(h->flows);
  free(h);
}

sp_half *sp_start(kt_file *scan, const char *path, dv_state *dv, size_t mem, int keep_flows) {
  uint64_t size = kt_file_size(scan), here = kt_json_offset(scan);
  if (!kt_is_plain_file(scan) || size / 2 <= here) return NULL;
  uint64_t at = boundary(path, size / 2, size);
  if (!at) return NULL;
  sp_half *h = calloc(1, sizeof *h);
  char err[KT_ERR_MAX];
  if (!h) return NULL;
  h->base = h->unkept = INT64_MAX;
  h->keep = keep_flows;
  atomic_init(&h->stop, 0);
  atomic_init(&h->read, 0);
  h->at = at;
  if (!(h->part = dv_new_part(dv, mem)) ||
      kt_open_at(&h->kt, path, at, kt_meta_get(scan)->is_array, KT_SCAN, err) != KT_OK ||
      pthread_create(&h->thread, NULL, sp_run, h) != 0) {
    sp_free(h);
    return NULL;
  }
  h->running = 1;
  kt_stop_at(scan, at);
  return h;
}

int sp_join(sp_half *h, kt_file *scan, dv_state *dv) {
  if (!h) return KT_SPLIT;
  if (h->running) pthread_join(h->thread, NULL);
  h->running = 0;
  if (h->rc != KT_END || !kt_can_join(scan, h->kt)) return KT_SPLIT;
  int64_t base = kt_meta_get(scan)->event_count;
  int r = dv_join_part(dv, h->part, base);
  if (r) return r > 0 ? KT_SPLIT : KT_NOMEM;
  int rc = kt_join(scan, h->kt);
  if (rc == KT_END) h->base = base;
  return rc;
}

int sp_joined(const sp_half *h) { return h && h->base != INT64_MAX; }

int64_t sp_flows_from(const sp_half *h) {
  if (!sp_joined(h) || h->unkept == INT64_MAX) return INT64_MAX;
  return h->base + h->unkept;
}

int sp_flows(const sp_half *h, int (*fn)(void *ctx, const kt_event *e), void *ctx) {
  if (!sp_joined(h)) return 0;
  for (size_t at = 0; at < h->nflows;) {
    sp_flow f;
    memcpy(&f, h->flows + at, sizeof f);
    kt_event e;
    memset(&e, 0, sizeof e);
    e.seq = h->base + f.seq, e.ts = f.ts, e.flags = f.flags, e.ph = f.ph;
    e.pid.i = f.pid, e.tid.i = f.tid, e.id.i = f.id;
    e.pid.is_str = f.str & 1, e.tid.is_str = (f.str >> 1) & 1, e.id.is_str = (f.str >> 2) & 1;
    kt_span *s[6] = {&e.name, &e.cat, &e.bp, &e.pid.s, &e.tid.s, &e.id.s};
    const char *p = h->flows + at + sizeof f;
    size_t need = sizeof f;
    for (int k = 0; k < 6; k++) s[k]->p = p, s[k]->n = f.n[k], p += f.n[k], need += f.n[k];
    at += (need + 7) & ~(size_t)7;
    int rc = fn(ctx, &e);
    if (rc) return rc;
  }
  return 0;
}

/*
** pipeline.c: parser threads + one writer. See pipeline.h.
**
** HOW IT WORKS
**  1. A parser thread takes the next file and reads it once (KT_FULL): each event
**     goes to derive (dv_add: links, call stacks, iterations need the whole file)
**     and its rows to the file's spool (spool.h), in file order, the content hash
**     computed on the way. When the file is the last one and alone (no other under
**     way) and no trace in the database has its size (so it cannot be a duplicate),
**     the parser takes the writer first (a mutex held for the whole file), sends
**     OPEN, and streams the rows that need nothing derived (flows, threads) to the
**     writer during the pass: its core is otherwise idle then.
**  2. At the end: dv_finish(), then the hash is checked against the database's
**     (and this run's) hashes.
**  3. It takes the writer unless it has it, sends BEGIN, then reads the spool back,
**     sets each event row's derived columns (dv_get_row) and sends batches of up to
**     BT_ROWS rows, then END, or ABORT on an error. The queue holds at most PL_QUEUE
**     batches, so memory is bounded whatever the trace size. Meanwhile other parsers
**     read other files.
**  4. The writer (the thread that called pl_run) turns messages into SQL.
*/
#include "pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "derive.h"
#include "kineto.h"
#include "rank.h"
#include "split.h"
#include "spool.h"
#include "strmap.h"
#include "writer.h"

#define PL_QUEUE 6
/* Bytes bound the queue too, so huge events cannot multiply memory: a batch is sent
** once its arena holds PL_BATCH_BYTES, and a parser waits while PL_QUEUE_BYTES of
** arenas are queued or being written (one batch always passes). */
#define PL_BATCH_BYTES (4u << 20)
#define PL_QUEUE_BYTES (48u << 20)
/* A file's name and category maps start afresh past this (10M distinct names would
** take 400 MB): names seen again are announced again, and the writer finds them
** through the string table's index. */
#define PL_NAMES_BYTES (32u << 20)

typedef enum { M_OPEN, M_BEGIN, M_ROWS, M_END, M_ABORT, M_FAIL, M_SKIP } pl_mtype;

typedef struct pl_msg {
  pl_mtype type;
  int file;
  bt_batch *b;  /* M_ROWS */
  size_t bytes; /* M_ROWS: b's arena capacity, counted in pl_ctx.qbytes */
  wr_file *wf;  /* M_BEGIN / M_END */
  int replace;
  int early; /* M_SKIP: an M_OPEN transaction is to be rolled back */
  struct pl_msg *next;
} pl_msg;

typedef struct pl_ctx {
  pl_file *files;
  int n, next;
  const pl_options *o;
  wr_db *w;
  pthread_mutex_t mu; /* files/next, hashes, queue */
  pthread_cond_t nonempty, nonfull, began;
  pthread_mutex_t writer; /* held by the parser streaming a file */
  pl_msg *head, *tail;
  int qlen, live_workers;
  int inflight;     /* files taken by parsers and not finished */
  size_t qbytes;    /* arena bytes of M_ROWS batches queued or being written */
  int begin_result; /* writer's answer to the last M_OPEN/M_BEGIN: 0 ok, -1 failed */
  int begin_answered;
} pl_ctx;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void send(pl_ctx *c, pl_msg *m) {
  pthread_mutex_lock(&c->mu);
  if (m->type == M_ROWS) {
    m->bytes = m->b->cap;
    while (c->qlen >= PL_QUEUE || (c->qbytes && c->qbytes + m->bytes > PL_QUEUE_BYTES))
      pthread_cond_wait(&c->nonfull, &c->mu);
    c->qbytes += m->bytes;
  }
  m->next = NULL;
  if (c->tail) c->tail->next = m;
  else c->head = m;
  c->tail = m;
  c->qlen++;
  pthread_cond_signal(&c->nonempty);
  pthread_mutex_unlock(&c->mu);
}

static pl_msg *new_msg(pl_mtype t, int file) {
  pl_msg *m = calloc(1, sizeof *m);
  if (m) m->type = t, m->file = file;
  return m;
}

/* ---------------------------------------------------------------- parser side */

typedef struct pl_local {
  sm_map names, cats;
  uint32_t top; /* 1 + the largest id given (the maps may have started afresh since) */
} pl_local;

/* Local id of a string, announcing it in batch b when first seen. */
static uint32_t local_id(pl_local *l, bt_batch *b, int is_cat, const kt_span *s, int *oom) {
  int added;
  int64_t id = sm_intern(is_cat ? &l->cats : &l->names, s->p, s->n, &added);
  if (id < 0 || (added && bt_add_str(b, is_cat, (uint32_t)id, s->p, s->n))) {
    *oom = 1;
    return BT_NONE;
  }
  if ((uint32_t)id >= l->top) l->top = (uint32_t)id + 1;
  return (uint32_t)id;
}

static int put_val(bt_batch *b, bt_val *v, const kt_value *k) {
  if (k->is_str) {
    v->off = bt_put(b, k->s.p, k->s.n);
    v->len = (int32_t)k->s.n;
    return v->off == UINT32_MAX ? -1 : 0;
  }
  v->i = k->i;
  v->len = -1;
  return 0;
}

/* Adds the rows of one event to b, announcing new strings in sb (b, or the batch that
** reaches the writer first). Event rows get their derived columns later (fill_derived).
** 0, or -1 on OOM. */
static int add_rows(bt_batch *b, bt_batch *sb, pl_local *l, const kt_event *e) {
  int oom = 0;
  bt_row *r = &b->rows[b->nrows];
  memset(r, 0, sizeof *r);
  r->seq = e->seq;
  r->ph = e->ph;
  r->cat = r->name = BT_NONE;
  r->depth = -1;
  unsigned f = e->flags;
  if ((f & KT_HAS_PID) && put_val(b, &r->pid, &e->pid)) return -1;
  if ((f & KT_HAS_PID)) r->has |= BT_PID;
  if ((f & KT_HAS_TID) && put_val(b, &r->tid, &e->tid)) return -1;
  if ((f & KT_HAS_TID)) r->has |= BT_TID;
  if (f & KT_HAS_TS) r->has |= BT_TS, r->ts = e->ts;
  if (e->ph == 'M') {
    kt_span nm = e->name;
    int which = 0;
    if (nm.n == 12 && !memcmp(nm.p, "process_name", 12)) which = 1;
    else if (nm.n == 11 && !memcmp(nm.p, "thread_name", 11)) which = 2;
    else if (nm.n >= 10 && !memcmp(nm.p + nm.n - 10, "sort_index", 10) && (f & KT_HAS_SORT_INDEX))
      which = 3;
    if (!which || (which < 3 && !e->meta_name.p)) return 0;
    r->kind = BT_THREAD;
    r->value = which;
    r->iteration = e->sort_index;
    if (which < 3) {
      r->text_off = bt_put(b, e->meta_name.p, e->meta_name.n);
      r->text_len = (uint32_t)e->meta_name.n;
      if (r->text_off == UINT32_MAX) return -1;
    }
    b->nrows++;
    return 0;
  }
  if (e->ph == 'C') {
    uint32_t name = (f & KT_HAS_NAME) ? local_id(l, sb, 0, &e->name, &oom) : BT_NONE;
    for (int i = 0; i < e->ncounters && b->nrows < BT_ROWS; i++) {
      bt_row *c = &b->rows[b->nrows];
      if (i) *c = *r;
      c->kind = BT_COUNTER;
      c->name = name;
      c->value = e->counters[i].value;
      c->text_off = bt_put(b, e->counters[i].key.p, e->counters[i].key.n);
      c->text_len = (uint32_t)e->counters[i].key.n;
      if (c->text_off == UINT32_MAX) return -1;
      b->nrows++;
    }
    return oom ? -1 : 0;
  }
  if (f & KT_HAS_NAME) r->name = local_id(l, sb, 0, &e->name, &oom);
  if (f & KT_HAS_CAT) r->cat = local_id(l, sb, 1, &e->cat, &oom);
  if (oom) return -1;
  if (e->ph == 's' || e->ph == 't' || e->ph == 'f') {
    r->kind = BT_FLOW;
    if (f & KT_HAS_ID) {
      if (put_val(b, &r->id, &e->id)) return -1;
      r->has |= BT_ID;
    }
    if (e->bp.n) {
      r->text_off = bt_put(b, e->bp.p, e->bp.n);
      r->text_len = (uint32_t)e->bp.n;
    }
    b->nrows++;
    return 0;
  }
  unsigned cls = dv_row_class(e);
  if (!cls) return 0; /* no timestamp: counted by derive as no_timestamp */
  r->kind = BT_EVENT;
  r->dv = (uint8_t)cls;
  if (f & KT_HAS_DUR) r->has |= BT_DUR, r->dur = e->dur;
  if ((f & KT_HAS_STREAM) && (f & KT_GPU_WORK)) r->has |= BT_STREAM, r->stream = e->stream;
  if (f & KT_HAS_DEVICE) r->has |= BT_DEVICE, r->device = e->device;
  if (f & KT_HAS_CORRELATION) r->has |= BT_CORR, r->corr = e->correlation;
  if (f & KT_HAS_EXTERNAL_ID) r->has |= BT_EXT, r->ext = e->external_id;
  if (e->args.n) {
    r->text_off = bt_put(b, e->args.p, e->args.n);
    r->text_len = (uint32_t)e->args.n;
    if (r->text_off == UINT32_MAX) return -1;
    r->has |= BT_ARGS;
  }
  b->nrows++;
  return 0;
}

/* Sets the derived columns of b's event rows (the file's dv_finish() done, batches in
** file order) and drops the E events folded into their B. The event rows left, or -1. */
static int fill_derived(bt_batch *b, dv_state *dv) {
  size_t k = 0;
  int events = 0;
  for (size_t i = 0; i < b->nrows; i++) {
    bt_row *r = &b->rows[i];
    if (r->kind == BT_EVENT) {
      dv_row d;
      if (dv_get_row(dv, r->seq, r->dv, r->ts, &d)) return -1;
      if (d.skip || d.ord < 0) continue;
      r->ord = d.ord;
      if (d.has_dur) r->has |= BT_DUR, r->dur = d.dur, r->ph = 'X';
      if (d.link >= 0) r->has |= BT_LINK, r->link = d.link;
      if (d.parent >= 0) r->has |= BT_PARENT, r->parent = d.parent;
      r->depth = d.depth;
      if (d.has_iteration) r->has |= BT_ITER, r->iteration = d.iteration;
      events++;
    }
    if (k != i) b->rows[k] = *r;
    k++;
  }
  b->nrows = k;
  return events;
}

static void fail_file(pl_ctx *c, int i, const char *msg) {
  pl_file *pf = &c->files[i];
  snprintf(pf->message, sizeof pf->message, "%.700s", msg);
  pl_msg *m = new_msg(M_FAIL, i);
  if (m) {
    pthread_mutex_lock(&c->writer);
    send(c, m);
    pthread_mutex_unlock(&c->writer);
  } else {
    pf->status = PL_FAILED;
    pf->pass = 3;
  }
}

static void hex_hash(char out[48], uint64_t h, uint64_t size) {
  snprintf(out, 48, "%016llx-%llu", (unsigned long long)h, (unsigned long long)size);
}

/* Sends M (M_OPEN or M_BEGIN) and waits for the writer's answer: 1 when it began. */
static int ask(pl_ctx *c, pl_msg *m) {
  pthread_mutex_lock(&c->mu);
  c->begin_answered = 0;
  pthread_mutex_unlock(&c->mu);
  send(c, m);
  pthread_mutex_lock(&c->mu);
  while (!c->begin_answered) pthread_cond_wait(&c->began, &c->mu);
  int ok = c->begin_result == 0;
  pthread_mutex_unlock(&c->mu);
  return ok;
}

/* Waits until the writer is done with file PF (it may use wf, meta and dv until then). */
static void wait_done(pl_ctx *c, const pl_file *pf) {
  pthread_mutex_lock(&c->mu);
  while (pf->pass != 3) pthread_cond_wait(&c->began, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

/* Tells the writer that file I is skipped (pf->message says why) and, when this thread
** holds the writer, waits until it is done with the file. */
static void skip_file(pl_ctx *c, int i, int early, int have_writer) {
  pl_msg *sk = new_msg(M_SKIP, i);
  if (!sk) return;
  sk->early = early;
  send(c, sk);
  if (have_writer) wait_done(c, &c->files[i]);
}

/* 1 when a trace of SIZE bytes is in the database or this run (content hashes end in
** "-SIZE"): a file of that size may be a duplicate, so its scan writes nothing. */
static int size_seen(pl_ctx *c, uint64_t size) {
  char tail[32];
  int tn = snprintf(tail, sizeof tail, "-%llu", (unsigned long long)size);
  int seen = 0;
  pthread_mutex_lock(&c->mu);
  const sm_map *hs = wr_hashes(c->w);
  for (size_t k = 0; k < hs->n && !seen; k++) {
    size_t n = sm_len(hs, k);
    seen = n >= (size_t)tn && !memcmp(sm_key(hs, k) + n - (size_t)tn, tail, (size_t)tn);
  }
  pthread_mutex_unlock(&c->mu);
  return seen;
}

/* Rows the writer can take before the file's trace row: flows and threads (counters
** carry the rank, known at the end). */
static int needs_no_trace(const kt_event *e) {
  return e->ph == 'M' || e->ph == 's' || e->ph == 't' || e->ph == 'f';
}

static int send_rows(pl_ctx *c, int i, bt_batch *b) {
  pl_msg *m = new_msg(M_ROWS, i);
  if (!m) return -1;
  m->b = b;
  send(c, m);
  return 0;
}

/* One file's pass: its rows go to its spool in file order (event rows wait there for
** their derived columns), except that while the parser holds the writer early the
** rows that need nothing derived nor the trace row (flows, threads) go straight to the writer
** in fb, which then also announces every string: fb reaches the writer before the
** spool is replayed. */
typedef struct pl_pass {
  pl_ctx *c;
  int i;
  pl_local loc;
  bt_batch *b;  /* the spool's next batch */
  bt_batch *fb; /* early: rows sent during the pass; NULL otherwise */
  so_spool *so;
  int64_t nput; /* batches spooled */
  const char *why;
} pl_pass;

static int pass_oom(pl_pass *p) {
  p->why = "out of memory";
  return -1;
}

/* Spools b. Past PL_NAMES_BYTES the name maps start afresh here, where b is empty:
** strings seen again are announced again, and early ends (fb sent), as announcements
** in fb would reach the writer before spooled rows that read the older ids. */
static int spool_batch(pl_pass *p) {
  if (so_put(p->so, p->b)) {
    p->why = so_error(p->so);
    return -1;
  }
  if (p->b->nrows || p->b->nstrs) p->nput++;
  bt_reset(p->b);
  if (sm_bytes(&p->loc.names) + sm_bytes(&p->loc.cats) <= PL_NAMES_BYTES) return 0;
  if (p->fb) {
    if (send_rows(p->c, p->i, p->fb)) return pass_oom(p);
    p->fb = NULL;
  }
  sm_free(&p->loc.names);
  sm_free(&p->loc.cats);
  return 0;
}

static int pass_event(pl_pass *p, const kt_event *e) {
  size_t need = (size_t)(e->ncounters > 1 ? e->ncounters : 1);
  if (p->fb && needs_no_trace(e)) {
    if (p->fb->nrows + need > BT_ROWS || p->fb->used >= PL_BATCH_BYTES) {
      if (send_rows(p->c, p->i, p->fb)) return pass_oom(p);
      if (!(p->fb = bt_new())) return pass_oom(p);
    }
    return add_rows(p->fb, p->fb, &p->loc, e) ? pass_oom(p) : 0;
  }
  if ((p->b->nrows + need > BT_ROWS || p->b->used >= PL_BATCH_BYTES) && spool_batch(p)) return -1;
  return add_rows(p->b, p->fb ? p->fb : p->b, &p->loc, e) ? pass_oom(p) : 0;
}

/* The second half of a split file (split.h) spools its rows as the first does, with
** seq counted from its start and string ids of its own; its thread calls this. */
static int half_event(void *ctx, const kt_event *e) { return pass_event(ctx, e); }

static void pass_free(pl_pass *p) {
  bt_free(p->b);
  bt_free(p->fb);
  so_free(p->so);
  sm_free(&p->loc.names);
  sm_free(&p->loc.cats);
  memset(p, 0, sizeof *p);
}

/* Sends the rows of spool P with their derived columns; a second half's (BASE > 0) have
** their seq moved by BASE and their string ids by IDS, above the first half's. Returns
** the event rows sent, or -1 with msg set. */
static int64_t replay(pl_ctx *c, int i, pl_pass *p, dv_state *dv, int64_t base, uint32_t ids,
                      uint64_t *sent, uint64_t total, char *msg, size_t msglen) {
  pl_file *pf = &c->files[i];
  int64_t events = 0;
  for (;;) {
    bt_batch *out = bt_new();
    int g = out ? so_get(p->so, out) : -1;
    if (g > 0 && base) {
      for (size_t k = 0; k < out->nstrs; k++) out->strs[k].local += ids;
      for (size_t k = 0; k < out->nrows; k++) {
        bt_row *r = &out->rows[k];
        r->seq += base;
        if (r->name != BT_NONE) r->name += ids;
        if (r->cat != BT_NONE) r->cat += ids;
      }
    }
    int n = g > 0 ? fill_derived(out, dv) : 0;
    if (g < 0 || n < 0) {
      snprintf(msg, msglen, "%s", !out ? "out of memory" : g < 0 ? so_error(p->so) : dv_error(dv));
      bt_free(out);
      return -1;
    }
    if (g == 0) {
      bt_free(out);
      return events;
    }
    events += n;
    if (send_rows(c, i, out)) {
      snprintf(msg, msglen, "out of memory");
      bt_free(out);
      return -1;
    }
    /* progress: the spools' batches stand for the file's bytes */
    uint64_t raw = total ? pf->size * ++*sent / total : 0;
    atomic_store_explicit(&pf->full_raw, raw, memory_order_relaxed);
  }
}

static void parse_file(pl_ctx *c, int i) {
  pl_file *pf = &c->files[i];
  char err[KT_ERR_MAX], msg[400] = "";
  kt_file *kf = NULL;
  dv_state *dv = NULL;
  wr_file *wf = NULL;
  pl_pass p, p2; /* p2: the second half of a split file (split.h) */
  sp_half *half = NULL;
  memset(&p, 0, sizeof p);
  memset(&p2, 0, sizeof p2);
  p.c = c, p.i = i;
  sm_init(&p.loc.names);
  sm_init(&p.loc.cats);
  const kt_event *e;
  int rc, have_writer = 0, early = 0;
  pf->pass = 1;
  double t0 = now_s();
  if (kt_open(&kf, pf->path, KT_FULL, err) != KT_OK) {
    fail_file(c, i, err);
    goto done;
  }
  if (!(dv = dv_new(c->o->sort_mem)) || !(p.so = so_new(c->o->spool_mem)) || !(p.b = bt_new())) {
    fail_file(c, i, "out of memory");
    goto done;
  }
  /* Early: rows that need nothing derived go to the writer during the pass (step 1),
  ** when this is the last file and the only one under way: holding the writer through
  ** a pass would keep another file, already read, from being written. */
  pthread_mutex_lock(&c->mu);
  int alone = c->next >= c->n && c->inflight == 1;
  pthread_mutex_unlock(&c->mu);
  if (alone && !size_seen(c, kt_file_size(kf)) && pthread_mutex_trylock(&c->writer) == 0) {
    have_writer = 1;
    pl_msg *om = new_msg(M_OPEN, i);
    if (om && !ask(c, om)) goto done; /* the writer recorded the failure */
    early = om != NULL;
    if (early && !(p.fb = bt_new())) { /* a transaction is open: close it through the abort path */
      snprintf(msg, sizeof msg, "out of memory");
      rc = KT_NOMEM;
      goto abort;
    }
  }
  /* Alone, a large plain file is read in two halves at once (split.h). */
  int try_split = alone && c->o->split_min && kt_file_size(kf) >= c->o->split_min;
  uint64_t nev = 0;
  while ((rc = kt_next(kf, &e)) == KT_EVENT || rc == KT_SPLIT) {
    if (rc == KT_SPLIT) {
      rc = sp_join(half, kf, dv);
      if (rc == KT_NOMEM) p.why = dv_error(dv);
      if (rc != KT_SPLIT) break;
      sp_free(half), half = NULL; /* read on alone: the second half's rows are not wanted */
      pass_free(&p2);
      continue;
    }
    if (try_split) {
      try_split = 0;
      p2.c = c, p2.i = i;
      sm_init(&p2.loc.names);
      sm_init(&p2.loc.cats);
      if ((p2.so = so_new(c->o->spool_mem)) && (p2.b = bt_new()))
        half = sp_start(kf, pf->path, dv, c->o->sort_mem / 2, half_event, &p2);
      if (!half) pass_free(&p2);
    }
    if (dv_add(dv, e)) {
      p.why = dv_error(dv);
      rc = KT_NOMEM;
      break;
    }
    if (pass_event(&p, e)) {
      rc = KT_NOMEM;
      break;
    }
    if ((++nev & 4095) == 0) { /* both halves; never backwards (a half given up is read again) */
      uint64_t raw = kt_raw_offset(kf) + sp_read(half);
      if (raw > atomic_load_explicit(&pf->scan_raw, memory_order_relaxed))
        atomic_store_explicit(&pf->scan_raw, raw, memory_order_relaxed);
    }
  }
  if (!sp_joined(half)) sp_free(half), half = NULL, pass_free(&p2); /* a wrong guess, an error */
  pf->halves = half != NULL;
  int64_t base = sp_base(half);
  sp_free(half), half = NULL;
  if (rc == KT_END && p.fb) { /* the last of the rows sent during the pass */
    if (send_rows(c, i, p.fb)) rc = KT_NOMEM, p.why = "out of memory";
    else p.fb = NULL;
  }
  if (rc == KT_END && spool_batch(&p)) rc = KT_NOMEM;
  if (rc == KT_END && so_rewind(p.so)) rc = KT_NOMEM, p.why = so_error(p.so);
  if (rc == KT_END && p2.so && (spool_batch(&p2) || so_rewind(p2.so)))
    rc = KT_NOMEM, p.why = p2.why ? p2.why : so_error(p2.so);
  if (rc == KT_END && dv_finish(dv)) rc = KT_NOMEM, p.why = dv_error(dv);
  if (rc != KT_END) {
    snprintf(msg, sizeof msg, "%s", rc == KT_NOMEM && p.why ? p.why : kt_errmsg(kf));
    pf->not_a_trace = rc == KT_ERROR && kt_not_a_trace(kf);
    if (early) goto abort;
    if (have_writer) pthread_mutex_unlock(&c->writer), have_writer = 0;
    fail_file(c, i, msg);
    goto done;
  }
  const kt_meta *meta = kt_meta_get(kf);
  pf->scan_s = now_s() - t0;
  pf->spilled = dv_spilled(dv) + so_spilled(p.so) + (p2.so ? so_spilled(p2.so) : 0);
  pf->write_start = now_s();
  pf->json_bytes = kt_json_offset(kf);
  atomic_store_explicit(&pf->scan_raw, kt_file_size(kf), memory_order_relaxed);
  int64_t rank;
  const char *rank_source = "distributedInfo";
  if (meta->has_rank) rank = meta->rank;
  else if (rk_from_name(pf->path, &rank)) rank_source = "file_name";
  else rank = 0, rank_source = "default";
  pf->rank = rank;
  if (c->o->has_ranks && (rank < c->o->rank_lo || rank > c->o->rank_hi)) {
    snprintf(pf->message, sizeof pf->message, "rank %lld not in %lld-%lld", (long long)rank,
             (long long)c->o->rank_lo, (long long)c->o->rank_hi);
    pf->off_range = 1;
    skip_file(c, i, early, have_writer);
    goto done;
  }
  char hash[48];
  hex_hash(hash, kt_content_hash(kf), kt_file_size(kf));
  int replace = 0;
  char key[1100];
  int keylen = wr_hash_key(key, sizeof key, pf->job, hash);
  if (keylen < 0) keylen = (int)strlen(key); /* a job name of over 1 KB: cut, still unique enough */
  pthread_mutex_lock(&c->mu);
  int added;
  sm_map *hs = wr_hashes(c->w);
  int64_t known = sm_find(hs, key, (size_t)keylen);
  if (known >= 0 && !c->o->replace) {
    pthread_mutex_unlock(&c->mu);
    snprintf(pf->message, sizeof pf->message, "already ingested (same content)");
    skip_file(c, i, early, have_writer);
    goto done;
  }
  replace = known >= 0;
  sm_intern(hs, key, (size_t)keylen, &added);
  pthread_mutex_unlock(&c->mu);
  if (!(wf = calloc(1, sizeof *wf))) {
    snprintf(msg, sizeof msg, "out of memory");
    rc = KT_NOMEM;
    if (early) goto abort;
    fail_file(c, i, msg);
    goto done;
  }
  wf->path = pf->path;
  wf->file_size = (int64_t)kt_file_size(kf);
  wf->hash = hash;
  wf->meta = meta;
  wf->dv = dv;
  wf->rank = rank;
  wf->rank_source = rank_source;
  wf->job = pf->job;
  wf->job_source = pf->job_source;
  wf->capture = pf->capture;

  if (!have_writer) pthread_mutex_lock(&c->writer), have_writer = 1;
  pl_msg *m = new_msg(M_BEGIN, i);
  if (!m) {
    snprintf(msg, sizeof msg, "out of memory");
    rc = KT_NOMEM;
    goto abort;
  }
  m->wf = wf;
  m->replace = replace;
  if (!ask(c, m)) goto done; /* the writer recorded the failure */
  pf->pass = 2;
  /* The spools, in file order, with the derived columns: the second half's string ids
  ** go above every id of the first's. */
  uint64_t sent = 0, total = (uint64_t)(p.nput + p2.nput);
  int64_t events = replay(c, i, &p, dv, 0, 0, &sent, total, msg, sizeof msg), more = 0;
  if (events >= 0 && p2.so)
    more = replay(c, i, &p2, dv, base, p.loc.top, &sent, total, msg, sizeof msg);
  if (events < 0 || more < 0) rc = KT_NOMEM;
  else events += more;
  if (rc == KT_END) {
    pl_msg *em = new_msg(M_END, i);
    if (em) {
      wf->event_rows = events;
      pf->events = events;
      em->wf = wf;
      send(c, em);
      wf = NULL; /* the writer frees it */
      wait_done(c, pf);
      goto done;
    }
    rc = KT_NOMEM;
    snprintf(msg, sizeof msg, "out of memory");
  }
abort: /* holding the writer, with a transaction open: roll it back, record the failure */
  snprintf(pf->message, sizeof pf->message, "%.700s", msg);
  pl_msg *am = new_msg(M_ABORT, i);
  if (am) {
    send(c, am);
    wait_done(c, pf);
  }
done:
  if (have_writer) pthread_mutex_unlock(&c->writer);
  sp_free(half);
  pass_free(&p);
  pass_free(&p2);
  free(wf);
  dv_free(dv);
  kt_close(kf);
}

static double cpu_s(clockid_t clock) {
  struct timespec t;
  if (clock_gettime(clock, &t)) return 0;
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg) {
  pl_ctx *c = arg;
  for (;;) {
    pthread_mutex_lock(&c->mu);
    int i = c->next < c->n ? c->next++ : -1;
    if (i >= 0) c->inflight++;
    pthread_mutex_unlock(&c->mu);
    if (i < 0) break;
    parse_file(c, i);
    pthread_mutex_lock(&c->mu);
    c->inflight--;
    pthread_mutex_unlock(&c->mu);
  }
  pthread_mutex_lock(&c->mu);
  c->live_workers--;
  pthread_cond_signal(&c->nonempty);
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

/* ---------------------------------------------------------------- writer side */

static void finish_file(pl_ctx *c, int i, pl_status st) {
  pl_file *pf = &c->files[i];
  pthread_mutex_lock(&c->mu);
  pf->status = st;
  if (pf->write_start > 0) pf->write_s = now_s() - pf->write_start;
  pf->pass = 3;
  pthread_cond_broadcast(&c->began);
  pthread_mutex_unlock(&c->mu);
  if (c->o->done) c->o->done(c->o->ctx, pf);
}

static void handle(pl_ctx *c, pl_msg *m, int *failed_file) {
  char err[WR_ERR_MAX];
  pl_file *pf = &c->files[m->file];
  switch (m->type) {
  case M_SKIP:
    if (m->early) wr_abort(c->w); /* the flows written during the scan */
    finish_file(c, m->file, PL_SKIPPED);
    break;
  case M_FAIL:
    wr_record_failure(c->w, pf->path, pf->message);
    finish_file(c, m->file, PL_FAILED);
    break;
  case M_OPEN:
  case M_BEGIN: {
    /* after a failed M_ROWS of the scan its transaction is gone: never begin anew */
    int r = *failed_file == m->file ? -1
            : m->type == M_OPEN     ? wr_open_file(c->w, err)
                                    : wr_begin(c->w, m->wf, m->replace, err);
    if (r) {
      if (*failed_file != m->file) {
        wr_abort(c->w);
        snprintf(pf->message, sizeof pf->message, "database: %.600s", err);
      }
      wr_record_failure(c->w, pf->path, pf->message);
    }
    pthread_mutex_lock(&c->mu); /* the answer ask() waits for */
    c->begin_result = r;
    c->begin_answered = 1;
    pthread_cond_broadcast(&c->began);
    pthread_mutex_unlock(&c->mu);
    *failed_file = r ? m->file : -1;
    if (r) finish_file(c, m->file, PL_FAILED);
    break;
  }
  case M_ROWS:
    if (*failed_file != m->file && wr_rows(c->w, m->b, err)) {
      wr_abort(c->w);
      snprintf(pf->message, sizeof pf->message, "database: %.600s", err);
      *failed_file = m->file;
    }
    bt_free(m->b);
    break;
  case M_END:
    if (*failed_file == m->file) {
      wr_record_failure(c->w, pf->path, pf->message);
      finish_file(c, m->file, PL_FAILED);
    } else if (wr_end(c->w, m->wf, err)) {
      wr_abort(c->w);
      snprintf(pf->message, sizeof pf->message, "database: %.600s", err);
      wr_record_failure(c->w, pf->path, pf->message);
      finish_file(c, m->file, PL_FAILED);
    } else {
      finish_file(c, m->file, PL_OK);
    }
    free(m->wf);
    break;
  case M_ABORT:
    if (*failed_file != m->file) wr_abort(c->w);
    wr_record_failure(c->w, pf->path, pf->message);
    finish_file(c, m->file, PL_FAILED);
    break;
  }
  if (m->type == M_ROWS) {
    pthread_mutex_lock(&c->mu);
    c->qbytes -= m->bytes;
    pthread_cond_signal(&c->nonfull);
    pthread_mutex_unlock(&c->mu);
  }
  free(m);
}

int pl_run(const char *db, pl_file *files, int n, const pl_options *o, pl_stats *stats, char *err,
           int errlen) {
  char werr[WR_ERR_MAX];
  pl_ctx c;
  memset(&c, 0, sizeof c);
  c.files = files;
  c.n = n;
  c.o = o;
  if (wr_open(&c.w, db, werr)) {
    snprintf(err, (size_t)errlen, "%s", werr);
    wr_close(c.w, 0, werr);
    return -1;
  }
  if (stats) stats->upgraded = wr_upgraded(c.w, &stats->up_traces, &stats->up_jobs);
  pthread_mutex_init(&c.mu, NULL);
  pthread_mutex_init(&c.writer, NULL);
  pthread_cond_init(&c.nonempty, NULL);
  pthread_cond_init(&c.nonfull, NULL);
  pthread_cond_init(&c.began, NULL);
  int nt = o->jobs < 1 ? 1 : o->jobs > n ? n : o->jobs;
  pthread_t *th = calloc((size_t)(nt ? nt : 1), sizeof *th);
  if (!th) nt = 0;
  c.live_workers = nt;
  for (int t = 0; t < nt; t++)
    if (pthread_create(&th[t], NULL, worker, &c)) {
      c.live_workers = t;
      nt = t;
      break;
    }
  if (nt == 0 &&
      n > 0) { /* no thread could start: parse on this thread is impossible (it writes) */
    snprintf(err, (size_t)errlen, "cannot start a parser thread");
    free(th);
    wr_close(c.w, 0, werr);
    return -1;
  }
  double t0 = now_s(), last = 0;
  int failed_file = -1;
  for (;;) {
    pthread_mutex_lock(&c.mu);
    while (!c.head && c.live_workers > 0) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += 160 * 1000000L;
      if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
      int r = pthread_cond_timedwait(&c.nonempty, &c.mu, &ts);
      if (r == ETIMEDOUT) break;
    }
    pl_msg *m = c.head;
    if (m) {
      c.head = m->next;
      if (!c.head) c.tail = NULL;
      c.qlen--;
    }
    int live = c.live_workers;
    pthread_mutex_unlock(&c.mu);
    double t = now_s();
    if (o->progress && t - last > 0.16) {
      o->progress(o->ctx, files, n, t - t0);
      last = t;
    }
    if (m) handle(&c, m, &failed_file);
    else if (live == 0) break;
  }
  for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
  free(th);
  double f0 = now_s();
  int rc = wr_close(c.w, 1, werr);
  if (stats) {
    stats->finish_s = now_s() - f0;
    stats->writer_cpu = cpu_s(CLOCK_THREAD_CPUTIME_ID);
    /* every other thread: parsers and gzip inflaters */
    stats->other_cpu = cpu_s(CLOCK_PROCESS_CPUTIME_ID) - stats->writer_cpu;
  }
  if (rc) snprintf(err, (size_t)errlen, "%s", werr);
  pthread_mutex_destroy(&c.mu);
  pthread_mutex_destroy(&c.writer);
  pthread_cond_destroy(&c.nonempty);
  pthread_cond_destroy(&c.nonfull);
  pthread_cond_destroy(&c.began);
  return rc;
}

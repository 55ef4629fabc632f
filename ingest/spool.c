/*
** spool.c: a file's row batches between its pass and the writer. See spool.h.
**
** A batch is framed as [u32 payload bytes][payload]; the payload is three u32 counts
** (rows, strings, arena bytes), the strings (is_cat, then varints), the arena as it
** is, then the rows: kind, ph, has (2 bytes), dv (1 byte), then varints of the fields
** present.
*/
#include "spool.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpfile.h"

#define SO_IO (1u << 20) /* file buffer */

struct so_spool {
  size_t mem;             /* bytes kept in memory at most */
  unsigned char *m;       /* the stream's first bytes */
  size_t mn, mcap, mpos;  /* used, allocated, read position */
  int fd;                 /* the rest, or -1 */
  unsigned char *io;      /* write buffer, then read buffer */
  size_t ion, iopos;      /* bytes in io, read position */
  long long spilled;      /* bytes written to fd */
  int reading, file_used; /* file_used: the stream went on in the file */
  unsigned char *enc;     /* one batch's encoding */
  size_t encn, enccap;
  char err[200];
};

static int so_fail(so_spool *s, const char *what, int errnum) {
  if (!s->err[0]) {
    if (errnum) snprintf(s->err, sizeof s->err, "%s: %s", what, strerror(errnum));
    else snprintf(s->err, sizeof s->err, "%s", what);
  }
  return -1;
}

so_spool *so_new(size_t mem) {
  so_spool *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->mem = mem;
  s->fd = -1;
  return s;
}

void so_free(so_spool *s) {
  if (!s) return;
  if (s->fd >= 0) close(s->fd);
  free(s->m);
  free(s->io);
  free(s->enc);
  free(s);
}

const char *so_error(const so_spool *s) { return s->err[0] ? s->err : NULL; }
long long so_spilled(const so_spool *s) { return s->spilled; }

/* ------------------------------------------------------------ the byte stream */

static int so_flush(so_spool *s) {
  if (tf_write_all(s->fd, s->io, s->ion)) return so_fail(s, "temporary file: cannot write", errno);
  s->spilled += (long long)s->ion;
  s->ion = 0;
  return 0;
}

static int so_write(so_spool *s, const void *p, size_t n) {
  if (!s->file_used && s->mn + n <= s->mem) {
    if (s->mn + n > s->mcap) {
      size_t c = s->mcap ? s->mcap : 1u << 16;
      while (c < s->mn + n) c *= 2;
      if (c > s->mem) c = s->mem;
      unsigned char *q = realloc(s->m, c);
      if (!q) return so_fail(s, "out of memory", 0);
      s->m = q, s->mcap = c;
    }
    memcpy(s->m + s->mn, p, n);
    s->mn += n;
    return 0;
  }
  if (!s->file_used) {
    char what[160];
    if ((s->fd = tf_open("hta-spool", what, sizeof what)) < 0) return so_fail(s, what, errno);
    if (!(s->io = malloc(SO_IO))) return so_fail(s, "out of memory", 0);
    s->file_used = 1;
  }
  const unsigned char *q = p;
  while (n) {
    size_t k = SO_IO - s->ion < n ? SO_IO - s->ion : n;
    memcpy(s->io + s->ion, q, k);
    s->ion += k, q += k, n -= k;
    if (s->ion == SO_IO && so_flush(s)) return -1;
  }
  return 0;
}

static int so_read(so_spool *s, void *p, size_t n) {
  unsigned char *q = p;
  size_t k = s->mn - s->mpos < n ? s->mn - s->mpos : n;
  if (k) memcpy(q, s->m + s->mpos, k); /* s->m is NULL until something is kept */
  s->mpos += k, q += k, n -= k;
  while (n) {
    if (s->iopos == s->ion) {
      ssize_t r = s->fd >= 0 ? read(s->fd, s->io, SO_IO) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return so_fail(s, "temporary file: cannot read", errno);
      if (r == 0) return so_fail(s, "temporary file: cut short", 0);
      s->ion = (size_t)r, s->iopos = 0;
    }
    k = s->ion - s->iopos < n ? s->ion - s->iopos : n;
    memcpy(q, s->io + s->iopos, k);
    s->iopos += k, q += k, n -= k;
  }
  return 0;
}

/* 1 while unread bytes remain. */
static int so_more(so_spool *s) {
  if (s->mpos < s->mn || s->iopos < s->ion) return 1;
  if (s->fd < 0) return 0;
  for (;;) {
    ssize_t r = read(s->fd, s->io, SO_IO);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return so_fail(s, "temporary file: cannot read", errno);
    s->ion = (size_t)r, s->iopos = 0;
    return r > 0;
  }
}

int so_rewind(so_spool *s) {
  if (s->err[0]) return -1;
  if (s->file_used) {
    if (so_flush(s)) return -1;
    if (lseek(s->fd, 0, SEEK_SET) != 0) return so_fail(s, "temporary file: cannot seek", errno);
  }
  s->reading = 1;
  s->mpos = s->ion = s->iopos = 0;
  return 0;
}

/* ------------------------------------------------------------ encoding */

static int enc_room(so_spool *s, size_t n) {
  if (s->encn + n <= s->enccap) return 0;
  size_t c = s->enccap ? s->enccap : 1u << 16;
  while (c < s->encn + n) c *= 2;
  unsigned char *q = realloc(s->enc, c);
  if (!q) return so_fail(s, "out of memory", 0);
  s->enc = q, s->enccap = c;
  return 0;
}

/* Callers made room: a varint takes at most 10 bytes. */
static void put_u(so_spool *s, uint64_t v) {
  while (v >= 0x80) s->enc[s->encn++] = (unsigned char)(v | 0x80), v >>= 7;
  s->enc[s->encn++] = (unsigned char)v;
}
static void put_i(so_spool *s, int64_t v) {
  put_u(s, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); /* zigzag: small negatives stay short */
}
static void put_raw(so_spool *s, const void *p, size_t n) {
  if (n) memcpy(s->enc + s->encn, p, n); /* p may be NULL when n is 0 */
  s->encn += n;
}

static void put_val(so_spool *s, const bt_val *v) {
  s->enc[s->encn++] = v->len >= 0;
  if (v->len >= 0) put_u(s, v->off), put_u(s, (uint32_t)v->len);
  else put_i(s, v->i);
}

static void put_row(so_spool *s, const bt_row *r) {
  s->enc[s->encn++] = r->kind;
  s->enc[s->encn++] = (unsigned char)r->ph;
  s->enc[s->encn++] = (unsigned char)(r->has & 0xff);
  s->enc[s->encn++] = (unsigned char)(r->has >> 8);
  s->enc[s->encn++] = r->dv;
  put_u(s, (uint64_t)r->cat + 1); /* BT_NONE wraps to 0 */
  put_u(s, (uint64_t)r->name + 1);
  put_i(s, r->seq);
  unsigned h = r->has;
  if (h & BT_TS) put_i(s, r->ts);
  if (h & BT_DUR) put_i(s, r->dur);
  if (h & BT_STREAM) put_i(s, r->stream);
  if (h & BT_DEVICE) put_i(s, r->device);
  if (h & BT_CORR) put_i(s, r->corr);
  if (h & BT_EXT) put_i(s, r->ext);
  if (h & BT_PID) put_val(s, &r->pid);
  if (h & BT_TID) put_val(s, &r->tid);
  if (h & BT_ID) put_val(s, &r->id);
  put_u(s, r->text_off), put_u(s, r->text_len);
  if (r->kind == BT_COUNTER || r->kind == BT_THREAD) put_raw(s, &r->value, sizeof r->value);
  if (r->kind == BT_THREAD) put_i(s, r->iteration);
}

int so_put(so_spool *s, const bt_batch *b) {
  if (s->err[0] || s->reading) return so_fail(s, "spool: written after rewind", 0);
  if (!b->nrows && !b->nstrs) return 0;
  uint32_t hd[4] = {0, (uint32_t)b->nrows, (uint32_t)b->nstrs, (uint32_t)b->used};
  s->encn = 0;
  /* a row's encoding: 5 bytes, 13 varints, 3 tags, a double */
  if (enc_room(s, sizeof hd + b->nstrs * 31 + b->used + b->nrows * 150)) return -1;
  put_raw(s, hd, sizeof hd);
  for (size_t i = 0; i < b->nstrs; i++) { /* field by field: the struct has padding */
    const bt_str *x = &b->strs[i];
    s->enc[s->encn++] = x->is_cat;
    put_u(s, x->local), put_u(s, x->off), put_u(s, x->len);
  }
  put_raw(s, b->arena, b->used);
  for (size_t i = 0; i < b->nrows; i++) put_row(s, &b->rows[i]);
  hd[0] = (uint32_t)(s->encn - sizeof hd[0]);
  memcpy(s->enc, &hd[0], sizeof hd[0]);
  return so_write(s, s->enc, s->encn);
}

/* ------------------------------------------------------------ decoding */

typedef struct so_in {
  const unsigned char *p, *end;
  int bad;
} so_in;

static uint64_t get_u(so_in *in) {
  uint64_t v = 0;
  for (int sh = 0; sh < 70 && in->p < in->end; sh += 7) {
    unsigned char c = *in->p++;
    v |= (uint64_t)(c & 0x7f) << sh;
    if (!(c & 0x80)) return v;
  }
  in->bad = 1;
  return 0;
}
static int64_t get_i(so_in *in) {
  uint64_t u = get_u(in);
  return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}
static unsigned get_b(so_in *in) {
  if (in->p < in->end) return *in->p++;
  in->bad = 1;
  return 0;
}

static void get_val(so_in *in, bt_val *v) {
  if (get_b(in)) v->off = (uint32_t)get_u(in), v->len = (int32_t)get_u(in);
  else v->i = get_i(in), v->len = -1;
}

static void get_row(so_in *in, bt_row *r) {
  memset(r, 0, sizeof *r);
  r->kind = (uint8_t)get_b(in);
  r->ph = (char)get_b(in);
  r->has = (uint16_t)get_b(in);
  r->has |= (uint16_t)(get_b(in) << 8);
  r->dv = (uint8_t)get_b(in);
  r->cat = (uint32_t)(get_u(in) - 1);
  r->name = (uint32_t)(get_u(in) - 1);
  r->seq = get_i(in);
  r->depth = -1;
  unsigned h = r->has;
  if (h & BT_TS) r->ts = get_i(in);
  if (h & BT_DUR) r->dur = get_i(in);
  if (h & BT_STREAM) r->stream = get_i(in);
  if (h & BT_DEVICE) r->device = get_i(in);
  if (h & BT_CORR) r->corr = get_i(in);
  if (h & BT_EXT) r->ext = get_i(in);
  if (h & BT_PID) get_val(in, &r->pid);
  if (h & BT_TID) get_val(in, &r->tid);
  if (h & BT_ID) get_val(in, &r->id);
  r->text_off = (uint32_t)get_u(in);
  r->text_len = (uint32_t)get_u(in);
  if (r->kind == BT_COUNTER || r->kind == BT_THREAD) {
    if (in->end - in->p < (ptrdiff_t)sizeof r->value) in->bad = 1;
    else memcpy(&r->value, in->p, sizeof r->value), in->p += sizeof r->value;
  }
  if (r->kind == BT_THREAD) r->iteration = get_i(in);
}

int so_get(so_spool *s, bt_batch *b) {
  if (s->err[0]) return -1;
  if (!s->reading) return so_fail(s, "spool: read before rewind", 0);
  bt_reset(b);
  int more = so_more(s);
  if (more <= 0) return more;
  uint32_t hd[4];
  if (so_read(s, hd, sizeof hd)) return -1;
  size_t n = hd[0] - (sizeof hd - sizeof hd[0]);
  if (hd[0] < sizeof hd - sizeof hd[0] || hd[1] > BT_ROWS) return so_fail(s, "spool: bad frame", 0);
  s->encn = 0;
  if (enc_room(s, n) || so_read(s, s->enc, n)) return -1;
  so_in in = {s->enc, s->enc + n, 0};
  size_t ns = hd[2];
  if (ns > n) return so_fail(s, "spool: bad frame", 0);
  if (ns > b->capstrs) {
    bt_str *q = realloc(b->strs, ns * sizeof *q);
    if (!q) return so_fail(s, "out of memory", 0);
    b->strs = q, b->capstrs = ns;
  }
  for (size_t i = 0; i < ns; i++) {
    bt_str *x = &b->strs[i];
    x->is_cat = (uint8_t)get_b(&in);
    x->local = (uint32_t)get_u(&in), x->off = (uint32_t)get_u(&in), x->len = (uint32_t)get_u(&in);
  }
  b->nstrs = ns;
  if (in.bad || hd[3] > (size_t)(in.end - in.p)) return so_fail(s, "spool: bad frame", 0);
  if (hd[3] && bt_put(b, in.p, hd[3]) == UINT32_MAX) return so_fail(s, "out of memory", 0);
  in.p += hd[3];
  for (size_t i = 0; i < hd[1]; i++) get_row(&in, &b->rows[i]);
  b->nrows = hd[1];
  if (in.bad || in.p != in.end) return so_fail(s, "spool: bad frame", 0);
  return 1;
}

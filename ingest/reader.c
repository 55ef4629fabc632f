/*
** reader.c: the buffered plain/gzip byte reader of reader.h.
**
** Requirements (the unit tests cite them):
**   R1 gzip is recognised by its first two bytes 1f 8b, whatever the name.
**   R2 concatenated gzip members form one stream.
**   R3 input that ends inside a member: "truncated gzip stream".
**   R4 bytes after a member that do not start another one:
**      "trailing garbage after gzip member".
**   R5 corrupt deflate data or a bad CRC: "invalid gzip data[: zlib's reason]".
**   R6 a file of zero bytes: "empty file"; a directory: "cannot read: Is a
**      directory"; open(2)/read(2) failures carry strerror.
**   R7 the content hash is XXH64 with seed 0 of the raw bytes (compressed
**      bytes for a .gz), so `xxh64sum FILE` gives the same value.
*/
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ XXH64 */

#define XXH_P1 0x9E3779B185EBCA87ULL
#define XXH_P2 0xC2B2AE3D27D4EB4FULL
#define XXH_P3 0x165667B19E3779F9ULL
#define XXH_P4 0x85EBCA77C2B2AE63ULL
#define XXH_P5 0x27D4EB2F165667C5ULL

static inline uint64_t xxhRotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t xxhRead64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint32_t xxhRead32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

static inline uint64_t xxhRound(uint64_t acc, uint64_t input) {
  acc += input * XXH_P2;
  acc = xxhRotl(acc, 31);
  return acc * XXH_P1;
}

static inline uint64_t xxhMerge(uint64_t acc, uint64_t val) {
  acc ^= xxhRound(0, val);
  return acc * XXH_P1 + XXH_P4;
}

static void xxhInit(rd_xxh64 *h) {
  memset(h, 0, sizeof *h);
  h->v[0] = XXH_P1 + XXH_P2;
  h->v[1] = XXH_P2;
  h->v[2] = 0;
  h->v[3] = 0 - XXH_P1;
}

static void xxhUpdate(rd_xxh64 *h, const unsigned char *p, size_t n) {
  h->total += n;
  if (h->ntail + n < 32) {
    memcpy(h->tail + h->ntail, p, n);
    h->ntail += (unsigned)n;
    return;
  }
  uint64_t v0 = h->v[0], v1 = h->v[1], v2 = h->v[2], v3 = h->v[3];
  if (h->ntail) {
    unsigned k = 32 - h->ntail;
    memcpy(h->tail + h->ntail, p, k);
    p += k;
    n -= k;
    v0 = xxhRound(v0, xxhRead64(h->tail));
    v1 = xxhRound(v1, xxhRead64(h->tail + 8));
    v2 = xxhRound(v2, xxhRead64(h->tail + 16));
    v3 = xxhRound(v3, xxhRead64(h->tail + 24));
    h->ntail = 0;
  }
  while (n >= 32) {
    v0 = xxhRound(v0, xxhRead64(p));
    v1 = xxhRound(v1, xxhRead64(p + 8));
    v2 = xxhRound(v2, xxhRead64(p + 16));
    v3 = xxhRound(v3, xxhRead64(p + 24));
    p += 32;
    n -= 32;
  }
  h->v[0] = v0, h->v[1] = v1, h->v[2] = v2, h->v[3] = v3;
  memcpy(h->tail, p, n);
  h->ntail = (unsigned)n;
}

static uint64_t xxhDigest(const rd_xxh64 *h) {
  uint64_t r;
  if (h->total >= 32) {
    r = xxhRotl(h->v[0], 1) + xxhRotl(h->v[1], 7) + xxhRotl(h->v[2], 12) + xxhRotl(h->v[3], 18);
    for (int i = 0; i < 4; i++) r = xxhMerge(r, h->v[i]);
  } else {
    r = XXH_P5; /* seed 0 + P5 */
  }
  r += h->total;
  const unsigned char *p = h->tail;
  unsigned n = h->ntail;
  for (; n >= 8; p += 8, n -= 8) {
    r ^= xxhRound(0, xxhRead64(p));
    r = xxhRotl(r, 27) * XXH_P1 + XXH_P4;
  }
  if (n >= 4) {
    r ^= (uint64_t)xxhRead32(p) * XXH_P1;
    r = xxhRotl(r, 23) * XXH_P2 + XXH_P3;
    p += 4;
    n -= 4;
  }
  for (; n > 0; p++, n--) {
    r ^= (*p) * XXH_P5;
    r = xxhRotl(r, 11) * XXH_P1;
  }
  r ^= r >> 33;
  r *= XXH_P2;
  r ^= r >> 29;
  r *= XXH_P3;
  r ^= r >> 32;
  return r;
}

void rd_xxh64_init(rd_xxh64 *h) { xxhInit(h); }
void rd_xxh64_update(rd_xxh64 *h, const void *p, size_t n) { xxhUpdate(h, p, n); }
uint64_t rd_xxh64_digest(const rd_xxh64 *h) { return xxhDigest(h); }

uint64_t rd_xxh64_block(const void *data, size_t n) {
  rd_xxh64 h;
  xxhInit(&h);
  xxhUpdate(&h, data, n);
  return xxhDigest(&h);
}

uint64_t rd_hash64(const rd_reader *rd) { return xxhDigest(&rd->hash); }

/* ------------------------------------------------------------ raw input */

/* Sets rd->err to "WHAT[: strerror(ERRNUM)]" (strerror_r: files are read in parallel). */
static int rdErr(rd_reader *rd, const char *what, int errnum) {
  char msg[128];
  rd->nomem = strcmp(what, "out of memory") == 0;
  if (errnum == 0) {
    snprintf(rd->err, sizeof rd->err, "%s", what);
    return -1;
  }
  if (strerror_r(errnum, msg, sizeof msg) != 0) snprintf(msg, sizeof msg, "error %d", errnum);
  snprintf(rd->err, sizeof rd->err, "%s: %s", what, msg);
  return -1;
}

static int64_t rdMtime(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* At the end of a regular file, read once: an error when it is not the file opened
** (another size or modification time, or END bytes read of another size), because the
** rows come from bytes that may mix two versions of it. */
static int rdChanged(rd_reader *rd, uint64_t end) {
  struct stat st;
  if (!rd->regular) return 0;
  if (fstat(rd->fd, &st) != 0) return rdErr(rd, "read error", errno);
  if ((uint64_t)st.st_size == rd->file_size && end == rd->file_size && rdMtime(&st) == rd->mtime_ns)
    return 0;
  return rdErr(rd, "the file changed while it was being read", 0);
}

/*
** Reads up to N raw bytes into DST, looping over short reads; hashes them.
** Returns the count (0 only at the end of the input) or -1 on error.
*/
static long rdRaw(rd_reader *rd, unsigned char *dst, size_t n) {
  size_t got = 0;
  if (rd->raw_eof) return 0;
  if (rd->mem) {
    got = rd->mem_n - rd->mem_pos;
    if (got > n) got = n;
    memcpy(dst, rd->mem + rd->mem_pos, got);
    rd->mem_pos += got;
  } else {
    while (got < n) {
      ssize_t k = read(rd->fd, dst + got, n - got);
      if (k < 0) {
        if (errno == EINTR) continue;
        return rdErr(rd, "read error", errno);
      }
      if (k == 0) break;
      got += (size_t)k;
    }
  }
  if (got < n) rd->raw_eof = 1;
  if (got < n && rd->fd >= 0 && rdChanged(rd, rd->raw_off + got)) return -1;
  rd->raw_off += got;
  xxhUpdate(&rd->hash, dst, got);
  return (long)got;
}

/* Moves the unread gzip input to the front of `in` and reads behind it. */
static int rdRawGz(rd_reader *rd) {
  size_t have = rd->zs.avail_in;
  if (have && rd->zs.next_in != rd->in) memmove(rd->in, rd->zs.next_in, have);
  size_t want = RD_BUF_SIZE - have;
  if (want > rd->chunk) want = rd->chunk;
  long k = rdRaw(rd, rd->in + have, want);
  if (k < 0) return -1;
  rd->zs.next_in = rd->in;
  rd->zs.avail_in = (uInt)(have + (size_t)k);
  return 0;
}

/* ------------------------------------------------------------ refill */

/*
** Inflates into [dst, dst+cap); returns the number of bytes produced, or -1.
** After an error with output already produced, returns that output and sets
** rd->failed so that the next call reports the error (offsets stay exact).
*/
static long rdInflate(rd_reader *rd, unsigned char *dst, size_t cap) {
  z_stream *zs = &rd->zs;
  zs->next_out = dst;
  zs->avail_out = (uInt)cap;
  while (zs->avail_out > 0) {
    if (zs->avail_in == 0 && !rd->raw_eof && rdRawGz(rd) < 0) goto fail;
    if (!rd->in_member) {
      /* R2, R4: between members. Only another gzip header may follow. */
      if (zs->avail_in == 0) break; /* clean end (raw_eof) */
      if (zs->avail_in < 2 && !rd->raw_eof && rdRawGz(rd) < 0) goto fail;
      if (zs->next_in[0] != 0x1f || (zs->avail_in >= 2 && zs->next_in[1] != 0x8b)) {
        rdErr(rd, "trailing garbage after gzip member", 0);
        goto fail;
      }
      if (zs->avail_in < 2 || inflateReset(zs) != Z_OK) {
        rdErr(rd, "truncated gzip stream", 0);
        goto fail;
      }
      rd->in_member = 1;
    }
    int ret = inflate(zs, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      rd->in_member = 0;
    } else if (ret == Z_MEM_ERROR) {
      rdErr(rd, "out of memory", 0);
      goto fail;
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      /* R5: Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
      if (zs->msg) snprintf(rd->err, sizeof rd->err, "invalid gzip data: %s", zs->msg);
      else snprintf(rd->err, sizeof rd->err, "invalid gzip data");
      goto fail;
    } else if (ret == Z_BUF_ERROR && zs->avail_in == 0 && rd->raw_eof) {
      rdErr(rd, "truncated gzip stream", 0); /* R3 */
      goto fail;
    }
    /* Other Z_BUF_ERROR: input used up; the loop reads more. */
  }
  return (long)(cap - zs->avail_out);
fail:
  rd->failed = 1;
  return cap > zs->avail_out ? (long)(cap - zs->avail_out) : -1;
}

/* ------------------------------------------------------------ inflate thread */

/*
** The producer: inflates blocks into the ring until the end, an error, or stop.
** It alone uses zs, in, in_member, raw_eof, raw_off, hash, failed, err and nomem while
** it runs; a block's flags tell the consumer what follows its data.
*/
static void *rdProducer(void *arg) {
  rd_reader *rd = arg;
  rd_async *a = rd->async;
  for (;;) {
    pthread_mutex_lock(&a->mu);
    while (!a->stop && a->tail - a->head == RD_BLOCKS) pthread_cond_wait(&a->drained, &a->mu);
    int stop = a->stop;
    pthread_mutex_unlock(&a->mu);
    if (stop) return NULL;
    rd_block *b = &a->ring[a->tail % RD_BLOCKS];
    long k = rdInflate(rd, b->data, RD_BLOCK);
    b->n = k > 0 ? (size_t)k : 0;
    b->failed = k < 0 || rd->failed;
    b->eof = !b->failed && k == 0;
    b->raw_off = rd->raw_off;
    pthread_mutex_lock(&a->mu);
    a->tail++;
    pthread_cond_signal(&a->filled);
    pthread_mutex_unlock(&a->mu);
    if (b->failed || b->eof) return NULL;
  }
}

#define RD_THREAD_STACK (512 * 1024)

static int rdAsyncStart(rd_reader *rd) {
  rd_async *a = calloc(1, sizeof *a);
  if (!a) return -1;
  for (int i = 0; i < RD_BLOCKS; i++)
    if (!(a->ring[i].data = malloc(RD_BLOCK))) {
      for (int j = 0; j < i; j++) free(a->ring[j].data);
      free(a);
      return -1;
    }
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->filled, NULL);
  pthread_cond_init(&a->drained, NULL);
  rd->async = a;
  /* The producer only reads and inflates: a small stack (the default is RLIMIT_STACK, often
  ** 8 MiB, which ASan clears on every join: most of the parser tests' time under it). */
  pthread_attr_t at;
  int have_at = pthread_attr_init(&at) == 0;
  if (have_at && pthread_attr_setstacksize(&at, RD_THREAD_STACK) != 0) {
    pthread_attr_destroy(&at);
    have_at = 0;
  }
  int rc = pthread_create(&a->thread, have_at ? &at : NULL, rdProducer, rd);
  if (have_at) pthread_attr_destroy(&at);
  if (rc != 0) {
    rd->async = NULL;
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->filled);
    pthread_cond_destroy(&a->drained);
    for (int i = 0; i < RD_BLOCKS; i++) free(a->ring[i].data);
    free(a);
    return -1;
  }
  return 0;
}

static void rdAsyncStop(rd_reader *rd) {
  rd_async *a = rd->async;
  if (!a) return;
  pthread_mutex_lock(&a->mu);
  a->stop = 1;
  pthread_cond_signal(&a->drained);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->thread, NULL);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->filled);
  pthread_cond_destroy(&a->drained);
  for (int i = 0; i < RD_BLOCKS; i++) free(a->ring[i].data);
  free(a);
  rd->async = NULL;
}

/* Copies up to ROOM inflated bytes from the ring to DST: the count, 0 at the end, -1 on error. */
static long rdAsyncTake(rd_reader *rd, unsigned char *dst, size_t room) {
  rd_async *a = rd->async;
  pthread_mutex_lock(&a->mu);
  while (a->head == a->tail) pthread_cond_wait(&a->filled, &a->mu);
  pthread_mutex_unlock(&a->mu);
  rd_block *b = &a->ring[a->head % RD_BLOCKS]; /* ours until head moves on */
  size_t n = b->n - a->pos;
  if (n > room) n = room;
  memcpy(dst, b->data + a->pos, n);
  a->pos += n;
  if (a->pos < b->n) return (long)n;
  /* block used up: what follows it? (the producer has stopped after eof/failed) */
  rd->raw_seen = b->raw_off;
  int eof = b->eof, failed = b->failed;
  a->pos = 0;
  if (!eof && !failed) {
    pthread_mutex_lock(&a->mu);
    a->head++;
    pthread_cond_signal(&a->drained);
    pthread_mutex_unlock(&a->mu);
  }
  if (failed) {
    rd->async_failed = 1; /* rd->err was written by the producer before it published */
    return n ? (long)n : -1;
  }
  if (eof && n == 0) return 0;
  if (eof) rd->eof_next = 1;
  return (long)n;
}

#if defined(__GNUC__)
#define RD_NOINLINE __attribute__((noinline))
#else
#define RD_NOINLINE
#endif

/* Not inlined: the hot loops of the tokenizer only ever branch here. */
RD_NOINLINE int rd_refill(rd_reader *rd, const char *keep) {
  size_t kept = (size_t)(rd->end - keep);
  if (kept >= RD_BUF_SIZE) return -2;
  rd->base += (uint64_t)(keep - rd->buf);
  if (kept && keep != rd->buf) memmove(rd->buf, keep, kept);
  rd->p = rd->buf;
  rd->end = rd->buf + kept;
  *rd->end = 0;
  if (rd->async ? rd->async_failed : rd->failed)
    return -1; /* failed is the producer's while it runs */
  if (rd->eof) return 0;
  if (rd->eof_next) {
    rd->eof = 1;
    return 0;
  }
  size_t room = RD_BUF_SIZE - kept;
  if (room > rd->chunk) room = rd->chunk;
  long k;
  if (rd->gz && !rd->mem && !rd->async && rdAsyncStart(rd) != 0) {
    rd->failed = 1;
    rdErr(rd, "cannot start the inflate thread", 0);
    return -1;
  }
  if (rd->async) k = rdAsyncTake(rd, (unsigned char *)rd->buf + kept, room);
  else if (rd->gz) k = rdInflate(rd, (unsigned char *)rd->buf + kept, room);
  else k = rdRaw(rd, (unsigned char *)rd->buf + kept, room);
  if (!rd->async) rd->raw_seen = rd->raw_off;
  if (k < 0) {
    if (rd->async) rd->async_failed = 1;
    else rd->failed = 1;
    return -1;
  }
  if (k == 0) rd->eof = 1;
  rd->end += k;
  *rd->end = 0;
  return k > 0;
}

/* ------------------------------------------------------------ open/close */

static int rdBuffer(rd_reader *rd) {
  /* Zeroed: scanners read a little past end (RD_PAD), never undefined bytes. */
  rd->buf = calloc(1, RD_BUF_SIZE + RD_PAD);
  if (!rd->buf) return rdErr(rd, "out of memory", 0);
  rd->p = rd->end = rd->buf;
  *rd->end = 0;
  xxhInit(&rd->hash);
  return 0;
}

static int rdStart(rd_reader *rd) {
  if (rdBuffer(rd)) return -1;
  /* Read two bytes, then decide (R1); refills read the rest in blocks. */
  long k = rdRaw(rd, (unsigned char *)rd->buf, 2);
  if (k < 0) return -1;
  if (k == 0) return rdErr(rd, "empty file", 0); /* R6 */
  if (k >= 2 && (unsigned char)rd->buf[0] == 0x1f && (unsigned char)rd->buf[1] == 0x8b) {
    rd->gz = 1;
    rd->in = malloc(RD_BUF_SIZE);
    if (!rd->in) return rdErr(rd, "out of memory", 0);
    memcpy(rd->in, rd->buf, (size_t)k);
    if (inflateInit2(&rd->zs, 15 + 16) != Z_OK) return rdErr(rd, "out of memory", 0);
    rd->zinit = 1;
    rd->zs.next_in = rd->in;
    rd->zs.avail_in = (uInt)k;
    /* The first refill inflates; nothing is in buf yet. */
    rd->buf[0] = 0;
    return 0;
  }
  rd->end = rd->buf + k;
  *rd->end = 0;
  return 0;
}

static void rdInit(rd_reader *rd) {
  memset(rd, 0, sizeof *rd);
  rd->fd = -1;
  rd->chunk = RD_BUF_SIZE;
}

/* An error of rd_open*(): found before any byte is decoded, it is at offset 0. */
static int rdOpenErr(rd_reader *rd) {
  static const char prefix[] = "byte 0: ";
  size_t k = sizeof prefix - 1, n = strlen(rd->err);
  if (n > sizeof rd->err - 1 - k) n = sizeof rd->err - 1 - k;
  memmove(rd->err + k, rd->err, n);
  memcpy(rd->err, prefix, k);
  rd->err[k + n] = 0;
  return -1;
}

/* OFF > 0: plain text from there on (no gzip test), offsets those of the file. */
static int rdOpenFile(rd_reader *rd, const char *path, uint64_t off) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return rdErr(rd, "cannot open", errno);
  rd->fd = fd;
  struct stat st;
  if (fstat(fd, &st) != 0) return rdErr(rd, "cannot open", errno);
  if (S_ISDIR(st.st_mode)) return rdErr(rd, "cannot read", EISDIR); /* R6 */
  rd->file_size = (uint64_t)st.st_size;
  rd->regular = S_ISREG(st.st_mode);
  rd->mtime_ns = rdMtime(&st);
  if (off == 0) return rdStart(rd);
  if (lseek(fd, (off_t)off, SEEK_SET) != (off_t)off) return rdErr(rd, "cannot seek", errno);
  rd->base = rd->raw_off = rd->raw_seen = off;
  return rdBuffer(rd);
}

int rd_open(rd_reader *rd, const char *path) {
  rdInit(rd);
  return rdOpenFile(rd, path, 0) ? rdOpenErr(rd) : 0;
}

int rd_open_at(rd_reader *rd, const char *path, uint64_t off) {
  rdInit(rd);
  return rdOpenFile(rd, path, off) ? rdOpenErr(rd) : 0;
}

int rd_open_mem(rd_reader *rd, const void *data, size_t n) {
  rdInit(rd);
  rd->mem = data ? data : (const unsigned char *)"";
  rd->mem_n = n;
  rd->file_size = n;
  return rdStart(rd) ? rdOpenErr(rd) : 0;
}

void rd_close(rd_reader *rd) {
  rdAsyncStop(rd);
  if (rd->zinit) inflateEnd(&rd->zs);
  if (rd->fd >= 0) close(rd->fd);
  free(rd->buf);
  free(rd->in);
  rd->buf = NULL;
  rd->in = NULL;
  rd->p = rd->end = NULL;
  rd->fd = -1;
  rd->zinit = 0;
}

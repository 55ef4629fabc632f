/*
** reader.h: buffered byte reader over a file or a memory block, plain or
** gzip (prefix rd_).
**
**   rd_reader r;
**   if (rd_open(&r, "trace.json.gz") != 0) puts(r.err);   // "cannot open: ..."
**   for (;;) {
**     while (r.p < r.end) use(*r.p++);
**     int rc = rd_refill(&r, r.end);      // 1 more data, 0 end, -1 error
**     if (rc <= 0) break;
**   }
**   rd_close(&r);
**
** Gzip is detected by the magic bytes 1f 8b, not by the file name, and is
** inflated with zlib; from a file, on a second thread that fills a ring of
** RD_BLOCKS blocks ahead of the reader, so inflating and parsing overlap. Several concatenated gzip members
** are one stream (as gzip(1) writes them). A member cut short, or anything
** after a member that is not another member, is an error, never a clean end.
**
** HOW IT WORKS: the caller reads straight from [p, end). The byte at *end is
** always 0 and RD_PAD bytes after end are readable, so scanners need no bound
** check in their inner loops: they stop on the 0 and then test p == end.
** rd_refill() moves the unconsumed tail [keep, end) to the front of the
** buffer (so a token cut by the buffer boundary can be rescanned whole) and
** fills the rest. While reading it hashes the raw bytes (XXH64) and counts
** raw and uncompressed offsets. At the end of a regular file it checks that the
** file's size and modification time are those it had when opened: a file that
** changed while it was read is an error ("the file changed while it was being read").
**
** Pure C: never prints, never exits. Errors go to the fixed buffer err.
*/
#ifndef HTA_READER_H
#define HTA_READER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define RD_BUF_SIZE (1u << 20) /* 1 MiB: output buffer and gzip input buffer */
#define RD_PAD 64              /* readable bytes after end: 0 sentinel + SIMD over-read */
#define RD_ERR_MAX 200
#define RD_BLOCKS 4         /* ring of inflated blocks when gzip is inflated on its own thread */
#define RD_BLOCK (1u << 19) /* 512 KiB each */

/* Streaming XXH64 (seed 0) state; rd_hash64() finishes it. */
typedef struct rd_xxh64 {
  uint64_t v[4];
  uint64_t total;
  unsigned char tail[32];
  unsigned ntail;
} rd_xxh64;

/* A block inflated by the background thread: data, then end-of-input or an error. */
typedef struct rd_block {
  unsigned char *data;
  size_t n;         /* bytes of data */
  int eof;          /* the clean end of the input follows the data */
  int failed;       /* an error follows the data (message in the reader's async_err) */
  uint64_t raw_off; /* raw bytes read when this block was filled */
} rd_block;

typedef struct rd_async {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t filled, drained;
  rd_block ring[RD_BLOCKS];
  unsigned head, tail;  /* consumer takes ring[head % N], producer fills ring[tail % N] */
  int stop;             /* rd_close asks the producer to stop */
  size_t pos;           /* consumer's position in ring[head % N] */
  char err[RD_ERR_MAX]; /* the producer's error message */
} rd_async;

typedef struct rd_reader {
  char *p;                  /* next unread byte */
  char *end;                /* end of valid data; *end == 0 */
  char *buf;                /* RD_BUF_SIZE + RD_PAD bytes */
  uint64_t base;            /* uncompressed offset of buf[0] */
  int fd;                   /* -1 for a memory block */
  const unsigned char *mem; /* memory block, or NULL */
  size_t mem_n, mem_pos;
  int gz;           /* input is gzip */
  int zinit;        /* zs is initialised */
  int in_member;    /* inside a gzip member (its end not reached yet) */
  int raw_eof;      /* no more raw input */
  int eof;          /* no more uncompressed output */
  int failed;       /* an error is pending: the next refill reports it */
  int eof_next;     /* async: the data handed out last ended the input */
  int async_failed; /* async: the consumer reached the producer's error */
  size_t chunk;     /* most bytes one refill adds: RD_BUF_SIZE; tests
                            lower it to put buffer boundaries everywhere */
  z_stream zs;
  unsigned char *in;    /* gzip input buffer, RD_BUF_SIZE */
  uint64_t raw_off;     /* raw bytes read so far */
  uint64_t file_size;   /* raw size (st_size, or the memory block length) */
  int regular;          /* a regular file: its end checks that it did not change */
  int64_t mtime_ns;     /* its modification time when opened */
  rd_xxh64 hash;        /* of the raw bytes read so far */
  rd_async *async;      /* gzip from a file: inflated on a second thread (NULL otherwise);
                            then zs, in, raw_off and hash belong to that thread until it ends */
  uint64_t raw_seen;    /* raw bytes behind the data handed out (== raw_off when synchronous) */
  char err[RD_ERR_MAX]; /* message of the last error */
  int nomem;            /* that error is "out of memory" */
} rd_reader;

/*
** Opens PATH (or the memory block DATA[0..N), which must outlive the reader)
** and reads its first two bytes (to tell gzip from plain). 0 on success; -1 with rd->err set
** ("byte 0: cannot open: No such file or directory", "byte 0: empty file", ...: found
** before any byte is decoded, so offset 0) and rd->nomem. rd_close() is safe either way.
*/
int rd_open(rd_reader *rd, const char *path);
int rd_open_mem(rd_reader *rd, const void *data, size_t n);

/*
** Opens PATH, a plain (not gzip) file, to read from byte OFF on: offsets stay those
** of the file, and the hash covers only what is read (a second reader of one file).
*/
int rd_open_at(rd_reader *rd, const char *path, uint64_t off);

/*
** Keeps [keep, end) (keep must lie in [buf, end]), moves it to buf[0] and reads
** more behind it. Sets p = buf (the first kept byte). Returns 1 when bytes were
** added, 0 at the clean end of the input, -1 on error (rd->err), -2 when the
** kept part leaves no room (a token longer than the buffer). Data decoded
** before a gzip error is handed out first; the error comes with the next call.
*/
int rd_refill(rd_reader *rd, const char *keep);

/* Uncompressed offset of the byte at Q (a pointer into the buffer). */
static inline uint64_t rd_offset(const rd_reader *rd, const char *q) {
  return rd->base + (uint64_t)(q - rd->buf);
}

/* Raw (on-disk) bytes behind the data handed out so far. */
static inline uint64_t rd_raw_offset(const rd_reader *rd) { return rd->raw_seen; }

/* XXH64 (seed 0) of the raw bytes read so far: the whole file once the end was reached. */
uint64_t rd_hash64(const rd_reader *rd);

/* XXH64 of one block, seed 0 (for tests and for callers hashing other data). */
uint64_t rd_xxh64_block(const void *data, size_t n);
/* The same over data that comes in pieces. */
void rd_xxh64_init(rd_xxh64 *h);
void rd_xxh64_update(rd_xxh64 *h, const void *p, size_t n);
uint64_t rd_xxh64_digest(const rd_xxh64 *h);

void rd_close(rd_reader *rd);

#endif

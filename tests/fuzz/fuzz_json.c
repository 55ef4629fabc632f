/*
** fuzz_json.c: libFuzzer target for the byte reader (rd_) and the JSON
** tokenizer (js_) on their own: plain vs gzip, whole vs skipped values.
**
**   make fuzz-quick                # every target for a bounded time
**   ./build/fuzz/fuzz_json -dict=tests/fuzz/json.dict build/fuzz/corpus-json tests/fuzz/seed
**
** fuzz_kineto.c checks the decoder and the tokenizer under buffer boundaries;
** this target checks what that one cannot see: the gzip path on arbitrary
** JSON text, and js_skip()'s fast grammar against js_next().
**
** Requirements checked (any failure aborts, as do the sanitizers):
**   FJ1 Reading the input through rd_refill() (any chunk size, any kept tail)
**       gives back exactly its bytes, and rd_hash64() is XXH64 of the raw bytes.
**   FJ2 The input gzip-compressed (one member, or two members split at a
**       point derived from the input) yields the same token stream, the same
**       offsets and the same error as the plain input: offsets are counted in
**       the uncompressed text (reader.h).
**   FJ3 That gzip stream cut short anywhere is an error, never a clean end
**       (STYLE 17): the reader's error ("truncated gzip stream"), unless the
**       JSON error of the plain input comes first; the tokens handed out before
**       the error are a prefix of the plain stream.
**   FJ4 Skipping every container at a chosen depth with js_skip() ends in the
**       same state as walking it with js_next(): the same final token, and on
**       error the same offset and message (json.c: "every check and message
**       is the same").
**
** The input's options (chunk size, split point, cut point, skip depth) come
** from a hash of the input, so seed files are plain JSON traces.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json.h"
#include "reader.h"

#define FJ_MAXTOK 4096 /* token records kept for the prefix check of FJ3 */

static uint64_t fjHash(const void *p, size_t n, uint64_t h) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  return h;
}

/* One token as FJ2/FJ3 compare it: kind, offset and a hash of its text. */
typedef struct fj_tok {
  int t;
  uint64_t off;
  uint64_t text;
} fj_tok;

/* The outcome of one tokenizer run. */
typedef struct fj_run {
  fj_tok tok[FJ_MAXTOK];
  size_t ntok;     /* tokens recorded (capped at FJ_MAXTOK) */
  uint64_t total;  /* tokens seen */
  uint64_t digest; /* of every token */
  int last;        /* JS_EOF or JS_ERROR */
  uint64_t err_off;
  char err[JS_ERR_MAX + RD_ERR_MAX];
} fj_run;

static fj_run fjA, fjB; /* static: too big for the stack under ASan */

/* ------------------------------------------------------------ gzip */

/* Appends a gzip member holding DATA[0..N) to *OUT (realloc'd). */
static void fjMember(const uint8_t *data, size_t n, int level, uint8_t **out, size_t *outn) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
  size_t cap = deflateBound(&zs, (uLong)n) + 32;
  uint8_t *b = realloc(*out, *outn + cap);
  if (!b) abort();
  zs.next_in = (Bytef *)(uintptr_t)data;
  zs.avail_in = (uInt)n;
  zs.next_out = b + *outn;
  zs.avail_out = (uInt)cap;
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) abort();
  *outn += cap - zs.avail_out;
  *out = b;
  deflateEnd(&zs);
}

/* ------------------------------------------------------------ FJ1: the reader */

/* Reads DATA through the reader with CHUNK-byte refills, keeping a tail of up to
** KEEP bytes each time; aborts unless the bytes come back unchanged (PLAIN is the
** uncompressed text to expect). Returns 0 at a clean end, -1 on a reader error. */
static int fjDrain(const uint8_t *data, size_t n, const uint8_t *plain, size_t pn, size_t chunk,
                   size_t keep) {
  rd_reader rd;
  if (rd_open_mem(&rd, data, n)) {
    rd_close(&rd);
    return -1;
  }
  rd.chunk = chunk;
  size_t got = 0; /* bytes of PLAIN matched so far */
  int rc;
  for (;;) {
    /* [p, end) is new: everything before end was checked on an earlier pass. */
    size_t fresh = (size_t)(rd.end - rd.p);
    if (got + fresh > pn || memcmp(rd.p, plain + got, fresh) != 0) {
      fprintf(stderr, "FJ1: reader bytes differ at %zu\n", got);
      abort();
    }
    if (*rd.end != 0) abort(); /* reader.h: *end == 0 */
    got += fresh;
    if (rd_offset(&rd, rd.end) != got) abort();
    size_t avail = (size_t)(rd.end - rd.buf);
    size_t k = keep < avail ? keep : avail;
    rd.p = rd.end;
    rc = rd_refill(&rd, rd.end - k);
    if (rd.p != rd.buf || memcmp(rd.buf, plain + got - k, k) != 0) {
      fprintf(stderr, "FJ1: kept tail moved wrongly at %zu\n", got);
      abort();
    }
    if (rc <= 0) break;
    rd.p += k; /* the kept tail was checked already */
  }
  if (rc == 0) {
    if (got != pn) {
      fprintf(stderr, "FJ1: clean end after %zu of %zu bytes\n", got, pn);
      abort();
    }
    if (rd_hash64(&rd) != rd_xxh64_block(data, n)) {
      fprintf(stderr, "FJ1: content hash differs\n");
      abort();
    }
  }
  rd_close(&rd);
  return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ FJ2-FJ4: the tokenizer */

/* Tokenizes DATA; with SKIP_DEPTH > 0 every container opened at that depth is
** passed to js_skip() instead of being walked (recorded as one pseudo token). */
static void fjTokens(const uint8_t *data, size_t n, size_t chunk, int skip_depth, fj_run *r) {
  rd_reader rd;
  js_lexer js;
  r->ntok = 0;
  r->total = 0;
  r->digest = 1469598103934665603ULL;
  r->err[0] = 0;
  r->err_off = 0;
  if (rd_open_mem(&rd, data, n)) {
    r->last = JS_ERROR;
    snprintf(r->err, sizeof r->err, "open: %s", rd.err);
    rd_close(&rd);
    return;
  }
  rd.chunk = chunk;
  js_init(&js, &rd);
  for (;;) {
    js_tok t = js_next(&js);
    if (t == JS_ERROR || t == JS_EOF) {
      r->last = t;
      if (t == JS_ERROR) {
        r->err_off = js.err_off;
        snprintf(r->err, sizeof r->err, "%s", js.err);
      }
      break;
    }
    fj_tok k = {t, js.tok_off, 0};
    if (t == JS_KEY || t == JS_STRING || t == JS_NUMBER) {
      k.text = fjHash(js.s, js.n, fjHash(&js.n, sizeof js.n, 7));
      if (t != JS_NUMBER) k.text = fjHash(&js.plain, sizeof js.plain, k.text);
    }
    if (skip_depth > 0 && (t == JS_OBJ_BEGIN || t == JS_ARR_BEGIN) && js.depth == skip_depth) {
      if (js_skip(&js, t) != 0) continue; /* the error is reported by the next js_next */
      if (js.depth != skip_depth - 1) {
        fprintf(stderr, "FJ4: js_skip left depth %d, expected %d\n", js.depth, skip_depth - 1);
        abort();
      }
      k.t = 100 + t; /* a skipped value */
    }
    r->digest = fjHash(&k, sizeof k, r->digest);
    if (r->ntok < FJ_MAXTOK) r->tok[r->ntok++] = k;
    r->total++;
  }
  /* json.h: after an error every call returns JS_ERROR. */
  if (r->last == JS_ERROR && js_next(&js) != JS_ERROR) abort();
  js_free(&js);
  rd_close(&rd);
}

static int fjSameEnd(const fj_run *a, const fj_run *b) {
  return a->last == b->last && a->err_off == b->err_off && strcmp(a->err, b->err) == 0;
}

static void fjDiffer(const char *what, const fj_run *a, const fj_run *b) {
  fprintf(
      stderr,
      "%s: plain: %llu tokens, end %d at %llu \"%s\"; other: %llu tokens, end %d at %llu \"%s\"\n",
      what, (unsigned long long)a->total, a->last, (unsigned long long)a->err_off, a->err,
      (unsigned long long)b->total, b->last, (unsigned long long)b->err_off, b->err);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t h = fjHash(data, size, 1469598103934665603ULL);
  size_t chunk = 1 + (size_t)(h % 23);       /* tiny refills put boundaries everywhere */
  size_t keep = (size_t)((h >> 8) % 9);      /* bytes kept across a refill in FJ1 */
  int skip_depth = 1 + (int)((h >> 16) % 4); /* FJ4 */
  int level = (int)((h >> 24) % 10);         /* 0 = stored blocks */
  size_t split = size ? (size_t)((h >> 32) % (size + 1)) : 0;
  int is_gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

  /* FJ1 on the input as given (fuzzed gzip goes through inflate here). */
  if (!is_gz) (void)fjDrain(data, size, data, size, chunk, keep);

  /* The reference: the plain input in whole buffers. */
  fjTokens(data, size, RD_BUF_SIZE, 0, &fjA);

  /* FJ4: js_skip() at one depth, small and whole buffers. */
  fjTokens(data, size, RD_BUF_SIZE, skip_depth, &fjB);
  if (!fjSameEnd(&fjA, &fjB)) fjDiffer("FJ4 js_skip", &fjA, &fjB);
  fjTokens(data, size, chunk, skip_depth, &fjB);
  if (!fjSameEnd(&fjA, &fjB)) fjDiffer("FJ4 js_skip, small chunks", &fjA, &fjB);

  /* FJ2/FJ3 need text that is not itself gzip, and a non-empty file (an empty
  ** plain file is "empty file", an empty gzip member is not). */
  if (is_gz || size == 0) return 0;
  uint8_t *gz = NULL;
  size_t gzn = 0;
  fjMember(data, split, level, &gz, &gzn);
  size_t member1 = gzn; /* the first member ends here: a cut there is a valid file */
  if (split < size) fjMember(data + split, size - split, level, &gz, &gzn);

  if (fjDrain(gz, gzn, data, size, chunk, keep) != 0) {
    fprintf(stderr, "FJ1: valid gzip failed to read\n");
    abort();
  }
  fjTokens(gz, gzn, split % 2 ? chunk : RD_BUF_SIZE, 0, &fjB);
  if (!fjSameEnd(&fjA, &fjB) || fjA.digest != fjB.digest || fjA.total != fjB.total)
    fjDiffer("FJ2 gzip", &fjA, &fjB);

  /* FJ3: cut the compressed stream at a point inside it, after the two magic bytes
  ** (a file of 0 or 1 byte is not gzip: "empty file", or one plain byte). */
  size_t cut = 2 + (size_t)((h >> 40) % (gzn - 2));
  if (cut == member1) cut++; /* gzn > member1 then: two members */
  fjTokens(gz, cut, chunk, 0, &fjB);
  if (fjB.last != JS_ERROR) fjDiffer("FJ3 truncated gzip ended cleanly", &fjA, &fjB);
  /* The error is the reader's, or a JSON error already in the decoded prefix, which
  ** the plain input then has too: never a JSON "unexpected end" at the cut. */
  if (!strstr(fjB.err, "gzip") && !fjSameEnd(&fjA, &fjB))
    fjDiffer("FJ3 truncated gzip reported as a JSON error", &fjA, &fjB);
  size_t m = fjB.ntok < fjA.ntok ? fjB.ntok : fjA.ntok;
  if (fjB.total > fjA.total || memcmp(fjA.tok, fjB.tok, m * sizeof fjA.tok[0]) != 0)
    fjDiffer("FJ3 truncated gzip: tokens are not a prefix", &fjA, &fjB);
  free(gz);
  return 0;
}

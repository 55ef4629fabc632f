/*
** trace_writer.c: the streaming trace rewriter of trace_writer.h (requirements
** TW-1..6 are listed there).
**
** Memory comes from SQLite's allocator (sqlite3_malloc64/sqlite3_realloc64/
** sqlite3_free, zlib's state included through zalloc/zfree), so that the host's
** heap limit and memory statistics see it: a memory sink that grows past the
** limit fails with "out of memory" like any other allocation of hta.so.
*/
#include "io/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#ifndef SQLITE_CORE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ------------------------------------------------------------ output */

static int twFail(tw_out *o, const char *what, int err) {
  if (!o->failed) {
    o->failed = 1;
    if (err) snprintf(o->err, sizeof o->err, "%s: %s", what, strerror(err));
    else snprintf(o->err, sizeof o->err, "%s", what);
  }
  return -1;
}

/* Writes all of P[0..n) to the file, looping over short writes. */
static int twWriteFd(tw_out *o, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(o->fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return twFail(o, "cannot write the output", errno);
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Sends the pending bytes to the file (through deflate for gzip). FLUSH is
** Z_NO_FLUSH or Z_FINISH. */
static int twFlush(tw_out *o, int flush) {
  if (o->mem || o->failed) return o->failed ? -1 : 0;
  if (!o->gz) {
    int rc = twWriteFd(o, o->buf, o->n);
    o->n = 0;
    return rc;
  }
  o->zs.next_in = o->buf;
  o->zs.avail_in = (uInt)o->n;
  for (;;) {
    o->zs.next_out = o->zbuf;
    o->zs.avail_out = TW_BUF;
    int zr = deflate(&o->zs, flush);
    if (zr == Z_STREAM_ERROR) return twFail(o, "cannot compress the output", 0);
    if (twWriteFd(o, o->zbuf, TW_BUF - o->zs.avail_out)) return -1;
    if (flush == Z_FINISH ? zr == Z_STREAM_END : o->zs.avail_in == 0 && o->zs.avail_out != 0) break;
  }
  o->n = 0;
  return 0;
}

int tw_write(tw_out *o, const void *p, size_t n) {
  if (o->failed) return -1;
  if (o->cap - o->n < n) {
    if (!o->mem) {
      if (twFlush(o, Z_NO_FLUSH)) return -1;
      if (n >= o->cap) { /* larger than the buffer: straight through */
        if (!o->gz) return twWriteFd(o, p, n);
        while (n > 0) { /* through the buffer in pieces */
          size_t k = n < o->cap ? n : o->cap;
          memcpy(o->buf, p, k);
          o->n = k;
          if (twFlush(o, Z_NO_FLUSH)) return -1;
          p = (const unsigned char *)p + k;
          n -= k;
        }
        return 0;
      }
    } else {
      size_t cap = o->cap ? o->cap : 256;
      while (cap - o->n < n) {
        if (cap > SIZE_MAX / 2) return twFail(o, "out of memory", 0);
        cap *= 2;
      }
      unsigned char *nb = sqlite3_realloc64(o->buf, cap);
      if (!nb) return twFail(o, "out of memory", 0);
      o->buf = nb;
      o->cap = cap;
    }
  }
  memcpy(o->buf + o->n, p, n);
  o->n += n;
  return 0;
}

int tw_puts(tw_out *o, const char *s) { return tw_write(o, s, strlen(s)); }

static int twPutc(tw_out *o, char c) {
  if (o->n < o->cap && !o->failed) {
    o->buf[o->n++] = (unsigned char)c;
    return 0;
  }
  return tw_write(o, &c, 1);
}

int tw_string(tw_out *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = 0; /* bytes of s[run_start..i) that need no escape */
  const char *start = s;
  if (twPutc(o, '"')) return -1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[7];
    size_t k = 2;
    if (c >= 0x20 && c != '"' && c != '\\') {
      run++;
      continue;
    }
    if (run && tw_write(o, start, run)) return -1;
    esc[0] = '\\';
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
      k = 6;
    }
    if (tw_write(o, esc, k)) return -1;
    run = 0;
    start = s + i + 1;
  }
  if (run && tw_write(o, start, run)) return -1;
  return twPutc(o, '"');
}

int tw_sep(tw_out *o, int *comma) {
  int was = *comma;
  *comma = 1;
  return was ? twPutc(o, ',') : 0;
}

void tw_open_mem(tw_out *o) {
  memset(o, 0, sizeof *o);
  o->fd = -1;
  o->mem = 1;
}

/* A sqlite3_malloc64'd copy of S, or NULL on out-of-memory. */
static char *twStrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = sqlite3_malloc64(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* zlib's allocator: SQLite's, like every other allocation of tw_out. */
static voidpf twZalloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return sqlite3_malloc64((sqlite3_uint64)items * size);
}
static void twZfree(voidpf opaque, voidpf p) {
  (void)opaque;
  sqlite3_free(p);
}

static int twEndsWith(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && memcmp(s + a - b, suf, b) == 0;
}

int tw_open_file(tw_out *o, const char *dst) {
  const char *slash = strrchr(dst, '/');
  const char *base = slash ? slash + 1 : dst;
  size_t dirlen = slash ? (size_t)(slash - dst) + 1 : 0; /* with the '/' */
  memset(o, 0, sizeof *o);
  o->fd = -1;
  if (!*base) return twFail(o, "the output path names a directory", 0);
  o->dst = twStrdup(dst);
  o->tmp = sqlite3_malloc64(strlen(dst) + 64);
  o->buf = sqlite3_malloc64(TW_BUF);
  o->cap = TW_BUF;
  if (!o->dst || !o->tmp || !o->buf) return twFail(o, "out of memory", 0);
  o->gz = twEndsWith(dst, ".gz");
  if (o->gz) {
    o->zbuf = sqlite3_malloc64(TW_BUF);
    if (!o->zbuf) return twFail(o, "out of memory", 0);
    o->zs.zalloc = twZalloc;
    o->zs.zfree = twZfree;
    if (deflateInit2(&o->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
      return twFail(o, "out of memory", 0);
    o->zinit = 1;
  }
  /* A fresh name next to the destination: rename() is atomic only within one file
  ** system. open(O_EXCL) instead of mkstemp() so that the mode follows the umask. */
  unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL) ^ (unsigned)(uintptr_t)o;
  for (int attempt = 0; attempt < 100; attempt++) {
    seed = seed * 1103515245u + 12345u;
    snprintf(o->tmp, strlen(dst) + 64, "%.*s.%s.tmp-%ld-%u", (int)dirlen, dst, base, (long)getpid(),
             (seed >> 8) & 0xFFFFFu);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (o->fd >= 0 || errno != EEXIST) break;
  }
  if (o->fd < 0) {
    int e = errno;
    sqlite3_free(o->tmp);
    o->tmp = NULL;
    return twFail(o, "cannot create the output", e);
  }
  return 0;
}

int tw_commit(tw_out *o) {
  if (o->failed || o->mem || o->fd < 0) return -1;
  if (twFlush(o, Z_FINISH)) return -1;
  if (fsync(o->fd) != 0) return twFail(o, "cannot write the output", errno);
  int rc = close(o->fd);
  o->fd = -1;
  if (rc != 0) return twFail(o, "cannot write the output", errno);
  if (rename(o->tmp, o->dst) != 0) return twFail(o, "cannot rename the output into place", errno);
  sqlite3_free(o->tmp);
  o->tmp = NULL;
  return 0;
}

void tw_close(tw_out *o) {
  if (o->fd >= 0) close(o->fd);
  if (o->tmp) unlink(o->tmp);
  if (o->zinit) deflateEnd(&o->zs);
  sqlite3_free(o->tmp);
  sqlite3_free(o->dst);
  sqlite3_free(o->buf);
  sqlite3_free(o->zbuf);
  o->fd = -1;
  o->tmp = o->dst = NULL;
  o->buf = o->zbuf = NULL;
  o->zinit = 0;
  o->n = o->cap = 0;
}

/* ------------------------------------------------------------ copying */

/* Writes token T (just returned by JS) with the comma rule: a ',' goes before a
** key or a value that follows a complete value. */
static int twToken(js_lexer *js, js_tok t, tw_out *o, int *comma) {
  if (t == JS_OBJ_END || t == JS_ARR_END) {
    *comma = 1;
    return twPutc(o, t == JS_OBJ_END ? '}' : ']');
  }
  if (*comma && twPutc(o, ',')) return -1;
  *comma = 1;
  switch (t) {
  case JS_OBJ_BEGIN: *comma = 0; return twPutc(o, '{');
  case JS_ARR_BEGIN: *comma = 0; return twPutc(o, '[');
  case JS_KEY:
    *comma = 0;
    if (js->plain) {
      if (twPutc(o, '"') || tw_write(o, js->s, js->n)) return -1;
      return tw_write(o, "\":", 2);
    }
    return tw_string(o, js->s, js->n) || twPutc(o, ':') ? -1 : 0;
  case JS_STRING:
    if (js->plain) return twPutc(o, '"') || tw_write(o, js->s, js->n) || twPutc(o, '"') ? -1 : 0;
    return tw_string(o, js->s, js->n);
  case JS_NUMBER: return tw_write(o, js->s, js->n);
  case JS_TRUE: return tw_write(o, "true", 4);
  case JS_FALSE: return tw_write(o, "false", 5);
  case JS_NULL: return tw_write(o, "null", 4);
  default: return 0;
  }
}

int tw_copy_value(js_lexer *js, js_tok t, tw_out *o, int *comma) {
  int depth;
  if (t == JS_ERROR) return TW_EINPUT;
  if (twToken(js, t, o, comma)) return TW_EOUTPUT;
  if (t != JS_OBJ_BEGIN && t != JS_ARR_BEGIN) return TW_OK;
  depth = js->depth - 1; /* the depth the value ends at */
  while (js->depth > depth) {
    t = js_next(js);
    if (t == JS_ERROR || t == JS_EOF) return TW_EINPUT;
    if (twToken(js, t, o, comma)) return TW_EOUTPUT;
  }
  return TW_OK;
}

/* The state of one tw_copy(). */
typedef struct tw_copier {
  js_lexer *js;
  tw_out *o;
  const tw_hooks *h;
  tw_result *res;
  int comma;
} tw_copier;

static int twIsKey(const js_lexer *js, const char *key) {
  size_t n = strlen(key);
  return js->n == n && memcmp(js->s, key, n) == 0;
}

/* Writes `"<patch_key>":<patch>` as a member (comma rule). */
static int twPatchMember(tw_copier *c, const char *patch, size_t n) {
  if (tw_sep(c->o, &c->comma) || tw_string(c->o, c->h->patch_key, strlen(c->h->patch_key)) ||
      twPutc(c->o, ':') || tw_write(c->o, patch, n))
    return TW_EOUTPUT;
  return TW_OK;
}

/* Copies the event object whose '{' was just read, setting args.<patch_key> (TW-3). */
static int twCopyPatched(tw_copier *c, const char *patch, size_t n) {
  js_lexer *js = c->js;
  int patched = 0, rc;
  if (twToken(js, JS_OBJ_BEGIN, c->o, &c->comma)) return TW_EOUTPUT;
  for (;;) {
    js_tok t = js_next(js);
    if (t == JS_OBJ_END) {
      if (!patched) { /* no args: create it */
        if (tw_sep(c->o, &c->comma) || tw_write(c->o, "\"args\":{", 8)) return TW_EOUTPUT;
        c->comma = 0;
        if ((rc = twPatchMember(c, patch, n)) != TW_OK) return rc;
        if (twPutc(c->o, '}')) return TW_EOUTPUT;
      }
      if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
      break;
    }
    if (t != JS_KEY) return TW_EINPUT;
    int is_args = !patched && twIsKey(js, "args");
    if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
    t = js_next(js);
    if (!is_args) {
      if ((rc = tw_copy_value(js, t, c->o, &c->comma)) != TW_OK) return rc;
      continue;
    }
    patched = 1;
    if (t == JS_ERROR) return TW_EINPUT;
    if (t != JS_OBJ_BEGIN) { /* args that is not an object is replaced */
      if (js_skip(js, t)) return TW_EINPUT;
      if (twToken(js, JS_OBJ_BEGIN, c->o, &c->comma)) return TW_EOUTPUT;
      if ((rc = twPatchMember(c, patch, n)) != TW_OK) return rc;
      if (twToken(js, JS_OBJ_END, c->o, &c->comma)) return TW_EOUTPUT;
      continue;
    }
    if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
    for (;;) { /* the members of args */
      t = js_next(js);
      if (t == JS_OBJ_END) {
        if ((rc = twPatchMember(c, patch, n)) != TW_OK) return rc;
        if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
        break;
      }
      if (t != JS_KEY) return TW_EINPUT;
      if (twIsKey(js, c->h->patch_key)) { /* replaced by ours */
        t = js_next(js);
        if (t == JS_ERROR || js_skip(js, t)) return TW_EINPUT;
        continue;
      }
      if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
      if ((rc = tw_copy_value(js, js_next(js), c->o, &c->comma)) != TW_OK) return rc;
    }
  }
  c->res->patched++;
  return TW_OK;
}

/* Copies the elements of traceEvents after its '[' and the closing ']' (TW-3, TW-4). */
static int twCopyEvents(tw_copier *c) {
  js_lexer *js = c->js;
  int rc;
  if (twToken(js, JS_ARR_BEGIN, c->o, &c->comma)) return TW_EOUTPUT;
  for (;;) {
    js_tok t = js_next(js);
    if (t == JS_ARR_END) {
      if (c->h && c->h->append && c->h->append(c->h->ctx, c->o, &c->comma)) {
        return c->o->failed ? TW_EOUTPUT : TW_EHOOK;
      }
      return twToken(js, t, c->o, &c->comma) ? TW_EOUTPUT : TW_OK;
    }
    if (t == JS_ERROR || t == JS_EOF) return TW_EINPUT;
    int64_t seq = c->res->events++;
    const char *patch = NULL;
    size_t n = 0;
    if (t == JS_OBJ_BEGIN && c->h && c->h->patch) patch = c->h->patch(c->h->ctx, seq, &n);
    rc = patch ? twCopyPatched(c, patch, n) : tw_copy_value(js, t, c->o, &c->comma);
    if (rc != TW_OK) return rc;
  }
}

/* The top level (TW-2). */
static int twCopyTop(tw_copier *c) {
  js_lexer *js = c->js;
  int seen = 0, rc;
  js_tok t = js_next(js);
  if (t == JS_ARR_BEGIN) {
    c->res->is_array = 1;
    if ((rc = twCopyEvents(c)) != TW_OK) return rc;
  } else if (t == JS_OBJ_BEGIN) {
    if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
    for (;;) {
      t = js_next(js);
      if (t == JS_OBJ_END) break;
      if (t != JS_KEY) return TW_EINPUT;
      int is_events = twIsKey(js, "traceEvents");
      uint64_t off = js->tok_off;
      if (is_events && seen) {
        js_fail(js, off, "duplicate \"traceEvents\"");
        return TW_EINPUT;
      }
      if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
      t = js_next(js);
      if (is_events && t != JS_ARR_BEGIN) {
        if (t != JS_ERROR) js_fail(js, js->tok_off, "wrong type: \"traceEvents\" must be an array");
        return TW_EINPUT;
      }
      rc = is_events ? twCopyEvents(c) : tw_copy_value(js, t, c->o, &c->comma);
      if (rc != TW_OK) return rc;
      seen |= is_events;
    }
    if (!seen) {
      js_fail(js, js->tok_off, "not a Kineto trace: no traceEvents array");
      return TW_EINPUT;
    }
    if (twToken(js, t, c->o, &c->comma)) return TW_EOUTPUT;
  } else {
    if (t != JS_ERROR) js_fail(js, js->tok_off, "not a Kineto trace: no traceEvents array");
    return TW_EINPUT;
  }
  return js_next(js) == JS_EOF ? TW_OK : TW_EINPUT;
}

int tw_copy(const char *path, tw_out *o, const tw_hooks *h, tw_result *res, char err[TW_ERR_MAX]) {
  rd_reader rd;
  js_lexer js;
  tw_copier c;
  int rc;
  memset(res, 0, sizeof *res);
  err[0] = 0;
  if (rd_open(&rd, path) != 0) {
    int nomem = rd.nomem;
    snprintf(err, TW_ERR_MAX, "%s", rd.err);
    rd_close(&rd);
    return nomem ? TW_ENOMEM : TW_EINPUT;
  }
  js_init(&js, &rd);
  memset(&c, 0, sizeof c);
  c.js = &js;
  c.o = o;
  c.h = h;
  c.res = res;
  rc = twCopyTop(&c);
  if (rc == TW_EINPUT) {
    if (js.nomem) rc = TW_ENOMEM;
    snprintf(err, TW_ERR_MAX, "byte %llu: %s", (unsigned long long)js.err_off, js.err);
  } else if (rc == TW_OK) {
    res->hash = rd_hash64(&rd);
    res->raw_size = rd.file_size;
  }
  js_free(&js);
  rd_close(&rd);
  return rc;
}

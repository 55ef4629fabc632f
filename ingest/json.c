/*
** json.c: the streaming JSON tokenizer of json.h.
**
** Requirements (the unit tests cite them):
**   J1 RFC 8259 grammar; anything else is an error at the offending byte:
**      "unexpected character 'x'", "expected ',' or '}'", "expected ',' or ']'",
**      "expected ':' after object key", "expected a string key",
**      "invalid number", "invalid literal", "trailing data after JSON value".
**   J2 input that ends early: "unexpected end of input" at the end offset.
**   J3 strings: escapes decoded; "\uD83D\uDE00" pairs joined; a lone surrogate
**      is "lone surrogate" at its backslash; raw bytes must be valid UTF-8
**      (no overlong forms, no surrogates, nothing above U+10FFFF):
**      "invalid UTF-8" at the first byte of the bad sequence; raw bytes below
**      0x20: "control character in string"; bad escapes: "invalid escape".
**   J4 more than JS_MAX_DEPTH open containers: "nesting deeper than 512
**      levels" at the bracket that exceeds it.
**   J5 limits: "string longer than 4 MiB", "number too long".
**   J6 offsets are in the uncompressed JSON text, counted from 0.
*/
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define JS_NOINLINE __attribute__((noinline))
#define JS_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define JS_NOINLINE
#define JS_LIKELY(x) (x)
#endif

/* rd_refill() that keeps adj in step. */
static int jsRefill(js_lexer *js, const char *keep) {
  int r = rd_refill(js->rd, keep);
  js->adj = js->rd->base - (uint64_t)(uintptr_t)js->rd->buf;
  return r;
}

/* ------------------------------------------------------------ errors */

js_tok js_fail(js_lexer *js, uint64_t off, const char *fmt, ...) {
  if (js->state == JS_ST_ERROR) return JS_ERROR; /* keep the first error */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(js->err, sizeof js->err, fmt, ap);
  va_end(ap);
  js->err_off = off;
  js->state = JS_ST_ERROR;
  return JS_ERROR;
}

static js_tok jsFailAt(js_lexer *js, const char *p, const char *msg) {
  return js_fail(js, js_offset(js, p), "%s", msg);
}

/* An error from rd_refill() (R = -1 reader error, -2 token too long). */
static js_tok jsReaderFail(js_lexer *js, int r, const char *p, const char *what) {
  if (r == -2) return jsFailAt(js, p, what);
  if (strcmp(js->rd->err, "out of memory") == 0) js->nomem = 1;
  return js_fail(js, rd_offset(js->rd, js->rd->end), "%s", js->rd->err);
}

static js_tok jsUnexpected(js_lexer *js, const char *p) {
  unsigned char c = (unsigned char)*p;
  if (c > 0x20 && c < 0x7f) return js_fail(js, js_offset(js, p), "unexpected character '%c'", c);
  return js_fail(js, js_offset(js, p), "unexpected byte 0x%02x", c);
}

/* ------------------------------------------------------------ scratch */

/* Appends N bytes; 0, or -1 (error recorded; P locates it). */
static int jsAppend(js_lexer *js, const char *src, size_t n, const char *p) {
  if (n == 0) return 0;
  size_t need = js->scratch_n + n;
  if (need > JS_MAX_STRING) {
    jsFailAt(js, p, "string longer than 4 MiB");
    return -1;
  }
  if (need > js->scratch_cap) {
    size_t cap = js->scratch_cap ? js->scratch_cap : 256;
    while (cap < need) cap *= 2;
    char *q = realloc(js->scratch, cap);
    if (!q) {
      js->nomem = 1;
      jsFailAt(js, p, "out of memory");
      return -1;
    }
    js->scratch = q;
    js->scratch_cap = cap;
  }
  memcpy(js->scratch + js->scratch_n, src, n);
  js->scratch_n = need;
  return 0;
}

/* ------------------------------------------------------------ strings */

/*
** Length of the valid UTF-8 sequence at S (S[0] >= 0x80), or 0. Reads the
** bytes in order and stops at the first bad one, so the 0 after the buffer
** end stops it (Unicode 15, table 3-7).
*/
static inline int jsUtf8Len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0xC2) return 0;
  if (c < 0xE0) return (s[1] & 0xC0) == 0x80 ? 2 : 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c < 0xF0) {
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F; /* no UTF-16 surrogates */
    if (s[1] < lo || s[1] > hi) return 0;
    return (s[2] & 0xC0) == 0x80 ? 3 : 0;
  }
  if (c > 0xF4) return 0;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
  if (s[1] < lo || s[1] > hi) return 0;
  if ((s[2] & 0xC0) != 0x80) return 0;
  return (s[3] & 0xC0) == 0x80 ? 4 : 0;
}

static int jsHex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = (unsigned char)p[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return -1;
    v = v * 16 + d;
  }
  *out = v;
  return 0;
}

/*
** Decodes the escape at P (P[0] == '\\') into the scratch buffer. At least 12
** bytes are readable from P, or the input ends before. Returns the byte after
** the escape, or NULL on error.
*/
static const char *jsEscape(js_lexer *js, const char *p) {
  const char *end = js->rd->end;
  char out[4];
  size_t n = 1;
  if (p + 1 >= end) goto eof;
  switch (p[1]) {
  case '"': out[0] = '"', js->plain = 0; break;
  case '\\': out[0] = '\\', js->plain = 0; break;
  case '/': out[0] = '/'; break;
  case 'b': out[0] = '\b', js->plain = 0; break;
  case 'f': out[0] = '\f', js->plain = 0; break;
  case 'n': out[0] = '\n', js->plain = 0; break;
  case 'r': out[0] = '\r', js->plain = 0; break;
  case 't': out[0] = '\t', js->plain = 0; break;
  case 'u': {
    unsigned cp, lo;
    if (p + 6 > end) goto eof;
    if (jsHex4(p + 2, &cp)) goto bad_u;
    if (cp >= 0xDC00 && cp <= 0xDFFF) goto lone;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (p + 12 > end) {
        if (p + 6 < end && p[6] != '\\') goto lone;
        if (p + 7 < end && p[7] != 'u') goto lone;
        goto eof;
      }
      if (p[6] != '\\' || p[7] != 'u') goto lone;
      if (jsHex4(p + 8, &lo)) {
        p += 6;
        goto bad_u;
      }
      if (lo < 0xDC00 || lo > 0xDFFF) goto lone;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      p += 6;
    }
    if (cp < 0x80) {
      out[0] = (char)cp;
      if (cp < 0x20 || cp == '"' || cp == '\\') js->plain = 0;
    } else if (cp < 0x800) {
      out[0] = (char)(0xC0 | (cp >> 6));
      out[1] = (char)(0x80 | (cp & 0x3F));
      n = 2;
    } else if (cp < 0x10000) {
      out[0] = (char)(0xE0 | (cp >> 12));
      out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
      out[2] = (char)(0x80 | (cp & 0x3F));
      n = 3;
    } else {
      out[0] = (char)(0xF0 | (cp >> 18));
      out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
      out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
      out[3] = (char)(0x80 | (cp & 0x3F));
      n = 4;
    }
    if (jsAppend(js, out, n, p)) return NULL;
    return p + 6;
  }
  default: jsFailAt(js, p, "invalid escape"); return NULL;
  }
  if (jsAppend(js, out, 1, p)) return NULL;
  return p + 2;
eof:
  jsFailAt(js, end, "unexpected end of input");
  return NULL;
bad_u:
  jsFailAt(js, p, "invalid \\u escape");
  return NULL;
lone:
  jsFailAt(js, p, "lone surrogate");
  return NULL;
}

/*
** Scans the string whose opening quote is at P[-1]. Sets s, n, plain and
** js->p (after the closing quote). 0, or -1 with the error recorded.
*/
static JS_NOINLINE int jsString(js_lexer *js, const char *p) {
  rd_reader *rd = js->rd;
  const char *seg = p; /* start of the bytes not yet copied */
  int copied = 0;      /* the value is being built in scratch */
  js->plain = 1;
  for (;;) {
    p = js_str_scan(p);
    unsigned char c = (unsigned char)*p;
    if (c == '"') {
      if (!copied) {
        js->s = seg;
        js->n = (size_t)(p - seg);
      } else {
        if (jsAppend(js, seg, (size_t)(p - seg), p)) return -1;
        js->s = js->scratch ? js->scratch : "";
        js->n = js->scratch_n;
      }
      js->p = p + 1;
      return 0;
    }
    if (c >= 0x80) {
      int k = jsUtf8Len((const unsigned char *)p);
      if (k) {
        p += k;
        continue;
      }
      if (p + 4 <= rd->end || rd->eof) {
        jsFailAt(js, p, "invalid UTF-8");
        return -1;
      }
      /* The sequence may be cut by the buffer end: refill and look again. */
    } else if (c == '\\') {
      if (p + 12 <= rd->end || rd->eof) {
        if (!copied) js->scratch_n = 0, copied = 1;
        if (jsAppend(js, seg, (size_t)(p - seg), p)) return -1;
        p = seg = jsEscape(js, p);
        if (!p) return -1;
        continue;
      }
    } else if (p != rd->end) {
      jsFailAt(js, p, "control character in string");
      return -1;
    }
    /* Refill, keeping [p, end): the escape or UTF-8 sequence cut at the end. */
    if (!copied) js->scratch_n = 0, copied = 1;
    if (jsAppend(js, seg, (size_t)(p - seg), p)) return -1;
    int r = jsRefill(js, p);
    if (r < 0) {
      jsReaderFail(js, r, p, "string too long");
      return -1;
    }
    p = seg = rd->p;
    if (r == 0 && p == rd->end) {
      jsFailAt(js, p, "unexpected end of input");
      return -1;
    }
  }
}

/* ------------------------------------------------------------ numbers */

/* Scans the number at P0. Sets s, n and js->p. 0, or -1 with the error recorded. */
static JS_NOINLINE int jsNumber(js_lexer *js, const char *p0) {
  rd_reader *rd = js->rd;
  for (;;) {
    const char *p = p0;
    if (*p == '-') p++;
    if (*p == '0') {
      p++;
    } else if (JS_DIGIT(*p)) {
      p++;
      while (JS_DIGIT(*p)) p++;
    } else {
      goto bad;
    }
    if (*p == '.') {
      p++;
      if (!JS_DIGIT(*p)) goto bad;
      while (JS_DIGIT(*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
      p++;
      if (*p == '+' || *p == '-') p++;
      if (!JS_DIGIT(*p)) goto bad;
      while (JS_DIGIT(*p)) p++;
    }
    if (p != rd->end || rd->eof) {
      if (p - p0 > JS_MAX_NUMBER) {
        jsFailAt(js, p0, "number too long");
        return -1;
      }
      js->s = p0;
      js->n = (size_t)(p - p0);
      js->p = p;
      return 0;
    }
    goto more;
  bad:
    if (p != rd->end || rd->eof) {
      if (p == rd->end) {
        jsFailAt(js, p, "unexpected end of input");
      } else {
        jsFailAt(js, p0, "invalid number");
      }
      return -1;
    }
  more:
    /* The number touches the buffer end: move it to the front and rescan. */
    if (rd->end - p0 > JS_MAX_NUMBER) {
      jsFailAt(js, p0, "number too long");
      return -1;
    }
    int r = jsRefill(js, p0);
    if (r < 0) {
      jsReaderFail(js, r, p0, "number too long");
      return -1;
    }
    p0 = rd->p;
  }
}

/* Matches the literal WORD (LEN bytes) at P. 0, or -1 with the error recorded. */
static JS_NOINLINE int jsLiteral(js_lexer *js, const char *p, const char *word, size_t len) {
  rd_reader *rd = js->rd;
  while ((size_t)(rd->end - p) < len && !rd->eof) {
    int r = jsRefill(js, p);
    if (r < 0) {
      jsReaderFail(js, r, p, "invalid literal");
      return -1;
    }
    p = rd->p;
  }
  size_t have = (size_t)(rd->end - p);
  if (have >= len && memcmp(p, word, len) == 0) {
    js->p = p + len;
    return 0;
  }
  if (have < len && memcmp(p, word, have) == 0) jsFailAt(js, rd->end, "unexpected end of input");
  else jsFailAt(js, p, "invalid literal");
  return -1;
}

/* ------------------------------------------------------------ tokens */

void js_init(js_lexer *js, rd_reader *rd) {
  memset(js, 0, sizeof *js);
  js->rd = rd;
  js->p = rd->p;
  js->adj = rd->base - (uint64_t)(uintptr_t)rd->buf;
  js->state = JS_ST_VALUE;
}

void js_init_in(js_lexer *js, rd_reader *rd, const unsigned char *stack, int depth) {
  js_init(js, rd);
  memcpy(js->stack, stack, (size_t)depth);
  js->depth = depth;
}

void js_free(js_lexer *js) {
  free(js->scratch);
  js->scratch = NULL;
  js->scratch_n = js->scratch_cap = 0;
}

/*
** The byte at P is not what the state allows, or it is the 0 at the buffer
** end. Refills and returns JS_EOF to go on scanning at js->p, or records the
** error and returns JS_ERROR (or returns the real JS_EOF at the clean end).
*/
static JS_NOINLINE js_tok jsSlow(js_lexer *js, const char *p, int *more) {
  rd_reader *rd = js->rd;
  *more = 0;
  if (*p == 0 && p == rd->end) {
    int r = jsRefill(js, p);
    if (r < 0) return jsReaderFail(js, r, p, "unexpected end of input");
    js->p = rd->p;
    if (r > 0) {
      *more = 1;
      return JS_EOF;
    }
    if (js->state == JS_ST_AFTER_TOP) {
      js->state = JS_ST_DONE;
      js->tok_off = js_offset(js, js->p);
      return JS_EOF;
    }
    return jsFailAt(js, js->p, "unexpected end of input");
  }
  switch (js->state) {
  case JS_ST_AFTER_TOP: return jsFailAt(js, p, "trailing data after JSON value");
  case JS_ST_AFTER_OBJ: return jsFailAt(js, p, "expected ',' or '}'");
  case JS_ST_AFTER_ARR: return jsFailAt(js, p, "expected ',' or ']'");
  case JS_ST_COLON: return jsFailAt(js, p, "expected ':' after object key");
  case JS_ST_FIRST_KEY:
  case JS_ST_KEY: return jsFailAt(js, p, "expected a string key");
  default: return jsUnexpected(js, p);
  }
}

js_tok js_next(js_lexer *js) {
  const char *p = js->p;
  for (;;) {
    p = js_ws_skip(p);
    unsigned char c = (unsigned char)*p;
    js->tok_off = js_offset(js, p);
    switch (js->state) {
    case JS_ST_AFTER_OBJ:
      if (c == ',') {
        /* The next key, straight away (the common case). */
        p = js_ws_skip(p + 1);
        c = (unsigned char)*p;
        js->tok_off = js_offset(js, p);
        js->state = JS_ST_KEY;
        if (c == '"') goto key;
        continue;
      }
      if (c == '}') goto close;
      break;
    case JS_ST_AFTER_ARR:
      if (c == ',') {
        p = js_ws_skip(p + 1);
        c = (unsigned char)*p;
        js->tok_off = js_offset(js, p);
        js->state = JS_ST_VALUE;
        goto value;
      }
      if (c == ']') goto close;
      break;
    case JS_ST_COLON:
      if (c != ':') break;
      js->state = JS_ST_VALUE;
      p++;
      continue;
    case JS_ST_FIRST_KEY:
      if (c == '}') goto close;
      /* fall through */
    case JS_ST_KEY:
      if (c != '"') break;
    key : {
      /* Fast path: no escape, ASCII, inside the buffer. */
      const char *q = js_str_scan(p + 1);
      if (JS_LIKELY(*q == '"')) {
        js->s = p + 1;
        js->n = (size_t)(q - p - 1);
        js->plain = 1;
        js->p = q + 1;
      } else if (jsString(js, p + 1)) {
        return JS_ERROR;
      }
    }
      /* Take the colon (and one space) now when right there (the common case). */
      if (*js->p == ':') {
        js->p += 1 + (js->p[1] == ' ');
        js->state = JS_ST_VALUE;
      } else {
        js->state = JS_ST_COLON;
      }
      return JS_KEY;
    case JS_ST_FIRST_VALUE:
      if (c == ']') goto close;
      /* fall through */
    case JS_ST_VALUE:
    value:
      switch (c) {
      case '"': {
        const char *q = js_str_scan(p + 1);
        if (JS_LIKELY(*q == '"')) {
          js->s = p + 1;
          js->n = (size_t)(q - p - 1);
          js->plain = 1;
          js->p = q + 1;
        } else if (jsString(js, p + 1)) {
          return JS_ERROR;
        }
        js->state = js_after(js);
        return JS_STRING;
      }
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9': {
        /* Fast path: [-]int[.frac] ending inside the buffer; else the full scan. */
        const char *q = js_number_end(js, p);
        if (JS_LIKELY(q != NULL)) {
          js->s = p;
          js->n = (size_t)(q - p);
          js->p = q;
        } else if (jsNumber(js, p)) {
          return JS_ERROR;
        }
        js->state = js_after(js);
        return JS_NUMBER;
      }
      case '{':
      case '[':
        if (js->depth >= JS_MAX_DEPTH) return jsFailAt(js, p, "nesting deeper than 512 levels");
        js->stack[js->depth++] = (c == '{');
        js->state = c == '{' ? JS_ST_FIRST_KEY : JS_ST_FIRST_VALUE;
        js->p = p + 1;
        return c == '{' ? JS_OBJ_BEGIN : JS_ARR_BEGIN;
      case 't':
        if (jsLiteral(js, p, "true", 4)) return JS_ERROR;
        js->state = js_after(js);
        return JS_TRUE;
      case 'f':
        if (jsLiteral(js, p, "false", 5)) return JS_ERROR;
        js->state = js_after(js);
        return JS_FALSE;
      case 'n':
        if (jsLiteral(js, p, "null", 4)) return JS_ERROR;
        js->state = js_after(js);
        return JS_NULL;
      }
      break;
    case JS_ST_DONE: return JS_EOF;
    case JS_ST_ERROR: return JS_ERROR;
    }
    /* Not what the state allows: the buffer end, or an error. */
    int more;
    js_tok t = jsSlow(js, p, &more);
    if (!more) return t;
    p = js->p;
    continue;
  close:
    js->depth--;
    js->state = js_after(js);
    js->p = p + 1;
    return c == '}' ? JS_OBJ_END : JS_ARR_END;
  }
}

/* 1 when [p, p+len) holds WORD and lies inside the buffer. */
static inline int jsWord(const js_lexer *js, const char *p, const char *word, size_t len) {
  return (size_t)(js->rd->end - p) >= len && memcmp(p, word, len) == 0;
}

/*
** The same grammar as js_next() in one tight loop over well-formed ASCII
** content inside the buffer, without handing out tokens. Anything else (the
** buffer end, an escape, non-ASCII, an error) goes through js_next() for that
** one token, so every check and message is the same.
*/
int js_skip(js_lexer *js, js_tok tok) {
  if (tok == JS_ERROR) return -1;
  if (tok != JS_OBJ_BEGIN && tok != JS_ARR_BEGIN) return 0;
  const int base = js->depth - 1;
  const char *p = js->p;
  int state = js->state, depth = js->depth;
  for (;;) {
    p = js_ws_skip(p);
    unsigned char c = (unsigned char)*p;
    const char *q;
    switch (state) {
    case JS_ST_AFTER_OBJ:
      if (c == ',') {
        state = JS_ST_KEY;
        p++;
        continue;
      }
      if (c == '}') goto close;
      goto slow;
    case JS_ST_AFTER_ARR:
      if (c == ',') {
        state = JS_ST_VALUE;
        p++;
        continue;
      }
      if (c == ']') goto close;
      goto slow;
    case JS_ST_COLON:
      if (c != ':') goto slow;
      state = JS_ST_VALUE;
      p++;
      continue;
    case JS_ST_FIRST_KEY:
      if (c == '}') goto close;
      /* fall through */
    case JS_ST_KEY:
      if (c != '"') goto slow;
      q = js_str_scan(p + 1);
      if (*q != '"') goto slow;
      p = q + 1;
      if (*p == ':') {
        p++;
        state = JS_ST_VALUE;
      } else {
        state = JS_ST_COLON;
      }
      continue;
    case JS_ST_FIRST_VALUE:
      if (c == ']') goto close;
      /* fall through */
    case JS_ST_VALUE:
      switch (c) {
      case '"':
        q = js_str_scan(p + 1);
        if (*q != '"') goto slow;
        p = q + 1;
        break;
      case '{':
      case '[':
        if (depth >= JS_MAX_DEPTH) goto slow;
        js->stack[depth++] = (c == '{');
        state = c == '{' ? JS_ST_FIRST_KEY : JS_ST_FIRST_VALUE;
        p++;
        continue;
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        q = js_number_end(js, p);
        if (!q) goto slow;
        p = q;
        break;
      case 't':
        if (!jsWord(js, p, "true", 4)) goto slow;
        p += 4;
        break;
      case 'f':
        if (!jsWord(js, p, "false", 5)) goto slow;
        p += 5;
        break;
      case 'n':
        if (!jsWord(js, p, "null", 4)) goto slow;
        p += 4;
        break;
      default: goto slow;
      }
      state = js->stack[depth - 1] ? JS_ST_AFTER_OBJ : JS_ST_AFTER_ARR; /* depth > base >= 0 */
      continue;
    default: goto slow;
    }
  close:
    depth--;
    p++;
    if (depth == base) {
      js->depth = depth;
      js->state = js_after(js);
      js->p = p;
      return 0;
    }
    state = js->stack[depth - 1] ? JS_ST_AFTER_OBJ : JS_ST_AFTER_ARR;
    continue;
  slow:
    js->p = p;
    js->state = state;
    js->depth = depth;
    if (js_next(js) == JS_ERROR) return -1;
    if (js->depth == base) return 0;
    p = js->p;
    state = js->state;
    depth = js->depth;
  }
}

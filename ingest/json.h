/*
** json.h: a streaming pull tokenizer for JSON over an rd_reader (prefix js_).
**
**   js_lexer js;
**   js_init(&js, &reader);
**   js_tok t;
**   while ((t = js_next(&js)) > JS_EOF) {
**     if (t == JS_KEY || t == JS_STRING) use(js.s, js.n);  // decoded UTF-8
**     if (t == JS_NUMBER) use(js.s, js.n);                 // the number's text
**   }
**   if (t == JS_ERROR) printf("byte %llu: %s\n", js.err_off, js.err);
**   js_free(&js);
**
** The tokenizer checks the whole grammar (RFC 8259): commas, colons, nesting,
** one top-level value followed only by whitespace. Strings are decoded (all
** escapes, \uXXXX surrogate pairs) and must be valid UTF-8; numbers are
** checked against the JSON grammar and handed out as text (the caller
** converts: times need exact decimal arithmetic, not a double).
**
** HOW IT WORKS: the tokenizer reads the reader's buffer in place. A string
** that has no escape and lies inside the buffer is returned as a pointer into
** it (no copy); others are decoded into a growable scratch buffer. A number or
** literal cut by the buffer end is rescanned after rd_refill() has moved it to
** the front. Containers are tracked in a fixed stack of JS_MAX_DEPTH bytes.
** Errors record the uncompressed byte offset and a message in fixed buffers
** (no allocation on the error path); after an error every call returns
** JS_ERROR. js_skip() runs the same grammar in one tight loop, and the inline
** js_key()/js_value() take the common object-member cases without a call;
** all three fall back to js_next() for anything unusual, so every check and
** message is the same whichever path read the bytes.
*/
#ifndef HTA_JSON_H
#define HTA_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
** Maximum nesting of arrays and objects. Bounds the fixed container stack,
** so 100k '[' fail cleanly instead of growing memory or the C stack of a
** recursive consumer. Real traces nest fewer than 10 levels (args hold lists
** of shapes); SQLite's json.c allows 1000.
*/
#define JS_MAX_DEPTH 512
#define JS_MAX_STRING (4u << 20) /* longest decoded string: 4 MiB (real traces: < 10 kB) */
#define JS_MAX_NUMBER 65536      /* longest number text, in bytes */
#define JS_ERR_MAX 160

typedef enum js_tok {
  JS_ERROR = -1,
  JS_EOF = 0, /* the top-level value is complete and only whitespace followed */
  JS_OBJ_BEGIN,
  JS_OBJ_END,
  JS_ARR_BEGIN,
  JS_ARR_END,
  JS_KEY,    /* an object key: s, n */
  JS_STRING, /* a string value: s, n */
  JS_NUMBER, /* number text: s, n */
  JS_TRUE,
  JS_FALSE,
  JS_NULL
} js_tok;

/* Grammar states (js_lexer.state); here for the inline fast paths below. */
enum {
  JS_ST_VALUE,       /* a value must follow */
  JS_ST_FIRST_VALUE, /* after '[': a value or ']' */
  JS_ST_FIRST_KEY,   /* after '{': a key or '}' */
  JS_ST_KEY,         /* after ',' in an object: a key */
  JS_ST_COLON,       /* after a key */
  JS_ST_AFTER_OBJ,   /* after a member value: ',' or '}' */
  JS_ST_AFTER_ARR,   /* after an element: ',' or ']' */
  JS_ST_AFTER_TOP,   /* after the top-level value: only the end of input */
  JS_ST_DONE,        /* JS_EOF was returned */
  JS_ST_ERROR
};

typedef struct js_lexer {
  rd_reader *rd;
  const char *p;    /* the cursor: next byte in rd's buffer (rd->p is not kept up to date) */
  const char *s;    /* KEY/STRING: decoded bytes; NUMBER: text; valid until the next js_next() */
  size_t n;         /* length of s */
  int plain;        /* KEY/STRING: s holds no '"', '\\' or byte < 0x20 (needs no escaping) */
  int depth;        /* open containers after this token */
  int state;        /* grammar state (private) */
  int nomem;        /* the error was an allocation failure */
  uint64_t tok_off; /* offset of the first byte of the last token */
  uint64_t adj;     /* rd->base - rd->buf, so an offset is adj + pointer */
  uint64_t err_off; /* offset of the error */
  char *scratch;    /* decoded strings that could not be returned in place */
  size_t scratch_n, scratch_cap;
  unsigned char stack[JS_MAX_DEPTH]; /* 1: object, 0: array */
  char err[JS_ERR_MAX];              /* message of the error, no offset */
} js_lexer;

void js_init(js_lexer *js, rd_reader *rd);

/*
** Starts inside DEPTH open containers (STACK[i]: 1 object, 0 array; depth <= 2 in
** practice), where a value must follow, as after the ',' of an array: for reading a
** document from one element on.
*/
void js_init_in(js_lexer *js, rd_reader *rd, const unsigned char *stack, int depth);

/* The next token; JS_EOF once after the top-level value, JS_ERROR on error. */
js_tok js_next(js_lexer *js);

/*
** Consumes the rest of the value whose first token TOK was just returned (a
** scalar is already complete). 0, or -1 on error. Still checks everything.
*/
int js_skip(js_lexer *js, js_tok tok);

/*
** Records an error found by the caller at offset OFF (e.g. a wrong type):
** the tokenizer then stays in the error state. Returns JS_ERROR.
*/
js_tok js_fail(js_lexer *js, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Frees the scratch buffer (the reader is not closed). */
void js_free(js_lexer *js);

/*
** ---------------------------------------------------------------- fast paths
** js_key() and js_value() return exactly what js_next() would. They are
** inline so that a decoder walking objects pays no call per token in the
** common case (a plain key, a plain string or a simple number, inside the
** buffer); anything else goes to js_next(). The helpers below them are
** internal to the tokenizer.
*/

#define JS_DIGIT(c) ((unsigned char)((c) - '0') < 10)

/* 1 for JSON whitespace. */
static const unsigned char js_ws[256] = {['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1};

/*
** First non-whitespace byte at or after P. Most runs are empty or one space
** (after ':' and ','); indentation runs are skipped 16 bytes at a time. The
** 0 after the buffer end is not whitespace, so this stops there.
*/
static inline const char *js_ws_skip(const char *p) {
  if (!js_ws[(unsigned char)*p]) return p;
  p++;
  if (!js_ws[(unsigned char)*p]) return p;
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r'), tb = _mm_set1_epi8('\t');
  for (;;) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                             _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
    unsigned mask = ~(unsigned)_mm_movemask_epi8(m) & 0xFFFFu;
    if (mask) return p + __builtin_ctz(mask);
    p += 16;
  }
#else
  while (js_ws[(unsigned char)*p]) p++;
  return p;
#endif
}

/* First byte at or after P that is '"', '\\', < 0x20 or >= 0x80. */
static inline const char *js_str_scan(const char *p) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"');
  const __m128i b = _mm_set1_epi8('\\');
  const __m128i c = _mm_set1_epi8(0x20);
  for (;;) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* Signed compare: bytes >= 0x80 are negative, so "< 0x20" catches both. */
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)),
                             _mm_cmplt_epi8(v, c));
    unsigned mask = (unsigned)_mm_movemask_epi8(m);
    if (mask) return p + __builtin_ctz(mask);
    p += 16;
  }
#else
  for (;;) {
    unsigned char ch = (unsigned char)*p;
    if (ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80) return p;
    p++;
  }
#endif
}

/*
** First byte at or after Q that is not an ASCII digit, 8 bytes at a time (the
** 0 after the buffer end stops it; RD_PAD covers the over-read). A byte is a
** digit iff its high nibble is 3 and adding 6 keeps it there; the lowest
** flagged byte is exact because only a non-digit below could carry into it.
*/
static inline const char *js_digits_skip(const char *q) {
#if defined(__GNUC__)
  for (;;) {
    uint64_t v;
    memcpy(&v, q, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    uint64_t t = ((v & 0xF0F0F0F0F0F0F0F0ULL) |
                  (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ^
                 0x3333333333333333ULL;
    if (t) return q + (__builtin_ctzll(t) >> 3);
    q += 8;
  }
#else
  while (JS_DIGIT(*q)) q++;
  return q;
#endif
}

/* Offset of P in the uncompressed input: one add (adj = base - buf). */
static inline uint64_t js_offset(const js_lexer *js, const char *p) {
  return js->adj + (uint64_t)(uintptr_t)p;
}

/* The state after a value: depends on the enclosing container. */
static inline int js_after(const js_lexer *js) {
  if (js->depth == 0) return JS_ST_AFTER_TOP;
  return js->stack[js->depth - 1] ? JS_ST_AFTER_OBJ : JS_ST_AFTER_ARR;
}

/*
** End of a simple number at P ([-]int[.frac], short, not touching the buffer
** end), or NULL when js_next() must scan it (exponent, errors, long, cut).
*/
static inline const char *js_number_end(const js_lexer *js, const char *p) {
  const char *q = p + (*p == '-');
  const char *d = q;
  q = *q == '0' ? q + 1 : js_digits_skip(q);
  if (q == d) return NULL; /* no integer digit ("-", "-.5"): the full scan says why */
  if (*q == '.' && JS_DIGIT(q[1])) q = js_digits_skip(q + 2);
  if (q - p >= 64 || *q == 'e' || *q == 'E' || *q == '.' || JS_DIGIT(*q) || q == js->rd->end)
    return NULL;
  return q;
}

/* Inside an object, after '{' or a member value: the next key, or OBJ_END. */
static inline js_tok js_key(js_lexer *js) {
  const char *p = NULL;
  if (js->state == JS_ST_AFTER_OBJ) {
    p = js_ws_skip(js->p);
    p = *p == ',' ? js_ws_skip(p + 1) : NULL;
  } else if (js->state == JS_ST_FIRST_KEY) {
    p = js_ws_skip(js->p);
  }
  if (p && *p == '"') {
    const char *q = js_str_scan(p + 1);
    if (*q == '"' && q[1] == ':') {
      js->tok_off = js_offset(js, p);
      js->s = p + 1;
      js->n = (size_t)(q - p - 1);
      js->plain = 1;
      js->p = q + 2 + (q[2] == ' ');
      js->state = JS_ST_VALUE;
      return JS_KEY;
    }
  }
  return js_next(js);
}

/* After a key: the first token of its value. */
static inline js_tok js_value(js_lexer *js) {
  if (js->state == JS_ST_VALUE) {
    const char *p = js_ws_skip(js->p), *q;
    unsigned char c = (unsigned char)*p;
    if (c == '"') {
      q = js_str_scan(p + 1);
      if (*q == '"') {
        js->tok_off = js_offset(js, p);
        js->s = p + 1;
        js->n = (size_t)(q - p - 1);
        js->plain = 1;
        js->p = q + 1;
        js->state = js_after(js);
        return JS_STRING;
      }
    } else if ((c == '-' || JS_DIGIT(c)) && (q = js_number_end(js, p)) != NULL) {
      js->tok_off = js_offset(js, p);
      js->s = p;
      js->n = (size_t)(q - p);
      js->p = q;
      js->state = js_after(js);
      return JS_NUMBER;
    }
  }
  return js_next(js);
}

#endif

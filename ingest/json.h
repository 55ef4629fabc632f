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
** JS_ERROR.
*/
#ifndef HTA_JSON_H
#define HTA_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

/*
** Maximum nesting of arrays and objects. Bounds the fixed container stack,
** so 100k '[' fail cleanly instead of growing memory or the C stack of a
** recursive consumer. Real traces nest fewer than 10 levels (args hold lists
** of shapes); SQLite's json.c allows 1000.
*/
#define JS_MAX_DEPTH 512
#define JS_MAX_STRING (256u << 20) /* longest decoded string: 256 MiB */
#define JS_MAX_NUMBER 65536        /* longest number text, in bytes */
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

#endif

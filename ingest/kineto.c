/*
** kineto.c: the streaming Kineto trace decoder of kineto.h.
**
** Requirements (the unit tests cite them):
**   K1 The top level is an object with "traceEvents" among its keys (before,
**      between or after the others), or a bare array of events. Valid JSON
**      without it: "not a Kineto trace: no traceEvents array". A second
**      "traceEvents": "duplicate \"traceEvents\"". A non-array one:
**      "wrong type: \"traceEvents\" must be an array".
**   K2 seq is the position in traceEvents; elements that are not objects are
**      skipped but counted.
**   K3 ts and dur are µs text converted to int64 ns exactly from the decimal
**      digits (exponents allowed); digits below 1 ns round half to even.
**      Outside int64: "number out of range (\"ts\")". Not a number:
**      "wrong type: \"ts\" must be a number". null means absent, for every field.
**   K4 name, cat, ph, bp must be strings; pid, tid, id integers or strings
**      ("wrong type: ..." otherwise).
**   K5 args.correlation, args."External id", args.device: promoted when the
**      number is an integer (1.0 counts, 1.5 does not: it stays in args); an
**      integer outside int64 is "number out of range". Other types stay in args.
**   K6 args.stream: a number, or a string that is a JSON number ("7"),
**      truncated toward zero (HTA's to_numeric + int cast); "0x0" is not
**      numeric and stays in args. A number outside int64 is "number out of
**      range"; a string that does not fit is treated as not numeric.
**   K7 KT_FULL: args re-serialised minified, keys in order, strings escaped
**      canonically (only '"', '\\' and bytes < 0x20 are escaped: \" \\ \b \f
**      \n \r \t, else \u00XX; everything else raw UTF-8; numbers as written),
**      minus the promoted members of K5, and minus stream when numeric and
**      the event is GPU work. "{}" is reported as n == 0.
**   K8 M events: args.name (string) and args.sort_index (integer). C events:
**      the args that are JSON numbers, as doubles; a number beyond the double
**      range is "number out of range (\"args\")". Both modes decode these (the
**      header promises them for KT_FULL), so no error depends on the mode.
**   K9 kt_meta: distributedInfo.rank / world_size (integer or digit string),
**      backend, schemaVersion (string, or a number's text), baseTimeNanoseconds
**      (integer or digit string), displayTimeUnit, deviceProperties (array
**      text), metadata (object of every top-level key but traceEvents, in
**      order, minified as in K7). Metadata over 64 MiB is an error
**      ("top-level metadata larger than 64 MiB") unless the file is not a
**      trace anyway (then K1's message).
**   K10 Memory: fixed buffers + the largest event (+ the metadata). One event's
**      strings, or (KT_FULL) its args JSON, over 16 MiB: "event larger than 16 MiB";
**      one string over 4 MiB: J5. Real traces stay under 10 kB per event.
*/
#include "kineto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reader.h"

#if defined(__GNUC__)
#define KT_INLINE inline __attribute__((always_inline))
#define KT_NOINLINE __attribute__((noinline))
#else
#define KT_INLINE inline
#define KT_NOINLINE
#endif

#define KT_MAX_META (64u << 20)
/* One event's strings or args JSON. Real traces stay under 10 kB; the cap keeps a
** hostile event from costing memory without bound (it fails with its offset). */
#define KT_MAX_EVENT (16u << 20)
#define KT_DIGIT(c) ((unsigned char)((c) - '0') < 10)

/* A growable byte buffer. */
typedef struct kt_buf {
  char *p;
  size_t n, cap;
} kt_buf;

/* A string kept in a buffer by offset, resolved to a kt_span at the end. */
typedef struct kt_ref {
  size_t off, n;
} kt_ref;

/* A counter under construction: its key lives in the arena. */
typedef struct kt_ctr {
  kt_ref key;
  double value;
} kt_ctr;

/* KS_SPLIT: stopped at stop_at, the '{' of an element read: kt_next goes on there. */
enum { KS_START, KS_TOP, KS_EVENTS, KS_SPLIT, KS_END, KS_ERROR };

struct kt_file {
  rd_reader rd;
  js_lexer js;
  kt_mode mode;
  int state;    /* KS_* */
  int rc_error; /* KT_ERROR or KT_NOMEM once in KS_ERROR */
  kt_event ev;  /* the event handed out */
  kt_buf arena; /* strings of the current event */
  kt_buf args;  /* args JSON of the current event (KT_FULL) */
  kt_ref name, cat, pid, tid, id, bp, meta_name;
  int has_meta_name;             /* args.name was a string */
  size_t stream_beg, stream_end; /* the stream member inside args, if numeric */
  kt_ctr *ctr;                   /* counters of the current event */
  kt_counter *counters;
  int nctr, ctr_cap;
  int ctr_big;          /* a numeric arg beyond the double range was seen */
  uint64_t ctr_big_off; /* its offset */
  kt_buf meta;          /* metadata object text, without the closing '}' until the end */
  kt_buf mstr;          /* decoded top-level strings */
  kt_ref backend, schema, dtu, devprops; /* devprops is in meta, the others in mstr */
  int has_backend, has_schema, has_dtu, has_devprops;
  int meta_big;     /* the metadata outgrew KT_MAX_META */
  int not_trace;    /* the error: valid JSON, but no traceEvents array */
  uint64_t stop_at; /* kt_stop_at(): the offset of an element's '{', 0 when none */
  kt_meta m;
  char err[KT_ERR_MAX];
};

/* ------------------------------------------------------------ buffers */

/* Records an allocation failure. Returns -1. */
static int ktNoMem(kt_file *f) {
  f->js.nomem = 1;
  js_fail(&f->js, f->js.tok_off, "out of memory");
  return -1;
}

/* Makes room for N more bytes. 0, or -1 (out of memory, or an event over
** KT_MAX_EVENT, recorded). Capacities stay <= the limit, so n <= limit always. */
static int ktGrow(kt_file *f, kt_buf *b, size_t n) {
  if (b->cap - b->n >= n) return 0;
  size_t limit = b == &f->meta ? SIZE_MAX / 2 : KT_MAX_EVENT;
  if (n > limit - b->n) {
    if (b == &f->meta) goto oom;
    js_fail(&f->js, f->js.tok_off, "event larger than 16 MiB");
    return -1;
  }
  size_t cap = b->cap ? b->cap : 1024;
  while (cap - b->n < n) cap *= 2;
  if (cap > limit) cap = limit;
  char *q = realloc(b->p, cap);
  if (!q) goto oom;
  b->p = q;
  b->cap = cap;
  return 0;
oom:
  return ktNoMem(f);
}

static inline int ktPut(kt_file *f, kt_buf *b, const char *s, size_t n) {
  if (n == 0) return 0;
  if (b->cap - b->n < n && ktGrow(f, b, n)) return -1;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  return 0;
}

static inline int ktPutc(kt_file *f, kt_buf *b, char c) {
  if (b->n == b->cap && ktGrow(f, b, 1)) return -1;
  b->p[b->n++] = c;
  return 0;
}

/* Appends S as a JSON string literal (K7). PLAIN: nothing needs escaping. */
static int ktPutStr(kt_file *f, kt_buf *b, const char *s, size_t n, int plain) {
  static const char hex[] = "0123456789abcdef";
  if (plain) {
    if (b->cap - b->n < n + 2 && ktGrow(f, b, n + 2)) return -1;
    char *o = b->p + b->n;
    o[0] = '"';
    memcpy(o + 1, s, n);
    o[n + 1] = '"';
    b->n += n + 2;
    return 0;
  }
  size_t need = 2; /* the exact escaped length, so the event cap counts real bytes */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    need += c >= 0x20 && c != '"' && c != '\\' ? 1 : strchr("\"\\\b\f\n\r\t", c) && c ? 2 : 6;
  }
  if (ktGrow(f, b, need)) return -1;
  char *o = b->p + b->n;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      *o++ = (char)c;
      continue;
    }
    *o++ = '\\';
    switch (c) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '\b': *o++ = 'b'; break;
    case '\f': *o++ = 'f'; break;
    case '\n': *o++ = 'n'; break;
    case '\r': *o++ = 'r'; break;
    case '\t': *o++ = 't'; break;
    default:
      *o++ = 'u', *o++ = '0', *o++ = '0';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    }
  }
  *o++ = '"';
  b->n = (size_t)(o - b->p);
  return 0;
}

/* Copies the lexer's current string into the arena. */
static inline int ktKeep(kt_file *f, kt_ref *r) {
  r->off = f->arena.n;
  r->n = f->js.n;
  return ktPut(f, &f->arena, f->js.s, f->js.n);
}

static inline kt_span ktSpan(const kt_buf *b, kt_ref r) {
  kt_span s = {r.n ? b->p + r.off : "", r.n};
  return s;
}

/* ------------------------------------------------------------ numbers */

enum { KT_HALF_EVEN, KT_TRUNC };

/*
** Converts the JSON number text S[0..N) (grammar already checked) to
** round(value * 10^SCALE) in *OUT, rounding half to even or truncating toward
** zero (MODE). *EXACT = 0 when a non-zero digit was dropped. Returns 0, or 1
** when the result is outside int64. Never goes through a double.
*/
static KT_NOINLINE int ktDecimalSlow(const char *s, size_t n, int scale, int mode, int64_t *out,
                                     int *exact);

/* 8 ASCII digits, first in the lowest byte, to their value; -1 if not all digits. */
static inline int64_t ktEight(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  if (((v & 0xF0F0F0F0F0F0F0F0ULL) |
       (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) != 0x3333333333333333ULL)
    return -1;
  v -= 0x3030303030303030ULL;
  v = v * 10 + (v >> 8); /* pairs */
  v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
       (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
      32;
  return (int64_t)v;
}

static KT_INLINE int ktDecimal(const char *s, size_t n, int scale, int mode, int64_t *out,
                               int *exact) {
  /* Fast path: [-]digits[.digits] with at most SCALE decimals and at most 19
  ** digits after scaling (always fits in uint64): every plain ts and dur. */
  static const uint64_t pow10[] = {1, 10, 100, 1000};
  const char *p = s, *end = s + n;
  int neg = p < end && *p == '-';
  p += neg;
  const char *q = p;
  uint64_t acc = 0;
  int64_t eight;
  while (end - p >= 8 && (eight = ktEight(p)) >= 0) acc = acc * 100000000 + (uint64_t)eight, p += 8;
  while (p < end && KT_DIGIT(*p)) acc = acc * 10 + (uint64_t)(*p++ - '0');
  if ((size_t)(p - q) + (size_t)scale <= 19 && scale <= 3) {
    int nf = 0;
    if (p < end && *p == '.') {
      p++;
      while (p < end && nf < scale && KT_DIGIT(*p)) acc = acc * 10 + (uint64_t)(*p++ - '0'), nf++;
    }
    if (p == end) {
      acc *= pow10[scale - nf];
      const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
      if (acc > limit) return 1;
      *exact = 1;
      if (!neg) *out = (int64_t)acc;
      else *out = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
      return 0;
    }
  }
  return ktDecimalSlow(s, n, scale, mode, out, exact);
}

/* The general case of ktDecimal(): any digits and exponent. */
static KT_NOINLINE int ktDecimalSlow(const char *s, size_t n, int scale, int mode, int64_t *out,
                                     int *exact) {
  const char *end = s + n;
  int neg = 0;
  if (s < end && *s == '-') neg = 1, s++;
  const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  const char *ip = s;
  while (s < end && KT_DIGIT(*s)) s++;
  size_t nint = (size_t)(s - ip);
  const char *fp = s;
  size_t nfrac = 0;
  if (s < end && *s == '.') {
    fp = ++s;
    while (s < end && KT_DIGIT(*s)) s++;
    nfrac = (size_t)(s - fp);
  }
  int64_t ex = 0;
  if (s < end && (*s == 'e' || *s == 'E')) {
    int eneg = 0;
    s++;
    if (s < end && (*s == '+' || *s == '-')) eneg = (*s++ == '-');
    for (; s < end; s++)
      if (ex < 1000000) ex = ex * 10 + (*s - '0'); /* saturates: far out anyway */
    if (eneg) ex = -ex;
  }
  uint64_t acc = 0;
  *exact = 1;
  {
    /* The digits D = int ++ frac; the scaled value is D * 10^(pt - nd). */
    size_t nd = nint + nfrac;
    int64_t pt = (int64_t)nint + ex + scale; /* digits before the point */
#define KT_DIG(k) ((uint64_t)((k) < nint ? ip[k] - '0' : fp[(k)-nint] - '0'))
    size_t take = pt <= 0 ? 0 : ((uint64_t)pt >= nd ? nd : (size_t)pt);
    for (size_t k = 0; k < take; k++) {
      uint64_t d = KT_DIG(k);
      if (acc > (limit - d) / 10) return 1;
      acc = acc * 10 + d;
    }
    if (pt > (int64_t)nd && acc != 0) {
      for (int64_t z = pt - (int64_t)nd; z > 0; z--) {
        if (acc > limit / 10) return 1;
        acc *= 10;
      }
    }
    if (take < nd) {
      uint64_t first = pt < 0 ? 0 : KT_DIG(take);
      int rest = 0;
      for (size_t k = pt < 0 ? 0 : take + 1; k < nd && !rest; k++) rest = KT_DIG(k) != 0;
      if (first || rest) *exact = 0;
      if (mode == KT_HALF_EVEN && (first > 5 || (first == 5 && (rest || (acc & 1))))) {
        if (acc + 1 > limit) return 1;
        acc++;
      }
    }
#undef KT_DIG
  }
  if (!neg) *out = (int64_t)acc;
  else *out = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
  return 0;
}

/* 1 when S[0..N) is exactly a JSON number (for numeric strings, K6). */
static int ktIsNumber(const char *s, size_t n) {
  const char *e = s + n;
  if (s < e && *s == '-') s++;
  if (s < e && *s == '0') {
    s++;
  } else {
    if (s == e || !KT_DIGIT(*s)) return 0;
    while (s < e && KT_DIGIT(*s)) s++;
  }
  if (s < e && *s == '.') {
    s++;
    if (s == e || !KT_DIGIT(*s)) return 0;
    while (s < e && KT_DIGIT(*s)) s++;
  }
  if (s < e && (*s == 'e' || *s == 'E')) {
    s++;
    if (s < e && (*s == '+' || *s == '-')) s++;
    if (s == e || !KT_DIGIT(*s)) return 0;
    while (s < e && KT_DIGIT(*s)) s++;
  }
  return s == e;
}

/* 1 and *OUT when S[0..N) is only ASCII digits and fits in int64 ("3" as a rank). */
static int ktDigits(const char *s, size_t n, int64_t *out) {
  int exact;
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (!KT_DIGIT(s[i])) return 0;
  return ktDecimal(s, n, 0, KT_TRUNC, out, &exact) == 0;
}

/* ------------------------------------------------------------ errors */

static int ktWrongType(kt_file *f, const char *field, const char *what) {
  js_fail(&f->js, f->js.tok_off, "wrong type: \"%s\" must be %s", field, what);
  return -1;
}

static int ktRange(kt_file *f, const char *field) {
  js_fail(&f->js, f->js.tok_off, "number out of range (\"%s\")", field);
  return -1;
}

static void ktMetaFix(kt_file *f);

/* Enters the error state from the lexer's message. Returns KT_ERROR/KT_NOMEM. */
static int ktFail(kt_file *f) {
  if (f->state != KS_ERROR) {
    js_fail(&f->js, f->js.tok_off, "internal error"); /* no-op if set */
    /* a .json.gz error's offset counts decompressed bytes: say so */
    snprintf(f->err, sizeof f->err, "byte %llu: %s%s", (unsigned long long)f->js.err_off, f->js.err,
             f->rd.gz ? " (offset in the decompressed JSON)" : "");
    f->rc_error = f->js.nomem ? KT_NOMEM : KT_ERROR;
    f->state = KS_ERROR;
    ktMetaFix(f); /* a member cut short may have moved the buffers */
  }
  return f->rc_error;
}

/* ------------------------------------------------------------ generic values */

/*
** Writes the minified text of the value whose first token T was just read to
** OUT (K7) and consumes it. Stops writing once OUT exceeds LIMIT and returns 1
** (the value is still consumed); 0 when complete; -1 on error.
*/
static int ktEmit(kt_file *f, kt_buf *out, js_tok t, size_t limit) {
  js_lexer *js = &f->js;
  int base = js->depth - (t == JS_OBJ_BEGIN || t == JS_ARR_BEGIN);
  int first = 1, big = 0;
  for (;;) {
    if (!big) {
      if (!first && t != JS_OBJ_END && t != JS_ARR_END && out->n) {
        char last = out->p[out->n - 1];
        if (last != '{' && last != '[' && last != ':' && ktPutc(f, out, ',')) return -1;
      }
      int rc = 0;
      switch (t) {
      case JS_ERROR: return -1;
      case JS_EOF: return -1; /* not reached: the lexer errs first */
      case JS_OBJ_BEGIN: rc = ktPutc(f, out, '{'); break;
      case JS_OBJ_END: rc = ktPutc(f, out, '}'); break;
      case JS_ARR_BEGIN: rc = ktPutc(f, out, '['); break;
      case JS_ARR_END: rc = ktPutc(f, out, ']'); break;
      case JS_KEY: rc = ktPutStr(f, out, js->s, js->n, js->plain) || ktPutc(f, out, ':'); break;
      case JS_STRING: rc = ktPutStr(f, out, js->s, js->n, js->plain); break;
      case JS_NUMBER: rc = ktPut(f, out, js->s, js->n); break;
      case JS_TRUE: rc = ktPut(f, out, "true", 4); break;
      case JS_FALSE: rc = ktPut(f, out, "false", 5); break;
      case JS_NULL: rc = ktPut(f, out, "null", 4); break;
      }
      if (rc) return -1;
      if (out->n > limit) big = 1;
    } else if (t == JS_ERROR) {
      return -1;
    }
    if (js->depth == base) return big;
    first = 0;
    t = js_next(js);
  }
}

/* ------------------------------------------------------------ events */

enum { EK_OTHER, EK_PH, EK_NAME, EK_CAT, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ARGS, EK_ID, EK_BP };

/* Short keys as little-endian integers, compared without memcmp. */
#define KT_W2(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)
#define KT_W3(a, b, c) (KT_W2(a, b) | (uint32_t)(c) << 16)
#define KT_W4(a, b, c, d) (KT_W3(a, b, c) | (uint32_t)(d) << 24)

static inline int ktEventKey(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  switch (n) {
  case 2:
    switch (KT_W2(u[0], u[1])) {
    case KT_W2('t', 's'): return EK_TS;
    case KT_W2('p', 'h'): return EK_PH;
    case KT_W2('i', 'd'): return EK_ID;
    case KT_W2('b', 'p'): return EK_BP;
    }
    break;
  case 3:
    switch (KT_W3(u[0], u[1], u[2])) {
    case KT_W3('c', 'a', 't'): return EK_CAT;
    case KT_W3('p', 'i', 'd'): return EK_PID;
    case KT_W3('t', 'i', 'd'): return EK_TID;
    case KT_W3('d', 'u', 'r'): return EK_DUR;
    }
    break;
  case 4:
    switch (KT_W4(u[0], u[1], u[2], u[3])) {
    case KT_W4('n', 'a', 'm', 'e'): return EK_NAME;
    case KT_W4('a', 'r', 'g', 's'): return EK_ARGS;
    }
    break;
  }
  return EK_OTHER;
}

enum { AK_OTHER, AK_STREAM, AK_CORRELATION, AK_EXTERNAL_ID, AK_DEVICE, AK_NAME, AK_SORT_INDEX };

static inline int ktArgKey(const char *s, size_t n) {
  if (n < 4 || n > 11 || (s[0] != 's' && s[0] != 'c' && s[0] != 'E' && s[0] != 'd' && s[0] != 'n'))
    return AK_OTHER;
  switch (n) {
  case 4:
    if (!memcmp(s, "name", 4)) return AK_NAME;
    break;
  case 6:
    if (!memcmp(s, "stream", 6)) return AK_STREAM;
    if (!memcmp(s, "device", 6)) return AK_DEVICE;
    break;
  case 10:
    if (!memcmp(s, "sort_index", 10)) return AK_SORT_INDEX;
    break;
  case 11:
    if (!memcmp(s, "correlation", 11)) return AK_CORRELATION;
    if (!memcmp(s, "External id", 11)) return AK_EXTERNAL_ID;
    break;
  }
  return AK_OTHER;
}

static int ktIsGpuCat(const char *s, size_t n) {
  switch (n) {
  case 6:
    return !memcmp(s, "kernel", 6) || !memcmp(s, "Kernel", 6) || !memcmp(s, "Memcpy", 6) ||
           !memcmp(s, "Memset", 6);
  case 10: return !memcmp(s, "gpu_memcpy", 10) || !memcmp(s, "gpu_memset", 10);
  case 15: return !memcmp(s, "mtia_ccp_events", 15);
  }
  return 0;
}

/* A string field (K4). */
static KT_INLINE int ktStrField(kt_file *f, js_tok t, kt_ref *r, unsigned flag, const char *field) {
  if (t == JS_STRING) {
    f->ev.flags |= flag;
    return ktKeep(f, r);
  }
  if (t == JS_NULL) return 0;
  if (t == JS_ERROR) return -1;
  return ktWrongType(f, field, "a string");
}

/* A time field in µs (K3). */
static KT_INLINE int ktTimeField(kt_file *f, js_tok t, int64_t *out, unsigned flag,
                                 const char *field) {
  int exact;
  if (t == JS_NUMBER) {
    if (ktDecimal(f->js.s, f->js.n, 3, KT_HALF_EVEN, out, &exact)) return ktRange(f, field);
    f->ev.flags |= flag;
    return 0;
  }
  if (t == JS_NULL) return 0;
  if (t == JS_ERROR) return -1;
  return ktWrongType(f, field, "a number");
}

/* pid, tid, id: an integer or a string (K4). */
static KT_INLINE int ktIdField(kt_file *f, js_tok t, kt_value *v, kt_ref *r, unsigned flag,
                               const char *field) {
  int exact;
  if (t == JS_NUMBER) {
    if (ktDecimal(f->js.s, f->js.n, 0, KT_TRUNC, &v->i, &exact)) return ktRange(f, field);
    if (!exact) return ktWrongType(f, field, "an integer or a string");
    v->is_str = 0;
    f->ev.flags |= flag;
    return 0;
  }
  if (t == JS_STRING) {
    v->is_str = 1;
    f->ev.flags |= flag;
    return ktKeep(f, r);
  }
  if (t == JS_NULL) return 0;
  if (t == JS_ERROR) return -1;
  return ktWrongType(f, field, "an integer or a string");
}

/* A C event's numeric arg as a double (K8). */
static int ktCounter(kt_file *f, kt_ref key) {
  js_lexer *js = &f->js;
  char tmp[64], *txt = tmp;
  size_t mark = f->arena.n;
  if (js->n < sizeof tmp) {
    memcpy(tmp, js->s, js->n);
    tmp[js->n] = 0;
  } else {
    if (ktPut(f, &f->arena, js->s, js->n) || ktPutc(f, &f->arena, 0)) return -1;
    txt = f->arena.p + mark;
  }
  double v = strtod(txt, NULL);
  f->arena.n = mark;
  if (isinf(v)) {
    /* An error only if this turns out to be a C event (ph may come later). */
    if (!f->ctr_big) f->ctr_big = 1, f->ctr_big_off = f->js.tok_off;
    return 0;
  }
  if (f->nctr == f->ctr_cap) {
    int cap = f->ctr_cap ? f->ctr_cap * 2 : 16;
    kt_ctr *c = realloc(f->ctr, (size_t)cap * sizeof *c);
    if (!c) return ktNoMem(f);
    f->ctr = c;
    kt_counter *pc = realloc(f->counters, (size_t)cap * sizeof *pc);
    if (!pc) return ktNoMem(f);
    f->counters = pc;
    f->ctr_cap = cap;
  }
  f->ctr[f->nctr].key = key;
  f->ctr[f->nctr].value = v;
  f->nctr++;
  return 0;
}

/*
** A promoted args member (K5, K6, K8) whose value token T was just read.
** Returns 1 to drop the member from args, 0 to keep it, -1 on error.
*/
static int ktPromoted(kt_file *f, int k, js_tok t) {
  js_lexer *js = &f->js;
  kt_event *e = &f->ev;
  int64_t v;
  int exact;
  switch (k) {
  case AK_STREAM:
    e->flags &= ~KT_HAS_STREAM;
    if (t == JS_NUMBER) {
      if (ktDecimal(js->s, js->n, 0, KT_TRUNC, &v, &exact)) return ktRange(f, "stream");
    } else if (t != JS_STRING || !ktIsNumber(js->s, js->n) ||
               ktDecimal(js->s, js->n, 0, KT_TRUNC, &v, &exact)) {
      return 0;
    }
    e->stream = v;
    e->flags |= KT_HAS_STREAM;
    return 0;
  case AK_CORRELATION:
  case AK_EXTERNAL_ID:
  case AK_DEVICE: {
    static const char *const names[] = {"correlation", "External id", "device"};
    static const unsigned flags[] = {KT_HAS_CORRELATION, KT_HAS_EXTERNAL_ID, KT_HAS_DEVICE};
    int i = k - AK_CORRELATION;
    if (t != JS_NUMBER) return 0;
    if (ktDecimal(js->s, js->n, 0, KT_TRUNC, &v, &exact)) return ktRange(f, names[i]);
    if (!exact) return 0;
    int64_t *dst = i == 0 ? &e->correlation : i == 1 ? &e->external_id : &e->device;
    *dst = v;
    e->flags |= flags[i];
    return 1;
  }
  case AK_SORT_INDEX:
    if (t != JS_NUMBER) return 0;
    if (ktDecimal(js->s, js->n, 0, KT_TRUNC, &v, &exact) || !exact) return 0;
    e->sort_index = v;
    e->flags |= KT_HAS_SORT_INDEX;
    return 0;
  case AK_NAME:
    if (t == JS_STRING && (e->ph == 'M' || e->ph == 0)) {
      f->has_meta_name = 1;
      if (ktKeep(f, &f->meta_name)) return -1;
    }
    return 0;
  }
  return 0;
}

/* The "args" member of an event; T is its first token. */
static int ktArgs(kt_file *f, js_tok t) {
  js_lexer *js = &f->js;
  kt_event *e = &f->ev;
  kt_buf *a = &f->args;
  if (t == JS_NULL) return 0;
  if (t == JS_ERROR) return -1;
  if (t != JS_OBJ_BEGIN) return ktWrongType(f, "args", "an object");
  e->flags |= KT_HAS_ARGS;
  const int full = f->mode == KT_FULL;
  /* Also in KT_SCAN (C events are rare): errors must not depend on the mode. */
  const int counters = e->ph == 'C' || e->ph == 0;
  f->nctr = 0;
  f->ctr_big = 0;
  f->stream_beg = f->stream_end = 0;
  if (full) {
    a->n = 0;
    if (ktPutc(f, a, '{')) return -1;
  }
  for (;;) {
    t = js_key(js);
    if (t == JS_OBJ_END) break;
    if (t != JS_KEY) return -1;
    int k = ktArgKey(js->s, js->n);
    size_t mark = a->n;
    kt_ref key = {0, 0};
    if (full) {
      if (a->n > 1 && ktPutc(f, a, ',')) return -1;
      if (ktPutStr(f, a, js->s, js->n, js->plain) || ktPutc(f, a, ':')) return -1;
    }
    if (counters && ktKeep(f, &key)) return -1;
    t = js_value(js);
    if (t == JS_ERROR) return -1;
    if (k != AK_OTHER) {
      int drop = ktPromoted(f, k, t);
      if (drop < 0) return -1;
      if (drop) {
        a->n = mark;
        continue;
      }
    }
    if (counters && t == JS_NUMBER && ktCounter(f, key)) return -1;
    if (full) {
      if (ktEmit(f, a, t, SIZE_MAX) < 0) return -1;
      if (k == AK_STREAM && (e->flags & KT_HAS_STREAM)) {
        f->stream_beg = mark;
        f->stream_end = a->n;
      }
    } else if (js_skip(js, t)) {
      return -1;
    }
  }
  return full ? ktPutc(f, a, '}') : 0;
}

/* Removes the stream member [stream_beg, stream_end) from the args text. */
static void ktDropStream(kt_file *f) {
  kt_buf *a = &f->args;
  size_t b = f->stream_beg, e = f->stream_end;
  if (b == 1 && a->p[e] == ',') e++; /* first member: take the comma after it */
  memmove(a->p + b, a->p + e, a->n - e);
  a->n -= e - b;
}

/* Decodes one event object; its '{' was just read. 0 or -1. */
static int ktEvent(kt_file *f) {
  js_lexer *js = &f->js;
  kt_event *e = &f->ev;
  /* Field by field: cheaper than a memset of the whole struct per event. */
  static const kt_span none = {"", 0};
  static const kt_value zero = {0, 0, {"", 0}};
  e->ph = 0;
  e->flags = 0;
  e->name = e->cat = e->bp = e->args = none;
  e->meta_name.p = NULL; /* NULL: no args.name (kineto.h) */
  e->meta_name.n = 0;
  e->pid = e->tid = e->id = zero;
  e->ts = e->dur = e->stream = e->correlation = e->external_id = e->device = 0;
  e->sort_index = 0;
  e->counters = NULL;
  e->ncounters = 0;
  f->arena.n = 0;
  f->args.n = 0;
  f->nctr = 0;
  f->ctr_big = 0;
  f->stream_beg = f->stream_end = 0;
  f->has_meta_name = 0;
  f->bp.n = 0;
  for (;;) {
    js_tok t = js_key(js);
    if (t == JS_OBJ_END) break;
    if (t != JS_KEY) return -1;
    int k = ktEventKey(js->s, js->n);
    t = js_value(js);
    int rc = 0;
    switch (k) {
    case EK_PH:
      if (t == JS_STRING) {
        e->ph = js->n ? js->s[0] : 0;
      } else if (t != JS_NULL) {
        rc = t == JS_ERROR ? -1 : ktWrongType(f, "ph", "a string");
      }
      break;
    case EK_NAME: rc = ktStrField(f, t, &f->name, KT_HAS_NAME, "name"); break;
    case EK_CAT: rc = ktStrField(f, t, &f->cat, KT_HAS_CAT, "cat"); break;
    case EK_BP: rc = ktStrField(f, t, &f->bp, 0, "bp"); break;
    case EK_PID: rc = ktIdField(f, t, &e->pid, &f->pid, KT_HAS_PID, "pid"); break;
    case EK_TID: rc = ktIdField(f, t, &e->tid, &f->tid, KT_HAS_TID, "tid"); break;
    case EK_ID: rc = ktIdField(f, t, &e->id, &f->id, KT_HAS_ID, "id"); break;
    case EK_TS: rc = ktTimeField(f, t, &e->ts, KT_HAS_TS, "ts"); break;
    case EK_DUR: rc = ktTimeField(f, t, &e->dur, KT_HAS_DUR, "dur"); break;
    case EK_ARGS: rc = ktArgs(f, t); break;
    default: rc = js_skip(js, t); break;
    }
    if (rc) return -1;
  }
  /* Resolve the strings now that the arena no longer moves. */
  const kt_buf *ar = &f->arena;
  if (e->flags & KT_HAS_NAME) e->name = ktSpan(ar, f->name);
  if (e->flags & KT_HAS_CAT) {
    e->cat = ktSpan(ar, f->cat);
    if (ktIsGpuCat(e->cat.p, e->cat.n)) e->flags |= KT_GPU_WORK;
  }
  if ((e->flags & KT_HAS_PID) && e->pid.is_str) e->pid.s = ktSpan(ar, f->pid);
  if ((e->flags & KT_HAS_TID) && e->tid.is_str) e->tid.s = ktSpan(ar, f->tid);
  if ((e->flags & KT_HAS_ID) && e->id.is_str) e->id.s = ktSpan(ar, f->id);
  if (f->bp.n) e->bp = ktSpan(ar, f->bp);
  if (e->ph == 'M') {
    if (f->has_meta_name) e->meta_name = ktSpan(ar, f->meta_name);
  } else {
    e->flags &= ~KT_HAS_SORT_INDEX;
    e->sort_index = 0;
  }
  if (e->ph == 'C' && f->ctr_big) {
    js_fail(js, f->ctr_big_off, "number out of range (\"args\")");
    return -1;
  }
  /* Every later computation uses the end ts + dur: it must fit int64 ns too. */
  int64_t end_ns;
  if ((e->flags & KT_HAS_TS) && (e->flags & KT_HAS_DUR) &&
      __builtin_add_overflow(e->ts, e->dur, &end_ns)) {
    js_fail(js, js->tok_off, "number out of range (\"ts\" + \"dur\")");
    return -1;
  }
  if (e->ph == 'C' && f->nctr) {
    for (int i = 0; i < f->nctr; i++) {
      f->counters[i].key = ktSpan(ar, f->ctr[i].key);
      f->counters[i].value = f->ctr[i].value;
    }
    e->counters = f->counters;
    e->ncounters = f->nctr;
  }
  if (f->mode == KT_FULL && f->args.n) {
    if ((e->flags & (KT_GPU_WORK | KT_HAS_STREAM)) == (KT_GPU_WORK | KT_HAS_STREAM) &&
        f->stream_end)
      ktDropStream(f);
    if (f->args.n > 2) {
      e->args.p = f->args.p;
      e->args.n = f->args.n;
    }
  }
  return 0;
}

/* ------------------------------------------------------------ metadata */

/* Points the kt_meta spans into the buffers (after they may have moved). */
static void ktMetaFix(kt_file *f) {
  kt_meta *m = &f->m;
  if (f->has_backend) m->backend = ktSpan(&f->mstr, f->backend);
  if (f->has_schema) m->schema_version = ktSpan(&f->mstr, f->schema);
  if (f->has_dtu) m->display_time_unit = ktSpan(&f->mstr, f->dtu);
  if (f->has_devprops) m->device_properties = ktSpan(&f->meta, f->devprops);
}

/* Copies the current string or number text into mstr. */
static int ktMetaStr(kt_file *f, kt_ref *r, int *has) {
  r->off = f->mstr.n;
  r->n = f->js.n;
  *has = 1;
  return ktPut(f, &f->mstr, f->js.s, f->js.n);
}

/* An integer or a digit string (rank, world_size, baseTimeNanoseconds). */
static void ktMetaInt(kt_file *f, js_tok t, int *has, int64_t *out) {
  int exact;
  int64_t v;
  if (t == JS_NUMBER) {
    if (!ktDecimal(f->js.s, f->js.n, 0, KT_TRUNC, &v, &exact) && exact) *has = 1, *out = v;
  } else if (t == JS_STRING) {
    if (ktDigits(f->js.s, f->js.n, &v)) *has = 1, *out = v;
  }
}

/* distributedInfo: copies it into meta, picking rank, world_size, backend. */
static int ktDistInfo(kt_file *f) {
  js_lexer *js = &f->js;
  kt_buf *o = &f->meta;
  if (ktPutc(f, o, '{')) return -1;
  for (;;) {
    js_tok t = js_next(js);
    if (t == JS_OBJ_END) return ktPutc(f, o, '}');
    if (t != JS_KEY) return -1;
    int which = 0;
    if (js->n == 4 && !memcmp(js->s, "rank", 4)) which = 1;
    if (js->n == 10 && !memcmp(js->s, "world_size", 10)) which = 2;
    if (js->n == 7 && !memcmp(js->s, "backend", 7)) which = 3;
    if (o->p[o->n - 1] != '{' && ktPutc(f, o, ',')) return -1;
    if (ktPutStr(f, o, js->s, js->n, js->plain) || ktPutc(f, o, ':')) return -1;
    t = js_next(js);
    if (which == 1) ktMetaInt(f, t, &f->m.has_rank, &f->m.rank);
    if (which == 2) ktMetaInt(f, t, &f->m.has_world_size, &f->m.world_size);
    if (which == 3 && t == JS_STRING && ktMetaStr(f, &f->backend, &f->has_backend)) return -1;
    if (ktEmit(f, o, t, KT_MAX_META) < 0) return -1;
  }
}

/* A top-level member other than traceEvents; its key was just read. */
static int ktMetaMember(kt_file *f) {
  js_lexer *js = &f->js;
  kt_buf *o = &f->meta;
  enum { MK_OTHER, MK_DIST, MK_SCHEMA, MK_BASE, MK_DTU, MK_DEVPROPS } mk = MK_OTHER;
  if (js->n == 15 && !memcmp(js->s, "distributedInfo", 15)) mk = MK_DIST;
  if (js->n == 13 && !memcmp(js->s, "schemaVersion", 13)) mk = MK_SCHEMA;
  if (js->n == 19 && !memcmp(js->s, "baseTimeNanoseconds", 19)) mk = MK_BASE;
  if (js->n == 15 && !memcmp(js->s, "displayTimeUnit", 15)) mk = MK_DTU;
  if (js->n == 16 && !memcmp(js->s, "deviceProperties", 16)) mk = MK_DEVPROPS;
  if (f->meta_big) return js_skip(js, js_next(js));
  if (o->n > 1 && ktPutc(f, o, ',')) return -1;
  if (ktPutStr(f, o, js->s, js->n, js->plain) || ktPutc(f, o, ':')) return -1;
  js_tok t = js_next(js);
  size_t start = o->n;
  int rc = 0;
  switch (mk) {
  case MK_DIST:
    if (t == JS_OBJ_BEGIN) {
      if (ktDistInfo(f)) return -1;
      t = JS_NULL; /* done */
      rc = 2;
    }
    break;
  case MK_SCHEMA:
    if ((t == JS_STRING || t == JS_NUMBER) && ktMetaStr(f, &f->schema, &f->has_schema)) return -1;
    break;
  case MK_BASE: ktMetaInt(f, t, &f->m.has_base_time, &f->m.base_time_ns); break;
  case MK_DTU:
    if (t == JS_STRING && ktMetaStr(f, &f->dtu, &f->has_dtu)) return -1;
    break;
  default: break;
  }
  if (rc != 2) rc = ktEmit(f, o, t, KT_MAX_META);
  if (rc < 0) return -1;
  if (rc == 1 || o->n > KT_MAX_META) {
    f->meta_big = 1;
  } else if (mk == MK_DEVPROPS && t == JS_ARR_BEGIN) {
    f->devprops.off = start;
    f->devprops.n = o->n - start;
    f->has_devprops = 1;
  }
  ktMetaFix(f);
  return 0;
}

/* The top-level value is complete: checks the end of input and K1. */
static int ktFinish(kt_file *f) {
  js_lexer *js = &f->js;
  if (js_next(js) != JS_EOF) return ktFail(f);
  if (!f->m.has_trace_events) {
    f->not_trace = 1;
    js_fail(js, js->tok_off, "not a Kineto trace: no traceEvents array");
    return ktFail(f);
  }
  if (f->meta_big) {
    js_fail(js, js->tok_off, "top-level metadata larger than 64 MiB");
    return ktFail(f);
  }
  if (ktPutc(f, &f->meta, '}')) return ktFail(f);
  f->m.metadata.p = f->meta.p;
  f->m.metadata.n = f->meta.n;
  ktMetaFix(f);
  f->state = KS_END;
  return KT_END;
}

/* ------------------------------------------------------------ public */

/* OFF > 0: from the element of traceEvents at that offset on (kt_open_at). */
static int ktOpen(kt_file **pf, const char *path, const void *data, size_t n, kt_mode mode,
                  uint64_t off, int is_array, char err[KT_ERR_MAX]) {
  *pf = NULL;
  kt_file *f = calloc(1, sizeof *f);
  if (!f) {
    snprintf(err, KT_ERR_MAX, "out of memory");
    return KT_NOMEM;
  }
  int rc = !path ? rd_open_mem(&f->rd, data, n)
           : off ? rd_open_at(&f->rd, path, off)
                 : rd_open(&f->rd, path);
  if (rc != 0) {
    int nomem = f->rd.nomem;
    snprintf(err, KT_ERR_MAX, "%s", f->rd.err); /* "byte 0: ..." */
    rd_close(&f->rd);
    free(f);
    return nomem ? KT_NOMEM : KT_ERROR;
  }
  f->mode = mode == KT_FULL ? KT_FULL : KT_SCAN;
  f->state = KS_START;
  if (off) {
    static const unsigned char in_top[2] = {1, 0}, in_array[1] = {0};
    js_init_in(&f->js, &f->rd, is_array ? in_array : in_top, is_array ? 1 : 2);
    f->state = KS_EVENTS;
    f->m.is_array = is_array;
    f->m.has_trace_events = 1;
  } else {
    js_init(&f->js, &f->rd);
  }
  f->ev.seq = -1;
  {
    static const kt_span none = {"", 0};
    kt_meta *m = &f->m;
    m->backend = m->schema_version = m->display_time_unit = none;
    m->device_properties = m->metadata = none;
  }
  if (ktPutc(f, &f->meta, '{')) {
    snprintf(err, KT_ERR_MAX, "out of memory");
    kt_close(f);
    return KT_NOMEM;
  }
  err[0] = 0;
  *pf = f;
  return KT_OK;
}

int kt_open(kt_file **pf, const char *path, kt_mode mode, char err[KT_ERR_MAX]) {
  return ktOpen(pf, path, NULL, 0, mode, 0, 0, err);
}

int kt_open_mem(kt_file **pf, const void *data, size_t n, kt_mode mode, char err[KT_ERR_MAX]) {
  return ktOpen(pf, NULL, data, n, mode, 0, 0, err);
}

int kt_open_at(kt_file **pf, const char *path, uint64_t off, int is_array, kt_mode mode,
               char err[KT_ERR_MAX]) {
  if (off == 0) {
    snprintf(err, KT_ERR_MAX, "byte 0: not an element of traceEvents");
    *pf = NULL;
    return KT_ERROR;
  }
  return ktOpen(pf, path, NULL, 0, mode, off, is_array, err);
}

int kt_next(kt_file *f, const kt_event **pe) {
  js_lexer *js = &f->js;
  js_tok t;
  for (;;) {
    switch (f->state) {
    case KS_ERROR: return f->rc_error;
    case KS_END: return KT_END;
    case KS_START:
      t = js_next(js);
      if (t == JS_ARR_BEGIN) {
        f->m.is_array = 1;
        f->m.has_trace_events = 1;
        f->state = KS_EVENTS;
      } else if (t == JS_OBJ_BEGIN) {
        f->state = KS_TOP;
      } else if (t == JS_ERROR) {
        return ktFail(f);
      } else {
        return ktFinish(f); /* a scalar: not a trace */
      }
      break;
    case KS_TOP:
      t = js_next(js);
      if (t == JS_OBJ_END) return ktFinish(f);
      if (t != JS_KEY) return ktFail(f);
      if (js->n == 11 && !memcmp(js->s, "traceEvents", 11)) {
        uint64_t off = js->tok_off;
        if (f->m.has_trace_events) {
          js_fail(js, off, "duplicate \"traceEvents\"");
          return ktFail(f);
        }
        t = js_next(js);
        if (t == JS_ERROR) return ktFail(f);
        if (t != JS_ARR_BEGIN) {
          ktWrongType(f, "traceEvents", "an array");
          return ktFail(f);
        }
        f->m.has_trace_events = 1;
        f->state = KS_EVENTS;
      } else if (ktMetaMember(f)) {
        return ktFail(f);
      }
      break;
    case KS_SPLIT:
    case KS_EVENTS:
      if (f->state == KS_SPLIT) {
        f->state = KS_EVENTS;
        t = JS_OBJ_BEGIN; /* read before the stop */
      } else {
        t = js_next(js);
        if (t == JS_OBJ_BEGIN && f->stop_at && js->tok_off >= f->stop_at) {
          int here = js->tok_off == f->stop_at;
          f->stop_at = 0; /* met or passed: either way, once */
          if (here) {
            f->state = KS_SPLIT;
            return KT_SPLIT;
          }
        }
      }
      if (t == JS_OBJ_BEGIN) {
        f->ev.seq = f->m.event_count++;
        if (ktEvent(f)) return ktFail(f);
        *pe = &f->ev;
        return KT_EVENT;
      }
      if (t == JS_ARR_END) {
        if (f->m.is_array) return ktFinish(f);
        f->state = KS_TOP;
        break;
      }
      if (t == JS_ERROR) return ktFail(f);
      f->m.event_count++; /* K2: not an object, counted */
      if (js_skip(js, t)) return ktFail(f);
      break;
    }
  }
}

void kt_stop_at(kt_file *f, uint64_t off) { f->stop_at = off; }

int kt_is_plain_file(const kt_file *f) { return !f->rd.gz && !f->rd.mem && f->rd.fd >= 0; }

int kt_can_join(const kt_file *a, const kt_file *b) {
  return a->state == KS_SPLIT && b->state == KS_END && !a->meta_big && !b->meta_big &&
         a->meta.n + b->meta.n <= KT_MAX_META;
}

int kt_join(kt_file *a, kt_file *b) {
  if (!kt_can_join(a, b)) return 1;
  rd_reader *rd = &a->rd;
  int rc;
  /* The rest, for the content hash. b read those bytes earlier: they must be the
  ** same, or b's events are not the file's (rewritten in place meanwhile). */
  uint64_t at = a->js.tok_off; /* the '{' where a stopped and b started */
  if (at < rd->base || at > rd_offset(rd, rd->end)) return 1;
  rd_xxh64 tail;
  rd_xxh64_init(&tail);
  rd_xxh64_update(&tail, rd->buf + (at - rd->base), (size_t)(rd->end - rd->buf) - (at - rd->base));
  while ((rc = rd_refill(rd, rd->end)) > 0)
    rd_xxh64_update(&tail, rd->buf, (size_t)(rd->end - rd->buf));
  a->js.p = rd->end;
  if (rc < 0) {
    js_fail(&a->js, rd_offset(rd, rd->end), "%s", rd->err);
    return ktFail(a);
  }
  if (rd_xxh64_digest(&tail) != rd_hash64(&b->rd)) {
    js_fail(&a->js, at, "the file changed while it was being read");
    return ktFail(a);
  }
  /* b's members follow a's, as one pass would have written them */
  kt_buf *o = &a->meta;
  size_t mn = b->meta.n - 2, sshift = a->mstr.n; /* b's without its braces */
  if (mn && o->n > 1 && ktPutc(a, o, ',')) return ktFail(a);
  size_t mshift = o->n - 1; /* b's byte k lands at mshift + k */
  if (ktPut(a, o, b->meta.p + 1, mn) || ktPutc(a, o, '}') ||
      ktPut(a, &a->mstr, b->mstr.p, b->mstr.n))
    return ktFail(a);
  kt_ref *ra[] = {&a->backend, &a->schema, &a->dtu, &a->devprops};
  const kt_ref *rb[] = {&b->backend, &b->schema, &b->dtu, &b->devprops};
  int *ha[] = {&a->has_backend, &a->has_schema, &a->has_dtu, &a->has_devprops};
  const int hb[] = {b->has_backend, b->has_schema, b->has_dtu, b->has_devprops};
  for (int i = 0; i < 4; i++) {
    if (!hb[i]) continue;
    *ra[i] = *rb[i];
    ra[i]->off += i == 3 ? mshift : sshift;
    *ha[i] = 1;
  }
  kt_meta *m = &a->m;
  const kt_meta *n = &b->m;
  if (n->has_rank) m->has_rank = 1, m->rank = n->rank;
  if (n->has_world_size) m->has_world_size = 1, m->world_size = n->world_size;
  if (n->has_base_time) m->has_base_time = 1, m->base_time_ns = n->base_time_ns;
  m->event_count += n->event_count;
  m->metadata.p = o->p;
  m->metadata.n = o->n;
  ktMetaFix(a);
  a->state = KS_END;
  return KT_END;
}

const char *kt_errmsg(const kt_file *f) { return f->state == KS_ERROR ? f->err : ""; }
int kt_not_a_trace(const kt_file *f) { return f->state == KS_ERROR && f->not_trace; }

uint64_t kt_error_offset(const kt_file *f) { return f->state == KS_ERROR ? f->js.err_off : 0; }

const kt_meta *kt_meta_get(const kt_file *f) { return &f->m; }

uint64_t kt_raw_offset(const kt_file *f) { return rd_raw_offset(&f->rd); }

uint64_t kt_json_offset(const kt_file *f) { return f->js.p ? rd_offset(&f->rd, f->js.p) : 0; }

uint64_t kt_file_size(const kt_file *f) { return f->rd.file_size; }

uint64_t kt_content_hash(const kt_file *f) { return rd_hash64(&f->rd); }

void kt_close(kt_file *f) {
  if (!f) return;
  js_free(&f->js);
  rd_close(&f->rd);
  free(f->arena.p);
  free(f->args.p);
  free(f->ctr);
  free(f->counters);
  free(f->meta.p);
  free(f->mstr.p);
  free(f);
}

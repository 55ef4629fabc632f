/*
** op_perf_args.c: the recorded shapes of an operator call, read from its args JSON
** text (op_perf.h).
**
**   {"Input Dims":[[16,559,1024],[],[]],"Input type":["float","ScalarList","Scalar"],
**    "Input Strides":[[572416,1024,1],[],[]],"Concrete Inputs":["","[-1]","True"],
**    "Sequence number":12, ...}
**
** HOW IT WORKS: json_args.c finds the four members in one scan of the text; each list
** is decoded into an arena shared by every call of a trace (a flat list of integers,
** a string, or "other" per entry). SQLite's json_extract would parse the text once
** per value, and a call has dozens of values. Malformed text never fails: what
** cannot be read is absent (the call then has no model, OP-5).
*/
#include <string.h>

#include "perf/op_perf.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The text comes from hta_json_members (whole members); a malformed rest ends the scan. */
static const char *ws(const char *p, const char *e) { return hta_json_ws(p, e); }
static const char *skipValue(const char *p, const char *e) {
  const char *q = hta_json_skip(p, e);
  return q ? q : e;
}

/* An integer JSON number at P: 1 with *out and *pp past it; 0 when it is not one. */
static int readInt(const char **pp, const char *e, int64_t *out) {
  const char *p = *pp;
  int neg = 0;
  uint64_t v = 0;
  if (p < e && *p == '-') neg = 1, p++;
  if (p >= e || *p < '0' || *p > '9') return 0;
  for (; p < e && *p >= '0' && *p <= '9'; p++) {
    if (v > (UINT64_MAX - 9) / 10) return 0;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  if (p < e && (*p == '.' || *p == 'e' || *p == 'E')) return 0;
  if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return 0;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  *pp = p;
  return 1;
}

static int pushEntry(opa_arena *a, int kind, int32_t n, int64_t off) {
  opa_entry x;
  x.kind = kind;
  x.n = n;
  x.off = off;
  HTA_PUSH(a->e, a->ne, a->ae, 256, x, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

static int pushChar(opa_arena *a, char c) {
  HTA_PUSH(a->cv, a->nc, a->ac, 1024, c, oom);
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

static int pushUtf8(opa_arena *a, uint32_t u) {
  char b[4];
  int n;
  if (u < 0x80) b[0] = (char)u, n = 1;
  else if (u < 0x800) b[0] = (char)(0xC0 | (u >> 6)), b[1] = (char)(0x80 | (u & 0x3F)), n = 2;
  else if (u < 0x10000) {
    b[0] = (char)(0xE0 | (u >> 12));
    b[1] = (char)(0x80 | ((u >> 6) & 0x3F));
    b[2] = (char)(0x80 | (u & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (u >> 18));
    b[1] = (char)(0x80 | ((u >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((u >> 6) & 0x3F));
    b[3] = (char)(0x80 | (u & 0x3F));
    n = 4;
  }
  for (int i = 0; i < n; i++) {
    if (pushChar(a, b[i]) != SQLITE_OK) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int hex4(const char *p, const char *e, uint32_t *out) {
  uint32_t v = 0;
  if (e - p < 4) return 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
    else return 0;
  }
  *out = v;
  return 1;
}

/* Decodes the string at P (at its '"') into the arena as an OPA_STR entry; *pp past it. */
static int readString(opa_arena *a, const char **pp, const char *e) {
  const char *p = *pp + 1;
  int64_t off = (int64_t)a->nc;
  int rc = SQLITE_OK;
  while (p < e && *p != '"' && rc == SQLITE_OK) {
    if (*p != '\\') {
      rc = pushChar(a, *p++);
      continue;
    }
    if (++p >= e) break;
    char c = *p++;
    uint32_t u;
    switch (c) {
    case 'b': rc = pushChar(a, '\b'); break;
    case 'f': rc = pushChar(a, '\f'); break;
    case 'n': rc = pushChar(a, '\n'); break;
    case 'r': rc = pushChar(a, '\r'); break;
    case 't': rc = pushChar(a, '\t'); break;
    case 'u':
      if (!hex4(p, e, &u)) break;
      p += 4;
      if (u >= 0xD800 && u < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
        uint32_t lo;
        if (hex4(p + 2, e, &lo) && lo >= 0xDC00 && lo < 0xE000) {
          u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      rc = pushUtf8(a, u);
      break;
    default: rc = pushChar(a, c); break; /* \" \\ \/ and anything else as itself */
    }
  }
  if (rc == SQLITE_OK) rc = pushChar(a, 0);
  if (rc != SQLITE_OK) return rc;
  *pp = p < e ? p + 1 : e;
  return pushEntry(a, OPA_STR, (int32_t)((int64_t)a->nc - 1 - off), off);
}

/* P at a '[' inside a list: a flat list of integers becomes an OPA_INTS entry,
** anything else an OPA_OTHER one; *pp past it. */
static int readInts(opa_arena *a, const char **pp, const char *e) {
  const char *p = ws(*pp + 1, e);
  size_t first = a->ni;
  int32_t n = 0;
  int64_t v;
  if (p < e && *p == ']') return *pp = p + 1, pushEntry(a, OPA_INTS, 0, (int64_t)first);
  while (p < e) {
    if (!readInt(&p, e, &v)) break;
    HTA_PUSH(a->iv, a->ni, a->ai, 1024, v, oom);
    n++;
    p = ws(p, e);
    if (p < e && *p == ',') {
      p = ws(p + 1, e);
      continue;
    }
    if (p < e && *p == ']') return *pp = p + 1, pushEntry(a, OPA_INTS, n, (int64_t)first);
    break;
  }
  a->ni = first; /* not a flat list of integers */
  *pp = skipValue(*pp, e);
  return pushEntry(a, OPA_OTHER, 0, 0);
oom:
  return SQLITE_NOMEM;
}

/* P at the value of one of the four lists: its entries into the arena. */
static int readList(opa_arena *a, const char **pp, const char *e, int64_t *first, int32_t *n) {
  const char *p = *pp;
  int rc = SQLITE_OK;
  *first = (int64_t)a->ne;
  *n = -1;
  if (p >= e || *p != '[') {
    *pp = skipValue(p, e);
    return SQLITE_OK;
  }
  *n = 0;
  p = ws(p + 1, e);
  if (p < e && *p == ']') {
    *pp = p + 1;
    return SQLITE_OK;
  }
  while (p < e && rc == SQLITE_OK) {
    if (*p == '[') rc = readInts(a, &p, e);
    else if (*p == '"') rc = readString(a, &p, e);
    else {
      p = skipValue(p, e);
      rc = pushEntry(a, OPA_OTHER, 0, 0);
    }
    (*n)++;
    p = ws(p, e);
    if (p < e && *p == ',') p = ws(p + 1, e);
    else break;
  }
  if (p < e && *p == ']') p++;
  *pp = p;
  return rc;
}

int opa_parse(opa_arena *arena, const char *s, size_t n, op_args *a) {
  static const hta_jkey keys[OPA_NLIST] = {HTA_JKEY("Input Dims"), HTA_JKEY("Input type"),
                                           HTA_JKEY("Input Strides"), HTA_JKEY("Concrete Inputs")};
  hta_jval v[OPA_NLIST];
  int rc = SQLITE_OK;
  for (int i = 0; i < OPA_NLIST; i++) a->first[i] = 0, a->n[i] = -1;
  hta_json_members(s, (int)n, keys, OPA_NLIST, v); /* json_args.c: one scan */
  for (int i = 0; i < OPA_NLIST && rc == SQLITE_OK; i++) {
    const char *p = v[i].p;
    if (p) rc = readList(arena, &p, p + v[i].n, &a->first[i], &a->n[i]);
  }
  return rc;
}

int opa_seqnum(const char *s, size_t n, int64_t *out) {
  static const hta_jkey key = HTA_JKEY("Sequence number");
  hta_jval v;
  /* most calls have none: look for the key (S is NUL-terminated, as SQLite's text)
  ** before reading the members */
  if (!s || n < 17 || !strstr(s, "\"Sequence number\"")) return 0;
  hta_json_members(s, (int)n, &key, 1, &v);
  return hta_json_int(v, out);
}

void opa_arena_free(opa_arena *arena) {
  sqlite3_free(arena->e);
  sqlite3_free(arena->iv);
  sqlite3_free(arena->cv);
  memset(arena, 0, sizeof *arena);
}

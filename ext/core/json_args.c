/*
** json_args.c: the top-level members of an event's args JSON text, read without
** a parser (hta_common.h, "args"). SQLite's json_extract() parses the whole text
** once per call: reading six members of a million rows that way was most of an
** analysis's time (memory_model.c), so the analyses that read several args per
** row scan the text once with hta_json_members() instead.
**
**   static const hta_jkey keys[] = {HTA_JKEY("grid"), HTA_JKEY("block")};
**   hta_jval v[2];
**   hta_json_members(text, nbytes, keys, 2, v);   // v[i].p == NULL: absent
**   if (hta_json_int(v[0], &x)) ...               // an integer member
**
** Requirements (tests cite them as JA-n):
**  1. Only the members of the top-level object are looked at; the value of a
**     member named twice is the first one's (as json_extract).
**  2. Text that is not a JSON object (malformed, truncated, an array, nested
**     deeper than HTA_JSON_MAX_DEPTH) has no members at all.
**  3. hta_json_int: a JSON integer, or a number with an integral value that fits
**     int64 (1.0, 1e3); anything else (text, 1.5, null) is not one.
**  4. hta_json_real: any JSON number, as strtod reads it.
**  5. hta_json_append_string writes a JSON string literal as SQLite's json_quote():
**     '"' and '\\' escaped, \b \f \n \r \t, other bytes below 0x20 as \u00XX.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define HTA_JSON_MAX_DEPTH 64 /* deeper values: not JSON we accept (JA-2) */

const char *hta_json_ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* P at a '"': returns the byte after the closing quote, NULL when unterminated. */
static const char *jsString(const char *p, const char *e) {
  for (p++; p < e; p++) {
    if (*p == '\\') p++;
    else if (*p == '"') return p + 1;
  }
  return 0;
}

const char *hta_json_skip(const char *p, const char *e) {
  int depth = 0;
  if (p >= e) return 0;
  if (*p == '"') return jsString(p, e);
  if (*p != '{' && *p != '[') { /* a number or a literal */
    const char *q = p;
    while (q < e && *q != ',' && *q != '}' && *q != ']' && *q != ' ' && *q != '\t' && *q != '\n' &&
           *q != '\r')
      q++;
    return q > p ? q : 0;
  }
  while (p < e) {
    if (*p == '"') {
      p = jsString(p, e);
      if (!p) return 0;
      continue;
    }
    if (*p == '{' || *p == '[') {
      if (++depth > HTA_JSON_MAX_DEPTH) return 0;
    } else if (*p == '}' || *p == ']') {
      if (--depth == 0) return p + 1;
    }
    p++;
  }
  return 0;
}

void hta_json_members(const char *s, int n, const hta_jkey *keys, int nkeys, hta_jval *v) {
  const char *p, *e;
  for (int i = 0; i < nkeys; i++) v[i].p = 0, v[i].n = 0;
  if (!s || n <= 0) return; /* no args (NULL + 0 is undefined) */
  e = s + n;
  p = hta_json_ws(s, e);
  if (p >= e || *p != '{') return;
  p = hta_json_ws(p + 1, e);
  if (p < e && *p == '}') return;
  while (p < e && *p == '"') {
    const char *k = p + 1, *ke = jsString(p, e), *val;
    int which = -1;
    if (!ke) goto bad;
    for (int i = 0; i < nkeys && which < 0; i++) {
      if ((size_t)(ke - 1 - k) == keys[i].len && !memcmp(k, keys[i].name, keys[i].len)) which = i;
    }
    p = hta_json_ws(ke, e);
    if (p >= e || *p != ':') goto bad;
    val = hta_json_ws(p + 1, e);
    p = hta_json_skip(val, e);
    if (!p) goto bad;
    if (which >= 0 && !v[which].p) { /* JA-1: the first of duplicates */
      v[which].p = val;
      v[which].n = (int)(p - val);
    }
    p = hta_json_ws(p, e);
    if (p < e && *p == ',') p = hta_json_ws(p + 1, e);
    else if (p < e && *p == '}') return;
    else goto bad;
  }
bad: /* JA-2: not a JSON object, no members at all */
  for (int i = 0; i < nkeys; i++) v[i].p = 0, v[i].n = 0;
}

int hta_json_int(hta_jval v, int64_t *out) {
  char buf[64], *end;
  const char *p = v.p, *q;
  size_t n = (size_t)v.n;
  if (!p || n == 0 || n >= sizeof buf || !(*p == '-' || (*p >= '0' && *p <= '9'))) return 0;
  q = p + n;     /* only now: an absent member has p NULL (UBSan: offset on a null pointer) */
  if (n <= 18) { /* a plain integer of up to 18 digits cannot overflow: no strtoll */
    const char *d = p + (*p == '-');
    int64_t x = 0;
    while (d < q && *d >= '0' && *d <= '9') x = x * 10 + (*d++ - '0');
    if (d == q && d > p + (*p == '-')) {
      *out = *p == '-' ? -x : x;
      return 1;
    }
  }
  memcpy(buf, p, n);
  buf[n] = 0;
  errno = 0;
  long long ll = strtoll(buf, &end, 10);
  if (*end == 0 && errno == 0) {
    *out = ll;
    return 1;
  }
  double d = strtod(buf, &end);
  if (*end != 0 || !(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d) return 0;
  *out = (int64_t)d;
  return 1;
}

int hta_json_real(hta_jval v, double *out) {
  char buf[64], *end;
  size_t n = (size_t)v.n;
  if (!v.p || n == 0 || n >= sizeof buf || !(*v.p == '-' || (*v.p >= '0' && *v.p <= '9'))) return 0;
  memcpy(buf, v.p, n);
  buf[n] = 0;
  double d = strtod(buf, &end);
  if (*end != 0) return 0;
  *out = d;
  return 1;
}

void hta_json_append_string(sqlite3_str *out, const char *s) {
  static const char hex[] = "0123456789abcdef";
  sqlite3_str_appendchar(out, 1, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char ch = *p;
    const char *esc = ch == '"'    ? "\\\""
                      : ch == '\\' ? "\\\\"
                      : ch == '\b' ? "\\b"
                      : ch == '\f' ? "\\f"
                      : ch == '\n' ? "\\n"
                      : ch == '\r' ? "\\r"
                      : ch == '\t' ? "\\t"
                                   : 0;
    if (esc) {
      sqlite3_str_appendall(out, esc);
    } else if (ch < 0x20) {
      char u[7] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15], 0};
      sqlite3_str_appendall(out, u);
    } else {
      sqlite3_str_appendchar(out, 1, (char)ch);
    }
  }
  sqlite3_str_appendchar(out, 1, '"');
}

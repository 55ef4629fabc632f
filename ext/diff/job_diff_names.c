/*
** job_diff_names.c: the names the structural diff compares (job_diff.c JD-3) and
** the table that gives equal texts of both runs one id.
**
** HOW IT WORKS: jd_normalize rewrites a name in one left-to-right pass per rule, as
** Python's re.sub does (leftmost, non-overlapping matches): 0x<hex digits> ->
** 0xXXXX, then .py(<digits>): -> .py:, then (strip) a final ':' + spaces + one word is
** cut and a path ending in .py is cut to its file name, then the two driver launch
** names become one. jd_intern is an open-addressing hash table (FNV-1a) of those
** texts; ids are dense, in first-seen order.
*/
#include <ctype.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static uint32_t jdHash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int jdGrow(jd_intern *t) {
  size_t ns = t->nslot ? 2 * t->nslot : 1024;
  uint32_t *h = sqlite3_malloc64(ns * sizeof *h);
  if (!h) return SQLITE_NOMEM;
  memset(h, 0, ns * sizeof *h);
  for (size_t i = 0; i < t->n; i++) {
    size_t k = jdHash(t->s[i], strlen(t->s[i])) & (ns - 1);
    while (h[k]) k = (k + 1) & (ns - 1);
    h[k] = (uint32_t)i + 1;
  }
  sqlite3_free(t->h);
  t->h = h;
  t->nslot = ns;
  return SQLITE_OK;
}

int32_t jd_intern_id(jd_intern *t, const char *s, size_t n) {
  size_t k;
  char *copy;
  if (memchr(s, 0, n)) n = strlen(s); /* a text is compared up to its first NUL */
  if ((t->n + 1) * 2 > t->nslot && jdGrow(t) != SQLITE_OK) return -1;
  for (k = jdHash(s, n) & (t->nslot - 1); t->h[k]; k = (k + 1) & (t->nslot - 1)) {
    const char *e = t->s[t->h[k] - 1];
    if (strlen(e) == n && !memcmp(e, s, n)) return (int32_t)(t->h[k] - 1);
  }
  if (t->n >= INT32_MAX - 1 || !(copy = sqlite3_malloc64(n + 1))) return -1;
  memcpy(copy, s, n);
  copy[n] = 0;
  HTA_PUSH(t->s, t->n, t->cap, 1024, copy, intern_oom);
  t->h[k] = (uint32_t)t->n;
  return (int32_t)(t->n - 1);
intern_oom:
  sqlite3_free(copy);
  return -1;
}

void jd_intern_free(jd_intern *t) {
  for (size_t i = 0; i < t->n; i++) sqlite3_free(t->s[i]);
  sqlite3_free(t->s);
  sqlite3_free(t->h);
  memset(t, 0, sizeof *t);
}

/* Python's \s for the ASCII range. */
static int jdSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

int jd_normalize(const char *name, int strip, char **out) {
  size_t n = strlen(name), k = 0;
  /* 0x<h> -> 0xXXXX grows a name by at most 3 bytes per 3 input bytes */
  char *a = sqlite3_malloc64(2 * n + 8), *b;
  *out = 0;
  if (!a) return SQLITE_NOMEM;
  for (size_t i = 0; i < n;) { /* 0x[0-9a-fA-F]+ -> 0xXXXX */
    if (name[i] == '0' && name[i + 1] == 'x' && isxdigit((unsigned char)name[i + 2])) {
      memcpy(a + k, "0xXXXX", 6);
      k += 6;
      for (i += 2; isxdigit((unsigned char)name[i]); i++) {
      }
    } else {
      a[k++] = name[i++];
    }
  }
  a[k] = 0;
  b = a; /* \.py\(\d+\): -> .py:, in place (it only shrinks) */
  n = k;
  k = 0;
  for (size_t i = 0; i < n;) {
    if (!strncmp(a + i, ".py(", 4) && isdigit((unsigned char)a[i + 4])) {
      size_t j = i + 4;
      while (isdigit((unsigned char)a[j])) j++;
      if (a[j] == ')' && a[j + 1] == ':') {
        memcpy(b + k, ".py:", 4);
        k += 4;
        i = j + 2;
        continue;
      }
    }
    b[k++] = a[i++];
  }
  b[k] = 0;
  if (strip) {
    /* :\s+\S+$ -> "": the last word, the spaces before it, the ':' before them */
    size_t e = k, w;
    while (e > 0 && !jdSpace(b[e - 1])) e--;
    w = e;
    while (w > 0 && jdSpace(b[w - 1])) w--;
    if (e < k && w < e && w > 0 && b[w - 1] == ':') b[k = w - 1] = 0;
    /* ^.*\/([^/]+\.py)$ -> the file name ('.' stops at a newline) */
    if (k > 3 && !strcmp(b + k - 3, ".py")) {
      char *slash = strrchr(b, '/');
      if (slash && (size_t)(slash - b) + 1 < k - 3 && !memchr(b, '\n', (size_t)(slash - b))) {
        size_t m = k - (size_t)(slash + 1 - b);
        memmove(b, slash + 1, m + 1);
        k = m;
      }
    }
  }
  if (!strcmp(b, "hipModuleLaunchKernel") || !strcmp(b, "cuLaunchKernel")) {
    memcpy(b, "__kernel_launch__", sizeof "__kernel_launch__");
  }
  *out = b;
  return SQLITE_OK;
}

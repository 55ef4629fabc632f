/*
** testutil.h: plain-assert helpers for the C unit tests.
**
**   CHECK(cond);                  // counts, prints file:line and the expression
**   CHECK_INT(got, expected);     // integers (as long long), prints both
**   CHECK_STR(got, expected);     // NUL-terminated strings
**   CHECK_MEM(p, n, expected);    // p[0..n) against a NUL-terminated literal
**   return tu_summary("test_x");  // from main(): 0 when every check passed
**
** Each test binary includes this once; the counters are static.
*/
#ifndef HTA_TESTUTIL_H
#define HTA_TESTUTIL_H

#include <stdio.h>
#include <string.h>

static int tu_checks, tu_failures;

#define CHECK(c)                                                            \
  do {                                                                      \
    tu_checks++;                                                            \
    if (!(c)) {                                                             \
      tu_failures++;                                                        \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
    }                                                                       \
  } while (0)

#define CHECK_INT(got, expected)                                                               \
  do {                                                                                         \
    long long g_ = (long long)(got), e_ = (long long)(expected);                               \
    tu_checks++;                                                                               \
    if (g_ != e_) {                                                                            \
      tu_failures++;                                                                           \
      fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #got, g_, e_); \
    }                                                                                          \
  } while (0)

#define CHECK_STR(got, expected)                                                          \
  do {                                                                                    \
    const char *g_ = (got), *e_ = (expected);                                             \
    tu_checks++;                                                                          \
    if (!g_ || strcmp(g_, e_) != 0) {                                                     \
      tu_failures++;                                                                      \
      fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #got, \
              g_ ? g_ : "(null)", e_);                                                    \
    }                                                                                     \
  } while (0)

#define CHECK_MEM(p, n, expected)                                                                  \
  do {                                                                                             \
    const char *p_ = (const char *)(p), *e_ = (expected);                                          \
    size_t n_ = (size_t)(n);                                                                       \
    tu_checks++;                                                                                   \
    if (n_ != strlen(e_) || (n_ && memcmp(p_, e_, n_) != 0)) {                                     \
      tu_failures++;                                                                               \
      fprintf(stderr, "%s:%d: %s is \"%.*s\", expected \"%s\"\n", __FILE__, __LINE__, #p, (int)n_, \
              p_ ? p_ : "", e_);                                                                   \
    }                                                                                              \
  } while (0)

static inline int tu_summary(const char *name) {
  printf("%s: %d checks, %d failed\n", name, tu_checks, tu_failures);
  return tu_failures ? 1 : 0;
}

#endif

/* check.h: the smallest assert helpers for the C unit tests. */
#ifndef HTA_CHECK_H
#define HTA_CHECK_H
#include <stdio.h>

static int tu_failed, tu_run;
#define CHECK(cond)                                                            \
  do {                                                                         \
    tu_run++;                                                                  \
    if (!(cond)) {                                                             \
      tu_failed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)
#define CHECK_EQ(a, b)                                                                             \
  do {                                                                                             \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                          \
    tu_run++;                                                                                      \
    if (va_ != vb_) {                                                                              \
      tu_failed++;                                                                                 \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, va_, #b, \
              vb_);                                                                                \
    }                                                                                              \
  } while (0)
#define TU_DONE(name)                                                       \
  do {                                                                      \
    fprintf(stderr, "%s: %d checks, %d failed\n", name, tu_run, tu_failed); \
    return tu_failed ? 1 : 0;                                               \
  } while (0)
#endif

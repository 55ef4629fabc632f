/*
** big_alloc.c: room for the large arrays an analysis fills at once (a trace's call
** tree, its sort keys, its GPU rows): sqlite3_malloc64, then on Linux the advice that
** the kernel back the block with huge pages. A page costs a fault on its first touch,
** and in a virtual machine that fault is dear (about 12 us per 4 KiB page on the VM
** the benchmarks run on: a million-node tree then spends more time faulting its
** arrays in than filling them). A 2 MiB page is one fault where 4 KiB pages are 512.
** The advice changes no result and may be ignored (THP off, another allocator).
*/
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* The 2 MiB pages wholly inside [P, P + N) are to be huge. */
static void adviseHuge(void *p, sqlite3_uint64 n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t hi = ((uintptr_t)p + (uintptr_t)n) & ~(HUGE_PAGE - 1);
  if (p && n >= HTA_BIG_BYTES && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

void *hta_malloc_big(sqlite3_uint64 n) {
  void *p = sqlite3_malloc64(n);
  adviseHuge(p, n);
  return p;
}

void *hta_realloc_big(void *old, sqlite3_uint64 n) {
  void *p = sqlite3_realloc64(old, n);
  adviseHuge(p, n);
  return p;
}

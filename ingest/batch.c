/*
** batch.c: row batches passed from parser threads to the writer. See batch.h.
*/
#include "batch.h"

#include <stdlib.h>
#include <string.h>

bt_batch *bt_new(void) {
  bt_batch *b = calloc(1, sizeof *b);
  return b;
}

void bt_reset(bt_batch *b) {
  b->nrows = 0;
  b->nstrs = 0;
  b->used = 0;
}

void bt_free(bt_batch *b) {
  if (!b) return;
  free(b->strs);
  free(b->arena);
  free(b);
}

uint32_t bt_put(bt_batch *b, const void *p, size_t n) {
  if (n > UINT32_MAX - b->used - 1) return UINT32_MAX;
  if (b->used + n > b->cap) {
    size_t c = b->cap ? b->cap : 1 << 16;
    while (c < b->used + n) c *= 2;
    char *a = realloc(b->arena, c);
    if (!a) return UINT32_MAX;
    b->arena = a;
    b->cap = c;
  }
  if (n) memcpy(b->arena + b->used, p, n);
  uint32_t off = (uint32_t)b->used;
  b->used += n;
  return off;
}

int bt_add_str(bt_batch *b, int is_cat, uint32_t local, const void *p, size_t n) {
  if (b->nstrs == b->capstrs) {
    size_t c = b->capstrs ? b->capstrs * 2 : 256;
    bt_str *s = realloc(b->strs, c * sizeof *s);
    if (!s) return -1;
    b->strs = s;
    b->capstrs = c;
  }
  uint32_t off = bt_put(b, p, n);
  if (off == UINT32_MAX) return -1;
  bt_str *s = &b->strs[b->nstrs++];
  s->is_cat = (uint8_t)is_cat;
  s->local = local;
  s->off = off;
  s->len = (uint32_t)n;
  return 0;
}

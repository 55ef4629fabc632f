/*
** test_spool.c: unit tests of the spool (so_): batches come back field for field, in
** order, from memory, from the temporary file, and across the two; what a pass may
** not set comes back as the writer expects it (depth -1); misuse is an error.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"
#include "testutil.h"

/* Fills b with N rows of every kind, their fields drawn from SEED (extremes included). */
static void fill(bt_batch *b, int n, int seed) {
  bt_reset(b);
  bt_add_str(b, 0, (uint32_t)seed, "name", 4);
  bt_add_str(b, 1, 7, "cat", 3);
  for (int i = 0; i < n; i++) {
    bt_row *r = &b->rows[b->nrows++];
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)(i % 4);
    r->ph = "XCst"[i % 4];
    r->has = (uint16_t)((i * 2654435761u + (unsigned)seed) & 0x3fffu);
    r->dv = (uint8_t)(i & 0x1f);
    r->cat = i % 3 ? (uint32_t)i : BT_NONE;
    r->name = i % 5 ? (uint32_t)(seed + i) : BT_NONE;
    r->seq = (int64_t)seed * 100000 + i;
    int64_t big = i % 2 ? INT64_MAX - i : INT64_MIN + i;
    r->ts = big, r->dur = -i, r->stream = i, r->device = -1, r->corr = big / 3, r->ext = 1;
    r->pid.len = -1, r->pid.i = big;
    r->tid.len = 3, r->tid.off = (uint32_t)i;
    r->id.len = i % 2 ? -1 : 0, r->id.i = r->id.len < 0 ? -7 : 0;
    r->text_off = (uint32_t)i * 3, r->text_len = (uint32_t)i;
    r->value = i * 0.5 - 3;
    r->iteration = r->kind == BT_THREAD ? i - 2 : 0; /* only threads keep theirs */
    r->depth = -1;
    r->id.off = 0;
  }
  bt_put(b, "arena-bytes", 11);
}

/* The fields the spool keeps, compared one by one (padding and the rest left out). */
static int same_row(const bt_row *a, const bt_row *b) {
  unsigned h = a->has;
  int ok = a->kind == b->kind && a->ph == b->ph && a->has == b->has && a->dv == b->dv &&
           a->cat == b->cat && a->name == b->name && a->seq == b->seq &&
           a->text_off == b->text_off && a->text_len == b->text_len && b->depth == -1;
  if (h & BT_TS) ok &= a->ts == b->ts;
  if (h & BT_DUR) ok &= a->dur == b->dur;
  if (h & BT_STREAM) ok &= a->stream == b->stream;
  if (h & BT_DEVICE) ok &= a->device == b->device;
  if (h & BT_CORR) ok &= a->corr == b->corr;
  if (h & BT_EXT) ok &= a->ext == b->ext;
  const bt_val *va[3] = {&a->pid, &a->tid, &a->id}, *vb[3] = {&b->pid, &b->tid, &b->id};
  unsigned bits[3] = {BT_PID, BT_TID, BT_ID};
  for (int k = 0; k < 3; k++) {
    if (!(h & bits[k])) continue;
    ok &= va[k]->len == vb[k]->len;
    ok &= va[k]->len >= 0 ? va[k]->off == vb[k]->off : va[k]->i == vb[k]->i;
  }
  if (a->kind == BT_COUNTER || a->kind == BT_THREAD) ok &= a->value == b->value;
  if (a->kind == BT_THREAD) ok &= a->iteration == b->iteration;
  return ok;
}

static int same_batch(const bt_batch *a, const bt_batch *b) {
  if (a->nrows != b->nrows || a->nstrs != b->nstrs || a->used != b->used) return 0;
  if (memcmp(a->arena, b->arena, a->used)) return 0;
  for (size_t i = 0; i < a->nstrs; i++) {
    const bt_str *x = &a->strs[i], *y = &b->strs[i];
    if (x->is_cat != y->is_cat || x->local != y->local || x->off != y->off || x->len != y->len)
      return 0;
  }
  for (size_t i = 0; i < a->nrows; i++)
    if (!same_row(&a->rows[i], &b->rows[i])) return 0;
  return 1;
}

/* NB batches through a spool of MEM bytes in memory: each comes back as it went in. */
static void roundtrip(size_t mem, int nb, int spill_expected) {
  so_spool *s = so_new(mem);
  bt_batch *b = bt_new(), *got = bt_new();
  CHECK(s && b && got);
  if (!s || !b || !got) return;
  for (int k = 0; k < nb; k++) {
    fill(b, k == 1 ? 0 : (k * 997) % BT_ROWS + 1, k); /* batch 1: strings only */
    CHECK_INT(so_put(s, b), 0);
  }
  bt_reset(b);
  CHECK_INT(so_put(s, b), 0); /* an empty batch is skipped */
  CHECK_INT(so_rewind(s), 0);
  CHECK_INT(so_spilled(s) > 0, spill_expected);
  for (int k = 0; k < nb; k++) {
    fill(b, k == 1 ? 0 : (k * 997) % BT_ROWS + 1, k);
    CHECK_INT(so_get(s, got), 1);
    CHECK(same_batch(b, got));
  }
  CHECK_INT(so_get(s, got), 0);
  CHECK(so_error(s) == NULL);
  CHECK_INT(so_put(s, b), -1); /* written after rewind */
  CHECK_STR(so_error(s), "spool: written after rewind");
  so_free(s);
  bt_free(b);
  bt_free(got);
}

int main(void) {
  roundtrip(64u << 20, 9, 0); /* all in memory */
  roundtrip(0, 9, 1);         /* all in the temporary file */
  roundtrip(300000, 9, 1);    /* the first ones in memory, the rest in the file */
  so_spool *s = so_new(0);    /* read before rewind */
  bt_batch *b = bt_new();
  CHECK_INT(so_get(s, b), -1);
  CHECK_STR(so_error(s), "spool: read before rewind");
  so_free(s);
  bt_free(b);
  return tu_summary("test_spool");
}

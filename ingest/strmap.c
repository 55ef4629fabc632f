/*
** strmap.c: string -> dense id hash map. See strmap.h.
** HOW IT WORKS: linear probing over a power-of-two table of ids; the table
** doubles at 50% load. Keys live in 1 MiB arena blocks (larger keys get a
** block of their own), so interning never moves a key already handed out.
*/
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#define SM_BLOCK (1u << 20)

void sm_init(sm_map *m) { memset(m, 0, sizeof *m); }

void sm_free(sm_map *m) {
  for (size_t i = 0; i < m->nblocks; i++) free(m->blocks[i]);
  free(m->blocks);
  free(m->slots);
  free(m->keys);
  free(m->lens);
  free(m->hashes);
  memset(m, 0, sizeof *m);
}

/* 64-bit FNV-1a over 8-byte words, finished with a murmur-style mix. */
uint64_t sm_hash(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
    s += 8;
    n -= 8;
  }
  while (n--) h = (h ^ *s++) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

static int sm_grow(sm_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 1024;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (size_t id = 0; id < m->n; id++) {
    size_t i = (size_t)m->hashes[id] & (cap - 1);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = (uint32_t)id + 1;
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
  return 0;
}

static char *sm_store(sm_map *m, const void *key, size_t n) {
  if (n + 1 > m->arena_cap - m->arena_used) {
    size_t sz = n + 1 > SM_BLOCK ? n + 1 : SM_BLOCK;
    char **b = realloc(m->blocks, (m->nblocks + 1) * sizeof *b);
    if (!b) return NULL;
    m->blocks = b;
    if (!(m->arena = malloc(sz))) return NULL;
    m->blocks[m->nblocks++] = m->arena;
    m->bytes += sz;
    m->arena_used = 0;
    m->arena_cap = sz;
  }
  char *dst = m->arena + m->arena_used;
  memcpy(dst, key, n);
  dst[n] = 0;
  m->arena_used += n + 1;
  return dst;
}

int64_t sm_find(const sm_map *m, const void *key, size_t n) {
  if (!m->cap) return -1;
  uint64_t h = sm_hash(key, n);
  for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    uint32_t s = m->slots[i];
    if (!s) return -1;
    if (m->hashes[s - 1] == h && m->lens[s - 1] == n && !memcmp(m->keys[s - 1], key, n))
      return s - 1;
  }
}

int64_t sm_intern(sm_map *m, const void *key, size_t n, int *added) {
  *added = 0;
  if ((m->n + 1) * 2 > m->cap && sm_grow(m)) return -1;
  uint64_t h = sm_hash(key, n);
  size_t i = (size_t)h & (m->cap - 1);
  for (;; i = (i + 1) & (m->cap - 1)) {
    uint32_t s = m->slots[i];
    if (!s) break;
    if (m->hashes[s - 1] == h && m->lens[s - 1] == n && !memcmp(m->keys[s - 1], key, n))
      return s - 1;
  }
  if (m->n == m->keycap) {
    size_t kc = m->keycap ? m->keycap * 2 : 1024;
    char **k = realloc(m->keys, kc * sizeof *k);
    if (!k) return -1;
    m->keys = k;
    uint32_t *l = realloc(m->lens, kc * sizeof *l);
    if (!l) return -1;
    m->lens = l;
    uint64_t *hs = realloc(m->hashes, kc * sizeof *hs);
    if (!hs) return -1;
    m->hashes = hs;
    m->keycap = kc;
  }
  char *copy = sm_store(m, key, n);
  if (!copy) return -1;
  size_t id = m->n++;
  m->keys[id] = copy;
  m->lens[id] = (uint32_t)n;
  m->hashes[id] = h;
  m->slots[i] = (uint32_t)id + 1;
  *added = 1;
  return (int64_t)id;
}

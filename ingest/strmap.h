/*
** strmap.h: an open-addressing hash map from byte strings to dense ids 0..n-1
** (prefix sm_). Keys are copied into an arena owned by the map. Used for string
** interning (names, categories) and for grouping events by (pid, tid).
*/
#ifndef HTA_STRMAP_H
#define HTA_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sm_map {
  uint32_t *slots;  /* id + 1, 0 = empty */
  size_t cap;       /* power of two */
  size_t n;         /* ids handed out */
  char **keys;      /* id -> key bytes (NUL-terminated copy) */
  uint32_t *lens;   /* id -> key length */
  uint64_t *hashes; /* id -> hash, to grow without rehashing keys */
  size_t keycap;
  char *arena; /* current arena block */
  size_t arena_used, arena_cap;
  char **blocks; /* every arena block, to free */
  size_t nblocks;
  size_t bytes; /* of all blocks */
} sm_map;

void sm_init(sm_map *m);
void sm_free(sm_map *m);
uint64_t sm_hash(const void *p, size_t n);
/* Returns the id of KEY, adding it when absent (*added = 1); -1 on OOM. */
int64_t sm_intern(sm_map *m, const void *key, size_t n, int *added);
/* Returns the id of KEY or -1. */
int64_t sm_find(const sm_map *m, const void *key, size_t n);
/* Bytes the map holds: keys, table and per-id arrays. */
static inline size_t sm_bytes(const sm_map *m) { return m->bytes + m->cap * 4 + m->keycap * 20; }
static inline const char *sm_key(const sm_map *m, size_t id) { return m->keys[id]; }
static inline size_t sm_len(const sm_map *m, size_t id) { return m->lens[id]; }

#endif

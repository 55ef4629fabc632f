/*
** job_diff_align.c: the alignment of two child lists (job_diff.c JD-5, JD-6):
** TraceDiff's Wagner-Fischer over the comparison names, backtracked its way (a match
** whenever the names are equal, else a delete when the cost allows it, else an
** insert: never a substitution), then its disambiguation of names that occur more
** than once, by the names of the GPU-path nodes below them (four levels).
**
** HOW IT WORKS: the common suffix is matched first (the backtrack starts there and
** matches equal names greedily, so this changes nothing); the rest is a two-row
** DP that keeps one bit per cell, "dp[i][j] == dp[i-1][j] + 1", which is all the
** backtrack reads. Lists whose rest exceeds JD_WF_MAX_CELLS cells are aligned
** position by position instead (JD-5). The disambiguation scores every pair of
** same-named candidates and assigns greedily, as TraceDiff does.
*/
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* JD-5: 2^28 cells are 32 MiB of backtrack bits and well under a second. */
#define JD_WF_MAX_CELLS ((uint64_t)1 << 28)
/* JD-6: the disambiguation scores at most this many pairs of one name. */
#define JD_DIS_MAX_PAIRS ((uint64_t)1 << 22)
#define JD_BFS_DEPTH 4

int jd_ops_push(jd_ops *o, int32_t op, int32_t i, int32_t j) {
  jd_op x = {op, i, j};
  HTA_PUSH(o->a, o->n, o->cap, 16, x, push_oom);
  return SQLITE_OK;
push_oom:
  return SQLITE_NOMEM;
}

static void jdReverse(jd_op *a, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    jd_op t = a[i];
    a[i] = a[n - 1 - i];
    a[n - 1 - i] = t;
  }
}

/* Wagner-Fischer and TraceDiff's backtrack over the id lists X[0..m), Y[0..n). */
static int jdWagnerFischer(const int32_t *x, size_t m, const int32_t *y, size_t n, jd_ops *ops) {
  int rc = SQLITE_OK;
  size_t i = m, j = n;
  ops->n = 0;
  /* the common suffix: the backtrack's first moves */
  while (i > 0 && j > 0 && x[i - 1] == y[j - 1]) {
    if ((rc = jd_ops_push(ops, JD_MATCH, (int32_t)(i - 1), (int32_t)(j - 1))) != SQLITE_OK)
      return rc;
    i--, j--;
  }
  if (i > 0 && j > 0 && (uint64_t)i * j > JD_WF_MAX_CELLS) {
    /* too large: position by position, equal names matched (JD-5) */
    size_t k = i < j ? i : j;
    while (i > k) rc = rc ? rc : jd_ops_push(ops, JD_DELETE, (int32_t)--i, -1);
    while (j > k) rc = rc ? rc : jd_ops_push(ops, JD_INSERT, -1, (int32_t)--j);
    while (k > 0 && rc == SQLITE_OK) {
      k--;
      if (x[k] == y[k]) rc = jd_ops_push(ops, JD_MATCH, (int32_t)k, (int32_t)k);
      else if ((rc = jd_ops_push(ops, JD_INSERT, -1, (int32_t)k)) == SQLITE_OK)
        rc = jd_ops_push(ops, JD_DELETE, (int32_t)k, -1);
    }
    if (rc == SQLITE_OK) jdReverse(ops->a, ops->n);
    return rc;
  }
  m = i, n = j;
  uint8_t *bits = 0;
  int32_t *prev = 0, *cur = 0;
  if (m && n) {
    bits = sqlite3_malloc64(((uint64_t)m * n + 7) / 8);
    prev = sqlite3_malloc64((n + 1) * sizeof *prev);
    cur = sqlite3_malloc64((n + 1) * sizeof *cur);
    if (!bits || !prev || !cur) {
      rc = SQLITE_NOMEM;
      goto wf_end;
    }
    memset(bits, 0, ((uint64_t)m * n + 7) / 8);
    for (size_t c = 0; c <= n; c++) prev[c] = (int32_t)c;
    for (size_t r = 1; r <= m; r++) {
      cur[0] = (int32_t)r;
      for (size_t c = 1; c <= n; c++) {
        int32_t del = prev[c] + 1, ins = cur[c - 1] + 1;
        int32_t sub = prev[c - 1] + (x[r - 1] == y[c - 1] ? 0 : 1);
        int32_t v = del < ins ? del : ins;
        if (sub < v) v = sub;
        cur[c] = v;
        if (v == del) {
          uint64_t b = (uint64_t)(r - 1) * n + (c - 1);
          bits[b >> 3] |= (uint8_t)(1u << (b & 7));
        }
      }
      int32_t *t = prev;
      prev = cur;
      cur = t;
    }
  }
  while (rc == SQLITE_OK && (i > 0 || j > 0)) {
    if (i > 0 && j > 0 && x[i - 1] == y[j - 1]) {
      rc = jd_ops_push(ops, JD_MATCH, (int32_t)(i - 1), (int32_t)(j - 1));
      i--, j--;
    } else {
      int del = j == 0;
      if (!del && i > 0) {
        uint64_t b = (uint64_t)(i - 1) * n + (j - 1);
        del = (bits[b >> 3] >> (b & 7)) & 1;
      }
      if (i > 0 && del) {
        rc = jd_ops_push(ops, JD_DELETE, (int32_t)(i - 1), -1);
        i--;
      } else {
        rc = jd_ops_push(ops, JD_INSERT, -1, (int32_t)(j - 1));
        j--;
      }
    }
  }
  if (rc == SQLITE_OK) jdReverse(ops->a, ops->n);
wf_end:
  sqlite3_free(bits);
  sqlite3_free(prev);
  sqlite3_free(cur);
  return rc;
}

/* ---------------------------------------------------------------- disambiguation */
/* The sorted name multisets of the GPU-path nodes 1..4 levels below a node. */
typedef struct jd_levels {
  int32_t *v;
  size_t off[JD_BFS_DEPTH + 1]; /* level d is v[off[d]..off[d+1]) */
  int n;                        /* levels present */
} jd_levels;

static void jdLevelsFree(jd_levels *v, size_t n) {
  for (size_t k = 0; v && k < n; k++) sqlite3_free(v[k].v);
  sqlite3_free(v);
}

static int jdLevels(const jd_side *s, int32_t u, jd_levels *L) {
  int32_t *front = 0, *next = 0;
  size_t nf = 0, af = 0, nn = 0, an = 0, nv = 0, av = 0;
  memset(L, 0, sizeof *L);
  HTA_PUSH(front, nf, af, 8, u, lv_oom);
  for (int d = 0; d < JD_BFS_DEPTH; d++) {
    nn = 0;
    L->off[d] = nv;
    for (size_t k = 0; k < nf; k++) {
      int32_t x = front[k];
      for (int32_t c = s->coff[x]; c < s->coff[x + 1]; c++) {
        int32_t ch = s->cidx[c];
        if (!jd_gpu_path(s, ch)) continue;
        HTA_PUSH(next, nn, an, 8, ch, lv_oom);
        HTA_PUSH(L->v, nv, av, 8, s->name[ch], lv_oom);
      }
    }
    if (nv > L->off[d]) qsort(L->v + L->off[d], nv - L->off[d], sizeof *L->v, hta_i32_cmp);
    L->off[d + 1] = nv;
    L->n = d + 1;
    int32_t *t = front;
    size_t ta = af;
    front = next, nf = nn, af = an;
    next = t, an = ta;
    if (!nf) break;
  }
  sqlite3_free(front);
  sqlite3_free(next);
  return SQLITE_OK;
lv_oom:
  sqlite3_free(front);
  sqlite3_free(next);
  sqlite3_free(L->v);
  L->v = 0;
  return SQLITE_NOMEM;
}

/* TraceDiff's match_depth: levels equal before the first difference, and the
** multiset overlap at that level. */
static void jdMatchDepth(const jd_levels *a, const jd_levels *b, int *depth, int64_t *overlap) {
  int maxd = a->n > b->n ? a->n : b->n;
  for (int d = 0; d < maxd; d++) {
    const int32_t *x = d < a->n ? a->v + a->off[d] : 0, *y = d < b->n ? b->v + b->off[d] : 0;
    size_t nx = d < a->n ? a->off[d + 1] - a->off[d] : 0;
    size_t ny = d < b->n ? b->off[d + 1] - b->off[d] : 0;
    if (nx == ny && (!nx || !memcmp(x, y, nx * sizeof *x))) continue;
    int64_t ov = 0;
    for (size_t i = 0, j = 0; i < nx && j < ny;) {
      if (x[i] == y[j]) ov++, i++, j++;
      else if (x[i] < y[j]) i++;
      else j++;
    }
    *depth = d;
    *overlap = ov;
    return;
  }
  *depth = maxd;
  *overlap = 0;
}

typedef struct jd_cand {
  int32_t name, idx, side; /* side 0: list A, 1: list B */
  int matched;             /* the index is in a match op */
} jd_cand;

static int jdCandCmp(const void *a, const void *b) {
  const jd_cand *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  if (x->side != y->side) return x->side - y->side;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct jd_score {
  int depth;
  int64_t overlap;
  int orig; /* the pair is a match of the alignment */
  int32_t i, j;
} jd_score;

static int jdScoreCmp(const void *a, const void *b) {
  const jd_score *x = a, *y = b;
  if (x->depth != y->depth) return x->depth > y->depth ? -1 : 1;
  if (x->overlap != y->overlap) return x->overlap > y->overlap ? -1 : 1;
  if (x->orig != y->orig) return x->orig ? -1 : 1;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* Is (i, j) a match of OPS? MATCH_OF[i] is the j matched to i, -1. */
static int jdIsOrig(const int32_t *match_of, int32_t i, int32_t j) { return match_of[i] == j; }

/* JD-6 on OPS (an alignment of A and B), in place. */
static int jdDisambiguate(const jd_side *s1, const int32_t *a, size_t na, const jd_side *s2,
                          const int32_t *b, size_t nb, jd_ops *ops) {
  jd_cand *c = 0;
  size_t nc = 0, ac = 0;
  int32_t *match_of = sqlite3_malloc64((na ? na : 1) * sizeof *match_of);
  /* per index: 0 untouched, 1 handled (its name is ambiguous) */
  unsigned char *h1 = sqlite3_malloc64(na ? na : 1), *h2 = sqlite3_malloc64(nb ? nb : 1);
  int32_t *new_j = sqlite3_malloc64((na ? na : 1) * sizeof *new_j); /* new match of i */
  unsigned char *del_new = sqlite3_malloc64(na ? na : 1), *ins_new = sqlite3_malloc64(nb ? nb : 1);
  jd_levels *lv1 = 0, *lv2 = 0; /* the group being scored: nlv1, nlv2 entries */
  size_t nlv1 = 0, nlv2 = 0;
  jd_score *sc = 0;
  size_t nsc = 0, asc = 0;
  int rc = SQLITE_OK, any = 0, changed = 0;
  if (!match_of || !h1 || !h2 || !new_j || !del_new || !ins_new) {
    rc = SQLITE_NOMEM;
    goto dis_end;
  }
  memset(h1, 0, na ? na : 1);
  memset(h2, 0, nb ? nb : 1);
  memset(del_new, 0, na ? na : 1);
  memset(ins_new, 0, nb ? nb : 1);
  for (size_t i = 0; i < na; i++) match_of[i] = new_j[i] = -1;
  for (size_t k = 0; k < ops->n; k++) {
    const jd_op *o = &ops->a[k];
    if (o->op != JD_INSERT) {
      jd_cand x = {s1->name[a[o->i]], o->i, 0, o->op == JD_MATCH};
      HTA_PUSH(c, nc, ac, 16, x, dis_oom);
    }
    if (o->op != JD_DELETE) {
      jd_cand x = {s2->name[b[o->j]], o->j, 1, o->op == JD_MATCH};
      HTA_PUSH(c, nc, ac, 16, x, dis_oom);
    }
    if (o->op == JD_MATCH) match_of[o->i] = o->j;
  }
  if (nc) qsort(c, nc, sizeof *c, jdCandCmp);
  for (size_t lo = 0; lo < nc && rc == SQLITE_OK;) {
    size_t hi = lo, mid;
    int matched = 0;
    while (hi < nc && c[hi].name == c[lo].name) matched |= c[hi++].matched;
    for (mid = lo; mid < hi && c[mid].side == 0; mid++) {
    }
    size_t n1 = mid - lo, n2 = hi - mid;
    /* ambiguous: on both sides, in a match, more than once on a side */
    if (!n1 || !n2 || !matched || (n1 < 2 && n2 < 2) || (uint64_t)n1 * n2 > JD_DIS_MAX_PAIRS) {
      lo = hi;
      continue;
    }
    any = 1;
    lv1 = sqlite3_malloc64(n1 * sizeof *lv1);
    lv2 = sqlite3_malloc64(n2 * sizeof *lv2);
    if (!lv1 || !lv2) {
      sqlite3_free(lv1);
      sqlite3_free(lv2);
      lv1 = lv2 = 0;
      goto dis_oom;
    }
    memset(lv1, 0, n1 * sizeof *lv1);
    memset(lv2, 0, n2 * sizeof *lv2);
    nlv1 = n1, nlv2 = n2;
    for (size_t k = 0; k < n1 && rc == SQLITE_OK; k++) rc = jdLevels(s1, a[c[lo + k].idx], &lv1[k]);
    for (size_t k = 0; k < n2 && rc == SQLITE_OK; k++)
      rc = jdLevels(s2, b[c[mid + k].idx], &lv2[k]);
    nsc = 0;
    for (size_t p = 0; p < n1 && rc == SQLITE_OK; p++) {
      for (size_t q = 0; q < n2; q++) {
        jd_score x;
        x.i = c[lo + p].idx;
        x.j = c[mid + q].idx;
        jdMatchDepth(&lv1[p], &lv2[q], &x.depth, &x.overlap);
        x.orig = jdIsOrig(match_of, x.i, x.j);
        HTA_PUSH(sc, nsc, asc, 64, x, dis_oom);
      }
    }
    if (rc == SQLITE_OK) {
      size_t want = n1 < n2 ? n1 : n2, got = 0;
      qsort(sc, nsc, sizeof *sc, jdScoreCmp);
      for (size_t k = 0; k < n1; k++) h1[c[lo + k].idx] = 1, del_new[c[lo + k].idx] = 1;
      for (size_t k = 0; k < n2; k++) h2[c[mid + k].idx] = 1, ins_new[c[mid + k].idx] = 1;
      for (size_t k = 0; k < nsc && got < want; k++) {
        if (!del_new[sc[k].i] || !ins_new[sc[k].j]) continue; /* taken */
        del_new[sc[k].i] = ins_new[sc[k].j] = 0;
        new_j[sc[k].i] = sc[k].j;
        if (!sc[k].orig) changed = 1;
        got++;
      }
    }
    jdLevelsFree(lv1, nlv1);
    jdLevelsFree(lv2, nlv2);
    lv1 = lv2 = 0;
    nlv1 = nlv2 = 0;
    lo = hi;
  }
  if (rc != SQLITE_OK || !any || !changed) goto dis_end; /* the alignment stands */
  {
    /* the kept ops in order, then the new matches (by control index), deletes, inserts;
    ** an index whose partner alone was re-paired becomes one-sided (JD-6) */
    jd_ops out = {0, 0, 0};
    unsigned char *seen1 = sqlite3_malloc64(na ? na : 1), *seen2 = sqlite3_malloc64(nb ? nb : 1);
    if (!seen1 || !seen2) {
      sqlite3_free(seen1);
      sqlite3_free(seen2);
      goto dis_oom;
    }
    memset(seen1, 0, na ? na : 1);
    memset(seen2, 0, nb ? nb : 1);
    for (size_t k = 0; k < ops->n && rc == SQLITE_OK; k++) {
      const jd_op *o = &ops->a[k];
      if ((o->op == JD_MATCH && (h1[o->i] || h2[o->j])) || (o->op == JD_DELETE && h1[o->i]) ||
          (o->op == JD_INSERT && h2[o->j]))
        continue;
      rc = jd_ops_push(&out, o->op, o->i, o->j);
      if (o->op != JD_INSERT) seen1[o->i] = 1;
      if (o->op != JD_DELETE) seen2[o->j] = 1;
    }
    for (size_t i = 0; i < na && rc == SQLITE_OK; i++)
      if (new_j[i] >= 0) {
        rc = jd_ops_push(&out, JD_MATCH, (int32_t)i, new_j[i]);
        seen1[i] = 1, seen2[new_j[i]] = 1;
      }
    for (size_t i = 0; i < na && rc == SQLITE_OK; i++)
      if (del_new[i]) rc = jd_ops_push(&out, JD_DELETE, (int32_t)i, -1), seen1[i] = 1;
    for (size_t j = 0; j < nb && rc == SQLITE_OK; j++)
      if (ins_new[j]) rc = jd_ops_push(&out, JD_INSERT, -1, (int32_t)j), seen2[j] = 1;
    for (size_t k = 0; k < ops->n && rc == SQLITE_OK; k++) { /* no index lost */
      const jd_op *o = &ops->a[k];
      if (o->op != JD_INSERT && !seen1[o->i])
        rc = jd_ops_push(&out, JD_DELETE, o->i, -1), seen1[o->i] = 1;
      if (rc == SQLITE_OK && o->op != JD_DELETE && !seen2[o->j])
        rc = jd_ops_push(&out, JD_INSERT, -1, o->j), seen2[o->j] = 1;
    }
    sqlite3_free(seen1);
    sqlite3_free(seen2);
    if (rc == SQLITE_OK) {
      sqlite3_free(ops->a);
      *ops = out;
    } else {
      sqlite3_free(out.a);
    }
  }
  goto dis_end;
dis_oom:
  rc = SQLITE_NOMEM;
dis_end:
  jdLevelsFree(lv1, nlv1);
  jdLevelsFree(lv2, nlv2);
  sqlite3_free(c);
  sqlite3_free(match_of);
  sqlite3_free(h1);
  sqlite3_free(h2);
  sqlite3_free(new_j);
  sqlite3_free(del_new);
  sqlite3_free(ins_new);
  sqlite3_free(sc);
  return rc;
}

int jd_align(const jd_side *s1, const int32_t *a, size_t na, const jd_side *s2, const int32_t *b,
             size_t nb, int strip, jd_ops *ops) {
  int32_t *x = sqlite3_malloc64((na ? na : 1) * sizeof *x);
  int32_t *y = sqlite3_malloc64((nb ? nb : 1) * sizeof *y);
  int rc = SQLITE_NOMEM;
  if (x && y) {
    for (size_t i = 0; i < na; i++) x[i] = strip ? s1->sname[a[i]] : s1->name[a[i]];
    for (size_t j = 0; j < nb; j++) y[j] = strip ? s2->sname[b[j]] : s2->name[b[j]];
    rc = jdWagnerFischer(x, na, y, nb, ops);
  }
  sqlite3_free(x);
  sqlite3_free(y);
  if (rc == SQLITE_OK) rc = jdDisambiguate(s1, a, na, s2, b, nb, ops);
  return rc;
}

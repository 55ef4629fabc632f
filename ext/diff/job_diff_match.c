/*
** job_diff_match.c: the merged tree of two runs and its comparison points
** (job_diff.c JD-4..JD-9): TraceLens's TraceDiff.merge_trees node by node, then
** generate_diff_stats's lowest common ancestors, with the corrections JD-4 and JD-9
** name.
**
** HOW IT WORKS: jdMerge is traverse_and_merge: it numbers the pair (pre-order, the
** merged_id), builds both child lists (the GPU-path children, plus a same-named
** child the other side lacks on its GPU path), then runs the four phases: a list
** that is one wrapper against several nodes is collapsed (1), the lists are aligned
** by position or by names (2), wrappers among the unmatched are replaced by their
** children and the rest re-aligned (3), the still unmatched are collapsed one by one
** and aligned again, names stripped of details on a second pass (4); it then recurses
** in alignment order. Recursion is bounded (JD_MAX_DEPTH). jdPoints then walks the
** merged tree depth first and files every GPU event under the comparison point that
** compares it.
*/
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Call trees nest a few dozen levels; a deeper one (a hostile file) is cut there:
** the node at that depth gets no children (JD-4). */
#define JD_MAX_DEPTH 256

typedef struct jd_memo {
  int64_t *key;
  int32_t *val;
  size_t n, nslot;
} jd_memo;

/* ---------------------------------------------------------------- node lists */
typedef struct jd_list {
  int32_t *v;
  size_t n, cap;
} jd_list;

/* The lists one level of the recursion works on, kept from one pair to the next. */
typedef struct jd_frame {
  jd_list c1, c2, kids, ch;
  jd_ops ops;
} jd_frame;

typedef struct jd_ctx {
  sqlite3 *db;
  const jd_side *s[2];
  jd_merged *m;
  jd_memo memo;
  jd_frame *frames; /* JD_MAX_DEPTH of them, by depth */
  int rc;
  size_t visits; /* nodes since the last interrupt check */
} jd_ctx;

/* ---------------------------------------------------------------- the pair memo */
static uint64_t jdMix(int64_t k) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return x ^ (x >> 29);
}

static int32_t jdMemoGet(const jd_memo *m, int64_t key) {
  if (!m->nslot) return -1;
  for (size_t k = jdMix(key) & (m->nslot - 1); m->val[k] >= 0; k = (k + 1) & (m->nslot - 1))
    if (m->key[k] == key) return m->val[k];
  return -1;
}

/* Room for N entries without a rehash (a power of two, at least twice N). */
static int jdMemoGrow(jd_memo *m, size_t n) {
  size_t ns = m->nslot ? m->nslot : 4096;
  while (ns < 2 * n) ns *= 2;
  if (ns == m->nslot) return SQLITE_OK;
  int64_t *nk = hta_malloc_big(ns * sizeof *nk);
  int32_t *nv = hta_malloc_big(ns * sizeof *nv);
  if (!nk || !nv) {
    sqlite3_free(nk);
    sqlite3_free(nv);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < ns; i++) nv[i] = -1;
  for (size_t i = 0; i < m->nslot; i++) {
    if (m->val[i] < 0) continue;
    size_t k = jdMix(m->key[i]) & (ns - 1);
    while (nv[k] >= 0) k = (k + 1) & (ns - 1);
    nk[k] = m->key[i];
    nv[k] = m->val[i];
  }
  sqlite3_free(m->key);
  sqlite3_free(m->val);
  m->key = nk, m->val = nv, m->nslot = ns;
  return SQLITE_OK;
}

static int jdMemoPut(jd_memo *m, int64_t key, int32_t val) {
  if ((m->n + 1) * 2 > m->nslot && jdMemoGrow(m, m->n + 1) != SQLITE_OK) return SQLITE_NOMEM;
  size_t k = jdMix(key) & (m->nslot - 1);
  while (m->val[k] >= 0) k = (k + 1) & (m->nslot - 1);
  m->key[k] = key;
  m->val[k] = val;
  m->n++;
  return SQLITE_OK;
}

static int jdPush(jd_list *l, int32_t u) {
  HTA_PUSH(l->v, l->n, l->cap, 16, u, lpush_oom);
  return SQLITE_OK;
lpush_oom:
  return SQLITE_NOMEM;
}

typedef struct jd_tskey {
  int64_t ts;
  size_t pos;
  int32_t u;
} jd_tskey;

static int jdTsCmp(const void *a, const void *b) {
  const jd_tskey *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* TraceDiff's _sort_by_ts: a stable sort by ts. */
static int jdSortTs(const jd_side *s, jd_list *l) {
  int sorted = 1;
  for (size_t i = 1; i < l->n && sorted; i++) sorted = jd_ts(s, l->v[i - 1]) <= jd_ts(s, l->v[i]);
  if (sorted) return SQLITE_OK;
  jd_tskey *k = sqlite3_malloc64(l->n * sizeof *k);
  if (!k) return SQLITE_NOMEM;
  for (size_t i = 0; i < l->n; i++) k[i].ts = jd_ts(s, l->v[i]), k[i].pos = i, k[i].u = l->v[i];
  qsort(k, l->n, sizeof *k, jdTsCmp);
  for (size_t i = 0; i < l->n; i++) l->v[i] = k[i].u;
  sqlite3_free(k);
  return SQLITE_OK;
}

/* The GPU-path children of U (children order) appended to L. */
static int jdGpuKids(const jd_side *s, int32_t u, jd_list *l) {
  int rc = SQLITE_OK;
  for (int32_t c = s->coff[u]; c < s->coff[u + 1] && rc == SQLITE_OK; c++)
    if (jd_gpu_path(s, s->cidx[c])) rc = jdPush(l, s->cidx[c]);
  return rc;
}

static int jdIdIn(const int32_t *sorted, size_t n, int32_t id) {
  return hta_i32_find(sorted, n, id) >= 0;
}

/* The sorted distinct names of the nodes of L. */
static int jdNameSet(const jd_side *s, const jd_list *l, int32_t **pv, size_t *pn) {
  size_t k = 0;
  int32_t *v = sqlite3_malloc64((l->n ? l->n : 1) * sizeof *v);
  if (!v) return SQLITE_NOMEM;
  for (size_t i = 0; i < l->n; i++) v[i] = s->name[l->v[i]];
  qsort(v, l->n, sizeof *v, hta_i32_cmp);
  for (size_t i = 0; i < l->n; i++)
    if (!k || v[k - 1] != v[i]) v[k++] = v[i];
  *pv = v, *pn = k;
  return SQLITE_OK;
}

/* To L (side S, node U's GPU-path children) the last child of U named like a GPU-path
** child of the other side (names ON, non) when that name is none of L's. */
static int jdAddMissing(const jd_side *s, int32_t u, jd_list *l, const int32_t *mine, size_t nmine,
                        const int32_t *other, size_t nother) {
  int rc = SQLITE_OK;
  size_t first = l->n;
  if (u < 0) return SQLITE_OK;
  for (int32_t c = s->coff[u + 1] - 1; c >= s->coff[u] && rc == SQLITE_OK; c--) {
    int32_t ch = s->cidx[c], nm = s->name[ch], dup = 0;
    if (!jdIdIn(other, nother, nm) || jdIdIn(mine, nmine, nm)) continue;
    for (size_t k = first; k < l->n && !dup; k++) dup = s->name[l->v[k]] == nm;
    if (!dup) rc = jdPush(l, ch); /* the last one of that name (scanning backwards) */
  }
  return rc;
}

/* TraceDiff's get_children_with_missing (JD-5). */
static int jdChildren(jd_ctx *x, int32_t u1, int32_t u2, jd_list *c1, jd_list *c2) {
  const jd_side *s1 = x->s[0], *s2 = x->s[1];
  int32_t *n1 = 0, *n2 = 0;
  size_t nn1 = 0, nn2 = 0;
  int rc = SQLITE_OK;
  int same = 1;
  if (u1 >= 0) rc = jdGpuKids(s1, u1, c1);
  if (rc == SQLITE_OK && u2 >= 0) rc = jdGpuKids(s2, u2, c2);
  same = c1->n == c2->n;
  for (size_t i = 0; same && i < c1->n; i++) same = s1->name[c1->v[i]] == s2->name[c2->v[i]];
  if (same) goto kids_sort; /* the same names: none is missing on either side */
  if (rc == SQLITE_OK) rc = jdNameSet(s1, c1, &n1, &nn1);
  if (rc == SQLITE_OK) rc = jdNameSet(s2, c2, &n2, &nn2);
  if (rc == SQLITE_OK) rc = jdAddMissing(s2, u2, c2, n2, nn2, n1, nn1);
  if (rc == SQLITE_OK) rc = jdAddMissing(s1, u1, c1, n1, nn1, n2, nn2);
  sqlite3_free(n1);
  sqlite3_free(n2);
kids_sort:
  if (rc == SQLITE_OK) rc = jdSortTs(s1, c1);
  if (rc == SQLITE_OK) rc = jdSortTs(s2, c2);
  return rc;
}

/* TraceDiff's collapse_single_gpu_child: from U down through nodes with one GPU-path
** child; stops at a runtime call, a cpu_op with a runtime child, or != 1 GPU-path
** children (those go to KIDS, which is emptied first). Returns the node reached. */
static int32_t jdCollapse(const jd_side *s, int32_t u, jd_list *kids, int *rc) {
  kids->n = 0;
  for (;;) {
    int32_t nk = 0, only = -1;
    if (s->kind[u] == JD_K_RT) return u;
    if (s->kind[u] == JD_K_CPU) {
      for (int32_t c = s->coff[u]; c < s->coff[u + 1]; c++)
        if (s->kind[s->cidx[c]] == JD_K_RT) return u;
    }
    for (int32_t c = s->coff[u]; c < s->coff[u + 1]; c++)
      if (jd_gpu_path(s, s->cidx[c])) nk++, only = s->cidx[c];
    if (nk != 1) {
      *rc = jdGpuKids(s, u, kids);
      return u;
    }
    u = only;
  }
}

static int jdAnyRuntime(const jd_side *s, const int32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s->kind[v[i]] == JD_K_RT) return 1;
  return 0;
}

/* Is one of U (side 0) and W (side 1) a wrapper of the other: its name among the
** other's GPU-path children (JD-e)? */
static int jdWrapperPair(jd_ctx *x, int32_t u, int32_t w) {
  const jd_side *s1 = x->s[0], *s2 = x->s[1];
  if (s1->name[u] == s2->name[w]) return 0;
  for (int32_t c = s2->coff[w]; c < s2->coff[w + 1]; c++)
    if (jd_gpu_path(s2, s2->cidx[c]) && s2->name[s2->cidx[c]] == s1->name[u]) return 1;
  for (int32_t c = s1->coff[u]; c < s1->coff[u + 1]; c++)
    if (jd_gpu_path(s1, s1->cidx[c]) && s1->name[s1->cidx[c]] == s2->name[w]) return 1;
  return 0;
}

/* Phase 2 on lists A, B: by position when they are as long and hold no runtime
** call (nor a node paired with its own wrapper: JD-e), else aligned by names. */
static int jdAlignLists(jd_ctx *x, const int32_t *a, size_t na, const int32_t *b, size_t nb,
                        jd_ops *ops) {
  int positional = na == nb && !jdAnyRuntime(x->s[0], a, na) && !jdAnyRuntime(x->s[1], b, nb);
  for (size_t i = 0; positional && i < na; i++) positional = !jdWrapperPair(x, a[i], b[i]);
  if (positional) {
    int rc = SQLITE_OK;
    ops->n = 0;
    for (size_t i = 0; i < na && rc == SQLITE_OK; i++)
      rc = jd_ops_push(ops, JD_MATCH, (int32_t)i, (int32_t)i);
    return rc;
  }
  return jd_align(x->s[0], a, na, x->s[1], b, nb, 0, ops);
}

/* ---------------------------------------------------------------- phase 3 */
/* The names of L's nodes, in order. */
static int jdNamesOf(const jd_side *s, const jd_list *l, int32_t **pv) {
  *pv = sqlite3_malloc64((l->n ? l->n : 1) * sizeof **pv);
  if (!*pv) return SQLITE_NOMEM;
  for (size_t i = 0; i < l->n; i++) (*pv)[i] = s->name[l->v[i]];
  return SQLITE_OK;
}

/* TraceDiff's reconcile_unmatched (JD-5 phase 3): *CHANGED when a wrapper was
** replaced; then C1, C2 and OPS are the new lists and alignment. */
static int jdReconcile(jd_ctx *x, jd_list *c1, jd_list *c2, jd_ops *ops, int *changed) {
  const jd_side *s1 = x->s[0], *s2 = x->s[1];
  jd_list *imm1 = 0, *imm2 = 0, r1 = {0, 0, 0}, r2 = {0, 0, 0};
  int32_t **nm1 = 0, **nm2 = 0;
  unsigned char *sub1 = 0, *sub2 = 0;
  int32_t *dels = 0, *ins = 0;
  size_t nd = 0, ni = 0;
  int rc = SQLITE_OK;
  jd_ops free_ops = {0, 0, 0}, out = {0, 0, 0};
  *changed = 0;
  dels = sqlite3_malloc64((ops->n ? ops->n : 1) * sizeof *dels);
  ins = sqlite3_malloc64((ops->n ? ops->n : 1) * sizeof *ins);
  if (!dels || !ins) goto rec_oom;
  for (size_t k = 0; k < ops->n; k++) {
    if (ops->a[k].op == JD_DELETE) dels[nd++] = ops->a[k].i;
    if (ops->a[k].op == JD_INSERT) ins[ni++] = ops->a[k].j;
  }
  if (!nd || !ni) goto rec_end;
  imm1 = sqlite3_malloc64(nd * sizeof *imm1);
  imm2 = sqlite3_malloc64(ni * sizeof *imm2);
  nm1 = sqlite3_malloc64(nd * sizeof *nm1);
  nm2 = sqlite3_malloc64(ni * sizeof *nm2);
  sub1 = sqlite3_malloc64(c1->n ? c1->n : 1);
  sub2 = sqlite3_malloc64(c2->n ? c2->n : 1);
  if (!imm1 || !imm2 || !nm1 || !nm2 || !sub1 || !sub2) goto rec_oom;
  memset(imm1, 0, nd * sizeof *imm1);
  memset(imm2, 0, ni * sizeof *imm2);
  memset(nm1, 0, nd * sizeof *nm1);
  memset(nm2, 0, ni * sizeof *nm2);
  memset(sub1, 0, c1->n ? c1->n : 1);
  memset(sub2, 0, c2->n ? c2->n : 1);
  for (size_t k = 0; k < nd && rc == SQLITE_OK; k++) {
    rc = jdGpuKids(s1, c1->v[dels[k]], &imm1[k]);
    if (rc == SQLITE_OK) rc = jdNamesOf(s1, &imm1[k], &nm1[k]);
  }
  for (size_t k = 0; k < ni && rc == SQLITE_OK; k++) {
    rc = jdGpuKids(s2, c2->v[ins[k]], &imm2[k]);
    if (rc == SQLITE_OK) rc = jdNamesOf(s2, &imm2[k], &nm2[k]);
  }
  for (size_t p = 0; p < nd && rc == SQLITE_OK; p++) {
    int32_t ud = c1->v[dels[p]];
    if (s1->kind[ud] == JD_K_KERNEL || s1->kind[ud] == JD_K_RT) continue;
    for (size_t q = 0; q < ni; q++) {
      int32_t ui = c2->v[ins[q]];
      if (s2->kind[ui] == JD_K_KERNEL || s2->kind[ui] == JD_K_RT) continue;
      for (size_t k = 0; k < imm2[q].n; k++)
        if (nm2[q][k] == s1->name[ud]) {
          sub2[ins[q]] = 1;
          break;
        }
      for (size_t k = 0; k < imm1[p].n; k++)
        if (nm1[p][k] == s2->name[ui]) {
          sub1[dels[p]] = 1;
          break;
        }
      if (imm1[p].n && imm1[p].n == imm2[q].n &&
          !memcmp(nm1[p], nm2[q], imm1[p].n * sizeof *nm1[p]))
        sub1[dels[p]] = sub2[ins[q]] = 1;
    }
  }
  if (rc != SQLITE_OK) goto rec_end;
  int any = 0;
  for (size_t k = 0; k < nd; k++) any |= sub1[dels[k]];
  for (size_t k = 0; k < ni; k++) any |= sub2[ins[k]];
  if (!any) goto rec_end;
  /* the new lists: each replaced wrapper's GPU-path children in its place, by ts */
  for (size_t i = 0, k = 0; i < c1->n && rc == SQLITE_OK; i++) {
    if (!sub1[i]) {
      rc = jdPush(&r1, c1->v[i]);
      continue;
    }
    while (dels[k] != (int32_t)i) k++;
    for (size_t t = 0; t < imm1[k].n && rc == SQLITE_OK; t++) rc = jdPush(&r1, imm1[k].v[t]);
  }
  for (size_t j = 0; j < c2->n && rc == SQLITE_OK; j++) {
    if (!sub2[j]) {
      rc = jdPush(&r2, c2->v[j]);
      continue;
    }
    size_t k = 0;
    while (ins[k] != (int32_t)j) k++;
    for (size_t t = 0; t < imm2[k].n && rc == SQLITE_OK; t++) rc = jdPush(&r2, imm2[k].v[t]);
  }
  if (rc == SQLITE_OK) rc = jdSortTs(s1, &r1);
  if (rc == SQLITE_OK) rc = jdSortTs(s2, &r2);
  if (rc != SQLITE_OK) goto rec_end;
  {
    /* earlier matches stay pinned; the rest is aligned again */
    unsigned char *pin1 = sqlite3_malloc64(r1.n ? r1.n : 1),
                  *pin2 = sqlite3_malloc64(r2.n ? r2.n : 1);
    jd_list f1 = {0, 0, 0}, f2 = {0, 0, 0}, i1 = {0, 0, 0}, i2 = {0, 0, 0};
    if (!pin1 || !pin2) rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
      memset(pin1, 0, r1.n ? r1.n : 1);
      memset(pin2, 0, r2.n ? r2.n : 1);
    }
    for (size_t k = 0; k < ops->n && rc == SQLITE_OK; k++) {
      if (ops->a[k].op != JD_MATCH) continue;
      int32_t u = c1->v[ops->a[k].i], w = c2->v[ops->a[k].j];
      long ri = -1, rj = -1;
      for (size_t t = 0; t < r1.n; t++)
        if (r1.v[t] == u) ri = (long)t;
      for (size_t t = 0; t < r2.n; t++)
        if (r2.v[t] == w) rj = (long)t;
      if (ri >= 0 && rj >= 0) {
        rc = jd_ops_push(&out, JD_MATCH, (int32_t)ri, (int32_t)rj);
        pin1[ri] = pin2[rj] = 1;
      }
    }
    for (size_t t = 0; t < r1.n && rc == SQLITE_OK; t++)
      if (!pin1[t]) {
        rc = jdPush(&f1, (int32_t)t);
        if (rc == SQLITE_OK) rc = jdPush(&i1, r1.v[t]);
      }
    for (size_t t = 0; t < r2.n && rc == SQLITE_OK; t++)
      if (!pin2[t]) {
        rc = jdPush(&f2, (int32_t)t);
        if (rc == SQLITE_OK) rc = jdPush(&i2, r2.v[t]);
      }
    if (rc == SQLITE_OK && f1.n && f2.n) {
      rc = jdAlignLists(x, i1.v, i1.n, i2.v, i2.n, &free_ops);
      for (size_t k = 0; k < free_ops.n && rc == SQLITE_OK; k++) {
        const jd_op *o = &free_ops.a[k];
        rc = jd_ops_push(&out, o->op, o->op != JD_INSERT ? f1.v[o->i] : -1,
                         o->op != JD_DELETE ? f2.v[o->j] : -1);
      }
    } else {
      for (size_t t = 0; t < f1.n && rc == SQLITE_OK; t++)
        rc = jd_ops_push(&out, JD_DELETE, f1.v[t], -1);
      for (size_t t = 0; t < f2.n && rc == SQLITE_OK; t++)
        rc = jd_ops_push(&out, JD_INSERT, -1, f2.v[t]);
    }
    sqlite3_free(pin1);
    sqlite3_free(pin2);
    sqlite3_free(f1.v);
    sqlite3_free(f2.v);
    sqlite3_free(i1.v);
    sqlite3_free(i2.v);
  }
  if (rc == SQLITE_OK) {
    jd_list t1 = *c1, t2 = *c2;
    jd_ops t3 = *ops;
    *c1 = r1, *c2 = r2, *ops = out;
    r1 = t1, r2 = t2, out = t3; /* the old ones are freed below */
    *changed = 1;
  }
  goto rec_end;
rec_oom:
  rc = SQLITE_NOMEM;
rec_end:
  for (size_t k = 0; imm1 && k < nd; k++) sqlite3_free(imm1[k].v);
  for (size_t k = 0; imm2 && k < ni; k++) sqlite3_free(imm2[k].v);
  for (size_t k = 0; nm1 && k < nd; k++) sqlite3_free(nm1[k]);
  for (size_t k = 0; nm2 && k < ni; k++) sqlite3_free(nm2[k]);
  sqlite3_free(imm1);
  sqlite3_free(imm2);
  sqlite3_free(nm1);
  sqlite3_free(nm2);
  sqlite3_free(sub1);
  sqlite3_free(sub2);
  sqlite3_free(dels);
  sqlite3_free(ins);
  sqlite3_free(r1.v);
  sqlite3_free(r2.v);
  sqlite3_free(free_ops.a);
  sqlite3_free(out.a);
  return rc;
}

/* ---------------------------------------------------------------- phase 4 */
/* TraceDiff's per-node canonicalisation: the unmatched of both sides collapsed
** through single-child wrappers and aligned again, then by stripped names. */
static int jdCanonical(jd_ctx *x, jd_list *c1, jd_list *c2, jd_ops *ops) {
  jd_list u1 = {0, 0, 0}, u2 = {0, 0, 0}, k1 = {0, 0, 0}, k2 = {0, 0, 0}, kids = {0, 0, 0};
  jd_list l1 = {0, 0, 0}, l2 = {0, 0, 0}, sc = {0, 0, 0}, sj = {0, 0, 0};
  jd_ops p1 = {0, 0, 0}, p2 = {0, 0, 0}, co = {0, 0, 0}, out = {0, 0, 0};
  int rc = SQLITE_OK;
  for (size_t k = 0; k < ops->n && rc == SQLITE_OK; k++) {
    if (ops->a[k].op == JD_DELETE) rc = jdPush(&u1, ops->a[k].i);
    if (rc == SQLITE_OK && ops->a[k].op == JD_INSERT) rc = jdPush(&u2, ops->a[k].j);
  }
  if (rc != SQLITE_OK || !u1.n || !u2.n) goto can_end;
  for (size_t k = 0; k < u1.n && rc == SQLITE_OK; k++) {
    int32_t cu = jdCollapse(x->s[0], c1->v[u1.v[k]], &kids, &rc);
    if (rc == SQLITE_OK) rc = jdPush(&k1, cu);
  }
  for (size_t k = 0; k < u2.n && rc == SQLITE_OK; k++) {
    int32_t cu = jdCollapse(x->s[1], c2->v[u2.v[k]], &kids, &rc);
    if (rc == SQLITE_OK) rc = jdPush(&k2, cu);
  }
  if (rc == SQLITE_OK) rc = jd_align(x->s[0], k1.v, k1.n, x->s[1], k2.v, k2.n, 0, &p1);
  for (size_t k = 0; k < p1.n && rc == SQLITE_OK; k++) {
    if (p1.a[k].op == JD_DELETE) rc = jdPush(&sc, p1.a[k].i);
    if (rc == SQLITE_OK && p1.a[k].op == JD_INSERT) rc = jdPush(&sj, p1.a[k].j);
  }
  if (rc == SQLITE_OK && sc.n && sj.n) {
    for (size_t k = 0; k < sc.n && rc == SQLITE_OK; k++) rc = jdPush(&l1, k1.v[sc.v[k]]);
    for (size_t k = 0; k < sj.n && rc == SQLITE_OK; k++) rc = jdPush(&l2, k2.v[sj.v[k]]);
    if (rc == SQLITE_OK) rc = jd_align(x->s[0], l1.v, l1.n, x->s[1], l2.v, l2.n, 1, &p2);
    for (size_t k = 0; k < p1.n && rc == SQLITE_OK; k++)
      if (p1.a[k].op == JD_MATCH) rc = jd_ops_push(&co, JD_MATCH, p1.a[k].i, p1.a[k].j);
    for (size_t k = 0; k < p2.n && rc == SQLITE_OK; k++) {
      const jd_op *o = &p2.a[k];
      rc = jd_ops_push(&co, o->op, o->op != JD_INSERT ? sc.v[o->i] : -1,
                       o->op != JD_DELETE ? sj.v[o->j] : -1);
    }
  } else if (rc == SQLITE_OK) {
    jd_ops t = co;
    co = p1;
    p1 = t;
  }
  for (size_t k = 0; k < ops->n && rc == SQLITE_OK; k++)
    if (ops->a[k].op == JD_MATCH) rc = jd_ops_push(&out, JD_MATCH, ops->a[k].i, ops->a[k].j);
  for (size_t k = 0; k < co.n && rc == SQLITE_OK; k++) {
    const jd_op *o = &co.a[k];
    int32_t oi = o->op != JD_INSERT ? u1.v[o->i] : -1, oj = o->op != JD_DELETE ? u2.v[o->j] : -1;
    if (oi >= 0) c1->v[oi] = k1.v[o->i];
    if (oj >= 0) c2->v[oj] = k2.v[o->j];
    rc = jd_ops_push(&out, o->op, oi, oj);
  }
  if (rc == SQLITE_OK) {
    jd_ops t = *ops;
    *ops = out;
    out = t;
  }
can_end:
  sqlite3_free(u1.v);
  sqlite3_free(u2.v);
  sqlite3_free(k1.v);
  sqlite3_free(k2.v);
  sqlite3_free(kids.v);
  sqlite3_free(l1.v);
  sqlite3_free(l2.v);
  sqlite3_free(sc.v);
  sqlite3_free(sj.v);
  sqlite3_free(p1.a);
  sqlite3_free(p2.a);
  sqlite3_free(co.a);
  sqlite3_free(out.a);
  return rc;
}

/* ---------------------------------------------------------------- traverse_and_merge */
static int32_t jdNewNode(jd_ctx *x, int32_t u1, int32_t u2, int32_t parent, int32_t depth) {
  jd_node nd;
  memset(&nd, 0, sizeof nd);
  nd.u1 = u1, nd.u2 = u2, nd.parent = parent, nd.depth = depth;
  nd.type = u1 >= 0 && u2 >= 0 ? JD_COMBINED : u1 >= 0 ? JD_CONTROL_ONLY : JD_TEST_ONLY;
  nd.prow[0] = nd.prow[1] = -1;
  HTA_PUSH(x->m->nodes, x->m->n, x->m->cap, 1024, nd, new_oom);
  return (int32_t)(x->m->n - 1);
new_oom:
  x->rc = SQLITE_NOMEM;
  return -1;
}

static int32_t jdMerge(jd_ctx *x, int32_t u1, int32_t u2, int32_t parent, int32_t depth) {
  int64_t key = ((int64_t)(u1 + 1) << 32) | (int64_t)(uint32_t)(u2 + 1);
  int32_t mid = jdMemoGet(&x->memo, key);
  jd_frame *f = &x->frames[depth];
  int rc = SQLITE_OK, changed = 0;
  if (mid >= 0 || x->rc != SQLITE_OK) return mid; /* a pair met twice is one node */
  if (++x->visits >= 4096) {
    x->visits = 0;
    if (hta_interrupted(x->db)) {
      x->rc = SQLITE_INTERRUPT;
      return -1;
    }
  }
  if ((mid = jdNewNode(x, u1, u2, parent, depth)) < 0) return -1;
  if ((rc = jdMemoPut(&x->memo, key, mid)) != SQLITE_OK) goto merge_end;
  if (depth + 1 >= JD_MAX_DEPTH) goto merge_end;
  f->c1.n = f->c2.n = f->kids.n = f->ch.n = f->ops.n = 0;
  rc = jdChildren(x, u1, u2, &f->c1, &f->c2);
  /* phase 1: one child against several: descend the one through its wrappers */
  if (rc == SQLITE_OK && f->c1.n != f->c2.n && (f->c1.n == 1 || f->c2.n == 1)) {
    int side = f->c1.n == 1 ? 0 : 1;
    jd_list *c = side ? &f->c2 : &f->c1;
    int32_t cur = jdCollapse(x->s[side], c->v[0], &f->kids, &rc);
    if (rc == SQLITE_OK && f->kids.n) {
      if (side) u2 = cur;
      else u1 = cur;
      jd_list t = *c;
      *c = f->kids;
      f->kids = t;
    }
  }
  if (rc == SQLITE_OK)
    rc = jdAlignLists(x, f->c1.v, f->c1.n, f->c2.v, f->c2.n, &f->ops); /* phase 2 */
  int unmatched = 0;
  for (size_t k = 0; k < f->ops.n; k++) unmatched |= f->ops.a[k].op != JD_MATCH;
  if (rc == SQLITE_OK && unmatched) rc = jdReconcile(x, &f->c1, &f->c2, &f->ops, &changed); /* 3 */
  if (rc == SQLITE_OK && unmatched) rc = jdCanonical(x, &f->c1, &f->c2, &f->ops);           /* 4 */
  for (size_t k = 0; k < f->ops.n && rc == SQLITE_OK && x->rc == SQLITE_OK; k++) {
    const jd_op *o = &f->ops.a[k];
    int32_t c = jdMerge(x, o->op != JD_INSERT ? f->c1.v[o->i] : -1,
                        o->op != JD_DELETE ? f->c2.v[o->j] : -1, mid, depth + 1);
    if (c >= 0) rc = jdPush(&f->ch, c);
  }
  if (rc == SQLITE_OK && x->rc == SQLITE_OK) {
    jd_node *nd = &x->m->nodes[mid];
    nd->u1 = u1, nd->u2 = u2;
    nd->cfirst = (int32_t)x->m->nkids;
    nd->nchild = (int32_t)f->ch.n;
    for (size_t k = 0; k < f->ch.n; k++)
      HTA_PUSH(x->m->kids, x->m->nkids, x->m->capkids, 1024, f->ch.v[k], merge_oom);
  }
  goto merge_end;
merge_oom:
  rc = SQLITE_NOMEM;
merge_end:
  if (rc != SQLITE_OK && x->rc == SQLITE_OK) x->rc = rc;
  return mid;
}

/* ---------------------------------------------------------------- roots */
typedef struct jd_pend {
  int32_t name, idx; /* the root's name, its position in its list */
  size_t op;         /* its op in the alignment */
} jd_pend;

static int jdPendCmp(const void *a, const void *b) {
  const jd_pend *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* JD-4: a root the alignment left unmatched on both sides under one name is the
** same call moved: the k-th of each side are paired, in place of the control's. */
static int jdRootMoves(jd_ctx *x, jd_ops *ops) {
  jd_pend *d = 0, *in = 0;
  size_t nd = 0, ad = 0, ni = 0, ai = 0;
  for (size_t k = 0; k < ops->n; k++) {
    const jd_op *o = &ops->a[k];
    if (o->op == JD_DELETE) {
      jd_pend p = {x->s[0]->name[x->s[0]->roots[o->i]], o->i, k};
      HTA_PUSH(d, nd, ad, 16, p, moves_oom);
    } else if (o->op == JD_INSERT) {
      jd_pend p = {x->s[1]->name[x->s[1]->roots[o->j]], o->j, k};
      HTA_PUSH(in, ni, ai, 16, p, moves_oom);
    }
  }
  if (nd) qsort(d, nd, sizeof *d, jdPendCmp);
  if (ni) qsort(in, ni, sizeof *in, jdPendCmp);
  for (size_t a = 0, b = 0; a < nd && b < ni;) {
    if (d[a].name != in[b].name) {
      if (d[a].name < in[b].name) a++;
      else b++;
      continue;
    }
    ops->a[d[a].op].op = JD_MATCH;
    ops->a[d[a].op].j = in[b].idx;
    ops->a[in[b].op].op = 0; /* dropped below */
    a++, b++;
  }
  size_t k = 0;
  for (size_t t = 0; t < ops->n; t++)
    if (ops->a[t].op) ops->a[k++] = ops->a[t];
  ops->n = k;
  sqlite3_free(d);
  sqlite3_free(in);
  return SQLITE_OK;
moves_oom:
  sqlite3_free(d);
  sqlite3_free(in);
  return SQLITE_NOMEM;
}

/* JD-4: the roots aligned by names as a child list is, roots moved paired, then the
** unmatched of a gap between two matches paired in order when the gap holds as many
** of each side (TraceDiff pairs all roots by position). */
static int jdRootPairs(jd_ctx *x, jd_ops *pairs) {
  const jd_side *s1 = x->s[0], *s2 = x->s[1];
  jd_ops ops = {0, 0, 0};
  jd_list d = {0, 0, 0}, in = {0, 0, 0};
  int rc = jd_align(s1, s1->roots, s1->nroots, s2, s2->roots, s2->nroots, 0, &ops);
  if (rc == SQLITE_OK) rc = jdRootMoves(x, &ops);
  pairs->n = 0;
  for (size_t k = 0; k <= ops.n && rc == SQLITE_OK; k++) {
    if (k == ops.n || ops.a[k].op == JD_MATCH) { /* close the gap */
      /* as many on each side: renamed in place, paired in order; else one-sided */
      size_t np = d.n == in.n ? d.n : 0, a = 0, b = 0;
      while ((a < d.n || b < in.n) && rc == SQLITE_OK) {
        if (a < np && b < np) rc = jd_ops_push(pairs, JD_MATCH, d.v[a++], in.v[b++]);
        else if (a < d.n) rc = jd_ops_push(pairs, JD_DELETE, d.v[a++], -1);
        else rc = jd_ops_push(pairs, JD_INSERT, -1, in.v[b++]);
      }
      d.n = in.n = 0;
      if (k < ops.n && rc == SQLITE_OK) rc = jd_ops_push(pairs, JD_MATCH, ops.a[k].i, ops.a[k].j);
    } else if (ops.a[k].op == JD_DELETE) {
      rc = jdPush(&d, ops.a[k].i);
    } else {
      rc = jdPush(&in, ops.a[k].j);
    }
  }
  sqlite3_free(ops.a);
  sqlite3_free(d.v);
  sqlite3_free(in.v);
  return rc;
}

/* ---------------------------------------------------------------- comparison points */
static int jdRow(jd_ctx *x, int32_t node, int side, int32_t gpu) {
  jd_row r = {node, side, gpu};
  HTA_PUSH(x->m->rows, x->m->nrows, x->m->caprows, 1024, r, row_oom);
  return SQLITE_OK;
row_oom:
  return SQLITE_NOMEM;
}

/* The GPU events of node U of SIDE as rows of comparison point NODE. */
static int jdRowsOf(jd_ctx *x, int32_t node, int side, int32_t u) {
  const int32_t *v;
  int32_t n, self;
  int rc = SQLITE_OK;
  jd_gpu_of(x->s[side], u, &v, &n, &self);
  for (int32_t k = 0; k < n && rc == SQLITE_OK; k++) rc = jdRow(x, node, side, v[k]);
  return rc;
}

/* JD-8, JD-9: generate_diff_stats's walk (explicit stack; VISITED per node). */
static int jdPoints(jd_ctx *x, const int32_t *roots, size_t nroots) {
  jd_merged *m = x->m;
  unsigned char *visited = sqlite3_malloc64(m->n ? m->n : 1);
  int32_t(*stack)[2] = sqlite3_malloc64((m->nkids + nroots + 1) * sizeof *stack);
  size_t sp = 0;
  int rc = SQLITE_OK;
  if (!visited || !stack) {
    sqlite3_free(visited);
    sqlite3_free(stack);
    return SQLITE_NOMEM;
  }
  memset(visited, 0, m->n ? m->n : 1);
  for (size_t r = nroots; r-- > 0;) stack[sp][0] = roots[r], stack[sp++][1] = -1;
  while (sp && rc == SQLITE_OK) {
    int32_t id = stack[sp - 1][0], parent = stack[sp - 1][1];
    sp--;
    if (visited[id]) continue;
    const jd_node *nd = &m->nodes[id];
    const jd_side *s1 = x->s[0], *s2 = x->s[1];
    int g1 = jd_gpu_path(s1, nd->u1), g2 = jd_gpu_path(s2, nd->u2);
    if (nd->type != JD_COMBINED) { /* one-sided: its GPU events, at its parent */
      int side = nd->type == JD_TEST_ONLY;
      visited[id] = 1;
      if (side ? g2 : g1) {
        int32_t u = side ? nd->u2 : nd->u1;
        int32_t at = parent >= 0 ? parent : id; /* a one-sided root is its own point */
        if (JD_IS_GPU(x->s[side]->kind[u])) m->lost_by_tracediff++; /* JD-9 a */
        rc = jdRowsOf(x, at, side, u);
      }
      continue;
    }
    int k1 = g1 && JD_IS_GPU(s1->kind[nd->u1]), k2 = g2 && JD_IS_GPU(s2->kind[nd->u2]);
    if (g1 && g2) {
      int any = k1 && k2;
      for (int32_t c = nd->cfirst; c < nd->cfirst + nd->nchild && !any; c++) {
        const jd_node *cn = &m->nodes[m->kids[c]];
        if (cn->type == JD_CONTROL_ONLY) any = jd_gpu_path(s1, cn->u1);
        if (cn->type == JD_TEST_ONLY) any = jd_gpu_path(s2, cn->u2);
      }
      if (any) { /* a comparison point */
        for (int32_t c = nd->cfirst; c < nd->cfirst + nd->nchild && rc == SQLITE_OK; c++) {
          int32_t cid = m->kids[c];
          const jd_node *cn = &m->nodes[cid];
          if (visited[cid]) continue;
          if (cn->type == JD_CONTROL_ONLY && jd_gpu_path(s1, cn->u1)) {
            if (s1->kind[cn->u1] == JD_K_MEMSET) m->lost_by_tracediff++;
            rc = jdRowsOf(x, id, 0, cn->u1);
            visited[cid] = 1;
          } else if (cn->type == JD_TEST_ONLY && jd_gpu_path(s2, cn->u2)) {
            if (s2->kind[cn->u2] == JD_K_MEMSET) m->lost_by_tracediff++;
            rc = jdRowsOf(x, id, 1, cn->u2);
            visited[cid] = 1;
          }
        }
        if (k1 && rc == SQLITE_OK) rc = jdRowsOf(x, id, 0, nd->u1);
        if (k2 && rc == SQLITE_OK) rc = jdRowsOf(x, id, 1, nd->u2);
        if (k1 && k2 && !(JD_IS_KMC(s1->kind[nd->u1]) && JD_IS_KMC(s2->kind[nd->u2])))
          m->lost_by_tracediff += 2;
      }
    } else if (k1 || k2) { /* a GPU event matched with a node off the GPU path (JD-9) */
      m->lost_by_tracediff++;
      rc = jdRowsOf(x, id, k2, k2 ? nd->u2 : nd->u1);
    }
    visited[id] = 1;
    if (g1 || g2) {
      for (int32_t c = nd->cfirst + nd->nchild; c-- > nd->cfirst;)
        stack[sp][0] = m->kids[c], stack[sp++][1] = id;
    }
  }
  sqlite3_free(visited);
  sqlite3_free(stack);
  return rc;
}

static int jdRowCmp(const void *a, const void *b) {
  const jd_row *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  if (x->side != y->side) return x->side - y->side;
  return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* Room up front for what the merge fills, so that for two runs of one model nothing
** grows (a grown array is copied): merged nodes and the memo for the larger side's GPU
** path, comparison rows for every GPU event. Past that they grow as before. */
static int jdPresize(jd_ctx *x) {
  jd_merged *m = x->m;
  size_t path = 0, gpu = x->s[0]->ot.gpu.n + x->s[1]->ot.gpu.n;
  for (int k = 0; k < 2; k++) {
    size_t n = 0;
    for (size_t u = 0; u < x->s[k]->n; u++) n += x->s[k]->ngpu[u] > 0;
    if (n > path) path = n;
  }
  if (path < 1024) return SQLITE_OK;
  m->nodes = hta_malloc_big(path * sizeof *m->nodes);
  m->kids = hta_malloc_big(path * sizeof *m->kids);
  m->rows = hta_malloc_big((gpu ? gpu : 1) * sizeof *m->rows);
  if (!m->nodes || !m->kids || !m->rows) return SQLITE_NOMEM;
  m->cap = m->capkids = path;
  m->caprows = gpu ? gpu : 1;
  return jdMemoGrow(&x->memo, path);
}

int jd_merge(sqlite3 *db, const jd_side *s1, const jd_side *s2, jd_merged *m) {
  jd_ctx x;
  jd_ops pairs = {0, 0, 0};
  jd_list roots = {0, 0, 0};
  memset(&x, 0, sizeof x);
  memset(m, 0, sizeof *m);
  x.db = db;
  x.s[0] = s1, x.s[1] = s2;
  x.m = m;
  x.frames = sqlite3_malloc64(JD_MAX_DEPTH * sizeof *x.frames);
  if (!x.frames) return SQLITE_NOMEM;
  memset(x.frames, 0, JD_MAX_DEPTH * sizeof *x.frames);
  x.rc = jdPresize(&x);
  if (x.rc == SQLITE_OK) x.rc = jdRootPairs(&x, &pairs);
  for (size_t k = 0; k < pairs.n && x.rc == SQLITE_OK; k++) {
    const jd_op *o = &pairs.a[k];
    int32_t id = jdMerge(&x, o->op != JD_INSERT ? s1->roots[o->i] : -1,
                         o->op != JD_DELETE ? s2->roots[o->j] : -1, -1, 0);
    if (id >= 0 && x.rc == SQLITE_OK) x.rc = jdPush(&roots, id);
  }
  if (x.rc == SQLITE_OK) x.rc = jdPoints(&x, roots.v, roots.n);
  if (x.rc == SQLITE_OK && m->nrows) {
    qsort(m->rows, m->nrows, sizeof *m->rows, jdRowCmp);
    for (size_t k = 0; k < m->nrows; k++) {
      jd_node *nd = &m->nodes[m->rows[k].node];
      int sd = m->rows[k].side;
      if (nd->prow[sd] < 0) nd->prow[sd] = (int32_t)k;
      nd->nrow[sd]++;
      nd->point = 1;
    }
  }
  sqlite3_free(pairs.a);
  sqlite3_free(roots.v);
  sqlite3_free(x.memo.key);
  sqlite3_free(x.memo.val);
  for (int d = 0; d < JD_MAX_DEPTH; d++) {
    jd_frame *f = &x.frames[d];
    sqlite3_free(f->c1.v);
    sqlite3_free(f->c2.v);
    sqlite3_free(f->kids.v);
    sqlite3_free(f->ch.v);
    sqlite3_free(f->ops.a);
  }
  sqlite3_free(x.frames);
  if (x.rc != SQLITE_OK) jd_merged_free(m);
  return x.rc;
}

void jd_merged_free(jd_merged *m) {
  sqlite3_free(m->nodes);
  sqlite3_free(m->kids);
  sqlite3_free(m->rows);
  memset(m, 0, sizeof *m);
}

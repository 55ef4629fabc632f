/*
** graph_align.c: which dispatch of a capture window each kernel of a graph replay ran
** for (hg_align). The replay shows the kernels a launch ran, in start order, by name
** and stream; the capture shows the runtime calls that put them in the graph, in CPU
** order, each with the kernel's name (args.kernel) except memcpy and memset calls.
** Nothing else ties the two: no correlation id survives the capture, and only newer
** PyTorch writes a "graph node id" on the replayed kernels.
**
** Requirements (tests cite them as GA-n; TraceLens's rules unless said otherwise):
**  1. A dispatch may run as a kernel when: a memcpy call (its name contains "Memcpy")
**     and a GPU event whose name contains "Memcpy"; a memset call ("Memset") and a GPU
**     event named with "Memset" or "fillBuffer"; any other call with a kernel name and
**     a kernel of that name; a call without one and any kernel that is not a memcpy or
**     memset (unverified, as TraceLens's positional rule takes it). TraceLens pairs a
**     memcpy or memset call with anything in the positional rule.
**  2. One stream (or graph node ids, GA-6): equal counts and every kernel may run as
**     the dispatch at its position: positional. Else equal counts, no dispatch without
**     a name, and each name (memcpy and memset as one name each) as many times on both
**     sides: the i-th dispatch of a name with the i-th kernel of it (group by name;
**     TraceLens fails here on any memcpy or memset, whose call and GPU names differ).
**  3. Else the greedy forward scan: each kernel takes the next dispatch that may run
**     as it, passing over the others for good; it succeeds when every kernel finds one.
**  4. Several streams (kernels on more than one, no graph node ids): a FIFO of kernels
**     per stream (streams in the order of their first kernel); each dispatch in CPU
**     order takes the head of a stream it may run as, several such: the stream whose
**     queue matches the longest run of the following dispatches (the first on ties);
**     a dispatch matching no head is passed over. TraceLens fails the whole launch
**     when a kernel is left; we leave that kernel unmatched only.
**  5. When GA-3 fails (a kernel the capture does not have: TraceLens then leaves every
**     kernel of the launch unmatched), the longest common subsequence of the two
**     sequences under GA-1 pairs as many kernels as order allows (earliest pairs
**     first among equally long ones); the kernels outside it stay unmatched.
**  6. When every kernel carries a graph node id, the kernels are taken in node id
**     order (the order the graph's nodes were created in: the capture order) and
**     GA-2's positional test on that order is the rule graph_node_id; failing it, GA-2
**     (group by name), GA-3 and GA-5 follow on that order, whatever the streams.
**
** HOW IT WORKS: plain arrays; GA-5 trims the common prefix and suffix and runs the
** dynamic programme on the middle only (at most HG_LCS_CELLS cells; beyond that the
** greedy scan that passes over a kernel without a dispatch).
*/
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* The dynamic programme's bound: 16M cells of 4 bytes. */
#define HG_LCS_CELLS (16u << 20)

int hg_gpu_mem(const char *name) {
  if (!name) return HG_MEM_NONE;
  if (strstr(name, "Memcpy")) return HG_MEMCPY;
  if (strstr(name, "Memset") || strstr(name, "fillBuffer")) return HG_MEMSET;
  return HG_MEM_NONE;
}

int hg_dispatch_mem(const char *name) {
  if (!name) return HG_MEM_NONE;
  if (strstr(name, "Memcpy")) return HG_MEMCPY;
  if (strstr(name, "Memset")) return HG_MEMSET;
  return HG_MEM_NONE;
}

int hg_item_match(const hg_item *d, const hg_item *k) { /* GA-1 */
  if (d->mem) return k->mem == d->mem;
  if (d->key == HG_ANY_KERNEL) return k->mem == HG_MEM_NONE;
  return d->key == k->key;
}

const char *hg_rule_name(int rule) {
  static const char *const names[HG_NRULE] = {
      0,         "positional",   "group_by_name", "greedy_forward", "per_stream_fifo",
      "aligned", "graph_node_id"};
  return rule > 0 && rule < HG_NRULE ? names[rule] : 0;
}

const char *hg_reason_name(int reason) {
  static const char *const names[HG_NREASON] = {
      0,           "no_capture", "no_root",    "no_batch_size", "no_capture_batch_size",
      "no_window", "windows",    "no_dispatch"};
  return reason > 0 && reason < HG_NREASON ? names[reason] : 0;
}

const char *hg_match_name(int match) {
  static const char *const names[] = {"unlinked", "eager", "unmatched", "matched"};
  return match >= 0 && match <= HG_MATCHED ? names[match] : 0;
}

/* ---------------------------------------------------------------- one stream */
/* The grouping key of an item: memcpy and memset one name each (GA-2). */
static int64_t groupKey(const hg_item *x) { return x->mem ? -10 - x->mem : x->key; }

typedef struct keyed {
  int64_t key;
  int32_t idx;
} keyed;

static int keyedCmp(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* GA-2 group by name over the kernels in ORD; 1 when it applies (pair filled), 0 when
** not, -1 on OOM. */
static int byName(const hg_item *d, const hg_item *k, const int32_t *ord, size_t n, int32_t *pair) {
  keyed *a = sqlite3_malloc64(2 * n * sizeof *a), *b;
  int ok = 1;
  if (!a) return -1;
  b = a + n;
  for (size_t j = 0; j < n; j++) {
    if (d[j].key == HG_ANY_KERNEL && !d[j].mem) ok = 0;
    a[j].key = groupKey(&d[j]), a[j].idx = (int32_t)j;
    b[j].key = groupKey(&k[ord[j]]), b[j].idx = (int32_t)j; /* its rank in ORD */
  }
  if (ok) { /* sorted by (key, position): the i-th of a key on both sides pair up */
    qsort(a, n, sizeof *a, keyedCmp);
    qsort(b, n, sizeof *b, keyedCmp);
    for (size_t j = 0; j < n && ok; j++) ok = a[j].key == b[j].key;
    for (size_t j = 0; j < n && ok; j++) pair[ord[b[j].idx]] = a[j].idx;
  }
  sqlite3_free(a);
  return ok;
}

/* GA-3: 1 when every kernel found a dispatch (pair filled), else 0. */
static int greedy(const hg_item *d, size_t m, const hg_item *k, const int32_t *ord, size_t n,
                  int32_t *pair) {
  size_t ci = 0;
  for (size_t i = 0; i < n; i++) {
    const hg_item *g = &k[ord[i]];
    while (ci < m && !hg_item_match(&d[ci], g)) ci++;
    if (ci == m) return 0;
    pair[ord[i]] = (int32_t)ci++;
  }
  return 1;
}

/* GA-5 beyond the bound: a kernel takes the next dispatch that may run as it, a kernel
** without one is passed over (the scan does not move). */
static size_t greedySkip(const hg_item *d, size_t lo, size_t m, const hg_item *k,
                         const int32_t *ord, size_t n, int32_t *pair) {
  size_t ci = lo, got = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = ci;
    while (j < m && !hg_item_match(&d[j], &k[ord[i]])) j++;
    if (j == m) continue;
    pair[ord[i]] = (int32_t)j;
    ci = j + 1;
    got++;
  }
  return got;
}

/* GA-5: the longest common subsequence; returns the pairs made, (size_t)-1 on OOM. */
static size_t lcs(const hg_item *d, size_t m, const hg_item *k, const int32_t *ord, size_t n,
                  int32_t *pair) {
  size_t lo = 0, hi_k = n, hi_d = m, got = 0;
  while (lo < n && lo < m && hg_item_match(&d[lo], &k[ord[lo]])) {
    pair[ord[lo]] = (int32_t)lo;
    lo++, got++;
  }
  while (hi_k > lo && hi_d > lo && hg_item_match(&d[hi_d - 1], &k[ord[hi_k - 1]])) {
    pair[ord[hi_k - 1]] = (int32_t)(hi_d - 1);
    hi_k--, hi_d--, got++;
  }
  size_t nk = hi_k - lo, nd = hi_d - lo;
  if (nk == 0 || nd == 0) return got;
  if ((nk + 1) * (nd + 1) > HG_LCS_CELLS)
    return got + greedySkip(d, lo, hi_d, k, ord + lo, nk, pair);
  /* L[i][j]: the longest common subsequence of kernels i.. and dispatches j.. */
  size_t w = nd + 1;
  int32_t *L = sqlite3_malloc64((nk + 1) * w * sizeof *L);
  if (!L) return (size_t)-1;
  for (size_t j = 0; j <= nd; j++) L[nk * w + j] = 0;
  for (size_t i = nk; i-- > 0;) {
    L[i * w + nd] = 0;
    for (size_t j = nd; j-- > 0;) {
      int32_t best = L[(i + 1) * w + j] > L[i * w + j + 1] ? L[(i + 1) * w + j] : L[i * w + j + 1];
      if (hg_item_match(&d[lo + j], &k[ord[lo + i]]) && L[(i + 1) * w + j + 1] + 1 > best)
        best = L[(i + 1) * w + j + 1] + 1;
      L[i * w + j] = best;
    }
  }
  for (size_t i = 0, j = 0; i < nk && j < nd;) {
    if (hg_item_match(&d[lo + j], &k[ord[lo + i]]) && L[i * w + j] == L[(i + 1) * w + j + 1] + 1) {
      pair[ord[lo + i]] = (int32_t)(lo + j);
      got++, i++, j++;
    } else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  sqlite3_free(L);
  return got;
}

/* ---------------------------------------------------------------- several streams */
/* GA-4. Returns the pairs made, (size_t)-1 on OOM. */
static size_t streamFifo(const hg_item *d, size_t m, const hg_item *k, size_t n, int32_t *pair) {
  int64_t *sid = sqlite3_malloc64(n * sizeof *sid); /* the streams, by first kernel */
  int32_t *qstart = sqlite3_malloc64((n + 1) * sizeof *qstart),
          *q = sqlite3_malloc64(n * sizeof *q);
  int32_t *head = sqlite3_malloc64(n * sizeof *head), *ofs = sqlite3_malloc64(n * sizeof *ofs);
  size_t ns = 0, got = 0;
  if (!sid || !qstart || !q || !head || !ofs) {
    got = (size_t)-1;
    goto fifo_end;
  }
  for (size_t i = 0; i < n; i++) { /* the stream of kernel i, as an index */
    size_t s = 0;
    while (s < ns && sid[s] != k[i].stream) s++;
    if (s == ns) sid[ns++] = k[i].stream;
    ofs[i] = (int32_t)s;
  }
  memset(qstart, 0, (ns + 1) * sizeof *qstart);
  for (size_t i = 0; i < n; i++) qstart[ofs[i] + 1]++;
  for (size_t s = 0; s < ns; s++) qstart[s + 1] += qstart[s];
  for (size_t s = 0; s < ns; s++) head[s] = qstart[s];
  for (size_t i = 0; i < n; i++) q[head[ofs[i]]++] = (int32_t)i;
  for (size_t s = 0; s < ns; s++) head[s] = qstart[s];
  for (size_t ci = 0; ci < m; ci++) {
    long best = -1, second = -1;
    for (size_t s = 0; s < ns && second < 0; s++) {
      if (head[s] == qstart[s + 1] || !hg_item_match(&d[ci], &k[q[head[s]]])) continue;
      if (best < 0) best = (long)s;
      else second = (long)s;
    }
    if (best < 0) continue;
    if (second >= 0) { /* several candidates: the longest run of the following dispatches */
      size_t best_run = 0;
      best = -1;
      for (size_t s = 0; s < ns; s++) {
        size_t run = 0;
        if (head[s] == qstart[s + 1] || !hg_item_match(&d[ci], &k[q[head[s]]])) continue;
        while (head[s] + (int32_t)run < qstart[s + 1] && ci + run < m &&
               hg_item_match(&d[ci + run], &k[q[head[s] + (int32_t)run]]))
          run++;
        if (best < 0 || run > best_run) best = (long)s, best_run = run;
      }
    }
    pair[q[head[best]++]] = (int32_t)ci;
    got++;
  }
fifo_end:
  sqlite3_free(sid);
  sqlite3_free(qstart);
  sqlite3_free(q);
  sqlite3_free(head);
  sqlite3_free(ofs);
  return got;
}

typedef struct nodekey {
  int64_t node;
  int32_t idx;
} nodekey;

static int nodekeyCmp(const void *a, const void *b) {
  const nodekey *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int hg_align(const hg_item *d, size_t m, const hg_item *k, size_t n, int32_t *pair,
             size_t *matched) {
  int32_t *ord;
  int by_node = n > 0, multistream = 0, rule = HG_RULE_NONE, r;
  size_t got = 0;
  *matched = 0;
  for (size_t i = 0; i < n; i++) {
    pair[i] = -1;
    if (k[i].node < 0) by_node = 0;
    if (k[i].stream != k[0].stream) multistream = 1;
  }
  if (n == 0) return HG_RULE_NONE;
  if (!(ord = sqlite3_malloc64(n * sizeof *ord))) return -1;
  for (size_t i = 0; i < n; i++) ord[i] = (int32_t)i;
  if (by_node) { /* GA-6 */
    nodekey *nk = sqlite3_malloc64(n * sizeof *nk);
    if (!nk) {
      sqlite3_free(ord);
      return -1;
    }
    for (size_t i = 0; i < n; i++) nk[i].node = k[i].node, nk[i].idx = (int32_t)i;
    qsort(nk, n, sizeof *nk, nodekeyCmp);
    for (size_t i = 0; i < n; i++) ord[i] = nk[i].idx;
    sqlite3_free(nk);
  } else if (multistream) { /* GA-4 */
    got = streamFifo(d, m, k, n, pair);
    rule = HG_STREAM_FIFO;
    goto align_end;
  }
  if (m == n) { /* GA-2 */
    size_t i = 0;
    while (i < n && hg_item_match(&d[i], &k[ord[i]])) i++;
    if (i == n) {
      for (i = 0; i < n; i++) pair[ord[i]] = (int32_t)i;
      got = n;
      rule = by_node ? HG_GRAPH_NODE_ID : HG_POSITIONAL;
      goto align_end;
    }
    if ((r = byName(d, k, ord, n, pair)) < 0) {
      got = (size_t)-1;
      goto align_end;
    }
    if (r) {
      got = n;
      rule = HG_GROUP_BY_NAME;
      goto align_end;
    }
    for (i = 0; i < n; i++) pair[i] = -1;
  }
  if (greedy(d, m, k, ord, n, pair)) { /* GA-3 */
    got = n;
    rule = HG_GREEDY;
    goto align_end;
  }
  for (size_t i = 0; i < n; i++) pair[i] = -1;
  got = lcs(d, m, k, ord, n, pair); /* GA-5 */
  rule = HG_ALIGNED;
align_end:
  sqlite3_free(ord);
  if (got == (size_t)-1) return -1;
  *matched = got;
  return rule;
}

/*
** critical_path_graph.c: the critical path graph's building blocks
** (critical_path_graph.h): adding an edge (CPG-6), finding an event by seq, the
** longest path (CPG-7, CPG-8) and its edges in order, the id sets the passes test
** names against. The builder and its passes (critical_path_build.c,
** critical_path_host.c, critical_path_gpu.c) call these; they call nothing above.
** The requirements CPG-n are listed in critical_path_build.c.
**
** HOW IT WORKS: edges go into an array with a hash index on (u, v), and the path is
** computed over CSR adjacency lists built in edge order. Times stay ns.
*/
#include <stdlib.h>
#include <string.h>

#include "critical_path/critical_path_graph.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

const char *cp_edge_type_name(int type) {
  static const char *const n[] = {"critical_path_operator",
                                  "critical_path_dependency",
                                  "critical_path_kernel_launch_delay",
                                  "critical_path_kernel_kernel_delay",
                                  "critical_path_sync_dependency",
                                  "critical_path_collective_wait",
                                  "critical_path_collective"};
  return type >= 0 && type <= CP_COLLECTIVE ? n[type] : "";
}

void cp_graph_free(cp_graph *g) {
  sqlite3_free(g->ev);
  sqlite3_free(g->node);
  sqlite3_free(g->edge);
  sqlite3_free(g->path);
  memset(g, 0, sizeof *g);
}

static int cmpI32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

void cp_ids_sort(int32_t *s, size_t n) {
  if (n) qsort(s, n, sizeof *s, cmpI32);
}

int cp_in_set(const int32_t *s, size_t n, int32_t v) {
  return v >= 0 && n && bsearch(&v, s, n, sizeof *s, cmpI32) != 0;
}

int cp_ev_pos(const cp_graph *g, int64_t seq) {
  size_t lo = 0, hi = g->nev;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->ev[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nev && g->ev[lo].seq == seq ? (int)lo : -1;
}

/* ---------------------------------------------------------------- edges */

int cp_add_edge(cp_ctx *x, int u, int v, int type, int zero, int attr_mode, int parent) {
  cp_graph *g = x->g;
  const cp_node *s = &g->node[u], *d = &g->node[v];
  uint64_t key = (uint64_t)(uint32_t)u << 32 | (uint32_t)v;
  size_t h;
  int idx = -1;
  if (u == v) return SQLITE_OK;
  if (2 * (g->nedge + 1) > x->hcap) { /* grow and rehash */
    size_t nc = x->hcap ? 2 * x->hcap : 1024;
    int *nh = sqlite3_malloc64(nc * sizeof *nh);
    if (!nh) return SQLITE_NOMEM;
    memset(nh, 0, nc * sizeof *nh);
    for (size_t i = 0; i < g->nedge; i++) {
      uint64_t k = (uint64_t)(uint32_t)g->edge[i].u << 32 | (uint32_t)g->edge[i].v;
      size_t j = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (nc - 1);
      while (nh[j]) j = (j + 1) & (nc - 1);
      nh[j] = (int)i + 1;
    }
    sqlite3_free(x->hash);
    x->hash = nh;
    x->hcap = nc;
  }
  h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (x->hcap - 1);
  while (x->hash[h]) {
    const cp_edge *e = &g->edge[x->hash[h] - 1];
    if (e->u == u && e->v == v) {
      idx = x->hash[h] - 1;
      break;
    }
    h = (h + 1) & (x->hcap - 1);
  }
  if (idx < 0) { /* CPG-6: a new edge */
    cp_edge e;
    memset(&e, 0, sizeof e);
    e.u = u;
    e.v = v;
    e.attr = -1;
    HTA_PUSH(g->edge, g->nedge, g->aedge, 1024, e, oom);
    idx = (int)g->nedge - 1;
    x->hash[h] = idx + 1;
  }
  cp_edge *e = &g->edge[idx];
  e->type = type;
  e->w = (type == CP_DEPENDENCY || type == CP_SYNC || zero) ? 0 : hta_sub_sat(d->ts, s->ts);
  if (attr_mode && (type == CP_OPERATOR || type == CP_KERNEL_KERNEL)) { /* spec 5.9 */
    if (type == CP_KERNEL_KERNEL || s->is_start) e->attr = s->ev;
    else if (!d->is_start) e->attr = d->ev;
    else e->attr = parent;
  }
  return SQLITE_OK;
oom:
  return SQLITE_NOMEM;
}

/* ---------------------------------------------------------------- validity and the path */

/* CPG-7, CPG-8. */
int cp_longest_path(cp_graph *g) {
  size_t nn = g->nnode, ne = g->nedge, ng = 0;
  int rc = SQLITE_OK;
  for (size_t i = 0; i < ne; i++) { /* CPG-7 */
    cp_edge *e = &g->edge[i];
    e->gw = e->w <= -1000 ? 0 : e->w;
    if (e->type == CP_SYNC) {
      int64_t a = g->ev[g->node[e->u].ev].stream, b = g->ev[g->node[e->v].ev].stream;
      if (a != -1 && a == b) {
        g->status = CP_INVALID;
        g->why = "a sync edge within one stream";
      }
    }
  }
  if (g->status != CP_OK) return SQLITE_OK;
  /* graph order: first appearance in edge insertions; CSR lists in edge order */
  int *gpos = sqlite3_malloc64((nn + 1) * sizeof *gpos),
      *gnodes = sqlite3_malloc64((nn + 1) * sizeof *gnodes);
  int *so = sqlite3_malloc64((nn + 2) * sizeof *so), *sl = sqlite3_malloc64((ne + 1) * sizeof *sl);
  int *po = sqlite3_malloc64((nn + 2) * sizeof *po), *pl = sqlite3_malloc64((ne + 1) * sizeof *pl);
  int *indeg = sqlite3_malloc64((nn + 1) * sizeof *indeg),
      *topo = sqlite3_malloc64((nn + 1) * sizeof *topo);
  int64_t *dist = sqlite3_malloc64((nn + 1) * sizeof *dist);
  int *from = sqlite3_malloc64((nn + 1) * sizeof *from);
  if (!gpos || !gnodes || !so || !sl || !po || !pl || !indeg || !topo || !dist || !from) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < nn; i++) gpos[i] = -1;
  memset(so, 0, (nn + 2) * sizeof *so);
  memset(po, 0, (nn + 2) * sizeof *po);
  for (size_t i = 0; i < ne; i++) {
    const cp_edge *e = &g->edge[i];
    if (gpos[e->u] < 0) gpos[e->u] = (int)ng, gnodes[ng++] = e->u;
    if (gpos[e->v] < 0) gpos[e->v] = (int)ng, gnodes[ng++] = e->v;
    so[e->u + 1]++;
    po[e->v + 1]++;
  }
  for (size_t i = 0; i < nn; i++) so[i + 1] += so[i], po[i + 1] += po[i];
  for (size_t i = 0; i < nn; i++) indeg[i] = po[i + 1] - po[i];
  {
    int *fs = from, *fp = topo; /* fill cursors, reused below */
    for (size_t i = 0; i < nn; i++) fs[i] = so[i], fp[i] = po[i];
    for (size_t i = 0; i < ne; i++) {
      sl[fs[g->edge[i].u]++] = (int)i;
      pl[fp[g->edge[i].v]++] = (int)i;
    }
  }
  /* Kahn by generations */
  size_t nt = 0;
  for (size_t i = 0; i < ng; i++)
    if (indeg[gnodes[i]] == 0) topo[nt++] = gnodes[i];
  for (size_t gen = 0; gen < nt;) {
    size_t end = nt;
    for (size_t k = gen; k < end; k++) {
      int u = topo[k];
      for (int j = so[u]; j < so[u + 1]; j++) {
        int v = g->edge[sl[j]].v;
        if (--indeg[v] == 0) topo[nt++] = v;
      }
    }
    gen = end;
  }
  if (nt < ng) {
    g->status = CP_INVALID;
    g->why = "a cycle";
    goto done;
  }
  /* dist(v) = max over predecessors in edge order; restart when negative */
  int64_t best = INT64_MIN;
  int bestNode = -1;
  for (size_t k = 0; k < nt; k++) {
    int v = topo[k];
    int64_t d = 0;
    int f = -1;
    for (int j = po[v]; j < po[v + 1]; j++) {
      const cp_edge *e = &g->edge[pl[j]];
      int64_t c = hta_add_sat(dist[e->u], e->gw);
      if (f < 0 || c > d) d = c, f = e->u;
    }
    if (f < 0 || d < 0) d = 0, f = v;
    dist[v] = d;
    from[v] = f;
    if (d > best) best = d, bestNode = v;
  }
  if (bestNode < 0) {
    g->status = CP_FAILED;
    g->why = "a path of fewer than 2 nodes";
    goto done;
  }
  size_t np = 0;
  for (int v = bestNode;; v = from[v]) {
    np++;
    if (from[v] == v) break;
  }
  if (np < 2) {
    g->status = CP_FAILED;
    g->why = "a path of fewer than 2 nodes";
    goto done;
  }
  g->path = sqlite3_malloc64(np * sizeof *g->path);
  if (!g->path) {
    rc = SQLITE_NOMEM;
    goto done;
  }
  g->npath = np;
  {
    size_t k = np;
    for (int v = bestNode;; v = from[v]) {
      g->path[--k] = v;
      if (from[v] == v) break;
    }
  }
  for (size_t k = 0; k + 1 < np; k++) { /* mark the path edges */
    int u = g->path[k], v = g->path[k + 1];
    for (int j = so[u]; j < so[u + 1]; j++)
      if (g->edge[sl[j]].v == v) g->edge[sl[j]].on_path = 1;
  }
done:
  sqlite3_free(gpos);
  sqlite3_free(gnodes);
  sqlite3_free(so);
  sqlite3_free(sl);
  sqlite3_free(po);
  sqlite3_free(pl);
  sqlite3_free(indeg);
  sqlite3_free(topo);
  sqlite3_free(dist);
  sqlite3_free(from);
  return rc;
}

/* The path's edges in order (CP-2): edge k joins path nodes k and k+1. One pass
** over the edges with each node's position on the path (a node is on it once). */
int cp_path_edges(const cp_graph *g, const cp_edge ***pe) {
  const cp_edge **e = sqlite3_malloc64((g->npath ? g->npath : 1) * sizeof *e);
  int64_t *pos = sqlite3_malloc64((g->nnode ? g->nnode : 1) * sizeof *pos);
  if (!e || !pos) {
    sqlite3_free(e);
    sqlite3_free(pos);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < g->nnode; i++) pos[i] = -1;
  for (size_t k = 0; k < g->npath; k++) {
    pos[g->path[k]] = (int64_t)k;
    e[k] = 0;
  }
  for (size_t j = 0; j < g->nedge; j++) {
    const cp_edge *x = &g->edge[j];
    int64_t k = x->on_path ? pos[x->u] : -1;
    if (k >= 0 && (size_t)k + 1 < g->npath && g->path[k + 1] == x->v && !e[k]) e[k] = x;
  }
  sqlite3_free(pos);
  *pe = e;
  return SQLITE_OK;
}

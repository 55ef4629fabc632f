/*
** critical_path_job.c: the job's critical path across ranks (beyond HTA, which
** analyses one rank at a time). Every rank's graph (critical_path_build.c, HTA's
** rules unchanged) for the same instances of the annotation, put side by side and
** joined at each collective matched across ranks (collectives.c), then one
** longest path over the whole.
**
** Requirements (tests cite them as CPJ-n):
**  1. The job's traces in (rank, trace_id) order; a trace whose own graph has no
**     path (hta_critical_path_stats status not 'ok') is left out and counted.
**  2. A collective instance joins ranks when two or more of its kernels have
**     nodes in the graph (inside their rank's window). Its last-arriving kernel L
**     is the one that starts last (ties: the first in (rank, trace_id) order).
**  3. A collective ends on every rank only after its last rank arrives: for each
**     other member r, r's own operator edge (start -> end) is replaced by
**       start(r) -> start(L)  critical_path_collective_wait, weight 0 (waiting
**                             is not work: the longest chain into any member's
**                             arrival decides where L's transfer starts), and
**       start(L) -> end(r)    critical_path_collective, weight end(r) - start(L)
**                             (0 when the clocks disagree), attributed to r's
**                             kernel (bound_by gpu_communication_bound).
**     L keeps its own operator edge (its duration is its transfer).
**  4. The longest path of the joined graph follows HTA's rule (CPG-8): edges of
**     the ranks in rank order, then the joining edges; ties keep the first.
**  5. One deviation from each rank's own graph: a cudaMemcpyAsync that returned
**     only after its copy ended (the copy's end <= the call's end) waited for the
**     GPU, so it is treated like HTA's blocking calls: its duration edge weighs 0
**     and a sync edge joins the copy's end to the call's end. HTA counts that wait
**     as CPU time (its quirk, spec 5.11 item 6); across ranks it would hide whom
**     the rank waited for (a .item() after a collective that waited for a
**     straggler).
*/
#include <string.h>

#include "collectives/collectives.h"
#include "critical_path/critical_path.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Appends SRC (one rank's graph, trace index TIX) to G; kev[k] receives the joined
** graph's event of collective kernel k of that trace (-1: not loaded). */
static int appendRank(cp_graph *g, const cp_graph *src, int tix, const coll_job *j, int *kev) {
  size_t ne = g->nev + src->nev, nn = g->nnode + src->nnode, nd = g->nedge + src->nedge;
  cp_ev *ev = sqlite3_realloc64(g->ev, (ne ? ne : 1) * sizeof *ev);
  if (!ev) return SQLITE_NOMEM;
  g->ev = ev;
  cp_node *node = sqlite3_realloc64(g->node, (nn ? nn : 1) * sizeof *node);
  if (!node) return SQLITE_NOMEM;
  g->node = node;
  cp_edge *edge = sqlite3_realloc64(g->edge, (nd ? nd : 1) * sizeof *edge);
  if (!edge) return SQLITE_NOMEM;
  g->edge = edge;
  g->aedge = nd;
  int eo = (int)g->nev, no = (int)g->nnode;
  for (size_t i = 0; i < src->nev; i++) {
    cp_ev *e = &g->ev[eo + i];
    *e = src->ev[i];
    e->tix = tix;
    e->partner = e->partner >= 0 ? e->partner + eo : -1;
    e->ns = e->ns >= 0 ? e->ns + no : -1;
    e->ne = e->ne >= 0 ? e->ne + no : -1;
  }
  for (size_t i = 0; i < src->nnode; i++) {
    g->node[no + i] = src->node[i];
    g->node[no + i].ev += eo;
  }
  for (size_t i = 0; i < src->nedge; i++) {
    cp_edge *e = &g->edge[g->nedge + i];
    *e = src->edge[i];
    e->u += no;
    e->v += no;
    e->attr = e->attr >= 0 ? e->attr + eo : -1;
    e->on_path = 0;
  }
  for (size_t k = 0; k < j->nk; k++) {
    if (j->k[k].tix != tix) continue;
    int p = cp_ev_pos(src, j->k[k].seq);
    kev[k] = p >= 0 && src->ev[p].ns >= 0 && src->ev[p].ne >= 0 ? p + eo : -1;
  }
  if (src->win_start < g->win_start || g->nev == 0) g->win_start = src->win_start;
  if (src->win_end > g->win_end || g->nev == 0) g->win_end = src->win_end;
  g->nev = ne;
  g->nnode = nn;
  g->nedge = nd;
  g->nkept += src->nkept;
  return SQLITE_OK;
}

static int addEdge(cp_graph *g, int u, int v, int type, int attr, int64_t w) {
  if (g->nedge == g->aedge) {
    size_t n = g->aedge ? 2 * g->aedge : 64;
    cp_edge *e = sqlite3_realloc64(g->edge, n * sizeof *e);
    if (!e) return SQLITE_NOMEM;
    g->edge = e;
    g->aedge = n;
  }
  cp_edge *e = &g->edge[g->nedge++];
  memset(e, 0, sizeof *e);
  e->u = u;
  e->v = v;
  e->type = type;
  e->attr = attr;
  e->w = e->gw = w;
  return SQLITE_OK;
}

/* CPJ-5 on one rank's graph G; COPY is the string id of cudaMemcpyAsync (-1: none). */
static int blockingCopies(cp_graph *g, int32_t copy) {
  unsigned char *wait = 0; /* wait[i]: event i is a copy call that waited for its copy */
  size_t n = g->nedge;
  int rc = SQLITE_OK;
  for (size_t i = 0; copy >= 0 && i < g->nev && rc == SQLITE_OK; i++) {
    const cp_ev *e = &g->ev[i];
    const cp_ev *p = e->partner >= 0 ? &g->ev[e->partner] : 0;
    if (e->name_id != copy || !p || e->ns < 0 || e->ne < 0 || p->ne < 0 ||
        hta_add_sat(p->ts, p->dur) > hta_add_sat(e->ts, e->dur))
      continue;
    if (!wait) {
      if (!(wait = sqlite3_malloc64(g->nev))) return SQLITE_NOMEM;
      memset(wait, 0, g->nev);
    }
    wait[i] = 1;
    rc = addEdge(g, p->ne, e->ne, CP_SYNC, -1, 0);
  }
  for (size_t j = 0; wait && j < n; j++) { /* their duration edges (pass 1) weigh 0 */
    cp_edge *x = &g->edge[j];
    if (x->type == CP_OPERATOR && x->attr >= 0 && wait[x->attr] && x->u == g->ev[x->attr].ns &&
        x->v == g->ev[x->attr].ne)
      x->w = x->gw = 0;
  }
  sqlite3_free(wait);
  return rc;
}

/* CPJ-2, CPJ-3: the joining edges of every instance; drop[ev] marks the members
** whose own operator edge goes. */
static int joinCollectives(cp_graph *g, const coll_job *j, const int *kev, unsigned char *drop,
                           size_t *nlinked) {
  int rc = SQLITE_OK;
  for (size_t i = 0; i < j->ninst && rc == SQLITE_OK; i++) {
    const coll_inst *in = &j->inst[i];
    int last = -1, n = 0;
    for (size_t m = 0; m < in->n; m++) {
      int x = kev[in->k[m] - j->k];
      if (x < 0) continue;
      n++;
      if (last < 0 || g->ev[x].ts > g->ev[last].ts) last = x;
    }
    if (n < 2) continue;
    (*nlinked)++;
    const cp_ev *L = &g->ev[last];
    for (size_t m = 0; m < in->n && rc == SQLITE_OK; m++) {
      int x = kev[in->k[m] - j->k];
      if (x < 0 || x == last) continue;
      const cp_ev *r = &g->ev[x];
      int64_t w = hta_sub_sat(hta_add_sat(r->ts, r->dur), L->ts);
      drop[x] = 1;
      rc = addEdge(g, r->ns, L->ns, CP_COLL_WAIT, -1, 0);
      if (rc == SQLITE_OK) rc = addEdge(g, L->ns, r->ne, CP_COLLECTIVE, x, w > 0 ? w : 0);
    }
  }
  return rc;
}

/* Removes the own operator edge of every member marked in DROP, keeping order. */
static void dropOwnEdges(cp_graph *g, const unsigned char *drop) {
  size_t o = 0;
  for (size_t i = 0; i < g->nedge; i++) {
    const cp_edge *e = &g->edge[i];
    int own = e->type == CP_OPERATOR && e->attr >= 0 && drop[e->attr] &&
              e->u == g->ev[e->attr].ns && e->v == g->ev[e->attr].ne;
    if (!own) g->edge[o++] = *e;
  }
  g->nedge = o;
}

int cp_job_graph_build(sqlite3 *db, const hta_scope *sc, const char *annotation, int64_t a,
                       int64_t b, int zero_weight_launch, int include_last_step, cp_graph *g,
                       hta_traces *tr, cp_job_info *info) {
  coll_job j;
  int *kev = 0;
  unsigned char *drop = 0;
  memset(g, 0, sizeof *g);
  memset(tr, 0, sizeof *tr); /* freed by the caller whatever fails below */
  memset(&j, 0, sizeof j);
  memset(info, 0, sizeof *info);
  static const char *const copyName[] = {"cudaMemcpyAsync"};
  int32_t copy;
  int rc = hta_string_ids(db, sc->schema, copyName, 1, &copy);
  if (rc != SQLITE_OK) return rc;
  /* the traces with the cut of each rank's own graph; the collectives (in the same trace
  ** order) only where there are ranks to join */
  rc = hta_traces_load(db, sc, 0, 0, include_last_step, tr);
  if (rc == SQLITE_OK && tr->n > 1) rc = coll_load(db, sc, include_last_step, &j);
  if (rc != SQLITE_OK) return rc;
  kev = sqlite3_malloc64((j.nk ? j.nk : 1) * sizeof *kev);
  if (!kev) rc = SQLITE_NOMEM;
  for (size_t k = 0; k < j.nk && kev; k++) kev[k] = -1;
  for (int i = 0; i < tr->n && rc == SQLITE_OK; i++) { /* CPJ-1 */
    cp_graph one;
    rc = cp_graph_build(db, &tr->a[i], annotation, a, b, zero_weight_launch, &one);
    if (rc == SQLITE_OK && one.status == CP_OK) {
      rc = blockingCopies(&one, copy);
      if (rc == SQLITE_OK) rc = appendRank(g, &one, i, &j, kev);
    } else if (rc == SQLITE_OK && info->nleft++ == 0) {
      info->left_rank = tr->a[i].rank;
      info->left_status = one.status;
      info->left_why = one.why;
    }
    cp_graph_free(&one);
    if (rc == SQLITE_OK && hta_interrupted(db)) rc = SQLITE_INTERRUPT;
  }
  if (rc == SQLITE_OK && g->nev == 0) {
    g->status = CP_FAILED;
    g->why = "no rank has a critical path";
  }
  if (rc == SQLITE_OK && g->status == CP_OK) {
    drop = sqlite3_malloc64(g->nev);
    if (!drop) rc = SQLITE_NOMEM;
    else memset(drop, 0, g->nev);
  }
  if (rc == SQLITE_OK && g->status == CP_OK) rc = joinCollectives(g, &j, kev, drop, &info->nlinked);
  if (rc == SQLITE_OK && g->status == CP_OK) dropOwnEdges(g, drop); /* joining edges stay last */
  if (rc == SQLITE_OK && g->status == CP_OK) rc = cp_longest_path(g);
  sqlite3_free(kev);
  sqlite3_free(drop);
  coll_free(&j);
  return rc;
}

/*
** critical_path_host.c: passes 1 and 2 of the critical path graph (spec
** hta_semantics.md 5.5; CPG-5 of critical_path_build.c): the runtime lock
** (cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync in time order: at each call's
** end, edges from the starts still open and from the previous end) and the CPU
** call stacks of each thread (operators nested by time, edges in depth-first
** order; the backward thread merged into the forward one). Edges go in through
** cp_add_edge (critical_path_graph.h).
*/
#include <stdlib.h>
#include <string.h>

#include "critical_path/critical_path_passes.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static int isLock(const cp_ctx *x, const cp_ev *e) {
  return cp_is_id(e->name_id, x->ids.fixed[N_HOSTALLOC]) ||
         cp_is_id(e->name_id, x->ids.fixed[N_LAUNCH]) ||
         cp_is_id(e->name_id, x->ids.fixed[N_MEMCPYASYNC]);
}
static int isBlocking(const cp_ctx *x, const cp_ev *e) {
  for (int k = N_DEVSYNC; k <= N_MEMCPY; k++)
    if (cp_is_id(e->name_id, x->ids.fixed[k])) return 1;
  return cp_is_id(e->name_id, x->ids.fixed[N_MEMCPYASYNC]);
}
/* spec 5.5 "share the lock" */
static int sharesLock(const cp_ctx *x, int a, int b) {
  const cp_node *p = &x->g->node[a], *q = &x->g->node[b];
  return isLock(x, &x->g->ev[p->ev]) && isLock(x, &x->g->ev[q->ev]) &&
         (p->is_start || !q->is_start);
}

/* ---------------------------------------------------------------- pass 1: the runtime lock */
int cp_pass_lock(cp_ctx *x) {
  cp_graph *g = x->g;
  int *stack = sqlite3_malloc64((g->nnode ? g->nnode : 1) * sizeof *stack);
  int top = 0, last = -1, rc = SQLITE_OK;
  if (!stack) return SQLITE_NOMEM;
  for (size_t n = 0; n < g->nnode && rc == SQLITE_OK; n++) {
    const cp_node *nd = &g->node[n];
    if (!isLock(x, &g->ev[nd->ev])) continue;
    if (nd->is_start) {
      stack[top++] = (int)n;
    } else {
      while (top > 0 && rc == SQLITE_OK) {
        int s = stack[--top];
        if (g->node[s].ev == nd->ev) rc = cp_add_edge(x, s, (int)n, CP_OPERATOR, 0, 1, -1);
        else rc = cp_add_edge(x, s, (int)n, CP_DEPENDENCY, 0, 0, -1);
      }
      if (rc == SQLITE_OK && last >= 0 && !g->node[last].is_start)
        rc = cp_add_edge(x, last, (int)n, CP_DEPENDENCY, 0, 0, -1);
    }
    last = (int)n;
  }
  sqlite3_free(stack);
  return rc;
}

/* ---------------------------------------------------------------- pass 2: call stacks */
typedef struct cs_pt {
  int64_t t, dur;
  int ev, is_start;
} cs_pt;

/* The call-stack point order of spec 5.5 step 3 (kept host rows have dur > 0). */
static int cmpPt(const void *a, const void *b) {
  const cs_pt *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->ev == y->ev) return y->is_start - x->is_start;
  if (x->is_start && y->is_start) {
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;
    return x->ev < y->ev ? -1 : 1;
  }
  if (!x->is_start && !y->is_start) {
    if (x->dur != y->dur) return x->dur < y->dur ? -1 : 1;
    return x->ev > y->ev ? -1 : 1;
  }
  if (x->dur > 0 && y->dur > 0) return x->is_start ? 1 : -1; /* the end first */
  if (x->dur == 0 && y->dur == 0) return x->ev < y->ev ? -1 : 1;
  return x->is_start ? -1 : 1;
}

typedef struct cs_row {
  int64_t pidk, tidk;
  int ev;
} cs_row;
static int cmpRow(const void *a, const void *b) {
  const cs_row *x = a, *y = b;
  if (x->pidk != y->pidk) return x->pidk < y->pidk ? -1 : 1;
  if (x->tidk != y->tidk) return x->tidk < y->tidk ? -1 : 1;
  return x->ev - y->ev;
}

/* The single tid of kept cpu_op / user_annotation rows named in SET; 0 when none or several. */
static int64_t singleTid(const cp_graph *g, const int32_t *set, size_t n, int *found) {
  int64_t tid = 0;
  *found = 0;
  for (size_t i = 0; i < g->nev; i++) {
    const cp_ev *e = &g->ev[i];
    if (!e->kept || (e->kind != CK_CPU_OP && e->kind != CK_USER_ANN)) continue;
    if (!cp_in_set(set, n, e->name_id)) continue;
    if (*found && e->tidk != tid) {
      *found = 0;
      return 0;
    }
    *found = 1;
    tid = e->tidk;
  }
  return tid;
}

/* One CPU thread: nesting, then the depth-first edges (spec 5.5 steps 3-4). */
static int stackEdges(cp_ctx *x, const cs_row *r, size_t n, cs_pt *pts, int *work) {
  cp_graph *g = x->g;
  int rc = SQLITE_OK;
  size_t np = 0;
  int *parent = work, *kids = work + (n + 1), *first = work + 2 * (n + 1);
  int *lastkid = work + 3 * (n + 1), *stk = work + 4 * (n + 1), top = 0;
  for (size_t i = 0; i < n; i++) {
    const cp_ev *e = &g->ev[r[i].ev];
    int64_t d = e->dur > 0 ? e->dur : 0;
    pts[np++] = (cs_pt){e->ts, d, r[i].ev, 1};
    pts[np++] = (cs_pt){hta_end(e->ts, d), d, r[i].ev, 0};
  }
  qsort(pts, np, sizeof *pts, cmpPt);
  for (size_t i = 0; i <= n; i++) first[i] = lastkid[i] = kids[i] = -1;
  for (size_t p = 0; p < np; p++) {
    size_t lo = 0, hi = n; /* local index: R is sorted by ev */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (r[mid].ev < pts[p].ev) lo = mid + 1;
      else hi = mid;
    }
    int k = (int)lo;
    if (pts[p].is_start) {
      int par = top ? stk[top - 1] : (int)n; /* n = the root */
      parent[k] = par;
      if (lastkid[par] < 0) first[par] = k;
      else kids[lastkid[par]] = k;
      lastkid[par] = k;
      stk[top++] = k;
    } else if (top) {
      top--; /* an end pops the top, whatever it is */
    }
  }
  /* depth-first walk from the root: enter, children, exit */
  int last = -1, depth = 0, lastParent = -1;
  int cur = first[n];
  while (cur >= 0 && rc == SQLITE_OK) {
    /* enter cur */
    const cp_ev *e = &g->ev[r[cur].ev];
    int pev = parent[cur] == (int)n ? -1 : r[parent[cur]].ev;
    if (e->ns >= 0) {
      if (last >= 0 && !sharesLock(x, last, e->ns))
        rc =
            cp_add_edge(x, last, e->ns, depth == 0 ? CP_DEPENDENCY : CP_OPERATOR, 0, 1, lastParent);
      last = e->ns;
      lastParent = pev;
      depth++;
    }
    if (first[cur] >= 0) {
      cur = first[cur];
      continue;
    }
    /* exit cur and its finished ancestors */
    for (;;) {
      const cp_ev *f = &g->ev[r[cur].ev];
      int fp = parent[cur] == (int)n ? -1 : r[parent[cur]].ev;
      if (f->ne >= 0 && rc == SQLITE_OK) {
        if (last >= 0 && !sharesLock(x, last, f->ne))
          rc = cp_add_edge(x, last, f->ne, CP_OPERATOR, isBlocking(x, f), 1, lastParent);
        last = f->ne;
        lastParent = fp;
        depth--;
      }
      if (kids[cur] >= 0) {
        cur = kids[cur];
        break;
      }
      if (parent[cur] == (int)n) {
        cur = -1;
        break;
      }
      cur = parent[cur];
    }
  }
  return rc;
}

int cp_pass_stacks(cp_ctx *x) {
  cp_graph *g = x->g;
  cs_row *rows = 0;
  size_t n = 0, a = 0;
  int ff, fb, rc = SQLITE_OK;
  int64_t fwd = singleTid(g, x->ids.fwd, x->ids.nfwd, &ff);
  int64_t bwd = singleTid(g, x->ids.bwd, x->ids.nbwd, &fb);
  int remap = ff && fb && fwd != 0 && bwd != 0 && fwd != bwd; /* HTA tests truthiness */
  for (size_t i = 0; i < g->nev; i++) {
    const cp_ev *e = &g->ev[i];
    if (!e->kept) continue;
    cs_row r = {e->pidk, remap && e->tidk == bwd ? fwd : e->tidk, (int)i};
    HTA_PUSH(rows, n, a, 256, r, oom);
  }
  if (n == 0) return SQLITE_OK;
  qsort(rows, n, sizeof *rows, cmpRow);
  cs_pt *pts = sqlite3_malloc64(2 * n * sizeof *pts);
  int *work = sqlite3_malloc64((5 * n + 8) * sizeof *work);
  if (!pts || !work) {
    sqlite3_free(pts);
    sqlite3_free(work);
    goto oom;
  }
  for (size_t i = 0; i < n && rc == SQLITE_OK;) {
    size_t j = i;
    int cpu = 1;
    while (j < n && rows[j].pidk == rows[i].pidk && rows[j].tidk == rows[i].tidk) {
      if (g->ev[rows[j].ev].stream >= 0) cpu = 0; /* spec 5.5 step 2 */
      j++;
    }
    if (cpu) {
      rc = stackEdges(x, rows + i, j - i, pts, work);
    }
    i = j;
  }
  sqlite3_free(pts);
  sqlite3_free(work);
  sqlite3_free(rows);
  return rc;
oom:
  sqlite3_free(rows);
  return SQLITE_NOMEM;
}

/*
** critical_path_gpu.c: pass 3 of the critical path graph (spec hta_semantics.md
** 5.6), run by critical_path_build.c: GPU kernels, memcpy and memset rows and the
** cuda_sync rows, with the queue length series of each launch, the launches by
** time (L), each cudaEventRecord's previous launch (R) and each
** cudaStreamWaitEvent's next launch (W).
**
** Requirements (tests cite them as CPG-n of critical_path_build.c, and):
**  1. Queue length (spec 2.7, D15 launch names): +1 at each launch, -1 at the
**     start of its GPU row, per stream by (ts, +1 before -1): qrt = the value after
**     the launch's change, qk = after the row's. No such change: HTA's assertion,
**     status failed.
**  2. Rows by ts (end for cuda_sync rows), ties in seq order (HTA's sort is
**     unstable: the launch/kernel-kernel split can differ at tied queue points).
**  3. Stream Wait Event -> the next kernel waits for the record's kernel (sync
**     edge at its start); Event Sync, Stream Sync, Context Sync -> sync edges
**     into the runtime call's end; kernels: own duration, launch delay when
**     the queue was empty and nothing else held it, else the gap to the
**     previous kernel of the stream under 1500 us; zero-weight launch edges
**     when asked.
*/
#include <stdlib.h>
#include <string.h>

#include "critical_path/critical_path_passes.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct q_chg {
  int64_t stream, ts;
  int delta, k; /* k: the kernel's position */
} q_chg;
static int cmpChg(const void *a, const void *b) {
  const q_chg *x = a, *y = b;
  if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->delta != y->delta) return y->delta - x->delta; /* QL-3: +1 first */
  return x->k - y->k;
}

typedef struct cp_launch {
  int64_t ts, pidk, tidk, gpu, stream;
  int rt, k; /* positions of the runtime row and its kernel */
} cp_launch;
static int cmpLaunch(const void *a, const void *b) {
  const cp_launch *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->rt - y->rt;
}

typedef struct gk_row {
  int64_t key;
  int ev;
} gk_row;
static int cmpGk(const void *a, const void *b) {
  const gk_row *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->ev - y->ev;
}

/* The first row of the sorted A with KEY, NULL when none. */
static const gk_row *findKey(const gk_row *a, size_t n, int64_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && a[lo].key == key ? &a[lo] : 0;
}

static int isLaunchName(const cp_ctx *x, int32_t id) {
  for (size_t i = 0; i < N_LAUNCHES; i++)
    if (cp_is_id(id, x->ids.launch[i])) return 1;
  return 0;
}

/* The per-stream scratch of pass 3: lastEnd by stream in first-seen order. */
typedef struct last_end {
  int64_t stream;
  int node;
} last_end;

int cp_pass_gpu(cp_ctx *x) {
  cp_graph *g = x->g;
  size_t n = g->nev, nchg = 0, nl = 0, al = 0, ngk = 0, agk = 0, nle = 0, ale = 0;
  int rc = SQLITE_OK;
  q_chg *chg = 0;
  cp_launch *L = 0;
  gk_row *gk = 0, *waits = 0, *recs = 0;
  size_t nw = 0, aw = 0, nrec = 0, arec = 0;
  last_end *le = 0;
  int *qrt = sqlite3_malloc64((n + 1) * sizeof *qrt), *qk = sqlite3_malloc64((n + 1) * sizeof *qk);
  int *prevLaunch =
      sqlite3_malloc64((n + 1) * sizeof *prevLaunch); /* per record row: launch index */
  int *nextLaunch = sqlite3_malloc64((n + 1) * sizeof *nextLaunch); /* per wait call row */
  int *waitFor = sqlite3_malloc64((n + 1) * sizeof *waitFor);
  if (!qrt || !qk || !prevLaunch || !nextLaunch || !waitFor) goto oom;
  for (size_t i = 0; i < n; i++)
    qrt[i] = qk[i] = -1, prevLaunch[i] = nextLaunch[i] = waitFor[i] = -1;

  /* Q: the queue length of every runtime-launched device row (spec 2.7, QL-3 order) */
  chg = sqlite3_malloc64((2 * n + 1) * sizeof *chg);
  if (!chg) goto oom;
  for (size_t i = 0; i < n; i++) {
    const cp_ev *h = &g->ev[i];
    if (!isLaunchName(x, h->name_id) || h->icorr <= 0 || h->partner < 0) continue;
    const cp_ev *k = &g->ev[h->partner];
    if (k->stream == -1) continue;
    chg[nchg++] = (q_chg){k->stream, h->ts, 1, h->partner};
    chg[nchg++] = (q_chg){k->stream, k->ts, -1, h->partner};
  }
  if (nchg == 0) { /* HTA asserts the queue length series exists */
    g->status = CP_FAILED;
    g->why = "no launch with GPU work (no queue length series)";
    goto done;
  }
  qsort(chg, nchg, sizeof *chg, cmpChg);
  for (size_t i = 0, q = 0; i < nchg; i++) {
    if (i == 0 || chg[i].stream != chg[i - 1].stream) q = 0;
    q = (size_t)((int64_t)q + chg[i].delta);
    if (chg[i].delta > 0) qrt[chg[i].k] = (int)q;
    else qk[chg[i].k] = (int)q;
  }

  /* L: launches with their device row, by ts */
  for (size_t i = 0; i < n; i++) {
    const cp_ev *h = &g->ev[i];
    if (!isLaunchName(x, h->name_id) || h->icorr <= 0 || h->partner < 0) continue;
    const cp_ev *k = &g->ev[h->partner];
    if (k->stream == -1 || k->icorr <= 0) continue;
    cp_launch l = {h->ts, h->pidk, h->tidk, k->pidk, k->stream, (int)i, h->partner};
    HTA_PUSH(L, nl, al, 256, l, oom);
  }
  if (nl) qsort(L, nl, sizeof *L, cmpLaunch);

  /* R: each cudaEventRecord's previous launch on the (GPU, stream) it is waited on */
  if (x->ids.fixed[N_EVRECORD] >= 0) {
    for (size_t i = 0; i < n; i++) { /* the rows that wait on a record, first per correlation */
      const cp_ev *w = &g->ev[i];
      if (w->wait_stream > -1 && w->wait_corr >= 0) {
        gk_row r = {w->wait_corr, (int)i};
        HTA_PUSH(waits, nw, aw, 64, r, oom);
      }
      if (cp_is_id(w->name_id, x->ids.fixed[N_EVRECORD]) && w->corr >= 0) {
        gk_row r = {w->corr, (int)i};
        HTA_PUSH(recs, nrec, arec, 64, r, oom);
      }
    }
    if (nw) qsort(waits, nw, sizeof *waits, cmpGk);
    if (nrec) qsort(recs, nrec, sizeof *recs, cmpGk);
    for (size_t z = 0; z < nrec; z++) {
      const cp_ev *r = &g->ev[recs[z].ev];
      const gk_row *w = findKey(waits, nw, r->corr);
      if (!w) continue;
      int64_t stream = g->ev[w->ev].wait_stream, gpu = g->ev[w->ev].pidk;
      size_t hi = 0, lo2 = nl;
      while (hi < lo2) { /* first launch after the record */
        size_t mid = (hi + lo2) / 2;
        if (L[mid].ts <= r->ts) hi = mid + 1;
        else lo2 = mid;
      }
      for (size_t l = hi; l-- > 0;)
        if (L[l].gpu == gpu && L[l].stream == stream) {
          prevLaunch[recs[z].ev] = (int)l;
          break;
        }
    }
  }
  /* W: each cudaStreamWaitEvent's next launch on its thread and the waiting stream */
  if (x->ids.fixed[N_STREAMWAITEVENT] >= 0 && x->ids.fixed[N_STREAM_WAIT] >= 0) {
    for (size_t i = 0; i < n; i++) {
      const cp_ev *w = &g->ev[i];
      if (!cp_is_id(w->name_id, x->ids.fixed[N_STREAMWAITEVENT]) || w->icorr <= 0 || w->partner < 0)
        continue;
      const cp_ev *p = &g->ev[w->partner];
      if (p->stream == -1 || p->icorr <= 0) continue;
      size_t lo = 0, hi = nl;
      while (lo < hi) { /* first launch after the call */
        size_t mid = (lo + hi) / 2;
        if (L[mid].ts <= w->ts) lo = mid + 1;
        else hi = mid;
      }
      for (size_t l = lo; l < nl; l++)
        if (L[l].pidk == w->pidk && L[l].tidk == w->tidk && L[l].stream == p->stream) {
          nextLaunch[i] = (int)l;
          break;
        }
    }
  }

  /* the rows processed, by ts (end for cuda_sync rows) */
  for (size_t i = 0; i < n; i++) {
    const cp_ev *e = &g->ev[i];
    if (!e->kept || e->icorr < 0) continue;
    if (e->stream == -1 && !cp_is_id(e->name_id, x->ids.fixed[N_EVENT_SYNC]) &&
        !cp_is_id(e->name_id, x->ids.fixed[N_CONTEXT_SYNC]))
      continue;
    gk_row r = {e->kind == CK_SYNC ? hta_end(e->ts, e->dur) : e->ts, (int)i};
    HTA_PUSH(gk, ngk, agk, 256, r, oom);
  }
  if (ngk) qsort(gk, ngk, sizeof *gk, cmpGk);

  for (size_t z = 0; z < ngk && rc == SQLITE_OK; z++) {
    int i = gk[z].ev;
    const cp_ev *e = &g->ev[i];
    if (e->kind == CK_SYNC) {
      int rt = e->partner;
      int rtEnd = rt >= 0 ? g->ev[rt].ne : -1;
      if (cp_is_id(e->name_id, x->ids.fixed[N_STREAM_WAIT]) ||
          cp_is_id(e->name_id, x->ids.fixed[N_EVENT_SYNC])) {
        if (e->wait_corr < 0) continue;
        const gk_row *rr = findKey(recs, nrec, e->wait_corr); /* the record it waits on */
        int rec = rr ? rr->ev : -1;
        if (rec < 0 || prevLaunch[rec] < 0) continue;
        int src = L[prevLaunch[rec]].k;
        if (cp_is_id(e->name_id, x->ids.fixed[N_STREAM_WAIT])) {
          if (rt < 0 || nextLaunch[rt] < 0) continue;
          waitFor[L[nextLaunch[rt]].k] = src;
        } else if (g->ev[src].ne >= 0 && rtEnd >= 0) {
          rc = cp_add_edge(x, g->ev[src].ne, rtEnd, CP_SYNC, 0, 0, -1);
        }
      } else if (cp_is_id(e->name_id, x->ids.fixed[N_STREAM_SYNC])) {
        for (size_t s = 0; s < nle; s++)
          if (le[s].stream == e->stream && rtEnd >= 0)
            rc = cp_add_edge(x, le[s].node, rtEnd, CP_SYNC, 0, 0, -1);
      } else if (cp_is_id(e->name_id, x->ids.fixed[N_CONTEXT_SYNC])) {
        for (size_t s = 0; s < nle && rc == SQLITE_OK; s++)
          if (rtEnd >= 0) rc = cp_add_edge(x, le[s].node, rtEnd, CP_SYNC, 0, 0, -1);
      }
      continue;
    }
    if (e->ns < 0) continue;
    int ks = e->ns, ke = e->ne, added = 0, launchAdded = 0, src = waitFor[i], srcEnd = -1;
    rc = cp_add_edge(x, ks, ke, CP_OPERATOR, 0, 1, -1);
    if (src >= 0) {
      srcEnd = g->ev[src].ne;
      if (srcEnd < 0) src = -1;
      else if (rc == SQLITE_OK) {
        rc = cp_add_edge(x, srcEnd, ks, CP_SYNC, 0, 0, -1);
        added = 1;
      }
      waitFor[i] = -1;
    }
    int li = -1;
    for (size_t s = 0; s < nle; s++)
      if (le[s].stream == e->stream) li = (int)s;
    int64_t lastTs = li >= 0 ? g->node[le[li].node].ts : 0;
    const cp_ev *rt = e->partner >= 0 ? &g->ev[e->partner] : 0;
    if (rc == SQLITE_OK && rt && qrt[i] == 1 && qk[i] == 0 && (li < 0 || lastTs < rt->ts) &&
        (src < 0 || g->node[srcEnd].ts < rt->ts)) {
      if (rt->ns < 0) {
        g->status = CP_FAILED;
        g->why = "a launch without nodes";
        break;
      }
      rc = cp_add_edge(x, rt->ns, ks, CP_LAUNCH_DELAY, 0, 0, -1);
      added = launchAdded = 1;
    } else if (rc == SQLITE_OK && li >= 0 && hta_sub_sat(g->node[ks].ts, lastTs) < 1500000 &&
               (src < 0 || g->node[srcEnd].ts < lastTs)) {
      rc = cp_add_edge(x, le[li].node, ks, CP_KERNEL_KERNEL, 0, 1, -1);
      added = 1;
    }
    (void)added; /* HTA only warns when the kernel hangs from nothing */
    if (rc == SQLITE_OK && x->zw && !launchAdded && rt && rt->ns >= 0)
      rc = cp_add_edge(x, rt->ns, ks, CP_LAUNCH_DELAY, 1, 0, -1);
    if (li >= 0) {
      le[li].node = ke;
    } else {
      last_end v = {e->stream, ke};
      HTA_PUSH(le, nle, ale, 16, v, oom);
    }
    if ((z & 4095) == 0 && hta_interrupted(x->db)) rc = SQLITE_INTERRUPT;
  }
  goto done;
oom:
  rc = SQLITE_NOMEM;
done:
  sqlite3_free(qrt);
  sqlite3_free(qk);
  sqlite3_free(prevLaunch);
  sqlite3_free(nextLaunch);
  sqlite3_free(waitFor);
  sqlite3_free(chg);
  sqlite3_free(L);
  sqlite3_free(gk);
  sqlite3_free(waits);
  sqlite3_free(recs);
  sqlite3_free(le);
  return rc;
}

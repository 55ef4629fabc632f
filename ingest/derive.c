/*
** derive.c: correlation links, call stacks, iterations and B/E pairing of one
** trace file. See derive.h for the rules and the memory bound.
*/
#include "derive.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* dv_rec.flags */
#define F_KEPT 0x0001u     /* HTA keeps it: dur and cat, cat != Trace */
#define F_GPU 0x0002u      /* GPU work (D5) */
#define F_PSTEP 0x0004u    /* name starts with "ProfilerStep#" */
#define F_AUTOGRAD 0x0008u /* name contains "autograd::" */
#define F_BWDMARK 0x0010u  /* name starts with "## backward ##" */
#define F_GPUANNOT 0x0020u /* cat gpu_user_annotation */
#define F_HAS_TS 0x0040u
#define F_B 0x0080u
#define F_E 0x0100u
#define F_PID0 0x0200u
#define F_TID0 0x0400u
#define F_NODE 0x0800u     /* a call-stack node */
#define F_STEPNAME 0x1000u /* name starts with "ProfilerStep" */
#define F_STORED 0x2000u   /* becomes a row of the event table */

typedef struct dv_rec {
  int64_t ts, dur;
  int32_t group; /* (pid, tid) group, -1 when neither is present */
  uint32_t flags;
} dv_rec;

typedef struct dv_corr {
  int64_t corr;
  int64_t seq;
  int gpu_like;
} dv_corr;

typedef struct dv_bdur {
  int64_t seq, dur;
} dv_bdur;

enum { I_NEGDUR, I_UNMATCHED_B, I_UNMATCHED_E, I_NO_TS, I_STEP_NAME, I_NEGDUR_STACK, I_NISSUE };

struct dv_state {
  dv_rec *rec; /* per seq, scan pass only */
  size_t n, cap;
  dv_corr *corr;
  size_t ncorr, capcorr;
  sm_map groups; /* "pid\x1ftid" -> group id */
  dv_step *steps;
  int nsteps, capsteps;
  dv_bdur *bdur; /* paired B events, seq order */
  size_t nbdur, capbdur;
  /* B/E pairing: per group, a stack of open B seqs */
  int64_t **bstack;
  int *bstack_n, *bstack_cap;
  size_t nbgroups;
  /* results, per seq */
  int32_t *link, *parent, *depth, *iter; /* iter = step index, -1 */
  int32_t *ord;                          /* ordinal among the stored event rows, -1 */
  uint8_t *skip;
  int64_t min_ts, max_end;
  int has_span;
  int has_cuda_launch, has_hip_launch, has_mtia_launch;
  /* the last (pid, tid) seen and its group: consecutive events mostly share a thread */
  int last_valid, last_has_pid, last_has_tid;
  int64_t last_pid, last_tid;
  int32_t last_group;
  dv_issue issues[I_NISSUE];
};

static const struct {
  const char *code, *message;
} dv_issue_text[I_NISSUE] = {
    {"negative_duration", "events with a negative dur (kept as written)"},
    {"unmatched_begin", "B events without a matching E (kept with dur NULL)"},
    {"unmatched_end", "E events without a matching B (kept with dur NULL)"},
    {"no_timestamp", "events without ts (not stored)"},
    {"bad_step_name", "names starting with ProfilerStep that are not ProfilerStep#N (not steps)"},
    {"negative_duration_stack", "call-stack nodes with a negative dur, treated as zero-length"},
};

static void dv_note(dv_state *d, int which, int64_t seq, const kt_span *name) {
  dv_issue *is = &d->issues[which];
  if (is->count++ == 0) {
    is->first_seq = seq;
    if (name && name->n) {
      size_t n = name->n < sizeof is->example - 1 ? name->n : sizeof is->example - 1;
      memcpy(is->example, name->p, n);
      is->example[n] = 0;
    }
  }
}

static int span_eq(const kt_span *s, const char *lit) {
  size_t n = strlen(lit);
  return s->n == n && !memcmp(s->p, lit, n);
}

static int span_prefix(const kt_span *s, const char *lit) {
  size_t n = strlen(lit);
  return s->n >= n && !memcmp(s->p, lit, n);
}

static int span_contains(const kt_span *s, const char *lit) {
  size_t n = strlen(lit);
  for (size_t i = 0; i + n <= s->n; i++)
    if (s->p[i] == lit[0] && !memcmp(s->p + i, lit, n)) return 1;
  return 0;
}

dv_state *dv_new(void) {
  dv_state *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  sm_init(&d->groups);
  for (int i = 0; i < I_NISSUE; i++) {
    d->issues[i].code = dv_issue_text[i].code;
    d->issues[i].message = dv_issue_text[i].message;
    d->issues[i].first_seq = -1;
  }
  return d;
}

void dv_free(dv_state *d) {
  if (!d) return;
  free(d->rec);
  free(d->corr);
  sm_free(&d->groups);
  free(d->steps);
  free(d->bdur);
  for (size_t i = 0; i < d->nbgroups; i++) free(d->bstack[i]);
  free(d->bstack);
  free(d->bstack_n);
  free(d->bstack_cap);
  free(d->link);
  free(d->parent);
  free(d->depth);
  free(d->iter);
  free(d->skip);
  free(d->ord);
  free(d);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Appends the text of a pid/tid value to buf; returns the new length. */
static size_t value_key(char *buf, size_t at, size_t cap, const kt_value *v, int present) {
  if (!present) {
    buf[at++] = '-';
  } else if (v->is_str) {
    size_t n = v->s.n < cap - at - 24 ? v->s.n : cap - at - 24;
    buf[at++] = 's';
    memcpy(buf + at, v->s.p, n);
    at += n;
  } else {
    char tmp[24];
    int k = 0;
    uint64_t u = v->i < 0 ? (uint64_t)0 - (uint64_t)v->i : (uint64_t)v->i;
    do tmp[k++] = (char)('0' + u % 10);
    while ((u /= 10));
    buf[at++] = v->i < 0 ? 'n' : 'i';
    while (k) buf[at++] = tmp[--k];
  }
  return at;
}

static int b_push(dv_state *d, int32_t g, int64_t seq) {
  if ((size_t)g >= d->nbgroups) {
    size_t n = (size_t)g + 1;
    int64_t **s = realloc(d->bstack, n * sizeof *s);
    if (!s) return -1;
    d->bstack = s;
    int *bn = realloc(d->bstack_n, n * sizeof *bn);
    if (!bn) return -1;
    d->bstack_n = bn;
    int *bc = realloc(d->bstack_cap, n * sizeof *bc);
    if (!bc) return -1;
    d->bstack_cap = bc;
    for (size_t i = d->nbgroups; i < n; i++) s[i] = NULL, bn[i] = 0, bc[i] = 0;
    d->nbgroups = n;
  }
  if (d->bstack_n[g] == d->bstack_cap[g]) {
    int c = d->bstack_cap[g] ? d->bstack_cap[g] * 2 : 8;
    int64_t *s = realloc(d->bstack[g], (size_t)c * sizeof *s);
    if (!s) return -1;
    d->bstack[g] = s;
    d->bstack_cap[g] = c;
  }
  d->bstack[g][d->bstack_n[g]++] = seq;
  return 0;
}

/* Parses "ProfilerStep\s*#\s*(\d+)"; returns 1 and *num on a match. */
static int step_number(const kt_span *s, int64_t *num) {
  size_t i = 12; /* strlen("ProfilerStep") */
  while (i < s->n && (s->p[i] == ' ' || s->p[i] == '\t')) i++;
  if (i >= s->n || s->p[i] != '#') return 0;
  i++;
  while (i < s->n && (s->p[i] == ' ' || s->p[i] == '\t')) i++;
  if (i >= s->n || s->p[i] < '0' || s->p[i] > '9') return 0;
  int64_t v = 0;
  for (; i < s->n && s->p[i] >= '0' && s->p[i] <= '9'; i++) {
    if (v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (s->p[i] - '0');
  }
  *num = v;
  return 1;
}

int dv_add(dv_state *d, const kt_event *e) {
  size_t seq = (size_t)e->seq;
  if (grow((void **)&d->rec, &d->cap, seq + 1, sizeof *d->rec)) return -1;
  while (d->n < seq) { /* elements that were not events */
    memset(&d->rec[d->n], 0, sizeof *d->rec);
    d->rec[d->n++].group = -1;
  }
  dv_rec *r = &d->rec[d->n++];
  memset(r, 0, sizeof *r);
  r->group = -1;
  unsigned f = e->flags;
  if (e->ph == 'M' || e->ph == 'C' || e->ph == 's' || e->ph == 't' || e->ph == 'f') return 0;
  if (!(f & KT_HAS_TS)) {
    dv_note(d, I_NO_TS, e->seq, &e->name);
    return 0;
  }
  r->flags |= F_HAS_TS | F_STORED;
  r->ts = e->ts;
  r->dur = (f & KT_HAS_DUR) ? e->dur : 0;
  int has_pid = (f & KT_HAS_PID) != 0, has_tid = (f & KT_HAS_TID) != 0;
  int ints = (!has_pid || !e->pid.is_str) && (!has_tid || !e->tid.is_str);
  if (ints && d->last_valid && d->last_has_pid == has_pid && d->last_has_tid == has_tid &&
      (!has_pid || d->last_pid == e->pid.i) && (!has_tid || d->last_tid == e->tid.i)) {
    r->group = d->last_group;
  } else if (has_pid || has_tid) {
    char key[512];
    size_t at = value_key(key, 0, sizeof key, &e->pid, (f & KT_HAS_PID) != 0);
    key[at++] = 0x1f;
    at = value_key(key, at, sizeof key, &e->tid, (f & KT_HAS_TID) != 0);
    int added;
    int64_t g = sm_intern(&d->groups, key, at, &added);
    if (g < 0) return -1;
    r->group = (int32_t)g;
    d->last_valid = ints;
    d->last_has_pid = has_pid, d->last_has_tid = has_tid;
    d->last_pid = has_pid ? e->pid.i : 0, d->last_tid = has_tid ? e->tid.i : 0;
    d->last_group = r->group;
  }
  if ((f & KT_HAS_PID) && !e->pid.is_str && e->pid.i == 0) r->flags |= F_PID0;
  if ((f & KT_HAS_TID) && !e->tid.is_str && e->tid.i == 0) r->flags |= F_TID0;
  if (e->ph == 'B') {
    r->flags |= F_B;
    return r->group >= 0 ? b_push(d, r->group, e->seq) : 0;
  }
  if (e->ph == 'E') {
    r->flags |= F_E;
    if (r->group >= 0 && (size_t)r->group < d->nbgroups && d->bstack_n[r->group] > 0) {
      int64_t b = d->bstack[r->group][--d->bstack_n[r->group]];
      dv_rec *br = &d->rec[b];
      if (__builtin_sub_overflow(e->ts, br->ts, &br->dur))
        br->dur = INT64_MAX; /* absurd, but defined */
      if (grow((void **)&d->bdur, &d->capbdur, d->nbdur + 1, sizeof *d->bdur)) return -1;
      d->bdur[d->nbdur].seq = b;
      d->bdur[d->nbdur++].dur = br->dur;
      r->flags |= F_B; /* F_B|F_E: an E folded into its B */
    }
    return 0;
  }
  if (!(f & KT_HAS_DUR) || !(f & KT_HAS_CAT) || span_eq(&e->cat, "Trace")) return 0;
  r->flags |= F_KEPT;
  if (e->dur < 0) dv_note(d, I_NEGDUR, e->seq, &e->name);
  if (f & KT_GPU_WORK) r->flags |= F_GPU;
  if (span_eq(&e->cat, "gpu_user_annotation")) r->flags |= F_GPUANNOT;
  if (span_prefix(&e->name, "ProfilerStep")) r->flags |= F_STEPNAME;
  if (span_prefix(&e->name, "ProfilerStep#")) r->flags |= F_PSTEP;
  if (span_contains(&e->name, "autograd::")) r->flags |= F_AUTOGRAD;
  if (span_prefix(&e->name, "## backward ##")) r->flags |= F_BWDMARK;
  if (span_eq(&e->name, "cudaLaunchKernel")) d->has_cuda_launch = 1;
  if (span_eq(&e->name, "hipLaunchKernel")) d->has_hip_launch = 1;
  if (span_eq(&e->name, "runFunction - job_prep_and_submit_for_execution")) d->has_mtia_launch = 1;
  int64_t end = e->ts + e->dur;
  if (!d->has_span || e->ts < d->min_ts) d->min_ts = e->ts;
  if (!d->has_span || end > d->max_end) d->max_end = end;
  d->has_span = 1;
  if (f & KT_HAS_CORRELATION) {
    int64_t stream = (f & KT_HAS_STREAM) ? e->stream : -1;
    int gpu_like = (stream >= 0 && e->correlation >= 0) || span_eq(&e->name, "Event Sync") ||
                   span_eq(&e->name, "Context Sync");
    if (e->correlation != -1) {
      if (grow((void **)&d->corr, &d->capcorr, d->ncorr + 1, sizeof *d->corr)) return -1;
      d->corr[d->ncorr].corr = e->correlation;
      d->corr[d->ncorr].seq = e->seq;
      d->corr[d->ncorr++].gpu_like = gpu_like;
    }
  }
  if ((r->flags & F_STEPNAME) && !(r->flags & (F_GPU | F_GPUANNOT))) {
    int64_t num;
    if (step_number(&e->name, &num)) {
      size_t cap = (size_t)d->capsteps;
      if (grow((void **)&d->steps, &cap, (size_t)d->nsteps + 1, sizeof *d->steps)) return -1;
      d->capsteps = (int)cap;
      dv_step *s = &d->steps[d->nsteps++];
      s->seq = e->seq;
      s->ts = e->ts;
      s->dur = e->dur;
      s->number = num;
    } else {
      dv_note(d, I_STEP_NAME, e->seq, &e->name);
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- links */

static int corr_cmp(const void *a, const void *b) {
  const dv_corr *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void dv_links(dv_state *d) {
  if (d->ncorr > 1) qsort(d->corr, d->ncorr, sizeof *d->corr, corr_cmp);
  for (size_t i = 0; i < d->ncorr;) {
    size_t j = i;
    int64_t last_cpu = -1, last_gpu = -1;
    while (j < d->ncorr && d->corr[j].corr == d->corr[i].corr) {
      if (d->corr[j].gpu_like) last_gpu = d->corr[j].seq;
      else last_cpu = d->corr[j].seq;
      j++;
    }
    if (last_cpu >= 0 && last_gpu >= 0)
      for (size_t k = i; k < j; k++)
        d->link[d->corr[k].seq] = (int32_t)(d->corr[k].gpu_like ? last_cpu : last_gpu);
    i = j;
  }
}

/* ---------------------------------------------------------------- call stacks */

typedef struct dv_ep {
  int32_t group;
  uint32_t node; /* seq << 1 | is_end */
} dv_ep;

/* Endpoint order of HTA's call-stack builder (spec 1.17). */
static int ep_cmp_ctx(const dv_rec *rec, const dv_ep *a, const dv_ep *b) {
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  uint32_t ia = a->node >> 1, ib = b->node >> 1;
  int ea = a->node & 1, eb = b->node & 1;
  const dv_rec *ra = &rec[ia], *rb = &rec[ib];
  int64_t da = ra->dur > 0 ? ra->dur : 0, db = rb->dur > 0 ? rb->dur : 0;
  int64_t ta = ra->ts + (ea ? da : 0), tb = rb->ts + (eb ? db : 0);
  if (ta != tb) return ta < tb ? -1 : 1;
  if (ia == ib) return ea == eb ? 0 : (ea ? 1 : -1);
  int za = da == 0, zb = db == 0;
  if (za && zb) {
    if (!ea && !eb) return ia < ib ? -1 : 1;
    if (ea && eb) return ia > ib ? -1 : 1;
    return ea ? 1 : -1;
  }
  if (za) return eb ? -1 : 1;
  if (zb) return !ea ? -1 : 1;
  if (ea != eb) return ea ? -1 : 1;
  if (!ea) {
    if (da != db) return da > db ? -1 : 1;
    return ia < ib ? -1 : 1;
  }
  if (da != db) return da < db ? -1 : 1;
  return ia > ib ? -1 : 1;
}

/* qsort has no context argument in C11: sort with a local merge sort instead. */
static void ep_sort(const dv_rec *rec, dv_ep *a, dv_ep *tmp, size_t n) {
  if (n < 16) {
    for (size_t i = 1; i < n; i++) {
      dv_ep k = a[i];
      size_t j = i;
      while (j > 0 && ep_cmp_ctx(rec, &k, &a[j - 1]) < 0) a[j] = a[j - 1], j--;
      a[j] = k;
    }
    return;
  }
  size_t h = n / 2;
  ep_sort(rec, a, tmp, h);
  ep_sort(rec, a + h, tmp, n - h);
  if (ep_cmp_ctx(rec, &a[h - 1], &a[h]) <= 0) return;
  memcpy(tmp, a, h * sizeof *a);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) a[k++] = ep_cmp_ctx(rec, &a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
  while (i < h) a[k++] = tmp[i++];
}

typedef struct dv_group_info {
  int all_gpu, all_pid0, all_tid0, any;
  int has_pstep, has_autograd;
} dv_group_info;

static int dv_callstacks(dv_state *d) {
  size_t ng = d->groups.n;
  dv_group_info *gi = calloc(ng ? ng : 1, sizeof *gi);
  if (!gi) return -1;
  for (size_t g = 0; g < ng; g++) gi[g].all_gpu = gi[g].all_pid0 = gi[g].all_tid0 = 1;
  for (size_t s = 0; s < d->n; s++) {
    const dv_rec *r = &d->rec[s];
    if (!(r->flags & F_KEPT) || r->group < 0) continue;
    dv_group_info *g = &gi[r->group];
    g->any = 1;
    if (!(r->flags & F_GPU)) g->all_gpu = 0;
    if (!(r->flags & F_PID0)) g->all_pid0 = 0;
    if (!(r->flags & F_TID0)) g->all_tid0 = 0;
  }
  size_t nn = 0;
  for (size_t s = 0; s < d->n; s++) {
    dv_rec *r = &d->rec[s];
    if (!(r->flags & F_KEPT) || (r->flags & F_GPU) || r->group < 0) continue;
    const dv_group_info *g = &gi[r->group];
    if (g->all_gpu || g->all_pid0 || g->all_tid0) continue;
    r->flags |= F_NODE;
    if (r->dur < 0) dv_note(d, I_NEGDUR_STACK, (int64_t)s, NULL);
    nn++;
  }
  dv_ep *ep = malloc((2 * nn + 1) * sizeof *ep);
  dv_ep *tmp = malloc((nn + 1) * sizeof *tmp);
  int64_t *stack = malloc((nn + 1) * sizeof *stack);
  if (!ep || !tmp || !stack) {
    free(ep), free(tmp), free(stack), free(gi);
    return -1;
  }
  size_t k = 0;
  for (size_t s = 0; s < d->n; s++) {
    if (!(d->rec[s].flags & F_NODE)) continue;
    ep[k].group = d->rec[s].group, ep[k++].node = (uint32_t)s << 1;
    ep[k].group = d->rec[s].group, ep[k++].node = (uint32_t)s << 1 | 1;
  }
  ep_sort(d->rec, ep, tmp, k);
  size_t sp = 0;
  int32_t cur = -1;
  for (size_t i = 0; i < k; i++) {
    if (ep[i].group != cur) cur = ep[i].group, sp = 0;
    int64_t s = ep[i].node >> 1;
    if (ep[i].node & 1) {
      if (sp) sp--;
    } else {
      d->parent[s] = sp ? (int32_t)stack[sp - 1] : -1;
      stack[sp++] = s;
      if (d->rec[s].flags & F_PSTEP) gi[cur].has_pstep = 1;
      if (d->rec[s].flags & F_AUTOGRAD) gi[cur].has_autograd = 1;
    }
  }
  free(tmp);
  free(stack);

  /* Backward thread roots go under the main thread's backward (or step) rows. */
  int nmain = 0, nbwd = 0;
  int32_t gmain = -1, gbwd = -1;
  for (size_t g = 0; g < ng; g++) {
    if (gi[g].has_pstep) nmain++, gmain = (int32_t)g;
    else if (gi[g].has_autograd) nbwd++, gbwd = (int32_t)g;
  }
  if (nmain == 1 && nbwd == 1) {
    int have_mark = 0;
    for (size_t s = 0; s < d->n; s++)
      if ((d->rec[s].flags & F_NODE) && d->rec[s].group == gmain && (d->rec[s].flags & F_BWDMARK))
        have_mark = 1;
    uint32_t want = have_mark ? F_BWDMARK : F_PSTEP;
    /* the backward thread's roots before any re-parenting; a later marker wins */
    size_t nroots = 0;
    for (size_t s = 0; s < d->n; s++)
      if ((d->rec[s].flags & F_NODE) && d->rec[s].group == gbwd && d->parent[s] == -1)
        ep[nroots++].node = (uint32_t)s;
    for (size_t m = 0; m < d->n; m++) {
      const dv_rec *mr = &d->rec[m];
      if (!(mr->flags & F_NODE) || mr->group != gmain || !(mr->flags & want)) continue;
      int64_t mend = mr->ts + mr->dur;
      for (size_t i = 0; i < nroots; i++) {
        const dv_rec *r = &d->rec[ep[i].node];
        if (r->ts >= mr->ts && r->ts + r->dur <= mend) d->parent[ep[i].node] = (int32_t)m;
      }
    }
  }
  free(gi);

  /* Depths from the parent chains (parents may now cross groups). */
  size_t sp2 = 0;
  for (size_t s = 0; s < d->n; s++) {
    if (!(d->rec[s].flags & F_NODE) || d->depth[s] >= 0) continue;
    int64_t x = (int64_t)s;
    while (x >= 0 && d->depth[x] < 0) {
      ep[sp2++].node = (uint32_t)x; /* reuse ep as a scratch stack */
      x = d->parent[x];
    }
    int32_t base = x >= 0 ? d->depth[x] : -1;
    while (sp2) d->depth[ep[--sp2].node] = ++base;
  }
  /* GPU rows under their launch (D14). */
  for (size_t s = 0; s < d->n; s++) {
    const dv_rec *r = &d->rec[s];
    int32_t l = d->link[s];
    if (!(r->flags & F_KEPT) || !(r->flags & F_GPU) || l < 0 || !(d->rec[l].flags & F_NODE))
      continue;
    d->parent[s] = l;
    d->depth[s] = d->depth[l] + 1;
  }
  free(ep);
  return 0;
}

/* ---------------------------------------------------------------- iterations */

static int step_cmp(const void *a, const void *b) {
  const dv_step *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int dv_iterations(dv_state *d) {
  int n = d->nsteps;
  if (n == 0) return 0;
  /* by ts, with the running max of ends, to find every step containing a ts */
  dv_step *st = malloc((size_t)n * sizeof *st);
  int64_t *maxend = malloc((size_t)n * sizeof *maxend);
  int *orig = malloc((size_t)n * sizeof *orig);
  if (!st || !maxend || !orig) {
    free(st), free(maxend), free(orig);
    return -1;
  }
  memcpy(st, d->steps, (size_t)n * sizeof *st);
  qsort(st, (size_t)n, sizeof *st, step_cmp);
  for (int i = 0; i < n; i++) {
    int64_t e = st[i].ts + st[i].dur;
    maxend[i] = i && maxend[i - 1] > e ? maxend[i - 1] : e;
    for (int j = 0; j < n; j++) /* index into d->steps (row order) */
      if (d->steps[j].seq == st[i].seq) orig[i] = j;
  }
  for (size_t s = 0; s < d->n; s++) {
    const dv_rec *r = &d->rec[s];
    if (!(r->flags & F_HAS_TS) || (r->flags & F_GPU)) continue;
    int lo = 0, hi = n; /* first index with ts > r->ts */
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (st[mid].ts <= r->ts) lo = mid + 1;
      else hi = mid;
    }
    int best = -1;
    for (int i = lo - 1; i >= 0 && maxend[i] > r->ts; i--)
      if (r->ts < st[i].ts + st[i].dur && orig[i] > best) best = orig[i];
    d->iter[s] = best;
  }
  for (size_t s = 0; s < d->n; s++)
    if ((d->rec[s].flags & F_GPU) && d->link[s] >= 0) d->iter[s] = d->iter[d->link[s]];
  free(st), free(maxend), free(orig);
  return 0;
}

/* ---------------------------------------------------------------- finish */

static int bdur_cmp(const void *a, const void *b) {
  const dv_bdur *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int dv_finish(dv_state *d) {
  size_t n = d->n ? d->n : 1;
  d->link = malloc(n * sizeof *d->link);
  d->parent = malloc(n * sizeof *d->parent);
  d->depth = malloc(n * sizeof *d->depth);
  d->iter = malloc(n * sizeof *d->iter);
  d->skip = calloc(n, 1);
  d->ord = malloc(n * sizeof *d->ord);
  if (!d->link || !d->parent || !d->depth || !d->iter || !d->skip || !d->ord) return -1;
  for (size_t i = 0; i < d->n; i++) d->link[i] = d->parent[i] = d->depth[i] = d->iter[i] = -1;
  for (size_t g = 0; g < d->nbgroups; g++)
    for (int i = 0; i < d->bstack_n[g]; i++) dv_note(d, I_UNMATCHED_B, d->bstack[g][i], NULL);
  for (size_t s = 0; s < d->n; s++) {
    uint32_t f = d->rec[s].flags;
    if ((f & (F_B | F_E)) == (F_B | F_E)) d->skip[s] = 1;
    else if (f & F_E) dv_note(d, I_UNMATCHED_E, (int64_t)s, NULL);
  }
  if (d->nbdur > 1) qsort(d->bdur, d->nbdur, sizeof *d->bdur, bdur_cmp);
  int32_t nstored = 0;
  for (size_t s = 0; s < d->n; s++)
    d->ord[s] = (d->rec[s].flags & F_STORED) && !d->skip[s] ? nstored++ : -1;
  dv_links(d);
  if (dv_callstacks(d)) return -1;
  if (dv_iterations(d)) return -1;
  free(d->rec);
  d->rec = NULL;
  free(d->corr);
  d->corr = NULL;
  return 0;
}

void dv_get(const dv_state *d, int64_t seq, dv_row *out) {
  memset(out, 0, sizeof *out);
  out->link = out->parent = out->depth = out->ord = -1;
  if (seq < 0 || (size_t)seq >= d->n) return;
  out->ord = d->ord[seq];
  out->link = d->link[seq] >= 0 ? d->ord[d->link[seq]] : -1;
  out->parent = d->parent[seq] >= 0 ? d->ord[d->parent[seq]] : -1;
  out->depth = d->depth[seq];
  if (d->iter[seq] >= 0) {
    out->has_iteration = 1;
    out->iteration = d->steps[d->iter[seq]].number;
  }
  out->skip = d->skip[seq];
  size_t lo = 0, hi = d->nbdur;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d->bdur[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  if (lo < d->nbdur && d->bdur[lo].seq == seq) {
    out->has_dur = 1;
    out->dur = d->bdur[lo].dur;
  }
}

int64_t dv_ordinal(const dv_state *d, int64_t seq) {
  return seq >= 0 && (size_t)seq < d->n ? d->ord[seq] : -1;
}

int dv_time_span(const dv_state *d, int64_t *min_ts, int64_t *max_end) {
  *min_ts = d->min_ts;
  *max_end = d->max_end;
  return d->has_span;
}

const dv_step *dv_steps(const dv_state *d, int *n) {
  *n = d->nsteps;
  return d->steps;
}

const char *dv_device_type(const dv_state *d, const char *backend) {
  if (backend && strstr(backend, "mtia:hccl")) return "MTIA";
  if (d->has_cuda_launch) return "NVIDIA GPU";
  if (d->has_hip_launch) return "AMD GPU";
  if (d->has_mtia_launch) return "MTIA";
  return "UNKNOWN GPU";
}

const dv_issue *dv_issues(const dv_state *d, int *n) {
  *n = I_NISSUE;
  return d->issues;
}

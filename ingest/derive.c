/*
** derive.c: correlation links, call stacks, iterations and B/E pairing of one
** trace file. See derive.h for the rules and the memory bound.
*/
#include "derive.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xsort.h"

/* event classes and name flags */
#define F_STORED 0x0001u   /* a row of the event table (unless an E folded into its B) */
#define F_KEPT 0x0002u     /* HTA keeps it: dur and cat, cat != Trace */
#define F_GPU 0x0004u      /* kept GPU work (D5) */
#define F_B 0x0008u        /* ph B */
#define F_E 0x0010u        /* ph E */
#define F_PSTEP 0x0020u    /* name starts with "ProfilerStep#" */
#define F_AUTOGRAD 0x0040u /* name contains "autograd::" */
#define F_BWDMARK 0x0080u  /* name starts with "## backward ##" */
#define F_GPULIKE 0x0100u  /* a link's GPU side (rule 2) */
#define F_CORR 0x0200u     /* has a correlation: may be a link partner */

/* A part's seq and ordinals carry this bit until dv_join_part() knows where it starts. */
#define DV_PART_BIT 0x40000000

/* ------------------------------------------------------------ records */

typedef struct dv_groups { /* "pid\x1ftid" -> group number, shared by a file's parts */
  pthread_mutex_t mu;
  sm_map map;
  int refs;
} dv_groups;

typedef struct dv_open { /* a B event waiting for its E */
  int64_t seq, ts;
} dv_open;

typedef struct dv_group {                    /* one (pid, tid) */
  uint8_t kept, all_gpu, all_pid0, all_tid0; /* over the group's kept rows */
  uint8_t pstep, autograd, bwdmark;          /* over its call-stack candidates */
  int64_t negdur, negdur_first;              /* candidates with dur < 0 */
  dv_open *open;
  int nopen, capopen;
} dv_group;

typedef struct dv_corr { /* sorted by (corr, seq) */
  int64_t corr, ts;
  int32_t seq, ord, group;
  uint32_t flags;
} dv_corr;

typedef struct dv_ep { /* call-stack endpoint, sorted by HTA's comparator */
  int64_t ts, dur;
  int32_t group;
  uint32_t node; /* seq << 1 | is_end */
  int32_t ord;
  uint32_t flags;
} dv_ep;

typedef struct dv_mark { /* a candidate parent of backward-thread roots */
  int64_t ts, dur;
  int32_t seq, ord, group, depth;
  uint32_t flags;
} dv_mark;

enum { J_NODE, J_REQUEST };
typedef struct dv_join { /* a GPU row asking for the depth of its launch */
  int32_t key, type;     /* key: the launch's seq */
  int32_t seq, ord, depth;
} dv_join;

typedef struct dv_base { /* where a joined part starts in the whole */
  int32_t seq, ord;
} dv_base;

enum { O_SKIP, O_BDUR, O_LINK, O_PARENT, O_ITER };
typedef struct dv_out { /* one derived value of event seq, sorted by (seq, kind) */
  int32_t seq, kind;
  int64_t v; /* O_PARENT: depth << 32 | parent ordinal */
} dv_out;

enum { I_NEGDUR, I_UNMATCHED_B, I_UNMATCHED_E, I_NO_TS, I_STEP_NAME, I_NEGDUR_STACK, I_NISSUE };

struct dv_state {
  size_t mem;
  size_t n; /* 1 + the largest seq */
  int32_t nstored;
  dv_groups *reg;
  int part;    /* a part of a file (dv_new_part): seq and ordinals carry DV_PART_BIT */
  dv_group *g; /* by group number (of reg): this state's view of each */
  size_t ng, capg;
  dv_step *steps;
  int nsteps, capsteps;
  dv_mark *marks;
  size_t nmarks, capmarks;
  xs_sorter *corr, *ep, *join, *out;
  /* the derived values by seq while they fit the budget, else as records in out */
  int32_t *link, *parent, *depth, *iter; /* iter: index into steps */
  /* steps by ts, with the running max of their ends */
  dv_step *st;
  int64_t *maxend;
  int *orig;
  /* the full pass */
  xs_reader *rd;
  const dv_out *pend;
  long long spilled; /* bytes the freed sorts wrote to their temporary files */
  dv_base base;      /* where the joined part starts */
  int32_t next_ord;
  int64_t min_ts, max_end;
  int has_span;
  int has_cuda_launch, has_hip_launch, has_mtia_launch;
  /* the last (pid, tid) seen and its group: consecutive events mostly share a thread */
  int last_valid, last_has_pid, last_has_tid;
  int64_t last_pid, last_tid;
  int32_t last_group;
  dv_issue issues[I_NISSUE];
  char err[200];
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

/* Records the first failure; the sorters' messages say what went wrong with their file. */
static int dv_fail(dv_state *d, const char *what) {
  if (!d->err[0]) snprintf(d->err, sizeof d->err, "%s", what ? what : "out of memory");
  return -1;
}

static int dv_sort_fail(dv_state *d, const xs_sorter *s) { return dv_fail(d, xs_error(s)); }

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

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

static int is_meta(char ph) {
  return ph == 'M' || ph == 'C' || ph == 's' || ph == 't' || ph == 'f';
}

/* What both passes agree on: F_STORED, F_B, F_E, F_KEPT, F_GPU (0: no row). */
static unsigned dv_class(const kt_event *e) {
  if (is_meta(e->ph) || !(e->flags & KT_HAS_TS)) return 0;
  if (e->ph == 'B') return F_STORED | F_B;
  if (e->ph == 'E') return F_STORED | F_E;
  unsigned f = e->flags;
  if (!(f & KT_HAS_DUR) || !(f & KT_HAS_CAT) || span_eq(&e->cat, "Trace")) return F_STORED;
  return F_STORED | F_KEPT | ((f & KT_GPU_WORK) ? F_GPU : 0);
}

/* ------------------------------------------------------------ comparators */

static int corr_cmp(const void *a, const void *b) {
  const dv_corr *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Endpoints at one time fall in three classes: 0 the end of a node with dur > 0, 1 the
** start of one, 2 either end of a zero-length node (a negative dur counts as zero). */
static int ep_class(const dv_ep *e) { return e->dur > 0 ? !(e->node & 1) : 2; }
static int64_t ep_time(const dv_ep *e) {
  return e->ts + ((e->node & 1) && e->dur > 0 ? e->dur : 0);
}

/* Endpoint order of HTA's call-stack builder (spec 1.17), made total. HTA's comparator
** is cyclic at one time (end < start, start < zero-length, zero-length < end), so its
** order there depends on the sort's path; this one is: ends (shorter first, then
** later seq), starts (longer first, then earlier seq), zero-length starts (earlier seq
** first), zero-length ends (later seq first). dv_sweep() then places zero-length nodes
** where HTA's sort puts them: inside a node that ends at their time, if any (also when
** another starts then, the cyclic case, as HTA's outputs on the corpus show), else
** inside the last node started. */
static int ep_cmp(const void *pa, const void *pb) {
  const dv_ep *a = pa, *b = pb;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  int64_t ta = ep_time(a), tb = ep_time(b);
  if (ta != tb) return ta < tb ? -1 : 1;
  int ca = ep_class(a), cb = ep_class(b);
  if (ca != cb) return ca < cb ? -1 : 1;
  uint32_t ia = a->node >> 1, ib = b->node >> 1;
  int ea = a->node & 1, eb = b->node & 1;
  if (ca == 2 && ea != eb) return ea ? 1 : -1;
  if (ca == 0 && a->dur != b->dur) return a->dur < b->dur ? -1 : 1;
  if (ca == 1 && a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
  if (ia == ib) return 0;
  int later_first = ca == 0 || (ca == 2 && ea);
  return (ia < ib) == !later_first ? -1 : 1;
}

static int join_cmp(const void *a, const void *b) {
  const dv_join *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->type != y->type) return x->type < y->type ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static int out_cmp(const void *a, const void *b) {
  const dv_out *x = a, *y = b;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return (x->kind > y->kind) - (x->kind < y->kind);
}

/* ------------------------------------------------------------ life cycle */

static dv_state *dv_alloc(size_t mem, dv_groups *reg) {
  dv_state *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->mem = mem;
  if (!reg) {
    if (!(reg = calloc(1, sizeof *reg)) || pthread_mutex_init(&reg->mu, NULL)) {
      free(reg);
      free(d);
      return NULL;
    }
    sm_init(&reg->map);
  }
  d->reg = reg;
  reg->refs++; /* parts are made and freed on their whole's thread */
  for (int i = 0; i < I_NISSUE; i++) {
    d->issues[i].code = dv_issue_text[i].code;
    d->issues[i].message = dv_issue_text[i].message;
    d->issues[i].first_seq = -1;
  }
  /* the scan fills corr and ep; out and join fill while they are read */
  d->corr = xs_new(sizeof(dv_corr), corr_cmp, mem / 4);
  d->ep = xs_new(sizeof(dv_ep), ep_cmp, mem / 2);
  d->out = xs_new(sizeof(dv_out), out_cmp, mem / 8);
  d->join = xs_new(sizeof(dv_join), join_cmp, mem / 8);
  if (!d->corr || !d->ep || !d->out || !d->join) {
    dv_free(d);
    return NULL;
  }
  return d;
}

dv_state *dv_new(size_t mem) { return dv_alloc(mem, NULL); }

dv_state *dv_new_part(dv_state *whole, size_t mem) {
  dv_state *d = dv_alloc(mem, whole->reg);
  if (d) d->part = 1;
  return d;
}

void dv_free(dv_state *d) {
  if (!d) return;
  if (--d->reg->refs == 0) {
    sm_free(&d->reg->map);
    pthread_mutex_destroy(&d->reg->mu);
    free(d->reg);
  }
  for (size_t i = 0; i < d->ng; i++) free(d->g[i].open);
  free(d->g);
  free(d->steps);
  free(d->marks);
  xs_close(d->rd);
  xs_free(d->corr);
  xs_free(d->ep);
  xs_free(d->join);
  xs_free(d->out);
  free(d->link);
  free(d->parent);
  free(d->depth);
  free(d->iter);
  free(d->st);
  free(d->maxend);
  free(d->orig);
  free(d);
}

const char *dv_error(const dv_state *d) { return d->err[0] ? d->err : "out of memory"; }

/* ------------------------------------------------------------ the scan pass */

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

/* Makes d->g hold groups [0, n), the new ones as no row has touched them yet. */
static int group_room(dv_state *d, size_t n) {
  if (n <= d->ng) return 0;
  if (grow((void **)&d->g, &d->capg, n, sizeof *d->g)) return -1;
  for (; d->ng < n; d->ng++) {
    dv_group *x = &d->g[d->ng];
    memset(x, 0, sizeof *x);
    x->all_gpu = x->all_pid0 = x->all_tid0 = 1;
  }
  return 0;
}

/* The (pid, tid) group of e: -1 when it has neither, -2 out of memory. */
static int32_t group_of(dv_state *d, const kt_event *e) {
  unsigned f = e->flags;
  int has_pid = (f & KT_HAS_PID) != 0, has_tid = (f & KT_HAS_TID) != 0;
  int ints = (!has_pid || !e->pid.is_str) && (!has_tid || !e->tid.is_str);
  if (ints && d->last_valid && d->last_has_pid == has_pid && d->last_has_tid == has_tid &&
      (!has_pid || d->last_pid == e->pid.i) && (!has_tid || d->last_tid == e->tid.i))
    return d->last_group;
  if (!has_pid && !has_tid) return -1;
  char key[512];
  size_t at = value_key(key, 0, sizeof key, &e->pid, has_pid);
  key[at++] = 0x1f;
  at = value_key(key, at, sizeof key, &e->tid, has_tid);
  int added;
  pthread_mutex_lock(&d->reg->mu);
  int64_t g = sm_intern(&d->reg->map, key, at, &added);
  pthread_mutex_unlock(&d->reg->mu);
  if (g < 0 || g >= INT32_MAX || group_room(d, (size_t)g + 1)) return -2;
  d->last_valid = ints;
  d->last_has_pid = has_pid, d->last_has_tid = has_tid;
  d->last_pid = has_pid ? e->pid.i : 0, d->last_tid = has_tid ? e->tid.i : 0;
  d->last_group = (int32_t)g;
  return (int32_t)g;
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

static void drop_sort(dv_state *d, xs_sorter **s) {
  if (*s) d->spilled += xs_spilled(*s);
  xs_free(*s);
  *s = NULL;
}

long long dv_spilled(const dv_state *d) { return d->spilled + (d->out ? xs_spilled(d->out) : 0); }

static int out_add(dv_state *d, int32_t seq, int kind, int64_t v) {
  dv_out o = {seq, kind, v};
  return xs_add(d->out, &o) ? dv_sort_fail(d, d->out) : 0;
}

/* B and E: an E closes the last open B of its thread, which takes ts(E) - ts(B) as dur. */
static int dv_add_be(dv_state *d, const kt_event *e, int32_t seq, unsigned cls, int32_t group) {
  dv_group *g = group >= 0 ? &d->g[group] : NULL;
  if (cls & F_B) {
    d->nstored++;
    if (!g) return 0;
    if (g->nopen == g->capopen) {
      size_t c = (size_t)g->capopen;
      if (grow((void **)&g->open, &c, c + 1, sizeof *g->open) || c > INT32_MAX)
        return dv_fail(d, 0);
      g->capopen = (int)c;
    }
    g->open[g->nopen].seq = seq;
    g->open[g->nopen++].ts = e->ts;
    return 0;
  }
  if (g && g->nopen) {
    dv_open b = g->open[--g->nopen];
    int64_t dur;
    if (__builtin_sub_overflow(e->ts, b.ts, &dur)) dur = INT64_MAX; /* absurd, but defined */
    return out_add(d, seq, O_SKIP, 0) || out_add(d, (int32_t)b.seq, O_BDUR, dur) ? -1 : 0;
  }
  dv_note(d, I_UNMATCHED_E, seq, NULL);
  d->nstored++;
  return 0;
}

/* A kept row other than GPU work in a thread: a node of the call stack unless its
** thread fails the test of rule 3 (known at the end). */
static int dv_add_candidate(dv_state *d, const kt_event *e, int32_t seq, int32_t group, int32_t ord,
                            uint32_t flags) {
  dv_group *g = &d->g[group];
  if (flags & F_PSTEP) g->pstep = 1;
  if (flags & F_AUTOGRAD) g->autograd = 1;
  if (flags & F_BWDMARK) g->bwdmark = 1;
  if (e->dur < 0 && g->negdur++ == 0) g->negdur_first = seq;
  dv_ep ep = {e->ts, e->dur, group, (uint32_t)seq << 1, ord, flags};
  if (xs_add(d->ep, &ep)) return dv_sort_fail(d, d->ep);
  ep.node |= 1;
  if (xs_add(d->ep, &ep)) return dv_sort_fail(d, d->ep);
  if (!(flags & (F_PSTEP | F_BWDMARK))) return 0;
  if (grow((void **)&d->marks, &d->capmarks, d->nmarks + 1, sizeof *d->marks)) return dv_fail(d, 0);
  dv_mark m = {e->ts, e->dur, seq, ord, group, -1, flags};
  d->marks[d->nmarks++] = m;
  return 0;
}

int dv_add(dv_state *d, const kt_event *e) {
  if (d->err[0]) return -1;
  if (e->seq < 0 || e->seq >= INT32_MAX) return dv_fail(d, "more than 2^31 events in one file");
  unsigned cls = dv_class(e);
  /* A part cannot pair an E with a B before it, nor number 2^30 events. */
  if (d->part && ((cls & (F_B | F_E)) || e->seq >= DV_PART_BIT || d->nstored >= DV_PART_BIT))
    return 1;
  int32_t seq = (int32_t)e->seq | (d->part ? DV_PART_BIT : 0);
  if ((size_t)e->seq >= d->n) d->n = (size_t)e->seq + 1;
  if (!cls) {
    if (!is_meta(e->ph)) dv_note(d, I_NO_TS, seq, &e->name);
    return 0;
  }
  int32_t group = group_of(d, e);
  if (group == -2) return dv_fail(d, 0);
  if (cls & (F_B | F_E)) return dv_add_be(d, e, seq, cls, group);
  int32_t ord = d->nstored++ | (d->part ? DV_PART_BIT : 0);
  if (!(cls & F_KEPT)) return 0;
  unsigned f = e->flags;
  uint32_t flags = cls;
  if (e->dur < 0) dv_note(d, I_NEGDUR, seq, &e->name);
  if (span_prefix(&e->name, "ProfilerStep#")) flags |= F_PSTEP;
  if (span_contains(&e->name, "autograd::")) flags |= F_AUTOGRAD;
  if (span_prefix(&e->name, "## backward ##")) flags |= F_BWDMARK;
  if (span_eq(&e->name, "cudaLaunchKernel")) d->has_cuda_launch = 1;
  if (span_eq(&e->name, "hipLaunchKernel")) d->has_hip_launch = 1;
  if (span_eq(&e->name, "runFunction - job_prep_and_submit_for_execution")) d->has_mtia_launch = 1;
  int64_t end = e->ts + e->dur;
  if (!d->has_span || e->ts < d->min_ts) d->min_ts = e->ts;
  if (!d->has_span || end > d->max_end) d->max_end = end;
  d->has_span = 1;
  if (group >= 0) {
    dv_group *g = &d->g[group];
    g->kept = 1;
    if (!(cls & F_GPU)) g->all_gpu = 0;
    if (!(f & KT_HAS_PID) || e->pid.is_str || e->pid.i != 0) g->all_pid0 = 0;
    if (!(f & KT_HAS_TID) || e->tid.is_str || e->tid.i != 0) g->all_tid0 = 0;
  }
  if ((f & KT_HAS_CORRELATION) && e->correlation != -1) {
    int64_t stream = (f & KT_HAS_STREAM) ? e->stream : -1;
    if ((stream >= 0 && e->correlation >= 0) || span_eq(&e->name, "Event Sync") ||
        span_eq(&e->name, "Context Sync"))
      flags |= F_GPULIKE;
    flags |= F_CORR;
    dv_corr c = {e->correlation, e->ts, seq, ord, group, flags};
    if (xs_add(d->corr, &c)) return dv_sort_fail(d, d->corr);
  }
  if (!(cls & F_GPU) && group >= 0 && dv_add_candidate(d, e, seq, group, ord, flags)) return -1;
  if (span_prefix(&e->name, "ProfilerStep") && !(cls & F_GPU) &&
      !span_eq(&e->cat, "gpu_user_annotation")) {
    int64_t num;
    if (step_number(&e->name, &num)) {
      size_t cap = (size_t)d->capsteps;
      if (grow((void **)&d->steps, &cap, (size_t)d->nsteps + 1, sizeof *d->steps) ||
          cap > INT32_MAX)
        return dv_fail(d, 0);
      d->capsteps = (int)cap;
      dv_step s = {seq, ord, e->ts, e->dur, num};
      d->steps[d->nsteps++] = s;
    } else {
      dv_note(d, I_STEP_NAME, seq, &e->name);
    }
  }
  return 0;
}

/* ------------------------------------------------------------ joining parts */

/* A part's seq or ordinal V in the whole, the part starting at BASE. */
static int32_t in_whole(int32_t v, int32_t base) {
  return (v & DV_PART_BIT) ? (v & ~DV_PART_BIT) + base : v;
}

/* A part's records in the whole (xs_map): seq and ordinals moved to where it starts. */

static void corr_in_whole(void *rec, void *ctx) {
  dv_corr *x = rec;
  const dv_base *b = ctx;
  x->seq = in_whole(x->seq, b->seq);
  x->ord = in_whole(x->ord, b->ord);
}

static void ep_in_whole(void *rec, void *ctx) {
  dv_ep *x = rec;
  const dv_base *b = ctx;
  x->node = (uint32_t)in_whole((int32_t)(x->node >> 1), b->seq) << 1 | (x->node & 1);
  x->ord = in_whole(x->ord, b->ord);
}

int dv_join_part(dv_state *a, dv_state *b, int64_t base) {
  if (a->err[0] || b->err[0] || !b->part || a->part || b->reg != a->reg || base < 0 ||
      base >= DV_PART_BIT || (int64_t)b->n > INT32_MAX - base ||
      (int64_t)a->nstored + b->nstored >= INT32_MAX)
    return 1;
  int32_t sb = (int32_t)base, ob = a->nstored;
  a->base.seq = sb, a->base.ord = ob;
  if (group_room(a, b->ng)) return dv_fail(a, 0);
  for (size_t i = 0; i < b->ng; i++) {
    dv_group *x = &a->g[i];
    const dv_group *y = &b->g[i];
    x->kept |= y->kept, x->pstep |= y->pstep, x->autograd |= y->autograd;
    x->bwdmark |= y->bwdmark;
    x->all_gpu &= y->all_gpu, x->all_pid0 &= y->all_pid0, x->all_tid0 &= y->all_tid0;
    if (y->negdur && !x->negdur) x->negdur_first = in_whole((int32_t)y->negdur_first, sb);
    x->negdur += y->negdur;
  }
  size_t cap = (size_t)a->capsteps;
  if (grow((void **)&a->steps, &cap, (size_t)a->nsteps + (size_t)b->nsteps, sizeof *a->steps) ||
      cap > INT32_MAX ||
      grow((void **)&a->marks, &a->capmarks, a->nmarks + b->nmarks, sizeof *a->marks))
    return dv_fail(a, 0);
  a->capsteps = (int)cap;
  for (int i = 0; i < b->nsteps; i++) {
    dv_step x = b->steps[i];
    x.seq = in_whole((int32_t)x.seq, sb), x.ord = in_whole((int32_t)x.ord, ob);
    a->steps[a->nsteps++] = x;
  }
  for (size_t i = 0; i < b->nmarks; i++) {
    dv_mark x = b->marks[i];
    x.seq = in_whole(x.seq, sb), x.ord = in_whole(x.ord, ob);
    a->marks[a->nmarks++] = x;
  }
  for (int i = 0; i < I_NISSUE; i++) {
    dv_issue *x = &a->issues[i];
    const dv_issue *y = &b->issues[i];
    if (!y->count) continue;
    if (!x->count) {
      x->first_seq = in_whole((int32_t)y->first_seq, sb);
      memcpy(x->example, y->example, sizeof x->example);
    }
    x->count += y->count;
  }
  if (b->has_span) {
    if (!a->has_span || b->min_ts < a->min_ts) a->min_ts = b->min_ts;
    if (!a->has_span || b->max_end > a->max_end) a->max_end = b->max_end;
    a->has_span = 1;
  }
  a->has_cuda_launch |= b->has_cuda_launch;
  a->has_hip_launch |= b->has_hip_launch;
  a->has_mtia_launch |= b->has_mtia_launch;
  if (b->n) a->n = (size_t)base + b->n;
  a->nstored += b->nstored;
  /* b's records keep their order among a's (DV_PART_BIT): a's sorts read them as they are */
  if (xs_absorb(a->corr, b->corr, corr_in_whole, &a->base)) return dv_sort_fail(a, a->corr);
  b->corr = NULL;
  if (xs_absorb(a->ep, b->ep, ep_in_whole, &a->base)) return dv_sort_fail(a, a->ep);
  b->ep = NULL;
  return 0;
}

/* ------------------------------------------------------------ derived values */

/* Sets a derived value of event seq: in the arrays when they exist, else as a record. */
static int put(dv_state *d, int kind, int32_t seq, int32_t a, int32_t b) {
  if (d->link && (size_t)seq < d->n) {
    if (kind == O_LINK) d->link[seq] = a;
    else if (kind == O_ITER) d->iter[seq] = a;
    else d->parent[seq] = a, d->depth[seq] = b;
    return 0;
  }
  int64_t v = kind == O_PARENT ? (int64_t)((uint64_t)(uint32_t)b << 32 | (uint32_t)a) : a;
  return out_add(d, seq, kind, v);
}

/* The step (index into d->steps) whose span holds ts, the last in row order; -1. */
static int step_at(const dv_state *d, int64_t ts) {
  int lo = 0, hi = d->nsteps; /* first index with ts > the row's */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (d->st[mid].ts <= ts) lo = mid + 1;
    else hi = mid;
  }
  int best = -1;
  for (int i = lo - 1; i >= 0 && d->maxend[i] > ts; i--)
    if (ts < d->st[i].ts + d->st[i].dur && d->orig[i] > best) best = d->orig[i];
  return best;
}

static int step_cmp(const void *a, const void *b) {
  const dv_step *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static int dv_steps_by_ts(dv_state *d) {
  int n = d->nsteps;
  if (n == 0) return 0;
  d->st = malloc((size_t)n * sizeof *d->st);
  d->maxend = malloc((size_t)n * sizeof *d->maxend);
  d->orig = malloc((size_t)n * sizeof *d->orig);
  if (!d->st || !d->maxend || !d->orig) return dv_fail(d, 0);
  memcpy(d->st, d->steps, (size_t)n * sizeof *d->st);
  qsort(d->st, (size_t)n, sizeof *d->st, step_cmp);
  for (int i = 0; i < n; i++) {
    int64_t e = d->st[i].ts + d->st[i].dur;
    d->maxend[i] = i && d->maxend[i - 1] > e ? d->maxend[i - 1] : e;
    int lo = 0, hi = n; /* d->steps is in seq order */
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (d->steps[mid].seq < d->st[i].seq) lo = mid + 1;
      else hi = mid;
    }
    d->orig[i] = lo;
  }
  return 0;
}

static int node_group(const dv_state *d, int32_t g) {
  const dv_group *x = &d->g[g];
  return x->kept && !x->all_gpu && !x->all_pid0 && !x->all_tid0;
}

/* The iteration GPU row `at` reads from its partner p (rule 4): rows go in seq order,
** and a GPU partner already passed has taken its own partner's (lc and lg, the last
** CPU-like and GPU-like rows of the correlation, are each other's partners). */
static int32_t iter_seen(const dv_state *d, const dv_corr *lc, const dv_corr *lg, const dv_corr *p,
                         int32_t at) {
  if (!(p->flags & F_GPU)) return step_at(d, p->ts);
  if (p->seq >= at) return -1;
  return iter_seen(d, lc, lg, p == lc ? lg : lc, p->seq);
}

/* Walks the correlations twice in step: reader a finds each one's last CPU-like and
** GPU-like rows, reader b then visits its rows again. */
static int dv_link_rows(dv_state *d, xs_reader *a, xs_reader *b) {
  const dv_corr *x = xs_next(a);
  while (x) {
    int64_t corr = x->corr;
    dv_corr lc = {0}, lg = {0};
    int has_c = 0, has_g = 0;
    size_t k = 0;
    for (; x && x->corr == corr; x = xs_next(a), k++) {
      if (x->flags & F_GPULIKE) lg = *x, has_g = 1;
      else lc = *x, has_c = 1;
    }
    for (; k; k--) {
      const dv_corr *y = xs_next(b);
      if (!y) return -1;
      if (!has_c || !has_g) continue;
      const dv_corr *p = (y->flags & F_GPULIKE) ? &lc : &lg;
      if (put(d, O_LINK, y->seq, p->ord, 0)) return -1;
      if (!(y->flags & F_GPU)) continue;
      int32_t it = iter_seen(d, &lc, &lg, p, y->seq);
      if (it >= 0 && put(d, O_ITER, y->seq, it, 0)) return -1;
      if (!(p->flags & F_GPU) && p->group >= 0 && node_group(d, p->group)) {
        dv_join j = {p->seq, J_REQUEST, y->seq, 0, 0};
        if (xs_add(d->join, &j)) return -1;
      }
    }
  }
  return 0;
}

/* Rule 2: links, the iterations of linked GPU rows, and requests for their launch's depth. */
static int dv_links(dv_state *d) {
  if (xs_sort(d->corr)) return dv_sort_fail(d, d->corr);
  xs_reader *a = xs_open(d->corr), *b = xs_open(d->corr);
  int rc = a && b ? dv_link_rows(d, a, b) : -1;
  xs_close(a);
  xs_close(b);
  if (xs_error(d->corr)) dv_sort_fail(d, d->corr);
  if (xs_error(d->join)) dv_sort_fail(d, d->join);
  if (rc && !d->err[0]) dv_fail(d, 0);
  return d->err[0] ? -1 : 0;
}

static dv_mark *mark_of(dv_state *d, int32_t seq) {
  size_t lo = 0, hi = d->nmarks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (d->marks[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo < d->nmarks && d->marks[lo].seq == seq ? &d->marks[lo] : NULL;
}

/* Sweeps the sorted endpoints: a start's parent is the top of its thread's stack,
** an end pops the top. ONLY >= 0: just that group, recording the markers' depths;
** else every node, with the backward thread's roots under their marker (GBWD).
** Zero-length nodes at a time where a node ends go inside the node that ended, as
** HTA's sort puts them before the ends: they are sorted last, so they run on a
** stack of their own above the height that time started with. */
static int dv_sweep(dv_state *d, int32_t only, int32_t gbwd) {
  xs_reader *r = xs_open(d->ep);
  if (!r) return dv_sort_fail(d, d->ep);
  int32_t *stack = NULL, *zstack = NULL, cur = -1, shift = 0, zshift = 0;
  size_t sp = 0, cap = 0, zsp = 0, zcap = 0;
  int nodes = 0, want_depth = xs_count(d->join) > 0;
  /* this time's start: stack height, top and shift; whether a node ended at it */
  int64_t t = 0;
  size_t sp0 = 0;
  int32_t top0 = -1, shift0 = 0;
  int fresh = 1, ended = 0, zmode = 0;
  const dv_ep *e;
  while ((e = xs_next(r))) {
    if (e->group != cur) cur = e->group, sp = 0, fresh = 1, nodes = node_group(d, cur);
    if (!nodes || (only >= 0 && cur != only)) continue;
    int c = ep_class(e);
    if (fresh || ep_time(e) != t) {
      t = ep_time(e), fresh = 0, ended = 0, zmode = 0, zsp = 0;
      sp0 = sp, top0 = sp ? stack[sp - 1] : -1, shift0 = shift;
    }
    if (c == 0) ended = 1;
    if (c == 2 && ended) zmode = 1;
    size_t *h = zmode ? &zsp : &sp;
    if (e->node & 1) {
      if (*h) (*h)--;
      continue;
    }
    int32_t seq = (int32_t)(e->node >> 1), parent = -1;
    size_t below = zmode ? sp0 : 0; /* nodes under this stack's bottom */
    int32_t *sh = zmode ? (below ? &shift0 : &zshift) : &shift;
    if (*h) {
      parent = (zmode ? zstack : stack)[*h - 1];
    } else if (below) {
      parent = top0;
    } else { /* a root: under the last marker (row order) that holds it */
      *sh = 0;
      for (size_t m = d->nmarks; only < 0 && cur == gbwd && m-- > 0;) {
        const dv_mark *k = &d->marks[m];
        if (e->ts >= k->ts && e->ts + e->dur <= k->ts + k->dur) {
          parent = k->ord, *sh = k->depth + 1;
          break;
        }
      }
    }
    int32_t depth = (int32_t)(below + *h) + *sh;
    if (only >= 0) {
      dv_mark *k = mark_of(d, seq);
      if (k) k->depth = depth;
    } else {
      if (put(d, O_PARENT, seq, parent, depth)) break;
      dv_join j = {seq, J_NODE, seq, e->ord, depth};
      if (want_depth && (e->flags & F_CORR) && xs_add(d->join, &j)) break;
    }
    if (zmode ? grow((void **)&zstack, &zcap, zsp + 1, sizeof *zstack)
              : grow((void **)&stack, &cap, sp + 1, sizeof *stack)) {
      dv_fail(d, 0);
      break;
    }
    (zmode ? zstack : stack)[(*h)++] = e->ord;
  }
  free(stack);
  free(zstack);
  xs_close(r);
  if (xs_error(d->ep)) dv_sort_fail(d, d->ep);
  if (xs_error(d->join)) dv_sort_fail(d, d->join);
  return d->err[0] ? -1 : 0;
}

/* Rule 3. */
static int dv_callstacks(dv_state *d) {
  if (xs_sort(d->ep)) return dv_sort_fail(d, d->ep);
  int nmain = 0, nbwd = 0;
  int32_t gmain = -1, gbwd = -1;
  for (size_t g = 0; g < d->ng; g++) {
    if (!node_group(d, (int32_t)g)) continue;
    const dv_group *x = &d->g[g];
    if (x->negdur) {
      dv_issue *is = &d->issues[I_NEGDUR_STACK];
      if (!is->count || x->negdur_first < is->first_seq) is->first_seq = x->negdur_first;
      is->count += x->negdur;
    }
    if (x->pstep) nmain++, gmain = (int32_t)g;
    else if (x->autograd) nbwd++, gbwd = (int32_t)g;
  }
  /* Backward thread roots go under the main thread's backward (or step) rows. */
  size_t nm = 0;
  if (nmain == 1 && nbwd == 1) {
    uint32_t want = d->g[gmain].bwdmark ? F_BWDMARK : F_PSTEP;
    for (size_t i = 0; i < d->nmarks; i++)
      if (d->marks[i].group == gmain && (d->marks[i].flags & want)) d->marks[nm++] = d->marks[i];
  }
  d->nmarks = nm;
  if (nm && dv_sweep(d, gmain, -1)) return -1;
  if (dv_sweep(d, -1, nm ? gbwd : -1)) return -1;
  /* GPU rows under their launch (D14) */
  if (!xs_count(d->join)) return 0;
  if (xs_sort(d->join)) return dv_sort_fail(d, d->join);
  xs_reader *r = xs_open(d->join);
  if (!r) return dv_sort_fail(d, d->join);
  const dv_join *j;
  int32_t key = -1, ord = -1, depth = -1;
  while ((j = xs_next(r))) {
    if (j->type == J_NODE) key = j->key, ord = j->ord, depth = j->depth;
    else if (j->key == key && put(d, O_PARENT, j->seq, ord, depth + 1)) break;
  }
  xs_close(r);
  if (xs_error(d->join)) dv_sort_fail(d, d->join);
  return d->err[0] ? -1 : 0;
}

int dv_finish(dv_state *d) {
  if (d->err[0]) return -1;
  for (size_t g = 0; g < d->ng; g++)
    for (int i = 0; i < d->g[g].nopen; i++) dv_note(d, I_UNMATCHED_B, d->g[g].open[i].seq, NULL);
  if (dv_steps_by_ts(d)) return -1;
  if (d->n <= d->mem / 16) { /* by seq: no sort of the results */
    size_t n = d->n ? d->n : 1;
    d->link = malloc(n * sizeof *d->link);
    d->parent = malloc(n * sizeof *d->parent);
    d->depth = malloc(n * sizeof *d->depth);
    d->iter = malloc(n * sizeof *d->iter);
    if (!d->link || !d->parent || !d->depth || !d->iter) return dv_fail(d, 0);
    for (size_t i = 0; i < d->n; i++) d->link[i] = d->parent[i] = d->depth[i] = d->iter[i] = -1;
  }
  if (dv_links(d)) return -1;
  drop_sort(d, &d->corr);
  if (dv_callstacks(d)) return -1;
  drop_sort(d, &d->ep);
  drop_sort(d, &d->join);
  if (xs_sort(d->out) || !(d->rd = xs_open(d->out))) return dv_sort_fail(d, d->out);
  d->pend = xs_next(d->rd);
  return xs_error(d->out) ? dv_sort_fail(d, d->out) : 0;
}

/* ------------------------------------------------------------ the full pass */

unsigned dv_row_class(const kt_event *e) { return dv_class(e); }

int dv_get(dv_state *d, const kt_event *e, dv_row *out) {
  return dv_get_row(d, e->seq, dv_class(e), e->ts, out);
}

int dv_get_row(dv_state *d, int64_t eseq, unsigned cls, int64_t ts, dv_row *out) {
  memset(out, 0, sizeof *out);
  out->link = out->parent = out->depth = out->ord = -1;
  if (!cls || eseq < 0 || eseq >= INT32_MAX) return 0;
  int32_t seq = (int32_t)eseq;
  int32_t it = -1;
  for (; d->pend && d->pend->seq <= seq; d->pend = xs_next(d->rd)) {
    const dv_out *o = d->pend;
    if (o->seq < seq) continue; /* an event the caller passed over */
    if (o->kind == O_SKIP) out->skip = 1;
    else if (o->kind == O_BDUR) out->has_dur = 1, out->dur = o->v;
    else if (o->kind == O_LINK) out->link = (int32_t)o->v;
    else if (o->kind == O_ITER) it = (int32_t)o->v;
    else {
      out->parent = (int32_t)(uint32_t)((uint64_t)o->v & 0xffffffffu);
      out->depth = (int32_t)(uint32_t)((uint64_t)o->v >> 32);
    }
  }
  if (!d->pend && xs_error(d->out)) return dv_sort_fail(d, d->out);
  if (out->skip) return 0;
  out->ord = d->next_ord++;
  if (d->link && (size_t)seq < d->n) {
    out->link = d->link[seq];
    out->parent = d->parent[seq];
    out->depth = d->depth[seq];
    it = d->iter[seq];
  }
  if (!(cls & F_GPU)) it = step_at(d, ts);
  if (it >= 0) out->has_iteration = 1, out->iteration = d->steps[it].number;
  return 0;
}

/* ------------------------------------------------------------ file facts */

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

/*
** job_diff_summary.c: hta_job_diff_summary, why the step time changed between two
** runs: the difference of the mean step time split into parts that add up exactly
** (integer ns) to it, and the operators whose GPU time changed most.
**
**   SELECT part, control_us, test_us, delta_us FROM hta_job_diff_summary('a', 'b')
**    WHERE split = 'role';
**   SELECT part, delta_us FROM hta_job_diff_summary('a', 'b') WHERE split = 'operator'
**    LIMIT 10;
**   SELECT part, change, delta_us FROM hta_job_diff_summary('a', 'b') WHERE split = 'finding';
**
** Parameters: job_diff_vtab.c (control_job, test_job, control_rank, test_rank,
** control_schema, test_schema): one trace per side.
** Columns: part, control_us, test_us, delta_us, split ('role', 'idle', 'finding',
** 'operator'), control_ns, test_ns, delta_ns (integers; NULL for operators), control_count,
** test_count (steps, for 'step'; findings, for 'finding'; GPU events, for 'operator'),
** share (delta_ns / the step difference), control_trace_id, test_trace_id, change
** ('appeared', 'disappeared', 'changed' for 'finding'; NULL elsewhere).
** Rows: split 'role' (the step first), 'idle', 'finding' (job_diff_account.c JSA-n),
** then 'operator'.
**
** Requirements (tests cite them as JS-n):
**  1. Steps are the TensorBoard plugin's (tb_steps.c TV-3..5) of each side's trace;
**     a side's step time is the mean of its steps' windows, in whole ns rounded down
**     (0 without steps). The first row, part 'step' of split 'role', gives both sides'
**     mean step time and their numbers of steps (control_count, test_count).
**  2. Split 'role': the plugin's eight roles (TV-7), each step's Kernel time divided
**     further by kernel type (kernel_type_rule: 'Kernel: COMPUTATION', ...): each
**     instant of a Kernel-role kernel goes to the first type active at it in the order
**     COMPUTATION, COMMUNICATION, MEMORY, OTHER. A part's per-step value is its total
**     over the steps divided by their number, apportioned in whole ns by largest
**     remainder (ties: part order) so that the parts add up exactly to JS-1's step
**     time; hence the deltas add up exactly to the step difference. Parts that are 0
**     on both sides are left out.
**  3. Split 'operator': every GPU event of the trace under the nearest cpu_op above it
**     in TraceLens's tree (job_diff.c JD-2; '(no operator)' for one without), per
**     operator name: GPU events (count) and their summed dur per step (the trace's
**     total divided by its number of steps, 1 without steps), in us; rows by
**     |delta_us| descending, then name. The call trees are loaded only for this split
**     (WHERE split = 'role', 'idle' or 'finding' reads each side's GPU rows alone).
**  4. share = delta_ns / the step difference, NULL when that is 0.
*/
#include <stdlib.h>
#include <string.h>

#include "diff/job_diff.h"
#include "findings/fd_run.h" /* the plugin's figures, handed to the findings run */
#include "tb/tb_model.h"     /* the plugin's steps and roles */
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

static const char jsSchema[] =
    "CREATE TABLE x(part TEXT, control_us REAL, test_us REAL, delta_us REAL, split TEXT,"
    " control_ns INTEGER, test_ns INTEGER, delta_ns INTEGER, control_count INTEGER,"
    " test_count INTEGER, share REAL, control_trace_id INTEGER, test_trace_id INTEGER,"
    " change TEXT)";

/* Kernel types in JS-2's priority order, then the seven other roles. */
#define JS_NKT 4
static const int jsTypes[JS_NKT] = {HTA_KT_COMPUTATION, HTA_KT_COMMUNICATION, HTA_KT_MEMORY,
                                    HTA_KT_OTHER};
#define JS_NPART (JS_NKT + TV_NROLE - 1)

/* One side's per-step parts (JS-1, JS-2). */
typedef struct js_roles {
  int64_t nsteps;
  int64_t step;           /* mean step time, ns */
  int64_t part[JS_NPART]; /* apportioned per-step ns */
} js_roles;

typedef struct js_seqtype {
  int64_t seq;
  int type;
} js_seqtype;

static int jsSeqCmp(const void *a, const void *b) {
  const js_seqtype *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The kernel type of each Kernel-role device event of M into per-type merged lists. */
static int jsKernelTypes(const tv_model *m, const hta_gpu_rows *g, hta_iv **iv, size_t *n) {
  js_seqtype *st = sqlite3_malloc64((g->n ? g->n : 1) * sizeof *st);
  int rc = SQLITE_OK;
  if (!st) return SQLITE_NOMEM;
  for (size_t i = 0; i < g->n; i++) st[i].seq = g->a[i].seq, st[i].type = g->a[i].kernel_type;
  qsort(st, g->n, sizeof *st, jsSeqCmp);
  for (int t = 0; t < JS_NKT; t++) {
    iv[t] = sqlite3_malloc64((m->ndev ? m->ndev : 1) * sizeof **iv);
    n[t] = 0;
    if (!iv[t]) rc = SQLITE_NOMEM;
  }
  for (size_t i = 0; rc == SQLITE_OK && i < m->ndev; i++) {
    const tv_dev *d = &m->devs[i];
    js_seqtype key = {d->seq, 0}, *hit;
    int type = HTA_KT_OTHER, t;
    if (d->kind != TV_KERNEL || d->comm) continue;
    hit = bsearch(&key, st, g->n, sizeof *st, jsSeqCmp);
    if (hit) type = hit->type;
    for (t = 0; t < JS_NKT - 1 && jsTypes[t] != type; t++) {
    }
    iv[t][n[t]++] = (hta_iv){d->ts, d->end};
  }
  for (int t = 0; rc == SQLITE_OK && t < JS_NKT; t++) n[t] = hta_iv_merge(iv[t], n[t]);
  sqlite3_free(st);
  return rc;
}

/* JS-1, JS-2 from M, the plugin's model of a trace; G holds its GPU rows with their
** kernel types. */
static int jsRoles(const tv_model *m, const hta_gpu_rows *g, js_roles *r) {
  hta_iv *iv[JS_NKT] = {0, 0, 0, 0}, *acc = 0, *piece = 0, *tmp = 0;
  size_t n[JS_NKT] = {0, 0, 0, 0}, nacc = 0;
  int64_t tot[JS_NPART];
  int rc = jsKernelTypes(m, g, iv, n);
  memset(r, 0, sizeof *r);
  memset(tot, 0, sizeof tot);
  if (rc == SQLITE_OK) {
    size_t all = 0;
    for (int k = 0; k < JS_NKT; k++) all += n[k];
    acc = sqlite3_malloc64((all ? all : 1) * sizeof *acc);
    tmp = sqlite3_malloc64((all ? all : 1) * sizeof *tmp);
    piece = sqlite3_malloc64((all ? all : 1) * sizeof *piece);
    if (!acc || !tmp || !piece) rc = SQLITE_NOMEM;
  }
  for (int k = 0; rc == SQLITE_OK && k < JS_NKT; k++) {
    /* this type's share: its union minus the earlier types' */
    size_t np = hta_iv_subtract(iv[k], n[k], acc, nacc, piece);
    for (size_t s = 0; s < m->nsteps; s++)
      tot[k] += hta_iv_clip_length(piece, np, m->steps[s].start, m->steps[s].end);
    memcpy(tmp, acc, nacc * sizeof *acc);
    memcpy(tmp + nacc, iv[k], n[k] * sizeof *tmp);
    nacc = hta_iv_merge(tmp, nacc + n[k]);
    memcpy(acc, tmp, nacc * sizeof *acc);
  }
  if (rc == SQLITE_OK && m->nsteps) {
    int64_t kernel = 0, typed = 0;
    for (size_t s = 0; s < m->nsteps; s++) {
      kernel += m->steps[s].cost[TV_KERNEL];
      for (int p = TV_MEMCPY; p < TV_NROLE; p++) tot[JS_NKT + p - 1] += m->steps[s].cost[p];
    }
    for (int k = 0; k < JS_NKT; k++) typed += tot[k];
    tot[JS_NKT - 1] += kernel - typed; /* 0: the types partition the Kernel role */
    r->nsteps = (int64_t)m->nsteps;
    jd_apportion(tot, JS_NPART, r->nsteps, r->part, &r->step);
  }
  for (int k = 0; k < JS_NKT; k++) sqlite3_free(iv[k]);
  sqlite3_free(acc);
  sqlite3_free(tmp);
  sqlite3_free(piece);
  return rc;
}

static const char *jsPartName(int p) {
  static const char *const kt[JS_NKT] = {"Kernel: COMPUTATION", "Kernel: COMMUNICATION",
                                         "Kernel: MEMORY", "Kernel: OTHER"};
  return p < JS_NKT ? kt[p] : tv_role_names[p - JS_NKT + 1];
}

/* ---------------------------------------------------------------- operators (JS-3) */
/* What one side computes, on its own connection (hta_par2). */
typedef struct js_side {
  const jd_pair *p;
  int k, ops;
  opt_ids ids;
  jd_side s;
  hta_gpu_rows gpu; /* without the operator split: the GPU rows alone, no call tree */
  js_roles r;
  jd_acct *acct;
} js_side;

typedef struct js_op {
  const char *name; /* owned by the side's rawnames, or static */
  int side;
  int64_t ns, count;
} js_op;

static int jsOpCmp(const void *a, const void *b) {
  const js_op *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : x->side - y->side;
}

typedef struct js_out {
  const char *name;
  double us[2];
  int64_t count[2];
} js_out;

static int jsOutCmp(const void *a, const void *b) {
  const js_out *x = a, *y = b;
  double dx = x->us[1] - x->us[0], dy = y->us[1] - y->us[0];
  if (dx < 0) dx = -dx;
  if (dy < 0) dy = -dy;
  if (dx != dy) return dx > dy ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int jsOperators(const jd_pair *p, const js_side *side, hta_table *out) {
  js_op *v = 0;
  js_out *o = 0;
  size_t nv = 0, av = 0, no = 0;
  int rc = SQLITE_OK;
  for (int k = 0; k < 2; k++) {
    const jd_side *s = &side[k].s;
    int32_t *slot = sqlite3_malloc64((s->nraw + 1) * sizeof *slot); /* raw name -> v index */
    if (!slot) goto ops_oom;
    for (size_t i = 0; i <= s->nraw; i++) slot[i] = -1;
    for (size_t g = 0; g < s->ot.gpu.n; g++) {
      int32_t op = jd_cpu_op_of(s, (int32_t)(s->nhost + g));
      size_t key = op >= 0 && s->raw[op] >= 0 ? (size_t)s->raw[op] : s->nraw;
      if (slot[key] < 0) {
        js_op x = {key < s->nraw ? s->rawnames[key] : "(no operator)", k, 0, 0};
        HTA_PUSH(v, nv, av, 64, x, ops_slot_oom);
        slot[key] = (int32_t)(nv - 1);
      }
      v[slot[key]].ns = hta_add_sat(v[slot[key]].ns, s->ot.gpu.a[g].dur);
      v[slot[key]].count++;
    }
    sqlite3_free(slot);
    continue;
  ops_slot_oom:
    sqlite3_free(slot);
    goto ops_oom;
  }
  if (nv) qsort(v, nv, sizeof *v, jsOpCmp);
  o = sqlite3_malloc64((nv ? nv : 1) * sizeof *o);
  if (!o) goto ops_oom;
  for (size_t i = 0; i < nv; i++) {
    if (!no || strcmp(o[no - 1].name, v[i].name)) {
      memset(&o[no], 0, sizeof o[no]);
      o[no++].name = v[i].name;
    }
    int64_t steps = side[v[i].side].r.nsteps ? side[v[i].side].r.nsteps : 1;
    o[no - 1].us[v[i].side] = (double)v[i].ns / (double)steps / 1000.0;
    o[no - 1].count[v[i].side] = v[i].count;
  }
  if (no) qsort(o, no, sizeof *o, jsOutCmp);
  for (size_t i = 0; i < no && rc == SQLITE_OK; i++) {
    hta_cell *row = hta_table_add_row(out);
    if (!row) goto ops_oom;
    rc = hta_cell_text(&row[JS_PART], o[i].name);
    hta_cell_static(&row[JS_SPLIT], "operator");
    hta_cell_double(&row[JS_US], o[i].us[0]);
    hta_cell_double(&row[JS_US + 1], o[i].us[1]);
    hta_cell_double(&row[JS_US + 2], o[i].us[1] - o[i].us[0]);
    hta_cell_int(&row[JS_COUNT], o[i].count[0]);
    hta_cell_int(&row[JS_COUNT + 1], o[i].count[1]);
    hta_cell_int(&row[JS_TRACE], p->t[0].trace_id);
    hta_cell_int(&row[JS_TRACE + 1], p->t[1].trace_id);
  }
  sqlite3_free(v);
  sqlite3_free(o);
  return rc;
ops_oom:
  sqlite3_free(v);
  sqlite3_free(o);
  return SQLITE_NOMEM;
}

static int jsSide(sqlite3 *db, void *arg) {
  js_side *a = arg;
  const hta_trace *t = &a->p->t[a->k];
  tv_model m;
  fd_plugin_fig fig;
  int rc = opt_ids_load(db, a->p->schema[a->k], &a->ids);
  memset(&m, 0, sizeof m);
  memset(&fig, 0, sizeof fig);
  if (rc == SQLITE_OK && a->ops) rc = jd_side_load(db, t, &a->ids, &a->s);
  else if (rc == SQLITE_OK) rc = hta_gpu_load(db, t, a->ids.cls, &a->gpu);
  if (rc == SQLITE_OK) rc = tv_model_load(db, t, 0, &m);
  if (rc == SQLITE_OK) rc = jsRoles(&m, a->ops ? &a->s.ot.gpu : &a->gpu, &a->r);
  /* the findings' plugin rules read the same model: its figures, then it goes */
  if (rc == SQLITE_OK) rc = fd_plugin_fig_of(&m, &fig);
  tv_model_free(&m);
  if (rc == SQLITE_OK) rc = jd_acct_side(db, a->p, a->k, a->r.step, &fig, &a->acct);
  sqlite3_free(fig.gpu);
  return rc;
}

static int jsRun(sqlite3 *db, const jd_pair *p, jd_result *res, char **pzErr) {
  hta_table *out = &res->t;
  js_side side[2];
  int rc, ops = jd_wants_split(p, "operator");
  (void)pzErr;
  memset(side, 0, sizeof side);
  for (int k = 0; k < 2; k++) side[k].p = p, side[k].k = k, side[k].ops = ops;
  rc = hta_par2(db, p->schema[1], p->register_all, jsSide, &side[0], jsSide, &side[1]);
  if (rc == SQLITE_OK) {
    const js_roles *r0 = &side[0].r, *r1 = &side[1].r;
    int64_t d = r1->step - r0->step;
    hta_cell *row = jd_summary_row(out, p, "role", "step", r0->step, r1->step, d);
    if (!row) rc = SQLITE_NOMEM;
    else {
      hta_cell_int(&row[JS_COUNT], r0->nsteps);
      hta_cell_int(&row[JS_COUNT + 1], r1->nsteps);
    }
    for (int k = 0; k < JS_NPART && rc == SQLITE_OK; k++) {
      if (!r0->part[k] && !r1->part[k]) continue;
      if (!jd_summary_row(out, p, "role", jsPartName(k), r0->part[k], r1->part[k], d))
        rc = SQLITE_NOMEM;
    }
  }
  if (rc == SQLITE_OK) {
    int64_t step[2] = {side[0].r.step, side[1].r.step};
    jd_acct *const acct[2] = {side[0].acct, side[1].acct};
    rc = jd_summary_accounting(p, acct, step, out);
  }
  if (rc == SQLITE_OK && ops) rc = jsOperators(p, side, out);
  for (int k = 0; k < 2; k++) {
    jd_side_free(&side[k].s);
    hta_gpu_free(&side[k].gpu);
    opt_ids_free(&side[k].ids);
    jd_acct_free(side[k].acct);
  }
  return rc;
}

const jd_def jd_summary_def = {"hta_job_diff_summary", jsSchema, JS_NVISIBLE, JS_SPLIT, jsRun};

/*
** findings_comm.c: communication (DESIGN 11): the causes waits_for_ranks,
** pipeline_bubble and exposed_communication (idle compute streams while a collective of
** this rank waits or transfers: fd_account.c FA-4), and the symptom straggler (a rank the
** others wait for).
**
** Requirements (tests cite them as FCO-n):
**  1. waits_for_ranks, pipeline_bubble: one finding per trace with that part's time:
**     time_us = the idle time per typical step; evidence: fd_calls_json's members (the
**     collective kernels), waits_for (the ranks that arrived last at the instances this
**     trace waited in, by how often) and ranks_profiled / world_size.
**  2. exposed_communication: time_us = an estimate of what overlapping would recover:
**     min(E, max(0, B - O)) per typical step, E the exposed transfer time (the part), B
**     the busy time, O the transfers already under compute (a perfect overlap hides
**     transfers only under computation); evidence.estimate true, exposed_us, busy_us,
**     overlapped_us.
**  3. straggler: over the instances of collectives every rank of the group joins
**     (fd_comm_all_join; never send/recv) with at least two profiled ranks, a rank that
**     arrives last at >= 50% of those it is in. For each other trace W of those
**     instances, its wait = the sum of min(wait, the kernel's duration) over its kernels
**     in its typical steps at the instances the rank arrived last at, per typical step
**     (at most W's communication time). time_us = the mean of those waits over the
**     waiting traces; pct_of_step = 100 * time_us / their mean step. Kind 'symptom': the
**     waits are the waiting traces' waits_for_ranks causes, not time of the straggler's
**     own step. Evidence: pct_arrived_last, times_arrived_last, collectives, waiting
**     (rank, us: one per waiting trace; no trace ids, which depend on the database),
**     ranks_profiled (of those instances), group_size (the largest of their metadata).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings/fd_account.h"
#include "findings/fd_comm.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- waits and bubbles: FCO-1 */

/* The ranks that arrived last where trace U's kernels waited, into T. */
static int fcoWaitsFor(fd_ctx *x, const fd_unit *u, fd_tally *t) {
  const coll_job *j;
  int rc = fd_comm(x, &j);
  for (size_t i = 0; rc == SQLITE_OK && j && i < j->nk; i++) {
    const coll_kernel *k = &j->k[i];
    if (k->trace_id != u->trace_id || k->wait <= 0) continue;
    const coll_inst *in = &j->inst[k->inst];
    char r[24];
    sqlite3_snprintf(sizeof r, r, "%lld", (long long)in->last_rank);
    rc = fd_tally_add(t, r, 1, k->wait < k->dur ? k->wait : k->dur);
  }
  return rc;
}

static int fcoWait(fd_ctx *x, const fd_rule *r, int part) {
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    const fd_acct *a = &acct[i];
    if (!a->has_gpu || !(a->part_us[part] > 0) || !fd_unit_wanted(x, u)) continue;
    fd_row row = fd_row_init(u);
    fd_calls c;
    fd_tally t = {0, 0, 0};
    char b[32];
    fd_cause_row(u, a, part, NAN, &row);
    rc = fd_calls_json(x, u, a, part, row.evidence, &c);
    if (rc == SQLITE_OK) rc = fcoWaitsFor(x, u, &t);
    sqlite3_str_appendall(row.evidence, ",\"waits_for\":");
    fd_tally_json(row.evidence, &t, 5, "times", 1);
    sqlite3_str_appendf(row.evidence,
                        ",\"ranks_profiled\":%lld,\"world_size\":", (long long)x->ranks_in_job);
    fd_json_num(row.evidence, x->world_size > 0 ? (double)x->world_size : NAN);
    sqlite3_str_appendchar(row.evidence, 1, '}');
    const char *last = fd_tally_top(&t);
    if (part == FD_P_WAITS_FOR_RANKS) {
      row.title = sqlite3_mprintf(
          "The GPU idles %s per step while collectives wait for other "
          "ranks%s%s",
          hta_fmt_us(row.time_us, b), last ? " (most often for rank " : "", last ? last : "");
      if (row.title && last) {
        char *z = sqlite3_mprintf("%s)", row.title);
        sqlite3_free(row.title);
        row.title = z;
      }
      row.advice =
          "Collectives start only when every rank of the group arrives: the slow rank is the "
          "one to fix (the straggler finding names it): even out its inputs (sequence lengths, "
          "batch composition), move work done on it only (logging, checkpointing, evaluation) "
          "out of the step, and check its data loading and its GPU.";
    } else {
      row.title = sqlite3_mprintf(
          "The GPU idles %s per step in send/recv waiting for the peer "
          "stage (pipeline bubbles)",
          hta_fmt_us(row.time_us, b));
      row.advice =
          "Each pipeline stage waits for its neighbour's activations or gradients: use more "
          "micro-batches per step, an interleaved schedule (1F1B interleaved, zero-bubble "
          "schedules), and balance the layers between stages so that no stage is slower.";
    }
    fd_calls_free(&c);
    fd_tally_free(&t);
    if (rc == SQLITE_OK) rc = fd_emit(x, r, &row);
    else fd_row_discard(&row);
  }
  return rc;
}

int fd_waits_for_ranks(fd_ctx *x, const fd_rule *r) { return fcoWait(x, r, FD_P_WAITS_FOR_RANKS); }

int fd_pipeline_bubble(fd_ctx *x, const fd_rule *r) { return fcoWait(x, r, FD_P_PIPELINE_BUBBLE); }

/* ---------------------------------------------------------------- exposed_communication: FCO-2 */

int fd_exposed_communication(fd_ctx *x, const fd_rule *r) {
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    const fd_acct *a = &acct[i];
    double e = a->part_us[FD_P_EXPOSED_COMM];
    if (!a->has_gpu || !(e > 0) || !fd_unit_wanted(x, u)) continue;
    double room = a->busy_us - a->comm_overlap_us, est = e < room ? e : room > 0 ? room : 0;
    fd_row row = fd_row_init(u);
    fd_calls c;
    char b1[32], b2[32];
    fd_cause_row(u, a, FD_P_EXPOSED_COMM, est, &row);
    rc = fd_calls_json(x, u, a, FD_P_EXPOSED_COMM, row.evidence, &c);
    sqlite3_str_appendall(row.evidence, ",\"exposed_us\":");
    fd_json_num(row.evidence, e);
    sqlite3_str_appendall(row.evidence, ",\"busy_us\":");
    fd_json_num(row.evidence, a->busy_us);
    sqlite3_str_appendall(row.evidence, ",\"overlapped_us\":");
    fd_json_num(row.evidence, a->comm_overlap_us);
    sqlite3_str_appendchar(row.evidence, 1, '}');
    row.title = sqlite3_mprintf(
        "Communication no computation overlaps leaves the GPU idle %s per "
        "step; overlapping it could recover about %s",
        hta_fmt_us(e, b1), hta_fmt_us(est, b2));
    row.advice =
        "The compute streams wait while collectives move data: overlap communication with "
        "computation (DDP starts each gradient bucket's all-reduce during the backward pass: "
        "tune bucket_cap_mb; FSDP: backward and forward prefetch), and send less (bf16 "
        "gradients, gradient accumulation with fewer all-reduces).";
    fd_calls_free(&c);
    if (rc == SQLITE_OK) rc = fd_emit(x, r, &row);
    else fd_row_discard(&row);
  }
  return rc;
}

/* ---------------------------------------------------------------- straggler: FCO-3 */

typedef struct fco_rank {
  int64_t rank, last, insts;
  double *wait_ns; /* per unit of x: its waits on this rank, ns, typical steps */
} fco_rank;

static fco_rank *fcoRank(fco_rank *a, size_t n, int64_t rank) {
  for (size_t i = 0; i < n; i++)
    if (a[i].rank == rank) return &a[i];
  return 0;
}

/* 1 when kernel K's start lies in a typical step of its unit U. */
static int fcoTypical(const fd_unit *u, int64_t ts) {
  long s = fd_step_at(u, ts);
  return s >= 0 && u->steps[s].typical;
}

static int fcoEmit(fd_ctx *x, const fd_rule *r, const fco_rank *c, int64_t profiled,
                   int64_t group) {
  const fd_unit *own = 0;
  int nown = 0, nw = 0;
  double sum = 0, steps = 0;
  char b[32];
  for (int i = 0; i < x->nu; i++) {
    if (x->u[i].rank == c->rank) own = &x->u[i], nown++;
    if (x->u[i].rank == c->rank || !(c->wait_ns[i] > 0) || !x->u[i].ntypical) continue;
    sum += c->wait_ns[i] / (double)x->u[i].ntypical / 1000.0;
    steps += x->u[i].step_us;
    nw++;
  }
  if (!nw) return SQLITE_OK;
  fd_row row = fd_row_init(nown == 1 ? own : 0);
  sqlite3_str *e = row.evidence;
  row.has_rank = 1;
  row.rank = c->rank;
  row.time_us = sum / nw;
  row.pct = steps > 0 ? 100.0 * row.time_us / (steps / nw) : NAN;
  sqlite3_str_appendall(e, "{\"pct_arrived_last\":");
  fd_json_num(e, 100.0 * (double)c->last / (double)c->insts);
  sqlite3_str_appendf(e, ",\"times_arrived_last\":%lld,\"collectives\":%lld,\"waiting\":[",
                      (long long)c->last, (long long)c->insts);
  for (int i = 0, k = 0; i < x->nu; i++) {
    if (x->u[i].rank == c->rank || !(c->wait_ns[i] > 0) || !x->u[i].ntypical) continue;
    sqlite3_str_appendf(e, "%s{\"rank\":%lld,\"us\":", k++ ? "," : "", (long long)x->u[i].rank);
    fd_json_num(e, c->wait_ns[i] / (double)x->u[i].ntypical / 1000.0);
    sqlite3_str_appendchar(e, 1, '}');
  }
  sqlite3_str_appendf(e, "],\"ranks_profiled\":%lld,\"group_size\":", (long long)profiled);
  fd_json_num(e, group > 0 ? (double)group : NAN);
  sqlite3_str_appendchar(e, 1, '}');
  if (group > profiled) {
    char *z = sqlite3_mprintf(
        "%lld of the group's %lld ranks profiled: a rank not profiled may "
        "arrive later still",
        (long long)profiled, (long long)group);
    fd_caveat(&row, "ranks_profiled", z);
    sqlite3_free(z);
  }
  row.title = sqlite3_mprintf(
      "Rank %lld arrives last at %.0f%% of the collectives every rank "
      "joins: the others wait %s per step for it",
      (long long)c->rank, 100.0 * (double)c->last / (double)c->insts, hta_fmt_us(row.time_us, b));
  row.advice =
      "Every other rank waits for this one at each collective: find what it does before them "
      "(its timeline before the collectives, its data loading) and even it out: unbalanced "
      "inputs (sequence lengths, batch composition), extra work on this rank only (logging, "
      "checkpointing, evaluation), or a slower GPU or host.";
  return fd_emit(x, r, &row);
}

int fd_straggler(fd_ctx *x, const fd_rule *r) {
  const coll_job *j;
  fco_rank *c = 0;
  size_t nc = 0, ac = 0;
  int64_t group = 0;
  int rc = fd_comm(x, &j);
  for (size_t i = 0; rc == SQLITE_OK && j && i < j->ninst; i++) {
    const coll_inst *in = &j->inst[i];
    if (in->n < 2 || !fd_comm_all_join(in->k[0])) continue;
    int64_t r0 = in->k[0]->rank;
    int distinct = 0;
    for (size_t k = 1; k < in->n; k++) distinct |= in->k[k]->rank != r0;
    if (!distinct) continue; /* one profiled rank: nobody to wait for */
    for (size_t k = 0; rc == SQLITE_OK && k < in->n; k++) {
      const coll_kernel *kk = in->k[k];
      if (kk->has_gs && kk->group_size > group) group = kk->group_size;
      if (!fcoRank(c, nc, kk->rank)) { /* a rank seen for the first time */
        fco_rank v = {kk->rank, 0, 0, 0};
        v.wait_ns = sqlite3_malloc64((x->nu ? (size_t)x->nu : 1) * sizeof *v.wait_ns);
        if (!v.wait_ns) {
          rc = SQLITE_NOMEM;
          break;
        }
        memset(v.wait_ns, 0, (x->nu ? (size_t)x->nu : 1) * sizeof *v.wait_ns);
        HTA_PUSH(c, nc, ac, 8, v, fco_oom);
        continue;
      fco_oom:
        sqlite3_free(v.wait_ns);
        rc = SQLITE_NOMEM;
      }
    }
    if (rc != SQLITE_OK) break;
    fco_rank *last = fcoRank(c, nc, in->last_rank);
    for (size_t k = 0; k < in->n; k++) fcoRank(c, nc, in->k[k]->rank)->insts++;
    last->last++;
    for (size_t k = 0; k < in->n; k++) { /* the others' waits at this instance */
      const coll_kernel *kk = in->k[k];
      const fd_unit *u = fd_unit_of(x, kk->trace_id);
      if (kk->rank == in->last_rank || !u || !fcoTypical(u, kk->ts)) continue;
      last->wait_ns[u - x->u] += (double)(kk->wait < kk->dur ? kk->wait : kk->dur);
    }
  }
  for (size_t i = 0; rc == SQLITE_OK && i < nc; i++) {       /* nc: the ranks profiled */
    if (!c[i].insts || 2 * c[i].last < c[i].insts) continue; /* FCO-3: >= 50% */
    if (x->has_rank && c[i].rank != x->rank) continue;
    rc = fcoEmit(x, r, &c[i], (int64_t)nc, group);
  }
  for (size_t i = 0; i < nc; i++) sqlite3_free(c[i].wait_ns);
  sqlite3_free(c);
  return rc;
}

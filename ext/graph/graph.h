/*
** graph.h: CUDA/HIP graph replays matched to their captures (prefix hg_), the seam
** every operator analysis reads to see a replayed kernel under the operator that
** captured it.
**
** A graph replay is one cudaGraphLaunch/hipGraphLaunch and the kernels it ran, with
** no operator above them. The capture trace (table capture, stored in the replay's
** job) was recorded while the graph was captured: between cudaStreamBeginCapture and
** cudaStreamEndCapture, the operators with their shapes and the launches ("dispatches")
** the graph replays. hg_attr_load pairs them (graph_match.c, GM-n):
**
**   hg_attr ga;
**   int rc = hg_attr_load(db, t, HG_EAGER_OPS, &ga);   // t: one replay trace
**   for (size_t i = 0; i < ga.nk; i++)
**     if (ga.k[i].match == HG_MATCHED) ... ga.k[i].dispatch_id, ga.k[i].op_id ...
**   hg_attr_free(&ga);
**
** A trace without any graph launch gives nothing (nk = 0) at the cost of one look at
** the string table. A consumer that builds its own call tree (op_perf_tree.c,
** tb_tree.c) grafts, for each merged launch, a copy of its window's host events
** (the capture's host events wholly inside it: hg_window_find) under the launch,
** and hangs each matched kernel under its dispatch's copy instead of the launch.
**
**   graph_tree.c    TraceLens's host call tree of one trace (parents, operators)
**   graph_roots.c   execution roots: the engine's iteration annotations, batch sizes
**   graph_align.c   the matching rules: replayed kernels to dispatches (GA-n)
**   graph_match.c   windows, launches, captures, pairing: hg_attr_load (GM-n)
**   graph_kernels.c hta_graph_kernels, hta_graph_launches, hta_graph_coverage
*/
#ifndef HTA_GRAPH_H
#define HTA_GRAPH_H

#include <stddef.h>
#include <string.h>

#include "core/hta_common.h"

/* ---------------------------------------------------------------- matching (graph_align.c) */
/* What a kernel's match is (hta_graph_kernels.match). */
enum { HG_UNLINKED = 0, HG_EAGER, HG_UNMATCHED, HG_MATCHED };
/* The rule that matched a launch's kernels (hta_graph_kernels.match_rule). */
enum {
  HG_RULE_NONE = 0,
  HG_POSITIONAL,    /* equal counts, names equal position by position */
  HG_GROUP_BY_NAME, /* equal counts: i-th dispatch of a name <-> i-th kernel of it */
  HG_GREEDY,        /* each kernel takes the next dispatch of its name */
  HG_STREAM_FIFO,   /* several streams: a FIFO of kernels per stream */
  HG_ALIGNED,       /* the longest common subsequence of names (GA-5) */
  HG_GRAPH_NODE_ID, /* kernels in graph node id order, names equal position by position */
  HG_NRULE
};
/* Why a replayed kernel has no dispatch (hta_graph_kernels.unmatched_reason). */
enum {
  HG_R_NONE = 0,
  HG_R_NO_CAPTURE,    /* the job holds no capture trace */
  HG_R_NO_ROOT,       /* the launch is in no execution root (iteration annotation) */
  HG_R_NO_BATCH,      /* its root's annotation gives no batch size */
  HG_R_NO_CAPTURE_BS, /* no capture of a batch size >= the root's */
  HG_R_NO_WINDOW,     /* the capture has no StreamBeginCapture/EndCapture window */
  HG_R_WINDOWS,       /* windows and the root's launches differ in number (several windows) */
  HG_R_NO_DISPATCH,   /* the alignment left it without a dispatch */
  HG_NREASON
};
/* Memory kinds of dispatches and GPU events (GA-1). */
enum { HG_MEM_NONE = 0, HG_MEMCPY, HG_MEMSET };
#define HG_ANY_KERNEL (-1) /* key of a dispatch without a kernel name: any kernel */

/* One side of a match: a dispatch (capture order) or a replayed kernel (ts order). */
typedef struct hg_item {
  int64_t key;    /* a name's id (equal names, equal keys); dispatches: HG_ANY_KERNEL too */
  int64_t stream; /* kernels: the stream; dispatches: unused */
  int64_t node;   /* kernels: the graph node id; -1 when absent */
  int mem;        /* HG_MEM_*: a dispatch by its runtime call's name, a kernel by its name */
} hg_item;

/* Matches the N kernels K (in start order) of one launch to the M dispatches D (in
** capture order): pair[i] = the dispatch of kernel i, or -1. Returns the rule
** (HG_*), with *matched the number of kernels paired; SQLITE_NOMEM as -1. */
int hg_align(const hg_item *d, size_t m, const hg_item *k, size_t n, int32_t *pair,
             size_t *matched);
/* 1 when dispatch D may run as kernel K (GA-1). */
int hg_item_match(const hg_item *d, const hg_item *k);
const char *hg_rule_name(int rule);     /* "positional", ...; NULL for HG_RULE_NONE */
const char *hg_reason_name(int reason); /* "no_capture", ...; NULL for HG_R_NONE */
const char *hg_match_name(int match);   /* "matched", "unmatched", "eager", "unlinked" */
/* HG_MEM_* of a GPU event's name and of a dispatch's runtime call name (GA-1). */
int hg_gpu_mem(const char *name);
int hg_dispatch_mem(const char *name);

/* The index of the element with EVENT_ID in BASE[0..n) (elements of SIZE bytes sorted by
** an int64 event id at offset OFF); -1. */
static inline long hg_find_id(const void *base, size_t n, size_t size, size_t off,
                              int64_t event_id) {
  const char *b = base;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t v;
    memcpy(&v, b + mid * size + off, sizeof v);
    if (v < event_id) lo = mid + 1;
    else hi = mid;
  }
  if (lo == n) return -1;
  int64_t v;
  memcpy(&v, b + lo * size + off, sizeof v);
  return v == event_id ? (long)lo : -1;
}

/* ---------------------------------------------------------------- TraceLens's call tree (graph_tree.c) */
enum { HG_C_OTHER = 0, HG_C_OP, HG_C_RUNTIME, HG_C_PYTHON };

typedef struct hg_hnode { /* a host event of the tree categories */
  int64_t event_id, seq;
  int64_t ts, end; /* ns */
  int32_t name_id; /* -1 none */
  int32_t parent;  /* index (event_id order) of its parent; -1 */
  uint8_t cls;     /* HG_C_* */
} hg_hnode;

typedef struct hg_tree {
  hg_hnode *a; /* by event_id */
  size_t n;
  int32_t execute_id; /* name id of "execute"; -1 */
} hg_tree;

/* TraceLens's host tree (TraceToTree with python functions) of trace TRACE_ID. */
int hg_tree_load(sqlite3 *db, const char *schema, int64_t trace_id, hg_tree *out);
void hg_tree_free(hg_tree *t);
/* The index of EVENT_ID in T; -1. */
long hg_tree_find(const hg_tree *t, int64_t event_id);
/* The operator of node I: the first cpu_op above it, passing python functions and
** operators named "execute", stopping at anything else or at an ancestor that is not
** inside [LO, HI] (ns); -1 when none (GM-7). */
long hg_tree_op(const hg_tree *t, long i, int64_t lo, int64_t hi);

/* ---------------------------------------------------------------- execution roots (graph_roots.c) */
/* An iteration of the inference engine: the window its graph launches fall in and the
** batch size TraceLens picks a capture by (GM-3). */
typedef struct hg_root {
  int64_t event_id, ts, end;
  int64_t batch; /* -1 when the annotation gives none */
} hg_root;

/* The execution roots of trace T, by (ts, event_id). Free *pa with sqlite3_free. */
int hg_roots_load(sqlite3 *db, const hta_trace *t, hg_root **pa, size_t *pn);
/* TraceLens's batch size of iteration annotation NAME; -1 when none; 0 when NAME is
** no iteration annotation at all (*tier: 1 detailed, 2 native). */
int hg_root_parse(const char *name, int *tier, int64_t *batch);

/* ---------------------------------------------------------------- the match (graph_match.c) */
typedef struct hg_kernel { /* one GPU event of the replay trace */
  int64_t event_id, seq, ts, dur, stream;
  int64_t launch_id;   /* its launch (the runtime call of its correlation); 0 none */
  int64_t dispatch_id; /* matched: the capture's runtime call it ran for; 0 */
  int64_t op_id;       /* matched: the captured operator; eager or unmatched: the replay's; 0 */
  int64_t node;        /* graph node id; -1 */
  int32_t name_id;
  int32_t launch;    /* index into hg_attr.l when its launch is a graph launch; -1 */
  int32_t graph_pos; /* position among its launch's GPU events by (ts, seq); -1 */
  int32_t dpos;      /* matched: the dispatch's position in its window; -1 */
  uint8_t match, rule, reason;
} hg_kernel;

typedef struct hg_launch { /* one graph launch of the replay trace */
  int64_t event_id, seq, ts, dur;
  int64_t root_id;              /* its execution root; 0 none */
  int64_t batch, capture_batch; /* -1 none */
  int64_t capture_trace_id;     /* 0 none */
  int32_t window;               /* index into hg_attr.w; -1 */
  int32_t first, nk;            /* its GPU events: hg_attr.lk[first .. first+nk), by (ts, seq) */
  int32_t matched, discarded;   /* kernels paired; dispatches of its window left unpaired */
  uint8_t rule, reason, multistream;
} hg_launch;

typedef struct hg_window { /* a capture window: one capture of one graph */
  int64_t capture_trace_id;
  int64_t begin_id, end_id; /* the StreamBeginCapture and StreamEndCapture calls */
  int64_t ts, end;          /* ns: from the begin call's end to the end call's start */
  int32_t index;            /* its position among its capture's windows (0-based) */
  int32_t ndispatch;
} hg_window;

typedef struct hg_attr {
  hg_kernel *k; /* the trace's GPU events, by seq; nk = 0 without a graph launch */
  size_t nk;
  hg_launch *l; /* its graph launches, by (ts, seq) */
  size_t nl;
  int32_t *lk;  /* kernel indices of each launch (hg_launch.first) */
  hg_window *w; /* the windows of the captures used, each capture's by start */
  size_t nw;
  int32_t *wsort;                  /* the windows by (capture_trace_id, ts): hg_window_find */
  int64_t replayed_ns, matched_ns; /* GPU time under graph launches, of it matched to an operator */
  size_t nreplayed, nmatched;
} hg_attr;

#define HG_EAGER_OPS 1 /* hg_attr_load: also the replay's operator of every other kernel */

/* Matches trace T's replayed GPU events to the captures of its job (GM-n). FLAGS:
** HG_EAGER_OPS. SQLITE_OK, NOMEM, INTERRUPT or an SQLite error; *out (free with
** hg_attr_free) is empty for a trace without graph launch. */
int hg_attr_load(sqlite3 *db, const hta_trace *t, int flags, hg_attr *out);
void hg_attr_free(hg_attr *a);
/* The index in A->k of the GPU event EVENT_ID; -1. */
long hg_attr_find(const hg_attr *a, int64_t event_id);

/* The index in A->w of the window of capture CAPTURE_TRACE_ID that holds [TS, END]
** (ns) wholly; -1. A consumer grafting a window under its launches keeps the capture's
** host events that have one. */
long hg_window_find(const hg_attr *a, int64_t capture_trace_id, int64_t ts, int64_t end);

/* Trace T's graph coverage: GPU time under graph launches and of it the time of the
** kernels matched to a captured operator (ns), with their counts. Zeros when T has no
** graph launch. */
int hg_coverage(sqlite3 *db, const hta_trace *t, int64_t *replayed_ns, int64_t *matched_ns,
                int64_t *nreplayed, int64_t *nmatched);

#endif

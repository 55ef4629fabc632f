/*
** critical_path_graph.h: the critical path graph of one rank and its building blocks
** (critical_path_graph.c): events, nodes and edges; adding an edge, finding an event,
** the longest path. The passes that build a graph (critical_path_passes.h) and the
** builder (critical_path.h) stand on it; nothing here calls up into them.
*/
#ifndef HTA_CRITICAL_PATH_GRAPH_H
#define HTA_CRITICAL_PATH_GRAPH_H

#include "core/hta_common.h"

/* Edge types, in HTA's names (cp_edge_type_name); the last two join ranks in the
** job's graph (critical_path_job.c). */
enum {
  CP_OPERATOR,
  CP_DEPENDENCY,
  CP_LAUNCH_DELAY,
  CP_KERNEL_KERNEL,
  CP_SYNC,
  CP_COLL_WAIT, /* a rank's collective start -> the last-arriving rank's (weight 0) */
  CP_COLLECTIVE /* the last-arriving rank's start -> a rank's collective end */
};

typedef struct cp_ev {
  int64_t event_id, seq, ts, dur;
  int64_t stream;     /* HTA's stream: event.stream, a cuda_sync row's args.stream, else -1 */
  int64_t icorr;      /* HTA's index_correlation: partner seq, 0 no partner, -1 no correlation */
  int64_t pidk, tidk; /* grouping keys of pid / tid */
  int64_t wait_stream, wait_corr; /* args.wait_on_stream, ..._record_corr_id; -1 absent */
  int64_t corr;                   /* correlation, -1 absent */
  int64_t link;                   /* link_id, -1 absent */
  int64_t keep_ts;                /* the time the cut tests: the partner's for GPU rows */
  int dbgpu;                      /* event.stream is set (GPU work) */
  int32_t name_id;
  int kind;    /* CK_* category kind (critical_path_build.c) */
  int partner; /* position of the icorr row in the event array, -1 none */
  int kept;    /* in HTA's clipped table */
  int ns, ne;  /* start / end node ids, -1 without nodes */
  int tix;     /* its trace's index in the hta_traces of the job's graph (else 0) */
} cp_ev;

typedef struct cp_node {
  int64_t ts; /* ns */
  int ev;     /* position in the event array */
  int is_start;
} cp_node;

typedef struct cp_edge {
  int u, v; /* node ids */
  int type;
  int attr;   /* attributed event (position), -1 none */
  int64_t w;  /* ns, HTA's edge weight (the breakdown's duration) */
  int64_t gw; /* ns, the weight the longest path uses (<= -1 us zeroed) */
  int on_path;
} cp_edge;

/* status of a build */
#define CP_OK 0
#define CP_NO_ANNOTATION 1 /* HTA returns None */
#define CP_FAILED 2        /* HTA raises: *why says why */
#define CP_INVALID 3       /* HTA returns (graph, False) */

typedef struct cp_graph {
  cp_ev *ev;
  size_t nev;
  cp_node *node;
  size_t nnode;
  cp_edge *edge;
  size_t nedge, aedge;
  int *path; /* node ids in path order */
  size_t npath;
  int status;
  const char *why;
  int64_t win_start, win_end;
  size_t nkept;
} cp_graph;

void cp_graph_free(cp_graph *g);
/* The path's edges in path order: (*pe)[k] joins path nodes k and k+1 (NULL where
** none is marked). *pe is sqlite3_malloc'd. SQLITE_OK or SQLITE_NOMEM. */
int cp_path_edges(const cp_graph *g, const cp_edge ***pe);
/* Position in g->ev of the row with SEQ, -1 when not loaded. */
int cp_ev_pos(const cp_graph *g, int64_t seq);
/* HTA's longest path of G's edges (CPG-7, CPG-8): sets g->path and the edges'
** gw and on_path, or g->status. SQLITE_OK or SQLITE_NOMEM. */
int cp_longest_path(cp_graph *g);
const char *cp_edge_type_name(int type);

/* ---------------------------------------------------------------- building a graph
** (the builder, critical_path_build.c, and its passes) */

enum { CK_OTHER, CK_CPU_OP, CK_RUNTIME, CK_DRIVER, CK_USER_ANN, CK_SYNC };

/* name ids looked up once (-1: absent from the database): kFixed order */
enum {
  N_HOSTALLOC,
  N_LAUNCH,
  N_MEMCPYASYNC, /* the lock */
  N_DEVSYNC,
  N_STREAMSYNC,
  N_EVQUERY,
  N_EVSYNC,
  N_MEMCPY, /* blocking (+ memcpyasync) */
  N_EVENT_SYNC,
  N_CONTEXT_SYNC,
  N_STREAM_SYNC,
  N_STREAM_WAIT,
  N_EVRECORD,
  N_STREAMWAITEVENT,
  N_FIXED
};
#define N_LAUNCHES HTA_NQUEUE_LAUNCH /* QL-1 launch names, with D15 (kLaunch) */

typedef struct cp_ids {
  int32_t fixed[N_FIXED];
  int32_t launch[N_LAUNCHES];
  int32_t *ann, *fwd, *bwd; /* sorted ids of names containing the annotation / forward / autograd */
  size_t nann, nfwd, nbwd;
} cp_ids;

typedef struct cp_ctx {
  sqlite3 *db;
  cp_graph *g;
  cp_ids ids;
  int zw;
  /* edge hash: slot -> edge index + 1 */
  int *hash;
  size_t hcap;
} cp_ctx;

static inline int cp_is_id(int32_t id, int32_t want) { return want >= 0 && id == want; }
/* Adds (or re-types, CPG-6) the edge U -> V; ATTR_MODE attributes it (spec 5.9)
** with PARENT for an end -> start edge. SQLITE_OK or SQLITE_NOMEM. */
int cp_add_edge(cp_ctx *x, int u, int v, int type, int zero, int attr_mode, int parent);
/* Sorts the id set S of N ids, for cp_in_set. */
void cp_ids_sort(int32_t *s, size_t n);
/* 1 when V (>= 0) is in the sorted id set S of N ids. */
int cp_in_set(const int32_t *s, size_t n, int32_t v);

#endif

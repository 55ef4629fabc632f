/*
** fd.h: the framework of hta_findings, below its rules (DESIGN 11). Every rule file
** includes this header and nothing above it; the table-valued function (findings.c)
** walks the rules' table (findings_rules.c) and hands each rule an fd_ctx.
**
**   fd.c         what a rule calls: fd_emit, fd_query, JSON and tally helpers, the run's
**                cache slots.
**   fd_steps.c   fd_steps_load: a trace's analysed steps (the ONE place that says what a
**                step is: ProfilerSteps, else engine iterations, else the whole window
**                as one step).
**   fd_health.c  fd_health_caveats: the caveats about a trace's health (ranks profiled,
**                link coverage, no steps), read from hta_trace_health's C API.
**   fd_account.c the accounting of each trace's steps (fd_account.h): busy, idle and
**                the cause of every idle nanosecond.
**
** A rule is one function and one line of the table in findings_rules.c:
**
**   int fd_my_rule(fd_ctx *x, const fd_rule *r) {
**     sqlite3_stmt *st;
**     int rc = fd_query(x, "SELECT trace_id, v FROM hta_x WHERE schema = ?1 AND job = ?2", &st);
**     while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
**       const fd_unit *u = fd_unit_of(x, sqlite3_column_int64(st, 0));
**       fd_row row = fd_row_init(u);
**       row.time_us = ...;                              (a cost per step, µs)
**       sqlite3_str_appendf(row.evidence, "{...}");     (a JSON object; fd_json_* help)
**       row.title = sqlite3_mprintf("...");  row.advice = "...";
**       rc = fd_emit(x, r, &row);                       (takes title, evidence)
**     }
**     return fd_done(st, rc);
**   }
**   { "my_rule", "hta-sqlite", FD_CAUSE, fd_my_rule },   (findings_rules.c)
**
** A rule reads other analyses through SQL on the same connection (fd_query binds ?1
** to the database read and ?2 to the job's name), so a finding's numbers are the
** numbers the analysis shows.
*/
#ifndef HTA_FD_H
#define HTA_FD_H

#include "core/hta_common.h"

/* ---------------------------------------------------------------- kinds (DESIGN 11) */
/* hta_findings.kind. Causes and busy findings are costs: per trace their sum is at most
** the step; a symptom or configuration row costs nothing of its own. */
enum { FD_SUMMARY, FD_CAUSE, FD_BUSY, FD_SYMPTOM, FD_CONFIGURATION };
const char *fd_kind_name(int kind); /* "summary", "cause", ... */

/* ---------------------------------------------------------------- units and steps */
/* One analysed step: [start, end) ns; number N of ProfilerStep#N, an engine step's
** index from 0, or -1 for a trace's window as one step. */
typedef struct fd_step {
  int64_t number, start, end;
  int typical; /* counted in the per-step figures (fd_account.c marks the outliers 0) */
} fd_step;

/* One trace of the job: a rank's timeline with its analysed steps. */
typedef struct fd_unit {
  const hta_trace *t; /* rank, trace_id, window, cut (hta_traces_load) */
  int64_t rank, trace_id;
  fd_step *steps; /* fd_steps_load: ascending; none only for a trace without a window */
  size_t nsteps;
  int no_steps;     /* 1: no ProfilerStep nor engine step, the window is the one step */
  int engine_steps; /* 1: no ProfilerStep, the steps are the engine's iterations */
  int64_t ntypical; /* the steps with typical = 1 (>= 1 when nsteps >= 1) */
  double step_us;   /* the mean of the typical steps, µs; 0 when unknown */
  char *caveats;    /* JSON array of the trace's health caveats (fd_health.c) */
  int64_t *numbers; /* the typical steps' numbers, ascending (fd_in_steps) */
  size_t nnumbers;
  double cost_us; /* the causes' and busy findings' time_us so far, emitted or not (fd_emit) */
  int amd;        /* trace.device_type 'AMD GPU': advice in ROCm's spelling */
  int64_t cc_major, cc_minor; /* the first device's compute capability; -1 unknown */
} fd_unit;

/* The analysed steps of trace U->t into U (DESIGN 11 "Steps"): its rows of
** hta_profiler_steps (host ProfilerStep#N, the last step cut as in every analysis);
** a trace without any has its inference engine's iterations (hta_inference_steps'
** rows: engine_steps), else is one step, its window [min_ts, max_end) (no_steps).
** Every step starts typical (fd_account.c decides the outliers). */
struct fd_ctx;
int fd_steps_load(struct fd_ctx *x);
/* Extends U's ProfilerSteps to the GPU work they launched (fd_steps.c FS-4): N GPU rows,
** LAUNCH[i] the start of row i's launch call, END[i] the row's end (ns). */
void fd_steps_extend(fd_unit *u, const int64_t *launch, const int64_t *end, size_t n);

/* Sets the caveats of every unit the run reports: the JSON array of what limits the
** trust in its findings, each {"check": name, "value": v, "text": sentence}, from
** hta_trace_health's checks (health/health.h hta_health_caveats: the ranks profiled,
** link coverage, steps, a truncated or clock-shifted trace). */
int fd_health_caveats(struct fd_ctx *x);

/* ---------------------------------------------------------------- the run */
/* Cache slots: what several rules read, built once per run by the first that needs it
** and freed with the run by its FREE function. */
enum { FD_SLOT_ACCOUNT, FD_SLOT_PLUGIN, FD_SLOT_PLUGIN_TC, FD_SLOT_COMM, FD_SLOT_PERF, FD_NSLOT };

typedef struct fd_rule fd_rule;

/* A recorded finding (fd_emit); the table-valued function turns them into rows. */
typedef struct fd_finding {
  const fd_rule *rule;
  int has_rank, has_trace;
  int64_t rank, trace_id;
  double time_us, pct;              /* NAN: NULL */
  char *title, *evidence, *caveats; /* sqlite3_malloc'd */
  const char *advice, *parent;      /* static; parent: a rule id or NULL */
} fd_finding;

/* One trace's figures from the TensorBoard plugin's model (tb/tb_model.h), as the
** plugin's recommendations read them (findings_overview.c FO-5). */
typedef struct fd_plugin_fig {
  int64_t nsteps;     /* kept steps with a window (a length > 0) */
  int64_t total;      /* their windows' time, ns */
  int64_t role[8];    /* each role's time in them, ns (TV_NROLE; hta_step_time_breakdown) */
  int64_t window;     /* W: first kept step's start to the last's end, ns */
  struct tv_gpu *gpu; /* each GPU's busy time in W (hta_gpu_metrics); sqlite3_malloc'd */
  size_t ngpu;
} fd_plugin_fig;

/* The figures of trace TRACE_ID, computed by the caller from the model it had loaded for
** itself (hta_job_diff_summary's roles): the run copies them instead of loading the
** model again. */
typedef struct fd_given {
  int64_t trace_id;
  const fd_plugin_fig *fig;
} fd_given;

/* One run of hta_findings over one job. */
typedef struct fd_ctx {
  sqlite3 *db;
  const char *schema; /* the database read */
  char *job;          /* the job's name (NULL: its job row is missing) */
  int64_t job_id;
  double min_pct;
  int has_rank; /* WHERE rank = N: the findings of rank N only */
  int64_t rank;
  int64_t world_size;   /* the largest trace.world_size of the job; 0 unknown */
  int64_t ranks_in_job; /* distinct ranks with a trace in the job (every rank, not only N) */
  hta_traces tr;
  fd_unit *u; /* one per trace of tr (same order) */
  int nu;
  void *slot[FD_NSLOT];
  void (*slot_free[FD_NSLOT])(void *);
  fd_finding *f; /* what the rules found */
  size_t nf, af;
  const fd_given *given; /* NULL, or figures not to compute again */
} fd_ctx;

typedef int (*fd_rule_fn)(fd_ctx *x, const fd_rule *r);
struct fd_rule {
  const char *id;     /* hta_findings.rule */
  const char *source; /* 'tb_plugin' or 'hta-sqlite' */
  int kind;           /* FD_CAUSE, ... */
  fd_rule_fn run;     /* emits its findings with fd_emit; returns an SQLite code */
};

/* What a rule found. fd_row_init() gives the defaults: no time. */
typedef struct fd_row {
  const fd_unit *u;      /* the trace (rank, trace_id); NULL: see has_rank */
  int64_t rank;          /* when u is NULL and has_rank: a finding about this rank as a whole */
  int has_rank;          /* (trace_id NULL); u NULL and no rank: about the whole job */
  double time_us;        /* cost per step, µs; NAN: a rule that is no time */
  double pct;            /* NAN: 100 * time_us / u->step_us (the usual); else the rule's own */
  int keep;              /* 1: emitted whatever min_pct says (the summary row) */
  char *title;           /* sqlite3_malloc'd: fd_emit owns it from then on */
  sqlite3_str *evidence; /* a JSON object being written: fd_emit finishes it */
  sqlite3_str *caveats;  /* NULL, or JSON array elements (comma separated, no brackets) of
                            the finding's own caveats: fd_emit adds the trace's */
  const char *advice;    /* static */
} fd_row;

/* The defaults (no time) and a new evidence builder (fd_emit says when it ran out of
** memory). */
fd_row fd_row_init(const fd_unit *u);
/* Records ROW as a finding of rule R when it passes min_pct (a row with a time and
** pct_of_step < min_pct, or with a time but no pct_of_step while min_pct > 0, is
** dropped); frees ROW's title, evidence and caveats either way. SQLITE_OK, or
** SQLITE_NOMEM when the title or the evidence could not be written. */
int fd_emit(fd_ctx *x, const fd_rule *r, fd_row *row);
/* Frees what ROW holds without recording it (a rule that failed half way). */
void fd_row_discard(fd_row *row);
/* Appends caveat {"check": CHECK, "text": TEXT} to ROW's own caveats. */
void fd_caveat(fd_row *row, const char *check, const char *text);

/* The unit of TRACE_ID, or NULL (a trace no analysis loads). */
const fd_unit *fd_unit_of(const fd_ctx *x, int64_t trace_id);
/* 1 when U is a unit the run reports (WHERE rank = N keeps rank N's). */
int fd_unit_wanted(const fd_ctx *x, const fd_unit *u);
/* 1 when a host row of iteration IT (has_it: not NULL) lies in U's typical steps: any
** row when U has no ProfilerStep (engine steps or the window: fd_steps.c FS-2). */
int fd_in_steps(const fd_unit *u, int has_it, int64_t it);
/* The index of U's step holding time TS (ns), -1 when none. */
long fd_step_at(const fd_unit *u, int64_t ts);

/* Prepares SQL on x->db with "$S." meaning the database read, and binds ?1 to that
** database's name and ?2 to the job's name (for `schema = ?1 AND job = ?2`; a job
** without a name reads `job IS ?2`, NULL). */
int fd_query(fd_ctx *x, const char *sql, sqlite3_stmt **pp);
/* Finalizes ST and turns RC into the rule's return: SQLITE_DONE -> SQLITE_OK. */
int fd_done(sqlite3_stmt *st, int rc);

/* The run's object in SLOT (NULL until set) and setting it: the run frees P with FREE. */
void *fd_slot(fd_ctx *x, int slot);
void fd_slot_set(fd_ctx *x, int slot, void *p, void (*free_fn)(void *));

/* ---------------------------------------------------------------- text for titles, JSON */
/* JSON values appended to S: a string (null for NULL), a number (null for NaN or
** infinite), and exact µs of an ns count ("%.3f"). */
void fd_json_str(sqlite3_str *s, const char *z);
void fd_json_num(sqlite3_str *s, double v);
void fd_json_us(sqlite3_str *s, int64_t ns);

/* A tally of names (e.g. the operators that issued calls): count and ns per name. */
typedef struct fd_tally_item {
  char *name; /* sqlite3_malloc'd; NULL for "none" */
  int64_t count, ns;
} fd_tally_item;
typedef struct fd_tally {
  fd_tally_item *a;
  size_t n, cap;
} fd_tally;
int fd_tally_add(fd_tally *t, const char *name, int64_t count, int64_t ns);
/* Appends the top K items (by ns, then count, then name) as a JSON array of objects
** {"name": ..., KEY_COUNT: count, "us": ns / 1000} (no "us" when WITH_NS is 0). */
void fd_tally_json(sqlite3_str *s, fd_tally *t, size_t k, const char *key_count, int with_ns);
/* The top item's name (NULL when empty or unnamed); call after fd_tally_json or sort. */
const char *fd_tally_top(fd_tally *t);
void fd_tally_free(fd_tally *t);

#endif

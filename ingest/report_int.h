/*
** report_int.h: what the parts of the HTML report share (every ingest/report*.c).
** Internal to hta-ingest. The files stand on one another, never in a circle:
**   report.c (the page) -> the sections (report_findings.c, report_hta.c,
**   report_more.c, report_ops.c, report_perf.c, report_tb.c) -> report_charts.c
**   (one helper per chart shape: a new section draws through them) -> report_ctx.c
**   (the page context, the job-scoped SQL: every statement goes through hrPrep /
**   hrMat / hrTableOf, which put the job's filter on every analysis: HR-8) -> svg.c.
*/
#ifndef HTA_REPORT_INT_H
#define HTA_REPORT_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "svg.h"

#define HR_MAX_RANKS 4    /* ranks with per-rank detail (HR-2) */
#define HR_TABLE_ROWS 200 /* rows shown per table (HR-4) */
#define HR_TOP_ACROSS 3   /* kernels per type in "duration across ranks" */
#define HR_MAX_SERIES 16  /* lines per time-series chart */
#define HR_BUCKETS 870    /* downsampling buckets: the plot's width in px */
#define HR_STR(x) #x
#define HR_XSTR(x) HR_STR(x)

/* ---------------------------------------------------------------- context */

typedef struct hr_trace {
  int64_t trace_id, rank;
  char label[48]; /* "rank 3", or "rank 3 / trace 7" when the rank is shared (HR-7) */
} hr_trace;

typedef struct hr_ctx {
  sqlite3 *db;
  sv_buf *o;
  int64_t job_id;  /* the job of this part of the page (HR-8) */
  int has_capture; /* the database has the capture table: graph captures are no ranks' traces */
  int fd_all;      /* temp.hr_fd_all holds hta_findings of every job (hrJobsOverview) */
  char *job_q;     /* its name as an SQL literal ('x' or NULL), sqlite3_malloc'd */
  char idp[24];    /* prefix of the section ids: "" for one job, "jN-" for several */
  hr_trace *tr;    /* traces with analysable events, by (rank, trace_id) */
  int ntr;
  struct hr_idref {
    int64_t trace_id;
    int i;    /* index into tr */
  } * by_id;  /* by trace_id (hrLabel) */
  int nranks; /* distinct ranks among them */
  int dup;    /* some rank has several traces */
  int64_t shown[HR_MAX_RANKS];
  int nshown;
  char in_shown[200]; /* "(0, 1)": the shown ranks for SQL */
  double span_us;     /* job length: the x range of the time series */
  int failures;
  int fatal; /* SQLITE_NOMEM / SQLITE_INTERRUPT: stop everything */
  char err[HR_ERR_MAX];
} hr_ctx;

/* Growable arrays for chart data. */
typedef struct hr_vec {
  double *v;
  size_t n, cap;
} hr_vec;

typedef struct hr_strs {
  char **v;
  size_t n, cap;
} hr_strs;

/* ---------------------------------------------------------------- report_ctx.c */
/* Errors, job-scoped statements, tables, sections, the job's traces (see there). */
void hrFail(hr_ctx *x, const char *what);
void hrOom(hr_ctx *x);
sqlite3_stmt *hrPrep(hr_ctx *x, const char *sql, const char *what);
int hrStep(hr_ctx *x, sqlite3_stmt *st, const char *what);
const char *hrLabel(const hr_ctx *x, int64_t trace_id);
double hrCol(sqlite3_stmt *st, int i);
int hrPush(hr_vec *a, double v);
int hrPushStr(hr_strs *a, const char *s);
void hrStrsFree(hr_strs *a);
void hrTable(hr_ctx *x, const char *sql, const char *what);
/* TMPL with "{src}" replaced by SRC and "{ranks}" by the shown ranks' SQL list;
** sqlite3_malloc'd, NULL on OOM (recorded). */
char *hrSub(hr_ctx *x, const char *tmpl, const char *src);
int hrMat(hr_ctx *x, const char *name, const char *src);
/* hrMat, then SQL over the copy prepared (what: SRC); *ok: the copy exists. */
sqlite3_stmt *hrMatPrep(hr_ctx *x, const char *name, const char *src, const char *sql, int *ok);
void hrTableOf(hr_ctx *x, const char *tmpl, const char *src, const char *name, const char *what);
double hrScalar(hr_ctx *x, const char *sql, const char *what); /* NAN: failed or NULL */
/* hrMat into temp.NAME; 1 when it has rows, else 0 with NOTE (static HTML) shown. */
int hrMatRows(hr_ctx *x, const char *name, const char *src, const char *note);
void hrSection(hr_ctx *x, int i, const char *what);
void hrEndSection(hr_ctx *x);
/* A link to the section ID of this job's part: "<a href=...>N. Title</a>". */
void hrSectionLink(hr_ctx *x, const char *id);
#define HR_SEC_FINDINGS 16 /* its index among the sections (report_ctx.c hr_sections) */
void hrContents(hr_ctx *x);
int hrLoadTraces(hr_ctx *x); /* the job's traces and shown ranks; -1 on failure */
void hrShownNote(hr_ctx *x);

/* ---------------------------------------------------------------- charts (report_charts.c) */
/* Each helper reads the rows of ST, draws and finalizes ST (NULL: nothing); WHAT names
** the analysis in messages. */

/* Bars, one per row: column 0 a trace_id or NULL, column 1 a label or NULL, then nser
** values stacked (NULL or <= 0 draws nothing), then with whiskers their low and high
** ends. The bar's label: the trace's (hrLabel, HR-7), sep, the row's (HRC-1). */
typedef struct hr_bars {
  const char *title;         /* aria-label */
  const char *ylabel;        /* y axis title */
  int nser;                  /* values per bar */
  const char *const *sers;   /* nser series names (the legend when nser > 1) */
  const char *const *colors; /* nser colours, or NULL for the palette */
  double ymax;               /* 0: from the data */
  const char *unit;          /* after the numbers on hover, e.g. " µs", "%" */
  const char *sep;           /* between the trace's label and the row's; NULL: " " */
  const char *heading;       /* HTML written above the chart when it is drawn, or NULL */
  int whiskers;              /* 1: a row has two more columns, the whisker's ends */
  int width, height;         /* 0: svg.c's defaults */
  int draw_empty;            /* 1: no rows still draws the chart ("no data", HRC-3) */
} hr_bars;
void hrBarsOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_bars *c);
/* The same chart from arrays: N bars CATS, values V (n * nser), whiskers LO, HI or NULL. */
void hrBarsDraw(hr_ctx *x, const hr_bars *c, int n, const char *const *cats, const double *v,
                const double *lo, const double *hi);

/* Pies, one per run of rows with the same trace and group: column 0 a trace_id or NULL,
** column 1 the group or NULL, column 2 the slice's label, column 3 its full name for the
** hover text or NULL, column 4 its value. A pie's title is title, else the trace's label
** and the group ("rank 0 — COMPUTATION"); repeated labels are numbered (HRC-2). */
typedef struct hr_pies {
  const char *title;
  const char *(*color)(const char *label); /* a slice's colour, or NULL for the palette */
  const char *unit;
  int width;      /* 0: svg.c's default */
  int draw_empty; /* 1 (with title): no rows draws the empty pie (HRC-3) */
} hr_pies;
void hrPiesOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_pies *c);

/* Step lines over the job's time (x from 0 to span_us, in ms when the job is longer than
** 20 ms), one per run of rows with the same trace and key: column 0 a trace_id or NULL,
** column 1 the key (a stream, a memory kind), column 2 the time in µs since the job's
** first event, column 3 the value; x ascending within a key. Each line is downsampled
** (HR-3); at most HR_MAX_SERIES, a note says how many more were not drawn. Returns the
** lines drawn (0: no chart), -1 on OOM. */
typedef struct hr_lines {
  const char *title, *ylabel, *unit;
  const char *xwhat;      /* before "time since the job's first event": "" or "instance start, " */
  const char *key_prefix; /* before each key in the legend: "" or "stream " */
  const char *single;     /* one line of this name (column 1 unread), drawn even without points */
} hr_lines;
int hrLinesOf(hr_ctx *x, sqlite3_stmt *st, const char *what, const hr_lines *c);
/* hrLinesOf once per shown rank (under "Rank R") of SQL, whose ?1 is the rank. */
void hrSeries(hr_ctx *x, const char *sql, const char *what, const char *key_prefix,
              const char *ylabel, const char *unit);

/* A histogram of durations on log bins, 4 a decade: bin 0 below 0.1, bin k (1 .. HR_HBINS
** - 1) [10^((k-5)/4), 10^((k-4)/4)), the last one open. hrLogBin gives a value's bin;
** hrLogHistogram draws COUNT under an <h3> TITLE (static text), with a dashed line at
** CUTOFF (> 0) labelled CUTOFF_LABEL. */
#define HR_HBINS 33 /* edges 10^(k/4) µs for k = -4 .. 28: 0.1 µs .. 10 s */
int hrLogBin(double v);
void hrLogHistogram(hr_ctx *x, const char *title, const char *xlabel, const double *count,
                    double cutoff, const char *cutoff_label, const char *color);

/* ---------------------------------------------------------------- the sections */
/* Each writes one <section> of the current job's part (report.c calls them in order),
** numbered as on the page. */

/* report_health.c: the Trace health block that opens each job's part, unnumbered (HR-10). */
void hrHealth(hr_ctx *x);

/* report_findings.c: the overview of the jobs (a page of several) and section 1, the findings. */
void hrJobsOverview(hr_ctx *x, int njobs, char *const *names);
void hrFindings(hr_ctx *x);

/* report_hta.c: sections 2-11, the traces and HTA's analyses. */
void hrOverview(hr_ctx *x);
void hrTemporal(hr_ctx *x);
void hrKernelTypes(hr_ctx *x);
void hrTopKernels(hr_ctx *x);
void hrAcross(hr_ctx *x);
void hrIdle(hr_ctx *x);
void hrOverlap(hr_ctx *x);
void hrQueue(hr_ctx *x);
void hrMemBw(hr_ctx *x);
void hrLaunch(hr_ctx *x);

/* report_more.c: sections 12-14, collectives, memory, critical path. */
void hrCollectives(hr_ctx *x);
void hrMemory(hr_ctx *x);
void hrCritPath(hr_ctx *x);

/* report_ops.c: section 15, GPU kernels and operators (the TensorBoard plugin's views). */
void hrOps(hr_ctx *x);
/* report_modules.c: section 14's nn.Module view (hta_module_stats), after the kernels. */
void hrModules(hr_ctx *x);

/* report_perf.c: section 16, operator performance. */
void hrPerf(hr_ctx *x);

/* report_tb.c: section 17, the TensorBoard plugin's Overview, GPU summary, Distributed view. */
void hrTbViews(hr_ctx *x);

/* report_compare.c: the comparison of two jobs, before the jobs' parts (--compare). */
void hrCompare(hr_ctx *x, const char *a, const char *b);

#endif

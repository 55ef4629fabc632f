/*
** report_int.h: what the parts of the HTML report share (report.c, report_more.c).
** Internal to hta-ingest: the page context, the job-scoped SQL helpers (every
** statement goes through hrPrep / hrMat / hrTableOf, which put the job's filter on
** every analysis: HR-8) and the section functions kept outside report.c.
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

/* report.c: errors, job-scoped statements, tables, sections (see there). */
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
int hrMat(hr_ctx *x, const char *name, const char *src);
void hrTableOf(hr_ctx *x, const char *tmpl, const char *src, const char *name, const char *what);
void hrSection(hr_ctx *x, int i, const char *what);
void hrEndSection(hr_ctx *x);
/* A link to the section ID of this job's part: "<a href=...>N. Title</a>". */
void hrSectionLink(hr_ctx *x, const char *id);
#define HR_SEC_FINDINGS 16 /* its index among the sections (report.c hr_sections) */
void hrShownNote(hr_ctx *x);
void hrSeries(hr_ctx *x, const char *sql, const char *what, const char *key_prefix,
              const char *ylabel, const char *unit);

/* report_findings.c: section 1, the findings. */
void hrFindings(hr_ctx *x);

/* report_more.c: sections 11-13, and hrMat into temp.NAME that notes an empty result. */
double hrScalar(hr_ctx *x, const char *sql, const char *what); /* NAN: failed or NULL */
void hrCollectives(hr_ctx *x);
void hrMemory(hr_ctx *x);
void hrCritPath(hr_ctx *x);
int hrMatRows(hr_ctx *x, const char *name, const char *src, const char *note);
/* report_ops.c: section 14, GPU kernels and operators (the TensorBoard plugin's views). */
void hrOps(hr_ctx *x);
/* report_modules.c: section 14's nn.Module view (hta_module_stats), after the kernels. */
void hrModules(hr_ctx *x);

/* report_perf.c: section 15, operator performance. */
void hrPerf(hr_ctx *x);

/* report_tb.c: section 16, the TensorBoard plugin's Overview, GPU summary, Distributed view. */
void hrTbViews(hr_ctx *x);

#endif

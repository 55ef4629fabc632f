/*
** report.c: the HTML report of hta-ingest (`hta-ingest --report OUT.html DB`).
**
**   char err[HR_ERR_MAX];
**   switch (hr_write_report(db, "report.html", NULL, err, sizeof err)) { ... }
**
** One self-contained file (inline CSS and SVG, no script, no network) with the
** charts HTA draws, in HTA's order, each followed by the table it is drawn from
** and, folded under "SQL", the query that makes that table:
**
**   Unnumbered, first: the trace's health, what not to trust (report_health.c).
**   1. Findings: what to fix first (report_findings.c).
**   2-11. The traces and HTA's analyses, in HTA's order: temporal breakdown,
**      kernel types, top kernels, kernels across ranks, idle time, overlap, queue
**      length, memory bandwidth, launch statistics (report_hta.c).
**  12-14. Collectives, memory, critical path (report_more.c).
**  15. GPU kernels and operators (report_ops.c).
**  16. Operator performance: roofline, top operators (report_perf.c).
**  17. The TensorBoard plugin's Overview, GPU summary and Distributed view (report_tb.c).
**
** The files stand on one another (report_int.h): this one, the page, calls the
** sections; the sections draw through report_charts.c and read through
** report_ctx.c (the job-scoped statements, tables, headings); nothing calls back up.
**
** Requirements (tests cite them as HR-n):
**  1. Every analysis runs through SQL on the caller's connection with HTA's
**     default parameters; the SQL shown under a table makes that table. (A
**     chart and its tables read one run of the analysis, copied into a TEMP
**     table that is dropped at the end.)
**  2. Per-rank detail (pies, idle time, time series) covers at most
**     HR_MAX_RANKS ranks: all when there are that few, else the lowest, the
**     highest and evenly spaced ones between; the report says which.
**  3. Time series are downsampled to min/max per pixel column (svg.c SV-4), so
**     the file stays small for any trace and no peak is lost; the series used are
**     the tie-collapsed ones (collapse_ties = 1: one point per timestamp).
**  4. Tables show at most HR_TABLE_ROWS rows and say how many were left out.
**  5. An analysis that fails (SQL error) shows its message in its section and
**     the report is still written (HR_PARTIAL); out of memory, an interrupt or
**     an unwritable output gives HR_FAILED and no file.
**  6. The output is written to OUT.tmp-PID and renamed into place, so a reader
**     never sees half a report. The database is only read.
**  7. A trace whose rank is shared with another trace (two profiling windows of
**     one worker) is labelled "rank R / trace T" wherever ranks are labelled.
**  8. Jobs are never mixed: every section reads one job (the one asked for, else
**     each job of the database in turn, under its own heading, with its own
**     numbered sections); a job that is not in the database is an error.
**  9. Each job's part opens with its findings (hta_findings): section 1,
**     first in the contents; the sections above follow, numbered from 2.
** 10. Before the findings, an unnumbered "Trace health" block lists the checks of
**     hta_trace_health that failed or warned (report_health.c).
** 11. A job whose traces replay CUDA/HIP graphs gets, in its overview, the graph
**     coverage per trace (hta_graph_coverage: the share of the replayed GPU time
**     under a captured operator) and the launches not merged (hta_graph_launches).
**
** HOW IT WORKS: the extension is registered on the connection (hta-ingest links
** it statically). Every statement goes through hrScoped, which puts the job's
** filter on each table-valued function and on trace, device and ingest_issue
** after FROM or JOIN (FROM hta_x(..) becomes FROM (SELECT * FROM hta_x(..) WHERE
** job IS 'NAME')). Each analysis that feeds a chart runs once into temp.hr_*
** (hrMat); the chart reads that copy with a prepared statement, and its tables
** are rendered by one generic function (hrTableOf) from a SELECT over the copy,
** shown as the same SELECT over the analysis. Charts are drawn by the helpers of
** report_charts.c, one per chart shape (bars, pies, step lines, log histograms),
** from a statement over that copy. The whole page is built in an sv_buf (svg.h) and
** written once.
*/
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_int.h"
#include "svg.h"
#include "version.h"

/* ext/hta.c: the default entry point, linked statically into hta-ingest. Weak, so
** that programs linking the ingest objects without the extension (fuzzers) still
** link; hr_write_report() then fails with a message instead of crashing. */
__attribute__((weak)) int sqlite3_hta_init(sqlite3 *db, char **pzErrMsg,
                                           const sqlite3_api_routines *pApi);

/* ---------------------------------------------------------------- page parts */

static const char hr_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe "
    "UI',Roboto,Helvetica,Arial,sans-serif;color:#222;"
    "margin:0;background:#fafafa}\n"
    "main{max-width:1100px;margin:0 auto;padding:8px 20px 40px;background:#fff}\n"
    "h1{font-size:24px;margin:16px 0 4px}h2{font-size:19px;margin:34px 0 6px;border-bottom:1px "
    "solid #ddd;"
    "padding-bottom:4px}h3{font-size:15px;margin:18px 0 4px}\n"
    "p.what{color:#444;margin:4px 0 10px;max-width:900px}p.note{color:#666;font-size:13px}\n"
    "nav ol{columns:2;font-size:13px;margin:6px 0}\n"
    "svg.chart{display:block;width:100%;height:auto;max-width:960px;margin:6px 0}\n"
    ".pies{display:flex;flex-wrap:wrap;gap:4px 16px}.pies svg.chart{width:auto;max-width:100%}\n"
    ".grid2{display:flex;flex-wrap:wrap;gap:4px 16px}.grid2 "
    "figure{margin:0;width:520px;max-width:100%}\n"
    "figcaption{font-size:13px;font-weight:600;margin-top:8px;overflow-wrap:anywhere}\n"
    ".grid{stroke:#e6e6e6}.axisline{stroke:#888}.xtick{stroke:#888}\n"
    ".tick{font-size:11px;fill:#444}.axis{font-size:12px;fill:#333}.legend{font-size:12px;fill:#"
    "333}\n"
    ".ptitle{font-size:13px;font-weight:600;fill:#222}.slice{fill:#fff;font-size:11px;font-weight:"
    "600}\n"
    ".nodata{fill:#999;font-size:14px}.line{fill:none;stroke-width:1.3}\n"
    ".whisker{stroke:#222;stroke-width:1.5;fill:none}.cutoff{stroke:#d62728;stroke-width:1.5;"
    "stroke-dasharray:5 4}.cutlabel{font-size:11px;fill:#d62728}\n"
    "div.tw{overflow:auto;max-height:440px;margin:8px 0;border:1px solid #e3e3e3}\n"
    "table{border-collapse:collapse;font-size:12.5px;width:100%}th{position:sticky;top:0;"
    "background:#f0f0f0;"
    "text-align:left;font-weight:600}th.n{text-align:right}\n"
    "th,td{padding:3px 8px;border-bottom:1px solid "
    "#eee}td{white-space:nowrap}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "td.null{color:#aaa}td.empty{color:#888;font-style:italic}tbody "
    "tr:nth-child(even){background:#fbfbfb}\n"
    "details{margin:2px 0 10px;font-size:12.5px}summary{cursor:pointer;color:#555}"
    "pre{background:#f6f6f6;padding:8px;overflow:auto;white-space:pre-wrap}\n"
    "p.error{background:#fdecea;border-left:4px solid #d62728;padding:6px 10px}\n"
    "p.more{font-size:12.5px;color:#666;margin:0}footer{color:#777;font-size:12px;margin-top:30px}"
    "\n"
    "div.fd{max-height:none}table.fd td{white-space:normal;vertical-align:top}table.fd "
    "td:first-child{white-space:nowrap}table.fd "
    "td.fdt{min-width:250px}table.fd td.fda{min-width:280px;color:#333}table.fd "
    "pre{overflow-wrap:anywhere;max-width:300px;margin:2px 0}\n"
    "table.fd tr.sum td{background:#eef4fb;border-top:2px solid #c9d9ec}table.fd tr.sub "
    "td.fdt{padding-left:26px}table.fd small{color:#8a5a00}table.fd td.n{white-space:nowrap}\n";

/* ---------------------------------------------------------------- the page */

/* The database file's base name, for the title. */
static const char *hrDbName(sqlite3 *db) {
  const char *f = sqlite3_db_filename(db, "main");
  if (!f || !*f) return "(in-memory database)";
  const char *s = strrchr(f, '/');
  return s ? s + 1 : f;
}

/* The page's head: title and style. */
static void hrHead(hr_ctx *x) {
  sv_buf *o = x->o;
  const char *name = hrDbName(x->db);
  sv_puts(o,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>HTA "
          "report: ");
  sv_esc(o, name);
  sv_printf(o, "</title>\n<style>\n%s</style></head>\n<body><main>\n<h1>Holistic Trace Analysis: ",
            hr_css);
  sv_esc(o, name);
  sv_puts(o, "</h1>\n");
}

/* One job's part of the page: its overview line, contents and sections (HR-8).
** JOB is its name (NULL when the trace rows name a missing job row). */
static void hrJob(hr_ctx *x, const char *job, int njobs) {
  sv_buf *o = x->o;
  if (njobs > 1) {
    sv_printf(o, "<h1 id=\"%sjob\">Job ", x->idp);
    sv_esc(o, job ? job : "(unnamed)");
    sv_puts(o, "</h1>\n");
  }
  sv_puts(o, "<p class=\"what\">");
  sqlite3_stmt *st =
      hrPrep(x,
             "SELECT (SELECT count(*) FROM trace), (SELECT count(DISTINCT rank) FROM trace),"
             " (SELECT coalesce(sum(event_count), 0) FROM trace),"
             " (SELECT group_concat(name, ', ') FROM (SELECT DISTINCT name FROM device"
             "  WHERE name IS NOT NULL ORDER BY name)),"
             " (SELECT value FROM meta WHERE key = 'updated_at')",
             "overview");
  if (st && hrStep(x, st, "overview") == SQLITE_ROW) {
    long long nt = sqlite3_column_int64(st, 0), nr = sqlite3_column_int64(st, 1),
              ne = sqlite3_column_int64(st, 2);
    if (job) {
      sv_puts(o, "Job <b>");
      sv_esc(o, job);
      sv_puts(o, "</b>: ");
    }
    sv_printf(o, "%lld trace file%s, %lld rank%s, %lld events", nt, nt == 1 ? "" : "s", nr,
              nr == 1 ? "" : "s", ne);
    if (sqlite3_column_type(st, 3) == SQLITE_TEXT) {
      sv_puts(o, "; GPUs: ");
      sv_esc(o, (const char *)sqlite3_column_text(st, 3));
    }
    if (sqlite3_column_type(st, 4) == SQLITE_TEXT) {
      sv_puts(o, "; ingested ");
      sv_esc(o, (const char *)sqlite3_column_text(st, 4));
    }
    sv_puts(o, ". ");
  }
  sqlite3_finalize(st);
  sv_puts(
      o,
      "Times are microseconds (\xC2\xB5s) unless marked. Hover over a chart for its numbers; every "
      "table can be reproduced with the SQL under it (<code>sqlite3 DB -cmd '.load "
      "./hta'</code>)");
  if (njobs > 1) {
    sv_puts(o, ", with <code>WHERE job = ");
    sv_esc(o, x->job_q);
    sv_puts(o, "</code> on each analysis");
  }
  sv_puts(o, ".</p>\n");
  hrContents(x);
  void (*const parts[])(hr_ctx *) = {
      hrHealth,      hrFindings, hrOverview, hrTemporal, hrKernelTypes, hrTopKernels,
      hrAcross,      hrIdle,     hrOverlap,  hrQueue,    hrMemBw,       hrLaunch,
      hrCollectives, hrMemory,   hrCritPath, hrOps,      hrPerf,        hrTbViews};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !x->fatal && !o->oom; i++) parts[i](x);
}

static void hrFoot(hr_ctx *x) {
  sv_printf(x->o,
            "<footer>Made by hta-ingest %s (hta-sqlite) with SQLite %s. The analyses follow HTA "
            "0.6.1 with "
            "the deviations listed in docs/deviations.md.</footer>\n</main></body></html>\n",
            HTA_VERSION, sqlite3_libversion());
}

/* Forgets one job's traces and shown ranks (hrLoadTraces fills them again). */
static void hrJobReset(hr_ctx *x) {
  free(x->tr);
  free(x->by_id);
  x->tr = NULL;
  x->by_id = NULL;
  x->ntr = x->nranks = x->dup = x->nshown = 0;
  x->span_us = 0;
  sqlite3_free(x->job_q);
  x->job_q = NULL;
}

/* Writes every job of the database, or only JOB (HR-8). The jobs are read first:
** an open statement would keep hrMat from dropping its temp tables. */
static void hrJobs(hr_ctx *x, const char *job) {
  sqlite3_stmt *st = NULL;
  int has_job_table = 0, njobs = 0;
  struct hr_job {
    int64_t id;
    char *name;
  } *jobs = NULL;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'job'",
                         -1, &st, NULL) == SQLITE_OK)
    has_job_table = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(x->db,
                         "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'capture'",
                         -1, &st, NULL) == SQLITE_OK)
    x->has_capture = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(
          x->db,
          has_job_table ? "SELECT t.job_id, j.name FROM trace t"
                          " LEFT JOIN job j ON j.job_id = t.job_id"
                          " WHERE ?1 IS NULL OR j.name = ?1 GROUP BY t.job_id ORDER BY t.job_id"
                        : "SELECT 1, NULL FROM trace WHERE ?1 IS NULL LIMIT 1",
          -1, &st, NULL) != SQLITE_OK) {
    hrFail(x, "reading the jobs");
    x->fatal = SQLITE_ERROR;
    return;
  }
  if (job) sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
  while (!x->fatal && hrStep(x, st, "reading the jobs") == SQLITE_ROW) {
    struct hr_job *p = realloc(jobs, (size_t)(njobs + 1) * sizeof *p);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (!p) {
      hrOom(x);
      break;
    }
    jobs = p;
    jobs[njobs].id = sqlite3_column_int64(st, 0);
    jobs[njobs].name = name ? strdup(name) : NULL;
    if (name && !jobs[njobs].name) {
      hrOom(x);
      break;
    }
    njobs++;
  }
  sqlite3_finalize(st);
  if (njobs == 0 && !job && !x->fatal) { /* a database without traces: its empty sections */
    if (!(jobs = calloc(1, sizeof *jobs))) hrOom(x);
    else jobs[njobs++].id = -1;
  }
  if (njobs > 1 && !x->fatal) { /* the overview of every job first (report_findings.c HRF-1) */
    char **names = malloc((size_t)njobs * sizeof *names);
    if (!names) hrOom(x);
    for (int k = 0; names && k < njobs; k++) names[k] = jobs[k].name;
    if (names) hrJobsOverview(x, njobs, names);
    free(names);
  }
  for (int k = 0; k < njobs && !x->fatal && !x->o->oom; k++) {
    hrJobReset(x);
    x->job_id = jobs[k].id;
    if (!(x->job_q = sqlite3_mprintf("%Q", jobs[k].name))) {
      hrOom(x);
      break;
    }
    if (njobs > 1) snprintf(x->idp, sizeof x->idp, "j%d-", k + 1);
    else x->idp[0] = 0;
    if (hrLoadTraces(x) == 0 && !x->fatal) hrJob(x, jobs[k].name, njobs);
  }
  for (int k = 0; k < njobs; k++) free(jobs[k].name);
  free(jobs);
  if (job && njobs == 0 && !x->fatal) {
    snprintf(x->err, sizeof x->err, "no job named '%s' (hta-ingest --list DB lists them)", job);
    x->fatal = SQLITE_ERROR;
  }
}

/* ---------------------------------------------------------------- entry point */

/* 1 when the hta extension is registered on DB already. */
static int hrHasExtension(sqlite3 *db) {
  sqlite3_stmt *st;
  int has = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT 1 FROM pragma_module_list WHERE name = 'hta_temporal_breakdown'",
                         -1, &st, NULL) == SQLITE_OK) {
    has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
  }
  return has;
}

static int hrWriteFile(const char *path, const sv_buf *b, char *err, size_t errlen) {
  char tmp[4096];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp) {
    snprintf(err, errlen, "%s: path too long", path);
    return -1;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
    return -1;
  }
  int ok = fwrite(b->p, 1, b->n, f) == b->n;
  int e = errno;
  if (fclose(f) != 0 && ok) ok = 0, e = errno;
  if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
  if (!ok) {
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    unlink(tmp);
    return -1;
  }
  return 0;
}

int hr_use_extension(sqlite3 *db, char *err, size_t errlen) {
  sqlite3_stmt *st;
  int is_hta = 0;
  if (sqlite3_prepare_v2(
          db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'trace'", -1, &st,
          NULL) == SQLITE_OK) {
    is_hta = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
  }
  if (!is_hta) {
    snprintf(err, errlen, "%s: not an hta-sqlite database (no trace table)", hrDbName(db));
    return -1;
  }
  if (!hrHasExtension(db)) {
    char *zErr = NULL;
    if (!sqlite3_hta_init) {
      snprintf(err, errlen, "the hta extension is not linked into this program");
      return -1;
    }
    if (sqlite3_hta_init(db, &zErr, NULL) != SQLITE_OK) {
      snprintf(err, errlen, "registering the hta extension: %s", zErr ? zErr : sqlite3_errmsg(db));
      sqlite3_free(zErr);
      return -1;
    }
  }
  return 0;
}

int hr_write_report(sqlite3 *db, const char *out_path, const char *job, char *err, size_t errlen) {
  return hr_write_report_cmp(db, out_path, job, NULL, NULL, err, errlen);
}

int hr_write_report_cmp(sqlite3 *db, const char *out_path, const char *job, const char *cmp_a,
                        const char *cmp_b, char *err, size_t errlen) {
  hr_ctx x = {.db = db};
  sv_buf out;
  sv_init(&out);
  x.o = &out;
  if (errlen) err[0] = 0;
  if (hr_use_extension(db, err, errlen)) return HR_FAILED;
  hrHead(&x);
  if (cmp_a && cmp_b) hrCompare(&x, cmp_a, cmp_b); /* report_compare.c */
  if (!x.fatal) hrJobs(&x, job);
  if (!x.fatal) hrFoot(&x);
  hrJobReset(&x);
  sqlite3_exec(db,
               "DROP TABLE IF EXISTS temp.hr_tb; DROP TABLE IF EXISTS temp.hr_ktb; DROP TABLE IF "
               "EXISTS temp.hr_kb;"
               " DROP TABLE IF EXISTS temp.hr_kba; DROP TABLE IF EXISTS temp.hr_it; DROP TABLE IF "
               "EXISTS temp.hr_cc;"
               " DROP TABLE IF EXISTS temp.hr_ls; DROP TABLE IF EXISTS temp.hr_ci;"
               " DROP TABLE IF EXISTS temp.hr_cr; DROP TABLE IF EXISTS temp.hr_ms;"
               " DROP TABLE IF EXISTS temp.hr_mt; DROP TABLE IF EXISTS temp.hr_cps;"
               " DROP TABLE IF EXISTS temp.hr_cpsum; DROP TABLE IF EXISTS temp.hr_cp;",
               NULL, NULL, NULL);
  int rc;
  if (out.oom || x.fatal) {
    snprintf(err, errlen, "%s", out.oom ? "out of memory" : x.err);
    rc = HR_FAILED;
  } else if (hrWriteFile(out_path, &out, err, errlen)) {
    rc = HR_FAILED;
  } else if (x.failures) {
    snprintf(err, errlen, "%s", x.err);
    rc = HR_PARTIAL;
  } else {
    rc = HR_OK;
  }
  sv_free(&out);
  return rc;
}

/*
** main.c: the hta-ingest command line.
**
**   hta-ingest [options] DB PATH...        ingest (inputs.h: which files, which job)
**   hta-ingest --list DB                   one line per job (list.h)
**   hta-ingest --upgrade DB                schema 1 -> 2 only (upgrade.h)
**   hta-ingest --merge OUT IN...           copy whole traces between databases (merge.h)
**   hta-ingest --report OUT DB | --write-counters RANK OUT DB
**   hta-ingest --findings DB [--job NAME]  what to fix, ranked by its cost (findings_print.h)
**
** Exit status: 0 every file ingested (or already present), 1 some file failed or
** there was nothing to ingest, 2 usage error or the database could not be opened or
** written.
*/
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare_print.h"
#include "findings_print.h"
#include "health_print.h"
#include "inputs.h"
#include "issues_print.h"
#include "io/io.h"
#include "list.h"
#include "merge.h"
#include "pipeline.h"
#include "progress.h"
#include "rank.h"
#include "report.h"
#include "upgrade.h"
#include "writer.h"
#include "version.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

typedef struct cli {
  int verbosity;  /* 0 silent, 1 errors, 2 summary (default), 3 each file */
  int off_range;  /* files skipped by --ranks so far */
  int progress;   /* draw progress on a terminal */
  int drawn;      /* a progress line is on screen */
  int strict;     /* --strict: a JSON file that is no Kineto trace fails the run */
  uint64_t total; /* bytes on disk of the files given to the pipeline (the progress total) */
  double start;
} cli;

/* A file of a directory that is JSON but no Kineto trace (an execution trace beside the
** Kineto files is a common layout) is reported and skipped; --strict makes it a failure, and
** so is such a file named on the command line. */
static int is_foreign(const cli *c, const pl_file *f) {
  return f->status == PL_FAILED && f->not_a_trace && f->from_dir && !c->strict;
}

/* The temporary database being built, removed if we are interrupted (signal-safe use only). */
static char tmp_db[4096];

/* A progress line is on screen (no newline yet): on_signal ends it. */
static volatile sig_atomic_t line_open;

/* SIGINT, SIGTERM, SIGHUP: ends the progress line, says so, removes the temporary database
** and dies of the signal (exit status 128+sig in a shell). Async-signal-safe calls only. */
static void on_signal(int sig) {
  static const char msg[] = "hta-ingest: interrupted\n";
  ssize_t w = 0;
  if (line_open) w = write(2, "\n", 1);
  w += write(2, msg, sizeof msg - 1);
  (void)w;
  if (tmp_db[0]) unlink(tmp_db);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Derive sorts per parser thread, in MiB: 1.5M-event files (540 MB of JSON) fit in it.
** With more parsers each gets less (SORT_MEM_ALL / -j, at least SORT_MEM_MIN), and the
** same for the spool's memory: every parser holds its sorts and its spool at once, and
** DESIGN 6 bounds the whole process at 200 MB. Measured on 16 cores, 1.5 GB in 16 files,
** peak RSS with 48 + 16 MiB for every parser: 224 MB at -j 4, 673 MB at -j 16; scaled:
** 172-177 MB at -j 4, 224-231 MB at -j 8, 336 MB at -j 16. */
#define SORT_MEM_DEFAULT 48
#define SORT_MEM_ALL 64
#define SORT_MEM_MIN 8
#define SPOOL_MEM_DEFAULT 16
#define SPOOL_MEM_ALL 32
#define SPOOL_MEM_MIN 2
#define STR2(x) #x
#define STR(x) STR2(x)
#define SORT_MEM_DEFAULT_S STR(SORT_MEM_DEFAULT)
/* Plain files from this size (MiB) are read in two halves when alone: below it the
** thread costs about what it saves. */
#define SPLIT_MIN_DEFAULT 64
#define SPLIT_MIN_DEFAULT_S STR(SPLIT_MIN_DEFAULT)

static void usage(FILE *out) {
  fprintf(out,
          "Usage: hta-ingest [options] DB PATH...\n"
          "       hta-ingest --list DB | --upgrade DB | --merge OUT IN...\n"
          "       hta-ingest --findings DB [--job NAME]\n"
          "       hta-ingest --compare DB JOB_A JOB_B\n"
          "Load PyTorch profiler (Kineto) traces into the SQLite database DB.\n"
          "Each PATH is a .json or .json.gz trace, or a directory of them. A directory is\n"
          "a job named after it; a file joins the job of its directory; a directory of\n"
          "job folders gives one job per folder. A job folder's capture_traces/ holds its\n"
          "graph capture traces.\n"
          "\n"
          "Options:\n"
          "  --job NAME      put every PATH's files into job NAME\n"
          "  --captures DIR  the CUDA/HIP graph capture traces of the job (of --job NAME,\n"
          "                  or the one job the PATHs name), with DIR's capture index\n"
          "                  execution_details.json; found without it in a job folder's\n"
          "                  capture_traces/ (DIR may be given more than once)\n"
          "  --ranks A-B     ingest only the files of ranks A to B (or --ranks N): a shard\n"
          "  --list DB       print one line per job of DB (ranks, files, steps, events,\n"
          "                  bytes, source)\n"
          "  --findings DB   print what to fix in each job of DB (or job NAME with --job\n"
          "                  NAME): per rank the recoverable share of the step, then\n"
          "                  hta_findings' causes under their symptoms, cost per step and\n"
          "                  share of the step, with advice and caveats\n"
          "  --compare DB JOB_A JOB_B\n"
          "                  print what changed from job JOB_A to job JOB_B: the mean step\n"
          "                  difference split into parts that add up to it (by role, by GPU\n"
          "                  busy time and idle cause), the findings that appeared,\n"
          "                  disappeared or changed cost, the operators that explain it,\n"
          "                  the matched call trees' largest changes; with\n"
          "                  --report OUT, the report gains that comparison section\n"
          "  --upgrade DB    upgrade a database of an older schema, nothing else\n"
          "  --merge OUT IN...\n"
          "                  copy the jobs and traces of databases IN into OUT (created\n"
          "                  if absent), no JSON read; a trace OUT has in its job is\n"
          "                  skipped\n"
          "  -j N            parse N files in parallel (default: the cores, at most 4)\n"
          "  --replace       re-ingest files whose content is already in DB\n"
          "  --strict        fail on a JSON file that is not a Kineto trace (default: report\n"
          "                  and skip it, e.g. an execution trace beside the Kineto files)\n"
          "  --sort-memory MB\n"
          "                  memory for each file's link and call-stack sorts before they\n"
          "                  use a temporary file in $TMPDIR (default " SORT_MEM_DEFAULT_S
          ", or " STR(SORT_MEM_ALL) " / N\n"
          "                  with -j N when that is less, at least " STR(SORT_MEM_MIN) ")\n"
          "  --split-min MB  read a plain .json file of at least MB in two halves at once\n"
          "                  when it is the only file under way (default " SPLIT_MIN_DEFAULT_S
          ",\n"
          "                  0: never; never on one core)\n"
          "  --report OUT    write an HTML report of DB to OUT instead (no PATH), a part\n"
          "                  per job, or only job NAME with --job NAME; with --compare A B,\n"
          "                  opened by the comparison of jobs A and B:\n"
          "                  hta-ingest --report report.html DB [--job NAME] [--compare A B]\n"
          "  --write-counters RANK OUT\n"
          "                  write RANK's trace with its queue-length and memory-bandwidth\n"
          "                  counter events to OUT (.gz: gzip) instead (no PATH):\n"
          "                  hta-ingest --write-counters 0 rank0_counters.json.gz DB\n"
          "  -q, --quiet     print errors only (no summary, no health checks)\n"
          "  -v, --verbose   print one line per file\n"
          "  --progress      draw progress even when stderr is not a terminal\n"
          "  --no-progress   never draw progress\n"
          "  -V, --version   print the version and exit\n"
          "  -h, --help      print this help and exit\n"
          "\n"
          "Exit status: 0 all files ingested (or already present), 1 some files failed or\n"
          "nothing to ingest, 2 usage error or database error.\n");
}

static void clear_progress(cli *c) {
  if (c->drawn) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    c->drawn = 0;
    line_open = 0;
  }
}

static void say(cli *c, int level, const char *fmt, ...) {
  if (c->verbosity < level) return;
  clear_progress(c);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Terminal columns of stderr (80 when unknown: --progress on a pipe or a file). */
static int term_width(void) {
  struct winsize ws;
  return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* Progress counts input bytes, the files' sizes on disk (compressed for .json.gz): each file
** is read once, then its rows are written from the spool, so a byte counts half when the
** pass has read it and half when its rows went to the writer: done = (read bytes + written
** bytes) / 2 against the sum of the sizes. It is the total once every file is done
** (written, skipped or failed, whatever was read). The rate, done / seconds,
** is the summary line's MB/s of input. */
static void on_progress(void *ctx, const pl_file *files, int n, double seconds) {
  cli *c = ctx;
  if (!c->progress || c->verbosity < 2) return;
  uint64_t twice = 0;
  pg_info p = {.total = c->total, .seconds = seconds, .files = n};
  const pl_file *cur = NULL;
  for (int i = 0; i < n; i++) {
    const pl_file *f = &files[i];
    if (f->pass == 3) {
      p.files_done++, twice += 2 * f->size;
    } else if (f->pass) {
      uint64_t s = atomic_load_explicit(&f->scan_raw, memory_order_relaxed);
      uint64_t w = atomic_load_explicit(&f->full_raw, memory_order_relaxed);
      twice += (s < f->size ? s : f->size) + (w < f->size ? w : f->size);
      if (!cur || f->pass == 2) cur = f;
    }
  }
  p.done = twice / 2;
  if (cur) p.current = base_name(cur->path), p.scanning = cur->pass == 1;
  char line[512];
  pg_format(line, sizeof line, &p, term_width());
  fprintf(stderr, "\r\033[K%s", line);
  fflush(stderr);
  c->drawn = 1;
  line_open = 1;
}

/* After the pipeline: the line drawn last is redrawn with the final numbers and ended with a
** newline, so it stays above the summary. */
static void end_progress(cli *c, const pl_file *files, int n, double seconds) {
  if (!c->drawn) return;
  on_progress(c, files, n, seconds);
  fputc('\n', stderr);
  c->drawn = 0;
  line_open = 0;
}

/* After the summary: the issues of this run's ingested files a user must see at once
** (issues_print.h), e.g. two files of one rank in a job. */
static void say_issues(const char *db, const pl_file *pf, int n) {
  const char **paths = calloc((size_t)n, sizeof *paths);
  if (!paths) return;
  for (int i = 0; i < n; i++) paths[i] = pf[i].status == PL_OK ? pf[i].path : NULL;
  ip_print(db, paths, n, stderr);
  free(paths);
}

static void on_done(void *ctx, const pl_file *f) {
  cli *c = ctx;
  if (is_foreign(c, f))
    say(c, 1, "hta-ingest: %s: skipped: %s (--strict makes this an error)\n", f->path, f->message);
  else if (f->status == PL_FAILED) say(c, 1, "hta-ingest: %s: %s\n", f->path, f->message);
  else if (f->off_range)
    c->off_range++, say(c, 2, "hta-ingest: %s: skipped: %s\n", f->path, f->message);
  else if (f->status == PL_SKIPPED) say(c, 3, "hta-ingest: %s: skipped: %s\n", f->path, f->message);
  else
    say(c, 3,
        "hta-ingest: %s: rank %lld, %lld events (read %.2f s%s, write %.2f s, spilled %.1f MB)\n",
        f->path, (long long)f->rank, (long long)f->events, f->scan_s,
        f->halves ? " in two halves" : "", f->write_s, f->spilled / 1e6);
}

/* Parsers by default: the cores, at most JOBS_MAX. Measured on 16 cores (1.5 GB, 16
** files, one pass): -j 1 10.2 s, 2 6.5 s, 4 3.9-5.5 s, 8 4.1-4.4 s, 16 4.6 s: past 4 the one
** SQLite writer is the bound, and -j 8 takes 224-231 MB (DESIGN 6: 200 MB). */
#define JOBS_MAX 4
static int default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > JOBS_MAX ? JOBS_MAX : (int)n;
}

/* MiB for each of JOBS parsers: ALL shared, between MIN and MAX each. */
static size_t per_parser(int all, int max, int min, int jobs) {
  int mb = all / jobs;
  return (size_t)(mb > max ? max : mb < min ? min : mb) << 20;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* DB opened read-only for --report, --write-counters, --findings, --list; NULL after
** saying why. */
static sqlite3 *open_ro(const char *db) {
  sqlite3 *h = NULL;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) return h;
  fprintf(stderr, "hta-ingest: %s: %s\n", db, h ? sqlite3_errmsg(h) : "out of memory");
  sqlite3_close(h);
  return NULL;
}

/* --report OUT DB [--job NAME] [--compare A B]: the HTML report of DB, every job or JOB
** (report.c), opened by the comparison of jobs A and B (report_compare.c) when asked.
** Returns the exit status. */
static int report_cmd(cli *c, const char *out, const char *db, const char *job, const char *cmp_a,
                      const char *cmp_b) {
  sqlite3 *h = NULL;
  char err[HR_ERR_MAX];
  double t0 = now_s();
  if (!(h = open_ro(db))) return EXIT_USAGE;
  int rc = hr_write_report_cmp(h, out, job, cmp_a, cmp_b, err, sizeof err);
  sqlite3_close(h);
  if (rc == HR_FAILED) say(c, 1, "hta-ingest: %s: %s\n", out, err);
  else if (rc == HR_PARTIAL)
    say(c, 1, "hta-ingest: %s: written, but an analysis failed: %s\n", out, err);
  else say(c, 2, "hta-ingest: %s: report written (%.2f s)\n", out, now_s() - t0);
  return rc == HR_OK ? 0 : rc == HR_PARTIAL ? EXIT_FAILED : EXIT_USAGE;
}

/* --write-counters RANK OUT DB: hta_write_trace_with_counters (ext/io/io_counters.c).
** Returns the exit status: 1 when the file could not be written (input missing or
** changed, output refused or unwritable, no such rank), 2 for a database error. */
static int write_counters_cmd(cli *c, const char *rank, const char *out, const char *db) {
  sqlite3 *h = NULL;
  char *end, *err = NULL;
  int64_t n = 0;
  hta_io_sel sel = {.has_rank = 1};
  sel.rank = strtoll(rank, &end, 10);
  if (!*rank || *end) {
    fprintf(stderr,
            "hta-ingest: Incorrect parameter: --write-counters needs an integer RANK, not %s\n",
            rank);
    return EXIT_USAGE;
  }
  if (!(h = open_ro(db))) return EXIT_USAGE;
  int rc = hta_io_write_counters(h, &sel, out, &n, &err);
  sqlite3_close(h);
  if (rc == SQLITE_OK)
    say(c, 2, "hta-ingest: %s: %lld counter events written\n", out, (long long)n);
  else say(c, 1, "hta-ingest: %s: %s\n", out, err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  return rc == SQLITE_OK                               ? 0
         : rc == SQLITE_IOERR || rc == SQLITE_NOTFOUND ? EXIT_FAILED
                                                       : EXIT_USAGE;
}

/* Messages of inputs.c and merge.c: they never print themselves. */
static void say_msg(void *ctx, int level, const char *msg) { say(ctx, level, "%s\n", msg); }

static void install_signals(const char *db) {
  struct stat sb;
  if (stat(db, &sb) != 0 || sb.st_size == 0) wr_temp_path(db, tmp_db, sizeof tmp_db);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);
}

/* Terminal columns of stdout (100 when it is not a terminal). */
static int out_width(void) {
  struct winsize ws;
  return ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
}

/* --findings DB [--job NAME] (findings_print.c). Returns the exit status: 0 with findings
** or none, 2 when the database cannot be read or has no job NAME. */
static int findings_cmd(const char *db, const char *job) {
  sqlite3 *h = NULL;
  char err[512];
  if (!(h = open_ro(db))) return EXIT_USAGE;
  int rc = fp_print(h, stdout, job, out_width(), err, sizeof err);
  if (rc) fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
  sqlite3_close(h);
  return rc ? EXIT_USAGE : 0;
}

/* --compare DB JOB_A JOB_B (compare_print.c). Returns the exit status: 0, or 2 when the
** database cannot be read, a job is not in it or an analysis failed. */
static int compare_cmd(const char *db, const char *a, const char *b) {
  sqlite3 *h = NULL;
  char err[512];
  if (!(h = open_ro(db))) return EXIT_USAGE;
  int rc = cmp_print(h, stdout, a, b, out_width(), err, sizeof err);
  if (rc) fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
  sqlite3_close(h);
  return rc ? EXIT_USAGE : 0;
}

/* --list DB. Returns the exit status. */
static int list_cmd(const char *db) {
  sqlite3 *h = NULL;
  char err[512];
  if (!(h = open_ro(db))) return EXIT_USAGE;
  int rc = ls_print(h, stdout, err, sizeof err);
  if (rc) fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
  sqlite3_close(h);
  return rc ? EXIT_USAGE : 0;
}

static void say_upgraded(cli *c, const char *db, int64_t traces, int64_t jobs) {
  say(c, 2, "hta-ingest: %s: upgraded the database to schema %d: %lld trace%s in %lld job%s\n", db,
      UP_SCHEMA, (long long)traces, traces == 1 ? "" : "s", (long long)jobs, jobs == 1 ? "" : "s");
}

/* --upgrade DB: wr_open() upgrades an old database; nothing else is written but meta. */
static int upgrade_cmd(cli *c, const char *db) {
  struct stat sb;
  char err[WR_ERR_MAX];
  wr_db *w = NULL;
  int64_t traces, jobs;
  int missing = stat(db, &sb) != 0;
  if (missing || sb.st_size == 0) { /* never create one */
    fprintf(stderr, "hta-ingest: %s: %s\n", db, missing ? strerror(errno) : "empty file");
    return EXIT_USAGE;
  }
  if (wr_open(&w, db, err)) {
    fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
    wr_close(w, 0, err);
    return EXIT_USAGE;
  }
  if (wr_upgraded(w, &traces, &jobs)) say_upgraded(c, db, traces, jobs);
  else say(c, 2, "hta-ingest: %s: already at schema %d\n", db, UP_SCHEMA);
  if (wr_close(w, 1, err)) {
    fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
    return EXIT_USAGE;
  }
  return 0;
}

/* --merge OUT IN...: every input is checked before OUT is opened (or created). */
static int merge_cmd(cli *c, const char *out, char **in, int n) {
  struct stat so, si;
  char err[1024];
  int have_out = stat(out, &so) == 0 && so.st_size > 0;
  for (int i = 0; i < n; i++) {
    if (stat(in[i], &si) != 0) {
      fprintf(stderr, "hta-ingest: %s: %s\n", in[i], strerror(errno));
      return EXIT_USAGE;
    }
    if (have_out && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      fprintf(stderr, "hta-ingest: %s: cannot merge a database into itself (it is the output %s)\n",
              in[i], out);
      return EXIT_USAGE;
    }
  }
  install_signals(out);
  wr_db *w = NULL;
  int seeded = 0;
  double t0 = now_s();
  /* a new OUT starts as a copy of the first IN when it can (its rows need no remapping) */
  if (wr_open_seeded(&w, out, in[0], &seeded, err)) {
    fprintf(stderr, "hta-ingest: %s: %s\n", out, err);
    wr_close(w, 0, err);
    return EXIT_USAGE;
  }
  int64_t traces, jobs;
  if (wr_upgraded(w, &traces, &jobs)) say_upgraded(c, out, traces, jobs);
  mg_stats st = {0};
  int rc = 0;
  if (seeded) {
    mg_count(wr_sqlite(w), &st);
    say(c, 3, "hta-ingest: %s: %s: copied whole, page by page (%lld traces)\n", out, in[0],
        (long long)st.traces);
  }
  for (int i = seeded; i < n && rc == 0; i++)
    if (mg_merge(wr_sqlite(w), in[i], &st, say_msg, c, err, sizeof err)) {
      fprintf(stderr, "hta-ingest: %s\n", err);
      rc = EXIT_USAGE;
    }
  if (wr_close(w, rc == 0, err)) { /* a new OUT that failed is removed here */
    fprintf(stderr, "hta-ingest: %s: %s\n", out, err);
    rc = EXIT_USAGE;
  }
  double secs = now_s() - t0;
  if (rc == 0) {
    say(c, 2, "hta-ingest: %s: %lld trace%s merged from %d database%s", out, (long long)st.traces,
        st.traces == 1 ? "" : "s", n, n == 1 ? "" : "s");
    if (st.skipped) say(c, 2, ", %lld already present", (long long)st.skipped);
    say(c, 2, "; %lld events, %lld rows, %.2f s, %.2fM events/s\n", (long long)st.events,
        (long long)st.rows, secs, secs > 0 ? (double)st.events / 1e6 / secs : 0.0);
  }
  return rc;
}

/* --ranks A-B or N into [lo, hi]. 0, or -1 when malformed. */
static int parse_ranks(const char *v, int64_t *lo, int64_t *hi) {
  char *end;
  if (!v || *v < '0' || *v > '9') return -1;
  *lo = *hi = strtoll(v, &end, 10);
  if (*end == '-') {
    if (end[1] < '0' || end[1] > '9') return -1;
    *hi = strtoll(end + 1, &end, 10);
  }
  return *end || *hi < *lo || errno == ERANGE ? -1 : 0;
}

/* Incorrect parameter: prints why and the usage, returns EXIT_USAGE. */
static int bad_param(const char *fmt, const char *arg) {
  fprintf(stderr, "hta-ingest: Incorrect parameter: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  usage(stderr);
  return EXIT_USAGE;
}

/* After an ingest: the health checks of the files ingested now that failed or warned
** (health_print.h), on stderr; an error there is reported, the ingest stands. */
static void say_health(cli *c, const char *db, const pl_file *pf, int n) {
  const char **files = calloc((size_t)n, sizeof *files), **jobs = calloc((size_t)n, sizeof *jobs);
  int nf = 0, nj = 0;
  char err[512] = "";
  sqlite3 *h = NULL;
  if (!files || !jobs) goto done;
  for (int i = 0; i < n; i++) {
    if (pf[i].status != PL_OK) continue;
    files[nf++] = pf[i].path;
    int seen = 0;
    for (int k = 0; k < nj && !seen; k++) seen = !strcmp(jobs[k], pf[i].job);
    if (!seen) jobs[nj++] = pf[i].job;
  }
  clear_progress(c);
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      hp_print(h, stderr, jobs, nj, files, nf, err, sizeof err))
    say(c, 1, "hta-ingest: %s: health checks: %s\n", db, h && !err[0] ? sqlite3_errmsg(h) : err);
done:
  sqlite3_close(h);
  free(files);
  free(jobs);
}

/* The ingest: DB PATH... with o's options; job and ranks from --job / --ranks, the
** capture folders CAPS[0..ncaps) from --captures. */
static int ingest_cmd(cli *c, pl_options *o, const char *db, char **paths, int npaths,
                      const char *job, char **caps, int ncaps) {
  in_list in = {0};
  pl_file *pf = NULL;
  int code = 0, bad_path = 0, n = 0, peeked_out = 0;
  for (int i = 0; i < npaths; i++) {
    int r = in_add(&in, paths[i], job, say_msg, c);
    if (r == -2) {
      fprintf(stderr, "hta-ingest: out of memory\n");
      code = EXIT_USAGE;
      goto end;
    }
    if (r) bad_path = 1;
  }
  for (int i = 0; i < ncaps; i++) {
    const char *cj = job ? job : in.njobs == 1 ? in.jobs[0].name : NULL;
    if (!cj) {
      fprintf(stderr,
              "hta-ingest: --captures %s: whose captures? The PATHs name %d jobs: give --job "
              "NAME\n",
              caps[i], in.njobs);
      code = EXIT_USAGE;
      goto end;
    }
    int r = in_add_captures(&in, caps[i], cj, say_msg, c);
    if (r == -2) {
      fprintf(stderr, "hta-ingest: out of memory\n");
      code = EXIT_USAGE;
      goto end;
    }
    if (r) bad_path = 1;
  }
  if (in.bad_index) bad_path = 1; /* reported; the captures landed without it */
  if (in.nfiles == 0) {           /* never create a database of nothing */
    say(c, 1, "hta-ingest: %s: nothing to ingest; the database was not %s\n", db,
        access(db, F_OK) == 0 ? "changed" : "created");
    code = EXIT_FAILED;
    goto end;
  }
  if (!(pf = calloc((size_t)in.nfiles, sizeof *pf))) {
    fprintf(stderr, "hta-ingest: out of memory\n");
    code = EXIT_USAGE;
    goto end;
  }
  /* --ranks: a file whose rank the first bytes tell is never scanned (rank.h); the
  ** others are scanned and skipped by the pipeline */
  int64_t seen_lo = INT64_MAX, seen_hi = INT64_MIN;
  for (int i = 0; i < in.nfiles; i++) {
    int64_t r;
    if (o->has_ranks && rk_peek(in.files[i].path, &r) == RK_KNOWN) {
      seen_lo = r < seen_lo ? r : seen_lo, seen_hi = r > seen_hi ? r : seen_hi;
      if (r < o->rank_lo || r > o->rank_hi) {
        say(c, 2, "hta-ingest: %s: skipped: rank %lld not in %lld-%lld\n", in.files[i].path,
            (long long)r, (long long)o->rank_lo, (long long)o->rank_hi);
        peeked_out++;
        continue;
      }
    }
    pf[n].path = in.files[i].path;
    pf[n].job = in.jobs[in.files[i].job].name;
    pf[n].from_dir = in.files[i].from_dir;
    pf[n].job_source = in.jobs[in.files[i].job].source;
    pf[n].capture = in.files[i].capture;
    struct stat sb;
    pf[n].size = stat(pf[n].path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    c->total += pf[n].size;
    n++;
  }
  c->off_range = peeked_out;
  if (n == 0) {
    say(c, 1,
        "hta-ingest: no trace file of rank %lld-%lld among %d (ranks %lld-%lld); %s was not %s\n",
        (long long)o->rank_lo, (long long)o->rank_hi, in.nfiles, (long long)seen_lo,
        (long long)seen_hi, db, access(db, F_OK) == 0 ? "changed" : "created");
    code = EXIT_FAILED;
    goto end;
  }
  char err[512];
  install_signals(db);
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) o->split_min = 0; /* no second core to use */
  c->start = now_s();
  pl_stats st = {0};
  int prc = pl_run(db, pf, n, o, &st, err, sizeof err);
  double secs = now_s() - c->start;
  end_progress(c, pf, n, secs);
  if (prc) {
    fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
    code = EXIT_USAGE;
    goto end;
  }
  if (st.upgraded) say_upgraded(c, db, st.up_traces, st.up_jobs);
  int ok = 0, skipped = 0, failed = 0, foreign = 0, captures = 0;
  int64_t events = 0;
  int64_t *ranks = calloc((size_t)n, sizeof *ranks);
  int nranks = 0;
  for (int i = 0; i < n; i++) {
    if (pf[i].status == PL_OK) {
      ok++;
      events += pf[i].events;
      if (pf[i].capture) { /* not a rank's window: counted apart */
        captures++;
        continue;
      }
      int seen = 0;
      for (int k = 0; ranks && k < nranks; k++) seen |= ranks[k] == pf[i].rank;
      if (ranks && !seen) ranks[nranks++] = pf[i].rank;
    } else if (pf[i].status == PL_SKIPPED) {
      skipped += !pf[i].off_range;
    } else if (is_foreign(c, &pf[i])) {
      foreign++;
    } else {
      failed++;
    }
  }
  free(ranks);
  clear_progress(c);
  if (c->off_range && c->verbosity == 1) /* -q: a count instead of a line each */
    fprintf(stderr, "hta-ingest: %d file%s skipped: rank not in %lld-%lld\n", c->off_range,
            c->off_range == 1 ? "" : "s", (long long)o->rank_lo, (long long)o->rank_hi);
  say(c, 2, "hta-ingest: %d file%s ingested", ok, ok == 1 ? "" : "s");
  if (captures) say(c, 2, " (%d graph capture%s)", captures, captures == 1 ? "" : "s");
  if (skipped) say(c, 2, ", %d already present", skipped);
  if (c->off_range)
    say(c, 2, ", %d skipped (rank not in %lld-%lld)", c->off_range, (long long)o->rank_lo,
        (long long)o->rank_hi);
  if (foreign) say(c, 2, ", %d not a Kineto trace (skipped)", foreign);
  if (failed) say(c, 2, ", %d failed", failed);
  /* MB/s of input, as the progress line: every file given to the pipeline was read */
  say(c, 2, "; %d rank%s, %lld events, %.2f s, %.1f MB/s of input\n", nranks,
      nranks == 1 ? "" : "s", (long long)events, secs,
      secs > 0 ? (double)c->total / 1e6 / secs : 0.0);
  if (c->verbosity >= 2) say_issues(db, pf, n);
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    say(c, 3,
        "hta-ingest: peak RSS %.1f MB; CPU: writer %.2f s, other threads %.2f s; commit %.2f s\n",
        (double)ru.ru_maxrss / 1024.0, st.writer_cpu, st.other_cpu, st.finish_s);
  if (ok && c->verbosity >= 2) say_health(c, db, pf, n);
  if (failed || bad_path) code = EXIT_FAILED;
end:
  in_free(&in);
  free(pf);
  return code;
}

int main(int argc, char **argv) {
  /* Only the writer thread uses SQLite: no mutexes, no memory statistics. */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  cli c = {.verbosity = 2, .progress = isatty(2)};
  pl_options o = {.jobs = default_jobs(),
                  .sort_mem = 0, /* per_parser() once -j is known */
                  .split_min = (uint64_t)SPLIT_MIN_DEFAULT << 20,
                  .progress = on_progress,
                  .done = on_done,
                  .ctx = &c};
  const char *db = NULL;
  char **paths = calloc((size_t)argc, sizeof *paths);
  int npaths = 0;
  const char *report = NULL;                        /* --report OUT */
  const char *wc_rank = NULL, *wc_out = NULL;       /* --write-counters RANK OUT */
  const char *job = NULL;                           /* --job NAME */
  char **caps = calloc((size_t)argc, sizeof *caps); /* --captures DIR... */
  int ncaps = 0;
  int list = 0, upgrade = 0, merge = 0; /* --list, --upgrade, --merge */
  int findings = 0;                     /* --findings */
  int compare = 0;                      /* --compare */
  int code = 0;
  if (!paths || !caps) {
    fprintf(stderr, "hta-ingest: out of memory\n");
    free(paths), free(caps);
    return EXIT_USAGE;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      goto end;
    } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
      printf("hta-ingest %s\n", HTA_VERSION);
      goto end;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      c.verbosity = 1;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      c.verbosity = 3;
    } else if (!strcmp(a, "--progress")) {
      c.progress = 1;
    } else if (!strcmp(a, "--no-progress")) {
      c.progress = 0;
    } else if (!strcmp(a, "--strict")) {
      c.strict = 1;
    } else if (!strcmp(a, "--replace")) {
      o.replace = 1;
    } else if (!strcmp(a, "--list")) {
      list = 1;
    } else if (!strcmp(a, "--findings")) {
      findings = 1;
    } else if (!strcmp(a, "--compare")) {
      compare = 1;
    } else if (!strcmp(a, "--upgrade")) {
      upgrade = 1;
    } else if (!strcmp(a, "--merge")) {
      merge = 1;
    } else if (!strcmp(a, "--job")) {
      job = i + 1 < argc ? argv[++i] : NULL;
      if (!job || !*job) {
        code = bad_param("%s needs a job NAME", a);
        goto end;
      }
    } else if (!strcmp(a, "--captures")) {
      if (i + 1 >= argc || !*argv[i + 1]) {
        code = bad_param("%s needs a folder of capture traces", a);
        goto end;
      }
      caps[ncaps++] = argv[++i];
    } else if (!strcmp(a, "--ranks")) {
      const char *v = i + 1 < argc ? argv[++i] : NULL;
      errno = 0;
      if (parse_ranks(v, &o.rank_lo, &o.rank_hi)) {
        code = bad_param("--ranks needs A-B (A <= B) or N, not %s", v ? v : "nothing");
        goto end;
      }
      o.has_ranks = 1;
    } else if (!strcmp(a, "--sort-memory") || !strcmp(a, "--split-min")) {
      int sort = a[3] == 'o';
      long lo = sort ? 1 : 0, hi = sort ? 65536 : 1048576;
      char *endp = NULL;
      long mb = i + 1 < argc ? strtol(argv[++i], &endp, 10) : -1;
      if (!endp || *endp || mb < lo || mb > hi) {
        fprintf(stderr, "hta-ingest: Incorrect parameter: %s needs MB from %ld to %ld\n", a, lo,
                hi);
        usage(stderr);
        code = EXIT_USAGE;
        goto end;
      }
      if (sort) o.sort_mem = (size_t)mb << 20;
      else o.split_min = (uint64_t)mb << 20;
    } else if (!strcmp(a, "--write-counters")) {
      if (i + 2 >= argc) {
        code = bad_param("%s needs RANK and OUT", a);
        goto end;
      }
      wc_rank = argv[++i];
      wc_out = argv[++i];
    } else if (!strcmp(a, "--report")) {
      if (i + 1 >= argc) {
        code = bad_param("%s needs an output file", a);
        goto end;
      }
      report = argv[++i];
    } else if (!strcmp(a, "-j") || !strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      char *endp;
      long j = v ? strtol(v, &endp, 10) : 0;
      if (!v || *endp || j < 1 || j > 256) {
        code = bad_param("%s needs a number from 1 to 256", "-j");
        goto end;
      }
      o.jobs = (int)j;
    } else if (a[0] == '-' && a[1]) {
      code = bad_param("%s", a);
      goto end;
    } else if (!db) {
      db = a;
    } else {
      paths[npaths++] = argv[i];
    }
  }
  if (!o.sort_mem) o.sort_mem = per_parser(SORT_MEM_ALL, SORT_MEM_DEFAULT, SORT_MEM_MIN, o.jobs);
  o.spool_mem = per_parser(SPOOL_MEM_ALL, SPOOL_MEM_DEFAULT, SPOOL_MEM_MIN, o.jobs);
  int modes = !!report + !!wc_out + list + upgrade + merge + findings + (compare && !report);
  if (modes > 1) {
    code = bad_param("%s",
                     "--report, --write-counters, --list, --upgrade, --merge, --findings and "
                     "--compare are each a command of its own (--compare also goes with --report)");
  } else if (modes && (o.has_ranks || ncaps || (job && !report && !findings))) {
    code = bad_param("%s",
                     "--job applies to an ingest (DB PATH...), --report or --findings only; "
                     "--ranks and --captures to an ingest only");
  } else if (compare && !report) {
    if (db && npaths == 2) code = compare_cmd(db, paths[0], paths[1]);
    else code = bad_param("%s", "--compare takes one database and two job names");
  } else if (findings) {
    if (db && npaths == 0) code = findings_cmd(db, job);
    else code = bad_param("%s", "--findings takes one database and no trace PATH");
  } else if (wc_out) {
    if (db && npaths == 0) code = write_counters_cmd(&c, wc_rank, wc_out, db);
    else code = bad_param("%s", "--write-counters RANK OUT takes one database and no trace PATH");
  } else if (report) {
    if (db && npaths == 0 && !compare) code = report_cmd(&c, report, db, job, NULL, NULL);
    else if (db && npaths == 2 && compare)
      code = report_cmd(&c, report, db, job, paths[0], paths[1]);
    else
      code = bad_param("%s", compare ? "--report OUT DB --compare takes two job names"
                                     : "--report OUT takes one database and no trace PATH");
  } else if (list || upgrade) {
    if (db && npaths == 0) code = list ? list_cmd(db) : upgrade_cmd(&c, db);
    else
      code = bad_param("%s", list ? "--list takes one database" : "--upgrade takes one database");
  } else if (merge) {
    if (db && npaths > 0) code = merge_cmd(&c, db, paths, npaths);
    else code = bad_param("%s", "--merge needs OUT and at least one IN database");
  } else if (!db || (npaths == 0 && !(ncaps && job))) {
    code = bad_param("%s",
                     "need a database and at least one trace PATH (or --job NAME --captures DIR)");
  } else {
    code = ingest_cmd(&c, &o, db, paths, npaths, job, caps, ncaps);
  }
end:
  free(paths);
  free(caps);
  return code;
}

/*
** main.c: the hta-ingest command line.
**
**   hta-ingest [options] DB PATH...
**
** Each PATH is a trace file (.json or .json.gz) or a directory whose .json and
** .json.gz entries are ingested (other entries are skipped and reported).
** Exit status: 0 every file ingested (or already present), 1 some file failed,
** 2 usage error or the database could not be opened or written.
*/
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "pipeline.h"
#include "report.h"
#include "writer.h"
#include "version.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

typedef struct cli {
  int verbosity; /* 0 silent, 1 errors, 2 summary (default), 3 each file */
  int progress;  /* draw progress on a terminal */
  int drawn;     /* a progress line is on screen */
  double start;
} cli;

/* The temporary database being built, removed if we are interrupted (signal-safe use only). */
static char tmp_db[4096];

static void on_signal(int sig) {
  if (tmp_db[0]) unlink(tmp_db);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Derive sorts per parser thread, in MiB: 1.5M-event files (540 MB of JSON) fit in it. */
#define SORT_MEM_DEFAULT 48
#define STR2(x) #x
#define STR(x) STR2(x)
#define SORT_MEM_DEFAULT_S STR(SORT_MEM_DEFAULT)
/* Plain files from this size (MiB) are scanned in two halves when alone: below it the
** thread costs about what it saves. */
#define SPLIT_MIN_DEFAULT 64
#define SPLIT_MIN_DEFAULT_S STR(SPLIT_MIN_DEFAULT)

static void usage(FILE *out) {
  fprintf(out,
          "Usage: hta-ingest [options] DB PATH...\n"
          "Load PyTorch profiler (Kineto) traces into the SQLite database DB.\n"
          "Each PATH is a .json or .json.gz trace, or a directory of them.\n"
          "\n"
          "Options:\n"
          "  -j N            parse N files in parallel (default: number of cores)\n"
          "  --replace       re-ingest files whose content is already in DB\n"
          "  --sort-memory MB\n"
          "                  memory for each file's link and call-stack sorts before they\n"
          "                  use a temporary file in $TMPDIR (default " SORT_MEM_DEFAULT_S
          ")\n"
          "  --split-min MB  scan a plain .json file of at least MB in two halves at once\n"
          "                  when it is the only file under way (default " SPLIT_MIN_DEFAULT_S
          ",\n"
          "                  0: never; never on one core)\n"
          "  --report OUT    write an HTML report of DB to OUT instead (no PATH):\n"
          "                  hta-ingest --report report.html DB\n"
          "  --write-counters RANK OUT\n"
          "                  write RANK's trace with its queue-length and memory-bandwidth\n"
          "                  counter events to OUT (.gz: gzip) instead (no PATH):\n"
          "                  hta-ingest --write-counters 0 rank0_counters.json.gz DB\n"
          "  -q, --quiet     print errors only\n"
          "  -v, --verbose   print one line per file\n"
          "  --progress      draw progress even when stderr is not a terminal\n"
          "  --no-progress   never draw progress\n"
          "  -V, --version   print the version and exit\n"
          "  -h, --help      print this help and exit\n"
          "\n"
          "Exit status: 0 all files ingested (or already present), 1 some files failed,\n"
          "2 usage error or database error.\n");
}

static void clear_progress(cli *c) {
  if (c->drawn) {
    fprintf(stderr, "\r\033[K");
    c->drawn = 0;
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

static void on_progress(void *ctx, const pl_file *files, int n, double seconds) {
  cli *c = ctx;
  if (!c->progress || c->verbosity < 2) return;
  uint64_t bytes = 0, events = 0;
  int done = 0;
  const pl_file *cur = NULL;
  for (int i = 0; i < n; i++) {
    if (files[i].pass == 3)
      done++, bytes += files[i].json_bytes, events += (uint64_t)files[i].events;
    else if (files[i].pass) {
      events += files[i].done_events;
      if (files[i].pass == 2) bytes += files[i].done_bytes; /* counted once written */
      if (!cur || files[i].pass == 2) cur = &files[i];
    }
  }
  double mb = (double)bytes / 1e6;
  fprintf(stderr, "\r\033[K%d/%d files, %.0f MB written, %.0f MB/s, %.2fM events/s%s%s%s", done, n,
          mb, seconds > 0 ? mb / seconds : 0.0, seconds > 0 ? (double)events / 1e6 / seconds : 0.0,
          cur ? ", " : "", cur ? base_name(cur->path) : "",
          cur ? (cur->pass == 1 ? " (scanning)" : " (writing)") : "");
  fflush(stderr);
  c->drawn = 1;
}

static void on_done(void *ctx, const pl_file *f) {
  cli *c = ctx;
  if (f->status == PL_FAILED) say(c, 1, "hta-ingest: %s: %s\n", f->path, f->message);
  else if (f->status == PL_SKIPPED) say(c, 3, "hta-ingest: %s: skipped: %s\n", f->path, f->message);
  else
    say(c, 3,
        "hta-ingest: %s: rank %lld, %lld events (scan %.2f s%s, write %.2f s, sorts spilled "
        "%.1f MB)\n",
        f->path, (long long)f->rank, (long long)f->events, f->scan_s,
        f->halves ? " in two halves" : "", f->write_s, f->spilled / 1e6);
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct list {
  char **v;
  int n, cap;
} list;

static int push(list *l, char *s) {
  if (!s) return -1;
  if (l->n == l->cap) {
    int c = l->cap ? l->cap * 2 : 16;
    char **v = realloc(l->v, (size_t)c * sizeof *v);
    if (!v) {
      free(s);
      return -1;
    }
    l->v = v, l->cap = c;
  }
  l->v[l->n++] = s;
  return 0;
}

/* Expands PATH into trace files (sorted within a directory). Returns -1 when PATH is unusable. */
static int expand(cli *c, const char *path, list *out) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    say(c, 1, "hta-ingest: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) return push(out, strdup(path));
  DIR *d = opendir(path);
  if (!d) {
    say(c, 1, "hta-ingest: %s: %s\n", path, strerror(errno));
    return -1;
  }
  list found = {0};
  struct dirent *de;
  int rc = 0;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    size_t n = strlen(path) + strlen(de->d_name) + 2;
    char *full = malloc(n);
    if (!full) {
      rc = -1;
      break;
    }
    snprintf(full, n, "%s%s%s", path, has_suffix(path, "/") ? "" : "/", de->d_name);
    if (has_suffix(de->d_name, ".json") || has_suffix(de->d_name, ".json.gz")) {
      if (push(&found, full)) rc = -1;
    } else {
      say(c, 2, "hta-ingest: %s: skipped: not a .json or .json.gz file\n", full);
      free(full);
    }
  }
  closedir(d);
  qsort(found.v, (size_t)found.n, sizeof *found.v, cmp_str);
  for (int i = 0; i < found.n; i++)
    if (push(out, found.v[i])) rc = -1;
  free(found.v);
  return rc;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* --report OUT DB: the HTML report of DB (report.c). Returns the exit status. */
static int report_cmd(cli *c, const char *out, const char *db) {
  sqlite3 *h = NULL;
  char err[HR_ERR_MAX];
  double t0 = now_s();
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "hta-ingest: %s: %s\n", db, h ? sqlite3_errmsg(h) : "out of memory");
    sqlite3_close(h);
    return EXIT_USAGE;
  }
  int rc = hr_write_report(h, out, NULL, err, sizeof err);
  sqlite3_close(h);
  if (rc == HR_FAILED) say(c, 1, "hta-ingest: %s: %s\n", out, err);
  else if (rc == HR_PARTIAL)
    say(c, 1, "hta-ingest: %s: written, but an analysis failed: %s\n", out, err);
  else say(c, 2, "hta-ingest: %s: report written (%.2f s)\n", out, now_s() - t0);
  return rc == HR_OK ? 0 : rc == HR_PARTIAL ? EXIT_FAILED : EXIT_USAGE;
}

/* --write-counters RANK OUT DB: hta_write_trace_with_counters (ext/io_counters.c).
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
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    fprintf(stderr, "hta-ingest: %s: %s\n", db, h ? sqlite3_errmsg(h) : "out of memory");
    sqlite3_close(h);
    return EXIT_USAGE;
  }
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

int main(int argc, char **argv) {
  /* Only the writer thread uses SQLite: no mutexes, no memory statistics. */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  cli c = {.verbosity = 2, .progress = isatty(2)};
  pl_options o = {.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN),
                  .sort_mem = (size_t)SORT_MEM_DEFAULT << 20,
                  .split_min = (uint64_t)SPLIT_MIN_DEFAULT << 20,
                  .progress = on_progress,
                  .done = on_done,
                  .ctx = &c};
  const char *db = NULL;
  list paths = {0}, files = {0};
  pl_file *pf = NULL;
  const char *report = NULL;                  /* --report OUT */
  const char *wc_rank = NULL, *wc_out = NULL; /* --write-counters RANK OUT */
  int code = 0, bad_path = 0;
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
    } else if (!strcmp(a, "--replace")) {
      o.replace = 1;
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
        fprintf(stderr, "hta-ingest: Incorrect parameter: --write-counters needs RANK and OUT\n");
        usage(stderr);
        code = EXIT_USAGE;
        goto end;
      }
      wc_rank = argv[++i];
      wc_out = argv[++i];
    } else if (!strcmp(a, "--report")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "hta-ingest: Incorrect parameter: --report needs an output file\n");
        usage(stderr);
        code = EXIT_USAGE;
        goto end;
      }
      report = argv[++i];
    } else if (!strcmp(a, "-j") || !strncmp(a, "-j", 2)) {
      const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      char *endp;
      long j = v ? strtol(v, &endp, 10) : 0;
      if (!v || *endp || j < 1 || j > 256) {
        fprintf(stderr, "hta-ingest: Incorrect parameter: -j needs a number from 1 to 256\n");
        usage(stderr);
        code = EXIT_USAGE;
        goto end;
      }
      o.jobs = (int)j;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "hta-ingest: Incorrect parameter: %s\n", a);
      usage(stderr);
      code = EXIT_USAGE;
      goto end;
    } else if (!db) {
      db = a;
    } else if (push(&paths, strdup(a))) {
      code = EXIT_USAGE;
      goto end;
    }
  }
  if (wc_out) {
    if (db && paths.n == 0 && !report) code = write_counters_cmd(&c, wc_rank, wc_out, db);
    else {
      fprintf(stderr,
              "hta-ingest: Incorrect parameter: --write-counters RANK OUT takes one database and "
              "no trace PATH\n");
      usage(stderr);
      code = EXIT_USAGE;
    }
    goto end;
  }
  if (report) {
    if (db && paths.n == 0) code = report_cmd(&c, report, db);
    else {
      fprintf(
          stderr,
          "hta-ingest: Incorrect parameter: --report OUT takes one database and no trace PATH\n");
      usage(stderr);
      code = EXIT_USAGE;
    }
    goto end;
  }
  if (!db || paths.n == 0) {
    fprintf(stderr,
            "hta-ingest: Incorrect parameter: need a database and at least one trace PATH\n");
    usage(stderr);
    code = EXIT_USAGE;
    goto end;
  }
  for (int i = 0; i < paths.n; i++)
    if (expand(&c, paths.v[i], &files)) bad_path = 1;
  if (files.n == 0) {
    say(&c, 1, "hta-ingest: no trace files found\n");
    code = bad_path ? EXIT_FAILED : 0;
    if (!bad_path) goto end;
  }
  pf = calloc((size_t)(files.n ? files.n : 1), sizeof *pf);
  if (!pf) {
    fprintf(stderr, "hta-ingest: out of memory\n");
    code = EXIT_USAGE;
    goto end;
  }
  for (int i = 0; i < files.n; i++) pf[i].path = files.v[i];
  char err[512];
  struct stat sb;
  if (stat(db, &sb) != 0 || sb.st_size == 0) wr_temp_path(db, tmp_db, sizeof tmp_db);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) o.split_min = 0; /* no second core to use */
  c.start = now_s();
  pl_stats st = {0};
  if (pl_run(db, pf, files.n, &o, &st, err, sizeof err)) {
    clear_progress(&c);
    fprintf(stderr, "hta-ingest: %s: %s\n", db, err);
    code = EXIT_USAGE;
    goto end;
  }
  double secs = now_s() - c.start;
  int ok = 0, skipped = 0, failed = 0;
  int64_t events = 0;
  uint64_t bytes = 0;
  int64_t *ranks = calloc((size_t)(files.n ? files.n : 1), sizeof *ranks);
  int nranks = 0;
  for (int i = 0; i < files.n; i++) {
    if (pf[i].status == PL_OK) {
      ok++;
      events += pf[i].events;
      bytes += pf[i].json_bytes;
      int seen = 0;
      for (int k = 0; ranks && k < nranks; k++) seen |= ranks[k] == pf[i].rank;
      if (ranks && !seen) ranks[nranks++] = pf[i].rank;
    } else if (pf[i].status == PL_SKIPPED) {
      skipped++;
    } else {
      failed++;
    }
  }
  free(ranks);
  clear_progress(&c);
  say(&c, 2, "hta-ingest: %d file%s ingested", ok, ok == 1 ? "" : "s");
  if (skipped) say(&c, 2, ", %d already present", skipped);
  if (failed) say(&c, 2, ", %d failed", failed);
  say(&c, 2, "; %d rank%s, %lld events, %.2f s, %.1f MB/s\n", nranks, nranks == 1 ? "" : "s",
      (long long)events, secs, secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    say(&c, 3,
        "hta-ingest: peak RSS %.1f MB; CPU: writer %.2f s, other threads %.2f s; commit %.2f s\n",
        (double)ru.ru_maxrss / 1024.0, st.writer_cpu, st.other_cpu, st.finish_s);
  if (failed || bad_path) code = EXIT_FAILED;
end:
  for (int i = 0; i < paths.n; i++) free(paths.v[i]);
  for (int i = 0; i < files.n; i++) free(files.v[i]);
  free(paths.v);
  free(files.v);
  free(pf);
  return code;
}

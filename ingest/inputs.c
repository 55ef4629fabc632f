/*
** inputs.c: PATH arguments to trace files and jobs (inputs.h).
*/
#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define IN_MSG 1200

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int is_trace_name(const char *n) {
  return has_suffix(n, ".json") || has_suffix(n, ".json.gz");
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void note(in_say say, void *ctx, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(in_say say, void *ctx, int level, const char *fmt, ...) {
  char msg[IN_MSG];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  say(ctx, level, msg);
}

/* The index of job NAME, added when new. -1 out of memory. */
static int job_of(in_list *l, const char *name, const char *source) {
  for (int i = 0; i < l->njobs; i++)
    if (!strcmp(l->jobs[i].name, name)) return i;
  if (l->njobs == l->capj) {
    int c = l->capj ? l->capj * 2 : 8;
    in_job *v = realloc(l->jobs, (size_t)c * sizeof *v);
    if (!v) return -1;
    l->jobs = v, l->capj = c;
  }
  in_job *j = &l->jobs[l->njobs];
  j->name = strdup(name);
  j->source = source ? strdup(source) : NULL;
  if (!j->name || (source && !j->source)) {
    free(j->name), free(j->source);
    return -1;
  }
  return l->njobs++;
}

static int add_file(in_list *l, const char *path, int job, int from_dir) {
  if (l->nfiles == l->capf) {
    int c = l->capf ? l->capf * 2 : 64;
    in_file *v = realloc(l->files, (size_t)c * sizeof *v);
    if (!v) return -2;
    l->files = v, l->capf = c;
  }
  if (!(l->files[l->nfiles].path = strdup(path))) return -2;
  l->files[l->nfiles].from_dir = from_dir;
  l->files[l->nfiles].capture = NULL;
  l->files[l->nfiles++].job = job;
  return 0;
}

/* A directory's entries: trace files and sub-directories (full paths, sorted), and
** the count of anything else (reported when report is set). -1 unreadable, -2 OOM. */
typedef struct dir_list {
  char **traces, **dirs;
  char **index; /* execution_details.json: a capture index, never a trace (at most one) */
  int ntraces, ndirs, nindex;
} dir_list;

static void dir_free(dir_list *d) {
  for (int i = 0; i < d->ntraces; i++) free(d->traces[i]);
  for (int i = 0; i < d->ndirs; i++) free(d->dirs[i]);
  for (int i = 0; i < d->nindex; i++) free(d->index[i]);
  free(d->traces), free(d->dirs), free(d->index);
  memset(d, 0, sizeof *d);
}

static int push(char ***v, int *n, char *s) {
  char **p = realloc(*v, (size_t)(*n + 1) * sizeof *p);
  if (!p) {
    free(s);
    return -2;
  }
  *v = p;
  p[(*n)++] = s;
  return 0;
}

static int list_dir(const char *path, dir_list *out, in_say say, void *ctx, int report) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(path);
  if (!d) return -1;
  struct dirent *de;
  int rc = 0;
  while (rc == 0 && (de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    size_t n = strlen(path) + strlen(de->d_name) + 2;
    char *full = malloc(n);
    if (!full) {
      rc = -2;
      break;
    }
    snprintf(full, n, "%s%s%s", path, has_suffix(path, "/") ? "" : "/", de->d_name);
    struct stat sb;
    int is_dir = stat(full, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (is_dir) rc = push(&out->dirs, &out->ndirs, full);
    else if (!strcmp(de->d_name, CP_INDEX_NAME)) rc = push(&out->index, &out->nindex, full);
    else if (is_trace_name(de->d_name)) rc = push(&out->traces, &out->ntraces, full);
    else {
      if (report) note(say, ctx, 2, "hta-ingest: %s: skipped: not a .json or .json.gz file", full);
      free(full);
    }
  }
  closedir(d);
  if (out->traces) qsort(out->traces, (size_t)out->ntraces, sizeof *out->traces, cmp_str);
  if (out->dirs) qsort(out->dirs, (size_t)out->ndirs, sizeof *out->dirs, cmp_str);
  return rc;
}

/* The base name of directory PATH (resolved: "." and "run/" name their directory)
** into name, its absolute path into abs. */
static void dir_name(const char *path, char name[PATH_MAX], char abs[PATH_MAX]) {
  if (!realpath(path, abs)) snprintf(abs, PATH_MAX, "%s", path);
  size_t n = strlen(abs);
  while (n > 1 && abs[n - 1] == '/') abs[--n] = 0;
  const char *b = strrchr(abs, '/');
  snprintf(name, PATH_MAX, "%s", b && b[1] ? b + 1 : abs);
}

static int is_capture_dir(const char *path) {
  const char *b = strrchr(path, '/');
  return !strcmp(b ? b + 1 : path, CP_DIR_NAME);
}

/* The captures of directory D (already listed) into job JOB (rule 6). */
static int add_capture_files(in_list *l, const dir_list *d, int job, in_say say, void *ctx) {
  cp_index ix = {0};
  char err[IN_MSG];
  int have = 0, rc = 0;
  if (d->nindex) {
    int r = cp_read_index(d->index[0], &ix, err, sizeof err);
    if (r == -2) return -2;
    if (r) { /* the captures still land, without what the index says */
      note(say, ctx, 1, "hta-ingest: %s", err);
      l->bad_index++;
    }
    have = r == 0;
  }
  for (int i = 0; i < d->ntraces && rc == 0; i++) {
    const char *b = strrchr(d->traces[i], '/');
    b = b ? b + 1 : d->traces[i];
    if (have && !cp_find(&ix, b))
      note(say, ctx, 2, "hta-ingest: %s: a capture the index %s does not list", d->traces[i],
           ix.path);
    if (add_file(l, d->traces[i], job, 1)) rc = -2;
    else if (!(l->files[l->nfiles - 1].capture = cp_capture_new(have ? &ix : NULL, b))) rc = -2;
  }
  for (int i = 0; have && rc == 0 && i < ix.n; i++) { /* listed, not there */
    int found = 0;
    for (int k = 0; k < d->ntraces && !found; k++) {
      const char *b = strrchr(d->traces[k], '/');
      found = !strcmp(b ? b + 1 : d->traces[k], ix.a[i].file);
    }
    if (!found)
      note(say, ctx, 1, "hta-ingest: %s: lists %s, which is not in its folder", ix.path,
           ix.a[i].file);
  }
  cp_index_free(&ix);
  return rc;
}

/* Adds the trace files of directory D (already listed) to job NAME, and the captures
** of its capture_traces/ sub-directory (rule 6). */
static int add_dir_files(in_list *l, const dir_list *d, const char *name, const char *source,
                         int report, in_say say, void *ctx) {
  int job = job_of(l, name, source);
  if (job < 0) return -2;
  for (int i = 0; i < d->ntraces; i++)
    if (add_file(l, d->traces[i], job, 1)) return -2;
  if (d->nindex && report)
    note(say, ctx, 2, "hta-ingest: %s: skipped: a capture index belongs in a %s folder",
         d->index[0], CP_DIR_NAME);
  for (int i = 0; i < d->ndirs; i++) {
    if (!is_capture_dir(d->dirs[i])) {
      if (report)
        note(say, ctx, 2, "hta-ingest: %s: skipped: a directory (give it as a PATH of its own)",
             d->dirs[i]);
      continue;
    }
    dir_list c;
    int rc = list_dir(d->dirs[i], &c, say, ctx, 1);
    if (rc == -1) note(say, ctx, 1, "hta-ingest: %s: %s", d->dirs[i], strerror(errno));
    if (rc == 0) rc = add_capture_files(l, &c, job, say, ctx);
    dir_free(&c);
    if (rc == -2) return -2;
  }
  return 0;
}

int in_add_captures(in_list *l, const char *dir, const char *job, in_say say, void *ctx) {
  dir_list d;
  int j = job_of(l, job, NULL);
  if (j < 0) return -2;
  int rc = list_dir(dir, &d, say, ctx, 1);
  if (rc == -1) note(say, ctx, 1, "hta-ingest: %s: %s", dir, strerror(errno));
  if (rc == 0 && d.ntraces == 0) {
    note(say, ctx, 1, "hta-ingest: %s: no .json or .json.gz capture trace in it", dir);
    rc = -1;
  }
  if (rc == 0) rc = add_capture_files(l, &d, j, say, ctx);
  dir_free(&d);
  return rc;
}

int in_add(in_list *l, const char *path, const char *job, in_say say, void *ctx) {
  struct stat sb;
  char name[PATH_MAX], abs[PATH_MAX];
  if (stat(path, &sb) != 0) {
    note(say, ctx, 1, "hta-ingest: %s: %s", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) { /* 3, 4 */
    if (job) {
      if (!realpath(path, abs)) snprintf(abs, sizeof abs, "%s", path);
    } else {
      size_t n = strlen(path) + 4;
      char *dir = malloc(n);
      if (!dir) return -2;
      const char *slash = strrchr(path, '/');
      if (!slash) snprintf(dir, n, ".");
      else snprintf(dir, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
      dir_name(dir, name, abs);
      free(dir);
    }
    int j = job_of(l, job ? job : name, abs);
    return j < 0 ? -2 : add_file(l, path, j, 0);
  }
  dir_list d;
  int rc = list_dir(path, &d, say, ctx, 1);
  if (rc == -1) note(say, ctx, 1, "hta-ingest: %s: %s", path, strerror(errno));
  if (rc) {
    dir_free(&d);
    return rc;
  }
  dir_name(path, name, abs);
  if (d.ntraces) { /* 1, 6 */
    rc = add_dir_files(l, &d, job ? job : name, abs, 1, say, ctx);
    dir_free(&d);
    return rc;
  }
  /* 2: one level of job folders */
  char names[IN_MSG] = "";
  int jobs = 0;
  size_t at = 0;
  for (int i = 0; i < d.ndirs && rc == 0; i++) {
    dir_list sub;
    char sname[PATH_MAX], sabs[PATH_MAX];
    rc = list_dir(d.dirs[i], &sub, say, ctx, 0);
    if (rc == -1) { /* unreadable: say so, go on with the others */
      note(say, ctx, 1, "hta-ingest: %s: %s", d.dirs[i], strerror(errno));
      rc = 0;
    } else if (rc == 0 && sub.ntraces) {
      dir_name(d.dirs[i], sname, sabs);
      rc = add_dir_files(l, &sub, job ? job : sname, sabs, 0, say, ctx);
      if (at < sizeof names - 1)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", jobs ? ", " : "", sname);
      jobs++;
    }
    dir_free(&sub);
  }
  dir_free(&d);
  if (rc) return rc;
  if (jobs) {
    note(say, ctx, 2, "hta-ingest: %.400s: a directory of job folders: %d job%s (%.600s)%s", path,
         jobs, jobs == 1 ? "" : "s", names, job ? ", all ingested as one (--job)" : "");
    return 0;
  }
  note(say, ctx, 1,
       "hta-ingest: %s: nothing to ingest: no .json or .json.gz file in it or in its "
       "sub-directories (give the directory that holds the traces, e.g. rank0.json, or the "
       "files themselves)",
       path);
  return -1;
}

void in_free(in_list *l) {
  for (int i = 0; i < l->nfiles; i++) free(l->files[i].path), cp_capture_free(l->files[i].capture);
  for (int i = 0; i < l->njobs; i++) free(l->jobs[i].name), free(l->jobs[i].source);
  free(l->files);
  free(l->jobs);
  memset(l, 0, sizeof *l);
}

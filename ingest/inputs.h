/*
** inputs.h: the trace files of hta-ingest's PATH arguments, and the job each one
** joins (prefix in_).
**
**  1. A directory holding .json / .json.gz files is one job named after the
**     directory (its base name; source: its absolute path). Other entries are
**     skipped and reported.
**  2. A directory holding no trace files of its own, whose sub-directories do, is
**     a directory of job folders: each such sub-directory is a job (one level).
**  3. A file joins the job of its directory (named after the parent directory).
**  4. With a job name given (--job NAME), every file joins NAME; source is the
**     argument's absolute path.
**  5. A directory with nothing to ingest is an error with a hint.
**  6. A sub-directory named capture_traces of a job directory holds the job's graph
**     capture traces (captures.h): its trace files join the job as captures, and its
**     execution_details.json is their index, not a trace. in_add_captures() does the
**     same for a folder given on its own (hta-ingest --captures DIR).
** Files are in argument order, sorted by name within a directory. Never prints:
** messages go to the say callback (level 1: errors, 2: notes).
*/
#ifndef HTA_INPUTS_H
#define HTA_INPUTS_H

#include "captures.h"

typedef struct in_job {
  char *name;
  char *source; /* may be NULL */
} in_job;

typedef struct in_file {
  char *path;
  int job;             /* index in in_list.jobs */
  int from_dir;        /* found in a directory's listing (not named on the command line) */
  cp_capture *capture; /* a graph capture trace (rule 6), or NULL */
} in_file;

typedef struct in_list {
  in_file *files;
  int nfiles, capf;
  in_job *jobs; /* distinct names */
  int njobs, capj;
  int bad_index; /* capture indexes that could not be read (reported) */
} in_list;

typedef void (*in_say)(void *ctx, int level, const char *msg);

/* Adds the files of PATH (job: NULL, or the --job name). 0, or -1 when PATH gave
** nothing (reported), or -2 out of memory. */
int in_add(in_list *l, const char *path, const char *job, in_say say, void *ctx);
/* Adds the trace files of DIR as graph captures of job JOB (a name), with DIR's capture
** index when it has one (rule 6). 0, -1 when DIR gave nothing (reported), or -2 out of
** memory. */
int in_add_captures(in_list *l, const char *dir, const char *job, in_say say, void *ctx);
void in_free(in_list *l);

#endif

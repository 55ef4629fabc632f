/*
** trace_writer.h: streaming rewrite of a Kineto trace file (prefix tw_).
**
**   tw_out o;
**   tw_result r;
**   char err[TW_ERR_MAX];
**   if (tw_open_file(&o, "out.json.gz") == 0 &&
**       tw_copy("rank0.json", &o, &hooks, &r, err) == TW_OK && tw_commit(&o) == 0) ...;
**   tw_close(&o);                 // always; removes the temporary file unless committed
**
** No sqlite3 types in the interface, never prints, never exits (like ingest/);
** its memory comes from sqlite3_malloc64 and is released by tw_close(). Used by
** the writers of the io entry point (io_rewrite.c) and, as a JSON
** serialiser into memory, by hta_trace_events (io_events.c).
**
** Requirements (tests cite them as TW-n):
**  1. The output is the input re-serialised minified: every member in its order,
**     numbers as their original text, strings decoded and re-escaped canonically
**     (only '"', '\\' and bytes < 0x20 are escaped, as ingest/kineto.c K7 does),
**     so every value is preserved exactly; only insignificant whitespace goes.
**  2. Both layouts: an object with "traceEvents" (any position among the other
**     top-level keys), or a bare array of events. Like kineto.c K1, valid JSON
**     without traceEvents, a second "traceEvents" or a non-array one is an error.
**  3. hooks.patch (optional) is asked once per object element of traceEvents,
**     with the element's position (seq, counting every element, as event.seq):
**     a non-NULL answer is the JSON text of a value that becomes the member
**     hooks.patch_key of the event's args: an existing member of that name is
**     dropped, args is created when absent and replaced when it is not an object.
**  4. hooks.append (optional) writes extra events just before the closing ']' of
**     traceEvents, through tw_write after tw_sep.
**  5. The output goes to a temporary file in the destination's directory
**     (".NAME.tmp-PID-N", created with mode 0666 minus the umask), gzip-compressed
**     when the destination name ends in ".gz" (zlib level 6, one member), plain
**     otherwise. tw_commit() flushes, fsyncs and renames it over the destination
**     (atomic on POSIX); tw_close() without a commit removes it. So an error never
**     leaves a partial or temporary file behind.
**  6. Errors: input errors are "byte N: what" (N = offset in the uncompressed
**     JSON, from ingest/json.c) or the reader's message ("cannot open: ...",
**     "truncated gzip stream"); output errors are "cannot create/write/rename
**     ...: strerror" in tw_out.err.
**
** HOW IT WORKS: ingest/reader.c and ingest/json.c pull tokens; each token is
** written back at once into a 256 KiB buffer that is flushed to the file (through
** deflate for .gz). Only the structure around events is interpreted: the top
** level, the traceEvents elements and, for a patched event, its args. Memory is
** the fixed buffers plus the longest single string or number.
*/
#ifndef HTA_TRACE_WRITER_H
#define HTA_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "json.h"

#define TW_ERR_MAX 512
#define TW_BUF (256u << 10) /* output buffer; deflate output buffer */

/* tw_copy() results */
enum { TW_OK = 0, TW_EINPUT = -1, TW_EOUTPUT = -2, TW_EHOOK = -3, TW_ENOMEM = -4 };

/* An output: a file written through a temporary, or a growable memory block. */
typedef struct tw_out {
  int fd;    /* the temporary file; -1 for memory (or when closed) */
  int mem;   /* 1: memory sink; the content is buf[0..n) */
  int gz;    /* deflate with a gzip header */
  int zinit; /* zs is initialised */
  z_stream zs;
  unsigned char *buf; /* pending bytes (file) or the content (memory) */
  size_t n, cap;
  unsigned char *zbuf; /* deflate output, TW_BUF bytes */
  char *tmp;           /* temporary path (sqlite3_malloc64'd); NULL once renamed or removed */
  char *dst;           /* destination path (sqlite3_malloc64'd) */
  int failed;          /* a write failed: err says why, later writes do nothing */
  char err[TW_ERR_MAX];
} tw_out;

/* Creates the temporary file for DST (TW-5). 0, or -1 with o->err set; call
** tw_close() either way. */
int tw_open_file(tw_out *o, const char *dst);
/* A memory sink (never fails to open; writes fail only on out-of-memory). */
void tw_open_mem(tw_out *o);
/* Appends bytes. 0, or -1 (o->err; every later call fails too). */
int tw_write(tw_out *o, const void *p, size_t n);
int tw_puts(tw_out *o, const char *s);
/* Writes a JSON string (quotes included) for the UTF-8 bytes S[0..n) (TW-1). */
int tw_string(tw_out *o, const char *s, size_t n);
/* Writes "," when *COMMA is set, then sets it: call before each array element. */
int tw_sep(tw_out *o, int *comma);
/* Finishes the file and renames it over the destination. 0, or -1 (o->err). */
int tw_commit(tw_out *o);
/* Frees everything; removes the temporary file unless tw_commit() succeeded. */
void tw_close(tw_out *o);

/*
** Copies the value whose first token T was just returned by JS (a scalar, or a
** container up to its end) minified into O, with a ',' first when *COMMA is set
** (then sets *COMMA). TW_OK, TW_EINPUT (JS holds the error) or TW_EOUTPUT.
*/
int tw_copy_value(js_lexer *js, js_tok t, tw_out *o, int *comma);

typedef struct tw_hooks {
  void *ctx;
  const char *patch_key; /* TW-3: the args member that patch() sets */
  /* TW-3: the JSON text of the member's value for element SEQ, or NULL. */
  const char *(*patch)(void *ctx, int64_t seq, size_t *n);
  /* TW-4: 0, or non-zero to stop the copy (tw_copy returns TW_EHOOK). */
  int (*append)(void *ctx, tw_out *o, int *comma);
} tw_hooks;

typedef struct tw_result {
  uint64_t hash;     /* XXH64 of the raw input bytes (trace.content_hash's) */
  uint64_t raw_size; /* input size in bytes */
  int64_t events;    /* elements of traceEvents */
  int64_t patched;   /* events that got the patch member */
  int is_array;      /* the input was a bare array */
} tw_result;

/*
** Copies the trace at PATH into O (TW-1..4). TW_OK; TW_EINPUT with ERR set
** (TW-6); TW_EOUTPUT (o->err); TW_EHOOK; TW_ENOMEM.
*/
int tw_copy(const char *path, tw_out *o, const tw_hooks *h, tw_result *res, char err[TW_ERR_MAX]);

#endif

/*
** kineto.h: streaming decoder of Kineto / PyTorch-profiler JSON traces (prefix kt_).
**
** Pure C: no sqlite3 types, never prints, never exits. Memory is bounded by
** fixed buffers plus the largest single event; it never grows with the trace.
**
**   kt_file *f;
**   char err[KT_ERR_MAX];
**   if (kt_open(&f, "rank0.json.gz", KT_FULL, err) != KT_OK) ...;
**   const kt_event *e;
**   int rc;
**   while ((rc = kt_next(f, &e)) == KT_EVENT) { ... }
**   if (rc == KT_ERROR) fprintf(stderr, "%s\n", kt_errmsg(f)); // "byte 123: what"
**   const kt_meta *m = kt_meta_get(f);    // complete once kt_next returned KT_END
**   kt_close(f);
**
** HOW IT WORKS: a buffered byte reader (plain or gzip, detected by magic bytes,
** multi-member gzip allowed, truncation is an error) feeds a pull tokenizer;
** the decoder walks the top-level object (or a bare top-level array of events,
** the oldest Kineto format) and hands out one event of "traceEvents" at a time.
** Top-level keys other than traceEvents may come before or after it; they are
** collected into kt_meta. Times are converted from µs text to integer ns
** exactly (decimal digits, never through a double).
*/
#ifndef HTA_KINETO_H
#define HTA_KINETO_H

#include <stddef.h>
#include <stdint.h>

#define KT_ERR_MAX 256

typedef struct kt_file kt_file;

enum { KT_OK = 0, KT_EVENT = 1, KT_END = 2, KT_SPLIT = 3, KT_ERROR = -1, KT_NOMEM = -2 };

typedef enum { KT_SCAN = 0, KT_FULL = 1 } kt_mode;

/*
** A decoded UTF-8 string, not NUL-terminated; valid until the next kt_next()
** (kt_meta's until kt_close()). p is never NULL ("" when n == 0), except
** kt_event.meta_name when absent.
*/
typedef struct kt_span {
  const char *p;
  size_t n;
} kt_span;

/* pid/tid/id: an integer, or a string as written. */
typedef struct kt_value {
  int is_str; /* 0: integer in i; 1: string in s */
  int64_t i;
  kt_span s;
} kt_value;

typedef struct kt_counter {
  kt_span key; /* the args key, e.g. "Queue Length" */
  double value;
} kt_counter;

/* kt_event.flags */
#define KT_HAS_NAME 0x0001u
#define KT_HAS_CAT 0x0002u
#define KT_HAS_PID 0x0004u
#define KT_HAS_TID 0x0008u
#define KT_HAS_TS 0x0010u
#define KT_HAS_DUR 0x0020u
#define KT_HAS_STREAM 0x0040u      /* args.stream numeric or numeric string (HTA to_numeric) */
#define KT_HAS_CORRELATION 0x0080u /* args.correlation integer */
#define KT_HAS_EXTERNAL_ID 0x0100u /* args."External id" integer */
#define KT_HAS_DEVICE 0x0200u      /* args.device integer */
#define KT_HAS_SORT_INDEX 0x0400u  /* M events: args.sort_index */
#define KT_HAS_ID 0x0800u
#define KT_HAS_ARGS 0x1000u /* "args" was present */
#define KT_GPU_WORK \
  0x2000u /* cat is kernel/gpu_memcpy/gpu_memset/Kernel/Memcpy/Memset/mtia_ccp_events */

typedef struct kt_event {
  int64_t seq;    /* position in traceEvents, counting every element */
  char ph;        /* first byte of "ph"; 0 when absent */
  unsigned flags; /* KT_HAS_* */
  kt_span name;
  kt_span cat;
  kt_value pid, tid;
  int64_t ts;     /* ns */
  int64_t dur;    /* ns (may be negative as written) */
  int64_t stream; /* truncated toward zero, as HTA's int cast */
  int64_t correlation;
  int64_t external_id;
  int64_t device;
  kt_value id; /* flow / counter "id" */
  kt_span bp;  /* flow "bp" */
  /*
  ** KT_FULL only. args as minified JSON object text with the promoted members
  ** removed: correlation, "External id" and device when they were integers,
  ** and stream when it was numeric AND the event is GPU work (KT_GPU_WORK).
  ** n == 0 when nothing is left (or there were no args).
  */
  kt_span args;
  kt_span meta_name;          /* M events: args.name (process_name / thread_name); KT_FULL only;
                         p == NULL when there is no string args.name */
  int64_t sort_index;         /* M events: args.sort_index */
  const kt_counter *counters; /* C events: the numeric args, KT_FULL only */
  int ncounters;
} kt_event;

/* Top-level facts; complete after kt_next() returned KT_END. */
typedef struct kt_meta {
  int has_rank; /* distributedInfo.rank: an integer or a digit string */
  int64_t rank;
  int has_world_size;
  int64_t world_size;
  kt_span backend;        /* distributedInfo.backend, n == 0 when absent */
  kt_span schema_version; /* as text ("1.0.1", or an integer written as text) */
  int has_base_time;
  int64_t base_time_ns; /* baseTimeNanoseconds */
  kt_span display_time_unit;
  kt_span device_properties; /* JSON array text of deviceProperties, n == 0 when absent */
  kt_span metadata;          /* JSON object: every top-level key except traceEvents */
  int is_array;              /* the file was a bare array of events */
  int has_trace_events;      /* a traceEvents array was found (or is_array) */
  int64_t event_count;       /* elements of traceEvents */
} kt_meta;

/* Opens PATH. On failure returns KT_ERROR and writes "what[: strerror]" into err. */
int kt_open(kt_file **pf, const char *path, kt_mode mode, char err[KT_ERR_MAX]);

/*
** Same as kt_open() over the bytes DATA[0..N) (plain JSON or gzip), which must
** stay valid until kt_close(): for fuzzers and hosts without a filesystem.
*/
int kt_open_mem(kt_file **pf, const void *data, size_t n, kt_mode mode, char err[KT_ERR_MAX]);

/* KT_EVENT (*pe set), KT_END, KT_SPLIT (see kt_stop_at), or KT_ERROR / KT_NOMEM
** (message in kt_errmsg). */
int kt_next(kt_file *f, const kt_event **pe);

/*
** Reading one plain file in two halves, on two threads: the first reader is told to
** stop at OFF, the offset of an element of traceEvents after a ',' (found by a guess
** the first reader checks); a second one, kt_open_at(OFF), reads from there to the
** end, counting seq from 0. kt_next() on the first returns KT_SPLIT just before that
** element (and never, if the guess was not an element); it goes on from there
** when called again. kt_join() then makes the first reader's file complete: it
** reads (hashes) the rest of the bytes and appends the second's metadata and event
** count, as one pass would have found them: KT_END, or KT_ERROR (a read error, or
** those bytes are not the ones the second reader read: the file changed meanwhile).
** kt_can_join() tells first whether they can be (the first stopped, the second
** ended cleanly, the metadata is within its bound); if not, nothing changes (kt_join
** returns 1) and the first reader can go on alone.
*/
void kt_stop_at(kt_file *f, uint64_t off);
int kt_open_at(kt_file **pf, const char *path, uint64_t off, int is_array, kt_mode mode,
               char err[KT_ERR_MAX]);
int kt_can_join(const kt_file *a, const kt_file *b);
int kt_join(kt_file *a, kt_file *b);
/* 1 when f reads a plain (not gzip) file from disk: one that kt_open_at() can split. */
int kt_is_plain_file(const kt_file *f);

/* "byte N: what" for the last error; N = offset in the uncompressed JSON. */
const char *kt_errmsg(const kt_file *f);
/* 1 when the error is that the file is JSON but no Kineto trace (no traceEvents array:
** an execution trace, a config file), which hta-ingest skips unless --strict. */
int kt_not_a_trace(const kt_file *f);
uint64_t kt_error_offset(const kt_file *f);

const kt_meta *kt_meta_get(const kt_file *f);

/* Bytes consumed so far: raw (on disk) and uncompressed JSON. */
uint64_t kt_raw_offset(const kt_file *f);
uint64_t kt_json_offset(const kt_file *f);
uint64_t kt_file_size(const kt_file *f);

/* 64-bit content hash of the raw file bytes read so far (complete after KT_END). */
uint64_t kt_content_hash(const kt_file *f);

void kt_close(kt_file *f);

#endif

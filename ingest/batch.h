/*
** batch.h: the rows a parser thread hands to the writer thread (prefix bt_).
**
** A batch holds up to BT_ROWS rows of one file, plus the strings first seen in
** it: names and categories are interned per file by the parser (local ids), and
** the writer maps each local id to the database's id once. Variable-length data
** (args JSON, string pids, counter series) lives in the batch's arena.
*/
#ifndef HTA_BATCH_H
#define HTA_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define BT_ROWS 4096
#define BT_NONE UINT32_MAX

typedef enum { BT_EVENT, BT_COUNTER, BT_FLOW, BT_THREAD } bt_kind;

/* bt_row.has bits */
#define BT_TS 0x001u
#define BT_DUR 0x002u
#define BT_STREAM 0x004u
#define BT_DEVICE 0x008u
#define BT_CORR 0x010u
#define BT_EXT 0x020u
#define BT_LINK 0x040u
#define BT_PARENT 0x080u
#define BT_ITER 0x100u
#define BT_ARGS 0x200u
#define BT_PID 0x400u
#define BT_TID 0x800u
#define BT_ID 0x1000u
#define BT_SORT 0x2000u

/* pid / tid / flow id: an integer, or a string at arena offset (len >= 0). */
typedef struct bt_val {
  int64_t i;
  uint32_t off;
  int32_t len; /* -1: integer */
} bt_val;

typedef struct bt_row {
  uint8_t kind; /* bt_kind */
  char ph;
  uint16_t has;
  uint32_t cat, name; /* local string ids, BT_NONE when absent */
  uint8_t dv;         /* BT_EVENT rows: derive's class of the event (dv_class), for dv_get */
  int64_t seq, ord, ts, dur, stream, device, corr, ext, link, parent, depth, iteration;
  /* ord: BT_EVENT rows: ordinal in the file (event_id's low half); link/parent are ordinals */
  bt_val pid, tid, id;
  uint32_t text_off, text_len; /* args JSON / counter series / flow bp / M-event value */
  double value;                /* counter value; BT_THREAD: 1 process_name, 2 thread_name,
                                  3 sort index (in iteration), names in text */
} bt_row;

typedef struct bt_str {
  uint8_t is_cat;
  uint32_t local;
  uint32_t off, len;
} bt_str;

typedef struct bt_batch {
  bt_row rows[BT_ROWS];
  size_t nrows;
  bt_str *strs; /* strings first seen in this batch */
  size_t nstrs, capstrs;
  char *arena;
  size_t used, cap;
} bt_batch;

bt_batch *bt_new(void);
void bt_reset(bt_batch *b);
void bt_free(bt_batch *b);
/* Copies n bytes into the arena; returns the offset, or UINT32_MAX on OOM/overflow. */
uint32_t bt_put(bt_batch *b, const void *p, size_t n);
int bt_add_str(bt_batch *b, int is_cat, uint32_t local, const void *p, size_t n);

#endif

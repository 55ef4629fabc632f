/*
** fuzz_kineto.c: libFuzzer target for the trace decoder (kt_) and the JSON
** tokenizer (js_) over the reader (rd_), plain or gzip.
**
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iingest \
**     tests/fuzz/fuzz_kineto.c ingest/reader.c ingest/json.c ingest/kineto.c \
**     -o build/fuzz_kineto -lz -lm
**   ./build/fuzz_kineto -dict=tests/fuzz/json.dict -max_total_time=60 \
**     build/fuzz-corpus tests/fuzz/seed
**
** HOW IT WORKS: each input is decoded with kt_open_mem() in KT_SCAN and in
** KT_FULL mode; both must give the same events and the same error (the lead
** runs a scan pass, then a full pass). The input is also tokenized with js_
** twice, once in whole buffers and once with buffer boundaries every 1..16
** bytes (from the first input byte): the token streams, offsets and errors
** must be identical, and identical again when read through the inline fast
** paths js_key()/js_value(). Any difference aborts, and so do the sanitizers.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "kineto.h"
#include "reader.h"

/* A running digest of everything kt_next hands out, plus the final state. */
typedef struct fz_result {
  uint64_t digest;
  int64_t nev;
  int rc;
  char err[KT_ERR_MAX];
} fz_result;

static void fzMix(uint64_t *h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) *h = (*h ^ s[i]) * 1099511628211ULL;
}

static void fzSpan(uint64_t *h, kt_span s) {
  if (!s.p) abort(); /* spans are never NULL */
  fzMix(h, &s.n, sizeof s.n);
  fzMix(h, s.p, s.n);
}

static void fzDecode(const uint8_t *data, size_t size, kt_mode mode, fz_result *r) {
  kt_file *f;
  memset(r, 0, sizeof *r);
  r->digest = 1469598103934665603ULL;
  r->rc = kt_open_mem(&f, data, size, mode, r->err);
  if (r->rc != KT_OK) return;
  const kt_event *e;
  while ((r->rc = kt_next(f, &e)) == KT_EVENT) {
    r->nev++;
    /* Fields both modes report; args/counters/meta_name only in KT_FULL. */
    int64_t v[8] = {e->seq, e->ph, e->flags, e->ts, e->dur, e->stream, e->correlation,
                    e->sort_index};
    fzMix(&r->digest, v, sizeof v);
    fzSpan(&r->digest, e->name);
    fzSpan(&r->digest, e->cat);
    fzSpan(&r->digest, e->bp);
    if (e->pid.is_str) fzSpan(&r->digest, e->pid.s);
    if (e->tid.is_str) fzSpan(&r->digest, e->tid.s);
    if (mode == KT_FULL) {
      uint64_t scratch = 0;
      fzSpan(&scratch, e->args);
      if (e->meta_name.p) fzSpan(&scratch, e->meta_name);
      for (int i = 0; i < e->ncounters; i++) fzSpan(&scratch, e->counters[i].key);
    } else if (e->args.n) {
      abort(); /* KT_SCAN builds no args */
    }
  }
  const kt_meta *m = kt_meta_get(f);
  fzMix(&r->digest, &m->event_count, sizeof m->event_count);
  fzSpan(&r->digest, m->metadata);
  fzSpan(&r->digest, m->device_properties);
  fzSpan(&r->digest, m->backend);
  if (r->rc != KT_END) snprintf(r->err, sizeof r->err, "%s", kt_errmsg(f));
  (void)kt_content_hash(f);
  (void)kt_json_offset(f);
  kt_close(f);
}

/*
** Digest of the token stream with buffer boundaries every CHUNK bytes. FAST:
** read through js_key()/js_value() wherever a decoder would use them.
*/
static uint64_t fzTokens(const uint8_t *data, size_t size, size_t chunk, int fast, char *err) {
  rd_reader rd;
  js_lexer js;
  uint64_t h = 1469598103934665603ULL;
  err[0] = 0;
  if (rd_open_mem(&rd, data, size)) {
    snprintf(err, KT_ERR_MAX, "%s", rd.err);
    rd_close(&rd);
    return h;
  }
  rd.chunk = chunk;
  js_init(&js, &rd);
  for (;;) {
    js_tok t;
    if (fast && (js.state == JS_ST_AFTER_OBJ || js.state == JS_ST_FIRST_KEY))
      t = js_key(&js);
    else if (fast && js.state == JS_ST_VALUE)
      t = js_value(&js);
    else
      t = js_next(&js);
    fzMix(&h, &t, sizeof t);
    fzMix(&h, &js.tok_off, sizeof js.tok_off);
    if (t == JS_ERROR) {
      snprintf(err, KT_ERR_MAX, "byte %llu: %s", (unsigned long long)js.err_off, js.err);
      break;
    }
    if (t == JS_EOF) break;
    if (t == JS_KEY || t == JS_STRING || t == JS_NUMBER) {
      fzMix(&h, &js.n, sizeof js.n);
      fzMix(&h, js.s, js.n);
      if (t != JS_NUMBER) fzMix(&h, &js.plain, sizeof js.plain);
    }
  }
  js_free(&js);
  rd_close(&rd);
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_result scan, full;
  fzDecode(data, size, KT_SCAN, &scan);
  fzDecode(data, size, KT_FULL, &full);
  if (scan.rc != full.rc || scan.nev != full.nev || scan.digest != full.digest ||
      strcmp(scan.err, full.err) != 0) {
    fprintf(stderr, "modes differ: scan rc %d %lld \"%s\", full rc %d %lld \"%s\"\n", scan.rc,
            (long long)scan.nev, scan.err, full.rc, (long long)full.nev, full.err);
    abort();
  }
  char e1[KT_ERR_MAX], e2[KT_ERR_MAX];
  size_t chunk = size ? 1 + data[0] % 16 : 1;
  uint64_t a = fzTokens(data, size, RD_BUF_SIZE, 0, e1);
  uint64_t b = fzTokens(data, size, chunk, 0, e2);
  if (a != b || strcmp(e1, e2) != 0) {
    fprintf(stderr, "chunk %zu differs: \"%s\" vs \"%s\"\n", chunk, e1, e2);
    abort();
  }
  b = fzTokens(data, size, chunk, 1, e2);
  if (a != b || strcmp(e1, e2) != 0) {
    fprintf(stderr, "js_key/js_value differ (chunk %zu): \"%s\" vs \"%s\"\n", chunk, e1, e2);
    abort();
  }
  return 0;
}

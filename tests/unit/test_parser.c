/*
** test_parser.c: unit tests of the reader (rd_), the JSON tokenizer (js_) and
** the Kineto decoder (kt_). Runs in a scratch directory (files are written to
** the current directory). Every expectation is computed by hand; offsets are
** counted in the literal inputs next to them.
**
** Also decodes every trace under $HTA_SHARED/corpus (default ../shared) when
** that folder exists, in both modes; under valgrind (VG set by tests/run.sh)
** only the files below 1 MB.
*/
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "json.h"
#include "kineto.h"
#include "reader.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

static void writeFile(const char *path, const void *data, size_t n) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    perror(path);
    exit(2);
  }
  if (n && fwrite(data, 1, n, fp) != n) exit(2);
  fclose(fp);
}

/* Writes DATA as one gzip member with zlib's gzopen (MODE "wb" or "ab"). */
static void writeGz(const char *path, const char *mode, const void *data, size_t n) {
  gzFile g = gzopen(path, mode);
  if (!g) exit(2);
  if (n && gzwrite(g, data, (unsigned)n) != (int)n) exit(2);
  gzclose(g);
}

static unsigned char *readFile(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) exit(2);
  fseek(fp, 0, SEEK_END);
  long sz = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)sz + 1);
  if (!b || fread(b, 1, (size_t)sz, fp) != (size_t)sz) exit(2);
  fclose(fp);
  *n = (size_t)sz;
  return b;
}

/*
** A gzip member built by hand around one stored deflate block, so that the
** compressed bytes and their offsets are known exactly: 10 header bytes,
** 5 block header bytes, the data, CRC32 and ISIZE (4 bytes each).
** Writes 23 + N bytes into OUT and returns that count.
*/
static size_t storedGz(unsigned char *out, const char *data, size_t n) {
  static const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  memcpy(out, hdr, 10);
  out[10] = 1; /* BFINAL, stored */
  out[11] = (unsigned char)(n & 0xff);
  out[12] = (unsigned char)(n >> 8);
  out[13] = (unsigned char)(~n & 0xff);
  out[14] = (unsigned char)((~n >> 8) & 0xff);
  memcpy(out + 15, data, n);
  uLong crc = crc32(0, (const Bytef *)data, (uInt)n);
  for (int i = 0; i < 4; i++) out[15 + n + i] = (unsigned char)(crc >> (8 * i));
  for (int i = 0; i < 4; i++) out[19 + n + i] = (unsigned char)(n >> (8 * i));
  return 23 + n;
}

static kt_file *openStr(const char *json, kt_mode mode) {
  kt_file *f = NULL;
  char err[KT_ERR_MAX];
  int rc = kt_open_mem(&f, json, strlen(json), mode, err);
  CHECK_INT(rc, KT_OK);
  return rc == KT_OK ? f : NULL;
}

/* The next event, or NULL (and the final rc in *RC). */
static const kt_event *nextEv(kt_file *f, int *rc) {
  const kt_event *e = NULL;
  *rc = kt_next(f, &e);
  return *rc == KT_EVENT ? e : NULL;
}

/* Decodes DATA[0..N) to the end in MODE; returns the final rc, message in MSG. */
static int drainMem(const void *data, size_t n, kt_mode mode, char *msg, int64_t *nev) {
  kt_file *f = NULL;
  char err[KT_ERR_MAX];
  int rc = kt_open_mem(&f, data, n, mode, err);
  *nev = 0;
  if (rc != KT_OK) {
    strcpy(msg, err);
    return rc;
  }
  const kt_event *e;
  while ((rc = kt_next(f, &e)) == KT_EVENT) (*nev)++;
  strcpy(msg, rc == KT_END ? "" : kt_errmsg(f));
  kt_close(f);
  return rc;
}

/* Both modes must fail on JSON with exactly MSG ("byte N: what"). */
#define EXPECT_ERR(json, msg) expectErrMem(__LINE__, json, strlen(json), msg)

static void expectErrMem(int line, const void *data, size_t n, const char *msg) {
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    char got[KT_ERR_MAX];
    int64_t nev;
    int rc = drainMem(data, n, (kt_mode)mode, got, &nev);
    tu_checks++;
    if (rc != KT_ERROR || strcmp(got, msg) != 0) {
      tu_failures++;
      fprintf(stderr, "%s:%d: mode %d: rc %d \"%s\", expected \"%s\"\n", __FILE__, line, mode, rc,
              got, msg);
    }
  }
}

/* kt_open() of PATH must fail with exactly MSG. */
static void expectOpenErr(const char *path, const char *msg) {
  kt_file *f = (kt_file *)1;
  char err[KT_ERR_MAX];
  int rc = kt_open(&f, path, KT_FULL, err);
  CHECK_INT(rc, KT_ERROR);
  CHECK(f == NULL);
  CHECK_STR(err, msg);
}

/* Decodes file PATH in both modes; must fail with exactly MSG. */
static void expectFileErr(const char *path, const char *msg) {
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    kt_file *f;
    char err[KT_ERR_MAX];
    int rc = kt_open(&f, path, (kt_mode)mode, err);
    CHECK_INT(rc, KT_OK);
    if (rc != KT_OK) continue;
    const kt_event *e;
    while ((rc = kt_next(f, &e)) == KT_EVENT) {
    }
    CHECK_INT(rc, KT_ERROR);
    CHECK_STR(kt_errmsg(f), msg);
    kt_close(f);
  }
}

/* ------------------------------------------------------------ reader */

static void testXxh64(void) {
  /* Reference values of XXH64, seed 0 (xxHash's own test vectors). */
  CHECK(rd_xxh64_block("", 0) == 0xEF46DB3751D8E999ULL);
  CHECK(rd_xxh64_block("a", 1) == 0xD24EC4F1A98C6E5BULL);
  CHECK(rd_xxh64_block("abc", 3) == 0x44BC2CF5AD770999ULL);
  const char *s = "Nobody inspects the spammish repetition"; /* 39 bytes: one stripe + tail */
  CHECK(rd_xxh64_block(s, strlen(s)) == 0xFBCEA83C8A378BF1ULL);
}

static void testReaderErrors(void) {
  writeFile("empty.json", "", 0);
  expectOpenErr("empty.json", "byte 0: empty file");
  writeFile("empty.json.gz", "", 0); /* R6: a 0-byte .gz is empty, not truncated */
  expectOpenErr("empty.json.gz", "byte 0: empty file");
  mkdir("x.json", 0755);
  expectOpenErr("x.json", "byte 0: cannot read: Is a directory");
  expectOpenErr("no-such-file.json", "byte 0: cannot open: No such file or directory");
}

/* A 28-byte trace used by the gzip tests: offsets 0..27. */
static const char T28[] = "{\"traceEvents\":[{\"ph\":\"X\"}]}";

/* A regular file that changes while it is read (one pass: its rows would mix two
** versions) is an error at its end: grown, or rewritten at the same size with another
** modification time; unchanged, the same reads end cleanly. */
static void testChangedFile(void) {
  for (int kind = 0; kind < 3; kind++) {
    writeFile("changing.json", T28, 28);
    rd_reader rd;
    CHECK_INT(rd_open(&rd, "changing.json"), 0);
    rd.chunk = 4;
    CHECK_INT(rd_refill(&rd, rd.end), 1);
    if (kind == 0) {
      FILE *fp = fopen("changing.json", "ab");
      CHECK(fp && fputs("  ", fp) >= 0);
      if (fp) fclose(fp);
    } else if (kind == 1) {
      writeFile("changing.json", T28, 28);
      struct timespec ts[2] = {{0, UTIME_OMIT}, {1000000, 0}};
      CHECK_INT(utimensat(AT_FDCWD, "changing.json", ts, 0), 0);
    }
    int rc;
    while ((rc = rd_refill(&rd, rd.end)) == 1) continue;
    CHECK_INT(rc, kind == 2 ? 0 : -1);
    if (kind < 2) CHECK_STR(rd.err, "the file changed while it was being read");
    rd_close(&rd);
  }
}

static void testGzipErrors(void) {
  unsigned char gz[128];
  CHECK_INT(strlen(T28), 28);
  size_t n = storedGz(gz, T28, 28); /* 51 bytes */
  CHECK_INT(n, 51);

  /* The hand-made member is valid. */
  char msg[KT_ERR_MAX];
  int64_t nev;
  CHECK_INT(drainMem(gz, n, KT_FULL, msg, &nev), KT_END);
  CHECK_INT(nev, 1);

  /* A .json.gz error's offset counts decompressed bytes, and says so. */
#define GZ_OFF " (offset in the decompressed JSON)"
  /* R3: cut inside the data: 20 of 28 bytes come out, then the error. */
  expectErrMem(__LINE__, gz, 15 + 20, "byte 20: truncated gzip stream" GZ_OFF);
  /* R3: cut inside the trailer: all 28 bytes decode, the event is handed
  ** out, and the check for the end of input reports the truncation. */
  expectErrMem(__LINE__, gz, 51 - 4, "byte 28: truncated gzip stream" GZ_OFF);
  expectErrMem(__LINE__, gz, 12, "byte 0: truncated gzip stream" GZ_OFF);
  expectErrMem(__LINE__, gz, 3, "byte 0: truncated gzip stream" GZ_OFF);

  /* R5: wrong CRC (the data has come out when zlib checks it). */
  unsigned char bad[128];
  memcpy(bad, gz, n);
  bad[15 + 28] ^= 0xff;
  expectErrMem(__LINE__, bad, n, "byte 28: invalid gzip data: incorrect data check" GZ_OFF);
  /* R5: reserved block type 3. */
  memcpy(bad, gz, n);
  bad[10] = 0x07;
  expectErrMem(__LINE__, bad, n, "byte 0: invalid gzip data: invalid block type" GZ_OFF);

  /* R4: garbage after a complete member; a lone 1f is a truncated member. */
  memcpy(bad, gz, n);
  memcpy(bad + n, "xx", 2);
  expectErrMem(__LINE__, bad, n + 2, "byte 28: trailing garbage after gzip member" GZ_OFF);
  bad[n] = 0x1f;
  expectErrMem(__LINE__, bad, n + 1, "byte 28: truncated gzip stream" GZ_OFF);
  bad[n + 1] = 0x00;
  expectErrMem(__LINE__, bad, n + 2, "byte 28: trailing garbage after gzip member" GZ_OFF);

  /* The same through a file (kt_open): the reader is the same. */
  writeFile("trunc.json.gz", gz, 15 + 20);
  expectFileErr("trunc.json.gz", "byte 20: truncated gzip stream" GZ_OFF);
}

static void testMultiMember(void) {
  /* R2: two stored members, split inside a string: "{\"traceEv" + rest. */
  unsigned char gz[256];
  size_t n1 = storedGz(gz, T28, 9);
  size_t n2 = storedGz(gz + n1, T28 + 9, 19);
  char msg[KT_ERR_MAX];
  int64_t nev;
  CHECK_INT(drainMem(gz, n1 + n2, KT_FULL, msg, &nev), KT_END);
  CHECK_STR(msg, "");
  CHECK_INT(nev, 1);

  /* Three real compressed members written with gzopen "wb" then "ab". */
  const char *a = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\"},";
  const char *b = "{\"ph\":\"X\",\"name\":\"b\"}";
  const char *c = "],\"x\":1}";
  writeGz("multi.json.gz", "wb", a, strlen(a));
  writeGz("multi.json.gz", "ab", b, strlen(b));
  writeGz("multi.json.gz", "ab", c, strlen(c));
  kt_file *f;
  char err[KT_ERR_MAX];
  CHECK_INT(kt_open(&f, "multi.json.gz", KT_FULL, err), KT_OK);
  int rc;
  const kt_event *e = nextEv(f, &rc);
  CHECK(e && e->name.n == 1 && e->name.p[0] == 'a');
  e = nextEv(f, &rc);
  CHECK(e && e->name.n == 1 && e->name.p[0] == 'b');
  e = nextEv(f, &rc);
  CHECK_INT(rc, KT_END);
  CHECK_MEM(kt_meta_get(f)->metadata.p, kt_meta_get(f)->metadata.n, "{\"x\":1}");
  kt_close(f);
}

/* R1: gzip is told by its magic bytes, not by the name. */
static void testMagicNotName(void) {
  writeGz("gz-named.json", "wb", T28, 28);
  writeFile("plain-named.json.gz", T28, 28);
  for (int i = 0; i < 2; i++) {
    kt_file *f;
    char err[KT_ERR_MAX];
    CHECK_INT(kt_open(&f, i ? "plain-named.json.gz" : "gz-named.json", KT_SCAN, err), KT_OK);
    int rc;
    const kt_event *e = nextEv(f, &rc);
    CHECK(e && e->ph == 'X');
    nextEv(f, &rc);
    CHECK_INT(rc, KT_END);
    CHECK_INT(kt_json_offset(f), 28);
    kt_close(f);
  }
}

/* ------------------------------------------------------------ tokenizer */

/*
** Serialises the token stream of DATA read in chunks of CHUNK bytes:
** "<tag>[!]<text>@<offset> " per token ('!': not plain), bytes < 0x20 as \xNN,
** then "EOF <offset>" or "ERR <offset> <message>".
*/
static void tokens(const void *data, size_t n, size_t chunk, int fast, char *out, size_t cap) {
  rd_reader rd;
  js_lexer js;
  size_t o = 0;
  if (rd_open_mem(&rd, data, n)) {
    snprintf(out, cap, "open: %s", rd.err);
    rd_close(&rd);
    return;
  }
  rd.chunk = chunk;
  js_init(&js, &rd);
  for (;;) {
    js_tok t;
    if (fast && (js.state == JS_ST_AFTER_OBJ || js.state == JS_ST_FIRST_KEY))
      t = js_key(&js); /* the decoder's fast paths must agree with js_next() */
    else if (fast && js.state == JS_ST_VALUE) t = js_value(&js);
    else t = js_next(&js);
    if (o + 64 >= cap) break;
    if (t == JS_ERROR) {
      snprintf(out + o, cap - o, "ERR %llu %s", (unsigned long long)js.err_off, js.err);
      break;
    }
    if (t == JS_EOF) {
      snprintf(out + o, cap - o, "EOF %llu", (unsigned long long)js.tok_off);
      break;
    }
    static const char tags[] = "?{}[]KSNTFZ";
    out[o++] = tags[t];
    if (t == JS_KEY || t == JS_STRING || t == JS_NUMBER) {
      if (t != JS_NUMBER && !js.plain) out[o++] = '!';
      for (size_t i = 0; i < js.n && o + 64 < cap; i++) {
        unsigned char c = (unsigned char)js.s[i];
        if (c < 0x20) o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        else out[o++] = (char)c;
      }
    }
    o += (size_t)snprintf(out + o, cap - o, "@%llu ", (unsigned long long)js.tok_off);
  }
  js_free(&js);
  rd_close(&rd);
}

/*
** Reads DATA in chunks of CHUNK bytes, skipping every value inside the
** top-level container with js_skip(); writes how it ended, as tokens() does.
*/
static void skipEnd(const void *data, size_t n, size_t chunk, char *out, size_t cap) {
  rd_reader rd;
  js_lexer js;
  if (rd_open_mem(&rd, data, n)) {
    snprintf(out, cap, "open: %s", rd.err);
    rd_close(&rd);
    return;
  }
  rd.chunk = chunk;
  js_init(&js, &rd);
  js_tok t = js_next(&js);
  while (t != JS_ERROR && t != JS_EOF) {
    if (js.depth > 0 || t == JS_OBJ_END || t == JS_ARR_END) {
      t = js_next(&js); /* a key, or the first token of a value at depth 1 */
      if (t == JS_OBJ_BEGIN || t == JS_ARR_BEGIN) {
        if (js_skip(&js, t)) t = JS_ERROR;
      }
    } else {
      t = js_next(&js);
    }
  }
  if (t == JS_ERROR) snprintf(out, cap, "ERR %llu %s", (unsigned long long)js.err_off, js.err);
  else snprintf(out, cap, "EOF %llu", (unsigned long long)js.tok_off);
  js_free(&js);
  rd_close(&rd);
}

/*
** The token stream of DATA (N bytes) must be EXPECTED at every chunk size
** 1..40 and a whole buffer, plain and gzip, through js_next() alone and
** through the fast paths js_key()/js_value(): buffer boundaries fall inside
** every token, escape and UTF-8 sequence, and nothing changes (J6).
*/
#define EXPECT_TOKENS(data, expected) expectTokens(__LINE__, data, sizeof(data) - 1, expected)

static void expectTokens(int line, const char *data, size_t n, const char *expected) {
  static char got[16384];
  static unsigned char gz[16384];
  size_t gn = storedGz(gz, data, n);
  for (size_t chunk = 1; chunk <= 41; chunk++) {
    size_t c = chunk == 41 ? RD_BUF_SIZE : chunk;
    for (int z = 0; z < 4; z++) {
      if (z & 1) tokens(gz, gn, c, z >> 1, got, sizeof got);
      else tokens(data, n, c, z >> 1, got, sizeof got);
      tu_checks++;
      if (strcmp(got, expected) != 0) {
        tu_failures++;
        fprintf(stderr, "%s:%d: chunk %zu gzip %d fast %d:\n  got      %s\n  expected %s\n",
                __FILE__, line, c, z & 1, z >> 1, got, expected);
        return;
      }
      /* js_skip() ends the same way: same error at the same offset, or EOF. */
      const char *end = strstr(expected, "EOF ");
      if (!end) end = strstr(expected, "ERR ");
      if (!end) continue;
      if (z & 1) skipEnd(gz, gn, c, got, sizeof got);
      else skipEnd(data, n, c, got, sizeof got);
      tu_checks++;
      if (strcmp(got, end) != 0) {
        tu_failures++;
        fprintf(stderr, "%s:%d: js_skip, chunk %zu gzip %d:\n  got      %s\n  expected %s\n",
                __FILE__, line, c, z & 1, got, end);
        return;
      }
    }
  }
}

static void testTokenizer(void) {
  /*
  ** J1, J3, J6. Offsets: '{' 0, "a" 1, '[' 7, 1 at 8, -0.5e+3 at 11, 0 at 20,
  ** 12.25E-1 at 23, true 33, false 38, null 46, ']' 50, "b\n" 54, its value
  ** 60, the raw UTF-8 key 87, '{' 99, '}' 100, '}' 101, two spaces, end 104.
  */
  EXPECT_TOKENS(
      "{\"a\" : [1, -0.5e+3, 0, 12.25E-1, true,false , null],\n"
      "\t\"b\\n\":\"x\\\"\\u00e9\\ud83d\\ude00\\/\", "
      "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\":{}}  ",
      "{@0 Ka@1 [@7 N1@8 N-0.5e+3@11 N0@20 N12.25E-1@23 T@33 F@38 Z@46 ]@50 "
      "K!b\\x0a@54 S!x\"\xc3\xa9\xf0\x9f\x98\x80/@60 "
      "K\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80@87 {@99 }@100 }@101 EOF 104");
  /* Spacing around ':' and ',' (the fast paths take only "key":). */
  EXPECT_TOKENS("{\"a\":1,\"b\" :2, \"c\": \"x\",\"d\":\"\\u0041\",\"e\":{\"f\":[]}}",
                "{@0 Ka@1 N1@5 Kb@7 N2@12 Kc@15 Sx@20 Kd@24 SA@28 Ke@37 {@41 Kf@42 [@46 ]@47 "
                "}@48 }@49 EOF 50");
  EXPECT_TOKENS("7", "N7@0 EOF 1");
  EXPECT_TOKENS(" \"\" ", "S@1 EOF 4");
  EXPECT_TOKENS("[\"\\u0000\\t\\u001f\"]", "[@0 S!\\x00\\x09\\x1f@1 ]@17 EOF 18");
  EXPECT_TOKENS("[\"\\u0022\", \"\\u005c\", \"\\u0041\"]", "[@0 S!\"@1 S!\\@11 SA@21 ]@29 EOF 30");
  /* J2: the end of input inside every kind of token. */
  EXPECT_TOKENS("[1,2", "[@0 N1@1 N2@3 ERR 4 unexpected end of input");
  EXPECT_TOKENS("[1,", "[@0 N1@1 ERR 3 unexpected end of input");
  EXPECT_TOKENS("\"abc", "ERR 4 unexpected end of input");
  EXPECT_TOKENS("\"\\", "ERR 2 unexpected end of input");
  EXPECT_TOKENS("\"\\u00", "ERR 5 unexpected end of input");
  EXPECT_TOKENS("\"\\ud83d", "ERR 7 unexpected end of input");
  EXPECT_TOKENS("[tru", "[@0 ERR 4 unexpected end of input");
  EXPECT_TOKENS("[-", "[@0 ERR 2 unexpected end of input");
  EXPECT_TOKENS("   ", "ERR 3 unexpected end of input");
  EXPECT_TOKENS("{\"a\":1", "{@0 Ka@1 N1@5 ERR 6 unexpected end of input");
  /* J3: strings. */
  EXPECT_TOKENS("\"a\xff\"", "ERR 2 invalid UTF-8");
  EXPECT_TOKENS("\"\x80\"", "ERR 1 invalid UTF-8");             /* lone continuation */
  EXPECT_TOKENS("\"\xc0\xaf\"", "ERR 1 invalid UTF-8");         /* overlong '/' */
  EXPECT_TOKENS("\"\xe0\x80\xaf\"", "ERR 1 invalid UTF-8");     /* overlong 3 bytes */
  EXPECT_TOKENS("\"\xed\xa0\x80\"", "ERR 1 invalid UTF-8");     /* U+D800 as UTF-8 */
  EXPECT_TOKENS("\"\xf4\x90\x80\x80\"", "ERR 1 invalid UTF-8"); /* above U+10FFFF */
  EXPECT_TOKENS("\"\xe2\x82\"", "ERR 1 invalid UTF-8");         /* cut short */
  EXPECT_TOKENS("\"\xe2\x82", "ERR 1 invalid UTF-8");           /* cut by the end */
  EXPECT_TOKENS("\"\xf0\x9f\x98\x80\xef\xbf\xbf\"", "S\xf0\x9f\x98\x80\xef\xbf\xbf@0 EOF 9");
  EXPECT_TOKENS("\"\\ud800\"", "ERR 1 lone surrogate");
  EXPECT_TOKENS("\"\\udc00\"", "ERR 1 lone surrogate");
  EXPECT_TOKENS("\"\\ud800\\u0041\"", "ERR 1 lone surrogate");
  EXPECT_TOKENS("\"x\\ud800x\"", "ERR 2 lone surrogate");
  EXPECT_TOKENS("\"\\ud83d\\ude0\"", "ERR 7 invalid \\u escape");
  EXPECT_TOKENS("\"\\u12g4\"", "ERR 1 invalid \\u escape");
  EXPECT_TOKENS("\"\\q\"", "ERR 1 invalid escape");
  EXPECT_TOKENS("\"a\tb\"", "ERR 2 control character in string");
  EXPECT_TOKENS("[\"a\nb\"]", "[@0 ERR 3 control character in string");
  /* J1: grammar. */
  EXPECT_TOKENS("[trux]", "[@0 ERR 1 invalid literal");
  EXPECT_TOKENS("[nul]", "[@0 ERR 1 invalid literal");
  EXPECT_TOKENS("[1.5e]", "[@0 ERR 1 invalid number");
  EXPECT_TOKENS("[1.]", "[@0 ERR 1 invalid number");
  EXPECT_TOKENS("[-x]", "[@0 ERR 1 invalid number");
  EXPECT_TOKENS("[-.5]", "[@0 ERR 1 invalid number"); /* no integer digit (fuzz_json FJ2) */
  EXPECT_TOKENS("[-.5,1]", "[@0 ERR 1 invalid number");
  EXPECT_TOKENS("[01]", "[@0 N0@1 ERR 2 expected ',' or ']'");
  EXPECT_TOKENS("[.5]", "[@0 ERR 1 unexpected character '.'");
  EXPECT_TOKENS("[1 2]", "[@0 N1@1 ERR 3 expected ',' or ']'");
  EXPECT_TOKENS("[1,]", "[@0 N1@1 ERR 3 unexpected character ']'");
  EXPECT_TOKENS("{\"a\" 1}", "{@0 Ka@1 ERR 5 expected ':' after object key");
  EXPECT_TOKENS("{\"a\":1,}", "{@0 Ka@1 N1@5 ERR 7 expected a string key");
  EXPECT_TOKENS("{1:2}", "{@0 ERR 1 expected a string key");
  EXPECT_TOKENS("{\"a\":1]", "{@0 Ka@1 N1@5 ERR 6 expected ',' or '}'");
  EXPECT_TOKENS("[] 1", "[@0 ]@1 ERR 3 trailing data after JSON value");
  EXPECT_TOKENS("[\0]", "[@0 ERR 1 unexpected byte 0x00");
  EXPECT_TOKENS("\xef\xbb\xbf[]", "ERR 0 unexpected byte 0xef");
  /* Nested values, as js_skip() sees them inside the top-level array. */
  EXPECT_TOKENS("[{\"a\":[true,{\"b\":null}],\"c\":\"\\u00e9\"},[[],{}],-1.5e3]",
                "[@0 {@1 Ka@2 [@6 T@7 {@12 Kb@13 Z@17 }@21 ]@22 Kc@24 S\xc3\xa9@28 }@36 "
                "[@38 [@39 ]@40 {@42 }@43 ]@44 N-1.5e3@46 ]@52 EOF 53");
  EXPECT_TOKENS("[{\"a\":[1,}]}]", "[@0 {@1 Ka@2 [@6 N1@7 ERR 9 unexpected character '}'");
  EXPECT_TOKENS("[{\"a\":[1 2]}]", "[@0 {@1 Ka@2 [@6 N1@7 ERR 9 expected ',' or ']'");
  EXPECT_TOKENS("[{\"a\" 1}]", "[@0 {@1 Ka@2 ERR 6 expected ':' after object key");
  EXPECT_TOKENS("[[\"\xff\"]]", "[@0 [@1 ERR 3 invalid UTF-8");
  EXPECT_TOKENS("[[nulL]]", "[@0 [@1 ERR 2 invalid literal");
  EXPECT_TOKENS("[{\"a\":{]}]", "[@0 {@1 Ka@2 {@6 ERR 7 expected a string key");
  EXPECT_TOKENS("[[1]]]", "[@0 [@1 N1@2 ]@3 ]@4 ERR 5 trailing data after JSON value");
  EXPECT_TOKENS("[[1]", "[@0 [@1 N1@2 ]@3 ERR 4 unexpected end of input");
}

/* J4, J5: limits. */
static void testTokenizerLimits(void) {
  static char deep[600];
  memset(deep, '[', sizeof deep);
  rd_reader rd;
  js_lexer js;
  CHECK_INT(rd_open_mem(&rd, deep, sizeof deep), 0);
  js_init(&js, &rd);
  int n = 0;
  while (js_next(&js) == JS_ARR_BEGIN) n++;
  CHECK_INT(n, JS_MAX_DEPTH);
  CHECK_INT(js.err_off, 512);
  CHECK_STR(js.err, "nesting deeper than 512 levels");
  CHECK(js_next(&js) == JS_ERROR); /* stays in the error state */
  js_free(&js);
  rd_close(&rd);

  /* A number of 65537 digits, and one of 65536: the limit is chunk-independent. */
  size_t big = JS_MAX_NUMBER + 3;
  char *num = malloc(big);
  for (int k = 0; k < 2; k++) {
    size_t digits = JS_MAX_NUMBER + (k == 0);
    num[0] = '[';
    memset(num + 1, '7', digits);
    num[digits + 1] = ']';
    for (size_t chunk = 1000; chunk <= RD_BUF_SIZE; chunk *= 1024) {
      CHECK_INT(rd_open_mem(&rd, num, digits + 2), 0);
      rd.chunk = chunk;
      js_init(&js, &rd);
      CHECK(js_next(&js) == JS_ARR_BEGIN);
      js_tok t = js_next(&js);
      if (k == 0) {
        CHECK(t == JS_ERROR);
        CHECK_STR(js.err, "number too long");
        CHECK_INT(js.err_off, 1);
      } else {
        CHECK(t == JS_NUMBER);
        CHECK_INT(js.n, JS_MAX_NUMBER);
      }
      js_free(&js);
      rd_close(&rd);
    }
  }
  free(num);

  /* A 3 MiB string crosses buffer boundaries and comes back whole. */
  size_t sn = 3u << 20;
  char *str = malloc(sn + 2);
  str[0] = '"';
  for (size_t i = 1; i <= sn; i++) str[i] = (char)('a' + i % 26);
  str[sn + 1] = '"';
  CHECK_INT(rd_open_mem(&rd, str, sn + 2), 0);
  js_init(&js, &rd);
  CHECK(js_next(&js) == JS_STRING);
  CHECK_INT(js.n, sn);
  CHECK(js.n == sn && memcmp(js.s, str + 1, sn) == 0);
  CHECK(js_next(&js) == JS_EOF);
  js_free(&js);
  rd_close(&rd);
  free(str);
  /* Strings of JS_MAX_STRING bytes pass; one more byte fails inside the string, plain
  ** or escaped (the escaped one is decoded into scratch from its first byte). */
  for (int esc = 0; esc < 2; esc++) {
    for (size_t len = JS_MAX_STRING; len <= JS_MAX_STRING + 1; len++) {
      size_t raw = len + (esc ? 1 : 0); /* "\t" is 2 bytes for 1 */
      char *t = malloc(raw + 2);
      t[0] = '"';
      memset(t + 1, 'x', raw);
      if (esc) t[1] = '\\', t[2] = 't';
      t[raw + 1] = '"';
      CHECK_INT(rd_open_mem(&rd, t, raw + 2), 0);
      js_init(&js, &rd);
      js_tok tk = js_next(&js);
      if (len == JS_MAX_STRING) {
        CHECK(tk == JS_STRING);
        CHECK_INT(js.n, JS_MAX_STRING);
      } else {
        CHECK(tk == JS_ERROR);
        CHECK_STR(js.err, "string longer than 4 MiB");
        CHECK(js.err_off >= 1 && js.err_off <= raw + 1);
      }
      js_free(&js);
      rd_close(&rd);
      free(t);
    }
  }
}

/* js_skip consumes exactly one value and checks it. */
static void testSkip(void) {
  const char *doc = "[{\"a\":[1,{\"b\":[]}],\"c\":\"\\u00e9\"},2]";
  rd_reader rd;
  js_lexer js;
  CHECK_INT(rd_open_mem(&rd, doc, strlen(doc)), 0);
  js_init(&js, &rd);
  CHECK(js_next(&js) == JS_ARR_BEGIN);
  CHECK_INT(js_skip(&js, js_next(&js)), 0);
  CHECK(js_next(&js) == JS_NUMBER);
  CHECK_MEM(js.s, js.n, "2");
  CHECK(js_next(&js) == JS_ARR_END);
  CHECK(js_next(&js) == JS_EOF);
  js_free(&js);
  rd_close(&rd);

  const char *bad = "[{\"a\":[1,{\"b\":[}]}]";
  CHECK_INT(rd_open_mem(&rd, bad, strlen(bad)), 0);
  js_init(&js, &rd);
  CHECK(js_next(&js) == JS_ARR_BEGIN);
  CHECK_INT(js_skip(&js, js_next(&js)), -1);
  CHECK_INT(js.err_off, 15);
  CHECK_STR(js.err, "unexpected character '}'");
  js_free(&js);
  rd_close(&rd);
}

/* ------------------------------------------------------------ decoder */

/* The trace of testBasic: metadata before and after traceEvents (K1). */
static const char BASIC[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"A100\", "
    "\"totalGlobalMem\": 85899345920}],\n"
    " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8, "
    "\"pg_config\": [{\"pg_name\": \"0\"}]},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 10, \"tid\": 11, "
    "\"ts\": 1712195495502094.565, \"dur\": 68.0, \"args\": {\"External id\": 5, \"Ev Idx\": 2}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sgemm\", \"pid\": 0, \"tid\": \"stream "
    "7\", "
    "\"ts\": 100, \"dur\": 1.5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, "
    "\"grid\": [1, 2, 3]}},\n"
    "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 10, \"tid\": 11, "
    "\"args\": {\"name\": \"python\", \"sort_index\": 4}},\n"
    "  7,\n"
    "  {\"ph\": \"C\", \"name\": \"Memory\", \"pid\": 1, \"ts\": 5, "
    "\"args\": {\"Total Allocated\": 1024, \"Total Reserved\": 2.5e3, \"label\": \"x\"}},\n"
    "  {\"ph\": \"s\", \"id\": 42, \"pid\": 1, \"tid\": 2, \"ts\": 7, \"cat\": \"ac2g\", "
    "\"name\": \"launch\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"marker\", \"ts\": 8}\n"
    " ],\n"
    " \"traceName\": \"t.json\", \"displayTimeUnit\": \"ms\", "
    "\"baseTimeNanoseconds\": 1700000000000000000}\n";

#define F_XEV (KT_HAS_NAME | KT_HAS_CAT | KT_HAS_PID | KT_HAS_TID | KT_HAS_TS | KT_HAS_DUR)

/* Checks the events and metadata of BASIC decoded from F in MODE. */
static void checkBasic(kt_file *f, kt_mode mode) {
  int rc;
  const kt_event *e = nextEv(f, &rc);
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 0);
  CHECK_INT(e->ph, 'X');
  CHECK_INT(e->flags, F_XEV | KT_HAS_EXTERNAL_ID | KT_HAS_ARGS);
  CHECK_MEM(e->cat.p, e->cat.n, "cpu_op");
  CHECK_MEM(e->name.p, e->name.n, "aten::mm");
  CHECK(!e->pid.is_str && e->pid.i == 10);
  CHECK(!e->tid.is_str && e->tid.i == 11);
  CHECK_INT(e->ts, 1712195495502094565LL); /* K3: exact, no double */
  CHECK_INT(e->dur, 68000);
  CHECK_INT(e->external_id, 5);
  CHECK_MEM(e->args.p, e->args.n, mode == KT_FULL ? "{\"Ev Idx\":2}" : "");
  CHECK_INT(kt_meta_get(f)->has_rank, 1); /* distributedInfo came first */
  CHECK_INT(kt_meta_get(f)->rank, 3);

  e = nextEv(f, &rc);
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 1);
  CHECK_INT(e->flags,
            F_XEV | KT_HAS_DEVICE | KT_HAS_STREAM | KT_HAS_CORRELATION | KT_HAS_ARGS | KT_GPU_WORK);
  CHECK(e->tid.is_str);
  CHECK_MEM(e->tid.s.p, e->tid.s.n, "stream 7");
  CHECK_INT(e->ts, 100000);
  CHECK_INT(e->dur, 1500);
  CHECK_INT(e->device, 0);
  CHECK_INT(e->stream, 7);
  CHECK_INT(e->correlation, 9);
  CHECK_MEM(e->args.p, e->args.n, mode == KT_FULL ? "{\"grid\":[1,2,3]}" : "");

  e = nextEv(f, &rc);
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 2);
  CHECK_INT(e->ph, 'M');
  CHECK_INT(e->flags, KT_HAS_NAME | KT_HAS_PID | KT_HAS_TID | KT_HAS_ARGS | KT_HAS_SORT_INDEX);
  CHECK_MEM(e->name.p, e->name.n, "thread_name");
  CHECK_INT(e->sort_index, 4);
  if (mode == KT_FULL) {
    CHECK_MEM(e->meta_name.p, e->meta_name.n, "python");
    CHECK_MEM(e->args.p, e->args.n, "{\"name\":\"python\",\"sort_index\":4}");
  }

  e = nextEv(f, &rc); /* K2: the 7 was skipped but counted */
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 4);
  CHECK_INT(e->ph, 'C');
  CHECK_INT(e->ts, 5000);
  if (mode == KT_FULL) {
    CHECK_INT(e->ncounters, 2);
    if (e->ncounters == 2) {
      CHECK_MEM(e->counters[0].key.p, e->counters[0].key.n, "Total Allocated");
      CHECK(e->counters[0].value == 1024.0);
      CHECK_MEM(e->counters[1].key.p, e->counters[1].key.n, "Total Reserved");
      CHECK(e->counters[1].value == 2500.0);
    }
    CHECK_MEM(e->args.p, e->args.n,
              "{\"Total Allocated\":1024,\"Total Reserved\":2.5e3,\"label\":\"x\"}");
  }

  e = nextEv(f, &rc);
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 5);
  CHECK_INT(e->ph, 's');
  CHECK_INT(e->flags, KT_HAS_ID | KT_HAS_PID | KT_HAS_TID | KT_HAS_TS | KT_HAS_CAT | KT_HAS_NAME);
  CHECK(!e->id.is_str && e->id.i == 42);
  CHECK_MEM(e->bp.p, e->bp.n, "e");
  CHECK_INT(e->ncounters, 0);
  CHECK_INT(e->args.n, 0);

  e = nextEv(f, &rc);
  CHECK(e != NULL);
  if (!e) return;
  CHECK_INT(e->seq, 6);
  CHECK_INT(e->ph, 'i');
  CHECK_INT(e->flags, KT_HAS_NAME | KT_HAS_TS);
  CHECK_INT(e->ts, 8000);
  CHECK_INT(e->bp.n, 0);

  CHECK(nextEv(f, &rc) == NULL);
  CHECK_INT(rc, KT_END);
  CHECK(nextEv(f, &rc) == NULL); /* stays at the end */
  CHECK_INT(rc, KT_END);
  const kt_meta *m = kt_meta_get(f);
  CHECK_INT(m->event_count, 7);
  CHECK_INT(m->is_array, 0);
  CHECK_INT(m->has_trace_events, 1);
  CHECK_INT(m->has_rank, 1);
  CHECK_INT(m->rank, 3);
  CHECK_INT(m->has_world_size, 1);
  CHECK_INT(m->world_size, 8);
  CHECK_MEM(m->backend.p, m->backend.n, "nccl");
  CHECK_MEM(m->schema_version.p, m->schema_version.n, "1");
  CHECK_INT(m->has_base_time, 1);
  CHECK_INT(m->base_time_ns, 1700000000000000000LL);
  CHECK_MEM(m->display_time_unit.p, m->display_time_unit.n, "ms");
  CHECK_MEM(m->device_properties.p, m->device_properties.n,
            "[{\"id\":0,\"name\":\"A100\",\"totalGlobalMem\":85899345920}]");
  CHECK_MEM(m->metadata.p, m->metadata.n,
            "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"A100\","
            "\"totalGlobalMem\":85899345920}],\"distributedInfo\":{\"backend\":\"nccl\","
            "\"rank\":3,\"world_size\":8,\"pg_config\":[{\"pg_name\":\"0\"}]},"
            "\"traceName\":\"t.json\",\"displayTimeUnit\":\"ms\","
            "\"baseTimeNanoseconds\":1700000000000000000}");
}

static void testBasic(void) {
  size_t n = sizeof BASIC - 1;
  writeFile("basic.json", BASIC, n);
  writeGz("basic.json.gz", "wb", BASIC, n);
  size_t gn;
  unsigned char *gz = readFile("basic.json.gz", &gn);
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    for (int src = 0; src < 3; src++) {
      kt_file *f;
      char err[KT_ERR_MAX];
      int rc = src == 0   ? kt_open(&f, "basic.json", (kt_mode)mode, err)
               : src == 1 ? kt_open(&f, "basic.json.gz", (kt_mode)mode, err)
                          : kt_open_mem(&f, BASIC, n, (kt_mode)mode, err);
      CHECK_INT(rc, KT_OK);
      if (rc != KT_OK) continue;
      checkBasic(f, (kt_mode)mode);
      /* R7: the hash and sizes are those of the raw bytes. */
      size_t raw = src == 1 ? gn : n;
      CHECK(kt_content_hash(f) == rd_xxh64_block(src == 1 ? (const void *)gz : BASIC, raw));
      CHECK_INT(kt_file_size(f), raw);
      CHECK_INT(kt_raw_offset(f), raw);
      CHECK_INT(kt_json_offset(f), n);
      kt_close(f);
    }
  }
  free(gz);
}

/* K3: µs text to ns, exactly. The seq of each dur is its line below. */
static void testNs(void) {
  static const struct {
    const char *text;
    int64_t ns;
  } cases[] = {
      {"1712195495502094.565", 1712195495502094565LL},
      {"68.0", 68000},
      {"1.5e3", 1500000},
      {"1E3", 1000000},
      {"12345e-3", 12345},
      {"0.000001e6", 1000},
      {"1e-4", 0},    /* 0.1 ns */
      {"5e-4", 0},    /* 0.5 ns: half to even */
      {"1.5e-3", 2},  /* 1.5 ns */
      {"2.5e-3", 2},  /* 2.5 ns */
      {"0.0035", 4},  /* 3.5 ns */
      {"0.00051", 1}, /* 0.51 ns */
      {"1.0005", 1000},
      {"1.0015", 1002},
      {"1.23456789", 1235},
      {"-0.0015", -2},
      {"-0.0005", 0},
      {"9223372036854775.807", INT64_MAX},
      {"-9223372036854775.808", INT64_MIN},
      {"9223372036854775.8074", INT64_MAX},
      {"0", 0},
      {"-0", 0},
      {"0.0", 0},
      {"100000000000000000e-3", 100000000000000000LL},
      {"1712195495502094565e-3", 1712195495502094565LL},
      {"0.1e1", 1000},
      {"123.4567", 123457},
      {"123.45650", 123456},
      {"123.45750", 123458},
      {"123.456500001", 123457},
      {"1e-400", 0},
      {"0e999999999999", 0},
      {"-7", -7000},
      {"9223372036854775", 9223372036854775000LL},
      {"0.000000000000000000000000001e27", 1000},
  };
  size_t ncase = sizeof cases / sizeof cases[0];
  /* each value once as a dur (ts 0) and once as a ts (no dur): ts + dur must fit too */
  char *json = malloc(128 * ncase + 64);
  size_t o = (size_t)sprintf(json, "{\"traceEvents\":[");
  for (size_t i = 0; i < ncase; i++)
    o += (size_t)sprintf(json + o, "%s{\"ph\":\"X\",\"dur\":%s,\"ts\":0},{\"ph\":\"X\",\"ts\":%s}",
                         i ? "," : "", cases[i].text, cases[i].text);
  strcpy(json + o, "]}");
  kt_file *f = openStr(json, KT_SCAN);
  int rc;
  const kt_event *e;
  for (size_t i = 0; f && (e = nextEv(f, &rc)) != NULL; i++) {
    if (i >= 2 * ncase) break;
    size_t c = i / 2;
    int as_dur = i % 2 == 0;
    tu_checks++;
    if (as_dur ? (e->dur != cases[c].ns || e->ts != 0 || e->flags != (KT_HAS_TS | KT_HAS_DUR))
               : (e->ts != cases[c].ns || e->flags != KT_HAS_TS)) {
      tu_failures++;
      fprintf(stderr, "%s:%d: %s as %s gave %lld ns, expected %lld\n", __FILE__, __LINE__,
              cases[c].text, as_dur ? "dur" : "ts", (long long)(as_dur ? e->dur : e->ts),
              (long long)cases[c].ns);
    }
  }
  CHECK_INT(rc, KT_END);
  CHECK_INT(kt_meta_get(f)->event_count, (int64_t)(2 * ncase));
  kt_close(f);
  free(json);

  /* An end beyond int64 ns: the error points at the event's closing brace (byte 61). */
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":9000000000000000,\"dur\":9000000000000000}]}",
             "byte 61: number out of range (\"ts\" + \"dur\")");

  /* Offsets: {"traceEvents":[{"ts": is 22 bytes, so the value is at 22. */
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":9223372036854775.8075}]}",
             "byte 22: number out of range (\"ts\")");
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":9223372036854775.808}]}",
             "byte 22: number out of range (\"ts\")");
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":9223372036854776}]}",
             "byte 22: number out of range (\"ts\")");
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":1e400}]}", "byte 22: number out of range (\"ts\")");
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":123456789012345678901234567890}]}",
             "byte 22: number out of range (\"ts\")");
  EXPECT_ERR("{\"traceEvents\":[{\"dur\":-9223372036854775.809}]}",
             "byte 23: number out of range (\"dur\")");
  EXPECT_ERR("{\"traceEvents\":[{\"dur\":-1e400}]}", "byte 23: number out of range (\"dur\")");
  /* K3: a string is the wrong type, null is absent. */
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":\"5\"}]}", "byte 22: wrong type: \"ts\" must be a number");
  EXPECT_ERR("{\"traceEvents\":[{\"dur\":true}]}", "byte 23: wrong type: \"dur\" must be a number");
  f = openStr("{\"traceEvents\":[{\"ts\":null,\"dur\":null,\"name\":null,\"pid\":null}]}", KT_FULL);
  e = nextEv(f, &rc);
  CHECK(e && e->flags == 0);
  kt_close(f);
  /* Empty strings are present, with a non-NULL pointer. */
  f = openStr("{\"traceEvents\":[{\"name\":\"\",\"ph\":\"\",\"tid\":\"\"}]}", KT_FULL);
  e = nextEv(f, &rc);
  CHECK(e && e->flags == (KT_HAS_NAME | KT_HAS_TID) && e->ph == 0);
  CHECK(e && e->name.p && e->name.n == 0 && e->tid.is_str && e->tid.s.p && e->cat.p);
  CHECK(e && e->args.p && e->bp.p && !e->meta_name.p);
  kt_close(f);
  /* meta_name: NULL when args.name is missing or not a string, "" when empty. */
  f = openStr(
      "{\"traceEvents\":[{\"ph\":\"M\",\"args\":{}},{\"ph\":\"M\",\"args\":"
      "{\"name\":5}},{\"args\":{\"name\":\"\"},\"ph\":\"M\"},{\"ph\":\"X\",\"args\":"
      "{\"name\":\"a\"}}]}",
      KT_FULL);
  for (int i = 0; i < 4; i++) {
    e = nextEv(f, &rc);
    CHECK(e != NULL);
    if (e) CHECK_INT(e->meta_name.p != NULL, i == 2);
    if (e) CHECK_INT(e->meta_name.n, 0);
  }
  kt_close(f);
}

/* K2: the oldest Kineto format, a bare array; non-objects are counted. */
static void testBareArray(void) {
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    kt_file *f = openStr(
        "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1}, 5, \"s\", null, [1,[2]],"
        " {\"ph\":\"i\"}]",
        (kt_mode)mode);
    int rc;
    const kt_event *e = nextEv(f, &rc);
    CHECK(e && e->seq == 0 && e->ts == 1000);
    e = nextEv(f, &rc);
    CHECK(e && e->seq == 5 && e->ph == 'i');
    CHECK(nextEv(f, &rc) == NULL);
    CHECK_INT(rc, KT_END);
    const kt_meta *m = kt_meta_get(f);
    CHECK_INT(m->is_array, 1);
    CHECK_INT(m->has_trace_events, 1);
    CHECK_INT(m->event_count, 6);
    CHECK_MEM(m->metadata.p, m->metadata.n, "{}");
    kt_close(f);
  }
  kt_file *f = openStr(" [ ] ", KT_FULL);
  int rc;
  CHECK(nextEv(f, &rc) == NULL);
  CHECK_INT(rc, KT_END);
  CHECK_INT(kt_meta_get(f)->event_count, 0);
  kt_close(f);
  f = openStr("{\"traceEvents\":[]}", KT_FULL);
  CHECK(nextEv(f, &rc) == NULL);
  CHECK_INT(rc, KT_END);
  CHECK_MEM(kt_meta_get(f)->metadata.p, kt_meta_get(f)->metadata.n, "{}");
  CHECK_INT(kt_meta_get(f)->is_array, 0);
  kt_close(f);
}

/* K9: metadata variants. */
static void testMeta(void) {
  int rc;
  kt_file *f = openStr(
      "{\"traceEvents\":[],\"distributedInfo\":{\"rank\":\"5\",\"world_size\":"
      "\"16\"},\"schemaVersion\":\"1.0.1\",\"baseTimeNanoseconds\":"
      "\"1700000000000000000\",\"a\\\"b\":[{}, \"\\u00e9\\n\"]}",
      KT_SCAN);
  CHECK(nextEv(f, &rc) == NULL);
  CHECK_INT(rc, KT_END);
  const kt_meta *m = kt_meta_get(f);
  CHECK(m->has_rank && m->rank == 5);
  CHECK(m->has_world_size && m->world_size == 16);
  CHECK_MEM(m->schema_version.p, m->schema_version.n, "1.0.1");
  CHECK(m->has_base_time && m->base_time_ns == 1700000000000000000LL);
  CHECK_INT(m->backend.n, 0);
  CHECK_INT(m->device_properties.n, 0);
  CHECK_INT(m->display_time_unit.n, 0);
  CHECK_MEM(m->metadata.p, m->metadata.n,
            "{\"distributedInfo\":{\"rank\":\"5\",\"world_size\":\"16\"},\"schemaVersion\":"
            "\"1.0.1\",\"baseTimeNanoseconds\":\"1700000000000000000\",\"a\\\"b\":[{},"
            "\"\xc3\xa9\\n\"]}");
  kt_close(f);

  /* Ranks that are not integers or digit strings are absent; deviceProperties
  ** that is not an array is not reported (but stays in metadata). */
  static const char *const noRank[] = {
      "{\"distributedInfo\":{\"rank\":\"x5\"},\"traceEvents\":[]}",
      "{\"distributedInfo\":{\"rank\":1.5},\"traceEvents\":[]}",
      "{\"distributedInfo\":{\"rank\":\"\"},\"traceEvents\":[]}",
      "{\"distributedInfo\":{\"rank\":null},\"traceEvents\":[]}",
      "{\"distributedInfo\":null,\"traceEvents\":[]}",
      "{\"rank\":3,\"traceEvents\":[]}",
      "{\"distributedInfo\":{\"rank\":99999999999999999999},\"traceEvents\":[]}",
  };
  for (size_t i = 0; i < sizeof noRank / sizeof noRank[0]; i++) {
    f = openStr(noRank[i], KT_SCAN);
    nextEv(f, &rc);
    CHECK_INT(rc, KT_END);
    CHECK_INT(kt_meta_get(f)->has_rank, 0);
    kt_close(f);
  }
  f = openStr(
      "{\"distributedInfo\":{\"rank\":-1,\"backend\":\"gl\\u006f\"},\"deviceProperties\":"
      "{},\"schemaVersion\":2.0,\"traceEvents\":[]}",
      KT_SCAN);
  nextEv(f, &rc);
  m = kt_meta_get(f);
  CHECK(m->has_rank && m->rank == -1);
  CHECK_MEM(m->backend.p, m->backend.n, "glo");
  CHECK_INT(m->device_properties.n, 0);
  CHECK_MEM(m->schema_version.p, m->schema_version.n, "2.0");
  CHECK_MEM(m->metadata.p, m->metadata.n,
            "{\"distributedInfo\":{\"rank\":-1,\"backend\":\"glo\"},\"deviceProperties\":{},"
            "\"schemaVersion\":2.0}");
  kt_close(f);

  /* After an error the spans still point into live buffers, even when the
  ** failing member had grown (moved) the metadata buffer (found by fuzzing). */
  static char grow[3000];
  size_t o = (size_t)sprintf(grow, "{\"deviceProperties\":[{\"id\":0}],\"x\":[\"");
  memset(grow + o, 'v', 2500);
  strcpy(grow + o + 2500, "\",tru]}");
  f = openStr(grow, KT_SCAN);
  nextEv(f, &rc);
  CHECK_INT(rc, KT_ERROR);
  m = kt_meta_get(f);
  CHECK_MEM(m->device_properties.p, m->device_properties.n, "[{\"id\":0}]");
  kt_close(f);
}

/* K5, K6, K7: promoted args, present / absent / wrong type, and what stays. */
static void testPromoted(void) {
  static const struct {
    const char *event;
    unsigned flags; /* of the promoted ones, plus KT_HAS_ARGS and KT_GPU_WORK */
    int64_t stream, correlation, external_id, device;
    const char *args; /* KT_FULL */
  } cases[] = {
      {"{\"cat\":\"cpu_op\",\"args\":{}}", KT_HAS_ARGS, 0, 0, 0, 0, ""},
      {"{\"cat\":\"cpu_op\"}", 0, 0, 0, 0, 0, ""},
      {"{\"cat\":\"kernel\",\"args\":{\"stream\":\"7\",\"correlation\":\"5\","
       "\"External id\":1.5,\"device\":null}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 7, 0, 0, 0,
       "{\"correlation\":\"5\",\"External id\":1.5,\"device\":null}"},
      {"{\"cat\":\"cuda_runtime\",\"args\":{\"stream\":\"0x0\",\"correlation\":12}}",
       KT_HAS_ARGS | KT_HAS_CORRELATION, 0, 12, 0, 0, "{\"stream\":\"0x0\"}"},
      {"{\"cat\":\"cpu_op\",\"args\":{\"stream\":7.9,\"correlation\":1.0,\"device\":-3}}",
       KT_HAS_ARGS | KT_HAS_STREAM | KT_HAS_CORRELATION | KT_HAS_DEVICE, 7, 1, 0, -3,
       "{\"stream\":7.9}"},
      {"{\"cat\":\"gpu_memcpy\",\"args\":{\"stream\":-7.9}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, -7, 0, 0, 0, ""},
      {"{\"cat\":\"Memset\",\"args\":{\"a\":1,\"stream\":2,\"b\":2}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 2, 0, 0, 0, "{\"a\":1,\"b\":2}"},
      {"{\"cat\":\"mtia_ccp_events\",\"args\":{\"stream\":3,\"b\":2}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 3, 0, 0, 0, "{\"b\":2}"},
      {"{\"cat\":\"kernel\",\"args\":{\"b\":2,\"stream\":3}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 3, 0, 0, 0, "{\"b\":2}"},
      {"{\"args\":{\"b\":2,\"stream\":3},\"cat\":\"gpu_memset\"}", /* cat after args */
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 3, 0, 0, 0, "{\"b\":2}"},
      {"{\"cat\":\"kernel\",\"args\":{\"stream\":true,\"External id\":9223372036854775807,"
       "\"correlation\":-9223372036854775808}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_EXTERNAL_ID | KT_HAS_CORRELATION, 0, INT64_MIN, INT64_MAX,
       0, "{\"stream\":true}"},
      {"{\"cat\":\"Kernel\",\"args\":{\"stream\":\"1e2\"}}",
       KT_HAS_ARGS | KT_GPU_WORK | KT_HAS_STREAM, 100, 0, 0, 0, ""},
      {"{\"cat\":\"Memcpy\",\"args\":{\"stream\":\" 7\"}}", KT_HAS_ARGS | KT_GPU_WORK, 0, 0, 0, 0,
       "{\"stream\":\" 7\"}"},
      {"{\"cat\":\"kernel\",\"args\":{\"stream\":\"99999999999999999999\"}}",
       KT_HAS_ARGS | KT_GPU_WORK, 0, 0, 0, 0, "{\"stream\":\"99999999999999999999\"}"},
      {"{\"cat\":\"gpu_memcpyx\",\"args\":{\"stream\":1}}", KT_HAS_ARGS | KT_HAS_STREAM, 1, 0, 0, 0,
       "{\"stream\":1}"},
      {"{\"cat\":\"cpu_op\",\"args\":{\"Comms Id\":10159970886766084423,\"big\":1e400,"
       "\"neg\":-0.0}}",
       KT_HAS_ARGS, 0, 0, 0, 0, "{\"Comms Id\":10159970886766084423,\"big\":1e400,\"neg\":-0.0}"},
      {"{\"args\":{\"correlation\":2e0,\"External id\":\"5\"}}", KT_HAS_ARGS | KT_HAS_CORRELATION,
       0, 2, 0, 0, "{\"External id\":\"5\"}"},
      {"{\"args\": { \"k\\u0041\" : [ 1 , { \"x\" : \"a\\\"b\\\\c\\/d\\u0001\\t\" } , [ ] , "
       "{ } ] , \"e\" : \"\\u00e9\" } }",
       KT_HAS_ARGS, 0, 0, 0, 0,
       "{\"kA\":[1,{\"x\":\"a\\\"b\\\\c/d\\u0001\\t\"},[],{}],\"e\":\"\xc3\xa9\"}"},
      {"{\"args\":{\"a\":1},\"args\":{\"b\":2}}", KT_HAS_ARGS, 0, 0, 0, 0, "{\"b\":2}"},
      {"{\"args\":null}", 0, 0, 0, 0, 0, ""},
  };
  size_t ncase = sizeof cases / sizeof cases[0];
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    for (size_t i = 0; i < ncase; i++) {
      char json[512];
      snprintf(json, sizeof json, "{\"traceEvents\":[%s]}", cases[i].event);
      kt_file *f = openStr(json, (kt_mode)mode);
      int rc;
      const kt_event *e = nextEv(f, &rc);
      unsigned mask = KT_HAS_STREAM | KT_HAS_CORRELATION | KT_HAS_EXTERNAL_ID | KT_HAS_DEVICE |
                      KT_HAS_ARGS | KT_GPU_WORK;
      tu_checks++;
      if (!e || (e->flags & mask) != cases[i].flags || e->stream != cases[i].stream ||
          e->correlation != cases[i].correlation || e->external_id != cases[i].external_id ||
          e->device != cases[i].device ||
          (mode == KT_FULL && (e->args.n != strlen(cases[i].args) ||
                               memcmp(e->args.p, cases[i].args, e->args.n) != 0)) ||
          (mode == KT_SCAN && e->args.n != 0)) {
        tu_failures++;
        fprintf(stderr, "%s:%d: mode %d case %zu: %s\n", __FILE__, __LINE__, mode, i,
                e ? "" : kt_errmsg(f));
        if (e)
          fprintf(stderr, "  flags %#x stream %lld corr %lld ext %lld dev %lld args %.*s\n",
                  e->flags & mask, (long long)e->stream, (long long)e->correlation,
                  (long long)e->external_id, (long long)e->device, (int)e->args.n, e->args.p);
      }
      kt_close(f);
    }
  }
  /* {"traceEvents":[{"args":{"correlation": puts the value at 39. */
  EXPECT_ERR("{\"traceEvents\":[{\"args\":{\"correlation\":9223372036854775808}}]}",
             "byte 39: number out of range (\"correlation\")");
  EXPECT_ERR("{\"traceEvents\":[{\"args\":{\"External id\":1e19}}]}",
             "byte 39: number out of range (\"External id\")");
  EXPECT_ERR("{\"traceEvents\":[{\"args\":{\"stream\":-1e300}}]}",
             "byte 34: number out of range (\"stream\")");
}

/* K4, K8 and the other decoder errors, with their offsets. */
static void testDecoderErrors(void) {
  /* {"traceEvents":[{ is 17 bytes; "ph" 17..20, ':' 21, value 22. */
  EXPECT_ERR("{\"traceEvents\":[{\"ph\":\"X\"", "byte 25: unexpected end of input");
  EXPECT_ERR("{\"traceEvents\":[{\"ph\":\"X\",}]}", "byte 26: expected a string key");
  EXPECT_ERR("{\"traceEvents\":[{\"ph\":\"X\" \"cat\":\"a\"}]}", "byte 26: expected ',' or '}'");
  EXPECT_ERR(
      "{\"traceEvents\":[{\"name\":\"a\xff"
      "b\"}]}",
      "byte 26: invalid UTF-8");
  EXPECT_ERR("{\"traceEvents\":[{\"name\":\"\\ud800\"}]}", "byte 25: lone surrogate");
  EXPECT_ERR("{\"traceEvents\":[{\"name\":\"\\udc00x\"}]}", "byte 25: lone surrogate");
  EXPECT_ERR("{\"traceEvents\":[{\"name\":5}]}", "byte 24: wrong type: \"name\" must be a string");
  EXPECT_ERR("{\"traceEvents\":[{\"cat\":{}}]}", "byte 23: wrong type: \"cat\" must be a string");
  EXPECT_ERR("{\"traceEvents\":[{\"ph\":88}]}", "byte 22: wrong type: \"ph\" must be a string");
  EXPECT_ERR("{\"traceEvents\":[{\"pid\":1.5}]}",
             "byte 23: wrong type: \"pid\" must be an integer or a string");
  EXPECT_ERR("{\"traceEvents\":[{\"tid\":[]}]}",
             "byte 23: wrong type: \"tid\" must be an integer or a string");
  EXPECT_ERR("{\"traceEvents\":[{\"pid\":9223372036854775808}]}",
             "byte 23: number out of range (\"pid\")");
  EXPECT_ERR("{\"traceEvents\":[{\"args\":[]}]}",
             "byte 24: wrong type: \"args\" must be an object");
  /* K8: {"traceEvents":[{"ph":"C","args":{"v": puts the value at 38. */
  EXPECT_ERR("{\"traceEvents\":[{\"ph\":\"C\",\"args\":{\"v\":1e400}}]}",
             "byte 38: number out of range (\"args\")");
  EXPECT_ERR("{\"traceEvents\":[{\"args\":{\"v\":1e400},\"ph\":\"C\"}]}",
             "byte 29: number out of range (\"args\")");
  /* K1 */
  EXPECT_ERR("{\"schema\":\"1.0.1\",\"nodes\":[]}",
             "byte 29: not a Kineto trace: no traceEvents array");
  EXPECT_ERR("{}", "byte 2: not a Kineto trace: no traceEvents array");
  EXPECT_ERR("42 ", "byte 3: not a Kineto trace: no traceEvents array");
  EXPECT_ERR("\"traceEvents\"", "byte 13: not a Kineto trace: no traceEvents array");
  EXPECT_ERR("{\"traceEvents\":[],\"traceEvents\":[]}", "byte 18: duplicate \"traceEvents\"");
  EXPECT_ERR("{\"traceEvents\":{}}", "byte 15: wrong type: \"traceEvents\" must be an array");
  EXPECT_ERR("{\"traceEvents\":null}", "byte 15: wrong type: \"traceEvents\" must be an array");
  EXPECT_ERR("{\"traceEvents\":[]}{}", "byte 18: trailing data after JSON value");
  EXPECT_ERR("{\"traceEvents\" []}", "byte 15: expected ':' after object key");
  EXPECT_ERR("{\"traceEvents\":[tru]}", "byte 16: invalid literal");
  EXPECT_ERR("{\"traceEvents\":[{\"name\":\"a\tb\"}]}", "byte 26: control character in string");
  EXPECT_ERR("{\"traceEvents\":[{\"x\":\"\\z\"}]}", "byte 22: invalid escape");
  EXPECT_ERR("{\"x\":[1,2,}", "byte 10: unexpected character '}'");
  EXPECT_ERR("{\"traceEvents\":[{\"args\":{\"a\":-}}]}", "byte 29: invalid number");
  EXPECT_ERR("{\"traceEvents\":[{\"ts\":-.5,\"ph\":\"X\"}]}", "byte 22: invalid number");

  /* An empty gzip member is no JSON at all. */
  unsigned char gz[64];
  size_t n = storedGz(gz, "", 0);
  expectErrMem(__LINE__, gz, n,
               "byte 0: unexpected end of input (offset in the decompressed JSON)");

  /* After an error kt_next keeps failing with the same message. */
  kt_file *f = openStr("{\"traceEvents\":[{\"ts\":\"1\"}]}", KT_FULL);
  int rc;
  nextEv(f, &rc);
  CHECK_INT(rc, KT_ERROR);
  nextEv(f, &rc);
  CHECK_INT(rc, KT_ERROR);
  CHECK_STR(kt_errmsg(f), "byte 22: wrong type: \"ts\" must be a number");
  CHECK_INT(kt_error_offset(f), 22);
  kt_close(f);
}

/* J4 through the decoder: 100k '[' in a file, and deep args. */
/* One event's args JSON is capped at 16 MiB (KT_FULL builds it; KT_SCAN does not, so
** only the full pass fails: the file still fails whole). Escapes count as written. */
static void testEventLimit(void) {
  const size_t part = 3584u << 10;           /* 3.5 MiB */
  for (int parts = 4; parts <= 5; parts++) { /* 14 MiB of args, then 17.5 MiB */
    size_t cap = 64 + (size_t)parts * (part + 16);
    char *t = malloc(cap);
    size_t n =
        (size_t)snprintf(t, cap, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {");
    for (int k = 0; k < parts; k++) {
      n += (size_t)snprintf(t + n, cap - n, "%s\"k%d\": \"", k ? ", " : "", k);
      memset(t + n, 'y', part);
      n += part;
      t[n++] = '"';
    }
    n += (size_t)snprintf(t + n, cap - n, "}}]}");
    for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
      kt_file *f;
      char err[KT_ERR_MAX];
      CHECK_INT(kt_open_mem(&f, t, n, (kt_mode)mode, err), KT_OK);
      const kt_event *e;
      int rc = kt_next(f, &e);
      if (parts == 5 && mode == KT_FULL) {
        CHECK_INT(rc, KT_ERROR);
        CHECK(strstr(kt_errmsg(f), ": event larger than 16 MiB") != NULL);
      } else {
        CHECK_INT(rc, KT_EVENT);
        if (mode == KT_FULL && rc == KT_EVENT) CHECK(e->args.n > (size_t)parts * part);
      }
      kt_close(f);
    }
    free(t);
  }
  /* 3 MiB of '"', written \" (6 MiB): the args text is 6 MiB + 8, under the cap. */
  size_t q = 3u << 20, cap = 2 * q + 64;
  char *t = malloc(cap);
  size_t n = (size_t)snprintf(t, cap, "[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": \"");
  for (size_t i = 0; i < q; i++) t[n++] = '\\', t[n++] = '"';
  n += (size_t)snprintf(t + n, cap - n, "\"}}]");
  kt_file *f;
  char err[KT_ERR_MAX];
  CHECK_INT(kt_open_mem(&f, t, n, KT_FULL, err), KT_OK);
  const kt_event *e;
  CHECK_INT(kt_next(f, &e), KT_EVENT);
  CHECK_INT(e->args.n, 2 * q + 8); /* {"a":"...."} */
  kt_close(f);
  free(t);
}

static void testDepth(void) {
  size_t n = 100000;
  char *deep = malloc(n + 64);
  memset(deep, '[', n);
  writeFile("deep.json", deep, n);
  expectFileErr("deep.json", "byte 512: nesting deeper than 512 levels");
  /* {"traceEvents":[{"args":{"a": is 29 bytes: bracket k (from 0) opens
  ** level 5 + k, so k = 508 at offset 537 is the first one too many. */
  strcpy(deep, "{\"traceEvents\":[{\"args\":{\"a\":");
  memset(deep + 29, '[', 600);
  expectErrMem(__LINE__, deep, 629, "byte 537: nesting deeper than 512 levels");
  free(deep);
}

/* ------------------------------------------------------------ two halves */

/* A file read in two halves (kt_stop_at / kt_open_at / kt_join) joins to what one
** pass finds: 4 events, the whole file's hash. When the tail is rewritten in place
** after the second reader read it and before the first reader hashes it, the join
** fails at the seam: the second half's events are not the file's any more. */
static void splitRun(const char *path, const char *json, int rewrite) {
  uint64_t at = (uint64_t)(strstr(json, "{\"ph\": \"X\", \"name\": \"c\"") - json);
  kt_file *a = NULL, *b = NULL;
  char err[KT_ERR_MAX];
  const kt_event *e;
  int rc, na = 0, nb = 0;
  writeFile(path, json, strlen(json));
  CHECK_INT(kt_open(&a, path, KT_SCAN, err), KT_OK);
  CHECK_INT(kt_open_at(&b, path, at, 0, KT_SCAN, err), KT_OK);
  if (!a || !b) goto out;
  kt_stop_at(a, at);
  while ((rc = kt_next(b, &e)) == KT_EVENT) nb++;
  CHECK_INT(rc, KT_END);
  CHECK_INT(nb, 2);
  if (rewrite) { /* same size, "c" becomes "z": only a hash can tell */
    FILE *fp = fopen(path, "r+b");
    CHECK(fp != NULL);
    if (fp) {
      fseek(fp, (long)(strstr(json, "\"c\"") - json) + 1, SEEK_SET);
      fputc('z', fp);
      fclose(fp);
    }
  }
  while ((rc = kt_next(a, &e)) == KT_EVENT) na++;
  if (rewrite) { /* the reader finds it at its end when the modification time moved */
    if (rc == KT_SPLIT && kt_can_join(a, b)) rc = kt_join(a, b);
    CHECK_INT(rc, KT_ERROR);
    const char *m = kt_errmsg(a), *tail = ": the file changed while it was being read";
    CHECK(strlen(m) > strlen(tail) && !strcmp(m + strlen(m) - strlen(tail), tail));
    goto out;
  }
  CHECK_INT(rc, KT_SPLIT);
  CHECK_INT(na, 2);
  CHECK(kt_can_join(a, b));
  rc = kt_join(a, b);
  if (!rewrite) {
    CHECK_INT(rc, KT_END);
    CHECK_INT(kt_meta_get(a)->event_count, 4);
    CHECK(kt_content_hash(a) == rd_xxh64_block(json, strlen(json)));
  } else {
    char want[96];
    snprintf(want, sizeof want, "byte %llu: the file changed while it was being read",
             (unsigned long long)at);
    CHECK_INT(rc, KT_ERROR);
    CHECK_STR(kt_errmsg(a), want);
  }
out:
  kt_close(a);
  kt_close(b);
  remove(path);
}

static void testSplitJoin(void) {
  static const char json[] =
      "{\"traceEvents\": [\n"
      "  {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
      "  {\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1},\n"
      "  {\"ph\": \"X\", \"name\": \"c\", \"ts\": 3, \"dur\": 1},\n"
      "  {\"ph\": \"X\", \"name\": \"d\", \"ts\": 4, \"dur\": 1}\n"
      "]}\n";
  splitRun("split_join.json", json, 0);
  splitRun("split_join.json", json, 1);
}

/* ------------------------------------------------------------ big file */

/*
** About 3.4 MB with known values: several buffer refills, plain and gzip, so
** tokens of every kind straddle real 1 MiB boundaries; indentation varies so
** the boundaries fall at different places in the events.
*/
static void testBigFile(void) {
  const int nev = 15000;
  size_t cap = (size_t)nev * 300 + 100, o = 0;
  char *json = malloc(cap);
  o += (size_t)sprintf(json + o, "{\"traceEvents\": [\n");
  for (int i = 0; i < nev; i++) {
    o += (size_t)sprintf(json + o,
                         "%s{\"ph\": \"X\",%*s\"cat\": \"kernel\", "
                         "\"name\": \"k\\u00e9\\\\\\n%d\xc3\xa9\xf0\x9f\x98\x80\", "
                         "\"pid\": %d, \"tid\": \"t%d\", \"ts\": %d.%03d, \"dur\": 1.5, "
                         "\"args\": {\"stream\": 7, \"correlation\": %d, "
                         "\"x\": [true, null, false, \"s\\\"q\"], \"y\": 1e3}}",
                         i ? ",\n" : "", i % 5, "", i, i, i, i, i % 1000, i);
  }
  o += (size_t)sprintf(json + o, "\n], \"tail\": \"end\"}");
  CHECK(o > 3 * RD_BUF_SIZE);
  writeFile("big.json", json, o);
  writeGz("big.json.gz", "wb", json, o);
  for (int mode = KT_SCAN; mode <= KT_FULL; mode++) {
    for (int z = 0; z < 2; z++) {
      kt_file *f;
      char err[KT_ERR_MAX];
      CHECK_INT(kt_open(&f, z ? "big.json.gz" : "big.json", (kt_mode)mode, err), KT_OK);
      const kt_event *e;
      int rc, i = 0, bad = 0;
      char name[64], tid[32];
      while ((rc = kt_next(f, &e)) == KT_EVENT) {
        int nn = sprintf(name, "k\xc3\xa9\\\n%d\xc3\xa9\xf0\x9f\x98\x80", i);
        int tn = sprintf(tid, "t%d", i);
        if (e->seq != i || e->name.n != (size_t)nn || memcmp(e->name.p, name, (size_t)nn) ||
            !e->tid.is_str || e->tid.s.n != (size_t)tn || memcmp(e->tid.s.p, tid, (size_t)tn) ||
            e->pid.i != i || e->ts != (int64_t)i * 1000 + i % 1000 || e->dur != 1500 ||
            e->stream != 7 || e->correlation != i || !(e->flags & KT_GPU_WORK))
          bad++;
        const char *args = mode == KT_FULL ? "{\"x\":[true,null,false,\"s\\\"q\"],\"y\":1e3}" : "";
        if (e->args.n != strlen(args) || memcmp(e->args.p, args, e->args.n)) bad++;
        i++;
      }
      CHECK_INT(rc, KT_END);
      CHECK_INT(bad, 0);
      CHECK_INT(i, nev);
      CHECK_MEM(kt_meta_get(f)->metadata.p, kt_meta_get(f)->metadata.n, "{\"tail\":\"end\"}");
      CHECK_INT(kt_json_offset(f), o);
      kt_close(f);
    }
  }
  free(json);
}

/* ------------------------------------------------------------ corpus */

/* Decodes PATH in MODE; returns rc and a digest of what came out. */
static int corpusRun(const char *path, kt_mode mode, uint64_t *digest, int64_t *nev,
                     int64_t *last_seq, int64_t *count, uint64_t *hash, char *msg) {
  kt_file *f;
  char err[KT_ERR_MAX];
  int rc = kt_open(&f, path, mode, err);
  *digest = 1469598103934665603ULL;
  *nev = 0;
  *last_seq = -1;
  *count = 0;
  if (rc != KT_OK) {
    strcpy(msg, err);
    return rc;
  }
  const kt_event *e;
  while ((rc = kt_next(f, &e)) == KT_EVENT) {
    uint64_t v[6] = {(uint64_t)e->seq, (uint64_t)e->ts,          (uint64_t)e->dur,
                     e->flags,         (uint64_t)e->correlation, (uint64_t)e->stream};
    for (int i = 0; i < 6; i++) *digest = (*digest ^ v[i]) * 1099511628211ULL;
    *digest ^= rd_xxh64_block(e->name.p, e->name.n);
    *last_seq = e->seq;
    (*nev)++;
    if (mode == KT_FULL && strstr(path, "hta_hist_large_integer_trace") && e->seq == 1) {
      const char *want = "{\"Comms Id\":10159970886766084423}";
      CHECK_MEM(e->args.p, e->args.n, want);
    }
  }
  strcpy(msg, rc == KT_END ? "" : kt_errmsg(f));
  *count = kt_meta_get(f)->event_count;
  *hash = kt_content_hash(f);
  kt_close(f);
  return rc;
}

/* Every corpus file in both modes. tests/run.sh's HTA_CORPUS_CHECKS names the corpus checks
** a run wants; without "parser" in it this one is left out too (CI's sanitizer step: the
** ingest_counts check reads every file through the parser there). */
static void testCorpus(void) {
  const char *shared = getenv("HTA_SHARED");
  const char *only = getenv("HTA_CORPUS_CHECKS");
  char root[1024];
  if (only && !strstr(only, "parser")) {
    printf("test_parser: corpus skipped (not in HTA_CORPUS_CHECKS)\n");
    return;
  }
  snprintf(root, sizeof root, "%s/corpus", shared && *shared ? shared : "../shared");
  DIR *top = opendir(root);
  if (!top) {
    printf("test_parser: corpus skipped (no %s)\n", root);
    return;
  }
  const char *vg = getenv("VG");
  int under_valgrind = vg && *vg;
  int files = 0;
  long long events = 0;
  struct dirent *job;
  while ((job = readdir(top)) != NULL) {
    if (job->d_name[0] == '.') continue;
    char dir[1300];
    snprintf(dir, sizeof dir, "%s/%s", root, job->d_name);
    DIR *d = opendir(dir);
    if (!d) continue;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
      size_t L = strlen(de->d_name);
      if (!((L > 5 && !strcmp(de->d_name + L - 5, ".json")) ||
            (L > 8 && !strcmp(de->d_name + L - 8, ".json.gz"))))
        continue;
      char path[1600];
      snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
      struct stat st;
      if (stat(path, &st) != 0 || (under_valgrind && st.st_size > 1000000)) continue;
      uint64_t dg[2], hash[2];
      int64_t nev[2], last[2], count[2];
      char msg[2][KT_ERR_MAX];
      int rc[2];
      for (int m = 0; m < 2; m++)
        rc[m] = corpusRun(path, (kt_mode)m, &dg[m], &nev[m], &last[m], &count[m], &hash[m], msg[m]);
      files++;
      /* A Chakra execution trace (…_et.json.gz) is JSON but not a trace (K1). */
      int et = L > 11 && !strcmp(de->d_name + L - 11, "_et.json.gz");
      for (int m = 0; m < 2; m++) {
        tu_checks++;
        int ok = et ? rc[m] == KT_ERROR && strstr(msg[m],
                                                  ": not a Kineto trace: no "
                                                  "traceEvents array") != NULL
                    : rc[m] == KT_END && last[m] == count[m] - 1 && nev[m] > 0;
        if (!ok) {
          tu_failures++;
          fprintf(stderr, "%s: mode %d: rc %d %s (events %lld, last seq %lld, count %lld)\n", path,
                  m, rc[m], msg[m], (long long)nev[m], (long long)last[m], (long long)count[m]);
        }
      }
      /* Both modes agree on everything they both report. */
      CHECK(dg[0] == dg[1] && nev[0] == nev[1] && count[0] == count[1] && hash[0] == hash[1]);
      events += nev[0];
    }
    closedir(d);
  }
  closedir(top);
  printf("test_parser: corpus: %d files, %lld events\n", files, events);
  CHECK(files > 0);
}

int main(void) {
  testXxh64();
  testReaderErrors();
  testChangedFile();
  testGzipErrors();
  testMultiMember();
  testMagicNotName();
  testTokenizer();
  testTokenizerLimits();
  testSkip();
  testBasic();
  testNs();
  testBareArray();
  testMeta();
  testPromoted();
  testDecoderErrors();
  testEventLimit();
  testDepth();
  testSplitJoin();
  testBigFile();
  testCorpus();
  return tu_summary("test_parser");
}

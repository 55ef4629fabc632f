/*
** captures.c: the capture index of a graph replay job (captures.h).
*/
#include "captures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reader.h"

static char *cp_strndup(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n), p[n] = 0;
  return p;
}

void cp_index_free(cp_index *ix) {
  for (int i = 0; i < ix->n; i++) free(ix->a[i].file), free(ix->a[i].mode);
  free(ix->a);
  free(ix->path);
  memset(ix, 0, sizeof *ix);
}

const cp_entry *cp_find(const cp_index *ix, const char *file) {
  for (int i = ix ? ix->n - 1 : -1; i >= 0; i--) /* 1: the last listing wins */
    if (!strcmp(ix->a[i].file, file)) return &ix->a[i];
  return NULL;
}

/* A non-negative integer from number text S[0..n), or -1. */
static int64_t cp_int(const char *s, size_t n) {
  int64_t v = 0;
  if (n == 0 || n > 18) return -1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* One {"file", "batch_size", "mode"} object after its '{'. 0, -1 (js error set), -2 OOM. */
static int cp_entry_read(js_lexer *js, cp_entry *e) {
  js_tok t;
  e->batch_size = -1;
  while ((t = js_next(js)) == JS_KEY) {
    int which = js->n == 4 && !memcmp(js->s, "file", 4)           ? 1
                : js->n == 10 && !memcmp(js->s, "batch_size", 10) ? 2
                : js->n == 4 && !memcmp(js->s, "mode", 4)         ? 3
                                                                  : 0;
    t = js_next(js);
    if (t == JS_ERROR) return -1;
    if (which == 0) { /* 1 */
      if (js_skip(js, t)) return -1;
    } else if (which == 2) {
      int64_t v = t == JS_NUMBER ? cp_int(js->s, js->n) : -1;
      if (v < 0 && t != JS_NULL) {
        js_fail(js, js->tok_off, "batch_size is not a non-negative integer");
        return -1;
      }
      e->batch_size = v;
    } else if (t == JS_STRING) {
      char **dst = which == 1 ? &e->file : &e->mode;
      free(*dst);
      if (!(*dst = cp_strndup(js->s, js->n))) return -2;
    } else if (t != JS_NULL) {
      js_fail(js, js->tok_off, "%s is not a string", which == 1 ? "file" : "mode");
      return -1;
    }
  }
  return t == JS_OBJ_END ? 0 : -1;
}

int cp_read_index(const char *path, cp_index *out, char *err, size_t errlen) {
  rd_reader rd;
  js_lexer js;
  int rc = -1;
  memset(out, 0, sizeof *out);
  if (rd_open(&rd, path)) {
    snprintf(err, errlen, "%s: %s", path, rd.err);
    rd_close(&rd);
    return rd.nomem ? -2 : -1;
  }
  js_init(&js, &rd);
  js_tok t = js_next(&js);
  if (t != JS_ARR_BEGIN) {
    if (t != JS_ERROR) js_fail(&js, js.tok_off, "not a JSON array of capture entries");
    goto end;
  }
  while ((t = js_next(&js)) == JS_OBJ_BEGIN) {
    cp_entry e = {0};
    int r = cp_entry_read(&js, &e);
    if (r == 0 && e.file && out->n == out->cap) {
      int c = out->cap ? out->cap * 2 : 8;
      cp_entry *a = realloc(out->a, (size_t)c * sizeof *a);
      if (a) out->a = a, out->cap = c;
      else r = -2;
    }
    if (r == 0 && e.file) out->a[out->n++] = e;
    else free(e.file), free(e.mode);
    if (r == -2) {
      rc = -2;
      goto end;
    }
    if (r) goto end;
  }
  if (t == JS_ARR_END) t = js_next(&js);
  else if (t != JS_ERROR) js_fail(&js, js.tok_off, "an element is not a capture entry object");
  if (t == JS_EOF && (out->path = cp_strndup(path, strlen(path)))) rc = 0;
  else if (t == JS_EOF) rc = -2;
end:
  if (rc == -1)
    snprintf(err, errlen, "%s: byte %llu: %s", path, (unsigned long long)js.err_off,
             js.err[0] ? js.err : rd.err);
  if (rc) cp_index_free(out);
  js_free(&js);
  rd_close(&rd);
  return rc;
}

cp_capture *cp_capture_new(const cp_index *ix, const char *file) {
  cp_capture *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  const cp_entry *e = cp_find(ix, file);
  c->batch_size = e ? e->batch_size : -1;
  if (e && ((e->mode && !(c->mode = cp_strndup(e->mode, strlen(e->mode)))) ||
            !(c->index_file = cp_strndup(ix->path, strlen(ix->path))))) {
    cp_capture_free(c);
    return NULL;
  }
  return c;
}

void cp_capture_free(cp_capture *c) {
  if (!c) return;
  free(c->mode);
  free(c->index_file);
  free(c);
}

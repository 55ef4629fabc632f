/*
** op_perf_build.h: what the model files (op_perf_model.c, the classic formulas;
** op_perf_model_infer.c, the inference and low-precision ones) share to read a call's
** recorded shapes and write its parameters: element sizes and precisions, the list
** readers, overflow-checked arithmetic, Python-literal parsing, the JSON writers and the
** result under construction. Small functions, static inline so that each model file
** keeps its own copy and nothing else sees them. Only the two model files include it.
*/
#ifndef HTA_OP_PERF_BUILD_H
#define HTA_OP_PERF_BUILD_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf/op_perf.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- element sizes */
/* Bytes per element of a recorded type, lower-cased (TraceLens's name2bpe); 0 when
** unknown (bool, short, complex, '' ...). */
static inline int bpeOf(const char *t) {
  static const struct {
    const char *name;
    int bpe;
  } tab[] = {
      {"double", 8},
      {"long int", 8},
      {"float", 4},
      {"scalar", 4},
      {"int", 4},
      {"c10::half", 2},
      {"c10::bfloat16", 2},
      {"c10::float8_e4m3fnuz", 1},
      {"c10::float8_e4m3fn", 1},
      {"c10::float8_e5m2", 1},
      {"c10::float8_e8m0fnu", 1},
      {"unsigned char", 1},
      {"signed char", 1},
      {"c10::float4_e2m1fn_x2", 1},
      {"fp8", 1},
      {"fp4", 1},
  };
  if (!t) return 0;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    if (!strcasecmp(t, tab[i].name)) return tab[i].bpe;
  }
  return 0;
}

/* The precision part of a compute spec (TraceLens's torch_dtype_map); NULL when none. */
static inline const char *precOf(const char *t) {
  static const struct {
    const char *name, *prec;
  } tab[] = {
      {"float", "fp32"},
      {"double", "fp64"},
      {"c10::half", "fp16"},
      {"c10::bfloat16", "bf16"},
      {"c10::float8_e4m3fnuz", "fp8"},
      {"c10::float8_e4m3fn", "fp8"},
      {"unsigned char", "fp8"},
      {"fp8", "fp8"},
      {"fp4", "fp4"},
      {"mxfp4", "fp4"},
      {"c10::float4_e2m1fn_x2", "fp4"},
  };
  if (!t) return 0;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
    if (!strcasecmp(t, tab[i].name)) return tab[i].prec;
  }
  return 0;
}

static inline void setSpec(op_cost *c, const char *maf, const char *type) {
  const char *p = precOf(type);
  c->spec[0] = 0;
  if (p) snprintf(c->spec, sizeof c->spec, "%s_%s", maf, p);
}

/* ---------------------------------------------------------------- reading the lists */
typedef struct mctx {
  const opa_arena *ar;
  const op_args *a;
  int ok; /* cleared by a read the model cannot do: the call has no row */
} mctx;

static inline const opa_entry *entry(mctx *m, int list, int i) {
  if (i < 0 || m->a->n[list] < 0 || i >= m->a->n[list]) return 0;
  return &m->ar->e[m->a->first[list] + i];
}
/* Number of entries of LIST; -1 when absent. */
static inline int count(mctx *m, int list) { return m->a->n[list]; }

/* Dims (or Strides) entry I as a shape; a missing or non-list entry fails the model. */
typedef struct shape {
  const int64_t *v;
  int n;
} shape;
static inline shape need(mctx *m, int list, int i) {
  shape s = {0, 0};
  const opa_entry *e = entry(m, list, i);
  if (!e || e->kind != OPA_INTS) m->ok = 0;
  else s.v = m->ar->iv + e->off, s.n = e->n;
  return s;
}
static inline shape dims(mctx *m, int i) { return need(m, OPA_DIMS, i); }
/* 1 when Dims entry I is a non-empty shape (a tensor argument given). */
static inline int present(mctx *m, int i) {
  const opa_entry *e = entry(m, OPA_DIMS, i);
  return e && e->kind == OPA_INTS && e->n > 0;
}
/* Shape element I (Python indexing: negative from the end); fails when out of range. */
static inline int64_t at(mctx *m, shape s, int i) {
  if (i < 0) i += s.n;
  if (i < 0 || i >= s.n) {
    m->ok = 0;
    return 1;
  }
  return s.v[i];
}

/* String entry I of LIST (a type or a Concrete Inputs text); NULL when it is not one. */
static inline const char *str(mctx *m, int list, int i) {
  const opa_entry *e = entry(m, list, i);
  return e && e->kind == OPA_STR ? m->ar->cv + e->off : 0;
}
static inline const char *type(mctx *m, int i) { return str(m, OPA_TYPES, i); }
/* Concrete Inputs text I; fails the model when the position is missing. */
static inline const char *conc(mctx *m, int i) {
  const char *s = str(m, OPA_CONC, i);
  if (!s) m->ok = 0;
  return s ? s : "";
}
/* Types I and I+1 must exist (TraceLens indexes them). */
static inline void needTypes(mctx *m, int i, int n) {
  if (count(m, OPA_TYPES) < i + n) m->ok = 0;
}

/* ---------------------------------------------------------------- arithmetic */
/* R when the operation did not overflow; else 0 and the model fails. */
static inline int64_t checked(mctx *m, int overflow, int64_t r) {
  if (overflow) m->ok = 0;
  return overflow ? 0 : r;
}
static inline int64_t mul(mctx *m, int64_t a, int64_t b) {
  int64_t r;
  int o = __builtin_mul_overflow(a, b, &r);
  return checked(m, o, r);
}
static inline int64_t add(mctx *m, int64_t a, int64_t b) {
  int64_t r;
  int o = __builtin_add_overflow(a, b, &r);
  return checked(m, o, r);
}
static inline int64_t sub(mctx *m, int64_t a, int64_t b) {
  int64_t r;
  int o = __builtin_sub_overflow(a, b, &r);
  return checked(m, o, r);
}
static inline int64_t prod(mctx *m, shape s, int from) {
  int64_t r = 1;
  for (int i = from; i < s.n; i++) r = mul(m, r, s.v[i]);
  return r;
}

/* ---------------------------------------------------------------- literals */
/* A Python literal list of integers or booleans in text S ('[1, 1]', '[True, False]',
** '[]'), or a bare integer when BARE; into v (room for MAX). Returns the count, -1
** when S is not one. */
static inline int parseList(const char *s, int64_t *v, int max, int bare) {
  int n = 0;
  while (*s == ' ') s++;
  if (*s != '[' && *s != '(') {
    if (!bare) return -1;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (end == s) return -1;
    while (*end == ' ') end++;
    if (*end) return -1;
    v[0] = x;
    return 1;
  }
  char close = *s == '[' ? ']' : ')';
  s++;
  for (;;) {
    while (*s == ' ') s++;
    if (*s == close) {
      s++;
      break;
    }
    if (n >= max) return -1;
    if (!strncmp(s, "True", 4)) v[n++] = 1, s += 4;
    else if (!strncmp(s, "False", 5)) v[n++] = 0, s += 5;
    else {
      char *end;
      long long x = strtoll(s, &end, 10);
      if (end == s) return -1;
      v[n++] = x;
      s = end;
    }
    while (*s == ' ') s++;
    if (*s == ',') s++;
    else if (*s != close) return -1;
  }
  while (*s == ' ') s++;
  return *s ? -1 : n;
}

/* A Python boolean literal ('True', 'False', '1', '0'): 1/0, -1 when not one. */
static inline int parseBool(const char *s) {
  if (!strcmp(s, "True") || !strcmp(s, "1")) return 1;
  if (!strcmp(s, "False") || !strcmp(s, "0")) return 0;
  return -1;
}

/* TraceLens's optional_float: '' / 'None' -> 0.0, else float(text), 0.0 on failure. */
static inline double optFloat(const char *s) {
  char *end;
  if (!*s || !strcmp(s, "None")) return 0.0;
  double d = strtod(s, &end);
  while (*end == ' ') end++;
  return end == s || *end ? 0.0 : d;
}

/* ---------------------------------------------------------------- JSON parameters */
typedef struct jout {
  sqlite3_str *s;
  int n; /* members written */
} jout;

static inline void jKey(jout *j, const char *k) {
  sqlite3_str_appendf(j->s, "%s\"%s\":", j->n++ ? "," : "", k);
}
static inline void jText(sqlite3_str *s, const char *t) {
  if (!t) {
    sqlite3_str_appendall(s, "null");
    return;
  }
  sqlite3_str_appendchar(s, 1, '"');
  for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
    if (*p == '"' || *p == '\\') sqlite3_str_appendf(s, "\\%c", *p);
    else if (*p < 0x20) sqlite3_str_appendf(s, "\\u%04x", *p);
    else sqlite3_str_appendchar(s, 1, (char)*p);
  }
  sqlite3_str_appendchar(s, 1, '"');
}
static inline void jInt(jout *j, const char *k, int64_t v) {
  jKey(j, k);
  sqlite3_str_appendf(j->s, "%lld", (long long)v);
}
static inline void jBool(jout *j, const char *k, int v) {
  jKey(j, k);
  sqlite3_str_appendall(j->s, v ? "true" : "false");
}
/* A float as Python prints it: the shortest text that reads back, with a '.0'. */
static inline void jDouble(jout *j, const char *k, double d) {
  char b[40];
  jKey(j, k);
  for (int p = 1; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, d);
    if (strtod(b, 0) == d) break;
  }
  sqlite3_str_appendall(j->s, b);
  if (!strpbrk(b, ".eEni")) sqlite3_str_appendall(j->s, ".0");
}
static inline void jShapeV(sqlite3_str *s, shape v) {
  sqlite3_str_appendchar(s, 1, '[');
  for (int i = 0; i < v.n; i++) sqlite3_str_appendf(s, "%s%lld", i ? "," : "", (long long)v.v[i]);
  sqlite3_str_appendchar(s, 1, ']');
}
static inline void jShape(jout *j, const char *k, shape v) {
  jKey(j, k);
  jShapeV(j->s, v);
}
static inline void jNull(jout *j, const char *k) {
  jKey(j, k);
  sqlite3_str_appendall(j->s, "null");
}
/* Strides entry I, or null when the trace has no Input Strides (TraceLens's
** `except KeyError`); a missing entry fails the model. */
static inline void jStrideOpt(jout *j, mctx *m, const char *k, int i) {
  if (count(m, OPA_STRIDES) < 0) jNull(j, k);
  else jShape(j, k, need(m, OPA_STRIDES, i));
}
/* A list of types (each a string or null). */
static inline void jTypes(sqlite3_str *s, const char *const *t, int n) {
  sqlite3_str_appendchar(s, 1, '[');
  for (int i = 0; i < n; i++) {
    if (i) sqlite3_str_appendchar(s, 1, ',');
    jText(s, t[i]);
  }
  sqlite3_str_appendchar(s, 1, ']');
}

/* An attention call's shape parameters, TraceLens's names. */
static inline void jAttn(jout *j, int64_t B, int64_t NQ, int64_t HQ, int64_t NKV, int64_t HKV,
                         int64_t dqk, int64_t dv) {
  jInt(j, "B", B);
  jInt(j, "N_Q", NQ);
  jInt(j, "H_Q", HQ);
  jInt(j, "N_KV", NKV);
  jInt(j, "H_KV", HKV);
  jInt(j, "d_h_qk", dqk);
  jInt(j, "d_h_v", dv);
}

/* The model's result under construction. */
typedef struct build {
  mctx m;
  jout j;          /* shapes */
  sqlite3_str *dt; /* dtypes */
  op_cost *c;
} build;

static inline void setDtypes(build *b, const char *const *t, int n) {
  b->dt = sqlite3_str_new(0);
  jTypes(b->dt, t, n);
}

/* The inference and low-precision models (op_perf_model_infer.c): fills B for a call
** of model KIND; ANN is the detailed iteration annotation around the call, NULL. */
void opm_infer_cost(build *b, int kind, const op_kernels *k, const hta_engine_ann *ann);

#endif

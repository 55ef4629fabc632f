/*
** engine_ann.c: what an inference engine's iteration annotation says about its step
** (hta_engine_parse, declared in hta_common.h). vLLM, SGLang and ATOM wrap every
** engine iteration (one forward pass over a batch of requests) in a user annotation
** whose name carries the batch: how many prefill ("context") and decode
** ("generation") requests, how many tokens, and in the detailed forms the sums over
** requests of N_Q, N_KV, N_Q^2 and N_Q*N_KV that an attention roofline needs.
**
**   hta_engine_ann a;
**   if (hta_engine_parse("step[DECODE bs=32]", &a)) ... a.phase == HTA_PHASE_DECODE ...
**
** The forms (AMD TraceLens's annotation patterns at commit 171dd74 name the same
** ones; this parser is ours). Each is matched at the start of the name; n = digits.
**   vLLM detailed  execute_<n>_context_<c>(sq<n>sk<n>sqsq<n>sqsk<n>)_generation_<g>(sq<n>sk<n>sqsq<n>sqsk<n>)
**   vLLM native    execute_context_<c>(<context tokens>)_generation_<g>(<generation tokens>)
**   SGLang         step[EXTEND|DECODE|MIXED key=value ...]   (detailed when sqsq= is there)
**   ATOM           prefill[key=value ...], decode[key=value ...] (detailed with sqsq= and sqsk=)
**   diffusion      execute_diffusion_<batch>_<W>x<H>          (xDiT and alike)
**
** Requirements (tests cite them as EA-n):
**  1. batch_size is the number of requests in the step; tokens the query tokens it
**     processes (prefill tokens + decode tokens). -1 when the annotation does not say.
**  2. vLLM: context requests c, generation requests g; tokens c_sq + g_sq (detailed)
**     or the two bracketed sums (native). The leading execute_<n> is not read.
**  3. SGLang: EXTEND = prefill (requests bs, tokens toks, else c_sq); DECODE = decode
**     (requests bs, tokens g_sq, else one per request); MIXED = mixed (requests c and
**     g when given, tokens c_sq + g_sq, else toks). A native MIXED without c=/g= is
**     still mixed, with the split unknown (TraceLens counts it as prefill).
**  4. ATOM: bs is the real batch (the first integer: "117/128" is 117 of a graph padded
**     to 128); tok the tokens. prefill = prefill; decode = decode, or mixed when p=
**     (prefill requests riding in the decode step, with d= decode requests) is > 0.
**  5. phase: prefill when only context requests, decode when only generation
**     requests, mixed when both; HTA_PHASE_NONE for an idle step (no request) and for
**     diffusion, which is neither.
**  6. A name of none of these forms (capture_32_DECODE, ProfilerStep#3, a step[...]
**     of another word) is not an iteration annotation: 0.
*/
#include <stdlib.h>
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* ---------------------------------------------------------------- scanning */
/* Skips literal LIT at *P: 1 and advances, else 0. */
static int eaLit(const char **p, const char *lit) {
  size_t n = strlen(lit);
  if (strncmp(*p, lit, n)) return 0;
  *p += n;
  return 1;
}

/* Reads a run of decimal digits at *P into *V (saturating): 1 and advances, else 0. */
static int eaNum(const char **p, int64_t *v) {
  const char *s = *p;
  int64_t x = 0;
  if (*s < '0' || *s > '9') return 0;
  for (; *s >= '0' && *s <= '9'; s++)
    x = x > (INT64_MAX - 9) / 10 ? INT64_MAX : x * 10 + (*s - '0');
  *p = s;
  *v = x;
  return 1;
}

/* "(sq<n>sk<n>sqsq<n>sqsk<n>)" at *P into v[0..4): sq, sk, sqsq, sqsk. */
static int eaSqSk(const char **p, int64_t *v) {
  return eaLit(p, "(sq") && eaNum(p, &v[0]) && eaLit(p, "sk") && eaNum(p, &v[1]) &&
         eaLit(p, "sqsq") && eaNum(p, &v[2]) && eaLit(p, "sqsk") && eaNum(p, &v[3]) &&
         eaLit(p, ")");
}

/* The value text of KEY=... among the space-separated members of [B, E): a member
** starts at B or after a blank or a '['; a value runs to the next blank, or is a
** bracketed list ("ctx=[1, 2]"). 1 with [*v, *ve), else 0. */
static int eaKv(const char *b, const char *e, const char *key, const char **v, const char **ve) {
  size_t kl = strlen(key);
  for (const char *s = b; s < e; s++) {
    if (s != b && s[-1] != ' ' && s[-1] != '[') continue;
    if ((size_t)(e - s) <= kl || strncmp(s, key, kl) || s[kl] != '=') continue;
    const char *x = s + kl + 1, *y = x;
    if (*x == '[') {
      while (y < e && *y != ']') y++;
      if (y < e) y++;
    } else {
      while (y < e && *y != ' ') y++;
    }
    *v = x, *ve = y;
    return 1;
  }
  return 0;
}

/* The first integer in the value of KEY (ATOM's "bs=117/128" is 117); -1 when the key
** is absent or holds no digit. */
static int64_t eaFirstInt(const char *b, const char *e, const char *key) {
  const char *v, *ve;
  int64_t x;
  if (!eaKv(b, e, key, &v, &ve)) return -1;
  for (; v < ve; v++) {
    if (eaNum(&v, &x)) return x;
  }
  return -1;
}

/* The value of KEY when it is a whole integer (TraceLens's int()); -1 otherwise. */
static int64_t eaInt(const char *b, const char *e, const char *key) {
  const char *v, *ve;
  int64_t x;
  if (!eaKv(b, e, key, &v, &ve) || !eaNum(&v, &x) || v != ve) return -1;
  return x;
}

/* 0 for an absent value (-1), else the value: sums of known parts. */
static int64_t eaZ(int64_t v) { return v < 0 ? 0 : v; }

/* ---------------------------------------------------------------- the forms */
static void eaInit(hta_engine_ann *a) {
  memset(a, 0, sizeof *a);
  a->batch_size = a->tokens = a->ctx_requests = a->gen_requests = -1;
  a->ctx_tokens = a->gen_tokens = -1;
}

/* EA-5 from the request counts (-1: unknown). */
static int eaPhase(int64_t ctx, int64_t gen) {
  if (ctx > 0 && gen > 0) return HTA_PHASE_MIXED;
  if (ctx > 0) return HTA_PHASE_PREFILL;
  if (gen > 0) return HTA_PHASE_DECODE;
  return HTA_PHASE_NONE;
}

/* EA-2 */
static int eaVllm(const char *p, hta_engine_ann *a) {
  int64_t n, c, g, cs[4], gs[4];
  const char *q = p;
  if (eaLit(&q, "execute_context_")) { /* native */
    if (!(eaNum(&q, &c) && eaLit(&q, "(") && eaNum(&q, &cs[0]) && eaLit(&q, ")_generation_") &&
          eaNum(&q, &g) && eaLit(&q, "(") && eaNum(&q, &gs[0]) && eaLit(&q, ")")))
      return 0;
    a->format = HTA_ANN_VLLM;
  } else {
    if (!(eaLit(&q, "execute_") && eaNum(&q, &n) && eaLit(&q, "_context_") && eaNum(&q, &c) &&
          eaSqSk(&q, cs) && eaLit(&q, "_generation_") && eaNum(&q, &g) && eaSqSk(&q, gs)))
      return 0;
    a->format = HTA_ANN_VLLM;
    a->detailed = 1;
    a->c_sq = cs[0], a->c_sk = cs[1], a->c_sqsq = cs[2], a->c_sqsk = cs[3];
    a->g_sq = gs[0], a->g_sk = gs[1], a->g_sqsq = gs[2], a->g_sqsk = gs[3];
  }
  a->ctx_requests = c, a->gen_requests = g;
  a->ctx_tokens = cs[0], a->gen_tokens = gs[0];
  return 1;
}

/* EA-3; P is past "step[". */
static int eaSglang(const char *p, hta_engine_ann *a) {
  const char *close = strrchr(p, ']'), *q = p;
  int mode;
  if (eaLit(&q, "EXTEND")) mode = HTA_PHASE_PREFILL;
  else if (eaLit(&q, "DECODE")) mode = HTA_PHASE_DECODE;
  else if (eaLit(&q, "MIXED")) mode = HTA_PHASE_MIXED;
  else return 0;
  if (!close || close < q || (*q != ' ' && *q != ']')) return 0; /* a word of its own, then ']' */
  int64_t bs = eaInt(q, close, "bs"), toks = eaInt(q, close, "toks");
  a->format = HTA_ANN_SGLANG;
  a->detailed = eaInt(q, close, "sqsq") >= 0 || eaInt(q, close, "c_sqsq") >= 0 ||
                eaInt(q, close, "g_sqsq") >= 0;
  if (a->detailed) {
    a->c_sq = eaZ(eaInt(q, close, "c_sq")), a->c_sk = eaZ(eaInt(q, close, "c_sk"));
    a->c_sqsq = eaZ(eaInt(q, close, "c_sqsq")), a->c_sqsk = eaZ(eaInt(q, close, "c_sqsk"));
    a->g_sq = eaZ(eaInt(q, close, "g_sq")), a->g_sk = eaZ(eaInt(q, close, "g_sk"));
    a->g_sqsq = eaZ(eaInt(q, close, "g_sqsq")), a->g_sqsk = eaZ(eaInt(q, close, "g_sqsk"));
  }
  if (mode == HTA_PHASE_PREFILL) {
    a->ctx_requests = bs, a->gen_requests = 0;
    a->ctx_tokens = toks >= 0 ? toks : a->detailed ? a->c_sq : -1;
    a->gen_tokens = 0;
  } else if (mode == HTA_PHASE_DECODE) {
    a->gen_requests = bs, a->ctx_requests = 0;
    a->gen_tokens = a->detailed && a->g_sq > 0 ? a->g_sq : bs;
    a->ctx_tokens = 0;
  } else {
    a->ctx_requests = eaInt(q, close, "c"), a->gen_requests = eaInt(q, close, "g");
    if (a->detailed) a->ctx_tokens = a->c_sq, a->gen_tokens = a->g_sq;
    a->batch_size = bs;
    a->tokens = a->detailed ? hta_add_sat(a->c_sq, a->g_sq) : toks;
    a->phase = HTA_PHASE_MIXED;
  }
  if (a->batch_size < 0) a->batch_size = bs;
  return 1;
}

/* EA-4; P is past "prefill[" (PREFILL) or "decode[". */
static int eaAtom(const char *p, int prefill, hta_engine_ann *a) {
  const char *close = strrchr(p, ']');
  if (!close) return 0;
  int64_t bs = eaFirstInt(p, close, "bs"), tok = eaInt(p, close, "tok");
  int64_t sk = eaInt(p, close, "sk"), sqsq = eaInt(p, close, "sqsq");
  int64_t sqsk = eaInt(p, close, "sqsk");
  a->format = HTA_ANN_ATOM;
  a->detailed = sqsq >= 0 && sqsk >= 0;
  a->batch_size = bs, a->tokens = tok;
  if (prefill) {
    a->ctx_requests = bs, a->gen_requests = 0, a->ctx_tokens = tok, a->gen_tokens = 0;
    if (a->detailed) a->c_sq = eaZ(tok), a->c_sk = eaZ(sk), a->c_sqsq = sqsq, a->c_sqsk = sqsk;
  } else {
    int64_t pre = eaInt(p, close, "p"), dec = eaInt(p, close, "d");
    if (pre > 0) a->ctx_requests = pre, a->gen_requests = dec >= 0 ? dec : hta_sub_sat(bs, pre);
    else a->ctx_requests = 0, a->gen_requests = bs, a->ctx_tokens = 0, a->gen_tokens = tok;
    if (a->detailed) a->g_sq = eaZ(tok), a->g_sk = eaZ(sk), a->g_sqsq = sqsq, a->g_sqsk = sqsk;
  }
  return 1;
}

int hta_engine_parse(const char *name, hta_engine_ann *a) {
  const char *p = name;
  eaInit(a);
  if (!name) return 0;
  if (eaLit(&p, "execute_diffusion_")) {
    int64_t bs, w, h;
    if (!(eaNum(&p, &bs) && eaLit(&p, "_") && eaNum(&p, &w) && eaLit(&p, "x") && eaNum(&p, &h)))
      return 0;
    a->format = HTA_ANN_DIFFUSION;
    a->batch_size = bs;
    return 1;
  }
  int ok = 0;
  if (!strncmp(name, "execute_", 8)) ok = eaVllm(name, a);
  else if (eaLit(&p, "step[")) ok = eaSglang(p, a);
  else if (eaLit(&p, "prefill[")) ok = eaAtom(p, 1, a);
  else if (eaLit(&p, "decode[")) ok = eaAtom(p, 0, a);
  if (!ok) {
    eaInit(a);
    return 0;
  }
  if (a->batch_size < 0 && a->ctx_requests >= 0 && a->gen_requests >= 0)
    a->batch_size = hta_add_sat(a->ctx_requests, a->gen_requests);
  if (a->tokens < 0 && a->ctx_tokens >= 0 && a->gen_tokens >= 0)
    a->tokens = hta_add_sat(a->ctx_tokens, a->gen_tokens);
  if (a->phase == HTA_PHASE_NONE) a->phase = eaPhase(a->ctx_requests, a->gen_requests);
  return 1;
}

const char *hta_phase_name(int phase) {
  switch (phase) {
  case HTA_PHASE_PREFILL: return "prefill";
  case HTA_PHASE_DECODE: return "decode";
  case HTA_PHASE_MIXED: return "mixed";
  default: return 0;
  }
}

const char *hta_engine_name(int format) {
  switch (format) {
  case HTA_ANN_VLLM: return "vllm";
  case HTA_ANN_SGLANG: return "sglang";
  case HTA_ANN_ATOM: return "atom";
  case HTA_ANN_DIFFUSION: return "diffusion";
  default: return 0;
  }
}
